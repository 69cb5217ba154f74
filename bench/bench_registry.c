/* SPDX-License-Identifier: MIT */
/*
 * bench_registry.c - the bench engines by name (bench/bench_*.c register with
 * BENCH_REGISTER), used by the bench programs, the memcgsim command and the tests.
 * The races have their own registry in the library (src/race, <memcgsim/race.h>).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "bench_registry.h"

#define MAX_BENCHES 32

static const struct bench_engine *benches[MAX_BENCHES];
static size_t nr_benches;

void bench_register(const struct bench_engine *b)
{
	if (nr_benches < MAX_BENCHES)
		benches[nr_benches++] = b;
}

const struct bench_engine *bench_find(const char *name)
{
	for (size_t i = 0; name && i < nr_benches; i++)
		if (!strcmp(benches[i]->name, name))
			return benches[i];
	return NULL;
}

static int cmp_bench(const void *a, const void *b)
{
	return strcmp((*(const struct bench_engine *const *)a)->name,
		      (*(const struct bench_engine *const *)b)->name);
}

size_t bench_list(const struct bench_engine **out, size_t max)
{
	qsort(benches, nr_benches, sizeof(benches[0]), cmp_bench);
	for (size_t i = 0; i < nr_benches && i < max; i++)
		out[i] = benches[i];
	return nr_benches;
}

/*
 * Run a bench and report the simulator's own cost beside its findings: wall time
 * and peak RSS, on stderr so that --json output on stdout stays one object.
 */
int bench_run(const struct bench_engine *b, int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	bool help = false;

	for (int i = 1; i < argc; i++)
		help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = b->main(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret == 0 && !help && !getrusage(RUSAGE_SELF, &ru)) {
		fflush(stdout);
		fprintf(stderr, "memcgsim bench %s: simulator cost %.2f s wall, peak RSS %.1f MiB\n",
			b->name, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
			(double)ru.ru_maxrss / 1024.0);
	}
	return ret;
}

int bench_main(const char *name, int argc, char **argv)
{
	const struct bench_engine *b = bench_find(name);

	if (!b) {
		fprintf(stderr, "memcgsim: no bench named %s\n", name);
		return 2;
	}
	return bench_run(b, argc, argv);
}
