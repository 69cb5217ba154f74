/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the shrinker registry: ids, allocation, registration, the
 * reference count and the free (kernel: mm/shrinker.c shrinker_alloc,
 * shrinker_register, shrinker_try_get, shrinker_put, shrinker_free). A new id
 * past shrinker_nr_max grows every memcg's shrinker_info (info.c).
 *
 * Ids: memcg-aware shrinkers take the lowest free id (idr_alloc(.., 0, 0)), so a
 * freed id is reused by the next registration (S3). shrinker_nr_max grows to
 * round_up(id + 1, 64) and never shrinks. Lifetime: refcount 0 until register,
 * 1 after; try_get fails once shrinker_free dropped the initial reference, and
 * free waits for the in-flight users before unlinking and freeing after a grace
 * period.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/shrinker_internal.h"

/* ---- the set of live shrinker pointers, process-wide (misuse detection) ---- */

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *live_tab;      /* open addressing; 0 empty, 1 tombstone */
static size_t live_cap, live_used, live_n;

static size_t live_hash(uintptr_t p, size_t cap)
{
	p ^= p >> 17;
	p *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(p >> 20) & (cap - 1);
}

static int live_insert_locked(uintptr_t p);

static int live_grow_locked(void)
{
	uintptr_t *old = live_tab;
	size_t oldcap = live_cap, i;

	live_cap = oldcap ? oldcap * 2 : 1024;
	live_tab = calloc(live_cap, sizeof(*live_tab));
	if (!live_tab) {
		live_tab = old;
		live_cap = oldcap;
		return -ENOMEM;
	}
	live_used = live_n = 0;
	for (i = 0; i < oldcap; i++)
		if (old[i] > 1)
			live_insert_locked(old[i]);
	free(old);
	return 0;
}

static int live_insert_locked(uintptr_t p)
{
	size_t i;

	if ((live_used + 1) * 2 > live_cap && live_grow_locked())
		return -ENOMEM;
	for (i = live_hash(p, live_cap); live_tab[i] > 1; i = (i + 1) & (live_cap - 1))
		;
	if (live_tab[i] == 0)
		live_used++;
	live_tab[i] = p;
	live_n++;
	return 0;
}

static size_t live_find_locked(uintptr_t p)
{
	size_t i;

	if (!live_cap)
		return SIZE_MAX;
	for (i = live_hash(p, live_cap); live_tab[i]; i = (i + 1) & (live_cap - 1))
		if (live_tab[i] == p)
			return i;
	return SIZE_MAX;
}

static int live_add(const struct msim_shrinker *s)
{
	int r;

	pthread_mutex_lock(&live_lock);
	r = live_insert_locked((uintptr_t)s);
	pthread_mutex_unlock(&live_lock);
	return r;
}

static bool live_check(const struct msim_shrinker *s, bool remove)
{
	size_t i;

	pthread_mutex_lock(&live_lock);
	i = live_find_locked((uintptr_t)s);
	if (i != SIZE_MAX && remove) {
		live_tab[i] = 1;
		live_n--;
		if (live_n == 0) { /* all gone: release the table (no leak reports) */
			free(live_tab);
			live_tab = NULL;
			live_cap = live_used = 0;
		}
	}
	pthread_mutex_unlock(&live_lock);
	return i != SIZE_MAX;
}

/* ---- ids ---- */

int msim_shrinker_set_id_limit(struct msim *m, int limit)
{
	struct msim__shr_host *h = m ? msim__shr_host(m) : NULL;

	if (!h || limit < 1 || limit > MSIM_SHRINKER_ID_LIMIT)
		return -EINVAL;
	h->id_limit = limit;
	return 0;
}

int msim_shrinker_nr_max(struct msim *m)
{
	struct msim__shr_host *h = msim__shr_host(m);

	return h ? msim__nr_max_read(h) : 0;
}

/* ---- lifetime ---- */

/* kernel: mm/shrinker.c shrinker_alloc() and shrinker_memcg_alloc() */
int msim_shrinker_alloc(struct msim *m, unsigned int flags, const char *name,
			struct msim_shrinker **out)
{
	const unsigned int ok = MSIM_SHRINKER_NUMA_AWARE | MSIM_SHRINKER_MEMCG_AWARE |
				MSIM_SHRINKER_NONSLAB;
	struct msim__shr_host *h;
	struct msim_shrinker *s;
	long id;
	int r = 0;

