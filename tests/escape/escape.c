/*
 * llwrap-escape: the escape corpus (DESIGN.md §9) as one program.
 *
 *	llwrap-escape host DIR [PROJECT]   set up the host side, print it
 *	llwrap-escape run KEY=VALUE...     run every probe (inside llwrap)
 *	llwrap-escape single ID KEY=VALUE... run one probe
 *	llwrap-escape list                 print "ID<TAB>what it tries"
 *
 * "host" runs outside the sandbox, as the user the sandboxed command
 * runs as.  It creates decoy secrets, a directory outside every writable
 * root, listeners (TCP, UDP, pathname and abstract unix sockets), a
 * process to attack, SysV shared memory and a message queue, and a POSIX
 * message queue; it prints them as KEY=VALUE lines followed by READY,
 * and removes everything once its standard input closes.
 *
 * "run" tries each escape in a child of its own (a probe the sandbox
 * kills with SIGSYS takes only that child with it) and prints, per
 * probe, exactly one of
 *
 *	BLOCKED ID DETAIL
 *	ESCAPED ID DETAIL
 *	SKIPPED ID REASON
 *
 * followed by the result of the probe's legitimate twin, the neighbouring
 * action that must keep working under the same policy:
 *
 *	TWIN-OK ID DETAIL
 *	TWIN-FAILED ID DETAIL
 *
 * Used by tests/escape/run.sh (make check) and by llwrap --selftest.
 * Nothing here writes to a file it did not create, except that it opens
 * the user's files for writing without writing (an open that succeeds is
 * the escape); a probe that could read a real secret only opens and
 * closes it and reports nothing of its content.
 *
 * Plain C and raw syscalls: nothing llwrap links.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <mqueue.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef TCP_FASTOPEN_CONNECT
#define TCP_FASTOPEN_CONNECT 30
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef NETLINK_SOCK_DIAG
#define NETLINK_SOCK_DIAG 4
#endif
#ifndef TIOCL_GETSHIFTSTATE
#define TIOCL_GETSHIFTSTATE 6
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1U
#endif
#define X32_SYSCALL_BIT	 0x40000000
#define I386_NR_GETPID	 20
#define X86_64_NR_GETPID 39
/* A probe's time limit, which ends only a hung one: git.gitlink runs git
 * three times, and in the kernel matrix's emulated one-CPU VM, beside
 * every other suite at once (backend-bwrap), that took over 10 s. */
#define PROBE_TIMEOUT 30

enum outcome {
	OUT_NONE,
	OUT_BLOCKED,
	OUT_ESCAPED,
	OUT_SKIPPED,
	OUT_OK,
	OUT_FAILED
};

struct result {
	enum outcome kind;
	char detail[400];
};

/* The fixture: KEY=VALUE arguments; a later one overrides an earlier. */
static char **fx_v;
static int fx_n;

static const char *
fx(const char *key)
{
	size_t n = strlen(key);

	for (int i = fx_n - 1; i >= 0; i--)
		if (strncmp(fx_v[i], key, n) == 0 && fx_v[i][n] == '=')
			return fx_v[i] + n + 1;
	return NULL;
}

static int
fx_port(const char *key)
{
	const char *v = fx(key);

	return v ? atoi(v) : 0;
}

/* Inherited descriptors, recorded before this program opens any. */
static int inherited[16];
static int n_inherited;
static char inherited_target[256];

static void __attribute__((format(printf, 3, 4)))
set(struct result *r, enum outcome kind, const char *fmt, ...)
{
	va_list ap;

	r->kind = kind;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

static const char *
ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

/* The call failed: blocked, saying which step and errno. */
static void
blocked(struct result *r, const char *step)
{
	int e = errno;

	set(r, OUT_BLOCKED, "%s: %s", step, ename(e));
}

static void
failed(struct result *r, const char *step)
{
	int e = errno;

	set(r, OUT_FAILED, "%s: %s (%s)", step, ename(e), strerror(e));
}

/* Skip when a fixture key is missing; true when the probe can go on. */
static bool
need(struct result *r, const char *key)
{
	if (fx(key) != NULL && *fx(key) != '\0')
		return true;
	set(r, OUT_SKIPPED, "the fixture has no %s", key);
	return false;
}

static char *
path_in(const char *dir, const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", dir, name);
	return buf;
}

/* ---- Helpers shared by attacks and twins ---- */

static int
open_read(const char *path, int flags)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf)) < 0 && errno != EISDIR) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

static void
try_read(struct result *r, const char *path, enum outcome ok, enum outcome bad)
{
	if (open_read(path, 0) < 0) {
		int e = errno;

		set(r, bad, "open %s: %s", path, ename(e));
		return;
	}
	set(r, ok, "read %s", path);
}

/* An attack that reads path: success is an escape. */
static void
attack_read(struct result *r, const char *path)
{
	try_read(r, path, OUT_ESCAPED, OUT_BLOCKED);
}

static void
twin_read(struct result *r, const char *path)
{
	try_read(r, path, OUT_OK, OUT_FAILED);
}

static int
create_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static void
try_create(struct result *r, const char *path, enum outcome ok,
	   enum outcome bad, bool remove)
{
	if (create_file(path, "llwrap escape probe\n") < 0) {
		int e = errno;

		/* A missing parent is a missing fixture, not a denial. */
		set(r, e == ENOENT ? OUT_SKIPPED : bad, "create %s: %s", path,
		    ename(e));
		return;
	}
	if (remove)
		unlink(path);
	set(r, ok, "created %s", path);
}

/* A twin that creates (and removes) a file in the work directory. */
static void
twin_create(struct result *r, const char *name)
{
	char p[512];

	if (!need(r, "WORK"))
		return;
	try_create(r, path_in(fx("WORK"), name, p, sizeof(p)), OUT_OK,
		   OUT_FAILED, true);
}

/* A work file with content, for twins; returns its path in buf. */
static const char *
work_file(const char *name, char *buf, size_t n)
{
	path_in(fx("WORK"), name, buf, n);
	(void)create_file(buf, "work file\n");
	return buf;
}

/* Open for writing without writing: opening is the escape. */
static void
attack_open_write(struct result *r, const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0600);

	if (fd < 0 && errno == ENOENT) {
		set(r, OUT_SKIPPED, "%s does not exist here", path);
		return;
	}
	if (fd < 0) {
		blocked(r, path);
		return;
	}
	close(fd);
	set(r, OUT_ESCAPED, "%s opened for writing", path);
}

static int
inet_connect(int type, int proto, const char *addr, int port, int flags)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, e;

	memset(&ss, 0, sizeof(ss));
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, addr, &s6->sin6_addr);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, addr, &s4->sin_addr);
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -1;
	if (flags & MSG_FASTOPEN) {
		if (sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&ss,
			   len) < 0)
			goto fail;
	} else if (type == SOCK_DGRAM) {
		if (sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len) < 0)
			goto fail;
	} else if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		goto fail;
	}
	close(fd);
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

static void
tcp(struct result *r, const char *addr, const char *key, bool attack)
{
	int port = fx_port(key);

	if (port == 0) {
		set(r, OUT_SKIPPED, "the fixture has no %s", key);
		return;
	}
	if (inet_connect(SOCK_STREAM, 0, addr, port, 0) < 0) {
		int e = errno;

		set(r, attack ? OUT_BLOCKED : OUT_FAILED, "connect %s:%d: %s",
		    addr, port, ename(e));
		return;
	}
	set(r, attack ? OUT_ESCAPED : OUT_OK, "connected to %s:%d", addr, port);
}

static void
twin_tcp_ok(struct result *r)
{
	tcp(r, "127.0.0.1", "TCP_OK", false);
}

static void
attack_socket(struct result *r, int family, int type, int proto)
{
	int fd = (int)syscall(SYS_socket, family, type, proto);

	if (fd < 0) {
		set(r, OUT_BLOCKED, "socket(%d, %d, %d): %s", family, type,
		    proto, ename(errno));
		return;
	}
	close(fd);
	set(r, OUT_ESCAPED, "socket(%d, %d, %d) created", family, type, proto);
}

/* A child that sleeps until killed, for the twins of process probes. */
static pid_t
own_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void
reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static bool
host_pid(struct result *r, pid_t *pid)
{
	if (!need(r, "HOST_PID"))
		return false;
	*pid = (pid_t)atoi(fx("HOST_PID"));
	return true;
}

/* A path from the work directory up to / and down to path, made of
 * "..": what a lexical check of the work directory would accept. */
static void
dotdot_path(const char *from, const char *path, char *buf, size_t n)
{
	size_t len = 0;

	len += (size_t)snprintf(buf + len, n - len, "%s", from);
	for (const char *s = from; *s != '\0' && len < n; s++)
		if (*s == '/')
			len += (size_t)snprintf(buf + len, n - len, "/..");
	snprintf(buf + len, n - len, "%s", path);
}

/* ---- Files ---- */

static void
a_ssh_read(struct result *r)
{
	if (need(r, "SECRET"))
		attack_read(r, fx("SECRET"));
}

static void
t_project_read(struct result *r)
{
	char p[512];

	if (need(r, "WORK"))
		twin_read(r, work_file("readme", p, sizeof(p)));
}

static void
a_aws_read(struct result *r)
{
	if (need(r, "AWS"))
		attack_read(r, fx("AWS"));
}

static void
a_other_project(struct result *r)
{
	if (need(r, "OTHER"))
		attack_read(r, fx("OTHER"));
}

static void
a_ssh_list(struct result *r)
{
	DIR *d;

	if (!need(r, "SECRET_DIR"))
		return;
	d = opendir(fx("SECRET_DIR"));
	if (d == NULL) {
		blocked(r, "opendir");
		return;
	}
	closedir(d);
	set(r, OUT_ESCAPED, "listed %s", fx("SECRET_DIR"));
}

static void
t_work_list(struct result *r)
{
	DIR *d;

	if (!need(r, "WORK"))
		return;
	d = opendir(fx("WORK"));
	if (d == NULL) {
		failed(r, "opendir");
		return;
	}
	closedir(d);
	set(r, OUT_OK, "listed the work directory");
}

static void
a_secret_stat(struct result *r)
{
	struct stat st;

	if (!need(r, "SECRET"))
		return;
	if (stat(fx("SECRET"), &st) < 0) {
		blocked(r, "stat");
		return;
	}
	set(r, OUT_ESCAPED, "stat %s: size %lld visible (not its content)",
	    fx("SECRET"), (long long)st.st_size);
}

static void
t_work_stat(struct result *r)
{
	struct stat st;

	if (!need(r, "WORK"))
		return;
	if (stat(fx("WORK"), &st) < 0)
		failed(r, "stat");
	else
		set(r, OUT_OK, "stat of the work directory");
}

static void
a_bashrc(struct result *r)
{
	if (need(r, "BASHRC"))
		attack_open_write(r, fx("BASHRC"), O_APPEND);
}

static void
t_append(struct result *r)
{
	char p[512];
	int fd;

	if (!need(r, "WORK"))
		return;
	work_file("appended", p, sizeof(p));
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 || write(fd, "x", 1) != 1) {
		failed(r, "append");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	set(r, OUT_OK, "appended to a project file");
}

static void
a_outside_create(struct result *r)
{
	char p[512];

	if (need(r, "OUTSIDE"))
		try_create(r, path_in(fx("OUTSIDE"), "created", p, sizeof(p)),
			   OUT_ESCAPED, OUT_BLOCKED, false);
}

static void
t_create(struct result *r)
{
	twin_create(r, "created");
}

static void
a_host_tmp(struct result *r)
{
	if (need(r, "HOST_TMP"))
		attack_read(r, fx("HOST_TMP"));
}

/* The legitimate neighbour: a temporary file where programs make them,
 * $TMPDIR or /tmp (without user namespaces private-tmp is a directory of
 * the run's own, named by TMPDIR, and /tmp itself is refused). */
static void
t_own_tmp(struct result *r)
{
	const char *dir = getenv("TMPDIR");
	char p[PATH_MAX];
	int fd;

	if (dir == NULL || dir[0] != '/')
		dir = "/tmp";
	snprintf(p, sizeof(p), "%s/llwrap-escape-twin.XXXXXX", dir);
	if ((fd = mkstemp(p)) < 0) {
		failed(r, strcmp(dir, "/tmp") == 0 ? "mkstemp in /tmp"
						   : "mkstemp in $TMPDIR");
		return;
	}
	close(fd);
	unlink(p);
	set(r, OUT_OK, "created a file of its own in %s", dir);
}

/* Watch a directory the sandbox may not read: the events say when the
 * user opens or changes the files there (DESIGN.md §11, watching). */
static void
a_inotify(struct result *r)
{
	int fd;

	if (!need(r, "SECRET_DIR"))
		return;
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0) {
		blocked(r, "inotify_init1");
		return;
	}
	if (inotify_add_watch(fd, fx("SECRET_DIR"), IN_OPEN | IN_MODIFY) < 0)
		blocked(r, "inotify_add_watch");
	else
		set(r, OUT_ESCAPED, "watching %s (opens and changes there)",
		    fx("SECRET_DIR"));
	close(fd);
}

/* The twin: a file watcher in the project (npm run dev, cargo watch). */
static void
t_inotify(struct result *r)
{
	int fd;

	if (!need(r, "WORK"))
		return;
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, fx("WORK"), IN_MODIFY) < 0)
		failed(r, "inotify_add_watch in the project");
	else
		set(r, OUT_OK, "watching the project");
	if (fd >= 0)
		close(fd);
}

/* fanotify, unprivileged since Linux 5.13: an inode mark on a directory
 * the sandbox may not read reports as inotify does. */
static void
a_fanotify(struct result *r)
{
	long fd;

	if (!need(r, "SECRET_DIR"))
		return;
	fd = syscall(SYS_fanotify_init,
		     0x00000000 /* FAN_CLASS_NOTIF */ |
			     0x00000200 /* FAN_REPORT_FID */ |
			     0x00000001 /* FAN_CLOEXEC */,
		     O_RDONLY);
	if (fd < 0) {
		blocked(r, "fanotify_init");
		return;
	}
	if (syscall(SYS_fanotify_mark, (int)fd, 0x00000001 /* FAN_MARK_ADD */,
		    (unsigned long long)0x00000020 /* FAN_OPEN */, AT_FDCWD,
		    fx("SECRET_DIR")) < 0)
		blocked(r, "fanotify_mark");
	else
		set(r, OUT_ESCAPED, "fanotify mark on %s (opens there)",
		    fx("SECRET_DIR"));
	close((int)fd);
}

/* The other shared scratch directories: /dev/shm and /var/tmp. */
static void
a_host_shm(struct result *r)
{
	if (need(r, "HOST_SHM"))
		attack_read(r, fx("HOST_SHM"));
}

static void
t_own_shm(struct result *r)
{
	char p[] = "/dev/shm/llwrap-escape-twin.XXXXXX";
	int fd = mkstemp(p);

	if (fd < 0) {
		failed(r, "mkstemp in /dev/shm");
		return;
	}
	close(fd);
	unlink(p);
	set(r, OUT_OK, "created a file of its own in /dev/shm");
}

static void
a_host_vartmp(struct result *r)
{
	if (need(r, "HOST_VARTMP"))
		attack_read(r, fx("HOST_VARTMP"));
}

static void
a_symlink(struct result *r)
{
	char l[512];

	if (!need(r, "SECRET") || !need(r, "WORK"))
		return;
	path_in(fx("WORK"), "link-to-secret", l, sizeof(l));
	unlink(l);
	if (symlink(fx("SECRET"), l) < 0) {
		set(r, OUT_SKIPPED, "symlink: %s", ename(errno));
		return;
	}
	attack_read(r, l);
}

static void
t_symlink(struct result *r)
{
	char l[512], t[512];

	if (!need(r, "WORK"))
		return;
	work_file("target", t, sizeof(t));
	path_in(fx("WORK"), "link-to-target", l, sizeof(l));
	unlink(l);
	if (symlink(t, l) < 0) {
		failed(r, "symlink");
		return;
	}
	twin_read(r, l);
}

static void
a_hardlink(struct result *r)
{
	char l[512];

	if (!need(r, "SECRET") || !need(r, "WORK"))
		return;
	path_in(fx("WORK"), "hardlink-to-secret", l, sizeof(l));
	unlink(l);
	if (link(fx("SECRET"), l) < 0) {
		blocked(r, "link");
		return;
	}
	attack_read(r, l);
	if (r->kind == OUT_BLOCKED)
		set(r, OUT_ESCAPED,
		    "a hard link to the secret was made in the "
		    "project (its content stayed unreadable)");
	unlink(l);
}

