/*
 * project: the top level of the git work tree that holds a directory, as
 * git's discovery finds it, on a table-defined file system.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "project.h"
#include "xalloc.h"

/* "d:/p" a directory, "f:/p=text" a file with its text; "m:/p" a
 * directory on another file system (a mount point), whose entries are on
 * it too.  Ancestors of every entry are directories. */
struct tfs {
	const char *const *ents;
};

static int
tfs_stat(void *ctx, const char *path, unsigned long long *dev)
{
	const struct tfs *t = ctx;
	size_t n = strlen(path);
	int k = 0;

	*dev = 1;
	for (const char *const *e = t->ents; *e != NULL; e++) {
		const char *p = *e + 2;
		size_t pl = strcspn(p, "=");

		/* On a mount point's file system: it or under it. */
		if ((*e)[0] == 'm' && strncmp(path, p, pl) == 0 &&
		    (path[pl] == '\0' || path[pl] == '/'))
			*dev = 2;
		if (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '='))
			k = (*e)[0] == 'f' ? 'f' : 'd';
		else if (k == 0 && strncmp(p, path, n) == 0 &&
			 (p[n] == '/' || strcmp(path, "/") == 0))
			k = 'd';
	}
	return k;
}

static char *
tfs_read(void *ctx, const char *path)
{
	const struct tfs *t = ctx;
	size_t n = strlen(path);

	for (const char *const *e = t->ents; *e != NULL; e++)
		if ((*e)[0] == 'f' && strncmp(*e + 2, path, n) == 0 &&
		    (*e)[2 + n] == '=')
			return xstrdup(*e + 3 + n);
	return NULL;
}

#define V(...)                                                                 \
	(const char *const[])                                                  \
	{                                                                      \
		__VA_ARGS__, NULL                                              \
	}

#define C(...)                                                                 \
	(char *const[])                                                        \
	{                                                                      \
		__VA_ARGS__, NULL                                              \
	}

/* A repository's .git directory at dir, as git init makes it. */
#define REPO(dir)                                                              \
	"f:" dir "/.git/HEAD=ref: refs/heads/main\n",                          \
		"d:" dir "/.git/objects", "d:" dir "/.git/refs/heads"

static void
check(const char *const *ents, const char *dir, char *const *ceilings,
      const char *want)
{
	struct tfs t = { .ents = ents };
	struct project_fs fs = { tfs_stat, tfs_read, &t };
	_cleanup_free_ char *got = project_toplevel(dir, ceilings, &fs);

	if (want == NULL)
		assert_null(got);
	else
		assert_non_null(got), assert_string_equal(got, want);
}

