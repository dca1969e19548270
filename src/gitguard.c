/*
 * Git metadata protection.  The contract is in gitguard.h; this comment
 * says what is protected and why.  Reading git's index and config, as
 * git does, is gitguard-read.c's.
 *
 * Git runs commands named by its configuration (core.fsmonitor,
 * core.hooksPath, core.sshCommand, filters, aliases) and the hooks in
 * hooks/.  It reads configuration from the repository's config, from
 * config.worktree (with extensions.worktreeConfig), and from the common
 * directory a commondir file names; a linked worktree or a submodule
 * checkout finds its repository through a .git file.  Each of those
 * files is made read-only where it exists.  A read-only mount on a file
 * does not stop the directory holding it from being renamed and a new
 * one put in its place, so every directory on the way from the project
 * to such a file is pinned: bound onto itself, a mount point, which
 * rename(2) and rmdir(2) refuse (EBUSY).  The project itself is already
 * a mount point when it is writable.
 *
 * What no mount can protect is a name that does not exist yet: a
 * commondir or config.worktree created inside the sandbox redirects git
 * too.  hooks/ is created before the sandbox when missing (git's own
 * template makes it, empty is harmless); commondir cannot be, since its
 * presence changes what git reports (--git-common-dir).  That remains a
 * known limit (conf/known-limits, git.commondir) that the monitor narrows
 * to an instant: it moves a new one aside as soon as it is made
 * (watchlater.h).
 *
 * Configuration reaches git through includes too: include.path and
 * includeIf.*.path, in the system's, the user's and the repository's
 * files, name more files git reads as its configuration, relative to the
 * file that names them.  Each is followed, in turn, as deep as git goes,
 * whatever its condition (one llwrap cannot evaluate counts as true), and
 * treated as .git/config is: read-only where it exists, with the
 * directories from the project down to it pinned, and watched for where
 * it is missing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
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
#include "strv.h"
#include "text.h"
#include "xalloc.h"

/* Submodules inside submodules, modules/ inside modules/. */
#define GITGUARD_DEPTH 8
/* The largest .gitmodules or .git file read. */
#define GITGUARD_MAX_FILE (64 * 1024)
/* The largest git configuration file read, and how deep git follows
 * includes (config.c, MAX_INCLUDE_DEPTH: deeper, it stops). */
#define GITGUARD_MAX_CONFIG    (1024 * 1024)
#define GITGUARD_INCLUDE_DEPTH 10

/* A note for --explain, taking text: names it quotes come from the
 * project (an .envrc line, a path), shown as text on the terminal. */
static void
notes_take(char ***notes, char *text)
{
	strv_push_take(notes, text_shown(text));
	free(text);
}

