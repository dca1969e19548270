/*
 * The merge: a source's typed entries applied by the key table's merge
 * rules (policy-merge.h).  Pure but for git-config, which reads the git
 * configuration files it names to find what they include.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdutil.h"
#include "gitconfig.h"
#include "keys.h"
#include "policy-merge.h"
#include "path.h"
#include "strv.h"
#include "xalloc.h"

static int
net_openness(enum llw_net_mode m)
{
	return m == LLW_NET_NONE ? 0 : m == LLW_NET_FILTERED ? 1 : 2;
}

static void
items_clear(struct llw_items *it)
{
	for (size_t i = 0; i < it->n; i++) {
		free(it->v[i].value);
		free(it->v[i].origin);
	}
	free(it->v);
	it->v = NULL;
	it->n = 0;
}

static void
items_remove(struct llw_items *it, size_t i)
{
	free(it->v[i].value);
	free(it->v[i].origin);
	memmove(&it->v[i], &it->v[i + 1], (it->n - i - 1) * sizeof(*it->v));
	it->n--;
}

void
policy_merge_items_add(struct llw_items *it, const char *value,
		       const char *origin)
{
	for (size_t i = 0; i < it->n; i++)
		if (strcmp(it->v[i].value, value) == 0)
			return;
	it->v = xreallocarray(it->v, it->n + 1, sizeof(*it->v));
	it->v[it->n].value = xstrdup(value);
	it->v[it->n].origin = xstrdup(origin);
	it->n++;
}

static void
ports_clear(struct llw_ports *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->v[i].origin);
	free(pl->v);
	pl->v = NULL;
	pl->n = 0;
}

static void
ports_add(struct llw_ports *pl, uint16_t lo, uint16_t hi, const char *origin)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].lo == lo && pl->v[i].hi == hi)
			return;
	pl->v = xreallocarray(pl->v, pl->n + 1, sizeof(*pl->v));
	pl->v[pl->n].lo = lo;
	pl->v[pl->n].hi = hi;
	pl->v[pl->n].origin = xstrdup(origin);
	pl->n++;
}

/* True when every port of lo..hi is in one of the ranges of pl. */
static bool
ports_cover(const struct llw_ports *pl, uint16_t lo, uint16_t hi)
{
	uint32_t next = lo;

	/* Walk up from lo, jumping to the end of any range holding next. */
	for (bool moved = true; moved && next <= hi;) {
		moved = false;
		for (size_t i = 0; i < pl->n; i++) {
			if (pl->v[i].lo <= next && next <= pl->v[i].hi) {
				next = (uint32_t)pl->v[i].hi + 1;
				moved = true;
			}
		}
	}
	return next > hi;
}

static void
ports_copy(struct llw_ports *dst, const struct llw_ports *src)
{
	dst->v = NULL;
	dst->n = 0;
	for (size_t i = 0; i < src->n; i++)
		ports_add(dst, src->v[i].lo, src->v[i].hi, src->v[i].origin);
}

static void
scalar_set(struct llw_scalar_origin *s, const char *origin)
{
	free(s->origin);
	s->origin = xstrdup(origin);
}

/* The same address (ports aside): values are normalised and zeroed
 * where unused (value.h), so the bytes say it. */
static bool
addr_equal(const struct netpolicy_addr *x, const struct netpolicy_addr *y)
{
	return x->family == y->family && memcmp(x->a, y->a, sizeof(x->a)) == 0;
}

static void
addr_rules_clear(struct llw_addr_rule **v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i].origin);
	free(*v);
	*v = NULL;
	*n = 0;
}

static void
cidrs_clear(struct policy *p)
{
	for (size_t i = 0; i < p->n_cidrs; i++)
		value_cidr_clear(&p->cidrs[i]);
	free(p->cidrs);
	p->cidrs = NULL;
	p->n_cidrs = 0;
}

static void
hosts_clear(struct policy *p)
{
	for (size_t i = 0; i < p->n_hosts; i++)
		value_host_clear(&p->hosts[i]);
	free(p->hosts);
	p->hosts = NULL;
	p->n_hosts = 0;
}

/* Append a CIDR unless the same one is there (the first origin stays);
 * c's ports are copied. */
