/*
 * [limits]: the wall-clock timeout and cgroup v2 limits (see resources.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdutil.h"
#include "mono.h"
#include "mountinfo.h"
#include "resources.h"
#include "strv.h"
#include "monitor.h"
#include "testhook.h"
#include "xalloc.h"

/* ---- Pure ---- */

/* The cgroup2 mount of mountinfo: its root and mount point. */
static int
cgroup2_mount(const char *mountinfo, char **root, char **point)
{
	for (const char *line = mountinfo; line != NULL && *line != '\0';) {
		const char *next = strchr(line, '\n'), *c = line;
		_cleanup_strv_ char **f = NULL;
		char w[PATH_MAX + 1];
		bool dash = false;

		while (mountinfo_field(&c, w, sizeof(w)) != NULL) {
			/* After the optional fields, " - " and the type. */
			if (dash && strv_length(f) >= 5) {
				if (strcmp(w, "cgroup2") == 0) {
					*root = xstrdup(f[3]);
					*point = xstrdup(f[4]);
					return 0;
				}
				break;
			}
			if (strcmp(w, "-") == 0 && strv_length(f) >= 6)
				dash = true;
			strv_push(&f, w);
		}
		line = next != NULL ? next + 1 : NULL;
	}
	return -ENOENT;
}

