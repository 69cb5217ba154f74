/* SPDX-License-Identifier: MIT */
/*
 * bench_node_read_drift.h - what `memcgsim bench node-read-drift` (thread 002's
 * "node counters are always up to date") measures and how its figures are judged,
 * so that the bench-smoke tests can plant figures and force each outcome.
 */
#ifndef BENCH_NODE_READ_DRIFT_H
#define BENCH_NODE_READ_DRIFT_H

#include "bench_verdict.h"

/* Deterministic figures of one run, in pages. */
struct bench_nrd_summary {
	double node_err_max;       /* max |truth - node_page_state| over the checkpoints */
	double node_bound;         /* stat_threshold x CPUs */
	double rstat_err_max;      /* max |truth - root's flushed rstat value| */
	double rstat_bound;        /* (64 + 63) x CPUs + the volume of one periodic-flush window */
	double snapshot_err_max;   /* max |truth - node_page_state_snapshot| (the check: 0) */
	/* --schedules N: the same workload under N seeded random/PCT schedules */
	double schedules;          /* N (0: no seeded schedule ran) */
	double sched_node_err_max; /* worst node read error over the default and N schedules,
				    * mid-step reads included */
	double sched_rstat_err_max;
	double sched_snapshot_err_max;
	double sched_node_bound;   /* node_bound + the update each CPU may have in flight */
	double sched_rstat_bound;  /* rstat_bound + the same */
};

enum bench_nrd_fig {
	BENCH_NRD_F_NONE,
	BENCH_NRD_F_NODE_ERR,
	BENCH_NRD_F_NODE_BOUND,
	BENCH_NRD_F_RSTAT_ERR,
	BENCH_NRD_F_RSTAT_BOUND,
	BENCH_NRD_F_SNAPSHOT_ERR,
	BENCH_NRD_F_SCHEDULES,
	BENCH_NRD_F_SCHED_NODE_ERR,
	BENCH_NRD_F_SCHED_RSTAT_ERR,
	BENCH_NRD_F_SCHED_SNAPSHOT_ERR,
	BENCH_NRD_F_SCHED_NODE_BOUND,
	BENCH_NRD_F_SCHED_RSTAT_BOUND,
	BENCH_NRD_NFIGS,
};

struct bench_nrd_verdicts {
	double fig[BENCH_NRD_NFIGS];
	struct bench_verdict_table table;
};

void bench_nrd_verdicts(const struct bench_nrd_summary *s, struct bench_nrd_verdicts *v);

#endif /* BENCH_NODE_READ_DRIFT_H */
