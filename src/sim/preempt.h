/* SPDX-License-Identifier: MIT */
/*
 * preempt.h - the preemption model of a deterministic host (preempt.c): which
 * parked task holds its CPU and holds off RCU grace periods.
 */
#ifndef MSIM_SIM_PREEMPT_H
#define MSIM_SIM_PREEMPT_H

#include <stdbool.h>

#include "internal.h"

/*
 * True when the model says t cannot be preempted where it is (parked, or running
 * now): no other task of its CPU may run, and it is an implicit RCU reader.
 * Always false under preempt=unmodelled, for a task not yet started, and for a
 * finished one.
 */
bool msim__preempt_holds_cpu(const struct msim *m, const struct msim_task *t);

/*
 * Under preempt=none|full: may t take a step, as far as its CPU is concerned
 * (no other task holds it)?
 */
bool msim__preempt_cpu_free_for(struct msim *m, const struct msim_task *t);

/* t gave control back (parked, blocked or finished): a quiescent state if it can
 * be preempted there, and its CPU's holder follows. */
void msim__preempt_parked(struct msim *m, struct msim_task *t);

/* msim_destroy(): tasks parked for good let their CPUs and grace periods go. */
void msim__preempt_release(struct msim *m);

void msim__preempt_fini(struct msim *m);

#endif /* MSIM_SIM_PREEMPT_H */
