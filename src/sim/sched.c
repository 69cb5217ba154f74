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
 * Which steps are enabled and which one each strategy picks is in
 * sched_options.c; this file runs the steps: the tasks' stacks, their parks and
 * blocks, each step's beginning and end, the fast step and the decision in the
 * task, and the driver loop.
 */
#include <assert.h>
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
#include "rcu_det.h"
#include "sched.h"
#include "sched_deadlock.h"
#include "sched_options.h"
#include "sched_string.h"
#include "sched_points.h"
#include "storebuf.h"
#include "task.h"
#include "trace_hash.h"

static bool decide_in_task(struct msim *m, struct msim_task *t);
static inline void park_fast_or_decide(struct msim *m, struct msim_task *t,
				       const struct msim__point_hits *e);
static inline void fast_step(struct msim *m, struct msim_task *t,
			     const struct msim__point_hits *e);

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
	m->sched.trace_hash = MSIM__FNV_BASIS; /* msim_sched_trace_hash(): 0 until a step */
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

/* Out of line: the fast step's caller keeps no frame for the decision's. */
static __attribute__((noinline)) void park_decide(struct msim *m, struct msim_task *t)
{
	if (m->sched.drive != MSIM__DRIVE_NONE && decide_in_task(m, t))
		return; /* picked again: the next step goes on here, no switch */
	msim__ctx_switch(&t->ctx, &m->driver_ctx);
}

/* Park t at why (its slot e) once its point count and the trace hash's fold are set. */
static inline __attribute__((always_inline)) void park_counted(struct msim_task *t,
								const struct msim__point_hits *e)
{
	struct msim *m = t->host;

	if (m->sched.fast != MSIM__FAST_NONE)
		park_fast_or_decide(m, t, e); /* the decision foretold: t again, the step recorded */
	else
		park_decide(m, t);
}

/* A point t parks at for the first time: its count starts (out of line). */
static __attribute__((noinline)) void park_first(struct msim_task *t, const char *why)
{
	const struct msim__point_hits *e = msim__points_insert(t, why);

	t->parked_fold = e ? e->fold : NULL;
	park_counted(t, e);
}

/*
 * Park t at why: its count, then the step's end. Every path here ends in a tail
 * call, so the common one (a point met before, the fast step) keeps no stack
 * frame: a step costs its few stores. fast_mode: the caller knows t's host is
 * in a fast mode, so msim_run_task's task takes the fast step at once.
 */
static inline __attribute__((always_inline)) void park_at(struct msim_task *t,
							   const char *why, bool fast_mode)
{
	struct msim__point_hits *e = msim__points_find(t, why);

	t->parked_at = why;
	if (__builtin_expect(!e, 0)) {
		park_first(t, why);
		return;
	}
	e->hits++;
	t->parked_fold = e->fold;
	if (fast_mode && __builtin_expect(t == t->host->sched.fast_task, 1))
		fast_step(t->host, t, e);
	else
		park_counted(t, e);
}

static inline void park(struct msim_task *t, const char *why)
{
	park_at(t, why, false);
}

void msim__task_park(struct msim_task *t, const char *why)
{
	park(t, why);
}

/*
 * What a parking point announces: only DPOR and fingerprints read it. Out of
 * line, so that the slow paths below stay frameless when neither is on.
 */
static __attribute__((noinline)) void park_announced(struct msim_task *t, const char *name,
							 const volatile void *addr, int kind)
{
	msim__access_announce(addr, kind);
	msim__fp_announce(t, addr, kind);
	park(t, name);
}

/*
 * Under a fast mode no one reads what a point announces (the mode excludes DPOR
 * and fingerprints), so the slow paths start with this: the running task's host
 * in a fast mode (MSIM__DET_FAST), and one call that parks. Out of line, so that
 * the entry of a slow path keeps no registers for the rest. msim_run_task's
 * task (fast_task) needs no foretelling: its every park is its own next step.
 */
static __attribute__((noinline)) void park_in_fast_mode(struct msim_task *t, const char *why)
{
	park_at(t, why, true);
}

static inline bool in_fast_mode(void)
{
	return __builtin_expect(msim_yield_det_active == MSIM__DET_FAST, 1);
}

