/*
 * llwrap log [NAME] [--follow] [--all]: the blocked-attempt log of an
 * instance, grouped and counted (blocked.c), and followed.  It needs no
 * policy.
 */
#include <dirent.h>
#include <errno.h>
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
#include "netpolicy.h"
#include "suggest.h"
#include "xalloc.h"

/* The newest *.log in dir, as a NAME; NULL when there is none. */
static char *
newest_log(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *best = NULL;
	struct timespec t = { 0, 0 };

	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (n <= 4 || strcmp(e->d_name + n - 4, ".log") != 0)
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (best == NULL || st.st_mtim.tv_sec > t.tv_sec ||
		    (st.st_mtim.tv_sec == t.tv_sec &&
		     st.st_mtim.tv_nsec > t.tv_nsec)) {
			free(best);
			best = xstrndup(e->d_name, n - 4);
			t = st.st_mtim;
		}
	}
	closedir(d);
	return best;
}

/* The log of instance NAME (default: the log written last); --follow
 * then prints each new attempt as it is logged. */
static int
cmd_log_exec(struct cmd_ctx *ctx, struct policy *policy)
{
	_cleanup_free_ char *path = NULL, *dir = NULL, *name = NULL;
	_cleanup_free_ char *text = NULL, *report = NULL;
	_cleanup_close_ int fd = -1;
	struct blocked_log log = { 0 };
	struct suggest_bounds bounds;
	bool follow = false, all = false;
	size_t len = 0;
	char *slash;

	(void)policy;
	for (char *const *a = ctx->args; a != NULL && *a != NULL; a++) {
		if (strcmp(*a, "--follow") == 0 || strcmp(*a, "-f") == 0)
			follow = true;
		else if (strcmp(*a, "--all") == 0)
			all = true;
		else if ((*a)[0] == '-' || name != NULL)
			cmd_fatal(EXIT_LLWRAP,
				  "log: unexpected '%s'; usage: llwrap %s", *a,
				  cmd_log_entry.usage);
		else
			name = xstrdup(*a);
	}
	path = netpolicy_log_path(name ? name : "x", environ);
	if (path == NULL)
		cmd_fatal(EXIT_LLWRAP,
			  "log: neither XDG_STATE_HOME nor HOME is set, "
			  "so there is no log directory");
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (name == NULL) {
		name = newest_log(dir);
		if (name == NULL)
			cmd_fatal(1,
				  "log: no blocked-attempt log in %s (the "
				  "supervisor writes NAME.log there when a run "
				  "with supervisor rules blocks something)",
				  dir);
		free(path);
		path = netpolicy_log_path(name, environ);
	}
	/* A FIFO or a link at its name is refused, never waited on. */
	fd = fd_open_regular(AT_FDCWD, path, O_NOFOLLOW);
	if (fd < 0 && !(follow && fd == -ENOENT))
		cmd_fatal(1, "log: %s: %s", path,
			  fd == -EINVAL ? "not a regular file" : strerror(-fd));
	if (fd >= 0 && fd_read_all(fd, 1 << 28, &text, &len) < 0)
		cmd_fatal(1, "log: cannot read %s", path);
	blocked_add_text(&log, text ? text : "");
	{
		const char *h = getenv("HOME");
		_cleanup_free_ char *home =
			h != NULL && h[0] == '/' ? realpath(h, NULL) : NULL;

		suggest_bounds_init(&bounds, home ? home : h, NULL);
	}
	report = blocked_format(&log, name, all ? 0 : 20, &bounds);
	printf("%s (%s)\n", path, fd >= 0 ? "read" : "not there yet");
	fputs(report, stdout);
	blocked_log_clear(&log);
	if (!follow) {
		suggest_bounds_clear(&bounds);
		return 0;
	}
	printf("-- following %s (interrupt to stop) --\n", path);
	fflush(stdout);
	for (off_t off = (off_t)len;;) {
		_cleanup_free_ char *chunk = NULL;
		struct stat st;
		size_t n = 0;

		if (fd < 0 &&
		    (fd = fd_open_regular(AT_FDCWD, path, O_NOFOLLOW)) < 0)
			fd = -1;
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == off) {
			usleep(250000);
			continue;
		}
		if (st.st_size < off)
			off = 0; /* truncated: start again */
		if (lseek(fd, off, SEEK_SET) < 0 ||
		    fd_read_all(fd, 1 << 24, &chunk, &n) < 0)
			cmd_fatal(1, "log: cannot read %s", path);
		/* Whole lines only; a partial one waits. */
		while (n > 0 && chunk[n - 1] != '\n')
			n--;
		chunk[n] = '\0';
		off += (off_t)n;
		for (char *l = chunk, *e; *l != '\0'; l = e + 1) {
			struct blocked_record r;
			_cleanup_free_ char *out = NULL;

			e = strchr(l, '\n');
			*e = '\0';
			if (blocked_parse_line(l, &r) < 0)
				continue;
			out = blocked_format_record(&r, &bounds);
			blocked_record_clear(&r);
			printf("%s\n", out);
		}
		fflush(stdout);
	}
}

const struct cmd_entry cmd_log_entry = {
	.name = "log",
	.usage = "log [NAME] [--follow] [--all]",
	.help = "NAME's blocked attempts (default: the newest log),\n"
		"grouped and counted, newest first, with the change\n"
		"that would allow each; --follow: then as they come",
	.flags = "--follow --all",
	.how = CMD_WORD,
	.exec = cmd_log_exec,
};
