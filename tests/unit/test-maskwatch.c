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
test_mount_id(void **state)
{
	(void)state;
	assert_int_equal(maskwatch_mount_id(table, "/p/.env"), 71);
	/* Stacked: the one on top. */
	assert_int_equal(maskwatch_mount_id(table, "/p/.git/config"), 80);
	assert_int_equal(maskwatch_mount_id(table, "/p/a b"), 81);
	assert_int_equal(maskwatch_mount_id(table, "/p/c\\d"), 82);
	assert_int_equal(maskwatch_mount_id(table, "/p/a\\040b"), -1);
	assert_int_equal(maskwatch_mount_id(table, "/p"), -1);
	assert_int_equal(maskwatch_mount_id(table, "/"), 22);
	assert_int_equal(maskwatch_mount_id("", "/"), -1);
	assert_int_equal(maskwatch_mount_id("garbage\n\n1 2\n", "/"), -1);
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
		cmocka_unit_test(test_mount_id),
		cmocka_unit_test(test_table_quiet),
	};

	return cmocka_run_group_tests_name("maskwatch", tests, NULL, NULL);
}
