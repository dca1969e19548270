/*
 * The planner (planner.h): every decision a run makes, taken once, on the
 * policy and the facts.  Everything that can be decided without touching
 * the process is decided here, so that --explain reports exactly what
 * sandbox_exec() will do and a policy that cannot be enforced is refused
 * before anything is applied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "fdutil.h"
#include "gitguard.h"
#include "maskwatch.h"
#include "netpolicy.h"
#include "path.h"
#include "planner.h"
#include "planner-int.h"
#include "runtmp.h"
#include "strv.h"
#include "watchlater.h"
#include "xalloc.h"

/*
 * [limits] tmpfs-size in bytes: as given, or a percentage of this
 * machine's memory (LLW_TMPFS_PERCENT by default).  0 when memory cannot
 * be read: then the kernel's default (half of it) applies.
 */
static uint64_t
tmpfs_size(const struct sandbox *sb, const struct policy *p)
{
	unsigned percent =
		p->tmpfs_percent ? p->tmpfs_percent : LLW_TMPFS_PERCENT;

	if (p->tmpfs_bytes > 0)
		return p->tmpfs_bytes;
	return sb->facts.ram / 100 * percent;
}

/*
 * The access the compiled plan gives path (resolved: the kernel's
 * view), as a level: what plan_decide() allows of reading, writing and
 * executing there.
 */
static enum llw_access
plan_access(const struct plan *fs, const char *path)
{
	bool r = plan_decide(fs, path, LLW_FS_READ_FILE).allowed;
	bool w = plan_decide(fs, path, LLW_FS_WRITE_FILE).allowed;
	bool x = plan_decide(fs, path, LLW_FS_EXECUTE).allowed;

	if (!r)
		return LLW_ACCESS_DENY;
	if (w)
		return x ? LLW_ACCESS_RWX : LLW_ACCESS_RW;
	return x ? LLW_ACCESS_RX : LLW_ACCESS_RO;
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
	    !sb->pts_granted)
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

/* [limits], as the kernel glue applies them (resources.h). */
static void
limits_plan(struct limits_plan *l, const struct policy *p)
{
	l->memory = p->limit_memory;
	l->file_size = p->limit_file_size;
	l->processes = p->limit_processes;
	l->files = p->limit_files;
	l->cpu = p->limit_cpu;
	l->timeout = p->limit_timeout;
	l->memory_max = p->limit_memory_max;
	l->pids_max = p->limit_pids_max;
	l->best_effort = p->best_effort;
}

/* [limits] memory-max and pids-max need a delegated cgroup (resources.h):
 * without one the run fails closed, or best effort runs without them. */
static void
cgroup_account(struct sandbox *sb)
{
	const struct limits_plan *l = &sb->limits_plan;
	const char *why;

	if (probe_cgroup(&sb->facts, l, &why))
		return;
	if (l->best_effort)
		strv_push_take(&sb->not_enforced,
			       xasprintf("[limits] memory-max and pids-max "
					 "(needs a cgroup of the command's "
					 "own: %s)",
					 why));
	else
		sandbox_refuse(sb, resources_cgroup_refusal(l, why));
}

void
planner_ruleset_inputs(const struct policy *p, struct ruleset_inputs *in)
{
	if (p->net == LLW_NET_FILTERED)
		in->net = RULESET_NET_FILTERED;
	else if (p->net == LLW_NET_NONE)
		in->net = RULESET_NET_NONE;
	else
		in->net = RULESET_NET_HOST;
	in->connect_tcp = p->connect_tcp;
	in->bind_tcp = p->bind_tcp;
	in->connect_udp = p->connect_udp;
	in->bind_udp = p->bind_udp;
	in->unix_sockets = p->unix_sockets;
	in->unix_paths = p->unix_paths;
}

void
planner_bwrap_symlinks(const struct policy *p, struct bwrap_symlink **out,
		       size_t *n)
{
	_cleanup_strv_ char **granted = NULL;

	for (size_t i = 0; i < p->n_paths; i++)
		if (p->paths[i].access != LLW_ACCESS_DENY)
			strv_push(&granted, p->paths[i].path);
	bwrap_find_symlinks(granted, out, n);
}

struct bwrap_plan *
planner_bwrap_plan(const struct policy *p, const struct plan *fs,
		   const struct bwrap_symlink *links, size_t n_links)
{
	struct ruleset_inputs in;
	struct bwrap_plan *bp;

	planner_ruleset_inputs(p, &in);
	bp = bwrap_plan_new(&in, fs, links, n_links);
	bp->private_tmp = p->private_tmp;
	bp->project = p->project;
	bp->project_access = plan_access(fs, p->project);
	bp->workdir = p->workdir != NULL ? p->workdir : p->project;
	return bp;
}

