/*
 * The bubblewrap fallback (layer F).  See bwrap.h for the mapping of the
 * policy onto bwrap's mounts and namespaces.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap.h"
#include "cleanup.h"
#include "compat/landlock.h"
#include "fdutil.h"
#include "monitor.h"
#include "path.h"
#include "strv.h"
#include "testhook.h"
#include "xalloc.h"

/* The rights that let the command change what is under a path. */
#define WRITE_BITS                                                             \
	(LLW_FS_WRITE_FILE | LLW_FS_REMOVE_DIR | LLW_FS_REMOVE_FILE |          \
	 LLW_FS_MAKE_CHAR | LLW_FS_MAKE_DIR | LLW_FS_MAKE_REG |                \
	 LLW_FS_MAKE_SOCK | LLW_FS_MAKE_FIFO | LLW_FS_MAKE_BLOCK |             \
	 LLW_FS_MAKE_SYM | LLW_FS_TRUNCATE)

/* What bwrap's --dev provides: these rules need no mount of their own. */
static const char *const dev_provided[] = {
	"/dev",	       "/dev/null",    "/dev/zero",    "/dev/full",
	"/dev/random", "/dev/urandom", "/dev/tty",     "/dev/ptmx",
	"/dev/pts",    "/dev/shm",     "/dev/console", "/dev/fd",
	"/dev/stdin",  "/dev/stdout",  "/dev/stderr",  "/dev/core",
};

bool
bwrap_fallback_wanted(const struct ruleset_kernel *k)
{
	return k->abi == 0 && (k->err == ENOSYS || k->err == EOPNOTSUPP);
}

/* True when a rule covers part of the tree at root: on root, beneath it,
 * or on one of its ancestors. */
static bool
rules_touch(const struct plan *fs, const char *root)
{
	for (size_t i = 0; i < fs->n_rules; i++)
		if (path_under(fs->rules[i].path, root) ||
		    path_under(root, fs->rules[i].path))
			return true;
	return false;
}

static bool
dev_is_provided(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(dev_provided); i++)
		if (strcmp(path, dev_provided[i]) == 0)
			return true;
	return path_under(path, "/dev/pts") || path_under(path, "/dev/shm");
}

/*
 * The nodes --dev makes whatever the rules say: the host's null, zero,
 * full, random, urandom and tty bound in (and its terminal as console
 * when stdout is one), a devpts of its own, a directory for shm.  Each
 * one no rule grants is covered (bwrap_argv), so that the view shows
 * only what the policy grants and a watch on the host's /dev/random is
 * refused as an open of it is.  console is the command's own terminal
 * (ttyname(3) finds it there), which a rule on /dev/pts grants as well,
 * where the host names it.  The links --dev makes (fd, stdin, stdout,
 * stderr, core, ptmx) lead into /proc or pts.
 */
static const struct {
	const char *path;
	bool dir;
	const char *also; /* a rule on this grants it too */
} dev_standard[] = {
	{ "/dev/null", false, NULL },
	{ "/dev/zero", false, NULL },
	{ "/dev/full", false, NULL },
	{ "/dev/random", false, NULL },
	{ "/dev/urandom", false, NULL },
	{ "/dev/tty", false, NULL },
	{ "/dev/console", false, "/dev/pts" },
	{ "/dev/pts", true, NULL },
	{ "/dev/shm", true, NULL },
};

/* Whether a rule grants the standard node path: a rule on it or above
 * it, or for a directory one beneath it (the directory is then there,
 * as Landlock lets the command reach what the rule grants). */
static bool
dev_granted(const struct plan *fs, const char *path, bool dir)
{
	for (size_t i = 0; i < fs->n_rules; i++)
		if (path_under(path, fs->rules[i].path) ||
		    (dir && path_under(fs->rules[i].path, path)))
			return true;
	return false;
}

static bool
dev_standard_dir(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(dev_standard); i++)
		if (strcmp(path, dev_standard[i].path) == 0)
			return dev_standard[i].dir;
	return false;
}

size_t
bwrap_empty_files(const struct bwrap_plan *bp, const struct plan *fs)
{
	size_t n = 0;

	for (char **s = bp->dev_hidden; s != NULL && *s != NULL; s++)
		if (!dev_standard_dir(*s))
			n++;
	for (size_t i = 0; i < fs->n_masks; i++)
		if (fs->masks[i].access == LLW_ACCESS_DENY &&
		    !fs->masks[i].is_dir)
			n++;
	return n;
}

/* Where bwrap is looked for before PATH: Ubuntu's AppArmor profile lets
 * only /usr/bin/bwrap create user namespaces; NixOS's security wrapper
 * (a setuid bwrap where the system has one) is in /run/wrappers/bin. */
