/*
 * `llwrap why`: one access, decided the way the prepared sandbox decides
 * it, layer by layer in the order the kernel meets them:
 *
 *  - paths: the L3 mount masks (when namespaces run), then the Landlock
 *    rules as masked to the running ABI (or bubblewrap's mounts, which
 *    carry the same compiled plan);
 *  - pathname unix sockets: seccomp's socket(AF_UNIX) rule, then the
 *    supervisor's allow-list, Landlock's RESOLVE_UNIX (ABI 9) or nothing;
 *  - IP: net = none's namespace or seccomp, then the supervisor's
 *    decision (netpolicy_decide, the same function it runs) or
 *    Landlock's port rules.
 *
 * The rule reported is the configured one (its line in a profile, or the
 * flag), found the way policy_access_at() finds it; the change suggested
 * is the narrowest line or flag that flips the decision.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "path.h"
#include "strv.h"
#include "suggest.h"
#include "hostrule.h"
#include "proxy.h"
#include "refusal.h"
#include "sockdiag.h"
#include "relaycheck.h"
#include "why.h"
#include "xalloc.h"

void
why_verdict_clear(struct why_verdict *v)
{
	free(v->decision);
	free(v->rule);
	free(v->origin);
	free(v->layer);
	free(v->change);
	strv_free(v->notes);
	memset(v, 0, sizeof(*v));
}

static void
set(char **field, char *s)
{
	free(*field);
	*field = s;
}

static void
note(struct why_verdict *v, char *s)
{
	strv_push_take(&v->notes, s);
}

/* ---- Paths ---- */

/* Whether access level l allows a. */
static bool
level_allows(enum llw_access l, enum why_access a)
{
	switch (a) {
	case WHY_WRITE:
		return l == LLW_ACCESS_RW || l == LLW_ACCESS_RWX;
	case WHY_EXEC:
		return l == LLW_ACCESS_RX || l == LLW_ACCESS_RWX;
	default:
		return l != LLW_ACCESS_DENY;
	}
}

/* The smallest level that holds both have and the access a needs. */
static enum llw_access
level_join(enum llw_access have, enum why_access a)
{
	bool w = policy_access_writable(have) || a == WHY_WRITE;
	bool x = have == LLW_ACCESS_RX || have == LLW_ACCESS_RWX ||
		 a == WHY_EXEC;

	if (w)
		return x ? LLW_ACCESS_RWX : LLW_ACCESS_RW;
	return x ? LLW_ACCESS_RX : LLW_ACCESS_RO;
}

/* The Landlock right the access is checked against. */
static uint64_t
right_needed(const struct why_query *q)
{
	switch (q->access) {
	case WHY_WRITE:
		/* A file is written; a directory (or the parent of a file
		 * not there yet) gets a new entry. */
		return q->exists && !q->is_dir ? LLW_FS_WRITE_FILE
					       : LLW_FS_MAKE_REG;
	case WHY_EXEC:
		return LLW_FS_EXECUTE;
	case WHY_CONNECT_UNIX:
		return LLW_FS_RESOLVE_UNIX;
	default:
		return q->exists && q->is_dir ? LLW_FS_READ_DIR
					      : LLW_FS_READ_FILE;
	}
}

static const char *
access_verb(enum why_access a)
{
	switch (a) {
	case WHY_READ:
		return "read";
	case WHY_WRITE:
		return "write";
	case WHY_EXEC:
		return "execute";
	case WHY_CONNECT_UNIX:
	case WHY_CONNECT_ABSTRACT:
	case WHY_CONNECT_TCP:
		return "connect to";
	case WHY_SEND_UDP:
		return "send UDP to";
	case WHY_BIND_TCP:
	case WHY_BIND_UDP:
		return "bind";
	}
	return "?";
}

/* The deepest mask over path, or NULL. */
static const struct plan_mask *
mask_over(const struct plan *fs, const char *path)
{
	const struct plan_mask *best = NULL;

	for (size_t i = 0; fs != NULL && i < fs->n_masks; i++)
		if (path_under(path, fs->masks[i].path) &&
		    (best == NULL ||
		     strlen(fs->masks[i].path) > strlen(best->path)))
			best = &fs->masks[i];
	return best;
}

/*
 * Where a grant for q would go: the path itself when it exists, else its
 * parent (Landlock cannot hold a rule on a missing path; a new file is
 * created with the rights of its directory).
 */
static char *
grant_path(const struct why_query *q)
{
	char *s, *slash;

	if (q->exists || q->access != WHY_WRITE)
		return xstrdup(q->path);
	s = xstrdup(q->path);
	slash = strrchr(s, '/');
	if (slash == s)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	return s;
}

/* Why a grant on path would reach what no suggestion may (suggest.h:
 * home, "/", a secret or a path the policy denies by name), or NULL. */
static char *
unsafe_grant(const struct sandbox *sb, const struct why_query *q,
	     const char *path, bool *inside)
{
	struct suggest_bounds b;
	char *why;

	suggest_bounds_init(&b, q->home, sb->policy);
	why = suggest_unsafe(&b, path, inside);
	suggest_bounds_clear(&b);
	return why;
}

/* No change is suggested: say so, and why.  inside: where is in a
 * secret or a denied path itself. */
static void
no_safe_grant(struct why_verdict *v, const char *where, const char *why,
	      bool inside)
{
	if (inside)
		set(&v->change, xasprintf("no safe grant: llwrap suggests no "
					  "rule that exposes a secret, and "
					  "%s",
					  why));
	else
		set(&v->change, xasprintf("no safe grant: a rule on %s would "
					  "reach more than this access, as %s",
					  where, why));
}

/* The change for a denied path access: a line or a flag at the path. */
static void
suggest_grant(struct why_verdict *v, const struct sandbox *sb,
	      const struct why_query *q, const struct llw_path_rule *cur)
{
	_cleanup_free_ char *where = grant_path(q);
	bool inside = false;
	_cleanup_free_ char *unsafe = unsafe_grant(sb, q, where, &inside);
	_cleanup_free_ char *alone = NULL;
	enum llw_access have = cur && path_under(where, cur->path)
				       ? cur->access
				       : LLW_ACCESS_DENY;
	const char *want = policy_access_name(level_join(have, q->access));

	if (unsafe != NULL && !q->exists && q->access == WHY_WRITE &&
	    (alone = unsafe_grant(sb, q, q->path, NULL)) == NULL) {
		/* A new file where its directory may not be granted: the
		 * file alone, once it exists (Landlock holds no rule on a
		 * missing path). */
		set(&v->change,
		    xasprintf("create %s outside the sandbox first (touch "
			      "%s), then [filesystem] rw = %s in a profile "
			      "of yours (or the flag --rw %s): the file "
			      "alone",
			      q->path, q->path, q->path, q->path));
		note(v, xasprintf("no grant on %s is safe to suggest: %s",
				  where, unsafe));
		return;
	}
	if (unsafe != NULL) {
		no_safe_grant(v, where, unsafe, inside);
		if (q->is_dir && q->exists && !inside)
			note(v, xasprintf("grant only the entries in it the "
					  "command needs, each by its own "
					  "path (llwrap why %s/ENTRY)",
					  q->path));
		return;
	}
	set(&v->change, xasprintf("[filesystem] %s = %s in a profile of "
				  "yours (or the flag --%s %s)",
				  want, where, want, where));
	if (cur != NULL && strcmp(cur->path, where) == 0 &&
	    cur->rank != LLW_RANK_CONFIG)
		note(v, xasprintf("a rule at the same path wins by source: a "
				  "profile given with -p beats the built-in "
				  "and included ones, a flag beats every "
				  "profile (%s set this one)",
				  cur->origin));
	if (have == LLW_ACCESS_RW && q->access == WHY_EXEC)
		note(v, xstrdup("rw does not include execute: rwx does"));
	if (!q->exists && q->access == WHY_WRITE)
		note(v, xasprintf("%s does not exist: the grant goes on its "
				  "directory, which a new file inherits",
				  q->path));
}

