/*
 * why against the kernel (issue 26 step 2): random filesystem rule sets
 * over a real directory tree, compiled as a run compiles them
 * (pathtree_compile, ruleset_plan_new for the running ABI); for each,
 * one child sets no_new_privs, applies the Landlock ruleset and tries
 * every probe (open to read, open to write or create a file, exec,
 * mkdir), and what the kernel did is compared with why's answer for
 * the same resolved path and access.  Landlock alone: the L3 masks need
 * a mount namespace, so a rule set the compiler refuses without them
 * (a narrower rule inside a writable one) is skipped, like a run that
 * would not start.  N_SETS rule sets from a fixed seed, or LLW_SEED's;
 * skipped when the kernel has no Landlock.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "cliprofile.h"
#include "compat/landlock.h"
#include "pathtree.h"
#include "planner.h"
#include "policy.h"
#include "profile.h"
#include "ruleset.h"
#include "strv.h"
#include "vars.h"
#include "why.h"
#include "xalloc.h"

enum { N_SETS = 60 };

static char *const test_env[] = {
	"HOME=/nonexistent",
	"USER=u",
	"PATH=/usr/bin:/bin",
	NULL,
};

static char *conf_dir, *root;

/* The tree, beneath root: "d:" a directory, "f:" a file (mode 0755, not
 * a valid executable: exec reaches the open, then fails ENOEXEC),
 * "l:NAME:TARGET" a symbolic link. */
static const char *const tree[] = {
	"d:a",	      "f:a/f1",	  "d:a/b",  "f:a/b/f2", "d:a/b/c",
	"f:a/b/c/f3", "d:d",	  "f:d/f4", "d:e",	"f:e/f5",
	"l:l:a/b",    "l:g:d/f4", NULL,
};

/* Where rules go, relative to root ("" is root itself). */
static const char *const rule_paths[] = {
	"",	    "a", "a/b",	 "a/b/c", "a/f1", "a/b/f2",
	"a/b/c/f3", "d", "d/f4", "e",	  "l",	  "g",
};

static const char *const levels[] = { "deny", "ro", "rx", "rw", "rwx" };

enum op { OP_READ, OP_WRITE, OP_EXEC, OP_MKDIR };

/* A probe: a path as the command names it (perhaps through a link), and
 * what it does there.  On a directory, write creates a file in it. */
struct probe {
	const char *path;
	enum op op;
};

static const struct probe probes[] = {
	{ "a/f1", OP_READ },	 { "a/f1", OP_WRITE },
	{ "a/f1", OP_EXEC },	 { "a/b/f2", OP_READ },
	{ "a/b/f2", OP_WRITE },	 { "a/b/f2", OP_EXEC },
	{ "l/f2", OP_READ },	 { "l/f2", OP_WRITE },
	{ "a/b/c/f3", OP_READ }, { "a/b/c/f3", OP_WRITE },
	{ "a/b/c/f3", OP_EXEC }, { "d/f4", OP_READ },
	{ "g", OP_WRITE },	 { "g", OP_EXEC },
	{ "e/f5", OP_READ },	 { "e/f5", OP_EXEC },
	{ "", OP_READ },	 { "a", OP_READ },
	{ "a", OP_WRITE },	 { "a", OP_MKDIR },
	{ "a/b", OP_READ },	 { "a/b", OP_WRITE },
	{ "l", OP_MKDIR },	 { "a/b/c", OP_READ },
	{ "a/b/c", OP_MKDIR },	 { "d", OP_WRITE },
	{ "d", OP_MKDIR },	 { "e", OP_READ },
	{ "e", OP_WRITE },	 { "", OP_MKDIR },
};

#define N_PROBES ARRAY_SIZE(probes)

static uint64_t
next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static char *
at_root(const char *rel)
{
	return *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
}

static void
make_tree(void)
{
	for (const char *const *e = tree; *e != NULL; e++) {
		_cleanup_free_ char *path = NULL;

		if ((*e)[0] == 'l') {
			_cleanup_free_ char *name = xstrdup(*e + 2);
			char *colon = strchr(name, ':');

			*colon = '\0';
			path = at_root(name);
			assert_int_equal(symlink(colon + 1, path), 0);
			continue;
		}
		path = at_root(*e + 2);
		if ((*e)[0] == 'd') {
			assert_int_equal(mkdir(path, 0777), 0);
			assert_int_equal(chmod(path, 0777), 0);
		} else {
			int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0777);

			assert_true(fd >= 0);
			assert_int_equal(write(fd, "not a program\n", 14), 14);
			close(fd);
			assert_int_equal(chmod(path, 0777), 0);
		}
	}
}

