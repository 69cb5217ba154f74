/* SPDX-License-Identifier: MIT */
/*
 * sched_options.c - which steps may go next and which one the strategy picks
 * (sched.c runs them).
 *
 * Before each step the scheduler lists the enabled steps in a canonical order:
 * the task that ran last (if it can go on), the other runnable tasks by index,
 * interrupt arrivals, store-buffer drains under a weak memory model (storebuf.h;
 * no task switch, but bounded DFS pays for one), then R. Option 0 is therefore
 * "no preemption"; every strategy is a rule for choosing an index into that
 * list.
 *
 * Which tasks of a CPU may run follows the host's preemption model: under
 * unmodelled the first unfinished task of each CPU (msim__sched_heads_refresh
 * below), under none and full any task of a CPU that no non-preemptible task
 * holds (preempt.c, which also makes such a task hold off grace periods).
 */
#include <stdlib.h>
#include <string.h>

#include <memcgsim/explore.h>

#include "explore_dpor.h"
#include "irq.h"
#include "preempt.h"
#include "rand.h"
#include "rcu_det.h"
#include "sched_options.h"
#include "storebuf.h"

/* ---- the tasks that may still step ---- */

/*
 * Tasks created since the last look join the list. Their indexes are above
 * every index in it, so it stays sorted; task creation (task.c) need not know.
 */
void msim__sched_live_sync(struct msim *m)
{
	struct msim_sched *s = &m->sched;

	if (s->live_seen == m->nr_tasks)
		return;
	if (s->nr_live + (m->nr_tasks - s->live_seen) > s->live_cap) {
		unsigned int cap = s->live_cap ? s->live_cap : 8;
		while (cap < s->nr_live + (m->nr_tasks - s->live_seen))
			cap *= 2;
		unsigned int *v = realloc(s->live, cap * sizeof(*v));
		if (!v)
			abort();
		s->live = v;
		s->live_cap = cap;
	}
	for (; s->live_seen < m->nr_tasks; s->live_seen++)
		s->live[s->nr_live++] = s->live_seen;
}

/*
 * Task t finished: it leaves the list, which keeps its order (the option list's
 * canonical order is by index). An interrupt source stays: it finishes each
 * firing and may arrive again.
 */
void msim__sched_live_remove(struct msim *m, const struct msim_task *t)
{
	struct msim_sched *s = &m->sched;
	unsigned int i;

	if (t->kind != MSIM_CTX_TASK)
		return;
	msim__sched_live_sync(m);
	for (i = 0; i < s->nr_live && s->live[i] != t->idx; i++)
		;
	if (i == s->nr_live)
		return;
	memmove(s->live + i, s->live + i + 1, (s->nr_live - i - 1) * sizeof(*s->live));
	s->nr_live--;
}

/* The first unfinished task of each CPU is the only one that may run there. */
void msim__sched_heads_refresh(struct msim *m)
{
	struct msim_sched *s = &m->sched;
	unsigned int i;

	if (!s->cpu_head) {
		s->cpu_head = malloc(m->cfg.nr_cpus * sizeof(*s->cpu_head));
		if (!s->cpu_head)
			abort();
	}
	for (i = 0; i < m->cfg.nr_cpus; i++)
		s->cpu_head[i] = -1;
	msim__sched_live_sync(m);
	for (i = s->nr_live; i-- > 0;) {
		struct msim_task *t = m->task_vec[s->live[i]];
		/* an interrupt source never waits its turn among the tasks (irq.c) */
		if (t->state != MSIM_TASK_DONE && t->kind == MSIM_CTX_TASK)
			s->cpu_head[t->cpu] = (int)t->idx;
	}
	s->heads_tasks = m->nr_tasks;
}

static bool wait_satisfied(struct msim *m, const struct msim_task *t)
{
	switch (t->wait) {
	case MSIM_WAIT_LOCK:
		return __atomic_load_n(&t->wait_lock->owner, __ATOMIC_RELAXED) == NULL;
	case MSIM_WAIT_GP:
		return m->rcu.gp_completed >= t->wait_seq;
	case MSIM_WAIT_BARRIER:
		return m->rcu.cbs_done >= t->wait_seq;
	default:
		return true;
	}
}

bool msim__task_enabled(struct msim *m, struct msim_task *t)
{
	if (t->state == MSIM_TASK_DONE)
		return false;
	if (m->sched.nr_irq_sources) {
		if (!msim__irq_may_step(m, t))
			return false;
		/* an active handler owns its CPU whatever the preemption model */
		if (t->kind != MSIM_CTX_TASK)
			return t->state != MSIM_TASK_BLOCKED || wait_satisfied(m, t);
	}
	if (m->cfg.preempt != MSIM_PREEMPT_UNMODELLED) {
		if (!msim__preempt_cpu_free_for(m, t))
			return false;
	} else {
		if (m->sched.heads_tasks != m->nr_tasks || !m->sched.cpu_head)
			msim__sched_heads_refresh(m);
		if (m->sched.cpu_head[t->cpu] != (int)t->idx)
			return false;
	}
	return t->state != MSIM_TASK_BLOCKED || wait_satisfied(m, t);
}

