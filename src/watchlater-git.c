/*
 * The repository's checks of the watch on files run later
 * (watchlater-int.h): the index read without blocking and its gitlinks
 * validated as git validates them, a submodule checkout's new .git moved
 * aside, a repository the command made (git init) checked as it changes
 * (its config, its hooks), the repositories under modules/ that
 * git submodule update would take, and the other repositories in the
 * project, at any depth, and those inside them (their submodules',
 * their linked worktrees'), after the run.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "compat/syscall.h"
#include "fdutil.h"
#include "gitconfig.h"
#include "gitguard.h"
#include "mono.h"
#include "path.h"
#include "strv.h"
#include "testhook.h"
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

/* The index (or a shared index), up to WATCHLATER_MAX_INDEX. */
static int
index_read(int gitdir_fd, const char *name, char **buf, size_t *len)
{
	return wl_read_beneath(gitdir_fd, name, WATCHLATER_MAX_INDEX, NULL, buf,
			       len);
}

/* A config (config, config.worktree), up to WATCHLATER_MAX_CONFIG: git's
 * own are small, and one read per repository the end finds must not
 * keep the user waiting (a sparse file of the index's bound reads for a
 * second). */
static int
config_read(int gitdir_fd, const char *name, char **buf, size_t *len)
{
	return wl_read_beneath(gitdir_fd, name, WATCHLATER_MAX_CONFIG, NULL,
			       buf, len);
}

/* Why a config could not be read as git reads it (r < 0), or the NUL
 * git reads past. */
static const char *
config_unread(int r)
{
	if (r == -EFBIG)
		return "it is larger than 1 MiB, the most llwrap reads of a "
		       "config";
	return r < 0 ? strerror(-r) : "it holds a NUL";
}

/* The gitlinks of the index, validated; NULL and a failure when it
 * cannot be read (an index git could read and llwrap cannot is not
 * passed over), NULL alone when there is none. */
char **
wl_index_links(struct watchlater *w, int gitdir_fd, const char *gitdir,
	       char ***hidden)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_strv_ char **all = NULL;
	char **links = xcalloc(1, sizeof(char *));
	size_t len = 0;
	_cleanup_free_ char *shared = NULL, *invalid = NULL;
	const char *file = "index";
	int r = index_read(gitdir_fd, file, &buf, &len);

	if (r == 0)
		r = gitguard_index_scan(buf, len, w->hash_len, &all, &shared,
					&invalid, hidden);
	/* A split index (core.splitIndex): the entries of the shared
	 * index it links to are git's too. */
	if (r == 0 && invalid == NULL && shared != NULL) {
		_cleanup_strv_ char **more = NULL, **hid = NULL;

		free(buf);
		buf = NULL;
		file = shared;
		if ((r = index_read(gitdir_fd, file, &buf, &len)) == 0 &&
		    (r = gitguard_index_scan(
			     buf, len, w->hash_len, &more, NULL, &invalid,
			     hidden != NULL ? &hid : NULL)) == 0) {
			for (char **h = hid; h != NULL && *h != NULL; h++)
				strv_push(hidden, *h);
			size_t n = strv_length(all), m = strv_length(more);

			all = xreallocarray(all, n + m + 1, sizeof(char *));
			memcpy(all + n, more, (m + 1) * sizeof(char *));
			free(steal_pointer(&more));
		}
	}
	if (r == -ENOENT && file == shared) {
		r = -EINVAL;
	} else if (r == -ENOENT) {
		return links;
	}
	if (r < 0) {
		_cleanup_free_ char *shown = text_shown(gitdir);

		/* Host git may read what llwrap cannot, and go into the
		 * submodules it names: the index goes aside (git reset
		 * makes a new one from HEAD), and the run fails. */
		if (r == -EINVAL || r == -E2BIG)
			wl_move_aside(w, gitdir_fd, gitdir, file,
				      "git (an index llwrap cannot read)");
		wl_fail(w,
			xasprintf("cannot read the git index %s/%s: %s", shown,
				  file,
				  r == -EINVAL	? "not an index llwrap can read"
				  : r == -E2BIG ? "more submodule entries than "
						  "llwrap reads"
						: strerror(-r)));
		strv_free(links);
		return NULL;
	}
	if (invalid != NULL) {
		/* An entry git never writes, which the user's checkout of
		 * files from the index would (.git/hooks/post-checkout:
		 * written into the repository, and run): the index goes
		 * aside, and the run fails (review L, L4). */
		_cleanup_free_ char *shown = text_shown(invalid);
		_cleanup_free_ char *dir = text_shown(gitdir);
		_cleanup_free_ char *why = xasprintf(
			"git checkout and restore (it holds an entry '%s', a "
			"path git itself never writes)",
			shown);

		wl_move_aside(w, gitdir_fd, gitdir, file, why);
		wl_fail(w, xasprintf("the command wrote an entry '%s' into "
				     "the git index %s/%s, a path git itself "
				     "refuses to write (git checkout -- . "
				     "would write it there)",
				     shown, dir, file));
		strv_free(links);
		return NULL;
	}
	for (char **l = all; *l != NULL; l++) {
		/* Git would not write it, and host git may still go into
		 * what it names (./sub, sub/): a failure, and what it names
		 * is checked as written, beneath the project, where nothing
		 * protected is ever moved (a gitlink "." is the project). */
		if (!gitguard_verify_path(*l)) {
			_cleanup_free_ char *shown = text_shown(*l);

			wl_fail(w,
				xasprintf("the command wrote a submodule entry "
					  "'%s' into the git index, a path git "
					  "itself refuses to write",
					  shown));
		}
	}
	strv_free(links);
	return steal_pointer(&all);
}

/* The entries the index (and a shared index it links to) in gitdir_fd
 * hides from git status and diff (gitguard_index_scan), or NULL; what
 * it cannot read, wl_index_links said. */
static char **
index_hidden(struct watchlater *w, int gitdir_fd)
{
	_cleanup_free_ char *buf = NULL, *shared = NULL, *invalid = NULL;
	_cleanup_strv_ char **links = NULL, **more = NULL, **no = NULL;
	char **hidden = NULL;
	size_t len = 0;

	if (index_read(gitdir_fd, "index", &buf, &len) < 0 ||
	    gitguard_index_scan(buf, len, w->hash_len, &links, &shared,
				&invalid, &hidden) < 0)
		return NULL;
	if (shared != NULL) {
		free(buf);
		buf = NULL;
		if (index_read(gitdir_fd, shared, &buf, &len) == 0 &&
		    gitguard_index_scan(buf, len, w->hash_len, &no, NULL, NULL,
					&more) == 0)
			for (char **m = more; m != NULL && *m != NULL; m++)
				strv_push(&hidden, *m);
	}
	return hidden;
}

/*
 * The replace refs of the repository in gitdir_fd (refs/replace/ID,
 * loose or packed), or NULL: git shows the object a replace ref names in
 * place of ID everywhere (git status compares the index with HEAD's
 * replacement), so one made by the command can hide what it staged from
 * the user's git status, git diff HEAD and git log (review L, L5).
 */
