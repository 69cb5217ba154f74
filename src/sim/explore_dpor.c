/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor.c - source-DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014):
 * stateless model checking that explores at least one schedule of every
 * Mazurkiewicz trace (every class of schedules equal up to swapping adjacent
 * independent steps), and usually far fewer schedules than there are.
 *
 * Threads are the tasks and the RCU engine. Each step has an access set
 * (access.h): what the yield point it resumed from announced, plus what the shims
 * noted while it ran. Two steps of different threads are dependent when their
 * sets conflict (same address, one writes), when either set is unknown (a plain
 * msim_yield, an RCU callback that keeps no annotation), or when both are
 * tasks of one CPU (which of them may run depends on the other: unmodelled
 * preemption runs them in order, none and full hand the CPU over).
 *
 * A run follows the current path's prefix and then takes the first enabled
 * thread that is not asleep (the canonical, no-preemption choice). After it, the
 * races of the run (a step and a later dependent step of another thread with no
 * third step ordered between them) each ask the decision before the first step to
 * also try a thread that can start the reversed order (an initial of
 * notdep(e).e', computed with vector clocks), unless one of those is in its
 * backtrack set already. The next run takes the deepest decision with a thread
 * left in its backtrack set that is neither explored there nor asleep.
 *
 * Sleep sets: a thread explored at a decision sleeps in the later branches of
 * that decision until a step dependent with its own is taken; a run whose every
 * enabled thread sleeps stops (it is "pruned": each of its continuations is
 * equivalent to one explored). A sleeper's step was taken in an earlier run,
 * whose raw addresses mean nothing now (every run allocates afresh): steps name
 * addresses by the step that first touched them (struct msim__dpor.ids), which
 * two runs through one prefix share for the prefix's objects. Both live in
 * explore_dpor_sleep.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "explore_dpor.h"
#include "explore_dpor_irq.h"
#include "explore_dpor_sleep.h"
#include "rcu_det.h"
#include "storebuf.h"

/*
 * An arrival ("!N") is a step of source N's thread (explore_dpor_irq.c), a drain
 * ("~C", "~C+K") a step of a drain thread (explore_dpor_wmm.c, which also says
 * in *next what the drain touches); -E2BIG when the threads run out.
 */
static int thread_of(struct msim__dpor *d, const struct msim *m, int pick,
		     struct msim__step_access *next)
{
	if (MSIM_PICK_IS_DRAIN(pick))
		return msim__dpor_drain_thread(&d->drains, m, pick, next);
	if (MSIM_PICK_IS_IRQ(pick))
		return msim__dpor_irq_thread(pick);
	return pick == MSIM_PICK_R ? MSIM__DPOR_R : pick;
}

/*
 * The CPU whose contexts a thread's steps are ordered with (explore_dpor.c's
 * same-CPU rule): a task's or handler's own; none for the RCU engine and a
 * drain thread, whose steps order only by what they touch (a CPU number no
 * task has).
 */
unsigned int msim__dpor_thread_cpu(const struct msim__dpor *d, const struct msim *m,
				   unsigned int tid)
{
	if (tid == MSIM__DPOR_R || msim__dpor_is_drain(&d->drains, tid))
		return UINT_MAX - tid;
	return m->task_vec[tid]->cpu;
}

static struct msim__dpor_node *node_at(struct msim__dpor *d, uint64_t i)
{
	uint64_t cap = d->cap;

	d->nodes = msim__dpor_grow(d->nodes, &cap, i + 1, sizeof(*d->nodes));
	if (cap != d->cap) {
		memset(d->nodes + d->cap, 0, (cap - d->cap) * sizeof(*d->nodes));
		d->cap = cap;
	}
	return &d->nodes[i];
}

int msim__dpor_begin_run(struct msim__dpor *d)
{
	d->depth = 0;
	d->blocked = false;
	d->diverged = false;
	d->pre = 0;
	d->lock_waiters = 0;
	memset(d->steps_of, 0, sizeof(d->steps_of));
	if (d->ids)
		memset(d->ids, 0, d->ids_cap * sizeof(*d->ids));
	d->ids_used = 0;
	msim__dpor_drains_reset(&d->drains);
	for (unsigned int t = 0; t < MSIM__DPOR_THREADS; t++)
		msim__access_set_one(&d->next[t], NULL,
				     t == MSIM__DPOR_R ? MSIM_ACCESS_ANY : MSIM_ACCESS_NONE);
	return 0;
}

/* ---- during a run ---- */

/* The options' threads into tid[], and their mask (0 with d->error set when
 * the threads do not fit a mask). A drain's next step is known only now. */
static uint64_t enabled_mask(struct msim__dpor *d, const struct msim *m, const int *pick,
			     unsigned int n, int *tid)
{
	uint64_t mask = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct msim__step_access next;
		int t = thread_of(d, m, pick[i], &next);

		if (t < 0 || (pick[i] != MSIM_PICK_R && t >= MSIM__DPOR_R)) {
			d->error = -E2BIG; /* more tasks (and drains) than a mask holds */
			return 0;
		}
		if (MSIM_PICK_IS_DRAIN(pick[i]))
			d->next[t] = next;
		tid[i] = t;
		mask |= 1ULL << t;
	}
	return mask;
}

