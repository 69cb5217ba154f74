/* SPDX-License-Identifier: MIT */
/*
 * attach.c - the shrinker layer as the subsystem "shrinker": host_init creates
 * the host's state (registry, layout, unit cache) and registers the
 * shrinker_info and deferred-count memcg hooks (info.c) with it as their priv;
 * host_fini frees it at msim_destroy(). list_lru is a subsystem of its own
 * (list_lru.c), which needs this one; msim_shrinker_init() at the end
 * attaches both by hand.
 *
 * kernel: the boot-time state of mm/shrinker.c (shrinker_idr, shrinker_mutex,
 * shrinker_list); the unit cache of thread 001's kernels.
 *
 * It hands info.c's hooks the state as their priv; msim__shr_host, the lookup
 * of every entry point of the folder, is defined here beside the description.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "shrinker/shrinker_internal.h"

/* The shrinker's rows of the variant table (subsys.h), by index. */
enum { SHR_V_INFO, SHR_V_RECOUNT, SHR_V_ON_DEMAND_LOCK, SHR_V_BIT_BARRIER };

static const struct msim_subsys shrinker_subsys; /* below, with its callbacks */

static int shr_variant(const struct msim_config *cfg, unsigned int row)
{
	return msim_subsys_variant(&cfg->variants, &shrinker_subsys, row);
}

enum msim_shrinker_info_layout msim__shr_variant_layout(const struct msim_config *cfg)
{
	return shr_variant(cfg, SHR_V_INFO);
}

static void shr_host_setup(struct msim__shr_host *h, struct msim *m)
{
	const struct msim_config *cfg = msim_config(m);

	h->m = m;
	h->layout = msim__shr_variant_layout(cfg);
	h->ops = msim__shr_layout_ops(h->layout);
	h->recount = shr_variant(cfg, SHR_V_RECOUNT) == MSIM_ON;
	h->bit_barrier = shr_variant(cfg, SHR_V_BIT_BARRIER) == MSIM_SHRINKER_BIT_BARRIER_MB;
	h->install_lock = shr_variant(cfg, SHR_V_ON_DEMAND_LOCK) == MSIM_ON;
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
}

/*
 * What host_init set up, freed; also on a failed attach. The memcg layer's
 * teardown (after this one) still calls the hook sets: detached makes them
 * return at once.
 */
static void shr_host_teardown(struct msim__shr_host *h)
{
	struct msim *m = h->m;
	struct msim_memcg *memcg = NULL;
	struct msim__shr_memcg *sm;

	/* Let released memcgs reach css_free (our hook) while we are still here. */
	for (int rounds = 0; rounds < 1000; rounds++) {
		struct msim_memcg_counts cnt;

		msim_memcg_counts(m, &cnt);
		if (!cnt.released)
			break;
		msim_rcu_barrier();
	}
	/* Free every memcg's info still around (root at least); hooks then find none. */
	while (h->memcg_slot >= 0 && (memcg = msim_mem_cgroup_iter(h->root, memcg)) != NULL) {
		sm = msim__shr_memcg(h, memcg);
		if (sm)
			msim__shr_free_info_locked(h, memcg, sm);
	}
	h->detached = true;
	msim_idr_fini(&h->idr);
	if (h->unit_cache)
		msim_kmem_cache_destroy(m, h->unit_cache);
	for (int k = 0; k < 2; k++)
		if (h->obj_cache[k])
			msim_kmem_cache_destroy(m, h->obj_cache[k]);
	msim_lock_destroy(&h->mutex);
	msim_lock_destroy(&h->info_lock);
	pthread_mutex_destroy(&h->track_lock);
}

/* The hook sets of the subsystem, each registered with the host state as priv. */
static const struct msim_memcg_hooks *const shr_hooks[] = {
	&msim__shr_info_hooks,         /* slot: h->memcg_slot */
	&msim__shr_deferred_hooks,
	NULL,
};

static int register_hooks(struct msim__shr_host *h)
{
	for (unsigned int i = 0; shr_hooks[i]; i++) {
		struct msim_memcg_hooks hooks = *shr_hooks[i];
		int r;

		hooks.priv = h;
		r = msim_memcg_register_hooks(h->m, &hooks);
		if (r < 0)
			return r;
		if (shr_hooks[i] != &msim__shr_info_hooks)
			continue;
		h->memcg_slot = r;
		/* The root ran our css_online while the slot was unknown: publish its info. */
		if (h->root_sm)
			msim_quiet_store((struct msim__shr_memcg **)msim_memcg_slot(h->root, r),
					 h->root_sm, MSIM_RELEASE);
	}
	return 0;
}

