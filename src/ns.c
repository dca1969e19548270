/*
 * Layer L3: unprivileged namespaces.
 *
 * ns_unshare() runs in the outer process: it creates a user namespace
 * mapping the caller 1:1 and, owned by it, ipc and (when asked) network
 * and pid namespaces, and the mount namespace unless a pid namespace
 * is asked for.  ns_setup() runs in the process that goes on towards exec
 * (pid 1 of the new pid namespace, which then makes the mount namespace,
 * or the process itself): it builds the mount view and brings lo up.
 *
 * What the mount view holds is decided in viewplan.c, without the
 * kernel; it is built here with the new mount API (open_tree, fsopen,
 * mount_setattr, move_mount, Linux 5.12), in three steps:
 *
 *  1. Every source is acquired while the tree is still as the host has
 *     it: a detached recursive clone of each writable root (so it keeps
 *     the host's own flags: writable where the host has it writable, and
 *     read-only submounts stay read-only), of each mask's real path, and
 *     new tmpfs and proc instances.
 *  2. The whole tree is made read-only with one recursive mount_setattr:
 *     chmod, chown, utimensat and setxattr on anything outside the
 *     writable roots now fail with EROFS, which Landlock cannot give.
 *  3. The sources are attached in path order, parents first, so a mask
 *     lands on top of the writable root it narrows, and a mask beneath
 *     another re-exposes the real path with its own access.
 *
 * Sealed (o->seal, viewplan.h), step 1 also makes each sealed
 * directory's tmpfs, reads the symbolic links to make again and fills
 * each tmpfs with its entries (after step 1, so each has its fd); the
 * clones of what may be read are taken after step 2, read-only with the
 * tree, before step 3 covers anything; the placeholders are bound last,
 * cloned from their tmpfs once it is attached (view_placeholders).
 *
 * A mount point cannot be removed or renamed (EBUSY), so the command
 * cannot unlink a masked file to replace it with its own.
 */
#ifndef LLW_LINK_NL
#include <dlfcn.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if_addr.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netlink/addr.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>

#include "cleanup.h"
#include "contain.h"
#include "fdutil.h"
#include "layers.h"
#include "maskwatch.h"
#include "ns.h"
#include "testhook.h"
#include "viewplan.h"
#include "xalloc.h"

static bool
sysctl_is(const char *path, const char *value)
{
	_cleanup_free_ char *s = file_read_line(path, 256);

	return s != NULL && strcmp(s, value) == 0;
}

char *
ns_apparmor_fix(const char *restrict_sysctl, bool userns)
{
	return layers_apparmor_fix(restrict_sysctl, userns,
				   access("/etc/apparmor.d/llwrap", F_OK) == 0,
				   access("/etc/NIXOS", F_OK) == 0,
				   LLW_PKGDATADIR "/apparmor/llwrap",
				   LLW_BINDIR);
}

/* The reason a user namespace was refused with err, as a sentence. */
static char *
refusal_cause(int err)
{
	if (err == EPERM) {
		struct contain c;
		char *cause;

		contain_read(&c);
		cause = contain_filter_cause(
			&c, "new user namespaces",
			"unshare, clone with CLONE_NEWUSER");
		if (cause != NULL)
			return cause;
	}
	if (sysctl_is("/proc/sys/user/max_user_namespaces", "0"))
		return xstrdup(
			"user namespaces are disabled: "
			"user.max_user_namespaces = 0 (raise it, "
			"e.g. sysctl -w user.max_user_namespaces=10000)");
	if (sysctl_is("/proc/sys/kernel/unprivileged_userns_clone", "0"))
		return xstrdup("unprivileged user namespaces are disabled: "
			       "kernel.unprivileged_userns_clone = 0 (enable "
			       "them with sysctl -w "
			       "kernel.unprivileged_userns_clone=1)");
	if (sysctl_is("/proc/sys/kernel/"
		      "apparmor_restrict_unprivileged_userns",
		      "1"))
		return ns_apparmor_fix("1", false);
	if (err == ENOSPC)
		return xstrdup("the limit on user namespaces is reached "
			       "(user.max_user_namespaces, or the nesting "
			       "depth of 32)");
	return xasprintf("creating a user namespace failed: %s (a "
			 "distribution policy may forbid it: look at "
			 "user.max_user_namespaces, "
			 "kernel.unprivileged_userns_clone and "
			 "kernel.apparmor_restrict_unprivileged_userns)",
			 strerror(err));
}

/* The probe child shares this process's memory (CLONE_VM) and runs while
 * it is suspended (CLONE_VFORK), so a static stack and result are safe. */
static char probe_stack[16384] __attribute__((aligned(16)));
static int probe_err;

