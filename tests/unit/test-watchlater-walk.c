/*
 * watchlater-walk.c: the project listed during the run by a thread, and
 * at the end looked at again where it changed.  Whatever the command
 * changed after the listing (a repository made deep in the tree, a tree
 * renamed in, a directory replaced by a link or by another directory,
 * two exchanged, a bare repository made, the thread stopped before it
 * was done), the end must find every repository of the tree as it is
 * then (a directory with a .git, one git takes for a bare repository),
 * each once: what a walk of the final tree from nothing finds.  Random changes,
 * seeded, many rounds; a missed directory is a repository the user's git would
 * run unchecked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "strv.h"
#include "watchlater-int.h"
#include "xalloc.h"

static char **found;

static void
record(struct watchlater *w, int fd, const char *rel, unsigned flags)
{
	struct stat st;

	(void)w;
	/* The descriptor is the directory at rel. */
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	strv_push_take(&found,
		       xasprintf("%s%s%s%s", *rel ? rel : ".",
				 flags & WALK_DOTGIT ? " .git" : "",
				 flags & WALK_BARE ? " bare" : "",
				 flags & WALK_SPECIAL ? " special" : ""));
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tree at rel beneath dirfd as a walk from nothing sees it: its
 * repositories, or all its directories. */
static void
walk_all(int dirfd, const char *rel, bool all, char ***out)
{
	int fd = openat(dirfd, *rel ? rel : ".",
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fdopendir(fd);
	struct dirent *e;
	bool dotgit = false, head = false, parts = false, special = false;
	char **subs = NULL;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (strcmp(e->d_name, "HEAD") == 0)
			head = true;
		if (strcmp(e->d_name, "objects") == 0 ||
		    strcmp(e->d_name, "refs") == 0 ||
		    strcmp(e->d_name, "commondir") == 0)
			parts = true;
		if ((strcmp(e->d_name, ".gitignore") == 0 ||
		     strcmp(e->d_name, ".gitattributes") == 0) &&
		    e->d_type == DT_FIFO)
			special = true;
		if (strcmp(e->d_name, ".git") == 0)
			dotgit = true;
		else if (e->d_type == DT_DIR)
			strv_push_take(&subs,
				       *rel ? xasprintf("%s/%s", rel, e->d_name)
					    : xstrdup(e->d_name));
	}
	closedir(d);
	if (all || dotgit || (head && parts) || special)
		strv_push_take(out, xasprintf("%s%s%s%s", *rel ? rel : ".",
					      dotgit ? " .git" : "",
					      head && parts ? " bare" : "",
					      special ? " special" : ""));
	for (char **s = subs; s != NULL && *s != NULL; s++)
		walk_all(dirfd, *s, all, out);
	strv_free(subs);
}

static unsigned long rng;

static unsigned
pick(unsigned n)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)(rng >> 33) % n;
}

/* The directories of the tree now (relative), for picking one. */
static char **
dirs_now(int rootfd)
{
	char **all = NULL, **dirs = NULL;

	walk_all(rootfd, "", true, &all);
	for (char **s = all; *s != NULL; s++) {
		char *sp = strchr(*s, ' ');

		if (sp != NULL)
			*sp = '\0';
		strv_push(&dirs, strcmp(*s, ".") == 0 ? "" : *s);
	}
	strv_free(all);
	return dirs;
}

static char *
at(const char *rel, const char *name)
{
	return *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
}

