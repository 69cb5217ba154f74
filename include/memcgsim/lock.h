/* SPDX-License-Identifier: MIT */
/*
 * lock.h - the kernel's sleeping and spinning locks (struct mutex, spinlock_t).
 *
 * One model serves both. Deterministic mode: taking a lock is a yield point
 * ("lock"), and so is releasing it ("unlock": a waiter may run before the releaser
 * goes on); a contended lock blocks the task and the scheduler picks another; a
 * deadlock is reported with every blocked task and the lock it waits for
 * (msim_deadlock_report(), explore.h). Concurrent mode: a pthread mutex, which
 * TSan sees.
 *
 * The driver (code outside tasks) may take a lock too. In deterministic mode it
 * must not find it held by a parked task (that task cannot run meanwhile: the
 * process aborts with a message naming both); msim_destroy() takes over locks of
 * tasks parked for good.
 */
#ifndef MEMCGSIM_LOCK_H
#define MEMCGSIM_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct msim_task;

struct msim_lock {
	const char *name;
	struct msim_task *owner;  /* deterministic mode */
	void *impl;               /* concurrent mode: a pthread mutex */
	uint64_t contended;       /* times a taker found it held */
};

/* A static name is enough; a lock needs msim_lock_init before use. */
void msim_lock_init(struct msim_lock *l, const char *name);
void msim_lock_destroy(struct msim_lock *l);
void msim_lock(struct msim_lock *l);
bool msim_trylock(struct msim_lock *l);
void msim_unlock(struct msim_lock *l);
bool msim_lock_held_by_me(const struct msim_lock *l);

/* The kernel's spinlock_t and struct mutex are the same model here. */
#define msim_spin_lock msim_lock
#define msim_spin_unlock msim_unlock
#define msim_mutex_lock msim_lock
#define msim_mutex_unlock msim_unlock

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_LOCK_H */