static void
cidrs_add(struct policy *p, const struct netpolicy_cidr *c, const char *origin)
{
	struct netpolicy_cidr *to;

	for (size_t i = 0; i < p->n_cidrs; i++) {
		const struct netpolicy_cidr *o = &p->cidrs[i];

		if (addr_equal(&o->net, &c->net) && o->prefix == c->prefix &&
		    o->n_ports == c->n_ports &&
		    (c->n_ports == 0 ||
		     memcmp(o->ports, c->ports,
			    c->n_ports * sizeof(*c->ports)) == 0))
			return;
	}
	p->cidrs = xreallocarray(p->cidrs, p->n_cidrs + 1, sizeof(*p->cidrs));
	to = &p->cidrs[p->n_cidrs++];
	*to = *c;
	to->ports = xcalloc(c->n_ports + 1, sizeof(*to->ports));
	for (size_t i = 0; i < c->n_ports; i++)
		to->ports[i] = (struct llw_port_range){ c->ports[i].lo,
							c->ports[i].hi, NULL };
	to->origin = xstrdup(origin);
}

/* Append an allow-host entry unless the same one is there. */
static void
hosts_add(struct policy *p, const struct hostrule *h, const char *origin)
{
	struct hostrule *to;

	for (size_t i = 0; i < p->n_hosts; i++) {
		const struct hostrule *o = &p->hosts[i];

		if (strcmp(o->name, h->name) == 0 &&
		    o->wildcard == h->wildcard && o->n_ports == h->n_ports &&
		    (h->n_ports == 0 ||
		     memcmp(o->ports, h->ports,
			    h->n_ports * sizeof(*h->ports)) == 0))
			return;
	}
	p->hosts = xreallocarray(p->hosts, p->n_hosts + 1, sizeof(*p->hosts));
	to = &p->hosts[p->n_hosts++];
	*to = (struct hostrule){
		.name = xstrdup(h->name),
		.wildcard = h->wildcard,
		.ports = xcalloc(h->n_ports + 1, sizeof(*to->ports)),
		.n_ports = h->n_ports,
		.origin = xstrdup(origin),
	};
	for (size_t i = 0; i < h->n_ports; i++)
		to->ports[i] = (struct llw_port_range){ h->ports[i].lo,
							h->ports[i].hi, NULL };
}

/* Append an address (listen: with its port) unless it is there. */
static void
addr_rules_add(struct llw_addr_rule **v, size_t *n,
	       const struct netpolicy_addr *a, const char *origin)
{
	for (size_t i = 0; i < *n; i++)
		if (addr_equal(&(*v)[i].addr, a) &&
		    (*v)[i].addr.port == a->port)
			return;
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct llw_addr_rule){ *a, xstrdup(origin) };
}

static void
copies_clear(struct policy *p)
{
	for (size_t i = 0; i < p->n_copies; i++) {
		free(p->copies[i].src);
		free(p->copies[i].dst);
		free(p->copies[i].origin);
	}
	free(p->copies);
	p->copies = NULL;
	p->n_copies = 0;
}

/* "file:line", built by hand: one per entry on every run, and vasprintf
 * cost ten times as much. */
static char *
origin_of(const struct profile *prof, unsigned line)
{
	char digits[16], *s;
	size_t len = strlen(prof->file), n = 0;

	if (line == 0)
		return xstrdup(prof->file);
	for (; line > 0; line /= 10)
		digits[n++] = (char)('0' + line % 10);
	s = xmalloc(len + 1 + n + 1);
	memcpy(s, prof->file, len);
	s[len++] = ':';
	while (n > 0)
		s[len++] = digits[--n];
	s[len] = '\0';
	return s;
}

/*
 * policy_access_at() on resolved paths: path and every rule path resolved
 * through req->resolve, so that a path reached through a symlink gets the
 * access the enforcement (which resolves) gives it.  A path that cannot
 * be resolved is compared as written.
 */
