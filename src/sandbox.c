/*
 * Preparing and applying the sandbox.  Everything that can be decided
 * without touching the process is decided in sandbox_prepare(), so that
 * --explain reports exactly what sandbox_exec() will do and a policy that
 * cannot be enforced is refused before anything is applied.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "caps.h"
#include "cleanup.h"
#include "compat/landlock.h"
#include "fdutil.h"
#include "gitguard.h"
#include "known.h"
#include "path.h"
#include "ns.h"
#include "proxy.h"
#include "dnsstub.h"
#include "proxyserve.h"
#include "sandbox.h"
#include "strv.h"
#include "monitor.h"
#include "supervise.h"
#include "watchlater.h"
#include "xalloc.h"

/*
 * DESIGN.md §4.4: every configuration file llwrap read is write-protected
 * inside the sandbox.  Each gets a read-only rule that beats every source;
 * pathtree_compile() decides on resolved paths whether it protects
 * anything (a file the rules leave unwritable keeps its access) and
 * compiles it like any narrower-inside-writable rule (a mask, or fail
 * closed).  Comparing the paths here, as written, missed a profile given
 * through a symlink and a grant given through one (-p T/a/p.ini --rw T/L
 * with T/L -> a).
 */
static void
protect_config_files(const struct policy *p, const struct gitguard *gg,
		     const struct gitguard *later, struct llw_path_rule **rules,
		     size_t *n)
{
	/* Two more for no_host_terminals(). */
	*rules = xcalloc(p->n_paths + strv_length(p->config_files) +
				 (gg != NULL ? gg->n : 0) +
				 (later != NULL ? later->n : 0) + 3,
			 sizeof(**rules));
	memcpy(*rules, p->paths, p->n_paths * sizeof(**rules));
	*n = p->n_paths;
	for (char **f = p->config_files; f != NULL && *f != NULL; f++) {
		struct llw_path_rule *r = &(*rules)[(*n)++];

		r->path = *f;
		r->access = LLW_ACCESS_RO;
		r->rank = LLW_RANK_CONFIG;
		r->origin = "llwrap configuration file (write-protected)";
	}
	/* protect-git (DESIGN.md §11): the same, for the repository's
	 * files that can run commands, and pins for the directories on
	 * the way to them. */
	for (size_t i = 0; gg != NULL && i < gg->n; i++) {
		struct llw_path_rule *r = &(*rules)[*n];

		/* A linked worktree's repository is writable as a .git in
		 * the project is, unless a rule denies it by name. */
		if (gg->v[i].kind == GITGUARD_RW) {
			const struct llw_path_rule *by =
				policy_rule_at(p, gg->v[i].path);

			if (by != NULL && by->access == LLW_ACCESS_DENY &&
			    strcmp(by->path, gg->v[i].path) == 0)
				continue;
			r->path = gg->v[i].path;
			r->access = LLW_ACCESS_RW;
			r->rank = LLW_RANK_LLWRAP;
			r->origin = "protect-git: a linked worktree's "
				    "repository (writable)";
			(*n)++;
			continue;
		}
		(*n)++;
		r->path = gg->v[i].path;
		r->access = gg->v[i].kind == GITGUARD_RX ? LLW_ACCESS_RX
							 : LLW_ACCESS_RO;
		if (gg->v[i].kind == GITGUARD_PIN) {
			r->rank = LLW_RANK_PIN;
			r->origin = "protect-git: pinned in place";
		} else {
			r->rank = LLW_RANK_CONFIG;
			r->origin = "protect-git: git metadata (read-only)";
		}
	}
	/* protect-later-run: direnv's, the editors' and agents' files. */
	for (size_t i = 0; later != NULL && i < later->n; i++) {
		struct llw_path_rule *r = &(*rules)[(*n)++];

		r->path = later->v[i].path;
		r->access = LLW_ACCESS_RO;
		r->rank = LLW_RANK_CONFIG;
		r->origin = "protect-later-run: run later, outside (read-only)";
	}
}

/* The largest git index read to unhide a tracked file (as watchlater). */
#define SANDBOX_MAX_INDEX (256u << 20)

/*
 * Whether path, a file under a git work tree, is tracked by git and
 * unchanged (git's own stat test against the index) in a repository
 * whose objects the policy lets the command read: then its contents are
 * a blob the command can read anyway (git show :PATH).
 */
static bool
tracked_unchanged(const struct policy *view, const char *path)
{
	_cleanup_free_ char *dir = xstrdup(path), *gitdir = NULL;
	_cleanup_free_ char *objects = NULL, *real = NULL, *index = NULL;
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct gitguard_index_entry e;
	struct stat st, ist;
	char *slash;
	size_t len;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	/* The nearest work tree above path. */
	for (;;) {
		slash = strrchr(dir, '/');
		if (slash == NULL || slash == dir)
			return false;
		*slash = '\0';
		objects = gitguard_objects(dir, &gitguard_fs_real, &gitdir);
		if (objects != NULL)
			break;
	}
	real = realpath(objects, NULL);
	if (real == NULL ||
	    policy_access_at(view, real, NULL) == LLW_ACCESS_DENY)
		return false;
	index = xasprintf("%s/index", gitdir);
	fd = fd_open_regular(AT_FDCWD, index, O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &ist) < 0 ||
	    fd_read_all(fd, SANDBOX_MAX_INDEX, &buf, &len) < 0 ||
	    gitguard_index_find(buf, len, path + strlen(dir) + 1, &e) < 0)
		return false;
	return gitguard_unchanged(&e, &st, &ist.st_mtim);
}

/*
 * A deny rule on a file that git tracks, unchanged, hides nothing: its
 * contents are in the repository, which the command reads.  Hidden (a
 * /dev/null mount), it only breaks git: status shows it changed, commit
 * -a and add -A fail ("unsupported file type").  Such a rule becomes
 * read-only for this run, and --explain says why.  A changed or
 * untracked file stays hidden.
 */
static void
unhide_tracked(struct sandbox *sb, const struct policy *view,
	       struct llw_path_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct llw_path_rule *r = &rules[i];
		char *origin;

		if (r->access != LLW_ACCESS_DENY ||
		    sb->policy->project == NULL ||
		    !path_under(r->path, sb->policy->project) ||
		    strcmp(r->path, sb->policy->project) == 0 ||
		    !tracked_unchanged(view, r->path))
			continue;
		origin = xasprintf("%s; read-only, not hidden: git tracks it "
				   "unchanged, so its contents are in the "
				   "repository",
				   r->origin);
		strv_push_take(&sb->unhidden, origin);
		r->access = LLW_ACCESS_RO;
		r->origin = origin;
	}
}

/*
 * [limits] tmpfs-size in bytes: as given, or a percentage of this
 * machine's memory (LLW_TMPFS_PERCENT by default).  0 when memory cannot
 * be read: then the kernel's default (half of it) applies.
 */
static uint64_t
tmpfs_size(const struct policy *p)
{
	unsigned percent =
		p->tmpfs_percent ? p->tmpfs_percent : LLW_TMPFS_PERCENT;
	struct sysinfo si;

	if (p->tmpfs_bytes > 0)
		return p->tmpfs_bytes;
	if (sysinfo(&si) < 0)
		return 0;
	return (uint64_t)si.totalram * si.mem_unit / 100 * percent;
}

/*
 * DESIGN.md §11, terminals: a policy that wanted L3 runs without it
 * (best effort), so /dev/pts would be the host's, with the user's other
 * terminals in it.  Deny it and /dev/ptmx above every source: the
 * inherited terminal keeps working through its descriptors and /dev/tty,
 * new pseudo-terminals (script, ssh -t) cannot be made.  Returns whether
 * rules were added.
 */
static bool
no_host_terminals(struct sandbox *sb, const struct policy *p,
		  struct llw_path_rule *rules, size_t *n)
{
	static const char *const paths[] = { "/dev/pts", "/dev/ptmx" };

	if (sb->use_ns || sb->ns_needed == NULL || !p->best_effort ||
	    policy_access_at(p, "/dev/pts", NULL) == LLW_ACCESS_DENY)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct llw_path_rule *r = &rules[(*n)++];

		r->path = (char *)paths[i];
		r->access = LLW_ACCESS_DENY;
		r->rank = LLW_RANK_LLWRAP;
		r->origin = "terminals: the host's, without L3";
	}
	strv_push(&sb->not_enforced,
		  "a devpts instance of the sandbox's own: /dev/pts and "
		  "/dev/ptmx are denied instead, so new pseudo-terminals "
		  "(script, ssh -t) cannot be opened; the inherited terminal "
		  "works (needs unprivileged user namespaces) [not a hole]");
	return true;
}

static const char *
supervisor_rule_names(const struct policy *p)
{
	if (p->n_cidrs > 0)
		return "allow-cidr";
	if (p->unix_paths.n > 0)
		return "unix";
	if (p->n_listen_addrs > 0)
		return "listen";
	return "dns";
}