static void
t_hardlink(struct result *r)
{
	char l[512], t[512];

	if (!need(r, "WORK"))
		return;
	work_file("hl-target", t, sizeof(t));
	path_in(fx("WORK"), "hl", l, sizeof(l));
	unlink(l);
	if (link(t, l) < 0) {
		failed(r, "link");
		return;
	}
	twin_read(r, l);
}

static void
a_dotdot(struct result *r)
{
	char p[2048];

	if (!need(r, "SECRET") || !need(r, "WORK"))
		return;
	dotdot_path(fx("WORK"), fx("SECRET"), p, sizeof(p));
	attack_read(r, p);
	if (strlen(r->detail) > 120)
		snprintf(r->detail + 100, sizeof(r->detail) - 100,
			 "... (WORK/../..%s)", fx("SECRET"));
}

static void
t_dotdot(struct result *r)
{
	char p[2048], w[512];

	if (!need(r, "WORK"))
		return;
	work_file("readme", w, sizeof(w));
	dotdot_path(fx("WORK"), w, p, sizeof(p));
	twin_read(r, p);
	if (strlen(r->detail) > 120)
		snprintf(r->detail + 100, sizeof(r->detail) - 100, "...");
}

static void
a_proc_root(struct result *r)
{
	char p[1024];

	if (!need(r, "SECRET"))
		return;
	snprintf(p, sizeof(p), "/proc/self/root%s", fx("SECRET"));
	attack_read(r, p);
}

static void
t_proc_root(struct result *r)
{
	char p[1024], w[512];

	if (!need(r, "WORK"))
		return;
	snprintf(p, sizeof(p), "/proc/self/root%s",
		 work_file("readme", w, sizeof(w)));
	twin_read(r, p);
}

static void
a_proc_cwd(struct result *r)
{
	char p[2048];

	if (!need(r, "SECRET") || !need(r, "WORK"))
		return;
	if (chdir(fx("WORK")) < 0) {
		set(r, OUT_SKIPPED, "chdir WORK: %s", ename(errno));
		return;
	}
	/* /proc/self/cwd is the work directory: climb from there. */
	snprintf(p, sizeof(p), "/proc/self/cwd");
	for (const char *s = fx("WORK"); *s != '\0'; s++)
		if (*s == '/')
			strncat(p, "/..", sizeof(p) - strlen(p) - 1);
	strncat(p, fx("SECRET"), sizeof(p) - strlen(p) - 1);
	attack_read(r, p);
}

static void
t_proc_cwd(struct result *r)
{
	char w[512];

	if (!need(r, "WORK"))
		return;
	work_file("readme", w, sizeof(w));
	if (chdir(fx("WORK")) < 0) {
		failed(r, "chdir");
		return;
	}
	twin_read(r, "/proc/self/cwd/readme");
}

static long
openat2_(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = flags | O_CLOEXEC;
	how.resolve = resolve;
	return syscall(__NR_openat2, dirfd, path, &how, sizeof(how));
}

static void
a_openat2(struct result *r)
{
	static const uint64_t resolves[] = {
		0,
		RESOLVE_NO_MAGICLINKS,
		RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS,
		RESOLVE_IN_ROOT,
	};
	int root;

	if (!need(r, "SECRET"))
		return;
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; i < sizeof(resolves) / sizeof(resolves[0]); i++) {
		long fd =
			openat2_(root, fx("SECRET") + 1, O_RDONLY, resolves[i]);

		if (fd >= 0) {
			close((int)fd);
			close(root);
			set(r, OUT_ESCAPED, "openat2 resolve=%#llx opened %s",
			    (unsigned long long)resolves[i], fx("SECRET"));
			return;
		}
		if (errno == ENOSYS) {
			close(root);
			set(r, OUT_SKIPPED, "openat2: ENOSYS");
			return;
		}
	}
	close(root);
	blocked(r, "openat2 with 4 resolve flag sets");
}

static void
t_openat2(struct result *r)
{
	char w[512];
	long fd;
	int dir;

	if (!need(r, "WORK"))
		return;
	work_file("readme", w, sizeof(w));
	dir = open(fx("WORK"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	fd = openat2_(dir, "readme", O_RDONLY, RESOLVE_BENEATH);
	if (fd < 0) {
		failed(r, "openat2 RESOLVE_BENEATH");
	} else {
		close((int)fd);
		set(r, OUT_OK, "openat2 RESOLVE_BENEATH in the project");
	}
	close(dir);
}

/* Move an allowed file onto a denied directory and back. */
static void
a_rename_out(struct result *r)
{
	char from[512], to[512];

	if (!need(r, "WORK") || !need(r, "SECRET_DIR"))
		return;
	work_file("moving", from, sizeof(from));
	path_in(fx("SECRET_DIR"), "moved-in", to, sizeof(to));
	if (rename(from, to) < 0) {
		blocked(r, "rename into the denied directory");
		return;
	}
	if (rename(to, from) < 0)
		set(r, OUT_ESCAPED, "renamed into %s (and not back: %s)",
		    fx("SECRET_DIR"), ename(errno));
	else
		set(r, OUT_ESCAPED, "renamed into %s and back",
		    fx("SECRET_DIR"));
}

static void
t_rename(struct result *r)
{
	char from[512], to[512];

	if (!need(r, "WORK"))
		return;
	work_file("ren-a", from, sizeof(from));
	path_in(fx("WORK"), "ren-b", to, sizeof(to));
	if (rename(from, to) < 0 || rename(to, from) < 0)
		failed(r, "rename");
	else
		set(r, OUT_OK, "renamed inside the project and back");
}

/* Pull the secret into the project by renaming it. */
static void
a_rename_in(struct result *r)
{
	char to[512];

	if (!need(r, "WORK") || !need(r, "SECRET"))
		return;
	path_in(fx("WORK"), "stolen", to, sizeof(to));
	if (rename(fx("SECRET"), to) < 0) {
		blocked(r, "rename the secret into the project");
		return;
	}
	(void)rename(to, fx("SECRET"));
	set(r, OUT_ESCAPED, "renamed %s into the project", fx("SECRET"));
}

static void
a_opath(struct result *r)
{
	char p[64];
	int fd, fd2;

	if (!need(r, "SECRET"))
		return;
	fd = open(fx("SECRET"), O_PATH | O_CLOEXEC);
	if (fd < 0) {
		blocked(r, "open O_PATH");
		return;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	fd2 = open(p, O_RDONLY | O_CLOEXEC);
	if (fd2 < 0) {
		set(r, OUT_BLOCKED,
		    "O_PATH open works (no content); reopen %s: %s", p,
		    ename(errno));
		close(fd);
		return;
	}
	close(fd2);
	close(fd);
	set(r, OUT_ESCAPED, "reopened an O_PATH fd of the secret for reading");
}

static void
t_opath(struct result *r)
{
	char w[512], p[64];
	int fd;

	if (!need(r, "WORK"))
		return;
	fd = open(work_file("readme", w, sizeof(w)), O_PATH | O_CLOEXEC);
	if (fd < 0) {
		failed(r, "open O_PATH");
		return;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	twin_read(r, p);
	close(fd);
}

static void
a_handle(struct result *r)
{
	struct file_handle *h = calloc(1, sizeof(*h) + MAX_HANDLE_SZ);
	int mount_id, mfd, fd;

	if (!need(r, "SECRET") || h == NULL) {
		free(h);
		return;
	}
	h->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, fx("SECRET"), h, &mount_id, 0) < 0) {
		blocked(r, "name_to_handle_at");
		free(h);
		return;
	}
	mfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = open_by_handle_at(mfd, h, O_RDONLY | O_CLOEXEC);
	free(h);
	if (fd < 0) {
		set(r, OUT_BLOCKED,
		    "name_to_handle_at works; open_by_handle_at: %s",
		    ename(errno));
		close(mfd);
		return;
	}
	close(fd);
	close(mfd);
	set(r, OUT_ESCAPED, "open_by_handle_at opened the secret");
}

static void
t_handle(struct result *r)
{
	struct file_handle *h = calloc(1, sizeof(*h) + MAX_HANDLE_SZ);
	char w[512];
	int mount_id;

	if (!need(r, "WORK") || h == NULL) {
		free(h);
		return;
	}
	h->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, work_file("readme", w, sizeof(w)), h,
			      &mount_id, 0) < 0)
		failed(r, "name_to_handle_at");
	else
		set(r, OUT_OK, "name_to_handle_at of a project file");
	free(h);
}

/* A decoy owned by the user outside every writable root. */
static bool
outside_file(struct result *r, char *buf, size_t n)
{
	if (!need(r, "OUTSIDE"))
		return false;
	path_in(fx("OUTSIDE"), "file", buf, n);
	return true;
}

static void
a_chmod(struct result *r)
{
	char p[512];
	struct stat st;

	if (!outside_file(r, p, sizeof(p)))
		return;
	if (stat(p, &st) < 0) {
		set(r, OUT_SKIPPED, "stat %s: %s", p, ename(errno));
		return;
	}
	if (chmod(p, (st.st_mode & 07777) ^ 04) < 0) {
		blocked(r, "chmod");
		return;
	}
	(void)chmod(p, st.st_mode & 07777);
	set(r, OUT_ESCAPED, "chmod %s (mode restored)", p);
}

static void
t_chmod(struct result *r)
{
	char w[512];

	if (!need(r, "WORK"))
		return;
	if (chmod(work_file("readme", w, sizeof(w)), 0640) < 0)
		failed(r, "chmod");
	else
		set(r, OUT_OK, "chmod of a project file");
}

static void
a_chown(struct result *r)
{
	char p[512];

	if (!outside_file(r, p, sizeof(p)))
		return;
	/* To its own group: allowed by permissions, so only a sandbox
	 * layer can refuse it. */
	if (chown(p, (uid_t)-1, getegid()) < 0) {
		blocked(r, "chown");
		return;
	}
	set(r, OUT_ESCAPED, "chown %s (to its own group)", p);
}

static void
t_chown(struct result *r)
{
	char w[512];

	if (!need(r, "WORK"))
		return;
	if (chown(work_file("readme", w, sizeof(w)), (uid_t)-1, getegid()) < 0)
		failed(r, "chown");
	else
		set(r, OUT_OK, "chown of a project file");
}

static void
a_utime(struct result *r)
{
	char p[512];

	if (!outside_file(r, p, sizeof(p)))
		return;
	if (utimensat(AT_FDCWD, p, NULL, 0) < 0) {
		blocked(r, "utimensat");
		return;
	}
	set(r, OUT_ESCAPED, "touched the times of %s", p);
}

static void
t_utime(struct result *r)
{
	char w[512];

	if (!need(r, "WORK"))
		return;
	if (utimensat(AT_FDCWD, work_file("readme", w, sizeof(w)), NULL, 0) < 0)
		failed(r, "utimensat");
	else
		set(r, OUT_OK, "touched a project file");
}

static void
a_xattr(struct result *r)
{
	char p[512];

	if (!outside_file(r, p, sizeof(p)))
		return;
	if (setxattr(p, "user.llwrap-escape", "1", 1, 0) < 0) {
		if (errno == ENOTSUP)
			set(r, OUT_SKIPPED,
			    "no user xattrs on this filesystem");
		else
			blocked(r, "setxattr");
		return;
	}
	(void)removexattr(p, "user.llwrap-escape");
	set(r, OUT_ESCAPED, "set a user xattr on %s", p);
}

static void
t_xattr(struct result *r)
{
	char w[512];

	if (!need(r, "WORK"))
		return;
	if (setxattr(work_file("readme", w, sizeof(w)), "user.llwrap-escape",
		     "1", 1, 0) < 0) {
		if (errno == ENOTSUP)
			set(r, OUT_SKIPPED,
			    "no user xattrs on this filesystem");
		else
			failed(r, "setxattr");
		return;
	}
	set(r, OUT_OK, "set a user xattr on a project file");
}

static void
a_truncate(struct result *r)
{
	char p[512];

	if (!outside_file(r, p, sizeof(p)))
		return;
	if (truncate(p, 1) < 0)
		blocked(r, "truncate");
	else
		set(r, OUT_ESCAPED, "truncated %s", p);
}

static void
t_truncate(struct result *r)
{
	char w[512];

	if (!need(r, "WORK"))
		return;
	if (truncate(work_file("readme", w, sizeof(w)), 1) < 0)
		failed(r, "truncate");
	else
		set(r, OUT_OK, "truncated a project file");
}

static void
a_unlink(struct result *r)
{
	char p[512];

	if (!outside_file(r, p, sizeof(p)))
		return;
	if (unlink(p) < 0) {
		blocked(r, "unlink");
		return;
	}
	(void)create_file(p, "outside\n");
	set(r, OUT_ESCAPED, "removed %s (recreated)", p);
}

static void
t_unlink(struct result *r)
{
	char w[512];

	if (!need(r, "WORK"))
		return;
	if (unlink(work_file("victim", w, sizeof(w))) < 0)
		failed(r, "unlink");
	else
		set(r, OUT_OK, "removed a project file");
}

static void
a_mkfifo(struct result *r)
{
	char p[512];

	if (!need(r, "OUTSIDE"))
		return;
	path_in(fx("OUTSIDE"), "fifo", p, sizeof(p));
	if (mkfifo(p, 0600) < 0) {
		blocked(r, "mkfifo");
		return;
	}
	unlink(p);
	set(r, OUT_ESCAPED, "made a fifo in %s", fx("OUTSIDE"));
}

static void
t_mkfifo(struct result *r)
{
	char p[512];

	if (!need(r, "WORK"))
		return;
	path_in(fx("WORK"), "fifo", p, sizeof(p));
	unlink(p);
	if (mkfifo(p, 0600) < 0)
		failed(r, "mkfifo");
	else
		set(r, OUT_OK, "made a fifo in the project");
	unlink(p);
}

static void
a_config(struct result *r)
{
	if (need(r, "CONFIG"))
		attack_open_write(r, fx("CONFIG"), O_APPEND);
}

/* ---- Things that run later, outside the sandbox ---- */

static void
a_git_hooks(struct result *r)
{
	char p[512];

	if (!need(r, "GIT"))
		return;
	/* Not an active hook name: a hook that runs would be the escape,
	 * creating any file in hooks/ proves the directory is writable. */
	snprintf(p, sizeof(p), "%s/hooks/llwrap-escape-probe", fx("GIT"));
	try_create(r, p, OUT_ESCAPED, OUT_BLOCKED, true);
}

static void
a_git_config(struct result *r)
{
	char p[512];

	if (!need(r, "GIT"))
		return;
	snprintf(p, sizeof(p), "%s/config", fx("GIT"));
	attack_open_write(r, p, O_APPEND);
}

static void
t_git_config(struct result *r)
{
	char p[512];

	if (!need(r, "GIT"))
		return;
	snprintf(p, sizeof(p), "%s/config", fx("GIT"));
	twin_read(r, p);
}

/* Rename .git away (a new one could then point host git anywhere), and
 * back at once when that worked. */
static void
a_git_rename(struct result *r)
{
	char to[512];

	if (!need(r, "GIT"))
		return;
	snprintf(to, sizeof(to), "%s.llwrap-escape-probe", fx("GIT"));
	if (rename(fx("GIT"), to) < 0) {
		blocked(r, "rename .git");
		return;
	}
	if (rename(to, fx("GIT")) < 0)
		set(r, OUT_ESCAPED,
		    "renamed %s to %s (and could not rename it "
		    "back: restore it by hand)",
		    fx("GIT"), to);
	else
		set(r, OUT_ESCAPED, "renamed %s away (renamed back)",
		    fx("GIT"));
}

/* The twin: git must still create and rename files in .git (index.lock
 * becomes index on every git add). */
static void
t_git_write(struct result *r)
{
	char a[512], b[512];

	if (!need(r, "GIT"))
		return;
	snprintf(a, sizeof(a), "%s/llwrap-escape-twin.lock", fx("GIT"));
	snprintf(b, sizeof(b), "%s/llwrap-escape-twin", fx("GIT"));
	if (create_file(a, "twin\n") < 0) {
		failed(r, "create in .git");
		return;
	}
	if (rename(a, b) < 0) {
		failed(r, "rename in .git");
		unlink(a);
		return;
	}
	unlink(b);
	set(r, OUT_OK, "created and renamed a file in %s", fx("GIT"));
}

/*
 * A file run later, created where none exists (a read-only mount has
 * nothing to mount on): it escapes when it stays under its name.  llwrap's
 * monitor moves it aside (NAME.llwrap-blocked-TIME) as soon as it is
 * made; the probe waits up to 2 s for that, then removes what it made.
 */
