/* SPDX-License-Identifier: MIT */
/*
 * goal.c - the memcg quota goal reader (kernel: mm/damon/core.c
 * damos_get_node_memcg_used_bp(), docs/damon.md; thread 002 patch 4 under
 * damon-root-read=node; the December 2025 fix "mm/damon/core: get memcg reference
 * before access" under damon-memcg-tryget=on, its absence under =off).
 *
 * Order of operations, as the kernel's: the node check, the id lookup inside
 * rcu_read_lock (and the tryget there), rcu_read_unlock, the flush, the four LRU
 * reads, the put, then the division by the node's RAM. The window the race
 * damon-memcg-lookup needs is the one between rcu_read_unlock and the flush; its
 * yield point is "damos.memcg_used_bp.use". See damon.h for the model's check
 * of a freed memcg on the tryget=off path and why it never reads freed memory.
 */
#include <errno.h>
#include <string.h>

#include <memcgsim/rcu.h>
#include <memcgsim/rstat.h>
#include <memcgsim/yield.h>

#include "damon_internal.h"

/* What a goal reads when its node or memcg is missing: the least aggressive value. */
static unsigned long missing_value(const struct msim_damos_quota_goal *goal)
{
	return goal->metric == MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP ? 0 : 10000;
}

/*
 * kernel: si_meminfo_node(nid).totalram, the node's managed pages. DMA and DMA32
 * belong to node 0 only (sim.h); a node without memory has 0, which the reader
 * treats as invalid_mem_node() (the kernel would divide by it: an open issue).
 */
unsigned long msim_damon_node_totalram(struct msim *m, int nid)
{
	const struct msim_config *cfg = m ? msim_config(m) : NULL;
	unsigned long sum = 0;

	if (!cfg || nid < 0 || (unsigned int)nid >= cfg->nr_nodes)
		return 0;
	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
		if (nid && (z == MSIM_ZONE_DMA || z == MSIM_ZONE_DMA32))
			continue;
		sum += cfg->zone_managed_pages[z];
	}
	return sum;
}

static const enum msim_stat_item lru_items[] = {
	MSIM_NR_ACTIVE_ANON, MSIM_NR_INACTIVE_ANON, MSIM_NR_ACTIVE_FILE, MSIM_NR_INACTIVE_FILE,
};

/*
 * The four LRU sizes of (memcg, nid). Patch 4 on root reads the node counters:
 * through lruvec_page_state() when patch 2 (root-lruvec-read=node) makes it read
 * them, as v2 of the series does; otherwise directly, as v1's helper did. The
 * four LRU items are not among patch 2's exclusions, so both give one value.
 */
static unsigned long lru_pages(struct msim *m, const struct msim__damon *d,
			       struct msim_memcg *memcg, int nid, bool node_read)
{
	struct msim_lruvec *lruvec = msim_mem_cgroup_lruvec(m, memcg, (unsigned int)nid);
	bool via_lruvec = !node_read || d->root_lruvec_node;
	unsigned long used = 0;

	for (size_t i = 0; i < sizeof(lru_items) / sizeof(lru_items[0]); i++)
		used += via_lruvec ? msim_lruvec_page_state(lruvec, lru_items[i]) :
				     msim_node_page_state(m, (unsigned int)nid, lru_items[i]);
	return used;
}

/* The use: flush (not for root under patch 4), then the LRU reads. */
static void use_memcg(struct msim *m, struct msim__damon *d, struct msim_memcg *memcg,
		      const struct msim_damos_quota_goal *goal, struct msim_damos_read_info *info)
{
	bool node_read;

	info->root = msim_mem_cgroup_is_root(memcg);
	node_read = info->root && d->root_read_node;
	if (!node_read) {
		info->flush_called = true;
		MSIM__DAMON_COUNT(d, flushes_called);
		info->flushed = msim_mem_cgroup_flush_stats(memcg);
		if (info->flushed)
			MSIM__DAMON_COUNT(d, flushes_done);
	}
	info->used_pages = lru_pages(m, d, memcg, goal->nid, node_read);
}

/*
 * damon-memcg-tryget=off after rcu_read_unlock: nothing holds memcg. The
 * model's guard section and the watch check come first (damon.h); a freed or
 * released memcg is counted and not read.
 */
