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

#define MSIM_RP_NPROP 2   /* [0] break (mainline), [1] continue (the patch) */
#define MSIM_RP_NDEPTH 2  /* [0] root -> leaf, [1] root -> a -> b -> leaf */

/* What the comparisons read from a run. */
struct msim_rp_summary {
	double median[MSIM_RP_NPROP][MSIM_RP_NDEPTH];     /* part 1: updates per second */
	double noise[MSIM_RP_NDEPTH];                     /* MAD of break, percent */
	uint64_t runs_stuck[MSIM_RP_NPROP][MSIM_RP_NDEPTH]; /* part 2 */
	unsigned int seeds;                               /* part 2 runs per design */
};

enum msim_rp_fig {
	MSIM_RP_F_NONE,
	MSIM_RP_F_PCT_2, MSIM_RP_F_NOISE_2, MSIM_RP_F_STUCK_BREAK_2, MSIM_RP_F_STUCK_CONT_2,
	MSIM_RP_F_PCT_4, MSIM_RP_F_NOISE_4, MSIM_RP_F_STUCK_BREAK_4, MSIM_RP_F_STUCK_CONT_4,
	MSIM_RP_F_SEEDS,
	MSIM_RP_NFIGS,
};

struct msim_rp_verdicts {
	double fig[MSIM_RP_NFIGS];
	struct msim_verdict_table table;
};

void msim_rp_verdicts(const struct msim_rp_summary *s, struct msim_rp_verdicts *v);

#endif /* BENCH_RSTAT_PROPAGATE_H */
