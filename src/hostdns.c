/*
 * hostdns: the stub resolver's decisions.  See hostdns.h.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "hostdns.h"
#include "xalloc.h"

/* A query whose header and question are whole, though not one
 * dns_query_parse accepts: its question echoed with FORMERR. */
static size_t
formerr(const uint8_t *buf, size_t len, uint8_t *reply, size_t size)
{
	size_t off = DNS_HEADER_LEN;

	if (len < DNS_HEADER_LEN || (buf[2] & 0x80) || buf[4] != 0 ||
	    buf[5] != 1)
		return 0;
	while (off < len && buf[off] != 0 && buf[off] < 64)
		off += 1u + buf[off];
	if (off >= len || buf[off] != 0 || off + 5 > len || off + 5 > size)
		return 0;
	memcpy(reply, buf, off + 5);
	reply[2] = (uint8_t)(0x80 | (buf[2] & 0x79)); /* QR; opcode, RD */
	reply[3] = 0x80 | DNS_RCODE_FORMERR;
	memset(reply + 6, 0, 6);
	return off + 5;
}

bool
hostdns_log_rule_known(enum refusal rule)
{
	return rule == REFUSAL_HOST || rule == REFUSAL_DNS_TYPE ||
	       rule == REFUSAL_DNS_MALFORMED || rule == REFUSAL_DNS_BUDGET;
}

/* One wildcard entry's budget: the minute it counts in, the new labels
 * counted there, and the labels seen (hashed), most recent last. */
struct label_budget {
	uint64_t minute;
	unsigned used;
	uint64_t seen[HOSTDNS_LABELS_SEEN];
	size_t n_seen, next;
};

struct hostdns_budget {
	size_t n;
	struct label_budget *v; /* one per entry, allocated when used */
};

struct hostdns_budget *
hostdns_budget_new(size_t n_rules)
{
	struct hostdns_budget *b = xcalloc(1, sizeof(*b));

	b->n = n_rules;
	b->v = xcalloc(n_rules ? n_rules : 1, sizeof(*b->v));
	return b;
}

void
hostdns_budget_free(struct hostdns_budget *b)
{
	if (b == NULL)
		return;
	free(b->v);
	free(b);
}

bool
hostdns_budget_take(struct hostdns_budget *b, const struct hostrule *rules,
		    size_t n, int rule, const char *name, uint64_t now)
{
	struct label_budget *lb;
	uint64_t h = 14695981039346656037ull;

	if (rule < 0 || (size_t)rule >= n || (size_t)rule >= b->n ||
	    !rules[rule].wildcard)
		return true;
	lb = &b->v[rule];
	/* The label the wildcard stands for: up to the first dot. */
	for (const char *c = name; *c != '\0' && *c != '.'; c++)
		h = (h ^ (uint8_t)tolower((unsigned char)*c)) *
		    1099511628211ull;
	for (size_t i = 0; i < lb->n_seen; i++)
		if (lb->seen[i] == h)
			return true;
	if (now / 60 != lb->minute) {
		lb->minute = now / 60;
		lb->used = 0;
	}
	if (lb->used >= HOSTDNS_LABELS_PER_MIN)
		return false;
	lb->used++;
	lb->seen[lb->next] = h;
	lb->next = (lb->next + 1) % HOSTDNS_LABELS_SEEN;
	if (lb->n_seen < HOSTDNS_LABELS_SEEN)
		lb->n_seen++;
	return true;
}

struct hostdns_verdict
hostdns_decide_query(const struct hostrule *rules, size_t n, const uint8_t *buf,
		     size_t len, struct dns_question *q, uint8_t *reply,
		     size_t reply_size)
{
	struct hostdns_verdict v = { .action = HOSTDNS_DROP,
				     .rule = -1,
				     .reason = "malformed",
				     .log_rule = REFUSAL_DNS_MALFORMED };
	int r;

	if (dns_query_parse(buf, len, q) < 0) {
		v.reply_len = formerr(buf, len, reply, reply_size);
		if (v.reply_len > 0)
			v.action = HOSTDNS_ANSWER;
		return v;
	}
	for (size_t i = 0; i < n && v.rule < 0; i++)
		if (hostrule_names(&rules[i], q->name))
			v.rule = (int)i;
	if (v.rule < 0) {
		v.reason = "not in allow-host";
		v.log_rule = REFUSAL_HOST;
		r = dns_error_build(q, buf + DNS_HEADER_LEN,
				    q->end - DNS_HEADER_LEN, DNS_RCODE_REFUSED,
				    reply, reply_size);
	} else {
		if (q->qclass == DNS_CLASS_IN &&
		    (q->type == DNS_TYPE_A || q->type == DNS_TYPE_AAAA ||
		     q->type == DNS_TYPE_CNAME)) {
			v.action = HOSTDNS_FORWARD;
			v.reason = NULL;
			v.log_rule = REFUSAL_NONE;
			return v;
		}
		v.reason = "type not forwarded";
		v.log_rule = REFUSAL_DNS_TYPE;
		r = dns_error_build(q, buf + DNS_HEADER_LEN,
				    q->end - DNS_HEADER_LEN, DNS_RCODE_NOERROR,
				    reply, reply_size);
	}
	if (r > 0) {
		v.action = HOSTDNS_ANSWER;
		v.reply_len = (size_t)r;
	}
	return v;
}

size_t
hostdns_learn(struct hostaddrs *t, const struct dns_answer *a, uint16_t rule,
	      uint64_t now,
	      bool (*own)(void *ctx, const struct netpolicy_addr *a), void *ctx,
	      struct netpolicy_addr *refused, size_t max_refused,
	      size_t *n_refused)
{
	size_t learned = 0;

	*n_refused = 0;
	if (a->rcode != DNS_RCODE_NOERROR)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct netpolicy_addr *x = &a->v[i].addr;

		if (netpolicy_addr_local(x) || (own != NULL && own(ctx, x))) {
			if (*n_refused < max_refused)
				refused[(*n_refused)++] = *x;
			continue;
		}
		hostaddrs_add(t, x, rule, a->v[i].ttl, now);
		learned++;
	}
	return learned;
}

size_t
hostdns_hosts_file(const struct hostrule *rules, size_t n, const char *text,
		   struct hostdns_fixed *out, size_t max)
{
	size_t k = 0;

	while (text != NULL && *text != '\0') {
		size_t len = strcspn(text, "\n");
		_cleanup_free_ char *line = xstrndup(text, len);
		char *save = NULL, *tok, *hash = strchr(line, '#');
		struct netpolicy_addr a;

		text += len + (text[len] == '\n');
		if (hash != NULL)
			*hash = '\0';
		tok = strtok_r(line, " \t\r", &save);
		if (tok == NULL || value_ip(tok, &a, NULL) < 0)
			continue;
		while ((tok = strtok_r(NULL, " \t\r", &save)) != NULL) {
			size_t tl = strlen(tok);

			if (tl > 1 && tok[tl - 1] == '.')
				tok[tl - 1] = '\0';
			for (char *c = tok; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			for (size_t i = 0; i < n && i <= UINT16_MAX; i++) {
				bool seen = false;

				if (!hostrule_names(&rules[i], tok))
					continue;
				for (size_t j = 0; j < k; j++)
					seen |= out[j].rule == i &&
						netpolicy_addr_same(
							&out[j].addr, &a);
				if (!seen && k < max)
					out[k++] = (struct hostdns_fixed){
						.addr = a, .rule = (uint16_t)i
					};
			}
		}
	}
	return k;
}
