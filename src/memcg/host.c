/* SPDX-License-Identifier: MIT */
/*
 * host.c - the memcg layer as a subsystem: its per-host state, attached at
 * msim_create() and detached at msim_destroy(); the registration of hook sets
 * (the order they run in is lifecycle.c's table); the per-state counts.
 *
 * kernel: the cgroup core's subsystem table and mem_cgroup_init() (the
 * "mem_cgroup" and "mem_cgroup_per_node" caches, the private id space). The
 * teardown has no kernel counterpart: a host is the model's, a machine that
 * goes away with every memcg still in it.
 *
 * Every host has the subsystem unless its configuration sets memcg_disabled
 * (kernel: cgroup_disable=memory). Attaching creates no memcg: the root comes
 * with the first msim_root_mem_cgroup() (lifecycle.c), so a host that never
 * makes a memcg holds no memcg memory. The lookup of every memcg entry point,
 * msim__memcg_host, is defined here beside the description.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memcg/memcg_internal.h"

/* ---- the subsystem ---- */

static bool memcg_enabled(const struct msim_config *cfg)
{
	return !cfg->memcg_disabled;
}

/* state: zeroed, sizeof(struct msim__memcg_host); sim frees it after the last RCU callback. */
static int memcg_host_init(struct msim *m, void *state)
{
	struct msim__memcg_host *h = state;
	size_t memcg_bytes;

	h->m = m;
	h->layout_6_12 = msim_memcg_variant_layout(msim_config(m)) == MSIM_MEMCG_LAYOUT_LINUX_6_12;
	msim_lock_init(&h->root_lock, "memcg_root");
	msim_idr_init(m, &h->ids, "mem_cgroup_ids");
	/* kernel: mem_cgroup_init(): struct_size(memcg, nodeinfo, nr_node_ids). */
	memcg_bytes = MSIM__MEM_CGROUP_BASE_BYTES +
		      MSIM__MEM_CGROUP_PER_NODE_PTR * (size_t)msim_nr_nodes(m);
	h->memcg_cache = msim_kmem_cache_create_flags(m, "mem_cgroup", memcg_bytes,
						      MSIM_SLAB_HWCACHE_ALIGN);
	h->pn_cache = msim_kmem_cache_create_flags(m, "mem_cgroup_per_node",
						   MSIM__MEM_CGROUP_PER_NODE_BYTES,
						   MSIM_SLAB_HWCACHE_ALIGN);
	/* only charged, never read: their frees are no accesses (kmem.h) */
	h->kernfs_cache = msim_kmem_cache_find_or_create(m, "kernfs_node_cache",
							 MSIM__KERNFS_NODE_BYTES,
							 MSIM_SLAB_CHARGE_ONLY);
	if (h->memcg_cache && h->pn_cache && h->kernfs_cache)
		return 0;
	msim_kmem_cache_destroy(m, h->memcg_cache);
	msim_kmem_cache_destroy(m, h->pn_cache);
	msim_idr_fini(&h->ids);
	msim_lock_destroy(&h->root_lock);
	return -ENOMEM;
}

/*
 * Free every remaining memcg, children before parents (reverse link order): the
 * css_released hooks for those not yet released, the css_free hooks, then the
 * memory. Callbacks still in flight finish first. Offline hooks are not run (the
 * host is going away, nothing needs reparenting). The layers above detached
 * before this (they attached after it); the hooks they registered still run here,
 * with the priv they registered, and must tell that their layer is gone.
 */
static void memcg_host_fini(struct msim *m, void *state)
{
	struct msim__memcg_host *h = state;
	struct msim_memcg *memcg, *prev;
	unsigned int rounds;

	h->destroying = true;
	/* A free may put a parent and queue its release: drain until quiet. */
	for (rounds = 0; msim_quiet_load(&h->rcu_pending, MSIM_ACQUIRE) > 0 && rounds < 100000;
	     rounds++)
		msim_rcu_barrier();
	for (memcg = h->all_tail; memcg; memcg = prev) {
		prev = memcg->all_prev;
		if (msim__memcg_state_load(memcg) < MSIM_MEMCG_RELEASED)
			msim__memcg_run_released(memcg);
		msim__memcg_run_free(memcg);
		msim__memcg_free_struct(memcg, false);
	}
	h->all_head = h->all_tail = NULL;
	while (h->quarantine) {
		memcg = h->quarantine;
		h->quarantine = memcg->quarantine_next;
		free(memcg);
	}
	msim_idr_fini(&h->ids);
	msim_kmem_cache_destroy(m, h->memcg_cache);
	msim_kmem_cache_destroy(m, h->pn_cache);
	msim_lock_destroy(&h->root_lock);
}

/* The memcg layer's rows of the variant table (subsys.h). */
enum { MEMCG_V_LAYOUT };
static const char *const layout_values[] = { "newest", "linux-6.12", NULL };

