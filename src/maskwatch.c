/*
 * The watch on L3's masks (maskwatch.h).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "gitguard.h"
#include "maskwatch.h"
#include "monitor.h"
#include "mountinfo.h"
#include "path.h"
#include "pathtree.h"
#include "strv.h"
#include "testhook.h"
#include "text.h"
#include "xalloc.h"

/* What the watcher saw, on a page every process of the run shares: the
 * command's own processes lose it at their exec. */
struct maskwatch_seen {
	int lost;	     /* 1: a mask went; 2: the table went unread */
	char path[PATH_MAX]; /* the first mask that went */
};

/* A git configuration a read-only mask held. */
struct maskwatch_config {
	char *path;
	int dirfd; /* its directory, O_PATH, opened at the start */
	char *text;
	size_t len;
};

struct maskwatch {
	char **paths; /* the masks' */
	int *ids;     /* their mounts (maskwatch_mounted, or bwrap's table once
		       * its view is built); -1: not in the view */
	size_t n;
	struct maskwatch_config *cfg;
	size_t n_cfg;
	struct maskwatch_seen *seen;
	int fd;		   /* the mount table, while armed */
	bool pid1;	   /* the watcher is pid 1 of the sandbox */
	unsigned delay_ms; /* testhook_maskwatch_delay_ms(), when armed */
	pid_t child;	   /* else the command, once forked (maskwatch_child) */
	/* bubblewrap's sandbox (maskwatch_arm_bwrap): its pid 1, found
	 * among bwrap's children while the timer runs, held by a pidfd */
	pid_t bwrap, sandbox_pid;
	int timer, sandbox;
	unsigned looks;
};

/* ids[i] of a mask mounted whose mount could not be told. */
#define MASKWATCH_ID_UNKNOWN (-2)
#define MASKWATCH_TABLE_MAX  (16u << 20)
/* How long a failed read of bwrap's pid 1's table waits for its end. */
#define MASKWATCH_EXIT_WAIT_MS 1000
#define MASKWATCH_CONFIG_MAX   (1u << 20)

static int
path_cmpp(const void *a, const void *b)
{
	return path_cmp(a, *(char *const *)b);
}

