/*
 * llwrap: run a command inside a sandbox it cannot widen.
 *
 * This file is the command line only: it turns arguments into a policy
 * request, asks the core for the policy and the sandbox, prints, and
 * exits.  Nothing below it prints or exits (STYLE.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "blocked.h"
#include "copyin.h"
#include "explain.h"
#include "hostdns.h"
#include "hostrule.h"
#include "learn.h"
#include "options.h"
#include "keys.h"
#include "known.h"
#include "path.h"
#include "policy.h"
#include "profile.h"
#include "project.h"
#include "resources.h"
#include "sandbox.h"
#include "selftest.h"
#include "strv.h"
#include "text.h"
#include "supervise.h"
#include "why.h"
#include "xalloc.h"
#include "fdutil.h"

#define EXIT_LLWRAP 125

static bool quiet;

/* The project of this run as main() chose it, where its command starts
 * when elsewhere, and how it was chosen (policy.h). */
static const char *run_project, *run_workdir, *run_project_why;

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	/* Messages quote what files and flags said (a project's
	 * .llwrap.ini among them): line by line, shown as text, never as
	 * the terminal's control sequences. */
	fputs("llwrap: ", stderr);
	for (char *l = msg, *e; l != NULL; l = e != NULL ? e + 1 : NULL) {
		_cleanup_free_ char *shown = NULL;

		e = strchr(l, '\n');
		if (e != NULL)
			*e = '\0';
		shown = text_shown(l);
		fputs(shown, stderr);
		if (e != NULL)
			fputc('\n', stderr);
	}
	fputc('\n', stderr);
	exit(status);
}

static void
usage(FILE *f)
{
	_cleanup_strv_ char **dirs =
		policy_profile_path(environ, LLW_SYSCONFDIR, LLW_DATADIR);
	_cleanup_strv_ char **names = policy_profile_names(dirs);

	options_usage(f, dirs, names);
}

static char *
absolute_path(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || path[0] == '~' || path[0] == '$')
		return xstrdup(path);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		die(EXIT_LLWRAP, "cannot get the current directory: %s",
		    strerror(errno));
	return xasprintf("%s/%s", cwd, path);
}

/*
 * A command-line rule: the key the key table gives the flag (keys.h),
 * given to the command-line profile like a line of a file, so flags and
 * files go through one validation.  Relative paths are taken from the
 * working directory; a flag without a value sets its key to yes.
 */
static void
add_flag(struct profile *cli, const struct vars *v, int opt, const char *arg)
{
	_cleanup_free_ char *value = NULL;
	_cleanup_free_ char *cause = NULL;
	const struct options_spec *spec = options_find(opt);
	const struct key *k;

	/* --learn's own run: the supervisor observes it. */
	if (opt == OPT_LEARN)
		k = keys_find("network", "supervise");
	else if (spec == NULL || (k = keys_by_flag(spec->name)) == NULL)
		return;
	if (opt == OPT_LEARN || spec->has_arg == no_argument)
		value = xstrdup("yes");
	else if (k->type == KEY_T_PATHS)
		value = absolute_path(arg);
	else
		value = xstrdup(arg);
	if (profile_add(cli, v, k->section, k->name, value, 0, &cause) < 0)
		die(EXIT_LLWRAP, "%s", cause);
}

static int
parse_fd(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || n < 0 || n > INT_MAX)
		die(EXIT_LLWRAP, "--keep-fd %s: not a file descriptor number",
		    s);
	return (int)n;
}

static enum sandbox_backend
parse_backend(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return SANDBOX_BACKEND_AUTO;
	if (strcmp(s, "landlock") == 0)
		return SANDBOX_BACKEND_LANDLOCK;
	if (strcmp(s, "bwrap") == 0)
		return SANDBOX_BACKEND_BWRAP;
	die(EXIT_LLWRAP, "--backend %s: expected auto, landlock or bwrap", s);
}

struct flag {
	int opt;
	char *arg;
};

/*
 * DESIGN.md §11: the home directory, an ancestor of it or / is refused
 * as the project unless --allow-broad-project; a project reached through
 * a symbolic link is named as it resolves, so that the user sees which
 * directory becomes writable.  given is the directory as given (-C) or
 * ".", from_cwd whether it is the working directory, and top, when not
 * NULL, the top level of the git work tree that holds it, which is the
 * project then.
 */
static void
check_project(const char *given, bool from_cwd, const char *real,
	      const char *top, bool allow_broad)
{
	const char *home = getenv("HOME");
	_cleanup_free_ char *home_real = NULL, *why = NULL;
	const char *spelled = given;

	if (home != NULL && *home == '/')
		home_real = realpath(home, NULL);
	why = policy_broad_project(top != NULL ? top : real, home_real);
	if (why != NULL && !allow_broad && top != NULL)
		die(EXIT_LLWRAP,
		    "refusing to run: the working directory %s is in the git "
		    "work tree %s, which would be the project, and %s; name "
		    "the project with -C (-C . for the working directory "
		    "alone), or pass --allow-broad-project to run there "
		    "anyway",
		    real, top, why);
	if (why != NULL && !allow_broad)
		die(EXIT_LLWRAP,
		    "refusing to run: %s; start llwrap in the project "
		    "directory (or name it with -C), or pass "
		    "--allow-broad-project to run there anyway",
		    why);
	if (why != NULL && !quiet)
		fprintf(stderr,
			"llwrap: warning: %s (allowed by "
			"--allow-broad-project)\n",
			why);
	/* The working directory as the shell spells it. */
	if (from_cwd) {
		const char *pwd = getenv("PWD");
		_cleanup_free_ char *pwd_real = NULL;

		if (pwd == NULL || *pwd != '/' ||
		    (pwd_real = realpath(pwd, NULL)) == NULL ||
		    strcmp(pwd_real, real) != 0)
			return;
		spelled = pwd;
	}
	if (spelled[0] == '/' && strcmp(spelled, real) != 0 && !quiet) {
		_cleanup_free_ char *norm = path_normalise(spelled);

		if (strcmp(norm, real) != 0)
			fprintf(stderr,
				"llwrap: note: the %s %s is reached "
				"through a symbolic link; the sandbox grants "
				"%s\n",
				top != NULL ? "working directory" : "project",
				spelled, top != NULL ? top : real);
	}
}

/*
 * Without -C: the top level of the git work tree that holds the working
 * directory real, as git finds it (GIT_CEILING_DIRECTORIES included), or
 * NULL when there is none or it is real itself.
 */
static char *
git_toplevel(const char *real)
{
	const char *env = getenv("GIT_CEILING_DIRECTORIES");
	_cleanup_strv_ char **ceilings = NULL;
	char *top;

	if (env != NULL && *env != '\0') {
		_cleanup_free_ char *copy = xstrdup(env);
		char *save = NULL;

		for (char *c = strtok_r(copy, ":", &save); c != NULL;
		     c = strtok_r(NULL, ":", &save))
			strv_push(&ceilings, c);
	}
	top = project_toplevel(real, ceilings, &project_fs_real);
	if (top != NULL && strcmp(top, real) == 0) {
		free(top);
		top = NULL;
	}
	return top;
}

