/*
 * Allocation that cannot fail: on exhaustion the process prints a message
 * and exits 125, the status llwrap uses for its own errors before exec.
 */
#ifndef LLW_XALLOC_H
#define LLW_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
/*
 * p, an array of size-byte elements that has room for *cap of them, with
 * room for want: grown by doubling, so n appends cost O(n).  *cap starts
 * at 0 (any array then is reallocated on the first call).
 */
void *xgrow(void *p, size_t want, size_t *cap, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

#endif /* LLW_XALLOC_H */
