/*
 * helper: the start-up and the confinement every helper process of
 * llwrap's shares.  helper.h has the contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "filter.h"
#include "helper.h"
#include "monitor.h"
#include "xalloc.h"

/* In the child: everything helper_start promises, or -1. */
static int
helper_setup(const struct helper *h, pid_t parent)
{
	static const int ignored[] = { SIGINT,	SIGQUIT, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGPIPE };
	int keep[16];
	size_t n = 0;
	sigset_t none;

	/* Forked by a monitor that ties its child to itself (a
	 * guardian's resolver, a supervisor's judge): a crash here is this
	 * helper's, not a reason to SIGKILL that child. */
	monitor_untie();
	/* The parent may have ended before the death signal was set: then
	 * this process was given to another.  A parent outside this
	 * process's pid namespace (the supervisor that made the sandbox's,
	 * forking the judge into it) reads as 0. */
	if ((h->not_dumpable && prctl(PR_SET_DUMPABLE, 0) < 0) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
	    (getppid() != parent && getppid() != 0))
		return -1;
	for (size_t i = 0; i < h->n_keep; i++) {
		if (h->keep[i] < 0)
			continue;
		if (n == ARRAY_SIZE(keep))
			return -1;
		keep[n++] = h->keep[i];
	}
	if (h->close_stdio) {
		for (int fd = 0; fd < 3; fd++) {
			bool kept = false;

			for (size_t i = 0; i < n; i++)
				kept |= keep[i] == fd;
			if (!kept)
				close(fd);
		}
	} else {
		_cleanup_close_ int devnull =
			open("/dev/null", O_RDWR | O_CLOEXEC);

		if (devnull < 0 || dup2(devnull, 0) < 0 ||
		    dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
			return -1;
	}
	if (fd_close_inherited(keep, n) < 0)
		return -1;
	/* fd_close_inherited made them survive exec; a helper execs
	 * nothing, but what it holds stays close-on-exec all the same. */
	for (size_t i = 0; i < n; i++)
		if (fcntl(keep[i], F_SETFD, FD_CLOEXEC) < 0)
			return -1;
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		signal(ignored[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	(void)prctl(PR_SET_NAME, h->name);
	return 0;
}

pid_t
helper_start(const struct helper *h)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0 && helper_setup(h, parent) < 0)
		_exit(1);
	return pid;
}

void
helper_stop(pid_t pid, pid_t owner, bool reap)
{
	if (pid <= 0 || owner != getpid())
		return;
	kill(pid, SIGKILL);
	while (reap && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int
helper_unprivilege(char **cause)
{
	bool setpcap = false;
	int r;

	/* The bounding set only where CAP_SETPCAP allows it (root, or a
	 * user namespace's root): a helper forked by an unprivileged user
	 * (the relay) holds nothing, and no_new_privs keeps it so. */
	if ((r = caps_held(&setpcap)) < 0 || (r = caps_drop(setpcap)) < 0) {
		*cause = xasprintf("cannot drop its capabilities: %s",
				   strerror(-r));
		return r;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		r = -errno;
		*cause = xasprintf("cannot set no_new_privs: %s", strerror(-r));
		return r;
	}
	return 0;
}

int
helper_confine(const struct helper_confinement *c, char **cause)
{
	bool applied;
	int r;

	if (c->drop_caps && (r = helper_unprivilege(cause)) < 0)
		return r;
	if (c->use_ruleset_fd) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    (c->ruleset_fd >= 0 &&
		     sys_landlock_restrict_self(c->ruleset_fd, 0) < 0)) {
			r = -errno;
			*cause = xasprintf("cannot restrict itself to the "
					   "sandbox's Landlock domain: %s",
					   strerror(-r));
			return r;
		}
	} else if ((r = ruleset_confine_helper(c->paths, c->n_paths, c->net,
					       &applied, cause)) < 0) {
		return r;
	}
	return filter_confine_helper(c->unix_ok, c->no_inet, cause);
}
