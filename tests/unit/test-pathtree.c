/*
 * Unit tests of src/pathtree.c: the path compiler driven by a fake,
 * table-defined filesystem, and pathtree_fs_real on a temporary directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "fakefs.h"
#include "path.h"
#include "pathtree.h"
#include "policy.h"
#include "strv.h"
#include "xalloc.h"

static const char *
level_name(uint64_t bits)
{
	static const char *const names[] = { "deny", "ro", "rx", "rw", "rwx" };

	for (int a = LLW_ACCESS_DENY; a <= LLW_ACCESS_RWX; a++) {
		uint64_t b = pathtree_access_bits(a);

		if (bits == b || bits == (b & LLW_FS_FILE_RIGHTS))
			return names[a];
	}
	return "?";
}

/* The rules and masks of a plan, one line each. */
static char *
render(const struct plan *plan)
{
	_cleanup_strv_ char **lines = xcalloc(1, sizeof(char *));

	for (size_t i = 0; i < plan->n_rules; i++) {
		const struct plan_rule *r = &plan->rules[i];

		strv_push_take(&lines,
			       xasprintf("R %s %s%s %s\n", r->path,
					 level_name(r->access),
					 r->punched ? " p" : "", r->origin));
	}
	for (size_t i = 0; i < plan->n_masks; i++) {
		const struct plan_mask *m = &plan->masks[i];

		strv_push_take(
			&lines,
			xasprintf("M %s %s %s%s %s\n", m->path,
				  level_name(pathtree_access_bits(m->access)),
				  m->is_dir ? "dir" : "file",
				  m->pin ? " pin" : "", m->origin));
	}
	return strv_join(lines, "");
}

struct tcase {
	const char *name;
	const char *const *fs;
	/* "LEVEL PATH [@RANK|@cfg]"; the origin of rule N is "t:N". */
	const char *const *rules;
	bool masks, best_effort;
	int rc;
	const char *expect;	  /* rendered rules and masks, when rc == 0 */
	const char *const *notes; /* substrings, each in some note */
	const char *const *lost;  /* substrings, one per lost line */
	/* the denied paths missing at the start that the watch stops the
	 * run for, in order (plan->absent); none when NULL */
	const char *const *absent;
	const char *const *cause; /* substrings of *cause, when rc < 0 */
	const char *project;	  /* ${PROJECT}, when the case has one */
};

#define V(...)                                                                 \
	(const char *const[])                                                  \
	{                                                                      \
		__VA_ARGS__, NULL                                              \
	}

static enum llw_access
parse_level(const char *s)
{
	static const char *const names[] = { "deny", "ro", "rx", "rw", "rwx" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	fail_msg("bad level %s", s);
	return LLW_ACCESS_DENY;
}

/* pathtree_compile and pathtree_sources on a test's policy, given as
 * the planner gives it (planner_pathtree_input, not linked here). */
static struct pathtree_input
input_of(const struct policy *p)
{
	return (struct pathtree_input){
		.paths = p->paths,
		.n_paths = p->n_paths,
		.project = p->project,
		.best_effort = p->best_effort,
	};
}

static int
compile(const struct policy *p, const struct pathtree_fs *fs, bool masks,
	struct plan **out, char **cause)
{
	struct pathtree_input in = input_of(p);

	return pathtree_compile(&in, fs, masks, out, cause);
}

static struct plan *
sources(const struct policy *p, const struct pathtree_fs *fs)
{
	struct pathtree_input in = input_of(p);

	return pathtree_sources(&in, fs);
}

static void
policy_fill(struct policy *p, const char *const *rules)
{
	size_t n = 0;

	while (rules != NULL && rules[n] != NULL)
		n++;
	p->paths = xcalloc(n ? n : 1, sizeof(*p->paths));
	p->n_paths = n;
	for (size_t i = 0; i < n; i++) {
		_cleanup_strv_ char **w = strv_split_blank(rules[i]);
		struct llw_path_rule *r = &p->paths[i];

		assert_true(strv_length(w) >= 2);
		r->access = parse_level(w[0]);
		r->path = xstrdup(w[1]);
		r->rank = 1;
		if (w[2] != NULL)
			r->rank =
				strcmp(w[2], "@cfg") == 0 ? LLW_RANK_CONFIG
				: strcmp(w[2], "@pin") == 0
					? LLW_RANK_PIN
					: (uint32_t)strtoul(w[2] + 1, NULL, 10);
		r->origin = xasprintf("t:%zu", i + 1);
	}
}

static void
policy_clear(struct policy *p)
{
	for (size_t i = 0; i < p->n_paths; i++) {
		free(p->paths[i].path);
		free(p->paths[i].origin);
	}
	free(p->paths);
}

static bool
strv_has_substr(char *const *v, const char *s)
{
	for (; v != NULL && *v != NULL; v++)
		if (strstr(*v, s) != NULL)
			return true;
	return false;
}

static void
dump(const char *what, char *const *v)
{
	for (; v != NULL && *v != NULL; v++)
		print_message("# %s: %s\n", what, *v);
}

/* resolve_in as the compiler may use it: resolve_at name by name. */
static void
fake_resolve_in(void *ctx, const char *dir, const char *const *names, size_t n,
		int *r, char **out, bool *is_dir)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = NULL;
		is_dir[i] = false;
		r[i] = fake_resolve_at(ctx, dir, names[i], &out[i], &is_dir[i]);
	}
}

static void
run_case(const struct tcase *tc, bool with_resolve_at, bool with_resolve_in)
{
	struct fakefs ffs = { .ents = tc->fs };
	struct pathtree_fs fs = {
		.resolve = fake_resolve,
		.stat = fake_stat,
		.list = fake_list,
		.ctx = &ffs,
		.resolve_at = with_resolve_at ? fake_resolve_at : NULL,
		.resolve_in = with_resolve_in ? fake_resolve_in : NULL,
	};
	struct policy p = { 0 };
	struct plan *plan = NULL;
	_cleanup_free_ char *cause = NULL;
	_cleanup_free_ char *got = NULL;
	int r;

	policy_fill(&p, tc->rules);
	p.best_effort = tc->best_effort;
	p.project = (char *)tc->project;
	r = compile(&p, &fs, tc->masks, &plan, &cause);
	if (r != tc->rc)
		print_message("# %s: rc %d, cause %s\n", tc->name, r,
			      cause ? cause : "(none)");
	assert_int_equal(r, tc->rc);
	if (r < 0) {
		assert_null(plan);
		assert_non_null(cause);
		for (const char *const *s = tc->cause; s && *s; s++) {
			if (strstr(cause, *s) == NULL)
				print_message("# cause: %s\n", cause);
			assert_non_null(strstr(cause, *s));
		}
		policy_clear(&p);
		return;
	}
	assert_non_null(plan);
	got = render(plan);
	if (strcmp(got, tc->expect) != 0) {
		print_message("# %s: got\n%s# expected\n%s", tc->name, got,
			      tc->expect);
		dump("note", plan->notes);
		dump("lost", plan->lost);
	}
	assert_string_equal(got, tc->expect);
	for (const char *const *s = tc->notes; s && *s; s++) {
		if (!strv_has_substr(plan->notes, *s)) {
			print_message("# missing note: %s\n", *s);
			dump("note", plan->notes);
		}
		assert_true(strv_has_substr(plan->notes, *s));
	}
	assert_int_equal(strv_length(plan->absent),
			 strv_length((char *const *)tc->absent));
	for (size_t i = 0; tc->absent != NULL && tc->absent[i] != NULL; i++)
		assert_string_equal(plan->absent[i], tc->absent[i]);
	assert_int_equal(strv_length(plan->lost),
			 strv_length((char *const *)tc->lost));
	for (const char *const *s = tc->lost; s && *s; s++) {
		if (!strv_has_substr(plan->lost, *s))
			dump("lost", plan->lost);
		assert_true(strv_has_substr(plan->lost, *s));
	}
	plan_free(plan);
	policy_clear(&p);
}

