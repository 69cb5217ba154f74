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

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/memcg.h>
#include <memcgsim/rstat.h>
#include <memcgsim/sched.h>
#include <memcgsim/sync.h>

#include "rstat/core.h"

#define MSIM__NS MSIM_MEMCG_NR_STAT
#define MSIM__NE MSIM_NR_MEMCG_EVENTS
#define MSIM__NN MSIM_NR_NODE_STAT_ITEMS

struct msim__memcg_stats;

/* kernel: struct memcg_vmstats_percpu (cache-line aligned by msim_alloc_percpu). */
struct msim__stats_pcpu {
	long stats_updates;                       /* this_cpu_add_return / remote reset */
	struct msim__stats_pcpu *parent_pcpu;     /* parent's per-CPU base, NULL at root */
	struct msim__memcg_stats *ms;             /* kernel: ->vmstats back pointer */
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
	long state[MSIM__NN];
	long state_local[MSIM__NN];
	long state_pending[MSIM__NN];
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
};

/* Per host (host slot MSIM_SLOT_RSTAT). */
struct msim__rstat {
	struct msim *m;
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
	struct msim_quiet_spinlock list_lock;     /* exit_list, all_list (no yields inside) */
	struct msim__memcg_stats *exit_list;
	struct msim__memcg_stats *all_list;
	struct msim__memcg_stats *root_ms;
};

/* A counter of struct msim_rstat_counters (relaxed; readers sum after the fact). */
#define MSIM__CTR(rs, field) ((void)msim_quiet_fetch_add(&(rs)->ctr.field, 1, MSIM_RELAXED))

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

/* ---- internal entry points, by file, bottom up ---- */

/*
 * stats.c: lookups, per-memcg data, deferred exits. msim__rstat_get attaches
 * rstat on first use (msim_rstat_init, attach.c: the one call up, until the
 * subsystem registry attaches rstat at msim_create); NULL only on allocation
 * failure.
 */
struct msim__rstat *msim__rstat_get(struct msim *m);
struct msim__rstat *msim__rstat_peek(struct msim *m);
/* The stats of memcg (NULL if rstat is not attached to its host). */
struct msim__memcg_stats *msim__memcg_stats(struct msim_memcg *memcg);
void msim__stats_free(struct msim__memcg_stats *ms);
/* The memcg's css_rstat_flush: deferred exits first, then the core's flush. */
void msim__memcg_stats_flush(struct msim__memcg_stats *ms);
int msim__rstat_adopt_existing(struct msim__rstat *rs);
extern const struct msim_memcg_hooks msim__rstat_stats_hooks;

/* flush.c: the ss->css_rstat_flush callback (kernel: mem_cgroup_css_rstat_flush()) */
void msim__memcg_rstat_flush_cpu(struct msim__rstat_css *css, unsigned int cpu);
/* flush.c: the periodic work */
void msim__rstat_dwork_init(struct msim__rstat *rs);

/* write.c: the write paths without the dying redirect */
void msim__memcg_rstat_updated(struct msim__memcg_stats *ms, long val, unsigned int cpu,
			       struct msim__pending_store *ps);
int msim__mod_memcg_state(struct msim__memcg_stats *ms, enum msim_stat_item idx, long val);
int msim__mod_memcg_lruvec_state(struct msim__memcg_stats *ms, unsigned int nid,
				 enum msim_stat_item idx, long val);

/* reparent.c: the css_offline hook set (local-stat reparenting) */
extern const struct msim_memcg_hooks msim__rstat_offline_hooks;

#endif /* MSIM_RSTAT_INTERNAL_H */
