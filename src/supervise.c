/*
 * The network supervisor of DESIGN.md §6: the notification engine.  The
 * loop it runs in is the process monitor's (monitor.c); what it decides
 * is the pure network policy's (netpolicy.c).
 *
 * The supervisor is the process above the sandboxed command, outside the
 * sandbox.  The command's connect, bind, listen, sendto (with a
 * destination), sendmsg and sendmmsg reach it as seccomp user
 * notifications.  It copies the arguments out of the caller's memory,
 * checks that the notification is still valid (so the pid it read from
 * was the caller's), decides on its own copy, and performs the call
 * itself on the caller's socket (pidfd_getfd), answering with the result.
 * It never lets a checked call continue in the caller
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the caller's memory can change
 * between the check and the kernel's second read, and on this kernel a
 * raced test let about 13% of denied connects through that way.
 *
 * One thread, no blocking call: a connect that takes time is started on
 * the caller's socket in non-blocking mode and answered when poll says it
 * completed; a send that would block is retried when the socket is
 * writable.  So one slow peer does not stall the others, and the number
 * of outstanding calls is bounded (SV_MAX_PENDING).
 *
 * Because the supervisor, not the caller, performs the call, Landlock's
 * network rules (checked against the performing task) do not see it: the
 * supervisor enforces the port lists itself (netpolicy_decide), the
 * directory rules for pathname socket binds (policy_access_at), and the
 * abstract unix scope (only names the sandbox bound).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <poll.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "blocked.h"
#include "caps.h"
#include "cleanup.h"
#include "cmsg.h"
#include "compat/syscall.h"
#include "dnsstub.h"
#include "fdutil.h"
#include "filter.h"
#include "hostdns.h"
#include "hostaddrs.h"
#include "profile.h"
#include "sockdiag.h"
#include "strv.h"
#include "testhook.h"
#include "proxy.h"
#include "supervise.h"
#include "watchjudge.h"
#include "xalloc.h"

/* Linux 6.6 (UAPI linux/seccomp.h; Debian 12's headers predate it): a
 * notification and its answer hand the CPU over, caller to supervisor
 * and back, instead of waking a task on another CPU. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	   SECCOMP_IOW(4, __u64)
#endif

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* Calls waiting for their socket (a connect in progress, a full send
 * buffer); more get EAGAIN. */
#define SV_MAX_PENDING (SUPERVISE_POLL_MAX - 2)
/* With llwrap's resolver: local addresses allowed names gave, sockets
 * swapped for the resolver's, and who asked from which port, each the
 * most recent this many. */
#define SV_MAX_REBIND  64
#define SV_MAX_SWAPPED 256
#define SV_MAX_ASKERS  64
/* Agent notes per run: each kind of attempt once, at most this many. */
#define SV_MAX_NOTES 32
/* The kinds of attempt remembered for the notes. */
#define SV_MAX_NOTED 256
/* The largest payload one mediated send copies (a datagram larger than
 * this gets EMSGSIZE, a stream send is short). */
#define SV_MAX_PAYLOAD (1u << 20)
#define SV_MAX_CONTROL 65536
#define SV_MAX_IOV     1024

/* ---- The supervisor process ---- */

bool
supervise_available(char **cause)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *yama = NULL;

	if (seccomp_api_get() < 5) {
		*cause = xstrdup("the kernel (or libseccomp) has no seccomp "
				 "user notification (Linux 5.0)");
		return false;
	}
	if (sys_pidfd_getfd(-1, 0, 0) < 0 && errno == ENOSYS) {
		*cause = xstrdup("the kernel has no pidfd_getfd (Linux 5.6)");
		return false;
	}
	/* No Yama (no file): ptrace access is the kernel's default rule. */
	fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (fd_read_all(fd, 64, &yama, NULL) < 0)
			yama = xstrdup("");
		if ((*cause = supervise_yama_cause(yama)) != NULL)
			return false;
	}
	return true;
}

char *
supervise_yama_cause(const char *scope)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(scope, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno != 0 || end == scope || *end != '\0' || v < 0)
		return xasprintf(
			"Yama's kernel.yama.ptrace_scope reads '%.*s', "
			"not a scope llwrap knows; the supervisor "
			"needs 0 or 1",
			(int)strcspn(scope, "\n"), scope);
	if (v < 2)
		return NULL;
	return xasprintf("Yama's kernel.yama.ptrace_scope is %ld, which keeps "
			 "the supervisor from reaching the sandboxed process "
			 "(pidfd_getfd needs ptrace access; it works with 0 "
			 "or 1)",
			 v);
}

enum pending_kind {
	PENDING_CONNECT, /* wait for POLLOUT, answer with SO_ERROR */
	PENDING_RETRY,	 /* handle the notification again on POLLOUT */
	PENDING_TIMER,	 /* handle it again after a short delay */
};

struct pending {
	enum pending_kind kind;
	struct seccomp_notif req;
	int sock;
	uint64_t deadline_ns;
};

struct supervisor {
	const struct policy *policy;
	struct netpolicy_rules *rules;
	scmp_filter_ctx notify; /* built under --learn only */
	int sock[2];		/* [0] the supervisor's end, [1] the child's */
	int listener;
	int logfd;
	char *prefix;
	bool log;
	struct netpolicy_ratelimit rl;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct pending *pending;
	size_t n_pending, max_pending; /* pending holds max_pending */
	struct netpolicy_own *own;     /* the sockets the sandbox bound */
	/* This host's addresses and on-link prefixes (local, as loopback
	 * and private space are), kept current. */
	struct sockdiag_host *host;
	/* The socket whose bind or listen is being decided (port_shared);
	 * one call at a time. */
	int deciding;
	/* The listener private_destination found at a destination it
	 * rewrote, for this call's decision (own_socket): one lookup, not
	 * two.  Cleared once decided. */
	bool found_set;
	struct netpolicy_addr found_at;
	uint64_t found_cookie;
	char **noted; /* the attempts noted on a caller's stderr */
	size_t n_noted, n_noted_keys;
	struct suggest_bounds bounds; /* what a note's suggestion may reach */
	int learn_fd;	      /* --learn: where observed paths go, or -1 */
	bool polled_listener; /* supervise_poll_fds gave the listener */
	/* proxy = yes: its address, and where to tell it which process
	 * each of its clients is ("PORT PID COMM" lines), or -1. */
	struct netpolicy_addr proxy;
	int proxy_note_fd;
	/* inotify_add_watch's judge, under the sandbox's Landlock ruleset
	 * (watchjudge.h); its process starts at the first watch. */
	struct watchjudge *judge;
	/* The resolvers (port 53 reaches them, or with the stub, their
	 * sockets are swapped). */
	struct netpolicy_addr *dns;
	size_t n_dns;
	/* allow-host through llwrap's resolver (dnsstub.h, borrowed): the
	 * addresses learned from its answers, those /etc/hosts gives
	 * allowed names, the local ones allowed names' answers gave (not
	 * learned: rebinding), the sockets swapped (by cookie: they stay
	 * the stub's), and who asked from which port of the stub's
	 * namespace (its pidfd, for the note). */
	struct dnsstub *stub;
	struct hostaddrs *learned;
	struct hostdns_fixed *fixed;
	size_t n_fixed;
	struct netpolicy_addr rebind[SV_MAX_REBIND];
	size_t n_rebind, next_rebind;
	uint64_t swapped[SV_MAX_SWAPPED];
	size_t n_swapped, next_swapped;
	struct asker {
		uint16_t port;
		uint8_t proto;
		pid_t pid;
		int pidfd;
	} askers[SV_MAX_ASKERS];
	size_t next_asker;
	bool polled_stub; /* supervise_poll_fds gave the stub's records */
	bool stub_gone;	  /* it ended: no more records, no more swaps */
	/* The command's first process (or pid 1 above it), and whether a pid
	 * namespace confines the pids it names (supervise_set_command). */
	pid_t root;
	bool pidns;
};

uint64_t
supervise_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* mkdir -p, mode 0700, of the directory part of path. */
static int
make_parent_dirs(const char *path)
{
	_cleanup_free_ char *copy = xstrdup(path);
	char *slash = strrchr(copy, '/');

	if (slash == NULL || slash == copy)
		return 0;
	*slash = '\0';
	for (char *s = copy + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(copy, 0700) < 0 && errno != EEXIST)
			return -errno;
		*s = c;
		if (c == '\0')
			return 0;
	}
}

void
supervise_set_proxy(struct supervisor *sv, const struct netpolicy_addr *a,
		    int note_fd)
{
	netpolicy_rules_set_proxy(sv->rules, a);
	sv->proxy = *a;
	sv->proxy_note_fd = note_fd;
}

const struct netpolicy_addr *
supervise_resolvers(const struct supervisor *sv, size_t *n)
{
	*n = sv->n_dns;
	return sv->dns;
}

void
supervise_set_stub(struct supervisor *sv, struct dnsstub *stub)
{
	_cleanup_close_ int fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *hosts = NULL;
	const struct policy *p = sv->policy;
	size_t max = 256;

	netpolicy_rules_use_stub(sv->rules);
	sv->stub = stub;
	sv->learned = hostaddrs_new();
	/* /etc/hosts answers before DNS: its addresses for allowed names
	 * are allowed for the whole run, but never a local one. */
	if (fd >= 0 && fd_read_all(fd, 1 << 20, &hosts, NULL) == 0) {
		size_t n, k = 0;

		sv->fixed = xcalloc(max, sizeof(*sv->fixed));
		n = hostdns_hosts_file(p->hosts, p->n_hosts, hosts, sv->fixed,
				       max);
		for (size_t i = 0; i < n; i++)
			if (!netpolicy_addr_local(&sv->fixed[i].addr) &&
			    !sockdiag_host_local(sv->host, &sv->fixed[i].addr))
				sv->fixed[k++] = sv->fixed[i];
		sv->n_fixed = k;
	}
}

void
supervise_free(struct supervisor *sv)
{
	if (sv == NULL)
		return;
	netpolicy_rules_free(sv->rules);
	watchjudge_free(sv->judge);
	strv_free(sv->noted);
	suggest_bounds_clear(&sv->bounds);
	if (sv->notify)
		seccomp_release(sv->notify);
	for (int i = 0; i < 2; i++)
		if (sv->sock[i] >= 0)
			close(sv->sock[i]);
	if (sv->listener >= 0)
		close(sv->listener);
	if (sv->logfd >= 0)
		close(sv->logfd);
	if (sv->proxy_note_fd >= 0)
		close(sv->proxy_note_fd);
	for (size_t i = 0; i < sv->n_pending; i++)
		close(sv->pending[i].sock);
	free(sv->pending);
	free(sv->prefix);
	free(sv->own);
	sockdiag_host_free(sv->host);
	free(sv->dns);
	hostaddrs_free(sv->learned);
	free(sv->fixed);
	for (size_t i = 0; i < SV_MAX_ASKERS; i++)
		if (sv->askers[i].pidfd >= 0)
			close(sv->askers[i].pidfd);
	if (sv->req)
		seccomp_notify_free(sv->req, sv->resp);
	free(sv);
}

static char *
read_resolv_conf(void)
{
	_cleanup_close_ int fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);
	char *s = NULL;

	if (fd < 0 || fd_read_all(fd, 1 << 16, &s, NULL) < 0)
		return NULL;
	return s;
}

int
supervise_new(const struct policy *p, char *const *envp,
	      struct supervisor **out, char **cause)
{
	struct supervisor *sv = xcalloc(1, sizeof(*sv));
	_cleanup_free_ char *conf = read_resolv_conf();
	size_t n_dns;
	struct netpolicy_addr *dns = netpolicy_resolvers(p, conf, &n_dns);
	int r, one = 1;