static void
attack_create_later(struct result *r, const char *dir, const char *name,
		    const char *content)
{
	char p[512];
	struct stat st;
	size_t n = strlen(name);
	DIR *d;
	int fd, waited = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		set(r, OUT_SKIPPED, "%s exists (read-only when protected)", p);
		return;
	}
	if (fd < 0) {
		blocked(r, p);
		return;
	}
	if (write(fd, content, strlen(content)) < 0) {
		/* The name is what matters. */
	}
	close(fd);
	while (lstat(p, &st) == 0 && waited < 2000) {
		usleep(10000);
		waited += 10;
	}
	if (lstat(p, &st) == 0) {
		unlink(p);
		set(r, OUT_ESCAPED,
		    "created %s, still there after 2 s "
		    "(removed)",
		    p);
		return;
	}
	/* Moved aside: remove the probe's own file from beside it. */
	if ((d = opendir(dir)) != NULL) {
		struct dirent *de;

		while ((de = readdir(d)) != NULL)
			if (strncmp(de->d_name, name, n) == 0 &&
			    strncmp(de->d_name + n, ".llwrap-blocked-", 16) ==
				    0)
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	set(r, OUT_BLOCKED, "created %s, moved aside within %d ms", p,
	    waited + 10);
}

/* A commondir file makes git read its configuration and hooks from the
 * directory it names. */
static void
a_git_commondir(struct result *r)
{
	if (!need(r, "GIT"))
		return;
	attack_create_later(r, fx("GIT"), "commondir", "/nowhere\n");
}

static void
a_git_outside(struct result *r)
{
	char p[512];

	if (!need(r, "OUTSIDE"))
		return;
	snprintf(p, sizeof(p), "%s/repo/.git/hooks/post-checkout",
		 fx("OUTSIDE"));
	try_create(r, p, OUT_ESCAPED, OUT_BLOCKED, true);
}

/* Run argv with no input or output: its exit status, or -1 when it
 * could not run (127: not found). */
static int
run_quiet(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * A nested repository registered as a submodule in the writable index
 * (a gitlink): the user's next git status looks into it and runs its
 * core.fsmonitor.  It escapes when its .git stays; llwrap's monitor
 * moves it aside when the index changes.
 */
static void
a_git_gitlink(struct result *r)
{
	char dir[512], dotgit[600];
	struct stat st;
	int waited = 0;

	if (!need(r, "DOTFILES"))
		return;
	snprintf(dir, sizeof(dir), "%s/llwrap-escape-nest", fx("DOTFILES"));
	snprintf(dotgit, sizeof(dotgit), "%s/.git", dir);
	{
		char *init[] = { "git", "init", "-q", dir, NULL };
		char *commit[] = { "git",
				   "-C",
				   dir,
				   "-c",
				   "user.name=p",
				   "-c",
				   "user.email=p@p.invalid",
				   "commit",
				   "-q",
				   "--allow-empty",
				   "-m",
				   "n",
				   NULL };
		char *add[] = { "git",
				"-C",
				(char *)fx("DOTFILES"),
				"-c",
				"advice.addEmbeddedRepo=false",
				"add",
				"llwrap-escape-nest",
				NULL };
		int rc = run_quiet(init);

		if (rc == 127) {
			set(r, OUT_SKIPPED, "git is not installed");
			return;
		}
		if (rc != 0 || run_quiet(commit) != 0) {
			errno = EACCES;
			blocked(r,
				"git init and commit of a nested repository");
			return;
		}
		if (run_quiet(add) != 0) {
			set(r, OUT_BLOCKED,
			    "git add of the nested repository "
			    "failed");
			goto out;
		}
	}
	while (lstat(dotgit, &st) == 0 && waited < 2000) {
		usleep(10000);
		waited += 10;
	}
	if (lstat(dotgit, &st) == 0)
		set(r, OUT_ESCAPED,
		    "registered %s as a gitlink, its .git "
		    "still there after 2 s (removed)",
		    dir);
	else
		set(r, OUT_BLOCKED,
		    "registered %s as a gitlink, its .git "
		    "moved aside within %d ms",
		    dir, waited + 10);
out : {
	char *unreg[] = { "git", "-C",	     (char *)fx("DOTFILES"), "rm",
			  "-q",	 "--cached", "llwrap-escape-nest",   NULL };
	char *rm[] = { "rm", "-rf", dir, NULL };

	run_quiet(unreg);
	run_quiet(rm);
}
}

/* The project's .mcp.json: an agent starts the servers it names (a new
 * .envrc is no escape by itself: direnv refuses it until `direnv allow`;
 * what an allowed .envrc sources is, and is watched the same way). */
static void
a_later_file(struct result *r)
{
	if (!need(r, "DOTFILES"))
		return;
	attack_create_later(r, fx("DOTFILES"), ".mcp.json",
			    "{\"mcpServers\": {}}\n");
}

/* A task in the project's .vscode (an editor runs it when the folder
 * opens): the decoy repository has one, as projects edited with VS Code
 * do (protect-later-run makes it read-only; a missing one made inside is
 * moved aside, as proj.later-file's file is). */
static void
a_vscode(struct result *r)
{
	char p[512];

	if (!need(r, "DOTFILES"))
		return;
	snprintf(p, sizeof(p), "%s/.vscode/tasks.json", fx("DOTFILES"));
	try_create(r, p, OUT_ESCAPED, OUT_BLOCKED, true);
}

/* ---- Exec ---- */

/* Copy a file into an fd. */
static int
copy_into(const char *from, int to)
{
	char buf[65536];
	int fd = open(from, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(to, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(fd);
	return n < 0 ? -1 : 0;
}

/*
 * Run this program again from a memfd, asking it to read the secret: a
 * copy of a program in memory must keep the sandbox of its parent.
 */
static void
a_memfd(struct result *r)
{
	char line[512] = "";
	char **argv;
	int mfd, pfd[2], st;
	pid_t pid;
	ssize_t n;

	if (!need(r, "SECRET"))
		return;
	mfd = (int)syscall(SYS_memfd_create, "llwrap-escape", MFD_CLOEXEC);
	if (mfd < 0) {
		blocked(r, "memfd_create");
		return;
	}
	if (copy_into("/proc/self/exe", mfd) < 0) {
		set(r, OUT_SKIPPED, "cannot copy /proc/self/exe: %s",
		    ename(errno));
		close(mfd);
		return;
	}
	argv = calloc((size_t)fx_n + 4, sizeof(*argv));
	argv[0] = "llwrap-escape";
	argv[1] = "single";
	argv[2] = "fs.ssh-read";
	for (int i = 0; i < fx_n; i++)
		argv[3 + i] = fx_v[i];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		set(r, OUT_SKIPPED, "pipe: %s", ename(errno));
		free(argv);
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		fexecve(mfd, argv, environ);
		printf("NOEXEC %s\n", ename(errno));
		_exit(1);
	}
	close(pfd[1]);
	n = read(pfd[0], line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	close(pfd[0]);
	waitpid(pid, &st, 0);
	close(mfd);
	free(argv);
	if (strncmp(line, "NOEXEC", 6) == 0)
		set(r, OUT_BLOCKED, "fexecve of a memfd: %s", line + 7);
	else if (strncmp(line, "BLOCKED", 7) == 0)
		set(r, OUT_BLOCKED,
		    "the memfd copy ran and kept the sandbox "
		    "(%.200s)",
		    line);
	else
		set(r, OUT_ESCAPED, "the memfd copy got out: %.300s", line);
}

static void
t_exec(struct result *r)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		set(r, OUT_FAILED, "/bin/true: status %#x", st);
	else
		set(r, OUT_OK, "ran /bin/true");
}

/* execveat of a project file that is writable but not executable. */
static void
a_execveat(struct result *r)
{
	char p[512];
	char *argv[] = { "tool", NULL };
	int fd, st;
	pid_t pid;

	if (!need(r, "WORK"))
		return;
	path_in(fx("WORK"), "tool", p, sizeof(p));
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || copy_into("/bin/true", fd) < 0) {
		set(r, OUT_SKIPPED, "cannot copy /bin/true into the project");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	/* Under the shipped profiles the project is rwx (DESIGN.md §10):
	 * there is nothing to bypass when a plain execve works. */
	pid = fork();
	if (pid == 0) {
		execve(p, argv, environ);
		_exit(100 + (errno & 0x1f));
	}
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		set(r, OUT_SKIPPED,
		    "the project is executable under this policy (rwx)");
		return;
	}
	fd = open(p, O_PATH | O_CLOEXEC);
	pid = fork();
	if (pid == 0) {
		syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
		_exit(100 + (errno & 0x1f));
	}
	waitpid(pid, &st, 0);
	close(fd);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		set(r, OUT_ESCAPED,
		    "executed a non-executable project file "
		    "through execveat(AT_EMPTY_PATH)");
	else if (WIFEXITED(st) && WEXITSTATUS(st) >= 100)
		set(r, OUT_BLOCKED, "execveat: %s",
		    ename(WEXITSTATUS(st) - 100));
	else
		set(r, OUT_BLOCKED, "execveat: status %#x", st);
}

static void
t_execveat(struct result *r)
{
	char *argv[] = { "true", NULL };
	int fd = open("/bin/true", O_PATH | O_CLOEXEC), st;
	pid_t pid = fork();

	if (pid == 0) {
		syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	close(fd);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		set(r, OUT_OK, "execveat of /bin/true");
	else
		set(r, OUT_FAILED, "execveat /bin/true: status %#x", st);
}

static void
a_personality(struct result *r)
{
	long old = syscall(SYS_personality, (unsigned long)READ_IMPLIES_EXEC);

	if (old < 0)
		blocked(r, "personality(READ_IMPLIES_EXEC)");
	else
		set(r, OUT_ESCAPED, "personality(READ_IMPLIES_EXEC) set");
}

static void
t_personality(struct result *r)
{
	if (syscall(SYS_personality, 0xffffffffUL) < 0)
		failed(r, "personality query");
	else
		set(r, OUT_OK, "personality query");
}

/* ---- prctl and core dumps ---- */

static void
a_nnp_clear(struct result *r)
{
	int rc = prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0);

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		set(r, OUT_BLOCKED, "no_new_privs stays set (clear: %s)",
		    rc < 0 ? ename(errno) : "returned 0");
	else
		set(r, OUT_ESCAPED, "no_new_privs is not set");
}

static void
t_prctl_name(struct result *r)
{
	if (prctl(PR_SET_NAME, "llw-escape", 0, 0, 0) < 0)
		failed(r, "PR_SET_NAME");
	else
		set(r, OUT_OK, "PR_SET_NAME");
}

static void
a_cap_ambient(struct result *r)
{
	/* CAP_NET_RAW = 13, CAP_SYS_ADMIN = 21. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, 21, 0, 0) < 0 &&
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, 13, 0, 0) < 0)
		blocked(r, "PR_CAP_AMBIENT_RAISE");
	else
		set(r, OUT_ESCAPED, "raised an ambient capability");
}

static void
t_capbset(struct result *r)
{
	if (prctl(PR_CAPBSET_READ, 0, 0, 0, 0) < 0)
		failed(r, "PR_CAPBSET_READ");
	else
		set(r, OUT_OK, "PR_CAPBSET_READ");
}

static void
a_set_mm(struct result *r)
{
	unsigned long start = (unsigned long)&fx_n;

	if (prctl(PR_SET_MM, PR_SET_MM_ARG_START, start, 0, 0) < 0)
		blocked(r, "PR_SET_MM");
	else
		set(r, OUT_ESCAPED, "PR_SET_MM rewrote the argument area");
}

static void
t_dumpable(struct result *r)
{
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		failed(r, "PR_SET_DUMPABLE");
	else
		set(r, OUT_OK, "PR_SET_DUMPABLE 1");
}

static void
a_seccomp_listener(struct result *r)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &insn };
	long fd;

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0) {
		blocked(r, "seccomp NEW_LISTENER");
		return;
	}
	close((int)fd);
	set(r, OUT_ESCAPED, "got a seccomp user-notification listener");
}

static void
t_seccomp_nested(struct result *r)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = 1, .filter = &insn };

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		failed(r, "seccomp filter");
	else
		set(r, OUT_OK, "stacked a seccomp filter of its own");
}

static void
a_core_pattern(struct result *r)
{
	attack_open_write(r, "/proc/sys/kernel/core_pattern", 0);
}

static void
t_core_pattern(struct result *r)
{
	twin_read(r, "/proc/sys/kernel/core_pattern");
}

/* Crash a child in dir; true when a core file appeared there. */
static int
core_dump_in(const char *dir, char *why, size_t n)
{
	char pattern[256] = "", p[600];
	struct rlimit rl;
	int fd = open("/proc/sys/kernel/core_pattern", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, pattern, sizeof(pattern) - 1) : -1;
	pid_t pid;
	int st;

	if (fd >= 0)
		close(fd);
	if (len <= 0) {
		snprintf(why, n, "core_pattern unreadable");
		return -1;
	}
	pattern[strcspn(pattern, "\n")] = '\0';
	if (strcmp(pattern, "core") != 0) {
		snprintf(why, n, "core_pattern is '%.100s', not 'core'",
			 pattern);
		return -1;
	}
	if (getrlimit(RLIMIT_CORE, &rl) < 0 || rl.rlim_max < 4096 * 1024) {
		snprintf(why, n,
			 "the hard RLIMIT_CORE is too small for a dump");
		return -1;
	}
	rl.rlim_cur = rl.rlim_max;
	pid = fork();
	if (pid == 0) {
		if (setrlimit(RLIMIT_CORE, &rl) < 0)
			_exit(98);
		if (chdir(dir) < 0)
			_exit(99);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		abort();
	}
	waitpid(pid, &st, 0);
	if (WIFEXITED(st)) {
		snprintf(why, n, "%s",
			 WEXITSTATUS(st) == 98 ? "cannot raise RLIMIT_CORE"
					       : "cannot enter the directory");
		return -1;
	}
	path_in(dir, "core", p, sizeof(p));
	if (access(p, F_OK) == 0) {
		unlink(p);
		return 1;
	}
	snprintf(why, n, "no core in %s (%s)", dir,
		 WCOREDUMP(st) ? "kernel reported a dump" : "no dump");
	return 0;
}

static void
a_core_outside(struct result *r)
{
	char why[200];
	int c;

	if (!need(r, "OUTSIDE"))
		return;
	c = core_dump_in(fx("OUTSIDE"), why, sizeof(why));
	if (c < 0)
		set(r, OUT_SKIPPED, "%s", why);
	else if (c > 0)
		set(r, OUT_ESCAPED, "a core dump was written into %s",
		    fx("OUTSIDE"));
	else
		set(r, OUT_BLOCKED, "%s", why);
}

static void
t_core_work(struct result *r)
{
	char why[200];
	int c;

	if (!need(r, "WORK"))
		return;
	c = core_dump_in(fx("WORK"), why, sizeof(why));
	if (c < 0)
		set(r, OUT_SKIPPED, "%s", why);
	else if (c > 0)
		set(r, OUT_OK, "a core dump lands in the project");
	else
		set(r, OUT_FAILED, "%s", why);
}

/* ---- /proc/sys and /sys ---- */

static void
a_proc_sys(struct result *r)
{
	attack_open_write(r, "/proc/sys/kernel/hostname", 0);
}

static void
t_proc_sys(struct result *r)
{
	twin_read(r, "/proc/sys/kernel/hostname");
}

static void
a_sysrq(struct result *r)
{
	attack_open_write(r, "/proc/sysrq-trigger", 0);
}

static void
t_proc_self(struct result *r)
{
	twin_read(r, "/proc/self/status");
}

static void
a_sysfs(struct result *r)
{
	static const char *const files[] = {
		"/sys/kernel/mm/transparent_hugepage/enabled",
		"/sys/kernel/uevent_helper",
		"/sys/power/state",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (access(files[i], F_OK) < 0 && errno == ENOENT)
			continue;
		attack_open_write(r, files[i], 0);
		return;
	}
	set(r, OUT_SKIPPED, "no candidate /sys file exists");
}

static void
t_sysfs(struct result *r)
{
	twin_read(r, "/sys/devices/system/cpu/online");
}

/* ---- Kernel surfaces ---- */

static void
t_getrandom(struct result *r)
{
	char b[8];

	if (syscall(SYS_getrandom, b, sizeof(b), 0) < 0)
		failed(r, "getrandom");
	else
		set(r, OUT_OK, "getrandom");
}

static void
a_keyctl(struct result *r)
{
	/* KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_USER_KEYRING (-4), which
	 * is shared with every process of the user. */
	long id = syscall(SYS_keyctl, 0, -4, 0);

	if (id < 0)
		blocked(r, "keyctl");
	else
		set(r, OUT_ESCAPED, "reached the user keyring (id %ld)", id);
}

static void
a_add_key(struct result *r)
{
	long id = syscall(SYS_add_key, "user", "llwrap-escape", "x", 1, -4);

	if (id < 0) {
		blocked(r, "add_key");
		return;
	}
	syscall(SYS_keyctl, 21 /* KEYCTL_INVALIDATE */, id);
	set(r, OUT_ESCAPED, "added a key to the user keyring (invalidated)");
}

static void
a_bpf(struct result *r)
{
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		blocked(r, "bpf");
	else {
		close((int)fd);
		set(r, OUT_ESCAPED, "bpf(BPF_MAP_CREATE) worked");
	}
}

static void
a_perf(struct result *r)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		blocked(r, "perf_event_open");
	else {
		close((int)fd);
		set(r, OUT_ESCAPED, "perf_event_open worked");
	}
}

static void
a_userfaultfd(struct result *r)
{
	long fd = syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* user only */);

	if (fd < 0)
		blocked(r, "userfaultfd");
	else {
		close((int)fd);
		set(r, OUT_ESCAPED, "userfaultfd worked");
	}
}

