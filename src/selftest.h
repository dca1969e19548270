/*
 * llwrap --selftest: the escape corpus (llwrap-escape, DESIGN.md §9) run
 * under the user's own policy on the running kernel.  This module finds
 * the corpus, starts its host side (decoys, listeners, a victim process,
 * in a scratch directory it removes), and runs the probes inside the
 * sandbox; cmd-selftest.c judges and prints the results.
 */
#ifndef LLW_SELFTEST_H
#define LLW_SELFTEST_H

#include <sys/types.h>

#include "sandbox.h"

struct selftest_host {
	char **kv; /* KEY=VALUE lines of the host side */
	char *dir; /* its scratch directory */
	pid_t pid;
	int in; /* closing it ends the host side */
};

/*
 * The corpus program: llwrap-escape beside the running llwrap (a build
 * tree), else in pkglibexecdir.  Returns a new path, or NULL with *cause.
 */
char *selftest_find_corpus(char **cause);

/*
 * Start the host side in a new directory under home (outside every rule
 * a sane policy grants, like the secrets it imitates), with the twins'
 * work directory in project.  Returns 0 and *out, or -errno with *cause.
 */
int selftest_host_start(const char *corpus, const char *home,
			const char *project, struct selftest_host **out,
			char **cause);

/* The value of KEY in the host's lines, or NULL. */
const char *selftest_host_get(const struct selftest_host *h, const char *key);

/* End the host side (it removes what it made) and free h. */
void selftest_host_stop(struct selftest_host *h);

/*
 * Run "corpus run KV... extra..." inside sb, with envp as the
 * environment before the policy filters it, and a decoy descriptor
 * open that the sandbox must not pass on.  Returns 0 and the output
 * lines in *lines, or -errno with *cause.
 */
int selftest_run(struct sandbox *sb, const char *corpus,
		 const struct selftest_host *h, char *const *extra,
		 char *const *envp, char ***lines, char **cause);

#endif /* LLW_SELFTEST_H */
