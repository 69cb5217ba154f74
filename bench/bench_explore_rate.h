/* SPDX-License-Identifier: MIT */
/*
 * bench_explore_rate.h - `memcgsim bench explore-rate`: schedules explored per
 * second by each strategy, on the explorer's path (finished tasks' stacks pooled)
 * and on its old one (a stack mapped per task), with the check that both found
 * the same runs. Exposed so that the smoke test can run it small and plant
 * figures into its verdicts.
 */
#ifndef MSIM_BENCH_EXPLORE_RATE_H
#define MSIM_BENCH_EXPLORE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/explore.h>

#include "bench_verdict.h"

#define MSIM_ER_NSTRATS 3            /* random, PCT, DFS */
#define MSIM_ER_MAX_REPS 64
#define MSIM_ER_GOAL 20000.0         /* the goal: schedules a second, random and PCT */

struct msim_er_config {
	const char *race;            /* default rstat-early-exit */
	unsigned int runs;           /* runs per measurement (DFS: at most) */
	unsigned int reps;
	uint64_t seed;
	bool progress;
};

/* One strategy on both paths: medians of schedules per CPU second, and what was found. */
struct msim_er_strategy {
	enum msim_strategy strategy;
	double pooled_per_s, fresh_per_s;
	double no_fast_per_s;        /* pooled stacks, every decision listed (no fast step) */
	unsigned int runs;           /* runs of one measurement (DFS may stop early) */
	unsigned int violations;
	int first_violation_run;
	uint64_t first_trace_hash;   /* of the first violation, else of the last run */
	bool paths_agree;            /* every path: same runs, violations, first violation, hash */
};

struct msim_er_result {
	struct msim_er_config cfg;
	struct msim_er_strategy s[MSIM_ER_NSTRATS];
	double wall_s, cpu_s;
};

/* Run the bench; 0 or a negative errno (message on stderr). */
int msim_er_run(const struct msim_er_config *c, struct msim_er_result *r);

enum msim_er_fig {
	MSIM_ER_F_NONE,
	MSIM_ER_F_RANDOM,            /* pooled schedules/s */
	MSIM_ER_F_PCT,
	MSIM_ER_F_RANDOM_SPEEDUP,    /* pooled / fresh */
	MSIM_ER_F_PCT_SPEEDUP,
	MSIM_ER_F_AGREE,             /* 1 when every strategy's paths agree */
	MSIM_ER_NFIGS,
};

struct msim_er_verdicts {
	double fig[MSIM_ER_NFIGS];
	struct msim_verdict_table table;
};

void msim_er_verdicts(const struct msim_er_result *r, struct msim_er_verdicts *v);

#endif /* MSIM_BENCH_EXPLORE_RATE_H */
