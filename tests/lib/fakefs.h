/*
 * A fake file system for the path compiler (struct pathtree_fs), defined
 * by a table: one entry a string, "d:/path" a directory, "f:/path" a file,
 * "l:/path:/target" a symlink (one without an absolute target is a plain
 * entry), "x:/path" a directory that cannot be listed.  Ancestors of every
 * entry are directories.  Shared by tests/unit/test-pathtree.c and the
 * fuzz harness.
 */
#ifndef LLW_TESTS_FAKEFS_H
#define LLW_TESTS_FAKEFS_H

#include <stdbool.h>

struct fakefs {
	const char *const *ents; /* NULL-terminated */
};

/* The struct pathtree_fs functions; ctx is a struct fakefs. */
int fake_resolve(void *ctx, const char *path, char **out);
int fake_stat(void *ctx, const char *path, bool *is_dir);
int fake_list(void *ctx, const char *path, char ***names);
/* resolve_at as the contract defines it: resolve, then stat. */
int fake_resolve_at(void *ctx, const char *dir, const char *name, char **out,
		    bool *is_dir);

#endif /* LLW_TESTS_FAKEFS_H */
