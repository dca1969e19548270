/*
 * Preparing and applying the sandbox.  sandbox_prepare() gathers this
 * system's facts (probe.h) and has the planner (planner.h) decide
 * everything that can be decided without touching the process, so that
 * --explain reports exactly what sandbox_exec() will do and a policy that
 * cannot be enforced is refused before anything is applied.
 * sandbox_exec(), the runner, switches on the plan's shape.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "caps.h"
#include "cleanup.h"
#include "compat/landlock.h"
#include "fdutil.h"
#include "gitguard.h"
#include "known.h"
#include "maskwatch.h"
#include "path.h"
#include "ns.h"
#include "probe.h"
#include "proxy.h"
#include "dnsstub.h"
#include "proxyserve.h"
#include "runtmp.h"
#include "sandbox.h"
#include "strv.h"
#include "monitor.h"
#include "supervise.h"
#include "testhook.h"
#include "watchlater.h"
#include "xalloc.h"

/* The planner on this system's facts and file system. */
static int
prepare(const struct policy *p, enum sandbox_backend backend, bool run,
	struct sandbox **out, char **cause)
{
	struct facts f;
	int r;

	probe_init(&f);
	r = planner_plan(p, backend, &f, &pathtree_fs_real, run, out, cause);
	probe_clear(&f);
	ns_probe_reap();
	return r;
}

int
sandbox_prepare(const struct policy *p, enum sandbox_backend backend,
		struct sandbox **out, char **cause)
{
	return prepare(p, backend, false, out, cause);
}

int
sandbox_prepare_run(const struct policy *p, enum sandbox_backend backend,
		    struct sandbox **out, char **cause)
{
	return prepare(p, backend, true, out, cause);
}

bool
sandbox_hosts_stub(const struct sandbox *sb)
{
	return planner_hosts(sb) == PLANNER_HOSTS_STUB;
}

/*
 * mkdir of a placeholder a protection mounts over; a directory the user
 * cannot write to (EACCES, EROFS, EPERM) the command, as the same user
 * with less, cannot write to either: nothing to protect, not an error.
 */
static int
make_placeholder(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST || errno == EACCES ||
	    errno == EROFS || errno == EPERM)
		return 0;
	return -errno;
}

/* resources' notes (a cgroup left behind), on stderr, then freed. */
static void
print_notes(char **v)
{
	for (char **l = v; l != NULL && *l != NULL; l++)
		fprintf(stderr, "llwrap: %s\n", *l);
	strv_free(v);
}

/* A stop of the terminal's the monitor did not follow, said once the
 * command has ended. */
static void
print_stop_refused(void)
{
	if (monitor_stop_refused())
		fprintf(stderr,
			"llwrap: the terminal stopped the job while the "
			"command made new processes faster than they could "
			"be stopped: llwrap did not stop, and watched on\n");
}

/* The ancestors of path (itself included) that do not exist, parents
 * first, appended to *made. */
static void
missing_dirs(const char *path, char ***made)
{
	_cleanup_free_ char *a = xstrdup(path);
	_cleanup_strv_ char **up = NULL;
	struct stat st;
	char *slash;

	while (lstat(a, &st) < 0 && errno == ENOENT) {
		strv_push(&up, a);
		if ((slash = strrchr(a, '/')) == NULL || slash == a)
			break;
		*slash = '\0';
	}
	for (size_t n = strv_length(up); n > 0; n--)
		strv_push(made, up[n - 1]);
}

/*
 * protect-later-run makes an existing .opencode/ read-only, and opencode
 * stops (EROFS is not the EACCES it forgives) unless the .gitignore it
 * writes into every .opencode directory it reads is there; a cloned
 * project's has none, since that file ignores itself.  So it is made
 * first, as opencode writes it on its first run there: the file the
 * user's own opencode makes, nothing else.  Beneath the project, no
 * symbolic link followed, never over anything.
 */
static void
opencode_gitignore(const char *project)
{
	static const char text[] = "node_modules\npackage.json\n"
				   "package-lock.json\nbun.lock\n.gitignore";
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	};
	_cleanup_close_ int pfd =
		open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int dfd = -1, fd = -1;

	if (pfd < 0 || (dfd = (int)syscall(SYS_openat2, pfd, ".opencode", &how,
					   sizeof(how))) < 0)
		return;
	fd = openat(dfd, ".gitignore",
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0 && write(fd, text, sizeof(text) - 1) < 0)
		(void)unlinkat(dfd, ".gitignore", 0);
}

