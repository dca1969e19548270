/*
 * The kernel's facts (probe.h): each asked once, and only when a
 * decision needs it.  The one user-namespace probe is ns_available()
 * (ns.c), which the run, bubblewrap's fallback and --check all use.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>

#include "channel.h"
#include "cleanup.h"
#include "compat/syscall.h"
#include "contain.h"
#include "fdutil.h"
#include "probe.h"
#include "resources.h"
#include "supervise.h"
#include "xalloc.h"

/*
 * Whether this process has a terminal a command could keep: one of its
 * standard descriptors, or a controlling terminal the command opens as
 * /dev/tty (an agent's child with pipes for its descriptors still has
 * the agent's terminal).  Taken as yes when /proc/self/stat cannot be
 * read: a monitor more, never a terminal left to the command.
 */
static bool
probe_terminal(void)
{
	struct proc_stat st;
	int dir, r;

	if (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) ||
	    isatty(STDERR_FILENO))
		return true;
	if ((dir = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return true;
	r = proc_stat_at(dir, &st);
	close(dir);
	return r < 0 || st.tty != 0;
}

void
probe_init(struct facts *f)
{
	struct sysinfo si;
	char link[64];
	ssize_t n;

	memset(f, 0, sizeof(*f));
	f->live = true;
	ruleset_probe(&f->kernel);
	f->root = geteuid() == 0;
	f->terminal = probe_terminal();
	if (sysinfo(&si) == 0)
		f->ram = (uint64_t)si.totalram * si.mem_unit;
	if ((n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1)) > 0) {
		link[n] = '\0';
		f->pidns_nested = contain_pidns_nested(link);
	}
	if ((n = readlink("/proc/self/ns/ipc", link, sizeof(link) - 1)) > 0) {
		link[n] = '\0';
		f->ipcns_nested = contain_ipcns_nested(link);
	}
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

void
probe_copy(struct facts *dst, const struct facts *src)
{
	*dst = *src;
	dst->userns_why = dup_or_null(src->userns_why);
	dst->supervisor_why = dup_or_null(src->supervisor_why);
	dst->supervisor_form = dup_or_null(src->supervisor_form);
	dst->bwrap_why = dup_or_null(src->bwrap_why);
	dst->cgroup_why = dup_or_null(src->cgroup_why);
	dst->newproc_why = dup_or_null(src->newproc_why);
	dst->bwrap_bin.path = dup_or_null(src->bwrap_bin.path);
}

void
probe_clear(struct facts *f)
{
	free(f->userns_why);
	free(f->supervisor_why);
	free(f->supervisor_form);
	free(f->bwrap_why);
	free(f->cgroup_why);
	free(f->newproc_why);
	bwrap_binary_clear(&f->bwrap_bin);
}

/* An unknown fact that is not to be asked: refused, and why. */
static bool
not_asked(enum probe_answer *a, char **why)
{
	*a = PROBE_NO;
	free(*why);
	*why = xstrdup("not probed");
	return false;
}

bool
probe_userns(struct facts *f, const char **why)
{
	if (f->userns == PROBE_UNKNOWN) {
		if (!f->live)
			not_asked(&f->userns, &f->userns_why);
		else
			f->userns = ns_available(&f->userns_why) ? PROBE_YES
								 : PROBE_NO;
	}
	if (why != NULL)
		*why = f->userns_why;
	return f->userns == PROBE_YES;
}

enum ns_precheck
probe_userns_precheck(struct facts *f)
{
	enum ns_precheck pre;

	if (f->userns == PROBE_NO)
		return NS_REFUSED;
	if (f->userns == PROBE_YES || !f->live)
		return NS_PROBE;
	free(f->userns_why);
	f->userns_why = NULL;
	pre = ns_precheck(&f->userns_why);
	if (pre == NS_REFUSED)
		f->userns = PROBE_NO;
	return pre;
}

/* A word the supervisor's probe reads from its child's memory. */
static volatile unsigned long probe_word = 0x6c6c7772;

/*
 * The child of the supervisor's probe: a seccomp filter that allows
 * everything, made with a listener as the run makes it; it sends the
 * listener's number (or -errno) and waits to be killed.
 */
static void __attribute__((noreturn)) supervisor_child(int out)
{
	struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 1, .filter = allow };
	int fd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    (fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0)
		fd = -errno;
	/* Its number, and the listener itself as the hand-over passes it
	 * (SCM_RIGHTS: supervise.c). */
	(void)channel_send(out, 1, &fd, sizeof(fd), &fd, fd >= 0 ? 1 : 0, 0);
	for (;;)
		pause();
}

/* err refused what, needed by the supervisor: why, as a clause;
 * ptrace: the call needs ptrace access to the child. */
