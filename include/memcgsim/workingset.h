/* SPDX-License-Identifier: MIT */
/*
 * workingset.h - the page cache with shadow entries, refault detection and the
 * shadow-node budget (kernel: mm/workingset.c, mm/filemap.c's shadow part;
 * thread 000 patch 1, thread 002 patch 3). docs/workingset.md
 * has the model, the kernel map and every simplification.
 *
 * A file is a struct msim_address_space with its i_pages xarray. Reading an
 * index that holds no folio allocates one, charges it, stores it in i_pages in
 * place of the shadow entry left there at its eviction, evaluates that shadow
 * (msim_workingset_refault: activation when the refault distance is within the
 * workingset, or under MGLRU when the eviction generation is recent), and adds
 * it to the LRU. Reclaim evicts it through the scan_control evict callback
 * msim_filemap_evict (__remove_mapping: the folio is replaced by the shadow
 * msim_workingset_eviction packs), which attaching also registers as the LRU
 * layer's remove_mapping hook (lru.h): a msim_try_to_free_mem_cgroup_pages()
 * with no callback of its own evicts page-cache folios the same way.
 *
 * Shadow nodes: the xarray's update hook puts a node on the memcg-aware
 * list_lru shadow_nodes exactly when every entry in it is a shadow (count ==
 * nr_values) and takes it off otherwise (WORKINGSET_NODES counts them). The
 * shrinker "mm-shadow" (memcg-aware, NUMA-aware, seeks 0) counts them against a
 * budget (count_shadow_nodes, variant shadow-budget) and frees the excess
 * (shadow_lru_isolate: WORKINGSET_NODERECLAIM).
 *
 * Attach: msim_workingset_attach(m) after msim_create() and before the first
 * child memcg; it brings the lru, objcg, shrinker and list_lru layers with it.
 * No configuration switch enables it, so a host without it behaves as before.
 *
 * Named yield points (a task parked at one has not yet done the operation):
 *   "workingset.nonresident_age.read"  the eviction clock read at eviction or refault
 *   "workingset.test_recent.lookup"    the eviction memcg looked up by private id
 *   "workingset.shadow.isolate"        shadow_lru_isolate, list lock held, before the xa trylock
 *   "workingset.shadow.delete"         the node taken off the list, list lock dropped,
 *                                      before the node is freed (demo side: before the xa lock)
 *   "workingset.shadow.retry"          a trylock failed: list lock dropped, before the wait
 *   "workingset.count.read"            count_shadow_nodes, before its lru-page read
 * The xa lock, the list_lru lock, RCU and the stat writes add their own points.
 */
#ifndef MEMCGSIM_WORKINGSET_H
#define MEMCGSIM_WORKINGSET_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/folio.h>
#include <memcgsim/list_lru.h>
#include <memcgsim/lru.h>
#include <memcgsim/shrinker.h>
#include <memcgsim/subsys.h>
#include <memcgsim/xarray.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/* thread 000 patch 1: the lru pages count_shadow_nodes() budgets shadow nodes by. */
enum msim_shadow_budget {
	MSIM_SHADOW_BUDGET_LRU_SIZE = 0,   /* mainline (7404bd37cfbe): lruvec_lru_size() */
	MSIM_SHADOW_BUDGET_PAGE_STATE_LOCAL = 1, /* patch 1: lruvec_page_state_local() */
};

/* thread 002 patch 3: workingset_test_recent()'s stats flush for the root memcg. */
enum msim_workingset_root_flush {
	MSIM_WORKINGSET_ROOT_FLUSH = 0,    /* mainline: flush whatever the eviction memcg */
	MSIM_WORKINGSET_ROOT_SKIP = 1,     /* patch 3: no flush when it is the root */
};

/* ---- shadow entries (kernel: pack_shadow / unpack_shadow) ---- */

