/*
 * bench/floor.c: the kernel's share of llwrap's start-up, with none of
 * llwrap's own work: no_new_privs, a Landlock ruleset with one rule per
 * path given (the rights of the running ABI, TCP port rules and scopes
 * handled), landlock_restrict_self(), the seccomp program llwrap -p
 * default loads (deny-udp, from the build's filter-programs.c), then
 * exec.  bench/compare.sh times it beside llwrap: what is left between
 * the two is llwrap's own cost.  Not a test.
 *
 * With --ns, first the namespace and mount work of an L3 profile such as
 * -p opencode (bench/run, bench/agent.sh): a user namespace mapping the
 * caller, ipc and pid namespaces; pid 1 makes a private mount namespace,
 * acquires a detached recursive clone of each --rw root, a read-only
 * clone of each --mask, a fresh proc, a tmpfs for /tmp and for each
 * --tmpfs DIR, with --devpts a devpts instance of its own on /dev/pts
 * (its ptmx bound on /dev/ptmx), makes the whole tree read-only,
 * attaches them, and after Landlock and seccomp starts the command as
 * its child (clone with CLONE_VFORK, as llwrap's pid 1 does) and waits
 * for it.  Three processes, as under llwrap.
 *
 * With --notify (and --ns), the network supervisor's share: pid 1 loads
 * the supervisor's notification program (filter_notify_program, with a
 * new listener) before the rest, and the outer process takes the
 * listener with pidfd_getfd and holds it while it waits.
 *
 *   floor [--ns [--rw DIR]... [--mask PATH]... [--tmpfs DIR]...
 *         [--devpts] [--notify]] PATH... -- CMD [ARG...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

#define MAX_MOUNTS 64

enum mnt_kind { MNT_CLONE, MNT_MASK, MNT_PROC, MNT_TMPFS, MNT_DEVPTS };

struct mnt {
	const char *path;
	enum mnt_kind kind;
	int fd;
};

/* --notify: the listener's number goes up this socket pair to the outer
 * process, which answers once it holds the listener. */
static int notify_pipe[2] = { -1, -1 };

static int
write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		r = -1;
	if (fd >= 0)
		close(fd);
	return r;
}

/* The outer process: the user, ipc and pid namespaces; returns in pid 1
 * (which goes on), or exits with its status.  With --notify it takes pid
 * 1's listener first, as the supervisor does. */
static void
ns_enter(bool notify)
{
	char map[64];
	int status, lfd, sup = -1;
	pid_t pid;
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWPID) < 0)
		exit(die("unshare"));
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		exit(die("uid_map"));
	if (write_file("/proc/self/setgroups", "deny") < 0)
		exit(die("setgroups"));
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		exit(die("gid_map"));
	if (notify &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, notify_pipe) < 0)
		exit(die("socketpair"));
	pid = fork();
	if (pid < 0)
		exit(die("fork"));
	if (pid == 0)
		return;
	if (notify) {
		int pidfd;

		close(notify_pipe[1]);
		if (read(notify_pipe[0], &lfd, sizeof(lfd)) != sizeof(lfd))
			exit(die("the listener"));
		pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
		if (pidfd < 0 ||
		    (sup = (int)syscall(__NR_pidfd_getfd, pidfd, lfd, 0)) < 0)
			exit(die("pidfd_getfd"));
		close(pidfd);
		if (write(notify_pipe[0], "y", 1) != 1)
			exit(die("the listener"));
		close(notify_pipe[0]);
	}
	if (waitpid(pid, &status, 0) < 0)
		exit(die("waitpid"));
	if (sup >= 0)
		close(sup);
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* pid 1, with --notify: the supervisor's filter, its listener to the
 * outer process. */
static void
notify_attach(void)
{
	int lfd;
	char go;

	close(notify_pipe[0]);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		exit(die("no_new_privs"));
	lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			   SECCOMP_FILTER_FLAG_NEW_LISTENER,
			   &filter_notify_program);
	if (lfd < 0)
		exit(die("seccomp (listener)"));
	if (write(notify_pipe[1], &lfd, sizeof(lfd)) != sizeof(lfd) ||
	    read(notify_pipe[1], &go, 1) != 1)
		exit(die("the listener"));
	close(notify_pipe[1]);
	close(lfd);
}

static int
fs_instance(const char *type, const char *mode, unsigned int attrs)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC), fd;

	if (fs < 0)
		return -1;
	if (strcmp(type, "devpts") == 0 &&
	    (fsconfig(fs, FSCONFIG_SET_FLAG, "newinstance", NULL, 0) < 0 ||
	     fsconfig(fs, FSCONFIG_SET_STRING, "ptmxmode", "0666", 0) < 0))
		return -1;
	if (mode != NULL &&
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", mode, 0) < 0)
		return -1;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -1;
	fd = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	close(fs);
	return fd;
}

