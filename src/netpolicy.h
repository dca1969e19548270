/*
 * The network policy as typed values, and the decisions made with them
 * (DESIGN.md §6): the decision on a connect, send, bind or listen with the name
 * of the rule that refused it, the identity of the sandbox's own
 * sockets, the blocked-attempt log's rate limit and lines.
 *
 * Pure: no system calls.  What only the kernel can tell (which socket an
 * address reaches, what a socket is bound to now) reaches a decision as
 * values, or through struct netpolicy_lookup; the time is passed in.
 * supervise.c asks and applies the answer; why.c asks the same questions
 * for `llwrap why`; tests/unit/test-netpolicy.c drives it with tables.
 */
#ifndef LLW_NETPOLICY_H
#define LLW_NETPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "refusal.h"
#include "value.h"

struct plan_conf;
struct policy;

/* What the kernel says of a unix socket that still exists
 * (sockdiag_unix). */
struct netpolicy_unix {
	bool has_vfs; /* bound to a path: the inode it made */
	uint32_t vfs_ino;
	dev_t vfs_dev;
	size_t name_len; /* abstract: the name without its leading NUL */
	char name[108];
	bool abstract;
};

/*
 * True when p has rules only the supervisor can enforce: allow-cidr,
 * unix, listen, dns, proxy = yes or supervise = yes.
 */
bool netpolicy_needs_supervisor(const struct policy *p);

/* True when p sends names through the proxy: proxy = yes, or allow-host
 * entries (DESIGN.md §6.1, design (b)), in mode filtered. */
bool netpolicy_proxy_enabled(const struct policy *p);

/*
 * True when no name resolves in the sandbox but those /etc/hosts gives:
 * no network at all, or a filtered one where neither the supervisor
 * (supervised: it lets DNS reach the resolvers, or answers allow-host's
 * names) nor a UDP port 53 rule lets a query out.
 */
bool netpolicy_names_closed(const struct policy *p, bool supervised);

/*
 * Set in the command's environment when no name resolves, unless it has
 * them already: npm retries a failed fetch for 71 s and pip for 9 s,
 * and no retry can succeed (DESIGN.md §12).  NULL-terminated.
 */
extern const char *const netpolicy_closed_environ[];

/*
 * The notes printed before the command starts (DESIGN.md §12) about a
 * network the command is likely to trip over, from the plan's
 * configuration c (planconf.h: names_closed as the planner decided it
 * for the run's supervisor), each naming the flag that
 * opens it: ports are open but no name resolves; an allow-host entry
 * reaches no port; and with closed (the caller's choice: on a terminal),
 * that no name resolves and no port is open.  None when the user closed
 * the network on purpose (mode = none).  A new vector, NULL for none.
 */
char **netpolicy_notes(const struct plan_conf *c, bool closed);

/* ---- Addresses (their grammar is value.h's) ---- */

/*
 * Read a sockaddr of len bytes as an IP destination; an IPv4-mapped
 * IPv6 address becomes AF_INET.  Returns 0, or -EINVAL (too short) or
 * -EAFNOSUPPORT (not AF_INET or AF_INET6).
 */
int netpolicy_addr_from_sockaddr(const void *sa, size_t len,
				 struct netpolicy_addr *a);

/* The sockaddr_in or sockaddr_in6 of a (its address and port) in ss, and
 * its length. */
void netpolicy_addr_to_sockaddr(const struct netpolicy_addr *a,
				struct sockaddr_storage *ss, socklen_t *len);

/* True when a lies inside c's prefix (ports are not looked at). */
bool netpolicy_cidr_contains(const struct netpolicy_cidr *c,
			     const struct netpolicy_addr *a);

/* Whether x and y are the same address (ports are not looked at). */
bool netpolicy_addr_same(const struct netpolicy_addr *x,
			 const struct netpolicy_addr *y);
/* Whether a is a loopback address (127/8, ::1). */
bool netpolicy_addr_loopback(const struct netpolicy_addr *a);
/* Whether a is the unspecified address of its family (0.0.0.0, ::). */
bool netpolicy_addr_unspecified(const struct netpolicy_addr *a);

/*
 * As a destination, the unspecified address (0.0.0.0, ::) reaches this
 * host's loopback: make it 127.0.0.1 or ::1, which every rule then sees.
 */
void netpolicy_addr_destination(struct netpolicy_addr *a);

