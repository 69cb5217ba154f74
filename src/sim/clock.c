/* SPDX-License-Identifier: MIT */
/*
 * clock.c - the virtual clock (jiffies) and delayed work.
 *
 * Nothing in the model reads wall time. The workload or the driver advances the
 * clock; a delayed work item whose deadline is reached runs in the caller's
 * context at the jiffies value of its deadline, in deadline order (then queueing
 * order). A work function may re-queue itself (the periodic stats flush does);
 * a re-queued item with a deadline inside the advanced span runs again.
 *
 * A delay of 0 means "at the next tick" (deadline jiffies + 1): nothing runs
 * work items but an advance, and an item that re-queues itself with delay 0 must
 * not run forever inside one. The clock only moves forward: two tasks advancing
 * it concurrently (or a work item that yields meanwhile) never roll it back.
 */
#include <errno.h>
#include <stddef.h>

#include "access.h"
#include "current.h"

uint64_t msim_jiffies(const struct msim *m)
{
	msim__access_note(&m->jiffies, MSIM_ACCESS_LOAD); /* partial-order reduction */
	return __atomic_load_n(&m->jiffies, __ATOMIC_RELAXED);
}

void msim_init_delayed_work(struct msim_delayed_work *dw, msim_work_fn fn, void *data)
{
	dw->fn = fn;
	dw->data = data;
	dw->deadline = 0;
	dw->pending = false;
	dw->deferrable = false;
	dw->next = NULL;
}

/* Insert keeping the list sorted by deadline, FIFO among equal deadlines. */
static void insert_sorted(struct msim *m, struct msim_delayed_work *dw)
{
	struct msim_delayed_work **pp = &m->works;

	while (*pp && (*pp)->deadline <= dw->deadline)
		pp = &(*pp)->next;
	dw->next = *pp;
	*pp = dw;
}

bool msim_queue_delayed_work(struct msim *m, struct msim_delayed_work *dw, uint64_t delay)
{
	bool queued = false;

	pthread_mutex_lock(&m->works_lock);
	if (!dw->pending) {
		dw->pending = true;
		dw->deadline = msim_jiffies(m) + (delay ? delay : 1);
		insert_sorted(m, dw);
		queued = true;
	}
	pthread_mutex_unlock(&m->works_lock);
	return queued;
}

bool msim_cancel_delayed_work(struct msim *m, struct msim_delayed_work *dw)
{
	struct msim_delayed_work **pp;
	bool was = false;

	pthread_mutex_lock(&m->works_lock);
	for (pp = &m->works; *pp; pp = &(*pp)->next) {
		if (*pp == dw) {
			*pp = dw->next;
			dw->pending = false;
			was = true;
			break;
		}
	}
	pthread_mutex_unlock(&m->works_lock);
	return was;
}

/* Pop the first work due at or before limit, or NULL. */
static struct msim_delayed_work *pop_due(struct msim *m, uint64_t limit)
{
	struct msim_delayed_work *dw = NULL;

	pthread_mutex_lock(&m->works_lock);
	if (m->works && m->works->deadline <= limit) {
		dw = m->works;
		m->works = dw->next;
		dw->next = NULL;
		dw->pending = false;
	}
	pthread_mutex_unlock(&m->works_lock);
	return dw;
}

/* jiffies = max(jiffies, to): the clock never goes back. */
static void clock_raise(struct msim *m, uint64_t to)
{
	uint64_t cur = __atomic_load_n(&m->jiffies, __ATOMIC_RELAXED);

	while (cur < to && !__atomic_compare_exchange_n(&m->jiffies, &cur, to, false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void msim_clock_advance(struct msim *m, uint64_t ticks)
{
	uint64_t target = msim_jiffies(m) + ticks;
	struct msim *prev = msim__tls_host;
	struct msim_delayed_work *dw;

	/* Work items run here, any code: the step touches anything (access.h). */
	msim__access_note(NULL, MSIM_ACCESS_ANY);

	if (!msim__tls_task)
		msim__tls_host = m; /* work items use their own host's shims */
	while ((dw = pop_due(m, target))) {
		clock_raise(m, dw->deadline);
		dw->fn(dw);
		/* A work that parked returns in a later step, which goes on with the
		 * queue, the next works and the clock: that step touches anything too. */
		msim__access_note(NULL, MSIM_ACCESS_ANY);
	}
	clock_raise(m, target);
	if (!msim__tls_task)
		msim__tls_host = prev ? prev : m;
}