/* pid 1: the mount view (ns.c's three steps), in the order given. */
static void
ns_view(struct mnt *m, int n)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	bool devpts = false;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		exit(die("pdeathsig"));
	if (unshare(CLONE_NEWNS) < 0)
		exit(die("unshare(CLONE_NEWNS)"));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		exit(die("MS_PRIVATE"));
	for (int i = 0; i < n; i++) {
		switch (m[i].kind) {
		case MNT_PROC:
			m[i].fd = fs_instance(
				"proc", NULL,
				MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
			break;
		case MNT_TMPFS:
			m[i].fd = fs_instance("tmpfs", "1777",
					      MOUNT_ATTR_NOSUID |
						      MOUNT_ATTR_NODEV);
			break;
		case MNT_DEVPTS:
			m[i].fd = fs_instance("devpts", "0620",
					      MOUNT_ATTR_NOSUID |
						      MOUNT_ATTR_NOEXEC);
			devpts = true;
			break;
		case MNT_CLONE:
		case MNT_MASK:
			m[i].fd =
				open_tree(AT_FDCWD, m[i].path,
					  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
						  AT_RECURSIVE);
			break;
		}
		if (m[i].fd < 0)
			exit(die(m[i].path));
		if (m[i].kind == MNT_MASK &&
		    mount_setattr(m[i].fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
				  &ro, sizeof(ro)) < 0)
			exit(die("mount_setattr"));
	}
	if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof(ro)) < 0)
		exit(die("mount_setattr(/)"));
	for (int i = 0; i < n; i++) {
		if (move_mount(m[i].fd, "", AT_FDCWD, m[i].path,
			       MOVE_MOUNT_F_EMPTY_PATH) < 0)
			exit(die(m[i].path));
		close(m[i].fd);
	}
	if (devpts) {
		int fd = open_tree(AT_FDCWD, "/dev/pts/ptmx",
				   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

		if (fd < 0 || move_mount(fd, "", AT_FDCWD, "/dev/ptmx",
					 MOVE_MOUNT_F_EMPTY_PATH) < 0)
			exit(die("/dev/ptmx"));
		close(fd);
	}
}

/* pid 1 starts the command as its child and waits for it. */
static int
spawn_wait(char **argv)
{
	int status;
	pid_t pid = vfork();

	if (pid < 0)
		return die("vfork");
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
main(int argc, char **argv)
{
	struct llw_ruleset_attr attr = { 0 };
	struct mnt rw[MAX_MOUNTS], mask[MAX_MOUNTS], tmp[MAX_MOUNTS];
	struct mnt all[3 * MAX_MOUNTS + 3];
	int abi, rfd, i, nrw = 0, nmask = 0, ntmp = 0, n = 0;
	bool ns = false, devpts = false, notify = false;

	for (; argc > 1; argc--, argv++) {
		if (strcmp(argv[1], "--ns") == 0)
			ns = true;
		else if (strcmp(argv[1], "--devpts") == 0)
			devpts = true;
		else if (strcmp(argv[1], "--notify") == 0)
			notify = true;
		else if (strcmp(argv[1], "--rw") == 0 && argc > 2 &&
			 nrw < MAX_MOUNTS)
			rw[nrw++] = (struct mnt){ (argc--, ++argv)[1],
						  MNT_CLONE, -1 };
		else if (strcmp(argv[1], "--mask") == 0 && argc > 2 &&
			 nmask < MAX_MOUNTS)
			mask[nmask++] = (struct mnt){ (argc--, ++argv)[1],
						      MNT_MASK, -1 };
		else if (strcmp(argv[1], "--tmpfs") == 0 && argc > 2 &&
			 ntmp < MAX_MOUNTS)
			tmp[ntmp++] = (struct mnt){ (argc--, ++argv)[1],
						    MNT_TMPFS, -1 };
		else
			break;
	}
	if (ns) {
		ns_enter(notify);
		if (notify)
			notify_attach();
		/* The fresh instances first (as llwrap's ns.c), then the
		 * writable roots, then the masks on top of them. */
		if (devpts)
			all[n++] = (struct mnt){ "/dev/pts", MNT_DEVPTS, -1 };
		all[n++] = (struct mnt){ "/proc", MNT_PROC, -1 };
		all[n++] = (struct mnt){ "/tmp", MNT_TMPFS, -1 };
		for (i = 0; i < ntmp; i++)
			all[n++] = tmp[i];
		for (i = 0; i < nrw; i++)
			all[n++] = rw[i];
		for (i = 0; i < nmask; i++)
			all[n++] = mask[i];
		ns_view(all, n);
	}

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
	if (!ns) {
		execv(argv[i + 1], argv + i + 1);
		return die(argv[i + 1]);
	}
	return spawn_wait(argv + i + 1);
}
