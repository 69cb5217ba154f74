/* SPDX-License-Identifier: MIT */
/*
 * damon.h - DAMON's memcg quota goals: the DAMOS quota with goals
 * DAMOS_QUOTA_NODE_MEMCG_USED_BP and _FREE_BP, their reader, and the feedback
 * loop that tunes the effective quota toward the goal on the virtual clock.
 *
 * Model of mm/damon/core.c (docs/damon.md; threads: 002 patch 4, and the
 * December 2025 fix "mm/damon/core: get memcg reference before access"):
 *
 *   damos_get_node_memcg_used_bp(goal):
 *     invalid node                  -> 0 (USED) or 10000 (FREE)
 *     rcu_read_lock; memcg = mem_cgroup_from_id(goal->memcg_id)
 *     [damon-memcg-tryget=on]  !memcg || !mem_cgroup_tryget(memcg): unlock, 0 / 10000
 *     rcu_read_unlock
 *     [damon-memcg-tryget=off] !memcg: 0 / 10000; from here the memcg is held by
 *                              nothing: an rmdir and two grace periods free it
 *     mem_cgroup_flush_stats(memcg)  (thread 002 patch 4, damon-root-read=node:
 *                                     not for the root memcg)
 *     used = lruvec_page_state of the four LRU lists of (memcg, nid)
 *     [on] mem_cgroup_put(memcg)
 *     totalram = si_meminfo_node(nid).totalram
 *     bp = mult_frac(USED ? used : totalram - used, 10000, totalram)
 *
 * Ids. The goal names its memcg by the private id (memcg.h), as the version
 * that had the use-after-free did (16-bit mem_cgroup_from_id). The newest kernel
 * takes a 64-bit cgroup id and mem_cgroup_get_from_id(), which does the lookup
 * and the reference in one call: the same shape as tryget=on.
 *
 * The freed-memcg check (tryget=off only). A memcg the reader holds no reference
 * on may be freed between rcu_read_unlock and its use. The memcg layer catches a
 * use through a freed handle with its poisoned quarantine (debug builds only), and
 * a use would read freed per-memcg statistics. So, on the tryget=off path only,
 * the reader (a) registers the memcg it found in a watch while still under RCU,
 * which the layer's css_free hook marks when the memcg is freed, and (b) enters a
 * read-side section of its own (not the kernel's) before the use and checks the
 * watch there: freed means the kernel would have read freed memory, the model
 * counts a use-after-free and reads nothing. A memcg found RELEASED (last
 * reference gone) is a use after release, counted and not read either: its free
 * may be queued already and land in the middle of the use. Anything earlier
 * cannot be freed before that section ends (the free is queued by the release
 * work, a grace period after the release, and then waits for a grace period
 * that starts after it), so the model never touches freed memory in any build.
 *
 * Attach: the subsystem "damon" (needs rstat), by hand with msim_damon_attach(),
 * before the host's first child memcg (it registers a memcg hook set).
 */
#ifndef MEMCGSIM_DAMON_H
#define MEMCGSIM_DAMON_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/memcg.h>
#include <memcgsim/subsys.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/* thread 002 patch 4: how DAMON's node_memcg_{used,free}_bp goal reads the root memcg. */
enum msim_damon_root_read {
	MSIM_DAMON_ROOT_READ_FLUSH = 0,    /* mainline: mem_cgroup_flush_stats(root), then read */
	MSIM_DAMON_ROOT_READ_NODE = 1,     /* thread 002: no root flush, node counters */
};

/*
 * The DAMON layer as a subsystem (subsys.h): name "damon", depends on "rstat":
 * msim_subsys_find("damon").
 */

/*
 * Attach the damon layer (and rstat, memcg before it) to a host by hand. Call
 * from the driver before the first child memcg. Returns 0 (also when attached
 * already), or a negative errno with the reason in err.
 */
MSIM_API int msim_damon_attach(struct msim *m, char *err, size_t errlen);