/*
 * Whether a is this host or one of its networks by its class alone:
 * loopback, unspecified, RFC 1918, link-local, CGNAT (100.64/10),
 * multicast and broadcast, ULA (fc00::/7), fe80::/10, and the NAT64 form
 * of any of these.  A port rule never reaches these; the decision also
 * asks the lookup (host_local) for this host's other addresses and
 * on-link prefixes.
 */
bool netpolicy_addr_local(const struct netpolicy_addr *a);

/*
 * The IPv4 address that a, an address of NAT64's well-known prefix
 * 64:ff9b::/96 (RFC 6052), stands for, in *v4 (port kept); false when a
 * is not one.  netpolicy_addr_local and netpolicy_prefixes_hold see
 * through it: the NAT64 form of a local address is local.
 */
bool netpolicy_nat64(const struct netpolicy_addr *a, struct netpolicy_addr *v4);

/* A prefix of this host's: one of its interface addresses (len 32 or
 * 128), or the network on the link that address is on. */
struct netpolicy_prefix {
	struct netpolicy_addr net;
	unsigned len;
};

/*
 * Whether a is inside one of the n prefixes, or is the NAT64 form of
 * an address that is.  What the supervisor and the proxy hold as "this
 * host and its networks" beyond netpolicy_addr_local's fixed classes
 * (the host's own global addresses, on-link neighbours with global
 * addresses), read from the kernel by sockdiag_host_local.
 */
bool netpolicy_prefixes_hold(const struct netpolicy_prefix *v, size_t n,
			     const struct netpolicy_addr *a);

/*
 * The DNS servers, a new array of *n (NULL when none): p's typed dns
 * entries, or when it has none the nameserver lines of resolv_conf (the
 * text of /etc/resolv.conf; NULL: none), each once.
 */
struct netpolicy_addr *netpolicy_resolvers(const struct policy *p,
					   const char *resolv_conf, size_t *n);

/* The same from set, the n_set servers a policy names (none: those of
 * resolv_conf). */
struct netpolicy_addr *netpolicy_resolvers_of(const struct netpolicy_addr *set,
					      size_t n_set,
					      const char *resolv_conf,
					      size_t *n);

/* ---- The decision ---- */

enum netpolicy_op {
	NETPOLICY_CONNECT,
	NETPOLICY_SEND, /* sendto, sendmsg, sendmmsg with a destination */
	NETPOLICY_BIND,
	NETPOLICY_LISTEN, /* listen() on an unbound socket binds port 0 */
	NETPOLICY_QUERY,  /* a DNS query llwrap's resolver answered itself
			   * (logged only; its target is the name) */
};

enum netpolicy_proto {
	NETPOLICY_TCP,
	NETPOLICY_UDP,
	NETPOLICY_UNIX,
};

/* "connect", "sendto", "bind", "listen", "dns-query"; "tcp", "udp",
 * "unix". */
const char *netpolicy_op_name(enum netpolicy_op op);
const char *netpolicy_proto_name(enum netpolicy_proto proto);

/* One IP operation to decide on. */
struct netpolicy_query {
	enum netpolicy_op op;
	enum netpolicy_proto proto; /* NETPOLICY_TCP or NETPOLICY_UDP */
	/* A destination made by netpolicy_addr_destination, or a bind
	 * address by netpolicy_bind_address. */
	struct netpolicy_addr addr;
	/* CLOCK_MONOTONIC, in nanoseconds, when the call was made: what a
	 * lookup judges time-limited state by (addresses the proxy
	 * learned for a name live as long as their DNS answer). */
	uint64_t now_ns;
	/* The address is not known, only that a name gave it (why's
	 * question "HOST:PORT" without allow-host): decided as an
	 * internet address outside every allow-cidr entry; addr holds the
	 * port alone.  The supervisor always knows the address. */
	bool by_name;
};

/*
 * What a decision asks of the world outside the rules.  Each member may
 * be NULL (nothing known: the answer is no).  Rules are what the profile
 * says; a lookup is what the run learned since (a socket the sandbox
 * bound, an address a named host resolved to), kept by the caller.
 */
/* What the addresses learned for allow-host names say of a destination
 * (DESIGN.md §6.1, design (a)). */
