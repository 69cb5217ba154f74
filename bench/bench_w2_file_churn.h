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

#define BENCH_FC_NDESIGNS 3 /* base, patches 1-2, patches 1-3 */
#define BENCH_FC_NLRU 2     /* classic LRU, MGLRU */

/*
 * Medians (MB/s of simulated reads) and the noise of base (MAD, percent) per LRU
 * kind; and the I/O the loop does per design (deterministic counts of one run).
 */
struct bench_fc_summary {
	double median[BENCH_FC_NDESIGNS][BENCH_FC_NLRU];
	double noise[BENCH_FC_NLRU];
	double storage_reads[BENCH_FC_NDESIGNS][BENCH_FC_NLRU];
	double refaults[BENCH_FC_NDESIGNS][BENCH_FC_NLRU];
};

enum bench_fc_fig_of_lru {
	BENCH_FC_PCT12, BENCH_FC_PCT13,       /* ours: patches 1-2, 1-3 vs base */
	BENCH_FC_THREAD12, BENCH_FC_THREAD13, /* the thread's */
	BENCH_FC_ABS12, BENCH_FC_ABS13,       /* |ours| */
	BENCH_FC_NOISE,
	BENCH_FC_STOR12, BENCH_FC_STOR13,     /* |storage reads vs base|, percent */
	BENCH_FC_REF12, BENCH_FC_REF13,       /* |refaults vs base|, percent */
	BENCH_FC_PER_LRU,
};
#define BENCH_FC_F(l, k) (1 + (l) * BENCH_FC_PER_LRU + (k))
#define BENCH_FC_NFIGS (1 + BENCH_FC_NLRU * BENCH_FC_PER_LRU)

struct bench_fc_verdicts {
	double fig[BENCH_FC_NFIGS];
	struct bench_verdict_table table;
};

void bench_fc_verdicts(const struct bench_fc_summary *s, struct bench_fc_verdicts *v);

/* One run's deterministic counts (the loop's work, the same for every repetition). */
struct bench_fc_counts {
	unsigned long reads, storage_reads, refaults, activations;
	unsigned long shadow_nodes, nodes_reclaimed, reclaims;
};

/*
 * One run of the loop on a fresh host: memcg c with memory.high high_pages reads
 * a file of 2 x high_pages pages sequentially, rounds times (read(), not a
 * fault). Returns the model's CPU seconds for the loop (NAN on error) and
 * fills *counts.
 */
double bench_fc_run(enum msim_lru_kind lru, const struct msim_variants *v, unsigned long high_pages,
		    unsigned int rounds, struct bench_fc_counts *counts);

/* The design's variants on top of base: 0 base, 1 patches 1-2, 2 patches 1-3. */
void bench_fc_design_variants(unsigned int design, struct msim_variants *v);

#endif /* BENCH_W2_FILE_CHURN_H */
