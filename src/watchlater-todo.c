/*
 * A rebase the command leaves in progress runs no command of its own
 * when the user continues it (watchlater-int.h).  git rebase --continue
 * runs what the rest of the todo list, rebase-merge/git-rebase-todo,
 * says, and an "exec" (or "x") line there is a shell command run outside
 * the sandbox; the command could stop a rebase ("break") and add one.
 * sequencer/todo (a cherry-pick or revert in progress) is read the same
 * way: the git of today refuses an exec line there, a later one might not.
 *
 * The list's state names more that the continue uses.  Its merge
 * strategy (rebase-merge/strategy; options.strategy in sequencer/opts, a
 * config file): for a pick that is no fast-forward, a strategy other
 * than ort or recursive is run as the program git-merge-STRATEGY (git's
 * try_merge_command), looked up in PATH, or, when the name holds a "/",
 * taken as a path from the work tree's top: a file of the project.  So a
 * strategy that is not one of git's own (ort, recursive, resolve,
 * octopus, ours, subtree) runs something.  Its strategy options
 * (rebase-merge/strategy_opts; options.strategy-option) are given to the
 * strategy as "--OPTION": ort, recursive, ours and subtree parse them
 * inside git, but resolve and octopus are git's shell scripts, and
 * resolve passes them on unquoted as arguments of git read-tree, whose
 * --index-output= writes a file anywhere the user can.  The rest of the
 * state runs nothing of the command's: gpg_sign_opt (options.gpg-sign)
 * names a key for the user's own signing program, one argument;
 * allow_rerere_autoupdate, signoff and the like are switches;
 * author-script is read as three variables, not run (git 2.39's
 * sequencer.c read_populate_opts, read_strategy_opts,
 * read_author_script).
 *
 * At the end, when the state changed during the run (the todo list's,
 * its directory's, or a strategy file's change time at or after the
 * start: the kernel sets it at every write, rename or link, and nothing
 * unprivileged sets it back), a list that holds an exec line, that is
 * larger than llwrap reads, or whose state names a strategy or options
 * as above is moved aside, and why is said: the user's git then stops on
 * the missing list and runs nothing (the list is read before anything is
 * picked).  A state the user left before the run, unchanged, is left.
 * git am's state (rebase-apply/, git rebase's apply backend's too) is
 * judged apart: its apply-opt, the options git am gives git apply, read
 * back at git am --continue or --skip and git rebase --continue, may set
 * any option of git apply's, and --build-fake-ancestor=FILE writes an
 * index at FILE, anywhere (review V); one that changed during the run
 * and holds an option git am does not write itself is moved aside (git am
 * then applies with none).
 * Lines are read as git reads them (sequencer.c parse_insn_line): blanks
 * and tabs skipped, then the command's word or its letter followed by a
 * blank, a tab, a carriage return or the end.  A comment line never
 * starts so, unless core.commentChar is "x": then it counts as an exec
 * line too.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cleanup.h"
#include "fdutil.h"
#include "gitconfig.h"
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

/* The largest todo list or state file read (thousands of lines): a
 * larger list is moved aside unread. */
#define TODO_MAX_SIZE (1u << 20)

/* Why a todo list is moved aside. */
enum todo_why {
	TODO_OK,
	TODO_EXEC,	 /* an exec line */
	TODO_LARGE,	 /* larger than llwrap reads */
	TODO_STRATEGY,	 /* a strategy that is not git's own */
	TODO_STRAT_OPTS, /* options for one of git's strategy scripts */
	TODO_WHY_N,
};

/* The states, beneath a repository's directory, and who reads their
 * todo list, for each reason. */
