/* SPDX-License-Identifier: MIT */
/*
 * scheme.c - a DAMOS scheme on the virtual clock: the kdamond loop reduced to
 * its quota (kernel: kdamond_fn() -> kdamond_apply_schemes() ->
 * damos_adjust_quota() and damos_apply_scheme(), every apply interval).
 *
 * Simplification: no monitoring. The kernel applies the action to the regions
 * whose access pattern matches the scheme, up to the quota; here the action
 * callback is handed the bytes the window still allows and says how many it
 * applied. The work runs in the context that advances the clock (sim.h).
 */
#include <errno.h>
#include <limits.h>

#include "damon_internal.h"

static uint64_t apply_jiffies(struct msim_damos *s)
{
	uint64_t ms = s->apply_interval_ms ? s->apply_interval_ms : 100;
	uint64_t j = ms * msim_config(s->m)->hz / 1000;

	return j ? j : 1;
}

unsigned long msim_damos_apply(struct msim_damos *s)
{
	struct msim_damos_quota *q;
	unsigned long budget, applied;

	if (!s || !s->m)
		return 0;
	q = &s->quota;
	msim_damos_adjust_quota(s->m, q);
	budget = q->nr_goals || q->sz ? (q->charged_sz < q->esz ? q->esz - q->charged_sz : 0) :
					ULONG_MAX;
	applied = budget && s->action ? s->action(s, budget, s->action_arg) : 0;
	applied = msim_damos_quota_charge(q, applied);
	s->nr_applies++;
	s->sz_applied += applied;
	return applied;
}

static void damos_work(struct msim_delayed_work *dw)
{
	struct msim_damos *s = dw->data;

	if (!s->running)
		return;
	msim_damos_apply(s);
	if (s->running)
		msim_queue_delayed_work(s->m, &s->work, apply_jiffies(s));
}

int msim_damos_start(struct msim *m, struct msim_damos *s)
{
	if (!m || !s || s->running)
		return -EINVAL;
	s->m = m;
	s->running = true;
	msim_init_delayed_work(&s->work, damos_work, s);
	msim_queue_delayed_work(m, &s->work, apply_jiffies(s));
	return 0;
}

void msim_damos_stop(struct msim_damos *s)
{
	if (!s || !s->running)
		return;
	s->running = false;
	msim_cancel_delayed_work(s->m, &s->work);
}
