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
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/openat2.h>
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
	int lost;	     /* enum maskwatch_lost */
	char path[PATH_MAX]; /* the first mask that went (or denied path) */
};

enum maskwatch_lost {
	LOST_NONE,
	LOST_MASK,	 /* a mask went */
	LOST_TABLE,	 /* the table (or the names' watch) went unread */
	LOST_ABSENT,	 /* a denied path missing at the start appeared */
	LOST_ABSENT_WAY, /* ... or a directory on its way */
	LOST_ABSENT_DIR, /* ... or the directory watched for it moved */
};

/* A denied path that did not exist at the start (plan->absent): the
 * nearest directory on its way that did, watched for the next name. */
struct maskwatch_absent {
	char *path;
	char *name;	/* the name in that directory */
	size_t dir_len; /* that directory's path, path's first bytes */
	int dir;	/* its index in dirs */
	bool unseen;	/* the view does not show that directory */
};

/* What a read-only mask held, looked at again when a mask went: the
 * entry's identity at the start (a git configuration's content too). */
struct maskwatch_held {
	char *path;
	const char *name; /* its last name, in path */
	int dirfd;	  /* its directory: the watch's (dirs), not its own */
	bool exists;
	dev_t dev;
	ino_t ino;
	bool config; /* a repository's config (a HEAD beside it) */
	char *text;  /* ... and its content */
	size_t len;
};