static int
real_kind(void *ctx, const char *path)
{
	struct stat st;

	(void)ctx;
	if (lstat(path, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return 'd';
	if (S_ISREG(st.st_mode))
		return 'f';
	if (S_ISLNK(st.st_mode))
		return 'l';
	return 'o';
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **
real_list(void *ctx, const char *path)
{
	char **v = xcalloc(1, sizeof(char *));
	struct dirent *de;
	DIR *d;

	(void)ctx;
	if ((d = opendir(path)) == NULL) {
		free(v);
		return NULL;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			strv_push(&v, de->d_name);
	closedir(d);
	qsort(v, strv_length(v), sizeof(char *), name_cmp);
	return v;
}

static char *
real_read(void *ctx, const char *path)
{
	/* The project's files: a FIFO planted by a earlier run is refused,
	 * not waited on. */
	_cleanup_close_ int fd = fd_open_regular(AT_FDCWD, path, O_NOFOLLOW);
	char *text = NULL;
	size_t len;

	(void)ctx;
	if (fd < 0 || fd_read_all(fd, GITGUARD_MAX_FILE, &text, &len) < 0)
		return NULL;
	return text;
}

/* A configuration file, as git opens it: through links. */
static char *
real_read_config(void *ctx, const char *path)
{
	_cleanup_close_ int fd = fd_open_regular(AT_FDCWD, path, 0);
	char *text = NULL;
	size_t len;

	(void)ctx;
	if (fd < 0 || fd_read_all(fd, GITGUARD_MAX_CONFIG, &text, &len) < 0)
		return NULL;
	if (strlen(text) != len) {
		free(text); /* a NUL, which git reads past */
		return NULL;
	}
	return text;
}

const struct gitguard_fs gitguard_fs_real = {
	.kind = real_kind,
	.list = real_list,
	.read_file = real_read,
	.ctx = NULL,
	.read_config = real_read_config,
};

struct scan {
	const struct gitguard_fs *fs;
	struct gitguard *g;
	char *const *global_configs; /* the user's git configuration */
	const char *home;
	const struct gitconfig_var *env; /* ... given in the environment */
	size_t n_env;
};

static char *
join(const char *dir, const char *name)
{
	_cleanup_free_ char *s = xasprintf("%s/%s", dir, name);

	return path_normalise(s);
}

static struct gitguard_entry *
add(struct scan *s, const char *path, enum gitguard_kind kind, const char *why)
{
	struct gitguard *g = s->g;

	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].path, path) == 0 && g->v[i].kind == kind)
			return &g->v[i];
	g->v = xreallocarray(g->v, g->n + 1, sizeof(*g->v));
	g->v[g->n].path = xstrdup(path);
	g->v[g->n].kind = kind;
	g->v[g->n].why = xstrdup(why);
	g->v[g->n].origin = NULL;
	return &g->v[g->n++];
}

/* Every directory from project (exclusive) down to path (exclusive),
 * path beneath project, pinned. */
static void
pin_way(struct scan *s, const char *project, const char *path, const char *why)
{
	for (const char *c = path + strlen(project) + 1; *c != '\0'; c++) {
		if (*c != '/')
			continue;
		{
			_cleanup_free_ char *dir = xstrndup(path, c - path);

			add(s, dir, GITGUARD_PIN, why);
		}
	}
}

static int
kind(struct scan *s, const char *path)
{
	return s->fs->kind(s->fs->ctx, path);
}

/* The first line of a file, trimmed; NULL when unreadable. */
static char *
first_line(struct scan *s, const char *path)
{
	char *text = s->fs->read_file(s->fs->ctx, path);

	if (text != NULL)
		text[strcspn(text, "\r\n")] = '\0';
	return text;
}

/* A path a git file names, relative to dir when not absolute. */
static char *
named_path(const char *dir, const char *value)
{
	if (value[0] == '/')
		return path_normalise(value);
	return join(dir, value);
}

static void scan_gitdir(struct scan *s, const char *gitdir, int depth);

/*
 * modules/ holds a repository per submodule, at modules/NAME, where NAME
 * may contain slashes: a directory with HEAD or config is a repository,
 * any other directory holds more of them.
 */
static void
scan_modules(struct scan *s, const char *dir, int depth)
{
	_cleanup_strv_ char **names = NULL;

	if (depth > GITGUARD_DEPTH)
		return;
	add(s, dir, GITGUARD_PIN, "submodule repositories");
	if ((names = s->fs->list(s->fs->ctx, dir)) == NULL)
		return;
	for (char **n = names; *n != NULL; n++) {
		_cleanup_free_ char *p = join(dir, *n);
		_cleanup_free_ char *head = NULL, *config = NULL;

		if (kind(s, p) != 'd')
			continue;
		head = join(p, "HEAD");
		config = join(p, "config");
		if (kind(s, head) != 0 || kind(s, config) != 0)
			scan_gitdir(s, p, depth + 1);
		else
			scan_modules(s, p, depth + 1);
	}
}

/* The files of a repository (or common) directory that run commands or
 * say where git reads and sends. */
static void
protect_files(struct scan *s, const char *gitdir)
{
	static const struct {
		const char *name;
		enum gitguard_kind mode;
		const char *why;
	} files[] = {
		{ "config", GITGUARD_RO, "git metadata that can run commands" },
		{ "config.worktree", GITGUARD_RO,
		  "git metadata that can run commands" },
		{ "commondir", GITGUARD_RO,
		  "git metadata that can run commands" },
		{ "hooks", GITGUARD_RX, "git metadata that can run commands" },
		{ "worktrees", GITGUARD_RO, "linked worktrees' repositories" },
		/* Where the config names no remote, git reads remotes/NAME,
		 * then branches/NAME (remote.c): where a push goes. */
		{ "remotes", GITGUARD_RO,
		  "git's legacy remotes (a push's "
		  "address)" },
		{ "branches", GITGUARD_RO,
		  "git's legacy remotes (a push's "
		  "address)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *p = join(gitdir, files[i].name);

		if (kind(s, p) != 0)
			add(s, p, files[i].mode, files[i].why);
	}
}

static void
scan_gitdir(struct scan *s, const char *gitdir, int depth)
{
	_cleanup_free_ char *cd = join(gitdir, "commondir");
	_cleanup_free_ char *modules = join(gitdir, "modules");
	_cleanup_free_ char *hooks = join(gitdir, "hooks");

	if (depth > GITGUARD_DEPTH)
		return;
	add(s, gitdir, GITGUARD_PIN, "a git repository");
	protect_files(s, gitdir);
	if (kind(s, hooks) == 0)
		notes_take(&s->g->notes,
			   xasprintf("%s does not exist: one created "
				     "inside the sandbox would run later",
				     hooks));
	/* Nothing to mount on (conf/known-limits git.commondir): watched
	 * (watchlater.h). */
	if (kind(s, cd) == 0)
		strv_push(&s->g->missing, cd);
	/* So are config.worktree, and git's legacy remote files, which
	 * route a push where the config names no remote (remote.c:
	 * remotes/NAME, then branches/NAME). */
	{
		static const char *const watched[] = { "config.worktree",
						       "remotes", "branches" };

		for (size_t i = 0; i < ARRAY_SIZE(watched); i++) {
			_cleanup_free_ char *p = join(gitdir, watched[i]);

			if (kind(s, p) == 0)
				strv_push(&s->g->missing, p);
		}
	}
	if (kind(s, cd) == 'f') {
		_cleanup_free_ char *line = first_line(s, cd);

		if (line != NULL && *line != '\0') {
			_cleanup_free_ char *common = named_path(gitdir, line);

			/* A linked worktree's objects, refs and
			 * submodule repositories: scanned as a
			 * repository of its own. */
			if (strcmp(common, gitdir) != 0) {
				scan_gitdir(s, common, depth + 1);
			}
		}
	}
	if (kind(s, modules) == 'd')
		scan_modules(s, modules, depth);
}

/* Whether a relative path from .gitmodules stays inside its tree. */
static bool
inside(const char *rel)
{
	const char *p = rel;

	if (*rel == '\0' || *rel == '/')
		return false;
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		p += strspn(p, "/");
	}
	return true;
}

/*
 * The checkouts of the submodules .gitmodules lists under worktree: each
 * .git file is read-only, and every directory from worktree down to it
 * is pinned, so that none can be renamed and replaced by one whose .git
 * names another repository.
 */
/* Each value of a key "path" in .gitmodules, in any section, as git
 * reads it (submodule.NAME.path is git's). */
static int
module_path(void *ctx, const char *section, const char *sub, const char *key,
	    const char *value)
{
	char ***paths = ctx;

	(void)sub;
	if (section != NULL && value != NULL && strcmp(key, "path") == 0)
		strv_push(paths, value);
	return 0;
}

static void
scan_submodules(struct scan *s, const char *worktree, int depth)
{
	_cleanup_free_ char *gm = join(worktree, ".gitmodules");
	_cleanup_free_ char *text = NULL;
	_cleanup_strv_ char **paths = NULL;

	if (depth > GITGUARD_DEPTH || kind(s, gm) != 'f' ||
	    (text = s->fs->read_file(s->fs->ctx, gm)) == NULL)
		return;
	gitconfig_each(text, module_path, &paths);
	for (char **p = paths; p != NULL && *p != NULL; p++) {
		_cleanup_free_ char *checkout = NULL, *gitfile = NULL;
		const char *v = *p;

		if (!inside(v))
			continue;
		checkout = join(worktree, v);
		gitfile = join(checkout, ".git");
		if (kind(s, gitfile) != 'f')
			continue;
		add(s, gitfile, GITGUARD_RO, "a submodule's .git file");
		for (char *c = checkout + strlen(worktree) + 1;; c++) {
			if (*c != '/' && *c != '\0')
				continue;
			{
				_cleanup_free_ char *dir =
					xstrndup(checkout, c - checkout);

				add(s, dir, GITGUARD_PIN,
				    "on the way to a submodule's .git file");
			}
			if (*c == '\0')
				break;
		}
		scan_submodules(s, checkout, depth + 1);
	}
}

/*
 * The project is a linked worktree (git worktree add) whose repository
 * lies outside it: its own directory <common>/worktrees/<name> and the
 * common directory are made writable, as a .git inside the project is,
 * so that git works there (what runs commands stays read-only: the scan
 * of both that follows).  Only for the layout git itself makes, checked
 * from outside the sandbox's reach: the .git file names
 * <common>/worktrees/<name>, whose commondir names <common> back and
 * whose gitdir file names this .git file, and <common> holds HEAD,
 * objects/ and refs/.  A .git file a sandboxed command planted, naming
 * a directory of its choice, cannot pass that without writing there
 * already.
 */
static void
grant_linked(struct scan *s, const char *project, const char *dotgit,
	     const char *gitdir)
{
	_cleanup_free_ char *parent = xstrdup(gitdir), *common = NULL;
	_cleanup_free_ char *cd = join(gitdir, "commondir");
	_cleanup_free_ char *back = join(gitdir, "gitdir");
	_cleanup_free_ char *line = NULL, *named = NULL, *head = NULL;
	_cleanup_free_ char *objects = NULL, *refs = NULL, *back_path = NULL;
	char *slash;

	if (path_under(gitdir, project))
		return;
	slash = strrchr(parent, '/');
	if (slash == NULL || slash == parent)
		goto no;
	*slash = '\0';
	slash = strrchr(parent, '/');
	if (slash == NULL || strcmp(slash + 1, "worktrees") != 0)
		goto no;
	common = xstrndup(parent, (size_t)(slash - parent));
	line = kind(s, cd) == 'f' ? first_line(s, cd) : NULL;
	named = line != NULL && *line != '\0' ? named_path(gitdir, line) : NULL;
	free(line);
	line = kind(s, back) == 'f' ? first_line(s, back) : NULL;
	back_path =
		line != NULL && *line != '\0' ? named_path(gitdir, line) : NULL;
	head = join(common, "HEAD");
	objects = join(common, "objects");
	refs = join(common, "refs");
	if (*common == '\0' || named == NULL || strcmp(named, common) != 0 ||
	    back_path == NULL || strcmp(back_path, dotgit) != 0 ||
	    kind(s, head) != 'f' || kind(s, objects) != 'd' ||
	    kind(s, refs) != 'd')
		goto no;
	add(s, gitdir, GITGUARD_RW, "the repository of this linked worktree");
	if (!path_under(common, project))
		add(s, common, GITGUARD_RW,
		    "the repository this linked worktree shares");
	return;
no:
	notes_take(&s->g->notes,
		   xasprintf("%s names %s, which is not a linked "
			     "worktree's repository as git makes it: not "
			     "made writable (git cannot work here)",
			     dotgit, gitdir));
}

static void scan_configs(struct scan *s, const char *project);

struct gitguard *
gitguard_scan(const char *project, const struct gitguard_fs *fs,
	      char *const *global_configs, const char *home,
	      const struct gitconfig_var *env, size_t n_env)
{
	struct gitguard *g = xcalloc(1, sizeof(*g));
	struct scan s = { .fs = fs,
			  .g = g,
			  .global_configs = global_configs,
			  .home = home,
			  .env = env,
			  .n_env = n_env };
	_cleanup_free_ char *dotgit = join(project, ".git");
	int k = kind(&s, dotgit);

	g->notes = xcalloc(1, sizeof(char *));
	switch (k) {
	case 'd':
		scan_gitdir(&s, dotgit, 0);
		break;
	case 'l':
		/* The rules land on the target; the link itself is not a
		 * mount point and could be replaced. */
		notes_take(&g->notes,
			   xasprintf("%s is a symbolic link: its target is "
				     "protected, the link itself is not",
				     dotgit));
		scan_gitdir(&s, dotgit, 0);
		break;
	case 'f': {
		_cleanup_free_ char *line = first_line(&s, dotgit);

		add(&s, dotgit, GITGUARD_RO,
		    "the .git file naming the "
		    "repository");
		if (line != NULL && strncmp(line, "gitdir:", 7) == 0) {
			_cleanup_free_ char *gitdir = named_path(
				project, line + 7 + strspn(line + 7, " \t"));

			grant_linked(&s, project, dotgit, gitdir);
			scan_gitdir(&s, gitdir, 0);
		}
		break;
	}
	default:
		notes_take(&g->notes,
			   xasprintf("%s does not exist: a repository the "
				     "command creates is watched, and moved "
				     "aside when its configuration or hooks "
				     "could run a command",
				     dotgit));
		/* The user's configuration and the environment's are read
		 * in the repository the command makes, too. */
		scan_configs(&s, project);
		return g;
	}
	scan_configs(&s, project);
	scan_submodules(&s, project, 0);
	return g;
}

/*
 * core.hooksPath (husky's .husky, a shared hooks/ directory) naming a
 * directory inside the project: git runs the hooks there, so it is
 * read-only and executable, and pinned with every directory on the way
 * from the project, as the repository's own hooks/ is; a missing one is
 * watched (the command would make it).  A relative path is taken from the
 * work tree, as git takes it; "~/" from the home.
 */
static void
protect_hooks_path(struct scan *s, const char *project, const char *hooks)
{
	_cleanup_free_ char *path = NULL;

	if (hooks[0] == '~') {
		if (hooks[1] != '/' || s->home == NULL || s->home[0] != '/')
			return;
		path = join(s->home, hooks + 2);
	} else if (hooks[0] != '\0') {
		path = named_path(project, hooks);
	}
	if (path == NULL || !path_under(path, project) ||
	    strcmp(path, project) == 0)
		return;
	if (kind(s, path) == 0) {
		if (strv_contains(s->g->missing, path))
			return;
		strv_push(&s->g->missing, path);
		notes_take(&s->g->notes,
			   xasprintf("core.hooksPath names %s, which does "
				     "not exist: one created inside the "
				     "sandbox is moved aside",
				     path));
		return;
	}
	add(s, path, GITGUARD_RX, "core.hooksPath: the hooks git runs");
	pin_way(s, project, path, "on the way to core.hooksPath");
	add(s, path, GITGUARD_PIN, "core.hooksPath: pinned in place");
}

/* The walk of git's configuration files: where the watch can act, what
 * was read, and each file's core.hooksPath. */
struct configs {
	const char *project;
	const char *roots[3]; /* the project, the git and common directories */
	char **seen;
	char **hooks;
};

static bool envrc_beneath(struct scan *s, const char *project, const char *arg);

/*
 * A file git reads as its configuration that the command could write
 * (named by an include, or the user's beneath the project), as
 * .git/config is: read-only where it exists, every directory from the
 * project down to it pinned; where it is missing, watched for beneath
 * the project or the repository (no link on the way), else said.
 */
static void
protect_config(struct scan *s, struct configs *c, const char *path,
	       const char *named)
{
	int k = kind(s, path);

	/* A directory git cannot read: one in the project is kept from
	 * being replaced by a file, the project itself or one outside left
	 * (a mount there would take more than a file away). */
	if (k == 'd' &&
	    (!path_under(path, c->project) || strcmp(path, c->project) == 0)) {
		notes_take(&s->g->notes,
			   xasprintf("%s (%s) is a directory, which git "
				     "cannot read: not protected",
				     path, named));
		return;
	}
	if (k != 0) {
		struct gitguard_entry *e = add(s, path, GITGUARD_RO,
					       "git reads it as configuration");

		if (e->origin == NULL)
			e->origin = xasprintf("protect-git: git reads it as "
					      "configuration, %s (read-only)",
					      named);
		if (path_under(path, c->project))
			pin_way(s, c->project, path,
				"on the way to a file git reads as "
				"configuration");
		if (k == 'l' && path_under(path, c->project))
			notes_take(&s->g->notes,
				   xasprintf("%s (%s) is a symbolic link: "
					     "its target is read-only, the "
					     "link itself can be replaced",
					     path, named));
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(c->roots); i++) {
		const char *root = c->roots[i];

		if (root == NULL || !path_under(path, root) ||
		    strcmp(path, root) == 0 ||
		    !envrc_beneath(s, root, path + strlen(root) + 1))
			continue;
		if (!strv_contains(s->g->missing, path)) {
			strv_push(&s->g->missing, path);
			notes_take(&s->g->notes,
				   xasprintf("%s (%s) does not exist: one "
					     "created inside the sandbox is "
					     "moved aside",
					     path, named));
		}
		return;
	}
	notes_take(&s->g->notes,
		   xasprintf("%s (%s) does not exist and is not watched "
			     "for: made where the sandbox can write, git "
			     "would read it",
			     path, named));
}

/*
 * A configuration file git reads (file; named says how, NULL for the
 * user's and the repository's own), and in turn what it includes,
 * whatever the condition, as deep as git goes.
 */
static void
scan_config(struct scan *s, struct configs *c, const char *file,
	    const char *named, int depth)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_strv_ char **paths = NULL;
	char *hooks;

	if (strv_contains(c->seen, file))
		return;
	strv_push(&c->seen, file);
	if (named != NULL)
		protect_config(s, c, file, named);
	text = s->fs->read_config != NULL ? s->fs->read_config(s->fs->ctx, file)
					  : s->fs->read_file(s->fs->ctx, file);
	if (text == NULL) {
		if (kind(s, file) != 0)
			notes_take(&s->g->notes,
				   xasprintf("%s cannot be read as git reads "
					     "it (not a regular file, larger "
					     "than 1 MiB or holding a NUL): "
					     "what it includes and a "
					     "core.hooksPath it sets are not "
					     "protected",
					     file));
		return;
	}
	if ((hooks = gitguard_hooks_path(text)) != NULL)
		strv_push_take(&c->hooks, hooks);
	paths = gitconfig_paths(text, file, s->home);
	for (char **p = paths; *p != NULL; p++) {
		_cleanup_free_ char *by = NULL;

		if (**p == 'u') {
			notes_take(&s->g->notes,
				   xasprintf("%s includes %s, which llwrap "
					     "cannot follow (%%(prefix)/ is "
					     "where git is installed, ~user/ "
					     "a user llwrap finds no home "
					     "for): what it sets is not "
					     "protected",
					     file, *p + 1));
			continue;
		}
		if (**p != 'i')
			continue; /* core.excludesFile, attributesFile */
		if (depth >= GITGUARD_INCLUDE_DEPTH) {
			notes_take(&s->g->notes,
				   xasprintf("%s includes files deeper than "
					     "git follows (%d): git stops "
					     "there",
					     file, GITGUARD_INCLUDE_DEPTH));
			break;
		}
		by = xasprintf("included by %s", file);
		scan_config(s, c, *p + 1, by, depth + 1);
	}
}