	if (!m || !out || (flags & ~ok))
		return -EINVAL;
	h = msim__shr_host(m);
	if (!h)
		return -ENOMEM;
	s = msim_kmalloc(m, sizeof(*s), "shrinker");
	if (!s)
		return -ENOMEM;
	s->flags = flags | MSIM_SHRINKER_ALLOCATED;
	s->seeks = MSIM_DEFAULT_SEEKS;
	s->id = -1;
	s->host = m;
	snprintf(s->name, sizeof(s->name), "%s", name ? name : "shrinker");
	if (flags & MSIM_SHRINKER_MEMCG_AWARE) {
		msim_mutex_lock(&h->mutex);
		id = msim_idr_alloc(&h->idr, s, 0, (unsigned long)h->id_limit - 1);
		if (id >= 0 && id >= msim__nr_max_read(h)) {
			r = msim__expand_shrinker_info(h, (int)id);
			if (r)
				msim_idr_remove(&h->idr, (unsigned long)id);
		}
		msim_mutex_unlock(&h->mutex);
		if (id < 0)
			r = id == -ENOSPC ? -ENOSPC : (int)id;
		s->id = (int)id;
	} else {
		unsigned int n = (flags & MSIM_SHRINKER_NUMA_AWARE) ? h->nr_nodes : 1;

		s->nr_deferred = msim_kmalloc(m, n * sizeof(msim_atomic_long_t),
					      "shrinker_nr_deferred");
		if (!s->nr_deferred)
			r = -ENOMEM;
	}
	if (!r)
		r = live_add(s);
	if (r) {
		msim_kfree(m, s->nr_deferred);
		msim_kfree(m, s);
		return r;
	}
	msim__stat_inc(&h->allocated);
	*out = s;
	return 0;
}

/* kernel: mm/shrinker.c shrinker_register() */
int msim_shrinker_register(struct msim_shrinker *s)
{
	struct msim__shr_host *h;

	if (!s || !live_check(s, false)) {
		msim__shrinker_misuse("register of a shrinker that is not allocated");
		return -EINVAL;
	}
	if (!s->count_objects || !s->scan_objects)
		return -EINVAL;
	h = msim__shr_host(s->host);
	msim_mutex_lock(&h->mutex);
	if (s->flags & MSIM_SHRINKER_REGISTERED) {
		msim_mutex_unlock(&h->mutex);
		msim__shrinker_misuse("shrinker registered twice");
		return -EBUSY;
	}
	/* list_add_tail_rcu: link fully, then publish through prev->next. */
	s->next = &h->list;
	s->prev = h->list.prev;
	msim_rcu_assign_pointer((void **)&h->list.prev->next, s);
	h->list.prev = s;
	s->flags |= MSIM_SHRINKER_REGISTERED;
	msim_mutex_unlock(&h->mutex);
	/* init_completion + refcount_set: only now can try_get succeed. */
	/* release: a try_get that succeeds sees the callbacks set before register */
	msim_store_at(&s->refcount.counter, 1, MSIM_RELEASE, "shrinker_register.refcount_set");
	msim__stat_inc(&h->registered);
	return 0;
}

/* kernel: include/linux/shrinker.h shrinker_try_get() (refcount_inc_not_zero) */
bool msim_shrinker_try_get(struct msim_shrinker *s)
{
	long old = msim_atomic_long_read(&s->refcount);

	while (old > 0)
		if (msim_atomic_long_try_cmpxchg(&s->refcount, &old, old + 1))
			return true;
	return false;
}

/* kernel: include/linux/shrinker.h shrinker_put() */
void msim_shrinker_put(struct msim_shrinker *s)
{
	/* The last put completes s->done; shrinker_free polls the count instead. */
	msim_atomic_long_add_return(&s->refcount, -1);
}

/* kernel: mm/shrinker.c shrinker_free_rcu_cb() */
static void shrinker_free_rcu_cb(struct msim_rcu_head *head)
{
	struct msim_shrinker *s = msim_container_of(head, struct msim_shrinker, rcu);
	struct msim *m = s->host;

	msim_kfree(m, s->nr_deferred);
	msim_kfree(m, s);
}

