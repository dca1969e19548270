/*
 * --learn (DESIGN.md §12): the learning run, then the grants it proposes
 * (learnpropose.c) for what the target policy denies (why.c), printed
 * and saved under $XDG_STATE_HOME/llwrap/learned/.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blocked.h"
#include "cleanup.h"
#include "cmd.h"
#include "fdutil.h"
#include "learnpropose.h"
#include "netpolicy.h"
#include "options.h"
#include "path.h"
#include "sandbox.h"
#include "strv.h"
#include "suggest.h"
#include "why.h"
#include "xalloc.h"

static int
line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The directory for --learn fragments, llwrap/learned beside the
 * blocked-attempt log (under $XDG_STATE_HOME), made and opened before
 * the run: afterwards this process may be in the sandbox's read-only
 * view, where the descriptor still reaches the real directory.  An fd
 * with *dir its path, or -errno with *cause set.
 */
static int
learn_dir_open(const char *name, char **dir, char **cause)
{
	_cleanup_free_ char *log = netpolicy_log_path(name, environ);
	char *slash;
	int r, fd;

	if (log == NULL) {
		*cause = xstrdup("neither XDG_STATE_HOME nor HOME is set");
		return -ENOENT;
	}
	slash = strrchr(log, '/');
	*slash = '\0';
	*dir = xasprintf("%s/learned", log);
	if ((r = dir_make_path(*dir, 0700)) < 0) {
		*cause = xasprintf("cannot create %s: %s", *dir, strerror(-r));
		return r;
	}
	fd = open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		*cause = xasprintf("cannot open %s: %s", *dir, strerror(-r));
		return r;
	}
	return fd;
}

/*
 * Save a fragment in dfd (the directory dir) as NAME-learned.ini, never
 * over an earlier one (NAME-learned-2.ini, ...).  The path, or NULL with
 * *cause set.
 */
static char *
learn_save(int dfd, const char *dir, const char *frag, const char *name,
	   char **cause)
{
	size_t len = strlen(frag);

	for (int i = 1; i < 1000; i++) {
		_cleanup_free_ char *file =
			i == 1 ? xasprintf("%s-learned.ini", name)
			       : xasprintf("%s-learned-%d.ini", name, i);
		_cleanup_close_ int fd = openat(dfd, file,
						O_WRONLY | O_CREAT | O_EXCL |
							O_CLOEXEC | O_NOFOLLOW,
						0600);

		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0 || write(fd, frag, len) != (ssize_t)len) {
			*cause = xasprintf("cannot write %s/%s: %s", dir, file,
					   strerror(errno));
			return NULL;
		}
		return xasprintf("%s/%s", dir, file);
	}
	*cause = xasprintf("%s holds 999 fragments for %s already", dir, name);
	return NULL;
}

/* The entry of list that path is under, or NULL. */
static const char *
under_list(const char *path, char *const *list)
{
	for (char *const *l = list; l != NULL && *l != NULL; l++)
		if (path_under(path, *l))
			return *l;
	return NULL;
}

/* Whether the sorted observation lines hold "w PATH". */
static bool
written(char **lines, size_t n, const char *path)
{
	_cleanup_free_ char *w = xasprintf("w %s", path);

	return bsearch(&w, lines, n, sizeof(*lines), line_cmp) != NULL;
}

/*
 * The shallowest directory strictly under the project, on the way to
 * path (or path itself), that the run made (a "w" line: the learning run
 * writes only in the project), or NULL.  A grant must go above it: it
 * is not there when the next run starts.
 */
static char *
made_root(char **lines, size_t n, const char *path, const char *project)
{
	size_t plen = project != NULL ? strlen(project) : 0;

	if (project == NULL || !path_under(path, project) ||
	    strcmp(path, project) == 0)
		return NULL;
	for (const char *s = path + plen + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			_cleanup_free_ char *p = xstrndup(path, s - path);

			if (written(lines, n, p))
				return steal_pointer(&p);
		}
		if (*s == '\0')
			return NULL;
	}
}

/*
 * A grant's access with what the target policy already allows at its
 * path: the grant is a rule on that path, which replaces the policy's
 * there (a needed execute on a tree the policy lets write is rwx, not
 * rx, or the next build could not write).
 */
