/*
 * The command line's options, one table: the parser's getopt_long()
 * arrays and the text of --help are both made from it (a flag that sets
 * a profile key takes its help from the key table, keys.h), so --help lists
 * every option there is and nothing else (DESIGN.md §3), and
 * tests/unit/test-doc.c checks the manual against it.
 */
#ifndef LLW_OPTIONS_H
#define LLW_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

enum {
	OPT_RO = 0x100,
	OPT_RX,
	OPT_RW,
	OPT_RWX,
	OPT_DENY,
	OPT_NET,
	OPT_CONNECT_TCP,
	OPT_BIND_TCP,
	OPT_CONNECT_UDP,
	OPT_BIND_UDP,
	OPT_ALLOW_CIDR,
	OPT_ALLOW_HOST,
	OPT_PROXY,
	OPT_UNIX,
	OPT_LISTEN,
	OPT_DNS,
	OPT_ENV_KEEP,
	OPT_ENV_SET,
	OPT_ENV_UNSET,
	OPT_KEEP_FD,
	OPT_BEST_EFFORT,
	OPT_BACKEND,
	OPT_EXPLAIN,
	OPT_CHECK,
	OPT_SELFTEST,
	OPT_WHY,
	OPT_ALLOW_BROAD_PROJECT,
	OPT_LEARN,
	OPT_TIMEOUT,
};

struct options_spec {
	const char *name; /* long name, without "--" */
	int has_arg;	  /* no_argument or required_argument */
	int val;	  /* the short option character, or OPT_* */
	const char *arg;  /* the argument's name in --help, or NULL */
	const char *group;
	/* One line; a second line (after '\n') is indented under it.  NULL
	 * for a flag that sets a profile key: the key table (keys.h) has
	 * its help, with what it sets. */
	const char *help;
};

extern const struct options_spec options_specs[];
extern const size_t options_n_specs;

/* s's help: its own, or its key's (keys.h). */
const char *options_help(const struct options_spec *s);

/* The option whose val is val, or NULL. */
const struct options_spec *options_find(int val);

/* What an option's value is, for the shells' completions (made from
 * this table at build time, src/completion-gen.c). */
enum options_value {
	OPTIONS_VALUE_NONE,    /* the option takes no value */
	OPTIONS_VALUE_TEXT,    /* ports, addresses, names: nothing to offer */
	OPTIONS_VALUE_PATH,    /* a file or directory */
	OPTIONS_VALUE_DIR,     /* a directory */
	OPTIONS_VALUE_PROFILE, /* a profile NAME on the profile path, or a FILE
				*/
	OPTIONS_VALUE_WORDS,   /* one of the words of arg ("auto|landlock") */
	OPTIONS_VALUE_ENV,     /* an environment variable's name */
};

/* What s's value is, read from its argument's name in --help ("PATH",
 * "DIR", "NAME|FILE", "NAME|GLOB", lower-case words between '|'). */
enum options_value options_value(const struct options_spec *s);

/* The getopt_long() array for the table, NULL-terminated; a new array. */
struct option *options_long(void);

/* The getopt_long() short option string ("+p:C:..."); a new string. */
char *options_short(void);

/* Write the options part of --help: the table grouped (the rest is the
 * command layer's, cmd_usage()). */
void options_usage(FILE *f);

/* "  -p, --profile NAME|FILE" (left) padded to the help column, then the
 * help, its second line indented under it. */
void options_usage_line(FILE *f, const char *left, const char *help);

#endif /* LLW_OPTIONS_H */
