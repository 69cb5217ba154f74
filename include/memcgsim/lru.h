/* SPDX-License-Identifier: MIT */
/*
 * lru.h - LRU lists per (memcg, node): the classic lists with lru_zone_size, the
 * multi-gen LRU, a minimal reclaim, and the move of a dying memcg's folios to its
 * parent at offline. docs/lru.md has the model, the kernel map and every
 * simplification.
 *
 * The lruvec of (memcg, node) is the handle rstat.h already gives out
 * (msim_mem_cgroup_lruvec(m, memcg, nid)): its statistics live in rstat, its
 * lists here. Kernel: struct lruvec and mem_cgroup_per_node (mm/memcontrol.c,
 * include/linux/mmzone.h, include/linux/mm_inline.h, mm/folio.c, mm/vmscan.c).
 * msim_mem_cgroup_lruvec(m, NULL, nid) is the root's lruvec, as the kernel's
 * mem_cgroup_lruvec(NULL, pgdat); the bare node lruvec (msim_node_lruvec(),
 * rstat.h) has no LRU lists while memcg is on.
 *
 * The host's LRU kind (msim_config.lru) decides, as lru_gen_enabled() does:
 *  - classic: folios on lists[lru]; lruvec_add_folio / lruvec_del_folio keep
 *    mz->lru_zone_size[zone][lru] through update_lru_size();
 *  - MGLRU: evictable folios on lrugen->folios[gen][type][zone], counted in
 *    lrugen->nr_pages[gen][type][zone]; the lruvec statistics are kept
 *    (__update_lru_size), lru_zone_size is not: lruvec_lru_size() reads 0 for the
 *    evictable lists, as in the kernel (thread 000). Unevictable folios take the
 *    classic path under both.
 *
 * Locking: each lruvec has an lru_lock. msim_folio_lruvec_lock() locks the
 * lruvec a folio is on and rechecks folio_memcg() after locking, retrying if an
 * offline moved the folio meanwhile; it returns inside an RCU read-side section
 * that msim_lruvec_unlock() ends (kernel: folio_lruvec_lock, lruvec_unlock).
 *
 * Offline (variant lru-reparent): objcg (mainline) moves, per node, the lists and
 * sizes of the dying memcg into the parent's lruvec under objcg_lock, the child's
 * lru_lock and the parent's (objcg.h has the sequence); off (7.0) leaves them on
 * the dead memcg.
 *
 * Attach: msim_lru_attach(m) (the "lru" subsystem, with what it depends on
 * before it when missing: "objcg", "rstat", "charge") after msim_create() and
 * before the first child memcg (-EBUSY after). The configuration has no switch
 * for the layer yet, so msim_create() never attaches it: a host without it
 * behaves as before.
 *
 * Named yield points (a task parked at one has not yet done the operation):
 *   "folio.lru.test_clear"     folio_test_clear_lru (isolation and moves claim the folio)
 *   "folio.lru.set"            folio_set_lru (add, putback)
 *   "folio.ref.get" / ".tryget" / ".put" / ".freeze"   the folio's reference count
 *   "lru.zone_size.read" / ".write"   mz->lru_zone_size (READ_ONCE / update)
 *   "lru_gen.max_seq" / ".inc" lrugen->max_seq read / the aging's increment
 *   "lru_gen.nr_pages" / ".read"   lrugen->nr_pages[gen][type][zone] update / READ_ONCE
 *   "lru.lruvec.recheck"       folio_lruvec_lock found the folio moved: retry
 *   "lru.shrink.isolated"      reclaim isolated its batch, lock dropped
 *   "lru.shrink.putback"       reclaim about to put the survivors back
 * Each says what the step resumed from it touches (yield.h): recheck the
 * folio's memcg_data (then the objcg's memcg, a shim), isolated the batch's
 * folio flags (each quiet flag access notes itself, and an evict callback
 * without evict_notes touches anything), putback nothing before the lock's
 * RCU section (a shim).
 * The lruvec locks, RCU sections and rstat's stat writes add their own points
 * (lock.h, rcu.h, rstat.h); the offline's are in objcg.h.
 */
#ifndef MEMCGSIM_LRU_H
#define MEMCGSIM_LRU_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>

