/*
 * llwrap: run a command inside a sandbox it cannot widen.
 *
 * main() only: the options read through the option table (options.c)
 * into the commands' context, the command chosen from cmd_table (cmd.h:
 * a word in place of COMMAND, else the option that names it, else the
 * run), the project and the policy resolved when it needs them, and its
 * exit status returned.  The commands are cmd-*.c; only they and this
 * file print and exit (STYLE.md).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"
#include "options.h"
#include "sandbox.h"
#include "strv.h"
#include "xalloc.h"

static void
usage(FILE *f)
{
	cmd_help(f);
}

static int
parse_fd(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || n < 0 || n > INT_MAX)
		cmd_fatal(EXIT_LLWRAP,
			  "--keep-fd %s: not a file descriptor number", s);
	return (int)n;
}

static enum sandbox_backend
parse_backend(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return SANDBOX_BACKEND_AUTO;
	if (strcmp(s, "landlock") == 0)
		return SANDBOX_BACKEND_LANDLOCK;
	if (strcmp(s, "bwrap") == 0)
		return SANDBOX_BACKEND_BWRAP;
	cmd_fatal(EXIT_LLWRAP, "--backend %s: expected auto, landlock or bwrap",
		  s);
}

/* What main() allocated for the command, freed once it returns. */
static void
ctx_clear(struct cmd_ctx *ctx)
{
	strv_free(ctx->profiles);
	strv_free(ctx->args);
	free(ctx->directory);
	free(ctx->name);
	free(ctx->flags);
	free(ctx->keep);
	free(ctx->project);
	free(ctx->workdir);
	free(ctx->project_why);
}

int
main(int argc, char **argv)
{
	struct cmd_ctx ctx = { .backend = SANDBOX_BACKEND_AUTO };
	const struct cmd_entry *entry = NULL, *word;
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ char *shortopts = NULL;
	const char *why_what = NULL;
	bool explain = false, check = false, selftest = false, learn = false;
	char *default_argv[2] = { NULL, NULL };
	char **cmd, **words = NULL;
	struct policy *policy;
	int c, status;

	options = options_long();
	shortopts = options_short();
	while ((c = getopt_long(argc, argv, shortopts, options, NULL)) != -1) {
		switch (c) {
		case 'p':
			strv_push_take(&ctx.profiles,
				       strchr(optarg, '/')
					       ? cmd_absolute_path(optarg)
					       : xstrdup(optarg));
			break;
		case 'C':
			free(ctx.directory);
			ctx.directory = xstrdup(optarg);
			break;
		case 'n':
			free(ctx.name);
			ctx.name = xstrdup(optarg);
			break;
		case OPT_KEEP_FD:
			ctx.keep = xreallocarray(ctx.keep, ctx.n_keep + 1,
						 sizeof(int));
			ctx.keep[ctx.n_keep++] = parse_fd(optarg);
			break;
		case OPT_BACKEND:
			ctx.backend = parse_backend(optarg);
			break;
		case OPT_EXPLAIN:
			explain = true;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_SELFTEST:
			selftest = true;
			break;
		case OPT_LEARN:
			learn = true;
			break;
		case OPT_ALLOW_BROAD_PROJECT:
			ctx.allow_broad = true;
			break;
		case OPT_WHY:
			/* What follows is why's own: --exec, --connect, ... */
			why_what = optarg;
			goto options_done;
		case 'v':
			ctx.verbose = true;
			break;
		case 'q':
			ctx.quiet = true;
			break;
		case 'V':
			printf("llwrap %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			fprintf(stderr, "Try 'llwrap --help'.\n");
			return EXIT_LLWRAP;
		default:
			/* Rules are applied after -C is known, since
			 * ${PROJECT} may appear in them. */
			ctx.flags = xreallocarray(ctx.flags, ctx.n_flags + 1,
						  sizeof(*ctx.flags));
			ctx.flags[ctx.n_flags].opt = c;
			ctx.flags[ctx.n_flags++].arg = optarg;
			break;
		}
	}

options_done:
	cmd = argv + optind;
	/* --check first; then why and its words; then a word of cmd_table
	 * in place of the command (not after "--": there it is a command);
	 * then the options that name a command; then the run. */
	if (check) {
		entry = &cmd_check_entry;
	} else if (why_what != NULL) {
		entry = &cmd_why_entry;
		strv_push(&ctx.args, why_what);
		words = cmd;
	} else if (*cmd != NULL && strcmp(argv[optind - 1], "--") != 0 &&
		   (word = cmd_find_word(*cmd)) != NULL) {
		entry = word;
		words = cmd + 1;
	} else {
		entry = learn	   ? &cmd_learn_entry
			: selftest ? &cmd_selftest_entry
			: explain  ? &cmd_explain_entry
				   : &cmd_run_entry;
	}

	/* A command that needs the policy takes its words up to "--" and
	 * the command after it ("llwrap why PATH -- CMD": the policy CMD
	 * would get); one that needs none takes them all. */
	if (words != NULL) {
		char **a = words;

		for (; *a != NULL; a++) {
			if ((entry->how & CMD_POLICY) &&
			    strcmp(*a, "--") == 0) {
				a++;
				break;
			}
			strv_push(&ctx.args, *a);
		}
		cmd = a;
	}
	if (!(entry->how & CMD_POLICY)) {
		status = entry->exec(&ctx, NULL);
		ctx_clear(&ctx);
		return status;
	}

	if (*cmd == NULL) {
		const char *shell = getenv("SHELL");

		default_argv[0] = (char *)(shell && *shell ? shell : "/bin/sh");
		cmd = default_argv;
	}
	ctx.cmd = cmd;
	cmd_project(&ctx);
	if (ctx.name == NULL) {
		_cleanup_free_ char *copy = xstrdup(cmd[0]);

		ctx.name = xstrdup(basename(copy));
	}
	policy = cmd_resolve(&ctx, ctx.project, NULL, 0);
	status = entry->exec(&ctx, policy);
	ctx_clear(&ctx);
	return status;
}
