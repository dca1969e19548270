/*
 * Reading the blocked-attempt log (DESIGN.md §6, §12) for `llwrap log`:
 * the supervisor's lines
 *
 *   PREFIX: connect tcp 203.0.113.7:443 pid=4242 comm=curl rule=R
 *   PREFIX: suppressed N
 *
 * grouped by what was attempted (operation, protocol, target, rule) and
 * counted, newest first, each with the change that would allow it; the
 * known-harmless probes (nscd and other NSS lookups that fall back by
 * themselves) are summarised once.  Pure: the caller reads the file.
 */
#ifndef LLW_BLOCKED_H
#define LLW_BLOCKED_H

#include <stdbool.h>
#include <stddef.h>

#include "refusal.h"
#include "suggest.h"

/* One parsed line; the strings are new. */
struct blocked_record {
	char *op, *proto, *target, *rule, *comm;
	enum refusal refusal;	  /* rule's, parsed */
	unsigned long suppressed; /* a "suppressed N" line: N, else 0 */
};

void blocked_record_clear(struct blocked_record *r);

/*
 * Parse one line (without its newline).  Returns 0, or -EINVAL for a
 * line that is not the supervisor's.
 */
int blocked_parse_line(const char *line, struct blocked_record *r);

struct blocked_group {
	char *op, *proto, *target, *rule;
	enum refusal refusal; /* rule's, parsed */
	char **comms;	      /* the commands that tried, each once */
	unsigned long count;  /* lines logged */
	size_t last;	      /* the index of its last line */
	const char *harmless; /* what it is, when known-harmless */
};

struct blocked_log {
	struct blocked_group *v;
	size_t n;
	size_t lines;		  /* lines read */
	unsigned long logged;	  /* attempts logged line by line */
	unsigned long suppressed; /* attempts the rate limit did not log */
	unsigned long unparsed;	  /* lines that are not the supervisor's */
	/* Open-addressing index of v by what was attempted: slot holds
	 * i + 1, 0 when free; cap is a power of two (private). */
	size_t *index;
	size_t cap;
};

/* Add the lines of text (a whole file or what was appended to it). */
void blocked_add_text(struct blocked_log *log, const char *text);

void blocked_log_clear(struct blocked_log *log);

/*
 * What would allow a group's attempt, as a profile line and a flag; NULL
 * when no rule can (an abstract socket of the host).  A rule that names
 * a path (a unix socket, a socket's directory) stays within b
 * (suggest.h), or the text says there is no safe one; with b NULL none
 * is suggested.  A new string.
 */
char *blocked_suggest(const char *op, const char *proto, const char *target,
		      const char *rule, const struct suggest_bounds *b);

/*
 * The [network] line of blocked_suggest() alone, "key = value", for a
 * profile (--learn); NULL when the change is not a [network] line.
 */
char *blocked_rule_line(const char *op, const char *proto, const char *target,
			const char *rule, const struct suggest_bounds *b);

/*
 * The report: a header with the totals, the groups newest first (at most
 * max, 0 for all), each with its count, commands and suggestion, then the
 * known-harmless ones in one line each.  A new string.
 */
char *blocked_format(const struct blocked_log *log, const char *name,
		     size_t max, const struct suggest_bounds *b);

/*
 * The footer after a run (DESIGN.md §12): one line naming how
 * many attempts were blocked (known-harmless ones not counted), the most
 * frequent three, and `llwrap log NAME`; NULL when nothing was blocked.
 */
char *blocked_footer(const struct blocked_log *log, const char *name);

/*
 * The agent note (DESIGN.md §12): the line, newline included, that the
 * supervisor appends to a blocked process's standard error when that is
 * a pipe, a socket or a file, so that an agent reading it asks instead
 * of retrying.  NULL for a known-harmless probe (nscd and the like: its
 * caller falls back by itself, and nobody should be asked to allow it).
 */
char *blocked_note(const char *op, const char *proto, const char *target,
		   enum refusal rule, const struct suggest_bounds *b);

/* One attempt as `log --follow` prints it when it arrives. */
char *blocked_format_record(const struct blocked_record *r,
			    const struct suggest_bounds *b);

#endif /* LLW_BLOCKED_H */