static void
sandbox_refuse(struct sandbox *sb, char *cause)
{
	if (sb->must_fail) {
		free(cause);
		return;
	}
	sb->must_fail = true;
	sb->fail_cause = cause;
}

/* [limits] memory-max and pids-max need a delegated cgroup (resources.h):
 * without one the run fails closed, or best effort runs without them. */
static void
cgroup_account(struct sandbox *sb, const struct policy *p)
{
	_cleanup_free_ char *why = NULL;

	if (resources_cgroup_probe(p, &why) == 0)
		return;
	if (p->best_effort)
		strv_push_take(&sb->not_enforced,
			       xasprintf("[limits] memory-max and pids-max "
					 "(needs a cgroup of the command's "
					 "own: %s)",
					 why));
	else
		sandbox_refuse(sb, resources_cgroup_refusal(p, why));
}

bool
sandbox_hosts_stub(const struct sandbox *sb)
{
	const struct policy *p = sb->policy;

	return sb->supervise && netpolicy_proxy_enabled(p) && !p->proxy &&
	       sb->userns_ok >= 0;
}

/* Whether L3 can run here, probed once (a short-lived child). */
static bool
sandbox_userns(struct sandbox *sb)
{
	char *why = NULL;

	if (sb->userns_ok == 0) {
		sb->userns_ok = ns_available(&why) ? 1 : -1;
		free(sb->ns_refused);
		sb->ns_refused = why;
	}
	return sb->userns_ok > 0;
}

/* Whether the supervisor (S) can run here, probed once. */
static bool
sandbox_supervisor(struct sandbox *sb)
{
	char *why = NULL;

	if (sb->supervisor_ok == 0) {
		sb->supervisor_ok = supervise_available(&why) ? 1 : -1;
		free(sb->supervisor_refused);
		sb->supervisor_refused = why;
	}
	return sb->supervisor_ok > 0;
}

/* Turn L3 on (once) for what, with the options the policy asks for. */
static void
ns_enable(struct sandbox *sb, const struct policy *p, const char *what)
{
	char *needed;

	needed = sb->ns_needed ? xasprintf("%s, %s", sb->ns_needed, what)
			       : xstrdup(what);
	free(sb->ns_needed);
	sb->ns_needed = needed;
	if (sb->use_ns)
		return;
	sb->use_ns = true;
	/* The watch on files run later (DESIGN.md §15) makes its final
	 * check once the command has ended: with a pid namespace every
	 * process of the sandbox has ended with it, none plants a file
	 * after the check. */
	sb->ns.pid =
		p->hide_processes || p->protect_git || p->protect_later_run;
	sb->ns.net = p->net == LLW_NET_NONE;
	sb->ns.private_tmp = p->private_tmp;
	sb->ns.tmpfs_size = tmpfs_size(p);
	/* DESIGN.md §11: only the sandbox's own terminals, where the
	 * policy grants terminals at all. */
	sb->ns.devpts =
		policy_access_at(p, "/dev/pts", NULL) != LLW_ACCESS_DENY;
	sb->ns.fs = sb->fs;
	sb->ns.policy = p;
}

/* The run refused for want of L3: needed says what for, why what refuses
 * it. */
static char *
l3_refusal(const char *needed, const char *why)
{
	return xasprintf("the policy needs the namespace layer (L3) for %s, "
			 "but %s; run with --best-effort (or best-effort = "
			 "yes in a profile) to run without it",
			 needed, why);
}

/*
 * Layer L3: decide whether the policy needs namespaces (masks, net = none,
 * a private /tmp, hidden processes) and, only then, whether the kernel
 * lets this user create them.  Sets sb->use_ns and sb->ns; when L3 is
 * needed and refused, either refuses the run or (best effort) records
 * each restriction lost.  Returns true when the plan in sb->fs has masks
 * that cannot be applied, so the caller recompiles it without.
 */
static bool
ns_plan(struct sandbox *sb, const struct policy *p)
{
	_cleanup_strv_ char **needs = NULL;
	_cleanup_free_ char *list = NULL;
	const char *why;

	if (sb->fs->n_masks > 0) {
		/* Name the paths, as the fail-closed message of pathtree
		 * does without masks. */
		_cleanup_strv_ char **paths = NULL;
		_cleanup_free_ char *joined = NULL;

		for (size_t i = 0; i < sb->fs->n_masks && i < 3; i++)
			strv_push_take(
				&paths,
				xasprintf("%s %s",
					  policy_access_name(
						  sb->fs->masks[i].access),
					  sb->fs->masks[i].path));
		if (sb->fs->n_masks > 3)
			strv_push(&paths, "...");
		joined = strv_join(paths, ", ");
		strv_push_take(&needs,
			       xasprintf("narrower rules inside writable "
					 "directories (mount masks: %s)",
					 joined));
	}
	if (p->net == LLW_NET_NONE)
		strv_push(&needs, "net = none (a network namespace with only "
				  "lo)");
	if (p->private_tmp)
		strv_push(&needs, "private-tmp");
	if (p->hide_processes)
		strv_push(&needs, "hide-processes (a pid namespace)");
	if (needs == NULL)
		return false;
	list = strv_join(needs, ", ");

	/* A sandbox about to run that would fail closed without L3 asks the
	 * kernel with the run's own unshare (sandbox_exec), which refuses
	 * alike: the probe's child costs a namespace and a process, and on
	 * a busy machine the wait for its turn on a CPU.  net = none alone
	 * does not fail closed (below), so it is probed. */
	if (sb->run && sb->userns_ok == 0 && !p->best_effort &&
	    (sb->fs->n_masks > 0 || p->private_tmp || p->hide_processes)) {
		char *no = NULL;

		switch (ns_precheck(&no)) {
		case NS_REFUSED:
			sb->userns_ok = -1;
			sb->ns_refused = no;
			break;
		case NS_UNKNOWN:
			sb->ns_unshare_probes = true;
			ns_enable(sb, p, list);
			return false;
		case NS_PROBE:
			break;
		}
	}
	if (sandbox_userns(sb)) {
		ns_enable(sb, p, list);
		return false;
	}
	sb->ns_needed = xstrdup(list);
	why = sb->ns_refused;
	/* net = none alone does not fail closed: without a namespace,
	 * seccomp denies inet sockets, which is stricter (DESIGN.md §6). */
	if (!p->best_effort &&
	    (sb->fs->n_masks > 0 || p->private_tmp || p->hide_processes)) {
		sandbox_refuse(sb, l3_refusal(list, why));
		return false;
	}
	if (p->net == LLW_NET_NONE)
		strv_push(&sb->not_enforced,
			  "net = none with a working loopback (needs "
			  "unprivileged user namespaces; seccomp denies inet "
			  "sockets instead, loopback included) [not a hole]");
	if (p->private_tmp)
		strv_push(&sb->not_enforced,
			  "private-tmp: the host's /tmp, /var/tmp and /dev/shm "
			  "are shared (needs unprivileged user namespaces)");
	if (p->hide_processes)
		strv_push(&sb->not_enforced,
			  "hide-processes: host processes are visible in "
			  "/proc (needs unprivileged user namespaces)");
	if (sb->fs->n_masks > 0 || p->private_tmp || p->hide_processes)
		strv_push(&sb->not_enforced,
			  "read-only view: chmod, chown, utimes and xattrs of "
			  "files outside writable roots (needs unprivileged "
			  "user namespaces)");
	return sb->fs->n_masks > 0;
}

/* filtered, and not a single TCP or UDP port allowed. */
static bool
portless(const struct policy *p)
{
	return p->net == LLW_NET_FILTERED && p->connect_tcp.n == 0 &&
	       p->bind_tcp.n == 0 && p->connect_udp.n == 0 &&
	       p->bind_udp.n == 0;
}

/*
 * The layer for restriction r on this system (layers.h).  Landlock and
 * the backend are known; L3 and the supervisor are probed only when
 * Landlock falls short.
 */
static enum layers_id
choose_layer(struct sandbox *sb, enum layers_restriction r)
{
	struct layers_facts f = {
		.abi = sb->kernel.abi,
		.bwrap = sb->backend == SANDBOX_BACKEND_BWRAP,
		.portless = portless(sb->policy),
	};
	enum layers_id l = layers_choose(r, &f);

	if (l != LAYER_NONE)
		return l;
	f.userns = sandbox_userns(sb);
	f.supervisor = sandbox_supervisor(sb);
	return layers_choose(r, &f);
}

/*
 * Layer substitution (DESIGN.md §14): for each fatal loss of the
 * Landlock plan, turn on the layer that takes the restriction over: L3
 * (with a pid namespace for signals) or the supervisor.
 */
