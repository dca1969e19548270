/*
 * An index entry that lies about its file (review R, R10): the command
 * rewrites the entry of a file it changed to record HEAD's object id
 * with the changed file's own stat data, and git status, git diff and
 * VS Code's changes view, which trust an entry whose stat data matches,
 * show nothing while the file holds the command's change.  At the end,
 * for an index written during the run, each entry whose file was written
 * during the run and which git may take as clean by its stat data alone
 * (gitguard_stat_trusted) is hashed as git names a blob ("blob LEN\0"
 * and the bytes, SHA-1 or SHA-256 as the repository's ids are), through
 * descriptors opened beneath the work tree without links, and one whose
 * hash is not the entry's id is named after the run, as the marks that
 * hide a change are (review L, L5).  Nothing is moved: the index holds
 * the user's staged work, and a stat change (touch) has git read the
 * file and show the change.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "gitguard.h"
#include "sha.h"
#include "strv.h"
#include "text.h"
#include "watchlater-int.h"
#include "xalloc.h"

/* The most files named in one line. */
#define BLOB_NAMED 8
/* The most attribute files crlf_converted opens at one end, and bytes
 * it reads of them: past them, a file is taken as not converted (named,
 * failing towards naming), so a command's many deep CR LF files under
 * large .gitattributes cannot hold the end (review Z). */
#define BLOB_ATTR_OPENS 100000
#define BLOB_ATTR_BYTES (64u << 20)

struct blobs {
	struct watchlater *w;
	int wt_fd;
	const char *wt_path;
	size_t hash_len;
	struct timespec index_mtime;
	char *dir;  /* the directory last opened, relative to the work tree */
	int dirfd;  /* ... its descriptor, -1 when it is not there */
	char **bad; /* the entries whose file is not their object */
	size_t n_bad;
	int gitdir_fd;
	int autocrlf;  /* core.autocrlf true or input in the repository's
			* config: 1, 0, -1 not read yet */
	size_t n_crlf; /* the bad ones only in CR LF line ends */
	size_t attr_opens, attr_bytes; /* what crlf_converted has read */
	/* A split index: its shared index's names by position, what it
	 * deletes and replaces there, the replacements named so far, and
	 * the position in the shared index's walk. */
	char **shared_names;
	size_t n_shared;
	struct gitguard_split split;
	size_t k_replaced, at_shared, k_deleted, k_skip;
};

/* The blob id of what fd holds (size bytes, as fstat said), into id;
 * with crlf, of the text with each CR LF made LF, as git's eol conversion
 * hands it to the hash (n_crlf of them: the first pass's *pairs).
 * *pairs: the CR LF pairs met; *binary: a NUL or a CR alone met, which
 * git's text detection takes as binary.  0, -errno, or -ESTALE when the file
 * did not hold size bytes. */
