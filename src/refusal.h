/*
 * Refusals: why the supervisor, the proxy or the resolver refused an
 * attempt, as one enum and one table (DESIGN.md §6, §12).  Each refusal
 * has its log name (the "rule=" word of the blocked-attempt log, which
 * `llwrap log`, the tests and users read: it never changes), a sentence
 * saying what refused it (the proxy's 403 body, `why`), and the errno
 * the refused call gets.  The supervisor, the log's reader (blocked.c:
 * the report, the footer, the agent note), the proxy and `why` all
 * decide on the enum; the name is only written (a log line, a frame)
 * and read back once (refusal_parse).  Pure.
 */
#ifndef LLW_REFUSAL_H
#define LLW_REFUSAL_H

enum refusal {
	REFUSAL_NONE = 0, /* allowed */
	REFUSAL_ABSTRACT,
	REFUSAL_UNIX,
	REFUSAL_UNIX_BIND,
	REFUSAL_HOST,
	REFUSAL_HOST_PORT,
	REFUSAL_NO_CIDR,
	REFUSAL_REBIND,
	REFUSAL_SNI,
	REFUSAL_DNS_TYPE,
	REFUSAL_DNS_MALFORMED,
	REFUSAL_PROXY,
	REFUSAL_DNS,
	REFUSAL_PORT,
	REFUSAL_LOCAL,
	REFUSAL_UNNAMED,
	REFUSAL_NET_PORT,
	REFUSAL_LANDLOCK_PORT,
	REFUSAL_BIND_PORT,
	REFUSAL_LISTEN,
	REFUSAL_SHARED_PORT,
	REFUSAL_UNPUBLISHED,
	REFUSAL_SOURCE_ROUTE,
	REFUSAL_SERVER_NAME, /* the relay (relay.h): a name checked */
	REFUSAL_ECH,
	REFUSAL_NO_NAME,
	REFUSAL_DNS_BUDGET,
	REFUSAL_QUIC,
	REFUSAL_NO_GETFD, /* no pidfd_getfd, and no substitute for the call */
	REFUSAL_RELAY,	  /* llwrap-relay could not start, or ended */
	REFUSAL_UNKNOWN,  /* a log name this table does not hold */
};

#define REFUSAL_COUNT (REFUSAL_UNKNOWN + 1)

/* The log name ("filtered/port"); NULL for REFUSAL_NONE. */
const char *refusal_name(enum refusal r);

/* What refused it, one sentence without a full stop. */
const char *refusal_reason(enum refusal r);

/* The errno the refused call gets (positive). */
int refusal_errno(enum refusal r);

/*
 * The refusal a log name names: REFUSAL_NONE for NULL, REFUSAL_UNKNOWN
 * for a name the table does not hold (a log of another version).
 */
enum refusal refusal_parse(const char *name);

#endif /* LLW_REFUSAL_H */
