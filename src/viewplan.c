/*
 * The plan of L3's mount view: what ns.c mounts, decided without the
 * kernel.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "path.h"
#include "access.h"
#include "strv.h"
#include "viewplan.h"
#include "xalloc.h"

static bool
is_private_tmp(const char *path)
{
	for (const char *const *t = policy_private_tmps; *t != NULL; t++)
		if (strcmp(path, *t) == 0)
			return true;
	return false;
}

void
viewplan_free(struct viewplan *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->n; i++)
		free(v->m[i].own);
	free(v->m);
	v->m = NULL;
	v->n = v->cap = 0;
}

static int
mount_cmp(const void *a, const void *b)
{
	const struct viewplan_mount *x = a, *y = b;
	int c = path_cmp(x->path, y->path);

	/* At one path, fresh mounts first, then the root, then a mask. */
	return c != 0 ? c : (int)x->kind - (int)y->kind;
}

static bool
path_below(const char *path, const char *dir)
{
	return path_under(path, dir) && strcmp(path, dir) != 0;
}

/*
 * The entry nearest above path (strictly) that is mounted, and with
 * tmpfs a tmpfs, as an index of v, or -1.  The entries are sorted
 * (mount_cmp), so those above path are at its ancestors, each found by a
 * binary search, deepest first, and at one path the last counts; a scan
 * back through every earlier entry made 1,000 writable rules half a
 * million path comparisons.
 */
static int
view_above(const struct viewplan *v, const char *path, bool tmpfs)
{
	_cleanup_free_ char *p = xstrdup(path);
	char *slash;

	for (;;) {
		size_t lo = 0, hi = v->n;

		slash = strrchr(p, '/');
		if (slash == NULL || (slash == p && p[1] == '\0'))
			return -1;
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (path_cmp(v->m[mid].path, p) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo-- > 0 && strcmp(v->m[lo].path, p) == 0)
			if (!v->m[lo].skip &&
			    (!tmpfs || viewplan_is_tmpfs(&v->m[lo])))
				return (int)lo;
	}
}

static void
view_add(struct viewplan *v, const char *path, enum viewplan_kind kind,
	 enum llw_access access, bool is_dir)
{
	/* Doubled: the seal adds an entry for each of a sealed directory's
	 * (a few hundred), which one more each time copied over and over. */
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->m = xreallocarray(v->m, v->cap, sizeof(*v->m));
	}
	v->m[v->n++] = (struct viewplan_mount){
		.path = path,
		.kind = kind,
		.access = access,
		.is_dir = is_dir,
		.tmpfs = -1,
		.fd = -1,
		.from = -1,
	};
}

bool
viewplan_is_tmpfs(const struct viewplan_mount *m)
{
	return m->kind == VIEWPLAN_TMP ||
	       (m->kind == VIEWPLAN_SEAL && !m->made) ||
	       (m->kind == VIEWPLAN_MASK && m->access == LLW_ACCESS_DENY &&
		m->is_dir);
}

static bool
is_writable_entry(const struct viewplan_mount *m)
{
	return m->kind == VIEWPLAN_ROOT ||
	       ((m->kind == VIEWPLAN_MASK || m->kind == VIEWPLAN_BIND) &&
		policy_access_writable(m->access));
}

/* Whether the plan lets the sandbox read path, a directory or not. */
static bool
readable(const struct plan *fs, const char *path, bool is_dir)
{
	return plan_allows(fs, path,
			   is_dir ? LLW_FS_READ_DIR : LLW_FS_READ_FILE);
}

/* readable() on an entry of a directory whose own answers are reads[0]
 * for a file, reads[1] for a directory: the same unless a rule or a mask
 * lies at the entry itself (plan_holds_at, asked of beneath: fs's rules
 * and masks beneath the directory), one binary search where plan_allows
 * does two for each component of the path. */
static bool
entry_readable(const struct plan *fs, const struct plan *beneath,
	       const char *path, bool is_dir, const bool reads[2])
{
	if (plan_holds_at(beneath, path))
		return readable(fs, path, is_dir);
	return reads[is_dir];
}

static char *parent_of(const char *path);

