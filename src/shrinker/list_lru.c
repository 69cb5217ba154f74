/* SPDX-License-Identifier: MIT */
/*
 * list_lru.c - the memcg-aware list_lru (kernel: mm/list_lru.c; docs/shrinker.md),
 * and the subsystem "list_lru": the host's list of memcg-aware lrus
 * (memcg_list_lrus, list_lrus_mutex) and the offline hook that reparents their
 * per-memcg lists. It needs the shrinker subsystem (the first item of a memcg's
 * list sets a shrinker bit); msim_create() attaches both when the configuration
 * sets shrinker, msim_shrinker_init() by hand (attach.c).
 *
 * Simplifications (docs/shrinker.md):
 *  - the list_lru_memcg is a host allocation bigger than the kernel's (our lock
 *    is larger than a spinlock); the kernel-memory model is charged the kernel's
 *    kmalloc_class(16 + 32 * nr_nodes) through a separate charge token;
 *  - no irq variants; list_lru_one locks are the model's locks (yield points).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/shrinker_internal.h"

#define LRU_LIVE 0x4c52554cU
#define LRU_DEAD 0x0dead1e5U

/* struct list_lru_memcg */
struct msim__mlru {
	struct msim_rcu_head rcu;
	struct msim *host;
	void *charge;
	unsigned int nr_nodes;
	struct msim_list_lru_one node[];
};

struct msim__lru_host {
	struct msim *m;
	struct msim_lock mutex;         /* list_lrus_mutex */
	struct msim_list_lru head;      /* memcg_list_lrus (only lnext/lprev used) */
};

/* ---- list_head ---- */

static void list_add_tail(struct msim_list_head *n, struct msim_list_head *head)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

static void list_del_init(struct msim_list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	msim_init_list_head(n);
}

static void list_splice_init(struct msim_list_head *src, struct msim_list_head *dst)
{
	if (msim_list_empty(src))
		return;
	src->next->prev = dst;
	src->prev->next = dst->next;
	dst->next->prev = src->prev;
	dst->next = src->next;
	msim_init_list_head(src);
}

static void init_one_lru(struct msim_list_lru_one *l)
{
	msim_init_list_head(&l->list);
	l->nr_items = 0;
	msim_spin_lock_init(&l->lock, "list_lru_one");
}

static bool lru_ok(struct msim_list_lru *lru, unsigned int nid)
{
	if (!lru || lru->magic != LRU_LIVE) {
		msim__shrinker_misuse("list_lru used before init or after destroy");
		return false;
	}
	if (nid >= lru->nr_nodes) {
		msim__shrinker_misuse("list_lru node id out of range");
		return false;
	}
	return true;
}

/* ---- host state and the offline hook ---- */

static const struct msim_subsys list_lru_subsys; /* below, with its callbacks */

/* The host's list_lru state, or NULL (no list_lru subsystem): a plain load. */
static struct msim__lru_host *lru_host(struct msim *m)
{
	return m ? msim_subsys_state(m, &list_lru_subsys) : NULL;
}

static void mlru_free_rcu(struct msim_rcu_head *head)
{
	struct msim__mlru *mlru = msim_container_of(head, struct msim__mlru, rcu);
	unsigned int nid;

	/* DPOR (rcu.h): the free stores over mlru (the charge: kmem notes it) */
	msim_rcu_callback_noted();
	msim_access_note(mlru, sizeof(*mlru) + mlru->nr_nodes * sizeof(mlru->node[0]),
			 MSIM_ACCESS_STORE);
	for (nid = 0; nid < mlru->nr_nodes; nid++)
		msim_lock_destroy(&mlru->node[nid].lock);
	msim_kfree(mlru->host, mlru->charge);
	free(mlru);
}

/* kernel: mm/list_lru.c list_lru_from_memcg_idx() */
static struct msim_list_lru_one *lru_from_memcg(struct msim_list_lru *lru, unsigned int nid,
						struct msim_memcg *memcg)
{
	int idx = memcg ? msim_memcg_kmemcg_id(memcg) : -1;
	struct msim__mlru *mlru;

	if (lru->memcg_aware && idx >= 0) {
		mlru = msim_xa_load(&lru->xa, (unsigned long)idx);
		return mlru ? &mlru->node[nid] : NULL;
	}
	return &lru->node[nid].lru;
}

/* kernel: mm/list_lru.c memcg_reparent_list_lru_one() */
static void reparent_one(struct msim_list_lru *lru, unsigned int nid,
			 struct msim_list_lru_one *src, struct msim_memcg *parent)
{
	struct msim_list_lru_one *dst;
	long n;

