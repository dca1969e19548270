/*
 * Unit tests for src/viewplan.c, the plan of L3's mount view: a table of
 * options, compiled plans and simulated file types, each planned and
 * compared entry by entry, in order, with the view it must give.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "cleanup.h"
#include "compat/landlock.h"
#include "ns.h"
#include "path.h"
#include "policy.h"
#include "strv.h"
#include "viewplan.h"
#include "xalloc.h"

/* A rule of the plan and of the policy; a mask of the plan. */
struct rule {
	enum llw_access access;
	const char *path;
};

struct mask {
	enum llw_access access;
	bool is_dir;
	const char *path;
};

#define DENY LLW_ACCESS_DENY
#define RO   LLW_ACCESS_RO
#define RX   LLW_ACCESS_RX
#define RW   LLW_ACCESS_RW
#define D    true
#define F    false

struct vcase {
	const char *name;
	bool pid, devpts, private_tmp;
	const char *project;
	const struct rule *rules; /* up to { 0 } */
	const struct mask *masks;
	/* "d|f|o PATH": directory, regular file, other; the rest is
	 * missing. */
	const char *const *types;
	/* "KIND PATH ACCESS d|f [skip] [lazy] [made] [tmpfs=N]", in
	 * order. */
	const char *const *want;
	bool seal;
	/* The plan's sources that grant nothing (a denial) */
	const struct rule *sources;
	/* "DIR t:NAME t:NAME ...": a directory's listing (t: d, f, o or l
	 * for a symbolic link); a directory not here cannot be listed. */
	const char *const *dirs;
	/* Rules that grant READ_DIR alone (a punched directory) */
	const char *const *dir_only;
	/* ns_opts.keep: unix sockets the network allows */
	const char *const *keep;
	/* ns_opts.own_data: llwrap's own data directory */
	const char *own_data;
};

#define PROJ "/home/u/proj"

static const struct rule no_pid_rules[] = {
	{ RX, "/usr" },
	{ RW, "/dev/pts" },
	{ RW, "/proc/self/attr" },
	{ 0 },
};
static const char *const no_pid_types[] = { "d /dev/pts", "d /proc/self/attr",
					    NULL };
static const char *const no_pid_want[] = {
	"root /dev/pts rw d",
	"root /proc/self/attr rw d",
	NULL,
};

/* The same rules: /proc and /dev/pts are new, what lies beneath /proc
 * is lazy, and the devpts instance takes /dev/pts's place. */
static const struct mask pid_masks[] = {
	{ RO, D, "/proc/sys" },
	{ 0 },
};
static const char *const pid_want[] = {
	"pts /dev/pts rw d",	    "root /dev/pts rw d skip",
	"proc /proc ro d",	    "root /proc/self/attr rw d lazy",
	"mask /proc/sys ro d lazy", NULL,
};

/* Only /tmp is a directory; /dev/shm is a file and /var/tmp missing.
 * The root on /dev/shm is skipped all the same, a private tmp path. */
static const struct rule tmp_rules[] = {
	{ RW, "/dev/shm" }, { RW, PROJ }, { RW, "/tmp" },
	{ RW, "/tmp/x" },   { 0 },
};
static const char *const tmp_types[] = { "f /dev/shm", "d " PROJ, "d /tmp",
					 "d /tmp/x", NULL };
static const char *const tmp_want[] = {
	"root /dev/shm rw d skip",
	"root " PROJ " rw d",
	"tmp /tmp rw d",
	"root /tmp rw d skip",
	"root /tmp/x rw d skip tmpfs=2",
	NULL,
};

/* Without a private /tmp the same rules are roots like any other. */
static const char *const no_tmp_want[] = {
	"root /dev/shm rw f",
	"root " PROJ " rw d",
	"root /tmp rw d",
	"root /tmp/x rw d skip",
	NULL,
};

/* The project under the private /tmp: rules under /tmp that neither
 * contain it nor lie under it are skipped; nothing names it, so it is
 * bound with the policy's access. */
#define TPROJ "/tmp/w/proj"
static const struct rule tproj_rules[] = {
	{ RW, "/tmp/other" },
	{ RO, TPROJ },
	{ RW, TPROJ "/sub" },
	{ 0 },
};
static const char *const tproj_types[] = { "d /tmp",	      "d /var/tmp",
					   "d /tmp/other",    "d " TPROJ,
					   "d " TPROJ "/sub", NULL };
static const char *const tproj_want[] = {
	"tmp /tmp rw d",
	"root /tmp/other rw d skip tmpfs=0",
	"bind " TPROJ " ro d tmpfs=0",
	"root " TPROJ "/sub rw d tmpfs=0",
	"tmp /var/tmp rw d",
	NULL,
};

/* A rule names the project: no bind. */
static const struct rule tproj_named_rules[] = {
	{ RW, TPROJ },
	{ 0 },
};
static const char *const tproj_named_want[] = {
	"tmp /tmp rw d",
	"root " TPROJ " rw d tmpfs=0",
	"tmp /var/tmp rw d",
	NULL,
};

/* A rule containing the project stays; the project is still bound, on
 * top of it. */
static const struct rule tproj_parent_rules[] = {
	{ RW, "/tmp/w" },
	{ 0 },
};
static const char *const tproj_parent_types[] = { "d /tmp", "d /tmp/w", NULL };
static const char *const tproj_parent_want[] = {
	"tmp /tmp rw d",
	"root /tmp/w rw d tmpfs=0",
	"bind " TPROJ " rw d tmpfs=0",
	NULL,
};

/* Writable roots: one below another is skipped, and one below a
 * writable mask, not one below a read-only mask; a device and a missing
 * path are skipped, a file is a file.  The deny masks are tmpfs
 * entries: the masks beneath one lie in it. */