static void
test_toplevel(void **state)
{
	(void)state;
	/* The directory itself, and from deep inside. */
	check(V(REPO("/h/p"), "d:/h/p/src/lib"), "/h/p", NULL, "/h/p");
	check(V(REPO("/h/p"), "d:/h/p/src/lib"), "/h/p/src/lib", NULL, "/h/p");
	/* The nearest one: a nested repository wins. */
	check(V(REPO("/h/p"), REPO("/h/p/vendor/x"), "d:/h/p/vendor/x/a"),
	      "/h/p/vendor/x/a", NULL, "/h/p/vendor/x");
	/* No repository: none. */
	check(V("d:/h/p/src"), "/h/p/src", NULL, NULL);
	/* A .git that is not a git directory (empty, no HEAD, HEAD not a
	 * ref, no objects/): git goes on upwards, llwrap stops there (review
	 * V: a command that broke its project's HEAD had the next run take
	 * the work tree above, other projects and all, as its project). */
	check(V(REPO("/h"), "d:/h/p/.git", "d:/h/p/src"), "/h/p/src", NULL,
	      NULL);
	check(V(REPO("/h"), "f:/h/p/.git/HEAD=junk\n", "d:/h/p/.git/objects",
		"d:/h/p/.git/refs"),
	      "/h/p", NULL, NULL);
	check(V(REPO("/h"), "f:/h/p/.git/HEAD=ref: refs/heads/main\n",
		"d:/h/p/.git/objects", "d:/h/p/a"),
	      "/h/p/a", NULL, NULL);
	check(V("f:/h/p/.git/HEAD=garbage", "d:/h/p/.git/objects",
		"d:/h/p/.git/refs", "d:/h/p/a"),
	      "/h/p/a", NULL, NULL);
	check(V("f:/h/p/.git/HEAD=ref: refs/heads/main", "d:/h/p/.git/refs",
		"d:/h/p/a"),
	      "/h/p/a", NULL, NULL);
	check(V("f:/h/p/.git/HEAD=0123456789abcdef0123456789abcdef01234567\n",
		"d:/h/p/.git/objects", "d:/h/p/.git/refs", "d:/h/p/a"),
	      "/h/p/a", NULL, "/h/p");
	/* A linked worktree: its .git file names the worktree's git
	 * directory, whose commondir holds objects/ and refs/. */
	check(V(REPO("/h/main"),
		"f:/h/main/.git/worktrees/w/HEAD=ref: refs/heads/w",
		"f:/h/main/.git/worktrees/w/commondir=../..\n",
		"f:/h/w/.git=gitdir: /h/main/.git/worktrees/w\n", "d:/h/w/src"),
	      "/h/w/src", NULL, "/h/w");
	/* A submodule checkout: a relative gitdir. */
	check(V(REPO("/h/p"), "f:/h/p/.git/modules/s/HEAD=ref: refs/heads/m",
		"d:/h/p/.git/modules/s/objects", "d:/h/p/.git/modules/s/refs",
		"f:/h/p/lib/s/.git=gitdir: ../../.git/modules/s",
		"d:/h/p/lib/s/x"),
	      "/h/p/lib/s/x", NULL, "/h/p/lib/s");
	/* A .git file git refuses (not "gitdir:", or naming no git
	 * directory): git stops with an error, so nothing is found, not
	 * the repository above. */
	check(V(REPO("/h"), "f:/h/p/.git=garbage", "d:/h/p/a"), "/h/p/a", NULL,
	      NULL);
	check(V(REPO("/h"), "f:/h/p/.git=gitdir: /nowhere", "d:/h/p/a"),
	      "/h/p/a", NULL, NULL);
	/* Inside a git directory (a bare repository, or .git itself): no
	 * work tree. */
	check(V(REPO("/h/p"), "d:/h/p/.git/refs/heads"), "/h/p/.git/refs/heads",
	      NULL, NULL);
	check(V("f:/h/b.git/HEAD=ref: refs/heads/main", "d:/h/b.git/objects",
		"d:/h/b.git/refs"),
	      "/h/b.git", NULL, NULL);
	/* A mount point on the way: git does not cross it. */
	check(V(REPO("/h/p"), "m:/h/p/mnt", "d:/h/p/mnt/a"), "/h/p/mnt/a", NULL,
	      NULL);
	check(V(REPO("/h/p/mnt"), "m:/h/p/mnt", "d:/h/p/mnt/a"), "/h/p/mnt/a",
	      NULL, "/h/p/mnt");
	/* Ceilings: not looked at, nor above them; the directory itself
	 * is, even when it is one. */
	check(V(REPO("/h"), "d:/h/p/a"), "/h/p/a", C("/h"), NULL);
	check(V(REPO("/h"), "d:/h/p/a"), "/h/p/a", C("/h/p"), NULL);
	check(V(REPO("/h/p"), "d:/h/p/a"), "/h/p/a", C("/h"), "/h/p");
	check(V(REPO("/h/p"), "d:/h/p/a"), "/h/p", C("/h/p"), "/h/p");
	check(V(REPO("/h"), "d:/h/p/a"), "/h/p/a", C("relative", "/x"), "/h");
	/* The root itself. */
	check(V(REPO("")), "/", NULL, "/");
	check(V("d:/a"), "/a", NULL, NULL);
	/* A directory that is not there. */
	check(V(REPO("/h")), "/h/nothere", NULL, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toplevel),
	};

	return cmocka_run_group_tests_name("project", tests, NULL, NULL);
}