/* A home directory most cases share. */
#define HOME_FS                                                                \
	"f:/h/.bashrc", "f:/h/.ssh/id_ed25519", "d:/h/.ssh/agent-dir",         \
		"f:/h/.aws/credentials", "f:/h/docs/a.txt",                    \
		"l:/h/keys:/h/.ssh", "l:/h/dead:/nowhere", "d:/h/p/src",       \
		"f:/h/p/.env", "f:/h/p/.git/config", "f:/h/p/.git/hooks/pre",  \
		"f:/usr/bin/sh", "f:/usr/lib/libc.so", "d:/usr/share/doc"

static const struct tcase cases[] = {
	{
		.name = "single rule",
		.fs = V(HOME_FS),
		.rules = V("rx /usr"),
		.expect = "R /usr rx t:1\n",
	},
	{
		.name = "no rule: nothing",
		.fs = V(HOME_FS),
		.rules = V("deny /h"),
		.expect = "",
	},
	{
		.name = "wider inside narrower is a union",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "rw /h/p", "rw /h/.bashrc"),
		.expect = "R /h ro t:1\n"
			  "R /h/.bashrc rw t:3\n"
			  "R /h/p rw t:2\n",
	},
	{
		.name = "equal access beneath adds nothing",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "ro /h/docs", "ro /h/docs"),
		.expect = "R /h ro t:1\n",
	},
	{
		.name = "longest prefix decides",
		.fs = V(HOME_FS),
		.rules = V("rw /h/p/src", "ro /h/p", "rx /h"),
		/* ro /h/p inside rx /h: /h keeps ro, its other entries get
		 * rx, and ro /h/p is then already granted. */
		.expect = "R /h ro p t:3\n"
			  "R /h/.aws rx p t:3\n"
			  "R /h/.bashrc rx p t:3\n"
			  "R /h/.ssh rx p t:3\n"
			  "R /h/docs rx p t:3\n"
			  "R /h/p/src rw t:1\n",
	},
	{
		.name = "rank decides at one path",
		.fs = V(HOME_FS),
		.rules = V("deny /h/docs @5", "rw /h/docs @2", "ro /h/docs"),
		.expect = "",
		.notes = V("rw /h/docs (t:2): overridden by deny /h/docs "
			   "(t:1)"),
	},
	{
		.name = "at equal rank the later rule wins",
		.fs = V(HOME_FS),
		.rules = V("ro /h/docs @3", "rw /h/docs @3"),
		.expect = "R /h/docs rw t:2\n",
	},
	{
		.name = "prefixes are component-wise",
		.fs = V("d:/a/b/x", "d:/a/bc/y", "f:/a/c"),
		.rules = V("rw /a/b", "ro /a/bc", "ro /a", "deny /a/b/x"),
		.masks = true,
		.expect = "R /a ro t:3\n"
			  "R /a/b rw t:1\n"
			  "M /a/b/x deny dir t:4\n",
	},
	{
		.name = "component-wise: /a/bc is a sibling of /a/b",
		.fs = V("d:/a/b/x", "d:/a/bc/y", "f:/a/c"),
		.rules = V("ro /a", "deny /a/b"),
		.expect = "R /a/bc ro p t:1\n"
			  "R /a/c ro p t:1\n",
		.notes = V("/a: cannot be listed"),
	},
	{
		.name = "deny in a read-only home: the exact sibling set",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "deny /h/.ssh"),
		.masks = true,
		/* keys (a symlink to .ssh) and dead (dangling) get no rule */
		.expect = "R /h/.aws ro p t:1\n"
			  "R /h/.bashrc ro p t:1\n"
			  "R /h/docs ro p t:1\n"
			  "R /h/p ro p t:1\n",
		.notes = V("/h: cannot be listed in the sandbox, because "
			   "hiding /h/.ssh (t:2)"),
	},
	{
		.name = "deep punch",
		.fs = V("f:/h/a/b/.ssh/k", "f:/h/a/b/c", "d:/h/a/d", "f:/h/e"),
		.rules = V("ro /h", "deny /h/a/b/.ssh"),
		.expect = "R /h/a/b/c ro p t:1\n"
			  "R /h/a/d ro p t:1\n"
			  "R /h/e ro p t:1\n",
		.notes = V("/h: cannot be listed", "/h/a: cannot be listed",
			   "/h/a/b: cannot be listed"),
	},
	{
		.name = "rw inside deny inside ro",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "deny /h/.ssh", "rw /h/.ssh/agent-dir"),
		.expect = "R /h/.aws ro p t:1\n"
			  "R /h/.bashrc ro p t:1\n"
			  "R /h/.ssh/agent-dir rw t:3\n"
			  "R /h/docs ro p t:1\n"
			  "R /h/p ro p t:1\n",
	},
	{
		.name = "several denies in one parent punch once",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "deny /h/.ssh", "deny /h/.aws",
			   "deny /h/.gnupg"),
		.expect = "R /h/.bashrc ro p t:1\n"
			  "R /h/docs ro p t:1\n"
			  "R /h/p ro p t:1\n",
		.notes = V("deny /h/.gnupg (t:4): does not exist; nothing to "
			   "hide, not created"),
	},
	{
		.name = "narrower inside rx keeps what both grant",
		.fs = V(HOME_FS),
		.rules = V("rx /usr", "ro /usr/share"),
		.expect = "R /usr ro p t:1\n"
			  "R /usr/bin rx p t:1\n"
			  "R /usr/lib rx p t:1\n",
	},
	{
		.name = "inside writable with masks: parent whole, masks",
		.fs = V(HOME_FS),
		.rules = V("rw /h/p", "deny /h/p/.env", "ro /h/p/.git/hooks"),
		.masks = true,
		.expect = "R /h/p rw t:1\n"
			  "M /h/p/.env deny file t:2\n"
			  "M /h/p/.git/hooks ro dir t:3\n",
	},
	{
		.name = "inside writable without masks fails closed",
		.fs = V(HOME_FS),
		.rules = V("rw /h/p", "ro /h/p/.git/hooks", "deny /h/p/.env"),
		.rc = -EPERM,
		.cause =
			V("deny /h/p/.env (t:3) is inside rw /h/p (t:1)",
			  "writable", "created in /h/p later", "--best-effort"),
	},
	{
		.name = "inside writable, best effort: punched, loss reported",
		.fs = V(HOME_FS),
		.rules = V("rw /h/p", "deny /h/p/.env", "ro /h/p/.git/hooks"),
		.best_effort = true,
		.expect = "R /h/p/.git ro p t:1\n"
			  "R /h/p/.git/config rw p t:1\n"
			  "R /h/p/src rw p t:1\n",
		.lost = V("rw /h/p (t:1): /h/p itself and entries created in "
			  "it later get deny only, because deny /h/p/.env "
			  "(t:2) is hidden",
			  "rw /h/p/.git (t:1): /h/p/.git itself and entries "
			  "created in it later get ro only, because ro "
			  "/h/p/.git/hooks (t:3)"),
	},
	{
		/* Issue 23: a .git the command pointed at ~/.kube between
		 * runs made the read-only rule on .git/config a read of
		 * ~/.kube/config, past its deny. */
		.name = "a grant inside the project that a link leads out of "
			"is dropped",
		.fs = V("f:/h/.kube/config", "l:/h/p/.git:/h/.kube", "f:/h/p/a",
			"l:/h/p/lib:/h/p/a"),
		.project = "/h/p",
		.rules = V("rw /h/p", "ro /h/p/.git/config", "deny /h/.kube",
			   "ro /h/p/lib"),
		.masks = true,
		.expect = "R /h/p rw t:1\n"
			  "M /h/p/a ro file t:4\n",
	},
	{
		.name = "ro home, writable project with a mask inside",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "rw /h/p", "deny /h/p/.env"),
		.masks = true,
		.expect = "R /h ro t:1\n"
			  "R /h/p rw t:2\n"
			  "M /h/p/.env deny file t:3\n",
	},
	{
		.name = "masks nested in masks re-expose",
		.fs = V(HOME_FS),
		.rules = V("rw /h", "deny /h/.ssh", "rw /h/.ssh/agent-dir"),
		.masks = true,
		.expect = "R /h rw t:1\n"
			  "M /h/.ssh deny dir t:2\n"
			  "M /h/.ssh/agent-dir rw dir t:3\n",
	},
	{
		.name = "execute inside a mask needs rule and mask",
		.fs = V("f:/p/a/b/x", "f:/p/a/c"),
		.rules = V("rw /p", "ro /p/a", "rx /p/a/b"),
		.masks = true,
		.expect = "R /p rw t:1\n"
			  "R /p/a/b rx t:3\n"
			  "M /p/a ro dir t:2\n"
			  "M /p/a/b rx dir t:3\n",
	},
	{
		.name = "punching beneath a mask re-exposes with a mask",
		.fs = V("f:/p/a/b/c/x", "f:/p/a/b/d", "d:/p/a/b/e"),
		.rules = V("rw /p", "ro /p/a", "rx /p/a/b", "ro /p/a/b/c"),
		.masks = true,
		.expect = "R /p rw t:1\n"
			  "R /p/a/b/d rx p t:3\n"
			  "R /p/a/b/e rx p t:3\n"
			  "M /p/a ro dir t:2\n"
			  "M /p/a/b rx dir t:3\n",
	},
	{
		.name = "paths must be normalised",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "deny /h//.ssh"),
		.rc = -EINVAL,
		.cause = V("/h//.ssh (t:2) is not absolute and normalised"),
	},
	{
		.name = "missing paths: noted, nothing created",
		.fs = V(HOME_FS),
		.rules = V("ro /h", "deny /h/.gnupg", "rw /h/.cache/x",
			   "deny /h/.bashrc/x"),
		.expect = "R /h ro t:1\n",
		/* (A file made there would be readable: ro /h.) */
		.notes = V("deny /h/.gnupg (t:2): does not exist at the start; "
			   "nothing to mask, not created: the run is stopped "
			   "if it appears",
			   "rw /h/.cache/x (t:3): does not exist; rule dropped",
			   "deny /h/.bashrc/x (t:4): does not exist"),
		.absent = V("/h/.bashrc/x", "/h/.gnupg"),
	},
	{
		.name = "missing deny inside writable needs no mask",
		.fs = V(HOME_FS),
		.rules = V("rw /h/p", "deny /h/p/.envrc"),
		.expect = "R /h/p rw t:1\n",
		.notes = V("deny /h/p/.envrc (t:2): does not exist"),
		.absent = V("/h/p/.envrc"),
	},
	{
		.name = "missing deny no rule reaches: not watched",
		.fs = V(HOME_FS),
		.rules = V("rw /h/p", "deny /h/q/.env"),
		.expect = "R /h/p rw t:1\n",
		.notes = V("deny /h/q/.env (t:2): does not exist; nothing to "
			   "hide, not created"),
	},
	{
		.name = "a rule through a symlink lands on the target",
		.fs = V("l:/h/proj:/data/proj", "d:/data/proj/src",
			"f:/data/proj/.env", "d:/data/other"),
		.rules = V("rw /h/proj", "deny /h/proj/.env", "ro /data"),
		.masks = true,
		.expect = "R /data ro t:3\n"
			  "R /data/proj rw t:1\n"
			  "M /data/proj/.env deny file t:2\n",
		.notes = V("/h/proj (t:1): resolves to /data/proj",
			   "/h/proj/.env (t:2): resolves to /data/proj/.env"),
	},
	{
		.name = "two spellings of one path: rank decides",
		.fs = V("l:/h/proj:/data/proj", "d:/data/proj/src"),
		.rules = V("rw /h/proj @2", "ro /data/proj @1"),
		.expect = "R /data/proj rw t:1\n",
	},
	{
		.name = "a symlinked directory on the way",
		.fs = V("l:/h:/home/u", "f:/home/u/.ssh/id", "f:/home/u/x"),
		.rules = V("ro /h", "deny /h/.ssh"),
		.expect = "R /home/u/x ro p t:1\n",
	},
	{
		.name = "config file in a read-only area: nothing more",
		.fs = V("f:/h/.config/llwrap/a.ini", "f:/h/x"),
		.rules = V("ro /h", "ro /h/.config/llwrap/a.ini @cfg"),
		.expect = "R /h ro t:1\n",
	},
	{
		.name = "config file in a writable area: masked",
		.fs = V("f:/h/p/.llwrap.ini", "f:/h/p/x"),
		.rules = V("rw /h/p", "ro /h/p/.llwrap.ini @cfg",
			   "rw /h/p/.llwrap.ini @9"),
		.masks = true,
		.expect = "R /h/p rw t:1\n"
			  "M /h/p/.llwrap.ini ro file t:2\n",
	},
	{
		/* Issue 17, class 12: -p T/a/p1.ini --rw T/L, T/L -> a. */
		.name = "config file inside a grant given through a symlink",
		.fs = V("l:/t/L:/t/a", "f:/t/a/p1.ini", "f:/t/a/x"),
		.rules = V("rw /t/L", "ro /t/a/p1.ini @cfg"),
		.masks = true,
		.expect = "R /t/a rw t:1\n"
			  "M /t/a/p1.ini ro file t:2\n",
		.notes = V("/t/L (t:1): resolves to /t/a"),
	},
	{
		/* The profile named through the symlink, the grant not. */
		.name = "config file given through a symlinked path",
		.fs = V("l:/t/L:/t/a", "f:/t/a/p1.ini", "f:/t/a/x"),
		.rules = V("rw /t/a", "ro /t/L/p1.ini @cfg"),
		.masks = true,
		.expect = "R /t/a rw t:1\n"
			  "M /t/a/p1.ini ro file t:2\n",
		.notes = V("/t/L/p1.ini (t:2): resolves to /t/a/p1.ini"),
	},
	{
		/* Execute is not taken away where nothing is writable: that
		 * would punch holes in /usr for nothing. */
		.name = "config file in an rx area: nothing more",
		.fs = V("f:/usr/share/llwrap/a.ini", "f:/usr/bin/sh"),
		.rules = V("rx /usr", "ro /usr/share/llwrap/a.ini @cfg"),
		.expect = "R /usr rx t:1\n",
	},
	{
		/* protect-git: .git bound onto itself, config read-only. */
		.name = "a pin in a writable tree keeps its access",
		.fs = V("f:/p/.git/config", "f:/p/.git/HEAD", "f:/p/a"),
		.rules =
			V("rw /p", "ro /p/.git @pin", "ro /p/.git/config @cfg"),
		.masks = true,
		.expect = "R /p rw t:1\n"
			  "M /p/.git rw dir pin t:2\n"
			  "M /p/.git/config ro file t:3\n",
	},
	{
		/* Hooks stay executable where the project is rwx. */
		.name = "a protected rx rule keeps execute in an rwx tree",
		.fs = V("f:/p/.git/hooks/pre-commit", "f:/p/a"),
		.rules =
			V("rwx /p", "rx /p/.git/hooks @cfg", "ro /p/.git @pin"),
		.masks = true,
		.expect = "R /p rwx t:1\n"
			  "M /p/.git rwx dir pin t:3\n"
			  "M /p/.git/hooks rx dir t:2\n",
	},
	{
		.name = "a pin where nothing is writable: nothing",
		.fs = V("f:/p/.git/config", "f:/p/a"),
		.rules = V("ro /p", "ro /p/.git @pin"),
		.masks = true,
		.expect = "R /p ro t:1\n",
	},
	{
		.name = "a pin without masks fails closed",
		.fs = V("f:/p/.git/HEAD", "f:/p/a"),
		.rules = V("rw /p", "ro /p/.git @pin"),
		.rc = -EPERM,
		.cause = V("/p/.git (t:2) must be pinned", "--best-effort"),
	},
	{
		.name = "a pin without masks, best effort: reported",
		.fs = V("f:/p/.git/HEAD", "f:/p/a"),
		.rules = V("rw /p", "ro /p/.git @pin"),
		.best_effort = true,
		.expect = "R /p rw t:1\n",
		.lost = V("/p/.git (t:2): can be renamed or replaced"),
	},
	{
		.name = "config file in a writable area without masks",
		.fs = V("f:/h/p/.llwrap.ini", "f:/h/p/x"),
		.rules = V("rw /h/p", "ro /h/p/.llwrap.ini @cfg"),
		.rc = -EPERM,
		.cause = V("ro /h/p/.llwrap.ini (t:2) is inside rw /h/p (t:1)"),
	},
	{
		.name = "config file, best effort: punched",
		.fs = V("f:/h/p/.llwrap.ini", "f:/h/p/x"),
		.rules = V("rw /h/p", "ro /h/p/.llwrap.ini @cfg"),
		.best_effort = true,
		.expect = "R /h/p ro p t:1\n"
			  "R /h/p/x rw p t:1\n",
		.lost = V("get ro only"),
	},
	{
		.name = "config file never made readable",
		.fs = V("f:/h/.config/llwrap/a.ini", "f:/h/x", "f:/etc/l.ini"),
		.rules = V("ro /h", "deny /h/.config",
			   "ro /h/.config/llwrap/a.ini @cfg",
			   "ro /etc/l.ini @cfg"),
		.expect = "R /h/x ro p t:1\n",
		.notes = V("/h/.config/llwrap/a.ini (t:3): not reachable",
			   "/etc/l.ini (t:4): not reachable"),
	},
	{
		.name = "config file under a deny that has a grant",
		.fs = V("f:/etc/llwrap/a.ini", "f:/etc/passwd"),
		.rules = V("deny /etc/llwrap/a.ini @4", "rw /etc",
			   "ro /etc/llwrap/a.ini @cfg"),
		.masks = true,
		.expect = "R /etc rw t:2\n"
			  "M /etc/llwrap/a.ini deny file t:1\n",
	},
	{
		.name = "a directory that cannot be listed",
		.fs = V("x:/h/locked", "f:/h/locked/s", "f:/h/locked/t"),
		.rules = V("ro /h/locked", "deny /h/locked/s"),
		.rc = -EACCES,
		.cause = V("Cannot list /h/locked", "deny /h/locked/s (t:2)",
			   "ro /h/locked (t:1)"),
	},
	{
		.name = "rules on the root",
		.fs = V("f:/h/x", "d:/usr/bin", "f:/vmlinuz"),
		.rules = V("ro /", "deny /h"),
		.expect = "R /usr ro p t:1\n"
			  "R /vmlinuz ro p t:1\n",
		.notes = V("/: cannot be listed"),
	},
	{
		.name = "execute narrowed in a writable directory",
		.fs = V("f:/p/a/x", "f:/p/b"),
		.rules = V("rwx /p", "rw /p/a"),
		.masks = true,
		.expect = "R /p rwx t:1\n"
			  "M /p/a rw dir t:2\n",
	},
	{
		.name = "an unlistable parent beside the rule is never listed",
		.fs = V("x:/h", "f:/h/a", "f:/h/b"),
		.rules = V("ro /h", "rw /h/a"),
		.expect = "R /h ro t:1\n"
			  "R /h/a rw t:2\n",
	},
	{
		/* Siblings resolved together, some named twice. */
		.name = "siblings named twice resolve once each",
		.fs = V("d:/h/a", "f:/h/b", "d:/h/d", "l:/h/e:/h/a"),
		.rules = V("ro /h/a", "rw /h/a", "ro /h/b", "ro /h/c",
			   "ro /h/d", "rx /h/d", "ro /h/e", "rw /h/b"),
		.expect = "R /h/a ro t:7\n"
			  "R /h/b rw t:8\n"
			  "R /h/d rx t:6\n",
		.notes = V("ro /h/c (t:4): does not exist",
			   "/h/e (t:7): resolves to /h/a"),
	},
};

