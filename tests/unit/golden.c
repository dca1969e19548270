#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "fdutil.h"
#include "golden.h"
#include "xalloc.h"

char *
golden_path(const char *rel)
{
	const char *env = getenv("LLW_DATA");
	_cleanup_free_ char *file = xstrdup(__FILE__);

	if (env && *env)
		return xasprintf("%s/%s", env, rel);
	return xasprintf("%s/../data/%s", dirname(file), rel);
}

bool
golden_update(const char *rel, const char *got)
{
	const char *env = getenv("LLW_UPDATE_GOLDEN");
	_cleanup_free_ char *path = NULL, *dir = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = strlen(got);

	if (env == NULL || strcmp(env, "1") != 0)
		return false;
	path = golden_path(rel);
	dir = xstrdup(path);
	(void)mkdir(dirname(dir), 0755);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, got, len), (ssize_t)len);
	print_message("# wrote %s\n", path);
	return true;
}

char *
golden_read(const char *rel)
{
	_cleanup_free_ char *path = golden_path(rel);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *text = NULL;
	int r = fd < 0 ? -errno : fd_read_all(fd, 1 << 24, &text, NULL);

	if (r < 0)
		fail_msg("cannot read %s: %s (LLW_UPDATE_GOLDEN=1 writes it)",
			 path, strerror(-r));
	return text;
}

void
golden_compare(const char *rel, const char *want, const char *got)
{
	const char *w = want, *g = got, *line = got;
	int n = 1;

	for (; *w && *w == *g; w++, g++)
		if (*g == '\n') {
			n++;
			line = g + 1;
		}
	if (*w == '\0' && *g == '\0')
		return;
	fail_msg("%s differs from what the code makes now from line %d on "
		 "(now: '%.*s'); if the change is deliberate, rerun with "
		 "LLW_UPDATE_GOLDEN=1 and review the diff",
		 rel, n, (int)strcspn(line, "\n"), line);
}
