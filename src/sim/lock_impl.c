/* SPDX-License-Identifier: MIT */
/*
 * lock_impl.c - the real locks behind the lock models (lock.h): the concurrent
 * mode of struct msim_lock, and the quiet spinlock.
 *
 * spinlock_t is the kernel's queued spinlock: an MCS lock, in which each waiter
 * spins on a flag in its own queue node and the holder hands the lock to the
 * next node at unlock, so waiters are served in arrival order and spin on their
 * own cache line. Concurrency Kit's ck_spinlock_mcs is that algorithm, and its
 * queue (ck_spinlock_mcs_t, its nodes, trylock and unlock) is used as is. Only
 * the wait differs: here simulated CPUs are threads and outnumber the real ones,
 * so a waiter whose predecessor is descheduled would spin away whole time slices
 * (a 4-thread test on 2 busy cores took minutes instead of a second). The kernel
 * meets the same problem in virtual machines and answers it with the paravirt
 * qspinlock: spin a while, then give the CPU back (pv_wait_node). mcs_lock()
 * below does that: it joins the queue exactly as ck_spinlock_mcs_lock() does,
 * then spins SPIN_THRESHOLD times before it starts yielding between checks.
 *
 * ck keeps a holder's node linked until its unlock (the kernel frees it once the
 * lock is taken), so a thread needs one node per spinlock it holds at once: a
 * small per-thread pool stands in for the kernel's per-CPU qnodes.
 *
 * struct mutex is a pthread mutex: its waiters sleep.
 *
 * The quiet spinlock is ck's fetch-and-store lock (ck_spinlock_fas).
 *
 * TSan cannot see ck's inline assembly: without help it would miss the order
 * that a lock hand-over creates and report every protected access as a race. So
 * the holder announces the hand-over on the lock's address, __tsan_release()
 * before it lets go and __tsan_acquire() once it holds it, as the liburcu pieces
 * of rcu.c announce grace periods.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <ck_spinlock.h>

#include "current.h"
#include "lock_impl.h"

#if defined(MSIM_TSAN)
#include <sanitizer/tsan_interface.h>
#define TSAN_ACQUIRE(addr) __tsan_acquire(addr)
#define TSAN_RELEASE(addr) __tsan_release(addr)
#else
#define TSAN_ACQUIRE(addr) do { } while (0)
#define TSAN_RELEASE(addr) do { } while (0)
#endif

struct msim__lock_impl {
	bool queued;
	pthread_mutex_t mutex;
	ck_spinlock_mcs_t tail;                 /* the MCS queue: NULL when free */
	ck_spinlock_mcs_context_t *holder;      /* the holder's node (only it reads it) */
};

/* ---- queue nodes: one per spinlock a thread holds ---- */

#define QNODES 16

static __thread ck_spinlock_mcs_context_t qnodes[QNODES];
static __thread unsigned int qnodes_used;   /* bit i: qnodes[i] is in a queue */

static ck_spinlock_mcs_context_t *qnode_get(void)
{
	unsigned int i;

	if (qnodes_used == (1u << QNODES) - 1) {
		fprintf(stderr, "memcgsim: a thread holds more than %d spinlocks at once\n", QNODES);
		abort();
	}
	i = (unsigned int)__builtin_ctz(~qnodes_used);
	qnodes_used |= 1u << i;
	return &qnodes[i];
}

static void qnode_put(ck_spinlock_mcs_context_t *node)
{
	qnodes_used &= ~(1u << (unsigned int)(node - qnodes));
}

/* ---- the queued spinlock ---- */

#define SPIN_THRESHOLD 1024

/*
 * Enqueue node at the tail; if a predecessor was there, link behind it and wait
 * until it hands over (clears node->locked). The ordering is ck's: the node is
 * initialised before the exchange publishes it, and the critical section starts
 * after the lock fence.
 */