/* The rest of a slow path: outside a task, or outside a fast mode. */
static __attribute__((noinline)) void yield_rest(struct msim_task *t, const char *name,
						 const volatile void *addr, int kind)
{
	if (!t) {
		/* a recorded RCU callback goes on in the same step: the access is its own */
		msim__access_note(addr, kind);
		return;
	}
	if (__builtin_expect(msim__access_on | msim__fp_on, 0))
		park_announced(t, name, addr, kind);
	else
		park(t, name);
}

void msim_yield_slowpath(const char *name)
{
	struct msim_task *t = msim__tls_task;

	if (in_fast_mode())
		park_in_fast_mode(t, name);
	else /* it says nothing: it touches anything (in a callback too) */
		yield_rest(t, name, NULL, MSIM_ACCESS_ANY);
}

/* A yield point that says what the step resumed from it touches (DPOR). */
void msim_yield_access_slowpath(const char *name, const volatile void *addr, int kind)
{
	struct msim_task *t = msim__tls_task;

	if (in_fast_mode())
		park_in_fast_mode(t, name);
	else
		yield_rest(t, name, addr, kind);
}

/* cond_resched(): a yield point at which the task may give its CPU up (preempt.c). */
void msim_cond_resched_access_slowpath(const char *name, const volatile void *addr, int kind)
{
	struct msim_task *t = msim__tls_task;

	if (t)
		t->at_sched_point = true;
	if (in_fast_mode())
		park_in_fast_mode(t, name);
	else if (t)
		yield_rest(t, name, addr, kind);
	else /* in a callback: the point's access is not the callback's */
		msim__access_note(NULL, MSIM_ACCESS_ANY);
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

/* What a step's resumption sets, in the driver or in the task that goes on. */
static void enter_task(struct msim *m, struct msim_task *t)
{
	t->state = MSIM_TASK_READY;
	t->wait = MSIM_WAIT_NONE;
	t->at_sched_point = false;
	msim__tls_task = t;
	msim_yield_ctx_current = t->yield_ctx;
	msim_yield_det_active = m->sched.fast != MSIM__FAST_NONE ? MSIM__DET_FAST : 1;
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
		msim__sched_live_remove(m, t);
		msim__sched_heads_refresh(m);
	}
}

/* FNV-1a over (pick, the point the task stopped at): two runs with the same hash
 * took the same steps and stopped at the same places. */
