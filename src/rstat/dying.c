/* SPDX-License-Identifier: MIT */
/*
 * dying.c - where stat updates to a dying memcg go (the reparenting of local
 * stats at offline, which this redirect pairs with, is reparent.c's).
 *
 * kernel: mm/memcontrol.c get_non_dying_memcg_start() / _end() (newest: cgroup v1
 * only); thread 000 patch 2 (all hierarchies, RCU always taken) and patch 3 (the
 * dying test outside RCU, RCU only on the dying path), as variant dying-redirect.
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
	return msim__dying_redirect_active(msim_config(m));
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
	const struct msim_config *cfg = msim_config(msim_memcg_host(memcg));

	*rcu_locked = false;
	if (!msim__dying_redirect_active(cfg)) {
		msim_yield_access("rstat.dying.checked", NULL, MSIM_ACCESS_NONE);
		return memcg;
	}
	if (msim__rstat_variant(cfg, MSIM__RSTAT_V_DYING_REDIRECT) ==
		    MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING &&
	    !msim_css_is_dying(memcg)) {
		/* patch 3: the common case takes no RCU; the window is here */
		msim_yield_access("rstat.dying.checked", NULL, MSIM_ACCESS_NONE);
		return memcg;
	}
	msim_rcu_read_lock();
	*rcu_locked = true;
	memcg = walk_to_live(memcg);
	msim_yield_access("rstat.dying.checked", NULL, MSIM_ACCESS_NONE);
	return memcg;
}

void msim_get_non_dying_memcg_end(bool rcu_locked)
{
	if (rcu_locked)
		msim_rcu_read_unlock();
}
