/* SPDX-License-Identifier: MIT */
/*
 * variants.h - the design variants the threads argue about, as runtime settings.
 *
 * Each patch of a thread is one named variant that can be switched alone; each
 * thread's series is a named preset. One table (msim_variant_table()) lists every
 * variant with its values, meaning and thread, so the command line, the benches
 * and the docs all read the same thing. Value 0 of every variant is mainline,
 * except node-stat: its value 0 (exact) is the model's old simplification, kept
 * so that figures measured before the vmstat layer stay comparable.
 */
#ifndef MEMCGSIM_VARIANTS_H
#define MEMCGSIM_VARIANTS_H

#include <memcgsim/api.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* thread 004: memcg_rstat_updated at a flushable level. */
enum msim_rstat_propagate {
	MSIM_RSTAT_PROPAGATE_BREAK = 0,    /* mainline: stop the walk */
	MSIM_RSTAT_PROPAGATE_CONTINUE = 1, /* thread 004: skip the level, keep walking */
	/*
	 * Linux 6.12: every level adds to this CPU's count; at the batch the count
	 * goes into the level's atomic unless the level is flushable, and is reset
	 * either way (the walk never stops early).
	 */
	MSIM_RSTAT_PROPAGATE_SKIP_ATOMIC = 2,
};

/* thread 002 patch 2: where the root memcg's lruvec reads come from. */
enum msim_root_lruvec_read {
	MSIM_ROOT_LRUVEC_READ_RSTAT = 0,   /* mainline: flushed rstat aggregate */
	MSIM_ROOT_LRUVEC_READ_NODE = 1,    /* thread 002: node counters (minus exclusions) */
};

/* thread 000 patches 2, 3: where stat updates to a dying memcg go. */
enum msim_dying_redirect {
	MSIM_DYING_REDIRECT_V1 = 0,        /* mainline: redirect on cgroup v1 only */
	MSIM_DYING_REDIRECT_ALL = 1,       /* patch 2: all hierarchies, RCU always taken */
	MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING = 2, /* patch 3: RCU only on the dying path */
};

/* thread 001: the per-memcg shrinker_info layout. */
enum msim_shrinker_info_layout {
	MSIM_SHRINKER_INFO_ARRAY = 0,            /* mainline: all units upfront, kmalloc-1k */
	MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE = 1, /* thread's base: upfront, 520-byte cache */
	MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND = 2,  /* v2 patch 2/2: on demand, pointer array */
	MSIM_SHRINKER_INFO_XARRAY = 3,           /* thread's series: on demand, xarray */
};

/* LRU folios of a memcg at its offline (memcg_reparent_objcgs(), docs/lru.md). */
enum msim_lru_reparent {
	MSIM_LRU_REPARENT_OBJCG = 0,       /* mainline: folios name an objcg; offline moves them */
	MSIM_LRU_REPARENT_OFF = 1,         /* 7.0: folios name the memcg and stay on it */
};

/*
 * How rstat keeps the node counters (mod_node_page_state() and node_page_state()).
 * Value 0 is not the kernel: it is the model's old simplification, kept as the
 * default so that every earlier figure, schedule and trace stays comparable.
 */
enum msim_node_stat {
	MSIM_NODE_STAT_EXACT = 0,          /* one exact atomic per (node, item): always up to date */
	MSIM_NODE_STAT_PERCPU = 1,         /* the kernel: vmstat's per-CPU diffs and thresholds */
};

/*
 * Memcg stats updated from NMI (kernel: CONFIG_MEMCG_NMI_SAFETY_REQUIRES_ATOMIC,
 * 2025): where this_cpu ops are NMI-safe (x86, arm64) an NMI updates the per-CPU
 * counters like any context; elsewhere MEMCG_KMEM and slab updates from NMI go to
 * atomics that the flush drains (flush_nmi_stats, race window R10).
 */
enum msim_nmi_stats {
	MSIM_NMI_STATS_PERCPU = 0,         /* NMI-safe this_cpu ops: the ordinary path */
	MSIM_NMI_STATS_ATOMIC = 1,         /* staged in atomics, drained at flush */
};

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