	msim_spin_lock(&src->lock);
	msim_rcu_read_lock();
	dst = lru_from_memcg(lru, nid, parent);
	while (!dst) { /* an ancestor without lists: the model never makes one */
		parent = msim_parent_mem_cgroup(parent);
		dst = lru_from_memcg(lru, nid, parent);
	}
	msim_rcu_read_unlock();
	/* Two list_lru_one locks at once: the kernel's spin_lock_nested() (lockdep.h). */
	msim_spin_lock_nested(&dst->lock, MSIM_SINGLE_DEPTH_NESTING);
	list_splice_init(&src->list, &dst->list);
	n = msim_read_once(&src->nr_items);
	if (n) {
		msim_write_once(&dst->nr_items, msim_read_once(&dst->nr_items) + n);
		msim_set_shrinker_bit(parent, nid, lru->shrinker_id);
	}
	msim_write_once(&src->nr_items, MSIM_LIST_LRU_DEAD); /* dead before erased */
	msim_spin_unlock(&dst->lock);
	msim_spin_unlock(&src->lock);
}

/* kernel: mm/list_lru.c memcg_reparent_list_lrus() (offline step 4) */
static void lru_css_offline(struct msim_memcg *memcg, void *priv)
{
	struct msim__lru_host *lh = priv;
	struct msim_memcg *parent = msim_parent_mem_cgroup(memcg);
	int idx = msim_memcg_kmemcg_id(memcg);
	struct msim_list_lru *lru;
	struct msim__mlru *mlru;
	unsigned int nid;

	if (idx < 0 || !parent)
		return;
	msim_mutex_lock(&lh->mutex);
	for (lru = lh->head.lnext; lru != &lh->head; lru = lru->lnext) {
		msim_rcu_read_lock(); /* erases are ours (mutex held): mlru stays */
		mlru = msim_xa_load(&lru->xa, (unsigned long)idx);
		msim_rcu_read_unlock();
		if (!mlru)
			continue;
		for (nid = 0; nid < lru->nr_nodes; nid++)
			reparent_one(lru, nid, &mlru->node[nid], parent);
		msim_yield_access("list_lru.reparent.before_erase", NULL, MSIM_ACCESS_NONE); /* xa_lock */
		msim_xa_erase(&lru->xa, (unsigned long)idx);
		msim_call_rcu(&mlru->rcu, mlru_free_rcu);
	}
	msim_mutex_unlock(&lh->mutex);
}

/* ---- the subsystem ---- */

static const struct msim_memcg_hooks lru_hooks = {
	.name = "list_lru",
	.css_offline = lru_css_offline,
};

static const struct msim_memcg_hooks *const lru_hook_sets[] = { &lru_hooks, NULL };

static bool list_lru_enabled(const struct msim_config *cfg)
{
	return cfg->shrinker;
}

/* state: zeroed, sizeof(struct msim__lru_host); the hook set gets it as priv. */
static int list_lru_host_init(struct msim *m, void *state)
{
	struct msim__lru_host *lh = state;
	struct msim_memcg_hooks hooks = lru_hooks;
	int r;

	lh->m = m;
	msim_lock_init(&lh->mutex, "list_lrus_mutex");
	lh->head.lnext = lh->head.lprev = &lh->head;
	hooks.priv = lh;
	r = msim_memcg_register_hooks(m, &hooks);
	if (r < 0) {
		msim_lock_destroy(&lh->mutex);
		return r;
	}
	return 0;
}

/* Offline hooks never run at teardown: the hook set has nothing left to do. */
static void list_lru_host_fini(struct msim *m, void *state)
{
	struct msim__lru_host *lh = state;

	(void)m;
	msim_lock_destroy(&lh->mutex);
}

static const char *const list_lru_deps[] = { "memcg", "shrinker", NULL };

static unsigned int list_lru_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys list_lru_subsys = {
	.name = "list_lru",
	.depends = list_lru_deps,
	.enabled = list_lru_enabled,
	.state_size = sizeof(struct msim__lru_host),
	.host_init = list_lru_host_init,
	.host_fini = list_lru_host_fini,
	.memcg_hooks = lru_hook_sets,
	.id = &list_lru_subsys_id,
};

/*
 * The list_lru entry points reach list_lru_subsys (lru_host), so a program
 * that calls any of them links this file and this registration with it.
 */