enum netpolicy_named {
	NETPOLICY_NAMED_NO,	/* no allowed name resolves here */
	NETPOLICY_NAMED_PORT,	/* one does, not on this port */
	NETPOLICY_NAMED_YES,	/* one does, on this port */
	NETPOLICY_NAMED_REBIND, /* an allowed name's answer gave this local
				 * address, which was not learned */
};
struct netpolicy_lookup {
	/* Whether q->addr (a loopback destination) reaches a socket the
	 * sandbox bound itself: a TCP listener, or a bound UDP socket. */
	bool (*own_socket)(void *ctx, const struct netpolicy_query *q);
	/* With llwrap's resolver (netpolicy_rules_use_stub): what the
	 * names learned so far say of q->addr and its port. */
	enum netpolicy_named (*named)(void *ctx,
				      const struct netpolicy_query *q);
	/* Whether q->addr is one of this host's interface addresses or
	 * inside one of their on-link prefixes (netpolicy_prefixes_hold):
	 * local, as netpolicy_addr_local's classes are. */
	bool (*host_local)(void *ctx, const struct netpolicy_addr *a);
	/* A bind or listen of q->addr (a port other than 0): whether a
	 * socket the sandbox did not create holds that port, in either
	 * family and at any address (netpolicy_port_shared). */
	bool (*port_shared)(void *ctx, const struct netpolicy_query *q);
	void *ctx;
};

/* The compiled rules the supervisor decides with. */
struct netpolicy_rules;

/*
 * The rules of p (its typed allow-cidr, listen, port lists, network
 * mode, proxy), with resolvers the n_dns DNS servers port 53 may reach
 * (netpolicy_resolvers).  Nothing is parsed here: profile.c parsed
 * every value once, with value.h's grammars.
 */
struct netpolicy_rules *netpolicy_rules_new(const struct policy *p,
					    const struct netpolicy_addr *dns,
					    size_t n_dns);
void netpolicy_rules_free(struct netpolicy_rules *r);

/* A copy of r whose resolvers are the n_dns servers dns instead: the
 * supervisor's and the proxy's own, which they complete as they run. */
struct netpolicy_rules *netpolicy_rules_copy(const struct netpolicy_rules *r,
					     const struct netpolicy_addr *dns,
					     size_t n_dns);

/*
 * The network side of a run's plan (planner.h), decided once by the
 * planner from the policy (netpolicy_plan): what the supervisor and
 * llwrap's helpers (the resolver, the proxy, the relay) read, instead of
 * the policy.  hosts, cidrs and the port lists are the policy's typed
 * values, borrowed (the plan borrows the policy); the rest is the
 * plan's.
 */
struct net_plan {
	/* The compiled rules, without resolvers: each enforcer takes a
	 * copy with those of the run (netpolicy_rules_copy). */
	struct netpolicy_rules *rules;
	/* dns = ...'s servers; none: /etc/resolv.conf's, read at the run
	 * (netpolicy_resolvers_of). */
	struct netpolicy_addr *dns;
	size_t n_dns;
	const struct hostrule *hosts; /* allow-host */
	size_t n_hosts;
	const struct netpolicy_cidr *cidrs; /* allow-cidr */
	size_t n_cidrs;
	/* connect-tcp, connect-udp: a portless allow-host's ports */
	const struct llw_ports *connect_tcp, *connect_udp;
	char **unix_paths; /* unix = ...: the allow-list's paths */
	bool log_blocked;  /* log-blocked: the log and syslog */
	bool log_stderr;   /* log-stderr: the note on the caller's stderr */
	char *log_prefix;  /* the log lines' prefix (netpolicy_log_prefix) */
	char *name;	   /* the profile's name (netpolicy_log_path) */
};

/* The network side of p's plan, into np (net_plan_clear frees it). */
void netpolicy_plan(const struct policy *p, struct net_plan *np);
void net_plan_clear(struct net_plan *np);

/* The kind of rule that allowed an IP operation. */
enum netpolicy_by {
	NETPOLICY_BY_NONE,     /* refused */
	NETPOLICY_BY_MODE,     /* mode = host */
	NETPOLICY_BY_DNS,      /* port 53 to a resolver (index: dns) */
	NETPOLICY_BY_PROXY,    /* llwrap's proxy's listener */
	NETPOLICY_BY_CIDR,     /* an allow-cidr entry (index), on range */
	NETPOLICY_BY_PORTS,    /* key's port list, its entry range */
	NETPOLICY_BY_LISTEN,   /* a listen entry (index) */
	NETPOLICY_BY_NAME,     /* an allow-host name resolved there */
	NETPOLICY_BY_OWN,      /* a socket the sandbox bound */
	NETPOLICY_BY_AUTOBIND, /* a UDP client's own port, or a connect
				* to port 0 where some port is open */
};

