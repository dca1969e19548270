/*
 * The words for access.h's values, and the private scratch directories.
 */
#include <string.h>

#include "access.h"
#include "cleanup.h"
#include "path.h"

static const char *const access_names[] = {
	[LLW_ACCESS_DENY] = "deny", [LLW_ACCESS_RO] = "ro",
	[LLW_ACCESS_RX] = "rx",	    [LLW_ACCESS_RW] = "rw",
	[LLW_ACCESS_RWX] = "rwx",
};

const char *
policy_access_name(enum llw_access a)
{
	if ((unsigned)a >= ARRAY_SIZE(access_names))
		return NULL;
	return access_names[a];
}

/* Read, execute and write bits of an access level. */
static unsigned
access_bits(enum llw_access a)
{
	switch (a) {
	case LLW_ACCESS_DENY:
		return 0;
	case LLW_ACCESS_RO:
		return 1;
	case LLW_ACCESS_RX:
		return 1 | 2;
	case LLW_ACCESS_RW:
		return 1 | 4;
	case LLW_ACCESS_RWX:
		return 1 | 2 | 4;
	}
	return 7;
}

bool
policy_access_wider(enum llw_access a, enum llw_access b)
{
	return (access_bits(a) & ~access_bits(b)) != 0;
}

bool
policy_access_writable(enum llw_access a)
{
	return (access_bits(a) & 4) != 0;
}

bool
policy_access_executable(enum llw_access a)
{
	return a == LLW_ACCESS_RX || a == LLW_ACCESS_RWX;
}

const char *
policy_net_mode_name(enum llw_net_mode m)
{
	switch (m) {
	case LLW_NET_FILTERED:
		return "filtered";
	case LLW_NET_NONE:
		return "none";
	case LLW_NET_HOST:
		return "host";
	}
	return NULL;
}

const char *const policy_private_tmps[] = { "/tmp", "/var/tmp", "/dev/shm",
					    NULL };

const char *
policy_private_tmp_of(const char *path)
{
	for (const char *const *t = policy_private_tmps; *t != NULL; t++)
		if (path_under(path, *t))
			return *t;
	return NULL;
}

bool
policy_private_tmp_hides(const char *path, const char *project)
{
	const char *t = policy_private_tmp_of(path);

	return t != NULL && strcmp(path, t) != 0 &&
	       !path_under(path, project) && !path_under(project, path);
}
