/* SPDX-License-Identifier: MIT */
/*
 * sched_points.c - per task, how often it parked at each yield point, for
 * msim_task_where() (script.h).
 *
 * Counting happens at every park of a deterministic task, so it must cost little
 * beside a context switch: the table is keyed by the name's address (names are
 * static strings), an open-addressing hash with linear probing; the common case
 * is inline in sched_points.h, this file has the rest. A name is
 * compared by content everywhere else, and two copies of one literal (one in the
 * library, one in an experiment) are two addresses: a reader sums the entries
 * whose names are equal, which costs a scan, but only when the driver asks.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_points.h"

static struct msim__point_hits *find_slot(struct msim__point_hits *tab, unsigned int cap,
					  const char *name)
{
	unsigned int i = msim__points_slot(name, cap);

	while (tab[i].name && tab[i].name != name)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Double the table (or make the first one) and rehash. */
static void grow(struct msim_task *t)
{
	unsigned int cap = t->points_cap ? t->points_cap * 2 : 32;
	struct msim__point_hits *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		abort();
	for (unsigned int i = 0; i < t->points_cap; i++) {
		if (t->points[i].name) {
			struct msim__point_hits *e = find_slot(tab, cap, t->points[i].name);

			*e = t->points[i];
			e->next = NULL; /* the slots moved: each cycle is found again */
		}
	}
	t->last_point = NULL;
	free(t->points);
	t->points = tab;
	t->points_cap = cap;
}

/* The table stays at most 3/4 full, so a probe always ends. */
struct msim__point_hits *msim__points_insert(struct msim_task *t, const char *name)
{
	struct msim__point_hits *e;

	if (!name)
		return NULL;
	if (4 * (t->nr_points + 1) > 3 * t->points_cap)
		grow(t);
	e = find_slot(t->points, t->points_cap, name);
	e->name = name;
	e->hits = 1;
	e->fold = msim__fnv_fold_of(name);
	/* the step as the scheduler mixes a plain pick of t (sched.c trace_mix) */
	e->step = msim__fnv_step_of(e->fold, (uint64_t)t->idx + 2);
	t->nr_points++;
	t->last_point = e;
	return e;
}

uint64_t msim__points_hits(const struct msim_task *t, const char *name)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; name && i < t->points_cap; i++)
		if (t->points[i].name && !strcmp(t->points[i].name, name))
			sum += t->points[i].hits;
	return sum;
}

void msim__points_free(struct msim_task *t)
{
	free(t->points);
	t->points = NULL;
	t->last_point = NULL;
	t->nr_points = t->points_cap = 0;
}