static void
a_io_uring(struct result *r, const char *op)
{
	unsigned char params[120]; /* struct io_uring_params */
	long fd;

	memset(params, 0, sizeof(params));
	fd = syscall(__NR_io_uring_setup, 1, params);
	if (fd < 0) {
		set(r, OUT_BLOCKED, "io_uring_setup: %s (no ring, no %s)",
		    ename(errno), op);
		return;
	}
	close((int)fd);
	set(r, OUT_ESCAPED,
	    "io_uring_setup worked: an %s submitted through "
	    "the ring would bypass seccomp",
	    op);
}

static void
a_iouring_openat(struct result *r)
{
	a_io_uring(r, "IORING_OP_OPENAT");
}

static void
a_iouring_socket(struct result *r)
{
	a_io_uring(r, "IORING_OP_SOCKET");
}

static void
a_iouring_connect(struct result *r)
{
	a_io_uring(r, "IORING_OP_CONNECT");
}

/* ---- Namespaces ---- */

static void
t_fork(struct result *r)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		failed(r, "fork");
	else
		set(r, OUT_OK, "fork");
}

static void
a_unshare_user(struct result *r)
{
	if (unshare(CLONE_NEWUSER) < 0)
		blocked(r, "unshare(CLONE_NEWUSER)");
	else
		set(r, OUT_ESCAPED, "made a new user namespace");
}

/* The whole attack: a new user and mount namespace, then a mount over
 * the work directory (a remount of the view is the same power). */
static void
a_clone_userns_mount(struct result *r)
{
	long pid = syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, 0,
			   0, 0, 0);
	int st;

	if (pid < 0) {
		blocked(r, "clone(CLONE_NEWUSER|CLONE_NEWNS)");
		return;
	}
	if (pid == 0) {
		const char *w = fx("WORK");

		_exit(w && mount("tmpfs", w, "tmpfs", 0, "size=64k") == 0 ? 0
									  : 1);
	}
	waitpid((pid_t)pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		set(r, OUT_ESCAPED,
		    "new user+mount namespace and a mount in it");
	else
		set(r, OUT_ESCAPED,
		    "made a user+mount namespace (the mount "
		    "itself failed)");
}

static void
a_clone3(struct result *r)
{
	unsigned long long args[11];
	long pid;

	memset(args, 0, sizeof(args));
	args[0] = CLONE_NEWUSER; /* flags */
	args[4] = SIGCHLD;	 /* exit_signal */
	pid = syscall(__NR_clone3, args, 88);
	if (pid < 0) {
		blocked(r, "clone3(CLONE_NEWUSER)");
		return;
	}
	if (pid == 0)
		_exit(0);
	waitpid((pid_t)pid, NULL, 0);
	set(r, OUT_ESCAPED, "clone3 made a new user namespace");
}

static void
a_mount(struct result *r)
{
	if (!need(r, "WORK"))
		return;
	if (mount("tmpfs", fx("WORK"), "tmpfs", 0, "size=64k") < 0) {
		blocked(r, "mount");
		return;
	}
	umount2(fx("WORK"), MNT_DETACH);
	set(r, OUT_ESCAPED, "mounted a tmpfs");
}

static void
a_setns(struct result *r)
{
	char p[64];
	pid_t pid;
	int fd;

	if (!host_pid(r, &pid))
		return;
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set(r, OUT_BLOCKED, "open %s: %s", p, ename(errno));
		return;
	}
	if (setns(fd, 0) < 0) {
		blocked(r, "setns");
		close(fd);
		return;
	}
	close(fd);
	set(r, OUT_ESCAPED, "joined the mount namespace of a host process");
}

static void
a_chroot(struct result *r)
{
	if (!need(r, "WORK"))
		return;
	if (chroot(fx("WORK")) < 0)
		blocked(r, "chroot");
	else
		set(r, OUT_ESCAPED, "chroot worked");
}

/* ---- IPC with host processes ---- */

static void
a_sysv_shm(struct result *r)
{
	void *p;

	if (!need(r, "SHM_ID"))
		return;
	p = shmat(atoi(fx("SHM_ID")), NULL, SHM_RDONLY);
	if (p == (void *)-1) {
		blocked(r, "shmat");
		return;
	}
	set(r, OUT_ESCAPED, "attached the host's SysV shared memory: '%.20s'",
	    (char *)p);
	shmdt(p);
}

static void
a_sysv_msg(struct result *r)
{
	struct {
		long type;
		char text[8];
	} m = { 1, "escape" };

	if (!need(r, "MSG_ID"))
		return;
	if (msgsnd(atoi(fx("MSG_ID")), &m, sizeof(m.text), IPC_NOWAIT) < 0)
		blocked(r, "msgsnd");
	else
		set(r, OUT_ESCAPED, "sent to the host's SysV message queue");
}

static void
a_posix_mq(struct result *r)
{
	mqd_t q;

	if (!need(r, "MQ_NAME"))
		return;
	q = mq_open(fx("MQ_NAME"), O_WRONLY | O_NONBLOCK);
	if (q == (mqd_t)-1) {
		blocked(r, "mq_open");
		return;
	}
	if (mq_send(q, "escape", 6, 0) < 0) {
		set(r, OUT_ESCAPED, "opened the host's POSIX queue (send: %s)",
		    ename(errno));
		mq_close(q);
		return;
	}
	mq_close(q);
	set(r, OUT_ESCAPED, "sent to the host's POSIX message queue %s",
	    fx("MQ_NAME"));
}

static void
t_pipe(struct result *r)
{
	char c = 0;
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0 || write(p[1], "x", 1) != 1 ||
	    read(p[0], &c, 1) != 1)
		failed(r, "pipe");
	else
		set(r, OUT_OK, "a pipe carries data");
	close(p[0]);
	close(p[1]);
}

static void
t_socketpair_stream(struct result *r)
{
	char c = 0;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		failed(r, "socketpair(AF_UNIX, SOCK_STREAM)");
		return;
	}
	if (write(sv[0], "x", 1) != 1 || read(sv[1], &c, 1) != 1)
		failed(r, "socketpair write/read");
	else
		set(r, OUT_OK, "socketpair(AF_UNIX, SOCK_STREAM) carries data");
	close(sv[0]);
	close(sv[1]);
}

static socklen_t
unix_addr(struct sockaddr_un *a, const char *name, bool abstract)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (abstract) {
		strncpy(a->sun_path + 1, name, sizeof(a->sun_path) - 2);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				   strlen(name));
	}
	strncpy(a->sun_path, name, sizeof(a->sun_path) - 1);
	return (socklen_t)sizeof(*a);
}

static void
a_dgram_pair_sendto(struct result *r)
{
	struct sockaddr_un a;
	socklen_t len;
	int sv[2];

	if (!need(r, "UNIX_DGRAM"))
		return;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		blocked(r, "socketpair(AF_UNIX, SOCK_DGRAM)");
		return;
	}
	len = unix_addr(&a, fx("UNIX_DGRAM"), false);
	if (sendto(sv[0], "x", 1, 0, (struct sockaddr *)&a, len) < 0) {
		set(r, OUT_BLOCKED, "socketpair made; sendto %s: %s",
		    fx("UNIX_DGRAM"), ename(errno));
	} else {
		set(r, OUT_ESCAPED, "sent a datagram to the host socket %s",
		    fx("UNIX_DGRAM"));
	}
	close(sv[0]);
	close(sv[1]);
}

static void
unix_attack(struct result *r, const char *key, int type, bool abstract)
{
	struct sockaddr_un a;
	socklen_t len;
	int fd;

	if (!need(r, key))
		return;
	fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		blocked(r, "socket(AF_UNIX)");
		return;
	}
	len = unix_addr(&a, fx(key), abstract);
	if ((type == SOCK_DGRAM
		     ? sendto(fd, "x", 1, 0, (struct sockaddr *)&a, len)
		     : connect(fd, (struct sockaddr *)&a, len)) < 0) {
		set(r, OUT_BLOCKED, "AF_UNIX socket made; %s %s%s: %s",
		    type == SOCK_DGRAM ? "sendto" : "connect",
		    abstract ? "@" : "", fx(key), ename(errno));
		close(fd);
		return;
	}
	close(fd);
	set(r, OUT_ESCAPED, "reached the host socket %s%s", abstract ? "@" : "",
	    fx(key));
}

static void
a_unix_path(struct result *r)
{
	unix_attack(r, "UNIX_PATH", SOCK_STREAM, false);
}

static void
a_unix_dgram(struct result *r)
{
	unix_attack(r, "UNIX_DGRAM", SOCK_DGRAM, false);
}

static void
a_abstract(struct result *r)
{
	unix_attack(r, "ABSTRACT", SOCK_STREAM, true);
}

/* ---- Network ---- */

static void
a_tcp_deny(struct result *r)
{
	tcp(r, "127.0.0.1", "TCP_DENY", true);
}

static void
a_tcp6_deny(struct result *r)
{
	tcp(r, "::1", "TCP6_DENY", true);
}

static void
a_tfo_sendto(struct result *r)
{
	int port = fx_port("TCP_DENY");

	if (!need(r, "TCP_DENY"))
		return;
	if (inet_connect(SOCK_STREAM, 0, "127.0.0.1", port, MSG_FASTOPEN) < 0)
		set(r, OUT_BLOCKED, "sendto(MSG_FASTOPEN) to 127.0.0.1:%d: %s",
		    port, ename(errno));
	else
		set(r, OUT_ESCAPED, "TCP Fast Open sendto reached 127.0.0.1:%d",
		    port);
}

static void
a_tfo_sendmsg(struct result *r)
{
	struct sockaddr_in a;
	struct iovec iov = { "x", 1 };
	struct msghdr m;
	int fd, port = fx_port("TCP_DENY");

	if (!need(r, "TCP_DENY"))
		return;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		blocked(r, "socket");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&m, 0, sizeof(m));
	m.msg_name = &a;
	m.msg_namelen = sizeof(a);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (sendmsg(fd, &m, MSG_FASTOPEN) < 0)
		set(r, OUT_BLOCKED, "sendmsg(MSG_FASTOPEN) to 127.0.0.1:%d: %s",
		    port, ename(errno));
	else
		set(r, OUT_ESCAPED,
		    "TCP Fast Open sendmsg reached 127.0.0.1:%d", port);
	close(fd);
}

static void
a_tfo_connect(struct result *r)
{
	struct sockaddr_in a;
	int one = 1, fd, port = fx_port("TCP_DENY");

	if (!need(r, "TCP_DENY"))
		return;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		blocked(r, "socket");
		return;
	}
	if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one,
		       sizeof(one)) < 0) {
		set(r, OUT_BLOCKED, "setsockopt TCP_FASTOPEN_CONNECT: %s",
		    ename(errno));
		close(fd);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write(fd, "x", 1) < 0)
		set(r, OUT_BLOCKED, "TCP_FASTOPEN_CONNECT to 127.0.0.1:%d: %s",
		    port, ename(errno));
	else
		set(r, OUT_ESCAPED, "TCP_FASTOPEN_CONNECT reached 127.0.0.1:%d",
		    port);
	close(fd);
}

static void
a_mptcp(struct result *r)
{
	int port = fx_port("TCP_DENY");

	if (inet_connect(SOCK_STREAM, IPPROTO_MPTCP, "127.0.0.1",
			 port ? port : 9, 0) < 0)
		set(r, OUT_BLOCKED, "MPTCP socket/connect: %s", ename(errno));
	else
		set(r, OUT_ESCAPED, "MPTCP connected to 127.0.0.1:%d", port);
}

static void
a_sctp(struct result *r)
{
	attack_socket(r, AF_INET, SOCK_STREAM, IPPROTO_SCTP);
}

static void
a_raw(struct result *r)
{
	attack_socket(r, AF_INET, SOCK_RAW, IPPROTO_ICMP);
}

static void
a_packet(struct result *r)
{
	attack_socket(r, AF_PACKET, SOCK_RAW, 0);
}

static void
a_netlink_diag(struct result *r)
{
	attack_socket(r, AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG);
}

static void
t_netlink_route(struct result *r)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		failed(r, "socket(AF_NETLINK, NETLINK_ROUTE)");
		return;
	}
	close(fd);
	set(r, OUT_OK, "NETLINK_ROUTE socket (getifaddrs)");
}

static void
a_vsock(struct result *r)
{
	attack_socket(r, AF_VSOCK, SOCK_STREAM, 0);
}

static void
a_bluetooth(struct result *r)
{
	attack_socket(r, 31 /* AF_BLUETOOTH */, SOCK_STREAM, 3);
}

static void
a_ping(struct result *r)
{
	if (inet_connect(SOCK_DGRAM, IPPROTO_ICMP, "127.0.0.1", 0, 0) < 0)
		set(r, OUT_BLOCKED, "ICMP ping socket: %s", ename(errno));
	else
		set(r, OUT_ESCAPED, "sent an ICMP echo through a ping socket");
}

/*
 * A routing header on a socket sends its packets to the header's first
 * hop, not the destination that connect(2) and the supervisor checked
 * (DESIGN.md §2, §16).  Two ways to set one without privilege: a type 4
 * segment routing header with IPV6_RTHDR, and a type 2 (Mobile IPv6)
 * header in a control-message buffer made sticky with
 * IPV6_2292PKTOPTIONS, which the kernel accepts only where
 * CONFIG_IPV6_MIP6 is built (Debian's kernels).  The first hop here is
 * ::1, so nothing leaves the machine even where the probe escapes: the
 * escape is a connect performed on a socket that carries the header.
 */
static void
rthdr(struct result *r, bool mip6)
{
	struct sockaddr_in6 a;
	socklen_t len;
	unsigned char hdr[40] = { 0 }, got[8];
	union {
		char buf[CMSG_SPACE(24)];
		struct cmsghdr align;
	} u;
	const char *how =
		mip6 ? "IPV6_2292PKTOPTIONS (type 2)" : "IPV6_RTHDR (type 4)";
	int fd, rc, port = fx_port("TCP_OK");

	if (!need(r, "TCP_OK"))
		return;
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		blocked(r, "socket(AF_INET6)");
		return;
	}
	if (mip6) {
		/* next header, length 2, type 2, one segment left, reserved,
		 * the home address ::1 */
		static const unsigned char rt2[24] = { 0, 2, 2, 1, [23] = 1 };

		memset(&u, 0, sizeof(u));
		u.align.cmsg_level = IPPROTO_IPV6;
		u.align.cmsg_type = 57 /* IPV6_RTHDR */;
		u.align.cmsg_len = CMSG_LEN(sizeof(rt2));
		memcpy(CMSG_DATA(&u.align), rt2, sizeof(rt2));
		rc = setsockopt(fd, IPPROTO_IPV6, 6 /* IPV6_2292PKTOPTIONS */,
				u.buf, sizeof(u.buf));
	} else {
		/* two segments, ::1 both: segments left 1, last entry 1 */
		hdr[1] = 4;
		hdr[2] = 4;
		hdr[3] = 1;
		hdr[4] = 1;
		hdr[23] = 1;
		hdr[39] = 1;
		rc = setsockopt(fd, IPPROTO_IPV6, 57 /* IPV6_RTHDR */, hdr,
				sizeof(hdr));
	}
	if (rc < 0) {
		int e = errno;

		if (e == EPERM)
			set(r, OUT_BLOCKED, "setsockopt %s: %s", how, ename(e));
		else
			set(r, OUT_SKIPPED,
			    "the kernel refuses the header itself: setsockopt "
			    "%s: %s%s",
			    how, ename(e),
			    mip6 && e == EINVAL ? " (no CONFIG_IPV6_MIP6)"
						: "");
		close(fd);
		return;
	}
	len = sizeof(got);
	if (getsockopt(fd, IPPROTO_IPV6, 57 /* IPV6_RTHDR */, got, &len) < 0 ||
	    len == 0) {
		set(r, OUT_SKIPPED,
		    "setsockopt %s took, but no header is on "
		    "the socket",
		    how);
		close(fd);
		return;
	}
	/* The allowed destination: [::1]:TCP_OK (the twins' listener is on
	 * 127.0.0.1, so the kernel refuses the connection itself; what
	 * matters is that the connect was performed). */
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_addr = in6addr_loopback;
	a.sin6_port = htons((uint16_t)port);
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ? errno : 0;
	if (rc == EPERM || rc == EACCES)
		set(r, OUT_BLOCKED,
		    "header set with %s; connect [::1]:%d refused: %s", how,
		    port, ename(rc));
	else
		set(r, OUT_ESCAPED,
		    "a socket with a routing header (%s) was connected to "
		    "[::1]:%d (%s): its packets go to the header's first hop",
		    how, port, rc ? ename(rc) : "at once");
	close(fd);
}

