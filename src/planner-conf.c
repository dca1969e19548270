/*
 * What the planner gives the others of a policy, as typed values they
 * read instead of struct policy (DESIGN.md §8): the plan's
 * configuration (planconf.h), the compiler's inputs (pathtree.h), the
 * configured rules' plan before the sandbox is compiled, the
 * directories made before a run, and whether anything may execute.
 */
#include <stdbool.h>
#include <stddef.h>

#include "netpolicy.h"
#include "planner-int.h"

void
planner_pathtree_input(const struct policy *p, struct pathtree_input *in)
{
	*in = (struct pathtree_input){
		.paths = p->paths,
		.n_paths = p->n_paths,
		.project = p->project,
		.best_effort = p->best_effort,
	};
}

struct plan *
planner_sources(const struct policy *p)
{
	struct pathtree_input in;

	planner_pathtree_input(p, &in);
	return pathtree_sources(&in, &pathtree_fs_real);
}

void
planner_conf(const struct policy *p, bool supervised, struct plan_conf *c)
{
	*c = (struct plan_conf){
		.name = p->name,
		.project = p->project,
		.workdir = p->workdir,
		.project_why = p->project_why,
		.run_profile = p->run_profile,
		.descriptions = p->descriptions,
		.config_files = p->config_files,
		.paths = p->paths,
		.n_paths = p->n_paths,
		.mkdirs = p->mkdirs,
		.touches = p->touches,
		.copies = p->copies,
		.n_copies = p->n_copies,
		.private_tmp = p->private_tmp,
		.private_tmp_origin = p->private_tmp_origin,
		.protect_git = p->protect_git,
		.protect_git_origin = p->protect_git_origin,
		.protect_later_run = p->protect_later_run,
		.net = p->net,
		.net_origin = p->net_origin,
		.connect_tcp = p->connect_tcp,
		.bind_tcp = p->bind_tcp,
		.connect_udp = p->connect_udp,
		.bind_udp = p->bind_udp,
		.unix_sockets = p->unix_sockets,
		.unix_sockets_origin = p->unix_sockets_origin,
		.unix_paths = p->unix_paths,
		.cidrs = p->cidrs,
		.n_cidrs = p->n_cidrs,
		.listen_addrs = p->listen_addrs,
		.n_listen_addrs = p->n_listen_addrs,
		.dns_addrs = p->dns_addrs,
		.n_dns_addrs = p->n_dns_addrs,
		.hosts = p->hosts,
		.n_hosts = p->n_hosts,
		.proxy_origin = p->proxy_origin,
		.log_blocked = p->log_blocked,
		.log_prefix = p->log_prefix,
		.env_keep = p->env_keep,
		.env_set = p->env_set,
		.env_unset = p->env_unset,
		.ptrace_deny = p->ptrace_deny,
		.ptrace_origin = p->ptrace_origin,
		.hide_processes = p->hide_processes,
		.hide_processes_origin = p->hide_processes_origin,
		.best_effort = p->best_effort,
		.best_effort_origin = p->best_effort_origin,
		.proxy_enabled = netpolicy_proxy_enabled(p),
		.needs_supervisor = netpolicy_needs_supervisor(p),
		.names_closed = netpolicy_names_closed(p, supervised),
	};
}

bool
planner_executes(const struct policy *p)
{
	for (size_t i = 0; i < p->n_paths; i++)
		if (policy_access_executable(p->paths[i].access))
			return true;
	return false;
}

void
planner_dirs(const struct policy *p, struct planner_dirs *d)
{
	*d = (struct planner_dirs){
		.mkdirs = &p->mkdirs,
		.touches = &p->touches,
		.project = p->project,
	};
	if (p->project == NULL)
		return;
	d->hooks = p->protect_git;
	d->hooks_origin = p->protect_git_origin.origin;
	if (p->protect_later_run)
		d->later_run = planner_later_run_dirs(p);
}
