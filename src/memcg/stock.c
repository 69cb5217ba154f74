/* SPDX-License-Identifier: MIT */
/*
 * stock.c - the per-CPU charge cache (kernel: mm/memcontrol.c struct
 * memcg_stock_pcp, consume_stock(), refill_stock(), drain_stock(),
 * drain_all_stock()).
 *
 * Each CPU caches pre-charged pages for up to NR_MEMCG_STOCK (7) memcgs, u8 page
 * counts, at most MEMCG_CHARGE_BATCH (64) per slot after a refill. A charge that
 * finds its memcg with enough pages consumes them without touching the shared
 * page_counter: this is what makes the anon fault path cheap, and why usage can
 * be up to 64 pages x 7 slots x CPUs above what the pages in use account for.
 *
 * Simplifications (docs/charge.md):
 *  - drain_all_stock drains other CPUs' stocks directly under their lock instead
 *    of queueing work on them (the kernel's work would drain the same slots a
 *    little later; nothing in the model observes the delay);
 *  - the slot to evict is chosen by a per-CPU xorshift PRNG seeded from the
 *    host's seed, not get_random_u32_below(), so replay stays exact;
 *  - the obj stock (byte-granular charges) is a separate per-CPU structure in
 *    obj_stock.c, not a part of this one (the kernel keeps both in memcg_stock).
 *
 * The msim__ functions take the host's charge data (charge_host.c and charge.c
 * hold it already); the public entry points at the end look it up from the
 * memcg or the host.
 */
#include <errno.h>
#include <stdlib.h>

#include "charge_internal.h"

#define FLUSHING_CACHED_CHARGE 0

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* get_random_u32_below(n) on this CPU's deterministic stream (xorshift64*). */
static unsigned int stock_random_below(struct msim_memcg_stock *stock, unsigned int n)
{
	uint64_t x = stock->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	stock->rng = x;
	return (unsigned int)(((x * 0x2545f4914f6cdd1dULL) >> 32) % n);
}

void msim__stock_seed(struct msim_charge_host *ch)
{
	for (unsigned int cpu = 0; cpu < msim_nr_cpus(ch->m); cpu++) {
		struct msim_memcg_stock *stock = msim__stock(ch, cpu);
		uint64_t s = splitmix64(ch->seed ^ ((uint64_t)cpu << 32));

		stock->rng = s ? s : 1; /* xorshift must not start at 0 */
	}
}

int msim__stock_init(struct msim_charge_host *ch)
{
	ch->stocks = msim_alloc_percpu(ch->m, sizeof(struct msim_memcg_stock), "memcg_stock");
	if (!ch->stocks)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < msim_nr_cpus(ch->m); cpu++)
		msim_lock_init(&msim__stock(ch, cpu)->lock, "memcg_stock.lock");
	msim__stock_seed(ch);
	return 0;
}

void msim__stock_fini(struct msim_charge_host *ch)
{
	if (!ch->stocks)
		return;
	for (unsigned int cpu = 0; cpu < msim_nr_cpus(ch->m); cpu++)
		msim_lock_destroy(&msim__stock(ch, cpu)->lock);
	msim_free_percpu(ch->m, ch->stocks);
	ch->stocks = NULL;
}

/*
 * The slots in use: NR_MEMCG_STOCK, or one under charge-stock=single (Linux 6.12's
 * memcg_stock_pcp caches one memcg: a refill for another drains it first).
 */
static unsigned int stock_slots(const struct msim_charge_host *ch)
{
	return ch->single_stock ? 1U : MSIM_NR_MEMCG_STOCK;
}

/* kernel: mm/memcontrol.c consume_stock() */
bool msim__consume_stock(struct msim_charge_host *ch, struct msim_memcg *memcg,
			 unsigned int nr_pages)
{
	struct msim_memcg_stock *stock;
	bool ret = false;

	if (!ch || nr_pages > MSIM_MEMCG_CHARGE_BATCH)
		return false;
	stock = msim__stock(ch, msim_this_cpu());
	if (!msim_trylock(&stock->lock))
		return false;
	for (unsigned int i = 0; i < stock_slots(ch); i++) {
		if (stock->cached[i] != memcg)
			continue;
		if (stock->nr_pages[i] >= nr_pages) {
			stock->nr_pages[i] = (uint8_t)(stock->nr_pages[i] - nr_pages);
			ret = true;
		}
		break;
	}
	msim__stat_inc(ret ? &stock->hits : &stock->misses, 1);
	msim_unlock(&stock->lock);
	return ret;
}

/*
 * kernel: mm/memcontrol.c drain_stock(): give slot i's pages back to the
 * page_counter and drop the slot's css reference. Caller holds stock->lock.
 */
static void drain_stock(struct msim_charge_host *ch, struct msim_memcg_stock *stock,
			unsigned int i)
{
	struct msim_memcg *old = stock->cached[i];

	if (!old)
		return;
	if (stock->nr_pages[i]) {
		msim__memcg_uncharge(ch, old, stock->nr_pages[i]);
		stock->nr_pages[i] = 0;
	}
	msim__stat_inc(&stock->drains, 1);
	stock->cached[i] = NULL;
	msim_css_put(old);
}