static void
substitute(struct sandbox *sb, const struct policy *p)
{
	struct ruleset_plan *rp = ruleset_plan_losses(p, sb->fs, &sb->kernel);

	for (size_t i = 0; i < rp->n_losses; i++) {
		enum layers_restriction r = rp->losses[i].restriction;

		if (r == LAYERS_NONE || !rp->losses[i].fatal)
			continue;
		switch (choose_layer(sb, r)) {
		case LAYER_L3:
			ns_enable(sb, p, layers_restriction_name(r));
			if (r == LAYERS_SIGNALS)
				sb->ns.pid = true;
			break;
		case LAYER_S:
			sb->supervise = true;
			break;
		case LAYER_L2:
			sb->l2_deny_inet = true;
			break;
		default:
			break;
		}
	}
	ruleset_plan_free(rp);
}

static bool
bwrap_loses(const struct bwrap_plan *bp, enum layers_restriction r)
{
	for (size_t i = 0; i < bp->n_losses; i++)
		if (bp->losses[i].restriction == r)
			return true;
	return false;
}

/*
 * The policy asks for the supervisor and it cannot run here: refused,
 * or under best effort reported as not enforced.
 */
static void
supervisor_missing(struct sandbox *sb, const struct policy *p)
{
	if (p->best_effort)
		strv_push_take(&sb->not_enforced,
			       xasprintf("the network supervisor's rules (%s): "
					 "%s",
					 supervisor_rule_names(p),
					 sb->supervisor_refused));
	else
		sandbox_refuse(sb, xasprintf("the policy's '%s' rules need the "
					     "network supervisor, but %s; run "
					     "with --best-effort to run "
					     "without them",
					     supervisor_rule_names(p),
					     sb->supervisor_refused));
}

/* Another layer enforces r: no loss of bwrap's plan any more. */
static void
bwrap_cover(struct bwrap_plan *bp, enum layers_restriction r)
{
	for (size_t i = bp->n_losses; i-- > 0;) {
		if (bp->losses[i].restriction != r)
			continue;
		free(bp->losses[i].what);
		free(bp->losses[i].needs);
		bp->losses[i] = bp->losses[--bp->n_losses];
	}
}

/* Which restrictions p asks for, and the layer now enforcing each. */
static void
account(struct sandbox *sb, const struct policy *p)
{
	struct layers_facts f = {
		.abi = sb->kernel.abi,
		.userns = sb->use_ns,
		.supervisor = sb->supervise,
		.bwrap = sb->backend == SANDBOX_BACKEND_BWRAP,
		.portless = sb->l2_deny_inet && !sb->supervise,
	};
	struct layers_run run = {
		.bwrap = sb->bwrap != NULL,
		.supervisor = sb->supervise,
		.pid_ns = sb->ns.pid,
	};
	bool filtered = p->net == LLW_NET_FILTERED;

	sb->asked[LAYERS_FS_ALLOWLIST] = true;
	sb->asked[LAYERS_TRUNCATE] = true;
	sb->asked[LAYERS_METADATA] = true;
	sb->asked[LAYERS_MASKS] = sb->fs->n_masks > 0;
	sb->asked[LAYERS_TCP_PORTS] = filtered;
	sb->asked[LAYERS_UDP_PORTS] =
		filtered && (p->connect_udp.n > 0 || p->bind_udp.n > 0);
	/* AF_UNIX sockets exist only where the policy or the supervisor
	 * allows them; otherwise seccomp refuses the family (L2). */
	sb->asked[LAYERS_PATH_UNIX] = p->unix_sockets || sb->supervise;
	sb->asked[LAYERS_ABSTRACT_UNIX] = p->unix_sockets || sb->supervise;
	sb->asked[LAYERS_SIGNALS] = true;
	for (int r = 0; r < LAYERS_N && sb->bwrap != NULL; r++)
		run.bwrap_loses[r] = bwrap_loses(sb->bwrap, r);
	layers_account(sb->asked, &f, &run, sb->enforced_by);
}

/* ", and no substitute: ..." naming why L3 and S cannot take r over. */
static char *
substitutes_missing(struct sandbox *sb, enum layers_restriction r)
{
	_cleanup_strv_ char **why = NULL;
	_cleanup_free_ char *list = NULL;

	if (r == LAYERS_NONE)
		return xstrdup("");
	if (sb->userns_ok < 0 && sb->ns_refused != NULL)
		strv_push_take(&why, xasprintf("L3: %s", sb->ns_refused));
	if (sb->supervisor_ok < 0 && sb->supervisor_refused != NULL)
		strv_push_take(&why, xasprintf("supervisor: %s",
					       sb->supervisor_refused));
	if (why == NULL)
		return xasprintf("; it needs %s", layers_order(r));
	list = strv_join(why, "; ");
	return xasprintf("; it needs %s, and none is available here (%s)",
			 layers_order(r), list);
}

/*
 * Which backend runs (DESIGN.md §3 --backend): auto takes Landlock when
 * the kernel has it and falls back to bubblewrap only when Landlock is
 * missing (ENOSYS, EOPNOTSUPP) and bwrap can run here; otherwise the
 * Landlock backend refuses the policy as before.
 */
static void
choose_backend(struct sandbox *sb, enum sandbox_backend asked)
{
	_cleanup_free_ char *why = NULL, *k = ruleset_describe(&sb->kernel);

	sb->backend = SANDBOX_BACKEND_LANDLOCK;
	if (asked == SANDBOX_BACKEND_LANDLOCK) {
		sb->backend_why = xstrdup("--backend=landlock");
		return;
	}
	if (asked == SANDBOX_BACKEND_AUTO &&
	    !bwrap_fallback_wanted(&sb->kernel)) {
		sb->backend_why = xasprintf("--backend=auto: %s", k);
		return;
	}
	bwrap_find(getenv("PATH"), &sb->bwrap_bin);
	if (asked == SANDBOX_BACKEND_AUTO) {
		if (!bwrap_usable(&sb->bwrap_bin, &why)) {
			sb->backend_why = xasprintf("--backend=auto: %s, and "
						    "no bubblewrap fallback: "
						    "%s",
						    k, why);
			return;
		}
		sb->backend = SANDBOX_BACKEND_BWRAP;
		sb->backend_why = xasprintf("--backend=auto: %s, so %s runs "
					    "the command",
					    k, sb->bwrap_bin.path);
		return;
	}
	sb->backend = SANDBOX_BACKEND_BWRAP;
	sb->backend_why = xstrdup("--backend=bwrap");
	if (!bwrap_usable(&sb->bwrap_bin, &why))
		sandbox_refuse(sb, xasprintf("--backend=bwrap was asked for, "
					     "but %s",
					     why));
}

/*
 * The rest of sandbox_prepare() for the bubblewrap backend: the mounts
 * and namespaces, what they cannot enforce, and the seccomp options,
 * which differ from Landlock's only where bwrap's namespaces change the
 * picture.
 */
static void
prepare_bwrap(struct sandbox *sb, const struct policy *p)
{
	struct bwrap_symlink *links;
	size_t n_links;
	char *cause;

	bwrap_find_symlinks(p, &links, &n_links);
	sb->bwrap = bwrap_plan_new(p, sb->fs, links, n_links);
	/* bwrap binds each rule by its path, in a user namespace of its
	 * own where root keeps no override over other users' files. */
	if (geteuid() == 0 && (cause = bwrap_root_unreachable(sb->fs)) != NULL)
		sandbox_refuse(sb, cause);
	sb->bwrap->tmpfs_size = tmpfs_size(p);
	for (size_t i = 0; i < n_links; i++) {
		free(links[i].path);
		free(links[i].target);
	}
	free(links);
	/* No Landlock runs: an empty plan, for code that reads it. */
	sb->landlock = xcalloc(1, sizeof(*sb->landlock));

	/* S beside bwrap: llwrap forks and stays outside as the network
	 * supervisor; its child loads the notification filter and execs
	 * bwrap, and the filter follows the command into the sandbox.  It
	 * takes over the port rules bubblewrap has no way to enforce, the
	 * pathname sockets a bound directory holds (docker, D-Bus: only
	 * Landlock ABI 9 checks a connect to them), and the rules only it
	 * enforces anywhere. */
	if (netpolicy_needs_supervisor(p) ||
	    bwrap_loses(sb->bwrap, LAYERS_TCP_PORTS) ||
	    bwrap_loses(sb->bwrap, LAYERS_UDP_PORTS) ||
	    bwrap_loses(sb->bwrap, LAYERS_PATH_UNIX)) {
		if (sandbox_supervisor(sb)) {
			sb->supervise = true;
			bwrap_cover(sb->bwrap, LAYERS_TCP_PORTS);
			bwrap_cover(sb->bwrap, LAYERS_UDP_PORTS);
			bwrap_cover(sb->bwrap, LAYERS_PATH_UNIX);
			/* The host network, filtered by the supervisor: in a
			 * network namespace of bwrap's the sandbox's sockets
			 * would be out of the supervisor's sight (its socket
			 * diagnostics see its own namespace), and its
			 * connects would reach only that namespace. */
			if (p->net == LLW_NET_FILTERED)
				sb->bwrap->share_net = true;
		} else if (netpolicy_needs_supervisor(p)) {
			supervisor_missing(sb, p);
		}
	}

	for (size_t i = 0; i < sb->bwrap->n_losses; i++) {
		const struct ruleset_loss *l = &sb->bwrap->losses[i];

		strv_push_take(&sb->not_enforced,
			       xasprintf("%s (needs %s)%s", l->what, l->needs,
					 l->fatal ? "" : " [not a hole]"));
	}
	if (bwrap_plan_must_fail(sb->bwrap, p)) {
		const struct ruleset_loss *l = sb->bwrap->losses;

		while (!l->fatal)
			l++;
		sandbox_refuse(sb,
			       xasprintf("the bubblewrap backend cannot "
					 "enforce the policy: %s (needs %s); "
					 "run with --best-effort (or "
					 "best-effort = yes in a profile) to "
					 "run without it",
					 l->what, l->needs));
	}
	/* The limits are set before bwrap runs, in the caller's user
	 * namespace, where RLIMIT_NPROC counts every process of the user:
	 * left out rather than failing bwrap's own clone. */
	if (p->limit_processes > 0)
		strv_push(&sb->not_enforced,
			  "[limits] processes: under the bubblewrap backend it "
			  "would count all of the user's processes (set before "
			  "bwrap makes its namespace) [not a hole]");
	account(sb, p);

	filter_opts_init(&sb->filter);
	/* Without Landlock nothing decides which pathname sockets a
	 * connect() reaches: AF_UNIX only when the policy allows it. */
	sb->filter.allow_unix = p->unix_sockets;
	sb->filter.deny_ptrace = p->ptrace_deny;
	/* net = none is a private network namespace where only lo exists,
	 * so inet sockets stay usable on loopback. */
	sb->filter.deny_inet = false;
	sb->filter.deny_udp = p->net == LLW_NET_FILTERED &&
			      p->connect_udp.n == 0 && p->bind_udp.n == 0;
	/* Under the supervisor, as with Landlock (sandbox_prepare). */
	if (sb->supervise) {
		sb->filter.allow_unix = true;
		sb->filter.allow_unix_dgram_pair = true;
		sb->filter.deny_udp = false;
	}
	/* bwrap's --unshare-all makes a pid namespace. */
	sb->filter.pid_any = true;
}

