/* SPDX-License-Identifier: MIT */
/*
 * trace_hash.c - the trace hash's fold of a point name, without the byte loop.
 *
 * One FNV-1a byte step is h' = (h ^ c) * P. The XOR with a byte changes only
 * h's low 8 bits, so it is an addition of d = ((h & 255) ^ c) - (h & 255),
 * which depends on those 8 bits alone; and the low 8 bits of (h + d) * P depend
 * only on the low 8 bits of h + d. By induction, over a name of k bytes every
 * d_i is set by the low 8 bits of the starting h, and
 *
 *     fold(h) = h * P^k + T[h & 255],   T[b] = fold(b) - b * P^k   (mod 2^64),
 *
 * exactly. Per name (by address) this file keeps P^k and the 256 entries of T,
 * all computed by the byte loop when the name is first met (256 loops over the
 * name, once per process); a step's fold is then a multiply, an add and a load
 * (inline, trace_hash.h), where the loop cost a dependent multiply per byte (a
 * third of a deterministic step of 20-byte names). The cache is the process's
 * (a host may be driven from another thread than the one that made it) and
 * lives as long as the process: point names are static strings. A task's point
 * table keeps each name's fold (sched_points.c), so a step looks nothing up; a
 * fold is complete before the cache's lock publishes it. A new task's first
 * park at each point asks for its fold and step fold: each thread keeps the
 * folds it found (thread_folds), and a step fold, stored once with release,
 * is read without the lock, so an explorer's runs take no lock there.
 * tests/unit/test_trace_hash.c checks it against the byte loop.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trace_hash.h"

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct msim__name_fold **slots;   /* under cache_lock */
static unsigned int nr_slots, nr_used;

static unsigned int slot_of(const char *name, unsigned int cap)
{
	uint64_t x = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ULL;

	return (unsigned int)(x >> 40) & (cap - 1);
}

static struct msim__name_fold **find(struct msim__name_fold **tab, unsigned int cap,
				     const char *name)
{
	unsigned int i = slot_of(name, cap);

	while (tab[i] && tab[i]->name != name)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Double the table (or make the first), at most 3/4 full so a probe ends. */
static bool grow(void)
{
	unsigned int cap = nr_slots ? nr_slots * 2 : 256;
	struct msim__name_fold **tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return false;
	for (unsigned int i = 0; i < nr_slots; i++)
		if (slots[i])
			*find(tab, cap, slots[i]->name) = slots[i];
	free(slots);
	slots = tab;
	nr_slots = cap;
	return true;
}

static struct msim__name_fold *fold_new(const char *name)
{
	struct msim__name_fold *f;

	if (4 * (nr_used + 1) > 3 * nr_slots && !grow())
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = name;
	f->pk = 1;
	for (const char *p = name; *p; p++)
		f->pk *= MSIM__FNV_PRIME;
	for (unsigned int b = 0; b < 256; b++)
		f->t[b] = msim__fnv_bytes(b, name) - (uint64_t)b * f->pk;
	*find(slots, nr_slots, name) = f;
	nr_used++;
	return f;
}

/*
 * Each thread's last fold per slot, so that a new task's first park at a point
 * (every run of an explorer makes new tasks) takes no lock: a fold, once
 * made, stays where it is for the process's life.
 */
#define THREAD_FOLDS 256
static __thread struct {
	const char *name;
	struct msim__name_fold *fold;
} thread_folds[THREAD_FOLDS];

const struct msim__name_fold *msim__fnv_fold_of(const char *name)
{
	struct msim__name_fold *f = NULL;
	unsigned int i;

	if (!name || !*name)
		return NULL;
	i = slot_of(name, THREAD_FOLDS);
	if (thread_folds[i].name == name)
		return thread_folds[i].fold;
	pthread_mutex_lock(&cache_lock);
	if (nr_slots)
		f = *find(slots, nr_slots, name);
	if (!f)
		f = fold_new(name);
	pthread_mutex_unlock(&cache_lock);
	if (f) {
		thread_folds[i].name = name;
		thread_folds[i].fold = f;
	}
	return f;
}

/*
 * A step, (h ^ c) * P and then the name's bytes, is again additions and
 * multiplications mod 2^64 once c < 256 (the XOR touches the low byte only), so
 * it too is h * q + u[h & 255], u[b] being the step from b minus b * q.
 */
const struct msim__step_fold *msim__fnv_step_of(const struct msim__name_fold *cf, uint64_t c)
{
	struct msim__name_fold *f = (struct msim__name_fold *)cf; /* its step table fills */
	struct msim__step_fold *sf;

	if (!f || c >= 256)
		return NULL;
	/* published complete (release, under the lock) and never changed: no lock to read */
	sf = __atomic_load_n(&f->step[c], __ATOMIC_ACQUIRE);
	if (sf)
		return sf;
	pthread_mutex_lock(&cache_lock);
	sf = f->step[c];
	if (!sf && (sf = malloc(sizeof(*sf)))) {
		sf->q = MSIM__FNV_PRIME * f->pk;
		for (uint64_t b = 0; b < 256; b++)
			sf->u[b] = msim__fnv_bytes((b ^ c) * MSIM__FNV_PRIME, f->name) - b * sf->q;
		__atomic_store_n(&f->step[c], sf, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cache_lock);
	return sf;
}

uint64_t msim__fnv_point(uint64_t h, const char *name)
{
	return msim__fnv_fold(h, msim__fnv_fold_of(name), name);
}
