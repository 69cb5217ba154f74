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
 * Its steps in the lifecycle table (lifecycle.c): css_alloc after rstat's
 * (whose lruvec handle each of ours records) and before objcg's; css_free
 * before rstat's.
 */
#include <errno.h>
#include <stdlib.h>

#include "lru/lru_internal.h"


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

/* The LRU's rows of the variant table (subsys.h), by index. */
enum { LRU_V_REPARENT, LRU_V_RECHECK, LRU_V_MGLRU_PROTECTION };

static const struct msim_subsys lru_subsys; /* below, with its callbacks */

static int lru_variant(const struct msim_config *cfg, unsigned int row)
{
	return msim_subsys_variant(&cfg->variants, &lru_subsys, row);
}

enum msim_mglru_protection msim_lru_variant_mglru_protection(const struct msim_config *cfg)
{
	return lru_variant(cfg, LRU_V_MGLRU_PROTECTION);
}

static int lru_host_init(struct msim *m, void *state)
{
	static const struct msim_memcg_hooks tmpl = {
		.name = "lru",
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
	lh->reparent_objcg = lru_variant(cfg, LRU_V_REPARENT) == MSIM_LRU_REPARENT_OBJCG;
	lh->lruvec_recheck = lru_variant(cfg, LRU_V_RECHECK) == MSIM_ON;
	lh->mglru_6_12 = lru_variant(cfg, LRU_V_MGLRU_PROTECTION) == MSIM_MGLRU_PROTECTION_6_12;
	lh->slot = -1;
	msim_init_list_head(&lh->releasing);
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
	msim__folio_releases_abandon(lh);
	msim__folio_quarantine_free(lh);
}

/*
 * objcg: memcg_data names one (lru-reparent=objcg) and its offline runs our
 * reparent ops; rstat: each lruvec records rstat's handle (lru_vec_init) and
 * every list move updates its statistics; charge: msim_mem_cgroup_charge()
 * (folio.c) goes through the charge path. The plan attaches them in this order,
 * the order lru's host init attached them by hand before they were subsystems.
 */
static const char *const lru_deps[] = { "objcg", "rstat", "charge", NULL };

/* No configuration switch: attached by hand (msim_lru_attach) or as a dependency. */
static bool lru_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;
}

/* Indexed by the LRU_V_ rows above. */
static const char *const reparent_values[] = { "objcg", "off", NULL };
static const char *const protection_values[] = { "6.14", "6.12", NULL };

static const struct msim_variant_desc lru_variants[] = {
	[LRU_V_REPARENT] = { "lru-reparent", reparent_values,
		"LRU folios of a memcg at its offline: they name a per-node objcg that offline "
		"repoints to the parent while their lists are spliced into the parent's (objcg), "
		"or they name the memcg, pin it and stay on its lists (off, the 7.0 world)",
		"000 (objcg series)" },
	[LRU_V_RECHECK] = { "lruvec-recheck", MSIM_VARIANT_VALUES_ON_OFF,
		"a folio's lruvec is checked under its lock: folio_lruvec_lock rechecks "
		"folio_memcg() and retries, move_folios_to_lru relocks when the folio moved (on); "
		"off trusts the lruvec looked up before an offline moved the folio",
		"demo (objcg LRU)" },
	[LRU_V_MGLRU_PROTECTION] = { "mglru-protection", protection_values,
		"MGLRU's thrashing protection: folio refs and tiers, the PID controller's gains, "
		"where new and refaulted folios go, the refault test and which refaults count as "
		"activations and restores, after the 6.14 rework (6.14, the newest) or before it "
		"(6.12: recent only while min_seq has not moved, every recent refault an "
		"activation)",
		"000 (MGLRU), linux 6.12" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int lru_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys lru_subsys = {
	.name = "lru",
	.depends = lru_deps,
	.enabled = lru_enabled,
	.state_size = sizeof(struct msim__lru_host),
	.host_init = lru_host_init,
	.host_fini = lru_host_fini,
	.variants = lru_variants,
	.id = &lru_subsys_id,
};

struct msim__lru_host *msim__lru_host(const struct msim *m)
{
	return m ? msim_subsys_state(m, &lru_subsys) : NULL;
}

__attribute__((constructor)) static void lru_register(void)
{
	msim_subsys_register(&lru_subsys);
}

int msim_lru_attach(struct msim *m, char *err, size_t errlen)
{
	return msim_subsys_attach(m, &lru_subsys, err, errlen);
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

/* ---- per-host state, per-memcg data, the lookups from public handles to the lists ---- */

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
