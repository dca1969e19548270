/*
 * The watch judge (src/watchjudge.c): the open it makes for a mask, and
 * a real judge process answering, without Landlock (the view alone) and
 * under a Landlock ruleset that grants reading one directory; the
 * directories it opens ahead, used only where the path still leads to
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat/landlock.h"
#include "compat/syscall.h"
#include "watchjudge.h"

static char dir[64];

static int
setup(void **state)
{
	char p[128];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/llw-judge.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(p, sizeof(p), "%s/ok", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/secret", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/ok/file", dir);
	close(open(p, O_WRONLY | O_CREAT, 0644));
	snprintf(p, sizeof(p), "%s/ok/link", dir);
	if (symlink("../secret", p) < 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_how(void **state)
{
	struct open_how how;

	(void)state;
	watchjudge_how(IN_MODIFY, &how);
	assert_int_equal(how.flags,
			 O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	assert_int_equal(how.resolve, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
	watchjudge_how(IN_MODIFY | IN_ONLYDIR | IN_DONT_FOLLOW, &how);
	assert_true(how.flags & O_DIRECTORY);
	assert_true(how.flags & O_NOFOLLOW);
	assert_false(how.flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC));
}

/* Ask j for path (relative to dir, the root) with mask: 0 or -errno,
 * and the descriptor's mode in *mode. */
static int
ask(struct watchjudge *j, const char *path, uint32_t mask, mode_t *mode)
{
	int root = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd, r;
	struct stat st;

	assert_true(root >= 0);
	r = watchjudge_open(j, root, path, mask, &fd);
	close(root);
	if (r < 0) {
		assert_int_equal(fd, -1);
		return r;
	}
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	*mode = st.st_mode;
	close(fd);
	return 0;
}

static void
test_view(void **state)
{
	struct watchjudge *j = watchjudge_new(-1);
	mode_t m = 0;

	(void)state;
	assert_int_equal(ask(j, "/ok", IN_MODIFY, &m), 0);
	assert_true(S_ISDIR(m));
	assert_int_equal(ask(j, "/ok/file", IN_MODIFY, &m), 0);
	assert_true(S_ISREG(m));
	assert_int_equal(ask(j, "/ok/file", IN_ONLYDIR, &m), -ENOTDIR);
	assert_int_equal(ask(j, "/missing", IN_MODIFY, &m), -ENOENT);
	/* The symlink is followed inside the root, or watched itself. */
	assert_int_equal(ask(j, "/ok/link", IN_ONLYDIR, &m), 0);
	assert_true(S_ISDIR(m));
	assert_int_equal(ask(j, "/ok/link", IN_DONT_FOLLOW, &m), 0);
	assert_true(S_ISLNK(m));
	/* Resolution stays beneath the root: ".." at the root is the root,
	 * and the magic links of /proc are not followed. */
	assert_int_equal(ask(j, "/../../ok/file", IN_MODIFY, &m), 0);
	assert_int_equal(ask(j, "/../../../etc/passwd", IN_MODIFY, &m),
			 -ENOENT);
	watchjudge_free(j);
}

/* A Landlock ruleset that grants reading dir/ok alone, or -1 (no
 * Landlock here). */
