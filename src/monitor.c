/*
 * The process monitor (monitor.h): signals forwarded to the child, its
 * stops followed, its exit reaped, and a guest served in the same poll
 * loop (the network supervisor's engine, supervise.c, wired in by the
 * runner).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "monitor.h"
#include "mono.h"
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
monitor_block_signals(void)
{
	sigset_t set = loop_signals();

	sigprocmask(SIG_BLOCK, &set, NULL);
}

void
monitor_unblock_signals(void)
{
	sigset_t set = loop_signals();

	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static const int host_ignored[] = { SIGPIPE, SIGXFSZ };
static struct sigaction host_old[ARRAY_SIZE(host_ignored)];
static bool host_saved;

void
monitor_host_signals(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&ign.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(host_ignored); i++)
		sigaction(host_ignored[i], &ign,
			  host_saved ? NULL : &host_old[i]);
	host_saved = true;
}

void
monitor_command_signals(void)
{
	for (size_t i = 0; host_saved && i < ARRAY_SIZE(host_ignored); i++)
		sigaction(host_ignored[i], &host_old[i], NULL);
}

int
monitor_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 125;
}

/* ---- Tied lives ---- */

static volatile sig_atomic_t tied_child;
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				     SIGABRT, SIGSYS, SIGTRAP };
static struct sigaction fatal_old[ARRAY_SIZE(fatal_signals)];

/* Async-signal-safe: kill and sigaction only. */
static void
on_fatal(int sig, siginfo_t *si, void *uc)
{
	pid_t child = tied_child;

	(void)uc;
	if (child > 0)
		kill(child, SIGKILL);
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &fatal_old[i], NULL);
	/* A fault of this process's own comes again when the handler
	 * returns, to whatever handled it before (a sanitizer's report);
	 * a signal someone sent is sent again. */
	if (si->si_code <= 0)
		raise(sig);
}

int
monitor_tie_prepare(void)
{
	int fd = sys_pidfd_open(getpid(), 0);

	return fd < 0 ? -errno : fd;
}

int
monitor_tie_child(int parent_pidfd, char **cause)
{
	struct pollfd pfd = { .fd = parent_pidfd, .events = POLLIN };
	int r = 0, n;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		r = -errno;
		*cause = xasprintf("cannot set the parent-death signal: %s",
				   strerror(-r));
	} else if ((n = poll(&pfd, 1, 0)) != 0) {
		r = n < 0 ? -errno : -ESRCH;
		*cause = xstrdup("llwrap's monitor ended before the command "
				 "started");
	}
	close(parent_pidfd);
	/* The parent's report of the command's end is its own to write,
	 * and to read. */
	monitor_exit_watch(-1);
	monitor_exit_report(-1);
	return r;
}

void
monitor_tie_parent(int parent_pidfd, pid_t child)
{
	struct sigaction sa = { .sa_sigaction = on_fatal,
				.sa_flags = SA_SIGINFO | SA_NODEFER };

	close(parent_pidfd);
	tied_child = child;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, &fatal_old[i]);
}

void
monitor_untie(void)
{
	if (tied_child <= 0)
		return;
	tied_child = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		sigaction(fatal_signals[i], &fatal_old[i], NULL);
}

/* ---- Orphans ---- */

/* This process adopts the orphans below it (reap_adopted). */
static bool adopting;

int
monitor_adopt_orphans(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -errno;
	adopting = true;
	return 0;
}

/* The parent of the process /proc/NAME describes, or -1. */
static pid_t
parent_of(const char *name)
{
	char path[sizeof("/proc/") + NAME_MAX];
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "/proc/%s", name);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -1 : proc_parent_at(fd);
}

/* SIGKILL pid and wait until it is dead (leaving it unreaped), unless
 * ended lists it; true when it did not. */
static bool
end_child(pid_t pid, pid_t **ended, size_t *n_ended)
{
	siginfo_t si;

	for (size_t i = 0; i < *n_ended; i++)
		if ((*ended)[i] == pid)
			return false;
	kill(pid, SIGKILL);
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 &&
	       errno == EINTR)
		;
	*ended = xreallocarray(*ended, *n_ended + 1, sizeof(**ended));
	(*ended)[(*n_ended)++] = pid;
	return true;
}