static void
why_path(const struct sandbox *sb, const struct why_query *q,
	 struct why_verdict *v)
{
	const struct policy *p = sb->policy;
	const struct llw_path_rule *cur = policy_rule_at(p, q->path);
	const struct plan_mask *m = NULL;
	const struct plan_rule *rules;
	struct plan_verdict e;
	uint64_t handled, need = right_needed(q);
	size_t n;

	/* L3: the mount view.  bubblewrap mounts the same masks. */
	if (sb->use_ns || sb->backend == SANDBOX_BACKEND_BWRAP)
		m = mask_over(sb->fs, q->path);
	if (m != NULL && !level_allows(m->access, q->access)) {
		v->allowed = false;
		set(&v->layer, xstrdup(sb->backend == SANDBOX_BACKEND_BWRAP
					       ? "F bubblewrap (mount mask)"
					       : "L3 mount namespace (mask)"));
		set(&v->decision,
		    xasprintf("denied: %s%s%s is %s (%s)", q->path,
			      strcmp(q->path, m->path) ? " is under " : "",
			      strcmp(q->path, m->path) ? m->path : "",
			      m->access == LLW_ACCESS_DENY && m->is_dir
				      ? "mounted as an empty directory"
			      : m->access == LLW_ACCESS_DENY
				      ? "masked by a character device that "
					"fails every open (EACCES)"
			      : policy_access_writable(m->access)
				      ? "mounted without execute"
				      : "mounted read-only",
			      policy_access_name(m->access)));
		set(&v->origin, xstrdup(m->origin));
		if (m->access == LLW_ACCESS_DENY && !m->is_dir)
			note(v, xstrdup("the mask hides the file's content, "
					"not its name: it lists as a "
					"character device (/dev/null's, on a "
					"mount without devices)"));
		if (cur != NULL && cur->rank != LLW_RANK_CONFIG &&
		    path_under(cur->path, m->path))
			set(&v->rule, xasprintf("%s = %s",
						policy_access_name(cur->access),
						cur->path));
		else
			set(&v->rule,
			    xasprintf("%s = %s", policy_access_name(m->access),
				      m->path));
		if (strstr(m->origin, "write-protected") != NULL) {
			note(v, xstrdup("every configuration file llwrap "
					"read is read-only inside the sandbox "
					"(DESIGN.md §4), so the command cannot "
					"change the policy of its next run; no "
					"rule changes that"));
			return;
		}
		suggest_grant(v, sb, q, cur);
		return;
	}

	if (sb->backend == SANDBOX_BACKEND_BWRAP) {
		rules = sb->fs->rules;
		n = sb->fs->n_rules;
		handled = ~0ULL;
		set(&v->layer, xstrdup("F bubblewrap (mounts)"));
	} else {
		rules = sb->landlock->fs_rules;
		n = sb->landlock->n_fs_rules;
		handled = sb->landlock->handled_fs;
		set(&v->layer,
		    xasprintf("L1 Landlock (ABI %d)", sb->landlock->abi));
	}
	if ((need & handled) == 0) {
		v->allowed = true;
		set(&v->decision,
		    xasprintf("allowed: nothing restricts it (%s)",
			      sb->landlock->abi == 0
				      ? "Landlock is not available"
				      : "this Landlock ABI does not handle "
					"that right"));
		set(&v->layer, xstrdup("none"));
		return;
	}
	/* The one matcher, on the rules the kernel gets (the mask was
	 * decided above). */
	e = plan_decide_rules(rules, n, NULL, 0, q->path, need & handled);
	if (e.allowed) {
		v->allowed = true;
		set(&v->decision, xasprintf("allowed: %s %s",
					    access_verb(q->access), q->path));
		if (cur != NULL && level_allows(cur->access, q->access)) {
			set(&v->rule, xasprintf("%s = %s",
						policy_access_name(cur->access),
						cur->path));
			set(&v->origin, xstrdup(cur->origin));
		} else {
			const struct llw_path_rule *b =
				policy_rule_at(p, e.rule);

			if (b != NULL)
				set(&v->rule,
				    xasprintf("%s = %s",
					      policy_access_name(b->access),
					      b->path));
			else
				set(&v->rule,
				    xasprintf("the rule on %s", e.rule));
			set(&v->origin, xstrdup(e.origin));
			if (cur != NULL && !q->exists)
				note(v,
				     xasprintf("%s = %s (%s) is not "
					       "enforced: %s did not exist "
					       "when the sandbox started "
					       "(--explain lists such "
					       "rules)",
					       policy_access_name(cur->access),
					       cur->path, cur->origin,
					       cur->path));
			else if (cur != NULL)
				note(v,
				     xasprintf("%s = %s (%s) does not "
					       "apply to this access",
					       policy_access_name(cur->access),
					       cur->path, cur->origin));
		}
		if (m != NULL)
			note(v,
			     xasprintf("inside the mount mask of %s (%s)",
				       m->path, policy_access_name(m->access)));
		return;
	}
	v->allowed = false;
	if (cur != NULL) {
		set(&v->rule,
		    xasprintf("%s = %s", policy_access_name(cur->access),
			      cur->path));
		set(&v->origin, xstrdup(cur->origin));
		set(&v->decision,
		    xasprintf("denied: the rule %s %s", v->rule,
			      cur->access == LLW_ACCESS_DENY ? "hides it"
			      : level_allows(cur->access, q->access)
				      ? "would allow it, but it is not in "
					"the compiled plan (see --explain)"
				      : "does not allow it"));
	} else {
		set(&v->decision,
		    xasprintf("denied: no rule grants %s (the filesystem is "
			      "an allow-list)",
			      q->path));
	}
	if (cur == NULL || !level_allows(cur->access, q->access))
		suggest_grant(v, sb, q, cur);
}

/* ---- Pathname unix sockets ---- */

/* A socket in a secret or a denied path (gpg-agent's in ~/.gnupg): no
 * change is suggested for it. */
static void
unix_bounds(struct why_verdict *v, const struct sandbox *sb,
	    const struct why_query *q)
{
	bool inside;
	_cleanup_free_ char *unsafe = unsafe_grant(sb, q, q->path, &inside);

	if (unsafe != NULL && inside)
		no_safe_grant(v, q->path, unsafe, true);
}

