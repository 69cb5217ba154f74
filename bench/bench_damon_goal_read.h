/* SPDX-License-Identifier: MIT */
/*
 * bench_damon_goal_read.h - what `memcgsim bench damon-goal-read` (thread 002
 * patch 4) measures, the feedback-loop part it shares between its two files, and
 * how its figures are judged, so that the bench-smoke tests can plant figures
 * and force each comparison to each of its outcomes.
 */
#ifndef BENCH_DAMON_GOAL_READ_H
#define BENCH_DAMON_GOAL_READ_H

#include <stdbool.h>

#include <memcgsim/variants.h>

#include "bench_verdict.h"

#define BENCH_DGR_NDESIGNS 2 /* [0] damon-root-read=flush (mainline), [1] =node (patch 4) */

/* The feedback loop's setting (bench_damon_goal_read_loop.c). */
struct bench_dgr_loop_params {
	unsigned int cpus, nmemcgs;
	unsigned long node_pages;       /* node 0's RAM */
	unsigned int seconds;           /* virtual time */
	unsigned int alloc_per_cpu;     /* pages allocated per CPU per virtual second */
	unsigned int start_used_bp;     /* root's LRU pages at the start, bp of the node */
	unsigned int target_free_bp;    /* the goal: node_memcg_free_bp of root */
	unsigned int tol_bp;            /* converged: |free - target| within this */
	struct msim_variants base;
};

/* What one design's loop did (deterministic: pages and windows). */
struct bench_dgr_loop_result {
	double windows;            /* quota windows run */
	double converged;          /* 1 if free stayed within tol from some window on */
	double converged_window;   /* that window (NaN if never) */
	double steady_dev_bp;      /* max |free - target| over the second half */
	double read_err_max;       /* max |goal read - true free bp| at the tunings, bp */
	double final_esz_mib;      /* the effective quota at the end */
	double flushes;            /* gated flushes the goal reads got through */
	double sz_applied_mib;     /* bytes the scheme reclaimed */
	double *free_bp;           /* [windows]: the true free bp at each tuning (malloc'd) */
};

/*
 * Run one design's loop (design 0: flush, 1: node). Returns 0 or a negative
 * errno; out->free_bp is the caller's to free.
 */
int bench_dgr_loop(const struct bench_dgr_loop_params *p, unsigned int design,
		   struct bench_dgr_loop_result *out);

struct bench_dgr_summary {
	double active_read_us[BENCH_DGR_NDESIGNS]; /* reader after 128 memcgs x CPUs updated */
	double idle_read_us[BENCH_DGR_NDESIGNS];  /* reader with nothing updated since */
	double err_max[BENCH_DGR_NDESIGNS];       /* worst |used_pages - truth| at those reads */
	double err_bp_max[BENCH_DGR_NDESIGNS];    /* the same in bp of node RAM */
	double flushes[BENCH_DGR_NDESIGNS];       /* gated flushes that got through */
	double snapshot_err;      /* node_page_state_snapshot against the truth (the check: 0) */
	double drift_bound;       /* stat_threshold x CPUs (vmstat's bound on a node read) */
	struct bench_dgr_loop_result loop[BENCH_DGR_NDESIGNS];
	double tol_bp;
	double course_div_bp;     /* max |free bp under flush - under node| over the windows */
};

enum bench_dgr_fig {
	BENCH_DGR_F_NONE,
	BENCH_DGR_F_FLUSH_ACTIVE_US,
	BENCH_DGR_F_FLUSH_IDLE_US,
	BENCH_DGR_F_NODE_ACTIVE_US,
	BENCH_DGR_F_FLUSH_PER_NODE,
	BENCH_DGR_F_NODE_ACTIVE_NS,
	BENCH_DGR_F_FLUSH_ERR,
	BENCH_DGR_F_NODE_ERR,
	BENCH_DGR_F_NODE_ERR_BP,
	BENCH_DGR_F_DRIFT_BOUND,
	BENCH_DGR_F_SNAPSHOT_ERR,
	BENCH_DGR_F_FLUSH_CONVERGED,
	BENCH_DGR_F_NODE_CONVERGED,
	BENCH_DGR_F_FLUSH_WINDOW,
	BENCH_DGR_F_NODE_WINDOW,
	BENCH_DGR_F_FLUSH_DEV,
	BENCH_DGR_F_NODE_DEV,
	BENCH_DGR_F_TOL,
	BENCH_DGR_F_COURSE_DIV,
	BENCH_DGR_F_FLUSH_LOOP_ERR,
	BENCH_DGR_F_NODE_LOOP_ERR,
	BENCH_DGR_F_FLUSHES,
	BENCH_DGR_NFIGS,
};

struct bench_dgr_verdicts {
	double fig[BENCH_DGR_NFIGS];
	struct bench_verdict_table table;
};

void bench_dgr_verdicts(const struct bench_dgr_summary *s, struct bench_dgr_verdicts *v);

#endif /* BENCH_DAMON_GOAL_READ_H */
