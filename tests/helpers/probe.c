/*
 * probe: one multi-call binary for the integration tests.
 *
 *	probe NAME [ARGS...]
 *
 * tries exactly one operation and prints one line to stdout:
 *
 *	SUCCEEDED NAME [DETAIL]
 *	DENIED NAME errno=ENAME (strerror)
 *
 * and exits 0 when the operation succeeded, 1 when it failed with an
 * errno, 2 on a usage or setup error (bad arguments, a fork that failed).
 * A process killed by the sandbox (SIGSYS for i386-getpid) prints nothing;
 * the caller sees the signal in the exit status.  The step that failed
 * goes to stderr ("probe: tcp-connect: connect: ...").  A few probes
 * print more lines before theirs: fds lists descriptors, ls names its
 * entries, the *-serve probes print their SUCCEEDED line once listening
 * and then serve.  "probe help" lists the probes.
 *
 * Plain C and raw syscalls only: no libseccomp, nothing llwrap links.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <poll.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef TIOCL_GETSHIFTSTATE
#define TIOCL_GETSHIFTSTATE 6
#endif
#define X32_SYSCALL_BIT	 0x40000000
#define I386_NR_GETPID	 20
#define X86_64_NR_GETPID 39

static int
parse_u64(const char *s, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return usage_error("not a number: %s", s);
	return 0;
}

/* ---- Files ---- */

static int
p_read(char **argv)
{
	char buf[4096];
	int fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return deny("open");
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return deny("read");
	close(fd);
	return succeed("bytes=%zd", n);
}

static int
write_byte(const char *path, int flags)
{
	int fd = open(path, flags | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return deny("open");
	if (write(fd, "x", 1) != 1)
		return deny("write");
	if (close(fd) < 0)
		return deny("close");
	return succeed("%s", path);
}

static int
p_write(char **argv)
{
	return write_byte(argv[0], O_CREAT | O_TRUNC);
}

static int
p_append(char **argv)
{
	return write_byte(argv[0], O_APPEND);
}

static int
p_mkdir(char **argv)
{
	return mkdir(argv[0], 0755) < 0 ? deny("mkdir")
					: succeed("%s", argv[0]);
}

static int
p_rmdir(char **argv)
{
	return rmdir(argv[0]) < 0 ? deny("rmdir") : succeed("%s", argv[0]);
}

static int
p_unlink(char **argv)
{
	return unlink(argv[0]) < 0 ? deny("unlink") : succeed("%s", argv[0]);
}

static int
p_rename(char **argv)
{
	return rename(argv[0], argv[1]) < 0
		       ? deny("rename")
		       : succeed("%s %s", argv[0], argv[1]);
}

static int
p_chmod(char **argv)
{
	char *end;
	unsigned long mode = strtoul(argv[1], &end, 8);

	if (end == argv[1] || *end || mode > 07777)
		return usage_error("not an octal mode: %s", argv[1]);
	return chmod(argv[0], (mode_t)mode) < 0
		       ? deny("chmod")
		       : succeed("%s %04lo", argv[0], mode);
}

static int
p_chown(char **argv)
{
	long long uid, gid;

	if (parse_long(argv[1], &uid) || parse_long(argv[2], &gid))
		return USAGE;
	return chown(argv[0], (uid_t)uid, (gid_t)gid) < 0
		       ? deny("chown")
		       : succeed("%s", argv[0]);
}

static int
p_touch(char **argv)
{
	/* Set both times to now, as touch(1) does on an existing file. */
	return utimensat(AT_FDCWD, argv[0], NULL, 0) < 0
		       ? deny("utimensat")
		       : succeed("%s", argv[0]);
}

static int
p_truncate(char **argv)
{
	return truncate(argv[0], 0) < 0 ? deny("truncate")
					: succeed("%s", argv[0]);
}

static int
p_ls(char **argv)
{
	DIR *d = opendir(argv[0]);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return deny("opendir");
	errno = 0;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		printf("%s\n", e->d_name);
		n++;
	}
	if (errno)
		return deny("readdir");
	closedir(d);
	return succeed("entries=%d", n);
}

