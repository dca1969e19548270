/*
 * The sandbox as a whole: turn a resolved policy into a prepared plan for
 * every layer (sandbox_prepare: the planner on this system's facts,
 * planner.h), report it (explain.c), and apply it to the calling process
 * before exec (sandbox_exec, the runner, which switches on the plan's
 * shape).  DESIGN.md §2 fixes the order of the steps.
 */
#ifndef LLW_SANDBOX_H
#define LLW_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "planner.h"

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
