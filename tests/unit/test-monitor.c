/*
 * monitor: the command's end reported ahead of the child's exit, which
 * the loop then does not wait for, and the child reaped last.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "helper.h"
#include "monitor.h"

/*
 * A child that reports status 7 and then waits for the test to let it
 * go: the loop returns the status while the child is still alive (a loop
 * that waited for its exit would never return; the test's alarm,
 * forwarded to the child, would end it with SIGALRM instead).
 */
static void
test_report_ahead(void **state)
{
	int ended[2], release[2], ws = 0;
	pid_t pid;
	char b;

	(void)state;
	assert_int_equal(pipe2(ended, O_CLOEXEC), 0);
	assert_int_equal(pipe2(release, O_CLOEXEC), 0);
	monitor_block_signals();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The alarm the loop forwards ends it. */
		monitor_unblock_signals();
		close(ended[0]);
		close(release[1]);
		monitor_exit_report(ended[1]);
		monitor_report_exit(7);
		if (read(release[0], &b, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ended[1]);
	close(release[0]);
	monitor_exit_watch(ended[0]);
	alarm(10);
	assert_int_equal(monitor_run(NULL, pid, false, &ws), 0);
	alarm(0);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 7);
	/* Not reaped, and still running: the loop did not wait for it. */
	assert_int_equal(waitpid(pid, NULL, WNOHANG), 0);
	assert_int_equal(write(release[1], "x", 1), 1);
	close(release[1]);
	monitor_reap_last();
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	monitor_unblock_signals();
}

/* A child that ends without a report is reaped as before, with its own
 * status; nothing is left to reap last. */
static void
test_no_report(void **state)
{
	int ended[2], ws = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe2(ended, O_CLOEXEC), 0);
	monitor_block_signals();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(3);
	close(ended[1]);
	monitor_exit_watch(ended[0]);
	alarm(10);
	assert_int_equal(monitor_run(NULL, pid, false, &ws), 0);
	alarm(0);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 3);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	monitor_reap_last();
	monitor_exit_watch(-1);
	monitor_unblock_signals();
}

/* Only pid 1 of a namespace may say its namespace holds nothing more. */
static void
test_namespace_empty_not_pid1(void **state)
{
	(void)state;
	assert_int_equal(monitor_namespace_empty(), -EPERM);
}

/*
 * Only the process that started a helper stops it: a fork that
 * inherited the handle (pid 1 of the sandbox, leaving through the same
 * code) leaves it running; its starter kills and reaps it.
 */
static void
test_helper_stop_owner(void **state)
{
	pid_t helper, other, owner = getpid();
	int ws = 0;

	(void)state;
	helper = fork();
	assert_true(helper >= 0);
	if (helper == 0) {
		pause();
		_exit(0);
	}
	other = fork();
	assert_true(other >= 0);
	if (other == 0) {
		helper_stop(helper, owner, false);
		_exit(kill(helper, 0) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(other, &ws, 0), other);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0); /* still running */
	assert_int_equal(waitpid(helper, &ws, WNOHANG), 0);
	helper_stop(helper, owner, true); /* killed and reaped */
	assert_int_equal(kill(helper, 0), -1);
	assert_int_equal(errno, ESRCH);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_ahead),
		cmocka_unit_test(test_no_report),
		cmocka_unit_test(test_namespace_empty_not_pid1),
		cmocka_unit_test(test_helper_stop_owner),
	};

	return cmocka_run_group_tests_name("monitor", tests, NULL, NULL);
}
