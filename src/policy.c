/*
 * Policy resolution: sources in the precedence order of DESIGN.md §4,
 * merged into one struct policy that remembers where every rule came from.
 *
 * Sources and ranks, least to most specific; every source applied gets the
 * next rank, so two -p profiles are ordered too:
 *   rank 0   the built-in base: the §7 environment keep list, network
 *            filtered, nothing else;
 *   then     each -p profile (none given: "default"), preceded by its
 *            includes, depth-first and in order;
 *   then     each profile on the profile path whose [match] holds, least
 *            specific first (match_compare()), preceded by its includes;
 *   then     ${PROJECT}/.llwrap.ini, which may only tighten;
 *   last     the command-line flags.
 * A file (or built-in) already applied is not applied again, so a profile
 * included twice, or matched after being given with -p, counts once at the
 * place it was first applied.
 *
 * Merging: path rules are all kept with their rank (pathtree picks the
 * winner per path); "none" removes the key's rules applied so far.  Port
 * and item lists are unions ("none" clears them).  Scalars: the last, most
 * specific, source wins.
 */
#include <dirent.h>
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
#include "hostrule.h"
#include "match.h"
#include "path.h"
#include "policy.h"
#include "profile.h"
#include "strv.h"
#include "xalloc.h"

static const char *const access_names[] = {
	[LLW_ACCESS_DENY] = "deny", [LLW_ACCESS_RO] = "ro",
	[LLW_ACCESS_RX] = "rx",	    [LLW_ACCESS_RW] = "rw",
	[LLW_ACCESS_RWX] = "rwx",
};

const char *
policy_access_name(enum llw_access a)
{
	if ((unsigned)a >= ARRAY_SIZE(access_names))
		return NULL;
	return access_names[a];
}

/* Read, execute and write bits of an access level. */
static unsigned
access_bits(enum llw_access a)
{
	switch (a) {
	case LLW_ACCESS_DENY:
		return 0;
	case LLW_ACCESS_RO:
		return 1;
	case LLW_ACCESS_RX:
		return 1 | 2;
	case LLW_ACCESS_RW:
		return 1 | 4;
	case LLW_ACCESS_RWX:
		return 1 | 2 | 4;
	}
	return 7;
}

bool
policy_access_wider(enum llw_access a, enum llw_access b)
{
	return (access_bits(a) & ~access_bits(b)) != 0;
}

bool
policy_access_writable(enum llw_access a)
{
	return (access_bits(a) & 4) != 0;
}

bool
policy_access_executable(enum llw_access a)
{
	return a == LLW_ACCESS_RX || a == LLW_ACCESS_RWX;
}

const char *
policy_net_mode_name(enum llw_net_mode m)
{
	switch (m) {
	case LLW_NET_FILTERED:
		return "filtered";
	case LLW_NET_NONE:
		return "none";
	case LLW_NET_HOST:
		return "host";
	}
	return NULL;
}

/* How much network a mode allows: none < filtered < host. */
static int
net_openness(enum llw_net_mode m)
{
	return m == LLW_NET_NONE ? 0 : m == LLW_NET_FILTERED ? 1 : 2;
}

/* The environment the built-in base keeps (DESIGN.md §7). */
static const char *const base_env_keep[] = {
	"PATH", "HOME",	     "USER",	   "LOGNAME",  "SHELL",
	"TERM", "COLORTERM", "LANG",	   "LANGUAGE", "LC_*",
	"TZ",	"TMPDIR",    "XDG_*_HOME", "PWD",
};

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

/* Append value unless it is already there (the first origin stays). */
static void
items_add(struct llw_items *it, const char *value, const char *origin)
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

