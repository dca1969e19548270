/*
 * --explain and --check.  Both only read: the policy and the plans that
 * sandbox_prepare() computed, and what the kernel says about itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "compat/syscall.h"
#include "explain.h"
#include "resources.h"
#include "fdutil.h"
#include "known.h"
#include "layers.h"
#include "ns.h"
#include "path.h"
#include "probe.h"
#include "gitguard.h"
#include "strv.h"
#include "supervise.h"
#include "testhook.h"
#include "why.h"
#include "xalloc.h"

/* How llwrap is linked (configure.ac); shown by --check. */
#ifndef LLW_LINKING
#define LLW_LINKING "dynamic"
#endif

static const struct {
	uint64_t bit;
	const char *name;
} fs_rights[] = {
	{ LLW_FS_EXECUTE, "execute" },
	{ LLW_FS_WRITE_FILE, "write_file" },
	{ LLW_FS_READ_FILE, "read_file" },
	{ LLW_FS_READ_DIR, "read_dir" },
	{ LLW_FS_REMOVE_DIR, "remove_dir" },
	{ LLW_FS_REMOVE_FILE, "remove_file" },
	{ LLW_FS_MAKE_CHAR, "make_char" },
	{ LLW_FS_MAKE_DIR, "make_dir" },
	{ LLW_FS_MAKE_REG, "make_reg" },
	{ LLW_FS_MAKE_SOCK, "make_sock" },
	{ LLW_FS_MAKE_FIFO, "make_fifo" },
	{ LLW_FS_MAKE_BLOCK, "make_block" },
	{ LLW_FS_MAKE_SYM, "make_sym" },
	{ LLW_FS_REFER, "refer" },
	{ LLW_FS_TRUNCATE, "truncate" },
	{ LLW_FS_IOCTL_DEV, "ioctl_dev" },
	{ LLW_FS_RESOLVE_UNIX, "resolve_unix" },
};

static const struct {
	uint64_t bit;
	const char *name;
} net_rights[] = {
	{ LLW_NET_BIND_TCP, "bind-tcp" },
	{ LLW_NET_CONNECT_TCP, "connect-tcp" },
	{ LLW_NET_BIND_UDP, "bind-udp" },
	{ LLW_NET_CONNECT_SEND_UDP, "connect-udp" },
};

static char *
net_rights_name(uint64_t bits)
{
	char **names = NULL;
	char *r;

	for (size_t i = 0; i < ARRAY_SIZE(net_rights); i++)
		if (bits & net_rights[i].bit)
			strv_push(&names, net_rights[i].name);
	r = names ? strv_join(names, ",") : xstrdup("nothing");
	strv_free(names);
	return r;
}

/* The shortest name for a set of rights: an access level when it is one,
 * else the list of rights. */
static char *
rights_name(uint64_t bits)
{
	char **names = NULL;
	char *r;

	for (int a = LLW_ACCESS_RO; a <= LLW_ACCESS_RWX; a++)
		if (bits == pathtree_access_bits((enum llw_access)a))
			return xstrdup(policy_access_name((enum llw_access)a));
	for (size_t i = 0; i < ARRAY_SIZE(fs_rights); i++)
		if (bits & fs_rights[i].bit)
			strv_push(&names, fs_rights[i].name);
	r = names ? strv_join(names, ",") : xstrdup("nothing");
	strv_free(names);
	return r;
}

static void
explain_ports(FILE *f, const char *key, const struct llw_ports *ports)
{
	for (size_t i = 0; i < ports->n; i++) {
		const struct llw_port_range *pr = &ports->v[i];

		if (pr->lo == pr->hi)
			fprintf(f, "  %-12s %u", key, pr->lo);
		else
			fprintf(f, "  %-12s %u-%u", key, pr->lo, pr->hi);
		fprintf(f, "\t\t(%s)\n", pr->origin);
	}
}

static void
explain_items(FILE *f, const char *key, const struct llw_items *items)
{
	for (size_t i = 0; i < items->n; i++)
		fprintf(f, "  %-12s %s\t(%s)\n", key, items->v[i].value,
			items->v[i].origin);
}

static const char *
origin_or_builtin(const struct llw_scalar_origin *o)
{
	return o->origin ? o->origin : "built-in";
}

