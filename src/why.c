/*
 * `llwrap why`: one access, decided the way the prepared sandbox decides
 * it, layer by layer in the order the kernel meets them:
 *
 *  - paths: the L3 mount masks (when namespaces run), then the Landlock
 *    rules as masked to the running ABI (or bubblewrap's mounts, which
 *    carry the same compiled plan);
 *  - pathname unix sockets: seccomp's socket(AF_UNIX) rule, then the
 *    supervisor's allow-list, Landlock's RESOLVE_UNIX (ABI 9) or nothing;
 *  - IP: net = none's namespace or seccomp, then the supervisor's
 *    decision (netpolicy_decide, the same function it runs) or
 *    Landlock's port rules.
 *
 * The rule reported is the configured one (its line in a profile, or the
 * flag) that holds the path at its resolved path (plan_source_at: a rule
 * on a symlink holds its target), or the one the supervisor's verdict
 * names; the change suggested is the narrowest line or flag that flips
 * the decision.  Paths and unix sockets are why-path.c's, IP why-net.c's
 * (why-int.h); here the dispatch, the target parser, the format and
 * --explain's one-screen summary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "path.h"
#include "strv.h"
#include "why-int.h"
#include "why.h"
#include "xalloc.h"

void
why_verdict_clear(struct why_verdict *v)
{
	free(v->decision);
	free(v->rule);
	free(v->origin);
	free(v->layer);
	free(v->change);
	strv_free(v->notes);
	memset(v, 0, sizeof(*v));
}

const char *
why_access_verb(enum why_access a)
{
	switch (a) {
	case WHY_READ:
		return "read";
	case WHY_WRITE:
		return "write";
	case WHY_EXEC:
		return "execute";
	case WHY_CONNECT_UNIX:
	case WHY_CONNECT_ABSTRACT:
	case WHY_CONNECT_TCP:
		return "connect to";
	case WHY_SEND_UDP:
		return "send UDP to";
	case WHY_BIND_TCP:
	case WHY_BIND_UDP:
		return "bind";
	}
	return "?";
}

void
why_decide(const struct sandbox *sb, const struct netpolicy_rules *rules,
	   char *const *unix_paths, const struct why_query *q,
	   struct why_verdict *v)
{
	memset(v, 0, sizeof(*v));
	switch (q->access) {
	case WHY_READ:
	case WHY_WRITE:
	case WHY_EXEC:
		why_path(sb, q, v);
		if (sb->run_tmp && path_under(q->path, "/tmp"))
			note(v,
			     xstrdup("without user namespaces private-tmp is "
				     "a directory of the run's own "
				     "(/tmp/llwrap-run.XXXXXXXX, named by "
				     "TMPDIR, removed after the run): /tmp and "
				     "/var/tmp themselves are not granted"));
		else if (sb->conf.private_tmp && path_under(q->path, "/tmp"))
			note(v,
			     xstrdup("/tmp is private in the sandbox (an "
				     "empty tmpfs): this is about the "
				     "sandbox's /tmp, where the host's files "
				     "are not"));
		else if (!q->exists && q->access != WHY_WRITE)
			note(v, xasprintf("%s does not exist (now): this is "
					  "the decision once it does",
					  q->path));
		break;
	case WHY_CONNECT_UNIX:
		why_unix(sb, unix_paths, q, v);
		break;
	case WHY_CONNECT_ABSTRACT:
		why_abstract(sb, q, v);
		break;
	default:
		why_inet(sb, rules, q, v);
		break;
	}
	if (!v->allowed && sb->must_fail)
		note(v, xasprintf("this policy does not run at all here: %s",
				  sb->fail_cause));
}

int
why_parse_target(const char *s, struct why_query *q, char **host)
{
	const char *colon = strrchr(s, ':');
	_cleanup_free_ char *h = NULL;
	uint16_t lo, hi;

	*host = NULL;
	if (colon == NULL || colon == s ||
	    value_port_range(colon + 1, &lo, &hi, NULL) < 0 || lo != hi)
		return -EINVAL;
	h = xstrndup(s, (size_t)(colon - s));
	if (h[0] == '[') {
		size_t n = strlen(h);

		if (n < 3 || h[n - 1] != ']')
			return -EINVAL;
	} else if (strchr(h, ':') != NULL) {
		return -EINVAL; /* a bare IPv6 address needs brackets */
	}
	memset(&q->addr, 0, sizeof(q->addr));
	if (value_addr(h, &q->addr, NULL) < 0) {
		if (h[0] == '[' || strspn(h, "abcdefghijklmnopqrstuvwxyz"
					     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789.-_") != strlen(h))
			return -EINVAL;
		*host = steal_pointer(&h);
	}
	q->addr.port = lo;
	q->host = *host;
	return 0;
}

char *
why_format(const char *what, const struct why_verdict *v)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		abort();
	fprintf(f, "%s: %s\n", what, v->decision);
	if (v->rule != NULL && v->origin != NULL)
		fprintf(f, "  rule:   %s   (%s)\n", v->rule, v->origin);
	else if (v->rule != NULL)
		fprintf(f, "  rule:   %s\n", v->rule);
	else if (v->origin != NULL)
		fprintf(f, "  source: %s\n", v->origin);
	fprintf(f, "  layer:  %s\n", v->layer ? v->layer : "none");
	if (!v->allowed && v->change != NULL)
		fprintf(f, "  allow:  %s\n", v->change);
	for (char **n = v->notes; n != NULL && *n != NULL; n++)
		fprintf(f, "  note:   %s\n", *n);
	if (fclose(f) != 0)
		abort();
	return out;
}

