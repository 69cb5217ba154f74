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

/*
 * State change, with the host's per-state counts for memcgs whose mkdir completed.
 * No yield at the store: rmdir changes the state under the tree lock, where no
 * yield may be, and races on it (S4, S6) turn at the named points around it
 * (memcg.rmdir.dying, memcg.rmdir.put_online_ref, and the readers' own, such as
 * list_lru.alloc.before_store).
 */
void msim__memcg_set_state(struct msim_memcg *memcg, enum msim_memcg_state s)
{
	struct msim__memcg_host *h = memcg->h;
	int old;

	msim_access_note(&memcg->state, sizeof(memcg->state), MSIM_ACCESS_RMW); /* DPOR */
	old = msim_quiet_xchg(&memcg->state, (int)s, MSIM_ACQ_REL);

	if (!msim_quiet_load(&memcg->counted, MSIM_RELAXED))
		return;
	if (old != MSIM_MEMCG_ALLOCATED)
		msim_quiet_fetch_sub(&h->nr_state[old], 1, MSIM_RELAXED);
	msim_quiet_fetch_add(&h->nr_state[s], 1, MSIM_RELAXED);
}

/* ---- allocation (kernel: mem_cgroup_alloc / __mem_cgroup_free) ---- */


/* memcg-layout=linux-6.12: struct mem_cgroup and mem_cgroup_per_node from kmalloc. */
static bool layout_612(const struct msim__memcg_host *h)
{
	return h->layout_6_12;
}

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
	/* The online (base) reference; the root's css is CSS_NO_REF (css.c). */
	if (!memcg->kmem_pn || (name && !memcg->name) ||
	    msim__pcpu_ref_init(&memcg->css_ref, h->m, parent == NULL)) {
		msim__pcpu_ref_exit(&memcg->css_ref);
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
	memcg->css_release = release;
	memcg->state = MSIM_MEMCG_ALLOCATED;
	if (layout_612(h)) {             /* kzalloc in 6.12 (memcg_internal.h) */
		memcg->kmem_memcg = msim_kmalloc(h->m, MSIM__MEM_CGROUP_612_BYTES, "mem_cgroup");
		for (nid = 0; nid < nr_nodes; nid++)
			memcg->kmem_pn[nid] = msim_kmalloc(h->m, MSIM__MEM_CGROUP_PER_NODE_612_BYTES,
							   "mem_cgroup_per_node");
	} else {
		memcg->kmem_memcg = msim_kmem_cache_alloc(h->m, h->memcg_cache, "mem_cgroup");
		for (nid = 0; nid < nr_nodes; nid++)
			memcg->kmem_pn[nid] = msim_kmem_cache_alloc(h->m, h->pn_cache,
								    "mem_cgroup_per_node");
	}
	/* css_init(): percpu_ref_init() of the css refcnt allocates its percpu_ref_data. */
	memcg->kmem_css_ref = msim_kmalloc(h->m, MSIM__PERCPU_REF_DATA_BYTES, "mem_cgroup");
	/* The root cgroup is static data with files made at boot: only mkdir pays. */
	if (parent)
		msim__cgroup_kmem_alloc(h, &memcg->cgroup_kmem, name);
	return memcg;
}

/* Give the kernel memory back and free (or quarantine) the struct. */
void msim__memcg_free_struct(struct msim_memcg *memcg, bool quarantine)
{
	struct msim__memcg_host *h = memcg->h;
	unsigned int nid, nr_nodes = msim_nr_nodes(h->m);

	/* DPOR (yield.h): freed or poisoned, the struct is stored over */
	msim_access_note(memcg, sizeof(*memcg), MSIM_ACCESS_STORE);
	if (quarantine && MSIM__MEMCG_QUARANTINE)
		msim_access_note(&h->quarantine, sizeof(h->quarantine), MSIM_ACCESS_RMW);
	for (nid = 0; nid < nr_nodes; nid++)
		if (memcg->kmem_pn[nid] && layout_612(h))
			msim_kfree(h->m, memcg->kmem_pn[nid]);
		else if (memcg->kmem_pn[nid])
			msim_kmem_cache_free(h->m, h->pn_cache, memcg->kmem_pn[nid]);
	if (memcg->kmem_memcg && layout_612(h))
		msim_kfree(h->m, memcg->kmem_memcg);
	else if (memcg->kmem_memcg)
		msim_kmem_cache_free(h->m, h->memcg_cache, memcg->kmem_memcg);
	if (memcg->kmem_css_ref)
		msim_kfree(h->m, memcg->kmem_css_ref);
	memcg->kmem_css_ref = NULL;
	msim__cgroup_kmem_free(h, &memcg->cgroup_kmem);
	free(memcg->kmem_pn);
	free(memcg->name);
	msim__pcpu_ref_exit(&memcg->css_ref);
	memcg->kmem_pn = NULL;
	memcg->name = NULL;
	if (!quarantine || !MSIM__MEMCG_QUARANTINE) {
		free(memcg);
		return;
	}
	/* Poison: every later check of this handle fails. */
	memset(memcg->slots, 0x6b, sizeof(memcg->slots));
	msim_quiet_store(&memcg->magic, MSIM__MEMCG_POISON, MSIM_RELEASE);
	memcg->quarantine_next = msim_quiet_load(&h->quarantine, MSIM_RELAXED);
	while (!msim_quiet_try_cmpxchg_weak(&h->quarantine, &memcg->quarantine_next, memcg,
					    MSIM_RELEASE, MSIM_RELAXED))
		;
}