static enum llw_access
access_at_resolved(const struct resolver *r, const char *path,
		   const char **origin)
{
	const struct policy *p = r->p;
	const struct llw_path_rule *best = NULL;
	_cleanup_free_ char *real = NULL;
	size_t best_len = 0;

	if (r->req->resolve == NULL)
		return policy_access_at(p, path, origin);
	if (r->req->resolve(r->req->resolve_ctx, path, &real) < 0)
		real = xstrdup(path);
	for (size_t i = 0; i < p->n_paths; i++) {
		const struct llw_path_rule *pr = &p->paths[i];
		_cleanup_free_ char *rp = NULL;
		size_t len;

		if (r->req->resolve(r->req->resolve_ctx, pr->path, &rp) < 0)
			rp = xstrdup(pr->path);
		if (!path_under(real, rp))
			continue;
		len = strlen(rp);
		if (best == NULL || len > best_len ||
		    (len == best_len && pr->rank >= best->rank)) {
			best = pr;
			best_len = len;
		}
	}
	if (origin != NULL)
		*origin = best != NULL ? best->origin : NULL;
	return best != NULL ? best->access : LLW_ACCESS_DENY;
}

static enum llw_access
access_from_key(enum key_id id)
{
	switch (id) {
	case KEY_RO:
		return LLW_ACCESS_RO;
	case KEY_RX:
		return LLW_ACCESS_RX;
	case KEY_RW:
		return LLW_ACCESS_RW;
	case KEY_RWX:
		return LLW_ACCESS_RWX;
	default:
		return LLW_ACCESS_DENY;
	}
}

static int
apply_paths(struct resolver *r, const struct profile *prof,
	    const struct profile_entry *e, uint32_t rank, char **cause)
{
	struct policy *p = r->p;
	enum llw_access a = access_from_key(e->key->id);

	if (e->none) {
		/* Everything applied so far has a rank <= this one. */
		size_t j = 0;

		for (size_t i = 0; i < p->n_paths; i++) {
			if (p->paths[i].access == a) {
				free(p->paths[i].path);
				free(p->paths[i].origin);
			} else {
				p->paths[j++] = p->paths[i];
			}
		}
		p->n_paths = j;
		return 0;
	}
	for (size_t i = 0; i < e->n_values; i++) {
		const struct profile_value *v = &e->values[i];
		struct llw_path_rule *pr;

		if (prof->kind == PROFILE_KIND_PROJECT) {
			const char *o;
			enum llw_access now =
				access_at_resolved(r, v->u.text, &o);

			if (policy_access_wider(a, now)) {
				*cause = xasprintf(
					"%s:%u: .llwrap.ini may only tighten "
					"the policy: '%s = %s%s' would widen "
					"access to that path, which is '%s' "
					"without it (%s).",
					prof->file, e->line, e->key->name,
					v->optional ? "?" : "", v->u.text,
					policy_access_name(now),
					o != NULL ? o : "no rule allows it");
				return -EINVAL;
			}
		}
		p->paths = xgrow(p->paths, p->n_paths + 1, &p->cap_paths,
				 sizeof(*p->paths));
		pr = &p->paths[p->n_paths++];
		pr->optional = v->optional;
		pr->path = xstrdup(v->u.text);
		pr->access = a;
		pr->rank = rank;
		pr->origin = origin_of(prof, e->line);
	}
	return 0;
}

/* The four port lists by key. */
static struct llw_ports *
ports_for(struct policy *p, enum key_id id)
{
	switch (id) {
	case KEY_CONNECT_TCP:
		return &p->connect_tcp;
	case KEY_BIND_TCP:
		return &p->bind_tcp;
	case KEY_CONNECT_UDP:
		return &p->connect_udp;
	default:
		return &p->bind_udp;
	}
}

/*
 * Port keys in .llwrap.ini narrow: the lines for a key together say which
 * of the ports already allowed stay allowed ("connect-tcp = 443" keeps
 * only 443), and "none" removes them all.  A port not already allowed is
 * an error.  before holds the lists as they were before the file, by
 * key - KEY_CONNECT_TCP.
 */
struct narrow {
	struct llw_ports before[4];
	bool touched[4];
};

