/*
 * The network supervisor (layer S, DESIGN.md §6): the engine that
 * mediates connect/bind/listen/sendto/sendmsg through a seccomp
 * user-notification listener.  It receives a notification, copies the
 * arguments out of the caller's memory, asks the pure network policy
 * (netpolicy.h) and performs the call or answers with the refusal.  The
 * loop it runs in is the process monitor's (monitor.h).
 */
#ifndef LLW_SUPERVISE_H
#define LLW_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "netpolicy.h"
#include "pathtree.h"

/* The network supervisor's state; NULL where nothing is mediated. */
struct supervisor;

/*
 * Whether this kernel and system let the supervisor work: seccomp user
 * notification, pidfd_open and pidfd_getfd in the kernel, and a Yama
 * ptrace_scope below 2 (reading the sandboxed process's memory needs
 * ptrace access; a filter that refuses pidfd_getfd has substitutes:
 * supervise-int.h).  When not, false and *cause names the reason.
 */
bool supervise_available(char **cause);

/*
 * Why Yama keeps the supervisor out, given the text of
 * /proc/sys/kernel/yama/ptrace_scope: a new message for a scope of 2 or
 * more (or text that is not a scope), NULL when it allows the supervisor
 * (0 or 1; pidfd_getfd(2) then needs what ptrace would).
 */
char *supervise_yama_cause(const char *scope);

/* ---- The supervisor process ---- */

/*
 * Everything acquired before the fork: the rules (a copy of np's, with
 * the resolvers of this run: dns, taken, or when NULL read here), the
 * notification filter, the hand-over socket pair and the open log
 * file.  np, the plan's network side (netpolicy_plan), is borrowed: it
 * outlives the supervisor.  Returns 0 or -errno with *cause.
 */
int supervise_new(const struct net_plan *np, const struct plan *fs,
		  char *const *envp, struct netpolicy_addr *dns, size_t n_dns,
		  struct supervisor **out, char **cause);

/* The run's resolvers: np's dns, or /etc/resolv.conf's (a new array,
 * *n long).  supervise_new reads them itself when given none; a caller
 * that needs them first (the guardian, for the resolver it forks) reads
 * them once and hands them over, so that both see the same list. */
struct netpolicy_addr *supervise_resolvers_read(const struct net_plan *np,
						size_t *n);

void supervise_free(struct supervisor *sv);

/*
 * proxy = yes: the address of llwrap's proxy (proxyserve.h), which the
 * command's TCP connects may reach, and the channel on which each such
 * connect is told to it as "PORT PID COMM", the client's local port and
 * process (proxyserve_take_note_fd), never waiting; the supervisor owns
 * it.  Call before fork.
 */
void supervise_set_proxy(struct supervisor *sv, const struct netpolicy_addr *a,
			 int note_fd);

/* The resolvers the policy lets port 53 reach (netpolicy_resolvers),
 * *n of them; the supervisor's. */
const struct netpolicy_addr *supervise_resolvers(const struct supervisor *sv,
						 size_t *n);
/*
 * allow-host through llwrap's resolver (dnsstub.h, design (a)), not its
 * proxy: the command's sockets to a resolver's port 53 are swapped for
 * the stub's, the addresses it reports are learned, and the network is
 * reached only at them (and allow-cidr).  stub stays the caller's.
 * Call before fork.
 */
struct dnsstub;
void supervise_set_stub(struct supervisor *sv, struct dnsstub *stub);

/*
 * The go-ahead to the command (supervise_parent_attach) waits for the
 * byte 'y' on fd first: the guardian's word that what must be in place
 * before the command runs, and was set up while this process and its
 * child made the sandbox, is (sandbox.c, guard_and_wait).  Anything else
 * (the guardian gone, or failed) stops the command.  fd is the
 * supervisor's to close; the child's copy is closed at its fork.
 */
void supervise_wait_for(struct supervisor *sv, int fd);

/*
 * bubblewrap's view decides a watch (the plan's SANDBOX_WATCHES_VIEW):
 * inotify_add_watch is left to the kernel, not sent to the supervisor's judge.
 * Call after supervise_new, before supervise_learn and fork.
 */
void supervise_view_watches(struct supervisor *sv);
/*
 * --learn: also observe open, openat, creat, execve, execveat, mkdir and
 * mkdirat, writing "r PATH", "w PATH" or "x PATH" (absolute) to fd for
 * each, and let the kernel run them (Landlock decides).  Call after
 * supervise_new, before fork.  Returns 0, or -errno with *cause.
 */
int supervise_learn(struct supervisor *sv, int fd, char **cause);

