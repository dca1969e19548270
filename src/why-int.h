/*
 * What the parts of `llwrap why` share (why.c: the dispatch, the target
 * parser, the format and --explain's summary; why-path.c: paths and
 * unix sockets; why-net.c: IP): the verdict's setters and one decider
 * per kind of access, each filling v from the prepared sandbox.
 */
#ifndef LLW_WHY_INT_H
#define LLW_WHY_INT_H

#include <stdlib.h>

#include "strv.h"
#include "why.h"

/* Replace *field with s (taken). */
static inline void
set(char **field, char *s)
{
	free(*field);
	*field = s;
}

/* Add a note (taken). */
static inline void
note(struct why_verdict *v, char *s)
{
	strv_push_take(&v->notes, s);
}

/* "read", "write", "connect to", ...: the access as a verb. */
const char *why_access_verb(enum why_access a);

/* Read, write and execute of a path (why-path.c). */
void why_path(const struct sandbox *sb, const struct why_query *q,
	      struct why_verdict *v);
/* connect() to a pathname unix socket (why-path.c). */
void why_unix(const struct sandbox *sb, char *const *unix_paths,
	      const struct why_query *q, struct why_verdict *v);
/* connect() to one of the host's abstract sockets (why-path.c). */
void why_abstract(const struct sandbox *sb, const struct why_query *q,
		  struct why_verdict *v);
/* IP: connect, send, bind (why-net.c). */
void why_inet(const struct sandbox *sb, const struct netpolicy_rules *rules,
	      const struct why_query *q, struct why_verdict *v);

#endif /* LLW_WHY_INT_H */
