/* SPDX-License-Identifier: MIT */
/*
 * zswap_internal.h - the zswap layer's structures (zswap.h).
 *
 * Files, bottom up (no file calls one above it; the lower ones take the host
 * state as an argument, only the entry-point files look it up):
 *   swapdev.c    the swap device: slots, the swap cache claim, swap_cgroup ids
 *   charge.c     obj_cgroup_charge_zswap / may_zswap / writeback_enabled, memcg data
 *   pool.c       compressed lengths, entries, pool counters, check_limits
 *   lru.c        zswap_lru_add/del, writeback, shrink_memcg_cb, the shrinker, shrink_memcg
 *   store.c      zswap_store, zswap_load, zswap_invalidate
 *   worker.c     shrink_worker and its cursor, zswap_memcg_offline_cleanup
 *   host.c       the subsystem: host state, memcg hooks, the shrinker's registration
 *   api.c        entry points that look the state up (tunables, interface files)
 *   fault.c      the workload's pages: first touch, reclaim's evict callback, swap-in
 */
#ifndef MSIM_ZSWAP_INTERNAL_H
#define MSIM_ZSWAP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/atomic.h>
#include <memcgsim/charge.h>
#include <memcgsim/list.h>
#include <memcgsim/lock.h>
#include <memcgsim/rstat.h>
#include <memcgsim/xarray.h>
#include <memcgsim/zswap.h>

/* kernel: struct zswap_entry (no pool pointer, no zsmalloc handle: one pool). */
struct msim__zswap_entry {
	unsigned long swpentry;          /* the swap slot */
	unsigned int length;             /* compressed bytes; PAGE_SIZE: stored whole */
	bool referenced;                 /* second chance; under the list's lock */
	unsigned int nid;                /* node of the entry (the folio's) */
	struct msim_obj_cgroup *objcg;   /* holds a reference; the root's too */
	struct msim_list_head lru;       /* on the zswap list_lru */
};

/* Per memcg (kernel: memcg->zswap_max, memcg->zswap_writeback, and per node
 * lruvec->zswap_lruvec_state.nr_disk_swapins). */
struct msim__zswap_memcg {
	unsigned long zswap_max;         /* pages; READ_ONCE / WRITE_ONCE */
	unsigned long writeback;         /* memory.zswap.writeback (0/1); READ_ONCE */
	msim_atomic_long_t nr_disk_swapins[];
};

enum msim__swap_slot_state {
	MSIM__SLOT_FREE = 0,
	MSIM__SLOT_USED,                 /* allocated: its data is in zswap or being written */
	MSIM__SLOT_DISK,                 /* its data is on the device */
};

/* The swap device (kernel: swap_info_struct's swap_map, SWAP_HAS_CACHE, swap_cgroup). */
struct msim__swapdev {
	unsigned long nr_slots;
	unsigned long cap;               /* the arrays' length: slots above are free (swapdev.c) */
	bool live;                       /* initialised: the lock is to be destroyed */
	unsigned char *state;            /* enum msim__swap_slot_state */
	unsigned char *cache;            /* SWAP_HAS_CACHE: the swap cache holds a folio */
	unsigned short *memcg_id;        /* swap_cgroup_record: private id of the owner */
	unsigned long cursor, used;
	unsigned long nomem;             /* slots refused: no memory to grow the arrays */
	struct msim_lock lock;           /* kernel: si->lock and the cluster locks */
};

/* zsmalloc's size classes on 4 KiB pages (32 B to 4 KiB in steps of 16 B). */
#define MSIM__ZS_SIZE_CLASSES 255

/* One zsmalloc size class: its zspage geometry, and where a merged class points. */
struct msim__zs_class {
	unsigned short size, pages_per_zspage, objs_per_zspage, merged;
};

/* Per host. */
struct msim__zswap {
	struct msim *m;
	bool root_count_pool;            /* variant zswap-root-count=pool (host.c) */
	bool shrink_iter_old;            /* variant zswap-shrink-iter=old */
	bool count_flush_ratelimited;    /* variant zswap-count-flush=ratelimited */
	int slot;                        /* memcg hook slot of struct msim__zswap_memcg */
	unsigned int nr_nodes;
	struct msim_zswap_params p;
	struct msim_xarray tree;         /* swap slot -> entry (kernel: zswap_trees[]) */
	struct msim_list_lru lru;        /* kernel: zswap_list_lru */
	struct msim_shrinker *shrinker;  /* kernel: zswap_shrinker */
	msim_atomic_long_t stored_pages, stored_incomp, pool_bytes;
	/*
	 * zsmalloc: objects per size class (after zs_create_pool's merge), quiet;
	 * each changes in the step of the pool_bytes update beside it, so that
	 * pool_bytes' accesses carry the dependency.
	 */
	unsigned long zs_objs[MSIM__ZS_SIZE_CLASSES];
	const struct msim__zs_class *zs_class; /* the process's table (pool.c), set at attach */
	bool pool_reached_full;          /* kernel: zswap_pool_reached_full (racy bool) */
	unsigned long store_seq;         /* compressed-length draw counter (quiet) */
	/* shrink_worker */
	struct msim_lock shrink_lock;    /* kernel: zswap_shrink_lock */
	struct msim_memcg *next_shrink;  /* kernel: zswap_next_shrink; holds a css reference */
	bool work_queued;                /* kernel: zswap_shrink_work queued (quiet) */
	struct msim__swapdev dev;
	/* counters (quiet atomics: the model's bookkeeping) */
	unsigned long zswpout, zswpin, zswpwb, pswpout, pswpin, written_back;
	unsigned long reject_reclaim_fail, reject_compress_fail, reject_limit, reject_memcg_max;
	unsigned long pool_limit_hit, kept_no_writeback, worker_runs, worker_failures;
	unsigned long disk_swapins_consumed;
};

