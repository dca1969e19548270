/*
 * Unit tests of src/contain.c: the container runtime from what a
 * process can read, the status fields, and who refused a system call
 * with the option that allows it -- facts in, cause and advice out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "contain.h"

#define has(s, sub)   assert_non_null(strstr((s), (sub)))
#define hasnt(s, sub) assert_null(strstr((s), (sub)))

static void
test_runtime(void **state)
{
	(void)state;
	assert_int_equal(contain_runtime_of(false, false, "0::/\n", "", NULL),
			 CONTAIN_NONE);
	assert_int_equal(contain_runtime_of(true, false, "0::/\n", "", NULL),
			 CONTAIN_DOCKER);
	/* cgroup v1 and the bind mounts of Docker's hostname file. */
	assert_int_equal(contain_runtime_of(false, false,
					    "3:cpu:/docker/0123abcd\n", NULL,
					    NULL),
			 CONTAIN_DOCKER);
	assert_int_equal(
		contain_runtime_of(false, false, NULL,
				   "612 598 8:1 /var/lib/docker/containers/"
				   "ab/hostname /etc/hostname rw - ext4\n",
				   NULL),
		CONTAIN_DOCKER);
	assert_int_equal(contain_runtime_of(false, true, "0::/\n", "", NULL),
			 CONTAIN_PODMAN);
	assert_int_equal(contain_runtime_of(false, false, NULL, NULL, "podman"),
			 CONTAIN_PODMAN);
	assert_int_equal(contain_runtime_of(
				 false, false, "0::/\n",
				 "1 0 0:40 / / rw - overlay overlay "
				 "rw,lowerdir=/var/lib/containerd/"
				 "io.containerd.snapshotter.v1.overlayfs/s/1\n",
				 NULL),
			 CONTAIN_CONTAINERD);
	/* A pod: kubepods wins over the runtime beneath it. */
	assert_int_equal(contain_runtime_of(true, false,
					    "0::/kubepods/burstable/pod1/c\n",
					    NULL, NULL),
			 CONTAIN_KUBERNETES);
	assert_int_equal(
		contain_runtime_of(false, false, "0::/\n",
				   "9 1 8:1 /var/lib/kubelet/pods/u/volumes/x "
				   "/data rw - ext4\n",
				   NULL),
		CONTAIN_KUBERNETES);
	assert_int_equal(contain_runtime_of(false, false, NULL, NULL, "lxc"),
			 CONTAIN_OTHER);
	assert_int_equal(contain_runtime_of(false, false, NULL, NULL, ""),
			 CONTAIN_NONE);
}

/*
 * An outer llwrap is one above the process this llwrap started as: the
 * guardian and the monitor a run forks (whose child makes the
 * namespaces, in Docker where its unshare is refused) are its own.
 */
static void
test_outer(void **state)
{
	char *const own[] = { (char *)"llwrap", (char *)"bash" };
	const pid_t own_pids[] = { 100, 50 };
	char *const chain[] = { (char *)"llwrap", (char *)"llwrap",
				(char *)"sh", (char *)"llwrap" };
	const pid_t chain_pids[] = { 101, 100, 60, 40 };

	(void)state;
	/* The guardian's child (pid 200): its parent is the run's own. */
	assert_false(contain_outer_in(own_pids, own, 2, 200, 100));
	/* The run's own process, under bash. */
	assert_false(contain_outer_in(&own_pids[1], &own[1], 1, 100, 100));
	/* Two of the run's own, then an outer llwrap above a shell. */
	assert_true(contain_outer_in(chain_pids, chain, 4, 300, 100));
	/* llwrap run by the outer one's command: its parent is outer. */
	assert_true(contain_outer_in(chain_pids, chain, 4, 102, 102));
	/* The process it started as not on the chain (reparented): none
	 * blamed. */
	assert_false(contain_outer_in(&chain_pids[2], &chain[2], 2, 300, 100));
}

/* The initial pid namespace by its fixed inode; any other is nested. */
static void
test_pidns(void **state)
{
	(void)state;
	assert_false(contain_pidns_nested("pid:[4026531836]"));
	assert_true(contain_pidns_nested("pid:[4026532301]"));
	assert_false(contain_pidns_nested(NULL));
	assert_false(contain_pidns_nested("net:[4026532301]"));
	assert_false(contain_ipcns_nested("ipc:[4026531839]"));
	assert_true(contain_ipcns_nested("ipc:[4026532302]"));
	assert_false(contain_ipcns_nested(NULL));
	assert_false(contain_ipcns_nested("pid:[4026532302]"));
}

static void
test_status(void **state)
{
	struct contain c = { 0 };

	(void)state;
	contain_status(&c, "Name:\tsh\nNoNewPrivs:\t1\nSeccomp:\t2\n"
			   "Seccomp_filters:\t3\nSpeculation_Store_Bypass:\t"
			   "x\n");
	assert_int_equal(c.seccomp, 2);
	assert_int_equal(c.seccomp_filters, 3);
	assert_true(c.no_new_privs);
	contain_status(&c, "Name:\tsh\nNoNewPrivs:\t0\nSeccomp:\t0\n");
	assert_int_equal(c.seccomp, 0);
	assert_int_equal(c.seccomp_filters, -1);
	assert_false(c.no_new_privs);
}

static const char *const US = "unshare, clone with CLONE_NEWUSER";