void
maskwatch_mount_ids(const char *table, char *const *paths, size_t n, int *ids)
{
	char id[32], point[PATH_MAX + 1];

	for (size_t i = 0; i < n; i++)
		ids[i] = -1;
	for (const char *line = table; line != NULL && *line != '\0';) {
		const char *s = line;
		const char *nl = strchr(line, '\n');
		char *const *k;

		/* id, parent id, major:minor, root, mount point; a later
		 * line at the same point is a mount on top. */
		if (mountinfo_field(&s, id, sizeof(id)) != NULL &&
		    mountinfo_field(&s, point, sizeof(point)) != NULL &&
		    mountinfo_field(&s, point, sizeof(point)) != NULL &&
		    mountinfo_field(&s, point, sizeof(point)) != NULL &&
		    mountinfo_field(&s, point, sizeof(point)) != NULL &&
		    (k = bsearch(point, paths, n, sizeof(*paths), path_cmpp)) !=
			    NULL)
			ids[k - paths] = atoi(id);
		line = nl != NULL ? nl + 1 : NULL;
	}
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

ssize_t
maskwatch_gone(const char *table, const int *ids, size_t n)
{
	_cleanup_free_ int *have = NULL;
	size_t n_have = 0, cap = 0;
	ssize_t gone = -1;

	for (const char *line = table; line != NULL && *line != '\0';) {
		const char *nl = strchr(line, '\n');

		if (n_have == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			have = xreallocarray(have, cap, sizeof(*have));
		}
		have[n_have++] = atoi(line);
		line = nl != NULL ? nl + 1 : NULL;
	}
	if (n_have > 0)
		qsort(have, n_have, sizeof(*have), int_cmp);
	for (size_t i = 0; i < n && gone < 0; i++)
		if (ids[i] >= 0 &&
		    (n_have == 0 || bsearch(&ids[i], have, n_have,
					    sizeof(*have), int_cmp) == NULL))
			gone = (ssize_t)i;
	return gone;
}

/* The text of a git configuration in dirfd: 0, -ENOENT, or -errno (a
 * link, a FIFO or a directory there: -ELOOP, -EINVAL, -EISDIR). */
static int
config_read(int dirfd, char **text, size_t *len)
{
	_cleanup_close_ int fd = fd_open_regular(dirfd, "config", O_NOFOLLOW);
	int r;

	if (fd < 0)
		return fd;
	if ((r = fd_read_all(fd, MASKWATCH_CONFIG_MAX, text, len)) < 0)
		return r;
	if (strlen(*text) != *len) {
		free(*text);
		*text = NULL;
		return -EINVAL;
	}
	return 0;
}

/* A read-only mask on a repository's config (a directory with a HEAD):
 * held with the start's content.  Not one: 0. */
static int
config_hold(struct maskwatch *m, const struct plan_mask *k, char **cause)
{
	_cleanup_free_ char *dir = NULL;
	const char *base = strrchr(k->path, '/');
	struct maskwatch_config c = { 0 };
	int r;

	if (k->is_dir || k->pin || base == NULL ||
	    strcmp(base, "/config") != 0 ||
	    (k->access != LLW_ACCESS_RO && k->access != LLW_ACCESS_RX))
		return 0;
	dir = xstrndup(k->path, (size_t)(base - k->path));
	c.dirfd = open(*dir != '\0' ? dir : "/",
		       O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c.dirfd < 0 ||
	    faccessat(c.dirfd, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		if (c.dirfd >= 0)
			close(c.dirfd);
		return 0;
	}
	if ((r = config_read(c.dirfd, &c.text, &c.len)) < 0) {
		_cleanup_free_ char *shown = text_shown(k->path);

		close(c.dirfd);
		*cause = xasprintf("cannot read %s, a repository's "
				   "configuration: %s",
				   shown, strerror(-r));
		return r;
	}
	c.path = xstrdup(k->path);
	m->cfg = xreallocarray(m->cfg, m->n_cfg + 1, sizeof(*m->cfg));
	m->cfg[m->n_cfg++] = c;
	return 0;
}

int
maskwatch_new(const struct plan *fs, struct maskwatch **out, char **cause)
{
	struct maskwatch *m;
	void *page;
	int r;

	*out = NULL;
	if (fs == NULL || fs->n_masks == 0)
		return 0;
	page = mmap(NULL, sizeof(struct maskwatch_seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		r = -errno;
		*cause =
			xasprintf("cannot map a shared page: %s", strerror(-r));
		return r;
	}
	m = xcalloc(1, sizeof(*m));
	m->seen = page;
	m->fd = m->timer = m->sandbox = -1;
	m->paths = xcalloc(fs->n_masks + 1, sizeof(*m->paths));
	m->ids = xcalloc(fs->n_masks, sizeof(*m->ids));
	for (size_t i = 0; i < fs->n_masks; i++) {
		m->paths[m->n] = xstrdup(fs->masks[i].path);
		m->ids[m->n++] = -1;
		if ((r = config_hold(m, &fs->masks[i], cause)) < 0) {
			maskwatch_free(m);
			return r;
		}
	}
	*out = m;
	return 0;
}

/* Stop every process of the sandbox's, now. */
static void
stop_sandbox(struct maskwatch *m)
{
	if (m->pid1) {
		kill(-1, SIGKILL);
		return;
	}
	/* bubblewrap's pid 1: its namespace ends with it. */
	if (m->sandbox >= 0) {
		syscall(SYS_pidfd_send_signal, m->sandbox, SIGKILL, NULL, 0);
		return;
	}
	/* The command first, then every process it left (their parent is
	 * this process, a subreaper, once theirs has died). */
	if (m->child > 0)
		kill(m->child, SIGKILL);
	monitor_end_orphans();
}

static int
table_read(int fd, char **table)
{
	size_t len;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	return fd_read_all(fd, MASKWATCH_TABLE_MAX, table, &len);
}

/*
 * bubblewrap's table, read anew each time: an open file shows the mounts
 * as seen from the root its process had at the open, and bwrap changes
 * its root once its view is built.  -ESRCH when the sandbox's pid 1 has
 * ended (its pid may name another process now).
 */
static int
bwrap_read(struct maskwatch *m, char **table)
{
	_cleanup_free_ char *path =
		xasprintf("/proc/%d/mountinfo", (int)m->sandbox_pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct pollfd p = { .fd = m->sandbox, .events = POLLIN };
	int r;

	if (fd < 0)
		r = errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
	else
		r = table_read(fd, table);
	/* Read before the check: a pid reused meanwhile is not taken for
	 * the sandbox's.  A read that failed may be pid 1's exit under way:
	 * its namespaces go before its end is signalled on the pidfd (the
	 * table's open then fails with EINVAL), so wait for that end a
	 * moment, on our own pidfd, before calling it a failure. */
	if (poll(&p, 1, r < 0 ? MASKWATCH_EXIT_WAIT_MS : 0) != 0)
		return -ESRCH;
	return r;
}

/* An open of bubblewrap's table failed: -ESRCH when its pid 1 ended
 * (waited for as in bwrap_read), else the open's -errno. */
static int
bwrap_ended(struct maskwatch *m)
{
	struct pollfd p = { .fd = m->sandbox, .events = POLLIN };
	int r = -errno;

	if (poll(&p, 1, MASKWATCH_EXIT_WAIT_MS) != 0)
		return -ESRCH;
	return r;
}

/* The mask at index i has gone: stop the sandbox, and say so at its
 * end (maskwatch_finish). */
static void
mask_gone(struct maskwatch *m, size_t i)
{
	snprintf(m->seen->path, sizeof(m->seen->path), "%s", m->paths[i]);
	m->seen->lost = 1;
	if (m->delay_ms > 0)
		usleep(m->delay_ms * 1000);
	stop_sandbox(m);
	maskwatch_disarm(m);
}

/* The table changed: a mask whose mount went stops the sandbox. */
static void
table_changed(void *arg)
{
	struct maskwatch *m = arg;
	_cleanup_free_ char *table = NULL;
	ssize_t gone;
	int r;

	r = m->sandbox >= 0 ? bwrap_read(m, &table) : table_read(m->fd, &table);
	if (r == -ESRCH && m->sandbox >= 0)
		return; /* bwrap's pid 1 has ended: the teardown */
	if (r < 0) {
		m->seen->lost = 2;
		stop_sandbox(m);
		maskwatch_disarm(m);
		return;
	}
	if ((gone = maskwatch_gone(table, m->ids, m->n)) >= 0)
		mask_gone(m, (size_t)gone);
}

void
maskwatch_mounted(struct maskwatch *m, const char *path, int mnt_fd)
{
	char *const *k;
	struct statx st;

	if (m == NULL || (k = bsearch(path, m->paths, m->n, sizeof(*m->paths),
				      path_cmpp)) == NULL)
		return;
	if (statx(mnt_fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		  &st) < 0 ||
	    !(st.stx_mask & STATX_MNT_ID) || st.stx_mnt_id > INT_MAX)
		m->ids[k - m->paths] = MASKWATCH_ID_UNKNOWN;
	else
		m->ids[k - m->paths] = (int)st.stx_mnt_id;
}

int
maskwatch_arm(struct maskwatch *m, bool pid1, char **cause)
{
	_cleanup_free_ char *table = NULL, *shown = NULL;
	unsigned delay;
	ssize_t gone;
	int r;

	if (m == NULL)
		return 0;
	m->pid1 = pid1;
	/* Read now: pid 1's environ becomes the command's at its spawn
	 * (CLONE_VM). */
	m->delay_ms = testhook_maskwatch_delay_ms();
	if ((delay = testhook_maskwatch_arm_delay_ms()) > 0)
		usleep(delay * 1000);
	m->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	r = m->fd < 0 ? -errno : table_read(m->fd, &table);
	if (r < 0) {
		*cause = xasprintf("cannot read the sandbox's mount table "
				   "(/proc/self/mountinfo), which llwrap "
				   "watches for a mask the host removes: %s",
				   strerror(-r));
		maskwatch_disarm(m);
		return r;
	}
	/* Each mask's mount, as the view's builder saw it attached
	 * (maskwatch_mounted), must be there still: one the host removed
	 * before this look is as one removed while the command runs. */
	for (size_t i = 0; i < m->n; i++) {
		if (m->ids[i] != MASKWATCH_ID_UNKNOWN)
			continue;
		shown = text_shown(m->paths[i]);
		*cause = xasprintf("cannot tell which mount is the mask on %s, "
				   "so a host that removes it could not be "
				   "seen",
				   shown);
		maskwatch_disarm(m);
		return -EIO;
	}
	if ((gone = maskwatch_gone(table, m->ids, m->n)) >= 0) {
		shown = text_shown(m->paths[gone]);
		*cause = xasprintf("%s was replaced on the host while the "
				   "sandbox's view was being built, which "
				   "removed its mask; nothing was run; run it "
				   "again",
				   shown);
		maskwatch_disarm(m);
		return -ESTALE;
	}
	if ((r = monitor_watch_mounts(m->fd, table_changed, m)) < 0) {
		*cause = xasprintf("cannot watch the sandbox's mount table: "
				   "the monitor's loop watches %d descriptors "
				   "already",
				   MONITOR_MAX_WATCH);
		close(m->fd);
		m->fd = -1;
		return r;
	}
	return 0;
}

/* The first child of pid (/proc/PID/task/PID/children): 0 when it has
 * none, -1 when pid is gone. */
static pid_t
first_child(pid_t pid)
{
	_cleanup_free_ char *path =
		xasprintf("/proc/%d/task/%d/children", (int)pid, (int)pid);
	_cleanup_free_ char *line = file_read_line(path, 64);

	if (line == NULL)
		return -1;
	return (pid_t)atoi(line);
}

/*
 * The timer, every millisecond: bwrap's child (the sandbox's pid 1),
 * then its own child (the command, forked once bwrap's view is built:
 * the table is read only then, as bwrap changes its root on the way and
 * a table read meanwhile shows a part), then the table is watched.  At
 * most 10 s, then bwrap is stopped (not watched, not run).
 */
static void
bwrap_look(void *arg)
{
	struct maskwatch *m = arg;
	_cleanup_free_ char *path = NULL, *table = NULL;
	uint64_t ticks;
	pid_t pid;
	int r;

	if (read(m->timer, &ticks, sizeof(ticks)) < 0) {
		/* Nothing: the next tick. */
	}
	if (m->sandbox < 0) {
		if ((pid = first_child(m->bwrap)) < 0)
			goto done; /* bwrap has ended */
		if (pid > 0) {
			m->sandbox = sys_pidfd_open(pid, 0);
			m->sandbox_pid = pid;
			if (m->sandbox < 0)
				goto failed;
		}
	}
	if (m->sandbox < 0 || (pid = first_child(m->sandbox_pid)) == 0) {
		if (++m->looks < 10000)
			return;
		goto failed;
	}
	if (pid < 0)
		goto done; /* the sandbox has ended */
	/* The descriptor only tells when the namespace's mounts change
	 * (and holds the namespace until the watch ends: its teardown is
	 * not seen); each look opens the table anew (bwrap_read). */
	path = xasprintf("/proc/%d/mountinfo", (int)m->sandbox_pid);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	/* A short command may have ended already, and pid 1 with it:
	 * its table is gone then, which is no failure (bwrap_read). */
	if ((r = m->fd < 0 ? bwrap_ended(m) : bwrap_read(m, &table)) == -ESRCH)
		goto done;
	if (r < 0 || monitor_watch_mounts(m->fd, table_changed, m) < 0)
		goto failed;
	/* bwrap mounts every mask: one not there now was removed since. */
	maskwatch_mount_ids(table, m->paths, m->n, m->ids);
	for (size_t i = 0; i < m->n; i++) {
		if (m->ids[i] >= 0)
			continue;
		mask_gone(m, i); /* its timer too */
		return;
	}
	goto done;
failed:
	m->seen->lost = 2;
	kill(m->bwrap, SIGKILL);
done:
	monitor_unwatch(m->timer);
	close(m->timer);
	m->timer = -1;
}

int
maskwatch_arm_bwrap(struct maskwatch *m, pid_t bwrap, char **cause)
{
	struct itimerspec its = {
		.it_interval = { .tv_nsec = 1000000 },
		.it_value = { .tv_nsec = 1000000 },
	};
	unsigned delay;
	int r;

	if (m == NULL)
		return 0;
	m->bwrap = bwrap;
	m->delay_ms = testhook_maskwatch_delay_ms();
	/* (Not a sleep: bwrap's start waits for this process.) */
	if ((delay = testhook_maskwatch_arm_delay_ms()) > 0) {
		its.it_value.tv_sec = delay / 1000;
		its.it_value.tv_nsec = (long)(delay % 1000) * 1000000;
	}
	m->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (m->timer < 0 || timerfd_settime(m->timer, 0, &its, NULL) < 0) {
		r = -errno;
		*cause = xasprintf("cannot start the timer that finds "
				   "bubblewrap's sandbox for the watch on its "
				   "masks: %s",
				   strerror(-r));
		if (m->timer >= 0)
			close(m->timer);
		m->timer = -1;
		return r;
	}
	monitor_watch(m->timer, bwrap_look, m);
	return 0;
}

void
maskwatch_child(struct maskwatch *m, pid_t child)
{
	if (m != NULL)
		m->child = child;
}

void
maskwatch_disarm(struct maskwatch *m)
{
	if (m == NULL)
		return;
	if (m->timer >= 0) {
		monitor_unwatch(m->timer);
		close(m->timer);
		m->timer = -1;
	}
	if (m->fd < 0)
		return;
	monitor_unwatch(m->fd);
	close(m->fd);
	m->fd = -1;
}

/* Move the configuration in c's directory aside, never over anything. */
static void
config_aside(const struct maskwatch_config *c, const char *why, char ***lines)
{
	_cleanup_free_ char *shown = text_shown(c->path);
	int e = EEXIST;

	for (int i = 0; i < 8 && e == EEXIST; i++) {
		_cleanup_free_ char *to = NULL, *as = NULL;
		uint32_t rnd = 0;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			e = errno;
			break;
		}
		to = xasprintf("config.llwrap-blocked-%lld-%08x",
			       (long long)time(NULL), (unsigned)rnd);
		if (syscall(SYS_renameat2, c->dirfd, "config", c->dirfd, to,
			    RENAME_NOREPLACE) == 0) {
			as = text_shown(to);
			strv_push_take(lines,
				       xasprintf("llwrap: %s %s while its "
						 "mask was gone: moved aside "
						 "to %s beside it; review it "
						 "before putting it back",
						 shown, why, as));
			return;
		}
		e = errno;
	}
	strv_push_take(lines,
		       xasprintf("llwrap: error: %s %s while its mask was "
				 "gone, and cannot be moved aside: %s; review "
				 "it before git runs there",
				 shown, why, strerror(e)));
}

/* One configuration after the run. */
static void
config_check(const struct maskwatch_config *c, char ***lines)
{
	_cleanup_free_ char *text = NULL, *shown = NULL, *why = NULL;
	_cleanup_free_ char *unsafe = NULL, *before = NULL;
	size_t len;
	int r = config_read(c->dirfd, &text, &len);

	if (r == -ENOENT)
		return;
	if (r < 0) {
		why = xasprintf("is not a readable file (%s)", strerror(-r));
		config_aside(c, why, lines);
		return;
	}
	if (len == c->len && memcmp(text, c->text, len) == 0)
		return;
	if ((unsafe = gitguard_config_unsafe(text)) != NULL) {
		before = gitguard_config_unsafe(c->text);
		if (before != NULL && strcmp(before, unsafe) == 0) {
			/* The start's set it already: what changed cannot
			 * be told from it. */
			shown = text_shown(c->path);
			strv_push_take(
				lines,
				xasprintf("llwrap: %s changed while its mask "
					  "was gone; it set %s at the start "
					  "too, so llwrap cannot tell what the "
					  "command added: review it before git "
					  "runs there",
					  shown, unsafe));
			return;
		}
	} else if ((unsafe = gitguard_config_rerouted(c->text, text)) == NULL) {
		return; /* the host's own change, running nothing */
	}
	shown = text_shown(unsafe);
	why = xasprintf("changed and sets %s", shown);
	config_aside(c, why, lines);
}

char **
maskwatch_finish(struct maskwatch *m)
{
	_cleanup_free_ char *shown = NULL;
	char **lines = NULL;

	if (m == NULL || m->seen->lost == 0)
		return NULL;
	if (m->seen->lost == 2) {
		strv_push(&lines,
			  "llwrap: error: the sandbox's mount table could not "
			  "be read while the command ran, so a mask the host "
			  "removed could not be seen; the sandbox was stopped; "
			  "run it again");
	} else {
		shown = text_shown(m->seen->path);
		strv_push_take(&lines,
			       xasprintf("llwrap: %s was replaced on the host "
					 "while the sandbox ran, which "
					 "removed its mask; the sandbox was "
					 "stopped so that it could not read "
					 "or write the new file; run it again",
					 shown));
	}
	for (size_t i = 0; i < m->n_cfg; i++)
		config_check(&m->cfg[i], &lines);
	return lines;
}

void
maskwatch_free(struct maskwatch *m)
{
	if (m == NULL)
		return;
	maskwatch_disarm(m);
	for (size_t i = 0; i < m->n_cfg; i++) {
		free(m->cfg[i].path);
		free(m->cfg[i].text);
		close(m->cfg[i].dirfd);
	}
	free(m->cfg);
	if (m->sandbox >= 0)
		close(m->sandbox);
	strv_free(m->paths);
	free(m->ids);
	munmap(m->seen, sizeof(*m->seen));
	free(m);
}
