/* SPDX-License-Identifier: MIT */
/*
 * zswap.h - the compressed swap cache in front of a simulated swap device
 * (kernel: mm/zswap.c and its memcg hooks in mm/memcontrol.c; thread 002 patch 1,
 * and the 2024 upstream fix "mm: zswap: fix global shrinker memcg iteration").
 *
 * What is modelled (docs/zswap.md has the whole map and every simplification):
 *  - a swap device of swap slots, each free, in zswap, on disk, and briefly owned
 *    by the swap cache (the fault path or writeback holds it);
 *  - the zswap pool: one entry per swapped-out page, its compressed length drawn
 *    from a configurable compressibility distribution, deterministic per seed;
 *    zswap_stored_pages and the pool's pages (bytes rounded up to pages);
 *  - byte-granular charging of each entry to its objcg through the obj stock
 *    (obj_cgroup_charge_zswap: MEMCG_ZSWAP_B, MEMCG_ZSWAPPED, MEMCG_ZSWAP_INCOMP),
 *    the root objcg skipped as in the kernel;
 *  - the global memcg-aware, NUMA-aware zswap list_lru with the referenced bit
 *    (second chance), and the shrinker "mm-zswap" (zswap_shrinker_count,
 *    zswap_shrinker_scan) in the shrinker layer, with the variant
 *    zswap-root-count=memcg-stats|pool (thread 002 patch 1);
 *  - writeback to the device (ZSWPWB), loads on the fault path (ZSWPIN), disk
 *    swap-ins (PSWPIN) and their feedback into the shrinker count;
 *  - memory.zswap.max and memory.zswap.writeback per memcg;
 *  - the global shrink_worker with its memcg cursor and
 *    zswap_memcg_offline_cleanup, with the variant zswap-shrink-iter=fixed|old
 *    (the 2024 fix, and the code before it).
 *
 * Reclaim and faults: the LRU layer's reclaim hands anon folios to
 * msim_zswap_evict() (the scan_control evict callback: swap_writeout's
 * zswap_store, else a disk write); msim_zswap_swapin() is the fault path
 * (do_swap_page: swap cache folio, zswap_load, else a disk read). A page of a
 * workload is a struct msim_swap_pte: it names its folio while resident and its
 * swap slot while swapped out.
 *
 * Set-up: msim_zswap_attach() attaches the LRU layer, the shrinker and list_lru
 * layers, the obj stock and then the subsystem "zswap", before the first child
 * memcg. No configuration attaches it: existing hosts are unchanged.
 *
 * Named yield points:
 *   "zswap.store.charge"      entry in the tree, about to charge its objcg
 *   "zswap.store.lru_add"     entry complete, about to publish it on the LRU
 *   "zswap.wb.claim"          writeback, lock dropped, about to claim the swap cache
 *   "zswap.load.claim"        swap-in about to claim the swap cache
 *   "zswap.free.claim"        a swapped-out page being freed waits for the swap cache
 *   "zswap.shrink.cursor"     shrink_worker holds zswap_shrink_lock, cursor advanced
 *   "zswap.shrink.memcg"      shrink_worker about to shrink the memcg it picked
 *   "zswap.offline.cursor"    zswap_memcg_offline_cleanup under the lock
 */
#ifndef MEMCGSIM_ZSWAP_H
#define MEMCGSIM_ZSWAP_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/folio.h>
#include <memcgsim/list_lru.h>
#include <memcgsim/lru.h>
#include <memcgsim/memcg.h>
#include <memcgsim/objcg.h>
#include <memcgsim/shrinker.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/* thread 002 patch 1: where zswap_shrinker_count() takes the root's compression ratio. */
enum msim_zswap_root_count {
	MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS = 0, /* mainline: root's MEMCG_ZSWAP_B / ZSWAPPED */
	MSIM_ZSWAP_ROOT_COUNT_POOL = 1,        /* patch 1: zswap_total_pages / stored_pages */
};

