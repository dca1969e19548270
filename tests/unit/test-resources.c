/*
 * Unit tests for the pure part of src/resources.c: where this process's
 * cgroup v2 directory is, from /proc/self/cgroup and mountinfo, and the
 * lines that name an exceeded limit; and profile_duration (src/profile.c),
 * the grammar of [limits] timeout.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "profile.h"
#include "value.h"
#include "resources.h"
#include "strv.h"
#include "xalloc.h"

#define MI_UNIFIED                                                             \
	"25 30 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw\n"              \
	"35 25 0:30 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 "    \
	"rw,nsdelegate\n"
#define MI_HYBRID                                                              \
	"40 31 0:35 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"    \
	"41 31 0:36 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
#define MI_NSROOT                                                              \
	"52 50 0:30 /user.slice/user-1000.slice /sys/fs/cgroup rw shared:3 "   \
	"master:9 - cgroup2 cgroup2 rw\n"
#define MI_V1	 "40 31 0:35 / /sys/fs/cgroup/memory rw - cgroup cgroup rw\n"
#define MI_BLANK "41 31 0:36 / /mnt/c\\040g rw - cgroup2 none rw\n"

static const struct {
	const char *cgroup, *mountinfo, *dir; /* dir NULL: -ENOENT */
} dir_cases[] = {
	{ "0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
	  "run-r1.scope\n",
	  MI_UNIFIED,
	  "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/"
	  "app.slice/run-r1.scope" },
	{ "0::/\n", MI_UNIFIED, "/sys/fs/cgroup" },
	/* Hybrid: the v1 lines come first, the unified one last. */
	{ "4:memory:/x\n1:name=systemd:/\n0::/llw\n", MI_HYBRID,
	  "/sys/fs/cgroup/unified/llw" },
	/* A mount of a subtree (a container's view). */
	{ "0::/user.slice/user-1000.slice/session-3.scope\n", MI_NSROOT,
	  "/sys/fs/cgroup/session-3.scope" },
	{ "0::/user.slice/user-1000.slicex/s\n", MI_NSROOT, NULL },
	{ "0::/system.slice\n", MI_NSROOT, NULL },
	/* Octal escapes in the mount point. */
	{ "0::/a\n", MI_BLANK, "/mnt/c g/a" },
	/* cgroup v1 only, or no unified line. */
	{ "4:memory:/x\n", MI_V1, NULL },
	{ "0::/x\n", MI_V1, NULL },
	{ "", MI_UNIFIED, NULL },
	{ "0::relative\n", MI_UNIFIED, NULL },
};

static void
test_cgroup_dir(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dir_cases); i++) {
		_cleanup_free_ char *dir = NULL;
		int r = resources_cgroup_dir(dir_cases[i].cgroup,
					     dir_cases[i].mountinfo, &dir);

		if (dir_cases[i].dir == NULL) {
			if (r != -ENOENT)
				fail_msg("case %zu: %d, %s", i, r, dir);
			continue;
		}
		if (r != 0 || strcmp(dir, dir_cases[i].dir) != 0)
			fail_msg("case %zu: %d, %s", i, r, dir ? dir : "-");
	}
}

static const struct {
	const char *text;
	int r;
	uint64_t seconds;
} duration_cases[] = {
	{ "90", 0, 90 },
	{ "90s", 0, 90 },
	{ "30m", 0, 1800 },
	{ "2h", 0, 7200 },
	{ "1d", 0, 86400 },
	{ "0", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "s", -EINVAL, 0 },
	{ "1x", -EINVAL, 0 },
	{ "1 m", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "1ms", -EINVAL, 0 },
	{ "1.5h", -EINVAL, 0 },
	{ "99999999999999999999", -EINVAL, 0 },
	{ "999999999999999999d", -EINVAL, 0 },
};

static void
test_duration(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(duration_cases); i++) {
		uint64_t s = 42;
		int r = value_duration(duration_cases[i].text, &s, NULL);

		if (r != duration_cases[i].r ||
		    (r == 0 && s != duration_cases[i].seconds))
			fail_msg("'%s': %d, %llu", duration_cases[i].text, r,
				 (unsigned long long)s);
	}
}

static void
test_report(void **state)
{
	struct limits_plan p = {
		.timeout = 1800, .memory_max = 1 << 20, .pids_max = 64, .cpu = 3
	};
	struct resources_outcome none = { 0 }, t = { .timed_out = true },
				 tk = { .timed_out = true, .killed = true },
				 oom = { .oom_kills = 2 },
				 pids = { .pids_refused = 1 };
	char **l;

	(void)state;
	assert_null(resources_report(&p, &none, 0));
	assert_null(resources_report(&p, &none, 137));
	l = resources_report(&p, &t, LLW_EXIT_TIMEOUT);
	assert_int_equal(strv_length(l), 1);
	assert_string_equal(l[0], "llwrap: the command exceeded [limits] "
				  "timeout = 30 min (wall clock) and was "
				  "stopped (SIGTERM)");
	strv_free(l);
	l = resources_report(&p, &tk, LLW_EXIT_TIMEOUT);
	assert_non_null(strstr(l[0], "SIGTERM, then SIGKILL 5 s later"));
	strv_free(l);
	l = resources_report(&p, &oom, 137);
	assert_string_equal(l[0], "llwrap: the command exceeded [limits] "
				  "memory-max = 1048576 bytes (cgroup "
				  "memory.max): the kernel killed 2 processes "
				  "of it out of memory");
	strv_free(l);
	l = resources_report(&p, &pids, 0);
	assert_string_equal(l[0], "llwrap: the command reached [limits] "
				  "pids-max = 64 (cgroup pids.max): 1 fork "
				  "was refused (EAGAIN)");
	strv_free(l);
	/* The rlimits' signals, only when that limit is set. */
	l = resources_report(&p, &none, 128 + SIGXCPU);
	assert_non_null(strstr(l[0], "[limits] cpu = 3"));
	strv_free(l);
	assert_null(resources_report(&p, &none, 128 + SIGXFSZ));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_dir),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests_name("resources", tests, NULL, NULL);
}
