/* SPDX-License-Identifier: MIT */
/*
 * report_threads.c - the threads `memcgsim report` has a section for, and what
 * each claims (summarised from reference/threads/; the figures the benches
 * compare with are in the benches' own verdict tables, not here).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

const struct report_thread report_threads[] = {
	{ "000", "workingset shadow-node budget under MGLRU",
	  "count_shadow_nodes() reads lru_zone_size, which MGLRU never maintains, so the "
	  "shadow shrinker reclaims eviction tokens almost as fast as they are made. Patch 1 "
	  "reads lruvec_page_state_local() again; patch 2 extends the dying-memcg stat "
	  "redirection to cgroup v2 (closing the reparenting race that motivated the old "
	  "change); patch 3 takes the RCU lock only on the dying path. Its anon-churn medians "
	  "say the series costs under 1.5% of fault throughput.",
	  "000-workingset-shadow-budget-mglru.txt" },
	{ "001", "per-memcg shrinker units in an xarray, allocated on demand",
	  "Every memcg allocates, per node, one shrinker_info_unit per 64 shrinker ids up to "
	  "shrinker_nr_max, used or not, so a host with many mounts pays for every superblock "
	  "in every cgroup. Keeping the units in an xarray and allocating a unit only when a "
	  "cgroup first gets a list on that shrinker makes an empty cgroup nearly free; the "
	  "thread's tables give slab per empty cgroup per layout, and shrink, mount and "
	  "drop_caches costs.",
	  "001-shrinker-units-xarray-on-demand.txt" },
	{ "002", "root memcg stats from node counters instead of flushing",
	  "Flushing the root memcg flushes every cgroup: on 80 CPUs 69 us with little activity "
	  "and ~0.9 ms with 128 memcgs allocating; ratelimited flushes can leave stats stale "
	  "for seconds. For the root, the node counters are \"always up to date\" and equal the "
	  "hierarchical value, so reclaim, refault, zswap and DAMON can read them instead.",
	  "002-root-memcg-stats-from-node-counters.txt" },
	{ "004", "memcg: keep propagating stats updates to ancestors",
	  "memcg_rstat_updated() stops walking the ancestors at a memcg above the flush "
	  "threshold; a concurrent flush can leave an ancestor at the threshold, which the "
	  "early exit then never raises, so root stays stale until the periodic flush (at "
	  "1 GiB/s, about 2 GiB below actual after a two-second wait). Continuing the walk "
	  "costs about 2% of update throughput.",
	  "004-rstat-keep-propagating-to-ancestors.txt" },
	{ REPORT_OTHER, "the model's own benches, reference windows and toys",
	  "Not a thread's claim: the explorer's and scheduler's speed, the model's memory at "
	  "scale, and races that show a kernel window of the reference (R1-R10, S1-S6) or the "
	  "machinery itself.",
	  NULL },
	{ NULL },
};

void report_thread_of(const char *label, char *id, size_t len)
{
	for (const char *p = label; p && *p; p++) {
		if (isdigit((unsigned char)p[0]) && isdigit((unsigned char)p[1]) &&
		    isdigit((unsigned char)p[2]) && !isdigit((unsigned char)p[3]) &&
		    (p == label || !isalnum((unsigned char)p[-1]))) {
			snprintf(id, len, "%.3s", p);
			return;
		}
	}
	snprintf(id, len, "%s", REPORT_OTHER);
}
