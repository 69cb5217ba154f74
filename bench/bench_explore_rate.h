/* SPDX-License-Identifier: MIT */
/*
 * bench_explore_rate.h - `memcgsim bench explore-rate`: schedules explored per
 * second by each strategy, on the explorer's path (finished tasks' stacks pooled)
 * and on its old one (a stack mapped per task), with the check that both found
 * the same runs. Exposed so that the smoke test can run it small and plant
 * figures into its verdicts.
 */
#ifndef BENCH_EXPLORE_RATE_H
#define BENCH_EXPLORE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/explore.h>

#include "bench_verdict.h"

#define BENCH_ER_NSTRATS 3           /* random, PCT, DFS */
#define BENCH_ER_MAX_REPS 64
#define BENCH_ER_GOAL 20000.0        /* the goal: schedules a second, random and PCT */
#define BENCH_ER_GOAL_PCT 200000.0   /* the later goal: PCT schedules a second */

struct bench_er_config {
	const char *race;            /* default rstat-early-exit */
	unsigned int runs;           /* runs per measurement (DFS: at most) */
	unsigned int reps;
	uint64_t seed;
	bool progress;
};

/* One strategy on both paths: medians of schedules per CPU second, and what was found. */
struct bench_er_strategy {
	enum msim_strategy strategy;
	double pooled_per_s, fresh_per_s;
	double no_fast_per_s;        /* pooled stacks, every decision listed (no fast step) */
	unsigned int runs;           /* runs of one measurement (DFS may stop early) */
	unsigned int violations;
	int first_violation_run;
	uint64_t first_trace_hash;   /* of the first violation, else of the last run */
	bool paths_agree;            /* every path: same runs, violations, first violation, hash */
};

struct bench_er_result {
	struct bench_er_config cfg;
	struct bench_er_strategy s[BENCH_ER_NSTRATS];
	/*
	 * The host part of a PCT run on the explorer's path (create and setup,
	 * teardown and destroy), microseconds: its median share of those runs'
	 * wall time times a run's CPU time. What a host reset would remove.
	 */
	double host_us;
	double wall_s, cpu_s;
};

/* Run the bench; 0 or a negative errno (message on stderr). */
int bench_er_run(const struct bench_er_config *c, struct bench_er_result *r);

enum bench_er_fig {
	BENCH_ER_F_NONE,
	BENCH_ER_F_RANDOM,           /* pooled schedules/s */
	BENCH_ER_F_PCT,
	BENCH_ER_F_RANDOM_SPEEDUP,   /* pooled / fresh */
	BENCH_ER_F_PCT_SPEEDUP,
	BENCH_ER_F_AGREE,            /* 1 when every strategy's paths agree */
	BENCH_ER_F_HOST_US,          /* host_us */
	BENCH_ER_F_PCT_US,           /* a PCT run, us (pooled) */
	BENCH_ER_F_PCT_NO_HOST,      /* PCT runs/s were the host free: 1e6 / (pct_us - host_us) */
	BENCH_ER_NFIGS,
};

struct bench_er_verdicts {
	double fig[BENCH_ER_NFIGS];
	struct bench_verdict_table table;
};

void bench_er_verdicts(const struct bench_er_result *r, struct bench_er_verdicts *v);

#endif /* BENCH_EXPLORE_RATE_H */