static const struct rule roots_rules[] = {
	{ RW, "/dev/kvm" },
	{ RW, "/etc/motd" },
	{ RW, "/home/u" },
	{ RW, "/home/u/.ssh/sock" },
	{ RW, PROJ },
	{ RW, "/home/u/src/build" },
	{ RW, "/home/u/src/out/x" },
	{ RW, "/srv/gone" },
	{ 0 },
};
static const struct mask roots_masks[] = {
	{ DENY, D, "/home/u/.ssh" },	       { RW, D, "/home/u/.ssh/agent" },
	{ DENY, F, "/home/u/.ssh/agent/key" }, { RO, D, "/home/u/src" },
	{ RW, D, "/home/u/src/out" },	       { 0 },
};
static const char *const roots_types[] = {
	"o /dev/kvm",	       "f /etc/motd", "d /home/u",
	"o /home/u/.ssh/sock", "d " PROJ,     "d /home/u/src/build",
	"d /home/u/src/out/x", NULL,
};
static const char *const roots_want[] = {
	"root /dev/kvm rw d skip",
	"root /etc/motd rw f",
	"root /home/u rw d",
	"mask /home/u/.ssh deny d",
	"mask /home/u/.ssh/agent rw d tmpfs=3",
	"mask /home/u/.ssh/agent/key deny f tmpfs=3",
	"root /home/u/.ssh/sock rw d skip tmpfs=3",
	"root " PROJ " rw d skip",
	"mask /home/u/src ro d",
	"root /home/u/src/build rw d",
	"mask /home/u/src/out rw d",
	"root /home/u/src/out/x rw d skip",
	"root /srv/gone rw d skip",
	NULL,
};

/* A mask beneath a denied directory lies in its tmpfs: the nearest one
 * above it, not the nearest entry before it. */
static const struct rule nested_rules[] = {
	{ RW, "/home/u" },
	{ 0 },
};
static const struct mask nested_masks[] = {
	{ DENY, D, "/home/u/a" },
	{ DENY, D, "/home/u/a/b" },
	{ RO, F, "/home/u/a/b/c" },
	{ RO, D, "/home/u/a/d" },
	{ 0 },
};
static const char *const nested_types[] = { "d /home/u", NULL };
static const char *const nested_want[] = {
	"root /home/u rw d",
	"mask /home/u/a deny d",
	"mask /home/u/a/b deny d tmpfs=1",
	"mask /home/u/a/b/c ro f tmpfs=2",
	"mask /home/u/a/d ro d tmpfs=1",
	NULL,
};

/* At one path: the fresh mounts first, then the root, then the mask. */
static const struct rule one_path_rules[] = {
	{ RW, "/proc" },
	{ RW, "/tmp" },
	{ 0 },
};
static const struct mask one_path_masks[] = {
	{ RO, D, "/proc" },
	{ RO, D, "/tmp" },
	{ 0 },
};
static const char *const one_path_types[] = { "d /proc", "d /tmp", NULL };
static const char *const one_path_want[] = {
	"proc /proc ro d",
	"root /proc rw d",
	"mask /proc ro d",
	"tmp /tmp rw d",
	"root /tmp rw d skip",
	"mask /tmp ro d",
	NULL,
};

/*
 * The seal: / is not readable, so its entries that may not be read are
 * placeholders bound over them (/root, /srv, /tmp), the readable ones
 * stay (/etc, /usr), links stay, and /proc is the fresh one; /dev and
 * /home are sealed tmpfs, ~ and ~/.config directories of /home's; a
 * readable entry of a sealed directory is a clone (the device /dev/null
 * too, whose root is skipped), the rest placeholders and links made in
 * the tmpfs (but in /dev, where only bubblewrap's nodes are: the disk
 * sda is absent); the entries of the view (the project, its mask) get mount
 * points there.  /etc may be listed but /etc/shadow not read (punched):
 * a placeholder over it; the denied ~/.ssh is one of ~'s placeholders.
 * ~/.config cannot be listed: the rule's path in it is there all the
 * same, nothing else is.
 */
static const struct rule seal_rules[] = {
	{ RW, "/dev/null" },
	{ RO, "/etc" },
	{ RO, "/etc/passwd" },
	{ RO, "/home/u/.bashrc" },
	{ RO, "/home/u/.config/opencode" },
	{ RW, "/home/u/proj" },
	{ RO, "/proc" },
	{ RX, "/usr" },
	{ 0 },
};
static const struct rule seal_sources[] = {
	{ DENY, "/etc/shadow" },
	{ DENY, "/home/u/.ssh" },
	{ DENY, "/home/u/proj/.env" },
	{ 0 },
};
static const struct mask seal_masks[] = {
	{ DENY, F, "/home/u/proj/.env" },
	{ 0 },
};
static const char *const seal_types[] = {
	"o /dev/null",
	"d /etc",
	"f /etc/passwd",
	"f /etc/shadow",
	"f /home/u/.bashrc",
	"d /home/u/.config/opencode",
	"d /home/u/proj",
	"d /proc",
	"d /usr",
	"f /home/u/proj/.env",
	NULL,
};
static const char *const seal_dir_only[] = { "/etc", NULL };
static const char *const seal_dirs_list[] = {
	"/ l:bin d:dev d:etc d:home d:proc d:root d:srv d:usr d:tmp",
	"/dev o:null o:sda d:pts l:fd",
	"/home d:u d:v",
	"/home/u f:.bashrc d:.config d:.ssh l:keys d:proj f:notes",
	NULL,
};
static const char *const seal_want[] = {
	"seal /dev deny d",
	"link /dev/fd deny f made tmpfs=0",
	"root /dev/null rw d skip tmpfs=0",
	"keep /dev/null deny f tmpfs=0",
	"hide /dev/pts deny d made tmpfs=0",
	"hide /etc/shadow deny f",
	"seal /home deny d",
	"seal /home/u deny d made tmpfs=6",
	"keep /home/u/.bashrc deny f tmpfs=6",
	"seal /home/u/.config deny d made tmpfs=6",
	"keep /home/u/.config/opencode deny d tmpfs=6",
	"hide /home/u/.ssh deny d made tmpfs=6",
	"link /home/u/keys deny f made tmpfs=6",
	"hide /home/u/notes deny f made tmpfs=6",
	"root /home/u/proj rw d tmpfs=6",
	"mask /home/u/proj/.env deny f tmpfs=6",
	"hide /home/v deny d made tmpfs=6",
	"proc /proc ro d",
	"hide /root deny d",
	"hide /srv deny d",
	"hide /tmp deny d",
	NULL,
};

