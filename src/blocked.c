/*
 * The blocked-attempt log, read back (see blocked.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocked.h"
#include "cleanup.h"
#include "strv.h"
#include "xalloc.h"

void
blocked_record_clear(struct blocked_record *r)
{
	free(r->op);
	free(r->proto);
	free(r->target);
	free(r->rule);
	free(r->comm);
	memset(r, 0, sizeof(*r));
}

/* The value of "key=" in word, or NULL. */
static const char *
field(const char *word, const char *key)
{
	size_t n = strlen(key);

	return strncmp(word, key, n) == 0 && word[n] == '=' ? word + n + 1
							    : NULL;
}

int
blocked_parse_line(const char *line, struct blocked_record *r)
{
	const char *s = strstr(line, ": ");
	_cleanup_strv_ char **w = NULL;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (s == NULL || s == line)
		return -EINVAL;
	/* The supervisor writes no control character (it replaces them):
	 * a line with one was not written by it, and is not printed. */
	for (const char *c = line; *c != '\0'; c++)
		if ((unsigned char)*c < ' ' || (unsigned char)*c == 0x7f)
			return -EINVAL;
	/* The prefix is one word (log-prefix, %n expanded). */
	for (const char *c = line; c < s; c++)
		if (*c == ' ')
			return -EINVAL;
	w = strv_split_blank(s + 2);
	n = strv_length(w);
	if (n == 2 && strcmp(w[0], "suppressed") == 0) {
		char *end;

		r->suppressed = strtoul(w[1], &end, 10);
		return *end == '\0' && end != w[1] ? 0 : -EINVAL;
	}
	if (n != 6 || field(w[3], "pid") == NULL ||
	    field(w[4], "comm") == NULL || field(w[5], "rule") == NULL)
		return -EINVAL;
	if (strcmp(w[1], "tcp") != 0 && strcmp(w[1], "udp") != 0 &&
	    strcmp(w[1], "unix") != 0)
		return -EINVAL;
	r->op = xstrdup(w[0]);
	r->proto = xstrdup(w[1]);
	r->target = xstrdup(w[2]);
	r->comm = xstrdup(field(w[4], "comm"));
	r->rule = xstrdup(field(w[5], "rule"));
	r->refusal = refusal_parse(r->rule);
	return 0;
}

/* Probes that fail harmlessly: their callers fall back by themselves. */
static const struct {
	const char *path;
	bool prefix;
	const char *what;
} harmless[] = {
	{ "/var/run/nscd/socket", false,
	  "nscd lookups (glibc falls back to /etc files)" },
	{ "/run/nscd/socket", false,
	  "nscd lookups (glibc falls back to /etc files)" },
	{ "/run/systemd/userdb/", true,
	  "systemd userdb lookups (NSS falls back to /etc files)" },
	{ "/var/lib/sss/pipes/", true,
	  "sssd lookups (NSS falls back to the next source)" },
	{ "/run/systemd/resolve/io.systemd.Resolve", false,
	  "systemd-resolved's varlink socket (the resolver falls back to "
	  "DNS)" },
};

static const char *
harmless_what(const char *proto, const char *target)
{
	if (strcmp(proto, "unix") != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(harmless) / sizeof(*harmless); i++)
		if (harmless[i].prefix ? strncmp(target, harmless[i].path,
						 strlen(harmless[i].path)) == 0
				       : strcmp(target, harmless[i].path) == 0)
			return harmless[i].what;
	return NULL;
}