int
resources_cgroup_dir(const char *proc_cgroup, const char *mountinfo, char **dir)
{
	_cleanup_free_ char *path = NULL, *root = NULL, *point = NULL;
	const char *rest;
	size_t n;

	for (const char *line = proc_cgroup; line != NULL && *line != '\0';) {
		const char *next = strchr(line, '\n');

		if (strncmp(line, "0::", 3) == 0) {
			n = next != NULL ? (size_t)(next - line) : strlen(line);
			path = xstrndup(line + 3, n - 3);
			break;
		}
		line = next != NULL ? next + 1 : NULL;
	}
	if (path == NULL || path[0] != '/' ||
	    cgroup2_mount(mountinfo, &root, &point) < 0)
		return -ENOENT;
	/* The mount shows the hierarchy from root down (a cgroup namespace
	 * or a bind mount of a subtree): the cgroup must be beneath it. */
	n = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (strncmp(path, root, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return -ENOENT;
	rest = path + n;
	if (strcmp(rest, "/") == 0 || *rest == '\0')
		*dir = xstrdup(point);
	else
		*dir = xasprintf("%s%s", strcmp(point, "/") == 0 ? "" : point,
				 rest);
	return 0;
}

/* 90 -> "90 s", 1800 -> "30 min", 7200 -> "2 h". */
static char *
duration_text(uint64_t s)
{
	if (s >= 3600 && s % 3600 == 0)
		return xasprintf("%llu h", (unsigned long long)(s / 3600));
	if (s >= 60 && s % 60 == 0)
		return xasprintf("%llu min", (unsigned long long)(s / 60));
	return xasprintf("%llu s", (unsigned long long)s);
}

char **
resources_report(const struct limits_plan *l, const struct resources_outcome *o,
		 int status)
{
	char **lines = NULL;

	if (o->timed_out) {
		_cleanup_free_ char *d = duration_text(l->timeout);

		strv_push_take(
			&lines,
			o->killed ? xasprintf("llwrap: the command exceeded "
					      "[limits] timeout = %s (wall "
					      "clock) and was stopped: "
					      "SIGTERM, then SIGKILL %d s "
					      "later",
					      d, LLW_TIMEOUT_GRACE)
				  : xasprintf("llwrap: the command exceeded "
					      "[limits] timeout = %s (wall "
					      "clock) and was stopped "
					      "(SIGTERM)",
					      d));
	}
	if (o->oom_kills > 0)
		strv_push_take(
			&lines,
			xasprintf("llwrap: the command exceeded [limits] "
				  "memory-max = %llu bytes (cgroup "
				  "memory.max): the kernel killed %llu "
				  "process%s of it out of memory",
				  (unsigned long long)l->memory_max,
				  (unsigned long long)o->oom_kills,
				  o->oom_kills == 1 ? "" : "es"));
	if (o->pids_refused > 0)
		strv_push_take(
			&lines,
			xasprintf("llwrap: the command reached [limits] "
				  "pids-max = %llu (cgroup pids.max): %llu "
				  "fork%s refused (EAGAIN)",
				  (unsigned long long)l->pids_max,
				  (unsigned long long)o->pids_refused,
				  o->pids_refused == 1 ? " was" : "s were"));
	if (status == 128 + SIGXCPU && l->cpu > 0)
		strv_push_take(
			&lines,
			xasprintf("llwrap: the command exceeded [limits] cpu "
				  "= %llu (seconds of CPU time) and was "
				  "killed (SIGXCPU)",
				  (unsigned long long)l->cpu));
	else if (status == 128 + SIGXFSZ && l->file_size > 0)
		strv_push_take(
			&lines,
			xasprintf("llwrap: the command exceeded [limits] "
				  "file-size = %llu bytes and was killed "
				  "(SIGXFSZ)",
				  (unsigned long long)l->file_size));
	return lines;
}

/* ---- The kernel ---- */

struct resources_run {
	uint64_t timeout;
	pid_t owner; /* the monitor: only it undoes the cgroup */
	int timer_fd;
	pid_t child;
	struct resources_outcome out;

	char *base;    /* the delegated cgroup llwrap was started in */
	char *cmd_cg;  /* base/llwrap-PID: the command's */
	char *mon_cg;  /* base/llwrap-PID-monitor, when llwrap moved there */
	char *enabled; /* controllers llwrap enabled in base */
	int base_fd;   /* base, opened before any namespace */
	char cmd_name[32], mon_name[48]; /* their names in base */
	char file[96];			 /* cmd_file()'s result */
	int procs_fd; /* cmd_cg/cgroup.procs, for the child */
	int kill_fd;  /* cmd_cg/cgroup.kill (Linux 5.14) */
	char **notes; /* cgroups left behind, for the caller to print */
};

static char *
read_text(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL;
	size_t len;

	if (fd < 0 || fd_read_all(fd, 1 << 20, &buf, &len) < 0)
		return NULL;
	return buf;
}

/* Write text to the file rel of the directory dirfd. */
static int
write_text(int dirfd, const char *rel, const char *text)
{
	_cleanup_close_ int fd = openat(dirfd, rel, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		return -errno;
	return 0;
}

/* The value of KEY in a flat-keyed file (memory.events): 0 if absent. */
static uint64_t
keyed_value(int dirfd, const char *rel, const char *key)
{
	_cleanup_close_ int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	size_t n = strlen(key), len;

	if (fd < 0 || fd_read_all(fd, 1 << 16, &text, &len) < 0)
		return 0;

	for (const char *l = text; l != NULL && *l != '\0';) {
		if (strncmp(l, key, n) == 0 && l[n] == ' ')
			return strtoull(l + n + 1, NULL, 10);
		l = strchr(l, '\n');
		l = l != NULL ? l + 1 : NULL;
	}
	return 0;
}

/* Whether the blank-separated list has word. */
static bool
has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *c = list; c != NULL && *c != '\0';) {
		c += strspn(c, " \n");
		if (strncmp(c, word, n) == 0 &&
		    (c[n] == ' ' || c[n] == '\n' || c[n] == '\0'))
			return true;
		c += strcspn(c, " \n");
	}
	return false;
}

/*
 * The delegated cgroup this process is in, and the controllers lim's
 * limits need that its children do not have yet (*enable, "+memory
 * +pids" style, empty when none).  0, or -errno and *why.
 */
static int
cgroup_find(const struct limits_plan *lim, char **dir, char **enable,
	    char **why)
{
	_cleanup_free_ char *cg = read_text("/proc/self/cgroup");
	_cleanup_free_ char *mi = read_text("/proc/self/mountinfo");
	_cleanup_free_ char *d = NULL, *ctl = NULL, *sub = NULL, *procs = NULL;
	_cleanup_free_ char *ctl_path = NULL, *sub_path = NULL;
	_cleanup_free_ char *procs_path = NULL;
	const char *need[2] = { NULL, NULL };
	char *add = xstrdup("");
	struct stat st;
	bool writable;

	if (cg == NULL || mi == NULL || resources_cgroup_dir(cg, mi, &d) < 0) {
		*why = xstrdup("llwrap is in no cgroup v2 hierarchy (no "
			       "cgroup2 mount, or a cgroup v1 system)");
		free(add);
		return -ENOENT;
	}
	/* Owned, not only writable: root writes another user's delegated
	 * cgroup only while it has capabilities, and llwrap drops them
	 * before the cgroup it makes there is removed. */
	writable = faccessat(AT_FDCWD, d, W_OK, AT_EACCESS) == 0;
	if (!writable || stat(d, &st) < 0 || st.st_uid != geteuid()) {
		*why = xasprintf(
			"its cgroup %s is not delegated to this user "
			"(%s)",
			d, writable ? "owned by another" : "not writable");
		free(add);
		return -EACCES;
	}
	if (lim->memory_max > 0)
		need[0] = "memory";
	if (lim->pids_max > 0)
		need[1] = "pids";
	ctl_path = xasprintf("%s/cgroup.controllers", d);
	sub_path = xasprintf("%s/cgroup.subtree_control", d);
	ctl = read_text(ctl_path);
	sub = read_text(sub_path);
	for (size_t i = 0; i < 2; i++) {
		char *t;

		if (need[i] == NULL || (sub != NULL && has_word(sub, need[i])))
			continue;
		if (ctl == NULL || !has_word(ctl, need[i])) {
			*why = xasprintf("its cgroup %s does not offer the %s "
					 "controller",
					 d, need[i]);
			free(add);
			return -EOPNOTSUPP;
		}
		t = xasprintf("%s%s+%s", add, *add ? " " : "", need[i]);
		free(add);
		add = t;
	}
	if (*add != '\0') {
		/* Enabling a controller for the children needs a cgroup
		 * without processes of its own: llwrap moves itself out, but
		 * not other processes. */
		pid_t self = getpid();

		procs_path = xasprintf("%s/cgroup.procs", d);
		procs = read_text(procs_path);
		for (const char *l = procs; l != NULL && *l != '\0';) {
			if (strtol(l, NULL, 10) != self) {
				*why = xasprintf("its cgroup %s holds other "
						 "processes than llwrap, and "
						 "a cgroup with processes "
						 "cannot give its children "
						 "controllers",
						 d);
				free(add);
				return -EBUSY;
			}
			l = strchr(l, '\n');
			l = l != NULL ? l + 1 : NULL;
		}
		if (faccessat(AT_FDCWD, sub_path, W_OK, AT_EACCESS) < 0) {
			*why = xasprintf("%s is not writable", sub_path);
			free(add);
			return -EACCES;
		}
	}
	*dir = steal_pointer(&d);
	*enable = add;
	return 0;
}

char *
resources_cgroup_refusal(const struct limits_plan *l, const char *why)
{
	return xasprintf("[limits] %s needs a cgroup of the command's own, "
			 "and %s; run llwrap in a delegated cgroup "
			 "(systemd-run --user --scope llwrap ...), or with "
			 "--best-effort to run without the limit",
			 l->memory_max > 0 ? "memory-max" : "pids-max", why);
}

int
resources_cgroup_probe(const struct limits_plan *l, char **why)
{
	_cleanup_free_ char *dir = NULL, *enable = NULL;

	if (!limits_plan_cgroup(l))
		return 0;
	return cgroup_find(l, &dir, &enable, why);
}

/* Move this process to the cgroup rel of the base (NULL: the base). */
static int
cgroup_move_self(const struct resources_run *lr, const char *rel)
{
	_cleanup_free_ char *procs =
		xasprintf("%s%scgroup.procs", rel ? rel : "", rel ? "/" : "");
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return write_text(lr->base_fd, procs, pid);
}

/* The path of a file of the command's cgroup, relative to the base. */
static const char *
cmd_file(struct resources_run *lr, const char *file)
{
	snprintf(lr->file, sizeof(lr->file), "%s/%s", lr->cmd_name, file);
	return lr->file;
}

/*
 * Remove the cgroup name of the base once its processes have left: they
 * may still be on their way out when the command's end was reported
 * ahead of pid 1's exit (its namespaces torn down, the processes killed
 * through cgroup.kill ending).  The kernel marks the end in
 * cgroup.events ("populated 0") and wakes a poll for POLLPRI; until
 * deadline.  A cgroup left behind is named, never silently.
 */
static void
cgroup_remove(struct resources_run *lr, const char *name, const char *path,
	      uint64_t deadline)
{
	_cleanup_free_ char *events = xasprintf("%s/cgroup.events", name);
	_cleanup_close_ int fd = -1;
	int e, left;

	for (;;) {
		uint64_t now = mono_ms();
		char buf[256];
		ssize_t n;
		struct pollfd pfd;

		if (unlinkat(lr->base_fd, name, AT_REMOVEDIR) == 0)
			return;
		e = errno;
		if (e != EBUSY || now >= deadline)
			break;
		left = (int)(deadline - now);
		if (fd < 0)
			fd = openat(lr->base_fd, events, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
		if (n >= 0)
			buf[n] = '\0';
		/* Empty, but not yet removable (its last tasks dying), or
		 * no cgroup.events to wait on: a moment. */
		pfd.fd = fd;
		pfd.events = POLLPRI;
		if (n < 0 || strstr(buf, "populated 0") != NULL)
			(void)poll(NULL, 0, left < 2 ? left : 2);
		else
			(void)poll(&pfd, 1, left);
	}
	if (e == ENOENT)
		return;
	if (e == EBUSY)
		strv_push_take(
			&lr->notes,
			xasprintf("cannot remove the cgroup %s: still in use "
				  "after %d s (a process that does not end, or "
				  "a cgroup beneath it); the checks after the "
				  "run may have run with it there and cannot "
				  "see what it does later; remove it with "
				  "rmdir once it is empty",
				  path, LLW_CGROUP_REMOVE_S));
	else
		strv_push_take(&lr->notes,
			       xasprintf("cannot remove the cgroup %s: %s",
					 path, strerror(e)));
}

/* Undo what cgroup_make did, as far as it went. */
static void
cgroup_unmake(struct resources_run *lr)
{
	uint64_t deadline = mono_ms() + LLW_CGROUP_REMOVE_S * 1000;

	/* By descriptor: the monitor's view of /sys may have changed
	 * (L3 mounts in the mount namespace it shares with pid 1). */
	if (lr->owner != getpid() || lr->base_fd < 0)
		goto out;
	if (lr->cmd_cg != NULL)
		cgroup_remove(lr, lr->cmd_name, lr->cmd_cg, deadline);
	if (lr->enabled != NULL) {
		_cleanup_free_ char *off = xstrdup(lr->enabled);

		for (char *c = off; *c != '\0'; c++)
			if (*c == '+')
				*c = '-';
		(void)write_text(lr->base_fd, "cgroup.subtree_control", off);
	}
	if (lr->mon_cg != NULL && cgroup_move_self(lr, NULL) < 0)
		strv_push_take(&lr->notes,
			       xasprintf("cannot leave the cgroup %s, nor "
					 "remove it; remove it with rmdir once "
					 "it is empty",
					 lr->mon_cg));
	else if (lr->mon_cg != NULL) {
		/* What is left there is llwrap's own, past its use: the
		 * helpers (resolver, proxy, watch judge) and, under a
		 * guardian, the supervisor after its report. */
		_cleanup_free_ char *kill_path =
			xasprintf("%s/cgroup.kill", lr->mon_name);

		(void)write_text(lr->base_fd, kill_path, "1");
		cgroup_remove(lr, lr->mon_name, lr->mon_cg, deadline);
	}
out:
	close(lr->base_fd);
	lr->base_fd = -1;
	free(lr->cmd_cg);
	free(lr->mon_cg);
	free(lr->enabled);
	free(lr->base);
	lr->cmd_cg = lr->mon_cg = lr->enabled = lr->base = NULL;
}

static int
cgroup_make(struct resources_run *lr, const struct limits_plan *l, char **why)
{
	_cleanup_free_ char *enable = NULL, *procs = NULL, *kill_path = NULL;
	char num[24];
	int r;

	if ((r = cgroup_find(l, &lr->base, &enable, why)) < 0)
		return r;
	lr->base_fd = open(lr->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lr->base_fd < 0) {
		r = -errno;
		*why = xasprintf("cannot open %s: %s", lr->base, strerror(-r));
		return r;
	}
	snprintf(lr->cmd_name, sizeof(lr->cmd_name), "llwrap-%d",
		 (int)getpid());
	snprintf(lr->mon_name, sizeof(lr->mon_name), "llwrap-%d-monitor",
		 (int)getpid());
	if (*enable != '\0') {
		lr->mon_cg = xasprintf("%s/%s", lr->base, lr->mon_name);
		if (mkdirat(lr->base_fd, lr->mon_name, 0755) < 0 ||
		    (r = cgroup_move_self(lr, lr->mon_name)) < 0) {
			r = r < 0 ? r : -errno;
			*why = xasprintf("cannot move llwrap to %s: %s",
					 lr->mon_cg, strerror(-r));
			return r;
		}
		if ((r = write_text(lr->base_fd, "cgroup.subtree_control",
				    enable)) < 0) {
			*why = xasprintf("cannot enable %s in %s: %s", enable,
					 lr->base, strerror(-r));
			return r;
		}
		lr->enabled = steal_pointer(&enable);
	}
	lr->cmd_cg = xasprintf("%s/%s", lr->base, lr->cmd_name);
	if (mkdirat(lr->base_fd, lr->cmd_name, 0755) < 0) {
		r = -errno;
		*why = xasprintf("cannot make %s: %s", lr->cmd_cg,
				 strerror(-r));
		free(lr->cmd_cg);
		lr->cmd_cg = NULL;
		return r;
	}
	if (l->memory_max > 0) {
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)l->memory_max);
		if ((r = write_text(lr->base_fd, cmd_file(lr, "memory.max"),
				    num)) < 0) {
			*why = xasprintf("cannot set memory.max of %s: %s",
					 lr->cmd_cg, strerror(-r));
			return r;
		}
		/* The limit is on memory, not on memory plus swap: without
		 * this the command would swap beyond it. */
		(void)write_text(lr->base_fd, cmd_file(lr, "memory.swap.max"),
				 "0");
	}
	if (l->pids_max > 0) {
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)l->pids_max);
		if ((r = write_text(lr->base_fd, cmd_file(lr, "pids.max"),
				    num)) < 0) {
			*why = xasprintf("cannot set pids.max of %s: %s",
					 lr->cmd_cg, strerror(-r));
			return r;
		}
	}
	procs = xasprintf("%s/cgroup.procs", lr->cmd_cg);
	lr->procs_fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (lr->procs_fd < 0) {
		r = -errno;
		*why = xasprintf("cannot open %s: %s", procs, strerror(-r));
		return r;
	}
	kill_path = xasprintf("%s/cgroup.kill", lr->cmd_cg);
	lr->kill_fd = open(kill_path, O_WRONLY | O_CLOEXEC);
	return 0;
}

