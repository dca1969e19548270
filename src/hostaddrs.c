/*
 * hostaddrs: the addresses allowed names resolved to.  See hostaddrs.h.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hostaddrs.h"
#include "xalloc.h"

#define BUCKETS 8192u /* a power of two; chains of 1.2 pairs when full */

/*
 * One pair (address, allow-host entry) in 16 bytes: the table is the
 * supervisor's largest part (DESIGN.md §6.1 budgets its memory).  An
 * IPv6 address lives beside it, in v6[] at the same index; key is then
 * a hash of it.  Both arrays are allocated whole at first use and
 * never grow: their pages are resident only once written.
 */
struct entry {
	uint32_t key;	  /* the IPv4 address (its bytes), or a hash */
	int32_t next;	  /* in the bucket's chain; -1 ends it */
	uint32_t expires; /* seconds of the caller's clock */
	uint16_t rule;
	uint8_t v6;
	uint8_t unused;
};

struct hostaddrs {
	struct entry *v;
	uint8_t (*v6)[16];
	uint32_t n;
	int32_t head[BUCKETS];
};

struct hostaddrs *
hostaddrs_new(void)
{
	struct hostaddrs *t = xcalloc(1, sizeof(*t));

	for (size_t i = 0; i < BUCKETS; i++)
		t->head[i] = -1;
	return t;
}

void
hostaddrs_free(struct hostaddrs *t)
{
	if (t == NULL)
		return;
	free(t->v);
	free(t->v6);
	free(t);
}

static uint32_t
key_of(const struct netpolicy_addr *a)
{
	uint32_t h = 2166136261u;

	if (a->family != AF_INET6) {
		memcpy(&h, a->a, sizeof(h));
		return h;
	}
	for (size_t i = 0; i < 16; i++)
		h = (h ^ a->a[i]) * 16777619u;
	return h;
}

static uint32_t
bucket(uint32_t key)
{
	return (key * 2654435761u) >> 19; /* 13 bits: BUCKETS */
}

static bool
same(const struct hostaddrs *t, int32_t i, const struct netpolicy_addr *a,
     uint32_t key)
{
	const struct entry *e = &t->v[i];

	if (e->key != key || e->v6 != (a->family == AF_INET6))
		return false;
	return !e->v6 || memcmp(t->v6[i], a->a, 16) == 0;
}

/* The address of pair i. */
static struct netpolicy_addr
address_of(const struct hostaddrs *t, int32_t i)
{
	struct netpolicy_addr a = { .family = t->v[i].v6 ? AF_INET6 : AF_INET };

	if (t->v[i].v6)
		memcpy(a.a, t->v6[i], sizeof(t->v6[i]));
	else
		memcpy(a.a, &t->v[i].key, sizeof(t->v[i].key));
	return a;
}

/* The entry to fill: a fresh one, or when the table is full the pair
 * that expires first, unlinked from its chain. */
static int32_t
take(struct hostaddrs *t)
{
	int32_t victim = 0;
	int32_t *link;

	if (t->v == NULL)
		t->v = xcalloc(HOSTADDRS_MAX, sizeof(*t->v));
	if (t->n < HOSTADDRS_MAX)
		return (int32_t)t->n++;
	for (uint32_t i = 1; i < t->n; i++)
		if (t->v[i].expires < t->v[victim].expires)
			victim = (int32_t)i;
	for (link = &t->head[bucket(t->v[victim].key)]; *link != victim;
	     link = &t->v[*link].next)
		;
	*link = t->v[victim].next;
	return victim;
}