/* FNV-1a over what an attempt is: its group. */
static uint64_t
group_hash(const char *op, const char *proto, const char *target,
	   const char *rule)
{
	const char *parts[] = { op, proto, target, rule };
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < 4; i++) {
		for (const char *c = parts[i]; *c != '\0'; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	return h;
}

static bool
group_is(const struct blocked_group *g, const struct blocked_record *r)
{
	return strcmp(g->target, r->target) == 0 && strcmp(g->op, r->op) == 0 &&
	       strcmp(g->proto, r->proto) == 0 && strcmp(g->rule, r->rule) == 0;
}

/* Rebuild the index at twice the size, at least 64 slots. */
static void
index_grow(struct blocked_log *log)
{
	size_t cap = log->cap ? log->cap * 2 : 64;

	free(log->index);
	log->index = xcalloc(cap, sizeof(*log->index));
	log->cap = cap;
	for (size_t i = 0; i < log->n; i++) {
		const struct blocked_group *g = &log->v[i];
		size_t s = group_hash(g->op, g->proto, g->target, g->rule) &
			   (cap - 1);

		while (log->index[s] != 0)
			s = (s + 1) & (cap - 1);
		log->index[s] = i + 1;
	}
}

static void
add_record(struct blocked_log *log, const struct blocked_record *r)
{
	struct blocked_group *g = NULL;
	size_t s;

	if (2 * (log->n + 1) > log->cap)
		index_grow(log);
	s = group_hash(r->op, r->proto, r->target, r->rule) & (log->cap - 1);
	for (; log->index[s] != 0; s = (s + 1) & (log->cap - 1))
		if (group_is(&log->v[log->index[s] - 1], r)) {
			g = &log->v[log->index[s] - 1];
			break;
		}
	if (g == NULL) {
		log->v = xreallocarray(log->v, log->n + 1, sizeof(*log->v));
		g = &log->v[log->n++];
		memset(g, 0, sizeof(*g));
		g->op = xstrdup(r->op);
		g->proto = xstrdup(r->proto);
		g->target = xstrdup(r->target);
		g->rule = xstrdup(r->rule);
		g->refusal = r->refusal;
		g->harmless = harmless_what(r->proto, r->target);
		log->index[s] = log->n;
	}
	g->count++;
	g->last = log->lines;
	if (!strv_contains(g->comms, r->comm) && strv_length(g->comms) < 8)
		strv_push(&g->comms, r->comm);
	log->logged++;
}

void
blocked_add_text(struct blocked_log *log, const char *text)
{
	const char *s = text;

	while (s != NULL && *s != '\0') {
		const char *e = strchr(s, '\n');
		_cleanup_free_ char *line =
			e ? xstrndup(s, (size_t)(e - s)) : xstrdup(s);
		struct blocked_record r;

		s = e ? e + 1 : NULL;
		if (line[0] == '\0')
			continue;
		log->lines++;
		if (blocked_parse_line(line, &r) < 0) {
			log->unparsed++;
			continue;
		}
		if (r.op == NULL)
			log->suppressed += r.suppressed;
		else
			add_record(log, &r);
		blocked_record_clear(&r);
	}
}

void
blocked_log_clear(struct blocked_log *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->v[i].op);
		free(log->v[i].proto);
		free(log->v[i].target);
		free(log->v[i].rule);
		strv_free(log->v[i].comms);
	}
	free(log->v);
	free(log->index);
	memset(log, 0, sizeof(*log));
}

/* Split "ADDR:PORT" or "[V6]:PORT" into the address and the port. */
static bool
split_target(const char *t, char **addr, char **port)
{
	const char *colon = strrchr(t, ':');

	if (colon == NULL || colon == t || colon[1] == '\0')
		return false;
	if (t[0] == '[' && colon[-1] == ']')
		*addr = xstrndup(t + 1, (size_t)(colon - t - 2));
	else
		*addr = xstrndup(t, (size_t)(colon - t));
	*port = xstrdup(colon + 1);
	return true;
}

/* Whether s is an IP address (not a name). */
static bool
ip_literal(const char *s)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, s, buf) == 1 ||
	       inet_pton(AF_INET6, s, buf) == 1;
}

