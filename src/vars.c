/*
 * ${VAR} expansion for profile values (vars.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "strv.h"
#include "vars.h"
#include "xalloc.h"

/* Variables, in the order vars_expand's error message lists them. */
static const char *const var_names[] = {
	"HOME",		  "PROJECT",
	"PROJECT_ID",	  "NAME",
	"USER",		  "UID",
	"TMPDIR",	  "XDG_CONFIG_HOME",
	"XDG_DATA_HOME",  "XDG_STATE_HOME",
	"XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
};

struct vars {
	char *values[ARRAY_SIZE(var_names)];
};

static void
vars_set(struct vars *v, const char *name, char *value)
{
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++) {
		if (strcmp(var_names[i], name) == 0) {
			free(v->values[i]);
			v->values[i] = value;
			return;
		}
	}
	free(value);
}

/*
 * An XDG base directory: the environment's value when it is absolute (the
 * XDG specification says relative values are to be ignored), otherwise
 * the default under HOME, or unset when HOME is unknown too.
 */
static char *
vars_xdg(char *const *envp, const char *home, const char *name,
	 const char *dflt)
{
	const char *s = strv_env_get(envp, name);

	if (s != NULL && s[0] == '/')
		return xstrdup(s);
	if (home == NULL)
		return NULL;
	return xasprintf("%s/%s", strcmp(home, "/") == 0 ? "" : home, dflt);
}

/*
 * ${PROJECT_ID}: a name for the project that differs from every other
 * project's, for per-project state directories (DESIGN.md §11): the
 * project directory's last component (letters, digits, '-', '_' and '.'
 * kept, at most 32) and 16 hex digits of the FNV-1a hash of its path.
 */
static char *
vars_project_id(const char *project)
{
	const char *base = strrchr(project, '/');
	uint64_t h = 0xcbf29ce484222325ULL;
	char name[33];
	size_t n = 0;

	for (const char *c = project; *c != '\0'; c++) {
		h ^= (unsigned char)*c;
		h *= 0x100000001b3ULL;
	}
	for (const char *c = base != NULL ? base + 1 : project;
	     *c != '\0' && n < sizeof(name) - 1; c++)
		name[n++] = (isalnum((unsigned char)*c) || strchr("-_.", *c))
				    ? *c
				    : '_';
	name[n] = '\0';
	return xasprintf("%s%s%016llx", name, n > 0 ? "-" : "",
			 (unsigned long long)h);
}

struct vars *
vars_new(char *const *envp, const char *project, const char *name)
{
	struct vars *v = xcalloc(1, sizeof(*v));
	const char *home = strv_env_get(envp, "HOME");
	const char *s;

	if (home != NULL && home[0] != '/')
		home = NULL;
	vars_set(v, "HOME", home != NULL ? xstrdup(home) : NULL);
	vars_set(v, "PROJECT", project != NULL ? xstrdup(project) : NULL);
	vars_set(v, "PROJECT_ID",
		 project != NULL ? vars_project_id(project) : NULL);
	vars_set(v, "NAME", name != NULL ? xstrdup(name) : NULL);
	s = strv_env_get(envp, "USER");
	if (s == NULL || *s == '\0')
		s = strv_env_get(envp, "LOGNAME");
	vars_set(v, "USER", s != NULL && *s != '\0' ? xstrdup(s) : NULL);
	vars_set(v, "UID", xasprintf("%u", (unsigned)getuid()));
	s = strv_env_get(envp, "TMPDIR");
	vars_set(v, "TMPDIR", xstrdup(s != NULL && s[0] == '/' ? s : "/tmp"));
	vars_set(v, "XDG_CONFIG_HOME",
		 vars_xdg(envp, home, "XDG_CONFIG_HOME", ".config"));
	vars_set(v, "XDG_DATA_HOME",
		 vars_xdg(envp, home, "XDG_DATA_HOME", ".local/share"));
	vars_set(v, "XDG_STATE_HOME",
		 vars_xdg(envp, home, "XDG_STATE_HOME", ".local/state"));
	vars_set(v, "XDG_CACHE_HOME",
		 vars_xdg(envp, home, "XDG_CACHE_HOME", ".cache"));
	s = strv_env_get(envp, "XDG_RUNTIME_DIR");
	vars_set(v, "XDG_RUNTIME_DIR",
		 s != NULL && s[0] == '/'
			 ? xstrdup(s)
			 : xasprintf("/run/user/%u", (unsigned)getuid()));
	return v;
}

void
vars_free(struct vars *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++)
		free(v->values[i]);
	free(v);
}

const char *
vars_get(const struct vars *v, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++)
		if (strcmp(var_names[i], name) == 0)
			return v->values[i];
	return NULL;
}

static bool
vars_known(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(var_names); i++)
		if (strcmp(var_names[i], name) == 0)
			return true;
	return false;
}

/* Append n bytes of s to the growing string *buf of length *len. */
static void
buf_add(char **buf, size_t *len, const char *s, size_t n)
{
	*buf = xreallocarray(*buf, *len + n + 1, 1);
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/*
 * Expand ${VAR} everywhere in s and, when tilde is set, a leading "~" or
 * "~/".  The cause carries no file:line; profile_add() prefixes it.
 */
static int
vars_expand_full(const struct vars *v, const char *s, bool tilde, char **out,
		 char **cause)
{
	_cleanup_free_ char *r = NULL;
	size_t len = 0;

	/* Most values name no variable: one copy, not a growing string. */
	if (!(tilde && s[0] == '~') && strstr(s, "${") == NULL) {
		*out = xstrdup(s);
		return 0;
	}
	r = xstrdup("");
	if (tilde && s[0] == '~' && (s[1] == '\0' || s[1] == '/')) {
		const char *home = vars_get(v, "HOME");

		if (home == NULL) {
			*cause = xstrdup("'~' needs HOME, which is not set "
					 "to an absolute path");
			return -EINVAL;
		}
		buf_add(&r, &len, home, strlen(home));
		s++;
	}
	while (*s != '\0') {
		const char *dollar = strstr(s, "${"), *end;
		_cleanup_free_ char *name = NULL;
		const char *value;

		if (dollar == NULL) {
			buf_add(&r, &len, s, strlen(s));
			break;
		}
		buf_add(&r, &len, s, (size_t)(dollar - s));
		end = strchr(dollar + 2, '}');
		if (end == NULL) {
			*cause = xasprintf("unterminated variable in '%s'",
					   dollar);
			return -EINVAL;
		}
		name = xstrndup(dollar + 2, (size_t)(end - dollar - 2));
		if (!vars_known(name)) {
			*cause = xasprintf(
				"unknown variable ${%s}; the known ones are "
				"${HOME} ${PROJECT} ${NAME} ${USER} ${UID} "
				"${TMPDIR} ${XDG_CONFIG_HOME} ${XDG_DATA_HOME} "
				"${XDG_STATE_HOME} ${XDG_CACHE_HOME} "
				"${XDG_RUNTIME_DIR}",
				name);
			return -EINVAL;
		}
		value = vars_get(v, name);
		if (value == NULL) {
			*cause = xasprintf("variable ${%s} has no value here "
					   "(is it set in the environment?)",
					   name);
			return -EINVAL;
		}
		buf_add(&r, &len, value, strlen(value));
		s = end + 1;
	}
	*out = steal_pointer(&r);
	return 0;
}

int
vars_expand(const struct vars *v, const char *s, char **out, char **cause)
{
	return vars_expand_full(v, s, true, out, cause);
}

int
vars_expand_env(const struct vars *v, const char *s, char **out, char **cause)
{
	return vars_expand_full(v, s, false, out, cause);
}