	sv->policy = p;
	sv->sock[0] = sv->sock[1] = sv->listener = sv->logfd = -1;
	sv->learn_fd = -1;
	sv->proxy_note_fd = -1;
	sv->rules = netpolicy_rules_new(p, dns, n_dns);
	{
		_cleanup_free_ char *start = file_read_line(
			"/proc/sys/net/ipv4/ip_unprivileged_port_start", 16);

		if (start != NULL)
			netpolicy_rules_set_unprivileged_start(
				sv->rules, (uint16_t)strtoul(start, NULL, 10));
	}
	sv->dns = dns;
	sv->n_dns = n_dns;
	for (size_t i = 0; i < SV_MAX_ASKERS; i++)
		sv->askers[i].pidfd = -1;
	for (char *const *e = envp; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "HOME=/", 6) == 0) {
			_cleanup_free_ char *home = realpath(*e + 5, NULL);

			suggest_bounds_init(&sv->bounds, home ? home : *e + 5,
					    p);
			break;
		}
	if (sv->bounds.home == NULL)
		suggest_bounds_init(&sv->bounds, NULL, p);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv->sock) < 0 ||
	    setsockopt(sv->sock[0], SOL_SOCKET, SO_PASSCRED, &one,
		       sizeof(one)) < 0) {
		r = -errno;
		*cause = xasprintf("cannot create the supervisor's socket: %s",
				   strerror(-r));
		goto fail;
	}
	if (seccomp_notify_alloc(&sv->req, &sv->resp) < 0) {
		r = -ENOMEM;
		*cause =
			xstrdup("cannot allocate seccomp notification buffers");
		goto fail;
	}
	sv->own = xcalloc(1, sizeof(*sv->own));
	sv->host = sockdiag_host_new();
	sv->log = p->log_blocked;
	sv->prefix = netpolicy_log_prefix(p->log_prefix, p->name);
	netpolicy_ratelimit_init(&sv->rl, NETPOLICY_LOG_BURST,
				 NETPOLICY_LOG_RATE, supervise_now_ns());
	if (sv->log) {
		_cleanup_free_ char *path = netpolicy_log_path(p->name, envp);

		/* The file is opened now, before the command runs, so a
		 * failure is reported while the terminal is still ours. */
		if (path != NULL &&
		    ((r = make_parent_dirs(path)) < 0 ||
		     (sv->logfd = open(path,
				       O_WRONLY | O_APPEND | O_CREAT |
					       O_CLOEXEC | O_NOFOLLOW,
				       0600)) < 0)) {
			if (r == 0)
				r = -errno;
			*cause =
				xasprintf("cannot open the blocked-attempt log "
					  "%s: %s; fix it or set log-blocked "
					  "= no",
					  path, strerror(-r));
			goto fail;
		}
	}
	*out = sv;
	return 0;
fail:
	supervise_free(sv);
	return r;
}

void
supervise_set_command(struct supervisor *sv, pid_t root, bool pidns)
{
	sv->root = root;
	sv->pidns = pidns;
}

void
supervise_child_forked(struct supervisor *sv)
{
	close(sv->sock[0]);
	sv->sock[0] = -1;
	if (sv->logfd >= 0)
		close(sv->logfd);
	sv->logfd = -1;
	if (sv->proxy_note_fd >= 0)
		close(sv->proxy_note_fd);
	sv->proxy_note_fd = -1;
	sockdiag_host_free(sv->host);
	sv->host = NULL;
	dnsstub_child_forked(sv->stub);
}

static int
write_all(int fd, const void *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

int
supervise_child_attach(struct supervisor *sv, int ruleset, char **cause)
{
	struct ucred cred = { .pid = getpid(),
			      .uid = getuid(),
			      .gid = getgid() };
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	char go = 0;
	int fds[2];
	struct iovec iov = { .iov_base = &go, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	int lfd, r;

	/* Who we are, before the filter: once it is loaded, this very
	 * sendmsg would wait for the supervisor that has no listener yet.
	 * The kernel translates the pid into the supervisor's namespace. */
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	if (sendmsg(sv->sock[1], &msg, MSG_NOSIGNAL) != 1) {
		r = -errno;
		*cause = xasprintf("cannot reach the network supervisor: %s",
				   strerror(-r));
		return r;
	}
	/* The precompiled program (filter.h), or under --learn the one
	 * built with the calls it observes. */
	if (sv->notify == NULL) {
		if ((lfd = filter_load_notify(cause)) < 0)
			return lfd;
	} else {
		if ((r = seccomp_load(sv->notify)) < 0) {
			*cause = xasprintf("cannot load the supervisor's "
					   "seccomp filter: %s",
					   strerror(-r));
			return r;
		}
		lfd = seccomp_notify_fd(sv->notify);
		if (lfd < 0) {
			*cause = xstrdup("the kernel gave no seccomp listener");
			return -EOPNOTSUPP;
		}
	}
	/* The supervisor takes the listener with pidfd_getfd, which proves
	 * at once that it can reach this process, and the Landlock ruleset
	 * for the watch judge (watchjudge.h). */
	fds[0] = lfd;
	fds[1] = ruleset;
	if ((r = write_all(sv->sock[1], fds, sizeof(fds))) < 0 ||
	    read(sv->sock[1], &go, 1) != 1 || go != 'y') {
		*cause = xstrdup("the network supervisor could not start; the "
				 "next message says why");
		return -EPERM;
	}
	close(lfd);
	close(sv->sock[1]);
	sv->sock[1] = -1;
	return 0;
}

int
supervise_parent_attach(struct supervisor *sv, char **cause)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct ucred cred = { .pid = 0 };
	_cleanup_close_ int pidfd = -1;
	ssize_t n;
	int fds[2], e, ruleset = -1;

	close(sv->sock[1]);
	sv->sock[1] = -1;
	do
		n = recvmsg(sv->sock[0], &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -ECHILD; /* it ended first, and said why */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL;
	     c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS)
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
	do
		n = read(sv->sock[0], fds, sizeof(fds));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(fds) || cred.pid <= 0)
		return -ECHILD;

	pidfd = sys_pidfd_open(cred.pid, 0);
	if (pidfd < 0 ||
	    (sv->listener = sys_pidfd_getfd(pidfd, fds[0], 0)) < 0 ||
	    (fds[1] >= 0 &&
	     (ruleset = sys_pidfd_getfd(pidfd, fds[1], 0)) < 0)) {
		e = errno;
		*cause =
			xasprintf("the network supervisor cannot take the "
				  "seccomp listener from the sandboxed process "
				  "(pid %d): %s%s",
				  (int)cred.pid, strerror(e),
				  e == EPERM ? " (ptrace access is refused: "
					       "Yama ptrace_scope, or the "
					       "process is not dumpable)"
					     : "");
		(void)write_all(sv->sock[0], "n", 1);
		return -e;
	}
	/* Each call the supervisor decides is a round trip with the
	 * caller: on one CPU it costs a few microseconds, across two (a
	 * wake-up of an idle CPU, slow in a virtual machine) up to a
	 * hundred.  A hint: older kernels refuse it, and nothing else
	 * changes. */
	(void)ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	/* llwrap's resolver started beside the sandbox's own set-up
	 * (dnsstub_start without wait): the command waits for it. */
	if (sv->stub != NULL && (e = dnsstub_wait(sv->stub, cause)) < 0) {
		(void)write_all(sv->sock[0], "n", 1);
		if (ruleset >= 0)
			close(ruleset);
		return e;
	}
	sv->judge = watchjudge_new(ruleset);
	/* The supervisor needs no capability: whatever it performs for the
	 * command, it performs with no more privilege than the command.
	 * (Root has some to drop, and so has the monitor of L3 in the user
	 * namespace it made.) */
	if (caps_held(NULL) > 0)
		(void)caps_drop(false);
	openlog(sv->prefix, LOG_NDELAY, LOG_USER);
	if ((e = write_all(sv->sock[0], "y", 1)) < 0) {
		*cause =
			xasprintf("cannot tell the sandboxed process to go on: "
				  "%s",
				  strerror(-e));
		return e;
	}
	close(sv->sock[0]);
	sv->sock[0] = -1;
	return 0;
}

/* ---- Logging ---- */

static void
log_write(struct supervisor *sv, const char *line)
{
	size_t plen = strlen(sv->prefix);

	/* syslog's ident is the prefix, so the journal shows the line as
	 * it is in the file. */
	if (strncmp(line, sv->prefix, plen) == 0 && line[plen] == ':')
		syslog(LOG_USER | LOG_WARNING, "%s", line + plen + 2);
	else
		syslog(LOG_USER | LOG_WARNING, "%s", line);
	if (sv->logfd >= 0) {
		_cleanup_free_ char *l = xasprintf("%s\n", line);

		(void)write_all(sv->logfd, l, strlen(l));
	}
}

static void
log_suppressed(struct supervisor *sv, unsigned long n)
{
	_cleanup_free_ char *l = xasprintf("%s: suppressed %lu", sv->prefix, n);

	log_write(sv, l);
}

static char *
read_comm(pid_t pid)
{
	char path[64], *s;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	s = file_read_line(path, 64);
	return s != NULL ? s : xstrdup("?");
}

/*
 * A note into the caller's pipe, through its own description (which may
 * be blocking, in packet mode, a page long, full), without ever waiting:
 * vmsplice(SPLICE_F_NONBLOCK) gives EAGAIN where a write would sleep, and
 * needs no reopening (a pipe of another user's, or one the command made
 * mode 0, takes it too).  vmsplice lends the pipe the pages themselves,
 * read when the reader reads: the note goes from a page of its own that
 * nothing of the supervisor's ever shares, unmapped at once (the pipe
 * keeps it alive).  A note that does not fit is dropped.
 */
static void
note_pipe(int fd, const char *note, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	struct iovec iov;
	void *p;

	if (page <= 0 || len > (size_t)page)
		return;
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	memcpy(p, note, len);
	iov = (struct iovec){ .iov_base = p, .iov_len = len };
	(void)vmsplice(fd, &iov, 1, SPLICE_F_NONBLOCK);
	munmap(p, (size_t)page);
}

/*
 * The agent note (DESIGN.md §12): each kind of blocked attempt once per
 * run, on the caller's stderr when that is a pipe, a socket or a regular
 * file (an agent's tool call, a CI log), never a terminal or another
 * device.  The caller holds that descriptor and may do anything to it
 * (DESIGN.md §15): the supervisor never waits on it and never dies of it.
 * A pipe gets it with note_pipe, a socket with MSG_DONTWAIT; SIGPIPE and
 * SIGXFSZ are ignored (monitor_host_signals).  A note that does not fit
 * is dropped.
 */
static void
note_stderr(struct supervisor *sv, int pidfd, enum netpolicy_op op,
	    enum netpolicy_proto proto, const char *target, const char *rule)
{
	_cleanup_free_ char *key = NULL, *note = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len;
	int flags;