/* blocked_suggest, on the refusal r. */
static char *
suggest(const char *op, const char *proto, const char *target, enum refusal r,
	const struct suggest_bounds *b)
{
	_cleanup_free_ char *addr = NULL, *port = NULL, *dir = NULL;
	bool ip = strcmp(proto, "unix") != 0;
	bool bind = strcmp(op, "bind") == 0 || strcmp(op, "listen") == 0;
	const char *bits;

	/* A query llwrap's resolver answered itself: the target is the
	 * name. */
	if (strcmp(op, "dns-query") == 0) {
		if (r == REFUSAL_HOST)
			return xasprintf("[network] allow-host = %s (or "
					 "--allow-host %s)",
					 target, target);
		return xstrdup("nothing: only A, AAAA and CNAME queries of "
			       "names in allow-host are forwarded");
	}
	if (ip && !split_target(target, &addr, &port))
		return NULL;
	bits = addr && strchr(addr, ':') ? "128" : "32";
	/* Port 0 is no service's port: no rule is worth suggesting. */
	if (ip && !bind && strcmp(port, "0") == 0)
		return xstrdup("nothing: port 0 is no service's port");
	if (r == REFUSAL_NO_CIDR)
		return xasprintf("[network] allow-cidr = %s/%s:%s (or "
				 "--allow-cidr %s/%s:%s)",
				 addr, bits, port, addr, bits, port);
	if (r == REFUSAL_LOCAL)
		return xasprintf("[network] allow-cidr = %s/%s:%s (or "
				 "--allow-cidr %s/%s:%s): port rules do not "
				 "reach this host or its networks",
				 addr, bits, port, addr, bits, port);
	if (r == REFUSAL_PORT)
		return xasprintf("[network] allow-cidr = %s/%s:%s (or "
				 "--allow-cidr %s/%s:%s): the allow-cidr entry "
				 "that holds %s does not allow port %s",
				 addr, bits, port, addr, bits, port, addr,
				 port);
	if (r == REFUSAL_NET_PORT)
		return xasprintf("[network] connect-%s = %s (or --connect-%s "
				 "%s): port %s of internet hosts, never of "
				 "this host or its networks (allow-cidr "
				 "reaches those)",
				 proto, port, proto, port, port);
	if (r == REFUSAL_LANDLOCK_PORT)
		return xasprintf("[network] connect-%s = %s (or --connect-%s "
				 "%s; it reaches every host on that port), or "
				 "allow-cidr = %s/%s:%s, with which the "
				 "supervisor decides by address",
				 proto, port, proto, port, addr, bits, port);
	if (r == REFUSAL_SHARED_PORT)
		return xasprintf(
			"nothing: a socket of another program holds "
			"port %s (at some address, in either family), "
			"and the sandbox never shares a port with one: "
			"use another port",
			port);
	if (r == REFUSAL_UNPUBLISHED)
		return xasprintf("[network] bind-%s = %s (or --bind-%s %s): "
				 "publishes it, reachable from the host (a "
				 "browser)",
				 proto, port, proto, port);
	if (r == REFUSAL_SOURCE_ROUTE)
		return xstrdup("nothing: the socket carries a routing header "
			       "or an IPv4 source route, which would send its "
			       "packets elsewhere than their destination");
	if (r == REFUSAL_DNS)
		return xasprintf("[network] dns = %s (or --dns %s)", addr,
				 addr);
	if (r == REFUSAL_PROXY && strcmp(port, "53") == 0)
		return xstrdup("nothing: names are resolved by llwrap's proxy "
			       "(allow-host, proxy = yes), and this client "
			       "resolved a name itself: make it use the proxy "
			       "that HTTPS_PROXY and HTTP_PROXY name");
	if (r == REFUSAL_PROXY)
		return xasprintf(
			"this client ignored llwrap's proxy "
			"(HTTPS_PROXY, HTTP_PROXY): make it use the "
			"proxy, which reaches the names in allow-host, "
			"or [network] allow-cidr = %s/%s:%s (or "
			"--allow-cidr %s/%s:%s) to connect directly",
			addr, bits, port, addr, bits, port);
	/* With llwrap's resolver the target is the address an allowed
	 * name resolved to, which allow-host cannot name. */
	if (r == REFUSAL_HOST_PORT && ip_literal(addr))
		return xasprintf("[network] allow-host = NAME:%s for the "
				 "allowed name that resolved to %s (its entry "
				 "does not allow port %s)",
				 port, addr, port);
	if (r == REFUSAL_HOST || r == REFUSAL_HOST_PORT)
		return xasprintf("[network] allow-host = %s (or --allow-host "
				 "%s)",
				 target, target);
	if (r == REFUSAL_UNNAMED)
		return xasprintf("reach it by a name in allow-host (no allowed "
				 "name resolves to %s), or [network] "
				 "allow-cidr = %s/%s:%s (or --allow-cidr "
				 "%s/%s:%s)",
				 addr, addr, bits, port, addr, bits, port);
	if (r == REFUSAL_REBIND)
		return xasprintf("[network] allow-cidr = the local range %s "
				 "resolves to, if it is meant to reach it "
				 "(allow-host never reaches local addresses "
				 "alone)",
				 addr);
	if (r == REFUSAL_LISTEN)
		return xasprintf("[network] listen = %s (or --listen %s)",
				 target, target);
	if (r == REFUSAL_BIND_PORT || (ip && bind))
		return xasprintf("[network] bind-%s = %s (or --bind-%s %s)",
				 proto, port, proto, port);
	if (r == REFUSAL_UNIX) {
		_cleanup_free_ char *unsafe = NULL;
		bool inside = false;

		if (b == NULL)
			return NULL;
		/* A socket in a secret (gpg-agent's in ~/.gnupg) or a
		 * denied path: nothing to suggest. */
		unsafe = suggest_unsafe(b, target, &inside);
		if (unsafe != NULL && inside)
			return xasprintf("no safe grant: llwrap suggests no "
					 "rule that exposes a secret, and %s",
					 unsafe);
		return xasprintf("[network] unix = %s (or --unix %s)", target,
				 target);
	}
	if (r == REFUSAL_UNIX_BIND && target[0] == '/') {
		_cleanup_free_ char *unsafe = NULL;
		char *slash;

		dir = xstrdup(target);
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (b == NULL)
			return NULL;
		if ((unsafe = suggest_unsafe(b, dir, NULL)) != NULL)
			return xasprintf("no safe grant: a rule on the "
					 "socket's directory %s would reach "
					 "more, as %s; bind the socket in "
					 "the project or in /tmp",
					 dir, unsafe);
		return xasprintf("[filesystem] rw = %s (or --rw %s): the "
				 "socket's directory",
				 dir, dir);
	}
	return NULL;
}

