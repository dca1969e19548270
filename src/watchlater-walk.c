/*
 * The walk of the project's directories for the repositories nested in
 * it (watchlater-int.h, wl_nested_check): listed during the run by a
 * thread of the watching process, off the run's wall clock, and at the
 * end looked at again one stat each, listed again only where they
 * changed.
 *
 * A directory's change time (st_ctime) moves at every entry added,
 * removed or renamed in or out of it, and nothing unprivileged sets it
 * back; so a directory whose change time is still before the start
 * (w->since, the coarse clock the kernel stamps with) holds the entries
 * it had at the start, which are the ones the thread listed whenever it
 * did.  The end goes through the directories in the order they were
 * found (a parent before its subdirectories): one that is the same
 * (device and inode) and unchanged keeps its listing; one that changed
 * is listed again, its subdirectories that are still there (by name)
 * kept for their own look, the new ones walked whole; one that is gone
 * or another is walked whole from its path (what it holds now) or
 * skipped when nothing is there.  A directory's path from the project
 * is looked up through its parents, each one already found the same:
 * no link is in it (the end runs once nothing of the command's is
 * left: sandbox.c's guardian).  What the thread could not list (an
 * error, the bound, a directory it had not reached when the command
 * ended) is walked at the end as a new one is, with its failures.
 *
 * The thread touches nothing but its own walk (its nodes, its stack, the
 * project's descriptor, which it only reads through): the end joins it
 * before it reads them.  Its signals are blocked (the watching process
 * takes its own through a signalfd).  It runs at the command's
 * priority: what it does not list during the run the end lists on the
 * run's wall clock (at nice 5 or 10 it did not finish 10,000 directories
 * while a 140 ms command ran on a loaded 2-core machine; at 0 it did,
 * and the end took 15-20 ms instead of 40-60).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "compat/syscall.h"
#include "mono.h"
#include "testhook.h"
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

enum wnode_state {
	WNODE_TODO,   /* not listed: the end walks it whole */
	WNODE_LISTED, /* listed by the thread */
};

/* A directory of the project, as the thread found it. */
struct wnode {
	char *rel;	 /* beneath the project; "" for the project */
	uint32_t parent; /* its index, WNODE_NONE for the project */
	uint32_t first;	 /* its subdirectories: [first, first + n) */
	uint32_t n;
	struct wkey key; /* when listed */
	uint8_t state;
	uint8_t flags; /* WALK_*: what walk_list found there */
};

#define WNODE_NONE UINT32_MAX

struct wl_walk {
	int rootfd;
	size_t max; /* the most directories */
	pthread_t thread;
	bool started;
	atomic_bool stop;

	struct wnode *v;
	size_t n, cap;
	uint32_t *stack; /* nodes to list, the next last */
	size_t n_stack, cap_stack;
};

/* A listing's subdirectories' names. */
struct wnames {
	char **v;
	size_t n, cap;
};

static void
wnames_clear(struct wnames *names)
{
	while (names->n > 0)
		free(names->v[--names->n]);
}

/* The files git opens in a work tree's directories without O_NONBLOCK
 * (its status, diff, log): a FIFO there hangs the user's git. */
static bool
walk_git_reads(const char *name)
{
	return strcmp(name, ".gitignore") == 0 ||
	       strcmp(name, ".gitattributes") == 0 ||
	       strcmp(name, ".gitmodules") == 0 ||
	       strcmp(name, ".mailmap") == 0;
}

/*
 * The directory fd, listed: the names of its subdirectories but .git to
 * names, and in *flags whether it has a .git (WALK_DOTGIT), whether git
 * takes it for a bare repository (WALK_BARE: HEAD beside objects/, refs/
 * or a commondir), whether a file git reads there is not a regular
 * file, a link or a directory (WALK_SPECIAL), whether it has an
 * .envrc (WALK_ENVRC), whether a version manager's file (WALK_TOOLS), and
 * whether a .hg (WALK_HG).  0,
 * -E2BIG past max subdirectories (no more held: a directory of a million costs
 * no more memory than the bound's), or -errno.  Read with getdents64 into a
 * buffer of its own: the walk's cost is an open, two reads and a close a
 * directory.
 */
