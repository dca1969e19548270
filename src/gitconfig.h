/*
 * The files a git configuration file makes git read (DESIGN.md §10): the
 * `[filesystem] git-config` key grants them read-only so git keeps
 * working with the user's configuration, includes and all, and nothing
 * else of the home becomes readable.  Pure: text in, paths out.
 */
#ifndef LLW_GITCONFIG_H
#define LLW_GITCONFIG_H

/*
 * The paths text (the contents of the config file at file) names:
 * include.path and includeIf.*.path (relative to file's directory, "~/"
 * from home), core.excludesFile and core.attributesFile (absolute or
 * "~/").  Every include is listed whatever its condition.  Returns a new
 * vector of absolute paths, each prefixed by 'i' for an include (a config
 * file in turn) or 'f' for a plain file; paths git could not resolve
 * either ("~user/", a relative core.* path) are left out.
 */
char **gitconfig_paths(const char *text, const char *file, const char *home);

#endif /* LLW_GITCONFIG_H */
