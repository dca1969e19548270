/*
 * --selftest: see selftest.h.  Every process it starts is waited for,
 * and the host side removes its scratch directory itself when its
 * standard input closes, so an interrupted selftest leaves nothing
 * running once llwrap exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdutil.h"
#include "selftest.h"
#include "strv.h"
#include "xalloc.h"

#define CORPUS_NAME "llwrap-escape"

char *
selftest_find_corpus(char **cause)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	_cleanup_free_ char *beside = NULL;
	_cleanup_free_ char *installed =
		xasprintf("%s/%s", LLW_PKGLIBEXECDIR, CORPUS_NAME);

	if (n > 0) {
		self[n] = '\0';
		beside = xasprintf("%s/%s", dirname(self), CORPUS_NAME);
		if (access(beside, X_OK) == 0)
			return steal_pointer(&beside);
	}
	if (access(installed, X_OK) == 0)
		return steal_pointer(&installed);
	*cause = xasprintf("the escape corpus %s is not installed (looked "
			   "beside llwrap and in %s); reinstall llwrap.",
			   CORPUS_NAME, LLW_PKGLIBEXECDIR);
	return NULL;
}

/* Read lines from fd until "READY" or end of file. */
static int
read_until_ready(int fd, char ***kv)
{
	char buf[8192];
	size_t len = 0;

	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		char *nl;

		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = strchr(buf, '\n')) != NULL) {
			*nl = '\0';
			if (strcmp(buf, "READY") == 0)
				return 0;
			strv_push(kv, buf);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
		}
		if (len == sizeof(buf) - 1)
			return -E2BIG;
	}
}

int
selftest_host_start(const char *corpus, const char *home, const char *project,
		    struct selftest_host **out, char **cause)
{
	_cleanup_free_ char *tmpl =
		xasprintf("%s/.llwrap-selftest.XXXXXX", home);
	int in[2], outp[2], r, e;
	struct selftest_host *h;
	pid_t pid;

	if (mkdtemp(tmpl) == NULL) {
		e = errno;
		*cause = xasprintf("cannot make a scratch directory in %s: %s",
				   home, strerror(e));
		return -e;
	}
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(outp, O_CLOEXEC) < 0) {
		e = errno;
		rmdir(tmpl);
		*cause = xasprintf("cannot make a pipe: %s", strerror(e));
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		e = errno;
		rmdir(tmpl);
		*cause = xasprintf("cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		_cleanup_free_ char *dir = xasprintf("%s/d", tmpl);

		if (dup2(in[0], 0) < 0 || dup2(outp[1], 1) < 0)
			_exit(127);
		execl(corpus, CORPUS_NAME, "host", dir, project, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	h = xcalloc(1, sizeof(*h));
	h->pid = pid;
	h->in = in[1];
	h->dir = steal_pointer(&tmpl);
	r = read_until_ready(outp[0], &h->kv);
	close(outp[0]);
	if (r < 0) {
		*cause = xasprintf("the host side of the escape corpus (%s "
				   "host) did not start: %s",
				   corpus, strerror(-r));
		selftest_host_stop(h);
		return r;
	}
	*out = h;
	return 0;
}

const char *
selftest_host_get(const struct selftest_host *h, const char *key)
{
	size_t n = strlen(key);

	for (char **l = h->kv; l != NULL && *l != NULL; l++)
		if (strncmp(*l, key, n) == 0 && (*l)[n] == '=')
			return *l + n + 1;
	return NULL;
}

void
selftest_host_stop(struct selftest_host *h)
{
	if (h == NULL)
		return;
	close(h->in);
	waitpid(h->pid, NULL, 0);
	/* The host removed its directory "d"; the scratch parent is ours. */
	rmdir(h->dir);
	strv_free(h->kv);
	free(h->dir);
	free(h);
}

int
selftest_run(struct sandbox *sb, const char *corpus,
	     const struct selftest_host *h, char *const *extra,
	     char *const *envp, char ***lines, char **cause)
{
	_cleanup_strv_ char **argv = NULL;
	_cleanup_free_ char *text = NULL;
	int p[2], st, e;
	pid_t pid;

	strv_push(&argv, corpus);
	strv_push(&argv, "run");
	for (char **l = h->kv; l != NULL && *l != NULL; l++)
		strv_push(&argv, *l);
	for (char *const *x = extra; x != NULL && *x != NULL; x++)
		strv_push(&argv, *x);
	if (pipe2(p, O_CLOEXEC) < 0) {
		e = errno;
		*cause = xasprintf("cannot make a pipe: %s", strerror(e));
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		e = errno;
		*cause = xasprintf("cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		char *why = NULL;
		const char *decoy = selftest_host_get(h, "SECRET");
		int status = 125;

		if (dup2(p[1], 1) < 0)
			_exit(125);
		/* A descriptor the sandbox must close (fd.inherited). */
		if (decoy != NULL)
			(void)open(decoy, O_RDONLY);
		if (sandbox_exec(sb, argv, envp, NULL, 0, &status, &why) == 0)
			_exit(status);
		dprintf(1, "ERROR %s\n", why ? why : "cannot run the corpus");
		_exit(status);
	}
	close(p[1]);
	e = fd_read_all(p[0], 1 << 20, &text, NULL);
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0 || e < 0) {
		*cause = xasprintf("cannot read the corpus output: %s",
				   strerror(e < 0 ? -e : errno));
		return -EIO;
	}
	*lines = NULL;
	for (char *s = text; *s != '\0';) {
		size_t n = strcspn(s, "\n");

		strv_push_take(lines, xstrndup(s, n));
		s += n + (s[n] == '\n');
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		_cleanup_free_ char *last =
			*lines ? strv_join(*lines, "; ") : xstrdup("");

		*cause = xasprintf("the escape corpus did not run to its end "
				   "(status %#x): %s",
				   st, last);
		strv_free(*lines);
		*lines = NULL;
		return -EIO;
	}
	return 0;
}
