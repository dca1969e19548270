/*
 * What git's own files say, read as git reads them (gitguard.h): the
 * index (its gitlinks, an entry and whether it still matches the file,
 * the paths git would refuse to write) and the configuration (the object
 * format, core.hooksPath, and whether a config sets what could run a
 * command).  Pure: the caller reads the bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "gitconfig.h"
#include "gitguard.h"
#include "path.h"
#include "strv.h"
#include "text.h"
#include "xalloc.h"

/* Big-endian 32-bit value at p. */
static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/*
 * Calls fn(ctx, path, entry) for each entry of a git index (the text of
 * .git/index, versions 2, 3 and 4), entry pointing at its stat data,
 * mode, object id and flags, path a NUL-terminated buffer of the walk's
 * (valid during the call); fn returns nonzero to stop.  0, or -EINVAL for
 * a file that is not an index as git reads one.
 *
 * Index format (gitformat-index(5)): "DIRC", version, entry count, then
 * entries of 40 bytes of stat data and mode, the object id (hash_len
 * bytes: 20 for SHA-1, 32 for SHA-256) and 2 bytes of flags, 2 more flag
 * bytes when the extended bit is set (version 3 and up), the path.
 *
 * The entries are cut where git cuts them (read-cache.c,
 * create_from_disk), never where a NUL happens to be: the name's length
 * is the low 12 bits of the flags, its bytes counted only when those say
 * 0xfff; versions 2 and 3 pad the entry with NULs to a multiple of 8,
 * version 4 has a varint of bytes to keep from the previous name (ignored
 * for the first) and the rest, NUL-terminated.  A name with a NUL inside
 * it, no NUL after it, or longer than GITGUARD_MAX_PATH (no such path can
 * exist) makes the index one llwrap does not read: the caller fails
 * loudly rather than read it another way than git would.  Linear in the
 * index's size: version 4 names are rebuilt in one buffer.
 */
static int
index_walk(const void *buf, size_t len, size_t hash_len,
	   int (*fn)(void *ctx, const char *path, const unsigned char *entry),
	   void *ctx, size_t *ext_at)
{
	const unsigned char *b = buf, *end = b + len, *e;
	char name[GITGUARD_MAX_PATH + 1];
	size_t name_len = 0;
	uint32_t version, count;

	if (len < 12 || memcmp(b, "DIRC", 4) != 0)
		return -EINVAL;
	version = be32(b + 4);
	count = be32(b + 8);
	if (version < 2 || version > 4 ||
	    (hash_len != GITGUARD_SHA1_LEN && hash_len != GITGUARD_SHA256_LEN))
		return -EINVAL;
	e = b + 12;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *entry = e, *p;
		size_t fixed = 40 + hash_len + 2, copy = 0, total, tail;
		uint16_t flags;

		if ((size_t)(end - e) < fixed)
			return -EINVAL;
		flags = (uint16_t)(e[fixed - 2] << 8 | e[fixed - 1]);
		if ((flags & 0x4000) != 0) {
			if (version < 3)
				return -EINVAL;
			fixed += 2;
		}
		if ((size_t)(end - e) < fixed)
			return -EINVAL;
		p = e + fixed;
		if (version == 4) {
			uint64_t strip;
			unsigned char c;

			/* git's varint: 7 bits a byte, each continuation
			 * adding one before the shift. */
			if (p >= end)
				return -EINVAL;
			c = *p++;
			strip = c & 0x7f;
			while (c & 0x80) {
				if (p >= end || strip >= (1ULL << 40))
					return -EINVAL;
				c = *p++;
				strip = ((strip + 1) << 7) | (c & 0x7f);
			}
			if (i > 0) {
				if (strip > name_len)
					return -EINVAL;
				copy = name_len - (size_t)strip;
			}
		}
		/* The name: copy bytes of the previous one, then tail bytes
		 * here, then a NUL. */
		if ((flags & 0xfff) == 0xfff) {
			const unsigned char *nul =
				memchr(p, '\0', (size_t)(end - p));

			if (nul == NULL)
				return -EINVAL;
			tail = (size_t)(nul - p);
			total = copy + tail;
		} else {
			total = flags & 0xfff;
			if (total < copy)
				return -EINVAL;
			tail = total - copy;
		}
		if (total > GITGUARD_MAX_PATH || (size_t)(end - p) <= tail ||
		    p[tail] != '\0' || memchr(p, '\0', tail) != NULL)
			return -EINVAL;
		memcpy(name + copy, p, tail);
		name[total] = '\0';
		name_len = total;
		if (version == 4) {
			e = p + tail + 1;
		} else {
			/* NULs to a multiple of 8 (1 to 8 of them). */
			size_t n = (fixed + total + 8) & ~(size_t)7;

			if ((size_t)(end - e) < n)
				return -EINVAL;
			e += n;
		}
		if (fn(ctx, name, entry) != 0)
			return 0;
	}
	if (ext_at != NULL)
		*ext_at = (size_t)(e - b);
	return 0;
}

/*
 * The shared index a split index links to (its "link" extension):
 * "sharedindex.HEX" in *shared, or NULL when it links to none.  The
 * extensions follow the entries (from at) up to the trailing checksum:
 * a signature, a 32-bit size, the data.  -EINVAL when they do not fit.
 */