/*
 * An inotify watch on PATH.  FLAGS, comma-separated ("-": none):
 * dont_follow, onlydir (the mask flags), event (PATH is a directory: make
 * and remove a file in it and wait up to 5 s for the event, so the watch
 * is proven to report), badfd (add the watch through standard output, not
 * an inotify instance).
 */
static int
p_watch(char **argv)
{
	uint32_t mask = IN_CREATE | IN_DELETE | IN_MODIFY;
	bool event = false, badfd = false;
	char flags[256], *save = NULL, name[64], path[4096];
	int fd, wd;

	snprintf(flags, sizeof(flags), "%s", argv[1]);
	for (char *f = strtok_r(flags, ",", &save); f != NULL;
	     f = strtok_r(NULL, ",", &save)) {
		if (strcmp(f, "dont_follow") == 0)
			mask |= IN_DONT_FOLLOW;
		else if (strcmp(f, "onlydir") == 0)
			mask |= IN_ONLYDIR;
		else if (strcmp(f, "event") == 0)
			event = true;
		else if (strcmp(f, "badfd") == 0)
			badfd = true;
		else if (strcmp(f, "-") != 0)
			return usage_error("unknown flag: %s", f);
	}
	fd = badfd ? 1 : inotify_init1(IN_CLOEXEC);
	if (fd < 0)
		return deny("inotify_init1");
	wd = inotify_add_watch(fd, argv[0], mask);
	if (wd < 0)
		return deny("inotify_add_watch");
	if (event) {
		char buf[4096] __attribute__((aligned(8)));
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int f;

		snprintf(name, sizeof(name), ".probe-watch.%d", (int)getpid());
		snprintf(path, sizeof(path), "%s/%s", argv[0], name);
		f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (f < 0)
			return deny("open");
		close(f);
		unlink(path);
		if (poll(&pfd, 1, 5000) != 1)
			return deny_err("poll", ETIMEDOUT);
		n = read(fd, buf, sizeof(buf));
		if (n < (ssize_t)sizeof(struct inotify_event))
			return deny("read");
		if (((struct inotify_event *)buf)->wd != wd ||
		    strcmp(((struct inotify_event *)buf)->name, name) != 0)
			return deny_err("read", EPROTO);
	}
	return succeed("wd=%d", wd);
}

/* A watch on every directory under DIR (DIR too), as a recursive file
 * watcher adds them: the number added; the first failure is the result. */
static int
p_watch_tree(char **argv)
{
	int fd = inotify_init1(IN_CLOEXEC), n = 0;
	char **stack;
	size_t depth = 1, cap = 64;

	if (fd < 0)
		return deny("inotify_init1");
	stack = calloc(cap, sizeof(*stack));
	if (stack == NULL)
		return usage_error("out of memory");
	stack[0] = strdup(argv[0]);
	while (depth > 0) {
		char *dir = stack[--depth];
		DIR *d;
		struct dirent *e;

		if (inotify_add_watch(fd, dir,
				      IN_CREATE | IN_DELETE | IN_MODIFY |
					      IN_ONLYDIR) < 0)
			return deny("inotify_add_watch");
		n++;
		d = opendir(dir);
		if (d == NULL)
			return deny("opendir");
		while ((e = readdir(d)) != NULL) {
			if (e->d_type != DT_DIR ||
			    strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			if (depth == cap) {
				cap *= 2;
				stack = realloc(stack, cap * sizeof(*stack));
				if (stack == NULL)
					return usage_error("out of memory");
			}
			if (asprintf(&stack[depth++], "%s/%s", dir, e->d_name) <
			    0)
				return usage_error("out of memory");
		}
		closedir(d);
		free(dir);
	}
	free(stack);
	return succeed("watches=%d", n);
}

static int
p_exec(char **argv)
{
	fflush(stdout);
	execv(argv[0], argv);
	return deny("execv");
}

/* ---- Network ---- */

static int
bound_port(int fd)
{
	union addr a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, &a.sa, &len) < 0)
		return -1;
	return ntohs(a.sa.sa_family == AF_INET ? a.in.sin_port
					       : a.in6.sin6_port);
}

