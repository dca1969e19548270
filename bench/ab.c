/*
 * bench/ab.c: run commands alternately, N times each, and print for each
 * its median wall time (fork, exec, wait) and the median of its paired
 * difference from the first command.  Alternating, one run of each per
 * round, keeps a busy or noisy machine from favouring one command, which
 * two long sequential runs (hyperfine's) do not.  Not a test.
 *
 *   ab N CMD [ARG...] [::: CMD [ARG...]]...
 *
 * Output: one line per command, "median_us p10_us diff_us p90_us name";
 * with AB_CPU=1, "median_us p10_us diff_us p90_us cpu_us cpu_diff_us
 * name", where cpu is the CPU time (user and system) of the command and
 * every descendant it reaped (wait4's rusage), median and paired
 * difference: on a machine that other work keeps busy, wall time also
 * measures the others, CPU time much less.  AB_CPU=user counts user time
 * only, and prints its mean and mean difference; but on a kernel with
 * tick-based accounting (no VIRT_CPU_ACCOUNTING_GEN, this VM's) that
 * figure is not the time spent in user mode even as a mean: the kernel
 * splits a process's exact run time in the proportion of the ticks that
 * found it in either mode, and gives a process no tick found in the
 * kernel ALL its run time as user time (cputime_adjust), which llwrap's
 * short processes mostly are.  bench/cpu.sh samples user mode instead
 * (issue 29's target is on llwrap's user CPU time).
 * Environment: AB_WARMUP, the rounds run first and not counted (default
 * 20; long workloads want fewer); AB_TIMEOUT, seconds after which a run
 * is killed (SIGALRM) and counts as a failure (default none).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 16

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static unsigned timeout_s;
static bool user_only;

static double
run(char **argv, int devnull, double *cpu)
{
	double t0 = now_us(), t1;
	pid_t pid = fork();
	struct rusage ru;
	int status;

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		dup2(devnull, 1);
		alarm(timeout_s);
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		exit(1);
	}
	t1 = now_us();
	*cpu = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec;
	if (!user_only)
		*cpu += ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "ab: %s failed (status %#x)\n", argv[0],
			status);
		exit(1);
	}
	return t1 - t0;
}

int
main(int argc, char **argv)
{
	char **cmd[MAX_CMDS];
	double *t[MAX_CMDS], *u[MAX_CMDS], *d;
	int n, nc = 0, devnull, warmup = 20;
	bool cpu;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: ab N CMD [ARG...] [::: CMD...]...\n");
		return 2;
	}
	cmd[nc++] = argv + 2;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], ":::") != 0)
			continue;
		if (nc == MAX_CMDS) {
			fprintf(stderr, "ab: at most %d commands\n", MAX_CMDS);
			return 2;
		}
		argv[i] = NULL;
		cmd[nc++] = argv + i + 1;
	}
	if (getenv("AB_WARMUP") != NULL)
		warmup = atoi(getenv("AB_WARMUP"));
	if (getenv("AB_TIMEOUT") != NULL)
		timeout_s = (unsigned)atoi(getenv("AB_TIMEOUT"));
	cpu = getenv("AB_CPU") != NULL &&
	      (strcmp(getenv("AB_CPU"), "1") == 0 ||
	       strcmp(getenv("AB_CPU"), "user") == 0);
	user_only = cpu && strcmp(getenv("AB_CPU"), "user") == 0;
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (int c = 0; c < nc; c++) {
		t[c] = calloc(n, sizeof(double));
		u[c] = calloc(n, sizeof(double));
		if (t[c] == NULL || u[c] == NULL) {
			perror("ab");
			return 1;
		}
	}
	d = calloc(n, sizeof(double));
	if (devnull < 0 || d == NULL) {
		perror("ab");
		return 1;
	}
	/* Round i runs every command once, starting from a different one. */
	for (int i = 0; i < n + warmup; i++)
		for (int j = 0; j < nc; j++) {
			int c = (i + j) % nc;
			double cu, us = run(cmd[c], devnull, &cu);

			if (i >= warmup) {
				t[c][i - warmup] = us;
				u[c][i - warmup] = cu;
			}
		}
	for (int c = 0; c < nc; c++) {
		double diff;

		for (int i = 0; i < n; i++)
			d[i] = t[c][i] - t[0][i];
		qsort(d, n, sizeof(double), cmp_double);
		diff = d[n / 2];
		/* t[0] is still needed unsorted for the later commands. */
		memcpy(d, t[c], n * sizeof(double));
		qsort(d, n, sizeof(double), cmp_double);
		printf("%.0f %.0f %+.0f %.0f", d[n / 2], d[n / 10], diff,
		       d[n - 1 - n / 10]);
		if (cpu && user_only) {
			double m = 0, md = 0;

			for (int i = 0; i < n; i++) {
				m += u[c][i];
				md += u[c][i] - u[0][i];
			}
			printf(" %.0f %+.0f", m / n, md / n);
		} else if (cpu) {
			for (int i = 0; i < n; i++)
				d[i] = u[c][i] - u[0][i];
			qsort(d, n, sizeof(double), cmp_double);
			diff = d[n / 2];
			memcpy(d, u[c], n * sizeof(double));
			qsort(d, n, sizeof(double), cmp_double);
			printf(" %.0f %+.0f", d[n / 2], diff);
		}
		for (char **a = cmd[c]; *a != NULL; a++)
			printf(" %s", *a);
		printf("\n");
	}
	return 0;
}
