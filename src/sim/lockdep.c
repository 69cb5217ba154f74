/* SPDX-License-Identifier: MIT */
/*
 * lockdep.c - the lock-order checker (lockdep.h): lock classes, the dependency
 * graph shared by every host that records into it, the held-lock stack of each
 * task of a host, and the checks. Printing is lockdep_print.c.
 *
 * The graph only grows, and a check runs only when it grows (a new class usage or
 * a new dependency), so a lock operation that repeats what some run did before
 * costs a class lookup and a scan of the task's held locks: the classes and
 * dependencies of the tree's races number in the tens.
 *
 * The invariant each check keeps: every report names a fact of the graph at the
 * moment it was made (a cycle, or a path from a class used in an interrupt
 * context to a class taken with that interrupt enabled), with the acquisitions
 * that first recorded each of its dependencies; dependencies are never removed,
 * so a report stays true for the rest of the exploration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/explore.h>

#include <memcgsim/irq.h>

#include "lockdep.h"
#include "lockdep_internal.h"

/* One lock a task holds. */
struct ld_held {
	const struct msim_lock *lock;
	unsigned int cls;
	const char *after;
	bool trylock;
};

struct ld_stack {
	struct ld_held held[LD_MAX_DEPTH];
	unsigned int depth;
	bool overflow;            /* deeper than LD_MAX_DEPTH: this task is not checked */
	const char *last_point;   /* the last yield point seen that is not a lock shim's */
};

/* A host's view: its graph, its run, and a held-lock stack per task. */
struct msim__lockdep_host {
	struct msim_lockdep *ld;
	int run;
	unsigned int host;
	struct ld_stack **tasks;  /* by task index, allocated on first use */
	unsigned int nr_tasks;
	struct ld_stack driver;
};

/* ---- the context reader ---- */

/*
 * The running context (irq.h): an interrupt handler is a task of its own, so
 * acquisitions are read in the context that makes them. Softirqs count as off
 * in any interrupt context, where none can arrive.
 */
static void irq_default(const struct msim_task *t, struct msim__lockdep_irq *out)
{
	(void)t;
	memset(out, 0, sizeof(*out));
	out->in_nmi = msim_in_nmi();
	out->in_hardirq = msim_in_hardirq();
	out->in_softirq = msim_in_serving_softirq();
	out->hardirqs_off = msim_irqs_disabled();
	out->softirqs_off = out->hardirqs_off || !msim_in_task();
}

static msim__lockdep_irq_fn irq_reader = irq_default;

msim__lockdep_irq_fn msim__lockdep_set_irq_reader(msim__lockdep_irq_fn fn)
{
	msim__lockdep_irq_fn prev = irq_reader;

	irq_reader = fn ? fn : irq_default;
	return prev == irq_default ? NULL : prev;
}

static unsigned int ctx_bits(const struct msim_task *t)
{
	struct msim__lockdep_irq irq;

	irq_reader(t, &irq);
	return (irq.in_hardirq ? LD_CTX_HARDIRQ : 0) | (irq.in_softirq ? LD_CTX_SOFTIRQ : 0) |
	       (irq.in_nmi ? LD_CTX_NMI : 0) | (irq.hardirqs_off ? LD_CTX_HARDIRQS_OFF : 0) |
	       (irq.softirqs_off ? LD_CTX_SOFTIRQS_OFF : 0);
}

/* ---- the graph ---- */

struct msim_lockdep *msim_lockdep_create(void)
{
	struct msim_lockdep *ld = calloc(1, sizeof(*ld));

	if (!ld) {
		errno = ENOMEM;
		return NULL;
	}
	ld->next_run = -1;
	return ld;
}

void msim_lockdep_destroy(struct msim_lockdep *ld)
{
	if (!ld)
		return;
	for (unsigned int i = 0; i < ld->nr_classes; i++)
		free(ld->classes[i].name);
	free(ld->classes);
	free(ld->deps);
	free(ld->reports);
	free(ld->slots);
	free(ld);
}

void msim_lockdep_set_run(struct msim_lockdep *ld, int run)
{
	if (ld)
		ld->next_run = run;
}

/* Grow *vec (of *cap elements of size) to hold one more than n; aborts on ENOMEM. */
static void *grow(void *vec, unsigned int n, unsigned int *cap, size_t size)
{
	if (n < *cap)
		return vec;
	*cap = *cap ? *cap * 2 : 16;
	vec = realloc(vec, *cap * size);
	if (!vec) {
		fprintf(stderr, "memcgsim: lockdep: out of memory\n");
		abort();
	}
	return vec;
}

