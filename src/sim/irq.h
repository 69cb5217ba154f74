/* SPDX-License-Identifier: MIT */
/*
 * irq.h - execution contexts on a CPU (irq.c): what the scheduler asks about
 * interrupt sources. Called only when the host declared one
 * (sched.nr_irq_sources != 0), so a host without sources schedules as before.
 */
#ifndef MSIM_SIM_IRQ_H
#define MSIM_SIM_IRQ_H

#include <stdbool.h>

#include "internal.h"

/* May source h arrive now on its CPU (irq.h's rules)? */
bool msim__irq_may_arrive(const struct msim *m, const struct msim_task *h);
/* May t take a step as far as its CPU's context stack is concerned? */
bool msim__irq_may_step(const struct msim *m, const struct msim_task *t);
/* h arrives: it goes on top of its CPU's stack as a fresh invocation. */
void msim__irq_arrive(struct msim *m, struct msim_task *h);
/* t gave control back: a task becomes its CPU's last; a finished handler leaves the stack. */
void msim__irq_stepped(struct msim *m, struct msim_task *t);
void msim__irq_fini(struct msim *m);

#endif /* MSIM_SIM_IRQ_H */