/*
 * Goal metrics (kernel: enum damos_quota_goal_metric). Only these three are
 * modelled; the kernel also has PSI, node_mem_*, (in)active_mem and eligible_mem.
 */
enum msim_damos_quota_goal_metric {
	MSIM_DAMOS_QUOTA_USER_INPUT = 0,      /* current_value set by the user */
	MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP,  /* memcg's LRU pages on nid / node RAM, bp */
	MSIM_DAMOS_QUOTA_NODE_MEMCG_FREE_BP,  /* (node RAM - those pages) / node RAM, bp */
	MSIM_NR_DAMOS_QUOTA_GOAL_METRICS,
};

/* kernel: enum damos_quota_goal_tuner (2026). */
enum msim_damos_quota_goal_tuner {
	MSIM_DAMOS_QUOTA_GOAL_TUNER_CONSIST = 0,  /* the proportional feedback loop */
	MSIM_DAMOS_QUOTA_GOAL_TUNER_TEMPORAL = 1, /* full quota until achieved, then 0 */
};

/* kernel: struct damos_quota_goal. */
struct msim_damos_quota_goal {
	enum msim_damos_quota_goal_metric metric;
	unsigned long target_value;   /* bp for the memcg metrics; must be > 0 */
	unsigned long current_value;  /* written by each evaluation (USER_INPUT: by the user) */
	int nid;
	unsigned short memcg_id;      /* private id (msim_mem_cgroup_private_id()) */
};

#define MSIM_DAMOS_MAX_GOALS 4

/* kernel: struct damos_quota (size and goal parts; no time quota, no weights). */
struct msim_damos_quota {
	unsigned long reset_interval_ms;  /* charge window (kernel default 1000 ms; 0: 1000) */
	unsigned long sz;                 /* hard size limit per window, bytes; 0: none */
	enum msim_damos_quota_goal_tuner goal_tuner;
	unsigned int nr_goals;
	struct msim_damos_quota_goal goals[MSIM_DAMOS_MAX_GOALS];
	/* private, as the kernel's: */
	unsigned long esz;                /* effective size quota of this window, bytes */
	unsigned long esz_bp;             /* esz x 10000, the feedback loop's input */
	unsigned long charged_sz;         /* applied in this window */
	uint64_t charged_from;            /* jiffies the window began */
	bool window_open;                 /* the first damos_adjust_quota() ran */
	unsigned long total_charged_sz;
	unsigned long qt_exceeds;         /* windows that used their whole esz */
	unsigned long nr_tunings;         /* damos_set_effective_quota() calls */
};

/* A zeroed quota with the kernel's defaults (1 s window, consist tuner, no goal). */
MSIM_API void msim_damos_quota_init(struct msim_damos_quota *q);

/*
 * kernel: damos_new_quota_goal() + damos_add_quota_goal(). Returns 0; -EINVAL for
 * a bad metric, a zero target or a full goal list (MSIM_DAMOS_MAX_GOALS).
 */
MSIM_API int msim_damos_add_quota_goal(struct msim_damos_quota *q,
				       enum msim_damos_quota_goal_metric metric,
				       unsigned long target_value, int nid, unsigned short memcg_id);

/* What one read of a memcg goal did (introspection for tests, races and benches). */
struct msim_damos_read_info {
	bool invalid_node;       /* nid out of range, or a node without memory */
	bool found;              /* the id lookup found a memcg */
	bool tryget_failed;      /* tryget=on: found, but its last reference was gone */
	bool root;               /* the memcg was the root */
	bool flush_called;       /* mem_cgroup_flush_stats() was called ... */
	bool flushed;            /* ... and got through its threshold gate */
	bool use_after_free;     /* tryget=off: freed before its use; nothing was read */
	bool use_after_release;  /* tryget=off: last reference gone at its use; nothing read */
	enum msim_memcg_state state_at_use;  /* as the use began (FREED if use_after_free) */
	unsigned long used_pages;
	unsigned long totalram;  /* pages */
};

