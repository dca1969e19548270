/*
 * bench/floor.c: the kernel's share of llwrap's start-up, with none of
 * llwrap's own work: no_new_privs, a Landlock ruleset with one rule per
 * path given (the rights of the running ABI, TCP port rules and scopes
 * handled), landlock_restrict_self(), the seccomp program llwrap -p
 * default loads (deny-udp, from the build's filter-programs.c), then
 * exec.  bench/compare.sh times it beside llwrap: what is left between
 * the two is llwrap's own cost.  Not a test.
 *
 *   floor PATH... -- CMD [ARG...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "compat/syscall.h"
#include "filter.h"

/* filter_index(): deny_udp alone, what the default profile needs. */
#define DEFAULT_PROGRAM 8

static int
die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	return 125;
}

int
main(int argc, char **argv)
{
	struct llw_ruleset_attr attr = { 0 };
	int abi, rfd, i;

	abi = sys_landlock_create_ruleset(NULL, 0, LLW_CREATE_RULESET_VERSION);
	if (abi < 1)
		return die("landlock_create_ruleset");
	if (abi > LLW_ABI_LAST)
		abi = LLW_ABI_LAST;
	attr.handled_access_fs = llw_fs_rights(abi);
	attr.handled_access_net = llw_net_rights(abi);
	attr.scoped = llw_scopes(abi);
	rfd = sys_landlock_create_ruleset(&attr, llw_ruleset_attr_size(abi), 0);
	if (rfd < 0)
		return die("landlock_create_ruleset");
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		/* As llwrap does: a directory gets rx (O_DIRECTORY says it
		 * is one), anything else read and write. */
		struct llw_path_beneath_attr pb = {
			.allowed_access = LLW_FS_READ_FILE | LLW_FS_READ_DIR |
					  LLW_FS_EXECUTE,
		};
		int fd = open(argv[i], O_PATH | O_CLOEXEC | O_DIRECTORY);

		if (fd < 0 && errno == ENOTDIR) {
			pb.allowed_access =
				LLW_FS_READ_FILE | LLW_FS_WRITE_FILE;
			fd = open(argv[i], O_PATH | O_CLOEXEC);
		}
		if (fd < 0)
			return die(argv[i]);
		pb.parent_fd = fd;
		if (sys_landlock_add_rule(rfd, LLW_RULE_PATH_BENEATH, &pb, 0) <
		    0)
			return die(argv[i]);
		close(fd);
	}
	if (i >= argc - 1) {
		fprintf(stderr, "usage: floor PATH... -- CMD [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return die("no_new_privs");
	if (sys_landlock_restrict_self(rfd, 0) < 0)
		return die("landlock_restrict_self");
	close(rfd);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		    &filter_programs[DEFAULT_PROGRAM]) < 0)
		return die("seccomp");
	execv(argv[i + 1], argv + i + 1);
	return die(argv[i + 1]);
}