/* Taking thread t at nd is a preemption: the task that ran last could go on. */
static bool preempts(const struct msim__dpor_node *nd, int t)
{
	return nd->cur >= 0 && t != nd->cur && t != MSIM__DPOR_R;
}

static bool within_bound(const struct msim__dpor *d, const struct msim__dpor_node *nd, int t)
{
	return nd->pre + (preempts(nd, t) ? 1u : 0u) <= d->bound;
}

/* Option i (thread t) taken at nd: count its preemption. */
static int take(struct msim__dpor *d, const struct msim__dpor_node *nd, unsigned int i, int t)
{
	if (preempts(nd, t))
		d->pre++;
	return (int)i;
}

/* Replay the prefix; past it, the first enabled thread not asleep, within the bound. */
int msim__dpor_choose(struct msim__dpor *d, const struct msim *m, const int *pick, unsigned int n,
		      bool current_enabled)
{
	struct msim__dpor_node *nd = node_at(d, d->depth);
	uint64_t enabled, asleep;
	int tid[n ? n : 1];

	if (d->error)
		return MSIM__DPOR_BLOCKED;
	d->irq_threads |= msim__dpor_irq_sources(pick, n);
	enabled = enabled_mask(d, m, pick, n, tid);
	if (d->error)
		return MSIM__DPOR_BLOCKED;   /* more tasks than a mask holds */
	nd->cur = current_enabled ? tid[0] : -1;
	nd->pre = d->pre;
	if (d->depth < d->prefix) {
		for (unsigned int i = 0; i < n; i++)
			if (tid[i] == nd->chosen)
				return take(d, nd, i, nd->chosen);
		d->diverged = true;
		return 0;
	}
	if (d->depth >= d->len) {
		/* a new decision: its sleep set was filled when the step before it ended */
		nd->backtrack = 0;
		d->len = d->depth + 1;
	}
	nd->enabled = enabled;
	asleep = msim__dpor_sleep_mask(nd);
	for (unsigned int i = 0; i < n; i++) {
		int t = tid[i];
		if (!(asleep & (1ULL << t)) && within_bound(d, nd, t)) {
			nd->chosen = t;
			nd->backtrack |= 1ULL << t;
			return take(d, nd, i, t);
		}
	}
	d->blocked = true;
	return MSIM__DPOR_BLOCKED;
}

/* The engine's step records from an empty set: its callbacks note what they touch. */
static const struct msim__step_access rcu_step_start;

void msim__dpor_step_begin(struct msim__dpor *d, struct msim *m, int pick)
{
	struct msim__step_access next;

	d->step_tid = thread_of(d, m, pick, &next); /* a drain's entry is still there */
	msim__access_step_begin(pick != MSIM_PICK_R ? &d->next[d->step_tid] : &rcu_step_start);
	if (pick != MSIM_PICK_R)
		return;
	d->r_drains = false;
	for (unsigned int cpu = 0; cpu < m->cfg.nr_cpus; cpu++)
		d->r_drains |= msim__wmm_pending(m, cpu) != 0;
}

