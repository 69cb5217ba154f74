/* SPDX-License-Identifier: MIT */
/*
 * workingset.c - the "workingset" subsystem: attaching the layer to a host, the
 * memcg lifecycle hooks that give every memcg its nonresident clocks, and the
 * shadow-node shrinker (kernel: workingset_init, and the nonresident_age field
 * of the lruvec, initialised with the memcg and freed with it).
 *
 * Its steps in the lifecycle table (lifecycle.c): css_alloc and css_free; the
 * clocks need nothing of the others.
 */
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/charge.h>

#include "workingset/ws_internal.h"


static int ws_css_alloc(struct msim_memcg *memcg, void *priv)
{
	struct msim__ws_host *wh = priv;
	struct msim__ws_memcg *wm;

	/* On a root that exists already the hook runs inside its registration. */
	if (wh->slot < 0)
		wh->slot = msim_memcg_hooks_slot(wh->m, "workingset");
	wm = msim__ws_memcg_alloc(wh, memcg);
	if (!wm)
		return -ENOMEM;
	*msim_memcg_slot(memcg, wh->slot) = wm;
	return 0;
}

static void ws_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim__ws_host *wh = priv;
	void **slot = msim_memcg_slot(memcg, wh->slot);
	struct msim__ws_memcg *wm = *slot;

	/* DPOR (teardown_noted): the slot and the freed data are stored over */
	msim_access_note(slot, sizeof(*slot), MSIM_ACCESS_STORE);
	if (wm)
		msim_access_note(wm, sizeof(*wm) + wh->nr_nodes * sizeof(wm->nonresident_age[0]),
				 MSIM_ACCESS_STORE);
	free(*slot);
	*slot = NULL;
}

/* totalram_pages(): the managed pages of every zone of every node. */
static unsigned long totalram_pages(const struct msim_config *cfg)
{
	unsigned long pages = 0;

	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
		pages += cfg->zone_managed_pages[z] *
			 (z == MSIM_ZONE_DMA || z == MSIM_ZONE_DMA32 ? 1 : cfg->nr_nodes);
	return pages;
}

/* The workingset's rows of the variant table (subsys.h), by index. */
enum { WS_V_SHADOW_BUDGET, WS_V_ROOT_FLUSH, WS_V_ISOLATE_TRYLOCK };

static const struct msim_subsys ws_subsys; /* below, with its callbacks */

static int ws_variant(const struct msim_config *cfg, unsigned int row)
{
	return msim_subsys_variant(&cfg->variants, &ws_subsys, row);
}

static int ws_host_init(struct msim *m, void *state)
{
	static const struct msim_memcg_hooks tmpl = {
		.name = "workingset",
		.css_alloc = ws_css_alloc,
		.css_free = ws_css_free,
		.css_alloc_undo = ws_css_free,
		.teardown_noted = true,
	};
	const struct msim_config *cfg = msim_config(m);
	struct msim_memcg_hooks hooks = tmpl;
	struct msim__ws_host *wh = state;
	int ret;

	wh->m = m;
	wh->nr_nodes = msim_nr_nodes(m);
	wh->mglru = msim_lru_gen_enabled(m);
	wh->mglru_6_12 = msim_lru_variant_mglru_protection(cfg) == MSIM_MGLRU_PROTECTION_6_12;
	wh->kmem_counted = msim_obj_stock_variant_kmem_stat(cfg) == MSIM_KMEM_STAT_COUNTED;
	wh->budget_page_state = ws_variant(cfg, WS_V_SHADOW_BUDGET) ==
				MSIM_SHADOW_BUDGET_PAGE_STATE_LOCAL;
	wh->root_flush_skip = ws_variant(cfg, WS_V_ROOT_FLUSH) == MSIM_WORKINGSET_ROOT_SKIP;
	wh->isolate_trylock = ws_variant(cfg, WS_V_ISOLATE_TRYLOCK) == MSIM_ON;
	wh->bucket_order = msim_workingset_bucket_order_for(totalram_pages(cfg));
	wh->slot = -1;
	hooks.priv = wh;
	ret = msim_memcg_register_hooks(m, &hooks);
	if (ret < 0)
		return ret;
	wh->slot = ret;
	ret = msim__ws_shadow_nodes_init(wh);
	/*
	 * The charge path's reclaim (memory.max, and memory.high on the way back
	 * to user space: msim_mem_cgroup_handle_over_high) is this layer's: the
	 * page cache is the folios' owner, as try_to_free_mem_cgroup_pages' is.
	 */
	if (!ret)
		msim_charge_set_reclaim(m, msim__ws_charge_reclaim, NULL);
	/*
	 * Any reclaim without an evict callback of its own (a caller of
	 * msim_try_to_free_mem_cgroup_pages) removes a page-cache folio from its
	 * mapping as __remove_mapping does: the LRU layer reaches the mapping
	 * through this hook, as the kernel's reclaim reaches it through
	 * folio->mapping. msim_filemap_evict notes what it touches (filemap.c).
	 */
	if (!ret)
		ret = msim_lru_set_remove_mapping(m, msim_filemap_evict, NULL, true);
	return ret;
}

/* The memcg layer frees the memcgs (our css_free) after this, with priv = state. */
static void ws_host_fini(struct msim *m, void *state)
{
	msim_lru_set_remove_mapping(m, NULL, NULL, false);
	msim_charge_set_reclaim(m, NULL, NULL);   /* no reclaim through a layer that is gone */
	msim__ws_shadow_nodes_fini(state);
}

static const char *const ws_deps[] = { "lru", "list_lru", NULL };