/*
 * The configuration given in the environment, which git reads after its
 * files (gitconfig_env refused what git refuses): each include, absolute,
 * followed as one a file makes (git counts it one deep), and each
 * core.hooksPath protected.  What it includes and protects is named by
 * the variable that set it: the user's next git, in the same shell,
 * reads it as llwrap did.
 */
static void
scan_env(struct scan *s, struct configs *c)
{
	for (size_t i = 0; i < s->n_env; i++) {
		const struct gitconfig_var *v = &s->env[i];
		_cleanup_free_ char *p = NULL, *by = NULL;

		if (v->sub == NULL && v->value != NULL &&
		    strcmp(v->section, "core") == 0 &&
		    strcmp(v->key, "hookspath") == 0)
			strv_push(&c->hooks, v->value);
		p = gitconfig_path(v->section, v->sub, v->key, v->value, NULL,
				   s->home);
		if (p == NULL || *p == 'f')
			continue;
		by = xasprintf("included by the environment: %s", v->source);
		if (*p == 'u')
			notes_take(&s->g->notes,
				   xasprintf("the environment (%s) includes "
					     "%s, which llwrap cannot follow "
					     "(%%(prefix)/ is where git is "
					     "installed, ~user/ a user llwrap "
					     "finds no home for): what it sets "
					     "is not protected",
					     v->source, p + 1));
		else
			scan_config(s, c, p + 1, by, 1);
	}
}