bool msim__sched_any_unfinished(struct msim *m)
{
	unsigned int i;

	msim__sched_live_sync(m);
	for (i = 0; i < m->sched.nr_live; i++) {
		const struct msim_task *t = m->task_vec[m->sched.live[i]];

		/* an interrupt source that is not running is idle, not unfinished */
		if (t->state != MSIM_TASK_DONE &&
		    (t->kind == MSIM_CTX_TASK || t->state != MSIM_TASK_NEW))
			return true;
	}
	return false;
}

bool msim__sched_any_reader_parked(struct msim *m)
{
	unsigned int i;

	/* a finished task left every section (msim__task_exit_check) */
	msim__sched_live_sync(m);
	for (i = 0; i < m->sched.nr_live; i++)
		if (m->task_vec[m->sched.live[i]]->rcu_nesting)
			return true;
	return m->rcu.driver.rcu_nesting != 0;
}

/* ---- the option list and the strategies ---- */

/*
 * Add pick to o, or note that a decision had more options than o holds (one slot
 * stays for R): an exploration over such a run cannot call its space exhausted.
 */
static void add_option(struct msim *m, struct msim__options *o, int pick)
{
	if (o->n < MSIM__MAX_OPTIONS - 1)
		o->pick[o->n++] = pick;
	else
		m->sched.options_cut = true;
}

/* Weak memory models: every entry of every CPU's store buffer that may go next. */
static void add_drains(struct msim *m, struct msim__options *o)
{
	unsigned int pos[MSIM_PICK_DRAIN_K];

	for (unsigned int cpu = 0; cpu < m->cfg.nr_cpus; cpu++) {
		unsigned int n = msim__wmm_drainable(m, cpu, pos, MSIM_PICK_DRAIN_K);

		for (unsigned int i = 0; i < n; i++)
			add_option(m, o, MSIM_PICK_DRAIN(cpu, pos[i]));
	}
}

void msim__sched_build_options(struct msim *m, struct msim__options *o)
{
	struct msim_sched *s = &m->sched;
	unsigned int i;

	o->n = 0;
	o->current_enabled = false;
	o->has_r = false;
	msim__sched_live_sync(m);
	if (s->current >= 0 && msim__task_enabled(m, m->task_vec[s->current])) {
		o->pick[o->n++] = s->current;
		o->current_enabled = true;
	}
	/* finished tasks are never enabled: the live ones, by index, are all there is */
	for (i = 0; i < s->nr_live; i++) {
		unsigned int idx = s->live[i];

		if ((int)idx == s->current)
			continue;
		if (msim__task_enabled(m, m->task_vec[idx]))
			add_option(m, o, (int)idx);
	}
	/* interrupt arrivals (irq.c); a script fires its own (msim_irq_raise) */
	for (i = 0; s->nr_irq_sources && s->opts.strategy != MSIM_STRAT_SCRIPT &&
		    i < s->nr_live; i++) {
		if (msim__irq_may_arrive(m, m->task_vec[s->live[i]]))
			add_option(m, o, MSIM_PICK_IRQ(s->live[i]));
	}
	if (m->wmm)
		add_drains(m, o);
	if (msim__rcu_det_ready(m)) {
		o->pick[o->n++] = MSIM_PICK_R;
		o->has_r = true;
	}
}

/* A task's PCT priority; tasks created after msim_sched_set draw theirs now. */
static int pct_prio(struct msim_sched *s, unsigned int idx)
{
	if (idx >= s->nr_prio) {
		int *p = realloc(s->prio, (idx + 1) * sizeof(int));
		if (!p)
			abort();
		s->prio = p;
		for (unsigned int i = s->nr_prio; i <= idx; i++)
			s->prio[i] = (int)(s->nr_change_points + 1 + 1000 + msim__rand(&s->rng) % 1000);
		s->nr_prio = idx + 1;
	}
	return s->prio[idx];
}

/*
 * The PCT priority of CPU cpu's store-buffer drains, drawn when first needed
 * among the tasks' initial ones, so a buffer drains early in some runs and late
 * in others; change points lower tasks only. Under sc nothing calls this, and
 * the random stream stays as it was.
 */
