/*
 * relay: the name check on connections to learned addresses (DESIGN.md
 * §6.1, allow-host through llwrap's resolver).  An address an allowed
 * name resolved to may serve other names (a CDN, a cloud front end):
 * a TCP connect there is connected to llwrap-relay instead (the caller's
 * socket itself, or where it cannot be, a socket installed at its
 * descriptor number), a helper outside the sandbox that reads the
 * connection's first record, checks the name it carries (a TLS
 * ClientHello's server name, an HTTP request's Host) against the
 * allow-host entries under which the address was learned, and only
 * then sends it to the address (connected to meanwhile, nothing sent
 * before the check) and splices both directions.
 *
 * The supervisor's side (svnames.c) sends one frame a connection: the
 * destination, the entries, an id, and the relay's end of the
 * connection (non-blocking, TCP_NODELAY and Reno's congestion control,
 * which does not pace: accepted so from the supervisor's listener, set
 * nothing on it again); the
 * relay answers a refusal with a frame naming the id, the rule and the
 * name, which the supervisor logs and notes as its own refusals.
 */
#ifndef LLW_RELAY_H
#define LLW_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "relaycheck.h"
#include "value.h"

/* The most entries one address is checked against (hostaddrs' and
 * /etc/hosts'). */
#define RELAY_ENTRIES 8
/* Connections relayed at once; more are reset at once. */
#define RELAY_MAX_CONNS 128
/* A client that sends no first record in this long is reset (a server
 * that speaks first: at its first byte). */
#define RELAY_HEAD_MS 10000
/* The longest name a report carries. */
#define RELAY_NAME_MAX 256

enum relay_frame {
	RELAY_CONN = 1, /* supervisor -> relay: struct relay_conn + fd */
	RELAY_REPORT,	/* relay -> supervisor: struct relay_report */
	RELAY_START,	/* supervisor -> relay: set up now (no payload) */
	RELAY_STATUS,	/* relay -> supervisor: struct relay_status */
};

/* The relay's word on its set-up, the answer to RELAY_START. */
struct relay_status {
	int32_t err;   /* 0: it relays; else the errno that stopped it */
	char why[256]; /* then why, a clause */
};

/* How long the supervisor waits for that word. */
#define RELAY_START_MS 5000

struct relay_conn {
	uint32_t id;
	struct netpolicy_addr dst; /* port set */
	uint32_t n;
	uint16_t entries[RELAY_ENTRIES];
};

struct relay_report {
	uint32_t id;
	uint32_t rule;		   /* enum refusal */
	char name[RELAY_NAME_MAX]; /* the name carried, or "" */
};

/*
 * Start llwrap-relay, forked here, holding rules (the policy's allow-host
 * entries, n of them) and chan (its end of the supervisor's channel; the
 * caller closes its own copy), and nothing else until the supervisor's
 * RELAY_START, sent at the first connect to relay: then it confines
 * itself (the costly part of its start, paid only by a run that relays)
 * and answers RELAY_STATUS, ending when it could not.  It must start
 * outside every namespace of the sandbox's: llwrap's resolver forks it
 * at its own first request, before it makes its namespaces (dnsstub.h;
 * from the supervisor under a pid namespace it would be the sandbox's).
 * Returns its pid, or -errno.
 */
pid_t relay_spawn(const struct hostrule *rules, size_t n, int chan);

#endif /* LLW_RELAY_H */