static int
blob_hash(int fd, uint64_t size, size_t hash_len, bool crlf, uint64_t n_crlf,
	  unsigned char *id, uint64_t *pairs, bool *binary)
{
	static unsigned char buf[1 << 16], out[1 << 16];
	char head[32];
	struct sha s;
	uint64_t left = size;
	size_t o = 0;
	bool cr = false; /* the last byte read was a CR (held, with crlf) */
	int n = snprintf(head, sizeof(head), "blob %llu",
			 (unsigned long long)(crlf ? size - n_crlf : size));

	*pairs = 0;
	*binary = false;
	sha_init(&s, hash_len);
	sha_update(&s, head, (size_t)n + 1);
	for (off_t at = 0; left > 0;) {
		size_t want = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t r = pread(fd, buf, want, at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ESTALE;
		if (!crlf)
			sha_update(&s, buf, (size_t)r);
		for (size_t i = 0; i < (size_t)r; i++) {
			unsigned char c = buf[i];

			if (cr && c == '\n')
				(*pairs)++;
			if ((cr && c != '\n') || c == '\0')
				*binary = true;
			if (crlf) {
				if (o + 2 > sizeof(out)) {
					sha_update(&s, out, o);
					o = 0;
				}
				if (cr && c != '\n')
					out[o++] = '\r';
				if (c != '\r')
					out[o++] = c;
			}
			cr = c == '\r';
		}
		left -= (uint64_t)r;
		at += r;
	}
	if (crlf) {
		sha_update(&s, out, o);
		if (cr)
			sha_update(&s, "\r", 1);
	}
	if (cr)
		*binary = true;
	/* More than fstat said: changed meanwhile. */
	if (pread(fd, buf, 1, (off_t)size) > 0)
		return -ESTALE;
	sha_final(&s, id);
	return 0;
}

/* Whether fd, the file st, is the object id names: its bytes (1), or
 * (it holds CR LF pairs) its text with them made LF (2), which git's eol
 * conversion (core.autocrlf, a text attribute) hashes, where git
 * converts, and not a file git's text detection calls binary (a NUL or
 * a CR alone: core.autocrlf and text=auto leave it as it is; a text
 * attribute would not, which is named then, failing towards naming).
 * 0 when neither, or -errno (-ESTALE: changed while read). */
static int
file_is(int fd, const struct stat *st, size_t hash_len, const unsigned char *id)
{
	unsigned char got[SHA256_LEN];
	uint64_t pairs = 0, again = 0;
	bool binary = false;
	int r = blob_hash(fd, (uint64_t)st->st_size, hash_len, false, 0, got,
			  &pairs, &binary);

	if (r < 0)
		return r;
	if (memcmp(got, id, hash_len) == 0)
		return 1;
	if (pairs == 0 || binary)
		return 0;
	r = blob_hash(fd, (uint64_t)st->st_size, hash_len, true, pairs, got,
		      &again, &binary);
	if (r < 0)
		return r;
	return again == pairs && memcmp(got, id, hash_len) == 0 ? 2 : 0;
}

/* Whether the symbolic link name in dirfd (st) is the object id names:
 * git hashes its target. */
static int
link_is(int dirfd, const char *name, const struct stat *st, size_t hash_len,
	const unsigned char *id)
{
	char target[PATH_MAX + 1], head[32];
	unsigned char got[SHA256_LEN];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target));
	struct sha s;
	int k;

	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(target) || n != st->st_size)
		return -ESTALE;
	k = snprintf(head, sizeof(head), "blob %zd", n);
	sha_init(&s, hash_len);
	sha_update(&s, head, (size_t)k + 1);
	sha_update(&s, target, (size_t)n);
	sha_final(&s, got);
	return memcmp(got, id, hash_len) == 0;
}

/* The directory rel (of the work tree) as b->dirfd, opened once for the
 * entries in it (the index lists them together): -1 when gone or
 * reached through a link (git takes its files as deleted then). */
static void
blob_dir(struct blobs *b, const char *rel)
{
	if (b->dir != NULL && strcmp(b->dir, rel) == 0)
		return;
	free(b->dir);
	b->dir = xstrdup(rel);
	if (b->dirfd >= 0)
		close(b->dirfd);
	{
		_cleanup_free_ char *path =
			*rel != '\0' ? xasprintf("%s/%s", b->wt_path, rel)
				     : xstrdup(b->wt_path);

		b->dirfd =
			wl_open_or_fail(b->w, b->wt_fd, rel, WL_OPEN_DIR, path);
	}
}

static int
autocrlf_var(void *ctx, const char *section, const char *sub, const char *key,
	     const char *value)
{
	int *on = ctx;

	if (section != NULL && sub == NULL && strcmp(section, "core") == 0 &&
	    strcmp(key, "autocrlf") == 0)
		*on = value == NULL || strcasecmp(value, "input") == 0 ||
		      strcasecmp(value, "true") == 0 ||
		      strcasecmp(value, "yes") == 0 ||
		      strcasecmp(value, "on") == 0 || strcmp(value, "1") == 0;
	return 0;
}

/* Whether the attribute lines of text (a .gitattributes in the
 * directory dir of the work tree, "" the top, or NULL: info/attributes)
 * give path a text, eol or crlf attribute (not unset): a pattern without
 * a slash matched against the name, one with against the path from dir
 * (fnmatch, FNM_PATHNAME; git's ** not read: no match). */
static bool
attr_converts(char *text, const char *dir, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n = dir != NULL ? strlen(dir) : 0;
	const char *from = n == 0 ? path : path + n + 1;

	base = base != NULL ? base + 1 : path;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l != NULL;
	     l = strtok_r(NULL, "\n", &save)) {
		char *w = NULL, *pat = strtok_r(l, " \t\r", &w);
		bool slash;

		if (pat == NULL || *pat == '#')
			continue;
		slash = strchr(pat, '/') != NULL;
		if (*pat == '/')
			pat++;
		if (fnmatch(pat, slash ? from : base,
			    slash ? FNM_PATHNAME : 0) != 0)
			continue;
		for (char *a = strtok_r(NULL, " \t\r", &w); a != NULL;
		     a = strtok_r(NULL, " \t\r", &w))
			if (strcmp(a, "text") == 0 || strcmp(a, "crlf") == 0 ||
			    strncmp(a, "text=", 5) == 0 ||
			    strncmp(a, "crlf=", 5) == 0 ||
			    strncmp(a, "eol=", 4) == 0)
				return true;
	}
	return false;
}