static int
apply_ports(struct resolver *r, const struct profile *prof,
	    const struct profile_entry *e, struct narrow *nw, char **cause)
{
	struct llw_ports *pl = ports_for(r->p, e->key->id);
	_cleanup_free_ char *origin = origin_of(prof, e->line);
	size_t k = (size_t)(e->key->id - KEY_CONNECT_TCP);

	if (nw != NULL && !nw->touched[k]) {
		ports_clear(pl);
		nw->touched[k] = true;
	}
	if (e->none) {
		ports_clear(pl);
		return 0;
	}
	for (size_t i = 0; i < e->n_values; i++) {
		uint16_t lo = e->values[i].u.ports.lo,
			 hi = e->values[i].u.ports.hi;

		if (nw != NULL && !ports_cover(&nw->before[k], lo, hi)) {
			_cleanup_free_ char *v =
				profile_value_format(e->key, &e->values[i]);

			*cause = xasprintf(
				"%s: .llwrap.ini may only tighten the policy: "
				"%s = %s allows ports that less specific "
				"profiles do not; it can only keep a subset of "
				"them.",
				origin, e->key->name, v);
			return -EINVAL;
		}
		ports_add(pl, lo, hi, origin);
	}
	return 0;
}

/* The name part of "NAME=VALUE" as a new string. */
static char *
env_name(const char *s)
{
	return xstrndup(s, strcspn(s, "="));
}

/*
 * fnmatch(glob, name, 0), without fnmatch's cost for the usual shapes: a
 * plain name, or a prefix with one trailing '*' (LC_*, XDG_*).  The
 * environment is matched against every keep and unset glob on every run.
 */
bool
policy_merge_env_glob_match(const char *glob, const char *name)
{
	size_t special = strcspn(glob, "*?[\\");

	if (glob[special] == '\0')
		return strcmp(glob, name) == 0;
	if (glob[special] == '*' && glob[special + 1] == '\0')
		return strncmp(glob, name, special) == 0;
	return fnmatch(glob, name, 0) == 0;
}

/*
 * [environment].  policy_environ() applies keep, then unset, then set; so
 * that a more specific source still wins, a later "keep NAME" takes NAME
 * off the unset list, and a later "unset GLOB" drops the set entries it
 * matches.  A later "set" overrides an earlier one for the same name.
 */
static void
apply_env(struct policy *p, const struct profile_entry *e, const char *origin)
{
	struct llw_items *it = e->key->id == KEY_ENV_KEEP    ? &p->env_keep
			       : e->key->id == KEY_ENV_UNSET ? &p->env_unset
							     : &p->env_set;

	if (e->none) {
		items_clear(it);
		return;
	}
	for (size_t k = 0; k < e->n_values; k++) {
		const char *v = e->values[k].u.text;

		if (e->key->id == KEY_ENV_KEEP) {
			for (size_t i = p->env_unset.n; i-- > 0;)
				if (strcmp(p->env_unset.v[i].value, v) == 0)
					items_remove(&p->env_unset, i);
			policy_merge_items_add(&p->env_keep, v, origin);
		} else if (e->key->id == KEY_ENV_UNSET) {
			for (size_t i = p->env_set.n; i-- > 0;) {
				_cleanup_free_ char *name =
					env_name(p->env_set.v[i].value);

				if (policy_merge_env_glob_match(v, name))
					items_remove(&p->env_set, i);
			}
			policy_merge_items_add(&p->env_unset, v, origin);
		} else {
			_cleanup_free_ char *name = env_name(v);
			size_t len = strlen(name);

			for (size_t i = p->env_set.n; i-- > 0;)
				if (strncmp(p->env_set.v[i].value, name, len) ==
					    0 &&
				    p->env_set.v[i].value[len] == '=')
					items_remove(&p->env_set, i);
			policy_merge_items_add(&p->env_set, v, origin);
		}
	}
}

void
policy_merge_git_clear(struct resolver *r)
{
	for (size_t i = 0; i < r->n_git; i++) {
		free(r->git[i].path);
		free(r->git[i].origin);
	}
	free(r->git);
	r->git = NULL;
	r->n_git = 0;
}

static void
git_add(struct resolver *r, const char *path, const char *origin, uint32_t rank)
{
	for (size_t i = 0; i < r->n_git; i++)
		if (strcmp(r->git[i].path, path) == 0)
			return;
	r->git = xreallocarray(r->git, r->n_git + 1, sizeof(*r->git));
	r->git[r->n_git++] = (struct llw_path_rule){
		.path = xstrdup(path),
		.access = LLW_ACCESS_RO,
		.rank = rank,
		.origin = xstrdup(origin),
		.optional = true,
	};
}

