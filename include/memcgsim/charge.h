/* SPDX-License-Identifier: MIT */
/*
 * charge.h - the memcg charge path: hierarchical page_counter, try_charge_memcg
 * with the per-CPU memcg_stock, uncharge, and the memory.current / memory.max /
 * memory.high interface files (kernel: mm/memcontrol.c, mm/page_counter.c).
 *
 * Kernel map (docs/charge.md has the whole table and every simplification):
 *   mm/page_counter.c  page_counter_{charge,try_charge,uncharge,cancel,set_max,set_high}
 *                      -> msim_page_counter_*()
 *   mm/memcontrol.c    try_charge_memcg()   -> msim_try_charge_memcg()
 *                      try_charge()         -> msim_try_charge()      (skips the root)
 *                      memcg_uncharge()     -> msim_memcg_uncharge()  (skips the root)
 *                      consume_stock()      -> msim_consume_stock()
 *                      refill_stock()       -> msim_refill_stock()
 *                      drain_all_stock()    -> msim_drain_all_stock()
 *                      memory_current_read(), memory_max_show/write(), memory_high_*()
 *                                           -> msim_memory_{current,max,high}_*()
 *
 * Set-up: the layer is the subsystem "charge" (msim_subsys_find("charge"), subsys.h),
 * which registers the memcg hooks that give every memcg its page_counter and
 * drain the stocks at offline. msim_create() attaches it when the configuration
 * sets charge; msim_charge_init(m) attaches it by hand, from the driver, before
 * the first mkdir. Every other call returns -EINVAL (or charges nothing) on a
 * host without it: nothing here attaches it on first use.
 *
 * Units: page counts everywhere except the interface files, which speak bytes.
 */
#ifndef MEMCGSIM_CHARGE_H
#define MEMCGSIM_CHARGE_H

#include <memcgsim/api.h>

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/kmem.h>
#include <memcgsim/memcg.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/* The per-CPU charge stock (memcg_stock_pcp): how many memcgs one CPU caches. */
enum msim_charge_stock {
	MSIM_CHARGE_STOCK_MULTI = 0,       /* mainline: NR_MEMCG_STOCK (7) slots */
	MSIM_CHARGE_STOCK_SINGLE = 1,      /* Linux 6.12: one cached memcg per CPU */
};

#define MSIM_MEMCG_CHARGE_BATCH 64U         /* MEMCG_CHARGE_BATCH */
#define MSIM_NR_MEMCG_STOCK 7U              /* NR_MEMCG_STOCK */
#define MSIM_MAX_RECLAIM_RETRIES 16U        /* MAX_RECLAIM_RETRIES */
#define MSIM_PAGE_ALLOC_COSTLY_ORDER 3U
/* PAGE_COUNTER_MAX on 64-bit: LONG_MAX / PAGE_SIZE. */
#define MSIM_PAGE_COUNTER_MAX (LONG_MAX / 4096L)

/* ---- page_counter (kernel: include/linux/page_counter.h, mm/page_counter.c) ---- */

struct msim_page_counter {
	msim_atomic_long_t usage;        /* pages; the only field charged concurrently */
	unsigned long max;               /* READ_ONCE/WRITE_ONCE */
	unsigned long high;
	unsigned long watermark;         /* largest usage seen */
	unsigned long local_watermark;   /* resettable watermark (memory.peak) */
	unsigned long failcnt;           /* racy increment, like the kernel's */
	unsigned long underflows;        /* uncharges that went below 0 (the WARN) */
	struct msim_page_counter *parent;
};

/* kernel: page_counter_init(counter, parent, protection_support = false). */
MSIM_API void msim_page_counter_init(struct msim_page_counter *c, struct msim_page_counter *parent);

/* kernel: page_counter_read(): the usage, in pages. */
MSIM_API unsigned long msim_page_counter_read(const struct msim_page_counter *c);

/* kernel: page_counter_charge(): charge c and its ancestors, never fails. */
MSIM_API void msim_page_counter_charge(struct msim_page_counter *c, unsigned long nr_pages);

/*
 * kernel: page_counter_try_charge(): speculative add at each level up to the
 * root; a level that goes over its max is rolled back, its failcnt bumped, every
 * level below it cancelled, and *fail set to it. Returns true on success.
 */
MSIM_API bool msim_page_counter_try_charge(struct msim_page_counter *c, unsigned long nr_pages,
					   struct msim_page_counter **fail);

/* kernel: page_counter_cancel(): one level; an underflow is clamped to 0 and counted. */
MSIM_API void msim_page_counter_cancel(struct msim_page_counter *c, unsigned long nr_pages);

/* kernel: page_counter_uncharge(): cancel at c and every ancestor. */
MSIM_API void msim_page_counter_uncharge(struct msim_page_counter *c, unsigned long nr_pages);

