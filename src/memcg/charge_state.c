/* SPDX-License-Identifier: MIT */
/*
 * charge_state.c - where a memcg's charge state lives: in a memcg hook slot of
 * the host's charge data, with its page_counter; memcg_uncharge() on it.
 *
 * kernel: memcg->memory is a field of struct mem_cgroup; memcg_uncharge() is
 * mm/memcontrol.c's. The lookup from a memcg takes the host's charge data
 * (msim__charge_host); the charge files that already hold it (stock.c,
 * charge_host.c, charge.c) pass it in.
 */
#include "charge_internal.h"

struct msim_memcg_charge *msim__memcg_charge_of(struct msim_charge_host *ch,
						struct msim_memcg *memcg)
{
	return ch && memcg && ch->slot >= 0
		       ? *(struct msim_memcg_charge **)msim_memcg_slot(memcg, ch->slot)
		       : NULL;
}

/* kernel: mm/memcontrol.c memcg_uncharge(); the root is never charged, so never uncharged. */
void msim__memcg_uncharge(struct msim_charge_host *ch, struct msim_memcg *memcg,
			  unsigned int nr_pages)
{
	struct msim_memcg_charge *mc;

	if (!memcg || !nr_pages || msim_mem_cgroup_is_root(memcg))
		return;
	mc = msim__memcg_charge_of(ch, memcg);
	if (mc)
		msim_page_counter_uncharge(&mc->memory, nr_pages);
}

struct msim_page_counter *msim_memcg_page_counter(struct msim_memcg *memcg)
{
	struct msim_memcg_charge *mc = memcg ? msim__memcg_charge(memcg) : NULL;

	return mc ? &mc->memory : NULL;
}

void msim_memcg_uncharge(struct msim_memcg *memcg, unsigned int nr_pages)
{
	if (memcg)
		msim__memcg_uncharge(msim__charge_host(msim_memcg_host(memcg)), memcg, nr_pages);
}