static const struct {
	const char *dir;
	const char *name;
	const char *strategy;	   /* its one line (rebase) */
	const char *strategy_opts; /* ... its options */
	const char *opts;	   /* a config file (cherry-pick, revert) */
	const char *reader[TODO_WHY_N];
} todos[] = {
	{ "rebase-merge",
	  "git-rebase-todo",
	  "strategy",
	  "strategy_opts",
	  NULL,
	  {
		  [TODO_EXEC] = "git rebase --continue (it runs the list's "
				"exec lines: the rebase the command left in "
				"progress would have run a command; git rebase "
				"--abort ends it)",
		  [TODO_LARGE] = "git rebase --continue (it runs the list, "
				 "larger than llwrap reads, 1 MiB: an exec "
				 "line in it would run a command; git rebase "
				 "--abort ends it)",
		  [TODO_STRATEGY] =
			  "git rebase --continue (the rebase the command left "
			  "in progress names a merge strategy in "
			  "rebase-merge/strategy that is not one of git's "
			  "own: git would run it as a program, a file of the "
			  "project when its name holds a \"/\"; git rebase "
			  "--abort ends it)",
		  [TODO_STRAT_OPTS] =
			  "git rebase --continue (the rebase the command left "
			  "in progress gives git's resolve or octopus strategy "
			  "options in rebase-merge/strategy_opts, which become "
			  "arguments of git read-tree (or, no strategy named, "
			  "the user's pull.twohead's): one can write a file "
			  "anywhere; git rebase --abort ends it)",
	  } },
	{ "sequencer",
	  "todo",
	  NULL,
	  NULL,
	  "opts",
	  {
		  [TODO_EXEC] = "git cherry-pick or revert --continue (it runs "
				"the list: the sequence the command left in "
				"progress holds an exec line; git cherry-pick "
				"--abort ends it)",
		  [TODO_LARGE] = "git cherry-pick or revert --continue (it "
				 "runs the list, larger than llwrap reads, 1 "
				 "MiB; git cherry-pick --abort ends it)",
		  [TODO_STRATEGY] =
			  "git cherry-pick or revert --continue (the sequence "
			  "the command left in progress names a merge strategy "
			  "in sequencer/opts that is not one of git's own: git "
			  "would run it as a program, a file of the project "
			  "when its name holds a \"/\"; git cherry-pick "
			  "--abort "
			  "ends it)",
		  [TODO_STRAT_OPTS] =
			  "git cherry-pick or revert --continue (the sequence "
			  "the command left in progress gives git's resolve or "
			  "octopus strategy options in sequencer/opts, which "
			  "become arguments of git read-tree (or, no strategy "
			  "named, the user's pull.twohead's): one can write a "
			  "file anywhere; git cherry-pick --abort ends it)",
	  } },
};

/* Whether the line line (len bytes, no newline) is an exec line. */
bool
wl_todo_exec_line(const char *line, size_t len)
{
	const char *words[] = { "exec", "x" };
	size_t at = 0;

	while (at < len && (line[at] == ' ' || line[at] == '\t'))
		at++;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		size_t n = strlen(words[i]);

		if (len - at >= n && memcmp(line + at, words[i], n) == 0 &&
		    (len - at == n || line[at + n] == ' ' ||
		     line[at + n] == '\t' || line[at + n] == '\r' ||
		     line[at + n] == '\0'))
			return true;
	}
	return false;
}

/* Whether the list text (len bytes) holds an exec line. */
static bool
holds_exec(const char *text, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - (text + at)) : len - at;

		if (wl_todo_exec_line(text + at, n))
			return true;
		at += n + 1;
	}
	return false;
}

/* A strategy's kind: one of git's own that parses its options itself
 * (ort, recursive, ours, subtree), one of git's own scripts (resolve,
 * octopus), or another: a program.  name is len bytes, compared whole. */
enum strategy { STRAT_INSIDE, STRAT_SCRIPT, STRAT_OTHER };

static enum strategy
strategy_kind(const char *name, size_t len)
{
	static const char *const inside[] = { "ort", "recursive", "ours",
					      "subtree" };
	static const char *const scripts[] = { "resolve", "octopus" };

	for (size_t i = 0; i < ARRAY_SIZE(inside); i++)
		if (len == strlen(inside[i]) &&
		    memcmp(name, inside[i], len) == 0)
			return STRAT_INSIDE;
	for (size_t i = 0; i < ARRAY_SIZE(scripts); i++)
		if (len == strlen(scripts[i]) &&
		    memcmp(name, scripts[i], len) == 0)
			return STRAT_SCRIPT;
	return STRAT_OTHER;
}

bool
wl_strategy_option_ok(const char *opt, size_t len)
{
	static const char *const names[] = {
		"ours",
		"theirs",
		"subtree",
		"patience",
		"histogram",
		"ignore-space-change",
		"ignore-all-space",
		"ignore-space-at-eol",
		"ignore-cr-at-eol",
		"renormalize",
		"no-renormalize",
		"no-renames",
		"find-renames",
	};
	static const char *const valued[] = { "subtree=", "diff-algorithm=",
					      "find-renames=",
					      "rename-threshold=" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (len == strlen(names[i]) && memcmp(opt, names[i], len) == 0)
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(valued); i++)
		if (len > strlen(valued[i]) &&
		    memcmp(opt, valued[i], strlen(valued[i])) == 0)
			return memchr(opt, '\0', len) == NULL;
	return false;
}