/*
 * What an RCU engine step touched. Ending a grace period wakes the waiters: a
 * store to the host's grace-period state, which grace-period requests store too
 * (a waiter's resumed step announces its request again, so it stays ordered
 * after the step that woke it) and an exit from a section the grace period
 * waited for loads (rcu_det.h). It reads only the readers the grace period's
 * snapshot recorded, so entries and other exits commute with it; a step that
 * starts the next grace period stores the readers' state too (rcu_det.c,
 * gp_start). The callbacks it ran noted their accesses (access.h); one that
 * keeps no annotation made the set "anything". Under preempt=none or full any
 * park may be the quiescent state the engine waits for, and under a weak memory
 * model the end drains every CPU's buffered stores: then it conflicts with
 * everything.
 */
static void rcu_step_access(struct msim__dpor *d, struct msim *m, struct msim__step_access *acc)
{
	struct msim__step_access unused;

	msim__access_note(msim__rcu_gp_state(m), MSIM_ACCESS_STORE);
	msim__access_step_end(acc, &unused);
	if (m->cfg.preempt != MSIM_PREEMPT_UNMODELLED || d->r_drains)
		msim__access_set_one(acc, NULL, MSIM_ACCESS_ANY);
}

/* Two steps of different threads that do not commute. */
static bool dependent(uint8_t t1, unsigned int cpu1, const struct msim__step_access *a1,
		      uint8_t t2, unsigned int cpu2, const struct msim__step_access *a2)
{
	if (t1 == t2)
		return true;
	if (t1 != MSIM__DPOR_R && t2 != MSIM__DPOR_R && cpu1 == cpu2)
		return true;
	return msim__access_conflict(a1, a2);
}

void msim__dpor_step_end(struct msim__dpor *d, struct msim *m, int pick)
{
	int t = d->step_tid;
	struct msim__dpor_event *e;
	struct msim__step_access announced;

	msim__access_copy(&announced, &d->next[t < MSIM__DPOR_R ? t : 0]);
	d->ev = msim__dpor_grow(d->ev, &d->ev_cap, d->depth + 1, sizeof(*d->ev));
	e = &d->ev[d->depth];
	e->tid = (uint8_t)t;
	if (t == MSIM__DPOR_R) {
		e->cpu = msim__dpor_thread_cpu(d, m, MSIM__DPOR_R);
		rcu_step_access(d, m, &e->acc);
	} else if (MSIM_PICK_IS_DRAIN(pick)) {
		e->cpu = msim__dpor_thread_cpu(d, m, (unsigned int)t);
		msim__access_step_end(&e->acc, &d->next[t]); /* its next: at the next decision */
	} else {
		e->cpu = m->task_vec[t]->cpu;
		msim__access_step_end(&e->acc, &d->next[t]);
		if (msim__dpor_irq_returned(m, (unsigned int)t)) /* it next arrives afresh */
			msim__access_set_one(&d->next[t], NULL, MSIM_ACCESS_NONE);
		d->handover = m->cfg.preempt != MSIM_PREEMPT_UNMODELLED;
		if (m->task_vec[t]->state == MSIM_TASK_BLOCKED &&
		    m->task_vec[t]->wait == MSIM_WAIT_LOCK)
			d->lock_waiters |= 1ULL << t;
	}
	e->lidx = d->steps_of[t]++;
	d->nodes[d->depth].chosen = t;
	if (t == MSIM__DPOR_R)
		msim__dpor_to_ids(d, &e->acc, d->depth, &d->nodes[d->depth].chosen_extra);
	else
		msim__dpor_extra_ids(d, &e->acc, &announced, d->depth, &d->nodes[d->depth].chosen_extra);
	if (d->depth + 1 >= d->prefix) {
		msim__dpor_propagate_sleep(d, m, e, node_at(d, d->depth + 1));
	} else {
		/*
		 * Replaying the prefix: its addresses still get their ids here, the
		 * step that touched them first, as in the run that explored it;
		 * otherwise a sleeper's id of a prefix object names nothing and a
		 * conflict with it goes unseen (a review's random pso toy).
		 */
		msim__dpor_register_ids(d, &e->acc, d->depth);
	}
	d->depth++;
}

