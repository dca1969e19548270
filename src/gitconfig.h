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

#endif /* LLW_GITCONFIG_H */