static const struct msim_variant_desc memcg_variants[] = {
	[MEMCG_V_LAYOUT] = { "memcg-layout", layout_values,
		"the memory controller's structures in the kernel-memory model: struct mem_cgroup "
		"and mem_cgroup_per_node from their dedicated caches and 47 per-node statistics "
		"(newest), or both from kmalloc-2k and a 744-byte lruvec_stats (linux-6.12)",
		"kernel rig (6.12)" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int memcg_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys memcg_subsys = {
	.name = "memcg",
	.depends = NULL,
	.enabled = memcg_enabled,
	.state_size = sizeof(struct msim__memcg_host),
	.host_init = memcg_host_init,
	.host_fini = memcg_host_fini,
	.variants = memcg_variants,
	.id = &memcg_subsys_id,
};

enum msim_memcg_layout msim_memcg_variant_layout(const struct msim_config *cfg)
{
	return msim_subsys_variant(&cfg->variants, &memcg_subsys, MEMCG_V_LAYOUT);
}

/*
 * Every memcg entry point reaches memcg_subsys (msim__memcg_host), so a
 * program that calls any of them links this file and this registration with it.
 */
struct msim__memcg_host *msim__memcg_host(struct msim *m)
{
	return m ? (struct msim__memcg_host *)msim_subsys_state(m, &memcg_subsys) : NULL;
}

__attribute__((constructor)) static void memcg_register(void)
{
	msim_subsys_register(&memcg_subsys);
}

/* ---- counts ---- */

void msim_memcg_counts(struct msim *m, struct msim_memcg_counts *out)
{
	struct msim__memcg_host *h = msim__memcg_host(m);

	memset(out, 0, sizeof(*out));
	if (!h)
		return;
	out->online = msim_quiet_load(&h->nr_state[MSIM_MEMCG_ONLINE], MSIM_RELAXED);
	out->dying = msim_quiet_load(&h->nr_state[MSIM_MEMCG_DYING], MSIM_RELAXED);
	out->offline = msim_quiet_load(&h->nr_state[MSIM_MEMCG_OFFLINE], MSIM_RELAXED);
	out->released = msim_quiet_load(&h->nr_state[MSIM_MEMCG_RELEASED], MSIM_RELAXED);
	out->freed_total = msim_quiet_load(&h->freed_total, MSIM_RELAXED);
	out->created_total = msim_quiet_load(&h->created_total, MSIM_RELAXED);
}

/* ---- hook registration ---- */

int msim_memcg_hooks_slot(struct msim *m, const char *name)
{
	struct msim__memcg_host *h;
	unsigned int i, n;

	if (!name || !(h = msim__memcg_host(m)))
		return -EINVAL;
	n = msim_quiet_load(&h->nr_hooks, MSIM_ACQUIRE);
	for (i = 0; i < n; i++)
		if (h->hooks[i].name && strcmp(h->hooks[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

/*
 * A set whose root hooks failed never runs: its callbacks are cleared (its slot
 * number stays taken). Registration is a setup-time operation, not concurrent
 * with mkdir/rmdir.
 */
static void hooks_disable(struct msim__memcg_host *h, unsigned int s)
{
	msim_quiet_spin_lock(&h->lock);
	h->hooks[s].css_alloc = NULL;
	h->hooks[s].css_online = NULL;
	h->hooks[s].css_offline = NULL;
	h->hooks[s].css_released = NULL;
	h->hooks[s].css_free = NULL;
	h->hooks[s].css_alloc_undo = NULL;
	msim_quiet_spin_unlock(&h->lock);
}

int msim_memcg_register_hooks(struct msim *m, const struct msim_memcg_hooks *hooks)
{
	struct msim__memcg_host *h;
	struct msim_memcg *root;
	unsigned int s;
	int ret;

	if (!hooks || !(h = msim__memcg_host(m)))
		return -EINVAL;
	/* Serialised with root creation, so the root runs the set exactly once. */
	msim_lock(&h->root_lock);
	msim_quiet_spin_lock(&h->lock);
	if (h->nr_hooks >= MSIM_MEMCG_MAX_SLOTS) {
		msim_quiet_spin_unlock(&h->lock);
		msim_unlock(&h->root_lock);
		return -ENOSPC;
	}
	s = h->nr_hooks;
	h->hooks[s] = *hooks;
	h->hooks_key[s] = msim__memcg_lifecycle_key(hooks->name);
	h->nr_hooks = s + 1;  /* the plan reads it; published below */
	msim__memcg_lifecycle_plan(h);
	msim_quiet_store(&h->nr_hooks, s + 1, MSIM_RELEASE);
	root = h->root;
	msim_quiet_spin_unlock(&h->lock);
	ret = root ? msim__memcg_run_setup_on_root(root, s) : 0;
	if (ret)
		hooks_disable(h, s);
	msim_unlock(&h->root_lock);
	return ret ? ret : (int)s;
}
