/*
 * Path compilation (DESIGN.md §5).  The contract is in pathtree.h; this
 * comment explains how it is met.
 *
 * The rules are resolved, reduced to one per resolved path and put into a
 * trie whose nodes are the rule paths and their ancestors.  Each node has a
 * desired access: that of its longest prefix rule.  The trie is then walked
 * from the root with two pieces of state, the Landlock rights inherited
 * from the rules emitted above (Landlock grants are a union down the tree)
 * and the mount view set by the nearest mask above, if any.  At each node:
 *
 *  - Landlock: when the node needs rights nothing above grants, it gets a
 *    rule.  If some rule beneath wants less than that rule would grant
 *    (the node's "forbidden" bits), the node is either granted whole and
 *    the narrower rules beneath become mount masks (writable node, masks
 *    available), or it is hole punched: the node keeps only what no rule
 *    beneath forbids, and every other entry of the directory gets the
 *    node's access by its own rule.  Punching a writable node without masks
 *    is refused unless best effort, which records the loss.
 *  - Masks: when the rights that reach the node, seen through the mount
 *    view above, differ from what it wants, the node gets a mask with its
 *    own access; masks nested in masks re-expose the real path.
 *
 * When masks are available, rules beneath a writable rule are handled by
 * masks whatever their ancestors grant, so they do not constrain (punch)
 * the ancestors above that writable rule.
 *
 * Why one file of this size (issue 26: no file over ~1,000 lines unless
 * one algorithm earns it): it is one algorithm, resolve -> trie -> walk
 * -> emit, whose steps share the compiler's state and the trie's
 * invariants (a node's desired access, the inherited rights, the mount
 * view above), and whose output's readers, plan_decide and
 * plan_source_at, must read it by the same rules the walk wrote it by.
 * Split, each part would need the others' invariants to be understood;
 * the filesystem it reads is already behind struct pathtree_fs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "path.h"
#include "pathtree.h"
#include "strv.h"
#include "xalloc.h"

#define RO_BITS (LLW_FS_READ_FILE | LLW_FS_READ_DIR)
#define RW_BITS                                                                \
	(RO_BITS | LLW_FS_WRITE_FILE | LLW_FS_REMOVE_DIR |                     \
	 LLW_FS_REMOVE_FILE | LLW_FS_MAKE_DIR | LLW_FS_MAKE_REG |              \
	 LLW_FS_MAKE_SOCK | LLW_FS_MAKE_FIFO | LLW_FS_MAKE_SYM |               \
	 LLW_FS_REFER | LLW_FS_TRUNCATE | LLW_FS_IOCTL_DEV)
#define ALL_BITS (RW_BITS | LLW_FS_EXECUTE)

uint64_t
pathtree_access_bits(enum llw_access a)
{
	switch (a) {
	case LLW_ACCESS_DENY:
		return 0;
	case LLW_ACCESS_RO:
		return RO_BITS;
	case LLW_ACCESS_RX:
		return RO_BITS | LLW_FS_EXECUTE;
	case LLW_ACCESS_RW:
		return RW_BITS;
	case LLW_ACCESS_RWX:
		return RW_BITS | LLW_FS_EXECUTE;
	}
	return 0;
}

/*
 * Private equivalents of policy_access_name() and policy_access_writable(),
 * so this pure module depends on policy.h for types only.
 */
static const char *
pathtree_level_name(enum llw_access a)
{
	static const char *const names[] = { "deny", "ro", "rx", "rw", "rwx" };

	if ((unsigned)a >= ARRAY_SIZE(names))
		return "?";
	return names[a];
}

static bool
pathtree_writable(enum llw_access a)
{
	return a == LLW_ACCESS_RW || a == LLW_ACCESS_RWX;
}

/* The level whose bits are exactly b; intersections of levels are levels. */
static enum llw_access
pathtree_level_of(uint64_t b)
{
	for (int a = LLW_ACCESS_DENY; a <= LLW_ACCESS_RWX; a++)
		if (pathtree_access_bits(a) == b)
			return a;
	return LLW_ACCESS_DENY;
}

/* dir/name; two copies, where a format would parse "%s/%s" for every
 * path component a compile looks at. */
static char *
pathtree_join(const char *dir, const char *name)
{
	size_t dl = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	size_t nl = strlen(name);
	char *s = xmalloc(dl + nl + 2);

	memcpy(s, dir, dl);
	s[dl] = '/';
	memcpy(s + dl + 1, name, nl + 1);
	return s;
}

/* Append s to the vector *v of *n strings, amortised (strv_push is O(n)). */
static void
pathtree_push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (*n + 1 >= *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*v = xreallocarray(*v, *cap, sizeof(char *));
	}
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

/* The real filesystem. */

/*
 * realpath(path, NULL) in three system calls whatever the depth: the
 * path opened O_PATH (following links as realpath does) and the kernel's
 * name for it (/proc/self/fd), where glibc's realpath reads each
 * component as a link (a readlink per component: a rule under the home
 * directory was ten).  Where that name is not a path (a magic link's
 * pipe, a file deleted meanwhile, no /proc), realpath itself.
 */
static char *
pathtree_realpath(const char *path)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(buf) || buf[0] != '/')
		return realpath(path, NULL);
	buf[n] = '\0';
	if (n >= 10 && strcmp(buf + n - 10, " (deleted)") == 0)
		return realpath(path, NULL);
	return xstrdup(buf);
}

static int
pathtree_real_resolve(void *ctx, const char *path, char **out)
{
	_cleanup_free_ char *prefix = NULL;
	char *r, *slash;

	(void)ctx;
	if (path[0] != '/')
		return -EINVAL;
	r = pathtree_realpath(path);
	if (r != NULL) {
		*out = r;
		return 0;
	}
	if (errno != ENOENT && errno != ENOTDIR)
		return -errno;

	/* Strip components until a prefix exists; append the rest as is. */
	prefix = xstrdup(path);
	for (;;) {
		slash = strrchr(prefix, '/');
		if (slash == prefix) {
			prefix[1] = '\0';
		} else {
			*slash = '\0';
		}
		r = pathtree_realpath(prefix);
		if (r != NULL)
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		if (strcmp(prefix, "/") == 0)
			return -ENOENT;
	}
	/* path + strlen(prefix) is the missing part, starting with '/'
	 * (or, for the root prefix, the path itself). */
	if (strcmp(prefix, "/") == 0)
		*out = strcmp(r, "/") == 0 ? xstrdup(path)
					   : xasprintf("%s%s", r, path);
	else
		*out = strcmp(r, "/") == 0
			       ? xstrdup(path + strlen(prefix))
			       : xasprintf("%s%s", r, path + strlen(prefix));
	free(r);
	return 0;
}

static int
pathtree_real_stat(void *ctx, const char *path, bool *is_dir)
{
	struct stat st;

	(void)ctx;
	if (stat(path, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return -errno;
	}
	*is_dir = S_ISDIR(st.st_mode);
	return 1;
}

static int
pathtree_strcmpp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
pathtree_real_list(void *ctx, const char *path, char ***names)
{
	_cleanup_strv_ char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int r;

	(void)ctx;
	d = opendir(path);
	if (d == NULL)
		return -errno;
	v = xcalloc(1, sizeof(char *));
	cap = 1;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (de == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		pathtree_push(&v, &n, &cap, xstrdup(de->d_name));
	}
	r = -errno;
	closedir(d);
	if (r < 0)
		return r;
	if (n > 0)
		qsort(v, n, sizeof(char *), pathtree_strcmpp);
	*names = steal_pointer(&v);
	return 0;
}

static int
pathtree_real_resolve_at(void *ctx, const char *dir, const char *name,
			 char **out, bool *is_dir)
{
	_cleanup_free_ char *path = pathtree_join(dir, name);
	_cleanup_free_ char *res = NULL;
	struct stat st;
	int r;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		*out = steal_pointer(&path);
		return 0;
	}
	if (!S_ISLNK(st.st_mode)) {
		*is_dir = S_ISDIR(st.st_mode);
		*out = steal_pointer(&path);
		return 1;
	}
	/*
	 * A symlink whose target is no path (the magic links /dev/stdin,
	 * /dev/stdout, /dev/stderr when the descriptor is a pipe or a socket:
	 * "pipe:[N]") or does not exist is dangling for the compiler: stat
	 * would follow the magic link to the pipe, on which Landlock refuses
	 * a rule, and the fallback of pathtree_real_resolve would return the
	 * link's own path as if it were resolved.
	 */
	res = pathtree_realpath(path);
	if (res == NULL) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		*out = steal_pointer(&path);
		return 0;
	}
	r = pathtree_real_stat(ctx, res, is_dir);
	if (r < 0)
		return r;
	*out = steal_pointer(&res);
	return r;
}