/*
 * Whether hit() says so of one of the attribute files git reads for path
 * in the work tree: the .gitattributes of each directory on its way
 * (".gitattributes", "a/.gitattributes" ... for a/b/name), last the
 * repository's info/attributes; text is the file's, dir its directory in
 * the work tree (NULL for info/attributes).  Where bounded, the end's
 * bounds of attribute reading (BLOB_ATTR_OPENS, BLOB_ATTR_BYTES) stop the
 * walk: not found.
 */
static bool
attr_any(struct blobs *b, const char *path, bool bounded,
	 bool (*hit)(char *text, const char *dir, const char *path))
{
	const char *at = path;

	for (int k = 0; k < 2 + GITGUARD_MAX_PATH; k++) {
		size_t n = at != NULL ? (size_t)(at - path) : 0;
		_cleanup_free_ char *text = NULL, *dir = NULL;
		_cleanup_free_ char *name =
			at == NULL ? xstrdup("info/attributes")
			: n == 0   ? xstrdup(".gitattributes")
				   : xasprintf("%.*s/.gitattributes", (int)n,
					       path);
		size_t len = 0;

		if (bounded && (b->attr_opens >= BLOB_ATTR_OPENS ||
				b->attr_bytes >= BLOB_ATTR_BYTES))
			return false;
		b->attr_opens++;
		if (at != NULL)
			dir = xstrndup(path, n);
		if (wl_read_beneath(at == NULL ? b->gitdir_fd : b->wt_fd, name,
				    WATCHLATER_MAX_CONFIG, NULL, &text,
				    &len) == 0) {
			b->attr_bytes += len;
			if (hit(text, dir, path))
				return true;
		}
		if (at == NULL)
			break;
		at = strchr(n == 0 ? path : at + 1, '/');
	}
	return false;
}

/* Whether git converts path's CR LF to LF before it hashes it: the
 * repository's core.autocrlf (its config and config.worktree; the
 * user's own configuration is not read here), or an attribute of the
 * .gitattributes on its way or info/attributes.  Where llwrap cannot
 * tell, it does not (the file is named, fails towards naming). */
static bool
crlf_converted(struct blobs *b, const char *path)
{
	static const char *const own[] = { "config", "config.worktree" };

	if (b->autocrlf < 0) {
		b->autocrlf = 0;
		for (size_t i = 0; i < ARRAY_SIZE(own); i++) {
			_cleanup_free_ char *text = NULL;
			size_t len = 0;

			if (wl_read_beneath(b->gitdir_fd, own[i],
					    WATCHLATER_MAX_CONFIG, NULL, &text,
					    &len) == 0 &&
			    strlen(text) == len)
				gitconfig_each(text, autocrlf_var,
					       &b->autocrlf);
		}
	}
	return b->autocrlf > 0 || attr_any(b, path, true, attr_converts);
}