/*
 * A sealed /dev is minimal, as bubblewrap's --dev: of what may not be
 * read only bubblewrap's nodes (random, pts, shm) are placeholders and
 * its links (fd) made again; the host's other nodes (kvm, sda) and
 * links (log) are absent, in /dev and in a sealed directory beneath it
 * (dri, which holds a rule: its card0 a clone, renderD128 and by-path
 * absent).  A readable neighbour is a clone wherever it lies.
 */
static const struct rule dev_rules[] = {
	{ RW, "/dev/dri/card0" }, { RW, "/dev/null" }, { RW, "/dev/ptmx" },
	{ RO, "/proc" },	  { RX, "/usr" },      { 0 },
};
static const char *const dev_types[] = {
	"o /dev/dri/card0", "o /dev/null", "o /dev/ptmx",
	"d /proc",	    "d /usr",	   NULL,
};
static const char *const dev_dirs[] = {
	"/ d:dev d:proc d:usr",
	"/dev o:null o:sda o:kvm o:random o:ptmx d:pts d:shm d:dri l:fd l:log",
	"/dev/dri o:card0 o:renderD128 d:by-path",
	NULL,
};
static const char *const dev_want[] = {
	"seal /dev deny d",
	"seal /dev/dri deny d made tmpfs=0",
	"root /dev/dri/card0 rw d skip tmpfs=0",
	"keep /dev/dri/card0 deny f tmpfs=0",
	"link /dev/fd deny f made tmpfs=0",
	"root /dev/null rw d skip tmpfs=0",
	"keep /dev/null deny f tmpfs=0",
	"root /dev/ptmx rw d skip tmpfs=0",
	"keep /dev/ptmx deny f tmpfs=0",
	"hide /dev/pts deny d made tmpfs=0",
	"hide /dev/random deny f made tmpfs=0",
	"hide /dev/shm deny d made tmpfs=0",
	"proc /proc ro d",
	NULL,
};

/* With a devpts instance of its own, /dev/ptmx is the instance's (bound
 * on it by ns.c): a mount point made in /dev's tmpfs, not a clone of the
 * host's that it would cover; /dev/pts is the instance. */
static const char *const dev_pts_want[] = {
	"seal /dev deny d",
	"seal /dev/dri deny d made tmpfs=0",
	"root /dev/dri/card0 rw d skip tmpfs=0",
	"keep /dev/dri/card0 deny f tmpfs=0",
	"link /dev/fd deny f made tmpfs=0",
	"root /dev/null rw d skip tmpfs=0",
	"keep /dev/null deny f tmpfs=0",
	"root /dev/ptmx rw d skip tmpfs=0",
	"hide /dev/ptmx deny f made tmpfs=0",
	"pts /dev/pts rw d tmpfs=0",
	"hide /dev/random deny f made tmpfs=0",
	"hide /dev/shm deny d made tmpfs=0",
	"proc /proc ro d",
	NULL,
};

/* The same plan unsealed: the view's own entries alone. */
static const char *const unsealed_want[] = {
	"root /dev/null rw d skip",
	"root /home/u/proj rw d",
	"mask /home/u/proj/.env deny f",
	"proc /proc ro d",
	NULL,
};

/* With a private /tmp holding the project: /tmp is readable (the
 * rule), nothing in it is sealed; the project's denied file is its
 * mask's. */
#define SPROJ "/tmp/w/proj"
static const struct rule seal_tmp_rules[] = {
	{ RW, "/tmp" },
	{ RW, SPROJ },
	{ RO, "/usr" },
	{ 0 },
};
static const struct rule seal_tmp_sources[] = {
	{ DENY, "/tmp/w/other" },
	{ DENY, SPROJ "/.env" },
	{ 0 },
};
static const struct mask seal_tmp_masks[] = {
	{ DENY, F, SPROJ "/.env" },
	{ 0 },
};
static const char *const seal_tmp_types[] = {
	"d /tmp",	    "d " SPROJ,	      "d /usr",
	"f " SPROJ "/.env", "d /tmp/w/other", NULL,
};
static const char *const seal_tmp_dirs[] = {
	"/ d:tmp d:usr d:var",
	NULL,
};
static const char *const seal_tmp_want[] = {
	"tmp /tmp rw d",
	"root /tmp rw d skip",
	"root " SPROJ " rw d tmpfs=0",
	"mask " SPROJ "/.env deny f tmpfs=0",
	"hide /var deny d",
	NULL,
};

/* A private /tmp the rules do not grant: not the host's, not sealed
 * (nor /tmp/w in it), the project bound there as the rules have it. */
static const struct rule seal_tmp_hidden_rules[] = {
	{ RW, SPROJ },
	{ RO, "/usr" },
	{ 0 },
};
static const char *const seal_tmp_hidden_want[] = {
	"tmp /tmp rw d",
	"root " SPROJ " rw d tmpfs=0",
	"hide /var deny d",
	NULL,
};
/*
 * A unix socket the network allows, in a directory that may not be
 * read: the socket is kept as the host has it (the supervisor knows it
 * by its inode), its neighbours are placeholders; without keep, it
 * would be one too, and the connect would reach the placeholder.
 */