/* Each probe in a child confined by rp: one byte per probe, 1 when the
 * kernel allowed it, 0 when Landlock refused it (EACCES), else the
 * errno (an unexpected answer, which fails the test). */
static void
run_probes(const struct ruleset_plan *rp, int set, unsigned char *got)
{
	int fds[2];
	pid_t pid;
	int status;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		_cleanup_free_ char *cause = NULL;
		unsigned char out[N_PROBES];

		close(fds[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    ruleset_apply(rp, &cause) < 0)
			_exit(2);
		for (size_t i = 0; i < N_PROBES; i++) {
			_cleanup_free_ char *path = at_root(probes[i].path);
			_cleanup_free_ char *entry = NULL;
			char *argv[] = { path, NULL };
			struct stat st;
			int r = 0, fd = -1;

			switch (probes[i].op) {
			case OP_READ:
				fd = open(path, O_RDONLY | O_CLOEXEC);
				r = fd < 0 ? errno : 0;
				break;
			case OP_WRITE:
				if (stat(path, &st) == 0 &&
				    S_ISDIR(st.st_mode)) {
					entry = xasprintf("%s/new-%d-%zu", path,
							  set, i);
					fd = open(entry,
						  O_WRONLY | O_CREAT | O_EXCL |
							  O_CLOEXEC,
						  0666);
				} else {
					fd = open(path, O_WRONLY | O_CLOEXEC);
				}
				r = fd < 0 ? errno : 0;
				break;
			case OP_EXEC:
				fd = (int)syscall(SYS_execve, path, argv,
						  test_env);
				r = errno == ENOEXEC ? 0 : errno;
				break;
			case OP_MKDIR:
				entry = xasprintf("%s/dir-%d-%zu", path, set,
						  i);
				fd = mkdir(entry, 0777);
				r = fd < 0 ? errno : 0;
				break;
			}
			if (fd >= 0 && probes[i].op != OP_MKDIR)
				close(fd);
			out[i] = r == 0	       ? 1
				 : r == EACCES ? 0
					       : (unsigned char)r;
		}
		_exit(write(fds[1], out, sizeof(out)) == sizeof(out) ? 0 : 3);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], got, N_PROBES), (ssize_t)N_PROBES);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* why's question for probe i: the path resolved as the kernel resolves
 * it, a new entry's path for write and mkdir in a directory. */
static void
probe_query(const struct probe *pr, int set, size_t i, struct why_query *q,
	    char **path)
{
	_cleanup_free_ char *named = at_root(pr->path);
	struct stat st;

	memset(q, 0, sizeof(*q));
	q->home = "/nonexistent";
	assert_non_null(*path = realpath(named, NULL));
	assert_int_equal(stat(*path, &st), 0);
	q->exists = true;
	q->is_dir = S_ISDIR(st.st_mode);
	q->access = pr->op == OP_READ	? WHY_READ
		    : pr->op == OP_EXEC ? WHY_EXEC
					: WHY_WRITE;
	if (pr->op == OP_MKDIR) {
		/* A new directory: written into its parent, as a file not
		 * there yet is (Landlock's make-dir and make-file rights
		 * come together in every level). */
		char *entry = xasprintf("%s/dir-%d-%zu", *path, set, i);

		free(*path);
		*path = entry;
		q->exists = q->is_dir = false;
	}
	q->path = *path;
}

