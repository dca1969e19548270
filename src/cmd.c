/*
 * What every command shares (see cmd.h): the dispatch table, --help made
 * from it, the fatal message, the project chosen and the command line
 * turned into a policy.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cmd.h"
#include "copyin.h"
#include "keys.h"
#include "options.h"
#include "path.h"
#include "pathtree.h"
#include "planner.h"
#include "policy.h"
#include "profile.h"
#include "project.h"
#include "strv.h"
#include "text.h"
#include "xalloc.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_why_entry,	  &cmd_log_entry,
	&cmd_check_entry, &cmd_selftest_entry,
	&cmd_learn_entry, &cmd_explain_entry,
	&cmd_run_entry,	  NULL,
};

const struct cmd_entry *
cmd_find_word(const char *s)
{
	for (const struct cmd_entry *const *e = cmd_table; *e != NULL; e++)
		if (((*e)->how & CMD_WORD) && strcmp((*e)->name, s) == 0)
			return *e;
	return NULL;
}

void
cmd_help(FILE *f)
{
	_cleanup_strv_ char **dirs =
		policy_profile_path(environ, LLW_SYSCONFDIR, LLW_DATADIR);
	_cleanup_strv_ char **names = policy_profile_names(dirs);

	cmd_usage(f, dirs, names);
}

void
cmd_usage(FILE *f, char *const *dirs, char *const *names)
{
	const struct cmd_entry *const *e;

	fputs("Usage: llwrap [OPTIONS] [--] [COMMAND [ARG...]]\n", f);
	for (e = cmd_table; *e != NULL; e++)
		if ((*e)->how & CMD_WORD)
			fprintf(f, "       llwrap %s%s\n",
				((*e)->how & CMD_POLICY) ? "[OPTIONS] " : "",
				(*e)->usage);
	fputs("Run COMMAND (default: $SHELL) in a sandbox it cannot widen.\n",
	      f);
	options_usage(f);
	fputs("\nSubcommands (in place of COMMAND; after -- they are "
	      "commands)\n",
	      f);
	for (e = cmd_table; *e != NULL; e++) {
		char left[80];

		if (!((*e)->how & CMD_WORD))
			continue;
		snprintf(left, sizeof(left), "  %s", (*e)->usage);
		options_usage_line(f, left, (*e)->help);
	}
	fputs("\nProfile path (first NAME.ini found wins):\n", f);
	for (char *const *d = dirs; d != NULL && *d != NULL; d++)
		fprintf(f, "  %s\n", *d);
	fputs("Profiles:", f);
	for (char *const *n = names; n != NULL && *n != NULL; n++)
		fprintf(f, " %s", *n);
	fputs(" (built in: empty default)\n", f);
	fputs("\nExit status: the command's, 125 for an llwrap error, 126 "
	      "command not\nexecutable, 127 command not found.  See "
	      "llwrap(1) and llwrap.ini(5).\n",
	      f);
}

void
cmd_fatal(int status, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	/* Messages quote what files and flags said (a project's
	 * .llwrap.ini among them): line by line, shown as text, never as
	 * the terminal's control sequences. */
	fputs("llwrap: ", stderr);
	for (char *l = msg, *e; l != NULL; l = e != NULL ? e + 1 : NULL) {
		_cleanup_free_ char *shown = NULL;

		e = strchr(l, '\n');
		if (e != NULL)
			*e = '\0';
		shown = text_shown(l);
		fputs(shown, stderr);
		if (e != NULL)
			fputc('\n', stderr);
	}
	fputc('\n', stderr);
	/* exit() runs no cleanup attribute: freed here, or a leak checker
	 * reports it and turns the status into its own. */
	free(msg);
	exit(status);
}

char *
cmd_absolute_path(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || path[0] == '~' || path[0] == '$')
		return xstrdup(path);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cmd_fatal(EXIT_LLWRAP, "cannot get the current directory: %s",
			  strerror(errno));
	return xasprintf("%s/%s", cwd, path);
}

/*
 * A command-line rule: the key the key table gives the flag (keys.h),
 * given to the command-line profile like a line of a file, so flags and
 * files go through one validation.  Relative paths are taken from the
 * working directory; a flag without a value sets its key to yes.
 */