/*
 * The directories whose files run later (protect-later-run): the
 * project, and, when the command starts in a subdirectory of it, each
 * directory from there up to the project, where an agent started there
 * (opencode reads .opencode/ and opencode.json from each) and direnv
 * look too.  A new vector, the project first.
 */
static char **
later_run_dirs(const struct policy *p)
{
	char **v = NULL;
	_cleanup_free_ char *d =
		p->workdir != NULL ? xstrdup(p->workdir) : NULL;

	strv_push(&v, p->project);
	while (d != NULL && strcmp(d, p->project) != 0 &&
	       path_under(d, p->project)) {
		char *slash = strrchr(d, '/');

		strv_push(&v, d);
		if (slash == NULL || slash == d)
			break;
		*slash = '\0';
	}
	return v;
}

/* Move what from (gitguard_later_run of another directory) found into
 * into, and free from. */
static void
later_merge(struct gitguard *into, struct gitguard *from)
{
	if (from->n > 0) {
		into->v = xreallocarray(into->v, into->n + from->n,
					sizeof(*into->v));
		for (size_t i = 0; i < from->n; i++)
			into->v[into->n++] = from->v[i];
		from->n = 0;
	}
	for (char **s = from->notes; s != NULL && *s != NULL; s++)
		strv_push(&into->notes, *s);
	for (char **s = from->missing; s != NULL && *s != NULL; s++)
		strv_push(&into->missing, *s);
	gitguard_free(from);
}

/* The user's git configuration files, in the order git reads them. */
static char **
git_global_configs(void)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	char **v = NULL;

	strv_push(&v, "/etc/gitconfig");
	if (xdg != NULL && xdg[0] == '/')
		strv_push_take(&v, xasprintf("%s/git/config", xdg));
	else if (home != NULL && home[0] == '/')
		strv_push_take(&v, xasprintf("%s/.config/git/config", home));
	if (home != NULL && home[0] == '/')
		strv_push_take(&v, xasprintf("%s/.gitconfig", home));
	return v;
}

static int
prepare(const struct policy *p, enum sandbox_backend backend, bool run,
	struct sandbox **out, char **cause)
{
	struct sandbox *sb;
	struct policy view, net_view;
	struct llw_path_rule *rules;
	char *why = NULL;
	size_t n;
	int r;

	sb = xcalloc(1, sizeof(*sb));
	sb->policy = p;
	sb->run = run;
	ruleset_probe(&sb->kernel);
	choose_backend(sb, backend);
	cgroup_account(sb, p);

	/* Compile the filesystem rules, config-file protection included. */
	if (p->protect_git && p->project != NULL) {
		_cleanup_strv_ char **globals = git_global_configs();

		sb->git = gitguard_scan(p->project, &gitguard_fs_real, globals);
		for (char **s = sb->git->notes; *s != NULL; s++)
			strv_push_take(&sb->git_limits,
				       xasprintf("protect-git: %s", *s));
	}
	if (p->protect_later_run && p->project != NULL) {
		_cleanup_strv_ char **dirs = later_run_dirs(p);

		sb->later = gitguard_later_run(p->project, &gitguard_fs_real);
		for (char **d = dirs + 1; *d != NULL; d++)
			later_merge(sb->later,
				    gitguard_later_run(*d, &gitguard_fs_real));
		for (char **s = sb->later->notes; *s != NULL; s++)
			strv_push_take(&sb->git_limits,
				       xasprintf("protect-later-run: %s", *s));
	}
	protect_config_files(p, sb->git, sb->later, &rules, &n);
	view = *p;
	view.paths = rules;
	view.n_paths = n;
	unhide_tracked(sb, &view, rules, n);
	/* Masks are compiled first, to learn whether the policy needs them.
	 * bubblewrap applies them as mounts itself; for Landlock they need
	 * L3, and only then is the kernel asked whether L3 can run. */
	r = pathtree_compile(&view, &pathtree_fs_real, true, &sb->fs, &why);
	if (r == 0 && sb->backend != SANDBOX_BACKEND_BWRAP) {
		bool unmasked = ns_plan(sb, p) && sb->fs->n_masks > 0;
		bool no_pts = no_host_terminals(sb, p, rules, &n);

		view.n_paths = n;
		if (unmasked || no_pts) {
			/* Without L3 masks fall back to hole punching (best
			 * effort) or fail closed, naming the path. */
			plan_free(sb->fs);
			sb->fs = NULL;
			r = pathtree_compile(&view, &pathtree_fs_real,
					     sb->use_ns, &sb->fs, &why);
		}
	}
	free(rules);
	if (r == -EPERM) {
		sandbox_refuse(sb, steal_pointer(&why));
		sb->fs = xcalloc(1, sizeof(*sb->fs));
	} else if (r < 0) {
		*cause = why ? why
			     : xasprintf("cannot compile the filesystem "
					 "rules: %s",
					 strerror(-r));
		sandbox_free(sb);
		return r;
	}
	for (char **l = sb->fs->lost; l != NULL && *l != NULL; l++)
		strv_push(&sb->not_enforced, *l);

	if (sb->backend == SANDBOX_BACKEND_BWRAP) {
		prepare_bwrap(sb, p);
		*out = sb;
		return 0;
	}

	if (backend == SANDBOX_BACKEND_LANDLOCK && sb->kernel.abi == 0) {
		_cleanup_free_ char *k = ruleset_describe(&sb->kernel);

		sandbox_refuse(sb, xasprintf("--backend=landlock was asked "
					     "for, but %s",
					     k));
	}

	/* S: the network supervisor, for the rules only it can enforce.
	 * Best effort runs without it, reported: then the Landlock port
	 * rules alone restrict IP, and no unix socket is allowed. */
	if (netpolicy_needs_supervisor(p)) {
		if (sandbox_supervisor(sb))
			sb->supervise = true;
		else
			supervisor_missing(sb, p);
	}

	/* What Landlock cannot enforce on this ABI, other layers may. */
	substitute(sb, p);

