/* SPDX-License-Identifier: MIT */
/*
 * bench_w2_file_churn.h - how `memcgsim bench w2-file-churn` (thread 000,
 * w2-file-churn) judges its MB/s against the thread's table, so that the
 * bench-smoke tests can plant figures and force each comparison to each of its
 * outcomes; and the deterministic counts of one run, which they assert.
 */
#ifndef BENCH_W2_FILE_CHURN_H
#define BENCH_W2_FILE_CHURN_H

#include <memcgsim/memcgsim.h>

#include "bench_verdict.h"

#define MSIM_FC_NDESIGNS 3  /* base, patches 1-2, patches 1-3 */
#define MSIM_FC_NLRU 2      /* classic LRU, MGLRU */

/*
 * Medians (MB/s of simulated reads) and the noise of base (MAD, percent) per LRU
 * kind; and the I/O the loop does per design (deterministic counts of one run).
 */
struct msim_fc_summary {
	double median[MSIM_FC_NDESIGNS][MSIM_FC_NLRU];
	double noise[MSIM_FC_NLRU];
	double storage_reads[MSIM_FC_NDESIGNS][MSIM_FC_NLRU];
	double refaults[MSIM_FC_NDESIGNS][MSIM_FC_NLRU];
};

enum msim_fc_fig_of_lru {
	MSIM_FC_PCT12, MSIM_FC_PCT13,         /* ours: patches 1-2, 1-3 vs base */
	MSIM_FC_THREAD12, MSIM_FC_THREAD13,   /* the thread's */
	MSIM_FC_ABS12, MSIM_FC_ABS13,         /* |ours| */
	MSIM_FC_NOISE,
	MSIM_FC_STOR12, MSIM_FC_STOR13,       /* |storage reads vs base|, percent */
	MSIM_FC_REF12, MSIM_FC_REF13,         /* |refaults vs base|, percent */
	MSIM_FC_PER_LRU,
};
#define MSIM_FC_F(l, k) (1 + (l) * MSIM_FC_PER_LRU + (k))
#define MSIM_FC_NFIGS (1 + MSIM_FC_NLRU * MSIM_FC_PER_LRU)

struct msim_fc_verdicts {
	double fig[MSIM_FC_NFIGS];
	struct msim_verdict_table table;
};

void msim_fc_verdicts(const struct msim_fc_summary *s, struct msim_fc_verdicts *v);

/* One run's deterministic counts (the loop's work, the same for every repetition). */
struct msim_fc_counts {
	unsigned long reads, storage_reads, refaults, activations;
	unsigned long shadow_nodes, nodes_reclaimed, reclaims;
};

/*
 * One run of the loop on a fresh host: memcg c with memory.high high_pages reads
 * a file of 2 x high_pages pages sequentially, rounds times (read(), not a
 * fault). Returns the model's CPU seconds for the loop (NAN on error) and
 * fills *counts.
 */
double msim_fc_run(enum msim_lru_kind lru, const struct msim_variants *v, unsigned long high_pages,
		   unsigned int rounds, struct msim_fc_counts *counts);

/* The design's variants on top of base: 0 base, 1 patches 1-2, 2 patches 1-3. */
void msim_fc_design_variants(unsigned int design, struct msim_variants *v);

#endif /* BENCH_W2_FILE_CHURN_H */
