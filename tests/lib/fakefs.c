/*
 * The fake file system of the path compiler's tests (see fakefs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fakefs.h"
#include "strv.h"
#include "xalloc.h"

static const char *
fake_find(const struct fakefs *fs, const char *path, char *type,
	  const char **target)
{
	size_t n = strlen(path);

	if (strcmp(path, "/") == 0) {
		*type = 'd';
		return path;
	}
	for (const char *const *e = fs->ents; *e != NULL; e++) {
		const char *p = *e + 2, *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		if (len == n && strncmp(p, path, n) == 0) {
			*type = (*e)[0];
			*target = colon ? colon + 1 : NULL;
			return *e;
		}
		if (len > n && strncmp(p, path, n) == 0 && p[n] == '/') {
			*type = 'd';
			return *e;
		}
	}
	return NULL;
}

static int
fake_resolve_depth(const struct fakefs *fs, const char *path, char **out,
		   int depth)
{
	_cleanup_free_ char *cur = xstrdup("");
	const char *p = path;

	if (depth > 40)
		return -ELOOP;
	while (*p == '/') {
		const char *end = strchr(p + 1, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		_cleanup_free_ char *cand = NULL;
		const char *target = NULL;
		char type;

		cand = xasprintf("%s%.*s", cur, (int)len, p);
		if (fake_find(fs, cand, &type, &target) == NULL) {
			*out = xasprintf("%s%s", cur, p);
			return 0;
		}
		if (type == 'l' && target != NULL && target[0] == '/') {
			_cleanup_free_ char *next =
				xasprintf("%s%s", target, p + len);

			return fake_resolve_depth(fs, next, out, depth + 1);
		}
		free(cur);
		cur = steal_pointer(&cand);
		p += len;
	}
	*out = *cur ? steal_pointer(&cur) : xstrdup("/");
	return 0;
}

int
fake_resolve(void *ctx, const char *path, char **out)
{
	return fake_resolve_depth(ctx, path, out, 0);
}

int
fake_stat(void *ctx, const char *path, bool *is_dir)
{
	_cleanup_free_ char *res = NULL;
	const char *target;
	char type;
	int r;

	r = fake_resolve(ctx, path, &res);
	if (r < 0)
		return r;
	if (fake_find(ctx, res, &type, &target) == NULL)
		return 0;
	*is_dir = type != 'f';
	return 1;
}

int
fake_resolve_at(void *ctx, const char *dir, const char *name, char **out,
		bool *is_dir)
{
	_cleanup_free_ char *path = strcmp(dir, "/") == 0
					    ? xasprintf("/%s", name)
					    : xasprintf("%s/%s", dir, name);
	int r;

	r = fake_resolve(ctx, path, out);
	if (r < 0)
		return r;
	r = fake_stat(ctx, *out, is_dir);
	if (r < 0) {
		free(*out);
		*out = NULL;
	}
	return r;
}

static int
strcmpp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
fake_list(void *ctx, const char *path, char ***names)
{
	const struct fakefs *fs = ctx;
	_cleanup_free_ char *res = NULL;
	char **v = xcalloc(1, sizeof(char *));
	const char *target;
	size_t n;
	char type;
	int r;

	r = fake_resolve(ctx, path, &res);
	if (r < 0 || fake_find(fs, res, &type, &target) == NULL) {
		free(v);
		return r < 0 ? r : -ENOENT;
	}
	if (type == 'x') {
		free(v);
		return -EACCES;
	}
	n = strcmp(res, "/") == 0 ? 0 : strlen(res);
	for (const char *const *e = fs->ents; *e != NULL; e++) {
		const char *p = *e + 2, *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		_cleanup_free_ char *name = NULL;
		const char *end;

		if (len <= n + 1 || strncmp(p, res, n) != 0 || p[n] != '/')
			continue;
		end = memchr(p + n + 1, '/', len - n - 1);
		name = xstrndup(p + n + 1,
				(end ? (size_t)(end - p) : len) - n - 1);
		if (!strv_contains(v, name))
			strv_push(&v, name);
	}
	qsort(v, strv_length(v), sizeof(char *), strcmpp);
	*names = v;
	return 0;
}