/* A path some explicit deny rule covers. */
static bool
denied_explicitly(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->n_paths; i++)
		if (p->paths[i].access == LLW_ACCESS_DENY &&
		    path_under(path, p->paths[i].path))
			return true;
	return false;
}

/*
 * [filesystem] git-config: each file read-only, and the files it makes git
 * read (includes, in turn, up to a bound; core.excludesFile and
 * core.attributesFile), unless a deny rule covers them: git dies on an
 * include it cannot read, so these must be readable for git to work.
 * Missing or unreadable files are dropped quietly.
 */
void
policy_merge_git_config(struct resolver *r)
{
	_cleanup_free_ char *home = NULL;
	_cleanup_free_ char *err = NULL;

	if (vars_expand(r->vars, "${HOME}", &home, &err) < 0)
		home = NULL;
	/* r->git grows while it is walked: includes are appended. */
	for (size_t i = 0; i < r->n_git && i < 64; i++) {
		struct llw_path_rule g = r->git[i];
		_cleanup_close_ int fd = -1;
		_cleanup_free_ char *text = NULL;
		_cleanup_strv_ char **found = NULL;
		size_t len;

		if (denied_explicitly(r->p, g.path))
			continue;
		r->p->paths = xgrow(r->p->paths, r->p->n_paths + 1,
				    &r->p->cap_paths, sizeof(*r->p->paths));
		r->p->paths[r->p->n_paths++] = (struct llw_path_rule){
			.path = xstrdup(g.path),
			.access = LLW_ACCESS_RO,
			.rank = g.rank,
			.origin = xstrdup(g.origin),
			.optional = true,
		};
		if (g.access == LLW_ACCESS_RX)
			continue; /* a plain file, not a config */
		fd = open(g.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0 || fd_read_all(fd, 1024 * 1024, &text, &len) < 0)
			continue;
		found = gitconfig_paths(text, g.path, home);
		for (char **f = found; *f != NULL; f++) {
			_cleanup_free_ char *o =
				xasprintf("%s, named in %s", g.origin, g.path);
			size_t n = r->n_git;

			if (**f == 'u')
				continue; /* an include git finds, not llwrap */
			git_add(r, *f + 1, o, g.rank);
			/* Plain files are marked so they are not parsed. */
			if (r->n_git > n && **f == 'f')
				r->git[n].access = LLW_ACCESS_RX;
		}
	}
	policy_merge_git_clear(r);
}

/* A [filesystem] list of paths: mkdir, touch, unix. */
static void
apply_list(struct llw_items *to, const struct profile_entry *e,
	   const char *origin)
{
	if (e->none)
		items_clear(to);
	for (size_t i = 0; i < e->n_values; i++) {
		/* touch's "?PATH" (may be missing) stays in the item, where
		 * sandbox.c reads it. */
		_cleanup_free_ char *v =
			profile_value_format(e->key, &e->values[i]);

		policy_merge_items_add(to, v, origin);
	}
}

/* A yes|no key: its value, or def for none. */
static bool
yes(const struct profile_entry *e, bool def)
{
	return e->none ? def : e->values[0].u.yes;
}

/* A size, count or duration: its value, or 0 (no limit) for none. */
static uint64_t
number(const struct profile_entry *e)
{
	return e->none ? 0 : e->values[0].u.n;
}

/*
 * Apply one entry of the network's supervisor rules (allow-cidr,
 * allow-host, listen, dns): typed already, appended each once.
 */
static void
apply_network(struct policy *p, const struct profile_entry *e,
	      const char *origin)
{
	switch (e->key->id) {
	case KEY_ALLOW_CIDR:
		if (e->none)
			cidrs_clear(p);
		for (size_t i = 0; i < e->n_values; i++)
			cidrs_add(p, &e->values[i].u.cidr, origin);
		break;
	case KEY_ALLOW_HOST:
		if (e->none)
			hosts_clear(p);
		for (size_t i = 0; i < e->n_values; i++)
			hosts_add(p, &e->values[i].u.host, origin);
		break;
	case KEY_LISTEN:
		if (e->none)
			addr_rules_clear(&p->listen_addrs, &p->n_listen_addrs);
		for (size_t i = 0; i < e->n_values; i++)
			addr_rules_add(&p->listen_addrs, &p->n_listen_addrs,
				       &e->values[i].u.addr, origin);
		break;
	default: /* KEY_DNS */
		if (e->none)
			addr_rules_clear(&p->dns_addrs, &p->n_dns_addrs);
		for (size_t i = 0; i < e->n_values; i++)
			addr_rules_add(&p->dns_addrs, &p->n_dns_addrs,
				       &e->values[i].u.addr, origin);
		break;
	}
}