/* Which layers run, and why L3 does or does not. */
static void
explain_layers(FILE *f, const struct sandbox *sb)
{
	fprintf(f, "layers:\n  L1 Landlock     %s\n",
		sb->facts.kernel.abi > 0 ? "yes" : "no (unavailable)");
	fprintf(f, "  L2 seccomp      yes\n");
	if (sb->use_ns) {
		fprintf(f, "  L3 namespaces   yes, for %s\n", sb->ns_needed);
		fprintf(f,
			"                  user, mount, ipc%s%s; read-only "
			"view outside writable roots%s%s\n",
			sb->ns.pid ? ", pid (fresh /proc)" : "",
			sb->ns.net ? ", net (only lo)" : "",
			sb->ns.private_tmp ? "; private /tmp" : "",
			sb->ns.seal ? "; sealed (what may not be read is "
				      "absent or a placeholder)"
				    : "");
	} else if (sb->facts.userns == PROBE_NO && sb->ns_needed == NULL) {
		fprintf(f,
			"  L3 namespaces   no (%s): the policy needs none of "
			"masks, net = none, private-tmp, hide-processes "
			"that another layer does not hold\n",
			sb->facts.userns_why);
	} else if (sb->facts.userns == PROBE_NO) {
		fprintf(f, "  L3 namespaces   needed for %s, but %s\n",
			sb->ns_needed, sb->facts.userns_why);
	} else {
		fprintf(f, "  L3 namespaces   no: the policy needs none of "
			   "masks, net = none, private-tmp, hide-processes\n");
	}
}

/*
 * The processes the run makes and where allow-host's names go, as the
 * planner decided them: sandbox_exec() switches on the same struct.
 */
static void
explain_shape(FILE *f, const struct sandbox *sb)
{
	_cleanup_free_ char *shape = planner_shape_describe(sb);
	static const char *const ns[] = {
		[PLANNER_NS_NONE] = "",
		[PLANNER_NS_MOUNT] = " (user and mount namespaces, made by "
				     "llwrap before exec)",
		[PLANNER_NS_PID] = " (a pid namespace: pid 1 makes the mount "
				   "namespace and starts the command)",
	};

	fprintf(f, "shape: %s%s\n", shape, ns[sb->shape.ns]);
	if (sb->shape.masks != PLANNER_MASKS_NONE)
		fprintf(f,
			"masks: watched by %s: one the host removes (a "
			"rename over its path) stops the sandbox%s\n",
			sb->shape.masks == PLANNER_MASKS_PID1 ? "pid 1"
			: sb->supervise			      ? "the supervisor"
							      : "the monitor",
			sb->fs->absent != NULL
				? "; so does a denied path missing at the "
				  "start that appears where the view shows it "
				  "(the host's or the command's: the notes "
				  "name them)"
				: "");
	switch (planner_hosts(sb)) {
	case PLANNER_HOSTS_NONE:
		break;
	case PLANNER_HOSTS_STUB:
		fprintf(f, "names: llwrap's resolver (allow-host)%s\n",
			sb->facts.userns == PROBE_YES
				? ""
				: ", or its proxy if user namespaces are "
				  "refused when the run starts it");
		break;
	case PLANNER_HOSTS_PROXY:
		fprintf(f, "names: llwrap's HTTP(S) proxy (allow-host)\n");
		break;
	}
}

/* A mask, or a pin: the path bound onto itself so that it cannot be
 * renamed or replaced. */
static void
explain_mask(FILE *f, const struct plan_mask *m)
{
	fprintf(f, "  %s %s %s\t(%s)\n", m->pin ? "pin " : "mask",
		policy_access_name(m->access), m->path, m->origin);
}

/* The bubblewrap backend's plan: the mounts in order, where they come
 * from, and the bwrap options. */
static void
explain_bwrap(FILE *f, const struct sandbox *sb)
{
	char *argv[] = { (char *)"COMMAND", NULL };
	size_t n_empty = bwrap_empty_files(sb->bwrap, sb->fs);
	_cleanup_free_ int *empty = xcalloc(n_empty + 1, sizeof(*empty));
	_cleanup_strv_ char **args = NULL;
	_cleanup_free_ char *text = NULL;

	for (size_t i = 0; i < n_empty; i++)
		empty[i] = 4 + (int)i;
	args = bwrap_argv(sb->bwrap, sb->fs, 3, empty, argv);
	text = bwrap_argv_format(args);

	fprintf(f, "\nbubblewrap (F): %s namespaces; %s\n",
		sb->bwrap->share_net ? "user, pid, ipc, uts, cgroup"
				     : "user, pid, ipc, uts, cgroup, net (lo "
				       "only)",
		sb->bwrap->share_net ? "the host network is shared"
				     : "no host network");
	for (size_t i = 0; i < sb->fs->n_rules; i++) {
		_cleanup_free_ char *r = rights_name(sb->fs->rules[i].access);

		fprintf(f, "  rule %-8s %s\t(%s%s)\n", r, sb->fs->rules[i].path,
			sb->fs->rules[i].origin,
			sb->fs->rules[i].punched ? ", hole punched" : "");
	}
	for (size_t i = 0; i < sb->fs->n_masks; i++)
		explain_mask(f, &sb->fs->masks[i]);
	fprintf(f, "  bwrap arguments (the seccomp program comes in a "
		   "memfd, each empty file (a cover in /dev, a denied file) "
		   "from an empty one, the environment as bwrap's own):\n");
	for (char *s = text, *e; *s != '\0'; s = e + 1) {
		e = strchr(s, '\n');
		fprintf(f, "    %.*s\n", (int)(e - s), s);
	}
}

