/* SPDX-License-Identifier: MIT */
/*
 * sched.h - the deterministic scheduler (sched.c): tasks as coroutines, the
 * picks, and what the sync shims need from it (parking and blocking a task).
 */
#ifndef MSIM_SIM_SCHED_H
#define MSIM_SIM_SCHED_H

#include <stdbool.h>

#include "internal.h"

/* Give control back to the scheduler (deterministic task context only). */
void msim__task_park(struct msim_task *t, const char *why);
/* Block the running task on w until the scheduler resumes it. */
void msim__task_block(struct msim_task *t, enum msim_wait_kind w);

void msim__sched_init(struct msim *m);
void msim__sched_fini(struct msim *m);
/* Run the host under its strategy until every task is done (msim_run). */
int msim__run_det(struct msim *m);
/* True if task t may take the next step (not done, first of its CPU, not blocked). */
bool msim__task_enabled(struct msim *m, struct msim_task *t);
/* Take one step: resume task index pick (or the RCU engine, MSIM_PICK_R) and record it. */
void msim__sched_pick(struct msim *m, int pick);

#endif /* MSIM_SIM_SCHED_H */