static void
a_rthdr_srh(struct result *r)
{
	rthdr(r, false);
}

static void
a_rthdr_mip6(struct result *r)
{
	rthdr(r, true);
}

/* The IPv6 options the design reviewed, on a socket that then reaches
 * the allowed listener (through an IPv4-mapped address). */
static void
t_ipv6_options(struct result *r)
{
	struct sockaddr_in6 a;
	int fd, tc = 0x10, hops = 64, port = fx_port("TCP_OK");

	if (port == 0) {
		set(r, OUT_SKIPPED, "the fixture has no TCP_OK");
		return;
	}
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tc, sizeof(tc)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops,
		       sizeof(hops)) < 0) {
		failed(r, "setsockopt IPV6_TCLASS, IPV6_UNICAST_HOPS");
		if (fd >= 0)
			close(fd);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons((uint16_t)port);
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		failed(r, "connect [::ffff:127.0.0.1]");
	else
		set(r, OUT_OK, "traffic class and hop limit set, connected");
	close(fd);
}

/*
 * True (and r set blocked) when the sandbox has a network namespace of
 * its own (net = none): then 127.0.0.1 and ::1 are its own loopback, and
 * a send or bind there reaches nothing of the host's.  The host side
 * wrote its namespace as NETNS.
 */
static bool
own_netns(struct result *r)
{
	char ns[64];
	ssize_t n;

	if (fx("NETNS") == NULL)
		return false;
	n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
	if (n <= 0)
		return false;
	ns[n] = '\0';
	if (strcmp(ns, fx("NETNS")) == 0)
		return false;
	set(r, OUT_BLOCKED,
	    "a network namespace of its own (%s, the host's is %s): its "
	    "loopback is not the host's",
	    ns, fx("NETNS"));
	return true;
}

/* A TCP socket bound to addr:port (reuseport: SO_REUSEPORT set first),
 * listening; -1 with errno, *step the call that failed. */
static int
tcp_listen_at(const char *addr, int port, bool reuseport, const char **step)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, e;

	memset(&ss, 0, sizeof(ss));
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, addr, &s6->sin6_addr);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, addr, &s4->sin_addr);
		len = sizeof(*s4);
	}
	*step = "socket";
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	*step = "setsockopt SO_REUSEPORT";
	if (reuseport &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto fail;
	*step = "bind";
	if (bind(fd, (struct sockaddr *)&ss, len) < 0)
		goto fail;
	*step = "listen";
	if (listen(fd, 8) < 0)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* Join a host service's SO_REUSEPORT group: the kernel then hands the
 * sandbox a share of the host's clients (DESIGN.md §16). */
static void
a_reuseport_join(struct result *r)
{
	const char *step;
	int fd, port = fx_port("REUSE_PORT");

	if (!need(r, "REUSE_PORT") || own_netns(r))
		return;
	fd = tcp_listen_at("127.0.0.1", port, true, &step);
	if (fd < 0) {
		set(r, OUT_BLOCKED, "%s 127.0.0.1:%d with SO_REUSEPORT: %s",
		    step, port, ename(errno));
		return;
	}
	set(r, OUT_ESCAPED,
	    "joined the host's SO_REUSEPORT group on 127.0.0.1:%d: it gets a "
	    "share of the host's clients",
	    port);
	close(fd);
}

/* A listener on the other loopback family, or the wildcard, beside a
 * host service on one: the clients that try that address first for
 * "localhost" reach the sandbox. */
static void
squat(struct result *r, const char *addr, const char *key)
{
	const char *step;
	int fd, port = fx_port(key);

	if (!need(r, key) || own_netns(r))
		return;
	fd = tcp_listen_at(addr, port, false, &step);
	if (fd < 0) {
		set(r, OUT_BLOCKED, "%s %s port %d: %s", step, addr, port,
		    ename(errno));
		return;
	}
	set(r, OUT_ESCAPED,
	    "listening on %s port %d beside the host's service there", addr,
	    port);
	close(fd);
}

static void
a_family_squat(struct result *r)
{
	/* The host's TCP_OK listener is on 127.0.0.1 alone. */
	squat(r, "::1", "TCP_OK");
}

static void
a_wildcard_squat(struct result *r)
{
	/* The host's TCP6_DENY listener is on [::1] alone. */
	squat(r, "0.0.0.0", "TCP6_DENY");
}

/*
 * A listener on a fixed port no rule publishes, and the host's client
 * (host_connector) trying it, as a browser or a database client would:
 * the escape is that the host reaches it (DESIGN.md §16).
 */
static void
a_unpublished(struct result *r)
{
	char req[1024], res[1024], buf[128] = "";
	const char *step;
	int fd, rfd, port = fx_port("TCP_FREE");
	ssize_t n;

	if (!need(r, "TCP_FREE") || !need(r, "WORK") || own_netns(r))
		return;
	fd = tcp_listen_at("127.0.0.1", port, false, &step);
	if (fd < 0) {
		set(r, OUT_BLOCKED, "%s 127.0.0.1:%d: %s", step, port,
		    ename(errno));
		return;
	}
	snprintf(req, sizeof(req), "%s/.llw-connect", fx("WORK"));
	snprintf(res, sizeof(res), "%s/.llw-connect-result", fx("WORK"));
	unlink(res);
	snprintf(buf, sizeof(buf), "%d\n", port);
	if (create_file(req, buf) < 0) {
		set(r, OUT_SKIPPED, "cannot ask the host's client: %s",
		    ename(errno));
		close(fd);
		return;
	}
	for (int i = 0; i < 200 && (rfd = open(res, O_RDONLY | O_CLOEXEC)) < 0;
	     i++)
		usleep(50000);
	close(fd);
	if (rfd < 0) {
		set(r, OUT_SKIPPED, "the host's client did not answer");
		return;
	}
	n = read(rfd, buf, sizeof(buf) - 1);
	close(rfd);
	unlink(res);
	buf[n > 0 ? n : 0] = '\0';
	if (strcmp(buf, "connected") == 0)
		set(r, OUT_ESCAPED,
		    "a host client reached the sandbox's listener on "
		    "127.0.0.1:%d, a port no rule publishes",
		    port);
	else
		set(r, OUT_BLOCKED,
		    "listening on 127.0.0.1:%d; the host's client: %s", port,
		    buf);
}

/*
 * This host's own address (not loopback), where a service of the host's
 * listens, on a port the policy's port rules name: this host is local,
 * reached only through allow-cidr (DESIGN.md §16).
 */
static void
a_own_address(struct result *r)
{
	int port = fx_port("OWN_PORT");

	if (fx("OWN_ADDR") == NULL) {
		set(r, OUT_SKIPPED,
		    "this host has no address outside loopback");
		return;
	}
	if (own_netns(r))
		return;
	if (inet_connect(SOCK_STREAM, 0, fx("OWN_ADDR"), port, 0) < 0)
		set(r, OUT_BLOCKED, "connect %s:%d: %s", fx("OWN_ADDR"), port,
		    ename(errno));
	else
		set(r, OUT_ESCAPED, "a port rule reached this host's own %s:%d",
		    fx("OWN_ADDR"), port);
}

/* ---- A shared front end: the name a connection carries (§6.1) ---- */

static size_t
put16(uint8_t *buf, size_t at, size_t v)
{
	buf[at] = (uint8_t)(v >> 8);
	buf[at + 1] = (uint8_t)v;
	return at + 2;
}

/* A TLS 1.2 ClientHello naming name (at most 253 bytes of it) into buf
 * (320 bytes); its length. */
static size_t
tls_hello(const char *name, uint8_t *buf)
{
	/* After the random: no session id, two ECDHE-RSA suites, no
	 * compression. */
	static const uint8_t suites[] = { 0x00, 0x00, 0x04, 0xc0, 0x2f,
					  0x00, 0x9c, 0x01, 0x00 };
	/* After the server name: supported_groups (P-256) and
	 * signature_algorithms (rsa_pkcs1_sha256). */
	static const uint8_t tail[] = {
		0x00, 0x0a, 0x00, 0x04, 0x00, 0x02, 0x00, 0x17,
		0x00, 0x0d, 0x00, 0x04, 0x00, 0x02, 0x04, 0x01,
	};
	size_t n = strnlen(name, 253), len, ext;

	len = put16(buf, 9, 0x0303); /* TLS 1.2 */
	memset(buf + len, 0x5a, 32); /* the random */
	len += 32;
	memcpy(buf + len, suites, sizeof(suites));
	len += sizeof(suites);
	ext = len;
	len = put16(buf, ext + 2, 0); /* server_name */
	len = put16(buf, len, n + 5);
	len = put16(buf, len, n + 3);
	buf[len++] = 0; /* host_name */
	len = put16(buf, len, n);
	memcpy(buf + len, name, n);
	len += n;
	memcpy(buf + len, tail, sizeof(tail));
	len += sizeof(tail);
	put16(buf, ext, len - ext - 2);
	/* The record's header (handshake), the handshake's (client_hello). */
	buf[0] = 0x16;
	put16(buf, 1, 0x0301);
	put16(buf, 3, len - 5);
	buf[5] = 0x01;
	buf[6] = 0;
	put16(buf, 7, len - 9);
	return len;
}

/*
 * The address SHARED_HOST resolves to (a lookup through the sandbox's
 * resolver: the address is learned), port SHARED_PORT, and a
 * ClientHello naming name: whether the server there answers it.  The
 * fixture (tests/escape/run.sh) serves every name on that address, as a
 * CDN's front end does.
 */
static void
shared_hello(struct result *r, const char *name, bool attack)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM },
			*ai;
	struct timeval tv = { .tv_sec = 10 };
	char addr[INET_ADDRSTRLEN] = "?";
	uint8_t hello[320], got[5];
	int port = fx_port("SHARED_PORT"), fd, rc;
	const enum outcome no = attack ? OUT_BLOCKED : OUT_FAILED;
	ssize_t n;

	if ((rc = getaddrinfo(fx("SHARED_HOST"), NULL, &hints, &ai)) != 0) {
		/* The allowed name must resolve: otherwise nothing is
		 * shown of the check. */
		set(r, OUT_FAILED, "lookup %s: %s", fx("SHARED_HOST"),
		    gai_strerror(rc));
		return;
	}
	((struct sockaddr_in *)ai->ai_addr)->sin_port = htons((uint16_t)port);
	inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, addr,
		  sizeof(addr));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		set(r, no, "connect %s:%d (%s's address): %s", addr, port,
		    fx("SHARED_HOST"), ename(errno));
		freeaddrinfo(ai);
		if (fd >= 0)
			close(fd);
		return;
	}
	freeaddrinfo(ai);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, hello, tls_hello(name, hello), MSG_NOSIGNAL) < 0)
		n = -1;
	else
		n = recv(fd, got, sizeof(got), 0);
	if (n > 0 && (got[0] == 0x15 || got[0] == 0x16))
		set(r, attack ? OUT_ESCAPED : OUT_OK,
		    "%s:%d (%s's address) answered a ClientHello naming %s "
		    "(TLS record type %u)",
		    addr, port, fx("SHARED_HOST"), name, got[0]);
	else if (n < 0)
		set(r, no,
		    "a ClientHello naming %s to %s:%d (%s's address): %s", name,
		    addr, port, fx("SHARED_HOST"), ename(errno));
	else
		set(r, no,
		    "a ClientHello naming %s to %s:%d (%s's address): %s", name,
		    addr, port, fx("SHARED_HOST"),
		    n == 0 ? "closed without an answer" : "not TLS");
	close(fd);
}

/* The supervisor notes a refusal the relay reports on the stderr of the
 * process refused, after the reset it saw: a command that lives on (an
 * agent) gets it; this one waits for it, up to 5 s, where stderr is a
 * file whose growth shows it. */
static void
await_note(void)
{
	struct stat st;
	off_t size;

	if (fstat(STDERR_FILENO, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	size = st.st_size;
	for (int i = 0; i < 100; i++) {
		usleep(50000);
		if (fstat(STDERR_FILENO, &st) < 0 || st.st_size != size)
			return;
	}
}

static void
a_shared_address(struct result *r)
{
	if (!need(r, "SHARED_HOST") || !need(r, "SHARED_OTHER") ||
	    !need(r, "SHARED_PORT"))
		return;
	shared_hello(r, fx("SHARED_OTHER"), true);
	if (r->kind == OUT_BLOCKED)
		await_note();
}

static void
t_shared_address(struct result *r)
{
	if (need(r, "SHARED_HOST") && need(r, "SHARED_PORT"))
		shared_hello(r, fx("SHARED_HOST"), false);
}

/* The sandbox's own server on an ephemeral port, and its own client:
 * where a port rule alone decides (no supervisor), the listener. */
static void
t_own_server(struct result *r)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	const char *step;
	int fd = tcp_listen_at("127.0.0.1", 0, false, &step), c;

	if (fd < 0) {
		failed(r, step);
		return;
	}
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		failed(r, "getsockname");
		close(fd);
		return;
	}
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c >= 0 && connect(c, (struct sockaddr *)&a, sizeof(a)) == 0)
		set(r, OUT_OK, "its own client reached its server on port %d",
		    ntohs(a.sin_port));
	else if (errno == EACCES)
		set(r, OUT_OK,
		    "listening on port %d (its own client is a port rule's "
		    "to allow here)",
		    ntohs(a.sin_port));
	else
		failed(r, "connect to its own server");
	if (c >= 0)
		close(c);
	close(fd);
}

static void
udp(struct result *r, const char *addr)
{
	int port = fx_port("UDP_PORT");

	if (!need(r, "UDP_PORT") || own_netns(r))
		return;
	if (inet_connect(SOCK_DGRAM, 0, addr, port, 0) < 0)
		set(r, OUT_BLOCKED, "UDP sendto %s:%d: %s", addr, port,
		    ename(errno));
	else
		set(r, OUT_ESCAPED, "sent UDP to %s:%d", addr, port);
}

static void
a_udp(struct result *r)
{
	udp(r, "127.0.0.1");
}

static void
a_udp6(struct result *r)
{
	udp(r, "::1");
}

/* A server on every address serves the network: the escape is landing
 * on the wildcard, not binding (a refusal, or loopback instead, blocks). */
static void
a_bind_any(struct result *r)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd, port = fx_port("TCP_FREE");

	if (!need(r, "TCP_FREE") || own_netns(r))
		return;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		blocked(r, "socket");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0)
		set(r, OUT_BLOCKED, "bind 0.0.0.0:%d: %s", port, ename(errno));
	else if (getsockname(fd, (struct sockaddr *)&a, &len) == 0 &&
		 a.sin_addr.s_addr != htonl(INADDR_ANY))
		set(r, OUT_BLOCKED, "bind 0.0.0.0:%d landed on loopback only",
		    port);
	else
		set(r, OUT_ESCAPED, "listening on 0.0.0.0:%d", port);
	close(fd);
}

static void
t_bind_ephemeral(struct result *r)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 1) < 0)
		failed(r, "bind 127.0.0.1:0");
	else
		set(r, OUT_OK, "bound and listened on an ephemeral port");
	if (fd >= 0)
		close(fd);
}

/* ---- Shell ---- */