/*
 * A decision (netpolicy_decide), read alike by the supervisor, its log
 * and `llwrap why`: allowed, or the refusal; the rule that decided,
 * by its key ("allow-cidr", "connect-tcp", "bind-udp", "listen",
 * "dns", "proxy", "allow-host", "mode") and, for an entry of a list,
 * its index in the policy's list (p->cidrs, p->listen_addrs,
 * the resolvers) and the port range that held the port; where the rule
 * was set.  The layer is the supervisor's (S), in its own right or
 * standing in for Landlock's port rules (stand_in: the policy does not
 * need the supervisor, the port lists mean what Landlock's would).
 * Pointers point into the rules.
 */
struct netpolicy_verdict {
	bool allowed;
	enum refusal refusal; /* REFUSAL_NONE when allowed */
	enum netpolicy_by by;
	bool stand_in;
	const char *key; /* NULL: the sandbox's own socket */
	size_t index;
	const struct llw_port_range *range; /* or NULL */
	const char *origin;		    /* or NULL */
};

/*
 * The decision for an IP operation: allowed, else the
 * refusal (refusal.h; by log name: "filtered/no-cidr", "filtered/port",
 * "filtered/net-port", "filtered/landlock-port", "filtered/local",
 * "filtered/dns", "filtered/listen", "filtered/bind-port",
 * "filtered/shared-port", "filtered/proxy", and with llwrap's resolver
 * "filtered/host-port", "filtered/unnamed", "filtered/rebind").
 *
 * Destinations (connect, send): port 53 only to a resolver; a
 * destination inside an allow-cidr entry on its ports (its own, or else
 * the policy's connect-tcp / connect-udp list; "filtered/port" when
 * none holds the port); outside every entry, a destination that is not
 * local (netpolicy_addr_local or lk->host_local, else "filtered/local")
 * on the port lists ("filtered/no-cidr" when there are entries, else
 * "filtered/net-port").  So entries add reach, and a profile that wants
 * only its entries has no connect ports.  A loopback destination refused
 * by these rules is allowed when it reaches a socket the sandbox bound
 * and nothing else (lk->own_socket).  A UDP connect to port 0 is
 * decided by netpolicy_quiet's rule.
 * Binds: a listen entry exactly, or port 0 on a listen address when
 * bind-tcp / bind-udp holds 0; otherwise loopback only
 * ("filtered/listen"): without listen entries on the bind port lists,
 * UDP port 0 always (what a send would autobind), and TCP on any port
 * when bind-tcp holds 0 (the sandbox's own servers, reachable from the
 * sandbox only: netpolicy_bind_published), on a port an unprivileged
 * process may bind (netpolicy_rules_set_unprivileged_start);
 * "filtered/bind-port" else.  A bind
 * allowed so far on a port a socket the sandbox did not create holds
 * (lk->port_shared) is "filtered/shared-port".  In net host mode, anything but
 * DNS outside the resolvers.  When the supervisor only stands in for Landlock's
 * port rules (the policy does not need it: !netpolicy_needs_supervisor), local
 * destinations and binds are decided by the port lists alone, as Landlock would
 * ("filtered/landlock-port", "filtered/bind-port").  With proxy = yes
 * (mode filtered), the proxy's address is reached, DNS is not
 * ("filtered/proxy"), and a destination neither local nor inside an
 * entry is "filtered/proxy": the port lists no longer reach it.
 *
 * lk may be NULL (no lookup).
 */
struct netpolicy_verdict netpolicy_decide(const struct netpolicy_rules *r,
					  const struct netpolicy_query *q,
					  const struct netpolicy_lookup *lk);

/* Whether ps (a port list) holds port: the one port match of the rules
 * and of what is said about them. */
bool netpolicy_ports_hold(const struct llw_ports *ps, uint16_t port);