#include <memcgsim/folio.h>
#include <memcgsim/subsys.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/* LRU folios of a memcg at its offline (memcg_reparent_objcgs(), docs/lru.md). */
enum msim_lru_reparent {
	MSIM_LRU_REPARENT_OBJCG = 0,       /* mainline: folios name an objcg; offline moves them */
	MSIM_LRU_REPARENT_OFF = 1,         /* 7.0: folios name the memcg and stay on it */
};

/*
 * MGLRU's refs, tiers and refault feedback (mm/vmscan.c, mm/workingset.c, mm/swap.c,
 * include/linux/mm_inline.h) before and after the 6.14 rework ("mm/mglru: rework
 * workingset protection" and its series): folio refs and tiers, where a new or
 * refaulted folio is placed, the refault test and which refaults count as
 * WORKINGSET_ACTIVATE / _RESTORE. docs/lru.md and docs/kernel-map.md have both rows.
 */
enum msim_mglru_protection {
	MSIM_MGLRU_PROTECTION_6_14 = 0,   /* newest: after the 6.14 rework */
	MSIM_MGLRU_PROTECTION_6_12 = 1,   /* 6.12 (Debian's linux-source-6.12) */
};

/* mglru-protection, for the layer above that shares MGLRU's refault feedback (workingset). */
MSIM_API enum msim_mglru_protection msim_lru_variant_mglru_protection(const struct msim_config *cfg);

/* kernel: enum lru_list (the order of NR_INACTIVE_ANON .. NR_UNEVICTABLE). */
enum msim_lru_list {
	MSIM_LRU_INACTIVE_ANON = 0,
	MSIM_LRU_ACTIVE_ANON,
	MSIM_LRU_INACTIVE_FILE,
	MSIM_LRU_ACTIVE_FILE,
	MSIM_LRU_UNEVICTABLE,
	MSIM_NR_LRU_LISTS
};
#define MSIM_LRU_ACTIVE 1         /* LRU_ACTIVE */
#define MSIM_LRU_FILE 2           /* LRU_FILE */
#define MSIM_ANON_AND_FILE 2      /* MGLRU types: 0 anon, 1 file */
#define MSIM_MIN_NR_GENS 2U       /* MIN_NR_GENS */
#define MSIM_MAX_NR_GENS 4U       /* MAX_NR_GENS */
#define MSIM_MAX_NR_TIERS 4U      /* MAX_NR_TIERS */
#define MSIM_SWAP_CLUSTER_MAX 32U /* SWAP_CLUSTER_MAX */
#define MSIM_DEF_PRIORITY 12      /* DEF_PRIORITY */

/*
 * The registered subsystem ("lru", depends on "objcg", "rstat" and "charge"):
 * msim_subsys_find("lru").
 */

/* msim_subsys_attach(m, msim_subsys_find("lru"), ...): 0 or a negative errno (reason in err). */
MSIM_API int msim_lru_attach(struct msim *m, char *err, size_t errlen);
MSIM_API bool msim_lru_attached(const struct msim *m);
/* kernel: lru_gen_enabled(): the host's LRU kind is MGLRU. */
MSIM_API bool msim_lru_gen_enabled(const struct msim *m);

/* ---- lruvecs ---- */

/* msim_node_lruvec() (rstat.h) is the memcg-less lruvec of a node: it has no LRU lists. */

/*
 * kernel: folio_lruvec(): the lruvec of folio_memcg() (the root's for an
 * uncharged folio) on the folio's node. Stable only while the lruvec lock is
 * held; otherwise the caller holds RCU and must expect an offline to move it.
 */
MSIM_API struct msim_lruvec *msim_folio_lruvec(const struct msim_folio *folio);

/* kernel: folio_lruvec_lock(): locked, RCU held, rechecked against folio_memcg(). */
MSIM_API struct msim_lruvec *msim_folio_lruvec_lock(struct msim_folio *folio);
/* RCU read lock + lru_lock / lru_lock release + RCU read unlock. */
MSIM_API void msim_lruvec_lock(struct msim_lruvec *lruvec);
MSIM_API void msim_lruvec_unlock(struct msim_lruvec *lruvec);