static char **
replace_refs(int gitdir_fd)
{
	_cleanup_free_ char *packed = NULL;
	char **v = NULL;
	size_t len = 0;
	int fd = -1;
	DIR *d;

	{
		int at = wl_open_beneath(gitdir_fd, "refs/replace", true);

		if (at >= 0) {
			fd = openat(at, ".",
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			close(at);
		}
	}
	if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
		struct dirent *e;

		while ((e = readdir(d)) != NULL && strv_length(v) < 4096)
			if (e->d_name[0] != '.')
				strv_push_take(&v, xasprintf("refs/replace/%s",
							     e->d_name));
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	if (wl_read_beneath(gitdir_fd, "packed-refs", WATCHLATER_MAX_INDEX,
			    NULL, &packed, &len) == 0)
		for (char *save = NULL, *l = strtok_r(packed, "\n", &save);
		     l != NULL && strv_length(v) < 8192;
		     l = strtok_r(NULL, "\n", &save)) {
			char *ref = strchr(l, ' ');

			if (ref != NULL &&
			    strncmp(ref + 1, "refs/replace/", 13) == 0 &&
			    !strv_contains(v, ref + 1))
				strv_push(&v, ref + 1);
		}
	return v;
}

/* The replace refs the repository d has that the start's had not:
 * named (replace_refs). */
static void
replace_refs_check(struct watchlater *w, const struct wdir *d)
{
	_cleanup_strv_ char **refs = replace_refs(d->fd), **made = NULL;

	for (char **r = refs; r != NULL && *r != NULL; r++)
		if (!strv_contains(d->replaced, *r) && strv_length(made) < 8)
			strv_push_take(&made, text_shown(*r));
	if (made != NULL) {
		_cleanup_free_ char *names = strv_join(made, ", ");
		_cleanup_free_ char *at =
			text_shown(d->wt_path != NULL ? d->wt_path : d->path);

		strv_push_take(
			&w->lines,
			xasprintf("llwrap: the command made replace refs "
				  "in the git repository of %s (%s): git "
				  "status, git diff HEAD and git log show "
				  "the objects they name in place of "
				  "yours, which can hide what it staged; "
				  "review them (git replace -l) and run "
				  "git --no-replace-objects status, or "
				  "delete them (git replace -d ID)",
				  at, names));
	}
}

void
wl_index_hidden_check(struct watchlater *w, const struct wdir *d)
{
	replace_refs_check(w, d);
	wl_index_blob_check(w, d->fd, d->wt_fd,
			    d->wt_path != NULL ? d->wt_path : d->path);
	_cleanup_strv_ char **now = index_hidden(w, d->fd);
	_cleanup_strv_ char **fresh = NULL;
	_cleanup_free_ char *list = NULL, *shown = NULL, *dir = NULL;
	size_t n;

	for (char **p = now; p != NULL && *p != NULL; p++)
		if (!strv_contains(d->hidden, *p) && !strv_contains(fresh, *p))
			strv_push_take(&fresh, text_shown(*p));
	if ((n = strv_length(fresh)) == 0)
		return;
	if (n > 8) {
		free(fresh[8]);
		fresh[8] = xstrdup("...");
		for (size_t i = 9; i < n; i++) {
			free(fresh[i]);
			fresh[i] = NULL;
		}
	}
	list = strv_join(fresh, ", ");
	dir = text_shown(d->wt_path != NULL ? d->wt_path : d->path);
	strv_push_take(&w->lines,
		       xasprintf("llwrap: the command marked %zu file%s in the "
				 "git index of %s as unchanged "
				 "(assume-unchanged or skip-worktree): git "
				 "status and git diff do not show what it "
				 "changed there: %s; review them (git ls-files "
				 "-v | grep -v '^H') before running anything "
				 "of the project's, and clear the marks with "
				 "git update-index --no-assume-unchanged "
				 "--no-skip-worktree FILE",
				 n, n == 1 ? "" : "s", dir, list));
}

/*
 * MERGE_RR, git rerere's list of conflicts, "ID[.VARIANT]\tPATH" records
 * each ended by a NUL: where rr-cache/ exists (rerere is then on, with
 * rerere.enabled unset), git commit, merge, rebase and am copy each PATH
 * whose file holds no conflict markers into rr-cache/ID/postimage, PATH
 * unchecked: a record "../.ssh/id_ed25519" copied the user's key into the
 * repository, where the next run reads it (review L, L8).  A record
 * whose path git itself would not write (gitguard_verify_path), one
 * git's reader refuses, or a MERGE_RR llwrap cannot read as a regular
 * file is moved aside (git then records nothing), and the run fails.
 * Where its work tree is known (wt_fd, else -1), so is a record whose
 * file is reached through a symbolic link there, the last component
 * included: rerere opens PATH following links ("lnk" ->
 * ~/.ssh/id_ed25519 was copied alike; review R), and git never records
 * a conflict but in a regular file.
 */
static void
merge_rr_check(struct watchlater *w, int gitdir_fd, const char *gitdir,
	       int wt_fd)
{
	_cleanup_free_ char *text = NULL, *bad = NULL, *dir = NULL;
	size_t len = 0, hex = 2 * w->hash_len;
	int r = wl_read_beneath(gitdir_fd, "MERGE_RR", WATCHLATER_MAX_CONFIG,
				NULL, &text, &len);

	if (r == -ENOENT)
		return;
	if (r < 0)
		bad = xasprintf("it cannot be read as a regular file: %s",
				strerror(-r));
	for (size_t at = 0; r == 0 && at < len && bad == NULL;) {
		const char *rec = text + at;
		const char *nul = memchr(rec, '\0', len - at);
		size_t n = nul != NULL ? (size_t)(nul - rec) : len - at;
		const char *tab = memchr(rec, '\t', n);
		_cleanup_free_ char *path = NULL, *shown = NULL;
		bool hexok = n >= hex + 2;

		at += n + 1;
		for (size_t i = 0; hexok && i < hex; i++)
			hexok = isxdigit((unsigned char)rec[i]);
		if (!hexok || tab == NULL || (size_t)(tab - rec) < hex) {
			bad = xstrdup("a record git's reader refuses");
			break;
		}
		path = xstrndup(tab + 1, n - (size_t)(tab - rec) - 1);
		shown = text_shown(path);
		if (!gitguard_verify_path(path)) {
			bad = xasprintf("a path '%s', which git itself never "
					"writes",
					shown);
		} else if (wt_fd >= 0) {
			int fd = wl_open_beneath(wt_fd, path, false);

			if (fd >= 0)
				close(fd);
			else if (fd != -ENOENT && fd != -ENOTDIR)
				bad = xasprintf("a path '%s' git would open "
						"through a symbolic link (or "
						"that cannot be looked at: %s)",
						shown, strerror(-fd));
		}
	}
	if (bad == NULL)
		return;
	dir = text_shown(gitdir);
	wl_move_aside(w, gitdir_fd, gitdir, "MERGE_RR",
		      "git commit, merge and rebase (rerere copies the files "
		      "its records name into the repository)");
	wl_fail(w, xasprintf("the command wrote git rerere's %s/MERGE_RR "
			     "with %s (git commit would copy that file into "
			     "the repository)",
			     dir, bad));
}

/*
 * Every gitlink of the index whose checkout now has a .git that was not
 * one of the protected paths at the start: moved aside; one that has no
 * .git yet: watched for one.
 */
void
wl_check_gitlinks(struct watchlater *w, const struct wdir *gd)
{
	_cleanup_strv_ char **links = NULL;
	_cleanup_free_ char *wt_path = NULL;
	_cleanup_close_ int wt_fd = -1;

	merge_rr_check(w, gd->fd, gd->path, gd->wt_fd);
	links = wl_index_links(w, gd->fd, gd->path, NULL);
	/* gd may move (wdir_add): its work tree, as it is now. */
	wt_path = xstrdup(gd->wt_path != NULL ? gd->wt_path : gd->path);
	wt_fd = gd->wt_fd >= 0 ? fcntl(gd->wt_fd, F_DUPFD_CLOEXEC, 3) : -1;

	if (wt_fd < 0) {
		_cleanup_free_ char *shown = text_shown(wt_path);

		wl_fail(w, xasprintf("cannot look at the checkouts of the "
				     "repository %s: %s",
				     shown,
				     gd->wt_fd < 0 ? "no work tree known"
						   : strerror(errno)));
		return;
	}
	for (char **l = links; l != NULL && *l != NULL; l++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", wt_path, *l);
		struct stat st;
		struct wdir *d;
		int fd = wl_open_beneath(wt_fd, *l, true);

		if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP) {
			/* Not there, or not without a symlink (which git
			 * does not look through for a submodule). */
			continue;
		}
		if (fd < 0 || fstat(fd, &st) < 0) {
			_cleanup_free_ char *shown = text_shown(path);

			wl_fail(w,
				xasprintf("cannot open the submodule checkout "
					  "%s: %s",
					  shown,
					  strerror(fd < 0 ? -fd : errno)));
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (fstatat(fd, ".git", &(struct stat){ 0 },
			    AT_SYMLINK_NOFOLLOW) == 0) {
			wl_move_aside(w, fd, path, ".git",
				      "git (a submodule's repository)");
			close(fd);
			continue;
		}
		if ((d = wdir_find(w, &st)) != NULL) {
			close(fd);
		} else if ((d = wdir_add(w, fd, &st, path)) == NULL) {
			continue;
		}
		wdir_name(d, ".git", "git (a submodule's repository)", true);
		/* It may have come between the look and the watch. */
		wl_move_aside(w, d->fd, d->path, ".git",
			      "git (a submodule's repository)");
	}
}

/* A hook in the hooks/ of a repository the command made: anything but
 * git init's samples (which git never runs).  What llwrap moved aside
 * there its callers leave (wl_is_aside). */
bool
wl_is_hook(const char *name)
{
	size_t n = strlen(name);

	return strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	       (n < 7 || strcmp(name + n - 7, ".sample") != 0);
}

/*
 * Whether core.worktree (value) of the new repository at dir names, as the
 * user's git resolves it (relative to dir), a directory of the project
 * reached without a link, in no .git: git writes one for a submodule's
 * repository (its checkout); one naming the home would make the user's
 * next checkout write there.
 */
static bool
worktree_beneath(struct watchlater *w, const char *dir, const char *value)
{
	_cleanup_free_ char *joined = xasprintf("%s/%s", dir, value);
	_cleanup_free_ char *path =
		path_normalise(value[0] == '/' ? value : joined);
	const char *project = w->roots[0].path, *rel;
	_cleanup_close_ int fd = -1;

	if (value[0] == '\0' || !path_under(path, project))
		return false;
	rel = path + strlen(project);
	rel += *rel == '/';
	for (const char *c = rel; *c != '\0';
	     c += strcspn(c, "/"), c += strspn(c, "/"))
		if (strncasecmp(c, ".git", 4) == 0 &&
		    (c[4] == '/' || c[4] == '\0'))
			return false;
	if (*rel == '\0')
		return true;
	fd = wl_open_beneath(w->roots[0].fd, rel, true);
	return fd >= 0;
}

/* What a config with nothing of the start's to compare with (a new
 * repository's, a submodule's) sets that could run a command or send
 * the user's git elsewhere (gitguard_config_unsafe), its core.worktree
 * judged by where it points from the git directory dir; NULL when
 * nothing. */
static char *
config_unsafe_new(struct watchlater *w, const char *dir, const char *text)
{
	_cleanup_free_ char *worktree = NULL;
	char *unsafe = gitguard_config_unsafe_worktree(text, &worktree);

	if (unsafe == NULL && worktree != NULL &&
	    !worktree_beneath(w, dir, worktree))
		unsafe = xasprintf("core.worktree to '%s', not a directory of "
				   "the project",
				   worktree);
	return unsafe;
}

/* The new repository's config (and its legacy remote files:
 * wl_remotes_check): moved aside when it sets what could run a
 * command in the user's next git (gitguard_config_unsafe; core.worktree
 * only outside the project: worktree_beneath), or when llwrap cannot read
 * it as git would (a link, which git follows; a NUL, which git reads
 * past; more than llwrap reads). */
static void
config_check(struct watchlater *w, int dirfd, const char *dir)
{
	_cleanup_free_ char *text = NULL, *unsafe = NULL, *shown = NULL;
	_cleanup_free_ char *reader = NULL;
	struct stat st;
	size_t len;
	int r = config_read(dirfd, "config", &text, &len);

	/* Its legacy remote files route a push as its remotes do. */
	wl_remotes_check(w, dirfd, dir, true);
	if (r == -ENOENT)
		return;
	/* Another name would let the next run write it past the mask
	 * the config gets then (a hard link in the project). */
	if (fstatat(dirfd, "config", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && st.st_nlink > 1) {
		wl_move_aside(w, dirfd, dir, "config",
			      "git (the command gave it another name, a hard "
			      "link it could write it through)");
		return;
	}
	if (r < 0 || strlen(text) != len) {
		reader =
			xasprintf("git (llwrap cannot read it as git does: %s)",
				  config_unread(r));
		wl_move_aside(w, dirfd, dir, "config", reader);
		return;
	}
	if ((unsafe = config_unsafe_new(w, dir, text)) == NULL)
		return;
	shown = text_shown(unsafe);
	reader = xasprintf("git (it sets %s)", shown);
	wl_move_aside(w, dirfd, dir, "config", reader);
}

void
wl_newrepo_config(struct watchlater *w, const struct wdir *gd)
{
	config_check(w, gd->fd, gd->path);
}

/* The hooks in the hooks/ directory hooks_fd (O_PATH) lists (wl_is_hook),
 * in *names (NULL: none): 0, or -errno when it cannot be listed. */
static int
hook_names(int hooks_fd, char ***names)
{
	int fd = openat(hooks_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int r = -errno;

	*names = NULL;
	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	while ((e = readdir(dir)) != NULL)
		if (wl_is_hook(e->d_name))
			strv_push(names, e->d_name);
	closedir(dir);
	return 0;
}

/* The hooks of the new repository: each one moved aside. */
void
wl_newrepo_hooks(struct watchlater *w, int hooks_fd, const char *path)
{
	_cleanup_strv_ char **names = NULL;

	(void)hook_names(hooks_fd, &names);

	for (char **h = names; h != NULL && *h != NULL; h++)
		if (!wl_is_aside(w, hooks_fd, *h))
			wl_move_aside(w, hooks_fd, path, *h,
				      "git (a hook of a repository the command "
				      "made)");
}

/* dir/name, where git would take a directory and follows a link (a
 * repository's hooks/ or modules/, a submodule's repository): a link
 * moved aside (not one the start had there); true when it is a directory to
 * look into, false when there is none (or not a directory); any other failure
 * is the check's. */
static bool
git_dir_at(struct watchlater *w, int dirfd, const char *dir, const char *name,
	   int fd, const char *reader)
{
	_cleanup_free_ char *path = NULL, *shown = NULL;

	if (fd >= 0)
		return true;
	if (fd == -ENOENT || fd == -ENOTDIR)
		return false;
	if (fd == -ELOOP) {
		if (!wl_gitdir_had(w, dirfd, name))
			wl_move_aside(w, dirfd, dir, name, reader);
		return false;
	}
	path = xasprintf("%s/%s", dir, name);
	shown = text_shown(path);
	wl_fail(w, xasprintf("cannot open %s: %s", shown, strerror(-fd)));
	return false;
}

/* hooks/ of the new repository gd (at index at), watched from now. */
void
wl_newrepo_watch_hooks(struct watchlater *w, size_t at)
{
	_cleanup_free_ char *path = xasprintf("%s/hooks", w->dirs[at].path);
	struct stat st;
	struct wdir *h;
	int fd = wl_open_beneath(w->dirs[at].fd, "hooks", true);

	/* Not there yet (its creation calls this again), or not a
	 * directory git runs hooks from; a link moved aside. */
	if (!git_dir_at(w, w->dirs[at].fd, w->dirs[at].path, "hooks", fd,
			"git (the hooks of a repository the command made)"))
		return;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w,
			xasprintf("cannot look at %s: %s", shown, strerror(e)));
		close(fd);
		return;
	}
	if ((h = wdir_find(w, &st)) == NULL &&
	    (h = wdir_add(w, fd, &st, path)) == NULL)
		return;
	if (h->fd != fd)
		close(fd);
	h->hooks = true;
	wl_newrepo_hooks(w, h->fd, h->path);
}

/*
 * The project had no repository and the command made one (git init): it
 * may, but nothing in it may run a command in the user's next git there.
 * Its directory is watched as the project's repository is (the index's
 * gitlinks, a new commondir or config.worktree moved aside), and its
 * config and hooks are checked as they change and at the end.  A .git
 * that is not a directory (a file naming another repository, a link) is
 * moved aside at once.
 */
void
wl_newrepo_check(struct watchlater *w, bool at_end)
{
	const struct root *proj = &w->roots[0];
	struct stat st;
	struct wdir *gd;
	size_t at;
	int fd;

	if (fstatat(proj->fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		wl_move_aside(w, proj->fd, proj->path, ".git",
			      "git (a repository the command named)");
		return;
	}
	fd = wl_open_beneath(proj->fd, ".git", true);
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
		return; /* changed meanwhile: looked at again, and at the end */
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = fd < 0 ? -fd : errno;
		_cleanup_free_ char *path = xasprintf("%s/.git", proj->path);
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w,
			xasprintf("cannot open the repository %s the command "
				  "made: %s",
				  shown, strerror(e)));
		if (fd >= 0)
			close(fd);
		return;
	}
	if ((gd = wdir_find(w, &st)) == NULL) {
		_cleanup_free_ char *path = xasprintf("%s/.git", proj->path);

		if ((gd = wdir_add(w, fd, &st, path)) == NULL)
			return;
		gd->gitdir = gd->newrepo = gd->special = true;
		gd->wt_fd = fcntl(proj->fd, F_DUPFD_CLOEXEC, 3);
		gd->wt_path = xstrdup(proj->path);
		wdir_name(gd, "commondir", "git", true);
		wdir_name(gd, "config.worktree", "git", true);
	} else {
		close(fd);
	}
	at = (size_t)(gd - w->dirs);
	wl_newrepo_config(w, &w->dirs[at]);
	wl_newrepo_watch_hooks(w, at);
	wl_names_at(w, w->dirs[at].fd, w->dirs[at].path, w->dirs[at].names,
		    w->dirs[at].n_names, at_end);
	w->dirs[at].changed = true;
}

