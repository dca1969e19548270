/*
 * gitguard: what protect-git and protect-later-run find in a project, on
 * a table-defined file system.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "gitguard.h"
#include "strv.h"
#include "xalloc.h"

/* "d:/p" a directory, "f:/p=text" a file with its text, "l:/p" a link. */
struct tfs {
	const char *const *ents;
};

static const char *
tfs_find(const struct tfs *t, const char *path, int *kind)
{
	size_t n = strlen(path);

	for (const char *const *e = t->ents; *e != NULL; e++) {
		const char *p = *e + 2;

		if (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '=')) {
			*kind = (*e)[0];
			return p[n] == '=' ? p + n + 1 : "";
		}
		/* Ancestors of every entry are directories. */
		if (strncmp(p, path, n) == 0 && p[n] == '/') {
			*kind = 'd';
			return "";
		}
	}
	*kind = 0;
	return NULL;
}

static int
tfs_kind(void *ctx, const char *path)
{
	int k;

	tfs_find(ctx, path, &k);
	return k;
}

static char **
tfs_list(void *ctx, const char *path)
{
	const struct tfs *t = ctx;
	char **v = xcalloc(1, sizeof(char *));
	size_t n = strlen(path);

	for (const char *const *e = t->ents; *e != NULL; e++) {
		const char *p = *e + 2;
		_cleanup_free_ char *name = NULL;

		if (strncmp(p, path, n) != 0 || p[n] != '/')
			continue;
		name = xstrndup(p + n + 1, strcspn(p + n + 1, "/="));
		if (!strv_contains(v, name))
			strv_push(&v, name);
	}
	return v;
}

static char *
tfs_read(void *ctx, const char *path)
{
	int k;
	const char *text = tfs_find(ctx, path, &k);

	if (k != 'f' || text == NULL)
		return NULL;
	/* "\n" in the table is a newline. */
	{
		char *s = xstrdup(text), *o = s;

		for (const char *c = text; *c != '\0'; c++)
			if (c[0] == '\\' && c[1] == 'n') {
				*o++ = '\n';
				c++;
			} else {
				*o++ = *c;
			}
		*o = '\0';
		return s;
	}
}

#define V(...)                                                                 \
	(const char *const[])                                                  \
	{                                                                      \
		__VA_ARGS__, NULL                                              \
	}

/* "R path", "X path" (hooks), "P path", "W path" (a linked worktree's
 * repository, writable) per entry, in order found. */
static char *
render(const struct gitguard *g)
{
	_cleanup_strv_ char **lines = xcalloc(1, sizeof(char *));

	for (size_t i = 0; i < g->n; i++)
		strv_push_take(&lines,
			       xasprintf("%c %s\n",
					 g->v[i].kind == GITGUARD_PIN  ? 'P'
					 : g->v[i].kind == GITGUARD_RX ? 'X'
					 : g->v[i].kind == GITGUARD_RW ? 'W'
								       : 'R',
					 g->v[i].path));
	return strv_join(lines, "");
}

static void
check(const char *const *ents, bool later, const char *want, const char *note)
{
	struct tfs t = { .ents = ents };
	struct gitguard_fs fs = { tfs_kind, tfs_list, tfs_read, &t, NULL };
	struct gitguard *g =
		later ? gitguard_later_run("/p", &fs)
		      : gitguard_scan("/p", &fs, NULL, "/h", NULL, 0);
	_cleanup_free_ char *got = render(g);
	bool noted = note == NULL;

	if (strcmp(got, want) != 0)
		print_message("# got\n%s# want\n%s", got, want);
	assert_string_equal(got, want);
	for (char **n = g->notes; note != NULL && *n != NULL; n++)
		noted |= strstr(*n, note) != NULL;
	if (!noted)
		print_message("# missing note: %s\n", note);
	assert_true(noted);
	gitguard_free(g);
}

static void
test_git(void **state)
{
	(void)state;
	/* A plain repository: .git pinned, what runs commands read-only. */
	check(V("f:/p/.git/config=x", "f:/p/.git/HEAD=x",
		"f:/p/.git/hooks/pre-commit=x", "f:/p/a=x"),
	      false,
	      "P /p/.git\n"
	      "R /p/.git/config\n"
	      "X /p/.git/hooks\n",
	      NULL);
	/* git's legacy remote files (review A, F8): read-only where they
	 * exist (git init's empty branches/, a remotes/ file). */
	check(V("f:/p/.git/config=x", "d:/p/.git/hooks", "d:/p/.git/branches",
		"f:/p/.git/remotes/origin=URL: /srv/r.git"),
	      false,
	      "P /p/.git\n"
	      "R /p/.git/config\n"
	      "X /p/.git/hooks\n"
	      "R /p/.git/remotes\n"
	      "R /p/.git/branches\n",
	      NULL);
	/* No repository: a note. */
	check(V("f:/p/a=x"), false, "", "does not exist");
	/* A missing hooks/ is noted (llwrap makes it before running). */
	check(V("f:/p/.git/config=x"), false, "P /p/.git\nR /p/.git/config\n",
	      "hooks does not exist");
	/* Submodules: their repositories under modules/ (names may hold
	 * slashes), their checkouts' .git files and the way to them. */
	check(V("f:/p/.git/config=x", "d:/p/.git/hooks",
		"f:/p/.git/modules/lib/sub/HEAD=x",
		"f:/p/.git/modules/lib/sub/config=x",
		"f:/p/.gitmodules=[submodule \"s\"]\\n\tpath = lib/sub\\n"
		"[submodule \"bad\"]\\n\tpath = ../out\\n",
		"f:/p/lib/sub/.git=gitdir: ../../.git/modules/lib/sub"),
	      false,
	      "P /p/.git\n"
	      "R /p/.git/config\n"
	      "X /p/.git/hooks\n"
	      "P /p/.git/modules\n"
	      "P /p/.git/modules/lib\n"
	      "P /p/.git/modules/lib/sub\n"
	      "R /p/.git/modules/lib/sub/config\n"
	      "R /p/lib/sub/.git\n"
	      "P /p/lib\n"
	      "P /p/lib/sub\n",
	      NULL);
	/* .gitmodules read as git reads it: a key on the header's line,
	 * a value continued over two lines, quotes and escapes. */
	check(V("f:/p/.git/config=x", "d:/p/.git/hooks",
		"f:/p/.gitmodules=[submodule \"s\"]path=lib/sub\n"
		"[submodule \"t\"]\n\tpath = li\\\nb/t\n"
		"[submodule \"u\"]\n\tpath = \"l\\\"u\" ; c\n",
		"f:/p/lib/sub/.git=gitdir: x", "f:/p/lib/t/.git=gitdir: x",
		"f:/p/l\"u/.git=gitdir: x"),
	      false,
	      "P /p/.git\n"
	      "R /p/.git/config\n"
	      "X /p/.git/hooks\n"
	      "R /p/lib/sub/.git\n"
	      "P /p/lib\n"
	      "P /p/lib/sub\n"
	      "R /p/lib/t/.git\n"
	      "P /p/lib/t\n"
	      "R /p/l\"u/.git\n"
	      "P /p/l\"u\n",
	      NULL);
	/* A linked worktree's .git file, its gitdir and the common
	 * directory its commondir names. */
	check(V("f:/p/.git=gitdir: /m/.git/worktrees/w",
		"f:/m/.git/worktrees/w/commondir=../..",
		"f:/m/.git/worktrees/w/HEAD=x", "f:/m/.git/config=x",
		"d:/m/.git/hooks"),
	      false,
	      "R /p/.git\n"
	      "P /m/.git/worktrees/w\n"
	      "R /m/.git/worktrees/w/commondir\n"
	      "P /m/.git\n"
	      "R /m/.git/config\n"
	      "X /m/.git/hooks\n"
	      "R /m/.git/worktrees\n",
	      "not a linked worktree's repository");
	/* As git makes it (the gitdir file names this .git back, HEAD,
	 * objects/ and refs/ in the common directory): both writable, what
	 * runs commands read-only, the common directory's submodule
	 * repositories too. */
#define LINKED                                                                 \
	"f:/p/.git=gitdir: /m/.git/worktrees/w",                               \
		"f:/m/.git/worktrees/w/commondir=../..",                       \
		"f:/m/.git/worktrees/w/HEAD=x", "f:/m/.git/HEAD=x",            \
		"d:/m/.git/objects", "d:/m/.git/refs", "f:/m/.git/config=x",   \
		"d:/m/.git/hooks", "f:/m/.git/modules/s/HEAD=x",               \
		"f:/m/.git/modules/s/config=x"
	check(V(LINKED, "f:/m/.git/worktrees/w/gitdir=/p/.git"), false,
	      "R /p/.git\n"
	      "W /m/.git/worktrees/w\n"
	      "W /m/.git\n"
	      "P /m/.git/worktrees/w\n"
	      "R /m/.git/worktrees/w/commondir\n"
	      "P /m/.git\n"
	      "R /m/.git/config\n"
	      "X /m/.git/hooks\n"
	      "R /m/.git/worktrees\n"
	      "P /m/.git/modules\n"
	      "P /m/.git/modules/s\n"
	      "R /m/.git/modules/s/config\n",
	      NULL);
	/* A gitdir file that names another checkout, a directory not under
	 * worktrees/, a common directory without objects: nothing granted. */
	check(V(LINKED, "f:/m/.git/worktrees/w/gitdir=/q/.git"), false,
	      "R /p/.git\n"
	      "P /m/.git/worktrees/w\n"
	      "R /m/.git/worktrees/w/commondir\n"
	      "P /m/.git\n"
	      "R /m/.git/config\n"
	      "X /m/.git/hooks\n"
	      "R /m/.git/worktrees\n"
	      "P /m/.git/modules\n"
	      "P /m/.git/modules/s\n"
	      "R /m/.git/modules/s/config\n",
	      "not a linked worktree's repository");
	check(V("f:/p/.git=gitdir: /home/u/.ssh", "f:/home/u/.ssh/HEAD=x",
		"d:/home/u/.ssh/objects", "d:/home/u/.ssh/refs",
		"f:/home/u/.ssh/commondir=.", "f:/home/u/.ssh/gitdir=/p/.git"),
	      false,
	      "R /p/.git\n"
	      "P /home/u/.ssh\n"
	      "R /home/u/.ssh/commondir\n",
	      "not a linked worktree's repository");
	check(V("f:/p/.git=gitdir: /m/.git/worktrees/w",
		"f:/m/.git/worktrees/w/commondir=../..",
		"f:/m/.git/worktrees/w/gitdir=/p/.git", "f:/m/.git/HEAD=x",
		"d:/m/.git/refs"),
	      false,
	      "R /p/.git\n"
	      "P /m/.git/worktrees/w\n"
	      "R /m/.git/worktrees/w/commondir\n"
	      "P /m/.git\n"
	      "R /m/.git/worktrees\n",
	      "not a linked worktree's repository");
#undef LINKED
}

