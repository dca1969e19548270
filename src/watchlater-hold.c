/*
 * What the monitor holds in place of read-only mounts where there is no
 * L3 (DESIGN.md §14, "Masks without user namespaces"; watchlater.h):
 * git's config, config.worktree, commondir and hooks, and the later-run
 * files beneath the project.  At the start each file's identity and
 * content are recorded (a directory's: every entry, recursively); on a
 * change in a watched directory, and once at the end, a changed file is
 * moved aside (never deleted) and the start's content written back, a
 * new name in a held directory is moved aside.  A repository's config
 * is left when its new content runs nothing (gitguard_config_unsafe):
 * git writes it for branches and remotes.
 *
 * Host-side (DESIGN.md §15): every path is opened beneath the project's
 * descriptor without symlinks or mounts; a file is read only when it is
 * a regular file, opened without blocking; the start's content is written
 * into a file the monitor creates (O_CREAT|O_EXCL|O_NOFOLLOW) and renamed
 * into place without replacing anything.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "fdutil.h"
#include "gitguard.h"
#include "path.h"
#include "strv.h"
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* Split rel into its directory (beneath the root; "" for the root) and
 * its last name. */
static char *
hold_dir_of(const char *rel, const char **name)
{
	const char *slash = strrchr(rel, '/');

	if (slash == NULL) {
		*name = rel;
		return xstrdup("");
	}
	*name = slash + 1;
	return xstrndup(rel, (size_t)(slash - rel));
}

static bool
same_stat(const struct held *h, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_dev == h->key.dev &&
	       st->st_ino == h->key.ino && st->st_size == (off_t)h->len &&
	       st->st_mode == h->mode &&
	       st->st_mtim.tv_sec == h->mtime.tv_sec &&
	       st->st_mtim.tv_nsec == h->mtime.tv_nsec &&
	       st->st_ctim.tv_sec == h->ctime.tv_sec &&
	       st->st_ctim.tv_nsec == h->ctime.tv_nsec;
}

static void
remember_stat(struct held *h, const struct stat *st)
{
	h->key = (struct wkey){ .dev = st->st_dev, .ino = st->st_ino };
	h->mode = st->st_mode;
	h->mtime = st->st_mtim;
	h->ctime = st->st_ctim;
}

static struct held *
held_new(struct watchlater *w, const char *rel, const char *path)
{
	struct held *h;

	if (w->n_held >= WATCHLATER_HOLD_MAX) {
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w, xasprintf("more than %d files to hold in place "
				     "of read-only mounts (%s and more)",
				     WATCHLATER_HOLD_MAX, shown));
		return NULL;
	}
	w->held = xreallocarray(w->held, w->n_held + 1, sizeof(*w->held));
	h = &w->held[w->n_held++];
	*h = (struct held){ .rel = xstrdup(rel), .path = xstrdup(path) };
	return h;
}

/* Record rel (path in messages) beneath the project: a regular file's
 * content, a directory's entries (depth more levels at most). */
