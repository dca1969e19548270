/*
 * The network supervisor's call plumbing (supervise-int.h): what every handler
 * needs of the caller it answers.  Its memory (process_vm_readv, or
 * /proc/PID/mem), its pidfd and the descriptor it named (pidfd_getfd,
 * or a socket of the supervisor's in its place), paths as it sees
 * them (its root and cwd, openat2 RESOLVE_IN_ROOT), whether its
 * notification is still pending, and the queue of calls answered later.
 * Also the calls that name a process by pid: decided here and let
 * continue in the caller (CALL_CONTINUE), the pid being a register.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "mono.h"
#include "refusal.h"
#include "supervise-int.h"
#include "xalloc.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int
svcall_write_all(int fd, const void *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) /* never 0 for len > 0, but a loop must end */
			return -EIO;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The supervisor's connect of the caller's socket.  That socket's file is
 * the caller's too, so its O_NONBLOCK is the caller's to clear at any
 * moment (review of 2026-11-27, F2: a thread of the sandbox cleared it
 * between the supervisor's F_SETFL and its connect, which then waited on
 * a full unix backlog, and every mediated call of the sandbox with it).
 * So the connect is bounded in time by a timer whose signal interrupts
 * it (no SA_RESTART): EINTR is then what a non-blocking connect would
 * have said (svaddr.c maps it).  A signal of its own, outside those the
 * monitor's loop takes (monitor.c).  Where the timer cannot be made (a
 * process out of timers: RLIMIT_SIGPENDING), the connect is as before,
 * bounded only by the file's flag.
 */
#define SV_CONNECT_SIGNAL   (SIGRTMIN + 3)
#define SV_CONNECT_BOUND_NS (20 * 1000 * 1000)

static void
on_connect_bound(int sig)
{
	(void)sig;
}

int
svcall_connect(int sock, const struct sockaddr *sa, socklen_t len)
{
	static timer_t timer;
	static int ready; /* 0: not set up yet, 1: set up, -1: cannot be */
	struct itimerspec arm = { .it_value.tv_nsec = SV_CONNECT_BOUND_NS },
			  off = { 0 };
	int r, e;

	if (ready == 0) {
		struct sigaction act = { .sa_handler = on_connect_bound };
		struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
				       .sigev_signo = SV_CONNECT_SIGNAL };
		sigset_t set;

		sigemptyset(&act.sa_mask);
		sigemptyset(&set);
		sigaddset(&set, SV_CONNECT_SIGNAL);
		ready = sigaction(SV_CONNECT_SIGNAL, &act, NULL) == 0 &&
					sigprocmask(SIG_UNBLOCK, &set, NULL) ==
						0 &&
					timer_create(CLOCK_MONOTONIC, &ev,
						     &timer) == 0
				? 1
				: -1;
	}
	if (ready > 0)
		timer_settime(timer, 0, &arm, NULL);
	r = connect(sock, sa, len);
	e = errno;
	if (ready > 0)
		timer_settime(timer, 0, &off, NULL);
	errno = e;
	return r;
}

void
svcall_done(struct call *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->sock >= 0)
		close(c->sock);
	for (size_t i = 0; i < c->n_fds; i++)
		close(c->fds[i]);
	free(c->fds);
}

/*
 * How the supervisor reaches the caller's memory, chosen once at the
 * hand-over (svcall_reach): process_vm_readv/writev, or where a filter
 * refuses those (a container runtime's default profile: DESIGN.md §14)
 * pread/pwrite of /proc/PID/mem, opened for each call.  Both pass the
 * same ptrace access check; /proc/PID/mem reads and writes as ptrace
 * does (FOLL_FORCE: a page the caller mapped without PROT_READ, or
 * PROT_WRITE, is no error there), which only concerns the caller's own
 * memory.
 */
static enum { MEM_VM, MEM_PROC } mem_form = MEM_VM;