static const struct rule keep_rules[] = {
	{ RW, "/home/u/proj" },
	{ RO, "/proc" },
	{ RX, "/usr" },
	{ 0 },
};
static const char *const keep_types[] = {
	"d /home/u/proj", "d /proc", "d /usr", "o /run/pg/.s.PGSQL.5432", NULL,
};
static const char *const keep_dirs[] = {
	"/ d:home d:proc d:run d:usr",	    "/home d:u",
	"/home/u d:proj f:notes",	    "/run d:lock d:pg",
	"/run/pg o:.s.PGSQL.5432 f:pg.pid", NULL,
};
static const char *const keep_paths[] = { "/run/pg/.s.PGSQL.5432", NULL };
static const char *const keep_want[] = {
	"seal /home deny d",
	"seal /home/u deny d made tmpfs=0",
	"hide /home/u/notes deny f made tmpfs=0",
	"root /home/u/proj rw d tmpfs=0",
	"proc /proc ro d",
	"seal /run deny d",
	"hide /run/lock deny d made tmpfs=5",
	"seal /run/pg deny d made tmpfs=5",
	"keep /run/pg/.s.PGSQL.5432 deny f tmpfs=5",
	"hide /run/pg/pg.pid deny f made tmpfs=5",
	NULL,
};
/* Without keep: /run, which may not be read, a placeholder as a whole. */
static const char *const no_keep_want[] = {
	"seal /home deny d",
	"seal /home/u deny d made tmpfs=0",
	"hide /home/u/notes deny f made tmpfs=0",
	"root /home/u/proj rw d tmpfs=0",
	"proc /proc ro d",
	"hide /run deny d",
	NULL,
};

/*
 * llwrap's own data directory (ns_opts.own_data), sealed: what may not
 * be read there is absent (the other projects' directories, a link, a
 * file), this project's directory (a writable root) and a readable
 * file there stay; the rest of the home is placeholders as anywhere.
 */
#define OWN "/home/u/.local/share/llwrap"
/* Sorted, as the plan's are. */
static const struct rule own_rules[] = {
	{ RO, OWN "/opencode/notes" },
	{ RW, OWN "/opencode/proj-1" },
	{ RW, PROJ },
	{ RO, "/proc" },
	{ RX, "/usr" },
	{ 0 },
};
static const char *const own_types[] = {
	"d " PROJ,
	"d /proc",
	"d /usr",
	"d " OWN "/opencode/proj-1",
	"f " OWN "/opencode/notes",
	NULL,
};
static const char *const own_dirs[] = {
	"/ d:home d:proc d:usr",
	"/home d:u",
	"/home/u d:proj d:.local f:.bashrc",
	"/home/u/.local d:share",
	"/home/u/.local/share d:llwrap d:other",
	OWN " d:opencode f:state",
	OWN "/opencode d:proj-1 d:other-2 d:other-3 f:notes l:lnk o:s.sock",
	NULL,
};
/* A unix socket the network allows stays (ns_opts.keep). */
static const char *const own_keep[] = { OWN "/opencode/s.sock", NULL };
static const char *const own_want[] = {
	"seal /home deny d",
	"seal /home/u deny d made tmpfs=0",
	"hide /home/u/.bashrc deny f made tmpfs=0",
	"seal /home/u/.local deny d made tmpfs=0",
	"seal /home/u/.local/share deny d made tmpfs=0",
	"seal " OWN " deny d made tmpfs=0",
	"seal " OWN "/opencode deny d made tmpfs=0",
	"keep " OWN "/opencode/notes deny f tmpfs=0",
	"root " OWN "/opencode/proj-1 rw d tmpfs=0",
	"keep " OWN "/opencode/s.sock deny f tmpfs=0",
	"hide /home/u/.local/share/other deny d made tmpfs=0",
	"root " PROJ " rw d tmpfs=0",
	"proc /proc ro d",
	NULL,
};