int
resources_start(const struct limits_plan *l, struct resources_run **out,
		char **cause)
{
	struct resources_run *lr;
	bool want_cg = limits_plan_cgroup(l);
	_cleanup_free_ char *why = NULL;
	int r;

	*out = NULL;
	if (l->timeout == 0 && !want_cg)
		return 0;
	lr = xcalloc(1, sizeof(*lr));
	lr->timeout = l->timeout;
	lr->owner = getpid();
	lr->timer_fd = lr->procs_fd = lr->kill_fd = lr->base_fd = -1;
	r = cgroup_make(lr, l, &why);
	if (r < 0) {
		close(lr->procs_fd);
		close(lr->kill_fd);
		lr->procs_fd = lr->kill_fd = -1;
		cgroup_unmake(lr);
		if (want_cg && !l->best_effort) {
			*cause = resources_cgroup_refusal(l, why);
			resources_free(lr);
			return r;
		}
		/* The timeout alone, or best effort (--explain and the
		 * NOT ENFORCED lines said so): no cgroup. */
	}
	*out = lr;
	return 0;
}

int
resources_child(struct resources_run *lr, char **cause)
{
	int r = 0;

	if (lr == NULL)
		return 0;
	if (lr->procs_fd >= 0 && write(lr->procs_fd, "0", 1) != 1) {
		r = -errno;
		*cause = xasprintf("cannot enter the cgroup %s: %s", lr->cmd_cg,
				   strerror(-r));
	}
	close(lr->procs_fd);
	close(lr->kill_fd);
	close(lr->timer_fd);
	close(lr->base_fd);
	lr->procs_fd = lr->kill_fd = lr->timer_fd = lr->base_fd = -1;
	return r;
}

