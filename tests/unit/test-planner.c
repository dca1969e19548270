/*
 * Unit tests of src/planner.c: a table of (facts × policy → shape,
 * backend, allow-host's resolver or proxy, enforced by, not enforced,
 * must fail).  The facts are injected (probe.h: live false, so nothing is
 * asked of the kernel) and the path rules compile on a fake file system;
 * the policies are the shipped profiles (conf/) with command-line keys.
 * LLW_PLANNER_SHOW=1 prints what each case planned (=only: and checks
 * nothing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cliprofile.h"
#include "compat/landlock.h"
#include "fakefs.h"
#include "pathtree.h"
#include "planner.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"
#include "xalloc.h"

static char *const test_env[] = {
	"HOME=/home/u",
	"USER=u",
	"PATH=/usr/bin:/bin",
	NULL,
};

static const char *const tree[] = {
	"f:/usr/bin/cc",
	"d:/bin",
	"d:/lib",
	"f:/etc/passwd",
	"f:/etc/ld.so.cache",
	"f:/home/u/.ssh/id_ed25519",
	"f:/home/u/.gitconfig",
	"d:/home/u/.config/opencode",
	"d:/home/u/.local/share/opencode",
	"d:/home/u/.local/state/opencode",
	"f:/home/u/proj/src/main.c",
	"f:/home/u/proj/.env",
	"d:/tmp",
	"d:/var/tmp",
	"f:/dev/null",
	NULL,
};

static struct fakefs fake = { tree };
static const struct pathtree_fs fakefs = {
	.resolve = fake_resolve,
	.stat = fake_stat,
	.list = fake_list,
	.ctx = &fake,
	.resolve_at = fake_resolve_at,
};

static char *conf_dir;

/* The facts of a case: Landlock's ABI (0: missing, ENOSYS) and each
 * probed fact, yes or no; a no carries its reason. */
struct facts_spec {
	int abi;
	bool userns, supervisor, bwrap, cgroup;
	const char *supervisor_why; /* NULL: a generic reason */
	bool pidns_nested;	    /* llwrap runs in a container's pid ns */
	bool newproc_refused;	    /* a new /proc is refused (masked) */
};

#define FULL                                                                   \
	{                                                                      \
		7, true, true, true, true, NULL, false, false                  \
	}
#define NO_NS                                                                  \
	{                                                                      \
		7, false, true, true, true, NULL, false, false                 \
	}

/* Rootless podman on 6.18: user namespaces, a new /proc refused over
 * the runtime's masked paths, the container's pid namespace. */
#define PODMAN                                                                 \
	{                                                                      \
		7, true, true, true, true, NULL, true, true                    \
	}
/* Docker's default profile: no user namespaces, no pidfd_getfd. */
#define DOCKER                                                                 \
	{                                                                      \
		7, false, false, true, true, NULL, true, false                 \
	}

/* One restriction and the layer expected to enforce it. */
struct by {
	bool set;
	enum layers_restriction r;
	enum layers_id l;
};

struct planner_case {
	const char *name;
	const char *profile;
	const char *flags; /* "section key value; ..." */
	enum sandbox_backend backend;
	struct facts_spec facts;
	/* The plan. */
	enum sandbox_backend runs;
	const char *shape; /* planner_shape_describe() */
	enum planner_ns ns;
	enum planner_hosts hosts;
	struct by by[4];	  /* checked where set */
	const char *not_enforced; /* a substring of a NOT ENFORCED line,
				   * or NULL: none but [not a hole] */
	const char *must_fail;	  /* a substring of the cause, or NULL */
};

#define L(r_, l_)                                                              \
	{                                                                      \
		true, LAYERS_##r_, LAYER_##l_                                  \
	}

