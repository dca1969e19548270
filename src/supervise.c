/*
 * The network supervisor of DESIGN.md §6: the notification engine.  The
 * loop it runs in is the process monitor's (monitor.c); what it decides
 * is the pure network policy's (netpolicy.c).  This file holds the
 * engine: the supervisor's state, the hand-over of the listener from the
 * command, receiving a notification, the table from syscall to handler,
 * the answer, and the calls answered later; the handlers and what they
 * share are in the files supervise-int.h lists.
 *
 * The supervisor is the process above the sandboxed command, outside the
 * sandbox.  The command's connect, bind, listen, sendto (with a
 * destination), sendmsg and sendmmsg reach it as seccomp user
 * notifications.  It copies the arguments out of the caller's memory,
 * checks that the notification is still valid (so the pid it read from
 * was the caller's), decides on its own copy, and performs the call
 * itself on the caller's socket (pidfd_getfd), or where a filter refuses
 * that on a socket of its own installed in the caller's place (svcall.c),
 * answering with the result.
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
 * directory rules for pathname socket binds (plan_decide, on the
 * compiled plan), and the abstract unix scope (only names the sandbox
 * bound).
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "channel.h"
#include "cleanup.h"
#include "compat/syscall.h"
#include "dnsstub.h"
#include "fdutil.h"
#include "filter.h"
#include "hostdns.h"
#include "monitor.h"
#include "mono.h"
#include "sockdiag.h"
#include "testhook.h"
#include "supervise-int.h"
#include "watchjudge.h"
#include "xalloc.h"

/* Linux 6.6 (UAPI linux/seccomp.h; Debian 12's headers predate it): a
 * notification and its answer hand the CPU over, caller to supervisor
 * and back, instead of waking a task on another CPU. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	   SECCOMP_IOW(4, __u64)
#endif

/* The frames of the hand-over channel (channel.h): the listener's and
 * the ruleset's numbers in the command's process, and the answer. */