static const struct vcase cases[] = {
	{ "no-pid", false, false, false, PROJ, no_pid_rules, NULL, no_pid_types,
	  no_pid_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "pid-devpts", true, true, false, PROJ, no_pid_rules, pid_masks,
	  no_pid_types, pid_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "private-tmp", false, false, true, PROJ, tmp_rules, NULL, tmp_types,
	  tmp_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "no-private-tmp", false, false, false, PROJ, tmp_rules, NULL,
	  tmp_types, no_tmp_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "project-in-tmp", false, false, true, TPROJ, tproj_rules, NULL,
	  tproj_types, tproj_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "project-in-tmp-named", false, false, true, TPROJ, tproj_named_rules,
	  NULL, tproj_types, tproj_named_want, false, NULL, NULL, NULL, NULL,
	  NULL },
	{ "project-in-tmp-parent", false, false, true, TPROJ,
	  tproj_parent_rules, NULL, tproj_parent_types, tproj_parent_want,
	  false, NULL, NULL, NULL, NULL, NULL },
	{ "roots", false, false, false, PROJ, roots_rules, roots_masks,
	  roots_types, roots_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "nested-masks", false, false, false, PROJ, nested_rules, nested_masks,
	  nested_types, nested_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "one-path", true, false, true, PROJ, one_path_rules, one_path_masks,
	  one_path_types, one_path_want, false, NULL, NULL, NULL, NULL, NULL },
	{ "seal", true, false, false, "/home/u/proj", seal_rules, seal_masks,
	  seal_types, seal_want, true, seal_sources, seal_dirs_list,
	  seal_dir_only, NULL, NULL },
	{ "seal-dev", true, false, false, "/home/u/proj", dev_rules, NULL,
	  dev_types, dev_want, true, NULL, dev_dirs, NULL, NULL, NULL },
	{ "seal-dev-pts", true, true, false, "/home/u/proj", dev_rules, NULL,
	  dev_types, dev_pts_want, true, NULL, dev_dirs, NULL, NULL, NULL },
	{ "unsealed", true, false, false, "/home/u/proj", seal_rules,
	  seal_masks, seal_types, unsealed_want, false, seal_sources,
	  seal_dirs_list, seal_dir_only, NULL, NULL },
	{ "seal-private-tmp", false, false, true, SPROJ, seal_tmp_rules,
	  seal_tmp_masks, seal_tmp_types, seal_tmp_want, true, seal_tmp_sources,
	  seal_tmp_dirs, NULL, NULL, NULL },
	{ "seal-private-tmp-hidden", false, false, true, SPROJ,
	  seal_tmp_hidden_rules, NULL, seal_tmp_types, seal_tmp_hidden_want,
	  true, NULL, seal_tmp_dirs, NULL, NULL, NULL },
	{ "seal-keep", true, false, false, "/home/u/proj", keep_rules, NULL,
	  keep_types, keep_want, true, NULL, keep_dirs, NULL, keep_paths,
	  NULL },
	{ "seal-no-keep", true, false, false, "/home/u/proj", keep_rules, NULL,
	  keep_types, no_keep_want, true, NULL, keep_dirs, NULL, NULL, NULL },
	{ "seal-own-data", true, false, false, PROJ, own_rules, NULL, own_types,
	  own_want, true, NULL, own_dirs, NULL, own_keep, OWN },
};

static const char *const access_names[] = { "deny", "ro", "rx", "rw", "rwx" };

/* The type table of a case, as the callback's context. */
static enum viewplan_type
type_of(void *ctx, const char *path)
{
	const struct vcase *c = ctx;

	for (const char *const *t = c->types; t && *t; t++) {
		if (strcmp(*t + 2, path) != 0)
			continue;
		switch (**t) {
		case 'd':
			return VIEWPLAN_TYPE_DIR;
		case 'f':
			return VIEWPLAN_TYPE_FILE;
		default:
			return VIEWPLAN_TYPE_OTHER;
		}
	}
	return VIEWPLAN_TYPE_MISSING;
}

static int list_of(void *ctx, const char *path, struct viewplan_dirent **ents,
		   size_t *n);

/* What the listing table of a case says path is, as lstat would. */
static enum viewplan_type
entry_type_of(void *ctx, const char *path)
{
	_cleanup_free_ struct viewplan_dirent *ents = NULL;
	_cleanup_free_ char *dir = xstrdup(path);
	enum viewplan_type t = VIEWPLAN_TYPE_MISSING;
	char *slash = strrchr(dir, '/');
	size_t n = 0;

	*(slash == dir ? slash + 1 : slash) = '\0';
	if (list_of(ctx, dir, &ents, &n) < 0)
		return t;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(ents[i].name, strrchr(path, '/') + 1) == 0)
			t = ents[i].type;
		free(ents[i].name);
	}
	return t;
}

/* The listing table of a case. */
static int
list_of(void *ctx, const char *path, struct viewplan_dirent **ents, size_t *n)
{
	const struct vcase *c = ctx;
	size_t len = strlen(path);

	*ents = NULL;
	*n = 0;
	for (const char *const *d = c->dirs; d && *d; d++) {
		_cleanup_strv_ char **words = NULL;

		if (strncmp(*d, path, len) != 0 || (*d)[len] != ' ')
			continue;
		words = strv_split_blank(*d + len);
		for (char **w = words; w && *w; w++) {
			*ents = xreallocarray(*ents, *n + 1, sizeof(**ents));
			(*ents)[(*n)++] = (struct viewplan_dirent){
				.name = xstrdup(*w + 2),
				.type = **w == 'd'   ? VIEWPLAN_TYPE_DIR
					: **w == 'f' ? VIEWPLAN_TYPE_FILE
					: **w == 'l' ? VIEWPLAN_TYPE_LINK
						     : VIEWPLAN_TYPE_OTHER,
			};
		}
		return 0;
	}
	return -EACCES;
}

static struct plan *
plan_of(const struct vcase *c, struct policy *p)
{
	struct plan *fs = xcalloc(1, sizeof(*fs));

	for (const struct rule *r = c->rules; r && r->path; r++) {
		fs->rules = xreallocarray(fs->rules, fs->n_rules + 1,
					  sizeof(*fs->rules));
		fs->rules[fs->n_rules++] = (struct plan_rule){
			.path = xstrdup(r->path),
			.access = strv_contains((char *const *)c->dir_only,
						r->path)
					  ? LLW_FS_READ_DIR
					  : pathtree_access_bits(r->access),
			.origin = xstrdup("test"),
		};
		p->paths = xreallocarray(p->paths, p->n_paths + 1,
					 sizeof(*p->paths));
		p->paths[p->n_paths++] = (struct llw_path_rule){
			.path = xstrdup(r->path),
			.access = r->access,
			.origin = xstrdup("test"),
		};
	}
	for (const struct rule *r = c->sources; r && r->path; r++) {
		fs->sources = xreallocarray(fs->sources, fs->n_sources + 1,
					    sizeof(*fs->sources));
		fs->sources[fs->n_sources++] = (struct plan_source){
			.path = xstrdup(r->path),
			.written = xstrdup(r->path),
			.access = r->access,
			.origin = xstrdup("test"),
		};
	}
	for (const struct mask *m = c->masks; m && m->path; m++) {
		fs->masks = xreallocarray(fs->masks, fs->n_masks + 1,
					  sizeof(*fs->masks));
		fs->masks[fs->n_masks++] = (struct plan_mask){
			.path = xstrdup(m->path),
			.access = m->access,
			.is_dir = m->is_dir,
			.origin = xstrdup("test"),
		};
	}
	return fs;
}

