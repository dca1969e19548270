/*
 * maskwatch: the mount on top of a mask's path in a mount table, escapes
 * undone, and the table's descriptor polled for a change only.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "maskwatch.h"

static const char table[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"71 22 0:6 /null /p/.env ro,nosuid - devtmpfs devtmpfs rw\n"
	"72 22 8:1 /p/.git/config /p/.git/config ro - ext4 /dev/sda1 rw\n"
	"80 22 8:1 /p/.git/config /p/.git/config ro - ext4 /dev/sda1 rw\n"
	"81 22 8:1 /p/a\\040b /p/a\\040b ro - ext4 /dev/sda1 rw\n"
	"82 22 8:1 /p/c\\134d /p/c\\134d ro - ext4 /dev/sda1 rw";

static void
test_mount_ids(void **state)
{
	/* Sorted by path_cmp, as the plan's masks are. */
	char *const paths[] = { "/",	   "/p",
				"/p/.env", "/p/.git/config",
				"/p/a b",  "/p/a\\040b",
				"/p/c\\d" };
	int ids[7];

	(void)state;
	maskwatch_mount_ids(table, paths, 7, ids);
	assert_int_equal(ids[0], 22);
	assert_int_equal(ids[1], -1);
	assert_int_equal(ids[2], 71);
	/* Stacked: the one on top. */
	assert_int_equal(ids[3], 80);
	assert_int_equal(ids[4], 81);
	assert_int_equal(ids[5], -1);
	assert_int_equal(ids[6], 82);
	maskwatch_mount_ids("", paths, 7, ids);
	assert_int_equal(ids[0], -1);
	maskwatch_mount_ids("garbage\n\n1 2\n", paths, 7, ids);
	assert_int_equal(ids[0], -1);
}

static void
test_gone(void **state)
{
	char *const paths[] = { "/", "/p", "/p/.env", "/p/.git/config",
				"/p/c\\d" };
	int ids[] = { 22, -1, 71, 80, 82 };
	int moved[] = { -1, -1, 72, 83, -1 };
	int none[] = { -1, -1, -1, -1, -1 };

	(void)state;
	assert_int_equal(maskwatch_gone(table, paths, ids, 5), -1);
	/* A mount at another point than its mask's (72 is at
	 * /p/.git/config), or one the table no longer holds (83); -1 is
	 * never looked for. */
	assert_int_equal(maskwatch_gone(table, paths, moved, 5), 2);
	moved[2] = -1;
	assert_int_equal(maskwatch_gone(table, paths, moved, 5), 3);
	/* One beneath another at the same point is still there. */
	moved[3] = 72;
	assert_int_equal(maskwatch_gone(table, paths, moved, 5), -1);
	assert_int_equal(maskwatch_gone(table, paths, none, 5), -1);
	assert_int_equal(maskwatch_gone("", paths, ids, 5), 0);
	/* Only a line's first field is its id. */
	assert_int_equal(
		maskwatch_gone("7 22 0:1 / /22 - x y\n", paths, ids, 1), 0);
	/* The host renamed the masked entry away: the mount moved with
	 * it, its id is the same, its point another. */
	assert_int_equal(
		maskwatch_gone("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
			       "71 22 0:6 /null /p/.env~ ro - devtmpfs d rw\n"
			       "80 22 8:1 /p/.git/config /p/.git/config ro - "
			       "ext4 /dev/sda1 rw\n"
			       "82 22 8:1 /p/c\\134d /p/c\\134d ro - x y z",
			       paths, ids, 5),
		2);
}

/* The table is always readable: only POLLPRI says it changed, and it
 * does not when nothing did. */
static void
test_table_quiet(void **state)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(poll(&p, 1, 0), 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_ids),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_table_quiet),
	};

	return cmocka_run_group_tests_name("maskwatch", tests, NULL, NULL);
}