static void
hold_record(struct watchlater *w, const char *rel, const char *path,
	    const char *reader, bool config, bool hooks, int depth)
{
	_cleanup_free_ char *shown = text_shown(path);
	const char *name;
	_cleanup_free_ char *dir = hold_dir_of(rel, &name);
	_cleanup_close_ int dirfd = wl_open_beneath(w->roots[0].fd, dir, true);
	struct stat st;
	struct held *h;

	if (dirfd < 0 || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int e = dirfd < 0 ? -dirfd : errno;

		/* A missing one is watched for (watch_missing). */
		if (e != ENOENT)
			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(e)));
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		_cleanup_close_ int fd = -1;
		DIR *d;
		struct dirent *e;

		if (depth <= 0) {
			wl_fail(w, xasprintf("%s is too deep to hold in place "
					     "of a read-only mount",
					     shown));
			return;
		}
		fd = wl_open_beneath(w->roots[0].fd, rel, true);
		if (fd < 0 || (h = held_new(w, rel, path)) == NULL)
			return;
		h->dir = true;
		h->hooks = hooks;
		h->reader = reader;
		{
			int rfd = openat(fd, ".",
					 O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			d = rfd >= 0 ? fdopendir(rfd) : NULL;
			if (d == NULL && rfd >= 0)
				close(rfd);
		}
		if (d == NULL) {
			wl_fail(w, xasprintf("cannot list %s: %s", shown,
					     strerror(errno)));
			return;
		}
		while ((e = readdir(d)) != NULL) {
			_cleanup_free_ char *r = NULL, *p = NULL;
			size_t at = (size_t)(h - w->held);

			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			strv_push(&w->held[at].names, e->d_name);
			r = xasprintf("%s/%s", rel, e->d_name);
			p = xasprintf("%s/%s", path, e->d_name);
			hold_record(w, r, p, reader, false, false, depth - 1);
			h = &w->held[at]; /* the array may have moved */
		}
		closedir(d);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		/* A link the user made: what it names may be another file
		 * of the project's, which the command could change (L3's
		 * read-only mount is on the link's target). */
		wl_fail(w, xasprintf("%s is a symbolic link: without user "
				     "namespaces llwrap cannot hold what it "
				     "names in place (put the file itself "
				     "there, or allow user namespaces)",
				     shown));
		return;
	}
	if (!S_ISREG(st.st_mode))
		return;
	if ((h = held_new(w, rel, path)) == NULL)
		return;
	h->config = config;
	h->reader = reader;
	{
		int r = wl_read_beneath(dirfd, name, WATCHLATER_HOLD_MAX_SIZE,
					&st, &h->text, &h->len);

		if (r < 0) {
			wl_fail(w, xasprintf("cannot hold %s in place of a "
					     "read-only mount: %s",
					     shown,
					     r == -EFBIG ? "larger than 1 MiB"
							 : strerror(-r)));
			return;
		}
	}
	remember_stat(h, &st);
}

void
wl_hold_start(struct watchlater *w, char *const *holds,
	      const struct gitguard *git)
{
	for (char *const *p = holds; p != NULL && *p != NULL; p++) {
		_cleanup_free_ char *dir = NULL;
		const char *rel, *base = strrchr(*p, '/');
		bool in_git = false, config, hooks;
		struct stat st;
		size_t root;

		if (wl_root_of(w, *p, &rel) != 0 || *rel == '\0' ||
		    base == NULL)
			continue;
		base++;
		for (size_t i = 0; git != NULL && i < git->n; i++)
			in_git |= strcmp(git->v[i].path, *p) == 0;
		config = in_git && (strcmp(base, "config") == 0 ||
				    strcmp(base, "config.worktree") == 0);
		hooks = in_git && strcmp(base, "hooks") == 0;
		hold_record(w, rel, *p,
			    in_git ? "git" : gitguard_later_reader(*p), config,
			    hooks, 4);
		/* Its directory watched, and itself when it is one. */
		dir = xstrndup(*p, (size_t)(base - 1 - *p));
		(void)wl_dir_at(w, dir, &root);
		if (lstat(*p, &st) == 0 && S_ISDIR(st.st_mode))
			(void)wl_dir_at(w, *p, &root);
	}
	for (size_t i = 0; i < w->n_held; i++)
		if (w->held[i].dir) {
			size_t root;

			(void)wl_dir_at(w, w->held[i].path, &root);
		}
}

/* Write h's start content back at name in dirfd (where nothing is now):
 * into a new file, renamed into place without replacing anything. */