static int
walk_list(int fd, size_t max, struct wnames *names, unsigned *flags)
{
	char buf[32768];
	bool head = false, parts = false;
	long got;

	*flags = 0;
	while ((got = sys_getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			const struct llw_dirent64 *e =
				(const void *)(buf + off);
			const char *d = e->d_name;
			unsigned char type = e->d_type;
			struct stat st;

			off += e->d_reclen;
			if (strcmp(d, "HEAD") == 0)
				head = true;
			else if (strcmp(d, "objects") == 0 ||
				 strcmp(d, "refs") == 0 ||
				 strcmp(d, "commondir") == 0)
				parts = true;
			if (strcmp(d, ".") == 0 || strcmp(d, "..") == 0)
				continue;
			if (strcmp(d, ".git") == 0) {
				*flags |= WALK_DOTGIT;
				continue;
			}
			if (type == DT_UNKNOWN &&
			    fstatat(fd, d, &st, AT_SYMLINK_NOFOLLOW) == 0)
				type = IFTODT(st.st_mode);
			if (type != DT_DIR && type != DT_REG &&
			    type != DT_LNK && walk_git_reads(d))
				*flags |= WALK_SPECIAL;
			if (type != DT_DIR && strcmp(d, ".envrc") == 0)
				*flags |= WALK_ENVRC;
			if (wl_tools_name(d))
				*flags |= WALK_TOOLS;
			if (strcmp(d, ".hg") == 0)
				*flags |= WALK_HG;
			if (type != DT_DIR)
				continue;
			/* More than the walk may look at: not held. */
			if (names->n == max)
				return -E2BIG;
			names->v = xgrow(names->v, names->n + 1, &names->cap,
					 sizeof(*names->v));
			names->v[names->n++] = xstrdup(d);
		}
	}
	if (head && parts)
		*flags |= WALK_BARE;
	return got < 0 ? -errno : 0;
}

/* The directory rel beneath the project, open for reading (no link, no
 * mount crossed), or -errno. */
static int
walk_open(int rootfd, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_NOCTTY |
			 O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int fd = (int)syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how,
			      sizeof(how));

	return fd < 0 ? -errno : fd;
}

static char *
walk_join(const char *rel, const char *name)
{
	return *rel != '\0' ? xasprintf("%s/%s", rel, name) : xstrdup(name);
}

static uint32_t
walk_node(struct wl_walk *k, char *rel, uint32_t parent)
{
	k->v = xgrow(k->v, k->n + 1, &k->cap, sizeof(*k->v));
	k->v[k->n] = (struct wnode){ .rel = rel,
				     .parent = parent,
				     .state = WNODE_TODO };
	return (uint32_t)k->n++;
}

/* The thread: lists the nodes on the stack until none is left, the
 * bound is reached, or the end asks it to stop. */
static void *
walk_thread(void *arg)
{
	struct wl_walk *k = arg;
	struct wnames names = { 0 };

	while (k->n_stack > 0 &&
	       !atomic_load_explicit(&k->stop, memory_order_relaxed)) {
		uint32_t i = k->stack[--k->n_stack];
		_cleanup_close_ int fd = walk_open(k->rootfd, k->v[i].rel);
		struct stat st;
		unsigned flags;
		bool over = false;

		if (fd < 0 || fstat(fd, &st) < 0 ||
		    walk_list(fd, k->max, &names, &flags) < 0 ||
		    (over = k->n + names.n > k->max)) {
			/* The end walks it, and says what failed. */
			wnames_clear(&names);
			if (over)
				break;
			continue;
		}
		k->v[i].key = (struct wkey){ st.st_dev, st.st_ino };
		k->v[i].flags = (uint8_t)flags;
		k->v[i].first = (uint32_t)k->n;
		k->v[i].n = (uint32_t)names.n;
		k->v[i].state = WNODE_LISTED;
		k->stack = xgrow(k->stack, k->n_stack + names.n, &k->cap_stack,
				 sizeof(*k->stack));
		for (size_t j = 0; j < names.n; j++) {
			uint32_t c = walk_node(
				k, walk_join(k->v[i].rel, names.v[j]), i);

			k->stack[k->n_stack++] = c;
		}
		wnames_clear(&names);
	}
	free(names.v);
	return NULL;
}

/* The walk, its project not listed yet. */
static struct wl_walk *
walk_new(struct watchlater *w)
{
	struct wl_walk *k = xcalloc(1, sizeof(*k));

	k->rootfd = w->roots[0].fd;
	k->max = testhook_nested_walk_max(WATCHLATER_WALK_MAX);
	atomic_init(&k->stop, false);
	walk_node(k, xstrdup(""), WNODE_NONE);
	k->stack = xgrow(k->stack, 1, &k->cap_stack, sizeof(*k->stack));
	k->stack[k->n_stack++] = 0;
	w->walk = k;
	return k;
}

/* Whether fd is on a file system whose change times a server stamps
 * (its clock, not this kernel's: one behind would make a change look
 * older than the start, and a changed directory's listing kept). */
