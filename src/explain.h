/*
 * Human-readable reports: --explain (the resolved policy with the
 * provenance of every rule, the compiled Landlock rules, the seccomp
 * summary, what is NOT ENFORCED) and --check (the kernel's capabilities).
 */
#ifndef LLW_EXPLAIN_H
#define LLW_EXPLAIN_H

#include <stdio.h>

#include "sandbox.h"

/* "landlock" or "bwrap", as conf/known-limits names backends. */
const char *explain_backend_name(enum sandbox_backend b);

/* Print the report for sb, whose policy is sb->policy, to f. */
void explain_sandbox(FILE *f, const struct sandbox *sb);

/* Print what this kernel and system offer, and which layers are usable.
 * Returns 0 when at least one backend can run, 1 otherwise. */
int explain_check(FILE *f);

#endif /* LLW_EXPLAIN_H */
