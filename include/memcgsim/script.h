/* SPDX-License-Identifier: MIT */
/*
 * script.h - scripted control of a deterministic run: the driver (the code that
 * created the host, outside any task) steps tasks itself, to a named yield point,
 * by a number of steps, or to completion, and ends RCU grace periods when it
 * chooses. This is how a race is replayed from its diagram:
 *
 *   msim_run_until(m, updater, "this_cpu_rmw.store", 1);  // CPU 0 stops mid-RMW
 *   msim_run_task(m, flusher);                            // CPU 1 runs through
 *   msim_run_task(m, updater);                            // CPU 0 finishes
 *
 * Every pick made here is recorded in the schedule string (explore.h) like a pick
 * of any strategy, so a scripted run replays too.
 */
#ifndef MEMCGSIM_SCRIPT_H
#define MEMCGSIM_SCRIPT_H

#include <memcgsim/api.h>

#include <stdbool.h>

#include <memcgsim/sim.h>

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

/* Run task t for k steps (k yield points), or until it finishes. Returns steps run. */
MSIM_API unsigned int msim_step(struct msim *m, struct msim_task *t, unsigned int k);

/*
 * Run task t to completion. Returns 0; -EDEADLK as soon as t cannot run (it is
 * blocked, or an earlier task of its CPU has not finished: step that one first);
 * -EINVAL for a task of another host, a concurrent host, or a call from a task.
 * msim_run_until() and msim_step() refuse the same misuse (-EINVAL, 0 steps).
 */
MSIM_API int msim_run_task(struct msim *m, struct msim_task *t);

/*
 * RCU engine step under the driver's control: end the current grace period if
 * every reader it waits for has left, and run ready callbacks. Returns true if
 * anything happened.
 */
MSIM_API bool msim_rcu_step(struct msim *m);

/* Name of the yield point at which task t is parked, or NULL (not started/done). */
MSIM_API const char *msim_task_parked_at(const struct msim_task *t);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_SCRIPT_H */