/* Run a shell snippet; its status 0 means the action worked. */
static int
shell(const char *sh, const char *script)
{
	int st;
	pid_t pid;

	if (access(sh, X_OK) < 0)
		return -2;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0)
			dup2(null, 2);
		execl(sh, sh, "-c", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
bash_dev_tcp(struct result *r, const char *key, bool attack)
{
	char script[128];
	int rc;

	if (!need(r, key))
		return;
	snprintf(script, sizeof(script), "exec 3<>/dev/tcp/127.0.0.1/%d",
		 fx_port(key));
	rc = shell("/bin/bash", script);
	if (rc == -2)
		set(r, OUT_SKIPPED, "/bin/bash is not installed");
	else if (rc == 0)
		set(r, attack ? OUT_ESCAPED : OUT_OK,
		    "bash /dev/tcp/127.0.0.1/%d connected", fx_port(key));
	else
		set(r, attack ? OUT_BLOCKED : OUT_FAILED,
		    "bash /dev/tcp/127.0.0.1/%d: status %d", fx_port(key), rc);
}

static void
a_bash_dev_tcp(struct result *r)
{
	bash_dev_tcp(r, "TCP_DENY", true);
}

static void
t_bash_dev_tcp(struct result *r)
{
	bash_dev_tcp(r, "TCP_OK", false);
}

static void
a_sh_bashrc(struct result *r)
{
	char script[600];
	int rc;

	if (!need(r, "BASHRC"))
		return;
	/* ">>" with nothing echoed: the redirection alone is the test. */
	snprintf(script, sizeof(script), ": >> '%s'", fx("BASHRC"));
	rc = shell("/bin/sh", script);
	if (rc == 0)
		set(r, OUT_ESCAPED, "sh opened ~/.bashrc for appending");
	else
		set(r, OUT_BLOCKED, "sh ': >> ~/.bashrc': status %d", rc);
}

static void
t_sh_work(struct result *r)
{
	char script[600];
	int rc;

	if (!need(r, "WORK"))
		return;
	snprintf(script, sizeof(script), "echo ok > '%s/sh-out'", fx("WORK"));
	rc = shell("/bin/sh", script);
	if (rc == 0)
		set(r, OUT_OK, "sh wrote a project file");
	else
		set(r, OUT_FAILED, "sh: status %d", rc);
}

/* ---- Processes outside ---- */

static void
a_ptrace(struct result *r)
{
	pid_t pid;

	if (!host_pid(r, &pid))
		return;
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0) {
		blocked(r, "PTRACE_ATTACH");
		return;
	}
	waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	set(r, OUT_ESCAPED, "attached to host pid %d", (int)pid);
}

static void
t_ptrace(struct result *r)
{
	pid_t pid = own_child();

	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0) {
		failed(r, "PTRACE_ATTACH own child");
	} else {
		waitpid(pid, NULL, __WALL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		set(r, OUT_OK, "traced its own child");
	}
	reap(pid);
}

static void
vm_read(struct result *r, pid_t pid, bool attack)
{
	static char target[8] = "secret";
	char buf[8];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote = { target, sizeof(target) };

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0) {
		int e = errno;

		set(r, attack ? OUT_BLOCKED : OUT_FAILED,
		    "process_vm_readv %d: %s", (int)pid, ename(e));
		return;
	}
	set(r, attack ? OUT_ESCAPED : OUT_OK, "read the memory of pid %d",
	    (int)pid);
}

static void
a_vm_readv(struct result *r)
{
	pid_t pid;

	if (host_pid(r, &pid))
		vm_read(r, pid, true);
}

static void
t_vm_readv(struct result *r)
{
	pid_t pid = own_child();

	vm_read(r, pid, false);
	reap(pid);
}

static void
a_kill(struct result *r)
{
	pid_t pid;

	if (!host_pid(r, &pid))
		return;
	/* SIGCONT: a real signal that harms nothing. */
	if (kill(pid, SIGCONT) < 0)
		blocked(r, "kill SIGCONT");
	else
		set(r, OUT_ESCAPED, "signalled host pid %d", (int)pid);
}

static void
t_kill(struct result *r)
{
	pid_t pid = own_child();

	if (kill(pid, SIGTERM) < 0)
		failed(r, "kill own child");
	else
		set(r, OUT_OK, "signalled its own child");
	reap(pid);
}

/*
 * Calls on another process by pid that need only the same user, not
 * ptrace access (issue 23): a lowered RLIMIT_CPU makes the kernel kill
 * the target, a lowered hard limit cannot be raised back.  Each probe
 * sets what the target has already (read first), so an escape changes
 * nothing.
 */
static int
same_limit(pid_t pid)
{
	struct rlimit rl;

	if (prlimit(pid, RLIMIT_CORE, NULL, &rl) < 0)
		return -1;
	return prlimit(pid, RLIMIT_CORE, &rl, NULL);
}

static int
same_priority(pid_t pid)
{
	int prio;

	errno = 0;
	prio = getpriority(PRIO_PROCESS, (id_t)pid);
	if (prio == -1 && errno != 0)
		return -1;
	return setpriority(PRIO_PROCESS, (id_t)pid, prio);
}

static int
same_affinity(pid_t pid)
{
	cpu_set_t set;

	if (sched_getaffinity(pid, sizeof(set), &set) < 0)
		return -1;
	return sched_setaffinity(pid, sizeof(set), &set);
}

static void
pid_call(struct result *r, int (*fn)(pid_t), const char *what, bool host)
{
	pid_t pid;
	int status;

	if (host) {
		if (!host_pid(r, &pid))
			return;
		if (fn(pid) < 0)
			blocked(r, what);
		else
			set(r, OUT_ESCAPED, "%s of host pid %d", what,
			    (int)pid);
		return;
	}
	/* As nice(1), prlimit(1) and taskset(1) start a command: the child
	 * sets its own (pid 0), then would exec.  Another pid of the
	 * sandbox's is allowed only where a pid namespace or the supervisor
	 * decides (tests/integration/hostside.sh). */
	pid = fork();
	if (pid == 0)
		_exit(fn(0) < 0 ? 1 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		failed(r, what);
	else
		set(r, OUT_OK, "%s of itself (pid 0), as nice(1) does", what);
}

static void
a_prlimit(struct result *r)
{
	pid_call(r, same_limit, "prlimit", true);
}

static void
t_prlimit(struct result *r)
{
	pid_call(r, same_limit, "prlimit", false);
}

static void
a_renice(struct result *r)
{
	pid_call(r, same_priority, "setpriority", true);
}

static void
t_renice(struct result *r)
{
	pid_call(r, same_priority, "setpriority", false);
}

static void
a_affinity(struct result *r)
{
	pid_call(r, same_affinity, "sched_setaffinity", true);
}

static void
t_affinity(struct result *r)
{
	pid_call(r, same_affinity, "sched_setaffinity", false);
}

static void
a_pidfd_signal(struct result *r)
{
	pid_t pid;
	int fd;

	if (!host_pid(r, &pid))
		return;
	fd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (fd < 0) {
		blocked(r, "pidfd_open");
		return;
	}
	if (syscall(__NR_pidfd_send_signal, fd, SIGCONT, NULL, 0) < 0)
		set(r, OUT_BLOCKED, "pidfd_open works; pidfd_send_signal: %s",
		    ename(errno));
	else
		set(r, OUT_ESCAPED, "pidfd_send_signal to host pid %d",
		    (int)pid);
	close(fd);
}

static void
t_pidfd_signal(struct result *r)
{
	pid_t pid = own_child();
	int fd = (int)syscall(__NR_pidfd_open, pid, 0);

	if (fd < 0 || syscall(__NR_pidfd_send_signal, fd, SIGTERM, NULL, 0) < 0)
		failed(r, "pidfd_send_signal own child");
	else
		set(r, OUT_OK, "pidfd_send_signal to its own child");
	if (fd >= 0)
		close(fd);
	reap(pid);
}

static void
a_pidfd_getfd(struct result *r)
{
	pid_t pid;
	int fd, got;

	if (!host_pid(r, &pid))
		return;
	fd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (fd < 0) {
		blocked(r, "pidfd_open");
		return;
	}
	got = (int)syscall(__NR_pidfd_getfd, fd, 0, 0);
	if (got < 0)
		set(r, OUT_BLOCKED, "pidfd_getfd: %s", ename(errno));
	else {
		close(got);
		set(r, OUT_ESCAPED, "took fd 0 of host pid %d", (int)pid);
	}
	close(fd);
}

static void
proc_file(struct result *r, const char *file)
{
	char p[128];
	pid_t pid;

	if (!host_pid(r, &pid))
		return;
	snprintf(p, sizeof(p), "/proc/%d/%s", (int)pid, file);
	if (strcmp(file, "mem") == 0) {
		int fd = open(p, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			blocked(r, p);
		else {
			close(fd);
			set(r, OUT_ESCAPED, "opened %s", p);
		}
		return;
	}
	attack_read(r, p);
}

static void
a_proc_cmdline(struct result *r)
{
	proc_file(r, "cmdline");
}

static void
t_proc_self_cmdline(struct result *r)
{
	twin_read(r, "/proc/self/cmdline");
}

static void
a_proc_environ(struct result *r)
{
	proc_file(r, "environ");
}

static void
t_proc_self_environ(struct result *r)
{
	twin_read(r, "/proc/self/environ");
}

static void
a_proc_mem(struct result *r)
{
	proc_file(r, "mem");
}

static void
a_proc_pid_root(struct result *r)
{
	char p[600];
	pid_t pid;

	if (!host_pid(r, &pid) || !need(r, "SECRET"))
		return;
	snprintf(p, sizeof(p), "/proc/%d/root%s", (int)pid, fx("SECRET"));
	attack_read(r, p);
}

static void
a_proc_pid_fd(struct result *r)
{
	char p[64], target[256];
	ssize_t n;
	pid_t pid;

	if (!host_pid(r, &pid))
		return;
	/* Listing the numbers needs no permission; following one needs
	 * ptrace access, which is the escape. */
	snprintf(p, sizeof(p), "/proc/%d/fd/0", (int)pid);
	n = readlink(p, target, sizeof(target) - 1);
	if (n < 0) {
		blocked(r, p);
		return;
	}
	target[n] = '\0';
	set(r, OUT_ESCAPED, "%s -> %s", p, target);
}

/* ---- Terminal ---- */

/* The terminal side of a new pseudo-terminal; its master stays open in
 * *master (the probe's own terminal, not the user's). */
static int
own_pty(int *master)
{
	int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC), s;
	char name[64];

	*master = m;
	if (m < 0)
		return -1;
	if (grantpt(m) < 0 || unlockpt(m) < 0 ||
	    ptsname_r(m, name, sizeof(name)) != 0)
		return -1;
	s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	return s;
}

static void
a_tiocsti(struct result *r)
{
	char c = ' ';
	int m, fd = own_pty(&m);

	if (fd < 0) {
		set(r, OUT_SKIPPED, "no pseudo-terminal: %s", ename(errno));
		return;
	}
	if (ioctl(fd, TIOCSTI, &c) < 0)
		blocked(r, "ioctl TIOCSTI");
	else
		set(r, OUT_ESCAPED, "TIOCSTI pushed input into a terminal");
	close(fd);
	close(m);
}

static void
a_tioclinux(struct result *r)
{
	char sub = TIOCL_GETSHIFTSTATE;
	int m, fd = own_pty(&m);

	if (fd < 0) {
		set(r, OUT_SKIPPED, "no pseudo-terminal: %s", ename(errno));
		return;
	}
	if (ioctl(fd, TIOCLINUX, &sub) < 0) {
		int e = errno;

		set(r, OUT_BLOCKED, "ioctl TIOCLINUX: %s%s", ename(e),
		    e == EPERM ? "" : " (refused by the kernel, not a VT)");
	} else {
		set(r, OUT_ESCAPED, "TIOCLINUX went through");
	}
	close(fd);
	close(m);
}

/* Open another terminal of the user's by name (read its keystrokes,
 * write into it).  A terminal of the same number in the sandbox's own
 * devpts instance is another device: compared by the instance. */
static void
a_other_pts(struct result *r)
{
	struct stat st;
	int fd;

	if (!need(r, "PTS") || !need(r, "PTS_DEV"))
		return;
	fd = open(fx("PTS"), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		blocked(r, fx("PTS"));
		return;
	}
	if (fstat(fd, &st) == 0 &&
	    (unsigned long)st.st_dev != strtoul(fx("PTS_DEV"), NULL, 10))
		set(r, OUT_BLOCKED,
		    "%s opened, but it is the sandbox's own devpts "
		    "instance, not the user's terminal",
		    fx("PTS"));
	else
		set(r, OUT_ESCAPED, "opened the user's terminal %s", fx("PTS"));
	close(fd);
}

static void
t_tty(struct result *r)
{
	struct winsize ws;
	int m, fd = own_pty(&m);

	if (fd < 0) {
		failed(r, "open a pseudo-terminal");
		return;
	}
	if (ioctl(fd, TIOCGWINSZ, &ws) < 0)
		failed(r, "ioctl TIOCGWINSZ");
	else
		set(r, OUT_OK, "TIOCGWINSZ on its own terminal");
	close(fd);
	close(m);
}

/* ---- Other syscall tables ---- */

static void
a_i386(struct result *r)
{
#if defined(__x86_64__)
	long ret = I386_NR_GETPID;

	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	if (ret < 0)
		set(r, OUT_BLOCKED, "int 0x80 getpid: %s", ename((int)-ret));
	else
		set(r, OUT_ESCAPED, "int 0x80 getpid returned %ld", ret);
#else
	set(r, OUT_SKIPPED, "not x86_64");
#endif
}

static void
t_getpid(struct result *r)
{
	if (syscall(SYS_getpid) > 0)
		set(r, OUT_OK, "native getpid");
	else
		failed(r, "getpid");
}

static void
a_x32(struct result *r)
{
#if defined(__x86_64__)
	long ret = syscall(X86_64_NR_GETPID | X32_SYSCALL_BIT);

	if (ret < 0)
		blocked(r, "x32 getpid");
	else
		set(r, OUT_ESCAPED, "x32 getpid returned %ld", ret);
#else
	set(r, OUT_SKIPPED, "not x86_64");
#endif
}

/* ---- What the process starts with ---- */

static void
a_inherited_fds(struct result *r)
{
	if (n_inherited == 0) {
		set(r, OUT_BLOCKED, "no descriptor above 2 was inherited");
		return;
	}
	set(r, OUT_ESCAPED, "%d inherited descriptor(s), fd %d -> %.200s",
	    n_inherited, inherited[0], inherited_target);
}

static void
t_stdio(struct result *r)
{
	struct stat st;

	if (fstat(1, &st) < 0)
		failed(r, "fstat(1)");
	else
		set(r, OUT_OK, "standard output is open");
}

static void
a_env_secrets(struct result *r)
{
	static const char *const names[] = {
		"SSH_AUTH_SOCK",
		"AWS_SECRET_ACCESS_KEY",
		"AWS_ACCESS_KEY_ID",
		"GITHUB_TOKEN",
		"DBUS_SESSION_BUS_ADDRESS",
		"LLW_DECOY_TOKEN",
	};
	char found[300] = "";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (getenv(names[i]) != NULL) {
			strncat(found, " ", sizeof(found) - strlen(found) - 1);
			strncat(found, names[i],
				sizeof(found) - strlen(found) - 1);
		}
	if (found[0] == '\0')
		set(r, OUT_BLOCKED, "none of %zu secret variables is set",
		    sizeof(names) / sizeof(names[0]));
	else
		set(r, OUT_ESCAPED, "set:%s", found);
}

static void
t_env_home(struct result *r)
{
	if (getenv("HOME") && getenv("PATH"))
		set(r, OUT_OK, "HOME and PATH are set");
	else
		set(r, OUT_FAILED, "HOME or PATH is missing");
}

static void
a_real_ssh(struct result *r)
{
	static const char *const keys[] = { "id_ed25519", "id_rsa", "id_ecdsa",
					    "id_dsa" };
	int tried = 0;

	if (!need(r, "REAL_SSH"))
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char p[512];
		struct stat st;
		int fd;

		path_in(fx("REAL_SSH"), keys[i], p, sizeof(p));
		if (stat(p, &st) < 0 && errno == ENOENT)
			continue;
		tried++;
		/* Open and close: nothing is read. */
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			set(r, OUT_ESCAPED, "%s could be opened (nothing read)",
			    p);
			return;
		}
	}
	/* REAL_SSH_KEYS: how many llwrap saw there from outside. */
	if (tried == 0 && fx("REAL_SSH_KEYS") != NULL &&
	    atoi(fx("REAL_SSH_KEYS")) > 0)
		set(r, OUT_BLOCKED, "%s real key(s) in %s: not even visible",
		    fx("REAL_SSH_KEYS"), fx("REAL_SSH"));
	else if (tried == 0)
		set(r, OUT_SKIPPED, "no private key in %s", fx("REAL_SSH"));
	else
		set(r, OUT_BLOCKED, "%d real key(s) in %s: open refused", tried,
		    fx("REAL_SSH"));
}

