/*
 * Unit tests for src/policy.c and src/profilematch.c: precedence of sources,
 * includes, [match], .llwrap.ini, the command line, and the environment.
 * Profiles live in tests/data/profiles ($LLW_DATA).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cleanup.h"
#include "fdutil.h"
#include "profilematch.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"
#include "xalloc.h"

DEFINE_CLEANUP_FUNC(struct policy, policy_free)
DEFINE_CLEANUP_FUNC(struct profile, profile_free)
DEFINE_CLEANUP_FUNC(struct vars, vars_free)

static char *data_dir;	   /* tests/data, absolute */
static char *profiles_dir; /* tests/data/profiles */
static char *broken_dir;   /* tests/data/profiles-broken */
static char *empty_dir;	   /* an empty temporary directory */

static char *const test_env[] = {
	"HOME=/home/u",
	"USER=u",
	"PATH=/usr/bin:/bin",
	"TERM=xterm",
	"LANG=C.UTF-8",
	"LC_ALL=C",
	"XDG_CONFIG_HOME=/home/u/.config",
	"SSH_AUTH_SOCK=/run/user/1000/ssh",
	"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
	"AWS_SECRET_ACCESS_KEY=s3cr3t",
	"AWS_PROFILE=prod",
	"GITHUB_TOKEN=ghp_x",
	"SECRET_ONE=1",
	"SECRET_TWO=2",
	"FOO=from-env",
	NULL,
};

/* Absolute path of tests/data: $LLW_DATA, else relative to this file. */
static char *
find_data_dir(void)
{
	const char *env = getenv("LLW_DATA");
	_cleanup_free_ char *dir = NULL;
	char *slash;

	if (env != NULL && env[0] == '/')
		return xstrdup(env);
	dir = xstrdup(__FILE__);
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		strcpy(dir, ".");
	if (dir[0] == '/')
		return xasprintf("%s/../data", dir);
	{
		_cleanup_free_ char *cwd = getcwd(NULL, 0);

		assert_non_null(cwd);
		return xasprintf("%s/%s/../data", cwd, dir);
	}
}

/* realpath() that keeps the test's strings tidy. */
static char *
real(const char *path)
{
	char *r = realpath(path, NULL);

	if (r == NULL)
		fail_msg("realpath %s failed", path);
	return r;
}

static int
setup(void **state)
{
	_cleanup_free_ char *d = find_data_dir();
	_cleanup_free_ char *p = xasprintf("%s/profiles", d);
	_cleanup_free_ char *b = xasprintf("%s/profiles-broken", d);
	char tmpl[] = "/tmp/llw-test-policy-XXXXXX";

	(void)state;
	data_dir = real(d);
	profiles_dir = real(p);
	broken_dir = real(b);
	if (mkdtemp(tmpl) == NULL)
		return -1;
	empty_dir = xstrdup(tmpl);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	rmdir(empty_dir);
	free(data_dir);
	free(profiles_dir);
	free(broken_dir);
	free(empty_dir);
	return 0;
}

/* A request with the test environment; path is the profile path. */
static struct policy_request
request(char *const *profiles, char *const *path, const char *command,
	const char *project)
{
	struct policy_request req = {
		.envp = test_env,
		.project = project,
		.command = command,
		.name = "tool",
		.profiles = profiles,
		.profile_path = path,
		.cli = NULL,
		.read_project_file = false,
	};

	return req;
}

/* Resolve, failing the test with the cause on error. */
static struct policy *
resolve_ok(const struct policy_request *req)
{
	struct policy *p = NULL;
	_cleanup_free_ char *cause = NULL;
	int r = policy_resolve(req, &p, &cause);

	if (r != 0)
		fail_msg("policy_resolve: %d %s", r, cause);
	assert_non_null(p);
	return p;
}

/* Resolve expecting error r with exactly the cause want. */
static void
resolve_fail(const struct policy_request *req, int want_r,
	     const char *want_cause)
{
	struct policy *p = NULL;
	_cleanup_free_ char *cause = NULL;
	int r = policy_resolve(req, &p, &cause);

	assert_null(p);
	if (r != want_r || cause == NULL || strcmp(cause, want_cause) != 0)
		fail_msg("r=%d (want %d)\n got: %s\nwant: %s", r, want_r,
			 cause ? cause : "(null)", want_cause);
}

/*
 * The path rules as text, "access path rank origin" per line, with the
 * data directory shown as DATA so tables stay readable.
 */
static char *
dump_paths(const struct policy *p)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < p->n_paths; i++) {
		const struct llw_path_rule *r = &p->paths[i];
		const char *o = r->origin;
		char *n;

		if (strncmp(o, profiles_dir, strlen(profiles_dir)) == 0) {
			n = xasprintf("%s%s %s %u DATA%s\n", out,
				      policy_access_name(r->access), r->path,
				      r->rank, o + strlen(profiles_dir));
		} else {
			n = xasprintf("%s%s %s %u %s\n", out,
				      policy_access_name(r->access), r->path,
				      r->rank, o);
		}
		free(out);
		out = n;
	}
	return out;
}

/* Only the rules whose path starts with prefix. */
static char *
dump_paths_under(const struct policy *p, const char *prefix)
{
	_cleanup_free_ char *all = dump_paths(p);
	char *out = xstrdup("");
	char *save = NULL;

	for (char *l = strtok_r(all, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		const char *path = strchr(l, ' ') + 1;
		char *n;

		if (strncmp(path, prefix, strlen(prefix)) != 0)
			continue;
		n = xasprintf("%s%s\n", out, l);
		free(out);
		out = n;
	}
	return out;
}

static void
assert_dump(char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		char *msg = xasprintf("\n got:\n%s\nwant:\n%s", got, want);

		free(got);
		fail_msg("%s", msg);
	}
	free(got);
}

static char *
ports_text(const struct llw_ports *pl)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < pl->n; i++) {
		char *n = pl->v[i].lo == pl->v[i].hi
				  ? xasprintf("%s%s%u", out, i ? " " : "",
					      pl->v[i].lo)
				  : xasprintf("%s%s%u-%u", out, i ? " " : "",
					      pl->v[i].lo, pl->v[i].hi);

		free(out);
		out = n;
	}
	return out;
}

static char *
items_text(const struct llw_items *it)
{
	char *out = xstrdup("");

	for (size_t i = 0; i < it->n; i++) {
		char *n =
			xasprintf("%s%s%s", out, i ? " " : "", it->v[i].value);

		free(out);
		out = n;
	}
	return out;
}

static char *
data(const char *rel)
{
	return xasprintf("%s/%s", profiles_dir, rel);
}

/* --- access and names ------------------------------------------------- */

static const struct {
	enum llw_access a, b;
	bool wider;
} wider_cases[] = {
	{ LLW_ACCESS_DENY, LLW_ACCESS_DENY, false },
	{ LLW_ACCESS_RO, LLW_ACCESS_DENY, true },
	{ LLW_ACCESS_DENY, LLW_ACCESS_RO, false },
	{ LLW_ACCESS_RX, LLW_ACCESS_RO, true },
	{ LLW_ACCESS_RO, LLW_ACCESS_RX, false },
	{ LLW_ACCESS_RX, LLW_ACCESS_RW, true },
	{ LLW_ACCESS_RW, LLW_ACCESS_RX, true },
	{ LLW_ACCESS_RW, LLW_ACCESS_RWX, false },
	{ LLW_ACCESS_RX, LLW_ACCESS_RWX, false },
	{ LLW_ACCESS_RWX, LLW_ACCESS_RW, true },
	{ LLW_ACCESS_RWX, LLW_ACCESS_RWX, false },
};

