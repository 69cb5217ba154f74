/* SPDX-License-Identifier: MIT */
/*
 * write_entry.c - the stat write entry points: each finds the stats of its
 * memcg (the dying redirect first, where the variant asks) or its host's node
 * counters, and writes through write.c.
 *
 * kernel: mm/memcontrol.c mod_memcg_state(), mod_memcg_lruvec_state(),
 * mod_lruvec_state(), lruvec_stat_mod_folio(), count_memcg_events(),
 * mem_cgroup_lruvec(), reparent_state_local(); mm/vmstat.c mod_node_page_state().
 *
 * They sit above attach.c: the lookups read the subsystem attach.c defines, and
 * attach.c reaches write.c (through reparent.c), never this file. On a host
 * without rstat every write returns -EINVAL and mem_cgroup_lruvec NULL.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rstat_internal.h"

static bool bad_item(enum msim_stat_item idx)
{
	return (unsigned int)idx >= MSIM_MEMCG_NR_STAT;
}

void msim_memcg_rstat_updated(struct msim_memcg *memcg, long val, unsigned int cpu)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || cpu >= ms->rs->nr_cpus)
		return;
	msim__memcg_rstat_updated(ms, val, cpu, NULL);
}

void msim_css_rstat_updated(struct msim_memcg *memcg, unsigned int cpu)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (ms && cpu < ms->rs->nr_cpus)
		msim__css_rstat_updated(&ms->css, cpu, NULL);
}

int msim_mod_memcg_state_no_redirect(struct msim_memcg *memcg, enum msim_stat_item idx, long val)
{
	struct msim__memcg_stats *ms;

	if (bad_item(idx) || !(ms = msim__memcg_stats(memcg)))
		return -EINVAL;
	return msim__mod_memcg_state(ms, idx, val);
}

/* kernel: mod_memcg_state(): the dying redirect, then __mod_memcg_state(). */
int msim_mod_memcg_state(struct msim_memcg *memcg, enum msim_stat_item idx, long val)
{
	struct msim_memcg *target;
	struct msim__memcg_stats *ms;
	bool locked;
	int ret = -EINVAL;

	if (bad_item(idx) || !msim__memcg_stats(memcg))
		return -EINVAL;
	target = msim_get_non_dying_memcg_start(memcg, &locked);
	ms = msim__memcg_stats(target);
	if (ms)
		ret = msim__mod_memcg_state(ms, idx, val);
	msim_get_non_dying_memcg_end(locked);
	return ret;
}

/* kernel: mod_memcg_lruvec_state(): the dying redirect, pn re-derived for the target. */
int msim_mod_memcg_lruvec_state(struct msim_lruvec *lruvec, enum msim_stat_item idx, long val)
{
	struct msim_memcg *target;
	struct msim__memcg_stats *ms;
	bool locked;
	int ret = -EINVAL;

	if (!lruvec || !lruvec->ms || !msim_stat_item_is_node(idx) || !lruvec->ms->memcg)
		return -EINVAL;
	target = msim_get_non_dying_memcg_start(lruvec->ms->memcg, &locked);
	ms = msim__memcg_stats(target);
	if (ms)
		ret = msim__mod_memcg_lruvec_state(ms, lruvec->nid, idx, val);
	msim_get_non_dying_memcg_end(locked);
	return ret;
}

/*
 * kernel: mod_node_page_state(). Simplification: one exact atomic counter per
 * (node, item) instead of vmstat's per-CPU diffs with thresholds, so node reads
 * are exact (the kernel's can lag by the per-CPU thresholds).
 */
int msim_mod_node_page_state(struct msim *m, unsigned int nid, enum msim_stat_item idx, long val)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (!rs || nid >= rs->nr_nodes || !msim_stat_item_is_node(idx))
		return -EINVAL;
	msim_fetch_add_at(&rs->node_stat[(size_t)nid * MSIM__NN + idx], val, MSIM_RELAXED,
			  "rstat.node_stat");
	return 0;
}

/* kernel: mod_lruvec_state(): the node counter always, the memcg part if any. */
int msim_mod_lruvec_state(struct msim_lruvec *lruvec, enum msim_stat_item idx, long val)
{
	int ret;

	if (!lruvec || !msim_stat_item_is_node(idx))
		return -EINVAL;
	ret = msim_mod_node_page_state(lruvec->host, lruvec->nid, idx, val);
	if (ret || !lruvec->ms)
		return ret;
	return msim_mod_memcg_lruvec_state(lruvec, idx, val);
}

/* kernel: lruvec_stat_mod_folio(): under RCU; no memcg means the node only. */
int msim_lruvec_stat_mod_page(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
			      enum msim_stat_item idx, long val)
{
	struct msim_lruvec *lruvec;
	int ret;

	if (!m || nid >= msim_nr_nodes(m) || !msim_stat_item_is_node(idx))
		return -EINVAL;
	msim_rcu_read_lock();
	lruvec = msim_mem_cgroup_lruvec(m, memcg, nid);
	ret = lruvec ? msim_mod_lruvec_state(lruvec, idx, val) : -EINVAL;
	msim_rcu_read_unlock();
	return ret;
}

/* kernel: count_memcg_events(): no unit conversion, no dying redirect. */
int msim_count_memcg_events(struct msim_memcg *memcg, enum msim_memcg_event ev, long count)
{
	struct msim__memcg_stats *ms;

	if ((unsigned int)ev >= MSIM_NR_MEMCG_EVENTS || !(ms = msim__memcg_stats(memcg)))
		return -EINVAL;
	return msim__count_memcg_events(ms, ev, count);
}

/* kernel: mem_cgroup_lruvec(memcg, pgdat). */
struct msim_lruvec *msim_mem_cgroup_lruvec(struct msim *m, struct msim_memcg *memcg,
					   unsigned int nid)
{
	struct msim__rstat *rs = msim__rstat_peek(m);
	struct msim__memcg_stats *ms;

	if (!rs || nid >= rs->nr_nodes)
		return NULL;
	if (!memcg)
		return &rs->node_lruvec[nid];
	ms = msim__memcg_stats(memcg);
	return ms ? &ms->lruvec[nid] : NULL;
}

void msim_memcg_reparent_state_local(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (ms)
		msim__reparent_state_local(ms);
}