/* Each case runs with and without the optional resolve_at, and with
 * resolve_in too. */
static void
test_case(void **state)
{
	run_case(*state, false, false);
	run_case(*state, true, false);
	run_case(*state, true, true);
}

/* Many rules: correct results, every resolve once per distinct path. */
static int n_resolve;

static int
count_resolve(void *ctx, const char *path, char **out)
{
	n_resolve++;
	return fake_resolve(ctx, path, out);
}

static void
test_many_rules(void **state)
{
	const char *ents[] = { "d:/h/x", NULL };
	struct fakefs ffs = { .ents = ents };
	struct pathtree_fs fs = { count_resolve, fake_stat, fake_list,
				  &ffs,		 NULL,	    NULL };
	struct policy p = { 0 };
	struct plan *plan = NULL;
	_cleanup_free_ char *cause = NULL;
	enum { N = 1000 };
	_cleanup_strv_ char **rules = xcalloc(1, sizeof(char *));

	(void)state;
	for (int i = 0; i < N; i++)
		strv_push_take(&rules, xasprintf("%s /h/x/d%03d",
						 i % 2 ? "ro" : "rw", i % 500));
	policy_fill(&p, (const char *const *)rules);
	/* None exist: every rule is dropped with a note. */
	n_resolve = 0;
	assert_int_equal(compile(&p, &fs, true, &plan, &cause), 0);
	assert_int_equal(n_resolve, 500);
	assert_int_equal(plan->n_rules, 0);
	plan_free(plan);
	policy_clear(&p);
}