/*
 * git's configuration, as git reads it for this repository: the user's
 * (system, global), the common directory's config, the repository's,
 * config.worktree, the environment's, and what each includes.  Every
 * core.hooksPath set in any of them is protected: a condition llwrap
 * cannot evaluate decides which one git takes, so the last one each file
 * sets (which git takes when that file is read last) is.
 */
static void
scan_configs(struct scan *s, const char *project)
{
	_cleanup_free_ char *gitdir = NULL, *objects = NULL;
	_cleanup_strv_ char **files = NULL;
	struct configs c = { .project = project };
	static const char *const own[] = { "config", "config.worktree" };

	/* Without a repository (the command may make one), the user's
	 * configuration and the environment's alone.  objects/ is in the
	 * common directory. */
	c.roots[0] = project;
	if ((objects = gitguard_objects(project, s->fs, &gitdir)) != NULL) {
		*strrchr(objects, '/') = '\0';
		c.roots[1] = gitdir;
		c.roots[2] = objects;
	}
	for (char *const *f = s->global_configs; f != NULL && *f != NULL; f++)
		scan_config(s, &c, *f,
			    path_under(*f, project)
				    ? "the user's git configuration"
				    : NULL,
			    0);
	for (size_t i = 0; objects != NULL && i < ARRAY_SIZE(own); i++) {
		_cleanup_free_ char *f1 = join(objects, own[i]);
		_cleanup_free_ char *f2 = join(gitdir, own[i]);

		scan_config(s, &c, f1, NULL, 0);
		scan_config(s, &c, f2, NULL, 0);
	}
	scan_env(s, &c);
	for (char **h = c.hooks; h != NULL && *h != NULL; h++)
		protect_hooks_path(s, project, *h);
	strv_free(c.seen);
	strv_free(c.hooks);
}

