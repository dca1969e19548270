/*
 * The rules llwrap adds to the policy's before they compile (planner.h,
 * planner-int.h): every configuration file it read, write-protected;
 * protect-git's and protect-later-run's files, found on the file system;
 * and a deny rule on a file git tracks unchanged, made read-only.  These
 * read the policy's rules as written, since the plan they go into does
 * not exist yet.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdutil.h"
#include "gitconfig.h"
#include "gitguard.h"
#include "path.h"
#include "planner.h"
#include "planner-int.h"
#include "strv.h"
#include "xalloc.h"

/*
 * DESIGN.md §4.4: every configuration file llwrap read is write-protected
 * inside the sandbox.  Each gets a read-only rule that beats every source;
 * pathtree_compile() decides on resolved paths whether it protects
 * anything (a file the rules leave unwritable keeps its access) and
 * compiles it like any narrower-inside-writable rule (a mask, or fail
 * closed).  Comparing the paths here, as written, missed a profile given
 * through a symlink and a grant given through one (-p T/a/p.ini --rw T/L
 * with T/L -> a).
 */
static void
protect_config_files(const struct policy *p, const struct gitguard *gg,
		     const struct gitguard *later, struct llw_path_rule **rules,
		     size_t *n)
{
	/* Two more for no_host_terminals(). */
	*rules = xcalloc(p->n_paths + strv_length(p->config_files) +
				 (gg != NULL ? gg->n : 0) +
				 (later != NULL ? later->n : 0) + 3,
			 sizeof(**rules));
	memcpy(*rules, p->paths, p->n_paths * sizeof(**rules));
	*n = p->n_paths;
	for (char **f = p->config_files; f != NULL && *f != NULL; f++) {
		struct llw_path_rule *r = &(*rules)[(*n)++];

		r->path = *f;
		r->access = LLW_ACCESS_RO;
		r->rank = LLW_RANK_CONFIG;
		r->origin = "llwrap configuration file (write-protected)";
	}
	/* protect-git (DESIGN.md §11): the same, for the repository's
	 * files that can run commands, and pins for the directories on
	 * the way to them. */
	for (size_t i = 0; gg != NULL && i < gg->n; i++) {
		struct llw_path_rule *r = &(*rules)[*n];

		/* A linked worktree's repository is writable as a .git in
		 * the project is, unless a rule denies it by name. */
		if (gg->v[i].kind == GITGUARD_RW) {
			const struct llw_path_rule *by =
				policy_rule_at(p, gg->v[i].path);

			if (by != NULL && by->access == LLW_ACCESS_DENY &&
			    strcmp(by->path, gg->v[i].path) == 0)
				continue;
			r->path = gg->v[i].path;
			r->access = LLW_ACCESS_RW;
			r->rank = LLW_RANK_LLWRAP;
			r->origin = "protect-git: a linked worktree's "
				    "repository (writable)";
			(*n)++;
			continue;
		}
		(*n)++;
		r->path = gg->v[i].path;
		r->access = gg->v[i].kind == GITGUARD_RX ? LLW_ACCESS_RX
							 : LLW_ACCESS_RO;
		if (gg->v[i].kind == GITGUARD_PIN) {
			r->rank = LLW_RANK_PIN;
			r->origin = "protect-git: pinned in place";
		} else {
			r->rank = LLW_RANK_CONFIG;
			r->origin = gg->v[i].origin != NULL
					    ? gg->v[i].origin
					    : "protect-git: git metadata "
					      "(read-only)";
		}
	}
	/* protect-later-run: direnv's, the editors' and agents' files. */
	for (size_t i = 0; later != NULL && i < later->n; i++) {
		struct llw_path_rule *r = &(*rules)[(*n)++];

		r->path = later->v[i].path;
		r->access = LLW_ACCESS_RO;
		r->rank = LLW_RANK_CONFIG;
		r->origin = "protect-later-run: run later, outside (read-only)";
	}
}

/* The largest git index read to unhide a tracked file (as watchlater). */
#define SANDBOX_MAX_INDEX (256u << 20)

/*
 * Whether path, a file under a git work tree, is tracked by git and
 * unchanged (git's own stat test against the index) in a repository
 * whose objects the policy lets the command read: then its contents are
 * a blob the command can read anyway (git show :PATH).
 */
static bool
tracked_unchanged(const struct policy *view, const char *path)
{
	_cleanup_free_ char *dir = xstrdup(path), *gitdir = NULL;
	_cleanup_free_ char *objects = NULL, *real = NULL, *index = NULL;
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct gitguard_index_entry e;
	struct stat st, ist;
	char *slash;
	size_t len;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	/* The nearest work tree above path. */
	for (;;) {
		slash = strrchr(dir, '/');
		if (slash == NULL || slash == dir)
			return false;
		*slash = '\0';
		objects = gitguard_objects(dir, &gitguard_fs_real, &gitdir);
		if (objects != NULL)
			break;
	}
	real = realpath(objects, NULL);
	if (real == NULL ||
	    policy_access_at(view, real, NULL) == LLW_ACCESS_DENY)
		return false;
	index = xasprintf("%s/index", gitdir);
	fd = fd_open_regular(AT_FDCWD, index, O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &ist) < 0 ||
	    fd_read_all(fd, SANDBOX_MAX_INDEX, &buf, &len) < 0 ||
	    gitguard_index_find(buf, len, path + strlen(dir) + 1, &e) < 0)
		return false;
	return gitguard_unchanged(&e, &st, &ist.st_mtim);
}

/*
 * A deny rule on a file that git tracks, unchanged, hides nothing: its
 * contents are in the repository, which the command reads.  Hidden (a
 * /dev/null mount), it only breaks git: status shows it changed, commit
 * -a and add -A fail ("unsupported file type").  Such a rule becomes
 * read-only for this run, and --explain says why.  A changed or
 * untracked file stays hidden.
 */