/* The paths of g->missing joined by " ", and whether a note holds note. */
static char *
scan_includes(const char *const *ents, char *const *globals, char **missing,
	      const char *note)
{
	struct tfs t = { .ents = ents };
	struct gitguard_fs fs = { tfs_kind, tfs_list, tfs_read, &t, NULL };
	struct gitguard *g = gitguard_scan("/p", &fs, globals, "/h", NULL, 0);
	char *got = render(g);
	bool noted = note == NULL;

	for (char **n = g->notes; note != NULL && *n != NULL; n++)
		noted |= strstr(*n, note) != NULL;
	if (!noted)
		print_message("# missing note: %s\n", note);
	assert_true(noted);
	*missing = strv_join(g->missing, " ");
	gitguard_free(g);
	return got;
}

/* Includes (H4 of the review of 2026-11-27): every file git reads as its
 * configuration that the command could write is read-only, pinned on the
 * way, or watched for; core.hooksPath wherever it is set. */
static void
test_git_includes(void **state)
{
	char *const globals[] = { "/etc/gitconfig", "/h/.gitconfig", NULL };
	_cleanup_free_ char *got = NULL, *missing = NULL;

	(void)state;
	/* The red team's p6: the repository's config includes a file of
	 * the project, relative to .git/; that one includes another in a
	 * directory (pinned on the way) and one missing (watched). */
	got = scan_includes(
		V("f:/p/.git/config=[include]\n\tpath = ../.gitconfig\n",
		  "d:/p/.git/hooks",
		  "f:/p/.gitconfig=[includeIf \"gitdir:/nowhere/\"]\n"
		  "\tpath = conf/git/x.inc\n[include]path=gone.inc\n",
		  "f:/p/conf/git/x.inc=[core]\n\tbare = false\n"),
		NULL, &missing,
		"/p/gone.inc (included by /p/.gitconfig) does "
		"not exist: one created inside");
	assert_string_equal(got, "P /p/.git\n"
				 "R /p/.git/config\n"
				 "X /p/.git/hooks\n"
				 "R /p/.gitconfig\n"
				 "R /p/conf/git/x.inc\n"
				 "P /p/conf\n"
				 "P /p/conf/git\n");
	assert_string_equal(missing,
			    "/p/.git/commondir /p/.git/config.worktree "
			    "/p/.git/remotes /p/.git/branches /p/gone.inc");
	free(got);
	free(missing);
	/* The red team's p8: a file the user's ~/.gitconfig includes sets
	 * core.hooksPath; the user's own files outside are read-only where
	 * the sandbox could write them (pathtree decides), a missing one
	 * outside is said.  A cycle ends. */
	got = scan_includes(
		V("f:/p/.git/config=[include]\n\tpath = config\n",
		  "d:/p/.git/hooks", "d:/p/.githooks",
		  "f:/h/.gitconfig=[include]\n\tpath = ~/git/hooks.inc\n"
		  "\tpath = /h/none.inc\n",
		  "f:/h/git/hooks.inc=[core]\n\thooksPath = .githooks\n"
		  "[include]\n\tpath = ../.gitconfig\n"),
		globals, &missing,
		"/h/none.inc (included by /h/.gitconfig) "
		"does not exist and is not watched for");
	assert_string_equal(got, "P /p/.git\n"
				 "R /p/.git/config\n"
				 "X /p/.git/hooks\n"
				 "R /h/git/hooks.inc\n"
				 "X /p/.githooks\n"
				 "P /p/.githooks\n");
	free(got);
	free(missing);
	/* A core.hooksPath in each file, whichever git takes last: all are
	 * protected (an includeIf decides); a missing one is watched. */
	got = scan_includes(
		V("f:/p/.git/config=[core]\n\thooksPath = a\n"
		  "[includeIf \"onbranch:x\"]\n\tpath = ../b.inc\n",
		  "d:/p/.git/hooks", "d:/p/a",
		  "f:/p/b.inc=[core]\n\thooksPath = ~/p2\n\thooksPath = c/d\n"),
		NULL, &missing,
		"core.hooksPath names /p/c/d, which does not "
		"exist");
	assert_string_equal(got, "P /p/.git\n"
				 "R /p/.git/config\n"
				 "X /p/.git/hooks\n"
				 "R /p/b.inc\n"
				 "X /p/a\n"
				 "P /p/a\n");
	assert_non_null(strstr(missing, "/p/c/d"));
	free(got);
	free(missing);
	/* As deep as git goes (10), and no deeper: it stops there. */
	got = scan_includes(
		V("f:/p/.git/config=[include]path=1\n", "d:/p/.git/hooks",
		  "f:/p/.git/1=[include]path=2", "f:/p/.git/2=[include]path=3",
		  "f:/p/.git/3=[include]path=4", "f:/p/.git/4=[include]path=5",
		  "f:/p/.git/5=[include]path=6", "f:/p/.git/6=[include]path=7",
		  "f:/p/.git/7=[include]path=8", "f:/p/.git/8=[include]path=9",
		  "f:/p/.git/9=[include]path=10",
		  "f:/p/.git/10=[include]path=11",
		  "f:/p/.git/11=[include]path=12"),
		NULL, &missing,
		"/p/.git/10 includes files deeper than git follows");
	assert_non_null(strstr(got, "R /p/.git/10\n"));
	assert_null(strstr(got, "R /p/.git/11\n"));
	free(got);
	free(missing);
	/* A link: its target read-only (pathtree resolves it), the link
	 * itself said. */
	got = scan_includes(V("f:/p/.git/config=[include]path=../l.inc\n",
			      "d:/p/.git/hooks", "l:/p/l.inc"),
			    NULL, &missing,
			    "/p/l.inc (included by /p/.git/config) is a "
			    "symbolic link");
	assert_non_null(strstr(got, "R /p/l.inc\n"));
	free(got);
	free(missing);
	/* A directory: the project (or one outside) is never made
	 * read-only for it. */
	got = scan_includes(
		V("f:/p/.git/config=[include]path=..\n", "d:/p/.git/hooks"),
		NULL, &missing,
		"/p (included by /p/.git/config) "
		"is a directory");
	assert_string_equal(got,
			    "P /p/.git\nR /p/.git/config\nX /p/.git/hooks\n");
	free(got);
	free(missing);
	/* The third review's p5: ~user/ from that user's home, as git
	 * reads it (root's, then up to /p): followed and read-only. */
	got = scan_includes(V("f:/p/.git/config=[include]\n\tpath = "
			      "~root/../../../../../../p/a.inc\n",
			      "d:/p/.git/hooks",
			      "f:/p/a.inc=[user]\n\tname = u\n"),
			    NULL, &missing, NULL);
	assert_non_null(strstr(got, "R /p/a.inc\n"));
	free(got);
	free(missing);
	/* %(prefix)/: where git is installed, not known: said, as
	 * written. */
	got = scan_includes(
		V("f:/p/.git/config=[include]\n\tpath = %(prefix)/p/a.inc\n",
		  "d:/p/.git/hooks", "f:/p/a.inc=[user]\n\tname = u\n"),
		NULL, &missing,
		"/p/.git/config includes %(prefix)/p/a.inc, which llwrap "
		"cannot follow");
	assert_null(strstr(got, "/p/a.inc"));
}

/* Mercurial's %include line, as config.py's includere takes it. */
static void
test_hg_include(void **state)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "%include a.rc", "a.rc" },
		{ "%include\t \f../c/b.rc \t\v", "../c/b.rc" },
		{ "\xef\xbb\xbf%include x y", "x y" },
		{ "%include", NULL },
		{ "%include   ", NULL },
		{ "%includea.rc", NULL },
		{ " %include a.rc", NULL },
		{ "#%include a.rc", NULL },
		{ "%unset a", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *got = gitguard_hg_include(cases[i].line);

		if (cases[i].want == NULL)
			assert_null(got);
		else
			assert_string_equal(got, cases[i].want);
	}
}

