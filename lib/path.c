/*
 * Absolute paths as strings (see path.h).
 */
#include <stdint.h>
#include <string.h>

#include "path.h"
#include "xalloc.h"

bool
path_is_normal(const char *path)
{
	if (path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	for (const char *p = path; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		if (p[1] == '/' || p[1] == '\0')
			return false;
		if (p[1] == '.' &&
		    (p[2] == '/' || p[2] == '\0' ||
		     (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))
			return false;
	}
	return true;
}

char *
path_normalise(const char *path)
{
	char *r;
	size_t len = 0;

	/* Profiles mostly name normal paths: one scan and a copy. */
	if (path_is_normal(path))
		return xstrdup(path);
	r = xmalloc(strlen(path) + 2);

	while (*path != '\0') {
		size_t n;

		path += strspn(path, "/");
		n = strcspn(path, "/");
		if (n == 0)
			break;
		if (n == 1 && path[0] == '.') {
			/* Nothing: "." is the directory itself. */
		} else if (n == 2 && path[0] == '.' && path[1] == '.') {
			while (len > 0 && r[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
		} else {
			r[len++] = '/';
			memcpy(r + len, path, n);
			len += n;
		}
		path += n;
	}
	if (len == 0)
		r[len++] = '/';
	r[len] = '\0';
	return r;
}

bool
path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

int
path_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;
	size_t n = strlen(a), m = strlen(b), k = (n < m ? n : m) + 1, i = 0;
	uint64_t u, v;
	int cx, cy;

	/*
	 * The first difference, eight bytes at a time up to the shorter
	 * one's NUL (sorting compares paths with long shared prefixes, and
	 * a byte loop was most of the sort): no read past either string.
	 */
	for (; i + 8 <= k; i += 8) {
		memcpy(&u, x + i, 8);
		memcpy(&v, y + i, 8);
		if (u != v)
			break;
	}
	while (i < k && x[i] == y[i])
		i++;
	if (i == k)
		return 0;
	cx = x[i] == '/' ? 1 : x[i] == '\0' ? 0 : x[i] + 1;
	cy = y[i] == '/' ? 1 : y[i] == '\0' ? 0 : y[i] + 1;
	return cx < cy ? -1 : 1;
}