char *
blocked_suggest(const char *op, const char *proto, const char *target,
		const char *rule, const struct suggest_bounds *b)
{
	return suggest(op, proto, target, refusal_parse(rule), b);
}

/* The log order() sorts the groups of: qsort has no context argument. */
static const struct blocked_log *order_log;

/* Newest first. */
static int
cmp_newest(const void *a, const void *b)
{
	size_t la = order_log->v[*(const size_t *)a].last;
	size_t lb = order_log->v[*(const size_t *)b].last;

	return la < lb ? 1 : la > lb ? -1 : 0;
}

/* The most frequent first, then the newest. */
static int
cmp_count(const void *a, const void *b)
{
	unsigned long ca = order_log->v[*(const size_t *)a].count;
	unsigned long cb = order_log->v[*(const size_t *)b].count;

	return ca < cb ? 1 : ca > cb ? -1 : cmp_newest(a, b);
}

/* Indices of the groups that are (or are not) harmless, sorted by cmp. */
static size_t *
order(const struct blocked_log *log, bool harmless_ones, size_t *n,
      int (*cmp)(const void *, const void *))
{
	size_t *ix = xcalloc(log->n + 1, sizeof(*ix));

	*n = 0;
	for (size_t i = 0; i < log->n; i++)
		if ((log->v[i].harmless != NULL) == harmless_ones)
			ix[(*n)++] = i;
	order_log = log;
	qsort(ix, *n, sizeof(*ix), cmp);
	order_log = NULL;
	return ix;
}

char *
blocked_format(const struct blocked_log *log, const char *name, size_t max,
	       const struct suggest_bounds *b)
{
	char *out = NULL;
	size_t len = 0, n, nh;
	FILE *f = open_memstream(&out, &len);
	_cleanup_free_ size_t *ix = order(log, false, &n, cmp_newest);
	_cleanup_free_ size_t *hx = order(log, true, &nh, cmp_newest);

	if (f == NULL)
		abort();
	fprintf(f, "%s: %lu blocked attempt%s", name,
		log->logged + log->suppressed,
		log->logged + log->suppressed == 1 ? "" : "s");
	if (log->suppressed > 0)
		fprintf(f,
			" (%lu logged, %lu more not logged by the rate "
			"limit)",
			log->logged, log->suppressed);
	fprintf(f, ", %zu kind%s%s\n", n, n == 1 ? "" : "s",
		n ? ", newest first" : "");
	for (size_t k = 0; k < n && (max == 0 || k < max); k++) {
		const struct blocked_group *g = &log->v[ix[k]];
		_cleanup_free_ char *comms = strv_join(g->comms, ",");
		_cleanup_free_ char *sug =
			suggest(g->op, g->proto, g->target, g->refusal, b);

		fprintf(f, "%7lux %s %s %s  (%s; rule %s)\n", g->count, g->op,
			g->proto, g->target, comms, g->rule);
		if (sug != NULL)
			fprintf(f, "         allow: %s\n", sug);
		else if (g->refusal == REFUSAL_ABSTRACT)
			fprintf(f,
				"         no rule allows the host's abstract "
				"sockets (D-Bus, X11): the sandbox's own "
				"work\n");
		if (strcmp(g->proto, "unix") != 0 || g->target[0] == '/')
			fprintf(f,
				"         why:   llwrap [your -p and flags] "
				"why %s%s%s\n",
				g->target,
				strcmp(g->proto, "unix") == 0  ? " --connect"
				: strcmp(g->proto, "udp") == 0 ? " --udp"
							       : "",
				strcmp(g->op, "bind") == 0 ||
						strcmp(g->op, "listen") == 0
					? " --bind"
					: "");
	}
	if (max != 0 && n > max)
		fprintf(f, "  ... %zu more kinds (llwrap log --all %s)\n",
			n - max, name);
	for (size_t k = 0; k < nh; k++) {
		const struct blocked_group *g = &log->v[hx[k]];

		fprintf(f, "known-harmless: %lux %s: %s\n", g->count,
			g->harmless, g->target);
	}
	if (log->unparsed > 0)
		fprintf(f, "(%lu line%s not from the supervisor skipped)\n",
			log->unparsed, log->unparsed == 1 ? "" : "s");
	if (fclose(f) != 0)
		abort();
	return out;
}

