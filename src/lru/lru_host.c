/* SPDX-License-Identifier: MIT */
/*
 * lru_host.c - the LRU layer's per-host state, per-memcg data and the lookups
 * from public handles (memcg, rstat's lruvec) to the lists.
 *
 * kernel: the lruvec lives in mem_cgroup_per_node, allocated with the memcg
 * (mem_cgroup_alloc -> alloc_mem_cgroup_per_node_info -> lruvec_init,
 * lru_gen_init_lruvec). Here the memcg layer knows no LRU, so the lists are the
 * per-memcg data of this layer's memcg hook set, and rstat's per-(memcg, node)
 * lruvec handle (whose statistics it keeps) is recorded in each.
 */
#include <errno.h>
#include <stdlib.h>

#include "lru/lru_internal.h"

static const char *const lru_deps[] = { "objcg", NULL };

/* The configuration has no switch for the layer yet: attached by hand. */
static bool lru_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;
}

/*
 * The description. Its callbacks live in lru.c, the top of the layer, whose
 * constructor fills them in and registers it: the lookups below need the
 * description and must not reach up to lru.c for it.
 */
struct msim_subsys msim_lru_subsys = {
	.name = "lru",
	.depends = lru_deps,
	.enabled = lru_enabled,
	.state_size = sizeof(struct msim__lru_host),
};

struct msim__lru_host *msim__lru_host(const struct msim *m)
{
	return m ? msim_subsys_state(m, &msim_lru_subsys) : NULL;
}

struct msim__lru_vec *msim__lru_vec(struct msim__lru_host *lh, struct msim_memcg *memcg,
				    unsigned int nid)
{
	struct msim__lru_memcg *lm;

	if (!lh || nid >= lh->nr_nodes)
		return NULL;
	if (!memcg)
		memcg = msim_root_mem_cgroup(lh->m);
	lm = *msim_memcg_slot(memcg, lh->slot);
	return lm ? &lm->node[nid] : NULL;
}

struct msim__lru_vec *msim__lru_vec_of(struct msim_lruvec *lruvec)
{
	struct msim_memcg *memcg = lruvec ? msim_lruvec_memcg(lruvec) : NULL;

	if (!memcg)
		return NULL;
	return msim__lru_vec(msim__lru_host(msim_memcg_host(memcg)), memcg,
			     msim_lruvec_nid(lruvec));
}

/* kernel: lru_gen_init_lruvec(): max_seq MIN_NR_GENS + 1, min_seq 0: four generations. */
static void lru_gen_init(struct msim__lru_gen *lrugen, bool enabled)
{
	lrugen->max_seq = MSIM_MIN_NR_GENS + 1;
	lrugen->enabled = enabled;
	for (unsigned int g = 0; g < MSIM_MAX_NR_GENS; g++)
		for (unsigned int t = 0; t < MSIM_ANON_AND_FILE; t++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
				msim_init_list_head(&lrugen->folios[g][t][z]);
}

/* kernel: lruvec_init() for one node of memcg. */
static void lru_vec_init(struct msim__lru_host *lh, struct msim__lru_vec *lv,
			 struct msim_memcg *memcg, unsigned int nid)
{
	msim_spin_lock_init(&lv->lru_lock, "lru_lock");
	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++)
		msim_init_list_head(&lv->lists[lru]);
	lru_gen_init(&lv->lrugen, lh->mglru);
	lv->stats = msim_mem_cgroup_lruvec(lh->m, memcg, nid);
	lv->memcg = memcg;
	lv->nid = nid;
	lv->lh = lh;
}

struct msim__lru_memcg *msim__lru_memcg_alloc(struct msim__lru_host *lh,
					      struct msim_memcg *memcg)
{
	struct msim__lru_memcg *lm;

	lm = calloc(1, sizeof(*lm) + lh->nr_nodes * sizeof(lm->node[0]));
	if (!lm)
		return NULL;
	lm->memcg = memcg;
	for (unsigned int nid = 0; nid < lh->nr_nodes; nid++)
		lru_vec_init(lh, &lm->node[nid], memcg, nid);
	return lm;
}

/* Folios still listed here would be lost: counted, as a test can assert on it. */
static bool lru_vec_empty(const struct msim__lru_vec *lv)
{
	for (unsigned int lru = 0; lru < MSIM_NR_LRU_LISTS; lru++)
		if (!msim_list_empty(&lv->lists[lru]))
			return false;
	for (unsigned int g = 0; g < MSIM_MAX_NR_GENS; g++)
		for (unsigned int t = 0; t < MSIM_ANON_AND_FILE; t++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
				if (!msim_list_empty(&lv->lrugen.folios[g][t][z]))
					return false;
	return true;
}

void msim__lru_memcg_free(struct msim__lru_host *lh, struct msim__lru_memcg *lm)
{
	for (unsigned int nid = 0; nid < lh->nr_nodes; nid++) {
		if (!lru_vec_empty(&lm->node[nid]))
			MSIM__LRU_COUNT(lh, freed_nonempty, 1);
		msim_lock_destroy(&lm->node[nid].lru_lock);
	}
	free(lm);
}

/*
 * The lru_lock inside an RCU read-side section. folio_lruvec_lock() returns in
 * one (newest: __acquires(rcu)); for other holders the kernel's spinlock gives
 * it implicitly (preemption off is a read-side section), which the model's lock
 * does not, so every holder takes both: a grace period never ends under a
 * holder, and the memcg of a locked lruvec is never freed under it.
 */
void msim__lru_vec_lock(struct msim__lru_vec *lv)
{
	msim_rcu_read_lock();
	msim_spin_lock(&lv->lru_lock);
}

void msim__lru_vec_unlock(struct msim__lru_vec *lv)
{
	msim_spin_unlock(&lv->lru_lock);
	msim_rcu_read_unlock();
}

bool msim_lru_attached(const struct msim *m)
{
	return msim__lru_host(m) != NULL;
}

bool msim_lru_gen_enabled(const struct msim *m)
{
	struct msim__lru_host *lh = msim__lru_host(m);

	return lh && lh->mglru;
}

void msim_lru_counts(struct msim *m, struct msim_lru_counts *out)
{
	struct msim__lru_host *lh = msim__lru_host(m);

	*out = (struct msim_lru_counts){ 0 };
	if (!lh)
		return;
	out->folios_live = msim_quiet_load(&lh->folios_live, MSIM_RELAXED);
	out->folios_allocated_total = msim_quiet_load(&lh->folios_allocated_total, MSIM_RELAXED);
	out->lru_size_underflows = msim_quiet_load(&lh->lru_size_underflows, MSIM_RELAXED);
	out->lruvec_relock_retries = msim_quiet_load(&lh->lruvec_relock_retries, MSIM_RELAXED);
	out->reparented_pages = msim_quiet_load(&lh->reparented_pages, MSIM_RELAXED);
	out->freed_nonempty = msim_quiet_load(&lh->freed_nonempty, MSIM_RELAXED);
}