static void
why_unix(const struct sandbox *sb, char *const *unix_paths,
	 const struct why_query *q, struct why_verdict *v)
{
	const struct policy *p = sb->policy;
	const struct plan_mask *m = NULL;

	if (!sb->filter.allow_unix) {
		v->allowed = false;
		set(&v->layer, xstrdup("L2 seccomp (socket(AF_UNIX) fails "
				       "with EAFNOSUPPORT)"));
		set(&v->decision, xstrdup("denied: the sandbox cannot create "
					  "unix sockets"));
		set(&v->rule, xstrdup("unix-sockets = deny"));
		set(&v->origin, xstrdup(p->unix_sockets_origin.origin
						? p->unix_sockets_origin.origin
						: "built-in default"));
		set(&v->change,
		    xasprintf("[network] unix = %s in a profile of yours (or "
			      "the flag --unix %s); it starts the network "
			      "supervisor, which allows that socket and the "
			      "sandbox's own",
			      q->path, q->path));
		unix_bounds(v, sb, q);
		return;
	}
	if (sb->use_ns)
		m = mask_over(sb->fs, q->path);
	if (m != NULL && m->access == LLW_ACCESS_DENY) {
		v->allowed = false;
		set(&v->layer, xstrdup("L3 mount namespace (mask)"));
		set(&v->decision, xasprintf("denied: %s is hidden under %s",
					    q->path, m->path));
		set(&v->rule, xasprintf("deny = %s", m->path));
		set(&v->origin, xstrdup(m->origin));
		set(&v->change, xasprintf("a rule at %s from a more specific "
					  "source, e.g. --ro %s",
					  q->path, q->path));
		unix_bounds(v, sb, q);
		return;
	}
	if (p->unix_sockets) {
		v->allowed = true;
		set(&v->layer,
		    xstrdup(sb->supervise ? "S supervisor" : "L2 seccomp"));
		set(&v->decision, xstrdup("allowed: any pathname unix socket "
					  "the sandbox can see"));
		set(&v->rule, xstrdup("unix-sockets = allow"));
		set(&v->origin, xstrdup(p->unix_sockets_origin.origin
						? p->unix_sockets_origin.origin
						: "built-in default"));
		return;
	}
	if (sb->supervise) {
		set(&v->layer, xstrdup("S supervisor"));
		for (size_t i = 0; i < p->unix_paths.n; i++) {
			if (unix_paths == NULL || unix_paths[i] == NULL ||
			    strcmp(unix_paths[i], q->path) != 0)
				continue;
			v->allowed = true;
			set(&v->decision,
			    xstrdup("allowed: the socket is on the unix "
				    "allow-list (compared by inode)"));
			set(&v->rule,
			    xasprintf("unix = %s", p->unix_paths.v[i].value));
			set(&v->origin, xstrdup(p->unix_paths.v[i].origin));
			return;
		}
		v->allowed = false;
		set(&v->decision,
		    xstrdup("denied: not on the unix allow-list and not a "
			    "socket the sandbox bound itself"));
		set(&v->rule, xstrdup("unix-sockets = deny"));
		set(&v->origin, xstrdup(p->unix_sockets_origin.origin
						? p->unix_sockets_origin.origin
						: "built-in default"));
		set(&v->change, xasprintf("[network] unix = %s in a profile "
					  "of yours (or the flag --unix %s)",
					  q->path, q->path));
		unix_bounds(v, sb, q);
		return;
	}
	/* Landlock ABI 9 decides (seccomp allowed AF_UNIX for that). */
	{
		const struct ruleset_plan *rp = sb->landlock;

		set(&v->layer, xasprintf("L1 Landlock (ABI %d)", rp->abi));
		for (size_t i = 0; i < rp->n_fs_rules; i++) {
			if (!path_under(q->path, rp->fs_rules[i].path) ||
			    !(rp->fs_rules[i].access & LLW_FS_RESOLVE_UNIX))
				continue;
			v->allowed = true;
			set(&v->decision, xstrdup("allowed: Landlock grants "
						  "resolve_unix on it"));
			set(&v->rule,
			    xasprintf("unix = %s", rp->fs_rules[i].path));
			set(&v->origin, xstrdup(rp->fs_rules[i].origin));
			return;
		}
		v->allowed = false;
		set(&v->decision,
		    xstrdup("denied: no unix rule grants it (sockets the "
			    "sandbox creates itself stay reachable)"));
		set(&v->change, xasprintf("[network] unix = %s in a profile "
					  "of yours (or the flag --unix %s)",
					  q->path, q->path));
		unix_bounds(v, sb, q);
	}
}

/* ---- Abstract unix sockets ---- */

/*
 * The host's abstract sockets (session D-Bus, X11, ...): no rule opens
 * them; the sandbox reaches only those it binds itself.
 */
static void
why_abstract(const struct sandbox *sb, const struct why_query *q,
	     struct why_verdict *v)
{
	v->allowed = false;
	set(&v->change, xstrdup("no rule opens the host's abstract sockets; "
				"a client that can use a pathname socket "
				"instead needs [network] unix = PATH"));
	if (!sb->filter.allow_unix) {
		set(&v->layer, xstrdup("L2 seccomp (socket(AF_UNIX) fails "
				       "with EAFNOSUPPORT)"));
		set(&v->decision, xstrdup("denied: the sandbox cannot create "
					  "unix sockets"));
		set(&v->rule, xstrdup("unix-sockets = deny"));
		set(&v->origin,
		    xstrdup(sb->policy->unix_sockets_origin.origin
				    ? sb->policy->unix_sockets_origin.origin
				    : "built-in default"));
	} else if (sb->supervise) {
		set(&v->layer, xstrdup("S supervisor"));
		set(&v->decision, xstrdup("denied: only abstract names the "
					  "sandbox bound itself are "
					  "reachable"));
		set(&v->rule, xstrdup(refusal_name(REFUSAL_ABSTRACT)));
	} else if (sb->use_ns && sb->ns.net) {
		set(&v->layer, xstrdup("L3 network namespace"));
		set(&v->decision, xstrdup("denied: abstract names belong to a "
					  "network namespace, and the "
					  "sandbox has its own"));
	} else if (sb->backend != SANDBOX_BACKEND_BWRAP &&
		   (sb->landlock->scoped & LLW_SCOPE_ABSTRACT_UNIX_SOCKET)) {
		set(&v->layer, xasprintf("L1 Landlock (ABI %d, abstract unix "
					 "scope)",
					 sb->landlock->abi));
		set(&v->decision, xstrdup("denied: only abstract sockets "
					  "created inside the sandbox are "
					  "reachable"));
	} else if (sb->backend == SANDBOX_BACKEND_BWRAP && sb->bwrap != NULL &&
		   !sb->bwrap->share_net) {
		set(&v->layer, xstrdup("F bubblewrap (a network namespace of "
				       "its own)"));
		set(&v->decision, xstrdup("denied: abstract names belong to a "
					  "network namespace, and the "
					  "sandbox has its own"));
	} else {
		v->allowed = true;
		free(steal_pointer(&v->change));
		set(&v->layer, xstrdup("none"));
		set(&v->decision,
		    xasprintf("allowed: nothing here confines abstract "
			      "sockets (NOT ENFORCED: needs Landlock ABI 6 or "
			      "a network namespace), so @%s is reachable",
			      q->path));
	}
}