static int
mem_open(pid_t pid, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((fd = open(path, flags | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == ESRCH ? CALL_GONE : -errno;
	return fd;
}

int
svcall_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { .iov_base = buf, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr,
			   .iov_len = len };
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (len == 0)
		return 0;
	if (mem_form == MEM_VM) {
		n = process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (n < 0)
			return errno == ESRCH ? CALL_GONE : -EFAULT;
		return (size_t)n == len ? 0 : -EFAULT;
	}
	if ((fd = mem_open(pid, O_RDONLY)) < 0)
		return fd == CALL_GONE ? CALL_GONE : -EFAULT;
	/* An address above the off_t range is no mapping. */
	if (addr > INT64_MAX)
		return -EFAULT;
	n = pread(fd, buf, len, (off_t)addr);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

int
svcall_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { .iov_base = (void *)buf, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr,
			   .iov_len = len };
	_cleanup_close_ int fd = -1;

	if (mem_form == MEM_VM)
		return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len
			       ? 0
			       : -EFAULT;
	if (addr > INT64_MAX || (fd = mem_open(pid, O_WRONLY)) < 0)
		return -EFAULT;
	return pwrite(fd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -EFAULT;
}

/* A word the command's process has at the same address, being a fork of
 * the supervisor's that has not run exec yet. */
static const uint64_t reach_word = 0x6c6c777261707376ULL;

int
svcall_reach(struct supervisor *sv, pid_t pid, int fd,
	     struct supervise_refused *refused)
{
	uint64_t word = 0;
	struct iovec l = { .iov_base = &word, .iov_len = sizeof(word) };
	struct iovec r = { .iov_base = (void *)&reach_word,
			   .iov_len = sizeof(word) };
	_cleanup_close_ int pidfd = -1, mem = -1;
	int vm = 0, proc = 0;

	/* pidfd_getfd of a descriptor the process has: the caller's own
	 * sockets, or where a filter refuses it, the substitute. */
	if ((pidfd = sys_pidfd_open(pid, 0)) < 0) {
		supervise_refused_note(refused, SUPERVISE_STEP_PIDFD, errno);
		return -refused->err;
	}
	{
		_cleanup_close_ int got = sys_pidfd_getfd(pidfd, fd, 0);

		sv->getfd = got >= 0;
	}
	mem_form = MEM_VM;
	if (process_vm_readv(pid, &l, 1, &r, 1, 0) < 0)
		vm = errno;
	else if (word == reach_word)
		return 0;
	mem_form = MEM_PROC;
	word = 0;
	if ((mem = mem_open(pid, O_RDONLY)) < 0)
		proc = mem == CALL_GONE ? ESRCH : -mem;
	else if (pread(mem, &word, sizeof(word),
		       (off_t)(uintptr_t)&reach_word) < 0)
		proc = errno;
	else if (word == reach_word)
		return 0;
	if (proc != 0)
		supervise_refused_note(refused, SUPERVISE_STEP_MEMORY,
				       vm != 0 ? vm : proc);
	else
		supervise_refused_note(refused, SUPERVISE_STEP_WORD, EIO);
	return -refused->err;
}

/*
 * Whether the notification is still pending: while it is, the caller is
 * blocked in this call, so its pid named the caller throughout.  Checked
 * after everything read from the caller (memory, /proc, descriptors) and
 * before acting on it.  Returns 0 or CALL_GONE.
 */
int
svcall_valid(const struct supervisor *sv, const struct call *c)
{
	return seccomp_notify_id_valid(sv->listener, c->req->id) == 0
		       ? 0
		       : CALL_GONE;
}

/* err, unless the caller went away meanwhile (then nobody is owed an
 * answer).  Every notification still pending gets one. */
int
svcall_error(const struct supervisor *sv, const struct call *c, int err)
{
	return svcall_valid(sv, c) < 0 ? CALL_GONE : err;
}

/* The text of the caller's /proc/PID/status. */
static int
call_status(const struct call *c, char *buf, size_t size)
{
	char path[64];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)c->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The caller's ids (for SCM_CREDENTIALS) and its thread group id. */
int
svcall_ids(const struct call *c, struct cmsg_sender *s, pid_t *tgid)
{
	char buf[4096];
	int r;

	if ((r = call_status(c, buf, sizeof(buf))) < 0)
		return r;
	return cmsg_sender_parse(buf, s, tgid);
}

/*
 * A pidfd for the caller's descriptors: the calling thread's own
 * (PIDFD_THREAD, Linux 6.9), or on older kernels its thread group's,
 * whose table the thread shares unless it unshared it (CLONE_FILES).
 */
int
svcall_pidfd(const struct call *c)
{
	struct cmsg_sender s;
	pid_t tgid;
	int fd, r;

	fd = sys_pidfd_open(c->pid, PIDFD_THREAD);
	if (fd >= 0 || errno != EINVAL)
		return fd < 0 ? -errno : fd;
	if ((r = svcall_ids(c, &s, &tgid)) < 0)
		return r;
	fd = sys_pidfd_open(tgid, 0);
	return fd < 0 ? -errno : fd;
}

/*
 * Without pidfd_getfd (a container runtime's filter refuses it): what
 * kind of socket the caller named, from its /proc entries (the protocol's
 * name, sockfs' system.sockprotoname, and fdinfo's flags), and a new one
 * of that kind in c->sock for the handler to decide and perform on, to be
 * installed in the caller's place (svcall_install) -- or the one the
 * supervisor made for it before and holds.  The new socket is what the
 * caller's was if that was never bound or connected (binds go through
 * the supervisor, which holds what it bound); a socket let go, a unix
 * datagram socket, one of another network namespace have no substitute
 * (SVCALL_NO_SUBSTITUTE).  What the caller set on its socket before
 * (setsockopt) is not carried: O_NONBLOCK and O_CLOEXEC are.  Whatever
 * the caller swaps in its descriptor table meanwhile, the call decided is
 * the one performed, on the supervisor's socket.
 */
/* Whether thread pid is in the supervisor's network namespace. */
static bool
same_netns(pid_t pid)
{
	static struct stat own;
	static bool have;
	char path[64];
	struct stat st;

	if (!have && stat("/proc/self/ns/net", &own) < 0)
		return false;
	have = true;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	return stat(path, &st) == 0 && st.st_ino == own.st_ino &&
	       st.st_dev == own.st_dev;
}

static int
substitute_open(struct supervisor *sv, struct call *c)
{
	static const struct {
		const char *name;
		int domain, type, protocol;
	} kinds[] = {
		{ "TCP", AF_INET, SOCK_STREAM, IPPROTO_TCP },
		{ "TCPv6", AF_INET6, SOCK_STREAM, IPPROTO_TCP },
		{ "UDP", AF_INET, SOCK_DGRAM, IPPROTO_UDP },
		{ "UDPv6", AF_INET6, SOCK_DGRAM, IPPROTO_UDP },
		{ "UNIX-STREAM", AF_UNIX, SOCK_STREAM, 0 },
		/* A datagram or a seqpacket socket: which, the name does
		 * not say; no substitute. */
		{ "UNIX", AF_UNIX, SOCK_DGRAM, 0 },
	};
	char path[64], info[64], link[64], name[32], buf[512], *f;
	_cleanup_close_ int fd = -1;
	unsigned long long ino;
	unsigned long flags;
	ssize_t n;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)c->pid,
		 (int)(uint32_t)c->req->data.args[0]);
	snprintf(info, sizeof(info), "/proc/%d/fdinfo/%d", (int)c->pid,
		 (int)(uint32_t)c->req->data.args[0]);
	/* A socket by its link's text first, which no file system is asked
	 * for: getxattr of another file would be its file system's to answer
	 * (one that hangs would hold the supervisor).  Then its protocol
	 * (sockfs' system.sockprotoname); its fdinfo has its inode and
	 * flags.  A descriptor swapped meanwhile changes what kind of socket
	 * the caller gets, never what is decided and performed. */
	if ((n = readlink(path, link, sizeof(link) - 1)) < 0)
		return svcall_error(sv, c, errno == ENOENT ? -EBADF : -errno);
	link[n] = '\0';
	if (strncmp(link, "socket:[", 8) != 0)
		return svcall_error(sv, c, -ENOTSOCK);
	if ((n = getxattr(path, "system.sockprotoname", name,
			  sizeof(name) - 1)) < 0)
		return svcall_error(sv, c,
				    errno == ENOENT	  ? -EBADF
				    : errno == ENODATA	  ? -ENOTSOCK
				    : errno == EOPNOTSUPP ? -ENOTSOCK
							  : -errno);
	name[n] = '\0';
	if ((fd = open(info, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) < 0)
		return svcall_error(sv, c, -EBADF);
	buf[n] = '\0';
	if ((f = strstr(buf, "\nflags:")) == NULL ||
	    sscanf(f + 7, "%lo", &flags) != 1 ||
	    (f = strstr(buf, "\nino:")) == NULL ||
	    sscanf(f + 5, "%llu", &ino) != 1)
		return svcall_error(sv, c, -EBADF);
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strcmp(name, kinds[i].name) == 0)
			break;
	/* Known by its protocol's name, or refused as unknown. */
	c->domain = i < ARRAY_SIZE(kinds) ? kinds[i].domain : AF_UNSPEC;
	c->type = i < ARRAY_SIZE(kinds) ? kinds[i].type : 0;
	c->nonblock = (flags & O_NONBLOCK) != 0;
	c->cloexec = (flags & O_CLOEXEC) != 0;
	if (svcall_valid(sv, c) < 0)
		return CALL_GONE;
	for (size_t k = 0; k < SV_MAX_GONE; k++)
		if (sv->gone[k] == ino)
			return SVCALL_NO_SUBSTITUTE;
	for (size_t k = 0; k < SV_MAX_HELD; k++)
		if (sv->held[k].sock >= 0 && sv->held[k].ino == ino) {
			c->sock = fcntl(sv->held[k].sock, F_DUPFD_CLOEXEC, 3);
			c->held = true;
			return c->sock < 0 ? -errno : 0;
		}
	/* A socket made here lives in the supervisor's network namespace:
	 * never one for a caller in another (net = none). */
	if (i == ARRAY_SIZE(kinds) ||
	    (c->domain == AF_UNIX && c->type != SOCK_STREAM) ||
	    !same_netns(c->pid))
		return SVCALL_NO_SUBSTITUTE;
	c->sock = socket(c->domain,
			 c->type | SOCK_CLOEXEC |
				 (c->nonblock ? SOCK_NONBLOCK : 0),
			 kinds[i].protocol);
	if (c->sock < 0)
		return -errno;
	c->made = true;
	c->keep = c->type == SOCK_DGRAM;
	return 0;
}

/* The caller's socket, and what kind it is. */
int
svcall_open(struct supervisor *sv, struct call *c)
{
	socklen_t len = sizeof(int);
	int fl;

	c->pidfd = svcall_pidfd(c);
	if (c->pidfd < 0)
		return svcall_error(sv, c, c->pidfd);
	if (!sv->getfd)
		return substitute_open(sv, c);
	c->sock = sys_pidfd_getfd(c->pidfd, (int)(uint32_t)c->req->data.args[0],
				  0);
	if (c->sock < 0)
		return svcall_error(sv, c, -errno);
	if (svcall_valid(sv, c) < 0)
		return CALL_GONE;
	if (getsockopt(c->sock, SOL_SOCKET, SO_DOMAIN, &c->domain, &len) < 0)
		return -errno;
	len = sizeof(int);
	if (getsockopt(c->sock, SOL_SOCKET, SO_TYPE, &c->type, &len) < 0)
		return -errno;
	fl = fcntl(c->sock, F_GETFL);
	c->nonblock = fl >= 0 && (fl & O_NONBLOCK);
	return 0;
}

int
svcall_install(struct supervisor *sv, struct call *c)
{
	struct seccomp_notif_addfd af = {
		.id = c->req->id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = (uint32_t)c->sock,
		.newfd = (uint32_t)c->req->data.args[0],
		.newfd_flags = c->cloexec ? O_CLOEXEC : 0,
	};

	if (!c->made)
		return 0;
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &af) < 0)
		return svcall_error(sv, c, -errno);
	c->made = false;
	if (c->keep)
		svcall_hold(sv, c);
	return 0;
}

