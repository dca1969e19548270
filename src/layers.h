/*
 * Layer substitution (DESIGN.md §2 "Fail closed", §14): for each
 * restriction a policy can ask for, the ordered list of layers that can
 * enforce it, and the choice of the first one this kernel has; then,
 * once sandbox.c knows what runs, the layer each asked restriction gets.
 * llwrap refuses a restriction only when no layer of its list is
 * available.
 *
 * Pure: the kernel facts come from the caller (sandbox.c probes them,
 * tests/unit/test-layers.c simulates them).
 */
#ifndef LLW_LAYERS_H
#define LLW_LAYERS_H

#include <stdbool.h>

enum layers_restriction {
	LAYERS_FS_ALLOWLIST,  /* the filesystem allow-list */
	LAYERS_TRUNCATE,      /* truncate(2) outside writable roots */
	LAYERS_METADATA,      /* chmod/chown/utime/xattr outside them */
	LAYERS_MASKS,	      /* deny/ro inside a writable tree */
	LAYERS_TCP_PORTS,     /* connect-tcp / bind-tcp port rules */
	LAYERS_UDP_PORTS,     /* connect-udp / bind-udp port rules */
	LAYERS_PATH_UNIX,     /* pathname unix sockets outside the sandbox */
	LAYERS_ABSTRACT_UNIX, /* abstract unix sockets outside the sandbox */
	LAYERS_SIGNALS,	      /* signals to processes outside the sandbox */
	LAYERS_PROCESSES,     /* processes outside the sandbox unseen */
	LAYERS_HELD,	      /* git's and the later-run files' write masks */
	LAYERS_PRIVATE_TMP,   /* private-tmp: no shared /tmp */
	LAYERS_N,
	LAYERS_NONE = LAYERS_N, /* a loss no other layer can take over */
};

enum layers_id {
	LAYER_NONE = 0,
	LAYER_L1, /* Landlock */
	LAYER_L2, /* seccomp */
	LAYER_L3, /* unprivileged namespaces */
	LAYER_S,  /* the network supervisor */
	LAYER_F,  /* the bubblewrap backend */
	LAYER_C,  /* the container llwrap runs in */
	LAYER_M,  /* the monitor outside the command (watchlater.h) */
};

/* What the running system offers, as sandbox.c found it. */
struct layers_facts {
	int abi;	 /* Landlock ABI; 0: unavailable */
	bool userns;	 /* unprivileged user namespaces work (L3) */
	bool supervisor; /* seccomp user notification, pidfd_getfd, Yama */
	bool bwrap;	 /* the backend is bubblewrap (F) */
	/* The kernel refuses L3 a new /proc (a container's masked paths),
	 * so L3 makes no pid namespace (whose pids only a new /proc
	 * shows). */
	bool newproc_refused;
	/* llwrap's own pid namespace is not the host's (C). */
	bool pidns_nested;
	/* Not a kernel fact: the policy (filtered) allows no TCP or UDP port
	 * at all, so seccomp can refuse inet sockets outright (L2). */
	bool portless;
};

/*
 * The layer that enforces r with facts f: the first of r's list that f
 * has, or LAYER_NONE.  Landlock counts only from the ABI the right
 * needs; on the bubblewrap backend Landlock is not used and the
 * supervisor cannot run (bwrap stays as the monitor itself).
 */
enum layers_id layers_choose(enum layers_restriction r,
			     const struct layers_facts *f);

/* What runs, beyond what the system offers: sandbox.c's choices. */
struct layers_run {
	bool bwrap;		    /* bubblewrap's plan runs the command */
	bool bwrap_loses[LAYERS_N]; /* ... and cannot enforce these */
	bool supervisor;	    /* the supervisor runs */
	bool pid_ns;		    /* L3 makes a pid namespace */
};

/*
 * Fill enforced_by[r], for every restriction, with the layer that
 * enforces it: LAYER_NONE where asked[r] is false, else layers_choose()
 * with f, except that under bubblewrap's plan it is F for what the plan
 * does not lose and LAYER_NONE for what it loses, and S for the TCP, UDP
 * and pathname unix rules when the supervisor runs there (it performs
 * those calls); and that L3 stops signals and hides processes only with
 * a pid namespace (processes then fall to C where f has it).
 */
void layers_account(const bool asked[LAYERS_N], const struct layers_facts *f,
		    const struct layers_run *run,
		    enum layers_id enforced_by[LAYERS_N]);

/* "TCP bind/connect port rules", ... */
const char *layers_restriction_name(enum layers_restriction r);

/* "L1", "L2", "L3", "S", "F", "C", "M", "none". */
const char *layers_short_name(enum layers_id l);

/*
 * How layer l enforces r, for --explain and --check: "Landlock ABI 4
 * port rules", "the supervisor performs the call", ...  A static string.
 */
const char *layers_how(enum layers_restriction r, enum layers_id l);

/*
 * The whole list for r, for the manual and --check: "Landlock ABI 4,
 * then the supervisor".  A static string.
 */
const char *layers_order(enum layers_restriction r);

/*
 * The remedy for AppArmor's restriction of unprivileged user namespaces
 * (Ubuntu 24.04's default), for --check and for L3's refusal: the one
 * command that lets llwrap create them.  restrict_sysctl is the text of
 * /proc/sys/kernel/apparmor_restrict_unprivileged_userns (NULL: absent),
 * userns whether creating one works, installed whether the profile is in
 * /etc/apparmor.d/llwrap, nixos whether this is NixOS (/etc/NIXOS: its
 * /etc/apparmor.d is generated from the configuration), shipped the copy
 * llwrap installs in its data directory, bindir where llwrap is
 * installed.  A new sentence, or NULL when AppArmor is not what stops
 * user namespaces.
 */
char *layers_apparmor_fix(const char *restrict_sysctl, bool userns,
			  bool installed, bool nixos, const char *shipped,
			  const char *bindir);

#endif /* LLW_LAYERS_H */