/* plan_decide: the rules on a resolved path's ancestors together, the
 * deepest mask narrowing them; a rule on a symlink is the target's. */
static void
test_decide(void **state)
{
	const char *ents[] = { "d:/h/real/sub", "f:/h/real/secret",
			       "l:/h/link:/h/real", "f:/h/ro/file", NULL };
	const char *rules[] = { "rw /h/link", "deny /h/real/secret", "ro /h/ro",
				NULL };
	struct fakefs ffs = { .ents = ents };
	struct pathtree_fs fs = { fake_resolve, fake_stat, fake_list,
				  &ffs,		NULL,	   NULL };
	struct policy p = { 0 };
	struct plan *plan = NULL;
	_cleanup_free_ char *cause = NULL;
	struct plan_verdict v;

	(void)state;
	policy_fill(&p, rules);
	assert_int_equal(compile(&p, &fs, true, &plan, &cause), 0);
	v = plan_decide(plan, "/h/real/sub", LLW_FS_MAKE_SOCK);
	assert_true(v.allowed);
	assert_int_equal(v.layer, PLAN_LANDLOCK);
	assert_string_equal(v.rule, "/h/real");
	v = plan_decide(plan, "/h/real/secret", LLW_FS_READ_FILE);
	assert_false(v.allowed);
	assert_int_equal(v.layer, PLAN_MASK);
	assert_string_equal(v.rule, "/h/real/secret");
	v = plan_decide(plan, "/h/ro/file", LLW_FS_READ_FILE);
	assert_true(v.allowed);
	v = plan_decide(plan, "/h/ro/file",
			LLW_FS_READ_FILE | LLW_FS_WRITE_FILE);
	assert_false(v.allowed);
	assert_int_equal(v.layer, PLAN_LANDLOCK);
	v = plan_decide(plan, "/h/realm", LLW_FS_READ_FILE);
	assert_false(v.allowed);
	assert_int_equal(v.layer, PLAN_NO_RULE);
	/* Lexically the rule is on /h/link: nothing under it is decided by
	 * that name (callers pass resolved paths). */
	assert_false(plan_decide(plan, "/h/link/sub", LLW_FS_READ_DIR).allowed);
	/* The rule holding a path is named at its resolved path too: the
	 * deepest, as written, allowed or not. */
	v = plan_decide(plan, "/h/real/sub", LLW_FS_EXECUTE);
	assert_false(v.allowed);
	assert_non_null(v.source);
	assert_string_equal(v.source->written, "/h/link");
	assert_string_equal(v.source->path, "/h/real");
	assert_int_equal(v.source->access, LLW_ACCESS_RW);
	v = plan_decide(plan, "/h/real/secret", LLW_FS_READ_FILE);
	assert_int_equal(v.source->access, LLW_ACCESS_DENY);
	assert_null(plan_source_at(plan, "/h/link/sub"));
	assert_null(plan_source_at(plan, "/h/realm"));
	/* plan_allows is the verdict alone, the mask's narrowing too. */
	assert_true(plan_allows(plan, "/h/real/sub", LLW_FS_MAKE_SOCK));
	assert_false(plan_allows(plan, "/h/real/secret", LLW_FS_READ_FILE));
	assert_true(plan_allows(plan, "/h/ro/file", LLW_FS_READ_FILE));
	assert_false(plan_allows(plan, "/h/ro/file",
				 LLW_FS_READ_FILE | LLW_FS_WRITE_FILE));
	assert_false(plan_allows(plan, "/h/realm", LLW_FS_READ_FILE));
	/* A rule (the link's, at its target) and a mask lie at these paths
	 * themselves; nothing at their children, nor at a lexical prefix. */
	assert_true(plan_holds_at(plan, "/h/real"));
	assert_true(plan_holds_at(plan, "/h/real/secret"));
	assert_true(plan_holds_at(plan, "/h/ro"));
	assert_false(plan_holds_at(plan, "/h/real/sub"));
	assert_false(plan_holds_at(plan, "/h/ro/file"));
	assert_false(plan_holds_at(plan, "/h/realm"));
	assert_false(plan_holds_at(plan, "/h"));
	plan_free(plan);
	policy_clear(&p);
}