static uint64_t slot_hash(const char *name, unsigned int subclass)
{
	return ((uint64_t)(uintptr_t)name ^ subclass) * 0x9e3779b97f4a7c15ULL;
}

static void slot_put(struct msim_lockdep *ld, const char *name, unsigned int sub, unsigned int cls);

/* Double the cache and put every slot back. */
static void slots_rehash(struct msim_lockdep *ld)
{
	struct ld_slot *old = ld->slots;
	unsigned int cap = ld->slots_cap;

	ld->slots_cap = cap ? cap * 2 : 64;
	ld->slots = calloc(ld->slots_cap, sizeof(*ld->slots));
	if (!ld->slots)
		abort();
	ld->nr_slots = 0;
	for (unsigned int i = 0; i < cap; i++)
		if (old[i].name)
			slot_put(ld, old[i].name, old[i].subclass, old[i].cls);
	free(old);
}

static void slot_put(struct msim_lockdep *ld, const char *name, unsigned int sub, unsigned int cls)
{
	unsigned int mask, i;

	if ((ld->nr_slots + 1) * 2 > ld->slots_cap)
		slots_rehash(ld);
	mask = ld->slots_cap - 1;
	for (i = (unsigned int)(slot_hash(name, sub) >> 32) & mask; ld->slots[i].name;
	     i = (i + 1) & mask)
		;
	ld->slots[i] = (struct ld_slot){ .name = name, .subclass = sub, .cls = cls };
	ld->nr_slots++;
}

/* The class named name (by content), subclass sub; created when new. */
static unsigned int class_of(struct msim_lockdep *ld, const char *name, unsigned int sub)
{
	unsigned int mask = ld->slots_cap - 1, i;
	struct ld_class *c;

	if (ld->slots_cap) {
		for (i = (unsigned int)(slot_hash(name, sub) >> 32) & mask; ld->slots[i].name;
		     i = (i + 1) & mask)
			/* The content too: a name in memory a later run reuses for another. */
			if (ld->slots[i].name == name && ld->slots[i].subclass == sub &&
			    !strcmp(ld->classes[ld->slots[i].cls].name, name))
				return ld->slots[i].cls;
	}
	/* A name at a new address may still be a known class (names compare by content). */
	for (i = 0; i < ld->nr_classes; i++)
		if (ld->classes[i].subclass == sub && !strcmp(ld->classes[i].name, name))
			break;
	if (i == ld->nr_classes) {
		ld->classes = grow(ld->classes, ld->nr_classes, &ld->classes_cap, sizeof(*c));
		c = &ld->classes[ld->nr_classes++];
		memset(c, 0, sizeof(*c));
		c->name = strdup(name);
		c->subclass = sub;
		c->first_out = -1;
		if (!c->name)
			abort();
	}
	slot_put(ld, name, sub, i);
	return i;
}

static int dep_find(const struct msim_lockdep *ld, unsigned int from, unsigned int to)
{
	for (int d = ld->classes[from].first_out; d >= 0; d = ld->deps[d].next_out)
		if (ld->deps[d].to == to)
			return d;
	return -1;
}

static unsigned int dep_add(struct msim_lockdep *ld, unsigned int from, unsigned int to,
			    const struct ld_acq *acq)
{
	struct ld_dep *d;

	ld->deps = grow(ld->deps, ld->nr_deps, &ld->deps_cap, sizeof(*d));
	d = &ld->deps[ld->nr_deps];
	d->from = from;
	d->to = to;
	d->acq = *acq;
	d->next_out = ld->classes[from].first_out;
	ld->classes[from].first_out = (int)ld->nr_deps;
	return ld->nr_deps++;
}

/*
 * A shortest path of dependencies from class from to class to (breadth first),
 * into chain (its first max dependencies); its length (at most max), or 0 when
 * there is none.
 */
static unsigned int path_find(const struct msim_lockdep *ld, unsigned int from, unsigned int to,
			      unsigned int *chain, unsigned int max)
{
	unsigned int n = ld->nr_classes, head = 0, tail = 0, len = 0;
	int *via = malloc(n * sizeof(*via));      /* the dependency that reached each class */
	unsigned int *queue = malloc(n * sizeof(*queue));

	if (!via || !queue)
		abort();
	for (unsigned int i = 0; i < n; i++)
		via[i] = -2;
	via[from] = -1;
	queue[tail++] = from;
	while (head < tail && via[to] == -2) {
		unsigned int c = queue[head++];
		for (int d = ld->classes[c].first_out; d >= 0; d = ld->deps[d].next_out) {
			unsigned int next = ld->deps[d].to;
			if (via[next] == -2) {
				via[next] = d;
				queue[tail++] = next;
			}
		}
	}
	if (via[to] != -2 && to != from) {
		for (unsigned int c = to; c != from; c = ld->deps[via[c]].from)
			len++;
		unsigned int i = len;
		for (unsigned int c = to; c != from; c = ld->deps[via[c]].from)
			if (--i < max)
				chain[i] = (unsigned int)via[c];
		if (len > max)
			len = max;
	}
	free(via);
	free(queue);
	return len;
}

