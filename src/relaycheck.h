/*
 * relaycheck: what llwrap-relay (relay.h) decides on a connection to a
 * learned address (DESIGN.md §6.1): which ports it takes, and whether
 * the name the connection's first bytes carry is one that the
 * allow-host entries the address was learned under name.  Pure: no
 * system calls; fuzzed (tests/fuzz/fuzz-relaycheck.c).
 */
#ifndef LLW_RELAYCHECK_H
#define LLW_RELAYCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hostrule.h"
#include "refusal.h"

/* The first record is read into this many bytes at most. */
#define RELAY_HEAD_MAX (16384 + 5)

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

#endif /* LLW_RELAYCHECK_H */
