/* SPDX-License-Identifier: MIT */
/*
 * sched.c - the deterministic scheduler: tasks as coroutines, one step at a time.
 *
 * A step resumes one task until its next yield point, block or exit (or runs one
 * RCU engine step, 'R'). Before each step the scheduler lists the enabled steps in
 * a canonical order: the task that ran last (if it can go on), the other runnable
 * tasks by index, interrupt arrivals, store-buffer drains under a weak memory
 * model (storebuf.h; no task switch, but bounded DFS pays for one), then R.
 * Option 0 is therefore "no preemption"; every strategy is a rule for choosing
 * an index into that list, and the choice is recorded in the schedule string,
 * which is all that replay needs.
 *
 * Which tasks of a CPU may run follows the host's preemption model: under
 * unmodelled the first unfinished task of each CPU (cpu_heads_refresh below),
 * under none and full any task of a CPU that no non-preemptible task holds
 * (preempt.c, which also makes such a task hold off grace periods).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/yield.h>

#include "access.h"
#include "ctx.h"
#include "current.h"
#include "irq.h"
#include "explore_dpor.h"
#include "fingerprint.h"
#include "preempt.h"
#include "rand.h"
#include "rcu_det.h"
#include "sched.h"
#include "sched_deadlock.h"
#include "sched_string.h"
#include "sched_points.h"
#include "storebuf.h"
#include "task.h"
#include "trace_hash.h"

#define MAX_OPTIONS 1025

static bool decide_in_task(struct msim *m, struct msim_task *t);

uint64_t msim_sched_steps(const struct msim *m)
{
	return m->sched.steps;
}

uint64_t msim_sched_switches(const struct msim *m)
{
	return m->sched.switches;
}

uint64_t msim__sched_resumes(const struct msim *m)
{
	return m->sched.resumes;
}

bool msim_sched_replay_diverged(const struct msim *m)
{
	return m->sched.diverged;
}

const char *msim_deadlock_report(const struct msim *m)
{
	return m->sched.deadlock;
}

/* The observer of the hosts this thread creates (msim__sched_observe_hosts). */
static _Thread_local msim__sched_observer_fn new_host_observer;
static _Thread_local void *new_host_observer_arg;

void msim__sched_observe_hosts(msim__sched_observer_fn fn, void *arg)
{
	new_host_observer = fn;
	new_host_observer_arg = arg;
}

void msim__sched_init(struct msim *m)
{
	memset(&m->sched, 0, sizeof(m->sched));
	m->sched.opts.strategy = MSIM_STRAT_SCRIPT;
	m->sched.current = -1;
	m->sched.observer = new_host_observer;
	m->sched.observer_arg = new_host_observer_arg;
	if (m->sched.observer) {
		struct msim__sched_event e = { .kind = MSIM__SCHED_HOST_START,
					       .nr_cpus = m->cfg.nr_cpus };

		m->sched.observer(m, &e, m->sched.observer_arg);
	}
}

/* Tell the observer what step pick did (task t, NULL for the RCU engine). */
static void observe_step(struct msim *m, int pick, const struct msim_task *t)
{
	struct msim__sched_event e = {
		.kind = MSIM__SCHED_STEP, .step = m->sched.steps - 1, .pick = pick,
		.task = t ? t->name : NULL, .cpu = t ? t->cpu : 0, .nr_cpus = m->cfg.nr_cpus,
		.point = t && t->state != MSIM_TASK_DONE ? t->parked_at : NULL,
		.gp_completed = m->rcu.gp_completed, .gp_in_progress = m->rcu.gp_in_progress,
		.jiffies = m->jiffies,
	};

	m->sched.observer(m, &e, m->sched.observer_arg);
}

void msim__sched_fini(struct msim *m)
{
	struct msim_sched *s = &m->sched;

	free(s->str);
	free(s->str_copy);
	free(s->replay);
	free(s->prio);
	free(s->change_points);
	free(s->drain_prio);
	free(s->dfs);
	free(s->cpu_head);
	free(s->live);
	free(s->options);
	msim__preempt_fini(m);
	msim__irq_fini(m);
}

/* ---- tasks as coroutines ---- */