__attribute__((constructor)) static void list_lru_register(void)
{
	msim_subsys_register(&list_lru_subsys);
}

/* ---- init / destroy ---- */

/* kernel: mm/list_lru.c __list_lru_init() */
int msim_list_lru_init(struct msim *m, struct msim_list_lru *lru, bool memcg_aware,
		       struct msim_shrinker *shrinker)
{
	struct msim__lru_host *lh;
	unsigned int nid;

	if (!m || !lru)
		return -EINVAL;
	if (lru->magic == LRU_LIVE) {
		msim__shrinker_misuse("list_lru initialised twice");
		return -EBUSY;
	}
	lh = lru_host(m);
	if (!lh)
		return -EINVAL; /* no list_lru subsystem on m (nothing attaches it here) */
	memset(lru, 0, sizeof(*lru));
	lru->host = m;
	lru->nr_nodes = msim_nr_nodes(m);
	lru->shrinker_id = shrinker && (shrinker->flags & MSIM_SHRINKER_MEMCG_AWARE) ?
				   shrinker->id : -1;
	lru->memcg_aware = memcg_aware;
	lru->node = calloc(lru->nr_nodes, sizeof(*lru->node));
	/* kcalloc(nr_node_ids, sizeof(struct list_lru_node)): cacheline-aligned, 64 B */
	lru->node_charge = msim_kmalloc(m, 64 * lru->nr_nodes, "list_lru_node");
	if (!lru->node || !lru->node_charge) {
		free(lru->node);
		msim_kfree(m, lru->node_charge);
		return -ENOMEM;
	}
	for (nid = 0; nid < lru->nr_nodes; nid++)
		init_one_lru(&lru->node[nid].lru);
	msim_xa_init(m, &lru->xa, "list_lru_xa");
	lru->magic = LRU_LIVE;
	if (memcg_aware) {
		msim_mutex_lock(&lh->mutex);
		lru->lnext = &lh->head;
		lru->lprev = lh->head.lprev;
		lh->head.lprev->lnext = lru;
		lh->head.lprev = lru;
		msim_mutex_unlock(&lh->mutex);
	}
	return 0;
}

/* kernel: mm/list_lru.c list_lru_destroy() */
void msim_list_lru_destroy(struct msim_list_lru *lru)
{
	struct msim__lru_host *lh;
	struct msim__mlru *mlru;
	unsigned long idx;
	unsigned int nid;

	if (!lru || lru->magic != LRU_LIVE)
		return;
	lh = lru_host(lru->host);
	if (lru->memcg_aware && lh) {
		msim_mutex_lock(&lh->mutex);
		lru->lprev->lnext = lru->lnext;
		lru->lnext->lprev = lru->lprev;
		msim_mutex_unlock(&lh->mutex);
	}
	msim_xa_for_each(&lru->xa, idx, mlru) {
		for (nid = 0; nid < mlru->nr_nodes; nid++)
			msim_lock_destroy(&mlru->node[nid].lock);
		msim_kfree(lru->host, mlru->charge);
		free(mlru);
	}
	msim_xa_fini(&lru->xa);
	for (nid = 0; nid < lru->nr_nodes; nid++)
		msim_lock_destroy(&lru->node[nid].lru.lock);
	free(lru->node);
	lru->node = NULL;
	msim_kfree(lru->host, lru->node_charge);
	lru->node_charge = NULL;
	lru->shrinker_id = -1;
	lru->magic = LRU_DEAD;
}

/* ---- per-memcg lists ---- */

size_t msim_list_lru_memcg_bytes(unsigned int nr_nodes)
{
	return msim_kmalloc_size(16 + 32 * (size_t)nr_nodes);
}

static struct msim__mlru *mlru_alloc(struct msim_list_lru *lru)
{
	struct msim__mlru *mlru;
	unsigned int nid;

	mlru = calloc(1, sizeof(*mlru) + lru->nr_nodes * sizeof(mlru->node[0]));
	if (!mlru)
		return NULL;
	/* GFP_RECLAIM_MASK strips __GFP_ACCOUNT: plain kmalloc, not memcg-charged. */
	mlru->charge = msim_kmalloc(lru->host, 16 + 32 * (size_t)lru->nr_nodes,
				    "list_lru_memcg");
	mlru->nr_nodes = lru->nr_nodes;
	mlru->host = lru->host;
	for (nid = 0; nid < lru->nr_nodes; nid++)
		init_one_lru(&mlru->node[nid]);
	return mlru;
}