/* plan_source_at as a scan of every source, the definition: the last of
 * the sorted sources that holds path. */
static const struct plan_source *
source_scan(const struct plan *plan, const char *path)
{
	const struct plan_source *best = NULL;

	for (size_t i = 0; i < plan->n_sources; i++)
		if (path_under(path, plan->sources[i].path))
			best = &plan->sources[i];
	return best;
}

/*
 * plan_decide and plan_source_at look up a path's ancestors by binary
 * search on the sorted plan: on random policies over a small tree (links,
 * files, masks, several rules at one path) they must meet
 * plan_decide_rules(), which compares path with every rule and mask, and
 * the scan of every source, at every path of the tree and beneath it.
 */
static void
test_decide_sorted(void **state)
{
	static const char *const ents[] = {
		"d:/h/a/a",   "d:/h/a/b", "f:/h/a/f",	 "d:/h/a-b/a",
		"d:/h/b/a/a", "f:/h/b/f", "l:/h/l:/h/a", "l:/h/b/l:/h/a-b",
		"f:/h/f",     "d:/o/a",	  NULL,
	};
	static const char *const paths[] = {
		"/",	    "/h",     "/h/a",	  "/h/a/a",	"/h/a/b",
		"/h/a/f",   "/h/a-b", "/h/a-b/a", "/h/b",	"/h/b/a",
		"/h/b/a/a", "/h/b/f", "/h/l",	  "/h/b/l",	"/h/f",
		"/o",	    "/o/a",   "/h/a/x",	  "/h/a/a/y/z", "/h/ab",
	};
	static const char *const levels[] = { "deny", "ro", "rx", "rw", "rwx" };
	static const char *const ranks[] = {
		"", "", "", " @2", " @cfg", " @pin"
	};
	static const uint64_t rights[] = {
		LLW_FS_READ_FILE, LLW_FS_WRITE_FILE,
		LLW_FS_EXECUTE,	  LLW_FS_READ_DIR,
		LLW_FS_MAKE_SOCK, LLW_FS_READ_FILE | LLW_FS_WRITE_FILE,
	};
	struct fakefs ffs = { .ents = ents };
	struct pathtree_fs fs = { fake_resolve, fake_stat,	 fake_list,
				  &ffs,		fake_resolve_at, NULL };
	unsigned seed = 0x32c;
	size_t compared = 0;

	(void)state;
	for (int round = 0; round < 300; round++) {
		_cleanup_strv_ char **rules = xcalloc(1, sizeof(char *));
		_cleanup_free_ char *cause = NULL;
		struct policy p = { 0 };
		struct plan *plan = NULL;
		int n = 1 + rand_r(&seed) % 8;

		for (int i = 0; i < n; i++)
			strv_push_take(&rules,
				       xasprintf("%s %s%s",
						 levels[rand_r(&seed) % 5],
						 paths[rand_r(&seed) %
						       ARRAY_SIZE(paths)],
						 ranks[rand_r(&seed) %
						       ARRAY_SIZE(ranks)]));
		policy_fill(&p, (const char *const *)rules);
		if (compile(&p, &fs, round % 3 != 0, &plan, &cause) < 0) {
			policy_clear(&p);
			continue;
		}
		for (size_t q = 0; q < ARRAY_SIZE(paths); q++) {
			for (size_t k = 0; k < ARRAY_SIZE(rights); k++) {
				struct plan_verdict a =
					plan_decide(plan, paths[q], rights[k]);
				struct plan_verdict b = plan_decide_rules(
					plan->rules, plan->n_rules, plan->masks,
					plan->n_masks, paths[q], rights[k]);

				assert_int_equal(a.allowed, b.allowed);
				assert_int_equal(a.layer, b.layer);
				assert_ptr_equal(a.rule, b.rule);
				assert_ptr_equal(a.origin, b.origin);
				compared++;
			}
			assert_ptr_equal(plan_source_at(plan, paths[q]),
					 source_scan(plan, paths[q]));
		}
		plan_free(plan);
		policy_clear(&p);
	}
	assert_true(compared > 10000);
}