/* ---- IP ---- */

static const struct llw_port_range *
port_find(const struct llw_ports *ps, uint16_t port)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].lo <= port && port <= ps->v[i].hi)
			return &ps->v[i];
	return NULL;
}

static const char *
origin_or_default(const char *o)
{
	return o != NULL ? o : "built-in default";
}

/* The port list and key an IP access is checked against. */
static const struct llw_ports *
port_list(const struct policy *p, enum why_access a, const char **key)
{
	switch (a) {
	case WHY_SEND_UDP:
		*key = "connect-udp";
		return &p->connect_udp;
	case WHY_BIND_TCP:
		*key = "bind-tcp";
		return &p->bind_tcp;
	case WHY_BIND_UDP:
		*key = "bind-udp";
		return &p->bind_udp;
	default:
		*key = "connect-tcp";
		return &p->connect_tcp;
	}
}

static uint64_t
net_right(enum why_access a)
{
	switch (a) {
	case WHY_SEND_UDP:
		return LLW_NET_CONNECT_SEND_UDP;
	case WHY_BIND_TCP:
		return LLW_NET_BIND_TCP;
	case WHY_BIND_UDP:
		return LLW_NET_BIND_UDP;
	default:
		return LLW_NET_CONNECT_TCP;
	}
}

static bool
is_bind(enum why_access a)
{
	return a == WHY_BIND_TCP || a == WHY_BIND_UDP;
}

/* The target as the log writes it: "host:port" or the address. */
static char *
target_text(const struct why_query *q)
{
	if (q->host != NULL)
		return xasprintf("%s:%u", q->host, q->addr.port);
	return value_addr_format(&q->addr);
}

/* The address alone, without port or brackets. */
static char *
addr_text(const struct netpolicy_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (inet_ntop(a->family, a->a, buf, sizeof(buf)) == NULL)
		return xstrdup("?");
	return xstrdup(buf);
}

/* The smallest change that lets the sandbox reach a:port directly: an
 * allow-cidr entry of that one address. */
static char *
cidr_change(const struct netpolicy_addr *a, unsigned port)
{
	_cleanup_free_ char *t = addr_text(a);
	int bits = a->family == AF_INET ? 32 : 128;

	return xasprintf("[network] allow-cidr = %s/%d:%u (or --allow-cidr "
			 "%s/%d:%u)",
			 t, bits, port, t, bits, port);
}

/* What the supervisor asks of this host (netpolicy_lookup): its own
 * addresses and on-link prefixes, as it reads them now.  The sandbox's
 * own listeners and the names learned are the run's, which why has not. */
static bool
why_host_local(void *ctx, const struct netpolicy_addr *a)
{
	(void)ctx;
	return sockdiag_host_local(NULL, a);
}

static const struct netpolicy_lookup why_lookup = {
	.host_local = why_host_local,
};

/* A port rule's warning: it is not a host rule (DESIGN.md §11). */
static void
note_port_reach(struct why_verdict *v, const char *key, uint16_t port)
{
	if (strcmp(key, "connect-tcp") == 0 || strcmp(key, "connect-udp") == 0)
		note(v, xasprintf("a port rule reaches every host on that "
				  "port: %s %u allows port %u on any "
				  "address, loopback and LAN included",
				  key, port, port));
}

/* Set v's rule to the first allow-cidr entry holding a. */
static void
cidr_rule(const struct policy *p, const struct netpolicy_addr *a,
	  struct why_verdict *v)
{
	for (size_t i = 0; i < p->n_cidrs; i++) {
		_cleanup_free_ char *c = NULL;

		if (!netpolicy_cidr_contains(&p->cidrs[i], a))
			continue;
		c = value_cidr_format(&p->cidrs[i]);
		set(&v->rule, xasprintf("allow-cidr = %s", c));
		set(&v->origin, xstrdup(p->cidrs[i].origin));
		return;
	}
}

/*
 * A name under allow-host (DESIGN.md §6.1): the entries decide, through
 * llwrap's proxy; the addresses it resolves to are checked when it is
 * reached (rebinding), which why cannot know.
 */
static void
why_host(const struct policy *p, bool stub, const struct why_query *q,
	 struct why_verdict *v)
{
	_cleanup_free_ char *name = xstrdup(q->host);
	size_t len = strlen(name);
	const char *origin = NULL;
	enum hostrule_verdict hv;
	uint16_t port = q->addr.port;