static void
mkfile(int rootfd, const char *rel)
{
	int fd = openat(rootfd, rel, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

/* One random change by "the command", in the tree or from outside it
 * (outfd: a directory beside the project). */
static void
change(int rootfd, int outfd, unsigned round)
{
	char **dirs = dirs_now(rootfd);
	size_t n = strv_length(dirs);
	const char *a = dirs[pick((unsigned)n)], *b = dirs[pick((unsigned)n)];
	char name[32];
	char *p = NULL, *q = NULL;

	snprintf(name, sizeof(name), "n%u_%u", round, pick(1000));
	switch (pick(10)) {
	case 0: /* a repository made deep in the tree */
		p = at(a, ".git");
		mkdirat(rootfd, p, 0755);
		break;
	case 1: /* a tree made outside, renamed in */
		mkdirat(outfd, name, 0755);
		free(p);
		p = xasprintf("%s/x", name);
		mkdirat(outfd, p, 0755);
		free(p);
		p = xasprintf("%s/x/.git", name);
		mkdirat(outfd, p, 0755);
		q = at(b, name);
		renameat(outfd, name, rootfd, q);
		break;
	case 2: /* a directory replaced by a link */
		if (*a == '\0')
			break;
		p = xasprintf("%s.old%u", a, round);
		if (renameat(rootfd, a, rootfd, p) == 0)
			symlinkat("/", rootfd, a);
		break;
	case 3: /* a directory replaced by another of the same name */
		if (*a == '\0')
			break;
		if (renameat(rootfd, a, outfd, name) == 0) {
			mkdirat(rootfd, a, 0755);
			q = at(a, "HEAD");
			mkfile(rootfd, q);
			free(q);
			q = at(a, "refs");
			mkdirat(rootfd, q, 0755);
		}
		break;
	case 4: /* a subtree moved within the project */
		if (*a == '\0' || strncmp(b, a, strlen(a)) == 0)
			break;
		q = at(b, name);
		renameat(rootfd, a, rootfd, q);
		break;
	case 5: /* two exchanged */
		if (*a == '\0' || *b == '\0' || strncmp(b, a, strlen(a)) == 0 ||
		    strncmp(a, b, strlen(b)) == 0)
			break;
		renameat2(rootfd, a, rootfd, b, RENAME_EXCHANGE);
		break;
	case 6: /* a bare repository made */
		p = at(a, "HEAD");
		mkfile(rootfd, p);
		q = at(a, "objects");
		mkdirat(rootfd, q, 0755);
		break;
	case 7: /* a directory made, with a repository in it */
		p = at(a, name);
		mkdirat(rootfd, p, 0755);
		q = at(p, ".git");
		mkfile(rootfd, q);
		break;
	case 9: /* a FIFO where git reads its ignore rules */
		p = at(a, pick(2) ? ".gitignore" : ".gitattributes");
		mkfifoat(rootfd, p, 0644);
		break;
	default: /* one moved out of the tree */
		if (*a == '\0')
			break;
		renameat(rootfd, a, outfd, name);
		break;
	}
	free(p);
	free(q);
	strv_free(dirs);
}

static void
make_tree(int rootfd, unsigned dirs)
{
	char **made = NULL;

	strv_push(&made, "");
	for (unsigned i = 0; i < dirs; i++) {
		const char *parent = made[pick((unsigned)strv_length(made))];
		char name[16];
		char *p;

		/* Names repeat across directories: a directory replaced
		 * by another may hold a subdirectory of the same name. */
		snprintf(name, sizeof(name), "d%u", i % 8);
		p = at(parent, name);
		if (mkdirat(rootfd, p, 0755) < 0) {
			assert_int_equal(errno, EEXIST);
			free(p);
			continue;
		}
		/* Half with a .git (a file: a worktree's), so that a
		 * directory found twice or missed shows; some a repository. */
		if (pick(2) == 0) {
			char *g = at(p, ".git");

			if (pick(10) == 0)
				mkdirat(rootfd, g, 0755);
			else
				mkfile(rootfd, g);
			free(g);
		}
		strv_push_take(&made, p);
	}
	strv_free(made);
}

static void
rm_tree(const char *path)
{
	char *cmd = xasprintf("rm -rf '%s'", path);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* One round: a tree, listed (all of it when wait, else as far as the
 * thread gets), changed, looked at again. */
static void
round_of(unsigned seed, bool wait, unsigned changes)
{
	char base[] = "/tmp/llw-walk-XXXXXX";
	char *proj, *out;
	struct watchlater w = { .ifd = -1, .nested_check = true };
	char **want = NULL;
	int rootfd, outfd;
	size_t n;

	rng = seed;
	assert_non_null(mkdtemp(base));
	proj = xasprintf("%s/proj", base);
	out = xasprintf("%s/out", base);
	assert_int_equal(mkdir(proj, 0755), 0);
	assert_int_equal(mkdir(out, 0755), 0);
	rootfd = open(proj, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	outfd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	make_tree(rootfd, 150);
	/* The start after the tree's last change, on the coarse clock
	 * (a tick at most 10 ms). */
	usleep(25000);
	clock_gettime(CLOCK_REALTIME_COARSE, &w.since);
	w.roots[0] = (struct root){ .fd = rootfd, .path = proj };
	w.n_roots = 1;
	wl_walk_start(&w);
	if (wait)
		wl_walk_wait(&w);
	for (unsigned i = 0; i < changes; i++)
		change(rootfd, outfd, i);
	wl_walk_end(&w, record);
	assert_int_equal(w.n_failures, 0);
	walk_all(rootfd, "", false, &want);
	n = strv_length(want);
	qsort(want, n, sizeof(*want), cmp);
	qsort(found, strv_length(found), sizeof(*found), cmp);
	if (strv_length(found) != n)
		print_error("seed %u: %zu found, %zu there\n", seed,
			    strv_length(found), n);
	for (size_t i = 0; i < n && i < strv_length(found); i++)
		if (strcmp(found[i], want[i]) != 0) {
			print_error("seed %u: found %s, there %s\n", seed,
				    found[i], want[i]);
			break;
		}
	assert_int_equal(strv_length(found), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(found[i], want[i]);
	wl_walk_free(&w);
	strv_free(found);
	found = NULL;
	strv_free(want);
	close(rootfd);
	close(outfd);
	rm_tree(base);
	free(proj);
	free(out);
}

static void
test_unchanged(void **state)
{
	(void)state;
	round_of(1, true, 0);
	round_of(2, false, 0);
}

static void
test_changed_after_listing(void **state)
{
	(void)state;
	for (unsigned seed = 10; seed < 40; seed++)
		round_of(seed, true, 1 + seed % 12);
}

static void
test_changed_while_listing(void **state)
{
	(void)state;
	for (unsigned seed = 100; seed < 115; seed++)
		round_of(seed, false, 1 + seed % 12);
}

/* Without the thread (no run: the end walks all, as before). */
static void
test_no_thread(void **state)
{
	char base[] = "/tmp/llw-walk-XXXXXX";
	struct watchlater w = { .ifd = -1, .nested_check = true };
	char **want = NULL;
	int rootfd;

	(void)state;
	rng = 7;
	assert_non_null(mkdtemp(base));
	rootfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	make_tree(rootfd, 60);
	clock_gettime(CLOCK_REALTIME_COARSE, &w.since);
	w.roots[0] = (struct root){ .fd = rootfd, .path = base };
	w.n_roots = 1;
	wl_walk_end(&w, record);
	walk_all(rootfd, "", false, &want);
	assert_int_equal(strv_length(found), strv_length(want));
	wl_walk_free(&w);
	strv_free(found);
	found = NULL;
	strv_free(want);
	close(rootfd);
	rm_tree(base);
}

/*
 * A file system that stamps whole seconds (ext4 with 128-byte inodes;
 * FAT, two): a directory the command changes just after the start is
 * stamped before it, in the start's second.  A repository made then in
 * a directory the thread had listed must still be found.  On such a
 * file system only: LLW_TEST_COARSE_DIR names a directory on one
 * (mkfs.ext4 -I 128 on a loop device).
 */
static void
test_whole_seconds(void **state)
{
	const char *dir = getenv("LLW_TEST_COARSE_DIR");
	struct watchlater w = { .ifd = -1, .nested_check = true };
	char **want = NULL;
	struct stat st;
	char *base;
	int rootfd;

	(void)state;
	if (dir == NULL) {
		/* (cmocka's skip() reads as a failure to the TAP driver.) */
		print_message("# skip: LLW_TEST_COARSE_DIR names no file "
			      "system that stamps whole seconds\n");
		return;
	}
	base = xasprintf("%s/llw-walk-XXXXXX", dir);
	assert_non_null(mkdtemp(base));
	rootfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(mkdirat(rootfd, "a", 0755), 0);
	/* The start well into a second, as most are. */
	do {
		usleep(25000);
		clock_gettime(CLOCK_REALTIME_COARSE, &w.since);
	} while (w.since.tv_nsec < 100000000 || w.since.tv_nsec > 500000000);
	assert_int_equal(fstat(rootfd, &st), 0);
	assert_int_equal(st.st_ctim.tv_nsec, 0);
	wl_since_stamped(&w, &st);
	w.roots[0] = (struct root){ .fd = rootfd, .path = base };
	w.n_roots = 1;
	wl_walk_start(&w);
	wl_walk_wait(&w);
	assert_int_equal(mkdirat(rootfd, "a/new", 0755), 0);
	mkfile(rootfd, "a/new/.git");
	wl_walk_end(&w, record);
	walk_all(rootfd, "", false, &want);
	assert_int_equal(strv_length(want), 1);
	assert_int_equal(strv_length(found), 1);
	assert_string_equal(found[0], "a/new .git");
	wl_walk_free(&w);
	strv_free(found);
	found = NULL;
	strv_free(want);
	close(rootfd);
	rm_tree(base);
	free(base);
}

/* git am's apply-opt (review V): git am's own pass-through options, as
 * it writes them, pass; any other option of git apply's, or what llwrap
 * cannot read as git does, does not. */
static void
test_apply_opt(void **state)
{
	static const char *const ok[] = {
		"",
		"\n",
		" '--whitespace=fix' '-C2' '-p1'\n",
		"'--directory=sub dir' '--exclude=*.c' '--include=a'",
		" '--ignore-space-change' '--ignore-whitespace' '--reject'",
		"'--no-reject'\r\n",
	};
	static const char *const refused[] = {
		" '--build-fake-ancestor=/home/u/.bashrc'",
		"'--build-fake=/x'",
		"'--whitespace=fix' '--unsafe-paths'",
		"'--cached'",
		"'-R'",
		"'-C'",
		"'-C' '3'",
		"'-p1x'",
		"'--reject''--cached'",
		"'--reject'x",
		"'--direc'\\''tory=x'",
		"--reject",
		"'--reject",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!wl_apply_opt_ok(ok[i], strlen(ok[i])))
			fail_msg("refused: %s", ok[i]);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (wl_apply_opt_ok(refused[i], strlen(refused[i])))
			fail_msg("passed: %s", refused[i]);
	/* A NUL: git's string ends there. */
	assert_false(wl_apply_opt_ok("'--reject'\0'--cached'", 21));
}

/* A strategy option given where no strategy is named (review Y: git
 * then takes the user's pull.twohead, resolve turns an option into one
 * of git read-tree's): git's own merges' options pass, another not. */
static void
test_strategy_option(void **state)
{
	static const char *const ok[] = {
		"ours",		 "theirs",	    "subtree",
		"subtree=lib/x", "patience",	    "diff-algorithm=histogram",
		"renormalize",	 "find-renames=50", "ignore-cr-at-eol",
	};
	static const char *const refused[] = {
		"index-output=/home/u/.bashrc",
		"prefix=x/",
		"aggressive",
		"subtree=",
		"",
		"ours ",
		"--ours",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!wl_strategy_option_ok(ok[i], strlen(ok[i])))
			fail_msg("refused: %s", ok[i]);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (wl_strategy_option_ok(refused[i], strlen(refused[i])))
			fail_msg("passed: %s", refused[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged),
		cmocka_unit_test(test_changed_after_listing),
		cmocka_unit_test(test_changed_while_listing),
		cmocka_unit_test(test_no_thread),
		cmocka_unit_test(test_whole_seconds),
		cmocka_unit_test(test_apply_opt),
		cmocka_unit_test(test_strategy_option),
	};

	return cmocka_run_group_tests_name("watchlater-walk", tests, NULL,
					   NULL);
}
