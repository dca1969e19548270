/*
 * A git configuration file read as git reads it: its variables, for the
 * checks of what a sandboxed command wrote (gitguard), and the files it
 * makes git read (DESIGN.md §10): the `[filesystem] git-config` key
 * grants them read-only so git keeps working with the user's
 * configuration, includes and all, and nothing else of the home becomes
 * readable.  Pure: text in, values out.
 */
#ifndef LLW_GITCONFIG_H
#define LLW_GITCONFIG_H

#include <stddef.h>

/*
 * The paths text (the contents of the config file at file) names:
 * include.path and includeIf.*.path (relative to file's directory, "~/"
 * from home, "~user/" from that user's home as git finds it),
 * core.excludesFile and core.attributesFile (absolute, "~/" or
 * "~user/").  Every include is listed whatever its condition.  Returns a
 * new vector of absolute paths, each prefixed by 'i' for an include (a
 * config file in turn) or 'f' for a plain file; an include llwrap cannot
 * follow ("%(prefix)/...", beneath where git is installed, or "~user/"
 * of a user llwrap finds no home for) is 'u' and the path as written;
 * other paths git does not resolve either (a relative core.* path) are
 * left out.
 */
char **gitconfig_paths(const char *text, const char *file, const char *home);

/*
 * Call fn for each variable of text (a git configuration file) in order,
 * read exactly as git reads it (gitconfig.c): its section in lower case,
 * its subsection as written (NULL when none; the old form [section.sub]
 * in lower case, as git reads it), its key in lower case, and its value
 * unquoted and unescaped (NULL for a key alone, which git reads as true).
 * Where llwrap cannot tell what git makes of the text, fn is called with
 * section, sub and key NULL and value saying where ("line 3"): a reader
 * that decides on safety must take that as unsafe.  Where git refuses the
 * text ("bad config line"), that is the last call, as git reads no more;
 * where git reads it and llwrap cannot tell how (a key outside any
 * section or in an empty one, a tab or CR inside an unquoted value, which
 * gits before and after 2.45 read differently: given then as later ones
 * read it), the reading goes on, as git's does.  fn returns nonzero to
 * stop; that is returned, else 0.  A UTF-8 byte order mark at
 * the start is skipped, as git does.  Includes are not followed.  text
 * holds no NUL: git reads past one, so a caller whose file holds one must
 * refuse it before (strlen(text) != its length).
 */
int gitconfig_each(const char *text,
		   int (*fn)(void *ctx, const char *section, const char *sub,
			     const char *key, const char *value),
		   void *ctx);

/*
 * The path one variable (section, sub, key, value as gitconfig_each gives
 * them) names, as gitconfig_paths lists it ('i', 'f' or 'u' and the
 * path), or NULL when it names none; dir is the directory of the file it
 * is read from, NULL for one given in the environment, where git refuses
 * a relative include.
 */
char *gitconfig_path(const char *section, const char *sub, const char *key,
		     const char *value, const char *dir, const char *home);

/* A variable of git's configuration given in the environment. */
struct gitconfig_var {
	char *source;  /* "GIT_CONFIG_KEY_0", "GIT_CONFIG_PARAMETERS" */
	char *section; /* lower case ("" for a name git takes without) */
	char *sub;     /* as written, NULL when none */
	char *key;     /* lower case */
	char *value;   /* NULL for a key alone, which git reads as true */
};

/*
 * The configuration git reads from its environment after its files
 * (config.c, git_config_from_parameters): GIT_CONFIG_COUNT's
 * GIT_CONFIG_KEY_<n> = GIT_CONFIG_VALUE_<n> in order, then
 * GIT_CONFIG_PARAMETERS ('key'='value' or 'key'= for a key alone,
 * separated by blanks, as git -c and git --config-env export them, or
 * the old 'key=value'), from env (NAME=VALUE strings, NULL-terminated:
 * the first of a name is the one, as getenv finds it).  home is what
 * "~/" names.  0 and the variables in *vars (*n of them; free with
 * gitconfig_vars_free), or -EINVAL and *cause, saying what git says and
 * what to unset, where git refuses them (it dies, running nothing): a
 * count that is not a number or above INT_MAX, a GIT_CONFIG_KEY_<n> or
 * GIT_CONFIG_VALUE_<n> missing below it, a key git refuses (no section,
 * no name, a character outside a name's), quoting git cannot read, an
 * include.path without a value or naming no absolute path (not "~/"
 * from home, "~user/" or "%(prefix)/": relative includes must come from
 * files).  Such an includeIf.*.path git reads only where its condition
 * holds, which is not evaluated here: it is read, and names no file.
 */
int gitconfig_env(char *const *env, const char *home,
		  struct gitconfig_var **vars, size_t *n, char **cause);

void gitconfig_vars_free(struct gitconfig_var *v, size_t n);

#endif /* LLW_GITCONFIG_H */