/* Sources alone, before a compile: the rules at their resolved paths,
 * at one path the highest rank. */
static void
test_sources(void **state)
{
	const char *ents[] = { "d:/h/real/sub", "l:/h/link:/h/real", NULL };
	const char *rules[] = { "rw /h/link", "ro /h/real", "ro /h", NULL };
	struct fakefs ffs = { .ents = ents };
	struct pathtree_fs fs = { fake_resolve, fake_stat, fake_list,
				  &ffs,		NULL,	   NULL };
	struct policy p = { 0 };
	struct plan *plan;
	const struct plan_source *s;

	(void)state;
	policy_fill(&p, rules);
	/* The later rule at /h/real ranks lower: the link's wins. */
	p.paths[0].rank = 5;
	p.paths[1].rank = 1;
	plan = sources(&p, &fs);
	assert_non_null(plan);
	assert_int_equal(plan->n_rules, 0);
	s = plan_source_at(plan, "/h/real/sub/new");
	assert_string_equal(s->written, "/h/link");
	assert_int_equal(s->access, LLW_ACCESS_RW);
	s = plan_source_at(plan, "/h/other");
	assert_string_equal(s->written, "/h");
	assert_int_equal(s->access, LLW_ACCESS_RO);
	plan_free(plan);
	policy_clear(&p);
}

static void
test_access_bits(void **state)
{
	uint64_t ro = LLW_FS_READ_FILE | LLW_FS_READ_DIR;
	uint64_t rw = pathtree_access_bits(LLW_ACCESS_RW);

	(void)state;
	assert_int_equal(pathtree_access_bits(LLW_ACCESS_DENY), 0);
	assert_int_equal(pathtree_access_bits(LLW_ACCESS_RO), ro);
	assert_int_equal(pathtree_access_bits(LLW_ACCESS_RX),
			 ro | LLW_FS_EXECUTE);
	assert_int_equal(rw & (LLW_FS_MAKE_CHAR | LLW_FS_MAKE_BLOCK), 0);
	assert_int_equal(rw & LLW_FS_EXECUTE, 0);
	assert_int_equal(rw, ro | LLW_FS_WRITE_FILE | LLW_FS_REMOVE_DIR |
				     LLW_FS_REMOVE_FILE | LLW_FS_MAKE_DIR |
				     LLW_FS_MAKE_REG | LLW_FS_MAKE_SOCK |
				     LLW_FS_MAKE_FIFO | LLW_FS_MAKE_SYM |
				     LLW_FS_REFER | LLW_FS_TRUNCATE |
				     LLW_FS_IOCTL_DEV);
	assert_int_equal(pathtree_access_bits(LLW_ACCESS_RWX),
			 rw | LLW_FS_EXECUTE);
	/* RESOLVE_UNIX (ABI 9) in no level: on a directory it would make
	 * every socket below connectable; ruleset.c grants it per entry of
	 * the unix allow-list alone. */
	for (int a = LLW_ACCESS_DENY; a <= LLW_ACCESS_RWX; a++)
		assert_int_equal(pathtree_access_bits(a) & LLW_FS_RESOLVE_UNIX,
				 0);
}

/* pathtree_fs_real on a temporary directory. */

