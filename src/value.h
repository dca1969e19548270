/*
 * Values: every grammar a profile value or a flag is written in, each
 * parsed into a typed value in one place (DESIGN.md §4): port ranges
 * and lists, IP addresses, listen addresses, CIDRs, host names, sizes,
 * counts, durations, booleans and one-of-a-list choices, environment
 * names and globs.  The key table (keys.h) says which key takes which;
 * profile.c parses a value once with it, and the policy, the supervisor,
 * the proxy and `why` use the typed result.
 *
 * The bottom of the include graph: nothing here knows what a profile, a
 * policy or a socket is, and no system call is made.  Every parser
 * returns 0 and the value, or -EINVAL and, when cause is not NULL, a new
 * string saying what is wrong and how to write it ("bad port or range
 * 'x'; use ..."), without the "[section] key: " its caller puts before it
 * and without a final period.
 */
#ifndef LLW_VALUE_H
#define LLW_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An inclusive port range; a single port has lo == hi. */
struct llw_port_range {
	uint16_t lo, hi;
	char *origin;
};

struct llw_ports {
	struct llw_port_range *v;
	size_t n;
};

/* A string-valued list element with its origin (env names, CIDRs, ...). */
struct llw_item {
	char *value;
	char *origin;
};

struct llw_items {
	struct llw_item *v;
	size_t n;
};

/* An IP address; IPv4-mapped IPv6 addresses are kept as AF_INET. */
struct netpolicy_addr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t a[16];
	uint16_t port;
};

/* An allow-cidr entry: a prefix and the ports it allows. */
struct netpolicy_cidr {
	struct netpolicy_addr net;
	unsigned prefix;
	struct llw_port_range *ports; /* none: the policy's port list */
	size_t n_ports;
	char *origin; /* "file:line"; NULL from value_cidr */
};

/*
 * An allow-host entry, typed: "api.openai.com", "*.githubusercontent.com"
 * (any one label in place of the '*'), each with optional ":PORTS" (a
 * comma list of ports and LOW-HIGH ranges; without, the policy's
 * connect-tcp list).  hostrule.h matches names against it.
 */
struct hostrule {
	char *name; /* lower case, no trailing dot, without the "*." */
	bool wildcard;
	struct llw_port_range *ports;
	size_t n_ports;
	char *origin; /* "file:line"; NULL from value_host */
};

/* One port range: "N" or "LO-HI", decimal, 0..65535, LO <= HI. */
int value_port_range(const char *s, uint16_t *lo, uint16_t *hi, char **cause);

/*
 * Port ranges separated by commas, at least one, none empty, into a new
 * array *v of *n (origins NULL).
 */
int value_ports(const char *s, struct llw_port_range **v, size_t *n,
		char **cause);

/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d) becomes AF_INET. */
void value_addr_normalise(struct netpolicy_addr *a);

/* An IPv4 or IPv6 address as written, no brackets, port 0. */
int value_ip(const char *s, struct netpolicy_addr *a, char **cause);

/* An address, "[V6]" allowed, port 0. */
int value_addr(const char *s, struct netpolicy_addr *a, char **cause);

/* A listen address: "ADDR:PORT" with IPv4, or "[V6]:PORT"; one port. */
int value_listen(const char *s, struct netpolicy_addr *a, char **cause);

/*
 * An allow-cidr value.  The address is IPv4 or IPv6, optionally in
 * brackets ("[::1]"), optionally followed by "/N" (0..32 or 0..128;
 * without it the single host), optionally followed by ":PORTS" (ranges
 * separated by ","), so "10.0.0.0/8:443,8000-8100", "::1/128:8080" and
 * "[::1]:8080" all work.  The rule that keeps IPv6 unambiguous: after
 * "/N" the first ":" starts the ports; without "/N", ports need IPv4 or
 * brackets ("::1:8080" is read as the address ::1:8080).  An IPv6 prefix
 * inside ::ffff:0:0/96 becomes the IPv4 one.  c->ports is allocated
 * (value_cidr_clear).
 */
int value_cidr(const char *s, struct netpolicy_cidr *c, char **cause);
void value_cidr_clear(struct netpolicy_cidr *c);

/*
 * An allow-host value into r (free it with value_host_clear): a name
 * that is one (httpreq_name_valid), '*' only as the whole first label,
 * ports 1..65535.
 */
int value_host(const char *s, struct hostrule *r, char **cause);
void value_host_clear(struct hostrule *r);

/* "203.0.113.7:443" or "[::1]:443"; a new string. */
char *value_addr_format(const struct netpolicy_addr *a);

/* "203.0.113.7" or "::1", without the port; a new string. */
char *value_ip_format(const struct netpolicy_addr *a);

/* "10.0.0.0/8" or "::1/128", then ":443,8000-8100" when it has ports:
 * what value_cidr reads back to the same value.  A new string. */
char *value_cidr_format(const struct netpolicy_cidr *c);

/* "*.example.com:443,8443": what value_host reads back.  A new string. */
char *value_host_format(const struct hostrule *r);

/*
 * A size: "512M" (bytes, with an optional K, M or G: powers of 1024) or
 * "10%" (of memory, 1 to 100): *bytes or *percent set (the other 0).
 */
int value_size(const char *s, uint64_t *bytes, unsigned *percent, char **cause);

/* A size in bytes only ("8G"). */
int value_bytes(const char *s, uint64_t *bytes, char **cause);

/* A positive decimal count. */
int value_count(const char *s, uint64_t *n, char **cause);

/* A duration: a positive count of seconds, or of minutes, hours or days
 * with the suffix s, m, h or d ("90", "30m"). */
int value_duration(const char *s, uint64_t *seconds, char **cause);

/*
 * One of choices (NULL-terminated): *index is its position.  The cause
 * lists them ("bad value 'x'; use 'a', 'b' or 'c'").
 */
int value_choice(const char *s, const char *const *choices, unsigned *index,
		 char **cause);

/* "yes" or "no". */
int value_bool(const char *s, bool *yes, char **cause);

/* An environment variable's name, of n bytes of s: a letter or '_',
 * then letters, digits and '_'. */
bool value_env_name(const char *s, size_t n);

/* An environment name, or an fnmatch glob made of name characters. */
int value_env_glob(const char *s, char **cause);

/* NAME=VALUE with a valid NAME. */
int value_env_set(const char *s, char **cause);

#endif /* LLW_VALUE_H */