/* 2024 "fix global shrinker memcg iteration": shrink_worker's cursor vs offline cleanup. */
enum msim_zswap_shrink_iter {
	MSIM_ZSWAP_SHRINK_ITER_FIXED = 0,  /* mainline: both skip offline memcgs */
	MSIM_ZSWAP_SHRINK_ITER_OLD = 1,    /* before the fix: cleanup may leave an offline one */
};

/*
 * The flush zswap_shrinker_count() does before reading a memcg's zswap stats:
 * mem_cgroup_flush_stats(), threshold-gated (linux 6.12), or
 * mem_cgroup_flush_stats_ratelimited(), which flushes only when the periodic
 * flusher is a full cycle late (the base of thread 002).
 */
enum msim_zswap_count_flush {
	MSIM_ZSWAP_COUNT_FLUSH_GATED = 0,
	MSIM_ZSWAP_COUNT_FLUSH_RATELIMITED = 1,
};

/* The subsystem "zswap" (depends on lru, list_lru, obj_stock): msim_subsys_find("zswap"). */

/* Tunables (kernel: module parameters of mm/zswap.c) and the model's workload knobs. */
struct msim_zswap_params {
	unsigned int max_pool_percent;     /* zswap.max_pool_percent: 20 */
	unsigned int accept_thr_percent;   /* zswap.accept_threshold_percent: 90 */
	/* totalram_pages(): 0 takes the sum of the configuration's zone sizes. */
	unsigned long total_ram_pages;
	bool shrinker_enabled;             /* zswap.shrinker_enabled (opt-in: thread 002) */
	unsigned long swap_slots;          /* swap device size in pages */
	/*
	 * Compressibility: a store's compressed length is uniform in [min_bytes,
	 * max_bytes] (1..4096), except incompressible_pct percent of stores, which
	 * compress to PAGE_SIZE or more (stored whole if writeback is enabled,
	 * rejected otherwise). Drawn from seed and the store's sequence number.
	 */
	unsigned int min_bytes, max_bytes, incompressible_pct;
	uint64_t seed;
	/*
	 * The pool's page count (zswap_total_pages): zsmalloc's size classes and
	 * zspages (true: each object in its class's slot, zspages of 1-8 pages),
	 * or the stored bytes rounded up to pages (false, the default: the races'
	 * and tests' figures were set on it).
	 */
	bool zsmalloc_pages;
};

/* Defaults: 20 %, 90 %, RAM from the configuration, shrinker on, 1 Mi slots,
 * 1000..3000 bytes (a ratio near 2), 0 % incompressible, seed 1, pool pages
 * from bytes (zsmalloc_pages false). */
MSIM_API void msim_zswap_params_init(struct msim_zswap_params *p);

/*
 * Attach zswap (and what it needs) to m from the driver, before the first
 * child memcg. params may be NULL (defaults). Returns 0; -EINVAL with the reason
 * in err for bad parameters or a call from a task; -EBUSY when it is attached
 * already or children exist; a dependency's error.
 */
MSIM_API int msim_zswap_attach(struct msim *m, const struct msim_zswap_params *params,
			       char *err, size_t errlen);
MSIM_API bool msim_zswap_attached(const struct msim *m);

/* ---- pages of a workload, reclaim and faults ---- */

/*
 * A workload's page table entry: the resident folio (holding the workload's
 * reference; the folio's private points back here), or the swap slot it was
 * swapped out to (slot >= 0), or neither (never touched).
 */
struct msim_swap_pte {
	struct msim_folio *folio;
	long slot;
};

/* An empty pte (never touched). */
MSIM_API void msim_swap_pte_init(struct msim_swap_pte *pte);

/*
 * First touch: a new anon folio on node nid, charged to memcg, on its LRU.
 * Returns 0, -EBUSY (the pte maps something), -ENOMEM (charge or allocation).
 */
MSIM_API int msim_zswap_anon_fault(struct msim_swap_pte *pte, struct msim_memcg *memcg,
				   unsigned int nid);

