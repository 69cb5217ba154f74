/* SPDX-License-Identifier: MIT */
/*
 * lru.c - the "lru" subsystem: attaching the layer to a host, and the memcg
 * lifecycle hooks that give every memcg one lruvec per node.
 *
 * kernel: the lruvec is initialised with the memcg (mem_cgroup_alloc ->
 * lruvec_init, lru_gen_init_lruvec: css_alloc) and freed with it
 * (__mem_cgroup_free: css_free). Its offline part, the move to the parent, runs
 * inside memcg_reparent_objcgs (objcg layer), to which host_init hands the
 * LRU callbacks (reparent.c) unless the variant is lru-reparent=off.
 *
 * Hook order MSIM_HOOK_ORDER_OBJCG_LRU - 2: css_alloc after rstat's (order 10,
 * whose lruvec handle each of ours records) and before objcg's; css_free,
 * which runs in descending order, before rstat's.
 */
#include <errno.h>

#include "lru/lru_internal.h"

#define LRU_HOOK_ORDER (MSIM_HOOK_ORDER_OBJCG_LRU - 2)

static int lru_css_alloc(struct msim_memcg *memcg, void *priv)
{
	struct msim__lru_host *lh = priv;
	struct msim__lru_memcg *lm;

	/* On a root that exists already the hook runs inside its registration. */
	if (lh->slot < 0)
		lh->slot = msim_memcg_hooks_slot(lh->m, "lru");
	lm = msim__lru_memcg_alloc(lh, memcg);
	if (!lm)
		return -ENOMEM;
	*msim_memcg_slot(memcg, lh->slot) = lm;
	return 0;
}

static void lru_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim__lru_host *lh = priv;
	void **slot = msim_memcg_slot(memcg, lh->slot);
	struct msim__lru_memcg *lm = *slot;

	if (!lm)
		return;
	/* DPOR (teardown_noted): the slot and the freed data are stored over */
	msim_access_note(slot, sizeof(*slot), MSIM_ACCESS_STORE);
	msim_access_note(lm, sizeof(*lm) + lh->nr_nodes * sizeof(lm->node[0]), MSIM_ACCESS_STORE);
	*slot = NULL;
	msim__lru_memcg_free(lh, lm);
}

/* The layers below that this one calls, attached by hand until they are subsystems. */
static int lru_attach_lower(struct msim *m)
{
	int ret = 0;

	if (!msim_rstat_attached(m))
		ret = msim_rstat_init(m, NULL);
	if (!ret && !msim_charge_initialized(m))
		ret = msim_charge_init(m);
	return ret;
}

static int lru_host_init(struct msim *m, void *state)
{
	static const struct msim_memcg_hooks tmpl = {
		.name = "lru",
		.order = LRU_HOOK_ORDER,
		.css_alloc = lru_css_alloc,
		.css_free = lru_css_free,
		.css_alloc_undo = lru_css_free,
		.teardown_noted = true,
	};
	const struct msim_config *cfg = msim_config(m);
	struct msim_memcg_hooks hooks = tmpl;
	struct msim__lru_host *lh = state;
	int ret;

	lh->m = m;
	lh->nr_nodes = msim_nr_nodes(m);
	lh->mglru = cfg->lru == MSIM_LRU_MGLRU;
	lh->reparent_objcg = cfg->variants.lru_reparent == MSIM_LRU_REPARENT_OBJCG;
	lh->lruvec_recheck = cfg->variants.lruvec_recheck == MSIM_ON;
	lh->mglru_6_12 = cfg->variants.mglru_protection == MSIM_MGLRU_PROTECTION_6_12;
	lh->slot = -1;
	ret = lru_attach_lower(m);
	if (ret)
		return ret;
	hooks.priv = lh;
	ret = msim_memcg_register_hooks(m, &hooks);
	if (ret < 0)
		return ret;
	lh->slot = ret;
	if (lh->reparent_objcg)
		return msim_objcg_set_reparent_ops(m, &msim__lru_reparent_ops, lh);
	return 0;
}

/* The memcg layer frees the memcgs (our css_free) after this, with priv = state. */
static void lru_host_fini(struct msim *m, void *state)
{
	struct msim__lru_host *lh = state;

	if (lh->reparent_objcg)
		msim_objcg_set_reparent_ops(m, NULL, NULL);
	msim__folio_quarantine_free(lh);
}

__attribute__((constructor)) static void lru_register(void)
{
	msim_lru_subsys.host_init = lru_host_init;
	msim_lru_subsys.host_fini = lru_host_fini;
	msim_subsys_register(&msim_lru_subsys);
}

int msim_lru_attach(struct msim *m, char *err, size_t errlen)
{
	return msim_subsys_attach(m, &msim_lru_subsys, err, errlen);
}

int msim_lru_set_remove_mapping(struct msim *m, msim_reclaim_evict_fn fn, void *arg, bool notes)
{
	struct msim__lru_host *lh = msim__lru_host(m);

	if (!lh)
		return -ENODEV;
	if (fn && lh->remove_mapping && lh->remove_mapping != fn)
		return -EBUSY;
	lh->remove_mapping = fn;
	lh->remove_mapping_arg = fn ? arg : NULL;
	lh->remove_mapping_notes = fn && notes;
	return 0;
}
