/*
 * The command layer (tmux's cmd-*.c behind cmd_table): one file per
 * thing llwrap does, each an entry of cmd_table, which main() (llwrap.c)
 * dispatches to and --help and the shells' completions list.  Only this
 * layer prints and exits (STYLE.md): everything below returns -errno with
 * a cause, or lines to show, and a command says them.
 *
 * A command is chosen by a word in place of COMMAND (why, log: CMD_WORD)
 * or by its option (--check, --learn, ...); the run is the default.  One
 * that needs the policy (CMD_POLICY) gets it resolved for the project
 * main() chose (cmd_project()) and owns it then.
 */
#ifndef LLW_CMD_H
#define LLW_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sandbox.h"

struct policy;

/* llwrap's own failure, as opposed to the command's status. */
#define EXIT_LLWRAP 125

/* A rule flag of the command line (--ro PATH, --connect-tcp PORTS, ...),
 * applied once -C is known ("${PROJECT}" may appear in it). */
struct cmd_flag {
	int opt;
	char *arg;
};

/* What main() read from the command line, for every command. */
struct cmd_ctx {
	char **profiles; /* -p, a FILE made absolute */
	char *directory; /* -C, or NULL */
	char *name;	 /* -n, else the command's basename */
	struct cmd_flag *flags;
	size_t n_flags;
	int *keep; /* --keep-fd */
	size_t n_keep;
	enum sandbox_backend backend;
	bool quiet, verbose, allow_broad;
	char **args; /* a word command's own words, before any "--" */
	char **cmd;  /* the command, or { $SHELL, NULL } */

	/* The project as cmd_project() chose it, where the command starts
	 * when elsewhere, and how it was chosen (policy.h). */
	char *project, *workdir, *project_why;
};

#define CMD_WORD   0x1 /* named by a word in place of COMMAND */
#define CMD_POLICY 0x2 /* resolves the project's policy first */

struct cmd_entry {
	const char *name;  /* the word, or the option without "--" */
	const char *usage; /* "why WHAT [FLAG]" */
	/* A word's lines in --help (a second line after '\n'); an option's
	 * help is the option table's (options.c). */
	const char *help;
	const char *flags; /* a word's own flags, blank-separated */
	int how;	   /* CMD_* */

	/* Returns the exit status.  policy: the resolved policy when
	 * CMD_POLICY (the command frees it), else NULL. */
	int (*exec)(struct cmd_ctx *ctx, struct policy *policy);
};

extern const struct cmd_entry cmd_why_entry;
extern const struct cmd_entry cmd_log_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_selftest_entry;
extern const struct cmd_entry cmd_learn_entry;
extern const struct cmd_entry cmd_explain_entry;
extern const struct cmd_entry cmd_run_entry;

/* Every command, NULL-terminated: the words first, the run last. */
extern const struct cmd_entry *const cmd_table[];

/* The word command named s, or NULL. */
const struct cmd_entry *cmd_find_word(const char *s);

/* --help: the synopsis and the words from cmd_table, the options from
 * the option table, then the profile path and what is on it. */
void cmd_usage(FILE *f, char *const *dirs, char *const *names);

/* cmd_usage() with this environment's profile path and its profiles. */
void cmd_help(FILE *f);

/* Say "llwrap: " and the message on stderr, each line made safe to show
 * (text_shown()), and exit with status. */
void __attribute__((noreturn, format(printf, 2, 3)))
cmd_fatal(int status, const char *fmt, ...);

/* A path argument made absolute against the working directory (~ and $
 * are left for the profile's expansion). */
char *cmd_absolute_path(const char *path);

/* Choose the project (DESIGN.md §11): -C, else the git work tree holding
 * the working directory, else the working directory; refuse a broad one
 * unless --allow-broad-project.  Sets ctx->project and, when the command
 * starts elsewhere, ctx->workdir and ctx->project_why. */
void cmd_project(struct cmd_ctx *ctx);

/* The policy of the command line for project, plus n_extra more flags:
 * exits with the cause when it cannot be resolved. */
struct policy *cmd_resolve(const struct cmd_ctx *ctx, const char *project,
			   const struct cmd_flag *extra, size_t n_extra);

/* [filesystem] copy before a run (copyin.h), what it could not do said
 * unless -q. */
void cmd_copy_in(const struct cmd_ctx *ctx, const struct policy *policy);

/* Free a policy cmd_resolve() made; NULL is fine. */
void cmd_policy_free(struct policy *policy);

/* path resolved as the kernel would (symbolic links followed), whether
 * it exists and is a directory; path itself when it cannot be. */
char *cmd_resolve_path(const char *path, bool *exists, bool *is_dir);

#endif /* LLW_CMD_H */
