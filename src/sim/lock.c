/* SPDX-License-Identifier: MIT */
/*
 * lock.c - the lock models (lock.h) in both run modes. Deterministic tasks never
 * touch the real lock: ownership is the owner field, and a contended lock blocks
 * the task in the scheduler. The driver, and every thread in concurrent mode,
 * take the real lock (lock_impl.c) and record themselves as owner.
 *
 * For the preemption model (sim.h, preempt.c) the two kinds differ in
 * deterministic mode too: a spinlock disables preemption from the moment it is
 * taken, spinning included, until it is released (spin_lock() is
 * preempt_disable() and then the spin), while a task that waits for a mutex
 * sleeps, which is a voluntary scheduling point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/lock.h>
#include <memcgsim/yield.h>

#include "access.h"
#include "current.h"
#include "lock_impl.h"
#include "lockdep.h"
#include "sched.h"
#include "storebuf.h"

static void lock_init(struct msim_lock *l, const char *name, const char *class_name,
		      bool queued_spinlock)
{
	memset(l, 0, sizeof(*l));
	l->name = name;
	l->lock_class = class_name;
	l->impl = msim__lock_impl_new(queued_spinlock);
}

void msim_lock_init(struct msim_lock *l, const char *name)
{
	lock_init(l, name, name, false);
}

void msim_spin_lock_init(struct msim_lock *l, const char *name)
{
	lock_init(l, name, name, true);
}

void msim_lock_init_class(struct msim_lock *l, const char *name, const char *class_name)
{
	lock_init(l, name, class_name ? class_name : name, false);
}

void msim_spin_lock_init_class(struct msim_lock *l, const char *name, const char *class_name)
{
	lock_init(l, name, class_name ? class_name : name, true);
}

void msim_lock_destroy(struct msim_lock *l)
{
	if (l->impl) {
		msim__lock_impl_free(l->impl);
		l->impl = NULL;
	}
}

/* The owner field is read by other threads in concurrent mode (held_by_me). */
static inline struct msim_task *owner_get(const struct msim_lock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
}

static inline void owner_set(struct msim_lock *l, struct msim_task *t)
{
	__atomic_store_n(&l->owner, t, __ATOMIC_RELAXED);
}

static inline bool det_task(void)
{
	return msim_yield_det_active && msim__tls_task;
}

/*
 * Code outside tasks owns locks as its thread's sentinel: the driver, and in
 * concurrent mode liburcu's callback thread, are different owners.
 */
static __thread struct msim_task driver_owner = { .name = "driver" };

static struct msim_task *me(void)
{
	return msim__tls_task ? msim__tls_task : &driver_owner;
}

/*
 * The host whose lock order is being checked (lockdep.c), or NULL. A host's
 * teardown takes over and releases locks in no kernel order: it is not recorded.
 */
static struct msim *lockdep_host(void)
{
	struct msim *m = msim__tls_task ? msim__tls_task->host : msim__tls_host;

	return m && m->lockdep && !m->destroying ? m : NULL;
}

/*
 * Weak memory models (storebuf.h): an acquire is a locked read-modify-write, so
 * the CPU's store buffer drains first (also under pso, where an acquire need not
 * wait for older stores: a simplification that forbids a store before the lock
 * passing into the section). A release under pso goes into the buffer behind
 * the section's stores, so the lock stays held (owner set) until it drains.
 */
static void wmm_acquire(struct msim_task *t)
{
	if (t->host->wmm)
		msim__wmm_drain_all(t->host, t->cpu);
}

static void wmm_release_now(void *arg)
{
	owner_set(arg, NULL);
}

/* A task's own release of l still waits in a store buffer (pso): it holds l no more. */
static bool released_already(const struct msim_lock *l)
{
	return det_task() && msim__wmm_release_pending(msim__tls_task->host, l);
}

static bool wmm_release(struct msim_lock *l)
{
	struct msim_task *t = msim__tls_task;

	return t->host->wmm && msim__wmm_release(t->host, t->cpu, wmm_release_now, l);
}

/*
 * The driver takes a lock while a task's release of it may still wait in a store
 * buffer (pso): every buffer drains first, each drain a recorded step as if the
 * script had asked for it (msim_store_buffer_drain), so the run still replays.
 */
static void wmm_driver_settle(struct msim *m)
{
	for (unsigned int cpu = 0; m->wmm && cpu < m->cfg.nr_cpus; cpu++)
		while (msim__wmm_pending(m, cpu))
			msim__sched_pick(m, MSIM_PICK_DRAIN(cpu, 0));
}

static void lockdep_acquire(struct msim_lock *l, unsigned int subclass, bool trylock)
{
	struct msim *m = lockdep_host();

	if (m)
		msim__lockdep_acquire(m, msim__tls_task, l, subclass, trylock);
}

