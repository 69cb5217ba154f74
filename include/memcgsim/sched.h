/* SPDX-License-Identifier: MIT */
/*
 * sched.h - compatibility umbrella for the deterministic scheduler's API, which
 * now lives in one header per concept:
 *   yield.h    yield points (msim_yield)
 *   explore.h  strategies, schedule strings, replay, run statistics, msim_explore
 *   script.h   scripted control from the driver (msim_run_until, msim_step, ...)
 * New code includes the header it needs.
 */
#ifndef MEMCGSIM_SCHED_H
#define MEMCGSIM_SCHED_H

#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>

#endif /* MEMCGSIM_SCHED_H */
