/* SPDX-License-Identifier: MIT */
/*
 * yield.h - yield points: where the deterministic scheduler may switch tasks.
 *
 * In deterministic mode (sim.h) tasks are coroutines and exactly one runs at a
 * time; a task gives control back to the scheduler only at a yield point. Every
 * shim operation on shared state (atomic.h, lock.h, rcu.h, percpu.h) is one, and
 * model code adds named points where a race window needs a name of its own, so a
 * scripted test can stop a task exactly there (msim_run_until(), script.h).
 *
 * A yield point names the place *before* the operation it guards: stopping a task
 * at "rstat.update.atomic_add" leaves the add undone until the task is stepped.
 *
 * In concurrent mode and outside tasks a yield point does nothing (one branch).
 */
#ifndef MEMCGSIM_YIELD_H
#define MEMCGSIM_YIELD_H

/*
 * void msim_yield(const char *name);
 *
 * A named yield point. name is a static string: schedules, traces and scripted
 * control compare it by content, and the trace hash (explore.h) mixes it in, so
 * renaming a point changes every trace that passes through it.
 */
#include <memcgsim/static/yield.h>

#endif /* MEMCGSIM_YIELD_H */
