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
struct msim_ss_summary {
	double bare;      /* swapcontext calls */
	double steps;     /* scheduler steps (yield, decision, resume) */
	double sched;     /* explored schedules of toy-percpu-reset */
	double stack_switches_per_step; /* measured: a step that picks its task again takes none */
};

enum msim_ss_fig {
	MSIM_SS_F_NONE,
	MSIM_SS_F_STEPS,
	MSIM_SS_F_STEPS_PER_BARE,
	MSIM_SS_NFIGS,
};

struct msim_ss_verdicts {
	double fig[MSIM_SS_NFIGS];
	struct msim_verdict_table table;
};

void msim_ss_verdicts(const struct msim_ss_summary *s, struct msim_ss_verdicts *v);

#endif /* BENCH_SCHED_SWITCH_H */
