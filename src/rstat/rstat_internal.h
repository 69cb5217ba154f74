/* SPDX-License-Identifier: MIT */
/*
 * rstat_internal.h - structures shared by the files of src/rstat.
 *
 * Kernel map (docs/rstat.md has the whole table):
 *   struct memcg_vmstats_percpu  -> struct msim__stats_pcpu   (per memcg, per CPU)
 *   struct memcg_vmstats         -> struct msim__vmstats      (per memcg)
 *   struct lruvec_stats_percpu   -> struct msim__lruvec_pcpu  (per memcg, node, CPU)
 *   struct lruvec_stats + lruvec -> struct msim_lruvec        (per memcg, node)
 *   struct css_rstat_cpu         -> struct msim__rstat_cpu    (per memcg, per CPU)
 *   ss->rstat_ss_lock, ss->lhead -> struct msim__rstat.lock, .lhead
 *   node vmstat counters         -> struct msim__rstat.node_stat
 *
 * Access rules (what makes the model TSan-clean and interleavable):
 *  - per-CPU state/events are written only on their own CPU (this_cpu_add) and
 *    read by flushers: relaxed atomics on both sides;
 *  - state_prev/events_prev, the updated tree and the pending arrays are touched
 *    only under rs->lock;
 *  - the aggregates (state, state_local) are written under rs->lock with relaxed
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

/*
 * kernel: struct css_rstat_cpu. lnode is an llist node: it points to itself
 * when off-list, NULL or the next node when on a per-CPU llist (claimed by a
 * cmpxchg from self to NULL first). updated_children / updated_next form the
 * per-CPU updated tree, under rs->lock only: a memcg with no updated children
 * points updated_children at itself; a sibling list ends at the parent; the root
 * marks itself as linked by pointing updated_next at itself.
 */
struct msim__rstat_cpu {
	long lnode_next;                          /* (long) pointer; atomics only */
	struct msim__memcg_stats *ms;
	struct msim__rstat_cpu *updated_children;
	struct msim__rstat_cpu *updated_next;
	struct msim__rstat_cpu *flush_next;       /* the flush list being built */
	struct msim__rstat_cpu *ghead_next;       /* next sibling list of a level */
};

/* Per memcg (memcg hook slot). Self-contained: never reads struct msim_memcg
 * after css_free, so a deferred exit can outlive it. */
struct msim__memcg_stats {
	struct msim__rstat *rs;
	struct msim_memcg *memcg;                 /* NULL once freed */
	struct msim__memcg_stats *parent;
	bool is_root;
	bool exiting;                             /* css_free ran, exit pending */
	int nr_children;                          /* children whose data still exists */
	struct msim__stats_pcpu *pcpu;            /* per-CPU base */
	struct msim__rstat_cpu *rcpu;             /* per-CPU base */
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
	struct msim_lock lock;                    /* kernel: ss->rstat_ss_lock */
	long *lhead;                              /* per-CPU llist heads */
	long *node_stat;                          /* [nr_nodes][MSIM__NN], atomics */
	struct msim_lruvec *node_lruvec;          /* [nr_nodes], memcg-less lruvecs */
	uint64_t flush_last_time;                 /* atomics */
	struct msim_delayed_work dwork;
	bool periodic;
	struct msim_rstat_counters ctr;           /* relaxed atomic increments */
	int exit_lock;                            /* guards the lists (no yields inside) */
	struct msim__memcg_stats *exit_list;
	struct msim__memcg_stats *all_list;
	struct msim__memcg_stats *root_ms;
};

/* ---- shared-memory helpers: a named yield point, then the operation ---- */

