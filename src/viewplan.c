/*
 * The plan of L3's mount view: what ns.c mounts, decided without the
 * kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "path.h"
#include "access.h"
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
	free(v->m);
	v->m = NULL;
	v->n = 0;
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
	v->m = xreallocarray(v->m, v->n + 1, sizeof(*v->m));
	v->m[v->n++] = (struct viewplan_mount){
		.path = path,
		.kind = kind,
		.access = access,
		.is_dir = is_dir,
		.tmpfs = -1,
		.fd = -1,
	};
}

bool
viewplan_is_tmpfs(const struct viewplan_mount *m)
{
	return m->kind == VIEWPLAN_TMP ||
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

/*
 * Collect what the view needs and decide, entry by entry, what to do.
 * Rules under the private /tmp refer to the new tmpfs, which is empty,
 * so they need no mount, except the project itself when it lies there.
 */
void
viewplan_build(const struct ns_opts *o,
	       enum viewplan_type (*type_of)(void *ctx, const char *path),
	       void *ctx, struct viewplan *v)
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
		if (type_of(ctx, *t) == VIEWPLAN_TYPE_DIR)
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
			type = type_of(ctx, m->path);
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
}

bool
viewplan_tmp_writable(const struct ns_opts *o, const char *path)
{
	for (size_t i = 0; policy_private_tmps[i] != NULL; i++)
		if (strcmp(policy_private_tmps[i], path) == 0)
			return (o->tmp_rw & (1u << i)) != 0;
	return false;
}
