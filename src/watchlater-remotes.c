/*
 * git's legacy remote files (watchlater-int.h).  When a repository's
 * config defines no URL for a remote name, git reads remotes/NAME
 * ("URL:", "Push:" and "Pull:" lines) and then branches/NAME (a URL and
 * "#branch"): the user's push and fetch go where they say, and a push to
 * a repository on this machine runs that repository's hooks (git 2.39's
 * remote.c, read_remotes_file and read_branches_file).  The project's own
 * repository has them read-only where they exist, and watched for where
 * missing (gitguard.c protect_files).  In a repository the command made,
 * each file of them is read, and one that names an address that is not a
 * network one (gitguard_remote_file_unsafe: a path, file://, a remote
 * helper) is moved aside, as its config would be; in a repository the
 * start had (nested in the project), the same for each file changed
 * since the start, or beneath a directory that was.  Remote names may
 * hold '/': the directories are walked, bounded.  A link or special file
 * there is the gitdir walk's, which moves it.
 */
#include "config.h"

#include <dirent.h>
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
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

/* The most entries looked at, how deep, and the largest file read. */
#define REMOTES_MAX	 1024
#define REMOTES_DEPTH	 8
#define REMOTES_MAX_FILE (64u << 10)

/* A regular file name of dfd (at path): moved aside when it names an
 * address that is not a network one. */
static void
remote_file(struct watchlater *w, int dfd, const char *path, const char *name,
	    bool branches, bool made)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY |
			 O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	_cleanup_free_ char *text = NULL, *found = NULL, *reader = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = 0;
	int e;

	fd = (int)syscall(SYS_openat2, dfd, name, &how, sizeof(how));
	if (fd < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		e = errno;
		if (e != ENOENT && e != ELOOP)
			wl_fail(w, xasprintf("cannot read %s/%s: %s", shown,
					     name, strerror(e)));
		return;
	}
	e = fd_read_all(fd, REMOTES_MAX_FILE, &text, &len);
	if (e == -EFBIG)
		found = xstrdup("larger than llwrap reads, 64 KiB");
	else if (e < 0) {
		_cleanup_free_ char *shown = text_shown(path);

		wl_fail(w, xasprintf("cannot read %s/%s: %s", shown, name,
				     strerror(-e)));
		return;
	} else if ((found = gitguard_remote_file_unsafe(text, len, branches)) ==
		   NULL)
		return;
	{
		_cleanup_free_ char *shown = text_shown(found);

		reader = xasprintf("git push and fetch (a remote the config "
				   "does not name is read from it: %s; a push "
				   "to a repository on this machine runs its "
				   "hooks)",
				   shown);
	}
	wl_move_aside_as(w, dfd, path, name, reader,
			 made ? "created" : "changed");
}

/* The directory dfd (O_PATH) at path, beneath remotes/ or branches/:
 * every file judged when force (a repository the command made, or a
 * directory changed since the start), else those changed. */
static void
remotes_dir(struct watchlater *w, int dfd, const char *path, bool branches,
	    bool made, bool force, int depth, size_t *seen)
{
	_cleanup_free_ char *shown = text_shown(path);
	DIR *d = wl_list(w, dfd, path);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *sub = NULL;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++*seen > REMOTES_MAX || depth >= REMOTES_DEPTH) {
			wl_fail(w, xasprintf("%s holds more remotes, or "
					     "deeper, than llwrap reads",
					     shown));
			break;
		}
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				wl_fail(w, xasprintf("cannot look at %s/%s: %s",
						     shown, e->d_name,
						     strerror(errno)));
			continue;
		}
		sub = xasprintf("%s/%s", path, e->d_name);
		if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sfd =
				wl_open_beneath(dfd, e->d_name, true);

			if (sfd >= 0)
				remotes_dir(w, sfd, sub, branches, made,
					    force || wl_changed(w, &st),
					    depth + 1, seen);
			else if (sfd != -ENOENT && sfd != -ENOTDIR &&
				 sfd != -ELOOP)
				wl_fail(w, xasprintf("cannot look at %s/%s: "
						     "%s",
						     shown, e->d_name,
						     strerror(-sfd)));
		} else if (S_ISREG(st.st_mode) &&
			   (force || wl_changed(w, &st))) {
			remote_file(w, dfd, path, e->d_name, branches, made);
		}
	}
	closedir(d);
}

void
wl_remotes_check(struct watchlater *w, int gitfd, const char *path, bool made)
{
	static const char *const dirs[] = { "remotes", "branches" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		_cleanup_free_ char *sub = xasprintf("%s/%s", path, dirs[i]);
		_cleanup_close_ int dfd = wl_open_beneath(gitfd, dirs[i], true);
		struct stat st;
		size_t seen = 0;

		if (dfd < 0) {
			if (dfd != -ENOENT && dfd != -ENOTDIR &&
			    dfd != -ELOOP) {
				_cleanup_free_ char *shown = text_shown(sub);

				wl_fail(w, xasprintf("cannot look at %s: %s",
						     shown, strerror(-dfd)));
			}
			continue;
		}
		if (fstat(dfd, &st) < 0) {
			_cleanup_free_ char *shown = text_shown(sub);

			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(errno)));
			continue;
		}
		remotes_dir(w, dfd, sub, i == 1, made,
			    made || wl_changed(w, &st), 0, &seen);
	}
}
