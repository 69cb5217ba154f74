/* SPDX-License-Identifier: MIT */
/*
 * bench_rstat_propagate.h - how `memcgsim bench rstat-propagate` (thread 004)
 * judges its figures against the thread's, so that the bench-smoke tests can
 * plant figures and force each comparison to each of its outcomes.
 */
#ifndef BENCH_RSTAT_PROPAGATE_H
#define BENCH_RSTAT_PROPAGATE_H

#include <stdint.h>

#include "bench_verdict.h"

#define BENCH_RP_NPROP 2  /* [0] break (mainline), [1] continue (the patch) */
#define BENCH_RP_NDEPTH 2 /* [0] root -> leaf, [1] root -> a -> b -> leaf */

/* What the comparisons read from a run. */
struct bench_rp_summary {
	double median[BENCH_RP_NPROP][BENCH_RP_NDEPTH];   /* part 1: updates per second */
	double noise[BENCH_RP_NDEPTH];                    /* MAD of break, percent */
	uint64_t runs_stuck[BENCH_RP_NPROP][BENCH_RP_NDEPTH]; /* part 2 */
	unsigned int seeds;                               /* part 2 runs per design */
};

enum bench_rp_fig {
	BENCH_RP_F_NONE,
	BENCH_RP_F_PCT_2, BENCH_RP_F_NOISE_2, BENCH_RP_F_STUCK_BREAK_2, BENCH_RP_F_STUCK_CONT_2,
	BENCH_RP_F_PCT_4, BENCH_RP_F_NOISE_4, BENCH_RP_F_STUCK_BREAK_4, BENCH_RP_F_STUCK_CONT_4,
	BENCH_RP_F_SEEDS,
	BENCH_RP_NFIGS,
};

struct bench_rp_verdicts {
	double fig[BENCH_RP_NFIGS];
	struct bench_verdict_table table;
};

void bench_rp_verdicts(const struct bench_rp_summary *s, struct bench_rp_verdicts *v);

#endif /* BENCH_RSTAT_PROPAGATE_H */