/*
 * The children of process pid (0: this one), as its threads' children
 * files list them (/proc/PID/task/TID/children, CONFIG_PROC_CHILDREN): a
 * few reads, where a scan of /proc opens every process's stat.  -ENOENT
 * without those files.
 */
static int
children_of(pid_t pid, pid_t **v, size_t *n)
{
	char dir[sizeof("/proc//task") + 12];
	DIR *d;
	struct dirent *e;
	int r = -ENOENT;

	*v = NULL;
	*n = 0;
	if (pid > 0)
		snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	else
		snprintf(dir, sizeof(dir), "/proc/self/task");
	if ((d = opendir(dir)) == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *text = NULL;
		char path[sizeof(dir) + sizeof("//children") + NAME_MAX];
		size_t len;
		int fd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/children", dir, e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			if (errno == ENOENT && r == -ENOENT)
				break; /* no such files here */
			continue;      /* a thread that ended */
		}
		r = fd_read_all(fd, 1 << 20, &text, &len);
		close(fd);
		if (r < 0)
			break;
		for (char *s = text, *end; *s != '\0'; s = end) {
			long kid = strtol(s, &end, 10);

			if (end == s)
				break;
			*v = xreallocarray(*v, *n + 1, sizeof(**v));
			(*v)[(*n)++] = (pid_t)kid;
		}
	}
	closedir(d);
	if (r < 0) {
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return r;
}

static pid_t spared = -1;
/* The child monitor_run waits for. */
static pid_t loop_child;

void
monitor_spare(pid_t pid)
{
	spared = pid;
}

void
monitor_end_orphans(void)
{
	_cleanup_free_ pid_t *ended = NULL;
	size_t n_ended = 0;
	pid_t self = getpid();
	bool more = true;

	if (spared > 0) {
		ended = xcalloc(1, sizeof(*ended));
		ended[n_ended++] = spared;
	}

	/* A child that dies hands its own children to this process: look
	 * again until no child is new. */
	while (more) {
		_cleanup_free_ pid_t *kids = NULL;
		size_t n_kids;
		DIR *d;
		struct dirent *e;

		more = false;
		if (children_of(0, &kids, &n_kids) == 0) {
			for (size_t i = 0; i < n_kids; i++)
				more |= end_child(kids[i], &ended, &n_ended);
			continue;
		}
		if ((d = opendir("/proc")) == NULL)
			return;
		while ((e = readdir(d)) != NULL)
			if (isdigit((unsigned char)e->d_name[0]) &&
			    parent_of(e->d_name) == self)
				more |= end_child((pid_t)atoi(e->d_name),
						  &ended, &n_ended);
		closedir(d);
	}
}

/* Job control across a pid namespace (monitor_stop_fds). */
static int stop_watch_fd = -1, stop_report_fd = -1;
/* The command's end told ahead (monitor_exit_watch, _report), and the
 * child whose exit the loop did not wait for then (monitor_reap_last). */
static int exit_watch_fd = -1, exit_report_fd = -1;
static pid_t exit_unreaped;

/* Other descriptors the loop polls (monitor_watch). */
static struct {
	int fd;
	short events;
	void (*ready)(void *arg);
	void *arg;
} watches[MONITOR_MAX_WATCH];
static size_t n_watches;

static int
watch_add(int fd, short events, void (*ready)(void *arg), void *arg)
{
	if (n_watches >= MONITOR_MAX_WATCH || fd < 0)
		return -ENOSPC;
	watches[n_watches].fd = fd;
	watches[n_watches].events = events;
	watches[n_watches].ready = ready;
	watches[n_watches++].arg = arg;
	return 0;
}

void
monitor_watch(int fd, void (*ready)(void *arg), void *arg)
{
	(void)watch_add(fd, POLLIN, ready, arg);
}

int
monitor_watch_mounts(int fd, void (*ready)(void *arg), void *arg)
{
	return watch_add(fd, POLLPRI, ready, arg);
}

void
monitor_unwatch(int fd)
{
	for (size_t i = 0; i < n_watches; i++)
		if (watches[i].fd == fd) {
			watches[i] = watches[--n_watches];
			return;
		}
}

void
monitor_stop_fds(int watch_fd, int report_fd)
{
	stop_watch_fd = watch_fd;
	stop_report_fd = report_fd;
}

void
monitor_exit_watch(int watch_fd)
{
	if (exit_watch_fd >= 0 && exit_watch_fd != watch_fd)
		close(exit_watch_fd);
	exit_watch_fd = watch_fd;
}

