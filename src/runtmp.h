/*
 * private-tmp without user namespaces (DESIGN.md §14, M; §15): a directory
 * of the run's own, made before the command and removed after it through
 * descriptors only, so that nothing the sandbox planted in it (a link, a
 * FIFO, a deep tree) steers or blocks the removal.
 */
#ifndef LLW_RUNTMP_H
#define LLW_RUNTMP_H

struct runtmp;

/*
 * Make base/llwrap-run.XXXXXX (mode 0700, a new name each try, not
 * following a link) and check by its inode that the directory opened is
 * the one made and this user's.  Returns 0 and *out, or -errno and
 * *cause.
 */
int runtmp_make(const char *base, struct runtmp **out, char **cause);

/* Its absolute path. */
const char *runtmp_path(const struct runtmp *t);

/*
 * Remove the directory's tree: each entry by unlinkat() beneath a
 * descriptor of its directory, subdirectories opened O_NOFOLLOW |
 * O_DIRECTORY one name at a time, bounded in depth and count; then the
 * directory itself, if it is still the one made.  Returns NULL, or what
 * could not be removed, one line each (at most a few named), for the
 * caller to report.  Frees t.
 */
char **runtmp_remove(struct runtmp *t);

/* Free t without removing anything (a child of the process that made
 * it). */
void runtmp_free(struct runtmp *t);

#endif