const char *
explain_backend_name(enum sandbox_backend b)
{
	return b == SANDBOX_BACKEND_BWRAP ? "bwrap" : "landlock";
}

/*
 * The escapes this backend is known not to stop with the layers in use
 * (conf/known-limits), so that nobody has to read the test suite to
 * learn them.
 */
static void
explain_limits(FILE *f, const struct sandbox *sb)
{
	struct known_limits *l = known_builtin();
	const char *backend = explain_backend_name(sb->backend);
	bool any = false;

	for (size_t i = 0; l != NULL && i < l->n; i++) {
		const struct known_limit *e = &l->v[i];

		if (!known_applies(e, backend, sandbox_l3_parts(sb),
				   sb->supervise))
			continue;
		if (!any)
			fprintf(f,
				"\nKnown limits on this backend (%s; "
				"llwrap --selftest measures them):\n",
				backend);
		any = true;
		fprintf(f, "  %s: %s (closed by %s)\n", e->id, e->reason,
			e->closed_by);
	}
	if (!any)
		fprintf(f, "\nKnown limits on this backend (%s): none.\n",
			backend);
	known_free(l);
}

/* Masks and pins of a plan made for one of protect-git's origins. */
static void
count_guard(const struct sandbox *sb, const char *prefix, size_t *masks,
	    size_t *pins)
{
	*masks = *pins = 0;
	for (size_t i = 0; i < sb->fs->n_masks; i++)
		if (strncmp(sb->fs->masks[i].origin, prefix, strlen(prefix)) ==
		    0)
			(*(sb->fs->masks[i].pin ? pins : masks))++;
}

/* How many of g's paths the monitor holds in place of mounts (M). */
static size_t
count_held(const struct sandbox *sb, const struct gitguard *g)
{
	size_t n = 0;

	for (size_t i = 0; g != NULL && i < g->n; i++)
		n += strv_contains(sb->monitor_holds, g->v[i].path);
	return n;
}

#define HELD_HOW                                                               \
	"held by the monitor (M: a change moved aside and the start's "        \
	"content restored, named after the run; nothing renamed or linked "    \
	"in from another directory: EXDEV; known limit: the instant before "   \
	"the move)"

/* The paths of g the monitor holds, one line each. */
static void
explain_held(FILE *f, const struct sandbox *sb, const struct gitguard *g)
{
	for (size_t i = 0; g != NULL && i < g->n; i++)
		if (strv_contains(sb->monitor_holds, g->v[i].path))
			fprintf(f, "    M %s: %s\n", g->v[i].path,
				g->v[i].why != NULL ? g->v[i].why : "held");
}

/* How a mount-based protection is enforced on this run. */
static const char *
mount_layer(const struct sandbox *sb)
{
	if (sb->backend == SANDBOX_BACKEND_BWRAP)
		return "bubblewrap mounts (F)";
	return sb->use_ns ? "L3 mounts" : NULL;
}

/* [limits]: the resource limits set, and what is not enforced. */
static void
explain_limits_set(FILE *f, const struct sandbox *sb)
{
	const struct limits_plan *l = &sb->limits_plan;
	_cleanup_strv_ char **set = NULL;

	if (l->memory)
		strv_push_take(&set, xasprintf("memory %llu bytes",
					       (unsigned long long)l->memory));
	if (l->processes)
		strv_push_take(&set,
			       xasprintf("processes %llu",
					 (unsigned long long)l->processes));
	if (l->files)
		strv_push_take(&set, xasprintf("files %llu",
					       (unsigned long long)l->files));
	if (l->cpu)
		strv_push_take(&set, xasprintf("cpu %llu s",
					       (unsigned long long)l->cpu));
	if (l->file_size)
		strv_push_take(&set,
			       xasprintf("file-size %llu bytes",
					 (unsigned long long)l->file_size));
	if (set != NULL) {
		_cleanup_free_ char *list = strv_join(set, ", ");

		fprintf(f, "  resources         %s (rlimits, soft and hard)\n",
			list);
	} else {
		fprintf(f, "  resources         no rlimits set\n");
	}
	if (l->timeout > 0)
		fprintf(f,
			"  timeout           %llu s of wall clock (a monitor "
			"outside: SIGTERM, SIGKILL %d s later; exit %d)\n",
			(unsigned long long)l->timeout, LLW_TIMEOUT_GRACE,
			LLW_EXIT_TIMEOUT);
	if (l->memory_max > 0 || l->pids_max > 0) {
		/* Probed by the planner (cgroup_account). */
		if (sb->facts.cgroup == PROBE_YES)
			fprintf(f,
				"  cgroup            memory.max %llu, pids.max "
				"%llu (0: none) on a cgroup of the command's "
				"own\n",
				(unsigned long long)l->memory_max,
				(unsigned long long)l->pids_max);
		else
			fprintf(f,
				"  cgroup            NOT ENFORCED: memory-max "
				"and pids-max (%s)\n",
				sb->facts.cgroup_why);
	}
}

