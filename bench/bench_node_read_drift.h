/* SPDX-License-Identifier: MIT */
/*
 * bench_node_read_drift.h - what `memcgsim bench node-read-drift` (thread 002's
 * "node counters are always up to date") measures and how its figures are judged,
 * so that the bench-smoke tests can plant figures and force each outcome.
 */
#ifndef MSIM_BENCH_NODE_READ_DRIFT_H
#define MSIM_BENCH_NODE_READ_DRIFT_H

#include "bench_verdict.h"

/* Deterministic figures of one run, in pages. */
struct msim_nrd_summary {
	double node_err_max;       /* max |truth - node_page_state| over the checkpoints */
	double node_bound;         /* stat_threshold x CPUs */
	double rstat_err_max;      /* max |truth - root's flushed rstat value| */
	double rstat_bound;        /* (64 + 63) x CPUs + the volume of one periodic-flush window */
	double snapshot_err_max;   /* max |truth - node_page_state_snapshot| (the check: 0) */
};

enum msim_nrd_fig {
	MSIM_NRD_F_NONE,
	MSIM_NRD_F_NODE_ERR,
	MSIM_NRD_F_NODE_BOUND,
	MSIM_NRD_F_RSTAT_ERR,
	MSIM_NRD_F_RSTAT_BOUND,
	MSIM_NRD_F_SNAPSHOT_ERR,
	MSIM_NRD_NFIGS,
};

struct msim_nrd_verdicts {
	double fig[MSIM_NRD_NFIGS];
	struct msim_verdict_table table;
};

void msim_nrd_verdicts(const struct msim_nrd_summary *s, struct msim_nrd_verdicts *v);

#endif /* MSIM_BENCH_NODE_READ_DRIFT_H */