static void
test_access(void **state)
{
	(void)state;
	assert_string_equal(policy_access_name(LLW_ACCESS_DENY), "deny");
	assert_string_equal(policy_access_name(LLW_ACCESS_RO), "ro");
	assert_string_equal(policy_access_name(LLW_ACCESS_RX), "rx");
	assert_string_equal(policy_access_name(LLW_ACCESS_RW), "rw");
	assert_string_equal(policy_access_name(LLW_ACCESS_RWX), "rwx");
	assert_null(policy_access_name((enum llw_access)99));
	for (size_t i = 0; i < ARRAY_SIZE(wider_cases); i++)
		if (policy_access_wider(wider_cases[i].a, wider_cases[i].b) !=
		    wider_cases[i].wider)
			fail_msg("case %zu", i);
	assert_false(policy_access_writable(LLW_ACCESS_DENY));
	assert_false(policy_access_writable(LLW_ACCESS_RO));
	assert_false(policy_access_writable(LLW_ACCESS_RX));
	assert_true(policy_access_writable(LLW_ACCESS_RW));
	assert_true(policy_access_writable(LLW_ACCESS_RWX));
	assert_string_equal(policy_net_mode_name(LLW_NET_NONE), "none");
	assert_string_equal(policy_net_mode_name(LLW_NET_FILTERED), "filtered");
	assert_string_equal(policy_net_mode_name(LLW_NET_HOST), "host");
	assert_null(policy_net_mode_name((enum llw_net_mode)9));
}

/* --- profile path ----------------------------------------------------- */

static const struct {
	char *const *env;
	const char *want;
} path_cases[] = {
	{ (char *const[]){ "HOME=/h", NULL },
	  "/h/.config/llwrap/profiles:/etc/llwrap/profiles:"
	  "/usr/share/llwrap/profiles" },
	{ (char *const[]){ "HOME=/h", "XDG_CONFIG_HOME=/x", NULL },
	  "/x/llwrap/profiles:/etc/llwrap/profiles:"
	  "/usr/share/llwrap/profiles" },
	{ (char *const[]){ "HOME=/h", "XDG_CONFIG_HOME=rel", NULL },
	  "/h/.config/llwrap/profiles:/etc/llwrap/profiles:"
	  "/usr/share/llwrap/profiles" },
	{ (char *const[]){ "LLWRAP_PROFILE_PATH=/a::/b:rel:", "HOME=/h", NULL },
	  "/a:/b:/h/.config/llwrap/profiles:/etc/llwrap/profiles:"
	  "/usr/share/llwrap/profiles" },
	{ (char *const[]){ "LLWRAP_PROFILE_PATH=/etc/llwrap/profiles", NULL },
	  "/etc/llwrap/profiles:/usr/share/llwrap/profiles" },
	{ (char *const[]){ NULL },
	  "/etc/llwrap/profiles:/usr/share/llwrap/profiles" },
};

static void
test_profile_path(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(path_cases); i++) {
		_cleanup_strv_ char **v = policy_profile_path(
			path_cases[i].env, "/etc", "/usr/share");
		_cleanup_free_ char *j = strv_join(v, ":");

		if (strcmp(j, path_cases[i].want) != 0)
			fail_msg("case %zu: %s", i, j);
	}
}

/* --- built-in default and -p order ------------------------------------ */

/* No -p and nothing on the profile path: the built-in default, which
 * includes the built-in empty. */
static void
test_builtin_default(void **state)
{
	char *path[] = { empty_dir, NULL };
	struct policy_request req = request(NULL, path, "x", "/proj");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);
	_cleanup_free_ char *keep = items_text(&p->env_keep);

	(void)state;
	assert_dump(dump_paths_under(p, "/usr"),
		    "rx /usr 1 built-in empty:13\n");
	assert_dump(dump_paths_under(p, "/proj"),
		    "rwx /proj 2 built-in default:25\n");
	assert_dump(dump_paths_under(p, "/tmp"),
		    "rwx /tmp 2 built-in default:31\n");
	assert_int_equal(p->net, LLW_NET_FILTERED);
	assert_string_equal(p->net_origin.origin, "built-in default:50");
	assert_false(p->unix_sockets);
	assert_string_equal(p->unix_sockets_origin.origin,
			    "built-in default:51");
	assert_int_equal(p->connect_tcp.n, 0);
	assert_int_equal(p->bind_tcp.n, 0);
	assert_false(p->best_effort);
	assert_null(p->best_effort_origin.origin);
	assert_false(p->ptrace_deny);
	assert_null(p->ptrace_origin.origin);
	assert_false(p->private_tmp);
	assert_null(p->private_tmp_origin.origin);
	assert_false(p->hide_processes);
	assert_null(p->hide_processes_origin.origin);
	assert_string_equal(keep, "PATH HOME USER LOGNAME SHELL TERM "
				  "COLORTERM LANG LANGUAGE LC_* TZ TMPDIR "
				  "XDG_*_HOME PWD");
	assert_string_equal(p->env_keep.v[0].origin, "built-in");
	assert_int_equal(strv_length(p->descriptions), 2);
	assert_string_equal(p->descriptions[0], "nothing but what exec needs");
	/* The empty directory was scanned for [match] profiles. */
	assert_int_equal(strv_length(p->config_files), 1);
	assert_string_equal(p->config_files[0], empty_dir);
	assert_string_equal(p->name, "tool");
	assert_string_equal(p->project, "/proj");
}

/* -p order: the later profile wins scalars; best-effort and ptrace from
 * the one that set them. */
static void
test_p_order(void **state)
{
	char *path[] = { profiles_dir, NULL };
	char *profs[] = { "scal1", "scal2", NULL };
	char *profs_rev[] = { "scal2", "scal1", NULL };
	struct policy_request req = request(profs, path, "x", "/proj");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);
	attribute_cleanup(policy_freep) struct policy *q = NULL;
	_cleanup_free_ char *s2 = data("scal2.ini:2");
	_cleanup_free_ char *s2be = data("scal2.ini:4");
	_cleanup_free_ char *s1 = data("scal1.ini:2");
	_cleanup_free_ char *s1u = data("scal1.ini:3");
	_cleanup_free_ char *s1p = data("scal1.ini:5");

	(void)state;
	assert_int_equal(p->net, LLW_NET_NONE);
	assert_string_equal(p->net_origin.origin, s2);
	assert_false(p->best_effort);
	assert_string_equal(p->best_effort_origin.origin, s2be);
	assert_true(p->unix_sockets);
	assert_string_equal(p->unix_sockets_origin.origin, s1u);
	assert_true(p->ptrace_deny);
	assert_string_equal(p->ptrace_origin.origin, s1p);
	/* No "default" when -p is given. */
	assert_dump(dump_paths(p), "");

	req = request(profs_rev, path, "x", "/proj");
	q = resolve_ok(&req);
	assert_int_equal(q->net, LLW_NET_HOST);
	assert_string_equal(q->net_origin.origin, s1);
	assert_true(q->best_effort);
}