/*
 * kernel: page_counter_set_max(): read usage, exchange max, re-read usage; retried
 * so a limit is never set below a concurrently rising usage. Returns 0 or -EBUSY
 * when usage is above nr_pages.
 */
MSIM_API int msim_page_counter_set_max(struct msim_page_counter *c, unsigned long nr_pages);

/* kernel: page_counter_set_high(). */
MSIM_API void msim_page_counter_set_high(struct msim_page_counter *c, unsigned long nr_pages);

/* ---- the charge subsystem of a host ---- */

/* gfp flags the model understands (a small subset of the kernel's). */
enum msim_gfp {
	MSIM_GFP_KERNEL = 0,             /* may block, may reclaim, may retry */
	MSIM_GFP_NOWAIT = 1u << 0,       /* !gfpflags_allow_blocking(): no reclaim */
	MSIM_GFP_NORETRY = 1u << 1,      /* __GFP_NORETRY */
	MSIM_GFP_RETRY_MAYFAIL = 1u << 2,/* __GFP_RETRY_MAYFAIL */
	MSIM_GFP_NOFAIL = 1u << 3,       /* __GFP_NOFAIL: force the charge on failure */
	MSIM_GFP_HIGH = 1u << 4,         /* __GFP_HIGH: force the charge on failure */
	MSIM_GFP_NOSPIN = 1u << 5,       /* !gfpflags_allow_spinning(): batch = nr_pages */
	MSIM_GFP_MEMALLOC = 1u << 6,     /* current has PF_MEMALLOC: force */
	MSIM_GFP_NOFS = 1u << 7,         /* no __GFP_FS (GFP_NOFS) */
	MSIM_GFP_NOIO = 1u << 8,         /* no __GFP_IO, and so no __GFP_FS (GFP_NOIO) */
};

/* kernel: gfp_has_io_fs(): both __GFP_IO and __GFP_FS. */
static inline bool msim_gfp_has_io_fs(unsigned int gfp)
{
	return !(gfp & (MSIM_GFP_NOFS | MSIM_GFP_NOIO));
}

/*
 * Reclaim callback standing in for try_to_free_mem_cgroup_pages(memcg, nr_pages):
 * the model has no LRU of its own, so whoever owns the pages (a test, a workload)
 * may free some and uncharge them, returning how many it freed. Without one,
 * reclaim frees nothing.
 */
typedef unsigned long (*msim_reclaim_fn)(struct msim_memcg *memcg, unsigned long nr_pages,
					 void *arg);

/*
 * The charge layer as a subsystem (subsys.h): name "charge", depends on "memcg":
 * msim_subsys_find("charge").
 */

/*
 * Attach the charge subsystem to m by hand (msim_subsys_attach(), with memcg
 * first if m lacks it): the per-CPU stocks and the memcg hooks. Returns 0, also
 * when attached already (from the configuration or an earlier call); -EINVAL for
 * a NULL host or a call from inside a task; -ENOMEM.
 */
MSIM_API int msim_charge_init(struct msim *m);
/* Whether m has the charge subsystem (msim_subsys_attached(m, msim_subsys_find("charge"))). */
MSIM_API bool msim_charge_initialized(struct msim *m);

/* Seed of the per-CPU PRNG that picks the stock slot to evict (default 1). */
MSIM_API void msim_charge_set_seed(struct msim *m, uint64_t seed);
MSIM_API void msim_charge_set_reclaim(struct msim *m, msim_reclaim_fn fn, void *arg);
/*
 * kernel: mem_cgroup_handle_over_high() (resume_user_mode_work): reclaim what
 * this CPU's charges put over memory.high since the last call (in the batches
 * try_charge_memcg counted, MEMCG_CHARGE_BATCH or more), through the reclaim
 * callback, from memcg up; the penalty is recorded, not slept. Call where the
 * task would return to user space (after a read, a fault).
 */
MSIM_API void msim_mem_cgroup_handle_over_high(struct msim_memcg *memcg);

/* The memory page_counter of memcg (memcg->memory); NULL if not initialised. */
MSIM_API struct msim_page_counter *msim_memcg_page_counter(struct msim_memcg *memcg);

/*
 * kernel: try_charge_memcg(). Charge nr_pages to memcg (never the root: see
 * msim_try_charge()). Returns 0, or -ENOMEM when the limit holds and the gfp flags
 * allow failure, -EINVAL for nr_pages == 0 or an uninitialised host.
 */
MSIM_API int msim_try_charge_memcg(struct msim_memcg *memcg, unsigned int gfp, unsigned int nr_pages);

/* kernel: try_charge(): the root is never charged (returns 0). */
MSIM_API int msim_try_charge(struct msim_memcg *memcg, unsigned int gfp, unsigned int nr_pages);

/* kernel: memcg_uncharge(): page_counter_uncharge of memory; the root is skipped. */
MSIM_API void msim_memcg_uncharge(struct msim_memcg *memcg, unsigned int nr_pages);