/* One entry as the table writes it. */
static char *
render(const struct viewplan_mount *m)
{
	static const char *const kinds[] = {
		[VIEWPLAN_PROC] = "proc", [VIEWPLAN_TMP] = "tmp",
		[VIEWPLAN_PTS] = "pts",	  [VIEWPLAN_ROOT] = "root",
		[VIEWPLAN_MASK] = "mask", [VIEWPLAN_BIND] = "bind",
		[VIEWPLAN_SEAL] = "seal", [VIEWPLAN_KEEP] = "keep",
		[VIEWPLAN_HIDE] = "hide", [VIEWPLAN_LINK] = "link",
	};
	char tmpfs[32] = "";

	if (m->tmpfs >= 0)
		snprintf(tmpfs, sizeof(tmpfs), " tmpfs=%d", m->tmpfs);
	assert_int_equal(m->fd, -1);
	return xasprintf("%s %s %s %c%s%s%s%s", kinds[m->kind], m->path,
			 access_names[m->access], m->is_dir ? 'd' : 'f',
			 m->skip ? " skip" : "", m->lazy ? " lazy" : "",
			 m->made ? " made" : "", tmpfs);
}

static void
test_table(void **state)
{
	(void)state;
	/* Each case twice: every sealed directory listed (no entry_type),
	 * and those the seal shows nothing of that may not be read not
	 * listed, their rules' and masks' entries looked up instead (the
	 * same view). */
	for (size_t i = 0; i < 2 * ARRAY_SIZE(cases); i++) {
		const struct vcase *c = &cases[i / 2];
		struct policy *p = policy_new();
		struct plan *fs;
		struct ns_opts o = {
			.pid = c->pid,
			.devpts = c->devpts,
			.private_tmp = c->private_tmp,
			.seal = c->seal,
			.keep = (char **)c->keep,
			.own_data = (char *)c->own_data,
		};
		struct viewplan v = { 0 };
		struct viewplan_fs vfs = { .type_of = type_of,
					   .list = list_of,
					   .entry_type = i % 2 ? entry_type_of
							       : NULL };
		size_t n = 0;

		p->project = xstrdup(c->project);
		fs = plan_of(c, p);
		o.fs = fs;
		/* The planner decides it on the compiled plan; the table's
		 * rules are the plan's. */
		o.project = p->project;
		o.project_access = policy_access_at(p, p->project, NULL);
		vfs.ctx = (void *)c;
		viewplan_build(&o, &vfs, &v);
		for (const char *const *w = c->want; *w != NULL; w++, n++) {
			_cleanup_free_ char *got = NULL;

			if (n >= v.n)
				fail_msg("%s: entry %zu missing, want '%s'",
					 c->name, n, *w);
			got = render(&v.m[n]);
			if (strcmp(got, *w) != 0)
				fail_msg("%s: entry %zu is '%s', want '%s'",
					 c->name, n, got, *w);
		}
		if (n != v.n)
			fail_msg("%s: %zu entries, want %zu", c->name, v.n, n);
		viewplan_free(&v);
		assert_null(v.m);
		assert_int_equal(v.n, 0);
		plan_free(fs);
		policy_free(p);
	}
	viewplan_free(NULL);
}

static enum viewplan_type
all_dirs(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return VIEWPLAN_TYPE_DIR;
}

/* test_random's listing: the pool's paths one level beneath path, and
 * a file "f" in each directory, all of them there. */
static int
pool_list(void *ctx, const char *path, struct viewplan_dirent **ents, size_t *n)
{
	const char *const *pool = ctx;
	size_t len = strcmp(path, "/") == 0 ? 0 : strlen(path);

	*ents = xcalloc(32, sizeof(**ents));
	*n = 0;
	(*ents)[(*n)++] =
		(struct viewplan_dirent){ xstrdup("f"), VIEWPLAN_TYPE_FILE };
	for (; *pool != NULL; pool++)
		if (strncmp(*pool, path, len) == 0 && (*pool)[len] == '/' &&
		    (*pool)[len + 1] != '\0' &&
		    strchr(*pool + len + 1, '/') == NULL)
			(*ents)[(*n)++] = (struct viewplan_dirent){
				xstrdup(*pool + len + 1), VIEWPLAN_TYPE_DIR
			};
	return 0;
}

/* The plan's rules and masks are sorted by path (pathtree_finish), as
 * plan_allows' binary searches want them. */
static int
first_path_cmp(const void *a, const void *b)
{
	return path_cmp(*(char *const *)a, *(char *const *)b);
}

static bool
below(const char *path, const char *dir)
{
	return path_under(path, dir) && strcmp(path, dir) != 0;
}

/*
 * viewplan_build finds the mounted entries above each entry by binary
 * search on its sorted entries: on random views (writable roots and masks
 * nested in each other, at one path, on "/", in a private /tmp) each
 * entry's tmpfs and, for a writable root, whether a writable entry above
 * it makes it needless must be what a scan of every earlier entry gives.
 */
