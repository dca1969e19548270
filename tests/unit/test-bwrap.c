/*
 * Unit tests for src/bwrap.c.
 *
 * - golden: a table of policies and compiled plans, each turned into a
 *   bwrap argument vector (bwrap_argv, written one option a line with
 *   bwrap_argv_format) followed by what bwrap cannot enforce, compared
 *   byte for byte with tests/data/bwrap/NAME.args (found through
 *   $LLW_DATA, else relative to this file).  LLW_UPDATE_GOLDEN=1 rewrites
 *   them after a deliberate change; review the diff.
 * - tables: the backend decision, execute checks, quoting, best effort.
 * - the symlink walk on a temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwrap.h"
#include "cleanup.h"
#include "compat/landlock.h"
#include "golden.h"
#include "path.h"
#include "planner.h"
#include "policy.h"
#include "strv.h"
#include "xalloc.h"

struct tcase {
	const char *name;
	enum llw_net_mode net;
	bool tcp_port, udp_port, unix_sockets;
	const char *project;
	/* "ACCESS PATH"; a path in /dev but /dev itself is a file. */
	const char *const *rules;
	/* "ACCESS d|f PATH" */
	const char *const *masks;
	/* "PATH TARGET" */
	const char *const *links;
	int seccomp_fd;
	bool private_tmp;
};

#define PROJ "/home/u/work/proj"

static const char *const default_rules[] = {
	"rw /dev/null", "ro /dev/urandom", "rw /dev/pts", "ro /etc", "ro /proc",
	"rw /tmp",	"rx /usr",	   "rw " PROJ,	  NULL,
};
static const char *const usr_links[] = {
	"/bin usr/bin",
	"/lib64 usr/lib64",
	NULL,
};
static const char *const usr_only[] = { "rx /usr", "rw " PROJ, NULL };
static const char *const home_rules[] = {
	"rx /usr",
	"rw /home/u",
	NULL,
};
static const char *const home_masks[] = {
	"deny d /home/u/.ssh",
	"rw d /home/u/.ssh/agent-dir",
	"deny d /home/u/.ssh/agent-dir/inner",
	"ro d " PROJ "/.git/hooks",
	"deny f " PROJ "/.env",
	"ro f /home/u/.config/llwrap/profiles/mine.ini",
	NULL,
};
static const char *const punched_rules[] = {
	"rx /usr",  "ro /home/u/.bashrc",    "ro /home/u/.config",
	"rw " PROJ, "ro /home/u/work/other", NULL,
};
static const char *const hidden_links[] = {
	"/usr/lib/inside ../share", /* in a mounted tree: already there */
	"/opt/tool /usr/lib/tool",
	"/home/u/work/proj/link /etc", /* in the project: already there */
	NULL,
};
static const char *const device_rules[] = {
	"rw /dev/kvm", "ro /proc/cpuinfo",
	"rx /usr",     "rw /var/lib/x y", /* a blank in a path is quoted */
	NULL,
};
static const char *const root_rules[] = { "ro /", "rw /tmp", NULL };
/* A project in /tmp under a private /tmp (-p opencode's shape): the
 * project is bound into the new tmpfs, its masks on top; the mask on
 * another path there has nothing to mask. */
#define TPROJ "/tmp/w/proj"
static const char *const tmp_rules[] = {
	"rw /dev/null", "rw /dev/shm", "ro /etc", "rw /tmp",
	"rx /usr",	"rw /var/tmp", NULL,
};
static const char *const tmp_masks[] = {
	"deny f " TPROJ "/.env",
	"rwx d " TPROJ "/.git",
	"ro f " TPROJ "/.git/config",
	"ro d " TPROJ "/.git/hooks",
	"ro d /tmp/w/shared",
	"deny d /var/tmp/cache",
	NULL,
};
/* A read-only project in /var/tmp with a writable directory in it, and
 * a rule on another path in /tmp, which the tmpfs hides. */
#define VPROJ "/var/tmp/p"
static const char *const vartmp_rules[] = {
	"ro /tmp/elsewhere",  "rx /usr", "ro /var/tmp",
	"rw " VPROJ "/build", NULL,
};
static const char *const vartmp_links[] = {
	"/tmp/elsewhere/link target", /* hidden by the tmpfs */
	NULL,
};
/* A rule on a directory holding the project shows it. */
static const char *const tmp_above_rules[] = {
	"rw /tmp/w",
	"ro /tmp/w/proj/docs",
	"rx /usr",
	NULL,
};