static int
index_link(const unsigned char *b, size_t len, size_t at, size_t hash_len,
	   char **shared)
{
	*shared = NULL;
	if (len < hash_len || at > len - hash_len)
		return -EINVAL;
	len -= hash_len;
	while (len - at >= 8) {
		uint32_t size = be32(b + at + 4);
		bool zero = true;

		if (size > len - at - 8)
			return -EINVAL;
		if (memcmp(b + at, "link", 4) == 0) {
			if (size < hash_len)
				return -EINVAL;
			for (size_t i = 0; i < hash_len; i++)
				zero = zero && b[at + 8 + i] == 0;
			if (zero)
				return 0;
			*shared =
				xmalloc(sizeof("sharedindex.") + 2 * hash_len);
			strcpy(*shared, "sharedindex.");
			for (size_t i = 0; i < hash_len; i++)
				snprintf(*shared + 12 + 2 * i, 3, "%02x",
					 b[at + 8 + i]);
			return 0;
		}
		at += 8 + size;
	}
	return 0;
}

/* One more bit of a bitmap's in *v (n of cap). */
static void
bits_push(uint32_t **v, size_t *n, size_t *cap, uint64_t bit)
{
	if (*n == *cap) {
		*cap = *cap != 0 ? 2 * *cap : 64;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = (uint32_t)bit;
}

/*
 * The set bits of the EWAH bitmap at p (git's ewah_io.c: a 32-bit bit
 * count, a 32-bit word count, that many 64-bit words, a 32-bit position
 * of the last run word; all big-endian) in *v (n of them, below
 * max_bits), its size in *used.  A run word: its lowest bit the running
 * bit, the next 32 the run's length in words, the top 31 the literal
 * words after it.  -EINVAL for one that does not fit or sets a bit at
 * or past max_bits.
 */
static int
ewah_bits(const unsigned char *p, size_t len, uint32_t max_bits, uint32_t **v,
	  size_t *n, size_t *used)
{
	uint32_t words;
	uint64_t bit = 0;
	size_t cap = 0;

	*v = NULL;
	*n = 0;
	if (len < 12)
		return -EINVAL;
	words = be32(p + 4);
	if (words > (len - 12) / 8)
		return -EINVAL;
	*used = 12 + (size_t)words * 8;
	for (uint32_t i = 0; i < words;) {
		const unsigned char *q = p + 8 + (size_t)i * 8;
		uint64_t w = (uint64_t)be32(q) << 32 | be32(q + 4);
		uint64_t run = (w >> 1) & 0xffffffffu, lit = w >> 33;

		if (w & 1) {
			if (bit + run * 64 > max_bits)
				goto bad;
			for (uint64_t k = 0; k < run * 64; k++)
				bits_push(v, n, &cap, bit++);
		} else {
			bit += run * 64;
		}
		if (lit > words - i - 1)
			goto bad;
		for (uint64_t k = 1; k <= lit; k++) {
			const unsigned char *r = q + k * 8;
			uint64_t l = (uint64_t)be32(r) << 32 | be32(r + 4);

			for (int c = 0; c < 64; c++, bit++) {
				if (!(l >> c & 1))
					continue;
				if (bit >= max_bits)
					goto bad;
				bits_push(v, n, &cap, bit);
			}
		}
		i += 1 + (uint32_t)lit;
	}
	return 0;
bad:
	free(*v);
	*v = NULL;
	*n = 0;
	return -EINVAL;
}

/* The entries' end of an index: index_walk's, with nothing done. */
static int
no_entry(void *ctx, const char *path, const unsigned char *entry)
{
	(void)ctx;
	(void)path;
	(void)entry;
	return 0;
}

int
gitguard_index_split(const void *buf, size_t len, size_t hash_len,
		     uint32_t shared_n, struct gitguard_split *out)
{
	const unsigned char *b = buf;
	size_t at = 0, used = 0;
	int r = index_walk(buf, len, hash_len, no_entry, NULL, &at);

	*out = (struct gitguard_split){ 0 };
	if (r < 0)
		return r;
	if (len < hash_len || at > len - hash_len)
		return -EINVAL;
	len -= hash_len;
	while (len - at >= 8) {
		uint32_t size = be32(b + at + 4);
		const unsigned char *d = b + at + 8;

		if (size > len - at - 8)
			return -EINVAL;
		if (memcmp(b + at, "link", 4) != 0) {
			at += 8 + size;
			continue;
		}
		/* The shared index's id, then the delete and replace
		 * bitmaps (none when the link names no shared index). */
		if (size < hash_len)
			return -EINVAL;
		if (size == hash_len)
			return 0;
		if ((r = ewah_bits(d + hash_len, size - hash_len, shared_n,
				   &out->deleted, &out->n_deleted, &used)) <
			    0 ||
		    (r = ewah_bits(d + hash_len + used, size - hash_len - used,
				   shared_n, &out->replaced, &out->n_replaced,
				   &used)) < 0) {
			gitguard_split_free(out);
			return r;
		}
		return 0;
	}
	return 0;
}

void
gitguard_split_free(struct gitguard_split *s)
{
	free(s->deleted);
	free(s->replaced);
	*s = (struct gitguard_split){ 0 };
}

/* The second walk of index_offsets_agree: the blocks of the offset
 * table, in order, and where the walk is in them. */
struct blocks {
	const unsigned char *b, *table; /* the index; IEOT's pairs */
	size_t n, next, start, hash_len, prev_len;
	uint32_t version, at;
	bool bad;
};

static int
check_block(void *ctx, const char *path, const unsigned char *entry)
{
	struct blocks *k = ctx;

	if (k->next < k->n && k->at == k->start) {
		const unsigned char *t = k->table + 8 * k->next;
		uint16_t flags = (uint16_t)(entry[40 + k->hash_len] << 8 |
					    entry[41 + k->hash_len]);
		const unsigned char *p =
			entry + 42 + k->hash_len + ((flags & 0x4000) ? 2 : 0);

		if ((size_t)(entry - k->b) != be32(t))
			k->bad = true;
		/* Version 4: git's thread reads a block's first name
		 * whole; the walk strips the previous one by the varint
		 * (the index is whole: index_walk read it). */
		if (k->version == 4 && k->at > 0) {
			uint64_t strip = *p & 0x7f;

			while (*p++ & 0x80)
				strip = ((strip + 1) << 7) | (*p & 0x7f);
			if (strip != k->prev_len)
				k->bad = true;
		}
		k->start += be32(t + 4);
		k->next++;
	}
	k->prev_len = strlen(path);
	k->at++;
	return k->bad ? 1 : 0;
}

/*
 * Whether git reads the entries of the index b (len bytes, entries up to
 * ext_at) as index_walk does.  git reads them by the index's offset table
 * (IEOT: blocks of nr entries, each from its own offset) when it reads
 * with threads (index.threads, or by itself with 10,000 entries a thread
 * and 3 CPUs or more) and the end-of-entries extension (EOIE, the last
 * one) names where the extensions start.  git writes them to agree with
 * the entries in order; ones that do not had git read an entry
 * .git/hooks/post-checkout from an extension's data where this walk read
 * another (review R).  0, or -EINVAL.
 */
static int
index_offsets_agree(const unsigned char *b, size_t len, size_t hash_len,
		    size_t ext_at)
{
	size_t eoie = 8 + 4 + hash_len, at = ext_at, end;
	const unsigned char *ieot = NULL;
	uint32_t ieot_size = 0, count = be32(b + 8), sum = 0;
	struct blocks k = { .b = b,
			    .hash_len = hash_len,
			    .version = be32(b + 4) };

	/* git looks for EOIE where it ends, before the checksum. */
	if (len < 12 + hash_len + eoie)
		return 0;
	end = len - hash_len - eoie;
	if (memcmp(b + end, "EOIE", 4) != 0 ||
	    be32(b + end + 4) != 4 + hash_len)
		return 0;
	if (be32(b + end + 8) != ext_at)
		return -EINVAL;
	while (at < end && end - at >= 8) {
		uint32_t size = be32(b + at + 4);

		if (size > end - at - 8)
			return -EINVAL;
		if (memcmp(b + at, "IEOT", 4) == 0) {
			ieot = b + at + 8;
			ieot_size = size;
		}
		at += 8 + size;
	}
	if (ieot == NULL)
		return 0;
	if (ieot_size < 4 || (ieot_size - 4) % 8 != 0 || be32(ieot) != 1)
		return -EINVAL;
	k.table = ieot + 4;
	k.n = (ieot_size - 4) / 8;
	for (size_t i = 0; i < k.n; i++) {
		uint32_t nr = be32(k.table + 8 * i + 4);

		if (nr == 0 || nr > count - sum)
			return -EINVAL;
		sum += nr;
	}
	if (sum != count ||
	    index_walk(b, len, hash_len, check_block, &k, NULL) < 0 || k.bad)
		return -EINVAL;
	return 0;
}

/* The gitlinks of an index, at most GITGUARD_MAX_LINKS of them; where
 * asked, the first other entry whose path git refuses; hash_len, the
 * length of its object ids (the flags follow the id). */
struct links {
	char **v;
	size_t n, cap;
	bool over;
	char **invalid;
	char ***hidden;
	size_t hash_len;
};

/*
 * Whether git's verify_path(path, mode) takes an index entry's path as
 * git writes one: a sparse index's directory entry (mode 040000, a tree)
 * ends in a '/'; a split index's entry that replaces one of its shared
 * index has no name (CE_STRIP_NAME: the shared index's entry names it,
 * and is read too).  Refused, they had the user's own index moved aside
 * at the start.
 */
static bool
entry_path_ok(const char *path, uint32_t mode)
{
	size_t n = strlen(path);
	_cleanup_free_ char *dir = NULL;

	if (n == 0)
		return true;
	if ((mode & 0170000) != 0040000 || n < 2 || path[n - 1] != '/')
		return gitguard_verify_path(path);
	dir = xstrndup(path, n - 1);
	return gitguard_verify_path(dir);
}

static int
collect_gitlink(void *ctx, const char *path, const unsigned char *entry)
{
	struct links *l = ctx;

	if (l->hidden != NULL) {
		const unsigned char *f = entry + 40 + l->hash_len;
		uint16_t flags = (uint16_t)(f[0] << 8 | f[1]);
		/* Version 3 and up: the extended flags, skip-worktree
		 * among them. */
		uint16_t ext = (flags & 0x4000) != 0
				       ? (uint16_t)(f[2] << 8 | f[3])
				       : 0;

		/* (A split index's entry that replaces one of its shared
		 * index's is named there, by its position.) */
		if (((flags & 0x8000) != 0 || (ext & 0x4000) != 0) &&
		    strv_length(*l->hidden) < GITGUARD_MAX_LINKS)
			strv_push(l->hidden,
				  *path != '\0'
					  ? path
					  : "(one the split index names)");
	}
	if ((be32(entry + 24) & 0170000) != 0160000) {
		if (l->invalid != NULL && *l->invalid == NULL &&
		    !entry_path_ok(path, be32(entry + 24)))
			*l->invalid = xstrdup(path);
		return 0;
	}
	if (l->n >= GITGUARD_MAX_LINKS) {
		l->over = true;
		return 1;
	}
	if (l->n + 1 >= l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(char *));
	}
	l->v[l->n++] = xstrdup(path);
	l->v[l->n] = NULL;
	return 0;
}

