/* SPDX-License-Identifier: MIT */
/*
 * host.c - the zswap subsystem: per-host state, the memcg hooks and the
 * shrinker's registration (kernel: zswap_setup(), zswap_alloc_shrinker(),
 * mem_cgroup_css_alloc()'s zswap fields, mem_cgroup_css_offline()'s
 * zswap_memcg_offline_cleanup()).
 *
 * Its offline step comes first in the lifecycle table (lifecycle.c): the kernel
 * calls zswap_memcg_offline_cleanup() before memcg_offline_kmem() (which
 * reparents the list_lrus).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zswap/zswap_internal.h"

static int zswap_host_init(struct msim *m, void *state);
static void zswap_host_fini(struct msim *m, void *state);

static bool zswap_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;    /* attached by msim_zswap_attach() only */
}

static const char *const zswap_deps[] = { "lru", "list_lru", "obj_stock", NULL };

/* zswap's rows of the variant table (subsys.h), by index. */
enum { ZSWAP_V_ROOT_COUNT, ZSWAP_V_SHRINK_ITER, ZSWAP_V_COUNT_FLUSH };
static const char *const root_count_values[] = { "memcg-stats", "pool", NULL };
static const char *const shrink_iter_values[] = { "fixed", "old", NULL };
static const char *const count_flush_values[] = { "gated", "ratelimited", NULL };