static int
p_tcp_connect(char **argv)
{
	union addr a;
	socklen_t len;
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (connect(fd, &a.sa, len) < 0)
		return deny("connect");
	close(fd);
	return succeed("%s %s", argv[0], argv[1]);
}

/* bind and listen; returns the fd or -1 after reporting the denial. */
static int
tcp_listen(char **argv, int *rc)
{
	union addr a;
	socklen_t len;
	int fd, one = 1;

	*rc = parse_inet(argv[0], argv[1], &a, &len);
	if (*rc)
		return -1;
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*rc = deny("socket");
		return -1;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, &a.sa, len) < 0) {
		*rc = deny("bind");
		return -1;
	}
	if (listen(fd, 16) < 0) {
		*rc = deny("listen");
		return -1;
	}
	return fd;
}

static int
p_tcp_bind(char **argv)
{
	int rc, fd = tcp_listen(argv, &rc);

	if (fd < 0)
		return rc;
	return succeed("port=%d", bound_port(fd));
}

/* Accept n connections on fd, closing each; the line is already out. */
static int
serve(int fd, long long n)
{
	for (long long i = 0; i < n; i++) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			fprintf(stderr, "probe: %s: accept: %s\n", probe_name,
				strerror(errno));
			return DENIED;
		}
		(void)write(c, "ok\n", 3);
		close(c);
	}
	return OK;
}

static int
p_tcp_serve(char **argv)
{
	long long n;
	int rc, fd;

	if (parse_long(argv[2], &n))
		return USAGE;
	fd = tcp_listen(argv, &rc);
	if (fd < 0)
		return rc;
	succeed("port=%d", bound_port(fd));
	return serve(fd, n);
}

static int
p_udp_send(char **argv)
{
	union addr a;
	socklen_t len;
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (sendto(fd, "x", 1, 0, &a.sa, len) != 1)
		return deny("sendto");
	close(fd);
	return succeed("%s %s", argv[0], argv[1]);
}

static int
p_udp_bind(char **argv)
{
	union addr a;
	socklen_t len;
	int fd;

	if (parse_inet(argv[0], argv[1], &a, &len))
		return USAGE;
	fd = socket(a.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (bind(fd, &a.sa, len) < 0)
		return deny("bind");
	return succeed("port=%d", bound_port(fd));
}

static int
p_unix_socket(char **argv)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)argv;
	if (fd < 0)
		return deny("socket");
	close(fd);
	return succeed(NULL);
}

static int
unix_connect(const char *name, bool abstract)
{
	union addr a;
	socklen_t len;
	int fd;

	if (unix_addr(name, abstract, &a, &len))
		return USAGE;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (connect(fd, &a.sa, len) < 0)
		return deny("connect");
	close(fd);
	return succeed("%s", name);
}

static int
unix_serve(const char *name, bool abstract)
{
	union addr a;
	socklen_t len;
	int fd;

	if (unix_addr(name, abstract, &a, &len))
		return USAGE;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return deny("socket");
	if (bind(fd, &a.sa, len) < 0)
		return deny("bind");
	if (listen(fd, 4) < 0)
		return deny("listen");
	succeed("%s", name);
	return serve(fd, 1);
}

static int
p_unix_connect(char **argv)
{
	return unix_connect(argv[0], false);
}

static int
p_unix_serve(char **argv)
{
	return unix_serve(argv[0], false);
}

static int
p_abstract_connect(char **argv)
{
	return unix_connect(argv[0], true);
}

static int
p_abstract_serve(char **argv)
{
	return unix_serve(argv[0], true);
}

