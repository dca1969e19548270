/*
 * Replay fuzz inputs without libFuzzer: each file named on the command
 * line goes through LLVMFuzzerTestOneInput once, and one TAP line says
 * it came back.  A crash, a sanitizer report (under --enable-sanitizers)
 * or an abort fails the test.  make check runs it over the seed corpus
 * and tests/fuzz/regressions/ (tests/fuzz/replay.sh).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fdutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		char *text = NULL;
		size_t len = 0;

		if (fd < 0 || fd_read_all(fd, 1 << 20, &text, &len) < 0) {
			printf("not ok %d - cannot read %s\n", i, argv[i]);
			failed++;
			continue;
		}
		close(fd);
		LLVMFuzzerTestOneInput((const uint8_t *)text, len);
		free(text);
		printf("ok %d - %s\n", i, argv[i]);
		fflush(stdout);
	}
	printf("1..%d\n", argc - 1);
	return failed ? 1 : 0;
}