static void
resources_arm(struct resources_run *lr, uint64_t seconds)
{
	uint64_t ms = testhook_timer_ms_per_s();
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)seconds } };

	/* Only a test's clock runs faster (testhook.h). */
	if (ms < 1000 && seconds <= UINT64_MAX / ms) {
		its.it_value.tv_sec = (time_t)(seconds * ms / 1000);
		its.it_value.tv_nsec = (long)(seconds * ms % 1000) * 1000000;
	}

	timerfd_settime(lr->timer_fd, 0, &its, NULL);
}

/* The monitor loop's callback: the timer expired. */
static void
resources_expired(void *arg)
{
	struct resources_run *lr = arg;
	uint64_t ticks;

	if (read(lr->timer_fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	if (!lr->out.timed_out) {
		/* pid 1 of a pid namespace forwards it to the command. */
		lr->out.timed_out = true;
		kill(lr->child, SIGTERM);
		resources_arm(lr, LLW_TIMEOUT_GRACE);
		return;
	}
	lr->out.killed = true;
	kill(lr->child, SIGKILL);
	if (lr->kill_fd >= 0 && write(lr->kill_fd, "1", 1) != 1) {
		/* The cgroup is empty already, or gone. */
	}
}

int
resources_parent(struct resources_run *lr, pid_t child)
{
	if (lr == NULL)
		return 0;
	lr->child = child;
	close(lr->procs_fd);
	lr->procs_fd = -1;
	if (lr->timeout == 0)
		return 0;
	lr->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (lr->timer_fd < 0)
		return -errno;
	resources_arm(lr, lr->timeout);
	monitor_watch(lr->timer_fd, resources_expired, lr);
	return 0;
}

char **
resources_finish(struct resources_run *lr, struct resources_outcome *o)
{
	char **notes;

	if (lr == NULL)
		return NULL;
	if (lr->timer_fd >= 0) {
		monitor_unwatch(lr->timer_fd);
		close(lr->timer_fd);
		lr->timer_fd = -1;
	}
	if (lr->cmd_cg != NULL) {
		lr->out.oom_kills = keyed_value(
			lr->base_fd, cmd_file(lr, "memory.events"), "oom_kill");
		lr->out.pids_refused = keyed_value(
			lr->base_fd, cmd_file(lr, "pids.events"), "max");
		/* What the command left running ends with it, as in a pid
		 * namespace: it would escape the limits otherwise. */
		if (lr->kill_fd >= 0 && write(lr->kill_fd, "1", 1) != 1) {
			/* Empty already. */
		}
	}
	close(lr->kill_fd);
	lr->kill_fd = -1;
	/* The command's cgroup now; the monitor's, which holds llwrap's
	 * helpers, in resources_free, once they are stopped. */
	if (lr->owner == getpid() && lr->base_fd >= 0 && lr->cmd_cg != NULL) {
		cgroup_remove(lr, lr->cmd_name, lr->cmd_cg,
			      mono_ms() + LLW_CGROUP_REMOVE_S * 1000);
		free(lr->cmd_cg);
		lr->cmd_cg = NULL;
	}
	*o = lr->out;
	notes = lr->notes;
	lr->notes = NULL;
	return notes;
}

char **
resources_free(struct resources_run *lr)
{
	char **v;

	if (lr == NULL)
		return NULL;
	close(lr->timer_fd);
	close(lr->procs_fd);
	close(lr->kill_fd);
	cgroup_unmake(lr);
	v = lr->notes;
	free(lr);
	return v;
}