static int drain_prio(struct msim *m, unsigned int cpu)
{
	struct msim_sched *s = &m->sched;

	if (!s->drain_prio) {
		s->drain_prio = malloc(m->cfg.nr_cpus * sizeof(int));
		if (!s->drain_prio)
			abort();
		for (unsigned int i = 0; i < m->cfg.nr_cpus; i++)
			s->drain_prio[i] = -1;
	}
	if (s->drain_prio[cpu] < 0)
		s->drain_prio[cpu] = (int)(s->nr_change_points + 1 +
					   msim__rand(&s->rng) % (m->nr_tasks + 2));
	return s->drain_prio[cpu];
}

static unsigned int choose_pct(struct msim *m, const struct msim__options *o)
{
	struct msim_sched *s = &m->sched;
	unsigned int i, best = 0;
	int best_prio = -1;

	for (i = 0; i < s->nr_change_points; i++) {
		if (s->change_points[i] == s->steps && s->current >= 0) {
			/* Change point i: the running task drops below every initial priority. */
			pct_prio(s, (unsigned int)s->current);
			s->prio[s->current] = (int)i;
		}
	}
	for (i = 0; i < o->n; i++) {
		int pick = MSIM_PICK_IS_IRQ(o->pick[i]) ? MSIM_PICK_IRQ_TASK(o->pick[i]) : o->pick[i];
		int p = pick == MSIM_PICK_R ? s->prio_r
			: MSIM_PICK_IS_DRAIN(pick) ? drain_prio(m, MSIM_PICK_DRAIN_CPU(pick))
			: pct_prio(s, (unsigned int)pick);
		if (p > best_prio) {
			best_prio = p;
			best = i;
		}
	}
	return best;
}

/*
 * Follow the string; a pick that is not enabled, or a string that ends before
 * the run does, is a divergence (and the canonical choice is taken instead).
 */
static unsigned int choose_replay(struct msim *m, const struct msim__options *o)
{
	struct msim_sched *s = &m->sched;
	unsigned int i;

	if (s->replay_pos >= s->replay_len) {
		s->diverged = true;
		return 0;
	}
	int want = s->replay[s->replay_pos].pick;
	if (++s->replay_used == s->replay[s->replay_pos].count) {
		s->replay_pos++;
		s->replay_used = 0;
	}
	for (i = 0; i < o->n; i++)
		if (o->pick[i] == want)
			return i;
	s->diverged = true;
	return 0;
}

static unsigned int choose_dfs(struct msim *m, const struct msim__options *o)
{
	struct msim_sched *s = &m->sched;
	unsigned int chosen = 0;

	if (s->dfs_len < s->dfs_prefix_len) {
		chosen = s->dfs[s->dfs_len].chosen;
		if (chosen >= o->n || s->dfs[s->dfs_len].nr_options != o->n) {
			s->diverged = true;
			chosen = 0;
		}
	}
	if (s->dfs_len == s->dfs_cap) {
		uint64_t cap = s->dfs_cap ? s->dfs_cap * 2 : 256;
		struct msim_dfs_point *p = realloc(s->dfs, cap * sizeof(*p));
		if (!p)
			abort();
		s->dfs = p;
		s->dfs_cap = cap;
	}
	struct msim_dfs_point *pt = &s->dfs[s->dfs_len++];
	pt->nr_options = (uint16_t)o->n;
	pt->chosen = (uint16_t)chosen;
	pt->preemptions = (uint16_t)s->preemptions;
	pt->current_enabled = o->current_enabled;
	pt->has_r = o->has_r;
	/* an early drain pays for itself like a preemption (explore_dfs.c) */
	if (o->current_enabled && chosen != 0 && o->pick[chosen] != MSIM_PICK_R)
		s->preemptions++;
	return chosen;
}

/* DPOR's choice, or MSIM__MAX_OPTIONS when every enabled step is asleep (stop the run). */
static unsigned int choose_dpor(struct msim *m, struct msim__dpor *d, const struct msim__options *o)
{
	int c = msim__dpor_choose(d, m, o->pick, o->n, o->current_enabled);

	return c == MSIM__DPOR_BLOCKED ? MSIM__MAX_OPTIONS : (unsigned int)c;
}

unsigned int msim__sched_choose(struct msim *m, const struct msim__options *o)
{
	struct msim_sched *s = &m->sched;

	switch (s->opts.strategy) {
	case MSIM_STRAT_RANDOM:
		return (unsigned int)(msim__rand(&s->rng) % o->n);
	case MSIM_STRAT_PCT:
		return choose_pct(m, o);
	case MSIM_STRAT_REPLAY:
		return choose_replay(m, o);
	case MSIM_STRAT_DFS:
		return choose_dfs(m, o);
	case MSIM_STRAT_DPOR:
		return s->dpor ? choose_dpor(m, s->dpor, o) : 0;
	case MSIM_STRAT_SCRIPT:
	default:
		return 0;
	}
}
