/* SPDX-License-Identifier: MIT */
/*
 * tree.c - one memcg and its place in the tree: the struct and the kernel
 * memory it stands for (allocation, free, the debug quarantine), the handle
 * check, state changes with the host's per-state counts, and the links (the
 * parent's RCU list of children, the host's list of every memcg).
 *
 * kernel: mm/memcontrol.c mem_cgroup_alloc() / __mem_cgroup_free(),
 * kernel/cgroup/cgroup.c init_and_link_css() and the ->children list.
 * This is the bottom of src/memcg: it calls no other file of the folder. The
 * per-host state is in host.c, the hook sets run from hooks.c, references are
 * in css.c, and mkdir / rmdir / release / free (which use all of these) are in
 * lifecycle.c. docs/memcg.md lists every simplification.
 */
#include <stdlib.h>
#include <string.h>

#include "memcg/memcg_internal.h"

/* State change, with the host's per-state counts for memcgs whose mkdir completed. */
void msim__memcg_set_state(struct msim_memcg *memcg, enum msim_memcg_state s)
{
	struct msim__memcg_host *h = memcg->h;
	int old = __atomic_exchange_n(&memcg->state, (int)s, __ATOMIC_ACQ_REL);

	if (!__atomic_load_n(&memcg->counted, __ATOMIC_RELAXED))
		return;
	if (old != MSIM_MEMCG_ALLOCATED)
		__atomic_fetch_sub(&h->nr_state[old], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->nr_state[s], 1, __ATOMIC_RELAXED);
}

/* ---- allocation (kernel: mem_cgroup_alloc / __mem_cgroup_free) ---- */

/*
 * A new memcg under parent, holding its base reference; release is what the
 * last css_put calls (kernel: percpu_ref_init(&css->refcnt, css_release)).
 */
struct msim_memcg *msim__memcg_alloc(struct msim__memcg_host *h, struct msim_memcg *parent,
				     const char *name, void (*release)(struct msim_memcg *memcg))
{
	unsigned int nid, nr_nodes = msim_nr_nodes(h->m);
	struct msim_memcg *memcg = calloc(1, sizeof(*memcg));

	if (!memcg)
		return NULL;
	memcg->kmem_pn = calloc(nr_nodes, sizeof(void *));
	memcg->name = name ? strdup(name) : NULL;
	if (!memcg->kmem_pn || (name && !memcg->name)) {
		free(memcg->kmem_pn);
		free(memcg->name);
		free(memcg);
		return NULL;
	}
	memcg->magic = MSIM__MEMCG_MAGIC;
	memcg->h = h;
	memcg->parent = parent;
	memcg->level = parent ? parent->level + 1 : 0;
	memcg->serial = UINT64_MAX;      /* set when linked */
	memcg->kmemcg_id = -1;
	memcg->css_refcnt = 1;           /* the online (base) reference */
	memcg->css_release = release;
	memcg->state = MSIM_MEMCG_ALLOCATED;
	memcg->kmem_memcg = msim_kmem_cache_alloc(h->m, h->memcg_cache, "mem_cgroup");
	for (nid = 0; nid < nr_nodes; nid++)
		memcg->kmem_pn[nid] = msim_kmem_cache_alloc(h->m, h->pn_cache,
							    "mem_cgroup_per_node");
	return memcg;
}

/* Give the kernel memory back and free (or quarantine) the struct. */
void msim__memcg_free_struct(struct msim_memcg *memcg, bool quarantine)
{
	struct msim__memcg_host *h = memcg->h;
	unsigned int nid, nr_nodes = msim_nr_nodes(h->m);

	for (nid = 0; nid < nr_nodes; nid++)
		if (memcg->kmem_pn[nid])
			msim_kmem_cache_free(h->m, h->pn_cache, memcg->kmem_pn[nid]);
	if (memcg->kmem_memcg)
		msim_kmem_cache_free(h->m, h->memcg_cache, memcg->kmem_memcg);
	free(memcg->kmem_pn);
	free(memcg->name);
	memcg->kmem_pn = NULL;
	memcg->name = NULL;
	if (!quarantine || !MSIM__MEMCG_QUARANTINE) {
		free(memcg);
		return;
	}
	/* Poison: every later check of this handle fails. */
	memset(memcg->slots, 0x6b, sizeof(memcg->slots));
	__atomic_store_n(&memcg->magic, MSIM__MEMCG_POISON, __ATOMIC_RELEASE);
	memcg->quarantine_next = __atomic_load_n(&h->quarantine, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&h->quarantine, &memcg->quarantine_next, memcg, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

bool msim__memcg_check(const struct msim_memcg *memcg)
{
	return memcg && __atomic_load_n(&memcg->magic, __ATOMIC_ACQUIRE) == MSIM__MEMCG_MAGIC;
}

bool msim__memcg_quarantine_enabled(void)
{
	return MSIM__MEMCG_QUARANTINE;
}

/* ---- linking (kernel: init_and_link_css, list_add_tail_rcu on ->children) ---- */

static void all_list_add(struct msim__memcg_host *h, struct msim_memcg *memcg)
{
	memcg->all_prev = h->all_tail;
	memcg->all_next = NULL;
	if (h->all_tail)
		h->all_tail->all_next = memcg;
	else
		h->all_head = memcg;
	h->all_tail = memcg;
	memcg->on_all = true;
}

void msim__memcg_all_list_del(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h = memcg->h;

	if (!memcg->on_all)
		return;
	if (memcg->all_prev)
		memcg->all_prev->all_next = memcg->all_next;
	else
		h->all_head = memcg->all_next;
	if (memcg->all_next)
		memcg->all_next->all_prev = memcg->all_prev;
	else
		h->all_tail = memcg->all_prev;
	memcg->on_all = false;
}

/* Append memcg to its parent's children (tree lock held). Serial order = list order. */
void msim__memcg_link(struct msim__memcg_host *h, struct msim_memcg *memcg)
{
	struct msim_memcg *parent = memcg->parent;

	memcg->serial = h->next_serial++;
	all_list_add(h, memcg);
	if (!parent)
		return;
	memcg->prev_sibling = parent->last_child;
	__atomic_store_n(&memcg->next_sibling, NULL, __ATOMIC_RELAXED);
	if (parent->last_child)
		__atomic_store_n(&parent->last_child->next_sibling, memcg, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&parent->first_child, memcg, __ATOMIC_RELEASE);
	parent->last_child = memcg;
	__atomic_store_n(&memcg->linked, true, __ATOMIC_RELEASE);
}

/*
 * list_del_rcu (tree lock held): memcg keeps its next_sibling, so a reader
 * standing on it can still move forward; the iterator prefers the serial order
 * for unlinked nodes anyway (css_next_child()).
 */
void msim__memcg_unlink(struct msim_memcg *memcg)
{
	struct msim_memcg *parent = memcg->parent;
	struct msim_memcg *next;

	if (!parent || !memcg->linked)
		return;
	next = __atomic_load_n(&memcg->next_sibling, __ATOMIC_RELAXED);
	if (memcg->prev_sibling)
		__atomic_store_n(&memcg->prev_sibling->next_sibling, next, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&parent->first_child, next, __ATOMIC_RELEASE);
	if (next)
		next->prev_sibling = memcg->prev_sibling;
	else
		parent->last_child = memcg->prev_sibling;
	__atomic_store_n(&memcg->linked, false, __ATOMIC_RELEASE);
}