static void task_entry(void *arg)
{
	struct msim_task *t = arg;
	struct msim *m = t->host;

	t->fn(t->arg);
	msim__task_exit_check(t);
	t->state = MSIM_TASK_DONE;
	t->parked_at = NULL;
	msim__ctx_exit_to(&t->ctx, &m->driver_ctx);
	abort(); /* not reached */
}

void msim__task_park(struct msim_task *t, const char *why)
{
	t->parked_at = why;
	t->parked_fold = msim__points_hit(t, why);
	if (t->host->sched.drive != MSIM__DRIVE_NONE && decide_in_task(t->host, t))
		return; /* picked again: the next step goes on here, no switch */
	msim__ctx_switch(&t->ctx, &t->host->driver_ctx);
}

void msim_yield_slowpath(const char *name)
{
	struct msim_task *t = msim__tls_task;

	if (t) {
		msim__access_announce(NULL, MSIM_ACCESS_ANY); /* it says nothing: anything */
		msim__fp_announce(t, NULL, MSIM_ACCESS_ANY);
		msim__task_park(t, name);
	} else {
		msim__access_note(NULL, MSIM_ACCESS_ANY); /* in a recorded RCU callback */
	}
}

/* A yield point that says what the step resumed from it touches (DPOR). */
void msim_yield_access_slowpath(const char *name, const volatile void *addr, int kind)
{
	struct msim_task *t = msim__tls_task;

	if (t) {
		msim__access_announce(addr, kind);
		msim__fp_announce(t, addr, kind);
		msim__task_park(t, name);
	} else {
		/* a recorded RCU callback goes on in the same step: the access is its own */
		msim__access_note(addr, kind);
	}
}

/* cond_resched(): a yield point at which the task may give its CPU up (preempt.c). */
void msim_cond_resched_access_slowpath(const char *name, const volatile void *addr, int kind)
{
	struct msim_task *t = msim__tls_task;

	if (t) {
		t->at_sched_point = true;
		msim__access_announce(addr, kind);
		msim__fp_announce(t, addr, kind);
		msim__task_park(t, name);
	} else {
		msim__access_note(NULL, MSIM_ACCESS_ANY);
	}
}

/* The plain form says nothing of its next step: it touches anything. */
void msim_cond_resched_slowpath(const char *name)
{
	msim_cond_resched_access_slowpath(name, NULL, MSIM_ACCESS_ANY);
}

void msim__task_block(struct msim_task *t, enum msim_wait_kind w)
{
	t->state = MSIM_TASK_BLOCKED;
	t->wait = w;
	/* A wait is a voluntary scheduling point; a task that spins on a spinlock
	 * has preemption disabled (lock.c), which keeps it from counting as one. */
	t->at_sched_point = true;
	msim__ctx_switch(&t->ctx, &t->host->driver_ctx);
}

/* ---- the tasks that may still step ---- */

/*
 * Tasks created since the last look join the list. Their indexes are above
 * every index in it, so it stays sorted; task creation (task.c) need not know.
 */
static void live_sync(struct msim *m)
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
static void live_remove(struct msim *m, const struct msim_task *t)
{
	struct msim_sched *s = &m->sched;
	unsigned int i;

	if (t->kind != MSIM_CTX_TASK)
		return;
	live_sync(m);
	for (i = 0; i < s->nr_live && s->live[i] != t->idx; i++)
		;
	if (i == s->nr_live)
		return;
	memmove(s->live + i, s->live + i + 1, (s->nr_live - i - 1) * sizeof(*s->live));
	s->nr_live--;
}

/* The first unfinished task of each CPU is the only one that may run there. */
static void cpu_heads_refresh(struct msim *m)
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
	live_sync(m);
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
			cpu_heads_refresh(m);
		if (m->sched.cpu_head[t->cpu] != (int)t->idx)
			return false;
	}
	return t->state != MSIM_TASK_BLOCKED || wait_satisfied(m, t);
}

/* What a step's resumption sets, in the driver or in the task that goes on. */
static void enter_task(struct msim *m, struct msim_task *t)
{
	t->state = MSIM_TASK_READY;
	t->wait = MSIM_WAIT_NONE;
	t->at_sched_point = false;
	msim__tls_task = t;
	msim_yield_ctx_current = t->yield_ctx;
	msim_yield_det_active = 1;
	msim_wmm_active = m->wmm != NULL;
}