/* thread 002 patch 4: how DAMON's node_memcg_{used,free}_bp goal reads the root memcg. */
enum msim_damon_root_read {
	MSIM_DAMON_ROOT_READ_FLUSH = 0,    /* mainline: mem_cgroup_flush_stats(root), then read */
	MSIM_DAMON_ROOT_READ_NODE = 1,     /* thread 002: no root flush, node counters */
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

/*
 * MEMCG_KMEM in obj_cgroup_charge_pages() / obj_cgroup_uncharge_pages(): the kernel
 * counts the pages an objcg charges (mod_memcg_state), which is one rstat update
 * per page charged for slab objects. Value 0 is the model's old simplification (not
 * counted), kept as the default so that every race schedule through the obj stock
 * stays as it was; the linux-6.12 preset counts them.
 */
enum msim_kmem_stat {
	MSIM_KMEM_STAT_UNCOUNTED = 0,
	MSIM_KMEM_STAT_COUNTED = 1,
};

/* The per-CPU charge stock (memcg_stock_pcp): how many memcgs one CPU caches. */
enum msim_charge_stock {
	MSIM_CHARGE_STOCK_MULTI = 0,       /* mainline: NR_MEMCG_STOCK (7) slots */
	MSIM_CHARGE_STOCK_SINGLE = 1,      /* Linux 6.12: one cached memcg per CPU */
};

/*
 * How the memory controller's own structures are allocated and sized, for the
 * kernel-memory model: newest (struct mem_cgroup and mem_cgroup_per_node from
 * their dedicated caches; 47 per-node statistics items) or Linux 6.12 (both from
 * kzalloc, kmalloc-2k; 31 per-node items, so struct lruvec_stats is 744 bytes,
 * kmalloc-1k): measured by the kernel rig (docs/oracle.md).
 */
enum msim_memcg_layout {
	MSIM_MEMCG_LAYOUT_NEWEST = 0,
	MSIM_MEMCG_LAYOUT_LINUX_6_12 = 1,
};

/* Demonstration switches: remove a fix to show the race it closes. */
enum msim_onoff {
	MSIM_ON = 0,
	MSIM_OFF = 1,
};

/*
 * S1's barrier pair (docs/races.md): smp_mb__before_atomic() before
 * set_shrinker_bit's set_bit and smp_mb__after_atomic() after shrink_slab_memcg's
 * clear_bit. none removes both, to ask under a memory model (sim.h) whether they
 * are needed: not under tso (x86's locked bit operations order by themselves),
 * yes under pso (race shrinker-bit-barrier).
 */
enum msim_shrinker_bit_barrier {
	MSIM_SHRINKER_BIT_BARRIER_MB = 0,   /* mainline: both barriers */
	MSIM_SHRINKER_BIT_BARRIER_NONE = 1, /* neither */
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

struct msim_variants {
	enum msim_rstat_propagate rstat_propagate;
	enum msim_root_lruvec_read root_lruvec_read;
	enum msim_dying_redirect dying_redirect;
	enum msim_shrinker_info_layout shrinker_info;
	enum msim_onoff shrinker_recount;    /* shrink_slab_memcg's clear-barrier-recount */
	enum msim_onoff on_demand_lock;      /* array-on-demand install vs expand lock */
	enum msim_lru_reparent lru_reparent;
	enum msim_onoff lruvec_recheck;      /* folio_lruvec_lock recheck, relock at putback */
	enum msim_node_stat node_stat;
	enum msim_nmi_stats nmi_stats;
	enum msim_onoff nmi_drain_local;     /* 2026 fix: the NMI drain feeds state_local */
	enum msim_onoff nmi_drain_vmstats;   /* 2026 fix: ... and the memcg-level vmstats */
	enum msim_onoff rstat_enqueue_claim; /* css_rstat_updated's lnode cmpxchg claim */
	enum msim_shadow_budget shadow_budget;
	enum msim_workingset_root_flush workingset_root_flush;
	enum msim_onoff shadow_isolate_trylock; /* shadow_lru_isolate's trylock and recheck */
	enum msim_zswap_root_count zswap_root_count;
	enum msim_zswap_shrink_iter zswap_shrink_iter;
	enum msim_damon_root_read damon_root_read;
	enum msim_onoff damon_memcg_tryget;  /* DAMON goal: mem_cgroup_tryget after the id lookup */
	enum msim_shrinker_bit_barrier shrinker_bit_barrier;
	enum msim_zswap_count_flush zswap_count_flush;
	enum msim_mglru_protection mglru_protection;
	enum msim_kmem_stat kmem_stat;
	enum msim_charge_stock charge_stock;
	enum msim_memcg_layout memcg_layout;
};

struct msim_variant_desc {
	const char *name;         /* command-line name, e.g. "rstat-propagate" */
	const char *const *values; /* NULL-terminated; index = enum value; [0] is mainline */
	const char *meaning;
	const char *thread;       /* "004", "002 patch 2", "demo", ... */
	size_t offset;            /* offset of the enum in struct msim_variants */
};

/* The table, terminated by an entry with name == NULL. */
MSIM_API const struct msim_variant_desc *msim_variant_table(void);

struct msim_preset_desc {
	const char *name;         /* "mainline", "thread-004", ... */
	const char *meaning;
	const char *settings;     /* "rstat-propagate=continue,..." ("" for none) */
};
MSIM_API const struct msim_preset_desc *msim_preset_table(void);

/* Every variant at its mainline value. */
MSIM_API void msim_variants_init(struct msim_variants *v);

/*
 * Apply "NAME=VALUE" (or a preset by name). Returns 0, or -EINVAL writing a message
 * that lists the valid names or values into err.
 */
MSIM_API int msim_variant_set(struct msim_variants *v, const char *assignment, char *err, size_t errlen);
MSIM_API int msim_preset_apply(struct msim_variants *v, const char *preset, char *err, size_t errlen);

/* Current value name of a variant ("break"), or NULL for an unknown variant. */
MSIM_API const char *msim_variant_get(const struct msim_variants *v, const char *name);

/*
 * "rstat-propagate=break,..." for every variant; returns bytes that would be written
 * (snprintf's rule: a return >= len means buf was cut). MSIM_VARIANTS_STRLEN holds
 * every variant at its longest value (test_variants_format checks it), so a buffer
 * of that size never cuts the string a run records.
 */
#define MSIM_VARIANTS_STRLEN 2048
MSIM_API size_t msim_variants_format(const struct msim_variants *v, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_VARIANTS_H */