static void
test_later_run(void **state)
{
	(void)state;
	/* .envrc, the .envrc.* beside it, and what it loads. */
	check(V("f:/p/.envrc=source_env_if_exists .envrc.private\\ndotenv\\n"
		"source_env \"sub/env.sh\"\\nsource_env $HOME/x\\n"
		"dotenv_if_exists ../outside\\n",
		"f:/p/.envrc.local=x", "f:/p/.envrc.private=x", "f:/p/.env=x",
		"f:/p/sub/env.sh=x", "d:/p/.vscode", "f:/p/opencode.json={}"),
	      true,
	      "R /p/.vscode\n"
	      "R /p/.envrc\n"
	      "R /p/opencode.json\n"
	      "R /p/.envrc.local\n"
	      "R /p/.envrc.private\n"
	      "R /p/.env\n"
	      "R /p/sub/env.sh\n",
	      ".idea, .claude, .cursor, .gemini, .devcontainer, .zed, .helix, "
	      ".continue, .roo, .kilocode, .kilo, .amazonq, .mcp.json, "
	      ".devcontainer.json, kilo.json, kilo.jsonc, opencode.jsonc, "
	      ".llwrap.ini, .aider.conf.yml, mise.toml, .mise.toml, "
	      "mise.local.toml, .mise.local.toml, .mise, mise/config.toml, "
	      ".config/mise.toml, .config/mise/config.toml, "
	      ".config/mise/conf.d, .tool-versions, .hg/hgrc, "
	      ".hg/hgrc-not-shared, .hg/sharedpath do not exist");
	/* Nothing exists: every name is noted, .opencode/ excepted
	 * (opencode makes it itself). */
	check(V("f:/p/main.c=x"), true, "",
	      ".vscode, .idea, .claude, .cursor, .gemini, .devcontainer, "
	      ".zed, .helix, .continue, .roo, .kilocode, .kilo, .amazonq, "
	      ".envrc, .mcp.json, .devcontainer.json, kilo.json, kilo.jsonc, "
	      "opencode.json, opencode.jsonc, .llwrap.ini, .aider.conf.yml, "
	      "mise.toml, .mise.toml, mise.local.toml, .mise.local.toml, "
	      ".mise, mise/config.toml, .config/mise.toml, "
	      ".config/mise/config.toml, .config/mise/conf.d, "
	      ".tool-versions, .hg/hgrc, .hg/hgrc-not-shared, "
	      ".hg/sharedpath do not exist "
	      "in /p");
	/* mise's other places and its environments' files (mise.ENV.toml,
	 * at the top and in .config/) are read-only where they exist. */
	check(V("f:/p/mise/config.toml=x", "f:/p/.config/mise/config.toml=x",
		"f:/p/.config/mise/conf.d/a.toml=x", "f:/p/mise.dev.toml=x",
		"f:/p/.mise.ci.local.toml=x", "f:/p/.config/mise.dev.toml=x",
		"f:/p/mise.lock=x", "f:/p/.config/other.toml=x"),
	      true,
	      "R /p/mise/config.toml\n"
	      "R /p/.config/mise/config.toml\n"
	      "R /p/.config/mise/conf.d\n"
	      "R /p/mise.dev.toml\n"
	      "R /p/.mise.ci.local.toml\n"
	      "R /p/.config/mise.dev.toml\n",
	      NULL);
	/* The user's .config a link: what lies behind it is not watched
	 * (the host side follows no link), and said. */
	check(V("l:/p/.config", "f:/p/main.c=x"), true, "",
	      ".config/mise/config.toml does not exist and is reached "
	      "through a symbolic link in /p");
	assert_true(gitguard_mise_env("mise.production.toml"));
	assert_true(gitguard_mise_env(".mise.dev.local.toml"));
	assert_false(gitguard_mise_env("mise.toml"));
	assert_false(gitguard_mise_env("mise.lock"));
	assert_false(gitguard_mise_env("xmise.a.toml"));
	/* A file .envrc loads that is missing is noted. */
	check(V("f:/p/.envrc=dotenv .env.local\\n"), true, "R /p/.envrc\n",
	      ".env.local (loaded by .envrc) does not exist");
	/* A load whose file the scan cannot tell (an expansion, an
	 * escape, a second load on the line) is said NOT ENFORCED, never
	 * dropped, nor read as another file (review V: dotenv "$X" was
	 * read as a bare dotenv's .env); $PWD/ is .envrc's own
	 * directory, where direnv runs it. */
	check(V("f:/p/.envrc=dotenv_if_exists \"$X/.env.local\"\\n"), true,
	      "R /p/.envrc\n", "'dotenv_if_exists \"$X/.env.local\"' loads");
	check(V("f:/p/.envrc=source_env $(pwd)/env.sh\\n"), true,
	      "R /p/.envrc\n", "'source_env $(pwd)/env.sh' loads");
	check(V("f:/p/.envrc=dotenv a; dotenv b\\n"), true, "R /p/.envrc\n",
	      "'dotenv a; dotenv b' loads");
	check(V("f:/p/.envrc=source_env \"${PWD}/s/e.sh\" # x\\n"
		"dotenv $PWD/.env.dev\\n"
		"dotenv_if_exists '.env'.local\\n",
		"f:/p/s/e.sh=x", "f:/p/.env.dev=x", "f:/p/.env.local=x"),
	      true,
	      "R /p/.envrc\nR /p/s/e.sh\nR /p/.env.dev\nR /p/.env.local\n",
	      NULL);
	/* Missing behind a link planted in the project (sub -> ~), or
	 * behind "..": never watched (the host side would act there). */
	{
		struct tfs t = { .ents = V("f:/p/.envrc=source_env "
					   "sub/.ssh/authorized_keys\\n"
					   "dotenv a/../../x\\n",
					   "l:/p/sub") };
		struct gitguard_fs fs = { tfs_kind, tfs_list, tfs_read, &t,
					  NULL };
		struct gitguard *g = gitguard_later_run("/p", &fs);

		for (char **m = g->missing; m != NULL && *m != NULL; m++)
			assert_true(strstr(*m, "authorized_keys") == NULL &&
				    strstr(*m, "/x") == NULL);
		gitguard_free(g);
	}
	check(V("f:/p/.envrc=source_env sub/.ssh/authorized_keys\\n",
		"l:/p/sub"),
	      true, "R /p/.envrc\n", "reached through a symbolic link");
	/* Beneath a real directory, it is. */
	{
		struct tfs t = { .ents = V("f:/p/.envrc=source_env "
					   "conf/env.sh\\n",
					   "d:/p/conf") };
		struct gitguard_fs fs = { tfs_kind, tfs_list, tfs_read, &t,
					  NULL };
		struct gitguard *g = gitguard_later_run("/p", &fs);

		assert_true(strv_contains(g->missing, "/p/conf/env.sh"));
		gitguard_free(g);
	}
	/* What .hg/hgrc %includes is Mercurial's configuration too (review
	 * Y): read-only where it exists beneath the project, its own
	 * includes with it (relative to the including file), one outside
	 * or a line that is no %include left, one with an expansion
	 * named. */
	check(V("f:/p/.hg/hgrc=%include ../conf/a.rc\\n"
		" %include ../conf/x.rc\\n"
		"%include   /etc/mercurial/b.rc  \\n"
		"%includ ../conf/y.rc\\n",
		"f:/p/.hg/hgrc-not-shared=%include\t../conf/n.rc\\n",
		"f:/p/conf/a.rc=%include sub/c.rc\\n", "f:/p/conf/sub/c.rc=x",
		"f:/p/conf/n.rc=x", "f:/p/conf/x.rc=x", "f:/p/conf/y.rc=x"),
	      true,
	      "R /p/.hg/hgrc\nR /p/.hg/hgrc-not-shared\nR /p/conf/a.rc\n"
	      "R /p/conf/sub/c.rc\nR /p/conf/n.rc\n",
	      NULL);
	/* A file that includes itself (or one more than once) is read
	 * once: a tree of them is not read as often as it has paths. */
	check(V("f:/p/.hg/hgrc=%include ../a.rc\\n%include ../a.rc\\n",
		"f:/p/a.rc=%include a.rc\\n%include ./a.rc\\n%include "
		"../p/a.rc\\n%include .hg/hgrc\\n"),
	      true, "R /p/.hg/hgrc\nR /p/a.rc\n", NULL);
	check(V("f:/p/.hg/hgrc=%include ~/.hgrc.d/x.rc\\n"), true,
	      "R /p/.hg/hgrc\n", "'%include ~/.hgrc.d/x.rc' names a file");
	/* A missing one is watched for, beneath a real directory only. */
	{
		struct tfs t = { .ents = V("f:/p/.hg/hgrc=%include "
					   "../conf/l.rc\\n%include "
					   "../sub/x.rc\\n",
					   "d:/p/conf", "l:/p/sub") };
		struct gitguard_fs fs = { tfs_kind, tfs_list, tfs_read, &t,
					  NULL };
		struct gitguard *g = gitguard_later_run("/p", &fs);

		assert_true(strv_contains(g->hg_missing, "/p/conf/l.rc"));
		assert_false(strv_contains(g->hg_missing, "/p/sub/x.rc"));
		gitguard_free(g);
	}
}

/* An index entry of version 2 or 3: 62 bytes, path, NULs to 8. */
static size_t
put_entry(unsigned char *b, uint32_t mode, const char *path, bool ext)
{
	size_t n = strlen(path), fixed = ext ? 64 : 62, len;

	memset(b, 0, 80 + n);
	b[24] = (unsigned char)(mode >> 24);
	b[25] = (unsigned char)(mode >> 16);
	b[26] = (unsigned char)(mode >> 8);
	b[27] = (unsigned char)mode;
	b[60] = (unsigned char)((ext ? 0x40 : 0) | (n >> 8 & 0x0f));
	b[61] = (unsigned char)n;
	memcpy(b + fixed, path, n);
	len = (fixed + n + 8) & ~(size_t)7;
	return len;
}

static size_t
put_header(unsigned char *b, uint32_t version, uint32_t count)
{
	memcpy(b, "DIRC", 4);
	b[4] = b[5] = b[6] = 0;
	b[7] = (unsigned char)version;
	b[8] = b[9] = b[10] = 0;
	b[11] = (unsigned char)count;
	return 12;
}