/* The port of an IP socket address, 0 for any other. */
static uint16_t
sockaddr_port(const struct sockaddr *a, socklen_t len)
{
	if (a->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

/* Close held socket i; its later calls have no substitute. */
static void
let_go(struct supervisor *sv, size_t i)
{
	if (sv->held[i].ino != 0) {
		sv->gone[sv->next_gone] = sv->held[i].ino;
		sv->next_gone = (sv->next_gone + 1) % SV_MAX_GONE;
	}
	close(sv->held[i].sock);
	sv->held[i].sock = -1;
	sv->held[i].expire_ns = 0;
}

void
svcall_hold(struct supervisor *sv, const struct call *c)
{
	struct held *h;
	struct stat st;
	size_t n_inotify = 0, oldest = SV_MAX_HELD, slot = SV_MAX_HELD;
	size_t moment = SV_MAX_HELD;
	bool inotify = c->domain == AF_UNSPEC;

	if (sv->getfd || c->sock < 0 || fstat(c->sock, &st) < 0)
		return;
	for (size_t k = 0; k < SV_MAX_HELD; k++) {
		/* Oldest first, from the next slot round. */
		size_t i = (sv->next_held + k) % SV_MAX_HELD;

		if (sv->held[i].sock < 0) {
			if (slot == SV_MAX_HELD)
				slot = i;
			continue;
		}
		if (!inotify && sv->held[i].ino == st.st_ino)
			return;
		if (sv->held[i].ino == 0 && n_inotify++ == 0)
			oldest = i;
		if (sv->held[i].expire_ns != 0 && moment == SV_MAX_HELD)
			moment = i;
	}
	/* An inotify instance over the bound lets the oldest go. */
	if (inotify && n_inotify >= SV_MAX_HELD_INOTIFY) {
		let_go(sv, oldest);
		if (slot == SV_MAX_HELD)
			slot = oldest;
	}
	/* A free slot; else one held for a moment (a connect's); else the
	 * oldest. */
	if (slot == SV_MAX_HELD)
		slot = moment != SV_MAX_HELD ? moment : sv->next_held;
	h = &sv->held[slot];
	if (h->sock >= 0)
		let_go(sv, slot);
	h->ino = inotify ? 0 : st.st_ino;
	h->sock = fcntl(c->sock, F_DUPFD_CLOEXEC, 3);
	h->port = 0;
	h->expire_ns = 0;
	if (!inotify) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		if (getsockname(c->sock, (struct sockaddr *)&ss, &sl) == 0)
			h->port = sockaddr_port((struct sockaddr *)&ss, sl);
	}
	sv->next_held = (slot + 1) % SV_MAX_HELD;
}

/* The first watch line of an inotify instance's fdinfo (the most recent
 * watch: the same text for every descriptor of the instance), or "" when
 * it has none; 0, or -errno. */
static int
inotify_first_watch(const char *info, char *line, size_t size,
		    unsigned long *flags)
{
	_cleanup_close_ int fd = open(info, O_RDONLY | O_CLOEXEC);
	char buf[1024], *w, *f, *end;
	ssize_t n;

	if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) < 0)
		return -errno;
	buf[n] = '\0';
	if (flags != NULL && ((f = strstr(buf, "\nflags:")) == NULL ||
			      sscanf(f + 7, "%lo", flags) != 1))
		return -EBADF;
	line[0] = '\0';
	if ((w = strstr(buf, "\ninotify wd:")) == NULL)
		return 0;
	w++;
	/* A line cut short by the buffer's end is no fingerprint. */
	if ((end = strchr(w, '\n')) == NULL)
		return -EOVERFLOW;
	snprintf(line, size, "%.*s", (int)(end - w), w);
	return 0;
}