/*
 * The entries of a directory read for pathtree_real_resolve_in(): their
 * names (offsets into one buffer) and types in an open-addressing table.
 */
struct dirtab_slot {
	uint32_t off; /* of the name in names, plus one: 0 is empty */
	unsigned char type;
};

struct dirtab {
	char *names;
	size_t len, cap;
	struct dirtab_slot *slot;
	size_t mask; /* slots - 1, a power of two minus one */
	size_t n;
};

static uint32_t
dirtab_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void
dirtab_put(struct dirtab *t, const char *name, unsigned char type)
{
	size_t nl = strlen(name) + 1, i;

	if (2 * (t->n + 1) > t->mask + 1) {
		struct dirtab_slot *old = t->slot;
		size_t old_n = old != NULL ? t->mask + 1 : 0;

		t->mask = old_n != 0 ? 2 * old_n - 1 : 255;
		t->slot = xcalloc(t->mask + 1, sizeof(*t->slot));
		for (size_t k = 0; k < old_n; k++) {
			if (old[k].off == 0)
				continue;
			i = dirtab_hash(t->names + old[k].off - 1) & t->mask;
			while (t->slot[i].off != 0)
				i = (i + 1) & t->mask;
			t->slot[i] = old[k];
		}
		free(old);
	}
	if (t->len + nl > t->cap) {
		t->cap = 2 * (t->len + nl) + 4096;
		t->names = xreallocarray(t->names, t->cap, 1);
	}
	memcpy(t->names + t->len, name, nl);
	i = dirtab_hash(name) & t->mask;
	while (t->slot[i].off != 0)
		i = (i + 1) & t->mask;
	t->slot[i].off = (uint32_t)t->len + 1;
	t->slot[i].type = type;
	t->len += nl;
	t->n++;
}

/* The type of name (DT_*), or -1 when it is not in the table. */
static int
dirtab_get(const struct dirtab *t, const char *name)
{
	size_t i;

	if (t->slot == NULL)
		return -1;
	for (i = dirtab_hash(name) & t->mask; t->slot[i].off != 0;
	     i = (i + 1) & t->mask)
		if (strcmp(t->names + t->slot[i].off - 1, name) == 0)
			return t->slot[i].type;
	return -1;
}

/*
 * Below RESOLVE_IN_MIN names, pathtree_real_resolve_in() looks them up
 * one by one; from it, it reads the directory when its size suggests at
 * most RESOLVE_IN_READ entries a name (an entry read costs about a sixth
 * of an lstat on ext4: 0.45 against 3 µs on the VM of issue 29), and
 * stops at twice that, so that a large directory with a few rules in it
 * costs at most a little more than their look-ups.  The size is the
 * directory's st_size over RESOLVE_IN_ENTRY bytes an entry (ext4 and
 * xfs count bytes of entries, about 24 for a short name; tmpfs 20 an
 * entry; procfs and sysfs 0, and the cap bounds those).
 */
#define RESOLVE_IN_MIN	 16
#define RESOLVE_IN_READ	 4
#define RESOLVE_IN_ENTRY 24

/*
 * Read dir into t for n names (see above); false when it cannot be
 * read or looks too large to pay.
 */
static bool
dirtab_read(struct dirtab *t, const char *dir, size_t n)
{
	size_t max = 2 * RESOLVE_IN_READ * n;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 ||
	    (uint64_t)st.st_size / RESOLVE_IN_ENTRY > RESOLVE_IN_READ * n ||
	    (d = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	while (t->n < max && t->len < UINT32_MAX / 2 &&
	       (de = readdir(d)) != NULL)
		dirtab_put(t, de->d_name, de->d_type);
	closedir(d);
	return true;
}

/*
 * resolve_at for n names in dir.  One read of the directory (readdir
 * reads hundreds of entries a system call) settles those it lists, under
 * the very name, as a directory or as a non-link file.  Any other name
 * is looked up by itself: a symbolic link, a type the filesystem does
 * not report, a name the read did not reach or that it does not list (a
 * case-insensitive directory finds "Secret" as "secret", which a deny
 * rule must still hide: absence from a listing is never taken for
 * "missing").  The first name is always looked up by itself: a
 * directory that can be read but not searched makes it fail with EACCES
 * (unreachable), as every other name then does, listed or not.
 */
static void
pathtree_real_resolve_in(void *ctx, const char *dir, const char *const *names,
			 size_t n, int *r, char **out, bool *is_dir)
{
	struct dirtab t = { 0 };
	bool read = false;
	size_t i;

	for (i = 0; i < n; i++) {
		int type = -1;

		out[i] = NULL;
		is_dir[i] = false;
		if (i == 1 && n >= RESOLVE_IN_MIN && r[0] >= 0)
			read = dirtab_read(&t, dir, n);
		if (read)
			type = dirtab_get(&t, names[i]);
		if (type == DT_DIR || type == DT_REG || type == DT_CHR ||
		    type == DT_BLK || type == DT_FIFO || type == DT_SOCK) {
			out[i] = pathtree_join(dir, names[i]);
			is_dir[i] = type == DT_DIR;
			r[i] = 1;
		} else {
			r[i] = pathtree_real_resolve_at(ctx, dir, names[i],
							&out[i], &is_dir[i]);
		}
	}
	free(t.names);
	free(t.slot);
}

const struct pathtree_fs pathtree_fs_real = {
	.resolve = pathtree_real_resolve,
	.resolve_at = pathtree_real_resolve_at,
	.resolve_in = pathtree_real_resolve_in,
	.stat = pathtree_real_stat,
	.list = pathtree_real_list,
	.ctx = NULL,
};

/* The compiler. */

/* What resolution learnt about a path. */
enum rstate {
	RS_UNKNOWN = 0, /* ask fs->stat */
	RS_MISSING,
	RS_DIR,
	RS_FILE,
	RS_UNREACHABLE, /* permission denied on the way */
	/* A grant written inside the project that a symbolic link leads out
	 * of it: the project is the command's to write, links included, so
	 * such a grant would reach wherever the command pointed it (a
	 * .git -> ~/.kube made config's read-only rule a read of a secret):
	 * dropped. */
	RS_ESCAPED,
};

/* One configured rule after resolution. */
struct rrule {
	const struct llw_path_rule *rule;
	char *path; /* resolved */
	size_t idx; /* position in p->paths: later wins a tie */
	enum rstate state;
};

struct node {
	char *path;
	const char *name; /* last component, inside path */
	struct node *parent;
	struct node **kids; /* sorted by name */
	size_t n_kids, cap_kids;
	bool is_dir;

	/* The winning rule at this path, if any; base is the best rule that
	 * is not config-file protection, when the winner is one. */
	const struct rrule *rule;
	const struct rrule *base;

	bool pin; /* a pin rule is at this path */
	const struct rrule *pin_rule;
	enum llw_access want;	  /* access of the longest prefix rule */
	const struct rrule *from; /* that rule; NULL for the default deny */
	uint64_t forbid;	  /* bits some rule beneath does not want */
	uint64_t up;		  /* what this node forbids its ancestors */
};

struct compiler {
	const struct pathtree_input *p;
	const struct pathtree_fs *fs;
	bool have_masks;
	struct plan *plan;
	size_t cap_rules, cap_masks;
	size_t n_notes, cap_notes, n_lost, cap_lost;
	char **cause;
};

static void
compiler_note(struct compiler *c, char *s)
{
	pathtree_push(&c->plan->notes, &c->n_notes, &c->cap_notes, s);
}

static void
compiler_lost(struct compiler *c, char *s)
{
	pathtree_push(&c->plan->lost, &c->n_lost, &c->cap_lost, s);
}

static void
node_free(struct node *n)
{
	if (n == NULL)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->path);
	free(n);
}

