/* SPDX-License-Identifier: MIT */
/*
 * rcu.h - read-copy update: read-side sections, grace periods, callbacks.
 *
 * Concurrent mode uses liburcu (urcu-memb). Deterministic mode uses the
 * scheduler's own grace-period model: ending a grace period and running the
 * callbacks whose grace period has ended is a scheduler step ('R' in schedule
 * strings, explore.h), so an explorer decides when grace periods end.
 *
 * Callbacks run outside any task (like softirq context): they must not block,
 * and yield points inside them are not switch points.
 */
#ifndef MEMCGSIM_RCU_H
#define MEMCGSIM_RCU_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/atomic.h>
#include <memcgsim/container_of.h>

#ifdef __cplusplus
extern "C" {
#endif

struct msim;

struct msim_rcu_head {
	struct msim_rcu_head *next;
	void (*func)(struct msim_rcu_head *head);
	uint64_t gp_needed;   /* deterministic mode: grace period sequence to wait for */
	struct msim *host;
	char impl[16];        /* concurrent mode: liburcu's struct rcu_head */
};

/* Read-side sections nest; each lock and unlock is a yield point in deterministic mode. */
MSIM_API void msim_rcu_read_lock(void);
MSIM_API void msim_rcu_read_unlock(void);
MSIM_API bool msim_rcu_read_lock_held(void);
/* Wait for a grace period. A task blocks; the driver ends grace periods itself. */
MSIM_API void msim_synchronize_rcu(void);
MSIM_API void msim_call_rcu(struct msim_rcu_head *head, void (*func)(struct msim_rcu_head *head));
/* Wait until every callback queued so far has run. */
MSIM_API void msim_rcu_barrier(void);
/*
 * Said by a callback (first, by convention): it keeps the access annotation
 * contract of yield.h, so partial-order reduction (MSIM_STRAT_DPOR) may trust
 * what it touches: its shims' yield points (they are the callback's own
 * accesses, in the engine's step), and msim_access_note() for every plain or
 * quiet access to state a task can see, a free included (a store over the
 * object). A callback that does not say it makes the engine's step conflict
 * with every step. Nothing outside a DPOR run.
 */
MSIM_API void msim_rcu_callback_noted(void);

/* rcu_dereference / rcu_assign_pointer on a void * slot: acquire load, release store. */
static inline void *msim_rcu_dereference(void *const *p)
{
	return msim_load_at(p, MSIM_ACQUIRE, "rcu_dereference");
}

static inline void msim_rcu_assign_pointer(void **p, void *v)
{
	msim_store_at(p, v, MSIM_RELEASE, "rcu_assign_pointer");
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_RCU_H */
