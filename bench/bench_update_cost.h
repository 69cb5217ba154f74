/* SPDX-License-Identifier: MIT */
/*
 * bench_update_cost.h - `memcgsim bench update-cost` (goal: a depth-2 leaf
 * update under 15 ns concurrent, 25 ns deterministic): what one memcg stat
 * update costs the model, in concurrent and in deterministic mode, beside a
 * plain loop of the same counter writes; split from the printer so that the
 * smoke test can plant figures and force each verdict.
 */
#ifndef BENCH_UPDATE_COST_H
#define BENCH_UPDATE_COST_H

#include "bench_verdict.h"

/* Medians, nanoseconds per update of a depth-2 leaf (root -> leaf). */
struct bench_uc_summary {
	double concurrent;   /* msim_mod_memcg_state, concurrent mode, the driver thread */
	double det;          /* the same inside a deterministic-mode task, no other task */
	double raw;          /* a plain loop of the same counter writes */
	unsigned long steps_per_update;  /* scheduler steps one deterministic update takes */
	/* The same task with a stack switch at every step (as before the decision in the task). */
	double det_switch;
	/* Stack switches into the task per update: the decision in the task, every step's. */
	double det_resumes, det_switch_resumes;
	/* The decision in the task without the fast step (every decision listed). */
	double det_decide, det_decide_resumes;
	double det_fast_steps;  /* steps per update that took the fast step */
};

enum bench_uc_fig {
	BENCH_UC_F_NONE,
	BENCH_UC_F_CONCURRENT,
	BENCH_UC_F_DET,
	BENCH_UC_F_RAW,
	BENCH_UC_F_CONC_PER_RAW,
	BENCH_UC_F_DET_PER_RAW,
	BENCH_UC_F_DET_RESUMES,
	BENCH_UC_F_DET_SWITCH,
	BENCH_UC_F_DET_DECIDE,
	BENCH_UC_NFIGS,
};

struct bench_uc_verdicts {
	double fig[BENCH_UC_NFIGS];
	struct bench_verdict_table table;
};

void bench_uc_verdicts(const struct bench_uc_summary *s, struct bench_uc_verdicts *v);

#endif /* BENCH_UPDATE_COST_H */
