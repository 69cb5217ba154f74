/* SPDX-License-Identifier: MIT */
/*
 * rstat_internal.h - the memcg statistics on top of the generic rstat core
 * (core.h): structures shared by every file of src/rstat but core.c.
 *
 * Kernel map (docs/rstat.md has the whole table):
 *   struct memcg_vmstats_percpu  -> struct msim__stats_pcpu   (per memcg, per CPU)
 *   struct memcg_vmstats         -> struct msim__vmstats      (per memcg)
 *   struct lruvec_stats_percpu   -> struct msim__lruvec_pcpu  (per memcg, node, CPU)
 *   struct lruvec_stats + lruvec -> struct msim_lruvec        (per memcg, node)
 *   memcg->css (its rstat part)  -> struct msim__memcg_stats.css (core.h)
 *   memory_cgrp_subsys (rstat)   -> struct msim__rstat.ss        (core.h)
 *   node vmstat counters         -> struct msim__rstat.node_stat
 *
 * The memcg statistics are one concept behind this header (its files may call
 * each other); the generic rstat core below it (core.c, core.h) is another, and
 * reaches it only through the flush callback (tests/unit/test_layers.c):
 *   read.c, memory_stat.c   readers, memory.stat
 *   write.c, dying.c        write paths and their entry points, dying redirect
 *   flush.c      the flush callback, the gated flush, the periodic work, the entry points
 *   nmi.c        the NMI-safe writes, what they stage, and the drain
 *   attach.c     the subsystem "rstat" (rstat_subsys): host init and fini
 *   reparent.c   the offline hook set: local-stat reparenting
 *   stats.c      per-memcg data, its hook set, deferred exits
 *   items.c      the stat item tables
 * A function that holds the host's state (struct msim__rstat) or a memcg's
 * (struct msim__memcg_stats) passes it on instead of looking it up again.
 *
 * Access rules (what makes the model TSan-clean and interleavable):
 *  - per-CPU state/events are written only on their own CPU (this_cpu_add) and
 *    read by flushers: relaxed atomics on both sides;
 *  - state_prev/events_prev, the updated tree and the pending arrays are touched
 *    only under rs->ss.lock;
 *  - the aggregates (state, state_local) are written under rs->ss.lock with relaxed
 *    stores and read locklessly by readers (R6);
 *  - every shared operation of a race window is preceded by a named yield point.
 */
#ifndef MSIM_RSTAT_INTERNAL_H
#define MSIM_RSTAT_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <memcgsim/kmem.h>
#include <memcgsim/memcg.h>
#include <memcgsim/rstat.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/vmstat.h>

#include "rstat/core.h"

#define MSIM__NS MSIM_MEMCG_NR_STAT
#define MSIM__NE MSIM_NR_MEMCG_EVENTS
#define MSIM__NN MSIM_NR_NODE_STAT_ITEMS

struct msim__memcg_stats;

/* kernel: struct memcg_vmstats_percpu (cache-line aligned by msim_alloc_percpu). */
struct msim__stats_pcpu {
	long stats_updates;                       /* this_cpu_add_return / remote reset */
	/* The kernel's two pointers, never written: the walk uses ms->parent (stats.c). */
	struct msim__stats_pcpu *parent_pcpu;
	struct msim__memcg_stats *ms;
	long state[MSIM__NS];
	unsigned long events[MSIM__NE];
	long state_prev[MSIM__NS];                /* flusher only */
	unsigned long events_prev[MSIM__NE];      /* flusher only */
};

/* kernel: struct memcg_vmstats. */
struct msim__vmstats {
	long state[MSIM__NS];
	long state_local[MSIM__NS];
	long state_pending[MSIM__NS];
	unsigned long events[MSIM__NE];
	unsigned long events_local[MSIM__NE];
	unsigned long events_pending[MSIM__NE];
	msim_atomic_long_t stats_updates;
};

/*
 * sizeof(struct lruvec_stats) on x86_64: state[], state_local[] and state_pending[],
 * NR_MEMCG_NODE_STAT_ITEMS (47 in the 6.x distribution config) longs each:
 * 3 x 47 x 8 = 1128 bytes, kzalloc_node per node, kmalloc-2k. The model keeps its
 * counters elsewhere; this object is the charge only.
 */
