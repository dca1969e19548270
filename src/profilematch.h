/*
 * [match]: whether a profile applies by itself to a command and project,
 * and how specific that match is.  Pure: compares strings only (paths are
 * compared lexically, component by component, as written after variable
 * expansion and normalisation).
 */
#ifndef LLW_PROFILEMATCH_H
#define LLW_PROFILEMATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

/* How a [match] section held. */
struct profilematch_score {
	bool command; /* a command condition held */
	bool project; /* a project condition held */
	size_t depth; /* components of the deepest project path that held */
};

/* Number of components of a normalised absolute path ("/" has 0). */
size_t profilematch_path_depth(const char *path);

/*
 * True when p has a [match] section and every condition in it holds:
 * command (when listed) names the basename of command, and project (when
 * listed) is project or a parent of it.  A NULL command or project fails
 * the condition that needs it.  On success *score says how.
 */
bool profilematch_holds(const struct profile *p, const char *command,
			const char *project, struct profilematch_score *score);

/*
 * The profiles a run is under, for [match] profile (DESIGN.md §4): the
 * name of each -p argument (NAME, or a FILE's basename without .ini),
 * or "default" when none is given, and of each profile applied by a
 * [match] section without a profile condition.  True when p has no
 * profile condition, or one of its names is among names.  A profile
 * learned under -p default (--learn writes the condition) so applies to
 * later runs under default only, not to runs of the same command under
 * another profile.
 */
bool profilematch_profile_holds(const struct profile *p, char *const *names);

/* The name a profile argument or file gives for [match] profile: a
 * file's basename without .ini, a NAME as it is.  A new string. */
char *profilematch_profile_name(const char *arg);

/*
 * Order two matched profiles from least to most specific (negative when a
 * is less specific than b).  The order is total:
 *   1. command + project beats a single condition;
 *   2. a project condition beats a command condition alone (the project is
 *      the user's own directory, a command match is generic);
 *   3. a deeper project path beats a shallower one;
 *   4. ties: by the file's basename, then by the whole file name, in
 *      strcmp order (the later one is more specific).
 */
int profilematch_compare(const struct profilematch_score *a, const char *file_a,
			 const struct profilematch_score *b,
			 const char *file_b);

#endif /* LLW_PROFILEMATCH_H */