void
hostaddrs_add(struct hostaddrs *t, const struct netpolicy_addr *a,
	      uint16_t rule, uint32_t ttl, uint64_t now)
{
	uint32_t key = key_of(a), b = bucket(key), expires;
	int32_t soonest = -1, *tail;
	size_t held = 0;
	int32_t i;

	if (ttl < HOSTADDRS_TTL_FLOOR)
		ttl = HOSTADDRS_TTL_FLOOR;
	if (ttl > HOSTADDRS_TTL_CAP)
		ttl = HOSTADDRS_TTL_CAP;
	expires = (uint32_t)(now + ttl);
	for (i = t->head[b]; i >= 0; i = t->v[i].next) {
		if (!same(t, i, a, key))
			continue;
		if (t->v[i].rule == rule) {
			if (expires > t->v[i].expires)
				t->v[i].expires = expires;
			return;
		}
		if (soonest < 0 || t->v[i].expires < t->v[soonest].expires)
			soonest = i;
		held++;
	}
	/* HOSTADDRS_ENTRIES pairs for this address: the first to expire
	 * makes room. */
	if (held >= HOSTADDRS_ENTRIES) {
		t->v[soonest].rule = rule;
		t->v[soonest].expires = expires;
		return;
	}
	/* At the chain's end: the pairs of an address in the order they
	 * were learned, the first named first. */
	i = take(t);
	/* (take() may have unlinked a pair of this chain.) */
	for (tail = &t->head[b]; *tail >= 0; tail = &t->v[*tail].next)
		;
	t->v[i] = (struct entry){ .key = key,
				  .next = -1,
				  .expires = expires,
				  .rule = rule,
				  .v6 = a->family == AF_INET6 };
	if (t->v[i].v6) {
		if (t->v6 == NULL)
			t->v6 = xcalloc(HOSTADDRS_MAX, sizeof(*t->v6));
		memcpy(t->v6[i], a->a, 16);
	}
	*tail = i;
}

enum hostrule_verdict
hostaddrs_decide(const struct hostaddrs *t, const struct hostrule *rules,
		 size_t n, const struct llw_ports *default_ports,
		 const struct netpolicy_addr *a, uint64_t now, int *rule)
{
	enum hostrule_verdict ret = HOSTRULE_UNLISTED;
	uint32_t key = key_of(a);

	*rule = -1;
	for (int32_t i = t->head[bucket(key)]; i >= 0; i = t->v[i].next) {
		const struct entry *e = &t->v[i];

		if (!same(t, i, a, key) || e->expires <= now || e->rule >= n)
			continue;
		if (hostrule_port(&rules[e->rule], default_ports, a->port)) {
			*rule = e->rule;
			return HOSTRULE_ALLOWED;
		}
		if (ret == HOSTRULE_UNLISTED)
			*rule = e->rule;
		ret = HOSTRULE_PORT;
	}
	return ret;
}

size_t
hostaddrs_entries(const struct hostaddrs *t, const struct hostrule *rules,
		  size_t n, const struct llw_ports *default_ports,
		  const struct netpolicy_addr *a, uint64_t now, uint16_t *out,
		  size_t max)
{
	uint32_t key = key_of(a);
	size_t k = 0;

	for (int32_t i = t->head[bucket(key)]; i >= 0 && k < max;
	     i = t->v[i].next) {
		const struct entry *e = &t->v[i];

		if (same(t, i, a, key) && e->expires > now && e->rule < n &&
		    hostrule_port(&rules[e->rule], default_ports, a->port))
			out[k++] = e->rule;
	}
	return k;
}

size_t
hostaddrs_count(const struct hostaddrs *t, uint64_t now)
{
	size_t c = 0;

	/* Each address once: at its first unexpired pair in its chain. */
	for (uint32_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->v[i];
		struct netpolicy_addr a;
		int32_t j;

		if (e->expires <= now)
			continue;
		a = address_of(t, (int32_t)i);
		for (j = t->head[bucket(e->key)];
		     j >= 0 &&
		     !(t->v[j].expires > now && same(t, j, &a, e->key));
		     j = t->v[j].next)
			;
		c += j == (int32_t)i;
	}
	return c;
}

size_t
hostaddrs_memory(const struct hostaddrs *t)
{
	return sizeof(*t) + (t->v ? HOSTADDRS_MAX * sizeof(*t->v) : 0) +
	       (t->v6 ? HOSTADDRS_MAX * sizeof(*t->v6) : 0);
}