struct policy *
policy_new(void)
{
	struct policy *p = xcalloc(1, sizeof(*p));

	p->net = LLW_NET_FILTERED;
	/* DESIGN.md §6: blocked attempts are logged unless turned off. */
	p->log_blocked = true;
	p->log_stderr = true;
	return p;
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

void
policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	free(p->name);
	free(p->project);
	free(p->workdir);
	free(p->project_why);
	copies_clear(p);
	free(p->run_profile);
	for (size_t i = 0; i < p->n_paths; i++) {
		free(p->paths[i].path);
		free(p->paths[i].origin);
	}
	free(p->paths);
	free(p->net_origin.origin);
	ports_clear(&p->connect_tcp);
	ports_clear(&p->bind_tcp);
	ports_clear(&p->connect_udp);
	ports_clear(&p->bind_udp);
	free(p->unix_sockets_origin.origin);
	items_clear(&p->unix_paths);
	cidrs_clear(p);
	hosts_clear(p);
	addr_rules_clear(&p->listen_addrs, &p->n_listen_addrs);
	addr_rules_clear(&p->dns_addrs, &p->n_dns_addrs);
	items_clear(&p->mkdirs);
	items_clear(&p->touches);
	free(p->log_prefix);
	items_clear(&p->env_keep);
	items_clear(&p->env_set);
	items_clear(&p->env_unset);
	free(p->ptrace_origin.origin);
	free(p->hide_processes_origin.origin);
	free(p->supervise_origin.origin);
	free(p->proxy_origin.origin);
	free(p->private_tmp_origin.origin);
	free(p->protect_git_origin.origin);
	free(p->protect_later_run_origin.origin);
	free(p->tmpfs_size_origin.origin);
	free(p->best_effort_origin.origin);
	strv_free(p->config_files);
	strv_free(p->descriptions);
	free(p);
}

DEFINE_CLEANUP_FUNC(struct policy, policy_free)
DEFINE_CLEANUP_FUNC(struct profile, profile_free)
DEFINE_CLEANUP_FUNC(struct vars, vars_free)

/* Push "dir/llwrap/profiles" when dir is absolute and not there yet. */
static void
path_push(char ***v, const char *dir, const char *suffix)
{
	_cleanup_free_ char *s = NULL;

	/* Relative entries would depend on the working directory: skip. */
	if (dir == NULL || dir[0] != '/')
		return;
	s = xasprintf("%s%s", dir, suffix);
	if (!strv_contains(*v, s))
		strv_push(v, s);
}

char **
policy_profile_path(char *const *envp, const char *sysconfdir,
		    const char *datadir)
{
	char **v = xcalloc(1, sizeof(char *));
	const char *s = strv_env_get(envp, "LLWRAP_PROFILE_PATH");
	const char *xdg = strv_env_get(envp, "XDG_CONFIG_HOME");

	if (s != NULL) {
		_cleanup_free_ char *copy = xstrdup(s);
		char *save = NULL;

		/* strtok_r skips empty entries. */
		for (char *t = strtok_r(copy, ":", &save); t != NULL;
		     t = strtok_r(NULL, ":", &save))
			path_push(&v, t, "");
	}
	if (xdg != NULL && xdg[0] == '/') {
		path_push(&v, xdg, "/llwrap/profiles");
	} else {
		const char *home = strv_env_get(envp, "HOME");

		if (home != NULL && home[0] == '/')
			path_push(&v, strcmp(home, "/") == 0 ? "" : home,
				  "/.config/llwrap/profiles");
	}
	path_push(&v, sysconfdir, "/llwrap/profiles");
	path_push(&v, datadir, "/llwrap/profiles");
	return v;
}

/* Resolution state. */
struct resolver {
	const struct policy_request *req;
	struct vars *vars;
	struct policy *p;
	uint32_t rank;	/* rank of the last source applied */
	char **applied; /* profile->file of every source applied */
	char **stack;	/* the include chain being applied */
	char **names;	/* the run's profiles, for [match] profile */
	/* [filesystem] git-config: the files, their origins and ranks */
	struct llw_path_rule *git;
	size_t n_git;
};

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

static void
config_file_add(struct resolver *r, const char *file)
{
	if (!strv_contains(r->p->config_files, file))
		strv_push(&r->p->config_files, file);
}

/*
 * Load the profile an -p argument or an include names.
 *   - With a "/" it is a FILE.  A relative -p FILE is taken from the
 *     working directory; a relative include from the directory of the
 *     including file (built-ins and the command line cannot include one).
 *   - Otherwise a NAME: the first NAME.ini on the profile path, else the
 *     built-in profile of that name.
 * from is the including profile (NULL for -p), line its include line.
 */
