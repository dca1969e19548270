/*
 * What a Mercurial repository nested below the project's top includes
 * (watchlater-int.h).  hg in that directory reads its .hg/hgrc and
 * .hg/hgrc-not-shared, and every file they %include, as its own
 * configuration: [hooks] and [extensions] run code (review Y).  Those
 * two are nested_hg's (made or changed during the run: moved aside);
 * what they include, the project's file the command could change, is
 * judged here: one beneath the project, reached without a link, made or
 * changed since the start is moved aside, and what it includes in turn
 * is followed (GITGUARD_HG_INCLUDE_DEPTH deep).  The path is Mercurial's:
 * joined to the including file's directory and normalised lexically
 * (config.py); one with an expansion (~, $VAR) is not followed (the
 * user's own, unreadable here), one outside the project is not the
 * command's to write.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

/* The largest configuration file read. */
#define HG_MAX_FILE (1u << 20)

#define HG_INCLUDE_READER                                                      \
	"Mercurial (a nested repository's .hg/hgrc includes it: its hooks "    \
	"and extensions, at hg in that directory)"

static void hg_file(struct watchlater *w, int dirfd, const char *name,
		    const char *path, const struct stat *st, char ***seen,
		    int depth);

/* The file an %include names (word), from the file at path (beneath the
 * project's top, absolute): moved aside when made or changed since the
 * start, else followed. */
static void
hg_include(struct watchlater *w, const char *path, const char *word,
	   char ***seen, int depth)
{
	const char *top = w->roots[0].path;
	_cleanup_free_ char *dir = xstrndup(path, strrchr(path, '/') - path);
	_cleanup_free_ char *joined = NULL, *abs = NULL, *parent = NULL;
	_cleanup_close_ int pfd = -1;
	const char *rel, *name;
	struct stat st;

	if (strchr(word, '$') != NULL || word[0] == '~')
		return;
	joined = word[0] == '/' ? xstrdup(word) : xasprintf("%s/%s", dir, word);
	abs = path_normalise(joined);
	/* Each file looked at once (one that includes itself, or a tree
	 * of them, is not read as often as it has paths). */
	if (!path_under(abs, top) || strcmp(abs, top) == 0 ||
	    strv_contains(*seen, abs))
		return;
	strv_push(seen, abs);
	rel = abs + strlen(top) + (strcmp(top, "/") != 0);
	name = strrchr(abs, '/') + 1;
	parent = xstrndup(rel, name - rel > 0 ? (size_t)(name - rel - 1) : 0);
	/* A link on the way: not followed (what it reaches outside the
	 * project is not the command's; a link made in the project is the
	 * walk's to name). */
	if ((pfd = wl_open_beneath(w->roots[0].fd, parent, true)) < 0) {
		if (pfd != -ENOENT && pfd != -ENOTDIR && pfd != -ELOOP) {
			_cleanup_free_ char *shown = text_shown(abs);

			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(-pfd)));
		}
		return;
	}
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    wl_is_aside(w, pfd, name))
		return;
	if (wl_changed(w, &st)) {
		_cleanup_free_ char *pdir = xstrndup(abs, name - 1 - abs);

		wl_move_aside_as(w, pfd, pdir, name, HG_INCLUDE_READER,
				 "changed");
		return;
	}
	if (S_ISREG(st.st_mode) && depth < GITGUARD_HG_INCLUDE_DEPTH)
		hg_file(w, pfd, name, abs, &st, seen, depth + 1);
}

/* The configuration file name in dirfd (at path), the regular file st
 * says: its %includes.  Read through a descriptor opened beneath dirfd
 * without a link, never waited on, and only when it is still that file. */
static void
hg_file(struct watchlater *w, int dirfd, const char *name, const char *path,
	const struct stat *st, char ***seen, int depth)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	_cleanup_close_ int fd =
		(int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
	_cleanup_free_ char *text = NULL;
	char *save = NULL;
	struct stat now;
	size_t len = 0;
	int e = 0;

	if (fd < 0)
		e = -errno;
	else if (fstat(fd, &now) < 0)
		e = -errno;
	else if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		e = -ESTALE;
	else
		e = fd_read_all(fd, HG_MAX_FILE, &text, &len);
	if (e < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w,
			xasprintf("cannot read %s: %s", shown, strerror(-e)));
		return;
	}
	for (char *l = strtok_r(text, "\r\n", &save); l != NULL;
	     l = strtok_r(NULL, "\r\n", &save)) {
		_cleanup_free_ char *word = gitguard_hg_include(l);

		if (word != NULL)
			hg_include(w, path, word, seen, depth);
	}
}

void
wl_hg_includes(struct watchlater *w, int hfd, const char *hg)
{
	static const char *const names[] = { "hgrc", "hgrc-not-shared" };
	_cleanup_strv_ char **seen = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", hg, names[i]);
		struct stat st;

		/* Moved aside (changed), missing, or not a file hg reads. */
		if (fstatat(hfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || wl_is_aside(w, hfd, names[i]))
			continue;
		hg_file(w, hfd, names[i], path, &st, &seen, 0);
	}
}
