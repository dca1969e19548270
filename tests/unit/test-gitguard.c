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

#include <cmocka.h>

#include "cleanup.h"
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

/* "R path", "X path" (hooks), "P path" per entry, in order found. */
static char *
render(const struct gitguard *g)
{
	_cleanup_strv_ char **lines = xcalloc(1, sizeof(char *));

	for (size_t i = 0; i < g->n; i++)
		strv_push_take(&lines,
			       xasprintf("%c %s\n",
					 g->v[i].kind == GITGUARD_PIN  ? 'P'
					 : g->v[i].kind == GITGUARD_RX ? 'X'
								       : 'R',
					 g->v[i].path));
	return strv_join(lines, "");
}

static void
check(const char *const *ents, bool later, const char *want, const char *note)
{
	struct tfs t = { .ents = ents };
	struct gitguard_fs fs = { tfs_kind, tfs_list, tfs_read, &t };
	struct gitguard *g = later ? gitguard_later_run("/p", &fs)
				   : gitguard_scan("/p", &fs);
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
	      NULL);
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
	      ".mcp.json, opencode.jsonc do not exist");
	/* A file .envrc loads that is missing is noted. */
	check(V("f:/p/.envrc=dotenv .env.local\\n"), true, "R /p/.envrc\n",
	      ".env.local (loaded by .envrc) does not exist");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git),
		cmocka_unit_test(test_later_run),
	};

	return cmocka_run_group_tests_name("gitguard", tests, NULL, NULL);
}