/*
 * kernel: lruvec_add_folio() / lruvec_add_folio_tail() / lruvec_del_folio()
 * (include/linux/mm_inline.h): the caller holds the lruvec's lock, the folio's
 * PG_lru is clear (the caller claimed it) and lruvec is msim_folio_lruvec(folio).
 * Return 0, or -EINVAL (a lruvec without LRU lists).
 */
MSIM_API int msim_lruvec_add_folio(struct msim_lruvec *lruvec, struct msim_folio *folio);
MSIM_API int msim_lruvec_add_folio_tail(struct msim_lruvec *lruvec, struct msim_folio *folio);
MSIM_API int msim_lruvec_del_folio(struct msim_lruvec *lruvec, struct msim_folio *folio);

/*
 * kernel: lruvec_lru_size(lruvec, lru, zone_idx): the sum of
 * mem_cgroup_get_zone_lru_size() over the zones up to zone_idx, read without the
 * lock (READ_ONCE). Under MGLRU the evictable lists read 0.
 */
MSIM_API unsigned long msim_lruvec_lru_size(struct msim_lruvec *lruvec, enum msim_lru_list lru,
					    enum msim_zone_type zone_idx);
/* kernel: mem_cgroup_get_zone_lru_size(): READ_ONCE(mz->lru_zone_size[zid][lru]). */
MSIM_API unsigned long msim_mem_cgroup_get_zone_lru_size(struct msim_lruvec *lruvec,
							 enum msim_lru_list lru, enum msim_zone_type zid);

/* ---- folio LRU operations (kernel: mm/folio.c; no per-CPU batches here) ---- */

/* kernel: folio_add_lru(): onto its lruvec's list (LRU_UNEVICTABLE if mlocked). */
MSIM_API void msim_folio_add_lru(struct msim_folio *folio);
/* kernel: folio_activate() -> lru_activate(): inactive -> active. */
MSIM_API void msim_folio_activate(struct msim_folio *folio);
/* kernel: folio_deactivate() -> lru_deactivate(): active -> inactive, referenced cleared. */
MSIM_API void msim_folio_deactivate(struct msim_folio *folio);
/* kernel: folio_rotate_reclaimable() -> lru_move_tail(): to the inactive tail. */
MSIM_API void msim_folio_rotate_reclaimable(struct msim_folio *folio);
/*
 * kernel: folio_mark_accessed(), an access through a file descriptor: classic:
 * inactive,unreferenced -> referenced -> active; MGLRU: lru_gen_inc_refs() (6.14:
 * PG_referenced, then the LRU_REFS_WIDTH counter, then PG_workingset) or
 * folio_inc_refs() (6.12: PG_referenced, PG_workingset, then the counter), per
 * variant mglru-protection.
 */
MSIM_API void msim_folio_mark_accessed(struct msim_folio *folio);
/* kernel: folio_isolate_lru(): off its list with a reference; false if not on one. */
MSIM_API bool msim_folio_isolate_lru(struct msim_folio *folio);
/* kernel: folio_putback_lru(): folio_add_lru() and drop the isolation reference. */
MSIM_API void msim_folio_putback_lru(struct msim_folio *folio);

/* ---- MGLRU (kernel: mm/vmscan.c lru_gen_*, include/linux/mm_inline.h) ---- */

/* lru_gen_from_seq(): seq % MAX_NR_GENS. */
MSIM_API unsigned int msim_lru_gen_from_seq(unsigned long seq);
MSIM_API unsigned long msim_lru_gen_max_seq(struct msim_lruvec *lruvec);       /* READ_ONCE */
MSIM_API unsigned long msim_lru_gen_min_seq(struct msim_lruvec *lruvec, unsigned int type);
/* READ_ONCE(lrugen->nr_pages[gen][type][zone]) (pages; may be negative transiently). */
MSIM_API long msim_lru_gen_nr_pages(struct msim_lruvec *lruvec, unsigned int gen, unsigned int type,
				    enum msim_zone_type zone);
/*
 * Aging: try_to_inc_max_seq() without the page-table walk: a new youngest
 * generation, the oldest one of a type with MAX_NR_GENS first folded into the
 * next (inc_min_seq), and the active/inactive statistics moved as the kernel's
 * inc_max_seq() does. No-op on a classic host.
 */