static bool ws_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;
}

/* Indexed by the WS_V_ rows above. */
static const char *const budget_values[] = { "lru-size", "page-state-local", NULL };
static const char *const root_flush_values[] = { "flush", "skip", NULL };

static const struct msim_variant_desc ws_variant_rows[] = {
	[WS_V_SHADOW_BUDGET] = { "shadow-budget", budget_values,
		"count_shadow_nodes() budgets a memcg's shadow nodes by its LRU pages read from "
		"lruvec_lru_size(), i.e. lru_zone_size, which MGLRU never maintains (lru-size), or "
		"from the lruvec_page_state_local() statistics both LRUs keep (page-state-local)",
		"000 patch 1" },
	[WS_V_ROOT_FLUSH] = { "workingset-root-flush", root_flush_values,
		"workingset_test_recent() flushes the eviction memcg's stats before reading its "
		"workingset size (flush), or skips the flush when that memcg is the root (skip)",
		"002 patch 3" },
	[WS_V_ISOLATE_TRYLOCK] = { "shadow-isolate-trylock", MSIM_VARIANT_VALUES_ON_OFF,
		"shadow_lru_isolate trylocks the mapping's xa lock under the list_lru lock, retries "
		"when it is busy, and frees the node only if it still holds shadows alone (on); off "
		"drops the list lock first, waits for the xa lock and erases the node's entries "
		"without the recheck, to show the refault it would lose",
		"demo (workingset)" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int ws_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys ws_subsys = {
	.name = "workingset",
	.depends = ws_deps,
	.enabled = ws_enabled,
	.state_size = sizeof(struct msim__ws_host),
	.host_init = ws_host_init,
	.host_fini = ws_host_fini,
	.variants = ws_variant_rows,
	.id = &ws_subsys_id,
};

struct msim__ws_host *msim__ws_host(const struct msim *m)
{
	return m ? msim_subsys_state(m, &ws_subsys) : NULL;
}

__attribute__((constructor)) static void ws_register(void)
{
	msim_subsys_register(&ws_subsys);
}

int msim_workingset_attach(struct msim *m, char *err, size_t errlen)
{
	return msim_subsys_attach(m, &ws_subsys, err, errlen);
}

/* ---- per-host and per-memcg state and lookups ---- */

bool msim_workingset_attached(const struct msim *m)
{
	return msim__ws_host(m) != NULL;
}

msim_atomic_long_t *msim__ws_nonresident_age(struct msim__ws_host *wh, struct msim_memcg *memcg,
					     unsigned int nid)
{
	struct msim__ws_memcg *wm;

	if (!wh || nid >= wh->nr_nodes || wh->slot < 0)
		return NULL;
	if (!memcg)
		memcg = msim_root_mem_cgroup(wh->m);
	wm = *msim_memcg_slot(memcg, wh->slot);
	return wm ? &wm->nonresident_age[nid] : NULL;
}

struct msim__ws_memcg *msim__ws_memcg_alloc(struct msim__ws_host *wh, struct msim_memcg *memcg)
{
	struct msim__ws_memcg *wm;

	wm = calloc(1, sizeof(*wm) + wh->nr_nodes * sizeof(wm->nonresident_age[0]));
	if (wm)
		wm->memcg = memcg;
	return wm;
}

struct msim__ws_page *msim__ws_page_of(const struct msim_folio *folio)
{
	struct msim__ws_page *rec = msim_folio_private(folio);

	return rec && rec->magic == MSIM__WS_PAGE_MAGIC ? rec : NULL;
}

void msim__ws_page_free(struct msim_folio *folio)
{
	struct msim__ws_page *rec = msim__ws_page_of(folio);

	msim_folio_set_private(folio, NULL);
	free(rec);
}

void msim__ws_page_forget(struct msim_folio *folio)
{
	msim__ws_page_free(folio);
	msim_folio_put(folio);
}

unsigned long msim_workingset_nonresident_age(struct msim *m, struct msim_memcg *memcg,
					      unsigned int nid)
{
	msim_atomic_long_t *age = msim__ws_nonresident_age(msim__ws_host(m), memcg, nid);

	return age ? (unsigned long)msim_atomic_long_read(age) : 0;
}

struct msim_list_lru *msim_workingset_shadow_nodes(struct msim *m)
{
	struct msim__ws_host *wh = msim__ws_host(m);

	return wh && wh->shadow_nodes_ready ? &wh->shadow_nodes : NULL;
}

struct msim_shrinker *msim_workingset_shrinker(struct msim *m)
{
	struct msim__ws_host *wh = msim__ws_host(m);

	return wh ? wh->shrinker : NULL;
}

unsigned long msim_workingset_nodes(struct msim *m, unsigned int nid)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	long v;

	if (!wh || nid >= wh->nr_nodes)
		return 0;
	v = msim_quiet_load(&wh->workingset_nodes[nid], MSIM_RELAXED);
	return v > 0 ? (unsigned long)v : 0;
}

void msim_workingset_counts(struct msim *m, struct msim_workingset_counts *out)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	const unsigned long *src;
	unsigned long *dst = (unsigned long *)out;
	size_t n = sizeof(*out) / sizeof(unsigned long);

	if (!out)
		return;
	if (!wh) {
		for (size_t i = 0; i < n; i++)
			dst[i] = 0;
		return;
	}
	src = (const unsigned long *)&wh->counts;
	for (size_t i = 0; i < n; i++)
		dst[i] = msim_quiet_load(&src[i], MSIM_RELAXED);
}