/* The environment, with PWD naming the directory the command starts in,
 * as a shell would set it, unless the policy unsets PWD; where no name
 * resolves, the tools that would retry in vain are told not to
 * (netpolicy_closed_environ), unless the environment says otherwise. */
char **
planner_environ(const struct sandbox *sb, char *const *envp)
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
	/* An llwrap inside knows whose seccomp filter refuses it
	 * (contain.h). */
	if (strv_env_get(env, "LLWRAP") == NULL)
		strv_push(&env, "LLWRAP=1");
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

enum planner_hosts
planner_hosts(const struct sandbox *sb)
{
	const struct policy *p = sb->policy;

	if (!sb->supervise || !netpolicy_proxy_enabled(p))
		return PLANNER_HOSTS_NONE;
	if (!p->proxy && sb->facts.userns != PROBE_NO)
		return PLANNER_HOSTS_STUB;
	return PLANNER_HOSTS_PROXY;
}

/* Whether L3 can run here, probed once (a short-lived child). */
static bool
sandbox_userns(struct sandbox *sb)
{
	return probe_userns(&sb->facts, NULL);
}

/* Whether the supervisor (S) can run here, probed once; or left to
 * the run's own hand-over (supervisor_deferred). */
static bool
sandbox_supervisor(struct sandbox *sb)
{
	return sb->sv_handover_probes || probe_supervisor(&sb->facts, NULL);
}

/*
 * A sandbox about to run whose policy needs the supervisor, and that
 * fails closed without it, asks the kernel with the run's own hand-over
 * of the listener (supervise_parent_attach: the same steps, on the
 * command's process before it runs), which refuses alike and is named
 * in the probe's words (planner_supervisor_refusal): the probe's child
 * costs a process, a filter and a wait for its turn on a CPU.  Not where
 * another refusal is decided already (it would have come second).
 */
static bool
supervisor_deferred(struct sandbox *sb, const struct policy *p)
{
	if (sb->run && !p->best_effort && !sb->must_fail &&
	    probe_supervisor_precheck(&sb->facts))
		sb->sv_handover_probes = true;
	return sb->sv_handover_probes;
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
	/* A pid namespace needs a new /proc (the old one would show other
	 * pids than the command's own).  Where the kernel refuses one (a
	 * container's masked /proc paths: mount_too_revealing, subset=pid
	 * included on 6.18) and llwrap runs in a pid namespace of its own
	 * already, that one hides the host's processes (C, DESIGN.md §14),
	 * the container's /proc stays, and the watch's final check waits
	 * for the command's orphans as their subreaper.  Asked only
	 * there: one child. */
	if (sb->ns.pid && sb->facts.pidns_nested &&
	    !probe_newproc(&sb->facts, NULL))
		sb->ns.pid = false;
	sb->ns.net = p->net == LLW_NET_NONE;
	sb->ns.private_tmp = p->private_tmp;
	sb->ns.tmpfs_size = tmpfs_size(sb, p);
	/* DESIGN.md §11: only the sandbox's own terminals, where the
	 * policy grants terminals at all. */
	sb->ns.devpts = sb->pts_granted;
	sb->ns.fs = sb->fs;
	/* What the mount view needs of the rules, decided here on the
	 * compiled plan (ns.c and viewplan.c read no policy). */
	sb->ns.proc_rw = policy_access_writable(plan_access(sb->fs, "/proc"));
	for (size_t i = 0; policy_private_tmps[i] != NULL; i++)
		if (policy_access_writable(
			    plan_access(sb->fs, policy_private_tmps[i])))
			sb->ns.tmp_rw |= 1u << i;
	sb->ns.project = p->project;
	sb->ns.project_access = plan_access(sb->fs, p->project);
	/* The view shows nothing the sandbox may not read but absent or
	 * a placeholder: the kernel decides each watch (plan_watches). */
	sb->unsealed = viewplan_unsealable(sb->fs);
	sb->ns.seal = sb->unsealed == NULL;
	/* A unix socket the network allows stays itself in the sealed
	 * view (bubblewrap binds it: bwrap.c), or a connect would reach a
	 * placeholder the supervisor refuses. */
	for (size_t i = 0; i < p->unix_paths.n; i++)
		strv_push(&sb->ns.keep, p->unix_paths.v[i].value);
	sb->ns.own_data = p->own_data != NULL ? xstrdup(p->own_data) : NULL;
}

/* The run refused for want of L3: needed says what for, why what refuses
 * it. */
char *
planner_l3_refusal(const char *needed, const char *why)
{
	return xasprintf("the policy needs the namespace layer (L3) for %s, "
			 "but %s; run with --best-effort (or best-effort = "
			 "yes in a profile) to run without it",
			 needed, why);
}