static int
blob_entry(void *ctx, const char *path, const struct gitguard_index_entry *e)
{
	struct blobs *b = ctx;
	struct watchlater *w = b->w;
	const char *slash = strrchr(path, '/');
	const char *name = slash != NULL ? slash + 1 : path;
	_cleanup_free_ char *dir =
		xstrndup(path, slash != NULL ? (size_t)(slash - path) : 0);
	_cleanup_close_ int fd = -1;
	struct stat st, fst;
	int r;

	/* A split index's replacement: named by the shared index's entry
	 * it replaces (the replace bitmap's bits, in order). */
	if (*path == '\0' && b->k_replaced < b->split.n_replaced)
		return blob_entry(
			ctx,
			b->shared_names[b->split.replaced[b->k_replaced++]], e);
	/* A gitlink, a sparse index's directory, or a path git would not
	 * write (wl_index_links said). */
	if (*path == '\0' || !gitguard_verify_path(path) ||
	    ((e->mode & 0170000) != 0100000 && (e->mode & 0170000) != 0120000))
		return 0;
	blob_dir(b, dir);
	if (b->dirfd < 0)
		return 0;
	if (fstatat(b->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		/* Gone: git shows it deleted.  Else not looked at is not
		 * checked: a failure. */
		int err = errno;

		if (err != ENOENT && err != ENOTDIR) {
			_cleanup_free_ char *full =
				xasprintf("%s/%s", b->wt_path, path);
			_cleanup_free_ char *shown = text_shown(full);

			wl_fail(w, xasprintf("cannot look at %s to check it "
					     "against the git index: %s",
					     shown, strerror(err)));
		}
		return 0;
	}
	if (!wl_changed(w, &st) ||
	    !gitguard_stat_trusted(e, &st, &b->index_mtime))
		return 0;
	if (w->blob_files >= WATCHLATER_BLOB_FILES ||
	    w->blob_bytes + (uint64_t)st.st_size > WATCHLATER_BLOB_BYTES) {
		_cleanup_free_ char *shown = text_shown(b->wt_path);

		/* Not hashed is not checked: the run fails, saying so. */
		wl_fail(w,
			xasprintf("cannot check the git index of %s "
				  "against the files the command wrote: "
				  "more than %d files or %llu MiB to hash "
				  "(touch the files it changed, then git "
				  "status shows what they hold)",
				  shown, WATCHLATER_BLOB_FILES,
				  (unsigned long long)(WATCHLATER_BLOB_BYTES >>
						       20)));
		return 1;
	}
	w->blob_files++;
	w->blob_bytes += (uint64_t)st.st_size;
	if (S_ISLNK(st.st_mode)) {
		r = link_is(b->dirfd, name, &st, b->hash_len, e->oid);
	} else if ((fd = wl_open_regular(b->dirfd, name, &fst)) < 0) {
		r = fd;
	} else if (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino ||
		   fst.st_size != st.st_size) {
		r = -ESTALE;
	} else {
		r = file_is(fd, &st, b->hash_len, e->oid);
	}
	if (r == 1 || r == -ENOENT || (r == 2 && crlf_converted(b, path)))
		return 0;
	if (r == 2)
		b->n_crlf++;
	if (r < 0 && r != -ESTALE && r != -ELOOP && r != -EINVAL) {
		_cleanup_free_ char *full =
			xasprintf("%s/%s", b->wt_path, path);
		_cleanup_free_ char *shown = text_shown(full);

		wl_fail(w, xasprintf("cannot read %s to check it against the "
				     "git index: %s",
				     shown, strerror(-r)));
		return 0;
	}
	/* Not what the entry says (or not a file to read as one). */
	if (b->n_bad++ < BLOB_NAMED)
		strv_push_take(&b->bad, text_shown(path));
	return 0;
}

/* Whether text names a filter, ident or working-tree-encoding: git
 * hashes a file through them, and llwrap does not. */
static bool
attr_filters(char *text, const char *dir, const char *path)
{
	static const char *const words[] = { "filter", "ident",
					     "working-tree-encoding" };

	(void)dir;
	(void)path;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(text, words[i]) != NULL)
			return true;
	return false;
}

/* Whether the attributes git reads for path in the work tree name a
 * filter (attr_filters): read for the files named alone, unbounded. */
static bool
blob_filtered(struct blobs *b, const char *path)
{
	return attr_any(b, path, false, attr_filters);
}

/* An entry of the shared index a split index links to: looked at unless
 * the split index deletes or replaces it (its own entry is looked at). */
static int
blob_shared_entry(void *ctx, const char *path,
		  const struct gitguard_index_entry *e)
{
	struct blobs *b = ctx;
	const struct gitguard_split *sp = &b->split;
	uint32_t at = (uint32_t)b->at_shared++;

	/* (The bitmaps' bits come in order, as the entries do.) */
	while (b->k_deleted < sp->n_deleted && sp->deleted[b->k_deleted] < at)
		b->k_deleted++;
	while (b->k_skip < sp->n_replaced && sp->replaced[b->k_skip] < at)
		b->k_skip++;
	if ((b->k_deleted < sp->n_deleted && sp->deleted[b->k_deleted] == at) ||
	    (b->k_skip < sp->n_replaced && sp->replaced[b->k_skip] == at))
		return 0;
	return blob_entry(ctx, path, e);
}

static int
shared_name(void *ctx, const char *path, const struct gitguard_index_entry *e)
{
	struct blobs *b = ctx;

	(void)e;
	b->shared_names =
		xreallocarray(b->shared_names, b->n_shared + 2, sizeof(char *));
	b->shared_names[b->n_shared++] = xstrdup(path);
	b->shared_names[b->n_shared] = NULL;
	return 0;
}