	if (len > 1 && name[len - 1] == '.')
		name[len - 1] = '\0';
	for (char *c = name; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	set(&v->layer, stub ? xstrdup("S supervisor and llwrap's resolver "
				      "(allow-host)")
			    : xstrdup("S supervisor and llwrap's proxy "
				      "(allow-host)"));
	hv = hostrule_match(p->hosts, p->n_hosts, &p->connect_tcp, name, port,
			    &origin);
	for (size_t i = 0; origin != NULL && i < p->n_hosts; i++) {
		_cleanup_free_ char *h = NULL;

		if (p->hosts[i].origin != origin)
			continue;
		h = value_host_format(&p->hosts[i]);
		set(&v->rule, xasprintf("allow-host = %s", h));
		set(&v->origin, xstrdup(origin));
		break;
	}
	if (hv == HOSTRULE_ALLOWED) {
		v->allowed = true;
		set(&v->decision,
		    stub ? xasprintf("allowed: connect %s:%u, at the "
				     "addresses llwrap's resolver gives for it",
				     name, port)
			 : xasprintf("allowed: connect %s:%u, by name, through "
				     "llwrap's proxy (HTTPS_PROXY)",
				     name, port));
		note(v, xstrdup("an address the name resolves to on this "
				"host or its networks (loopback, private, "
				"link-local, CGNAT, ULA) is refused unless an "
				"allow-cidr entry holds it (rebinding)"));
		if (stub && relay_port_checked(port))
			note(v,
			     xasprintf(
				     "the name is checked too (llwrap-relay): "
				     "a connection to the address must "
				     "carry %s (or another name learned "
				     "there) as its TLS server name or "
				     "HTTP Host; another name at the same "
				     "address (a CDN) is refused (%s), so "
				     "are none and an encrypted "
				     "ClientHello (%s, %s)",
				     name, refusal_name(REFUSAL_SERVER_NAME),
				     refusal_name(REFUSAL_NO_NAME),
				     refusal_name(REFUSAL_ECH)));
		else
			note(v,
			     stub ? xasprintf("decided by address alone: port "
					      "%u (ssh, git://) carries no "
					      "server name to check; another "
					      "name at the same address is "
					      "reached too",
					      port)
				  : xstrdup("a client that ignores the proxy "
					    "variables reaches no name: DNS "
					    "is refused"));
		return;
	}
	v->allowed = false;
	if (hv == HOSTRULE_PORT) {
		set(&v->decision,
		    xasprintf(
			    "denied: %s is in allow-host, not on port %u (%s)",
			    name, port, refusal_name(REFUSAL_HOST_PORT)));
	} else {
		set(&v->decision,
		    xasprintf("denied: %s is not in allow-host (%s)%s", name,
			      refusal_name(REFUSAL_HOST),
			      stub ? "; its DNS query is answered REFUSED "
				     "and never leaves the machine"
				   : ""));
		set(&v->rule,
		    xasprintf("allow-host (%zu %s, none names %s)", p->n_hosts,
			      p->n_hosts == 1 ? "entry" : "entries", name));
		set(&v->origin, xstrdup(p->hosts[0].origin));
	}
	set(&v->change, xasprintf("[network] allow-host = %s:%u (or "
				  "--allow-host %s:%u)",
				  name, port, name, port));
}

/* Who turned the proxy on: proxy = yes, else the first allow-host. */
static char *
proxy_origin(const struct policy *p)
{
	return xstrdup(origin_or_default(p->proxy_origin.origin
						 ? p->proxy_origin.origin
					 : p->n_hosts ? p->hosts[0].origin
						      : NULL));
}

static void
why_supervised(const struct sandbox *sb, const struct netpolicy_rules *rules,
	       const struct why_query *q, struct why_verdict *v)
{
	const struct policy *p = sb->policy;
	enum netpolicy_proto proto =
		q->access == WHY_CONNECT_TCP || q->access == WHY_BIND_TCP
			? NETPOLICY_TCP
			: NETPOLICY_UDP;
	enum netpolicy_op op = q->access == WHY_SEND_UDP ? NETPOLICY_SEND
			       : is_bind(q->access)	 ? NETPOLICY_BIND
							 : NETPOLICY_CONNECT;
	const char *key;
	enum refusal rule;
	const struct llw_ports *list = port_list(p, q->access, &key);
	const struct llw_port_range *pr = port_find(list, q->addr.port);
	_cleanup_free_ char *t = target_text(q);
	uint16_t port = q->addr.port;

	set(&v->layer, xstrdup("S supervisor"));
	if (q->host != NULL && netpolicy_proxy_enabled(p) &&
	    q->access == WHY_CONNECT_TCP) {
		why_host(p, sandbox_hosts_stub(sb), q, v);
		return;
	}
	if (q->host != NULL) {
		/* A name: the supervisor sees only the address it resolves
		 * to.  Without allow-cidr entries the port decides. */
		if (port == 53 || p->n_cidrs > 0) {
			v->depends = true;
			v->allowed = false;
			set(&v->decision,
			    xasprintf("depends on the address %s resolves "
				      "to: only destinations inside an "
				      "allow-cidr entry are reachable",
				      q->host));
			for (size_t i = 0; i < p->n_cidrs; i++) {
				_cleanup_free_ char *c =
					value_cidr_format(&p->cidrs[i]);

				note(v, xasprintf("allow-cidr = %s (%s)", c,
						  p->cidrs[i].origin));
			}
			set(&v->change,
			    xasprintf("[network] allow-host = %s:%u (or "
				      "allow-cidr = ADDR/32:%u for each of "
				      "its addresses)",
				      q->host, port, port));
			return;
		}
	}
	if (q->host == NULL) {
		struct netpolicy_query nq = { .op = op,
					      .proto = proto,
					      .addr = q->addr };

		if (op == NETPOLICY_BIND)
			(void)netpolicy_bind_address(rules, &nq.addr);
		else
			netpolicy_addr_destination(&nq.addr);
		rule = netpolicy_decide(rules, &nq, &why_lookup);
	} else {
		rule = sb->policy->net == LLW_NET_HOST || pr != NULL
			       ? REFUSAL_NONE
			       : REFUSAL_NET_PORT;
	}
	v->allowed = rule == REFUSAL_NONE;
	if (rule == REFUSAL_NONE) {
		set(&v->decision,
		    xasprintf("allowed: %s %s", access_verb(q->access), t));
		if (p->net == LLW_NET_HOST) {
			set(&v->rule, xstrdup("mode = host"));
			set(&v->origin,
			    xstrdup(origin_or_default(p->net_origin.origin)));
		} else if (is_bind(q->access) && p->n_listen_addrs > 0) {
			set(&v->rule, xstrdup("listen"));
			set(&v->origin, xstrdup(p->listen_addrs[0].origin));
		} else if (port == 53 && !is_bind(q->access)) {
			set(&v->rule, xstrdup("dns (the resolvers)"));
			set(&v->origin,
			    xstrdup(p->n_dns_addrs ? p->dns_addrs[0].origin
						   : "/etc/resolv.conf"));
		} else if (p->n_cidrs > 0 && !is_bind(q->access)) {
			cidr_rule(p, &q->addr, v);
		} else if (pr != NULL) {
			set(&v->rule, xasprintf("%s = %u", key, port));
			set(&v->origin, xstrdup(pr->origin));
			if (!is_bind(q->access))
				note(v, xasprintf("under the supervisor, %s "
						  "%u reaches port %u of "
						  "internet hosts, not of "
						  "this host or its networks",
						  key, port, port));
		}
		if (q->host != NULL)
			note(v, xstrdup("a name is decided by the address it "
					"resolves to; resolving it needs DNS "
					"(port 53 to a resolver)"));
		return;
	}
	if (rule == REFUSAL_DNS && sandbox_hosts_stub(sb)) {
		set(&v->decision,
		    xstrdup("depends: a query to a resolver of "
			    "/etc/resolv.conf (or the dns key) is answered by "
			    "llwrap's resolver, which resolves only the names "
			    "in allow-host and answers any other REFUSED "
			    "without asking anyone; port 53 reaches nothing "
			    "else"));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->origin, proxy_origin(p));
		v->depends = true;
		return;
	} else if (rule == REFUSAL_UNNAMED) {
		set(&v->decision,
		    xstrdup("depends: outside allow-cidr, an address is "
			    "reached only after a name in allow-host resolved "
			    "to it (for the answer's TTL, on that entry's "
			    "ports); by itself, denied"));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->change, cidr_change(&q->addr, port));
		set(&v->origin, proxy_origin(p));
		v->depends = true;
		return;
	} else if (rule == REFUSAL_PROXY && port == 53) {
		set(&v->decision,
		    xstrdup("denied: names are resolved by llwrap's proxy "
			    "(allow-host, proxy = yes), not by the command: "
			    "no DNS"));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->origin, proxy_origin(p));
		return;
	} else if (rule == REFUSAL_PROXY) {
		set(&v->decision,
		    xstrdup("denied: with llwrap's proxy (allow-host, proxy = "
			    "yes) only allow-cidr entries are reached "
			    "directly; port rules name the hosts' ports, and "
			    "names go through the proxy (HTTPS_PROXY)"));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->change, cidr_change(&q->addr, port));
		set(&v->origin, proxy_origin(p));
		return;
	} else if (rule == REFUSAL_DNS) {
		set(&v->decision,
		    xasprintf("denied: port 53 reaches only the resolvers "
			      "(the dns key, else /etc/resolv.conf)"));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->change,
		    xasprintf("[network] dns = %s (or --dns %s)", t, t));
	} else if (rule == REFUSAL_LOCAL) {
		set(&v->decision,
		    xasprintf("denied: %s is on this host or its networks "
			      "(loopback, private, link-local), which a port "
			      "rule does not reach; the sandbox's own "
			      "listeners there are reachable",
			      t));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->change, cidr_change(&q->addr, port));
	} else if (rule == REFUSAL_NO_CIDR) {
		_cleanup_free_ char *a = addr_text(&q->addr);

		set(&v->decision, xstrdup("denied: the address is inside no "
					  "allow-cidr entry"));
		set(&v->rule, xasprintf("allow-cidr (%zu entries, none holds "
					"%s)",
					p->n_cidrs, a));
		set(&v->origin, xstrdup(p->cidrs[0].origin));
		set(&v->change, cidr_change(&q->addr, port));
		return;
	} else if (is_bind(q->access)) {
		set(&v->decision,
		    xasprintf("denied: %s is not an allowed bind address "
			      "(%s)",
			      t, refusal_name(rule)));
		set(&v->rule, xstrdup(refusal_name(rule)));
		set(&v->change, p->n_listen_addrs > 0
					? xasprintf("[network] listen = %s (or "
						    "--listen %s)",
						    t, t)
					: xasprintf("[network] %s = %u (or "
						    "--%s %u)",
						    key, port, key, port));
	} else if (p->n_cidrs > 0) {
		set(&v->decision,
		    xasprintf("denied: port %u is not among the ports of the "
			      "allow-cidr entries holding the address",
			      port));
		cidr_rule(p, &q->addr, v);
		set(&v->change, cidr_change(&q->addr, port));
		return;
	} else {
		set(&v->decision,
		    xasprintf("denied: port %u is not in %s", port, key));
		set(&v->rule, xasprintf("%s (port %u not listed)", key, port));
		set(&v->change, xasprintf("[network] %s = %u (or --%s %u)", key,
					  port, key, port));
		note_port_reach(v, key, port);
	}
	set(&v->origin, xstrdup(origin_or_default(p->net_origin.origin)));
}