static int
probe_child(void *arg)
{
	if (*(bool *)arg &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		probe_err = errno;
	return 0;
}

/* The child of a probe that clone() alone answers: it exits at once,
 * touching nothing of this process's but its own stack (no errno), and
 * is reaped once the plan is made (ns_probe_reap): by then it has had
 * the plan's time to exit, and no child of llwrap's but its own is left
 * for the run (a test, or a user, counts them). */
static char probe_exit_stack[16384] __attribute__((aligned(16)));
static pid_t probe_unreaped;

static int
probe_exit(void *arg)
{
	(void)arg;
	return 0;
}

void
ns_probe_reap(void)
{
	if (probe_unreaped > 0)
		while (waitpid(probe_unreaped, NULL, 0) < 0 && errno == EINTR)
			;
	probe_unreaped = 0;
}

enum ns_precheck
ns_precheck(char **cause)
{
	int err;

	if (testhook_userns_refused(&err)) {
		*cause = refusal_cause(err);
		return NS_REFUSED;
	}
	/* Where AppArmor restricts user namespaces the namespace is
	 * created but has no capabilities (unless a profile allows it):
	 * only a namespace that makes a mount private tells.  Elsewhere
	 * the unshare itself answers, and refusal_cause() reads the other
	 * sysctls then. */
	if (sysctl_is("/proc/sys/kernel/"
		      "apparmor_restrict_unprivileged_userns",
		      "1"))
		return NS_PROBE;
	return NS_UNKNOWN;
}

bool
ns_available(char **cause)
{
	enum ns_precheck pre = ns_precheck(cause);
	bool apparmor = pre == NS_PROBE;
	pid_t pid;
	int st, flags;

	if (pre == NS_REFUSED)
		return false;
	/* The sysctls answer without a process when they say no. */
	if (sysctl_is("/proc/sys/user/max_user_namespaces", "0") ||
	    sysctl_is("/proc/sys/kernel/unprivileged_userns_clone", "0")) {
		*cause = refusal_cause(EPERM);
		return false;
	}
	/*
	 * A child is created in a new user namespace, so this process
	 * stays as it was: clone() itself fails when the kernel refuses
	 * the namespace (the namespace is made in this call, by this
	 * process), so this process does not wait for the child, which
	 * exits at once and is reaped once the plan is made: waiting for
	 * it (CLONE_VFORK) was a wait for its turn on a CPU, 0.07 ms on an
	 * idle machine, near 1 ms on a loaded one, on the start-up's path.
	 * Under AppArmor's restriction the child also makes a mount
	 * private, which needs capabilities in it, and is waited for.
	 * CLONE_VM spares copying this process.
	 */
	ns_probe_reap();
	if (!apparmor) {
		sigset_t all, old;
		int err;

		/* It runs beside this process, in its memory: no handler
		 * of this process's may run in it (its mask is ours). */
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		pid = clone(probe_exit,
			    probe_exit_stack + sizeof(probe_exit_stack),
			    CLONE_NEWUSER | CLONE_VM | SIGCHLD, NULL);
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pid < 0) {
			*cause = refusal_cause(err);
			return false;
		}
		probe_unreaped = pid;
		return true;
	}
	flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_VM | CLONE_VFORK | SIGCHLD;
	probe_err = 0;
	pid = clone(probe_child, probe_stack + sizeof(probe_stack), flags,
		    &apparmor);
	if (pid < 0) {
		*cause = refusal_cause(errno);
		return false;
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st)) {
		*cause = xstrdup("the user namespace probe did not exit");
		return false;
	}
	if (probe_err != 0) {
		*cause = refusal_cause(probe_err);
		return false;
	}
	return true;
}

static int
write_file(const char *path, const char *text)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	return 0;
}

