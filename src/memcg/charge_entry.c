/* SPDX-License-Identifier: MIT */
/*
 * charge_entry.c - the entry points of stock.c and charge_state.c: each finds
 * the host's charge data (msim__charge_host, a plain load) and calls the file
 * below with it.
 *
 * Those files take the data as an argument because charge_host.c, which
 * defines the subsystem the lookup reads, calls them when it attaches and at
 * offline: a lookup there would close a circle of files. On a host without the
 * charge subsystem these do nothing (NULL, 0, false).
 */
#include "charge_internal.h"

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

bool msim_consume_stock(struct msim_memcg *memcg, unsigned int nr_pages)
{
	return msim__consume_stock(msim__charge_host(msim_memcg_host(memcg)), memcg, nr_pages);
}

void msim_refill_stock(struct msim_memcg *memcg, unsigned int nr_pages)
{
	msim__refill_stock(msim__charge_host(msim_memcg_host(memcg)), memcg, nr_pages);
}

void msim_drain_all_stock(struct msim_memcg *root)
{
	msim__drain_all_stock(msim__charge_host(msim_memcg_host(root)), root);
}

unsigned int msim_stock_pages(struct msim *m, unsigned int cpu, const struct msim_memcg *memcg)
{
	return msim__stock_pages(msim__charge_host(m), cpu, memcg);
}

struct msim_memcg *msim_stock_slot(struct msim *m, unsigned int cpu, unsigned int slot,
				   unsigned int *nr_pages)
{
	return msim__stock_slot(msim__charge_host(m), cpu, slot, nr_pages);
}