char *
gitguard_objects(const char *worktree, const struct gitguard_fs *fs,
		 char **gitdir_out)
{
	struct scan s = { .fs = fs };
	_cleanup_free_ char *dotgit = join(worktree, ".git");
	_cleanup_free_ char *gitdir = NULL, *common = NULL, *line = NULL;
	char *objects;

	switch (kind(&s, dotgit)) {
	case 'd':
	case 'l':
		gitdir = steal_pointer(&dotgit);
		break;
	case 'f':
		line = first_line(&s, dotgit);
		if (line == NULL || strncmp(line, "gitdir:", 7) != 0)
			return NULL;
		gitdir = named_path(worktree,
				    line + 7 + strspn(line + 7, " \t"));
		break;
	default:
		return NULL;
	}
	/* A linked worktree's objects are in the common directory. */
	free(line);
	common = join(gitdir, "commondir");
	line = kind(&s, common) == 'f' ? first_line(&s, common) : NULL;
	if (line != NULL && line[0] != '\0') {
		_cleanup_free_ char *dir = named_path(gitdir, line);

		objects = join(dir, "objects");
	} else {
		objects = join(gitdir, "objects");
	}
	*gitdir_out = steal_pointer(&gitdir);
	return objects;
}

/*
 * The project's files and directories that tools outside the sandbox
 * read later as configuration that runs commands, and who: read-only
 * where they exist, watched for where missing (nothing is made in the
 * user's project to mount on) except .opencode, which opencode makes
 * itself (plans, a .gitignore) and stops when it cannot.
 */
static const struct later_entry {
	const char *name;
	bool unwatched; /* not watched for when missing */
	const char *reader;
} later_entries[] = {
	{ ".opencode", true, "opencode" },
	{ ".vscode", false, "VS Code" },
	{ ".idea", false, "a JetBrains IDE" },
	/* Other agents' and editors' project settings that run commands:
	 * Claude Code's hooks, Cursor's and Gemini's MCP servers, a dev
	 * container's initializeCommand (run on the host), Zed's and
	 * Helix's language servers and tasks, Continue's config.ts, the
	 * project MCP servers of Roo Code (.roo/mcp.json), Kilo Code
	 * (.kilocode/mcp.json; .kilo/ and kilo.json(c) in its newer
	 * versions) and Amazon Q (.amazonq/mcp.json, default.json). */
	{ ".claude", false, "Claude Code (its hooks)" },
	{ ".cursor", false, "Cursor" },
	{ ".gemini", false, "Gemini CLI" },
	{ ".devcontainer", false,
	  "a dev container's host (initializeCommand)" },
	{ ".zed", false, "Zed (its language servers and tasks)" },
	{ ".helix", false, "Helix (its language servers)" },
	{ ".continue", false, "Continue (its config)" },
	{ ".roo", false, "Roo Code (its MCP servers)" },
	{ ".kilocode", false, "Kilo Code (its MCP servers)" },
	{ ".kilo", false, "Kilo Code (its MCP servers)" },
	{ ".amazonq", false, "Amazon Q (its MCP servers)" },
	/* The files: direnv's, the agents' project configuration. */
	{ ".envrc", false, "direnv" },
	{ ".mcp.json", false,
	  "an agent or editor that starts its MCP servers" },
	{ ".devcontainer.json", false,
	  "a dev container's host (initializeCommand)" },
	{ "kilo.json", false, "Kilo Code (its MCP servers)" },
	{ "kilo.jsonc", false, "Kilo Code (its MCP servers)" },
	{ "opencode.json", false, "opencode" },
	{ "opencode.jsonc", false, "opencode" },
	{ ".llwrap.ini", false, "llwrap (the project's own profile)" },
	{ ".aider.conf.yml", false, "aider" },
	/* mise's project configuration: its [env] (_.source, templates
	 * that exec) and [hooks] run when the user's shell enters the
	 * project (mise activate), and mise trusts a file by its path,
	 * not its content, unless paranoid (review L, L3). */
	{ "mise.toml", false, "mise (its env and hooks, at the shell's cd)" },
	{ ".mise.toml", false, "mise (its env and hooks, at the shell's cd)" },
	{ "mise.local.toml", false,
	  "mise (its env and hooks, at the shell's cd)" },
	{ ".mise.local.toml", false,
	  "mise (its env and hooks, at the shell's cd)" },
	{ ".mise", false, "mise (its env and hooks, at the shell's cd)" },
	/* ... and its other places (mise's LOCAL_CONFIG_FILENAMES), each
	 * reached component by component by the host side. */
	{ "mise/config.toml", false,
	  "mise (its env and hooks, at the shell's cd)" },
	{ ".config/mise.toml", false,
	  "mise (its env and hooks, at the shell's cd)" },
	{ ".config/mise/config.toml", false,
	  "mise (its env and hooks, at the shell's cd)" },
	{ ".config/mise/conf.d", false,
	  "mise (its env and hooks, at the shell's cd)" },
	/* asdf's (and mise's) tool versions: "nodejs path:DIR" has every
	 * node shim run DIR/bin/node in the project, a shell prompt's
	 * node --version among them; asdf asks nothing (review L, L7). */
	{ ".tool-versions", false,
	  "asdf and mise (a version path:DIR runs DIR's programs)" },
	/* A Mercurial repository's own configuration: [hooks] (pre-status
	 * runs at the shell prompt's hg status), [extensions] (Python),
	 * %include; sharedpath (with share-safe) takes another repository's
	 * configuration and store (review L, L6). */
	{ ".hg/hgrc", false, "Mercurial (its hooks and extensions)" },
	/* Read after .hg/hgrc by every repository, share-safe or not
	 * (localrepo.loadhgrc; review R). */
	{ ".hg/hgrc-not-shared", false,
	  "Mercurial (its hooks and extensions)" },
	{ ".hg/sharedpath", false,
	  "Mercurial (another repository's configuration and store)" },
};