enum { SV_MSG_LISTENER = 1, SV_MSG_GO = 2 };

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
supervise_free(struct supervisor *sv)
{
	if (sv == NULL)
		return;
	netpolicy_rules_free(sv->rules);
	watchjudge_free(sv->judge);
	if (sv->watch_ifd >= 0)
		close(sv->watch_ifd);
	strv_free(sv->noted);
	suggest_bounds_clear(&sv->bounds);
	if (sv->notify)
		seccomp_release(sv->notify);
	for (int i = 0; i < 2; i++)
		if (sv->sock[i] >= 0)
			close(sv->sock[i]);
	if (sv->ready >= 0)
		close(sv->ready);
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
	svunix_allow_free(sv);
	sockdiag_host_free(sv->host);
	free(sv->dns);
	hostaddrs_free(sv->learned);
	svnames_relay_close(sv);
	free(sv->fixed);
	for (size_t i = 0; i < SV_MAX_ASKERS; i++)
		if (sv->askers[i].pidfd >= 0)
			close(sv->askers[i].pidfd);
	for (size_t i = 0; i < SV_MAX_HELD; i++)
		if (sv->held[i].sock >= 0)
			close(sv->held[i].sock);
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

struct netpolicy_addr *
supervise_resolvers_read(const struct net_plan *np, size_t *n)
{
	_cleanup_free_ char *conf = read_resolv_conf();

	return netpolicy_resolvers_of(np->dns, np->n_dns, conf, n);
}

int
supervise_new(const struct net_plan *np, const struct plan *fs,
	      char *const *envp, struct netpolicy_addr *dns, size_t n_dns,
	      struct supervisor **out, char **cause)
{
	struct supervisor *sv = xcalloc(1, sizeof(*sv));
	int r;

	if (dns == NULL)
		dns = supervise_resolvers_read(np, &n_dns);

	sv->net = np;
	sv->fs = fs;
	sv->sock[0] = sv->sock[1] = sv->listener = sv->logfd = -1;
	sv->ready = -1;
	sv->learn_fd = -1;
	sv->proxy_note_fd = -1;
	sv->relay = sv->relay_listener = -1;
	sv->rules = netpolicy_rules_copy(np->rules, dns, n_dns);
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
	for (size_t i = 0; i < SV_MAX_RELAYED; i++)
		sv->relayed[i].pidfd = -1;
	for (size_t i = 0; i < SV_MAX_HELD; i++)
		sv->held[i].sock = -1;
	sv->getfd = true;
	sv->watches = true;
	sv->watch_ifd = -1;
	for (char *const *e = envp; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "HOME=/", 6) == 0) {
			_cleanup_free_ char *home = realpath(*e + 5, NULL);

			suggest_bounds_init(&sv->bounds, home ? home : *e + 5,
					    fs);
			break;
		}
	if (sv->bounds.home == NULL)
		suggest_bounds_init(&sv->bounds, NULL, fs);
	if ((r = channel_pair(sv->sock, true)) < 0) {
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
	svunix_allow_init(sv);
	sv->host = sockdiag_host_new();
	sv->log = np->log_blocked;
	sv->prefix = xstrdup(np->log_prefix);
	netpolicy_ratelimit_init(&sv->rl, NETPOLICY_LOG_BURST,
				 NETPOLICY_LOG_RATE, mono_ns());
	if (sv->log) {
		_cleanup_free_ char *path = netpolicy_log_path(np->name, envp);

		/* The file is opened now, before the command runs, so a
		 * failure is reported while the terminal is still ours. */
		if (path != NULL && ((r = make_parent_dirs(path)) < 0 ||
				     (r = sv->logfd = fd_append_regular(
					      AT_FDCWD, path, 0600)) < 0)) {
			sv->logfd = -1;
			*cause = xasprintf(
				"cannot open the blocked-attempt log %s: %s; "
				"fix it or set log-blocked = no",
				path,
				r == -EINVAL || r == -ENXIO
					? "not a regular file (a FIFO, a "
					  "socket or a device is never "
					  "waited on)"
				: r == -ELOOP ? "a symbolic link"
					      : strerror(-r));
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
supervise_wait_for(struct supervisor *sv, int fd)
{
	if (sv->ready >= 0)
		close(sv->ready);
	sv->ready = fd;
}

/* The guardian's word (supervise_wait_for): 0 when there is none to
 * wait for or it said 'y'. */
static int
guardian_ready(struct supervisor *sv)
{
	char b = 0;
	ssize_t n;

	if (sv->ready < 0)
		return 0;
	while ((n = read(sv->ready, &b, 1)) < 0 && errno == EINTR)
		;
	close(sv->ready);
	sv->ready = -1;
	return n == 1 && b == 'y' ? 0 : -ECANCELED;
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
	if (sv->ready >= 0)
		close(sv->ready);
	sv->ready = -1;
	if (sv->logfd >= 0)
		close(sv->logfd);
	sv->logfd = -1;
	if (sv->proxy_note_fd >= 0)
		close(sv->proxy_note_fd);
	sv->proxy_note_fd = -1;
	sockdiag_host_free(sv->host);
	sv->host = NULL;
	svnames_relay_close(sv);
	dnsstub_child_forked(sv->stub);
}

/*
 * The hand-over's sender: a thread of the command's process made before
 * the notification filter is loaded, so the filter (which holds every
 * sendmsg: filter.h) is not its own.  It shares the descriptor table, so
 * the listener the main thread gets is its to send, as SCM_RIGHTS: no
 * pidfd_getfd, which container runtimes' filters refuse (DESIGN.md §14).
 * The main thread writes the listener's and the ruleset's numbers to the
 * pipe (no number: stop), the sender passes them and ends.
 */
struct handover {
	int pipe[2];
	int sock;
	int r;
};

static void *
handover_send(void *arg)
{
	struct handover *h = arg;
	int32_t fds[2], err;
	ssize_t n;

	do
		n = read(h->pipe[0], fds, sizeof(fds));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(fds)) {
		h->r = -EPIPE;
		return NULL;
	}
	/* No listener: the errno that refused it, for the supervisor to
	 * name (supervise_refusal). */
	err = fds[0] < 0 ? -fds[0] : 0;
	h->r = channel_send(h->sock, SV_MSG_LISTENER, &err, sizeof(err), fds,
			    fds[0] < 0	  ? 0
			    : fds[1] >= 0 ? 2
					  : 1,
			    0);
	return NULL;
}

void
supervise_view_watches(struct supervisor *sv)
{
	sv->watches = false;
}

/* Load the notification filter; its listener, or -errno with *cause. */
static int
load_notify(struct supervisor *sv, char **cause)
{
	int lfd, r;

	/* The precompiled program (filter.h), or under --learn the one
	 * built with the calls it observes. */
	if (sv->notify == NULL)
		return filter_load_notify(sv->watches, cause);
	if ((r = seccomp_load(sv->notify)) < 0) {
		*cause = xasprintf("cannot load the supervisor's seccomp "
				   "filter: %s",
				   strerror(-r));
		return r;
	}
	lfd = seccomp_notify_fd(sv->notify);
	if (lfd < 0) {
		*cause = xstrdup("the kernel gave no seccomp listener");
		return -EOPNOTSUPP;
	}
	return lfd;
}

int
supervise_child_attach(struct supervisor *sv, int ruleset, char **cause)
{
	struct handover h = { .pipe = { -1, -1 }, .sock = sv->sock[1] };
	_cleanup_free_ char *why = NULL;
	pthread_t sender;
	int32_t fds[2];
	int lfd, r;

	if (pipe2(h.pipe, O_CLOEXEC) < 0) {
		r = -errno;
		*cause = xasprintf("cannot hand the seccomp listener to the "
				   "network supervisor: pipe: %s",
				   strerror(-r));
		return r;
	}
	if ((r = pthread_create(&sender, NULL, handover_send, &h)) != 0) {
		close(h.pipe[0]);
		close(h.pipe[1]);
		*cause = xasprintf("cannot hand the seccomp listener to the "
				   "network supervisor: a thread: %s%s",
				   strerror(r),
				   r == EAGAIN ? " (the process limit: "
						 "[limits] processes, or "
						 "the user's RLIMIT_NPROC)"
					       : "");
		return -r;
	}
	/* Refused, the supervisor names why, as its probe would have
	 * (supervise_parent_attach): this is the probe of a run that needs
	 * it (probe.h). */
	lfd = load_notify(sv, &why);
	fds[0] = lfd;
	fds[1] = ruleset;
	(void)svcall_write_all(h.pipe[1], fds, sizeof(fds));
	close(h.pipe[1]);
	pthread_join(sender, NULL);
	close(h.pipe[0]);
	if (lfd >= 0)
		close(lfd);
	if (h.r < 0) {
		*cause = lfd < 0 ? steal_pointer(&why)
				 : xasprintf("cannot hand the seccomp listener "
					     "to the network supervisor: %s",
					     strerror(-h.r));
		return lfd < 0 ? lfd : h.r;
	}
	return 0;
}

int
supervise_child_go(struct supervisor *sv, char **cause)
{
	struct channel_msg m;

	if (channel_recv(sv->sock[1], &m, 0, 0) != 1 ||
	    channel_expect(&m, SV_MSG_GO, 1) == NULL || m.payload[0] != 'y') {
		*cause = xstrdup("the network supervisor could not start; the "
				 "next message says why");
		return -EPERM;
	}
	close(sv->sock[1]);
	sv->sock[1] = -1;
	return 0;
}

/* Tell the command's process to go on ('y') or to stop ('n'). */
static int
attach_answer(struct supervisor *sv, char go)
{
	return channel_send(sv->sock[0], SV_MSG_GO, &go, 1, NULL, 0, 0);
}

static const char *const step_names[] = {
	[SUPERVISE_STEP_LISTENER] = "seccomp user notification "
				    "(SECCOMP_FILTER_FLAG_NEW_LISTENER)",
	[SUPERVISE_STEP_PIDFD] = "pidfd_open",
	[SUPERVISE_STEP_MEMORY] = "process_vm_readv and /proc/PID/mem",
	[SUPERVISE_STEP_WORD] = "/proc/PID/mem (another word)",
	[SUPERVISE_STEP_ADDFD] = "ioctl SECCOMP_IOCTL_NOTIF_ADDFD",
};

void
supervise_refused_note(struct supervise_refused *r, enum supervise_step step,
		       int err)
{
	size_t len = strlen(r->calls);

	snprintf(r->calls + len, sizeof(r->calls) - len, "%s%s",
		 len > 0 ? ", " : "", step_names[step]);
	if (r->err == 0)
		r->err = err != 0 ? err : EIO;
	if (step == SUPERVISE_STEP_MEMORY || step == SUPERVISE_STEP_WORD)
		r->ptrace = true;
}

const struct supervise_refused *
supervise_refusal(const struct supervisor *sv)
{
	return sv->refused.err != 0 ? &sv->refused : NULL;
}

int
supervise_addfd_answered(int listener)
{
	/* No notification has id 0 (ENOENT); the descriptor to add is the
	 * listener itself, one that is surely open. */
	struct seccomp_notif_addfd af = { .srcfd = (uint32_t)listener };

	errno = 0;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &af) == 0)
		return EINVAL;
	return errno == ENOENT ? 0 : errno;
}

/* A step refused: noted, and the child told to stop. */
static int
attach_refused(struct supervisor *sv, enum supervise_step step, int err)
{
	supervise_refused_note(&sv->refused, step, err);
	(void)attach_answer(sv, 'n');
	return -sv->refused.err;
}

int
supervise_parent_attach(struct supervisor *sv, char **cause)
{
	struct channel_msg m;
	const void *pl;
	int32_t err;
	int e, ruleset = -1, child_end = sv->sock[1];

	close(sv->sock[1]);
	sv->sock[1] = -1;
	/* It ended first (and said why), or sent what it never sends: the
	 * listener, and the ruleset when there is one; or why it has
	 * none. */
	if (channel_recv(sv->sock[0], &m, 2, 0) != 1 ||
	    (pl = channel_expect(&m, SV_MSG_LISTENER, sizeof(err))) == NULL) {
		channel_msg_close(&m);
		return -ECHILD;
	}
	memcpy(&err, pl, sizeof(err));
	if (err != 0 || m.n_fds < 1) {
		channel_msg_close(&m);
		return attach_refused(sv, SUPERVISE_STEP_LISTENER, err);
	}
	sv->listener = m.fds[0];
	if (m.n_fds > 1)
		ruleset = m.fds[1];
	/* The child's end of the channel is open in it until it is told
	 * to go on: a descriptor to try pidfd_getfd on. */
	e = svcall_reach(sv, m.pid, child_end, &sv->refused);
	if (e < 0 || (e = supervise_addfd_answered(sv->listener)) != 0) {
		if (ruleset >= 0)
			close(ruleset);
		if (e < 0) {
			(void)attach_answer(sv, 'n');
			return e;
		}
		return attach_refused(sv, SUPERVISE_STEP_ADDFD, e);
	}
	/* Each call the supervisor decides is a round trip with the
	 * caller: on one CPU it costs a few microseconds, across two (a
	 * wake-up of an idle CPU, slow in a virtual machine) up to a
	 * hundred.  A hint: older kernels refuse it, and nothing else
	 * changes. */
	(void)ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	sv->judge = watchjudge_new(ruleset);
	/* The supervisor needs no capability: whatever it performs for the
	 * command, it performs with no more privilege than the command.
	 * (Root has some to drop, and so has the monitor of L3 in the user
	 * namespace it made.) */
	if (caps_held(NULL) > 0)
		(void)caps_drop(false);
	if ((e = guardian_ready(sv)) < 0) {
		(void)attach_answer(sv, 'n');
		*cause = xstrdup("llwrap's guardian could not start its "
				 "watch; nothing was run");
		return e;
	}
	if ((e = attach_answer(sv, 'y')) < 0) {
		*cause =
			xasprintf("cannot tell the sandboxed process to go on: "
				  "%s",
				  strerror(-e));
		return e;
	}
	/* While the command execs. */
	openlog(sv->prefix, LOG_NDELAY, LOG_USER);
	close(sv->sock[0]);
	sv->sock[0] = -1;
	return 0;
}

/* The handler of each syscall the notification filter sends (filter.h);
 * any other is --learn's to observe. */
static const struct {
	int nr;
	int (*handle)(struct supervisor *, struct call *);
} handlers[] = {
	{ SYS_connect, svaddr_connect },
	{ SYS_bind, svaddr_bind },
	{ SYS_listen, svaddr_listen },
	{ SYS_sendto, svsend_sendto },
	{ SYS_sendmsg, svsend_sendmsg },
	{ SYS_sendmmsg, svsend_sendmmsg },
	{ SYS_inotify_add_watch, svlearn_inotify_add_watch },
	{ SYS_prlimit64, svcall_pid_call },
	{ SYS_setpriority, svcall_pid_call },
	{ SYS_ioprio_set, svcall_pid_call },
	{ SYS_sched_setaffinity, svcall_pid_call },
	{ SYS_sched_setscheduler, svcall_pid_call },
	{ SYS_sched_setparam, svcall_pid_call },
	{ SYS_sched_setattr, svcall_pid_call },
};

/* Handle one notification: the answer, CALL_PENDING, CALL_GONE or
 * CALL_CONTINUE. */
static int
dispatch(struct supervisor *sv, const struct seccomp_notif *req)
{
	struct call c = {
		.req = req, .pid = (pid_t)req->pid, .pidfd = -1, .sock = -1
	};
	int r = -ENOSYS;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(handlers); i++)
		if (handlers[i].nr == req->data.nr)
			break;
	if (i < ARRAY_SIZE(handlers))
		r = handlers[i].handle(sv, &c);
	else if (sv->learn_fd >= 0)
		r = svlearn_observe(sv, &c);
	svcall_done(&c);
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
	uint64_t now = mono_ns();

	for (size_t i = sv->n_pending; i-- > 0;) {
		if (seccomp_notify_id_valid(sv->listener,
					    sv->pending[i].req.id) != 0)
			pending_drop(sv, i);
		else if (sv->pending[i].kind == PENDING_TIMER &&
			 sv->pending[i].deadline_ns <= now)
			pending_run(sv, i);
	}
	if (sv->expiring)
		svcall_expire(sv, now);
}

