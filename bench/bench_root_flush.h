/* SPDX-License-Identifier: MIT */
/*
 * bench_root_flush.h - what `memcgsim bench root-flush` (thread 002) measures and
 * how its figures are judged against the thread's, so that the bench-smoke tests
 * can plant figures and force each comparison to each of its outcomes.
 */
#ifndef MSIM_BENCH_ROOT_FLUSH_H
#define MSIM_BENCH_ROOT_FLUSH_H

#include "bench_verdict.h"

#define MSIM_RF_NHOSTS 2  /* [0] root-lruvec-read=rstat (mainline), [1] =node */

/* Medians over the repetitions, per host. */
struct msim_rf_summary {
	double idle_us[MSIM_RF_NHOSTS];    /* forced root flush, nothing to fold */
	double active_us[MSIM_RF_NHOSTS];  /* forced root flush after 128 memcgs x CPUs updated */
	double lruvec_ns[MSIM_RF_NHOSTS];  /* read of root's lruvec NR_ACTIVE_ANON */
	double memcg_ns[MSIM_RF_NHOSTS];   /* memcg_page_state(root) */
	double node_ns[MSIM_RF_NHOSTS];    /* node_page_state */
};

/* The figures the comparisons read (index 0 unused). */
enum msim_rf_fig {
	MSIM_RF_F_NONE,
	MSIM_RF_F_IDLE_US,
	MSIM_RF_F_ACTIVE_US,
	MSIM_RF_F_ACTIVE_PER_IDLE,
	MSIM_RF_F_NODE_NS,
	MSIM_RF_F_MEMCG_NS,
	MSIM_RF_F_NODE_PER_MEMCG,
	MSIM_RF_F_IDLE_NS,
	MSIM_RF_F_IDLE_PER_NODE,
	MSIM_RF_NFIGS,
};

struct msim_rf_verdicts {
	double fig[MSIM_RF_NFIGS];
	struct msim_verdict_table table;
};

/* The thread's comparisons over the mainline host's figures of s. */
void msim_rf_verdicts(const struct msim_rf_summary *s, struct msim_rf_verdicts *v);

#endif /* MSIM_BENCH_ROOT_FLUSH_H */