static const char *const fixed_paths[] = { "/usr/bin/bwrap",
					   "/run/wrappers/bin/bwrap" };

void
bwrap_find(const char *path_env, struct bwrap_binary *b)
{
	struct stat st;

	b->path = testhook_bwrap() ? xstrdup(testhook_bwrap()) : NULL;
	b->setuid = false;
	for (size_t i = 0; b->path == NULL && i < ARRAY_SIZE(fixed_paths); i++)
		if (access(fixed_paths[i], X_OK) == 0)
			b->path = xstrdup(fixed_paths[i]);
	for (const char *s = path_env; b->path == NULL && s && *s != '\0';) {
		size_t n = strcspn(s, ":");

		/* An empty or relative PATH entry would make the sandbox
		 * depend on the current directory: skip it. */
		if (n > 0 && s[0] == '/') {
			_cleanup_free_ char *c =
				xasprintf("%.*s/bwrap", (int)n, s);

			if (access(c, X_OK) == 0)
				b->path = steal_pointer(&c);
		}
		s += n + (s[n] == ':');
	}
	if (b->path != NULL && stat(b->path, &st) == 0)
		b->setuid = (st.st_mode & S_ISUID) && st.st_uid == 0;
}

void
bwrap_binary_clear(struct bwrap_binary *b)
{
	free(b->path);
	b->path = NULL;
	b->setuid = false;
}

static void
add_symlink(struct bwrap_symlink **v, size_t *n, const char *path,
	    const char *target)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].path, path) == 0)
			return;
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n].path = xstrdup(path);
	(*v)[*n].target = xstrdup(target);
	(*n)++;
}

/* Walk path component by component from /, noting each symlink met. */
static void
walk_symlinks(const char *path, struct bwrap_symlink **v, size_t *n)
{
	_cleanup_free_ char *cur = xstrdup("");
	const char *s = path;
	int hops = 0;

	while (*s != '\0') {
		_cleanup_free_ char *cand = NULL;
		char target[PATH_MAX];
		struct stat st;
		size_t len;
		ssize_t t;

		s += strspn(s, "/");
		len = strcspn(s, "/");
		if (len == 0)
			break;
		cand = xasprintf("%s/%.*s", cur, (int)len, s);
		s += len;
		if (lstat(cand, &st) < 0)
			return;
		if (!S_ISLNK(st.st_mode)) {
			free(cur);
			cur = steal_pointer(&cand);
			continue;
		}
		t = readlink(cand, target, sizeof(target) - 1);
		if (t < 0 || ++hops > 40)
			return;
		target[t] = '\0';
		add_symlink(v, n, cand, target);
		free(cur);
		/* Go on from where the link leads, resolved. */
		if ((cur = realpath(cand, NULL)) == NULL)
			return;
		if (strcmp(cur, "/") == 0)
			cur[0] = '\0';
	}
}

void
bwrap_find_symlinks(char *const *paths, struct bwrap_symlink **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	for (char *const *path = paths; path != NULL && *path != NULL; path++)
		walk_symlinks(*path, out, n);
}

bool
bwrap_root_enters(uid_t uid, gid_t gid, mode_t mode)
{
	if (uid == 0 && gid == 0)
		return true;
	return mode & (uid == 0 ? S_IXUSR : gid == 0 ? S_IXGRP : S_IXOTH);
}

/* The first directory above path that root cannot enter in bubblewrap's
 * user namespace, with its stat in st, or NULL. */