int
svcall_inotify(struct supervisor *sv, struct call *c)
{
	char link[64], kind[32], info[64], mine[256], theirs[256];
	unsigned long flags;
	ssize_t n;
	int r;

	c->pidfd = svcall_pidfd(c);
	if (c->pidfd < 0)
		return svcall_error(sv, c, c->pidfd);
	if (sv->getfd) {
		c->sock = sys_pidfd_getfd(
			c->pidfd, (int)(uint32_t)c->req->data.args[0], 0);
		if (c->sock < 0)
			return svcall_error(sv, c, -errno);
		snprintf(link, sizeof(link), "/proc/self/fd/%d", c->sock);
	} else {
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)c->pid,
			 (int)(uint32_t)c->req->data.args[0]);
	}
	/* The watch goes on the caller's own instance: it must be one. */
	n = readlink(link, kind, sizeof(kind) - 1);
	if (n < 0)
		return svcall_error(sv, c, -EINVAL);
	kind[n] = '\0';
	if (strcmp(kind, "anon_inode:inotify") != 0)
		return svcall_error(sv, c, -EINVAL);
	if (sv->getfd)
		return 0;
	/*
	 * Without pidfd_getfd: an instance has no inode of its own to know
	 * it by, but its watches are its own: the instance held whose most
	 * recent watch is the caller's.  One with no watch yet is as good
	 * as a new one.  One with watches the supervisor does not hold (let
	 * go, or inherited) is refused: its watches cannot be carried.
	 */
	snprintf(info, sizeof(info), "/proc/%d/fdinfo/%d", (int)c->pid,
		 (int)(uint32_t)c->req->data.args[0]);
	if ((r = inotify_first_watch(info, theirs, sizeof(theirs), &flags)) < 0)
		return svcall_error(sv, c, r);
	c->domain = AF_UNSPEC;
	c->cloexec = (flags & O_CLOEXEC) != 0;
	if (theirs[0] == '\0') {
		c->sock = inotify_init1(
			IN_CLOEXEC | ((flags & O_NONBLOCK) ? IN_NONBLOCK : 0));
		if (c->sock < 0)
			return svcall_error(sv, c, -errno);
		c->made = c->keep = true;
		return svcall_valid(sv, c);
	}
	for (size_t i = 0; i < SV_MAX_HELD; i++) {
		if (sv->held[i].sock < 0 || sv->held[i].ino != 0)
			continue;
		snprintf(info, sizeof(info), "/proc/self/fdinfo/%d",
			 sv->held[i].sock);
		if (inotify_first_watch(info, mine, sizeof(mine), NULL) == 0 &&
		    strcmp(mine, theirs) == 0) {
			c->sock = fcntl(sv->held[i].sock, F_DUPFD_CLOEXEC, 3);
			c->held = true;
			return c->sock < 0 ? -errno : svcall_valid(sv, c);
		}
	}
	return svcall_error(sv, c, -EACCES);
}