static inline void msim__zswap_count(unsigned long *counter, unsigned long n)
{
	msim_quiet_fetch_add(counter, n, MSIM_RELAXED);
}

/*
 * A quiet field another task reads during the run (not only the end-of-run
 * figures): the step touching it says so, for partial-order reduction
 * (yield.h's contract). The counters only the end-of-run check reads commute
 * and need no note.
 */
#define msim__zswap_note(p, kind) msim_access_note((p), sizeof(*(p)), (kind))

static inline struct msim__zswap_memcg *msim__zswap_memcg(const struct msim__zswap *z,
							 struct msim_memcg *memcg)
{
	return z && memcg && z->slot >= 0 ? *msim_memcg_slot(memcg, z->slot) : NULL;
}

/* ---- swapdev.c ---- */
int msim__swapdev_init(struct msim__swapdev *d, unsigned long nr_slots);
void msim__swapdev_fini(struct msim__swapdev *d);
/* folio_alloc_swap(): a free slot recorded for memcg_id, or -1 (device full). */
long msim__swapdev_alloc(struct msim__swapdev *d, unsigned short memcg_id);
void msim__swapdev_free(struct msim__swapdev *d, unsigned long slot);
void msim__swapdev_set_disk(struct msim__swapdev *d, unsigned long slot);
bool msim__swapdev_on_disk(struct msim__swapdev *d, unsigned long slot);
unsigned short msim__swapdev_memcg_id(struct msim__swapdev *d, unsigned long slot);
/* The swap cache claim (SWAP_HAS_CACHE): 0, -EEXIST (another holds it), -ENOENT (free slot). */
int msim__swapdev_claim_cache(struct msim__swapdev *d, unsigned long slot, const char *point);
void msim__swapdev_release_cache(struct msim__swapdev *d, unsigned long slot);
bool msim__swapdev_valid(const struct msim__swapdev *d, long slot);

/* ---- charge.c ---- */
bool msim__zswap_writeback_enabled(const struct msim__zswap *z, struct msim_memcg *memcg);
bool msim__zswap_may_zswap(const struct msim__zswap *z, struct msim_obj_cgroup *objcg);

/* ---- pool.c ---- */
/* The compressed length of the next store; > PAGE_SIZE means it did not compress. */
unsigned int msim__zswap_draw_length(struct msim__zswap *z);
unsigned long msim__zswap_total_pages(struct msim__zswap *z);
/* kernel: zs_create_pool()'s size class table: z->zs_class, shared by every host. */
void msim__zswap_zs_init(struct msim__zswap *z);
/* zs_malloc / zs_free of an object of length bytes: its size class's count. */
void msim__zswap_zs_account(struct msim__zswap *z, unsigned int length, long delta);
unsigned long msim__zswap_max_pages(const struct msim__zswap *z);
unsigned long msim__zswap_accept_thr_pages(const struct msim__zswap *z);
/* kernel: zswap_check_limits(): true when the pool is (still) full. */
bool msim__zswap_check_limits(struct msim__zswap *z);
struct msim__zswap_entry *msim__zswap_entry_alloc(void);
/* Pool counters and the objcg charge of a new entry (zswap_store_page's tail part). */
void msim__zswap_entry_account(struct msim__zswap *z, struct msim__zswap_entry *e);

/* ---- lru.c ---- */
void msim__zswap_lru_add(struct msim__zswap *z, struct msim__zswap_entry *e);
/* kernel: zswap_entry_free(): off the LRU, uncharged, objcg put, counters, freed. */
void msim__zswap_entry_free(struct msim__zswap *z, struct msim__zswap_entry *e);
int msim__zswap_shrink_memcg(struct msim__zswap *z, struct msim_memcg *memcg);
unsigned long msim__zswap_shrinker_count(struct msim_shrinker *s, struct msim_shrink_control *sc);
unsigned long msim__zswap_shrinker_scan(struct msim_shrinker *s, struct msim_shrink_control *sc);

/* ---- store.c ---- */
bool msim__zswap_store(struct msim__zswap *z, struct msim_folio *folio, unsigned long slot);
bool msim__zswap_load(struct msim__zswap *z, struct msim_folio *folio, unsigned long slot);
void msim__zswap_invalidate(struct msim__zswap *z, unsigned long slot);

/* ---- worker.c ---- */
unsigned long msim__zswap_shrink_worker(struct msim__zswap *z);
void msim__zswap_offline_cleanup(struct msim__zswap *z, struct msim_memcg *memcg);
/* host.c: the host's state, or NULL (the subsystem's lookup); the attach. */
struct msim__zswap *msim__zswap_of(const struct msim *m);
int msim__zswap_attach(struct msim *m, char *err, size_t errlen);
/* Put the cursor's reference (host teardown). */
void msim__zswap_cursor_release(struct msim__zswap *z);

#endif /* MSIM_ZSWAP_INTERNAL_H */