/*
 * Called outside any task, for a live s: true when waiting for s's in-flight
 * users could never end. A deterministic host's code outside any task (the
 * driver, a callback it runs) cannot yield, so a reference a live parked task
 * (or the driver itself) holds is never dropped while it waits. Abandoned
 * tasks' references are not waited for.
 */
static bool free_wait_stuck(struct msim_shrinker *s)
{
	if (msim_config(s->host)->mode != MSIM_DETERMINISTIC ||
	    !(s->flags & MSIM_SHRINKER_REGISTERED) || msim_tasks_abandoned(s->host))
		return false;
	return msim_quiet_load(&s->refcount.counter, MSIM_ACQUIRE) > 1;
}

/* kernel: mm/shrinker.c shrinker_free() */
int msim_shrinker_free(struct msim_shrinker *s)
{
	struct msim__shr_host *h;
	bool was_registered;

	if (!s)
		return 0; /* shrinker_free(NULL) is allowed */
	/* tasks may wait; s is read only once known live; refused, it stays live,
	 * registered and held */
	if (!msim_current_task() && live_check(s, false) && free_wait_stuck(s)) {
		msim__shrinker_misuse("shrinker_free outside a task of a deterministic host while "
				      "a task holds a reference: shrinker_free.wait_done would "
				      "never end (run the task to its shrinker_put first)");
		return -EDEADLK;
	}
	if (!live_check(s, true)) {
		msim__shrinker_misuse("free of a shrinker that is not allocated (double free?)");
		return -EINVAL;
	}
	h = msim__shr_host(s->host);
	was_registered = s->flags & MSIM_SHRINKER_REGISTERED;
	if (was_registered) {
		msim_shrinker_put(s);
		/* wait_for_completion(&done): in-flight shrinks hold references. */
		for (;;) { /* acquire: the users' last accesses happen before ours */
			if (msim_load_at(&s->refcount.counter, MSIM_ACQUIRE,
					 "shrinker_free.wait_done") == 0)
				break;
			/* a stopped run's task parked with a reference never drops it */
			if (msim_tasks_abandoned(s->host))
				break;
			if (!msim_yield_det_active)
				sched_yield();
		}
	}
	msim_mutex_lock(&h->mutex);
	if (s->flags & MSIM_SHRINKER_REGISTERED) {
		/* list_del_rcu: readers past s still find s->next. */
		msim_rcu_assign_pointer((void **)&s->prev->next, s->next);
		s->next->prev = s->prev;
		s->flags &= ~MSIM_SHRINKER_REGISTERED;
		msim_quiet_fetch_sub(&h->registered, 1, MSIM_RELAXED);
	}
	if ((s->flags & MSIM_SHRINKER_MEMCG_AWARE) && s->id >= 0) {
		/* S3: bits of s->id stay set; the step takes the idr lock first */
		msim_yield_access("shrinker_free.idr_remove", NULL, MSIM_ACCESS_NONE);
		msim_idr_remove(&h->idr, (unsigned long)s->id);
	}
	msim_mutex_unlock(&h->mutex);
	msim_quiet_fetch_sub(&h->allocated, 1, MSIM_RELAXED);
	msim_call_rcu(&s->rcu, shrinker_free_rcu_cb);
	return 0;
}

/* ---- stats ---- */

void msim_shrinker_stats(struct msim *m, struct msim_shrinker_stats *out)
{
	struct msim__shr_host *h = msim__shr_host(m);

	memset(out, 0, sizeof(*out));
	out->misuse = msim__shrinker_misuse_count();
	if (!h)
		return;
#define LD(x) msim_quiet_load(&h->x, MSIM_RELAXED)
	out->registered = LD(registered);
	out->allocated = LD(allocated);
	out->expansions = LD(expansions);
	out->expand_memcg_visits = LD(expand_memcg_visits);
	out->units_installed = LD(units_installed);
	out->units_lost = LD(units_lost);
	out->bits_cleared = LD(bits_cleared);
	out->bits_reset = LD(bits_reset);
	out->count_calls = LD(count_calls);
	out->scan_calls = LD(scan_calls);
#undef LD
}