static int
ok_ruleset(void)
{
	struct llw_ruleset_attr attr = {
		.handled_access_fs = LLW_FS_READ_FILE | LLW_FS_READ_DIR,
	};
	struct llw_path_beneath_attr pb = {
		.allowed_access = LLW_FS_READ_FILE | LLW_FS_READ_DIR,
	};
	char p[128];
	int rs;

	rs = sys_landlock_create_ruleset(&attr, llw_ruleset_attr_size(1), 0);
	if (rs < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/ok", dir);
	pb.parent_fd = open(p, O_PATH | O_CLOEXEC);
	assert_int_equal(
		sys_landlock_add_rule(rs, LLW_RULE_PATH_BENEATH, &pb, 0), 0);
	close(pb.parent_fd);
	return rs;
}

static void
test_landlock(void **state)
{
	char p[128];
	struct watchjudge *j;
	mode_t m = 0;
	int rs;

	(void)state;
	if ((rs = ok_ruleset()) < 0)
		skip();
	j = watchjudge_new(rs);
	assert_int_equal(ask(j, "/ok", IN_MODIFY, &m), 0);
	assert_int_equal(ask(j, "/ok/file", IN_MODIFY, &m), 0);
	assert_int_equal(ask(j, "/secret", IN_MODIFY, &m), -EACCES);
	assert_int_equal(ask(j, "/", IN_MODIFY, &m), -EACCES);
	/* Through the symlink in the readable tree: its target decides. */
	assert_int_equal(ask(j, "/ok/link", IN_MODIFY, &m), -EACCES);
	/* The symlink itself: the readable directory that holds it. */
	assert_int_equal(ask(j, "/ok/link", IN_DONT_FOLLOW, &m), 0);
	assert_true(S_ISLNK(m));
	/* This process is not restricted: only the judge is. */
	snprintf(p, sizeof(p), "%s/secret", dir);
	assert_true(access(p, R_OK) == 0);
	watchjudge_free(j);
}

/* The judge: this process's only child. */
static pid_t
judge_pid(void)
{
	char p[64];
	long pid = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/self/task/%d/children", (int)getpid());
	f = fopen(p, "re");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	return (pid_t)pid;
}

static void
mk(const char *rel)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void
test_ahead(void **state)
{
	char p[128], q[128];
	struct watchjudge *j;
	mode_t m = 0;
	pid_t judge;
	int rs;

	(void)state;
	if ((rs = ok_ruleset()) < 0)
		skip();
	mk("ok/t");
	mk("ok/t/a");
	mk("ok/t/b");
	mk("ok/t/c");
	mk("ok/t/d");
	mk("ok/t/a/x");
	j = watchjudge_new(rs);
	/* a is judged; its neighbours are opened ahead. */
	assert_int_equal(ask(j, "/ok/t/a", IN_ONLYDIR, &m), 0);
	assert_true(S_ISDIR(m));
	/* b is one of them: a stopped judge answers nothing (a request to
	 * it would fail after 5 s), and the watch is given at once. */
	judge = judge_pid();
	assert_true(judge > 0);
	assert_int_equal(kill(judge, SIGSTOP), 0);
	assert_int_equal(ask(j, "/ok/t/b", IN_ONLYDIR, &m), 0);
	assert_true(S_ISDIR(m));
	/* So is a's subdirectory (a has three links; b, c and d, two, are
	 * not read). */
	assert_int_equal(ask(j, "/ok/t/a/x", IN_ONLYDIR, &m), 0);
	assert_true(S_ISDIR(m));
	assert_int_equal(kill(judge, SIGCONT), 0);
	/* c replaced by a link to the secret directory since: the path no
	 * longer leads to what was opened ahead, the judge decides, and
	 * refuses. */
	snprintf(p, sizeof(p), "%s/ok/t/c", dir);
	snprintf(q, sizeof(q), "%s/ok/t/c.old", dir);
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(symlink("../../secret", p), 0);
	assert_int_equal(ask(j, "/ok/t/c", IN_ONLYDIR, &m), -EACCES);
	/* d replaced by another directory: judged again, allowed. */
	snprintf(p, sizeof(p), "%s/ok/t/d", dir);
	assert_int_equal(rmdir(p), 0);
	mk("ok/t/d");
	assert_int_equal(ask(j, "/ok/t/d", IN_ONLYDIR, &m), 0);
	/* Nothing outside the ruleset is opened ahead: the secret tree
	 * stays the judge's to refuse. */
	assert_int_equal(ask(j, "/secret", IN_ONLYDIR, &m), -EACCES);
	watchjudge_free(j);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_how),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_landlock),
		cmocka_unit_test(test_ahead),
	};

	return cmocka_run_group_tests_name("watchjudge", tests, setup,
					   teardown);
}
