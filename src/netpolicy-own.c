/*
 * The sandbox's own sockets (netpolicy.h, struct netpolicy_own): the
 * IP sockets it bound, by cookie, the loopback ports moved to a port of
 * the kernel's choosing, the pathname and abstract unix sockets it
 * bound, and whether a destination or a connection reaches one of them
 * alone.  Pure, as netpolicy.c: the supervisor records what the kernel
 * told it and asks.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "netpolicy.h"

/* The index of cookie's entry, or -1. */
static ssize_t
own_ip_find(const struct netpolicy_own *o, uint64_t cookie)
{
	for (size_t i = 0; i < o->n_ip; i++)
		if (o->ip[i] == cookie)
			return (ssize_t)i;
	return -1;
}

void
netpolicy_own_add_ip(struct netpolicy_own *o, uint64_t cookie, bool shares)
{
	ssize_t i = own_ip_find(o, cookie);

	if (i >= 0) { /* bound, then listening */
		o->ip_shares[i] |= shares;
		return;
	}
	o->ip[o->next_ip] = cookie;
	o->ip_shares[o->next_ip] = shares;
	o->next_ip = (o->next_ip + 1) % NETPOLICY_MAX_OWN;
	if (o->n_ip < NETPOLICY_MAX_OWN)
		o->n_ip++;
}

bool
netpolicy_own_has_ip(const struct netpolicy_own *o, uint64_t cookie)
{
	return own_ip_find(o, cookie) >= 0;
}

bool
netpolicy_own_ip_shares(const struct netpolicy_own *o, uint64_t cookie)
{
	ssize_t i = own_ip_find(o, cookie);

	return i < 0 || o->ip_shares[i];
}

bool
netpolicy_sock_reaches(const struct netpolicy_addr *bound,
		       const struct netpolicy_addr *dest)
{
	if (bound->port != dest->port)
		return false;
	if (netpolicy_addr_same(bound, dest))
		return true;
	return netpolicy_addr_unspecified(bound) &&
	       (bound->family == dest->family || bound->family == AF_INET6);
}

bool
netpolicy_port_shared(const struct netpolicy_own *o, uint64_t self,
		      const struct netpolicy_sock *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].cookie != self &&
		    !netpolicy_own_has_ip(o, v[i].cookie))
			return true;
	return false;
}

bool
netpolicy_dest_own(const struct netpolicy_own *o,
		   const struct netpolicy_addr *dest,
		   const struct netpolicy_sock *v, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (!netpolicy_sock_reaches(&v[i].addr, dest))
			continue;
		if (!netpolicy_own_has_ip(o, v[i].cookie))
			return false;
		any = true;
	}
	return any;
}

void
netpolicy_own_add_private(struct netpolicy_own *o,
			  const struct netpolicy_addr *asked, uint16_t port,
			  uint64_t cookie)
{
	struct netpolicy_private *p = &o->priv[o->next_priv];

	p->asked = *asked;
	p->port = port;
	p->cookie = cookie;
	o->next_priv = (o->next_priv + 1) % NETPOLICY_MAX_PRIVATE;
	if (o->n_priv < NETPOLICY_MAX_PRIVATE)
		o->n_priv++;
}

const struct netpolicy_private *
netpolicy_own_private(const struct netpolicy_own *o,
		      const struct netpolicy_addr *dest)
{
	/* The most recent first: a port asked for again after its
	 * listener went is the newer listener's. */
	for (size_t k = 0; k < o->n_priv; k++) {
		size_t i = (o->next_priv + NETPOLICY_MAX_PRIVATE - 1 - k) %
			   NETPOLICY_MAX_PRIVATE;
		const struct netpolicy_private *p = &o->priv[i];

		if (p->asked.port == dest->port &&
		    netpolicy_addr_same(&p->asked, dest))
			return p;
	}
	return NULL;
}

void
netpolicy_own_add_unix(struct netpolicy_own *o,
		       const struct netpolicy_own_unix *u)
{
	for (size_t i = 0; i < o->n_unix; i++)
		if (o->unix_[i].cookie == u->cookie)
			return; /* bound, then listening */
	o->unix_[o->next_unix] = *u;
	o->next_unix = (o->next_unix + 1) % NETPOLICY_MAX_OWN;
	if (o->n_unix < NETPOLICY_MAX_OWN)
		o->n_unix++;
}

bool
netpolicy_own_unix_candidate(const struct netpolicy_own_unix *u,
			     const struct netpolicy_unix_dest *d)
{
	if (d->abstract)
		return u->abstract && u->len == d->len &&
		       memcmp(u->name, d->name, d->len) == 0;
	return !u->abstract && u->dev == d->dev && u->vfs_ino == d->ino;
}

bool
netpolicy_own_unix_current(const struct netpolicy_unix_dest *d,
			   const struct netpolicy_unix *now)
{
	if (d->abstract)
		return now->abstract && now->name_len == d->len &&
		       memcmp(now->name, d->name, d->len) == 0;
	return now->has_vfs && now->vfs_dev == d->dev &&
	       now->vfs_ino == (uint32_t)d->ino;
}