/* [filesystem] mkdir: a list with origins, cleared by none; refused in
 * .llwrap.ini; and policy_access_at, the one longest-prefix lookup. */
static void
test_mkdir_and_access_at(void **state)
{
	char *path[] = { profiles_dir, NULL };
	char *one[] = { "mkdir1", NULL };
	char *both[] = { "mkdir1", "mkdir2", NULL };
	struct policy_request req = request(one, path, "x", "/proj");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);
	attribute_cleanup(policy_freep) struct policy *q = NULL;
	_cleanup_free_ char *o4 = data("mkdir1.ini:4");
	_cleanup_free_ char *o3 = data("mkdir1.ini:3");
	_cleanup_free_ char *cause = NULL;
	struct profile *prof = NULL;
	struct vars *v = vars_new(test_env, "/proj", "tool");
	const char *origin = NULL;

	(void)state;
	assert_int_equal(p->mkdirs.n, 2);
	assert_string_equal(p->mkdirs.v[0].value, "/proj/state");
	assert_string_equal(p->mkdirs.v[1].value, "/proj/cache");
	assert_string_equal(p->mkdirs.v[0].origin, o4);

	assert_int_equal(policy_access_at(p, "/proj/state/db", &origin),
			 LLW_ACCESS_RW);
	assert_string_equal(origin, o3);
	assert_int_equal(policy_access_at(p, "/proj/statex", &origin),
			 LLW_ACCESS_DENY);
	assert_null(origin);
	assert_int_equal(policy_access_at(p, "/proj/state", NULL),
			 LLW_ACCESS_RW);

	req = request(both, path, "x", "/proj");
	q = resolve_ok(&req);
	assert_int_equal(q->mkdirs.n, 1);
	assert_string_equal(q->mkdirs.v[0].value, "/proj/other");

	assert_int_equal(profile_parse_string("/proj/.llwrap.ini",
					      "[filesystem]\nmkdir = /proj/x\n",
					      PROFILE_KIND_PROJECT, v, &prof,
					      &cause),
			 -EINVAL);
	assert_null(prof);
	assert_non_null(strstr(cause, "/proj/.llwrap.ini:2"));
	assert_non_null(strstr(cause, "mkdir creates directories"));
	vars_free(v);
}

/* Includes: depth-first, in order, each file once; ranks follow. */
static void
test_includes(void **state)
{
	char *path[] = { profiles_dir, NULL };
	char *profs[] = { "a", NULL };
	struct policy_request req = request(profs, path, "x", "/proj");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);
	_cleanup_free_ char *fa = data("a.ini");
	_cleanup_free_ char *fb = data("b.ini");
	_cleanup_free_ char *fc = data("c.ini");
	_cleanup_free_ char *fd = data("d.ini");

	(void)state;
	assert_dump(dump_paths(p), "ro /d 1 DATA/d.ini:2\n"
				   "rw /d/w 1 DATA/d.ini:3\n"
				   "ro /b 2 DATA/b.ini:4\n"
				   "ro /c 3 DATA/c.ini:4\n"
				   "ro /a 4 DATA/a.ini:6\n");
	assert_true(strv_contains(p->config_files, fa));
	assert_true(strv_contains(p->config_files, fb));
	assert_true(strv_contains(p->config_files, fc));
	assert_true(strv_contains(p->config_files, fd));
	/* Deduplicated: d.ini was reached twice. */
	for (char **f = p->config_files; *f != NULL; f++)
		for (char **g = f + 1; *g != NULL; g++)
			assert_string_not_equal(*f, *g);
	assert_int_equal(strv_length(p->descriptions), 1);
	assert_string_equal(p->descriptions[0], "profile a");
}

static void
test_include_relative_and_file(void **state)
{
	char *path[] = { empty_dir, NULL };
	_cleanup_free_ char *rel = data("rel.ini");
	_cleanup_free_ char *dotted = data("sub/../d.ini");
	char *profs[] = { rel, dotted, NULL };
	struct policy_request req = request(profs, path, "x", "/proj");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);
	_cleanup_free_ char *inc = data("sub/inc.ini");
	_cleanup_free_ char *d = data("d.ini");

	(void)state;
	assert_dump(dump_paths(p), "ro /rel 1 DATA/sub/inc.ini:2\n"
				   "ro /d 3 DATA/d.ini:2\n"
				   "rw /d/w 3 DATA/d.ini:3\n");
	assert_true(strv_contains(p->config_files, inc));
	assert_true(strv_contains(p->config_files, d));
}

/* A relative -p FILE is taken from the working directory. */
static void
test_p_relative_file(void **state)
{
	char *path[] = { empty_dir, NULL };
	char *profs[] = { "./sub/inc.ini", NULL };
	struct policy_request req = request(profs, path, "x", "/proj");
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	attribute_cleanup(policy_freep) struct policy *p = NULL;

	(void)state;
	assert_int_equal(chdir(profiles_dir), 0);
	p = resolve_ok(&req);
	assert_int_equal(chdir(cwd), 0);
	assert_dump(dump_paths(p), "ro /rel 1 DATA/sub/inc.ini:2\n");
}

static void
test_include_cycle(void **state)
{
	char *path[] = { profiles_dir, NULL };
	char *profs[] = { "cycle1", NULL };
	char *self[] = { "self", NULL };
	struct policy_request req = request(profs, path, "x", "/proj");
	_cleanup_free_ char *c1 = data("cycle1.ini");
	_cleanup_free_ char *c2 = data("cycle2.ini");
	_cleanup_free_ char *s = data("self.ini");
	_cleanup_free_ char *want = xasprintf(
		"%s:3: include cycle: %s -> %s -> %s; a profile cannot "
		"include itself, directly or not.",
		c2, c1, c2, c1);
	_cleanup_free_ char *want_self = xasprintf(
		"%s:2: include cycle: %s -> %s; a profile cannot include "
		"itself, directly or not.",
		s, s, s);

	(void)state;
	resolve_fail(&req, -ELOOP, want);
	req = request(self, path, "x", "/proj");
	resolve_fail(&req, -ELOOP, want_self);
}

static void
test_unknown_profile(void **state)
{
	char *path[] = { profiles_dir, empty_dir, NULL };
	char *profs[] = { "nosuch", NULL };
	char *inc[] = { "unknown-include", NULL };
	char *file[] = { "/nonexistent/p.ini", NULL };
	struct policy_request req = request(profs, path, "x", "/proj");
	/* The profiles found on the path are listed, sorted. */
	_cleanup_strv_ char **names = policy_profile_names(path);
	_cleanup_free_ char *found = strv_join(names, " ");
	_cleanup_free_ char *want = xasprintf(
		"unknown profile 'nosuch': no nosuch.ini on the profile path "
		"(%s:%s) and no built-in profile of that name; the profiles "
		"there are: %s (built in: empty default).",
		profiles_dir, empty_dir, found);
	_cleanup_free_ char *ui = data("unknown-include.ini");
	_cleanup_free_ char *want_inc = xasprintf(
		"%s:2: unknown profile 'nosuch': no nosuch.ini on the profile "
		"path (%s:%s) and no built-in profile of that name; the "
		"profiles there are: %s (built in: empty default).",
		ui, profiles_dir, empty_dir, found);

	(void)state;
	assert_true(strv_contains(names, "a"));
	assert_true(strv_contains(names, "unknown-include"));
	assert_false(strv_contains(names, "a.ini"));
	for (size_t i = 1; names[i] != NULL; i++)
		assert_true(strcmp(names[i - 1], names[i]) < 0);
	resolve_fail(&req, -ENOENT, want);
	req = request(inc, path, "x", "/proj");
	resolve_fail(&req, -ENOENT, want_inc);
	req = request(file, path, "x", "/proj");
	resolve_fail(&req, -ENOENT,
		     "cannot read profile /nonexistent/p.ini: No such file or "
		     "directory.");
}