void
monitor_exit_report(int report_fd)
{
	if (exit_report_fd >= 0 && exit_report_fd != report_fd)
		close(exit_report_fd);
	exit_report_fd = report_fd;
}

void
monitor_report_exit(int status)
{
	unsigned char b = (unsigned char)status;

	if (exit_report_fd < 0)
		return;
	if (write(exit_report_fd, &b, 1) < 0) {
		/* The monitor above is gone: it waits for nothing. */
	}
	close(exit_report_fd);
	exit_report_fd = -1;
}

void
monitor_reap_last(void)
{
	pid_t pid;

	if (exit_unreaped <= 0)
		return;
	/* Any child, not that one alone: pid 1's exit waits until every
	 * process of its namespace is reaped, and the supervisor's watch
	 * judge, forked into it, is the supervisor's to reap. */
	while ((pid = waitpid(-1, NULL, 0)) != exit_unreaped)
		if (pid < 0 && errno != EINTR)
			break;
	exit_unreaped = 0;
}

int
monitor_namespace_empty(void)
{
	pid_t pid;

	if (getpid() != 1)
		return -EPERM;
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		;
	if (pid == 0)
		return -EBUSY;
	return errno == ECHILD ? 0 : -errno;
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

/* The state letter and parent of process pid (/proc/PID/stat): 0, or
 * -1 when it is gone or unreadable. */
static int
proc_state(pid_t pid, char *state, pid_t *ppid)
{
	char path[sizeof("/proc/") + 12];
	struct proc_stat st;
	int dir, r;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if ((dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if ((r = proc_stat_at(dir, &st)) == 0) {
		*state = st.state;
		*ppid = st.ppid;
	}
	close(dir);
	return r;
}

/* Whether some thread of pid runs (a state but stopped, traced or
 * dead) and whether some thread is stopped: the process's own state is
 * its first thread's, a zombie once that thread exited while others
 * run on. */
static void
proc_threads(pid_t pid, bool *running, bool *stopped)
{
	char dir[sizeof("/proc//task") + 12];
	struct dirent *e;
	DIR *d;

	*running = *stopped = false;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[sizeof(dir) + sizeof("//stat") + NAME_MAX], buf[512];
		char *p, state;
		ssize_t n;
		int fd;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", dir, e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %c", &state) != 1)
			continue;
		if (state == 'T')
			*stopped = true;
		else if (strchr("tZX", state) == NULL)
			*running = true;
	}
	closedir(d);
}

/* The children of pid: its children files, or a scan of /proc. */
static void
tree_children(pid_t pid, pid_t **v, size_t *n)
{
	DIR *d;
	struct dirent *e;

	/* Where the kernel has children files, a process without them has
	 * ended. */
	if (children_of(pid, v, n) == 0 ||
	    access("/proc/thread-self/children", F_OK) == 0 ||
	    (d = opendir("/proc")) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char state;
		pid_t ppid;

		if (isdigit((unsigned char)e->d_name[0]) &&
		    proc_state((pid_t)atoi(e->d_name), &state, &ppid) == 0 &&
		    ppid == pid) {
			*v = xreallocarray(*v, *n + 1, sizeof(**v));
			(*v)[(*n)++] = (pid_t)atoi(e->d_name);
		}
	}
	closedir(d);
}

static int
pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * Send sig (SIGSTOP or SIGCONT) to every process below this one that
 * needs it (SIGSTOP: one with a thread running; SIGCONT: one with a
 * thread stopped), walking down from this process's children.  Each is
 * signalled through a pidfd taken before its parent is read, and only
 * while it is alive and still that parent's child; a parent's children
 * are taken only while its own pidfd says it lives: a pid reused
 * meanwhile by a process not below this one is neither signalled nor
 * walked into.  seen holds the pids the walk before found (sorted),
 * and those of this one on return.  True when one was sent, or a
 * process not seen before was found: a process that forks and exits,
 * its child doing the same, is found running by no walk (each finds
 * the one it read exited, its child elsewhere), only new each time
 * (review X, X2).
 */
