/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_sleep.c - source-DPOR's sleep sets (explore_dpor.c): which
 * threads sleep at a decision, which of them a step leaves asleep, and, under a
 * preemption bound, which may sleep at all (docs/explore.md, "Sleep sets under a
 * preemption bound"). A sleeper's step was taken in an earlier run, so steps
 * name addresses by ids (struct msim__dpor.ids): the step that first touched
 * them, which two runs through one prefix share for the prefix's objects.
 */
#include <stdlib.h>

#include "explore_dpor.h"
#include "explore_dpor_sleep.h"

static void *grow_array(void *arr, unsigned int *cap, unsigned int need, size_t size)
{
	unsigned int c = *cap ? *cap * 2 : 4;

	if (need <= *cap)
		return arr;
	arr = realloc(arr, c * size);
	if (!arr)
		abort();
	*cap = c;
	return arr;
}

static void sleep_push(struct msim__dpor_node *n, const struct msim__dpor_sleeper *s)
{
	n->sleep = grow_array(n->sleep, &n->cap_sleep, n->nr_sleep + 1, sizeof(*n->sleep));
	n->sleep[n->nr_sleep++] = *s;
	n->sleep_bits |= 1ULL << s->tid;
}

/* Thread tid, explored at node n (index since), sleeps there from now on. */
void msim__dpor_sleep_add_explored(struct msim__dpor_node *n, uint8_t tid, uint64_t since,
				   bool en_after, const struct msim__step_access *extra)
{
	if (n->sleep_bits & (1ULL << tid))
		return;
	n->explored = grow_array(n->explored, &n->cap_explored, n->nr_explored + 1,
				 sizeof(*n->explored));
	msim__access_copy(&n->explored[n->nr_explored], extra);
	sleep_push(n, &(struct msim__dpor_sleeper){
		.tid = tid, .en_after = en_after, .k = n->nr_explored, .since = since });
	n->nr_explored++;
}

uint64_t msim__dpor_sleep_mask(const struct msim__dpor_node *n)
{
	return n->sleep_bits;
}

static uint64_t *id_slot(struct msim__dpor *d, uintptr_t addr, bool *fresh)
{
	uint64_t k = (addr * 0x9e3779b97f4a7c15ULL >> 17) & (d->ids_cap - 1);

	while (d->ids[k].addr && d->ids[k].addr != addr)
		k = (k + 1) & (d->ids_cap - 1);
	*fresh = !d->ids[k].addr;
	d->ids[k].addr = addr;
	return &d->ids[k].id;
}

/* Double the table (or make the first one) and rehash: it stays under 3/4 full. */
static void ids_grow(struct msim__dpor *d)
{
	uint64_t old_cap = d->ids_cap;
	typeof(d->ids) old = d->ids;
	bool fresh;

	d->ids_cap = old_cap ? old_cap * 2 : 256;
	d->ids = calloc(d->ids_cap, sizeof(*d->ids));
	if (!d->ids)
		abort();
	for (uint64_t k = 0; k < old_cap; k++)
		if (old[k].addr)
			*id_slot(d, old[k].addr, &fresh) = old[k].id;
	free(old);
}

/*
 * The id of addr in this run: the step that first touched its 8-byte granule
 * (step, if now), times 8, plus addr's offset in the granule. Naming granules
 * rather than start addresses lets two accesses that overlap from different
 * starts (a 4-byte load of an 8-byte store's upper half) be seen to overlap.
 */
#define ID_SHIFT 3
#define ID_OFFSET_MASK ((1u << ID_SHIFT) - 1)

static uint64_t addr_id(struct msim__dpor *d, uintptr_t addr, uint64_t step)
{
	bool fresh;
	uint64_t *id;

	if (4 * (d->ids_used + 1) > 3 * d->ids_cap)
		ids_grow(d);
	id = id_slot(d, (addr >> ID_SHIFT) + 1, &fresh); /* + 1: key 0 is an empty slot */
	if (fresh) {
		*id = step;
		d->ids_used++;
	}
	return *id << ID_SHIFT | (addr & ID_OFFSET_MASK);
}

/* Access a (as an id) stays inside its granule. */
static bool in_granule(const struct msim__access *a)
{
	return (a->addr & ID_OFFSET_MASK) + a->len <= 1u << ID_SHIFT;
}

/*
 * Whether a sleeper's access s (an id, since: the decision it sleeps from) and
 * a step's access e (an id) may touch one byte. An id below since names the
 * same granule in every run through that decision: their offsets tell. An id
 * of since or above may be any granule first touched at or after it in
 * another run: it may be e's if e's is one too. An access that leaves its
 * granule (a range) may reach anything.
 */
static bool ids_may_overlap(const struct msim__access *s, uint64_t since,
			    const struct msim__access *e)
{
	uint64_t sg = s->addr >> ID_SHIFT, eg = e->addr >> ID_SHIFT;
	struct msim__access so = *s, eo = *e;

	if (!in_granule(s) || !in_granule(e))
		return true;
	if (sg >= since)
		return eg >= since;
	so.addr &= ID_OFFSET_MASK;
	eo.addr &= ID_OFFSET_MASK;
	return sg == eg && msim__access_overlap(&so, &eo);
}

/* A sleeper's extra accesses (ids) against a step taken now (ids): a conflict? */
static bool sleeper_conflict(const struct msim__dpor *d, const struct msim__dpor_sleeper *s,
			     const struct msim__step_access *e)
{
	const struct msim__step_access *acc = &d->nodes[s->since].explored[s->k];

	if (acc->any || e->any)
		return true;
	for (unsigned int i = 0; i < acc->n; i++)
		for (unsigned int j = 0; j < e->n; j++)
			if (((acc->a[i].kind | e->a[j].kind) & MSIM_ACCESS_STORE) &&
			    ids_may_overlap(&acc->a[i], s->since, &e->a[j]))
				return true;
	return false;
}

/* Give acc's addresses their ids (those first touched now get step). */
void msim__dpor_register_ids(struct msim__dpor *d, const struct msim__step_access *acc,
			     uint64_t step)
{
	for (unsigned int k = 0; k < acc->n; k++)
		addr_id(d, acc->a[k].addr, step);
}

/* acc with its addresses as ids (registering those first touched at step). */
void msim__dpor_to_ids(struct msim__dpor *d, const struct msim__step_access *acc, uint64_t step,
		       struct msim__step_access *out)
{
	msim__access_copy(out, acc);
	for (unsigned int k = 0; k < out->n; k++)
		out->a[k].addr = (uintptr_t)addr_id(d, out->a[k].addr, step);
}

/* What step acc touched beyond what it announced, as ids. */
void msim__dpor_extra_ids(struct msim__dpor *d, const struct msim__step_access *acc,
			  const struct msim__step_access *announced, uint64_t step,
			  struct msim__step_access *out)
{
	out->n = 0;
	out->any = acc->any && !announced->any;
	for (unsigned int k = 0; k < acc->n; k++) {
		bool known = false;
		for (unsigned int i = 0; i < announced->n; i++)
			if (announced->a[i].addr == acc->a[k].addr &&
			    announced->a[i].len == acc->a[k].len &&
			    (announced->a[i].kind | acc->a[k].kind) == announced->a[i].kind)
				known = true;
		if (!known)
			out->a[out->n++] = (struct msim__access){
				.addr = (uintptr_t)addr_id(d, acc->a[k].addr, step),
				.len = acc->a[k].len, .kind = acc->a[k].kind };
	}
}

/*
 * Under a preemption bound a sleeper is kept only where the schedule it stands
 * for costs no more preemptions than the one it prunes (else the bounded toys
 * of test_explore_dpor miss an order: the only serial schedule that runs the
 * reader first was slept away, its equivalent needing a preemption). Thread p
 * was explored at node n, whose task that ran last (and could go on) is c; the
 * branch now takes q. A schedule n.q.w.p.v with p's step independent of q.w is
 * equivalent to n.p.q.w.v, which the explored branch covers if it fits the
 * bound. The engine and the tasks other than p switch at the same places in
 * both from w on, and at the end n.p.q.w.v switches away from w's last task at
 * most where n.q.w.p.v switched to p, so the difference is at the head:
 *   p is the engine: it switches nothing (sched_string.c keeps the task that
 *     ran last): equal;
 *   q is the engine: equal or fewer when p is c, or when no task could go on
 *     and p cannot go on after its step either;
 *   both tasks: [p != c] + [p can go on after its step] <= [q != c] (with no
 *     c, both brackets of c are 0): p was preempted by q, or p's step ended it.
 * An interrupt source is a thread like a task here: its arrival makes it the
 * task that ran last (sched_string.c) and costs a preemption where another
 * context could go on, as a task's switch does; the steps w and q are of other
 * CPUs (a sleeper wakes at a step of its CPU), whose interrupts do not change
 * p's or the last task's enabledness. The argument needs no store buffers (a
 * drain costs a preemption wherever it goes and switches no task) and
 * unmodelled preemption (none and full hand CPUs over); otherwise no sleepers
 * under a bound, as before.
 */
static bool sleep_keeps_bound(const struct msim__dpor_node *nd, const struct msim__dpor_sleeper *s,
			      int q)
{
	int p = s->tid, c = nd->cur;

	if (p == MSIM__DPOR_R)
		return true;
	if (q == MSIM__DPOR_R)
		return p == c || (c < 0 && !s->en_after);
	return (c >= 0 && p != c) + s->en_after <= (c >= 0 && q != c);
}

static bool bounded_sleep_ok(const struct msim *m)
{
	return m->cfg.preempt == MSIM_PREEMPT_UNMODELLED && !m->wmm;
}

/* The sleep set of the decision after step e: the sleepers its step left asleep. */
void msim__dpor_propagate_sleep(struct msim__dpor *d, const struct msim *m,
				const struct msim__dpor_event *e, struct msim__dpor_node *nx)
{
	uint64_t i = (uint64_t)(e - d->ev);
	struct msim__dpor_node *cur = &d->nodes[i];
	bool bounded = d->bound < MSIM_EXPLORE_UNBOUNDED;
	struct msim__step_access e_ids;

	nx->nr_sleep = 0;
	nx->sleep_bits = 0;
	nx->nr_explored = 0;
	if (!cur->nr_sleep || (bounded && !bounded_sleep_ok(m))) {
		msim__dpor_register_ids(d, &e->acc, i);
		return;
	}
	msim__dpor_to_ids(d, &e->acc, i, &e_ids);
	for (unsigned int k = 0; k < cur->nr_sleep; k++) {
		const struct msim__dpor_sleeper *s = &cur->sleep[k];

		if (s->tid == e->tid || msim__dpor_thread_cpu(d, m, s->tid) == e->cpu)
			continue;
		if (bounded && s->since == i && !sleep_keeps_bound(cur, s, e->tid))
			continue;
		if (!sleeper_conflict(d, s, &e_ids) &&
		    !msim__access_conflict(&d->next[s->tid], &e->acc))
			sleep_push(nx, s);
	}
}