/*
 * Whether a refusal of q is not reported (logged, noted): a UDP connect
 * to port 0, which sends nothing.  glibc's getaddrinfo makes one to each
 * address it returns, to learn the source address it would use and sort
 * them (RFC 6724), on every lookup.  netpolicy_decide performs it where
 * some port of the address is reachable (an allow-cidr entry holds it,
 * an allowed name resolved there, or a port rule reaches it), as then a
 * send to port 0 of it is no way out; elsewhere it is refused, quietly,
 * and getaddrinfo treats that address as unusable.
 */
bool netpolicy_quiet(const struct netpolicy_query *q);

/*
 * The origin of the allow-cidr entry that lets a TCP connect reach a
 * (a->port set; an entry without ports: the connect-tcp list), or NULL.
 * What the proxy asks for IP literals and rebinding (proxy.h).
 */
const char *netpolicy_cidr_allows(const struct netpolicy_rules *r,
				  const struct netpolicy_addr *a);

/*
 * proxy = yes: the address llwrap's proxy listens on, which TCP
 * connects may reach (before it is set, none).
 */
void netpolicy_rules_set_proxy(struct netpolicy_rules *r,
			       const struct netpolicy_addr *a);

/*
 * allow-host through llwrap's resolver (design (a), dnsstub.h) instead of
 * its proxy: port 53 reaches nothing (the supervisor swaps the sockets
 * of the resolvers' port 53 before any decision), and a destination
 * neither local nor inside an allow-cidr entry is reached when a name
 * allowed on that port resolved to it (lk->named): else
 * "filtered/host-port", or "filtered/unnamed" when no allowed name
 * resolves there; a local one an allowed name resolved to is
 * "filtered/rebind".
 */
void netpolicy_rules_use_stub(struct netpolicy_rules *r);
/*
 * The first port the kernel lets an unprivileged process bind (the
 * network namespace's net.ipv4.ip_unprivileged_port_start; 1024 unless
 * set): below it, a port no rule names is refused as the kernel would
 * refuse it, rather than moved (netpolicy_bind_published).
 */
void netpolicy_rules_set_unprivileged_start(struct netpolicy_rules *r,
					    uint16_t port);

/* Whether a bind or listen may not share a port with a socket the
 * sandbox did not create (lk->port_shared): always but in mode host. */
bool netpolicy_refuses_sharing(const struct netpolicy_rules *r);

/*
 * Whether a bind or listen netpolicy_decide allowed at a is reachable
 * from the host: a listen entry, or a port the bind lists name; port 0
 * (an ephemeral port, the kernel's random pick, which no host program
 * expects a service on); UDP always (a bound UDP socket also receives
 * its peers' answers); any bind in mode host or where the supervisor
 * stands in for Landlock's port rules.  Otherwise (a TCP listener on a
 * loopback port it asked for that no rule names) the listener is the
 * sandbox's own alone: the supervisor binds it to a port of the kernel's
 * choosing instead, and sends the sandbox's clients of the asked port
 * there (netpolicy_own_private), so its clients reach it and the host's,
 * knocking at the asked port, do not (DESIGN.md §16).
 */
bool netpolicy_bind_published(const struct netpolicy_rules *r,
			      enum netpolicy_proto proto,
			      const struct netpolicy_addr *a);

/*
 * A bind to the unspecified address becomes loopback (the sandbox's
 * listeners never serve the network) unless a listen entry names that
 * address, the network mode is host, or the supervisor only stands in
 * for Landlock's port rules.  Returns true when a changed.
 */
bool netpolicy_bind_address(const struct netpolicy_rules *r,
			    struct netpolicy_addr *a);

/*
 * Whether a socket's sticky options route its packets through another
 * host first, given what the kernel says of them: ipv4, the IP_OPTIONS
 * it holds (len bytes, as getsockopt returns them), with a loose or
 * strict source route (LSRR, SSRR); rthdr_len, the length of the IPv6
 * routing header it holds (getsockopt IPV6_RTHDR; 0: none), of any
 * type.  Such a socket's packets go to the route's first hop, not the
 * destination a decision checked: the supervisor performs no connect or
 * send on it ("filtered/source-route").  Malformed options count as a
 * route.
 */
bool netpolicy_source_routed(const uint8_t *ipv4, size_t len, size_t rthdr_len);

/* ---- The sandbox's own sockets ---- */

