/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor.h - source-DPOR (explore_dpor.c): the exploration tree that lives
 * across the runs of one exploration, the hooks the scheduler calls on every
 * decision and step, and the step to the next run.
 */
#ifndef MSIM_SIM_EXPLORE_DPOR_H
#define MSIM_SIM_EXPLORE_DPOR_H

#include <stdbool.h>
#include <stdint.h>

#include "access.h"
#include "explore_dpor_index.h"
#include "explore_dpor_wmm.h"
#include "internal.h"

/* Tasks 0..62 are threads of the search (drain threads take the top of that
 * range, explore_dpor_wmm.h); the RCU engine is thread 63. */
#define MSIM__DPOR_THREADS 64
#define MSIM__DPOR_R 63
_Static_assert(MSIM__DPOR_DRAIN_TOP == MSIM__DPOR_R - 1, "drain threads sit under the engine");
/* choose(): every enabled step is asleep, the run adds nothing new. */
#define MSIM__DPOR_BLOCKED (-1)

/*
 * A thread asleep at a node: explored there already, or asleep since above. Its
 * step announced what the thread's parked point announces in this run; what
 * else that step touched when it was explored at node since is
 * nodes[since].explored[k], its addresses as ids (below): an id below since
 * names the same granule in every run through that node; an id of since or
 * above was new to that step, and may be any granule first touched at or after
 * node since in another run. A sleeper inherited from above is these few
 * words, not a copy of the set.
 */
struct msim__dpor_sleeper {
	uint8_t tid;
	bool en_after;            /* its thread was enabled after that step */
	uint32_t k;
	uint64_t since;
};

/* One decision of the search (a state reached by the current prefix). */
struct msim__dpor_node {
	uint64_t enabled;         /* threads that could step here */
	uint64_t backtrack;       /* threads to explore here (the source set) */
	int chosen;               /* the thread the current run steps */
	int cur;                  /* the task that ran last, if it could go on; else -1 */
	unsigned int pre;         /* preemptions before this decision */
	struct msim__step_access chosen_extra; /* what its step touched beyond its
						  announcement, as ids */
	struct msim__dpor_sleeper *sleep;
	unsigned int nr_sleep, cap_sleep;
	uint64_t sleep_bits;      /* the sleepers' threads */
	/* chosen_extra of each thread explored here, in order (sleepers' k) */
	struct msim__step_access *explored;
	unsigned int nr_explored, cap_explored;
};

/* One step of the current run. */
struct msim__dpor_event {
	uint8_t tid;
	unsigned int cpu;         /* the task's CPU (unused for the RCU engine) */
	uint32_t lidx;            /* its index among its thread's steps */
	struct msim__step_access acc;
};

struct msim__dpor {
	/* The tree: nodes[0..len) on the current path; a run follows prefix of them. */
	struct msim__dpor_node *nodes;
	uint64_t len, cap, prefix;
	/* The current run. */
	struct msim__dpor_event *ev;
	uint64_t depth, ev_cap;
	struct msim__step_access next[MSIM__DPOR_THREADS]; /* each thread's next step */
	uint32_t steps_of[MSIM__DPOR_THREADS];             /* steps taken per thread */
	bool blocked;             /* stopped: every enabled step asleep */
	bool diverged;            /* a replayed decision was not enabled (a bug) */
	int error;                /* -E2BIG: more than 63 tasks */
	unsigned int bound;       /* preemptions a schedule may take (as DFS's bound) */
	uint64_t irq_threads;     /* threads that are interrupt sources (explore_dpor_irq.c) */
	bool handover;            /* preempt=none|full: a task taking a CPU disables the
				     others there until it yields it */
	uint64_t lock_waiters;    /* threads that blocked on a lock in this run */
	unsigned int pre;         /* preemptions so far in the current run */
	bool r_drains;            /* the engine's step found store buffers to drain */
	int step_tid;             /* the thread of the step under way */
	struct msim__dpor_drains drains; /* this run's drain threads (explore_dpor_wmm.c) */
	/*
	 * Address ids: each 8-byte granule a run touches is named by the index of
	 * the step that touched it first, an address by that and its offset
	 * (explore_dpor.c, addr_id). Runs allocate afresh, so raw addresses differ
	 * from run to run; two runs through one prefix name the prefix's objects
	 * alike.
	 */
	struct { uintptr_t addr; uint64_t id; } *ids; /* addr: the granule's number + 1 */
	uint64_t ids_cap, ids_used;
	/* The earlier steps each step may depend on, rebuilt by race detection. */
	struct msim__dpor_index index;
	/* Figures. */
	uint64_t races, backtracks;
};

/* Before run: the run follows the prefix (0 or -ENOMEM). */
int msim__dpor_begin_run(struct msim__dpor *d);
/*
 * The scheduler's decision among n options (task indexes or MSIM_PICK_R, in the
 * canonical order; current_enabled: option 0 is the task that ran last): the index
 * to take, or MSIM__DPOR_BLOCKED.
 */
int msim__dpor_choose(struct msim__dpor *d, const struct msim *m, const int *pick, unsigned int n,
		      bool current_enabled);
/* Around one step of thread pick (MSIM_PICK_R for the engine) on host m. */
void msim__dpor_step_begin(struct msim__dpor *d, struct msim *m, int pick);
void msim__dpor_step_end(struct msim__dpor *d, struct msim *m, int pick);
/* After a run: detect races, then set the next prefix; false when exhausted. */
bool msim__dpor_next(struct msim__dpor *d);
void msim__dpor_free(struct msim__dpor *d);

#endif /* MSIM_SIM_EXPLORE_DPOR_H */
