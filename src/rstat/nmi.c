/* SPDX-License-Identifier: MIT */
/*
 * nmi.c - the drain of memcg stats staged in NMI (variant nmi-stats=atomic).
 *
 * kernel: mm/memcontrol.c flush_nmi_stats(), called first in
 * mem_cgroup_css_rstat_flush() for each (memcg, cpu) the flush visits. Where
 * this_cpu ops are not NMI-safe, an NMI that allocates slab or charges kmem
 * enqueues the memcg's css on its CPU's rstat list and adds to per-memcg
 * (MEMCG_KMEM) and per-node (slab) atomics instead of the per-CPU counters
 * (nmi_entry.c). The first flush visit after that takes the atomics whole
 * (atomic_xchg) and adds them where the fold would have put per-CPU deltas: the
 * aggregate, the parent's pending and, since the first 2026 fix, state_local;
 * for slab, which the ordinary path writes at both the lruvec and the memcg
 * level (__mod_memcg_lruvec_state), the memcg-level vmstats too since the second.
 * The variants nmi-drain-local and nmi-drain-vmstats switch each fix off.
 *
 * Window R10: the NMI enqueues before it adds, so a flush that pops the css in
 * between drains nothing and the delta stays staged until a later update of the
 * memcg enqueues it again (docs/races.md).
 */
#include "rstat_internal.h"

/* One staged delta x of item idx into an aggregate, its local and the parent's pending. */
static void fold_staged(long *state, long *local, long *ppending, enum msim_stat_item idx,
			long x)
{
	/* under rstat_ss_lock: the flusher's own words, as stat_aggregate() writes them */
	msim_quiet_store(&state[idx], msim_quiet_load(&state[idx], MSIM_RELAXED) + x,
			 MSIM_RELAXED);
	if (local)
		msim_quiet_store(&local[idx], msim_quiet_load(&local[idx], MSIM_RELAXED) + x,
				 MSIM_RELAXED);
	if (ppending)
		ppending[idx] += x;
}

static void drain_slab(struct msim__memcg_stats *ms, unsigned int nid, bool local,
		       bool to_vmstats)
{
	static const enum msim_stat_item items[2] = { MSIM_NR_SLAB_RECLAIMABLE_B,
						      MSIM_NR_SLAB_UNRECLAIMABLE_B };
	struct msim_lruvec *lv = &ms->lruvec[nid];
	struct msim_lruvec *plv = ms->parent ? &ms->parent->lruvec[nid] : NULL;
	struct msim__vmstats *vs = ms->vmstats, *pvs = ms->parent ? ms->parent->vmstats : NULL;

	for (int k = 0; k < 2; k++) {
		long x = msim_atomic_long_xchg_at(&lv->nmi_slab[k], 0, "rstat.flush.nmi_drain");

		if (!x)
			continue;
		fold_staged(lv->state, local ? lv->state_local : NULL,
			    plv ? plv->state_pending : NULL, items[k], x);
		if (to_vmstats)
			fold_staged(vs->state, local ? vs->state_local : NULL,
				    pvs ? pvs->state_pending : NULL, items[k], x);
	}
}

/* kernel: flush_nmi_stats(memcg, parent, cpu). Under rstat_ss_lock. */
void msim__flush_nmi_stats(struct msim__memcg_stats *ms)
{
	const struct msim_variants *v = &msim_config(ms->rs->m)->variants;
	const bool local = v->nmi_drain_local == MSIM_ON;
	const bool to_vmstats = v->nmi_drain_vmstats == MSIM_ON;
	struct msim__vmstats *vs = ms->vmstats, *pvs = ms->parent ? ms->parent->vmstats : NULL;
	long x;

	if (v->nmi_stats != MSIM_NMI_STATS_ATOMIC)
		return;
	x = msim_atomic_long_xchg_at(&ms->nmi_kmem, 0, "rstat.flush.nmi_drain");
	if (x)
		fold_staged(vs->state, local ? vs->state_local : NULL,
			    pvs ? pvs->state_pending : NULL, MSIM_MEMCG_KMEM, x);
	for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++)
		drain_slab(ms, nid, local, to_vmstats);
}