/* What the driver sees once the step of t ended, wherever that runs. */
static void leave_task(struct msim *m, struct msim_task *t)
{
	msim_wmm_active = 0;
	msim_yield_det_active = 0;
	/*
	 * The context of the point where t parked. Only tasks read or write
	 * msim_yield_ctx_current (static/yield.h), so the driver need not clear it; a done
	 * task keeps a stale pointer that nothing reads (msim_task_where() checks
	 * the state first).
	 */
	t->yield_ctx = msim_yield_ctx_current;
	msim__tls_task = NULL;
	if (m->sched.nr_irq_sources)
		msim__irq_stepped(m, t);
	if (t->kind == MSIM_CTX_TASK)
		msim__preempt_parked(m, t);
}

static void resume(struct msim *m, struct msim_task *t)
{
	if (t->state == MSIM_TASK_NEW) {
		if (msim__ctx_make(&t->ctx, m->cfg.task_stack_size, task_entry, t)) {
			fprintf(stderr, "memcgsim: no memory for the stack of task %s\n", t->name);
			abort();
		}
	}
	enter_task(m, t);
	m->sched.resumes++;
	msim__ctx_refresh_driver(&m->driver_ctx);
	msim__ctx_switch(&m->driver_ctx, &t->ctx);
	if (m->sched.tail_done)
		return; /* the task ended its last step itself (decide_in_task) */
	leave_task(m, t);
	if (t->state == MSIM_TASK_DONE) {
		msim__ctx_free(&t->ctx);
		msim__points_free(t);
		live_remove(m, t);
		cpu_heads_refresh(m);
	}
}

/* ---- the option list and the strategies ---- */

struct options {
	int pick[MAX_OPTIONS];
	unsigned int n;
	bool current_enabled;
	bool has_r;
};

/*
 * Add pick to o, or note that a decision had more options than o holds (one slot
 * stays for R): an exploration over such a run cannot call its space exhausted.
 */
static void add_option(struct msim *m, struct options *o, int pick)
{
	if (o->n < MAX_OPTIONS - 1)
		o->pick[o->n++] = pick;
	else
		m->sched.options_cut = true;
}

/* Weak memory models: every entry of every CPU's store buffer that may go next. */
static void add_drains(struct msim *m, struct options *o)
{
	unsigned int pos[MSIM_PICK_DRAIN_K];

	for (unsigned int cpu = 0; cpu < m->cfg.nr_cpus; cpu++) {
		unsigned int n = msim__wmm_drainable(m, cpu, pos, MSIM_PICK_DRAIN_K);

		for (unsigned int i = 0; i < n; i++)
			add_option(m, o, MSIM_PICK_DRAIN(cpu, pos[i]));
	}
}