static int
make_dirs(const struct planner_dirs *d, char ***made, char **cause)
{
	/* protect-git: a missing hooks/ is made (empty, as git's own
	 * template makes it) so that it can be mounted read-only. */
	if (d->hooks) {
		_cleanup_free_ char *hooks =
			gitguard_missing_hooks(d->project, &gitguard_fs_real);

		int r = hooks != NULL ? make_placeholder(hooks) : 0;

		if (r < 0) {
			*cause =
				xasprintf("%s: cannot create %s: %s",
					  d->hooks_origin, hooks, strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < d->mkdirs->n; i++) {
		const struct llw_item *it = &d->mkdirs->v[i];
		struct stat st;
		int r;

		if (stat(it->value, &st) == 0 && S_ISDIR(st.st_mode))
			continue;
		if (made != NULL)
			missing_dirs(it->value, made);
		if ((r = dir_make_path(it->value, 0700)) < 0) {
			*cause = xasprintf("%s: cannot create %s: %s",
					   it->origin, it->value, strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < d->touches->n; i++) {
		const struct llw_item *it = &d->touches->v[i];
		/* ?PATH: only where its directory exists. */
		bool optional = it->value[0] == '?';
		const char *path = it->value + optional;
		int fd = open(path,
			      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
				      O_NOFOLLOW,
			      0600);

		if (fd < 0 && errno != EEXIST &&
		    !(optional && errno == ENOENT)) {
			int e = errno;

			*cause = xasprintf("%s: cannot create %s: %s",
					   it->origin, path, strerror(e));
			return -e;
		}
		if (fd >= 0)
			close(fd);
	}
	for (char **l = d->later_run; l != NULL && *l != NULL; l++)
		opencode_gitignore(*l);
	return 0;
}

int
sandbox_make_dirs(const struct policy *p, char ***made, char **cause)
{
	struct planner_dirs d;
	int r;

	planner_dirs(p, &d);
	r = make_dirs(&d, made, cause);
	strv_free(d.later_run);
	return r;
}

unsigned
sandbox_l3_parts(const struct sandbox *sb)
{
	if (!sb->use_ns)
		return 0;
	return KNOWN_L3 | (sb->ns.pid ? KNOWN_L3_PID : 0) |
	       (sb->ns.private_tmp ? KNOWN_L3_TMP : 0) |
	       (sb->protect_git ? KNOWN_L3_GIT : 0) |
	       (sb->protect_later_run ? KNOWN_L3_LATER : 0) |
	       (sb->ns.seal ? KNOWN_L3_SEAL : 0);
}

int
sandbox_after(const struct sandbox *sb, int status)
{
	_cleanup_strv_ char **lines = watchlater_report(sb->watch);
	_cleanup_strv_ char **failed = watchlater_failures(sb->watch);
	_cleanup_strv_ char **masks = NULL;

	for (char **l = lines; l != NULL && *l != NULL; l++)
		fprintf(stderr, "%s\n", *l);
	/* A mask the host removed stopped the sandbox (maskwatch.h). */
	if ((masks = maskwatch_finish(sb->maskwatch)) != NULL) {
		for (char **l = masks; *l != NULL; l++)
			fprintf(stderr, "%s\n", *l);
		status = 125;
	}
	if (failed == NULL)
		return status;
	for (char **f = failed; *f != NULL; f++)
		fprintf(stderr,
			"llwrap: error: the check of files run later could "
			"not be completed: %s\n",
			*f);
	if (watchlater_stopped(sb->watch)) {
		fprintf(stderr,
			"llwrap: error: so llwrap stopped the sandbox while "
			"the command ran, as soon as that happened: what it "
			"no longer watched, a git of yours running meanwhile "
			"could have met (a link the command made); what the "
			"command left was checked after the stop\n");
		fprintf(stderr,
			"llwrap: error: review %s before git, direnv or an "
			"editor runs anything there (the command was "
			"stopped)\n",
			sb->project);
		return 125;
	}
	fprintf(stderr,
		"llwrap: error: review %s before git, direnv or an editor "
		"runs anything there (the command exited with status %d)\n",
		sb->project, status);
	return 125;
}

void
sandbox_free(struct sandbox *sb)
{
	planner_free(sb);
}

/*
 * Drop every capability the process holds: effective, permitted,
 * inheritable and ambient, and the bounding set when we may
 * (CAP_SETPCAP).  For an ordinary user this changes nothing; for root it
 * means the command cannot override file permissions or reconfigure the
 * system, whatever Landlock allows.
 */
static int
drop_capabilities(char **cause)
{
	bool setpcap;
	int r;

	/* An ordinary user holds nothing: no permitted or inheritable
	 * capability means no effective or ambient one either, and
	 * no_new_privs keeps the bounding set from ever mattering.  One
	 * capget(2) says so.  In a user namespace of its own (L3) the
	 * process holds every capability in it, and drops them, with the
	 * bounding set (CAP_SETPCAP). */
	if ((r = caps_held(&setpcap)) < 0) {
		*cause = xasprintf("cannot read the process capabilities: %s",
				   strerror(-r));
		return -EIO;
	}
	if (r == 0)
		return 0;
	if ((r = caps_drop(setpcap)) < 0) {
		*cause =
			xasprintf("cannot drop capabilities: %s", strerror(-r));
		return r;
	}
	return 0;
}

/* The proxy's variables (proxy_environ) replace any of the same name. */
static void
environ_override(char ***env, uint16_t port)
{
	_cleanup_strv_ char **add = proxy_environ(port);
	char **kept = NULL;

	for (char **e = *env; e != NULL && *e != NULL; e++) {
		size_t n = strcspn(*e, "=");
		bool replaced = false;

		for (char **a = add; *a != NULL && !replaced; a++)
			replaced = strncmp(*a, *e, n) == 0 && (*a)[n] == '=';
		if (!replaced)
			strv_push(&kept, *e);
	}
	for (char **a = add; *a != NULL; a++)
		strv_push(&kept, *a);
	strv_free(*env);
	*env = kept;
}

/* name=value replaces name's entry in *env; add: or is added. */
static void
environ_put(char ***env, const char *name, const char *value, bool add)
{
	size_t n = strlen(name);

	for (char **e = *env; e != NULL && *e != NULL; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') {
			free(*e);
			*e = xasprintf("%s=%s", name, value);
			return;
		}
	if (add)
		strv_push_take(env, xasprintf("%s=%s", name, value));
}

/*
 * private-tmp without L3 (DESIGN.md §14, M): the run's own directory in
 * $TMPDIR or /tmp, granted as the rules grant /tmp, and TMPDIR (TMP and
 * TEMP where the environment passes them) pointing at it.  This process
 * removes it once the command has ended (run_tmp_remove).
 */
static int
run_tmp_make(struct sandbox *sb, char *const *envp, char ***env, char **cause)
{
	const char *base = strv_env_get(envp, "TMPDIR");
	const char *path;
	int r;

	if (!sb->run_tmp || sb->run_tmp_access == LLW_ACCESS_DENY)
		return 0;
	if (base == NULL || base[0] != '/')
		base = "/tmp";
	if ((r = runtmp_make(base, &sb->run_tmp_dir, cause)) < 0)
		return r;
	sb->run_tmp_pid = getpid();
	path = runtmp_path(sb->run_tmp_dir);
	ruleset_plan_grant(sb->landlock, path,
			   pathtree_access_bits(sb->run_tmp_access),
			   "private-tmp: the run's own directory");
	environ_put(env, "TMPDIR", path, true);
	environ_put(env, "TMP", path, false);
	environ_put(env, "TEMP", path, false);
	return 0;
}

/* The process that made the run's directory removes it, naming what it
 * could not; any other (a child) only lets go of it. */
static void
run_tmp_remove(struct sandbox *sb)
{
	_cleanup_strv_ char **left = NULL;
	_cleanup_free_ char *path = NULL;

	if (sb->run_tmp_dir == NULL)
		return;
	if (getpid() != sb->run_tmp_pid) {
		runtmp_free(steal_pointer(&sb->run_tmp_dir));
		return;
	}
	path = xstrdup(runtmp_path(sb->run_tmp_dir));
	left = runtmp_remove(steal_pointer(&sb->run_tmp_dir));
	for (char **l = left; l != NULL && *l != NULL; l++)
		fprintf(stderr,
			"llwrap: error: the run's temporary directory was "
			"not removed whole: %s\n",
			*l);
	if (left != NULL)
		fprintf(stderr,
			"llwrap: error: remove %s yourself (nothing in it "
			"was followed)\n",
			path);
}

/*
 * [limits] (DESIGN.md §11): each set limit becomes the soft and the hard
 * resource limit, so the command cannot raise it back; a limit is never
 * raised above what the process has.  nproc false leaves RLIMIT_NPROC
 * alone (see prepare_bwrap()).
 */
static int
apply_limits(const struct limits_plan *l, bool nproc, char **cause)
{
	const struct {
		int resource;
		const char *key;
		uint64_t want;
	} limits[] = {
		{ RLIMIT_AS, "memory", l->memory },
		{ RLIMIT_FSIZE, "file-size", l->file_size },
		{ RLIMIT_NPROC, "processes", l->processes },
		{ RLIMIT_NOFILE, "files", l->files },
		{ RLIMIT_CPU, "cpu", l->cpu },
	};

	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		uint64_t want = limits[i].want;
		struct rlimit rl;

		if (want == 0 || (!nproc && limits[i].resource == RLIMIT_NPROC))
			continue;
		if (getrlimit(limits[i].resource, &rl) < 0)
			continue;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
			want = rl.rlim_max;
		/* At the hard CPU limit the kernel sends SIGKILL, checked
		 * before the soft one's SIGXCPU: one second more, so that the
		 * command dies of SIGXCPU and the monitor can say why. */
		if (limits[i].resource == RLIMIT_CPU &&
		    (rl.rlim_max == RLIM_INFINITY || want < rl.rlim_max))
			rl.rlim_max = (rlim_t)want + 1;
		else
			rl.rlim_max = (rlim_t)want;
		rl.rlim_cur = (rlim_t)want;
		if (setrlimit(limits[i].resource, &rl) < 0) {
			int e = errno;

			*cause = xasprintf("cannot set [limits] %s = %llu: %s",
					   limits[i].key,
					   (unsigned long long)want,
					   strerror(e));
			return -e;
		}
	}
	return 0;
}

/* The open files' soft limit the caller gave llwrap, for the command
 * (sandbox_exec raised it for llwrap's own descriptors). */
static int
limit_restore(char **cause)
{
	int r = fd_limit_restore();

	if (r < 0)
		*cause = xasprintf("cannot give the command back its limit "
				   "of open files: %s",
				   strerror(-r));
	return r;
}

/*
 * The process that runs the command, after any fork: restrict itself in
 * DESIGN.md §2's order and exec.  Returns only on failure.
 */
static int
sandbox_enter(struct sandbox *sb, struct supervisor *sv,
	      const struct sock_fprog *prog, char **env, char *const *argv,
	      const int *keep, size_t n_keep, int *status, char **cause)
{
	_cleanup_close_ int rfd = -1;
	char **saved;
	int r, e;

	if (chdir(sb->workdir) < 0) {
		e = errno;
		*cause = xasprintf("cannot enter the %s directory %s: %s",
				   sb->workdir != sb->project ? "working"
							      : "project",
				   sb->workdir, strerror(e));
		return -e;
	}
	/* Acquire before dropping: the rule paths are opened with whatever
	 * access the caller has (root's CAP_DAC_READ_SEARCH included), in
	 * the final mount view. */
	if (sb->facts.kernel.abi > 0 &&
	    (r = ruleset_create(sb->landlock, sb->held, &rfd, cause)) < 0)
		return r;
	ruleset_hold_free(sb->landlock, steal_pointer(&sb->held));
	if ((r = drop_capabilities(cause)) < 0)
		return r;
	if ((r = limit_restore(cause)) < 0 ||
	    (r = apply_limits(&sb->limits_plan, true, cause)) < 0)
		return r;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		e = errno;
		*cause = xasprintf("cannot set no_new_privs: %s", strerror(e));
		return -e;
	}
	if (rfd >= 0 &&
	    (r = ruleset_restrict(rfd, sb->landlock->abi, cause)) < 0)
		return r;
	/* The supervisor's notification filter goes before the main one,
	 * which refuses new listeners; the supervisor takes the ruleset
	 * too, for its watch judge (watchjudge.h).  Its go-ahead is waited
	 * for after the main filter, which loads while it checks this
	 * process. */
	if (sv != NULL && (r = supervise_child_attach(sv, rfd, cause)) < 0)
		return r;
	if (rfd >= 0)
		close(steal_fd(&rfd));
	if ((r = filter_load_program(prog, cause)) < 0)
		return r;
	if (sv != NULL && (r = supervise_child_go(sv, cause)) < 0)
		return r;
	if ((r = fd_close_inherited(keep, n_keep)) < 0) {
		*cause = xasprintf("cannot close inherited file descriptors: "
				   "%s (is every --keep-fd open?)",
				   strerror(-r));
		return r;
	}

	/* execvp() searches the command's own PATH and runs scripts without
	 * a #! line with /bin/sh, like a shell would. */
	saved = environ;
	environ = env;
	monitor_command_signals();
	execvp(argv[0], argv);
	e = errno;
	environ = saved;
	*status = (e == ENOENT || e == ENOTDIR) ? 127 : 126;
	if (e == EACCES)
		*cause = xasprintf("%s: cannot execute it: %s (does the "
				   "policy grant rx on its directory?)",
				   argv[0], strerror(e));
	else
		*cause = xasprintf("%s: %s", argv[0],
				   e == ENOENT ? "command not found"
					       : strerror(e));
	return -e;
}

/*
 * Fork; the parent waits for the child (forwarding signals, mediating
 * when sv is set) and reports through *status, the child goes on.
 * Returns 1 in the parent once the child has ended, 0 in the child, or
 * -errno.
 */
/*
 * Files run later that do not exist yet (protect-git, protect-later-run):
 * a monitor watches for them and moves each aside when the command
 * makes it (watchlater.h), and watches the index for new gitlinks.
 */
static int
later_watch(struct sandbox *sb, char **cause)
{
	if (sb->git == NULL && sb->later == NULL)
		return 0;
	return watchlater_start(sb->project, sb->git, sb->later,
				sb->monitor_holds, &sb->watch, cause);
}

/* What else the monitor does than supervise (each may be NULL). */
struct monitor_work {
	struct resources_run *lr;     /* the timeout, the cgroup */
	struct resources_outcome *lo; /* ... what happened */
	struct watchlater *wl;	      /* files run later */
	/* The masks, watched by this monitor: it made the view, or (bwrap)
	 * it finds bubblewrap's sandbox once bwrap is forked. */
	struct maskwatch *mask;
	bool mask_bwrap;
	/* The timeout and the cgroup's end are a guardian's above: this
	 * monitor only puts its child in the cgroup. */
	bool lr_above;
	bool pidns; /* the command is in a pid namespace of its own */
	/* The watch's final check waits until every process of the
	 * command's has ended: without a pid namespace this process adopts
	 * them (a subreaper) and ends them first. */
	bool end_orphans;
};

/* Become the subreaper of what the command leaves running, when the
 * watch's final check must outlive it (mw->end_orphans). */
static int
watch_orphans(const struct monitor_work *mw, char **cause)
{
	int r;

	if (!mw->end_orphans)
		return 0;
	if ((r = monitor_adopt_orphans()) < 0)
		*cause = xasprintf("cannot become the subreaper of the "
				   "command's processes: %s",
				   strerror(-r));
	return r;
}

/*
 * Fork a child whose life is tied to this process's (monitor.h): in the
 * child, 0 once tied, with the monitor's signals unblocked; in the
 * parent, the child's pid, with them blocked for its loop.  -errno and
 * *cause on failure.
 */
static pid_t
fork_tied(char **cause)
{
	int r, e, tie;
	pid_t pid;

	if ((tie = monitor_tie_prepare()) < 0) {
		*cause = xasprintf("cannot open a pidfd of llwrap itself: %s",
				   strerror(-tie));
		return tie;
	}
	monitor_block_signals();
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(tie);
		*cause = xasprintf("cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		if ((r = monitor_tie_child(tie, cause)) < 0)
			return r;
		monitor_unblock_signals();
		return 0;
	}
	monitor_tie_parent(tie, pid);
	return pid;
}

static int
fork_and_wait(struct supervisor *sv, const struct monitor_work *mw,
	      bool reap_all, int *status, char **cause)
{
	struct resources_run *lr = mw->lr;
	struct resources_outcome *lo = mw->lo;
	struct monitor_guest guest;
	int wstatus, r;
	pid_t pid;

	/* The command (or pid 1 above it) never outlives this process: it
	 * is the supervisor, or the monitor that reports the command's
	 * status. */
	if ((r = watch_orphans(mw, cause)) < 0)
		return r;
	/* Its loop stops every process of the command's when the host
	 * removes a mask: they are all its own (a subreaper's). */
	if (mw->mask != NULL && !mw->end_orphans &&
	    (r = monitor_adopt_orphans()) < 0) {
		*cause = xasprintf("cannot become the subreaper of the "
				   "command's processes: %s",
				   strerror(-r));
		return r;
	}
	if (!mw->mask_bwrap && (r = maskwatch_arm(mw->mask, false, cause)) < 0)
		return r;
	if ((pid = fork_tied(cause)) < 0)
		return pid;
	if (pid == 0) {
		maskwatch_disarm(mw->mask);
		if ((r = resources_child(lr, cause)) < 0)
			return r;
		watchlater_child(mw->wl);
		if (sv != NULL)
			supervise_child_forked(sv);
		return 0;
	}
	maskwatch_child(mw->mask, pid);
	if (mw->mask_bwrap &&
	    (r = maskwatch_arm_bwrap(mw->mask, pid, cause)) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	if (mw->lr_above)
		lr = NULL;
	if ((r = resources_parent(lr, pid)) < 0) {
		*cause = xasprintf("cannot arm the timeout: %s", strerror(-r));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	watchlater_parent(mw->wl, pid);
	if (sv != NULL)
		supervise_set_command(sv, pid, mw->pidns);
	if (sv != NULL && (r = supervise_parent_attach(sv, cause)) < 0) {
		/* The child stops: told to, or it ended first and said why
		 * itself (-ECHILD).  Its status is the one to report then. */
		if (monitor_run(NULL, pid, reap_all, &wstatus) < 0)
			kill(pid, SIGKILL);
		maskwatch_disarm(mw->mask);
		print_notes(resources_finish(lr, lo));
		if (mw->end_orphans)
			monitor_end_orphans();
		watchlater_finish(mw->wl);
		if (r != -ECHILD)
			return r;
		*status = monitor_exit_status(wstatus);
		return 1;
	}
	if (sv != NULL)
		supervise_guest(sv, &guest);
	r = monitor_run(sv != NULL ? &guest : NULL, pid, reap_all, &wstatus);
	if (r < 0)
		kill(pid, SIGKILL);
	/* The teardown's changes are not the host's. */
	maskwatch_disarm(mw->mask);
	print_notes(resources_finish(lr, lo));
	print_stop_refused();
	if (mw->end_orphans)
		monitor_end_orphans();
	watchlater_finish(mw->wl);
	if (r < 0) {
		*cause = xasprintf("waiting for the command failed: %s",
				   strerror(-r));
		return r;
	}
	*status =
		lo->timed_out ? LLW_EXIT_TIMEOUT : monitor_exit_status(wstatus);
	return 1;
}

/* What a guardian sets up once it has forked the supervisor, beside the
 * start-up's path, before its word on ready[1] (guard_and_wait). */
struct beside {
	struct sandbox *sb;
	bool watch;	      /* the watch on files run later */
	struct dnsstub *stub; /* llwrap's resolver to fork, or NULL */
	const struct netpolicy_addr *dns; /* ... with these resolvers */
	size_t n_dns;
	int ready[2];
};

/* The guardian's part beside the path (struct beside): the resolver
 * forked, the watch set up and its instance handed to the holder, then
 * 'y' to the supervisor.  0, or -errno and *cause (no word: the
 * supervisor is to be stopped). */
static int
set_up_beside(struct monitor_work *mw, struct beside *b, char **cause)
{
	unsigned delay = testhook_watch_start_delay_ms();
	struct sandbox *sb = b->sb;
	int r = 0;

	close(b->ready[0]);
	if (b->stub != NULL)
		r = dnsstub_fork(b->stub, sb->net.hosts, sb->net.n_hosts,
				 b->dns, b->n_dns, false, cause);
	if (r == 0 && b->watch) {
		if (delay > 0)
			usleep(delay * 1000);
		if ((r = later_watch(sb, cause)) == 0) {
			mw->wl = sb->watch;
			fd_hold_send(sb->hold_more, watchlater_inotify(mw->wl));
		}
	}
	if (sb->hold_more >= 0)
		close(sb->hold_more);
	sb->hold_more = -1;
	if (r == 0)
		(void)!write(b->ready[1], "y", 1);
	close(b->ready[1]);
	return r;
}

/*
 * The guardian (DESIGN.md §15): where the network supervisor runs, the
 * command holds descriptors the supervisor acts on and can stall it (a
 * full pipe), or kill it (a signal the kernel sends it).  What must
 * happen however that ends (the timeout, the watch on files run later and
 * the final check) runs in this process, which holds nothing of the
 * command's, above the one that supervises: forked here, that child goes
 * on (returns 0) to start the supervisor and the command, and exits with
 * the command's status.  This process waits for it, forwarding signals
 * and job control as any monitor, and returns 1 with the status to exit
 * with once it has ended, or -errno.  A supervisor that ended by a signal
 * the guardian did not send fails the run loudly (125).  With b, what b
 * names is set up once the child is forked, beside the start-up's path
 * (set_up_beside): the child's go-ahead to the command waits for it.
 */
static int
guard_and_wait(struct monitor_work *mw, struct beside *b, int *status,
	       char **cause)
{
	struct resources_run *lr = mw->lr;
	int wstatus, r, ended[2];
	pid_t pid;

	/* The supervisor dies with the guardian: nothing is left to run
	 * unwatched. */
	if ((r = watch_orphans(mw, cause)) < 0)
		return r;
	/* The supervisor reports the command's status through ended
	 * before its exit, which the guardian does not wait for
	 * (monitor_exit_watch). */
	if (pipe2(ended, O_CLOEXEC) < 0) {
		r = -errno;
		*cause = xasprintf("cannot create a pipe: %s", strerror(-r));
		return r;
	}
	if ((pid = fork_tied(cause)) < 0) {
		close(ended[0]);
		close(ended[1]);
		return pid;
	}
	if (pid == 0) {
		close(ended[0]);
		monitor_exit_report(ended[1]);
		watchlater_child(mw->wl);
		if (b != NULL)
			close(b->ready[1]);
		return 0;
	}
	close(ended[1]);
	monitor_exit_watch(ended[0]);
	if ((r = resources_parent(lr, pid)) < 0) {
		*cause = xasprintf("cannot arm the timeout: %s", strerror(-r));
		monitor_exit_watch(-1);
		if (b != NULL) {
			close(b->ready[0]);
			close(b->ready[1]);
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	/* The resolver and the watch, while the supervisor and pid 1 make
	 * the sandbox; the command waits for its go-ahead, which waits for
	 * this word. */
	if (b != NULL && (r = set_up_beside(mw, b, cause)) < 0) {
		monitor_exit_watch(-1);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	watchlater_parent(mw->wl, pid);
	r = monitor_run(NULL, pid, false, &wstatus);
	monitor_exit_watch(-1);
	if (r < 0)
		kill(pid, SIGKILL);
	print_notes(resources_finish(lr, mw->lo));
	print_stop_refused();
	/* The final check, once nothing of the command's is left, before
	 * anything is written where the command's output goes (a pipe that
	 * nobody reads must not keep it from running). */
	if (mw->end_orphans)
		monitor_end_orphans();
	watchlater_finish(mw->wl);
	if (r < 0) {
		*cause = xasprintf("waiting for the command failed: %s",
				   strerror(-r));
		return r;
	}
	if (mw->lo->timed_out) {
		*status = LLW_EXIT_TIMEOUT;
	} else if (watchlater_stopped(mw->wl)) {
		*status = 125; /* said by sandbox_after */
	} else if (WIFSIGNALED(wstatus)) {
		fprintf(stderr,
			"llwrap: error: llwrap's supervisor (pid %d) was "
			"ended by signal %d (%s) while the command ran; the "
			"command was ended with it\n",
			(int)pid, WTERMSIG(wstatus),
			strsignal(WTERMSIG(wstatus)));
		*status = 125;
	} else {
		*status = monitor_exit_status(wstatus);
	}
	return 1;
}

/*
 * What pid 1 hands the command it spawns, and what comes back when the
 * command fails before its program runs.
 */
struct spawn {
	struct sandbox *sb;
	struct supervisor *sv;
	const struct sock_fprog *prog;
	char **env;
	char *const *argv;
	const int *keep;
	size_t n_keep;
	int r, status;
	char *cause;
};

/* Used by one child at a time, while its parent is suspended. */
static char spawn_stack[256 * 1024] __attribute__((aligned(16)));

static int
spawn_child(void *arg)
{
	struct spawn *s = arg;

	monitor_unblock_signals();
	s->r = sandbox_enter(s->sb, s->sv, s->prog, s->env, s->argv, s->keep,
			     s->n_keep, &s->status, &s->cause);
	_exit(s->status);
}

/*
 * pid 1 of a pid namespace starts the command with clone(CLONE_VM |
 * CLONE_VFORK), as posix_spawn(3) does: the command shares this process's
 * memory until it execs, and this process stays suspended until then, so
 * no page table is copied and no page is copied on write (a fork here was
 * a tenth of the start-up time with L3).  The child only restricts itself
 * and execs; when that fails it leaves the result in struct spawn and
 * exits, and this process reports it.  Returns like fork_and_wait() in
 * the parent; the child never returns.
 */
static int
spawn_and_wait(struct spawn *s, int *status, char **cause)
{
	int wstatus, r, e;
	pid_t pid;

	monitor_block_signals();
	s->r = 0;
	s->status = 125;
	s->cause = NULL;
	pid = clone(spawn_child, spawn_stack + sizeof(spawn_stack),
		    CLONE_VM | CLONE_VFORK | SIGCHLD, s);
	if (pid < 0) {
		e = errno;
		*cause = xasprintf("cannot start the command: %s", strerror(e));
		return -e;
	}
	if (s->r < 0) {
		/* It has exited already (CLONE_VFORK). */
		waitpid(pid, NULL, 0);
		*status = s->status;
		*cause = s->cause;
		return s->r;
	}
	if ((r = monitor_run(NULL, pid, true, &wstatus)) < 0) {
		*cause = xasprintf("waiting for the command failed: %s",
				   strerror(-r));
		kill(pid, SIGKILL);
		return r;
	}
	*status = monitor_exit_status(wstatus);
	/* Nothing of the command's left: the monitor
	 * above learns the status now, not once this process's exit has
	 * torn the namespaces down. */
	if (monitor_namespace_empty() == 0)
		monitor_report_exit(*status);
	return 1;
}

/*
 * The kernel's wait when an inotify instance with marks is freed is
 * taken by a helper once this process has exited (fd_hold), not by
 * whichever of the run's processes closes the instance last: the
 * later-run watch's and the mask watch's, made before any fork (or, with
 * later, the watch's handed over once a guardian has set it up after its
 * fork: set_up_beside).  So is
 * the teardown of the view's mount namespace (its mounts unmounted, an
 * RCU grace period): pid 1 hands the helper the namespace
 * (hold_namespace), whose exit then drops no last reference of it, and
 * the monitors above, which wait for that exit, no longer wait for the
 * teardown.  Nothing of the command's is left when it is handed over
 * (pid 1 reports its end only once its namespace is empty), and the
 * helper holds no descriptor the command ever had.  Only where the
 * watches start the helper anyway: a run without them makes no process
 * more (its pid 1 takes the teardown, as before).
 */
static void
hold_watches(struct sandbox *sb, bool later)
{
	bool pid1 = !sb->shape.bwrap && sb->shape.ns == PLANNER_NS_PID;
	int fds[2];
	size_t n = 0;
	pid_t pid;

	sb->hold_more = -1;
	if (watchlater_inotify(sb->watch) >= 0)
		fds[n++] = watchlater_inotify(sb->watch);
	if (maskwatch_inotify(sb->maskwatch) >= 0)
		fds[n++] = maskwatch_inotify(sb->maskwatch);
	if ((n > 0 || later) &&
	    (pid = fd_hold(fds, n, pid1 || later ? &sb->hold_more : NULL)) > 0)
		monitor_spare(pid);
}

/* pid 1, its view built: the holder (hold_watches) takes its mount
 * namespace, before the command is started (which gets neither). */
static void
hold_namespace(struct sandbox *sb, int mnt_ns)
{
	fd_hold_send(sb->hold_more, mnt_ns);
	if (mnt_ns >= 0)
		close(mnt_ns);
	if (sb->hold_more >= 0)
		close(sb->hold_more);
	sb->hold_more = -1;
}

/*
 * The watch on the view's masks (maskwatch_new), before any fork: L3
 * tells it each mask as it mounts it; bubblewrap's watch looks for each
 * mask it is given, so it is given those bwrap mounts (and the missing
 * denied paths its view shows: not those in a private /tmp).
 */
static int
masks_watch(struct sandbox *sb, char **cause)
{
	struct plan mounted = { 0 };
	int r;

	if (sb->backend != SANDBOX_BACKEND_BWRAP)
		return maskwatch_new(sb->fs, &sb->maskwatch, cause);
	mounted.masks = xcalloc(sb->fs->n_masks + 1, sizeof(*mounted.masks));
	for (size_t i = 0; i < sb->fs->n_masks; i++)
		if (bwrap_mounts_mask(sb->bwrap, sb->fs->masks[i].path))
			mounted.masks[mounted.n_masks++] = sb->fs->masks[i];
	/* ... and the denied paths missing at the start it shows. */
	for (char **a = sb->fs->absent; a != NULL && *a != NULL; a++)
		if (bwrap_mounts_mask(sb->bwrap, *a))
			strv_push(&mounted.absent, *a);
	r = maskwatch_new(&mounted, &sb->maskwatch, cause);
	free(mounted.masks);
	strv_free(mounted.absent);
	return r;
}

int
sandbox_exec(struct sandbox *sb, char *const *argv, char *const *envp,
	     const int *keep, size_t n_keep, int *status, char **cause)
{
	struct sock_fprog prog;
	struct supervisor *sv = NULL;
	struct proxyserve *proxy = NULL;
	struct dnsstub *stub = NULL;
	struct resources_run *lr = NULL;
	struct monitor_work mw = { .lo = &sb->limits };
	_cleanup_strv_ char **env = NULL;
	struct beside beside = { .sb = sb, .ready = { -1, -1 } };
	_cleanup_free_ struct netpolicy_addr *resolvers = NULL;
	size_t n_resolvers = 0;
	bool forked = false, guarded = false, init = false;
	bool defer_watch = false;
	int r, mnt_ns = -1;

	*status = 125;
	if (sb->must_fail) {
		*cause = xstrdup(sb->fail_cause);
		return -EPERM;
	}
	monitor_host_signals();
	/* A descriptor a rule or a mount at once, in llwrap's processes
	 * (root's rule paths held open, a clone per mask while the view is
	 * built): the soft limit of open files (often 1,024) raised to the
	 * hard one; the command gets it back (limit_restore). */
	fd_limit_raise();

	/* Acquire everything first.  The filter was compiled at build
	 * time (filter.h); a run only picks its program. */
	if ((r = filter_program(&sb->filter, &prog)) < 0) {
		*cause = xstrdup("no precompiled seccomp program fits this "
				 "policy");
		return r;
	}
	env = planner_environ(sb, envp);
	if ((r = run_tmp_make(sb, envp, &env, cause)) < 0)
		goto out;
	/* Before any namespace: the cgroup is made with this user's own
	 * credentials. */
	if ((r = resources_start(&sb->limits_plan, &lr, cause)) < 0)
		goto out;
	mw.lr = lr;
	mw.pidns = sb->shape.bwrap || sb->shape.ns == PLANNER_NS_PID;
	/* A guardian over a pid namespace starts the watch once it has
	 * forked, while the sandbox is made (guard_and_wait); else now. */
	defer_watch = sb->shape.guardian && mw.pidns &&
		      (sb->git != NULL || sb->later != NULL);
	if (!defer_watch && (r = later_watch(sb, cause)) < 0)
		goto out;
	mw.wl = sb->watch;
	/* Before any fork: the page where the watcher says what it saw,
	 * and the start's git configurations, in the host's view. */
	if (sb->shape.masks != PLANNER_MASKS_NONE &&
	    (r = masks_watch(sb, cause)) < 0)
		goto out;
	hold_watches(sb, defer_watch);
	/* ... and so does the removal of the run's own /tmp.  Without
	 * them too: a process the command leaves running keeps the user's
	 * terminal, and would read what the user types there once llwrap
	 * has returned to the shell (review M, F6).  Without a pid
	 * namespace a monitor ends what it adopted; with no monitor (a
	 * bare exec) nothing does (DESIGN.md §15, What remains). */
	mw.end_orphans = !mw.pidns;
	/* The guardian above the supervisor (guard_and_wait). */
	if (sb->shape.guardian) {
		/* llwrap's resolver is forked beside the path too, by
		 * this process (outside every namespace, as the supervisor
		 * before its unshare), on the resolvers the supervisor is
		 * given (read once: both see the same list). */
		if (!sb->shape.bwrap && sb->shape.ns == PLANNER_NS_PID &&
		    planner_hosts(sb) == PLANNER_HOSTS_STUB) {
			resolvers = supervise_resolvers_read(&sb->net,
							     &n_resolvers);
			if ((r = dnsstub_open(&stub, cause)) < 0)
				goto out;
			beside.stub = stub;
			beside.dns = resolvers;
			beside.n_dns = n_resolvers;
		}
		beside.watch = defer_watch;
		if ((defer_watch || stub != NULL) &&
		    pipe2(beside.ready, O_CLOEXEC) < 0) {
			r = -errno;
			*cause = xasprintf("cannot create a pipe: %s",
					   strerror(-r));
			goto out;
		}
		r = guard_and_wait(&mw,
				   defer_watch || stub != NULL ? &beside : NULL,
				   status, cause);
		if (r != 0) {
			sb->reporter = r > 0;
			goto out;
		}
		guarded = true;
		mw.wl = NULL;
		mw.lr_above = true;
		mw.end_orphans = false;
	}
	if (sb->supervise && (r = supervise_new(&sb->net, sb->fs, envp,
						steal_pointer(&resolvers),
						n_resolvers, &sv, cause)) < 0)
		goto out;
	if (sv != NULL && sb->watches == SANDBOX_WATCHES_VIEW)
		supervise_view_watches(sv);
	if (sv != NULL && beside.ready[0] >= 0)
		supervise_wait_for(sv, steal_fd(&beside.ready[0]));
	/* allow-host (DESIGN.md §6.1): llwrap's resolver where user
	 * namespaces let it have a network namespace of its own (design
	 * (a): nothing in the data path, every client works), unless the
	 * policy asks for the proxy.  Started before any namespace. */
	if (sv != NULL && planner_hosts(sb) == PLANNER_HOSTS_STUB) {
		size_t n_dns;
		const struct netpolicy_addr *dns =
			supervise_resolvers(sv, &n_dns);

		/* A sandbox that makes user namespaces itself cannot run
		 * where the resolver cannot: it is forked now, outside
		 * every namespace, and makes its own at the first query (a
		 * run that resolves nothing never pays for them).  Else its
		 * answer decides between it and the proxy, now. */
		bool wait = sb->shape.ns == PLANNER_NS_NONE;

		/* Forked by the guardian (beside.stub): its ends closed
		 * here, it is this process's to talk to. */
		if (stub != NULL) {
			dnsstub_peer_close(stub, dns, n_dns);
			r = 0;
		} else {
			r = dnsstub_start(sb->net.hosts, sb->net.n_hosts, dns,
					  n_dns, wait, &stub, cause);
		}
		if (r == 0) {
			supervise_set_stub(sv, stub);
		} else if (r == -EPERM) {
			/* No user namespaces here: the proxy (b). */
			free(*cause);
			*cause = NULL;
		} else {
			goto out;
		}
	}
	/* Else the proxy for names runs outside, started
	 * before any namespace: the supervisor lets the command reach it,
	 * the environment points the command's clients at it. */
	if (sv != NULL && planner_hosts(sb) != PLANNER_HOSTS_NONE &&
	    stub == NULL) {
		struct netpolicy_addr pa;

		if ((r = proxyserve_start(&sb->net, envp, &proxy, cause)) < 0)
			goto out;
		proxyserve_addr(proxy, &pa);
		supervise_set_proxy(sv, &pa, proxyserve_take_note_fd(proxy));
		environ_override(&env, pa.port);
	}
	if (sb->learn && sv != NULL &&
	    (r = supervise_learn(sv, sb->learn_fd, cause)) < 0)
		goto out;

	/* bwrap builds the sandbox and stays as its monitor: this process
	 * becomes bwrap. */
	if (sb->shape.bwrap) {
		/* With the supervisor, this process stays outside as its
		 * parent, and the child execs bwrap under the notification
		 * filter (which needs no_new_privs: a setuid bwrap runs
		 * unprivileged then, with user namespaces). */
		if (sb->shape.monitor) {
			/* bwrap ties its sandbox to itself
			 * (--die-with-parent) only once the sandbox is
			 * built: a signal that ends bwrap before then (the
			 * timeout's SIGTERM, on a slow machine) would leave
			 * the sandbox running under init.  As the subreaper,
			 * this process gets it, and ends it. */
			if ((r = monitor_adopt_orphans()) < 0) {
				*cause = xasprintf("cannot become the "
						   "subreaper of bwrap's "
						   "sandbox: %s",
						   strerror(-r));
				goto out;
			}
			/* It watches the masks of bwrap's view. */
			if (sb->shape.masks == PLANNER_MASKS_BWRAP) {
				mw.mask = sb->maskwatch;
				mw.mask_bwrap = true;
			}
			r = fork_and_wait(sv, &mw, false, status, cause);
			if (r > 0)
				monitor_end_orphans();
			if (r != 0)
				goto out;
		}
		if (sv != NULL && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
			r = -errno;
			*cause = xasprintf("cannot set no_new_privs: %s",
					   strerror(-r));
			goto out;
		}
		if (sv != NULL &&
		    ((r = supervise_child_attach(sv, -1, cause)) < 0 ||
		     (r = supervise_child_go(sv, cause)) < 0))
			goto out;
		/* The limits pass through bwrap's exec to the command. */
		if ((r = limit_restore(cause)) < 0 ||
		    (r = apply_limits(&sb->limits_plan, false, cause)) < 0)
			goto out;
		r = bwrap_exec(&sb->facts.bwrap_bin, sb->bwrap, sb->fs, &prog,
			       argv, env, keep, n_keep, status, cause);
		goto out;
	}

	if (sb->shape.ns != PLANNER_NS_NONE) {
		if (sb->facts.root && sb->facts.kernel.abi > 0)
			sb->held = ruleset_hold(sb->landlock);
		if ((r = ns_unshare(&sb->ns, cause)) < 0) {
			/* Refused: the run fails closed as sandbox_prepare()
			 * would have, had it probed (ns_plan()). */
			char *why = *cause;

			*cause =
				sb->ns_unshare_probes && r == -EPERM
					? planner_l3_refusal(sb->ns_needed, why)
					: xasprintf("cannot create the "
						    "namespaces: %s",
						    why);
			free(why);
			goto out;
		}
		/* A pid namespace needs a process above it: this one stays
		 * outside as the monitor, its child is pid 1 (the init that
		 * reaps orphans), and the command is pid 2.  The monitor
		 * is the network supervisor too: one process, not two. */
		if (sb->shape.ns == PLANNER_NS_PID) {
			int stop[2], ended[2];

			if (pipe2(stop, O_CLOEXEC) < 0) {
				r = -errno;
				*cause = xasprintf("cannot create a pipe: %s",
						   strerror(-r));
				goto out;
			}
			/* pid 1 reports the command's status before its
			 * exit (monitor_exit_watch). */
			if (pipe2(ended, O_CLOEXEC) < 0) {
				r = -errno;
				close(stop[0]);
				close(stop[1]);
				*cause = xasprintf("cannot create a pipe: %s",
						   strerror(-r));
				goto out;
			}
			forked = true;
			monitor_stop_fds(stop[0], -1);
			monitor_exit_watch(ended[0]);
			r = fork_and_wait(sv, &mw, false, status, cause);
			if (r != 0) {
				monitor_exit_watch(-1);
				close(stop[0]);
				close(stop[1]);
				close(ended[1]);
				goto out;
			}
			close(stop[0]);
			monitor_stop_fds(-1, stop[1]);
			monitor_exit_report(ended[1]);
			init = true;
		}
		if ((r = ns_setup(&sb->ns, sb->maskwatch, init ? &mnt_ns : NULL,
				  cause)) < 0)
			goto out;
		if (init)
			hold_namespace(sb, mnt_ns);
		/* The view is built: its masks are watched from here (pid
		 * 1), or by the monitor forked below. */
		if (sb->shape.masks == PLANNER_MASKS_PID1 &&
		    (r = maskwatch_arm(sb->maskwatch, true, cause)) < 0)
			goto out;
		mw.mask = sb->shape.masks == PLANNER_MASKS_MONITOR
				  ? sb->maskwatch
				  : NULL;
		if (sb->shape.ns == PLANNER_NS_PID) {
			struct spawn sp = {
				.sb = sb,
				.sv = sv,
				.prog = &prog,
				.env = env,
				.argv = argv,
				.keep = keep,
				.n_keep = n_keep,
			};

			r = spawn_and_wait(&sp, status, cause);
			maskwatch_disarm(sb->maskwatch);
			goto out;
		}
	}
	/* The supervisor, or the monitor of the limits, stays outside as
	 * the command's parent. */
	if (sb->shape.monitor && !forked &&
	    (r = fork_and_wait(sv, &mw, false, status, cause)) != 0)
		goto out;
	r = sandbox_enter(sb, sv, &prog, env, argv, keep, n_keep, status,
			  cause);
out:
	/* The hand-over refused what the supervisor needs: named as the
	 * supervisor's probe names it, before the command has started. */
	if (r < 0 && sv != NULL && supervise_refusal(sv) != NULL) {
		_cleanup_free_ char *why = probe_supervisor_refused(
			&sb->facts, supervise_refusal(sv));

		free(*cause);
		*cause = planner_supervisor_refusal(sb, why);
	}
	/* A monitor or an init whose command has ended (r > 0) exits next:
	 * the exit frees the supervisor, and closes its listener. */
	if (r <= 0)
		supervise_free(sv);
	proxyserve_stop(proxy);
	dnsstub_stop(stub);
	/* After the helpers: the monitor's cgroup holds them. */
	print_notes(resources_free(lr));
	/* Once the command has ended, or the run failed before it. */
	run_tmp_remove(sb);
	/* The supervisor below a guardian: its status is the guardian's to
	 * report, and nothing else is its to say. */
	if (guarded && r > 0 && !init) {
		fflush(NULL);
		monitor_report_exit(*status);
		monitor_reap_last();
		_exit(*status);
	}
	/* The outermost monitor reports; pid 1 of the sandbox's pid
	 * namespace does not. */
	if (r > 0 && !init)
		sb->reporter = true;
	/* 1: this process was a monitor or an init and its child has
	 * ended; *status is what to exit with. */
	return r > 0 ? 0 : r;
}