static int
socketpair_probe(int type)
{
	int sv[2];

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0)
		return deny("socketpair");
	close(sv[0]);
	close(sv[1]);
	return succeed(NULL);
}

static int
p_socketpair_stream(char **argv)
{
	(void)argv;
	return socketpair_probe(SOCK_STREAM);
}

static int
p_socketpair_dgram(char **argv)
{
	(void)argv;
	return socketpair_probe(SOCK_DGRAM);
}

/* Raw syscall, so 64-bit values (0x100000001) reach the kernel whole. */
static int
p_socket(char **argv)
{
	unsigned long long f, t, p;
	long fd;

	if (parse_u64(argv[0], &f) || parse_u64(argv[1], &t) ||
	    parse_u64(argv[2], &p))
		return USAGE;
	fd = syscall(SYS_socket, f, t, p);
	if (fd < 0)
		return deny("socket");
	close((int)fd);
	return succeed("%s %s %s", argv[0], argv[1], argv[2]);
}

/* ---- Process and kernel ---- */

static int
p_io_uring_setup(char **argv)
{
	unsigned char params[120]; /* struct io_uring_params */
	long fd;

	(void)argv;
	memset(params, 0, sizeof(params));
	fd = syscall(__NR_io_uring_setup, 1, params);
	if (fd < 0)
		return deny("io_uring_setup");
	close((int)fd);
	return succeed(NULL);
}

static int
p_clone3(char **argv)
{
	struct clone_args args;
	long pid;
	int st;

	(void)argv;
	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	pid = syscall(__NR_clone3, &args, sizeof(args));
	if (pid < 0)
		return deny("clone3");
	if (pid == 0)
		_exit(0);
	waitpid((pid_t)pid, &st, 0);
	return succeed("pid=%ld", pid);
}

static int
p_unshare_user(char **argv)
{
	(void)argv;
	return unshare(CLONE_NEWUSER) < 0 ? deny("unshare") : succeed(NULL);
}

static int
p_unshare_mount(char **argv)
{
	(void)argv;
	return unshare(CLONE_NEWNS) < 0 ? deny("unshare") : succeed(NULL);
}

static int
p_mount_tmpfs(char **argv)
{
	if (mount("tmpfs", argv[0], "tmpfs", 0, "size=64k") < 0)
		return deny("mount");
	(void)umount2(argv[0], MNT_DETACH);
	return succeed("%s", argv[0]);
}

/* fd 0 when it is a terminal, else /dev/tty, else fd 0 anyway. */
static int
tty_fd(void)
{
	int fd;

	if (isatty(0))
		return 0;
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	return fd >= 0 ? fd : 0;
}

/*
 * A successful TIOCSTI pushes one space into the terminal's input: the
 * least harmful character that still proves the injection works.
 */
static int
p_tiocsti(char **argv)
{
	char c = ' ';
	int fd = tty_fd();

	(void)argv;
	if (ioctl(fd, TIOCSTI, &c) < 0)
		return deny("ioctl TIOCSTI");
	return succeed("fd=%d", fd);
}

/* TIOCL_GETSHIFTSTATE only reads: the request is what the filter sees. */
static int
p_tioclinux(char **argv)
{
	char sub = TIOCL_GETSHIFTSTATE;
	int fd = tty_fd();

	(void)argv;
	if (ioctl(fd, TIOCLINUX, &sub) < 0)
		return deny("ioctl TIOCLINUX");
	return succeed("fd=%d", fd);
}

static int
ptrace_probe(pid_t pid)
{
	int st;

	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0)
		return deny("ptrace PTRACE_ATTACH");
	if (waitpid(pid, &st, __WALL) < 0)
		fprintf(stderr, "probe: waitpid %d: %s\n", (int)pid,
			strerror(errno));
	if (ptrace(PTRACE_DETACH, pid, NULL, NULL) < 0)
		fprintf(stderr, "probe: PTRACE_DETACH %d: %s\n", (int)pid,
			strerror(errno));
	/* The attach's SIGSTOP may still be pending (the tracee between
	 * fork and exec when it came): never leave it stopped. */
	(void)kill(pid, SIGCONT);
	return succeed("pid=%d", (int)pid);
}

