/*
 * What a suggested grant may never reach (DESIGN.md §12).  Every producer
 * of a suggestion asks here before it proposes a path: `llwrap why`, the
 * fragment of --learn, the agent notes and `llwrap log`.  A grant on "/",
 * on the home directory or an ancestor of it, on a secret of DESIGN.md
 * §11 or a path the policy denies by name, on an ancestor of one of
 * those or on anything under one, would hand the command what the
 * policy keeps from it on purpose (under -p default, "rw = ~" exposes
 * ~/.ssh).  Pure.
 */
#ifndef LLW_SUGGEST_H
#define LLW_SUGGEST_H

#include <stdbool.h>

#include "pathtree.h"
#include "access.h"

struct suggest_bounds {
	char *home;	/* resolved $HOME; NULL when unknown */
	char **secrets; /* the secrets of §11 under home */
	char **denied;	/* the paths the policy denies by name */
};

/* The secrets of DESIGN.md §11 under home, as absolute paths; a new
 * vector (NULL when home is not absolute).  The learning run denies
 * them, and no suggested grant reaches them. */
char **suggest_secrets(const char *home);

/*
 * Fill b from home (resolved; NULL when unknown) and the deny rules of
 * the compiled plan fs (NULL: none), at their resolved paths (the kernel
 * names what was refused so) and as written.
 */
void suggest_bounds_init(struct suggest_bounds *b, const char *home,
			 const struct plan *fs);

void suggest_bounds_clear(struct suggest_bounds *b);

/*
 * Why a grant on path would reach what no suggestion may, as a clause
 * ("it holds your home directory"), or NULL when it is safe.  A path
 * under home is written ~/...  *inside (when not NULL) tells whether
 * path is in a secret or a denied path itself, so that nothing beneath
 * it is safe either.  A new string.
 */
char *suggest_unsafe(const struct suggest_bounds *b, const char *path,
		     bool *inside);

#endif /* LLW_SUGGEST_H */