static void
add_flag(struct profile *cli, const struct vars *v, int opt, const char *arg)
{
	_cleanup_free_ char *value = NULL;
	_cleanup_free_ char *cause = NULL;
	const struct options_spec *spec = options_find(opt);
	const struct key *k;

	/* --learn's own run: the supervisor observes it. */
	if (opt == OPT_LEARN)
		k = keys_find("network", "supervise");
	else if (spec == NULL || (k = keys_by_flag(spec->name)) == NULL)
		return;
	if (opt == OPT_LEARN || spec->has_arg == no_argument)
		value = xstrdup("yes");
	else if (k->type == KEY_T_PATHS)
		value = cmd_absolute_path(arg);
	else
		value = xstrdup(arg);
	if (profile_add(cli, v, k->section, k->name, value, 0, &cause) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
}

/*
 * DESIGN.md §11: the home directory, an ancestor of it or / is refused
 * as the project unless --allow-broad-project; a project reached through
 * a symbolic link is named as it resolves, so that the user sees which
 * directory becomes writable.  given is the directory as given (-C) or
 * ".", from_cwd whether it is the working directory, and top, when not
 * NULL, the top level of the git work tree that holds it, which is the
 * project then.
 */
static void
check_project(const struct cmd_ctx *ctx, const char *given, bool from_cwd,
	      const char *real, const char *top)
{
	const char *home = getenv("HOME");
	_cleanup_free_ char *home_real = NULL, *why = NULL;
	const char *spelled = given;

	if (home != NULL && *home == '/')
		home_real = realpath(home, NULL);
	why = policy_broad_project(top != NULL ? top : real, home_real);
	if (why != NULL && !ctx->allow_broad && top != NULL)
		cmd_fatal(EXIT_LLWRAP,
			  "refusing to run: the working directory %s is in the "
			  "git "
			  "work tree %s, which would be the project, and %s; "
			  "name "
			  "the project with -C (-C . for the working directory "
			  "alone), or pass --allow-broad-project to run there "
			  "anyway",
			  real, top, why);
	if (why != NULL && !ctx->allow_broad)
		cmd_fatal(EXIT_LLWRAP,
			  "refusing to run: %s; start llwrap in the project "
			  "directory (or name it with -C), or pass "
			  "--allow-broad-project to run there anyway",
			  why);
	if (why != NULL && !ctx->quiet)
		fprintf(stderr,
			"llwrap: warning: %s (allowed by "
			"--allow-broad-project)\n",
			why);
	/* The working directory as the shell spells it. */
	if (from_cwd) {
		const char *pwd = getenv("PWD");
		_cleanup_free_ char *pwd_real = NULL;

		if (pwd == NULL || *pwd != '/' ||
		    (pwd_real = realpath(pwd, NULL)) == NULL ||
		    strcmp(pwd_real, real) != 0)
			return;
		spelled = pwd;
	}
	if (spelled[0] == '/' && strcmp(spelled, real) != 0 && !ctx->quiet) {
		_cleanup_free_ char *norm = path_normalise(spelled);

		if (strcmp(norm, real) != 0)
			fprintf(stderr,
				"llwrap: note: the %s %s is reached "
				"through a symbolic link; the sandbox grants "
				"%s\n",
				top != NULL ? "working directory" : "project",
				spelled, top != NULL ? top : real);
	}
}

/*
 * Without -C: the top level of the git work tree that holds the working
 * directory real, as git finds it (GIT_CEILING_DIRECTORIES included), or
 * NULL when there is none or it is real itself.
 */
static char *
git_toplevel(const char *real)
{
	const char *env = getenv("GIT_CEILING_DIRECTORIES");
	_cleanup_strv_ char **ceilings = NULL;
	char *top;

	if (env != NULL && *env != '\0') {
		_cleanup_free_ char *copy = xstrdup(env);
		char *save = NULL;

		for (char *c = strtok_r(copy, ":", &save); c != NULL;
		     c = strtok_r(NULL, ":", &save))
			strv_push(&ceilings, c);
	}
	top = project_toplevel(real, ceilings, &project_fs_real);
	if (top != NULL && strcmp(top, real) == 0) {
		free(top);
		top = NULL;
	}
	return top;
}

void
cmd_project(struct cmd_ctx *ctx)
{
	char *dir = ctx->directory ? ctx->directory : ".";
	char *real = realpath(dir, NULL);
	char *top;

	if (real == NULL)
		cmd_fatal(EXIT_LLWRAP, "project directory %s: %s", dir,
			  strerror(errno));
	/* Started in a subdirectory of a repository, the project is its
	 * work tree, where git works; -C says otherwise. */
	top = ctx->directory == NULL ? git_toplevel(real) : NULL;
	check_project(ctx, dir, ctx->directory == NULL, real, top);
	if (top != NULL) {
		ctx->workdir = real;
		ctx->project_why = xasprintf(
			"the top level of the git work tree that holds the "
			"working directory %s, where the command starts (-C "
			"names another project)",
			real);
		ctx->project = top;
	} else {
		ctx->project = real;
	}
}

struct policy *
cmd_resolve(const struct cmd_ctx *ctx, const char *project,
	    const struct cmd_flag *extra, size_t n_extra)
{
	_cleanup_strv_ char **path = NULL;
	_cleanup_free_ char *cause = NULL;
	struct vars *vars = vars_new(environ, project, ctx->name);
	struct profile *cli = profile_new("command line", PROFILE_KIND_CLI);
	struct policy *policy = NULL;
	int r;

	for (size_t i = 0; i < ctx->n_flags; i++)
		add_flag(cli, vars, ctx->flags[i].opt, ctx->flags[i].arg);
	for (size_t i = 0; i < n_extra; i++)
		add_flag(cli, vars, extra[i].opt, extra[i].arg);
	path = policy_profile_path(environ, LLW_SYSCONFDIR, LLW_DATADIR);
	{
		bool ours = ctx->project != NULL &&
			    strcmp(project, ctx->project) == 0;
		struct policy_request req = {
			.envp = environ,
			.project = project,
			.workdir = ours ? ctx->workdir : NULL,
			.project_why = ours ? ctx->project_why : NULL,
			.command = ctx->cmd[0],
			.name = ctx->name,
			.profiles = ctx->profiles,
			.profile_path = path,
			.cli = cli,
			.read_project_file = true,
			.as_root = getuid() == 0 || geteuid() == 0,
			.resolve = pathtree_fs_real.resolve,
		};

		r = policy_resolve(&req, &policy, &cause);
	}
	profile_free(cli);
	vars_free(vars);
	if (r < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	return policy;
}

/*
 * Whether some copy has a source to copy, or says something: a copy of
 * a missing ?SOURCE is skipped quietly, and when every copy is one, the
 * configured rules are not resolved for them (the agent profiles' copies
 * of login files a user may not have; issue 29).
 */
static bool
copy_in_needed(const struct llw_copy *copies, size_t n)
{
	struct stat st;

	for (size_t i = 0; i < n; i++)
		if (!copies[i].optional || stat(copies[i].src, &st) == 0 ||
		    errno != ENOENT)
			return true;
	return false;
}

void
cmd_copy_in(const struct cmd_ctx *ctx, const struct policy *policy)
{
	_cleanup_strv_ char **notes = NULL;
	struct plan_conf conf;
	struct plan *src;

	/* Before the plan: its configuration as the planner gives it. */
	planner_conf(policy, false, &conf);
	if (copy_in_needed(conf.copies, conf.n_copies)) {
		/* The configured rules at their resolved paths: the sandbox
		 * is compiled after the copies are made (a copy may be a
		 * path it grants). */
		src = planner_sources(policy);
		copyin_run(conf.copies, conf.n_copies, conf.project, src,
			   &notes);
		plan_free(src);
	}
	for (char **n = notes; n != NULL && *n != NULL && !ctx->quiet; n++)
		fprintf(stderr, "llwrap: %s.\n", *n);
}

void
cmd_policy_free(struct policy *policy)
{
	policy_free(policy);
}

char *
cmd_resolve_path(const char *path, bool *exists, bool *is_dir)
{
	const struct pathtree_fs *fs = &pathtree_fs_real;
	char *out = NULL;
	int r;

	*exists = *is_dir = false;
	if (fs->resolve(fs->ctx, path, &out) < 0)
		return xstrdup(path);
	r = fs->stat(fs->ctx, out, is_dir);
	*exists = r == 1;
	return out;
}
