/* SPDX-License-Identifier: MIT */
/*
 * sched_options.h - which steps may go next and which one the strategy picks
 * (sched_options.c), for the scheduler's decision (sched.c).
 */
#ifndef MSIM_SIM_SCHED_OPTIONS_H
#define MSIM_SIM_SCHED_OPTIONS_H

#include <stdbool.h>

#include "internal.h"

/*
 * The slots of a decision's option list; msim__sched_choose returns this when
 * every enabled step is asleep (DPOR: stop the run, nothing new past here).
 */
#define MSIM__MAX_OPTIONS 1025

/* The enabled steps of one decision, in the canonical order (sched_options.c). */
struct msim__options {
	int pick[MSIM__MAX_OPTIONS];
	unsigned int n;
	bool current_enabled;     /* pick[0] is the task that ran last */
	bool has_r;               /* the RCU engine may step (the last pick) */
};

/* True if task t may take the next step (not done, first of its CPU, not blocked). */
bool msim__task_enabled(struct msim *m, struct msim_task *t);
/* List the steps that may go next. */
void msim__sched_build_options(struct msim *m, struct msim__options *o);
/* The strategy's choice: an index into o, or MSIM__MAX_OPTIONS (above). */
unsigned int msim__sched_choose(struct msim *m, const struct msim__options *o);

/* Add the tasks created since the last look to the live list (sorted by index). */
void msim__sched_live_sync(struct msim *m);
/* Task t finished: it leaves the live list (an interrupt source stays). */
void msim__sched_live_remove(struct msim *m, const struct msim_task *t);
/* Recompute each CPU's first unfinished task (preempt=unmodelled). */
void msim__sched_heads_refresh(struct msim *m);
/* Whether a task has not finished (deadlock when none may step). */
bool msim__sched_any_unfinished(struct msim *m);
/* Whether a task (or the driver) is inside an RCU read-side section. */
bool msim__sched_any_reader_parked(struct msim *m);

#endif /* MSIM_SIM_SCHED_OPTIONS_H */