	/* L1: Landlock, masked to the running ABI.  Under the supervisor
	 * the port lists are its to enforce: it performs every connect,
	 * bind and send with a destination itself, so Landlock (which
	 * judges the task that performs them) never sees one from the
	 * command.  Landlock then handles TCP with no port allowed (nothing
	 * reaches the kernel from the command but through the supervisor),
	 * and costs nothing: a port range such as 1024-65535 would be one
	 * rule per port.  The UDP lists are no loss where Landlock lacks
	 * UDP rules. */
	net_view = *p;
	if (sb->supervise) {
		memset(&net_view.connect_tcp, 0, sizeof(net_view.connect_tcp));
		memset(&net_view.bind_tcp, 0, sizeof(net_view.bind_tcp));
		memset(&net_view.connect_udp, 0, sizeof(net_view.connect_udp));
		memset(&net_view.bind_udp, 0, sizeof(net_view.bind_udp));
	}
	sb->landlock = ruleset_plan_new_probed(&net_view, sb->fs, &sb->kernel);
	if (sb->use_ns)
		ruleset_plan_ns_covers(sb->landlock, sb->ns.pid, sb->ns.net);
	account(sb, p);
	for (int x = 0; x < LAYERS_N; x++)
		if (sb->enforced_by[x] != LAYER_NONE)
			ruleset_plan_cover(sb->landlock, x);
	for (size_t i = 0; i < sb->landlock->n_losses; i++) {
		const struct ruleset_loss *l = &sb->landlock->losses[i];

		strv_push_take(&sb->not_enforced,
			       xasprintf("%s (needs %s)%s", l->what, l->needs,
					 l->fatal ? "" : " [not a hole]"));
	}
	if (ruleset_plan_must_fail(sb->landlock, p)) {
		_cleanup_free_ char *k = ruleset_describe(&sb->kernel);
		_cleanup_free_ char *others = NULL;
		const struct ruleset_loss *l = sb->landlock->losses;

		while (!l->fatal)
			l++;
		others = substitutes_missing(sb, l->restriction);
		sandbox_refuse(sb,
			       xasprintf("this kernel cannot enforce the "
					 "policy: %s (%s)%s; run with "
					 "--best-effort (or best-effort = yes "
					 "in a profile) to run without it",
					 l->what, k, others));
	}

	/* L2: seccomp.  UDP sockets are refused unless the policy allows
	 * some UDP port; if it does and Landlock cannot restrict UDP ports,
	 * ruleset_plan reported a fatal loss above. */
	filter_opts_init(&sb->filter);
	/* With RESOLVE_UNIX (ABI 9) Landlock decides which pathname sockets
	 * a connect() may reach, so the sandbox's own unix servers work. */
	sb->filter.allow_unix = p->unix_sockets || (sb->landlock->handled_fs &
						    LLW_FS_RESOLVE_UNIX) != 0;
	sb->filter.deny_ptrace = p->ptrace_deny;
	/* net = none: in its own network namespace only lo exists, so inet
	 * sockets reach nothing but the sandbox itself. */
	sb->filter.deny_inet = (p->net == LLW_NET_NONE && !sb->ns.net) ||
			       (sb->l2_deny_inet && !sb->supervise);
	sb->filter.deny_udp = p->net == LLW_NET_FILTERED &&
			      p->connect_udp.n == 0 && p->bind_udp.n == 0;
	/* Under the supervisor every connect, bind and send with a
	 * destination is mediated, so unix sockets (and datagram pairs) and
	 * UDP (for DNS to the resolvers) can be created. */
	if (sb->supervise) {
		sb->filter.allow_unix = true;
		sb->filter.allow_unix_dgram_pair = true;
		sb->filter.deny_udp = false;
	}
	/* Another process by pid: confined by a pid namespace, or checked
	 * by the supervisor (filter_pids). */
	sb->filter.pid_any = sb->supervise || (sb->use_ns && sb->ns.pid);

	/* Refused for another reason while L3 was left to the run: ask now
	 * (the run is not going to start anyway), so that the refusal names
	 * L3 first when it is refused too, as it would have. */
	if (sb->must_fail && sb->ns_unshare_probes && !sandbox_userns(sb)) {
		free(sb->fail_cause);
		sb->fail_cause = l3_refusal(sb->ns_needed, sb->ns_refused);
	}

	*out = sb;
	return 0;
}

int
sandbox_prepare(const struct policy *p, enum sandbox_backend backend,
		struct sandbox **out, char **cause)
{
	return prepare(p, backend, false, out, cause);
}

int
sandbox_prepare_run(const struct policy *p, enum sandbox_backend backend,
		    struct sandbox **out, char **cause)
{
	return prepare(p, backend, true, out, cause);
}

/*
 * mkdir of a placeholder a protection mounts over; a directory the user
 * cannot write to (EACCES, EROFS, EPERM) the command, as the same user
 * with less, cannot write to either: nothing to protect, not an error.
 */
static int
make_placeholder(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST || errno == EACCES ||
	    errno == EROFS || errno == EPERM)
		return 0;
	return -errno;
}

/* The ancestors of path (itself included) that do not exist, parents
 * first, appended to *made. */
static void
missing_dirs(const char *path, char ***made)
{
	_cleanup_free_ char *a = xstrdup(path);
	_cleanup_strv_ char **up = NULL;
	struct stat st;
	char *slash;

	while (lstat(a, &st) < 0 && errno == ENOENT) {
		strv_push(&up, a);
		if ((slash = strrchr(a, '/')) == NULL || slash == a)
			break;
		*slash = '\0';
	}
	for (size_t n = strv_length(up); n > 0; n--)
		strv_push(made, up[n - 1]);
}

/*
 * protect-later-run makes an existing .opencode/ read-only, and opencode
 * stops (EROFS is not the EACCES it forgives) unless the .gitignore it
 * writes into every .opencode directory it reads is there; a cloned
 * project's has none, since that file ignores itself.  So it is made
 * first, as opencode writes it on its first run there: the file the
 * user's own opencode makes, nothing else.  Beneath the project, no
 * symbolic link followed, never over anything.
 */
static void
opencode_gitignore(const char *project)
{
	static const char text[] = "node_modules\npackage.json\n"
				   "package-lock.json\nbun.lock\n.gitignore";
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	};
	_cleanup_close_ int pfd =
		open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int dfd = -1, fd = -1;

	if (pfd < 0 || (dfd = (int)syscall(SYS_openat2, pfd, ".opencode", &how,
					   sizeof(how))) < 0)
		return;
	fd = openat(dfd, ".gitignore",
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0 && write(fd, text, sizeof(text) - 1) < 0)
		(void)unlinkat(dfd, ".gitignore", 0);
}

