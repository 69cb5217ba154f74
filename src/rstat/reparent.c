/* SPDX-License-Identifier: MIT */
/*
 * reparent.c - the reparenting of a dying memcg's local stats at offline, and
 * the css_offline hook set that runs it.
 *
 * kernel: mm/memcontrol.c reparent_state_local() (from mem_cgroup_css_offline
 * step 5, cgroup v1 only); thread 000 patch 2 (all hierarchies), as variant
 * dying-redirect. Why the redirect (dying.c) and this move must pair up, and
 * where they do not (patch 3), is told at the top of dying.c.
 *
 * It writes through write.c's non-redirecting __mod_* paths. attach.c registers
 * the hook set with the host's state as its priv; the entry point
 * msim_memcg_reparent_state_local() is write.c's.
 */
#include <stdint.h>

#include "rstat_internal.h"

/*
 * Move one lruvec's local value with paired __mod_memcg_lruvec_state calls. The
 * read needs no yield of its own: the __mod_ calls around it are the windows.
 * For DPOR it is noted in whichever step makes it (the one resumed from
 * rstat.reparent.local, or from the last point of the previous __mod_ call) as
 * a load of the whole array: one entry per step, however many items it reads.
 */
static void move_lruvec_local(struct msim__memcg_stats *ms, struct msim__memcg_stats *pms,
			      unsigned int nid, long *moved_memcg_level)
{
	for (unsigned int i = 0; i < MSIM__NN; i++) {
		msim_access_note(ms->lruvec[nid].state_local, sizeof(ms->lruvec[nid].state_local),
				 MSIM_ACCESS_LOAD);
		long v = msim_quiet_load(&ms->lruvec[nid].state_local[i], MSIM_RELAXED);

		if (!v)
			continue;
		msim__mod_memcg_lruvec_state(ms, nid, i, -v);
		msim__mod_memcg_lruvec_state(pms, nid, i, v);
		moved_memcg_level[i] += v;
	}
}

/*
 * kernel: reparent_state_local(): forced flush of the child; move its local
 * memcg and lruvec stats to the parent with paired, non-redirecting __mod_*
 * updates (-v on the child, +v on the parent); forced flush of the parent.
 * Simplification: every stat item moves (the kernel moves the v1 list), raw
 * values are moved (the kernel reads the clamped local value), and memcg-level
 * node items not covered by the per-node values move as a memcg-level residue.
 *
 * Every memcg-level local value is read once, before the first move: the moves
 * are per-CPU writes to the child that any concurrent flush (another task's root
 * flush) may fold into its local values at once, so a value read after the
 * lruvec moves could already include them and the residue would move them twice
 * (found by the concurrent stress test under cgroup v1).
 */
void msim__reparent_state_local(struct msim__memcg_stats *ms)
{
	struct msim__memcg_stats *pms = ms->parent;
	long moved[MSIM__NS] = { 0 }, local[MSIM__NS];

	if (!pms)
		return;
	msim__flush_stats(ms, true);
	/* the step loads the memcg-level local values (noted), then the first lruvec's */
	msim_yield_access("rstat.reparent.local", NULL, MSIM_ACCESS_NONE);
	msim_access_note(ms->vmstats->state_local, sizeof(ms->vmstats->state_local),
			 MSIM_ACCESS_LOAD);
	for (unsigned int i = 0; i < MSIM__NS; i++)    /* the point above stands for them all */
		local[i] = msim_quiet_load(&ms->vmstats->state_local[i], MSIM_RELAXED);
	for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++)
		move_lruvec_local(ms, pms, nid, moved);
	for (unsigned int i = 0; i < MSIM__NS; i++) {
		long v = local[i] - moved[i];

		if (!v)
			continue;
		msim__mod_memcg_state(ms, i, -v);
		msim__mod_memcg_state(pms, i, v);
	}
	msim__flush_stats(pms, true);
	MSIM__CTR(ms->rs, reparents);
}

/* css_offline hook: right after memcg_reparent_objcgs (lifecycle.c), as the kernel's offline. */
static void rstat_css_offline(struct msim_memcg *memcg, void *priv)
{
	struct msim__rstat *rs = priv;
	struct msim__memcg_stats *ms;

	if (rs->detached || !msim__dying_redirect_active(msim_config(rs->m)))
		return;
	ms = msim__stats_of(rs, memcg);
	if (ms)
		msim__reparent_state_local(ms);
}

/* kmem_stat hook: obj_cgroup_charge_pages()'s mod_memcg_state(memcg, MEMCG_KMEM, nr). */
static void rstat_kmem_stat(struct msim_memcg *memcg, long nr_pages, void *priv)
{
	struct msim__rstat *rs = priv;
	struct msim__memcg_stats *ms;

	if (rs->detached)
		return;
	ms = msim__stats_of(rs, memcg);
	if (ms)
		msim__mod_memcg_state(ms, MSIM_MEMCG_KMEM, nr_pages);
}

const struct msim_memcg_hooks msim__rstat_offline_hooks = {
	.name = "rstat-local-reparent",
	.css_offline = rstat_css_offline,
	.kmem_stat = rstat_kmem_stat,
};