/*
 * Sockets the sandbox bound, remembered by cookie (SO_COOKIE, which the
 * kernel never gives again), at most NETPOLICY_MAX_OWN of each kind (the
 * oldest is forgotten first).  A unix socket is also remembered by what
 * it was bound to, to pick the candidates for a destination; whether it
 * is still the socket there is asked of the kernel each time
 * (sockdiag_unix) and judged by netpolicy_own_unix_current.
 */
#define NETPOLICY_MAX_OWN 4096

struct netpolicy_own_unix {
	uint64_t cookie;
	uint32_t ino; /* its sockfs inode, to ask the kernel with */
	bool abstract;
	dev_t dev; /* pathname: the inode bind made */
	ino_t vfs_ino;
	size_t len; /* abstract: the name, without the leading NUL */
	char name[108];
};

/*
 * A listener of the sandbox's own alone (netpolicy_bind_published): it
 * asked for asked (an address and port), and the supervisor bound it to
 * that address on port, a port of the kernel's choosing; cookie is the
 * listener's.  At most NETPOLICY_MAX_PRIVATE, the oldest forgotten first
 * (a forgotten one is still reached at its real port, as any own
 * listener).
 */
#define NETPOLICY_MAX_PRIVATE 256

struct netpolicy_private {
	struct netpolicy_addr asked;
	uint16_t port;
	uint64_t cookie;
};

struct netpolicy_own {
	uint64_t ip[NETPOLICY_MAX_OWN];
	bool ip_shares[NETPOLICY_MAX_OWN]; /* netpolicy_own_ip_shares */
	size_t n_ip, next_ip;
	struct netpolicy_own_unix unix_[NETPOLICY_MAX_OWN];
	size_t n_unix, next_unix;
	struct netpolicy_private priv[NETPOLICY_MAX_PRIVATE];
	size_t n_priv, next_priv;
};

/* Remember a listener the supervisor moved from asked to port. */
void netpolicy_own_add_private(struct netpolicy_own *o,
			       const struct netpolicy_addr *asked,
			       uint16_t port, uint64_t cookie);

/*
 * The listener a connection to dest (loopback, made a destination) was
 * asked for, the most recent one: the sandbox's client is sent to its
 * port.  NULL when none asked for dest.  Whether it still listens there,
 * and is the sandbox's alone, is the caller's to ask (netpolicy_dest_own).
 */
const struct netpolicy_private *
netpolicy_own_private(const struct netpolicy_own *o,
		      const struct netpolicy_addr *dest);

/*
 * Remember an IP socket by cookie (bound, then listening: once), and
 * whether it may share its port (shares: it had SO_REUSEPORT, or for
 * UDP SO_REUSEADDR, set when bound or when listening).
 */
void netpolicy_own_add_ip(struct netpolicy_own *o, uint64_t cookie,
			  bool shares);
bool netpolicy_own_has_ip(const struct netpolicy_own *o, uint64_t cookie);

/*
 * Whether the sandbox's socket cookie may be in a group with another
 * socket at its port: it had a reuse flag set when bound or listening
 * (or is not one the sandbox bound).  Without one, the kernel lets no
 * socket share its port (the supervisor refused every bind that would
 * have joined another's): one lookup finds it alone.  A flag set on it
 * later, by setsockopt(2), which nothing mediates, is not seen.
 */
bool netpolicy_own_ip_shares(const struct netpolicy_own *o, uint64_t cookie);

/* A socket the kernel reports bound to an address (sockdiag_port). */
struct netpolicy_sock {
	struct netpolicy_addr addr; /* IPv4-mapped made IPv4 */
	uint64_t cookie;
};

/*
 * Whether a socket bound at bound (its address and port) would get a
 * connection or datagram sent to dest: the same port and the same
 * address, or the unspecified address of its family, or an IPv6
 * unspecified address for an IPv4 destination (a dual-stack socket: an
 * IPV6_V6ONLY one would not, which this errs on the side of).
 */
bool netpolicy_sock_reaches(const struct netpolicy_addr *bound,
			    const struct netpolicy_addr *dest);

/*
 * The sockets bound to a port (v, n of them, any family and address):
 * whether any of them is not the sandbox's own, other than the socket
 * self itself.  A bind (or listen) that would put a sandbox socket on a
 * port a socket it did not create holds is refused: no SO_REUSEPORT or
 * SO_REUSEADDR group with a host service, no listener on the other
 * loopback family or on the wildcard beside a host's ("filtered/shared-
 * port", EADDRINUSE, as the kernel says for a port in use).
 */
