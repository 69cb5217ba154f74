/* SPDX-License-Identifier: MIT */
/*
 * rcu_det.h - the deterministic RCU engine (rcu_det.c): the scheduler steps it.
 */
#ifndef MSIM_SIM_RCU_DET_H
#define MSIM_SIM_RCU_DET_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/*
 * What DPOR's steps note of RCU (access.h), two locations of the host's engine:
 * the readers' state (entries and exits load it, a grace period's start stores
 * it: its snapshot) and the grace-period state (requests and the engine's step
 * store it; an exit from a section the running grace period waits for loads it).
 */
static inline const void *msim__rcu_readers(const struct msim *m)
{
	return &m->rcu.driver;
}

static inline const void *msim__rcu_gp_state(const struct msim *m)
{
	return &m->rcu.gp_completed;
}

/* Can an 'R' step do anything now (a grace period may end, callbacks are ready)? */
bool msim__rcu_det_ready(struct msim *m);
/* One 'R' step: end the grace period if its readers left, run ready callbacks. */
bool msim__rcu_det_step(struct msim *m);
/* Run grace periods and callbacks until nothing is pending (no reader may be parked). */
void msim__rcu_det_drain(struct msim *m);
uint64_t msim__rcu_det_request_gp(struct msim *m);

#endif /* MSIM_SIM_RCU_DET_H */
