/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_index.h - which earlier steps of a run a step may depend on
 * (explore_dpor_index.c), so that DPOR's race detection visits those and not
 * the whole run.
 *
 * Race detection (explore_dpor.c) walks back from each step e_j over the steps
 * before it, in order, and joins the vector clock of every step that is not yet
 * known to happen before e_j and is dependent with it or of its thread. A step
 * it skips changes nothing, so visiting only a superset of the steps it joins,
 * in the same order, gives the same clocks and the same races. The index finds
 * such a superset from what each step touched, instead of scanning every
 * earlier step: a run of 12500 steps made that scan the bulk of a DPOR run.
 */
#ifndef MSIM_SIM_EXPLORE_DPOR_INDEX_H
#define MSIM_SIM_EXPLORE_DPOR_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "access.h"

/* One step as the index sees it. cpu_rule: the same-CPU rule orders it with
 * every other step of its CPU (a task's or a handler's step, not the RCU
 * engine's or a drain's). */
struct msim__dpor_index_step {
	unsigned int tid;
	unsigned int cpu;
	bool cpu_rule;
	const struct msim__step_access *acc;
};

struct msim__dpor_granule;

struct msim__dpor_index {
	/* 8-byte granules touched in this run: open addressing on the granule
	 * number, the table holding indexes into granule[]. */
	uint32_t *slot;
	uint64_t slot_cap;
	struct msim__dpor_granule *granule;
	uint64_t nr_granules, granule_cap;
	/* The latest step of each thread, and of each CPU under the rule (-1: none). */
	int64_t last_of_thread[64];
	int64_t *last_of_cpu;
	unsigned int cpu_cap;
	/* The latest step that touched anything: every earlier step happens before it. */
	int64_t last_any;
	/* Steps with a range too wide to index by granule, in order. */
	uint64_t *wide;
	uint64_t nr_wide, wide_cap;
	/* The steps added so far (their access sets stay the caller's). */
	struct msim__dpor_index_step *steps;
	uint64_t nr_steps, steps_cap;
	/* The candidates of the step asked about last. */
	uint64_t *cand;
	uint64_t nr_cand, cand_cap;
};

/* p, an array of *cap elements of size, grown (doubling) to hold need; aborts
 * when memory runs out. DPOR's arrays all grow this way. */
void *msim__dpor_grow(void *p, uint64_t *cap, uint64_t need, size_t size);

/* Forget the previous run (keeps the memory). */
void msim__dpor_index_reset(struct msim__dpor_index *x);
/*
 * The steps already added that race detection must visit for step s, the next
 * one, latest first, each once: into x->cand[0..x->nr_cand).
 */
void msim__dpor_index_candidates(struct msim__dpor_index *x, const struct msim__dpor_index_step *s);
/* Step s joins the index as the next step; its access set must outlive the index's use. */
void msim__dpor_index_add(struct msim__dpor_index *x, const struct msim__dpor_index_step *s);
void msim__dpor_index_free(struct msim__dpor_index *x);

#endif /* MSIM_SIM_EXPLORE_DPOR_INDEX_H */
