/*
 * hostdns: what llwrap's stub resolver decides for named hosts
 * (DESIGN.md §6.1, design (a)), pure: whether a query from the sandbox
 * is forwarded to the real resolvers or answered at once without
 * anything leaving the machine, and what an answer teaches the table of
 * learned addresses (hostaddrs.h).  The stub process, its sockets and the
 * socket swap are not here.
 */
#ifndef LLW_HOSTDNS_H
#define LLW_HOSTDNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns.h"
#include "hostrule.h"
#include "hostaddrs.h"
#include "refusal.h"

enum hostdns_action {
	HOSTDNS_FORWARD, /* ask the resolvers, answer with their answer */
	HOSTDNS_ANSWER,	 /* answer with reply[0..reply_len), ask no one */
	HOSTDNS_DROP,	 /* not a query at all: no answer */
};

struct hostdns_verdict {
	enum hostdns_action action;
	int rule;	       /* the allow-host entry naming it; -1: none */
	const char *reason;    /* for the log when not forwarded:
				* "not in allow-host", ... */
	enum refusal log_rule; /* and the refusal its log line names:
				* REFUSAL_HOST, REFUSAL_DNS_TYPE,
				* REFUSAL_DNS_MALFORMED */
	size_t reply_len;
};

/* Whether rule is one a verdict's log_rule can be. */
bool hostdns_log_rule_known(enum refusal rule);

/*
 * Decide the query buf[0..len) (read into *q) under rules (n of them,
 * the policy's hosts).  A query for a name an entry names (on any port)
 * of type A, AAAA or CNAME, class IN, is forwarded.  Any other name is
 * answered REFUSED ("not in allow-host"); another type for an allowed
 * name is answered with no records (NOERROR, "type not forwarded"); a
 * malformed query whose header and question can be echoed is answered
 * FORMERR, else dropped ("malformed").  reply: at least 512 bytes.
 */
struct hostdns_verdict hostdns_decide_query(const struct hostrule *rules,
					    size_t n, const uint8_t *buf,
					    size_t len, struct dns_question *q,
					    uint8_t *reply, size_t reply_size);

/*
 * Learn the addresses of answer a (to a query forwarded under entry
 * rule) into t at now.  An address on this host or its networks
 * (netpolicy_addr_local, or own(ctx, addr) when own is set) is not
 * learned: a connect there needs an allow-cidr entry (rebinding); those
 * go to refused (at most max_refused, their number in *n_refused).
 * Returns the number learned.
 */
size_t hostdns_learn(struct hostaddrs *t, const struct dns_answer *a,
		     uint16_t rule, uint64_t now,
		     bool (*own)(void *ctx, const struct netpolicy_addr *a),
		     void *ctx, struct netpolicy_addr *refused,
		     size_t max_refused, size_t *n_refused);

/* An address /etc/hosts gives to a name an allow-host entry names. */
struct hostdns_fixed {
	struct netpolicy_addr addr; /* port 0 */
	uint16_t rule;
};
/*
 * The addresses the text of /etc/hosts gives names that rules (n of
 * them) name, each (address, entry) once, in file order, at most max
 * into out; names are compared in lower case, without a trailing dot.
 * What is local is the caller's to refuse.  Returns how many.
 */
size_t hostdns_hosts_file(const struct hostrule *rules, size_t n,
			  const char *text, struct hostdns_fixed *out,
			  size_t max);
/*
 * The wildcard label channel: a query for LABEL.NAME under a one-label
 * wildcard *.NAME leaves the machine with a label the command chose (63
 * bytes of its own a query).  Each wildcard entry gets a budget of
 * distinct new labels a minute; a label seen before (the most recent
 * HOSTDNS_LABELS_SEEN of the entry's) costs nothing, one past the budget
 * is answered REFUSED at once and logged (filtered/dns-budget).  Pure:
 * now in seconds.
 */
#define HOSTDNS_LABELS_PER_MIN 20
#define HOSTDNS_LABELS_SEEN    256

struct hostdns_budget;

struct hostdns_budget *hostdns_budget_new(size_t n_rules);
void hostdns_budget_free(struct hostdns_budget *b);

/* Whether a forwarded query for name under entry rule may go (and count
 * it): true for an entry that is not a wildcard. */
bool hostdns_budget_take(struct hostdns_budget *b, const struct hostrule *rules,
			 size_t n, int rule, const char *name, uint64_t now);

#endif /* LLW_HOSTDNS_H */