void
svcall_unhold(struct supervisor *sv, const struct call *c)
{
	struct stat st;

	if (sv->getfd || c->sock < 0 || fstat(c->sock, &st) < 0)
		return;
	for (size_t i = 0; i < SV_MAX_HELD; i++)
		if (sv->held[i].sock >= 0 && sv->held[i].ino == st.st_ino)
			let_go(sv, i);
}

void
svcall_hold_connect(struct supervisor *sv, const struct call *c, bool connected)
{
	uint64_t now = mono_ns();
	struct stat st;

	if (sv->getfd || c->sock < 0 || fstat(c->sock, &st) < 0)
		return;
	svcall_hold(sv, c);
	for (size_t i = 0; i < SV_MAX_HELD; i++)
		if (sv->held[i].sock >= 0 && sv->held[i].ino == st.st_ino) {
			sv->held[i].expire_ns =
				now + (connected ? SV_HOLD_CONNECTED_NS
						 : SV_HOLD_CONNECTING_NS);
			sv->expiring = true;
		}
}

void
svcall_expire(struct supervisor *sv, uint64_t now)
{
	struct pollfd p[SV_MAX_HELD];
	size_t at[SV_MAX_HELD], n = 0;

	/* Every few milliseconds, not at every notification: one poll for
	 * all the sockets held for a moment. */
	if (now < sv->expire_check_ns)
		return;
	sv->expire_check_ns = now + SV_HOLD_CONNECTED_NS / 4;
	for (size_t i = 0; i < SV_MAX_HELD; i++)
		if (sv->held[i].sock >= 0 && sv->held[i].expire_ns != 0) {
			p[n] = (struct pollfd){ .fd = sv->held[i].sock,
						.events = POLLOUT };
			at[n++] = i;
		}
	if (n > 0 && poll(p, n, 0) < 0)
		memset(p, 0, n * sizeof(*p));
	sv->expiring = false;
	for (size_t k = 0; k < n; k++) {
		struct held *h = &sv->held[at[k]];

		/* Connected (or failed) meanwhile: a moment more. */
		if (h->expire_ns > now + SV_HOLD_CONNECTED_NS && p[k].revents)
			h->expire_ns = now + SV_HOLD_CONNECTED_NS;
		if (h->expire_ns <= now)
			let_go(sv, at[k]);
		else
			sv->expiring = true;
	}
}

