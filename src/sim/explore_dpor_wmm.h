/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_wmm.h - store-buffer drains as threads of source-DPOR
 * (explore_dpor_wmm.c): which thread a drain pick ("~C", "~C+K") belongs to,
 * and what its step touches.
 */
#ifndef MSIM_SIM_EXPLORE_DPOR_WMM_H
#define MSIM_SIM_EXPLORE_DPOR_WMM_H

#include <stdint.h>

#include "access.h"
#include "internal.h"

/* Drain threads a run may have; they take thread ids 62, 61, ... downwards
 * (the RCU engine is 63: explore_dpor.h checks the two agree). */
#define MSIM__DPOR_DRAIN_MAX 32
#define MSIM__DPOR_DRAIN_TOP 62

struct msim__dpor_drains {
	struct { unsigned int cpu; uintptr_t addr; } slot[MSIM__DPOR_DRAIN_MAX];
	unsigned int n;
};

/* A new run: its drain threads are named afresh, in the order they appear. */
void msim__dpor_drains_reset(struct msim__dpor_drains *dr);
/*
 * The thread of drain pick on m (tso: one per CPU; pso: one per CPU and
 * address), and in *next what its step touches. -E2BIG when the threads would
 * meet the host's task indexes.
 */
int msim__dpor_drain_thread(struct msim__dpor_drains *dr, const struct msim *m, int pick,
			    struct msim__step_access *next);
/* True when thread tid is a drain thread of this run. */
bool msim__dpor_is_drain(const struct msim__dpor_drains *dr, unsigned int tid);
/* The drain threads of this run, as a mask. */
uint64_t msim__dpor_drain_mask(const struct msim__dpor_drains *dr);

#endif /* MSIM_SIM_EXPLORE_DPOR_WMM_H */