	if (!sv->policy->log_stderr || pidfd < 0 || sv->n_noted >= SV_MAX_NOTES)
		return;
	key = xasprintf("%s %s %s", netpolicy_op_name(op),
			netpolicy_proto_name(proto), target);
	/* The kinds already seen, at most SV_MAX_NOTED of them: a command
	 * that tries thousands of targets is not looked up in a list that
	 * long (nor noted again past it). */
	if (sv->n_noted_keys >= SV_MAX_NOTED || strv_contains(sv->noted, key))
		return;
	strv_push(&sv->noted, key);
	sv->n_noted_keys++;
	note = blocked_note(netpolicy_op_name(op), netpolicy_proto_name(proto),
			    target, rule, &sv->bounds);
	if (note == NULL)
		return;
	sv->n_noted++;
	fd = (int)sys_pidfd_getfd(pidfd, STDERR_FILENO, 0);
	if (fd < 0 || fstat(fd, &st) < 0 || isatty(fd))
		return;
	/* Only where the caller may write itself: a pipe it holds for
	 * reading is not one to write to. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
		return;
	len = strlen(note);
	if (S_ISSOCK(st.st_mode)) {
		(void)send(fd, note, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	} else if (S_ISFIFO(st.st_mode)) {
		note_pipe(fd, note, len);
	} else if (S_ISREG(st.st_mode)) {
		(void)write_all(fd, note, len);
	}
}

static void
log_blocked(struct supervisor *sv, enum netpolicy_op op,
	    enum netpolicy_proto proto, const char *target, pid_t pid,
	    int pidfd, const char *rule)
{
	_cleanup_free_ char *comm = NULL, *line = NULL;
	unsigned long rep;

	note_stderr(sv, pidfd, op, proto, target, rule);
	if (!sv->log)
		return;
	if (!netpolicy_ratelimit_take(&sv->rl, supervise_now_ns(), &rep))
		return;
	if (rep > 0)
		log_suppressed(sv, rep);
	comm = read_comm(pid);
	line = netpolicy_log_line(sv->prefix, op, proto, target, pid, comm,
				  rule);
	log_write(sv, line);
}

static void
log_flush(struct supervisor *sv, bool at_exit)
{
	unsigned long rep;

	if (sv->log && netpolicy_ratelimit_flush(&sv->rl, supervise_now_ns(),
						 at_exit, &rep))
		log_suppressed(sv, rep);
}

/* ---- One mediated call ---- */

/* What the handler learnt about a call; sock is the caller's socket. */
struct call {
	const struct seccomp_notif *req;
	pid_t pid;
	int pidfd;
	int sock;
	int domain, type;
	bool nonblock;
	/* Local fds to close when done (SCM_RIGHTS copies). */
	int *fds;
	size_t n_fds;
};

static void
call_done(struct call *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->sock >= 0)
		close(c->sock);
	for (size_t i = 0; i < c->n_fds; i++)
		close(c->fds[i]);
	free(c->fds);
}

/* Sentinel results of a handler. */
#define CALL_PENDING (-100000) /* answered later */
#define CALL_GONE    (-100001) /* the caller is gone: no answer */
#define CALL_CONTINUE                                                          \
	(-100002) /* observed (--learn): let the kernel run it                 \
		   */

static int
mem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { .iov_base = buf, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr,
			   .iov_len = len };
	ssize_t n;

	if (len == 0)
		return 0;
	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n < 0)
		return errno == ESRCH ? CALL_GONE : -EFAULT;
	return (size_t)n == len ? 0 : -EFAULT;
}

static int
mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { .iov_base = (void *)buf, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr,
			   .iov_len = len };

	return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len
		       ? 0
		       : -EFAULT;
}

/*
 * Whether the notification is still pending: while it is, the caller is
 * blocked in this call, so its pid named the caller throughout.  Checked
 * after everything read from the caller (memory, /proc, descriptors) and
 * before acting on it.  Returns 0 or CALL_GONE.
 */
static int
call_valid(const struct supervisor *sv, const struct call *c)
{
	return seccomp_notify_id_valid(sv->listener, c->req->id) == 0
		       ? 0
		       : CALL_GONE;
}

/* err, unless the caller went away meanwhile (then nobody is owed an
 * answer).  Every notification still pending gets one. */
static int
call_error(const struct supervisor *sv, const struct call *c, int err)
{
	return call_valid(sv, c) < 0 ? CALL_GONE : err;
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
static int
call_ids(const struct call *c, struct cmsg_sender *s, pid_t *tgid)
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
static int
call_pidfd(const struct call *c)
{
	struct cmsg_sender s;
	pid_t tgid;
	int fd, r;

	fd = sys_pidfd_open(c->pid, PIDFD_THREAD);
	if (fd >= 0 || errno != EINVAL)
		return fd < 0 ? -errno : fd;
	if ((r = call_ids(c, &s, &tgid)) < 0)
		return r;
	fd = sys_pidfd_open(tgid, 0);
	return fd < 0 ? -errno : fd;
}

/* The caller's socket, and what kind it is. */
static int
call_open(struct supervisor *sv, struct call *c)
{
	socklen_t len = sizeof(int);
	int fl;

	c->pidfd = call_pidfd(c);
	if (c->pidfd < 0)
		return call_error(sv, c, c->pidfd);
	c->sock = sys_pidfd_getfd(c->pidfd, (int)(uint32_t)c->req->data.args[0],
				  0);
	if (c->sock < 0)
		return call_error(sv, c, -errno);
	if (call_valid(sv, c) < 0)
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

static enum netpolicy_proto
call_proto(const struct call *c)
{
	if (c->domain == AF_UNIX)
		return NETPOLICY_UNIX;
	return c->type == SOCK_STREAM ? NETPOLICY_TCP : NETPOLICY_UDP;
}

/* An address copied from the caller, and the one to perform with. */
struct addr_buf {
	union {
		struct sockaddr sa;
		struct sockaddr_storage ss;
		struct sockaddr_un un;
	} u;
	socklen_t len;
	int opath; /* an O_PATH fd the rewritten unix address points at */
};

/* Whether socket sock (of type) has a flag set that lets the kernel
 * share its port: SO_REUSEPORT, or for UDP SO_REUSEADDR. */
static bool
sock_reuses(int sock, int type)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(sock, SOL_SOCKET, SO_REUSEPORT, &v, &len) == 0 && v)
		return true;
	len = sizeof(v);
	return type == SOCK_DGRAM &&
	       getsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &v, &len) == 0 && v;
}

/* Remember an IP socket the sandbox bound (or listen() bound), and
 * whether it may share its port. */
static void
own_ip_record(struct supervisor *sv, const struct call *c)
{
	uint64_t cookie;

	if (sockdiag_cookie(c->sock, &cookie) == 0)
		netpolicy_own_add_ip(sv->own, cookie,
				     sock_reuses(c->sock, c->type));
}

/*
 * The decision's lookup (netpolicy_lookup): whether a connection or
 * datagram to q->addr reaches a socket the sandbox bound and nothing
 * else.  The socket the kernel's lookup finds there (an exact lookup,
 * cheap) must be one the sandbox bound, compared by cookie; where it may
 * share its port (a reuse flag: netpolicy_own_ip_shares), every
 * listener (TCP) or bound socket (UDP) at that port that would get it
 * must be (netpolicy_dest_own, over a dump of the sockets at the port,
 * some 40 us): the kernel answers a lookup with any member of a
 * SO_REUSEPORT group.
 */
static bool
own_socket(void *ctx, const struct netpolicy_query *q)
{
	const struct supervisor *sv = ctx;
	const struct netpolicy_addr *a = &q->addr;
	bool udp = q->proto == NETPOLICY_UDP;
	_cleanup_free_ struct netpolicy_sock *v = NULL;
	uint64_t cookie;
	size_t n;

	if (sv->found_set && !udp && netpolicy_addr_same(&sv->found_at, a) &&
	    sv->found_at.port == a->port)
		cookie = sv->found_cookie;
	else if (sv->own->n_ip == 0 ||
		 sockdiag_inet(a->family, a->a, a->port, udp, &cookie) < 0)
		return false;
	if (!netpolicy_own_has_ip(sv->own, cookie))
		return false;
	/* Without a reuse flag nothing shares its port: it is alone. */
	if (!netpolicy_own_ip_shares(sv->own, cookie))
		return true;
	/* An IPv6 destination: IPv6 sockets alone reach it; an IPv4 one:
	 * IPv4 sockets and IPv6 dual-stack ones. */
	return sockdiag_port(a->family == AF_INET6 ? AF_INET6 : AF_UNSPEC, udp,
			     a->port, &v, &n) == 0 &&
	       netpolicy_dest_own(sv->own, a, v, n);
}

/*
 * The decision's lookup for a bind or listen of the socket being decided
 * (sv->deciding): whether a socket the sandbox did not create holds
 * q->addr's port, in either family, at any address.  A socket table that
 * cannot be read counts as shared: fail closed.
 */
static bool
port_shared(void *ctx, const struct netpolicy_query *q)
{
	const struct supervisor *sv = ctx;
	_cleanup_free_ struct netpolicy_sock *v = NULL;
	uint64_t self = 0;
	size_t n;

	/* In a network namespace of the sandbox's own (net = none), no
	 * host socket shares its ports. */
	if (!sockdiag_same_netns(sv->deciding))
		return false;
	(void)sockdiag_cookie(sv->deciding, &self);
	return sockdiag_port(AF_UNSPEC, q->proto == NETPOLICY_UDP, q->addr.port,
			     &v, &n) < 0 ||
	       netpolicy_port_shared(sv->own, self, v, n);
}

/* Remember a unix socket the sandbox bound: abstract (name from
 * getsockname), or pathname (path_st, the inode bind made). */
static void
own_unix_record(struct supervisor *sv, int sock, const struct stat *path_st)
{
	struct netpolicy_own_unix o = { 0 };
	struct sockaddr_un un;
	socklen_t len = sizeof(un);
	struct stat st;

	if (fstat(sock, &st) < 0 || sockdiag_cookie(sock, &o.cookie) < 0)
		return;
	o.ino = (uint32_t)st.st_ino;
	if (path_st != NULL) {
		o.dev = path_st->st_dev;
		o.vfs_ino = path_st->st_ino;
	} else {
		if (getsockname(sock, (struct sockaddr *)&un, &len) < 0 ||
		    len <= offsetof(struct sockaddr_un, sun_path) + 1 ||
		    un.sun_path[0] != '\0')
			return;
		o.abstract = true;
		o.len = len - offsetof(struct sockaddr_un, sun_path) - 1;
		memcpy(o.name, un.sun_path + 1, o.len);
	}
	netpolicy_own_add_unix(sv->own, &o);
}

/*
 * Whether the unix socket at d is one the sandbox bound and still has:
 * a candidate remembered at bind must still exist (its cookie) and still
 * be bound there.
 */
static bool
own_unix(const struct supervisor *sv, const struct netpolicy_unix_dest *d)
{
	for (size_t i = 0; i < sv->own->n_unix; i++) {
		const struct netpolicy_own_unix *o = &sv->own->unix_[i];
		struct netpolicy_unix now;

		if (netpolicy_own_unix_candidate(o, d) &&
		    sockdiag_unix(o->ino, o->cookie, &now) == 0 &&
		    netpolicy_own_unix_current(d, &now))
			return true;
	}
	return false;
}

/* The path of a pathname unix address, NUL-terminated. */
static char *
unix_path(const struct addr_buf *a)
{
	size_t n = a->len - offsetof(struct sockaddr_un, sun_path);

	return xstrndup(a->u.un.sun_path, n);
}

/*
 * The caller's root (O_PATH) in *root and path made absolute in the
 * caller's view in *abs: a relative path is taken from its cwd, as the
 * caller's own root sees it.  0 or -errno.
 */
static int
child_root_path(pid_t pid, const char *path, int *root, char **abs)
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
static int
child_open(pid_t pid, const char *path, bool parent, char **base)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (parent ? O_DIRECTORY : 0),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int root = -1;
	_cleanup_free_ char *abs = NULL;
	char *slash;
	int fd, r;

	if ((r = child_root_path(pid, path, &root, &abs)) < 0)
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

