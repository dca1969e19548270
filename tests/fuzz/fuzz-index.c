/*
 * libFuzzer harness: the git index the watch on files run later reads
 * after the sandboxed command wrote it (src/gitguard.c's index walk,
 * watchlater.h), untrusted bytes through and through.
 *
 * Each input is read as a SHA-1 and as a SHA-256 index, with its split
 * index link, and each gitlink it yields goes through
 * gitguard_verify_path: a path it accepts is relative, with no empty,
 * "." , ".." or ".git" component, so nothing the watch opens beneath the
 * project can be the project itself or reach above it.
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer,address,
 * undefined; built without libFuzzer (tests/fuzz/replay.c supplies
 * main), make check replays tests/fuzz/regressions-index/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gitguard.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What gitguard_verify_path promises, checked independently. */
static void
check_path(const char *p)
{
	size_t n = strlen(p);

	if (n == 0 || p[0] == '/' || p[n - 1] == '/' || strstr(p, "//"))
		abort();
	for (const char *c = p;;) {
		size_t k = strcspn(c, "/");

		if ((k == 1 && c[0] == '.') ||
		    (k == 2 && c[0] == '.' && c[1] == '.') ||
		    (k == 4 && strncasecmp(c, ".git", 4) == 0))
			abort();
		if (c[k] == '\0')
			break;
		c += k + 1;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t lens[] = { GITGUARD_SHA1_LEN, GITGUARD_SHA256_LEN };
	uint8_t *buf = malloc(size ? size : 1);

	/* An exact-size copy, so a read past it is a sanitizer report. */
	memcpy(buf, data, size);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char **links = NULL, *shared = NULL;

		if (gitguard_index_gitlinks(buf, size, lens[i], &links,
					    &shared) < 0) {
			if (links != NULL || shared != NULL)
				abort();
			continue;
		}
		if (shared != NULL &&
		    (strncmp(shared, "sharedindex.", 12) != 0 ||
		     strlen(shared) != 12 + 2 * lens[i] ||
		     strspn(shared + 12, "0123456789abcdef") != 2 * lens[i]))
			abort();
		for (char **l = links; *l != NULL; l++)
			if (gitguard_verify_path(*l))
				check_path(*l);
		strv_free(links);
		free(shared);
		/* A split index's link (R10): its bitmaps' bits rise, each
		 * below the shared index's count, or nothing is kept. */
		for (size_t m = 0; m < 2; m++) {
			uint32_t n = m == 0 ? 64 : 1u << 20;
			struct gitguard_split sp;
			const uint32_t *v[2];
			size_t c[2];

			if (gitguard_index_split(buf, size, lens[i], n, &sp) <
			    0) {
				if (sp.deleted != NULL || sp.replaced != NULL)
					abort();
				continue;
			}
			v[0] = sp.deleted, c[0] = sp.n_deleted;
			v[1] = sp.replaced, c[1] = sp.n_replaced;
			for (int k = 0; k < 2; k++)
				for (size_t j = 0; j < c[k]; j++)
					if (v[k][j] >= n ||
					    (j > 0 && v[k][j] <= v[k][j - 1]))
						abort();
			gitguard_split_free(&sp);
		}
	}
	free(buf);
	return 0;
}