MSIM_API void msim_lru_gen_inc_max_seq(struct msim_lruvec *lruvec);

/* kernel: get_tier_idx() now: tiers above it are protected at eviction; -1 without MGLRU. */
MSIM_API int msim_lru_gen_tier_idx(struct msim_lruvec *lruvec, unsigned int type);
/* kernel: folio_lru_refs() and lru_tier_from_refs() of a folio, per mglru-protection. */
MSIM_API int msim_folio_lru_refs(const struct msim_folio *folio);
MSIM_API unsigned int msim_folio_lru_tier(const struct msim_folio *folio);
/*
 * MGLRU eviction token of a folio (lru_gen_eviction: refs - 1, floored at 0, in
 * the low LRU_REFS_WIDTH bits) and the history a refault feeds (lru_gen_refault:
 * refaulted[] of the tier the token and workingset bit give, under the lock of
 * none, an atomic add as the kernel's). Used by the workingset layer.
 */
MSIM_API unsigned long msim_lru_gen_eviction_refs(const struct msim_folio *folio);
MSIM_API void msim_lru_gen_note_evicted(struct msim_lruvec *lruvec, unsigned int type,
					unsigned int tier, long nr_pages);
MSIM_API void msim_lru_gen_note_refaulted(struct msim_lruvec *lruvec, unsigned int type,
					  unsigned int tier, long nr_pages);
/* lru_tier_from_refs(refs, workingset) of the host's rule (the refault's tier). */
MSIM_API unsigned int msim_lru_gen_tier_from_refs(const struct msim *m, int refs, bool workingset);
/* Set the LRU_REFS_WIDTH counter of a folio not yet on an LRU (lru_gen_refault's restore). */
MSIM_API void msim_folio_set_lru_refs_counter(struct msim_folio *folio, unsigned int refs);

/* ---- reclaim (kernel: mm/vmscan.c shrink_lruvec and its helpers) ---- */

enum msim_reclaim_verdict {
	MSIM_RECLAIM_FREE = 0,     /* evicted: the callback dropped its references */
	MSIM_RECLAIM_KEEP,         /* put back on the inactive list (or the oldest generation) */
	MSIM_RECLAIM_ACTIVATE,     /* put back active (promoted) */
};

/*
 * Called for each isolated folio that reclaim wants to free, without the lruvec
 * lock: the owner's part of shrink_folio_list() (remove it from the page cache
 * leaving a shadow entry, write it to swap or zswap) for the reclaim target
 * target_memcg. On MSIM_RECLAIM_FREE the callback has dropped its references;
 * reclaim then frees the folio if only its isolation reference is left (kernel:
 * the refcount freeze of __remove_mapping), else puts it back. Without a
 * callback, a file folio goes to the host's remove_mapping hook (below) when
 * one is registered; otherwise reclaim drops the reference msim_folio_alloc()
 * returned: the folio is freed, and its owner must not use it afterwards.
 */
typedef enum msim_reclaim_verdict (*msim_reclaim_evict_fn)(struct msim_folio *folio,
							   struct msim_memcg *target_memcg,
							   void *arg);

/*
 * The page cache's part of reclaim (kernel: shrink_folio_list ->
 * __remove_mapping(folio->mapping, folio, ...) -> __filemap_remove_folio, with
 * a shadow entry from workingset_eviction). The kernel reaches the mapping
 * through folio->mapping; this layer knows no mapping, so the layer that owns
 * page cache registers its eviction here at its attach (the workingset layer:
 * msim_filemap_evict), and reclaim calls it for every file folio it frees when
 * the scan_control has no evict callback of its own. fn has the evict
 * callback's contract (a folio not in a page cache: drop the reference, FREE);
 * notes as scan_control.evict_notes. fn NULL unregisters. Before any task runs.
 * Returns 0, -ENODEV (no lru layer on m), -EBUSY (another fn is registered).
 */
MSIM_API int msim_lru_set_remove_mapping(struct msim *m, msim_reclaim_evict_fn fn, void *arg,
					 bool notes);