static struct ld_report *report_new(struct msim_lockdep *ld, enum msim_lockdep_kind kind,
				    const struct ld_acq *trigger)
{
	struct ld_report *r;

	if (ld->nr_reports >= LD_MAX_REPORTS) {
		ld->reports_dropped++;
		return NULL;
	}
	ld->reports = grow(ld->reports, ld->nr_reports, &ld->reports_cap, sizeof(*r));
	r = &ld->reports[ld->nr_reports++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->trigger = *trigger;
	return r;
}

/* A report of kind about classes a and b (irq kind k) exists already. */
static bool reported(const struct msim_lockdep *ld, enum msim_lockdep_kind kind, unsigned int a,
		     unsigned int b, unsigned int k)
{
	for (unsigned int i = 0; i < ld->nr_reports; i++) {
		const struct ld_report *r = &ld->reports[i];
		if (r->kind == kind && r->cls_a == a && r->cls_b == b && r->irq_kind == k)
			return true;
	}
	return false;
}

/* ---- the checks ---- */

/* The new dependency dep closes a cycle when its target reaches its source. */
static void check_circular(struct msim_lockdep *ld, unsigned int dep, const struct ld_acq *acq)
{
	unsigned int chain[LD_MAX_CHAIN], from = ld->deps[dep].from, to = ld->deps[dep].to;
	unsigned int len = path_find(ld, to, from, chain + 1, LD_MAX_CHAIN - 1);
	struct ld_report *r;

	if (!len || !(r = report_new(ld, MSIM_LOCKDEP_CIRCULAR, acq)))
		return;
	chain[0] = dep;
	len++;
	memcpy(r->chain, chain, len * sizeof(*chain));
	r->nr_chain = len;
	r->cls_a = from;
	r->cls_b = to;
}

/*
 * The usages that must not meet, in one class or along a path from the first to
 * the second: a lock an interrupt takes must never be held where that interrupt
 * can arrive (the interrupt would spin on it on the holder's own CPU), and nothing
 * masks an NMI.
 */
static const struct {
	enum ld_usage safe, unsafe;
} conflicts[] = {
	{ LD_USED_IN_HARDIRQ, LD_ENABLED_HARDIRQ },
	{ LD_USED_IN_SOFTIRQ, LD_ENABLED_SOFTIRQ },
	{ LD_USED_IN_NMI, LD_USED_OUTSIDE_NMI },
};
#define NR_CONFLICTS (sizeof(conflicts) / sizeof(conflicts[0]))

static bool has_usage(const struct ld_class *c, enum ld_usage u)
{
	return c->usage & (1u << u);
}

/* One class with both usages of conflict k. */
static void check_inconsistent(struct msim_lockdep *ld, unsigned int cls, unsigned int k,
			       const struct ld_acq *acq)
{
	const struct ld_class *c = &ld->classes[cls];
	enum msim_lockdep_kind kind = k == 2 ? MSIM_LOCKDEP_NMI_UNSAFE
					     : MSIM_LOCKDEP_IRQ_INCONSISTENT;
	struct ld_report *r;

	if (!has_usage(c, conflicts[k].safe) || !has_usage(c, conflicts[k].unsafe) ||
	    reported(ld, kind, cls, cls, k) || !(r = report_new(ld, kind, acq)))
		return;
	r->irq_kind = k;
	r->cls_a = r->cls_b = cls;
}

/* Every path from a class with conflict k's safe usage to one with its unsafe usage. */
static void check_inversions(struct msim_lockdep *ld, unsigned int k, const struct ld_acq *acq)
{
	unsigned int chain[LD_MAX_CHAIN];

	for (unsigned int s = 0; s < ld->nr_classes; s++) {
		if (!has_usage(&ld->classes[s], conflicts[k].safe))
			continue;
		for (unsigned int u = 0; u < ld->nr_classes; u++) {
			struct ld_report *r;
			unsigned int len;

			if (u == s || !has_usage(&ld->classes[u], conflicts[k].unsafe) ||
			    reported(ld, MSIM_LOCKDEP_IRQ_INVERSION, s, u, k))
				continue;
			len = path_find(ld, s, u, chain, LD_MAX_CHAIN);
			if (!len || !(r = report_new(ld, MSIM_LOCKDEP_IRQ_INVERSION, acq)))
				continue;
			memcpy(r->chain, chain, len * sizeof(*chain));
			r->nr_chain = len;
			r->irq_kind = k;
			r->cls_a = s;
			r->cls_b = u;
		}
	}
}

/* What acquisition acq of class cls marks (the kernel's mark_usage()). */
static unsigned int usages_of(unsigned int ctx, bool trylock)
{
	bool in_irq = ctx & (LD_CTX_HARDIRQ | LD_CTX_NMI);
	unsigned int u = 0;

	/* A trylock cannot spin on a holder it interrupted: it marks no USED_IN. */
	if (!trylock) {
		u |= ctx & LD_CTX_HARDIRQ ? 1u << LD_USED_IN_HARDIRQ : 0;
		u |= ctx & LD_CTX_SOFTIRQ ? 1u << LD_USED_IN_SOFTIRQ : 0;
		u |= ctx & LD_CTX_NMI ? 1u << LD_USED_IN_NMI : 0;
	}
	if (!(ctx & LD_CTX_NMI))
		u |= 1u << LD_USED_OUTSIDE_NMI;
	if (!in_irq && !(ctx & LD_CTX_HARDIRQS_OFF)) {
		u |= 1u << LD_ENABLED_HARDIRQ;
		if (!(ctx & (LD_CTX_SOFTIRQ | LD_CTX_SOFTIRQS_OFF)))
			u |= 1u << LD_ENABLED_SOFTIRQ;
	}
	return u;
}

/* Mark cls's new usages; true when it gained one. */
static bool mark_usage(struct msim_lockdep *ld, unsigned int cls, bool trylock,
		       const struct ld_acq *acq)
{
	struct ld_class *c = &ld->classes[cls];
	unsigned int fresh = usages_of(acq->ctx, trylock) & ~c->usage;

	for (unsigned int u = 0; u < LD_NR_USAGE; u++)
		if (fresh & (1u << u))
			c->usage_acq[u] = *acq;
	c->usage |= fresh;
	for (unsigned int k = 0; fresh && k < NR_CONFLICTS; k++)
		check_inconsistent(ld, cls, k, acq);
	return fresh != 0;
}

/* ---- a host's held-lock stacks ---- */

static struct ld_stack *stack_of(struct msim__lockdep_host *lh, const struct msim_task *t)
{
	if (!t)
		return &lh->driver;
	if (t->idx >= lh->nr_tasks) {
		unsigned int n = t->idx + 8;
		struct ld_stack **v = realloc(lh->tasks, n * sizeof(*v));
		if (!v)
			abort();
		memset(v + lh->nr_tasks, 0, (n - lh->nr_tasks) * sizeof(*v));
		lh->tasks = v;
		lh->nr_tasks = n;
	}
	if (!lh->tasks[t->idx] && !(lh->tasks[t->idx] = calloc(1, sizeof(struct ld_stack))))
		abort();
	return lh->tasks[t->idx];
}

/* The lock shims' own yield points say nothing about where the task is. */
static bool lock_point(const char *p)
{
	return !strcmp(p, "lock") || !strcmp(p, "unlock") || !strcmp(p, "trylock");
}

static void note_point(struct ld_stack *st, const struct msim_task *t)
{
	if (t && t->parked_at && !lock_point(t->parked_at))
		st->last_point = t->parked_at;
}

static void acq_fill(struct ld_acq *a, const struct msim__lockdep_host *lh, struct msim *m,
		     const struct ld_stack *st, const struct msim_task *t, unsigned int cls)
{
	unsigned int first = st->depth > LD_FRAMES ? st->depth - LD_FRAMES : 0;

	memset(a, 0, sizeof(*a));
	snprintf(a->task, sizeof(a->task), "%s", t ? t->name : "driver");
	a->cpu = t ? (int)t->cpu : -1;
	a->run = lh->run;
	a->host = lh->host;
	a->step = msim_sched_steps(m);
	a->cls = cls;
	a->after = st->last_point ? st->last_point : t ? "(task start)" : "(driver)";
	a->ctx = ctx_bits(t);
	a->nr_held = st->depth;
	for (unsigned int i = first; i < st->depth; i++)
		a->held[i - first] = (struct ld_frame){ st->held[i].cls, st->held[i].after };
}

/* Record cls's dependency on every lock held; true when one is new. */
static bool add_deps(struct msim_lockdep *ld, const struct ld_stack *st, unsigned int cls,
		     const struct ld_acq *acq)
{
	bool grew = false;

	for (unsigned int i = st->depth; i-- > 0;) {
		unsigned int held = st->held[i].cls;

		if (held == cls) {
			struct ld_report *r;
			if (!reported(ld, MSIM_LOCKDEP_RECURSIVE, cls, cls, 0) &&
			    (r = report_new(ld, MSIM_LOCKDEP_RECURSIVE, acq)))
				r->cls_a = r->cls_b = cls;
			continue;
		}
		if (dep_find(ld, held, cls) < 0) {
			check_circular(ld, dep_add(ld, held, cls, acq), acq);
			grew = true;
		}
	}
	return grew;
}

void msim__lockdep_acquire(struct msim *m, struct msim_task *t, const struct msim_lock *l,
			   unsigned int subclass, bool trylock)
{
	struct msim__lockdep_host *lh = m->lockdep;
	struct msim_lockdep *ld = lh->ld;
	struct ld_stack *st = stack_of(lh, t);
	const char *name = l->lock_class ? l->lock_class : l->name ? l->name : "(unnamed)";
	struct ld_acq acq;
	unsigned int cls;
	bool grew;

	note_point(st, t);
	if (st->overflow)
		return;
	if (st->depth == LD_MAX_DEPTH) {
		st->overflow = ld->depth_overflow = true;
		return;
	}
	cls = class_of(ld, name, subclass);
	acq_fill(&acq, lh, m, st, t, cls);
	grew = mark_usage(ld, cls, trylock, &acq);
	if (!trylock)
		grew |= add_deps(ld, st, cls, &acq);
	for (unsigned int k = 0; grew && k < NR_CONFLICTS; k++)
		check_inversions(ld, k, &acq);
	st->held[st->depth++] = (struct ld_held){ l, cls, acq.after, trylock };
}

void msim__lockdep_release(struct msim *m, struct msim_task *t, const struct msim_lock *l)
{
	struct ld_stack *st = stack_of(m->lockdep, t);

	note_point(st, t);
	for (unsigned int i = st->depth; i-- > 0;) {
		if (st->held[i].lock == l) {
			memmove(&st->held[i], &st->held[i + 1],
				(st->depth - i - 1) * sizeof(st->held[0]));
			st->depth--;
			return;
		}
	}
	/* Taken before the host recorded, or past the depth limit: nothing to pop. */
}

/* ---- hosts ---- */

int msim__lockdep_host_attach(struct msim *m)
{
	struct msim__lockdep_host *lh;

	if (!m->cfg.lockdep || m->cfg.mode != MSIM_DETERMINISTIC)
		return 0;
	lh = calloc(1, sizeof(*lh));
	if (!lh)
		return -ENOMEM;
	lh->ld = m->cfg.lockdep;
	lh->run = lh->ld->next_run;
	lh->ld->next_run = -1;
	lh->host = ++lh->ld->hosts;
	m->lockdep = lh;
	return 0;
}

void msim__lockdep_host_detach(struct msim *m)
{
	struct msim__lockdep_host *lh = m->lockdep;

	if (!lh)
		return;
	for (unsigned int i = 0; i < lh->nr_tasks; i++)
		free(lh->tasks[i]);
	free(lh->tasks);
	free(lh);
	m->lockdep = NULL;
}

/* ---- queries ---- */

unsigned int msim_lockdep_nr_classes(const struct msim_lockdep *ld)
{
	return ld ? ld->nr_classes : 0;
}

unsigned int msim_lockdep_nr_dependencies(const struct msim_lockdep *ld)
{
	return ld ? ld->nr_deps : 0;
}

unsigned int msim_lockdep_nr_hosts(const struct msim_lockdep *ld)
{
	return ld ? ld->hosts : 0;
}

unsigned int msim_lockdep_nr_reports(const struct msim_lockdep *ld)
{
	return ld ? ld->nr_reports + ld->reports_dropped : 0;
}

int msim_lockdep_report_kind(const struct msim_lockdep *ld, unsigned int i)
{
	return ld && i < ld->nr_reports ? (int)ld->reports[i].kind : -EINVAL;
}

int msim_lockdep_depends(const struct msim_lockdep *ld, const char *from, const char *to)
{
	for (unsigned int d = 0; ld && from && to && d < ld->nr_deps; d++)
		if (!strcmp(ld->classes[ld->deps[d].from].name, from) &&
		    !strcmp(ld->classes[ld->deps[d].to].name, to))
			return 1;
	return 0;
}
