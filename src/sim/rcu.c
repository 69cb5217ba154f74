/* SPDX-License-Identifier: MIT */
/*
 * rcu.c - RCU (rcu.h) in both run modes: liburcu (urcu-memb) in concurrent mode
 * and outside deterministic hosts, the scheduler's grace-period engine
 * (rcu_det.c) in deterministic mode.
 */
#include <stdio.h>
#include <stdlib.h>

#define _LGPL_SOURCE
#include <urcu.h>

#include <memcgsim/rcu.h>
#include <memcgsim/yield.h>

#include "access.h"
#include "current.h"
#include "rcu.h"
#include "rcu_det.h"
#include "sched.h"

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
	/* DPOR: readers commute with readers, not with a grace period's start */
	msim_yield_access("rcu_read_lock", msim__rcu_readers(m), MSIM_ACCESS_LOAD);
	if (msim__tls_task) {
		if (!msim__tls_task->rcu_nesting++)
			msim__tls_task->rcu_section++;
	} else if (!m->rcu.driver.rcu_nesting++) {
		m->rcu.driver.rcu_section++;
	}
}

/*
 * A read-side exit, for partial-order reduction (access.h): it loads the
 * readers' state, which a grace period's start stores (its snapshot). Leaving
 * a section the running grace period waits for is what lets that grace period
 * end: it also loads the grace-period state the engine's step stores, so the
 * end is ordered after it. Other exits and every entry commute with an end that
 * starts no new grace period (the end reads only the snapshotted readers).
 */
static void note_exit(struct msim *m)
{
	bool waited = msim__tls_task ? msim__tls_task->gp_waited : m->rcu.driver.gp_waited;

	msim__access_note(msim__rcu_readers(m), MSIM_ACCESS_LOAD);
	if (m->rcu.gp_in_progress && waited)
		msim__access_note(msim__rcu_gp_state(m), MSIM_ACCESS_LOAD);
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
	note_exit(m);
	if (msim__tls_task) {
		if (msim__tls_task->rcu_nesting <= 0)
			unbalanced(msim__tls_task->name);
		msim__tls_task->rcu_nesting--;
	} else {
		if (m->rcu.driver.rcu_nesting <= 0)
			unbalanced("the driver");
		m->rcu.driver.rcu_nesting--;
	}
	msim_yield_access("rcu_read_unlock", msim__rcu_gp_state(m), MSIM_ACCESS_NONE);
}

bool msim_rcu_read_lock_held(void)
{
	struct msim *m = det_host();

	if (!m)
		return driver_nesting_conc > 0;
	return msim__tls_task ? msim__tls_task->rcu_nesting > 0 : m->rcu.driver.rcu_nesting > 0;
}

/*
 * A grace-period request, for partial-order reduction (access.h): a store of the
 * grace-period state, which the engine's step stores and a waiter's resumed step
 * stores again (so it stays ordered after the end that woke it). A request that
 * starts a grace period also stores the readers' state (rcu_det.c, gp_start).
 * Under preempt=none or full a grace period that begins here also snapshots
 * where every task is parked (each non-preemptible park is a reader), so the
 * step touches anything.
 */
static void note_gp_request(struct msim *m)
{
	if (m->cfg.preempt != MSIM_PREEMPT_UNMODELLED)
		msim__access_note(NULL, MSIM_ACCESS_ANY);
	else
		msim__access_note(msim__rcu_gp_state(m), MSIM_ACCESS_STORE);
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
	note_gp_request(m);
	uint64_t need = msim__rcu_det_request_gp(m);
	if (msim_yield_det_active && msim__tls_task) {
		msim__wmm_fence();   /* a full barrier: this CPU's store buffer drains */
		msim__tls_task->wait_seq = need;
		while (m->rcu.gp_completed < need)
			msim__task_block(msim__tls_task, MSIM_WAIT_GP);
		return;
	}
	/* The driver: end grace periods now (no task may be parked in a section). */
	while (m->rcu.gp_completed < need) {
		if (!msim__rcu_det_step(m)) {
			fprintf(stderr, "memcgsim: driver synchronize_rcu while a task is parked in a "
					"read-side section, or where it cannot be preempted (preempt=%s): "
					"step it out first\n", msim_preempt_name(m->cfg.preempt));
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
	note_gp_request(m);
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
	note_gp_request(m);
	uint64_t need = m->rcu.cbs_queued;
	if (msim_yield_det_active && msim__tls_task) {
		msim__wmm_fence();   /* a full barrier: this CPU's store buffer drains */
		msim__tls_task->wait_seq = need;
		while (m->rcu.cbs_done < need)
			msim__task_block(msim__tls_task, MSIM_WAIT_BARRIER);
		return;
	}
	while (m->rcu.cbs_done < need) {
		if (!msim__rcu_det_step(m)) {
			fprintf(stderr, "memcgsim: driver rcu_barrier while a task is parked in a "
					"read-side section, or where it cannot be preempted (preempt=%s): "
					"step it out first\n", msim_preempt_name(m->cfg.preempt));
			abort();
		}
	}
}

void msim_rcu_callback_noted(void)
{
	msim__access_callback_noted();
}