static void
test_index_gitlinks(void **state)
{
	unsigned char b[1024];
	char **links = NULL;
	size_t n;

	(void)state;
	/* Version 2: a file, a gitlink, a symlink, a gitlink. */
	n = put_header(b, 2, 4);
	n += put_entry(b + n, 0100644, "a", false);
	n += put_entry(b + n, 0160000, "lib/sub", false);
	n += put_entry(b + n, 0120000, "link", false);
	n += put_entry(b + n, 0160000, "nest", false);
	assert_int_equal(
		gitguard_index_gitlinks(b, n, GITGUARD_SHA1_LEN, &links, NULL),
		0);
	assert_int_equal(strv_length(links), 2);
	assert_string_equal(links[0], "lib/sub");
	assert_string_equal(links[1], "nest");
	strv_free(links);
	/* No entry but gitlinks git refuses: nothing invalid (review L,
	 * L4); an entry git never writes, in any case, is. */
	{
		char *invalid = NULL;
		static const char *const bad[] = { ".git/hooks/post-checkout",
						   "d/.GIT/hooks/x",
						   "a/../b",
						   "./a",
						   "a//b",
						   "a/" };
		unsigned char c[512];
		size_t m;

		assert_int_equal(gitguard_index_scan(b, n, GITGUARD_SHA1_LEN,
						     &links, NULL, &invalid,
						     NULL),
				 0);
		assert_null(invalid);
		strv_free(links);
		/* A sparse index's directory entry keeps its '/'. */
		m = put_header(c, 2, 2);
		m += put_entry(c + m, 0100644, "a", false);
		m += put_entry(c + m, 0040000, "lib/", false);
		assert_int_equal(gitguard_index_scan(c, m, GITGUARD_SHA1_LEN,
						     &links, NULL, &invalid,
						     NULL),
				 0);
		assert_null(invalid);
		strv_free(links);
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			m = put_header(c, 2, 3);
			m += put_entry(c + m, 0100644, "a", false);
			m += put_entry(c + m, 0100755, bad[i], false);
			m += put_entry(c + m, 0160000, "sub", false);
			assert_int_equal(gitguard_index_scan(
						 c, m, GITGUARD_SHA1_LEN,
						 &links, NULL, &invalid, NULL),
					 0);
			assert_non_null(invalid);
			assert_string_equal(invalid, bad[i]);
			assert_int_equal(strv_length(links), 1);
			free(invalid);
			strv_free(links);
		}
	}
	/* What git status and diff pass over (review L, L5): an
	 * assume-unchanged entry (CE_VALID), a skip-worktree one (version
	 * 3's extended flags); intent-to-add alone is not. */
	{
		unsigned char c[512];
		size_t m = put_header(c, 3, 4), at;
		char **hidden = NULL;

		m += put_entry(c + m, 0100644, "plain", false);
		at = m;
		m += put_entry(c + m, 0100644, "valid", false);
		c[at + 60] |= 0x80;
		at = m;
		m += put_entry(c + m, 0100644, "skip", true);
		c[at + 62] = 0x40;
		at = m;
		m += put_entry(c + m, 0100644, "ita", true);
		c[at + 62] = 0x20;
		assert_int_equal(gitguard_index_scan(c, m, GITGUARD_SHA1_LEN,
						     &links, NULL, NULL,
						     &hidden),
				 0);
		assert_int_equal(strv_length(hidden), 2);
		assert_string_equal(hidden[0], "valid");
		assert_string_equal(hidden[1], "skip");
		strv_free(hidden);
		strv_free(links);
	}
	/* What git writes itself is not invalid (review R): a sparse
	 * index's directory entry (a tree, ending in '/'), a split index's
	 * entry named by its shared index (no name); a tree entry is
	 * judged as any other. */
	{
		static const char *const bad[] = { ".git/", "../", "a//" };
		unsigned char c[512];
		char *invalid = NULL;
		size_t m = put_header(c, 2, 3);

		m += put_entry(c + m, 0100644, "", false);
		m += put_entry(c + m, 0040000, "b/", false);
		m += put_entry(c + m, 0040000, "b/c/", false);
		assert_int_equal(gitguard_index_scan(c, m, GITGUARD_SHA1_LEN,
						     &links, NULL, &invalid,
						     NULL),
				 0);
		assert_null(invalid);
		strv_free(links);
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			m = put_header(c, 2, 1);
			m += put_entry(c + m, 0040000, bad[i], false);
			assert_int_equal(gitguard_index_scan(
						 c, m, GITGUARD_SHA1_LEN,
						 &links, NULL, &invalid, NULL),
					 0);
			assert_non_null(invalid);
			assert_string_equal(invalid, bad[i]);
			free(invalid);
			strv_free(links);
		}
		/* A file's name ending in '/' is not a tree's. */
		m = put_header(c, 2, 1);
		m += put_entry(c + m, 0100644, "b/", false);
		assert_int_equal(gitguard_index_scan(c, m, GITGUARD_SHA1_LEN,
						     &links, NULL, &invalid,
						     NULL),
				 0);
		assert_non_null(invalid);
		free(invalid);
		strv_free(links);
	}
	/* sha256: the flags follow a 32-byte id (review R: they were read
	 * at sha1's place, in the id). */
	{
		unsigned char c[512];
		char **hidden = NULL;
		size_t m = put_header(c, 2, 2), at;
		static const char *const names[] = { "plain", "valid" };

		for (size_t i = 0; i < 2; i++) {
			size_t k = strlen(names[i]);

			at = m;
			memset(c + m, 0, 80 + k);
			c[at + 27] = 0xa4;
			c[at + 26] = 0x81; /* 0100644 */
			/* An id whose bytes at sha1's flags look set. */
			memset(c + at + 40, 0x80, 32);
			c[at + 72] = (unsigned char)(i == 1 ? 0x80 : 0);
			c[at + 73] = (unsigned char)k;
			memcpy(c + at + 74, names[i], k);
			m += (74 + k + 8) & ~(size_t)7;
		}
		assert_int_equal(gitguard_index_scan(c, m, GITGUARD_SHA256_LEN,
						     &links, NULL, NULL,
						     &hidden),
				 0);
		assert_int_equal(strv_length(hidden), 1);
		assert_string_equal(hidden[0], "valid");
		strv_free(hidden);
		strv_free(links);
	}
	/* Extensions after the entries are not read. */
	memcpy(b + n, "TREE\0\0\0\0", 8);
	assert_int_equal(gitguard_index_gitlinks(b, n + 8, GITGUARD_SHA1_LEN,
						 &links, NULL),
			 0);
	assert_int_equal(strv_length(links), 2);
	strv_free(links);
	/* Truncated, or not an index. */
	assert_int_equal(gitguard_index_gitlinks(b, n - 3, GITGUARD_SHA1_LEN,
						 &links, NULL),
			 -EINVAL);
	assert_int_equal(gitguard_index_gitlinks("DIRX", 4, GITGUARD_SHA1_LEN,
						 &links, NULL),
			 -EINVAL);
	/* Version 3 with an extended entry; version 2 may not have one. */
	n = put_header(b, 3, 2);
	n += put_entry(b + n, 0160000, "x/y", true);
	n += put_entry(b + n, 0100755, "z", false);
	assert_int_equal(
		gitguard_index_gitlinks(b, n, GITGUARD_SHA1_LEN, &links, NULL),
		0);
	assert_int_equal(strv_length(links), 1);
	assert_string_equal(links[0], "x/y");
	strv_free(links);
	b[7] = 2;
	assert_int_equal(
		gitguard_index_gitlinks(b, n, GITGUARD_SHA1_LEN, &links, NULL),
		-EINVAL);
	/* Version 4: paths compressed against the previous one, unpadded:
	 * "lib/a", then strip 1 and add "sub" ("lib/sub"), then strip 7
	 * and add "nest". */
	{
		static const struct {
			uint32_t mode;
			unsigned char strip;
			const char *rest;
		} e[] = { { 0100644, 0, "lib/a" },
			  { 0160000, 1, "sub" },
			  { 0160000, 7, "nest" } };

		size_t prev = 0;

		n = put_header(b, 4, 3);
		for (size_t i = 0; i < 3; i++) {
			size_t len = strlen(e[i].rest);
			/* The flags hold the whole name's length. */
			size_t total = prev - (i ? e[i].strip : 0) + len;

			prev = total;
			memset(b + n, 0, 62);
			b[n + 61] = (unsigned char)total;
			b[n + 24] = (unsigned char)(e[i].mode >> 24);
			b[n + 25] = (unsigned char)(e[i].mode >> 16);
			b[n + 26] = (unsigned char)(e[i].mode >> 8);
			b[n + 27] = (unsigned char)e[i].mode;
			n += 62;
			b[n++] = e[i].strip;
			memcpy(b + n, e[i].rest, len + 1);
			n += len + 1;
		}
		assert_int_equal(gitguard_index_gitlinks(
					 b, n, GITGUARD_SHA1_LEN, &links, NULL),
				 0);
		assert_int_equal(strv_length(links), 2);
		assert_string_equal(links[0], "lib/sub");
		assert_string_equal(links[1], "nest");
		strv_free(links);
		/* Stripping more than the previous path is an error. */
		b[12 + 62 + 1 + 6 + 62] = 9;
		assert_int_equal(gitguard_index_gitlinks(
					 b, n, GITGUARD_SHA1_LEN, &links, NULL),
				 -EINVAL);
	}
}

/*
 * Entries are cut where git cuts them (issue 23, a review): a name "0"
 * whose flags say 200 bytes, with a NUL and a decoy entry hidden in them,
 * is not read as two entries (git reads one, then the gitlink after it):
 * such an index is refused; so is a name longer than any path can be, and
 * more gitlinks than llwrap reads.
 */