/* "none" removes the key's rules from less specific sources only. */
static void
test_none_clears(void **state)
{
	char *path[] = { profiles_dir, NULL };
	_cleanup_free_ char *clear = data("clear.ini");
	char *profs[] = { clear, NULL };
	struct policy_request req = request(profs, path, "x", "/proj");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);

	(void)state;
	assert_dump(dump_paths(p), "rw /d/w 1 DATA/d.ini:3\n"
				   "rw /x 2 DATA/clear.ini:7\n");
}

/* A broken profile on the profile path is an error (it might match). */
static void
test_broken_on_path(void **state)
{
	char *path[] = { broken_dir, NULL };
	struct policy_request req = request(NULL, path, "x", "/proj");
	_cleanup_free_ char *want = xasprintf(
		"%s/bad.ini:2: unknown key 'bogus' in section [filesystem].",
		broken_dir);

	(void)state;
	resolve_fail(&req, -EINVAL, want);
}

/*
 * A profile on the path is checked line by line and its [match] parsed;
 * the rest is parsed, and its errors reported, only when [match] holds.
 */
static const struct {
	const char *text, *want; /* want: the cause after "DIR/p.ini:", or
				  * NULL when the scan must succeed */
} scan_cases[] = {
	{ "[filesystem]\nbogus = /x\n[match]\ncommand = x\n",
	  "2: unknown key 'bogus' in section [filesystem]." },
	{ "[match]\ncommand = x\n[network]\nmode = sometimes\n",
	  "4: [network] mode: bad value 'sometimes'; use 'none', "
	  "'filtered' or 'host'." },
	/* Does not apply: only its [match] and its lines are looked at. */
	{ "[filesystem]\nbogus = /x\n[match]\ncommand = other\n", NULL },
	{ "[filesystem]\nro = ${NOPE}/x\n", NULL },
	{ "[filesystem]\nro = relative\n", NULL },
	/* Broken whatever its [match]. */
	{ "[bogus]\n",
	  "1: unknown section [bogus]; the sections are [profile], "
	  "[filesystem], [network], [environment], [process], [limits] and "
	  "[match]." },
	{ "[filesystem]\nro /x\n",
	  "2: expected 'key = value', '[section]' or a comment." },
	{ "[match]\nproject = relative\n", NULL /* checked below */ },
	{ "[match]\ncommand = other\nbogus = x\n",
	  "3: unknown key 'bogus' in section [match]." },
};

static void
test_scan_on_path(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scan_cases); i++) {
		char tmpl[] = "/tmp/llw-test-scan-XXXXXX";
		char *path[] = { NULL, NULL };
		_cleanup_free_ char *file = NULL, *cause = NULL;
		struct policy *p = NULL;
		struct policy_request req;
		FILE *f;
		int r;

		assert_non_null(mkdtemp(tmpl));
		path[0] = tmpl;
		file = xasprintf("%s/p.ini", tmpl);
		f = fopen(file, "w");
		assert_non_null(f);
		fputs(scan_cases[i].text, f);
		fclose(f);
		req = request(NULL, path, "x", "/proj");
		r = policy_resolve(&req, &p, &cause);
		unlink(file);
		rmdir(tmpl);
		if (strstr(scan_cases[i].text, "relative") != NULL &&
		    strstr(scan_cases[i].text, "[match]") != NULL) {
			/* A relative [match] project: an error naming the
			 * line, whatever the exact words. */
			assert_int_equal(r, -EINVAL);
			assert_non_null(strstr(cause, "p.ini:2: "));
			continue;
		}
		if (scan_cases[i].want == NULL) {
			if (r != 0)
				fail_msg("case %zu: %s", i, cause);
			policy_free(p);
			continue;
		}
		{
			_cleanup_free_ char *want =
				xasprintf("%s:%s", file, scan_cases[i].want);

			assert_null(p);
			if (r != -EINVAL || cause == NULL ||
			    strcmp(cause, want) != 0)
				fail_msg("case %zu: r=%d\n got: %s\nwant: %s",
					 i, r, cause ? cause : "(null)", want);
		}
	}
}

/* --- [match] ---------------------------------------------------------- */

static const struct {
	const char *command, *project, *want;
} matched_cases[] = {
	/* Specificity: command < project < deeper project < both. */
	{ "tool", "/work/deep/x",
	  "ro /m/cmd 3 DATA/match-cmd.ini:4\n"
	  "ro /m/proj 4 DATA/match-proj.ini:4\n"
	  "ro /m/deep 5 DATA/match-deep.ini:4\n"
	  "ro /m/both 6 DATA/match-both.ini:5\n" },
	{ "/usr/bin/tool", "/work",
	  "ro /m/cmd 3 DATA/match-cmd.ini:4\n"
	  "ro /m/proj 4 DATA/match-proj.ini:4\n"
	  "ro /m/both 5 DATA/match-both.ini:5\n" },
	{ "other", "/work/deep",
	  "ro /m/other 3 DATA/match-other.ini:4\n"
	  "ro /m/proj 4 DATA/match-proj.ini:4\n"
	  "ro /m/deep 5 DATA/match-deep.ini:4\n"
	  "ro /m/both 6 DATA/match-both.ini:5\n" },
	{ "tool", "/elsewhere", "ro /m/cmd 3 DATA/match-cmd.ini:4\n" },
	/* "/workshop" is not under "/work". */
	{ "nothing", "/workshop", "" },
	{ "nothing", "/elsewhere/not/x",
	  "ro /m/deep 3 DATA/match-deep.ini:4\n" },
};

static void
test_matched(void **state)
{
	char *path[] = { profiles_dir, NULL };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(matched_cases); i++) {
		struct policy_request req =
			request(NULL, path, matched_cases[i].command,
				matched_cases[i].project);
		attribute_cleanup(policy_freep) struct policy *p =
			resolve_ok(&req);
		_cleanup_free_ char *got = dump_paths_under(p, "/m/");

		if (strcmp(got, matched_cases[i].want) != 0)
			fail_msg("case %zu:\n got:\n%s\nwant:\n%s", i, got,
				 matched_cases[i].want);
	}
}

/* The most specific matched profile wins the scalar; a matched profile
 * given with -p is applied once, where -p put it. */
