/* SPDX-License-Identifier: MIT */
/*
 * bench_sched_switch.h - how `memcgsim bench sched-switch` judges the scheduler's
 * speed against the project's goal (one million steps per second), so that the
 * bench-smoke tests can plant figures and force the verdict to each outcome.
 */
#ifndef BENCH_SCHED_SWITCH_H
#define BENCH_SCHED_SWITCH_H

#include "bench_verdict.h"

/* Medians, per second. */
struct bench_ss_summary {
	double bare;      /* swapcontext calls */
	double steps;     /* scheduler steps (yield, decision, resume) */
	double sched;     /* explored schedules of toy-percpu-reset */
	double stack_switches_per_step; /* measured: a step that picks its task again takes none */
};

enum bench_ss_fig {
	BENCH_SS_F_NONE,
	BENCH_SS_F_STEPS,
	BENCH_SS_F_STEPS_PER_BARE,
	BENCH_SS_NFIGS,
};

struct bench_ss_verdicts {
	double fig[BENCH_SS_NFIGS];
	struct bench_verdict_table table;
};

void bench_ss_verdicts(const struct bench_ss_summary *s, struct bench_ss_verdicts *v);

#endif /* BENCH_SCHED_SWITCH_H */
