/*
 * The key table: one row per profile key (DESIGN.md §4, llwrap.ini(5)),
 * the one place a key is spelled.  A row says the key's section and
 * name, the grammar of its value (value.h) with its choices, how
 * sources merge (the merge rule), what a project's .llwrap.ini may do
 * with it (the tighten rule), and the command-line flag that sets it.
 * profile.c parses with it, policy.c merges by it, llwrap.c turns flags
 * into keys with it, and tests/unit/test-keys.c checks the manual, the
 * option table and the grammars against it.  tmux's options-table.c is
 * the model.
 *
 * Pure data: nothing here parses or allocates.
 */
#ifndef LLW_KEYS_H
#define LLW_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* Every key, in the table's order. */
enum key_id {
	KEY_INCLUDE,
	KEY_DESCRIPTION,
	KEY_BEST_EFFORT,
	KEY_RO,
	KEY_RX,
	KEY_RW,
	KEY_RWX,
	KEY_DENY,
	KEY_MKDIR,
	KEY_GIT_CONFIG,
	KEY_TOUCH,
	KEY_COPY,
	KEY_PRIVATE_TMP,
	KEY_PROTECT_GIT,
	KEY_PROTECT_LATER_RUN,
	KEY_MODE,
	KEY_CONNECT_TCP,
	KEY_BIND_TCP,
	KEY_CONNECT_UDP,
	KEY_BIND_UDP,
	KEY_UNIX_SOCKETS,
	KEY_ALLOW_CIDR,
	KEY_ALLOW_HOST,
	KEY_UNIX,
	KEY_LISTEN,
	KEY_DNS,
	KEY_SUPERVISE,
	KEY_PROXY,
	KEY_LOG_BLOCKED,
	KEY_LOG_PREFIX,
	KEY_LOG_STDERR,
	KEY_ENV_KEEP,
	KEY_ENV_SET,
	KEY_ENV_UNSET,
	KEY_PTRACE,
	KEY_HIDE_PROCESSES,
	KEY_TMPFS_SIZE,
	KEY_MEMORY,
	KEY_FILE_SIZE,
	KEY_PROCESSES,
	KEY_FILES,
	KEY_CPU,
	KEY_TIMEOUT,
	KEY_MEMORY_MAX,
	KEY_PIDS_MAX,
	KEY_MATCH_COMMAND,
	KEY_MATCH_PROFILE,
	KEY_MATCH_PROJECT,
	KEY_COUNT
};

/* The grammar of a key's value (value.h), and how it is split. */
enum key_type {
	KEY_T_PATHS,	/* absolute paths, expanded, normalised */
	KEY_T_PORTS,	/* port ranges, split on blanks and commas */
	KEY_T_TEXT,	/* free text, one value, not expanded */
	KEY_T_BOOL,	/* yes | no */
	KEY_T_CHOICE,	/* one of choices */
	KEY_T_SIZE,	/* BYTES[K|M|G] or PERCENT% (of memory) */
	KEY_T_BYTES,	/* BYTES[K|M|G] */
	KEY_T_COUNT,	/* a positive decimal number */
	KEY_T_DURATION, /* SECONDS[s|m|h|d] */
	KEY_T_CIDRS,	/* CIDR[:PORTS] */
	KEY_T_LISTEN,	/* ADDR:PORT, [V6]:PORT */
	KEY_T_ADDRS,	/* IP addresses */
	KEY_T_HOSTS,	/* NAME or *.NAME, with optional :PORTS */
	KEY_T_ENVGLOBS, /* names or fnmatch globs */
	KEY_T_ENVSET,	/* NAME=VALUE */
	KEY_T_INCLUDES, /* profile NAMEs or FILEs */
	KEY_T_COMMANDS, /* command basenames */
	KEY_T_NAMES,	/* profile names */
};

/* How the sources of a run combine a key (policy_resolve).  "none",
 * alone on its line, clears what less specific sources set: a list
 * empties, a scalar goes back to its built-in default. */
enum key_merge {
	KEY_MERGE_SCALAR, /* one value; the most specific source's stands */
	KEY_MERGE_LIST,	  /* appended in source order, each value once */
	KEY_MERGE_PATHS,  /* path rules; at one path the highest rank wins
			   * (pathtree.h); none drops the key's level */
	KEY_MERGE_PORTS,  /* port ranges appended; in .llwrap.ini the
			   * lines keep a subset of the ports before it */
	KEY_MERGE_ENV,	  /* keep, then unset, then set; a later source's
			   * keep or unset undoes an earlier one (§7) */
	KEY_MERGE_JOIN,	  /* text joined with a blank */
	KEY_MERGE_SOURCE, /* read before the merge: which sources apply */
};

/* What a project's .llwrap.ini, which may only tighten, may do with a
 * key. */
enum key_tighten {
	KEY_TIGHTEN_FREE,   /* anything: the key restricts, or says nothing */
	KEY_TIGHTEN_NARROW, /* values checked against what less specific
			     * sources allow (policy_resolve); not none */
	KEY_TIGHTEN_ONLY,   /* only the value key->only */
	KEY_TIGHTEN_NEVER,  /* not at all */
};

struct key {
	enum key_id id;
	const char *section, *name;
	enum key_type type;
	const char *const *choices; /* KEY_T_CHOICE's words, NULL-ended */
	enum key_merge merge;
	enum key_tighten tighten;
	const char *only; /* KEY_TIGHTEN_ONLY: the one value allowed */
	/* Why .llwrap.ini may not (NEVER, ONLY; NARROW: why not none). */
	const char *why;
	/* The long option that sets it on the command line, or NULL: the
	 * option table (options.h) has the flag, this row its meaning. */
	const char *flag;
	/* What the key does: the flag's help in --help (a second line
	 * after '\n'), or for a key without a flag one line
	 * (llwrap.ini(5) has the whole story). */
	const char *help;
};

extern const struct key keys_table[KEY_COUNT];

/* The row of section's key name, or NULL. */
const struct key *keys_find(const char *section, const char *name);

/* The section a key of this name belongs in when it is in exactly one,
 * else NULL. */
const char *keys_section_of(const char *name);

/* Whether any key is in section. */
bool keys_section_known(const char *section);

/* The key the long option flag sets, or NULL. */
const struct key *keys_by_flag(const char *flag);

/* Whether the key takes exactly one value. */
bool keys_single(const struct key *k);

#endif /* LLW_KEYS_H */