static void
why_inet(const struct sandbox *sb, const struct netpolicy_rules *rules,
	 const struct why_query *q, struct why_verdict *v)
{
	const struct policy *p = sb->policy;
	const struct ruleset_plan *rp = sb->landlock;
	const char *key;
	const struct llw_ports *list = port_list(p, q->access, &key);
	const struct llw_port_range *pr = port_find(list, q->addr.port);
	bool udp = q->access == WHY_SEND_UDP || q->access == WHY_BIND_UDP;
	_cleanup_free_ char *t = target_text(q);
	uint16_t port = q->addr.port;

	if (p->net == LLW_NET_NONE) {
		set(&v->rule, xstrdup("mode = none"));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		if (sb->filter.deny_inet) {
			v->allowed = false;
			set(&v->layer, xstrdup("L2 seccomp (no inet "
					       "sockets)"));
			set(&v->decision, xstrdup("denied: no network at "
						  "all"));
		} else if (is_bind(q->access)) {
			v->allowed = true;
			set(&v->layer, xstrdup("L3 network namespace (only "
					       "lo)"));
			set(&v->decision,
			    xstrdup("allowed, in the sandbox's own network "
				    "namespace: only the sandbox itself can "
				    "connect to it"));
			return;
		} else if (q->host == NULL &&
			   netpolicy_addr_loopback(&q->addr)) {
			v->allowed = false;
			set(&v->layer, xstrdup("L3 network namespace (only "
					       "lo)"));
			set(&v->decision,
			    xstrdup("denied: loopback in the sandbox is its "
				    "own network namespace's, so servers on "
				    "the host's loopback are out of reach "
				    "(the sandbox's own servers answer "
				    "there)"));
		} else {
			v->allowed = false;
			set(&v->layer, xstrdup("L3 network namespace (only "
					       "lo)"));
			set(&v->decision,
			    xstrdup("denied: the sandbox's network namespace "
				    "has only lo"));
		}
		set(&v->change, xstrdup("[network] mode = filtered with the "
					"port rules you need (or --net "
					"filtered)"));
		return;
	}
	if (udp && sb->filter.deny_udp) {
		v->allowed = false;
		set(&v->layer, xstrdup("L2 seccomp (no UDP sockets)"));
		set(&v->decision, xstrdup("denied: the policy allows no UDP "
					  "port, so UDP sockets are refused"));
		set(&v->rule, xasprintf("%s (empty)", key));
		set(&v->change, xasprintf("[network] %s = %u (or --%s %u)", key,
					  port, key, port));
		return;
	}
	if (sb->backend == SANDBOX_BACKEND_BWRAP && sb->bwrap != NULL) {
		/* bubblewrap has no port rules: a network namespace of its
		 * own, or the host's whole network, where the supervisor
		 * (when it runs) decides as under Landlock. */
		if (sb->bwrap->share_net && rules != NULL && sb->supervise) {
			why_supervised(sb, rules, q, v);
			return;
		}
		if (sb->bwrap->share_net) {
			v->allowed = true;
			set(&v->layer, xstrdup("none (bubblewrap shares the "
					       "host network)"));
			set(&v->decision,
			    xasprintf("allowed: %s %s; under bubblewrap every "
				      "port is reachable once any is (NOT "
				      "ENFORCED)",
				      access_verb(q->access), t));
			return;
		}
		v->allowed = false;
		set(&v->layer, xstrdup("F bubblewrap (a network namespace "
				       "with only lo)"));
		set(&v->decision, xstrdup("denied: the policy allows no port, "
					  "so the sandbox has no host "
					  "network"));
		set(&v->rule, xasprintf("%s (port %u not listed)", key, port));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		set(&v->change, xasprintf("[network] %s = %u (or --%s %u); "
					  "bubblewrap then shares the host "
					  "network, every port (best effort "
					  "only)",
					  key, port, key, port));
		return;
	}
	if (rules != NULL && sb->supervise) {
		why_supervised(sb, rules, q, v);
		return;
	}
	if (p->net == LLW_NET_HOST) {
		v->allowed = true;
		set(&v->layer, xstrdup("none"));
		set(&v->decision,
		    xasprintf("allowed: %s %s", access_verb(q->access), t));
		set(&v->rule, xstrdup("mode = host"));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		return;
	}
	if (q->host != NULL && !q->host_in_hosts && !is_bind(q->access) &&
	    netpolicy_names_closed(p, sb->supervise)) {
		/* The port is never reached: the name does not resolve. */
		v->allowed = false;
		set(&v->layer, sb->filter.deny_udp
				       ? xstrdup("L2 seccomp (no UDP sockets, "
						 "so no DNS query)")
				       : xasprintf("L1 Landlock (ABI %d, UDP "
						   "port 53 not allowed)",
						   rp->abi));
		set(&v->decision,
		    xasprintf("denied: %s does not resolve here: DNS is "
			      "closed (only names in /etc/hosts resolve), so "
			      "no port rule is reached by name",
			      q->host));
		set(&v->rule, xstrdup("connect-udp (no port 53)"));
		set(&v->origin,
		    xstrdup(origin_or_default(p->net_origin.origin)));
		set(&v->change, xasprintf("[network] allow-host = %s:%u (or "
					  "--allow-host %s:%u): llwrap "
					  "resolves that name alone",
					  q->host, port, q->host, port));
		note(v, xstrdup("-p opencode opens the model providers and the "
				"package registries by name"));
		return;
	}
	if ((rp->handled_net & net_right(q->access)) == 0) {
		v->allowed = true;
		set(&v->layer, xstrdup("none"));
		set(&v->decision,
		    xasprintf("allowed: this kernel's Landlock (ABI %d) "
			      "does not restrict %s ports (NOT ENFORCED)",
			      rp->abi, udp ? "UDP" : "TCP"));
		return;
	}
	set(&v->layer, xasprintf("L1 Landlock (ABI %d)", rp->abi));
	for (size_t i = 0; i < rp->n_net_rules; i++) {
		if (rp->net_rules[i].port != port ||
		    !(rp->net_rules[i].access & net_right(q->access)))
			continue;
		v->allowed = true;
		set(&v->decision,
		    xasprintf("allowed: %s %s", access_verb(q->access), t));
		set(&v->rule, xasprintf("%s = %u", key, port));
		set(&v->origin,
		    xstrdup(pr ? pr->origin : rp->net_rules[i].origin));
		note_port_reach(v, key, port);
		if (q->host != NULL)
			note(v, xstrdup("the port decides, whatever address "
					"the name resolves to (to reach this "
					"name alone: allow-host, which starts "
					"the supervisor)"));
		return;
	}
	v->allowed = false;
	set(&v->decision,
	    xasprintf("denied: no %s rule for port %u", key, port));
	set(&v->rule, xasprintf("%s (port %u not listed)", key, port));
	set(&v->origin, xstrdup(origin_or_default(p->net_origin.origin)));
	set(&v->change,
	    xasprintf("[network] %s = %u (or --%s %u)", key, port, key, port));
	if (!is_bind(q->access)) {
		note_port_reach(v, key, port);
		if (q->host == NULL) {
			_cleanup_free_ char *a = addr_text(&q->addr);

			note(v,
			     xasprintf("to reach this host alone instead: "
				       "allow-cidr = %s/%d:%u, which "
				       "starts the supervisor and then "
				       "limits every destination to "
				       "allow-cidr entries",
				       a, q->addr.family == AF_INET ? 32 : 128,
				       port));
		}
	}
}

