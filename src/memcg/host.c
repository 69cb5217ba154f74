/* SPDX-License-Identifier: MIT */
/*
 * host.c - the per-host memcg state: created on first use, torn down at
 * msim_destroy(); the registration of hook sets (the order they run in is
 * hooks.c's); the per-state counts.
 *
 * kernel: the cgroup core's subsystem table and mem_cgroup_init() (the
 * "mem_cgroup" and "mem_cgroup_per_node" caches, the private id space). The
 * teardown has no kernel counterpart: a host is the model's, a machine that
 * goes away with every memcg still in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memcg/memcg_internal.h"

/* ---- per-host state ---- */

static void memcg_host_destroy(struct msim *m, void *arg);

static struct msim__memcg_host *memcg_host_new(struct msim *m)
{
	struct msim__memcg_host *h = calloc(1, sizeof(*h));
	size_t memcg_bytes;

	if (!h)
		return NULL;
	h->m = m;
	h->lock.det = msim_config(m)->mode == MSIM_DETERMINISTIC;
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
	return h;
}

/*
 * The host's tree state, created on first use. The first user may race with
 * another CPU in concurrent mode: the slot is installed with a compare-exchange
 * and the loser frees its copy before anything else saw it.
 */
struct msim__memcg_host *msim__memcg_host_get(struct msim *m)
{
	void **slot = msim_host_slot(m, MSIM_SLOT_MEMCG);
	struct msim__memcg_host *h = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	void *expected = NULL;

	if (h)
		return h;
	h = memcg_host_new(m);
	if (!h)
		return NULL;
	if (!__atomic_compare_exchange_n(slot, &expected, h, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		msim_kmem_cache_destroy(m, h->memcg_cache);
		msim_kmem_cache_destroy(m, h->pn_cache);
		msim_idr_destroy(&h->ids);
		msim_lock_destroy(&h->root_lock);
		free(h);
		return expected;
	}
	msim_host_on_destroy(m, memcg_host_destroy, h);
	return h;
}

/* ---- teardown at msim_destroy() ---- */

/*
 * Free every remaining memcg, children before parents (reverse link order): the
 * css_released hooks for those not yet released, the css_free hooks, then the
 * memory. Callbacks still in flight finish first. Offline hooks are not run (the
 * host is going away, nothing needs reparenting).
 */
static void memcg_host_destroy(struct msim *m, void *arg)
{
	struct msim__memcg_host *h = arg;
	struct msim_memcg *memcg, *prev;
	unsigned int rounds;

	h->destroying = true;
	/* A free may put a parent and queue its release: drain until quiet. */
	for (rounds = 0; __atomic_load_n(&h->rcu_pending, __ATOMIC_ACQUIRE) > 0 && rounds < 100000;
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
	msim_idr_destroy(&h->ids);
	msim_kmem_cache_destroy(m, h->memcg_cache);
	msim_kmem_cache_destroy(m, h->pn_cache);
	msim_lock_destroy(&h->root_lock);
	*msim_host_slot(m, MSIM_SLOT_MEMCG) = NULL;
	free(h);
}

/* ---- counts ---- */

void msim_memcg_counts(struct msim *m, struct msim_memcg_counts *out)
{
	struct msim__memcg_host *h = m ? msim__memcg_host_get(m) : NULL;

	memset(out, 0, sizeof(*out));
	if (!h)
		return;
	out->online = __atomic_load_n(&h->nr_state[MSIM_MEMCG_ONLINE], __ATOMIC_RELAXED);
	out->dying = __atomic_load_n(&h->nr_state[MSIM_MEMCG_DYING], __ATOMIC_RELAXED);
	out->offline = __atomic_load_n(&h->nr_state[MSIM_MEMCG_OFFLINE], __ATOMIC_RELAXED);
	out->released = __atomic_load_n(&h->nr_state[MSIM_MEMCG_RELEASED], __ATOMIC_RELAXED);
	out->freed_total = __atomic_load_n(&h->freed_total, __ATOMIC_RELAXED);
	out->created_total = __atomic_load_n(&h->created_total, __ATOMIC_RELAXED);
}

/* ---- hook registration ---- */

int msim_memcg_hooks_slot(struct msim *m, const char *name)
{
	struct msim__memcg_host *h;
	unsigned int i, n;

	if (!m || !name || !(h = msim__memcg_host_get(m)))
		return -EINVAL;
	n = __atomic_load_n(&h->nr_hooks, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (h->hooks[i].name && strcmp(h->hooks[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

static void hooks_insert_sorted(struct msim__memcg_host *h, unsigned int s)
{
	unsigned int i = h->nr_hooks;

	/* Stable: after every set of equal or lower order. */
	while (i > 0 && h->hooks[h->sorted[i - 1]].order > h->hooks[s].order) {
		h->sorted[i] = h->sorted[i - 1];
		i--;
	}
	h->sorted[i] = (unsigned char)s;
}

/*
 * A set whose root hooks failed never runs: its callbacks are cleared (its slot
 * number stays taken). Registration is a setup-time operation, not concurrent
 * with mkdir/rmdir.
 */
static void hooks_disable(struct msim__memcg_host *h, unsigned int s)
{
	msim__raw_lock(&h->lock);
	h->hooks[s].css_alloc = NULL;
	h->hooks[s].css_online = NULL;
	h->hooks[s].css_offline = NULL;
	h->hooks[s].css_released = NULL;
	h->hooks[s].css_free = NULL;
	h->hooks[s].css_alloc_undo = NULL;
	msim__raw_unlock(&h->lock);
}

int msim_memcg_register_hooks(struct msim *m, const struct msim_memcg_hooks *hooks)
{
	struct msim__memcg_host *h;
	struct msim_memcg *root;
	unsigned int s;
	int ret;

	if (!m || !hooks || !(h = msim__memcg_host_get(m)))
		return -EINVAL;
	/* Serialised with root creation, so the root runs the set exactly once. */
	msim_lock(&h->root_lock);
	msim__raw_lock(&h->lock);
	if (h->nr_hooks >= MSIM_MEMCG_MAX_SLOTS) {
		msim__raw_unlock(&h->lock);
		msim_unlock(&h->root_lock);
		return -ENOSPC;
	}
	s = h->nr_hooks;
	h->hooks[s] = *hooks;
	hooks_insert_sorted(h, s);
	__atomic_store_n(&h->nr_hooks, s + 1, __ATOMIC_RELEASE);
	root = h->root;
	msim__raw_unlock(&h->lock);
	ret = root ? msim__memcg_run_setup_on_root(root, s) : 0;
	if (ret)
		hooks_disable(h, s);
	msim_unlock(&h->root_lock);
	return ret ? ret : (int)s;
}
