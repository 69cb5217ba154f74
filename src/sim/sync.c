/* SPDX-License-Identifier: MIT */
/*
 * sync.c - locks, RCU and per-CPU memory, in both run modes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _LGPL_SOURCE
#include <urcu.h>

#include "internal.h"
#include "lock_impl.h"

#if defined(MSIM_TSAN)
#include <sanitizer/tsan_interface.h>
/* liburcu is not instrumented: tell TSan that a grace period orders the
 * read-side sections before it against the code after it. */
static char tsan_gp_token;
#define TSAN_RELEASE() __tsan_release(&tsan_gp_token)
#define TSAN_ACQUIRE() __tsan_acquire(&tsan_gp_token)
#else
#define TSAN_RELEASE() do { } while (0)
#define TSAN_ACQUIRE() do { } while (0)
#endif

_Static_assert(sizeof(struct rcu_head) <= sizeof(((struct msim_rcu_head *)0)->impl),
	       "liburcu rcu_head does not fit msim_rcu_head.impl");

/* ---- locks ---- */

static void lock_init(struct msim_lock *l, const char *name, bool queued_spinlock)
{
	memset(l, 0, sizeof(*l));
	l->name = name;
	l->impl = msim__lock_impl_new(queued_spinlock);
}

void msim_lock_init(struct msim_lock *l, const char *name)
{
	lock_init(l, name, false);
}