int
sandbox_make_dirs(const struct policy *p, char ***made, char **cause)
{
	/* protect-git: a missing hooks/ is made (empty, as git's own
	 * template makes it) so that it can be mounted read-only. */
	if (p->protect_git && p->project != NULL) {
		_cleanup_free_ char *hooks =
			gitguard_missing_hooks(p->project, &gitguard_fs_real);

		int r = hooks != NULL ? make_placeholder(hooks) : 0;

		if (r < 0) {
			*cause = xasprintf("%s: cannot create %s: %s",
					   p->protect_git_origin.origin, hooks,
					   strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < p->mkdirs.n; i++) {
		const struct llw_item *it = &p->mkdirs.v[i];
		struct stat st;
		int r;

		if (stat(it->value, &st) == 0 && S_ISDIR(st.st_mode))
			continue;
		if (made != NULL)
			missing_dirs(it->value, made);
		if ((r = dir_make_path(it->value, 0700)) < 0) {
			*cause = xasprintf("%s: cannot create %s: %s",
					   it->origin, it->value, strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < p->touches.n; i++) {
		const struct llw_item *it = &p->touches.v[i];
		/* ?PATH: only where its directory exists. */
		bool optional = it->value[0] == '?';
		const char *path = it->value + optional;
		int fd = open(path,
			      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
				      O_NOFOLLOW,
			      0600);

		if (fd < 0 && errno != EEXIST &&
		    !(optional && errno == ENOENT)) {
			int e = errno;

			*cause = xasprintf("%s: cannot create %s: %s",
					   it->origin, path, strerror(e));
			return -e;
		}
		if (fd >= 0)
			close(fd);
	}
	if (p->protect_later_run && p->project != NULL) {
		_cleanup_strv_ char **dirs = later_run_dirs(p);

		for (char **d = dirs; *d != NULL; d++)
			opencode_gitignore(*d);
	}
	return 0;
}

unsigned
sandbox_l3_parts(const struct sandbox *sb)
{
	if (!sb->use_ns)
		return 0;
	return KNOWN_L3 | (sb->ns.pid ? KNOWN_L3_PID : 0) |
	       (sb->ns.private_tmp ? KNOWN_L3_TMP : 0) |
	       (sb->policy->protect_git ? KNOWN_L3_GIT : 0) |
	       (sb->policy->protect_later_run ? KNOWN_L3_LATER : 0);
}

int
sandbox_after(const struct sandbox *sb, int status)
{
	_cleanup_strv_ char **lines = watchlater_report(sb->watch);
	_cleanup_strv_ char **failed = watchlater_failures(sb->watch);

	for (char **l = lines; l != NULL && *l != NULL; l++)
		fprintf(stderr, "%s\n", *l);
	if (failed == NULL)
		return status;
	for (char **f = failed; *f != NULL; f++)
		fprintf(stderr,
			"llwrap: error: the check of files run later could "
			"not be completed: %s\n",
			*f);
	fprintf(stderr,
		"llwrap: error: review %s before git, direnv or an editor "
		"runs anything there (the command exited with status %d)\n",
		sb->policy->project, status);
	return 125;
}

void
sandbox_free(struct sandbox *sb)
{
	if (sb == NULL)
		return;
	ruleset_hold_free(sb->landlock, sb->held);
	plan_free(sb->fs);
	ruleset_plan_free(sb->landlock);
	bwrap_plan_free(sb->bwrap);
	bwrap_binary_clear(&sb->bwrap_bin);
	free(sb->backend_why);
	strv_free(sb->not_enforced);
	free(sb->fail_cause);
	free(sb->ns_needed);
	free(sb->ns_refused);
	gitguard_free(sb->git);
	gitguard_free(sb->later);
	watchlater_free(sb->watch);
	strv_free(sb->git_limits);
	strv_free(sb->unhidden);
	free(sb->supervisor_refused);
	free(sb);
}

/*
 * Drop every capability the process holds: effective, permitted,
 * inheritable and ambient, and the bounding set when we may
 * (CAP_SETPCAP).  For an ordinary user this changes nothing; for root it
 * means the command cannot override file permissions or reconfigure the
 * system, whatever Landlock allows.
 */
static int
drop_capabilities(char **cause)
{
	bool setpcap;
	int r;

	/* An ordinary user holds nothing: no permitted or inheritable
	 * capability means no effective or ambient one either, and
	 * no_new_privs keeps the bounding set from ever mattering.  One
	 * capget(2) says so.  In a user namespace of its own (L3) the
	 * process holds every capability in it, and drops them, with the
	 * bounding set (CAP_SETPCAP). */
	if ((r = caps_held(&setpcap)) < 0) {
		*cause = xasprintf("cannot read the process capabilities: %s",
				   strerror(-r));
		return -EIO;
	}
	if (r == 0)
		return 0;
	if ((r = caps_drop(setpcap)) < 0) {
		*cause =
			xasprintf("cannot drop capabilities: %s", strerror(-r));
		return r;
	}
	return 0;
}

/* The environment, with PWD naming the directory the command starts in,
 * as a shell would set it, unless the policy unsets PWD; where no name
 * resolves, the tools that would retry in vain are told not to
 * (netpolicy_closed_environ), unless the environment says otherwise. */
static char **
command_environ(const struct sandbox *sb, char *const *envp)
{
	const struct policy *p = sb->policy;
	_cleanup_strv_ char **with_pwd = NULL;
	char **env;

	/* Give policy_environ an environment where PWD is right, so keep and
	 * unset decide about it like about any other variable. */
	for (char *const *e = envp; *e != NULL; e++)
		if (strncmp(*e, "PWD=", 4) != 0)
			strv_push(&with_pwd, *e);
	strv_push_take(&with_pwd,
		       xasprintf("PWD=%s",
				 p->workdir != NULL ? p->workdir : p->project));
	env = policy_environ(p, with_pwd);
	if (!netpolicy_names_closed(p, sb->supervise))
		return env;
	for (const char *const *c = netpolicy_closed_environ; *c; c++) {
		size_t len = strcspn(*c, "=") + 1;
		bool set = false;

		for (char **e = env; *e != NULL && !set; e++)
			set = strncmp(*e, *c, len) == 0;
		if (!set)
			strv_push(&env, *c);
	}
	return env;
}

/* The proxy's variables (proxy_environ) replace any of the same name. */
static void
environ_override(char ***env, uint16_t port)
{
	_cleanup_strv_ char **add = proxy_environ(port);
	char **kept = NULL;

	for (char **e = *env; e != NULL && *e != NULL; e++) {
		size_t n = strcspn(*e, "=");
		bool replaced = false;

		for (char **a = add; *a != NULL && !replaced; a++)
			replaced = strncmp(*a, *e, n) == 0 && (*a)[n] == '=';
		if (!replaced)
			strv_push(&kept, *e);
	}
	for (char **a = add; *a != NULL; a++)
		strv_push(&kept, *a);
	strv_free(*env);
	*env = kept;
}

/*
 * [limits] (DESIGN.md §11): each set limit becomes the soft and the hard
 * resource limit, so the command cannot raise it back; a limit is never
 * raised above what the process has.  nproc false leaves RLIMIT_NPROC
 * alone (see prepare_bwrap()).
 */
static int
apply_limits(const struct policy *p, bool nproc, char **cause)
{
	static const struct {
		int resource;
		const char *key;
		size_t offset;
	} limits[] = {
		{ RLIMIT_AS, "memory", offsetof(struct policy, limit_memory) },
		{ RLIMIT_FSIZE, "file-size",
		  offsetof(struct policy, limit_file_size) },
		{ RLIMIT_NPROC, "processes",
		  offsetof(struct policy, limit_processes) },
		{ RLIMIT_NOFILE, "files",
		  offsetof(struct policy, limit_files) },
		{ RLIMIT_CPU, "cpu", offsetof(struct policy, limit_cpu) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		uint64_t want;
		struct rlimit rl;

		memcpy(&want, (const char *)p + limits[i].offset, sizeof(want));
		if (want == 0 || (!nproc && limits[i].resource == RLIMIT_NPROC))
			continue;
		if (getrlimit(limits[i].resource, &rl) < 0)
			continue;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
			want = rl.rlim_max;
		/* At the hard CPU limit the kernel sends SIGKILL, checked
		 * before the soft one's SIGXCPU: one second more, so that the
		 * command dies of SIGXCPU and the monitor can say why. */
		if (limits[i].resource == RLIMIT_CPU &&
		    (rl.rlim_max == RLIM_INFINITY || want < rl.rlim_max))
			rl.rlim_max = (rlim_t)want + 1;
		else
			rl.rlim_max = (rlim_t)want;
		rl.rlim_cur = (rlim_t)want;
		if (setrlimit(limits[i].resource, &rl) < 0) {
			int e = errno;

			*cause = xasprintf("cannot set [limits] %s = %llu: %s",
					   limits[i].key,
					   (unsigned long long)want,
					   strerror(e));
			return -e;
		}
	}
	return 0;
}

/*
 * The process that runs the command, after any fork: restrict itself in
 * DESIGN.md §2's order and exec.  Returns only on failure.
 */
static int
sandbox_enter(struct sandbox *sb, struct supervisor *sv,
	      const struct sock_fprog *prog, char **env, char *const *argv,
	      const int *keep, size_t n_keep, int *status, char **cause)
{
	const struct policy *p = sb->policy;
	_cleanup_close_ int rfd = -1;
	char **saved;
	int r, e;

	if (chdir(p->workdir != NULL ? p->workdir : p->project) < 0) {
		e = errno;
		*cause = xasprintf("cannot enter the %s directory %s: %s",
				   p->workdir != NULL ? "working" : "project",
				   p->workdir != NULL ? p->workdir : p->project,
				   strerror(e));
		return -e;
	}
	/* Acquire before dropping: the rule paths are opened with whatever
	 * access the caller has (root's CAP_DAC_READ_SEARCH included), in
	 * the final mount view. */
	if (sb->kernel.abi > 0 &&
	    (r = ruleset_create(sb->landlock, sb->held, &rfd, cause)) < 0)
		return r;
	ruleset_hold_free(sb->landlock, steal_pointer(&sb->held));
	if ((r = drop_capabilities(cause)) < 0)
		return r;
	if ((r = apply_limits(p, true, cause)) < 0)
		return r;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		e = errno;
		*cause = xasprintf("cannot set no_new_privs: %s", strerror(e));
		return -e;
	}
	if (rfd >= 0 &&
	    (r = ruleset_restrict(rfd, sb->landlock->abi, cause)) < 0)
		return r;
	/* The supervisor's notification filter goes before the main one,
	 * which refuses new listeners; the supervisor takes the ruleset
	 * too, for its watch judge (watchjudge.h). */
	if (sv != NULL && (r = supervise_child_attach(sv, rfd, cause)) < 0)
		return r;
	if (rfd >= 0)
		close(steal_fd(&rfd));
	if ((r = filter_load_program(prog, cause)) < 0)
		return r;
	if ((r = fd_close_inherited(keep, n_keep)) < 0) {
		*cause = xasprintf("cannot close inherited file descriptors: "
				   "%s (is every --keep-fd open?)",
				   strerror(-r));
		return r;
	}

	/* execvp() searches the command's own PATH and runs scripts without
	 * a #! line with /bin/sh, like a shell would. */
	saved = environ;
	environ = env;
	monitor_command_signals();
	execvp(argv[0], argv);
	e = errno;
	environ = saved;
	*status = (e == ENOENT || e == ENOTDIR) ? 127 : 126;
	if (e == EACCES)
		*cause = xasprintf("%s: cannot execute it: %s (does the "
				   "policy grant rx on its directory?)",
				   argv[0], strerror(e));
	else
		*cause = xasprintf("%s: %s", argv[0],
				   e == ENOENT ? "command not found"
					       : strerror(e));
	return -e;
}

/*
 * Fork; the parent waits for the child (forwarding signals, mediating
 * when sv is set) and reports through *status, the child goes on.
 * Returns 1 in the parent once the child has ended, 0 in the child, or
 * -errno.
 */
/*
 * Files run later that do not exist yet (protect-git, protect-later-run):
 * a monitor watches for them and moves each aside when the command
 * makes it (watchlater.h), and watches the index for new gitlinks.
 */
static int
later_watch(struct sandbox *sb, char **cause)
{
	if (sb->git == NULL && sb->later == NULL)
		return 0;
	return watchlater_start(sb->policy->project, sb->git, sb->later,
				&sb->watch, cause);
}

/* What else the monitor does than supervise (each may be NULL). */
struct monitor_work {
	struct resources_run *lr;     /* the timeout, the cgroup */
	struct resources_outcome *lo; /* ... what happened */
	struct watchlater *wl;	      /* files run later */
	/* The timeout and the cgroup's end are a guardian's above: this
	 * monitor only puts its child in the cgroup. */
	bool lr_above;
	bool pidns; /* the command is in a pid namespace of its own */
	/* The watch's final check waits until every process of the
	 * command's has ended: without a pid namespace this process adopts
	 * them (a subreaper) and ends them first. */
	bool end_orphans;
};

/* Become the subreaper of what the command leaves running, when the
 * watch's final check must outlive it (mw->end_orphans). */
static int
watch_orphans(const struct monitor_work *mw, char **cause)
{
	int r;

	if (!mw->end_orphans || mw->wl == NULL)
		return 0;
	if ((r = monitor_adopt_orphans()) < 0)
		*cause = xasprintf("cannot become the subreaper of the "
				   "command's processes: %s",
				   strerror(-r));
	return r;
}

/*
 * Fork a child whose life is tied to this process's (monitor.h): in the
 * child, 0 once tied, with the monitor's signals unblocked; in the
 * parent, the child's pid, with them blocked for its loop.  -errno and
 * *cause on failure.
 */
static pid_t
fork_tied(char **cause)
{
	int r, e, tie;
	pid_t pid;

	if ((tie = monitor_tie_prepare()) < 0) {
		*cause = xasprintf("cannot open a pidfd of llwrap itself: %s",
				   strerror(-tie));
		return tie;
	}
	monitor_block_signals();
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(tie);
		*cause = xasprintf("cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		if ((r = monitor_tie_child(tie, cause)) < 0)
			return r;
		monitor_unblock_signals();
		return 0;
	}
	monitor_tie_parent(tie, pid);
	return pid;
}

static int
fork_and_wait(struct supervisor *sv, const struct monitor_work *mw,
	      bool reap_all, int *status, char **cause)
{
	struct resources_run *lr = mw->lr;
	struct resources_outcome *lo = mw->lo;
	int wstatus, r;
	pid_t pid;

	/* The command (or pid 1 above it) never outlives this process: it
	 * is the supervisor, or the monitor that reports the command's
	 * status. */
	if ((r = watch_orphans(mw, cause)) < 0)
		return r;
	if ((pid = fork_tied(cause)) < 0)
		return pid;
	if (pid == 0) {
		if ((r = resources_child(lr, cause)) < 0)
			return r;
		watchlater_child(mw->wl);
		if (sv != NULL)
			supervise_child_forked(sv);
		return 0;
	}
	if (mw->lr_above)
		lr = NULL;
	if ((r = resources_parent(lr, pid)) < 0) {
		*cause = xasprintf("cannot arm the timeout: %s", strerror(-r));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	watchlater_parent(mw->wl);
	if (sv != NULL)
		supervise_set_command(sv, pid, mw->pidns);
	if (sv != NULL && (r = supervise_parent_attach(sv, cause)) < 0) {
		/* The child stops: told to, or it ended first and said why
		 * itself (-ECHILD).  Its status is the one to report then. */
		if (monitor_run(NULL, pid, reap_all, &wstatus) < 0)
			kill(pid, SIGKILL);
		resources_finish(lr, lo);
		if (mw->end_orphans)
			monitor_end_orphans();
		watchlater_finish(mw->wl);
		if (r != -ECHILD)
			return r;
		*status = monitor_exit_status(wstatus);
		return 1;
	}
	r = monitor_run(sv, pid, reap_all, &wstatus);
	if (r < 0)
		kill(pid, SIGKILL);
	resources_finish(lr, lo);
	if (mw->end_orphans)
		monitor_end_orphans();
	watchlater_finish(mw->wl);
	if (r < 0) {
		*cause = xasprintf("waiting for the command failed: %s",
				   strerror(-r));
		return r;
	}
	*status =
		lo->timed_out ? LLW_EXIT_TIMEOUT : monitor_exit_status(wstatus);
	return 1;
}

/*
 * The guardian (DESIGN.md §15): where the network supervisor runs, the
 * command holds descriptors the supervisor acts on and can stall it (a
 * full pipe), or kill it (a signal the kernel sends it).  What must
 * happen however that ends (the timeout, the watch on files run later and
 * the final check) runs in this process, which holds nothing of the
 * command's, above the one that supervises: forked here, that child goes
 * on (returns 0) to start the supervisor and the command, and exits with
 * the command's status.  This process waits for it, forwarding signals
 * and job control as any monitor, and returns 1 with the status to exit
 * with once it has ended, or -errno.  A supervisor that ended by a signal
 * the guardian did not send fails the run loudly (125).
 */
static int
guard_and_wait(const struct monitor_work *mw, int *status, char **cause)
{
	struct resources_run *lr = mw->lr;
	int wstatus, r;
	pid_t pid;

	/* The supervisor dies with the guardian: nothing is left to run
	 * unwatched. */
	if ((r = watch_orphans(mw, cause)) < 0)
		return r;
	if ((pid = fork_tied(cause)) < 0)
		return pid;
	if (pid == 0) {
		watchlater_child(mw->wl);
		return 0;
	}
	if ((r = resources_parent(lr, pid)) < 0) {
		*cause = xasprintf("cannot arm the timeout: %s", strerror(-r));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	watchlater_parent(mw->wl);
	r = monitor_run(NULL, pid, false, &wstatus);
	if (r < 0)
		kill(pid, SIGKILL);
	resources_finish(lr, mw->lo);
	/* The final check, once nothing of the command's is left, before
	 * anything is written where the command's output goes (a pipe that
	 * nobody reads must not keep it from running). */
	if (mw->end_orphans)
		monitor_end_orphans();
	watchlater_finish(mw->wl);
	if (r < 0) {
		*cause = xasprintf("waiting for the command failed: %s",
				   strerror(-r));
		return r;
	}
	if (mw->lo->timed_out) {
		*status = LLW_EXIT_TIMEOUT;
	} else if (WIFSIGNALED(wstatus)) {
		fprintf(stderr,
			"llwrap: error: llwrap's supervisor (pid %d) was "
			"ended by signal %d (%s) while the command ran; the "
			"command was ended with it\n",
			(int)pid, WTERMSIG(wstatus),
			strsignal(WTERMSIG(wstatus)));
		*status = 125;
	} else {
		*status = monitor_exit_status(wstatus);
	}
	return 1;
}

/*
 * What pid 1 hands the command it spawns, and what comes back when the
 * command fails before its program runs.
 */
struct spawn {
	struct sandbox *sb;
	struct supervisor *sv;
	const struct sock_fprog *prog;
	char **env;
	char *const *argv;
	const int *keep;
	size_t n_keep;
	int r, status;
	char *cause;
};

/* Used by one child at a time, while its parent is suspended. */
static char spawn_stack[256 * 1024] __attribute__((aligned(16)));

static int
spawn_child(void *arg)
{
	struct spawn *s = arg;

	monitor_unblock_signals();
	s->r = sandbox_enter(s->sb, s->sv, s->prog, s->env, s->argv, s->keep,
			     s->n_keep, &s->status, &s->cause);
	_exit(s->status);
}

/*
 * pid 1 of a pid namespace starts the command with clone(CLONE_VM |
 * CLONE_VFORK), as posix_spawn(3) does: the command shares this process's
 * memory until it execs, and this process stays suspended until then, so
 * no page table is copied and no page is copied on write (a fork here was
 * a tenth of the start-up time with L3).  The child only restricts itself
 * and execs; when that fails it leaves the result in struct spawn and
 * exits, and this process reports it.  Returns like fork_and_wait() in
 * the parent; the child never returns.
 */
static int
spawn_and_wait(struct spawn *s, int *status, char **cause)
{
	int wstatus, r, e;
	pid_t pid;

	monitor_block_signals();
	s->r = 0;
	s->status = 125;
	s->cause = NULL;
	pid = clone(spawn_child, spawn_stack + sizeof(spawn_stack),
		    CLONE_VM | CLONE_VFORK | SIGCHLD, s);
	if (pid < 0) {
		e = errno;
		*cause = xasprintf("cannot start the command: %s", strerror(e));
		return -e;
	}
	if (s->r < 0) {
		/* It has exited already (CLONE_VFORK). */
		waitpid(pid, NULL, 0);
		*status = s->status;
		*cause = s->cause;
		return s->r;
	}
	if ((r = monitor_run(NULL, pid, true, &wstatus)) < 0) {
		*cause = xasprintf("waiting for the command failed: %s",
				   strerror(-r));
		kill(pid, SIGKILL);
		return r;
	}
	*status = monitor_exit_status(wstatus);
	return 1;
}

int
sandbox_exec(struct sandbox *sb, char *const *argv, char *const *envp,
	     const int *keep, size_t n_keep, int *status, char **cause)
{
	struct sock_fprog prog;
	struct supervisor *sv = NULL;
	struct proxyserve *proxy = NULL;
	struct dnsstub *stub = NULL;
	struct resources_run *lr = NULL;
	struct monitor_work mw = { .lo = &sb->limits };
	_cleanup_strv_ char **env = NULL;
	bool forked = false, guarded = false, init = false;
	int r;

	*status = 125;
	if (sb->must_fail) {
		*cause = xstrdup(sb->fail_cause);
		return -EPERM;
	}
	monitor_host_signals();

	/* Acquire everything first.  The filter was compiled at build
	 * time (filter.h); a run only picks its program. */
	if ((r = filter_program(&sb->filter, &prog)) < 0) {
		*cause = xstrdup("no precompiled seccomp program fits this "
				 "policy");
		return r;
	}
	env = command_environ(sb, envp);
	/* Before any namespace: the cgroup is made with this user's own
	 * credentials. */
	if ((r = resources_start(sb->policy, &lr, cause)) < 0)
		goto out;
	mw.lr = lr;
	if ((r = later_watch(sb, cause)) < 0)
		goto out;
	mw.wl = sb->watch;
	mw.pidns = sb->backend == SANDBOX_BACKEND_BWRAP ||
		   (sb->use_ns && sb->ns.pid);
	mw.end_orphans = mw.wl != NULL && !mw.pidns;
	/* The guardian above the supervisor (guard_and_wait). */
	if (sb->supervise && (mw.wl != NULL || lr != NULL)) {
		r = guard_and_wait(&mw, status, cause);
		if (r != 0) {
			sb->reporter = r > 0;
			goto out;
		}
		guarded = true;
		mw.wl = NULL;
		mw.lr_above = true;
		mw.end_orphans = false;
	}
	if (sb->supervise &&
	    (r = supervise_new(sb->policy, sb->fs, envp, &sv, cause)) < 0)
		goto out;
	/* allow-host (DESIGN.md §6.1): llwrap's resolver where user
	 * namespaces let it have a network namespace of its own (design
	 * (a): nothing in the data path, every client works), unless the
	 * policy asks for the proxy.  Started before any namespace. */
	if (sv != NULL && sandbox_hosts_stub(sb)) {
		size_t n_dns;
		const struct netpolicy_addr *dns =
			supervise_resolvers(sv, &n_dns);

		/* A sandbox that makes user namespaces itself cannot run
		 * where the resolver cannot: it starts while the sandbox is
		 * set up, and the command waits for it (the supervisor's
		 * go-ahead).  Else its answer decides between it and the
		 * proxy, now. */
		bool wait = !sb->use_ns || sb->backend == SANDBOX_BACKEND_BWRAP;

		r = dnsstub_start(sb->policy, dns, n_dns, wait, &stub, cause);
		if (r == 0) {
			supervise_set_stub(sv, stub);
		} else if (r == -EPERM) {
			/* No user namespaces here: the proxy (b). */
			free(*cause);
			*cause = NULL;
		} else {
			goto out;
		}
	}
	/* Else the proxy for names runs outside, started
	 * before any namespace: the supervisor lets the command reach it,
	 * the environment points the command's clients at it. */
	if (sv != NULL && netpolicy_proxy_enabled(sb->policy) && stub == NULL) {
		struct netpolicy_addr pa;

		if ((r = proxyserve_start(sb->policy, envp, &proxy, cause)) < 0)
			goto out;
		proxyserve_addr(proxy, &pa);
		supervise_set_proxy(sv, &pa, proxyserve_take_note_fd(proxy));
		environ_override(&env, pa.port);
	}
	if (sb->learn && sv != NULL &&
	    (r = supervise_learn(sv, sb->learn_fd, cause)) < 0)
		goto out;

	/* bwrap builds the sandbox and stays as its monitor: this process
	 * becomes bwrap. */
	if (sb->backend == SANDBOX_BACKEND_BWRAP) {
		/* With the supervisor, this process stays outside as its
		 * parent, and the child execs bwrap under the notification
		 * filter (which needs no_new_privs: a setuid bwrap runs
		 * unprivileged then, with user namespaces). */
		if (sv != NULL || lr != NULL || mw.wl != NULL) {
			/* bwrap ties its sandbox to itself
			 * (--die-with-parent) only once the sandbox is
			 * built: a signal that ends bwrap before then (the
			 * timeout's SIGTERM, on a slow machine) would leave
			 * the sandbox running under init.  As the subreaper,
			 * this process gets it, and ends it. */
			if ((r = monitor_adopt_orphans()) < 0) {
				*cause = xasprintf("cannot become the "
						   "subreaper of bwrap's "
						   "sandbox: %s",
						   strerror(-r));
				goto out;
			}
			r = fork_and_wait(sv, &mw, false, status, cause);
			if (r > 0)
				monitor_end_orphans();
			if (r != 0)
				goto out;
		}
		if (sv != NULL && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
			r = -errno;
			*cause = xasprintf("cannot set no_new_privs: %s",
					   strerror(-r));
			goto out;
		}
		if (sv != NULL &&
		    (r = supervise_child_attach(sv, -1, cause)) < 0)
			goto out;
		/* The limits pass through bwrap's exec to the command. */
		if ((r = apply_limits(sb->policy, false, cause)) < 0)
			goto out;
		r = bwrap_exec(&sb->bwrap_bin, sb->bwrap, sb->fs, sb->policy,
			       &prog, argv, env, keep, n_keep, status, cause);
		goto out;
	}

	if (sb->use_ns) {
		if (geteuid() == 0 && sb->kernel.abi > 0)
			sb->held = ruleset_hold(sb->landlock);
		if ((r = ns_unshare(&sb->ns, cause)) < 0) {
			/* Refused: the run fails closed as sandbox_prepare()
			 * would have, had it probed (ns_plan()). */
			char *why = *cause;

			*cause = sb->ns_unshare_probes && r == -EPERM
					 ? l3_refusal(sb->ns_needed, why)
					 : xasprintf("cannot create the "
						     "namespaces: %s",
						     why);
			free(why);
			goto out;
		}
		/* A pid namespace needs a process above it: this one stays
		 * outside as the monitor, its child is pid 1 (the init that
		 * reaps orphans), and the command is pid 2.  The monitor
		 * is the network supervisor too: one process, not two. */
		if (sb->ns.pid) {
			int stop[2];

			if (pipe2(stop, O_CLOEXEC) < 0) {
				r = -errno;
				*cause = xasprintf("cannot create a pipe: %s",
						   strerror(-r));
				goto out;
			}
			forked = true;
			monitor_stop_fds(stop[0], -1);
			r = fork_and_wait(sv, &mw, false, status, cause);
			if (r != 0) {
				close(stop[0]);
				close(stop[1]);
				goto out;
			}
			close(stop[0]);
			monitor_stop_fds(-1, stop[1]);
			init = true;
		}
		if ((r = ns_setup(&sb->ns, cause)) < 0)
			goto out;
		if (sb->ns.pid) {
			struct spawn sp = {
				.sb = sb,
				.sv = sv,
				.prog = &prog,
				.env = env,
				.argv = argv,
				.keep = keep,
				.n_keep = n_keep,
			};

			r = spawn_and_wait(&sp, status, cause);
			goto out;
		}
	}
	/* The supervisor, or the monitor of the limits, stays outside as
	 * the command's parent. */
	if ((sv != NULL || lr != NULL || mw.wl != NULL) && !forked &&
	    (r = fork_and_wait(sv, &mw, false, status, cause)) != 0)
		goto out;
	r = sandbox_enter(sb, sv, &prog, env, argv, keep, n_keep, status,
			  cause);
out:
	/* A monitor or an init whose command has ended (r > 0) exits next:
	 * the exit frees the supervisor, and closes its listener. */
	if (r <= 0)
		supervise_free(sv);
	resources_free(lr);
	proxyserve_stop(proxy);
	dnsstub_stop(stub);
	/* The supervisor below a guardian: its status is the guardian's to
	 * report, and nothing else is its to say. */
	if (guarded && r > 0 && !init) {
		fflush(NULL);
		_exit(*status);
	}
	/* The outermost monitor reports; pid 1 of the sandbox's pid
	 * namespace does not. */
	if (r > 0 && !init)
		sb->reporter = true;
	/* 1: this process was a monitor or an init and its child has
	 * ended; *status is what to exit with. */
	return r > 0 ? 0 : r;
}
