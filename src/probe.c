/*
 * The kernel's facts (probe.h): each asked once, and only when a
 * decision needs it.  The one user-namespace probe is ns_available()
 * (ns.c), which the run, bubblewrap's fallback and --check all use.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "probe.h"
#include "resources.h"
#include "supervise.h"
#include "xalloc.h"

void
probe_init(struct facts *f)
{
	struct sysinfo si;

	memset(f, 0, sizeof(*f));
	f->live = true;
	ruleset_probe(&f->kernel);
	f->root = geteuid() == 0;
	if (sysinfo(&si) == 0)
		f->ram = (uint64_t)si.totalram * si.mem_unit;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

void
probe_copy(struct facts *dst, const struct facts *src)
{
	*dst = *src;
	dst->userns_why = dup_or_null(src->userns_why);
	dst->supervisor_why = dup_or_null(src->supervisor_why);
	dst->bwrap_why = dup_or_null(src->bwrap_why);
	dst->cgroup_why = dup_or_null(src->cgroup_why);
	dst->bwrap_bin.path = dup_or_null(src->bwrap_bin.path);
}

void
probe_clear(struct facts *f)
{
	free(f->userns_why);
	free(f->supervisor_why);
	free(f->bwrap_why);
	free(f->cgroup_why);
	bwrap_binary_clear(&f->bwrap_bin);
}

/* An unknown fact that is not to be asked: refused, and why. */
static bool
not_asked(enum probe_answer *a, char **why)
{
	*a = PROBE_NO;
	free(*why);
	*why = xstrdup("not probed");
	return false;
}

bool
probe_userns(struct facts *f, const char **why)
{
	if (f->userns == PROBE_UNKNOWN) {
		if (!f->live)
			not_asked(&f->userns, &f->userns_why);
		else
			f->userns = ns_available(&f->userns_why) ? PROBE_YES
								 : PROBE_NO;
	}
	if (why != NULL)
		*why = f->userns_why;
	return f->userns == PROBE_YES;
}

enum ns_precheck
probe_userns_precheck(struct facts *f)
{
	enum ns_precheck pre;

	if (f->userns == PROBE_NO)
		return NS_REFUSED;
	if (f->userns == PROBE_YES || !f->live)
		return NS_PROBE;
	free(f->userns_why);
	f->userns_why = NULL;
	pre = ns_precheck(&f->userns_why);
	if (pre == NS_REFUSED)
		f->userns = PROBE_NO;
	return pre;
}

bool
probe_supervisor(struct facts *f, const char **why)
{
	if (f->supervisor == PROBE_UNKNOWN) {
		if (!f->live)
			not_asked(&f->supervisor, &f->supervisor_why);
		else
			f->supervisor = supervise_available(&f->supervisor_why)
						? PROBE_YES
						: PROBE_NO;
	}
	if (why != NULL)
		*why = f->supervisor_why;
	return f->supervisor == PROBE_YES;
}

bool
probe_bwrap(struct facts *f, const char **why)
{
	const char *no;

	if (f->bwrap == PROBE_UNKNOWN && !f->live) {
		not_asked(&f->bwrap, &f->bwrap_why);
	} else if (f->bwrap == PROBE_UNKNOWN) {
		if (!f->bwrap_looked)
			bwrap_find(getenv("PATH"), &f->bwrap_bin);
		f->bwrap_looked = true;
		f->bwrap = PROBE_NO;
		if (f->bwrap_bin.path == NULL)
			f->bwrap_why = xstrdup(
				"bwrap was not found (looked at "
				"/usr/bin/bwrap, /run/wrappers/bin/bwrap and "
				"on PATH); install bubblewrap");
		else if (f->bwrap_bin.setuid || probe_userns(f, &no))
			f->bwrap = PROBE_YES;
		else
			f->bwrap_why = xasprintf("%s is not setuid and %s",
						 f->bwrap_bin.path, no);
	}
	if (why != NULL)
		*why = f->bwrap_why;
	return f->bwrap == PROBE_YES;
}

bool
probe_cgroup(struct facts *f, const struct limits_plan *l, const char **why)
{
	if (!limits_plan_cgroup(l))
		return true;
	if (f->cgroup == PROBE_UNKNOWN) {
		if (!f->live)
			not_asked(&f->cgroup, &f->cgroup_why);
		else
			f->cgroup =
				resources_cgroup_probe(l, &f->cgroup_why) == 0
					? PROBE_YES
					: PROBE_NO;
	}
	if (why != NULL)
		*why = f->cgroup_why;
	return f->cgroup == PROBE_YES;
}