/*
 * DESIGN.md §11: each protection against what runs later or is shared,
 * with its mechanism and layer on this run, or NOT ENFORCED.
 */
static void
explain_persistence(FILE *f, const struct sandbox *sb)
{
	const struct plan_conf *p = &sb->conf;
	const char *layer = mount_layer(sb);
	size_t masks, pins, secrets = 0;
	const char *home = getenv("HOME");

	fprintf(f, "\nPersistence and shared state (DESIGN.md §11):\n");
	if (!p->protect_git) {
		fprintf(f, "  git metadata      no (protect-git = no)\n");
	} else {
		count_guard(sb, "protect-git", &masks, &pins);
		if (layer != NULL)
			fprintf(f,
				"  git metadata      %zu read-only, %zu pinned "
				"in place (%s)\n",
				masks, pins, layer);
		else if (sb->monitor_holds != NULL) {
			fprintf(f, "  git metadata      %zu %s\n",
				count_held(sb, sb->git), HELD_HOW);
			explain_held(f, sb, sb->git);
		} else
			fprintf(f, "  git metadata      NOT ENFORCED: needs L3 "
				   "mounts (hole punching instead, see "
				   "below)\n");
	}
	if (!p->protect_later_run) {
		fprintf(f, "  later-run files   no (protect-later-run = no)\n");
	} else {
		count_guard(sb, "protect-later-run", &masks, &pins);
		if (layer != NULL)
			fprintf(f, "  later-run files   %zu read-only (%s)\n",
				masks, layer);
		else if (sb->monitor_holds != NULL) {
			fprintf(f, "  later-run files   %zu %s\n",
				count_held(sb, sb->later), HELD_HOW);
			explain_held(f, sb, sb->later);
		} else
			fprintf(f, "  later-run files   NOT ENFORCED: needs L3 "
				   "mounts (hole punching instead)\n");
	}
	for (char **s = sb->git_limits; s != NULL && *s != NULL; s++)
		fprintf(f, "    limit: %s\n", *s);
	if (!sb->pts_granted)
		fprintf(f, "  terminals         the inherited one only (no "
			   "/dev/pts rule)\n");
	else if (sb->backend == SANDBOX_BACKEND_BWRAP)
		fprintf(f, "  terminals         bubblewrap's own devpts "
			   "instance (F)\n");
	else if (sb->use_ns)
		fprintf(f, "  terminals         a devpts instance of the "
			   "sandbox's own (L3)\n");
	else if (sb->ns_needed != NULL && p->best_effort)
		fprintf(f, "  terminals         /dev/pts denied: the inherited "
			   "one only (no L3)\n");
	else
		fprintf(f, "  terminals         NOT ENFORCED: the host's "
			   "/dev/pts, with the user's other terminals (needs "
			   "L3)\n");
	if (!p->private_tmp)
		fprintf(f, "  shared scratch    no: the host's /tmp, /var/tmp "
			   "and /dev/shm, as the rules allow (private-tmp = "
			   "no)\n");
	else if (layer != NULL) {
		fprintf(f,
			"  shared scratch    /tmp, /var/tmp, /dev/shm private "
			"tmpfs, %llu MiB each (%s)\n",
			(unsigned long long)(sb->backend == SANDBOX_BACKEND_BWRAP
						     ? sb->bwrap->tmpfs_size
						     : sb->ns.tmpfs_size) >>
				20,
			layer);
		if (policy_private_tmp_of(p->project) != NULL)
			fprintf(f,
				"                    the project %s lies in "
				"%s: bound into its tmpfs as the host has it "
				"(its files, and what the command may write "
				"there, reach the host)\n",
				p->project, policy_private_tmp_of(p->project));
	} else if (sb->run_tmp)
		fprintf(f,
			"  shared scratch    private /tmp: "
			"/tmp/llwrap-run.XXXXXXXX (in $TMPDIR if set) as "
			"TMPDIR, removed after the run; /tmp and /var/tmp "
			"themselves refused (EACCES); /dev/shm %s (M)\n",
			sb->run_tmp_shm ? "granted: the container's own (its "
					  "IPC namespace, C)"
					: "refused (EACCES: sem_open and "
					  "shm_open fail; not the host's)");
	else
		fprintf(f, "  shared scratch    NOT ENFORCED: the host's "
			   "(needs L3)\n");
	fprintf(f, "  home as project   refused (exit 125) unless "
		   "--allow-broad-project\n");
	for (size_t i = 0; home != NULL && *home == '/' && i < p->n_paths; i++)
		if (p->paths[i].access == LLW_ACCESS_DENY &&
		    path_under(p->paths[i].path, home) &&
		    strcmp(p->paths[i].path, home) != 0)
			secrets++;
	fprintf(f,
		"  secrets           %zu paths in the home denied by name "
		"(Landlock%s)\n",
		secrets, sb->use_ns ? ", L3 masks in writable trees" : "");
	switch (sb->watches) {
	case SANDBOX_WATCHES_VIEW:
		if (sb->backend != SANDBOX_BACKEND_BWRAP) {
			fprintf(f,
				"  watching          inotify only where the "
				"sandbox may read (L3: the view is sealed, "
				"what "
				"may not be read is absent or a placeholder of "
				"mode 000, so the kernel refuses each watch "
				"there%s)\n",
				sb->supervise ? "; the supervisor is not asked"
					      : "");
			break;
		}
		fprintf(f,
			"  watching          inotify only where the view "
			"shows (F: bubblewrap's view is the rules' binds, "
			"denials masked, --dev's nodes no rule grants "
			"covered, so the kernel adds each watch%s)\n",
			sb->supervise ? "; the supervisor is not asked" : "");
		break;
	case SANDBOX_WATCHES_JUDGED: {
		const char *why = sb->use_ns ? sb->unsealed : NULL;

		fprintf(f,
			"  watching          inotify only where the sandbox "
			"may read (the supervisor adds each watch on what a "
			"judge under the sandbox's Landlock ruleset opened, "
			"S; a round trip a watch: %s%s, where only Landlock "
			"keeps the sandbox from reads, and Landlock does not "
			"check watches)\n",
			why != NULL ? "L3's view is not sealed: "
				    : "no view hides the host's tree",
			why != NULL ? why : "");
		break;
	}
	case SANDBOX_WATCHES_UNCHECKED:
		fprintf(f, "  watching          NOT ENFORCED: inotify watches "
			   "on trees the sandbox cannot read (Landlock does "
			   "not cover inotify; a watch shows when the user's "
			   "files there are opened or changed; needs the "
			   "supervisor: supervise = yes)\n");
		break;
	}
	explain_limits_set(f, sb);
}