static const struct msim_variant_desc zswap_variants[] = {
	[ZSWAP_V_ROOT_COUNT] = { "zswap-root-count", root_count_values,
		"zswap_shrinker_count() for the root memcg: the compression ratio from the root's "
		"MEMCG_ZSWAP_B / MEMCG_ZSWAPPED, which never count root-owned entries "
		"(memcg-stats), or from the pool-wide counters (pool)",
		"002 patch 1" },
	[ZSWAP_V_SHRINK_ITER] = { "zswap-shrink-iter", shrink_iter_values,
		"zswap's global shrink_worker cursor: the worker and zswap_memcg_offline_cleanup "
		"both skip offline memcgs (fixed), or the cleanup advances the cursor one step, "
		"possibly onto an offline memcg, and the worker counts an offline memcg as a "
		"failure (old, before the 2024 fix)",
		"demo (zswap 2024 fix)" },
	[ZSWAP_V_COUNT_FLUSH] = { "zswap-count-flush", count_flush_values,
		"the flush zswap_shrinker_count() does before reading a memcg's MEMCG_ZSWAP_B and "
		"MEMCG_ZSWAPPED: the threshold-gated mem_cgroup_flush_stats (gated, linux 6.12), or "
		"mem_cgroup_flush_stats_ratelimited, which flushes only when the periodic flusher is "
		"a full cycle late (ratelimited, the base of thread 002)",
		"002 (its base)" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int zswap_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys zswap_subsys = {
	.name = "zswap",
	.depends = zswap_deps,
	.enabled = zswap_enabled,
	.state_size = sizeof(struct msim__zswap),
	.host_init = zswap_host_init,
	.host_fini = zswap_host_fini,
	.variants = zswap_variants,
	.id = &zswap_subsys_id,
};

static int zswap_variant(const struct msim_config *cfg, unsigned int row)
{
	return msim_subsys_variant(&cfg->variants, &zswap_subsys, row);
}

__attribute__((constructor)) static void zswap_register(void)
{
	msim_subsys_register(&zswap_subsys);
}

void msim_zswap_params_init(struct msim_zswap_params *p)
{
	memset(p, 0, sizeof(*p));
	p->max_pool_percent = 20;
	p->accept_thr_percent = 90;
	p->shrinker_enabled = true;
	p->swap_slots = 1UL << 18;
	p->min_bytes = 1000;
	p->max_bytes = 3000;
	p->seed = 1;
}

/* ---- memcg hooks ---- */

static int zswap_css_alloc(struct msim_memcg *memcg, void *priv)
{
	struct msim__zswap *z = priv;
	struct msim__zswap_memcg *zm;

	if (z->slot < 0)     /* the root, inside the registration */
		z->slot = msim_memcg_hooks_slot(z->m, "zswap");
	zm = calloc(1, sizeof(*zm) + z->nr_nodes * sizeof(zm->nr_disk_swapins[0]));
	if (!zm)
		return -ENOMEM;
	zm->zswap_max = (unsigned long)MSIM_PAGE_COUNTER_MAX;
	zm->writeback = 1;
	*msim_memcg_slot(memcg, z->slot) = zm;
	return 0;
}

static void zswap_css_offline(struct msim_memcg *memcg, void *priv)
{
	msim__zswap_offline_cleanup(priv, memcg);
}

static void zswap_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim__zswap *z = priv;
	void **slot;
	struct msim__zswap_memcg *zm;

	if (z->slot < 0)
		return;
	slot = msim_memcg_slot(memcg, z->slot);
	zm = *slot;
	/* DPOR (teardown_noted): the slot and the freed data are stored over */
	msim_access_note(slot, sizeof(*slot), MSIM_ACCESS_STORE);
	if (zm)
		msim_access_note(zm, sizeof(*zm) + z->nr_nodes * sizeof(zm->nr_disk_swapins[0]),
				 MSIM_ACCESS_STORE);
	free(zm);
	*slot = NULL;
}

/* ---- the subsystem ---- */

static unsigned long config_ram_pages(const struct msim_config *cfg)
{
	return cfg->zone_managed_pages[MSIM_ZONE_DMA] + cfg->zone_managed_pages[MSIM_ZONE_DMA32] +
	       cfg->nr_nodes * (cfg->zone_managed_pages[MSIM_ZONE_NORMAL] +
				cfg->zone_managed_pages[MSIM_ZONE_MOVABLE]);
}

/* kernel: zswap_alloc_shrinker(): "mm-zswap", NUMA- and memcg-aware, batch 0. */
static int zswap_shrinker_setup(struct msim__zswap *z)
{
	int ret = msim_shrinker_alloc(z->m, MSIM_SHRINKER_NUMA_AWARE | MSIM_SHRINKER_MEMCG_AWARE,
				      "mm-zswap", &z->shrinker);

	if (ret)
		return ret;
	z->shrinker->count_objects = msim__zswap_shrinker_count;
	z->shrinker->scan_objects = msim__zswap_shrinker_scan;
	z->shrinker->seeks = MSIM_DEFAULT_SEEKS;
	z->shrinker->batch = 0;
	z->shrinker->private_data = z;
	ret = msim_list_lru_init(z->m, &z->lru, true, z->shrinker);
	if (!ret)
		ret = msim_shrinker_register(z->shrinker);
	if (ret) {
		msim_shrinker_free(z->shrinker);
		msim_list_lru_destroy(&z->lru);
		z->shrinker = NULL;
	}
	return ret;
}

static int zswap_host_init(struct msim *m, void *state)
{
	static const struct msim_memcg_hooks tmpl = {
		.name = "zswap",
		.css_alloc = zswap_css_alloc,
		.css_offline = zswap_css_offline,
		.css_free = zswap_css_free,
		.css_alloc_undo = zswap_css_free,
		.teardown_noted = true,
	};
	struct msim_memcg_hooks hooks = tmpl;
	struct msim__zswap *z = state;
	int ret;

	z->m = m;
	z->slot = -1;
	z->nr_nodes = msim_nr_nodes(m);
	z->root_count_pool = zswap_variant(msim_config(m), ZSWAP_V_ROOT_COUNT) ==
			     MSIM_ZSWAP_ROOT_COUNT_POOL;
	z->shrink_iter_old = zswap_variant(msim_config(m), ZSWAP_V_SHRINK_ITER) ==
			     MSIM_ZSWAP_SHRINK_ITER_OLD;
	z->count_flush_ratelimited = zswap_variant(msim_config(m), ZSWAP_V_COUNT_FLUSH) ==
				     MSIM_ZSWAP_COUNT_FLUSH_RATELIMITED;
	msim_zswap_params_init(&z->p);
	z->p.total_ram_pages = config_ram_pages(msim_config(m));
	msim__zswap_zs_init(z);
	msim_spin_lock_init(&z->shrink_lock, "zswap_shrink_lock");
	msim_xa_init(m, &z->tree, "zswap_tree");
	ret = msim__swapdev_init(&z->dev, z->p.swap_slots);
	if (!ret)
		ret = zswap_shrinker_setup(z);
	if (ret)
		goto fail;
	hooks.priv = z;
	ret = msim_memcg_register_hooks(m, &hooks);
	if (ret < 0)
		goto fail;
	z->slot = ret;
	return 0;
fail:
	if (z->shrinker) {
		msim_shrinker_free(z->shrinker);
		msim_list_lru_destroy(&z->lru);
	}
	msim__swapdev_fini(&z->dev);
	msim_xa_fini(&z->tree);
	msim_lock_destroy(&z->shrink_lock);
	return ret < 0 ? ret : -ENOMEM;
}

/* Entries left at teardown are freed (uncharged) while the layers below still work. */
static void free_all_entries(struct msim__zswap *z)
{
	unsigned long idx = 0;
	struct msim__zswap_entry *e;

	while ((e = msim_xa_find(&z->tree, &idx, ~0UL, MSIM_XA_PRESENT))) {
		msim_xa_erase(&z->tree, idx);
		msim__zswap_entry_free(z, e);
	}
}

static void zswap_host_fini(struct msim *m, void *state)
{
	struct msim__zswap *z = state;

	(void)m;
	free_all_entries(z);
	msim__zswap_cursor_release(z);
	if (z->shrinker)
		msim_shrinker_free(z->shrinker);
	msim_list_lru_destroy(&z->lru);
	msim__swapdev_fini(&z->dev);
	msim_xa_fini(&z->tree);
	msim_lock_destroy(&z->shrink_lock);
}

struct msim__zswap *msim__zswap_of(const struct msim *m)
{
	return m ? msim_subsys_state(m, &zswap_subsys) : NULL;
}

int msim__zswap_attach(struct msim *m, char *err, size_t errlen)
{
	return msim_subsys_attach(m, &zswap_subsys, err, errlen);
}
