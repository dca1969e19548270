/*
 * The bubblewrap fallback (layer F, DESIGN.md §2): when Landlock is
 * missing, or with --backend=bwrap, the compiled policy becomes a
 * bwrap(1) command line and llwrap execs bwrap, which becomes the
 * monitor of the sandbox.
 *
 * The policy maps onto mounts: a path with no rule is not mounted at all
 * (it does not exist inside), ro and rx rules are read-only binds, rw
 * and rwx rules writable binds, and the masks of the plan are applied on
 * top, parents first: a denied file an empty read-only file of mode 0000,
 * a denied directory an empty read-only tmpfs of mode 0111 (neither an
 * open nor a watch; EACCES).  Of the nodes bwrap's --dev makes, those no
 * rule grants are covered (mode 0000: neither an open nor a watch).
 * Every namespace is unshared; the network is shared only when the policy lets
 * the command reach the outside.  The seccomp filter of L2 is handed to bwrap
 * as a BPF program in a memfd.
 *
 * bwrap_plan_new() and bwrap_argv() are pure (golden-tested); the rest
 * look at the system or exec.
 */
#ifndef LLW_BWRAP_H
#define LLW_BWRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/filter.h>
#include <seccomp.h>

#include "pathtree.h"
#include "ruleset.h"

/* A symlink on the way to a rule's path, recreated inside the sandbox so
 * the configured path (say /lib64, a link to usr/lib64) still leads to
 * the mounted target. */
struct bwrap_symlink {
	char *path;   /* where the link is, its parent resolved */
	char *target; /* what it contains, as readlink(2) gives it */
};

/* The bwrap binary llwrap would run. */
struct bwrap_binary {
	char *path;  /* NULL when none was found */
	bool setuid; /* installed setuid root: no user namespace needed */
};

/* What the bubblewrap backend will do for one policy. */
struct bwrap_plan {
	bool share_net; /* --share-net: the command reaches the host network */
	bool dev;	/* a private /dev (bwrap --dev) */
	bool proc;	/* a /proc of the sandbox's pid namespace */
	/* private-tmp: the size of the tmpfs on /tmp and /var/tmp (bwrap
	 * --size), 0 for bwrap's default. */
	uint64_t tmpfs_size;
	bool private_tmp; /* tmpfs on policy_private_tmps */
	/* The project's access: where it lies in a private tmp, it is bound
	 * into the new tmpfs with it (as L3 binds it), unless denied. */
	enum llw_access project_access;
	const char *project;	     /* borrowed, as the next three */
	const char *workdir;	     /* where the command starts */
	struct llw_items unix_paths; /* bound for the supervisor */
	struct bwrap_symlink *symlinks;
	size_t n_symlinks;
	/* The nodes bwrap's --dev makes that no rule grants (/dev/random,
	 * /dev/pts, ...), covered so that they neither open nor take a
	 * watch */
	char **dev_hidden;
	/* What bwrap cannot enforce, in the form of ruleset.c's losses. */
	struct ruleset_loss *losses;
	size_t n_losses;
};

/*
 * Whether --backend=auto falls back to bubblewrap on kernel k: Landlock
 * is missing (not built in: ENOSYS; disabled at boot: EOPNOTSUPP).
 */
bool bwrap_fallback_wanted(const struct ruleset_kernel *k);

/*
 * Whether root, run as root in bubblewrap's user namespace (which maps
 * uid 0 and gid 0 alone), may search a directory of owner uid, group
 * gid and mode: its capabilities there override permissions only on
 * files whose owner and group both map (root's own); any other
 * directory is searched by its mode bits, as root's class sees them.
 */
bool bwrap_root_enters(uid_t uid, gid_t gid, mode_t mode);

/*
 * For root: the first directory on the way to a rule's path, or to the
 * project bp grants, that bubblewrap's user namespace cannot enter
 * (bwrap_root_enters), as a refusal naming it and the way out, or NULL
 * when there is none.
 */
char *bwrap_root_unreachable(const struct bwrap_plan *bp,
			     const struct plan *fs);

/*
 * Find bwrap: /usr/bin/bwrap first (Ubuntu's AppArmor profile lets only
 * that path create user namespaces), then /run/wrappers/bin/bwrap
 * (NixOS), then each directory of path_env (a PATH value, may be NULL).
 * Fills b; b->path stays NULL when none is executable.
 */
