/*
 * `llwrap why WHAT` (DESIGN.md §12): the decision the prepared sandbox
 * makes for one access, the rule behind it with its source (file:line),
 * the layer that enforces it, and the smallest change that would allow
 * it.  Pure: it reads the resolved policy and the compiled plans of
 * struct sandbox (and the supervisor's compiled rules) and never runs
 * anything; the caller resolves symlinks and stats the path.
 */
#ifndef LLW_WHY_H
#define LLW_WHY_H

#include <stdbool.h>

#include "sandbox.h"
#include "supervise.h"

enum why_access {
	WHY_READ,	      /* open for reading, list a directory */
	WHY_WRITE,	      /* write a file; create entries in a directory */
	WHY_EXEC,	      /* execute a file */
	WHY_CONNECT_UNIX,     /* connect() to a pathname unix socket */
	WHY_CONNECT_ABSTRACT, /* connect() to an abstract one of the host's
			       * ("@name"; path holds the name) */
	WHY_CONNECT_TCP,
	WHY_SEND_UDP,
	WHY_BIND_TCP,
	WHY_BIND_UDP,
};

/* What was asked about, as the caller found it. */
struct why_query {
	enum why_access access;
	/* Paths (READ, WRITE, EXEC, CONNECT_UNIX): the path as resolved
	 * (symlinks of existing prefixes followed), whether it exists and
	 * is a directory. */
	const char *path;
	bool exists, is_dir;
	/* Network: a host name (NULL when addr holds a literal address),
	 * and the port (in addr->port). */
	const char *host;
	bool host_in_hosts; /* /etc/hosts gives host an address */
	struct netpolicy_addr addr;
	/* $HOME, resolved (NULL: unknown): no suggested change reaches
	 * it, "/", a secret or a path the policy denies (suggest.h). */
	const char *home;
};

struct why_verdict {
	bool allowed;
	bool depends; /* on something why cannot know (the address of a name) */
	char *decision; /* one sentence */
	char *rule;	/* the rule, as a profile line or flag; NULL: none */
	char *origin;	/* its source, file:line; NULL: none */
	char *layer;	/* "L1 Landlock", ... */
	char *change;	/* the smallest change that allows it; NULL if none */
	char **notes;	/* further sentences */
};

void why_verdict_clear(struct why_verdict *v);

/*
 * Decide q under sb (prepared by sandbox_prepare) and rules (the
 * supervisor's compiled rules; NULL when no supervisor runs).  unix_paths
 * are the policy's unix allow-list entries resolved like q->path (in the
 * policy's order; NULL entries for those that do not exist).  Fills v.
 */
void why_decide(const struct sandbox *sb, const struct netpolicy_rules *rules,
		char *const *unix_paths, const struct why_query *q,
		struct why_verdict *v);

/*
 * Read "HOST:PORT", "ADDR:PORT" or "[V6]:PORT" into q (access left as
 * it is).  A host that is not an address literal is kept as a name in
 * *host (a new string).  Returns 0 or -EINVAL.
 */
int why_parse_target(const char *s, struct why_query *q, char **host);

/*
 * The one-screen summary at the top of --explain: the project's access,
 * the home (hidden except ...), the rest, the masks, the network and
 * unix sockets, processes, and whether it runs.  home is $HOME (NULL:
 * no home line).  A new vector of lines.
 */
char **why_summary(const struct sandbox *sb, const char *home);

/* The verdict as text for the terminal, WHAT first. */
char *why_format(const char *what, const struct why_verdict *v);

#endif /* LLW_WHY_H */
