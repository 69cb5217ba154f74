/* SPDX-License-Identifier: MIT */
/*
 * lock.h - the kernel's sleeping and spinning locks (struct mutex, spinlock_t),
 * and the quiet spinlock of the simulator's own bookkeeping.
 *
 * struct msim_lock models both kernel locks. Deterministic mode, either kind:
 * taking a lock is a yield point ("lock"), and so is releasing it ("unlock": a
 * waiter may run before the releaser goes on); a contended lock blocks the task
 * and the scheduler picks another; a deadlock is reported with every blocked task
 * and the lock it waits for (msim_deadlock_report(), explore.h). Concurrent mode,
 * where the two kinds differ as the kernel's do:
 *  - msim_lock_init() (also spelt msim_mutex_init()): struct mutex, a pthread
 *    mutex; a waiter sleeps.
 *  - msim_spin_lock_init(): spinlock_t, the kernel's queued spinlock (qspinlock),
 *    an MCS queue lock (Concurrency Kit's ck_spinlock_mcs): waiters spin, each on
 *    its own queue node, and take the lock in arrival order. Its queue nodes are
 *    per thread, as the kernel's are per CPU. TSan cannot see ck's inline
 *    assembly, so acquiring and releasing are annotated for it.
 *
 * The driver (code outside tasks) may take a lock too. In deterministic mode it
 * must not find it held by a parked task (that task cannot run meanwhile: the
 * process aborts with a message naming both); msim_destroy() takes over locks of
 * tasks parked for good.
 */
#ifndef MEMCGSIM_LOCK_H
#define MEMCGSIM_LOCK_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct msim_task;

struct msim_lock {
	const char *name;
	/* Its lock class for the lock-order checker (lockdep.h): the name, unless
	 * msim_lock_init_class() gave another. */
	const char *lock_class;
	struct msim_task *owner;  /* deterministic mode */
	void *impl;               /* concurrent mode: a pthread mutex or an MCS lock */
	uint64_t contended;       /* times a taker found it held */
};

/* A static name is enough; a lock needs an init before use. */
MSIM_API void msim_lock_init(struct msim_lock *l, const char *name);
MSIM_API void msim_spin_lock_init(struct msim_lock *l, const char *name);
#define msim_mutex_init msim_lock_init
/*
 * The same, in lock class class_name (lockdep.h): locks of one class are one
 * node of the lock-order graph, as the kernel's lockdep keys make them. Every
 * plain init uses its name as its class, so each init site of the tree, which
 * passes its own static name, is a class of its own.
 */
MSIM_API void msim_lock_init_class(struct msim_lock *l, const char *name, const char *class_name);
MSIM_API void msim_spin_lock_init_class(struct msim_lock *l, const char *name,
					const char *class_name);
MSIM_API void msim_lock_destroy(struct msim_lock *l);
MSIM_API void msim_lock(struct msim_lock *l);
MSIM_API bool msim_trylock(struct msim_lock *l);
MSIM_API void msim_unlock(struct msim_lock *l);
MSIM_API bool msim_lock_held_by_me(const struct msim_lock *l);
/*
 * The kernel's spin_lock_nested()/mutex_lock_nested(): msim_lock() (the same
 * yield points, the same schedules), telling the lock-order checker that this
 * lock nests inside another lock of its own class (subclass 1..7, the kernel's
 * SINGLE_DEPTH_NESTING is 1): a parent's lru_lock taken under a child's.
 */
#define MSIM_SINGLE_DEPTH_NESTING 1
MSIM_API void msim_lock_nested(struct msim_lock *l, unsigned int subclass);

/* The kernel's spinlock_t and struct mutex are the same model here. */
#define msim_spin_lock msim_lock
#define msim_spin_unlock msim_unlock
#define msim_mutex_lock msim_lock
#define msim_mutex_unlock msim_unlock
#define msim_spin_lock_nested msim_lock_nested
#define msim_mutex_lock_nested msim_lock_nested

/*
 * The quiet spinlock: a lock around a few plain memory operations of the
 * simulator's bookkeeping (a list of every memcg, a hook table), never a model of
 * a kernel lock. Like the quiet atomics (atomic.h) it is no yield point, so it
 * takes no part in schedules, and it may be taken anywhere: tasks, the driver,
 * RCU callbacks. No yield point may sit inside its critical sections: in
 * deterministic mode nobody can then find it held, and finding it held aborts
 * with a message. In concurrent mode a waiter gives its CPU away while it waits,
 * because simulated CPUs outnumber real ones and the holder may be descheduled.
 * Zero-initialised (or MSIM_QUIET_SPINLOCK_INIT) is unlocked.
 */
struct msim_quiet_spinlock {
	unsigned int word;        /* a Concurrency Kit fetch-and-store lock */
};
#define MSIM_QUIET_SPINLOCK_INIT { 0 }

MSIM_API void msim_quiet_spin_lock(struct msim_quiet_spinlock *l);
MSIM_API void msim_quiet_spin_unlock(struct msim_quiet_spinlock *l);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_LOCK_H */
