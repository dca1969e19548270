/*
 * Known limits: the escapes of the corpus (tests/escape) that a backend
 * does not stop yet, each with the layer that closes it and why.  The
 * list is conf/known-limits, compiled into llwrap (so --explain and
 * --selftest have it before anything is installed) and installed beside
 * the profiles.  Pure: parsing and lookup only.
 */
#ifndef LLW_KNOWN_H
#define LLW_KNOWN_H

#include <stdbool.h>
#include <stddef.h>

struct known_limit {
	char *id;	 /* a probe of llwrap-escape */
	char **backends; /* "landlock", "bwrap" or "*" */
	char *closed_by; /* "L3", "L3-pid", "L3-tmp", "L3-git", "L3-later",
			  * "L3-seal", "S", "F" or "none" */
	char *reason;
	unsigned line;
};

struct known_limits {
	struct known_limit *v;
	size_t n;
};

/*
 * Parse text (the format is described at the top of conf/known-limits).
 * file names it in messages.  Returns 0 and a new list, or -EINVAL with
 * *cause naming file:line.
 */
int known_parse(const char *file, const char *text, struct known_limits **out,
		char **cause);

/* The built-in list (conf/known-limits as compiled in), parsed; NULL only
 * if the compiled-in text is broken, which a unit test rules out. */
struct known_limits *known_builtin(void);

void known_free(struct known_limits *l);

/* The entry for probe id on backend, or NULL. */
const struct known_limit *known_find(const struct known_limits *l,
				     const char *id, const char *backend);

/* The parts of L3 a sandbox uses, for known_applies(). */
enum {
	KNOWN_L3 = 1 << 0,	 /* namespaces: read-only view, ipc */
	KNOWN_L3_PID = 1 << 1,	 /* a pid namespace with a fresh /proc */
	KNOWN_L3_TMP = 1 << 2,	 /* a private /tmp */
	KNOWN_L3_GIT = 1 << 3,	 /* protect-git's mounts */
	KNOWN_L3_LATER = 1 << 4, /* protect-later-run's mounts */
	KNOWN_L3_SEAL = 1 << 5,	 /* the sealed view (viewplan.h) */
};

/*
 * Whether entry e still applies to a sandbox on backend that uses the
 * layers given: an entry closed by L3 stops applying once namespaces are
 * in use (l3 has KNOWN_L3), one closed by L3-pid, L3-tmp, L3-git,
 * L3-later or L3-seal only with that part of L3, one closed by S once the
 * supervisor runs, one closed by F on the bubblewrap backend.
 */
bool known_applies(const struct known_limit *e, const char *backend,
		   unsigned l3, bool use_supervisor);

#endif /* LLW_KNOWN_H */