int
ns_unshare(const struct ns_opts *o, char **cause)
{
	int flags = CLONE_NEWUSER | CLONE_NEWIPC;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int r;

	/* With a pid namespace the outer process stays as the monitor (and
	 * the network supervisor): it keeps the host's mount view, so its
	 * /proc stays the one where the command's pids make sense, and pid 1
	 * makes the mount namespace (ns_setup).  Without one, this process
	 * goes on to exec and makes it here. */
	if (o->pid)
		flags |= CLONE_NEWPID;
	else
		flags |= CLONE_NEWNS;
	if (o->net)
		flags |= CLONE_NEWNET;
	if (testhook_userns_refused(&r)) {
		*cause = refusal_cause(r);
		return -EPERM;
	}
	if (unshare(flags) < 0) {
		*cause = refusal_cause(errno);
		return -EPERM;
	}
	/* setgroups must be denied before an unprivileged gid_map is
	 * written; nothing inside needs supplementary groups changed. */
	if ((r = write_file("/proc/self/setgroups", "deny")) < 0 &&
	    r != -ENOENT) {
		*cause = xasprintf("cannot write /proc/self/setgroups: %s",
				   strerror(-r));
		return r;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if ((r = write_file("/proc/self/uid_map", map)) < 0) {
		*cause =
			xasprintf("cannot write the uid map: %s", strerror(-r));
		return r;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if ((r = write_file("/proc/self/gid_map", map)) < 0) {
		*cause =
			xasprintf("cannot write the gid map: %s", strerror(-r));
		return r;
	}
	return 0;
}

/*
 * In a dynamically linked llwrap, libnl-route-3 is loaded only when a
 * network namespace needs lo up: linked normally, it and libnl-3 would be
 * mapped, relocated and initialised (their constructors register every
 * link and qdisc type) on every run, about 0.3 ms, most of llwrap's own
 * start-up cost when no namespace is used.  The soname is libnl's ABI; its
 * headers still check the prototypes below.  In a static PIE
 * (LLW_LINK_NL, see configure.ac) the library is part of the binary and
 * costs only its constructors (a few microseconds), so it is called
 * directly: a static binary cannot safely dlopen() a library that needs
 * the system's shared glibc.
 */
#define NL_ROUTE_SONAME "libnl-route-3.so.200"

struct nl_api {
	struct nl_sock *(*socket_alloc)(void);
	void (*socket_free)(struct nl_sock *);
	int (*connect)(struct nl_sock *, int);
	const char *(*geterror)(int);
	int (*link_get_kernel)(struct nl_sock *, int, const char *,
			       struct rtnl_link **);
	struct rtnl_link *(*link_alloc)(void);
	void (*link_set_flags)(struct rtnl_link *, unsigned int);
	int (*link_change)(struct nl_sock *, struct rtnl_link *,
			   struct rtnl_link *, int);
	void (*link_put)(struct rtnl_link *);
	struct rtnl_addr *(*addr_alloc)(void);
	void (*addr_set_ifindex)(struct rtnl_addr *, int);
	int (*addr_set_local)(struct rtnl_addr *, struct nl_addr *);
	void (*addr_set_prefixlen)(struct rtnl_addr *, int);
	void (*addr_set_flags)(struct rtnl_addr *, unsigned int);
	int (*addr_add)(struct nl_sock *, struct rtnl_addr *, int);
	void (*addr_put)(struct rtnl_addr *);
	struct nl_addr *(*nladdr_build)(int, const void *, size_t);
	void (*nladdr_put)(struct nl_addr *);
};

#ifdef LLW_LINK_NL
static int
nl_api_load(struct nl_api *nl, char **cause)
{
	(void)cause;
	*nl = (struct nl_api){
		.socket_alloc = nl_socket_alloc,
		.socket_free = nl_socket_free,
		.connect = nl_connect,
		.geterror = nl_geterror,
		.link_get_kernel = rtnl_link_get_kernel,
		.link_alloc = rtnl_link_alloc,
		.link_set_flags = rtnl_link_set_flags,
		.link_change = rtnl_link_change,
		.link_put = rtnl_link_put,
		.addr_alloc = rtnl_addr_alloc,
		.addr_set_ifindex = rtnl_addr_set_ifindex,
		.addr_set_local = rtnl_addr_set_local,
		.addr_set_prefixlen = rtnl_addr_set_prefixlen,
		.addr_set_flags = rtnl_addr_set_flags,
		.addr_add = rtnl_addr_add,
		.addr_put = rtnl_addr_put,
		.nladdr_build = nl_addr_build,
		.nladdr_put = nl_addr_put,
	};
	return 0;
}
#else
static int
nl_api_load(struct nl_api *nl, char **cause)
{
	void *h = dlopen(NL_ROUTE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		*cause = xasprintf("cannot load %s to bring up lo: %s",
				   NL_ROUTE_SONAME, dlerror());
		return -ENOENT;
	}
	/* The handle stays open: the process execs soon. */
	nl->socket_alloc = dlsym(h, "nl_socket_alloc");
	nl->socket_free = dlsym(h, "nl_socket_free");
	nl->connect = dlsym(h, "nl_connect");
	nl->geterror = dlsym(h, "nl_geterror");
	nl->link_get_kernel = dlsym(h, "rtnl_link_get_kernel");
	nl->link_alloc = dlsym(h, "rtnl_link_alloc");
	nl->link_set_flags = dlsym(h, "rtnl_link_set_flags");
	nl->link_change = dlsym(h, "rtnl_link_change");
	nl->link_put = dlsym(h, "rtnl_link_put");
	nl->addr_alloc = dlsym(h, "rtnl_addr_alloc");
	nl->addr_set_ifindex = dlsym(h, "rtnl_addr_set_ifindex");
	nl->addr_set_local = dlsym(h, "rtnl_addr_set_local");
	nl->addr_set_prefixlen = dlsym(h, "rtnl_addr_set_prefixlen");
	nl->addr_set_flags = dlsym(h, "rtnl_addr_set_flags");
	nl->addr_add = dlsym(h, "rtnl_addr_add");
	nl->addr_put = dlsym(h, "rtnl_addr_put");
	nl->nladdr_build = dlsym(h, "nl_addr_build");
	nl->nladdr_put = dlsym(h, "nl_addr_put");
	if (!nl->socket_alloc || !nl->socket_free || !nl->connect ||
	    !nl->geterror || !nl->link_get_kernel || !nl->link_alloc ||
	    !nl->link_set_flags || !nl->link_change || !nl->link_put ||
	    !nl->addr_alloc || !nl->addr_set_ifindex || !nl->addr_set_local ||
	    !nl->addr_set_prefixlen || !nl->addr_set_flags || !nl->addr_add ||
	    !nl->addr_put || !nl->nladdr_build || !nl->nladdr_put) {
		*cause = xasprintf("%s lacks a function llwrap needs",
				   NL_ROUTE_SONAME);
		return -ENOENT;
	}
	/* The real functions have these types: let the compiler check. */
	(void)sizeof(nl->socket_alloc == nl_socket_alloc);
	(void)sizeof(nl->link_change == rtnl_link_change);
	return 0;
}
#endif

/* Give lo address a (a host route: /32 or /128; on IPv6 without
 * duplicate address detection, so it is usable at once). */
static int
lo_add_address(const struct nl_api *nl, struct nl_sock *sk, int ifindex,
	       const struct netpolicy_addr *a)
{
	bool v4 = a->family == AF_INET;
	struct nl_addr *local = nl->nladdr_build(a->family, a->a, v4 ? 4 : 16);
	struct rtnl_addr *ra = nl->addr_alloc();
	int err = -NLE_NOMEM;

	if (local != NULL && ra != NULL) {
		nl->addr_set_ifindex(ra, ifindex);
		err = nl->addr_set_local(ra, local);
		nl->addr_set_prefixlen(ra, v4 ? 32 : 128);
		if (!v4)
			nl->addr_set_flags(ra, IFA_F_NODAD);
		if (err == 0)
			err = nl->addr_add(sk, ra, 0);
		/* Already there (a second resolver on one address). */
		if (err == -NLE_EXIST)
			err = 0;
	}
	if (ra != NULL)
		nl->addr_put(ra);
	if (local != NULL)
		nl->nladdr_put(local);
	return err;
}

int
ns_lo_up(const struct netpolicy_addr *addrs, size_t n, char **cause)
{
	struct nl_api nl;
	struct nl_sock *sk;
	struct rtnl_link *lo = NULL, *change = NULL;
	int err;

	if ((err = nl_api_load(&nl, cause)) < 0)
		return err;
	if ((sk = nl.socket_alloc()) == NULL) {
		*cause = xstrdup("netlink: cannot allocate a socket");
		return -ENOMEM;
	}
	err = nl.connect(sk, NETLINK_ROUTE);
	if (err == 0)
		err = nl.link_get_kernel(sk, 0, "lo", &lo);
	if (err == 0) {
		change = nl.link_alloc();
		if (change == NULL) {
			err = -NLE_NOMEM;
		} else {
			nl.link_set_flags(change, IFF_UP);
			err = nl.link_change(sk, lo, change, 0);
		}
	}
	/* Loopback addresses are lo's already (127.0.0.0/8, ::1); lo is
	 * interface 1 in every network namespace (LOOPBACK_IFINDEX). */
	for (size_t i = 0; i < n && err == 0; i++)
		if (!netpolicy_addr_loopback(&addrs[i]))
			err = lo_add_address(&nl, sk, 1, &addrs[i]);
	if (err < 0)
		*cause = xasprintf("cannot bring up lo in the network "
				   "namespace: %s",
				   nl.geterror(err));
	if (change != NULL)
		nl.link_put(change);
	if (lo != NULL)
		nl.link_put(lo);
	nl.socket_free(sk);
	return err < 0 ? -EIO : 0;
}

/* What path is, for viewplan_build(). */
static enum viewplan_type
type_of(void *ctx, const char *path)
{
	struct stat st;

	(void)ctx;
	if (stat(path, &st) < 0)
		return VIEWPLAN_TYPE_MISSING;
	if (S_ISDIR(st.st_mode))
		return VIEWPLAN_TYPE_DIR;
	if (S_ISREG(st.st_mode))
		return VIEWPLAN_TYPE_FILE;
	return VIEWPLAN_TYPE_OTHER;
}

/* What path is, not following a final link, for the seal
 * (viewplan_build), as list_dir says it. */
static enum viewplan_type
entry_type(void *ctx, const char *path)
{
	struct stat st;

	(void)ctx;
	if (lstat(path, &st) < 0)
		return VIEWPLAN_TYPE_MISSING;
	return S_ISDIR(st.st_mode)   ? VIEWPLAN_TYPE_DIR
	       : S_ISREG(st.st_mode) ? VIEWPLAN_TYPE_FILE
	       : S_ISLNK(st.st_mode) ? VIEWPLAN_TYPE_LINK
				     : VIEWPLAN_TYPE_OTHER;
}

/* The entries of path, for the seal (viewplan_build). */
static int
list_dir(void *ctx, const char *path, struct viewplan_dirent **ents, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t cap = 0;

	(void)ctx;
	*ents = NULL;
	*n = 0;
	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		enum viewplan_type t = VIEWPLAN_TYPE_OTHER;
		unsigned char dt = e->d_type;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (dt == DT_UNKNOWN &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			dt = S_ISDIR(st.st_mode)   ? DT_DIR
			     : S_ISREG(st.st_mode) ? DT_REG
			     : S_ISLNK(st.st_mode) ? DT_LNK
						   : DT_UNKNOWN;
		if (dt == DT_DIR)
			t = VIEWPLAN_TYPE_DIR;
		else if (dt == DT_REG)
			t = VIEWPLAN_TYPE_FILE;
		else if (dt == DT_LNK)
			t = VIEWPLAN_TYPE_LINK;
		if (*n == cap) {
			cap = cap ? 2 * cap : 32;
			*ents = xreallocarray(*ents, cap, sizeof(**ents));
		}
		(*ents)[(*n)++] = (struct viewplan_dirent){
			.name = xstrdup(e->d_name),
			.type = t,
		};
	}
	closedir(d);
	return 0;
}

/* Where the symbolic link path leads, or NULL with errno. */
static char *
link_target(const char *path)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* The detached mounts still held, then the plan. */
static void
view_free(struct viewplan *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->m[i].fd >= 0)
			close(v->m[i].fd);
	viewplan_free(v);
}

static int
setattr(int fd, uint64_t set, uint64_t clr, bool recursive)
{
	struct mount_attr a = { .attr_set = set, .attr_clr = clr };

	if (mount_setattr(fd, "",
			  AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a,
			  sizeof(a)) < 0)
		return -errno;
	return 0;
}

static int
clone_tree(const char *path)
{
	int fd = open_tree(AT_FDCWD, path,
			   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	return fd < 0 ? -errno : fd;
}

/* A new detached mount of fstype with one option (or none). */
static int
new_fs(const char *fstype, const char *key, const char *value, uint64_t attrs)
{
	_cleanup_close_ int fsfd = fsopen(fstype, FSOPEN_CLOEXEC);
	int fd;

	if (fsfd < 0)
		return -errno;
	if (key != NULL &&
	    fsconfig(fsfd, FSCONFIG_SET_STRING, key, value, 0) < 0)
		return -errno;
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	fd = fsmount(fsfd, FSMOUNT_CLOEXEC, (unsigned)attrs);
	return fd < 0 ? -errno : fd;
}

/* A new detached tmpfs with this mode and size (0: the kernel's). */
static int
new_tmpfs(const char *mode, uint64_t size, uint64_t attrs)
{
	_cleanup_close_ int fsfd = fsopen("tmpfs", FSOPEN_CLOEXEC);
	char bytes[32];
	int fd;

	if (fsfd < 0)
		return -errno;
	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)size);
	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "mode", mode, 0) < 0 ||
	    (size > 0 &&
	     fsconfig(fsfd, FSCONFIG_SET_STRING, "size", bytes, 0) < 0))
		return -errno;
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	fd = fsmount(fsfd, FSMOUNT_CLOEXEC, (unsigned)attrs);
	return fd < 0 ? -errno : fd;
}

