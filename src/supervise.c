/*
 * The waiting loop, and (when the policy needs it) the network supervisor.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "supervise.h"
#include "xalloc.h"

/* The signals forwarded to the child.  SIGCHLD is what ends the loop. */
static const int forwarded[] = {
	SIGHUP,	 SIGINT,  SIGQUIT, SIGTERM, SIGUSR1,
	SIGUSR2, SIGWINCH, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU, SIGALRM,
};

static sigset_t
loop_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	return set;
}

void
supervise_block_signals(void)
{
	sigset_t set = loop_signals();

	sigprocmask(SIG_BLOCK, &set, NULL);
}

void
supervise_unblock_signals(void)
{
	sigset_t set = loop_signals();

	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

bool
supervise_needed(const struct policy *p)
{
	return p->allow_cidr.n > 0 || p->unix_paths.n > 0 || p->listen.n > 0 ||
	       p->dns.n > 0;
}

int
supervise_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 125;
}

/* Reap what has exited; true once child has, with its status. */
static bool
reap(pid_t child, bool reap_all, int *wstatus)
{
	bool done = false;

	for (;;) {
		int st;
		pid_t pid = waitpid(reap_all ? -1 : child, &st, WNOHANG);

		if (pid <= 0)
			return done;
		if (pid == child) {
			*wstatus = st;
			done = true;
		}
	}
}

/* Answer one notification on the listener (network supervisor). */
static int
supervise_handle(struct supervisor *sv)
{
	(void)sv;
	return -ENOSYS;
}

static int
supervisor_fd(const struct supervisor *sv)
{
	(void)sv;
	return -1;
}

int
supervise_run(struct supervisor *sv, pid_t child, bool reap_all,
	      int *wstatus)
{
	sigset_t set = loop_signals();
	_cleanup_close_ int sfd = -1;
	struct pollfd pfd[2];

	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	/* The child may have exited before the signalfd existed. */
	if (reap(child, reap_all, wstatus))
		return 0;

	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sv ? supervisor_fd(sv) : -1,
				  .events = POLLIN };
	for (;;) {
		struct signalfd_siginfo si;

		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[1].fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)))
			supervise_handle(sv);
		if (!(pfd[0].revents & POLLIN))
			continue;
		if (read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			if (reap(child, reap_all, wstatus))
				return 0;
			continue;
		}
		/* A signal the terminal sent to the foreground process
		 * group reached the child too; forward only what was sent
		 * to this process alone. */
		if (si.ssi_code == SI_KERNEL)
			continue;
		kill(child, (int)si.ssi_signo);
	}
}