static void
test_random(void **state)
{
	static const char *const pool[] = {
		"/",	    "/a",	  "/a/b",     "/a/b/c", "/a-b",
		"/a/b-c",   "/tmp",	  "/tmp/x",   "/h",	"/h/p",
		"/h/p/q",   "/h/p/q/r",	  "/dev/shm", "/b/a",	"/b",
		"/tmp/x/y", "/dev/shm/z", NULL,
	};
	static const enum llw_access mask_access[] = { DENY, RO, RW };
	unsigned seed = 0x32c;
	size_t checked = 0, sealed = 0;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		struct plan *fs = xcalloc(1, sizeof(*fs));
		struct viewplan v = { 0 };
		struct ns_opts o = {
			.pid = rand_r(&seed) % 2,
			.private_tmp = rand_r(&seed) % 2,
			.project = "/h/p",
			.project_access = LLW_ACCESS_RWX,
		};
		int nr = rand_r(&seed) % 7, nm = rand_r(&seed) % 5;

		fs->rules = xcalloc(nr + 1, sizeof(*fs->rules));
		for (int i = 0; i < nr; i++)
			fs->rules[fs->n_rules++] = (struct plan_rule){
				.path = xstrdup(pool[rand_r(&seed) %
						     (ARRAY_SIZE(pool) - 1)]),
				.access = pathtree_access_bits(
					rand_r(&seed) % 2 ? RW : RX),
				.origin = xstrdup("test"),
			};
		fs->masks = xcalloc(nm + 1, sizeof(*fs->masks));
		for (int i = 0; i < nm; i++)
			fs->masks[fs->n_masks++] = (struct plan_mask){
				.path = xstrdup(pool[rand_r(&seed) %
						     (ARRAY_SIZE(pool) - 1)]),
				.access = mask_access[rand_r(&seed) % 3],
				.is_dir = rand_r(&seed) % 4 != 0,
				.origin = xstrdup("test"),
			};
		qsort(fs->rules, fs->n_rules, sizeof(*fs->rules),
		      first_path_cmp);
		qsort(fs->masks, fs->n_masks, sizeof(*fs->masks),
		      first_path_cmp);
		o.fs = fs;
		/* Sealed a round in three: the seal's entries (a tmpfs,
		 * placeholders, clones; what the random rules let be read
		 * aside) take their tmpfs as the others do. */
		o.seal = round % 3 == 0;
		viewplan_build(&o,
			       &(struct viewplan_fs){ .type_of = all_dirs,
						      .list = pool_list,
						      .ctx = (void *)pool },
			       &v);
		for (size_t i = 0; i < v.n; i++) {
			const struct viewplan_mount *m = &v.m[i];
			const struct viewplan_mount *up = NULL;
			int tmpfs = -1;
			bool want;

			for (size_t j = i; j-- > 0;)
				if (!v.m[j].skip &&
				    below(m->path, v.m[j].path)) {
					up = &v.m[j];
					break;
				}
			for (size_t j = i; j-- > 0;)
				if (!v.m[j].skip &&
				    viewplan_is_tmpfs(&v.m[j]) &&
				    below(m->path, v.m[j].path)) {
					tmpfs = (int)j;
					break;
				}
			assert_int_equal(m->tmpfs, tmpfs);
			/* A root at a private tmp or beneath a writable
			 * entry, and whatever lies in a private tmp but
			 * neither holds nor lies in the project: skipped. */
			want = tmpfs >= 0 && v.m[tmpfs].kind == VIEWPLAN_TMP &&
			       !path_under(m->path, o.project) &&
			       !path_under(o.project, m->path);
			if (m->kind == VIEWPLAN_ROOT) {
				for (const char *const *t = policy_private_tmps;
				     o.private_tmp && *t != NULL; t++)
					want |= strcmp(m->path, *t) == 0;
				want |= up != NULL &&
					(up->kind == VIEWPLAN_ROOT ||
					 ((up->kind == VIEWPLAN_MASK ||
					   up->kind == VIEWPLAN_BIND) &&
					  policy_access_writable(up->access)));
			}
			/* Sealed, the entries before the seal were decided
			 * on the view without it: their tmpfs is checked
			 * again, the seal's skips alone. */
			if (!o.seal || m->kind >= VIEWPLAN_SEAL)
				assert_int_equal(m->skip, want);
			checked++;
			sealed += m->kind >= VIEWPLAN_SEAL;
		}
		viewplan_free(&v);
		plan_free(fs);
	}
	assert_true(checked > 5000);
	assert_true(sealed > 1000);
}

/* A private tmp directory and a denied directory are new tmpfs; a
 * denied file, a read-only directory and a root are not. */