int
gitguard_index_gitlinks(const void *buf, size_t len, size_t hash_len,
			char ***paths, char **shared)
{
	return gitguard_index_scan(buf, len, hash_len, paths, shared, NULL,
				   NULL);
}

int
gitguard_index_scan(const void *buf, size_t len, size_t hash_len, char ***paths,
		    char **shared, char **invalid, char ***hidden)
{
	struct links l = { .v = xcalloc(1, sizeof(char *)),
			   .cap = 1,
			   .invalid = invalid,
			   .hidden = hidden,
			   .hash_len = hash_len };
	size_t at = 0;
	int r;

	*paths = NULL;
	if (shared != NULL)
		*shared = NULL;
	if (invalid != NULL)
		*invalid = NULL;
	if (hidden != NULL)
		*hidden = NULL;
	r = index_walk(buf, len, hash_len, collect_gitlink, &l, &at);
	if (r == 0 && l.over)
		r = -E2BIG;
	if (r == 0 && shared != NULL &&
	    index_link(buf, len, at, hash_len, shared) < 0)
		r = -EINVAL;
	if (r == 0)
		r = index_offsets_agree(buf, len, hash_len, at);
	if (r < 0) {
		strv_free(l.v);
		if (invalid != NULL) {
			free(*invalid);
			*invalid = NULL;
		}
		if (hidden != NULL) {
			strv_free(*hidden);
			*hidden = NULL;
		}
		return r;
	}
	*paths = l.v;
	return 0;
}

