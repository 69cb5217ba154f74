/* SPDX-License-Identifier: MIT */
/*
 * flush_entry.c - the flush entry points: each finds the stats of its memcg (or
 * of its host's root, for a NULL memcg) and calls flush.c.
 *
 * kernel: mm/memcontrol.c mem_cgroup_flush_stats(), mem_cgroup_flush_stats_ratelimited(),
 * css_rstat_flush() (kernel/cgroup/rstat.c), flush_memcg_stats_dwork(), the
 * periodic flush switch and flush_last_time.
 *
 * They sit above attach.c: the lookup reads the subsystem attach.c defines,
 * and attach.c calls flush.c, never this file. On a host without rstat every
 * flush does nothing and returns false.
 */
#include <stdint.h>

#include "rstat_internal.h"

static struct msim__memcg_stats *target_of(struct msim_memcg *memcg)
{
	if (!memcg) {
		struct msim__rstat *rs = msim__rstat_peek(msim_current_host());

		return rs ? rs->root_ms : NULL;
	}
	return msim__memcg_stats(memcg);
}

bool msim_do_mem_cgroup_flush_stats(struct msim_memcg *memcg, bool force)
{
	struct msim__memcg_stats *ms = target_of(memcg);

	return ms ? msim__flush_stats(ms, force) : false;
}

bool msim_mem_cgroup_flush_stats(struct msim_memcg *memcg)
{
	return msim_do_mem_cgroup_flush_stats(memcg, false);
}

bool msim_mem_cgroup_flush_stats_forced(struct msim_memcg *memcg)
{
	return msim_do_mem_cgroup_flush_stats(memcg, true);
}

bool msim_mem_cgroup_flush_stats_ratelimited(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = target_of(memcg);

	return ms ? msim__flush_stats_ratelimited(ms) : false;
}

/* kernel: css_rstat_flush(): unconditional, no flush_last_time update. */
void msim_css_rstat_flush(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = target_of(memcg);

	if (ms)
		msim__memcg_stats_flush(ms);
}

void msim_flush_memcg_stats_dwork(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (rs)
		msim__rstat_dwork_run(rs);
}

void msim_rstat_periodic_flush_enable(struct msim *m, bool on)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (rs)
		msim__rstat_periodic_flush(rs, on);
}

uint64_t msim_rstat_flush_last_time(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	return rs ? (uint64_t)msim_quiet_load(&rs->flush_last_time, MSIM_RELAXED) : 0;
}
