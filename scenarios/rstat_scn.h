/* SPDX-License-Identifier: MIT */
/*
 * rstat_scn.h - helpers shared by the rstat race scenarios
 * (scenarios/rstat_*.c, dying_redirect_reparent.c).
 */
#ifndef MSIM_RSTAT_SCN_H
#define MSIM_RSTAT_SCN_H

#include <memcgsim/introspect.h>

#include "scn.h"

/*
 * rstat on m with the periodic flush off: a scenario's flushes are its own tasks'
 * (or the driver's), never the worker's at a virtual-time tick.
 */
static inline int rstat_scn_init(struct msim *m)
{
	int ret = msim_rstat_init(m, NULL);

	if (!ret)
		msim_rstat_periodic_flush_enable(m, false);
	return ret;
}

/*
 * Target teardown for a scenario whose state is one calloc'd struct: only the
 * struct is freed; the memcgs and tasks it points to go with the host.
 */
static inline void rstat_scn_teardown(struct msim *m, void *state)
{
	free(state);
}

/*
 * The node's per-CPU stat threshold on a host of cfg under node-stat=percpu
 * (calculate_normal_threshold() of its largest populated zone, as
 * refresh_zone_stat_thresholds() sets it). A CPU's last update that leaves its
 * diff at or below it stays out of node_page_state() until a fold: the
 * sub-threshold tail a percpu side of a race ends its updates with.
 */
static inline int rstat_scn_node_stat_threshold(const struct msim_config *cfg)
{
	int t = 0;

	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
		int zt = cfg->zone_managed_pages[z] ?
			msim_vmstat_calculate_normal_threshold(cfg->nr_cpus,
							       cfg->zone_managed_pages[z]) : 0;

		t = zt > t ? zt : t;
	}
	return t;
}

/*
 * Whether an update that ends with tail pages (a side's arg; NULL: one update, no
 * tail) leaves the tail out of the node counters: node-stat=percpu and a tail at
 * or below the threshold.
 */
static inline bool rstat_scn_node_tail_unfolded(const struct msim_config *cfg, const void *arg)
{
	long tail = arg ? *(const long *)arg : 0;

	return msim_variant_value(&cfg->variants, "node-stat") == MSIM_NODE_STAT_PERCPU &&
	       tail > 0 && tail <= rstat_scn_node_stat_threshold(cfg);
}

/* rstat_scn_init, then the tree root -> p -> c. */
static inline int rstat_scn_tree(struct msim *m, struct msim_memcg **root,
				 struct msim_memcg **p, struct msim_memcg **c)
{
	int ret = rstat_scn_init(m);

	if (ret)
		return ret;
	*root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(*root, "p", p)))
		return ret;
	return msim_memcg_create(*p, "c", c);
}

/*
 * Put line first in rep's notes: the first note is the run's one-line "why",
 * known only once the narrative has been written.
 */
static inline void rstat_scn_prepend_line(struct msim_race_report *rep, const char *line)
{
	size_t n = strlen(line), have = strlen(rep->notes);

	if (n + 1 + have + 1 > sizeof(rep->notes))
		have = sizeof(rep->notes) - n - 2;
	memmove(rep->notes + n + 1, rep->notes, have);
	memcpy(rep->notes, line, n);
	rep->notes[n] = '\n';
	rep->notes[n + 1 + have] = '\0';
}

/* The trace export's readers of one memcg (msim_race_trace_counter). */
static inline long rstat_scn_read_stats_updates(void *memcg)
{
	return msim_memcg_stats_updates(memcg);
}

static inline long rstat_scn_read_unflushed(void *memcg)
{
	return msim_memcg_unflushed(memcg);
}

/*
 * Declare memcg's atomic stats_updates and its subtree's unflushed pages as
 * counter tracks of a trace ("leaf stats_updates", "leaf unflushed pages"); a
 * no-op outside msim_race_trace.
 */
static inline void rstat_scn_trace_memcg(struct msim *m, struct msim_memcg *memcg)
{
	const char *who = msim_parent_mem_cgroup(memcg) ? msim_memcg_name(memcg) : "root";
	char name[64];

	snprintf(name, sizeof(name), "%s stats_updates", who);
	msim_race_trace_counter(m, name, rstat_scn_read_stats_updates, memcg);
	snprintf(name, sizeof(name), "%s unflushed pages", who);
	msim_race_trace_counter(m, name, rstat_scn_read_unflushed, memcg);
}

#endif