static void mcs_lock(ck_spinlock_mcs_t *tail, ck_spinlock_mcs_context_t *node)
{
	ck_spinlock_mcs_context_t *prev;
	unsigned int spins = 0;

	node->locked = true;
	node->next = NULL;
	ck_pr_fence_store_atomic();
	prev = ck_pr_fas_ptr(tail, node);
	if (prev) {
		ck_pr_store_ptr(&prev->next, node);
		while (ck_pr_load_uint(&node->locked)) {
			if (spins < SPIN_THRESHOLD) {
				spins++;
				ck_pr_stall();
			} else {
				sched_yield();
			}
		}
	}
	ck_pr_fence_lock();
}

/* ---- struct msim_lock in concurrent mode ---- */

struct msim__lock_impl *msim__lock_impl_new(bool queued_spinlock)
{
	struct msim__lock_impl *impl = calloc(1, sizeof(*impl));

	if (!impl)
		abort();
	impl->queued = queued_spinlock;
	if (queued_spinlock)
		ck_spinlock_mcs_init(&impl->tail);
	else
		pthread_mutex_init(&impl->mutex, NULL);
	return impl;
}

bool msim__lock_impl_spins(const struct msim__lock_impl *impl)
{
	return impl && impl->queued;
}

void msim__lock_impl_free(struct msim__lock_impl *impl)
{
	if (!impl->queued)
		pthread_mutex_destroy(&impl->mutex);
	free(impl);
}

void msim__lock_impl_lock(struct msim__lock_impl *impl)
{
	ck_spinlock_mcs_context_t *node;

	if (!impl->queued) {
		pthread_mutex_lock(&impl->mutex);
		return;
	}
	node = qnode_get();
	mcs_lock(&impl->tail, node);
	TSAN_ACQUIRE(impl);
	impl->holder = node;
}

bool msim__lock_impl_trylock(struct msim__lock_impl *impl)
{
	ck_spinlock_mcs_context_t *node;

	if (!impl->queued)
		return pthread_mutex_trylock(&impl->mutex) == 0;
	node = qnode_get();
	if (!ck_spinlock_mcs_trylock(&impl->tail, node)) {
		qnode_put(node);
		return false;
	}
	TSAN_ACQUIRE(impl);
	impl->holder = node;
	return true;
}

void msim__lock_impl_unlock(struct msim__lock_impl *impl)
{
	ck_spinlock_mcs_context_t *node;

	if (!impl->queued) {
		pthread_mutex_unlock(&impl->mutex);
		return;
	}
	node = impl->holder;
	TSAN_RELEASE(impl);
	ck_spinlock_mcs_unlock(&impl->tail, node);
	qnode_put(node);
}

/* ---- the quiet spinlock ---- */

_Static_assert(sizeof(ck_spinlock_fas_t) == sizeof(((struct msim_quiet_spinlock *)0)->word),
	       "ck_spinlock_fas_t must fit msim_quiet_spinlock.word");

static ck_spinlock_fas_t *fas_of(struct msim_quiet_spinlock *l)
{
	return (ck_spinlock_fas_t *)&l->word;
}

/* On this thread runs a deterministic host: its tasks, or its driver. */
static bool on_deterministic_thread(void)
{
	return msim_yield_det_active || msim__det(msim__tls_host);
}

void msim_quiet_spin_lock(struct msim_quiet_spinlock *l)
{
	while (!ck_spinlock_fas_trylock(fas_of(l))) {
		if (on_deterministic_thread()) {
			/* One thread runs the whole host: the holder is parked inside. */
			fprintf(stderr, "memcgsim: a quiet spinlock is held across a yield point\n");
			abort();
		}
		while (ck_spinlock_fas_locked(fas_of(l)))
			sched_yield();
	}
	TSAN_ACQUIRE(l);
}

void msim_quiet_spin_unlock(struct msim_quiet_spinlock *l)
{
	TSAN_RELEASE(l);
	ck_spinlock_fas_unlock(fas_of(l));
}