static char *
root_blocked_above(const char *path, struct stat *st)
{
	_cleanup_free_ char *dir = xstrdup(path);

	/* Each directory above path, from the top. */
	for (char *slash = strchr(dir + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (stat(dir, st) == 0 && S_ISDIR(st->st_mode) &&
		    !bwrap_root_enters(st->st_uid, st->st_gid, st->st_mode))
			return steal_pointer(&dir);
		*slash = '/';
	}
	return NULL;
}

char *
bwrap_root_unreachable(const struct bwrap_plan *bp, const struct plan *fs)
{
	/* The rules' paths, then the project where the policy grants it
	 * (bound by its path in a private tmp; the command starts there). */
	for (size_t i = 0; i <= fs->n_rules; i++) {
		bool rule = i < fs->n_rules;
		const char *path = rule ? fs->rules[i].path : bp->project;
		_cleanup_free_ char *dir = NULL;
		struct stat st;

		if (path == NULL ||
		    (!rule && bp->project_access == LLW_ACCESS_DENY) ||
		    (dir = root_blocked_above(path, &st)) == NULL)
			continue;
		return xasprintf("%s %s lies inside %s (owner uid %u, mode "
				 "%04o), which root cannot enter in "
				 "bubblewrap's user namespace (root's "
				 "capabilities there cover only root's own "
				 "files); run llwrap as uid %u, or on a kernel "
				 "with Landlock (its backend opens the rules "
				 "before it drops root's capabilities)",
				 rule ? "the rule on" : "the project", path,
				 dir, (unsigned)st.st_uid,
				 (unsigned)(st.st_mode & 07777),
				 (unsigned)st.st_uid);
	}
	return NULL;
}

static void
add_loss(struct bwrap_plan *bp, char *what, const char *needs, bool fatal,
	 enum layers_restriction r)
{
	struct ruleset_loss *l;

	bp->losses = xreallocarray(bp->losses, bp->n_losses + 1,
				   sizeof(*bp->losses));
	l = &bp->losses[bp->n_losses++];
	l->what = what;
	l->needs = xstrdup(needs);
	l->fatal = fatal;
	l->restriction = r;
}

static bool
has_ports(const struct ruleset_inputs *in)
{
	return in->connect_tcp.n > 0 || in->bind_tcp.n > 0 ||
	       in->connect_udp.n > 0 || in->bind_udp.n > 0;
}

/*
 * The losses.  Fatal ones are real holes; the others are reported as
 * "not a hole" with the reason.
 *
 * | restriction                  | under bwrap                            |
 * |------------------------------|----------------------------------------|
 * | filesystem allow-list        | mounts: what has no rule is not there  |
 * | truncate, chmod outside      | read-only mounts (EROFS)               |
 * | TCP/UDP port rules           | lost when the host network is shared   |
 * | net = none                   | private network namespace, lo up       |
 * | signals, ptrace, /proc       | pid namespace: outside is invisible    |
 * | abstract unix sockets        | network namespace; lost when shared    |
 * |                              | and the policy allows AF_UNIX          |
 * | pathname unix sockets        | lost when the policy allows AF_UNIX    |
 * |                              | (as before Landlock ABI 9)             |
 * | execute on ro/rw paths       | lost (no noexec bind), not a hole      |
 */
struct bwrap_plan *
bwrap_plan_new(const struct ruleset_inputs *in, const struct plan *fs,
	       const struct bwrap_symlink *links, size_t n_links)
{
	struct bwrap_plan *bp = xcalloc(1, sizeof(*bp));
	bool noexec = false, proc_whole;
	_cleanup_strv_ char **devices = NULL, **procs = NULL;

	bp->share_net = in->net == RULESET_NET_HOST ||
			(in->net == RULESET_NET_FILTERED && has_ports(in));
	bp->unix_paths = in->unix_paths;
	bp->dev = rules_touch(fs, "/dev");
	for (size_t i = 0; bp->dev && i < ARRAY_SIZE(dev_standard); i++)
		if (!dev_granted(fs, dev_standard[i].path,
				 dev_standard[i].dir) &&
		    (dev_standard[i].also == NULL ||
		     !dev_granted(fs, dev_standard[i].also, true)))
			strv_push(&bp->dev_hidden, dev_standard[i].path);
	bp->proc = rules_touch(fs, "/proc");
	for (size_t i = 0; i < n_links; i++)
		add_symlink(&bp->symlinks, &bp->n_symlinks, links[i].path,
			    links[i].target);

	if (in->net == RULESET_NET_FILTERED && bp->share_net) {
		add_loss(bp,
			 xstrdup("TCP bind/connect port rules (every TCP "
				 "port would be reachable)"),
			 "Landlock ABI 4 (Linux 6.7); bubblewrap has no port "
			 "filtering",
			 true, LAYERS_TCP_PORTS);
		if (in->connect_udp.n > 0 || in->bind_udp.n > 0)
			add_loss(bp,
				 xstrdup("UDP port rules for connect-udp and "
					 "bind-udp (every UDP port would be "
					 "reachable)"),
				 "Landlock ABI 10 (Linux 7.2); bubblewrap has "
				 "no port filtering",
				 true, LAYERS_UDP_PORTS);
	}
	if (in->unix_sockets && bp->share_net)
		add_loss(bp,
			 xstrdup("isolation from abstract unix sockets "
				 "outside the sandbox (session D-Bus, X11)"),
			 "Landlock ABI 6 (Linux 6.12), or a private network "
			 "namespace (net = none, or filtered without ports)",
			 true, LAYERS_ABSTRACT_UNIX);
	if (in->unix_sockets)
		add_loss(bp,
			 xstrdup("denial of pathname unix sockets outside the "
				 "sandbox (docker, ssh-agent, D-Bus system "
				 "bus)"),
			 "Landlock ABI 9 (Linux 7.1)", true, LAYERS_PATH_UNIX);

	for (size_t i = 0; i < fs->n_rules; i++) {
		const struct plan_rule *r = &fs->rules[i];

		if (!(r->access & LLW_FS_EXECUTE))
			noexec = true;
		if (path_under(r->path, "/dev") && !dev_is_provided(r->path))
			strv_push(&devices, r->path);
		if (path_under(r->path, "/proc"))
			strv_push(&procs, r->path);
	}
	for (size_t i = 0; i < fs->n_masks; i++)
		if (fs->masks[i].access == LLW_ACCESS_RO ||
		    fs->masks[i].access == LLW_ACCESS_RW)
			noexec = true;
	if (noexec)
		add_loss(bp,
			 xstrdup("denial of execute on ro and rw paths, "
				 "except for the command itself (ld.so and "
				 "interpreters run such files anyway)"),
			 "Landlock; bubblewrap cannot mount noexec", false,
			 LAYERS_NONE);
	if (devices != NULL) {
		_cleanup_free_ char *list = strv_join(devices, " ");

		add_loss(bp,
			 xasprintf("use of the devices %s (stricter: they are "
				   "mounted nodev; bwrap's private /dev has "
				   "only null, zero, full, random, urandom, "
				   "tty and its own pts, each where a rule "
				   "grants it)",
				   list),
			 "Landlock; bubblewrap binds are nodev", false,
			 LAYERS_NONE);
	}
	proc_whole = false;
	for (size_t i = 0; i < fs->n_rules; i++)
		if (path_under("/proc", fs->rules[i].path))
			proc_whole = true;
	if (procs != NULL && !proc_whole) {
		_cleanup_free_ char *list = strv_join(procs, " ");

		add_loss(bp,
			 xasprintf("limiting /proc to %s (bwrap mounts all of "
				   "the sandbox's own /proc; other processes "
				   "stay invisible)",
				   list),
			 "Landlock", false, LAYERS_NONE);
	}
	return bp;
}

void
bwrap_plan_free(struct bwrap_plan *bp)
{
	if (bp == NULL)
		return;
	for (size_t i = 0; i < bp->n_symlinks; i++) {
		free(bp->symlinks[i].path);
		free(bp->symlinks[i].target);
	}
	free(bp->symlinks);
	strv_free(bp->dev_hidden);
	for (size_t i = 0; i < bp->n_losses; i++) {
		free(bp->losses[i].what);
		free(bp->losses[i].needs);
	}
	free(bp->losses);
	free(bp);
}

bool
bwrap_plan_must_fail(const struct bwrap_plan *bp, bool best_effort)
{
	if (best_effort)
		return false;
	for (size_t i = 0; i < bp->n_losses; i++)
		if (bp->losses[i].fatal)
			return true;
	return false;
}

static void
push2(char ***v, const char *a, const char *b)
{
	strv_push(v, a);
	strv_push(v, b);
}

static void
push3(char ***v, const char *a, const char *b, const char *c)
{
	strv_push(v, a);
	strv_push(v, b);
	strv_push(v, c);
}

/*
 * Whether rule i (or a rule above it, since Landlock rules add up down
 * the tree) lets the command write.  Narrower rules beneath writable
 * ones are masks, applied after the rules.
 */
static bool
rule_writable(const struct plan *fs, size_t i)
{
	for (size_t j = 0; j <= i; j++)
		if ((fs->rules[j].access & WRITE_BITS) &&
		    path_under(fs->rules[i].path, fs->rules[j].path))
			return true;
	return false;
}

static void
bind_rule(char ***v, const struct plan *fs, size_t i)
{
	const char *path = fs->rules[i].path;

	/* -try: a path that vanished since the plan was compiled has
	 * nothing left to grant, as in ruleset_apply(). */
	push3(v, rule_writable(fs, i) ? "--bind-try" : "--ro-bind-try", path,
	      path);
}

/* The private tmp bwrap mounts a tmpfs on that path is in or on, or
 * NULL: /dev/shm only with --dev. */
static const char *
tmp_of(const struct bwrap_plan *bp, const char *path)
{
	const char *t;

	if (!bp->private_tmp || (t = policy_private_tmp_of(path)) == NULL ||
	    (path_under(t, "/dev") && !bp->dev))
		return NULL;
	return t;
}

/* Whether path lies in a private tmp's new tmpfs, where nothing of the
 * host's is bound but the project and what holds it or lies in it. */
static bool
tmp_hides(const struct bwrap_plan *bp, const char *path)
{
	return tmp_of(bp, path) != NULL &&
	       policy_private_tmp_hides(path, bp->project);
}

/* Whether path lies beneath tmp and is bound there. */
static bool
in_tmp_shown(const struct bwrap_plan *bp, const char *path, const char *tmp)
{
	return path_under(path, tmp) && strcmp(path, tmp) != 0 &&
	       !policy_private_tmp_hides(path, bp->project);
}

/*
 * The project where it lies in the private tmp just mounted, with its
 * access, as L3 binds it: before the rules beneath it and the masks, so
 * that they land on top of it.  A rule between the tmp and the project
 * shows it already.  A project the policy denies is not bound (the
 * command starts in an empty directory, as outside a private tmp).
 */
static void
push_tmp_project(char ***v, const struct bwrap_plan *bp, const struct plan *fs,
		 const char *tmp)
{
	const char *project = bp->project;

	if (!path_under(project, tmp) || strcmp(project, tmp) == 0 ||
	    bp->project_access == LLW_ACCESS_DENY)
		return;
	for (size_t i = 0; i < fs->n_rules; i++)
		if (in_tmp_shown(bp, fs->rules[i].path, tmp) &&
		    path_under(project, fs->rules[i].path))
			return;
	push3(v,
	      policy_access_writable(bp->project_access) ? "--bind"
							 : "--ro-bind",
	      project, project);
}

bool
bwrap_mounts_mask(const struct bwrap_plan *bp, const char *path)
{
	return !tmp_hides(bp, path);
}

/* True when something is mounted at path or above it. */
static bool
visible(const struct bwrap_plan *bp, const struct plan *fs, const char *path)
{
	const char *tmp = tmp_of(bp, path);

	/* In a private tmp only what is bound there counts. */
	if (tmp != NULL) {
		if (strcmp(path, tmp) == 0 ||
		    (path_under(path, bp->project) &&
		     bp->project_access != LLW_ACCESS_DENY))
			return true;
		for (size_t i = 0; i < fs->n_rules; i++)
			if (path_under(path, fs->rules[i].path) &&
			    in_tmp_shown(bp, fs->rules[i].path, tmp))
				return true;
		for (size_t i = 0; i < fs->n_masks; i++)
			if (path_under(path, fs->masks[i].path) &&
			    in_tmp_shown(bp, fs->masks[i].path, tmp))
				return true;
		return false;
	}
	if ((bp->dev && path_under(path, "/dev")) ||
	    (bp->proc && path_under(path, "/proc")))
		return true;
	for (size_t i = 0; i < fs->n_rules; i++)
		if (path_under(path, fs->rules[i].path))
			return true;
	for (size_t i = 0; i < fs->n_masks; i++)
		if (path_under(path, fs->masks[i].path))
			return true;
	return false;
}

/*
 * An empty read-only file of mode 0000 at path, read from the next of
 * empty_fds: neither an open nor a watch (EACCES), nor a chmod by the
 * command, which owns it (EROFS).
 */
static void
push_empty_file(char ***v, const char *path, const int *empty_fds, size_t *k)
{
	_cleanup_free_ char *n = xasprintf("%d", empty_fds[(*k)++]);

	push2(v, "--perms", "0000");
	push3(v, "--ro-bind-data", n, path);
}

/*
 * The masks, parents first.  A denied directory is an empty tmpfs of
 * mode 0111, which neither lists nor takes a watch (EACCES) but leads to
 * the masks beneath it, whose mount points bwrap makes in it; it is made
 * read-only only after them (bwrap's --remount-ro does not reach the
 * mounts beneath).  A denied file is an empty file of mode 0000
 * (push_empty_file), as the covers in /dev are.
 */
static void
push_masks(char ***v, const struct bwrap_plan *bp, const struct plan *fs,
	   const int *empty_fds, size_t *k)
{
	_cleanup_free_ const char **open = NULL;
	size_t n_open = 0;

	open = xcalloc(fs->n_masks + 1, sizeof(*open));
	for (size_t i = 0; i < fs->n_masks; i++) {
		const struct plan_mask *m = &fs->masks[i];

		/* The new tmpfs has nothing there to mask (nor beneath). */
		if (!bwrap_mounts_mask(bp, m->path))
			continue;
		while (n_open > 0 && !path_under(m->path, open[n_open - 1]))
			push2(v, "--remount-ro", open[--n_open]);
		switch (m->access) {
		case LLW_ACCESS_DENY:
			if (m->is_dir) {
				push2(v, "--perms", "0111");
				push2(v, "--tmpfs", m->path);
				open[n_open++] = m->path;
			} else {
				push_empty_file(v, m->path, empty_fds, k);
			}
			break;
		case LLW_ACCESS_RO:
		case LLW_ACCESS_RX:
			push3(v, "--ro-bind", m->path, m->path);
			break;
		case LLW_ACCESS_RW:
		case LLW_ACCESS_RWX:
			push3(v, "--bind", m->path, m->path);
			break;
		}
	}
	while (n_open > 0)
		push2(v, "--remount-ro", open[--n_open]);
}

/*
 * Cover the standard nodes no rule grants: a file by an empty file
 * (push_empty_file), a directory by a read-only tmpfs of mode 0000.
 * Neither opens nor takes a watch (EACCES), nor can the command, which
 * owns them, chmod them back.
 */
static void
push_dev_hidden(char ***v, const struct bwrap_plan *bp, const int *empty_fds,
		size_t *k)
{
	for (char **s = bp->dev_hidden; s != NULL && *s != NULL; s++) {
		if (dev_standard_dir(*s)) {
			push2(v, "--perms", "0000");
			push2(v, "--tmpfs", *s);
			push2(v, "--remount-ro", *s);
		} else {
			push_empty_file(v, *s, empty_fds, k);
		}
	}
}

char **
bwrap_argv(const struct bwrap_plan *bp, const struct plan *fs, int seccomp_fd,
	   const int *empty_fds, char *const *argv)
{
	char **v = NULL;
	size_t k = 0;

	strv_push(&v, "--unshare-all");
	if (bp->share_net)
		strv_push(&v, "--share-net");
	strv_push(&v, "--die-with-parent");
	push2(&v, "--cap-drop", "ALL");

	/* /dev and /proc are bwrap's own, so the rules there are not
	 * bound from the host, but for devices --dev does not make.  With
	 * private-tmp so is /tmp, and the rules on it apply to the new
	 * tmpfs, except for the project when it lies there (as in L3). */
	for (size_t i = 0; i < fs->n_rules; i++)
		if (!(bp->dev && path_under(fs->rules[i].path, "/dev")) &&
		    !(bp->proc && path_under(fs->rules[i].path, "/proc")) &&
		    !(bp->private_tmp &&
		      policy_private_tmp_of(fs->rules[i].path)))
			bind_rule(&v, fs, i);
	if (bp->dev)
		push2(&v, "--dev", "/dev");
	if (bp->proc)
		push2(&v, "--proc", "/proc");
	/* private-tmp's tmpfs mounts; /dev/shm is there only with bwrap's
	 * --dev, which has one of its own (a directory, given a tmpfs with
	 * the size limit). */
	for (const char *const *t = policy_private_tmps;
	     bp->private_tmp && *t != NULL; t++) {
		const char *tmp = *t;

		if (path_under(tmp, "/dev") && !bp->dev)
			continue;
		if (bp->tmpfs_size > 0) {
			_cleanup_free_ char *n = xasprintf(
				"%llu", (unsigned long long)bp->tmpfs_size);

			push2(&v, "--size", n);
		}
		push2(&v, "--tmpfs", tmp);
		push_tmp_project(&v, bp, fs, tmp);
		for (size_t i = 0; i < fs->n_rules; i++)
			if (in_tmp_shown(bp, fs->rules[i].path, tmp))
				bind_rule(&v, fs, i);
	}
	for (size_t i = 0; bp->dev && i < fs->n_rules; i++)
		if (path_under(fs->rules[i].path, "/dev") &&
		    !dev_is_provided(fs->rules[i].path))
			bind_rule(&v, fs, i);
	push_dev_hidden(&v, bp, empty_fds, &k);
	push_masks(&v, bp, fs, empty_fds, &k);
	/* The unix allow-list: the supervisor reaches a listed socket as
	 * the command sees the path, so the path is there (read-only: a
	 * connect needs no write on the mount). */
	for (size_t i = 0; i < bp->unix_paths.n; i++)
		if (!tmp_hides(bp, bp->unix_paths.v[i].value) &&
		    !visible(bp, fs, bp->unix_paths.v[i].value))
			push3(&v, "--ro-bind-try", bp->unix_paths.v[i].value,
			      bp->unix_paths.v[i].value);

	/* A link inside a mounted tree is there already; one in a private
	 * tmp's tmpfs leads nowhere. */
	for (size_t i = 0; i < bp->n_symlinks; i++)
		if (!tmp_hides(bp, bp->symlinks[i].path) &&
		    !visible(bp, fs, bp->symlinks[i].path))
			push3(&v, "--symlink", bp->symlinks[i].target,
			      bp->symlinks[i].path);
	/* The command starts in the project even if the policy hides it
	 * (as with Landlock, where chdir needs no right): then it is an
	 * empty directory. */
	if (!visible(bp, fs, bp->project))
		push2(&v, "--dir", bp->project);
	/* What bwrap made to hold the mount points stays read-only. */
	push2(&v, "--remount-ro", "/");

	if (seccomp_fd >= 0) {
		_cleanup_free_ char *n = xasprintf("%d", seccomp_fd);

		push2(&v, "--add-seccomp-fd", n);
	}
	push2(&v, "--chdir", bp->workdir);
	strv_push(&v, "--");
	for (char *const *a = argv; *a != NULL; a++)
		strv_push(&v, *a);
	return v;
}

/* How many arguments each option bwrap_argv() emits takes. */
static int
option_arity(const char *opt)
{
	static const char *const two[] = {
		"--bind",	 "--bind-try", "--ro-bind",
		"--ro-bind-try", "--dev-bind", "--dev-bind-try",
		"--symlink",	 "--setenv",   "--ro-bind-data",
	};
	static const char *const one[] = {
		"--cap-drop", "--dev",	      "--proc",	   "--tmpfs",
		"--size",     "--remount-ro", "--dir",	   "--add-seccomp-fd",
		"--chdir",    "--unsetenv",   "--seccomp", "--perms",
	};

	for (size_t i = 0; i < ARRAY_SIZE(two); i++)
		if (strcmp(opt, two[i]) == 0)
			return 2;
	for (size_t i = 0; i < ARRAY_SIZE(one); i++)
		if (strcmp(opt, one[i]) == 0)
			return 1;
	return 0;
}

static void
append_quoted(char **buf, const char *s)
{
	_cleanup_free_ char *old = *buf;
	_cleanup_free_ char *q = NULL;
	size_t n = 0;

	if (*s != '\0' &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_./:=@%+,-") == strlen(s)) {
		*buf = xasprintf("%s%s", old, s);
		return;
	}
	q = xmalloc(strlen(s) * 4 + 3);
	q[n++] = '\'';
	for (; *s != '\0'; s++) {
		if (*s == '\'') {
			memcpy(q + n, "'\\''", 4);
			n += 4;
		} else {
			q[n++] = *s;
		}
	}
	q[n++] = '\'';
	q[n] = '\0';
	*buf = xasprintf("%s%s", old, q);
}

char *
bwrap_argv_format(char *const *argv)
{
	char *buf = xstrdup("");

	for (char *const *a = argv; *a != NULL;) {
		int n = strcmp(*a, "--") == 0 ? INT_MAX : option_arity(*a);

		append_quoted(&buf, *a++);
		for (int i = 0; i < n && *a != NULL; i++) {
			_cleanup_free_ char *old = buf;

			buf = xasprintf("%s ", old);
			append_quoted(&buf, *a++);
		}
		{
			_cleanup_free_ char *old = buf;

			buf = xasprintf("%s\n", old);
		}
	}
	return buf;
}

int
bwrap_exec_allowed(const struct plan *fs, const char *path)
{
	const struct plan_mask *m = NULL;
	uint64_t bits = 0;
	bool seen = false;

	for (size_t i = 0; i < fs->n_masks; i++)
		if (path_under(path, fs->masks[i].path))
			m = &fs->masks[i]; /* sorted: the last is deepest */
	if (m != NULL) {
		if (m->access == LLW_ACCESS_DENY)
			return -ENOENT;
		return m->access == LLW_ACCESS_RX || m->access == LLW_ACCESS_RWX
			       ? 0
			       : -EACCES;
	}
	for (size_t i = 0; i < fs->n_rules; i++)
		if (path_under(path, fs->rules[i].path)) {
			bits |= fs->rules[i].access;
			seen = true;
		}
	if (!seen)
		return -ENOENT;
	return (bits & LLW_FS_EXECUTE) ? 0 : -EACCES;
}

/*
 * One candidate of the command search: 0 when it runs, -ENOENT when
 * there is no such file, -EACCES when it is there (on the host) but the
 * sandbox would not run it: hidden by the policy, or not granted
 * execute, or not executable at all.
 */
static int
try_command(const struct plan *fs, const char *cand)
{
	_cleanup_free_ char *real = realpath(cand, NULL);
	struct stat st;

	if (real == NULL)
		return errno == EACCES ? -EACCES : -ENOENT;
	if (stat(real, &st) < 0)
		return -ENOENT;
	if (!S_ISREG(st.st_mode) || access(real, X_OK) < 0)
		return -EACCES;
	return bwrap_exec_allowed(fs, real) < 0 ? -EACCES : 0;
}

/*
 * Find argv0 as execvp(3) inside the sandbox will: directly when it has
 * a slash (relative to the project, where the command starts), else on
 * PATH (glibc's default when unset), remembering EACCES while the search
 * goes on.  Returns 0, -ENOENT or -EACCES.
 */
static int
find_command(const struct plan *fs, const char *project, const char *argv0,
	     char *const *env)
{
	const char *path = strv_env_get(env, "PATH");
	int found = -ENOENT;

	if (strchr(argv0, '/') != NULL) {
		_cleanup_free_ char *c =
			argv0[0] == '/' ? xstrdup(argv0)
					: xasprintf("%s/%s", project, argv0);

		return try_command(fs, c);
	}
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (const char *s = path;;) {
		size_t n = strcspn(s, ":");
		_cleanup_free_ char *dir =
			n == 0 ? xstrdup(".") : xstrndup(s, n);
		_cleanup_free_ char *c =
			dir[0] == '/'
				? xasprintf("%s/%s", dir, argv0)
				: xasprintf("%s/%s/%s", project, dir, argv0);
		int r = try_command(fs, c);

		if (r == 0)
			return 0;
		if (r == -EACCES)
			found = -EACCES;
		if (s[n] == '\0')
			break;
		s += n + 1;
	}
	return found;
}

int
bwrap_exec(const struct bwrap_binary *b, const struct bwrap_plan *bp,
	   const struct plan *fs, const struct sock_fprog *prog,
	   char *const *argv, char *const *env, const int *keep, size_t n_keep,
	   int *status, char **cause)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ int *keep_all = NULL, *empty = NULL;
	_cleanup_strv_ char **args = NULL;
	size_t n_empty = bwrap_empty_files(bp, fs);
	char **full;
	size_t len;
	int r, e;

	*status = 125;
	if ((r = find_command(fs, bp->project, argv[0], env)) < 0) {
		*status = r == -ENOENT ? 127 : 126;
		if (r == -EACCES)
			*cause = xasprintf("%s: cannot execute it: %s (does "
					   "the policy grant rx on its "
					   "directory?)",
					   argv[0], strerror(EACCES));
		else
			*cause = xasprintf("%s: command not found", argv[0]);
		return r;
	}

	/* The filter goes to bwrap as a BPF program in a memfd, which bwrap
	 * reads from its current offset and closes. */
	fd = memfd_create("llwrap-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		e = errno;
		*cause = xasprintf("cannot create a memfd for the seccomp "
				   "filter: %s",
				   strerror(e));
		return -e;
	}
	/* The same precompiled program the Landlock backend loads. */
	len = prog->len * sizeof(prog->filter[0]);
	if (write(fd, prog->filter, len) != (ssize_t)len) {
		e = errno;
		*cause = xasprintf("cannot write the seccomp filter: %s",
				   strerror(e));
		return -e;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		e = errno;
		*cause = xasprintf("cannot rewind the seccomp filter: %s",
				   strerror(e));
		return -e;
	}

	/* The empty files of the denied files and of the standard nodes no
	 * rule grants: bwrap reads each from a descriptor of its own, and
	 * closes it, so each is a descriptor of one empty memfd. */
	empty = xcalloc(n_empty + 1, sizeof(*empty));
	for (size_t i = 0; i < n_empty; i++) {
		empty[i] = i == 0 ? memfd_create("llwrap-empty", MFD_CLOEXEC)
				  : fcntl(empty[0], F_DUPFD_CLOEXEC, 3);
		if (empty[i] < 0) {
			e = errno;
			*cause = xasprintf("cannot open an empty file for "
					   "bubblewrap's masks: %s",
					   strerror(e));
			while (i > 0)
				close(empty[--i]);
			return -e;
		}
	}

	/* bwrap passes every fd without FD_CLOEXEC to the command: close
	 * all but the kept ones, the filter's and the empty ones, whose
	 * FD_CLOEXEC fd_close_inherited() clears (bwrap closes the last
	 * two after reading them). */
	keep_all = xcalloc(n_keep + 1 + n_empty, sizeof(*keep_all));
	if (n_keep > 0)
		memcpy(keep_all, keep, n_keep * sizeof(*keep));
	keep_all[n_keep] = fd;
	if (n_empty > 0)
		memcpy(keep_all + n_keep + 1, empty, n_empty * sizeof(*empty));
	if ((r = fd_close_inherited(keep_all, n_keep + 1 + n_empty)) < 0) {
		*cause = xasprintf("cannot close inherited file descriptors: "
				   "%s (is every --keep-fd open?)",
				   strerror(-r));
		return r;
	}

	args = bwrap_argv(bp, fs, fd, empty, argv);
	full = xcalloc(strv_length(args) + 2, sizeof(*full));
	full[0] = b->path;
	memcpy(full + 1, args, strv_length(args) * sizeof(*args));
	monitor_command_signals();
	execve(b->path, full, env);
	e = errno;
	free(full);
	*cause = xasprintf("cannot run %s: %s", b->path, strerror(e));
	return -e;
}
