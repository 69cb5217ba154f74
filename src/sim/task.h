/* SPDX-License-Identifier: MIT */
/*
 * task.h - tasks (task.c).
 */
#ifndef MSIM_SIM_TASK_H
#define MSIM_SIM_TASK_H

#include "internal.h"

/* A task that returns inside a read-side section, holding a lock or with
 * preemption disabled aborts. */
void msim__task_exit_check(const struct msim_task *t);
/* Free a task, its stack and its counts (msim_destroy). */
void msim__task_free(struct msim_task *t);

#endif /* MSIM_SIM_TASK_H */
