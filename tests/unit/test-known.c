/*
 * Unit tests for src/known.c: the known-limits list.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "known.h"

/* The compiled-in list parses, and names only real layers. */
static void
test_builtin(void **state)
{
	struct known_limits *l = known_builtin();

	(void)state;
	assert_non_null(l);
	assert_true(l->n > 0);
	for (size_t i = 0; i < l->n; i++)
		assert_true(strlen(l->v[i].reason) > 20);
	known_free(l);
}

static void
test_parse_and_find(void **state)
{
	static const char text[] = "# comment\n"
				   "\n"
				   "a.one  landlock  L3  closed by namespaces\n"
				   "a.two  landlock,bwrap  none  \tno layer\n"
				   "a.three  *  F  stat leaks\n";
	struct known_limits *l = NULL;
	char *cause = NULL;
	const struct known_limit *e;

	(void)state;
	assert_int_equal(known_parse("t", text, &l, &cause), 0);
	assert_int_equal(l->n, 3);
	e = known_find(l, "a.one", "landlock");
	assert_non_null(e);
	assert_string_equal(e->closed_by, "L3");
	assert_string_equal(e->reason, "closed by namespaces");
	assert_int_equal(e->line, 3);
	assert_null(known_find(l, "a.one", "bwrap"));
	assert_non_null(known_find(l, "a.two", "bwrap"));
	assert_non_null(known_find(l, "a.three", "bwrap"));
	assert_null(known_find(l, "a.four", "landlock"));
	assert_null(known_find(NULL, "a.one", "landlock"));
	known_free(l);
}

/* Whether an entry applies follows the layers in use. */
static void
test_applies(void **state)
{
	static const char text[] = "l3 landlock L3 x\n"
				   "s landlock S x\n"
				   "f * F x\n"
				   "n landlock none x\n"
				   "p landlock L3-pid x\n"
				   "t landlock L3-tmp x\n"
				   "g landlock L3-git x\n"
				   "l landlock L3-later x\n"
				   "z landlock L3-seal x\n";
	struct known_limits *l = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(known_parse("t", text, &l, &cause), 0);
	assert_true(known_applies(&l->v[0], "landlock", false, false));
	assert_false(known_applies(&l->v[0], "landlock", true, false));
	assert_false(known_applies(&l->v[0], "bwrap", false, false));
	assert_true(known_applies(&l->v[1], "landlock", true, false));
	assert_false(known_applies(&l->v[1], "landlock", true, true));
	assert_true(known_applies(&l->v[2], "landlock", true, true));
	assert_false(known_applies(&l->v[2], "bwrap", false, false));
	assert_true(known_applies(&l->v[3], "landlock", true, true));
	/* L3-pid and L3-tmp: only that part of L3 closes them. */
	assert_true(known_applies(&l->v[4], "landlock", KNOWN_L3, false));
	assert_false(known_applies(&l->v[4], "landlock",
				   KNOWN_L3 | KNOWN_L3_PID, false));
	assert_true(known_applies(&l->v[5], "landlock", KNOWN_L3 | KNOWN_L3_PID,
				  false));
	assert_false(known_applies(&l->v[5], "landlock",
				   KNOWN_L3 | KNOWN_L3_TMP, false));
	assert_true(known_applies(&l->v[6], "landlock", KNOWN_L3, false));
	assert_false(known_applies(&l->v[6], "landlock",
				   KNOWN_L3 | KNOWN_L3_GIT, false));
	assert_true(known_applies(&l->v[7], "landlock", KNOWN_L3 | KNOWN_L3_GIT,
				  false));
	assert_false(known_applies(&l->v[7], "landlock",
				   KNOWN_L3 | KNOWN_L3_LATER, false));
	/* L3-seal: an unsealed L3 view (root's agent profiles) leaves it. */
	assert_true(known_applies(&l->v[8], "landlock",
				  KNOWN_L3 | KNOWN_L3_PID | KNOWN_L3_TMP,
				  false));
	assert_false(known_applies(&l->v[8], "landlock",
				   KNOWN_L3 | KNOWN_L3_SEAL, false));
	known_free(l);
}

static const struct {
	const char *text, *cause;
} bad[] = {
	{ "id landlock L3\n",
	  "t:1: expected ID BACKENDS CLOSED-BY REASON; a known limit needs a "
	  "reason." },
	{ "\nid docker L3 why\n",
	  "t:2: unknown backend 'docker': use landlock, bwrap or *." },
	{ "id landlock L4 why\n",
	  "t:1: unknown layer 'L4': use L3, L3-pid, "
	  "L3-tmp, L3-git, L3-later, L3-seal, S, F or none." },
	{ "id\n", "t:1: expected ID BACKENDS CLOSED-BY REASON; a known limit "
		  "needs a reason." },
};

static void
test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct known_limits *l = NULL;
		_cleanup_free_ char *cause = NULL;

		assert_int_equal(known_parse("t", bad[i].text, &l, &cause),
				 -EINVAL);
		assert_null(l);
		assert_string_equal(cause, bad[i].cause);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_parse_and_find),
		cmocka_unit_test(test_applies),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("known", tests, NULL, NULL);
}