static bool
tree_signal_once(int sig, pid_t **seen, size_t *n_seen)
{
	/* A process found below, and the parent it had then. */
	struct node {
		pid_t pid, ppid;
	};
	_cleanup_free_ struct node *stack = NULL;
	size_t n = 0, cap = 0, k, n_now = 0;
	pid_t *now = NULL, self = getpid();
	bool changed = false;

	stack = xreallocarray(stack, cap = 16, sizeof(*stack));
	stack[n++] = (struct node){ .pid = self };
	/* Depth first: the child of one just stopped after its fork is
	 * the next one signalled, before it forks in turn.  One pidfd
	 * held at a time, not one per process waiting on the stack (a
	 * wide tree would have run this process out of descriptors). */
	while (n > 0) {
		struct node parent = stack[--n];
		struct pollfd pp = { .fd = -1, .events = POLLIN };
		_cleanup_free_ pid_t *kids = NULL;
		size_t n_kids = 0;
		char state;
		pid_t ppid;

		/* Still the process found, below the same parent: its pid
		 * taken again would be a child of that parent's too. */
		if (parent.pid != self &&
		    ((pp.fd = sys_pidfd_open(parent.pid, 0)) < 0 ||
		     proc_state(parent.pid, &state, &ppid) < 0 ||
		     ppid != parent.ppid)) {
			if (pp.fd >= 0)
				close(pp.fd);
			continue;
		}
		tree_children(parent.pid == self ? 0 : parent.pid, &kids,
			      &n_kids);
		if (pp.fd >= 0 && poll(&pp, 1, 0) != 0)
			n_kids = 0; /* ended: its children are elsewhere */
		if (pp.fd >= 0)
			close(pp.fd);
		/* The newest first: the children files list in the order
		 * of birth (or adoption), and a chain's newest is the one
		 * still running, behind its predecessors' zombies. */
		k = n;
		for (size_t i = n_kids; i-- > 0;) {
			struct pollfd p = { .events = POLLIN };
			bool running, stopped;

			/* Exited or not: one of a chain is found exited
			 * more often than not. */
			if (*n_seen == 0 ||
			    bsearch(&kids[i], *seen, *n_seen, sizeof(pid_t),
				    pid_cmp) == NULL)
				changed = true;
			now = xreallocarray(now, n_now + 1, sizeof(*now));
			now[n_now++] = kids[i];
			/* One that exited (a zombie a stopped parent has not
			 * reaped: bubblewrap's pid 1 holds thousands of a
			 * chain's) is counted, and nothing more. */
			if ((p.fd = sys_pidfd_open(kids[i], 0)) < 0)
				continue;
			if (proc_state(kids[i], &state, &ppid) < 0 ||
			    ppid != parent.pid || poll(&p, 1, 0) != 0) {
				close(p.fd);
				continue;
			}
			/* A stop at once (one to a stopped process is
			 * nothing; a zombie's threads are read first, one
			 * whose first thread exited may run on), its
			 * threads read after: whether one still runs. */
			if (sig == SIGSTOP && state != 'Z') {
				(void)syscall(SYS_pidfd_send_signal, p.fd, sig,
					      NULL, 0);
				proc_threads(kids[i], &running, &stopped);
				changed |= running;
			} else {
				proc_threads(kids[i], &running, &stopped);
				if ((sig == SIGCONT ? stopped : running) &&
				    syscall(SYS_pidfd_send_signal, p.fd, sig,
					    NULL, 0) == 0)
					changed = true;
			}
			close(p.fd);
			if (n == cap)
				stack = xreallocarray(stack, cap *= 2,
						      sizeof(*stack));
			stack[n++] = (struct node){ .pid = kids[i],
						    .ppid = parent.pid };
		}
		/* ... and so walked into first. */
		for (size_t a = k, b = n; a + 1 < b; a++, b--) {
			struct node t = stack[a];

			stack[a] = stack[b - 1];
			stack[b - 1] = t;
		}
	}
	qsort(now, n_now, sizeof(pid_t), pid_cmp);
	free(*seen);
	*seen = now;
	*n_seen = n_now;
	return changed;
}

/*
 * Reap what this process adopted (a subreaper) and has ended: a zombie
 * child other than child, the spared one and llwrap's own processes
 * (named llwrap...: the helpers, which whoever started them reaps by
 * pid).  Left to the end, every orphan the command made that ended
 * stayed a zombie, counted against the user's processes (review M, F7).
 */