#define MSIM_BITS_PER_XA_VALUE 63       /* BITS_PER_LONG - 1 */
#define MSIM_WORKINGSET_SHIFT 1
#define MSIM_MEM_CGROUP_ID_SHIFT 16
#define MSIM_NODES_SHIFT 6              /* MSIM_MAX_NODES = 64 */
#define MSIM_EVICTION_SHIFT                                                               \
	((64 - MSIM_BITS_PER_XA_VALUE) + MSIM_WORKINGSET_SHIFT + MSIM_NODES_SHIFT +        \
	 MSIM_MEM_CGROUP_ID_SHIFT)
#define MSIM_EVICTION_MASK (~0UL >> MSIM_EVICTION_SHIFT)
#define MSIM_LRU_REFS_WIDTH 2           /* MGLRU token: min_seq << LRU_REFS_WIDTH | refs */

struct msim_shadow {
	unsigned long eviction;         /* eviction clock >> bucket_order, or MGLRU token */
	unsigned short memcgid;         /* mem_cgroup_private_id() */
	unsigned int nid;
	bool workingset;                /* PG_workingset at eviction */
};

/* kernel: pack_shadow(): a value entry (msim_xa_is_value). */
MSIM_API void *msim_pack_shadow(unsigned short memcgid, unsigned int nid, unsigned long eviction,
				bool workingset);
/* kernel: unpack_shadow(). -EINVAL (out untouched) for an entry that is not a value. */
MSIM_API int msim_unpack_shadow(const void *shadow, struct msim_shadow *out);
/*
 * kernel: workingset_init()'s bucket_order: timestamp_bits = 64 - EVICTION_SHIFT;
 * max_order = fls_long(totalram_pages - 1); max_order - timestamp_bits if larger,
 * else 0. totalram is the host's managed pages over every zone and node.
 */
MSIM_API unsigned int msim_workingset_bucket_order_for(unsigned long totalram_pages);

/* ---- the subsystem ---- */

/*
 * Attach the subsystem "workingset" (msim_subsys_find("workingset")): 0 or a
 * negative errno (reason in err).
 */
MSIM_API int msim_workingset_attach(struct msim *m, char *err, size_t errlen);
MSIM_API bool msim_workingset_attached(const struct msim *m);

/* ---- the page cache ---- */

struct msim_address_space;

/*
 * A file's page cache (kernel: inode->i_mapping): i_pages with the shadow
 * tracker as its update hook. Returns 0 and *out; -ENODEV (no workingset layer
 * on m), -EINVAL, -ENOMEM.
 */
MSIM_API int msim_address_space_create(struct msim *m, const char *name,
				       struct msim_address_space **out);
/*
 * kernel: truncate_inode_pages_final() + the inode's end: every folio is taken
 * out of the page cache (and off its LRU), every shadow erased, then the
 * mapping is freed. Call with no reclaim or shrinker running on it.
 */
MSIM_API void msim_address_space_destroy(struct msim_address_space *mapping);
MSIM_API struct msim_xarray *msim_mapping_i_pages(struct msim_address_space *mapping);
MSIM_API unsigned long msim_mapping_nrpages(struct msim_address_space *mapping);
MSIM_API unsigned long msim_mapping_nrshadows(struct msim_address_space *mapping);

/* What one msim_filemap_read() did. */
enum msim_filemap_outcome {
	MSIM_FILEMAP_HIT = 0,           /* the folio was resident */
	MSIM_FILEMAP_MISS,              /* read from backing storage, no shadow */
	MSIM_FILEMAP_REFAULT,           /* read from backing storage, a shadow was there */
	MSIM_FILEMAP_REFAULT_ACTIVATED, /* ... and the refault was recent: activated */
};

/*
 * Read one page of mapping at index, as a task of memcg on node nid (kernel:
 * filemap_read -> filemap_get_pages, or filemap_fault when in_fault: MGLRU
 * activates a recent refault only in a fault, lru_gen_in_fault()). A hit marks
 * the folio accessed (and ages the nonresident clock if that activates it:
 * workingset_activation); a miss allocates an order-0 file folio, charges it
 * to memcg, stores it in place of the shadow, evaluates the shadow and adds
 * it to the LRU (filemap_add_folio). Returns the outcome (>= 0) or a negative
 * errno (-ENOMEM: no folio, or the charge failed; -EINVAL).
 */