/* Whether rebase-merge/strategy_opts (text, len bytes) holds only
 * options wl_strategy_option_ok takes, each "--NAME" between blanks (git
 * splits it as a command line, split_cmdline: a quote or backslash is
 * not read here, and counts against it). */
static bool
strategy_opts_ok(const char *text, size_t len)
{
	size_t at = 0;

	if (memchr(text, '\0', len) != NULL ||
	    memchr(text, '\'', len) != NULL || memchr(text, '"', len) != NULL ||
	    memchr(text, '\\', len) != NULL)
		return false;
	for (;;) {
		size_t n;

		while (at < len && strchr(" \t\n\r", text[at]) != NULL)
			at++;
		if (at == len)
			return true;
		n = strcspn(text + at, " \t\n\r");
		if (n > len - at)
			n = len - at;
		if (n < 2 || text[at] != '-' || text[at + 1] != '-' ||
		    !wl_strategy_option_ok(text + at + 2, n - 2))
			return false;
		at += n;
	}
}

/* A file of a state: its text, and whether it changed since the start. */
struct sfile {
	bool present; /* a regular file (a link or special file there is
		       * the gitdir walk's, which moves it) */
	bool changed;
	bool large; /* larger than TODO_MAX_SIZE: not read */
	char *text;
	size_t len;
};

/* The file name of the state's directory dfd (at shown), read into *f:
 * 0, or -1 when it could not be (said). */
static int
state_file(struct watchlater *w, int dfd, const char *shown, const char *name,
	   struct sfile *f)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int e;

	*f = (struct sfile){ 0 };
	fd = wl_open_regular(dfd, name, &st);
	/* Gone, a link, or a FIFO or the like, never read (the walk
	 * moves it). */
	if (fd == -ENOENT || fd == -ELOOP || fd == -EINVAL)
		return 0;
	if (fd < 0) {
		wl_fail(w, xasprintf("cannot read %s/%s: %s", shown, name,
				     strerror(-fd)));
		return -1;
	}
	f->present = true;
	f->changed = wl_changed(w, &st);
	if (st.st_size > (off_t)TODO_MAX_SIZE) {
		f->large = true;
		return 0;
	}
	if ((e = fd_read_all(fd, TODO_MAX_SIZE, &f->text, &f->len)) == -EFBIG) {
		f->large = true;
		return 0;
	}
	if (e < 0) {
		wl_fail(w, xasprintf("cannot read %s/%s: %s", shown, name,
				     strerror(-e)));
		return -1;
	}
	return 0;
}

/* A one-line state file's text as git's read_oneliner takes it: one
 * newline (and a carriage return before it) off the end. */
static size_t
oneliner_len(const struct sfile *f)
{
	size_t n = f->len;

	if (n > 0 && f->text[n - 1] == '\n') {
		n--;
		if (n > 0 && f->text[n - 1] == '\r')
			n--;
	}
	return n;
}

/* What sequencer/opts sets: its strategy, whether it gives options. */
struct opts_seen {
	enum todo_why why;
	enum strategy last; /* the strategy git uses: the last one */
	bool named;	    /* ... one is named */
	bool strategy_opts;
	bool opts_unknown; /* an option wl_strategy_option_ok does not take */
};

static int
opts_variable(void *ctx, const char *section, const char *sub, const char *key,
	      const char *value)
{
	struct opts_seen *o = ctx;

	(void)sub;
	/* What llwrap cannot read as git does: taken as the worst. */
	if (section == NULL) {
		o->why = TODO_STRATEGY;
		return 1;
	}
	if (strcmp(section, "options") != 0)
		return 0;
	if (strcmp(key, "strategy") == 0) {
		o->named = true;
		o->last = value != NULL ? strategy_kind(value, strlen(value))
					: STRAT_OTHER;
		if (o->last == STRAT_OTHER) {
			o->why = TODO_STRATEGY;
			return 1;
		}
	} else if (strcmp(key, "strategy-option") == 0) {
		o->strategy_opts = true;
		if (value == NULL ||
		    !wl_strategy_option_ok(value, strlen(value)))
			o->opts_unknown = true;
	}
	return 0;
}

/* Why the state's list is moved aside (TODO_OK: it is not): its todo
 * list, and its strategy files (a one-line strategy and its options) or
 * its options file. */