static bool
walk_remote(int fd)
{
	static const unsigned long remote[] = {
		0x6969,	    /* NFS */
		0xFF534D42, /* CIFS */
		0xFE534D42, /* SMB2 */
		0x517B,	    /* SMB */
		0x01021997, /* 9P (virtio-9p, WSL's drvfs) */
		0x65735546, /* FUSE (sshfs, virtiofs) */
		0x00C36400, /* Ceph */
		0x5346414F, /* AFS */
		0x6B414653, /* kAFS */
		0x73757245, /* Coda */
		0x01161970, /* GFS2 */
		0x7461636F, /* OCFS2 */
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(remote); i++)
		if ((unsigned long)sf.f_type == remote[i])
			return true;
	return false;
}

void
wl_walk_start(struct watchlater *w)
{
	struct wl_walk *k;
	sigset_t all, old;

	if (!w->nested_check || w->walk != NULL)
		return;
	/* There the end walks it all, as before the thread: a change time
	 * is trusted only for what the start had (review F, F2). */
	if (walk_remote(w->roots[0].fd))
		return;
	k = walk_new(w);
	/* Without the thread the end walks it all, as it would a project
	 * made during the run. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	k->started = pthread_create(&k->thread, NULL, walk_thread, k) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void
wl_walk_wait(struct watchlater *w)
{
	struct wl_walk *k = w->walk;

	if (k != NULL && k->started) {
		pthread_join(k->thread, NULL);
		k->started = false;
	}
}

/* The thread, stopped (it ends the listing it is in). */
static void
walk_stop(struct wl_walk *k)
{
	if (!k->started)
		return;
	atomic_store(&k->stop, true);
	pthread_join(k->thread, NULL);
	k->started = false;
}

void
wl_walk_free(struct watchlater *w)
{
	struct wl_walk *k = w->walk;

	if (k == NULL)
		return;
	walk_stop(k);
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].rel);
	free(k->v);
	free(k->stack);
	free(k);
	w->walk = NULL;
}

/* The end's state: the directories still to walk whole, what was
 * looked at, the bound. */
struct walk_end {
	struct watchlater *w;
	wl_walk_fn *fn;
	struct wnames fresh;
	bool *gone; /* by node: not (or no longer) the thread's listing */
	size_t seen, max;
	uint64_t until;
	bool over;
};

/* Counts one directory against the bound: false (and the run fails,
 * saying where) past it. */
static bool
walk_count(struct walk_end *e, const char *rel)
{
	_cleanup_free_ char *path = NULL, *shown = NULL;

	if (e->over)
		return false;
	/* The clock at every one (a vDSO call): a repository's checks
	 * between two looks are bounded by its own reads. */
	if (++e->seen <= e->max && mono_ms() <= e->until)
		return true;
	e->over = true;
	path = xasprintf("%s/%s", e->w->roots[0].path, rel);
	shown = text_shown(path);
	wl_fail(e->w, xasprintf("the project is too large to look through "
				"for the repositories the command made or "
				"changed (more than %zu directories or %d "
				"seconds; stopped at %s): before running git "
				"in a repository inside it, look at its "
				".git's config, config.worktree, commondir "
				"and hooks/",
				e->max, WATCHLATER_WALK_SECONDS, shown));
	return false;
}