#define MSIM__LRUVEC_STATS_BYTES 1128
/* memcg-layout=linux-6.12: 31 items (memcg_node_stat_items of 6.12): 3 x 31 x 8 = 744, kmalloc-1k. */
#define MSIM__LRUVEC_STATS_612_BYTES 744

/* kernel: struct lruvec_stats_percpu. */
struct msim__lruvec_pcpu {
	long state[MSIM__NN];
	long state_prev[MSIM__NN];
};

/* kernel: struct lruvec inside mem_cgroup_per_node, with its lruvec_stats. */
struct msim_lruvec {
	struct msim *host;
	struct msim__memcg_stats *ms;             /* NULL: the node's own lruvec */
	unsigned int nid;
	struct msim__lruvec_pcpu *pcpu;           /* per-CPU base */
	void *kmem_stats;                         /* the kernel's lruvec_stats ("lruvec_stats") */
	long state[MSIM__NN];
	long state_local[MSIM__NN];
	long state_pending[MSIM__NN];
	/* nmi-stats=atomic: slab bytes staged in NMI, [0] reclaimable, [1] not (nmi.c) */
	msim_atomic_long_t nmi_slab[2];
};

/* Per memcg (memcg hook slot). Self-contained: never reads struct msim_memcg
 * after css_free, so a deferred exit can outlive it. */
struct msim__memcg_stats {
	struct msim__rstat_css css;               /* the core's view (css_rstat_cpu) */
	struct msim__rstat *rs;
	struct msim_memcg *memcg;                 /* NULL once freed */
	struct msim__memcg_stats *parent;
	bool is_root;
	bool exiting;                             /* css_free ran, exit pending */
	int nr_children;                          /* children whose data still exists */
	struct msim__stats_pcpu *pcpu;            /* per-CPU base */
	struct msim__vmstats *vmstats;
	struct msim_lruvec *lruvec;               /* [nr_nodes] */
	struct msim__memcg_stats *exit_next;      /* deferred-exit list */
	struct msim__memcg_stats *all_next, *all_prev; /* every ms of the host */
	msim_atomic_long_t nmi_kmem;              /* nmi-stats=atomic: MEMCG_KMEM staged in NMI */
};

/* rstat's rows of the variant table (attach.c), by index. */
enum msim__rstat_variant_row {
	MSIM__RSTAT_V_PROPAGATE,
	MSIM__RSTAT_V_ROOT_LRUVEC_READ,
	MSIM__RSTAT_V_DYING_REDIRECT,
	MSIM__RSTAT_V_NODE_STAT,
	MSIM__RSTAT_V_NMI_STATS,
	MSIM__RSTAT_V_NMI_DRAIN_LOCAL,
	MSIM__RSTAT_V_NMI_DRAIN_VMSTATS,
	MSIM__RSTAT_V_ENQUEUE_CLAIM,
};

/* The variants a host runs, read from its configuration once, at host init. */
struct msim__rstat_variants {
	enum msim_rstat_propagate propagate;
	bool root_read_node;      /* root-lruvec-read=node */
	bool node_stat_percpu;    /* node-stat=percpu */
	bool nmi_atomic;          /* nmi-stats=atomic */
	bool nmi_drain_local;     /* nmi-drain-local=on */
	bool nmi_drain_vmstats;   /* nmi-drain-vmstats=on */
	bool layout_6_12;         /* memcg-layout=linux-6.12 (the memcg layer's row) */
};

/* rstat_subsys's registry id (attach.c; 0 while unregistered, whose slots stay 0). */
extern unsigned int msim__rstat_subsys_id;

/*
 * A row's value in cfg, for the readers that run without the host's rstat data:
 * msim_subsys_variant()'s load, inline, because the stat write path asks for
 * dying-redirect on every update (attach.c owns the row, so it may index its slot).
 */
static inline int msim__rstat_variant(const struct msim_config *cfg,
				      enum msim__rstat_variant_row row)
{
	return cfg->variants.value[msim__rstat_subsys_id][row];
}

/*
 * Per host: the state of rstat_subsys. sim frees it after the memcg layer's
 * teardown, whose css_released/css_free calls still reach the hook sets (priv):
 * detached tells them rstat is gone.
 */
