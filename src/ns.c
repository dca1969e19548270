/*
 * Layer L3.  Not written yet: every entry point refuses, so a policy that
 * needs L3 fails closed.
 */
#include <errno.h>

#include "ns.h"
#include "xalloc.h"

bool
ns_available(char **cause)
{
	*cause = xstrdup("the namespace layer (L3) is not in this version "
			 "of llwrap");
	return false;
}

int
ns_unshare(const struct ns_opts *o, char **cause)
{
	(void)o;
	*cause = xstrdup("the namespace layer (L3) is not in this version");
	return -ENOSYS;
}

int
ns_setup(const struct ns_opts *o, char **cause)
{
	(void)o;
	*cause = xstrdup("the namespace layer (L3) is not in this version");
	return -ENOSYS;
}