/* How long poll may sleep: forever unless something is due. */
int
supervise_poll_timeout(const struct supervisor *sv)
{
	for (size_t i = 0; i < sv->n_pending; i++)
		if (sv->pending[i].kind == PENDING_TIMER)
			return 10;
	/* Held sockets to let go soon (svcall_expire). */
	if (sv->expiring)
		return 25;
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
	sv->polled_relay = sv->relay >= 0;
	if (sv->polled_relay)
		pfd[n++] = (struct pollfd){ .fd = sv->relay, .events = POLLIN };
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
	size_t first_pending = (sv->polled_listener ? 1 : 0) +
			       (sv->polled_stub ? 1 : 0) +
			       (sv->polled_relay ? 1 : 0);
	size_t at = sv->polled_listener ? 1 : 0;

	/* The stub's records first: an answer it gave is learned before
	 * the command's next connect is decided.  Only a channel poll
	 * found ready is read: the stub writes its record before the
	 * command has the answer, so a connect's notification never
	 * comes ready without it (and each decision reads the records
	 * again, svnames_lookup). */
	if (sv->polled_stub && pfd[at++].revents)
		svnames_drain(sv);
	if (sv->polled_relay && pfd[at].revents)
		svnames_relay_drain(sv);

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
	svlog_flush(sv, false);
}

