/*
 * Unit tests for src/gitconfig.c: the files a git configuration makes git
 * read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "strv.h"

static const struct {
	const char *text, *want;
} cases[] = {
	/* include.path: relative to the file's directory, or from ~/. */
	{ "[include]\n\tpath = .gitconfig-work\n", "i/h/.gitconfig-work" },
	{ "[include]\n  path = ~/conf/extra\n", "i/h/conf/extra" },
	{ "[Include]\nPath = /etc/x\n", "i/etc/x" },
	/* includeIf, whatever the condition; quoted values, comments. */
	{ "[includeIf \"gitdir:~/work/\"]\n\tpath = \"work config\" # c\n",
	  "i/h/work config" },
	{ "[includeif \"onbranch:main\"]\npath=../up ; c\n", "i/up" },
	/* core.excludesFile and core.attributesFile: absolute or ~/. */
	{ "[core]\n\texcludesFile = ~/.gitignore\n\tattributesfile = "
	  "/a/attr\n",
	  "f/h/.gitignore f/a/attr" },
	{ "[core]\n\texcludesFile = relative\n", "" },
	/* ~user/ is left out; other sections and keys are ignored. */
	{ "[include]\npath = ~bob/x\n[user]\npath = /no\n[alias]\n"
	  "excludesfile = /no\n",
	  "" },
	/* A key on the header's line; escapes. */
	{ "[include] path = /a\\\"b\n", "i/a\"b" },
	/* Comment lines and blank lines. */
	{ "# [include]\n; path = /no\n\n[include]\n# path = /no\n", "" },
};

static void
test_paths(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_strv_ char **v =
			gitconfig_paths(cases[i].text, "/h/.gitconfig", "/h");
		_cleanup_free_ char *j = strv_join(v, " ");

		if (strcmp(j, cases[i].want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, j,
				 cases[i].want);
	}
}

static void
test_no_home(void **state)
{
	_cleanup_strv_ char **v = gitconfig_paths(
		"[include]\npath = ~/x\npath = y\n", "/etc/gitconfig", NULL);
	_cleanup_free_ char *j = strv_join(v, " ");

	(void)state;
	assert_string_equal(j, "i/etc/y");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_no_home),
	};

	return cmocka_run_group_tests_name("gitconfig", tests, NULL, NULL);
}
