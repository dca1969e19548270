/*
 * The default command: run COMMAND (default: $SHELL) in the sandbox the
 * policy gives, say before it what is not enforced and what the network
 * refuses, and after it what was blocked (the footer), what a limit
 * stopped and what the check of files run later found.  The exit status
 * is the command's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blocked.h"
#include "cleanup.h"
#include "cmd.h"
#include "fdutil.h"
#include "monitor.h"
#include "netpolicy.h"
#include "resources.h"
#include "sandbox.h"
#include "strv.h"
#include "text.h"
#include "xalloc.h"

/*
 * The footer (DESIGN.md §12): once the command is gone, whatever its
 * status, one line on stderr about what the supervisor blocked during
 * the run, read from what it appended to the log since offset off.
 * Never over a TUI: on a terminal that another process group holds in
 * the foreground (llwrap ran as a background job, and the user is in an
 * editor), nothing is printed; the log keeps it.
 */
static void
print_footer(const char *path, off_t off, const char *name)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	_cleanup_free_ char *text = NULL, *line = NULL;
	struct blocked_log log = { 0 };
	pid_t fg;

	if (isatty(STDERR_FILENO) && (fg = tcgetpgrp(STDERR_FILENO)) > 0 &&
	    fg != getpgrp())
		return;
	if (fd < 0 || lseek(fd, off, SEEK_SET) < 0 ||
	    fd_read_all(fd, 1 << 24, &text, NULL) < 0)
		return;
	blocked_add_text(&log, text);
	line = blocked_footer(&log, name);
	blocked_log_clear(&log);
	if (line != NULL)
		fprintf(stderr, "%s\n", line);
}

static int
cmd_run_exec(struct cmd_ctx *ctx, struct policy *policy)
{
	_cleanup_free_ char *cause = NULL, *footer_log = NULL;
	char **cmd = ctx->cmd;
	struct sandbox *sb = NULL;
	off_t footer_off = 0;
	int r, status;

	/* No rule lets anything execute: the command cannot start,
	 * whatever it is.  The usual cause is a profile that
	 * includes no base profile. */
	if (!planner_executes(policy)) {
		_cleanup_free_ char *given =
			ctx->profiles && *ctx->profiles
				? strv_join(ctx->profiles, ", ")
				: xstrdup("default");

		cmd_fatal(EXIT_LLWRAP,
			  "the policy lets nothing execute (no rx or rwx "
			  "rule), so %s cannot start: the profiles given "
			  "(%s) include no base profile; add 'include = "
			  "default' under [profile] (or 'include = "
			  "empty' "
			  "for programs and libraries alone)",
			  cmd[0], given);
	}
	if ((r = sandbox_make_dirs(policy, NULL, &cause)) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	cmd_copy_in(ctx, policy);
	if ((r = sandbox_prepare_run(policy, ctx->backend, &sb, &cause)) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	if (sb->must_fail)
		cmd_fatal(EXIT_LLWRAP, "%s", sb->fail_cause);
	if (!ctx->quiet) {
		if (getuid() == 0 || geteuid() == 0)
			fprintf(stderr,
				"llwrap: %s runs as root; root's secrets "
				"(/etc/shadow, sudoers, SSH host keys) are "
				"denied, the rest of the policy is as "
				"configured.\n",
				cmd[0]);
		/* A mistyped path is the common case: say so once. */
		for (char **n = sb->fs->missing; n != NULL && *n != NULL; n++) {
			_cleanup_free_ char *shown = text_shown(*n);

			fprintf(stderr, "llwrap: %s.\n", shown);
		}
		for (char **n = sb->not_enforced; n != NULL && *n != NULL;
		     n++) {
			_cleanup_free_ char *shown = text_shown(*n);

			fprintf(stderr, "llwrap: NOT ENFORCED: %s\n", shown);
		}
		/* Without the supervisor nothing can say so when it
		 * happens: what the network refuses, and the flag that
		 * opens it, before the command starts; that it is closed
		 * at all, to a person at a terminal (a script that
		 * captures stderr gets no line it did not ask for). */
		_cleanup_strv_ char **net =
			netpolicy_notes(&sb->conf, isatty(STDERR_FILENO));

		for (char **n = net; n != NULL && *n != NULL; n++)
			fprintf(stderr, "llwrap: note: %s\n", *n);
	}
	if (ctx->verbose)
		fprintf(stderr, "llwrap: running %s in %s%s%s\n", cmd[0],
			sb->workdir, sb->conf.workdir ? ", project " : "",
			sb->conf.workdir ? sb->project : "");

	/* Where the blocked-attempt log stands before the run, for the
	 * footer after it. */
	if (sb->supervise && sb->conf.log_blocked && !ctx->quiet) {
		struct stat st;

		footer_log = netpolicy_log_path(sb->conf.name, environ);
		if (footer_log != NULL && stat(footer_log, &st) == 0)
			footer_off = st.st_size;
	}
	r = sandbox_exec(sb, cmd, environ, ctx->keep, ctx->n_keep, &status,
			 &cause);
	if (r == 0) {
		/* The outer monitor (never pid 1 of the sandbox's pid
		 * namespace), once the command is gone: what was blocked,
		 * after a success too (an interactive session's last
		 * command says nothing of the blocks before it). */
		if (footer_log != NULL && sb->reporter)
			print_footer(footer_log, footer_off, sb->conf.name);
		if (sb->reporter) {
			/* DESIGN.md §11: a command stopped by a limit is
			 * named with that limit, not left as a bare
			 * signal (only a monitor sees it). */
			_cleanup_strv_ char **lines = resources_report(
				&sb->limits_plan, &sb->limits, status);

			for (char **l = lines; l != NULL && *l != NULL; l++)
				fprintf(stderr, "%s\n", *l);
			status = sandbox_after(sb, status);
		}
		/*
		 * A monitor or pid 1, after the command ended.  It leaves with
		 * _exit, as a forked helper does: no exit handler runs in a
		 * process whose pid namespace for children may be gone (a
		 * leak checker that forks there would fail).  Nothing is
		 * freed first: the exit frees it all (freeing cost each
		 * about 50 us).  The child that reported the command's end
		 * ahead of its exit is reaped last, after the work above
		 * (monitor_reap_last).
		 */
		fflush(NULL);
		monitor_reap_last();
		_exit(status);
	}
	cmd_fatal(status, "%s", cause);
}

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "[--] [COMMAND [ARG...]]",
	.how = CMD_POLICY,
	.exec = cmd_run_exec,
};