static void lock_det_task(struct msim_lock *l, struct msim_task *t, unsigned int subclass)
{
	/* Checked before the wait, as the kernel's lockdep: a run that deadlocks here
	 * has recorded the dependency that closes the cycle. */
	lockdep_acquire(l, subclass, false);
	msim_yield_access("lock", l, MSIM_ACCESS_RMW);
	wmm_acquire(t);
	if (msim__lock_impl_spins(l->impl))
		t->preempt_off++;   /* spin_lock(): preempt_disable(), then spin */
	while (owner_get(l)) {
		if (owner_get(l) == t) {
			fprintf(stderr, "memcgsim: task %s takes lock %s it already holds\n",
				t->name, l->name ? l->name : "?");
			abort();
		}
		l->contended++;
		t->wait_lock = l;
		msim__task_block(t, MSIM_WAIT_LOCK);
	}
	t->wait_lock = NULL;
	owner_set(l, t);
	t->locks_held++;
}

static void lock_nested(struct msim_lock *l, unsigned int subclass)
{
	struct msim *m = msim__tls_task ? msim__tls_task->host : msim__tls_host;

	if (det_task()) {
		lock_det_task(l, msim__tls_task, subclass);
		return;
	}
	/* an RCU callback in a recorded engine step (access.h): its lock ops are the step's */
	msim__access_note(l, MSIM_ACCESS_RMW);
	if (msim__det(m) && owner_get(l) && !msim__tls_task)
		wmm_driver_settle(m);
	if (msim__det(m) && owner_get(l) && m->destroying && owner_get(l)->host == m &&
	    owner_get(l)->state != MSIM_TASK_DONE) {
		/* Tearing down a host whose task is parked for good holding it: take over
		 * (deterministic tasks never lock the mutex itself, so it is free). */
		msim__lock_impl_lock(l->impl);
		owner_set(l, me());
		return;
	}
	if (msim__det(m) && owner_get(l)) {
		/* Deterministic driver: a parked task holds it and cannot run meanwhile. */
		fprintf(stderr, "memcgsim: the driver takes lock %s held by parked task %s: "
				"step that task past its unlock first\n",
			l->name ? l->name : "?", owner_get(l)->name);
		abort();
	}
	lockdep_acquire(l, subclass, false);
	msim__lock_impl_lock(l->impl);
	owner_set(l, me());
	if (msim__tls_task)
		msim__tls_task->locks_held++;
}

void msim_lock(struct msim_lock *l)
{
	lock_nested(l, 0);
}

void msim_lock_nested(struct msim_lock *l, unsigned int subclass)
{
	lock_nested(l, subclass);
}

bool msim_trylock(struct msim_lock *l)
{
	if (det_task()) {
		msim_yield_access("trylock", l, MSIM_ACCESS_RMW);
		wmm_acquire(msim__tls_task);
		if (owner_get(l))
			return false;
		owner_set(l, msim__tls_task);
		msim__tls_task->locks_held++;
		if (msim__lock_impl_spins(l->impl))
			msim__tls_task->preempt_off++;
		lockdep_acquire(l, 0, true);
		return true;
	}
	msim__access_note(l, MSIM_ACCESS_RMW); /* as in lock_nested */
	if (owner_get(l) == &driver_owner || !msim__lock_impl_trylock(l->impl))
		return false;
	if (owner_get(l)) { /* held by a parked deterministic task */
		msim__lock_impl_unlock(l->impl);
		return false;
	}
	owner_set(l, me());
	if (msim__tls_task)
		msim__tls_task->locks_held++;
	lockdep_acquire(l, 0, true);
	return true;
}

void msim_unlock(struct msim_lock *l)
{
	struct msim *ldm = lockdep_host();

	if (ldm && owner_get(l) == me())
		msim__lockdep_release(ldm, msim__tls_task, l);
	if (msim__tls_task && owner_get(l) == msim__tls_task)
		msim__tls_task->locks_held--;
	if (owner_get(l) != me() || released_already(l)) {
		fprintf(stderr, "memcgsim: %s releases lock %s it does not hold\n", me()->name,
			l->name ? l->name : "?");
		abort();
	}
	if (det_task()) {
		msim__access_note(l, MSIM_ACCESS_RMW); /* the release is this step's */
		if (!wmm_release(l))
			owner_set(l, NULL);
		if (msim__lock_impl_spins(l->impl))
			msim__tls_task->preempt_off--;
		/* Releasing is a window too: a waiter may run before the releaser goes on. */
		msim_yield_access("unlock", l, MSIM_ACCESS_NONE);
		return;
	}
	msim__access_note(l, MSIM_ACCESS_RMW); /* as in lock_nested */
	owner_set(l, NULL);
	msim__lock_impl_unlock(l->impl);
}

bool msim_lock_held_by_me(const struct msim_lock *l)
{
	return owner_get(l) == me();
}