static void use_unpinned(struct msim *m, struct msim__damon *d, struct msim_memcg *memcg,
			 int watch, const struct msim_damos_quota_goal *goal,
			 struct msim_damos_read_info *info)
{
	msim_rcu_read_lock();        /* the model's guard, not the kernel's */
	if (msim__damon_watch_freed(d, watch)) {
		info->use_after_free = true;
		info->state_at_use = MSIM_MEMCG_FREED;
		MSIM__DAMON_COUNT(d, use_after_free);
	} else {
		info->state_at_use = msim_memcg_state(memcg);
		/*
		 * Released: its free may be queued already, behind a grace period
		 * that began before this section, so it may land mid-use. Only a
		 * memcg not yet released is safe to read until the section ends.
		 */
		if (info->state_at_use >= MSIM_MEMCG_RELEASED) {
			info->use_after_release = true;
			MSIM__DAMON_COUNT(d, use_after_release);
		} else {
			use_memcg(m, d, memcg, goal, info);
		}
	}
	msim_rcu_read_unlock();
	msim__damon_watch_del(d, watch);
}

/*
 * The lookup and the use. Returns false when there is nothing to read (no memcg,
 * a failed tryget, or a memcg freed before its use).
 */
static bool read_memcg(struct msim *m, struct msim__damon *d,
		       const struct msim_damos_quota_goal *goal, struct msim_damos_read_info *info)
{
	bool tryget = d->tryget;
	struct msim_memcg *memcg;
	int watch = -1;

	msim_rcu_read_lock();
	memcg = msim_mem_cgroup_from_private_id(m, goal->memcg_id);
	info->found = memcg != NULL;
	/* No room for a watch: take the reference rather than read unchecked. */
	if (memcg && !tryget && (watch = msim__damon_watch_add(d, memcg)) < 0)
		tryget = true;
	if (memcg && tryget && !msim_css_tryget(memcg)) {
		info->tryget_failed = true;
		MSIM__DAMON_COUNT(d, trygets_failed);
		memcg = NULL;
	}
	msim_rcu_read_unlock();
	if (!memcg) {
		if (!info->found)
			MSIM__DAMON_COUNT(d, lookups_failed);
		return false;
	}
	/*
	 * Out of RCU, before the first use: the window of damon-memcg-lookup. The
	 * step after it touches nothing shared before a shim's point (tryget=off:
	 * the guard's rcu_read_lock; on: the flush's gate) but the memcg's state,
	 * which msim_memcg_state() notes (yield.h's contract).
	 */
	msim_yield_access("damos.memcg_used_bp.use", NULL, MSIM_ACCESS_NONE);
	if (!tryget) {
		use_unpinned(m, d, memcg, watch, goal, info);
		return !info->use_after_free && !info->use_after_release;
	}
	info->state_at_use = msim_memcg_state(memcg);
	use_memcg(m, d, memcg, goal, info);
	msim_css_put(memcg);         /* mem_cgroup_put() */
	return true;
}

unsigned long msim_damos_get_node_memcg_used_bp_info(struct msim *m,
						     const struct msim_damos_quota_goal *goal,
						     struct msim_damos_read_info *info)
{
	struct msim_damos_read_info scratch;
	struct msim__damon *d = msim__damon_of(m);
	unsigned long numerator;

	if (!info)
		info = &scratch;
	memset(info, 0, sizeof(*info));
	if (!d || !goal || (goal->metric != MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP &&
			    goal->metric != MSIM_DAMOS_QUOTA_NODE_MEMCG_FREE_BP))
		return 0;
	MSIM__DAMON_COUNT(d, reads);
	info->totalram = msim_damon_node_totalram(m, goal->nid);
	if (!info->totalram) {       /* invalid_mem_node() */
		info->invalid_node = true;
		return missing_value(goal);
	}
	if (!read_memcg(m, d, goal, info))
		return missing_value(goal);
	/* FREE: unsigned, as the kernel's: stale pages above totalram wrap (an open issue). */
	numerator = goal->metric == MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP ?
			    info->used_pages : info->totalram - info->used_pages;
	return msim__damon_mult_frac(numerator, 10000, info->totalram);
}

unsigned long msim_damos_get_node_memcg_used_bp(struct msim *m,
						const struct msim_damos_quota_goal *goal)
{
	return msim_damos_get_node_memcg_used_bp_info(m, goal, NULL);
}

/* kernel: damos_set_quota_goal_current_value() for the modelled metrics. */
void msim_damos_set_quota_goal_current_value(struct msim *m, struct msim_damos_quota_goal *goal)
{
	if (!goal)
		return;
	switch (goal->metric) {
	case MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP:
	case MSIM_DAMOS_QUOTA_NODE_MEMCG_FREE_BP:
		goal->current_value = msim_damos_get_node_memcg_used_bp(m, goal);
		break;
	default:                     /* USER_INPUT: the user wrote current_value */
		break;
	}
}