static void
walk_fresh(struct walk_end *e, char *rel)
{
	e->fresh.v = xgrow(e->fresh.v, e->fresh.n + 1, &e->fresh.cap,
			   sizeof(char *));
	e->fresh.v[e->fresh.n++] = rel;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Node i changed since the start: listed again (fd), each subdirectory
 * the thread had kept for its own look, each new one walked whole. */
static void
walk_again(struct walk_end *e, uint32_t i, int fd)
{
	struct wl_walk *k = e->w->walk;
	const struct wnode *d = &k->v[i];
	struct wnames now = { 0 };
	unsigned flags;
	bool *kept;

	if (walk_list(fd, e->max, &now, &flags) < 0) {
		/* Walked whole: it says why. */
		wnames_clear(&now);
		free(now.v);
		for (uint32_t c = d->first; c < d->first + d->n; c++)
			e->gone[c] = true;
		walk_fresh(e, xstrdup(d->rel));
		return;
	}
	/* (None, and no array: qsort and bsearch take no NULL.) */
	if (now.n > 0)
		qsort(now.v, now.n, sizeof(*now.v), name_cmp);
	kept = xcalloc(now.n + 1, sizeof(*kept));
	for (uint32_t c = d->first; c < d->first + d->n; c++) {
		const char *rel = k->v[c].rel;
		const char *name =
			rel + (*d->rel != '\0' ? strlen(d->rel) + 1 : 0);
		char **at = now.n > 0 ? bsearch(&name, now.v, now.n,
						sizeof(*now.v), name_cmp)
				      : NULL;

		if (at != NULL)
			kept[at - now.v] = true;
		else
			e->gone[c] = true;
	}
	for (size_t j = 0; j < now.n; j++)
		if (!kept[j])
			walk_fresh(e, walk_join(d->rel, now.v[j]));
	free(kept);
	wnames_clear(&now);
	free(now.v);
	if (flags != 0)
		e->fn(e->w, fd, d->rel, flags);
}

/* The thread's listing, looked at again. */
static void
walk_nodes(struct walk_end *e)
{
	struct wl_walk *k = e->w->walk;

	for (uint32_t i = 0; i < k->n && !e->over; i++) {
		const struct wnode *d = &k->v[i];
		_cleanup_close_ int fd = -1;
		struct stat st;

		if (d->parent != WNODE_NONE && e->gone[d->parent])
			e->gone[i] = true;
		if (e->gone[i])
			continue;
		if (d->state != WNODE_LISTED) {
			e->gone[i] = true;
			walk_fresh(e, xstrdup(d->rel));
			continue;
		}
		if (!walk_count(e, d->rel))
			break;
		if (fstatat(k->rootfd, *d->rel ? d->rel : ".", &st,
			    AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_dev != d->key.dev ||
		    st.st_ino != d->key.ino) {
			/* Another, or gone: what is there now, whole. */
			e->gone[i] = true;
			walk_fresh(e, xstrdup(d->rel));
			continue;
		}
		if (!wl_changed(e->w, &st) && d->flags == 0)
			continue;
		if ((fd = walk_open(k->rootfd, d->rel)) < 0) {
			e->gone[i] = true;
			walk_fresh(e, xstrdup(d->rel));
			continue;
		}
		if (wl_changed(e->w, &st))
			walk_again(e, i, fd);
		else
			e->fn(e->w, fd, d->rel, d->flags);
	}
}

/* A directory the thread did not list (one the command made, or one it
 * did not reach), walked whole as it is now. */
static void
walk_whole(struct walk_end *e, const char *rel)
{
	struct watchlater *w = e->w;
	_cleanup_free_ char *path = NULL, *shown = NULL;
	_cleanup_close_ int fd = walk_open(w->roots[0].fd, rel);
	struct wnames names = { 0 };
	unsigned flags;
	struct stat st;
	int r;

	if (fd >= 0) {
		if ((r = walk_list(fd, e->max, &names, &flags)) == -E2BIG) {
			/* Its subdirectories alone are past the bound. */
			wnames_clear(&names);
			free(names.v);
			e->seen = e->max;
			walk_count(e, rel);
			return;
		}
		if (r < 0) {
			path = xasprintf("%s/%s", w->roots[0].path, rel);
			shown = text_shown(path);
			wl_fail(w, xasprintf("cannot list %s for the "
					     "repositories in it: %s",
					     shown, strerror(-r)));
		}
		/* Last in, first walked: depth first, as the thread. */
		for (size_t j = names.n; j-- > 0;)
			walk_fresh(e, walk_join(rel, names.v[j]));
		wnames_clear(&names);
		free(names.v);
		if (flags != 0)
			e->fn(w, fd, rel, flags);
		return;
	}
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
		return; /* gone, or a link git's walk does not enter */
	/* Another user's, which this one (the command's) cannot write
	 * either: a database's volume, a root-owned build. */
	if (fd == -EACCES) {
		_cleanup_close_ int at =
			wl_open_beneath(w->roots[0].fd, rel, true);

		if (at >= 0 && fstat(at, &st) == 0 && st.st_uid != geteuid() &&
		    !(st.st_mode & (S_IWGRP | S_IWOTH)))
			return;
	}
	path = xasprintf("%s/%s", w->roots[0].path, rel);
	shown = text_shown(path);
	wl_fail(w, xasprintf("cannot look for repositories in %s: %s", shown,
			     fd == -EXDEV ? "another filesystem is mounted "
					    "there"
					  : strerror(-fd)));
}

void
wl_walk_end(struct watchlater *w, wl_walk_fn *fn)
{
	struct wl_walk *k = w->walk != NULL ? w->walk : walk_new(w);
	struct walk_end e = {
		.w = w,
		.fn = fn,
		.max = k->max,
		.until = mono_ms() + WATCHLATER_WALK_SECONDS * 1000,
	};

	walk_stop(k);
	e.gone = xcalloc(k->n + 1, sizeof(*e.gone));
	walk_nodes(&e);
	while (e.fresh.n > 0 && !e.over) {
		_cleanup_free_ char *rel = e.fresh.v[--e.fresh.n];

		if (walk_count(&e, rel))
			walk_whole(&e, rel);
	}
	wnames_clear(&e.fresh);
	free(e.fresh.v);
	free(e.gone);
}
