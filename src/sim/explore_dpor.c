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
 * msim_yield, the RCU engine, whose callbacks run anything), or when both are
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
 * equivalent to one explored). A sleeper's step is judged by what it announces in
 * the current run (addresses are per run: every run allocates afresh), and by
 * "anything" when the step noted more than it announced when it ran.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explore_dpor.h"

static void *grow(void *p, uint64_t *cap, uint64_t need, size_t size)
{
	if (need <= *cap)
		return p;
	uint64_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *np = realloc(p, c * size);
	if (!np)
		abort();
	*cap = c;
	return np;
}

static int tid_of(int pick)
{
	return pick == MSIM_PICK_R ? MSIM__DPOR_R : pick;
}

static struct msim__dpor_node *node_at(struct msim__dpor *d, uint64_t i)
{
	uint64_t cap = d->cap;

	d->nodes = grow(d->nodes, &cap, i + 1, sizeof(*d->nodes));
	if (cap != d->cap) {
		memset(d->nodes + d->cap, 0, (cap - d->cap) * sizeof(*d->nodes));
		d->cap = cap;
	}
	return &d->nodes[i];
}

static void sleep_add(struct msim__dpor_node *n, uint8_t tid, bool extras)
{
	for (unsigned int i = 0; i < n->nr_sleep; i++)
		if (n->sleep[i].tid == tid)
			return;
	if (n->nr_sleep == n->cap_sleep) {
		unsigned int cap = n->cap_sleep ? n->cap_sleep * 2 : 4;
		struct msim__dpor_sleeper *s = realloc(n->sleep, cap * sizeof(*s));
		if (!s)
			abort();
		n->sleep = s;
		n->cap_sleep = cap;
	}
	n->sleep[n->nr_sleep].tid = tid;
	n->sleep[n->nr_sleep].extras = extras;
	n->nr_sleep++;
}

static uint64_t sleep_mask(const struct msim__dpor_node *n)
{
	uint64_t mask = 0;

	for (unsigned int i = 0; i < n->nr_sleep; i++)
		mask |= 1ULL << n->sleep[i].tid;
	return mask;
}

int msim__dpor_begin_run(struct msim__dpor *d)
{
	d->depth = 0;
	d->blocked = false;
	d->diverged = false;
	memset(d->steps_of, 0, sizeof(d->steps_of));
	for (unsigned int t = 0; t < MSIM__DPOR_THREADS; t++)
		msim__access_set_one(&d->next[t], NULL,
				     t == MSIM__DPOR_R ? MSIM_ACCESS_ANY : MSIM_ACCESS_NONE);
	return 0;
}

/* ---- during a run ---- */

static uint64_t enabled_mask(struct msim__dpor *d, const int *pick, unsigned int n)
{
	uint64_t mask = 0;

	for (unsigned int i = 0; i < n; i++) {
		int t = tid_of(pick[i]);
		if (pick[i] != MSIM_PICK_R && t >= MSIM__DPOR_R) {
			d->error = -E2BIG; /* more tasks than a mask holds */
			return 0;
		}
		mask |= 1ULL << t;
	}
	return mask;
}

/* Replay the prefix; past it, the first enabled thread not asleep. */
int msim__dpor_choose(struct msim__dpor *d, const int *pick, unsigned int n)
{
	struct msim__dpor_node *nd = node_at(d, d->depth);
	uint64_t enabled = enabled_mask(d, pick, n), asleep;

	if (d->error)
		return MSIM__DPOR_BLOCKED;
	if (d->depth < d->prefix) {
		for (unsigned int i = 0; i < n; i++)
			if (tid_of(pick[i]) == nd->chosen)
				return (int)i;
		d->diverged = true;
		return 0;
	}
	if (d->depth >= d->len) {
		/* a new decision: its sleep set was filled when the step before it ended */
		nd->backtrack = 0;
		d->len = d->depth + 1;
	}
	nd->enabled = enabled;
	asleep = sleep_mask(nd);
	for (unsigned int i = 0; i < n; i++) {
		int t = tid_of(pick[i]);
		if (!(asleep & (1ULL << t))) {
			nd->chosen = t;
			nd->backtrack |= 1ULL << t;
			return (int)i;
		}
	}
	d->blocked = true;
	return MSIM__DPOR_BLOCKED;
}