/* Whether st is the socket of an entry of the unix allow-list. */
static bool
unix_allowed(const struct supervisor *sv, const struct stat *st)
{
	for (size_t i = 0; i < sv->policy->unix_paths.n; i++) {
		struct stat a;

		if (stat(sv->policy->unix_paths.v[i].value, &a) == 0 &&
		    S_ISSOCK(a.st_mode) && a.st_dev == st->st_dev &&
		    a.st_ino == st->st_ino)
			return true;
	}
	return false;
}

/*
 * Check a unix destination and rewrite it to what the supervisor
 * connects to: for a pathname, /proc/self/fd/N of the socket inode it
 * resolved, so what it checked is what it reaches (no second lookup of
 * the caller's string).  Returns 0, or -errno; *rule set when refused.
 */
static int
unix_destination(struct supervisor *sv, const struct call *c,
		 struct addr_buf *a, const char **rule)
{
	_cleanup_free_ char *path = NULL;
	struct netpolicy_unix_dest d;
	struct stat st;
	size_t n;
	int fd;

	if (a->len <= offsetof(struct sockaddr_un, sun_path) ||
	    a->u.sa.sa_family != AF_UNIX)
		return 0; /* AF_UNSPEC (disconnect) or invalid: harmless */
	n = a->len - offsetof(struct sockaddr_un, sun_path);
	if (a->u.un.sun_path[0] == '\0') {
		/* Abstract: Landlock's scope would judge the supervisor, not
		 * the caller, so the supervisor applies it: only names the
		 * sandbox bound. */
		d = (struct netpolicy_unix_dest){ .abstract = true,
						  .name = a->u.un.sun_path + 1,
						  .len = n - 1 };
		if (own_unix(sv, &d))
			return 0;
		*rule = "filtered/abstract";
		return -EACCES;
	}
	path = unix_path(a);
	fd = child_open(c->pid, path, false, NULL);
	if (fd < 0) {
		/* Say ENOENT only where the policy lets the command see. */
		if ((fd == -ENOENT || fd == -ENOTDIR) && path[0] == '/' &&
		    policy_access_at(sv->policy, path, NULL) != LLW_ACCESS_DENY)
			return fd;
		*rule = "filtered/unix";
		return -EACCES;
	}
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		return -ECONNREFUSED;
	}
	/* unix-sockets = allow only lets AF_UNIX sockets be created: as
	 * under Landlock ABI 9, for which the supervisor stands in on older
	 * kernels (DESIGN.md §14), host sockets need the allow-list. */
	d = (struct netpolicy_unix_dest){ .dev = st.st_dev, .ino = st.st_ino };
	if (!own_unix(sv, &d) && !unix_allowed(sv, &st)) {
		close(fd);
		*rule = "filtered/unix";
		return -EACCES;
	}
	memset(&a->u.un, 0, sizeof(a->u.un));
	a->u.un.sun_family = AF_UNIX;
	snprintf(a->u.un.sun_path, sizeof(a->u.un.sun_path), "/proc/self/fd/%d",
		 fd);
	a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			     strlen(a->u.un.sun_path) + 1);
	a->opath = fd;
	return 0;
}

/* The log target of an address. */
static char *
addr_target(const struct call *c, const struct addr_buf *a)
{
	struct netpolicy_addr ip;

	if (c->domain == AF_UNIX) {
		size_t n;

		if (a->len <= offsetof(struct sockaddr_un, sun_path))
			return xstrdup("?");
		n = a->len - offsetof(struct sockaddr_un, sun_path);
		if (a->u.un.sun_path[0] == '\0')
			return xasprintf("@%.*s", (int)(n - 1),
					 a->u.un.sun_path + 1);
		return unix_path(a);
	}
	if (netpolicy_addr_from_sockaddr(&a->u, a->len, &ip) == 0)
		return value_addr_format(&ip);
	return xstrdup("?");
}

/* Put ip's address (not its port) into ss, of ss's own family; an IPv4
 * address in an AF_INET6 sockaddr is IPv4-mapped. */
static void
sockaddr_set_ip(struct sockaddr_storage *ss, const struct netpolicy_addr *ip)
{
	if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (ip->family == AF_INET) {
			memset(&s6->sin6_addr, 0, 10);
			memset(s6->sin6_addr.s6_addr + 10, 0xff, 2);
			memcpy(s6->sin6_addr.s6_addr + 12, ip->a, 4);
		} else {
			memcpy(&s6->sin6_addr, ip->a, 16);
		}
	} else {
		/* AF_INET, or an IPv4 bind with AF_UNSPEC: now AF_INET. */
		ss->ss_family = AF_INET;
		memcpy(&((struct sockaddr_in *)ss)->sin_addr, ip->a, 4);
	}
}

/* ---- allow-host through llwrap's resolver (design (a)) ---- */

/* The clock learned addresses expire by, in seconds. */
static uint64_t
learned_now(uint64_t now_ns)
{
	return now_ns / 1000000000u + testhook_clock_skew();
}

/* The decision's lookup (netpolicy_lookup) and the learning's: whether
 * a is this host or on one of its links (sockdiag_host_local). */
static bool
host_local(void *ctx, const struct netpolicy_addr *a)
{
	const struct supervisor *sv = ctx;

	return sockdiag_host_local(sv->host, a);
}

static struct asker *
asker_find(struct supervisor *sv, uint16_t port, uint8_t proto)
{
	for (size_t i = 0; i < SV_MAX_ASKERS; i++)
		if (sv->askers[i].pid > 0 && sv->askers[i].port == port &&
		    sv->askers[i].proto == proto)
			return &sv->askers[i];
	return NULL;
}

/* One record of the stub's: a refusal is logged, an answer learned. */
static void
stub_record(struct supervisor *sv, const struct dnsstub_record *rec)
{
	struct asker *who = asker_find(sv, rec->client_port, rec->proto);
	struct netpolicy_addr refused[DNS_ANSWER_ADDRS];
	size_t n_refused;

	if (rec->kind == DNSSTUB_REFUSED) {
		log_blocked(sv, NETPOLICY_QUERY, rec->proto, rec->name,
			    who ? who->pid : 0, who ? who->pidfd : -1,
			    rec->log_rule);
		return;
	}
	if (rec->rule < 0 || (size_t)rec->rule >= sv->policy->n_hosts)
		return;
	hostdns_learn(sv->learned, &rec->answer, (uint16_t)rec->rule,
		      learned_now(supervise_now_ns()), host_local, sv, refused,
		      DNS_ANSWER_ADDRS, &n_refused);
	for (size_t i = 0; i < n_refused; i++) {
		sv->rebind[sv->next_rebind] = refused[i];
		sv->next_rebind = (sv->next_rebind + 1) % SV_MAX_REBIND;
		if (sv->n_rebind < SV_MAX_REBIND)
			sv->n_rebind++;
	}
}

/* Take what the stub reported: before any decision, so an answer the
 * command has is learned. */
static void
stub_drain(struct supervisor *sv)
{
	struct dnsstub_record rec;
	int r;

	while (sv->stub != NULL && !sv->stub_gone &&
	       (r = dnsstub_read(sv->stub, &rec)) != 0) {
		if (r < 0) {
			/* Killed: its socket would wake every poll.  DNS
			 * now fails (closed), nothing else changes. */
			sv->stub_gone = true;
			break;
		}
		stub_record(sv, &rec);
	}
}

static enum netpolicy_named
named_lookup(void *ctx, const struct netpolicy_query *q)
{
	struct supervisor *sv = ctx;
	const struct policy *p = sv->policy;
	const struct llw_ports *ports =
		q->proto == NETPOLICY_TCP ? &p->connect_tcp : &p->connect_udp;
	bool port_only;
	int rule;

	stub_drain(sv);
	switch (hostaddrs_decide(sv->learned, p->hosts, p->n_hosts, ports,
				 &q->addr, learned_now(q->now_ns), &rule)) {
	case HOSTRULE_ALLOWED:
		return NETPOLICY_NAMED_YES;
	case HOSTRULE_PORT:
		port_only = true;
		break;
	default:
		port_only = false;
		break;
	}
	for (size_t i = 0; i < sv->n_fixed; i++) {
		if (!netpolicy_addr_same(&sv->fixed[i].addr, &q->addr))
			continue;
		if (hostrule_port(&p->hosts[sv->fixed[i].rule], ports,
				  q->addr.port))
			return NETPOLICY_NAMED_YES;
		port_only = true;
	}
	if (port_only)
		return NETPOLICY_NAMED_PORT;
	for (size_t i = 0; i < sv->n_rebind; i++)
		if (netpolicy_addr_same(&sv->rebind[i], &q->addr))
			return NETPOLICY_NAMED_REBIND;
	return NETPOLICY_NAMED_NO;
}

/* Whether the caller's descriptor is close-on-exec (its fdinfo). */
static bool
caller_cloexec(const struct call *c)
{
	char path[80], *s, *flags;
	unsigned long v = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)c->pid,
		 (int)(uint32_t)c->req->data.args[0]);
	{
		_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fd_read_all(fd, 4096, &s, NULL) < 0)
			return true;
	}
	flags = strstr(s, "flags:");
	if (flags != NULL)
		v = strtoul(flags + 6, NULL, 8);
	free(s);
	return flags == NULL || (v & O_CLOEXEC);
}

enum {
	SWAP_NO,      /* not a resolver's port 53: decide as usual */
	SWAP_DONE,    /* swapped: c->sock is the stub's socket now */
	SWAP_ALREADY, /* the stub's socket already: it reaches nothing
		       * else, perform the call as it is */
};

/*
 * A connect (connected) or send to a resolver's port 53 under llwrap's
 * resolver: the caller's socket becomes one the stub made in its own
 * namespace (connected to that resolver's address there, for a
 * connect), at the same descriptor number (SECCOMP_IOCTL_NOTIF_ADDFD),
 * so the replies come from the address the command expects.  Returns a
 * SWAP_* or -errno.
 */
