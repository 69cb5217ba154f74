/* SPDX-License-Identifier: MIT */
/*
 * rcu_det.c - RCU in deterministic mode: the scheduler is the implementation.
 *
 * Grace periods are numbered. When one begins, every reader that is inside a
 * read-side section at that moment (tasks, and the driver) is recorded with the
 * number of its current section; the grace period may end once each recorded
 * reader has left that section. Ending it is a scheduler step ('R'), so the
 * explorer chooses when, anywhere from "as soon as the rules allow" to "after
 * everything else". A waiter that asks while a grace period is already running
 * needs the *next* one to end (it may have missed readers that began before it
 * asked), which is the kernel's rule too.
 *
 * Readers are also the tasks that the preemption model says cannot be preempted
 * where they are (preempt.c): such a task is an implicit read-side section, and
 * a grace period that began while it was one waits until it passes a quiescent
 * state. Under preempt=unmodelled there are none.
 *
 * call_rcu callbacks run in the 'R' step that follows the end of their grace
 * period, in the order they were queued, outside any task (like softirq context:
 * they must not block; yield points inside them are not switch points).
 */
#include <stdio.h>
#include <stdlib.h>

#include "access.h"
#include "current.h"
#include "preempt.h"
#include "rcu_det.h"
#include "storebuf.h"

static void snapshot_readers(struct msim *m)
{
	unsigned int i;

	for (i = 0; i < m->nr_tasks; i++) {
		struct msim_task *t = m->task_vec[i];
		t->gp_waited = t->rcu_nesting > 0;
		t->gp_snapshot = t->rcu_section;
		t->gp_implicit = msim__preempt_holds_cpu(m, t);
		t->gp_qs_snapshot = t->qs_seq;
	}
	m->rcu.driver.gp_waited = m->rcu.driver.rcu_nesting > 0;
	m->rcu.driver.gp_snapshot = m->rcu.driver.rcu_section;
}

static bool reader_done(int nesting, uint64_t section, bool waited, uint64_t snap)
{
	return !waited || nesting == 0 || section != snap;
}

static bool readers_done(struct msim *m)
{
	struct msim_driver_reader *d = &m->rcu.driver;
	unsigned int i;

	for (i = 0; i < m->nr_tasks; i++) {
		struct msim_task *t = m->task_vec[i];
		if (!reader_done(t->rcu_nesting, t->rcu_section, t->gp_waited, t->gp_snapshot))
			return false;
		if (t->gp_implicit && t->qs_seq == t->gp_qs_snapshot)
			return false;
	}
	return reader_done(d->rcu_nesting, d->rcu_section, d->gp_waited, d->gp_snapshot);
}

/* The snapshot reads every reader: for DPOR, a store of the readers' state that
 * entries and exits load (rcu.c). */
static void gp_start(struct msim *m)
{
	m->rcu.gp_in_progress = true;
	msim__access_note(msim__rcu_readers(m), MSIM_ACCESS_STORE);
	snapshot_readers(m);
}

uint64_t msim__rcu_det_request_gp(struct msim *m)
{
	struct msim_rcu_det *r = &m->rcu;
	uint64_t need = r->gp_completed + (r->gp_in_progress ? 2 : 1);

	if (need > r->gp_target)
		r->gp_target = need;
	if (!r->gp_in_progress)
		gp_start(m);
	return need;
}

static bool callbacks_ready(struct msim *m)
{
	return m->rcu.cb_head && m->rcu.cb_head->gp_needed <= m->rcu.gp_completed;
}

bool msim__rcu_det_ready(struct msim *m)
{
	if (m->rcu.gp_in_progress && readers_done(m))
		return true;
	return callbacks_ready(m);
}

static void run_callbacks(struct msim *m)
{
	struct msim_rcu_det *r = &m->rcu;
	struct msim *prev = msim__tls_host;

	/* Callbacks use the shims of their own host, whichever the driver was on. */
	msim__tls_host = m;
	/* Callbacks are queued in gp order, so the ready ones form a prefix. */
	while (r->cb_head && r->cb_head->gp_needed <= r->gp_completed) {
		struct msim_rcu_head *h = r->cb_head;
		r->cb_head = h->next;
		if (!r->cb_head)
			r->cb_tail = &r->cb_head;
		msim__access_callback_begin();  /* DPOR: what it touches joins the step */
		h->func(h);
		msim__access_callback_end();
		r->cbs_done++;
	}
	msim__tls_host = prev;
}

/*
 * Under a weak memory model (storebuf.c), a grace period's end makes every CPU's
 * buffered stores visible: in the kernel each CPU's quiescent-state report
 * implies a full barrier, so a reader's stores inside its read-side section
 * reach memory before synchronize_rcu() returns or a callback frees the object.
 * Stores a CPU made after its quiescent state drain here too (earlier than they
 * must: a restriction, never a behaviour the kernel forbids).
 */
static void drain_every_cpu(struct msim *m)
{
	if (!m->wmm)
		return;
	for (unsigned int cpu = 0; cpu < m->cfg.nr_cpus; cpu++)
		msim__wmm_drain_all(m, cpu);
}

/*
 * A host torn down after a run that stopped with tasks parked (DPOR prunes runs;
 * an explorer cuts them) is m->destroying: those tasks never run again, so a
 * reader parked in its section never leaves it. Its grace periods end anyway,
 * so the teardown's synchronize_rcu (an rmdir's, say) and the final drain go
 * through, as lock.c takes over the locks such tasks hold.
 */
static bool gp_may_end(struct msim *m)
{
	return readers_done(m) || m->destroying;
}

bool msim__rcu_det_step(struct msim *m)
{
	struct msim_rcu_det *r = &m->rcu;
	bool did = false;

	if (r->gp_in_progress && gp_may_end(m)) {
		drain_every_cpu(m);
		r->gp_completed++;
		r->gp_in_progress = false;
		/* call_rcu raised gp_target for every queued callback, so the target
		 * alone says whether anyone needs another grace period; starting one
		 * nobody needs would only add a free R step to every explored run. */
		if (r->gp_target > r->gp_completed)
			gp_start(m);
		did = true;
	}
	if (callbacks_ready(m)) {
		run_callbacks(m);
		did = true;
	}
	return did;
}

void msim__rcu_det_drain(struct msim *m)
{
	while (m->rcu.gp_in_progress || m->rcu.cb_head) {
		if (!msim__rcu_det_step(m)) {
			fprintf(stderr, "memcgsim: an RCU grace period cannot end: a reader is parked "
					"inside a read-side section, or a task where the preemption "
					"model says it cannot be preempted (step it out first)\n");
			abort();
		}
	}
}
