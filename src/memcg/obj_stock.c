/* SPDX-License-Identifier: MIT */
/*
 * obj_stock.c - byte-granular charges through the per-CPU obj stock (kernel:
 * mm/memcontrol.c obj_cgroup_charge(), obj_cgroup_uncharge(),
 * consume_obj_stock(), refill_obj_stock(), drain_obj_stock(),
 * obj_cgroup_charge_pages(), obj_cgroup_uncharge_pages()).
 *
 * Memory that is not page-sized (slab objects, zswap's compressed pages) is
 * charged in bytes to an objcg. The memcg's page_counter only counts pages, so
 * each CPU keeps one objcg and a byte balance: a charge that fits the balance of
 * the cached objcg takes it from there (no shared counter touched), a charge
 * that does not charges whole pages and leaves the rest of the last page in the
 * stock. An uncharge gives its bytes back to the stock, which returns whole pages
 * once it holds more than one. When another objcg takes the stock, the old one's
 * whole pages are uncharged and its sub-page remainder parked in
 * objcg->nr_charged_bytes, which the next stock of that objcg picks up.
 *
 * Invariant (holds at quiescence): for each objcg, pages charged through it x
 * PAGE_SIZE = bytes charged by its objects + its stock balance + its
 * nr_charged_bytes. So with every object uncharged and every stock drained, the
 * pages it charged are back to 0 (tests/unit/test_obj_stock.c).
 *
 * Simplifications (docs/zswap.md):
 *  - the kernel's local_trylock is a msim_lock per CPU: a charge never falls back
 *    to the shared counter because the stock is busy;
 *  - a drain that lifts nr_charged_bytes to a page or more uncharges the whole
 *    pages at once (the kernel keeps them until the objcg is reused or released):
 *    so obj_cgroup_release() never finds bytes left and needs no change here;
 *  - MEMCG_KMEM is counted only under kmem-stat=counted (objcg.h; the
 *    linux-6.12 preset), and the stock keeps no slab statistics (the kernel's
 *    cached_pgdat and slab byte counters);
 *  - stocks are not drained at a memcg's offline: the cached objcg was repointed
 *    to the parent, so its later drain lands there, as the kernel's would.
 */
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/charge.h>

#include "memcg/memcg_internal.h"
#include "memcg/objcg_internal.h"

struct obj_stock_pcp {
	struct msim_lock lock;                 /* kernel: the local_trylock of memcg_stock */
	struct msim_obj_cgroup *cached;        /* holds a reference */
	unsigned long nr_bytes;                /* < 2 pages after a refill */
};

struct msim__obj_stock_host {
	struct msim *m;
	unsigned int nr_cpus;
	struct obj_stock_pcp *pcp;
};

static int obj_stock_host_init(struct msim *m, void *state);
static void obj_stock_host_fini(struct msim *m, void *state);

static bool obj_stock_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;
}

static const char *const obj_stock_deps[] = { "objcg", "charge", NULL };

/* The obj stock's rows of the variant table (subsys.h). */
enum { OBJ_STOCK_V_KMEM_STAT };
static const char *const kmem_stat_values[] = { "uncounted", "counted", NULL };