static int
load(struct resolver *r, const char *arg, const struct profile *from,
     unsigned line, struct profile **out, char **cause)
{
	_cleanup_free_ char *where = NULL;
	_cleanup_free_ char *file = NULL;
	const char *text;
	int ret;

	if (from != NULL)
		where = xasprintf("%s:%u: ", from->file, line);
	else
		where = xstrdup("");

	if (strchr(arg, '/') != NULL) {
		if (arg[0] == '/') {
			file = path_normalise(arg);
		} else if (from == NULL) {
			_cleanup_free_ char *cwd = getcwd(NULL, 0);

			if (cwd == NULL) {
				ret = -errno;
				*cause = xasprintf("cannot resolve profile "
						   "'%s': no working "
						   "directory: %s.",
						   arg, strerror(-ret));
				return ret;
			}
			_cleanup_free_ char *abs = xasprintf("%s/%s", cwd, arg);
			file = path_normalise(abs);
		} else if (from->file[0] == '/') {
			_cleanup_free_ char *abs =
				xasprintf("%s/../%s", from->file, arg);
			file = path_normalise(abs);
		} else {
			*cause = xasprintf("%sinclude '%s' is relative, and "
					   "%s is not a file to resolve it "
					   "against; use an absolute path or "
					   "a profile name.",
					   where, arg, from->file);
			return -EINVAL;
		}
		ret = profile_parse_file(file, PROFILE_KIND_NORMAL, r->vars,
					 out, cause);
		if (ret == 0 || ret == -EINVAL) {
			config_file_add(r, file);
		} else if (from != NULL) {
			/* Say which include wanted the file. */
			char *c = xasprintf("%s%s", where, *cause);

			free(*cause);
			*cause = c;
		}
		return ret;
	}

	for (char *const *dir = r->req->profile_path; dir != NULL && *dir;
	     dir++) {
		_cleanup_free_ char *cand = xasprintf("%s/%s.ini", *dir, arg);
		_cleanup_free_ char *err = NULL;

		file = path_normalise(cand);
		ret = profile_parse_file(file, PROFILE_KIND_NORMAL, r->vars,
					 out, &err);
		if (ret == -ENOENT || ret == -ENOTDIR) {
			free(steal_pointer(&file));
			continue;
		}
		config_file_add(r, file);
		if (ret < 0)
			*cause = steal_pointer(&err);
		return ret;
	}
	text = profile_builtin(arg);
	if (text != NULL) {
		_cleanup_free_ char *name = xasprintf("built-in %s", arg);

		return profile_parse_string(name, text, PROFILE_KIND_NORMAL,
					    r->vars, out, cause);
	}
	{
		_cleanup_free_ char *searched =
			strv_join(r->req->profile_path, ":");
		_cleanup_strv_ char **names =
			policy_profile_names(r->req->profile_path);
		_cleanup_free_ char *found =
			names ? strv_join(names, " ") : NULL;

		*cause = xasprintf("%sunknown profile '%s': no %s.ini on the "
				   "profile path (%s) and no built-in profile "
				   "of that name; the profiles there are: "
				   "%s (built in: empty default).",
				   where, arg, arg,
				   *searched ? searched : "empty",
				   found ? found : "none");
	}
	return -ENOENT;
}

const struct llw_path_rule *
policy_rule_at(const struct policy *p, const char *path)
{
	const struct llw_path_rule *best = NULL;

	for (size_t i = 0; i < p->n_paths; i++) {
		const struct llw_path_rule *pr = &p->paths[i];

		if (!path_under(path, pr->path))
			continue;
		if (best == NULL || strlen(pr->path) > strlen(best->path) ||
		    (strlen(pr->path) == strlen(best->path) &&
		     pr->rank >= best->rank))
			best = pr;
	}
	return best;
}