/* kernel: consume_stock(), refill_stock(), drain_all_stock() on this CPU's stock. */
MSIM_API bool msim_consume_stock(struct msim_memcg *memcg, unsigned int nr_pages);
MSIM_API void msim_refill_stock(struct msim_memcg *memcg, unsigned int nr_pages);
MSIM_API void msim_drain_all_stock(struct msim_memcg *root);

/* Pages cached for memcg in cpu's stock (0 if none); for tests and reports. */
MSIM_API unsigned int msim_stock_pages(struct msim *m, unsigned int cpu, const struct msim_memcg *memcg);
/* The memcg in slot (0..6) of cpu's stock and its pages; NULL when empty. */
MSIM_API struct msim_memcg *msim_stock_slot(struct msim *m, unsigned int cpu, unsigned int slot,
					    unsigned int *nr_pages);

/* Charge-path counters of a host, summed over CPUs (deterministic figures). */
struct msim_charge_stats {
	uint64_t stock_hits;         /* consume_stock succeeded */
	uint64_t stock_misses;       /* consume_stock failed (no slot or too few pages) */
	uint64_t stock_refills;      /* refill_stock calls that cached pages */
	uint64_t stock_evictions;    /* random slot evicted to make room */
	uint64_t stock_drains;       /* slots drained (eviction, overflow, drain_all) */
	uint64_t counter_charges;    /* page_counter_try_charge attempts */
	uint64_t counter_failures;   /* attempts that hit a limit */
	uint64_t batch_retries;      /* retries with batch = nr_pages */
	uint64_t reclaim_calls;
	uint64_t forced;             /* charges forced past the limit */
	uint64_t nomem;              /* charges that failed with -ENOMEM */
	uint64_t high_throttles;     /* synchronous over-high handling runs */
	uint64_t high_penalty_jiffies; /* penalty computed by the throttling (not slept) */
};
MSIM_API void msim_charge_stats(struct msim *m, struct msim_charge_stats *out);

/* memory.events counters the charge path raises (kernel: enum memcg_memory_event). */
enum msim_memory_event {
	MSIM_MEMCG_LOW = 0,
	MSIM_MEMCG_HIGH,
	MSIM_MEMCG_MAX,
	MSIM_MEMCG_OOM,
	MSIM_MEMCG_OOM_KILL,
	MSIM_MEMCG_NR_MEMORY_EVENTS,
};
MSIM_API unsigned long msim_memory_events(struct msim_memcg *memcg, enum msim_memory_event e);

/* ---- interface files (bytes, as the kernel prints and parses them) ---- */

/* memory.current: usage in bytes. */
MSIM_API uint64_t msim_memory_current_read(struct msim_memcg *memcg);
/* memory.peak: the watermark in bytes. */
MSIM_API uint64_t msim_memory_peak_read(struct msim_memcg *memcg);

/*
 * memory.max / memory.high show: "max\n" for no limit, else the byte count and a
 * newline. Return the length written (snprintf semantics) or -EINVAL.
 */
MSIM_API int msim_memory_max_show(struct msim_memcg *memcg, char *buf, size_t len);
MSIM_API int msim_memory_high_show(struct msim_memcg *memcg, char *buf, size_t len);

/*
 * memory.max / memory.high write: "max" or a byte count (rounded down to pages).
 * memory.max above usage is set directly; below usage the kernel reclaims
 * (here: the reclaim callback) and then sets the limit anyway (raising
 * MSIM_MEMCG_MAX / OOM events). Returns 0 or -EINVAL for bad input.
 */
MSIM_API int msim_memory_max_write(struct msim_memcg *memcg, const char *buf);
MSIM_API int msim_memory_high_write(struct msim_memcg *memcg, const char *buf);

/*
 * memory.stat and memory.numa_stat (implemented in src/rstat/memory_stat.c, on the
 * rstat readers of rstat.h). Both start with the threshold-gated
 * mem_cgroup_flush_stats(memcg), like the kernel's, so their figures are as stale
 * as the kernel's would be. cgroup v2 (kernel: memcg_stat_format(),
 * memory_numa_stat_show()): keys, order and units of newest mainline with every
 * option on except hugetlb accounting (the "hugetlb" line is left out of
 * memory.stat, as without the memory_hugetlb_accounting mount option). cgroup v1
 * (kernel: memcg1_stat_format(), memcg_numa_stat_show()): the local and total_*
 * keys. Return the length of the full text (snprintf semantics: the text is
 * truncated if len is too small) or -EINVAL.
 */
MSIM_API int msim_memory_stat_show(struct msim_memcg *memcg, char *buf, size_t len);
MSIM_API int msim_memory_numa_stat_show(struct msim_memcg *memcg, char *buf, size_t len);
/* Find "key value" in a rendered memory.stat text. Returns 0 and *value, or -ENOENT. */
MSIM_API int msim_memory_stat_lookup(const char *text, const char *key, uint64_t *value);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_CHARGE_H */