static char *
tmp_setup(void)
{
	char *dir = xstrdup("/tmp/llw-pathtree-XXXXXX");
	_cleanup_free_ char *p = NULL;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/a", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/a/b", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	free(p);
	p = xasprintf("%s/f", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	free(p);
	p = xasprintf("%s/l", dir);
	assert_int_equal(symlink("a", p), 0);
	free(p);
	p = xasprintf("%s/dangling", dir);
	assert_int_equal(symlink("nowhere", p), 0);
	return dir;
}

static void
tmp_teardown(const char *dir)
{
	const char *names[] = { "dangling", "l", "f", "a/b", "a", "" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, names[i]);

		assert_int_equal(remove(p), 0);
	}
}

static void
test_real_fs(void **state)
{
	const struct pathtree_fs *fs = &pathtree_fs_real;
	_cleanup_free_ char *dir = tmp_setup();
	_cleanup_free_ char *real = realpath(dir, NULL);
	_cleanup_free_ char *in = NULL, *out = NULL, *want = NULL;
	_cleanup_strv_ char **names = NULL;
	_cleanup_free_ char *joined = NULL;
	bool is_dir = false;

	(void)state;
	assert_non_null(real);

	/* Through a symlink, then missing components appended. */
	in = xasprintf("%s/l/b/missing/x", dir);
	assert_int_equal(fs->resolve(fs->ctx, in, &out), 0);
	want = xasprintf("%s/a/b/missing/x", real);
	assert_string_equal(out, want);
	free(in);
	free(out);
	free(want);
	in = xasprintf("%s/l", dir);
	assert_int_equal(fs->resolve(fs->ctx, in, &out), 0);
	want = xasprintf("%s/a", real);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(fs->resolve(fs->ctx, "/", &out), 0);
	assert_string_equal(out, "/");
	free(out);
	out = NULL;
	assert_int_equal(fs->resolve(fs->ctx, "relative", &out), -EINVAL);
	free(in);

	in = xasprintf("%s/a", dir);
	assert_int_equal(fs->stat(fs->ctx, in, &is_dir), 1);
	assert_true(is_dir);
	free(in);
	in = xasprintf("%s/f", dir);
	assert_int_equal(fs->stat(fs->ctx, in, &is_dir), 1);
	assert_false(is_dir);
	free(in);
	in = xasprintf("%s/f/x", dir);
	assert_int_equal(fs->stat(fs->ctx, in, &is_dir), 0);
	free(in);
	in = xasprintf("%s/dangling", dir);
	assert_int_equal(fs->stat(fs->ctx, in, &is_dir), 0);
	free(in);
	in = NULL;

	assert_int_equal(fs->list(fs->ctx, dir, &names), 0);
	joined = strv_join(names, " ");
	assert_string_equal(joined, "a dangling f l");

	/* The compiler on the real tree: the symlinks get no rule. */
	{
		struct policy p = { 0 };
		struct plan *plan = NULL;
		_cleanup_free_ char *cause = NULL, *got = NULL, *exp = NULL;
		_cleanup_free_ char *r1 = xasprintf("ro %s", dir);
		_cleanup_free_ char *r2 = xasprintf("deny %s/a", dir);
		const char *rules[] = { r1, r2, NULL };

		policy_fill(&p, rules);
		assert_int_equal(compile(&p, fs, false, &plan, &cause), 0);
		got = render(plan);
		exp = xasprintf("R %s/f ro p t:1\n", real);
		assert_string_equal(got, exp);
		plan_free(plan);
		policy_clear(&p);
	}
	tmp_teardown(dir);
}

/*
 * pathtree_fs_real's resolve_in on a directory of directories, files, a
 * fifo, links (to a directory, dangling) and names that are not there:
 * for each name what resolve_at says, whether it reads the directory
 * (from 16 names) or not; and the compiler's plan with it the plan
 * without it, for a run of siblings and for hole punching.
 */
static const char *const sib_made[] = {
	"d00", "d01", "d02", "d03", "d04", "d05", "d06", "d07",
	"d08", "d09", "d10", "d11", "d12", "d13", "d14", "d15",
	"f0",  "f1",  "f2",  "ff",  "ln",  "dl",
};

static void
sib_setup(const char *dir)
{
	for (size_t i = 0; i < ARRAY_SIZE(sib_made); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, sib_made[i]);
		const char *n = sib_made[i];

		if (n[0] == 'd' && n[1] != 'l')
			assert_int_equal(mkdir(p, 0755), 0);
		else if (strcmp(n, "ff") == 0)
			assert_int_equal(mkfifo(p, 0644), 0);
		else if (strcmp(n, "ln") == 0)
			assert_int_equal(symlink("d03", p), 0);
		else if (strcmp(n, "dl") == 0)
			assert_int_equal(symlink("nowhere", p), 0);
		else
			assert_int_equal(close(open(p,
						    O_WRONLY | O_CREAT |
							    O_EXCL | O_CLOEXEC,
						    0644)),
					 0);
	}
}