static int
p_ptrace_parent(char **argv)
{
	(void)argv;
	return ptrace_probe(getppid());
}

static int
p_ptrace_pid(char **argv)
{
	long long pid;

	if (parse_long(argv[0], &pid))
		return USAGE;
	return ptrace_probe((pid_t)pid);
}

static int
p_kill(char **argv)
{
	long long pid, sig;

	if (parse_long(argv[0], &pid) || parse_long(argv[1], &sig))
		return USAGE;
	return kill((pid_t)pid, (int)sig) < 0 ? deny("kill")
					      : succeed("%lld %lld", pid, sig);
}

/*
 * /proc/PID/mem is checked when it is opened; offset 0 is never mapped,
 * so a read error after a successful open still means access.
 */
static int
p_proc_read(char **argv)
{
	char path[256], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/%s", argv[0], argv[1]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return deny("open");
	n = read(fd, buf, sizeof(buf));
	if (n < 0 && strcmp(argv[1], "mem") == 0)
		return succeed("%s opened (offset 0 unmapped)", path);
	if (n < 0)
		return deny("read");
	close(fd);
	return succeed("%s bytes=%zd", path, n);
}

static int
p_i386_getpid(char **argv)
{
#if defined(__x86_64__) || defined(__i386__)
	long ret = I386_NR_GETPID;

	(void)argv;
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	if (ret < 0)
		return deny_err("int 0x80", (int)-ret);
	return succeed("pid=%ld", ret);
#else
	(void)argv;
	return usage_error("not an x86 machine");
#endif
}

static int
p_x32_getpid(char **argv)
{
	long ret;

	(void)argv;
	ret = syscall(X86_64_NR_GETPID | X32_SYSCALL_BIT);
	if (ret < 0)
		return deny("x32 getpid");
	return succeed("pid=%ld", ret);
}

static int
p_bpf(char **argv)
{
	union bpf_attr attr;
	long fd;

	(void)argv;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return deny("bpf BPF_MAP_CREATE");
	close((int)fd);
	return succeed(NULL);
}

static int
p_perf_event_open(char **argv)
{
	struct perf_event_attr attr;
	long fd;

	(void)argv;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return deny("perf_event_open");
	close((int)fd);
	return succeed(NULL);
}

static int
p_userfaultfd(char **argv)
{
	long fd;

	(void)argv;
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (fd < 0)
		return deny("userfaultfd");
	close((int)fd);
	return succeed(NULL);
}

static int
p_keyctl(char **argv)
{
	long id;

	(void)argv;
	/* KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_SESSION_KEYRING (-3). */
	id = syscall(SYS_keyctl, 0, -3, 0);
	if (id < 0)
		return deny("keyctl");
	return succeed("id=%ld", id);
}

static int
p_personality_rie(char **argv)
{
	long old;

	(void)argv;
	old = syscall(SYS_personality, (unsigned long)READ_IMPLIES_EXEC);
	if (old < 0)
		return deny("personality");
	return succeed("previous=%#lx", old);
}

static int
p_seccomp_listener(char **argv)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &insn };
	long fd;

	(void)argv;
	/* Filters need no_new_privs (or CAP_SYS_ADMIN). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		fprintf(stderr, "probe: prctl: %s\n", strerror(errno));
		return USAGE;
	}
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		return deny("seccomp");
	close((int)fd);
	return succeed(NULL);
}

static int
p_syscall(char **argv)
{
	long long nr;
	long r;

	if (parse_long(argv[0], &nr))
		return USAGE;
	r = syscall((long)nr, 0, 0, 0, 0, 0, 0);
	if (r < 0)
		return deny("syscall");
	return succeed("nr=%lld ret=%ld", nr, r);
}

/* Every open descriptor from 3 up, with its target, one per line. */
static int
p_fds(char **argv)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	(void)argv;
	if (d == NULL)
		return deny("opendir /proc/self/fd");
	while ((e = readdir(d)) != NULL) {
		char path[300], target[4096];
		ssize_t len;
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd < 3 || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		target[len < 0 ? 0 : len] = '\0';
		printf("%d %s\n", fd, target);
		n++;
	}
	closedir(d);
	return succeed("count=%d", n);
}