/* Resolve the policy of the command line plus extra flags. */
static struct policy *
resolve(const char *project, const char *name, char **cmd, char **profiles,
	const struct flag *flags, size_t n_flags, const struct flag *extra,
	size_t n_extra)
{
	_cleanup_strv_ char **path = NULL;
	_cleanup_free_ char *cause = NULL;
	struct vars *vars = vars_new(environ, project, name);
	struct profile *cli = profile_new("command line", PROFILE_KIND_CLI);
	struct policy *policy = NULL;
	int r;

	for (size_t i = 0; i < n_flags; i++)
		add_flag(cli, vars, flags[i].opt, flags[i].arg);
	for (size_t i = 0; i < n_extra; i++)
		add_flag(cli, vars, extra[i].opt, extra[i].arg);
	path = policy_profile_path(environ, LLW_SYSCONFDIR, LLW_DATADIR);
	{
		bool ours = run_project != NULL &&
			    strcmp(project, run_project) == 0;
		struct policy_request req = {
			.envp = environ,
			.project = project,
			.workdir = ours ? run_workdir : NULL,
			.project_why = ours ? run_project_why : NULL,
			.command = cmd[0],
			.name = name,
			.profiles = profiles,
			.profile_path = path,
			.cli = cli,
			.read_project_file = true,
			.as_root = getuid() == 0 || geteuid() == 0,
			.resolve = pathtree_fs_real.resolve,
		};

		r = policy_resolve(&req, &policy, &cause);
	}
	profile_free(cli);
	vars_free(vars);
	if (r < 0)
		die(EXIT_LLWRAP, "%s", cause);
	return policy;
}

/* The first word of a corpus line and the rest after the id. */
static const char *
line_detail(const char *line)
{
	const char *s = strchr(line, ' ');

	s = s ? strchr(s + 1, ' ') : NULL;
	return s ? s + 1 : "";
}

/*
 * --selftest (DESIGN.md §3): the escape corpus under this policy, on
 * this kernel, against decoys it makes in a scratch directory of the
 * home (removed afterwards).  Two things are added to the policy for the
 * run, and said so: one loopback port the host side listens on (the
 * destination of the legitimate network twins), and execution of the
 * corpus's directory when the policy does not allow it.  The user's real
 * ~/.ssh keys are only opened and closed, never read.  Returns the exit
 * status: 0 when every escape outside the known limits is blocked.
 */
/* What a selftest found, over its passes. */
struct tally {
	int blocked, escaped, known, skipped, twins;
	int known_agent; /* known limits L3 or the supervisor closes: the
			  * layers the agent profiles use */
};

/* The corpus's result lines as the selftest reports them, counted. */
static void
selftest_tally(char **lines, const struct known_limits *limits,
	       const struct sandbox *sb, struct tally *t)
{
	const char *bname = explain_backend_name(sb->backend);

	for (char **l = lines; l != NULL && *l != NULL; l++) {
		char id[128] = "";
		const struct known_limit *e;

		if (sscanf(*l, "%*s %127s", id) != 1)
			continue;
		if (strncmp(*l, "BLOCKED ", 8) == 0) {
			printf("  blocked   %-24s %s\n", id, line_detail(*l));
			t->blocked++;
		} else if (strncmp(*l, "ESCAPED ", 8) == 0) {
			e = known_find(limits, id, bname);
			if (e && known_applies(e, bname, sandbox_l3_parts(sb),
					       sb->supervise)) {
				printf("  KNOWN     %-24s %s [known limit, "
				       "closed by %s]\n",
				       id, line_detail(*l), e->closed_by);
				t->known++;
				if (strncmp(e->closed_by, "L3", 2) == 0 ||
				    strcmp(e->closed_by, "S") == 0)
					t->known_agent++;
			} else {
				printf("  ESCAPED   %-24s %s\n", id,
				       line_detail(*l));
				t->escaped++;
			}
		} else if (strncmp(*l, "SKIPPED ", 8) == 0) {
			printf("  skipped   %-24s %s\n", id, line_detail(*l));
			t->skipped++;
		} else if (strncmp(*l, "TWIN-FAILED ", 12) == 0) {
			printf("  (twin)    %-24s the legitimate action beside "
			       "it failed: %s\n",
			       id, line_detail(*l));
			t->twins++;
		}
	}
}

/*
 * The probes of a project's repository (.git metadata, files run later)
 * in the decoy repository the host side made, under the policy the same
 * profiles and flags give a project there: the user's own project is
 * never touched.  Its own .llwrap.ini and [match] sections for its path
 * do not apply to the decoy; the header says so.
 */
static void
selftest_repo_pass(const char *repo, const char *name, char **cmd,
		   char **profiles, const struct flag *flags, size_t n_flags,
		   const struct flag *extra, size_t n_extra,
		   enum sandbox_backend backend, const char *corpus,
		   const struct selftest_host *host, char *const *kv,
		   const struct known_limits *limits, struct tally *t,
		   char ***made)
{
	struct policy *policy = resolve(repo, name, cmd, profiles, flags,
					n_flags, extra, n_extra);
	_cleanup_strv_ char **repo_kv = strv_copy(kv), **lines = NULL;
	_cleanup_free_ char *cause = NULL;
	struct sandbox *sb = NULL;

	printf("\nIn a decoy git repository, %s (the project's .git "
	       "metadata and files run later; your project is not touched; "
	       "its own .llwrap.ini does not apply there):\n\n",
	       repo);
	strv_push(&repo_kv, "REPO=only");
	strv_push_take(&repo_kv, xasprintf("GIT=%s/.git", repo));
	strv_push_take(&repo_kv, xasprintf("DOTFILES=%s", repo));
	/* The twins' scratch directory too: the real project is not
	 * writable under the decoy's policy. */
	strv_push_take(&repo_kv, xasprintf("WORK=%s", repo));
	if (sandbox_make_dirs(policy, made, &cause) < 0 ||
	    sandbox_prepare(policy, backend, &sb, &cause) < 0 ||
	    (sb->must_fail && (cause = xstrdup(sb->fail_cause)) != NULL) ||
	    selftest_run(sb, corpus, host, repo_kv, environ, &lines, &cause) <
		    0) {
		printf("  skipped   (all)                     %s\n", cause);
		t->skipped++;
	} else {
		selftest_tally(lines, limits, sb, t);
	}
	sandbox_free(sb);
	policy_free(policy);
}

/* [filesystem] copy, before a run (copyin.h): what could not be copied,
 * or replaced a copy changed inside, is said. */
static void
copy_in(const struct policy *policy)
{
	_cleanup_strv_ char **notes = NULL;

	copyin_run(policy, &notes);
	for (char **n = notes; n != NULL && *n != NULL && !quiet; n++)
		fprintf(stderr, "llwrap: %s.\n", *n);
}

/* The directories a selftest's policies made (the per-project state of
 * its project and decoy repository, sandbox_make_dirs), removed again,
 * deepest first; one the run left something in stays. */
static void
remove_made(char **made)
{
	for (size_t n = strv_length(made); n > 0; n--)
		(void)rmdir(made[n - 1]);
}

/* How many private keys (id_*, not .pub) the user's ~/.ssh holds, seen
 * from outside the sandbox: the corpus's real.ssh-open tells keys it
 * cannot even see (bubblewrap, a mask) from none at all. */
static unsigned
ssh_keys_on_host(const char *home)
{
	_cleanup_free_ char *dir = xasprintf("%s/.ssh", home);
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		n += strncmp(e->d_name, "id_", 3) == 0 &&
		     !(len > 4 && strcmp(e->d_name + len - 4, ".pub") == 0);
	}
	closedir(d);
	return n;
}

