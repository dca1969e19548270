/*
 * helper: the one start-up of llwrap's helper processes (DESIGN.md §15):
 * the resolver llwrap-dns (dnsstub.h), the proxy llwrap-proxy
 * (proxyserve.h) and the watch judge (watchjudge.h).
 *
 * A helper is forked by a process of llwrap's (llwrap itself, or the
 * supervisor) and talks to it over channels (channel.h) alone.  It dies
 * with its parent, holds nothing of the command's (not its terminal, not
 * the pipes a caller waits on to see the command end), takes no signal
 * from the terminal, and, once it holds what it needs, confines itself:
 * no capability, no new privileges, the narrowest Landlock domain and
 * seccomp filter it runs with.  helper_start does the first part at the
 * fork, helper_confine the second where the helper is ready for it.
 */
#ifndef LLW_HELPER_H
#define LLW_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ruleset.h"

/* What a helper is and keeps. */
struct helper {
	const char *name;  /* its command name (PR_SET_NAME) */
	const int *keep;   /* the descriptors it keeps (channels, ...) */
	size_t n_keep;	   /* how many; a negative entry is skipped */
	bool close_stdio;  /* its standard descriptors closed, not on
			    * /dev/null (the judge: it opens nothing) */
	bool not_dumpable; /* PR_SET_DUMPABLE 0 first: no /proc access,
			    * no ptrace by its user's processes */
};

/*
 * Fork a helper.  In the parent: the child's pid, or -errno.  In the
 * child: 0, once it is set up: not dumpable when asked, PR_SET_PDEATHSIG
 * SIGKILL (and its parent still the one that forked it, or outside its
 * pid namespace), its standard
 * descriptors on /dev/null (or closed), every other descriptor closed but those
 * in keep (which stay close-on-exec), SIGINT, SIGQUIT, SIGTSTP, SIGTTIN,
 * SIGTTOU and SIGPIPE ignored, no signal blocked, and its name set.  A child
 * that cannot set itself up exits with status 1 at once: its parent sees it end
 * (its channel's end).
 */
pid_t helper_start(const struct helper *h);

/*
 * Stop the helper pid that the process owner started (helper_start):
 * SIGKILL, then reaped when reap is set.  Only its starter stops it: a
 * process that inherited the handle by a fork (pid 1 of the sandbox's
 * pid namespace, leaving through the same code) does nothing, since
 * there pid names another process, or none.
 */
void helper_stop(pid_t pid, pid_t owner, bool reap);

/* How a helper confines itself. */
struct helper_confinement {
	bool drop_caps; /* drop every capability (caps_drop) first */
	/* Landlock: the domain of ruleset_fd, when use_ruleset_fd (the
	 * judge: the sandbox's own ruleset, -1 for none); else one of the
	 * helper's own (ruleset_confine_helper): read only paths (n_paths
	 * of them), reach the network as net says. */
	bool use_ruleset_fd;
	int ruleset_fd;
	const char *const *paths;
	size_t n_paths;
	enum ruleset_helper_net net;
	/* The filter (filter_confine_helper): AF_UNIX sockets allowed,
	 * network sockets refused. */
	bool unix_ok, no_inet;
};

/* What a helper run by root holds, dropped: every capability (the
 * bounding set where CAP_SETPCAP allows), and no_new_privs set.  0, or
 * -errno with *cause. */
int helper_unprivilege(char **cause);

/*
 * Confine the calling helper as c says, in this order: capabilities,
 * no_new_privs and Landlock, the seccomp filter.  Returns 0,
 * or -errno with *cause; a helper that fails must not serve.
 */
int helper_confine(const struct helper_confinement *c, char **cause);

#endif /* LLW_HELPER_H */
