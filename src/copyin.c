/*
 * [filesystem] copy: the contract is in copyin.h.  The destination lies
 * in a tree the command may write, so the command (or another sandbox
 * of the same project, running) may have put a symbolic link or another
 * file there (DESIGN.md §15): the directory is resolved, checked to be
 * inside the tree that makes it writable, and opened without following
 * symbolic links; the copy is created under a fresh name there with
 * O_EXCL|O_NOFOLLOW and renamed over the destination, which replaces a
 * link rather than following it.  What is written there is the user's
 * file, which the command is meant to have; nothing is written anywhere
 * it could not write itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "copyin.h"
#include "fdutil.h"
#include "path.h"
#include "pathtree.h"
#include "strv.h"
#include "xalloc.h"

static int
ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

bool
copyin_stale(const struct timespec *src, const struct timespec *dst)
{
	return dst == NULL || ts_cmp(src, dst) > 0;
}

bool
copyin_changed(const struct timespec *mtime, const struct timespec *btime)
{
	return btime == NULL || ts_cmp(mtime, btime) > 0;
}

/* Write len bytes of text to fd.  0 or -errno. */
static int
write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The text of name in dfd (not following a link), or NULL. */
static char *
read_at(int dfd, const char *name, size_t *len)
{
	_cleanup_close_ int fd = openat(
		dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	char *text = NULL;

	if (fd < 0 || fd_read_all(fd, COPYIN_MAX, &text, len) < 0)
		return NULL;
	return text;
}

/*
 * The directory of c's destination, made when missing, resolved, and
 * opened without following links: a descriptor, or -1 with a note.
 */
static int
open_dest_dir(const struct plan *src, const struct llw_copy *c, const char *dir,
	      char ***notes)
{
	_cleanup_free_ char *real = NULL, *rdir = NULL;
	const struct plan_source *rule;
	char *save = NULL;
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int r, fd;

	/* The tree that holds the directory, both resolved (a rule may
	 * name a symlink; a link on the way is the walk's to refuse). */
	if (pathtree_fs_real.resolve(pathtree_fs_real.ctx, dir, &real) < 0)
		real = xstrdup(dir);
	rule = plan_source_at(src, real);
	if (rule == NULL ||
	    (rule->access != LLW_ACCESS_RW && rule->access != LLW_ACCESS_RWX)) {
		strv_push_take(notes,
			       xasprintf("%s: %s is in no tree the policy "
					 "makes writable; not copied",
					 c->origin, c->dst));
		return -1;
	}
	/* The writable tree's own directory is the user's (the command
	 * cannot rename what holds it); beneath it, every directory is made
	 * and opened one step at a time, never through a link the command
	 * may have put there (mkdirat does not follow one; the open
	 * refuses it). */
	if (!path_under(real, rule->path) ||
	    (fd = open(rule->path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		strv_push_take(notes, xasprintf("%s: cannot open %s: %s; not "
						"copied",
						c->origin, rule->path,
						strerror(errno)));
		return -1;
	}
	rdir = xstrdup(real + strlen(rule->path));
	for (char *comp = strtok_r(rdir, "/", &save); comp != NULL;
	     comp = strtok_r(NULL, "/", &save)) {
		int next;

		if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST) {
			r = -errno;
			close(fd);
			strv_push_take(notes,
				       xasprintf("%s: cannot create %s: %s; "
						 "not copied",
						 c->origin, dir, strerror(-r)));
			return -1;
		}
		next = (int)syscall(SYS_openat2, fd, comp, &how, sizeof(how));
		r = -errno;
		close(fd);
		if (next < 0) {
			strv_push_take(
				notes,
				xasprintf("%s: %s leads out of %s (%s); not "
					  "copied",
					  c->origin, dir, rule->path,
					  r == -ELOOP || r == -EXDEV
						  ? "a symbolic link on the way"
						  : strerror(-r)));
			return -1;
		}
		fd = next;
	}
	return fd;
}

/* Copy text (modified at st's times) to name in dfd, beside it first. */
static int
put(int dfd, const char *name, const char *text, size_t len,
    const struct stat *st)
{
	_cleanup_free_ char *tmp =
		xasprintf(".%s.llwrap-%ld", name, (long)getpid());
	const struct timespec times[2] = { st->st_atim, st->st_mtim };
	_cleanup_close_ int fd = -1;
	int r = 0;

	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if ((r = write_all(fd, text, len)) == 0 && futimens(fd, times) < 0)
		r = -errno;
	if (r == 0 && close(steal_fd(&fd)) < 0)
		r = -errno;
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0);
	return r;
}

static void
copy_one(const char *project, const struct plan *src, const struct llw_copy *c,
	 char ***notes)
{
	_cleanup_free_ char *dcopy = xstrdup(c->dst), *bcopy = xstrdup(c->dst);
	_cleanup_free_ char *text = NULL, *old = NULL;
	_cleanup_close_ int sfd = -1, dfd = -1;
	const char *dir = dirname(dcopy), *name = basename(bcopy);
	_cleanup_free_ char *real = NULL;
	const struct plan_source *rule;
	struct stat sst, dst;
	struct statx stx;
	bool have = false, changed = false;
	size_t len = 0, olen = 0;
	int r;

	/* A missing ?SRC is skipped quietly, whatever else a note would
	 * say of it (cmd.c resolves no rule for copies that are all
	 * such). */
	if (c->optional && stat(c->src, &sst) < 0 && errno == ENOENT)
		return;
	if (pathtree_fs_real.resolve(pathtree_fs_real.ctx, c->src, &real) < 0)
		real = xstrdup(c->src);
	if ((rule = plan_source_at(src, real)) != NULL &&
	    rule->access == LLW_ACCESS_DENY) {
		strv_push_take(notes,
			       xasprintf("%s: %s is denied (%s); not "
					 "copied (the copy would show "
					 "it)",
					 c->origin, c->src, rule->origin));
		return;
	}
	if (project != NULL && path_under(c->dst, project)) {
		strv_push_take(notes, xasprintf("%s: %s is in the project; "
						"not copied (the project is "
						"no place for your files)",
						c->origin, c->dst));
		return;
	}
	sfd = open(c->src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (sfd < 0) {
		if (errno != ENOENT || !c->optional)
			strv_push_take(notes,
				       xasprintf("%s: cannot read %s: %s; not "
						 "copied",
						 c->origin, c->src,
						 strerror(errno)));
		return;
	}
	if (fstat(sfd, &sst) < 0 || !S_ISREG(sst.st_mode) ||
	    sst.st_size > COPYIN_MAX) {
		strv_push_take(notes,
			       xasprintf("%s: %s is not a regular file of at "
					 "most %d bytes; not copied",
					 c->origin, c->src, COPYIN_MAX));
		return;
	}
	if ((dfd = open_dest_dir(src, c, dir, notes)) < 0)
		return;
	if (fstatat(dfd, name, &dst, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(dst.st_mode)) {
		have = true;
		if (!copyin_stale(&sst.st_mtim, &dst.st_mtim))
			return;
		if (statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &stx) ==
			    0 &&
		    (stx.stx_mask & STATX_BTIME)) {
			const struct timespec b = { stx.stx_btime.tv_sec,
						    stx.stx_btime.tv_nsec };

			changed = copyin_changed(&dst.st_mtim, &b);
		} else {
			changed = copyin_changed(&dst.st_mtim, NULL);
		}
	}
	if ((r = fd_read_all(sfd, COPYIN_MAX, &text, &len)) < 0) {
		strv_push_take(notes,
			       xasprintf("%s: cannot read %s: %s; not "
					 "copied",
					 c->origin, c->src, strerror(-r)));
		return;
	}
	/* A copy the command changed (a login inside) gives way to a
	 * newer source: say so, unless it holds the same. */
	if (have && changed &&
	    ((old = read_at(dfd, name, &olen)) == NULL || olen != len ||
	     memcmp(old, text, len) != 0))
		strv_push_take(notes,
			       xasprintf("%s is newer than the copy in %s, "
					 "which was changed inside the sandbox "
					 "since it was made: replaced (%s)",
					 c->src, c->dst, c->origin));
	if ((r = put(dfd, name, text, len, &sst)) < 0)
		strv_push_take(notes,
			       xasprintf("%s: cannot write %s: %s; not "
					 "copied",
					 c->origin, c->dst, strerror(-r)));
}

void
copyin_run(const struct llw_copy *copies, size_t n, const char *project,
	   const struct plan *src, char ***notes)
{
	for (size_t i = 0; i < n; i++)
		copy_one(project, src, &copies[i], notes);
}