static int
p_env(char **argv)
{
	const char *v = getenv(argv[0]);

	if (v == NULL) {
		printf("DENIED %s errno=ENOENT (%s is not set)\n", probe_name,
		       argv[0]);
		return DENIED;
	}
	return succeed("%s=%s", argv[0], v);
}

static int
p_sleep(char **argv)
{
	long long s;

	if (parse_long(argv[0], &s) || s < 0)
		return USAGE;
	sleep((unsigned int)s);
	return succeed("%lld", s);
}

/*
 * Not a probe: N processes that fork and exit, each child doing the
 * same (a new pid at every step, none living long), for SECONDS; each
 * appends a line to LOG every 100 steps.  What a monitor walking the
 * command's processes finds exited, its child elsewhere (review X, X2).
 */
static int
p_fork_chain(char **argv)
{
	long long n, secs;
	unsigned long step = 0;
	time_t end;

	if (parse_long(argv[1], &n) || parse_long(argv[2], &secs) || n < 1)
		return USAGE;
	end = time(NULL) + secs;
	while (--n > 0 && fork() > 0)
		;
	while (time(NULL) < end) {
		pid_t pid = fork();
		int fd;

		if (pid > 0)
			_exit(0);
		if (pid < 0) {
			usleep(1000);
			continue;
		}
		if (++step % 100 != 0)
			continue;
		fd = open(argv[0], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			  0644);
		if (fd >= 0 && write(fd, "step\n", 5) < 0) {
			/* counted by the lines that got there */
		}
		if (fd >= 0)
			close(fd);
	}
	_exit(0);
}

static int
p_setxattr(char **argv)
{
	return setxattr(argv[0], "user.llwrap-probe", "1", 1, 0) < 0
		       ? deny("setxattr")
		       : succeed("%s", argv[0]);
}

/*
 * Not a probe: run a command on what looks like an older kernel, one
 * without the system call numbered NR (it fails with ENOSYS, as when it
 * does not exist), to test how llwrap copes on a kernel that has it:
 * 444 is landlock_create_ruleset (Landlock not built in: the bubblewrap
 * fallback), 438 pidfd_getfd (Linux < 5.6: no network supervisor), on
 * every architecture (the unified syscall table).  Sets no_new_privs,
 * which the filter needs.
 */
static int
p_without_syscall(char **argv)
{
	char *end;
	unsigned long nr = strtoul(argv[0], &end, 10);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (*argv[0] == '\0' || *end != '\0' || nr > 0xffffffffUL)
		return usage_error("not a syscall number: %s", argv[0]);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return usage_error("cannot hide syscall %lu: %s", nr,
				   strerror(errno));
	execvp(argv[1], argv + 1);
	return usage_error("%s: %s", argv[1], strerror(errno));
}

/* Run cmd (argv-style) under the n instructions of f, with no_new_privs,
 * which the filter needs: the "not a probe" filters below. */
static int
exec_filtered(struct sock_filter *f, size_t n, char **cmd)
{
	struct sock_fprog prog = { (unsigned short)n, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return usage_error("cannot install the filter: %s",
				   strerror(errno));
	execvp(cmd[0], cmd);
	return usage_error("%s: %s", cmd[0], strerror(errno));
}

/*
 * Not a probe: run CMD under a filter like a container runtime's default
 * seccomp profile (Docker's, containerd's): EPERM for unshare, clone
 * with CLONE_NEWUSER, pidfd_getfd and process_vm_readv; ENOSYS for
 * clone3, whose flags a filter cannot read (libc falls back to clone).
 * Sets no_new_privs, which the filter needs.
 */
static int
p_container_filter(char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_getfd, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 1, 4),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return exec_filtered(f, sizeof(f) / sizeof(f[0]), argv);
}