/* The entry at e (its stat data, mode, object id, flags) as parsed. */
static void
entry_parse(const unsigned char *e, size_t hash_len,
	    struct gitguard_index_entry *out)
{
	const unsigned char *f = e + 40 + hash_len;

	*out = (struct gitguard_index_entry){
		.ctime_sec = be32(e),
		.ctime_nsec = be32(e + 4),
		.mtime_sec = be32(e + 8),
		.mtime_nsec = be32(e + 12),
		.dev = be32(e + 16),
		.ino = be32(e + 20),
		.mode = be32(e + 24),
		.uid = be32(e + 28),
		.gid = be32(e + 32),
		.size = be32(e + 36),
		.flags = (uint16_t)(f[0] << 8 | f[1]),
		.oid = e + 40,
	};
	/* Version 3 and up: skip-worktree and intent-to-add. */
	if ((out->flags & 0x4000) != 0)
		out->ext_flags = (uint16_t)(f[2] << 8 | f[3]);
}

struct find {
	const char *path;
	struct gitguard_index_entry *out;
	bool found;
};

static int
find_entry(void *ctx, const char *path, const unsigned char *e)
{
	struct find *f = ctx;

	if (strcmp(path, f->path) != 0)
		return 0;
	entry_parse(e, GITGUARD_SHA1_LEN, f->out);
	f->out->oid = NULL;
	f->found = true;
	return 1;
}

int
gitguard_index_find(const void *buf, size_t len, const char *path,
		    struct gitguard_index_entry *out)
{
	struct find f = { .path = path, .out = out };
	int r = index_walk(buf, len, GITGUARD_SHA1_LEN, find_entry, &f, NULL);

	if (r < 0)
		return r;
	return f.found ? 0 : -ENOENT;
}

struct each {
	gitguard_entry_fn *fn;
	void *ctx;
	size_t hash_len;
};

static int
each_entry(void *ctx, const char *path, const unsigned char *e)
{
	struct each *a = ctx;
	struct gitguard_index_entry entry;

	entry_parse(e, a->hash_len, &entry);
	return a->fn(a->ctx, path, &entry);
}

int
gitguard_index_each(const void *buf, size_t len, size_t hash_len,
		    gitguard_entry_fn *fn, void *ctx)
{
	struct each a = { .fn = fn, .ctx = ctx, .hash_len = hash_len };

	return index_walk(buf, len, hash_len, each_entry, &a, NULL);
}

/* Whether the entry e is racily clean: its file changed in the same
 * tick the index (of mtime index_mtime) was written, which the stat data
 * cannot tell apart (git's is_racy_timestamp). */