/* ---- The one-screen summary of --explain ---- */

/* Append "path (level)" items to a line, at most max, then "+N more". */
static char *
summary_list(char **items, size_t max, const char *sep)
{
	size_t n = strv_length(items);
	_cleanup_strv_ char **shown = NULL;
	_cleanup_free_ char *joined = NULL;

	for (size_t i = 0; i < n && i < max; i++)
		strv_push(&shown, items[i]);
	joined = shown ? strv_join(shown, sep) : xstrdup("");
	if (n > max)
		return xasprintf("%s%s+%zu more", joined, sep, n - max);
	return steal_pointer(&joined);
}

/* A path for the summary: under home as ~/..., else as is. */
static char *
summary_path(const char *path, const char *home)
{
	size_t n = home ? strlen(home) : 0;

	if (n > 1 && strncmp(path, home, n) == 0 &&
	    (path[n] == '/' || path[n] == '\0'))
		return xasprintf("~%s", path + n);
	return xstrdup(path);
}

static char *
summary_ports(const struct llw_ports *ps)
{
	_cleanup_strv_ char **v = NULL;

	for (size_t i = 0; i < ps->n; i++)
		strv_push_take(&v, ps->v[i].lo == ps->v[i].hi
					   ? xasprintf("%u", ps->v[i].lo)
					   : xasprintf("%u-%u", ps->v[i].lo,
						       ps->v[i].hi));
	return v ? strv_join(v, " ") : xstrdup("none");
}

/* The access the configured rules give path (resolved), deny when none
 * holds it. */
static enum llw_access
source_access(const struct plan *fs, const char *path)
{
	const struct plan_source *s = plan_source_at(fs, path);

	return s != NULL ? s->access : LLW_ACCESS_DENY;
}

