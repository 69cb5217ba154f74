/* SPDX-License-Identifier: MIT */
/*
 * tree.c - the memcg tree: per-host state, mkdir, rmdir, root, teardown at
 * msim_destroy(). The hook registry is in hooks.c.
 *
 * kernel: kernel/cgroup/cgroup.c (cgroup_mkdir, css_create, online_css,
 * cgroup_rmdir, kill_css, css_killed_work_fn, offline_css) and mm/memcontrol.c
 * (mem_cgroup_css_alloc/online/offline, mem_cgroup_alloc). css references,
 * release and free are in css.c; private ids in id.c; mem_cgroup_iter in iter.c.
 * docs/memcg.md lists every simplification.
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
		msim_idr_fini(&h->ids);
		msim_lock_destroy(&h->root_lock);
		free(h);
		return expected;
	}
	msim_host_on_destroy(m, memcg_host_destroy, h);
	return h;
}

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

static struct msim_memcg *memcg_alloc(struct msim__memcg_host *h, struct msim_memcg *parent,
				      const char *name)
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
static void link_child(struct msim__memcg_host *h, struct msim_memcg *memcg)
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

/* ---- mkdir ---- */

/*
 * A failed css_online: undo what ran (offline for the sets that onlined, then
 * css_alloc_undo), unlink, give the id back, and drop the base reference; an
 * iterator may hold the memcg meanwhile, so the struct goes through the normal
 * release/free path (with no hooks left to run) after a grace period.
 */
static void online_failed(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h = memcg->h;

	msim__memcg_run_offline(memcg);
	msim__raw_lock(&h->lock);
	msim__memcg_unlink(memcg);
	if (memcg->parent)
		memcg->parent->nr_live_children--;
	msim__raw_unlock(&h->lock);
	msim__memcg_run_alloc_undo(memcg);
	msim__memcg_id_unreserve(memcg);
	__atomic_store_n(&memcg->kmemcg_id, -1, __ATOMIC_RELAXED);
	msim_css_put(memcg);
}

/* Reserve a place under parent: it must be online (tree lock orders it with rmdir). */
static int reserve_under_parent(struct msim__memcg_host *h, struct msim_memcg *parent)
{
	int ret = 0;

	if (!parent)
		return 0;
	msim__raw_lock(&h->lock);
	if (msim__memcg_state_load(parent) != MSIM_MEMCG_ONLINE)
		ret = -EINVAL;
	else
		parent->nr_live_children++;
	msim__raw_unlock(&h->lock);
	return ret;
}

static void unreserve_under_parent(struct msim__memcg_host *h, struct msim_memcg *parent)
{
	if (!parent)
		return;
	msim__raw_lock(&h->lock);
	parent->nr_live_children--;
	msim__raw_unlock(&h->lock);
}

/*
 * kernel: cgroup_mkdir() -> css_create(): css_alloc (mem_cgroup_css_alloc:
 * mem_cgroup_alloc reserves the private id with a NULL entry), link into the
 * parent's children, online_css (mem_cgroup_css_online: kmemcg_id first, the
 * subsystems' online work, id.ref = 1 plus css_get, xa_store publishing the id
 * last), then CSS_ONLINE.
 */
static int memcg_create(struct msim__memcg_host *h, struct msim_memcg *parent, const char *name,
			struct msim_memcg **out)
{
	struct msim_memcg *memcg;
	int ret;