/*
 * The repositories under a repository's modules/ (each submodule's, at
 * modules/NAME, NAME maybe with slashes) that were not there at the
 * start: git submodule update --init takes one it finds there for the
 * submodule's, and runs what its configuration and hooks say.  Each is
 * checked as a repository the command made (its config, its hooks), at
 * most MODULES_MAX directories, MODULES_DEPTH deep; more fails the run.
 */
#define MODULES_MAX   4096
#define MODULES_DEPTH 8

static void
modules_walk(struct watchlater *w, int dirfd, const char *dir, int depth,
	     size_t *seen)
{
	_cleanup_free_ char *shown = text_shown(dir);
	DIR *d = wl_list(w, dirfd, dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *path = NULL;
		_cleanup_close_ int sub = -1;
		struct stat st;
		bool repo;

		/* llwrap's own moves aside only: a name that looks like one
		 * is the command's, and git takes it when .gitmodules names
		 * it. */
		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    wl_is_aside(w, dirfd, e->d_name))
			continue;
		if (++*seen > MODULES_MAX || depth > MODULES_DEPTH) {
			wl_fail(w,
				xasprintf("more submodule repositories under "
					  "%s than llwrap looks at",
					  shown));
			break;
		}
		sub = wl_open_beneath(dirfd, e->d_name, true);
		if (!git_dir_at(w, dirfd, dir, e->d_name, sub,
				"git (submodule update follows a link to a "
				"submodule's repository)"))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (fstat(sub, &st) < 0) {
			int err = errno;
			_cleanup_free_ char *ps = text_shown(path);

			wl_fail(w, xasprintf("cannot look at %s: %s", ps,
					     strerror(err)));
			continue;
		}
		repo = fstatat(sub, "HEAD", &(struct stat){ 0 },
			       AT_SYMLINK_NOFOLLOW) == 0 ||
		       fstatat(sub, "config", &(struct stat){ 0 },
			       AT_SYMLINK_NOFOLLOW) == 0;
		if (!repo) {
			modules_walk(w, sub, path, depth + 1, seen);
			continue;
		}
		if (!wl_key_in(w->protect, w->n_protect, &st)) {
			_cleanup_close_ int hooks =
				wl_open_beneath(sub, "hooks", true);
			_cleanup_free_ char *hp = xasprintf("%s/hooks", path);

			config_check(w, sub, path);
			if (git_dir_at(w, sub, path, "hooks", hooks,
				       "git (the hooks of a submodule's "
				       "repository)"))
				wl_newrepo_hooks(w, hooks, hp);
		}
		{
			_cleanup_close_ int mods =
				wl_open_beneath(sub, "modules", true);
			_cleanup_free_ char *mp = xasprintf("%s/modules", path);

			if (git_dir_at(w, sub, path, "modules", mods,
				       "git (submodule update follows a link "
				       "to the submodules' repositories)"))
				modules_walk(w, mods, mp, depth + 1, seen);
		}
	}
	closedir(d);
}

void
wl_modules_check(struct watchlater *w, const struct wdir *gd)
{
	_cleanup_free_ char *path = xasprintf("%s/modules", gd->path);
	_cleanup_close_ int fd = wl_open_beneath(gd->fd, "modules", true);
	size_t seen = 0;

	if (git_dir_at(w, gd->fd, gd->path, "modules", fd,
		       "git (submodule update follows a link to the "
		       "submodules' repositories)"))
		modules_walk(w, fd, path, 0, &seen);
}

/* The object id length of the repository at gitdir (its config, or the
 * common directory's). */
size_t
wl_repo_hash_len(const char *gitdir, const char *common)
{
	const char *dirs[] = { common, gitdir };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		_cleanup_free_ char *path = NULL, *text = NULL;
		_cleanup_close_ int fd = -1;

		if (dirs[i] == NULL)
			continue;
		path = xasprintf("%s/config", dirs[i]);
		fd = fd_open_regular(AT_FDCWD, path, O_NOFOLLOW);
		if (fd >= 0 && fd_read_all(fd, 1 << 20, &text, NULL) == 0)
			return gitguard_hash_len(text);
	}
	return GITGUARD_SHA1_LEN;
}

/* The repository: its directory watched (the index), the checkouts of
 * its gitlinks recorded as they are at the start. */
void
wl_watch_repository(struct watchlater *w, const char *gitdir, int wt_fd,
		    const char *wt_path)
{
	_cleanup_strv_ char **links = NULL;
	struct stat st;
	struct wdir *d;
	size_t root;

	if ((d = wl_dir_at(w, gitdir, &root)) == NULL || d->gitdir)
		return;
	d->gitdir = true;
	d->wt_fd = fcntl(wt_fd, F_DUPFD_CLOEXEC, 3);
	d->wt_path = xstrdup(wt_path);
	/* The start: a checkout that has its .git now is the user's; what
	 * the index hides from git status now, the user's choice. */
	links = wl_index_links(w, d->fd, d->path, &d->hidden);
	d->replaced = replace_refs(d->fd);
	for (char **l = links; l != NULL && *l != NULL; l++) {
		_cleanup_close_ int fd = wl_open_beneath(wt_fd, *l, true);

		if (fd >= 0 && fstat(fd, &st) == 0)
			wl_protect_add(w, &st);
		if (fd >= 0 &&
		    fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
			wl_protect_add(w, &st);
	}
}

/*
 * The repositories of the submodules checked out at the start (their
 * .git files, as gitguard found them from .gitmodules, nested ones
 * included): each index is watched as the project's is, its gitlinks
 * beneath its checkout, so that a nested repository registered inside a
 * submodule (which host git status goes into) is moved aside too.
 */
void
wl_watch_submodules(struct watchlater *w, const char *project,
		    const struct gitguard *git)
{
	_cleanup_free_ char *own = xasprintf("%s/.git", project);

	for (size_t i = 0; i < git->n; i++) {
		const char *f = git->v[i].path;
		size_t n = strlen(f);
		_cleanup_free_ char *text = NULL, *checkout = NULL;
		_cleanup_free_ char *gitdir = NULL;
		_cleanup_close_ int fd = -1;
		const char *rel, *line;

		if (git->v[i].kind != GITGUARD_RO || n < 5 ||
		    strcmp(f + n - 5, "/.git") != 0 || strcmp(f, own) == 0 ||
		    wl_root_of(w, f, &rel) != 0)
			continue;
		text = gitguard_fs_real.read_file(NULL, f);
		if (text == NULL || strncmp(text, "gitdir:", 7) != 0)
			continue;
		line = text + 7 + strspn(text + 7, " \t");
		text[strcspn(text, "\r\n")] = '\0';
		checkout = xstrndup(f, n - 5);
		if (line[0] == '/') {
			gitdir = path_normalise(line);
		} else {
			_cleanup_free_ char *joined =
				xasprintf("%s/%s", checkout, line);

			gitdir = path_normalise(joined);
		}
		fd = wl_open_beneath(w->roots[0].fd,
				     checkout + strlen(project) + 1, true);
		if (fd >= 0)
			wl_watch_repository(w, gitdir, fd, checkout);
	}
}

/*
 * The repositories in the project other than its own (a clone in
 * third_party/, one the command made with git init, a bare one, a
 * linked worktree's .git file), at any depth: git finds one wherever
 * the user's shell prompt or editor runs it, and runs what its config
 * and hooks say.  The start records those of the top level (where VS
 * Code looks), cheaply; the whole project is walked, bounded, during
 * the run and again at the end where it changed (watchlater-walk.c).
 * What changed since the start is told by its change time (st_ctim:
 * the kernel sets it at every write, rename or link, and nothing
 * unprivileged sets it back), against the start's on the same clock.
 */
/* Whether name in dirfd was made since the start (or its birth is not
 * known). */
static bool
nested_born(const struct watchlater *w, int dirfd, const char *name)
{
	struct statx stx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &stx) < 0 ||
	    !(stx.stx_mask & STATX_BTIME))
		return true;
	return stx.stx_btime.tv_sec > w->since.tv_sec ||
	       (stx.stx_btime.tv_sec == w->since.tv_sec &&
		stx.stx_btime.tv_nsec >= (uint32_t)w->since.tv_nsec);
}