static char *
supervisor_refused(const struct contain *c, const char *what,
		   const char *syscalls, bool ptrace, int err)
{
	char *cause;

	if (err == ENOSYS)
		return xasprintf("the kernel has no %s (ENOSYS)", syscalls);
	if (err == EPERM && ptrace)
		return contain_ptrace_cause(c, what, syscalls);
	if (err == EPERM &&
	    (cause = contain_filter_cause(c, what, syscalls)) != NULL)
		return cause;
	if (err == EBUSY)
		return xasprintf("%s: EBUSY (a seccomp filter this process "
				 "inherited already has a listener, such as "
				 "an outer llwrap's supervisor)",
				 syscalls);
	return xasprintf("%s: %s", syscalls, strerror(err));
}

/*
 * What the supervisor will do, done to a child: a seccomp listener made
 * (seccomp user notification) and passed with SCM_RIGHTS, the child's
 * memory read (process_vm_readv, or /proc/PID/mem where a filter refuses
 * that), and SECCOMP_IOCTL_NOTIF_ADDFD answered by the kernel (ENOENT: no
 * such notification).  pidfd_getfd refused is no refusal: the supervisor
 * then makes the sockets it performs calls on (supervise-int.h).  NULL
 * when all work, else why not, naming every call refused; *form says how
 * the supervisor will reach the caller.
 */
static char *
supervisor_try(struct facts *f, char **form)
{
	struct supervise_refused refused = { 0 };
	unsigned long word = 0;
	struct iovec local = { &word, sizeof(word) };
	struct iovec remote = { (void *)&probe_word, sizeof(word) };
	_cleanup_close_ int pidfd = -1, listener = -1, got = -1, mem = -1;
	struct channel_msg m;
	char path[64];
	int sv[2], fd = 0, st, vm = 0, getfd = 0, e;
	pid_t pid;

	if (channel_pair(sv, false) < 0)
		return xasprintf("the supervisor's probe: socketpair: %s",
				 strerror(errno));
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return xasprintf("the supervisor's probe: fork: %s",
				 strerror(errno));
	}
	if (pid == 0) {
		close(sv[0]);
		supervisor_child(sv[1]);
	}
	close(sv[1]);
	if (channel_recv(sv[0], &m, 1, 0) != 1 ||
	    channel_expect(&m, 1, sizeof(fd)) == NULL) {
		channel_msg_close(&m);
		fd = -EIO;
	} else {
		memcpy(&fd, m.payload, sizeof(fd));
		if (fd >= 0 && m.n_fds == 1)
			listener = m.fds[0];
		else if (fd >= 0)
			fd = -EIO;
	}
	close(sv[0]);
	if (fd < 0)
		supervise_refused_note(&refused, SUPERVISE_STEP_LISTENER, -fd);
	else if ((pidfd = sys_pidfd_open(pid, 0)) < 0)
		supervise_refused_note(&refused, SUPERVISE_STEP_PIDFD, errno);
	else {
		if ((got = sys_pidfd_getfd(pidfd, fd, 0)) < 0)
			getfd = errno;
		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) < 0)
			vm = errno;
		else if (word != probe_word)
			vm = EIO;
		if (vm != 0) {
			snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
			word = 0;
			if ((mem = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
			    pread(mem, &word, sizeof(word),
				  (off_t)(uintptr_t)&probe_word) < 0)
				supervise_refused_note(&refused,
						       SUPERVISE_STEP_MEMORY,
						       vm != EIO ? vm : errno);
			else if (word != probe_word)
				supervise_refused_note(
					&refused, SUPERVISE_STEP_WORD, EIO);
		}
		if ((e = supervise_addfd_answered(listener)) != 0)
			supervise_refused_note(&refused, SUPERVISE_STEP_ADDFD,
					       e);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (refused.err == 0) {
		if (getfd != 0 || vm != 0)
			*form = xasprintf(
				"%s%s%s%s",
				getfd != 0 ? "pidfd_getfd refused (" : "",
				getfd != 0 ? strerror(getfd) : "",
				getfd != 0 ? "): the supervisor makes the "
					     "sockets it connects, binds and "
					     "sends on, in the caller's place; "
					     "unix datagram sockets and "
					     "sendmsg on stream sockets "
					     "refused (filtered/no-getfd)"
					   : "",
				vm != 0 ? (getfd != 0 ? "; memory read "
							"through /proc/PID/mem"
						      : "memory read through "
							"/proc/PID/mem "
							"(process_vm_readv "
							"refused)")
					: "");
		return NULL;
	}
	return probe_supervisor_refused(f, &refused);
}

char *
probe_supervisor_refused(struct facts *f, const struct supervise_refused *r)
{
	return supervisor_refused(probe_container(f),
				  "what the network supervisor needs", r->calls,
				  r->ptrace, r->err);
}

const struct contain *
probe_container(struct facts *f)
{
	if (!f->container_read && f->live)
		contain_read(&f->container);
	f->container_read = true;
	return &f->container;
}

/* supervise_available, its cause in f: an inherited filter (an outer
 * llwrap's, a runtime's) can hide seccomp user notification from
 * libseccomp's probe of the kernel, and is then named, not the kernel. */
