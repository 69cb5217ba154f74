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

#ifdef __cplusplus
extern "C" {
#endif

/*
 * void msim_yield(const char *name);
 *
 * A named yield point. name is a static string: schedules, traces and scripted
 * control compare it by content, and the trace hash (explore.h) mixes it in, so
 * renaming a point changes every trace that passes through it.
 */

/*
 * void msim_yield_access(const char *name, const volatile void *addr, int kind);
 *
 * The same yield point, saying what the step resumed from it touches: the
 * access it guards, on addr, of kind one of MSIM_ACCESS_*. It parks exactly as
 * msim_yield(name) does (same schedules, same trace hash); partial-order
 * reduction (explore.h, MSIM_STRAT_DPOR) reads the access to judge which steps
 * of different tasks commute. The shims of atomic.h, lock.h, rcu.h and
 * percpu.h use it; a point that says nothing (msim_yield) counts as touching
 * everything.
 */
/*
 * The contract of an access annotation (partial-order reduction trusts it; the
 * oracle tests/race/test_dpor_oracle.c checks it against DFS on every race):
 * the step resumed from a point runs until the task's next yield point, and
 * everything it does there to state another task can see must be in its set:
 *  - what the point announces (addr and kind; MSIM_ACCESS_NONE when the code
 *    after the point reaches another announced point before touching anything
 *    shared, as when it returns into a caller whose next shared access is a
 *    shim);
 *  - what the shims note on the way (a lock's release, an RCU exit);
 *  - plain or quiet accesses to shared data after the point, noted with
 *    msim_access_note(addr, len, kind), unless a modelled lock held across
 *    them orders them against every other access (the lock's own steps
 *    conflict, so DPOR keeps their order), or they touch only data no other
 *    task reads before the run ends (task-local, or end-of-run figures).
 * Commuting updates (two plain += on a counter only the end-of-run check reads)
 * need no note. A point that says nothing (msim_yield) touches everything.
 *
 * void msim_access_note(const volatile void *addr, unsigned long len, int kind);
 *   The running step also touches bytes [addr, addr + len) with kind (LOAD,
 *   STORE or RMW): a fold over a per-CPU array, a plain store after a NONE
 *   point; kind ANY (len 1) makes the step touch anything, for code the layer
 *   cannot see (a caller's callback). Nothing outside a DPOR run (one branch
 *   outside deterministic tasks).
 */
#define MSIM_ACCESS_ANY 0    /* unknown: conflicts with every step */
#define MSIM_ACCESS_LOAD 1   /* reads addr */
#define MSIM_ACCESS_STORE 2  /* writes addr */
#define MSIM_ACCESS_RMW 3    /* reads and writes addr (an atomic, a lock) */
#define MSIM_ACCESS_NONE 4   /* touches no shared state (the release came before) */
#define MSIM_ACCESS_FENCE 5  /* a full barrier: drains this CPU's store buffer */

/*
 * MSIM_ACCESS_VAL(p): bits a load or read-modify-write shim ORs into its kind
 * to say what *p holds (its size, and whether it is a pointer), a compile-time
 * constant. Only fingerprinting (an explorer checking another: msim_explore_opts
 * .fingerprint, explore.h) reads them, to fold the value the load returns into
 * what the run saw; pointers count as NULL or not (their values differ from run
 * to run). Partial-order reduction ignores them.
 */
#define MSIM__ACCESS_KIND_MASK 0xff
#define MSIM__ACCESS_SIZE_SHIFT 8
#define MSIM__ACCESS_PTR 0x10000
#define MSIM_ACCESS_VAL(p)                                                        \
	((__builtin_classify_type(*(p)) == 5 ? MSIM__ACCESS_PTR : 0) |             \
	 ((int)sizeof(*(p)) << MSIM__ACCESS_SIZE_SHIFT))

/*
 * Preemption (the host's preemption model, sim.h). Under preempt=none a task parked
 * at an ordinary yield point holds its CPU and holds off RCU grace periods: the
 * kernel could not have switched away from it there. These mark the places where
 * the kernel does, or cannot, switch; under preempt=unmodelled they change
 * nothing, so a layer may use them freely:
 *
 * void msim_cond_resched(const char *name);
 *   A named yield point (as msim_yield(name): same name in schedules, traces and
 *   scripts) that is also a voluntary scheduling point, the kernel's
 *   cond_resched(): under preempt=none, outside spinlocks, msim_preempt_disable()
 *   and read-side sections, the task parked here lets another task of its CPU
 *   run and passes a quiescent state.
 *
 * void msim_cond_resched_access(const char *name, const volatile void *addr, int kind);
 *   The same point, saying what the step resumed from it touches (addr, kind), as
 *   msim_yield_access() says it for msim_yield(): same schedules, same trace hash;
 *   only partial-order reduction reads the access. msim_cond_resched(name)
 *   touches everything. Under preempt=none and full the point may hand the CPU
 *   over, which DPOR orders by itself (two tasks of one CPU are dependent).
 *
 * void msim_preempt_disable(void);
 * void msim_preempt_enable(void);
 *   The kernel's preempt_disable()/preempt_enable() (and what get_cpu()/put_cpu()
 *   and a this_cpu operation imply). They nest, and are no yield points: a task
 *   parked between them cannot be preempted under any model that models
 *   preemption, so no other task of its CPU runs and a grace period that began
 *   meanwhile waits for it (under preempt=full as under none). Spinlocks
 *   (lock.h) disable preemption from the moment they are taken, spinning
 *   included, to the moment they are released. A task must not end inside.
 */

/*
 * The yield context: what the yield points of a stretch of code are *for*. A name
 * says where in the code a task stopped ("rstat.flush.memcg"); the context says on
 * which object, CPU and node, so a script can stop "at rstat.flush.memcg for mid"
 * (msim_run_until_ctx(), script.h) instead of counting occurrences.
 *
 * A layer sets it around a loop body or a call, at no cost to the yield points
 * inside (they stay one branch) and with no effect on the schedule: entering and
 * leaving a context is no yield point, the trace hash does not see it, and every
 * pick of every strategy stays the same. Contexts nest; the innermost is the one
 * a parked task reports (msim_task_where(), script.h):
 *
 *   struct msim_yield_ctx yc = { .object = memcg, .cpu = (int)cpu, .nid = -1 };
 *   const struct msim_yield_ctx *prev = msim_yield_ctx_enter(&yc);
 *   ... code with yield points; it may change yc's fields as it goes ...
 *   msim_yield_ctx_leave(prev);
 *
 * yc must stay alive until the matching leave (a local variable of the scope is
 * the usual place). Outside a deterministic task both calls do nothing: the
 * context is only observable where a task can be parked.
 *
 * Which layers set which context is written where their yield points are listed
 * (rstat.h: the memcg and the CPU whose data the code touches).
 */
struct msim_yield_ctx {
	const void *object;   /* the layer's public object (rstat: struct msim_memcg *), or NULL */
	int cpu;              /* the CPU whose data is touched (a flush visits each), or -1 */
	int nid;              /* the NUMA node, or -1 */
};

#define MSIM_YIELD_CTX_NONE { 0, -1, -1 }

/*
 * const struct msim_yield_ctx *msim_yield_ctx_enter(const struct msim_yield_ctx *ctx);
 *   Make ctx the running task's context; returns the previous one, for leave.
 * void msim_yield_ctx_leave(const struct msim_yield_ctx *prev);
 *   Put back the context that enter returned.
 */

#ifdef __cplusplus
}
#endif

#include <memcgsim/static/yield.h>

#endif /* MEMCGSIM_YIELD_H */
