/* SPDX-License-Identifier: MIT */
/*
 * swapdev.c - the simulated swap device behind zswap (kernel: mm/swapfile.c
 * swap_map and folio_alloc_swap/swap_free, SWAP_HAS_CACHE of mm/swap_state.c,
 * mm/swap_cgroup.c).
 *
 * A slot is free, used (its data is in zswap, or on its way to the device), or
 * on disk. The swap cache claim stands for SWAP_HAS_CACHE: the fault path and
 * zswap writeback each need it, so at most one of them handles a slot at a
 * time; a writeback that finds it taken fails with -EEXIST (the kernel's
 * swap_cache_alloc_folio() finding a cached folio). The device records the
 * private memcg id of the page's owner (swap_cgroup_record), which a swap-in
 * charges. Simplifications: one device, no clusters or per-CPU slot caches, no
 * swap counts above one (no shared anon pages), no MEMCG_SWAP charge.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zswap/zswap_internal.h"

/*
 * The arrays cover the slots below cap only: a slot at or above it has never
 * been allocated, so it is free, uncached and unowned, as a zeroed array would
 * say. They grow when msim__swapdev_alloc() hands out such a slot, so a host
 * that swaps a few pages does not zero a device's worth of bytes at attach.
 * Which slot is chosen does not depend on cap.
 */
#define SWAPDEV_FIRST_CAP 256UL

int msim__swapdev_init(struct msim__swapdev *d, unsigned long nr_slots)
{
	d->nr_slots = nr_slots;
	d->cap = 0;
	d->state = d->cache = NULL;
	d->memcg_id = NULL;
	d->cursor = d->used = d->nomem = 0;
	msim_spin_lock_init(&d->lock, "swap_info.lock");
	d->live = true;
	return 0;
}

void msim__swapdev_fini(struct msim__swapdev *d)
{
	if (d->live)
		msim_lock_destroy(&d->lock);
	d->live = false;
	free(d->state);
	free(d->cache);
	free(d->memcg_id);
	d->state = d->cache = NULL;
	d->memcg_id = NULL;
	d->cap = 0;
}

/* Caller holds d->lock. Cover slot with the arrays; false on ENOMEM (nothing changed). */
static bool swapdev_cover(struct msim__swapdev *d, unsigned long slot)
{
	unsigned long cap = d->cap ? d->cap : SWAPDEV_FIRST_CAP;
	unsigned char *state, *cache;
	unsigned short *id;

	if (slot < d->cap)
		return true;
	while (cap <= slot)
		cap *= 2;
	if (cap > d->nr_slots)
		cap = d->nr_slots;
	state = realloc(d->state, cap);
	if (state)
		d->state = state;
	cache = state ? realloc(d->cache, cap) : NULL;
	if (cache)
		d->cache = cache;
	id = cache ? realloc(d->memcg_id, cap * sizeof(*id)) : NULL;
	if (!id)
		return false;
	d->memcg_id = id;
	memset(d->state + d->cap, MSIM__SLOT_FREE, cap - d->cap);
	memset(d->cache + d->cap, 0, cap - d->cap);
	memset(d->memcg_id + d->cap, 0, (cap - d->cap) * sizeof(*id));
	d->cap = cap;
	return true;
}

static unsigned char slot_state(const struct msim__swapdev *d, unsigned long slot)
{
	return slot < d->cap ? d->state[slot] : MSIM__SLOT_FREE;
}

static bool slot_cached(const struct msim__swapdev *d, unsigned long slot)
{
	return slot < d->cap && d->cache[slot];
}

bool msim__swapdev_valid(const struct msim__swapdev *d, long slot)
{
	return slot >= 0 && (unsigned long)slot < d->nr_slots;
}

long msim__swapdev_alloc(struct msim__swapdev *d, unsigned short memcg_id)
{
	long slot = -1;

	msim_lock(&d->lock);
	for (unsigned long i = 0; i < d->nr_slots && slot < 0; i++) {
		unsigned long s = (d->cursor + i) % d->nr_slots;

		if (slot_state(d, s) == MSIM__SLOT_FREE && !slot_cached(d, s))
			slot = (long)s;
	}
	if (slot >= 0 && !swapdev_cover(d, (unsigned long)slot)) {
		/* no memory for the arrays: as if the device were full, and counted
		 * (msim_zswap_stats swap_slots_nomem), where attach used to fail */
		slot = -1;
		d->nomem++;
	}
	if (slot >= 0) {
		d->state[slot] = MSIM__SLOT_USED;
		d->memcg_id[slot] = memcg_id;
		d->cursor = (unsigned long)slot + 1;
		d->used++;
	}
	msim_unlock(&d->lock);
	return slot;
}

void msim__swapdev_free(struct msim__swapdev *d, unsigned long slot)
{
	msim_lock(&d->lock);
	if (slot < d->cap) {
		if (d->state[slot] != MSIM__SLOT_FREE)
			d->used--;
		d->state[slot] = MSIM__SLOT_FREE;
		d->cache[slot] = 0;             /* the freer held it (or nobody did) */
		d->memcg_id[slot] = 0;
	}
	msim_unlock(&d->lock);
}

void msim__swapdev_set_disk(struct msim__swapdev *d, unsigned long slot)
{
	msim_lock(&d->lock);
	/* Only a used slot goes to disk, and a used slot is covered; never a new one. */
	if (slot < d->cap)
		d->state[slot] = MSIM__SLOT_DISK;
	msim_unlock(&d->lock);
}

bool msim__swapdev_on_disk(struct msim__swapdev *d, unsigned long slot)
{
	bool ret;

	msim_lock(&d->lock);
	ret = slot_state(d, slot) == MSIM__SLOT_DISK;
	msim_unlock(&d->lock);
	return ret;
}

unsigned short msim__swapdev_memcg_id(struct msim__swapdev *d, unsigned long slot)
{
	unsigned short id;

	msim_lock(&d->lock);
	id = slot < d->cap ? d->memcg_id[slot] : 0;
	msim_unlock(&d->lock);
	return id;
}

int msim__swapdev_claim_cache(struct msim__swapdev *d, unsigned long slot, const char *point)
{
	int ret = 0;

	/* Touches nothing before the lock; the slot's bytes are read under it. */
	msim_yield_access(point, NULL, MSIM_ACCESS_NONE);
	msim_lock(&d->lock);
	if (slot_state(d, slot) == MSIM__SLOT_FREE)
		ret = -ENOENT;   /* so a cached slot is covered */
	else if (d->cache[slot])
		ret = -EEXIST;
	else
		d->cache[slot] = 1;
	msim_unlock(&d->lock);
	return ret;
}

void msim__swapdev_release_cache(struct msim__swapdev *d, unsigned long slot)
{
	msim_lock(&d->lock);
	if (slot < d->cap)
		d->cache[slot] = 0;
	msim_unlock(&d->lock);
}
