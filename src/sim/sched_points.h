/* SPDX-License-Identifier: MIT */
/*
 * sched_points.h - how often each task parked at each yield point (sched_points.c).
 *
 * Counting happens at every park of a deterministic task, so the common case (a
 * name the task parked at before) is inline here: one multiply, usually one probe.
 */
#ifndef MSIM_SIM_SCHED_POINTS_H
#define MSIM_SIM_SCHED_POINTS_H

#include <stdint.h>

#include "internal.h"
#include "trace_hash.h"

/* One slot of a task's table, keyed by the name's address (names are static). */
struct msim__point_hits {
	const char *name;       /* NULL: free slot */
	uint64_t hits;
	const struct msim__name_fold *fold; /* the trace hash's fold of the name (trace_hash.h) */
	const struct msim__step_fold *step; /* a whole step of the task at it (NULL: none) */
	struct msim__point_hits *next; /* the slot of the park that followed this one last */
};

/* The slot a name hashes to, in a table of cap slots (a power of two). */
static inline unsigned int msim__points_slot(const char *name, unsigned int cap)
{
	uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ULL;

	return (unsigned int)(h >> 32) & (cap - 1);
}

/*
 * A name t has not parked at before (or t's first park): add it with one hit.
 * Returns its slot, NULL for a NULL name (no slot; the hash folds no bytes).
 */
struct msim__point_hits *msim__points_insert(struct msim_task *t, const char *name);

/* The probe of t's table for name: its slot, NULL when t has not parked there. */
static inline struct msim__point_hits *msim__points_probe(struct msim_task *t,
							   const char *name)
{
	if (t->points_cap && name) {
		unsigned int mask = t->points_cap - 1, i = msim__points_slot(name, t->points_cap);

		for (;; i = (i + 1) & mask) {
			struct msim__point_hits *e = &t->points[i];

			if (e->name == name)
				return e;
			if (!e->name)
				break;
		}
	}
	return NULL;
}

/*
 * t's slot of the point called name, NULL when t has not parked there yet; it
 * becomes t's last park. A task's parks mostly repeat a cycle (an update's
 * points in their order), so the slot that followed the last park's slot the
 * time before is tried first, with no hash.
 */
static inline struct msim__point_hits *msim__points_find(struct msim_task *t,
							  const char *name)
{
	struct msim__point_hits *prev = t->last_point, *e = prev ? prev->next : NULL;

	if (__builtin_expect(!e || e->name != name, 0)) {
		e = msim__points_probe(t, name);
		if (prev)
			prev->next = e;
	}
	t->last_point = e;
	return e;
}

/* How often t has parked at a point called name (compared by content). */
uint64_t msim__points_hits(const struct msim_task *t, const char *name);
/* Free t's counts (its task is done, or being freed). */
void msim__points_free(struct msim_task *t);

#endif /* MSIM_SIM_SCHED_POINTS_H */