const char *
viewplan_unsealable(const struct plan *fs)
{
	size_t clones = 0;

	if (!readable(fs, "/proc", true))
		return "/proc may not be read whole";
	/* An entry of a sealed directory may be read only by a rule of
	 * its own: the clones are the rules whose directory may not be
	 * listed (but the writable ones, a mount each anyway). */
	for (size_t i = 0; i < fs->n_rules; i++) {
		_cleanup_free_ char *up = NULL;

		if (fs->rules[i].access & pathtree_access_bits(LLW_ACCESS_RW) &
		    ~pathtree_access_bits(LLW_ACCESS_RX))
			continue;
		up = parent_of(fs->rules[i].path);
		/* / is sealed in place: what may be read there stays. */
		if (strcmp(up, "/") != 0 && !readable(fs, up, true) &&
		    ++clones > VIEWPLAN_SEAL_CLONES_MAX)
			return "more than 64 rules in directories that may "
			       "not be listed would each be a mount (as root "
			       "/etc, where /etc/sudoers.d is denied)";
	}
	return NULL;
}

static int
str_cmp(const void *a, const void *b)
{
	return path_cmp(*(char *const *)a, *(char *const *)b);
}

static bool
sorted_has(char *const *v, size_t n, const char *path)
{
	return n > 0 && bsearch(&path, v, n, sizeof(*v), str_cmp) != NULL;
}