/*
 * kernel: do_swap_page() for a swapped-out pte: a swap cache folio charged to
 * the memcg the slot was recorded for (mem_cgroup_swapin_charge_folio; memcg when
 * that one is gone), zswap_load(), else a disk read (PSWPIN and
 * zswap_folio_swapin()); the slot freed, the folio on its LRU. Returns 0,
 * -EINVAL (not swapped out), -EAGAIN (writeback holds the slot's swap cache),
 * -ENOMEM.
 */
MSIM_API int msim_zswap_swapin(struct msim_swap_pte *pte, struct msim_memcg *memcg);

/*
 * Drop the page (munmap): free the folio, or invalidate the swap slot
 * (zswap_invalidate() and swap_free()).
 */
MSIM_API void msim_zswap_pte_free(struct msim *m, struct msim_swap_pte *pte);

/*
 * The scan_control evict callback (lru.h) for anon folios with a pte: kernel
 * shrink_folio_list -> folio_alloc_swap, swap_writeout: zswap_store(), else
 * (writeback enabled) a disk write, else the folio is kept and activated.
 * arg: the host. File folios and folios without a pte are kept.
 */
MSIM_API enum msim_reclaim_verdict msim_zswap_evict(struct msim_folio *folio,
						    struct msim_memcg *target_memcg, void *arg);

/*
 * Reclaim nr_pages from memcg's subtree the way shrink_node() does for it: the
 * LRU pass (msim_try_to_free_mem_cgroup_pages with msim_zswap_evict), then, if
 * shrink_priority >= 0, shrink_slab(nid, memcg', shrink_priority) for every memcg'
 * of the subtree on every node. Returns pages reclaimed from the LRU.
 */
MSIM_API unsigned long msim_zswap_reclaim(struct msim_memcg *memcg, unsigned long nr_pages,
					  int shrink_priority);

/* ---- the pool (kernel: zswap_store / zswap_load / zswap_invalidate) ---- */

/* kernel: zswap_store(folio) for swap slot slot. Returns true if stored. */
MSIM_API bool msim_zswap_store(struct msim_folio *folio, unsigned long slot);
/* kernel: zswap_load(folio) for slot: true if the entry was found (then erased and freed). */
MSIM_API bool msim_zswap_load(struct msim_folio *folio, unsigned long slot);
/* kernel: zswap_invalidate(swp): drop the entry of slot, if any. */
MSIM_API void msim_zswap_invalidate(struct msim *m, unsigned long slot);

/* kernel: zswap_total_pages() (pool pages: stored bytes rounded up), zswap_stored_pages. */
MSIM_API unsigned long msim_zswap_total_pages(struct msim *m);
MSIM_API unsigned long msim_zswap_stored_pages(struct msim *m);
/* kernel: zswap_max_pages(), zswap_accept_thr_pages(). */
MSIM_API unsigned long msim_zswap_max_pages(struct msim *m);
MSIM_API unsigned long msim_zswap_accept_thr_pages(struct msim *m);

/* ---- memcg interface (kernel: mm/memcontrol.c) ---- */

/* memory.zswap.current: MEMCG_ZSWAP_B after a forced flush (bytes). */
MSIM_API uint64_t msim_memory_zswap_current_read(struct msim_memcg *memcg);
/* memory.zswap.max ("max" or bytes, rounded down to pages). Returns 0 or -EINVAL. */
MSIM_API int msim_memory_zswap_max_write(struct msim_memcg *memcg, const char *buf);
/* memory.zswap.max in pages (MSIM_PAGE_COUNTER_MAX: "max"). */
MSIM_API unsigned long msim_memory_zswap_max_pages(struct msim_memcg *memcg);
/* memory.zswap.writeback (0 or 1). Returns 0 or -EINVAL. */
MSIM_API int msim_memory_zswap_writeback_write(struct msim_memcg *memcg, int enabled);
/* kernel: mem_cgroup_zswap_writeback_enabled(): memcg and every ancestor allow it. */
MSIM_API bool msim_mem_cgroup_zswap_writeback_enabled(struct msim_memcg *memcg);
/* kernel: obj_cgroup_may_zswap(): below every ancestor's zswap.max (forced flush). */
MSIM_API bool msim_obj_cgroup_may_zswap(struct msim_obj_cgroup *objcg);
/*
 * kernel: obj_cgroup_charge_zswap() / obj_cgroup_uncharge_zswap(): size bytes
 * through the obj stock and the ZSWAP stats; nothing for the root objcg.
 */