static enum llw_access
learn_keep(struct sandbox *target, const struct learnpropose_grant *g)
{
	bool w = policy_access_writable(g->access);
	bool x = g->access == LLW_ACCESS_RX || g->access == LLW_ACCESS_RWX;
	struct stat sb;
	bool exists = stat(g->path, &sb) == 0;
	struct why_query q = { .path = g->path,
			       .exists = exists,
			       .is_dir = exists && S_ISDIR(sb.st_mode) };
	struct why_verdict v;

	q.access = WHY_WRITE;
	why_decide(target, NULL, NULL, &q, &v);
	w = w || v.allowed;
	why_verdict_clear(&v);
	q.access = WHY_EXEC;
	why_decide(target, NULL, NULL, &q, &v);
	x = x || v.allowed;
	why_verdict_clear(&v);
	return w ? (x ? LLW_ACCESS_RWX : LLW_ACCESS_RW)
		 : (x ? LLW_ACCESS_RX : LLW_ACCESS_RO);
}

/*
 * Run the command in a learning sandbox, the policy plus reading
 * everywhere but the secrets of §11 and writing and executing in the
 * project, with the supervisor recording every open, exec and mkdir;
 * then decide each observed access under the policy itself (why.c) and
 * propose grants for those it denies (learnpropose.c), with the
 * [network] lines for what the supervisor blocked.  The fragment goes to
 * stderr and is saved.  Returns the command's exit status.
 */