/* ---- after a run: races, then the next prefix ---- */

#define T MSIM__DPOR_THREADS

static bool ev_dependent(const struct msim__dpor_event *a, const struct msim__dpor_event *b)
{
	return dependent(a->tid, a->cpu, &a->acc, b->tid, b->cpu, &b->acc);
}

/*
 * The run's vector clocks, one row per event, one column per thread that
 * stepped in the run (a handful of the 64 ids: the engine is 63, drains count
 * down from 62), so that a join touches only those.
 */
struct clocks {
	uint32_t *vc;
	unsigned int w;           /* columns */
	uint8_t col[T];           /* a thread's column */
};

static int clocks_init(struct clocks *c, const struct msim__dpor *d)
{
	uint64_t seen = 0;

	for (uint64_t k = 0; k < d->depth; k++)
		seen |= 1ULL << d->ev[k].tid;
	c->w = 0;
	for (unsigned int t = 0; t < T; t++)
		c->col[t] = seen & (1ULL << t) ? (uint8_t)c->w++ : 0;
	c->vc = calloc(d->depth ? d->depth * c->w : 1, sizeof(uint32_t));
	return c->vc ? 0 : -ENOMEM;
}

static uint32_t *clock_of(const struct clocks *c, uint64_t k)
{
	return c->vc + k * c->w;
}

/* y happens before the event whose vector clock is vc_x. */
static bool hb(const struct clocks *c, const uint32_t *vc_x, const struct msim__dpor_event *y)
{
	return vc_x[c->col[y->tid]] > y->lidx;
}

static void vc_join(const struct clocks *c, uint32_t *dst, const uint32_t *src)
{
	for (unsigned int t = 0; t < c->w; t++)
		if (src[t] > dst[t])
			dst[t] = src[t];
}

static unsigned int lowest(uint64_t mask)
{
	return (unsigned int)__builtin_ctzll(mask);
}

/*
 * The initials of v = notdep(e_i).e_j: the events after e_i that do not happen
 * after it, then e_j. A thread is an initial when its first event in v has no
 * predecessor in v (it can start a reordering of v).
 */
static uint64_t initials(const struct msim__dpor *d, const struct clocks *c, uint64_t i, uint64_t j)
{
	const struct msim__dpor_event *e = &d->ev[i];
	uint64_t seen = 0, init = 0;
	uint64_t first[T];

	for (uint64_t k = i + 1; k <= j; k++) {
		const uint32_t *vk = clock_of(c, k);
		unsigned int t = d->ev[k].tid;
		bool is_initial = true;

		if ((k != j && hb(c, vk, e)) || (seen & (1ULL << t)))
			continue;
		for (uint64_t s = seen; s && is_initial; s &= s - 1)
			if (hb(c, vk, &d->ev[first[lowest(s)]]))
				is_initial = false;
		seen |= 1ULL << t;
		first[t] = k;
		if (is_initial)
			init |= 1ULL << t;
	}
	return init;
}

/*
 * Under a preemption bound the reversal at e_i may cost a preemption the bound
 * does not allow, while switching where e_i's thread took over (the start of its
 * block of steps) costs none more than this run did (bounded POR, Coons,
 * Musuvathi and McKinley, OOPSLA 2013): try e_j's thread there too, or, if it
 * could not run there, every thread that could.
 */
static void conservative_branch(struct msim__dpor *d, uint64_t i, unsigned int tj)
{
	uint64_t c = i;
	struct msim__dpor_node *nc;

	while (c > 0 && d->nodes[c - 1].chosen == d->nodes[i].chosen)
		c--;
	nc = &d->nodes[c];
	if (nc->enabled & (1ULL << tj))
		nc->backtrack |= 1ULL << tj;
	else
		nc->backtrack |= nc->enabled;
}