static int
run_selftest(struct policy *policy, enum sandbox_backend backend,
	     const char *project, const char *name, char **cmd, char **profiles,
	     const struct flag *flags, size_t n_flags)
{
	_cleanup_free_ char *cause = NULL, *corpus = NULL;
	_cleanup_free_ char *real_ssh = NULL;
	const char *repo;
	struct tally t = { 0 };
	_cleanup_strv_ char **lines = NULL, **extra_kv = NULL, **made = NULL;
	const char *home = getenv("HOME"), *port, *bname;
	struct selftest_host *host = NULL;
	struct known_limits *limits = known_builtin();
	struct sandbox *sb = NULL;
	struct flag extra[3];
	_cleanup_free_ char *cidr4 = NULL, *cidr6 = NULL, *added = NULL;
	bool exec_added = false;
	size_t n_extra = 0;
	int r;

	if (home == NULL || *home != '/')
		die(EXIT_LLWRAP, "--selftest needs HOME (its decoys live "
				 "there)");
	if ((corpus = selftest_find_corpus(&cause)) == NULL)
		die(EXIT_LLWRAP, "%s", cause);
	if (selftest_host_start(corpus, home, project, &host, &cause) < 0)
		die(EXIT_LLWRAP, "%s", cause);
	port = selftest_host_get(host, "TCP_OK");
	if (port != NULL && netpolicy_needs_supervisor(policy)) {
		/* The supervisor's port rules do not reach loopback: the
		 * twins' listener is named by address. */
		cidr4 = xasprintf("127.0.0.1/32:%s", port);
		cidr6 = xasprintf("::1/128:%s", port);
		extra[n_extra].opt = OPT_ALLOW_CIDR;
		extra[n_extra++].arg = cidr4;
		extra[n_extra].opt = OPT_ALLOW_CIDR;
		extra[n_extra++].arg = cidr6;
		added = xasprintf("allow-cidr %s %s", cidr4, cidr6);
	} else if (port != NULL) {
		extra[n_extra].opt = OPT_CONNECT_TCP;
		extra[n_extra++].arg = (char *)port;
		added = xasprintf("connect-tcp %s", port);
	}
	/* The corpus file alone, not its directory: in a build tree that
	 * directory holds the test suite's fake homes. */
	{
		enum llw_access a = policy_access_at(policy, corpus, NULL);

		if (a != LLW_ACCESS_RX && a != LLW_ACCESS_RWX) {
			extra[n_extra].opt =
				a == LLW_ACCESS_RW ? OPT_RWX : OPT_RX;
			extra[n_extra++].arg = corpus;
			exec_added = true;
		}
	}
	policy_free(policy);
	policy = resolve(project, name, cmd, profiles, flags, n_flags, extra,
			 n_extra);
	/* The corpus ran once per selftest: the exit status is decided by
	 * the escapes below. */
	if ((r = sandbox_make_dirs(policy, &made, &cause)) < 0 ||
	    (r = sandbox_prepare(policy, backend, &sb, &cause)) < 0) {
		remove_made(made);
		selftest_host_stop(host);
		die(EXIT_LLWRAP, "%s", cause);
	}
	if (sb->must_fail) {
		remove_made(made);
		selftest_host_stop(host);
		die(EXIT_LLWRAP, "%s", sb->fail_cause);
	}
	bname = explain_backend_name(sb->backend);

	repo = selftest_host_get(host, "DECOY_REPO");
	real_ssh = xasprintf("REAL_SSH=%s/.ssh", home);
	strv_push(&extra_kv, real_ssh);
	strv_push_take(&extra_kv,
		       xasprintf("REAL_SSH_KEYS=%u", ssh_keys_on_host(home)));
	/* The probes of a project's repository run in the decoy one, below:
	 * never in the user's own project. */
	if (repo != NULL)
		strv_push(&extra_kv, "REPO=skip");
	if (policy->config_files && policy->config_files[0])
		strv_push_take(&extra_kv,
			       xasprintf("CONFIG=%s", policy->config_files[0]));
	/* Decoy secrets in the environment, unless the user has real ones
	 * (the corpus reports names, never values). */
	setenv("AWS_SECRET_ACCESS_KEY", "llwrap-selftest-decoy", 0);
	setenv("GITHUB_TOKEN", "llwrap-selftest-decoy", 0);
	setenv("LLW_DECOY_TOKEN", "llwrap-selftest-decoy", 0);

	printf("llwrap selftest: the escape corpus (%s) under this policy, "
	       "backend %s, project %s\n",
	       corpus, bname, project);
	printf("added for the test only: %s (the twins' loopback listener)"
	       "%s%s\n\n",
	       added ? added : "-", exec_added ? ", execute " : "",
	       exec_added ? corpus : "");
	r = selftest_run(sb, corpus, host, extra_kv, environ, &lines, &cause);
	if (r < 0) {
		remove_made(made);
		selftest_host_stop(host);
		die(EXIT_LLWRAP, "%s", cause);
	}
	selftest_tally(lines, limits, sb, &t);
	if (repo != NULL)
		selftest_repo_pass(repo, name, cmd, profiles, flags, n_flags,
				   extra, n_extra, backend, corpus, host,
				   extra_kv, limits, &t, &made);
	remove_made(made);
	selftest_host_stop(host);
	printf("\n%d blocked, %d escaped, %d known limits, %d skipped; %d "
	       "legitimate twins failed%s\n",
	       t.blocked, t.escaped, t.known, t.skipped, t.twins,
	       t.twins ? " (your policy may forbid them on purpose)" : "");
	if (t.escaped)
		printf("NOT PROTECTED: %d escape(s) outside the known limits "
		       "work under this policy here.\n",
		       t.escaped);
	else if (t.known == 0)
		printf("Every probe is blocked.\n");
	else
		printf("%d known limit%s work%s under this policy (the KNOWN "
		       "lines above: what it leaves open); every other probe "
		       "is blocked.\n",
		       t.known, t.known == 1 ? "" : "s",
		       t.known == 1 ? "s" : "");
	if (!t.escaped && t.known_agent > 0)
		printf("%d of them close with L3 (user namespaces) or the "
		       "network supervisor, which -p opencode uses where this "
		       "kernel allows them.\n",
		       t.known_agent);
	known_free(limits);
	sandbox_free(sb);
	policy_free(policy);
	return t.escaped ? 1 : 0;
}

/* A path as the user wrote it, absolute: ~ is $HOME. */
static char *
why_path_arg(const char *s)
{
	const char *home = getenv("HOME");

	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0') && home != NULL &&
	    home[0] == '/')
		return xasprintf("%s%s", home, s + 1);
	return absolute_path(s);
}

/* The path's resolved form and whether it exists; NULL on error. */
static char *
why_resolve(const char *path, bool *exists, bool *is_dir)
{
	const struct pathtree_fs *fs = &pathtree_fs_real;
	char *out = NULL;
	int r;

	*exists = *is_dir = false;
	if (fs->resolve(fs->ctx, path, &out) < 0)
		return xstrdup(path);
	r = fs->stat(fs->ctx, out, is_dir);
	*exists = r == 1;
	return out;
}

/*
 * llwrap why WHAT [--read|--write|--exec|--connect|--udp|--bind] (and
 * --why WHAT ...): the decision of the prepared sandbox for one access,
 * from the pure core (why.c), without running anything.  Exit status 0
 * when allowed, 1 when denied, 2 when it depends on what a name resolves
 * to.
 */