char *
blocked_format_record(const struct blocked_record *r,
		      const struct suggest_bounds *b)
{
	_cleanup_free_ char *sug = NULL;
	const char *h;

	if (r->op == NULL)
		return xasprintf("%lu more attempts not logged (rate limit)",
				 r->suppressed);
	h = harmless_what(r->proto, r->target);
	if (h != NULL)
		return xasprintf("%s %s %s (%s; known-harmless: %s)", r->op,
				 r->proto, r->target, r->comm, h);
	sug = suggest(r->op, r->proto, r->target, r->refusal, b);
	return xasprintf("%s %s %s (%s; rule %s)%s%s", r->op, r->proto,
			 r->target, r->comm, r->rule, sug ? "\n  allow: " : "",
			 sug ? sug : "");
}

char *
blocked_footer(const struct blocked_log *log, const char *name)
{
	_cleanup_free_ size_t *ix = NULL;
	_cleanup_strv_ char **top = NULL, **own = NULL;
	_cleanup_free_ char *list = NULL, *ownlist = NULL, *ownpart = NULL;
	unsigned long total = log->suppressed;
	bool proxy = false;
	size_t n, kinds = 0;

	for (size_t i = 0; i < log->n; i++) {
		const struct blocked_group *g = &log->v[i];
		const char *port = strrchr(g->target, ':');

		/* A server for the sandbox alone is no blocked attempt: it
		 * is named apart, with the flag that publishes it. */
		if (g->refusal == REFUSAL_UNPUBLISHED) {
			if (strv_length(own) < 3 && port != NULL)
				strv_push_take(&own,
					       xasprintf("%s (--bind-%s %s)",
							 g->target, g->proto,
							 port + 1));
			continue;
		}
		if (g->harmless == NULL)
			total += g->count;
		if (g->refusal == REFUSAL_PROXY)
			proxy = true;
	}
	if (own != NULL) {
		ownlist = strv_join(own, ", ");
		ownpart = xasprintf("the sandbox listened for itself alone on "
				    "%s: to reach a server from the host, "
				    "publish its port",
				    ownlist);
	}
	if (total == 0)
		return ownpart ? xasprintf("llwrap: %s", ownpart) : NULL;
	/* The most frequent first (then the newest), at most three. */
	ix = order(log, false, &n, cmp_count);
	for (size_t k = 0; k < n; k++) {
		const struct blocked_group *g = &log->v[ix[k]];

		if (g->refusal == REFUSAL_UNPUBLISHED)
			continue;
		if (kinds++ >= 3)
			continue;
		strv_push_take(&top, g->count > 1
					     ? xasprintf("%s %s %s (%lux)",
							 g->op, g->proto,
							 g->target, g->count)
					     : xasprintf("%s %s %s", g->op,
							 g->proto, g->target));
	}
	list = top ? strv_join(top, ", ") : xstrdup("");
	return xasprintf("llwrap: the sandbox blocked %lu attempt%s during "
			 "this run: %s%s; %ssee 'llwrap log %s', and 'llwrap "
			 "why' for the rule%s%s",
			 total, total == 1 ? "" : "s", list,
			 kinds > 3 ? ", ..." : "",
			 proxy ? "a client ignored llwrap's proxy "
				 "(HTTPS_PROXY, HTTP_PROXY), the only way to "
				 "the names in allow-host; "
			       : "",
			 name, ownpart ? "; " : "", ownpart ? ownpart : "");
}