/* Without L3 nothing watches the denied paths missing at the start:
 * one NOT ENFORCED line names them (the first three). */
static void
absent_unwatched(struct sandbox *sb)
{
	_cleanup_strv_ char **some = NULL;
	_cleanup_free_ char *list = NULL;
	size_t n = strv_length(sb->fs->absent);

	for (size_t i = 0; i < n && i < 3; i++)
		strv_push(&some, sb->fs->absent[i]);
	if (n > 3)
		strv_push(&some, "...");
	list = strv_join(some, ", ");
	strv_push_take(&sb->not_enforced,
		       xasprintf("denial of %zu path%s that do%s not exist at "
				 "the start (%s): a file made there during "
				 "the run (the host's `cp .env.example .env`) "
				 "is readable (the watch that stops the run "
				 "needs unprivileged user namespaces)",
				 n, n == 1 ? "" : "s", n == 1 ? "es" : "",
				 list));
}

/*
 * Whether a denied path missing at the start lies in a directory the
 * command may write (the project's .env): there the command and the
 * user's tools make files, and the watch on it (maskwatch.h) needs L3.
 * Elsewhere (root's /etc/krb5.keytab, a home secret) the watch comes
 * along where L3 is there for other reasons, and does not turn it on.
 */
static bool
absent_writable(const struct sandbox *sb)
{
	for (char **a = sb->fs->absent; a != NULL && *a != NULL; a++) {
		_cleanup_free_ char *dir = xstrdup(*a);
		char *slash = strrchr(dir, '/');

		if (slash == NULL)
			continue;
		*(slash == dir ? slash + 1 : slash) = '\0';
		if (policy_access_writable(plan_access(sb->fs, dir)))
			return true;
	}
	return false;
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
	_cleanup_free_ char *list = NULL, *others = NULL;
	/* hide-processes fails closed without L3 unless llwrap runs in a
	 * pid namespace of its own (C, DESIGN.md §14). */
	bool hide_l3 = p->hide_processes && !sb->facts.pidns_nested;
	/* private-tmp has the run's own directory without L3 (run_tmp). */
	bool tmp_l3 = p->private_tmp && !sb->run_tmp;
	const char *why;

	if (sb->fs->n_masks > 0) {
		/* Name the paths, as the fail-closed message of pathtree
		 * does without masks. */
		_cleanup_strv_ char **paths = NULL;
		_cleanup_free_ char *joined = NULL;

		bool outside = false;

		for (size_t i = 0; i < sb->fs->n_masks; i++)
			if (p->project != NULL &&
			    !path_under(sb->fs->masks[i].path, p->project))
				outside = true;
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
		/* The monitor holds git's and the later-run files already:
		 * what is left it cannot hold (a file denied for reading
		 * is read before it could act). */
		if (sb->monitor_holds != NULL)
			strv_push_take(
				&needs,
				xasprintf(
					"narrower rules inside writable "
					"directories that the monitor cannot "
					"hold (mount masks: %s; %s)",
					joined,
					outside ? "the monitor holds only "
						  "files beneath the project, "
						  "and a linked worktree's "
						  "repository lies outside "
						  "it: run from the main "
						  "checkout"
						: "move such a file out of "
						  "the project, or drop its "
						  "rule"));
		else
			strv_push_take(&needs,
				       xasprintf("narrower rules inside "
						 "writable directories (mount "
						 "masks: %s)",
						 joined));
	}
	if (absent_writable(sb))
		strv_push(&needs, "the watch on denied paths missing at the "
				  "start");
	if (p->net == LLW_NET_NONE)
		strv_push(&needs, "net = none (a network namespace with only "
				  "lo)");
	if (tmp_l3)
		strv_push(&needs, "private-tmp");
	if (needs != NULL)
		others = strv_join(needs, ", ");
	if (p->hide_processes)
		strv_push(&needs, "hide-processes (a pid namespace)");
	if (needs == NULL)
		return false;
	list = strv_join(needs, ", ");

	/* A sandbox about to run that would fail closed without L3 asks the
	 * kernel with the run's own unshare (sandbox_exec), which refuses
	 * alike: the probe's child costs a namespace and a process, and on
	 * a busy machine the wait for its turn on a CPU.  net = none alone
	 * does not fail closed (below), so it is probed; so is a pid
	 * namespace of the container's, which may stand in (C) and whose
	 * new /proc is probed anyway (ns_enable). */
	if (sb->run && sb->facts.userns == PROBE_UNKNOWN && !p->best_effort &&
	    !(p->hide_processes && sb->facts.pidns_nested) &&
	    (sb->fs->n_masks > 0 || tmp_l3 || hide_l3)) {
		switch (probe_userns_precheck(&sb->facts)) {
		case NS_REFUSED:
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
	/* The container's pid namespace hides the host's processes. */
	if (p->hide_processes && !hide_l3) {
		if (others == NULL)
			return false;
		free(list);
		list = steal_pointer(&others);
	}
	sb->ns_needed = xstrdup(list);
	why = sb->facts.userns_why;
	/* net = none alone does not fail closed: without a namespace,
	 * seccomp denies inet sockets, which is stricter (DESIGN.md §6). */
	if (!p->best_effort && (sb->fs->n_masks > 0 || tmp_l3 || hide_l3)) {
		sandbox_refuse(sb, planner_l3_refusal(list, why));
		return false;
	}
	if (p->net == LLW_NET_NONE)
		strv_push(&sb->not_enforced,
			  "net = none with a working loopback (needs "
			  "unprivileged user namespaces; seccomp denies inet "
			  "sockets instead, loopback included) [not a hole]");
	if (tmp_l3)
		strv_push(&sb->not_enforced,
			  "private-tmp: the host's /tmp, /var/tmp and /dev/shm "
			  "are shared (needs unprivileged user namespaces)");
	if (hide_l3)
		strv_push(&sb->not_enforced,
			  "hide-processes: host processes are visible in "
			  "/proc (needs unprivileged user namespaces)");
	if (sb->fs->absent != NULL)
		absent_unwatched(sb);
	if (sb->fs->n_masks > 0 || tmp_l3 || hide_l3)
		strv_push(&sb->not_enforced,
			  "read-only view: chmod, chown, utimes and xattrs of "
			  "files outside writable roots (needs unprivileged "
			  "user namespaces)");
	return sb->fs->n_masks > 0;
}

/*
 * Without L3, the write masks of protect-git and protect-later-run beneath
 * the project are the monitor's to hold (M, DESIGN.md §14): their rules
 * (n of them in rules, read-only ones and pins) are taken out, so the
 * project is granted whole, and the read-only paths are listed in
 * sb->monitor_holds; the pins are dropped (the monitor checks by path,
 * and REFER is withheld: planner_withhold_refer).  Only where the plan
 * has masks, the backend is Landlock and L3 is refused; the rules of
 * llwrap's own configuration files outside the project are left.
 * Returns whether it took any rule out.
 */
static bool
held_rule(const struct sandbox *sb, const struct policy *p,
	  const struct llw_path_rule *r)
{
	const struct gitguard *g[] = { sb->git, sb->later };

	if (!path_under(r->path, p->project))
		return false;
	if (r->rank == LLW_RANK_CONFIG || r->rank == LLW_RANK_PIN)
		return true;
	/* The profile's own rule on one of them (opencode.ini names
	 * .git/config and .git/hooks). */
	if (r->access != LLW_ACCESS_RO && r->access != LLW_ACCESS_RX)
		return false;
	for (size_t k = 0; k < ARRAY_SIZE(g); k++)
		for (size_t i = 0; g[k] != NULL && i < g[k]->n; i++)
			if (g[k]->v[i].kind != GITGUARD_RW &&
			    g[k]->v[i].kind != GITGUARD_PIN &&
			    strcmp(g[k]->v[i].path, r->path) == 0)
				return true;
	return false;
}

static bool
monitor_hold(struct sandbox *sb, const struct policy *p,
	     struct llw_path_rule *rules, size_t *n)
{
	size_t kept = 0;
	bool any = false;

	if (sb->fs->n_masks == 0 || p->project == NULL ||
	    (sb->git == NULL && sb->later == NULL))
		return false;
	for (size_t i = 0; i < *n && !any; i++)
		any = held_rule(sb, p, &rules[i]);
	if (!any || sandbox_userns(sb))
		return false;
	for (size_t i = 0; i < *n; i++) {
		bool held = held_rule(sb, p, &rules[i]);

		if (held && rules[i].rank != LLW_RANK_PIN &&
		    !strv_contains(sb->monitor_holds, rules[i].path))
			strv_push(&sb->monitor_holds, rules[i].path);
		if (!held)
			rules[kept++] = rules[i];
	}
	*n = kept;
	return true;
}

/*
 * private-tmp without L3 (M, DESIGN.md §14): the rules on /tmp and
 * /var/tmp themselves are taken out (n of them in rules), and on /dev/shm
 * unless llwrap's IPC namespace is the container's own; the run's own
 * directory gets /tmp's access instead (sandbox_exec makes it).  Rules
 * beneath them (a project in /tmp) stay.  Only where the policy asks for
 * private-tmp, the backend is Landlock and L3 is refused.  Returns
 * whether it took any rule out.
 */
static bool
run_tmp_plan(struct sandbox *sb, const struct policy *p,
	     struct llw_path_rule *rules, size_t *n)
{
	size_t kept = 0;
	bool any = false;

	if (!p->private_tmp || sandbox_userns(sb))
		return false;
	sb->run_tmp = true;
	sb->run_tmp_shm = sb->facts.ipcns_nested;
	sb->run_tmp_access = plan_access(sb->fs, "/tmp");
	for (size_t i = 0; i < *n; i++) {
		const char *t = policy_private_tmp_of(rules[i].path);
		bool out = t != NULL && strcmp(t, rules[i].path) == 0 &&
			   !(sb->run_tmp_shm &&
			     strcmp(rules[i].path, "/dev/shm") == 0);

		if (out)
			any = true;
		else
			rules[kept++] = rules[i];
	}
	*n = kept;
	return any;
}

void
planner_withhold_refer(struct plan *fs, const char *project)
{
	for (size_t i = 0; i < fs->n_rules; i++)
		if (path_under(fs->rules[i].path, project) ||
		    path_under(project, fs->rules[i].path))
			fs->rules[i].access &= ~(uint64_t)LLW_FS_REFER;
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
		.abi = sb->facts.kernel.abi,
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
	struct ruleset_inputs in;
	struct ruleset_plan *rp;

	planner_ruleset_inputs(p, &in);
	rp = ruleset_plan_losses(&in, sb->fs, &sb->facts.kernel);

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

/* A NOT ENFORCED line for each of a plan's losses. */
static void
not_enforced_losses(struct sandbox *sb, const struct ruleset_loss *losses,
		    size_t n)
{
	for (size_t i = 0; i < n; i++)
		strv_push_take(
			&sb->not_enforced,
			xasprintf("%s (needs %s)%s", losses[i].what,
				  losses[i].needs,
				  losses[i].fatal ? "" : " [not a hole]"));
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
					 sb->facts.supervisor_why));
	else
		sandbox_refuse(sb, planner_supervisor_refusal(
					   sb, sb->facts.supervisor_why));
}

char *
planner_supervisor_refusal(const struct sandbox *sb, const char *why)
{
	return xasprintf("the policy's '%s' rules need the network "
			 "supervisor, but %s; run with --best-effort to run "
			 "without them",
			 supervisor_rule_names(sb->policy), why);
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
		.abi = sb->facts.kernel.abi,
		.userns = sb->use_ns,
		.supervisor = sb->supervise,
		.bwrap = sb->backend == SANDBOX_BACKEND_BWRAP,
		.portless = sb->l2_deny_inet && !sb->supervise,
		.newproc_refused = sb->facts.newproc == PROBE_NO,
		.pidns_nested = sb->facts.pidns_nested,
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
	sb->asked[LAYERS_PROCESSES] = p->hide_processes;
	sb->asked[LAYERS_PRIVATE_TMP] = p->private_tmp;
	sb->asked[LAYERS_HELD] = sb->monitor_holds != NULL ||
				 ((sb->use_ns || sb->bwrap != NULL) &&
				  ((sb->git != NULL && sb->git->n > 0) ||
				   (sb->later != NULL && sb->later->n > 0)));
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
	if (sb->facts.userns == PROBE_NO)
		strv_push_take(&why, xasprintf("L3: %s", sb->facts.userns_why));
	if (sb->facts.supervisor == PROBE_NO)
		strv_push_take(&why, xasprintf("supervisor: %s",
					       sb->facts.supervisor_why));
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
	_cleanup_free_ char *k = ruleset_describe(&sb->facts.kernel);
	const char *why;

	sb->backend = SANDBOX_BACKEND_LANDLOCK;
	if (asked == SANDBOX_BACKEND_LANDLOCK) {
		sb->backend_why = xstrdup("--backend=landlock");
		return;
	}
	if (asked == SANDBOX_BACKEND_AUTO &&
	    !bwrap_fallback_wanted(&sb->facts.kernel)) {
		sb->backend_why = xasprintf("--backend=auto: %s", k);
		return;
	}
	if (asked == SANDBOX_BACKEND_AUTO) {
		if (!probe_bwrap(&sb->facts, &why)) {
			sb->backend_why = xasprintf("--backend=auto: %s, and "
						    "no bubblewrap fallback: "
						    "%s",
						    k, why);
			return;
		}
		sb->backend = SANDBOX_BACKEND_BWRAP;
		sb->backend_why = xasprintf("--backend=auto: %s, so %s runs "
					    "the command",
					    k, sb->facts.bwrap_bin.path);
		return;
	}
	sb->backend = SANDBOX_BACKEND_BWRAP;
	sb->backend_why = xstrdup("--backend=bwrap");
	if (!probe_bwrap(&sb->facts, &why))
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

	planner_bwrap_symlinks(p, &links, &n_links);
	sb->bwrap = planner_bwrap_plan(p, sb->fs, links, n_links);
	/* bwrap binds each rule by its path, in a user namespace of its
	 * own where root keeps no override over other users' files. */
	if (sb->facts.root &&
	    (cause = bwrap_root_unreachable(sb->bwrap, sb->fs)) != NULL)
		sandbox_refuse(sb, cause);
	sb->bwrap->tmpfs_size = tmpfs_size(sb, p);
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

	not_enforced_losses(sb, sb->bwrap->losses, sb->bwrap->n_losses);
	if (bwrap_plan_must_fail(sb->bwrap, p->best_effort)) {
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
 * Who checks a watch.  Where the view shows nothing the sandbox may not
 * read (bubblewrap's: the rules' binds, their denials masked, --dev's
 * standard nodes no rule grants covered) a watch on
 * a path reveals no more than a read of it could, and the kernel's own
 * check (read permission on what the path names in the view) is the
 * policy's: the supervisor is not asked (a notification a watch, most of
 * a recursive watcher's start-up; bench/watch.sh).  L3's view is sealed
 * so too (viewplan.h: what may not be read is absent or a placeholder of
 * mode 000 the kernel refuses to read, and the command holds no
 * capability to override it) unless /proc cannot be read whole or the
 * seal would be too many mounts (viewplan_unsealable).  Without L3 the view is
 * the host's tree: Landlock alone keeps the sandbox from reading what the rules
 * do not grant, and Landlock does not check inotify_add_watch (it has no
 * path_notify hook), so the supervisor's judge does where it runs.
 */
static void
plan_watches(struct sandbox *sb)
{
	if (sb->backend == SANDBOX_BACKEND_BWRAP || (sb->use_ns && sb->ns.seal))
		sb->watches = SANDBOX_WATCHES_VIEW;
	else if (sb->supervise)
		sb->watches = SANDBOX_WATCHES_JUDGED;
	else
		sb->watches = SANDBOX_WATCHES_UNCHECKED;
}

/*
 * The processes the run makes (struct planner_shape), from what the plan
 * holds: sandbox_exec() switches on them and --explain prints them.
 */
static void
plan_shape(struct sandbox *sb)
{
	bool watch = sb->git != NULL || sb->later != NULL;
	bool limits = sb->limits_plan.timeout > 0 ||
		      limits_plan_cgroup(&sb->limits_plan);

	sb->shape.bwrap = sb->backend == SANDBOX_BACKEND_BWRAP;
	/* The timeout and the watch outlive a supervisor the command can
	 * stall: a guardian above it (DESIGN.md §15). */
	/* So does the removal of the run's own /tmp. */
	sb->shape.guardian = sb->supervise && (watch || limits || sb->run_tmp);
	sb->shape.monitor = sb->supervise || watch || limits || sb->run_tmp;
	if (!sb->use_ns || sb->shape.bwrap)
		sb->shape.ns = PLANNER_NS_NONE;
	else if (sb->ns.pid)
		sb->shape.ns = PLANNER_NS_PID;
	else
		sb->shape.ns = PLANNER_NS_MOUNT;
	/* On a terminal, what the command leaves running is ended before
	 * llwrap returns to the shell, which would share the terminal with
	 * it: by pid 1's end (a pid namespace, bubblewrap's) or by a
	 * monitor, never a bare exec (review M, F6). */
	if (sb->facts.terminal && !sb->shape.bwrap &&
	    sb->shape.ns != PLANNER_NS_PID)
		sb->shape.monitor = true;
	/* A mask the host removes (a rename over its path) stops the
	 * sandbox: watched from the sandbox's mount namespace by the
	 * process waiting for the command, a monitor where there would be
	 * none (maskwatch.h). */
	sb->shape.masks = PLANNER_MASKS_NONE;
	if (sb->fs == NULL || (sb->fs->n_masks == 0 && sb->fs->absent == NULL))
		return;
	if (sb->shape.bwrap) {
		sb->shape.masks = PLANNER_MASKS_BWRAP;
		sb->shape.monitor = true;
	} else if (sb->shape.ns == PLANNER_NS_PID) {
		sb->shape.masks = PLANNER_MASKS_PID1;
	} else if (sb->shape.ns == PLANNER_NS_MOUNT) {
		sb->shape.masks = PLANNER_MASKS_MONITOR;
		sb->shape.monitor = true;
	}
}

char *
planner_shape_describe(const struct sandbox *sb)
{
	const struct planner_shape *s = &sb->shape;
	_cleanup_strv_ char **v = NULL;

	if (s->guardian)
		strv_push(&v, "guardian");
	if (s->monitor || s->ns == PLANNER_NS_PID)
		strv_push(&v, sb->supervise ? "supervisor" : "monitor");
	if (s->ns == PLANNER_NS_PID)
		strv_push(&v, "pid 1");
	if (s->bwrap)
		strv_push(&v, "bwrap");
	strv_push(&v, "command");
	return strv_join(v, " > ");
}

/*
 * A project that is itself one of the scratch directories private-tmp
 * replaces would be the new tmpfs, empty: its files missing inside, and
 * what the command writes there lost when the run ends, silently.
 * Refused under every backend (one beneath it is bound into the tmpfs).
 */
static void
private_tmp_project(struct sandbox *sb, const struct policy *p)
{
	const char *t;

	if (!p->private_tmp || p->project == NULL ||
	    (t = policy_private_tmp_of(p->project)) == NULL ||
	    strcmp(t, p->project) != 0)
		return;
	sandbox_refuse(
		sb, xasprintf("the project directory %s is a scratch directory "
			      "that private-tmp (%s) replaces with a new, "
			      "empty tmpfs: inside the sandbox the project's "
			      "files would be missing, and what the command "
			      "writes there lost when it ends; run from a "
			      "directory of the project's own beneath it "
			      "(mkdir %s/proj && cd %s/proj), or set "
			      "private-tmp = no in a profile of your own",
			      p->project,
			      p->private_tmp_origin.origin != NULL
				      ? p->private_tmp_origin.origin
				      : "built in",
			      t, t));
}

static int
plan(const struct policy *p, enum sandbox_backend backend,
     const struct facts *f, const struct pathtree_fs *fs, bool run,
     struct sandbox **out, char **cause)
{
	struct sandbox *sb;
	struct pathtree_input view;
	struct ruleset_inputs net_in;
	struct llw_path_rule *rules;
	char *why = NULL;
	size_t n;
	int r;

	sb = xcalloc(1, sizeof(*sb));
	sb->policy = p;
	sb->project = p->project;
	sb->workdir = p->workdir != NULL ? p->workdir : p->project;
	sb->protect_git = p->protect_git;
	sb->protect_later_run = p->protect_later_run;
	sb->run = run;
	/* The network compile: what the supervisor and its helpers read. */
	netpolicy_plan(p, &sb->net);
	probe_copy(&sb->facts, f);
	choose_backend(sb, backend);
	private_tmp_project(sb, p);
	limits_plan(&sb->limits_plan, p);
	cgroup_account(sb);

	/* Compile the filesystem rules, config-file protection included. */
	if (planner_rules(sb, p, &rules, &n, &why) < 0)
		sandbox_refuse(sb, steal_pointer(&why));
	planner_pathtree_input(p, &view);
	view.paths = rules;
	view.n_paths = n;
	/* Masks are compiled first, to learn whether the policy needs them.
	 * bubblewrap applies them as mounts itself; for Landlock they need
	 * L3, and only then is the kernel asked whether L3 can run. */
	r = pathtree_compile(&view, fs, true, &sb->fs, &why);
	/* Whether the rules grant terminals, as compiled: before
	 * no_host_terminals() denies them for want of L3. */
	sb->pts_granted =
		r == 0 ? plan_access(sb->fs, "/dev/pts") != LLW_ACCESS_DENY
		       : policy_access_at(p, "/dev/pts", NULL) !=
				 LLW_ACCESS_DENY;
	/* Without L3, the monitor holds git's and the later-run files
	 * (DESIGN.md §14): compiled again without their rules, to learn
	 * which masks are left. */
	if (r == 0 && sb->backend != SANDBOX_BACKEND_BWRAP &&
	    monitor_hold(sb, p, rules, &n)) {
		view.n_paths = n;
		plan_free(sb->fs);
		sb->fs = NULL;
		r = pathtree_compile(&view, fs, true, &sb->fs, &why);
	}
	/* ... and a private /tmp is a directory of the run's own. */
	if (r == 0 && sb->backend != SANDBOX_BACKEND_BWRAP &&
	    run_tmp_plan(sb, p, rules, &n)) {
		view.n_paths = n;
		plan_free(sb->fs);
		sb->fs = NULL;
		r = pathtree_compile(&view, fs, true, &sb->fs, &why);
	}
	if (r == 0 && sb->backend != SANDBOX_BACKEND_BWRAP) {
		bool unmasked = ns_plan(sb, p) && sb->fs->n_masks > 0;
		bool no_pts = no_host_terminals(sb, p, rules, &n);

		view.n_paths = n;
		if (unmasked || no_pts) {
			/* Without L3 masks fall back to hole punching (best
			 * effort) or fail closed, naming the path. */
			plan_free(sb->fs);
			sb->fs = NULL;
			r = pathtree_compile(&view, fs, sb->use_ns, &sb->fs,
					     &why);
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
		planner_free(sb);
		return r;
	}
	for (char **l = sb->fs->lost; l != NULL && *l != NULL; l++)
		strv_push(&sb->not_enforced, *l);
	/* Nothing renamed or linked into .git from another directory. */
	if (sb->monitor_holds != NULL)
		planner_withhold_refer(sb->fs, p->project);

	if (sb->backend == SANDBOX_BACKEND_BWRAP) {
		prepare_bwrap(sb, p);
		plan_watches(sb);
		plan_shape(sb);
		*out = sb;
		return 0;
	}

	if (backend == SANDBOX_BACKEND_LANDLOCK && sb->facts.kernel.abi == 0) {
		_cleanup_free_ char *k = ruleset_describe(&sb->facts.kernel);

		sandbox_refuse(sb, xasprintf("--backend=landlock was asked "
					     "for, but %s",
					     k));
	}

	/* S: the network supervisor, for the rules only it can enforce.
	 * Best effort runs without it, reported: then the Landlock port
	 * rules alone restrict IP, and no unix socket is allowed. */
	if (netpolicy_needs_supervisor(p)) {
		if (supervisor_deferred(sb, p) || sandbox_supervisor(sb))
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
	planner_ruleset_inputs(p, &net_in);
	if (sb->supervise) {
		memset(&net_in.connect_tcp, 0, sizeof(net_in.connect_tcp));
		memset(&net_in.bind_tcp, 0, sizeof(net_in.bind_tcp));
		memset(&net_in.connect_udp, 0, sizeof(net_in.connect_udp));
		memset(&net_in.bind_udp, 0, sizeof(net_in.bind_udp));
	}
	sb->landlock =
		ruleset_plan_new_probed(&net_in, sb->fs, &sb->facts.kernel);
	if (sb->use_ns)
		ruleset_plan_ns_covers(sb->landlock, sb->ns.pid, sb->ns.net);
	account(sb, p);
	for (int x = 0; x < LAYERS_N; x++)
		if (sb->enforced_by[x] != LAYER_NONE)
			ruleset_plan_cover(sb->landlock, x);
	not_enforced_losses(sb, sb->landlock->losses, sb->landlock->n_losses);
	if (ruleset_plan_must_fail(sb->landlock, p->best_effort)) {
		_cleanup_free_ char *k = ruleset_describe(&sb->facts.kernel);
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

	/* Refused for another reason, decided after the supervisor was
	 * left to the run: ask now, so that the refusal names the
	 * supervisor when it is refused too, as it would have. */
	if (sb->must_fail && sb->sv_handover_probes) {
		sb->sv_handover_probes = false;
		if (!sandbox_supervisor(sb)) {
			free(sb->fail_cause);
			sb->fail_cause = planner_supervisor_refusal(
				sb, sb->facts.supervisor_why);
		}
	}
	/* Refused for another reason while L3 was left to the run: ask now
	 * (the run is not going to start anyway), so that the refusal names
	 * L3 first when it is refused too, as it would have. */
	if (sb->must_fail && sb->ns_unshare_probes && !sandbox_userns(sb)) {
		free(sb->fail_cause);
		sb->fail_cause =
			planner_l3_refusal(sb->ns_needed, sb->facts.userns_why);
	}

	plan_watches(sb);
	plan_shape(sb);
	*out = sb;
	return 0;
}

int
planner_plan(const struct policy *p, enum sandbox_backend backend,
	     const struct facts *f, const struct pathtree_fs *fs, bool run,
	     struct sandbox **out, char **cause)
{
	int r = plan(p, backend, f, fs, run, out, cause);

	if (r == 0)
		planner_conf(p, (*out)->supervise, &(*out)->conf);
	return r;
}

void
planner_free(struct sandbox *sb)
{
	if (sb == NULL)
		return;
	ruleset_hold_free(sb->landlock, sb->held);
	plan_free(sb->fs);
	ruleset_plan_free(sb->landlock);
	bwrap_plan_free(sb->bwrap);
	probe_clear(&sb->facts);
	free(sb->backend_why);
	strv_free(sb->not_enforced);
	free(sb->fail_cause);
	free(sb->ns_needed);
	strv_free(sb->monitor_holds);
	runtmp_free(sb->run_tmp_dir);
	gitguard_free(sb->git);
	gitguard_free(sb->later);
	watchlater_free(sb->watch);
	maskwatch_free(sb->maskwatch);
	strv_free(sb->git_limits);
	strv_free(sb->unhidden);
	strv_free(sb->ns.keep);
	free(sb->ns.own_data);
	net_plan_clear(&sb->net);
	free(sb);
}