static inline void trace_mix(struct msim_sched *s, int pick, const char *point,
			     const struct msim__name_fold *fold)
{
	uint64_t h = s->trace_hash;

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
	return m->sched.steps ? m->sched.trace_hash : 0;
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

/* The steps a run may take before it is cut (msim_sched_opts.max_steps). */
/*
 * Whether this run has taken its cap of steps (msim_sched_opts.max_steps). The
 * cap counts the steps of the driver loop now running, not the host's life: a
 * bench that runs one host for many msim_run() calls (root-flush dirties 80 CPUs
 * of 256 memcgs per step of its call-site loop) was cut past 10M steps in all.
 */
static inline bool step_limit_reached(const struct msim_sched *s)
{
	uint64_t cap = s->opts.max_steps ? s->opts.max_steps : 10000000ULL;

	return s->steps - s->run_first_step >= cap;
}

/*
 * The driver loop's decision: DECIDE_PICK with *pick, DECIDE_END when every
 * task finished, or the run's error. It runs in the driver or, at a yield
 * point, in the task that parked there (decide_in_task): the same calls in the
 * same order either way, so the run is the same.
 */
static int det_decide(struct msim *m, int *pick)
{
	struct msim_sched *s = &m->sched;
	struct msim__options *o = s->options;
	unsigned int c;

	if (step_limit_reached(s)) {
		s->cut = true;
		return -E2BIG;
	}
	msim__sched_build_options(m, o);
	if (!o->n) {
		if (msim__sched_any_unfinished(m)) {
			msim__sched_deadlock_report(m);
			return -EDEADLK;
		}
		return DECIDE_END;
	}
	c = msim__sched_choose(m, o);
	if (c == MSIM__MAX_OPTIONS)
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

/* ---- the fast step ---- */

__thread bool msim__sched_no_fast_step;

/*
 * Fewer tasks than this, and no store buffers, and the option list cannot
 * outgrow its slots (add_option), so listing it has no effect to keep.
 */
#define FAST_MAX_TASKS (MSIM__MAX_OPTIONS - 2)

void msim__sched_fast_begin(struct msim *m)
{
	struct msim_sched *s = &m->sched;

	s->fast = MSIM__FAST_NONE;
	s->fast_task = NULL;
	/*
	 * Each of these has a part in a step's end or a decision that the fast
	 * step leaves out: DPOR's events, the observer's, the fingerprint, a
	 * preemption model's holders and quiescent states.
	 */
	if (msim__sched_no_fast_step || s->drive == MSIM__DRIVE_NONE || s->dpor ||
	    s->observer || msim__fp_on || m->cfg.preempt != MSIM_PREEMPT_UNMODELLED)
		return;
	if (s->drive == MSIM__DRIVE_RUN_TASK) {
		s->fast = MSIM__FAST_RUN_TASK;
		if (!s->nr_irq_sources)
			s->fast_task = s->drive_task;
	} else if (m->wmm)
		return; /* its drains are options of every decision */
	else if (s->opts.strategy == MSIM_STRAT_SCRIPT)
		s->fast = MSIM__FAST_SCRIPT;
	else if (s->opts.strategy == MSIM_STRAT_REPLAY)
		s->fast = MSIM__FAST_REPLAY;
	else if (s->opts.strategy == MSIM_STRAT_PCT)
		s->fast = MSIM__FAST_PCT;
}

uint64_t msim__sched_fast_steps(const struct msim *m)
{
	return m->sched.fast_steps;
}

/*
 * PCT's choice is the enabled option of the highest priority, the first of
 * equals, and t is option 0: it is t whatever else is enabled when no other
 * enabled task and not the RCU engine (when it may step) ranks above it,
 * provided no change point lowers t at this step and every enabled task has
 * its priority (choose_pct draws one for an option that has none, which moves
 * the random stream; a task that is not an option draws nothing). A task that
 * ranks above t but waits (a lock t holds, a grace period) or waits its turn
 * on its CPU is not an option, so t goes on: the checks are those of the
 * option list (msim__task_enabled, msim__rcu_det_ready), each read only.
 */
static inline bool pct_foretold(struct msim *m, const struct msim_task *t)
{
	struct msim_sched *s = &m->sched;
	int p;

	if (t->idx >= s->nr_prio)
		return false;
	p = s->prio[t->idx];
	for (unsigned int i = 0; i < s->nr_change_points; i++)
		if (s->change_points[i] == s->steps)
			return false;
	if (s->live_seen != m->nr_tasks)
		return false; /* a task created in this step: the live list is behind */
	for (unsigned int i = 0; i < s->nr_live; i++) {
		unsigned int idx = s->live[i];

		if (idx == t->idx || (idx < s->nr_prio && s->prio[idx] <= p))
			continue;
		if (msim__task_enabled(m, m->task_vec[idx]))
			return false;
	}
	return p >= s->prio_r || !msim__rcu_det_ready(m);
}

/* What a park can tell of the driver's next decision without a call (fast_foretold). */
enum foretold { FORETOLD_NOT, FORETOLD_T, FORETOLD_ASK_PCT };

/*
 * Whether the driver's next decision is t, known without listing the options.
 * t parked at a yield point is enabled: it is ready, and under the unmodelled
 * preemption model with no interrupt source it is its CPU's first unfinished
 * task, as it was when its step began (only the running task can finish, and a
 * new task takes a higher index). So msim_run_task picks it; the script
 * strategy picks option 0, the running task, with no preemption to log; replay
 * picks the string's next pick, if that is t; PCT picks t when pct_foretold
 * says so (FORETOLD_ASK_PCT: its checks call out, so they run out of line).
 * Each decision's other effects stay: the step limit and the replay position
 * (PCT's draws happen only where it is not foretold).
 */
static inline enum foretold fast_foretold(struct msim *m, const struct msim_task *t)
{
	struct msim_sched *s = &m->sched;
	struct msim_replay_run *r;

	if (s->nr_irq_sources)
		return FORETOLD_NOT; /* a source declared in a task: its arrivals are options */
	if (s->fast == MSIM__FAST_RUN_TASK)
		return t == s->drive_task ? FORETOLD_T : FORETOLD_NOT;
	if (s->current != (int)t->idx || step_limit_reached(s) ||
	    m->nr_tasks >= FAST_MAX_TASKS)
		return FORETOLD_NOT;
	if (s->fast == MSIM__FAST_SCRIPT)
		return FORETOLD_T;
	if (s->fast == MSIM__FAST_PCT)
		return FORETOLD_ASK_PCT;
	if (s->replay_pos >= s->replay_len || s->replay[s->replay_pos].pick != (int)t->idx)
		return FORETOLD_NOT;
	r = &s->replay[s->replay_pos];
	if (++s->replay_used == r->count) {
		s->replay_pos++;
		s->replay_used = 0;
	}
	return FORETOLD_T;
}

/*
 * Task t parked at a yield point and the driver's next decision is t again
 * (fast_foretold, or t is msim_run_task's fast_task): of the step's end and the
 * next step's beginning (leave_task, task_step_end, msim__sched_record,
 * task_step_begin, enter_task) only what they record is left, since the mode
 * excludes DPOR, the observer, the fingerprint and the preemption model, and
 * the thread-local state of the task that goes on is what it was: the trace
 * hash, the step count and the schedule string's current run. The step's pick
 * and that run are t's already: with no interrupt source the pick that began
 * t's step was t's index, recorded then, and nothing else is picked while t
 * runs (a debug build asserts it). No call here, so the park that inlines it
 * keeps no registers across one (no frame).
 */
static inline __attribute__((always_inline)) void fast_step(struct msim *m,
							     struct msim_task *t,
							     const struct msim__point_hits *e)
{
	struct msim_sched *s = &m->sched;

	assert(s->rle_count && s->rle_pick == (int)t->idx && s->step_pick == (int)t->idx);
	/*
	 * t->yield_ctx is left: it is where t last gave control back, saved
	 * whenever it does (leave_task) and read only while t is parked there.
	 */
	t->at_sched_point = false;
	/* the pick is t's own (no interrupt source): its whole step folds at once */
	if (__builtin_expect(e && e->step, 1))
		s->trace_hash = msim__fnv_step(s->trace_hash, e->step);
	else
		trace_mix(s, s->step_pick, t->parked_at, t->parked_fold);
	s->fast_steps++;
	s->steps++;      /* the same task again: no switch, one more of its run */
	s->rle_count++;
}

/* PCT's part of the fast step: its checks call out (pct_foretold). */
static __attribute__((noinline)) void park_pct(struct msim *m, struct msim_task *t,
					       const struct msim__point_hits *e)
{
	if (pct_foretold(m, t))
		fast_step(m, t, e);
	else
		park_decide(m, t);
}

/* A park in a fast mode: the fast step where foretold, else the decision. */
static inline __attribute__((always_inline)) void park_fast_or_decide(struct msim *m,
								       struct msim_task *t,
								       const struct msim__point_hits *e)
{
	switch (fast_foretold(m, t)) {
	case FORETOLD_T:
		fast_step(m, t, e);
		return;
	case FORETOLD_ASK_PCT:
		park_pct(m, t, e);
		return;
	case FORETOLD_NOT:
		break;
	}
	park_decide(m, t);
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
		s->options = malloc(sizeof(struct msim__options));
		if (!s->options)
			abort();
	}
	s->run_first_step = s->steps;
	s->drive = fast_path_ok(m) ? MSIM__DRIVE_DET : MSIM__DRIVE_NONE;
	msim__sched_fast_begin(m);
	while ((rc = next_decision(m, &pick)) == DECIDE_PICK)
		msim__sched_pick(m, pick);
	s->drive = MSIM__DRIVE_NONE;
	s->fast = MSIM__FAST_NONE;
	s->fast_task = NULL;
	if (rc != DECIDE_END)
		return rc;
	if (s->opts.strategy == MSIM_STRAT_REPLAY && s->replay_pos < s->replay_len)
		s->diverged = true; /* picks left over: the string describes another run */
	if (!msim__sched_any_reader_parked(m))
		msim__rcu_det_drain(m);
	return 0;
}
