/*
 * The process monitor: the loop a process runs while its child is the
 * sandboxed command (or the pid-namespace init above it), and the ties
 * between their lives.
 *
 * One loop serves every waiting process llwrap has: the outer monitor
 * (which also runs the network supervisor's engine when the policy
 * needs one, supervise.h, as a struct monitor_guest) and pid 1 of a pid
 * namespace (which also reaps orphans).  It forwards the signals sent to it
 * (not those the terminal sends to the whole process group, which the command
 * receives itself), follows job control, and returns the child's wait status.
 */
#ifndef LLW_MONITOR_H
#define LLW_MONITOR_H

#include <stdbool.h>
#include <sys/types.h>

struct pollfd;

/*
 * A loop's guest (the network supervisor's engine, supervise.h): what it
 * waits for, served in the same poll.  The monitor knows it only by
 * these calls, so the kernel layer does not include the helpers' (the
 * runner, sandbox.c, wires the supervisor in).
 */
struct monitor_guest {
	void *arg;
	size_t max_fds;				      /* the most fds() gives */
	int (*timeout)(void *arg);		      /* poll's, ms; -1: none */
	size_t (*fds)(void *arg, struct pollfd *pfd); /* fill, count */
	void (*ready)(void *arg, const struct pollfd *pfd, size_t n);
	void (*reap)(void *arg);   /* a child ended (SIGCHLD) */
	void (*finish)(void *arg); /* the loop is done */
};

/*
 * Block the signals the loop forwards, so none is lost between fork and
 * monitor_run.  Call before fork(); the child calls
 * monitor_unblock_signals() before it goes on.
 */
void monitor_block_signals(void);
void monitor_unblock_signals(void);

/*
 * Wait for child, forwarding signals to it; when guest is not NULL, also
 * serve it (the supervisor answers its notifications).  With reap_all
 * (pid 1 of a namespace) every child is reaped.  Returns 0 and the
 * child's wait status, or -errno.
 */
int monitor_run(const struct monitor_guest *guest, pid_t child, bool reap_all,
		int *wstatus);

/*
 * Job control: a waiting process stops itself when its child stops for
 * a stop of the terminal's, so the shell sees the job stopped, and the
 * SIGCONT that resumes it is forwarded.  First every process below it
 * is stopped too, continued with it (pid 1 of a pid namespace stops its
 * namespace instead).  pid 1 cannot stop itself: it writes the stop
 * signal to report_fd instead, and the monitor above it, watching the
 * other end (watch_fd), stops.  -1 for either means none.
 */
void monitor_stop_fds(int watch_fd, int report_fd);

/*
 * The command's end, told before the process that saw it has finished
 * exiting: pid 1 of a pid namespace, once no process of the command's
 * is left (monitor_namespace_empty), and the
 * supervisor below a guardian write the status to report it with to
 * report_fd (monitor_exit_report, monitor_report_exit), and the loop of the
 * monitor above, watching the other end (monitor_exit_watch), returns it at
 * once as its child's exit status (W_EXITCODE), without waiting for that
 * child's exit to tear down its memory and namespaces (a mount namespace's
 * teardown waits for RCU; issue 29).  A child that ends without a report (a
 * signal, or pid 1 with orphans left to end) is reaped as before.  Each
 * setter closes the descriptor it
 * replaces; -1 means none.  A forked child inherits neither
 * (monitor_tie_child closes them).
 */
void monitor_exit_watch(int watch_fd);
void monitor_exit_report(int report_fd);
void monitor_report_exit(int status);

/*
 * The child whose report ended the loop is reaped here, last, once
 * this process has done all else (its own report above, the final
 * check, what it prints), so that its exit overlaps that work and no
 * process of llwrap's is left when the caller's wait returns: none
 * becomes init's to reap.  Every other child that ends meanwhile is
 * reaped too (pid 1's exit waits for the supervisor's watch judge,
 * forked into its namespace, to be reaped).  Nothing when there is none.
 */
void monitor_reap_last(void);