static bool
racily_clean(const struct gitguard_index_entry *e,
	     const struct timespec *index_mtime)
{
	return (uint32_t)index_mtime->tv_sec < e->mtime_sec ||
	       ((uint32_t)index_mtime->tv_sec == e->mtime_sec &&
		(uint32_t)index_mtime->tv_nsec <= e->mtime_nsec);
}

bool
gitguard_stat_trusted(const struct gitguard_index_entry *e,
		      const struct stat *st, const struct timespec *index_mtime)
{
	uint32_t type = e->mode & 0170000;

	/* A conflict, assume-valid, skip-worktree (named apart: review
	 * L, L5) or intent-to-add: git reads the file, or shows it. */
	if ((e->flags & 0xb000) != 0 || (e->ext_flags & 0x6000) != 0)
		return false;
	/* (A link's entry and a file: under core.symlinks=false git
	 * checks links out as files holding their target, and trusts
	 * their stat data as a file's.) */
	if (!(type == 0100000 && S_ISREG(st->st_mode)) &&
	    !(type == 0120000 &&
	      (S_ISLNK(st->st_mode) || S_ISREG(st->st_mode))))
		return false;
	/* core.checkStat=minimal and core.trustctime=false leave git
	 * these two (ce_match_stat_basic). */
	if (e->size != (uint32_t)st->st_size ||
	    e->mtime_sec != (uint32_t)st->st_mtim.tv_sec)
		return false;
	/* Racily clean: git compares the contents itself, but not when the
	 * index's mtime, as git keeps it (32 bits), is 0: git takes that
	 * as no time and trusts every entry (is_racy_stat; the command can
	 * touch -d @0 its index). */
	return (uint32_t)index_mtime->tv_sec == 0 ||
	       !racily_clean(e, index_mtime);
}

bool
gitguard_unchanged(const struct gitguard_index_entry *e, const struct stat *st,
		   const struct timespec *index_mtime)
{
	/* A conflict (stage bits), assume-valid, skip-worktree or
	 * intent-to-add: git does not vouch for the file's contents. */
	if ((e->flags & 0xb000) != 0 || (e->ext_flags & 0x6000) != 0 ||
	    (e->mode & 0170000) != 0100000 || !S_ISREG(st->st_mode))
		return false;
	/* Git's own test (ie_match_stat), every field, 32-bit as the
	 * index stores them; a zero inode or device (an index written
	 * without them) proves nothing. */
	if (e->ino == 0 || e->dev == 0 || e->ino != (uint32_t)st->st_ino ||
	    e->dev != (uint32_t)st->st_dev ||
	    e->size != (uint32_t)st->st_size ||
	    (uint64_t)e->size != (uint64_t)st->st_size ||
	    e->uid != (uint32_t)st->st_uid || e->gid != (uint32_t)st->st_gid ||
	    e->mtime_sec != (uint32_t)st->st_mtim.tv_sec ||
	    e->mtime_nsec != (uint32_t)st->st_mtim.tv_nsec ||
	    e->ctime_sec != (uint32_t)st->st_ctim.tv_sec ||
	    e->ctime_nsec != (uint32_t)st->st_ctim.tv_nsec)
		return false;
	/* Racily clean: git then compares the contents. */
	return !racily_clean(e, index_mtime);
}

/*
 * Whether the n bytes at p are a name NTFS resolves to .git (git's
 * is_ntfs_dotgit, which git applies on every system by default,
 * core.protectNTFS): ".git" or its short name "git~1" in any case,
 * followed by nothing but dots and spaces (Windows drops them) up to
 * the end or an alternate stream's ':'.  On a project on NTFS (ntfs3, a
 * WSL /mnt/c) "GIT~1/hooks/post-checkout" is .git's hook.
 */
static bool
ntfs_dotgit(const char *p, size_t n)
{
	size_t k;

	if (n >= 4 && strncasecmp(p, ".git", 4) == 0)
		k = 4;
	else if (n >= 5 && strncasecmp(p, "git~1", 5) == 0)
		k = 5;
	else
		return false;
	for (; k < n && p[k] != ':'; k++)
		if (p[k] != '.' && p[k] != ' ')
			return false;
	return true;
}

bool
gitguard_verify_path(const char *path)
{
	const char *p = path;

	if (*p == '\0')
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");

		/* Empty (a leading, trailing or double slash), "." or "..",
		 * or .git in any case (git refuses it on every system). */
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.') ||
		    (n == 4 && strncasecmp(p, ".git", 4) == 0))
			return false;
		/* NTFS's names for .git, after a '/' or a '\\' (git
		 * checks after both). */
		for (size_t b = 0; b < n; b++) {
			size_t m = strcspn(p + b, "\\");

			if ((b == 0 || p[b - 1] == '\\') &&
			    ntfs_dotgit(p + b, m < n - b ? m : n - b))
				return false;
		}
		if (p[n] == '\0')
			return true;
		p += n + 1;
	}
}