static const struct planner_case cases[] = {
	{ "full kernel, -p default",
	  "default",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(FS_ALLOWLIST, L1), L(TCP_PORTS, L1), L(SIGNALS, L1),
	    L(TRUNCATE, L1) },
	  NULL,
	  NULL },
	/* opencode's profile: masks, a pid namespace, the supervisor for
	 * allow-host, and the watch on files run later above it. */
	{ "full kernel, -p opencode",
	  "opencode",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "guardian > supervisor > pid 1 > command",
	  PLANNER_NS_PID,
	  PLANNER_HOSTS_STUB,
	  { L(FS_ALLOWLIST, L1), L(MASKS, L3), L(PATH_UNIX, S),
	    L(SIGNALS, L1) },
	  NULL,
	  NULL },
	{ "-p opencode, proxy = yes",
	  "opencode",
	  "network proxy yes",
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "guardian > supervisor > pid 1 > command",
	  PLANNER_NS_PID,
	  PLANNER_HOSTS_PROXY,
	  { L(PATH_UNIX, S) },
	  NULL,
	  NULL },
	{ "no user namespaces, -p opencode: must fail (masks)",
	  "opencode",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  NO_NS,
	  SANDBOX_BACKEND_LANDLOCK,
	  "guardian > supervisor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_PROXY,
	  { L(MASKS, NONE) },
	  NULL,
	  "needs the namespace layer (L3) for narrower rules inside "
	  "writable directories (mount masks: deny /home/u/proj/.env)" },
	{ "no user namespaces, -p opencode, --best-effort: the proxy",
	  "opencode",
	  "profile best-effort yes",
	  SANDBOX_BACKEND_AUTO,
	  NO_NS,
	  SANDBOX_BACKEND_LANDLOCK,
	  "guardian > supervisor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_PROXY,
	  { L(METADATA, NONE), L(PATH_UNIX, S) },
	  "hide-processes",
	  NULL },
	{ "-p default, allow-host: the supervisor",
	  "default",
	  "network allow-host example.com:443",
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "supervisor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_STUB,
	  { L(PATH_UNIX, S) },
	  NULL,
	  NULL },
	/* Issue 28: the container's pid namespace hides the host's
	 * processes where L3 cannot make one (DESIGN.md §14). */
	{ "rootless podman, -p opencode: L3 without a pid namespace",
	  "opencode",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  PODMAN,
	  SANDBOX_BACKEND_LANDLOCK,
	  "guardian > supervisor > command",
	  PLANNER_NS_MOUNT,
	  PLANNER_HOSTS_STUB,
	  { L(PROCESSES, C), L(MASKS, L3), L(SIGNALS, L1) },
	  NULL,
	  NULL },
	{ "Docker, -p opencode: must fail for an existing .env alone (private "
	  "/tmp is the run's own directory)",
	  "opencode",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  DOCKER,
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(PROCESSES, C), L(MASKS, NONE), L(PRIVATE_TMP, M) },
	  NULL,
	  "(L3) for narrower rules inside writable directories (mount masks: "
	  "deny /home/u/proj/.env), but " },
	{ "Docker, private-tmp: a directory of the run's own (M), which the "
	  "monitor removes",
	  "default",
	  "filesystem private-tmp yes",
	  SANDBOX_BACKEND_AUTO,
	  DOCKER,
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(PRIVATE_TMP, M), L(SIGNALS, L1) },
	  NULL,
	  NULL },
	{ "Docker, hide-processes: the container's pid namespace",
	  "default",
	  "process hide-processes yes",
	  SANDBOX_BACKEND_AUTO,
	  DOCKER,
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(PROCESSES, C), L(SIGNALS, L1) },
	  NULL,
	  NULL },
	{ "hide-processes: a pid namespace",
	  "default",
	  "process hide-processes yes",
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > pid 1 > command",
	  PLANNER_NS_PID,
	  PLANNER_HOSTS_NONE,
	  { L(SIGNALS, L1) },
	  NULL,
	  NULL },
	{ "private-tmp: user and mount namespaces",
	  "default",
	  "filesystem private-tmp yes",
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_MOUNT,
	  PLANNER_HOSTS_NONE,
	  { L(METADATA, L3) },
	  NULL,
	  NULL },
	{ "no user namespaces, private-tmp: a directory of the run's own (M)",
	  "default",
	  "filesystem private-tmp yes",
	  SANDBOX_BACKEND_AUTO,
	  NO_NS,
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(PRIVATE_TMP, M) },
	  NULL,
	  NULL },
	{ "no user namespaces, private-tmp, --best-effort: the same, nothing "
	  "lost",
	  "default",
	  "filesystem private-tmp yes; profile best-effort yes",
	  SANDBOX_BACKEND_AUTO,
	  NO_NS,
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(PRIVATE_TMP, M) },
	  NULL,
	  NULL },
	{ "no user namespaces, net = none: seccomp, stricter",
	  "default",
	  "network mode none",
	  SANDBOX_BACKEND_AUTO,
	  NO_NS,
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { { 0 } },
	  "net = none with a working loopback",
	  NULL },
	{ "net = none: a network namespace",
	  "default",
	  "network mode none",
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_MOUNT,
	  PLANNER_HOSTS_NONE,
	  { { 0 } },
	  NULL,
	  NULL },
	{ "no Landlock, bwrap usable: the fallback",
	  "default",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  { 0, true, true, true, true, NULL, false, false },
	  SANDBOX_BACKEND_BWRAP,
	  "bwrap > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(FS_ALLOWLIST, F), L(SIGNALS, F) },
	  NULL,
	  NULL },
	{ "no Landlock, no bwrap: must fail",
	  "default",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  { 0, false, true, false, true, NULL, false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(FS_ALLOWLIST, NONE) },
	  NULL,
	  "this kernel cannot enforce the policy" },
	{ "--backend=bwrap, -p opencode: the supervisor beside it",
	  "opencode",
	  NULL,
	  SANDBOX_BACKEND_BWRAP,
	  FULL,
	  SANDBOX_BACKEND_BWRAP,
	  "guardian > supervisor > bwrap > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_STUB,
	  { L(FS_ALLOWLIST, F), L(TCP_PORTS, S) },
	  NULL,
	  NULL },
	{ "--backend=bwrap without bwrap: must fail",
	  "default",
	  NULL,
	  SANDBOX_BACKEND_BWRAP,
	  { 7, true, true, false, true, NULL, false, false },
	  SANDBOX_BACKEND_BWRAP,
	  "bwrap > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { { 0 } },
	  NULL,
	  "--backend=bwrap was asked for" },
	{ "ABI 3 (no port rules, no scopes), -p default",
	  "default",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  { 3, true, true, true, true, NULL, false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > pid 1 > command",
	  PLANNER_NS_PID,
	  PLANNER_HOSTS_NONE,
	  { L(TCP_PORTS, L2), L(SIGNALS, L3), L(TRUNCATE, L1) },
	  NULL,
	  NULL },
	{ "ABI 3, -p opencode: the supervisor takes the ports",
	  "opencode",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  { 3, true, true, true, true, NULL, false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "guardian > supervisor > pid 1 > command",
	  PLANNER_NS_PID,
	  PLANNER_HOSTS_STUB,
	  { L(TCP_PORTS, S), L(SIGNALS, L3) },
	  NULL,
	  NULL },
	{ "ABI 2 without user namespaces: truncate has no layer",
	  "default",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  { 2, false, true, true, true, NULL, false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(TRUNCATE, NONE) },
	  NULL,
	  "this kernel cannot enforce the policy" },
	{ "ABI 3 without user namespaces, --best-effort",
	  "default",
	  "profile best-effort yes",
	  SANDBOX_BACKEND_AUTO,
	  { 3, false, true, true, true, NULL, false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { L(SIGNALS, NONE), L(TCP_PORTS, L2) },
	  "isolation from signalling",
	  NULL },
	{ "no seccomp notify, -p opencode: must fail",
	  "opencode",
	  NULL,
	  SANDBOX_BACKEND_AUTO,
	  { 7, true, false, true, true,
	    "the kernel (or libseccomp) has no seccomp user notification",
	    false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > pid 1 > command",
	  PLANNER_NS_PID,
	  PLANNER_HOSTS_NONE,
	  { { 0 } },
	  NULL,
	  "need the network supervisor, but the kernel (or libseccomp) has "
	  "no seccomp user notification" },
	{ "no pidfd_getfd, -p opencode, --best-effort",
	  "opencode",
	  "profile best-effort yes",
	  SANDBOX_BACKEND_AUTO,
	  { 7, true, false, true, true, "the kernel has no pidfd_getfd", false,
	    false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > pid 1 > command",
	  PLANNER_NS_PID,
	  PLANNER_HOSTS_NONE,
	  { L(TCP_PORTS, L1) },
	  "the network supervisor's rules (dns): the kernel has no "
	  "pidfd_getfd",
	  NULL },
	{ "allow-host with a timeout: a guardian",
	  "default",
	  "network allow-host example.com:443; limits timeout 10m",
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "guardian > supervisor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_STUB,
	  { { 0 } },
	  NULL,
	  NULL },
	{ "-p default with a timeout: a monitor",
	  "default",
	  "limits timeout 10m",
	  SANDBOX_BACKEND_AUTO,
	  FULL,
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { { 0 } },
	  NULL,
	  NULL },
	{ "memory-max without a cgroup: must fail",
	  "default",
	  "limits memory-max 1G",
	  SANDBOX_BACKEND_AUTO,
	  { 7, true, true, true, false, NULL, false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { { 0 } },
	  NULL,
	  "[limits] memory-max needs a cgroup" },
	{ "memory-max without a cgroup, --best-effort",
	  "default",
	  "limits memory-max 1G; profile best-effort yes",
	  SANDBOX_BACKEND_AUTO,
	  { 7, true, true, true, false, NULL, false, false },
	  SANDBOX_BACKEND_LANDLOCK,
	  "monitor > command",
	  PLANNER_NS_NONE,
	  PLANNER_HOSTS_NONE,
	  { { 0 } },
	  "[limits] memory-max and pids-max",
	  NULL },
};

static void
facts_make(const struct facts_spec *s, struct facts *f)
{
	memset(f, 0, sizeof(*f));
	f->live = false;
	f->kernel.abi = s->abi;
	f->kernel.err = s->abi == 0 ? ENOSYS : 0;
	f->ram = 8ull << 30;
	f->userns = s->userns ? PROBE_YES : PROBE_NO;
	f->userns_why =
		s->userns ? NULL : (char *)"user namespaces are disabled";
	f->supervisor = s->supervisor ? PROBE_YES : PROBE_NO;
	f->supervisor_why = s->supervisor	? NULL
			    : s->supervisor_why ? (char *)s->supervisor_why
						: (char *)"no supervisor here";
	f->bwrap = s->bwrap ? PROBE_YES : PROBE_NO;
	f->bwrap_why = s->bwrap ? NULL : (char *)"bwrap was not found";
	f->bwrap_bin.path = s->bwrap ? (char *)"/usr/bin/bwrap" : NULL;
	f->bwrap_looked = true;
	f->cgroup = s->cgroup ? PROBE_YES : PROBE_NO;
	f->cgroup_why = s->cgroup ? NULL : (char *)"no delegated cgroup";
	f->pidns_nested = s->pidns_nested;
	f->newproc = s->newproc_refused ? PROBE_NO : PROBE_UNKNOWN;
	f->newproc_why = s->newproc_refused ? (char *)"refused (EPERM)" : NULL;
}

/* A NOT ENFORCED line that is a hole (not marked [not a hole]). */
static const char *
first_hole(const struct sandbox *sb)
{
	for (char **n = sb->not_enforced; n != NULL && *n != NULL; n++)
		if (strstr(*n, "[not a hole]") == NULL)
			return *n;
	return NULL;
}

static bool
any_contains(char **v, const char *s)
{
	for (; v != NULL && *v != NULL; v++)
		if (strstr(*v, s) != NULL)
			return true;
	return false;
}

static void
show(const struct planner_case *c, const struct sandbox *sb)
{
	_cleanup_free_ char *shape = planner_shape_describe(sb);

	printf("# %s: backend %d, shape %s, ns %d, hosts %d\n", c->name,
	       sb->backend, shape, sb->shape.ns, planner_hosts(sb));
	for (int r = 0; r < LAYERS_N; r++)
		if (sb->asked[r])
			printf("#   %s: %s\n", layers_restriction_name(r),
			       layers_short_name(sb->enforced_by[r]));
	for (char **n = sb->not_enforced; n != NULL && *n != NULL; n++)
		printf("#   NOT ENFORCED: %s\n", *n);
	if (sb->must_fail)
		printf("#   WILL NOT RUN: %s\n", sb->fail_cause);
}

static void
run_case(const struct planner_case *c)
{
	_cleanup_free_ char *cause = NULL, *shape = NULL;
	struct policy *p = NULL;
	struct sandbox *sb = NULL;
	struct facts f;
	const char *hole;

	if (cli_policy(test_env, conf_dir, "/home/u/proj", c->profile, c->flags,
		       &p, &cause) < 0)
		fail_msg("%s: %s", c->name, cause);
	facts_make(&c->facts, &f);
	if (planner_plan(p, c->backend, &f, &fakefs, false, &sb, &cause) < 0)
		fail_msg("%s: %s", c->name, cause);
	if (getenv("LLW_PLANNER_SHOW") != NULL) {
		show(c, sb);
		if (strcmp(getenv("LLW_PLANNER_SHOW"), "only") == 0)
			goto out;
	}

	shape = planner_shape_describe(sb);
	if (sb->backend != c->runs || strcmp(shape, c->shape) != 0 ||
	    sb->shape.ns != c->ns || planner_hosts(sb) != c->hosts)
		fail_msg("%s: backend %d, shape '%s', ns %d, hosts %d", c->name,
			 sb->backend, shape, sb->shape.ns, planner_hosts(sb));
	for (size_t i = 0; i < sizeof(c->by) / sizeof(c->by[0]); i++) {
		const struct by *b = &c->by[i];

		if (!b->set)
			continue;
		if (!sb->asked[b->r] || sb->enforced_by[b->r] != b->l)
			fail_msg("%s: %s enforced by %s, not %s", c->name,
				 layers_restriction_name(b->r),
				 sb->asked[b->r]
					 ? layers_short_name(
						   sb->enforced_by[b->r])
					 : "(not asked)",
				 layers_short_name(b->l));
	}
	hole = first_hole(sb);
	if (c->not_enforced == NULL && hole != NULL && c->must_fail == NULL)
		fail_msg("%s: NOT ENFORCED: %s", c->name, hole);
	if (c->not_enforced != NULL &&
	    !any_contains(sb->not_enforced, c->not_enforced))
		fail_msg("%s: no NOT ENFORCED line with '%s'", c->name,
			 c->not_enforced);
	if (sb->must_fail != (c->must_fail != NULL) ||
	    (c->must_fail != NULL &&
	     strstr(sb->fail_cause, c->must_fail) == NULL))
		fail_msg("%s: must_fail %d (%s)", c->name, sb->must_fail,
			 sb->fail_cause ? sb->fail_cause : "");
	/* The facts were injected: nothing was asked of the kernel, and
	 * the plan's copy is its own. */
	assert_false(sb->facts.live);
out:
	planner_free(sb);
	policy_free(p);
}

static void
test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* A fact left unknown, with nothing to ask: refused, never assumed. */
static void
test_unknown_is_refused(void **state)
{
	struct facts f = { .live = false };
	const char *why = NULL;

	(void)state;
	assert_false(probe_userns(&f, &why));
	assert_string_equal(why, "not probed");
	assert_false(probe_supervisor(&f, NULL));
	assert_false(probe_bwrap(&f, NULL));
	assert_int_equal(probe_userns_precheck(&f), NS_REFUSED);
	probe_clear(&f);
}

/*
 * private-tmp without L3 (M, DESIGN.md §14): /tmp and /var/tmp are no
 * longer granted (the run's own directory gets /tmp's access at run
 * time), a project beneath /tmp keeps its rule, and /dev/shm stays only
 * where the IPC namespace is the container's own.
 */
static void
plan_run_tmp(bool ipcns_nested, const char *project, struct sandbox **sb,
	     struct policy **p)
{
	const struct facts_spec docker = DOCKER;
	char *cause = NULL;
	struct facts f;

	if (cli_policy(test_env, conf_dir, project, "default",
		       "filesystem private-tmp yes", p, &cause) < 0)
		fail_msg("%s", cause);
	facts_make(&docker, &f);
	f.ipcns_nested = ipcns_nested;
	if (planner_plan(*p, SANDBOX_BACKEND_AUTO, &f, &fakefs, false, sb,
			 &cause) < 0)
		fail_msg("%s", cause);
}

/* Who watches the masks for one the host removes (maskwatch.h): the
 * process waiting in the sandbox's mount namespace, a monitor made for
 * it where there is none; under bubblewrap, a monitor above bwrap. */
static void
mask_watcher(const char *profile, const char *flags,
	     enum sandbox_backend backend, const struct facts_spec *spec,
	     enum planner_masks want, const char *shape)
{
	_cleanup_free_ char *cause = NULL, *got = NULL;
	struct policy *p = NULL;
	struct sandbox *sb = NULL;
	struct facts f;

	if (cli_policy(test_env, conf_dir, "/home/u/proj", profile, flags, &p,
		       &cause) < 0)
		fail_msg("%s: %s", profile, cause);
	facts_make(spec, &f);
	if (planner_plan(p, backend, &f, &fakefs, false, &sb, &cause) < 0)
		fail_msg("%s: %s", profile, cause);
	got = planner_shape_describe(sb);
	if (sb->shape.masks != want || strcmp(got, shape) != 0)
		fail_msg("%s %s: masks %d, shape '%s'", profile,
			 flags ? flags : "", sb->shape.masks, got);
	planner_free(sb);
	policy_free(p);
}

static void
test_mask_watcher(void **state)
{
	const struct facts_spec full = FULL, podman = PODMAN;

	(void)state;
	mask_watcher("opencode", NULL, SANDBOX_BACKEND_AUTO, &full,
		     PLANNER_MASKS_PID1,
		     "guardian > supervisor > pid 1 > command");
	mask_watcher("opencode", NULL, SANDBOX_BACKEND_AUTO, &podman,
		     PLANNER_MASKS_MONITOR, "guardian > supervisor > command");
	mask_watcher("default", "filesystem deny /home/u/proj/.env",
		     SANDBOX_BACKEND_AUTO, &full, PLANNER_MASKS_MONITOR,
		     "monitor > command");
	mask_watcher("default", NULL, SANDBOX_BACKEND_AUTO, &full,
		     PLANNER_MASKS_NONE, "command");
	mask_watcher("default", "filesystem deny /home/u/proj/.env",
		     SANDBOX_BACKEND_BWRAP, &full, PLANNER_MASKS_BWRAP,
		     "monitor > bwrap > command");
	mask_watcher("default", NULL, SANDBOX_BACKEND_BWRAP, &full,
		     PLANNER_MASKS_NONE, "bwrap > command");
}

static void
test_run_tmp(void **state)
{
	struct sandbox *sb;
	struct policy *p;

	(void)state;
	plan_run_tmp(false, "/home/u/proj", &sb, &p);
	assert_true(sb->run_tmp);
	assert_false(sb->must_fail);
	assert_false(sb->use_ns);
	assert_false(sb->run_tmp_shm);
	assert_int_equal(sb->run_tmp_access, LLW_ACCESS_RWX);
	assert_false(plan_decide(sb->fs, "/tmp", LLW_FS_READ_FILE).allowed);
	assert_false(plan_decide(sb->fs, "/tmp/x", LLW_FS_READ_FILE).allowed);
	assert_false(plan_decide(sb->fs, "/var/tmp", LLW_FS_READ_FILE).allowed);
	assert_true(
		plan_decide(sb->fs, "/home/u/proj", LLW_FS_READ_FILE).allowed);
	assert_true(sb->shape.monitor);
	planner_free(sb);
	policy_free(p);

	plan_run_tmp(true, "/home/u/proj", &sb, &p);
	assert_true(sb->run_tmp_shm);
	assert_false(plan_decide(sb->fs, "/tmp", LLW_FS_READ_FILE).allowed);
	planner_free(sb);
	policy_free(p);
}

/*
 * Without L3 the monitor holds .git's files (DESIGN.md §14): REFER comes
 * off every rule at, beneath or above the project, so nothing is renamed
 * or linked into .git from another directory; a tree beside the project
 * keeps it.
 */
static void
test_withhold_refer(void **state)
{
	const uint64_t rw = pathtree_access_bits(LLW_ACCESS_RW);
	struct plan_rule rules[] = {
		{ .path = (char *)"/", .access = rw },
		{ .path = (char *)"/home/u/proj", .access = rw },
		{ .path = (char *)"/home/u/proj/src", .access = rw },
		{ .path = (char *)"/home/u/project2", .access = rw },
		{ .path = (char *)"/tmp", .access = rw },
	};
	struct plan fs = { .rules = rules, .n_rules = ARRAY_SIZE(rules) };

	(void)state;
	assert_true(rw & LLW_FS_REFER);
	planner_withhold_refer(&fs, "/home/u/proj");
	assert_int_equal(rules[0].access, rw & ~(uint64_t)LLW_FS_REFER);
	assert_int_equal(rules[1].access, rw & ~(uint64_t)LLW_FS_REFER);
	assert_int_equal(rules[2].access, rw & ~(uint64_t)LLW_FS_REFER);
	assert_int_equal(rules[3].access, rw);
	assert_int_equal(rules[4].access, rw);
}

/*
 * Who checks a watch (plan_watches): the supervisor's judge where the
 * view shows the host's tree (L3, or none), the view alone under
 * bubblewrap, with or without the supervisor beside it, nobody without
 * a supervisor or bubblewrap (known limit fs.inotify).
 */
static enum sandbox_watches
watches_of(const char *profile, enum sandbox_backend backend,
	   const struct facts_spec *spec)
{
	_cleanup_free_ char *cause = NULL;
	struct policy *p = NULL;
	struct sandbox *sb = NULL;
	enum sandbox_watches w;
	struct facts f;

	if (cli_policy(test_env, conf_dir, "/home/u/proj", profile, NULL, &p,
		       &cause) < 0)
		fail_msg("%s: %s", profile, cause);
	facts_make(spec, &f);
	if (planner_plan(p, backend, &f, &fakefs, false, &sb, &cause) < 0)
		fail_msg("%s: %s", profile, cause);
	w = sb->watches;
	planner_free(sb);
	policy_free(p);
	return w;
}

static void
test_watches(void **state)
{
	const struct facts_spec full = FULL, no_ns = NO_NS;

	(void)state;
	assert_int_equal(watches_of("opencode", SANDBOX_BACKEND_AUTO, &full),
			 SANDBOX_WATCHES_JUDGED);
	assert_int_equal(watches_of("opencode", SANDBOX_BACKEND_AUTO, &no_ns),
			 SANDBOX_WATCHES_JUDGED);
	assert_int_equal(watches_of("opencode", SANDBOX_BACKEND_BWRAP, &full),
			 SANDBOX_WATCHES_VIEW);
	assert_int_equal(watches_of("default", SANDBOX_BACKEND_BWRAP, &full),
			 SANDBOX_WATCHES_VIEW);
	assert_int_equal(watches_of("default", SANDBOX_BACKEND_AUTO, &full),
			 SANDBOX_WATCHES_UNCHECKED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_unknown_is_refused),
		cmocka_unit_test(test_run_tmp),
		cmocka_unit_test(test_mask_watcher),
		cmocka_unit_test(test_withhold_refer),
		cmocka_unit_test(test_watches),
	};
	const char *src = getenv("LLW_SRCDIR");
	_cleanup_free_ char *raw = xasprintf("%s/conf", src ? src : ".");
	int r;

	conf_dir = realpath(raw, NULL);
	if (conf_dir == NULL)
		conf_dir = steal_pointer(&raw);
	r = cmocka_run_group_tests_name("planner", tests, NULL, NULL);
	free(conf_dir);
	return r;
}