enum llw_access
policy_access_at(const struct policy *p, const char *path, const char **origin)
{
	const struct llw_path_rule *best = policy_rule_at(p, path);

	if (origin != NULL)
		*origin = best != NULL ? best->origin : NULL;
	return best != NULL ? best->access : LLW_ACCESS_DENY;
}

const char *const policy_private_tmps[] = { "/tmp", "/var/tmp", "/dev/shm",
					    NULL };

const char *
policy_private_tmp_of(const char *path)
{
	for (const char *const *t = policy_private_tmps; *t != NULL; t++)
		if (path_under(path, *t))
			return *t;
	return NULL;
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
		p->paths = xreallocarray(p->paths, p->n_paths + 1,
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
static bool
env_glob_match(const char *glob, const char *name)
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
			items_add(&p->env_keep, v, origin);
		} else if (e->key->id == KEY_ENV_UNSET) {
			for (size_t i = p->env_set.n; i-- > 0;) {
				_cleanup_free_ char *name =
					env_name(p->env_set.v[i].value);

				if (env_glob_match(v, name))
					items_remove(&p->env_set, i);
			}
			items_add(&p->env_unset, v, origin);
		} else {
			_cleanup_free_ char *name = env_name(v);
			size_t len = strlen(name);

			for (size_t i = p->env_set.n; i-- > 0;)
				if (strncmp(p->env_set.v[i].value, name, len) ==
					    0 &&
				    p->env_set.v[i].value[len] == '=')
					items_remove(&p->env_set, i);
			items_add(&p->env_set, v, origin);
		}
	}
}

static void
git_clear(struct resolver *r)
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
static void
apply_git_config(struct resolver *r)
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
		r->p->paths = xreallocarray(r->p->paths, r->p->n_paths + 1,
					    sizeof(*r->p->paths));
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

			git_add(r, *f + 1, o, g.rank);
			/* Plain files are marked so they are not parsed. */
			if (r->n_git > n && **f == 'f')
				r->git[n].access = LLW_ACCESS_RX;
		}
	}
	git_clear(r);
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

		items_add(to, v, origin);
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
	_cleanup_free_ char *origin = origin_of(prof, e->line);
	const struct profile_value *v = e->values;

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
		return apply_paths(r, prof, e, rank, cause);
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
			git_clear(r);
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

/* Apply the entries of prof (not its includes) at the given rank. */
static int
apply_profile(struct resolver *r, const struct profile *prof, uint32_t rank,
	      char **cause)
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

/*
 * Apply prof (owned) after its includes, depth-first.  A source already
 * applied is skipped; one on the current include chain is a cycle.
 */
static int
apply_source(struct resolver *r, struct profile *prof_in, char **cause)
{
	attribute_cleanup(profile_freep) struct profile *prof = prof_in;
	int ret;

	if (strv_contains(r->applied, prof->file))
		return 0;
	strv_push(&r->stack, prof->file);
	for (size_t i = 0; i < prof->n_entries; i++) {
		const struct profile_entry *e = &prof->entries[i];

		if (e->key->id != KEY_INCLUDE)
			continue;
		for (size_t k = 0; k < e->n_values; k++) {
			struct profile *child = NULL;

			ret = load(r, e->values[k].u.text, prof, e->line,
				   &child, cause);
			if (ret < 0)
				return ret;
			if (strv_contains(r->stack, child->file)) {
				_cleanup_free_ char *chain =
					strv_join(r->stack, " -> ");

				*cause = xasprintf(
					"%s:%u: include cycle: %s -> %s; a "
					"profile cannot include itself, "
					"directly or not.",
					prof->file, e->line, chain,
					child->file);
				profile_free(child);
				return -ELOOP;
			}
			ret = apply_source(r, child, cause);
			if (ret < 0)
				return ret;
		}
	}
	free(r->stack[strv_length(r->stack) - 1]);
	r->stack[strv_length(r->stack) - 1] = NULL;

	ret = apply_profile(r, prof, ++r->rank, cause);
	if (ret < 0)
		return ret;
	strv_push(&r->applied, prof->file);
	return 0;
}

/* A matched profile and how well it matched, for sorting. */
struct candidate {
	struct profile *prof;
	struct match_score score;
};