static void
test_filter_cause(void **state)
{
	struct contain c = { .seccomp = 2,
			     .seccomp_filters = 1,
			     .dumpable = true };
	char *s;

	(void)state;
	/* No filter: not the filter's doing. */
	c.seccomp = 0;
	assert_null(contain_filter_cause(&c, "new user namespaces", US));
	c.seccomp = 2;

	c.runtime = CONTAIN_DOCKER;
	s = contain_filter_cause(&c, "new user namespaces", US);
	has(s, "Docker's default seccomp profile refuses new user "
	       "namespaces (unshare, clone with CLONE_NEWUSER: EPERM)");
	has(s, "--security-opt seccomp=unconfined");
	has(s, "a profile that allows unshare, clone with CLONE_NEWUSER");
	has(s, "-p default (Landlock and seccomp alone) runs here");
	hasnt(s, "outer llwrap");
	free(s);
	/* Where Landlock lacks truncate -p default needs L3 too: the
	 * refusal of -p default itself must not offer it. */
	c.default_needs_l3 = true;
	s = contain_filter_cause(&c, "new user namespaces", US);
	has(s, "a profile that allows unshare, clone with CLONE_NEWUSER");
	hasnt(s, "-p default");
	free(s);
	c.runtime = CONTAIN_NONE;
	s = contain_filter_cause(&c, "new user namespaces", US);
	has(s, "start it without that filter");
	hasnt(s, "-p default");
	free(s);
	c.default_needs_l3 = false;
	s = contain_filter_cause(&c, "new user namespaces", US);
	has(s, "-p default (Landlock and seccomp alone) runs here");
	free(s);

	c.runtime = CONTAIN_PODMAN;
	s = contain_filter_cause(&c, "new user namespaces", US);
	has(s, "podman's default seccomp profile");
	has(s, "--security-opt seccomp=unconfined");
	free(s);

	c.runtime = CONTAIN_CONTAINERD;
	s = contain_filter_cause(&c, "x", "pidfd_getfd");
	has(s, "containerd's seccomp profile refuses x (pidfd_getfd: EPERM)");
	has(s, "without ctr's --seccomp");
	free(s);

	c.runtime = CONTAIN_KUBERNETES;
	s = contain_filter_cause(&c, "x", "pidfd_getfd");
	has(s, "securityContext.seccompProfile to {type: Unconfined}");
	has(s, "a Localhost profile that allows pidfd_getfd");
	free(s);

	c.runtime = CONTAIN_OTHER;
	strcpy(c.other, "lxc");
	s = contain_filter_cause(&c, "x", "pidfd_getfd");
	has(s, "(container=lxc)");
	free(s);

	c.runtime = CONTAIN_NONE;
	s = contain_filter_cause(&c, "x", "pidfd_getfd");
	has(s, "a seccomp filter this process inherited (1 filter, no "
	       "llwrap among its ancestors");
	free(s);

	/* An outer llwrap is named before the container it runs in. */
	c.runtime = CONTAIN_DOCKER;
	c.outer_llwrap = true;
	s = contain_filter_cause(&c, "new user namespaces", US);
	has(s, "an outer llwrap's seccomp filter refuses new user namespaces");
	has(s, "such as -p default");
	hasnt(s, "Docker");
	free(s);
}

static void
test_ptrace_cause(void **state)
{
	struct contain c = { .seccomp = 0, .dumpable = true };
	char *s;

	(void)state;
	s = contain_ptrace_cause(&c, "x", "pidfd_getfd");
	has(s, "refused by a security module: Yama's");
	free(s);
	c.seccomp = 2;
	c.runtime = CONTAIN_DOCKER;
	s = contain_ptrace_cause(&c, "x", "pidfd_getfd");
	has(s, "Docker's default seccomp profile refuses x");
	hasnt(s, "Yama");
	free(s);
	c.dumpable = false;
	s = contain_ptrace_cause(&c, "x", "pidfd_getfd");
	has(s, "llwrap is not dumpable");
	free(s);
}

static void
test_proc_fix(void **state)
{
	struct contain c = { 0 };
	char *s;

	(void)state;
	c.runtime = CONTAIN_DOCKER;
	s = contain_proc_fix(&c, false);
	has(s, "--security-opt systempaths=unconfined");
	has(s, "hide-processes = no");
	free(s);
	c.runtime = CONTAIN_PODMAN;
	s = contain_proc_fix(&c, false);
	has(s, "--security-opt unmask=ALL");
	free(s);
	c.runtime = CONTAIN_KUBERNETES;
	s = contain_proc_fix(&c, false);
	has(s, "securityContext.procMount to Unmasked");
	free(s);
	c.runtime = CONTAIN_NONE;
	s = contain_proc_fix(&c, false);
	has(s, "systempaths=unconfined");
	has(s, "unmask=ALL");
	has(s, "procMount: Unmasked");
	has(s, "hide-processes = no");
	free(s);
	/* Held by the pid namespace llwrap runs in: no hide-processes = no. */
	c.runtime = CONTAIN_PODMAN;
	s = contain_proc_fix(&c, true);
	assert_string_equal(s, "run the container with --security-opt "
			       "unmask=ALL");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtime),
		cmocka_unit_test(test_pidns),
		cmocka_unit_test(test_outer),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_filter_cause),
		cmocka_unit_test(test_ptrace_cause),
		cmocka_unit_test(test_proc_fix),
	};

	return cmocka_run_group_tests_name("contain", tests, NULL, NULL);
}