static const struct tcase cases[] = {
	{ "default", LLW_NET_FILTERED, false, false, false, PROJ, default_rules,
	  NULL, usr_links, 3, false },
	{ "net-none", LLW_NET_NONE, false, false, false, PROJ, usr_only, NULL,
	  NULL, 3, false },
	{ "net-host", LLW_NET_HOST, false, false, false, PROJ, usr_only, NULL,
	  NULL, 3, false },
	{ "tcp-ports", LLW_NET_FILTERED, true, false, false, PROJ, usr_only,
	  NULL, NULL, 3, false },
	{ "udp-ports", LLW_NET_FILTERED, false, true, false, PROJ, usr_only,
	  NULL, NULL, 3, false },
	{ "unix-private-net", LLW_NET_NONE, false, false, true, PROJ, usr_only,
	  NULL, NULL, 3, false },
	{ "unix-host-net", LLW_NET_HOST, false, false, true, PROJ, usr_only,
	  NULL, NULL, 3, false },
	{ "masks", LLW_NET_FILTERED, false, false, false, PROJ, home_rules,
	  home_masks, NULL, 3, false },
	{ "hole-punched", LLW_NET_FILTERED, false, false, false, PROJ,
	  punched_rules, NULL, usr_links, 3, false },
	{ "symlinks", LLW_NET_FILTERED, false, false, false, PROJ, usr_only,
	  NULL, hidden_links, 3, false },
	{ "project-not-granted", LLW_NET_FILTERED, false, false, false,
	  "/srv/p", usr_only, NULL, NULL, -1, false },
	{ "devices-and-proc", LLW_NET_FILTERED, false, false, false, PROJ,
	  device_rules, NULL, NULL, 3, false },
	{ "root", LLW_NET_HOST, false, false, false, PROJ, root_rules, NULL,
	  usr_links, 3, false },
	{ "tmp-project", LLW_NET_FILTERED, false, false, false, TPROJ,
	  tmp_rules, tmp_masks, usr_links, 3, true },
	{ "vartmp-project-ro", LLW_NET_FILTERED, false, false, false, VPROJ,
	  vartmp_rules, NULL, vartmp_links, 3, true },
	{ "tmp-project-above", LLW_NET_FILTERED, false, false, false, TPROJ,
	  tmp_above_rules, NULL, NULL, 3, true },
	{ "tmp-project-not-granted", LLW_NET_FILTERED, false, false, false,
	  TPROJ, usr_only, NULL, NULL, 3, true },
};

/* The descriptors bwrap_argv is given for its empty files, as --explain
 * numbers them. */
/* What bwrap's --dev makes, files bound from the host and its own
 * directories. */
static const char *const dev_nodes[] = {
	"/dev/null", "/dev/zero",    "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty",  "/dev/console", "/dev/pts",  "/dev/shm",
};

static const int empty_fds[] = { 4, 5, 6, 7, 8, 9, 10, 11, 12 };

static enum llw_access
access_of(const char *name)
{
	static const char *const names[] = { "deny", "ro", "rx", "rw", "rwx" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(name, names[i]) == 0)
			return (enum llw_access)i;
	fail_msg("bad access %s", name);
	return LLW_ACCESS_DENY;
}

static struct plan *
plan_of(const struct tcase *c)
{
	struct plan *fs = xcalloc(1, sizeof(*fs));

	for (const char *const *r = c->rules; r && *r; r++) {
		const char *sp = strchr(*r, ' ');
		_cleanup_free_ char *a = xstrndup(*r, (size_t)(sp - *r));
		struct plan_rule *pr;

		fs->rules = xreallocarray(fs->rules, fs->n_rules + 1,
					  sizeof(*fs->rules));
		pr = &fs->rules[fs->n_rules++];
		memset(pr, 0, sizeof(*pr));
		pr->path = xstrdup(sp + 1);
		pr->access = pathtree_access_bits(access_of(a));
		/* Devices are files: only file rights, as pathtree does. */
		if (strncmp(pr->path, "/dev/", 5) == 0 &&
		    strcmp(pr->path, "/dev/pts") != 0)
			pr->access &= LLW_FS_FILE_RIGHTS;
		pr->origin = xstrdup("test");
	}
	for (const char *const *m = c->masks; m && *m; m++) {
		char a[8], kind;
		char path[PATH_MAX];
		struct plan_mask *pm;

		assert_int_equal(sscanf(*m, "%7s %c %4095s", a, &kind, path),
				 3);
		fs->masks = xreallocarray(fs->masks, fs->n_masks + 1,
					  sizeof(*fs->masks));
		pm = &fs->masks[fs->n_masks++];
		pm->path = xstrdup(path);
		pm->access = access_of(a);
		pm->is_dir = kind == 'd';
		pm->origin = xstrdup("test");
	}
	return fs;
}

