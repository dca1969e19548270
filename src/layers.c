/*
 * Layer substitution: the table of DESIGN.md §14, one row a restriction,
 * its layers in order of preference.
 */
#include <stddef.h>
#include <string.h>

#include "cleanup.h"
#include "layers.h"
#include "xalloc.h"

struct candidate {
	enum layers_id layer;
	int abi; /* for LAYER_L1: the Landlock ABI the right needs; for
		  * LAYER_L2: 1 when it needs a port-less policy; for
		  * LAYER_L3: 1 when it needs a new /proc */
	const char *how;
};

struct row {
	const char *name;
	const char *order;
	struct candidate c[3];
};

static const struct row table[LAYERS_N] = {
	[LAYERS_FS_ALLOWLIST] = {
		"the filesystem allow-list",
		"Landlock, then bubblewrap's mounts",
		{ { LAYER_L1, 1, "Landlock filesystem rules" },
		  { LAYER_F, 0, "bubblewrap mounts only the allowed paths" } },
	},
	[LAYERS_TRUNCATE] = {
		"truncate(2) of files outside writable roots",
		"Landlock ABI 3, then the L3 read-only view, then bubblewrap's "
		"read-only mounts",
		{ { LAYER_L1, 3, "Landlock ABI 3 truncate right" },
		  { LAYER_L3, 0, "the read-only view (EROFS)" },
		  { LAYER_F, 0, "bubblewrap's read-only mounts (EROFS)" } },
	},
	[LAYERS_METADATA] = {
		"chmod, chown, utimes and xattrs of files outside writable "
		"roots",
		"the L3 read-only view, then bubblewrap's read-only mounts "
		"(Landlock has no right for them)",
		{ { LAYER_L3, 0, "the read-only view (EROFS)" },
		  { LAYER_F, 0, "bubblewrap's read-only mounts (EROFS)" } },
	},
	[LAYERS_MASKS] = {
		"narrower rules inside writable directories",
		"L3 mount masks, then bubblewrap's mounts",
		{ { LAYER_L3, 0, "mount masks" },
		  { LAYER_F, 0, "bubblewrap mounts over the writable tree" } },
	},
	[LAYERS_TCP_PORTS] = {
		"TCP bind/connect port rules",
		"Landlock ABI 4, then seccomp (no port allowed at all), then "
		"the supervisor",
		{ { LAYER_L1, 4, "Landlock ABI 4 port rules" },
		  { LAYER_L2, 1,
		    "seccomp refuses inet sockets (the policy allows no "
		    "port)" },
		  { LAYER_S, 0,
		    "the supervisor checks each connect and bind and performs "
		    "it" } },
	},
	[LAYERS_UDP_PORTS] = {
		"UDP port rules (connect-udp, bind-udp)",
		"Landlock ABI 10, then the supervisor",
		{ { LAYER_L1, 10, "Landlock ABI 10 UDP port rules" },
		  { LAYER_S, 0,
		    "the supervisor checks each bind and send with a "
		    "destination and performs it" } },
	},
	[LAYERS_PATH_UNIX] = {
		"denial of pathname unix sockets outside the sandbox",
		"Landlock ABI 9, then the supervisor",
		{ { LAYER_L1, 9, "Landlock ABI 9 RESOLVE_UNIX, per socket" },
		  { LAYER_S, 0, "the supervisor's unix allow-list" } },
	},
	[LAYERS_ABSTRACT_UNIX] = {
		"isolation from abstract unix sockets outside the sandbox",
		"Landlock ABI 6, then the supervisor",
		{ { LAYER_L1, 6, "Landlock ABI 6 abstract-unix scope" },
		  { LAYER_S, 0,
		    "the supervisor allows only names the sandbox bound" } },
	},
	[LAYERS_SIGNALS] = {
		"isolation from signalling processes outside the sandbox",
		"Landlock ABI 6, then an L3 pid namespace, then bubblewrap's "
		"pid namespace",
		{ { LAYER_L1, 6, "Landlock ABI 6 signal scope" },
		  { LAYER_L3, 0, "a pid namespace: host processes have no pid "
				 "inside" },
		  { LAYER_F, 0, "bubblewrap's pid namespace" } },
	},
	[LAYERS_PROCESSES] = {
		"hiding processes outside the sandbox (hide-processes)",
		"an L3 pid namespace with a new /proc, then bubblewrap's, then "
		"the pid namespace llwrap runs in (a container's)",
		{ { LAYER_L3, 1,
		    "a pid namespace with a new /proc: only the sandbox's "
		    "processes" },
		  { LAYER_F, 0, "bubblewrap's pid namespace and /proc" },
		  { LAYER_C, 0,
		    "the pid namespace llwrap runs in (the container's): "
		    "the host's processes have no pid there; the container's "
		    "other processes stay visible in /proc (Landlock keeps "
		    "their memory, environment and descriptors out of "
		    "reach)" } },
	},
	[LAYERS_HELD] = {
		"write masks of git's and the later-run files (protect-git, "
		"protect-later-run)",
		"L3 mount masks, then bubblewrap's mounts, then the monitor",
		{ { LAYER_L3, 0, "read-only mounts, pins" },
		  { LAYER_F, 0, "bubblewrap's read-only binds" },
		  { LAYER_M, 0,
		    "the monitor outside the command: a change moved aside "
		    "(an unsafe git config, a new or changed hook, a changed "
		    "later-run file) and the start's content restored, each "
		    "named after the run; nothing renamed or linked in from "
		    "another directory (Landlock withholds REFER beneath the "
		    "project: EXDEV); known limit: the instant before the "
		    "move, when a process outside reading then sees the "
		    "change" } },
	},
	[LAYERS_PRIVATE_TMP] = {
		"a private /tmp (private-tmp)",
		"L3 tmpfs mounts, then bubblewrap's, then a directory of the "
		"run's own",
		{ { LAYER_L3, 0, "empty tmpfs mounts on /tmp, /var/tmp and "
				 "/dev/shm" },
		  { LAYER_F, 0, "bubblewrap's tmpfs mounts" },
		  { LAYER_M, 0,
		    "a directory of the run's own as TMPDIR, made before the "
		    "command and removed after it by the monitor; /tmp and "
		    "/var/tmp themselves refused (EACCES); /dev/shm only in "
		    "an IPC namespace of the container's own" } },
	},
};