/* kernel: mm/memcontrol.c refill_stock() */
void msim__refill_stock(struct msim_charge_host *ch, struct msim_memcg *memcg,
			unsigned int nr_pages)
{
	struct msim_memcg_stock *stock;
	int empty_slot = -1;
	unsigned int i;

	if (!ch || nr_pages == 0)
		return;
	stock = msim__stock(ch, msim_this_cpu());
	if (nr_pages > MSIM_MEMCG_CHARGE_BATCH || !msim_trylock(&stock->lock)) {
		msim__memcg_uncharge(ch, memcg, nr_pages);
		return;
	}
	msim__stat_inc(&stock->refills, 1);
	for (i = 0; i < stock_slots(ch); i++) {
		if (!stock->cached[i] && empty_slot == -1)
			empty_slot = (int)i;
		if (stock->cached[i] == memcg) {
			/* u8 holds it: at most 64 cached + 64 refilled. */
			unsigned int pages = stock->nr_pages[i] + nr_pages;

			stock->nr_pages[i] = (uint8_t)pages;
			if (pages > MSIM_MEMCG_CHARGE_BATCH)
				drain_stock(ch, stock, i);
			msim_unlock(&stock->lock);
			return;
		}
	}
	if (empty_slot == -1) {
		i = stock_slots(ch) == 1 ? 0 : stock_random_below(stock, MSIM_NR_MEMCG_STOCK);
		msim__stat_inc(&stock->evictions, 1);
		drain_stock(ch, stock, i);
	} else {
		i = (unsigned int)empty_slot;
	}
	msim_css_get(memcg);
	stock->cached[i] = memcg;
	stock->nr_pages[i] = (uint8_t)nr_pages;
	msim_unlock(&stock->lock);
}

/* kernel: mm/memcontrol.c mem_cgroup_is_descendant() */
static bool is_descendant(const struct msim_memcg *memcg, const struct msim_memcg *root)
{
	for (; memcg; memcg = msim_parent_mem_cgroup(memcg))
		if (memcg == root)
			return true;
	return false;
}

/* kernel: mm/memcontrol.c is_memcg_drain_needed(); caller holds stock->lock. */
static bool drain_needed(struct msim_memcg_stock *stock, const struct msim_memcg *root)
{
	for (unsigned int i = 0; i < MSIM_NR_MEMCG_STOCK; i++)
		if (stock->cached[i] && stock->nr_pages[i] && is_descendant(stock->cached[i], root))
			return true;
	return false;
}

/*
 * kernel: mm/memcontrol.c drain_all_stock(): skipped entirely when another
 * drainer holds percpu_charge_mutex. Like drain_local_memcg_stock, a stock that
 * needs draining is drained whole (every slot), not only root's descendants.
 */
void msim__drain_all_stock(struct msim_charge_host *ch, struct msim_memcg *root)
{
	if (!ch || !msim_trylock(&ch->percpu_charge_mutex))
		return;
	for (unsigned int cpu = 0; cpu < msim_num_online_cpus(ch->m); cpu++) {
		struct msim_memcg_stock *stock = msim__stock(ch, cpu);

		msim_lock(&stock->lock);
		if (!(stock->flags & (1UL << FLUSHING_CACHED_CHARGE)) && drain_needed(stock, root)) {
			stock->flags |= 1UL << FLUSHING_CACHED_CHARGE;
			for (unsigned int i = 0; i < MSIM_NR_MEMCG_STOCK; i++)
				drain_stock(ch, stock, i);
			stock->flags &= ~(1UL << FLUSHING_CACHED_CHARGE);
		}
		msim_unlock(&stock->lock);
	}
	msim_unlock(&ch->percpu_charge_mutex);
}

/*
 * Host teardown (and memcg_hotplug_cpu_dead for every CPU): drain every slot,
 * including slots with 0 pages, so the css references they hold are dropped.
 */
void msim__stock_drain_everything(struct msim_charge_host *ch)
{
	for (unsigned int cpu = 0; cpu < msim_nr_cpus(ch->m); cpu++) {
		struct msim_memcg_stock *stock = msim__stock(ch, cpu);

		msim_lock(&stock->lock);
		for (unsigned int i = 0; i < MSIM_NR_MEMCG_STOCK; i++)
			drain_stock(ch, stock, i);
		msim_unlock(&stock->lock);
	}
}

unsigned int msim__stock_pages(struct msim_charge_host *ch, unsigned int cpu,
			       const struct msim_memcg *memcg)
{
	unsigned int pages = 0;

	if (!ch || cpu >= msim_nr_cpus(ch->m))
		return 0;
	struct msim_memcg_stock *stock = msim__stock(ch, cpu);

	msim_lock(&stock->lock);
	for (unsigned int i = 0; i < MSIM_NR_MEMCG_STOCK; i++)
		if (stock->cached[i] == memcg)
			pages = stock->nr_pages[i];
	msim_unlock(&stock->lock);
	return pages;
}

struct msim_memcg *msim__stock_slot(struct msim_charge_host *ch, unsigned int cpu,
				    unsigned int slot, unsigned int *nr_pages)
{
	struct msim_memcg *memcg;

	if (nr_pages)
		*nr_pages = 0;
	if (!ch || cpu >= msim_nr_cpus(ch->m) || slot >= MSIM_NR_MEMCG_STOCK)
		return NULL;
	struct msim_memcg_stock *stock = msim__stock(ch, cpu);

	msim_lock(&stock->lock);
	memcg = stock->cached[slot];
	if (nr_pages)
		*nr_pages = stock->nr_pages[slot];
	msim_unlock(&stock->lock);
	return memcg;
}

/* ---- entry points: the host's charge data from the memcg or the host ---- */

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