static enum todo_why
todo_judge(const struct sfile *todo, const struct sfile *strategy,
	   const struct sfile *strategy_opts, const struct sfile *opts)
{
	if (todo->large)
		return TODO_LARGE;
	if (holds_exec(todo->text, todo->len))
		return TODO_EXEC;
	if (strategy->present) {
		enum strategy k;

		if (strategy->large)
			return TODO_STRATEGY;
		k = strategy_kind(strategy->text, oneliner_len(strategy));
		if (k == STRAT_OTHER)
			return TODO_STRATEGY;
		if (k == STRAT_SCRIPT && strategy_opts->present &&
		    (strategy_opts->large || oneliner_len(strategy_opts) > 0))
			return TODO_STRAT_OPTS;
	} else if (strategy_opts->present &&
		   (strategy_opts->large ||
		    !strategy_opts_ok(strategy_opts->text,
				      strategy_opts->len))) {
		/* No strategy named: git takes the user's pull.twohead,
		 * which may be resolve (review Y); only the options git's
		 * own merges take are left. */
		return TODO_STRAT_OPTS;
	}
	if (opts->present) {
		struct opts_seen o = { .why = TODO_OK, .last = STRAT_INSIDE };

		/* A NUL: git reads past it, llwrap cannot (gitconfig.h). */
		if (opts->large || strlen(opts->text) != opts->len)
			return TODO_STRATEGY;
		gitconfig_each(opts->text, opts_variable, &o);
		if (o.why != TODO_OK)
			return o.why;
		if (o.last == STRAT_SCRIPT && o.strategy_opts)
			return TODO_STRAT_OPTS;
		/* None named: the user's pull.twohead, as above. */
		if (!o.named && o.opts_unknown)
			return TODO_STRAT_OPTS;
	}
	return TODO_OK;
}

static void
sfile_free(struct sfile *f)
{
	free(f->text);
	*f = (struct sfile){ 0 };
}

/* Whether the word w (n bytes, unquoted) of git am's apply-opt is one
 * of git am's own pass-through options, as git am writes it
 * (builtin/am.c's OPT_PASSTHRU_ARGV, parse-options-cb.c recreate_opt:
 * "--NAME", "--no-NAME", "--NAME=VALUE", "-C" and "-p" with the number
 * joined). */
static bool
apply_opt_word(const char *w, size_t n)
{
	static const char *const flags[] = {
		"--ignore-space-change",
		"--ignore-whitespace",
		"--reject",
		"--no-ignore-space-change",
		"--no-ignore-whitespace",
		"--no-reject",
	};
	static const char *const valued[] = { "--directory=", "--exclude=",
					      "--include=", "--whitespace=" };

	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (n == strlen(flags[i]) && memcmp(w, flags[i], n) == 0)
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(valued); i++)
		if (n >= strlen(valued[i]) &&
		    memcmp(w, valued[i], strlen(valued[i])) == 0)
			return true;
	if (n < 3 || w[0] != '-' || (w[1] != 'C' && w[1] != 'p'))
		return false;
	for (size_t i = 2; i < n; i++)
		if (w[i] < '0' || w[i] > '9')
			return false;
	return true;
}

/* git's isspace: space, tab, LF, CR. */
static bool
apply_opt_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool
wl_apply_opt_ok(const char *text, size_t len)
{
	size_t at = 0;

	/* A NUL: git's C string ends there, llwrap's would not. */
	if (memchr(text, '\0', len) != NULL)
		return false;
	/* read_state_file trims the blanks around it. */
	while (len > 0 && apply_opt_space(text[len - 1]))
		len--;
	for (;;) {
		const char *q;

		while (at < len && apply_opt_space(text[at]))
			at++;
		if (at == len)
			return true;
		/* 'WORD', no quote inside (git's '\'' and '\!' escapes
		 * are in no option git am writes), then a blank or the
		 * end. */
		if (text[at] != '\'' ||
		    (q = memchr(text + at + 1, '\'', len - at - 1)) == NULL ||
		    !apply_opt_word(text + at + 1,
				    (size_t)(q - (text + at + 1))))
			return false;
		at = (size_t)(q - text) + 1;
		if (at < len && !apply_opt_space(text[at]))
			return false;
	}
}

