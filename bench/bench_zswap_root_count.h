/* SPDX-License-Identifier: MIT */
/*
 * bench_zswap_root_count.h - what `memcgsim bench zswap-root-count` (thread 002
 * patch 1) measures and how its figures are judged, so that the bench-smoke tests
 * can plant figures and force each outcome.
 */
#ifndef MSIM_BENCH_ZSWAP_ROOT_COUNT_H
#define MSIM_BENCH_ZSWAP_ROOT_COUNT_H

#include "bench_verdict.h"

/* Per design (memcg-stats, pool): deterministic figures of one run, in pages. */
struct msim_zrc_design {
	double pool_entries;       /* zswap_stored_pages when the pressure starts */
	double pool_pages;         /* zswap_total_pages then */
	double first_count;        /* zswap_shrinker_count(root) at the first round */
	double written_back;       /* zswpwb after the pressure */
	double left_in_pool;       /* zswap_stored_pages after it */
	double rounds;             /* shrink_slab rounds run */
	double run_ms;             /* median wall time of one run (the model's cost) */
};

struct msim_zrc_summary {
	struct msim_zrc_design d[2];   /* [0] memcg-stats (mainline), [1] pool (patch 1) */
};

enum msim_zrc_fig {
	MSIM_ZRC_F_NONE,
	MSIM_ZRC_F_WB_STATS,
	MSIM_ZRC_F_WB_POOL,
	MSIM_ZRC_F_COUNT_STATS,
	MSIM_ZRC_F_COUNT_POOL,
	MSIM_ZRC_F_ENTRIES_STATS,
	MSIM_ZRC_F_ENTRIES_POOL,
	MSIM_ZRC_F_LEFT_POOL,
	MSIM_ZRC_NFIGS,
};

struct msim_zrc_verdicts {
	double fig[MSIM_ZRC_NFIGS];
	struct msim_verdict_table table;
};

/* The thread's figures: zswpwb 0 before patch 1, 1016 pages after. */
#define MSIM_ZRC_THREAD_BEFORE 0
#define MSIM_ZRC_THREAD_AFTER 1016

void msim_zrc_verdicts(const struct msim_zrc_summary *s, struct msim_zrc_verdicts *v);

#endif /* MSIM_BENCH_ZSWAP_ROOT_COUNT_H */