static struct node *
node_new(struct node *parent, const char *path)
{
	struct node *n = xcalloc(1, sizeof(*n));
	const char *slash = strrchr(path, '/');

	n->path = xstrdup(path);
	n->name = n->path + (slash - path) + 1;
	n->parent = parent;
	n->is_dir = true;
	if (parent != NULL) {
		/* Paths arrive sorted, so children are appended in order;
		 * the array doubles (10,000 rules in one directory copied
		 * it 10,000 times). */
		if (parent->n_kids == parent->cap_kids) {
			parent->cap_kids =
				parent->cap_kids ? 2 * parent->cap_kids : 4;
			parent->kids =
				xreallocarray(parent->kids, parent->cap_kids,
					      sizeof(*parent->kids));
		}
		parent->kids[parent->n_kids++] = n;
	}
	return n;
}

static struct node *
node_child(const struct node *n, const char *name)
{
	size_t lo = 0, hi = n->n_kids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, n->kids[mid]->name);

		if (c == 0)
			return n->kids[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static const char *
rule_origin(const struct rrule *r)
{
	return r != NULL && r->rule->origin != NULL ? r->rule->origin
						    : "built-in";
}

static bool
rule_is_config(const struct rrule *r)
{
	return r->rule->rank == LLW_RANK_CONFIG;
}

/* Config-file protection or a pin: rules llwrap adds, which take away
 * (or keep) but never grant. */
static bool
rule_is_guard(const struct rrule *r)
{
	return r->rule->rank >= LLW_RANK_PIN;
}

/*
 * A grant on a path that is not there: a note, and a report for stderr
 * when it would have widened access (a mistyped path), unless the rule
 * says the path may be missing ("?PATH").  A rule narrower than its
 * parent's (ro ${PROJECT}/.envrc) protects a file that may come later.
 */
static void
compiler_missing(struct compiler *c, const struct rrule *r, const char *why)
{
	char *s = xasprintf("%s %s (%s): %s; rule dropped",
			    pathtree_level_name(r->rule->access), r->rule->path,
			    rule_origin(r), why);
	_cleanup_free_ char *parent =
		xstrdup(r->state == RS_ESCAPED ? r->rule->path : r->path);
	char *slash = strrchr(parent, '/'), *real = NULL;
	const struct plan_source *held;

	*(slash == parent ? slash + 1 : slash) = '\0';
	/* The parent the rule names, resolved: the resolved path's own,
	 * unless a link took the path out of the project (then the
	 * written parent's, resolved). */
	if (r->state == RS_ESCAPED &&
	    c->fs->resolve(c->fs->ctx, parent, &real) == 0) {
		free(parent);
		parent = real;
	}
	held = plan_source_at(c->plan, parent);
	if (!r->rule->optional && !rule_is_guard(r) &&
	    policy_access_wider(r->rule->access,
				held ? held->access : LLW_ACCESS_DENY))
		strv_push(&c->plan->missing, s);
	compiler_note(c, s);
}

static void
compiler_add_rule(struct compiler *c, const char *path, uint64_t access,
		  bool is_dir, const char *origin, bool punched)
{
	struct plan *plan = c->plan;
	struct plan_rule *r;

	/* A rule on a non-directory may carry file rights only. */
	if (!is_dir)
		access &= LLW_FS_FILE_RIGHTS;
	if (access == 0)
		return;
	if (plan->n_rules == c->cap_rules) {
		c->cap_rules = c->cap_rules ? 2 * c->cap_rules : 16;
		plan->rules = xreallocarray(plan->rules, c->cap_rules,
					    sizeof(*plan->rules));
	}
	r = &plan->rules[plan->n_rules++];
	r->path = xstrdup(path);
	r->access = access;
	r->origin = xstrdup(origin);
	r->punched = punched;
}

static void
compiler_add_mask(struct compiler *c, const struct node *n)
{
	struct plan *plan = c->plan;
	struct plan_mask *m;

	if (plan->n_masks == c->cap_masks) {
		c->cap_masks = c->cap_masks ? 2 * c->cap_masks : 8;
		plan->masks = xreallocarray(plan->masks, c->cap_masks,
					    sizeof(*plan->masks));
	}
	m = &plan->masks[plan->n_masks++];
	m->path = xstrdup(n->path);
	m->access = n->want;
	m->is_dir = n->is_dir;
	m->pin = false;
	m->origin = xstrdup(rule_origin(n->from));
}

static bool
node_is_masked_writable(const struct compiler *c, const struct node *n)
{
	return c->have_masks && n->rule != NULL && pathtree_writable(n->want);
}

/*
 * Bottom-up: what each rule beneath forbids.  A rule forbids the bits it
 * does not want; beneath a writable rule, when masks are available, the
 * rules are masked and so forbid nothing to the ancestors above it.
 */
static void
pathtree_forbid(const struct compiler *c, struct node *n)
{
	uint64_t own = 0;

	n->forbid = 0;
	for (size_t i = 0; i < n->n_kids; i++) {
		pathtree_forbid(c, n->kids[i]);
		n->forbid |= n->kids[i]->up;
	}
	if (n->rule != NULL)
		own = ALL_BITS & ~pathtree_access_bits(n->want);
	if (node_is_masked_writable(c, n))
		n->up = own;
	else
		n->up = own | n->forbid;
}

/* The first rule beneath n (in path order) that forbids one of bits. */
static const struct node *
pathtree_witness(const struct compiler *c, const struct node *n, uint64_t bits)
{
	for (size_t i = 0; i < n->n_kids; i++) {
		const struct node *k = n->kids[i], *w;

		if (k->rule != NULL &&
		    (ALL_BITS & ~pathtree_access_bits(k->want) & bits))
			return k;
		if (node_is_masked_writable(c, k))
			continue;
		w = pathtree_witness(c, k, bits);
		if (w != NULL)
			return w;
	}
	return NULL;
}

static const char *
node_rule_path(const struct node *n)
{
	return n->from != NULL ? n->from->rule->path : "/";
}

/* A last component resolved ahead by fs->resolve_in: resolve_at's r,
 * out (taken when used) and is_dir. */
struct rleaf {
	int r;
	char *out;
	bool is_dir;
};

static void
pathtree_rleaf_free(struct rleaf **leaf, size_t n)
{
	for (size_t i = 0; *leaf != NULL && i < n; i++)
		free((*leaf)[i].out);
	free(*leaf);
	*leaf = NULL;
}

/*
 * Hole punching at directory n, for the narrower rule w beneath: n keeps
 * what the caller granted it (g), and every entry of n that is not on the
 * way to a rule beneath gets n's access by a rule of its own.
 */
static int
pathtree_punch(struct compiler *c, struct node *n, uint64_t g,
	       const struct node *w)
{
	_cleanup_strv_ char **names = NULL;
	_cleanup_free_ int *lr = NULL;
	_cleanup_free_ char **lout = NULL;
	_cleanup_free_ bool *ldir = NULL;
	struct rleaf *leaf = NULL;
	uint64_t want = pathtree_access_bits(n->want);
	size_t n_left = 0;
	int r;

	r = c->fs->list(c->fs->ctx, n->path, &names);
	if (r < 0) {
		*c->cause = xasprintf(
			"Cannot list %s (%s), which hole punching needs for "
			"%s %s (%s) inside %s %s (%s); make the directory "
			"readable or remove the narrower rule.",
			n->path, strerror(-r), pathtree_level_name(w->want),
			w->rule->rule->path, rule_origin(w->rule),
			pathtree_level_name(n->want), node_rule_path(n),
			rule_origin(n->from));
		return r;
	}
	/* The entries without a node of their own, resolved together where
	 * the filesystem can (one read of the directory). */
	for (char **e = names; e != NULL && *e != NULL; e++)
		if (node_child(n, *e) == NULL)
			names[n_left++] = *e;
		else
			free(*e);
	if (names != NULL)
		names[n_left] = NULL;
	if (c->fs->resolve_in != NULL && c->fs->resolve_at != NULL &&
	    n_left > 0) {
		leaf = xcalloc(n_left, sizeof(*leaf));
		lr = xcalloc(n_left, sizeof(*lr));
		lout = xcalloc(n_left, sizeof(*lout));
		ldir = xcalloc(n_left, sizeof(*ldir));
		c->fs->resolve_in(c->fs->ctx, n->path,
				  (const char *const *)names, n_left, lr, lout,
				  ldir);
		for (size_t i = 0; i < n_left; i++)
			leaf[i] = (struct rleaf){ lr[i], lout[i], ldir[i] };
	}
	for (size_t i = 0; i < n_left; i++) {
		_cleanup_free_ char *path = NULL, *res = NULL;
		char **e = &names[i];
		bool is_dir = false;

		path = pathtree_join(n->path, *e);
		/*
		 * A symlink needs no rule: access through it is decided at its
		 * target, and a rule on it would land on the target (rule fds
		 * are opened following symlinks), which may be the very path
		 * being hidden.  Dangling entries are skipped too.
		 */
		if (leaf != NULL) {
			r = leaf[i].r;
			res = steal_pointer(&leaf[i].out);
			is_dir = leaf[i].is_dir;
			if (r == 0 || r == -EACCES)
				continue;
			if (r < 0)
				goto fail;
		} else if (c->fs->resolve_at != NULL) {
			r = c->fs->resolve_at(c->fs->ctx, n->path, *e, &res,
					      &is_dir);
			if (r == 0 || r == -EACCES)
				continue;
			if (r < 0)
				goto fail;
		} else {
			r = c->fs->stat(c->fs->ctx, path, &is_dir);
			if (r == 0 || r == -EACCES)
				continue;
			if (r < 0)
				goto fail;
			r = c->fs->resolve(c->fs->ctx, path, &res);
			if (r == -EACCES)
				continue;
			if (r < 0)
				goto fail;
		}
		if (strcmp(res, path) != 0)
			continue;
		if (((is_dir ? want : want & LLW_FS_FILE_RIGHTS) & ~g) == 0)
			continue;
		compiler_add_rule(c, path, want, is_dir, rule_origin(n->from),
				  true);
		continue;
	fail:
		*c->cause =
			xasprintf("Cannot inspect %s: %s.", path, strerror(-r));
		pathtree_rleaf_free(&leaf, n_left);
		return r;
	}
	pathtree_rleaf_free(&leaf, n_left);
	return 0;
}

static int
pathtree_visit(struct compiler *c, struct node *n, uint64_t g,
	       enum llw_access view, bool has_view)
{
	uint64_t want = pathtree_access_bits(n->want);
	uint64_t need = want & ~g, lack, reach, vbits;
	int r;

	/* The Landlock rights that reach the entries of n (not on the way to
	 * a rule beneath) once n is handled. */
	reach = g;
	if (need != 0) {
		lack = need & n->forbid;
		if (lack == 0 ||
		    (pathtree_writable(n->want) && c->have_masks)) {
			compiler_add_rule(c, n->path, want, n->is_dir,
					  rule_origin(n->from),
					  n->rule == NULL);
			g |= want;
			reach = g;
		} else {
			const struct node *w = pathtree_witness(c, n, lack);
			uint64_t keep = want & ~n->forbid;

			if (w == NULL) {
				*c->cause = xasprintf(
					"Internal error compiling %s.",
					n->path);
				return -EINVAL;
			}

			if (pathtree_writable(n->want) && !c->p->best_effort) {
				*c->cause = xasprintf(
					"%s %s (%s) is inside %s %s (%s), a "
					"writable directory: Landlock cannot "
					"take access away beneath it, and "
					"hiding it without mount masks (L3, "
					"which needs unprivileged user "
					"namespaces) would also cut off every "
					"entry created in %s later; allow user "
					"namespaces, or run with --best-effort "
					"to accept that loss.",
					pathtree_level_name(w->want),
					w->rule->rule->path,
					rule_origin(w->rule),
					pathtree_level_name(n->want),
					node_rule_path(n), rule_origin(n->from),
					n->path);
				return -EPERM;
			}
			if ((keep & ~g) != 0)
				compiler_add_rule(c, n->path, keep, true,
						  rule_origin(n->from), true);
			r = pathtree_punch(c, n, g | keep, w);
			if (r < 0)
				return r;
			if (pathtree_writable(n->want))
				compiler_lost(
					c,
					xasprintf(
						"%s %s (%s): %s itself and "
						"entries created in it later "
						"get %s only, because %s %s "
						"(%s) is hidden by hole "
						"punching without mount masks",
						pathtree_level_name(n->want),
						n->path, rule_origin(n->from),
						n->path,
						pathtree_level_name(
							pathtree_level_of(
								(g | keep) &
								want)),
						pathtree_level_name(w->want),
						w->rule->rule->path,
						rule_origin(w->rule)));
			else if ((want & LLW_FS_READ_DIR) &&
				 !((g | keep) & LLW_FS_READ_DIR))
				/*
				 * READ_DIR on n would reach the hidden entry
				 * too, so n cannot be listed; its other
				 * entries stay reachable by name.
				 */
				compiler_note(
					c,
					xasprintf("%s: cannot be listed in the "
						  "sandbox, because hiding %s "
						  "(%s) keeps READ_DIR off it; "
						  "its other entries are "
						  "reachable by name",
						  n->path, w->rule->rule->path,
						  rule_origin(w->rule)));
			reach = g | want;
			g |= keep;
		}
	}

	/* Masks: what reaches n's entries, seen through the view above. */
	vbits = has_view ? pathtree_access_bits(view) : ALL_BITS;
	if ((reach & vbits) != want) {
		if (!c->have_masks) {
			/* The forbidden bits make this unreachable. */
			*c->cause = xasprintf("Internal error compiling %s.",
					      n->path);
			return -EINVAL;
		}
		compiler_add_mask(c, n);
		view = n->want;
		has_view = true;
	} else if (n->pin && pathtree_writable(n->want)) {
		/* Writable, so it could be renamed or replaced: a mount of
		 * itself onto itself is a mount point, which cannot. */
		if (c->have_masks) {
			compiler_add_mask(c, n);
			c->plan->masks[c->plan->n_masks - 1].pin = true;
			free(c->plan->masks[c->plan->n_masks - 1].origin);
			c->plan->masks[c->plan->n_masks - 1].origin =
				xstrdup(rule_origin(n->pin_rule));
			view = n->want;
			has_view = true;
		} else if (!c->p->best_effort) {
			*c->cause = xasprintf(
				"%s (%s) must be pinned in place (bound onto "
				"itself, so that it cannot be renamed or "
				"replaced), which needs mount namespaces (L3, "
				"unprivileged user namespaces); allow them, or "
				"run with --best-effort to accept that loss.",
				n->path, rule_origin(n->pin_rule));
			return -EPERM;
		} else {
			compiler_lost(c, xasprintf("%s (%s): can be renamed "
						   "or replaced (pinning it "
						   "needs L3)",
						   n->path,
						   rule_origin(n->pin_rule)));
		}
	}

	for (size_t i = 0; i < n->n_kids; i++) {
		r = pathtree_visit(c, n->kids[i], g, view, has_view);
		if (r < 0)
			return r;
	}
	return 0;
}

static int
pathtree_rrule_cmp(const void *a, const void *b)
{
	const struct rrule *x = a, *y = b;
	int c = path_cmp(x->path, y->path);

	if (c != 0)
		return c;
	/* At one path: lower rank first, then array order; the last wins. */
	if (x->rule->rank != y->rule->rank)
		return x->rule->rank < y->rule->rank ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A rule's path and its index in the input, sorted by pathtree_resolve_all().
 */
struct rkey {
	const char *path;
	size_t idx;
};

static int
pathtree_rkey_cmp(const void *a, const void *b)
{
	const struct rkey *x = a, *y = b;
	int c = path_cmp(x->path, y->path);

	if (c != 0)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A path prefix already resolved, for pathtree_resolve_one(). */
struct rent {
	char *lex;
	char *res;
	enum rstate state;
};

/*
 * Resolve name, one component, in top's directory: its path in *res and
 * its state.  leaf, when not NULL, is name's result in it already.
 */
static int
pathtree_resolve_step(struct compiler *c, const struct rent *top,
		      const char *name, struct rleaf *leaf, char **res,
		      enum rstate *state)
{
	const struct pathtree_fs *fs = c->fs;
	bool is_dir = false;
	int r;

	*res = NULL;
	if (top->state != RS_DIR) {
		*state = top->state == RS_UNREACHABLE ? RS_UNREACHABLE
						      : RS_MISSING;
	} else {
		if (leaf != NULL) {
			r = leaf->r;
			*res = steal_pointer(&leaf->out);
			is_dir = leaf->is_dir;
		} else {
			r = fs->resolve_at(fs->ctx, top->res, name, res,
					   &is_dir);
		}
		if (r == -EACCES) {
			*state = RS_UNREACHABLE;
		} else if (r < 0) {
			free(*res);
			*res = NULL;
			return r;
		} else {
			*state = r == 0	  ? RS_MISSING
				 : is_dir ? RS_DIR
					  : RS_FILE;
		}
	}
	if (*res == NULL)
		*res = pathtree_join(top->res, name);
	return 0;
}

/*
 * Resolve path.  With fs->resolve_at, walk it component by component from
 * the deepest prefix of the previous path on *stack (paths come sorted), so
 * each distinct component costs one look-up; the state is then known too.
 * leaf, when not NULL, is the result for path's last component in its
 * parent, which is then on the stack (pathtree_resolve_run()).  Without
 * keep (no path to come lies beneath this one), path itself is not
 * pushed: most rules are leaves, and each push was copies made to be
 * freed at the next path.
 */
static int
pathtree_resolve_one(struct compiler *c, struct rent **stack, size_t *depth,
		     const char *path, struct rleaf *leaf, bool keep,
		     char **res, enum rstate *state)
{
	const struct pathtree_fs *fs = c->fs;
	struct rent *top;
	int r;

	if (fs->resolve_at == NULL) {
		*state = RS_UNKNOWN;
		r = fs->resolve(fs->ctx, path, res);
		if (r == -EACCES) {
			*state = RS_UNREACHABLE;
			*res = xstrdup(path);
			return 0;
		}
		return r;
	}
	if (*depth == 0) {
		*stack = xcalloc(1, sizeof(**stack));
		(*stack)[0] =
			(struct rent){ xstrdup("/"), xstrdup("/"), RS_DIR };
		*depth = 1;
	}
	while (*depth > 1 && !path_under(path, (*stack)[*depth - 1].lex)) {
		(*depth)--;
		free((*stack)[*depth].lex);
		free((*stack)[*depth].res);
	}
	top = &(*stack)[*depth - 1];
	while (strcmp(top->lex, path) != 0) {
		const char *rest = path + strlen(top->lex);
		const char *end;
		_cleanup_free_ char *name = NULL;
		struct rent e = { 0 };
		bool last;

		if (*rest == '/')
			rest++;
		end = strchrnul(rest, '/');
		last = *end == '\0';
		if (last && !keep)
			return pathtree_resolve_step(c, top, rest, leaf, res,
						     state);
		name = xstrndup(rest, end - rest);
		r = pathtree_resolve_step(c, top, name, last ? leaf : NULL,
					  &e.res, &e.state);
		if (r < 0)
			return r;
		e.lex = xstrndup(path, end - path);
		*stack = xreallocarray(*stack, *depth + 1, sizeof(**stack));
		(*stack)[(*depth)++] = e;
		top = &(*stack)[*depth - 1];
	}
	*res = xstrdup(top->res);
	*state = top->state;
	return 0;
}

/* True for "/" and "/a/b": absolute, no empty, "." or ".." component. */
static bool
pathtree_normal(const char *path)
{
	const char *p = path;

	if (path == NULL || path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	while (*p == '/') {
		const char *end = strchrnul(p + 1, '/');
		size_t len = end - p - 1;

		if (len == 0 || (len == 1 && p[1] == '.') ||
		    (len == 2 && p[1] == '.' && p[2] == '.'))
			return false;
		p = end;
	}
	return true;
}

/* The length of path's parent directory in it ("/a/b": 2), 0 under "/". */
static size_t
pathtree_parent_len(const char *path)
{
	return (size_t)(strrchr(path, '/') - path);
}

/*
 * Ahead of order[k]'s path, with fs->resolve_in: the run of paths from k
 * on that share its parent directory, when there are two or more, ends
 * at *end, and their last components, resolved together in the parent,
 * are in leaf (which the caller frees, as pathtree_resolve_one() takes
 * each out it uses).  The parent is resolved first, so the stack ends
 * at it.  No run (*end stays k) under "/"; no leaf where the parent
 * cannot be resolved or is no directory: each path then resolves as it
 * would.
 */
static void
pathtree_resolve_run(struct compiler *c, struct rent **stack, size_t *depth,
		     const size_t *order, size_t k, size_t *end,
		     struct rleaf **leaf)
{
	const struct llw_path_rule *paths = c->p->paths;
	const char *first = paths[order[k]].path;
	size_t len = pathtree_parent_len(first), e = k + 1, m, n = 0, i, j;
	_cleanup_free_ char *parent = NULL;
	_cleanup_free_ char *res = NULL;
	_cleanup_free_ const char **names = NULL;
	_cleanup_free_ int *r = NULL;
	_cleanup_free_ char **out = NULL;
	_cleanup_free_ bool *is_dir = NULL;
	enum rstate state;

	*end = k;
	if (c->fs->resolve_in == NULL || c->fs->resolve_at == NULL || len == 0)
		return;
	while (e < c->p->n_paths) {
		const char *q = paths[order[e]].path;

		if (pathtree_parent_len(q) != len ||
		    strncmp(q, first, len) != 0)
			break;
		e++;
	}
	if ((m = e - k) < 2)
		return;
	*end = e;
	parent = xstrndup(first, len);
	if (pathtree_resolve_one(c, stack, depth, parent, NULL, true, &res,
				 &state) < 0 ||
	    state != RS_DIR)
		return;
	/* Each name once: a path named twice is resolved once (its copies
	 * take the first one's result, pathtree_resolve_all()). */
	names = xcalloc(m, sizeof(*names));
	for (i = 0; i < m; i++)
		if (i == 0 || strcmp(paths[order[k + i]].path,
				     paths[order[k + i - 1]].path) != 0)
			names[n++] = paths[order[k + i]].path + len + 1;
	if (n < 2)
		return;
	r = xcalloc(n, sizeof(*r));
	out = xcalloc(n, sizeof(*out));
	is_dir = xcalloc(n, sizeof(*is_dir));
	c->fs->resolve_in(c->fs->ctx, res, names, n, r, out, is_dir);
	*leaf = xcalloc(m, sizeof(**leaf));
	for (i = 0, j = 0; i < m; i++)
		if (i == 0 || strcmp(paths[order[k + i]].path,
				     paths[order[k + i - 1]].path) != 0) {
			(*leaf)[i] = (struct rleaf){ r[j], out[j], is_dir[j] };
			j++;
		}
}

/* Resolve every rule path, once per distinct path. */
static int
pathtree_resolve_all(struct compiler *c, struct rrule **out, size_t *n_out)
{
	const struct pathtree_input *p = c->p;
	_cleanup_free_ size_t *order = NULL;
	_cleanup_free_ struct rkey *keys = NULL;
	struct rent *stack = NULL;
	size_t depth = 0;
	_cleanup_free_ char *proj_res = NULL;
	struct rleaf *leaf = NULL;
	size_t run = 0, run_end = 0;
	bool keep;
	struct rrule *v;
	size_t n = 0;
	int r = 0;

	*out = NULL;
	*n_out = 0;
	if (p->n_paths == 0)
		return 0;
	for (size_t i = 0; i < p->n_paths; i++) {
		const struct llw_path_rule *rule = &p->paths[i];

		if (!pathtree_normal(rule->path)) {
			*c->cause = xasprintf(
				"The path %s (%s) is not absolute and "
				"normalised.",
				rule->path ? rule->path : "(null)",
				rule->origin ? rule->origin : "built-in");
			return -EINVAL;
		}
	}
	if (p->project != NULL &&
	    c->fs->resolve(c->fs->ctx, p->project, &proj_res) < 0)
		proj_res = NULL;
	/* By path, then input order: profiles list their paths mostly in
	 * order, which pathtree_sort() merges in a few linear passes where
	 * qsort compared long shared prefixes n log n times. */
	keys = xcalloc(p->n_paths, sizeof(*keys));
	for (size_t i = 0; i < p->n_paths; i++)
		keys[i] = (struct rkey){ p->paths[i].path, i };
	pathtree_sort(keys, p->n_paths, sizeof(*keys), pathtree_rkey_cmp);
	order = xcalloc(p->n_paths, sizeof(*order));
	for (size_t i = 0; i < p->n_paths; i++)
		order[i] = keys[i].idx;
	v = xcalloc(p->n_paths, sizeof(*v));
	for (size_t k = 0; k < p->n_paths; k++, n++) {
		const struct llw_path_rule *rule = &p->paths[order[k]];

		v[n].rule = rule;
		v[n].idx = order[k];
		if (k >= run_end) {
			pathtree_rleaf_free(&leaf, run_end - run);
			run = k;
			pathtree_resolve_run(c, &stack, &depth, order, k,
					     &run_end, &leaf);
		}
		if (n > 0 && strcmp(v[n - 1].rule->path, rule->path) == 0) {
			v[n].path = xstrdup(v[n - 1].path);
			v[n].state = v[n - 1].state;
			continue;
		}
		/* Kept on the stack only for a path beneath it (they are
		 * sorted, so the next one). */
		keep = k + 1 < p->n_paths &&
		       path_under(p->paths[order[k + 1]].path, rule->path);
		r = pathtree_resolve_one(c, &stack, &depth, rule->path,
					 leaf != NULL ? &leaf[k - run] : NULL,
					 keep, &v[n].path, &v[n].state);
		if (r < 0) {
			*c->cause = xasprintf(
				"Cannot resolve %s (%s): %s.", rule->path,
				rule->origin ? rule->origin : "built-in",
				strerror(-r));
			break;
		}
		if (proj_res != NULL && v[n].state != RS_UNREACHABLE &&
		    path_under(rule->path, p->project) &&
		    strcmp(rule->path, p->project) != 0 &&
		    !path_under(v[n].path, proj_res))
			v[n].state = RS_ESCAPED;
		if (v[n].state != RS_UNREACHABLE &&
		    strcmp(v[n].path, rule->path) != 0)
			compiler_note(c, xasprintf("%s (%s): resolves to %s",
						   rule->path,
						   rule->origin ? rule->origin
								: "built-in",
						   v[n].path));
	}
	pathtree_rleaf_free(&leaf, run_end - run);
	for (size_t i = 0; i < depth; i++) {
		free(stack[i].lex);
		free(stack[i].res);
	}
	free(stack);
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(v[i].path);
		free(v);
		return r;
	}
	*out = v;
	*n_out = n;
	return 0;
}

/* Add the intermediate nodes from the deepest of *stack to path. */
static struct node *
pathtree_insert(struct node ***stack, size_t *depth, const char *path)
{
	struct node *top;

	while (*depth > 1 && !path_under(path, (*stack)[*depth - 1]->path))
		(*depth)--;
	top = (*stack)[*depth - 1];
	while (strcmp(top->path, path) != 0) {
		const char *rest = path + strlen(top->path);
		const char *end;
		_cleanup_free_ char *sub = NULL;

		if (*rest == '/')
			rest++;
		end = strchr(rest, '/');
		sub = end != NULL ? xstrndup(path, end - path) : xstrdup(path);
		top = node_new(top, sub);
		*stack = xreallocarray(*stack, *depth + 1, sizeof(**stack));
		(*stack)[(*depth)++] = top;
	}
	return top;
}

/* Top-down: each node's access is that of its longest prefix rule. */
static void
pathtree_want(struct compiler *c, struct node *n)
{
	if (n->rule == NULL) {
		n->want = n->parent ? n->parent->want : LLW_ACCESS_DENY;
		n->from = n->parent ? n->parent->from : NULL;
	} else if (n->rule->rule->rank == LLW_RANK_PIN) {
		/* A pin keeps the access the other rules give. */
		n->want = n->base     ? n->base->rule->access
			  : n->parent ? n->parent->want
				      : LLW_ACCESS_DENY;
		n->from = n->base     ? n->base
			  : n->parent ? n->parent->from
				      : NULL;
	} else if (rule_is_config(n->rule)) {
		/*
		 * Config-file protection takes write (and execute) away; it
		 * never makes readable a file the other rules hide.
		 */
		enum llw_access base = n->base	   ? n->base->rule->access
				       : n->parent ? n->parent->want
						   : LLW_ACCESS_DENY;

		/*
		 * Decided here, on resolved paths, and not where the rule
		 * was made: a file given through a symlinked path, or
		 * inside a grant given through one, is writable exactly
		 * when its resolved path is (DESIGN.md §4.4).  A path the
		 * rules leave unwritable keeps its access: taking execute
		 * away there would punch holes in the parent for nothing.
		 */
		if (!pathtree_writable(base)) {
			n->want = base;
			n->from = n->base     ? n->base
				  : n->parent ? n->parent->from
					      : NULL;
			if (base == LLW_ACCESS_DENY)
				compiler_note(
					c, xasprintf("%s (%s): not reachable "
						     "in the sandbox; nothing "
						     "to protect",
						     n->rule->rule->path,
						     rule_origin(n->rule)));
		} else {
			/* Read-only; a protected rx rule (git hooks) keeps
			 * execute where the tree has it. */
			n->want = n->rule->rule->access == LLW_ACCESS_RX &&
						  base == LLW_ACCESS_RWX
					  ? LLW_ACCESS_RX
					  : LLW_ACCESS_RO;
			n->from = n->rule;
		}
	} else {
		n->want = n->rule->rule->access;
		n->from = n->rule;
	}
	for (size_t i = 0; i < n->n_kids; i++)
		pathtree_want(c, n->kids[i]);
}

static int
pathtree_plan_rule_cmp(const void *a, const void *b)
{
	return path_cmp(((const struct plan_rule *)a)->path,
			((const struct plan_rule *)b)->path);
}

static int
pathtree_plan_mask_cmp(const void *a, const void *b)
{
	return path_cmp(((const struct plan_mask *)a)->path,
			((const struct plan_mask *)b)->path);
}

/* Merge the sorted src[lo, mid) and src[mid, hi) into dst[lo, hi),
 * the left one first on a tie (stable). */
static void
pathtree_merge(const char *src, size_t lo, size_t mid, size_t hi, char *dst,
	       size_t size, int (*cmp)(const void *, const void *))
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi) {
		if (cmp(src + j * size, src + i * size) < 0)
			memcpy(dst + k++ * size, src + j++ * size, size);
		else
			memcpy(dst + k++ * size, src + i++ * size, size);
	}
	memcpy(dst + k * size, src + i * size, (mid - i) * size);
	k += mid - i;
	memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

/*
 * Sort v (n elements of size bytes) by cmp, stably.  Rule lists come
 * mostly in order (profiles list paths in order, the trie walk emits
 * them in order, resolution moves a few: 10,000 rules are 4 ascending
 * runs after a profile's few dozen short ones), where qsort would still
 * make n log n comparisons of long shared prefixes (3.8 ms at 10,000
 * rules).  The ascending runs are merged as they are found, by timsort's
 * rule (a run is merged with its neighbour once it is not longer than
 * the two above it together, or than the one above): short runs merge
 * among themselves before they meet a long one, a list in order costs
 * n - 1 comparisons, one in no order n log n, and the stack of pending
 * runs grows as the Fibonacci numbers, so PATHTREE_SORT_DEPTH runs
 * cover any n.
 */
#define PATHTREE_SORT_DEPTH 96

struct sortrun {
	size_t base, len;
};

/* Merge runs k and k + 1 of st (adjacent in a) through tmp. */
static void
pathtree_merge_at(char *a, char *tmp, struct sortrun *st, size_t *depth,
		  size_t k, size_t size, int (*cmp)(const void *, const void *))
{
	size_t lo = st[k].base, mid = lo + st[k].len, hi = mid + st[k + 1].len;

	pathtree_merge(a, lo, mid, hi, tmp, size, cmp);
	memcpy(a + lo * size, tmp + lo * size, (hi - lo) * size);
	st[k].len = hi - lo;
	if (k + 2 < *depth)
		st[k + 1] = st[k + 2];
	(*depth)--;
}

void
pathtree_sort(void *v, size_t n, size_t size,
	      int (*cmp)(const void *, const void *))
{
	struct sortrun st[PATHTREE_SORT_DEPTH];
	size_t depth = 0, i = 0, lo;
	char *a = v, *tmp = NULL;

	while (i < n) {
		for (lo = i++;
		     i < n && cmp(a + (i - 1) * size, a + i * size) <= 0; i++)
			;
		if (lo == 0 && i == n)
			return; /* in order */
		if (tmp == NULL)
			tmp = xreallocarray(NULL, n, size);
		st[depth++] = (struct sortrun){ lo, i - lo };
		while (depth > 1) {
			size_t k = depth - 2;

			if ((k > 0 &&
			     st[k - 1].len <= st[k].len + st[k + 1].len) ||
			    (k > 1 &&
			     st[k - 2].len <= st[k - 1].len + st[k].len)) {
				if (st[k - 1].len < st[k + 1].len)
					k--;
			} else if (st[k].len > st[k + 1].len) {
				break;
			}
			pathtree_merge_at(a, tmp, st, &depth, k, size, cmp);
		}
	}
	while (depth > 1) {
		size_t k = depth - 2;

		if (k > 0 && st[k - 1].len < st[k + 1].len)
			k--;
		pathtree_merge_at(a, tmp, st, &depth, k, size, cmp);
	}
	free(tmp);
}

/* Sort the rules by path and merge those on one path. */
static void
pathtree_finish(struct plan *plan)
{
	size_t m = 0;

	pathtree_sort(plan->rules, plan->n_rules, sizeof(*plan->rules),
		      pathtree_plan_rule_cmp);
	for (size_t i = 0; i < plan->n_rules; i++) {
		struct plan_rule *r = &plan->rules[i];

		if (m > 0 && strcmp(plan->rules[m - 1].path, r->path) == 0) {
			plan->rules[m - 1].access |= r->access;
			plan->rules[m - 1].punched &= r->punched;
			free(r->path);
			free(r->origin);
			continue;
		}
		plan->rules[m++] = *r;
	}
	plan->n_rules = m;
	pathtree_sort(plan->masks, plan->n_masks, sizeof(*plan->masks),
		      pathtree_plan_mask_cmp);
}

/* The plan's sources: rr, sorted, copied; each resolved path moves to
 * the plan, and rr borrows it from there (the caller does not free it). */
static void
pathtree_record_sources(struct plan *plan, struct rrule *rr, size_t n)
{
	plan->sources = xcalloc(n ? n : 1, sizeof(*plan->sources));
	plan->n_sources = n;
	for (size_t i = 0; i < n; i++)
		plan->sources[i] = (struct plan_source){
			.path = rr[i].path,
			.written = xstrdup(rr[i].rule->path),
			.access = rr[i].rule->access,
			.rank = rr[i].rule->rank,
			.origin = xstrdup(rule_origin(&rr[i])),
		};
}

struct plan *
pathtree_sources(const struct pathtree_input *p, const struct pathtree_fs *fs)
{
	_cleanup_free_ char *cause = NULL;
	struct compiler c = { .p = p, .fs = fs, .cause = &cause };
	struct rrule *rr = NULL;
	size_t n_rr = 0;

	c.plan = xcalloc(1, sizeof(*c.plan));
	if (pathtree_resolve_all(&c, &rr, &n_rr) < 0) {
		plan_free(c.plan);
		return NULL;
	}
	pathtree_sort(rr, n_rr, sizeof(*rr), pathtree_rrule_cmp);
	pathtree_record_sources(c.plan, rr, n_rr);
	free(rr);
	return c.plan;
}

/*
 * A denied path that does not exist at the start: nothing to mask, and
 * nothing is created for it.  Where the rules would let the command read
 * a file made there (a writable or readable parent), the mask watch
 * stops the run if one appears (plan->absent, maskwatch.h): a mount
 * cannot cover a name that does not exist, and a descriptor opened at
 * its creation outlives any later mask.
 */
static void
absent_note(struct compiler *c, const struct rrule *win)
{
	if (!plan_allows(c->plan, win->path, LLW_FS_READ_FILE)) {
		compiler_note(c, xasprintf("deny %s (%s): does not exist; "
					   "nothing to hide, not created",
					   win->rule->path, rule_origin(win)));
		return;
	}
	strv_push(&c->plan->absent, win->path);
	compiler_note(c, xasprintf("deny %s (%s): does not exist at the "
				   "start; nothing to mask, not created: "
				   "the run is stopped if it appears where "
				   "the sandbox's view shows it",
				   win->rule->path, rule_origin(win)));
}

int
pathtree_compile(const struct pathtree_input *p, const struct pathtree_fs *fs,
		 bool have_masks, struct plan **out, char **cause)
{
	struct compiler c = {
		.p = p,
		.fs = fs,
		.have_masks = have_masks,
		.cause = cause,
	};
	_cleanup_free_ struct node **stack = NULL;
	struct rrule *rr = NULL;
	_cleanup_free_ const struct rrule **absent = NULL;
	struct node *root = NULL;
	size_t n_rr = 0, n_absent = 0, depth = 1;
	int r;

	*out = NULL;
	c.plan = xcalloc(1, sizeof(*c.plan));
	c.cap_notes = c.cap_lost = 8;
	c.plan->notes = xcalloc(c.cap_notes, sizeof(char *));
	c.plan->lost = xcalloc(c.cap_lost, sizeof(char *));

	r = pathtree_resolve_all(&c, &rr, &n_rr);
	if (r < 0)
		goto out;
	pathtree_sort(rr, n_rr, sizeof(*rr), pathtree_rrule_cmp);
	pathtree_record_sources(c.plan, rr, n_rr);

	root = node_new(NULL, "/");
	root->name = root->path;
	stack = xcalloc(1, sizeof(*stack));
	stack[0] = root;
	for (size_t i = 0, j; i < n_rr; i = j) {
		const struct rrule *win, *base = NULL;
		struct node *n;
		bool is_dir = false;

		/* rr[i..j) share a path; the last one wins. */
		for (j = i + 1; j < n_rr && strcmp(rr[j].path, rr[i].path) == 0;
		     j++)
			;
		win = &rr[j - 1];
		for (size_t k = i; k < j - 1; k++) {
			if (!rule_is_guard(&rr[k]))
				base = &rr[k];
			if (rule_is_guard(win) || rule_is_guard(&rr[k]))
				continue;
			compiler_note(
				&c,
				xasprintf(
					"%s %s (%s): overridden by %s %s "
					"(%s)",
					pathtree_level_name(rr[k].rule->access),
					rr[k].rule->path, rule_origin(&rr[k]),
					pathtree_level_name(win->rule->access),
					win->rule->path, rule_origin(win)));
		}

		switch (win->state) {
		case RS_UNKNOWN:
			r = fs->stat(fs->ctx, win->path, &is_dir);
			break;
		case RS_DIR:
			is_dir = true;
			r = 1;
			break;
		case RS_FILE:
			r = 1;
			break;
		case RS_MISSING:
			r = 0;
			break;
		case RS_UNREACHABLE:
			r = -EACCES;
			break;
		case RS_ESCAPED:
			r = -EXDEV;
			break;
		}
		if (r == -EXDEV && win->rule->access != LLW_ACCESS_DENY) {
			compiler_missing(&c, win,
					 "leads out of the project through a "
					 "symbolic link (the command's to "
					 "make): not granted");
			continue;
		}
		if (r == -EXDEV)
			r = fs->stat(fs->ctx, win->path, &is_dir);
		if (r == 0 && win->rule->access == LLW_ACCESS_DENY) {
			/* Noted once the plan tells whether a file made
			 * there would be readable (absent_note). */
			absent = xreallocarray(absent, n_absent + 1,
					       sizeof(*absent));
			absent[n_absent++] = win;
			continue;
		}
		if (r == 0 || r == -EACCES) {
			/* Nothing is ever created for a rule. */
			if (win->rule->access == LLW_ACCESS_DENY)
				compiler_note(
					&c,
					xasprintf(
						"deny %s (%s): %s; nothing "
						"to hide, not created",
						win->rule->path,
						rule_origin(win),
						r == 0 ? "does not exist"
						       : "cannot be reached"));
			else
				compiler_missing(&c, win,
						 r == 0 ? "does not exist"
							: "cannot be reached");
			continue;
		}
		if (r < 0) {
			*cause = xasprintf("Cannot inspect %s (%s): %s.",
					   win->path, rule_origin(win),
					   strerror(-r));
			goto out;
		}
		n = pathtree_insert(&stack, &depth, win->path);
		n->rule = win;
		n->base = base;
		n->is_dir = is_dir;
		for (size_t k = i; k < j; k++)
			if (rr[k].rule->rank == LLW_RANK_PIN) {
				n->pin = true;
				n->pin_rule = &rr[k];
			}
	}

	pathtree_want(&c, root);
	pathtree_forbid(&c, root);
	r = pathtree_visit(&c, root, 0, LLW_ACCESS_DENY, false);
	if (r < 0)
		goto out;
	pathtree_finish(c.plan);
	for (size_t i = 0; i < n_absent; i++)
		absent_note(&c, absent[i]);
	*out = steal_pointer(&c.plan);
	r = 0;
out:
	node_free(root);
	free(rr); /* its paths are the plan's sources' */
	plan_free(c.plan);
	return r;
}

void
plan_free(struct plan *plan)
{
	if (plan == NULL)
		return;
	for (size_t i = 0; i < plan->n_rules; i++) {
		free(plan->rules[i].path);
		free(plan->rules[i].origin);
	}
	free(plan->rules);
	for (size_t i = 0; i < plan->n_masks; i++) {
		free(plan->masks[i].path);
		free(plan->masks[i].origin);
	}
	free(plan->masks);
	for (size_t i = 0; i < plan->n_sources; i++) {
		free(plan->sources[i].path);
		free(plan->sources[i].written);
		free(plan->sources[i].origin);
	}
	free(plan->sources);
	strv_free(plan->notes);
	strv_free(plan->lost);
	strv_free(plan->missing);
	strv_free(plan->absent);
	free(plan);
}

/*
 * In v, n elements of size bytes whose first member is their path
 * (struct plan_rule, plan_mask and plan_source), sorted by path_cmp():
 * the first index whose path sorts after path (upper) or not before it.
 */
static size_t
plan_bound(const void *v, size_t n, size_t size, const char *path, bool upper)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = path_cmp(*(char *const *)((const char *)v + mid * size),
				 path);

		if (c < 0 || (upper && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

_Static_assert(offsetof(struct plan_rule, path) == 0 &&
		       offsetof(struct plan_mask, path) == 0 &&
		       offsetof(struct plan_source, path) == 0,
	       "plan_bound() reads the path as the first member");

/* The last of plan's sources at path exactly, or NULL. */
static const struct plan_source *
plan_source_exact(const struct plan *plan, const char *path)
{
	size_t i = plan_bound(plan->sources, plan->n_sources,
			      sizeof(*plan->sources), path, true);

	if (i > 0 && strcmp(plan->sources[i - 1].path, path) == 0)
		return &plan->sources[i - 1];
	return NULL;
}

/*
 * The verdict from what holds a path: the rules' bits together, the
 * deepest rule, the deepest granting right (else the deepest), and the
 * deepest mask, which narrows what the rules allow.
 */
static struct plan_verdict
plan_verdict_of(const struct plan_rule *deepest, const struct plan_rule *best,
		uint64_t bits, const struct plan_mask *m, uint64_t right)
{
	struct plan_verdict v = { false, PLAN_NO_RULE, NULL, NULL, NULL };

	if (deepest == NULL)
		return v;
	v.layer = PLAN_LANDLOCK;
	v.allowed = (bits & right) == right;
	if (best == NULL)
		best = deepest;
	v.rule = best->path;
	v.origin = best->origin;
	if (v.allowed && m != NULL &&
	    (pathtree_access_bits(m->access) & right) != right) {
		v.allowed = false;
		v.layer = PLAN_MASK;
		v.rule = m->path;
		v.origin = m->origin;
	}
	return v;
}

/*
 * plan_decide_rules() on the plan's own rules and masks, which are sorted
 * (pathtree_finish()): those that hold path are at path and its
 * ancestors, so each is found by a binary search, deepest first, where
 * plan_decide_rules() compares path with every rule (the planner asks
 * about a few paths, the supervisor about each socket a command names).
 * At one path the first rule or mask counts as the deepest, as there.
 */
static struct plan_verdict
plan_decide_sorted(const struct plan *plan, const char *path, uint64_t right)
{
	const struct plan_rule *best = NULL, *deepest = NULL;
	const struct plan_mask *m = NULL;
	_cleanup_free_ char *p = xstrdup(path);
	uint64_t bits = 0;
	bool last = false;
	char *slash;

	while (!last) {
		size_t i = plan_bound(plan->rules, plan->n_rules,
				      sizeof(*plan->rules), p, false);
		size_t k = plan_bound(plan->masks, plan->n_masks,
				      sizeof(*plan->masks), p, false);

		for (; i < plan->n_rules && strcmp(plan->rules[i].path, p) == 0;
		     i++) {
			const struct plan_rule *r = &plan->rules[i];

			bits |= r->access;
			if (deepest == NULL)
				deepest = r;
			if (best == NULL && (r->access & right) != 0)
				best = r;
		}
		if (m == NULL && k < plan->n_masks &&
		    strcmp(plan->masks[k].path, p) == 0)
			m = &plan->masks[k];
		/* The parent, up to "/" for an absolute path. */
		slash = strrchr(p, '/');
		if (slash == NULL || (slash == p && p[1] == '\0'))
			last = true;
		else if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	return plan_verdict_of(deepest, best, bits, m, right);
}

struct plan_verdict
plan_decide(const struct plan *plan, const char *path, uint64_t right)
{
	struct plan_verdict v = plan_decide_sorted(plan, path, right);

	v.source = plan_source_at(plan, path);
	return v;
}

bool
plan_allows(const struct plan *plan, const char *path, uint64_t right)
{
	return plan_decide_sorted(plan, path, right).allowed;
}

bool
plan_holds_at(const struct plan *plan, const char *path)
{
	size_t i = plan_bound(plan->rules, plan->n_rules, sizeof(*plan->rules),
			      path, false);
	size_t k = plan_bound(plan->masks, plan->n_masks, sizeof(*plan->masks),
			      path, false);

	return (i < plan->n_rules && strcmp(plan->rules[i].path, path) == 0) ||
	       (k < plan->n_masks && strcmp(plan->masks[k].path, path) == 0);
}

const struct plan_source *
plan_source_at(const struct plan *plan, const char *path)
{
	const struct plan_source *s;
	_cleanup_free_ char *p = NULL;
	char *slash;

	/*
	 * The sources that hold path are at path and its ancestors; sorted,
	 * a deeper one comes after those above it, and at one path the
	 * winner comes last.  So the answer is the last source at the
	 * deepest of them: looked up at path, then at each parent, one
	 * binary search each (a scan of every source was 10,000 path
	 * comparisons a call with 10,000 rules).
	 */
	if (plan == NULL || plan->n_sources == 0)
		return NULL;
	p = xstrdup(path);
	for (;;) {
		if ((s = plan_source_exact(plan, p)) != NULL)
			return s;
		slash = strrchr(p, '/');
		if (slash == NULL || slash == p)
			break;
		*slash = '\0';
	}
	if (path[0] == '/')
		return plan_source_exact(plan, "/");
	return NULL;
}

struct plan_verdict
plan_decide_rules(const struct plan_rule *rules, size_t n_rules,
		  const struct plan_mask *masks, size_t n_masks,
		  const char *path, uint64_t right)
{
	const struct plan_rule *best = NULL, *deepest = NULL;
	const struct plan_mask *m = NULL;
	uint64_t bits = 0;

	for (size_t i = 0; i < n_rules; i++) {
		const struct plan_rule *r = &rules[i];

		if (!path_under(path, r->path))
			continue;
		bits |= r->access;
		/* Those holding path nest: the longest is the deepest
		 * (a ruleset's rules need not be sorted). */
		if (deepest == NULL || strlen(r->path) > strlen(deepest->path))
			deepest = r;
		if ((r->access & right) != 0 &&
		    (best == NULL || strlen(r->path) > strlen(best->path)))
			best = r;
	}
	for (size_t i = 0; i < n_masks; i++)
		if (path_under(path, masks[i].path) &&
		    (m == NULL || strlen(masks[i].path) > strlen(m->path)))
			m = &masks[i];
	return plan_verdict_of(deepest, best, bits, m, right);
}