/*
 * pid 1 of a pid namespace, once the command has ended: reap what has
 * exited, and say whether any process of the command's is left (every
 * one is pid 1's child or a child's descendant: orphans come to it; the
 * supervisor's watch judge, forked into the namespace, is not the
 * command's, and the supervisor ends it).  0 when none is, and the
 * report above holds for the whole command; -EBUSY when one is, which
 * pid 1's own exit ends (the kernel SIGKILLs the namespace and waits for
 * it: kill(-1) here would walk every process of the host's); -EPERM in
 * a process that is not pid 1.
 */
int monitor_namespace_empty(void);

/*
 * More descriptors the loop of this process polls: ready(arg) runs when
 * fd is readable (or hangs up), in the loop, until monitor_unwatch(fd).
 * At most MONITOR_MAX_WATCH at once (more are ignored).  Used by the
 * limits' timer (resources.h) and the watch on files run later
 * (watchlater.h).
 */
#define MONITOR_MAX_WATCH 4
void monitor_watch(int fd, void (*ready)(void *arg), void *arg);
/* The same for a mount table (/proc/PID/mountinfo): ready(arg) runs
 * when the namespace's mounts changed (POLLPRI; the table is always
 * readable).  Used by the watch on the view's masks (maskwatch.h).
 * 0, or -ENOSPC when MONITOR_MAX_WATCH are taken. */
int monitor_watch_mounts(int fd, void (*ready)(void *arg), void *arg);
void monitor_unwatch(int fd);

/*
 * Tie the lives of a waiting process and the child it forked together,
 * so the command never outlives the process that supervises it.
 *
 * monitor_tie_prepare(), before fork(): a pidfd of this process for
 * the child (-errno on failure).  monitor_tie_child(), in the child at
 * once: SIGKILL when the parent dies (PR_SET_PDEATHSIG), then a check
 * that the parent did not die before that (its pidfd is not readable;
 * getppid() cannot tell across a pid namespace); closes parent_pidfd.
 * Returns 0, or -errno with *cause.  monitor_tie_parent(), in the
 * parent: close parent_pidfd, and on a fatal signal (a crash, abort(),
 * or one sent by someone) SIGKILL the child before dying of it, which
 * with a pid namespace ends every process in it.
 */
int monitor_tie_prepare(void);
int monitor_tie_child(int parent_pidfd, char **cause);
void monitor_tie_parent(int parent_pidfd, pid_t child);

/* In a process forked after monitor_tie_parent() that is not the tied
 * child (a helper: helper_start): its fatal signals are its own again,
 * not a SIGKILL of the parent's child. */
void monitor_untie(void);

/*
 * A command whose descendants can outlive the child this process forked
 * (bubblewrap's sandbox, until bwrap ties it to itself):
 * monitor_adopt_orphans(), before fork(), makes this process their
 * subreaper (PR_SET_CHILD_SUBREAPER), so what its child leaves behind
 * becomes its own child instead of init's; monitor_end_orphans(), once
 * the command has ended, SIGKILLs every child this process still has
 * and waits until each is dead, leaving it unreaped (a helper's pid is
 * not reused before its owner reaps it).  Returns -errno when this
 * process cannot become a subreaper.
 */
int monitor_adopt_orphans(void);
void monitor_end_orphans(void);

/* A stop of the terminal's this process did not follow: the processes
 * below it could not all be stopped (they made new ones as fast), so it
 * went on watching, as did the command's (review X, X2). */
bool monitor_stop_refused(void);

/* A child of this process's that monitor_end_orphans leaves alone: the
 * holder of the watches' inotify instances (fd_hold), which ends after
 * this process. */
void monitor_spare(pid_t pid);

/*
 * The host side is never ended by what the command does to a descriptor
 * (DESIGN.md §15): monitor_host_signals(), at the start of a run, ignores
 * SIGPIPE (a pipe whose reader the command closed) and SIGXFSZ (a file
 * past the size limit), in this process and every helper it starts, and
 * remembers what they were; monitor_command_signals(), just before the
 * command (or bwrap) is executed, gives them back as llwrap found them.
 */
void monitor_host_signals(void);
void monitor_command_signals(void);

/* The exit status for a wait status: the code, or 128+N for signal N. */
int monitor_exit_status(int wstatus);

#endif /* LLW_MONITOR_H */
