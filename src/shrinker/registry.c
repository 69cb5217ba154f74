/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the shrinker registry and the per-memcg shrinker_info lifecycle
 * (kernel: mm/shrinker.c shrinker_alloc, shrinker_register, shrinker_free,
 * alloc_shrinker_info, expand_shrinker_info, free_shrinker_info).
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

#include "shrinker/internal.h"

/* ---- misuse detection: the set of live shrinker pointers, process-wide ---- */

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *live_tab;      /* open addressing; 0 empty, 1 tombstone */
static size_t live_cap, live_used, live_n;
static uint64_t misuse_count;

void msim__shrinker_misuse(const char *what)
{
	uint64_t n = __atomic_add_fetch(&misuse_count, 1, __ATOMIC_RELAXED);

	if (n <= 8 && getenv("MSIM_QUIET_MISUSE") == NULL)
		fprintf(stderr, "memcgsim: shrinker misuse: %s\n", what);
}

uint64_t msim__shrinker_misuse_count(void)
{
	return __atomic_load_n(&misuse_count, __ATOMIC_RELAXED);
}

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

/* ---- host state ---- */

static void shr_host_destroy(struct msim *m, void *arg);
static const struct msim_memcg_hooks shr_info_hooks, shr_deferred_hooks;

static const struct msim__info_ops *layout_ops(enum msim_shrinker_info_layout l)
{
	switch (l) {
	case MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE:
		return &msim__info_array_unit_cache_ops;
	case MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND:
		return &msim__info_array_on_demand_ops;
	case MSIM_SHRINKER_INFO_XARRAY:
		return &msim__info_xarray_ops;
	case MSIM_SHRINKER_INFO_ARRAY:
	default:
		return &msim__info_array_ops;
	}
}

static struct msim__shr_host *shr_host_create(struct msim *m)
{
	const struct msim_config *cfg = msim_config(m);
	struct msim__shr_host *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->m = m;
	h->layout = cfg->variants.shrinker_info;
	h->ops = layout_ops(h->layout);
	h->recount = cfg->variants.shrinker_recount == MSIM_ON;
	h->install_lock = cfg->variants.on_demand_lock == MSIM_ON;
	h->nr_nodes = msim_nr_nodes(m);
	h->memcg_slot = -1;
	h->id_limit = MSIM_SHRINKER_ID_LIMIT;
	msim_lock_init(&h->mutex, "shrinker_mutex");
	msim_lock_init(&h->info_lock, "shrinker_info_lock");
	pthread_mutex_init(&h->track_lock, NULL);
	msim_idr_init(m, &h->idr, "shrinker_idr");
	h->list.next = h->list.prev = &h->list;
	/* The thread's three kernels all sit on the kmem_cache patch; mainline does not. */
	if (h->ops->unit_cache)
		h->unit_cache = msim_kmem_cache_create(m, "shrinker_info_unit",
						       MSIM_SHRINKER_UNIT_BYTES);
	return h;
}

struct msim__shr_host *msim__shr_host(struct msim *m)
{
	void **slot = msim_host_slot(m, MSIM_SLOT_SHRINKER);
	struct msim__shr_host *h = __atomic_load_n((struct msim__shr_host **)slot,
						   __ATOMIC_ACQUIRE);

	if (h)
		return h;
	return msim_shrinker_init(m) == 0 || *slot ? *slot : NULL;
}

