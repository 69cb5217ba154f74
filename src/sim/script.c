/* SPDX-License-Identifier: MIT */
/*
 * script.c - scripted control of a deterministic run (script.h): the driver
 * steps one task at a time, to a yield point chosen by name, by context or by
 * a rule of its own, and asks where a task is parked.
 *
 * Every step goes through the scheduler's msim__sched_pick(), so it is recorded
 * in the schedule string and the trace hash like a pick of any strategy: the
 * way a script chooses where to stop changes nothing in what is recorded.
 */
#include <errno.h>
#include <string.h>

#include <memcgsim/script.h>

#include "misuse.h"
#include "current.h"
#include "irq.h"
#include "rcu_det.h"
#include "sched.h"
#include "sched_points.h"
#include "storebuf.h"

/* Scripted control: a deterministic host, its own task, called by the driver. */
/*
 * A task handle lives as long as its host: a step on a destroyed host (whose
 * task handles went with it) stops with a misuse before either is read.
 */
static bool driver_may_step(struct msim *m, const struct msim_task *t)
{
	if (!m)
		return false;
	msim__host_check(m, "msim_run_task/msim_run_until/msim_step");
	return msim__det(m) && t && t->host == m && !msim__tls_task;
}

/* A rule for where to stop, seen each time the task parks at a yield point. */
struct stop_rule {
	bool (*stop)(const struct msim_task *t, struct stop_rule *r);
	const char *point;
	const struct msim_yield_ctx *want;
	unsigned int nth, hits;
	msim_stop_fn fn;
	void *arg;
};

/*
 * Step t until the rule says stop at a yield point where t parked (not at a
 * block: a blocked task is still parked at the point before the block).
 */
static int run_until_rule(struct msim *m, struct msim_task *t, struct stop_rule *r)
{
	for (;;) {
		if (t->state == MSIM_TASK_DONE)
			return -ESRCH;
		if (!msim__task_enabled(m, t))
			return -EDEADLK;
		msim__sched_pick(m, (int)t->idx);
		if (t->state == MSIM_TASK_DONE)
			return -ESRCH;
		if (t->state == MSIM_TASK_READY && t->parked_at && r->stop(t, r))
			return 0;
	}
}

static bool ctx_matches(const struct msim_task *t, const struct msim_yield_ctx *want)
{
	const struct msim_yield_ctx *c = t->yield_ctx;

	if (!want)
		return true;
	if (want->object && (!c || c->object != want->object))
		return false;
	if (want->cpu >= 0 && (!c || c->cpu != want->cpu))
		return false;
	return want->nid < 0 || (c && c->nid == want->nid);
}

/* The nth park at the named point whose context matches, counted from the call. */
static bool stop_at_nth(const struct msim_task *t, struct stop_rule *r)
{
	return !strcmp(t->parked_at, r->point) && ctx_matches(t, r->want) && ++r->hits == r->nth;
}

int msim_run_until(struct msim *m, struct msim_task *t, const char *point, unsigned int nth)
{
	return msim_run_until_ctx(m, t, point, NULL, nth);
}

int msim_run_until_ctx(struct msim *m, struct msim_task *t, const char *point,
		       const struct msim_yield_ctx *want, unsigned int nth)
{
	struct stop_rule r = { .stop = stop_at_nth, .point = point, .want = want, .nth = nth };

	if (!driver_may_step(m, t) || !point || !nth)
		return -EINVAL;
	return run_until_rule(m, t, &r);
}

static bool stop_by_fn(const struct msim_task *t, struct stop_rule *r)
{
	struct msim_task_where w;

	msim_task_where(t, &w);
	return r->fn(t, &w, r->arg);
}

int msim_run_until_fn(struct msim *m, struct msim_task *t, msim_stop_fn stop, void *arg)
{
	struct stop_rule r = { .stop = stop_by_fn, .fn = stop, .arg = arg };

	if (!driver_may_step(m, t) || !stop)
		return -EINVAL;
	return run_until_rule(m, t, &r);
}

bool msim_task_where(const struct msim_task *t, struct msim_task_where *w)
{
	static const struct msim_yield_ctx none = MSIM_YIELD_CTX_NONE;
	const char *point = t ? msim_task_parked_at(t) : NULL;

	if (!w)
		return false;
	memset(w, 0, sizeof(*w));
	w->ctx = none;
	if (!point)
		return false;
	w->point = point;
	w->hits = msim__points_hits(t, point);
	w->blocked = t->state == MSIM_TASK_BLOCKED;
	if (t->yield_ctx)
		w->ctx = *t->yield_ctx;
	return true;
}

unsigned int msim_step(struct msim *m, struct msim_task *t, unsigned int k)
{
	unsigned int n = 0;

	if (!driver_may_step(m, t))
		return 0;
	while (n < k && t->state != MSIM_TASK_DONE && msim__task_enabled(m, t)) {
		msim__sched_pick(m, (int)t->idx);
		n++;
	}
	return n;
}

/*
 * t steps while it may: at each of its yield points it takes this loop's
 * decision itself (sched.c decide_in_task) and goes on with no stack switch.
 */
int msim_run_task(struct msim *m, struct msim_task *t)
{
	int ret = 0;

	if (!driver_may_step(m, t))
		return -EINVAL;
	if (!msim__sched_always_switch) {
		m->sched.drive = MSIM__DRIVE_RUN_TASK;
		m->sched.drive_task = t;
		msim__sched_fast_begin(m);
	}
	while (t->state != MSIM_TASK_DONE) {
		if (!msim__task_enabled(m, t)) {
			ret = -EDEADLK;
			break;
		}
		msim__sched_pick(m, (int)t->idx);
	}
	m->sched.drive = MSIM__DRIVE_NONE;
	m->sched.drive_task = NULL;
	m->sched.fast = MSIM__FAST_NONE;
	m->sched.fast_task = NULL;
	return ret;
}

bool msim_rcu_step(struct msim *m)
{
	if (!msim__det(m) || msim__tls_task || !msim__rcu_det_ready(m))
		return false;
	msim__sched_pick(m, MSIM_PICK_R);
	return true;
}

int msim_store_buffer_drain(struct msim *m, unsigned int cpu, unsigned int pos)
{
	unsigned int ok[MSIM_PICK_DRAIN_K], n;

	if (!msim__det(m) || msim__tls_task || cpu >= m->cfg.nr_cpus)
		return -EINVAL;
	n = msim__wmm_drainable(m, cpu, ok, MSIM_PICK_DRAIN_K);
	for (unsigned int i = 0; i < n; i++) {
		if (ok[i] == pos) {
			msim__sched_pick(m, MSIM_PICK_DRAIN(cpu, pos));
			return 0;
		}
	}
	return -ENOENT;
}

unsigned int msim_store_buffer_len(const struct msim *m, unsigned int cpu)
{
	return m ? msim__wmm_pending(m, cpu) : 0;
}

/* Scripted arrival of interrupt source src (irq.h): the same pick an explorer makes. */
int msim_irq_raise(struct msim *m, struct msim_task *src)
{
	if (!driver_may_step(m, src) || src->kind == MSIM_CTX_TASK)
		return -EINVAL;
	if (!msim__irq_may_arrive(m, src))
		return -EBUSY;
	msim__sched_pick(m, MSIM_PICK_IRQ(src->idx));
	return 0;
}
