/*
 * The watch on files run later (see watchlater.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "fdutil.h"
#include "gitguard.h"
#include "strv.h"
#include "monitor.h"
#include "watchlater.h"
#include "xalloc.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* The largest index read (a large monorepo's is tens of MiB). */
#define WATCHLATER_MAX_INDEX (256u << 20)

/* A watched directory and the names in it that are moved aside. */
struct wdir {
	int wd;
	int fd; /* O_PATH, opened before the command ran */
	char *path;
	char **names;
	const char *reader; /* who reads them later */
	bool gitdir;	    /* the repository: its index is watched too */
};

struct watchlater {
	pid_t owner;
	int ifd;
	int release; /* the holder's pipe (holder_start) */
	int project_fd;
	char *project;
	struct wdir *dirs;
	size_t n_dirs;
	char **start_links; /* gitlinks whose checkout had .git at start */
	char **moved;	    /* what was moved aside, as it was named */
	char **lines;
};

static struct wdir *
wdir_find(struct watchlater *w, const char *path)
{
	for (size_t i = 0; i < w->n_dirs; i++)
		if (strcmp(w->dirs[i].path, path) == 0)
			return &w->dirs[i];
	return NULL;
}

/* Watch dir (a descriptor of it, opened safely by the caller). */
static struct wdir *
wdir_add(struct watchlater *w, int fd, const char *path, const char *reader)
{
	_cleanup_close_ int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct wdir *d;
	int wd = -1;

	/* Through the descriptor, not the path (it may have changed since):
	 * inotify takes a path only, and /proc/self may be the sandbox's
	 * /proc now, where this process has no pid.  So "." of a moment. */
	if (cwd >= 0 && fchdir(fd) == 0) {
		wd = inotify_add_watch(w->ifd, ".",
				       IN_CREATE | IN_MOVED_TO |
					       IN_CLOSE_WRITE | IN_ONLYDIR);
		if (fchdir(cwd) < 0) {
			/* The monitor uses no relative path. */
		}
	}
	if (wd < 0) {
		close(fd);
		return NULL;
	}
	w->dirs = xreallocarray(w->dirs, w->n_dirs + 1, sizeof(*w->dirs));
	d = &w->dirs[w->n_dirs++];
	*d = (struct wdir){ .wd = wd,
			    .fd = fd,
			    .path = xstrdup(path),
			    .names = xcalloc(1, sizeof(char *)),
			    .reader = reader };
	return d;
}

/* 1.2 ms, 340 µs: how long a file existed under its name. */
static char *
age_text(const struct statx *stx)
{
	struct timespec now;
	long long us;

	if (!(stx->stx_mask & STATX_BTIME) ||
	    clock_gettime(CLOCK_REALTIME, &now) < 0)
		return xstrdup("");
	us = ((long long)now.tv_sec - stx->stx_btime.tv_sec) * 1000000 +
	     ((long long)now.tv_nsec - stx->stx_btime.tv_nsec) / 1000;
	if (us < 0)
		us = 0;
	if (us < 10000)
		return xasprintf(", %lld µs after it was made", us);
	return xasprintf(", %lld ms after it was made", us / 1000);
}

/* Rename name in d aside, to NAME.llwrap-blocked-TIME[-N], never over
 * anything. */
static void
move_aside(struct watchlater *w, int dirfd, const char *dirpath,
	   const char *name, const char *reader)
{
	_cleanup_free_ char *from = xasprintf("%s/%s", dirpath, name);
	_cleanup_free_ char *age = NULL;
	struct statx stx;
	time_t now = time(NULL);

	if (reader == NULL)
		reader = gitguard_later_reader(name);

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &stx) < 0)
		return;
	age = age_text(&stx);
	for (int i = 0; i < 100; i++) {
		_cleanup_free_ char *to =
			i == 0 ? xasprintf("%s.llwrap-blocked-%lld", name,
					   (long long)now)
			       : xasprintf("%s.llwrap-blocked-%lld-%d", name,
					   (long long)now, i);

		if (syscall(SYS_renameat2, dirfd, name, dirfd, to,
			    RENAME_NOREPLACE) == 0) {
			strv_push(&w->moved, from);
			strv_push_take(
				&w->lines,
				xasprintf("llwrap: the command created %s, "
					  "which %s reads later, outside the "
					  "sandbox: moved aside to %s/%s%s; "
					  "review it before putting it back",
					  from, reader, dirpath, to, age));
			return;
		}
		if (errno != EEXIST)
			break;
	}
	strv_push_take(&w->lines,
		       xasprintf("llwrap: warning: the command created %s, "
				 "which %s reads later, and llwrap could not "
				 "move it aside (%s); review it before %s "
				 "does",
				 from, reader, strerror(errno), reader));
	strv_push(&w->moved, from);
}

