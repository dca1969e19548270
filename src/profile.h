/*
 * Profiles: INI files (parsed with inih) turned into a list of entries,
 * each a key of the key table (keys.h) with its values parsed once into
 * typed values (value.h, variables expanded), and its file and line.  The
 * command line is a profile too (file "command line"), built with
 * profile_add(), so flags and files go through one parse and one
 * precedence path.
 *
 * Format: DESIGN.md §4 and doc/llwrap.ini.5.
 */
#ifndef LLW_PROFILE_H
#define LLW_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"
#include "value.h"
#include "vars.h"

/* Longest line accepted, in bytes without the newline (inih r55 splits
 * longer lines silently, so profile_parse rejects them first). */
#define LLW_PROFILE_LINE_MAX 190
/* Longest section name accepted (inih r55 truncates at 49). */
#define LLW_PROFILE_SECTION_MAX 40

enum profile_kind {
	PROFILE_KIND_NORMAL,  /* built-in, -p, included, matched */
	PROFILE_KIND_PROJECT, /* the project's .llwrap.ini: tighten only */
	PROFILE_KIND_CLI,     /* command-line flags */
	/* The profile path scan: every line is checked as for NORMAL (line
	 * length, section names, "key = value"), but only [match] is
	 * parsed; the rest waits for a full parse if [match] holds. */
	PROFILE_KIND_MATCH,
};

/*
 * One value of a key, parsed once with the key's grammar (keys.h,
 * value.h): what the policy merges, never text to parse again.
 */
struct profile_value {
	union {
		/* Paths (expanded, normalised), text, environment names,
		 * globs and NAME=VALUE (expanded), includes, names. */
		char *text;
		struct llw_port_range ports; /* one range; origin NULL */
		bool yes;
		unsigned choice; /* index in the key's choices */
		uint64_t n;	 /* bytes, count, seconds */
		struct {
			uint64_t bytes;
			unsigned percent;
		} size;
		struct netpolicy_cidr cidr; /* origin NULL */
		struct netpolicy_addr addr; /* listen, dns */
		struct hostrule host;	    /* origin NULL */
	} u;
	bool optional; /* "?PATH": may be missing, dropped quietly */
};

/* One "key = value" line: where it was, which key, its values. */
struct profile_entry {
	const struct key *key;
	bool none; /* "none": clears what less specific sources set */
	struct profile_value *values; /* split on blanks; none: none */
	size_t n_values;
	unsigned line; /* 0 for the command line */
};

/* v, a value of key k, as a profile would write it (canonical: "?/a",
 * "8000-8100", "10.0.0.0/8:443", "512M", "30m"); a new string. */
char *profile_value_format(const struct key *k, const struct profile_value *v);

struct profile {
	char *file; /* absolute path, "command line" or "built-in NAME" */
	enum profile_kind kind;
	struct profile_entry *entries;
	size_t n_entries, cap_entries;
	char *description;
	char **includes;      /* [profile] include, in order, as written */
	char **match_command; /* [match] command */
	char **match_project; /* [match] project, expanded, absolute */
	char **match_profile; /* [match] profile: names of the run's profiles */
};

struct profile *profile_new(const char *file, enum profile_kind kind);
void profile_free(struct profile *p);

/*
 * Add one key = value to p after checking that the section and key exist
 * and that the kind of profile may use the key (a project's .llwrap.ini:
 * the key's tighten rule), parsing each value with the key's grammar.
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