static struct policy *
policy_of(const struct tcase *c)
{
	struct policy *p = policy_new();
	static struct llw_port_range port = { 443, 443, NULL };

	p->project = xstrdup(c->project);
	p->net = c->net;
	p->private_tmp = c->private_tmp;
	p->unix_sockets = c->unix_sockets;
	/* Borrowed, and taken back before policy_free. */
	if (c->tcp_port) {
		p->connect_tcp.v = &port;
		p->connect_tcp.n = 1;
	}
	if (c->udp_port) {
		p->connect_udp.v = &port;
		p->connect_udp.n = 1;
	}
	return p;
}

static void
policy_drop(struct policy *p)
{
	p->connect_tcp.v = p->connect_udp.v = NULL;
	p->connect_tcp.n = p->connect_udp.n = 0;
	policy_free(p);
}

static struct bwrap_plan *
bwrap_plan_of(const struct tcase *c, const struct policy *p,
	      const struct plan *fs)
{
	struct bwrap_symlink links[8] = { { NULL, NULL } };
	size_t n = 0;
	struct bwrap_plan *bp;

	for (const char *const *l = c->links; l && *l; l++) {
		const char *sp = strchr(*l, ' ');

		links[n].path = xstrndup(*l, (size_t)(sp - *l));
		links[n++].target = xstrdup(sp + 1);
	}
	bp = planner_bwrap_plan(p, fs, links, n);
	for (size_t i = 0; i < n; i++) {
		free(links[i].path);
		free(links[i].target);
	}
	return bp;
}

/* The golden text of one case: the argv, then the losses. */
static char *
render(const struct tcase *c)
{
	struct policy *p = policy_of(c);
	struct plan *fs = plan_of(c);
	struct bwrap_plan *bp = bwrap_plan_of(c, p, fs);
	char *argv[] = { (char *)"cmd", (char *)"--flag", (char *)"a b", NULL };
	_cleanup_strv_ char **args =
		bwrap_argv(bp, fs, c->seccomp_fd, empty_fds, argv);
	_cleanup_free_ char *text = bwrap_argv_format(args);
	char *out = xasprintf("# bwrap arguments for the '%s' case of "
			      "tests/unit/test-bwrap.c\n%s",
			      c->name, text);

	for (size_t i = 0; i < bp->n_losses; i++) {
		_cleanup_free_ char *old = out;

		out = xasprintf("%s# NOT ENFORCED%s: %s (needs %s)\n", old,
				bp->losses[i].fatal ? " (fatal)" : "",
				bp->losses[i].what, bp->losses[i].needs);
	}
	bwrap_plan_free(bp);
	plan_free(fs);
	policy_drop(p);
	return out;
}

static void
test_golden(void **state)
{
	const struct tcase *c = *state;
	_cleanup_free_ char *got = render(c), *want = NULL;
	_cleanup_free_ char *rel = xasprintf("bwrap/%s.args", c->name);

	if (golden_update(rel, got))
		return;
	want = golden_read(rel);
	golden_compare(rel, want, got);
}

/*
 * Under a private tmp: its tmpfs comes before anything mounted in it,
 * which is only the project, what holds it and what lies in it; the
 * project is there (bound, or a directory above it bound) before
 * anything beneath it, or, where the policy denies it, an empty
 * directory made for the command to start in.
 */