static bool
has_layer(const struct candidate *c, const struct layers_facts *f)
{
	switch (c->layer) {
	case LAYER_L1:
		return !f->bwrap && f->abi >= c->abi;
	case LAYER_L2:
		return c->abi == 0 || f->portless;
	case LAYER_L3:
		return !f->bwrap && f->userns &&
		       (c->abi == 0 || !f->newproc_refused);
	case LAYER_S:
		return !f->bwrap && f->supervisor;
	case LAYER_F:
		return f->bwrap;
	case LAYER_C:
		return f->pidns_nested;
	case LAYER_M:
		return !f->bwrap;
	case LAYER_NONE:
		break;
	}
	return false;
}

enum layers_id
layers_choose(enum layers_restriction r, const struct layers_facts *f)
{
	if ((unsigned)r >= LAYERS_N)
		return LAYER_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(table[r].c); i++) {
		const struct candidate *c = &table[r].c[i];

		if (c->layer != LAYER_NONE && has_layer(c, f))
			return c->layer;
	}
	return LAYER_NONE;
}

void
layers_account(const bool asked[LAYERS_N], const struct layers_facts *f,
	       const struct layers_run *run,
	       enum layers_id enforced_by[LAYERS_N])
{
	for (int r = 0; r < LAYERS_N; r++) {
		enum layers_id l = asked[r] ? layers_choose(r, f) : LAYER_NONE;

		/* bubblewrap enforces what its plan does not list as lost
		 * (the network rules by a private network namespace). */
		if (run->bwrap && asked[r])
			l = run->bwrap_loses[r] ? LAYER_NONE : LAYER_F;
		/* ... but the supervisor performs every connect, bind and
		 * send with a destination there. */
		if (run->bwrap && asked[r] && run->supervisor &&
		    (r == LAYERS_TCP_PORTS || r == LAYERS_UDP_PORTS ||
		     r == LAYERS_PATH_UNIX))
			l = LAYER_S;
		/* L3 stops signals only with a pid namespace. */
		if (r == LAYERS_SIGNALS && l == LAYER_L3 && !run->pid_ns)
			l = LAYER_NONE;
		/* ... and hides processes only with one. */
		if (r == LAYERS_PROCESSES && l == LAYER_L3 && !run->pid_ns)
			l = f->pidns_nested ? LAYER_C : LAYER_NONE;
		enforced_by[r] = l;
	}
}

const char *
layers_restriction_name(enum layers_restriction r)
{
	return (unsigned)r < LAYERS_N ? table[r].name : "";
}

const char *
layers_order(enum layers_restriction r)
{
	return (unsigned)r < LAYERS_N ? table[r].order : "";
}

const char *
layers_short_name(enum layers_id l)
{
	static const char *const names[] = {
		[LAYER_NONE] = "none", [LAYER_L1] = "L1", [LAYER_L2] = "L2",
		[LAYER_L3] = "L3",     [LAYER_S] = "S",	  [LAYER_F] = "F",
		[LAYER_C] = "C",       [LAYER_M] = "M",
	};

	return (unsigned)l < ARRAY_SIZE(names) ? names[l] : "none";
}

const char *
layers_how(enum layers_restriction r, enum layers_id l)
{
	if ((unsigned)r >= LAYERS_N)
		return "";
	for (size_t i = 0; i < ARRAY_SIZE(table[r].c); i++)
		if (table[r].c[i].layer == l && l != LAYER_NONE)
			return table[r].c[i].how;
	return "no layer on this system";
}

char *
layers_apparmor_fix(const char *restrict_sysctl, bool userns, bool installed,
		    bool nixos, const char *shipped, const char *bindir)
{
	if (userns || restrict_sysctl == NULL ||
	    strcmp(restrict_sysctl, "1") != 0)
		return NULL;
	if (installed)
		return xasprintf("AppArmor restricts unprivileged user "
				 "namespaces (kernel.apparmor_restrict_"
				 "unprivileged_userns = 1) and llwrap's "
				 "profile is installed but not in force for "
				 "this binary: load it with 'sudo "
				 "apparmor_parser -r /etc/apparmor.d/llwrap' "
				 "(it applies to %s/llwrap)",
				 bindir);
	if (nixos)
		return xasprintf("AppArmor restricts unprivileged user "
				 "namespaces (kernel.apparmor_restrict_"
				 "unprivileged_userns = 1): give llwrap its "
				 "profile in the NixOS configuration, "
				 "'security.apparmor.policies.llwrap.profile "
				 "= \"include \\\"%s\\\"\";', and rebuild "
				 "(the services.opencode module does it for "
				 "the llwrap it runs; it applies to %s/llwrap)",
				 shipped, bindir);
	return xasprintf("AppArmor restricts unprivileged user namespaces "
			 "(kernel.apparmor_restrict_unprivileged_userns = 1): "
			 "give llwrap its profile with 'sudo install -m 644 "
			 "%s /etc/apparmor.d/llwrap && sudo apparmor_parser "
			 "-r /etc/apparmor.d/llwrap' (it applies to "
			 "%s/llwrap)",
			 shipped, bindir);
}