static void
test_is_tmpfs(void **state)
{
	static const struct {
		enum viewplan_kind kind;
		enum llw_access access;
		bool is_dir, want;
	} t[] = {
		{ VIEWPLAN_TMP, LLW_ACCESS_RW, true, true },
		{ VIEWPLAN_MASK, LLW_ACCESS_DENY, true, true },
		{ VIEWPLAN_MASK, LLW_ACCESS_DENY, false, false },
		{ VIEWPLAN_MASK, LLW_ACCESS_RO, true, false },
		{ VIEWPLAN_ROOT, LLW_ACCESS_RW, true, false },
		{ VIEWPLAN_BIND, LLW_ACCESS_DENY, true, false },
		{ VIEWPLAN_PROC, LLW_ACCESS_RO, true, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct viewplan_mount m = {
			.path = "/x",
			.kind = t[i].kind,
			.access = t[i].access,
			.is_dir = t[i].is_dir,
		};

		if (viewplan_is_tmpfs(&m) != t[i].want)
			fail_msg("row %zu: got %d", i, !t[i].want);
	}
}

/* The seal is refused where /proc may not be read whole, and past
 * VIEWPLAN_SEAL_CLONES_MAX read-only rules in directories that may not
 * be listed (a clone each); rules in a listed directory do not count. */
static void
test_unsealable(void **state)
{
	enum { N = VIEWPLAN_SEAL_CLONES_MAX + 1 };
	struct plan_rule r[N + 2];
	char *paths[N];
	struct plan fs = { .rules = r };
	const struct plan_rule proc = {
		.path = "/proc",
		.access = pathtree_access_bits(RO),
	};

	(void)state;
	/* No rule on /proc. */
	assert_non_null(viewplan_unsealable(&fs));
	/* Sorted as the plan is: /etc with READ_FILE alone (punching
	 * keeps READ_DIR off it), N read-only rules in it, /proc. */
	r[0] = (struct plan_rule){ .path = "/etc", .access = LLW_FS_READ_FILE };
	for (size_t i = 0; i < N; i++) {
		paths[i] = xasprintf("/etc/e%03zu", i);
		r[1 + i] = (struct plan_rule){
			.path = paths[i],
			.access = pathtree_access_bits(RO),
			.punched = true,
		};
	}
	r[N + 1] = proc;
	fs.n_rules = N + 2;
	assert_non_null(viewplan_unsealable(&fs));
	/* At the limit: sealed. */
	r[N] = proc;
	fs.n_rules = N + 1;
	assert_null(viewplan_unsealable(&fs));
	/* /etc may be listed: the rules in it are no clones. */
	r[0].access = pathtree_access_bits(RO);
	r[N] = (struct plan_rule){
		.path = paths[N - 1],
		.access = pathtree_access_bits(RO),
		.punched = true,
	};
	r[N + 1] = proc;
	fs.n_rules = N + 2;
	assert_null(viewplan_unsealable(&fs));
	for (size_t i = 0; i < N; i++)
		free(paths[i]);
}

/* Whether the entry of kind at path in v is late (viewplan.h); fails
 * when there is none. */
static bool
late_at(const struct viewplan *v, enum viewplan_kind kind, const char *path)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->m[i].kind == kind && strcmp(v->m[i].path, path) == 0)
			return v->m[i].late;
	fail_msg("no entry at %s", path);
	return false;
}

/*
 * A read-only mask is cloned at attach time (late), from its root's
 * path, only beneath a writable root (whatever lies above that).
 * Beneath no entry, another mask (a clone with the mask's flags: an rx
 * beneath an ro would lose exec), a bind or a tmpfs, or writable, or a
 * denial (a tmpfs or /dev/null of its own, the placeholders), it is
 * taken at the start as before.
 */
static void
test_late(void **state)
{
	static const struct rule rules[] = {
		{ RW, PROJ },
		{ RX, "/usr" },
		{ 0 },
	};
	static const struct mask masks[] = {
		{ RO, D, PROJ "/a" },
		{ RX, D, PROJ "/a/bin" },
		{ RW, D, PROJ "/a/bin/w" },
		{ RX, D, PROJ "/b" },
		{ LLW_ACCESS_DENY, F, PROJ "/.env" },
		{ LLW_ACCESS_DENY, D, PROJ "/secret" },
		{ RO, D, PROJ "/secret/pub" },
		{ RO, D, "/opt/x" },
		{ 0 },
	};
	static const char *const types[] = { "d " PROJ, NULL };
	static const struct rule trules[] = {
		{ RW, TPROJ "/sub" },
		{ 0 },
	};
	static const struct mask tmasks[] = {
		{ RO, D, TPROJ "/m" },
		{ RO, D, TPROJ "/sub/m" },
		{ 0 },
	};
	static const char *const ttypes[] = { "d /tmp", "d " TPROJ,
					      "d " TPROJ "/sub", NULL };
	const struct vcase cs[] = {
		{ .name = "late",
		  .project = PROJ,
		  .rules = rules,
		  .masks = masks,
		  .types = types },
		{ .name = "late in a private /tmp",
		  .private_tmp = true,
		  .project = TPROJ,
		  .rules = trules,
		  .masks = tmasks,
		  .types = ttypes },
	};
	struct viewplan v[2] = { { 0 } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cs); i++) {
		struct policy *p = policy_new();
		struct plan *fs;
		struct ns_opts o = { .private_tmp = cs[i].private_tmp };
		struct viewplan_fs vfs = { .type_of = type_of,
					   .list = list_of,
					   .entry_type = entry_type_of,
					   .ctx = (void *)&cs[i] };

		p->project = xstrdup(cs[i].project);
		fs = plan_of(&cs[i], p);
		o.fs = fs;
		o.project = p->project;
		o.project_access = policy_access_at(p, p->project, NULL);
		viewplan_build(&o, &vfs, &v[i]);
		if (i == 0) {
			assert_true(late_at(&v[i], VIEWPLAN_MASK, PROJ "/a"));
			assert_false(
				late_at(&v[i], VIEWPLAN_MASK, PROJ "/a/bin"));
			assert_false(
				late_at(&v[i], VIEWPLAN_MASK, PROJ "/a/bin/w"));
			assert_true(late_at(&v[i], VIEWPLAN_MASK, PROJ "/b"));
			assert_false(
				late_at(&v[i], VIEWPLAN_MASK, PROJ "/.env"));
			assert_false(
				late_at(&v[i], VIEWPLAN_MASK, PROJ "/secret"));
			assert_false(late_at(&v[i], VIEWPLAN_MASK,
					     PROJ "/secret/pub"));
			assert_false(late_at(&v[i], VIEWPLAN_MASK, "/opt/x"));
			assert_false(late_at(&v[i], VIEWPLAN_ROOT, PROJ));
		} else {
			/* Beneath the bound project, in the private /tmp's
			 * tmpfs: taken at the start; beneath a root there,
			 * late. */
			assert_false(late_at(&v[i], VIEWPLAN_MASK, TPROJ "/m"));
			assert_true(
				late_at(&v[i], VIEWPLAN_MASK, TPROJ "/sub/m"));
		}
		viewplan_free(&v[i]);
		plan_free(fs);
		policy_free(p);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_is_tmpfs),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_unsealable),
		cmocka_unit_test(test_late),
	};

	return cmocka_run_group_tests_name("viewplan", tests, NULL, NULL);
}