static void
check_private_tmp(const struct bwrap_plan *bp, char **v, size_t dashdash)
{
	static const char *const two[] = {
		"--bind",	 "--bind-try",	   "--ro-bind",
		"--ro-bind-try", "--ro-bind-data", "--symlink",
	};
	static const char *const one_target[] = { "--tmpfs", "--dir" };
	const char *project = bp->project;
	const char *ptmp = policy_private_tmp_of(project);
	size_t shown = 0, first_below = 0, dir = 0;

	for (size_t i = 0; i < dashdash; i++) {
		const char *target = NULL, *tmp;
		size_t at = i;

		for (size_t k = 0; k < ARRAY_SIZE(two); k++)
			if (strcmp(v[i], two[k]) == 0) {
				target = v[i + 2];
				i += 2;
			}
		for (size_t k = 0; target == NULL && k < ARRAY_SIZE(one_target);
		     k++)
			if (strcmp(v[i], one_target[k]) == 0) {
				target = v[i + 1];
				i += 1;
			}
		if (target == NULL)
			continue;
		if ((tmp = policy_private_tmp_of(target)) == NULL ||
		    strcmp(tmp, target) == 0)
			continue;
		/* After the tmpfs of its tmp. */
		for (size_t j = 0;; j++) {
			if (j >= at)
				fail_msg("%s mounted before the tmpfs on %s",
					 target, tmp);
			if (strcmp(v[j], "--tmpfs") == 0 &&
			    strcmp(v[j + 1], tmp) == 0)
				break;
		}
		if (policy_private_tmp_hides(target, project))
			fail_msg("%s shown in the private %s", target, tmp);
		if (path_under(project, target) &&
		    strcmp(v[at], "--dir") != 0 && shown == 0)
			shown = at;
		if (path_under(target, project) &&
		    strcmp(target, project) != 0 && first_below == 0)
			first_below = at;
		if (strcmp(v[at], "--dir") == 0 && strcmp(target, project) == 0)
			dir = at;
	}
	if (ptmp == NULL || strcmp(ptmp, project) == 0)
		return;
	if (bp->project_access == LLW_ACCESS_DENY) {
		assert_true(dir > 0 && shown == 0);
		return;
	}
	assert_true(shown > 0 && dir == 0);
	if (first_below > 0)
		assert_true(shown < first_below);
}

/* The invariants every case must keep, whatever the golden files say. */
static void
test_invariants(void **state)
{
	const struct tcase *c = *state;
	struct policy *p = policy_of(c);
	struct plan *fs = plan_of(c);
	struct bwrap_plan *bp = bwrap_plan_of(c, p, fs);
	char *argv[] = { (char *)"cmd", NULL };
	_cleanup_strv_ char **v =
		bwrap_argv(bp, fs, c->seccomp_fd, empty_fds, argv);
	size_t n = strv_length(v), dashdash = 0;
	bool share = false, remount_root = false, chdir = false;

	assert_string_equal(v[0], "--unshare-all");
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i], "--") == 0 && dashdash == 0)
			dashdash = i;
		if (strcmp(v[i], "--share-net") == 0)
			share = true;
		if (strcmp(v[i], "--remount-ro") == 0 && i + 1 < n &&
		    strcmp(v[i + 1], "/") == 0)
			remount_root = true;
		if (strcmp(v[i], "--chdir") == 0)
			chdir = strcmp(v[i + 1], c->project) == 0;
		/* Nothing of the environment goes into the world-readable
		 * argument vector. */
		assert_string_not_equal(v[i], "--setenv");
	}
	assert_true(dashdash > 0);
	assert_string_equal(v[dashdash + 1], "cmd");
	assert_true(bwrap_empty_files(bp, fs) <= ARRAY_SIZE(empty_fds));
	/* Of the nodes bwrap's --dev makes, the view shows only those a
	 * rule grants (on the node or above it, or beneath a directory):
	 * each other one is covered with mode 0000. */
	for (size_t k = 0; bp->dev && k < ARRAY_SIZE(dev_nodes); k++) {
		const char *node = dev_nodes[k];
		bool dir = strcmp(node, "/dev/pts") == 0 ||
			   strcmp(node, "/dev/shm") == 0;
		bool granted = false, covered = false;

		/* console is the command's terminal, which a rule on
		 * /dev/pts grants where the host names it */
		for (size_t i = 0; i < fs->n_rules; i++)
			if (path_under(node, fs->rules[i].path) ||
			    (dir && path_under(fs->rules[i].path, node)) ||
			    (strcmp(node, "/dev/console") == 0 &&
			     (path_under("/dev/pts", fs->rules[i].path) ||
			      path_under(fs->rules[i].path, "/dev/pts"))))
				granted = true;
		/* (A private tmp's tmpfs on /dev/shm is no cover: no
		 * --perms.) */
		for (size_t i = 3; i < dashdash; i++)
			if (strcmp(v[i], node) == 0 &&
			    ((strcmp(v[i - 1], "--tmpfs") == 0 &&
			      strcmp(v[i - 3], "--perms") == 0) ||
			     strcmp(v[i - 2], "--ro-bind-data") == 0)) {
				assert_string_equal(v[i - (dir ? 2 : 3)],
						    "0000");
				covered = true;
			}
		if (granted == covered)
			fail_msg("%s: granted %d, covered %d", node, granted,
				 covered);
	}
	/* A denied file is an empty file of mode 0000, a denied directory
	 * a tmpfs of mode 0111: neither opens nor takes a watch. */
	for (size_t k = 0; k < fs->n_masks; k++) {
		const struct plan_mask *m = &fs->masks[k];
		bool covered = false;

		/* (A private tmp's tmpfs has nothing to mask there.) */
		if (m->access != LLW_ACCESS_DENY ||
		    (c->private_tmp &&
		     policy_private_tmp_hides(m->path, c->project)))
			continue;
		for (size_t i = 3; i < dashdash; i++)
			if (strcmp(v[i], m->path) == 0 &&
			    strcmp(v[i - (m->is_dir ? 1 : 2)],
				   m->is_dir ? "--tmpfs" : "--ro-bind-data") ==
				    0) {
				assert_string_equal(v[i - (m->is_dir ? 3 : 4)],
						    "--perms");
				assert_string_equal(v[i - (m->is_dir ? 2 : 3)],
						    m->is_dir ? "0111"
							      : "0000");
				covered = true;
			}
		if (!covered)
			fail_msg("%s: denied, not covered", m->path);
	}
	if (c->private_tmp)
		check_private_tmp(bp, v, dashdash);
	assert_true(remount_root);
	assert_true(chdir);
	/* The host network only where the command may reach it. */
	assert_int_equal(share, c->net == LLW_NET_HOST ||
					(c->net == LLW_NET_FILTERED &&
					 (c->tcp_port || c->udp_port)));
	/* Port rules bwrap cannot keep are fatal unless best effort. */
	assert_int_equal(
		bwrap_plan_must_fail(bp, p->best_effort),
		(c->net == LLW_NET_FILTERED && (c->tcp_port || c->udp_port)) ||
			c->unix_sockets);
	p->best_effort = true;
	assert_false(bwrap_plan_must_fail(bp, p->best_effort));
	bwrap_plan_free(bp);
	plan_free(fs);
	policy_drop(p);
}