static bool
supervisor_available(struct facts *f)
{
	char *cause;

	if (supervise_available(&f->supervisor_why))
		return true;
	cause = contain_filter_cause(probe_container(f),
				     "the network supervisor",
				     "seccomp user notification");
	if (cause != NULL && seccomp_api_get() < 5) {
		free(f->supervisor_why);
		f->supervisor_why = cause;
	} else
		free(cause);
	return false;
}

bool
probe_supervisor(struct facts *f, const char **why)
{
	if (f->supervisor == PROBE_UNKNOWN) {
		if (!f->live)
			not_asked(&f->supervisor, &f->supervisor_why);
		else if (!supervisor_available(f))
			f->supervisor = PROBE_NO;
		else if ((f->supervisor_why = supervisor_try(
				  f, &f->supervisor_form)) != NULL)
			f->supervisor = PROBE_NO;
		else
			f->supervisor = PROBE_YES;
	}
	if (why != NULL)
		*why = f->supervisor_why;
	return f->supervisor == PROBE_YES;
}

bool
probe_supervisor_precheck(struct facts *f)
{
	if (f->supervisor != PROBE_UNKNOWN || !f->live)
		return false;
	if (!supervisor_available(f)) {
		f->supervisor = PROBE_NO;
		return false;
	}
	return true;
}

bool
probe_bwrap(struct facts *f, const char **why)
{
	const char *no;

	if (f->bwrap == PROBE_UNKNOWN && !f->live) {
		not_asked(&f->bwrap, &f->bwrap_why);
	} else if (f->bwrap == PROBE_UNKNOWN) {
		if (!f->bwrap_looked)
			bwrap_find(getenv("PATH"), &f->bwrap_bin);
		f->bwrap_looked = true;
		f->bwrap = PROBE_NO;
		if (f->bwrap_bin.path == NULL)
			f->bwrap_why = xstrdup(
				"bwrap was not found (looked at "
				"/usr/bin/bwrap, /run/wrappers/bin/bwrap and "
				"on PATH); install bubblewrap");
		else if (f->bwrap_bin.setuid || probe_userns(f, &no))
			f->bwrap = PROBE_YES;
		else
			f->bwrap_why = xasprintf("%s is not setuid and %s",
						 f->bwrap_bin.path, no);
	}
	if (why != NULL)
		*why = f->bwrap_why;
	return f->bwrap == PROBE_YES;
}

bool
probe_cgroup(struct facts *f, const struct limits_plan *l, const char **why)
{
	if (!limits_plan_cgroup(l))
		return true;
	if (f->cgroup == PROBE_UNKNOWN) {
		if (!f->live)
			not_asked(&f->cgroup, &f->cgroup_why);
		else
			f->cgroup =
				resources_cgroup_probe(l, &f->cgroup_why) == 0
					? PROBE_YES
					: PROBE_NO;
	}
	if (why != NULL)
		*why = f->cgroup_why;
	return f->cgroup == PROBE_YES;
}

/* The new /proc's child shares this process's memory (CLONE_VM) and
 * runs while it waits (CLONE_VFORK): a static stack and result. */
static char newproc_stack[16384] __attribute__((aligned(16)));
static int newproc_err;

static int
newproc_child(void *arg)
{
	(void)arg;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		newproc_err = errno;
	return 0;
}

/* Why a new /proc cannot be mounted here, or NULL when it can. */
static char *
newproc_try(struct facts *f)
{
	_cleanup_free_ char *fix = NULL;
	pid_t pid;
	int st;

	newproc_err = 0;
	pid = clone(newproc_child, newproc_stack + sizeof(newproc_stack),
		    CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_VM |
			    CLONE_VFORK | SIGCHLD,
		    NULL);
	if (pid < 0)
		return xasprintf("a user and pid namespace: %s",
				 strerror(errno));
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (newproc_err == 0)
		return NULL;
	if (newproc_err != EPERM)
		return xasprintf("mounting it: %s", strerror(newproc_err));
	fix = contain_proc_fix(probe_container(f), f->pidns_nested);
	return xasprintf("refused (EPERM: parts of %s /proc are hidden by "
			 "other mounts); %s%s",
			 contain_runtime_name(probe_container(f)) != NULL
				 ? "the container's"
				 : "this system's",
			 f->pidns_nested
				 ? "the pid namespace llwrap runs in hides the "
				   "host's processes instead (C); for one of "
				   "the sandbox's own, "
				 : "",
			 fix);
}

bool
probe_newproc(struct facts *f, const char **why)
{
	const char *no;

	if (f->newproc == PROBE_UNKNOWN) {
		if (!f->live) {
			not_asked(&f->newproc, &f->newproc_why);
		} else if (!probe_userns(f, &no)) {
			f->newproc = PROBE_NO;
			f->newproc_why = xstrdup(no);
		} else {
			f->newproc_why = newproc_try(f);
			f->newproc =
				f->newproc_why == NULL ? PROBE_YES : PROBE_NO;
		}
	}
	if (why != NULL)
		*why = f->newproc_why;
	return f->newproc == PROBE_YES;
}
