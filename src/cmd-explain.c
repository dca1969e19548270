/*
 * --explain: the resolved policy with every rule's file:line, each layer
 * and what is NOT ENFORCED (explain.c writes it), for the sandbox the
 * run would prepare; nothing runs.
 */
#include <stdio.h>

#include "cleanup.h"
#include "cmd.h"
#include "explain.h"
#include "sandbox.h"

static int
cmd_explain_exec(struct cmd_ctx *ctx, struct policy *policy)
{
	_cleanup_free_ char *cause = NULL;
	struct sandbox *sb = NULL;

	if (sandbox_prepare(policy, ctx->backend, &sb, &cause) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	explain_sandbox(stdout, sb);
	sandbox_free(sb);
	cmd_policy_free(policy);
	return 0;
}

const struct cmd_entry cmd_explain_entry = {
	.name = "explain",
	.usage = "--explain [--] [COMMAND]",
	.how = CMD_POLICY,
	.exec = cmd_explain_exec,
};