/* mise's configuration environments (MISE_ENV=ENV, or -E): mise.ENV.toml,
 * .mise.ENV.toml, their .local forms, and in .config/ (gitguard.h). */
static const char *const mise_env_patterns[] = { "mise.*.toml",
						 ".mise.*.toml" };

bool
gitguard_mise_env(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(mise_env_patterns); i++)
		if (fnmatch(mise_env_patterns[i], name, 0) == 0)
			return true;
	return false;
}

const char *const *
gitguard_mise_env_patterns(size_t *n)
{
	*n = ARRAY_SIZE(mise_env_patterns);
	return mise_env_patterns;
}

/* The entry a name beneath the project is (one with a '/' by its whole
 * relative path), or NULL. */
static const struct later_entry *
later_entry_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t n = strlen(path);

	for (size_t i = 0; i < ARRAY_SIZE(later_entries); i++) {
		const char *e = later_entries[i].name;
		size_t k = strlen(e);

		if (strchr(e, '/') != NULL
			    ? n > k && path[n - k - 1] == '/' &&
				      strcmp(path + n - k, e) == 0
			    : strcmp(name, e) == 0)
			return &later_entries[i];
	}
	return NULL;
}

const char *
gitguard_later_reader(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	const struct later_entry *e = later_entry_of(path);

	if (strncmp(name, ".envrc.", 7) == 0 || strcmp(name, ".env") == 0)
		return "direnv";
	if (e == NULL && gitguard_mise_env(name))
		return "mise (its env and hooks, at the shell's cd)";
	return e != NULL ? e->reader : "direnv or an editor";
}

bool
gitguard_later_nested(const char *project, const char *path)
{
	size_t n = strlen(project);

	for (size_t i = 0; i < ARRAY_SIZE(later_entries); i++)
		if (strchr(later_entries[i].name, '/') != NULL &&
		    strncmp(path, project, n) == 0 && path[n] == '/' &&
		    strcmp(path + n + 1, later_entries[i].name) == 0)
			return true;
	return false;
}

/* A file .envrc loads that is missing: noted, and checked after the run. */
static void
note_missing(struct scan *s, const char *path)
{
	strv_push(&s->g->missing, path);
	notes_take(&s->g->notes,
		   xasprintf("%s (loaded by .envrc) does not exist: one "
			     "created inside the sandbox would run later",
			     path));
}

/*
 * Whether arg, a path .envrc names, reaches a file beneath project the
 * way the host side may act on it (DESIGN.md §15): relative, no ".."
 * component (a symlinked directory before it would make the lexical
 * answer wrong), and no symbolic link on the way (a `sub -> ~` planted in
 * the project would make the watch act on the home).  The first missing
 * directory ends the walk: what lies below it is created inside.
 */
static bool
envrc_beneath(struct scan *s, const char *project, const char *arg)
{
	_cleanup_free_ char *dir = xstrdup(project);
	const char *p = arg;

	if (*arg == '/' || *arg == '\0')
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");
		char *next;
		int k;

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		if (p[n] == '\0')
			return true;
		next = xasprintf("%s/%.*s", dir, (int)n, p);
		free(dir);
		dir = next;
		k = kind(s, dir);
		if (k == 0)
			return true;
		if (k != 'd')
			return false;
		p += n + 1;
	}
}

/*
 * A line of .envrc the scan did not read, that loads or runs something
 * from the project when direnv loads it: said in --explain, as what the
 * watch cannot protect (DESIGN.md §11; known limit proj.envrc-lines).
 * PATH_add puts a directory the command can write before the user's own
 * programs; layout and use run what the project says; a load behind a
 * condition or an expansion names a file the scan cannot know.
 */
static void
envrc_unread(struct scan *s, const char *envrc, const char *line)
{
	static const char *const words[] = {
		"source_env",  "dotenv",   "source_up", "source_url",
		"PATH_add",    "path_add", "layout",	"use ",
		"load_prefix", "source ",  ". ",
	};
	_cleanup_free_ char *shown = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(line, words[i]) != NULL &&
		    (strcmp(words[i], ". ") != 0 ||
		     strncmp(line, ". ", 2) == 0)) {
			shown = xstrndup(line, 80);
			notes_take(&s->g->notes,
				   xasprintf("%s: '%s' loads or runs what "
					     "the project holds, which "
					     "llwrap does not read: NOT "
					     "ENFORCED for what it names",
					     envrc, shown));
			return;
		}
}

/*
 * The one word at v as bash reads it, where llwrap can tell which file it
 * names: plain characters, unquoted or in quotes, no expansion, escape,
 * glob or '~' (a leading $PWD/ or ${PWD}/, quoted or not, dropped:
 * direnv runs .envrc in its own directory); *end just after it.  NULL
 * where it cannot tell.
 */