static bool
nested_same(const struct wkey *k, const struct stat *st)
{
	return k->dev == st->st_dev && k->ino == st->st_ino;
}

/* The top-level directories, each opened beneath the project: calls fn
 * with its name and its .git's lstat (only where there is one). */
static void
nested_each(struct watchlater *w, void (*fn)(struct watchlater *, int,
					     const char *, const struct stat *))
{
	const struct root *proj = &w->roots[0];
	int fd = openat(proj->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		wl_fail(w, xasprintf("cannot list the project for the "
				     "repositories in its directories: %s",
				     strerror(errno)));
		return;
	}
	while ((e = readdir(dir)) != NULL) {
		struct stat st;
		int sub;

		if (e->d_name[0] == '.' &&
		    (e->d_name[1] == '\0' || strcmp(e->d_name, "..") == 0 ||
		     strcmp(e->d_name, ".git") == 0))
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if ((sub = wl_open_beneath(proj->fd, e->d_name, true)) < 0)
			continue; /* a link, a mount, gone */
		if (fstatat(sub, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0)
			fn(w, sub, e->d_name, &st);
		close(sub);
	}
	closedir(dir);
}

/* The text of a config file, or NULL (none, or not one llwrap reads). */
static char *
nested_text(int gitfd, const char *name, size_t *len)
{
	char *text = NULL;

	if (config_read(gitfd, name, &text, len) < 0 || strlen(text) != *len) {
		free(text);
		return NULL;
	}
	return text;
}

static void
nested_record(struct watchlater *w, int sub, const char *name,
	      const struct stat *st)
{
	struct nested *n;
	struct stat hs;
	int gitfd;

	/* More are checked as the deeper ones are, by change time. */
	if (w->n_nested == WATCHLATER_NESTED_MAX)
		return;
	w->nested =
		xreallocarray(w->nested, w->n_nested + 1, sizeof(*w->nested));
	n = &w->nested[w->n_nested++];
	*n = (struct nested){ .name = xstrdup(name),
			      .key = { st->st_dev, st->st_ino } };
	/* (A .git file: its identity; its change time tells the rest.) */
	if (!S_ISDIR(st->st_mode) ||
	    (gitfd = wl_open_beneath(sub, ".git", true)) < 0)
		return;
	n->config = nested_text(gitfd, "config", &n->len);
	n->config_wt = nested_text(gitfd, "config.worktree", &n->len_wt);
	if (fstatat(gitfd, "hooks", &hs, AT_SYMLINK_NOFOLLOW) == 0)
		n->hooks_key = (struct wkey){ hs.st_dev, hs.st_ino };
	if (fstatat(gitfd, "modules", &hs, AT_SYMLINK_NOFOLLOW) == 0)
		n->modules_key = (struct wkey){ hs.st_dev, hs.st_ino };
	if (fstatat(gitfd, "worktrees", &hs, AT_SYMLINK_NOFOLLOW) == 0)
		n->worktrees_key = (struct wkey){ hs.st_dev, hs.st_ino };
	close(gitfd);
}

void
wl_nested_start(struct watchlater *w)
{
	w->nested_check = true;
	nested_each(w, nested_record);
}

/* A config (config, config.worktree) of the repository gitfd at path:
 * when it changed (or force), moved aside if it sets what runs a command
 * or reroutes git (before: the start's text, NULL when not known), or if
 * llwrap cannot read it as git does; in one the command made, as its
 * own new repository's is (config_check; a config.worktree at all).
 * Whether it is there and changed. */
static bool
nested_config(struct watchlater *w, int gitfd, const char *path,
	      const char *name, const char *before, size_t before_len,
	      bool made, bool force)
{
	_cleanup_free_ char *text = NULL, *unsafe = NULL, *reader = NULL;
	const char *did;
	struct stat st;
	size_t len = 0;
	int r;

	if (fstatat(gitfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int err = errno;

		if (err != ENOENT) {
			_cleanup_free_ char *shown = text_shown(path);

			wl_fail(w, xasprintf("cannot look at %s/%s: %s", shown,
					     name, strerror(err)));
		}
		return false;
	}
	if (made && strcmp(name, "config") == 0) {
		config_check(w, gitfd, path);
		return true;
	}
	if (made) {
		wl_move_aside(w, gitfd, path, name,
			      "git (a repository the command made)");
		return true;
	}
	if (!wl_changed(w, &st) && !force)
		return false;
	/* (git config writes a new file: one the start had is changed.) */
	did = before == NULL && nested_born(w, gitfd, name) ? "created"
							    : "changed";
	r = config_read(gitfd, name, &text, &len);
	if (r < 0 || strlen(text) != len) {
		/* (A NUL git reads past, a link git follows.) */
		reader = xasprintf("git (in a repository nested in the "
				   "project; llwrap cannot read it as git "
				   "does: %s)",
				   config_unread(r));
		wl_move_aside_as(w, gitfd, path, name, reader, did);
		return true;
	}
	if (before != NULL && len == before_len &&
	    memcmp(text, before, len) == 0)
		return true;
	/* Without the start's text (a submodule's repository, a deeper
	 * one) judged whole, as a new repository's, but for core.worktree,
	 * which git writes in every submodule's: judged by where it points
	 * (a directory of the project), as config_check does. */
	unsafe = before == NULL ? config_unsafe_new(w, path, text)
				: gitguard_config_unsafe_change(before, text);
	if (unsafe != NULL) {
		_cleanup_free_ char *u = text_shown(unsafe);

		reader = xasprintf("git (in a repository nested in the "
				   "project, it sets %s)",
				   u);
		wl_move_aside_as(w, gitfd, path, name, reader, did);
	}
	return true;
}

/* The hooks of the repository gitfd at path: every one in a repository
 * the command made, or in a hooks/ that is not the start's; else each
 * that changed.  A hooks/ that is a link (git follows it) or not a
 * directory is moved aside as a hook is. */
static void
nested_hooks(struct watchlater *w, int gitfd, const char *path,
	     const struct nested *n, bool made)
{
	_cleanup_free_ char *hp = xasprintf("%s/hooks", path);
	_cleanup_strv_ char **names = NULL;
	_cleanup_close_ int fd = wl_open_beneath(gitfd, "hooks", true);
	struct stat st;
	bool all;
	int r = 0;

	if (fd == -ENOENT)
		return;
	if (fd == -ELOOP || fd == -ENOTDIR) {
		if (fstatat(gitfd, "hooks", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (made || wl_changed(w, &st)))
			wl_move_aside_as(w, gitfd, path, "hooks",
					 "git (its hooks, through a link)",
					 nested_born(w, gitfd, "hooks")
						 ? "created"
						 : "changed");
		return;
	}
	if (fd >= 0 && fstat(fd, &st) < 0)
		r = -errno;
	else if (fd >= 0)
		r = hook_names(fd, &names);
	if (fd < 0 || r < 0) {
		_cleanup_free_ char *shown = text_shown(hp);

		wl_fail(w, xasprintf("cannot list the hooks in %s: %s", shown,
				     strerror(fd < 0 ? -fd : -r)));
		return;
	}
	/* A hooks/ renamed in keeps its hooks' change times: all of it. */
	all = made || (n != NULL ? !nested_same(&n->hooks_key, &st)
				 : wl_changed(w, &st));
	for (char **h = names; h != NULL && *h != NULL; h++) {
		struct stat hs;

		if (fstatat(fd, *h, &hs, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (!all && !wl_changed(w, &hs)))
			continue;
		wl_move_aside_as(w, fd, hp, *h,
				 "git (a hook of a repository nested in the "
				 "project)",
				 nested_born(w, fd, *h) ? "created"
							: "changed");
	}
}

static void nested_includes(struct watchlater *w, int gitfd, const char *path);

/*
 * The repositories inside a nested repository's directory: its
 * submodules' (modules/NAME, NAME maybe with slashes, a directory with a
 * HEAD), which git uses in each submodule's checkout and which git
 * submodule update --init takes when it finds one there, and its linked
 * worktrees' (worktrees/NAME), which git uses in the worktree wherever
 * that is.  Each is checked as the repository is, with no start's
 * record, within the gitdir walk's bounds, counted over all of one
 * nested repository.
 */
struct inner {
	size_t seen; /* entries of modules/ and worktrees/ listed */
	bool over;   /* past a bound: said once */
};

/*
 * A directory on the way (the repository, modules/, a level of a
 * submodule's name): whether it changed since the start, and whether
 * it is taken as the command's (made).  A directory made or renamed in
 * changes itself and the directory it is in, and what is inside keeps
 * its times: it is made, and all in it.  One where git only wrote (its
 * index, a ref: the user's git in a submodule's checkout or a linked
 * worktree during the run, the command's git status there) changes
 * itself alone, and stays the user's: what changed in it is judged.
 */
struct inner_up {
	bool changed;
	bool made;
};

typedef void inner_fn(struct watchlater *w, int fd, const char *path,
		      struct inner *in, int depth, const struct inner_up *up);

static void nested_repo(struct watchlater *w, int gitfd, const char *path,
			int wt_fd, const struct nested *n, bool made,
			bool worktree, struct inner *in, int depth);

/* The directory fd, in the one up describes. */
static struct inner_up
inner_is(struct watchlater *w, int fd, const struct inner_up *up)
{
	struct stat st;
	bool changed = fstat(fd, &st) < 0 || wl_changed(w, &st);

	return (struct inner_up){
		.changed = changed,
		.made = up->made || (changed && up->changed),
	};
}

/* One more entry at depth beneath the nested repository at path: false
 * (and the run's failure, once) past the bounds. */
static bool
inner_bound(struct watchlater *w, struct inner *in, const char *path, int depth)
{
	_cleanup_free_ char *shown = NULL;

	if (in->over)
		return false;
	if (++in->seen <= WATCHLATER_GITDIR_MAX &&
	    depth <= WATCHLATER_GITDIR_DEPTH)
		return true;
	in->over = true;
	shown = text_shown(path);
	wl_fail(w, xasprintf("a repository nested in the project holds more "
			     "submodules' and linked worktrees' repositories "
			     "than llwrap looks at for what the command "
			     "changed in them (more than %d entries, or "
			     "deeper than %d, at %s): git keeps a submodule's "
			     "repository under .git/modules/ and a linked "
			     "worktree's under .git/worktrees/ (git worktree "
			     "prune removes those of worktrees gone)",
			     WATCHLATER_GITDIR_MAX, WATCHLATER_GITDIR_DEPTH,
			     shown));
	return false;
}

/* The directory fd (O_PATH) at path, as up says, listed: fn called for
 * each directory in it, opened beneath it without a link (a link there
 * is the gitdir walk's, wl_gitdir_nested). */
static void
inner_list(struct watchlater *w, int fd, const char *path, struct inner *in,
	   int depth, const struct inner_up *up, inner_fn *fn)
{
	DIR *d = wl_list(w, fd, path);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *sub = NULL;
		int sfd;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!inner_bound(w, in, path, depth))
			break;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		sub = xasprintf("%s/%s", path, e->d_name);
		if ((sfd = wl_open_or_fail(w, fd, e->d_name, WL_OPEN_DIR,
					   sub)) < 0)
			continue;
		fn(w, sfd, sub, in, depth, up);
		close(sfd);
	}
	closedir(d);
}

/* name (modules/, worktrees/) in the repository gitfd at path (as up
 * says), listed for fn when it is a directory.  start: its identity at
 * the start (a top-level repository's, 0, 0 when it had none), or NULL:
 * with it, a submodule added or removed (which changes modules/) leaves
 * the others the user's. */
static void
inner_dir(struct watchlater *w, int gitfd, const char *path, const char *name,
	  struct inner *in, int depth, const struct inner_up *up,
	  const struct wkey *start, inner_fn *fn)
{
	_cleanup_free_ char *sub = xasprintf("%s/%s", path, name);
	_cleanup_close_ int fd =
		wl_open_or_fail(w, gitfd, name, WL_OPEN_DIR, sub);
	struct inner_up me;

	if (fd < 0)
		return;
	me = inner_is(w, fd, up);
	if (start != NULL) {
		struct stat st;

		me.made = up->made || fstat(fd, &st) < 0 ||
			  !nested_same(start, &st);
	}
	inner_list(w, fd, sub, in, depth, &me, fn);
}

/* A directory under modules/: a submodule's repository when it has a
 * HEAD (as git, and the gitdir walk, take one), else one more level of
 * a submodule's name. */
static void
inner_module(struct watchlater *w, int fd, const char *path, struct inner *in,
	     int depth, const struct inner_up *up)
{
	struct inner_up me = inner_is(w, fd, up);
	struct stat st;

	if (fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISDIR(st.st_mode))
		nested_repo(w, fd, path, -1, NULL, me.made, false, in,
			    depth + 1);
	else
		inner_list(w, fd, path, in, depth + 1, &me, inner_module);
}

/* A linked worktree's directory, worktrees/NAME. */
static void
inner_worktree(struct watchlater *w, int fd, const char *path, struct inner *in,
	       int depth, const struct inner_up *up)
{
	struct inner_up me = inner_is(w, fd, up);

	nested_repo(w, fd, path, -1, NULL, me.made, true, in, depth + 1);
}

/* Whether the commondir of the linked worktree's directory gitfd names
 * the repository it is in, worktrees/NAME/../.., as git worktree add
 * writes it: that one is checked here too, and the worktree needs it. */
static bool
commondir_own(int gitfd)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	if (wl_read_beneath(gitfd, "commondir", 64, NULL, &text, &len) < 0)
		return false;
	/* (git drops the line's end, \n or \r\n, and nothing else.) */
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	return len == 5 && memcmp(text, "../..", 5) == 0;
}

/*
 * The index of a repository nested in the project (gitfd, at path),
 * written during the run (or in a repository the command made): read as
 * the project's is (wl_index_links, with the repository's own hash), so
 * that an entry git never writes (.git/hooks/post-checkout, which the
 * user's git checkout -- . there writes and runs) moves it aside and
 * fails the run, as does one llwrap cannot read (review L, L4); and its
 * MERGE_RR, as the project's (merge_rr_check, review L, L8).  A link or
 * special file there is wl_gitdir_nested's.
 */
static void
nested_index(struct watchlater *w, int gitfd, const char *path, int wt_fd,
	     bool made)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_strv_ char **links = NULL;
	size_t len = 0, keep = w->hash_len;
	struct stat st;

	if (config_read(gitfd, "config", &text, &len) == 0 &&
	    strlen(text) == len)
		w->hash_len = gitguard_hash_len(text);
	merge_rr_check(w, gitfd, path, wt_fd);
	if (fstatat(gitfd, "index", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && (made || wl_changed(w, &st)))
		links = wl_index_links(w, gitfd, path, NULL);
	/* Its entries against the files (review R, R10), where its work
	 * tree is known and the index could be read; not in a repository
	 * the command made, whose every commit is the command's too (and
	 * whose hashing, a clone's, would only cost the end its bounds). */
	if (links != NULL && !made) {
		_cleanup_free_ char *wt = xstrdup(path);
		char *slash = strrchr(wt, '/');

		if (slash != NULL && strcmp(slash, "/.git") == 0)
			*slash = '\0';
		wl_index_blob_check(w, gitfd, wt_fd, wt);
	}
	w->hash_len = keep;
}

/* The repository whose git directory is gitfd (at path): wt_fd, its
 * work tree where known (the directory of its .git), else -1; n, the
 * start's record, or NULL; made, the command made it; worktree, a
 * linked worktree's directory in another repository (worktrees/NAME);
 * in and depth, where it is in the nested repository the walk found
 * (0: that one). */
static void
nested_repo(struct watchlater *w, int gitfd, const char *path, int wt_fd,
	    const struct nested *n, bool made, bool worktree, struct inner *in,
	    int depth)
{
	struct inner_up up = { .made = made };
	struct stat st;
	bool config = nested_config(w, gitfd, path, "config",
				    n != NULL ? n->config : NULL,
				    n != NULL ? n->len : 0, made, false);

	/* A changed config may turn extensions.worktreeConfig on, and the
	 * start's config.worktree with it: then all of that is judged. */
	nested_config(w, gitfd, path, "config.worktree",
		      n != NULL && !config ? n->config_wt : NULL,
		      n != NULL && !config ? n->len_wt : 0, made, config);
	/* A commondir takes config, hooks and objects from elsewhere (a
	 * linked worktree's own repository's excepted). */
	if (fstatat(gitfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (made || wl_changed(w, &st)) && !(worktree && commondir_own(gitfd)))
		wl_move_aside_as(w, gitfd, path, "commondir",
				 "git (in a repository nested in the project, "
				 "it names another repository's files)",
				 nested_born(w, gitfd, "commondir")
					 ? "created"
					 : "changed");
	/* A linked worktree's gitdir names where the worktree is: git
	 * worktree repair writes a .git file there, git worktree remove
	 * deletes what it names.  Only one that changed itself is moved
	 * (not one in a directory the user's git wrote in): git worktree
	 * prune drops a worktree whose gitdir is gone. */
	if (worktree &&
	    fstatat(gitfd, "gitdir", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    wl_changed(w, &st))
		wl_move_aside_as(w, gitfd, path, "gitdir",
				 "git (in a linked worktree of a repository "
				 "nested in the project, it names where the "
				 "worktree is, where git worktree repair "
				 "writes and git worktree remove deletes)",
				 nested_born(w, gitfd, "gitdir") ? "created"
								 : "changed");
	nested_hooks(w, gitfd, path, n, made);
	/* Its links and special files: the user's git writes its reflogs,
	 * COMMIT_EDITMSG, FETCH_HEAD through them.  The walk of the
	 * nested repository goes through those inside it too, by their
	 * change times: one the command made (a directory renamed in keeps
	 * its links' times) is walked again, as made. */
	if (depth == 0 || made)
		wl_gitdir_nested(w, gitfd, path, made);
	nested_index(w, gitfd, path, wt_fd, made);
	/* A rebase, cherry-pick or git am left in progress there (review
	 * V: the user's git rebase --continue in it ran an exec line). */
	wl_todo_at(w, gitfd, path);
	/* What its config includes from the project (one the command made
	 * had its config judged whole, includes and all). */
	if (!made)
		nested_includes(w, gitfd, path);
	if (fstat(gitfd, &st) < 0 || wl_changed(w, &st))
		up.changed = true;
	inner_dir(w, gitfd, path, "modules", in, depth, &up,
		  n != NULL ? &n->modules_key : NULL, inner_module);
	inner_dir(w, gitfd, path, "worktrees", in, depth, &up,
		  n != NULL ? &n->worktrees_key : NULL, inner_worktree);
}

/*
 * The files a nested repository's configuration includes (include.path,
 * includeIf.*.path whatever the condition, relative to the including
 * file, in turn as deep as git goes) that lie in the project: git reads
 * them as that repository's config, and the command could write them
 * while the config itself stays as it was.  One changed since the start
 * (its change time, as the config's; made, too) that sets what runs a
 * command or reroutes git (gitguard_config_unsafe: an include in it
 * among them, since what it names is not the start's), or that llwrap
 * cannot read as git does, is moved aside as a changed config is; an
 * unchanged one is read for what it includes in turn.  Each is reached
 * from the project's descriptor (openat2 beneath it, no link, no mount)
 * and read without following anything.  A symbolic link at an include's
 * name, or on the way to it, is one git follows and llwrap does not: a
 * link at the name changed since the start (the command's) is moved
 * aside, as wl_gitdir_nested moves a link in a git directory, since what
 * it leads to is the command's choice; any other (a link the user had,
 * whose target the command may have rewritten, or a link on the way) is
 * not judged and fails the run loudly, naming it: moving the user's own
 * link would change their configuration on a guess.  Includes outside
 * the project are not looked at (DESIGN.md §15, what remains).
 */
#define NESTED_INCLUDE_DEPTH 10 /* git's MAX_INCLUDE_DEPTH */

struct nested_inc {
	const char *repo; /* the repository's git directory, for messages */
	char **seen;	  /* the files looked at, */
	int *depth;	  /* ... each at the shallowest depth met */
};

static void nested_include_text(struct watchlater *w, struct nested_inc *ni,
				const char *text, const char *file, int depth);

/* The include at abs (absolute, normalised), depth deep. */
static void
nested_include(struct watchlater *w, struct nested_inc *ni, const char *abs,
	       int depth)
{
	const struct root *proj = &w->roots[0];
	_cleanup_free_ char *dir = NULL, *dirpath = NULL, *shown = NULL;
	_cleanup_free_ char *text = NULL, *unsafe = NULL, *reader = NULL;
	_cleanup_free_ char *repo = text_shown(ni->repo);
	_cleanup_close_ int dirfd = -1;
	const char *rel, *base;
	struct stat st;
	size_t len = 0, seen;
	int r;

	if (!path_under(abs, proj->path) || strcmp(abs, proj->path) == 0)
		return;
	/* A file met again less deep is looked at again: git may read it
	 * only there (the deeper include under a condition that does not
	 * hold), and then what it includes as much deeper as git goes. */
	for (seen = 0; ni->seen != NULL && ni->seen[seen] != NULL; seen++)
		if (strcmp(ni->seen[seen], abs) == 0)
			break;
	if (ni->seen != NULL && ni->seen[seen] != NULL &&
	    ni->depth[seen] <= depth)
		return;
	if (ni->seen == NULL || ni->seen[seen] == NULL) {
		strv_push(&ni->seen, abs);
		ni->depth = xreallocarray(ni->depth, seen + 1, sizeof(int));
	}
	ni->depth[seen] = depth;
	shown = text_shown(abs);
	rel = abs + strlen(proj->path) + 1;
	base = strrchr(rel, '/') != NULL ? strrchr(rel, '/') + 1 : rel;
	dir = xstrndup(rel, (size_t)(base - rel));
	if (*dir != '\0')
		dir[strlen(dir) - 1] = '\0';
	dirpath = *dir != '\0' ? xasprintf("%s/%s", proj->path, dir)
			       : xstrdup(proj->path);
	dirfd = wl_open_beneath(proj->fd, *dir != '\0' ? dir : ".", true);
	if (dirfd == -ENOENT || dirfd == -ENOTDIR)
		return; /* git reads nothing there */
	if (dirfd < 0) {
		wl_fail(w, xasprintf("cannot judge %s, which the "
				     "configuration of %s includes: %s; "
				     "before running git in that "
				     "repository, look at what it reads there",
				     shown, repo,
				     dirfd == -ELOOP
					     ? "a symbolic link on the way, "
					       "which llwrap does not follow"
				     : dirfd == -EXDEV
					     ? "another filesystem is mounted "
					       "on the way"
					     : strerror(-dirfd)));
		return;
	}
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			wl_fail(w, xasprintf("cannot look at %s, which the "
					     "configuration of %s includes: %s",
					     shown, repo, strerror(errno)));
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		if (wl_changed(w, &st))
			wl_move_aside_as(w, dirfd, dirpath, base,
					 "git (in a repository nested in the "
					 "project, whose configuration "
					 "includes it, through a link)",
					 nested_born(w, dirfd, base)
						 ? "created"
						 : "changed");
		else
			wl_fail(w, xasprintf("%s, which the configuration "
					     "of %s includes, is a symbolic "
					     "link, which llwrap does not "
					     "follow to judge what it leads "
					     "to: before running git in that "
					     "repository, look at its target "
					     "(or put the file itself there)",
					     shown, repo));
		return;
	}
	if (S_ISDIR(st.st_mode))
		return; /* no configuration git reads */
	if (!S_ISREG(st.st_mode)) {
		/* A FIFO git would wait on, made by the command. */
		if (wl_changed(w, &st))
			wl_move_aside_as(w, dirfd, dirpath, base,
					 "git (in a repository nested in the "
					 "project)",
					 nested_born(w, dirfd, base)
						 ? "created"
						 : "changed");
		return;
	}
	r = config_read(dirfd, base, &text, &len);
	if (r == 0 && strlen(text) != len)
		r = -EBADMSG; /* a NUL git reads past */
	if (r < 0 && !wl_changed(w, &st)) {
		wl_fail(w, xasprintf("cannot read %s, which the "
				     "configuration of %s includes, as git "
				     "does: %s",
				     shown, repo,
				     r == -EBADMSG ? "it holds a NUL"
						   : config_unread(r)));
		return;
	}
	if (r < 0) {
		reader = xasprintf(
			"git (in a repository nested in the "
			"project; llwrap cannot read it as git does: "
			"%s)",
			r == -EBADMSG ? "it holds a NUL" : config_unread(r));
		wl_move_aside_as(w, dirfd, dirpath, base, reader,
				 nested_born(w, dirfd, base) ? "created"
							     : "changed");
		return;
	}
	if (wl_changed(w, &st) &&
	    (unsafe = gitguard_config_unsafe(text)) != NULL) {
		_cleanup_free_ char *u = text_shown(unsafe);

		reader = xasprintf("git (in a repository nested in the "
				   "project, whose configuration includes "
				   "it: it sets %s)",
				   u);
		wl_move_aside_as(w, dirfd, dirpath, base, reader,
				 nested_born(w, dirfd, base) ? "created"
							     : "changed");
		return;
	}
	nested_include_text(w, ni, text, abs, depth);
}

/* What text (of file, depth deep) includes, each judged. */
static void
nested_include_text(struct watchlater *w, struct nested_inc *ni,
		    const char *text, const char *file, int depth)
{
	_cleanup_strv_ char **paths =
		gitconfig_paths(text, file, getenv("HOME"));

	for (char **p = paths; *p != NULL; p++)
		if (**p == 'i' && depth < NESTED_INCLUDE_DEPTH)
			nested_include(w, ni, *p + 1, depth + 1);
}

/* The includes of the config and config.worktree of the repository
 * gitfd at path (as they are now: one moved aside is gone). */
static void
nested_includes(struct watchlater *w, int gitfd, const char *path)
{
	static const char *const names[] = { "config", "config.worktree" };
	struct nested_inc ni = { .repo = path };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *file = xasprintf("%s/%s", path, names[i]);
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		int r = config_read(gitfd, names[i], &text, &len);

		if (r == 0 && strlen(text) != len)
			r = -EBADMSG;
		/* (Changed, one llwrap cannot read was moved aside.) */
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			_cleanup_free_ char *shown = text_shown(file);

			wl_fail(w, xasprintf("cannot read %s as git does, for "
					     "the files it includes: %s",
					     shown,
					     r == -EBADMSG ? "it holds a NUL"
					     : r == -ELOOP ? "a symbolic link"
							   : strerror(-r)));
			continue;
		}
		nested_include_text(w, &ni, text, file, 0);
	}
	strv_free(ni.seen);
	free(ni.depth);
}

