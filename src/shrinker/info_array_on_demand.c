/* SPDX-License-Identifier: MIT */
/*
 * info_array_on_demand.c - the `array-on-demand` shrinker_info layout (thread 001's
 * "old array on demand", v2 patch 2/2): the pointer array of info_array.c, but a
 * memcg gets a unit only when it first gets a list on that shrinker's list_lru
 * (msim_memcg_list_lru_alloc installs it before publishing the lists). The root
 * keeps every unit. An install stores into the current header; an expansion
 * copies every header, so the two take `shrinker_info_lock`
 * (array_expand_node takes it around copy and publish, the install around its
 * header load and store). `on-demand-lock=off` drops the lock to show the lost
 * install (race shrinker-install-vs-expand); lost installs are tracked so that
 * they are freed (and counted) with the memcg instead of leaking.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/shrinker_internal.h"

/* The lock-off demo: units installed into a header that was then replaced. */
static void free_lost_installs(struct msim__shr_host *h, struct msim__shr_pn *pn,
			       struct msim__info_array *info)
{
	size_t i;

	for (i = 0; i < pn->ntrack; i++) {
		struct msim__install_rec *r = &pn->track[i];

		if (info && r->index < msim__info_units(info) && info->unit[r->index] == r->unit)
			continue;
		msim_quiet_fetch_add(&h->units_lost, 1, MSIM_RELAXED);
		msim__unit_free(h, r->unit);
	}
	free(pn->track);
	pn->track = NULL;
	pn->ntrack = pn->captrack = 0;
}

static void track_install(struct msim__shr_host *h, struct msim__shr_pn *pn,
			  unsigned long index, struct msim__unit *u)
{
	pthread_mutex_lock(&h->track_lock);
	if (pn->ntrack == pn->captrack) {
		size_t cap = pn->captrack ? pn->captrack * 2 : 8;
		void *t = realloc(pn->track, cap * sizeof(*pn->track));

		if (!t) {
			pthread_mutex_unlock(&h->track_lock);
			return;
		}
		pn->track = t;
		pn->captrack = cap;
	}
	pn->track[pn->ntrack++] = (struct msim__install_rec){ index, u };
	pthread_mutex_unlock(&h->track_lock);
}

/*
 * array-on-demand install (thread 001 v2 patch 2/2): store a new unit in the
 * current header's slot. With the lock, the expansion copy cannot run between
 * the header load and the store; without it (on-demand-lock=off) the store can
 * land in a header that was already copied and is about to be freed: the unit
 * is lost, and set_shrinker_bit then finds no unit through the new header.
 */
static int array_install(struct msim__shr_host *h, struct msim__shr_memcg *sm,
			 unsigned int nid, unsigned long index)
{
	struct msim__shr_pn *pn = &sm->pn[nid];
	struct msim__info_array *info;
	struct msim__unit *u, *expect = NULL;
	bool installed = false;
	int r = 0;

	msim_rcu_read_lock();
	u = msim__array_unit(h, sm, nid, index);
	msim_rcu_read_unlock();
	if (u)
		return 0;
	u = msim__unit_alloc(h);
	if (!u)
		return -ENOMEM;
	if (h->install_lock)
		msim_spin_lock(&h->info_lock);
	msim_rcu_read_lock();
	info = msim_rcu_dereference((void *const *)&pn->info);
	/* the unit count of a published info never changes; then the cmpxchg */
	msim_yield_access("shrinker.install.loaded_info", NULL, MSIM_ACCESS_NONE);
	if (!info || index >= msim__info_units(info)) {
		r = -EINVAL;
	} else {
		installed = msim_try_cmpxchg_at(&info->unit[index], &expect, u, MSIM_RELEASE,
						MSIM_RELAXED, "shrinker.install.store");
	}
	msim_rcu_read_unlock();
	if (h->install_lock)
		msim_spin_unlock(&h->info_lock);
	if (!installed) {
		msim__unit_free(h, u);
		return r;
	}
	msim_quiet_fetch_add(&pn->nr_units, 1, MSIM_RELAXED);
	msim__stat_inc(&h->units_installed);
	if (!h->install_lock)
		track_install(h, pn, index, u);
	return 0;
}


/* kernel: free_shrinker_info(), plus the units a lock-off install lost */
static void od_free_node(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid)
{
	struct msim__shr_pn *pn = &sm->pn[nid];

	free_lost_installs(h, pn, pn->info);
	msim__array_free_node(h, sm, nid);
}

const struct msim__info_ops msim__info_array_on_demand_ops = {
	.name = "array-on-demand",
	.on_demand = true,
	.unit_cache = true, /* the thread's kernels sit on the unit-cache patch */
	.alloc_node = msim__array_alloc_node,
	.free_node = od_free_node,
	.expand_node = msim__array_expand_node,
	.unit = msim__array_unit,
	.next_unit = msim__array_next_unit,
	.install = array_install,
	.container_bytes = msim__array_container_bytes,
};