static char *
envrc_word(const char *v, const char **end)
{
	static const struct {
		const char *s;
		char quote;
	} pwd[] = {
		{ "$PWD/", 0 },	      { "${PWD}/", 0 },	  { "\"$PWD/", '"' },
		{ "\"${PWD}/", '"' }, { "\"$PWD\"/", 0 }, { "\"${PWD}\"/", 0 },
	};
	char *w = xmalloc(strlen(v) + 1);
	size_t n = 0;
	char quote = 0;

	for (size_t i = 0; i < ARRAY_SIZE(pwd); i++)
		if (strncmp(v, pwd[i].s, strlen(pwd[i].s)) == 0) {
			v += strlen(pwd[i].s);
			quote = pwd[i].quote;
			break;
		}
	for (;; v++) {
		char c = *v;

		if (c == '\0' ||
		    (quote == 0 && strchr(" \t;&|()<>", c) != NULL))
			break;
		if (quote == 0 && (c == '\'' || c == '"')) {
			quote = c;
			continue;
		}
		if (quote != 0 && c == quote) {
			quote = 0;
			continue;
		}
		if ((quote != '\'' && strchr("$`\\", c) != NULL) ||
		    (quote == 0 && strchr("*?[{~", c) != NULL))
			break;
		w[n++] = c;
	}
	*end = v;
	w[n] = '\0';
	/* Stopped inside a quote (bash reads on, on the next line), at
	 * what llwrap cannot tell, or nothing read. */
	if (quote != 0 || (*v != '\0' && strchr(" \t;&|()<>", *v) == NULL) ||
	    n == 0) {
		free(w);
		return NULL;
	}
	return w;
}

bool
gitguard_envrc_load(const char *line, char **arg)
{
	static const char *const cmds[] = { "source_env_if_exists",
					    "source_env", "dotenv_if_exists",
					    "dotenv" };
	const char *v = line + strspn(line, " \t"), *end;

	*arg = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		size_t n = strlen(cmds[i]);

		if (strncmp(v, cmds[i], n) != 0 ||
		    (v[n] != '\0' && v[n] != ' ' && v[n] != '\t'))
			continue;
		v += n + strspn(v + n, " \t");
		/* dotenv alone loads .env. */
		if (*v == '\0' || strchr(";&|#)", *v) != NULL) {
			*arg = xstrdup(strncmp(cmds[i], "dotenv", 6) == 0
					       ? ".env"
					       : "");
			return true;
		}
		/* One word whose file llwrap can tell, and no other load
		 * after it on the line; else "" (review V: a load with an
		 * expansion was dropped unsaid, dotenv "$X" read as .env). */
		if ((*arg = envrc_word(v, &end)) == NULL ||
		    strstr(end, "source_env") != NULL ||
		    strstr(end, "dotenv") != NULL) {
			free(*arg);
			*arg = xstrdup("");
		}
		return true;
	}
	return false;
}