/*
 * Apply one entry at the given rank by its key's merge rule (keys.h):
 * its values are typed already (profile.h).  "none" clears a list and
 * puts a scalar back to its built-in default.
 */
static int
apply_entry(struct resolver *r, const struct profile *prof,
	    const struct profile_entry *e, uint32_t rank, struct narrow *nw,
	    char **cause)
{
	struct policy *p = r->p;
	_cleanup_free_ char *origin = NULL;
	const struct profile_value *v = e->values;

	/* Path rules, most entries, name their origin per value. */
	switch (e->key->id) {
	case KEY_RO:
	case KEY_RX:
	case KEY_RW:
	case KEY_RWX:
	case KEY_DENY:
		return apply_paths(r, prof, e, rank, cause);
	default:
		break;
	}
	origin = origin_of(prof, e->line);
	switch (e->key->id) {
	case KEY_INCLUDE: /* apply_source() */
	case KEY_DESCRIPTION:
	case KEY_MATCH_COMMAND:
	case KEY_MATCH_PROFILE:
	case KEY_MATCH_PROJECT:
	case KEY_COUNT:
		break;
	case KEY_RO:
	case KEY_RX:
	case KEY_RW:
	case KEY_RWX:
	case KEY_DENY:
		break; /* above */
	case KEY_MKDIR:
		apply_list(&p->mkdirs, e, origin);
		break;
	case KEY_TOUCH:
		apply_list(&p->touches, e, origin);
		break;
	case KEY_UNIX:
		apply_list(&p->unix_paths, e, origin);
		break;
	case KEY_GIT_CONFIG:
		if (e->none)
			policy_merge_git_clear(r);
		for (size_t i = 0; i < e->n_values; i++)
			git_add(r, v[i].u.text, origin, rank);
		break;
	case KEY_COPY:
		if (e->none) {
			copies_clear(p);
			break;
		}
		p->copies = xreallocarray(p->copies, p->n_copies + 1,
					  sizeof(*p->copies));
		p->copies[p->n_copies++] = (struct llw_copy){
			.src = xstrdup(v[0].u.text),
			.dst = xstrdup(v[1].u.text),
			.optional = v[0].optional,
			.origin = xstrdup(origin),
		};
		break;
	case KEY_PRIVATE_TMP:
		p->private_tmp = yes(e, false);
		scalar_set(&p->private_tmp_origin, origin);
		break;
	case KEY_PROTECT_GIT:
		p->protect_git = yes(e, false);
		scalar_set(&p->protect_git_origin, origin);
		break;
	case KEY_PROTECT_LATER_RUN:
		p->protect_later_run = yes(e, false);
		scalar_set(&p->protect_later_run_origin, origin);
		break;
	case KEY_MODE: {
		/* The choices' order: none, filtered, host. */
		static const enum llw_net_mode modes[] = { LLW_NET_NONE,
							   LLW_NET_FILTERED,
							   LLW_NET_HOST };
		enum llw_net_mode m = modes[v[0].u.choice];

		if (nw != NULL && net_openness(m) > net_openness(p->net)) {
			*cause = xasprintf(
				"%s: .llwrap.ini may only tighten the policy: "
				"mode = %s is wider than mode = %s (%s).",
				origin, policy_net_mode_name(m),
				policy_net_mode_name(p->net),
				p->net_origin.origin != NULL
					? p->net_origin.origin
					: "built-in");
			return -EINVAL;
		}
		p->net = m;
		scalar_set(&p->net_origin, origin);
		break;
	}
	case KEY_CONNECT_TCP:
	case KEY_BIND_TCP:
	case KEY_CONNECT_UDP:
	case KEY_BIND_UDP:
		return apply_ports(r, prof, e, nw, cause);
	case KEY_UNIX_SOCKETS:
		/* The choices' order: allow, deny. */
		p->unix_sockets = v[0].u.choice == 0;
		scalar_set(&p->unix_sockets_origin, origin);
		break;
	case KEY_ALLOW_CIDR:
	case KEY_ALLOW_HOST:
	case KEY_LISTEN:
	case KEY_DNS:
		apply_network(p, e, origin);
		break;
	case KEY_SUPERVISE:
		p->supervise = yes(e, false);
		scalar_set(&p->supervise_origin, origin);
		break;
	case KEY_PROXY:
		p->proxy = yes(e, false);
		scalar_set(&p->proxy_origin, origin);
		break;
	case KEY_LOG_BLOCKED:
		p->log_blocked = yes(e, true);
		break;
	case KEY_LOG_STDERR:
		p->log_stderr = yes(e, true);
		break;
	case KEY_LOG_PREFIX:
		free(p->log_prefix);
		p->log_prefix = xstrdup(v[0].u.text);
		break;
	case KEY_ENV_KEEP:
	case KEY_ENV_SET:
	case KEY_ENV_UNSET:
		apply_env(p, e, origin);
		break;
	case KEY_PTRACE:
		/* The choices' order: allow, deny. */
		p->ptrace_deny = v[0].u.choice == 1;
		scalar_set(&p->ptrace_origin, origin);
		break;
	case KEY_HIDE_PROCESSES:
		p->hide_processes = yes(e, false);
		scalar_set(&p->hide_processes_origin, origin);
		break;
	case KEY_BEST_EFFORT:
		p->best_effort = yes(e, false);
		scalar_set(&p->best_effort_origin, origin);
		break;
	case KEY_TMPFS_SIZE:
		p->tmpfs_bytes = e->none ? 0 : v[0].u.size.bytes;
		p->tmpfs_percent = e->none ? 0 : v[0].u.size.percent;
		scalar_set(&p->tmpfs_size_origin, origin);
		break;
	case KEY_MEMORY:
		p->limit_memory = number(e);
		break;
	case KEY_FILE_SIZE:
		p->limit_file_size = number(e);
		break;
	case KEY_PROCESSES:
		p->limit_processes = number(e);
		break;
	case KEY_FILES:
		p->limit_files = number(e);
		break;
	case KEY_CPU:
		p->limit_cpu = number(e);
		break;
	case KEY_TIMEOUT:
		p->limit_timeout = number(e);
		break;
	case KEY_MEMORY_MAX:
		p->limit_memory_max = number(e);
		scalar_set(&p->limit_cgroup_origin, origin);
		break;
	case KEY_PIDS_MAX:
		p->limit_pids_max = number(e);
		scalar_set(&p->limit_cgroup_origin, origin);
		break;
	}
	return 0;
}