static void
test_fallback_wanted(void **state)
{
	static const struct {
		int abi, err;
		bool want;
	} t[] = {
		{ 0, ENOSYS, true }, { 0, EOPNOTSUPP, true },
		{ 0, EPERM, false }, { 0, 0, false },
		{ 1, 0, false },     { 7, 0, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct ruleset_kernel k = { t[i].abi, t[i].err, 0 };

		assert_int_equal(bwrap_fallback_wanted(&k), t[i].want);
	}
}

/* Root in bwrap's user namespace: which directories it may search. */
static void
test_root_enters(void **state)
{
	static const struct {
		unsigned uid, gid, mode;
		bool want;
	} t[] = {
		{ 0, 0, 0700, true },	     /* root's own: capabilities */
		{ 0, 0, 0000, true },	     /* ... whatever the mode */
		{ 1000, 1000, 0700, false }, /* another user's private */
		{ 1000, 1000, 0711, true },  /* ... searchable by others */
		{ 1000, 1000, 0755, true },
		{ 1000, 0, 0750, true },  /* root's group may search */
		{ 1000, 0, 0700, false }, /* ... not when only its owner */
		{ 0, 1000, 0700, true },  /* owner root, a foreign group */
		{ 0, 1000, 0070, false }, /* ... owner bits, not group */
		{ 0, 1000, 0601, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		assert_int_equal(
			bwrap_root_enters(t[i].uid, t[i].gid, t[i].mode),
			t[i].want);
}

static void
test_exec_allowed(void **state)
{
	static const struct tcase c = {
		"exec",	    LLW_NET_FILTERED, false, false, false, PROJ,
		home_rules, home_masks,	      NULL,  3,	    false
	};
	static const struct {
		const char *path;
		int want;
	} t[] = {
		{ "/usr/bin/true", 0 },
		{ "/usr", 0 },
		{ "/home/u/tool", -EACCES },		 /* rw: no execute */
		{ "/home/u/.ssh/id", -ENOENT },		 /* deny mask */
		{ "/home/u/.ssh/agent-dir/x", -EACCES }, /* rw mask */
		{ "/home/u/.ssh/agent-dir/inner/x", -ENOENT },
		{ PROJ "/.git/hooks/pre-commit", -EACCES }, /* ro mask */
		{ "/opt/x", -ENOENT },			    /* no rule */
		{ "/usrx/bin", -ENOENT }, /* prefix by component */
	};
	struct plan *fs = plan_of(&c);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (bwrap_exec_allowed(fs, t[i].path) != t[i].want)
			fail_msg("%s: got %d, want %d", t[i].path,
				 bwrap_exec_allowed(fs, t[i].path), t[i].want);
	plan_free(fs);
}

static void
test_format(void **state)
{
	char *v[] = { (char *)"--unshare-all",
		      (char *)"--bind",
		      (char *)"/a b",
		      (char *)"/it's",
		      (char *)"--chdir",
		      (char *)"",
		      (char *)"--",
		      (char *)"sh",
		      (char *)"-c",
		      (char *)"echo $HOME",
		      NULL };
	_cleanup_free_ char *s = bwrap_argv_format(v);

	(void)state;
	assert_string_equal(s, "--unshare-all\n"
			       "--bind '/a b' '/it'\\''s'\n"
			       "--chdir ''\n"
			       "-- sh -c 'echo $HOME'\n");
}

/* The symlink walk on a real tree: a link on the way to a rule is found
 * with its target as written; one inside a link's target too. */
static void
test_find_symlinks(void **state)
{
	char tmpl[] = "/tmp/llw-bwrap-XXXXXX";
	char *dir = mkdtemp(tmpl);
	_cleanup_free_ char *real = NULL, *link = NULL, *inner = NULL;
	_cleanup_free_ char *rule = NULL, *deny = NULL, *want1 = NULL;
	_cleanup_free_ char *want2 = NULL, *sub = NULL;
	struct llw_path_rule rules[2];
	struct bwrap_symlink *links;
	struct policy *p = policy_new();
	size_t n;

	(void)state;
	assert_non_null(dir);
	real = xasprintf("%s/real", dir);
	link = xasprintf("%s/link", dir);
	inner = xasprintf("%s/real/in", dir);
	sub = xasprintf("%s/real/sub", dir);
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(symlink("real", link), 0);
	assert_int_equal(symlink(".", inner), 0);
	rule = xasprintf("%s/link/in/sub", dir);
	deny = xasprintf("%s/link", dir);
	rules[0] =
		(struct llw_path_rule){ rule, LLW_ACCESS_RO, 0, NULL, false };
	rules[1] =
		(struct llw_path_rule){ deny, LLW_ACCESS_DENY, 0, NULL, false };
	p->paths = rules;
	p->n_paths = 2;
	planner_bwrap_symlinks(p, &links, &n);
	want1 = xasprintf("%s/link", dir);
	want2 = xasprintf("%s/real/in", dir);
	/* mkdtemp's directory may itself sit under a link (/tmp): only the
	 * last two matter. */
	assert_true(n >= 2);
	assert_string_equal(links[n - 2].path, want1);
	assert_string_equal(links[n - 2].target, "real");
	assert_string_equal(links[n - 1].path, want2);
	assert_string_equal(links[n - 1].target, ".");
	for (size_t i = 0; i < n; i++) {
		free(links[i].path);
		free(links[i].target);
	}
	free(links);
	p->paths = NULL;
	p->n_paths = 0;
	policy_free(p);
	unlink(inner);
	unlink(link);
	rmdir(sub);
	rmdir(real);
	rmdir(dir);
}

int
main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_fallback_wanted),
		cmocka_unit_test(test_root_enters),
		cmocka_unit_test(test_exec_allowed),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_find_symlinks),
	};
	struct CMUnitTest tests[2 * ARRAY_SIZE(cases) + ARRAY_SIZE(fixed)];
	char *names[ARRAY_SIZE(tests)] = { NULL };
	size_t n = 0;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		names[n] = xasprintf("golden %s", cases[i].name);
		tests[n] = (struct CMUnitTest){ names[n], test_golden, NULL,
						NULL, (void *)&cases[i] };
		n++;
		names[n] = xasprintf("invariants %s", cases[i].name);
		tests[n] = (struct CMUnitTest){ names[n], test_invariants, NULL,
						NULL, (void *)&cases[i] };
		n++;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		tests[n + i] = fixed[i];
	r = _cmocka_run_group_tests("bwrap", tests, n + ARRAY_SIZE(fixed), NULL,
				    NULL);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return r;
}