static int
hold_restore(struct watchlater *w, struct held *h, int dirfd,
	     const char *dirpath, const char *name)
{
	int e = EEXIST;

	for (int i = 0; i < 8 && e == EEXIST; i++) {
		_cleanup_free_ char *tmp = NULL;
		_cleanup_close_ int fd = -1;
		uint32_t rnd = 0;
		struct stat st;
		size_t off = 0;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -errno;
		tmp = xasprintf(".%s.llwrap-restore-%08x", name, (unsigned)rnd);
		fd = openat(dirfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0600);
		if (fd < 0) {
			e = errno;
			continue;
		}
		while (off < h->len) {
			ssize_t n = write(fd, h->text + off, h->len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		if (off < h->len || fchmod(fd, h->mode & 07777) < 0 ||
		    fstat(fd, &st) < 0) {
			e = errno != 0 ? errno : EIO;
			(void)unlinkat(dirfd, tmp, 0);
			return -e;
		}
		if (syscall(SYS_renameat2, dirfd, tmp, dirfd, name,
			    RENAME_NOREPLACE) == 0) {
			/* The start's again: never moved as made by the
			 * command (a submodule's .git the index check
			 * would take for new). */
			remember_stat(h, &st);
			wl_protect_add(w, &st);
			return 0;
		}
		e = errno;
		(void)unlinkat(dirfd, tmp, 0);
		/* The command made one meanwhile: that one aside too. */
		if (e == EEXIST)
			wl_move_aside_as(w, dirfd, dirpath, name, h->reader,
					 "changed");
	}
	return -e;
}

/* One held file: changed, it is moved aside and the start's restored.
 * Its identity and times tell it unchanged during the run; at the end
 * its content is compared whatever they say: where the kernel's times are
 * coarse (before 6.13, or a file system without fine-grained ones), a
 * change in place of the same length right after a restore keeps them. */
static void
hold_check_file(struct watchlater *w, struct held *h, bool at_end)
{
	_cleanup_free_ char *shown = text_shown(h->path), *text = NULL;
	_cleanup_free_ char *unsafe = NULL, *reader = NULL;
	_cleanup_free_ char *dirpath = xstrdup(h->path);
	const char *name;
	_cleanup_free_ char *dir = hold_dir_of(h->rel, &name);
	_cleanup_close_ int dirfd = wl_open_beneath(w->roots[0].fd, dir, true);
	struct stat st;
	size_t len = 0;
	int r;

	*strrchr(dirpath, '/') = '\0';
	if (dirfd == -ENOENT || dirfd == -ENOTDIR)
		return; /* its directory moved: the path names nothing */
	if (dirfd < 0) {
		wl_fail(w, xasprintf("cannot open the directory of %s, which "
				     "%s reads later: %s",
				     shown, h->reader,
				     dirfd == -ELOOP || dirfd == -EXDEV
					     ? "the command made a symbolic "
					       "link or mount on the way"
					     : strerror(-dirfd)));
		return;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!at_end && same_stat(h, &st))
			return;
		r = wl_read_beneath(dirfd, name, WATCHLATER_HOLD_MAX_SIZE, &st,
				    &text, &len);
		if (r == 0 && len == h->len &&
		    memcmp(text, h->text, len) == 0 && st.st_mode == h->mode) {
			remember_stat(h, &st); /* rewritten as it was */
			return;
		}
		/* git rewrites its config for branches and remotes: only
		 * what could run a command, or send the user's next git
		 * elsewhere (another work tree, another address for a
		 * remote the start had, a branch pushing to a remote it had
		 * not), is undone. */
		if (r == 0 && h->config && strlen(text) == len &&
		    (unsafe = gitguard_config_unsafe_change(h->text, text)) ==
			    NULL)
			return;
		if (unsafe != NULL) {
			_cleanup_free_ char *u = text_shown(unsafe);

			reader = xasprintf("%s (it sets %s)", h->reader, u);
		}
		wl_move_aside_as(w, dirfd, dirpath, name,
				 reader != NULL ? reader : h->reader,
				 "changed");
	} else if (errno != ENOENT) {
		wl_fail(w, xasprintf("cannot look at %s: %s", shown,
				     strerror(errno)));
		return;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* Not moved (wl_move_aside_as said why when it failed), or
		 * made again meanwhile: looked at again next time, and at
		 * the end it must be the start's. */
		if (!same_stat(h, &st))
			wl_fail(w, xasprintf("%s, which %s reads later, was "
					     "changed and is not as it was at "
					     "the start",
					     shown, h->reader));
		return;
	}
	if ((r = hold_restore(w, h, dirfd, dirpath, name)) < 0) {
		wl_fail(w, xasprintf("cannot restore %s, which %s reads "
				     "later, as it was at the start: %s",
				     shown, h->reader, strerror(-r)));
		return;
	}
	if (++w->n_moved <= WATCHLATER_MAX_LINES)
		strv_push_take(&w->lines,
			       xasprintf("llwrap: %s restored as it was at "
					 "the start",
					 shown));
}

/* The directory fd (O_PATH) listed, or NULL and errno.  One of this
 * user's the command made unreadable (chmod 300: git still runs a hook
 * there) is given its owner's rwx back, through the descriptor. */
static DIR *
hold_list(int fd)
{
	char link[sizeof("/proc/self/fd/") + 12];
	struct stat st;
	DIR *d;
	int rfd, e;

	for (int again = 0;; again++) {
		rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rfd >= 0 && (d = fdopendir(rfd)) != NULL)
			return d;
		e = errno;
		if (rfd >= 0)
			close(rfd);
		if (again > 0 || e != EACCES || fstat(fd, &st) < 0 ||
		    st.st_uid != geteuid())
			break;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		if (chmod(link, (st.st_mode & 07777) | S_IRWXU) < 0)
			break;
	}
	errno = e;
	return NULL;
}

