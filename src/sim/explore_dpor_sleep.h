/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_sleep.h - source-DPOR's sleep sets and the address ids they
 * compare by (explore_dpor_sleep.c), for explore_dpor.c: a thread explored at a
 * decision falls asleep there; a step leaves asleep the sleepers it does not
 * conflict with (under a preemption bound only those sleep_keeps_bound() keeps).
 */
#ifndef MSIM_SIM_EXPLORE_DPOR_SLEEP_H
#define MSIM_SIM_EXPLORE_DPOR_SLEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "explore_dpor.h"

/* The CPU whose contexts thread tid's steps are ordered with (explore_dpor.c). */
unsigned int msim__dpor_thread_cpu(const struct msim__dpor *d, const struct msim *m,
				   unsigned int tid);

/* Thread tid, explored at node n (index since), sleeps there from now on. */
void msim__dpor_sleep_add_explored(struct msim__dpor_node *n, uint8_t tid, uint64_t since,
				   bool en_after, const struct msim__step_access *extra);
/* The threads asleep at node n. */
uint64_t msim__dpor_sleep_mask(const struct msim__dpor_node *n);

/* Give acc's addresses their ids (those first touched now get step). */
void msim__dpor_register_ids(struct msim__dpor *d, const struct msim__step_access *acc,
			     uint64_t step);
/* acc with its addresses as ids (registering those first touched at step). */
void msim__dpor_to_ids(struct msim__dpor *d, const struct msim__step_access *acc, uint64_t step,
		       struct msim__step_access *out);
/* What step acc touched beyond what it announced, as ids. */
void msim__dpor_extra_ids(struct msim__dpor *d, const struct msim__step_access *acc,
			  const struct msim__step_access *announced, uint64_t step,
			  struct msim__step_access *out);

/* The sleep set of decision nx, the one after step e: the sleepers e left asleep. */
void msim__dpor_propagate_sleep(struct msim__dpor *d, const struct msim *m,
				const struct msim__dpor_event *e, struct msim__dpor_node *nx);

#endif /* MSIM_SIM_EXPLORE_DPOR_SLEEP_H */
