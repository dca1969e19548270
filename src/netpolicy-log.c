/*
 * The supervisor's blocked-attempt log (netpolicy.h): its rate limit
 * (the time passed in), the prefix, the lines (names made safe to
 * print) and the file; and the network part of --explain, in words.
 * Pure, as the decisions are (netpolicy.c).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "cleanup.h"
#include "hostrule.h"
#include "netpolicy.h"
#include "planconf.h"
#include "strv.h"
#include "xalloc.h"

/* ---- The blocked-attempt log ---- */

void
netpolicy_ratelimit_init(struct netpolicy_ratelimit *rl, unsigned burst,
			 unsigned rate, uint64_t now_ns)
{
	rl->tokens = burst;
	rl->burst = burst;
	rl->rate = rate;
	rl->last_ns = now_ns;
	rl->suppressed = 0;
}

static void
ratelimit_refill(struct netpolicy_ratelimit *rl, uint64_t now_ns)
{
	if (now_ns > rl->last_ns) {
		rl->tokens += (double)(now_ns - rl->last_ns) * rl->rate / 1e9;
		if (rl->tokens > rl->burst)
			rl->tokens = rl->burst;
	}
	rl->last_ns = now_ns;
}

bool
netpolicy_ratelimit_take(struct netpolicy_ratelimit *rl, uint64_t now_ns,
			 unsigned long *report)
{
	*report = 0;
	ratelimit_refill(rl, now_ns);
	if (rl->tokens < 1) {
		rl->suppressed++;
		return false;
	}
	rl->tokens -= 1;
	*report = rl->suppressed;
	rl->suppressed = 0;
	return true;
}

bool
netpolicy_ratelimit_flush(struct netpolicy_ratelimit *rl, uint64_t now_ns,
			  bool at_exit, unsigned long *report)
{
	*report = 0;
	ratelimit_refill(rl, now_ns);
	if (rl->suppressed == 0 || (!at_exit && rl->tokens < 1))
		return false;
	if (rl->tokens >= 1)
		rl->tokens -= 1;
	*report = rl->suppressed;
	rl->suppressed = 0;
	return true;
}

char *
netpolicy_log_prefix(const char *fmt, const char *name)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		abort();
	if (fmt == NULL)
		fmt = "llwrap-%n-blocked";
	for (const char *s = fmt; *s != '\0'; s++) {
		if (s[0] == '%' && s[1] == 'n') {
			fputs(name, f);
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			fputc('%', f);
			s++;
		} else {
			fputc(*s, f);
		}
	}
	if (fclose(f) != 0)
		abort();
	return out;
}

/* s with control characters, spaces and non-ASCII bytes as '?', so one
 * attempt is one line whatever the command put in a path or its name. */
