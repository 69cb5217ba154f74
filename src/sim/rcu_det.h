/* SPDX-License-Identifier: MIT */
/*
 * rcu_det.h - the deterministic RCU engine (rcu_det.c): the scheduler steps it.
 */
#ifndef MSIM_SIM_RCU_DET_H
#define MSIM_SIM_RCU_DET_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* Can an 'R' step do anything now (a grace period may end, callbacks are ready)? */
bool msim__rcu_det_ready(struct msim *m);
/* One 'R' step: end the grace period if its readers left, run ready callbacks. */
bool msim__rcu_det_step(struct msim *m);
/* Run grace periods and callbacks until nothing is pending (no reader may be parked). */
void msim__rcu_det_drain(struct msim *m);
uint64_t msim__rcu_det_request_gp(struct msim *m);

#endif /* MSIM_SIM_RCU_DET_H */
