#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

static void __attribute__((noreturn)) xalloc_die(void)
{
	fputs("llwrap: out of memory\n", stderr);
	_exit(125);
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		xalloc_die();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		xalloc_die();
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	void *r = reallocarray(p, n ? n : 1, size ? size : 1);

	if (r == NULL)
		xalloc_die();
	return r;
}

void *
xgrow(void *p, size_t want, size_t *cap, size_t size)
{
	size_t n;

	if (want <= *cap)
		return p;
	n = *cap < 8 ? 8 : *cap;
	while (n < want)
		n *= 2;
	p = xreallocarray(p, n, size);
	*cap = n;
	return p;
}

char *
xstrdup(const char *s)
{
	char *r = strdup(s);

	if (r == NULL)
		xalloc_die();
	return r;
}

char *
xstrndup(const char *s, size_t n)
{
	char *r = strndup(s, n);

	if (r == NULL)
		xalloc_die();
	return r;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *r;

	if (vasprintf(&r, fmt, ap) < 0)
		xalloc_die();
	return r;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *r;

	va_start(ap, fmt);
	r = xvasprintf(fmt, ap);
	va_end(ap);
	return r;
}