static void
test_enforce(void **state)
{
	const char *env = getenv("LLW_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x27b27b27bULL;
	uint64_t s = seed ? seed : 1;
	char *profiles[] = { "empty", NULL };
	char *search[] = { conf_dir, NULL };
	size_t allowed = 0, denied = 0, refused = 0;
	struct ruleset_kernel k;

	(void)state;
	ruleset_probe(&k);
	if (k.abi == 0) {
		print_message("# skip: the kernel has no Landlock (%s)\n",
			      strerror(k.err));
		skip();
	}
	print_message("# enforce: seed %#llx, %d rule sets of %zu probes, "
		      "Landlock ABI %d\n",
		      (unsigned long long)seed, N_SETS, N_PROBES, k.abi);
	for (int set = 0; set < N_SETS; set++) {
		_cleanup_strv_ char **flags = NULL;
		_cleanup_free_ char *joined = NULL;
		_cleanup_free_ char *cause = NULL;
		size_t n_rules = 1 + next_random(&s) % 4;
		struct policy_request req = {
			.envp = test_env,
			.project = root,
			.command = "tool",
			.name = "tool",
			.profiles = profiles,
			.profile_path = search,
			.resolve = pathtree_fs_real.resolve,
		};
		struct sandbox sb = { .backend = SANDBOX_BACKEND_LANDLOCK };
		unsigned char got[N_PROBES];
		struct ruleset_inputs in;
		struct pathtree_input paths;
		struct vars *vars;
		struct profile *cli;
		struct policy *p;

		for (size_t r = 0; r < n_rules; r++) {
			_cleanup_free_ char *path =
				at_root(rule_paths[next_random(&s) %
						   ARRAY_SIZE(rule_paths)]);

			strv_push_take(&flags,
				       xasprintf("filesystem %s %s",
						 levels[next_random(&s) %
							ARRAY_SIZE(levels)],
						 path));
		}
		vars = vars_new(test_env, root, "tool");
		joined = strv_join(flags, ";");
		cli = cli_profile(vars, joined);
		req.cli = cli;
		if (policy_resolve(&req, &p, &cause) < 0)
			fail_msg("%s", cause);
		planner_pathtree_input(p, &paths);
		if (pathtree_compile(&paths, &pathtree_fs_real, false, &sb.fs,
				     &cause) < 0) {
			refused++;
			goto next;
		}
		sb.policy = p;
		planner_conf(p, false, &sb.conf);
		planner_ruleset_inputs(p, &in);
		sb.landlock = ruleset_plan_new(&in, sb.fs, k.abi);
		filter_opts_init(&sb.filter);
		run_probes(sb.landlock, set, got);
		for (size_t i = 0; i < N_PROBES; i++) {
			_cleanup_free_ char *path = NULL, *text = NULL;
			_cleanup_free_ char *list = strv_join(flags, "; ");
			static const char *const ops[] = { "read", "write",
							   "exec", "mkdir" };
			struct why_query q;
			struct why_verdict v;

			probe_query(&probes[i], set, i, &q, &path);
			why_decide(&sb, NULL, NULL, &q, &v);
			text = why_format(q.path, &v);
			if (got[i] > 1)
				fail_msg("set %d (seed %#llx), %s %s: the "
					 "kernel said %s, neither allowed nor "
					 "EACCES",
					 set, (unsigned long long)seed,
					 ops[probes[i].op], probes[i].path,
					 strerror(got[i]));
			if (v.allowed != (got[i] == 1) || v.depends)
				fail_msg("set %d (seed %#llx): %s %s (%s) "
					 "under %s: why says %s, Landlock "
					 "%s:\n%s",
					 set, (unsigned long long)seed,
					 ops[probes[i].op], probes[i].path,
					 q.path, list,
					 v.allowed ? "allowed" : "denied",
					 got[i] ? "allowed it" : "refused it",
					 text);
			if (got[i])
				allowed++;
			else
				denied++;
			why_verdict_clear(&v);
		}
		ruleset_plan_free(sb.landlock);
	next:
		plan_free(sb.fs);
		policy_free(p);
		profile_free(cli);
		vars_free(vars);
	}
	print_message("# enforce: %zu allowed, %zu refused by Landlock, %zu "
		      "rule sets refused by the compiler (not run)\n",
		      allowed, denied, refused);
	assert_true(allowed + denied >= 300);
	assert_true(allowed >= 50 && denied >= 50);
}

static int
setup(void **state)
{
	const char *src = getenv("LLW_SRCDIR");
	const char *build = getenv("LLW_BUILDDIR");
	_cleanup_free_ char *raw = xasprintf("%s/conf", src ? src : ".");
	/* In the build tree, not /tmp: a noexec /tmp would refuse every
	 * exec whatever Landlock says. */
	_cleanup_free_ char *tmpl =
		xasprintf("%s/tests/llw-enforce.XXXXXX", build ? build : ".");
	char *made;

	(void)state;
	conf_dir = realpath(raw, NULL);
	if (conf_dir == NULL)
		conf_dir = steal_pointer(&raw);
	made = mkdtemp(tmpl);
	if (made == NULL && errno == EACCES) {
		/* A build tree this user may not write: /tmp then. */
		free(tmpl);
		tmpl = xstrdup("/tmp/llw-enforce.XXXXXX");
		made = mkdtemp(tmpl);
	}
	if (made == NULL || chmod(tmpl, 0777) < 0) {
		print_message("# cannot make %s: %s\n", tmpl, strerror(errno));
		return -1;
	}
	root = realpath(tmpl, NULL);
	make_tree();
	return 0;
}

static int
teardown(void **state)
{
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", root);

	(void)state;
	if (system(cmd) != 0)
		return -1;
	free(root);
	free(conf_dir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enforce),
	};

	return cmocka_run_group_tests_name("enforce", tests, setup, teardown);
}