	memcg = memcg_alloc(h, parent, name);
	if (!memcg)
		return -ENOMEM;
	ret = reserve_under_parent(h, parent);
	if (ret)
		goto free;
	ret = msim__memcg_id_reserve(memcg);
	if (ret)
		goto unreserve;
	ret = msim__memcg_run_alloc(memcg);
	if (ret)
		goto unreserve_id;
	msim_yield("memcg.mkdir.link");
	if (parent)
		msim_css_get(parent);    /* dropped when memcg is freed */
	msim__raw_lock(&h->lock);
	link_child(h, memcg);
	msim__raw_unlock(&h->lock);
	/* kernel: memcg_online_kmem() comes first in mem_cgroup_css_online(). */
	__atomic_store_n(&memcg->kmemcg_id, parent ? (int)memcg->id : -1, __ATOMIC_RELAXED);
	ret = msim__memcg_run_online(memcg);
	if (ret) {
		online_failed(memcg);
		return ret;
	}
	__atomic_store_n(&memcg->id_ref, 1, __ATOMIC_RELAXED);
	msim_css_get(memcg);         /* the private id pins the css */
	msim__memcg_id_publish(memcg);
	__atomic_store_n(&memcg->counted, true, __ATOMIC_RELAXED);
	msim__memcg_set_state(memcg, MSIM_MEMCG_ONLINE);
	__atomic_fetch_add(&h->created_total, 1, __ATOMIC_RELAXED);
	*out = memcg;
	return 0;

unreserve_id:
	msim__memcg_id_unreserve(memcg);
unreserve:
	unreserve_under_parent(h, parent);
free:
	msim__memcg_free_struct(memcg, false);
	return ret;
}

int msim_memcg_create(struct msim_memcg *parent, const char *name, struct msim_memcg **out)
{
	if (!parent || !out)
		return -EINVAL;
	MSIM__MEMCG_ASSERT(parent);
	msim__drive_host(parent->h->m);
	return memcg_create(parent->h, parent, name, out);
}

struct msim_memcg *msim_root_mem_cgroup(struct msim *m)
{
	struct msim__memcg_host *h = m ? msim__memcg_host_get(m) : NULL;
	struct msim_memcg *root;

	if (!h)
		return NULL;
	msim__drive_host(m);
	root = __atomic_load_n(&h->root, __ATOMIC_ACQUIRE);
	if (root)
		return root;
	msim_lock(&h->root_lock);
	root = h->root;
	if (!root && memcg_create(h, NULL, "/", &root) == 0) {
		msim__raw_lock(&h->lock);
		__atomic_store_n(&h->root, root, __ATOMIC_RELEASE);
		msim__raw_unlock(&h->lock);
	}
	msim_unlock(&h->root_lock);
	return root;
}

/* ---- rmdir ---- */

/*
 * kernel: cgroup_rmdir() -> cgroup_destroy_locked(): -EBUSY with online children,
 * kill_css() sets CSS_DYING and kills the reference; the confirmation comes after
 * an RCU grace period, then css_killed_work_fn() -> offline_css() ->
 * mem_cgroup_css_offline() (subsystems in ascending order, then
 * mem_cgroup_private_id_put(memcg, 1)), CSS_ONLINE cleared, and the online
 * reference put. Simplification: the kernel finishes offline asynchronously on a
 * workqueue; here the rmdir caller waits for the grace period and runs it.
 */
int msim_memcg_rmdir(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h;
	int ret = 0;

	if (!memcg)
		return -EINVAL;
	MSIM__MEMCG_ASSERT(memcg);
	h = memcg->h;
	msim__drive_host(h->m);
	if (!memcg->parent)
		return -EINVAL;
	msim__raw_lock(&h->lock);
	if (msim__memcg_state_load(memcg) != MSIM_MEMCG_ONLINE)
		ret = -EINVAL;
	else if (memcg->nr_live_children)
		ret = -EBUSY;
	else
		msim__memcg_set_state(memcg, MSIM_MEMCG_DYING);
	msim__raw_unlock(&h->lock);
	if (ret)
		return ret;
	msim_yield("memcg.rmdir.dying");
	msim_synchronize_rcu();
	msim__memcg_run_offline(memcg);
	msim_mem_cgroup_private_id_put(memcg);
	msim__raw_lock(&h->lock);
	msim__memcg_set_state(memcg, MSIM_MEMCG_OFFLINE);
	memcg->parent->nr_live_children--;
	msim__raw_unlock(&h->lock);
	msim_yield("memcg.rmdir.put_online_ref");
	msim_css_put(memcg);
	return 0;
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
	msim_idr_fini(&h->ids);
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