static void
reap_adopted(pid_t child)
{
	_cleanup_free_ pid_t *kids = NULL;
	size_t n = 0;

	if (!adopting || children_of(0, &kids, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char path[sizeof("/proc//comm") + 12], state;
		_cleanup_free_ char *comm = NULL;
		pid_t ppid;

		if (kids[i] == child || kids[i] == spared ||
		    proc_state(kids[i], &state, &ppid) < 0 || state != 'Z')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)kids[i]);
		comm = file_read_line(path, 64);
		if (comm == NULL || strncmp(comm, "llwrap", 6) == 0)
			continue;
		(void)waitpid(kids[i], NULL, WNOHANG);
	}
}

/*
 * What this process writes once its child ended (the final check's
 * report, notes, the footer) goes to a terminal the command held: one
 * whose output it suspended (tcflow TCOOFF, with IXON and ISIG cleared,
 * so that neither Ctrl-Q nor Ctrl-C undoes it) held llwrap in that
 * write for good (review M, F8).  Where standard error is a terminal,
 * it becomes a description of that terminal of this process's own, not
 * blocking: a line that does not fit now is dropped.  The description
 * the user's shell shares is left as it is.
 */
static void
terminal_unheld(void)
{
	int fd;

	if (!isatty(STDERR_FILENO))
		return;
	fd = open("/proc/self/fd/2",
		  O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)dup2(fd, STDERR_FILENO);
	close(fd);
}

/*
 * Without a pid namespace of llwrap's, the processes of the command's
 * in a process group of their own go on when the terminal stops the
 * job, and so would they while this process, with the watch and the
 * timeout, is stopped: a command that puts its own job in the
 * background (tcsetpgrp) and reads the terminal has the kernel stop
 * llwrap's job (SIGTTIN), its other processes still running.  So,
 * before this process follows a stop of the terminal's, every process
 * below it is stopped too (again, until none below runs: a stopped
 * process makes no new one), and continued with it, as pid 1 does in
 * its namespace.  What this process adopted is below it: a monitor
 * without a pid namespace is the subreaper of the command's processes
 * (sandbox_exec).
 */
/* How long tree_stop tries. */
#define TREE_STOP_NS 2000000000ull
static bool
tree_stop(void)
{
	_cleanup_free_ pid_t *seen = NULL;
	size_t n_seen = 0;
	uint64_t until = mono_ns() + TREE_STOP_NS;

	/* Bounded in time, not in rounds: while it walks, this loop
	 * serves nothing else (the mask watch, a guest, the timeout). */
	while (mono_ns() < until) {
		/* A process that forks and exits, its child doing the same,
		 * leaves a zombie under this process at every step: each
		 * one left made every walk longer (review X, X2). */
		reap_adopted(loop_child);
		if (!tree_signal_once(SIGSTOP, &seen, &n_seen))
			return true;
		usleep(1000);
	}
	return false;
}

/* ... and continued with the job. */
static void
tree_continue(void)
{
	_cleanup_free_ pid_t *seen = NULL;
	size_t n_seen = 0;

	(void)tree_signal_once(SIGCONT, &seen, &n_seen);
}

/*
 * Job control (DESIGN.md §15): a monitor follows a stop of its child only
 * when the terminal stopped the job, Ctrl-Z or a background job's read or
 * write, which this process receives from the kernel as every process of
 * the foreground job does.  A command that stops itself (kill -STOP $$,
 * kill -TSTP $$) stops alone: the monitors above it, the guardian with
 * its watch and timer among them, go on.  The two events come in either
 * order (signalfd hands SIGCHLD out before SIGTSTP); they are matched
 * when they come within STOP_MATCH_NS of each other.
 */
#define STOP_MATCH_NS 1000000000ull
static struct {
	int term;	   /* the terminal's stop signal, or 0 */
	uint64_t term_ns;  /* ... when it came */
	int child;	   /* the child's (or pid 1's report of its) stop */
	uint64_t child_ns; /* ... when it came */
	bool from_pipe;	   /* told by pid 1, not seen in waitpid */
} stop;
/* pid 1 stopped every other process of its namespace for a stop of the
 * terminal's: they are continued with the command. */
static bool ns_frozen;
/* A monitor above no pid 1 of llwrap's stopped every process below it
 * for a stop of the terminal's (tree_stop): they are continued with the
 * command. */
static bool tree_frozen;
/* ... and could not, so did not stop (monitor_stop_refused). */
static bool stop_refused;

bool
monitor_stop_refused(void)
{
	return stop_refused;
}