static const struct msim_variant_desc obj_stock_variants[] = {
	[OBJ_STOCK_V_KMEM_STAT] = { "kmem-stat", kmem_stat_values,
		"MEMCG_KMEM in obj_cgroup_charge_pages / obj_cgroup_uncharge_pages: counted, one "
		"rstat update per charge of whole pages for slab objects, as the kernel does "
		"(counted); uncounted is the model's old simplification, the default so that race "
		"schedules through the obj stock stay comparable",
		"kernel rig (6.12), model" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int obj_stock_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys obj_stock_subsys = {
	.name = "obj_stock",
	.depends = obj_stock_deps,
	.enabled = obj_stock_enabled,
	.state_size = sizeof(struct msim__obj_stock_host),
	.host_init = obj_stock_host_init,
	.host_fini = obj_stock_host_fini,
	.variants = obj_stock_variants,
	.id = &obj_stock_subsys_id,
};

enum msim_kmem_stat msim_obj_stock_variant_kmem_stat(const struct msim_config *cfg)
{
	return msim_subsys_variant(&cfg->variants, &obj_stock_subsys, OBJ_STOCK_V_KMEM_STAT);
}

__attribute__((constructor)) static void obj_stock_register(void)
{
	msim_subsys_register(&obj_stock_subsys);
}

static struct msim__obj_stock_host *obj_stock_host(const struct msim *m)
{
	return m ? msim_subsys_state(m, &obj_stock_subsys) : NULL;
}

/*
 * kernel: mod_memcg_state(memcg, MEMCG_KMEM, nr_pages) in obj_cgroup_charge_pages()
 * and obj_cgroup_uncharge_pages(); under kmem-stat=uncounted (the model's old
 * simplification, objcg.h) nothing.
 */
static void kmem_stat(struct msim_memcg *memcg, long nr_pages)
{
	struct msim *m = msim_memcg_host(memcg);
	struct msim__memcg_host *mh = msim__memcg_host(m);

	if (msim_obj_stock_variant_kmem_stat(msim_config(m)) != MSIM_KMEM_STAT_COUNTED || !mh)
		return;
	for (unsigned int i = 0; i < mh->nr_hooks; i++)
		if (mh->hooks[i].kmem_stat)
			mh->hooks[i].kmem_stat(memcg, nr_pages, mh->hooks[i].priv);
}

/* kernel: obj_cgroup_charge_pages(): the memcg the objcg names now, never the root. */
static int charge_pages(struct msim_obj_cgroup *objcg, unsigned int gfp, unsigned int nr_pages)
{
	struct msim_memcg *memcg = msim_get_mem_cgroup_from_objcg(objcg);
	int ret = msim_try_charge(memcg, gfp, nr_pages);

	if (!ret)
		kmem_stat(memcg, (long)nr_pages);
	msim_css_put(memcg);
	return ret;
}

/* kernel: obj_cgroup_uncharge_pages(): memcg_uncharge skips the root. */
static void uncharge_pages(struct msim_obj_cgroup *objcg, unsigned long nr_pages)
{
	struct msim_memcg *memcg;

	if (!nr_pages)
		return;
	memcg = msim_get_mem_cgroup_from_objcg(objcg);
	kmem_stat(memcg, -(long)nr_pages);
	msim_memcg_uncharge(memcg, (unsigned int)nr_pages);
	msim_css_put(memcg);
}

/*
 * kernel: drain_obj_stock(): whole pages back to the memcg, the remainder to
 * objcg->nr_charged_bytes, the reference dropped. Caller holds the stock lock.
 */
static void drain_obj_stock(struct obj_stock_pcp *stock)
{
	struct msim_obj_cgroup *old = stock->cached;
	unsigned long pages, rest;
	long parked;

	if (!old)
		return;
	pages = stock->nr_bytes / MSIM_PAGE_SIZE;
	rest = stock->nr_bytes % MSIM_PAGE_SIZE;
	if (rest) {
		parked = msim_atomic_long_add_return(&old->nr_charged_bytes, (long)rest);
		/* Simplification (top): whole pages parked go back at once. */
		if (parked >= (long)MSIM_PAGE_SIZE) {
			long whole = parked / (long)MSIM_PAGE_SIZE;

			msim_atomic_long_add(&old->nr_charged_bytes, -whole * (long)MSIM_PAGE_SIZE);
			pages += (unsigned long)whole;
		}
	}
	uncharge_pages(old, pages);
	stock->nr_bytes = 0;
	stock->cached = NULL;
	msim_obj_cgroup_put(old);
}

static struct obj_stock_pcp *this_stock(struct msim__obj_stock_host *h)
{
	unsigned int cpu = msim_this_cpu();

	return &h->pcp[cpu < h->nr_cpus ? cpu : 0];
}

/* kernel: consume_obj_stock(). */
static bool consume_obj_stock(struct msim__obj_stock_host *h, struct msim_obj_cgroup *objcg,
			      size_t size)
{
	struct obj_stock_pcp *stock = this_stock(h);
	bool ret = false;

	msim_lock(&stock->lock);
	if (stock->cached == objcg && stock->nr_bytes >= size) {
		stock->nr_bytes -= size;
		ret = true;
	}
	msim_unlock(&stock->lock);
	return ret;
}

/* kernel: refill_obj_stock(objcg, nr_bytes, allow_uncharge). */
static void refill_obj_stock(struct msim__obj_stock_host *h, struct msim_obj_cgroup *objcg,
			     unsigned long nr_bytes, bool allow_uncharge)
{
	struct obj_stock_pcp *stock = this_stock(h);
	unsigned long nr_pages = 0;

	msim_lock(&stock->lock);
	if (stock->cached != objcg) {
		drain_obj_stock(stock);
		msim_obj_cgroup_get(objcg);
		stock->nr_bytes = (unsigned long)msim_atomic_long_xchg(&objcg->nr_charged_bytes, 0);
		stock->cached = objcg;
	}
	stock->nr_bytes += nr_bytes;
	if (allow_uncharge && stock->nr_bytes > MSIM_PAGE_SIZE) {
		nr_pages = stock->nr_bytes / MSIM_PAGE_SIZE;
		stock->nr_bytes %= MSIM_PAGE_SIZE;
	}
	msim_unlock(&stock->lock);
	uncharge_pages(objcg, nr_pages);
}

int msim_obj_cgroup_charge(struct msim_obj_cgroup *objcg, unsigned int gfp, size_t size)
{
	struct msim__obj_stock_host *h;
	unsigned int nr_pages;
	size_t rest;
	int ret;

	if (!objcg || !size)
		return -EINVAL;
	h = obj_stock_host(objcg->h->m);
	if (!h)
		return -ENODEV;
	if (consume_obj_stock(h, objcg, size))
		return 0;
	/* The kernel ignores nr_charged_bytes here (two atomics, a shared line). */
	nr_pages = (unsigned int)(size / MSIM_PAGE_SIZE);
	rest = size % MSIM_PAGE_SIZE;
	if (rest)
		nr_pages++;
	ret = charge_pages(objcg, gfp, nr_pages);
	if (!ret && rest)
		refill_obj_stock(h, objcg, MSIM_PAGE_SIZE - rest, false);
	return ret;
}

void msim_obj_cgroup_uncharge(struct msim_obj_cgroup *objcg, size_t size)
{
	struct msim__obj_stock_host *h = objcg ? obj_stock_host(objcg->h->m) : NULL;

	if (h && size)
		refill_obj_stock(h, objcg, size, true);
}

long msim_obj_cgroup_nr_charged_bytes(const struct msim_obj_cgroup *objcg)
{
	return objcg ? msim_quiet_load(&objcg->nr_charged_bytes.counter, MSIM_RELAXED) : 0;
}

struct msim_obj_cgroup *msim_obj_stock_cached(struct msim *m, unsigned int cpu,
					       unsigned long *nr_bytes)
{
	struct msim__obj_stock_host *h = obj_stock_host(m);
	struct msim_obj_cgroup *objcg = NULL;
	unsigned long bytes = 0;

	if (h && cpu < h->nr_cpus) {
		msim_lock(&h->pcp[cpu].lock);
		objcg = h->pcp[cpu].cached;
		bytes = h->pcp[cpu].nr_bytes;
		msim_unlock(&h->pcp[cpu].lock);
	}
	if (nr_bytes)
		*nr_bytes = bytes;
	return objcg;
}

void msim_obj_stock_drain_all(struct msim *m)
{
	struct msim__obj_stock_host *h = obj_stock_host(m);

	for (unsigned int cpu = 0; h && cpu < h->nr_cpus; cpu++) {
		msim_lock(&h->pcp[cpu].lock);
		drain_obj_stock(&h->pcp[cpu]);
		msim_unlock(&h->pcp[cpu].lock);
	}
}

static int obj_stock_host_init(struct msim *m, void *state)
{
	struct msim__obj_stock_host *h = state;

	h->m = m;
	h->nr_cpus = msim_nr_cpus(m);
	h->pcp = calloc(h->nr_cpus, sizeof(*h->pcp));
	if (!h->pcp)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < h->nr_cpus; cpu++)
		msim_lock_init(&h->pcp[cpu].lock, "obj_stock.lock");
	return 0;
}

/* Drained before the objcg and charge layers go (they detach after this one). */
static void obj_stock_host_fini(struct msim *m, void *state)
{
	struct msim__obj_stock_host *h = state;

	(void)m;
	if (!h->pcp)
		return;
	for (unsigned int cpu = 0; cpu < h->nr_cpus; cpu++) {
		drain_obj_stock(&h->pcp[cpu]);
		msim_lock_destroy(&h->pcp[cpu].lock);
	}
	free(h->pcp);
	h->pcp = NULL;
}
