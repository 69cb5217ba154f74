/* SPDX-License-Identifier: MIT */
/*
 * charge.c - the memcg side of zswap (kernel: mm/memcontrol.c
 * obj_cgroup_charge_zswap(), obj_cgroup_uncharge_zswap(), obj_cgroup_may_zswap(),
 * mem_cgroup_zswap_writeback_enabled()).
 *
 * These are memcontrol.c functions in the kernel. They live here because they
 * update and read memcg statistics (the rstat layer), which the memcg layer of
 * the model may not call (layers only call downward); the byte charge itself is
 * the memcg layer's obj stock (src/memcg/obj_stock.c).
 */
#include "zswap/zswap_internal.h"

/*
 * kernel: obj_cgroup_charge_zswap(). The root objcg is skipped: no charge and no
 * statistics. Thread 002 patch 1 is about this line: the root memcg's
 * MEMCG_ZSWAP_B and MEMCG_ZSWAPPED never count the entries it owns itself.
 * The charge cannot fail (the kernel WARNs unless PF_MEMALLOC: a reclaim context
 * forces it past the limit). On cgroup v1 both return at once
 * (!cgroup_subsys_on_dfl(memory_cgrp_subsys)): no charge, no MEMCG_ZSWAP_B or
 * MEMCG_ZSWAPPED, so a v1 memcg's zswap count reads nothing stored.
 */
static bool zswap_charged_hierarchy(struct msim_obj_cgroup *objcg)
{
	struct msim_memcg *memcg = msim_obj_cgroup_memcg(objcg);
	struct msim *m = memcg ? msim_memcg_host(memcg) : NULL;

	return !m || msim_config(m)->cgroup_version != MSIM_CGROUP_V1;
}
void msim_obj_cgroup_charge_zswap(struct msim_obj_cgroup *objcg, size_t size)
{
	struct msim_memcg *memcg;

	if (!objcg || !zswap_charged_hierarchy(objcg) || msim_obj_cgroup_is_root(objcg))
		return;
	msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL | MSIM_GFP_MEMALLOC, size);
	msim_rcu_read_lock();
	memcg = msim_obj_cgroup_memcg(objcg);
	msim_mod_memcg_state(memcg, MSIM_MEMCG_ZSWAP_B, (long)size);
	msim_mod_memcg_state(memcg, MSIM_MEMCG_ZSWAPPED, 1);
	if (size == MSIM_PAGE_SIZE)
		msim_mod_memcg_state(memcg, MSIM_MEMCG_ZSWAP_INCOMP, 1);
	msim_rcu_read_unlock();
}

/* kernel: obj_cgroup_uncharge_zswap(): the mirror, on the memcg the objcg names now. */
void msim_obj_cgroup_uncharge_zswap(struct msim_obj_cgroup *objcg, size_t size)
{
	struct msim_memcg *memcg;

	if (!objcg || !zswap_charged_hierarchy(objcg) || msim_obj_cgroup_is_root(objcg))
		return;
	msim_obj_cgroup_uncharge(objcg, size);
	msim_rcu_read_lock();
	memcg = msim_obj_cgroup_memcg(objcg);
	msim_mod_memcg_state(memcg, MSIM_MEMCG_ZSWAP_B, -(long)size);
	msim_mod_memcg_state(memcg, MSIM_MEMCG_ZSWAPPED, -1);
	if (size == MSIM_PAGE_SIZE)
		msim_mod_memcg_state(memcg, MSIM_MEMCG_ZSWAP_INCOMP, -1);
	msim_rcu_read_unlock();
}

/*
 * kernel: mem_cgroup_zswap_writeback_enabled(): every level from memcg to the
 * root allows writeback (memory.zswap.writeback). NULL memcg: the root.
 */
bool msim__zswap_writeback_enabled(const struct msim__zswap *z, struct msim_memcg *memcg)
{
	if (!memcg)
		memcg = msim_root_mem_cgroup(z->m);
	for (; memcg; memcg = msim_parent_mem_cgroup(memcg)) {
		struct msim__zswap_memcg *zm = msim__zswap_memcg(z, memcg);

		if (zm && !msim_read_once_ul(&zm->writeback))
			return false;
	}
	return true;
}

/*
 * kernel: obj_cgroup_may_zswap(): cgroup v1 always may. Otherwise every level
 * below the root with a zswap.max: 0 refuses; else a forced flush and
 * MEMCG_ZSWAP_B / PAGE_SIZE must be below the max.
 */
bool msim__zswap_may_zswap(const struct msim__zswap *z, struct msim_obj_cgroup *objcg)
{
	struct msim_memcg *orig, *memcg;
	bool ret = true;

	if (msim_config(z->m)->cgroup_version == MSIM_CGROUP_V1)
		return true;
	orig = msim_get_mem_cgroup_from_objcg(objcg);
	for (memcg = orig; memcg && !msim_mem_cgroup_is_root(memcg);
	     memcg = msim_parent_mem_cgroup(memcg)) {
		struct msim__zswap_memcg *zm = msim__zswap_memcg(z, memcg);
		unsigned long max = zm ? msim_read_once_ul(&zm->zswap_max) : MSIM_PAGE_COUNTER_MAX;

		if (max == (unsigned long)MSIM_PAGE_COUNTER_MAX)
			continue;
		if (max == 0) {
			ret = false;
			break;
		}
		msim_do_mem_cgroup_flush_stats(memcg, true);
		if (msim_memcg_page_state(memcg, MSIM_MEMCG_ZSWAP_B) / MSIM_PAGE_SIZE < max)
			continue;
		ret = false;
		break;
	}
	msim_css_put(orig);
	return ret;
}
