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
		{ "/", "/" },
		{ "//", "/" },
		{ "/a/b/", "/a/b" },
		{ "/a//b", "/a/b" },
		{ "/a/./b/.", "/a/b" },
		{ "/a/b/../c", "/a/c" },
		{ "/a/../../b", "/b" },
		{ "/..", "/" },
		{ "/a/..", "/" },
		{ "/.hidden/..x", "/.hidden/..x" },
		/* Normal already (copied as given), and near misses. */
		{ "/a/b.", "/a/b." },
		{ "/a/.b/..c/...", "/a/.b/..c/..." },
		{ "/a/.", "/a" },
		{ "/a/b/..", "/a" },
		{ "a/b", "/a/b" },
		{ "", "/" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *got = path_normalise(cases[i].in);

		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: got %s, want %s", cases[i].in, got,
				 cases[i].want);
		/* Normal exactly when normalising changes nothing. */
		if (path_is_normal(cases[i].in) !=
		    (strcmp(cases[i].in, cases[i].want) == 0))
			fail_msg("path_is_normal(%s) wrong", cases[i].in);
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

/* path_cmp's order one byte at a time, as it was written first. */
static int
cmp_bytes(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;
	int cx, cy;

	while (*x != '\0' && *x == *y) {
		x++;
		y++;
	}
	if (*x == *y)
		return 0;
	cx = *x == '/' ? 1 : *x == '\0' ? 0 : *x + 1;
	cy = *y == '/' ? 1 : *y == '\0' ? 0 : *y + 1;
	return cx < cy ? -1 : 1;
}

static void
test_cmp_long(void **state)
{
	/* Differences before, at and after each eight-byte word, and
	 * strings that end inside one, against the byte loop. */
	static const char alphabet[] = "/a.-b";
	char s[2][48];
	unsigned seed = 0x29;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t n = rand_r(&seed) % 40, m;

		for (size_t i = 0; i < n; i++)
			s[0][i] = alphabet[rand_r(&seed) % 5];
		s[0][n] = '\0';
		/* A copy changed at one place, cut, or made longer. */
		memcpy(s[1], s[0], n + 1);
		m = n == 0 ? 0 : rand_r(&seed) % n;
		switch (rand_r(&seed) % 3) {
		case 0:
			if (n > 0)
				s[1][m] = alphabet[rand_r(&seed) % 5];
			break;
		case 1:
			s[1][m] = '\0';
			break;
		default:
			for (size_t i = n; i < n + 7; i++)
				s[1][i] = alphabet[rand_r(&seed) % 5];
			s[1][n + 7] = '\0';
			break;
		}
		for (int k = 0; k < 2; k++) {
			int want = cmp_bytes(s[k], s[1 - k]);
			int got = path_cmp(s[k], s[1 - k]);

			if (want != got)
				fail_msg("path_cmp(%s, %s) = %d, not %d", s[k],
					 s[1 - k], got, want);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_under),
		cmocka_unit_test(test_cmp),
		cmocka_unit_test(test_cmp_long),
	};

	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}