static void
unhide_tracked(struct sandbox *sb, const struct policy *view,
	       struct llw_path_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct llw_path_rule *r = &rules[i];
		char *origin;

		if (r->access != LLW_ACCESS_DENY ||
		    sb->policy->project == NULL ||
		    !path_under(r->path, sb->policy->project) ||
		    strcmp(r->path, sb->policy->project) == 0 ||
		    !tracked_unchanged(view, r->path))
			continue;
		origin = xasprintf("%s; read-only, not hidden: git tracks it "
				   "unchanged, so its contents are in the "
				   "repository",
				   r->origin);
		strv_push_take(&sb->unhidden, origin);
		r->access = LLW_ACCESS_RO;
		r->origin = origin;
	}
}

/*
 * The directories whose files run later (protect-later-run): the
 * project, and, when the command starts in a subdirectory of it, each
 * directory from there up to the project, where an agent started there
 * (opencode reads .opencode/ and opencode.json from each) and direnv
 * look too.  A new vector, the project first.
 */
char **
planner_later_run_dirs(const struct policy *p)
{
	char **v = NULL;
	_cleanup_free_ char *d =
		p->workdir != NULL ? xstrdup(p->workdir) : NULL;

	strv_push(&v, p->project);
	while (d != NULL && strcmp(d, p->project) != 0 &&
	       path_under(d, p->project)) {
		char *slash = strrchr(d, '/');

		strv_push(&v, d);
		if (slash == NULL || slash == d)
			break;
		*slash = '\0';
	}
	return v;
}

/* Move what from (gitguard_later_run of another directory) found into
 * into, and free from. */
static void
later_merge(struct gitguard *into, struct gitguard *from)
{
	if (from->n > 0) {
		into->v = xreallocarray(into->v, into->n + from->n,
					sizeof(*into->v));
		for (size_t i = 0; i < from->n; i++)
			into->v[into->n++] = from->v[i];
		from->n = 0;
	}
	for (char **s = from->notes; s != NULL && *s != NULL; s++)
		strv_push(&into->notes, *s);
	for (char **s = from->missing; s != NULL && *s != NULL; s++)
		strv_push(&into->missing, *s);
	gitguard_free(from);
}

/* The user's git configuration files, in the order git reads them, as
 * git finds them: GIT_CONFIG_SYSTEM (or /etc/gitconfig) unless
 * GIT_CONFIG_NOSYSTEM, then GIT_CONFIG_GLOBAL or else the XDG file and
 * ~/.gitconfig. */
static char **
git_global_configs(void)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *sys = getenv("GIT_CONFIG_SYSTEM");
	const char *nosys = getenv("GIT_CONFIG_NOSYSTEM");
	const char *global = getenv("GIT_CONFIG_GLOBAL");
	char **v = NULL;

	if (nosys == NULL || strcmp(nosys, "") == 0 ||
	    strcasecmp(nosys, "false") == 0 || strcmp(nosys, "0") == 0 ||
	    strcasecmp(nosys, "no") == 0 || strcasecmp(nosys, "off") == 0)
		strv_push(&v, sys != NULL && sys[0] == '/' ? sys
							   : "/etc/gitconfig");
	if (global != NULL) {
		if (global[0] == '/')
			strv_push(&v, global);
		return v;
	}
	if (xdg != NULL && xdg[0] == '/')
		strv_push_take(&v, xasprintf("%s/git/config", xdg));
	else if (home != NULL && home[0] == '/')
		strv_push_take(&v, xasprintf("%s/.config/git/config", home));
	if (home != NULL && home[0] == '/')
		strv_push_take(&v, xasprintf("%s/.gitconfig", home));
	return v;
}

/*
 * planner_rules: the rules llwrap adds, and the notes on what they cannot
 * protect here.
 */
int
planner_rules(struct sandbox *sb, const struct policy *p,
	      struct llw_path_rule **rules, size_t *n, char **cause)
{
	struct policy view;
	int r = 0;

	if (p->protect_git && p->project != NULL) {
		_cleanup_strv_ char **globals = git_global_configs();
		struct gitconfig_var *env = NULL;
		size_t n_env = 0;

		/* git -c, GIT_CONFIG_COUNT: what the user's git reads in
		 * the shell llwrap was started from.  What git refuses
		 * refuses the run: git would not run with it, and what it
		 * means is not guessed. */
		r = gitconfig_env(environ, getenv("HOME"), &env, &n_env, cause);
		sb->git = gitguard_scan(p->project, &gitguard_fs_real, globals,
					getenv("HOME"), env, n_env);
		gitconfig_vars_free(env, n_env);
		for (char **s = sb->git->notes; *s != NULL; s++)
			strv_push_take(&sb->git_limits,
				       xasprintf("protect-git: %s", *s));
	}
	if (p->protect_later_run && p->project != NULL) {
		_cleanup_strv_ char **dirs = planner_later_run_dirs(p);

		sb->later = gitguard_later_run(p->project, &gitguard_fs_real);
		for (char **d = dirs + 1; *d != NULL; d++)
			later_merge(sb->later,
				    gitguard_later_run(*d, &gitguard_fs_real));
		for (char **s = sb->later->notes; *s != NULL; s++)
			strv_push_take(&sb->git_limits,
				       xasprintf("protect-later-run: %s", *s));
	}
	protect_config_files(p, sb->git, sb->later, rules, n);
	view = *p;
	view.paths = *rules;
	view.n_paths = *n;
	unhide_tracked(sb, &view, *rules, *n);
	return r;
}