int msim_shrinker_init(struct msim *m)
{
	void **slot = msim_host_slot(m, MSIM_SLOT_SHRINKER);
	struct msim_memcg_counts cnt;
	struct msim__shr_host *h;
	struct msim_memcg_hooks hooks;
	int r;

	if (*slot)
		return 0;
	h = shr_host_create(m);
	if (!h)
		return -ENOMEM;
	/* Root first, so that the memcg layer's destructor runs after ours. */
	h->root = msim_root_mem_cgroup(m);
	msim_memcg_counts(m, &cnt);
	__atomic_store_n((struct msim__shr_host **)slot, h, __ATOMIC_RELEASE);
	msim_host_on_destroy(m, shr_host_destroy, NULL);
	msim__list_lru_host_init(m);
	hooks = shr_info_hooks;
	hooks.priv = h;
	r = msim_memcg_register_hooks(m, &hooks);
	if (r < 0)
		return r;
	h->memcg_slot = r;
	if (h->root_sm)
		__atomic_store_n((struct msim__shr_memcg **)msim_memcg_slot(h->root, r),
				 h->root_sm, __ATOMIC_RELEASE);
	hooks = shr_deferred_hooks;
	r = msim_memcg_register_hooks(m, &hooks);
	if (r < 0)
		return r;
	/* Child memcgs made before us have no shrinker_info: say so. */
	return cnt.online > 1 ? -EBUSY : 0;
}

struct msim__shr_memcg *msim__shr_memcg(struct msim__shr_host *h, struct msim_memcg *memcg)
{
	if (!h || !memcg || h->memcg_slot < 0)
		return NULL;
	return __atomic_load_n((struct msim__shr_memcg **)msim_memcg_slot(memcg, h->memcg_slot),
			       __ATOMIC_ACQUIRE);
}

/* ---- units ---- */

/* kernel: mm/shrinker.c shrinker_unit_alloc() (one unit; thread 001 patch 1/2 cache) */
struct msim__unit *msim__unit_alloc(struct msim__shr_host *h)
{
	if (h->unit_cache)
		return msim_kmem_cache_alloc(h->m, h->unit_cache, "shrinker_info_unit");
	return msim_kmalloc(h->m, sizeof(struct msim__unit), "shrinker_info_unit");
}

void msim__unit_free(struct msim__shr_host *h, struct msim__unit *u)
{
	if (!u)
		return;
	if (h->unit_cache)
		msim_kmem_cache_free(h->m, h->unit_cache, u);
	else
		msim_kfree(h->m, u);
}

uint64_t msim__unit_bytes(struct msim__shr_host *h, unsigned long nr_units)
{
	struct msim_kmem_cache_info ci;

	if (!h->unit_cache)
		return (uint64_t)nr_units * msim_kmalloc_size(sizeof(struct msim__unit));
	msim_kmem_cache_info(h->unit_cache, &ci);
	if (!ci.objects_per_slab)
		return (uint64_t)nr_units * MSIM_SHRINKER_UNIT_BYTES;
	return (uint64_t)nr_units * ci.slab_bytes / ci.objects_per_slab;
}

size_t msim__info_array_size(int nr_max)
{
	return MSIM_SHRINKER_INFO_HEADER_BYTES +
	       sizeof(void *) * ((size_t)nr_max / MSIM_SHRINKER_UNIT_BITS);
}

/* ---- per-memcg info: alloc at online, free at css_free ---- */

static void free_shrinker_info_locked(struct msim__shr_host *h, struct msim_memcg *memcg,
				      struct msim__shr_memcg *sm)
{
	unsigned int nid;

	__atomic_store_n((struct msim__shr_memcg **)msim_memcg_slot(memcg, h->memcg_slot), NULL,
			 __ATOMIC_RELEASE);
	for (nid = 0; nid < sm->nr_nodes; nid++)
		h->ops->free_node(h, sm, nid);
	free(sm);
}

