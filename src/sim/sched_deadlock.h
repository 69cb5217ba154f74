/* SPDX-License-Identifier: MIT */
/*
 * sched_deadlock.h - the deadlock report of a deterministic run (sched_deadlock.c).
 */
#ifndef MSIM_SIM_SCHED_DEADLOCK_H
#define MSIM_SIM_SCHED_DEADLOCK_H

#include "internal.h"

/* Write what each unfinished task waits for into m->sched.deadlock. */
void msim__sched_deadlock_report(struct msim *m);

#endif /* MSIM_SIM_SCHED_DEADLOCK_H */
