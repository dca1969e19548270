/*
 * llwrap why WHAT [FLAG] (and --why WHAT ...): the decision of the
 * prepared sandbox for one access, from the pure core (why.c), without
 * running anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cmd.h"
#include "fdutil.h"
#include "hostdns.h"
#include "hostrule.h"
#include "netpolicy.h"
#include "sandbox.h"
#include "strv.h"
#include "why.h"
#include "xalloc.h"

/* A path as the user wrote it, absolute: ~ is $HOME. */
static char *
why_path_arg(const char *s)
{
	const char *home = getenv("HOME");

	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0') && home != NULL &&
	    home[0] == '/')
		return xasprintf("%s%s", home, s + 1);
	return cmd_absolute_path(s);
}

/* Exit status 0 when allowed, 1 when denied, 2 when it depends on what
 * a name resolves to. */
static int
cmd_why_exec(struct cmd_ctx *ctx, struct policy *policy)
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

	for (char *const *a = ctx->args; a != NULL && *a != NULL; a++) {
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
			cmd_fatal(
				EXIT_LLWRAP,
				"why: unexpected '%s'; usage: llwrap [OPTIONS] "
				"why PATH [--read|--write|--exec|--connect] or "
				"why HOST:PORT [--udp] [--bind]",
				*a);
		else
			what = *a;
	}
	if (what == NULL)
		cmd_fatal(EXIT_LLWRAP,
			  "why: what access? llwrap why PATH, or why "
			  "HOST:PORT");

	if (what[0] == '@') {
		if (udp || bind || q.access != WHY_READ)
			cmd_fatal(EXIT_LLWRAP,
				  "why %s: an abstract socket takes no "
				  "flag but --connect",
				  what);
		q.access = WHY_CONNECT_ABSTRACT;
		q.path = what + 1;
	} else if (what[0] == '/' || what[0] == '~' || what[0] == '.' ||
		   why_parse_target(what, &q, &host) < 0) {
		_cleanup_free_ char *abs = why_path_arg(what);

		if (udp || bind)
			cmd_fatal(EXIT_LLWRAP,
				  "why %s: --udp and --bind are for "
				  "HOST:PORT",
				  what);
		path = cmd_resolve_path(abs, &q.exists, &q.is_dir);
		q.path = path;
		if (sock)
			q.access = WHY_CONNECT_UNIX;
	} else {
		if (sock)
			cmd_fatal(EXIT_LLWRAP,
				  "why %s: --connect is for unix socket "
				  "paths; HOST:PORT is a connect "
				  "already",
				  what);
		q.access = udp ? (bind ? WHY_BIND_UDP : WHY_SEND_UDP)
			       : (bind ? WHY_BIND_TCP : WHY_CONNECT_TCP);
	}

	if (sandbox_prepare(policy, ctx->backend, &sb, &cause) < 0)
		cmd_fatal(EXIT_LLWRAP, "%s", cause);
	if (sb->supervise) {
		_cleanup_close_ int fd =
			open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			(void)fd_read_all(fd, 1 << 16, &conf, NULL);
		size_t n;
		_cleanup_free_ struct netpolicy_addr *dns =
			netpolicy_resolvers_of(sb->net.dns, sb->net.n_dns, conf,
					       &n);

		rules = netpolicy_rules_copy(sb->net.rules, dns, n);
		if (sandbox_hosts_stub(sb))
			netpolicy_rules_use_stub(rules);
	}
	for (size_t i = 0; i < sb->conf.unix_paths.n; i++) {
		bool e, d;
		char *r = cmd_resolve_path(sb->conf.unix_paths.v[i].value, &e,
					   &d);

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
	cmd_policy_free(policy);
	return status;
}

const struct cmd_entry cmd_why_entry = {
	.name = "why",
	.usage = "why WHAT [FLAG]",
	.help = "the decision for PATH [--read|--write|--exec|\n"
		"--connect (a unix socket)], @NAME (an abstract\n"
		"socket), or HOST:PORT [--udp] [--bind] under this\n"
		"policy: the rule, its file:line, the layer, the\n"
		"change that allows it",
	.flags = "--read --write --exec --connect --udp --bind",
	.how = CMD_WORD | CMD_POLICY,
	.exec = cmd_why_exec,
};
