/* SPDX-License-Identifier: MIT */
/*
 * explore.h - what the explorer (explore.c) tells a bench of its own cost: the
 * part of its runs spent building and tearing down their hosts.
 */
#ifndef MSIM_SIM_EXPLORE_H
#define MSIM_SIM_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * True: each run's host part (msim_create and the target's setup; the
 * target's teardown and msim_destroy) is timed on the monotonic clock and
 * added to msim__explore_host_ns. Four clock reads a run; the runs are the
 * same either way.
 */
extern __thread bool msim__explore_time_host;
extern __thread uint64_t msim__explore_host_ns;

#endif /* MSIM_SIM_EXPLORE_H */