/* The .git (st) of the directory dirfd at rel, beneath the project. */
static void
nested_dotgit(struct watchlater *w, int dirfd, const char *rel,
	      const struct stat *st)
{
	_cleanup_free_ char *dir = xasprintf("%s/%s", w->roots[0].path, rel);
	_cleanup_free_ char *path = xasprintf("%s/.git", dir);
	_cleanup_close_ int gitfd = -1;
	const struct nested *n = NULL;

	for (size_t i = 0; i < w->n_nested && n == NULL; i++)
		if (nested_same(&w->nested[i].key, st))
			n = &w->nested[i];
	if (!S_ISDIR(st->st_mode)) {
		/* A .git file (or a link) naming a repository: one written
		 * since the start is moved aside; a submodule checkout's
		 * the start had is held read-only, its repository checked
		 * with the gitlinks' (protected). */
		if (wl_changed(w, st) &&
		    !wl_key_in(w->protect, w->n_protect, st))
			wl_move_aside_as(w, dirfd, dir, ".git",
					 "git (a repository the command named "
					 "in the project)",
					 n != NULL ? "changed" : "created");
		return;
	}
	if ((gitfd = wl_open_beneath(dirfd, ".git", true)) < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		if (gitfd != -ENOENT)
			wl_fail(w, xasprintf("cannot open the repository %s: "
					     "%s",
					     shown, strerror(-gitfd)));
		return;
	}
	nested_repo(w, gitfd, path, dirfd, n, n == NULL && wl_changed(w, st),
		    false, &(struct inner){ 0 }, 0);
}