static int
stub_swap(struct supervisor *sv, struct call *c, const struct addr_buf *a,
	  bool connected)
{
	struct netpolicy_addr ip;
	struct seccomp_notif_addfd af = { 0 };
	struct sockaddr_storage self;
	socklen_t sl = sizeof(self);
	struct asker *who;
	uint64_t cookie = 0;
	bool resolver = false;
	int fd, r;

	if (sv->stub == NULL ||
	    (c->domain != AF_INET && c->domain != AF_INET6) ||
	    (c->type != SOCK_DGRAM && c->type != SOCK_STREAM) ||
	    (c->type == SOCK_STREAM && !connected) ||
	    netpolicy_addr_from_sockaddr(&a->u, a->len, &ip) < 0 ||
	    ip.port != 53)
		return SWAP_NO;
	for (size_t i = 0; i < sv->n_dns && !resolver; i++)
		resolver = netpolicy_addr_same(&sv->dns[i], &ip);
	if (!resolver)
		return SWAP_NO;
	if (sockdiag_cookie(c->sock, &cookie) == 0)
		for (size_t i = 0; i < sv->n_swapped; i++)
			if (sv->swapped[i] == cookie)
				return SWAP_ALREADY;
	if (sv->stub_gone)
		return -ECONNREFUSED;
	if ((r = dnsstub_socket(sv->stub, c->domain, c->type, &ip, connected,
				&fd)) < 0)
		return r;
	if ((c->nonblock && fcntl(fd, F_SETFL, O_NONBLOCK) < 0) ||
	    (r = call_valid(sv, c)) < 0) {
		r = r < 0 ? r : -errno;
		close(fd);
		return r;
	}
	af.id = c->req->id;
	af.flags = SECCOMP_ADDFD_FLAG_SETFD;
	af.srcfd = (uint32_t)fd;
	af.newfd = (uint32_t)c->req->data.args[0];
	af.newfd_flags = caller_cloexec(c) ? O_CLOEXEC : 0;
	if (ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &af) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (sockdiag_cookie(fd, &cookie) == 0) {
		sv->swapped[sv->next_swapped] = cookie;
		sv->next_swapped = (sv->next_swapped + 1) % SV_MAX_SWAPPED;
		if (sv->n_swapped < SV_MAX_SWAPPED)
			sv->n_swapped++;
	}
	/* Who asks from this port, for the log of what the stub refuses. */
	if (getsockname(fd, (struct sockaddr *)&self, &sl) == 0) {
		who = &sv->askers[sv->next_asker];
		sv->next_asker = (sv->next_asker + 1) % SV_MAX_ASKERS;
		if (who->pidfd >= 0)
			close(who->pidfd);
		who->port = ntohs(
			self.ss_family == AF_INET6
				? ((struct sockaddr_in6 *)&self)->sin6_port
				: ((struct sockaddr_in *)&self)->sin_port);
		who->proto = (uint8_t)call_proto(c);
		who->pid = c->pid;
		who->pidfd = fcntl(c->pidfd, F_DUPFD_CLOEXEC, 3);
	}
	close(c->sock);
	c->sock = fd;
	return SWAP_DONE;
}

/*
 * Whether the caller's IP socket carries source routing, set by any
 * option (an IPv6 routing header of any type, an IPv4 loose or strict
 * source route): its packets would go to the route's first hop, not the
 * destination decided.  The filter refuses every option that sets one
 * (filter.c); this holds should one come another way (a socket passed
 * in from outside, an option a kernel adds).  A socket whose options
 * cannot be read counts as routed.
 */
static bool
call_source_routed(const struct call *c)
{
	uint8_t opt[40], rthdr[8];
	socklen_t len = sizeof(opt), rlen = 0;

	if (c->domain != AF_INET && c->domain != AF_INET6)
		return false;
	if (getsockopt(c->sock, IPPROTO_IP, IP_OPTIONS, opt, &len) < 0)
		return true;
	if (c->domain == AF_INET6) {
		rlen = sizeof(rthdr);
		if (getsockopt(c->sock, IPPROTO_IPV6, IPV6_RTHDR, rthdr,
			       &rlen) < 0)
			return true;
	}
	return netpolicy_source_routed(opt, len, rlen);
}

/* Refuse op to a on a source-routed socket (call_source_routed): 0 when
 * it is not, else -EPERM, logged. */
static int
check_route(struct supervisor *sv, const struct call *c, enum netpolicy_op op,
	    const struct addr_buf *a)
{
	_cleanup_free_ char *t = NULL;

	if (!call_source_routed(c))
		return 0;
	if (a != NULL) {
		t = addr_target(c, a);
	} else {
		struct addr_buf peer = { .len = sizeof(peer.u), .opath = -1 };

		/* A send on a connected socket: its peer. */
		t = getpeername(c->sock, &peer.u.sa, &peer.len) == 0
			    ? addr_target(c, &peer)
			    : xstrdup("?");
	}
	log_blocked(sv, op, call_proto(c), t, c->pid, c->pidfd,
		    "filtered/source-route");
	return -EPERM;
}

/*
 * Decide on an address for op on the caller's socket, and rewrite it
 * where the supervisor must (unix).  Returns 0 to perform the call,
 * -errno to answer with.
 */
static int
check_addr(struct supervisor *sv, const struct call *c, enum netpolicy_op op,
	   struct addr_buf *a)
{
	const char *rule = NULL;
	struct netpolicy_addr ip;
	struct netpolicy_lookup lookup = { .own_socket = own_socket,
					   .named = named_lookup,
					   .host_local = host_local,
					   .port_shared = port_shared,
					   .ctx = sv };
	struct netpolicy_query q = { .proto = NETPOLICY_UNIX };
	int r;

	if (c->domain == AF_NETLINK)
		return 0; /* NETLINK_ROUTE only: the filter saw to that */
	if (c->domain == AF_UNIX) {
		r = op == NETPOLICY_BIND ? 0
					 : unix_destination(sv, c, a, &rule);
		goto out;
	}
	if (c->domain != AF_INET && c->domain != AF_INET6)
		return -EAFNOSUPPORT;
	if (a->len < sizeof(sa_family_t))
		return -EINVAL;
	/*
	 * AF_UNSPEC: connect() disconnects, which reaches nothing.  But an
	 * IPv4 bind() with AF_UNSPEC and INADDR_ANY binds, and an IPv4 UDP
	 * send with AF_UNSPEC sends to the address it holds: there the
	 * address is read as AF_INET, as the kernel reads it.
	 */
	if (a->u.sa.sa_family == AF_UNSPEC) {
		if (op == NETPOLICY_CONNECT)
			return 0;
		if (a->len < sizeof(struct sockaddr_in))
			return -EINVAL;
		a->u.sa.sa_family = AF_INET;
		r = netpolicy_addr_from_sockaddr(&a->u, a->len, &ip);
		a->u.sa.sa_family = AF_UNSPEC;
	} else {
		r = netpolicy_addr_from_sockaddr(&a->u, a->len, &ip);
	}
	if (r < 0)
		return r;
	if (op == NETPOLICY_BIND) {
		if (netpolicy_bind_address(sv->rules, &ip))
			sockaddr_set_ip(&a->u.ss, &ip);
	} else {
		netpolicy_addr_destination(&ip);
	}
	q = (struct netpolicy_query){ .op = op,
				      .proto = call_proto(c),
				      .addr = ip,
				      .now_ns = supervise_now_ns() };
	sv->deciding = c->sock;
	rule = netpolicy_decide(sv->rules, &q, &lookup);
	/* A port in use is in use: programs try another, as they would
	 * when the kernel says so. */
	r = rule == NULL				? 0
	    : strcmp(rule, "filtered/shared-port") == 0 ? -EADDRINUSE
							: -EACCES;
out:
	if (rule != NULL && !netpolicy_quiet(&q)) {
		_cleanup_free_ char *t = addr_target(c, a);

		log_blocked(sv, op, call_proto(c), t, c->pid, c->pidfd, rule);
	}
	return r;
}

static int
read_addr(const struct call *c, uint64_t ptr, uint64_t len, struct addr_buf *a)
{
	memset(a, 0, sizeof(*a));
	a->opath = -1;
	if ((int64_t)(int32_t)len < 0 || len > sizeof(a->u))
		return -EINVAL;
	a->len = (socklen_t)len;
	return mem_read(c->pid, ptr, &a->u, (size_t)len);
}

/* The answer to a call that would block and the caller wants to wait:
 * queue it until its socket is writable (or a moment passed). */
static int
queue(struct supervisor *sv, struct call *c, enum pending_kind kind)
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
	p->deadline_ns = supervise_now_ns() + 10 * 1000000u;
	c->sock = -1;
	return CALL_PENDING;
}

/*
 * A connect to llwrap's proxy: tell it which process the client is, by
 * the socket's local port, so its log names it as this log would.  The
 * line is written before the caller learns its connect worked, so it is
 * there before the proxy reads a request.  Never blocks: a note that
 * does not fit is dropped.
 */
static void
proxy_note(struct supervisor *sv, const struct call *c,
	   const struct addr_buf *a)
{
	struct netpolicy_addr dst;
	struct sockaddr_in self;
	socklen_t sl = sizeof(self);
	_cleanup_free_ char *comm = NULL, *line = NULL;

	if (sv->proxy_note_fd < 0 || c->domain != AF_INET ||
	    netpolicy_addr_from_sockaddr(&a->u.sa, a->len, &dst) < 0 ||
	    dst.family != AF_INET || dst.port != sv->proxy.port ||
	    memcmp(dst.a, sv->proxy.a, 4) != 0 ||
	    getsockname(c->sock, (struct sockaddr *)&self, &sl) < 0)
		return;
	comm = read_comm(c->pid);
	for (char *p = comm; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			*p = '?';
	line = xasprintf("%u %d %s\n", ntohs(self.sin_port), (int)c->pid, comm);
	(void)!write(sv->proxy_note_fd, line, strlen(line));
}

/*
 * A socket bound to a port the kernel chose (bind to port 0): with
 * SO_REUSEADDR or SO_REUSEPORT set, a UDP socket's choice may land on a
 * port a host socket with the same flag holds, and share it (its
 * datagrams).  Such a socket is unbound again (a disconnect drops a
 * port the kernel chose, not one asked for) and bound again, a few
 * times; then EADDRINUSE.  TCP needs nothing here: a listener is
 * checked at listen(), and nothing else receives.
 */
static int
udp_ephemeral_unshared(struct supervisor *sv, const struct call *c,
		       const struct addr_buf *a)
{
	struct sockaddr_storage ss;
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct netpolicy_query q = { .op = NETPOLICY_BIND,
				     .proto = NETPOLICY_UDP };

	for (int i = 0; i < 8; i++) {
		socklen_t len = sizeof(ss);

		if (getsockname(c->sock, (struct sockaddr *)&ss, &len) < 0 ||
		    netpolicy_addr_from_sockaddr(&ss, len, &q.addr) < 0)
			return -errno;
		sv->deciding = c->sock;
		if (!port_shared(sv, &q))
			return 0;
		if (connect(c->sock, &unspec, sizeof(unspec)) < 0 ||
		    bind(c->sock, &a->u.sa, a->len) < 0)
			return -errno;
	}
	return -EADDRINUSE;
}

/* Whether the caller's socket has SO_REUSEADDR or SO_REUSEPORT set:
 * the kernel then lets it share a port. */
static bool
call_reuses(const struct call *c)
{
	int v = 0;
	socklen_t len = sizeof(v);

	return sock_reuses(c->sock, c->type) ||
	       (getsockopt(c->sock, SOL_SOCKET, SO_REUSEADDR, &v, &len) == 0 &&
		v);
}

/*
 * Before a UDP connect or send with a destination: a socket not bound
 * yet would be bound by the kernel to a port it chooses (autobind).
 * Where it reuses ports, the supervisor binds it first, to the
 * unspecified address as autobind would, and keeps it off a port a host
 * socket holds (udp_ephemeral_unshared).  0 or -errno.
 */
static int
udp_autobind(struct supervisor *sv, const struct call *c)
{
	struct addr_buf any = { .opath = -1 };
	struct netpolicy_addr ip;

	if (c->type != SOCK_DGRAM ||
	    (c->domain != AF_INET && c->domain != AF_INET6) || !call_reuses(c))
		return 0;
	any.len = sizeof(any.u);
	if (getsockname(c->sock, &any.u.sa, &any.len) < 0 ||
	    netpolicy_addr_from_sockaddr(&any.u, any.len, &ip) < 0 ||
	    ip.port != 0)
		return 0;
	memset(&any.u, 0, sizeof(any.u));
	any.u.sa.sa_family = (sa_family_t)c->domain;
	any.len = c->domain == AF_INET ? sizeof(struct sockaddr_in)
				       : sizeof(struct sockaddr_in6);
	if (bind(c->sock, &any.u.sa, any.len) < 0)
		return -errno;
	return udp_ephemeral_unshared(sv, c, &any);
}

/* The port in an IP socket address (either family). */
static void
sockaddr_set_port(struct addr_buf *a, uint16_t port)
{
	if (a->u.sa.sa_family == AF_INET6)
		((struct sockaddr_in6 *)&a->u)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&a->u)->sin_port = htons(port);
}

