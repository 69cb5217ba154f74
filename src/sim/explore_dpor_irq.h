/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_irq.h - interrupt sources as threads of source-DPOR
 * (explore_dpor_irq.c): what explore_dpor.c asks about arrivals on a decision,
 * at the end of a step and after a run. Each answer is computed from what the
 * caller passes: this file keeps no state of the search.
 */
#ifndef MSIM_SIM_EXPLORE_DPOR_IRQ_H
#define MSIM_SIM_EXPLORE_DPOR_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* The thread of an arrival pick ("!N": N), or -1 when pick is none. */
int msim__dpor_irq_thread(int pick);
/* The threads among a decision's n options that are interrupt sources (below 63). */
uint64_t msim__dpor_irq_sources(const int *pick, unsigned int n);
/* Thread tid of m just returned from its handler: its next step is an arrival. */
bool msim__dpor_irq_returned(const struct msim *m, unsigned int tid);
/*
 * The threads of mask pending (the sources, or every thread where a task can
 * hold its CPU) whose next step a step of thread tid disabled: enabled before
 * it, not after it. Each races with that pending step.
 */
uint64_t msim__dpor_irq_disabled(uint64_t pending, uint64_t before, uint64_t after,
				 unsigned int tid);

#endif /* MSIM_SIM_EXPLORE_DPOR_IRQ_H */