/* The files git opens in dirfd (at rel) without O_NONBLOCK that are a
 * FIFO, a socket or a device made since the start: moved aside (the
 * user's git status, diff or log there would wait on a FIFO for ever).
 * One the start had is the user's. */
static void
nested_special(struct watchlater *w, int dirfd, const char *rel)
{
	static const char *const names[] = { ".gitignore", ".gitattributes",
					     ".gitmodules", ".mailmap" };
	_cleanup_free_ char *dir = xasprintf("%s/%s", w->roots[0].path, rel);
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) &&
		    !S_ISDIR(st.st_mode) && wl_changed(w, &st))
			wl_move_aside_as(w, dirfd, dir, names[i],
					 "git (it opens it and waits: a FIFO, "
					 "a socket or a device)",
					 nested_born(w, dirfd, names[i])
						 ? "created"
						 : "changed");
}

/*
 * The directory a nested repository's config names for its hooks
 * (core.hooksPath; gitfd its git directory, top where git runs its hooks:
 * its work tree's top, or the bare repository's directory), where that
 * is in the project: each hook there changed since the start is moved
 * aside.  The project's own repository has that directory read-only
 * (gitguard); a nested one's is the project's files, which the command
 * writes, and the user's commit there runs them (review J, F7).  A
 * directory outside the project is not looked at (the sandbox writes
 * none of the user's there, or it is another grant's); one reached
 * through a link fails the run (what it leads to is not judged).
 */