static int
candidate_cmp(const void *a, const void *b)
{
	const struct candidate *ca = a, *cb = b;

	return match_compare(&ca->score, ca->prof->file, &cb->score,
			     cb->prof->file);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The profiles on the profile path whose [match] holds.  Only the first
 * file of a given name on the path is considered, as for NAME lookup.
 * Every file in those directories is read and checked line by line, and
 * its [match] parsed: a broken one is an error (it could be meant to
 * match).  The rest of a file is parsed, and its errors reported, only
 * when its [match] holds: a profile that does not apply costs no more
 * than a scan.  Every directory and file read is added to config_files
 * (a new file there could change the next run).
 */
char **
policy_profile_names(char *const *dirs)
{
	char **names = NULL;

	for (char *const *dir = dirs; dir != NULL && *dir != NULL; dir++) {
		DIR *d = opendir(*dir);
		struct dirent *de;

		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);
			_cleanup_free_ char *name = NULL;

			if (de->d_name[0] == '.' || len < 5 ||
			    strcmp(de->d_name + len - 4, ".ini") != 0)
				continue;
			name = xstrndup(de->d_name, len - 4);
			if (!strv_contains(names, name))
				strv_push(&names, name);
		}
		closedir(d);
	}
	if (names != NULL)
		qsort(names, strv_length(names), sizeof(char *), name_cmp);
	return names;
}

static int
apply_matched(struct resolver *r, char **cause)
{
	_cleanup_strv_ char **seen = NULL;
	struct candidate *cands = NULL;
	size_t n = 0;
	int ret = 0;

	for (char *const *dir = r->req->profile_path; dir != NULL && *dir;
	     dir++) {
		_cleanup_strv_ char **names = NULL;
		_cleanup_free_ char *ndir = path_normalise(*dir);
		DIR *d = opendir(ndir);
		struct dirent *de;

		if (d == NULL)
			continue;
		config_file_add(r, ndir);
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);

			if (de->d_name[0] == '.' || len < 5 ||
			    strcmp(de->d_name + len - 4, ".ini") != 0)
				continue;
			strv_push(&names, de->d_name);
		}
		closedir(d);
		if (names == NULL)
			continue;
		qsort(names, strv_length(names), sizeof(char *), name_cmp);
		for (char **nm = names; *nm != NULL && ret == 0; nm++) {
			_cleanup_free_ char *file = NULL, *text = NULL;
			struct profile *prof = NULL;
			struct match_score sc;

			if (strv_contains(seen, *nm))
				continue;
			strv_push(&seen, *nm);
			file = xasprintf("%s/%s", strcmp(ndir, "/") ? ndir : "",
					 *nm);
			if (strv_contains(r->applied, file))
				continue;
			ret = profile_read_file(file, &text, cause);
			if (ret == -ENOENT || ret == -EISDIR) {
				/* Gone since readdir, or not a file. */
				free(steal_pointer(cause));
				ret = 0;
				continue;
			}
			if (ret < 0)
				break;
			/* One read: the scan and the full parse see the same
			 * text. */
			ret = profile_parse_string(file, text,
						   PROFILE_KIND_MATCH, r->vars,
						   &prof, cause);
			if (ret < 0)
				break;
			config_file_add(r, file);
			if (!match_holds(prof, r->req->command, r->req->project,
					 &sc)) {
				profile_free(prof);
				continue;
			}
			profile_free(prof);
			prof = NULL;
			ret = profile_parse_string(file, text,
						   PROFILE_KIND_NORMAL, r->vars,
						   &prof, cause);
			if (ret < 0)
				break;
			cands = xreallocarray(cands, n + 1, sizeof(*cands));
			cands[n].prof = prof;
			cands[n].score = sc;
			n++;
		}
		if (ret < 0)
			break;
	}
	/* [match] profile holds against the -p profiles and those matched
	 * without the condition; the run is under the last of those
	 * matched on its command (opencode.ini), else the last -p. */
	for (size_t i = 0; i < n && ret == 0; i++) {
		const struct profile *prof = cands[i].prof;

		if (prof->match_profile != NULL)
			continue;
		strv_push_take(&r->names, match_profile_name(prof->file));
		if (cands[i].score.command) {
			free(r->p->run_profile);
			r->p->run_profile = match_profile_name(prof->file);
		}
	}
	for (size_t i = 0; i < n && ret == 0;) {
		if (match_profile_holds(cands[i].prof, r->names)) {
			i++;
			continue;
		}
		profile_free(cands[i].prof);
		cands[i] = cands[--n];
	}
	/* qsort(NULL, 0, ...) is undefined (glibc declares the array
	 * nonnull); found by tests/fuzz with an empty profile path. */
	if (ret == 0 && n > 0)
		qsort(cands, n, sizeof(*cands), candidate_cmp);
	for (size_t i = 0; i < n; i++) {
		struct profile *prof = steal_pointer(&cands[i].prof);

		if (ret == 0)
			ret = apply_source(r, prof, cause);
		else
			profile_free(prof);
	}
	free(cands);
	return ret;
}