/* Layer substitution: who enforces each restriction the policy asks
 * for on this kernel (DESIGN.md §14). */
static void
explain_enforcement(FILE *f, const struct sandbox *sb)
{
	fprintf(f, "\nEnforced by (layer per restriction, DESIGN.md §14):\n");
	for (int r = 0; r < LAYERS_N; r++) {
		enum layers_id l = sb->enforced_by[r];

		if (!sb->asked[r])
			continue;
		if (l != LAYER_NONE)
			fprintf(f, "  %-4s %s: %s\n", layers_short_name(l),
				layers_restriction_name(r), layers_how(r, l));
		else if (r == LAYERS_METADATA)
			fprintf(f,
				"  none %s: a known limit without L3 "
				"(fs.chmod-outside and the like below)\n",
				layers_restriction_name(r));
		else
			fprintf(f, "  none %s: NOT ENFORCED (needs %s)\n",
				layers_restriction_name(r), layers_order(r));
	}
}

void
explain_sandbox(FILE *f, const struct sandbox *sb)
{
	const struct plan_conf *p = &sb->conf;
	const struct ruleset_plan *rp = sb->landlock;
	_cleanup_free_ char *kernel = ruleset_describe(&sb->facts.kernel);
	_cleanup_strv_ char **seccomp = filter_describe(&sb->filter);

	fprintf(f, "llwrap policy for '%s' in %s\n", p->name, p->project);
	if (p->project_why != NULL)
		fprintf(f, "  project: %s, %s\n", p->project, p->project_why);
	for (char *const *d = p->descriptions; d != NULL && *d != NULL; d++)
		fprintf(f, "  profile: %s\n", *d);
	{
		_cleanup_strv_ char **sum = why_summary(sb, getenv("HOME"));

		fprintf(f, "\nIn short:\n");
		for (char **l = sum; l != NULL && *l != NULL; l++)
			fprintf(f, "  %s\n", *l);
		fprintf(f, "\n");
	}
	fprintf(f, "kernel: %s\n", kernel);
	if (sb->backend == SANDBOX_BACKEND_BWRAP)
		fprintf(f, "backend: bwrap (F %s + L2 seccomp), %s\n",
			sb->facts.bwrap_bin.path ? sb->facts.bwrap_bin.path
						 : "bubblewrap, not found",
			sb->backend_why);
	else
		fprintf(f,
			"backend: landlock (L1 Landlock + L2 seccomp%s), %s\n",
			sb->use_ns ? " + L3 namespaces" : "", sb->backend_why);
	if (sb->backend != SANDBOX_BACKEND_BWRAP)
		explain_layers(f, sb);
	explain_shape(f, sb);

	fprintf(f, "\nConfiguration files read (write-protected):\n");
	for (char *const *c = p->config_files; c != NULL && *c != NULL; c++)
		fprintf(f, "  %s\n", *c);

	fprintf(f, "\nFilesystem rules (as configured):\n");
	for (size_t i = 0; i < p->n_paths; i++)
		fprintf(f, "  %-5s %s\t(%s)\n",
			policy_access_name(p->paths[i].access),
			p->paths[i].path, p->paths[i].origin);

	explain_items(f, "mkdir", &p->mkdirs);
	explain_items(f, "touch", &p->touches);
	for (size_t i = 0; i < p->n_copies; i++)
		fprintf(f,
			"  %-12s %s%s -> %s, before each run where it is "
			"newer than the copy\t(%s)\n",
			"copy", p->copies[i].optional ? "?" : "",
			p->copies[i].src, p->copies[i].dst,
			p->copies[i].origin);
	fprintf(f, "  %-12s %s\t(%s)\n", "private-tmp",
		p->private_tmp ? "yes" : "no",
		origin_or_builtin(&p->private_tmp_origin));
	fprintf(f, "  %-12s %s\t(%s)\n", "protect-git",
		p->protect_git ? "yes" : "no",
		origin_or_builtin(&p->protect_git_origin));

	fprintf(f, "\nNetwork:\n  %-12s %s\t(%s)\n", "mode",
		policy_net_mode_name(p->net),
		origin_or_builtin(&p->net_origin));
	explain_ports(f, "connect-tcp", &p->connect_tcp);
	explain_ports(f, "bind-tcp", &p->bind_tcp);
	explain_ports(f, "connect-udp", &p->connect_udp);
	explain_ports(f, "bind-udp", &p->bind_udp);
	fprintf(f, "  %-12s %s\t(%s)\n", "unix-sockets",
		p->unix_sockets ? "allow" : "deny",
		origin_or_builtin(&p->unix_sockets_origin));
	for (size_t i = 0; i < p->n_cidrs; i++) {
		_cleanup_free_ char *c = value_cidr_format(&p->cidrs[i]);

		fprintf(f, "  %-12s %s\t(%s)\n", "allow-cidr", c,
			p->cidrs[i].origin);
	}
	explain_items(f, "unix", &p->unix_paths);
	for (size_t i = 0; i < p->n_listen_addrs; i++) {
		_cleanup_free_ char *a =
			value_addr_format(&p->listen_addrs[i].addr);

		fprintf(f, "  %-12s %s\t(%s)\n", "listen", a,
			p->listen_addrs[i].origin);
	}
	for (size_t i = 0; i < p->n_dns_addrs; i++) {
		_cleanup_free_ char *a = value_ip_format(&p->dns_addrs[i].addr);

		fprintf(f, "  %-12s %s\t(%s)\n", "dns", a,
			p->dns_addrs[i].origin);
	}

	if (p->needs_supervisor || sb->supervise) {
		fprintf(f, "\nNetwork supervisor (S): %s\n",
			sb->supervise ? "enforces" : "NOT ENFORCED");
		if (p->log_prefix)
			fprintf(f, "  %-12s %s\n", "log-prefix", p->log_prefix);
		/* Where a filter refuses what it reaches the caller with. */
		if (sb->supervise && sb->facts.supervisor_form != NULL)
			fprintf(f, "  %-12s %s\n", "substitutes",
				sb->facts.supervisor_form);
		if (sb->supervise) {
			_cleanup_strv_ char **sup = supervise_describe(
				p, &sb->net, sandbox_hosts_stub(sb), environ);

			for (char **s = sup; s != NULL && *s != NULL; s++)
				fprintf(f, "  %s\n", *s);
		}
	}

	fprintf(f, "\nEnvironment:\n");
	explain_items(f, "keep", &p->env_keep);
	explain_items(f, "set", &p->env_set);
	explain_items(f, "unset", &p->env_unset);
	fprintf(f, "\nProcess:\n  %-12s %s\t(%s)\n", "ptrace",
		p->ptrace_deny ? "deny" : "allow (own processes only)",
		origin_or_builtin(&p->ptrace_origin));
	fprintf(f, "  %-12s %s\t(%s)\n", "hide-processes",
		p->hide_processes ? "yes" : "no",
		origin_or_builtin(&p->hide_processes_origin));
	fprintf(f, "  %-12s %s\t(%s)\n", "best-effort",
		p->best_effort ? "yes" : "no",
		origin_or_builtin(&p->best_effort_origin));

	if (sb->backend == SANDBOX_BACKEND_BWRAP)
		explain_bwrap(f, sb);
	else
		fprintf(f, "\nLandlock rules (L1, ABI %d):\n", rp->abi);
	if (rp->abi > 0) {
		_cleanup_free_ char *h = rights_name(rp->handled_fs);

		_cleanup_free_ char *n = net_rights_name(rp->handled_net);

		fprintf(f, "  handled: fs=%s\n  handled: net=%s scoped=%s%s\n",
			h, n,
			rp->scoped & LLW_SCOPE_ABSTRACT_UNIX_SOCKET
				? "abstract-unix,"
				: "",
			rp->scoped & LLW_SCOPE_SIGNAL ? "signal" : "");
	}
	for (size_t i = 0; i < rp->n_fs_rules; i++) {
		_cleanup_free_ char *r = rights_name(rp->fs_rules[i].access);

		fprintf(f, "  %-8s %s\t(%s%s)\n", r, rp->fs_rules[i].path,
			rp->fs_rules[i].origin,
			rp->fs_rules[i].punched ? ", hole punched" : "");
	}
	for (size_t i = 0; i < rp->n_net_rules; i++) {
		_cleanup_free_ char *r =
			net_rights_name(rp->net_rules[i].access);

		fprintf(f, "  %s port %llu\t(%s)\n", r,
			(unsigned long long)rp->net_rules[i].port,
			rp->net_rules[i].origin);
	}
	for (size_t i = 0;
	     sb->backend != SANDBOX_BACKEND_BWRAP && i < sb->fs->n_masks; i++)
		explain_mask(f, &sb->fs->masks[i]);
	for (char **n = sb->fs->notes; n != NULL && *n != NULL; n++)
		fprintf(f, "  note: %s\n", *n);

	fprintf(f, "\nseccomp (L2):\n");
	for (char **s = seccomp; s != NULL && *s != NULL; s++)
		fprintf(f, "  %s\n", *s);
	if (p->unix_sockets)
		fprintf(f, "  warning: unix-sockets = allow: before Landlock "
			   "ABI 9 pathname sockets the user can reach "
			   "(docker, ssh-agent, D-Bus) are reachable\n");

	explain_persistence(f, sb);
	explain_enforcement(f, sb);
	explain_limits(f, sb);

	fprintf(f, "\n");
	if (sb->not_enforced == NULL)
		fprintf(f, "Every restriction is enforced on this kernel.\n");
	for (char **n = sb->not_enforced; n != NULL && *n != NULL; n++)
		fprintf(f, "NOT ENFORCED: %s\n", *n);
	if (sb->must_fail)
		fprintf(f, "WILL NOT RUN: %s\n", sb->fail_cause);
}