/*
 * git am's state in the repository's directory at path (rebase-apply/,
 * which git rebase's apply backend uses too): its apply-opt holds the
 * options git am gives git apply for each patch, read back at git am
 * --continue or --skip and git rebase --continue.  git apply takes any of
 * its own options there: --build-fake-ancestor=FILE has it write an
 * index at FILE, anywhere the user can write (review V), where git am
 * itself writes only its pass-through ones (wl_apply_opt_ok).  One that
 * changed during the run (it, or its directory) and holds another or is
 * larger than llwrap reads is moved aside: git am then applies with no
 * options (a link or special file there is the gitdir walk's).
 */
static void
apply_state(struct watchlater *w, int gitfd, const char *path)
{
	_cleanup_free_ char *dirpath = xasprintf("%s/rebase-apply", path);
	_cleanup_free_ char *shown = text_shown(dirpath);
	_cleanup_close_ int dfd = -1;
	struct sfile opt = { 0 };
	struct stat dst;

	if ((dfd = wl_open_beneath(gitfd, "rebase-apply", true)) < 0) {
		if (dfd != -ENOENT && dfd != -ENOTDIR && dfd != -ELOOP)
			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(-dfd)));
		return;
	}
	if (fstat(dfd, &dst) < 0) {
		wl_fail(w, xasprintf("cannot look at %s: %s", shown,
				     strerror(errno)));
		return;
	}
	if (state_file(w, dfd, shown, "apply-opt", &opt) < 0 || !opt.present)
		goto out;
	if ((wl_changed(w, &dst) || opt.changed) &&
	    (opt.large || !wl_apply_opt_ok(opt.text, opt.len)))
		wl_move_aside_as(
			w, dfd, dirpath, "apply-opt",
			"git am --continue or --skip and git rebase "
			"--continue (they give its options to git apply: one "
			"such as --build-fake-ancestor=FILE writes a file "
			"anywhere; git am --abort ends it)",
			"left");
out:
	sfile_free(&opt);
}

/* The todo lists (and git am's options) of the repository's directory
 * gitfd, at path. */
void
wl_todo_at(struct watchlater *w, int gitfd, const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(todos); i++) {
		_cleanup_free_ char *dirpath = NULL, *shown = NULL;
		_cleanup_close_ int dfd = -1;
		struct sfile todo = { 0 }, strategy = { 0 };
		struct sfile strategy_opts = { 0 }, opts = { 0 };
		struct stat dst;
		enum todo_why why;

		dirpath = xasprintf("%s/%s", path, todos[i].dir);
		shown = text_shown(dirpath);
		/* None, or a link or another file in its place: nothing git
		 * continues (a link there is the gitdir walk's). */
		if ((dfd = wl_open_beneath(gitfd, todos[i].dir, true)) < 0) {
			if (dfd != -ENOENT && dfd != -ENOTDIR && dfd != -ELOOP)
				wl_fail(w, xasprintf("cannot look at %s: %s",
						     shown, strerror(-dfd)));
			continue;
		}
		if (fstat(dfd, &dst) < 0) {
			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(errno)));
			continue;
		}
		/* No list: nothing to continue. */
		if (state_file(w, dfd, shown, todos[i].name, &todo) < 0 ||
		    !todo.present)
			goto next;
		if ((todos[i].strategy != NULL &&
		     state_file(w, dfd, shown, todos[i].strategy, &strategy) <
			     0) ||
		    (todos[i].strategy_opts != NULL &&
		     state_file(w, dfd, shown, todos[i].strategy_opts,
				&strategy_opts) < 0) ||
		    (todos[i].opts != NULL &&
		     state_file(w, dfd, shown, todos[i].opts, &opts) < 0))
			goto next;
		/* The user's, as it was at the start: left. */
		if (!wl_changed(w, &dst) && !todo.changed &&
		    !strategy.changed && !strategy_opts.changed &&
		    !opts.changed)
			goto next;
		why = todo_judge(&todo, &strategy, &strategy_opts, &opts);
		if (why != TODO_OK)
			wl_move_aside_as(w, dfd, dirpath, todos[i].name,
					 todos[i].reader[why], "left");
	next:
		sfile_free(&todo);
		sfile_free(&strategy);
		sfile_free(&strategy_opts);
		sfile_free(&opts);
	}
	apply_state(w, gitfd, path);
}

/* How many directories the walk of the repositories git keeps inside
 * the project's has looked at; whether it went past the bounds. */
struct inner_walk {
	size_t seen;
	bool over;
};

static void todo_inner(struct watchlater *w, int gitfd, const char *path,
		       struct inner_walk *k, int depth);

/* One more directory at depth beneath path: false (and the run's
 * failure, once) past the bounds. */