void bwrap_find(const char *path_env, struct bwrap_binary *b);

void bwrap_binary_clear(struct bwrap_binary *b);

/*
 * The symlinks on the way to each path of paths (NULL-terminated: the
 * granted ones; a deny needs none, the target is hidden anyway).  Reads
 * the filesystem (lstat, readlink, realpath); a path that cannot be
 * walked contributes nothing.
 */
void bwrap_find_symlinks(char *const *paths, struct bwrap_symlink **out,
			 size_t *n);

/*
 * Decide the namespaces and mounts for in with the compiled plan fs
 * (compiled with masks) and the symlinks found, and list what bubblewrap
 * cannot enforce.  Pure; copies links, borrows in->unix_paths.  The
 * caller (the planner) sets private_tmp, tmpfs_size, project,
 * project_access and workdir.
 *
 *  - net = none, or filtered without any port: a private network
 *    namespace with only lo (no host network at all, loopback works).
 *    filtered with ports, or host: the host network; under filtered the
 *    port rules are lost (fatal), because bwrap has no port filtering.
 *  - Abstract unix sockets belong to the network namespace, signals and
 *    ptrace to the pid namespace: both are isolated by the namespaces,
 *    except abstract sockets under the host network when the policy
 *    allows AF_UNIX (fatal, like the pathname sockets bwrap cannot
 *    filter either).
 *  - bwrap cannot mount noexec: execute denial on ro and rw paths is
 *    lost, but not a hole (ld.so and interpreters run code anyway), and
 *    the command itself is still checked before exec.
 */
struct bwrap_plan *bwrap_plan_new(const struct ruleset_inputs *in,
				  const struct plan *fs,
				  const struct bwrap_symlink *links,
				  size_t n_links);

void bwrap_plan_free(struct bwrap_plan *bp);

/* True when some loss is fatal and the run is not best effort. */
bool bwrap_plan_must_fail(const struct bwrap_plan *bp, bool best_effort);

/*
 * Whether bwrap_argv mounts the mask at path: not one in a private tmp's
 * new tmpfs that neither holds the project nor lies in it (the tmpfs has
 * nothing there to mask).  The watch on the view looks for the others
 * (maskwatch.h).  Pure.
 */
bool bwrap_mounts_mask(const struct bwrap_plan *bp, const char *path);

/* How many empty files bwrap_argv reads (one descriptor each): the
 * covers in /dev and the denied files' masks. */
size_t bwrap_empty_files(const struct bwrap_plan *bp, const struct plan *fs);

/*
 * The bwrap argument vector (without the program name) that runs argv in
 * bp->workdir with the mounts of bp and fs, the seccomp program read
 * from seccomp_fd (-1: none), the covers of bp->dev_hidden and the
 * denied files' masks from empty_fds (bwrap_empty_files of them, each at
 * its end, which bwrap reads and closes), everything unshared, capabilities
 * dropped. Pure.  The environment is not in it: bwrap gets the command's
 * environment as its own (an argument vector is world-readable in /proc,
 * an environment is not).
 */
char **bwrap_argv(const struct bwrap_plan *bp, const struct plan *fs,
		  int seccomp_fd, const int *empty_fds, char *const *argv);

/*
 * argv as text, one option with its arguments per line, arguments that
 * need it in single quotes.  For --explain and the golden files.
 */
char *bwrap_argv_format(char *const *argv);

/*
 * Whether the sandbox lets path (resolved) run: 0, -ENOENT when it is
 * not mounted at all, -EACCES when it is but the policy grants no
 * execute there.  Pure.  bwrap cannot deny execute inside the sandbox,
 * so llwrap applies this to the command it starts.
 */
int bwrap_exec_allowed(const struct plan *fs, const char *path);

/*
 * Run argv under bwrap: check the command as execvp(3) would find it
 * with env's PATH (status 127 when it is not there, 126 when the policy
 * does not let it run), write prog into a memfd, close the inherited fds
 * but keep (n_keep) and the memfd, and exec bwrap with env as its
 * environment.  Returns only on failure: -errno with *cause and *status.
 */
int bwrap_exec(const struct bwrap_binary *b, const struct bwrap_plan *bp,
	       const struct plan *fs, const struct sock_fprog *prog,
	       char *const *argv, char *const *env, const int *keep,
	       size_t n_keep, int *status, char **cause);

#endif /* LLW_BWRAP_H */