static inline long msim__ld(const long *p, const char *point)
{
	msim_yield(point);
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Acquire: a popped llist node was initialised by the CPU that enqueued it. */
static inline long msim__ld_acquire(const long *p, const char *point)
{
	msim_yield(point);
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void msim__st(long *p, long v, const char *point)
{
	msim_yield(point);
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline bool msim__cmpxchg(long *p, long *old, long new_, const char *point)
{
	msim_yield(point);
	return __atomic_compare_exchange_n(p, old, new_, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_RELAXED);
}

/* No yield: lock-protected or driver-only accesses that readers may race with. */
#define MSIM__LD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define MSIM__ST(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define MSIM__CTR(rs, field) __atomic_fetch_add(&(rs)->ctr.field, 1, __ATOMIC_RELAXED)

/* ---- internal entry points ---- */

/* Host data, attaching rstat lazily (NULL only on allocation failure). */
struct msim__rstat *msim__rstat_get(struct msim *m);
struct msim__rstat *msim__rstat_peek(struct msim *m);
/* The stats of memcg (NULL if rstat is not attached to its host). */
struct msim__memcg_stats *msim__memcg_stats(struct msim_memcg *memcg);

static inline struct msim__stats_pcpu *msim__pcpu(const struct msim__memcg_stats *ms,
						  unsigned int cpu)
{
	return msim_per_cpu_ptr(ms->pcpu, cpu);
}

static inline struct msim__rstat_cpu *msim__rcpu(const struct msim__memcg_stats *ms,
						 unsigned int cpu)
{
	return msim_per_cpu_ptr(ms->rcpu, cpu);
}

static inline long msim__threshold(const struct msim__rstat *rs)
{
	return rs->params.threshold_per_cpu * (long)msim_num_online_cpus(rs->m);
}

/*
 * A write path's per-CPU state store still in its CPU's store buffer (params
 * store_buffer, R5): up to two slots (memcg and lruvec) get val added when it
 * drains. Only the owning CPU writes these slots, so the drain is a plain
 * read-add-store.
 */
struct msim__pending_store {
	long *slot[2];
	long val;
};

static inline void msim__store_drain(struct msim__pending_store *ps)
{
	for (int i = 0; ps && i < 2; i++) {
		if (ps->slot[i])
			MSIM__ST(ps->slot[i], MSIM__LD(ps->slot[i]) + ps->val);
		ps->slot[i] = NULL;
	}
}

static inline bool msim__store_pending(const struct msim__pending_store *ps)
{
	return ps && (ps->slot[0] || ps->slot[1]);
}

/* core.c: the rstat core */
void msim__rstat_cpu_init(struct msim__memcg_stats *ms);
/* ps: the caller's buffered state store (NULL: none), drained before the claim */
void msim__css_rstat_updated(struct msim__memcg_stats *ms, unsigned int cpu,
			     struct msim__pending_store *ps);
void msim__css_rstat_flush(struct msim__memcg_stats *ms);
/* Exit: flush ms on every CPU and unlink it; false if the lock was unavailable. */
bool msim__css_rstat_exit(struct msim__memcg_stats *ms, bool may_defer);
bool msim__rstat_queued(struct msim__memcg_stats *ms, unsigned int cpu);

/* flush.c: kernel mem_cgroup_css_rstat_flush() */
void msim__memcg_rstat_flush_cpu(struct msim__memcg_stats *ms, unsigned int cpu);

/* flush.c: the periodic work; dying.c: the css_offline hook */
void msim__rstat_dwork_init(struct msim__rstat *rs);
void msim__rstat_offline(struct msim_memcg *memcg, void *priv);

/* stats.c */
void msim__memcg_rstat_updated(struct msim__memcg_stats *ms, long val, unsigned int cpu,
			       struct msim__pending_store *ps);
int msim__mod_memcg_state(struct msim__memcg_stats *ms, enum msim_stat_item idx, long val);
int msim__mod_memcg_lruvec_state(struct msim__memcg_stats *ms, unsigned int nid,
				 enum msim_stat_item idx, long val);
void msim__stats_free(struct msim__memcg_stats *ms);
void msim__exit_list_process(struct msim__rstat *rs);

#endif /* MSIM_RSTAT_INTERNAL_H */