int
policy_merge_profile(struct resolver *r, const struct profile *prof,
		     uint32_t rank, char **cause)
{
	struct narrow nw = { 0 };
	struct narrow *pnw = NULL;
	int ret = 0;

	if (prof->kind == PROFILE_KIND_PROJECT) {
		pnw = &nw;
		for (size_t k = 0; k < 4; k++)
			ports_copy(&nw.before[k],
				   ports_for(r->p, KEY_CONNECT_TCP + k));
	}
	for (size_t i = 0; i < prof->n_entries && ret == 0; i++)
		ret = apply_entry(r, prof, &prof->entries[i], rank, pnw, cause);
	for (size_t k = 0; k < 4; k++)
		ports_clear(&nw.before[k]);
	if (ret == 0 && prof->description != NULL)
		strv_push(&r->p->descriptions, prof->description);
	return ret;
}

void
policy_merge_values_free(struct policy *p)
{
	copies_clear(p);
	ports_clear(&p->connect_tcp);
	ports_clear(&p->bind_tcp);
	ports_clear(&p->connect_udp);
	ports_clear(&p->bind_udp);
	items_clear(&p->unix_paths);
	cidrs_clear(p);
	hosts_clear(p);
	addr_rules_clear(&p->listen_addrs, &p->n_listen_addrs);
	addr_rules_clear(&p->dns_addrs, &p->n_dns_addrs);
	items_clear(&p->mkdirs);
	items_clear(&p->touches);
	items_clear(&p->env_keep);
	items_clear(&p->env_set);
	items_clear(&p->env_unset);
}
