/* SPDX-License-Identifier: MIT */
/*
 * script.h - scripted control of a deterministic run: the driver (the code that
 * created the host, outside any task) steps tasks itself, to a yield point, by a
 * number of steps, or to completion, and ends RCU grace periods when it
 * chooses. This is how a race is replayed from its diagram:
 *
 *   msim_run_until(m, updater, "this_cpu_rmw.store", 1);  // CPU 0 stops mid-RMW
 *   msim_run_task(m, flusher);                            // CPU 1 runs through
 *   msim_run_task(m, updater);                            // CPU 0 finishes
 *
 * Every pick made here is recorded in the schedule string (explore.h) like a pick
 * of any strategy, so a scripted run replays too.
 *
 * Where to stop. A yield point has a name (where in the code) and a context
 * (yield.h: the object, CPU and node the code works on, where the layer sets
 * one). msim_run_until() stops at a name; msim_run_until_ctx() at a name for a
 * given object, CPU or node ("rstat.flush.memcg" for mid, not the second
 * "rstat.flush.memcg"); msim_run_until_fn() wherever a rule of the driver's says.
 * msim_task_where() tells where a task is parked: name, hits, context.
 *
 * Tasks created while a run is under way. The driver may create a task at any
 * time on a deterministic host: before the first step, between scripted steps,
 * or after msim_run() returned (then the next msim_run() runs it). The new task
 * takes the next creation number (its name in schedule strings); it may take
 * its first step at the next pick; on its CPU it runs after every task created
 * there before it has finished, as if it had been created up front; in the
 * option list of every strategy it sits by its number like any task, and PCT
 * gives it a priority when it first appears. Replay strings stay valid: a run
 * never picks a task before it exists, so replaying the string on a host where
 * the same tasks were created in the same order (all up front, as msim_sched_set()
 * with a REPLAY strategy requires of the tasks the string names) takes the same
 * picks and ends with the same trace hash.
 * A task cannot create a task: msim_task_create() called from inside a task, in
 * either mode, returns NULL with errno EINVAL (a task of a concurrent run would
 * race with the CPU threads that read the task list; a deterministic one would
 * make a task that a replay cannot create up front).
 */
#ifndef MEMCGSIM_SCRIPT_H
#define MEMCGSIM_SCRIPT_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/yield.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Run task t until it reaches the yield point named point for the nth time
 * (counting from this call, n >= 1), and stop it there, before the operation
 * behind the point. Returns 0; -ESRCH if t finished first; -EDEADLK if t blocked
 * and no other step was allowed to run (the driver must step the holder).
 */
MSIM_API int msim_run_until(struct msim *m, struct msim_task *t, const char *point, unsigned int nth);

/*
 * msim_run_until(), counting only the points whose context matches want: a NULL
 * want->object matches any object, a negative want->cpu or want->nid any CPU or
 * node; a field that is set matches only a point whose context has that value
 * (a point without context matches only a want that sets nothing). want NULL is
 * msim_run_until(). Returns as msim_run_until().
 */
MSIM_API int msim_run_until_ctx(struct msim *m, struct msim_task *t, const char *point,
				const struct msim_yield_ctx *want, unsigned int nth);

/* Where a task is parked (msim_task_where()). */
struct msim_task_where {
	const char *point;           /* name of the yield point; NULL: not parked */
	uint64_t hits;               /* parks of t at a point of this name, this one included */
	bool blocked;                /* t waits (lock, grace period, barrier) after the point */
	struct msim_yield_ctx ctx;   /* the point's context; MSIM_YIELD_CTX_NONE if none */
};

/*
 * Fill *where with where task t is parked. Returns true; false (point NULL,
 * ctx none) when t has not started or is done. hits counts from t's start, by
 * name (two points of the same name count together). Read it from the driver.
 */
MSIM_API bool msim_task_where(const struct msim_task *t, struct msim_task_where *where);

/* A rule for msim_run_until_fn(): true means stop here. It must not step tasks. */
typedef bool (*msim_stop_fn)(const struct msim_task *t, const struct msim_task_where *where,
			     void *arg);

/*
 * Run task t, asking stop(t, where, arg) at each yield point where t parks (not
 * while it is blocked), until stop returns true. Returns as msim_run_until();
 * -EINVAL also for a NULL stop. The rule may read the model (introspection such
 * as msim_memcg_stats_updates() has no yield points) to decide.
 */
MSIM_API int msim_run_until_fn(struct msim *m, struct msim_task *t, msim_stop_fn stop, void *arg);

/* Run task t for k steps (k yield points), or until it finishes. Returns steps run. */
MSIM_API unsigned int msim_step(struct msim *m, struct msim_task *t, unsigned int k);

/*
 * Run task t to completion. Returns 0; -EDEADLK as soon as t cannot run (it is
 * blocked, or an earlier task of its CPU has not finished: step that one first);
 * -EINVAL for a task of another host, a concurrent host, or a call from a task.
 * msim_run_until*() and msim_step() refuse the same misuse (-EINVAL, 0 steps).
 */
MSIM_API int msim_run_task(struct msim *m, struct msim_task *t);

/*
 * RCU engine step under the driver's control: end the current grace period if
 * every reader it waits for has left, and run ready callbacks. Returns true if
 * anything happened.
 */
MSIM_API bool msim_rcu_step(struct msim *m);

/*
 * Weak memory models (sim.h msim_memory_model): make entry pos (0: the oldest)
 * of CPU cpu's store buffer visible, the step an explorer records as "~cpu" or
 * "~cpu+pos". Returns 0; -EINVAL outside the driver or for a bad CPU; -ENOENT
 * when that entry does not exist or may not go yet (tso: pos must be 0; pso: no
 * older entry to its address, and a release only as the oldest).
 * msim_store_buffer_len() is the number of entries cpu holds (0 under sc).
 */
MSIM_API int msim_store_buffer_drain(struct msim *m, unsigned int cpu, unsigned int pos);
MSIM_API unsigned int msim_store_buffer_len(const struct msim *m, unsigned int cpu);

/* Name of the yield point at which task t is parked, or NULL (not started/done). */
MSIM_API const char *msim_task_parked_at(const struct msim_task *t);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_SCRIPT_H */