static void mlru_free_now(struct msim_list_lru *lru, struct msim__mlru *mlru)
{
	unsigned int nid;

	for (nid = 0; nid < mlru->nr_nodes; nid++)
		msim_lock_destroy(&mlru->node[nid].lock);
	msim_kfree(lru->host, mlru->charge);
	free(mlru);
}

/* kernel: mm/list_lru.c memcg_list_lru_allocated() */
bool msim_memcg_list_lru_allocated(struct msim_memcg *memcg, struct msim_list_lru *lru)
{
	int idx = memcg ? msim_memcg_kmemcg_id(memcg) : -1;
	bool r;

	if (idx < 0)
		return true;
	msim_rcu_read_lock();
	r = msim_xa_load(&lru->xa, (unsigned long)idx) != NULL;
	msim_rcu_read_unlock();
	return r;
}

/*
 * kernel: mm/list_lru.c memcg_list_lru_alloc() / __memcg_list_lru_alloc():
 * ancestors first (the farthest one missing lists), each stored only if its slot
 * is still empty and it is not dying (S6). thread 001: the shrinker unit of every
 * node is installed before the lists are published, so the first add finds it.
 */
int msim_memcg_list_lru_alloc(struct msim_memcg *memcg, struct msim_list_lru *lru)
{
	struct msim_memcg *pos, *parent;
	struct msim__mlru *mlru = NULL;
	unsigned int nid;
	int r = 0;

	if (!lru_ok(lru, 0))
		return -EINVAL;
	if (!lru->memcg_aware || !memcg || msim_memcg_list_lru_allocated(memcg, lru))
		return 0;
	do {
		pos = memcg;
		parent = msim_parent_mem_cgroup(pos);
		while (parent && !msim_memcg_list_lru_allocated(parent, lru)) {
			pos = parent;
			parent = msim_parent_mem_cgroup(pos);
		}
		for (nid = 0; nid < lru->nr_nodes && !r; nid++)
			r = msim_shrinker_unit_install(pos, nid, lru->shrinker_id);
		if (r)
			break;
		if (!mlru)
			mlru = mlru_alloc(lru);
		if (!mlru)
			return -ENOMEM;
		/* S6: offline may start here; the step takes xa_lock first */
		msim_yield_access("list_lru.alloc.before_store", NULL, MSIM_ACCESS_NONE);
		/* xas_lock; store only into an empty slot (xas_load) of a live memcg */
		msim_xa_lock(&lru->xa);
		if (!msim_css_is_dying(pos) &&
		    msim_xa_insert_locked(&lru->xa, (unsigned long)msim_memcg_kmemcg_id(pos),
					  mlru) == 0)
			mlru = NULL;
		msim_xa_unlock(&lru->xa);
	} while (pos != memcg && !msim_css_is_dying(pos));
	if (mlru)
		mlru_free_now(lru, mlru);
	return r;
}

/*
 * kernel: mm/list_lru.c lock_list_lru_of_memcg(): the memcg's list, locked and not
 * dead; else, unless skip_empty, the nearest ancestor's (the caller's memcg is
 * updated: the shrinker bit follows the list actually used, S5).
 */
static struct msim_list_lru_one *lock_list_lru_of_memcg(struct msim_list_lru *lru,
							unsigned int nid,
							struct msim_memcg **memcg,
							bool skip_empty)
{
	struct msim_list_lru_one *l;

	msim_rcu_read_lock();
	for (;;) {
		l = lru_from_memcg(lru, nid, *memcg);
		if (l) {
			msim_spin_lock(&l->lock);
			if (msim_read_once(&l->nr_items) != MSIM_LIST_LRU_DEAD) {
				msim_rcu_read_unlock();
				return l;
			}
			msim_spin_unlock(&l->lock);
		}
		if (skip_empty) {
			msim_rcu_read_unlock();
			return NULL;
		}
		if (!msim_css_is_dying(*memcg))
			msim__shrinker_misuse("list_lru add/del on a live memcg without lists");
		*memcg = msim_parent_mem_cgroup(*memcg);
	}
}