/* Whether name exists in dirfd (not following a symlink). */
static bool
exists_at(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A directory beneath the project, by a path git wrote: no symlink on
 * the way (git never records one as a directory), never outside. */
static int
open_beneath(struct watchlater *w, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};

	return (int)syscall(SYS_openat2, w->project_fd, rel, &how, sizeof(how));
}

/* The gitlinks of the index, or NULL. */
static char **
index_links(struct watchlater *w, int gitdir_fd)
{
	_cleanup_close_ int fd =
		openat(gitdir_fd, "index", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	_cleanup_free_ char *buf = NULL;
	char **links = NULL;
	size_t len;

	(void)w;
	if (fd < 0 || fd_read_all(fd, WATCHLATER_MAX_INDEX, &buf, &len) < 0 ||
	    gitguard_index_gitlinks(buf, len, &links) < 0)
		return NULL;
	return links;
}

/*
 * A gitlink not populated at the start: its checkout's .git moved
 * aside, or, while it has none, its directory watched for one.
 */
static void
check_gitlinks(struct watchlater *w, int gitdir_fd)
{
	_cleanup_strv_ char **links = index_links(w, gitdir_fd);

	for (char **l = links; l != NULL && *l != NULL; l++) {
		_cleanup_free_ char *path = NULL;
		int fd;

		if (strv_contains(w->start_links, *l))
			continue;
		fd = open_beneath(w, *l);
		if (fd < 0)
			continue;
		path = xasprintf("%s/%s", w->project, *l);
		if (exists_at(fd, ".git")) {
			move_aside(w, fd, path, ".git",
				   "git (a submodule's repository)");
			close(fd);
		} else if (wdir_find(w, path) == NULL) {
			struct wdir *d = wdir_add(w, fd, path,
						  "git (a submodule's "
						  "repository)");

			/* It may have come between the look and the
			 * watch. */
			if (d != NULL) {
				strv_push(&d->names, ".git");
				if (exists_at(d->fd, ".git"))
					move_aside(w, d->fd, d->path, ".git",
						   d->reader);
			}
		} else {
			close(fd);
		}
	}
}

/* Every watched name once, and the index: after an overflow, and at the
 * end. */
static void
check_all(struct watchlater *w)
{
	for (size_t i = 0; i < w->n_dirs; i++) {
		struct wdir *d = &w->dirs[i];

		for (char **n = d->names; *n != NULL; n++)
			if (exists_at(d->fd, *n))
				move_aside(w, d->fd, d->path, *n, d->reader);
	}
	for (size_t i = 0; i < w->n_dirs; i++)
		if (w->dirs[i].gitdir)
			check_gitlinks(w, w->dirs[i].fd);
}

static void
watchlater_ready(void *arg)
{
	struct watchlater *w = arg;
	char buf[16384]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;

	while ((len = read(w->ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (void *)p;
			struct wdir *d = NULL;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				check_all(w);
				continue;
			}
			for (size_t i = 0; i < w->n_dirs && d == NULL; i++)
				if (w->dirs[i].wd == ev->wd)
					d = &w->dirs[i];
			if (d == NULL || ev->len == 0)
				continue;
			if (d->gitdir && strcmp(ev->name, "index") == 0 &&
			    (ev->mask & (IN_MOVED_TO | IN_CLOSE_WRITE)))
				check_gitlinks(w, d->fd);
			else if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) &&
				 strv_contains(d->names, ev->name))
				move_aside(w, d->fd, d->path, ev->name,
					   d->reader);
		}
	}
}

/* Who reads a missing path later, and whether it is moved aside: a new
 * .envrc is not (direnv refuses to load a new or changed .envrc until
 * `direnv allow`; what it sources is loaded without asking). */
static const char *
missing_reader(const char *project, const char *path, bool *move)
{
	_cleanup_free_ char *envrc = xasprintf("%s/.envrc", project);

	*move = strcmp(path, envrc) != 0;
	if (strstr(path, "/.git/") != NULL)
		return "git";
	return NULL; /* by name: gitguard_later_reader() */
}

/*
 * The kernel frees an inotify instance with marks after an SRCU grace
 * period, which the close(2) of its last reference (or the exit of its
 * last holder) waits for: about 15 ms measured on 6.18, which would be
 * added to every run.  A helper holds a second reference and nothing
 * else, and takes that wait when the monitor lets it go (closing the
 * pipe it reads; its death does too).  It shares this process's memory
 * (CLONE_VM: no page table copied) and runs system calls alone.  Made
 * before any namespace, since a process cannot fork into a pid
 * namespace whose pid 1 is gone.
 */
struct holder {
	int ifd, wait_fd;
};

