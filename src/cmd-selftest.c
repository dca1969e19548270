/*
 * --selftest (DESIGN.md §3): the escape corpus under this policy, on
 * this kernel, against decoys it makes in a scratch directory of the
 * home (removed afterwards).  Two things are added to the policy for the
 * run, and said so: one loopback port the host side listens on (the
 * destination of the legitimate network twins), and execution of the
 * corpus's directory when the policy does not allow it.  The user's real
 * ~/.ssh keys are only opened and closed, never read.  The corpus runs
 * in selftest.c; each result is tallied here against the known limits
 * (known.c) and printed.  The exit status is 0 when every escape outside
 * the known limits is blocked.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"
#include "explain.h"
#include "known.h"
#include "netpolicy.h"
#include "options.h"
#include "sandbox.h"
#include "selftest.h"
#include "strv.h"
#include "xalloc.h"

/* The first word of a corpus line and the rest after the id. */
static const char *
line_detail(const char *line)
{
	const char *s = strchr(line, ' ');

	s = s ? strchr(s + 1, ' ') : NULL;
	return s ? s + 1 : "";
}

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
selftest_repo_pass(const struct cmd_ctx *ctx, const char *repo,
		   const struct cmd_flag *extra, size_t n_extra,
		   const char *corpus, const struct selftest_host *host,
		   char *const *kv, const struct known_limits *limits,
		   struct tally *t, char ***made)
{
	struct policy *policy = cmd_resolve(ctx, repo, extra, n_extra);
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
	    sandbox_prepare(policy, ctx->backend, &sb, &cause) < 0 ||
	    (sb->must_fail && (cause = xstrdup(sb->fail_cause)) != NULL) ||
	    selftest_run(sb, corpus, host, repo_kv, environ, &lines, &cause) <
		    0) {
		printf("  skipped   (all)                     %s\n", cause);
		t->skipped++;
	} else {
		selftest_tally(lines, limits, sb, t);
	}
	sandbox_free(sb);
	cmd_policy_free(policy);
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
cmd_selftest_exec(struct cmd_ctx *ctx, struct policy *policy)
{
	_cleanup_free_ char *cause = NULL, *corpus = NULL;
	_cleanup_free_ char *real_ssh = NULL;
	const char *repo;
	struct tally t = { 0 };
	_cleanup_strv_ char **lines = NULL, **extra_kv = NULL, **made = NULL;
	const char *home = getenv("HOME"), *port, *bname;
	const char *project = ctx->project;
	struct selftest_host *host = NULL;
	struct known_limits *limits = known_builtin();
	struct sandbox *sb = NULL;
	struct cmd_flag extra[3];
	_cleanup_free_ char *cidr4 = NULL, *cidr6 = NULL, *added = NULL;
	bool exec_added = false;
	size_t n_extra = 0;
	int r;

	if (home == NULL || *home != '/')
		cmd_fatal(EXIT_LLWRAP, "--selftest needs HOME (its decoys live "
				       "there)");
	if ((corpus = selftest_find_corpus(&cause)) == NULL)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	if (selftest_host_start(corpus, home, project, &host, &cause) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
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
		/* The configured rule that holds it, at its resolved path
		 * (the sandbox is not compiled yet). */
		struct plan *src = planner_sources(policy);
		bool exists, is_dir;
		_cleanup_free_ char *real =
			cmd_resolve_path(corpus, &exists, &is_dir);
		const struct plan_source *held = plan_source_at(src, real);
		enum llw_access a = held ? held->access : LLW_ACCESS_DENY;

		plan_free(src);

		if (a != LLW_ACCESS_RX && a != LLW_ACCESS_RWX) {
			extra[n_extra].opt =
				a == LLW_ACCESS_RW ? OPT_RWX : OPT_RX;
			extra[n_extra++].arg = corpus;
			exec_added = true;
		}
	}
	cmd_policy_free(policy);
	policy = cmd_resolve(ctx, project, extra, n_extra);
	/* The corpus ran once per selftest: the exit status is decided by
	 * the escapes below. */
	if ((r = sandbox_make_dirs(policy, &made, &cause)) < 0 ||
	    (r = sandbox_prepare(policy, ctx->backend, &sb, &cause)) < 0) {
		remove_made(made);
		selftest_host_stop(host);
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	}
	if (sb->must_fail) {
		remove_made(made);
		selftest_host_stop(host);
		cmd_fatal(EXIT_LLWRAP, "%s", sb->fail_cause);
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
	if (sb->conf.config_files && sb->conf.config_files[0])
		strv_push_take(&extra_kv, xasprintf("CONFIG=%s",
						    sb->conf.config_files[0]));
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
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	}
	selftest_tally(lines, limits, sb, &t);
	if (repo != NULL)
		selftest_repo_pass(ctx, repo, extra, n_extra, corpus, host,
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
	cmd_policy_free(policy);
	return t.escaped ? 1 : 0;
}

const struct cmd_entry cmd_selftest_entry = {
	.name = "selftest",
	.usage = "--selftest [--] [COMMAND]",
	.how = CMD_POLICY,
	.exec = cmd_selftest_exec,
};