/* Whether a and b are the same abstract unix name. */
static bool
same_abstract(const struct sockaddr *a, socklen_t alen,
	      const struct sockaddr_storage *b, socklen_t blen)
{
	size_t off = offsetof(struct sockaddr_un, sun_path);

	return a->sa_family == AF_UNIX && b->ss_family == AF_UNIX &&
	       alen > off + 1 && alen == blen &&
	       ((const struct sockaddr_un *)a)->sun_path[0] == '\0' &&
	       memcmp(a, b, alen) == 0;
}

void
svcall_release_port(struct supervisor *sv, const struct call *c,
		    const struct sockaddr *a, socklen_t len)
{
	uint16_t port = sockaddr_port(a, len);
	bool abstract = a->sa_family == AF_UNIX &&
			len > offsetof(struct sockaddr_un, sun_path) + 1 &&
			((const struct sockaddr_un *)a)->sun_path[0] == '\0';

	if (sv->getfd || !c->made || (port == 0 && !abstract))
		return;
	for (size_t i = 0; i < SV_MAX_HELD; i++) {
		struct sockaddr_storage ss, peer;
		socklen_t sl = sizeof(ss), pl = sizeof(peer);
		int type = 0, listening = 0;
		socklen_t tl = sizeof(type), ll = sizeof(listening);

		/* Held bound there (a port the kernel chose is held
		 * before the bind that chooses it: 0, looked at). */
		if (sv->held[i].sock < 0 || sv->held[i].ino == 0)
			continue;
		if (sv->held[i].port == 0 &&
		    getsockname(sv->held[i].sock, (struct sockaddr *)&ss,
				&sl) == 0)
			sv->held[i].port =
				sockaddr_port((struct sockaddr *)&ss, sl);
		sl = sizeof(ss);
		if ((!abstract && sv->held[i].port != port) ||
		    getsockname(sv->held[i].sock, (struct sockaddr *)&ss, &sl) <
			    0 ||
		    ss.ss_family != a->sa_family ||
		    (abstract ? !same_abstract(a, len, &ss, sl)
			      : sockaddr_port((struct sockaddr *)&ss, sl) !=
					port) ||
		    getsockopt(sv->held[i].sock, SOL_SOCKET, SO_TYPE, &type,
			       &tl) < 0 ||
		    type != c->type ||
		    getsockopt(sv->held[i].sock, SOL_SOCKET, SO_ACCEPTCONN,
			       &listening, &ll) < 0 ||
		    listening ||
		    getpeername(sv->held[i].sock, (struct sockaddr *)&peer,
				&pl) == 0)
			continue;
		let_go(sv, i);
	}
}

