/* SPDX-License-Identifier: MIT */
/*
 * charge_state.c - where a memcg's charge state lives: the host's charge data
 * (host slot MSIM_SLOT_CHARGE), each memcg's (a memcg hook slot), its
 * page_counter, and memcg_uncharge() on it.
 *
 * kernel: memcg->memory is a field of struct mem_cgroup; memcg_uncharge() is
 * mm/memcontrol.c's. The bottom of the charge files: stock.c (the per-CPU
 * cache), charge.c (try_charge) and charge_host.c (attach) call it, it calls
 * none of them.
 */
#include "charge_internal.h"

struct msim_charge_host *msim__charge_host(struct msim *m)
{
	return m ? *(struct msim_charge_host **)msim_host_slot(m, MSIM_SLOT_CHARGE) : NULL;
}

struct msim_memcg_charge *msim__memcg_charge(struct msim_memcg *memcg)
{
	struct msim_charge_host *ch = msim__charge_host(msim_memcg_host(memcg));

	return ch && ch->slot >= 0 ? *(struct msim_memcg_charge **)msim_memcg_slot(memcg, ch->slot)
				   : NULL;
}

struct msim_page_counter *msim_memcg_page_counter(struct msim_memcg *memcg)
{
	struct msim_memcg_charge *mc = memcg ? msim__memcg_charge(memcg) : NULL;

	return mc ? &mc->memory : NULL;
}

/* kernel: mm/memcontrol.c memcg_uncharge(); the root is never charged, so never uncharged. */
void msim_memcg_uncharge(struct msim_memcg *memcg, unsigned int nr_pages)
{
	struct msim_memcg_charge *mc;

	if (!memcg || !nr_pages || msim_mem_cgroup_is_root(memcg))
		return;
	mc = msim__memcg_charge(memcg);
	if (mc)
		msim_page_counter_uncharge(&mc->memory, nr_pages);
}
