/*
 * NULL-terminated string vectors.  Every function that allocates aborts on
 * memory exhaustion (see xalloc.h), so none of them can fail.
 */
#ifndef LLW_STRV_H
#define LLW_STRV_H

#include <stdbool.h>
#include <stddef.h>

/* Number of strings in v; v may be NULL. */
size_t strv_length(char *const *v);

/* Free every string and the vector; v may be NULL. */
void strv_free(char **v);

/* Append a copy of s to *v (which may be NULL). */
void strv_push(char ***v, const char *s);

/* Append s to *v, taking ownership of it. */
void strv_push_take(char ***v, char *s);

/* A deep copy of v; NULL for NULL. */
char **strv_copy(char *const *v);

/* True when v contains a string equal to s. */
bool strv_contains(char *const *v, const char *s);

/*
 * Split s on runs of blanks (space, tab, newline) into a new vector.
 * An empty or all-blank s gives an empty (non-NULL) vector.
 */
char **strv_split_blank(const char *s);

/* The value of NAME in an environment vector of "NAME=VALUE" strings, or
 * NULL; envp may be NULL. */
const char *strv_env_get(char *const *envp, const char *name);

/* Join v with sep between elements into a new string. */
char *strv_join(char *const *v, const char *sep);

#endif /* LLW_STRV_H */
