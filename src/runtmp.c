/*
 * The run's own /tmp without user namespaces: see runtmp.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "runtmp.h"
#include "strv.h"
#include "xalloc.h"

/* Bounds of the removal: deeper or more is named, not removed. */
#define RUNTMP_DEPTH   64
#define RUNTMP_ENTRIES 100000
#define RUNTMP_NAMED   5
#define STR_(x)	       #x
#define STR(x)	       STR_(x)

struct runtmp {
	char *path;
	int basefd; /* the directory it was made in (O_PATH) */
	char *name; /* its name there */
	dev_t dev;
	ino_t ino;
};

struct removal {
	size_t entries;
	size_t failed;
	char **named;
};

static void
runtmp_close(struct runtmp *t)
{
	if (t == NULL)
		return;
	if (t->basefd >= 0)
		close(t->basefd);
	free(t->path);
	free(t->name);
	free(t);
}

void
runtmp_free(struct runtmp *t)
{
	runtmp_close(t);
}

const char *
runtmp_path(const struct runtmp *t)
{
	return t->path;
}

int
runtmp_make(const char *base, struct runtmp **out, char **cause)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	struct runtmp *t = xcalloc(1, sizeof(*t));
	struct stat st;
	int fd = -1, e = EEXIST;

	t->basefd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->basefd < 0) {
		e = errno;
		*cause = xasprintf("cannot open %s for the run's temporary "
				   "directory: %s",
				   base, strerror(e));
		runtmp_close(t);
		return -e;
	}
	for (int tries = 0; tries < 100 && e == EEXIST; tries++) {
		unsigned char rnd[8];
		char name[sizeof("llwrap-run.") + sizeof(rnd)];

		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
			e = errno;
			break;
		}
		memcpy(name, "llwrap-run.", 11);
		for (size_t i = 0; i < sizeof(rnd); i++)
			name[11 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		name[11 + sizeof(rnd)] = '\0';
		/* mkdirat never follows a link at the name: EEXIST. */
		if (mkdirat(t->basefd, name, 0700) == 0) {
			t->name = xstrdup(name);
			e = 0;
		} else {
			e = errno;
		}
	}
	if (e == 0) {
		fd = openat(t->basefd, t->name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = fd < 0 ? errno : 0;
	}
	if (e == 0 && fstat(fd, &st) < 0)
		e = errno;
	if (e == 0 && (st.st_uid != geteuid() || (st.st_mode & 07777) != 0700))
		e = EPERM;
	if (fd >= 0)
		close(fd);
	if (e != 0) {
		*cause = xasprintf("cannot make the run's temporary directory "
				   "in %s: %s",
				   base, strerror(e));
		if (t->name != NULL)
			unlinkat(t->basefd, t->name, AT_REMOVEDIR);
		runtmp_close(t);
		return -e;
	}
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->path = strcmp(base, "/") == 0 ? xasprintf("/%s", t->name)
					 : xasprintf("%s/%s", base, t->name);
	*out = t;
	return 0;
}

/* name in path was not removed: why, or strerror(e). */
static void
failed_why(struct removal *rm, const char *path, const char *name,
	   const char *why)
{
	if (rm->failed++ < RUNTMP_NAMED)
		strv_push_take(&rm->named,
			       xasprintf("%s/%s: %s", path, name, why));
}

static void
failed(struct removal *rm, const char *path, const char *name, int e)
{
	failed_why(rm, path, name, strerror(e));
}

/* The directory name in at, opened without following it.  One of this
 * user's the command made unreadable (chmod 0) is given its owner's rwx
 * back through a descriptor, where it is t's directory when t is set. */
static int
open_dir(int at, const char *name, const struct runtmp *t)
{
	char link[sizeof("/proc/self/fd/") + 12];
	struct stat st;
	int fd, p, e;

	fd = openat(at, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC);
	if (fd >= 0 || errno != EACCES)
		return fd;
	p = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", p);
	if (fstat(p, &st) == 0 && st.st_uid == geteuid() &&
	    (t == NULL || (st.st_dev == t->dev && st.st_ino == t->ino)) &&
	    chmod(link, (st.st_mode & 07777) | S_IRWXU) == 0)
		fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		errno = EACCES;
	e = errno;
	close(p);
	errno = e;
	return fd;
}

/* Remove what the directory fd (owned) holds; path names it.  One the
 * command left without its owner's write permission gets it back. */
static void
remove_in(int fd, const char *path, int depth, struct removal *rm)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	struct stat st;

	if (d == NULL) {
		failed(rm, path, ".", errno);
		close(fd);
		return;
	}
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
	    (st.st_mode & S_IRWXU) != S_IRWXU)
		(void)fchmod(fd, (st.st_mode & 07777) | S_IRWXU);
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		int sub;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (++rm->entries > RUNTMP_ENTRIES) {
			failed_why(rm, path, name,
				   "more than " STR(
					   RUNTMP_ENTRIES) " entries (the rest "
							   "left)");
			break;
		}
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) {
			/* A link, a FIFO, a socket, a file: the name goes,
			 * nothing is opened. */
			if (unlinkat(dirfd(d), name, 0) < 0)
				failed(rm, path, name, errno);
			continue;
		}
		sub = open_dir(dirfd(d), name, NULL);
		if (sub < 0 && (errno == ENOTDIR || errno == ELOOP)) {
			if (unlinkat(dirfd(d), name, 0) < 0)
				failed(rm, path, name, errno);
			continue;
		}
		if (sub < 0) {
			failed(rm, path, name, errno);
			continue;
		}
		if (depth >= RUNTMP_DEPTH) {
			close(sub);
			failed_why(rm, path, name,
				   "deeper than " STR(
					   RUNTMP_DEPTH) " levels (left)");
			continue;
		} else {
			_cleanup_free_ char *p = xasprintf("%s/%s", path, name);

			remove_in(sub, p, depth + 1, rm);
		}
		if (unlinkat(dirfd(d), name, AT_REMOVEDIR) < 0 &&
		    errno != ENOTEMPTY)
			failed(rm, path, name, errno);
	}
	closedir(d);
}

char **
runtmp_remove(struct runtmp *t)
{
	struct removal rm = { 0 };
	struct stat st;
	int fd;

	fd = open_dir(t->basefd, t->name, t);
	if (fd < 0) {
		if (errno != ENOENT)
			failed(&rm, t->path, ".", errno);
	} else if (fstat(fd, &st) < 0 || st.st_dev != t->dev ||
		   st.st_ino != t->ino) {
		/* Renamed over by another: not the one made, untouched. */
		close(fd);
		strv_push_take(&rm.named,
			       xasprintf("%s: no longer the directory made "
					 "for the run (left alone)",
					 t->path));
		rm.failed++;
	} else {
		remove_in(fd, t->path, 1, &rm);
		if (unlinkat(t->basefd, t->name, AT_REMOVEDIR) < 0)
			failed(&rm, t->path, ".", errno);
	}
	if (rm.failed > RUNTMP_NAMED)
		strv_push_take(&rm.named, xasprintf("and %zu more",
						    rm.failed - RUNTMP_NAMED));
	runtmp_close(t);
	return rm.named;
}
