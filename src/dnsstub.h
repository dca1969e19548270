/*
 * The stub resolver of named hosts (DESIGN.md §6.1, design (a)): a
 * process of llwrap's own, started before any namespace or restriction,
 * in a user and network namespace of its own where it serves DNS on the
 * very addresses of the resolvers /etc/resolv.conf names, port 53.  The
 * supervisor swaps each socket the command connects (or sends) to a
 * resolver on port 53 for one the stub made in its namespace, connected
 * to itself: the command's resolver library talks to the address it
 * expects and gets its replies from it, and nothing else the command
 * does passes through the stub.  The stub answers a query for a name
 * allow-host does not name at once (REFUSED: nothing leaves the
 * machine), forwards the others to the real resolver, and reports each
 * answer to the supervisor before the command has it, so the addresses
 * are learned (hostaddrs.h) before the command can connect to them.  The
 * decisions are hostdns.h's; this is the process and its sockets.
 */
#ifndef LLW_DNSSTUB_H
#define LLW_DNSSTUB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dns.h"
#include "netpolicy.h"

struct dnsstub;

/* What the stub reports to the supervisor, one record a message. */
enum dnsstub_kind {
	DNSSTUB_ANSWERED, /* a forwarded query's answer: learn it */
	DNSSTUB_REFUSED,  /* a query answered without asking anyone */
};
struct dnsstub_record {
	uint8_t kind;	      /* enum dnsstub_kind */
	uint8_t proto;	      /* NETPOLICY_UDP or NETPOLICY_TCP */
	uint16_t client_port; /* the asking socket's port in the stub's
			       * namespace: the supervisor knows whose */
	int32_t rule;	      /* the allow-host entry; -1 none */
	int32_t log_rule;     /* DNSSTUB_REFUSED: the refusal its log
			       * line names (hostdns's log_rule) */
	char name[DNS_NAME_MAX + 1];
	struct dns_answer answer; /* DNSSTUB_ANSWERED */
};

/*
 * Start the stub for the n_hosts allow-host entries hosts (borrowed: the
 * plan's, net_plan), serving the n resolvers (port 53).  With wait, wait
 * until it serves; else it is forked now and makes its namespace,
 * listeners and confinement at its first request (dnsstub_socket, the
 * first query's): a run that resolves nothing never pays for them.
 * Returns 0, -EPERM when user or network namespaces are refused here
 * (with wait: the caller takes the proxy path, design (b)), or another
 * -errno; *cause says why.
 */
int dnsstub_start(const struct hostrule *hosts, size_t n_hosts,
		  const struct netpolicy_addr *dns, size_t n, bool wait,
		  struct dnsstub **out, char **cause);

/*
 * dnsstub_start in two steps, for a stub forked by another process than
 * the one that talks to it (a guardian forks it while its child, the
 * supervisor, goes on: sandbox.c): dnsstub_open makes the channels (the
 * stub not started, its pid unknown here), dnsstub_fork forks the stub
 * on them as dnsstub_start does, and makes the caller its owner (the
 * one that stops it).  A child forked between the two (the supervisor)
 * closes the stub's ends with dnsstub_peer_close (dns, n: the resolvers
 * it was given) and talks to it as the stub's starter would; its
 * dnsstub_stop does not stop it.  Each returns 0 or -errno with *cause.
 */
int dnsstub_open(struct dnsstub **out, char **cause);
int dnsstub_fork(struct dnsstub *s, const struct hostrule *hosts,
		 size_t n_hosts, const struct netpolicy_addr *dns, size_t n,
		 bool wait, char **cause);
void dnsstub_peer_close(struct dnsstub *s, const struct netpolicy_addr *dns,
			size_t n);

/*
 * A socket of type (SOCK_DGRAM or SOCK_STREAM) and family made in the
 * stub's namespace, connected to resolver dst's port 53 when connected
 * (a datagram socket may stay unconnected, for sendto), in *fd
 * (O_CLOEXEC, blocking).  A datagram socket is one the stub made
 * ahead when one is ready (then no wait); otherwise waits for the stub
 * at most 5 s (as long as a resolver's client waits for an answer),
 * reading its records meanwhile (the caller gets them with
 * dnsstub_read).  The first request starts a stub started without wait:
 * when it cannot serve, -errno and *cause, which says why (the stub is
 * gone then: dnsstub_read says so).  Returns 0 or -errno.
 */
int dnsstub_socket(struct dnsstub *s, int family, int type,
		   const struct netpolicy_addr *dst, bool connected, int *fd,
		   char **cause);

/* The descriptor that becomes readable when records wait. */
int dnsstub_fd(const struct dnsstub *s);

/*
 * The supervisor's end of llwrap-relay's channel (relay.h), the caller's
 * from now on.  The stub forks the relay at the start of its own start
 * (dnsstub_start): with a deferred start, a run that resolves nothing
 * never has one, and a connect to relay without a query first (an
 * /etc/hosts address) calls dnsstub_wake before it talks to the relay.
 */
int dnsstub_relay(struct dnsstub *s);

/*
 * Start a stub whose start was deferred, as its first request would,
 * and wait for its word until deadline_ms (0: no limit).  0 (it serves,
 * or had started), or -errno with *cause.
 */
int dnsstub_wake(struct dnsstub *s, uint64_t deadline_ms, char **cause);

/* The next record waiting, without blocking: 1 (in *rec), 0 when none,
 * -errno when the stub is gone. */
int dnsstub_read(struct dnsstub *s, struct dnsstub_record *rec);

/*
 * Whether rec, as read from the stub, is one it could have written: a
 * known kind and protocol, counts within their arrays, addresses of a
 * family, a refusal's log rule one hostdns names; its strings are
 * terminated in place.  The stub parses what the command sends, so the
 * supervisor trusts nothing of it unchecked (DESIGN.md §15).
 */
bool dnsstub_record_valid(struct dnsstub_record *rec);

/* In the process that goes on to exec: close the stub's descriptors. */
void dnsstub_child_forked(struct dnsstub *s);

/* Stop the stub (SIGKILL, reaped) and free s.  NULL does nothing. */
void dnsstub_stop(struct dnsstub *s);

#endif /* LLW_DNSSTUB_H */
