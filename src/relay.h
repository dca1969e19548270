/*
 * relay: the name check on connections to learned addresses (DESIGN.md
 * §6.1, allow-host through llwrap's resolver).  An address an allowed
 * name resolved to may serve other names (a CDN, a cloud front end):
 * a TCP connect there is given, at the caller's descriptor number, a
 * socket to llwrap-relay, a helper outside the sandbox that reads the
 * connection's first record, checks the name it carries (a TLS
 * ClientHello's server name, an HTTP request's Host) against the
 * allow-host entries under which the address was learned, and only
 * then connects to the address and splices both directions.
 *
 * The supervisor's side (svnames.c) sends one frame a connection: the
 * destination, the entries, an id, and the relay's end of the pair; the
 * relay answers a refusal with a frame naming the id, the rule and the
 * name, which the supervisor logs and notes as its own refusals.
 */
#ifndef LLW_RELAY_H
#define LLW_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hostrule.h"
#include "refusal.h"
#include "value.h"

/* The most entries one address is checked against (hostaddrs' and
 * /etc/hosts'). */
#define RELAY_ENTRIES 8
/* Connections relayed at once; more are refused at the connect
 * (EAGAIN). */
#define RELAY_MAX_CONNS 128
/* The first record: read into this many bytes at most, for this long
 * at most (a client that says nothing is closed). */
#define RELAY_HEAD_MAX (16384 + 5)
#define RELAY_HEAD_MS  10000
/* The longest name a report carries. */
#define RELAY_NAME_MAX 256

enum relay_frame {
	RELAY_CONN = 1, /* supervisor -> relay: struct relay_conn + fd */
	RELAY_REPORT,	/* relay -> supervisor: struct relay_report */
};

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
 * The decision on a connection's first bytes (buf[0..len)): whether the
 * name it carries is one that allow-host entries (indexes into rules)
 * name.  A TLS ClientHello: its server name; none, or an encrypted
 * ClientHello, is refused.  An HTTP/1 request (origin form): its one
 * Host header, without the port; its head is rewritten into *out
 * (*out_len bytes, to send in place of the head's head_len bytes) with
 * "Connection: close", so the connection carries that one request.
 * Anything else names no server: refused.  Returns -EAGAIN for more
 * bytes, or a refusal (REFUSAL_NONE: allowed), with *name the name seen
 * (or NULL); *http when it is HTTP.  Pure.
 */
int relay_decide(const uint8_t *buf, size_t len, bool full,
		 const struct hostrule *rules, size_t n_rules,
		 const uint16_t *entries, size_t n_entries, char **name,
		 bool *http, char **out, size_t *out_len, size_t *head_len);

/*
 * Whether a TCP connection to a learned address on port is relayed and
 * its name checked: every port but ssh's (22) and git://'s (9418),
 * whose clients carry no server name (and whose servers speak first,
 * or may); there a connection is decided by address alone.
 */
bool relay_port_checked(uint16_t port);

/*
 * Start llwrap-relay: forked here (before any namespace), it holds
 * rules (the policy's allow-host entries, n of them) and the channel.
 * Returns its pid and *chan, the supervisor's end, or -errno.
 */
pid_t relay_start(const struct hostrule *rules, size_t n, int *chan);

#endif /* LLW_RELAY_H */