/*
 * Whether the sandbox's listener cookie still listens at at (an address
 * and port): the listener the kernel's lookup finds there.  Whether
 * nothing else does is own_socket's to ask, at the connect.
 */
static bool
private_listening(const struct netpolicy_addr *at, uint64_t cookie)
{
	uint64_t found;

	return sockdiag_inet(at->family, at->a, at->port, false, &found) == 0 &&
	       found == cookie;
}

/*
 * A TCP connect to a port one of the sandbox's own listeners asked for
 * (private_bind): to where that listener is, while it still listens
 * there (whether it is there alone, the decision asks: own_socket, told
 * what was found).
 */
static void
private_destination(struct supervisor *sv, const struct call *c,
		    struct addr_buf *a)
{
	const struct netpolicy_private *p;
	struct netpolicy_addr d;

	if (sv->own->n_priv == 0 || c->type != SOCK_STREAM ||
	    (c->domain != AF_INET && c->domain != AF_INET6) ||
	    a->u.sa.sa_family == AF_UNSPEC ||
	    netpolicy_addr_from_sockaddr(&a->u, a->len, &d) < 0)
		return;
	netpolicy_addr_destination(&d);
	if ((p = netpolicy_own_private(sv->own, &d)) == NULL)
		return;
	d.port = p->port;
	if (!private_listening(&d, p->cookie))
		return;
	sockaddr_set_port(a, p->port);
	sv->found_set = true;
	sv->found_at = d;
	sv->found_cookie = p->cookie;
}

static int
do_connect(struct supervisor *sv, struct call *c)
{
	struct addr_buf a;
	int r, e, fl;

	if ((r = read_addr(c, c->req->data.args[1], c->req->data.args[2], &a)) <
		    0 ||
	    (r = call_open(sv, c)) < 0)
		return r;
	if ((r = stub_swap(sv, c, &a, true)) < 0 || r == SWAP_DONE)
		return r < 0 ? r : 0;
	if (r == SWAP_NO) {
		private_destination(sv, c, &a);
		r = check_addr(sv, c, NETPOLICY_CONNECT, &a);
		sv->found_set = false;
		if (r < 0)
			return r;
	}
	if ((r = check_route(sv, c, NETPOLICY_CONNECT, &a)) < 0 ||
	    (r = udp_autobind(sv, c)) < 0 || (r = call_valid(sv, c)) < 0) {
		if (a.opath >= 0)
			close(a.opath);
		return r;
	}
	/* A blocking connect runs in the background: non-blocking on the
	 * caller's file for the moment it takes to start, then answered
	 * from poll. */
	fl = fcntl(c->sock, F_GETFL);
	if (!c->nonblock)
		fcntl(c->sock, F_SETFL, fl | O_NONBLOCK);
	r = connect(c->sock, &a.u.sa, a.len);
	e = errno;
	if (!c->nonblock)
		fcntl(c->sock, F_SETFL, fl);
	if (a.opath >= 0)
		close(a.opath);
	if (r == 0 || e == EINPROGRESS)
		proxy_note(sv, c, &a);
	if (r == 0)
		return 0;
	if (!c->nonblock && e == EINPROGRESS)
		return queue(sv, c, PENDING_CONNECT);
	/* A unix listener with a full backlog: a blocking caller waits. */
	if (!c->nonblock && e == EAGAIN && c->domain == AF_UNIX)
		return queue(sv, c, PENDING_TIMER);
	return -e;
}

/* bind() of a pathname unix socket: in the directory the caller names,
 * when the policy lets the command create entries there. */
static int
unix_bind(struct supervisor *sv, struct call *c, struct addr_buf *a)
{
	_cleanup_free_ char *path = unix_path(a), *base = NULL;
	_cleanup_close_ int dir = -1;
	char self[64], real[4096];
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct stat st;
	ssize_t n;
	int r, e;

	dir = child_open(c->pid, path, true, &base);
	if (dir < 0)
		return dir == -ELOOP ? -EACCES : dir;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", dir);
	n = readlink(self, real, sizeof(real) - 1);
	if (n < 0)
		return -EACCES;
	real[n] = '\0';
	if (!policy_access_writable(policy_access_at(sv->policy, real, NULL))) {
		log_blocked(sv, NETPOLICY_BIND, NETPOLICY_UNIX, path, c->pid,
			    c->pidfd, "filtered/unix-bind");
		return -EACCES;
	}
	if (strlen(base) >= sizeof(un.sun_path))
		return -EINVAL;
	if ((r = call_valid(sv, c)) < 0)
		return r;
	strcpy(un.sun_path, base);
	/* The supervisor has one thread, so its working directory is its
	 * own to move: bind the last component in the directory it
	 * checked, not the caller's string again. */
	if (fchdir(dir) < 0)
		return -errno;
	r = bind(c->sock, (struct sockaddr *)&un,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			     strlen(base) + 1));
	e = errno;
	if (chdir("/") < 0)
		abort();
	if (r < 0)
		return -e;
	if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISSOCK(st.st_mode))
		own_unix_record(sv, c->sock, &st);
	return 0;
}

/*
 * A TCP bind to a loopback port no rule publishes
 * (netpolicy_bind_published): the sandbox's own server, reachable from
 * the sandbox alone (DESIGN.md §16).  The supervisor binds it to a port
 * of the kernel's choosing instead, and sends the sandbox's clients of
 * the asked port there (private_destination): a host program knocking at
 * the asked port finds nothing (its connection is refused at once), and
 * a host service may still take that port.  A socket of a SO_REUSEPORT
 * group of the sandbox's own joins its group where it now listens.  The
 * command is told (filtered/unpublished), with the flag that publishes
 * the port.
 */
static int
private_bind(struct supervisor *sv, struct call *c, struct addr_buf *a,
	     const struct netpolicy_addr *asked)
{
	const struct netpolicy_private *p =
		netpolicy_own_private(sv->own, asked);
	struct netpolicy_addr at = *asked, got;
	struct addr_buf self = { .len = sizeof(self.u), .opath = -1 };
	_cleanup_free_ char *t = NULL;
	uint64_t cookie;

	at.port = p != NULL ? p->port : 0;
	if (at.port == 0 || !call_reuses(c) ||
	    !private_listening(&at, p->cookie))
		at.port = 0;
	sockaddr_set_port(a, at.port);
	if (bind(c->sock, &a->u.sa, a->len) < 0) {
		/* The group's port went to someone else: a port of its own. */
		if (at.port == 0 || errno != EADDRINUSE)
			return -errno;
		sockaddr_set_port(a, 0);
		if (bind(c->sock, &a->u.sa, a->len) < 0)
			return -errno;
	}
	if (getsockname(c->sock, &self.u.sa, &self.len) < 0 ||
	    netpolicy_addr_from_sockaddr(&self.u, self.len, &got) < 0 ||
	    sockdiag_cookie(c->sock, &cookie) < 0)
		return -EADDRNOTAVAIL;
	own_ip_record(sv, c);
	netpolicy_own_add_private(sv->own, asked, got.port, cookie);
	t = value_addr_format(asked);
	log_blocked(sv, NETPOLICY_BIND, NETPOLICY_TCP, t, c->pid, c->pidfd,
		    "filtered/unpublished");
	return 0;
}

static int
do_bind(struct supervisor *sv, struct call *c)
{
	struct addr_buf a;
	struct netpolicy_addr ip;
	bool inet;
	int r;

	if ((r = read_addr(c, c->req->data.args[1], c->req->data.args[2], &a)) <
		    0 ||
	    (r = call_open(sv, c)) < 0)
		return r;
	if (c->domain == AF_UNIX && a.len > sizeof(sa_family_t) &&
	    a.u.sa.sa_family == AF_UNIX && a.u.un.sun_path[0] != '\0')
		return unix_bind(sv, c, &a);
	if ((r = check_addr(sv, c, NETPOLICY_BIND, &a)) < 0 ||
	    (r = call_valid(sv, c)) < 0)
		return r;
	inet = (c->domain == AF_INET || c->domain == AF_INET6) &&
	       netpolicy_addr_from_sockaddr(&a.u, a.len, &ip) == 0;
	if (inet && c->type == SOCK_STREAM && ip.port != 0 &&
	    !netpolicy_bind_published(sv->rules, NETPOLICY_TCP, &ip))
		return private_bind(sv, c, &a, &ip);
	if (bind(c->sock, &a.u.sa, a.len) < 0)
		return -errno;
	if (c->domain == AF_UNIX) {
		own_unix_record(sv, c->sock, NULL);
		return 0;
	}
	if (inet && ip.port == 0 && c->type == SOCK_DGRAM && call_reuses(c) &&
	    (r = udp_ephemeral_unshared(sv, c, &a)) < 0)
		return r;
	if (c->domain == AF_INET || c->domain == AF_INET6)
		own_ip_record(sv, c);
	return 0;
}

/*
 * listen(): on an unbound IP socket the kernel binds the wildcard
 * address on an ephemeral port first, which is checked as that bind
 * (and made loopback).  Then a TCP listener must not share its port with
 * a socket the sandbox did not create (filtered/shared-port: a
 * SO_REUSEPORT group, the other family's loopback).
 */
static int
do_listen(struct supervisor *sv, struct call *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct netpolicy_addr ip;
	bool inet;
	int r;

	if ((r = call_open(sv, c)) < 0)
		return r;
	inet = (c->domain == AF_INET || c->domain == AF_INET6) &&
	       getsockname(c->sock, (struct sockaddr *)&ss, &len) == 0 &&
	       netpolicy_addr_from_sockaddr(&ss, len, &ip) == 0;
	if (inet && ip.port == 0) {
		bool loopback = netpolicy_bind_address(sv->rules, &ip);
		struct netpolicy_query q = { .op = NETPOLICY_LISTEN,
					     .proto = call_proto(c),
					     .addr = ip,
					     .now_ns = supervise_now_ns() };
		const char *rule = netpolicy_decide(sv->rules, &q, NULL);

		if (rule != NULL) {
			_cleanup_free_ char *t = value_addr_format(&ip);

			log_blocked(sv, NETPOLICY_LISTEN, call_proto(c), t,
				    c->pid, c->pidfd, rule);
			return -EACCES;
		}
		/* The kernel would bind the wildcard: bind loopback first. */
		sockaddr_set_ip(&ss, &ip);
		if (loopback && bind(c->sock, (struct sockaddr *)&ss, len) < 0)
			return -errno;
		len = sizeof(ss);
		inet = getsockname(c->sock, (struct sockaddr *)&ss, &len) ==
			       0 &&
		       netpolicy_addr_from_sockaddr(&ss, len, &ip) == 0;
	}
	if (inet && c->type == SOCK_STREAM && ip.port != 0) {
		struct netpolicy_query q = { .op = NETPOLICY_LISTEN,
					     .proto = NETPOLICY_TCP,
					     .addr = ip };

		sv->deciding = c->sock;
		if (netpolicy_refuses_sharing(sv->rules) &&
		    port_shared(sv, &q)) {
			_cleanup_free_ char *t = value_addr_format(&ip);

			log_blocked(sv, NETPOLICY_LISTEN, NETPOLICY_TCP, t,
				    c->pid, c->pidfd, "filtered/shared-port");
			return -EADDRINUSE;
		}
	}
	if ((r = call_valid(sv, c)) < 0)
		return r;
	if (listen(c->sock, (int)(uint32_t)c->req->data.args[1]) < 0)
		return -errno;
	if (c->domain == AF_UNIX)
		own_unix_record(sv, c->sock, NULL);
	else
		own_ip_record(sv, c);
	return 0;
}