MSIM_API void msim_obj_cgroup_charge_zswap(struct msim_obj_cgroup *objcg, size_t size);
MSIM_API void msim_obj_cgroup_uncharge_zswap(struct msim_obj_cgroup *objcg, size_t size);

/* ---- shrinking ---- */

/* The zswap shrinker of m ("mm-zswap"), NULL without zswap. */
MSIM_API struct msim_shrinker *msim_zswap_shrinker(struct msim *m);
/* kernel: zswap_shrinker_count() / zswap_shrinker_scan() (the shrinker's callbacks). */
MSIM_API unsigned long msim_zswap_shrinker_count(struct msim_shrinker *s,
						 struct msim_shrink_control *sc);
MSIM_API unsigned long msim_zswap_shrinker_scan(struct msim_shrinker *s,
						struct msim_shrink_control *sc);
/* kernel: shrink_memcg(): one entry per node. 0, -EAGAIN (none written), -ENOENT. */
MSIM_API int msim_zswap_shrink_memcg(struct msim *m, struct msim_memcg *memcg);
/*
 * kernel: shrink_worker(): write back round-robin over the memcgs (cursor
 * zswap_next_shrink) until the pool is at the accept threshold. Runs in the
 * caller (a task or the driver). Returns the entries written back.
 */
MSIM_API unsigned long msim_zswap_shrink_worker(struct msim *m);
/* Run shrink_worker if a store queued it (queue_work(shrink_wq)); returns written back. */
MSIM_API unsigned long msim_zswap_run_queued_work(struct msim *m);
/* zswap_next_shrink (no reference taken; compare only) under zswap_shrink_lock. */
MSIM_API struct msim_memcg *msim_zswap_shrink_cursor(struct msim *m);
/* kernel: zswap_memcg_offline_cleanup() (the offline hook calls it). */
MSIM_API void msim_zswap_memcg_offline_cleanup(struct msim_memcg *memcg);

/* Host-wide counters (kernel: vm events and zswap's debugfs counters). */
struct msim_zswap_stats {
	unsigned long zswpout, zswpin, zswpwb;     /* vm events */
	unsigned long pswpout, pswpin;             /* disk writes and reads */
	unsigned long stored_pages, stored_incompressible_pages;
	unsigned long pool_bytes, pool_pages;      /* stored bytes; pages (rounded up) */
	unsigned long written_back_pages;          /* zswap_written_back_pages */
	unsigned long reject_reclaim_fail, reject_compress_fail, reject_limit;
	unsigned long reject_memcg_max;            /* obj_cgroup_may_zswap said no */
	unsigned long pool_limit_hit;
	unsigned long kept_no_writeback;           /* folios kept: rejected, writeback off */
	unsigned long swap_slots_used;
	unsigned long shrink_worker_runs, shrink_worker_failures;
	unsigned long disk_swapins_consumed;       /* swap-in feedback taken by the count */
	/* swap slots refused because the process had no memory to grow the device's
	 * arrays (the store then fails as on a full device): 0 unless the simulator ran out */
	unsigned long swap_slots_nomem;
};
MSIM_API void msim_zswap_stats(struct msim *m, struct msim_zswap_stats *out);
/* Entries on memcg's zswap list on nid (list_lru_count_one). */
MSIM_API unsigned long msim_zswap_lru_count(struct msim_memcg *memcg, unsigned int nid);
/* Pending disk swap-ins of (memcg, nid) not yet consumed by a count. */
MSIM_API long msim_zswap_nr_disk_swapins(struct msim_memcg *memcg, unsigned int nid);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_ZSWAP_H */
