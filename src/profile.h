/*
 * Profiles: INI files (parsed with inih) turned into a list of validated,
 * variable-expanded entries, each with its file and line.  The command line
 * is a profile too (file "command line"), built with profile_add(), so flags
 * and files go through one validation and one precedence path.
 *
 * Format: DESIGN.md §4 and doc/llwrap.ini.5.
 */
#ifndef LLW_PROFILE_H
#define LLW_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line accepted, in bytes without the newline (inih r55 splits
 * longer lines silently, so profile_parse rejects them first). */
#define LLW_PROFILE_LINE_MAX 190
/* Longest section name accepted (inih r55 truncates at 49). */
#define LLW_PROFILE_SECTION_MAX 40

/*
 * Values for ${VAR} expansion.  Built by vars_new() from an environment and
 * the project/name; every XDG_*_HOME has its XDG default when unset.
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

enum profile_kind {
	PROFILE_KIND_NORMAL,  /* built-in, -p, included, matched */
	PROFILE_KIND_PROJECT, /* the project's .llwrap.ini: tighten only */
	PROFILE_KIND_CLI,     /* command-line flags */
	/* The profile path scan: every line is checked as for NORMAL (line
	 * length, section names, "key = value"), but only [match] is
	 * parsed; the rest waits for a full parse if [match] holds. */
	PROFILE_KIND_MATCH,
};

struct profile_entry {
	char *section; /* "filesystem", "network", ... */
	char *key;     /* "rw", "connect-tcp", ... */
	char **values; /* split on blanks, variables expanded; "none" kept */
	unsigned line; /* 0 for the command line */
};

struct profile {
	char *file; /* absolute path, "command line" or "built-in NAME" */
	enum profile_kind kind;
	struct profile_entry *entries;
	size_t n_entries;
	char *description;
	char **includes;      /* [profile] include, in order, as written */
	char **match_command; /* [match] command */
	char **match_project; /* [match] project, expanded, absolute */
	char **match_profile; /* [match] profile: names of the run's profiles */
};

struct profile *profile_new(const char *file, enum profile_kind kind);
void profile_free(struct profile *p);

/*
 * Add one key = value to p after checking that the section and key exist,
 * that the kind of profile may use the key, and that the value is
 * well-formed (absolute paths, port ranges, access levels, booleans).
 * Variables are expanded with v.  line is used in messages.
 * Returns 0, or -EINVAL with *cause set ("FILE:LINE: ...").
 */
int profile_add(struct profile *p, const struct vars *v, const char *section,
		const char *key, const char *value, unsigned line,
		char **cause);

/*
 * Parse text (the contents of file) into a new profile.  Rejects over-long
 * lines and section names, unknown sections/keys/variables, relative paths,
 * and anything profile_add() rejects, naming file:line.
 */
int profile_parse_string(const char *file, const char *text,
			 enum profile_kind kind, const struct vars *v,
			 struct profile **out, char **cause);

/* Read a profile file into a new string in *text; an unreadable file (or
 * one with a NUL byte) is an error naming it. */
int profile_read_file(const char *file, char **text, char **cause);

/* Read and parse a file; an unreadable file is an error naming it. */
int profile_parse_file(const char *file, enum profile_kind kind,
		       const struct vars *v, struct profile **out,
		       char **cause);

/* The keys profiles may use, and their grammars: keys.h. */

/*
 * The text of a built-in profile ("empty", "default"), or NULL.  These are
 * compiled in so llwrap works before anything is installed.
 */
const char *profile_builtin(const char *name);

#endif /* LLW_PROFILE_H */