/* The paths .envrc names after the direnv commands that load files. */
static void
scan_envrc(struct scan *s, const char *project, const char *envrc)
{
	_cleanup_free_ char *text = s->fs->read_file(s->fs->ctx, envrc);
	char *save = NULL;

	if (text == NULL)
		return;
	for (char *l = strtok_r(text, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *v = l + strspn(l, " \t");
		_cleanup_free_ char *arg = NULL, *path = NULL;

		if (!gitguard_envrc_load(l, &arg)) {
			if (*v != '#')
				envrc_unread(s, envrc, v);
			continue;
		}
		if (*arg == '\0') {
			/* Which file, llwrap cannot tell: said. */
			envrc_unread(s, envrc, v);
			continue;
		}
		path = named_path(project, arg);
		/* An existing file is made read-only wherever it resolves
		 * (a mount only narrows); a missing one is watched for (the
		 * host side acts on it) only where it lies beneath the
		 * project without a link. */
		if (path_under(path, project) && kind(s, path) != 0) {
			add(s, path, GITGUARD_RO, "loaded by .envrc (direnv)");
		} else if (path_under(path, project) &&
			   strcmp(path, project) != 0 &&
			   envrc_beneath(s, project, arg)) {
			if (!strv_contains(s->g->missing, path))
				note_missing(s, path);
		} else if (path_under(path, project)) {
			notes_take(&s->g->notes,
				   xasprintf("%s loads %s, which does not "
					     "exist and is reached through a "
					     "symbolic link or '..': not "
					     "watched",
					     envrc, arg));
		}
	}
}

/* Whether a directory on the way to name (relative, with '/') beneath
 * project is a symbolic link. */
static bool
later_through_link(struct scan *s, const char *project, const char *name)
{
	for (const char *c = strchr(name, '/'); c != NULL;
	     c = strchr(c + 1, '/')) {
		_cleanup_free_ char *p =
			xasprintf("%s/%.*s", project, (int)(c - name), name);

		if (kind(s, p) == 'l')
			return true;
	}
	return false;
}

static void scan_hgrc(struct scan *s, const char *project, const char *file,
		      int depth);

/*
 * The file an hgrc's %include names (word, already trimmed), from the
 * file at file: Mercurial reads it as its own configuration, [hooks] and
 * [extensions] and all, at every hg in the project (config.py: the path
 * expanded, ~ and $VARS, joined to the including file's directory and
 * normalised lexically; a missing one is skipped).  One beneath the
 * project is read-only where it exists and watched for where it does
 * not, as what .envrc loads is; one llwrap cannot tell (an expansion)
 * is named NOT ENFORCED.
 */
static void
hgrc_include(struct scan *s, const char *project, const char *file,
	     const char *word, int depth)
{
	_cleanup_free_ char *dir = xstrndup(file, strrchr(file, '/') - file);
	_cleanup_free_ char *path = NULL;

	if (strchr(word, '$') != NULL || word[0] == '~') {
		notes_take(&s->g->notes,
			   xasprintf("%s: '%%include %s' names a file llwrap "
				     "does not tell (an expansion): NOT "
				     "ENFORCED for what it names "
				     "(Mercurial's hooks and extensions)",
				     file, word));
		return;
	}
	path = named_path(dir, word);
	if (!path_under(path, project) || strcmp(path, project) == 0)
		return;
	if (kind(s, path) != 0) {
		size_t had = s->g->n;

		add(s, path, GITGUARD_RO,
		    "included by .hg/hgrc (Mercurial: its hooks and "
		    "extensions)");
		/* Each file read once: a file that includes itself, or
		 * one more than once, is not read again (a tree of them
		 * would be read as often as it has paths). */
		if (s->g->n > had && kind(s, path) == 'f' &&
		    depth < GITGUARD_HG_INCLUDE_DEPTH)
			scan_hgrc(s, project, path, depth + 1);
	} else if (envrc_beneath(s, project, path + strlen(project) + 1)) {
		if (!strv_contains(s->g->hg_missing, path)) {
			strv_push(&s->g->hg_missing, path);
			notes_take(&s->g->notes,
				   xasprintf("%s (included by %s) does not "
					     "exist: one created inside the "
					     "sandbox is moved aside",
					     path, file));
		}
	} else {
		notes_take(&s->g->notes,
			   xasprintf("%s includes %s, which does not exist "
				     "and is reached through a symbolic "
				     "link: not watched",
				     file, word));
	}
}

char *
gitguard_hg_include(const char *line)
{
	static const char blanks[] = " \t\f\v";
	size_t n;

	if (strncmp(line, "\xef\xbb\xbf", 3) == 0)
		line += 3;
	if (strncmp(line, "%include", 8) != 0 || line[8] == '\0' ||
	    strchr(blanks, line[8]) == NULL)
		return NULL;
	line += 8 + strspn(line + 8, blanks);
	n = strlen(line);
	while (n > 0 && strchr(blanks, line[n - 1]) != NULL)
		n--;
	return n > 0 ? xstrndup(line, n) : NULL;
}

/* The %include lines of the Mercurial configuration file at file. */
static void
scan_hgrc(struct scan *s, const char *project, const char *file, int depth)
{
	_cleanup_free_ char *text = s->fs->read_file(s->fs->ctx, file);
	char *save = NULL;

	if (text == NULL)
		return;
	for (char *l = strtok_r(text, "\r\n", &save); l != NULL;
	     l = strtok_r(NULL, "\r\n", &save)) {
		_cleanup_free_ char *word = gitguard_hg_include(l);

		if (word != NULL)
			hgrc_include(s, project, file, word, depth);
	}
}

struct gitguard *
gitguard_later_run(const char *project, const struct gitguard_fs *fs)
{
	static const char *const hgrcs[] = { ".hg/hgrc",
					     ".hg/hgrc-not-shared" };
	struct gitguard *g = xcalloc(1, sizeof(*g));
	struct scan s = { .fs = fs, .g = g };
	_cleanup_strv_ char **names = NULL;
	_cleanup_strv_ char **missing = NULL;

	g->notes = xcalloc(1, sizeof(char *));
	for (size_t i = 0; i < ARRAY_SIZE(later_entries); i++) {
		const struct later_entry *e = &later_entries[i];
		_cleanup_free_ char *p = join(project, e->name);

		if (kind(&s, p) != 0) {
			add(&s, p, GITGUARD_RO, "run later, outside");
		} else if (later_through_link(&s, project, e->name)) {
			/* The host side follows no link: the user's
			 * own (.config -> elsewhere) leaves it unwatched. */
			notes_take(&g->notes,
				   xasprintf("%s does not exist and is reached "
					     "through a symbolic link in %s: "
					     "one created there inside the "
					     "sandbox is not watched",
					     e->name, project));
		} else if (!e->unwatched) {
			strv_push(&missing, e->name);
			strv_push(&g->missing, p);
		}
	}
	/* .envrc.local and the like: what .envrc files source beside it;
	 * mise's environments' files (mise.ENV.toml), there and in
	 * .config/. */
	if ((names = fs->list(fs->ctx, project)) != NULL)
		for (char **n = names; *n != NULL; n++)
			if (strncmp(*n, ".envrc.", 7) == 0 ||
			    gitguard_mise_env(*n)) {
				_cleanup_free_ char *p = join(project, *n);

				add(&s, p, GITGUARD_RO, "run later, outside");
			}
	{
		_cleanup_free_ char *config = join(project, ".config");
		_cleanup_strv_ char **in = NULL;

		if (kind(&s, config) == 'd' &&
		    (in = fs->list(fs->ctx, config)) != NULL)
			for (char **n = in; *n != NULL; n++)
				if (gitguard_mise_env(*n)) {
					_cleanup_free_ char *p =
						join(config, *n);

					add(&s, p, GITGUARD_RO,
					    "run later, outside");
				}
	}
	{
		_cleanup_free_ char *envrc = join(project, ".envrc");

		if (kind(&s, envrc) == 'f')
			scan_envrc(&s, project, envrc);
	}
	/* What a Mercurial repository's configuration includes. */
	for (size_t i = 0; i < ARRAY_SIZE(hgrcs); i++) {
		_cleanup_free_ char *hgrc = join(project, hgrcs[i]);

		if (kind(&s, hgrc) == 'f')
			scan_hgrc(&s, project, hgrc, 0);
	}
	if (missing != NULL) {
		_cleanup_free_ char *list = strv_join(missing, ", ");

		notes_take(&g->notes,
			   xasprintf("%s do not exist in %s: one "
				     "created there inside the sandbox is "
				     "moved aside by the monitor as soon "
				     "as it is made (a new .envrc is left, "
				     "named: direnv asks before loading "
				     "it)",
				     list, project));
	}
	return g;
}

void
gitguard_free(struct gitguard *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path);
		free(g->v[i].why);
		free(g->v[i].origin);
	}
	free(g->v);
	strv_free(g->notes);
	strv_free(g->missing);
	strv_free(g->hg_missing);
	free(g);
}

char *
gitguard_missing_hooks(const char *project, const struct gitguard_fs *fs)
{
	_cleanup_free_ char *dotgit = join(project, ".git");
	_cleanup_free_ char *hooks = join(dotgit, "hooks");

	if (fs->kind(fs->ctx, dotgit) != 'd' || fs->kind(fs->ctx, hooks) != 0)
		return NULL;
	return steal_pointer(&hooks);
}