/* kernel: mm/list_lru.c list_lru_add() / __list_lru_add() */
bool msim_list_lru_add(struct msim_list_lru *lru, struct msim_list_head *item,
		       unsigned int nid, struct msim_memcg *memcg)
{
	struct msim_list_lru_one *l;
	long n;

	if (!lru_ok(lru, nid) || !item)
		return false;
	l = lock_list_lru_of_memcg(lru, nid, &memcg, false);
	if (!msim_list_empty(item)) {
		msim_spin_unlock(&l->lock);
		return false;
	}
	list_add_tail(item, &l->list);
	n = msim_read_once(&l->nr_items);
	msim_write_once(&l->nr_items, n + 1);
	if (n == 0) { /* 0 -> 1 only: the memcg that owns the locked list */
		msim_yield_access("list_lru_add.before_set_bit", NULL, MSIM_ACCESS_NONE); /* then RCU, set_bit */
		msim_set_shrinker_bit(memcg, nid, lru->shrinker_id);
	}
	msim_spin_unlock(&l->lock);
	msim_atomic_long_add(&lru->node[nid].nr_items, 1);
	return true;
}

/* kernel: mm/list_lru.c list_lru_del(): no bit clearing. */
bool msim_list_lru_del(struct msim_list_lru *lru, struct msim_list_head *item,
		       unsigned int nid, struct msim_memcg *memcg)
{
	struct msim_list_lru_one *l;

	if (!lru_ok(lru, nid) || !item)
		return false;
	l = lock_list_lru_of_memcg(lru, nid, &memcg, false);
	if (msim_list_empty(item)) {
		msim_spin_unlock(&l->lock);
		return false;
	}
	list_del_init(item);
	msim_write_once(&l->nr_items, msim_read_once(&l->nr_items) - 1);
	msim_spin_unlock(&l->lock);
	msim_atomic_long_add(&lru->node[nid].nr_items, -1);
	return true;
}

/* kernel: mm/list_lru.c list_lru_isolate() */
void msim_list_lru_isolate(struct msim_list_lru_one *list, struct msim_list_head *item)
{
	list_del_init(item);
	msim_write_once(&list->nr_items, msim_read_once(&list->nr_items) - 1);
}

/* kernel: mm/list_lru.c list_lru_isolate_move() */
void msim_list_lru_isolate_move(struct msim_list_lru_one *list, struct msim_list_head *item,
				struct msim_list_head *head)
{
	list_del_init(item);
	list_add_tail(item, head);
	msim_write_once(&list->nr_items, msim_read_once(&list->nr_items) - 1);
}

/* ---- count and walk ---- */

/* kernel: mm/list_lru.c list_lru_count_one() */
unsigned long msim_list_lru_count_one(struct msim_list_lru *lru, unsigned int nid,
				      struct msim_memcg *memcg)
{
	struct msim_list_lru_one *l;
	long count = 0;

	if (!lru_ok(lru, nid))
		return 0;
	msim_rcu_read_lock();
	l = lru_from_memcg(lru, nid, memcg);
	if (l)
		count = msim_read_once(&l->nr_items);
	msim_rcu_read_unlock();
	return count > 0 ? (unsigned long)count : 0;
}

/* kernel: include/linux/list_lru.h list_lru_count_node() */
unsigned long msim_list_lru_count_node(struct msim_list_lru *lru, unsigned int nid)
{
	long n;

	if (!lru_ok(lru, nid))
		return 0;
	n = msim_atomic_long_read(&lru->node[nid].nr_items);
	return n > 0 ? (unsigned long)n : 0;
}

/* kernel: include/linux/list_lru.h list_lru_shrink_count() */
unsigned long msim_list_lru_shrink_count(struct msim_list_lru *lru,
					 struct msim_shrink_control *sc)
{
	return msim_list_lru_count_one(lru, sc->nid, sc->memcg);
}

long msim_list_lru_nr_items_raw(struct msim_list_lru *lru, unsigned int nid,
				struct msim_memcg *memcg, bool *exists)
{
	struct msim_list_lru_one *l;
	long n = 0;

	if (!lru_ok(lru, nid))
		return 0;
	msim_rcu_read_lock();
	l = lru_from_memcg(lru, nid, memcg);
	if (l)
		n = msim_read_once(&l->nr_items);
	msim_rcu_read_unlock();
	if (exists)
		*exists = l != NULL;
	return n;
}