static bool
inner_more(struct watchlater *w, struct inner_walk *k, const char *path,
	   int depth)
{
	_cleanup_free_ char *shown = NULL;

	if (k->over)
		return false;
	if (++k->seen <= WATCHLATER_GITDIR_MAX &&
	    depth <= WATCHLATER_GITDIR_DEPTH)
		return true;
	k->over = true;
	shown = text_shown(path);
	wl_fail(w, xasprintf("the repository holds more submodules' and "
			     "linked worktrees' repositories than llwrap "
			     "looks at for a rebase left in progress (more "
			     "than %d, or deeper than %d, at %s)",
			     WATCHLATER_GITDIR_MAX, WATCHLATER_GITDIR_DEPTH,
			     shown));
	return false;
}

/* The directory fd (modules/ or worktrees/, or a level of a submodule's
 * name beneath modules/) at path: each directory in it that is a
 * repository's (a linked worktree's; under modules/, one with a HEAD,
 * as git and the gitdir walk take it, else one more level of the name)
 * judged as the project's own, opened beneath it without a link (a link
 * there is the gitdir walk's). */
static void
todo_inner_dir(struct watchlater *w, int fd, const char *path,
	       struct inner_walk *k, int depth, bool modules)
{
	DIR *d = wl_list(w, fd, path);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *sub = NULL;
		_cleanup_close_ int sfd = -1;
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!inner_more(w, k, path, depth))
			break;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		sub = xasprintf("%s/%s", path, e->d_name);
		sfd = wl_open_beneath(fd, e->d_name, true);
		if (sfd == -ENOENT || sfd == -ENOTDIR || sfd == -ELOOP)
			continue;
		if (sfd < 0) {
			_cleanup_free_ char *shown = text_shown(sub);

			wl_fail(w, xasprintf("cannot open %s: %s", shown,
					     strerror(-sfd)));
			continue;
		}
		if (!modules ||
		    (fstatat(sfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     !S_ISDIR(st.st_mode))) {
			wl_todo_at(w, sfd, sub);
			todo_inner(w, sfd, sub, k, depth + 1);
		} else {
			todo_inner_dir(w, sfd, sub, k, depth + 1, true);
		}
	}
	closedir(d);
}

/*
 * The repositories git keeps inside the repository's directory gitfd (at
 * path): a submodule's under modules/, a linked worktree's under
 * worktrees/NAME.  The user's git rebase --continue in the submodule's
 * checkout (in the project) or in the linked worktree reads its todo
 * list there, in a directory the command can write (review Y: an exec
 * line added to a submodule's, .git/modules/NAME/rebase-merge, ran).
 * Those of a repository nested in the project are nested_repo's.
 */
static void
todo_inner(struct watchlater *w, int gitfd, const char *path,
	   struct inner_walk *k, int depth)
{
	static const char *const names[] = { "modules", "worktrees" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *sub = xasprintf("%s/%s", path, names[i]);
		_cleanup_close_ int fd = wl_open_beneath(gitfd, names[i], true);

		if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
			continue;
		if (fd < 0) {
			_cleanup_free_ char *shown = text_shown(sub);

			wl_fail(w, xasprintf("cannot open %s: %s", shown,
					     strerror(-fd)));
			continue;
		}
		todo_inner_dir(w, fd, sub, k, depth, i == 0);
	}
}

/* The todo lists of the repository's directory at path, and of the
 * repositories git keeps inside it. */
static void
todo_repository(struct watchlater *w, const char *path)
{
	const char *rel;
	ssize_t r = wl_root_of(w, path, &rel);
	_cleanup_close_ int gitfd = -1;

	if (r < 0)
		return;
	if ((gitfd = wl_open_beneath(w->roots[r].fd, rel, true)) < 0) {
		if (gitfd != -ENOENT && gitfd != -ENOTDIR && gitfd != -ELOOP) {
			_cleanup_free_ char *shown = text_shown(path);

			wl_fail(w, xasprintf("cannot look at %s: %s", shown,
					     strerror(-gitfd)));
		}
		return;
	}
	wl_todo_at(w, gitfd, path);
	todo_inner(w, gitfd, path, &(struct inner_walk){ 0 }, 0);
}

void
wl_todo_check(struct watchlater *w)
{
	for (char **g = w->gitdirs; g != NULL && *g != NULL; g++)
		todo_repository(w, *g);
	if (w->watch_newrepo) {
		_cleanup_free_ char *git =
			xasprintf("%s/.git", w->roots[0].path);

		todo_repository(w, git);
	}
}
