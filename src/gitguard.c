/*
 * Git metadata protection.  The contract is in gitguard.h; this comment
 * says what is protected and why.
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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

const struct gitguard_fs gitguard_fs_real = {
	.kind = real_kind,
	.list = real_list,
	.read_file = real_read,
	.ctx = NULL,
};

struct scan {
	const struct gitguard_fs *fs;
	struct gitguard *g;
	char *const *global_configs; /* the user's git configuration */
};

static char *
join(const char *dir, const char *name)
{
	_cleanup_free_ char *s = xasprintf("%s/%s", dir, name);

	return path_normalise(s);
}

static void
add(struct scan *s, const char *path, enum gitguard_kind kind, const char *why)
{
	struct gitguard *g = s->g;

	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].path, path) == 0 && g->v[i].kind == kind)
			return;
	g->v = xreallocarray(g->v, g->n + 1, sizeof(*g->v));
	g->v[g->n].path = xstrdup(path);
	g->v[g->n].kind = kind;
	g->v[g->n].why = xstrdup(why);
	g->n++;
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

/* The files of a repository (or common) directory that run commands. */
static void
protect_files(struct scan *s, const char *gitdir)
{
	static const char *const names[] = {
		"config", "config.worktree", "commondir", "hooks", "worktrees",
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *p = join(gitdir, names[i]);

		if (kind(s, p) != 0)
			add(s, p,
			    strcmp(names[i], "hooks") == 0 ? GITGUARD_RX
							   : GITGUARD_RO,
			    strcmp(names[i], "worktrees") == 0
				    ? "linked worktrees' repositories"
				    : "git metadata that can run commands");
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
	{
		_cleanup_free_ char *cw = join(gitdir, "config.worktree");

		if (kind(s, cw) == 0)
			strv_push(&s->g->missing, cw);
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
static void
scan_submodules(struct scan *s, const char *worktree, int depth)
{
	_cleanup_free_ char *gm = join(worktree, ".gitmodules");
	_cleanup_free_ char *text = NULL;
	char *save = NULL;

	if (depth > GITGUARD_DEPTH || kind(s, gm) != 'f' ||
	    (text = s->fs->read_file(s->fs->ctx, gm)) == NULL)
		return;
	for (char *l = strtok_r(text, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *checkout = NULL, *gitfile = NULL;
		char *v = l + strspn(l, " \t");
		size_t end;

		if (strncmp(v, "path", 4) != 0)
			continue;
		v += 4 + strspn(v + 4, " \t");
		if (*v != '=')
			continue;
		v += 1 + strspn(v + 1, " \t");
		end = strlen(v);
		while (end > 0 && strchr(" \t\r", v[end - 1]) != NULL)
			end--;
		v[end] = '\0';
		if (v[0] == '"' && end >= 2 && v[end - 1] == '"') {
			v[end - 1] = '\0';
			v++;
		}
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

static void scan_hooks_path(struct scan *s, const char *project);

struct gitguard *
gitguard_scan(const char *project, const struct gitguard_fs *fs,
	      char *const *global_configs)
{
	struct gitguard *g = xcalloc(1, sizeof(*g));
	struct scan s = { .fs = fs, .g = g, .global_configs = global_configs };
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
		return g;
	}
	scan_hooks_path(&s, project);
	scan_submodules(&s, project, 0);
	return g;
}

/*
 * core.hooksPath (husky's .husky, a shared hooks/ directory) naming a
 * directory inside the project: git runs the hooks there, so it is
 * read-only and executable, and pinned with every directory on the way
 * from the project, as the repository's own hooks/ is; a missing one is
 * watched (the command would make it).  A relative path is taken from the
 * work tree, as git takes it.  The repository's config and its common
 * directory's are read.
 */
static void
scan_hooks_path(struct scan *s, const char *project)
{
	_cleanup_free_ char *gitdir = NULL, *objects = NULL, *hooks = NULL;
	_cleanup_free_ char *path = NULL;
	char *common;

	if ((objects = gitguard_objects(project, s->fs, &gitdir)) == NULL)
		return;
	common = strrchr(objects, '/');
	*common = '\0';
	common = objects;
	{
		/* In git's order: the user's configuration (system, XDG,
		 * ~/.gitconfig), then the repository's; the last wins. */
		_cleanup_strv_ char **files = strv_copy(s->global_configs);
		_cleanup_free_ char *c1 = join(common, "config");
		_cleanup_free_ char *c2 = join(gitdir, "config");

		strv_push(&files, c1);
		if (strcmp(c1, c2) != 0)
			strv_push(&files, c2);
		for (char **f = files; f != NULL && *f != NULL; f++) {
			_cleanup_free_ char *text =
				s->fs->read_file(s->fs->ctx, *f);
			char *v =
				text != NULL ? gitguard_hooks_path(text) : NULL;

			if (v != NULL) {
				free(hooks);
				hooks = v;
			}
		}
	}
	if (hooks == NULL || hooks[0] == '\0' || hooks[0] == '~')
		return;
	path = named_path(project, hooks);
	if (!path_under(path, project) || strcmp(path, project) == 0)
		return;
	if (kind(s, path) == 0) {
		strv_push(&s->g->missing, path);
		notes_take(&s->g->notes,
			   xasprintf("core.hooksPath names %s, which does "
				     "not exist: one created inside the "
				     "sandbox is moved aside",
				     path));
		return;
	}
	add(s, path, GITGUARD_RX, "core.hooksPath: the hooks git runs");
	for (char *c = path + strlen(project) + 1; *c != '\0'; c++) {
		if (*c != '/')
			continue;
		{
			_cleanup_free_ char *dir = xstrndup(path, c - path);

			add(s, dir, GITGUARD_PIN,
			    "on the way to core.hooksPath");
		}
	}
	add(s, path, GITGUARD_PIN, "core.hooksPath: pinned in place");
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

/* The directories the editors and agents read their configuration from;
 * the first two, when missing, are watched for as the missing files are
 * (nothing is made in the user's project to mount on).  Not .opencode:
 * opencode makes it itself (plans, a .gitignore) and stops when it
 * cannot. */
static const char *const later_dirs[] = {
	".opencode",
	".vscode",
	".idea",
	/* Other agents' and tools' project settings that run commands:
	 * Claude Code's hooks, Cursor's and Gemini's MCP servers, a dev
	 * container's initializeCommand (run on the host). */
	".claude",
	".cursor",
	".gemini",
	".devcontainer",
};
/* Those from this one on are watched for when missing. */
#define LATER_DIRS_WATCHED 1
/* The files: direnv's, the agents' project configuration. */
static const char *const later_files[] = {
	".envrc",	  ".mcp.json",	 "opencode.json",
	"opencode.jsonc", ".llwrap.ini", ".aider.conf.yml",
};

const char *
gitguard_later_reader(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	if (strcmp(name, ".envrc") == 0 || strncmp(name, ".envrc.", 7) == 0 ||
	    strcmp(name, ".env") == 0)
		return "direnv";
	if (strcmp(name, "opencode.json") == 0 ||
	    strcmp(name, "opencode.jsonc") == 0 ||
	    strcmp(name, ".opencode") == 0)
		return "opencode";
	if (strcmp(name, ".vscode") == 0)
		return "VS Code";
	if (strcmp(name, ".idea") == 0)
		return "a JetBrains IDE";
	if (strcmp(name, ".mcp.json") == 0)
		return "an agent or editor that starts its MCP servers";
	if (strcmp(name, ".llwrap.ini") == 0)
		return "llwrap (the project's own profile)";
	if (strcmp(name, ".claude") == 0)
		return "Claude Code (its hooks)";
	if (strcmp(name, ".cursor") == 0)
		return "Cursor";
	if (strcmp(name, ".gemini") == 0)
		return "Gemini CLI";
	if (strcmp(name, ".devcontainer") == 0)
		return "a dev container's host (initializeCommand)";
	if (strcmp(name, ".aider.conf.yml") == 0)
		return "aider";
	return "direnv or an editor";
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

/* The paths .envrc names after the direnv commands that load files. */
static void
scan_envrc(struct scan *s, const char *project, const char *envrc)
{
	static const char *const cmds[] = { "source_env_if_exists",
					    "source_env", "dotenv_if_exists",
					    "dotenv" };
	_cleanup_free_ char *text = s->fs->read_file(s->fs->ctx, envrc);
	char *save = NULL;

	if (text == NULL)
		return;
	for (char *l = strtok_r(text, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *v = l + strspn(l, " \t");
		bool read = false;

		for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
			size_t n = strlen(cmds[i]);
			_cleanup_free_ char *arg = NULL, *path = NULL;

			if (strncmp(v, cmds[i], n) != 0 ||
			    (v[n] != '\0' && v[n] != ' ' && v[n] != '\t'))
				continue;
			read = true;
			v += n + strspn(v + n, " \t");
			/* One word, or one quoted without expansions. */
			if ((*v == '"' || *v == '\'') &&
			    strchr(v + 1, *v) != NULL) {
				char q = *v++;

				arg = xstrndup(v, strchr(v, q) - v);
				if (strpbrk(arg, "$`") != NULL)
					arg[0] = '\0';
			} else {
				arg = xstrndup(v, strcspn(v, " \t;#\"'$`"));
			}
			/* dotenv alone loads .env. */
			if (*arg == '\0' &&
			    strncmp(cmds[i], "dotenv", 6) == 0) {
				free(arg);
				arg = xstrdup(".env");
			}
			if (*arg == '\0')
				break;
			path = named_path(project, arg);
			/* An existing file is made read-only wherever it
			 * resolves (a mount only narrows); a missing one is
			 * watched for (the host side acts on it) only where
			 * it lies beneath the project without a link. */
			if (path_under(path, project) && kind(s, path) != 0) {
				add(s, path, GITGUARD_RO,
				    "loaded by .envrc (direnv)");
			} else if (path_under(path, project) &&
				   strcmp(path, project) != 0 &&
				   envrc_beneath(s, project, arg)) {
				if (!strv_contains(s->g->missing, path))
					note_missing(s, path);
			} else if (path_under(path, project)) {
				notes_take(
					&s->g->notes,
					xasprintf("%s loads %s, which does "
						  "not exist and is reached "
						  "through a symbolic link or "
						  "'..': not watched",
						  envrc, arg));
			}
			break;
		}
		if (!read && *v != '#')
			envrc_unread(s, envrc, v);
	}
}

struct gitguard *
gitguard_later_run(const char *project, const struct gitguard_fs *fs)
{
	struct gitguard *g = xcalloc(1, sizeof(*g));
	struct scan s = { .fs = fs, .g = g };
	_cleanup_strv_ char **names = NULL;
	_cleanup_strv_ char **missing = NULL;

	g->notes = xcalloc(1, sizeof(char *));
	for (size_t i = 0; i < ARRAY_SIZE(later_dirs); i++) {
		_cleanup_free_ char *p = join(project, later_dirs[i]);

		if (kind(&s, p) != 0) {
			add(&s, p, GITGUARD_RO, "run later, outside");
		} else if (i >= LATER_DIRS_WATCHED) {
			strv_push(&missing, later_dirs[i]);
			strv_push(&g->missing, p);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(later_files); i++) {
		_cleanup_free_ char *p = join(project, later_files[i]);

		if (kind(&s, p) != 0) {
			add(&s, p, GITGUARD_RO, "run later, outside");
		} else {
			strv_push(&missing, later_files[i]);
			strv_push(&g->missing, p);
		}
	}
	/* .envrc.local and the like: what .envrc files source beside it. */
	if ((names = fs->list(fs->ctx, project)) != NULL)
		for (char **n = names; *n != NULL; n++)
			if (strncmp(*n, ".envrc.", 7) == 0) {
				_cleanup_free_ char *p = join(project, *n);

				add(&s, p, GITGUARD_RO, "run later, outside");
			}
	{
		_cleanup_free_ char *envrc = join(project, ".envrc");

		if (kind(&s, envrc) == 'f')
			scan_envrc(&s, project, envrc);
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
	}
	free(g->v);
	strv_free(g->notes);
	strv_free(g->missing);
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

/* Big-endian 32-bit value at p. */
static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/*
 * Calls fn(ctx, path, entry) for each entry of a git index (the text of
 * .git/index, versions 2, 3 and 4), entry pointing at its stat data,
 * mode, object id and flags, path a NUL-terminated buffer of the walk's
 * (valid during the call); fn returns nonzero to stop.  0, or -EINVAL for
 * a file that is not an index as git reads one.
 *
 * Index format (gitformat-index(5)): "DIRC", version, entry count, then
 * entries of 40 bytes of stat data and mode, the object id (hash_len
 * bytes: 20 for SHA-1, 32 for SHA-256) and 2 bytes of flags, 2 more flag
 * bytes when the extended bit is set (version 3 and up), the path.
 *
 * The entries are cut where git cuts them (read-cache.c,
 * create_from_disk), never where a NUL happens to be: the name's length
 * is the low 12 bits of the flags, its bytes counted only when those say
 * 0xfff; versions 2 and 3 pad the entry with NULs to a multiple of 8,
 * version 4 has a varint of bytes to keep from the previous name (ignored
 * for the first) and the rest, NUL-terminated.  A name with a NUL inside
 * it, no NUL after it, or longer than GITGUARD_MAX_PATH (no such path can
 * exist) makes the index one llwrap does not read: the caller fails
 * loudly rather than read it another way than git would.  Linear in the
 * index's size: version 4 names are rebuilt in one buffer.
 */
static int
index_walk(const void *buf, size_t len, size_t hash_len,
	   int (*fn)(void *ctx, const char *path, const unsigned char *entry),
	   void *ctx, size_t *ext_at)
{
	const unsigned char *b = buf, *end = b + len, *e;
	char name[GITGUARD_MAX_PATH + 1];
	size_t name_len = 0;
	uint32_t version, count;

	if (len < 12 || memcmp(b, "DIRC", 4) != 0)
		return -EINVAL;
	version = be32(b + 4);
	count = be32(b + 8);
	if (version < 2 || version > 4 ||
	    (hash_len != GITGUARD_SHA1_LEN && hash_len != GITGUARD_SHA256_LEN))
		return -EINVAL;
	e = b + 12;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *entry = e, *p;
		size_t fixed = 40 + hash_len + 2, copy = 0, total, tail;
		uint16_t flags;

		if ((size_t)(end - e) < fixed)
			return -EINVAL;
		flags = (uint16_t)(e[fixed - 2] << 8 | e[fixed - 1]);
		if ((flags & 0x4000) != 0) {
			if (version < 3)
				return -EINVAL;
			fixed += 2;
		}
		if ((size_t)(end - e) < fixed)
			return -EINVAL;
		p = e + fixed;
		if (version == 4) {
			uint64_t strip;
			unsigned char c;

			/* git's varint: 7 bits a byte, each continuation
			 * adding one before the shift. */
			if (p >= end)
				return -EINVAL;
			c = *p++;
			strip = c & 0x7f;
			while (c & 0x80) {
				if (p >= end || strip >= (1ULL << 40))
					return -EINVAL;
				c = *p++;
				strip = ((strip + 1) << 7) | (c & 0x7f);
			}
			if (i > 0) {
				if (strip > name_len)
					return -EINVAL;
				copy = name_len - (size_t)strip;
			}
		}
		/* The name: copy bytes of the previous one, then tail bytes
		 * here, then a NUL. */
		if ((flags & 0xfff) == 0xfff) {
			const unsigned char *nul =
				memchr(p, '\0', (size_t)(end - p));

			if (nul == NULL)
				return -EINVAL;
			tail = (size_t)(nul - p);
			total = copy + tail;
		} else {
			total = flags & 0xfff;
			if (total < copy)
				return -EINVAL;
			tail = total - copy;
		}
		if (total > GITGUARD_MAX_PATH || (size_t)(end - p) <= tail ||
		    p[tail] != '\0' || memchr(p, '\0', tail) != NULL)
			return -EINVAL;
		memcpy(name + copy, p, tail);
		name[total] = '\0';
		name_len = total;
		if (version == 4) {
			e = p + tail + 1;
		} else {
			/* NULs to a multiple of 8 (1 to 8 of them). */
			size_t n = (fixed + total + 8) & ~(size_t)7;

			if ((size_t)(end - e) < n)
				return -EINVAL;
			e += n;
		}
		if (fn(ctx, name, entry) != 0)
			return 0;
	}
	if (ext_at != NULL)
		*ext_at = (size_t)(e - b);
	return 0;
}

/*
 * The shared index a split index links to (its "link" extension):
 * "sharedindex.HEX" in *shared, or NULL when it links to none.  The
 * extensions follow the entries (from at) up to the trailing checksum:
 * a signature, a 32-bit size, the data.  -EINVAL when they do not fit.
 */
static int
index_link(const unsigned char *b, size_t len, size_t at, size_t hash_len,
	   char **shared)
{
	*shared = NULL;
	if (len < hash_len || at > len - hash_len)
		return -EINVAL;
	len -= hash_len;
	while (len - at >= 8) {
		uint32_t size = be32(b + at + 4);
		bool zero = true;

		if (size > len - at - 8)
			return -EINVAL;
		if (memcmp(b + at, "link", 4) == 0) {
			if (size < hash_len)
				return -EINVAL;
			for (size_t i = 0; i < hash_len; i++)
				zero = zero && b[at + 8 + i] == 0;
			if (zero)
				return 0;
			*shared =
				xmalloc(sizeof("sharedindex.") + 2 * hash_len);
			strcpy(*shared, "sharedindex.");
			for (size_t i = 0; i < hash_len; i++)
				snprintf(*shared + 12 + 2 * i, 3, "%02x",
					 b[at + 8 + i]);
			return 0;
		}
		at += 8 + size;
	}
	return 0;
}

/* The gitlinks of an index, at most GITGUARD_MAX_LINKS of them. */
struct links {
	char **v;
	size_t n, cap;
	bool over;
};

static int
collect_gitlink(void *ctx, const char *path, const unsigned char *entry)
{
	struct links *l = ctx;

	if ((be32(entry + 24) & 0170000) != 0160000)
		return 0;
	if (l->n >= GITGUARD_MAX_LINKS) {
		l->over = true;
		return 1;
	}
	if (l->n + 1 >= l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(char *));
	}
	l->v[l->n++] = xstrdup(path);
	l->v[l->n] = NULL;
	return 0;
}

int
gitguard_index_gitlinks(const void *buf, size_t len, size_t hash_len,
			char ***paths, char **shared)
{
	struct links l = { .v = xcalloc(1, sizeof(char *)), .cap = 1 };
	size_t at = 0;
	int r;

	*paths = NULL;
	if (shared != NULL)
		*shared = NULL;
	r = index_walk(buf, len, hash_len, collect_gitlink, &l, &at);
	if (r == 0 && l.over)
		r = -E2BIG;
	if (r == 0 && shared != NULL &&
	    index_link(buf, len, at, hash_len, shared) < 0)
		r = -EINVAL;
	if (r < 0) {
		strv_free(l.v);
		return r;
	}
	*paths = l.v;
	return 0;
}

struct find {
	const char *path;
	struct gitguard_index_entry *out;
	bool found;
};

static int
find_entry(void *ctx, const char *path, const unsigned char *e)
{
	struct find *f = ctx;

	if (strcmp(path, f->path) != 0)
		return 0;
	*f->out = (struct gitguard_index_entry){
		.ctime_sec = be32(e),
		.ctime_nsec = be32(e + 4),
		.mtime_sec = be32(e + 8),
		.mtime_nsec = be32(e + 12),
		.dev = be32(e + 16),
		.ino = be32(e + 20),
		.mode = be32(e + 24),
		.uid = be32(e + 28),
		.gid = be32(e + 32),
		.size = be32(e + 36),
		.flags = (uint16_t)(e[60] << 8 | e[61]),
	};
	/* Version 3 and up: skip-worktree and intent-to-add. */
	if ((f->out->flags & 0x4000) != 0)
		f->out->ext_flags = (uint16_t)(e[62] << 8 | e[63]);
	f->found = true;
	return 1;
}

int
gitguard_index_find(const void *buf, size_t len, const char *path,
		    struct gitguard_index_entry *out)
{
	struct find f = { .path = path, .out = out };
	int r = index_walk(buf, len, GITGUARD_SHA1_LEN, find_entry, &f, NULL);

	if (r < 0)
		return r;
	return f.found ? 0 : -ENOENT;
}

bool
gitguard_unchanged(const struct gitguard_index_entry *e, const struct stat *st,
		   const struct timespec *index_mtime)
{
	/* A conflict (stage bits), assume-valid, skip-worktree or
	 * intent-to-add: git does not vouch for the file's contents. */
	if ((e->flags & 0xb000) != 0 || (e->ext_flags & 0x6000) != 0 ||
	    (e->mode & 0170000) != 0100000 || !S_ISREG(st->st_mode))
		return false;
	/* Git's own test (ie_match_stat), every field, 32-bit as the
	 * index stores them; a zero inode or device (an index written
	 * without them) proves nothing. */
	if (e->ino == 0 || e->dev == 0 || e->ino != (uint32_t)st->st_ino ||
	    e->dev != (uint32_t)st->st_dev ||
	    e->size != (uint32_t)st->st_size ||
	    (uint64_t)e->size != (uint64_t)st->st_size ||
	    e->uid != (uint32_t)st->st_uid || e->gid != (uint32_t)st->st_gid ||
	    e->mtime_sec != (uint32_t)st->st_mtim.tv_sec ||
	    e->mtime_nsec != (uint32_t)st->st_mtim.tv_nsec ||
	    e->ctime_sec != (uint32_t)st->st_ctim.tv_sec ||
	    e->ctime_nsec != (uint32_t)st->st_ctim.tv_nsec)
		return false;
	/* Racily clean: changed in the same tick the index was written,
	 * the stat data cannot tell (git then compares the contents). */
	if ((uint32_t)index_mtime->tv_sec < e->mtime_sec ||
	    ((uint32_t)index_mtime->tv_sec == e->mtime_sec &&
	     (uint32_t)index_mtime->tv_nsec <= e->mtime_nsec))
		return false;
	return true;
}

bool
gitguard_verify_path(const char *path)
{
	const char *p = path;

	if (*p == '\0')
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");

		/* Empty (a leading, trailing or double slash), "." or "..",
		 * or .git in any case (git refuses it on every system). */
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.') ||
		    (n == 4 && strncasecmp(p, ".git", 4) == 0))
			return false;
		if (p[n] == '\0')
			return true;
		p += n + 1;
	}
}

static int
config_objectformat(void *ctx, const char *section, const char *sub,
		    const char *key, const char *value)
{
	size_t *len = ctx;

	if (section == NULL)
		return 0;
	if (sub == NULL && strcmp(section, "extensions") == 0 &&
	    strcmp(key, "objectformat") == 0 && value != NULL)
		*len = strcasecmp(value, "sha256") == 0 ? GITGUARD_SHA256_LEN
							: GITGUARD_SHA1_LEN;
	return 0;
}

size_t
gitguard_hash_len(const char *config)
{
	size_t len = GITGUARD_SHA1_LEN;

	gitconfig_each(config, config_objectformat, &len);
	return len;
}

static int
config_hooks_path(void *ctx, const char *section, const char *sub,
		  const char *key, const char *value)
{
	char **path = ctx;

	if (section == NULL)
		return 0;
	if (sub == NULL && strcmp(section, "core") == 0 &&
	    strcmp(key, "hookspath") == 0) {
		free(*path);
		*path = value != NULL ? xstrdup(value) : NULL;
	}
	return 0;
}

char *
gitguard_hooks_path(const char *config)
{
	char *path = NULL;

	gitconfig_each(config, config_hooks_path, &path);
	return path;
}

/*
 * What a repository the command made may say in its configuration: what
 * git init, clone, remote, branch and commit write, and settings that run
 * nothing.  "*" stands for a subsection.  Everything else (core.fsmonitor,
 * core.hooksPath, core.sshCommand, core.pager, filters, diff and merge
 * drivers, aliases, credential helpers, includes, ...) could run a command
 * in the user's next git, and is refused.
 */
static const char *const config_safe[] = {
	"core.repositoryformatversion",
	"core.filemode",
	"core.bare",
	"core.logallrefupdates",
	"core.symlinks",
	"core.ignorecase",
	"core.precomposeunicode",
	"core.autocrlf",
	"core.eol",
	"core.safecrlf",
	"core.quotepath",
	"core.compression",
	"core.sparsecheckout",
	"core.worktree",
	"extensions.objectformat",
	"extensions.worktreeconfig",
	"remote.*.url",
	"remote.*.pushurl",
	"remote.*.fetch",
	"remote.*.push",
	"remote.*.tagopt",
	"remote.*.prune",
	"remote.*.mirror",
	"branch.*.remote",
	"branch.*.merge",
	"branch.*.rebase",
	"branch.*.pushremote",
	"user.name",
	"user.email",
	"init.defaultbranch",
	"pull.rebase",
	"pull.ff",
	"push.default",
	"push.autosetupremote",
	"fetch.prune",
	"rebase.autosquash",
	"rebase.autostash",
	"status.showuntrackedfiles",
	"submodule.*.url",
	"submodule.*.active",
	"submodule.*.path",
	"gc.auto",
	"commit.gpgsign",
};

static int
config_unsafe(void *ctx, const char *section, const char *sub, const char *key,
	      const char *value)
{
	char **unsafe = ctx;
	_cleanup_free_ char *name = NULL;

	if (section == NULL) {
		/* A line llwrap cannot read as git does: refused. */
		*unsafe = xstrdup("a line llwrap cannot read");
		return 1;
	}
	name = xasprintf("%s.%s%s", section, sub != NULL ? "*." : "", key);
	(void)value;
	for (size_t i = 0; i < ARRAY_SIZE(config_safe); i++)
		if (strcmp(name, config_safe[i]) == 0)
			return 0;
	if (strncmp(section, "color", 5) == 0 || strcmp(section, "advice") == 0)
		return 0;
	*unsafe = sub != NULL ? xasprintf("%s.%s.%s", section, sub, key)
			      : xasprintf("%s.%s", section, key);
	return 1;
}

char *
gitguard_config_unsafe(const char *config)
{
	char *unsafe = NULL;

	gitconfig_each(config, config_unsafe, &unsafe);
	return unsafe;
}