static void
test_matched_scalars_and_once(void **state)
{
	char *path[] = { profiles_dir, NULL };
	char *profs[] = { "match-both", "scal2", NULL };
	struct policy_request req = request(NULL, path, "tool", "/work");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);
	attribute_cleanup(policy_freep) struct policy *q = NULL;
	_cleanup_free_ char *both = data("match-both.ini:7");
	_cleanup_free_ char *cmd = data("match-cmd.ini:6");

	(void)state;
	assert_int_equal(p->net, LLW_NET_NONE);
	assert_string_equal(p->net_origin.origin, both);

	req = request(profs, path, "tool", "/work");
	q = resolve_ok(&req);
	assert_dump(dump_paths_under(q, "/m/"),
		    "ro /m/both 1 DATA/match-both.ini:5\n"
		    "ro /m/cmd 3 DATA/match-cmd.ini:4\n"
		    "ro /m/proj 4 DATA/match-proj.ini:4\n");
	/* match-cmd (rank 3) now beats match-both (rank 1) and scal2. */
	assert_int_equal(q->net, LLW_NET_HOST);
	assert_string_equal(q->net_origin.origin, cmd);
}

/* [match] profile: a profile learned under one profile applies to runs
 * under it only; the run is under the -p profiles (or default) and
 * those matched without the condition, named by the last matched on
 * the command, else the last -p. */
static const struct {
	const char *command;
	char *profiles[3];
	const char *run_profile;
	const char *want;
} matched_profile_cases[] = {
	{ "lone",
	  { NULL },
	  "default",
	  "ro /l/under-default 3 DATA/lm-under-default.ini:5\n" },
	{ "lone",
	  { "default", NULL },
	  "default",
	  "ro /l/under-default 3 DATA/lm-under-default.ini:5\n" },
	{ "lone",
	  { "a", NULL },
	  "a",
	  "ro /l/under-a 5 DATA/lm-under-a.ini:5\n" },
	{ "ltool",
	  { NULL },
	  "lm-cmd",
	  "ro /l/cmd 3 DATA/lm-cmd.ini:4\n"
	  "ro /l/under-cmd 4 DATA/lm-under-cmd.ini:5\n"
	  "ro /l/under-default 5 DATA/lm-under-default.ini:5\n" },
	{ "ltool",
	  { "a", NULL },
	  "lm-cmd",
	  "ro /l/cmd 5 DATA/lm-cmd.ini:4\n"
	  "ro /l/under-cmd 6 DATA/lm-under-cmd.ini:5\n" },
	{ "ltool",
	  { "a", "lm-cmd", NULL },
	  "lm-cmd",
	  "ro /l/cmd 5 DATA/lm-cmd.ini:4\n"
	  "ro /l/under-cmd 6 DATA/lm-under-cmd.ini:5\n" },
};

static void
test_matched_profile(void **state)
{
	char *path[] = { profiles_dir, NULL };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(matched_profile_cases); i++) {
		struct policy_request req =
			request(matched_profile_cases[i].profiles[0] != NULL
					? matched_profile_cases[i].profiles
					: NULL,
				path, matched_profile_cases[i].command, "/x");
		attribute_cleanup(policy_freep) struct policy *p =
			resolve_ok(&req);
		_cleanup_free_ char *got = dump_paths_under(p, "/l/");

		if (strcmp(got, matched_profile_cases[i].want) != 0)
			fail_msg("case %zu:\n got:\n%s\nwant:\n%s", i, got,
				 matched_profile_cases[i].want);
		assert_string_equal(p->run_profile,
				    matched_profile_cases[i].run_profile);
	}
}

/* A matched profile is preceded by its includes. */
static void
test_matched_includes(void **state)
{
	char *path[] = { profiles_dir, NULL };
	struct policy_request req = request(NULL, path, "withinc", "/x");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);

	(void)state;
	assert_dump(dump_paths_under(p, "/d/"), "rw /d/w 3 DATA/d.ini:3\n");
	assert_int_equal(p->net, LLW_NET_HOST);
}

static const struct {
	struct profilematch_score a;
	const char *fa;
	struct profilematch_score b;
	const char *fb;
	int sign;
} compare_cases[] = {
	{ { true, false, 0 }, "/p/z.ini", { false, true, 1 }, "/p/a.ini", -1 },
	{ { false, true, 1 }, "/p/a.ini", { false, true, 2 }, "/p/a.ini", -1 },
	{ { false, true, 9 }, "/p/a.ini", { true, true, 1 }, "/p/a.ini", -1 },
	{ { true, true, 2 }, "/p/a.ini", { true, true, 1 }, "/p/a.ini", 1 },
	{ { true, false, 0 }, "/p/a.ini", { true, false, 0 }, "/p/b.ini", -1 },
	{ { true, false, 0 }, "/q/a.ini", { true, false, 0 }, "/p/b.ini", -1 },
	{ { true, false, 0 }, "/q/a.ini", { true, false, 0 }, "/p/a.ini", 1 },
	{ { true, false, 0 }, "/p/a.ini", { true, false, 0 }, "/p/a.ini", 0 },
};

static void
test_match_unit(void **state)
{
	attribute_cleanup(profile_freep) struct profile *p =
		profile_new("f", PROFILE_KIND_NORMAL);
	struct profilematch_score s;

	(void)state;
	assert_int_equal(profilematch_path_depth("/"), 0);
	assert_int_equal(profilematch_path_depth("/a"), 1);
	assert_int_equal(profilematch_path_depth("/a/b/c"), 3);

	/* No [match]: never holds. */
	assert_false(profilematch_holds(p, "x", "/", &s));
	strv_push(&p->match_command, "x");
	assert_true(profilematch_holds(p, "/bin/x", "/", &s));
	assert_true(s.command);
	assert_false(s.project);
	assert_false(profilematch_holds(p, "y", "/", &s));
	assert_false(profilematch_holds(p, NULL, "/", &s));
	strv_push(&p->match_project, "/a");
	strv_push(&p->match_project, "/a/b");
	assert_false(profilematch_holds(p, "x", "/c", &s));
	assert_false(profilematch_holds(p, "x", NULL, &s));
	assert_true(profilematch_holds(p, "x", "/a/b/c", &s));
	assert_true(s.command && s.project);
	assert_int_equal(s.depth, 2);

	for (size_t i = 0; i < ARRAY_SIZE(compare_cases); i++) {
		int r = profilematch_compare(
			&compare_cases[i].a, compare_cases[i].fa,
			&compare_cases[i].b, compare_cases[i].fb);
		int sign = (r > 0) - (r < 0);
		int back = profilematch_compare(
			&compare_cases[i].b, compare_cases[i].fb,
			&compare_cases[i].a, compare_cases[i].fa);

		if (sign != compare_cases[i].sign ||
		    ((back > 0) - (back < 0)) != -sign)
			fail_msg("case %zu: %d", i, r);
	}
}

/* --- .llwrap.ini ------------------------------------------------------ */