/* --check: the layer each restriction gets on this system when a policy
 * asks for it (DESIGN.md §14). */
static void
check_restrictions(FILE *f, const struct layers_facts *facts)
{
	fprintf(f, "\nRestrictions (the layer that enforces each here, when "
		   "a policy asks for it):\n");
	for (int r = 0; r < LAYERS_N; r++) {
		enum layers_id l = layers_choose(r, facts);

		if (l != LAYER_NONE)
			fprintf(f, "  %-4s %s: %s%s\n", layers_short_name(l),
				layers_restriction_name(r), layers_how(r, l),
				r == LAYERS_METADATA && l == LAYER_L3
					? " (when the policy uses L3; else a "
					  "known limit)"
					: "");
		else if (r == LAYERS_TCP_PORTS &&
			 layers_choose(r, &(struct layers_facts){
						  .abi = facts->abi,
						  .portless = true,
					  }) == LAYER_L2)
			fprintf(f,
				"  L2   %s: only for a policy with no port "
				"(seccomp refuses inet sockets); a port rule "
				"is NOT ENFORCED here (needs %s)\n",
				layers_restriction_name(r), layers_order(r));
		else
			fprintf(f, "  none %s: NOT ENFORCED here (needs %s)\n",
				layers_restriction_name(r), layers_order(r));
	}
	/* Named hosts (DESIGN.md §6.1): which of the two designs. */
	if (!facts->supervisor)
		fprintf(f, "  none named hosts (allow-host): NOT ENFORCED "
			   "here (needs the supervisor)\n");
	else if (facts->userns)
		fprintf(f, "  S    named hosts (allow-host): llwrap's resolver "
			   "in a network namespace of its own; no other name "
			   "resolves, every client works as it is\n");
	else
		fprintf(f, "  S    named hosts (allow-host): llwrap's HTTP(S) "
			   "proxy (user namespaces are refused): clients "
			   "must honour HTTPS_PROXY, ssh and QUIC cannot\n");
	/* Listeners on ports no rule names (DESIGN.md §16). */
	if (!facts->supervisor)
		fprintf(f, "  none listeners on ports no rule names kept from "
			   "the host: NOT ENFORCED here (needs the "
			   "supervisor)\n");
	else
		fprintf(f, "  S    listeners on ports no rule names: the "
			   "sandbox's alone (moved to a port of the kernel's "
			   "choosing, where the sandbox's clients are sent; "
			   "--bind-tcp PORT publishes one)\n");
}

