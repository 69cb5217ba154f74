/* SPDX-License-Identifier: MIT */
/*
 * nmi_entry.c - the NMI-safe stat write entry points (variant nmi-stats) and
 * what is staged for the drain (nmi.c).
 *
 * kernel: mm/memcontrol.c account_kmem_nmi_safe(), account_slab_nmi_safe().
 * Outside NMI, or where this_cpu ops are NMI-safe (nmi-stats=percpu), they are
 * the ordinary write paths. In NMI under nmi-stats=atomic: the rstat enqueue of
 * the memcg on this CPU (css_rstat_updated: the lnode claim decides among the
 * contexts stacked on the CPU), then atomic_add into the staging atomic, in that
 * order (R10). memcg_rstat_updated is not called: an NMI's update counts nothing
 * towards the flush threshold. No dying redirect on the NMI path.
 */
#include <errno.h>

#include <memcgsim/irq.h>

#include "rstat_internal.h"

static bool nmi_staged(const struct msim__memcg_stats *ms)
{
	return msim_in_nmi() &&
	       msim_config(ms->rs->m)->variants.nmi_stats == MSIM_NMI_STATS_ATOMIC;
}

int msim_account_kmem_nmi_safe(struct msim_memcg *memcg, long val)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms)
		return -EINVAL;
	if (!nmi_staged(ms))
		return msim_mod_memcg_state(memcg, MSIM_MEMCG_KMEM, val);
	/* preemption is off in NMI: this CPU stays this CPU */
	msim__css_rstat_updated(&ms->css, msim_this_cpu());
	msim_atomic_long_add_at(&ms->nmi_kmem, val, "rstat.nmi.atomic_add");
	return 0;
}

int msim_account_slab_nmi_safe(struct msim_memcg *memcg, unsigned int nid,
			       enum msim_stat_item idx, long val)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || nid >= ms->rs->nr_nodes ||
	    (idx != MSIM_NR_SLAB_RECLAIMABLE_B && idx != MSIM_NR_SLAB_UNRECLAIMABLE_B))
		return -EINVAL;
	if (!nmi_staged(ms))
		return msim_mod_memcg_lruvec_state(&ms->lruvec[nid], idx, val);
	msim__css_rstat_updated(&ms->css, msim_this_cpu());
	msim_atomic_long_add_at(&ms->lruvec[nid].nmi_slab[idx == MSIM_NR_SLAB_UNRECLAIMABLE_B], val,
				"rstat.nmi.atomic_add");
	return 0;
}

long msim_memcg_nmi_staged(struct msim_memcg *memcg, unsigned int nid, enum msim_stat_item idx)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || nid >= ms->rs->nr_nodes)
		return 0;
	/* introspection (race checks, tests): no yield */
	if (idx == MSIM_MEMCG_KMEM)
		return msim_quiet_load(&ms->nmi_kmem.counter, MSIM_RELAXED);
	if (idx == MSIM_NR_SLAB_RECLAIMABLE_B || idx == MSIM_NR_SLAB_UNRECLAIMABLE_B)
		return msim_quiet_load(&ms->lruvec[nid].nmi_slab[idx == MSIM_NR_SLAB_UNRECLAIMABLE_B]
					       .counter, MSIM_RELAXED);
	return 0;
}

int msim_rstat_updated_list_len(struct msim *m, unsigned int cpu)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (!rs || cpu >= rs->nr_cpus)
		return -EINVAL;
	/* more nodes than memcgs ever made would mean a loop; a bound well above that */
	return msim__rstat_llist_len(&rs->ss, cpu, 1 << 20);
}