/* A message copied from the caller, ready to send from here. */
struct msg_buf {
	struct addr_buf name;
	bool has_name;
	char *data;
	size_t len;
	char *control;
	size_t controllen;
};

static void
msg_buf_free(struct msg_buf *m)
{
	if (m->name.opath >= 0)
		close(m->name.opath);
	free(m->data);
	free(m->control);
}

/* cmsg_take_fn: one of the caller's descriptors, for SCM_RIGHTS. */
static int
take_fd(void *ctx, int fd)
{
	struct call *c = ctx;
	int own = sys_pidfd_getfd(c->pidfd, fd, 0);

	if (own < 0)
		return errno == EBADF ? -EBADF : -errno;
	c->fds = xreallocarray(c->fds, c->n_fds + 1, sizeof(int));
	c->fds[c->n_fds++] = own;
	return own;
}

/*
 * Replace the control data copied from the caller with what the
 * supervisor may send in its name (cmsg_rebuild): SCM_RIGHTS with its
 * own copies of the caller's descriptors, SCM_CREDENTIALS checked
 * against the caller and renamed to the supervisor.
 */
static int
rebuild_control(struct call *c, struct msg_buf *m)
{
	struct cmsg_sender s = { .family = c->domain, .fwd_pid = getpid() };
	void *out;
	size_t len;
	pid_t tgid;
	int r;

	if ((r = call_ids(c, &s, &tgid)) < 0)
		return r;
	if ((r = cmsg_rebuild(m->control, m->controllen, &s, take_fd, c, &out,
			      &len)) < 0)
		return r;
	free(m->control);
	m->control = out;
	m->controllen = len;
	return 0;
}

/* Copy the struct msghdr at ptr out of the caller. */
static int
read_msg(struct call *c, uint64_t ptr, struct msg_buf *m)
{
	struct msghdr h;
	_cleanup_free_ struct iovec *iov = NULL;
	size_t total = 0;
	int r;

	memset(m, 0, sizeof(*m));
	m->name.opath = -1;
	if ((r = mem_read(c->pid, ptr, &h, sizeof(h))) < 0)
		return r;
	if (h.msg_name != NULL && h.msg_namelen > 0) {
		if ((r = read_addr(c, (uintptr_t)h.msg_name, h.msg_namelen,
				   &m->name)) < 0)
			return r;
		m->has_name = true;
	}
	if (h.msg_iovlen > SV_MAX_IOV)
		return -EMSGSIZE;
	iov = xcalloc(h.msg_iovlen + 1, sizeof(*iov));
	if ((r = mem_read(c->pid, (uintptr_t)h.msg_iov, iov,
			  h.msg_iovlen * sizeof(*iov))) < 0)
		return r;
	for (size_t i = 0; i < h.msg_iovlen; i++)
		total += iov[i].iov_len < SV_MAX_PAYLOAD ? iov[i].iov_len
							 : SV_MAX_PAYLOAD;
	if (total > SV_MAX_PAYLOAD) {
		if (c->type != SOCK_STREAM)
			return -EMSGSIZE;
		total = SV_MAX_PAYLOAD; /* a stream send may be short */
	}
	m->data = xmalloc(total + 1);
	for (size_t i = 0; i < h.msg_iovlen && m->len < total; i++) {
		size_t n = iov[i].iov_len;

		if (n > total - m->len)
			n = total - m->len;
		if ((r = mem_read(c->pid, (uintptr_t)iov[i].iov_base,
				  m->data + m->len, n)) < 0)
			return r;
		m->len += n;
	}
	if (h.msg_control != NULL && h.msg_controllen > 0) {
		if (h.msg_controllen > SV_MAX_CONTROL)
			return -ENOBUFS;
		m->controllen = h.msg_controllen;
		m->control = xmalloc(m->controllen);
		if ((r = mem_read(c->pid, (uintptr_t)h.msg_control, m->control,
				  m->controllen)) < 0)
			return r;
	}
	return 0;
}

/* Send m on the caller's socket; a blocking caller's EAGAIN is kept. */
static ssize_t
msg_send(struct call *c, struct msg_buf *m, int flags)
{
	struct iovec iov = { .iov_base = m->data, .iov_len = m->len };
	struct msghdr h = {
		.msg_name = m->has_name ? &m->name.u : NULL,
		.msg_namelen = m->has_name ? m->name.len : 0,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = m->control,
		.msg_controllen = m->controllen,
	};
	ssize_t n;

	/* Never SIGPIPE the supervisor; never block it. */
	n = sendmsg(c->sock, &h, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
	return n < 0 ? -errno : n;
}

static bool
wants_block(const struct call *c, int flags)
{
	return !c->nonblock && !(flags & MSG_DONTWAIT);
}

static int
do_sendto(struct supervisor *sv, struct call *c)
{
	const __u64 *arg = c->req->data.args;
	struct msg_buf m;
	int flags = (int)(uint32_t)arg[3];
	ssize_t n;
	int r;

	memset(&m, 0, sizeof(m));
	m.name.opath = -1;
	if ((r = cmsg_flags(flags)) < 0 ||
	    (r = read_addr(c, arg[4], arg[5], &m.name)) < 0 ||
	    (r = call_open(sv, c)) < 0)
		goto out;
	m.has_name = true;
	if ((r = stub_swap(sv, c, &m.name, false)) < 0 ||
	    (r == SWAP_NO &&
	     (r = check_addr(sv, c, NETPOLICY_SEND, &m.name)) < 0) ||
	    (r = check_route(sv, c, NETPOLICY_SEND, &m.name)) < 0 ||
	    (r = udp_autobind(sv, c)) < 0)
		goto out;
	m.len = arg[2] < SV_MAX_PAYLOAD ? arg[2] : SV_MAX_PAYLOAD;
	if (arg[2] > SV_MAX_PAYLOAD && c->type != SOCK_STREAM) {
		r = -EMSGSIZE;
		goto out;
	}
	m.data = xmalloc(m.len + 1);
	if ((r = mem_read(c->pid, arg[1], m.data, m.len)) < 0 ||
	    (r = call_valid(sv, c)) < 0)
		goto out;
	n = msg_send(c, &m, flags);
	if (n == -EAGAIN && wants_block(c, flags))
		r = queue(sv, c, PENDING_RETRY);
	else
		r = (int)n;
out:
	msg_buf_free(&m);
	return r;
}

/* One message of sendmsg or sendmmsg: checked, then sent. */
static ssize_t
send_one(struct supervisor *sv, struct call *c, uint64_t ptr, int flags)
{
	struct msg_buf m;
	ssize_t n;
	int r;

	if ((r = read_msg(c, ptr, &m)) < 0)
		goto out;
	if (m.has_name &&
	    ((r = stub_swap(sv, c, &m.name, false)) < 0 ||
	     (r == SWAP_NO &&
	      (r = check_addr(sv, c, NETPOLICY_SEND, &m.name)) < 0)))
		goto out;
	if ((r = check_route(sv, c, NETPOLICY_SEND,
			     m.has_name ? &m.name : NULL)) < 0 ||
	    (m.has_name && (r = udp_autobind(sv, c)) < 0))
		goto out;
	if (m.control && (r = rebuild_control(c, &m)) < 0)
		goto out;
	if ((r = call_valid(sv, c)) < 0)
		goto out;
	n = msg_send(c, &m, flags);
	msg_buf_free(&m);
	return n;
out:
	msg_buf_free(&m);
	return r;
}

static int
do_sendmsg(struct supervisor *sv, struct call *c)
{
	int flags = (int)(uint32_t)c->req->data.args[2];
	ssize_t n;
	int r;

	if ((r = cmsg_flags(flags)) < 0 || (r = call_open(sv, c)) < 0)
		return r;
	n = send_one(sv, c, c->req->data.args[1], flags);
	if (n == -EAGAIN && wants_block(c, flags))
		return queue(sv, c, PENDING_RETRY);
	return (int)n;
}

static int
do_sendmmsg(struct supervisor *sv, struct call *c)
{
	const __u64 *arg = c->req->data.args;
	unsigned vlen = (unsigned)arg[2];
	int flags = (int)(uint32_t)arg[3];
	unsigned i;
	int r;

	if ((r = cmsg_flags(flags)) < 0 || (r = call_open(sv, c)) < 0)
		return r;
	if (vlen > SV_MAX_IOV)
		vlen = SV_MAX_IOV;
	for (i = 0; i < vlen; i++) {
		uint64_t ptr = arg[1] + (uint64_t)i * sizeof(struct mmsghdr);
		ssize_t n = send_one(sv, c, ptr, flags);
		unsigned len;

		if (n < 0) {
			if (i > 0)
				break;
			if (n == -EAGAIN && wants_block(c, flags))
				return queue(sv, c, PENDING_RETRY);
			return (int)n;
		}
		len = (unsigned)n;
		if (mem_write(c->pid, ptr + offsetof(struct mmsghdr, msg_len),
			      &len, sizeof(len)) < 0)
			return i > 0 ? (int)i : -EFAULT;
	}
	return (int)i;
}

/* Handle one notification: the answer, CALL_PENDING or CALL_GONE. */
/* ---- --learn: observing the filesystem ---- */

/* The syscalls --learn observes, and where their path and flags are. */
static const struct {
	const char *name;
	int dirfd_arg; /* -1: relative to the cwd */
	int path_arg;
	int flags_arg; /* open flags, -1: none */
	char kind;     /* 'o' open, 'x' exec, 'w' creates an entry */
} learn_calls[] = {
	{ "open", -1, 0, 1, 'o' },     { "openat", 0, 1, 2, 'o' },
	{ "creat", -1, 0, -1, 'w' },   { "execve", -1, 0, -1, 'x' },
	{ "execveat", 0, 1, -1, 'x' }, { "mkdir", -1, 0, -1, 'w' },
	{ "mkdirat", 0, 1, -1, 'w' },
};

int
supervise_learn(struct supervisor *sv, int fd, char **cause)
{
	int r;

	/* The notification filter, built now with the calls below. */
	if (sv->notify == NULL &&
	    (r = filter_notify_build(&sv->notify, cause)) < 0)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(learn_calls); i++) {
		int nr = seccomp_syscall_resolve_name(learn_calls[i].name);

		/* open, creat and mkdir are missing on some architectures,
		 * where the *at calls are all there is. */
		if (nr < 0)
			continue;
		r = seccomp_rule_add_exact(sv->notify, SCMP_ACT_NOTIFY, nr, 0);
		if (r < 0) {
			*cause = xasprintf("cannot observe %s for --learn: "
					   "%s.",
					   learn_calls[i].name, strerror(-r));
			return r;
		}
	}
	sv->learn_fd = fd;
	return 0;
}

/* A NUL-terminated string of the caller's, at most PATH_MAX bytes, read
 * page by page so the end of a mapping is no error. */