void
supervise_reap(struct supervisor *sv)
{
	watchjudge_reap(sv->judge);
}

void
supervise_finish(struct supervisor *sv)
{
	svlog_flush(sv, true);
}

char **
supervise_describe(const struct plan_conf *c, const struct net_plan *np,
		   bool stub, char *const *envp)
{
	_cleanup_free_ char *conf = read_resolv_conf();
	size_t n;
	_cleanup_free_ struct netpolicy_addr *dns =
		netpolicy_resolvers_of(np->dns, np->n_dns, conf, &n);

	return netpolicy_describe(c, dns, n, stub, envp);
}

static int
guest_timeout(void *arg)
{
	return supervise_poll_timeout(arg);
}

static size_t
guest_fds(void *arg, struct pollfd *pfd)
{
	return supervise_poll_fds(arg, pfd);
}

static void
guest_ready(void *arg, const struct pollfd *pfd, size_t n)
{
	supervise_poll_ready(arg, pfd, n);
}

static void
guest_reap(void *arg)
{
	supervise_reap(arg);
}

static void
guest_finish(void *arg)
{
	supervise_finish(arg);
}

void
supervise_guest(struct supervisor *sv, struct monitor_guest *g)
{
	*g = (struct monitor_guest){ .arg = sv,
				     .max_fds = SUPERVISE_POLL_MAX,
				     .timeout = guest_timeout,
				     .fds = guest_fds,
				     .ready = guest_ready,
				     .reap = guest_reap,
				     .finish = guest_finish };
}
