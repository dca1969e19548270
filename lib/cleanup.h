/*
 * Scope-bound cleanup helpers, after bubblewrap's utils.h and systemd.
 *
 * A variable declared with one of these attributes is released when it
 * goes out of scope; steal_pointer() and steal_fd() hand ownership on.
 */
#ifndef LLW_CLEANUP_H
#define LLW_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "strv.h"

static inline void
cleanup_freep(void *p)
{
	free(*(void **)p);
}

static inline void
cleanup_closep(int *fd)
{
	/* close() must not clobber the errno a caller is about to return. */
	int saved = errno;

	if (*fd >= 0)
		close(*fd);
	errno = saved;
}

static inline void
cleanup_strvp(char ***v)
{
	strv_free(*v);
}

#define _cleanup_free_	     attribute_cleanup(cleanup_freep)
#define _cleanup_close_	     attribute_cleanup(cleanup_closep)
#define _cleanup_strv_	     attribute_cleanup(cleanup_strvp)
#define attribute_cleanup(f) __attribute__((cleanup(f)))

/* Declare a cleanup function for a type whose free function takes NULL. */
#define DEFINE_CLEANUP_FUNC(type, func)                                        \
	static inline void func##p(type **p)                                   \
	{                                                                      \
		func(*p);                                                      \
	}

static inline void *
steal_pointer_impl(void *pp)
{
	void **p = pp;
	void *v = *p;

	*p = NULL;
	return v;
}

#define steal_pointer(pp) ((__typeof__(*(pp)))steal_pointer_impl(pp))

static inline int
steal_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* LLW_CLEANUP_H */