static bool
is_term_stop(int sig)
{
	return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Both halves of a stop of the terminal's came: stop too, or, as pid 1
 * of a namespace (which cannot stop itself), stop the namespace and tell
 * the monitor above. */
static void
follow_stop(bool reap_all)
{
	unsigned char b;
	uint64_t apart;

	if (stop.term == 0 || stop.child == 0)
		return;
	apart = stop.term_ns > stop.child_ns ? stop.term_ns - stop.child_ns
					     : stop.child_ns - stop.term_ns;
	if (apart > STOP_MATCH_NS) {
		/* The older one is stale. */
		if (stop.term_ns < stop.child_ns)
			stop.term = 0;
		else
			stop.child = 0;
		return;
	}
	b = (unsigned char)stop.child;
	stop.term = stop.child = 0;
	if (stop.from_pipe) {
		stop_self(b);
		return;
	}
	if (reap_all) {
		/* Processes of the sandbox outside the terminal's job (a
		 * process group of their own) stop with it, as in a
		 * machine that is suspended. */
		kill(-1, SIGSTOP);
		ns_frozen = true;
	}
	if (stop_report_fd >= 0) {
		if (write(stop_report_fd, &b, 1) < 0) {
			/* The monitor is gone; nothing to tell. */
		}
	} else if (!reap_all) {
		if (!tree_stop()) {
			/* Still making new processes after two seconds of
			 * rounds: this process does not stop, and with it
			 * the watch and the timeout go on; said after the
			 * run (monitor_stop_refused). */
			tree_continue();
			stop_refused = true;
			return;
		}
		tree_frozen = true;
		stop_self(b);
	}
}

/* The child stopped (or pid 1 said it did, from_pipe). */
static void
child_stopped(int sig, bool from_pipe, bool reap_all)
{
	stop.child = sig;
	stop.child_ns = mono_ns();
	stop.from_pipe = from_pipe;
	follow_stop(reap_all);
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

		if (pid <= 0) {
			if (!reap_all)
				reap_adopted(child);
			return done;
		}
		if (pid == child && WIFSTOPPED(st)) {
			child_stopped(WSTOPSIG(st), false, reap_all);
		} else if (pid == child) {
			*wstatus = st;
			done = true;
		}
	}
}

/* How long the child runs before its monitor releases its start-up pages
 * (release_startup_pages): a short command (a /bin/true, a git status)
 * ends first, and no monitor pays for the release and the faults back;
 * a long one (an agent) keeps resident only the loop soon after. */
#define RELEASE_AFTER_MS 500

/*
 * A process waiting keeps resident only the code its loop runs:
 * the pages of code that start-up touched (profiles, plans, namespaces:
 * most of llwrap's) leave its page tables, and the loop faults back in
 * those it runs (with the kernel's fault-around, 64 KiB or a folio at a
 * time).  Private executable mappings of a file only: nothing writes to
 * them, so a dropped page reads back the same.  /proc/self/maps, not
 * smaps: no walk of the page tables.
 */
static void
release_startup_pages(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	_cleanup_free_ char *line = NULL;
	unsigned long start, end, inode;
	size_t cap = 0;
	char perms[5];

	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0)
		if (sscanf(line, "%lx-%lx %4s %*s %*s %lu", &start, &end, perms,
			   &inode) == 4 &&
		    strcmp(perms, "r-xp") == 0 && inode != 0)
			madvise((void *)start, end - start, MADV_DONTNEED);
	fclose(f);
}

/* One signal the loop read: true once child has exited, with its
 * status. */
static bool
loop_signal(const struct signalfd_siginfo *si,
	    const struct monitor_guest *guest, pid_t child, bool reap_all,
	    int *wstatus)
{
	if (si->ssi_signo == SIGCHLD) {
		if (guest)
			guest->reap(guest->arg);
		return reap(child, reap_all, wstatus);
	}
	/* A signal the terminal sent to the foreground process group
	 * reached the child too; forward only what was sent to this
	 * process alone.  A stop of the terminal's is remembered: the
	 * child's stop that follows is followed. */
	if (si->ssi_code == SI_KERNEL) {
		if (is_term_stop((int)si->ssi_signo)) {
			stop.term = (int)si->ssi_signo;
			stop.term_ns = mono_ns();
			follow_stop(reap_all);
		}
		return false;
	}
	if (si->ssi_signo == SIGCONT) {
		stop.term = stop.child = 0;
		if (ns_frozen) {
			ns_frozen = false;
			kill(-1, SIGCONT);
		}
		if (tree_frozen) {
			tree_frozen = false;
			tree_continue();
		}
	}
	kill(child, (int)si->ssi_signo);
	return false;
}