/* The entry of v at path, among entries [from, n) (sorted), or NULL. */
static const struct viewplan_mount *
entry_at(const struct viewplan *v, size_t from, size_t n, const char *path)
{
	size_t lo = from, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = path_cmp(v->m[mid].path, path);

		if (c == 0) {
			/* At one path the first that is mounted. */
			while (mid > from &&
			       strcmp(v->m[mid - 1].path, path) == 0)
				mid--;
			for (; mid < n && strcmp(v->m[mid].path, path) == 0;
			     mid++)
				if (!v->m[mid].skip)
					return &v->m[mid];
			return NULL;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

_Static_assert(offsetof(struct viewplan_mount, path) == 0,
	       "span_beneath() reads the path as the first member");

/*
 * Of n elements of size bytes whose first member is their path, sorted
 * by path_cmp(), those strictly beneath dir: [*lo, *hi).  They are
 * contiguous, right after dir's own ('/' sorts before every other byte),
 * so an entry of a sealed directory is looked for among them alone (a
 * few, often none), not among all the view's, the dirs' and the rules'.
 */
static void
span_beneath(const void *v, size_t n, size_t size, const char *dir, size_t *lo,
	     size_t *hi)
{
	size_t a = 0, b = n;

#define SPAN_PATH(i) (*(char *const *)((const char *)v + (i)*size))
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (path_cmp(SPAN_PATH(mid), dir) <= 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	for (b = n; a < b;) {
		size_t mid = a + (b - a) / 2;

		if (path_below(SPAN_PATH(mid), dir))
			a = mid + 1;
		else
			b = mid;
	}
	*hi = a;
#undef SPAN_PATH
}

static char *
parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash == path ? xstrdup("/") : xstrndup(path, slash - path);
}

/* dir/name, for each entry of a sealed directory (not xasprintf: its
 * format's parsing was a seventh of the seal's time). */
static char *
join(const char *dir, const char *name)
{
	size_t d = strcmp(dir, "/") == 0 ? 0 : strlen(dir), n = strlen(name);
	char *p = xmalloc(d + n + 2);

	memcpy(p, dir, d);
	p[d] = '/';
	memcpy(p + d + 1, name, n + 1);
	return p;
}

static void
seal_add(struct viewplan *v, char *path, enum viewplan_kind kind, bool is_dir,
	 bool made)
{
	view_add(v, path, kind, LLW_ACCESS_DENY, is_dir);
	v->m[v->n - 1].own = path;
	v->m[v->n - 1].made = made;
}

/* Whether a fresh mount of the view (a private tmp, proc, devpts or a
 * denied directory's tmpfs) holds path: what is there is not the host's,
 * nothing to seal. */
static bool
fresh_at(const struct viewplan *v, const char *path)
{
	const struct viewplan_mount *m = entry_at(v, 0, v->n, path);

	return view_above(v, path, true) >= 0 ||
	       (m != NULL &&
		(viewplan_is_tmpfs(m) || m->kind == VIEWPLAN_PROC ||
		 m->kind == VIEWPLAN_PTS));
}

/* A growing vector of paths. */
struct paths {
	char **p;
	size_t n, cap;
};

/*
 * Add the ancestors of anchor that may not be listed and hold no fresh
 * mount to dirs, deepest first, up to those of prev (the anchor before,
 * whose ancestors are in already: the sources are sorted, so most of
 * the walk is spared).
 */
static void
seal_ancestors(const struct ns_opts *o, const struct viewplan *v,
	       const char *anchor, const char *prev, struct paths *dirs)
{
	_cleanup_free_ char *p = xstrdup(anchor);

	while (strcmp(p, "/") != 0) {
		char *up = parent_of(p);

		free(p);
		p = up;
		if (prev != NULL && path_under(prev, p))
			return;
		if (readable(o->fs, p, true) || fresh_at(v, p))
			continue;
		if (dirs->n + 1 >= dirs->cap) {
			dirs->cap = dirs->cap ? 2 * dirs->cap : 16;
			dirs->p = xreallocarray(dirs->p, dirs->cap,
						sizeof(*dirs->p));
		}
		dirs->p[dirs->n++] = xstrdup(p);
		dirs->p[dirs->n] = NULL;
	}
}

/* Every directory not readable above something the view must show:
 * a rule, a mask that is not a denial, an entry of the view, a path of
 * o->keep. */
static void
seal_dirs(const struct ns_opts *o, const struct viewplan *v, char ***dirs,
	  size_t *n)
{
	const struct plan *fs = o->fs;
	struct paths d = { 0 };
	const char *prev = NULL;
	size_t k = 0;

	for (size_t i = 0; i < fs->n_rules; i++) {
		seal_ancestors(o, v, fs->rules[i].path, prev, &d);
		prev = fs->rules[i].path;
	}
	prev = NULL;
	for (size_t i = 0; i < fs->n_masks; i++) {
		if (fs->masks[i].access == LLW_ACCESS_DENY)
			continue;
		seal_ancestors(o, v, fs->masks[i].path, prev, &d);
		prev = fs->masks[i].path;
	}
	prev = NULL;
	for (size_t i = 0; i < v->n; i++) {
		if (v->m[i].skip)
			continue;
		seal_ancestors(o, v, v->m[i].path, prev, &d);
		prev = v->m[i].path;
	}
	for (char *const *kp = o->keep; kp != NULL && *kp != NULL; kp++)
		seal_ancestors(o, v, *kp, NULL, &d);
	*dirs = d.p;
	*n = d.n;
	if (*n == 0)
		return;
	qsort(*dirs, *n, sizeof(**dirs), str_cmp);
	for (size_t i = 0; i < *n; i++) {
		if (k > 0 && strcmp((*dirs)[k - 1], (*dirs)[i]) == 0) {
			free((*dirs)[i]);
			continue;
		}
		(*dirs)[k++] = (*dirs)[i];
	}
	(*dirs)[k] = NULL;
	*n = k;
}

/*
 * What a sealed /dev shows of the host's though the plan does not let
 * it be read: the nodes and links of bubblewrap's --dev (bwrap.c), a
 * placeholder or the link made again, so that both backends refuse
 * these paths alike (EACCES).  Every other entry of a sealed /dev, and
 * of a sealed directory beneath it, that may not be read is absent
 * (ENOENT, as under bubblewrap), not a placeholder each: a host's /dev
 * has a hundred nodes or more, and its names are the host's hardware.
 * So is what may not be read of llwrap's own data directory (o->own_data:
 * the other projects' directories, whose names are the user's projects'
 * and grow in number with them).
 */
static const char *const dev_shown[] = {
	"console", "core",    "fd",   "full",	"null",	 "ptmx",
	"pts",	   "random",  "shm",  "stderr", "stdin", "stdout",
	"tty",	   "urandom", "zero", NULL,
};

/* Whether sealed directory dir shows nothing of what may not be read:
 * llwrap's own data directory and what lies in it, a directory beneath
 * /dev. */
static bool
seal_hides_all(const struct ns_opts *o, const char *dir)
{
	return (o->own_data != NULL && path_under(dir, o->own_data)) ||
	       path_below(dir, "/dev");
}

/* Whether entry path of sealed directory dir stays in the view though
 * it may not be read. */
static bool
seal_shows(const struct ns_opts *o, const char *dir, const char *path)
{
	const char *name = strrchr(path, '/') + 1;

	if (seal_hides_all(o, dir))
		return false;
	if (strcmp(dir, "/dev") != 0)
		return true;
	for (const char *const *s = dev_shown; *s != NULL; s++)
		if (strcmp(*s, name) == 0)
			return true;
	return false;
}

/* path's entry named name, of a sealed directory not listed (held_entries),
 * unless it is there already or does not exist. */
static void
held_add(const struct viewplan_fs *vfs, const char *path, const char *name,
	 struct viewplan_dirent **ents, size_t *n)
{
	enum viewplan_type t;

	for (size_t k = 0; k < *n; k++)
		if (strcmp((*ents)[k].name, name) == 0)
			return;
	if ((t = vfs->entry_type(vfs->ctx, path)) == VIEWPLAN_TYPE_MISSING)
		return;
	*ents = xreallocarray(*ents, *n + 1, sizeof(**ents));
	(*ents)[(*n)++] = (struct viewplan_dirent){
		.name = xstrdup(name),
		.type = t,
	};
}

/*
 * The entries of sealed directory dir held by a rule or a mask at the
 * entry itself (those of beneath, fs's beneath dir) and those named in
 * shown (NULL-terminated, or NULL), each once, where they exist, typed
 * by entry_type.  Where nothing in dir may be read but by such a rule
 * (entry_readable) and the seal shows nothing else of dir that may not
 * be read (seal_hides_all; in /dev, dev_shown), they are all the
 * listing would give the seal to show, and dir is not listed: llwrap's
 * own data directory holds one entry for each project an agent ran in
 * (113 for the test user here), a host's /dev a hundred nodes or more,
 * each listed, decided and dropped at every start.
 */
static void
held_entries(const struct viewplan_fs *vfs, const struct plan *beneath,
	     const char *dir, const char *const *shown,
	     struct viewplan_dirent **ents, size_t *n)
{
	size_t skip = strcmp(dir, "/") == 0 ? 1 : strlen(dir) + 1;

	*ents = NULL;
	*n = 0;
	for (size_t i = 0; i < beneath->n_rules + beneath->n_masks; i++) {
		const char *p =
			i < beneath->n_rules
				? beneath->rules[i].path
				: beneath->masks[i - beneath->n_rules].path;

		if (strchr(p + skip, '/') == NULL)
			held_add(vfs, p, p + skip, ents, n);
	}
	for (const char *const *s = shown; s != NULL && *s != NULL; s++) {
		_cleanup_free_ char *p = join(dir, *s);

		held_add(vfs, p, *s, ents, n);
	}
}

/* Whether one of o->keep's paths lies beneath dir. */
static bool
keeps_beneath(const struct ns_opts *o, const char *dir)
{
	for (char *const *kp = o->keep; kp != NULL && *kp != NULL; kp++)
		if (path_below(*kp, dir))
			return true;
	return false;
}

/*
 * The seal's entries for sealed directory dir (of the n in dirs), after
 * the first n_old entries of v (sorted, decided).
 */
static void
seal_dir(const struct ns_opts *o, const struct viewplan_fs *vfs,
	 struct viewplan *v, size_t n_old, char **dirs, size_t n,
	 const char *dir)
{
	const struct plan *fs = o->fs;
	bool root = strcmp(dir, "/") == 0, dev = strcmp(dir, "/dev") == 0;
	_cleanup_free_ char *up = root ? NULL : parent_of(dir);
	struct viewplan_dirent *ents = NULL;
	size_t n_ents = 0, n_rules = fs->n_rules;
	const bool reads[2] = { readable(fs, dir, false),
				readable(fs, dir, true) };
	/* What lies beneath dir, where its entries are looked for: of
	 * dirs, of the view's first n_old entries, of the rules and masks
	 * (a plan of their own, sharing fs's arrays). */
	struct plan beneath = { 0 };
	size_t d_lo, d_hi, v_lo, v_hi, lo, hi;

	span_beneath(dirs, n, sizeof(*dirs), dir, &d_lo, &d_hi);
	span_beneath(v->m, n_old, sizeof(*v->m), dir, &v_lo, &v_hi);
	span_beneath(fs->rules, fs->n_rules, sizeof(*fs->rules), dir, &lo, &hi);
	beneath.rules = hi > lo ? fs->rules + lo : NULL;
	beneath.n_rules = hi - lo;
	span_beneath(fs->masks, fs->n_masks, sizeof(*fs->masks), dir, &lo, &hi);
	beneath.masks = hi > lo ? fs->masks + lo : NULL;
	beneath.n_masks = hi - lo;

	/* A directory of the seal above it, or a tmpfs of its own. */
	if (!root)
		seal_add(v, xstrdup(dir), VIEWPLAN_SEAL, true,
			 strcmp(up, "/") != 0 && sorted_has(dirs, n, up));
	if (vfs->entry_type != NULL && !reads[0] && !reads[1] &&
	    (dev || seal_hides_all(o, dir)) && !keeps_beneath(o, dir)) {
		held_entries(vfs, &beneath, dir, dev ? dev_shown : NULL, &ents,
			     &n_ents);
		n_rules = 0;
	} else if (vfs->list(vfs->ctx, dir, &ents, &n_ents) < 0) {
		/* Where the listing fails, the rules' paths in dir are
		 * there all the same. */
		ents = NULL;
		n_ents = 0;
	} else {
		n_rules = 0;
	}
	for (size_t i = 0; i < n_rules; i++) {
		const char *r = fs->rules[i].path;
		_cleanup_free_ char *rup = NULL;
		enum viewplan_type t;

		if (strcmp(r, "/") == 0 ||
		    strcmp(rup = parent_of(r), dir) != 0 ||
		    (t = vfs->type_of(vfs->ctx, r)) == VIEWPLAN_TYPE_MISSING)
			continue;
		ents = xreallocarray(ents, n_ents + 1, sizeof(*ents));
		ents[n_ents++] = (struct viewplan_dirent){
			.name = xstrdup(strrchr(r, '/') + 1),
			.type = t,
		};
	}
	for (size_t i = 0; i < n_ents; i++) {
		char *path = join(dir, ents[i].name);
		enum viewplan_type t = ents[i].type;
		bool is_dir = t == VIEWPLAN_TYPE_DIR;

		free(ents[i].name);
		/* Sealed itself, or an entry of the view already (given
		 * a mount point in this tmpfs). */
		if (sorted_has(dirs + d_lo, d_hi - d_lo, path) ||
		    entry_at(v, v_lo, v_hi, path) != NULL) {
			free(path);
			continue;
		}
		if (t == VIEWPLAN_TYPE_LINK) {
			if (root || !seal_shows(o, dir, path))
				free(path);
			else
				seal_add(v, path, VIEWPLAN_LINK, false, true);
		} else if (o->devpts && strcmp(path, "/dev/ptmx") == 0) {
			/* The devpts instance's ptmx is bound on it (ns.c):
			 * a mount point, not a clone of the host's. */
			seal_add(v, path, VIEWPLAN_HIDE, false, true);
		} else if (entry_readable(fs, &beneath, path, is_dir, reads) ||
			   strv_contains(o->keep, path)) {
			if (root)
				free(path);
			else
				seal_add(v, path, VIEWPLAN_KEEP, is_dir, false);
		} else if (!seal_shows(o, dir, path)) {
			free(path);
		} else {
			seal_add(v, path, VIEWPLAN_HIDE, is_dir, !root);
		}
	}
	free(ents);
}

/* A configured rule's path that may not be read, in a directory that
 * may: a placeholder over it. */
static void
seal_holes(const struct ns_opts *o, const struct viewplan_fs *vfs,
	   struct viewplan *v, size_t n_old, char **dirs, size_t n)
{
	const struct plan *fs = o->fs;
	const char *last = NULL;

	for (size_t i = 0; i < fs->n_sources; i++) {
		const char *path = fs->sources[i].path;
		_cleanup_free_ char *up = NULL;
		enum viewplan_type t;

		/* A path is not readable where a denial is the rule that
		 * holds it (the sources at one path, the last wins). */
		if (fs->sources[i].access != LLW_ACCESS_DENY ||
		    strcmp(path, "/") == 0 ||
		    (last != NULL && strcmp(last, path) == 0))
			continue;
		last = path;
		up = parent_of(path);
		if (sorted_has(dirs, n, path) || sorted_has(dirs, n, up) ||
		    entry_at(v, 0, n_old, path) != NULL ||
		    !readable(fs, up, true))
			continue;
		t = vfs->type_of(vfs->ctx, path);
		if (t == VIEWPLAN_TYPE_MISSING ||
		    readable(fs, path, t == VIEWPLAN_TYPE_DIR))
			continue;
		seal_add(v, xstrdup(path), VIEWPLAN_HIDE,
			 t == VIEWPLAN_TYPE_DIR, false);
	}
}

/* The seal (o->seal), once the view's other entries are decided. */
static void
seal(const struct ns_opts *o, const struct viewplan_fs *vfs, struct viewplan *v)
{
	size_t n_old = v->n, n, top = 0;
	_cleanup_free_ size_t *stack = NULL;
	char **dirs;

	seal_dirs(o, v, &dirs, &n);
	for (size_t i = 0; i < n; i++)
		seal_dir(o, vfs, v, n_old, dirs, n, dirs[i]);
	seal_holes(o, vfs, v, n_old, dirs, n);
	strv_free(dirs);
	if (v->n == n_old)
		return;
	qsort(v->m, v->n, sizeof(*v->m), mount_cmp);
	/*
	 * The nearest tmpfs above each entry (view_above's answer) in one
	 * pass: sorted, the entries come depth first, so those above an
	 * entry are on a stack of the tmpfs entries mounted so far, the last
	 * at one path nearest the top; view_above's binary search at each
	 * component was most of the seal's path comparisons.
	 */
	stack = xreallocarray(NULL, v->n, sizeof(*stack));
	for (size_t i = 0; i < v->n; i++) {
		struct viewplan_mount *m = &v->m[i];
		size_t k;

		while (top > 0 &&
		       !path_under(m->path, v->m[stack[top - 1]].path))
			top--;
		for (k = top;
		     k > 0 && strcmp(v->m[stack[k - 1]].path, m->path) == 0;
		     k--)
			;
		m->tmpfs = k > 0 ? (int)stack[k - 1] : -1;
		if (m->kind >= VIEWPLAN_SEAL) {
			if (m->tmpfs >= 0 &&
			    v->m[m->tmpfs].kind == VIEWPLAN_TMP &&
			    !path_under(m->path, o->project) &&
			    !path_under(o->project, m->path))
				m->skip = true;
			else if (o->pid && path_below(m->path, "/proc"))
				m->lazy = true;
		}
		if (!m->skip && viewplan_is_tmpfs(m))
			stack[top++] = i;
	}
}

/*
 * Collect what the view needs and decide, entry by entry, what to do.
 * Rules under the private /tmp refer to the new tmpfs, which is empty,
 * so they need no mount, except the project itself when it lies there.
 */
void
viewplan_build(const struct ns_opts *o, const struct viewplan_fs *vfs,
	       struct viewplan *v)
{
	const struct plan *fs = o->fs;
	const char *project = o->project;
	bool tmp_project =
		o->private_tmp && policy_private_tmp_of(project) != NULL;
	bool project_seen = false;

	if (o->pid)
		view_add(v, "/proc", VIEWPLAN_PROC, LLW_ACCESS_RO, true);
	if (o->devpts)
		view_add(v, "/dev/pts", VIEWPLAN_PTS, LLW_ACCESS_RW, true);
	for (const char *const *t = policy_private_tmps;
	     o->private_tmp && *t != NULL; t++)
		if (vfs->type_of(vfs->ctx, *t) == VIEWPLAN_TYPE_DIR)
			view_add(v, *t, VIEWPLAN_TMP, LLW_ACCESS_RW, true);
	for (size_t i = 0; i < fs->n_rules; i++) {
		const struct plan_rule *r = &fs->rules[i];

		if (!(r->access & pathtree_access_bits(LLW_ACCESS_RW) &
		      ~pathtree_access_bits(LLW_ACCESS_RX)))
			continue;
		view_add(v, r->path, VIEWPLAN_ROOT, LLW_ACCESS_RW, true);
	}
	for (size_t i = 0; i < fs->n_masks; i++)
		view_add(v, fs->masks[i].path, VIEWPLAN_MASK,
			 fs->masks[i].access, fs->masks[i].is_dir);
	for (size_t i = 0; i < v->n; i++)
		if (v->m[i].kind != VIEWPLAN_PROC &&
		    v->m[i].kind != VIEWPLAN_TMP &&
		    v->m[i].kind != VIEWPLAN_PTS &&
		    strcmp(v->m[i].path, project) == 0)
			project_seen = true;
	if (tmp_project && !project_seen)
		view_add(v, project, VIEWPLAN_BIND, o->project_access, true);
	if (v->n > 0) /* an empty view has no array: qsort wants one */
		qsort(v->m, v->n, sizeof(*v->m), mount_cmp);

	for (size_t i = 0; i < v->n; i++) {
		struct viewplan_mount *m = &v->m[i];
		struct viewplan_mount *up = NULL;
		enum viewplan_type type;
		int j;

		/* The nearest entry above this one that is mounted. */
		if ((j = view_above(v, m->path, false)) >= 0)
			up = &v->m[j];
		m->tmpfs = view_above(v, m->path, true);
		if (m->kind == VIEWPLAN_ROOT) {
			/* The same path as a private tmpfs, or already
			 * writable through the entry above. */
			if ((o->private_tmp && is_private_tmp(m->path)) ||
			    (o->devpts && strcmp(m->path, "/dev/pts") == 0) ||
			    (up != NULL && is_writable_entry(up))) {
				m->skip = true;
				continue;
			}
			/* Device nodes are written through whatever mount
			 * they are on; only directories and files need a
			 * writable one. */
			type = vfs->type_of(vfs->ctx, m->path);
			if (type != VIEWPLAN_TYPE_DIR &&
			    type != VIEWPLAN_TYPE_FILE) {
				m->skip = true;
				continue;
			}
			m->is_dir = type == VIEWPLAN_TYPE_DIR;
		}
		if (m->tmpfs >= 0 && v->m[m->tmpfs].kind == VIEWPLAN_TMP &&
		    !path_under(m->path, project) &&
		    !path_under(project, m->path)) {
			m->skip = true;
			continue;
		}
		if (o->pid && path_below(m->path, "/proc"))
			m->lazy = true;
	}
	if (o->seal)
		seal(o, vfs, v);
	/* Late (viewplan.h): ns.c holds a clone a mask only until it is
	 * attached, so that 10,000 masks are not 10,000 descriptors at
	 * once (EMFILE at the usual limit of 1,024, or root's held rule
	 * paths beside them). */
	for (size_t i = 0; i < v->n; i++) {
		struct viewplan_mount *m = &v->m[i];
		int j;

		if (m->skip || m->lazy || m->made || m->kind != VIEWPLAN_MASK ||
		    (m->access != LLW_ACCESS_RO && m->access != LLW_ACCESS_RX))
			continue;
		j = view_above(v, m->path, false);
		if (j >= 0 && v->m[j].kind == VIEWPLAN_ROOT && v->m[j].is_dir) {
			m->late = true;
			m->from = j;
		}
	}
}

bool
viewplan_tmp_writable(const struct ns_opts *o, const char *path)
{
	for (size_t i = 0; policy_private_tmps[i] != NULL; i++)
		if (strcmp(policy_private_tmps[i], path) == 0)
			return (o->tmp_rw & (1u << i)) != 0;
	return false;
}
