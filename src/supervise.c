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
	SIGHUP,	  SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
	SIGWINCH, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU, SIGALRM,
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

/* Job control across a pid namespace (supervise_stop_fds). */
static int stop_watch_fd = -1, stop_report_fd = -1;

void
supervise_stop_fds(int watch_fd, int report_fd)
{
	stop_watch_fd = watch_fd;
	stop_report_fd = report_fd;
}

/*
 * Stop this process with sig (the one that stopped the child), so the
 * shell waiting for it sees the job stopped.  sig is blocked for the
 * signalfd: make it pending, then let it through once.  SIGSTOP when
 * sig is not a terminal stop signal (which an orphaned process group
 * would ignore anyway).
 */
static void
stop_self(int sig)
{
	sigset_t one;

	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU) {
		kill(getpid(), SIGSTOP);
		return;
	}
	sigemptyset(&one);
	sigaddset(&one, sig);
	kill(getpid(), sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	sigprocmask(SIG_BLOCK, &one, NULL);
}

/* The child stopped: stop too, or, as pid 1 of a namespace (which
 * cannot stop itself), tell the monitor above to. */
static void
child_stopped(int sig, bool reap_all)
{
	unsigned char b = (unsigned char)sig;

	if (stop_report_fd >= 0) {
		if (write(stop_report_fd, &b, 1) < 0) {
			/* The monitor is gone; nothing to tell. */
		}
	} else if (!reap_all) {
		stop_self(sig);
	}
}

/* Reap what has exited; true once child has, with its status. */
static bool
reap(pid_t child, bool reap_all, int *wstatus)
{
	bool done = false;

	for (;;) {
		int st;
		pid_t pid = waitpid(reap_all ? -1 : child, &st,
				    WNOHANG | WUNTRACED);

		if (pid <= 0)
			return done;
		if (pid == child && WIFSTOPPED(st)) {
			child_stopped(WSTOPSIG(st), reap_all);
		} else if (pid == child) {
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
supervise_run(struct supervisor *sv, pid_t child, bool reap_all, int *wstatus)
{
	sigset_t set = loop_signals();
	_cleanup_close_ int sfd = -1;
	struct pollfd pfd[3];

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
	pfd[2] = (struct pollfd){ .fd = stop_watch_fd, .events = POLLIN };
	for (;;) {
		struct signalfd_siginfo si;

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[2].revents & POLLIN) {
			unsigned char b;

			if (read(stop_watch_fd, &b, 1) == 1)
				stop_self(b);
		} else if (pfd[2].revents & (POLLHUP | POLLERR)) {
			pfd[2].fd = -1;
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