int
explain_check(FILE *f)
{
	_cleanup_free_ char *ll = NULL, *maxns = NULL, *clone = NULL;
	_cleanup_free_ char *apparmor = NULL, *yama = NULL;
	struct facts facts;
	const struct ruleset_kernel *k = &facts.kernel;
	const struct bwrap_binary *bwrap = &facts.bwrap_bin;
	const char *userns_why, *supervisor_why, *bwrap_why, *proc_why;
	bool bwrap_ok, fallback, userns, supervisor, newproc;
	unsigned int api = seccomp_api_get();
	int pidfd_getfd, status;

	/* The facts the planner decides on (probe.h), every one asked. */
	probe_init(&facts);
	userns = probe_userns(&facts, &userns_why);
	ns_probe_reap();
	supervisor = probe_supervisor(&facts, &supervisor_why);
	bwrap_ok = probe_bwrap(&facts, &bwrap_why);
	ll = ruleset_describe(k);
	maxns = file_read_line("/proc/sys/user/max_user_namespaces", 4096);
	clone = file_read_line("/proc/sys/kernel/unprivileged_userns_clone",
			       4096);
	apparmor = file_read_line(
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 4096);
	yama = file_read_line("/proc/sys/kernel/yama/ptrace_scope", 4096);
	fallback = bwrap_fallback_wanted(k);
	pidfd_getfd = sys_pidfd_getfd(-1, 0, 0) < 0 && errno == ENOSYS ? 0 : 1;

	fprintf(f, "llwrap:          %s, linked: %s\n", PACKAGE_VERSION,
		LLW_LINKING);
	fprintf(f, "Landlock:        %s\n", ll);
	fprintf(f, "seccomp:         libseccomp %u.%u.%u, API level %u%s\n",
		SCMP_VER_MAJOR, SCMP_VER_MINOR, SCMP_VER_MICRO, api,
		api >= 6 ? " (user notification usable)" : "");
	fprintf(f, "user namespaces: %s",
		userns ? "unprivileged creation works"
		       : "unprivileged creation refused");
	if (!userns)
		fprintf(f, " (%s)", userns_why);
	fprintf(f, "\n  user.max_user_namespaces = %s\n",
		maxns ? maxns : "(absent)");
	if (clone)
		fprintf(f, "  kernel.unprivileged_userns_clone = %s\n", clone);
	if (apparmor)
		fprintf(f,
			"  kernel.apparmor_restrict_unprivileged_userns = "
			"%s\n",
			apparmor);
	{
		_cleanup_free_ char *fix = ns_apparmor_fix(apparmor, userns);

		if (fix != NULL)
			fprintf(f, "  fix: %s\n", fix);
	}
	fprintf(f, "pidfd_getfd:     %s\n",
		pidfd_getfd ? "in the kernel (whether it may be used: S below)"
			    : "missing (Linux < 5.6)");
	fprintf(f, "Yama:            %s\n",
		yama ? yama : "not present (ptrace limited by Landlock only)");
	{
		const struct contain *c = probe_container(&facts);
		const char *rt = contain_runtime_name(c);

		fprintf(f, "container:       %s\n", rt ? rt : "none seen");
		fprintf(f, "pid namespace:   %s\n",
			facts.pidns_nested ? "not the host's (only its own "
					     "processes have a pid here)"
					   : "the host's");
		if (c->seccomp == 2)
			fprintf(f, "seccomp filter:  %d inherited (%s)%s\n",
				c->seccomp_filters,
				c->outer_llwrap ? "an outer llwrap's"
				: rt != NULL	? "the container's"
						: "not llwrap's",
				c->no_new_privs ? ", no_new_privs set" : "");
		else
			fprintf(f, "seccomp filter:  none inherited\n");
	}
	fprintf(f, "bwrap:           %s%s\n",
		bwrap->path ? bwrap->path : "not found",
		bwrap->path == NULL ? ""
		: bwrap->setuid	    ? " (setuid root)"
				    : " (not setuid: needs user namespaces)");
	fprintf(f, "\nLayers:\n");
	fprintf(f, "  L1 Landlock     %s\n",
		k->abi > 0 ? "usable" : "unavailable");
	fprintf(f, "  L2 seccomp      usable\n");
	fprintf(f, "  L3 namespaces   %s\n",
		userns ? "usable (when the policy needs it)"
		       : "unavailable: policies that need it fail closed");
	newproc = userns && probe_newproc(&facts, &proc_why);
	if (userns && !newproc)
		fprintf(f, "     a new /proc (hide-processes): %s\n", proc_why);
	if (supervisor)
		fprintf(f, "  S  supervisor   usable%s%s%s\n",
			facts.supervisor_form ? " (" : "",
			facts.supervisor_form ? facts.supervisor_form : "",
			facts.supervisor_form ? ")" : "");
	else
		fprintf(f, "  S  supervisor   unavailable: %s\n",
			supervisor_why);
	if (bwrap_ok)
		fprintf(f, "  F  bubblewrap   usable (--backend=bwrap)\n");
	else
		fprintf(f, "  F  bubblewrap   unavailable: %s\n", bwrap_why);
	fprintf(f, "Backend (auto):   %s\n",
		k->abi > 0	       ? "landlock"
		: fallback && bwrap_ok ? "bwrap (Landlock is missing)"
				       : "none: only seccomp (needs "
					 "--best-effort)");
	check_restrictions(f,
			   &(struct layers_facts){
				   .abi = k->abi,
				   .userns = userns,
				   .supervisor = supervisor,
				   .bwrap = k->abi == 0 && fallback && bwrap_ok,
				   .newproc_refused = userns && !newproc,
				   .pidns_nested = facts.pidns_nested,
			   });
	status = k->abi > 0 || (fallback && bwrap_ok) ? 0 : 1;
	probe_clear(&facts);
	return status;
}