static char *
mem_read_string(pid_t pid, uint64_t addr)
{
	char *buf = xcalloc(PATH_MAX + 1, 1);
	size_t got = 0;

	while (got < PATH_MAX) {
		size_t chunk = 4096 - ((addr + got) & 4095);

		if (chunk > PATH_MAX - got)
			chunk = PATH_MAX - got;
		if (mem_read(pid, addr + got, buf + got, chunk) < 0) {
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
 * Record the path of an open, exec or mkdir, as an absolute path, with
 * what the call wants ("r", "w", "x"), one line to learn_fd; then let
 * the kernel run the call itself.  Observation only: Landlock decides,
 * so what the caller changes after this read does not matter.
 */
static int
learn_observe(struct supervisor *sv, struct call *c)
{
	const struct seccomp_notif *req = c->req;
	_cleanup_free_ char *path = NULL, *base = NULL, *line = NULL;
	const char *want = "r";
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(learn_calls); i++) {
		int nr = seccomp_syscall_resolve_name(learn_calls[i].name);

		if (nr >= 0 && nr == req->data.nr)
			break;
	}
	if (i == (int)ARRAY_SIZE(learn_calls))
		return CALL_CONTINUE;
	path = mem_read_string(c->pid, req->data.args[learn_calls[i].path_arg]);
	if (path == NULL || path[0] == '\0')
		return CALL_CONTINUE;
	if (path[0] != '/') {
		char link[64], target[PATH_MAX];
		int dirfd =
			learn_calls[i].dirfd_arg < 0
				? AT_FDCWD
				: (int)req->data.args[learn_calls[i].dirfd_arg];
		ssize_t n;

		if (dirfd == AT_FDCWD)
			snprintf(link, sizeof(link), "/proc/%d/cwd",
				 (int)c->pid);
		else
			snprintf(link, sizeof(link), "/proc/%d/fd/%d",
				 (int)c->pid, dirfd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0 || target[0] != '/')
			return CALL_CONTINUE;
		target[n] = '\0';
		base = xasprintf("%s/%s", target, path);
		free(path);
		path = steal_pointer(&base);
	}
	if (learn_calls[i].kind == 'x') {
		want = "x";
	} else if (learn_calls[i].kind == 'w') {
		want = "w";
	} else if (learn_calls[i].flags_arg >= 0) {
		uint64_t fl = req->data.args[learn_calls[i].flags_arg];

		if ((fl & O_ACCMODE) != O_RDONLY || (fl & (O_CREAT | O_TRUNC)))
			want = "w";
	}
	/* One line each; a path with a newline cannot be one. */
	if (strchr(path, '\n') == NULL) {
		line = xasprintf("%s %s\n", want, path);
		(void)write_all(sv->learn_fd, line, strlen(line));
	}
	return CALL_CONTINUE;
}

/*
 * inotify_add_watch(fd, path, mask) (DESIGN.md §11, watching): Landlock
 * does not check it, so the watch judge opens path as the sandbox would,
 * under its Landlock ruleset and in its view, and the watch goes on the
 * object it opened, through this process's /proc/self/fd: the path is
 * read from the caller once and never walked again.  A path the sandbox
 * may not read gets the judge's EACCES.
 */
static int
do_inotify_add_watch(struct supervisor *sv, struct call *c)
{
	const struct seccomp_notif *req = c->req;
	uint32_t mask = (uint32_t)req->data.args[2];
	_cleanup_free_ char *path = NULL, *abs = NULL;
	_cleanup_close_ int ifd = -1, root = -1, obj = -1;
	char link[64], kind[32];
	ssize_t n;
	int r, wd;

	c->pidfd = call_pidfd(c);
	if (c->pidfd < 0)
		return call_error(sv, c, c->pidfd);
	ifd = sys_pidfd_getfd(c->pidfd, (int)(uint32_t)req->data.args[0], 0);
	if (ifd < 0)
		return call_error(sv, c, -errno);
	/* The watch goes on the caller's own instance: it must be one. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", ifd);
	n = readlink(link, kind, sizeof(kind) - 1);
	if (n < 0)
		return call_error(sv, c, -EINVAL);
	kind[n] = '\0';
	if (strcmp(kind, "anon_inode:inotify") != 0)
		return call_error(sv, c, -EINVAL);
	path = mem_read_string(c->pid, req->data.args[1]);
	if (path == NULL)
		return call_error(sv, c, -EFAULT);
	if ((r = child_root_path(c->pid, path, &root, &abs)) < 0)
		return call_error(sv, c, r);
	if (call_valid(sv, c) < 0)
		return CALL_GONE;
	/* A judge that cannot answer refuses: fail closed. */
	r = watchjudge_open(sv->judge, root, abs, mask, &obj);
	if (r < 0)
		return call_error(sv, c, r == -EIO ? -EACCES : r);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", obj);
	wd = inotify_add_watch(ifd, link, mask & ~(uint32_t)IN_DONT_FOLLOW);
	if (wd < 0)
		return call_error(sv, c, -errno);
	return wd;
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

	if (call_ids(c, &s, &tgid) < 0 || target <= 0 || sv->root <= 0)
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
static int
do_pid_call(struct supervisor *sv, struct call *c)
{
	int nr = c->req->data.nr;
	/* setpriority(which, who), ioprio_set(which, who): the filter sends
	 * only which == one process. */
	pid_t target = (pid_t)(nr == SYS_setpriority || nr == SYS_ioprio_set
				       ? c->req->data.args[1]
				       : c->req->data.args[0]);

	if (sv->pidns || target == 0 || pid_inside(sv, c, target))
		return call_valid(sv, c) < 0 ? CALL_GONE : CALL_CONTINUE;
	return call_error(sv, c, -EPERM);
}

static int
dispatch(struct supervisor *sv, const struct seccomp_notif *req)
{
	struct call c = {
		.req = req, .pid = (pid_t)req->pid, .pidfd = -1, .sock = -1
	};
	int nr = req->data.nr, r;

	if (nr == SYS_connect)
		r = do_connect(sv, &c);
	else if (nr == SYS_bind)
		r = do_bind(sv, &c);
	else if (nr == SYS_listen)
		r = do_listen(sv, &c);
	else if (nr == SYS_sendto)
		r = do_sendto(sv, &c);
	else if (nr == SYS_sendmsg)
		r = do_sendmsg(sv, &c);
	else if (nr == SYS_sendmmsg)
		r = do_sendmmsg(sv, &c);
	else if (nr == SYS_inotify_add_watch)
		r = do_inotify_add_watch(sv, &c);
	else if (nr == SYS_prlimit64 || nr == SYS_setpriority ||
		 nr == SYS_ioprio_set || nr == SYS_sched_setaffinity ||
		 nr == SYS_sched_setscheduler || nr == SYS_sched_setparam ||
		 nr == SYS_sched_setattr)
		r = do_pid_call(sv, &c);
	else if (sv->learn_fd >= 0)
		r = learn_observe(sv, &c);
	else
		r = -ENOSYS;
	call_done(&c);
	return r;
}

static void
respond(struct supervisor *sv, uint64_t id, int r)
{
	struct seccomp_notif_resp *resp = sv->resp;

	if (r == CALL_PENDING || r == CALL_GONE)
		return;
	memset(resp, 0, sizeof(*resp));
	resp->id = id;
	if (r == CALL_CONTINUE)
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else if (r < 0)
		resp->error = r;
	else
		resp->val = r;
	/* ENOENT: the caller was interrupted or killed meanwhile. */
	(void)seccomp_notify_respond(sv->listener, resp);
}

/* Answer one notification on the listener. */
static void
supervise_handle(struct supervisor *sv)
{
	struct seccomp_notif *req = sv->req;
	int r;

	memset(req, 0, sizeof(*req));
	if (seccomp_notify_receive(sv->listener, req) < 0)
		return; /* ENOENT: the caller went away first */
	while (testhook_supervisor_stalls())
		pause();
	r = dispatch(sv, req);
	respond(sv, req->id, r);
}

static void
pending_drop(struct supervisor *sv, size_t i)
{
	close(sv->pending[i].sock);
	sv->pending[i] = sv->pending[--sv->n_pending];
}

/* A pending call whose socket is ready (or whose moment passed). */
static void
pending_run(struct supervisor *sv, size_t i)
{
	struct pending *p = &sv->pending[i];
	struct seccomp_notif req = p->req;
	int r, err = 0;
	socklen_t len = sizeof(err);

	if (p->kind == PENDING_CONNECT) {
		if (getsockopt(p->sock, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		pending_drop(sv, i);
		respond(sv, req.id, -err);
		return;
	}
	pending_drop(sv, i);
	if (seccomp_notify_id_valid(sv->listener, req.id) != 0)
		return;
	r = dispatch(sv, &req);
	respond(sv, req.id, r);
}

/* Drop pending calls whose caller went away (a signal interrupts the
 * call; the kernel restarts it as a new notification), run timers. */
static void
pending_tick(struct supervisor *sv)
{
	uint64_t now = supervise_now_ns();

	for (size_t i = sv->n_pending; i-- > 0;) {
		if (seccomp_notify_id_valid(sv->listener,
					    sv->pending[i].req.id) != 0)
			pending_drop(sv, i);
		else if (sv->pending[i].kind == PENDING_TIMER &&
			 sv->pending[i].deadline_ns <= now)
			pending_run(sv, i);
	}
}

/* How long poll may sleep: forever unless something is due. */
int
supervise_poll_timeout(const struct supervisor *sv)
{
	for (size_t i = 0; i < sv->n_pending; i++)
		if (sv->pending[i].kind == PENDING_TIMER)
			return 10;
	if (sv->n_pending > 0 || (sv->log && sv->rl.suppressed > 0))
		return 250;
	return -1;
}

size_t
supervise_poll_fds(struct supervisor *sv, struct pollfd *pfd)
{
	size_t n = 0;

	sv->polled_listener = sv->listener >= 0;
	if (sv->polled_listener)
		pfd[n++] =
			(struct pollfd){ .fd = sv->listener, .events = POLLIN };
	sv->polled_stub = sv->stub != NULL && !sv->stub_gone;
	if (sv->polled_stub)
		pfd[n++] = (struct pollfd){ .fd = dnsstub_fd(sv->stub),
					    .events = POLLIN };
	for (size_t i = 0; i < sv->n_pending; i++)
		pfd[n++] = (struct pollfd){ .fd = sv->pending[i].kind ==
								  PENDING_TIMER
							  ? -1
							  : sv->pending[i].sock,
					    .events = POLLOUT };
	return n;
}

void
supervise_poll_ready(struct supervisor *sv, const struct pollfd *pfd, size_t n)
{
	size_t first_pending =
		(sv->polled_listener ? 1 : 0) + (sv->polled_stub ? 1 : 0);

	/* The stub's records first: an answer it gave is learned before
	 * the command's next connect is decided. */
	stub_drain(sv);

	/* Pending first: answering one may reorder them. */
	for (size_t i = n; i-- > first_pending;)
		if (pfd[i].revents)
			pending_run(sv, i - first_pending);
	if (sv->polled_listener && (pfd[0].revents & POLLIN)) {
		supervise_handle(sv);
	} else if (sv->polled_listener &&
		   (pfd[0].revents & (POLLHUP | POLLERR))) {
		/* No process uses the filter any more. */
		close(sv->listener);
		sv->listener = -1;
	}
	pending_tick(sv);
	log_flush(sv, false);
}

void
supervise_reap(struct supervisor *sv)
{
	watchjudge_reap(sv->judge);
}

void
supervise_finish(struct supervisor *sv)
{
	log_flush(sv, true);
}

char **
supervise_describe(const struct policy *p, bool stub, char *const *envp)
{
	_cleanup_free_ char *conf = read_resolv_conf();
	size_t n;
	_cleanup_free_ struct netpolicy_addr *dns =
		netpolicy_resolvers(p, conf, &n);

	return netpolicy_describe(p, dns, n, stub, envp);
}