static void build_options(struct msim *m, struct options *o)
{
	struct msim_sched *s = &m->sched;
	unsigned int i;

	o->n = 0;
	o->current_enabled = false;
	o->has_r = false;
	live_sync(m);
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

static unsigned int choose_pct(struct msim *m, const struct options *o)
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
static unsigned int choose_replay(struct msim *m, const struct options *o)
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

static unsigned int choose_dfs(struct msim *m, const struct options *o)
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

/* DPOR's choice, or MAX_OPTIONS when every enabled step is asleep (stop the run). */
static unsigned int choose_dpor(struct msim *m, struct msim__dpor *d, const struct options *o)
{
	int c = msim__dpor_choose(d, m, o->pick, o->n, o->current_enabled);

	return c == MSIM__DPOR_BLOCKED ? MAX_OPTIONS : (unsigned int)c;
}

static unsigned int choose(struct msim *m, const struct options *o)
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

/* FNV-1a over (pick, the point the task stopped at): two runs with the same hash
 * took the same steps and stopped at the same places. */
static void trace_mix(struct msim_sched *s, int pick, const char *point,
		      const struct msim__name_fold *fold)
{
	uint64_t h = s->trace_hash ? s->trace_hash : 0xcbf29ce484222325ULL;

	h = (h ^ (uint64_t)(pick + 2)) * MSIM__FNV_PRIME;
	/* the bytes of point: through its fold (trace_hash.c), or one by one ("R", "exit") */
	s->trace_hash = fold ? msim__fnv_fold(h, fold, point) : msim__fnv_bytes(h, point);
}

/* A task's step, before its resumption: what DPOR and fingerprints see first. */
static void task_step_begin(struct msim *m, int pick, struct msim_task *t)
{
	m->sched.step_pick = pick;
	if (m->sched.dpor)
		msim__dpor_step_begin(m->sched.dpor, m, pick);
	if (msim__fp_on)
		msim__fp_step(m, pick, t);
}

/* A task's step, once it ended: DPOR's event, the trace hash, the observer. */
static void task_step_end(struct msim *m, struct msim_task *t)
{
	int pick = m->sched.step_pick;

	if (m->sched.dpor)
		msim__dpor_step_end(m->sched.dpor, m, pick);
	if (t->state == MSIM_TASK_DONE)
		trace_mix(&m->sched, pick, "exit", NULL);
	else
		trace_mix(&m->sched, pick, t->parked_at, t->parked_fold);
	if (m->sched.observer)
		observe_step(m, pick, t);
}

void msim__sched_pick(struct msim *m, int pick)
{
	msim__sched_record(m, pick);
	if (MSIM_PICK_IS_DRAIN(pick)) {
		/* one store reaches memory; no task runs (the trace shows no slice) */
		if (m->sched.dpor)
			msim__dpor_step_begin(m->sched.dpor, m, pick);
		msim__wmm_drain_at(m, (unsigned int)MSIM_PICK_DRAIN_CPU(pick),
				   (unsigned int)MSIM_PICK_DRAIN_POS(pick));
		if (m->sched.dpor)
			msim__dpor_step_end(m->sched.dpor, m, pick);
		trace_mix(&m->sched, pick, "~", NULL);
		return;
	}
	if (pick == MSIM_PICK_R) {
		if (m->sched.dpor)
			msim__dpor_step_begin(m->sched.dpor, m, pick);
		msim__rcu_det_step(m);
		if (m->sched.dpor)
			msim__dpor_step_end(m->sched.dpor, m, pick);
		trace_mix(&m->sched, pick, "R", NULL);
		if (m->sched.observer)
			observe_step(m, pick, NULL);
		return;
	}
	struct msim_task *t;

	if (MSIM_PICK_IS_IRQ(pick)) {
		t = m->task_vec[MSIM_PICK_IRQ_TASK(pick)];
		msim__irq_arrive(m, t);
	} else {
		t = m->task_vec[pick];
	}
	task_step_begin(m, pick, t);
	resume(m, t);
	if (m->sched.tail_done) {
		m->sched.tail_done = false;
		return;
	}
	task_step_end(m, t);
}

uint64_t msim_sched_trace_hash(const struct msim *m)
{
	return m->sched.trace_hash;
}

static bool any_unfinished(struct msim *m)
{
	unsigned int i;

	live_sync(m);
	for (i = 0; i < m->sched.nr_live; i++) {
		const struct msim_task *t = m->task_vec[m->sched.live[i]];

		/* an interrupt source that is not running is idle, not unfinished */
		if (t->state != MSIM_TASK_DONE &&
		    (t->kind == MSIM_CTX_TASK || t->state != MSIM_TASK_NEW))
			return true;
	}
	return false;
}

static bool any_reader_parked(struct msim *m)
{
	unsigned int i;

	/* a finished task left every section (msim__task_exit_check) */
	live_sync(m);
	for (i = 0; i < m->sched.nr_live; i++)
		if (m->task_vec[m->sched.live[i]]->rcu_nesting)
			return true;
	return m->rcu.driver.rcu_nesting != 0;
}

/* A switch away from task from, which could have gone on, to pick to. */
static void log_preemption(struct msim *m, int from, int to)
{
	struct msim_sched *s = &m->sched;

	/* The log names tasks: the source arriving; a drain as -2 - its CPU (explore.h). */
	if (MSIM_PICK_IS_IRQ(to))
		to = MSIM_PICK_IRQ_TASK(to);
	else if (MSIM_PICK_IS_DRAIN(to))
		to = -2 - MSIM_PICK_DRAIN_CPU(to);

	if (s->nr_preempt < MSIM_PREEMPT_LOG)
		s->preempt_log[s->nr_preempt] = (struct msim_preemption){
			.step = s->steps, .from = from, .to = to,
			.at = m->task_vec[from]->parked_at };
	s->nr_preempt++;
}

__thread bool msim__sched_always_switch;

/*
 * Whether a task may take its host's decisions. Not while the bench asks for
 * the switch every step.
 */
static bool fast_path_ok(const struct msim *m)
{
	(void)m;
	return !msim__sched_always_switch;
}

#define DECIDE_PICK 0
#define DECIDE_END 1

/*
 * The driver loop's decision: DECIDE_PICK with *pick, DECIDE_END when every
 * task finished, or the run's error. It runs in the driver or, at a yield
 * point, in the task that parked there (decide_in_task): the same calls in the
 * same order either way, so the run is the same.
 */
static int det_decide(struct msim *m, int *pick)
{
	struct msim_sched *s = &m->sched;
	uint64_t max = s->opts.max_steps ? s->opts.max_steps : 10000000ULL;
	struct options *o = s->options;
	unsigned int c;

	if (s->steps >= max) {
		s->cut = true;
		return -E2BIG;
	}
	build_options(m, o);
	if (!o->n) {
		if (any_unfinished(m)) {
			msim__sched_deadlock_report(m);
			return -EDEADLK;
		}
		return DECIDE_END;
	}
	c = choose(m, o);
	if (c == MAX_OPTIONS)
		return -ECANCELED; /* DPOR: every enabled step asleep, nothing new */
	/* an early drain counts, as in bounded DFS (explore.h msim_preemption) */
	if (o->current_enabled && c != 0 && o->pick[c] != MSIM_PICK_R)
		log_preemption(m, o->pick[0], o->pick[c]);
	*pick = o->pick[c];
	return DECIDE_PICK;
}

/*
 * Task t parked at a yield point while a driver loop runs its host: end the
 * step here, then take the driver's next decision. If it picks t again (a plain
 * step of t, not an interrupt's arrival), begin that step and return true: t
 * goes on with no stack switch. Otherwise the driver finds the step ended
 * (tail_done) and, in msim__run_det, the decision taken (pending).
 */
static bool decide_in_task(struct msim *m, struct msim_task *t)
{
	struct msim_sched *s = &m->sched;
	int rc, pick = -1;

	leave_task(m, t);
	task_step_end(m, t);
	s->tail_done = true;
	if (s->drive == MSIM__DRIVE_RUN_TASK) {
		if (t != s->drive_task || !msim__task_enabled(m, t))
			return false;
		pick = (int)t->idx;
	} else {
		rc = det_decide(m, &pick);
		if (rc != DECIDE_PICK || pick != (int)t->idx) {
			s->pending = true;
			s->pending_rc = rc;
			s->pending_pick = pick;
			return false;
		}
	}
	s->tail_done = false;
	msim__sched_record(m, pick);
	task_step_begin(m, pick, t);
	enter_task(m, t);
	return true;
}

/* The decision msim__run_det acts on: the one a parked task took, else its own. */
static int next_decision(struct msim *m, int *pick)
{
	struct msim_sched *s = &m->sched;

	if (!s->pending)
		return det_decide(m, pick);
	s->pending = false;
	*pick = s->pending_pick;
	return s->pending_rc;
}

int msim__run_det(struct msim *m)
{
	struct msim_sched *s = &m->sched;
	int rc, pick = -1;

	if (!s->options) {
		s->options = malloc(sizeof(struct options));
		if (!s->options)
			abort();
	}
	s->drive = fast_path_ok(m) ? MSIM__DRIVE_DET : MSIM__DRIVE_NONE;
	while ((rc = next_decision(m, &pick)) == DECIDE_PICK)
		msim__sched_pick(m, pick);
	s->drive = MSIM__DRIVE_NONE;
	if (rc != DECIDE_END)
		return rc;
	if (s->opts.strategy == MSIM_STRAT_REPLAY && s->replay_pos < s->replay_len)
		s->diverged = true; /* picks left over: the string describes another run */
	if (!any_reader_parked(m))
		msim__rcu_det_drain(m);
	return 0;
}