/* kernel: mm/shrinker.c alloc_shrinker_info() (from mem_cgroup_css_online) */
static int shr_css_online(struct msim_memcg *memcg, void *priv)
{
	struct msim__shr_host *h = priv;
	struct msim__shr_memcg *sm;
	unsigned int nid;
	int r = 0;

	sm = calloc(1, sizeof(*sm) + h->nr_nodes * sizeof(sm->pn[0]));
	if (!sm)
		return -ENOMEM;
	sm->memcg = memcg;
	sm->is_root = msim_mem_cgroup_is_root(memcg);
	sm->nr_nodes = h->nr_nodes;
	msim_mutex_lock(&h->mutex);
	for (nid = 0; nid < h->nr_nodes && !r; nid++)
		r = h->ops->alloc_node(h, sm, nid, msim__nr_max_read(h));
	if (r) {
		sm->nr_nodes = nid; /* free what was set up */
		for (nid = 0; nid < sm->nr_nodes; nid++)
			h->ops->free_node(h, sm, nid);
		free(sm);
	} else if (h->memcg_slot < 0) {
		h->root_sm = sm; /* root, during our registration: slot not known yet */
	} else {
		__atomic_store_n((struct msim__shr_memcg **)msim_memcg_slot(memcg, h->memcg_slot),
				 sm, __ATOMIC_RELEASE);
	}
	msim_mutex_unlock(&h->mutex);
	return r;
}

/* kernel: mm/shrinker.c free_shrinker_info() (from mem_cgroup_css_free) */
static void shr_css_free(struct msim_memcg *memcg, void *priv)
{
	/* priv may be gone at host teardown: reach our state through the host slot. */
	struct msim *m = msim_memcg_host(memcg);
	struct msim__shr_host *h = *msim_host_slot(m, MSIM_SLOT_SHRINKER);
	struct msim__shr_memcg *sm;

	(void)priv;
	if (!h)
		return;
	msim_mutex_lock(&h->mutex);
	sm = msim__shr_memcg(h, memcg);
	if (sm)
		free_shrinker_info_locked(h, memcg, sm);
	msim_mutex_unlock(&h->mutex);
}

static void shr_css_offline(struct msim_memcg *memcg, void *priv)
{
	(void)priv;
	msim_reparent_shrinker_deferred(memcg);
}

static const struct msim_memcg_hooks shr_info_hooks = {
	.name = "shrinker_info",
	.order = MSIM_HOOK_ORDER_SHRINKER_INFO,
	.css_online = shr_css_online,
	.css_free = shr_css_free,
};

static const struct msim_memcg_hooks shr_deferred_hooks = {
	.name = "shrinker_deferred",
	.order = MSIM_HOOK_ORDER_SHRINKER_DEFERRED,
	.css_offline = shr_css_offline,
};

static void shr_host_destroy(struct msim *m, void *arg)
{
	void **slot = msim_host_slot(m, MSIM_SLOT_SHRINKER);
	struct msim__shr_host *h = *slot;
	struct msim_memcg *memcg = NULL;
	struct msim__shr_memcg *sm;

	(void)arg;
	if (!h)
		return;
	/* Let released memcgs reach css_free (our hook) while we are still here. */
	for (int rounds = 0; rounds < 1000; rounds++) {
		struct msim_memcg_counts cnt;

		msim_memcg_counts(m, &cnt);
		if (!cnt.released)
			break;
		msim_rcu_barrier();
	}
	/* Free every memcg's info still around (root at least); hooks then find none. */
	while ((memcg = msim_mem_cgroup_iter(h->root, memcg)) != NULL) {
		sm = msim__shr_memcg(h, memcg);
		if (sm)
			free_shrinker_info_locked(h, memcg, sm);
	}
	*slot = NULL;
	msim_idr_fini(&h->idr);
	if (h->unit_cache)
		msim_kmem_cache_destroy(m, h->unit_cache);
	for (int k = 0; k < 2; k++)
		if (h->obj_cache[k])
			msim_kmem_cache_destroy(m, h->obj_cache[k]);
	msim_lock_destroy(&h->mutex);
	msim_lock_destroy(&h->info_lock);
	pthread_mutex_destroy(&h->track_lock);
	free(h);
}

/* ---- expansion ---- */

/*
 * kernel: mm/shrinker.c expand_shrinker_info(), shrinker_mutex held. Array
 * layouts: every memcg (mem_cgroup_iter includes offline ones not yet freed), every
 * node, one reallocation and copy each. xarray: only root gets units.
 */
