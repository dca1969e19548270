/*
 * libFuzzer harness: profile parsing, policy precedence and path
 * compilation, the pure core that turns untrusted text (a project's
 * .llwrap.ini, a profile from anywhere) into Landlock rules.
 *
 * The input is a profile, optionally followed by a line "%%" and a fake
 * file system, one entry a line: "d:/path" a directory, "f:/path" a file,
 * "l:/path:/target" a symlink.  Each input is
 *
 *  - parsed with profile_parse_string() as an ordinary profile and as a
 *    project's .llwrap.ini (the tighten-only rules);
 *  - written to a file and resolved with policy_resolve() as a -p
 *    profile on top of the built-in default, with a second copy as the
 *    project's .llwrap.ini;
 *  - compiled with pathtree_compile() against the fake file system, with
 *    and without L3 masks;
 *  - and, since it is text too, parsed as a known-limits list.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined.  Built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays the seeds and tests/fuzz/regressions/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fakefs.h"
#include "known.h"
#include "pathtree.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *scratch_dir;

/* Remove the scratch directory and the three entries made in it. */
static void
scratch_remove(void)
{
	static const char *const names[] = { "proj/.llwrap.ini", "proj",
					     "fuzz.ini" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *p =
			xasprintf("%s/%s", scratch_dir, names[i]);

		if (unlink(p) < 0)
			rmdir(p);
	}
	rmdir(scratch_dir);
}

/* A scratch directory for the profile files, made once, in $TMPDIR. */
static char *
scratch(void)
{
	if (scratch_dir == NULL) {
		const char *t = getenv("TMPDIR");
		_cleanup_free_ char *tmpl = xasprintf(
			"%s/llwrap-fuzz.XXXXXX", t && *t == '/' ? t : "/tmp");

		if (mkdtemp(tmpl) == NULL)
			abort();
		scratch_dir = steal_pointer(&tmpl);
		atexit(scratch_remove);
	}
	return scratch_dir;
}

static void
write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		abort();
	if (len > 0 && write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
}

/* Only entries of the form the fake file system understands. */
static bool
valid_entry(const char *e)
{
	return (e[0] == 'd' || e[0] == 'f' || e[0] == 'l') && e[1] == ':' &&
	       e[2] == '/';
}

static bool
strv_equal(char *const *a, char *const *b)
{
	size_t i = 0;

	for (; a != NULL && b != NULL && a[i] != NULL && b[i] != NULL; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return (a == NULL || a[i] == NULL) && (b == NULL || b[i] == NULL);
}

/*
 * The profile-path scan (PROFILE_KIND_MATCH) must agree with a full
 * parse: a profile that parses must scan, to the same [match].  full is
 * the full parse, or NULL when it failed (then the scan may go either
 * way: it skips the semantics of the other sections).
 */
static void
check_match_scan(const char *text, const struct vars *v,
		 const struct profile *full)
{
	struct profile *m = NULL;
	char *cause = NULL;
	int r = profile_parse_string("fuzz.ini", text, PROFILE_KIND_MATCH, v,
				     &m, &cause);

	if (full != NULL &&
	    (r != 0 || !strv_equal(m->match_command, full->match_command) ||
	     !strv_equal(m->match_project, full->match_project))) {
		fprintf(stderr,
			"[match] scan disagrees with the full parse: %s\n",
			cause ? cause : "different [match]");
		abort();
	}
	profile_free(m);
	free(cause);
}

static void
one_policy(const char *project, const char *profile, bool project_file,
	   const struct fakefs *ffs)
{
	char *envp[] = { "HOME=/home/u", "USER=u", "PATH=/usr/bin",
			 "SECRET_TOKEN=x", NULL };
	char *profiles[] = { (char *)profile, NULL };
	char *path[] = { NULL };
	struct pathtree_fs fs = {
		.resolve = fake_resolve,
		.stat = fake_stat,
		.list = fake_list,
		.ctx = (void *)ffs,
	};
	struct policy_request req = {
		.envp = envp,
		.project = project,
		.command = "opencode",
		.name = "fuzz",
		.profiles = profiles,
		.profile_path = path,
		.cli = NULL,
		.read_project_file = project_file,
	};
	struct policy *p = NULL;
	char *cause = NULL;

	if (policy_resolve(&req, &p, &cause) == 0) {
		for (int masks = 0; masks < 2; masks++) {
			struct plan *plan = NULL;
			char *why = NULL;
			struct pathtree_input in = {
				.paths = p->paths,
				.n_paths = p->n_paths,
				.project = p->project,
				.best_effort = p->best_effort,
			};

			if (pathtree_compile(&in, &fs, masks, &plan, &why) == 0)
				plan_free(plan);
			free(why);
		}
		strv_free(policy_environ(p, envp));
		policy_free(p);
	}
	free(cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = xstrndup((const char *)data, size);
	_cleanup_free_ char *profile = NULL, *project = NULL, *local = NULL;
	_cleanup_strv_ char **ents = NULL;
	char *sep = strstr(text, "\n%%\n");
	const char *dir = scratch();
	struct vars *v = NULL;
	struct profile *pr = NULL;
	struct known_limits *kl = NULL;
	struct fakefs ffs;
	char *cause = NULL;
	char *envp[] = { "HOME=/home/u", "XDG_CONFIG_HOME=/home/u/.config",
			 NULL };

	if (sep != NULL) {
		*sep = '\0';
		for (char *l = strtok(sep + 4, "\n"); l != NULL;
		     l = strtok(NULL, "\n"))
			if (valid_entry(l) && strv_length(ents) < 64)
				strv_push(&ents, l);
	}
	if (ents == NULL) {
		static const char *const defaults[] = {
			"d:/usr/bin",
			"d:/etc",
			"f:/etc/passwd",
			"d:/home/u/.ssh",
			"f:/home/u/.ssh/id_ed25519",
			"d:/home/u/proj/.git/hooks",
			"f:/home/u/proj/.env",
			"l:/home/u/proj/link:/home/u/.ssh",
			"d:/tmp",
			"d:/home/u/.config/opencode",
			NULL
		};

		for (const char *const *d = defaults; *d != NULL; d++)
			strv_push(&ents, *d);
	}
	ffs.ents = (const char *const *)ents;

	/* Straight parsing, every kind. */
	v = vars_new(envp, "/home/u/proj", "fuzz");
	if (profile_parse_string("fuzz.ini", text, PROFILE_KIND_NORMAL, v, &pr,
				 &cause) == 0)
		check_match_scan(text, v, pr);
	else
		check_match_scan(text, v, NULL);
	profile_free(pr);
	free(cause);
	cause = NULL;
	pr = NULL;
	if (profile_parse_string("fuzz.ini", text, PROFILE_KIND_PROJECT, v, &pr,
				 &cause) == 0)
		profile_free(pr);
	free(cause);
	cause = NULL;
	vars_free(v);

	/* Precedence: as a -p profile, then also as the project's file. */
	profile = xasprintf("%s/fuzz.ini", dir);
	write_file(profile, text, strlen(text));
	project = xasprintf("%s/proj", dir);
	mkdir(project, 0700);
	local = xasprintf("%s/.llwrap.ini", project);
	unlink(local);
	one_policy(project, profile, false, &ffs);
	write_file(local, text, strlen(text));
	one_policy(project, profile, true, &ffs);

	if (known_parse("fuzz", text, &kl, &cause) == 0)
		known_free(kl);
	free(cause);
	return 0;
}