/* The entries of the index in gitdir_fd (and of the shared index it
 * links to), each looked at (blob_entry); what cannot be read,
 * wl_index_links said, but a split index's link, which it does not
 * read: a failure. */
static void
blob_index(struct blobs *b, int gitdir_fd)
{
	_cleanup_free_ char *buf = NULL, *sbuf = NULL, *invalid = NULL;
	_cleanup_free_ char *shared = NULL;
	_cleanup_strv_ char **links = NULL, **slinks = NULL;
	size_t len = 0, slen = 0;

	if (wl_read_beneath(gitdir_fd, "index", WATCHLATER_MAX_INDEX, NULL,
			    &buf, &len) < 0 ||
	    gitguard_index_scan(buf, len, b->hash_len, &links, &shared,
				&invalid, NULL) < 0 ||
	    invalid != NULL)
		return;
	if (shared == NULL) {
		gitguard_index_each(buf, len, b->hash_len, blob_entry, b);
		return;
	}
	if (wl_read_beneath(gitdir_fd, shared, WATCHLATER_MAX_INDEX, NULL,
			    &sbuf, &slen) < 0 ||
	    gitguard_index_scan(sbuf, slen, b->hash_len, &slinks, NULL,
				&invalid, NULL) < 0 ||
	    invalid != NULL ||
	    gitguard_index_each(sbuf, slen, b->hash_len, shared_name, b) < 0)
		return;
	if (b->n_shared > UINT32_MAX ||
	    gitguard_index_split(buf, len, b->hash_len, (uint32_t)b->n_shared,
				 &b->split) < 0) {
		_cleanup_free_ char *shown = text_shown(b->wt_path);

		wl_fail(b->w, xasprintf("cannot read the split index of %s "
					"(its link to %s) as git does",
					shown, shared));
		return;
	}
	gitguard_index_each(buf, len, b->hash_len, blob_entry, b);
	gitguard_index_each(sbuf, slen, b->hash_len, blob_shared_entry, b);
}

void
wl_index_blob_check(struct watchlater *w, int gitdir_fd, int wt_fd,
		    const char *wt_path)
{
	struct blobs b = { .w = w,
			   .wt_fd = wt_fd,
			   .wt_path = wt_path,
			   .hash_len = w->hash_len,
			   .dirfd = -1,
			   .gitdir_fd = gitdir_fd,
			   .autocrlf = -1 };
	_cleanup_free_ char *list = NULL, *shown = NULL;
	struct stat st;
	bool filtered = false;

	/* An index not written during the run records what it did. */
	if (wt_fd < 0 ||
	    fstatat(gitdir_fd, "index", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || !wl_changed(w, &st))
		return;
	b.index_mtime = st.st_mtim;
	blob_index(&b, gitdir_fd);
	strv_free(b.shared_names);
	gitguard_split_free(&b.split);
	free(b.dir);
	if (b.dirfd >= 0)
		close(b.dirfd);
	if (b.n_bad == 0)
		return;
	for (char **p = b.bad; *p != NULL && !filtered; p++)
		filtered = blob_filtered(&b, *p);
	if (b.n_bad > BLOB_NAMED)
		strv_push(&b.bad, "...");
	list = strv_join(b.bad, ", ");
	strv_free(b.bad);
	shown = text_shown(wt_path);
	strv_push_take(
		&w->lines,
		xasprintf("llwrap: the git index of %s says %zu file%s the "
			  "command wrote %s unchanged by %s stat data, but "
			  "%s not what the index records: git status and "
			  "git diff trust the stat data and do not show "
			  "what it changed there: %s%s%s; run touch on %s "
			  "(git then reads %s) and review git status and git "
			  "diff before running anything of the project's",
			  shown, b.n_bad, b.n_bad == 1 ? "" : "s",
			  b.n_bad == 1 ? "is" : "are",
			  b.n_bad == 1 ? "its" : "their",
			  b.n_bad == 1 ? "its content is"
				       : "their contents are",
			  list,
			  filtered ? " (the repository's attributes name a "
				     "filter, ident or working-tree-encoding, "
				     "which git applies before it hashes a "
				     "file and llwrap does not: it may be "
				     "that)"
				   : "",
			  b.n_crlf > 0
				  ? " (some differ from it only in CR LF "
				    "line ends, which git makes LF before it "
				    "hashes under core.autocrlf or a text or "
				    "eol attribute: the repository sets "
				    "neither for them, your own git "
				    "configuration may)"
				  : "",
			  b.n_bad == 1 ? "it" : "them",
			  b.n_bad == 1 ? "it" : "them"));
}