/*
 * Not a probe: run CMD under a filter that refuses only what the network
 * supervisor would take from the sandbox (EPERM for pidfd_getfd and
 * process_vm_readv), so that user namespaces (L3) run beside the
 * supervisor's substitutes.
 */
static int
p_getfd_filter(char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_getfd, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return exec_filtered(f, sizeof(f) / sizeof(f[0]), argv);
}

/*
 * Not a probe: run CMD under a filter that refuses (EPERM) one step of
 * what the network supervisor needs, as the supervisor's probe and a
 * run's hand-over take them: "listener" (seccomp with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER and a program: libseccomp's check of
 * the flag, without one, still passes), "pidfd" (pidfd_open) or "addfd"
 * (ioctl SECCOMP_IOCTL_NOTIF_ADDFD).
 */
static int
p_supervisor_filter(char **argv)
{
	struct sock_filter listener[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
			 SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter pidfd[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter addfd[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			 (uint32_t)SECCOMP_IOCTL_NOTIF_ADDFD, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	if (strcmp(argv[0], "listener") == 0)
		return exec_filtered(listener,
				     sizeof(listener) / sizeof(listener[0]),
				     argv + 1);
	if (strcmp(argv[0], "pidfd") == 0)
		return exec_filtered(pidfd, sizeof(pidfd) / sizeof(pidfd[0]),
				     argv + 1);
	if (strcmp(argv[0], "addfd") == 0)
		return exec_filtered(addfd, sizeof(addfd) / sizeof(addfd[0]),
				     argv + 1);
	return usage_error("not a step: %s", argv[0]);
}

static int p_help(char **argv);

static const struct probe {
	const char *name;
	int min_args, max_args; /* max -1: any number */
	int (*fn)(char **argv);
	const char *usage;
} probes[] = {
	{ "read", 1, 1, p_read, "PATH" },
	{ "write", 1, 1, p_write, "PATH" },
	{ "append", 1, 1, p_append, "PATH" },
	{ "mkdir", 1, 1, p_mkdir, "PATH" },
	{ "rmdir", 1, 1, p_rmdir, "PATH" },
	{ "unlink", 1, 1, p_unlink, "PATH" },
	{ "rename", 2, 2, p_rename, "FROM TO" },
	{ "chmod", 2, 2, p_chmod, "PATH OCTAL-MODE" },
	{ "chown", 3, 3, p_chown, "PATH UID GID" },
	{ "touch", 1, 1, p_touch, "PATH (set times of an existing file)" },
	{ "truncate", 1, 1, p_truncate, "PATH" },
	{ "ls", 1, 1, p_ls, "DIR" },
	{ "watch", 2, 2, p_watch,
	  "PATH FLAGS (dont_follow,onlydir,event,badfd or -)" },
	{ "watch-tree", 1, 1, p_watch_tree, "DIR (a watch on each directory)" },
	{ "exec", 1, -1, p_exec, "PATH [ARG...] (ARG0 is PATH)" },
	{ "tcp-connect", 2, 2, p_tcp_connect, "ADDR PORT" },
	{ "tcp-bind", 2, 2, p_tcp_bind, "ADDR PORT (0: ephemeral)" },
	{ "tcp-serve", 3, 3, p_tcp_serve, "ADDR PORT N (accept N, exit)" },
	{ "udp-send", 2, 2, p_udp_send, "ADDR PORT" },
	{ "udp-bind", 2, 2, p_udp_bind, "ADDR PORT" },
	{ "unix-socket", 0, 0, p_unix_socket, "" },
	{ "unix-connect", 1, 1, p_unix_connect, "PATH" },
	{ "unix-serve", 1, 1, p_unix_serve, "PATH (accept one, exit)" },
	{ "abstract-connect", 1, 1, p_abstract_connect, "NAME" },
	{ "abstract-serve", 1, 1, p_abstract_serve, "NAME (accept one)" },
	{ "socketpair-stream", 0, 0, p_socketpair_stream, "" },
	{ "socketpair-dgram", 0, 0, p_socketpair_dgram, "" },
	{ "socket", 3, 3, p_socket, "FAMILY TYPE PROTO (numbers, 0x ok)" },
	{ "io-uring-setup", 0, 0, p_io_uring_setup, "" },
	{ "clone3", 0, 0, p_clone3, "" },
	{ "unshare-user", 0, 0, p_unshare_user, "" },
	{ "unshare-mount", 0, 0, p_unshare_mount, "" },
	{ "mount-tmpfs", 1, 1, p_mount_tmpfs, "DIR" },
	{ "tiocsti", 0, 0, p_tiocsti, "(fd 0 if a tty, else /dev/tty)" },
	{ "tioclinux", 0, 0, p_tioclinux, "" },
	{ "ptrace-parent", 0, 0, p_ptrace_parent, "" },
	{ "ptrace-pid", 1, 1, p_ptrace_pid, "PID" },
	{ "kill", 2, 2, p_kill, "PID SIG" },
	{ "proc-read", 2, 2, p_proc_read, "PID FILE" },
	{ "i386-getpid", 0, 0, p_i386_getpid, "(int 0x80)" },
	{ "x32-getpid", 0, 0, p_x32_getpid, "" },
	{ "bpf", 0, 0, p_bpf, "" },
	{ "perf-event-open", 0, 0, p_perf_event_open, "" },
	{ "userfaultfd", 0, 0, p_userfaultfd, "" },
	{ "keyctl", 0, 0, p_keyctl, "" },
	{ "personality-rie", 0, 0, p_personality_rie, "" },
	{ "seccomp-listener", 0, 0, p_seccomp_listener, "" },
	{ "syscall", 1, 1, p_syscall, "NR (raw, zero arguments)" },
	{ "fds", 0, 0, p_fds, "" },
	{ "env", 1, 1, p_env, "NAME" },
	{ "sleep", 1, 1, p_sleep, "SECONDS" },
	{ "without-syscall", 2, -1, p_without_syscall,
	  "NR CMD [ARG...] (not a probe: run CMD with syscall NR hidden)" },
	{ "container-filter", 1, -1, p_container_filter,
	  "CMD [ARG...] (not a probe: run CMD under a filter like a "
	  "container runtime's)" },
	{ "getfd-filter", 1, -1, p_getfd_filter,
	  "CMD [ARG...] (not a probe: run CMD where pidfd_getfd and "
	  "process_vm_readv are refused)" },
	{ "supervisor-filter", 2, -1, p_supervisor_filter,
	  "listener|pidfd|addfd CMD [ARG...] (not a probe: run CMD where "
	  "that step of the supervisor's is refused)" },
	{ "fork-chain", 3, 3, p_fork_chain,
	  "LOG N SECONDS (not a probe: N processes that fork and exit, "
	  "each child doing the same)" },
	{ "help", 0, 0, p_help, "" },
	{ "setxattr", 1, 1, p_setxattr, "PATH (user.llwrap-probe = 1)" },
};

static int
p_help(char **argv)
{
	(void)argv;
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		printf("probe %s %s\n", probes[i].name, probes[i].usage);
	return OK;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: probe NAME [ARGS...]; probe help\n");
		return USAGE;
	}
	probe_name = argv[1];
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		const struct probe *p = &probes[i];
		int nargs = argc - 2;

		if (strcmp(p->name, argv[1]) != 0)
			continue;
		if (nargs < p->min_args ||
		    (p->max_args >= 0 && nargs > p->max_args))
			return usage_error("usage: probe %s %s", p->name,
					   p->usage);
		return p->fn(argv + 2);
	}
	fprintf(stderr, "probe: unknown probe %s; probe help lists them\n",
		argv[1]);
	return USAGE;
}