/*
 * In the supervisor, right after fork: the command's first process (the
 * child it forked: the command, bwrap, or pid 1 above the command), and
 * whether a pid namespace confines the pids the command can name.  The
 * calls that name another process by pid (filter.h) are let through for
 * the sandbox's own processes only.
 */
void supervise_set_command(struct supervisor *sv, pid_t root, bool pidns);

/*
 * In the process that goes on to exec, right after fork: close what
 * belongs to the supervisor.
 */
void supervise_child_forked(struct supervisor *sv);

/*
 * In the process that goes on to exec, after Landlock and before the
 * main seccomp filter: load the notification filter and hand its
 * listener and the Landlock ruleset the process restricted itself with
 * (-1: none; the watch judge's, watchjudge.h) to the supervisor.  Then,
 * before the exec (the main filter may come between: it loads while the
 * supervisor checks this process), supervise_child_go() waits for the
 * supervisor's go-ahead.  Each returns 0, or -errno with *cause.
 */
int supervise_child_attach(struct supervisor *sv, int ruleset, char **cause);
int supervise_child_go(struct supervisor *sv, char **cause);

/*
 * In the supervisor, after fork: receive the listener (and the ruleset)
 * and check what the supervisor needs, on this listener and this child,
 * as the supervisor's probe checks it on a child of its own (probe.h):
 * the listener made and passed (SCM_RIGHTS), the child reached
 * (pidfd_open) and its memory read, choosing how it reaches the caller
 * (svcall_reach), and SECCOMP_IOCTL_NOTIF_ADDFD answered.  Then tell the
 * child to go on or to stop.  Returns 0, or -errno with *cause (the child
 * then exits 125); when a step was refused, supervise_refusal() names it
 * and *cause is NULL.
 */
int supervise_parent_attach(struct supervisor *sv, char **cause);

/* The steps of the supervisor's hand-over and of its probe. */
enum supervise_step {
	SUPERVISE_STEP_LISTENER, /* a listener made and passed */
	SUPERVISE_STEP_PIDFD,	 /* pidfd_open of the child */
	SUPERVISE_STEP_MEMORY,	 /* its memory read, either way */
	SUPERVISE_STEP_WORD,	 /* ... read, but another word */
	SUPERVISE_STEP_ADDFD,	 /* SECCOMP_IOCTL_NOTIF_ADDFD */
};

/*
 * What the supervisor needs and a hand-over or the supervisor's probe
 * found refused: the calls refused, as one list, the first one's errno,
 * and whether a memory read was (it needs ptrace access).  Both name it
 * with probe_supervisor_refused() (probe.h), in the same words.
 */
struct supervise_refused {
	char calls[200];
	int err;
	bool ptrace;
};

/* Note step refused with err in r. */
void supervise_refused_note(struct supervise_refused *r,
			    enum supervise_step step, int err);

/* Whether SECCOMP_IOCTL_NOTIF_ADDFD is answered on listener (ENOENT for
 * no such notification, as the kernel answers when it has the call): 0,
 * else the errno it got. */
int supervise_addfd_answered(int listener);

/* What supervise_parent_attach() found refused, or NULL. */
const struct supervise_refused *supervise_refusal(const struct supervisor *sv);

/* ---- The engine's part of the monitor's loop (monitor.h) ---- */

/* The most descriptors supervise_poll_fds gives: the listener, the
 * resolver's records and one per pending call. */
#define SUPERVISE_POLL_MAX 1026

/* How long the loop may sleep (poll's timeout): -1 unless something is
 * due. */
int supervise_poll_timeout(const struct supervisor *sv);

/* Fill pfd (SUPERVISE_POLL_MAX entries) with what to wait for; returns
 * how many. */
size_t supervise_poll_fds(struct supervisor *sv, struct pollfd *pfd);

/* After poll: answer the notifications and pending calls that are ready
 * (pfd and n as supervise_poll_fds gave them, with revents). */
void supervise_poll_ready(struct supervisor *sv, const struct pollfd *pfd,
			  size_t n);

/* A child of this process exited (SIGCHLD): reap the supervisor's own
 * (the watch judge). */
void supervise_reap(struct supervisor *sv);

/* The command is gone: write what the log still holds back. */
void supervise_finish(struct supervisor *sv);

/* The supervisor as the monitor loop's guest (monitor.h). */
struct monitor_guest;
void supervise_guest(struct supervisor *sv, struct monitor_guest *g);

/* Lines describing the supervisor's rules and log, for --explain, from
 * the plan's configuration c and network side np (the resolvers read
 * from /etc/resolv.conf when np names none; stub: allow-host through
 * llwrap's resolver). */
char **supervise_describe(const struct plan_conf *c, const struct net_plan *np,
			  bool stub, char *const *envp);

#endif /* LLW_SUPERVISE_H */