static int
run_why(struct policy *policy, enum sandbox_backend backend, char *const *args)
{
	_cleanup_free_ char *cause = NULL, *path = NULL, *host = NULL;
	_cleanup_free_ char *text = NULL, *conf = NULL, *home = NULL;
	_cleanup_strv_ char **unix_paths = NULL;
	struct netpolicy_rules *rules = NULL;
	struct why_query q = { .access = WHY_READ };
	struct why_verdict v;
	struct sandbox *sb = NULL;
	const char *what = NULL;
	bool udp = false, bind = false, sock = false;
	int status;

	for (char *const *a = args; a != NULL && *a != NULL; a++) {
		if (strcmp(*a, "--read") == 0)
			q.access = WHY_READ;
		else if (strcmp(*a, "--write") == 0)
			q.access = WHY_WRITE;
		else if (strcmp(*a, "--exec") == 0)
			q.access = WHY_EXEC;
		else if (strcmp(*a, "--connect") == 0)
			sock = true;
		else if (strcmp(*a, "--udp") == 0)
			udp = true;
		else if (strcmp(*a, "--bind") == 0)
			bind = true;
		else if ((*a)[0] == '-' || what != NULL)
			die(EXIT_LLWRAP,
			    "why: unexpected '%s'; usage: llwrap [OPTIONS] "
			    "why PATH [--read|--write|--exec|--connect] or "
			    "why HOST:PORT [--udp] [--bind]",
			    *a);
		else
			what = *a;
	}
	if (what == NULL)
		die(EXIT_LLWRAP, "why: what access? llwrap why PATH, or why "
				 "HOST:PORT");

	if (what[0] == '@') {
		if (udp || bind || q.access != WHY_READ)
			die(EXIT_LLWRAP,
			    "why %s: an abstract socket takes no "
			    "flag but --connect",
			    what);
		q.access = WHY_CONNECT_ABSTRACT;
		q.path = what + 1;
	} else if (what[0] == '/' || what[0] == '~' || what[0] == '.' ||
		   why_parse_target(what, &q, &host) < 0) {
		_cleanup_free_ char *abs = why_path_arg(what);

		if (udp || bind)
			die(EXIT_LLWRAP,
			    "why %s: --udp and --bind are for "
			    "HOST:PORT",
			    what);
		path = why_resolve(abs, &q.exists, &q.is_dir);
		q.path = path;
		if (sock)
			q.access = WHY_CONNECT_UNIX;
	} else {
		if (sock)
			die(EXIT_LLWRAP,
			    "why %s: --connect is for unix socket "
			    "paths; HOST:PORT is a connect "
			    "already",
			    what);
		q.access = udp ? (bind ? WHY_BIND_UDP : WHY_SEND_UDP)
			       : (bind ? WHY_BIND_TCP : WHY_CONNECT_TCP);
	}

	if (sandbox_prepare(policy, backend, &sb, &cause) < 0)
		die(EXIT_LLWRAP, "%s", cause);
	if (sb->supervise) {
		_cleanup_close_ int fd =
			open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			(void)fd_read_all(fd, 1 << 16, &conf, NULL);
		size_t n;
		_cleanup_free_ struct netpolicy_addr *dns =
			netpolicy_resolvers(policy, conf, &n);

		rules = netpolicy_rules_new(policy, dns, n);
		if (sandbox_hosts_stub(sb))
			netpolicy_rules_use_stub(rules);
	}
	for (size_t i = 0; i < policy->unix_paths.n; i++) {
		bool e, d;
		char *r = why_resolve(policy->unix_paths.v[i].value, &e, &d);

		strv_push_take(&unix_paths, r);
	}
	if (host != NULL) {
		/* A name /etc/hosts gives resolves without DNS. */
		_cleanup_close_ int fd =
			open("/etc/hosts", O_RDONLY | O_CLOEXEC);
		_cleanup_free_ char *hosts = NULL;
		struct hostrule hr;
		struct hostdns_fixed fixed;

		if (fd >= 0 && fd_read_all(fd, 1 << 20, &hosts, NULL) == 0 &&
		    value_host(host, &hr, NULL) == 0) {
			q.host_in_hosts = hostdns_hosts_file(&hr, 1, hosts,
							     &fixed, 1) > 0;
			value_host_clear(&hr);
		}
	}
	if (getenv("HOME") != NULL && getenv("HOME")[0] == '/')
		home = realpath(getenv("HOME"), NULL);
	q.home = home ? home : getenv("HOME");
	why_decide(sb, rules, unix_paths, &q, &v);
	text = why_format(what, &v);
	fputs(text, stdout);
	status = v.depends ? 2 : v.allowed ? 0 : 1;
	why_verdict_clear(&v);
	netpolicy_rules_free(rules);
	sandbox_free(sb);
	policy_free(policy);
	return status;
}

/* The newest *.log in dir, as a NAME; NULL when there is none. */
static char *
newest_log(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *best = NULL;
	struct timespec t = { 0, 0 };

	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (n <= 4 || strcmp(e->d_name + n - 4, ".log") != 0)
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (best == NULL || st.st_mtim.tv_sec > t.tv_sec ||
		    (st.st_mtim.tv_sec == t.tv_sec &&
		     st.st_mtim.tv_nsec > t.tv_nsec)) {
			free(best);
			best = xstrndup(e->d_name, n - 4);
			t = st.st_mtim;
		}
	}
	closedir(d);
	return best;
}

/*
 * llwrap log [NAME] [--follow] [--all]: the blocked-attempt log of
 * instance NAME (default: the log written last), grouped and counted
 * (blocked.c); --follow then prints each new attempt as it is logged.
 */
