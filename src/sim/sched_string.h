/* SPDX-License-Identifier: MIT */
/*
 * sched_string.h - what the scheduler records of each step (sched_string.c).
 */
#ifndef MSIM_SIM_SCHED_STRING_H
#define MSIM_SIM_SCHED_STRING_H

#include "internal.h"

/* Record the pick of a step: the step and switch counts and the schedule string. */
void msim__sched_record(struct msim *m, int pick);

#endif /* MSIM_SIM_SCHED_STRING_H */
