/*
 * --learn (DESIGN.md §12): from the filesystem accesses observed while
 * the command ran in the learning sandbox, and those the target policy
 * would deny, a proposed profile fragment.  Pure: the caller observes
 * (the supervisor records opens, execs and mkdirs) and decides each
 * access against the target policy (why.c).
 *
 * A grant is an observed path, or the directory holding observed paths
 * when several share it or a file is created there; never one that
 * suggest_unsafe() refuses (home or an ancestor, "/", a secret or a path
 * the target policy denies by name, under one or holding one), and
 * nothing under /proc or /sys, whose names change from run to run.
 */
#ifndef LLW_LEARNPROPOSE_H
#define LLW_LEARNPROPOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "access.h"
#include "suggest.h"

/* The user's own tool caches and program directories under home
 * (~/.cache, ~/.npm, ~/.cargo, ~/go, ~/.local/bin, ...), as absolute
 * paths; a new vector.  What the sandbox writes there the user's tools
 * run later, outside it (DESIGN.md §10): a write there is never
 * proposed; the tool should use a cache of the sandbox's own. */
char **learnpropose_tool_dirs(const char *home);

/* An access the target policy denies. */
struct learnpropose_access {
	char *path;	      /* absolute, resolved */
	enum llw_access need; /* RO, RX, RW or RWX */
	bool is_dir;	      /* the path is a directory */
	bool exists;	      /* it existed when looked at */
	bool alone;	      /* granted alone, never its directory (a device,
			       * a socket, a fifo) */
};

/* A proposed grant. */
struct learnpropose_grant {
	char *path;
	enum llw_access access;
	unsigned long count; /* accesses it covers */
};

/*
 * Propose grants for the n denied accesses, each within b (the target
 * policy's bounds, suggest.h): an access whose grant would reach a
 * secret, a denied path, home or "/" is counted in *dropped and gets
 * none.  Returns a new array of *n_out grants, sorted by path.
 */
struct learnpropose_grant *
learnpropose_grants(const struct learnpropose_access *v, size_t n,
		    const struct suggest_bounds *b, size_t *n_out,
		    unsigned long *dropped);

void learnpropose_grants_free(struct learnpropose_grant *g, size_t n);

/*
 * The fragment: a profile with the grants under [filesystem], the
 * network lines under [network] (already "key = value" text, may be
 * NULL), and a [match] on command, project and the profile the run was
 * learned under (profilematch.h: the grants are what that profile lacked, and
 * apply to later runs under it only), with comments saying where to
 * save it.  A new string.
 */
char *learnpropose_fragment(const struct learnpropose_grant *g, size_t n,
			    char *const *network, const char *command,
			    const char *project, const char *profile,
			    const char *name);

#endif /* LLW_LEARNPROPOSE_H */