/*
 * A new devpts instance (in a user namespace every devpts mount is one):
 * the terminals the sandbox opens live there, and the user's other
 * terminals (the host's /dev/pts/N) are not reachable by name.
 */
static int
new_devpts(void)
{
	_cleanup_close_ int fsfd = fsopen("devpts", FSOPEN_CLOEXEC);
	int fd;

	if (fsfd < 0)
		return -errno;
	if (fsconfig(fsfd, FSCONFIG_SET_FLAG, "newinstance", NULL, 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_SET_STRING, "ptmxmode", "0666", 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_SET_STRING, "mode", "0620", 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	fd = fsmount(fsfd, FSMOUNT_CLOEXEC,
		     MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	return fd < 0 ? -errno : fd;
}

/* /dev/ptmx opens the sandbox's devpts instance: its own ptmx bound on
 * it, after /dev/pts is mounted.  Where /dev/ptmx is a symbolic link
 * (to pts/ptmx in OCI containers), it leads to the instance's ptmx
 * already, and a mount would cover the link itself: a file no Landlock
 * rule reaches, which opens with EACCES. */
static int
bind_ptmx(char **cause)
{
	struct stat st;
	int fd, r = 0;

	if (lstat("/dev/ptmx", &st) == 0 && S_ISLNK(st.st_mode))
		return 0;
	fd = open_tree(AT_FDCWD, "/dev/pts/ptmx",
		       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0 || move_mount(fd, "", AT_FDCWD, "/dev/ptmx",
				 MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		r = -errno;
		*cause = xasprintf("cannot bind the sandbox's ptmx on "
				   "/dev/ptmx: %s",
				   strerror(-r));
	}
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * The inherited terminal keeps its name in the sandbox's devpts instance.
 * ttyname(3) (tty, ssh, GPG_TTY=$(tty), screen) reads /proc/self/fd/N,
 * "/dev/pts/K" of the host's devpts, and stats that path, which the new
 * instance lacks.  So a clone of the host's node is mounted on the
 * instance's /dev/pts/K, reserved first: pid 1 opens the instance's ptmx
 * until it hands out K, and holds that pty for the sandbox's life (never
 * unlocked, so nothing opens its other end; pid 1 does not exec, and the
 * descriptor is close-on-exec for the command).  Only the controlling
 * terminal the command has anyway; the user's other terminals stay out
 * of reach.  Best effort: where any step fails, ttyname(3) fails as it
 * would without this, and the terminal works as before.
 */
static int term_held = -1;

/* A detached clone of the host's node of the terminal on fd 0, 1 or 2,
 * with *index its number, or -1. */
static int
term_acquire(unsigned *index)
{
	for (int fd = 0; fd <= 2; fd++) {
		char link[32], target[64], extra;
		struct stat st, hs;
		ssize_t n;

		if (!isatty(fd) || fstat(fd, &st) < 0)
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (sscanf(target, "/dev/pts/%u%c", index, &extra) != 1 ||
		    *index >= 4096 || stat(target, &hs) < 0 ||
		    hs.st_rdev != st.st_rdev)
			continue;
		n = open_tree(AT_FDCWD, target,
			      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (n >= 0)
			return (int)n;
	}
	return -1;
}

/* After the instance is on /dev/pts and its ptmx on /dev/ptmx. */
static void
term_keep_name(int clone, unsigned index)
{
	_cleanup_free_ int *others = xcalloc(index + 1, sizeof(int));
	size_t n = 0;
	char path[32];
	int held = -1;

	while (n <= index) {
		int fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
		unsigned got;

		if (fd < 0)
			break;
		if (ioctl(fd, TIOCGPTN, &got) < 0 || got > index) {
			close(fd);
			break;
		}
		if (got == index) {
			held = fd;
			break;
		}
		others[n++] = fd;
	}
	while (n > 0)
		close(others[--n]);
	snprintf(path, sizeof(path), "/dev/pts/%u", index);
	if (held >= 0 && move_mount(clone, "", AT_FDCWD, path,
				    MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		close(held);
		held = -1;
	}
	term_held = held;
}

/* The attributes of a mask of access a on a real path (pathtree.h). */
static uint64_t
mask_attrs(enum llw_access a)
{
	switch (a) {
	case LLW_ACCESS_RO:
		return MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC |
		       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	case LLW_ACCESS_RX:
		return MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	case LLW_ACCESS_RW:
		return MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	default:
		return MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	}
}

/* Create rel (relative to the tmpfs at dirfd) alone as a mount point. */
static int
make_leaf(int dirfd, const char *rel, bool is_dir)
{
	int r = is_dir ? mkdirat(dirfd, rel, 0755)
		       : mknodat(dirfd, rel, S_IFREG | 0444, 0);

	return r < 0 && errno != EEXIST ? -errno : 0;
}

/* Create path (relative to the tmpfs at dirfd) as a mount point.  The
 * directories above it are made only where it cannot be (ENOENT): most
 * are entries of the view, made before it (parents first). */
static int
make_mount_point(int dirfd, const char *rel, bool is_dir)
{
	_cleanup_free_ char *copy = NULL;
	int r;

	if ((r = make_leaf(dirfd, rel, is_dir)) != -ENOENT)
		return r;
	copy = xstrdup(rel);
	for (char *s = copy;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		if (*s == '\0')
			break;
		*s = '\0';
		if (mkdirat(dirfd, copy, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return make_leaf(dirfd, copy, is_dir);
}

/*
 * The seal's placeholders (viewplan.h, VIEWPLAN_HIDE, and a denied file
 * sealed): a read-only tmpfs whose root is a directory of mode 000
 * holding an empty file "f" of mode 000.  Without CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH (the command has none: drop_capabilities, and the
 * filter refuses new user namespaces) the kernel refuses to read
 * either, to open, list, watch or enter it (EACCES), to the owner as
 * well.
 */
static int
placeholder_fs(void)
{
	int fd, f;

	fd = new_fs("tmpfs", "mode", "0000",
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (fd < 0)
		return fd;
	if ((f = openat(fd, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0)) <
	    0) {
		f = -errno;
		close(fd);
		return f;
	}
	close(f);
	if ((f = setattr(fd, MOUNT_ATTR_RDONLY, 0, false)) < 0) {
		close(fd);
		return f;
	}
	return fd;
}

/* Whether m, not skipped, is bound over its path from the placeholders'
 * tmpfs (view_placeholders). */
static bool
is_placeholder(const struct ns_opts *o, const struct viewplan_mount *m)
{
	if (m->made)
		return false;
	return m->kind == VIEWPLAN_HIDE ||
	       (m->kind == VIEWPLAN_MASK && m->access == LLW_ACCESS_DENY &&
		!m->is_dir && o->seal);
}

/* Step 1 for one entry: acquire its source as a detached mount. */
static int
view_acquire(const struct ns_opts *o, struct viewplan_mount *m, char **cause)
{
	const char *what = "";
	int fd;

	switch (m->kind) {
	case VIEWPLAN_SEAL:
		what = "a sealed tmpfs";
		fd = new_fs("tmpfs", "mode", "0111",
			    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				    MOUNT_ATTR_NOEXEC);
		break;
	case VIEWPLAN_KEEP:
		/* Taken once the tree is read-only (view_build), so the
		 * clone is too. */
		what = "a read-only clone";
		fd = clone_tree(m->path);
		break;
	case VIEWPLAN_PROC:
		/* The locked flags of the host's /proc must be kept, or the
		 * kernel refuses a new instance in a user namespace. */
		what = "a new proc";
		fd = new_fs("proc", NULL, NULL,
			    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				    MOUNT_ATTR_NOEXEC |
				    (o->proc_rw ? 0 : MOUNT_ATTR_RDONLY));
		break;
	case VIEWPLAN_TMP:
		what = "a tmpfs";
		fd = new_tmpfs("1777", o->tmpfs_size,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
		break;
	case VIEWPLAN_PTS:
		what = "a devpts instance";
		fd = new_devpts();
		break;
	case VIEWPLAN_ROOT:
		what = "a clone";
		fd = clone_tree(m->path);
		break;
	case VIEWPLAN_BIND:
		what = "a clone";
		if ((fd = clone_tree(m->path)) >= 0 &&
		    !policy_access_writable(m->access) &&
		    setattr(fd, MOUNT_ATTR_RDONLY, 0, true) < 0) {
			close(fd);
			fd = -errno;
		}
		break;
	case VIEWPLAN_MASK:
	default:
		/* Sealed (o->seal), a denial is a placeholder the kernel
		 * refuses to read, a watch as well: a directory of mode
		 * 0111 (the masks beneath it are reached through it), a
		 * file of mode 000 (view_placeholders). */
		if (m->access == LLW_ACCESS_DENY && m->is_dir) {
			what = "an empty tmpfs";
			fd = new_fs("tmpfs", "mode", o->seal ? "0111" : "0755",
				    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					    MOUNT_ATTR_NOEXEC);
			break;
		}
		what = "a clone";
		fd = clone_tree(m->access == LLW_ACCESS_DENY ? "/dev/null"
							     : m->path);
		if (fd >= 0) {
			/* A denied file is /dev/null on a nodev mount: every
			 * open of it fails with EACCES, so a write is refused
			 * instead of vanishing (bwrap.c does the same). */
			uint64_t a = m->access == LLW_ACCESS_DENY
					     ? MOUNT_ATTR_RDONLY |
						       MOUNT_ATTR_NOEXEC |
						       MOUNT_ATTR_NOSUID |
						       MOUNT_ATTR_NODEV
					     : mask_attrs(m->access);
			int r = setattr(fd, a, 0, true);

			if (r < 0) {
				close(fd);
				fd = r;
			}
		}
		break;
	}
	if (fd < 0 && m->kind == VIEWPLAN_PROC && fd == -EPERM) {
		struct contain c;
		_cleanup_free_ char *fix = NULL;

		contain_read(&c);
		fix = contain_proc_fix(&c, false);
		*cause = xasprintf("cannot make %s for %s: %s (the kernel "
				   "refuses a new proc in a user namespace "
				   "while parts of %s /proc are hidden by "
				   "other mounts; %s)",
				   what, m->path, strerror(-fd),
				   c.runtime != CONTAIN_NONE ? "the container's"
							     : "this system's",
				   fix);
		return fd;
	}
	if (fd < 0) {
		*cause = xasprintf("cannot make %s for %s: %s", what, m->path,
				   strerror(-fd));
		return fd;
	}
	m->fd = fd;
	return 0;
}

/* Mount points inside each tmpfs for the entries beneath it, then the
 * tmpfs becomes read-only unless it is the private /tmp of a policy
 * that writes there. */
/* An entry of the seal made in its tmpfs at dirfd: a sealed directory
 * (0111), a placeholder (000) or the symbolic link to target. */
static int
make_sealed(int dirfd, const char *rel, const struct viewplan_mount *m,
	    const char *target)
{
	switch (m->kind) {
	case VIEWPLAN_LINK:
		return symlinkat(target, dirfd, rel) < 0 ? -errno : 0;
	case VIEWPLAN_SEAL:
		return mkdirat(dirfd, rel, 0111) < 0 ? -errno : 0;
	default:
		if (m->is_dir)
			return mkdirat(dirfd, rel, 0) < 0 ? -errno : 0;
		return mknodat(dirfd, rel, S_IFREG, 0) < 0 ? -errno : 0;
	}
}

static int
view_fill_tmpfs(const struct ns_opts *o, struct viewplan *v, char *const *links,
		char **cause)
{
	for (size_t i = 0; i < v->n; i++) {
		struct viewplan_mount *m = &v->m[i];
		struct viewplan_mount *t;
		const char *rel;
		int r;

		if (m->skip || m->lazy || m->tmpfs < 0)
			continue;
		t = &v->m[m->tmpfs];
		rel = m->path + strlen(t->path) + 1;
		if (m->made)
			r = make_sealed(t->fd, rel, m, links[i]);
		else
			r = make_mount_point(t->fd, rel, m->is_dir);
		if (r < 0) {
			*cause = xasprintf("cannot create the mount point "
					   "%s: %s",
					   m->path, strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < v->n; i++) {
		struct viewplan_mount *m = &v->m[i];
		int r;

		if (m->skip || !viewplan_is_tmpfs(m))
			continue;
		if (m->kind == VIEWPLAN_TMP &&
		    viewplan_tmp_writable(o, m->path))
			continue;
		if ((r = setattr(m->fd, MOUNT_ATTR_RDONLY, 0, false)) < 0) {
			*cause = xasprintf("cannot make the tmpfs on %s "
					   "read-only: %s",
					   m->path, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* Step 3 for one entry. */
static int
view_attach(const struct ns_opts *o, struct viewplan_mount *m,
	    struct maskwatch *mw, char **cause)
{
	int r;

	if (m->lazy && m->fd < 0) {
		/* Beneath the fresh /proc: the source is what is there
		 * now; a path the new instance lacks needs nothing. */
		if (access(m->path, F_OK) < 0)
			return 0;
		if ((r = view_acquire(o, m, cause)) < 0)
			return r;
	}
	if (move_mount(m->fd, "", AT_FDCWD, m->path, MOVE_MOUNT_F_EMPTY_PATH) <
	    0) {
		r = -errno;
		*cause = xasprintf("cannot mount on %s: %s", m->path,
				   strerror(-r));
		return r;
	}
	if (m->kind == VIEWPLAN_MASK)
		maskwatch_mounted(mw, m->path, m->fd);
	close(m->fd);
	m->fd = -1;
	return 0;
}

/*
 * Step 4: the placeholders, once the rest of the view is attached (each
 * is a leaf of it: a directory that may not be read and holds something
 * the view shows is sealed, viewplan.c).  The first directory
 * placeholder is the placeholders' tmpfs itself, attached first; the
 * others are clones of its root or of its file taken from it attached,
 * as every kernel allows: before Linux 6.15 open_tree refuses to clone
 * a detached mount (EINVAL: __do_loopback's check_mnt).  Without a
 * directory placeholder the tmpfs is attached on a directory of the
 * view only while the clones are taken, then unmounted.  Either way it
 * is not closed unattached: a detached mount is dissolved after an RCU
 * grace period (0.1-2 ms on a loaded machine), and attached it goes
 * with the namespace.
 */
static int
view_placeholders(const struct ns_opts *o, struct viewplan *v,
		  struct maskwatch *mw, char **cause)
{
	struct viewplan_mount *first = NULL, *dir = NULL, *m;
	_cleanup_close_ int fs = -1;
	const char *at = NULL;
	int r = 0;

	for (size_t i = 0; i < v->n; i++) {
		m = &v->m[i];
		if (m->skip || !is_placeholder(o, m))
			continue;
		/* Beneath the fresh /proc, one the new instance lacks
		 * needs nothing (view_attach). */
		if (m->lazy && access(m->path, F_OK) < 0) {
			m->skip = true;
			continue;
		}
		if (first == NULL)
			first = m;
		if (dir == NULL && m->is_dir)
			dir = m;
	}
	if (first == NULL)
		return 0;
	for (size_t i = 0; dir == NULL && at == NULL && i < v->n; i++) {
		m = &v->m[i];
		if (!m->skip && !m->made && !m->lazy && m->is_dir &&
		    !is_placeholder(o, m))
			at = m->path;
	}
	if (dir != NULL)
		at = dir->path;
	if (at == NULL) {
		*cause = xasprintf("cannot make a placeholder for %s: no "
				   "directory in the view to take it from",
				   first->path);
		return -ENOENT;
	}
	if ((fs = placeholder_fs()) < 0) {
		*cause = xasprintf("cannot make a placeholder for %s: %s",
				   first->path, strerror(-fs));
		return fs;
	}
	if (move_mount(fs, "", AT_FDCWD, at, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		r = -errno;
		*cause = xasprintf("cannot mount on %s: %s", at, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < v->n; i++) {
		m = &v->m[i];
		if (m->skip || m == dir || !is_placeholder(o, m))
			continue;
		m->fd = open_tree(fs, m->is_dir ? "" : "f",
				  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
					  (m->is_dir ? AT_EMPTY_PATH : 0));
		if (m->fd < 0) {
			r = -errno;
			*cause = xasprintf("cannot make a placeholder for "
					   "%s: %s",
					   m->path, strerror(-r));
			return r;
		}
	}
	if (dir == NULL && umount2(at, MNT_DETACH) < 0) {
		r = -errno;
		*cause = xasprintf("cannot unmount the placeholders from %s: "
				   "%s",
				   at, strerror(-r));
		return r;
	}
	for (size_t i = 0; i < v->n && r == 0; i++) {
		m = &v->m[i];
		if (!m->skip && m != dir && is_placeholder(o, m))
			r = view_attach(o, m, mw, cause);
	}
	return r;
}

/* A late mask (viewplan.h), cloned from src, its root's path in the
 * host's tree, as view_acquire() clones a read-only mask. */
static int
late_acquire(const struct viewplan *v, struct viewplan_mount *m, int src,
	     char **cause)
{
	const char *root = v->m[m->from].path;
	const char *rel = m->path + strlen(root) + (strcmp(root, "/") != 0);
	int fd, r;

	fd = open_tree(src, rel,
		       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0) {
		r = -errno;
		*cause = xasprintf("cannot make a clone for %s: %s", m->path,
				   strerror(-r));
		return r;
	}
	if ((r = setattr(fd, mask_attrs(m->access), 0, true)) < 0) {
		close(fd);
		*cause = xasprintf("cannot make a clone for %s: %s", m->path,
				   strerror(-r));
		return r;
	}
	m->fd = fd;
	return 0;
}

static int
view_build(const struct ns_opts *o, struct maskwatch *mw, char **cause)
{
	_cleanup_free_ int *srcs = NULL;
	struct viewplan v = { 0 };
	_cleanup_free_ char **links = NULL;
	bool all_writable = false;
	_cleanup_close_ int term = -1;
	unsigned term_index = 0;
	int r = 0;

	viewplan_build(o,
		       &(struct viewplan_fs){ .type_of = type_of,
					      .list = list_dir,
					      .entry_type = entry_type },
		       &v);
	links = xcalloc(v.n + 1, sizeof(*links));
	/* The roots of late masks (-2 till their path is opened). */
	srcs = xcalloc(v.n + 1, sizeof(*srcs));
	for (size_t i = 0; i < v.n; i++)
		srcs[i] = -1;
	for (size_t i = 0; i < v.n; i++)
		if (!v.m[i].skip && v.m[i].late)
			srcs[v.m[i].from] = -2;
	if (o->devpts && o->pid)
		term = term_acquire(&term_index);
	for (size_t i = 0; i < v.n && r == 0; i++) {
		/* A late mask's root: its path in the host's tree, opened
		 * with its clone, before the clone covers it. */
		if (srcs[i] == -2 &&
		    (srcs[i] = open(v.m[i].path,
				    O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
			r = -errno;
			*cause = xasprintf("cannot open %s for the masks "
					   "beneath it: %s",
					   v.m[i].path, strerror(-r));
			break;
		}
		if (v.m[i].skip || v.m[i].lazy || v.m[i].late ||
		    v.m[i].kind == VIEWPLAN_KEEP)
			continue;
		if (v.m[i].kind == VIEWPLAN_LINK) {
			/* Read while the host's tree is still there; one
			 * gone since it was listed is not made. */
			if ((links[i] = link_target(v.m[i].path)) == NULL &&
			    errno == ENOENT) {
				v.m[i].skip = true;
			} else if (links[i] == NULL) {
				r = -errno;
				*cause = xasprintf("cannot read the symbolic "
						   "link %s: %s",
						   v.m[i].path, strerror(-r));
			}
			continue;
		}
		if (v.m[i].made || is_placeholder(o, &v.m[i]))
			continue;
		if (v.m[i].kind == VIEWPLAN_ROOT &&
		    strcmp(v.m[i].path, "/") == 0) {
			/* Everything is writable: no read-only view, and
			 * no clone on top of the root (the process's root
			 * would stay beneath it). */
			all_writable = true;
			v.m[i].skip = true;
			continue;
		}
		r = view_acquire(o, &v.m[i], cause);
	}
	if (r == 0)
		r = view_fill_tmpfs(o, &v, links, cause);
	if (r == 0 && !all_writable) {
		struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };

		if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &a, sizeof(a)) <
		    0) {
			r = -errno;
			*cause = xasprintf("cannot make the mount view "
					   "read-only: %s",
					   strerror(-r));
		}
	}
	/* The seal's clones, of what may be read: the tree is read-only
	 * now, so they are too, and nothing is covered yet.  (A seal has
	 * something the plan does not let be read, so the view is never
	 * all writable then.) */
	for (size_t i = 0; i < v.n && r == 0; i++) {
		if (v.m[i].skip || v.m[i].lazy || v.m[i].kind != VIEWPLAN_KEEP)
			continue;
		/* An entry gone since it was listed is left out (its
		 * mount point stays, empty). */
		if ((r = clone_tree(v.m[i].path)) == -ENOENT) {
			v.m[i].skip = true;
			r = 0;
			continue;
		}
		if (r < 0) {
			*cause = xasprintf("cannot make a read-only clone "
					   "for %s: %s",
					   v.m[i].path, strerror(-r));
			break;
		}
		v.m[i].fd = r;
		r = 0;
	}
	for (size_t i = 0; i < v.n && r == 0; i++) {
		if (v.m[i].skip || v.m[i].made || is_placeholder(o, &v.m[i]))
			continue;
		if (v.m[i].late)
			r = late_acquire(&v, &v.m[i], srcs[v.m[i].from], cause);
		if (r == 0)
			r = view_attach(o, &v.m[i], mw, cause);
	}
	for (size_t i = 0; i < v.n; i++)
		if (srcs[i] >= 0)
			close(srcs[i]);
	if (r == 0)
		r = view_placeholders(o, &v, mw, cause);
	if (r == 0 && o->devpts && access("/dev/ptmx", F_OK) == 0)
		r = bind_ptmx(cause);
	if (r == 0 && term >= 0)
		term_keep_name(term, term_index);
	for (size_t i = 0; i < v.n; i++)
		free(links[i]);
	view_free(&v);
	return r;
}

int
ns_setup(const struct ns_opts *o, struct maskwatch *mw, int *mnt_ns,
	 char **cause)
{
	_cleanup_close_ int ns = -1;
	int r;

	if (mnt_ns != NULL)
		*mnt_ns = -1;
	/* pid 1 dies with the monitor, and the namespace with it: the
	 * monitor's fork tied them (monitor_tie_child). */
	if (o->pid && unshare(CLONE_NEWNS) < 0) {
		r = -errno;
		*cause = xasprintf("cannot create the mount namespace: %s",
				   strerror(-r));
		return r;
	}
	/* Its own, opened while /proc is still the host's. */
	if (o->pid && mnt_ns != NULL)
		ns = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	/* Nothing done here may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		r = -errno;
		*cause = xasprintf("cannot make the mounts private: %s",
				   strerror(-r));
		return r;
	}
	if ((r = view_build(o, mw, cause)) < 0)
		return r;
	if (o->net && (r = ns_lo_up(NULL, 0, cause)) < 0)
		return r;
	if (mnt_ns != NULL)
		*mnt_ns = steal_fd(&ns);
	return 0;
}
