/*
 * The sandbox as a whole: turn a resolved policy into a prepared plan for
 * every layer (sandbox_prepare, which only reads), report it
 * (explain.c), and apply it to the calling process before exec
 * (sandbox_exec).  DESIGN.md §2 fixes the order of the steps.
 */
#ifndef LLW_SANDBOX_H
#define LLW_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "bwrap.h"
#include "filter.h"
#include "gitguard.h"
#include "layers.h"
#include "ns.h"
#include "pathtree.h"
#include "policy.h"
#include "resources.h"
#include "ruleset.h"

struct watchlater;

enum sandbox_backend {
	SANDBOX_BACKEND_AUTO,
	SANDBOX_BACKEND_LANDLOCK,
	SANDBOX_BACKEND_BWRAP,
};

struct sandbox {
	const struct policy *policy;  /* borrowed */
	enum sandbox_backend backend; /* the one that will run */
	struct ruleset_kernel kernel;
	struct plan *fs;	       /* compiled paths */
	struct ruleset_plan *landlock; /* L1 */
	/* Root under L3: the rule paths opened before the user namespace,
	 * where its capabilities no longer reach other users' files
	 * (ruleset_hold()); NULL otherwise. */
	int *held;
	struct filter_opts filter; /* L2 */
	bool supervise;		   /* S: the network supervisor */
	bool use_ns;		   /* L3 */
	struct ns_opts ns;
	char *ns_needed;	       /* why the policy needs L3, or NULL */
	char *ns_refused;	       /* why L3 cannot run here, or NULL */
	char *backend_why;	       /* why this backend, for --explain */
	struct bwrap_binary bwrap_bin; /* F: the bwrap found */
	struct bwrap_plan *bwrap;      /* F, when backend is BWRAP */
	struct gitguard *git;	       /* protect-git's entries, or NULL */
	struct gitguard *later;	       /* protect-later-run's, or NULL */
	struct watchlater *watch;      /* the monitor's watch on them */
	char **unhidden;   /* deny rules on files git tracks unchanged,
			    * read-only for this run: their origins */
	char **git_limits; /* what protect-git and protect-later-run cannot
			    * protect here, for --explain */
	/* Layer substitution (layers.h): for each restriction the policy
	 * asks for (asked), the layer that enforces it, LAYER_NONE for
	 * none.  The facts are probed only when Landlock falls short. */
	bool asked[LAYERS_N];
	enum layers_id enforced_by[LAYERS_N];
	int userns_ok, supervisor_ok; /* 0 not probed, 1 yes, -1 no */
	bool run;		      /* sandbox_prepare_run() */
	bool ns_unshare_probes;	      /* L3 not probed: sandbox_exec's unshare
				       * answers, and a refusal fails the run */
	bool l2_deny_inet;	  /* seccomp stands in for port rules (none) */
	char *supervisor_refused; /* why S cannot run, or NULL */
	char **not_enforced;	  /* every restriction dropped or missing */
	bool learn;		  /* --learn: the supervisor observes paths */
	int learn_fd;		  /* ... and writes them here (sandbox_exec) */
	struct resources_outcome
		limits; /* what the monitor saw (resources.h) */
	/* Set by sandbox_exec() in the process that returns once the command
	 * has ended and is the run's outermost: it reports (the footer, the
	 * limits, sandbox_after()); pid 1 of a pid namespace does not. */
	bool reporter;
	bool must_fail;	  /* a fatal loss without best effort */
	char *fail_cause; /* why, when must_fail */
};

/*
 * Compile p for this kernel.  Returns 0 and a new sandbox; (*out)->must_fail
 * tells whether running it would be refused (the caller still gets the
 * sandbox so --explain can show why).  Returns -errno with *cause for an
 * error that leaves nothing to explain.
 */
int sandbox_prepare(const struct policy *p, enum sandbox_backend backend,
		    struct sandbox **out, char **cause);

/*
 * sandbox_prepare() for a sandbox that sandbox_exec() runs next: what the
 * run itself finds out is left to it.  A policy that fails closed without
 * L3 is not probed for it (a child in a user namespace of its own, about
 * 0.3 ms); the run's unshare answers, and a refusal fails the run with
 * the cause sandbox_prepare() gives (ns_unshare_probes).
 */
int sandbox_prepare_run(const struct policy *p, enum sandbox_backend backend,
			struct sandbox **out, char **cause);

void sandbox_free(struct sandbox *sb);

/* The parts of L3 sb uses, as known.h's KNOWN_L3* flags (for the known
 * limits that still apply). */
unsigned sandbox_l3_parts(const struct sandbox *sb);

/*
 * After the command ended, in the reporter (sb->reporter): name on stderr
 * each path protect-git or protect-later-run could not protect because it
 * did not exist, and that the command made: moved aside (watchlater.h),
 * or left (a new .envrc, which direnv refuses until `direnv allow`), so
 * that the user reviews it before git, direnv or an editor uses it.  When
 * that check could not be completed, say why and return 125 (DESIGN.md
 * §15: a check that could not run fails loudly); else return status.
 */
int sandbox_after(const struct sandbox *sb, int status);

/*
 * Create the missing directories of p->mkdirs (mode 0700, parents too).
 * Called before sandbox_prepare() so rules on them compile; --explain
 * does not call it.  When made is not NULL, every directory created is
 * appended to *made, parents first, for a caller that removes what it
 * made (--selftest).  Returns 0, or -errno with *cause naming the rule.
 */
int sandbox_make_dirs(const struct policy *p, char ***made, char **cause);

/*
 * Apply every layer and exec argv with the policy's environment, in
 * directory p->project.  keep lists the inherited fds that stay open.
 *
 * With the bubblewrap backend this process becomes bwrap (which stays as
 * the monitor) and returns only on failure.
 *
 * Where a layer needs a process above the command (a pid namespace, the
 * network supervisor), this process forks and stays as the monitor: then
 * it returns 0 once the command has ended, with *status the exit status
 * to use, and the caller is to exit (the supervisor is left for the exit
 * to free).  Where the network supervisor runs and something must be
 * checked or timed after it (files run later, a timeout), this process
 * stays outside as the guardian, above a second process that supervises
 * (DESIGN.md §15): the command can stall or kill the supervisor, never
 * the guardian, which makes the final check however the supervisor
 * ended.  Otherwise it returns only on failure: -errno with *cause, and
 * *status 125 before exec, 126 or 127 when exec itself failed.
 */
int sandbox_exec(struct sandbox *sb, char *const *argv, char *const *envp,
		 const int *keep, size_t n_keep, int *status, char **cause);

/*
 * Whether allow-host goes through llwrap's resolver (dnsstub.h), not its
 * proxy: under the supervisor, without proxy = yes, where user
 * namespaces are not known to be refused (a run whose resolver cannot
 * start takes the proxy: sandbox_exec).
 */
bool sandbox_hosts_stub(const struct sandbox *sb);

#endif /* LLW_SANDBOX_H */
