/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the zswap pool's sizes and limits (kernel: mm/zswap.c
 * zswap_total_pages(), zswap_max_pages(), zswap_accept_thr_pages(),
 * zswap_check_limits(), the tail of zswap_store_page()).
 *
 * Compression is a draw, not a compressor: each store takes the next length of
 * a deterministic sequence (splitmix64 of the seed and the store's number), so
 * a run's pool is the same for the same seed and order of stores.
 *
 * The pool's pages, with zsmalloc_pages (params), are zsmalloc's: an object of length L takes a slot of its
 * size class (L + the 8-byte handle, rounded up to 32 B + a multiple of 16 B;
 * classes of the same zspage geometry merged, as zs_create_pool does), and a
 * class holds its objects in zspages of 1 to 8 pages (calculate_zspage_chain_size,
 * CONFIG_ZSMALLOC_CHAIN_SIZE 8). Simplification: a class's zspages are counted
 * as if packed full (ceil(objects / per zspage)); the partly used zspages frees
 * leave behind until compaction are not. Without zsmalloc_pages (the default),
 * the stored bytes rounded up to pages. The kernel's zswap_total_pages() sums
 * zs_get_total_pages() over the pools; here there is one pool.
 */
#include <pthread.h>
#include <stdlib.h>

#include "zswap/zswap_internal.h"

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

unsigned int msim__zswap_draw_length(struct msim__zswap *z)
{
	unsigned long seq = msim_quiet_fetch_add(&z->store_seq, 1, MSIM_RELAXED);
	uint64_t x = splitmix64(z->p.seed * 0x100000001b3ULL + seq);
	unsigned int span = z->p.max_bytes - z->p.min_bytes + 1;

	/* Two storers' order decides which draws which length. */
	msim__zswap_note(&z->store_seq, MSIM_ACCESS_RMW);

	if (x % 100 < z->p.incompressible_pct)
		return (unsigned int)MSIM_PAGE_SIZE + 1;   /* dlen >= PAGE_SIZE: did not compress */
	return z->p.min_bytes + (unsigned int)((x >> 8) % span);
}

/* ---- zsmalloc's size classes (kernel: mm/zsmalloc.c) ---- */

#define ZS_HANDLE_SIZE 8u
#define ZS_MIN_ALLOC_SIZE 32u
#define ZS_SIZE_CLASS_DELTA 16u       /* PAGE_SIZE >> CLASS_BITS */
#define ZS_MAX_PAGES_PER_ZSPAGE 8u    /* CONFIG_ZSMALLOC_CHAIN_SIZE */

/* kernel: calculate_zspage_chain_size(): the zspage length wasting least. */
static unsigned int zs_chain_size(unsigned int size)
{
	unsigned int chain = 1, min_waste = ~0u;

	if (!(size & (size - 1)))
		return 1;
	for (unsigned int i = 1; i <= ZS_MAX_PAGES_PER_ZSPAGE; i++) {
		unsigned int waste = (unsigned int)(i * MSIM_PAGE_SIZE) % size;

		if (waste < min_waste) {
			min_waste = waste;
			chain = i;
		}
	}
	return chain;
}

/*
 * kernel: zs_create_pool()'s class table, largest first, merging equal geometries.
 * It depends on the page size alone: built once per process, read by every host.
 */
static struct msim__zs_class zs_table[MSIM__ZS_SIZE_CLASSES];
static pthread_once_t zs_table_once = PTHREAD_ONCE_INIT;

static void zs_table_build(void)
{
	unsigned int prev = MSIM__ZS_SIZE_CLASSES;

	for (int i = MSIM__ZS_SIZE_CLASSES - 1; i >= 0; i--) {
		struct msim__zs_class *c = &zs_table[i];
		unsigned int size = ZS_MIN_ALLOC_SIZE + (unsigned int)i * ZS_SIZE_CLASS_DELTA;

		if (size > MSIM_PAGE_SIZE)
			size = (unsigned int)MSIM_PAGE_SIZE;
		c->size = (unsigned short)size;
		c->pages_per_zspage = (unsigned short)zs_chain_size(size);
		c->objs_per_zspage = (unsigned short)(c->pages_per_zspage * MSIM_PAGE_SIZE / size);
		if (prev < MSIM__ZS_SIZE_CLASSES &&
		    zs_table[prev].pages_per_zspage == c->pages_per_zspage &&
		    zs_table[prev].objs_per_zspage == c->objs_per_zspage) {
			c->merged = zs_table[prev].merged;
			continue;
		}
		c->merged = (unsigned short)i;
		prev = (unsigned int)i;
	}
}

void msim__zswap_zs_init(struct msim__zswap *z)
{
	pthread_once(&zs_table_once, zs_table_build);
	z->zs_class = zs_table;
}

/* kernel: get_size_class_index() of zs_malloc's size (length + handle). */
static unsigned int zs_class_of(const struct msim__zswap *z, unsigned int length)
{
	unsigned int size = length + ZS_HANDLE_SIZE, idx = 0;

	if (size > ZS_MIN_ALLOC_SIZE)
		idx = (size - ZS_MIN_ALLOC_SIZE + ZS_SIZE_CLASS_DELTA - 1) / ZS_SIZE_CLASS_DELTA;
	if (idx > MSIM__ZS_SIZE_CLASSES - 1)
		idx = MSIM__ZS_SIZE_CLASSES - 1;
	return z->zs_class[idx].merged;
}

void msim__zswap_zs_account(struct msim__zswap *z, unsigned int length, long delta)
{
	msim_quiet_fetch_add(&z->zs_objs[zs_class_of(z, length)], (unsigned long)delta,
			     MSIM_RELAXED);
}

/* kernel: zs_get_total_pages(): every class's zspages (packed, see above). */
unsigned long msim__zswap_total_pages(struct msim__zswap *z)
{
	long bytes = msim_atomic_long_read(&z->pool_bytes);
	unsigned long pages = 0;

	if (bytes <= 0)
		return 0;
	if (!z->p.zsmalloc_pages)
		return ((unsigned long)bytes + MSIM_PAGE_SIZE - 1) / MSIM_PAGE_SIZE;
	for (unsigned int i = 0; i < MSIM__ZS_SIZE_CLASSES; i++) {
		unsigned long objs = msim_quiet_load(&z->zs_objs[i], MSIM_RELAXED);
		const struct msim__zs_class *c = &z->zs_class[i];

		if (objs)
			pages += (objs + c->objs_per_zspage - 1) / c->objs_per_zspage *
				 c->pages_per_zspage;
	}
	return pages;
}

unsigned long msim__zswap_max_pages(const struct msim__zswap *z)
{
	return z->p.total_ram_pages * z->p.max_pool_percent / 100;
}

unsigned long msim__zswap_accept_thr_pages(const struct msim__zswap *z)
{
	return msim__zswap_max_pages(z) * z->p.accept_thr_percent / 100;
}

/*
 * kernel: zswap_check_limits(): full once the pool reaches its max, and stays
 * full (stores rejected) until it shrinks to the accept threshold: the
 * hysteresis keeps a pool at its limit from flapping between accept and reject.
 * The flag is a plain racy bool in the kernel too; no race shown here depends
 * on it, so it is bookkeeping without a yield point.
 */
bool msim__zswap_check_limits(struct msim__zswap *z)
{
	unsigned long cur = msim__zswap_total_pages(z);

	msim__zswap_note(&z->pool_reached_full, MSIM_ACCESS_RMW); /* read by every store */
	if (cur >= msim__zswap_max_pages(z)) {
		msim__zswap_count(&z->pool_limit_hit, 1);
		msim_quiet_store(&z->pool_reached_full, true, MSIM_RELAXED);
	} else if (msim_quiet_load(&z->pool_reached_full, MSIM_RELAXED) &&
		   cur <= msim__zswap_accept_thr_pages(z)) {
		msim_quiet_store(&z->pool_reached_full, false, MSIM_RELAXED);
	}
	return msim_quiet_load(&z->pool_reached_full, MSIM_RELAXED);
}

struct msim__zswap_entry *msim__zswap_entry_alloc(void)
{
	struct msim__zswap_entry *e = calloc(1, sizeof(*e));

	if (e)
		msim_init_list_head(&e->lru);
	return e;
}

/*
 * kernel: zswap_store_page() after the tree store: the objcg reference and
 * charge, then the pool counters. The objcg's reference is the entry's own
 * (obj_cgroup_get), kept until zswap_entry_free().
 */
void msim__zswap_entry_account(struct msim__zswap *z, struct msim__zswap_entry *e)
{
	if (e->objcg) {
		msim_obj_cgroup_get(e->objcg);
		/* Then the stock's lock, or (the root objcg: no charge) the pool counters. */
		msim_yield_access("zswap.store.charge", NULL, MSIM_ACCESS_NONE);
		msim_obj_cgroup_charge_zswap(e->objcg, e->length);
	}
	msim_atomic_long_add(&z->stored_pages, 1);
	if (e->length == MSIM_PAGE_SIZE)
		msim_atomic_long_add(&z->stored_incomp, 1);
	msim_atomic_long_add(&z->pool_bytes, (long)e->length);
	msim__zswap_zs_account(z, e->length, 1);
}