static const struct probe {
	const char *id;
	const char *what;
	void (*attack)(struct result *);
	void (*twin)(struct result *);
	int kill_signal; /* a death by this signal means blocked */
} probes[] = {
	{ "fs.ssh-read", "read ~/.ssh/id_*", a_ssh_read, t_project_read, 0 },
	{ "fs.aws-read", "read ~/.aws/credentials", a_aws_read, t_project_read,
	  0 },
	{ "fs.other-project", "read another project", a_other_project,
	  t_project_read, 0 },
	{ "fs.ssh-list", "list ~/.ssh", a_ssh_list, t_work_list, 0 },
	{ "fs.secret-stat", "stat() a secret (size, times)", a_secret_stat,
	  t_work_stat, 0 },
	{ "fs.bashrc-write", "open ~/.bashrc for appending", a_bashrc, t_append,
	  0 },
	{ "fs.outside-create", "create a file outside writable roots",
	  a_outside_create, t_create, 0 },
	{ "fs.host-tmp", "read a file in the host's /tmp", a_host_tmp,
	  t_own_tmp, 0 },
	{ "fs.inotify", "inotify watch on a directory it cannot read",
	  a_inotify, t_inotify, 0 },
	{ "fs.fanotify", "fanotify mark on a directory it cannot read",
	  a_fanotify, t_inotify, 0 },
	{ "fs.host-shm", "read a file in the host's /dev/shm", a_host_shm,
	  t_own_shm, 0 },
	{ "fs.host-vartmp", "read a file in the host's /var/tmp", a_host_vartmp,
	  t_own_tmp, 0 },
	{ "fs.symlink", "symlink in the project to a secret", a_symlink,
	  t_symlink, 0 },
	{ "fs.hardlink", "hard link a secret into the project", a_hardlink,
	  t_hardlink, 0 },
	{ "fs.dotdot", "PROJECT/../.. path to a secret", a_dotdot, t_dotdot,
	  0 },
	{ "fs.proc-self-root", "/proc/self/root/... to a secret", a_proc_root,
	  t_proc_root, 0 },
	{ "fs.proc-self-cwd", "/proc/self/cwd/../.. to a secret", a_proc_cwd,
	  t_proc_cwd, 0 },
	{ "fs.openat2", "openat2 with RESOLVE_* flags to a secret", a_openat2,
	  t_openat2, 0 },
	{ "fs.rename-out", "rename a project file into ~/.ssh and back",
	  a_rename_out, t_rename, 0 },
	{ "fs.rename-in", "rename a secret into the project", a_rename_in,
	  t_rename, 0 },
	{ "fs.opath-reopen",
	  "O_PATH fd of a secret reopened via "
	  "/proc/self/fd",
	  a_opath, t_opath, 0 },
	{ "fs.handle", "name_to_handle_at + open_by_handle_at", a_handle,
	  t_handle, 0 },
	{ "fs.chmod-outside", "chmod a file outside writable roots", a_chmod,
	  t_chmod, 0 },
	{ "fs.chown-outside", "chown a file outside writable roots", a_chown,
	  t_chown, 0 },
	{ "fs.utime-outside", "set times of a file outside writable roots",
	  a_utime, t_utime, 0 },
	{ "fs.xattr-outside", "set an xattr outside writable roots", a_xattr,
	  t_xattr, 0 },
	{ "fs.truncate-outside", "truncate a file outside writable roots",
	  a_truncate, t_truncate, 0 },
	{ "fs.unlink-outside", "remove a file outside writable roots", a_unlink,
	  t_unlink, 0 },
	{ "fs.mkfifo-outside", "make a fifo outside writable roots", a_mkfifo,
	  t_mkfifo, 0 },
	{ "fs.config-edit", "open a profile llwrap read for writing", a_config,
	  t_append, 0 },
	{ "git.hooks", "create a file in the project's .git/hooks", a_git_hooks,
	  t_create, 0 },
	{ "git.config", "open the project's .git/config for writing",
	  a_git_config, t_git_config, 0 },
	{ "git.rename", "rename the project's .git away (to replace it)",
	  a_git_rename, t_git_write, 0 },
	{ "git.commondir", "create .git/commondir (git reads config there)",
	  a_git_commondir, t_git_write, 0 },
	{ "git.hooks-outside", "drop a git hook in a repository outside",
	  a_git_outside, t_create, 0 },
	{ "git.gitlink",
	  "register a nested repository in the index (git "
	  "status runs its fsmonitor)",
	  a_git_gitlink, t_create, 0 },
	{ "proj.later-file",
	  "create the project's .mcp.json (an agent runs it)", a_later_file,
	  t_create, 0 },
	{ "proj.vscode", "drop a task in the project's .vscode/", a_vscode,
	  t_create, 0 },
	{ "exec.memfd", "exec a memfd copy to shed the sandbox", a_memfd,
	  t_exec, 0 },
	{ "exec.execveat", "execveat(AT_EMPTY_PATH) a non-executable file",
	  a_execveat, t_execveat, 0 },
	{ "exec.personality", "personality(READ_IMPLIES_EXEC)", a_personality,
	  t_personality, 0 },
	{ "prctl.nnp-clear", "clear no_new_privs", a_nnp_clear, t_prctl_name,
	  0 },
	{ "prctl.cap-ambient", "raise an ambient capability", a_cap_ambient,
	  t_capbset, 0 },
	{ "prctl.set-mm", "PR_SET_MM rewrite of the mm", a_set_mm, t_dumpable,
	  0 },
	{ "prctl.seccomp-listener", "seccomp user-notification listener",
	  a_seccomp_listener, t_seccomp_nested, 0 },
	{ "core.pattern", "open core_pattern for writing", a_core_pattern,
	  t_core_pattern, 0 },
	{ "core.dump-outside", "core dump into a directory outside",
	  a_core_outside, t_core_work, 0 },
	{ "sys.proc-sys", "open /proc/sys/kernel/hostname for writing",
	  a_proc_sys, t_proc_sys, 0 },
	{ "sys.sysrq", "open /proc/sysrq-trigger for writing", a_sysrq,
	  t_proc_self, 0 },
	{ "sys.sysfs", "open a /sys attribute for writing", a_sysfs, t_sysfs,
	  0 },
	{ "kern.keyctl", "reach the user keyring (keyctl)", a_keyctl,
	  t_getrandom, 0 },
	{ "kern.add-key", "add a key to the user keyring", a_add_key,
	  t_getrandom, 0 },
	{ "kern.bpf", "bpf(BPF_MAP_CREATE)", a_bpf, t_getrandom, 0 },
	{ "kern.perf", "perf_event_open", a_perf, t_getrandom, 0 },
	{ "kern.userfaultfd", "userfaultfd", a_userfaultfd, t_getrandom, 0 },
	{ "iouring.openat", "io_uring openat", a_iouring_openat, t_pipe, 0 },
	{ "iouring.socket", "io_uring socket", a_iouring_socket, t_pipe, 0 },
	{ "iouring.connect", "io_uring connect", a_iouring_connect, t_pipe, 0 },
	{ "ns.userns", "unshare(CLONE_NEWUSER)", a_unshare_user, t_fork, 0 },
	{ "ns.userns-mount", "clone a user+mount namespace and mount",
	  a_clone_userns_mount, t_fork, 0 },
	{ "ns.clone3", "clone3(CLONE_NEWUSER)", a_clone3, t_fork, 0 },
	{ "ns.mount", "mount a tmpfs", a_mount, t_fork, 0 },
	{ "ns.setns", "setns into a host process's mount namespace", a_setns,
	  t_fork, 0 },
	{ "ns.chroot", "chroot", a_chroot, t_fork, 0 },
	{ "ipc.sysv-shm", "attach a host SysV shared memory segment",
	  a_sysv_shm, t_pipe, 0 },
	{ "ipc.sysv-msg", "send to a host SysV message queue", a_sysv_msg,
	  t_pipe, 0 },
	{ "ipc.posix-mq", "send to a host POSIX message queue", a_posix_mq,
	  t_pipe, 0 },
	{ "ipc.unix-path", "connect to a host pathname unix socket",
	  a_unix_path, t_socketpair_stream, 0 },
	{ "ipc.unix-dgram", "sendto a host unix datagram socket", a_unix_dgram,
	  t_socketpair_stream, 0 },
	{ "ipc.dgram-pair-sendto",
	  "socketpair(AF_UNIX, SOCK_DGRAM) + sendto a host socket",
	  a_dgram_pair_sendto, t_socketpair_stream, 0 },
	{ "ipc.abstract", "connect to a host abstract unix socket", a_abstract,
	  t_socketpair_stream, 0 },
	{ "net.tcp-deny", "TCP to a port not allowed", a_tcp_deny, twin_tcp_ok,
	  0 },
	{ "net.tcp6-deny", "TCP over IPv6 to a port not allowed", a_tcp6_deny,
	  twin_tcp_ok, 0 },
	{ "net.tfo-sendto",
	  "TCP Fast Open sendto(MSG_FASTOPEN), port not "
	  "allowed",
	  a_tfo_sendto, twin_tcp_ok, 0 },
	{ "net.tfo-sendmsg",
	  "TCP Fast Open sendmsg(MSG_FASTOPEN), port not "
	  "allowed",
	  a_tfo_sendmsg, twin_tcp_ok, 0 },
	{ "net.tfo-connect", "TCP_FASTOPEN_CONNECT, port not allowed",
	  a_tfo_connect, twin_tcp_ok, 0 },
	{ "net.mptcp", "MPTCP to a port not allowed", a_mptcp, twin_tcp_ok, 0 },
	{ "net.sctp", "SCTP socket", a_sctp, twin_tcp_ok, 0 },
	{ "net.raw", "raw IP socket", a_raw, twin_tcp_ok, 0 },
	{ "net.packet", "AF_PACKET socket", a_packet, twin_tcp_ok, 0 },
	{ "net.netlink-diag", "NETLINK_SOCK_DIAG (host socket table)",
	  a_netlink_diag, t_netlink_route, 0 },
	{ "net.vsock", "AF_VSOCK socket", a_vsock, twin_tcp_ok, 0 },
	{ "net.bluetooth", "AF_BLUETOOTH socket", a_bluetooth, twin_tcp_ok, 0 },
	{ "net.icmp-ping", "ICMP ping socket", a_ping, twin_tcp_ok, 0 },
	{ "net.rthdr-srh",
	  "IPv6 type 4 routing header (IPV6_RTHDR), then connect an "
	  "allowed address",
	  a_rthdr_srh, t_ipv6_options, 0 },
	{ "net.rthdr-mip6",
	  "IPv6 type 2 routing header (IPV6_2292PKTOPTIONS), then connect "
	  "an allowed address",
	  a_rthdr_mip6, t_ipv6_options, 0 },
	{ "net.udp", "UDP to a host/port not allowed", a_udp, twin_tcp_ok, 0 },
	{ "net.udp6", "UDP over IPv6 to a host/port not allowed", a_udp6,
	  twin_tcp_ok, 0 },
	{ "net.bind-any", "listen on every address (serve the network)",
	  a_bind_any, t_bind_ephemeral, 0 },
	{ "net.reuseport-join",
	  "join a host service's SO_REUSEPORT group (get its clients)",
	  a_reuseport_join, t_own_server, 0 },
	{ "net.family-squat",
	  "listen on [::1] at the port of a host service on 127.0.0.1",
	  a_family_squat, t_own_server, 0 },
	{ "net.wildcard-squat",
	  "listen on 0.0.0.0 at the port of a host service on [::1]",
	  a_wildcard_squat, t_own_server, 0 },
	{ "net.own-address",
	  "a host service on this host's own address, by a port rule",
	  a_own_address, twin_tcp_ok, 0 },
	{ "net.shared-address",
	  "another server name on an allowed name's address (a shared "
	  "front end)",
	  a_shared_address, t_shared_address, 0 },
	{ "net.unpublished",
	  "a listener on a port no rule publishes, reached by a host client",
	  a_unpublished, t_own_server, 0 },
	{ "sh.dev-tcp", "bash /dev/tcp to a port not allowed", a_bash_dev_tcp,
	  t_bash_dev_tcp, 0 },
	{ "sh.bashrc", "sh redirection appending to ~/.bashrc", a_sh_bashrc,
	  t_sh_work, 0 },
	{ "proc.ptrace", "ptrace a host process", a_ptrace, t_ptrace, 0 },
	{ "proc.vm-readv", "process_vm_readv a host process", a_vm_readv,
	  t_vm_readv, 0 },
	{ "proc.kill", "signal a host process", a_kill, t_kill, 0 },
	{ "proc.pidfd-signal", "pidfd_send_signal to a host process",
	  a_pidfd_signal, t_pidfd_signal, 0 },
	{ "proc.prlimit", "set a resource limit of a host process", a_prlimit,
	  t_prlimit, 0 },
	{ "proc.renice", "set the priority of a host process", a_renice,
	  t_renice, 0 },
	{ "proc.affinity", "set the CPU affinity of a host process", a_affinity,
	  t_affinity, 0 },
	{ "proc.pidfd-getfd", "pidfd_getfd from a host process", a_pidfd_getfd,
	  t_pipe, 0 },
	{ "proc.cmdline", "read /proc/PID/cmdline of a host process",
	  a_proc_cmdline, t_proc_self_cmdline, 0 },
	{ "proc.environ", "read /proc/PID/environ of a host process",
	  a_proc_environ, t_proc_self_environ, 0 },
	{ "proc.mem", "open /proc/PID/mem of a host process", a_proc_mem,
	  t_proc_self, 0 },
	{ "proc.root", "/proc/PID/root of a host process to a secret",
	  a_proc_pid_root, t_proc_root, 0 },
	{ "proc.fd", "follow /proc/PID/fd/0 of a host process", a_proc_pid_fd,
	  t_proc_self, 0 },
	{ "tty.tiocsti", "TIOCSTI into a terminal", a_tiocsti, t_tty, 0 },
	{ "tty.tioclinux", "TIOCLINUX on a terminal", a_tioclinux, t_tty, 0 },
	{ "tty.other-pts", "open another terminal of the user's (/dev/pts/N)",
	  a_other_pts, t_tty, 0 },
	{ "abi.i386", "i386 int 0x80 syscall", a_i386, t_getpid, SIGSYS },
	{ "abi.x32", "x32 syscall", a_x32, t_getpid, SIGSYS },
	{ "fd.inherited", "a descriptor leaked from the parent",
	  a_inherited_fds, t_stdio, 0 },
	{ "env.secrets", "secrets in the environment", a_env_secrets,
	  t_env_home, 0 },
	{ "real.ssh-open", "open (not read) the user's real ~/.ssh keys",
	  a_real_ssh, t_project_read, 0 },
};

#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

/* The probes of the project's repository and files (GIT, DOTFILES):
 * --selftest runs them in a decoy repository (run's REPO key), never in
 * the user's own project. */