static char holder_stack[16384] __attribute__((aligned(16)));

static int
holder_main(void *arg)
{
	const struct holder *h = arg;
	char b;

	syscall(SYS_dup3, h->ifd, 0, 0);
	syscall(SYS_dup3, h->wait_fd, 1, 0);
	syscall(SYS_close_range, 2, ~0U, 0);
	while (syscall(SYS_read, 1, &b, 1) < 0 && errno == EINTR)
		;
	syscall(SYS_exit, 0);
	return 0;
}

/* Start the holder of w->ifd; -1 in w->release when it cannot run (then
 * the monitor waits itself). */
static void
holder_start(struct watchlater *w)
{
	/* Static: the helper reads it after this frame is gone. */
	static struct holder h;
	int p[2];

	w->release = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	h = (struct holder){ .ifd = w->ifd, .wait_fd = p[0] };
	if (clone(holder_main, holder_stack + sizeof(holder_stack),
		  CLONE_VM | SIGCHLD, &h) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	close(p[0]);
	w->release = p[1];
}

int
watchlater_start(const char *project, char *const *missing, bool gitlinks,
		 struct watchlater **out)
{
	struct watchlater *w = xcalloc(1, sizeof(*w));
	_cleanup_free_ char *gitdir = NULL;
	struct stat st;

	*out = NULL;
	w->owner = getpid();
	w->release = -1;
	w->project = xstrdup(project);
	w->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	w->project_fd =
		open(project, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (w->ifd < 0 || w->project_fd < 0) {
		int r = -errno;

		watchlater_free(w);
		return r;
	}
	for (char *const *m = missing; m != NULL && *m != NULL; m++) {
		_cleanup_free_ char *dir = xstrdup(*m);
		char *slash = strrchr(dir, '/');
		struct wdir *d;
		bool move;
		const char *reader = missing_reader(project, *m, &move);

		if (!move || slash == NULL || slash == dir)
			continue;
		*slash = '\0';
		d = wdir_find(w, dir);
		if (d == NULL) {
			int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC |
						   O_NOFOLLOW);

			if (fd < 0 ||
			    (d = wdir_add(w, fd, dir, reader)) == NULL)
				continue;
		}
		if (!strv_contains(d->names, slash + 1))
			strv_push(&d->names, slash + 1);
	}
	/* The repository: .git, or the one a .git file names (a linked
	 * worktree's index is in <common>/worktrees/<name>). */
	free(gitlinks ? gitguard_objects(project, &gitguard_fs_real, &gitdir)
		      : NULL);
	if (gitdir != NULL && stat(gitdir, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct wdir *d = wdir_find(w, gitdir);
		_cleanup_strv_ char **links = NULL;

		if (d == NULL) {
			int fd = open(gitdir, O_PATH | O_DIRECTORY | O_CLOEXEC |
						      O_NOFOLLOW);

			if (fd >= 0)
				d = wdir_add(w, fd, gitdir, "git");
		}
		if (d != NULL) {
			d->gitdir = true;
			links = index_links(w, d->fd);
			for (char **l = links; l != NULL && *l != NULL; l++) {
				_cleanup_close_ int fd = open_beneath(w, *l);

				if (fd >= 0 && exists_at(fd, ".git"))
					strv_push(&w->start_links, *l);
			}
		}
	}
	if (w->n_dirs == 0) {
		watchlater_free(w);
		return 0;
	}
	holder_start(w);
	*out = w;
	return 0;
}

void
watchlater_child(struct watchlater *w)
{
	if (w == NULL)
		return;
	close(w->ifd);
	close(w->release);
	w->ifd = w->release = -1;
}

void
watchlater_parent(struct watchlater *w)
{
	if (w != NULL)
		monitor_watch(w->ifd, watchlater_ready, w);
}

void
watchlater_finish(struct watchlater *w)
{
	if (w == NULL || w->ifd < 0)
		return;
	monitor_unwatch(w->ifd);
	watchlater_ready(w);
	check_all(w);
}

char **
watchlater_report(const struct watchlater *w)
{
	return w != NULL ? strv_copy(w->lines) : NULL;
}

bool
watchlater_moved(const struct watchlater *w, const char *path)
{
	return w != NULL && strv_contains(w->moved, path);
}

void
watchlater_free(struct watchlater *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->n_dirs; i++) {
		close(w->dirs[i].fd);
		free(w->dirs[i].path);
		strv_free(w->dirs[i].names);
	}
	free(w->dirs);
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->release >= 0)
		close(w->release);
	if (w->project_fd >= 0)
		close(w->project_fd);
	free(w->project);
	strv_free(w->start_links);
	strv_free(w->moved);
	strv_free(w->lines);
	free(w);
}
