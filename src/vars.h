/*
 * Variables of profile values (DESIGN.md §4): ${HOME}, ${PROJECT},
 * ${XDG_*_HOME}, ... and a leading '~', expanded where a value is parsed.
 */
#ifndef LLW_VARS_H
#define LLW_VARS_H

/*
 * Values for ${VAR} expansion.  Built by vars_new() from an environment and
 * the project/name; every XDG_*_HOME has its XDG default when unset.
 * Pure but for getuid().
 */
struct vars;

struct vars *vars_new(char *const *envp, const char *project, const char *name);
void vars_free(struct vars *v);

/* The value of variable name (without ${}), or NULL when unknown. */
const char *vars_get(const struct vars *v, const char *name);

/*
 * Expand ${VAR} and a leading ~ in s.  Returns 0 and a new string in *out,
 * or -EINVAL with *cause naming the unknown variable.
 */
int vars_expand(const struct vars *v, const char *s, char **out, char **cause);

/* The same without '~' (an environment value: NAME=VALUE). */
int vars_expand_env(const struct vars *v, const char *s, char **out,
		    char **cause);

#endif /* LLW_VARS_H */