void msim_spin_lock_init(struct msim_lock *l, const char *name)
{
	lock_init(l, name, true);
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
	return msim__det_active && msim__tls_task;
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

static void lock_det_task(struct msim_lock *l, struct msim_task *t)
{
	msim_yield("lock");
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

void msim_lock(struct msim_lock *l)
{
	struct msim *m = msim__tls_task ? msim__tls_task->host : msim__tls_host;

	if (det_task()) {
		lock_det_task(l, msim__tls_task);
		return;
	}
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
	msim__lock_impl_lock(l->impl);
	owner_set(l, me());
	if (msim__tls_task)
		msim__tls_task->locks_held++;
}

bool msim_trylock(struct msim_lock *l)
{
	if (det_task()) {
		msim_yield("trylock");
		if (owner_get(l))
			return false;
		owner_set(l, msim__tls_task);
		msim__tls_task->locks_held++;
		return true;
	}
	if (owner_get(l) == &driver_owner || !msim__lock_impl_trylock(l->impl))
		return false;
	if (owner_get(l)) { /* held by a parked deterministic task */
		msim__lock_impl_unlock(l->impl);
		return false;
	}
	owner_set(l, me());
	if (msim__tls_task)
		msim__tls_task->locks_held++;
	return true;
}

void msim_unlock(struct msim_lock *l)
{
	if (msim__tls_task && owner_get(l) == msim__tls_task)
		msim__tls_task->locks_held--;
	if (owner_get(l) != me()) {
		fprintf(stderr, "memcgsim: %s releases lock %s it does not hold\n", me()->name,
			l->name ? l->name : "?");
		abort();
	}
	if (det_task()) {
		owner_set(l, NULL);
		/* Releasing is a window too: a waiter may run before the releaser goes on. */
		msim_yield("unlock");
		return;
	}
	owner_set(l, NULL);
	msim__lock_impl_unlock(l->impl);
}

bool msim_lock_held_by_me(const struct msim_lock *l)
{
	return owner_get(l) == me();
}

/* ---- RCU ---- */

static __thread bool urcu_registered;
static __thread int driver_nesting_conc;

void msim__rcu_thread_online(void)
{
	if (!urcu_registered) {
		rcu_register_thread();
		urcu_registered = true;
	}
}

void msim__rcu_thread_offline(void)
{
	if (urcu_registered) {
		rcu_unregister_thread();
		urcu_registered = false;
	}
}

static struct msim *det_host(void)
{
	struct msim *m = msim__tls_task ? msim__tls_task->host : msim__tls_host;

	return msim__det(m) ? m : NULL;
}

/*
 * Outside tasks, a read-side section is closed on the engine that opened it,
 * even if the driver's current host changed in between (liburcu is NULL).
 */
static __thread struct msim *outer_engine;
static __thread int outer_depth;

static void unbalanced(const char *who)
{
	fprintf(stderr, "memcgsim: %s: rcu_read_unlock without rcu_read_lock\n", who);
	abort();
}

void msim_rcu_read_lock(void)
{
	struct msim *m = msim__tls_task || !outer_depth ? det_host() : outer_engine;

	if (!msim__tls_task && outer_depth++ == 0)
		outer_engine = m;
	if (!m) {
		msim__rcu_thread_online();
		rcu_read_lock();
		driver_nesting_conc++;
		return;
	}
	msim_yield("rcu_read_lock");
	if (msim__tls_task) {
		if (!msim__tls_task->rcu_nesting++)
			msim__tls_task->rcu_section++;
	} else if (!m->rcu.driver.rcu_nesting++) {
		m->rcu.driver.rcu_section++;
	}
}

void msim_rcu_read_unlock(void)
{
	struct msim *m = det_host();

	if (!msim__tls_task) {
		if (outer_depth <= 0)
			unbalanced("the driver");
		m = outer_engine;
		outer_depth--;
	}
	if (!m) {
		driver_nesting_conc--;
		TSAN_RELEASE();
		rcu_read_unlock();
		return;
	}
	if (msim__tls_task) {
		if (msim__tls_task->rcu_nesting <= 0)
			unbalanced(msim__tls_task->name);
		msim__tls_task->rcu_nesting--;
	} else {
		if (m->rcu.driver.rcu_nesting <= 0)
			unbalanced("the driver");
		m->rcu.driver.rcu_nesting--;
	}
	msim_yield("rcu_read_unlock");
}

bool msim_rcu_read_lock_held(void)
{
	struct msim *m = det_host();

	if (!m)
		return driver_nesting_conc > 0;
	return msim__tls_task ? msim__tls_task->rcu_nesting > 0 : m->rcu.driver.rcu_nesting > 0;
}

void msim_synchronize_rcu(void)
{
	struct msim *m = det_host();

	if (!m) {
		msim__rcu_thread_online();
		synchronize_rcu();
		TSAN_ACQUIRE();
		return;
	}
	if (msim_rcu_read_lock_held()) {
		fprintf(stderr, "memcgsim: synchronize_rcu inside a read-side section\n");
		abort();
	}
	uint64_t need = msim__rcu_det_request_gp(m);
	if (msim__det_active && msim__tls_task) {
		msim__tls_task->wait_seq = need;
		while (m->rcu.gp_completed < need)
			msim__task_block(msim__tls_task, MSIM_WAIT_GP);
		return;
	}
	/* The driver: end grace periods now (no task may be parked in a section). */
	while (m->rcu.gp_completed < need) {
		if (!msim__rcu_det_step(m)) {
			fprintf(stderr, "memcgsim: driver synchronize_rcu while a task is parked in a "
					"read-side section: step it out first\n");
			abort();
		}
	}
}

static void urcu_trampoline(struct rcu_head *impl)
{
	struct msim_rcu_head *h = msim_container_of((void *)impl, struct msim_rcu_head, impl);

	/* liburcu's call_rcu thread is registered already: callbacks may use RCU. */
	urcu_registered = true;
	TSAN_ACQUIRE();
	h->func(h);
	TSAN_RELEASE();
}

void msim_call_rcu(struct msim_rcu_head *head, void (*func)(struct msim_rcu_head *head))
{
	struct msim *m = det_host();

	head->func = func;
	head->next = NULL;
	if (!m) {
		msim__rcu_thread_online();
		TSAN_RELEASE();
		call_rcu((struct rcu_head *)head->impl, urcu_trampoline);
		return;
	}
	head->host = m;
	head->gp_needed = msim__rcu_det_request_gp(m);
	*m->rcu.cb_tail = head;
	m->rcu.cb_tail = &head->next;
	m->rcu.cbs_queued++;
}

void msim_rcu_barrier(void)
{
	struct msim *m = det_host();

	if (!m) {
		msim__rcu_thread_online();
		rcu_barrier();
		TSAN_ACQUIRE();
		return;
	}
	uint64_t need = m->rcu.cbs_queued;
	if (msim__det_active && msim__tls_task) {
		msim__tls_task->wait_seq = need;
		while (m->rcu.cbs_done < need)
			msim__task_block(msim__tls_task, MSIM_WAIT_BARRIER);
		return;
	}
	while (m->rcu.cbs_done < need) {
		if (!msim__rcu_det_step(m)) {
			fprintf(stderr, "memcgsim: driver rcu_barrier while a task is parked in a "
					"read-side section: step it out first\n");
			abort();
		}
	}
}

/* ---- per-CPU memory ---- */

struct percpu_hdr {
	size_t stride;
	size_t size;
	unsigned int nr;
	const char *owner;
	uint64_t magic;
};

#define PERCPU_MAGIC 0x7065726370755f31ULL
#define PERCPU_HDR 64

void *msim_alloc_percpu(struct msim *m, size_t size, const char *owner)
{
	size_t stride = (size + 63) & ~(size_t)63;
	unsigned int nr = m->cfg.nr_cpus;
	char *raw;

	if (!size)
		return NULL;
	if (posix_memalign((void **)&raw, 64, PERCPU_HDR + stride * nr))
		return NULL;
	memset(raw, 0, PERCPU_HDR + stride * nr);
	struct percpu_hdr *h = (struct percpu_hdr *)raw;
	h->stride = stride;
	h->size = size;
	h->nr = nr;
	h->owner = owner;
	h->magic = PERCPU_MAGIC;
	msim_kmem_percpu_charge(m, size * nr, owner);
	return raw + PERCPU_HDR;
}

static struct percpu_hdr *percpu_hdr(const void *base)
{
	struct percpu_hdr *h = (struct percpu_hdr *)((char *)base - PERCPU_HDR);

	if (h->magic != PERCPU_MAGIC) {
		fprintf(stderr, "memcgsim: %p is not a per-CPU allocation\n", base);
		abort();
	}
	return h;
}

void msim_free_percpu(struct msim *m, void *base)
{
	if (!base)
		return;
	struct percpu_hdr *h = percpu_hdr(base);
	msim_kmem_percpu_uncharge(m, h->size * h->nr, h->owner);
	h->magic = 0;
	free(h);
}

void *msim_per_cpu_ptr(const void *base, unsigned int cpu)
{
#ifndef NDEBUG
	struct percpu_hdr *h = percpu_hdr(base);
	if (cpu >= h->nr) {
		fprintf(stderr, "memcgsim: CPU %u beyond the %u possible CPUs\n", cpu, h->nr);
		abort();
	}
	return (char *)base + (size_t)cpu * h->stride;
#else
	const struct percpu_hdr *h = (const struct percpu_hdr *)((const char *)base - PERCPU_HDR);
	return (char *)base + (size_t)cpu * h->stride;
#endif
}