static bool
repo_probe(const char *id)
{
	static const char *const ids[] = {
		"git.hooks",	 "git.config",	"git.rename",
		"git.commondir", "git.gitlink", "proj.later-file",
		"proj.vscode",
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

static const char *
outcome_word(enum outcome k, bool twin)
{
	switch (k) {
	case OUT_BLOCKED:
		return "BLOCKED";
	case OUT_ESCAPED:
		return "ESCAPED";
	case OUT_SKIPPED:
		return twin ? "TWIN-SKIPPED" : "SKIPPED";
	case OUT_OK:
		return "TWIN-OK";
	case OUT_FAILED:
		return "TWIN-FAILED";
	default:
		return "SKIPPED";
	}
}

/* Run fn in a child with a time limit, so a crash or a SIGSYS kill ends
 * only that child; the result comes back through a pipe. */
static void
run_isolated(void (*fn)(struct result *), int kill_signal, bool twin,
	     struct result *r)
{
	int p[2], st;
	pid_t pid;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	if (pipe2(p, O_CLOEXEC) < 0) {
		set(r, OUT_SKIPPED, "pipe: %s", ename(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		set(r, OUT_SKIPPED, "fork: %s", ename(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		alarm(PROBE_TIMEOUT);
		fn(r);
		if (write(p[1], r, sizeof(*r)) < 0)
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], r, sizeof(*r));
	close(p[0]);
	waitpid(pid, &st, 0);
	if (n == (ssize_t)sizeof(*r) && r->kind != OUT_NONE)
		return;
	if (WIFSIGNALED(st) && kill_signal && WTERMSIG(st) == kill_signal)
		set(r, OUT_BLOCKED, "killed by SIG%s",
		    sigabbrev_np(kill_signal));
	else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		set(r, twin ? OUT_FAILED : OUT_SKIPPED, "timed out after %d s",
		    PROBE_TIMEOUT);
	else if (WIFSIGNALED(st) && !twin && WTERMSIG(st) == SIGSEGV &&
		 kill_signal == SIGSYS)
		set(r, OUT_BLOCKED,
		    "killed by SIGSEGV (the kernel has no "
		    "such syscall table)");
	else
		set(r, twin ? OUT_FAILED : OUT_SKIPPED,
		    "the probe died (status %#x)", st);
}

static void
print_result(const char *id, const struct result *r, bool twin)
{
	char detail[sizeof(r->detail)];

	/* One line each: no newlines in details. */
	snprintf(detail, sizeof(detail), "%s", r->detail);
	for (char *c = detail; *c != '\0'; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	printf("%s %s %s\n", outcome_word(r->kind, twin), id, detail);
	fflush(stdout);
}

static int
run_probe(const struct probe *p)
{
	struct result r;

	run_isolated(p->attack, p->kill_signal, false, &r);
	print_result(p->id, &r, false);
	run_isolated(p->twin, 0, true, &r);
	print_result(p->id, &r, true);
	return 0;
}

/* ---- The host side ---- */

static pid_t host_children[16];
static int n_host_children;

static void
host_child(pid_t pid)
{
	if (pid > 0 && n_host_children < 16)
		host_children[n_host_children++] = pid;
}

/* A listener that accepts (or receives) and discards, forever. */
static int
listener_opts(int family, int type, const char *path, const char *abstract,
	      int *port, bool reuseport)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = socket(family, type | SOCK_CLOEXEC, 0), one = 1;
	pid_t pid;

	if (fd < 0)
		return -1;
	memset(&ss, 0, sizeof(ss));
	if (family == AF_UNIX) {
		len = unix_addr((struct sockaddr_un *)&ss,
				path ? path : abstract, path == NULL);
	} else if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*s4);
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (reuseport)
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if (family != AF_UNIX && type == SOCK_STREAM)
		setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 64) < 0)) {
		close(fd);
		return -1;
	}
	if (port) {
		len = sizeof(ss);
		getsockname(fd, (struct sockaddr *)&ss, &len);
		*port = ntohs(family == AF_INET6
				      ? ((struct sockaddr_in6 *)&ss)->sin6_port
				      : ((struct sockaddr_in *)&ss)->sin_port);
	}
	pid = fork();
	if (pid == 0) {
		char buf[256];

		for (;;) {
			if (type == SOCK_STREAM) {
				int c = accept(fd, NULL, NULL);

				if (c >= 0)
					close(c);
			} else if (recv(fd, buf, sizeof(buf), 0) < 0) {
				pause();
			}
		}
	}
	close(fd);
	host_child(pid);
	return pid < 0 ? -1 : 0;
}

/* A listener that accepts (or receives) and discards, forever. */
static int
listener(int family, int type, const char *path, const char *abstract,
	 int *port)
{
	return listener_opts(family, type, path, abstract, port, false);
}

/*
 * The host's client, for probes of listeners the sandbox makes: it
 * watches the work directory for a file ".llw-connect" naming a port,
 * connects to 127.0.0.1 there as any program of the user's would, and
 * writes what happened to ".llw-connect-result" ("connected", "no
 * answer in 3 s", or the error), until the host side ends.
 */
static void
host_connector(const char *work)
{
	char req[1024], res[1024], tmp[1040];
	pid_t pid;

	snprintf(req, sizeof(req), "%s/.llw-connect", work);
	snprintf(res, sizeof(res), "%s/.llw-connect-result", work);
	snprintf(tmp, sizeof(tmp), "%s.tmp", res);
	pid = fork();
	if (pid != 0) {
		host_child(pid);
		return;
	}
	for (;;) {
		char buf[32] = "";
		struct sockaddr_in a = { .sin_family = AF_INET };
		struct pollfd p;
		const char *what;
		int fd = open(req, O_RDONLY | O_CLOEXEC), e = 0, s;
		socklen_t el = sizeof(e);
		ssize_t n;

		if (fd < 0) {
			usleep(50000);
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		unlink(req);
		buf[n > 0 ? n : 0] = '\0';
		a.sin_port = htons((uint16_t)atoi(buf));
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			   0);
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0) {
			what = "connected";
		} else if (errno != EINPROGRESS) {
			what = strerror(errno);
		} else {
			p = (struct pollfd){ .fd = s, .events = POLLOUT };
			if (poll(&p, 1, 3000) == 0)
				what = "no answer in 3 s";
			else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &el) ==
					 0 &&
				 e == 0)
				what = "connected";
			else
				what = strerror(e ? e : errno);
		}
		close(s);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			if (write(fd, what, strlen(what)) < 0)
				_exit(1);
			close(fd);
			rename(tmp, res);
		}
	}
}

/* A TCP listener of the host's on addr (IPv4), accepting and closing. */
static int
own_listener(const char *addr, int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	pid_t pid;

	if (fd < 0 || inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	pid = fork();
	if (pid == 0)
		for (;;) {
			int c = accept(fd, NULL, NULL);

			if (c >= 0)
				close(c);
		}
	close(fd);
	host_child(pid);
	return pid < 0 ? -1 : 0;
}

static int
free_tcp_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return 0;
	getsockname(fd, (struct sockaddr *)&a, &len);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static void
mkdirs(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(buf, 0755);
			*s = '/';
		}
	mkdir(buf, 0755);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void
rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The host side.  dir is a fresh directory of the caller's; project, when
 * given, gets the work directory for the twins.  Prints KEY=VALUE lines
 * and READY, then waits for its standard input to close and removes all
 * of it.
 */
static int
host(const char *dir, const char *project)
{
	char p[1024], work[1024] = "",
		      tmpfile[] = "/tmp/llwrap-escape-host.XXXXXX",
		      shmfile[] = "/dev/shm/llwrap-escape-host.XXXXXX",
		      vartmpfile[] = "/var/tmp/llwrap-escape-host.XXXXXX";
	char mq[64], abstract[64];
	int port, ok_port = 0, shm = -1, msg = -1, fd;
	pid_t victim;

	signal(SIGPIPE, SIG_IGN);
	snprintf(p, sizeof(p), "%s/home/.ssh", dir);
	mkdirs(p);
	printf("SECRET_DIR=%s\n", p);
	snprintf(p, sizeof(p), "%s/home/.ssh/id_ed25519", dir);
	create_file(p, "-----BEGIN OPENSSH PRIVATE KEY----- llwrap decoy\n");
	chmod(p, 0600);
	printf("SECRET=%s\n", p);
	snprintf(p, sizeof(p), "%s/home/.aws", dir);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/home/.aws/credentials", dir);
	create_file(p, "[default]\naws_secret_access_key = llwrap-decoy\n");
	printf("AWS=%s\n", p);
	snprintf(p, sizeof(p), "%s/home/.bashrc", dir);
	create_file(p, "# decoy bashrc\n");
	printf("BASHRC=%s\n", p);
	snprintf(p, sizeof(p), "%s/other", dir);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/other/notes.txt", dir);
	create_file(p, "another project\n");
	printf("OTHER=%s\n", p);
	snprintf(p, sizeof(p), "%s/outside/repo/.git/hooks", dir);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/outside/file", dir);
	create_file(p, "outside\n");
	printf("OUTSIDE=%s/outside\n", dir);

	fd = mkstemp(tmpfile);
	if (fd >= 0) {
		if (write(fd, "host tmp\n", 9) < 0)
			fprintf(stderr, "llwrap-escape: write: %s\n",
				strerror(errno));
		fchmod(fd, 0644);
		close(fd);
		printf("HOST_TMP=%s\n", tmpfile);
	}
	fd = mkstemp(shmfile);
	if (fd >= 0) {
		if (write(fd, "host shm\n", 9) < 0)
			fprintf(stderr, "llwrap-escape: write: %s\n",
				strerror(errno));
		fchmod(fd, 0644);
		close(fd);
		printf("HOST_SHM=%s\n", shmfile);
	} else {
		shmfile[0] = '\0';
	}
	fd = mkstemp(vartmpfile);
	if (fd >= 0) {
		if (write(fd, "host var\n", 9) < 0)
			fprintf(stderr, "llwrap-escape: write: %s\n",
				strerror(errno));
		fchmod(fd, 0644);
		close(fd);
		printf("HOST_VARTMP=%s\n", vartmpfile);
	} else {
		vartmpfile[0] = '\0';
	}
	if (project) {
		snprintf(work, sizeof(work), "%s/.llwrap-escape.XXXXXX",
			 project);
		if (mkdtemp(work) != NULL)
			printf("WORK=%s\n", work);
		else
			work[0] = '\0';
	}

	/* A decoy repository, for --selftest's probes of a project's git
	 * metadata and later-run files (REPO=only), which must not touch
	 * the user's own project. */
	{
		char repo[900];
		char *init[] = { "git", "init", "-q", repo, NULL };
		char *commit[] = { "git",
				   "-C",
				   repo,
				   "-c",
				   "user.name=llwrap",
				   "-c",
				   "user.email=llwrap@selftest.invalid",
				   "commit",
				   "-q",
				   "--allow-empty",
				   "-m",
				   "decoy",
				   NULL };

		snprintf(repo, sizeof(repo), "%s/repo", dir);
		if (run_quiet(init) == 0 && run_quiet(commit) == 0) {
			snprintf(p, sizeof(p), "%s/.git/hooks", repo);
			mkdirs(p);
			snprintf(p, sizeof(p), "%s/.vscode", repo);
			mkdirs(p);
			printf("DECOY_REPO=%s\n", repo);
		}
	}
	if (listener(AF_INET, SOCK_STREAM, NULL, NULL, &ok_port) == 0)
		printf("TCP_OK=%d\n", ok_port);
	if (listener(AF_INET, SOCK_STREAM, NULL, NULL, &port) == 0)
		printf("TCP_DENY=%d\n", port);
	/* An IPv6 listener may get the IPv4 one's number, and port rules
	 * know no family: the twin's allowed port would let the attack
	 * through.  The first listener stays open, so the next differs. */
	for (int i = 0; i < 4; i++) {
		if (listener(AF_INET6, SOCK_STREAM, NULL, NULL, &port) < 0)
			break;
		if (port != ok_port) {
			printf("TCP6_DENY=%d\n", port);
			break;
		}
	}
	if (listener(AF_INET, SOCK_DGRAM, NULL, NULL, &port) == 0)
		printf("UDP_PORT=%d\n", port);
	/* A host service in a SO_REUSEPORT group, which any socket of the
	 * same user with that flag may join. */
	if (listener_opts(AF_INET, SOCK_STREAM, NULL, NULL, &port, true) == 0)
		printf("REUSE_PORT=%d\n", port);
	if (work[0] != '\0')
		host_connector(work);
	printf("TCP_FREE=%d\n", free_tcp_port());
	/* A service of this host on its own address (not loopback), which
	 * port rules under the supervisor do not reach (DESIGN.md §16). */
	{
		struct ifaddrs *ifa = NULL;
		char own[INET_ADDRSTRLEN] = "";

		if (getifaddrs(&ifa) == 0) {
			for (struct ifaddrs *i = ifa; i != NULL && !own[0];
			     i = i->ifa_next) {
				const struct sockaddr_in *a =
					(const struct sockaddr_in *)i->ifa_addr;

				if (a != NULL && a->sin_family == AF_INET &&
				    (ntohl(a->sin_addr.s_addr) >> 24) != 127)
					inet_ntop(AF_INET, &a->sin_addr, own,
						  sizeof(own));
			}
			freeifaddrs(ifa);
		}
		if (own[0] != '\0' && own_listener(own, &port) == 0) {
			printf("OWN_ADDR=%s\n", own);
			printf("OWN_PORT=%d\n", port);
		}
	}
	{
		char ns[64];
		ssize_t n = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);

		if (n > 0)
			printf("NETNS=%.*s\n", (int)n, ns);
	}
	snprintf(p, sizeof(p), "%s/host.sock", dir);
	if (listener(AF_UNIX, SOCK_STREAM, p, NULL, NULL) == 0)
		printf("UNIX_PATH=%s\n", p);
	snprintf(p, sizeof(p), "%s/host.dgram", dir);
	if (listener(AF_UNIX, SOCK_DGRAM, p, NULL, NULL) == 0)
		printf("UNIX_DGRAM=%s\n", p);
	snprintf(abstract, sizeof(abstract), "llwrap-escape-%d", (int)getpid());
	if (listener(AF_UNIX, SOCK_STREAM, NULL, abstract, NULL) == 0)
		printf("ABSTRACT=%s\n", abstract);

	victim = fork();
	if (victim == 0) {
		prctl(PR_SET_NAME, "llw-host-victim", 0, 0, 0);
		for (;;)
			pause();
	}
	host_child(victim);
	printf("HOST_PID=%d\n", (int)victim);

	shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (shm >= 0) {
		char *m = shmat(shm, NULL, 0);

		if (m != (void *)-1) {
			strcpy(m, "host shared secret");
			shmdt(m);
		}
		printf("SHM_ID=%d\n", shm);
	}
	msg = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (msg >= 0)
		printf("MSG_ID=%d\n", msg);
	snprintf(mq, sizeof(mq), "/llwrap-escape-%d", (int)getpid());
	{
		struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 64 };
		mqd_t q = mq_open(mq, O_CREAT | O_RDWR, 0600, &attr);

		if (q != (mqd_t)-1) {
			mq_close(q);
			printf("MQ_NAME=%s\n", mq);
		} else {
			mq[0] = '\0';
		}
	}
	/* A terminal of the user's (a pseudo-terminal kept open here): the
	 * sandbox must not reach it by name. */
	{
		int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
		char name[64];
		struct stat st;

		if (m >= 0 && unlockpt(m) == 0 &&
		    ptsname_r(m, name, sizeof(name)) == 0 &&
		    stat(name, &st) == 0)
			printf("PTS=%s\nPTS_DEV=%lu\n", name,
			       (unsigned long)st.st_dev);
		/* m stays open until this process exits. */
	}
	printf("READY\n");
	fflush(stdout);

	/* Wait for the caller to close our standard input. */
	{
		char buf[64];

		while (read(0, buf, sizeof(buf)) > 0)
			;
	}
	for (int i = 0; i < n_host_children; i++) {
		kill(host_children[i], SIGKILL);
		waitpid(host_children[i], NULL, 0);
	}
	if (shm >= 0)
		shmctl(shm, IPC_RMID, NULL);
	if (msg >= 0)
		msgctl(msg, IPC_RMID, NULL);
	if (mq[0] != '\0')
		mq_unlink(mq);
	unlink(tmpfile);
	if (shmfile[0] != '\0')
		unlink(shmfile);
	if (vartmpfile[0] != '\0')
		unlink(vartmpfile);
	if (work[0] != '\0')
		rm_rf(work);
	rm_rf(dir);
	return 0;
}

static void
record_inherited(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd < 3 || fd == dirfd(d))
			continue;
		if (n_inherited == 0) {
			char p[64];
			ssize_t n;

			snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
			n = readlink(p, inherited_target,
				     sizeof(inherited_target) - 1);
			inherited_target[n > 0 ? n : 0] = '\0';
		}
		if (n_inherited < 16)
			inherited[n_inherited++] = fd;
	}
	closedir(d);
}

static int
usage(void)
{
	fprintf(stderr, "usage: llwrap-escape host DIR [PROJECT]\n"
			"       llwrap-escape run KEY=VALUE...\n"
			"       llwrap-escape single ID KEY=VALUE...\n"
			"       llwrap-escape list\n");
	return 2;
}

int
main(int argc, char **argv)
{
	/* Before anything opens a descriptor of its own. */
	record_inherited();
	/* The probes' own inherited descriptors would confuse fd.inherited
	 * in the children: close them now that they are recorded. */
	for (int i = 0; i < n_inherited; i++)
		close(inherited[i]);

	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "list") == 0) {
		for (size_t i = 0; i < N_PROBES; i++)
			printf("%s\t%s\n", probes[i].id, probes[i].what);
		return 0;
	}
	if (strcmp(argv[1], "host") == 0) {
		if (argc < 3 || argc > 4)
			return usage();
		return host(argv[2], argc == 4 ? argv[3] : NULL);
	}
	if (strcmp(argv[1], "run") == 0) {
		const char *repo;

		fx_v = argv + 2;
		fx_n = argc - 2;
		/* REPO=only: the probes of the project's repository alone;
		 * REPO=skip: all the others. */
		repo = fx("REPO");
		for (size_t i = 0; i < N_PROBES; i++)
			if (repo == NULL || (strcmp(repo, "only") == 0) ==
						    repo_probe(probes[i].id))
				run_probe(&probes[i]);
		return 0;
	}
	if (strcmp(argv[1], "single") == 0 && argc >= 3) {
		fx_v = argv + 3;
		fx_n = argc - 3;
		for (size_t i = 0; i < N_PROBES; i++)
			if (strcmp(probes[i].id, argv[2]) == 0)
				return run_probe(&probes[i]);
		fprintf(stderr, "llwrap-escape: no probe %s\n", argv[2]);
		return 2;
	}
	return usage();
}
