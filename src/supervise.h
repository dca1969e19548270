/*
 * Process supervision: the loop a process runs while its child is the
 * sandboxed command (or the pid-namespace init above it), and the network
 * supervisor (layer S, DESIGN.md §6) that mediates connect/bind/sendto/
 * sendmsg through a seccomp user-notification listener.
 *
 * One loop serves every waiting process llwrap has: the outer monitor
 * (which is also the network supervisor when the policy needs one) and
 * pid 1 of a pid namespace (which also reaps orphans).  It forwards the
 * signals sent to it (not those the terminal sends to the whole process
 * group, which the command receives itself) and returns the child's
 * wait status.
 */
#ifndef LLW_SUPERVISE_H
#define LLW_SUPERVISE_H

#include <stdbool.h>
#include <sys/types.h>

#include "policy.h"

/* The network supervisor's state; NULL where nothing is mediated. */
struct supervisor;

/* True when p has rules only the supervisor can enforce. */
bool supervise_needed(const struct policy *p);

/*
 * Block the signals the loop forwards, so none is lost between fork and
 * supervise_run.  Call before fork(); the child calls
 * supervise_unblock_signals() before it goes on.
 */
void supervise_block_signals(void);
void supervise_unblock_signals(void);

/*
 * Wait for child, forwarding signals to it; when sv is not NULL, also
 * answer its notifications.  With reap_all (pid 1 of a namespace) every
 * child is reaped.  Returns 0 and the child's wait status, or -errno.
 */
int supervise_run(struct supervisor *sv, pid_t child, bool reap_all,
		  int *wstatus);

/*
 * Job control: a waiting process stops itself when its child stops, so
 * the shell sees the job stopped, and the SIGCONT that resumes it is
 * forwarded.  pid 1 of a pid namespace cannot stop itself: it writes the
 * stop signal to report_fd instead, and the monitor above it, watching
 * the other end (watch_fd), stops.  -1 for either means none.
 */
void supervise_stop_fds(int watch_fd, int report_fd);

/* The exit status for a wait status: the code, or 128+N for signal N. */
int supervise_exit_status(int wstatus);

#endif /* LLW_SUPERVISE_H */