static int
run_log(char *const *args)
{
	_cleanup_free_ char *path = NULL, *dir = NULL, *name = NULL;
	_cleanup_free_ char *text = NULL, *report = NULL;
	_cleanup_close_ int fd = -1;
	struct blocked_log log = { 0 };
	struct suggest_bounds bounds;
	bool follow = false, all = false;
	size_t len = 0;
	char *slash;

	for (char *const *a = args; *a != NULL; a++) {
		if (strcmp(*a, "--follow") == 0 || strcmp(*a, "-f") == 0)
			follow = true;
		else if (strcmp(*a, "--all") == 0)
			all = true;
		else if ((*a)[0] == '-' || name != NULL)
			die(EXIT_LLWRAP,
			    "log: unexpected '%s'; usage: llwrap "
			    "log [NAME] [--follow] [--all]",
			    *a);
		else
			name = xstrdup(*a);
	}
	path = netpolicy_log_path(name ? name : "x", environ);
	if (path == NULL)
		die(EXIT_LLWRAP, "log: neither XDG_STATE_HOME nor HOME is set, "
				 "so there is no log directory");
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (name == NULL) {
		name = newest_log(dir);
		if (name == NULL)
			die(1,
			    "log: no blocked-attempt log in %s (the "
			    "supervisor writes NAME.log there when a run "
			    "with supervisor rules blocks something)",
			    dir);
		free(path);
		path = netpolicy_log_path(name, environ);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && !(follow && errno == ENOENT))
		die(1, "log: %s: %s", path, strerror(errno));
	if (fd >= 0 && fd_read_all(fd, 1 << 28, &text, &len) < 0)
		die(1, "log: cannot read %s", path);
	blocked_add_text(&log, text ? text : "");
	{
		const char *h = getenv("HOME");
		_cleanup_free_ char *home =
			h != NULL && h[0] == '/' ? realpath(h, NULL) : NULL;

		suggest_bounds_init(&bounds, home ? home : h, NULL);
	}
	report = blocked_format(&log, name, all ? 0 : 20, &bounds);
	printf("%s (%s)\n", path, fd >= 0 ? "read" : "not there yet");
	fputs(report, stdout);
	blocked_log_clear(&log);
	if (!follow) {
		suggest_bounds_clear(&bounds);
		return 0;
	}
	printf("-- following %s (interrupt to stop) --\n", path);
	fflush(stdout);
	for (off_t off = (off_t)len;;) {
		_cleanup_free_ char *chunk = NULL;
		struct stat st;
		size_t n = 0;

		if (fd < 0)
			fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == off) {
			usleep(250000);
			continue;
		}
		if (st.st_size < off)
			off = 0; /* truncated: start again */
		if (lseek(fd, off, SEEK_SET) < 0 ||
		    fd_read_all(fd, 1 << 24, &chunk, &n) < 0)
			die(1, "log: cannot read %s", path);
		/* Whole lines only; a partial one waits. */
		while (n > 0 && chunk[n - 1] != '\n')
			n--;
		chunk[n] = '\0';
		off += (off_t)n;
		for (char *l = chunk, *e; *l != '\0'; l = e + 1) {
			struct blocked_record r;
			_cleanup_free_ char *out = NULL;

			e = strchr(l, '\n');
			*e = '\0';
			if (blocked_parse_line(l, &r) < 0)
				continue;
			out = blocked_format_record(&r, &bounds);
			blocked_record_clear(&r);
			printf("%s\n", out);
		}
		fflush(stdout);
	}
}

/*
 * The footer (DESIGN.md §12): once the command is gone, whatever its
 * status, one line on stderr about what the supervisor blocked during
 * the run, read from what it appended to the log since offset off.
 * Never over a TUI: on a terminal that another process group holds in
 * the foreground (llwrap ran as a background job, and the user is in an
 * editor), nothing is printed; the log keeps it.
 */
static void
print_footer(const char *path, off_t off, const char *name)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	_cleanup_free_ char *text = NULL, *line = NULL;
	struct blocked_log log = { 0 };
	pid_t fg;

	if (isatty(STDERR_FILENO) && (fg = tcgetpgrp(STDERR_FILENO)) > 0 &&
	    fg != getpgrp())
		return;
	if (fd < 0 || lseek(fd, off, SEEK_SET) < 0 ||
	    fd_read_all(fd, 1 << 24, &text, NULL) < 0)
		return;
	blocked_add_text(&log, text);
	line = blocked_footer(&log, name);
	blocked_log_clear(&log);
	if (line != NULL)
		fprintf(stderr, "%s\n", line);
}

static int
line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The directory for --learn fragments, llwrap/learned beside the
 * blocked-attempt log (under $XDG_STATE_HOME), made and opened before
 * the run: afterwards this process may be in the sandbox's read-only
 * view, where the descriptor still reaches the real directory.  An fd
 * with *dir its path, or -errno with *cause set.
 */
static int
learn_dir_open(const char *name, char **dir, char **cause)
{
	_cleanup_free_ char *log = netpolicy_log_path(name, environ);
	char *slash;
	int r, fd;

	if (log == NULL) {
		*cause = xstrdup("neither XDG_STATE_HOME nor HOME is set");
		return -ENOENT;
	}
	slash = strrchr(log, '/');
	*slash = '\0';
	*dir = xasprintf("%s/learned", log);
	if ((r = dir_make_path(*dir, 0700)) < 0) {
		*cause = xasprintf("cannot create %s: %s", *dir, strerror(-r));
		return r;
	}
	fd = open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		*cause = xasprintf("cannot open %s: %s", *dir, strerror(-r));
		return r;
	}
	return fd;
}

/*
 * Save a fragment in dfd (the directory dir) as NAME-learned.ini, never
 * over an earlier one (NAME-learned-2.ini, ...).  The path, or NULL with
 * *cause set.
 */
static char *
learn_save(int dfd, const char *dir, const char *frag, const char *name,
	   char **cause)
{
	size_t len = strlen(frag);

	for (int i = 1; i < 1000; i++) {
		_cleanup_free_ char *file =
			i == 1 ? xasprintf("%s-learned.ini", name)
			       : xasprintf("%s-learned-%d.ini", name, i);
		_cleanup_close_ int fd = openat(dfd, file,
						O_WRONLY | O_CREAT | O_EXCL |
							O_CLOEXEC | O_NOFOLLOW,
						0600);

		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0 || write(fd, frag, len) != (ssize_t)len) {
			*cause = xasprintf("cannot write %s/%s: %s", dir, file,
					   strerror(errno));
			return NULL;
		}
		return xasprintf("%s/%s", dir, file);
	}
	*cause = xasprintf("%s holds 999 fragments for %s already", dir, name);
	return NULL;
}

/* The entry of list that path is under, or NULL. */
static const char *
under_list(const char *path, char *const *list)
{
	for (char *const *l = list; l != NULL && *l != NULL; l++)
		if (path_under(path, *l))
			return *l;
	return NULL;
}

/* Whether the sorted observation lines hold "w PATH". */
static bool
written(char **lines, size_t n, const char *path)
{
	_cleanup_free_ char *w = xasprintf("w %s", path);

	return bsearch(&w, lines, n, sizeof(*lines), line_cmp) != NULL;
}

/*
 * The shallowest directory strictly under the project, on the way to
 * path (or path itself), that the run made (a "w" line: the learning run
 * writes only in the project), or NULL.  A grant must go above it: it
 * is not there when the next run starts.
 */
static char *
made_root(char **lines, size_t n, const char *path, const char *project)
{
	size_t plen = project != NULL ? strlen(project) : 0;

	if (project == NULL || !path_under(path, project) ||
	    strcmp(path, project) == 0)
		return NULL;
	for (const char *s = path + plen + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			_cleanup_free_ char *p = xstrndup(path, s - path);

			if (written(lines, n, p))
				return steal_pointer(&p);
		}
		if (*s == '\0')
			return NULL;
	}
}

/*
 * A grant's access with what the target policy already allows at its
 * path: the grant is a rule on that path, which replaces the policy's
 * there (a needed execute on a tree the policy lets write is rwx, not
 * rx, or the next build could not write).
 */
static enum llw_access
learn_keep(struct sandbox *target, const struct learn_grant *g)
{
	bool w = policy_access_writable(g->access);
	bool x = g->access == LLW_ACCESS_RX || g->access == LLW_ACCESS_RWX;
	struct stat sb;
	bool exists = stat(g->path, &sb) == 0;
	struct why_query q = { .path = g->path,
			       .exists = exists,
			       .is_dir = exists && S_ISDIR(sb.st_mode) };
	struct why_verdict v;

	q.access = WHY_WRITE;
	why_decide(target, NULL, NULL, &q, &v);
	w = w || v.allowed;
	why_verdict_clear(&v);
	q.access = WHY_EXEC;
	why_decide(target, NULL, NULL, &q, &v);
	x = x || v.allowed;
	why_verdict_clear(&v);
	return w ? (x ? LLW_ACCESS_RWX : LLW_ACCESS_RW)
		 : (x ? LLW_ACCESS_RX : LLW_ACCESS_RO);
}