/*
 * The note of the relay's name check: "connect tcp 198.51.100.7:443:
 * server name evil.test is not one of the names that resolved to
 * 198.51.100.7 (rule filtered/server-name)".  target is NAME@ADDRESS:PORT
 * or ADDRESS:PORT (svnames.c).
 */
static char *
name_check_note(const char *op, const char *proto, const char *target,
		enum refusal rule)
{
	const char *at = strchr(target, '@');
	const char *where = at ? at + 1 : target;
	_cleanup_free_ char *name =
		at ? xstrndup(target, (size_t)(at - target)) : xstrdup("-");
	_cleanup_free_ char *addr = xstrdup(where), *what = NULL;
	char *colon = strrchr(addr, ':');
	size_t n;

	if (colon != NULL)
		*colon = '\0';
	n = strlen(addr);
	if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
		addr[n - 1] = '\0';
		memmove(addr, addr + 1, n - 1);
	}
	if (rule == REFUSAL_SERVER_NAME)
		what = xasprintf("server name %s is not one of the names that "
				 "resolved to %s",
				 name, addr);
	else if (rule == REFUSAL_ECH)
		what = xasprintf("an encrypted ClientHello (outer name %s) "
				 "hides the name checked against those that "
				 "resolved to %s",
				 name, addr);
	else
		what = xasprintf("the connection names no server (no TLS "
				 "server name or HTTP Host) to check against "
				 "the names that resolved to %s",
				 addr);
	return xasprintf("llwrap: blocked by the sandbox's policy: %s %s %s: "
			 "%s (rule %s); not a network failure: ask the user "
			 "to allow it rather than retrying\n",
			 op, proto, where, what, refusal_name(rule));
}

char *
blocked_note(const char *op, const char *proto, const char *target,
	     enum refusal rule, const struct suggest_bounds *b)
{
	/* The target comes from the command (a unix path): one line, no
	 * control characters or blanks, as in the log. */
	_cleanup_free_ char *t = xstrdup(target);
	_cleanup_free_ char *sug = NULL;

	for (char *c = t; *c != '\0'; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			*c = '?';
	target = t;
	if (harmless_what(proto, target) != NULL)
		return NULL;
	sug = suggest(op, proto, target, rule, b);
	/* Not a refusal: the server runs, for the sandbox alone. */
	if (rule == REFUSAL_UNPUBLISHED)
		return xasprintf("llwrap: %s listens for the sandbox only: a "
				 "program outside it (a browser) cannot "
				 "connect; to open it from the host: %s\n",
				 target, sug);

	/* No relay to check the name: llwrap's fault, not the policy's. */
	if (rule == REFUSAL_RELAY)
		return xasprintf("llwrap: %s %s %s refused: %s (rule %s); not "
				 "a network failure, nor the policy's: the "
				 "connection cannot be checked\n",
				 op, proto, target, refusal_reason(rule),
				 refusal_name(rule));
	/* The name check (relay.h): NAME@ADDRESS:PORT, or ADDRESS:PORT. */
	if (rule == REFUSAL_SERVER_NAME || rule == REFUSAL_ECH ||
	    rule == REFUSAL_NO_NAME)
		return name_check_note(op, proto, target, rule);
	return xasprintf("llwrap: blocked by the sandbox's policy: %s %s %s "
			 "(rule %s)%s%s; not a network failure: ask the user "
			 "to allow it rather than retrying\n",
			 op, proto, target, refusal_name(rule),
			 sug ? "; to allow: " : "", sug ? sug : "");
}

char *
blocked_rule_line(const char *op, const char *proto, const char *target,
		  const char *rule, const struct suggest_bounds *b)
{
	_cleanup_free_ char *sug = blocked_suggest(op, proto, target, rule, b);
	const char *s, *e;

	/* The suggestion's first "[section] key = value" up to " (or". */
	if (sug == NULL || strncmp(sug, "[network] ", 10) != 0)
		return NULL;
	s = sug + 10;
	e = strstr(s, " (or ");
	return e ? xstrndup(s, (size_t)(e - s)) : xstrdup(s);
}