/* The race e_i, e_j: make sure the decision before e_i tries a reversal. */
static void reverse_race(struct msim__dpor *d, const struct clocks *c, uint64_t i, uint64_t j,
			 uint64_t final_enabled)
{
	struct msim__dpor_node *nd = &d->nodes[i];
	uint64_t tj = 1ULL << d->ev[j].tid;
	uint64_t after = i + 1 < d->depth ? d->nodes[i + 1].enabled : final_enabled;
	uint64_t init, cand, awake;

	if (!(nd->enabled & tj) && (after & tj))
		return; /* e_i enabled e_j's thread: the order cannot be reversed */
	d->races++;
	init = initials(d, c, i, j);
	if (init & nd->backtrack)
		return;
	cand = init & nd->enabled;
	if (!cand)
		return;
	awake = cand & ~msim__dpor_sleep_mask(nd);
	/*
	 * One initial is enough without a bound. Under a bound the initials differ
	 * in the preemptions they cost, and the one taken may not fit where another
	 * would: add them all (a review's random pso toys at bound 1 missed
	 * outcomes DFS sees with only the lowest).
	 */
	if (d->bound < MSIM_EXPLORE_UNBOUNDED)
		nd->backtrack |= awake ? awake : cand;
	else
		nd->backtrack |= 1ULL << lowest(awake ? awake : cand);
	d->backtracks++;
	if (d->bound < MSIM_EXPLORE_UNBOUNDED)
		conservative_branch(d, i, d->ev[j].tid);
}

/* Event e as the index sees it: the same-CPU rule is for tasks and handlers
 * (the engine and drain threads have CPU numbers no task has,
 * msim__dpor_thread_cpu()). */
static struct msim__dpor_index_step index_step(const struct msim__dpor_event *e)
{
	return (struct msim__dpor_index_step){
		.tid = e->tid, .cpu = e->cpu, .acc = &e->acc,
		.cpu_rule = e->tid != MSIM__DPOR_R && e->cpu < MSIM_MAX_CPUS };
}

/*
 * Vector clocks of every event in one forward pass; for each event e_j, one
 * backward walk finds its direct predecessors: an earlier event not yet known
 * to happen before e_j that is dependent with it (or its thread's previous
 * step). Those of other threads are its races. The walk visits only the
 * candidates the index gives (explore_dpor_index.h says why that is the same).
 */
static int detect_races(struct msim__dpor *d, uint64_t final_enabled)
{
	struct clocks c;
	uint64_t race[T];

	if (clocks_init(&c, d))
		return -ENOMEM;
	msim__dpor_index_reset(&d->index);
	for (uint64_t j = 0; j < d->depth; j++) {
		const struct msim__dpor_event *ej = &d->ev[j];
		struct msim__dpor_index_step sj = index_step(ej);
		uint32_t *vj = clock_of(&c, j);
		unsigned int nr = 0;

		msim__dpor_index_candidates(&d->index, &sj);
		for (uint64_t k = 0; k < d->index.nr_cand; k++) {
			uint64_t i = d->index.cand[k];
			const struct msim__dpor_event *ei = &d->ev[i];
			if (hb(&c, vj, ei))
				continue;
			if (ei->tid == ej->tid) {
				vc_join(&c, vj, clock_of(&c, i));
			} else if (ev_dependent(ei, ej)) {
				if (nr < T)
					race[nr++] = i;
				vc_join(&c, vj, clock_of(&c, i));
			}
		}
		vj[c.col[ej->tid]] = ej->lidx + 1;
		msim__dpor_index_add(&d->index, &sj);
		for (unsigned int k = 0; k < nr; k++)
			reverse_race(d, &c, race[k], j, final_enabled);
	}
	free(c.vc);
	return 0;
}

/* Thread tid could have stepped at decision i and did not: try it there. */
static void reverse_pending(struct msim__dpor *d, uint64_t i, unsigned int tid)
{
	struct msim__dpor_node *nd = &d->nodes[i];
	uint64_t t = 1ULL << tid;

	d->races++;
	if ((nd->backtrack | msim__dpor_sleep_mask(nd)) & t)
		return; /* tried here already, or asleep: an equivalent was explored */
	nd->backtrack |= t;
	d->backtracks++;
	if (d->bound < MSIM_EXPLORE_UNBOUNDED)
		conservative_branch(d, i, tid);
}