/*
 * Secrets only root can read (DESIGN.md §11), denied in every profile when
 * the command runs as root.  A missing one is only noted by --explain.
 */
static const char *const root_secrets[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/sudoers",
	"/etc/sudoers.d",
	"/etc/security/opasswd",
	"/etc/ssh/ssh_host_rsa_key",
	"/etc/ssh/ssh_host_dsa_key",
	"/etc/ssh/ssh_host_ecdsa_key",
	"/etc/ssh/ssh_host_ed25519_key",
	"/etc/ssl/private",
	"/etc/krb5.keytab",
	"/etc/NetworkManager/system-connections",
	"/etc/wireguard",
};

/* The built-in base, rank 0 (DESIGN.md §7, network filtered). */
static void
apply_base(struct policy *p, bool as_root)
{
	for (size_t i = 0; i < ARRAY_SIZE(base_env_keep); i++)
		items_add(&p->env_keep, base_env_keep[i], "built-in");
	p->net = LLW_NET_FILTERED;
	if (!as_root)
		return;
	p->paths =
		xreallocarray(p->paths, p->n_paths + ARRAY_SIZE(root_secrets),
			      sizeof(*p->paths));
	for (size_t i = 0; i < ARRAY_SIZE(root_secrets); i++)
		p->paths[p->n_paths++] = (struct llw_path_rule){
			.path = xstrdup(root_secrets[i]),
			.access = LLW_ACCESS_DENY,
			.origin = xstrdup("built-in, as root"),
		};
}

int
policy_resolve(const struct policy_request *req, struct policy **out,
	       char **cause)
{
	static char *const default_profiles[] = { "default", NULL };
	attribute_cleanup(policy_freep) struct policy *p = policy_new();
	attribute_cleanup(vars_freep) struct vars *vars =
		vars_new(req->envp, req->project, req->name);
	struct resolver r = { .req = req, .vars = vars, .p = p };
	char *const *profiles = req->profiles;
	int ret = 0;

	p->name = req->name != NULL ? xstrdup(req->name) : NULL;
	p->project = req->project != NULL ? xstrdup(req->project) : NULL;
	p->workdir = req->workdir != NULL ? xstrdup(req->workdir) : NULL;
	p->project_why =
		req->project_why != NULL ? xstrdup(req->project_why) : NULL;
	p->config_files = xcalloc(1, sizeof(char *));
	p->descriptions = xcalloc(1, sizeof(char *));
	apply_base(p, req->as_root);

	if (profiles == NULL || profiles[0] == NULL)
		profiles = default_profiles;
	for (char *const *a = profiles; *a != NULL; a++)
		strv_push_take(&r.names, match_profile_name(*a));
	p->run_profile = xstrdup(r.names[strv_length(r.names) - 1]);
	for (char *const *a = profiles; *a != NULL && ret == 0; a++) {
		struct profile *prof = NULL;

		ret = load(&r, *a, NULL, 0, &prof, cause);
		if (ret == 0)
			ret = apply_source(&r, prof, cause);
	}
	if (ret == 0)
		ret = apply_matched(&r, cause);
	if (ret == 0 && req->read_project_file && req->project != NULL) {
		_cleanup_free_ char *raw =
			xasprintf("%s/.llwrap.ini", req->project);
		_cleanup_free_ char *file = path_normalise(raw);
		struct profile *prof = NULL;

		ret = profile_parse_file(file, PROFILE_KIND_PROJECT, vars,
					 &prof, cause);
		if (ret == -ENOENT) {
			free(steal_pointer(cause));
			ret = 0;
		} else {
			if (ret == 0 || ret == -EINVAL)
				config_file_add(&r, file);
			if (ret == 0)
				ret = apply_source(&r, prof, cause);
		}
	}
	if (ret == 0 && req->cli != NULL)
		ret = apply_profile(&r, req->cli, ++r.rank, cause);
	if (ret == 0)
		apply_git_config(&r);
	git_clear(&r);

	strv_free(r.applied);
	strv_free(r.stack);
	strv_free(r.names);
	if (ret < 0)
		return ret;
	*out = steal_pointer(&p);
	return 0;
}

