/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_index.c - the earlier steps a step may depend on
 * (explore_dpor_index.h).
 *
 * Race detection joins, walking back from e_j, every step not yet known to
 * happen before e_j that is of e_j's thread or dependent with it. A step e_i it
 * would join is among the candidates below, or happens before a candidate k
 * with i < k that the walk joins (so the walk skips e_i by then):
 *
 * - e_j's thread's previous step; e_i of the same thread happens before it.
 * - The latest step that touched anything: dependent with every step, so every
 *   earlier step happens before it. No walk goes below it.
 * - Under the same-CPU rule, the CPU's latest step: every earlier step of that
 *   CPU is dependent with it (or its own thread's).
 * - Per 8-byte granule that an access a of e_j touches, with [lo, hi) the bytes
 *   of a in it: its stores, latest first, down to the first that writes all of
 *   [lo, hi); if a writes, also its loads down to that store. An e_i below that
 *   store that conflicts with a there touches a byte the store writes, so it
 *   happens before the store, which conflicts with a and is joined.
 * - Steps with a range wider than the granule index takes, all of them; a step
 *   with such a range itself walks every step down to the latest "anything".
 */
#include <stdlib.h>
#include <string.h>

#include "explore_dpor_index.h"

#define GRANULE_SHIFT 3
#define GRANULE (1u << GRANULE_SHIFT)
/* A range of more granules than this is "wide" (a noted free of a large object). */
#define WIDE_GRANULES 64

struct step_list {
	uint64_t *k;
	uint64_t n, cap;
};

struct msim__dpor_granule {
	uintptr_t key;
	struct step_list stores;  /* steps that write a byte of it (RMWs too) */
	struct step_list loads;   /* steps that only read it */
};

void *msim__dpor_grow(void *p, uint64_t *cap, uint64_t need, size_t size)
{
	if (need <= *cap)
		return p;
	uint64_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	void *np = realloc(p, c * size);
	if (!np)
		abort();
	*cap = c;
	return np;
}

static void list_push(struct step_list *l, uint64_t k)
{
	if (l->n && l->k[l->n - 1] == k)
		return; /* one step with two accesses in a granule */
	l->k = msim__dpor_grow(l->k, &l->cap, l->n + 1, sizeof(*l->k));
	l->k[l->n++] = k;
}

static uintptr_t first_granule(const struct msim__access *a)
{
	return a->addr >> GRANULE_SHIFT;
}

static uintptr_t last_granule(const struct msim__access *a)
{
	return (a->addr + a->len - 1) >> GRANULE_SHIFT;
}

static bool wide(const struct msim__access *a)
{
	return last_granule(a) - first_granule(a) >= WIDE_GRANULES;
}

static bool has_wide(const struct msim__step_access *acc)
{
	for (unsigned int i = 0; i < acc->n; i++)
		if (wide(&acc->a[i]))
			return true;
	return false;
}

/* ---- the granule table ---- */

static uint64_t slot_of(const struct msim__dpor_index *x, uintptr_t key)
{
	return (key * 0x9e3779b97f4a7c15ULL >> 20) & (x->slot_cap - 1);
}

static struct msim__dpor_granule *granule_find(const struct msim__dpor_index *x, uintptr_t key)
{
	if (!x->slot_cap)
		return NULL;
	for (uint64_t s = slot_of(x, key);; s = (s + 1) & (x->slot_cap - 1)) {
		if (!x->slot[s])
			return NULL;
		if (x->granule[x->slot[s] - 1].key == key)
			return &x->granule[x->slot[s] - 1];
	}
}

static void slot_insert(struct msim__dpor_index *x, uint64_t g)
{
	uint64_t s = slot_of(x, x->granule[g].key);

	while (x->slot[s])
		s = (s + 1) & (x->slot_cap - 1);
	x->slot[s] = (uint32_t)(g + 1);
}

/* Keep the table under half full: double it and put every granule back. */
static void slots_grow(struct msim__dpor_index *x)
{
	free(x->slot);
	x->slot_cap = x->slot_cap ? x->slot_cap * 2 : 1024;
	x->slot = calloc(x->slot_cap, sizeof(*x->slot));
	if (!x->slot)
		abort();
	for (uint64_t g = 0; g < x->nr_granules; g++)
		slot_insert(x, g);
}

static struct msim__dpor_granule *granule_get(struct msim__dpor_index *x, uintptr_t key)
{
	struct msim__dpor_granule *gr = granule_find(x, key);
	uint64_t cap = x->granule_cap;

	if (gr)
		return gr;
	if (2 * (x->nr_granules + 1) > x->slot_cap)
		slots_grow(x);
	x->granule = msim__dpor_grow(x->granule, &cap, x->nr_granules + 1, sizeof(*x->granule));
	if (cap != x->granule_cap) { /* fresh entries start with no lists */
		memset(x->granule + x->granule_cap, 0, (cap - x->granule_cap) * sizeof(*x->granule));
		x->granule_cap = cap;
	}
	gr = &x->granule[x->nr_granules];
	gr->key = key;
	gr->stores.n = gr->loads.n = 0;
	slot_insert(x, x->nr_granules++);
	return gr;
}

void msim__dpor_index_reset(struct msim__dpor_index *x)
{
	if (x->slot)
		memset(x->slot, 0, x->slot_cap * sizeof(*x->slot));
	x->nr_granules = 0;
	x->nr_steps = 0;
	x->nr_wide = 0;
	x->last_any = -1;
	for (unsigned int t = 0; t < 64; t++)
		x->last_of_thread[t] = -1;
	for (unsigned int c = 0; c < x->cpu_cap; c++)
		x->last_of_cpu[c] = -1;
}

/* ---- adding a step ---- */

static void last_of_cpu_set(struct msim__dpor_index *x, unsigned int cpu, int64_t k)
{
	if (cpu >= x->cpu_cap) {
		unsigned int cap = x->cpu_cap ? x->cpu_cap : 8;
		while (cap <= cpu)
			cap *= 2;
		x->last_of_cpu = realloc(x->last_of_cpu, cap * sizeof(*x->last_of_cpu));
		if (!x->last_of_cpu)
			abort();
		for (unsigned int c = x->cpu_cap; c < cap; c++)
			x->last_of_cpu[c] = -1;
		x->cpu_cap = cap;
	}
	x->last_of_cpu[cpu] = k;
}

static void add_access(struct msim__dpor_index *x, uint64_t j, const struct msim__access *a)
{
	for (uintptr_t g = first_granule(a); g <= last_granule(a); g++) {
		struct msim__dpor_granule *gr = granule_get(x, g);

		list_push(a->kind & MSIM_ACCESS_STORE ? &gr->stores : &gr->loads, j);
	}
}

void msim__dpor_index_add(struct msim__dpor_index *x, const struct msim__dpor_index_step *s)
{
	uint64_t j = x->nr_steps;

	x->steps = msim__dpor_grow(x->steps, &x->steps_cap, j + 1, sizeof(*x->steps));
	x->steps[x->nr_steps++] = *s;
	x->last_of_thread[s->tid] = (int64_t)j;
	if (s->cpu_rule)
		last_of_cpu_set(x, s->cpu, (int64_t)j);
	if (s->acc->any) {
		x->last_any = (int64_t)j; /* it stands for every access it has */
		return;
	}
	if (has_wide(s->acc)) {
		x->wide = msim__dpor_grow(x->wide, &x->wide_cap, x->nr_wide + 1, sizeof(*x->wide));
		x->wide[x->nr_wide++] = j;
	}
	for (unsigned int i = 0; i < s->acc->n; i++)
		if (!wide(&s->acc->a[i]))
			add_access(x, j, &s->acc->a[i]);
}

/* ---- candidates ---- */

static void cand_push(struct msim__dpor_index *x, uint64_t k)
{
	x->cand = msim__dpor_grow(x->cand, &x->cand_cap, x->nr_cand + 1, sizeof(*x->cand));
	x->cand[x->nr_cand++] = k;
}

static void cand_push_above(struct msim__dpor_index *x, int64_t k)
{
	if (k > x->last_any)
		cand_push(x, (uint64_t)k);
}

/* Step k writes every byte of [lo, last]. Inclusive: the address space's last
 * granule ends at 2^64, which wraps to 0. A store whose end wraps (to 0 too)
 * overlaps nothing for msim__access_overlap(), so it does not count. */
static bool writes_all(const struct msim__dpor_index *x, uint64_t k, uintptr_t lo, uintptr_t last)
{
	const struct msim__step_access *acc = x->steps[k].acc;

	for (unsigned int i = 0; i < acc->n; i++) {
		const struct msim__access *b = &acc->a[i];
		if ((b->kind & MSIM_ACCESS_STORE) && b->addr <= lo && b->addr + b->len > last)
			return true;
	}
	return false;
}

/* The steps of granule g that access a's bytes [lo, hi) there may conflict with. */
static void granule_candidates(struct msim__dpor_index *x, const struct msim__access *a, uintptr_t g)
{
	const struct msim__dpor_granule *gr = granule_find(x, g);
	uintptr_t lo = a->addr > g << GRANULE_SHIFT ? a->addr : g << GRANULE_SHIFT;
	uintptr_t last_a = a->addr + a->len - 1, last_g = (g << GRANULE_SHIFT) | (GRANULE - 1);
	uintptr_t last = last_a < last_g ? last_a : last_g;
	int64_t stop = x->last_any;

	if (!gr)
		return;
	for (uint64_t i = gr->stores.n; i-- > 0;) {
		uint64_t k = gr->stores.k[i];
		if ((int64_t)k <= x->last_any)
			break;
		cand_push(x, k);
		if (writes_all(x, k, lo, last)) {
			stop = (int64_t)k;
			break;
		}
	}
	if (!(a->kind & MSIM_ACCESS_STORE))
		return; /* loads do not conflict with loads */
	for (uint64_t i = gr->loads.n; i-- > 0 && (int64_t)gr->loads.k[i] > stop;)
		cand_push(x, gr->loads.k[i]);
}

static int later_first(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Latest first, each once. A step has a handful of candidates: insertion sort
 * below a few dozen (qsort's calls were a tenth of a DPOR run). */
static void cand_sort_unique(struct msim__dpor_index *x)
{
	uint64_t n = 0;

	if (x->nr_cand > 32) {
		qsort(x->cand, x->nr_cand, sizeof(*x->cand), later_first);
	} else {
		for (uint64_t i = 1; i < x->nr_cand; i++) {
			uint64_t v = x->cand[i], k = i;
			for (; k > 0 && x->cand[k - 1] < v; k--)
				x->cand[k] = x->cand[k - 1];
			x->cand[k] = v;
		}
	}
	for (uint64_t i = 0; i < x->nr_cand; i++)
		if (!n || x->cand[n - 1] != x->cand[i])
			x->cand[n++] = x->cand[i];
	x->nr_cand = n;
}

/* Every step down to the latest "anything" (for a step that touches anything). */
static void all_candidates(struct msim__dpor_index *x)
{
	int64_t low = x->last_any < 0 ? 0 : x->last_any;

	for (int64_t k = (int64_t)x->nr_steps; k-- > low;)
		cand_push(x, (uint64_t)k);
}

void msim__dpor_index_candidates(struct msim__dpor_index *x, const struct msim__dpor_index_step *s)
{
	x->nr_cand = 0;
	if (s->acc->any || has_wide(s->acc)) {
		all_candidates(x);
		return;
	}
	if (x->last_any >= 0)
		cand_push(x, (uint64_t)x->last_any);
	cand_push_above(x, x->last_of_thread[s->tid]);
	if (s->cpu_rule && s->cpu < x->cpu_cap)
		cand_push_above(x, x->last_of_cpu[s->cpu]);
	for (uint64_t w = x->nr_wide; w-- > 0 && (int64_t)x->wide[w] > x->last_any;)
		cand_push(x, x->wide[w]);
	for (unsigned int i = 0; i < s->acc->n; i++)
		for (uintptr_t g = first_granule(&s->acc->a[i]); g <= last_granule(&s->acc->a[i]); g++)
			granule_candidates(x, &s->acc->a[i], g);
	cand_sort_unique(x);
}

void msim__dpor_index_free(struct msim__dpor_index *x)
{
	for (uint64_t g = 0; g < x->granule_cap; g++) {
		free(x->granule[g].stores.k);
		free(x->granule[g].loads.k);
	}
	free(x->granule);
	free(x->slot);
	free(x->last_of_cpu);
	free(x->wide);
	free(x->steps);
	free(x->cand);
	memset(x, 0, sizeof(*x));
}