bool msim__memcg_check(const struct msim_memcg *memcg)
{
	return memcg && msim_quiet_load(&memcg->magic, MSIM_ACQUIRE) == MSIM__MEMCG_MAGIC;
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
	/* DPOR: the neighbours' links (memcg's own: its free notes the struct) */
	msim_access_note(memcg->all_prev ? &memcg->all_prev->all_next : &h->all_head,
			 sizeof(h->all_head), MSIM_ACCESS_STORE);
	msim_access_note(memcg->all_next ? &memcg->all_next->all_prev : &h->all_tail,
			 sizeof(h->all_tail), MSIM_ACCESS_STORE);
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

/*
 * Append memcg to its parent's children (tree lock held). Serial order = list
 * order. The stores are list_add_tail_rcu()'s and need no yield point: no yield
 * may sit under the tree lock, and an iterator racing with mkdir turns at
 * memcg.mkdir.link, before the lock.
 */
void msim__memcg_link(struct msim__memcg_host *h, struct msim_memcg *memcg)
{
	struct msim_memcg *parent = memcg->parent;

	memcg->serial = h->next_serial++;
	all_list_add(h, memcg);
	if (!parent)
		return;
	memcg->prev_sibling = parent->last_child;
	msim_quiet_store(&memcg->next_sibling, NULL, MSIM_RELAXED);
	if (parent->last_child)
		msim_quiet_store(&parent->last_child->next_sibling, memcg, MSIM_RELEASE);
	else
		msim_quiet_store(&parent->first_child, memcg, MSIM_RELEASE);
	parent->last_child = memcg;
	msim_quiet_store(&memcg->linked, true, MSIM_RELEASE);
}

/*
 * list_del_rcu (tree lock held): memcg keeps its next_sibling, so a reader
 * standing on it can still move forward; the iterator prefers the serial order
 * for unlinked nodes anyway (css_next_child()). No yield point, as in
 * msim__memcg_link(): the release work that unlinks runs no yield under the lock.
 */
/* DPOR (yield.h): the stores of an unlink, for iterators that load the links. */
static void note_unlink(struct msim_memcg *memcg, struct msim_memcg *parent)
{
	struct msim_memcg *prev = memcg->prev_sibling, *next = memcg->next_sibling;

	msim_access_note(prev ? &prev->next_sibling : &parent->first_child,
			 sizeof(memcg->next_sibling), MSIM_ACCESS_STORE);
	msim_access_note(next ? &next->prev_sibling : &parent->last_child,
			 sizeof(memcg->prev_sibling), MSIM_ACCESS_STORE);
	msim_access_note(&memcg->linked, sizeof(memcg->linked), MSIM_ACCESS_STORE);
	msim_access_note(&memcg->next_sibling, sizeof(memcg->next_sibling), MSIM_ACCESS_LOAD);
}

void msim__memcg_unlink(struct msim_memcg *memcg)
{
	struct msim_memcg *parent = memcg->parent;
	struct msim_memcg *next;

	if (!parent || !memcg->linked)
		return;
	note_unlink(memcg, parent);
	next = msim_quiet_load(&memcg->next_sibling, MSIM_RELAXED);
	if (memcg->prev_sibling)
		msim_quiet_store(&memcg->prev_sibling->next_sibling, next, MSIM_RELEASE);
	else
		msim_quiet_store(&parent->first_child, next, MSIM_RELEASE);
	if (next)
		next->prev_sibling = memcg->prev_sibling;
	else
		parent->last_child = memcg->prev_sibling;
	msim_quiet_store(&memcg->linked, false, MSIM_RELEASE);
}