int
monitor_run(const struct monitor_guest *guest, pid_t child, bool reap_all,
	    int *wstatus)
{
	sigset_t set = loop_signals();
	_cleanup_close_ int sfd = -1;
	_cleanup_free_ struct pollfd *pfd =
		xcalloc(3 + MONITOR_MAX_WATCH + (guest ? guest->max_fds : 0),
			sizeof(*pfd));

	uint64_t release_ns = mono_ns() + RELEASE_AFTER_MS * 1000000ull;
	bool released = false;

	loop_child = child;
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	/* The child may have exited before the signalfd existed. */
	if (reap(child, reap_all, wstatus))
		goto done;

	for (;;) {
		struct signalfd_siginfo si[32];
		ssize_t len;
		size_t n = 0, stop_at = 0, exit_at = 0, first_sv, n_sv = 0,
		       first_watch;
		int timeout = guest ? guest->timeout(guest->arg) : -1;

		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		/* Job control across a pid namespace (stop_watch_fd). */
		if (stop_watch_fd >= 0) {
			stop_at = n;
			pfd[n++] = (struct pollfd){ .fd = stop_watch_fd,
						    .events = POLLIN };
		}
		/* The child's report of the command's end. */
		if (exit_watch_fd >= 0) {
			exit_at = n;
			pfd[n++] = (struct pollfd){ .fd = exit_watch_fd,
						    .events = POLLIN };
		}
		first_watch = n;
		for (size_t i = 0; i < n_watches; i++)
			pfd[n++] =
				(struct pollfd){ .fd = watches[i].fd,
						 .events = watches[i].events };
		first_sv = n;
		if (guest)
			n_sv = guest->fds(guest->arg, pfd + first_sv);
		if (!released) {
			uint64_t now = mono_ns(), left = 0;

			if (now < release_ns)
				left = (release_ns - now) / 1000000 + 1;
			if (timeout < 0 || left < (uint64_t)timeout)
				timeout = (int)left;
		}
		if (poll(pfd, n + n_sv, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!released && mono_ns() >= release_ns) {
			release_startup_pages();
			released = true;
		}
		/* A callback may unwatch: each ready one is found by its
		 * descriptor. */
		for (size_t i = first_watch; i < first_sv; i++)
			for (size_t w = 0; pfd[i].revents != 0 && w < n_watches;
			     w++)
				if (watches[w].fd == pfd[i].fd) {
					watches[w].ready(watches[w].arg);
					break;
				}
		if (stop_at > 0 && (pfd[stop_at].revents & POLLIN)) {
			unsigned char b;

			/* pid 1 says so only for a stop of the terminal's,
			 * which this process got too. */
			if (read(stop_watch_fd, &b, 1) == 1)
				child_stopped(b, true, reap_all);
		} else if (stop_at > 0 &&
			   (pfd[stop_at].revents & (POLLHUP | POLLERR))) {
			/* pid 1 is gone: nothing more to report. */
			stop_watch_fd = -1;
		}
		if (exit_at > 0 && pfd[exit_at].revents != 0) {
			unsigned char b;
			ssize_t got = read(exit_watch_fd, &b, 1);

			/* No report (the child died without one): its
			 * exit is reaped as any other's. */
			monitor_exit_watch(-1);
			if (got == 1) {
				*wstatus = W_EXITCODE(b, 0);
				exit_unreaped = child;
				goto done;
			}
		}
		if (guest)
			guest->ready(guest->arg, pfd + first_sv, n_sv);
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* Every signal pending at once: one at a time, SIGCHLD
		 * (17) came first each time while the command's orphans
		 * kept ending, and a stop of the terminal's (20-22) waited
		 * behind it for as long (review X, X2). */
		if ((len = read(sfd, si, sizeof(si))) < (ssize_t)sizeof(si[0]))
			continue;
		for (size_t k = 0; k < (size_t)len / sizeof(si[0]); k++)
			if (loop_signal(&si[k], guest, child, reap_all,
					wstatus))
				goto done;
	}
done:
	terminal_unheld();
	if (guest)
		guest->finish(guest->arg);
	return 0;
}