int
svcall_no_getfd(struct supervisor *sv, struct call *c, enum netpolicy_op op)
{
	_cleanup_free_ char *t =
		xasprintf("fd%d", (int)(uint32_t)c->req->data.args[0]);

	if (svcall_valid(sv, c) < 0)
		return CALL_GONE;
	svlog_blocked(sv, op, svcall_proto(c), t, c->pid, c->pidfd,
		      REFUSAL_NO_GETFD);
	return -refusal_errno(REFUSAL_NO_GETFD);
}

enum netpolicy_proto
svcall_proto(const struct call *c)
{
	if (c->domain == AF_UNIX)
		return NETPOLICY_UNIX;
	return c->type == SOCK_STREAM ? NETPOLICY_TCP : NETPOLICY_UDP;
}

/*
 * The caller's root (O_PATH) in *root and path made absolute in the
 * caller's view in *abs: a relative path is taken from its cwd, as the
 * caller's own root sees it.  0 or -errno.
 */
int
svcall_root_path(pid_t pid, const char *path, int *root, char **abs)
{
	char proc[64];

	if (path[0] == '\0')
		return -ENOENT;
	if (path[0] != '/') {
		char cwd[4096];
		ssize_t n;

		snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
		n = readlink(proc, cwd, sizeof(cwd) - 1);
		if (n < 0)
			return -errno;
		cwd[n] = '\0';
		*abs = xasprintf("%s/%s", cwd, path);
	} else {
		*abs = xstrdup(path);
	}
	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)pid);
	*root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*root < 0) {
		int e = errno;

		free(*abs);
		*abs = NULL;
		return -e;
	}
	return 0;
}

/*
 * Open path with O_PATH as process pid sees it: in its root, relative
 * paths from its working directory, no magic links (/proc/self/fd/N,
 * /proc/PID/root would otherwise name the supervisor's own view).  With
 * parent, open the directory that holds the last component and return
 * the component in *base.
 */
int
svcall_open_path(pid_t pid, const char *path, bool parent, char **base)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (parent ? O_DIRECTORY : 0),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int root = -1;
	_cleanup_free_ char *abs = NULL;
	char *slash;
	int fd, r;

	if ((r = svcall_root_path(pid, path, &root, &abs)) < 0)
		return r;
	if (parent) {
		slash = strrchr(abs, '/');
		if (slash[1] == '\0' || strcmp(slash + 1, ".") == 0 ||
		    strcmp(slash + 1, "..") == 0)
			return -EINVAL;
		*base = xstrdup(slash + 1);
		if (slash == abs)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	fd = (int)syscall(SYS_openat2, root, abs, &how, sizeof(how));
	if (fd < 0) {
		int e = errno;

		if (parent) {
			free(*base);
			*base = NULL;
		}
		return -e;
	}
	return fd;
}

