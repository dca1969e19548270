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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdutil.h"
#include "gitguard.h"
#include "path.h"
#include "strv.h"
#include "xalloc.h"

/* Submodules inside submodules, modules/ inside modules/. */
#define GITGUARD_DEPTH 8
/* The largest .gitmodules or .git file read. */
#define GITGUARD_MAX_FILE (64 * 1024)

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
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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
		strv_push_take(&s->g->notes,
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
	strv_push_take(&s->g->notes,
		       xasprintf("%s names %s, which is not a linked "
				 "worktree's repository as git makes it: not "
				 "made writable (git cannot work here)",
				 dotgit, gitdir));
}

struct gitguard *
gitguard_scan(const char *project, const struct gitguard_fs *fs)
{
	struct gitguard *g = xcalloc(1, sizeof(*g));
	struct scan s = { .fs = fs, .g = g };
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
		strv_push_take(&g->notes,
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
		strv_push_take(&g->notes,
			       xasprintf("%s does not exist: a repository "
					 "created inside the sandbox is not "
					 "protected",
					 dotgit));
		return g;
	}
	scan_submodules(&s, project, 0);
	return g;
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
 * the first two are made when missing.  Not .opencode: opencode writes a
 * .gitignore into every .opencode directory it finds and stops when it
 * cannot, so an empty read-only one would break it. */
static const char *const later_dirs[] = { ".vscode", ".idea", ".opencode" };
#define LATER_DIRS_MADE 2
/* The files: direnv's, the agents' project configuration. */
static const char *const later_files[] = { ".envrc", ".mcp.json",
					   "opencode.json", "opencode.jsonc" };

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
	return "direnv or an editor";
}

/* A file .envrc loads that is missing: noted, and checked after the run. */
static void
note_missing(struct scan *s, const char *path)
{
	strv_push(&s->g->missing, path);
	strv_push_take(&s->g->notes,
		       xasprintf("%s (loaded by .envrc) does not exist: one "
				 "created inside the sandbox would run later",
				 path));
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

		for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
			size_t n = strlen(cmds[i]);
			_cleanup_free_ char *arg = NULL, *path = NULL;

			if (strncmp(v, cmds[i], n) != 0 ||
			    (v[n] != '\0' && v[n] != ' ' && v[n] != '\t'))
				continue;
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
			if (path_under(path, project) && kind(s, path) != 0)
				add(s, path, GITGUARD_RO,
				    "loaded by .envrc (direnv)");
			else if (path_under(path, project) &&
				 !strv_contains(s->g->missing, path))
				note_missing(s, path);
			break;
		}
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

		if (kind(&s, p) != 0)
			add(&s, p, GITGUARD_RO, "run later, outside");
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

		strv_push_take(&g->notes,
			       xasprintf("%s do not exist in %s: a file "
					 "created there inside the sandbox is "
					 "moved aside by the monitor as soon "
					 "as it is made (a new .envrc is left, "
					 "named: direnv asks before loading "
					 "it)",
					 list, project));
	}
	return g;
}

char **
gitguard_later_run_dirs(const char *project, const struct gitguard_fs *fs)
{
	char **v = NULL;

	for (size_t i = 0; i < LATER_DIRS_MADE; i++) {
		_cleanup_free_ char *p = join(project, later_dirs[i]);

		if (fs->kind(fs->ctx, p) == 0)
			strv_push(&v, p);
	}
	return v;
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
 * .git/index, versions 2, 3 and 4), entry pointing at its 62 bytes of
 * stat data, mode, object id and flags; fn returns nonzero to stop.  0,
 * or -EINVAL for a file that is not an index.
 *
 * Index format (gitformat-index(5)): "DIRC", version, entry count, then
 * entries of 62 bytes (20-byte SHA-1 ids; a SHA-256 repository is not
 * read), 2 more flag bytes when the extended bit is set (version 3 and
 * up), the path: NUL-terminated and padded to 8 bytes (versions 2, 3),
 * or, in version 4, a varint of bytes to drop from the previous path and
 * the rest, NUL-terminated, unpadded.
 */
static int
index_walk(const void *buf, size_t len,
	   int (*fn)(void *ctx, const char *path, const unsigned char *entry),
	   void *ctx)
{
	const unsigned char *b = buf, *end = b + len, *e;
	_cleanup_free_ char *prev = NULL;
	uint32_t version, count;

	if (len < 12 || memcmp(b, "DIRC", 4) != 0)
		return -EINVAL;
	version = be32(b + 4);
	count = be32(b + 8);
	if (version < 2 || version > 4)
		return -EINVAL;
	e = b + 12;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *name, *nul, *entry = e;
		size_t fixed = 62;
		uint16_t flags;
		char *path;

		if ((size_t)(end - e) < fixed)
			return -EINVAL;
		flags = (uint16_t)(e[60] << 8 | e[61]);
		if ((flags & 0x4000) != 0) {
			if (version < 3)
				return -EINVAL;
			fixed += 2;
		}
		if ((size_t)(end - e) < fixed)
			return -EINVAL;
		name = e + fixed;
		if (version == 4) {
			uint64_t strip = 0;
			size_t plen = prev != NULL ? strlen(prev) : 0;
			unsigned char c;

			/* git's varint: 7 bits a byte, each continuation
			 * adding one before the shift. */
			if (name >= end)
				return -EINVAL;
			c = *name++;
			strip = c & 0x7f;
			while (c & 0x80) {
				if (name >= end || strip > (1ULL << 40))
					return -EINVAL;
				c = *name++;
				strip = ((strip + 1) << 7) | (c & 0x7f);
			}
			nul = memchr(name, '\0', (size_t)(end - name));
			if (nul == NULL || strip > plen)
				return -EINVAL;
			path = xasprintf("%.*s%s", (int)(plen - strip),
					 prev != NULL ? prev : "",
					 (const char *)name);
			e = nul + 1;
		} else {
			size_t n;

			nul = memchr(name, '\0', (size_t)(end - name));
			if (nul == NULL)
				return -EINVAL;
			/* 1 to 8 NULs: the entry is a multiple of 8. */
			n = ((size_t)(nul - e) + 8) & ~(size_t)7;
			if ((size_t)(end - e) < n)
				return -EINVAL;
			path = xstrdup((const char *)name);
			e += n;
		}
		free(prev);
		prev = path;
		if (fn(ctx, path, entry) != 0)
			break;
	}
	return 0;
}

static int
collect_gitlink(void *ctx, const char *path, const unsigned char *entry)
{
	if ((be32(entry + 24) & 0170000) == 0160000)
		strv_push(ctx, path);
	return 0;
}

int
gitguard_index_gitlinks(const void *buf, size_t len, char ***paths)
{
	char **v = xcalloc(1, sizeof(char *));

	if (index_walk(buf, len, collect_gitlink, &v) < 0) {
		strv_free(v);
		return -EINVAL;
	}
	*paths = v;
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
	int r = index_walk(buf, len, find_entry, &f);

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