static void
test_index_as_git(void **state)
{
	static unsigned char b[300000];
	char **links = NULL;
	size_t n;

	(void)state;
	n = put_header(b, 2, 2);
	n += put_entry(b + n, 0100644, "0", false);
	/* The first entry's flags claim more than its name. */
	b[12 + 61] = 200;
	n += put_entry(b + n, 0160000, "e2", false);
	assert_int_equal(
		gitguard_index_gitlinks(b, n, GITGUARD_SHA1_LEN, &links, NULL),
		-EINVAL);
	assert_null(links);
	/* 0xfff: the name's bytes are counted, as git does. */
	n = put_header(b, 2, 1);
	{
		static char longname[5000];

		memset(longname, 'x', sizeof(longname) - 1);
		n += put_entry(b + n, 0160000, longname, false);
		b[12 + 60] = 0x0f;
		b[12 + 61] = 0xff;
		assert_int_equal(gitguard_index_gitlinks(
					 b, n, GITGUARD_SHA1_LEN, &links, NULL),
				 -EINVAL);
		longname[100] = '\0';
		n = put_header(b, 2, 1);
		n += put_entry(b + n, 0160000, longname, false);
		b[12 + 60] = 0x0f;
		b[12 + 61] = 0xff;
		assert_int_equal(gitguard_index_gitlinks(
					 b, n, GITGUARD_SHA1_LEN, &links, NULL),
				 0);
		assert_int_equal(strv_length(links), 1);
		assert_int_equal(strlen(links[0]), 100);
		strv_free(links);
	}
	/* More gitlinks than llwrap reads: refused, not truncated. */
	n = put_header(b, 2, GITGUARD_MAX_LINKS + 1);
	b[8] = (unsigned char)((GITGUARD_MAX_LINKS + 1) >> 24);
	b[9] = (unsigned char)((GITGUARD_MAX_LINKS + 1) >> 16);
	b[10] = (unsigned char)((GITGUARD_MAX_LINKS + 1) >> 8);
	b[11] = (unsigned char)(GITGUARD_MAX_LINKS + 1);
	for (size_t i = 0; i <= GITGUARD_MAX_LINKS; i++)
		n += put_entry(b + n, 0160000, "m", false);
	assert_int_equal(
		gitguard_index_gitlinks(b, n, GITGUARD_SHA1_LEN, &links, NULL),
		-E2BIG);
}