static int expand_shrinker_info(struct msim__shr_host *h, int new_id)
{
	int new_nr_max = (new_id / MSIM_SHRINKER_UNIT_BITS + 1) * MSIM_SHRINKER_UNIT_BITS;
	struct msim_memcg *memcg = NULL;
	struct msim__shr_memcg *sm;
	unsigned int nid;
	int r;

	if (h->ops->expand_root_only) {
		sm = msim__shr_memcg(h, h->root);
		for (nid = 0; sm && nid < sm->nr_nodes; nid++) {
			r = h->ops->expand_node(h, sm, nid, new_nr_max);
			if (r < 0 && r != -ENOENT)
				return r;
		}
		goto done;
	}
	while ((memcg = msim_mem_cgroup_iter(h->root, memcg)) != NULL) {
		sm = msim__shr_memcg(h, memcg);
		if (!sm)
			continue;
		for (nid = 0; nid < sm->nr_nodes; nid++) {
			r = h->ops->expand_node(h, sm, nid, new_nr_max);
			if (r == -ENOENT)
				break;
			if (r < 0) {
				msim_mem_cgroup_iter_break(h->root, memcg);
				return r;
			}
			if (r > 0)
				msim__stat_inc(&h->expand_memcg_visits);
		}
	}
done:
	__atomic_store_n(&h->nr_max, new_nr_max, __ATOMIC_RELEASE);
	msim__stat_inc(&h->expansions);
	return 0;
}

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
			r = expand_shrinker_info(h, (int)id);
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
	msim_yield("shrinker_register.refcount_set");
	/* release: a try_get that succeeds sees the callbacks set before register */
	__atomic_store_n(&s->refcount.counter, 1, __ATOMIC_RELEASE);
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

/* kernel: mm/shrinker.c shrinker_free() */
int msim_shrinker_free(struct msim_shrinker *s)
{
	struct msim__shr_host *h;
	bool was_registered;

	if (!s)
		return 0; /* shrinker_free(NULL) is allowed */
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
			msim_yield("shrinker_free.wait_done");
			if (__atomic_load_n(&s->refcount.counter, __ATOMIC_ACQUIRE) == 0)
				break;
			if (!msim__det_active)
				sched_yield();
		}
	}
	msim_mutex_lock(&h->mutex);
	if (s->flags & MSIM_SHRINKER_REGISTERED) {
		/* list_del_rcu: readers past s still find s->next. */
		msim_rcu_assign_pointer((void **)&s->prev->next, s->next);
		s->next->prev = s->prev;
		s->flags &= ~MSIM_SHRINKER_REGISTERED;
		__atomic_fetch_sub(&h->registered, 1, __ATOMIC_RELAXED);
	}
	if ((s->flags & MSIM_SHRINKER_MEMCG_AWARE) && s->id >= 0) {
		msim_yield("shrinker_free.idr_remove"); /* S3: bits of s->id stay set */
		msim_idr_remove(&h->idr, (unsigned long)s->id);
	}
	msim_mutex_unlock(&h->mutex);
	__atomic_fetch_sub(&h->allocated, 1, __ATOMIC_RELAXED);
	msim_call_rcu(&s->rcu, shrinker_free_rcu_cb);
	return 0;
}

/* ---- names and stats ---- */

enum msim_shrinker_info_layout msim_shrinker_layout(struct msim *m)
{
	struct msim__shr_host *h = msim__shr_host(m);

	return h ? h->layout : msim_config(m)->variants.shrinker_info;
}

const char *msim_shrinker_layout_name(enum msim_shrinker_info_layout l)
{
	return layout_ops(l)->name;
}

bool msim_shrinker_layout_on_demand(enum msim_shrinker_info_layout l)
{
	return layout_ops(l)->on_demand;
}

void msim_shrinker_stats(struct msim *m, struct msim_shrinker_stats *out)
{
	struct msim__shr_host *h = msim__shr_host(m);

	memset(out, 0, sizeof(*out));
	out->misuse = msim__shrinker_misuse_count();
	if (!h)
		return;
#define LD(x) __atomic_load_n(&h->x, __ATOMIC_RELAXED)
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
