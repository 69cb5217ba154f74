/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_irq.h - interrupt sources as threads of source-DPOR
 * (explore_dpor_irq.c): what explore_dpor.c calls on a decision, at the end of
 * a step and after a run.
 */
#ifndef MSIM_SIM_EXPLORE_DPOR_IRQ_H
#define MSIM_SIM_EXPLORE_DPOR_IRQ_H

#include "explore_dpor.h"

/* Note which options of a decision are arrivals: their threads are sources. */
void msim__dpor_irq_options(struct msim__dpor *d, const int *pick, unsigned int n);
/* Thread tid took a step on m: a handler that returned next steps by arriving. */
void msim__dpor_irq_step_end(struct msim__dpor *d, const struct msim *m, unsigned int tid);
/*
 * After a run: each step that left a source unable to arrive where it could
 * before (the interrupted context ended, turned interrupts off, or a higher
 * kind arrived) races with that pending arrival; the decision before the step
 * tries the arrival.
 */
void msim__dpor_irq_races(struct msim__dpor *d, uint64_t final_enabled);

#endif /* MSIM_SIM_EXPLORE_DPOR_IRQ_H */