/* Paths git itself would not write are told from those it would. */
static void
test_verify_path(void **state)
{
	static const char *const good[] = { "a",       "lib/sub", "a.b/c",
					    ".gitx",   "x.git",	  "..a",
					    "a/.../b", "é/ü",	  "git~10",
					    "git~2",   ".gitx ",  "a\\b",
					    "x.git~1", ".git~1" };
	static const char *const bad[] = { "",
					   ".",
					   "..",
					   "./sub",
					   "sub/",
					   "/sub",
					   "a//b",
					   "sub/..",
					   "a/./b",
					   ".git",
					   ".GIT/x",
					   "a/.Git",
					   "a/../..",
					   "a/.git/b",
					   "GIT~1/hooks/x",
					   "a/git~1",
					   ".git ",
					   ".GIT. /x",
					   ".git::$INDEX_ALLOCATION/x",
					   "a\\.git/hooks",
					   "x/git~1 \\y" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(gitguard_verify_path(good[i]));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(gitguard_verify_path(bad[i]));
}

/* The object id length from a repository's configuration. */
static void
test_hash_len(void **state)
{
	(void)state;
	assert_int_equal(gitguard_hash_len(""), GITGUARD_SHA1_LEN);
	assert_int_equal(gitguard_hash_len("[core]\n\tbare = false\n"),
			 GITGUARD_SHA1_LEN);
	assert_int_equal(gitguard_hash_len("[core]\n\trepositoryformatversion"
					   " = 1\n[extensions]\n\t"
					   "objectformat = sha256\n"),
			 GITGUARD_SHA256_LEN);
	assert_int_equal(gitguard_hash_len("[Extensions]\nobjectFormat=SHA256"),
			 GITGUARD_SHA256_LEN);
	/* The key in another section is not it. */
	assert_int_equal(gitguard_hash_len("[core]\nobjectformat = sha256\n"),
			 GITGUARD_SHA1_LEN);
	assert_int_equal(
		gitguard_hash_len("[extensions]\nobjectformat = sha1\n"),
		GITGUARD_SHA1_LEN);
}

/* A SHA-256 index (74-byte entries) and a split index's link. */
static void
test_index_sha256_split(void **state)
{
	unsigned char b[1024];
	char **links = NULL, *shared = NULL;
	size_t n = put_header(b, 2, 2);
	static const char *const names[] = { "a", "mod" };
	static const uint32_t modes[] = { 0100644, 0160000 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		size_t len = strlen(names[i]), e = n;

		memset(b + n, 0, 96);
		b[n + 24] = (unsigned char)(modes[i] >> 24);
		b[n + 25] = (unsigned char)(modes[i] >> 16);
		b[n + 26] = (unsigned char)(modes[i] >> 8);
		b[n + 27] = (unsigned char)modes[i];
		b[n + 73] = (unsigned char)len;
		memcpy(b + n + 74, names[i], len);
		n = e + ((74 + len + 8) & ~(size_t)7);
	}
	assert_int_equal(gitguard_index_gitlinks(b, n, GITGUARD_SHA256_LEN,
						 &links, NULL),
			 0);
	assert_int_equal(strv_length(links), 1);
	assert_string_equal(links[0], "mod");
	strv_free(links);
	/* Read as SHA-1, it is not an index. */
	assert_true(gitguard_index_gitlinks(b, n, GITGUARD_SHA1_LEN, &links,
					    NULL) < 0 ||
		    strv_length(links) != 1 || strcmp(links[0], "mod") != 0);
	if (links != NULL) {
		strv_free(links);
		links = NULL;
	}
	/* A link extension, then the checksum. */
	memcpy(b + n, "link", 4);
	b[n + 4] = b[n + 5] = b[n + 6] = 0;
	b[n + 7] = 32;
	for (size_t i = 0; i < 32; i++)
		b[n + 8 + i] = (unsigned char)(i == 0 ? 0xab : 0);
	memset(b + n + 40, 0, 32);
	assert_int_equal(gitguard_index_gitlinks(b, n + 72, GITGUARD_SHA256_LEN,
						 &links, &shared),
			 0);
	assert_non_null(shared);
	assert_string_equal(shared, "sharedindex.ab000000000000000000000000"
				    "00000000000000000000000000000000000000");
	free(shared);
	strv_free(links);
	/* An extension longer than the file is not read past it. */
	b[n + 7] = 200;
	assert_int_equal(gitguard_index_gitlinks(b, n + 72, GITGUARD_SHA256_LEN,
						 &links, &shared),
			 -EINVAL);
}

/* An entry whose stat data are st's, as git writes them. */
static struct gitguard_index_entry
entry_of(const struct stat *st)
{
	return (struct gitguard_index_entry){
		.ctime_sec = (uint32_t)st->st_ctim.tv_sec,
		.ctime_nsec = (uint32_t)st->st_ctim.tv_nsec,
		.mtime_sec = (uint32_t)st->st_mtim.tv_sec,
		.mtime_nsec = (uint32_t)st->st_mtim.tv_nsec,
		.dev = (uint32_t)st->st_dev,
		.ino = (uint32_t)st->st_ino,
		.mode = 0100644,
		.uid = st->st_uid,
		.gid = st->st_gid,
		.size = (uint32_t)st->st_size,
	};
}

static void
test_index_find(void **state)
{
	unsigned char b[1024];
	struct gitguard_index_entry e;
	size_t n;

	(void)state;
	n = put_header(b, 3, 3);
	n += put_entry(b + n, 0100644, ".env", false);
	n += put_entry(b + n, 0100755, "bin/run", true);
	n += put_entry(b + n, 0100644, "z", false);
	/* .env's size (offset 36) and bin/run's skip-worktree bit. */
	b[12 + 39] = 42;
	assert_int_equal(gitguard_index_find(b, n, ".env", &e), 0);
	assert_int_equal(e.mode, 0100644);
	assert_int_equal(e.size, 42);
	assert_int_equal(e.ext_flags, 0);
	b[12 + 72 + 62] = 0x40;
	assert_int_equal(gitguard_index_find(b, n, "bin/run", &e), 0);
	assert_int_equal(e.mode, 0100755);
	assert_int_equal(e.ext_flags, 0x4000);
	assert_int_equal(gitguard_index_find(b, n, "bin", &e), -ENOENT);
	assert_int_equal(gitguard_index_find(b, n, ".env.local", &e), -ENOENT);
	assert_int_equal(gitguard_index_find(b, n - 3, "z", &e), -EINVAL);
}

/* A file's stat data, for the index's tests against it. */
static const struct stat file_stat = {
	.st_mode = S_IFREG | 0644,
	.st_ino = 1234,
	.st_dev = 2049,
	.st_size = 42,
	.st_uid = 1000,
	.st_gid = 1000,
	.st_mtim = { 1700000000, 500 },
	.st_ctim = { 1700000000, 600 },
};

static void
test_unchanged(void **state)
{
	struct stat st = file_stat;
	struct timespec later = { 1700000001, 0 }, same = { 1700000000, 500 };
	struct gitguard_index_entry e = entry_of(&st), x;

	(void)state;
	assert_true(gitguard_unchanged(&e, &st, &later));
	/* Racily clean: written in the tick the index was. */
	assert_false(gitguard_unchanged(&e, &st, &same));
	/* Any field that differs, as git's own test. */
	x = e, x.size = 41;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.ino = 1;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.dev = 1;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.mtime_nsec = 501;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.ctime_sec = 1;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.uid = 0;
	assert_false(gitguard_unchanged(&x, &st, &later));
	/* An index without inode or device numbers proves nothing. */
	x = e, x.ino = 0;
	assert_false(gitguard_unchanged(&x, &st, &later));
	/* A conflict, assume-valid, skip-worktree, intent-to-add, a
	 * symlink or gitlink entry. */
	x = e, x.flags = 0x1000;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.flags = 0x8000;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.ext_flags = 0x4000;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.ext_flags = 0x2000;
	assert_false(gitguard_unchanged(&x, &st, &later));
	x = e, x.mode = 0120000;
	assert_false(gitguard_unchanged(&x, &st, &later));
	/* A file over 4 GiB whose size wraps to the entry's. */
	st.st_size = 42 + (1LL << 32);
	assert_false(gitguard_unchanged(&e, &st, &later));
}

/* gitguard_stat_trusted: what git may take as clean without reading
 * the file, whatever its stat checks (review R, R10). */
static void
test_stat_trusted(void **state)
{
	struct stat st = file_stat;
	struct timespec later = { 1700000001, 0 }, same = { 1700000000, 500 };
	struct gitguard_index_entry e = entry_of(&st), x;

	(void)state;
	assert_true(gitguard_stat_trusted(&e, &st, &later));
	/* core.checkStat=minimal, core.trustctime=false: the inode,
	 * device, owner, ctime and mtime's nanoseconds are not git's
	 * only word, so they do not clear a file. */
	x = e, x.ino = 0, x.dev = 1, x.uid = 0, x.ctime_sec = 1;
	x.mtime_nsec = 0;
	assert_true(gitguard_stat_trusted(&x, &st, &later));
	/* The size or mtime's seconds differ: git reads the file. */
	x = e, x.size = 41;
	assert_false(gitguard_stat_trusted(&x, &st, &later));
	x = e, x.mtime_sec = 1699999999;
	assert_false(gitguard_stat_trusted(&x, &st, &later));
	/* Racily clean: git reads it; but an index of mtime 0 (or 2^32,
	 * as git keeps it) is never racy to git. */
	assert_false(gitguard_stat_trusted(&e, &st, &same));
	assert_true(gitguard_stat_trusted(&e, &st, &(struct timespec){ 0, 0 }));
	assert_true(gitguard_stat_trusted(
		&e, &st, &(struct timespec){ (time_t)1 << 32, 900 }));
	/* Marks git shows or L5 names, a conflict, intent-to-add. */
	x = e, x.flags = 0x8000;
	assert_false(gitguard_stat_trusted(&x, &st, &later));
	x = e, x.flags = 0x1000;
	assert_false(gitguard_stat_trusted(&x, &st, &later));
	x = e, x.ext_flags = 0x4000;
	assert_false(gitguard_stat_trusted(&x, &st, &later));
	x = e, x.ext_flags = 0x2000;
	assert_false(gitguard_stat_trusted(&x, &st, &later));
	/* A link's entry and a file (core.symlinks=false checks it out
	 * so), and a link; a gitlink; a link where a file was. */
	x = e, x.mode = 0120000;
	assert_true(gitguard_stat_trusted(&x, &st, &later));
	st.st_mode = S_IFLNK | 0777;
	assert_true(gitguard_stat_trusted(&x, &st, &later));
	x.mode = 0160000;
	assert_false(gitguard_stat_trusted(&x, &st, &later));
	assert_false(gitguard_stat_trusted(&e, &st, &later));
}

struct seen {
	char **paths;
	unsigned char first[GITGUARD_SHA256_LEN];
	uint16_t ext;
};

static int
seen_entry(void *ctx, const char *path, const struct gitguard_index_entry *e)
{
	struct seen *s = ctx;

	if (s->paths == NULL)
		memcpy(s->first, e->oid, sizeof(s->first));
	strv_push(&s->paths, path);
	s->ext |= e->ext_flags;
	return 0;
}

/* gitguard_index_each: every entry, its object id where the hash puts
 * it (SHA-256's flags 12 bytes further than SHA-1's). */
static void
test_index_each(void **state)
{
	unsigned char b[1024];
	struct seen s = { 0 };
	size_t n;

	(void)state;
	n = put_header(b, 3, 2);
	n += put_entry(b + n, 0100644, "a", false);
	n += put_entry(b + n, 0100755, "d/b", true);
	b[12 + 40] = 0xab;
	b[12 + 64 + 62] = 0x40;
	assert_int_equal(
		gitguard_index_each(b, n, GITGUARD_SHA1_LEN, seen_entry, &s),
		0);
	assert_int_equal(strv_length(s.paths), 2);
	assert_string_equal(s.paths[1], "d/b");
	assert_int_equal(s.first[0], 0xab);
	assert_int_equal(s.ext, 0x4000);
	strv_free(s.paths);
	/* Cut short: an error, whatever entries came before it. */
	s = (struct seen){ 0 };
	assert_int_equal(gitguard_index_each(b, n - 3, GITGUARD_SHA1_LEN,
					     seen_entry, &s),
			 -EINVAL);
	strv_free(s.paths);
	/* SHA-256: 32-byte ids, the name's length after them. */
	memset(b, 0, sizeof(b));
	n = put_header(b, 2, 1);
	b[n + 40] = 0xcd;
	b[n + 40 + 31] = 0xef;
	b[n + 72] = 0;
	b[n + 73] = 1;
	b[n + 74] = 'z';
	n += (74 + 1 + 8) & ~(size_t)7;
	s = (struct seen){ 0 };
	assert_int_equal(
		gitguard_index_each(b, n, GITGUARD_SHA256_LEN, seen_entry, &s),
		0);
	assert_int_equal(strv_length(s.paths), 1);
	assert_string_equal(s.paths[0], "z");
	assert_int_equal(s.first[0], 0xcd);
	assert_int_equal(s.first[31], 0xef);
	strv_free(s.paths);
}

/* Big-endian 32 and 64-bit values at p. */
static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void
put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* gitguard_index_split: a split index's link, its delete and replace
 * bitmaps (EWAH, as git's ewah_io.c writes them) read as positions in
 * the shared index. */
static void
test_index_split(void **state)
{
	unsigned char b[1024];
	struct gitguard_split sp;
	size_t n, link;

	(void)state;
	memset(b, 0, sizeof(b));
	n = put_header(b, 2, 1);
	n += put_entry(b + n, 0100644, "", false);
	memcpy(b + n, "link", 4);
	link = n;
	n += 8 + 20; /* the shared index's id */
	/* delete: bits 0 and 2 (no run, one literal word); replace: a run
	 * of 64 set bits, then a literal word with bit 3 (position 67). */
	put32(b + n, 3), put32(b + n + 4, 2);
	put64(b + n + 8, 1ULL << 33), put64(b + n + 16, 5);
	put32(b + n + 24, 0);
	n += 28;
	put32(b + n, 68), put32(b + n + 4, 2);
	put64(b + n + 8, 1ULL << 33 | 1 << 1 | 1), put64(b + n + 16, 8);
	put32(b + n + 24, 0);
	n += 28;
	put32(b + link + 4, (uint32_t)(n - link - 8));
	n += 20; /* the checksum */
	assert_int_equal(
		gitguard_index_split(b, n, GITGUARD_SHA1_LEN, 100, &sp), 0);
	assert_int_equal(sp.n_deleted, 2);
	assert_int_equal(sp.deleted[0], 0);
	assert_int_equal(sp.deleted[1], 2);
	assert_int_equal(sp.n_replaced, 65);
	assert_int_equal(sp.replaced[0], 0);
	assert_int_equal(sp.replaced[63], 63);
	assert_int_equal(sp.replaced[64], 67);
	gitguard_split_free(&sp);
	/* A bit past the shared index's entries, or a literal word count
	 * past the words: not an index llwrap reads. */
	assert_int_equal(gitguard_index_split(b, n, GITGUARD_SHA1_LEN, 67, &sp),
			 -EINVAL);
	assert_null(sp.replaced);
	put64(b + link + 8 + 20 + 28 + 8, 3ULL << 33 | 1 << 1 | 1);
	assert_int_equal(
		gitguard_index_split(b, n, GITGUARD_SHA1_LEN, 100, &sp),
		-EINVAL);
	/* No link: nothing. */
	n = put_header(b, 2, 1);
	n += put_entry(b + n, 0100644, "a", false);
	memset(b + n, 0, 20);
	assert_int_equal(
		gitguard_index_split(b, n + 20, GITGUARD_SHA1_LEN, 0, &sp), 0);
	assert_int_equal(sp.n_replaced, 0);
}

/* Who reads a later-run file, named in the messages about one made. */
static void
test_later_reader(void **state)
{
	static const struct {
		const char *path, *reader;
	} t[] = {
		{ "/p/.envrc", "direnv" },
		{ "/p/.envrc.local", "direnv" },
		{ "/p/.env", "direnv" },
		{ "/p/opencode.json", "opencode" },
		{ "/p/opencode.jsonc", "opencode" },
		{ "/p/.opencode", "opencode" },
		{ "/p/.vscode", "VS Code" },
		{ "/p/.idea", "a JetBrains IDE" },
		{ "/p/.mcp.json",
		  "an agent or editor that starts its MCP servers" },
		{ "/p/.zed", "Zed (its language servers and tasks)" },
		{ "/p/.helix", "Helix (its language servers)" },
		{ "/p/.continue", "Continue (its config)" },
		{ "/p/.devcontainer",
		  "a dev container's host (initializeCommand)" },
		{ "/p/env/dev.sh", "direnv or an editor" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		assert_string_equal(gitguard_later_reader(t[i].path),
				    t[i].reader);
}

/* What sends the user's next git elsewhere, before vs after. */
/* git's legacy remote files in a repository the command made (review A,
 * F8): their addresses as git reads them, network ones only. */
static void
test_remote_file(void **state)
{
	static const struct {
		const char *text;
		bool branches;
		const char *found; /* a substring, or NULL */
	} cases[] = {
		{ "URL: https://example.com/r.git\nPush: refs/heads/*:refs/"
		  "heads/*\n",
		  false, NULL },
		{ "URL:git@example.com:r.git\r\n", false, NULL },
		{ "Pull: x\nURL:   /home/u/.cache/r.git  \n", false,
		  "URL '/home/u/.cache/r.git', not a network address" },
		{ "URL: file:///srv/r.git\n", false, "file:///srv/r.git" },
		{ "URL: ext::sh -c x\n", false, "ext::sh -c x" },
		/* Not "URL:" (git's prefix is exact): no address. */
		{ "url: /srv/r.git\n URL: /srv/r.git\n", false, NULL },
		{ "", false, NULL },
		{ "https://example.com/r.git#main\n", true, NULL },
		{ "  ../r.git#main\n", true, "URL '../r.git'" },
		{ "\nhttps://x/r.git\n", true, NULL }, /* git reads no remote */
		{ "#main\n", true, "URL ''" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *got = gitguard_remote_file_unsafe(
			cases[i].text, strlen(cases[i].text),
			cases[i].branches);

		if (cases[i].found == NULL) {
			assert_null(got);
		} else {
			assert_non_null(got);
			assert_non_null(strstr(got, cases[i].found));
		}
	}
	{
		_cleanup_free_ char *got = gitguard_remote_file_unsafe(
			"URL: https://x/\0/r", 19, false);

		assert_non_null(got);
	}
}

static void
test_config_rerouted(void **state)
{
	static const char before[] =
		"[core]\n\trepositoryformatversion = 0\n"
		"[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		"\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
		"[branch \"main\"]\n\tremote = origin\n"
		"\tmerge = refs/heads/main\n";
	static const struct {
		const char *after, *found;
	} cases[] = {
		/* What git push -u, git remote add and a branch write. */
		{ before, NULL },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[branch \"main\"]\n\tremote = origin\n"
		  "[branch \"dev\"]\n\tremote = origin\n",
		  NULL },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[remote \"fork\"]\n\turl = https://example.org/x\n",
		  NULL },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[branch \"dev\"]\n\tremote = .\n",
		  NULL },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[remote \"fork\"]\n\tpushurl = https://example.org/x\n",
		  NULL },
		/* Elsewhere. */
		{ "[remote \"origin\"]\n\turl = https://evil.example/p\n",
		  "remote.origin.url" },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "\tpushurl = https://evil.example/p\n",
		  "remote.origin.pushurl" },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "\turl = https://evil.example/p\n",
		  "remote.origin.url" },
		{ "[core]\n\tworktree = /home/u\n"
		  "[remote \"origin\"]\n\turl = https://github.com/u/p\n",
		  "core.worktree" },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[remote \"evil\"]\n\turl = https://evil.example/p\n"
		  "[branch \"main\"]\n\tpushremote = evil\n",
		  "branch.main.pushremote" },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[branch \"main\"]\n\tremote = evil\n",
		  "branch.main.remote" },
		/* The remote's section dropped: its address with it. */
		{ "[core]\n\tbare = false\n", "remote.origin.url" },
		/* The red team's second: a '\' at the end of a value
		 * continues it over the header below, so the next url is
		 * origin's second (git pushes there too). */
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "\ttagOpt = --no-tags \\\n[submodule \"x\"]\n"
		  "\turl = https://attacker.invalid/loot.git\n",
		  "remote.origin.url" },
		/* A branch's remote in a subsection written with escapes. */
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[branch \"ma\\in\"]\n\tremote = ev\\\nil\n",
		  "branch.main.remote" },
		/* What llwrap cannot read as git does. */
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "\tpushurl = \"x\n",
		  "what llwrap cannot read as git does, on line 3" },
		{ "[remote \"origin\"]\n\turl = https://github.com/u/p\n"
		  "[ \"x\"]\n\turl = y\n",
		  "what llwrap cannot read as git does, on line 4" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *found = gitguard_config_rerouted(before, cases[i].after);

		if (cases[i].found == NULL)
			assert_null(found);
		else {
			if (found == NULL)
				fail_msg("case %zu: nothing found", i);
			assert_string_equal(found, cases[i].found);
		}
		free(found);
	}
	/* A repository the start had keeps its local remote and its work
	 * tree (a change to either is a reroute); one the command made
	 * may have neither. */
	{
		static const char local[] =
			"[core]\n\tworktree = ..\n[remote \"o\"]\n\turl = "
			"../up.git\n";
		char *u = gitguard_config_unsafe_change(
			local, "[core]\n\tworktree = ..\n[remote \"o\"]\n"
			       "\turl = ../up.git\n[branch \"main\"]\n"
			       "\tremote = o\n");

		assert_null(u);
		u = gitguard_config_unsafe_change(NULL, local);
		assert_non_null(u);
		assert_string_equal(u, "core.worktree");
		free(u);
		u = gitguard_config_unsafe_change(local,
						  "[core]\n\tworktree = ..\n"
						  "[remote \"o\"]\n\turl = "
						  "../other.git\n");
		assert_non_null(u);
		assert_string_equal(u, "remote.o.url");
		free(u);
	}
	/* A submodule's repository as git makes it: core.worktree left to
	 * the caller, which knows where it points; anything else unsafe
	 * first. */
	{
		char *wt = NULL;
		char *u = gitguard_config_unsafe_worktree(
			"[core]\n\tbare = false\n\tworktree = ../../../lib/s\n"
			"[remote \"origin\"]\n\turl = https://h/s.git\n",
			&wt);

		assert_null(u);
		assert_non_null(wt);
		assert_string_equal(wt, "../../../lib/s");
		free(wt);
		u = gitguard_config_unsafe_worktree(
			"[core]\n\tworktree = ../../../lib/s\n\tfsmonitor = "
			"x\n",
			&wt);
		assert_non_null(u);
		assert_string_equal(u, "core.fsmonitor");
		assert_null(wt);
		free(u);
		u = gitguard_config_unsafe_worktree("[core]\n\tbare = false\n",
						    &wt);
		assert_null(u);
		assert_null(wt);
	}
	/* A start without core.worktree: one set now is found. */
	char *f = gitguard_config_rerouted("", "[core]\n\tworktree = ..\n");
	assert_non_null(f);
	assert_string_equal(f, "core.worktree");
	free(f);
	/* Nor can the end drop the one the start had. */
	f = gitguard_config_rerouted("[core]\n\tworktree = ..\n", "");
	assert_non_null(f);
	assert_string_equal(f, "core.worktree");
	free(f);
	/* Names holding '=', values holding newlines: one url "a\nb"
	 * is not the two urls "a" and "b"; a new remote "o=x" is not
	 * remote "o". */
	f = gitguard_config_rerouted("[remote \"o\"]\n\turl = a\\nb\n",
				     "[remote \"o\"]\n\turl = a\n\turl = b\n");
	assert_non_null(f);
	assert_string_equal(f, "remote.o.url");
	free(f);
	f = gitguard_config_rerouted("[remote \"o\"]\n\turl = a\n",
				     "[remote \"o\"]\n\turl = a\n"
				     "[remote \"o=x\"]\n\turl = b\n");
	assert_null(f);
	f = gitguard_config_rerouted("[remote \"o\"]\n\turl = a\n",
				     "[remote \"o\"]\n\turl = a\n"
				     "[branch \"m=x\"]\n\tremote = evil\n");
	assert_non_null(f);
	assert_string_equal(f, "branch.m=x.remote");
	free(f);
}

/* core.hooksPath as git reads it, the last one, past what llwrap is
 * unsure of (git reads on) but not past what git refuses. */
static void
test_hooks_path(void **state)
{
	static const struct {
		const char *config, *path;
	} cases[] = {
		{ "[core]\n\thooksPath = /a\n\thookspath = /b\n", "/b" },
		{ "[core]hooksPath = \"/a b\" ; c\n", "/a b" },
		{ "[core]\n\tx = a\tb\n\thooksPath = /h\n", "/h" },
		{ "k = v\n[core]\n\thooksPath = /h\n", "/h" },
		{ "[core \"x\"]\n\thooksPath = /h\n", NULL },
		{ "[core]\n\thooksPath = /h\n\tx = \"a\n\thooksPath = /i\n",
		  "/h" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *p = gitguard_hooks_path(cases[i].config);

		if (cases[i].path == NULL
			    ? p != NULL
			    : p == NULL || strcmp(p, cases[i].path) != 0)
			fail_msg("case %zu: got %s", i, p != NULL ? p : "none");
	}
}

/* What a new repository's configuration may say. */
static void
test_config_unsafe(void **state)
{
	static const struct {
		const char *config, *unsafe;
	} cases[] = {
		/* What git init and clone write. */
		{ "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
		  "\tbare = false\n\tlogallrefupdates = true\n"
		  "[remote \"origin\"]\n\turl = https://example.org/p.git\n"
		  "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
		  "[branch \"main\"]\n\tremote = origin\n"
		  "\tmerge = refs/heads/main\n",
		  NULL },
		/* Addresses over the network, as git tells them. */
		{ "[remote \"a\"]\n\turl = http://h/p\n\tpushurl = "
		  "ssh://u@h:22/p\n[remote \"b\"]\n\turl = git://h/p\n"
		  "\tpushurl = git@github.com:o/p.git\n[remote \"c\"]\n"
		  "\turl = git+ssh://h/p\n\tpushurl = [h:22]:p\n"
		  "[submodule \"s\"]\n\turl = https://h/s.git\n",
		  NULL },
		/* A local one (git runs that repository's hooks on a push),
		 * file://, a remote helper, an unknown scheme (git runs
		 * git-remote-NAME), no host, a host ssh would take as an
		 * option, no value. */
		{ "[remote \"origin\"]\n\turl = ./vendor-cache\n",
		  "remote.origin.url to './vendor-cache', not a network "
		  "address" },
		{ "[remote \"o\"]\n\turl = https://h/p\n\tpushurl = /srv/p\n",
		  "remote.o.pushurl to '/srv/p', not a network address" },
		{ "[remote \"o\"]\n\turl = vendor\n",
		  "remote.o.url to 'vendor', not a network address" },
		{ "[remote \"o\"]\n\turl = file:///srv/p\n",
		  "remote.o.url to 'file:///srv/p', not a network address" },
		{ "[remote \"o\"]\n\turl = ext::sh -c touch% /m\n",
		  "remote.o.url to 'ext::sh -c touch% /m', not a network "
		  "address" },
		{ "[remote \"o\"]\n\turl = h::p\n",
		  "remote.o.url to 'h::p', not a network address" },
		{ "[remote \"o\"]\n\turl = x-evil://h/p\n",
		  "remote.o.url to 'x-evil://h/p', not a network address" },
		{ "[remote \"o\"]\n\turl = ./a:b\n",
		  "remote.o.url to './a:b', not a network address" },
		{ "[remote \"o\"]\n\turl = :p\n",
		  "remote.o.url to ':p', not a network address" },
		{ "[remote \"o\"]\n\turl = ssh://-oProxyCommand=x/p\n",
		  "remote.o.url to 'ssh://-oProxyCommand=x/p', not a network "
		  "address" },
		{ "[remote \"o\"]\n\turl = https:///p\n",
		  "remote.o.url to 'https:///p', not a network address" },
		{ "[remote \"o\"]\n\turl\n",
		  "remote.o.url to '', not a network address" },
		{ "[submodule \"s\"]\n\turl = ../s\n",
		  "submodule.s.url to '../s', not a network address" },
		/* A branch's remote or pushremote that names no remote with
		 * a url is an address to git (review L, L1): a path, or a
		 * bare name (the path ./evil), is refused; ".", a remote
		 * named here with a url and a network address are not. */
		{ "[branch \"main\"]\n\tpushremote = /c/evil.git\n",
		  "branch.main.pushremote to '/c/evil.git', neither a remote "
		  "it names nor a network address" },
		{ "[remote \"o\"]\n\tpushurl = https://h/p\n"
		  "[branch \"main\"]\n\tremote = o\n",
		  "branch.main.remote to 'o', neither a remote it names nor "
		  "a network address" },
		{ "[branch \"main\"]\n\tremote = evil\n",
		  "branch.main.remote to 'evil', neither a remote it names "
		  "nor a network address" },
		{ "[branch \"main\"]\n\tremote = .\n\tpushremote = "
		  "https://h/p\n[remote \"up\"]\n\turl = git@h:p\n"
		  "[branch \"dev\"]\n\tpushremote = up\n",
		  NULL },
		/* What else sends git to a path or runs a command there. */
		{ "[core]\n\tworktree = /home/u\n", "core.worktree" },
		{ "[url \"/srv/p\"]\n\tinsteadOf = https://h/\n",
		  "url./srv/p.insteadof" },
		{ "[remote \"o\"]\n\turl = https://h/p\n"
		  "\treceivepack = touch /m\n",
		  "remote.o.receivepack" },
		{ "[remote \"o\"]\n\turl = https://h/p\n\tvcs = x\n",
		  "remote.o.vcs" },
		{ "[remote]\n\tpushDefault = o\n", "remote.pushdefault" },
		/* The control: a command under a plain header. */
		{ "[remote \"x\"]\n\tuploadpack = touch /m\n\turl = /p\n",
		  "remote.x.uploadpack" },
		/* The red team's first: the header ends at the first ']'
		 * outside the quotes; the key follows on its line. */
		{ "[remote \"x]url=a\"]uploadpack=touch /m; git-upload-pack\n"
		  "\turl = /p\n",
		  "remote.x]url=a.uploadpack" },
		/* A key after a header on the same line, in any case. */
		{ "[CORE]FSMonitor = x\n", "core.fsmonitor" },
		{ "[core]bare=false [x] fsmonitor = y\n", NULL },
		{ "[a][core]fsmonitor\n", "core.fsmonitor" },
		/* The old form, in lower case: core.fsmonitor is not it. */
		{ "[core.X]\n\tfsmonitor = y\n", "core.x.fsmonitor" },
		/* A continued value hides no header; the key after it is
		 * in the section before. */
		{ "[user]\n\tname = a \\\n[core]\n\tfsmonitor = x\n",
		  "user.fsmonitor" },
		{ "[core]\n\tbare = false \\\nfsmonitor = x\n", NULL },
		/* ... a tab after the break, inside the value: a space to
		 * an older git, itself to a newer one. */
		{ "[core]\n\tbare = false \\\n\tfsmonitor = x\n",
		  "what llwrap cannot read as git does, on line 3" },
		/* A comment ends at its line, '\' or not. */
		{ "[user]\n# \\\n[core]fsmonitor = x\n", "core.fsmonitor" },
		/* Quotes hide ';', '#' and ']'. */
		{ "[user]\n\tname = \"a ; [core] \" # x\n", NULL },
		/* CR LF lines. */
		{ "[core]\r\n\tfsmonitor = x\r\n", "core.fsmonitor" },
		/* Includes are refused, whatever the form. */
		{ "[include]\n\tpath = x\n", "include.path" },
		{ "[includeIf \"gitdir:/\"]\n\tpath = x\n",
		  "includeif.gitdir:/.path" },
		/* What llwrap cannot read as git does: refused. */
		{ "[core]\n\tbare = \"false\n",
		  "what llwrap cannot read as git does, on line 2" },
		{ "fsmonitor = x\n", "what llwrap cannot read as git does, "
				     "on line 1" },
		{ "[core]\n\tbare = a\\x\n",
		  "what llwrap cannot read as git does, on line 2" },
		{ "[core]\n\tbare = a\tb\n",
		  "what llwrap cannot read as git does, on line 2" },
		{ "[core]\n\tbare\v= false\n",
		  "what llwrap cannot read as git does, on line 2" },
		{ "\xef\xbb[core]\n", "what llwrap cannot read as git does, "
				      "on line 1" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *u =
			gitguard_config_unsafe(cases[i].config);

		if (cases[i].unsafe == NULL && u != NULL)
			fail_msg("case %zu: %s found", i, u);
		if (cases[i].unsafe != NULL &&
		    (u == NULL || strcmp(u, cases[i].unsafe) != 0))
			fail_msg("case %zu: got %s, want %s", i,
				 u != NULL ? u : "nothing", cases[i].unsafe);
	}
}

/* The configuration given in the environment (git -c, GIT_CONFIG_COUNT):
 * what it includes is followed as a file's include is, its
 * core.hooksPath protected, and --explain names the variable. */
static void
test_git_env(void **state)
{
	char *env[] = {
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=include.path",
		"GIT_CONFIG_VALUE_0=/p/env.inc",
		"GIT_CONFIG_KEY_1=core.hooksPath",
		"GIT_CONFIG_VALUE_1=.hk",
		"GIT_CONFIG_PARAMETERS='includeIf.onbranch:x.path'='~/../p/"
		"gone.inc' 'include.path'='%(prefix)/x' 'alias.st'='status'",
		NULL,
	};
	const char *const ents[] = {
		"f:/p/.git/config=[user]\n\tname = u\n",
		"d:/p/.git/hooks",
		"f:/p/env.inc=[include]\n\tpath = sub/more.inc\n",
		"f:/p/sub/more.inc=[core]\n\thooksPath = hk2\n",
		"d:/p/hk2",
		NULL,
	};
	struct tfs t = { .ents = ents }, t2 = { .ents = ents + 2 };
	struct gitguard_fs fs = { tfs_kind, tfs_list, tfs_read, &t, NULL };
	struct gitguard_fs fs2 = { tfs_kind, tfs_list, tfs_read, &t2, NULL };
	struct gitconfig_var *vars = NULL;
	_cleanup_free_ char *cause = NULL, *got = NULL, *missing = NULL;
	struct gitguard *g;
	size_t n = 0;
	bool gone = false, prefix = false;

	(void)state;
	assert_int_equal(gitconfig_env(env, "/h", &vars, &n, &cause), 0);
	g = gitguard_scan("/p", &fs, NULL, "/h", vars, n);
	got = render(g);
	assert_string_equal(got, "P /p/.git\n"
				 "R /p/.git/config\n"
				 "X /p/.git/hooks\n"
				 "R /p/env.inc\n"
				 "R /p/sub/more.inc\n"
				 "P /p/sub\n"
				 "X /p/hk2\n"
				 "P /p/hk2\n");
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].path, "/p/env.inc") == 0)
			assert_non_null(strstr(g->v[i].origin,
					       "included by the environment: "
					       "GIT_CONFIG_KEY_0"));
	for (char **m = g->notes; *m != NULL; m++) {
		gone |= strstr(*m, "/p/gone.inc (included by the environment: "
				   "GIT_CONFIG_PARAMETERS) does not exist: "
				   "one created inside") != NULL;
		prefix |= strstr(*m, "the environment (GIT_CONFIG_PARAMETERS) "
				     "includes %(prefix)/x, which llwrap "
				     "cannot follow") != NULL;
	}
	assert_true(gone);
	assert_true(prefix);
	missing = strv_join(g->missing, " ");
	assert_non_null(strstr(missing, "/p/gone.inc"));
	assert_non_null(strstr(missing, "/p/.hk"));
	gitguard_free(g);
	/* A project without a repository: the environment's include is
	 * followed all the same (the command may make one). */
	g = gitguard_scan("/p", &fs2, NULL, "/h", vars, n);
	free(got);
	got = render(g);
	assert_string_equal(got, "R /p/env.inc\n"
				 "R /p/sub/more.inc\n"
				 "P /p/sub\n"
				 "X /p/hk2\n"
				 "P /p/hk2\n");
	gitguard_free(g);
	gitconfig_vars_free(vars, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git),
		cmocka_unit_test(test_git_includes),
		cmocka_unit_test(test_git_env),
		cmocka_unit_test(test_hg_include),
		cmocka_unit_test(test_later_run),
		cmocka_unit_test(test_index_gitlinks),
		cmocka_unit_test(test_index_as_git),
		cmocka_unit_test(test_verify_path),
		cmocka_unit_test(test_hash_len),
		cmocka_unit_test(test_index_sha256_split),
		cmocka_unit_test(test_index_find),
		cmocka_unit_test(test_unchanged),
		cmocka_unit_test(test_stat_trusted),
		cmocka_unit_test(test_index_each),
		cmocka_unit_test(test_index_split),
		cmocka_unit_test(test_later_reader),
		cmocka_unit_test(test_hooks_path),
		cmocka_unit_test(test_config_unsafe),
		cmocka_unit_test(test_config_rerouted),
		cmocka_unit_test(test_remote_file),
	};

	return cmocka_run_group_tests_name("gitguard", tests, NULL, NULL);
}