/* One held directory: a new name in it moved aside (in hooks/, not
 * git's samples); one that is not a directory any more, moved aside and
 * made again (its files are restored next). */
static void
hold_check_dir(struct watchlater *w, struct held *h)
{
	_cleanup_free_ char *shown = text_shown(h->path);
	_cleanup_free_ char *dirpath = xstrdup(h->path);
	const char *name;
	_cleanup_free_ char *up = hold_dir_of(h->rel, &name);
	_cleanup_close_ int upfd = wl_open_beneath(w->roots[0].fd, up, true);
	_cleanup_close_ int fd = -1;
	struct stat st;
	DIR *d;
	struct dirent *e;

	*strrchr(dirpath, '/') = '\0';
	if (upfd < 0)
		return; /* hold_check_file says why, for its files */
	if (fstatat(upfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISDIR(st.st_mode))
		wl_move_aside_as(w, upfd, dirpath, name, h->reader, "replaced");
	if (fstatat(upfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	    errno == ENOENT && mkdirat(upfd, name, 0755) < 0 &&
	    errno != EEXIST) {
		wl_fail(w, xasprintf("cannot make %s again: %s", shown,
				     strerror(errno)));
		return;
	}
	fd = wl_open_beneath(upfd, name, true);
	if (fd < 0) {
		wl_fail(w,
			xasprintf("cannot open %s: %s", shown, strerror(-fd)));
		return;
	}
	if ((d = hold_list(fd)) == NULL) {
		/* Not listed, nothing new in it would be seen, and git
		 * needs only search permission to run a hook there. */
		wl_fail(w, xasprintf("cannot list %s, which %s reads later: "
				     "%s",
				     shown, h->reader, strerror(errno)));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		/* Not llwrap's own moves aside, but a name that looks like
		 * one: the command's (a reader may take every name). */
		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    wl_is_aside(w, fd, e->d_name) ||
		    strv_contains(h->names, e->d_name) ||
		    (h->hooks && !wl_is_hook(e->d_name)))
			continue;
		wl_move_aside(w, fd, h->path, e->d_name, h->reader);
	}
	closedir(d);
}

void
wl_hold_check(struct watchlater *w, bool at_end)
{
	/* Directories first: one made again holds its files. */
	for (size_t i = 0; i < w->n_held; i++)
		if (w->held[i].dir)
			hold_check_dir(w, &w->held[i]);
	for (size_t i = 0; i < w->n_held; i++)
		if (!w->held[i].dir)
			hold_check_file(w, &w->held[i], at_end);
}

void
wl_hold_free(struct watchlater *w)
{
	for (size_t i = 0; i < w->n_held; i++) {
		free(w->held[i].rel);
		free(w->held[i].path);
		free(w->held[i].text);
		strv_free(w->held[i].names);
	}
	free(w->held);
}