static int
cmd_learn_exec(struct cmd_ctx *ctx, struct policy *target)
{
	const char *project = ctx->project, *name = ctx->name;
	char **cmd = ctx->cmd;
	_cleanup_free_ char *cause = NULL, *text = NULL, *log_path = NULL;
	_cleanup_free_ char *logged = NULL, *frag = NULL, *base = NULL;
	_cleanup_free_ char *own_cache = NULL;
	_cleanup_free_ char *saved = NULL, *ldir = NULL, *ldir_cause = NULL;
	_cleanup_close_ int ldir_fd = -1;
	_cleanup_free_ struct cmd_flag *extra = NULL;
	_cleanup_free_ struct learnpropose_access *acc = NULL;
	_cleanup_strv_ char **secrets = NULL, **lines = NULL, **net = NULL;
	_cleanup_strv_ char **tools = NULL, **tool_hit = NULL;
	_cleanup_close_ int mfd = -1;
	const char *home = getenv("HOME");
	struct sandbox *st = NULL, *sl = NULL;
	struct policy *lp;
	struct learnpropose_grant *g;
	struct blocked_log log = { 0 };
	struct suggest_bounds bounds;
	size_t n_extra = 0, n_acc = 0, n_g = 0, n_lines;
	unsigned long dropped = 0, denied_n = 0;
	off_t log_off = 0;
	int r, status;

	secrets = suggest_secrets(home);
	tools = learnpropose_tool_dirs(home);
	/* The caches llwrap's profiles give the sandbox are not the
	 * user's. */
	own_cache = xasprintf("%s/.cache/llwrap", home ? home : "");
	extra = xcalloc(strv_length(secrets) + 6, sizeof(*extra));
	/* Read, not execute: "rx /" beside the policy's rw trees (no x)
	 * would be punched open, entry by entry (DESIGN.md §5), down to
	 * /dev's descriptor links.  An exec the policy refuses fails, and
	 * is recorded. */
	extra[n_extra].opt = OPT_RO;
	extra[n_extra++].arg = (char *)"/";
	/* Writes stay as the policy says, but for the devices that
	 * swallow or give bytes: tools stop at a failed >/dev/null. */
	extra[n_extra].opt = OPT_RW;
	extra[n_extra++].arg = (char *)"/dev/null";
	extra[n_extra].opt = OPT_RW;
	extra[n_extra++].arg = (char *)"/dev/zero";
	extra[n_extra].opt = OPT_RW;
	extra[n_extra++].arg = (char *)"/dev/full";
	/* Writes stay inside the project, where the work is: a build that
	 * could not write its first file would teach nothing past it.
	 * The project is rwx, as every writable tree (DESIGN.md §10). */
	extra[n_extra].opt = OPT_RWX;
	extra[n_extra++].arg = (char *)project;
	/* Those there: a denied path missing at the start would turn on
	 * the watch that stops the run when it appears (L3, maskwatch.h),
	 * and the learning run would not have the shape of the runs it
	 * learns for (a private /tmp there, none in them: writes in /tmp
	 * never seen, never proposed).  One made during the learning run
	 * is readable, as the run reads everything else. */
	for (char **s = secrets; s != NULL && *s != NULL; s++) {
		struct stat sst;

		if (lstat(*s, &sst) < 0 && errno == ENOENT)
			continue;
		extra[n_extra].opt = OPT_DENY;
		extra[n_extra++].arg = *s;
	}
	extra[n_extra].opt = OPT_LEARN;
	extra[n_extra++].arg = NULL;
	lp = cmd_resolve(ctx, project, extra, n_extra);
	if ((r = sandbox_make_dirs(lp, NULL, &cause)) < 0 ||
	    (r = sandbox_prepare(lp, ctx->backend, &sl, &cause)) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	cmd_copy_in(ctx, lp);
	if (sl->must_fail)
		cmd_fatal(EXIT_LLWRAP, "--learn: %s", sl->fail_cause);
	if (!sl->supervise)
		cmd_fatal(EXIT_LLWRAP,
			  "--learn needs the network supervisor, which "
			  "observes the command; it cannot run here "
			  "(see llwrap --check)");
	mfd = memfd_create("llwrap-learn", MFD_CLOEXEC);
	if (mfd < 0)
		cmd_fatal(EXIT_LLWRAP, "--learn: memfd_create: %s",
			  strerror(errno));
	sl->learn = true;
	sl->learn_fd = mfd;
	if (sl->conf.log_blocked) {
		struct stat sb;

		log_path = netpolicy_log_path(sl->conf.name, environ);
		if (log_path != NULL && stat(log_path, &sb) == 0)
			log_off = sb.st_size;
	}
	ldir_fd = learn_dir_open(name, &ldir, &ldir_cause);
	fprintf(stderr,
		"llwrap: learning: %s runs with read everywhere but "
		"the secrets, write and execute in the project, the "
		"rest as the policy says\n",
		cmd[0]);
	r = sandbox_exec(sl, cmd, environ, NULL, 0, &status, &cause);
	if (r != 0)
		cmd_fatal(status, "%s", cause);
	if (getpid() == 1) {
		/* pid 1 of the sandbox's pid namespace: nothing to say. */
		fflush(NULL);
		_exit(status);
	}
	if (status == EXIT_LLWRAP)
		fprintf(stderr, "llwrap: the learning run ended with status "
				"125: if llwrap refused it (see above), "
				"nothing ran to learn from\n");

	/* What was observed, each access once. */
	if (lseek(mfd, 0, SEEK_SET) < 0 ||
	    fd_read_all(mfd, 1 << 28, &text, NULL) < 0)
		cmd_fatal(EXIT_LLWRAP, "--learn: cannot read the observations");
	{
		_cleanup_strv_ char **pairs = NULL;
		size_t n = 0;

		/* "r PATH" lines, sorted so repeats are neighbours. */
		for (char *l = text, *e; l != NULL && *l != '\0'; l = e) {
			e = strchr(l, '\n');
			if (e != NULL)
				*e++ = '\0';
			if (strlen(l) > 2)
				strv_push(&pairs, l);
		}
		n = strv_length(pairs);
		if (n > 1)
			qsort(pairs, n, sizeof(char *), line_cmp);
		lines = steal_pointer(&pairs);
		n_lines = n;
	}
	if ((r = sandbox_prepare(target, ctx->backend, &st, &cause)) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	acc = xcalloc(n_lines + 1, sizeof(*acc));
	for (size_t i = 0; i < n_lines; i++) {
		struct why_query q = { .access = WHY_READ };
		struct why_verdict v;
		char kind = lines[i][0];
		_cleanup_free_ char *path = NULL;
		const char *tool;
		char *root;
		bool made;

		if (i > 0 && strcmp(lines[i], lines[i - 1]) == 0)
			continue;
		path = cmd_resolve_path(lines[i] + 2, &q.exists, &q.is_dir);
		/* A program the run wrote and ran (configure's conftest,
		 * the project's build): its directory must be writable and
		 * executable, as every writable tree (DESIGN.md §10); a
		 * grant on the file alone would outlive the next build. */
		made = kind == 'x' && written(lines, n_lines, lines[i] + 2);
		/* A read or exec of what does not exist fails anyway. */
		if (!q.exists && kind != 'w' && !made)
			continue;
		/* A mkdir of a directory that is there: made by the run in
		 * the project (the learning run could write nowhere else),
		 * which needs its parent writable; elsewhere it was there
		 * before (mkdir -p), and nothing was needed. */
		if (kind == 'w' && q.exists && q.is_dir) {
			char *slash = strrchr(path, '/');

			if (st->project == NULL ||
			    !path_under(path, st->project) ||
			    strcmp(path, st->project) == 0 || slash == path)
				continue;
			*slash = '\0';
		}
		q.access = kind == 'w'	 ? WHY_WRITE
			   : kind == 'x' ? WHY_EXEC
					 : WHY_READ;
		q.path = path;
		why_decide(st, NULL, NULL, &q, &v);
		if (!v.allowed && kind == 'w' &&
		    (tool = under_list(path, tools)) != NULL &&
		    !path_under(path, own_cache)) {
			if (!strv_contains(tool_hit, tool))
				strv_push(&tool_hit, tool);
			denied_n++;
		} else if (!v.allowed) {
			acc[n_acc].path = steal_pointer(&path);
			acc[n_acc].need = made		? LLW_ACCESS_RWX
					  : kind == 'w' ? LLW_ACCESS_RW
					  : kind == 'x' ? LLW_ACCESS_RX
							: LLW_ACCESS_RO;
			acc[n_acc].is_dir = q.is_dir;
			/* learnpropose_grants() grants a new file's directory.
			 */
			acc[n_acc].exists = q.exists && !made;
			if ((root = made_root(lines, n_lines, acc[n_acc].path,
					      st->project)) != NULL) {
				free(acc[n_acc].path);
				acc[n_acc].path = root;
				acc[n_acc].exists = false;
			}
			{
				struct stat sb;

				acc[n_acc].alone =
					stat(acc[n_acc].path, &sb) == 0 &&
					!S_ISREG(sb.st_mode) &&
					!S_ISDIR(sb.st_mode);
			}
			n_acc++;
			denied_n++;
		}
		why_verdict_clear(&v);
	}
	{
		_cleanup_free_ char *home_real =
			home != NULL ? realpath(home, NULL) : NULL;

		suggest_bounds_init(&bounds, home_real ? home_real : home,
				    st->fs);
	}
	g = learnpropose_grants(acc, n_acc, &bounds, &n_g, &dropped);
	for (size_t i = 0; i < n_acc; i++)
		free(acc[i].path);
	for (size_t i = 0; i < n_g; i++)
		g[i].access = learn_keep(st, &g[i]);

	/* The network: what the supervisor blocked during the run. */
	if (log_path != NULL) {
		_cleanup_close_ int lfd =
			open(log_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

		if (lfd >= 0 && lseek(lfd, log_off, SEEK_SET) >= 0 &&
		    fd_read_all(lfd, 1 << 24, &logged, NULL) == 0)
			blocked_add_text(&log, logged);
		for (size_t i = 0; i < log.n; i++) {
			char *l;

			if (log.v[i].harmless != NULL)
				continue;
			l = blocked_rule_line(log.v[i].op, log.v[i].proto,
					      log.v[i].target, log.v[i].rule,
					      &bounds);
			if (l != NULL && !strv_contains(net, l))
				strv_push(&net, l);
			free(l);
		}
		blocked_log_clear(&log);
	}
	{
		_cleanup_free_ char *copy = xstrdup(cmd[0]);

		base = xstrdup(basename(copy));
	}
	frag = learnpropose_fragment(g, n_g, net, base, st->project,
				     st->conf.run_profile, name);
	saved = ldir_fd >= 0 ? learn_save(ldir_fd, ldir, frag, name, &cause)
			     : NULL;
	fprintf(stderr,
		"llwrap: learned: %zu accesses observed, %lu denied by the "
		"policy, %zu grants proposed, %lu not proposed (secrets, "
		"denied paths, home or /)%s\n\n%s\n",
		n_lines, denied_n, n_g, dropped,
		strv_length(net) ? "; network lines from the blocked attempts"
				 : "",
		frag);
	for (char **t = tool_hit; t != NULL && *t != NULL; t++)
		fprintf(stderr,
			"llwrap: writes in %s are not proposed: it is your "
			"own tool cache or program directory, which runs "
			"outside the sandbox later; give the tool a cache of "
			"the sandbox's own ([environment] set = "
			"XDG_CACHE_HOME=..., CARGO_HOME=..., "
			"npm_config_cache=..., GOPATH=..., as in the opencode "
			"profile) and grant that\n",
			*t);
	if (saved != NULL)
		fprintf(stderr, "llwrap: the fragment is saved as %s\n", saved);
	else
		fprintf(stderr, "llwrap: the fragment is not saved: %s\n",
			ldir_fd < 0 ? ldir_cause : cause);
	learnpropose_grants_free(g, n_g);
	suggest_bounds_clear(&bounds);
	sandbox_free(st);
	sandbox_free(sl);
	cmd_policy_free(lp);
	cmd_policy_free(target);
	fflush(NULL);
	return status;
}

const struct cmd_entry cmd_learn_entry = {
	.name = "learn",
	.usage = "--learn [--] [COMMAND]",
	.how = CMD_POLICY,
	.exec = cmd_learn_exec,
};
