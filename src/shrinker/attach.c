/* SPDX-License-Identifier: MIT */
/*
 * attach.c - the shrinker layer on a host: msim_shrinker_init() creates the
 * host's state (registry, layout, unit cache), sets up list_lru's, registers
 * the shrinker_info and deferred-count memcg hooks (info.c), and arranges the
 * teardown at msim_destroy().
 *
 * kernel: the boot-time state of mm/shrinker.c (shrinker_idr, shrinker_mutex,
 * shrinker_list) and mm/list_lru.c (memcg_list_lrus); the unit cache of thread
 * 001's kernels.
 *
 * The top of src/shrinker: it calls info.c and list_lru.c; of them, only
 * info.c's msim__shr_host() calls back (attach on first use, until the
 * subsystem registry does it at msim_create()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "shrinker/internal.h"

static struct msim__shr_host *shr_host_create(struct msim *m)
{
	const struct msim_config *cfg = msim_config(m);
	struct msim__shr_host *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->m = m;
	h->layout = cfg->variants.shrinker_info;
	h->ops = msim__shr_layout_ops(h->layout);
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
			msim__shr_free_info_locked(h, memcg, sm);
	}
	*slot = NULL;
	msim_idr_destroy(&h->idr);
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
	hooks = msim__shr_info_hooks;
	hooks.priv = h;
	r = msim_memcg_register_hooks(m, &hooks);
	if (r < 0)
		return r;
	h->memcg_slot = r;
	if (h->root_sm)
		__atomic_store_n((struct msim__shr_memcg **)msim_memcg_slot(h->root, r),
				 h->root_sm, __ATOMIC_RELEASE);
	hooks = msim__shr_deferred_hooks;
	r = msim_memcg_register_hooks(m, &hooks);
	if (r < 0)
		return r;
	/* Child memcgs made before us have no shrinker_info: say so. */
	return cnt.online > 1 ? -EBUSY : 0;
}
