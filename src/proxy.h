/*
 * proxy: llwrap's HTTP(S) proxy for named hosts (DESIGN.md §6.1, design
 * (b), and the optional layer `proxy = yes`).
 *
 * The pure part: what the proxy decides for a request (the CONNECT name
 * and port against allow-host, IP literals against allow-cidr, the
 * addresses a name resolves to against rebinding, the TLS SNI against
 * the CONNECT name), the environment that points the command's clients
 * at it, and the /etc/hosts lookup it resolves with first.  The proxy
 * process itself (sockets, relaying) is proxy_serve() in proxyserve.c.
 */
#ifndef LLW_PROXY_H
#define LLW_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns.h"
#include "hostrule.h"
#include "refusal.h"

/*
 * What the proxy asks of the rules; the supervisor's compiled rules
 * answer (proxyserve.c wires them), the unit tests answer with tables.
 */
struct proxy_rules {
	/* allow-host: may name (lower case, no trailing dot) be reached
	 * on port?  *origin: the entry's "file:line", when one named it. */
	enum hostrule_verdict (*host)(void *ctx, const char *name,
				      uint16_t port, const char **origin);
	/* allow-cidr: the origin of the entry that lets a (a->port set)
	 * be reached, or NULL.  Port rules alone never let the proxy reach
	 * an address. */
	const char *(*cidr)(void *ctx, const struct netpolicy_addr *a);
	/* Whether a is an address of one of this host's interfaces (a
	 * server bound to the any-address answers there as on loopback)
	 * or inside one of their on-link prefixes (sockdiag_host_local);
	 * NULL: none is. */
	bool (*own)(void *ctx, const struct netpolicy_addr *a);
	void *ctx;
};

/* A decision: rule REFUSAL_NONE is allowed; else the refusal
 * (refusal.h), and the entry that decided when there is one. */
struct proxy_verdict {
	enum refusal rule;
	const char *origin;
};

/*
 * The request for host (a name as httpreq keeps it, or an IP literal
 * when is_ip) on port.  A name: allowed when allow-host holds it on that
 * port ("filtered/host" when no entry names it, "filtered/host-port"
 * when one names it on other ports).  An IP literal: only inside an
 * allow-cidr entry ("filtered/no-cidr"; "filtered/host" when it is not
 * an address at all).
 */
struct proxy_verdict proxy_decide_request(const struct proxy_rules *r,
					  const char *host, bool is_ip,
					  uint16_t port);

/*
 * An address an allowed name resolved to (a->port set): a local one
 * (netpolicy_addr_local: loopback, RFC 1918, link-local, CGNAT, ULA,
 * multicast, NAT64 forms) or one of this host's or its links' (r->own)
 * is refused unless an allow-cidr entry holds it ("filtered/rebind");
 * any other is allowed.
 */
struct proxy_verdict proxy_decide_address(const struct proxy_rules *r,
					  const struct netpolicy_addr *a);

/*
 * The server name of the tunnel's TLS ClientHello (NULL: none) against
 * the host CONNECT named: a name must be that host ("filtered/sni");
 * no name is allowed (the tunnel still reaches only the CONNECT host's
 * addresses, and an SNI-less client names no other server).
 */
struct proxy_verdict proxy_decide_sni(const char *host, const char *sni);

/*
 * The variables that point clients at the proxy on 127.0.0.1:port:
 * HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and their lower-case forms,
 * NO_PROXY/no_proxy (loopback goes direct, to the supervisor's rules),
 * NODE_USE_ENV_PROXY=1.  A new vector of NAME=VALUE.
 */
char **proxy_environ(uint16_t port);

/*
 * The addresses /etc/hosts (its text) gives name (lower case), in file
 * order, at most max into out (ports 0).  Returns how many.
 */
size_t proxy_hosts_lookup(const char *text, const char *name,
			  struct netpolicy_addr *out, size_t max);

/*
 * What the proxy takes from a DNS answer (dns_answer_parse): at most
 * max of its addresses into out (ports 0), their number in *n.  Returns
 * 0 (*n may be 0: the name has no such records), -ENOENT for NXDOMAIN,
 * -EAGAIN for a truncated answer or a server failure (ask the next
 * server).
 */
int proxy_dns_addrs(const struct dns_answer *a, struct netpolicy_addr *out,
		    size_t max, size_t *n);

/*
 * Who the proxy's clients are: the supervisor tells the proxy, for each
 * connect to it, the client socket's local port, the pid and the
 * command, one "PORT PID COMM" line each (supervise_set_proxy).  The
 * newest PROXY_CLIENTS are kept.
 */
#define PROXY_CLIENTS 256

struct proxy_client {
	uint16_t port;
	int pid;
	char comm[17];
};

struct proxy_clients {
	struct proxy_client v[PROXY_CLIENTS];
	size_t next;
	char partial[64]; /* a line cut between two reads */
	size_t n_partial;
};

/* Add the lines of buf[0..len) (a read from the supervisor's pipe). */
void proxy_clients_add(struct proxy_clients *c, const char *buf, size_t len);

/* The newest client with local port port, or NULL. */
const struct proxy_client *proxy_clients_find(const struct proxy_clients *c,
					      uint16_t port);

#endif /* LLW_PROXY_H */