static void
nested_hooks_path(struct watchlater *w, int gitfd, const char *top)
{
	const char *proj = w->roots[0].path;
	size_t n = strlen(proj), len = 0;
	_cleanup_free_ char *text = NULL, *hp = NULL, *rel = NULL;
	_cleanup_free_ char *dir = NULL;
	_cleanup_strv_ char **names = NULL;
	_cleanup_close_ int fd = -1;

	if (config_read(gitfd, "config", &text, &len) < 0 ||
	    strlen(text) != len || (hp = gitguard_hooks_path(text)) == NULL ||
	    *hp == '\0' || *hp == '~')
		return; /* (unreadable: nested_config said so) */
	if (*hp == '/') {
		if (strncmp(hp, proj, n) != 0 ||
		    (hp[n] != '/' && hp[n] != '\0'))
			return;
		rel = xstrdup(hp[n] != '\0' ? hp + n + 1 : "");
	} else {
		rel = *top != '\0' ? xasprintf("%s/%s", top, hp) : xstrdup(hp);
	}
	dir = xasprintf("%s/%s", proj, rel);
	fd = wl_open_beneath(w->roots[0].fd, rel, true);
	if (fd == -ENOENT || fd == -EXDEV)
		return; /* none, or above the project */
	if (fd < 0 || hook_names(fd, &names) < 0) {
		_cleanup_free_ char *shown = text_shown(dir);

		wl_fail(w, xasprintf("cannot look at %s, the hooks directory "
				     "(core.hooksPath) of a repository nested "
				     "in the project: %s",
				     shown,
				     fd == -ELOOP ? "it is reached through a "
						    "symbolic link"
				     : fd < 0	  ? strerror(-fd)
						  : "it cannot be listed"));
		return;
	}
	for (char **h = names; h != NULL && *h != NULL; h++) {
		struct stat hs;

		if (fstatat(fd, *h, &hs, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !wl_changed(w, &hs) || wl_is_aside(w, fd, *h))
			continue;
		wl_move_aside_as(w, fd, dir, *h,
				 "git (a hook in the directory core.hooksPath "
				 "of a repository nested in the project names)",
				 nested_born(w, fd, *h) ? "created"
							: "changed");
	}
}

/* What reads the files nested_envrc moves aside. */
#define ENVRC_READER "direnv (an .envrc below the project's top loads it)"

/*
 * A file an .envrc below the project's top loads, arg relative to that
 * directory (fd, at dir): followed beneath it, without a link, one
 * component at a time; moved aside when it, or a directory on the way
 * below fd, changed since the start (one renamed in keeps its files'
 * change times), or whatever its times when made is true (the .envrc
 * itself changed: what it loads is the command's too).  A link on the
 * way or at its name (direnv follows it) is moved aside when changed;
 * one the start had is not followed.  A path with '..', absolute or
 * from a home is not followed either (DESIGN.md §15, what remains).
 */
static void
envrc_load_check(struct watchlater *w, int fd, const char *dir, const char *arg,
		 bool made)
{
	_cleanup_free_ char *copy = xstrdup(arg), *at = xstrdup(dir);
	_cleanup_close_ int held = -1;
	int base = fd;
	bool moved = false;
	char *save = NULL;

	if (*arg == '/' || *arg == '~')
		return;
	for (char *c = strtok_r(copy, "/", &save); c != NULL;) {
		char *next = strtok_r(NULL, "/", &save);
		struct stat st;
		int sub;

		if (strcmp(c, ".") == 0) {
			c = next;
			continue;
		}
		if (strcmp(c, "..") == 0 ||
		    fstatat(base, c, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return; /* above it, or nothing there to load */
		if (next == NULL || S_ISLNK(st.st_mode)) {
			if ((made || moved || wl_changed(w, &st)) &&
			    !wl_is_aside(w, base, c))
				wl_move_aside_as(w, base, at, c, ENVRC_READER,
						 nested_born(w, base, c)
							 ? "created"
							 : "changed");
			return;
		}
		if (!S_ISDIR(st.st_mode) ||
		    (sub = wl_open_beneath(base, c, true)) < 0)
			return;
		moved = moved || wl_changed(w, &st);
		if (held >= 0)
			close(held);
		base = held = sub;
		{
			char *deeper = xasprintf("%s/%s", at, c);

			free(at);
			at = deeper;
		}
		c = next;
	}
}

/*
 * A load whose argument starts with "../" (source_env ../shared/env.sh),
 * from the .envrc in the directory fd at rel: direnv resolves it from
 * that directory, which the walk reached without a link, so its leading
 * ".." are rel's parents; what remains is followed beneath the one they
 * lead to as envrc_load_check follows any (review R: "../" was not
 * followed, and a file the command wrote there was loaded unasked).
 * One that leads above the project is not followed.
 */
static void
envrc_load_up(struct watchlater *w, int fd, const char *rel, const char *dir,
	      const char *arg, bool made)
{
	_cleanup_free_ char *up = xstrdup(rel), *at = NULL;
	_cleanup_close_ int base = -1;
	const char *rest = arg;

	while (strncmp(rest, "../", 3) == 0 || strncmp(rest, "./", 2) == 0) {
		if (rest[1] == '/') {
			rest += 2;
			continue;
		}
		if (*up == '\0')
			return; /* above the project */
		{
			char *slash = strrchr(up, '/');

			*(slash != NULL ? slash : up) = '\0';
		}
		rest += 3;
	}
	if (rest == arg) {
		envrc_load_check(w, fd, dir, arg, made);
		return;
	}
	if ((base = wl_open_beneath(w->roots[0].fd, up, true)) < 0)
		return; /* gone: nothing there to load */
	at = *up != '\0' ? xasprintf("%s/%s", w->roots[0].path, up)
			 : xstrdup(w->roots[0].path);
	envrc_load_check(w, base, at, rest, made);
}

/*
 * A line "source_up [FILE]" (or source_up_if_exists) of the .envrc below
 * the project's top at rel: direnv loads the nearest FILE (.envrc) of the
 * directories above, unasked (it asks only for the .envrc it entered).
 * The first of them in the project, the top included, made or changed
 * during the run, is moved aside (review R: a new apps/.envrc above an
 * allowed apps/web/.envrc with source_up ran at the user's cd into
 * apps/web).  A FILE with a '/' or an expansion is not followed.
 */
static void
envrc_source_up(struct watchlater *w, const char *rel, const char *line)
{
	const char *v = line + strspn(line, " \t");
	_cleanup_free_ char *up = xstrdup(rel), *name = NULL;

	if (strncmp(v, "source_up", 9) != 0)
		return;
	v += 9;
	if (strncmp(v, "_if_exists", 10) == 0)
		v += 10;
	if (*v != '\0' && *v != ' ' && *v != '\t')
		return;
	v += strspn(v, " \t");
	name = xstrndup(v, strcspn(v, " \t;#"));
	if (*name == '\0') {
		free(name);
		name = xstrdup(".envrc");
	}
	if (strpbrk(name, "/$`\"'") != NULL || strcmp(name, "..") == 0 ||
	    strcmp(name, ".") == 0)
		return;
	for (;;) {
		char *slash = strrchr(up, '/');
		_cleanup_close_ int fd = -1;
		_cleanup_free_ char *at = NULL;
		struct stat st;

		*(slash != NULL ? slash : up) = '\0';
		if ((fd = wl_open_beneath(w->roots[0].fd, up, true)) < 0)
			return;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (*up == '\0')
				return; /* none in the project */
			continue;
		}
		if (wl_changed(w, &st) && !wl_is_aside(w, fd, name)) {
			at = *up != '\0'
				     ? xasprintf("%s/%s", w->roots[0].path, up)
				     : xstrdup(w->roots[0].path);
			wl_move_aside_as(w, fd, at, name, ENVRC_READER,
					 nested_born(w, fd, name) ? "created"
								  : "changed");
		}
		return;
	}
}

/*
 * A directory of the project below its top (fd, at rel) with an .envrc:
 * direnv loads it when the user's shell enters there, once allowed, and
 * asks again when .envrc changes, but not for what it loads (source_env,
 * dotenv and their _if_exists forms: .envrc.local, a .env, which can set
 * PROMPT_COMMAND or PATH), nor for an .envrc.* beside it.  Each of those
 * made or changed since the start is moved aside, every one when .envrc
 * itself changed (review L, L2); the top's own are read-only or watched
 * (gitguard_later_run), and of a new one at the top (left, named:
 * direnv asks) what it loads that changed during the run goes aside.
 * An .envrc that is a link is not read (what it leads to is not
 * judged); a FIFO, socket or device made there is moved aside; one that
 * cannot be read fails the run.
 */
static void
nested_envrc(struct watchlater *w, int fd, const char *rel)
{
	_cleanup_free_ char *dir =
		*rel != '\0' ? xasprintf("%s/%s", w->roots[0].path, rel)
			     : xstrdup(w->roots[0].path);
	_cleanup_free_ char *text = NULL;
	_cleanup_strv_ char **names = NULL;
	size_t len = 0;
	struct stat st;
	bool made;
	int r;

	if (fstatat(fd, ".envrc", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	/* A FIFO, socket or device: direnv's hook waits on it at the
	 * user's prompt. */
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) &&
	    !S_ISDIR(st.st_mode) && wl_changed(w, &st) &&
	    !wl_is_aside(w, fd, ".envrc"))
		wl_move_aside_as(w, fd, dir, ".envrc", ENVRC_READER,
				 nested_born(w, fd, ".envrc") ? "created"
							      : "changed");
	if (!S_ISREG(st.st_mode))
		return;
	made = wl_changed(w, &st);
	/* The top's: an .envrc the start had is read-only (or held), and
	 * what it loads too; one the command made is left for the user to
	 * allow (direnv asks), so what it loads that changed during the
	 * run goes aside, not everything it names (a file of the user's). */
	if (*rel == '\0') {
		if (!made)
			return;
		made = false;
	}
	{
		int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
		struct dirent *e;

		if (d == NULL) {
			_cleanup_free_ char *shown = text_shown(dir);

			if (lfd >= 0)
				close(lfd);
			wl_fail(w, xasprintf("cannot list %s for what its "
					     ".envrc loads: %s",
					     shown, strerror(errno)));
			return;
		}
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, ".envrc.", 7) == 0)
				strv_push(&names, e->d_name);
		closedir(d);
	}
	for (char **n = names; n != NULL && *n != NULL; n++)
		envrc_load_check(w, fd, dir, *n, made);
	r = wl_read_beneath(fd, ".envrc", WATCHLATER_MAX_CONFIG, NULL, &text,
			    &len);
	if (r < 0 || strlen(text) != len) {
		_cleanup_free_ char *path = xasprintf("%s/.envrc", dir);
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w,
			xasprintf("cannot read %s for what it loads: %s", shown,
				  r < 0 ? strerror(-r) : "it holds a NUL"));
		return;
	}
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *arg = NULL;

		if (gitguard_envrc_load(l, &arg) && *arg != '\0')
			envrc_load_up(w, fd, rel, dir, arg, made);
		else if (*rel != '\0')
			envrc_source_up(w, rel, l);
	}
}

#define MISE_READER "mise (its env and hooks, at the shell's cd)"

/* The version managers' project files below the top, and who reads
 * them: mise's configuration, and .tool-versions (asdf's, mise's too),
 * whose "TOOL path:DIR" has every shim of TOOL run DIR's programs in
 * that directory (node --version, which a shell prompt such as
 * starship's runs where a package.json is). */
static const struct {
	const char *name, *reader;
} tools_files[] = {
	{ "mise.toml", MISE_READER },
	{ ".mise.toml", MISE_READER },
	{ "mise.local.toml", MISE_READER },
	{ ".mise.local.toml", MISE_READER },
	{ ".mise", MISE_READER },
	{ ".tool-versions",
	  "asdf and mise (a version path:DIR runs DIR's programs)" },
};