char **
why_summary(const struct sandbox *sb, const char *home)
{
	const struct plan_conf *p = &sb->conf;
	enum llw_access proj = source_access(sb->fs, p->project);
	_cleanup_strv_ char **in_home = NULL;
	char **by_level[LLW_ACCESS_RWX + 1] = { NULL };
	_cleanup_strv_ char **masks = NULL, **net = NULL, **tmp_hidden = NULL;
	_cleanup_free_ char *list = NULL;
	bool home_ok = home != NULL && home[0] == '/' && home[1] != '\0';
	bool tmpfs = p->private_tmp && !sb->run_tmp &&
		     (sb->use_ns || sb->backend == SANDBOX_BACKEND_BWRAP);
	char **v = NULL;

	strv_push_take(&v, xasprintf("project %s: %s%s", p->project,
				     policy_access_name(proj),
				     proj == LLW_ACCESS_RW
					     ? " (rw does not include execute)"
					     : ""));
	for (size_t i = 0; i < sb->fs->n_sources; i++) {
		const struct plan_source *r = &sb->fs->sources[i];
		_cleanup_free_ char *s = NULL;

		/* The rule that wins at its path (sources are sorted: the
		 * last there), the user's (not one llwrap adds for a
		 * layer of its own or to protect a file). */
		if ((i + 1 < sb->fs->n_sources &&
		     strcmp(sb->fs->sources[i + 1].path, r->path) == 0) ||
		    r->rank >= LLW_RANK_LLWRAP ||
		    path_under(r->path, p->project) ||
		    path_under(r->written, p->project))
			continue;
		/* Shown as written, as the user knows the path. */
		s = summary_path(r->written, home_ok ? home : NULL);
		if (home_ok && strcmp(r->written, home) == 0)
			continue;
		if (home_ok && path_under(r->written, home))
			strv_push_take(&in_home,
				       xasprintf("%s %s",
						 policy_access_name(r->access),
						 s));
		else if (r->access != LLW_ACCESS_DENY)
			strv_push(&by_level[r->access], s);
	}
	if (home_ok) {
		enum llw_access h = source_access(sb->fs, home);

		list = summary_list(in_home, 6, ", ");
		if (h == LLW_ACCESS_DENY)
			strv_push_take(&v, xasprintf("home: hidden%s%s",
						     in_home ? " except " : "",
						     list));
		else
			strv_push_take(&v,
				       xasprintf("home: %s%s%s",
						 policy_access_name(h),
						 in_home ? "; " : "", list));
		free(steal_pointer(&list));
	}
	for (int a = LLW_ACCESS_RWX; a > LLW_ACCESS_DENY; a--) {
		if (by_level[a] == NULL)
			continue;
		list = summary_list(by_level[a], 6, " ");
		strv_push_take(
			&v,
			xasprintf("%s elsewhere: %s%s%s", policy_access_name(a),
				  list,
				  a == LLW_ACCESS_RW ? " (rw: no execute)" : "",
				  p->private_tmp && strv_contains(by_level[a],
								  "/tmp")
					  ? " (/tmp private)"
					  : ""));
		free(steal_pointer(&list));
		strv_free(by_level[a]);
	}
	/* A private /tmp is a new tmpfs where only the project (and what
	 * holds it or lies in it) is bound: a rule on anything else there
	 * grants nothing, and a mask there masks nothing (L3 and bubblewrap
	 * alike). */
	for (size_t i = 0; tmpfs && i < sb->fs->n_sources; i++) {
		const struct plan_source *r = &sb->fs->sources[i];

		if ((i + 1 < sb->fs->n_sources &&
		     strcmp(sb->fs->sources[i + 1].path, r->path) == 0) ||
		    r->access == LLW_ACCESS_DENY ||
		    !policy_private_tmp_hides(r->path, p->project))
			continue;
		strv_push_take(&tmp_hidden,
			       xasprintf("%s %s", policy_access_name(r->access),
					 r->written));
	}
	if (tmp_hidden != NULL) {
		list = summary_list(tmp_hidden, 6, ", ");
		strv_push_take(&v, xasprintf("not there (in a private tmp, a "
					     "new empty tmpfs where only the "
					     "project is bound): %s",
					     list));
		free(steal_pointer(&list));
	}
	for (size_t i = 0; sb->use_ns && i < sb->fs->n_masks; i++) {
		const struct plan_mask *m = &sb->fs->masks[i];

		_cleanup_free_ char *s = NULL;

		if (tmpfs && policy_private_tmp_hides(m->path, p->project))
			continue;
		s = summary_path(m->path, home_ok ? home : NULL);

		strv_push_take(
			&masks,
			xasprintf("%s %s", policy_access_name(m->access), s));
	}
	if (masks != NULL) {
		list = summary_list(masks, 6, ", ");
		strv_push_take(&v, xasprintf("masked (L3): %s", list));
		free(steal_pointer(&list));
	}

	if (p->net == LLW_NET_NONE) {
		strv_push(&v, "network: none (a namespace with only lo)");
	} else if (p->net == LLW_NET_HOST) {
		strv_push(&v, "network: host (unrestricted)");
	} else {
		_cleanup_free_ char *ct = summary_ports(&p->connect_tcp);
		_cleanup_free_ char *bt = summary_ports(&p->bind_tcp);
		_cleanup_free_ char *cu = summary_ports(&p->connect_udp);

		strv_push_take(&net, xasprintf("tcp ports %s", ct));
		if (p->bind_tcp.n)
			strv_push_take(&net, xasprintf("bind %s", bt));
		strv_push_take(&net, p->connect_udp.n
					     ? xasprintf("udp ports %s", cu)
				     : sandbox_hosts_stub(sb)
					     ? xstrdup("DNS: allowed names")
				     : p->proxy_enabled ? xstrdup("no DNS")
				     : sb->supervise ? xstrdup("udp: DNS only")
						     : xstrdup("no udp"));
		for (size_t i = 0; i < p->n_hosts; i++) {
			_cleanup_free_ char *h =
				value_host_format(&p->hosts[i]);

			strv_push_take(&net, xasprintf("host %s", h));
		}
		for (size_t i = 0; i < p->n_cidrs; i++) {
			_cleanup_free_ char *c =
				value_cidr_format(&p->cidrs[i]);

			strv_push_take(&net, xasprintf("cidr %s", c));
		}
		list = strv_join(net, "; ");
		strv_push_take(
			&v,
			xasprintf("network: filtered: %s%s", list,
				  sb->supervise && sandbox_hosts_stub(sb)
					  ? " (supervised: names through "
					    "llwrap's resolver, no other name "
					    "resolves; port rules name the "
					    "hosts' ports and reach only the "
					    "addresses allowed names resolve "
					    "to)"
				  : sb->supervise && p->proxy_enabled
					  ? " (supervised: names only through "
					    "llwrap's proxy, HTTPS_PROXY; port "
					    "rules name the hosts' ports and "
					    "reach nothing directly)"
				  : sb->supervise
					  ? " (supervised: port rules reach "
					    "internet hosts, not this host or "
					    "its networks; the sandbox's own "
					    "servers on any loopback port)"
				  : p->connect_tcp.n
					  ? " (a port rule reaches every host "
					    "on it)"
					  : ""));
		free(steal_pointer(&list));
	}
	if (p->unix_sockets) {
		strv_push(&v, "unix: any pathname socket the sandbox can see");
	} else if (p->unix_paths.n > 0) {
		_cleanup_strv_ char **u = NULL;

		for (size_t i = 0; i < p->unix_paths.n; i++)
			strv_push(&u, p->unix_paths.v[i].value);
		list = summary_list(u, 4, " ");
		strv_push_take(
			&v, xasprintf("unix: %s, and the sandbox's own", list));
		free(steal_pointer(&list));
	} else {
		strv_push(&v, sb->filter.allow_unix
				      ? "unix: only the sandbox's own sockets"
				      : "unix: none (no unix sockets)");
	}
	strv_push_take(&v,
		       xasprintf("processes: %s%s",
				 p->hide_processes ? "host processes hidden"
						   : "host processes visible",
				 p->ptrace_deny ? "; no ptrace" : ""));
	if (sb->must_fail)
		strv_push_take(&v,
			       xasprintf("WILL NOT RUN: %s", sb->fail_cause));
	else if (sb->not_enforced != NULL)
		strv_push_take(&v,
			       xasprintf("NOT ENFORCED: %zu restriction(s), "
					 "listed below",
					 strv_length(sb->not_enforced)));
	return v;
}
