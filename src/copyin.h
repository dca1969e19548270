/*
 * [filesystem] copy = SRC DST (llwrap.ini(5), DESIGN.md §11): before the
 * command runs, llwrap copies the user's file SRC to DST, in a tree the
 * policy makes writable, when DST is missing or older than SRC, giving
 * the copy SRC's modification time and mode 0600.  The command gets the
 * file (opencode its credentials) and may change its copy (a login, a
 * refreshed token), which the next run keeps until SRC changes; SRC
 * itself is never opened inside the sandbox, so the command cannot
 * change it.
 */
#ifndef LLW_COPYIN_H
#define LLW_COPYIN_H

#include <stdbool.h>
#include <time.h>

#include "pathtree.h"

/* The largest file copied. */
#define COPYIN_MAX (1024 * 1024)

/*
 * Whether a copy modified at dst (NULL: there is none, or it is not a
 * regular file) is to be made again from a source modified at src: when
 * the source is newer.  A copy the command changed is newer than its
 * source until the source changes.
 */
bool copyin_stale(const struct timespec *src, const struct timespec *dst);

/*
 * Whether a copy was written since llwrap made it, by its modification
 * and birth times: llwrap gives a copy its source's modification time,
 * older than the copy's birth, and a write in place (opencode's) makes
 * it later.  btime NULL (the file system does not say): true.
 */
bool copyin_changed(const struct timespec *mtime, const struct timespec *btime);

/*
 * Make the n copies, before the command runs.  A copy that cannot be made
 * (its source denied by a rule, missing without "?", not a regular
 * file or over COPYIN_MAX; its destination in project, in no tree
 * the policy makes writable (the configured rule of src, the sources'
 * plan (pathtree_sources), that holds its directory's resolved path), or
 * reached through a
 * symbolic link that
 * leads out of that tree; an I/O error) is skipped and named in *notes
 * (complete sentences); so is a copy the command changed that is
 * replaced because its source is newer.  The destination's directory is
 * made (0700) when missing; the copy is written beside it and renamed
 * into place, through a descriptor of that directory opened without
 * following symbolic links.
 */
void copyin_run(const struct llw_copy *copies, size_t n, const char *project,
		const struct plan *src, char ***notes);

#endif /* LLW_COPYIN_H */