static int
config_objectformat(void *ctx, const char *section, const char *sub,
		    const char *key, const char *value)
{
	size_t *len = ctx;

	if (section == NULL)
		return 0;
	if (sub == NULL && strcmp(section, "extensions") == 0 &&
	    strcmp(key, "objectformat") == 0 && value != NULL)
		*len = strcasecmp(value, "sha256") == 0 ? GITGUARD_SHA256_LEN
							: GITGUARD_SHA1_LEN;
	return 0;
}

size_t
gitguard_hash_len(const char *config)
{
	size_t len = GITGUARD_SHA1_LEN;

	gitconfig_each(config, config_objectformat, &len);
	return len;
}

static int
config_hooks_path(void *ctx, const char *section, const char *sub,
		  const char *key, const char *value)
{
	char **path = ctx;

	if (section == NULL)
		return 0;
	if (sub == NULL && strcmp(section, "core") == 0 &&
	    strcmp(key, "hookspath") == 0) {
		free(*path);
		*path = value != NULL ? xstrdup(value) : NULL;
	}
	return 0;
}

char *
gitguard_hooks_path(const char *config)
{
	char *path = NULL;

	gitconfig_each(config, config_hooks_path, &path);
	return path;
}

/*
 * What a repository the command made may say in its configuration: what
 * git init, clone, remote, branch and commit write, and settings that run
 * nothing.  "*" stands for a subsection.  Everything else (core.fsmonitor,
 * core.hooksPath, core.sshCommand, core.pager, filters, diff and merge
 * drivers, aliases, credential helpers, includes, url.*.insteadOf,
 * remote.*.uploadpack and receivepack, ...) could run a command in the
 * user's next git, and is refused; so is core.worktree (the user's next
 * checkout would write where it says) and an address that is not a
 * network one (config_url).
 */
static const char *const config_safe[] = {
	"core.repositoryformatversion",
	"core.filemode",
	"core.bare",
	"core.logallrefupdates",
	"core.symlinks",
	"core.ignorecase",
	"core.precomposeunicode",
	"core.autocrlf",
	"core.eol",
	"core.safecrlf",
	"core.quotepath",
	"core.compression",
	"core.sparsecheckout",
	"extensions.objectformat",
	"extensions.worktreeconfig",
	"remote.*.fetch",
	"remote.*.push",
	"remote.*.tagopt",
	"remote.*.prune",
	"remote.*.mirror",
	"branch.*.remote",
	"branch.*.merge",
	"branch.*.rebase",
	"branch.*.pushremote",
	"user.name",
	"user.email",
	"init.defaultbranch",
	"pull.rebase",
	"pull.ff",
	"push.default",
	"push.autosetupremote",
	"fetch.prune",
	"rebase.autosquash",
	"rebase.autostash",
	"status.showuntrackedfiles",
	"submodule.*.active",
	"submodule.*.path",
	"gc.auto",
	"commit.gpgsign",
};

/* The addresses a repository names: its remotes' and its submodules'. */
static const char *const config_url[] = {
	"remote.*.url",
	"remote.*.pushurl",
	"submodule.*.url",
};