void msim__dpor_step_begin(struct msim__dpor *d, struct msim *m, int pick)
{
	(void)m;
	if (pick != MSIM_PICK_R)
		msim__access_step_begin(&d->next[pick]);
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

static const struct msim__step_access any_access = { .any = true };

/* The sleep set of the decision after step i: the sleepers its step left asleep. */
static void propagate_sleep(struct msim__dpor *d, struct msim *m, const struct msim__dpor_event *e)
{
	struct msim__dpor_node *cur = &d->nodes[e - d->ev], *nx;
	uint64_t i = (uint64_t)(e - d->ev);

	nx = node_at(d, i + 1);
	cur = &d->nodes[i]; /* node_at may have moved the array */
	nx->nr_sleep = 0;
	for (unsigned int k = 0; k < cur->nr_sleep; k++) {
		const struct msim__dpor_sleeper *s = &cur->sleep[k];
		unsigned int cpu = s->tid == MSIM__DPOR_R ? 0 : m->task_vec[s->tid]->cpu;
		const struct msim__step_access *a = s->extras ? &any_access : &d->next[s->tid];

		if (s->tid != e->tid && !dependent(s->tid, cpu, a, e->tid, e->cpu, &e->acc))
			sleep_add(nx, s->tid, s->extras);
	}
}

void msim__dpor_step_end(struct msim__dpor *d, struct msim *m, int pick)
{
	int t = tid_of(pick);
	struct msim__dpor_event *e;
	struct msim__step_access announced = d->next[t < MSIM__DPOR_R ? t : 0];

	d->ev = grow(d->ev, &d->ev_cap, d->depth + 1, sizeof(*d->ev));
	e = &d->ev[d->depth];
	e->tid = (uint8_t)t;
	if (t == MSIM__DPOR_R) {
		e->cpu = 0;
		e->acc = any_access;
	} else {
		e->cpu = m->task_vec[t]->cpu;
		msim__access_step_end(&e->acc, &d->next[t]);
	}
	e->lidx = d->steps_of[t]++;
	d->nodes[d->depth].chosen = t;
	/* A step that noted more than it announced sleeps as "anything" later. */
	d->nodes[d->depth].chosen_extras =
		t != MSIM__DPOR_R && memcmp(&announced, &e->acc, sizeof(announced)) != 0;
	if (d->depth + 1 >= d->prefix)
		propagate_sleep(d, m, e);
	d->depth++;
}

/* ---- after a run: races, then the next prefix ---- */

#define T MSIM__DPOR_THREADS

static bool ev_dependent(const struct msim__dpor_event *a, const struct msim__dpor_event *b)
{
	return dependent(a->tid, a->cpu, &a->acc, b->tid, b->cpu, &b->acc);
}

/* y happens before the event whose vector clock is vc_x. */
static bool hb(const uint32_t *vc_x, const struct msim__dpor_event *y)
{
	return vc_x[y->tid] > y->lidx;
}

static void vc_join(uint32_t *dst, const uint32_t *src)
{
	for (unsigned int t = 0; t < T; t++)
		if (src[t] > dst[t])
			dst[t] = src[t];
}

/*
 * The initials of v = notdep(e_i).e_j: the events after e_i that do not happen
 * after it, then e_j. A thread is an initial when its first event in v has no
 * predecessor in v (it can start a reordering of v).
 */
static uint64_t initials(const struct msim__dpor *d, const uint32_t *vc, uint64_t i, uint64_t j)
{
	const struct msim__dpor_event *e = &d->ev[i];
	uint64_t seen = 0, init = 0;
	uint64_t first[T];

	for (uint64_t k = i + 1; k <= j; k++) {
		const uint32_t *vk = vc + k * T;
		unsigned int t = d->ev[k].tid;
		bool is_initial = true;

		if ((k != j && hb(vk, e)) || (seen & (1ULL << t)))
			continue;
		for (unsigned int u = 0; u < T && is_initial; u++)
			if ((seen & (1ULL << u)) && hb(vk, &d->ev[first[u]]))
				is_initial = false;
		seen |= 1ULL << t;
		first[t] = k;
		if (is_initial)
			init |= 1ULL << t;
	}
	return init;
}

static unsigned int lowest(uint64_t mask)
{
	return (unsigned int)__builtin_ctzll(mask);
}

/* The race e_i, e_j: make sure the decision before e_i tries a reversal. */
static void reverse_race(struct msim__dpor *d, const uint32_t *vc, uint64_t i, uint64_t j,
			 uint64_t final_enabled)
{
	struct msim__dpor_node *nd = &d->nodes[i];
	uint64_t tj = 1ULL << d->ev[j].tid;
	uint64_t after = i + 1 < d->depth ? d->nodes[i + 1].enabled : final_enabled;
	uint64_t init, cand, awake;

	if (!(nd->enabled & tj) && (after & tj))
		return; /* e_i enabled e_j's thread: the order cannot be reversed */
	d->races++;
	init = initials(d, vc, i, j);
	if (init & nd->backtrack)
		return;
	cand = init & nd->enabled;
	if (!cand)
		return;
	awake = cand & ~sleep_mask(nd);
	nd->backtrack |= 1ULL << lowest(awake ? awake : cand);
	d->backtracks++;
}

/*
 * Vector clocks of every event in one forward pass; for each event e_j, one
 * backward scan finds its direct predecessors: an earlier event not yet known
 * to happen before e_j that is dependent with it (or its thread's previous
 * step). Those of other threads are its races.
 */
static int detect_races(struct msim__dpor *d, uint64_t final_enabled)
{
	uint64_t n = d->depth;
	uint32_t *vc = calloc(n ? n * T : 1, sizeof(uint32_t));
	uint64_t *race = malloc(T * sizeof(uint64_t));

	if (!vc || !race) {
		free(vc);
		free(race);
		return -ENOMEM;
	}
	for (uint64_t j = 0; j < n; j++) {
		const struct msim__dpor_event *ej = &d->ev[j];
		uint32_t *vj = vc + j * T;
		unsigned int nr = 0;

		for (uint64_t i = j; i-- > 0;) {
			const struct msim__dpor_event *ei = &d->ev[i];
			if (hb(vj, ei))
				continue;
			if (ei->tid == ej->tid) {
				vc_join(vj, vc + i * T);
			} else if (ev_dependent(ei, ej)) {
				if (nr < T)
					race[nr++] = i;
				vc_join(vj, vc + i * T);
			}
		}
		vj[ej->tid] = ej->lidx + 1;
		for (unsigned int k = 0; k < nr; k++)
			reverse_race(d, vc, race[k], j, final_enabled);
	}
	free(vc);
	free(race);
	return 0;
}

bool msim__dpor_next(struct msim__dpor *d)
{
	uint64_t final_enabled = d->blocked ? d->nodes[d->depth].enabled : 0;

	if (detect_races(d, final_enabled))
		abort();
	for (uint64_t j = d->depth; j-- > 0;) {
		struct msim__dpor_node *nd = &d->nodes[j];
		uint64_t cand;

		sleep_add(nd, (uint8_t)nd->chosen, nd->chosen_extras); /* explored here */
		cand = nd->backtrack & nd->enabled & ~sleep_mask(nd);
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
	for (uint64_t i = 0; i < d->cap; i++)
		free(d->nodes[i].sleep);
	free(d->nodes);
	free(d->ev);
	memset(d, 0, sizeof(*d));
}