bool netpolicy_port_shared(const struct netpolicy_own *o, uint64_t self,
			   const struct netpolicy_sock *v, size_t n);

/*
 * Whether a connection or datagram to dest reaches the sandbox's own
 * socket and nothing else: at least one socket of v reaches dest
 * (netpolicy_sock_reaches) and every one that does is own.  A host
 * service in a group with the sandbox's socket (SO_REUSEPORT, UDP's
 * SO_REUSEADDR), which the kernel may answer a lookup with, keeps the
 * own-listener exemption from applying.
 */
bool netpolicy_dest_own(const struct netpolicy_own *o,
			const struct netpolicy_addr *dest,
			const struct netpolicy_sock *v, size_t n);

/* Remember a unix socket (its cookie once). */
void netpolicy_own_add_unix(struct netpolicy_own *o,
			    const struct netpolicy_own_unix *u);

/* A unix destination: a pathname socket's inode, or an abstract name. */
struct netpolicy_unix_dest {
	bool abstract;
	dev_t dev; /* pathname */
	ino_t ino;
	const char *name; /* abstract, without the leading NUL */
	size_t len;
};

/* Whether u was bound to d: a candidate for the socket at d. */
bool netpolicy_own_unix_candidate(const struct netpolicy_own_unix *u,
				  const struct netpolicy_unix_dest *d);

/*
 * Whether a candidate is still the socket at d, given what the kernel
 * says of it now (sockdiag_unix, asked by its cookie): still bound to
 * d's inode, or to d's abstract name.  A socket that took the name or
 * the inode number over after the sandbox's was gone has another
 * cookie, and is never asked about.
 */
bool netpolicy_own_unix_current(const struct netpolicy_unix_dest *d,
				const struct netpolicy_unix *now);

/* ---- The blocked-attempt log ---- */

/* The blocked-attempt log: a burst of 20 lines, then 5 a second. */
#define NETPOLICY_LOG_BURST 20
#define NETPOLICY_LOG_RATE  5

/* A token bucket: burst tokens, refilled at rate per second. */
struct netpolicy_ratelimit {
	double tokens;
	uint64_t last_ns;
	unsigned burst, rate;
	unsigned long suppressed;
};

void netpolicy_ratelimit_init(struct netpolicy_ratelimit *rl, unsigned burst,
			      unsigned rate, uint64_t now_ns);

/*
 * Take a token at now_ns: true when a line may be written.  When lines
 * were suppressed before and a token is available again, *report is set
 * to their number (write "PREFIX: suppressed N" first) and the count
 * restarts; otherwise *report is 0.
 */
bool netpolicy_ratelimit_take(struct netpolicy_ratelimit *rl, uint64_t now_ns,
			      unsigned long *report);

/*
 * Whether the suppressed count should be reported now (a token is back,
 * or at_exit); sets *report and restarts the count like _take.
 */
bool netpolicy_ratelimit_flush(struct netpolicy_ratelimit *rl, uint64_t now_ns,
			       bool at_exit, unsigned long *report);

/* The prefix: fmt ("llwrap-%n-blocked" when NULL) with %n the name. */
char *netpolicy_log_prefix(const char *fmt, const char *name);

/*
 * One log line, without newline:
 * "PREFIX: connect tcp 203.0.113.7:443 pid=4242 comm=curl rule=R".
 * Control characters and spaces in target and comm become '?'.
 */
char *netpolicy_log_line(const char *prefix, enum netpolicy_op op,
			 enum netpolicy_proto proto, const char *target,
			 pid_t pid, const char *comm, enum refusal rule);

/*
 * The per-instance log file: ${XDG_STATE_HOME}/llwrap/NAME.log, with
 * XDG_STATE_HOME defaulting to ~/.local/state, from envp; NULL when
 * neither is set.  Characters of name outside [A-Za-z0-9._-] become '_'.
 */
char *netpolicy_log_path(const char *name, char *const *envp);

/*
 * Lines describing the supervisor's rules and log, for --explain, with
 * resolvers the DNS servers (netpolicy_resolvers); stub: allow-host
 * through llwrap's resolver rather than its proxy.  A new vector.
 */
char **netpolicy_describe(const struct plan_conf *p,
			  const struct netpolicy_addr *resolvers,
			  size_t n_resolvers, bool stub, char *const *envp);

#endif /* LLW_NETPOLICY_H */
