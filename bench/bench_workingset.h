/* SPDX-License-Identifier: MIT */
/*
 * bench_workingset.h - the workloads of the workingset benches (thread 000):
 * thrashing-protection (the experiment behind patch 1), w2-file-churn and
 * w3-reparent, and how their figures are judged, so that the bench-smoke tests
 * can run the deterministic workload and plant figures for every verdict.
 */
#ifndef BENCH_WORKINGSET_H
#define BENCH_WORKINGSET_H

#include <stdbool.h>

#include <memcgsim/memcgsim.h>

#include "bench_verdict.h"

/* ---- thrashing-protection ---- */

/*
 * Two workloads of a memcg c whose memory.high is memcg_pages; every time c's
 * page cache exceeds memory.high, reclaim brings it back
 * (msim_workingset_reclaim: the LRU, then shrink_slab with the shadow shrinker).
 *
 * protectable (the claim's own case): each round reads every page of a hot set
 * of hot_pages pages (file "hot", index i * hot_stride) hot_reads times through
 * the file descriptor, each hot page followed by cold_per_hot pages of a cold
 * stream (file "cold") read once and never again. The hot set fits in c; hot
 * set plus one round's stream does not, so the hot set stays resident only if
 * the LRU protects it from the stream: classic by activation on the second
 * access, MGLRU by the tiers its refaults make the PID controller protect.
 *
 * cyclic (the case no design can help, mm/workingset.c's "a cyclic access
 * pattern larger than memory"): the hot set is read in a fault, twice per
 * visit, and is larger than c; cold_per_hot and hot_reads are unused.
 */
enum bench_tp_workload {
	BENCH_TP_PROTECTABLE = 0,
	BENCH_TP_CYCLIC = 1,
};

struct bench_tp_opts {
	enum bench_tp_workload workload;
	enum msim_lru_kind lru;
	enum msim_shadow_budget budget;
	enum msim_mglru_protection protection;
	struct msim_variants base;       /* the rest of the variants */
	unsigned long memcg_pages, hot_pages, hot_stride, hot_reads, cold_per_hot, rounds;
};

#define BENCH_TP_MAX_ROUNDS 64

/* One round's figures (the counts are the round's own; residency and nodes at its end). */
struct bench_tp_round {
	unsigned long storage_reads;             /* reads that missed the page cache */
	unsigned long hot_storage_reads;         /* ... of hot pages */
	unsigned long hot_resident;              /* hot pages in the page cache at the end */
	unsigned long shadow_nodes;              /* c's shadow nodes at the end */
	unsigned long budget_nodes;              /* count_shadow_nodes' max_nodes for c then */
	unsigned long refaults;                  /* WORKINGSET_REFAULT_FILE of c */
	unsigned long activations, restores;     /* WORKINGSET_ACTIVATE_FILE, _RESTORE_FILE */
};

/* Deterministic counts of one run. */
struct bench_tp_result {
	unsigned long reads, storage_reads;      /* every read / misses (from backing storage) */
	unsigned long hot_storage_reads;         /* misses of hot pages */
	unsigned long last_round_storage_reads;
	unsigned long refaults, activations, restores; /* WORKINGSET_*_FILE of c */
	unsigned long shadow_nodes_end;          /* c's shadow_nodes count at the end */
	unsigned long shadow_nodes_max;          /* the most c had after any reclaim */
	unsigned long budget_nodes;              /* count_shadow_nodes' max_nodes for c at the end */
	unsigned long budget_pages;              /* the pages it was computed from */
	unsigned long nodes_reclaimed;           /* WORKINGSET_NODERECLAIM */
	unsigned long shadows_reclaimed;         /* shadow entries freed with their nodes */
	unsigned long hot_resident_end;
	int tier_idx_end;                        /* MGLRU get_tier_idx(file) at the end, -1 */
	unsigned long reclaims;                  /* reclaim calls */
	unsigned long nr_rounds;
	struct bench_tp_round round[BENCH_TP_MAX_ROUNDS];
	double seconds;                          /* the model's own time (not asserted) */
};

/* The defaults of a workload (--quick shortens the rounds only). */
void bench_tp_opts_init(struct bench_tp_opts *o, enum bench_tp_workload workload,
			enum msim_lru_kind lru, enum msim_shadow_budget budget,
		       enum msim_mglru_protection protection);
/* Run one configuration; 0 or a negative errno (msg gets the reason). */
int bench_tp_run(const struct bench_tp_opts *o, struct bench_tp_result *r, char *msg, size_t len);

/*
 * The eight designs: [6.14, 6.12 rule] x [classic, MGLRU] x [lru-size,
 * page-state-local]. Classic's two rules are the same code (the rework is
 * MGLRU's): their rows agree by construction.
 */
#define BENCH_TP_NDESIGNS 8
#define BENCH_TP_DESIGN(lru_is_mglru, budget_is_psl, rule_6_12)                          \
	((rule_6_12) * 4 + (lru_is_mglru) * 2 + (budget_is_psl))
/* "MGLRU 6.14, lru-size" and the like. */
const char *bench_tp_design_name(unsigned int design);
void bench_tp_design_opts(struct bench_tp_opts *o, enum bench_tp_workload workload,
			  unsigned int design);

enum bench_tp_fig {
	BENCH_TP_F_NONE,
	BENCH_TP_F_MG_LRU_BUDGET,     /* budget_nodes, MGLRU 6.14, lru-size */
	BENCH_TP_F_MG_PSL_BUDGET,     /* budget_nodes, MGLRU 6.14, page-state-local */
	BENCH_TP_F_MG_LRU_READS,      /* storage_reads, MGLRU 6.14 */
	BENCH_TP_F_MG_PSL_READS,
	BENCH_TP_F_MG_LRU_REFAULTS,
	BENCH_TP_F_MG_PSL_REFAULTS,
	BENCH_TP_F_MG12_LRU_READS,    /* storage_reads, MGLRU 6.12 */
	BENCH_TP_F_MG12_PSL_READS,
	BENCH_TP_F_CL_LRU_READS,      /* storage_reads, classic */
	BENCH_TP_F_CL_PSL_READS,
	BENCH_TP_F_CL_LRU_REFAULTS,
	BENCH_TP_F_CL_PSL_REFAULTS,
	BENCH_TP_F_CY_MIN_READS,      /* cyclic: fewest and most storage reads of any design */
	BENCH_TP_F_CY_MAX_READS,
	BENCH_TP_F_CY_MG_LRU_REFAULTS, /* cyclic: refaults detected, MGLRU 6.14 */
	BENCH_TP_F_CY_MG_PSL_REFAULTS,
	BENCH_TP_NFIGS,
};

struct bench_tp_verdicts {
	double fig[BENCH_TP_NFIGS];
	struct bench_verdict_table table;
};

/*
 * p[BENCH_TP_DESIGN(...)]: the protectable workload's eight runs; c: the cyclic
 * one's (may be NULL: its rows then say "not comparable").
 */
void bench_tp_verdicts(const struct bench_tp_result p[BENCH_TP_NDESIGNS],
		       const struct bench_tp_result c[BENCH_TP_NDESIGNS], struct bench_tp_verdicts *v);

#endif /* BENCH_WORKINGSET_H */
