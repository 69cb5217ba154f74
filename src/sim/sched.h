/* SPDX-License-Identifier: MIT */
/*
 * sched.h - the deterministic scheduler (sched.c): tasks as coroutines, the
 * picks, and what the sync shims need from it (parking and blocking a task).
 */
#ifndef MSIM_SIM_SCHED_H
#define MSIM_SIM_SCHED_H

#include <stdbool.h>

#include "internal.h"
#include "sched_options.h"   /* msim__task_enabled */

/* Give control back to the scheduler (deterministic task context only). */
void msim__task_park(struct msim_task *t, const char *why);
/* Block the running task on w until the scheduler resumes it. */
void msim__task_block(struct msim_task *t, enum msim_wait_kind w);

/*
 * Which driver loop runs a host (msim_sched.drive): none (the script steps one
 * pick at a time), msim__run_det, or msim_run_task. Under either loop a task at
 * a yield point takes the loop's next decision itself and goes on with no stack
 * switch when it is picked again (docs/explore.md, "The decision in the task").
 */
enum { MSIM__DRIVE_NONE, MSIM__DRIVE_DET, MSIM__DRIVE_RUN_TASK };
/*
 * True: every step switches to the driver and back, as before the decision in
 * the task (a bench's "before" column; the runs are the same either way).
 */
extern __thread bool msim__sched_always_switch;
/*
 * True: no fast step (sched.c): every in-task decision lists the options and
 * asks the strategy, as before it (a bench's column; the runs are the same).
 */
extern __thread bool msim__sched_no_fast_step;
/*
 * What a park may foretell of its driver's next decision (msim_sched.fast):
 * nothing; msim_run_task's ("this task, while enabled"); or msim__run_det's
 * under the script strategy ("the running task, while enabled"), replay
 * ("the string's next pick", when it is the running task) or PCT ("the
 * running task", when no other task nor the RCU engine has a higher priority
 * and no change point falls on the step).
 */
enum { MSIM__FAST_NONE, MSIM__FAST_RUN_TASK, MSIM__FAST_SCRIPT, MSIM__FAST_REPLAY,
       MSIM__FAST_PCT };
/*
 * msim_yield_det_active in a task whose host is in a fast mode (any other
 * task: 1), so that a slow path tells a fast park by one thread-local load.
 */
#define MSIM__DET_FAST 2
/* Set m's fast mode for the driver loop that starts (msim_sched.drive set). */
void msim__sched_fast_begin(struct msim *m);
/* Steps of m that took the fast step. */
uint64_t msim__sched_fast_steps(const struct msim *m);
/* How often the driver switched into one of m's tasks (each a switch there and back). */
uint64_t msim__sched_resumes(const struct msim *m);

void msim__sched_init(struct msim *m);
void msim__sched_fini(struct msim *m);
/* Run the host under its strategy until every task is done (msim_run). */
int msim__run_det(struct msim *m);
/* Take one step: resume task index pick (or the RCU engine, MSIM_PICK_R) and record it. */
void msim__sched_pick(struct msim *m, int pick);

/*
 * Step observers: what the trace export (src/race/trace.c) sees of a run. An
 * observer reads; it must not step, yield or change the model's state.
 */
enum msim__sched_event_kind {
	MSIM__SCHED_HOST_START,   /* a host was created (nothing else is set but its CPUs) */
	MSIM__SCHED_STEP,         /* one step was taken */
};

struct msim__sched_event {
	enum msim__sched_event_kind kind;
	uint64_t step;            /* the step's index on its host, from 0 */
	int pick;                 /* task index or MSIM_PICK_R */
	const char *task;         /* the task's name; NULL for the RCU engine */
	unsigned int cpu;         /* the task's CPU */
	unsigned int nr_cpus;
	const char *point;        /* where the task stopped; NULL when it exited */
	/*
	 * The execution context the step ran in: NULL for task context. Interrupt
	 * contexts (softirq, hardirq, NMI) set their name (a static string) here
	 * when the scheduler runs them, and the trace draws their slices on the
	 * CPU's track.
	 */
	const char *ctx;
	uint64_t gp_completed;    /* RCU grace periods ended so far */
	bool gp_in_progress;
	uint64_t jiffies;
};

/*
 * Every host created on this thread from now on reports its steps to fn (NULL:
 * none). The deterministic mode runs a host on one thread, so a run traced from
 * here is seen whole, including hosts a race's script builds for itself.
 */
void msim__sched_observe_hosts(msim__sched_observer_fn fn, void *arg);

#endif /* MSIM_SIM_SCHED_H */