struct maskwatch {
	char **paths; /* the masks' */
	int *ids;     /* their mounts (maskwatch_mounted, or bwrap's table once
		       * its view is built); -1: not in the view */
	/* ... and those mounts' unique ids (Linux 6.8; 0: not told), which
	 * the first look asks statmount about (masks_gone_mounted) */
	uint64_t *uids;
	size_t n;
	bool *deny;  /* a denied path's mask (else read-only) */
	int *dir_of; /* its directory's index in dirs, or -1 */
	/* The masks' directories (O_PATH, opened at the start), watched
	 * for a masked name the host renames away (ino, wds) */
	int *dirs;
	int *wds;
	size_t n_dirs;
	int ino;
	struct maskwatch_absent *absent;
	size_t n_absent;
	/* Above each missing denied path's watched directory, every
	 * directory but "/", watched for its own move: the host's rename of
	 * one takes the watched directory with it, and a new one made at
	 * its path is not watched (absent_ways). */
	char **way_paths;
	int *way_fds, *way_wds;
	size_t n_ways;
	struct maskwatch_held *held;
	size_t n_held;
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

/* The mask at the mount point of one line of a mount table (its id in
 * *id), or NULL. */
static char *const *
line_mask(const char *line, char *const *paths, size_t n, int *id)
{
	char f[32], point[PATH_MAX + 1];
	const char *s = line;
	char *const *k;

	/* id, parent id, major:minor, root, mount point */
	if (mountinfo_field(&s, f, sizeof(f)) == NULL ||
	    mountinfo_field(&s, point, sizeof(point)) == NULL ||
	    mountinfo_field(&s, point, sizeof(point)) == NULL ||
	    mountinfo_field(&s, point, sizeof(point)) == NULL ||
	    mountinfo_field(&s, point, sizeof(point)) == NULL ||
	    (k = bsearch(point, paths, n, sizeof(*paths), path_cmpp)) == NULL)
		return NULL;
	*id = atoi(f);
	return k;
}

void
maskwatch_mount_ids(const char *table, char *const *paths, size_t n, int *ids)
{
	char *const *k;
	int id;

	for (size_t i = 0; i < n; i++)
		ids[i] = -1;
	/* A later line at the same point is a mount on top. */
	for (const char *line = table; line != NULL && *line != '\0';) {
		const char *nl = strchr(line, '\n');

		if ((k = line_mask(line, paths, n, &id)) != NULL)
			ids[k - paths] = id;
		line = nl != NULL ? nl + 1 : NULL;
	}
}

ssize_t
maskwatch_gone(const char *table, char *const *paths, const int *ids, size_t n)
{
	_cleanup_free_ bool *there = xcalloc(n + 1, sizeof(*there));
	char *const *k;
	int id;

	/* A mask is there while its mount is, at its own path: a mount
	 * moves with the entry the host renames away (an editor's backup
	 * by rename), and the path then shows the host's new file. */
	for (const char *line = table; line != NULL && *line != '\0';) {
		const char *nl = strchr(line, '\n');

		if ((k = line_mask(line, paths, n, &id)) != NULL &&
		    ids[k - paths] == id)
			there[k - paths] = true;
		line = nl != NULL ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (ids[i] >= 0 && !there[i])
			return (ssize_t)i;
	return -1;
}

/* The text of the git configuration name in dirfd: 0, -ENOENT, or
 * -errno (a link, a FIFO or a directory there: -ELOOP, -EINVAL,
 * -EISDIR). */
static int
config_read(int dirfd, const char *name, char **text, size_t *len)
{
	_cleanup_close_ int fd = fd_open_regular(dirfd, name, O_NOFOLLOW);
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

/* The directory of path, opened without following a link on the way
 * (the plan's paths are real): the descriptor, or -errno. */
static int
held_dir(const char *path)
{
	_cleanup_free_ char *dir =
		xstrndup(path, (size_t)(strrchr(path, '/') - path));
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, *dir != '\0' ? dir : "/",
			      &how, sizeof(how));

	return fd < 0 ? -errno : fd;
}

/*
 * A read-only mask k: its entry's identity at the start (and a
 * repository's config's content), to be looked at again when a mask
 * went (held_check).  A file with more than one name is refused: its
 * mask covers one name, and the command could write it through another
 * (a hard link an earlier run made, or one made to git's config.lock).
 */
static int
held_take(struct maskwatch *m, const struct plan_mask *k, int at, char **cause)
{
	_cleanup_free_ char *shown = text_shown(k->path);
	struct maskwatch_held h = { 0 };
	struct stat st;
	int r;

	if (k->pin || strrchr(k->path, '/') == NULL ||
	    (k->access != LLW_ACCESS_RO && k->access != LLW_ACCESS_RX))
		return 0;
	/* Its directory as dirs_open() opened it, shared with the masks
	 * beside it (one descriptor a directory, not a mask: 10,000 masks
	 * in one directory are one).  None: nothing there, nothing
	 * masked. */
	if (at < 0)
		return 0;
	h.dirfd = m->dirs[at];
	h.path = xstrdup(k->path);
	h.name = strrchr(h.path, '/') + 1;
	m->held = xreallocarray(m->held, m->n_held + 1, sizeof(*m->held));
	if (fstatat(h.dirfd, h.name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		h.exists = true;
		h.dev = st.st_dev;
		h.ino = st.st_ino;
	} else if (errno != ENOENT) {
		r = -errno;
		*cause = xasprintf("cannot look at %s, which a read-only mask "
				   "protects: %s",
				   shown, strerror(-r));
		goto fail;
	}
	if (h.exists && S_ISREG(st.st_mode) && st.st_nlink > 1) {
		_cleanup_free_ char *dir =
			xstrndup(h.path, (size_t)(h.name - 1 - h.path));
		_cleanup_free_ char *in = text_shown(*dir ? dir : "/");

		r = -EMLINK;
		*cause = xasprintf(
			"%s has %ju names (hard links), and its read-only "
			"mask covers this one only: the command could change "
			"it through another; find them with `find %s -xdev "
			"-samefile %s`, then remove the other names, or make "
			"it a file of its own: `cp -p %s %s.new && mv %s.new "
			"%s`",
			shown, (uintmax_t)st.st_nlink, in, shown, shown, shown,
			shown, shown);
		goto fail;
	}
	h.config = h.exists && S_ISREG(st.st_mode) &&
		   strcmp(h.name, "config") == 0 &&
		   faccessat(h.dirfd, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	if (h.config &&
	    (r = config_read(h.dirfd, h.name, &h.text, &h.len)) < 0) {
		*cause = xasprintf("cannot read %s, a repository's "
				   "configuration: %s",
				   shown, strerror(-r));
		goto fail;
	}
	m->held[m->n_held++] = h;
	return 0;
fail:
	free(h.path);
	return r;
}

static int
dir_cmp(const void *a, const void *b, void *arg)
{
	char *const *paths = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const char *p = paths[x], *q = paths[y];
	size_t n = (size_t)(strrchr(p, '/') - p),
	       k = (size_t)(strrchr(q, '/') - q);
	int c = memcmp(p, q, n < k ? n : k);

	return c != 0 ? c : (n > k) - (n < k);
}

/*
 * The directory of each mask, opened once (masks sorted by their
 * directory's path share it): the host may rename a masked entry away
 * (an editor's backup by rename), which moves its mount with it and
 * changes no mount table, so the watch looks for that name's moves in
 * these directories (dirs_watch).
 */
static int
dirs_open(struct maskwatch *m, char **cause)
{
	_cleanup_free_ size_t *order = xcalloc(m->n + 1, sizeof(*order));

	m->dir_of = xcalloc(m->n + 1, sizeof(*m->dir_of));
	m->dirs = xcalloc(m->n + m->n_absent + 1, sizeof(*m->dirs));
	for (size_t i = 0; i < m->n; i++) {
		order[i] = i;
		m->dir_of[i] = -1;
	}
	qsort_r(order, m->n, sizeof(*order), dir_cmp, m->paths);
	for (size_t j = 0; j < m->n; j++) {
		size_t i = order[j];
		int fd;

		if (strrchr(m->paths[i], '/') == NULL)
			continue;
		if (j > 0 && m->dir_of[order[j - 1]] >= 0 &&
		    dir_cmp(&order[j - 1], &order[j], m->paths) == 0) {
			m->dir_of[i] = m->dir_of[order[j - 1]];
			continue;
		}
		if ((fd = held_dir(m->paths[i])) == -ENOENT)
			continue; /* nothing there: nothing masked */
		if (fd < 0) {
			_cleanup_free_ char *shown = text_shown(m->paths[i]);

			*cause = xasprintf(
				"cannot open the directory of %s, which a mask "
				"covers: %s",
				shown,
				fd == -ELOOP ? "a symbolic link is on the way"
					     : strerror(-fd));
			return fd;
		}
		m->dir_of[i] = (int)m->n_dirs;
		m->dirs[m->n_dirs++] = fd;
	}
	return 0;
}

/*
 * The nearest directory on the way to a denied path that does not exist
 * (a's), opened as dirs_open does, and the name in it that would lead
 * there: that name made during the run stops it (names_changed).  A
 * file on the way (ENOTDIR) is as a missing directory: what is beneath
 * needs a directory made at its name.
 */
static int
absent_open(struct maskwatch *m, struct maskwatch_absent *a, char **cause)
{
	_cleanup_free_ char *p = xstrdup(a->path);
	_cleanup_free_ char *shown = NULL;
	char *slash;
	size_t n = (size_t)(strrchr(p, '/') - p);
	int fd;

	/* The home's secrets share a few directories: one descriptor and
	 * one watch each. */
	for (size_t k = 0; k < (size_t)(a - m->absent); k++)
		if (m->absent[k].dir_len == n &&
		    strncmp(m->absent[k].path, p, n + 1) == 0) {
			a->name = xstrdup(p + n + 1);
			a->dir_len = n;
			a->dir = m->absent[k].dir;
			return 0;
		}
	while ((fd = held_dir(p)) == -ENOENT || fd == -ENOTDIR) {
		if ((slash = strrchr(p, '/')) == NULL || slash == p)
			break;
		*slash = '\0';
	}
	/* Not this user's to look into: nor the command's, which runs as
	 * this user with fewer rights. */
	if (fd == -EACCES) {
		a->dir_len = SIZE_MAX;
		a->dir = -1;
		a->unseen = true;
		return 0;
	}
	if (fd < 0) {
		shown = text_shown(a->path);
		*cause =
			xasprintf("cannot open a directory on the way to %s, "
				  "which is denied and does not exist: %s",
				  shown,
				  fd == -ELOOP ? "a symbolic link is on the way"
					       : strerror(-fd));
		return fd;
	}
	a->name = xstrdup(strrchr(p, '/') + 1);
	a->dir_len = (size_t)(strrchr(p, '/') - p);
	a->dir = (int)m->n_dirs;
	m->dirs[m->n_dirs++] = fd;
	return 0;
}

/* The directories above the one watched for a (absent_open), opened
 * as it is, each once, for their own move. */
static int
absent_ways(struct maskwatch *m, const struct maskwatch_absent *a, char **cause)
{
	_cleanup_free_ char *p = NULL;
	char *slash;

	if (a->dir < 0 || a->dir_len == 0)
		return 0;
	p = xstrndup(a->path, a->dir_len);
	while ((slash = strrchr(p, '/')) != NULL && slash != p) {
		int fd;

		*slash = '\0';
		if (strv_contains(m->way_paths, p))
			continue;
		/* held_dir opens the directory of what it is given. */
		slash = xasprintf("%s/.", p);
		fd = held_dir(slash);
		free(slash);
		if (fd < 0) {
			_cleanup_free_ char *shown = text_shown(a->path);

			*cause = xasprintf(
				"cannot open a directory on the way to %s, "
				"which is denied and does not exist: %s",
				shown,
				fd == -ELOOP ? "a symbolic link is on the way"
					     : strerror(-fd));
			return fd;
		}
		strv_push(&m->way_paths, p);
		m->way_fds = xreallocarray(m->way_fds, m->n_ways + 1,
					   sizeof(*m->way_fds));
		m->way_fds[m->n_ways++] = fd;
	}
	return 0;
}

/* Whether a denied path missing at the start is there already: its
 * name, or a directory at a name on its way (a file there is what was
 * on the way at the start). */
static bool
absent_there(const struct maskwatch *m, const struct maskwatch_absent *a)
{
	struct stat st;

	if (a->dir < 0)
		return false;
	if (fstatat(m->dirs[a->dir], a->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno != ENOENT && errno != EACCES;
	return S_ISDIR(st.st_mode) ||
	       strcmp(a->name, strrchr(a->path, '/') + 1) == 0;
}

/* Watch the masks' directories for a masked name the host moves away
 * (dirs_open), from the start: a move before the table is read is
 * seen.  The instance is made here, before any fork, so that the
 * process which owns the run holds it too (fd_hold) and the watcher's
 * close is not the last (the kernel's wait for a grace period). */
static int
dirs_watch(struct maskwatch *m, char **cause)
{
	int r;

	if (m->n_dirs == 0)
		return 0;
	m->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->ino < 0) {
		r = -errno;
		goto fail;
	}
	m->wds = xcalloc(m->n_dirs, sizeof(*m->wds));
	for (size_t i = 0; i < m->n_dirs; i++) {
		char fdpath[sizeof("/proc/self/fd/") + 12];
		/* (A directory both a mask's and on the way to a missing
		 * denied path is watched for both: IN_MASK_ADD.) */
		uint32_t mask = IN_MOVED_FROM | IN_DELETE | IN_MOVE_SELF |
				IN_DELETE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK |
				IN_MASK_ADD;

		for (size_t k = 0; k < m->n_absent; k++)
			if (m->absent[k].dir == (int)i)
				mask |= IN_CREATE | IN_MOVED_TO;
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d",
			 m->dirs[i]);
		m->wds[i] = inotify_add_watch(m->ino, fdpath, mask);
		if (m->wds[i] < 0) {
			r = -errno;
			goto fail;
		}
	}
	m->way_wds = xcalloc(m->n_ways + 1, sizeof(*m->way_wds));
	for (size_t i = 0; i < m->n_ways; i++) {
		char fdpath[sizeof("/proc/self/fd/") + 12];

		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d",
			 m->way_fds[i]);
		m->way_wds[i] =
			inotify_add_watch(m->ino, fdpath,
					  IN_MOVE_SELF | IN_DELETE_SELF |
						  IN_ONLYDIR | IN_MASK_ADD);
		if (m->way_wds[i] < 0) {
			r = -errno;
			goto fail;
		}
	}
	return 0;
fail:
	*cause = xasprintf("cannot watch the directories of the masks for "
			   "one the host renames away (and for a denied path "
			   "that appears): %s%s",
			   strerror(-r),
			   r == -ENOSPC || r == -EMFILE
				   ? " (raise fs.inotify.max_user_watches or "
				     "max_user_instances)"
				   : "");
	if (m->ino >= 0)
		close(m->ino);
	m->ino = -1;
	return r;
}

int
maskwatch_new(const struct plan *fs, struct maskwatch **out, char **cause)
{
	struct maskwatch *m;
	void *page;
	int r;

	*out = NULL;
	if (fs == NULL || (fs->n_masks == 0 && fs->absent == NULL))
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
	m->fd = m->timer = m->sandbox = m->ino = -1;
	m->paths = xcalloc(fs->n_masks + 1, sizeof(*m->paths));
	m->ids = xcalloc(fs->n_masks, sizeof(*m->ids));
	m->uids = xcalloc(fs->n_masks, sizeof(*m->uids));
	m->deny = xcalloc(fs->n_masks, sizeof(*m->deny));
	for (size_t i = 0; i < fs->n_masks; i++) {
		m->paths[m->n] = xstrdup(fs->masks[i].path);
		m->deny[m->n] = fs->masks[i].access == LLW_ACCESS_DENY;
		m->ids[m->n++] = -1;
	}
	m->n_absent = strv_length(fs->absent);
	m->absent = xcalloc(m->n_absent + 1, sizeof(*m->absent));
	for (size_t i = 0; i < m->n_absent; i++)
		m->absent[i].path = xstrdup(fs->absent[i]);
	if ((r = dirs_open(m, cause)) < 0) {
		maskwatch_free(m);
		return r;
	}
	for (size_t i = 0; i < fs->n_masks; i++)
		if ((r = held_take(m, &fs->masks[i], m->dir_of[i], cause)) <
		    0) {
			maskwatch_free(m);
			return r;
		}
	for (size_t i = 0; i < m->n_absent; i++)
		if ((r = absent_open(m, &m->absent[i], cause)) < 0 ||
		    (r = absent_ways(m, &m->absent[i], cause)) < 0) {
			maskwatch_free(m);
			return r;
		}
	if ((r = dirs_watch(m, cause)) < 0) {
		maskwatch_free(m);
		return r;
	}
	/* Watched from here: one made since the plan was compiled is not
	 * masked. */
	for (size_t i = 0; i < m->n_absent; i++) {
		_cleanup_free_ char *shown = NULL;

		if (!absent_there(m, &m->absent[i]))
			continue;
		shown = text_shown(m->absent[i].path);
		*cause = xasprintf("%s, which is denied, appeared on the host "
				   "while the sandbox was being set up, too "
				   "late to be masked; nothing was run; run it "
				   "again",
				   shown);
		maskwatch_free(m);
		return -ESTALE;
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
	m->seen->lost = LOST_MASK;
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
		m->seen->lost = LOST_TABLE;
		stop_sandbox(m);
		maskwatch_disarm(m);
		return;
	}
	if ((gone = maskwatch_gone(table, m->paths, m->ids, m->n)) >= 0)
		mask_gone(m, (size_t)gone);
}

/* A denied path missing at the start appeared (how: enum
 * maskwatch_lost): stop the sandbox, and say so at its end. */
static void
absent_lost(struct maskwatch *m, const struct maskwatch_absent *a, int how)
{
	snprintf(m->seen->path, sizeof(m->seen->path), "%s", a->path);
	m->seen->lost = how;
	stop_sandbox(m);
	maskwatch_disarm(m);
}

/* What one event in a watched directory means for a denied path
 * missing at the start: LOST_ABSENT when its name was made there (a
 * file, a directory, a rename or a hard link; LOST_ABSENT_WAY for a
 * directory's name on its way), LOST_ABSENT_DIR when
 * the directory itself moved or went (a new one at its path is not
 * watched), else LOST_NONE.  *a is the path's. */
static int
absent_event(const struct maskwatch *m, const struct inotify_event *e,
	     const struct maskwatch_absent **a)
{
	/* A directory above one watched moved: what is beneath it too. */
	for (size_t j = 0;
	     (e->mask & (IN_MOVE_SELF | IN_DELETE_SELF)) && j < m->n_ways; j++)
		for (size_t k = 0; m->way_wds[j] == e->wd && k < m->n_absent;
		     k++) {
			_cleanup_free_ char *dir = NULL;

			*a = &m->absent[k];
			if ((*a)->unseen || (*a)->dir < 0)
				continue;
			dir = xstrndup((*a)->path, (*a)->dir_len);
			if (path_under(dir, m->way_paths[j]))
				return LOST_ABSENT_DIR;
		}
	for (size_t k = 0; k < m->n_absent; k++) {
		*a = &m->absent[k];
		if ((*a)->unseen || m->wds[(*a)->dir] != e->wd)
			continue;
		if (e->mask &
		    (IN_MOVE_SELF | IN_DELETE_SELF | IN_IGNORED | IN_UNMOUNT))
			return LOST_ABSENT_DIR;
		if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && e->len > 0 &&
		    strcmp((*a)->name, e->name) == 0)
			return strcmp((*a)->name,
				      strrchr((*a)->path, '/') + 1) == 0
				       ? LOST_ABSENT
				       : LOST_ABSENT_WAY;
	}
	return LOST_NONE;
}

/* An event in a mask's directory: a masked name moved away, the
 * directory itself moved (the masks beneath move with it), or the
 * queue's overflow has the table looked at again; a denied path missing
 * at the start that appears stops the sandbox (absent_event). */
static void
names_changed(void *arg)
{
	struct maskwatch *m = arg;
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct maskwatch_absent *a;
	bool look = false, over = false;
	ssize_t n;
	int how;

	while ((n = read(m->ino, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const void *)p;

			p += sizeof(*e) + e->len;
			if (e->mask & IN_Q_OVERFLOW) {
				look = over = true;
				continue;
			}
			if ((how = absent_event(m, e, &a)) != LOST_NONE) {
				absent_lost(m, a, how);
				return;
			}
			if (e->mask & (IN_MOVE_SELF | IN_DELETE_SELF))
				look = true;
			for (size_t i = 0; !look && i < m->n; i++)
				look = m->ids[i] >= 0 && m->dir_of[i] >= 0 &&
				       m->wds[m->dir_of[i]] == e->wd &&
				       e->len > 0 &&
				       strcmp(strrchr(m->paths[i], '/') + 1,
					      e->name) == 0;
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		m->seen->lost = LOST_TABLE;
		stop_sandbox(m);
		maskwatch_disarm(m);
		return;
	}
	/* Events were lost: a denied path's is told by its name there. */
	for (size_t k = 0; over && k < m->n_absent; k++)
		if (!m->absent[k].unseen && absent_there(m, &m->absent[k])) {
			absent_lost(m, &m->absent[k], LOST_ABSENT);
			return;
		}
	if (look)
		table_changed(m);
}

/*
 * Which missing denied paths the view shows, once it is built: the
 * directory watched for each must be the host's own there (a bind, or
 * the host's tree), from root (the view's "/").  Where the view has
 * another (a sealed view's skeleton of the home, a private /tmp) or
 * none, a name the host makes is not seen by the command: not watched.
 */
static bool
absent_shown(const struct maskwatch *m, const struct maskwatch_absent *a,
	     int root)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_free_ char *dir =
		a->dir_len > 0 ? xstrndup(a->path, a->dir_len) : xstrdup("/");
	_cleanup_close_ int fd =
		(int)syscall(SYS_openat2, root, dir, &how, sizeof(how));
	struct stat host, view;

	return fd >= 0 && fstat(fd, &view) == 0 &&
	       fstat(m->dirs[a->dir], &host) == 0 &&
	       view.st_dev == host.st_dev && view.st_ino == host.st_ino;
}

static void
absent_view(struct maskwatch *m, int root)
{
	for (size_t k = 0; k < m->n_absent; k++)
		if (m->absent[k].dir >= 0)
			m->absent[k].unseen =
				!absent_shown(m, &m->absent[k], root);
}

int
maskwatch_inotify(const struct maskwatch *m)
{
	return m != NULL ? m->ino : -1;
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
	if (statx(mnt_fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  LLW_STATX_MNT_ID_UNIQUE, &st) == 0 &&
	    (st.stx_mask & LLW_STATX_MNT_ID_UNIQUE))
		m->uids[k - m->paths] = st.stx_mnt_id;
}

/*
 * maskwatch_gone() without reading the table (Linux 6.8): each mask's
 * mount in the view, by the unique id its builder saw it attached with
 * (maskwatch_mounted), asked for its mount point (statmount, which
 * looks in the caller's mount namespace): a mount gone (ENOENT: the
 * host replaced the entry under it) or at another path (the host
 * renamed it away) is gone, as the table would show it.  The first gone
 * one's index, -1 when none, or MASKS_UNTOLD where a mount cannot be
 * asked (a kernel before 6.8, an id not told, a reply not understood):
 * the table is read then.  A mask's mount point is its path, which is
 * at most PATH_MAX bytes.
 */
#define MASKS_UNTOLD (-2)
static ssize_t
masks_gone_mounted(const struct maskwatch *m)
{
	union {
		struct llw_statmount s;
		char b[sizeof(struct llw_statmount) + PATH_MAX + 1];
	} u;
	const size_t at = offsetof(struct llw_statmount, str);

	if (testhook_no_statmount())
		return MASKS_UNTOLD;
	for (size_t i = 0; i < m->n; i++) {
		struct llw_mnt_id_req req = {
			.size = sizeof(req),
			.mnt_id = m->uids[i],
			.param = LLW_STATMOUNT_MNT_POINT,
		};
		const char *point;

		if (m->ids[i] < 0)
			continue;
		if (m->uids[i] == 0)
			return MASKS_UNTOLD;
		if (sys_statmount(&req, &u.s, sizeof(u), 0) < 0)
			return errno == ENOENT ? (ssize_t)i : MASKS_UNTOLD;
		if (!(u.s.mask & LLW_STATMOUNT_MNT_POINT) ||
		    u.s.size > sizeof(u) || u.s.size <= at ||
		    u.s.mnt_point >= u.s.size - at ||
		    memchr(u.s.str + u.s.mnt_point, '\0',
			   u.s.size - at - u.s.mnt_point) == NULL)
			return MASKS_UNTOLD;
		point = u.s.str + u.s.mnt_point;
		if (strcmp(point, m->paths[i]) != 0)
			return (ssize_t)i;
	}
	return -1;
}

int
maskwatch_arm(struct maskwatch *m, bool pid1, char **cause)
{
	_cleanup_free_ char *table = NULL, *shown = NULL;
	unsigned delay;
	ssize_t gone = -1;
	int r;

	if (m == NULL)
		return 0;
	m->pid1 = pid1;
	/* Read now: pid 1's environ becomes the command's at its spawn
	 * (CLONE_VM). */
	m->delay_ms = testhook_maskwatch_delay_ms();
	if ((delay = testhook_maskwatch_arm_delay_ms()) > 0)
		usleep(delay * 1000);
	if (m->ino >= 0)
		monitor_watch(m->ino, names_changed, m);
	/* Opened first: a change of the mounts after the open wakes the
	 * watch (its poll), one before it is seen by the look below. */
	m->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	r = m->fd < 0 ? -errno : 0;
	/* Looked at without the table where the kernel can tell each
	 * mask's mount (statmount, Linux 6.8): reading the whole table of
	 * the view (~70 mounts) took 0.18 ms on the start-up's path. */
	if (r == 0 && (gone = masks_gone_mounted(m)) == MASKS_UNTOLD)
		r = table_read(m->fd, &table);
	if (r < 0) {
		*cause = xasprintf("cannot read the sandbox's mount table "
				   "(/proc/self/mountinfo), which llwrap "
				   "watches for a mask the host removes: %s",
				   strerror(-r));
		maskwatch_disarm(m);
		return r;
	}
	if (m->n_absent > 0) {
		_cleanup_close_ int root =
			open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (root >= 0)
			absent_view(m, root);
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
	if (table != NULL)
		gone = maskwatch_gone(table, m->paths, m->ids, m->n);
	if (gone >= 0) {
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
	_cleanup_free_ char *path = NULL, *table = NULL, *cause = NULL;
	_cleanup_close_ int root = -1;
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
	if (m->ino >= 0)
		monitor_watch(m->ino, names_changed, m);
	/* Its root, for the missing denied paths its view shows (opened
	 * before the pidfd's look in bwrap_read: that pid was pid 1's;
	 * unopened, every one stays watched). */
	path = xasprintf("/proc/%d/root", (int)m->sandbox_pid);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(path);
	path = xasprintf("/proc/%d/mountinfo", (int)m->sandbox_pid);
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	/* A short command may have ended already, and pid 1 with it:
	 * its table is gone then, which is no failure (bwrap_read). */
	if ((r = m->fd < 0 ? bwrap_ended(m) : bwrap_read(m, &table)) == -ESRCH)
		goto done;
	if (r < 0 || monitor_watch_mounts(m->fd, table_changed, m) < 0)
		goto failed;
	if (root >= 0)
		absent_view(m, root);
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
	m->seen->lost = LOST_TABLE;
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
	if (m->ino >= 0) {
		monitor_unwatch(m->ino);
		close(m->ino);
		m->ino = -1;
	}
	if (m->fd < 0)
		return;
	monitor_unwatch(m->fd);
	close(m->fd);
	m->fd = -1;
}

/* Move h's entry aside in its directory, never over anything. */
static void
held_aside(const struct maskwatch_held *h, const char *why, char ***lines)
{
	_cleanup_free_ char *shown = text_shown(h->path), *to = NULL;
	_cleanup_free_ char *as = NULL;
	int r = fd_move_aside(h->dirfd, h->name, time(NULL), &to);

	if (r == 0) {
		as = text_shown(to);
		strv_push_take(lines,
			       xasprintf("llwrap: %s %s: moved aside to %s "
					 "beside it; review it before putting "
					 "it back",
					 shown, why, as));
		return;
	}
	strv_push_take(lines,
		       xasprintf("llwrap: error: %s %s, and cannot be moved "
				 "aside: %s; review it before anything reads "
				 "it",
				 shown, why, strerror(-r)));
}

/* A repository's config, which git itself rewrites (the user's git
 * config, push -u): moved aside when it now sets what could run a
 * command or sends git elsewhere, whoever wrote it; the host's change
 * that runs nothing is left. */
static void
held_config(const struct maskwatch_held *h, char ***lines)
{
	_cleanup_free_ char *text = NULL, *shown = NULL, *why = NULL;
	_cleanup_free_ char *unsafe = NULL;
	size_t len;
	int r = config_read(h->dirfd, h->name, &text, &len);

	if (r == -ENOENT)
		return;
	if (r < 0) {
		why = xasprintf("is not a readable file (%s) since its mask "
				"went",
				strerror(-r));
		held_aside(h, why, lines);
		return;
	}
	if (len == h->len && memcmp(text, h->text, len) == 0)
		return;
	if ((unsafe = gitguard_config_unsafe_change(h->text, text)) == NULL)
		return;
	shown = text_shown(unsafe);
	why = xasprintf("changed and sets %s while its mask was gone", shown);
	held_aside(h, why, lines);
}

/* One held entry, once a mask went. */
static void
held_check(const struct maskwatch_held *h, char ***lines)
{
	_cleanup_free_ char *shown = NULL;
	struct stat st;

	if (fstatat(h->dirfd, h->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return;
		shown = text_shown(h->path);
		strv_push_take(lines,
			       xasprintf("llwrap: error: cannot look at %s "
					 "after its mask went: %s; review it "
					 "before anything reads it",
					 shown, strerror(errno)));
		return;
	}
	if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		held_aside(h,
			   "has another name (a hard link) the command could "
			   "write it through",
			   lines);
		return;
	}
	if (h->exists && st.st_dev == h->dev && st.st_ino == h->ino)
		return; /* its own mask held it */
	if (h->config && S_ISREG(st.st_mode)) {
		held_config(h, lines);
		return;
	}
	held_aside(h,
		   "was replaced while its mask was gone (the command could "
		   "write into the new one until the stop)",
		   lines);
}

char **
maskwatch_finish(struct maskwatch *m)
{
	_cleanup_free_ char *shown = NULL;
	char **lines = NULL;
	size_t i;

	if (m == NULL || m->seen->lost == LOST_NONE)
		return NULL;
	shown = text_shown(m->seen->path);
	if (m->seen->lost == LOST_ABSENT) {
		strv_push_take(
			&lines,
			xasprintf(
				"llwrap: %s, which is denied and did not "
				"exist at the start (so it was not masked), "
				"appeared while the sandbox ran (made on the "
				"host, or by the command: either is stopped); "
				"the sandbox was stopped at once, but the "
				"command may have read it in that moment; run "
				"it again: at the next start it is masked",
				shown));
	} else if (m->seen->lost == LOST_ABSENT_WAY) {
		strv_push_take(
			&lines,
			xasprintf(
				"llwrap: a directory on the way to %s, which "
				"is denied and did not exist at the start (so "
				"it was not masked), appeared while the "
				"sandbox ran (made on the host, or by the "
				"command: either is stopped), and that path "
				"could follow; the sandbox was stopped at "
				"once; run it again: at the next start it is "
				"masked if it exists",
				shown));
	} else if (m->seen->lost == LOST_ABSENT_DIR) {
		strv_push_take(
			&lines,
			xasprintf("llwrap: a directory on the way to %s, which "
				  "is denied and did not exist at the start, "
				  "was moved or removed while the sandbox ran, "
				  "so that path could appear unseen; the "
				  "sandbox was stopped at once; run it again",
				  shown));
	} else if (m->seen->lost == LOST_TABLE) {
		strv_push(&lines,
			  "llwrap: error: the sandbox's mount table could not "
			  "be read while the command ran, so a mask the host "
			  "removed could not be seen; the sandbox was stopped; "
			  "run it again");
	} else {
		for (i = 0; i < m->n && strcmp(m->paths[i], m->seen->path) != 0;
		     i++)
			;
		strv_push_take(
			&lines,
			xasprintf("llwrap: %s was replaced on the host while "
				  "the sandbox ran, which removed its mask; "
				  "the sandbox was stopped at once%s; run it "
				  "again",
				  shown,
				  i < m->n && m->deny[i]
					  ? ", but the command may have read "
					    "the new file in that moment"
					  : ""));
	}
	/* Every read-only mask's entry: the host's editor or git may have
	 * written the new one through a file of the project's, which the
	 * command could write too. */
	for (i = 0; i < m->n_held; i++)
		held_check(&m->held[i], &lines);
	return lines;
}

void
maskwatch_free(struct maskwatch *m)
{
	if (m == NULL)
		return;
	maskwatch_disarm(m);
	for (size_t i = 0; i < m->n_held; i++) {
		free(m->held[i].path);
		free(m->held[i].text);
	}
	free(m->held);
	for (size_t i = 0; i < m->n_absent; i++) {
		free(m->absent[i].path);
		free(m->absent[i].name);
	}
	free(m->absent);
	for (size_t i = 0; i < m->n_ways; i++)
		close(m->way_fds[i]);
	free(m->way_fds);
	free(m->way_wds);
	strv_free(m->way_paths);
	free(m->deny);
	for (size_t i = 0; i < m->n_dirs; i++)
		close(m->dirs[i]);
	free(m->dirs);
	free(m->dir_of);
	free(m->wds);
	if (m->sandbox >= 0)
		close(m->sandbox);
	strv_free(m->paths);
	free(m->ids);
	free(m->uids);
	munmap(m->seen, sizeof(*m->seen));
	free(m);
}