/*
 * An interrupt's arrival is optional: a run may end without it, so no race among
 * the run's steps names it. A step that disabled a source's arrival races with
 * that pending arrival (explore_dpor_irq.c says why this is enough).
 *
 * Under preempt=none|full the same holds for tasks: a task that takes its CPU
 * where it cannot be preempted disables the CPU's other tasks until it yields
 * it, and their next steps come after its later steps, which are dependent with
 * them (same CPU): no race of the run says another task could have taken the
 * CPU first. Without this, random toys (test_explore_dpor_irq.c) showed DPOR
 * missing outcomes DFS sees under both models, with no interrupt declared.
 *
 * And for a task woken on a lock (lock.c): the release enables it, and a race
 * reversal skips that pair (reverse_race), but another taker's acquire can take
 * L first and disable it again. The acquire and the waiter's pending step (its
 * retry, which announces the RMW of L again) conflict, yet the taker's release
 * comes between them and orders them, so no race of the run names the pair: the
 * orders in which the waiter retakes L before that taker were lost, bounded or
 * not (test_explore_dpor's bounded_sleep_waiters_park, with the lock's
 * contended count in its outcome). Any thread that blocked on a lock in the run
 * is pending here; another step that disables it (an arrival on its CPU) is a
 * race of Flanagan and Godefroid's kind as well.
 */
static void pending_races(struct msim__dpor *d, uint64_t final_enabled)
{
	uint64_t pending = d->handover ? ~0ULL : d->irq_threads | msim__dpor_drain_mask(&d->drains) |
				 d->lock_waiters;

	for (uint64_t i = 0; pending && i < d->depth; i++) {
		uint64_t after = i + 1 < d->depth ? d->nodes[i + 1].enabled : final_enabled;
		uint64_t lost = msim__dpor_irq_disabled(pending, d->nodes[i].enabled,
							 after, d->ev[i].tid);

		for (; lost; lost &= lost - 1)
			reverse_pending(d, i, lowest(lost));
	}
}

/*
 * Whether the thread stepped at decision j of this run could step again after
 * it. Past the last step only a pruned run knows (the decision it stopped at);
 * a run that ended or was cut says it could (the safe answer: see
 * sleep_keeps_bound()).
 */
static bool enabled_after(const struct msim__dpor *d, uint64_t j, uint64_t final_enabled)
{
	uint64_t t = 1ULL << d->nodes[j].chosen;

	if (j + 1 < d->depth)
		return d->nodes[j + 1].enabled & t;
	return d->blocked ? (final_enabled & t) != 0 : true;
}

bool msim__dpor_next(struct msim__dpor *d)
{
	uint64_t final_enabled = d->blocked ? d->nodes[d->depth].enabled : 0;

	if (detect_races(d, final_enabled))
		abort();
	pending_races(d, final_enabled);
	for (uint64_t j = d->depth; j-- > 0;) {
		struct msim__dpor_node *nd = &d->nodes[j];
		uint64_t cand;

		msim__dpor_sleep_add_explored(nd, (uint8_t)nd->chosen, j, enabled_after(d, j, final_enabled),
				   &nd->chosen_extra); /* explored here */
		cand = nd->backtrack & nd->enabled & ~msim__dpor_sleep_mask(nd);
		for (uint64_t m = cand; m; m &= m - 1)
			if (!within_bound(d, nd, (int)lowest(m)))
				cand &= ~(1ULL << lowest(m));
		if (cand) {
			nd->chosen = (int)lowest(cand);
			d->len = d->prefix = j + 1;
			return true;
		}
	}
	d->len = d->prefix = 0;
	return false;
}

void msim__dpor_free(struct msim__dpor *d)
{
	for (uint64_t i = 0; i < d->cap; i++) {
		free(d->nodes[i].sleep);
		free(d->nodes[i].explored);
	}
	free(d->nodes);
	free(d->ev);
	free(d->ids);
	msim__dpor_index_free(&d->index);
	memset(d, 0, sizeof(*d));
}