/* mise's files deeper in a directory: each DIR/NAME reached a component
 * at a time, beneath the directory, never through a link. */
static const struct {
	const char *dir, *name;
} tools_deeper[] = {
	{ ".config", "mise.toml" },
	{ ".config/mise", "config.toml" },
	{ ".config/mise", "conf.d" },
	{ "mise", "config.toml" },
	/* .config/mise/conf.d as seen where a user's own .config link
	 * beneath the project lands (sub/.config -> ../cfg: cfg/mise/conf.d;
	 * review Z, Z5). */
	{ "mise", "conf.d" },
};

bool
wl_tools_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tools_files); i++)
		if (strcmp(name, tools_files[i].name) == 0)
			return true;
	return strcmp(name, ".config") == 0 || strcmp(name, "mise") == 0 ||
	       gitguard_mise_env(name);
}

/* Whether anything in the directory fd (O_PATH) or, one level down, in
 * its conf.d changed since the start; true too when it cannot be
 * listed (it is then moved aside unread). */
static bool
mise_dir_changed(struct watchlater *w, int fd, bool deeper)
{
	int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = lfd >= 0 ? fdopendir(lfd) : NULL;
	struct dirent *e;
	bool changed = false;

	if (d == NULL) {
		if (lfd >= 0)
			close(lfd);
		return true;
	}
	while (!changed && (e = readdir(d)) != NULL) {
		struct stat st;
		int sub;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(lfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    wl_changed(w, &st)) {
			changed = true;
		} else if (deeper && S_ISDIR(st.st_mode) &&
			   strcmp(e->d_name, "conf.d") == 0) {
			if ((sub = wl_open_beneath(lfd, e->d_name, true)) < 0) {
				changed = true;
			} else {
				changed = mise_dir_changed(w, sub, false);
				close(sub);
			}
		}
	}
	closedir(d);
	return changed;
}

/* One of mise's files or directories, name in dirfd (at dir): moved
 * aside when made or changed since the start (a directory: anything in
 * it, or in its conf.d). */
static void
tools_one(struct watchlater *w, int dirfd, const char *dir, const char *name,
	  const char *reader)
{
	struct stat st;
	bool changed;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    wl_is_aside(w, dirfd, name))
		return;
	changed = wl_changed(w, &st);
	if (!changed && S_ISDIR(st.st_mode)) {
		int sub = wl_open_beneath(dirfd, name, true);

		changed = sub < 0 || mise_dir_changed(w, sub, true);
		if (sub >= 0)
			close(sub);
	}
	if (changed)
		wl_move_aside_as(w, dirfd, dir, name, reader,
				 nested_born(w, dirfd, name) ? "created"
							     : "changed");
}

/* The directory rel (".config/mise") beneath fd (at dir), opened a
 * component at a time without following a link: a descriptor, or -1
 * when it is not there.  A link or other file in the way, made or
 * changed since the start, is moved aside (mise would follow it to
 * files the check never looked at); one the user had is left. */
static int
tools_dir(struct watchlater *w, int fd, const char *dir, const char *rel,
	  char **path)
{
	_cleanup_free_ char *walk = xstrdup(rel);
	int at = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	char *save = NULL;

	*path = xstrdup(dir);
	for (char *c = strtok_r(walk, "/", &save); c != NULL && at >= 0;
	     c = strtok_r(NULL, "/", &save)) {
		_cleanup_free_ char *next = xasprintf("%s/%s", *path, c);
		int sub = wl_open_or_fail(w, at, c, WL_OPEN_DIR, next);
		struct stat st;

		if (sub == -ELOOP || sub == -ENOTDIR) {
			if (fstatat(at, c, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode) && wl_changed(w, &st) &&
			    !wl_is_aside(w, at, c))
				wl_move_aside_as(w, at, *path, c, MISE_READER,
						 nested_born(w, at, c)
							 ? "created"
							 : "changed");
		}
		close(at);
		at = sub < 0 ? -1 : sub;
		free(*path);
		*path = steal_pointer(&next);
	}
	return at;
}

/* mise's other files in the directory fd (at dir): its environments'
 * (mise.ENV.toml, gitguard_mise_env) there and in .config/, and those
 * of tools_deeper. */
static void
tools_mise_more(struct watchlater *w, int fd, const char *dir)
{
	for (int k = 0; k < 2; k++) {
		_cleanup_free_ char *path = NULL;
		_cleanup_close_ int at =
			k == 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3)
			       : tools_dir(w, fd, dir, ".config", &path);
		_cleanup_strv_ char **names = NULL;
		struct dirent *e;
		DIR *d;

		if (at < 0 || (d = wl_list(w, at, k == 0 ? dir : path)) == NULL)
			continue;
		while ((e = readdir(d)) != NULL && strv_length(names) < 256)
			if (gitguard_mise_env(e->d_name))
				strv_push(&names, e->d_name);
		closedir(d);
		for (char **n = names; n != NULL && *n != NULL; n++)
			tools_one(w, at, k == 0 ? dir : path, *n, MISE_READER);
	}
	for (size_t i = 0; i < ARRAY_SIZE(tools_deeper); i++) {
		_cleanup_free_ char *path = NULL;
		_cleanup_close_ int at =
			tools_dir(w, fd, dir, tools_deeper[i].dir, &path);

		if (at >= 0)
			tools_one(w, at, path, tools_deeper[i].name,
				  MISE_READER);
	}
}

/*
 * The version managers' files in a directory of the project below its
 * top (fd, at rel; tools_files): mise, activated in the user's shell,
 * runs a config's [env] (_.source, templates that exec) and [hooks] when
 * the shell enters there, and trusts it by its path, not its content
 * (outside paranoid mode); asdf runs a .tool-versions' path: versions
 * with no trust at all.  One made or changed since the start, or a
 * .mise/ with anything changed in it or its conf.d/, is moved aside
 * (review L, L3); the top's are read-only or watched
 * (gitguard_later_run).
 */
static void
nested_tools(struct watchlater *w, int fd, const char *rel)
{
	_cleanup_free_ char *dir = xasprintf("%s/%s", w->roots[0].path, rel);

	for (size_t i = 0; i < ARRAY_SIZE(tools_files); i++)
		tools_one(w, fd, dir, tools_files[i].name,
			  tools_files[i].reader);
	tools_mise_more(w, fd, dir);
}

/* What reads the files nested_hg moves aside. */
#define HG_READER                                                              \
	"Mercurial (its hooks and extensions, at hg in that directory)"

/*
 * A Mercurial repository nested below the project's top (fd, at rel; the
 * top's are later-run entries): hg in that directory, a shell prompt's
 * hg status, reads its .hg/hgrc, then .hg/hgrc-not-shared ([hooks],
 * [extensions]: code), and takes .hg/sharedpath to another repository's.
 * Each made or changed since the start is moved aside, and a .hg that is
 * not a directory (a link hg follows) made or changed (review R); one
 * that cannot be looked into fails the run.
 */
static void
nested_hg(struct watchlater *w, int fd, const char *rel)
{
	static const char *const names[] = { "hgrc", "hgrc-not-shared",
					     "sharedpath" };
	_cleanup_free_ char *dir = xasprintf("%s/%s", w->roots[0].path, rel);
	_cleanup_free_ char *hg = xasprintf("%s/.hg", dir);
	_cleanup_close_ int hfd = -1;
	struct stat st;

	if (fstatat(fd, ".hg", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    wl_is_aside(w, fd, ".hg"))
		return;
	if (!S_ISDIR(st.st_mode)) {
		if (wl_changed(w, &st))
			wl_move_aside_as(w, fd, dir, ".hg", HG_READER,
					 nested_born(w, fd, ".hg") ? "created"
								   : "changed");
		return;
	}
	if ((hfd = wl_open_beneath(fd, ".hg", true)) < 0) {
		_cleanup_free_ char *shown = text_shown(hg);

		wl_fail(w, xasprintf("cannot look into %s: %s", shown,
				     strerror(-hfd)));
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (fstatat(hfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    wl_changed(w, &st) && !wl_is_aside(w, hfd, names[i]))
			wl_move_aside_as(w, hfd, hg, names[i], HG_READER,
					 nested_born(w, hfd, names[i])
						 ? "created"
						 : "changed");
	wl_hg_includes(w, hfd, hg);
}

/*
 * A directory of the project the walk found (watchlater-walk.c), open
 * at rel: its .git checked, or itself checked as a bare repository
 * (HEAD beside objects/, refs/ or a commondir, which git takes for
 * one); the walk goes into a bare repository's directories too (git
 * finds a repository made inside one first), but not into a .git.
 * node_modules too: VS Code's scan skips it, but opens the repository
 * of a file shown from there (go to definition), and git -C finds one
 * at any depth.  The project's own repository has its own checks; a
 * file git reads that would hang it is checked everywhere.
 */
static void
nested_found(struct watchlater *w, int fd, const char *rel, unsigned flags)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int gitfd = -1;
	struct stat st;

	if (flags & WALK_SPECIAL)
		nested_special(w, fd, rel);
	if (flags & WALK_ENVRC)
		nested_envrc(w, fd, rel);
	if (*rel == '\0')
		return;
	if (flags & WALK_TOOLS)
		nested_tools(w, fd, rel);
	if (flags & WALK_HG)
		nested_hg(w, fd, rel);
	if (flags & WALK_DOTGIT) {
		if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			nested_dotgit(w, fd, rel, &st);
			if (S_ISDIR(st.st_mode) &&
			    (gitfd = wl_open_beneath(fd, ".git", true)) >= 0)
				nested_hooks_path(w, gitfd, rel);
		} else if (errno != ENOENT) {
			/* (A directory listed but not searchable: the
			 * user's git cannot enter it either, until its mode
			 * is restored.) */
			int err = errno;
			_cleanup_free_ char *shown = NULL;

			path = xasprintf("%s/%s/.git", w->roots[0].path, rel);
			shown = text_shown(path);
			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(err)));
		}
	}
	if ((flags & WALK_BARE) && fstat(fd, &st) == 0) {
		free(path);
		path = xasprintf("%s/%s", w->roots[0].path, rel);
		nested_repo(w, fd, path, -1, NULL, wl_changed(w, &st), false,
			    &(struct inner){ 0 }, 0);
		nested_hooks_path(w, fd, rel);
	}
}

void
wl_nested_check(struct watchlater *w)
{
	if (w->nested_check)
		wl_walk_end(w, nested_found);
}

void
wl_nested_free(struct watchlater *w)
{
	for (size_t i = 0; i < w->n_nested; i++) {
		free(w->nested[i].name);
		free(w->nested[i].config);
		free(w->nested[i].config_wt);
	}
	free(w->nested);
}
