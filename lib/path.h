/*
 * Absolute paths as strings, compared component by component.  No system
 * calls: symlinks are the caller's business.
 */
#ifndef LLW_PATH_H
#define LLW_PATH_H

#include <stdbool.h>

/*
 * Lexically normalise an absolute path: collapse "//", drop ".", let ".."
 * remove the previous component (never above "/"), no trailing "/".  A
 * new string.
 */
char *path_normalise(const char *path);

/* True when path_normalise(path) would return path as it is: "/" or
 * "/a/b", no empty, "." or ".." component, no "/" at the end. */
bool path_is_normal(const char *path);

/* True when path is dir or lies beneath it, component-wise ("/a/b" is
 * under "/a", "/ab" is not); every absolute path is under "/". */
bool path_under(const char *path, const char *dir);

/*
 * Order paths component by component: "/" sorts before every other byte,
 * so a directory's subtree is contiguous ("/a", "/a/b", "/a-b").
 */
int path_cmp(const char *a, const char *b);

#endif /* LLW_PATH_H */