/*
 * --learn (DESIGN.md §12): run the command in a learning sandbox, the
 * policy plus reading everywhere but the secrets of §11 and writing and
 * executing in the project, with the supervisor recording every open,
 * exec and mkdir; then decide
 * each observed access under the policy itself (why.c) and propose
 * grants for those it denies (learn.c), with the [network] lines for
 * what the supervisor blocked.  The fragment goes to stdout.  Returns
 * the command's exit status.
 */
static int
run_learn(struct policy *target, enum sandbox_backend backend,
	  const char *project, const char *name, char **cmd, char **profiles,
	  const struct flag *flags, size_t n_flags)
{
	_cleanup_free_ char *cause = NULL, *text = NULL, *log_path = NULL;
	_cleanup_free_ char *logged = NULL, *frag = NULL, *base = NULL;
	_cleanup_free_ char *own_cache = NULL;
	_cleanup_free_ char *saved = NULL, *ldir = NULL, *ldir_cause = NULL;
	_cleanup_close_ int ldir_fd = -1;
	_cleanup_free_ struct flag *extra = NULL;
	_cleanup_free_ struct learn_access *acc = NULL;
	_cleanup_strv_ char **secrets = NULL, **lines = NULL, **net = NULL;
	_cleanup_strv_ char **tools = NULL, **tool_hit = NULL;
	_cleanup_close_ int mfd = -1;
	const char *home = getenv("HOME");
	struct sandbox *st = NULL, *sl = NULL;
	struct policy *lp;
	struct learn_grant *g;
	struct blocked_log log = { 0 };
	struct suggest_bounds bounds;
	size_t n_extra = 0, n_acc = 0, n_g = 0, n_lines;
	unsigned long dropped = 0, denied_n = 0;
	off_t log_off = 0;
	int r, status;

	secrets = suggest_secrets(home);
	tools = learn_tool_dirs(home);
	/* The caches llwrap's profiles give the sandbox are not the
	 * user's. */
	own_cache = xasprintf("%s/.cache/llwrap", home ? home : "");
	extra = xcalloc(strv_length(secrets) + 6, sizeof(*extra));
	/* Read, not execute: "rx /" beside the policy's rw trees (no x)
	 * would be punched open, entry by entry (DESIGN.md §5), down to
	 * /dev's descriptor links.  An exec the policy refuses fails, and
	 * is recorded. */
	extra[n_extra].opt = OPT_RO;
	extra[n_extra++].arg = (char *)"/";
	/* Writes stay as the policy says, but for the devices that
	 * swallow or give bytes: tools stop at a failed >/dev/null. */
	extra[n_extra].opt = OPT_RW;
	extra[n_extra++].arg = (char *)"/dev/null";
	extra[n_extra].opt = OPT_RW;
	extra[n_extra++].arg = (char *)"/dev/zero";
	extra[n_extra].opt = OPT_RW;
	extra[n_extra++].arg = (char *)"/dev/full";
	/* Writes stay inside the project, where the work is: a build that
	 * could not write its first file would teach nothing past it.
	 * The project is rwx, as every writable tree (DESIGN.md §10). */
	extra[n_extra].opt = OPT_RWX;
	extra[n_extra++].arg = (char *)project;
	for (char **s = secrets; s != NULL && *s != NULL; s++) {
		extra[n_extra].opt = OPT_DENY;
		extra[n_extra++].arg = *s;
	}
	extra[n_extra].opt = OPT_LEARN;
	extra[n_extra++].arg = NULL;
	lp = resolve(project, name, cmd, profiles, flags, n_flags, extra,
		     n_extra);
	if ((r = sandbox_make_dirs(lp, NULL, &cause)) < 0 ||
	    (r = sandbox_prepare(lp, backend, &sl, &cause)) < 0)
		die(EXIT_LLWRAP, "%s", cause);
	copy_in(lp);
	if (sl->must_fail)
		die(EXIT_LLWRAP, "--learn: %s", sl->fail_cause);
	if (!sl->supervise)
		die(EXIT_LLWRAP, "--learn needs the network supervisor, which "
				 "observes the command; it cannot run here "
				 "(see llwrap --check)");
	mfd = memfd_create("llwrap-learn", MFD_CLOEXEC);
	if (mfd < 0)
		die(EXIT_LLWRAP, "--learn: memfd_create: %s", strerror(errno));
	sl->learn = true;
	sl->learn_fd = mfd;
	if (lp->log_blocked) {
		struct stat sb;

		log_path = netpolicy_log_path(lp->name, environ);
		if (log_path != NULL && stat(log_path, &sb) == 0)
			log_off = sb.st_size;
	}
	ldir_fd = learn_dir_open(name, &ldir, &ldir_cause);
	fprintf(stderr,
		"llwrap: learning: %s runs with read everywhere but "
		"the secrets, write and execute in the project, the "
		"rest as the policy says\n",
		cmd[0]);
	r = sandbox_exec(sl, cmd, environ, NULL, 0, &status, &cause);
	if (r != 0)
		die(status, "%s", cause);
	if (getpid() == 1) {
		/* pid 1 of the sandbox's pid namespace: nothing to say. */
		fflush(NULL);
		_exit(status);
	}
	if (status == EXIT_LLWRAP)
		fprintf(stderr, "llwrap: the learning run ended with status "
				"125: if llwrap refused it (see above), "
				"nothing ran to learn from\n");

	/* What was observed, each access once. */
	if (lseek(mfd, 0, SEEK_SET) < 0 ||
	    fd_read_all(mfd, 1 << 28, &text, NULL) < 0)
		die(EXIT_LLWRAP, "--learn: cannot read the observations");
	{
		_cleanup_strv_ char **pairs = NULL;
		size_t n = 0;

		/* "r PATH" lines, sorted so repeats are neighbours. */
		for (char *l = text, *e; l != NULL && *l != '\0'; l = e) {
			e = strchr(l, '\n');
			if (e != NULL)
				*e++ = '\0';
			if (strlen(l) > 2)
				strv_push(&pairs, l);
		}
		n = strv_length(pairs);
		if (n > 1)
			qsort(pairs, n, sizeof(char *), line_cmp);
		lines = steal_pointer(&pairs);
		n_lines = n;
	}
	if ((r = sandbox_prepare(target, backend, &st, &cause)) < 0)
		die(EXIT_LLWRAP, "%s", cause);
	acc = xcalloc(n_lines + 1, sizeof(*acc));
	for (size_t i = 0; i < n_lines; i++) {
		struct why_query q = { .access = WHY_READ };
		struct why_verdict v;
		char kind = lines[i][0];
		_cleanup_free_ char *path = NULL;
		const char *tool;
		char *root;
		bool made;

		if (i > 0 && strcmp(lines[i], lines[i - 1]) == 0)
			continue;
		path = why_resolve(lines[i] + 2, &q.exists, &q.is_dir);
		/* A program the run wrote and ran (configure's conftest,
		 * the project's build): its directory must be writable and
		 * executable, as every writable tree (DESIGN.md §10); a
		 * grant on the file alone would outlive the next build. */
		made = kind == 'x' && written(lines, n_lines, lines[i] + 2);
		/* A read or exec of what does not exist fails anyway. */
		if (!q.exists && kind != 'w' && !made)
			continue;
		/* A mkdir of a directory that is there: made by the run in
		 * the project (the learning run could write nowhere else),
		 * which needs its parent writable; elsewhere it was there
		 * before (mkdir -p), and nothing was needed. */
		if (kind == 'w' && q.exists && q.is_dir) {
			char *slash = strrchr(path, '/');

			if (target->project == NULL ||
			    !path_under(path, target->project) ||
			    strcmp(path, target->project) == 0 || slash == path)
				continue;
			*slash = '\0';
		}
		q.access = kind == 'w'	 ? WHY_WRITE
			   : kind == 'x' ? WHY_EXEC
					 : WHY_READ;
		q.path = path;
		why_decide(st, NULL, NULL, &q, &v);
		if (!v.allowed && kind == 'w' &&
		    (tool = under_list(path, tools)) != NULL &&
		    !path_under(path, own_cache)) {
			if (!strv_contains(tool_hit, tool))
				strv_push(&tool_hit, tool);
			denied_n++;
		} else if (!v.allowed) {
			acc[n_acc].path = steal_pointer(&path);
			acc[n_acc].need = made		? LLW_ACCESS_RWX
					  : kind == 'w' ? LLW_ACCESS_RW
					  : kind == 'x' ? LLW_ACCESS_RX
							: LLW_ACCESS_RO;
			acc[n_acc].is_dir = q.is_dir;
			/* learn_propose() grants a new file's directory. */
			acc[n_acc].exists = q.exists && !made;
			if ((root = made_root(lines, n_lines, acc[n_acc].path,
					      target->project)) != NULL) {
				free(acc[n_acc].path);
				acc[n_acc].path = root;
				acc[n_acc].exists = false;
			}
			{
				struct stat sb;

				acc[n_acc].alone =
					stat(acc[n_acc].path, &sb) == 0 &&
					!S_ISREG(sb.st_mode) &&
					!S_ISDIR(sb.st_mode);
			}
			n_acc++;
			denied_n++;
		}
		why_verdict_clear(&v);
	}
	{
		_cleanup_free_ char *home_real =
			home != NULL ? realpath(home, NULL) : NULL;

		suggest_bounds_init(&bounds, home_real ? home_real : home,
				    target);
	}
	g = learn_propose(acc, n_acc, &bounds, &n_g, &dropped);
	for (size_t i = 0; i < n_acc; i++)
		free(acc[i].path);
	for (size_t i = 0; i < n_g; i++)
		g[i].access = learn_keep(st, &g[i]);

	/* The network: what the supervisor blocked during the run. */
	if (log_path != NULL) {
		_cleanup_close_ int lfd =
			open(log_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

		if (lfd >= 0 && lseek(lfd, log_off, SEEK_SET) >= 0 &&
		    fd_read_all(lfd, 1 << 24, &logged, NULL) == 0)
			blocked_add_text(&log, logged);
		for (size_t i = 0; i < log.n; i++) {
			char *l;

			if (log.v[i].harmless != NULL)
				continue;
			l = blocked_rule_line(log.v[i].op, log.v[i].proto,
					      log.v[i].target, log.v[i].rule,
					      &bounds);
			if (l != NULL && !strv_contains(net, l))
				strv_push(&net, l);
			free(l);
		}
		blocked_log_clear(&log);
	}
	{
		_cleanup_free_ char *copy = xstrdup(cmd[0]);

		base = xstrdup(basename(copy));
	}
	frag = learn_fragment(g, n_g, net, base, target->project,
			      target->run_profile, name);
	saved = ldir_fd >= 0 ? learn_save(ldir_fd, ldir, frag, name, &cause)
			     : NULL;
	fprintf(stderr,
		"llwrap: learned: %zu accesses observed, %lu denied by the "
		"policy, %zu grants proposed, %lu not proposed (secrets, "
		"denied paths, home or /)%s\n\n%s\n",
		n_lines, denied_n, n_g, dropped,
		strv_length(net) ? "; network lines from the blocked attempts"
				 : "",
		frag);
	for (char **t = tool_hit; t != NULL && *t != NULL; t++)
		fprintf(stderr,
			"llwrap: writes in %s are not proposed: it is your "
			"own tool cache or program directory, which runs "
			"outside the sandbox later; give the tool a cache of "
			"the sandbox's own ([environment] set = "
			"XDG_CACHE_HOME=..., CARGO_HOME=..., "
			"npm_config_cache=..., GOPATH=..., as in the opencode "
			"profile) and grant that\n",
			*t);
	if (saved != NULL)
		fprintf(stderr, "llwrap: the fragment is saved as %s\n", saved);
	else
		fprintf(stderr, "llwrap: the fragment is not saved: %s\n",
			ldir_fd < 0 ? ldir_cause : cause);
	learn_grants_free(g, n_g);
	suggest_bounds_clear(&bounds);
	sandbox_free(st);
	sandbox_free(sl);
	policy_free(lp);
	policy_free(target);
	fflush(NULL);
	return status;
}

int
main(int argc, char **argv)
{
	_cleanup_strv_ char **profiles = NULL;
	_cleanup_free_ char *project = NULL, *name = NULL, *cause = NULL;
	_cleanup_free_ int *keep = NULL;
	_cleanup_free_ struct flag *flags = NULL;
	enum sandbox_backend backend = SANDBOX_BACKEND_AUTO;
	bool explain = false, check = false, verbose = false;
	bool selftest = false, allow_broad = false, learn = false;
	char **why_args = NULL;
	_cleanup_free_ char *footer_log = NULL;
	off_t footer_off = 0;
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ char *shortopts = NULL;
	const char *why_what = NULL;
	size_t n_keep = 0, n_flags = 0;
	char *default_argv[2] = { NULL, NULL };
	char **cmd;
	struct policy *policy = NULL;
	struct sandbox *sb = NULL;
	int c, r, status;

	options = options_long();
	shortopts = options_short();
	while ((c = getopt_long(argc, argv, shortopts, options, NULL)) != -1) {
		switch (c) {
		case 'p':
			strv_push_take(&profiles,
				       strchr(optarg, '/')
					       ? absolute_path(optarg)
					       : xstrdup(optarg));
			break;
		case 'C':
			free(project);
			project = xstrdup(optarg);
			break;
		case 'n':
			free(name);
			name = xstrdup(optarg);
			break;
		case OPT_KEEP_FD:
			keep = xreallocarray(keep, n_keep + 1, sizeof(int));
			keep[n_keep++] = parse_fd(optarg);
			break;
		case OPT_BACKEND:
			backend = parse_backend(optarg);
			break;
		case OPT_EXPLAIN:
			explain = true;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_SELFTEST:
			selftest = true;
			break;
		case OPT_LEARN:
			learn = true;
			break;
		case OPT_ALLOW_BROAD_PROJECT:
			allow_broad = true;
			break;
		case OPT_WHY:
			/* What follows is why's own: --exec, --connect, ... */
			why_what = optarg;
			why_args = argv + optind;
			goto options_done;
		case 'v':
			verbose = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'V':
			printf("llwrap %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case '?':
			fprintf(stderr, "Try 'llwrap --help'.\n");
			return EXIT_LLWRAP;
		default:
			/* Rules are applied after -C is known, since
			 * ${PROJECT} may appear in them. */
			flags = xreallocarray(flags, n_flags + 1,
					      sizeof(*flags));
			flags[n_flags].opt = c;
			flags[n_flags++].arg = optarg;
			break;
		}
	}

options_done:
	if (check)
		return explain_check(stdout) == 0 ? 0 : 1;

	cmd = argv + optind;
	/* "log" as the first word, not after "--": the log reader, which
	 * needs no policy. */
	if (why_what == NULL && *cmd != NULL && strcmp(*cmd, "log") == 0 &&
	    strcmp(argv[optind - 1], "--") != 0)
		return run_log(cmd + 1);
	/* "why" as the first word, not after "--", is the subcommand;
	 * "llwrap why PATH -- CMD" resolves the policy CMD would get. */
	if (why_what == NULL && *cmd != NULL && strcmp(*cmd, "why") == 0 &&
	    strcmp(argv[optind - 1], "--") != 0)
		why_args = cmd + 1;
	if (why_args != NULL) {
		char **a = why_args;

		while (*a != NULL && strcmp(*a, "--") != 0)
			a++;
		cmd = a;
		if (*a != NULL) {
			*a = NULL;
			cmd = a + 1;
		}
	}
	if (*cmd == NULL) {
		const char *shell = getenv("SHELL");

		default_argv[0] = (char *)(shell && *shell ? shell : "/bin/sh");
		cmd = default_argv;
	}

	{
		char *dir = project ? project : ".";
		char *real = realpath(dir, NULL);
		char *top;

		if (real == NULL)
			die(EXIT_LLWRAP, "project directory %s: %s", dir,
			    strerror(errno));
		/* Started in a subdirectory of a repository, the project is
		 * its work tree, where git works; -C says otherwise. */
		top = project == NULL ? git_toplevel(real) : NULL;
		check_project(dir, project == NULL, real, top, allow_broad);
		free(project);
		if (top != NULL) {
			run_workdir = real;
			run_project_why = xasprintf(
				"the top level of the git work tree that holds "
				"the working directory %s, where the command "
				"starts (-C names another project)",
				real);
			project = top;
		} else {
			project = real;
		}
		run_project = project;
	}
	if (name == NULL) {
		_cleanup_free_ char *copy = xstrdup(cmd[0]);

		name = xstrdup(basename(copy));
	}

	policy = resolve(project, name, cmd, profiles, flags, n_flags, NULL, 0);

	if (why_args != NULL) {
		_cleanup_strv_ char **all = NULL;

		if (why_what != NULL)
			strv_push(&all, why_what);
		for (char **a = why_args; *a != NULL; a++)
			strv_push(&all, *a);
		return run_why(policy, backend, all);
	}

	if (learn)
		return run_learn(policy, backend, project, name, cmd, profiles,
				 flags, n_flags);
	if (selftest) {
		/* It frees the policy: it resolves its own. */
		return run_selftest(policy, backend, project, name, cmd,
				    profiles, flags, n_flags);
	}

	if (!explain) {
		bool x = false;

		/* No rule lets anything execute: the command cannot start,
		 * whatever it is.  The usual cause is a profile that
		 * includes no base profile. */
		for (size_t i = 0; i < policy->n_paths && !x; i++)
			x = policy_access_executable(policy->paths[i].access);
		if (!x) {
			_cleanup_free_ char *given =
				profiles && *profiles
					? strv_join(profiles, ", ")
					: xstrdup("default");

			die(EXIT_LLWRAP,
			    "the policy lets nothing execute (no rx or rwx "
			    "rule), so %s cannot start: the profiles given "
			    "(%s) include no base profile; add 'include = "
			    "default' under [profile] (or 'include = empty' "
			    "for programs and libraries alone)",
			    cmd[0], given);
		}
	}
	if (!explain && (r = sandbox_make_dirs(policy, NULL, &cause)) < 0)
		die(EXIT_LLWRAP, "%s", cause);
	if (!explain)
		copy_in(policy);
	r = explain ? sandbox_prepare(policy, backend, &sb, &cause)
		    : sandbox_prepare_run(policy, backend, &sb, &cause);
	if (r < 0)
		die(EXIT_LLWRAP, "%s", cause);

	if (explain) {
		explain_sandbox(stdout, sb);
		sandbox_free(sb);
		policy_free(policy);
		return 0;
	}
	if (sb->must_fail)
		die(EXIT_LLWRAP, "%s", sb->fail_cause);
	if (!quiet) {
		if (getuid() == 0 || geteuid() == 0)
			fprintf(stderr,
				"llwrap: %s runs as root; root's secrets "
				"(/etc/shadow, sudoers, SSH host keys) are "
				"denied, the rest of the policy is as "
				"configured.\n",
				cmd[0]);
		/* A mistyped path is the common case: say so once. */
		for (char **n = sb->fs->missing; n != NULL && *n != NULL; n++) {
			_cleanup_free_ char *shown = text_shown(*n);

			fprintf(stderr, "llwrap: %s.\n", shown);
		}
		for (char **n = sb->not_enforced; n != NULL && *n != NULL;
		     n++) {
			_cleanup_free_ char *shown = text_shown(*n);

			fprintf(stderr, "llwrap: NOT ENFORCED: %s\n", shown);
		}
		/* Without the supervisor nothing can say so when it
		 * happens: what the network refuses, and the flag that
		 * opens it, before the command starts; that it is closed
		 * at all, to a person at a terminal (a script that
		 * captures stderr gets no line it did not ask for). */
		_cleanup_strv_ char **net = netpolicy_notes(
			policy, sb->supervise, isatty(STDERR_FILENO));

		for (char **n = net; n != NULL && *n != NULL; n++)
			fprintf(stderr, "llwrap: note: %s\n", *n);
	}
	if (verbose)
		fprintf(stderr, "llwrap: running %s in %s%s%s\n", cmd[0],
			policy->workdir ? policy->workdir : policy->project,
			policy->workdir ? ", project " : "",
			policy->workdir ? policy->project : "");

	/* Where the blocked-attempt log stands before the run, for the
	 * footer after it. */
	if (sb->supervise && policy->log_blocked && !quiet) {
		struct stat st;

		footer_log = netpolicy_log_path(policy->name, environ);
		if (footer_log != NULL && stat(footer_log, &st) == 0)
			footer_off = st.st_size;
	}
	r = sandbox_exec(sb, cmd, environ, keep, n_keep, &status, &cause);
	if (r == 0) {
		/* The outer monitor (never pid 1 of the sandbox's pid
		 * namespace), once the command is gone: what was blocked,
		 * after a success too (an interactive session's last
		 * command says nothing of the blocks before it). */
		if (footer_log != NULL && sb->reporter)
			print_footer(footer_log, footer_off, policy->name);
		if (sb->reporter) {
			/* DESIGN.md §11: a command stopped by a limit is
			 * named with that limit, not left as a bare
			 * signal (only a monitor sees it). */
			_cleanup_strv_ char **lines =
				resources_report(policy, &sb->limits, status);

			for (char **l = lines; l != NULL && *l != NULL; l++)
				fprintf(stderr, "%s\n", *l);
			status = sandbox_after(sb, status);
		}
		/*
		 * A monitor or pid 1, after the command ended.  It leaves with
		 * _exit, as a forked helper does: no exit handler runs in a
		 * process whose pid namespace for children may be gone (a
		 * leak checker that forks there would fail).  Nothing is
		 * freed first: the exit frees it all, and the caller of
		 * llwrap waits for pid 1 and the monitor in turn (freeing
		 * cost each about 50 us).
		 */
		fflush(NULL);
		_exit(status);
	}
	die(status, "%s", cause);
}
