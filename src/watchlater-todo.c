/*
 * A rebase the command leaves in progress runs no command of its own
 * when the user continues it (watchlater-int.h).  git rebase --continue
 * runs what the rest of the todo list, rebase-merge/git-rebase-todo,
 * says, and an "exec" (or "x") line there is a shell command run outside
 * the sandbox; the command could stop a rebase ("break") and add one.
 * sequencer/todo (a cherry-pick or revert in progress) is read the same
 * way: the git of today refuses an exec line there, a later one might not.
 *
 * At the end, a todo list that changed during the run (its change time,
 * or its directory's, at or after the start: the kernel sets it at every
 * write, rename or link, and nothing unprivileged sets it back) and
 * holds an exec line is moved aside: the user's git then stops on the
 * missing list and runs nothing.  One the user left before the run,
 * unchanged, is left.  Lines are read as git reads them (sequencer.c
 * parse_insn_line): blanks and tabs skipped, then the command's word or
 * its letter followed by a blank, a tab, a carriage return or the end.
 * A comment line never starts so, unless core.commentChar is "x": then it
 * counts as an exec line too.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

/* The todo lists, beneath a repository's directory. */
static const struct {
	const char *dir;
	const char *name;
	const char *reader;
} todos[] = {
	{ "rebase-merge", "git-rebase-todo",
	  "git rebase --continue (it runs the list's exec lines: the rebase "
	  "the command left in progress would have run a command; git rebase "
	  "--abort ends it)" },
	{ "sequencer", "todo",
	  "git cherry-pick or revert --continue (it runs the list: the "
	  "sequence the command left in progress holds an exec line; git "
	  "cherry-pick --abort ends it)" },
};

/* Whether the line line (len bytes, no newline) is an exec line. */
bool
wl_todo_exec_line(const char *line, size_t len)
{
	const char *words[] = { "exec", "x" };
	size_t at = 0;

	while (at < len && (line[at] == ' ' || line[at] == '\t'))
		at++;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		size_t n = strlen(words[i]);

		if (len - at >= n && memcmp(line + at, words[i], n) == 0 &&
		    (len - at == n || line[at + n] == ' ' ||
		     line[at + n] == '\t' || line[at + n] == '\r' ||
		     line[at + n] == '\0'))
			return true;
	}
	return false;
}

/* Whether the open todo list f holds an exec line (-errno: unread). */
static int
holds_exec(FILE *f)
{
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	ssize_t n;

	while ((n = getline(&line, &size, f)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			n--;
		if (wl_todo_exec_line(line, (size_t)n))
			return 1;
	}
	return ferror(f) ? -EIO : 0;
}

/* The todo lists of the repository's directory at path. */
static void
todo_repository(struct watchlater *w, const char *path)
{
	const char *rel;
	ssize_t r = wl_root_of(w, path, &rel);

	if (r < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(todos); i++) {
		_cleanup_free_ char *dirrel = NULL, *dirpath = NULL;
		_cleanup_free_ char *shown = NULL;
		_cleanup_close_ int dfd = -1, fd = -1;
		struct open_how how = {
			.flags = O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY |
				 O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
				   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
		};
		struct stat dst, st;
		FILE *f;
		int e;

		dirrel = *rel != '\0' ? xasprintf("%s/%s", rel, todos[i].dir)
				      : xstrdup(todos[i].dir);
		dirpath = xasprintf("%s/%s", path, todos[i].dir);
		shown = text_shown(dirpath);
		/* None, or a link or another file in its place: nothing git
		 * continues (a link there is the gitdir walk's). */
		if ((dfd = wl_open_beneath(w->roots[r].fd, dirrel, true)) < 0) {
			if (dfd != -ENOENT && dfd != -ENOTDIR && dfd != -ELOOP)
				wl_fail(w, xasprintf("cannot look at %s: %s",
						     shown, strerror(-dfd)));
			continue;
		}
		fd = (int)syscall(SYS_openat2, dfd, todos[i].name, &how,
				  sizeof(how));
		if (fd < 0) {
			e = errno;
			if (e != ENOENT && e != ELOOP)
				wl_fail(w, xasprintf("cannot read %s/%s: %s",
						     shown, todos[i].name,
						     strerror(e)));
			continue;
		}
		/* A FIFO or the like is never read (the walk moves it). */
		if (fstat(dfd, &dst) < 0 || fstat(fd, &st) < 0) {
			wl_fail(w, xasprintf("cannot look at %s/%s: %s", shown,
					     todos[i].name, strerror(errno)));
			continue;
		}
		if (!S_ISREG(st.st_mode) ||
		    (!wl_changed(w, &st) && !wl_changed(w, &dst)))
			continue;
		if ((f = fdopen(fd, "r")) == NULL) {
			wl_fail(w, xasprintf("cannot read %s/%s: %s", shown,
					     todos[i].name, strerror(errno)));
			continue;
		}
		fd = -1;
		e = holds_exec(f);
		fclose(f);
		if (e < 0)
			wl_fail(w, xasprintf("cannot read %s/%s: %s", shown,
					     todos[i].name, strerror(-e)));
		else if (e > 0)
			wl_move_aside_as(w, dfd, dirpath, todos[i].name,
					 todos[i].reader, "left");
	}
}

void
wl_todo_check(struct watchlater *w)
{
	for (char **g = w->gitdirs; g != NULL && *g != NULL; g++)
		todo_repository(w, *g);
	if (w->watch_newrepo) {
		_cleanup_free_ char *git =
			xasprintf("%s/.git", w->roots[0].path);

		todo_repository(w, git);
	}
}
