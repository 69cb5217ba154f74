/* SPDX-License-Identifier: MIT */
/*
 * dying.c - where stat updates to a dying memcg go, and the reparenting of
 * local stats at offline.
 *
 * kernel: mm/memcontrol.c get_non_dying_memcg_start() / _end() (newest: cgroup v1
 * only), reparent_state_local() (from mem_cgroup_css_offline step 5, v1 only);
 * thread 000 patch 2 (all hierarchies, RCU always taken) and patch 3 (the dying
 * test outside RCU, RCU only on the dying path), as variant dying-redirect.
 *
 * Why RCU: the dying flag is set one grace period before offline. An updater
 * that tests the flag inside an RCU section either finished before offline's
 * reparenting or saw the flag and went to the parent. Patch 3 tests the flag
 * outside the section: an updater that saw "not dying" and is then delayed (in
 * the kernel, preempted before get_cpu()) is not waited for, and its update can
 * land on the dying memcg after reparent_state_local moved its local stats:
 * scenario dying-redirect-reparent.
 */
#include <stdint.h>

#include "rstat_internal.h"

bool msim_rstat_dying_redirect_active(struct msim *m)
{
	const struct msim_config *cfg = msim_config(m);

	return cfg->variants.dying_redirect != MSIM_DYING_REDIRECT_V1 ||
	       cfg->cgroup_version == MSIM_CGROUP_V1;
}

static struct msim_memcg *walk_to_live(struct msim_memcg *memcg)
{
	struct msim_memcg *orig = memcg;

	/* memcg_is_dying() walk: the root never dies */
	while (msim_css_is_dying(memcg) && msim_parent_mem_cgroup(memcg))
		memcg = msim_parent_mem_cgroup(memcg);
	if (memcg != orig) {
		struct msim__rstat *rs = msim__rstat_peek(msim_memcg_host(memcg));

		if (rs)
			MSIM__CTR(rs, redirects);
	}
	return memcg;
}

struct msim_memcg *msim_get_non_dying_memcg_start(struct msim_memcg *memcg, bool *rcu_locked)
{
	struct msim *m = msim_memcg_host(memcg);

	*rcu_locked = false;
	if (!msim_rstat_dying_redirect_active(m)) {
		msim_yield("rstat.dying.checked");
		return memcg;
	}
	if (msim_config(m)->variants.dying_redirect == MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING &&
	    !msim_css_is_dying(memcg)) {
		/* patch 3: the common case takes no RCU; the window is here */
		msim_yield("rstat.dying.checked");
		return memcg;
	}
	msim_rcu_read_lock();
	*rcu_locked = true;
	memcg = walk_to_live(memcg);
	msim_yield("rstat.dying.checked");
	return memcg;
}

void msim_get_non_dying_memcg_end(bool rcu_locked)
{
	if (rcu_locked)
		msim_rcu_read_unlock();
}

/* Move one lruvec's local value with paired __mod_memcg_lruvec_state calls. */
static void move_lruvec_local(struct msim__memcg_stats *ms, struct msim__memcg_stats *pms,
			      unsigned int nid, long *moved_memcg_level)
{
	for (unsigned int i = 0; i < MSIM__NN; i++) {
		long v = MSIM__LD(&ms->lruvec[nid].state_local[i]);

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
void msim_memcg_reparent_state_local(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg), *pms;
	long moved[MSIM__NS] = { 0 }, local[MSIM__NS];

	if (!ms || !ms->parent)
		return;
	pms = ms->parent;
	msim_do_mem_cgroup_flush_stats(memcg, true);
	msim_yield("rstat.reparent.local");
	for (unsigned int i = 0; i < MSIM__NS; i++)
		local[i] = MSIM__LD(&ms->vmstats->state_local[i]);
	for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++)
		move_lruvec_local(ms, pms, nid, moved);
	for (unsigned int i = 0; i < MSIM__NS; i++) {
		long v = local[i] - moved[i];

		if (!v)
			continue;
		msim__mod_memcg_state(ms, i, -v);
		msim__mod_memcg_state(pms, i, v);
	}
	msim_do_mem_cgroup_flush_stats(msim_parent_mem_cgroup(memcg), true);
	MSIM__CTR(ms->rs, reparents);
}

/* css_offline hook (order MSIM_HOOK_ORDER_OBJCG_LRU, step 5 of the kernel's offline). */
void msim__rstat_offline(struct msim_memcg *memcg, void *priv)
{
	struct msim *m = msim_memcg_host(memcg);

	if (msim__rstat_peek(m) && msim_rstat_dying_redirect_active(m))
		msim_memcg_reparent_state_local(memcg);
}