/* kernel: struct scan_control, the fields this reclaim uses. */
struct msim_scan_control {
	unsigned long nr_to_reclaim;       /* pages; stop after the batch that reaches it */
	int priority;                      /* scan lru_size >> priority per list */
	bool may_swap;                     /* anon lists too (swap space to reclaim to) */
	struct msim_memcg *target_mem_cgroup; /* reclaim target (NULL: root) */
	msim_reclaim_evict_fn evict;
	void *evict_arg;
	/*
	 * evict runs inside a scheduler step of the reclaiming task (from the point
	 * before it to its own first yield point). True: it notes what it touches
	 * of shared state there (yield.h's contract; msim_access_note). False (the
	 * default): partial-order reduction counts each call as touching anything.
	 */
	bool evict_notes;
	/*
	 * kernel: shrink_node_memcgs()'s shrink_slab(gfp, nid, memcg, priority)
	 * after each memcg's lruvec, at every priority reclaim reaches. The LRU
	 * layer does not call the shrinker layer: the layer above supplies it (NULL:
	 * no slab reclaim).
	 */
	void (*shrink_slab)(struct msim_memcg *memcg, unsigned int nid, int priority, void *arg);
	void *shrink_slab_arg;
	/*
	 * Classic LRU (kernel: prepare_scan_control()): whether the active lists
	 * may be aged, MSIM_DEACTIVATE_ANON | MSIM_DEACTIVATE_FILE, decided per
	 * node from the target's flushed statistics; force_deactivate (set by the
	 * retry of do_try_to_free_pages()) ages both; skipped_deactivate says an
	 * active list was left alone.
	 */
	unsigned int may_deactivate;
	bool force_deactivate;
	bool skipped_deactivate;
	/* results, added to */
	unsigned long nr_scanned;          /* pages isolated for a look */
	unsigned long nr_reclaimed;        /* pages freed */
	unsigned long nr_activated;        /* pages put back active (referenced / verdict) */
	unsigned long nr_deactivated;      /* pages moved active -> inactive */
};

#define MSIM_DEACTIVATE_ANON 1u
#define MSIM_DEACTIVATE_FILE 2u

/* Defaults: nothing to reclaim, priority DEF_PRIORITY, may_swap, no callback. */
MSIM_API void msim_scan_control_init(struct msim_scan_control *sc);

/*
 * kernel: shrink_lruvec() (classic: get_scan_count, shrink_list in batches of
 * SWAP_CLUSTER_MAX, then the active anon aging) or lru_gen_shrink_lruvec()
 * (MGLRU: evict the oldest generation, aging when only MIN_NR_GENS are left).
 * Call from a task or the driver, no lock held. Returns the pages reclaimed by
 * this call (also added to sc->nr_reclaimed).
 */
MSIM_API unsigned long msim_shrink_lruvec(struct msim_lruvec *lruvec, struct msim_scan_control *sc);

/*
 * kernel: try_to_free_mem_cgroup_pages(): priorities DEF_PRIORITY down to 0, each
 * shrinking every lruvec of memcg's subtree on every node (mem_cgroup_iter). The
 * goal, nr_to_reclaim = max(nr_pages, SWAP_CLUSTER_MAX), is checked after each
 * memcg's lruvecs (all nodes) have been shrunk at the current priority, as
 * shrink_node_memcgs() checks it, not inside a lruvec's shrink: so a call can
 * reclaim well over nr_pages (docs/experiments.md: 1000 asked of a 4096-folio
 * file gave 1088 under MGLRU, 1726 under the classic LRU). Returns the pages this
 * call reclaimed (also added to sc->nr_reclaimed); size an experiment by it.
 * sc may be NULL (defaults); its nr_to_reclaim and target_mem_cgroup are set here.
 * Without sc->evict, a file folio is removed from its page cache through the
 * host's remove_mapping hook (msim_lru_set_remove_mapping: with the workingset
 * layer attached, a msim_address_space's folio leaves a shadow entry, as in
 * msim_workingset_reclaim(), which adds shrink_slab); any other folio's
 * reference is dropped.
 */
MSIM_API unsigned long msim_try_to_free_mem_cgroup_pages(struct msim_memcg *memcg, unsigned long nr_pages,
							 struct msim_scan_control *sc);

/*
 * (List lengths, a walk over a list, the PID controller's raw arrays and the
 * layer's counts, for tests and benches: <memcgsim/introspect/lru.h>.)
 */

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_LRU_H */
