/* SPDX-License-Identifier: MIT */
/*
 * quota.c - the DAMOS quota's goals, score, feedback loop and charge window
 * (kernel: mm/damon/core.c damos_quota_score(), damon_feed_loop_next_input(),
 * damos_goal_tune_esz_bp_consist() / _temporal(), damos_set_effective_quota(),
 * damos_adjust_quota(), the quota part of damos_apply_scheme()).
 *
 * What is left out: the time quota (quota->ms and the throughput estimate that
 * turns it into bytes), the size-to-region alignment (min_region_sz), the
 * prioritisation weights and the trace events. A quota here has goals and a
 * size limit; its esz is the bytes one window may apply.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "damon_internal.h"

#define DAMON_GOAL_SCORE 10000UL   /* the loop's target score: 100.00 % of the goal */

void msim_damos_quota_init(struct msim_damos_quota *q)
{
	memset(q, 0, sizeof(*q));
	q->reset_interval_ms = 1000;
	q->goal_tuner = MSIM_DAMOS_QUOTA_GOAL_TUNER_CONSIST;
}

int msim_damos_add_quota_goal(struct msim_damos_quota *q,
			      enum msim_damos_quota_goal_metric metric,
			      unsigned long target_value, int nid, unsigned short memcg_id)
{
	struct msim_damos_quota_goal *g;

	if (!q || (unsigned int)metric >= MSIM_NR_DAMOS_QUOTA_GOAL_METRICS || !target_value ||
	    q->nr_goals >= MSIM_DAMOS_MAX_GOALS)
		return -EINVAL;
	g = &q->goals[q->nr_goals++];
	memset(g, 0, sizeof(*g));
	g->metric = metric;
	g->target_value = target_value;
	g->nid = nid;
	g->memcg_id = memcg_id;
	return 0;
}

/* kernel: damos_quota_score(): the highest score is the least aggressive. */
unsigned long msim_damos_quota_score(struct msim *m, struct msim_damos_quota *q)
{
	unsigned long highest = 0;

	for (unsigned int i = 0; q && i < q->nr_goals; i++) {
		struct msim_damos_quota_goal *g = &q->goals[i];
		unsigned long score;

		msim_damos_set_quota_goal_current_value(m, g);
		score = msim__damon_mult_frac(g->current_value, DAMON_GOAL_SCORE, g->target_value);
		if (score > highest)
			highest = score;
	}
	return highest;
}

/*
 * kernel: damon_feed_loop_next_input() (with the 2024 overflow fixes): assuming
 * input and score grow together, move the input by the score's relative
 * distance from the goal: next = last x (1 + (goal - score) / goal). At or
 * beyond twice the goal it drops to the floor at once; the floor (10000) keeps
 * the compensation from reaching 0 and the loop from sticking there.
 */
unsigned long msim_damon_feed_loop_next_input(unsigned long last_input, unsigned long score)
{
	const unsigned long goal = DAMON_GOAL_SCORE, min_input = 10000;
	unsigned long diff, compensation;
	bool over = score > goal;

	if (score == goal)
		return last_input;
	if (score >= goal * 2)
		return min_input;
	diff = over ? score - goal : goal - score;
	if (last_input < ULONG_MAX / diff)
		compensation = last_input * diff / goal;
	else
		compensation = last_input / goal * diff;
	if (over)
		return last_input - compensation > min_input ? last_input - compensation : min_input;
	if (last_input < ULONG_MAX - compensation)
		return last_input + compensation;
	return ULONG_MAX;
}

/* kernel: damos_goal_tune_esz_bp_temporal(): full quota until achieved, then none. */
static void tune_temporal(struct msim *m, struct msim_damos_quota *q)
{
	if (msim_damos_quota_score(m, q) >= DAMON_GOAL_SCORE)
		q->esz_bp = 0;
	else if (q->sz)
		q->esz_bp = q->sz * 10000;
	else
		q->esz_bp = ULONG_MAX;
}

/* kernel: damos_goal_tune_esz_bp_consist(). */
static void tune_consist(struct msim *m, struct msim_damos_quota *q)
{
	unsigned long score = msim_damos_quota_score(m, q);

	q->esz_bp = msim_damon_feed_loop_next_input(q->esz_bp > 10000 ? q->esz_bp : 10000, score);
}

void msim_damos_set_effective_quota(struct msim *m, struct msim_damos_quota *q)
{
	unsigned long esz = ULONG_MAX;

	if (!q)
		return;
	q->nr_tunings++;
	if (!q->nr_goals) {
		q->esz = q->sz;
		return;
	}
	if (q->goal_tuner == MSIM_DAMOS_QUOTA_GOAL_TUNER_TEMPORAL)
		tune_temporal(m, q);
	else
		tune_consist(m, q);
	esz = q->esz_bp / 10000;
	if (q->sz && q->sz < esz)
		esz = q->sz;
	q->esz = esz;
}

static uint64_t window_jiffies(struct msim *m, const struct msim_damos_quota *q)
{
	uint64_t ms = q->reset_interval_ms ? q->reset_interval_ms : 1000;
	uint64_t j = ms * msim_config(m)->hz / 1000;

	return j ? j : 1;
}

/* kernel: damos_adjust_quota(). */
bool msim_damos_adjust_quota(struct msim *m, struct msim_damos_quota *q)
{
	uint64_t now;

	if (!m || !q || (!q->sz && !q->nr_goals))
		return false;
	now = msim_jiffies(m);
	if (!q->window_open) {       /* the first charge window */
		q->window_open = true;
		q->charged_from = now;
		msim_damos_set_effective_quota(m, q);
		return true;
	}
	if (now < q->charged_from + window_jiffies(m, q))
		return false;
	if (q->esz && q->charged_sz >= q->esz)
		q->qt_exceeds++;
	q->total_charged_sz += q->charged_sz;
	q->charged_from = now;
	q->charged_sz = 0;
	msim_damos_set_effective_quota(m, q);
	return true;
}

/*
 * A quota with goals or a size limit limits every window to esz, 0 included
 * (the 2026 "allow quota goals set zero effective size quota"); one with
 * neither limits nothing.
 */
unsigned long msim_damos_quota_charge(struct msim_damos_quota *q, unsigned long want)
{
	unsigned long room;

	if (!q)
		return 0;
	if (!q->nr_goals && !q->sz)
		return want;
	room = q->charged_sz < q->esz ? q->esz - q->charged_sz : 0;
	if (want > room)
		want = room;
	q->charged_sz += want;
	return want;
}