/* A character of a URL's scheme, as git's is_urlschemechar(). */
static bool
url_scheme_char(bool first, char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first &&
		((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
}

/* Whether host (its length n; a user@ before it dropped) names one. */
static bool
url_host(const char *host, size_t n)
{
	for (size_t i = n; i > 0; i--)
		if (host[i - 1] == '@') {
			host += i;
			n -= i;
			break;
		}
	/* git refuses a host that ssh would take as an option. */
	return n > 0 && host[0] != '-';
}

/*
 * Whether url is an address over the network, as git's transport.c and
 * connect.c tell them: http://, https://, ssh://, git://, git+ssh:// or
 * ssh+git:// with a host, or the scp-like [user@]host:path (a ':' before
 * any '/').  Everything else is refused in a repository the command made:
 * a path or file:// (git runs that repository's hooks and reads its
 * configuration: a push to a bare repository the command left runs its
 * post-receive), a remote helper (ext::, fd::, name:: or an unknown
 * name://, which runs git-remote-name), no value.
 */
static bool
url_network(const char *url)
{
	static const char *const schemes[] = {
		"http", "https", "ssh", "git", "git+ssh", "ssh+git",
	};
	const char *p = url, *colon, *slash;

	if (url == NULL)
		return false;
	while (url_scheme_char(p == url, *p))
		p++;
	if (strncmp(p, "::", 2) == 0)
		return false;
	if (p != url && strncmp(p, "://", 3) == 0) {
		const char *host = p + 3;

		for (size_t i = 0; i < ARRAY_SIZE(schemes); i++)
			if (strlen(schemes[i]) == (size_t)(p - url) &&
			    strncmp(url, schemes[i], (size_t)(p - url)) == 0)
				return url_host(host, strcspn(host, "/"));
		return false;
	}
	/* scp-like: [host]:path, or host:path with no '/' before the ':'. */
	if (url[0] == '[' && (p = strchr(url, ']')) != NULL && p[1] == ':')
		return url_host(url + 1, (size_t)(p - url - 1));
	colon = strchr(url, ':');
	slash = strchr(url, '/');
	if (colon == NULL || (slash != NULL && slash < colon))
		return false;
	return url_host(url, (size_t)(colon - url));
}

/* One address of a legacy remote file: NULL when a network one. */
static char *
remote_url_unsafe(const char *url, size_t n)
{
	_cleanup_free_ char *u = xstrndup(url, n);

	if (url_network(u))
		return NULL;
	/* (Shown whole but for a very long one, which says it is cut.) */
	if (n > 240)
		u[240] = '\0';
	return xasprintf("URL '%s%s', not a network address", u,
			 n > 240 ? "..." : "");
}

char *
gitguard_remote_file_unsafe(const char *text, size_t len, bool branches)
{
	if (memchr(text, '\0', len) != NULL)
		return xstrdup("a NUL, which git reads past");
	for (size_t at = 0; at < len;) {
		const char *line = text + at;
		const char *nl = memchr(line, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - line) : len - at;
		size_t b = 0;

		at += n + 1;
		/* Both: trailing blanks (and a CR) dropped; branches/: the
		 * leading ones too, and the URL ends at a '#'. */
		while (n > 0 && isspace((unsigned char)line[n - 1]))
			n--;
		if (branches) {
			const char *hash;

			while (b < n && isspace((unsigned char)line[b]))
				b++;
			if ((hash = memchr(line + b, '#', n - b)) != NULL)
				n = (size_t)(hash - line);
			/* An empty first line: git reads no remote. */
			return b == n && hash == NULL
				       ? NULL
				       : remote_url_unsafe(line + b, n - b);
		}
		if (n < 4 || memcmp(line, "URL:", 4) != 0)
			continue;
		for (b = 4; b < n && isspace((unsigned char)line[b]); b++)
			;
		{
			char *found = remote_url_unsafe(line + b, n - b);

			if (found != NULL)
				return found;
		}
	}
	return NULL;
}

/* What config_unsafe is after: the first unsafe variable; whether the
 * repository is one the command made (else the start had it); where the
 * caller judges core.worktree, its last value. */
struct unsafe {
	char *found;
	bool made;
	char **worktree;
};

static int
config_unsafe(void *ctx, const char *section, const char *sub, const char *key,
	      const char *value)
{
	struct unsafe *u = ctx;
	_cleanup_free_ char *name = NULL;

	if (section == NULL) {
		/* What git refuses, or llwrap cannot read as git does:
		 * refused. */
		u->found = xasprintf("what llwrap cannot read as git does, "
				     "on %s",
				     value);
		return 1;
	}
	name = xasprintf("%s.%s%s", section, sub != NULL ? "*." : "", key);
	for (size_t i = 0; i < ARRAY_SIZE(config_safe); i++)
		if (strcmp(name, config_safe[i]) == 0)
			return 0;
	if (strncmp(section, "color", 5) == 0 || strcmp(section, "advice") == 0)
		return 0;
	/* Where git reads and sends: in a repository the start had, kept
	 * as it was (gitguard_config_rerouted judges a change). */
	if (!u->made && strcmp(name, "core.worktree") == 0)
		return 0;
	if (u->worktree != NULL && strcmp(name, "core.worktree") == 0) {
		free(*u->worktree);
		*u->worktree = xstrdup(value != NULL ? value : "");
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(config_url); i++) {
		_cleanup_free_ char *shown = NULL;

		if (strcmp(name, config_url[i]) != 0)
			continue;
		if (!u->made || url_network(value))
			return 0;
		shown = xstrndup(value != NULL ? value : "", 80);
		u->found = xasprintf("%s.%s.%s to '%s', not a network "
				     "address",
				     section, sub, key, shown);
		return 1;
	}
	u->found = sub != NULL ? xasprintf("%s.%s.%s", section, sub, key)
			       : xasprintf("%s.%s", section, key);
	return 1;
}

static char *config_branch_unrouted(const char *config);

/* gitguard_config_unsafe, for a repository the command made or not. */
static char *
config_unsafe_in(const char *config, bool made, char **worktree)
{
	struct unsafe u = { .made = made, .worktree = worktree };

	gitconfig_each(config, config_unsafe, &u);
	if (u.found == NULL && made)
		u.found = config_branch_unrouted(config);
	return u.found;
}

char *
gitguard_config_unsafe(const char *config)
{
	return config_unsafe_in(config, true, NULL);
}

char *
gitguard_config_unsafe_worktree(const char *config, char **worktree)
{
	char *found;

	*worktree = NULL;
	found = config_unsafe_in(config, true, worktree);
	if (found != NULL) {
		free(*worktree);
		*worktree = NULL;
	}
	return found;
}

/* The variables that say where the user's next git reads or sends (the
 * work tree, a remote's addresses, the remote a branch pushes to), as
 * "name\nvalue" in order; name with its subsection as written, which may
 * hold '=' but never a newline. */
static int
config_route(void *ctx, const char *section, const char *sub, const char *key,
	     const char *value)
{
	char ***v = ctx;

	if (section == NULL) {
		/* Unreadable: last, told by its '?' (no name starts
		 * so). */
		strv_push_take(v, xasprintf("?%s", value));
		return 1;
	}
	if (!(sub == NULL && strcmp(section, "core") == 0 &&
	      strcmp(key, "worktree") == 0) &&
	    !(sub != NULL && strcmp(section, "remote") == 0 &&
	      (strcmp(key, "url") == 0 || strcmp(key, "pushurl") == 0)) &&
	    !(sub != NULL && strcmp(section, "branch") == 0 &&
	      (strcmp(key, "remote") == 0 || strcmp(key, "pushremote") == 0)))
		return 0;
	strv_push_take(v, sub != NULL ? xasprintf("%s.%s.%s\n%s", section, sub,
						  key, value ? value : "")
				      : xasprintf("%s.%s\n%s", section, key,
						  value ? value : ""));
	return 0;
}

/* The values of name in v ("name\nvalue" entries), joined in order, each
 * after its length (a value may hold any separator). */
static char *
route_values(char **v, const char *name)
{
	size_t len = strlen(name);
	char **mine = NULL;
	char *joined;

	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		if (strncmp(v[i], name, len) == 0 && v[i][len] == '\n')
			strv_push_take(&mine, xasprintf("%zu:%s",
							strlen(v[i] + len + 1),
							v[i] + len + 1));
	joined = strv_join(mine, "");
	strv_free(mine);
	return joined;
}

/* Whether v has a remote named name (a remote.NAME.url entry). */
static bool
route_has_remote(char **v, const char *name)
{
	_cleanup_free_ char *url = xasprintf("remote.%s.url\n", name);

	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		if (strncmp(v[i], url, strlen(url)) == 0)
			return true;
	return false;
}

/*
 * In a repository the command made, where a branch pushes and pulls: git
 * takes a branch's remote or pushremote that names no remote with an
 * address (remote_get_1: a URL alias of the name), a path or a bare name
 * included, as an address itself, and the user's plain `git push` runs
 * the hooks of the repository it names (one the command left in its
 * cache, or behind a link in the project).  Each must be "." (this
 * repository), a remote this configuration gives a url (judged by
 * config_url), or a network address; the first that is not, or NULL.
 */
static char *
config_branch_unrouted(const char *config)
{
	char **v = NULL;
	char *found = NULL;

	gitconfig_each(config, config_route, &v);
	for (size_t i = 0; found == NULL && v != NULL && v[i] != NULL; i++) {
		size_t n = strcspn(v[i], "\n");
		const char *to = v[i] + n + 1;

		if (strncmp(v[i], "branch.", 7) != 0 || v[i][n] == '\0')
			continue;
		if (strcmp(to, ".") == 0 || url_network(to) ||
		    (strchr(to, '\n') == NULL && route_has_remote(v, to)))
			continue;
		/* (Shown whole but for a very long one, which says it is
		 * cut: a home's path alone can pass 80 bytes.) */
		found = xasprintf("%.*s to '%.240s%s', neither a remote it "
				  "names nor a network address",
				  (int)n, v[i], to,
				  strlen(to) > 240 ? "..." : "");
	}
	strv_free(v);
	return found;
}

/* Whether one route variable, "name\nvalue" entry e of the start (b) or the
 * end (a), sends the user's next git elsewhere:
 * - a branch (as the end has it) pushes to "." (this repository) or to a
 *   remote the start had;
 * - the work tree keeps its values, whether or not the start named one;
 * - each address the start had keeps its values, and a remote the start had
 *   gains none; a new remote's addresses are harmless until a branch pushes
 *   to it. */
static bool
route_moved(char **b, char **a, const char *e)
{
	_cleanup_free_ char *name = xstrndup(e, strcspn(e, "\n"));
	_cleanup_free_ char *was = NULL, *now = NULL, *remote = NULL;

	if (strncmp(name, "branch.", 7) == 0) {
		const char *to = e + strlen(name) + 1;

		return strv_contains(a, e) && strcmp(to, ".") != 0 &&
		       !route_has_remote(b, to);
	}
	was = route_values(b, name);
	now = route_values(a, name);
	if (strncmp(name, "remote.", 7) == 0 && *was == '\0') {
		remote = xstrndup(name + 7, strrchr(name, '.') - name - 7);
		if (!route_has_remote(b, remote))
			return false;
	}
	return strcmp(was, now) != 0;
}

char *
gitguard_config_rerouted(const char *before, const char *after)
{
	char **b = NULL, **a = NULL;
	char *found = NULL;

	gitconfig_each(before, config_route, &b);
	gitconfig_each(after, config_route, &a);
	/* What llwrap cannot read as git does may send git anywhere. */
	if (a != NULL && strv_length(a) > 0 && a[strv_length(a) - 1][0] == '?')
		found = xasprintf("what llwrap cannot read as git does, on %s",
				  a[strv_length(a) - 1] + 1);
	for (char **v = b; found == NULL && v != NULL && *v != NULL; v++)
		if (route_moved(b, a, *v))
			found = xstrndup(*v, strcspn(*v, "\n"));
	for (char **v = a; found == NULL && v != NULL && *v != NULL; v++)
		if (route_moved(b, a, *v))
			found = xstrndup(*v, strcspn(*v, "\n"));
	strv_free(b);
	strv_free(a);
	return found;
}

char *
gitguard_config_unsafe_change(const char *before, const char *after)
{
	char *unsafe = config_unsafe_in(after, before == NULL, NULL);

	if (unsafe == NULL && before != NULL)
		unsafe = gitguard_config_rerouted(before, after);
	return unsafe;
}