struct msim__rstat {
	struct msim *m;
	struct msim__rstat_variants v;
	bool detached;                            /* host_fini ran (driver only) */
	int slot;                                 /* memcg hook slot of the stats */
	int slot_offline;                         /* the reparenting hook set */
	struct msim_rstat_params params;
	unsigned int nr_cpus, nr_nodes;
	struct msim__rstat_ss ss;                 /* lock, llists, flush callback */
	long *node_stat;                          /* [nr_nodes][MSIM__NN], atomics */
	struct msim_lruvec *node_lruvec;          /* [nr_nodes], memcg-less lruvecs */
	uint64_t flush_last_time;                 /* atomics */
	struct msim_delayed_work dwork;
	bool periodic;
	struct msim_rstat_counters ctr;           /* relaxed atomic increments */
	struct msim__update_ctr *upd_ctr;         /* [nr_cpus]: the update path's counters */
	struct msim_quiet_spinlock list_lock;     /* exit_list, all_list (no yields inside) */
	struct msim__memcg_stats *exit_list;
	struct msim__memcg_stats *all_list;
	struct msim__memcg_stats *root_ms;
};

/* A counter of struct msim_rstat_counters (relaxed; readers sum after the fact). */
#define MSIM__CTR(rs, field) ((void)msim_quiet_fetch_add(&(rs)->ctr.field, 1, MSIM_RELAXED))

/*
 * The update path's counters, one set per CPU, each counted by its own CPU with
 * a plain load and store, as this_cpu_inc() counts (one thread per simulated
 * CPU in concurrent mode): two shared atomic increments cost more than the rest
 * of an update. msim_rstat_counters() sums them.
 */
struct msim__update_ctr {
	uint64_t updates, walk_breaks, walk_skips, batches;
} __attribute__((aligned(64)));

#define MSIM__CTR_CPU(rs, cpu, field)                                              \
	do {                                                                       \
		uint64_t *c_ = &(rs)->upd_ctr[cpu].field;                         \
		msim_quiet_store(c_, msim_quiet_load(c_, MSIM_RELAXED) + 1, MSIM_RELAXED); \
	} while (0)

/*
 * Variant node-stat=percpu: the node counters are vmstat's (per-CPU diffs,
 * thresholds, the periodic fold), attached with rstat; exact: rs->node_stat.
 */
/*
 * |v| as the update counters count it: LONG_MIN, which labs() cannot negate,
 * counts as LONG_MAX (the kernel's abs() of an int delta wraps instead; either
 * way the next update crosses the batch).
 */
static inline long msim__abs_delta(long v)
{
	return v == LONG_MIN ? LONG_MAX : labs(v);
}

/* kernel: memcg_page_state_unit() */
static inline long msim__page_state_unit(enum msim_stat_item idx)
{
	switch (idx) {
	case MSIM_MEMCG_PERCPU_B:
	case MSIM_MEMCG_ZSWAP_B:
	case MSIM_NR_SLAB_RECLAIMABLE_B:
	case MSIM_NR_SLAB_UNRECLAIMABLE_B:
		return 1;
	case MSIM_NR_KERNEL_STACK_KB:
		return 1024;
	default:
		return (long)MSIM_PAGE_SIZE;
	}
}

/*
 * kernel: memcg_state_val_in_pages() (newest): |val| * unit / PAGE_SIZE, at least
 * one page, sign restored. Only the flush heuristic sees this value. Inline:
 * every stat write converts its delta (write.c).
 */
static inline long msim__state_val_in_pages(enum msim_stat_item idx, long val)
{
	long unit = msim__page_state_unit(idx);
	long pages;

	if (!val)
		return 0;
	if (unit == (long)MSIM_PAGE_SIZE)
		return val;
	/* |val| in unsigned arithmetic: labs(LONG_MIN) does not exist */
	pages = (long)((val < 0 ? 0UL - (unsigned long)val : (unsigned long)val) *
		       (unsigned long)unit / MSIM_PAGE_SIZE);
	if (!pages)
		pages = 1;
	return val < 0 ? -pages : pages;
}

static inline bool msim__node_stat_percpu(const struct msim__rstat *rs)
{
	return rs->v.node_stat_percpu;
}

static inline struct msim__stats_pcpu *msim__pcpu(const struct msim__memcg_stats *ms,
						  unsigned int cpu)
{
	return msim_per_cpu_ptr(ms->pcpu, cpu);
}

