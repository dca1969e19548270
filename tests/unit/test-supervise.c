/*
 * Unit tests for what src/supervise.c decides itself: whether Yama lets
 * the supervisor in.  Its network decisions are netpolicy.c's
 * (test-netpolicy.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cleanup.h"
#include "supervise.h"

/* Yama: 0 and 1 let the supervisor in; 2, 3 and unreadable text do not. */
static void
test_yama(void **state)
{
	static const struct {
		const char *text;
		const char *want; /* substring of the cause, NULL: allowed */
	} cases[] = {
		{ "0\n", NULL },
		{ "1\n", NULL },
		{ "1", NULL },
		{ "2\n", "ptrace_scope is 2, which keeps the supervisor" },
		{ "3\n", "ptrace_scope is 3" },
		{ "", "reads '', not a scope" },
		{ "x\n", "reads 'x', not a scope llwrap knows" },
		{ "-1\n", "not a scope" },
		{ "1x\n", "not a scope" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *cause =
			supervise_yama_cause(cases[i].text);

		if (cases[i].want == NULL) {
			if (cause != NULL)
				fail_msg("'%s': %s", cases[i].text, cause);
			continue;
		}
		if (cause == NULL || strstr(cause, cases[i].want) == NULL)
			fail_msg("'%s': got %s, want ...%s...", cases[i].text,
				 cause ? cause : "(null)", cases[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yama),
	};

	return cmocka_run_group_tests_name("supervise", tests, NULL, NULL);
}
