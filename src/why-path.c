/*
 * `llwrap why` for paths and unix sockets (why-int.h): a path's read,
 * write or execute decided on the compiled plan (the L3 masks, then
 * the rules Landlock gets, by plan_decide_rules), the rule named the
 * plan's source that holds it (plan_source_at), and the narrowest safe
 * grant suggested (suggest.h); a pathname socket by seccomp's socket
 * rule, then the supervisor's allow-list, Landlock's RESOLVE_UNIX or
 * nothing; an abstract one by the layer that scopes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "path.h"
#include "refusal.h"
#include "strv.h"
#include "suggest.h"
#include "why-int.h"
#include "xalloc.h"

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

	suggest_bounds_init(&b, q->home, sb->fs);
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
	      const struct why_query *q, const struct plan_source *cur)
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

void
why_path(const struct sandbox *sb, const struct why_query *q,
	 struct why_verdict *v)
{
	/* The configured rule that holds the path, at its resolved path
	 * (the plan's sources): what the decision is explained by. */
	const struct plan_source *cur = plan_source_at(sb->fs, q->path);
	const struct plan_mask *m = NULL;
	const struct plan_rule *rules;
	struct plan_verdict e;
	uint64_t handled, need = right_needed(q);
	size_t n;

	/* L3: the mount view.  bubblewrap mounts the same masks. */
	if (sb->use_ns || sb->backend == SANDBOX_BACKEND_BWRAP)
		m = mask_over(sb->fs, q->path);
	if (m != NULL && !level_allows(m->access, q->access)) {
		/* bubblewrap's masks and L3's sealed view: a denial is a
		 * placeholder of mode 000 (viewplan.h, bwrap.c), not
		 * /dev/null. */
		bool sealed = sb->backend == SANDBOX_BACKEND_BWRAP ||
			      (sb->use_ns && sb->ns.seal);

		v->allowed = false;
		set(&v->layer, xstrdup(sb->backend == SANDBOX_BACKEND_BWRAP
					       ? "F bubblewrap (mount mask)"
					       : "L3 mount namespace (mask)"));
		set(&v->decision,
		    xasprintf(
			    "denied: %s%s%s is %s (%s)", q->path,
			    strcmp(q->path, m->path) ? " is under " : "",
			    strcmp(q->path, m->path) ? m->path : "",
			    m->access == LLW_ACCESS_DENY && m->is_dir
				    ? (sealed ? "mounted as an empty "
						"directory of mode 0111"
					      : "mounted as an empty directory")
			    : m->access == LLW_ACCESS_DENY
				    ? (sealed ? "masked by an empty file of "
						"mode 000 that fails every "
						"open (EACCES)"
					      : "masked by a character device "
						"that fails every open "
						"(EACCES)")
			    : policy_access_writable(m->access)
				    ? "mounted without execute"
				    : "mounted read-only",
			    policy_access_name(m->access)));
		set(&v->origin, xstrdup(m->origin));
		if (m->access == LLW_ACCESS_DENY && !m->is_dir)
			note(v, xstrdup(sealed ? "the mask hides the file's "
						 "content, not its name: it "
						 "lists as an empty file of "
						 "mode 000"
					       : "the mask hides the file's "
						 "content, not its name: it "
						 "lists as a character device "
						 "(/dev/null's, on a mount "
						 "without devices)"));
		if (cur != NULL && cur->rank != LLW_RANK_CONFIG &&
		    path_under(cur->path, m->path))
			set(&v->rule, xasprintf("%s = %s",
						policy_access_name(cur->access),
						cur->written));
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
		set(&v->decision,
		    xasprintf("allowed: %s %s", why_access_verb(q->access),
			      q->path));
		if (cur != NULL && level_allows(cur->access, q->access)) {
			set(&v->rule, xasprintf("%s = %s",
						policy_access_name(cur->access),
						cur->written));
			set(&v->origin, xstrdup(cur->origin));
		} else {
			const struct plan_source *b =
				plan_source_at(sb->fs, e.rule);

			if (b != NULL)
				set(&v->rule,
				    xasprintf("%s = %s",
					      policy_access_name(b->access),
					      b->written));
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
					       cur->written, cur->origin,
					       cur->written));
			else if (cur != NULL)
				note(v,
				     xasprintf("%s = %s (%s) does not "
					       "apply to this access",
					       policy_access_name(cur->access),
					       cur->written, cur->origin));
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
			      cur->written));
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

void
why_unix(const struct sandbox *sb, char *const *unix_paths,
	 const struct why_query *q, struct why_verdict *v)
{
	const struct plan_conf *p = &sb->conf;
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
void
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
		    xstrdup(sb->conf.unix_sockets_origin.origin
				    ? sb->conf.unix_sockets_origin.origin
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