static inline struct msim__memcg_stats *msim__css_stats(struct msim__rstat_css *css)
{
	return msim_container_of(css, struct msim__memcg_stats, css);
}

static inline void msim__lruvec_init(struct msim_lruvec *lv, struct msim__rstat *rs,
				     struct msim__memcg_stats *ms, unsigned int nid)
{
	lv->host = rs->m;
	lv->ms = ms;
	lv->nid = nid;
}

static inline long msim__threshold(const struct msim__rstat *rs)
{
	return rs->params.threshold_per_cpu * (long)msim_num_online_cpus(rs->m);
}

/* Where the dying redirect and the local-stat reparenting apply (variant dying-redirect). */
static inline bool msim__dying_redirect_active(const struct msim_config *cfg)
{
	return msim__rstat_variant(cfg, MSIM__RSTAT_V_DYING_REDIRECT) != MSIM_DYING_REDIRECT_V1 ||
	       cfg->cgroup_version == MSIM_CGROUP_V1;
}

/* memcg's stats on rs (NULL without); rs->slot is set before any memcg asks. */
static inline struct msim__memcg_stats *msim__stats_of(const struct msim__rstat *rs,
						       struct msim_memcg *memcg)
{
	return rs && memcg ? *(struct msim__memcg_stats **)msim_memcg_slot(memcg, rs->slot) : NULL;
}

/*
 * attach.c: the host's rstat state, or NULL (rstat not attached): a plain load,
 * never an attach. The entry points' lookups; the files below attach.c must
 * not use these two (they would reach back up to the subsystem).
 */
struct msim__rstat *msim__rstat_peek(struct msim *m);

static inline struct msim__memcg_stats *msim__memcg_stats(struct msim_memcg *memcg)
{
	return memcg ? msim__stats_of(msim__rstat_peek(msim_memcg_host(memcg)), memcg) : NULL;
}

/* ---- internal entry points, by file, bottom up ---- */

/* stats.c: per-memcg data, its hooks (priv: the host's struct msim__rstat), deferred exits. */
void msim__stats_free(struct msim__memcg_stats *ms);
/* The memcg's css_rstat_flush: deferred exits first, then the core's flush. */
void msim__memcg_stats_flush(struct msim__memcg_stats *ms);
int msim__rstat_adopt_existing(struct msim__rstat *rs);
extern const struct msim_memcg_hooks msim__rstat_stats_hooks;

/* nmi.c: kernel flush_nmi_stats(), the drain of what NMIs staged (nmi-stats=atomic) */
void msim__flush_nmi_stats(struct msim__memcg_stats *ms);

/* flush.c: the ss->css_rstat_flush callback (kernel: mem_cgroup_css_rstat_flush()) */
void msim__memcg_rstat_flush_cpu(struct msim__rstat_css *css, unsigned int cpu);
/* flush.c: kernel __mem_cgroup_flush_stats() and the ratelimited flush, on ms */
bool msim__flush_stats(struct msim__memcg_stats *ms, bool force);
bool msim__flush_stats_ratelimited(struct msim__memcg_stats *ms);
/* flush.c: the periodic work (flush_memcg_stats_dwork) */
void msim__rstat_dwork_init(struct msim__rstat *rs);
void msim__rstat_dwork_run(struct msim__rstat *rs);
void msim__rstat_periodic_flush(struct msim__rstat *rs, bool on);

/* write.c: the write paths without the dying redirect */
void msim__memcg_rstat_updated(struct msim__memcg_stats *ms, long val, unsigned int cpu);
int msim__mod_memcg_state(struct msim__memcg_stats *ms, enum msim_stat_item idx, long val);
int msim__mod_memcg_lruvec_state(struct msim__memcg_stats *ms, unsigned int nid,
				 enum msim_stat_item idx, long val);
int msim__count_memcg_events(struct msim__memcg_stats *ms, enum msim_memcg_event ev,
			     long count);

/* reparent.c: reparent_state_local on ms, and the css_offline hook set */
void msim__reparent_state_local(struct msim__memcg_stats *ms);
extern const struct msim_memcg_hooks msim__rstat_offline_hooks;

#endif /* MSIM_RSTAT_INTERNAL_H */
