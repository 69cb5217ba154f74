/* SPDX-License-Identifier: MIT */
/*
 * bench_zswap_root_count.h - what `memcgsim bench zswap-root-count` (thread 002
 * patch 1) measures and how its figures are judged, so that the bench-smoke tests
 * can plant figures and force each outcome.
 */
#ifndef BENCH_ZSWAP_ROOT_COUNT_H
#define BENCH_ZSWAP_ROOT_COUNT_H

#include "bench_verdict.h"

/* Per design (memcg-stats, pool): deterministic figures of one run, in pages. */
struct bench_zrc_design {
	double pool_entries;       /* zswap_stored_pages when the pressure starts */
	double pool_pages;         /* zswap_total_pages then */
	double first_count;        /* zswap_shrinker_count(root) at the first round */
	double written_back;       /* zswpwb after the pressure */
	double left_in_pool;       /* zswap_stored_pages after it */
	double rounds;             /* shrink_slab rounds run */
	double run_ms;             /* median wall time of one run (the model's cost) */
};

/*
 * Designs: [0] memcg-stats (mainline), [1] pool (patch 1), each with the workload
 * in root alone; [2], [3] the same designs with root's entries beside a child's
 * (the mixed workload).
 */
#define BENCH_ZRC_NDESIGNS 4
#define BENCH_ZRC_MIXED 2          /* first design of the mixed workload */

/* The mixed workload's ratios, read apart from the count (pages). */
struct bench_zrc_mixed {
	double root_entries;       /* root's own list: its entries (list_lru_count_one) */
	double child_backing;      /* the child's MEMCG_ZSWAP_B >> PAGE_SHIFT */
	double child_stored;       /* the child's MEMCG_ZSWAPPED */
	double pool_backing;       /* zswap_total_pages() */
	double pool_stored;        /* zswap_stored_pages */
};

struct bench_zrc_summary {
	struct bench_zrc_design d[BENCH_ZRC_NDESIGNS];
	struct bench_zrc_mixed mixed[2];   /* per design of the mixed workload */
};

enum bench_zrc_fig {
	BENCH_ZRC_F_NONE,
	BENCH_ZRC_F_WB_STATS,
	BENCH_ZRC_F_WB_POOL,
	BENCH_ZRC_F_COUNT_STATS,
	BENCH_ZRC_F_COUNT_POOL,
	BENCH_ZRC_F_ENTRIES_STATS,
	BENCH_ZRC_F_ENTRIES_POOL,
	BENCH_ZRC_F_LEFT_POOL,
	BENCH_ZRC_F_MIX_ROOT_ENTRIES,        /* under memcg-stats+children */
	BENCH_ZRC_F_MIX_ROOT_ENTRIES_POOL,   /* under pool+children */
	BENCH_ZRC_F_MIX_CHILD_STORED,
	BENCH_ZRC_F_MIX_COUNT_STATS,
	BENCH_ZRC_F_MIX_WANT_STATS,      /* root's entries x the child's ratio */
	BENCH_ZRC_F_MIX_COUNT_POOL,
	BENCH_ZRC_F_MIX_WANT_POOL,       /* root's entries x the pool's ratio */
	BENCH_ZRC_F_MIX_WB_STATS,
	BENCH_ZRC_NFIGS,
};

struct bench_zrc_verdicts {
	double fig[BENCH_ZRC_NFIGS];
	struct bench_verdict_table table;
};

/* The thread's figures: zswpwb 0 before patch 1, 1016 pages after. */
#define BENCH_ZRC_THREAD_BEFORE 0
#define BENCH_ZRC_THREAD_AFTER 1016

void bench_zrc_verdicts(const struct bench_zrc_summary *s, struct bench_zrc_verdicts *v);

#endif /* BENCH_ZSWAP_ROOT_COUNT_H */
