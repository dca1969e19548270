/*
 * learned: the addresses allowed names resolved to.  See learned.h.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "learned.h"
#include "xalloc.h"

#define BUCKETS 16384u /* a power of two, above LEARNED_MAX */

/* 48 bytes an address: the table is the supervisor's largest part
 * (DESIGN.md §6.1 budgets its memory). */
struct entry {
	uint32_t expires[LEARNED_ENTRIES]; /* seconds of the caller's clock */
	int32_t next; /* in the bucket's chain; -1 ends it */
	uint16_t rule[LEARNED_ENTRIES];
	uint8_t a[16];
	uint8_t v6; /* a is an IPv6 address (else its first 4 bytes) */
	uint8_t n;
};

struct learned {
	struct entry *v;
	uint32_t n, cap;
	int32_t head[BUCKETS];
};

struct learned *
learned_new(void)
{
	struct learned *t = xcalloc(1, sizeof(*t));

	for (size_t i = 0; i < BUCKETS; i++)
		t->head[i] = -1;
	return t;
}

void
learned_free(struct learned *t)
{
	if (t == NULL)
		return;
	free(t->v);
	free(t);
}

static uint32_t
bucket(bool v6, const uint8_t *a)
{
	uint32_t h = 2166136261u ^ (uint32_t)v6;

	for (size_t i = 0; i < 16; i++)
		h = (h ^ a[i]) * 16777619u;
	return h & (BUCKETS - 1);
}

static bool
same(const struct entry *e, const struct netpolicy_addr *a)
{
	return e->v6 == (a->family == AF_INET6) &&
	       memcmp(e->a, a->a, sizeof(e->a)) == 0;
}

static int32_t
find(const struct learned *t, const struct netpolicy_addr *a)
{
	for (int32_t i = t->head[bucket(a->family == AF_INET6, a->a)]; i >= 0;
	     i = t->v[i].next)
		if (same(&t->v[i], a))
			return i;
	return -1;
}

static uint32_t
last_expiry(const struct entry *e)
{
	uint32_t m = 0;

	for (size_t i = 0; i < e->n; i++)
		if (e->expires[i] > m)
			m = e->expires[i];
	return m;
}

/* The entry for a new address: a fresh one, or when the table is full
 * the one whose last entry expires first, unlinked. */
static int32_t
take(struct learned *t)
{
	int32_t victim = 0;
	int32_t *link;

	if (t->n < LEARNED_MAX) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 64;
			if (t->cap > LEARNED_MAX)
				t->cap = LEARNED_MAX;
			t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
		}
		return (int32_t)t->n++;
	}
	for (uint32_t i = 1; i < t->n; i++)
		if (last_expiry(&t->v[i]) < last_expiry(&t->v[victim]))
			victim = (int32_t)i;
	for (link = &t->head[bucket(t->v[victim].v6, t->v[victim].a)];
	     *link != victim; link = &t->v[*link].next)
		;
	*link = t->v[victim].next;
	return victim;
}

void
learned_add(struct learned *t, const struct netpolicy_addr *a, uint16_t rule,
	    uint32_t ttl, uint64_t now)
{
	uint32_t expires;
	struct entry *e;
	int32_t i = find(t, a);
	size_t s, soonest = 0;

	if (ttl < LEARNED_TTL_FLOOR)
		ttl = LEARNED_TTL_FLOOR;
	if (ttl > LEARNED_TTL_CAP)
		ttl = LEARNED_TTL_CAP;
	expires = (uint32_t)(now + ttl);
	if (i < 0) {
		uint32_t b = bucket(a->family == AF_INET6, a->a);

		i = take(t);
		e = &t->v[i];
		memset(e, 0, sizeof(*e));
		e->v6 = a->family == AF_INET6;
		memcpy(e->a, a->a, sizeof(e->a));
		e->next = t->head[b];
		t->head[b] = i;
	}
	e = &t->v[i];
	for (s = 0; s < e->n; s++) {
		if (e->rule[s] == rule) {
			if (expires > e->expires[s])
				e->expires[s] = expires;
			return;
		}
		if (e->expires[s] < e->expires[soonest])
			soonest = s;
	}
	if (e->n < LEARNED_ENTRIES)
		s = e->n++;
	else
		s = soonest;
	e->rule[s] = rule;
	e->expires[s] = expires;
}

enum hostrule_verdict
learned_decide(const struct learned *t, const struct hostrule *rules, size_t n,
	       const struct llw_ports *default_ports,
	       const struct netpolicy_addr *a, uint64_t now, int *rule)
{
	enum hostrule_verdict ret = HOSTRULE_UNLISTED;
	int32_t i = find(t, a);

	*rule = -1;
	for (size_t s = 0; i >= 0 && s < t->v[i].n; s++) {
		const struct entry *e = &t->v[i];

		if (e->expires[s] <= now || e->rule[s] >= n)
			continue;
		if (hostrule_port(&rules[e->rule[s]], default_ports, a->port)) {
			*rule = e->rule[s];
			return HOSTRULE_ALLOWED;
		}
		if (ret == HOSTRULE_UNLISTED)
			*rule = e->rule[s];
		ret = HOSTRULE_PORT;
	}
	return ret;
}

size_t
learned_count(const struct learned *t, uint64_t now)
{
	size_t c = 0;

	for (uint32_t i = 0; i < t->n; i++)
		if (last_expiry(&t->v[i]) > now)
			c++;
	return c;
}

size_t
learned_memory(const struct learned *t)
{
	return sizeof(*t) + (size_t)t->cap * sizeof(*t->v);
}
