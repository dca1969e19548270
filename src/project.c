/*
 * The project directory.  The contract is in project.h; this comment says
 * how git's discovery (setup.c, setup_git_directory_gently) is followed.
 *
 * From the working directory upwards, git looks at DIR/.git: a file
 * "gitdir: PATH" (PATH relative to DIR unless absolute) names the git
 * directory, which must be valid, else git stops with an error; a
 * directory is the git directory when valid, else git goes on.  A valid
 * git directory has a HEAD that is a symbolic ref ("ref: refs/...") or
 * an object id, and objects/ and refs/ directories, in the directory a
 * commondir file names when there is one (a linked worktree's).  Before
 * going up, git checks whether DIR itself is a git directory: then it
 * is a bare repository (or the inside of .git), which has no work tree.
 * It does not go up into a ceiling of GIT_CEILING_DIRECTORIES, nor onto
 * another file system than the working directory's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdutil.h"
#include "path.h"
#include "project.h"
#include "xalloc.h"

/* The largest HEAD, .git or commondir file read. */
#define PROJECT_MAX_FILE 4096

static int
real_stat(void *ctx, const char *path, unsigned long long *dev)
{
	struct stat st;

	(void)ctx;
	if (stat(path, &st) < 0)
		return 0;
	*dev = st.st_dev;
	if (S_ISDIR(st.st_mode))
		return 'd';
	if (S_ISREG(st.st_mode))
		return 'f';
	return 'o';
}

static char *
real_read(void *ctx, const char *path)
{
	/* The project's files, which a command may have made a FIFO:
	 * regular ones only, never waited on. */
	_cleanup_close_ int fd = fd_open_regular(AT_FDCWD, path, O_NOFOLLOW);
	char *text = NULL;
	size_t len;

	(void)ctx;
	if (fd < 0 || fd_read_all(fd, PROJECT_MAX_FILE, &text, &len) < 0)
		return NULL;
	return text;
}

const struct project_fs project_fs_real = {
	.stat = real_stat,
	.read_file = real_read,
	.ctx = NULL,
};

static int
kind(const struct project_fs *fs, const char *path)
{
	unsigned long long dev;

	return fs->stat(fs->ctx, path, &dev);
}

/* path, or dir/path when path is relative, normalised. */
static char *
named_path(const char *dir, const char *path)
{
	_cleanup_free_ char *s =
		path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);

	return path_normalise(s);
}

/* The text of a file without trailing blanks, or NULL. */
static char *
read_trimmed(const struct project_fs *fs, const char *path)
{
	char *text = fs->read_file(fs->ctx, path);
	size_t n;

	if (text == NULL)
		return NULL;
	n = strlen(text);
	while (n > 0 && strchr(" \t\r\n", text[n - 1]) != NULL)
		text[--n] = '\0';
	return text;
}

/* A HEAD git accepts: "ref: refs/...", or an object id. */
static bool
valid_head(const char *text)
{
	size_t hex;

	if (strncmp(text, "ref:", 4) == 0) {
		text += 4 + strspn(text + 4, " \t");
		return strncmp(text, "refs/", 5) == 0;
	}
	hex = strspn(text, "0123456789abcdef");
	return (hex == 40 || hex == 64) && text[hex] == '\0';
}

/* Whether dir is a git directory, as git's is_git_directory() says. */
static bool
git_directory(const struct project_fs *fs, const char *dir)
{
	_cleanup_free_ char *head = xasprintf("%s/HEAD", dir);
	_cleanup_free_ char *cfile = xasprintf("%s/commondir", dir);
	_cleanup_free_ char *text = NULL, *common = NULL;
	_cleanup_free_ char *objects = NULL, *refs = NULL;

	if (kind(fs, dir) != 'd' || kind(fs, head) != 'f' ||
	    (text = read_trimmed(fs, head)) == NULL || !valid_head(text))
		return false;
	if (kind(fs, cfile) == 'f') {
		_cleanup_free_ char *line = read_trimmed(fs, cfile);

		if (line == NULL || line[0] == '\0')
			return false;
		common = named_path(dir, line);
	} else {
		common = xstrdup(dir);
	}
	objects = xasprintf("%s/objects", common);
	refs = xasprintf("%s/refs", common);
	return kind(fs, objects) == 'd' && kind(fs, refs) == 'd';
}

/*
 * DIR/.git: 1 when it makes DIR a work tree's top level, 0 when there
 * is none, -1 when the search stops there: a .git file git refuses (git
 * stops with an error), or a .git directory that is not a git directory.
 * git goes on upwards past the latter, but a sandboxed command can make
 * its project's one so (a HEAD it rewrites, refs/ it removes), and the
 * next run from the project would then take the work tree above for the
 * project, other projects and all (review V): the search ends there.
 */
static int
has_dotgit(const struct project_fs *fs, const char *dir)
{
	_cleanup_free_ char *dotgit = named_path(dir, ".git");
	_cleanup_free_ char *text = NULL, *gitdir = NULL;

	switch (kind(fs, dotgit)) {
	case 'd':
		return git_directory(fs, dotgit) ? 1 : -1;
	case 'f':
		text = read_trimmed(fs, dotgit);
		if (text == NULL || strncmp(text, "gitdir:", 7) != 0 ||
		    strchr(text, '\n') != NULL)
			return -1;
		gitdir = named_path(dir, text + 7 + strspn(text + 7, " \t"));
		return git_directory(fs, gitdir) ? 1 : -1;
	default:
		return 0;
	}
}

/* Whether a ceiling is strictly above dir and at or below path, so that
 * path is not looked at. */
static bool
above_ceiling(const char *path, const char *dir, char *const *ceilings)
{
	for (char *const *c = ceilings; c != NULL && *c != NULL; c++) {
		_cleanup_free_ char *n = NULL;

		if ((*c)[0] != '/')
			continue;
		n = path_normalise(*c);
		if (strcmp(n, dir) != 0 && path_under(dir, n) &&
		    path_under(n, path))
			return true;
	}
	return false;
}

char *
project_toplevel(const char *dir, char *const *ceilings,
		 const struct project_fs *fs)
{
	_cleanup_free_ char *cur = path_normalise(dir);
	unsigned long long dev0, dev;

	if (fs->stat(fs->ctx, cur, &dev0) != 'd')
		return NULL;
	for (;;) {
		char *slash;

		switch (has_dotgit(fs, cur)) {
		case 1:
			return steal_pointer(&cur);
		case -1:
			return NULL;
		}
		if (git_directory(fs, cur) || strcmp(cur, "/") == 0)
			return NULL;
		slash = strrchr(cur, '/');
		if (slash == cur)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (above_ceiling(cur, dir, ceilings) ||
		    fs->stat(fs->ctx, cur, &dev) != 'd' || dev != dev0)
			return NULL;
	}
}
