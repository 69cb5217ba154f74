/* SPDX-License-Identifier: MIT */
/*
 * bench_workingset.h - the workloads of the workingset benches (thread 000):
 * thrashing-protection (the experiment behind patch 1), w2-file-churn and
 * w3-reparent, and how their figures are judged, so that the bench-smoke tests
 * can run the deterministic workload and plant figures for every verdict.
 */
#ifndef MSIM_BENCH_WORKINGSET_H
#define MSIM_BENCH_WORKINGSET_H

#include <stdbool.h>

#include <memcgsim/memcgsim.h>

#include "bench_verdict.h"

/* ---- thrashing-protection ---- */

/*
 * A memcg c whose memory.high is memcg_pages, reading a hot set of hot_pages
 * pages of one file cyclically (in a fault, mmap-style), each page at index
 * i * stride (a sparse file: stride pages per xa_node slot span), twice per
 * visit (the second read is a hit), for rounds passes. Every time c's page
 * cache exceeds memory.high, reclaim brings it back (msim_workingset_reclaim:
 * the LRU, then shrink_slab with the shadow shrinker).
 */
struct msim_tp_opts {
	enum msim_lru_kind lru;
	enum msim_shadow_budget budget;
	struct msim_variants base;       /* the rest of the variants */
	unsigned long memcg_pages, hot_pages, stride, rounds;
};

/* Deterministic counts of one run (the last round alone where it says so). */
struct msim_tp_result {
	unsigned long reads, storage_reads;      /* every read / misses (from backing storage) */
	unsigned long last_round_storage_reads;
	unsigned long refaults, activations;     /* WORKINGSET_REFAULT/ACTIVATE_FILE of c */
	unsigned long shadow_nodes_end;          /* c's shadow_nodes count at the end */
	unsigned long shadow_nodes_max;          /* the most c had after any reclaim */
	unsigned long budget_nodes;              /* count_shadow_nodes' max_nodes for c at the end */
	unsigned long budget_pages;              /* the pages it was computed from */
	unsigned long nodes_reclaimed;           /* WORKINGSET_NODERECLAIM */
	unsigned long shadows_reclaimed;         /* shadow entries freed with their nodes */
	unsigned long reclaims;                  /* reclaim calls */
	double seconds;                          /* the model's own time (not asserted) */
};

/* The defaults (--quick halves the rounds only). */
void msim_tp_opts_init(struct msim_tp_opts *o, enum msim_lru_kind lru,
		       enum msim_shadow_budget budget);
/* Run one configuration; 0 or a negative errno (msg gets the reason). */
int msim_tp_run(const struct msim_tp_opts *o, struct msim_tp_result *r, char *msg, size_t len);

/* The four designs: [classic, mglru] x [lru-size, page-state-local]. */
#define MSIM_TP_NDESIGNS 4
#define MSIM_TP_DESIGN(lru_is_mglru, budget_is_psl) ((lru_is_mglru) * 2 + (budget_is_psl))

enum msim_tp_fig {
	MSIM_TP_F_NONE,
	MSIM_TP_F_MG_LRU_BUDGET,      /* budget_nodes, MGLRU, lru-size */
	MSIM_TP_F_MG_PSL_BUDGET,      /* budget_nodes, MGLRU, page-state-local */
	MSIM_TP_F_MG_LRU_KEPT,        /* shadow_nodes_end */
	MSIM_TP_F_MG_PSL_KEPT,
	MSIM_TP_F_MG_LRU_ACT,         /* activations */
	MSIM_TP_F_MG_PSL_ACT,
	MSIM_TP_F_MG_LRU_REFAULTS,
	MSIM_TP_F_MG_PSL_REFAULTS,
	MSIM_TP_F_CL_LRU_KEPT,
	MSIM_TP_F_CL_PSL_KEPT,
	MSIM_TP_F_CL_LRU_ACT,
	MSIM_TP_F_CL_PSL_ACT,
	MSIM_TP_F_CL_LRU_READS,       /* storage_reads */
	MSIM_TP_F_CL_PSL_READS,
	MSIM_TP_F_CL_LRU_BUDGET,
	MSIM_TP_F_CL_PSL_BUDGET,
	MSIM_TP_NFIGS,
};

struct msim_tp_verdicts {
	double fig[MSIM_TP_NFIGS];
	struct msim_verdict_table table;
};

/* r[MSIM_TP_DESIGN(mglru, psl)]: the four runs. */
void msim_tp_verdicts(const struct msim_tp_result r[MSIM_TP_NDESIGNS], struct msim_tp_verdicts *v);

#endif /* MSIM_BENCH_WORKINGSET_H */