MSIM_API int msim_filemap_read(struct msim_address_space *mapping, unsigned long index,
			       struct msim_memcg *memcg, unsigned int nid, bool in_fault);

/*
 * The scan_control evict callback for page-cache folios (kernel: the page cache
 * part of shrink_folio_list -> __remove_mapping): under the xa lock, if only
 * reclaim's isolation reference and the page cache's are left, pack the shadow
 * (msim_workingset_eviction for target_memcg) and store it in place of the
 * folio, drop the page cache's reference and return FREE; else KEEP. arg is
 * unused. Folios not in a page cache get the default (their reference dropped).
 */
MSIM_API enum msim_reclaim_verdict msim_filemap_evict(struct msim_folio *folio,
						      struct msim_memcg *target_memcg, void *arg);

/*
 * The reclaim of a memcg over its memory.high, with the page cache as the
 * folios' owner (kernel: reclaim_high -> try_to_free_mem_cgroup_pages ->
 * shrink_node_memcgs: shrink_lruvec, then shrink_slab for each memcg of the
 * subtree on each node). Returns the pages reclaimed, which can be well over
 * nr_pages (the goal is checked between memcgs, as in
 * msim_try_to_free_mem_cgroup_pages); *slab_freed (may be NULL) the objects the
 * shrinkers freed. From the driver or a task, no lock held.
 */
MSIM_API unsigned long msim_workingset_reclaim(struct msim_memcg *memcg, unsigned long nr_pages,
					       unsigned long *slab_freed);

/* ---- eviction and refault (kernel: mm/workingset.c) ---- */

/* kernel: workingset_age_nonresident(): nr_pages on (memcg, nid) and every ancestor. */
MSIM_API void msim_workingset_age_nonresident(struct msim *m, struct msim_memcg *memcg,
					      unsigned int nid, unsigned long nr_pages);
/* lruvec->nonresident_age of (memcg, nid); memcg NULL: the root's. */
MSIM_API unsigned long msim_workingset_nonresident_age(struct msim *m, struct msim_memcg *memcg,
						       unsigned int nid);
/*
 * kernel: workingset_eviction(folio, target_memcg): classic: the target's clock
 * (read, then advanced by the folio's pages) shifted by bucket_order, the
 * target's private id (root's if NULL); MGLRU (lru_gen_eviction): the folio's
 * memcg, token min_seq[type] << LRU_REFS_WIDTH. The folio is off the LRU.
 */
MSIM_API void *msim_workingset_eviction(struct msim_folio *folio, struct msim_memcg *target_memcg);
/*
 * kernel: workingset_test_recent(): classic: the eviction memcg by private id
 * (tryget; a dying memcg counts, a freed one is "not recent"), its stats flushed
 * when flush (variant workingset-root-flush=skip: never for the root), then
 * refault distance <= workingset size (NR_ACTIVE_FILE, plus NR_INACTIVE_FILE for
 * anon; no swap is modelled). MGLRU: |max_seq - token's seq| < MAX_NR_GENS.
 */
MSIM_API bool msim_workingset_test_recent(struct msim *m, void *shadow, bool file, bool *workingset,
					  bool flush);
/*
 * kernel: workingset_refault(folio, shadow) before folio_add_lru (the folio is
 * charged, not yet on an LRU): WORKINGSET_REFAULT on the folio's lruvec; if
 * recent: PG_active, the clock aged, WORKINGSET_ACTIVATE; if the shadow's
 * workingset bit is set: PG_workingset, WORKINGSET_RESTORE. MGLRU
 * (lru_gen_refault): only when the eviction lruvec is the folio's; activation
 * counted (and the folio made active) only in a fault (in_fault). Returns
 * whether the folio was activated.
 */