static bool shrinker_enabled(const struct msim_config *cfg)
{
	return cfg->shrinker;
}

/* state: zeroed, sizeof(struct msim__shr_host). */
static int shrinker_host_init(struct msim *m, void *state)
{
	struct msim__shr_host *h = state;
	int r;

	shr_host_setup(h, m);
	/* Root first: alloc_shrinker_info runs on it when the hooks register. */
	h->root = msim_root_mem_cgroup(m);
	r = h->root ? register_hooks(h) : -ENOMEM;
	if (r)
		shr_host_teardown(h);
	return r;
}

static void shrinker_host_fini(struct msim *m, void *state)
{
	(void)m;
	shr_host_teardown(state);
}

static const char *const shrinker_deps[] = { "memcg", NULL };

/* Indexed by the SHR_V_ rows above. */
static const char *const info_values[] = { "array", "array-unit-cache", "array-on-demand",
						"xarray", NULL };
static const char *const bit_barrier_values[] = { "mb", "none", NULL };

static const struct msim_variant_desc shrinker_variants[] = {
	[SHR_V_INFO] = { "shrinker-info", info_values,
		"per-memcg shrinker units: upfront in a pointer array from kmalloc-1k (array), the "
		"same from a 520-byte cache (array-unit-cache), on demand in the pointer array "
		"(array-on-demand), on demand in an xarray (xarray)",
		"001" },
	[SHR_V_RECOUNT] = { "shrinker-recount", MSIM_VARIANT_VALUES_ON_OFF,
		"shrink_slab_memcg clears a bit on SHRINK_EMPTY, then barrier, recount and re-set "
		"(on); off removes the recount to show the lost bit it prevents",
		"demo (S1)" },
	[SHR_V_ON_DEMAND_LOCK] = { "on-demand-lock", MSIM_VARIANT_VALUES_ON_OFF,
		"array-on-demand: the lock that keeps a unit install from being lost in a "
		"concurrent expansion copy (on); off shows the loss",
		"demo (001)" },
	[SHR_V_BIT_BARRIER] = { "shrinker-bit-barrier", bit_barrier_values,
		"S1's barrier pair: smp_mb__before_atomic before set_shrinker_bit's set_bit and "
		"smp_mb__after_atomic after shrink_slab_memcg's clear_bit (mb); none removes both, "
		"to see under which memory model (--memory-model) they are needed",
		"demo (S1, memory models)" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int shrinker_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys shrinker_subsys = {
	.name = "shrinker",
	.depends = shrinker_deps,
	.enabled = shrinker_enabled,
	.state_size = sizeof(struct msim__shr_host),
	.host_init = shrinker_host_init,
	.host_fini = shrinker_host_fini,
	.memcg_hooks = shr_hooks,
	.variants = shrinker_variants,
	.id = &shrinker_subsys_id,
};

/*
 * Every shrinker entry point reaches shrinker_subsys (msim__shr_host), so
 * a program that calls any of them links this file and this registration with it.
 */
struct msim__shr_host *msim__shr_host(struct msim *m)
{
	return m ? (struct msim__shr_host *)msim_subsys_state(m, &shrinker_subsys) : NULL;
}

__attribute__((constructor)) static void shrinker_register(void)
{
	msim_subsys_register(&shrinker_subsys);
}

/* ---- msim_shrinker_init(): the hand attach of both subsystems of this folder ---- */

int msim_shrinker_init(struct msim *m)
{
	struct msim_memcg_counts cnt;
	char err[160];
	bool fresh;
	int r;

	if (!m)
		return -EINVAL;
	fresh = !msim_subsys_attached(m, msim_subsys_find("shrinker"));
	msim_memcg_counts(m, &cnt);
	/* list_lru needs the shrinker: one attach brings both, shrinker first. */
	r = msim_subsys_attach(m, msim_subsys_find("list_lru"), err, sizeof(err));
	if (r)
		return r;
	/* Child memcgs made before the shrinker attached have no shrinker_info: say so. */
	return fresh && cnt.online > 1 ? -EBUSY : 0;
}
