/*
 * Unit tests for lib/strv.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "strv.h"

static void
test_length_null(void **state)
{
	(void)state;
	assert_int_equal(strv_length(NULL), 0);
}

static void
test_push_and_length(void **state)
{
	_cleanup_strv_ char **v = NULL;
	char *owned = strdup("c");

	(void)state;
	strv_push(&v, "a");
	strv_push(&v, "b");
	strv_push_take(&v, owned);
	assert_int_equal(strv_length(v), 3);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "b");
	assert_ptr_equal(v[2], owned);
	assert_null(v[3]);
}

static void
test_copy(void **state)
{
	_cleanup_strv_ char **v = NULL;
	_cleanup_strv_ char **c = NULL;

	(void)state;
	assert_null(strv_copy(NULL));
	strv_push(&v, "x");
	strv_push(&v, "y");
	c = strv_copy(v);
	assert_int_equal(strv_length(c), 2);
	assert_ptr_not_equal(c[0], v[0]);
	assert_string_equal(c[0], "x");
	assert_string_equal(c[1], "y");
	assert_null(c[2]);
}

static void
test_contains(void **state)
{
	_cleanup_strv_ char **v = NULL;

	(void)state;
	assert_false(strv_contains(NULL, "a"));
	strv_push(&v, "alpha");
	strv_push(&v, "beta");
	assert_true(strv_contains(v, "alpha"));
	assert_true(strv_contains(v, "beta"));
	assert_false(strv_contains(v, "alph"));
	assert_false(strv_contains(v, "gamma"));
}

/* strv_split_blank: input, then the expected elements joined by "|". */
static const struct {
	const char *in, *joined;
	size_t n;
} split_cases[] = {
	{ "", "", 0 },
	{ "   \t\n ", "", 0 },
	{ "a", "a", 1 },
	{ "a b", "a|b", 2 },
	{ "  a\t\tb \n c  ", "a|b|c", 3 },
	{ "/usr /nix/store", "/usr|/nix/store", 2 },
	{ "x\r\ny", "x|y", 2 },
};

static void
test_split_blank(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(split_cases); i++) {
		_cleanup_strv_ char **v = strv_split_blank(split_cases[i].in);
		_cleanup_free_ char *j = strv_join(v, "|");

		assert_non_null(v);
		assert_int_equal(strv_length(v), split_cases[i].n);
		assert_string_equal(j, split_cases[i].joined);
	}
}

static void
test_join(void **state)
{
	_cleanup_strv_ char **v = NULL;
	_cleanup_free_ char *empty = strv_join(NULL, ", ");
	_cleanup_free_ char *one = NULL;
	_cleanup_free_ char *three = NULL;

	(void)state;
	assert_string_equal(empty, "");
	strv_push(&v, "a");
	one = strv_join(v, ", ");
	assert_string_equal(one, "a");
	strv_push(&v, "b");
	strv_push(&v, "c");
	three = strv_join(v, ", ");
	assert_string_equal(three, "a, b, c");
}

static void
test_free_null(void **state)
{
	(void)state;
	strv_free(NULL);
	/* Reaching here without a crash is the assertion; make it explicit. */
	assert_int_equal(strv_length(NULL), 0);
}

static void
test_env_get(void **state)
{
	char *env[] = { "HOME=/h", "HOMEX=/x", "EMPTY=", "A=b=c", NULL };

	(void)state;
	assert_string_equal(strv_env_get(env, "HOME"), "/h");
	assert_string_equal(strv_env_get(env, "HOMEX"), "/x");
	assert_string_equal(strv_env_get(env, "EMPTY"), "");
	assert_string_equal(strv_env_get(env, "A"), "b=c");
	assert_null(strv_env_get(env, "HOM"));
	assert_null(strv_env_get(env, "PATH"));
	assert_null(strv_env_get(NULL, "HOME"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_length_null),
		cmocka_unit_test(test_env_get),
		cmocka_unit_test(test_push_and_length),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_contains),
		cmocka_unit_test(test_split_blank),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_free_null),
	};

	return cmocka_run_group_tests_name("strv", tests, NULL, NULL);
}