void
why_decide(const struct sandbox *sb, const struct netpolicy_rules *rules,
	   char *const *unix_paths, const struct why_query *q,
	   struct why_verdict *v)
{
	memset(v, 0, sizeof(*v));
	switch (q->access) {
	case WHY_READ:
	case WHY_WRITE:
	case WHY_EXEC:
		why_path(sb, q, v);
		if (sb->policy->private_tmp && path_under(q->path, "/tmp"))
			note(v,
			     xstrdup("/tmp is private in the sandbox (an "
				     "empty tmpfs): this is about the "
				     "sandbox's /tmp, where the host's files "
				     "are not"));
		else if (!q->exists && q->access != WHY_WRITE)
			note(v, xasprintf("%s does not exist (now): this is "
					  "the decision once it does",
					  q->path));
		break;
	case WHY_CONNECT_UNIX:
		why_unix(sb, unix_paths, q, v);
		break;
	case WHY_CONNECT_ABSTRACT:
		why_abstract(sb, q, v);
		break;
	default:
		why_inet(sb, rules, q, v);
		break;
	}
	if (!v->allowed && sb->must_fail)
		note(v, xasprintf("this policy does not run at all here: %s",
				  sb->fail_cause));
}

int
why_parse_target(const char *s, struct why_query *q, char **host)
{
	const char *colon = strrchr(s, ':');
	_cleanup_free_ char *h = NULL;
	uint16_t lo, hi;

	*host = NULL;
	if (colon == NULL || colon == s ||
	    value_port_range(colon + 1, &lo, &hi, NULL) < 0 || lo != hi)
		return -EINVAL;
	h = xstrndup(s, (size_t)(colon - s));
	if (h[0] == '[') {
		size_t n = strlen(h);

		if (n < 3 || h[n - 1] != ']')
			return -EINVAL;
	} else if (strchr(h, ':') != NULL) {
		return -EINVAL; /* a bare IPv6 address needs brackets */
	}
	memset(&q->addr, 0, sizeof(q->addr));
	if (value_addr(h, &q->addr, NULL) < 0) {
		if (h[0] == '[' || strspn(h, "abcdefghijklmnopqrstuvwxyz"
					     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789.-_") != strlen(h))
			return -EINVAL;
		*host = steal_pointer(&h);
	}
	q->addr.port = lo;
	q->host = *host;
	return 0;
}

char *
why_format(const char *what, const struct why_verdict *v)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		abort();
	fprintf(f, "%s: %s\n", what, v->decision);
	if (v->rule != NULL && v->origin != NULL)
		fprintf(f, "  rule:   %s   (%s)\n", v->rule, v->origin);
	else if (v->rule != NULL)
		fprintf(f, "  rule:   %s\n", v->rule);
	else if (v->origin != NULL)
		fprintf(f, "  source: %s\n", v->origin);
	fprintf(f, "  layer:  %s\n", v->layer ? v->layer : "none");
	if (!v->allowed && v->change != NULL)
		fprintf(f, "  allow:  %s\n", v->change);
	for (char **n = v->notes; n != NULL && *n != NULL; n++)
		fprintf(f, "  note:   %s\n", *n);
	if (fclose(f) != 0)
		abort();
	return out;
}

/* ---- The one-screen summary of --explain ---- */

/* Append "path (level)" items to a line, at most max, then "+N more". */
static char *
summary_list(char **items, size_t max, const char *sep)
{
	size_t n = strv_length(items);
	_cleanup_strv_ char **shown = NULL;
	_cleanup_free_ char *joined = NULL;

	for (size_t i = 0; i < n && i < max; i++)
		strv_push(&shown, items[i]);
	joined = shown ? strv_join(shown, sep) : xstrdup("");
	if (n > max)
		return xasprintf("%s%s+%zu more", joined, sep, n - max);
	return steal_pointer(&joined);
}

/* A path for the summary: under home as ~/..., else as is. */
static char *
summary_path(const char *path, const char *home)
{
	size_t n = home ? strlen(home) : 0;

	if (n > 1 && strncmp(path, home, n) == 0 &&
	    (path[n] == '/' || path[n] == '\0'))
		return xasprintf("~%s", path + n);
	return xstrdup(path);
}

static char *
summary_ports(const struct llw_ports *ps)
{
	_cleanup_strv_ char **v = NULL;

	for (size_t i = 0; i < ps->n; i++)
		strv_push_take(&v, ps->v[i].lo == ps->v[i].hi
					   ? xasprintf("%u", ps->v[i].lo)
					   : xasprintf("%u-%u", ps->v[i].lo,
						       ps->v[i].hi));
	return v ? strv_join(v, " ") : xstrdup("none");
}

/* The winning configured rule at exactly path, or NULL. */
static const struct llw_path_rule *
rule_at(const struct policy *p, const char *path)
{
	const struct llw_path_rule *r = policy_rule_at(p, path);

	return r != NULL && strcmp(r->path, path) == 0 ? r : NULL;
}

char **
why_summary(const struct sandbox *sb, const char *home)
{
	const struct policy *p = sb->policy;
	enum llw_access proj = policy_access_at(p, p->project, NULL);
	_cleanup_strv_ char **in_home = NULL;
	char **by_level[LLW_ACCESS_RWX + 1] = { NULL };
	_cleanup_strv_ char **masks = NULL, **net = NULL;
	_cleanup_free_ char *list = NULL;
	bool home_ok = home != NULL && home[0] == '/' && home[1] != '\0';
	char **v = NULL;

	strv_push_take(&v, xasprintf("project %s: %s%s", p->project,
				     policy_access_name(proj),
				     proj == LLW_ACCESS_RW
					     ? " (rw does not include execute)"
					     : ""));
	for (size_t i = 0; i < p->n_paths; i++) {
		const struct llw_path_rule *r = &p->paths[i];
		_cleanup_free_ char *s = NULL;

		if (rule_at(p, r->path) != r || path_under(r->path, p->project))
			continue;
		s = summary_path(r->path, home_ok ? home : NULL);
		if (home_ok && strcmp(r->path, home) == 0)
			continue;
		if (home_ok && path_under(r->path, home))
			strv_push_take(&in_home,
				       xasprintf("%s %s",
						 policy_access_name(r->access),
						 s));
		else if (r->access != LLW_ACCESS_DENY)
			strv_push(&by_level[r->access], s);
	}
	if (home_ok) {
		enum llw_access h = policy_access_at(p, home, NULL);

		list = summary_list(in_home, 6, ", ");
		if (h == LLW_ACCESS_DENY)
			strv_push_take(&v, xasprintf("home: hidden%s%s",
						     in_home ? " except " : "",
						     list));
		else
			strv_push_take(&v,
				       xasprintf("home: %s%s%s",
						 policy_access_name(h),
						 in_home ? "; " : "", list));
		free(steal_pointer(&list));
	}
	for (int a = LLW_ACCESS_RWX; a > LLW_ACCESS_DENY; a--) {
		if (by_level[a] == NULL)
			continue;
		list = summary_list(by_level[a], 6, " ");
		strv_push_take(
			&v,
			xasprintf("%s elsewhere: %s%s%s", policy_access_name(a),
				  list,
				  a == LLW_ACCESS_RW ? " (rw: no execute)" : "",
				  p->private_tmp && strv_contains(by_level[a],
								  "/tmp")
					  ? " (/tmp private)"
					  : ""));
		free(steal_pointer(&list));
		strv_free(by_level[a]);
	}
	for (size_t i = 0; sb->use_ns && i < sb->fs->n_masks; i++) {
		const struct plan_mask *m = &sb->fs->masks[i];

		_cleanup_free_ char *s =
			summary_path(m->path, home_ok ? home : NULL);

		strv_push_take(
			&masks,
			xasprintf("%s %s", policy_access_name(m->access), s));
	}
	if (masks != NULL) {
		list = summary_list(masks, 6, ", ");
		strv_push_take(&v, xasprintf("masked (L3): %s", list));
		free(steal_pointer(&list));
	}

	if (p->net == LLW_NET_NONE) {
		strv_push(&v, "network: none (a namespace with only lo)");
	} else if (p->net == LLW_NET_HOST) {
		strv_push(&v, "network: host (unrestricted)");
	} else {
		_cleanup_free_ char *ct = summary_ports(&p->connect_tcp);
		_cleanup_free_ char *bt = summary_ports(&p->bind_tcp);
		_cleanup_free_ char *cu = summary_ports(&p->connect_udp);

		strv_push_take(&net, xasprintf("tcp ports %s", ct));
		if (p->bind_tcp.n)
			strv_push_take(&net, xasprintf("bind %s", bt));
		strv_push_take(&net,
			       p->connect_udp.n ? xasprintf("udp ports %s", cu)
			       : sandbox_hosts_stub(sb)
				       ? xstrdup("DNS: allowed names")
			       : netpolicy_proxy_enabled(p) ? xstrdup("no DNS")
			       : sb->supervise ? xstrdup("udp: DNS only")
					       : xstrdup("no udp"));
		for (size_t i = 0; i < p->n_hosts; i++) {
			_cleanup_free_ char *h =
				value_host_format(&p->hosts[i]);

			strv_push_take(&net, xasprintf("host %s", h));
		}
		for (size_t i = 0; i < p->n_cidrs; i++) {
			_cleanup_free_ char *c =
				value_cidr_format(&p->cidrs[i]);

			strv_push_take(&net, xasprintf("cidr %s", c));
		}
		list = strv_join(net, "; ");
		strv_push_take(
			&v,
			xasprintf("network: filtered: %s%s", list,
				  sb->supervise && sandbox_hosts_stub(sb)
					  ? " (supervised: names through "
					    "llwrap's resolver, no other name "
					    "resolves; port rules name the "
					    "hosts' ports and reach only the "
					    "addresses allowed names resolve "
					    "to)"
				  : sb->supervise && netpolicy_proxy_enabled(p)
					  ? " (supervised: names only through "
					    "llwrap's proxy, HTTPS_PROXY; port "
					    "rules name the hosts' ports and "
					    "reach nothing directly)"
				  : sb->supervise
					  ? " (supervised: port rules reach "
					    "internet hosts, not this host or "
					    "its networks; the sandbox's own "
					    "servers on any loopback port)"
				  : p->connect_tcp.n
					  ? " (a port rule reaches every host "
					    "on it)"
					  : ""));
		free(steal_pointer(&list));
	}
	if (p->unix_sockets) {
		strv_push(&v, "unix: any pathname socket the sandbox can see");
	} else if (p->unix_paths.n > 0) {
		_cleanup_strv_ char **u = NULL;

		for (size_t i = 0; i < p->unix_paths.n; i++)
			strv_push(&u, p->unix_paths.v[i].value);
		list = summary_list(u, 4, " ");
		strv_push_take(
			&v, xasprintf("unix: %s, and the sandbox's own", list));
		free(steal_pointer(&list));
	} else {
		strv_push(&v, sb->filter.allow_unix
				      ? "unix: only the sandbox's own sockets"
				      : "unix: none (no unix sockets)");
	}
	strv_push_take(&v,
		       xasprintf("processes: %s%s",
				 p->hide_processes ? "host processes hidden"
						   : "host processes visible",
				 p->ptrace_deny ? "; no ptrace" : ""));
	if (sb->must_fail)
		strv_push_take(&v,
			       xasprintf("WILL NOT RUN: %s", sb->fail_cause));
	else if (sb->not_enforced != NULL)
		strv_push_take(&v,
			       xasprintf("NOT ENFORCED: %zu restriction(s), "
					 "listed below",
					 strv_length(sb->not_enforced)));
	return v;
}