/* Write text to DIR/.llwrap.ini. */
static void
write_project_file(const char *dir, const char *text)
{
	_cleanup_free_ char *f = xasprintf("%s/.llwrap.ini", dir);
	FILE *fp = fopen(f, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static void
remove_project_file(const char *dir)
{
	_cleanup_free_ char *f = xasprintf("%s/.llwrap.ini", dir);

	unlink(f);
}

static const struct {
	const char *text;
	const char *error; /* NULL: accepted; else the cause after "FILE:" */
} project_cases[] = {
	{ "[filesystem]\ndeny = ${PROJECT}/.env /etc/shadow\n"
	  "ro = ${PROJECT}/.git/hooks /etc/ssl\nrx = /usr/bin\n",
	  NULL },
	{ "[network]\nmode = none\n", NULL },
	{ "[network]\nmode = filtered\n", NULL },
	{ "[network]\nconnect-tcp = 443\nconnect-tcp = 8000-8050\n", NULL },
	{ "[network]\nconnect-tcp = none\nbind-tcp = 0\n", NULL },
	{ "[environment]\nunset = FOO\n[process]\nptrace = deny\n", NULL },
	{ "[filesystem]\nprivate-tmp = yes\n[process]\nhide-processes = yes\n",
	  NULL },
	{ "[profile]\ndescription = mine\n[network]\nunix-sockets = deny\n",
	  NULL },
	{ "[network]\nmode = host\n",
	  "2: .llwrap.ini may only tighten the policy: mode = host is wider "
	  "than mode = filtered (built-in default:50)." },
	{ "[network]\nconnect-tcp = 22\n",
	  "2: .llwrap.ini may only tighten the policy: connect-tcp = 22 allows "
	  "ports that less specific profiles do not; it can only keep a "
	  "subset of them." },
	{ "[network]\nconnect-tcp = 8000-8101\n",
	  "2: .llwrap.ini may only tighten the policy: connect-tcp = "
	  "8000-8101 allows ports" },
	{ "[network]\nconnect-udp = 53\n",
	  "2: .llwrap.ini may only tighten the policy: connect-udp = 53" },
	{ "[filesystem]\nrx = /etc/llw\n",
	  "2: .llwrap.ini may only tighten the policy: 'rx = /etc/llw' would "
	  "widen access to that path, which is 'ro' without it "
	  "(built-in default:29)." },
	{ "[filesystem]\nro = /home/u/.ssh\n",
	  "2: .llwrap.ini may only tighten the policy: 'ro = /home/u/.ssh' "
	  "would widen access to that path, which is 'deny' without it (no "
	  "rule allows it)." },
	{ "[filesystem]\ndeny = /etc/x\nro = /etc/x/y\n",
	  "3: .llwrap.ini may only tighten the policy: 'ro = /etc/x/y' would "
	  "widen access to that path, which is 'deny' without it" },
	{ "[filesystem]\nrw = ${PROJECT}/x\n",
	  "2: .llwrap.ini may only tighten the policy: [filesystem] rw is not "
	  "allowed here" },
	{ "[profile]\ninclude = empty\n",
	  "2: .llwrap.ini may only tighten the policy: [profile] include" },
	{ "[environment]\nset = A=1\n",
	  "2: .llwrap.ini may only tighten the policy: [environment] set" },
	{ "[network]\nallow-cidr = 10.0.0.0/8\n",
	  "2: .llwrap.ini may only tighten the policy: [network] allow-cidr" },
	{ "[process]\nptrace = allow\n",
	  "2: .llwrap.ini may only tighten the policy: [process] ptrace" },
	{ "[filesystem]\nro = relative\n",
	  "2: [filesystem] ro: path 'relative' is not absolute" },
};

static void
test_project_file(void **state)
{
	char tmpl[] = "/tmp/llw-test-project-XXXXXX";
	char *path[] = { empty_dir, NULL };
	_cleanup_free_ char *ports = data("ports.ini");
	char *profs[] = { "default", ports, NULL };

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	for (size_t i = 0; i < ARRAY_SIZE(project_cases); i++) {
		struct policy_request req = request(profs, path, "x", tmpl);
		struct policy *p = NULL;
		_cleanup_free_ char *cause = NULL;
		_cleanup_free_ char *file = xasprintf("%s/.llwrap.ini", tmpl);
		int r;

		req.read_project_file = true;
		write_project_file(tmpl, project_cases[i].text);
		r = policy_resolve(&req, &p, &cause);
		if (project_cases[i].error == NULL) {
			if (r != 0)
				fail_msg("case %zu: %s", i, cause);
			assert_true(strv_contains(p->config_files, file));
			policy_free(p);
			continue;
		}
		assert_null(p);
		if (r != -EINVAL)
			fail_msg("case %zu: r=%d", i, r);
		{
			/* Compare with the temporary directory as PROJ. */
			_cleanup_free_ char *want = NULL;
			const char *w = project_cases[i].error;
			const char *proj = strstr(w, "PROJ");

			if (proj != NULL)
				want = xasprintf("%s:%.*s%s%s", file,
						 (int)(proj - w), w, tmpl,
						 proj + 4);
			else
				want = xasprintf("%s:%s", file, w);
			if (strncmp(cause, want, strlen(want)) != 0)
				fail_msg("case %zu:\n got: %s\nwant: %s...", i,
					 cause, want);
		}
	}
	remove_project_file(tmpl);
	assert_int_equal(rmdir(tmpl), 0);
}

/* What an accepted .llwrap.ini does to the policy. */
static void
test_project_effect(void **state)
{
	char tmpl[] = "/tmp/llw-test-project-XXXXXX";
	char *path[] = { empty_dir, NULL };
	_cleanup_free_ char *ports = data("ports.ini");
	char *profs[] = { "default", ports, NULL };
	attribute_cleanup(policy_freep) struct policy *p = NULL;
	attribute_cleanup(policy_freep) struct policy *q = NULL;
	_cleanup_free_ char *ct = NULL;
	_cleanup_free_ char *bt = NULL;
	_cleanup_free_ char *env = NULL;
	_cleanup_free_ char *file = NULL;
	_cleanup_free_ char *origin = NULL;
	struct policy_request req;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	file = xasprintf("%s/.llwrap.ini", tmpl);
	origin = xasprintf("%s:5", file);
	write_project_file(tmpl, "[network]\nmode = none\n"
				 "connect-tcp = 443\nconnect-tcp = 8000-8050\n"
				 "bind-tcp = none\n"
				 "[filesystem]\ndeny = ${PROJECT}/.env\n"
				 "[environment]\nunset = FOO\n");
	req = request(profs, path, "x", tmpl);
	req.read_project_file = true;
	p = resolve_ok(&req);
	ct = ports_text(&p->connect_tcp);
	bt = ports_text(&p->bind_tcp);
	env = items_text(&p->env_set);
	assert_string_equal(ct, "443 8000-8050");
	assert_int_equal(p->bind_tcp.n, 0);
	assert_string_equal(bt, "");
	assert_int_equal(p->net, LLW_NET_NONE);
	/* unset drops what less specific profiles set. */
	assert_string_equal(env, "BAR=2");
	{
		/* The last rule of a source: git-config's come after all. */
		const struct llw_path_rule *d = NULL;

		for (size_t i = 0; i < p->n_paths; i++)
			if (p->paths[i].access == LLW_ACCESS_DENY)
				d = &p->paths[i];
		assert_non_null(d);
		assert_int_equal(d->rank, 4);
	}
	assert_true(strv_contains(p->config_files, file));

	/* Without read_project_file the file is ignored. */
	req.read_project_file = false;
	q = resolve_ok(&req);
	assert_int_equal(q->net, LLW_NET_FILTERED);
	assert_int_equal(q->connect_tcp.n, 3);
	assert_false(strv_contains(q->config_files, file));

	remove_project_file(tmpl);
	assert_int_equal(rmdir(tmpl), 0);
}

/* --- the command line ------------------------------------------------- */

static void
test_cli_wins(void **state)
{
	char *path[] = { profiles_dir, NULL };
	char tmpl[] = "/tmp/llw-test-project-XXXXXX";
	attribute_cleanup(profile_freep) struct profile *cli =
		profile_new("command line", PROFILE_KIND_CLI);
	attribute_cleanup(vars_freep) struct vars *v = NULL;
	attribute_cleanup(policy_freep) struct policy *p = NULL;
	_cleanup_free_ char *cause = NULL;
	_cleanup_free_ char *ct = NULL;
	_cleanup_free_ char *dump = NULL;
	struct policy_request req;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	v = vars_new(test_env, tmpl, "tool");
	/* The project file says mode = none; the command line still wins. */
	write_project_file(tmpl, "[network]\nmode = none\n");
	assert_int_equal(
		profile_add(cli, v, "network", "mode", "host", 0, &cause), 0);
	assert_int_equal(profile_add(cli, v, "network", "connect-tcp", "22,443",
				     0, &cause),
			 0);
	assert_int_equal(
		profile_add(cli, v, "filesystem", "rw", "/m/both", 0, &cause),
		0);
	assert_int_equal(
		profile_add(cli, v, "filesystem", "deny", "none", 0, &cause),
		0);
	assert_int_equal(
		profile_add(cli, v, "profile", "best-effort", "yes", 0, &cause),
		0);
	req = request(NULL, path, "tool", "/work");
	req.project = tmpl;
	req.cli = cli;
	req.read_project_file = true;
	p = resolve_ok(&req);
	assert_int_equal(p->net, LLW_NET_HOST);
	assert_string_equal(p->net_origin.origin, "command line");
	assert_true(p->best_effort);
	assert_string_equal(p->best_effort_origin.origin, "command line");
	ct = ports_text(&p->connect_tcp);
	assert_string_equal(ct, "22 443");
	assert_string_equal(p->connect_tcp.v[0].origin, "command line");
	dump = dump_paths_under(p, "/m/both");
	/* Rank 1 default's empty, 2 default, 3 match-cmd, 4 .llwrap.ini,
	 * 5 the command line. */
	assert_string_equal(dump, "rw /m/both 5 command line\n");
	remove_project_file(tmpl);
	assert_int_equal(rmdir(tmpl), 0);
}

/* --- environment ------------------------------------------------------ */

static void
test_environ_default(void **state)
{
	char *path[] = { empty_dir, NULL };
	struct policy_request req = request(NULL, path, "x", "/proj");
	attribute_cleanup(policy_freep) struct policy *p = resolve_ok(&req);
	_cleanup_strv_ char **env = policy_environ(p, test_env);
	_cleanup_free_ char *j = strv_join(env, " ");

	(void)state;
	assert_string_equal(j, "HOME=/home/u USER=u PATH=/usr/bin:/bin "
			       "TERM=xterm LANG=C.UTF-8 LC_ALL=C "
			       "XDG_CONFIG_HOME=/home/u/.config");
	for (char **e = env; *e != NULL; e++) {
		assert_null(strstr(*e, "SSH_AUTH_SOCK"));
		assert_null(strstr(*e, "AWS_"));
		assert_null(strstr(*e, "TOKEN"));
		assert_null(strstr(*e, "DBUS"));
	}
}

/* keep, unset and set across sources, most specific winning. */
static void
test_environ_precedence(void **state)
{
	char *path[] = { empty_dir, NULL };
	_cleanup_free_ char *ports = data("ports.ini");
	_cleanup_free_ char *env2 = data("env2.ini");
	char *profs[] = { ports, env2, NULL };
	attribute_cleanup(profile_freep) struct profile *cli =
		profile_new("command line", PROFILE_KIND_CLI);
	attribute_cleanup(vars_freep) struct vars *v =
		vars_new(test_env, "/proj", "x");
	attribute_cleanup(policy_freep) struct policy *p = NULL;
	_cleanup_strv_ char **env = NULL;
	_cleanup_free_ char *j = NULL;
	_cleanup_free_ char *cause = NULL;
	struct policy_request req = request(profs, path, "x", "/proj");

	(void)state;
	assert_int_equal(
		profile_add(cli, v, "environment", "keep", "AWS_*", 0, &cause),
		0);
	assert_int_equal(profile_add(cli, v, "environment", "unset",
				     "AWS_SECRET_ACCESS_KEY", 0, &cause),
			 0);
	assert_int_equal(profile_add(cli, v, "environment", "set",
				     "FOO=cli PATH=/cli", 0, &cause),
			 0);
	req.cli = cli;
	p = resolve_ok(&req);
	env = policy_environ(p, test_env);
	j = strv_join(env, " ");
	/*
	 * ports.ini sets FOO=1 BAR=2 and unsets SECRET_*; env2.ini keeps
	 * SECRET_ONE (taking it off nothing: the unset is a glob, so it stays
	 * unset) and unsets BAR (dropping the set); the command line keeps
	 * AWS_*, unsets one of them and overrides FOO and PATH.
	 */
	assert_string_equal(j, "HOME=/home/u USER=u PATH=/cli TERM=xterm "
			       "LANG=C.UTF-8 LC_ALL=C "
			       "XDG_CONFIG_HOME=/home/u/.config "
			       "AWS_PROFILE=prod FOO=cli");
}

static void
test_environ_pure(void **state)
{
	attribute_cleanup(policy_freep) struct policy *p = policy_new();
	char *const envp[] = { "A=1", "B=2", "A=3", "NOEQUALS", "C=", NULL };
	_cleanup_strv_ char **env = NULL;
	_cleanup_free_ char *j = NULL;

	(void)state;
	p->env_keep.v = xcalloc(2, sizeof(struct llw_item));
	p->env_keep.v[0].value = xstrdup("?");
	p->env_keep.v[0].origin = xstrdup("t");
	p->env_keep.n = 1;
	p->env_set.v = xcalloc(1, sizeof(struct llw_item));
	p->env_set.v[0].value = xstrdup("D=4");
	p->env_set.v[0].origin = xstrdup("t");
	p->env_set.n = 1;
	env = policy_environ(p, envp);
	j = strv_join(env, " ");
	assert_string_equal(j, "A=1 B=2 C= D=4");
	/* An empty policy keeps nothing. */
	{
		attribute_cleanup(policy_freep) struct policy *e = policy_new();
		_cleanup_strv_ char **none = policy_environ(e, envp);

		assert_non_null(none);
		assert_int_equal(strv_length(none), 0);
	}
}

/* keep globs of every shape decide as fnmatch(3) would. */
static void
test_environ_globs(void **state)
{
	static const char *const globs[] = {
		"LC_*", "*",	 "LC_ALL", "L?_ALL", "LC_[AC]*",
		"X\\*", "*_KEY", "",	   "A*B",    "LC_",
	};
	static char *const envp[] = { "LC_ALL=C",  "LC_CTYPE=C", "LC_=1",
				      "L=1",	   "X*=2",	 "XY=3",
				      "API_KEY=s", "AB=4",	 "AXB=5",
				      "=6",	   NULL };

	(void)state;
	for (size_t g = 0; g < ARRAY_SIZE(globs); g++) {
		attribute_cleanup(policy_freep) struct policy *p = policy_new();
		_cleanup_strv_ char **env = NULL;
		size_t k = 0;

		p->env_keep.v = xcalloc(1, sizeof(struct llw_item));
		p->env_keep.v[0].value = xstrdup(globs[g]);
		p->env_keep.v[0].origin = xstrdup("t");
		p->env_keep.n = 1;
		env = policy_environ(p, envp);
		for (char *const *e = envp; *e != NULL; e++) {
			_cleanup_free_ char *name =
				xstrndup(*e, strcspn(*e, "="));

			if (fnmatch(globs[g], name, 0) != 0)
				continue;
			if (env[k] == NULL || strcmp(env[k], *e) != 0)
				fail_msg("keep '%s': %s missing", globs[g], *e);
			k++;
		}
		if (env[k] != NULL)
			fail_msg("keep '%s': %s kept", globs[g], env[k]);
	}
}

/* --- shipped profiles ------------------------------------------------- */

static char *
read_text(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	char *text = NULL;
	size_t len;

	if (fd < 0)
		fail_msg("cannot open %s", file);
	assert_int_equal(fd_read_all(fd, 1 << 20, &text, &len), 0);
	close(fd);
	return text;
}

static char *
src_dir(void)
{
	const char *env = getenv("LLW_SRCDIR");

	if (env != NULL && *env != '\0')
		return xstrdup(env);
	return xasprintf("%s/../..", data_dir);
}

static void
test_builtins_are_shipped(void **state)
{
	_cleanup_free_ char *src = src_dir();
	const char *names[] = { "default", "empty" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *f =
			xasprintf("%s/conf/%s.ini", src, names[i]);
		_cleanup_free_ char *text = read_text(f);

		assert_non_null(profile_builtin(names[i]));
		assert_string_equal(profile_builtin(names[i]), text);
	}
}

/* Every shipped profile resolves; opencode matches by command. */
static void
test_shipped_resolve(void **state)
{
	_cleanup_free_ char *src = src_dir();
	/* realpath: under make distcheck the source dir is reached through
	 * "_build/sub/../..", while config_files holds normalised paths. */
	_cleanup_free_ char *conf_raw = xasprintf("%s/conf", src);
	_cleanup_free_ char *conf = real(conf_raw);
	char *path[] = { conf, NULL };
	const char *const names[] = { "empty", "default", "offline",
				      "opencode" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *profs[] = { (char *)names[i], NULL };
		struct policy_request req = request(profs, path, "sh", "/proj");
		attribute_cleanup(policy_freep) struct policy *p =
			resolve_ok(&req);

		assert_true(p->n_paths > 0);
		if (strcmp(names[i], "offline") == 0)
			assert_int_equal(p->net, LLW_NET_NONE);
		else
			assert_int_equal(p->net, LLW_NET_FILTERED);
	}
	{
		struct policy_request req =
			request(NULL, path, "opencode", "/proj");
		attribute_cleanup(policy_freep) struct policy *p =
			resolve_ok(&req);
		_cleanup_strv_ char **env = policy_environ(
			p,
			(char *const[]){ "ANTHROPIC_API_KEY=k", "OPENCODE_X=1",
					 "GITHUB_TOKEN=t", NULL });
		_cleanup_free_ char *j = strv_join(env, " ");
		_cleanup_free_ char *ct = ports_text(&p->connect_tcp);
		_cleanup_free_ char *bt = ports_text(&p->bind_tcp);
		_cleanup_free_ char *oc_raw =
			xasprintf("%s/opencode.ini", conf);
		/* The policy records files normalised; LLW_SRCDIR holds
		 * ".." in a distcheck build (_build/sub/..). */
		_cleanup_free_ char *oc = realpath(oc_raw, NULL);

		/* The tool caches are the sandbox's own (opencode.ini). */
		assert_true(strncmp(j,
				    "ANTHROPIC_API_KEY=k OPENCODE_X=1 "
				    "OPENCODE_DISABLE_AUTOUPDATE=1 "
				    "XDG_CACHE_HOME=/home/u/"
				    ".cache/llwrap/opencode npm_config_cache=",
				    strlen("ANTHROPIC_API_KEY=k OPENCODE_X=1 "
					   "OPENCODE_DISABLE_AUTOUPDATE=1 "
					   "XDG_CACHE_HOME="
					   "/home/u/.cache/llwrap/opencode "
					   "npm_config_cache=")) == 0);
		/* opencode's data and state per project (DESIGN.md §11). */
		assert_non_null(strstr(j, " XDG_DATA_HOME=/home/u/.local/share/"
					  "llwrap/opencode/proj-"));
		assert_non_null(strstr(j, "/data XDG_STATE_HOME="));
		assert_null(strstr(j, "GITHUB_TOKEN"));
		/* DNS is the supervisor's (the resolvers, UDP or TCP). */
		assert_null(strstr(j, "RES_OPTIONS"));
		assert_string_equal(ct, "443");
		/* Published: the dev servers' default ports; any other for
		 * the sandbox alone (bind 0; DESIGN.md §16). */
		assert_string_equal(bt, "0 1313 3001-3009 4000-4009 4173-4179 "
					"4200-4209 4321 5173-5179 6006 8787");
		assert_true(p->supervise);
		assert_int_equal(p->connect_udp.n, 0);
		assert_true(strv_contains(p->config_files, oc));
		assert_int_equal(p->n_cidrs + p->unix_paths.n +
					 p->n_listen_addrs + p->n_dns_addrs,
				 0);
		assert_false(p->unix_sockets);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_profile_path),
		cmocka_unit_test(test_builtin_default),
		cmocka_unit_test(test_p_order),
		cmocka_unit_test(test_mkdir_and_access_at),
		cmocka_unit_test(test_includes),
		cmocka_unit_test(test_include_relative_and_file),
		cmocka_unit_test(test_p_relative_file),
		cmocka_unit_test(test_include_cycle),
		cmocka_unit_test(test_unknown_profile),
		cmocka_unit_test(test_none_clears),
		cmocka_unit_test(test_broken_on_path),
		cmocka_unit_test(test_scan_on_path),
		cmocka_unit_test(test_matched),
		cmocka_unit_test(test_matched_scalars_and_once),
		cmocka_unit_test(test_matched_includes),
		cmocka_unit_test(test_matched_profile),
		cmocka_unit_test(test_match_unit),
		cmocka_unit_test(test_project_file),
		cmocka_unit_test(test_project_effect),
		cmocka_unit_test(test_cli_wins),
		cmocka_unit_test(test_environ_default),
		cmocka_unit_test(test_environ_precedence),
		cmocka_unit_test(test_environ_pure),
		cmocka_unit_test(test_environ_globs),
		cmocka_unit_test(test_builtins_are_shipped),
		cmocka_unit_test(test_shipped_resolve),
	};

	return cmocka_run_group_tests_name("policy", tests, setup, teardown);
}