static void
sib_teardown(const char *dir)
{
	for (size_t i = 0; i < ARRAY_SIZE(sib_made); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, sib_made[i]);

		assert_int_equal(remove(p), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* resolve_in's results for names[0..n) in dir equal resolve_at's; the
 * number of names that differ. */
static int
sib_compare(const char *dir, const char *const *names, size_t n)
{
	const struct pathtree_fs *fs = &pathtree_fs_real;
	int r[64];
	char *out[64];
	bool is_dir[64];
	int bad = 0;

	assert_true(n <= 64);
	fs->resolve_in(fs->ctx, dir, names, n, r, out, is_dir);
	for (size_t i = 0; i < n; i++) {
		char *o = NULL;
		bool d = false;
		int q = fs->resolve_at(fs->ctx, dir, names[i], &o, &d);

		if (q != r[i] || (o == NULL) != (out[i] == NULL) ||
		    (o != NULL && strcmp(o, out[i]) != 0) ||
		    (q == 1 && d != is_dir[i])) {
			print_message("# %s: resolve_at %d %s %d, resolve_in "
				      "%d %s %d\n",
				      names[i], q, o ? o : "-", d, r[i],
				      out[i] ? out[i] : "-", is_dir[i]);
			bad++;
		}
		free(o);
		free(out[i]);
	}
	return bad;
}

static void
test_real_resolve_in(void **state)
{
	char dir[] = "/tmp/llw-resolve-in.XXXXXX";
	const char *names[ARRAY_SIZE(sib_made) + 3];
	size_t n = 0;
	pid_t pid;
	int status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sib_setup(dir);
	/* Unsorted, with missing names first and last. */
	names[n++] = "missing0";
	for (size_t i = ARRAY_SIZE(sib_made); i-- > 0;)
		names[n++] = sib_made[i];
	names[n++] = "missing1";
	names[n++] = "d05";
	assert_int_equal(sib_compare(dir, names, n), 0);
	/* Below 16 names, looked up one by one. */
	assert_int_equal(sib_compare(dir, names, 5), 0);
	assert_int_equal(sib_compare(dir, names + 1, 1), 0);

	/* A directory of 1,000 entries, 60 of them asked for: too large
	 * for its names to pay a read (its size says so), looked up one by
	 * one. */
	{
		char big[] = "/tmp/llw-resolve-in-big.XXXXXX";
		char *bn[60];

		assert_non_null(mkdtemp(big));
		for (int i = 0; i < 1000; i++) {
			_cleanup_free_ char *f = xasprintf("%s/e%04d", big, i);

			assert_int_equal(close(open(f,
						    O_WRONLY | O_CREAT |
							    O_EXCL | O_CLOEXEC,
						    0644)),
					 0);
		}
		for (int i = 0; i < 60; i++)
			bn[i] = xasprintf("e%04d", i * 17);
		assert_int_equal(sib_compare(big, (const char *const *)bn, 60),
				 0);
		for (int i = 0; i < 60; i++)
			free(bn[i]);
		for (int i = 0; i < 1000; i++) {
			_cleanup_free_ char *f = xasprintf("%s/e%04d", big, i);

			assert_int_equal(unlink(f), 0);
		}
		assert_int_equal(rmdir(big), 0);
	}

	/* /proc says size 0: read, but only 8 entries a name, where its
	 * processes come last; those the read did not reach (this one, its
	 * parent) are looked up, not taken for missing. */
	{
		_cleanup_free_ char *self = xasprintf("%d", (int)getpid());
		_cleanup_free_ char *parent = xasprintf("%d", (int)getppid());
		const char *pn[] = { "1",	"cmdline",     "cpuinfo",
				     "devices", "filesystems", "loadavg",
				     "meminfo", "mounts",      "nope0",
				     "nope1",	"self",	       "stat",
				     "swaps",	"sys",	       "uptime",
				     "version", self,	       parent };

		assert_int_equal(sib_compare("/proc", pn, ARRAY_SIZE(pn)), 0);
	}

	/* A directory that can be read but not searched: every name is
	 * EACCES, as resolve_at says, listed or not (as nobody: root
	 * searches anything). */
	assert_int_equal(chmod(dir, 0744), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 ||
				       setgid(65534) < 0 || setuid(65534) < 0))
			_exit(2);
		_exit(sib_compare(dir, names, n) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(chmod(dir, 0755), 0);

	/* The compiler, with and without resolve_in. */
	{
		struct pathtree_fs plain = pathtree_fs_real;
		const char *lv[] = { "ro", "rw", "deny" };
		char *rules[ARRAY_SIZE(sib_made) + 4] = { 0 };
		struct policy p = { 0 };
		struct plan *a = NULL, *b = NULL;
		_cleanup_free_ char *cause = NULL;
		_cleanup_free_ char *ga = NULL, *gb = NULL;
		size_t k = 0;

		plain.resolve_in = NULL;
		/* The directory read-only with one entry hidden (punched),
		 * and every entry and a missing one with a rule of its own
		 * beneath a writable one. */
		rules[k++] = xasprintf("ro %s", dir);
		rules[k++] = xasprintf("deny %s/d07", dir);
		rules[k++] = xasprintf("rw %s/d02/x", dir);
		for (size_t i = 0; i < ARRAY_SIZE(sib_made); i++)
			if (i != 7 && i % 3 != 0)
				rules[k++] = xasprintf("%s %s/%s", lv[i % 2],
						       dir, sib_made[i]);
		rules[k++] = xasprintf("ro %s/missing", dir);
		policy_fill(&p, (const char *const *)rules);
		assert_int_equal(
			compile(&p, &pathtree_fs_real, false, &a, &cause), 0);
		assert_int_equal(compile(&p, &plain, false, &b, &cause), 0);
		ga = render(a);
		gb = render(b);
		assert_string_equal(ga, gb);
		{
			_cleanup_free_ char *na = strv_join(a->notes, "\n");
			_cleanup_free_ char *nb = strv_join(b->notes, "\n");
			_cleanup_free_ char *la = strv_join(a->lost, "\n");
			_cleanup_free_ char *lb = strv_join(b->lost, "\n");

			assert_string_equal(na, nb);
			assert_string_equal(la, lb);
		}
		/* Not vacuous: the punched entries and the link's target. */
		assert_non_null(strstr(ga, "/d06 ro p t:1\n"));
		assert_non_null(strstr(ga, "/f2 ro p t:1\n"));
		assert_non_null(strstr(ga, "/d03 ro t:16\n"));
		assert_null(strstr(ga, "/d07"));
		assert_null(strstr(ga, "/ln"));
		assert_true(strv_has_substr(a->lost, "/missing") ||
			    strv_has_substr(a->notes, "/missing"));
		plan_free(a);
		plan_free(b);
		policy_clear(&p);
		for (size_t i = 0; i < k; i++)
			free(rules[i]);
	}
	sib_teardown(dir);
}

/* pathtree_sort: a stable sort, whatever the number of runs. */
struct sortel {
	int key, seq;
};

static int
sortel_cmp(const void *a, const void *b)
{
	const struct sortel *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

static void
test_sort(void **state)
{
	enum { N = 300 };
	struct sortel v[N], want[N];
	unsigned seed = 0x29;

	(void)state;
	/* 0 elements, 1, then from 1 run to many (a run of one or two
	 * elements each: every merge order of the stack), keys with ties. */
	pathtree_sort(NULL, 0, sizeof(*v), sortel_cmp);
	for (int runs = 1; runs <= N; runs = runs * 2 + 1) {
		for (int round = 0; round < 20; round++) {
			size_t n = 1 + rand_r(&seed) % N;

			for (size_t i = 0; i < n; i++) {
				/* Ascending within a run, a drop between. */
				v[i].key = (int)(i % ((n + runs - 1) / runs)) +
					   (int)(rand_r(&seed) % 3);
				v[i].seq = (int)i;
			}
			/* The reference: insertion sort, stable. */
			memcpy(want, v, n * sizeof(*v));
			for (size_t i = 1; i < n; i++) {
				struct sortel e = want[i];
				size_t j = i;

				for (; j > 0 && want[j - 1].key > e.key; j--)
					want[j] = want[j - 1];
				want[j] = e;
			}
			pathtree_sort(v, n, sizeof(*v), sortel_cmp);
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(v[i].key, want[i].key);
				assert_int_equal(v[i].seq, want[i].seq);
			}
		}
	}
}

int
main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(cases) + 8];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		tests[n++] = (struct CMUnitTest){
			.name = cases[i].name,
			.test_func = test_case,
			.initial_state = (void *)&cases[i],
		};
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_access_bits);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_decide);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_decide_sorted);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sources);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_many_rules);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_real_fs);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sort);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_real_resolve_in);
	return _cmocka_run_group_tests("pathtree", tests, n, NULL, NULL);
}
