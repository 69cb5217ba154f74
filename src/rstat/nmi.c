/* SPDX-License-Identifier: MIT */
/*
 * nmi.c - memcg stats written in NMI (variant nmi-stats=atomic): the NMI-safe
 * write entry points, what they stage, and the drain.
 *
 * kernel: mm/memcontrol.c account_kmem_nmi_safe(), account_slab_nmi_safe():
 * outside NMI, or where this_cpu ops are NMI-safe (nmi-stats=percpu), they are
 * the ordinary write paths. In NMI under nmi-stats=atomic: the rstat enqueue of
 * the memcg on this CPU (css_rstat_updated: the lnode claim decides among the
 * contexts stacked on the CPU), then atomic_add into the staging atomic, in that
 * order (R10). memcg_rstat_updated is not called: an NMI's update counts nothing
 * towards the flush threshold. No dying redirect on the NMI path.
 *
 * kernel: mm/memcontrol.c flush_nmi_stats(), called first in
 * mem_cgroup_css_rstat_flush() for each (memcg, cpu) the flush visits. Where
 * this_cpu ops are not NMI-safe, an NMI that allocates slab or charges kmem
 * enqueues the memcg's css on its CPU's rstat list and adds to per-memcg
 * (MEMCG_KMEM) and per-node (slab) atomics instead of the per-CPU counters.
 * The first flush visit after that takes the atomics whole
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
#include <errno.h>

#include <memcgsim/irq.h>
#include <memcgsim/introspect/rstat.h>

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
	const struct msim__rstat_variants *v = &ms->rs->v;
	const bool local = v->nmi_drain_local;
	const bool to_vmstats = v->nmi_drain_vmstats;
	struct msim__vmstats *vs = ms->vmstats, *pvs = ms->parent ? ms->parent->vmstats : NULL;
	long x;

	if (!v->nmi_atomic)
		return;
	x = msim_atomic_long_xchg_at(&ms->nmi_kmem, 0, "rstat.flush.nmi_drain");
	if (x)
		fold_staged(vs->state, local ? vs->state_local : NULL,
			    pvs ? pvs->state_pending : NULL, MSIM_MEMCG_KMEM, x);
	for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++)
		drain_slab(ms, nid, local, to_vmstats);
}

/* ---- the NMI-safe write entry points, and what they stage for the drain above ---- */

static bool nmi_staged(const struct msim__memcg_stats *ms)
{
	return msim_in_nmi() && ms->rs->v.nmi_atomic;
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