/* kernel: mm/list_lru.c __list_lru_walk_one() */
unsigned long msim_list_lru_walk_one(struct msim_list_lru *lru, unsigned int nid,
				     struct msim_memcg *memcg, msim_list_lru_walk_cb isolate,
				     void *cb_arg, unsigned long *nr_to_walk)
{
	struct msim_list_lru_one *l;
	struct msim_list_head *item, *n;
	unsigned long isolated = 0;

	if (!lru_ok(lru, nid) || !isolate || !nr_to_walk)
		return 0;
restart:
	l = lock_list_lru_of_memcg(lru, nid, &memcg, true);
	if (!l)
		return isolated;
	for (item = l->list.next, n = item->next; item != &l->list; item = n, n = item->next) {
		if (!*nr_to_walk)
			break;
		--*nr_to_walk;
		switch (isolate(item, l, cb_arg)) {
		case MSIM_LRU_REMOVED_RETRY: /* the callback dropped the lock */
			isolated++;
			msim_atomic_long_add(&lru->node[nid].nr_items, -1);
			goto restart;
		case MSIM_LRU_REMOVED:
			isolated++;
			msim_atomic_long_add(&lru->node[nid].nr_items, -1);
			break;
		case MSIM_LRU_ROTATE:
			list_del_init(item);
			list_add_tail(item, &l->list);
			break;
		case MSIM_LRU_SKIP:
			break;
		case MSIM_LRU_RETRY:
			goto restart;
		case MSIM_LRU_STOP:
			return isolated;
		}
	}
	msim_spin_unlock(&l->lock);
	return isolated;
}

/* kernel: include/linux/list_lru.h list_lru_shrink_walk() */
unsigned long msim_list_lru_shrink_walk(struct msim_list_lru *lru,
					struct msim_shrink_control *sc,
					msim_list_lru_walk_cb isolate, void *cb_arg)
{
	return msim_list_lru_walk_one(lru, sc->nid, sc->memcg, isolate, cb_arg, &sc->nr_to_scan);
}

/* kernel: mm/list_lru.c list_lru_walk_node() */
unsigned long msim_list_lru_walk_node(struct msim_list_lru *lru, unsigned int nid,
				      msim_list_lru_walk_cb isolate, void *cb_arg,
				      unsigned long *nr_to_walk)
{
	struct msim_memcg *memcg;
	unsigned long isolated, idx;
	void *mlru;

	if (!lru_ok(lru, nid))
		return 0;
	isolated = msim_list_lru_walk_one(lru, nid, NULL, isolate, cb_arg, nr_to_walk);
	if (!lru->memcg_aware)
		return isolated;
	for (idx = 0; *nr_to_walk; idx++) {
		msim_rcu_read_lock();
		mlru = msim_xa_find(&lru->xa, &idx, ~0UL, MSIM_XA_PRESENT);
		memcg = mlru ? msim_mem_cgroup_from_private_id(lru->host, (unsigned short)idx)
			     : NULL;
		if (memcg && !msim_css_tryget(memcg))
			memcg = NULL;
		msim_rcu_read_unlock();
		if (!mlru)
			break;
		if (!memcg)
			continue;
		isolated += msim_list_lru_walk_one(lru, nid, memcg, isolate, cb_arg, nr_to_walk);
		msim_css_put(memcg);
	}
	return isolated;
}

/* ---- invariant check ---- */

unsigned long msim_list_lru_check_bits(struct msim *m, char *why, size_t len)
{
	struct msim__lru_host *lh = lru_host(m);
	struct msim_list_lru *lru;
	struct msim_memcg *memcg;
	struct msim__mlru *mlru;
	unsigned long idx, bad = 0;
	unsigned int nid;
	long n;

	if (why && len)
		why[0] = '\0';
	if (!lh)
		return 0;
	msim_mutex_lock(&lh->mutex);
	msim_rcu_read_lock();
	for (lru = lh->head.lnext; lru != &lh->head; lru = lru->lnext) {
		if (lru->shrinker_id < 0)
			continue;
		msim_xa_for_each(&lru->xa, idx, mlru) {
			memcg = msim_mem_cgroup_from_private_id(m, (unsigned short)idx);
			if (!memcg || !msim_mem_cgroup_online(memcg))
				continue;
			for (nid = 0; nid < mlru->nr_nodes; nid++) {
				n = msim_quiet_load(&mlru->node[nid].nr_items, MSIM_RELAXED);
				if (n <= 0 || msim_shrinker_test_bit(memcg, nid, lru->shrinker_id))
					continue;
				if (!bad++ && why)
					snprintf(why, len,
						 "memcg %s node %u: %ld items on the list of shrinker "
						 "%d, bit clear%s",
						 msim_memcg_name(memcg), nid, n, lru->shrinker_id,
						 msim_shrinker_has_unit(memcg, nid, lru->shrinker_id) ?
							 "" : " (no unit)");
			}
		}
	}
	msim_rcu_read_unlock();
	msim_mutex_unlock(&lh->mutex);
	return bad;
}
