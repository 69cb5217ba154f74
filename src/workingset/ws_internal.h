/* SPDX-License-Identifier: MIT */
/*
 * ws_internal.h - the workingset layer's structures (workingset.h).
 *
 * The layer is one concept behind this header; its files:
 *   shadow.c     pack_shadow / unpack_shadow, bucket_order
 *   nodes.c      shadow nodes: workingset_update_node, count_shadow_nodes,
 *                scan_shadow_nodes / shadow_lru_isolate
 *   refault.c    nonresident age, eviction, test_recent, refault, activation
 *                (classic and MGLRU)
 *   filemap.c    address_space: add (with refault), read, remove (evict callback)
 *   workingset.c the subsystem: attach, memcg hooks, the shrinker; per-host and
 *                per-memcg state, lookups, counters
 */
#ifndef MSIM_WORKINGSET_INTERNAL_H
#define MSIM_WORKINGSET_INTERNAL_H

#include <stdbool.h>

#include <memcgsim/atomic.h>
#include <memcgsim/list.h>
#include <memcgsim/list_lru.h>
#include <memcgsim/lru.h>
#include <memcgsim/objcg.h>
#include <memcgsim/workingset.h>
#include <memcgsim/xarray.h>

/*
 * What the kernel keeps in struct xa_node for the shadow tracker: the
 * private_list on shadow_nodes, and the slab objcg the node was charged to
 * (mem_cgroup_from_slab_obj() reads the memcg through it, so after an offline
 * it names the parent). The model hangs this record on the node
 * (msim_xa_node_private): it stands for fields inside the node's 576 bytes
 * (charged at 592: nodes.c), so it is plain memory, not a kernel-memory charge.
 */
struct msim__ws_node {
	struct msim_list_head private_list;  /* on shadow_nodes: the list_lru lock */
	struct msim_xa_node *node;
	struct msim_address_space *mapping;
	struct msim_obj_cgroup *objcg;       /* reference held; NULL: uncharged */
	long slab_charge;                    /* NR_SLAB_RECLAIMABLE_B charged (nodes.c) */
	bool objcg_charged;                  /* and charged through the obj stock */
	unsigned int nid;
	bool listed;                         /* !list_empty(&private_list): the xa lock */
};

/* kernel: struct address_space, the part the page cache and the shadow tracker use. */
struct msim_address_space {
	struct msim *m;
	struct msim__ws_host *wh;
	struct msim_xarray i_pages;
	struct msim_lock i_lock;             /* kernel: host->i_lock (the isolate trylocks it) */
	/* The charge context of the store in progress (xa lock held): a new node's owner. */
	struct msim_memcg *charge_memcg;
	unsigned int charge_nid;
	unsigned long nrpages, nrshadows;    /* the xa lock */
	unsigned long nrlost;                /* folios erased while resident (demo off side) */
	char name[32];
};

/* A page-cache folio's place: folio->private. */
#define MSIM__WS_PAGE_MAGIC 0x5753504147450001UL
struct msim__ws_page {
	struct msim_address_space *mapping;
	unsigned long index;
	unsigned long magic;                 /* other owners' folios have other privates */
};

/* Per-memcg data (the memcg hook slot): per node, lruvec->nonresident_age. */
struct msim__ws_memcg {
	struct msim_memcg *memcg;
	msim_atomic_long_t nonresident_age[];
};

/* Per-host state. */
struct msim__ws_host {
	struct msim *m;
	int slot;
	unsigned int nr_nodes;
	bool mglru;                          /* lru_gen_enabled() */
	bool mglru_6_12;                     /* variant mglru-protection=6.12 (lru's row) */
	bool kmem_counted;                   /* variant kmem-stat=counted (the obj stock's) */
	bool budget_page_state;              /* variant shadow-budget=page-state-local */
	bool root_flush_skip;                /* variant workingset-root-flush=skip */
	bool isolate_trylock;                /* variant shadow-isolate-trylock=on */
	unsigned int bucket_order;
	long xa_node_charge;                 /* obj_full_size(radix_tree_node): nodes.c */
	struct msim_list_lru shadow_nodes;
	bool shadow_nodes_ready;
	struct msim_shrinker *shrinker;
	long workingset_nodes[MSIM_MAX_NODES];  /* WORKINGSET_NODES (node counter) */
	struct msim_workingset_counts counts;   /* quiet atomics */
};

#define MSIM__WS_COUNT(wh, field, n) msim_quiet_fetch_add(&(wh)->counts.field, (n), MSIM_RELAXED)

/* ---- workingset.c: per-host and per-memcg state, lookups ---- */
/* workingset.c: the host's state, or NULL (the subsystem's lookup). */
struct msim__ws_host *msim__ws_host(const struct msim *m);
/* nonresident_age of (memcg, nid); memcg NULL: the root's. NULL if memcg has no data. */
msim_atomic_long_t *msim__ws_nonresident_age(struct msim__ws_host *wh, struct msim_memcg *memcg,
					     unsigned int nid);
struct msim__ws_memcg *msim__ws_memcg_alloc(struct msim__ws_host *wh, struct msim_memcg *memcg);
/* A page cache folio's record, or NULL for a folio of another owner. */
struct msim__ws_page *msim__ws_page_of(const struct msim_folio *folio);
/* Drop the record (folio->private = NULL). */
void msim__ws_page_free(struct msim_folio *folio);
/* The cache forgot the folio (demo side): its record and the cache's reference go. */
void msim__ws_page_forget(struct msim_folio *folio);

/* ---- nodes.c ---- */
/* kernel: workingset_update_node(), the xarray's update hook (xa lock held). */
void msim__workingset_update_node(struct msim_xarray *xa, struct msim_xa_node *node,
				  unsigned int count, void *arg);
/* Set up shadow_nodes and the "mm-shadow" shrinker / tear them down. */
int msim__ws_shadow_nodes_init(struct msim__ws_host *wh);
void msim__ws_shadow_nodes_fini(struct msim__ws_host *wh);

/* ---- reclaim.c ---- */
/* The charge layer's reclaim callback (msim_reclaim_fn): msim_workingset_reclaim(). */
unsigned long msim__ws_charge_reclaim(struct msim_memcg *memcg, unsigned long nr_pages, void *arg);

/* ---- refault.c ---- */
/* kernel: folio_set_active() in folio_add_lru() under MGLRU when in a fault. */
bool msim__ws_refault(struct msim__ws_host *wh, struct msim_folio *folio, void *shadow,
		      bool in_fault);

#endif /* MSIM_WORKINGSET_INTERNAL_H */
