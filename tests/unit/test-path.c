/*
 * Unit tests for lib/path.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "path.h"

static void
test_normalise(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "/", "/" },		{ "//", "/" },
		{ "/a/b/", "/a/b" },	{ "/a//b", "/a/b" },
		{ "/a/./b/.", "/a/b" }, { "/a/b/../c", "/a/c" },
		{ "/a/../../b", "/b" }, { "/..", "/" },
		{ "/a/..", "/" },	{ "/.hidden/..x", "/.hidden/..x" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *got = path_normalise(cases[i].in);

		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: got %s, want %s", cases[i].in, got,
				 cases[i].want);
	}
}

static void
test_under(void **state)
{
	(void)state;
	assert_true(path_under("/a/b", "/a"));
	assert_true(path_under("/a", "/a"));
	assert_true(path_under("/a", "/"));
	assert_true(path_under("/", "/"));
	assert_false(path_under("/ab", "/a"));
	assert_false(path_under("/a", "/a/b"));
	assert_false(path_under("/a-b/c", "/a"));
}

static void
test_cmp(void **state)
{
	/* Sorted: a directory's subtree is contiguous. */
	static const char *const sorted[] = { "/",    "/a",   "/a/b", "/a/b/c",
					      "/a-b", "/a.b", "/ab",  "/b" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sorted); i++)
		for (size_t j = 0; j < ARRAY_SIZE(sorted); j++) {
			int c = path_cmp(sorted[i], sorted[j]);

			if ((i < j && c >= 0) || (i == j && c != 0) ||
			    (i > j && c <= 0))
				fail_msg("path_cmp(%s, %s) = %d", sorted[i],
					 sorted[j], c);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_under),
		cmocka_unit_test(test_cmp),
	};

	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}