/*
 * kernel: damos_get_node_memcg_used_bp(goal): the bp value of a NODE_MEMCG_USED_BP
 * or _FREE_BP goal, read the way variants damon-root-read and damon-memcg-tryget
 * say (above). Call from a task or the driver of a host with the damon layer;
 * without it (or for another metric) 0. info may be NULL.
 */
MSIM_API unsigned long msim_damos_get_node_memcg_used_bp(struct msim *m,
							 const struct msim_damos_quota_goal *goal);
MSIM_API unsigned long msim_damos_get_node_memcg_used_bp_info(
	struct msim *m, const struct msim_damos_quota_goal *goal, struct msim_damos_read_info *info);

/* kernel: si_meminfo_node(nid).totalram: the node's managed pages (0 for a bad nid). */
MSIM_API unsigned long msim_damon_node_totalram(struct msim *m, int nid);

/* kernel: damos_set_quota_goal_current_value(): evaluate one goal (USER_INPUT: as set). */
MSIM_API void msim_damos_set_quota_goal_current_value(struct msim *m,
						      struct msim_damos_quota_goal *goal);

/*
 * kernel: damos_quota_score(): evaluate every goal, return the highest
 * mult_frac(current, 10000, target) (the least aggressive).
 */
MSIM_API unsigned long msim_damos_quota_score(struct msim *m, struct msim_damos_quota *q);

/*
 * kernel: damon_feed_loop_next_input(last_input, score): the next input of a
 * proportional controller whose target score is 10000, at least 10000.
 */
MSIM_API unsigned long msim_damon_feed_loop_next_input(unsigned long last_input,
						       unsigned long score);

/*
 * kernel: damos_set_effective_quota(): esz from the goals (by the tuner), capped
 * by sz; without goals esz = sz. (No time quota: the throughput part is left out.)
 */
MSIM_API void msim_damos_set_effective_quota(struct msim *m, struct msim_damos_quota *q);

/*
 * kernel: damos_adjust_quota(): on the first call, or once reset_interval_ms has
 * passed since the window began, close the window (qt_exceeds, total_charged_sz),
 * open a new one at now and re-tune esz. Returns true if it re-tuned.
 */
MSIM_API bool msim_damos_adjust_quota(struct msim *m, struct msim_damos_quota *q);

/*
 * The quota part of damos_apply_scheme(): how much of want bytes the window still
 * allows (all of it when esz is 0, the kernel's "no quota"), charged to it.
 */
MSIM_API unsigned long msim_damos_quota_charge(struct msim_damos_quota *q, unsigned long want);

/*
 * A DAMOS scheme applied on the virtual clock (the kdamond's loop, reduced to its
 * quota): every apply_interval_ms a delayed work adjusts the quota and calls
 * action with the bytes the window still allows; what action returns is charged.
 * DAMON's access monitoring (regions, nr_accesses) is not modelled: the action
 * decides what it applies to.
 */
struct msim_damos {
	struct msim_damos_quota quota;
	unsigned long apply_interval_ms;  /* 0: 100 (the kernel's default aggregation interval) */
	unsigned long (*action)(struct msim_damos *s, unsigned long budget, void *arg);
	void *action_arg;
	/* private */
	struct msim *m;
	struct msim_delayed_work work;
	bool running;
	unsigned long nr_applies, sz_applied;
};

/* Start / stop the scheme's work on m (the driver; the work runs on msim_clock_advance). */
MSIM_API int msim_damos_start(struct msim *m, struct msim_damos *s);
MSIM_API void msim_damos_stop(struct msim_damos *s);
/*
 * One pass of the work by hand, on a started scheme: adjust the quota, apply.
 * Returns the bytes applied (0 for a scheme never started).
 */
MSIM_API unsigned long msim_damos_apply(struct msim_damos *s);

/* Counts over the host's goal reads. */
struct msim_damon_counts {
	unsigned long reads, lookups_failed, trygets_failed, flushes_called, flushes_done;
	unsigned long use_after_free, use_after_release;
};
MSIM_API void msim_damon_counts(struct msim *m, struct msim_damon_counts *out);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_DAMON_H */
