/*
 * --check: the kernel's features and the layers usable here (explain.c
 * probes and writes them); no policy, nothing runs.  Exit status 1 when
 * no backend can run.
 */
#include <stdio.h>

#include "cmd.h"
#include "explain.h"

static int
cmd_check_exec(struct cmd_ctx *ctx, struct policy *policy)
{
	(void)ctx;
	(void)policy;
	return explain_check(stdout) == 0 ? 0 : 1;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "--check",
	.how = 0,
	.exec = cmd_check_exec,
};
