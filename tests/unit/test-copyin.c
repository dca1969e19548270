/*
 * copyin: when a copy of the user's file is made again, and when it
 * counts as changed inside the sandbox.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "copyin.h"

static void
test_stale(void **state)
{
	const struct timespec t = { 100, 500 };
	const struct timespec older = { 100, 499 }, newer = { 101, 0 };

	(void)state;
	/* No copy, or an older one: made again. */
	assert_true(copyin_stale(&t, NULL));
	assert_true(copyin_stale(&t, &older));
	/* A copy as old as its source (llwrap made it), or newer (the
	 * command changed it): kept. */
	assert_false(copyin_stale(&t, &t));
	assert_false(copyin_stale(&t, &newer));
}

static void
test_changed(void **state)
{
	const struct timespec src = { 100, 500 }, born = { 200, 7 };
	const struct timespec later = { 250, 0 };

	(void)state;
	/* llwrap gives the copy its source's modification time, older than
	 * the copy's birth; a write in place makes it later. */
	assert_false(copyin_changed(&src, &born));
	assert_false(copyin_changed(&born, &born));
	assert_true(copyin_changed(&later, &born));
	/* No birth time known: assume it was. */
	assert_true(copyin_changed(&src, NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_changed),
	};

	return cmocka_run_group_tests_name("copyin", tests, NULL, NULL);
}
