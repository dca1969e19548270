/*
 * What llwrap's resolver (dnsserve.c, its process) and the supervisor's
 * side of it (dnsstub.c) share: the bounds, the frames of their two
 * channels and the word on its start.  Nothing else includes this.
 */
#ifndef LLW_DNSINT_H
#define LLW_DNSINT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "dnsstub.h"
#include "netpolicy.h"

#define ST_MAX_DNS     8   /* resolvers served */
#define ST_MAX_PENDING 256 /* UDP queries waiting for an answer */
#define ST_MAX_TCP     16  /* TCP clients at once */
#define ST_QUERY_MAX   4096
#define ST_TIMEOUT_MS  5000 /* a query's answer, a TCP client's silence */
#define ST_TCP_MS      2000 /* one exchange with a resolver over TCP */
#define ST_POOL	       8    /* host TCP sockets kept per family */
#define ST_SPARES      4    /* datagram sockets made ahead, per family */
#define ST_MAX_QUEUE   1024 /* records read ahead of the supervisor */
#define ST_REFILL_MS                                                           \
	100 /* host TCP sockets handed over at most this                       \
	     * often */

enum { REQ_SOCKET = 1, REQ_REFILL = 2, REC_NEED_TCP = 100 };

/* The frames of the two channels (channel.h): on ctl a request (struct
 * st_req, with host sockets for REQ_REFILL) and its answer (struct
 * st_resp, with the socket made); on rec a struct dnsstub_record. */
enum { ST_MSG_REQ = 1, ST_MSG_RESP = 2, ST_MSG_RECORD = 3 };

/* A REQ_SOCKET and its answer carry the same seq: an answer that came
 * after its request gave up is told from the next one's.  Seq 0 asks
 * for a spare: an unconnected datagram socket the supervisor keeps for
 * the next swap (its answer names the family). */
struct st_req {
	uint8_t op;
	uint8_t connected;
	uint32_t seq;
	int32_t family, type;
	struct netpolicy_addr dst;
};

struct st_resp {
	uint32_t seq;
	int32_t err;
	int32_t family;
};

/* The stub's word on its start, on the status pipe. */
struct st_status {
	int32_t err;
	char why[240];
	uint64_t netns; /* its network namespace's cookie; 0 unknown */
};

static inline int
dnsint_fam(int family)
{
	return family == AF_INET6;
}

/* dst's address, port 53, as a sockaddr of family (an IPv4 address in
 * an AF_INET6 socket is IPv4-mapped). */
static inline socklen_t
dnsint_sockaddr(const struct netpolicy_addr *dst, int family,
		struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(53);
		memcpy(&s4->sin_addr, dst->a, 4);
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(53);
	if (dst->family == AF_INET) {
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(s6->sin6_addr.s6_addr + 12, dst->a, 4);
	} else {
		memcpy(&s6->sin6_addr, dst->a, 16);
	}
	return sizeof(*s6);
}

/*
 * In the stub, just started (helper_start): serve the n resolvers for
 * the n_hosts allow-host entries hosts over the channels ctl and rec, once its
 * word on its start went down the status pipe.  With deferred, the costly
 * part of that start (its namespaces, listeners and confinement) waits for
 * the first request on ctl: a run that resolves nothing never pays it.
 * First of that start, still outside every namespace, it forks
 * llwrap-relay with relay, its end of the supervisor's channel
 * (relay_spawn).  Never returns.
 */
void dnsserve_main(const struct hostrule *hosts, size_t n_hosts,
		   const struct netpolicy_addr *dns, size_t n, int ctl, int rec,
		   int status, int relay, bool deferred)
	__attribute__((noreturn));

#endif /* LLW_DNSINT_H */