static char *
sanitise(const char *s)
{
	char *out = xstrdup(s ? s : "?");

	for (char *c = out; *c != '\0'; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			*c = '?';
	return out;
}

static const char *const op_names[] = {
	[NETPOLICY_CONNECT] = "connect", [NETPOLICY_SEND] = "sendto",
	[NETPOLICY_BIND] = "bind",	 [NETPOLICY_QUERY] = "dns-query",
	[NETPOLICY_LISTEN] = "listen",
};

static const char *const proto_names[] = {
	[NETPOLICY_TCP] = "tcp",
	[NETPOLICY_UDP] = "udp",
	[NETPOLICY_UNIX] = "unix",
};

const char *
netpolicy_op_name(enum netpolicy_op op)
{
	return op_names[op];
}

const char *
netpolicy_proto_name(enum netpolicy_proto proto)
{
	return proto_names[proto];
}

char *
netpolicy_log_line(const char *prefix, enum netpolicy_op op,
		   enum netpolicy_proto proto, const char *target, pid_t pid,
		   const char *comm, enum refusal rule)
{
	_cleanup_free_ char *t = sanitise(target);
	_cleanup_free_ char *c = sanitise(comm);

	return xasprintf("%s: %s %s %s pid=%d comm=%s rule=%s", prefix,
			 op_names[op], proto_names[proto], t, (int)pid, c,
			 refusal_name(rule));
}

char *
netpolicy_log_path(const char *name, char *const *envp)
{
	const char *state = strv_env_get(envp, "XDG_STATE_HOME");
	const char *home = strv_env_get(envp, "HOME");
	_cleanup_free_ char *n = xstrdup(name);

	for (char *c = n; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			*c = '_';
	if (n[0] == '.' || n[0] == '\0') {
		char *m = xasprintf("_%s", n);

		free(n);
		n = m;
	}
	if (state != NULL && state[0] == '/')
		return xasprintf("%s/llwrap/%s.log", state, n);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.local/state/llwrap/%s.log", home, n);
	return NULL;
}

char **
netpolicy_describe(const struct plan_conf *p,
		   const struct netpolicy_addr *resolvers, size_t n_resolvers,
		   bool stub, char *const *envp)
{
	_cleanup_strv_ char **dns = NULL, **names = NULL;
	_cleanup_free_ char *list = NULL, *hosts = NULL;
	char **v = NULL;

	for (size_t i = 0; i < n_resolvers; i++)
		strv_push_take(&dns, value_ip_format(&resolvers[i]));
	list = dns ? strv_join(dns, " ") : NULL;

	strv_push(&v, "connect, bind, listen, sendto/sendmsg/sendmmsg with a "
		      "destination: performed by the supervisor after its "
		      "check");
	for (size_t i = 0; i < p->n_hosts; i++)
		strv_push_take(&names, value_host_format(&p->hosts[i]));
	hosts = names ? strv_join(names, " ") : xstrdup("(none)");
	if (p->proxy_enabled && stub) {
		strv_push_take(
			&v,
			xasprintf("names: allow-host %s, resolved through "
				  "llwrap's resolver (its own network "
				  "namespace; the command's DNS sockets are "
				  "swapped for its): a query for another name "
				  "is answered REFUSED and never leaves the "
				  "machine",
				  hosts));
		strv_push(&v, "IP destinations: inside an allow-cidr entry, on "
			      "its ports (else connect-tcp / connect-udp); "
			      "else an address an allowed name resolved to, "
			      "for the answer's TTL (30 s to 1 h), on that "
			      "entry's ports; never a local address a name "
			      "resolved to (rebinding)");
		strv_push(&v, "names checked: a TCP connection to an address "
			      "learned from a name goes through llwrap-relay, "
			      "its TLS server name or HTTP Host must be a name "
			      "learned there (no encrypted ClientHello); ssh "
			      "(22) and git:// (9418) carry no name and are "
			      "decided by address alone");
	} else if (p->proxy_enabled) {
		strv_push_take(
			&v, xasprintf("names: only through llwrap's proxy on "
				      "127.0.0.1 (HTTPS_PROXY, HTTP_PROXY): "
				      "allow-host %s; no DNS; the TLS server "
				      "name must be the CONNECT name; names "
				      "that resolve to local addresses only "
				      "inside an allow-cidr entry",
				      hosts));
		strv_push(&v, "IP destinations: inside an allow-cidr entry, on "
			      "its ports (else connect-tcp / connect-udp); "
			      "nothing else directly (proxy)");
	} else if (p->net == LLW_NET_HOST) {
		strv_push(&v, "IP destinations: any (mode = host)");
	} else {
		strv_push(&v, "IP destinations: inside an allow-cidr entry, on "
			      "its ports (else connect-tcp / connect-udp); "
			      "outside every entry, internet addresses on the "
			      "connect-tcp / connect-udp ports, never this "
			      "host or its networks (loopback, private, "
			      "link-local, this host's own addresses, the "
			      "networks on its links, their NAT64 forms)");
	}
	strv_push(&v, "the sandbox's own listeners: reachable on any loopback "
		      "port (by socket cookie; every socket a connection "
		      "there could reach must be the sandbox's)");
	if (p->proxy_enabled && stub)
		strv_push_take(&v, xasprintf("DNS (port 53, UDP and TCP): to "
					     "%s, answered by llwrap's "
					     "resolver",
					     list ? list : "(no resolver)"));
	else if (p->proxy_enabled)
		strv_push(&v, "DNS (port 53): none (the proxy resolves)");
	else
		strv_push_take(
			&v,
			xasprintf("DNS (port 53, UDP and TCP): only %s%s",
				  list ? list : "(no resolver: none)",
				  p->n_dns_addrs ? ""
						 : " (from /etc/resolv.conf)"));
	strv_push_take(&v,
		       xasprintf("binds: %s%s",
				 p->n_listen_addrs
					 ? "only the listen addresses (port "
					   "0 on loopback when bind-tcp / "
					   "bind-udp has 0)"
					 : "on loopback only (a wildcard "
					   "bind becomes loopback), on the "
					   "bind-tcp / bind-udp ports, "
					   "reachable from the host",
				 p->net == LLW_NET_HOST
					 ? ""
					 : "; never on a port a socket the "
					   "sandbox did not create holds "
					   "(EADDRINUSE)"));
	if (p->needs_supervisor && p->net != LLW_NET_HOST &&
	    netpolicy_ports_hold(&p->bind_tcp, 0))
		strv_push(&v, "the sandbox's own servers (bind-tcp 0): on any "
			      "other unprivileged loopback port, for the "
			      "sandbox alone (moved to a port of the kernel's "
			      "choosing, where its clients of the asked port "
			      "are sent; a host client there is refused)");
	strv_push(&v, "pathname unix sockets: those the sandbox bound, and "
		      "the unix allow-list (by inode)");
	strv_push(&v, "abstract unix sockets: those the sandbox bound");
	if (p->log_blocked) {
		_cleanup_free_ char *prefix =
			netpolicy_log_prefix(p->log_prefix, p->name);
		_cleanup_free_ char *path = netpolicy_log_path(p->name, envp);

		strv_push_take(&v, xasprintf("blocked attempts: logged as "
					     "'%s: ...' to syslog and %s, at "
					     "most %d lines then %d a second",
					     prefix,
					     path ? path
						  : "(no file: "
						    "HOME unset)",
					     NETPOLICY_LOG_BURST,
					     NETPOLICY_LOG_RATE));
	} else {
		strv_push(&v, "blocked attempts: not logged (log-blocked = "
			      "no)");
	}
	return v;
}