/* The answer to a call that would block and the caller wants to wait:
 * queue it until its socket is writable (or a moment passed). */
int
svcall_queue(struct supervisor *sv, struct call *c, enum pending_kind kind)
{
	struct pending *p;

	if (sv->n_pending >= SV_MAX_PENDING)
		return -EAGAIN;
	/* Grown when needed: most runs queue nothing, and the whole table
	 * (about 100 KiB) cleared at every start cost tens of us. */
	if (sv->n_pending == sv->max_pending) {
		size_t n = sv->max_pending ? 2 * sv->max_pending : 8;

		if (n > SV_MAX_PENDING)
			n = SV_MAX_PENDING;
		sv->pending =
			xreallocarray(sv->pending, n, sizeof(*sv->pending));
		sv->max_pending = n;
	}
	p = &sv->pending[sv->n_pending++];
	p->kind = kind;
	p->req = *c->req;
	p->sock = c->sock;
	p->deadline_ns = mono_ns() + 10 * 1000000u;
	c->sock = -1;
	return CALL_PENDING;
}

/* A NUL-terminated string of the caller's, at most PATH_MAX bytes, read
 * page by page so the end of a mapping is no error. */
char *
svcall_read_string(pid_t pid, uint64_t addr)
{
	char *buf = xcalloc(PATH_MAX + 1, 1);
	size_t got = 0;

	while (got < PATH_MAX) {
		size_t chunk = 4096 - ((addr + got) & 4095);

		if (chunk > PATH_MAX - got)
			chunk = PATH_MAX - got;
		if (svcall_read(pid, addr + got, buf + got, chunk) < 0) {
			free(buf);
			return NULL;
		}
		if (memchr(buf + got, '\0', chunk) != NULL)
			return buf;
		got += chunk;
	}
	free(buf);
	return NULL;
}

/*
 * Whether target, a pid (or a thread's id) the caller named, is a process
 * of the sandbox: a thread of the caller's own process, or a descendant
 * of the command's first process (what the command starts stays below it
 * while its parents live; an orphan given to init is not recognised and
 * is refused, which fails closed).  The /proc directory of the target is
 * held while its ancestry is read and looked at again last, so a target
 * that died meanwhile is not taken for a process that got its pid.
 */
static bool
pid_inside(const struct supervisor *sv, const struct call *c, pid_t target)
{
	char path[64];
	struct cmsg_sender s;
	_cleanup_close_ int dir = -1;
	pid_t tgid, p;
	int steps = 0;

	if (svcall_ids(c, &s, &tgid) < 0 || target <= 0 || sv->root <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid,
		 (int)target);
	if (access(path, F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%d", (int)target);
	if ((dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	for (p = target; p != sv->root; steps++) {
		_cleanup_close_ int pd = -1;

		snprintf(path, sizeof(path), "/proc/%d", (int)p);
		if (steps > 4096 ||
		    (pd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
		    (p = proc_parent_at(pd)) <= 1)
			return false;
	}
	return proc_parent_at(dir) > 0;
}

/*
 * prlimit64 (setting a limit), setpriority, ioprio_set and sched_set*
 * naming a pid other than the caller's 0 (filter_pids, DESIGN.md §15):
 * under a pid namespace every pid the caller can name is the sandbox's;
 * without one, only a process of the sandbox (pid_inside) may be named,
 * and any other process of the user is refused with EPERM, as the kernel
 * refuses another user's.  The pid is a register, not memory: once
 * decided the call goes on in the caller (CONTINUE).  What remains is the
 * reuse of a pid between the decision and the call, which needs the
 * target to be reaped and the pid space to wrap around to a process
 * outside in that instant.
 */
int
svcall_pid_call(struct supervisor *sv, struct call *c)
{
	int nr = c->req->data.nr;
	/* setpriority(which, who), ioprio_set(which, who): the filter sends
	 * only which == one process. */
	pid_t target = (pid_t)(nr == SYS_setpriority || nr == SYS_ioprio_set
				       ? c->req->data.args[1]
				       : c->req->data.args[0]);

	if (sv->pidns || target == 0 || pid_inside(sv, c, target))
		return svcall_valid(sv, c) < 0 ? CALL_GONE : CALL_CONTINUE;
	return svcall_error(sv, c, -EPERM);
}