int
policy_add(struct policy *p, const char *section, const char *key,
	   const char *value, const char *origin, char **cause)
{
	static char *const env[] = { NULL };
	static const struct policy_request req = { .envp = env };
	attribute_cleanup(vars_freep) struct vars *vars =
		vars_new(env, NULL, NULL);
	attribute_cleanup(profile_freep) struct profile *prof =
		profile_new(origin, PROFILE_KIND_CLI);
	const struct key *k = keys_find(section, key);
	struct resolver r = { .req = &req, .vars = vars, .p = p };
	int ret;

	if (k == NULL || k->merge == KEY_MERGE_SOURCE ||
	    k->id == KEY_GIT_CONFIG) {
		*cause = xasprintf("[%s] %s cannot be added to a policy.",
				   section, key);
		return -EINVAL;
	}
	if ((ret = profile_add(prof, vars, section, key, value, 0, cause)) < 0)
		return ret;
	return apply_profile(&r, prof, LLW_RANK_LLWRAP - 1, cause);
}

char *
policy_broad_project(const char *project, const char *home)
{
	if (strcmp(project, "/") == 0)
		return xstrdup("the project directory is /, so rules on "
			       "${PROJECT} would cover the whole file system");
	if (home == NULL || *home == '\0' || !path_under(home, project))
		return NULL;
	if (strcmp(home, project) == 0)
		return xasprintf("the project directory is the home directory "
				 "%s, so rules on ${PROJECT} would cover "
				 "every file of the user (keys, other "
				 "projects, shell start-up files)",
				 home);
	return xasprintf("the project directory %s contains the home "
			 "directory %s, so rules on ${PROJECT} would cover "
			 "every file of the user",
			 project, home);
}

static bool
items_match(const struct llw_items *it, const char *name)
{
	for (size_t i = 0; i < it->n; i++)
		if (env_glob_match(it->v[i].value, name))
			return true;
	return false;
}

char **
policy_environ(const struct policy *p, char *const *envp)
{
	char **env = xcalloc(1, sizeof(char *));
	_cleanup_strv_ char **names = xcalloc(1, sizeof(char *));

	for (; envp != NULL && *envp != NULL; envp++) {
		_cleanup_free_ char *name = NULL;

		if (strchr(*envp, '=') == NULL)
			continue;
		name = env_name(*envp);
		/* The first of duplicated names is the one getenv() sees. */
		if (strv_contains(names, name))
			continue;
		strv_push(&names, name);
		if (items_match(&p->env_keep, name) &&
		    !items_match(&p->env_unset, name))
			strv_push(&env, *envp);
	}
	for (size_t i = 0; i < p->env_set.n; i++) {
		const char *s = p->env_set.v[i].value;
		size_t len = strcspn(s, "=");
		bool replaced = false;

		for (char **e = env; *e != NULL; e++) {
			if (strncmp(*e, s, len) == 0 && (*e)[len] == '=') {
				free(*e);
				*e = xstrdup(s);
				replaced = true;
				break;
			}
		}
		if (!replaced)
			strv_push(&env, s);
	}
	return env;
}