MSIM_API bool msim_workingset_refault(struct msim_folio *folio, void *shadow, bool in_fault);
/* kernel: workingset_activation(): age the folio's lruvec (and ancestors) by its pages. */
MSIM_API void msim_workingset_activation(struct msim_folio *folio);

/* ---- shadow nodes ---- */

/* The host's shadow_nodes list_lru and its "mm-shadow" shrinker (NULL without the layer). */
MSIM_API struct msim_list_lru *msim_workingset_shadow_nodes(struct msim *m);
MSIM_API struct msim_shrinker *msim_workingset_shrinker(struct msim *m);
/* WORKINGSET_NODES of node nid: nodes holding only shadow entries. */
MSIM_API unsigned long msim_workingset_nodes(struct msim *m, unsigned int nid);
/*
 * kernel: count_shadow_nodes(): the list's count for (sc->memcg, sc->nid);
 * SHRINK_EMPTY if none; the budget max_nodes = pages >> (XA_CHUNK_SHIFT - 3),
 * pages by variant shadow-budget for a memcg (lru-size: lruvec_lru_size() of
 * every list; page-state-local: the local NR_LRU statistics, flushed,
 * ratelimited), plus local slab >> PAGE_SHIFT; without a memcg the node's
 * present pages. Returns the excess over the budget, or 0. *max_nodes (may be
 * NULL) receives the budget.
 *
 * Warning: under page-state-local the budget reads flushed statistics, and the
 * flush here is mem_cgroup_flush_stats_ratelimited(), which flushes only once
 * the virtual clock (jiffies) is past the last periodic flush by two periods
 * (4 s at HZ 1000). A driver-only experiment that never advances the clock and
 * never flushes reads a budget of 0 LRU pages: page-state-local then collapses
 * like lru-size, and a comparison of the two budgets says nothing. Call
 * msim_workingset_sync_stats() (or advance the clock, msim_clock_advance())
 * before reading or shrinking.
 */
MSIM_API unsigned long msim_count_shadow_nodes_budget(struct msim *m, struct msim_shrink_control *sc,
						      unsigned long *max_nodes);
/*
 * What the periodic flusher (flush_memcg_stats_dwork) would have done by now: a
 * forced flush of every memcg's statistics, so that the next
 * count_shadow_nodes() reads the budget of the pages on the LRU now. For
 * experiments driven without a clock (see the warning above).
 */
MSIM_API void msim_workingset_sync_stats(struct msim *m);
/* Budget pages count_shadow_nodes would use for (memcg, nid) (no flush). */
MSIM_API unsigned long msim_shadow_budget_pages(struct msim *m, struct msim_memcg *memcg,
						unsigned int nid);

/* Host-wide counters (tests, benches). */
struct msim_workingset_counts {
	unsigned long shadows_stored;       /* evictions that left a shadow */
	unsigned long evict_busy;           /* evictions refused: another reference */
	unsigned long reads, hits, misses;  /* msim_filemap_read outcomes; misses = refaults incl. */
	unsigned long refaults, refaults_activated;
	unsigned long refaults_restored;    /* WORKINGSET_RESTORE counted */
	unsigned long refaults_memcg_gone;  /* eviction memcg freed: not recent */
	unsigned long refaults_lruvec_mismatch; /* MGLRU: eviction lruvec is not the folio's */
	unsigned long refaults_recent;      /* MGLRU: lru_gen_test_recent() said recent */
	unsigned long nodes_reclaimed;      /* WORKINGSET_NODERECLAIM, host-wide */
	unsigned long shadows_reclaimed;    /* shadow entries freed with their nodes */
	unsigned long isolate_retries;      /* shadow_lru_isolate: trylock failed */
	unsigned long isolate_skipped;      /* node no longer shadow-only when isolated */
	unsigned long count_calls, scan_calls;
	unsigned long root_flushes_skipped; /* workingset-root-flush=skip */
	unsigned long test_recent_flushes;
	unsigned long node_records;         /* live shadow-tracker records */
};
MSIM_API void msim_workingset_counts(struct msim *m, struct msim_workingset_counts *out);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_WORKINGSET_H */
