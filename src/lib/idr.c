/* SPDX-License-Identifier: MIT */
/*
 * idr.c - the id allocator (kernel: lib/idr.c idr_alloc(), idr_find(),
 * idr_replace(), idr_remove(); the xa_alloc() behaviour of memcg private ids).
 *
 * Ids map to pointers in an xarray, so msim_idr_find() is an RCU lookup like the
 * kernel's. Which ids are taken lives in a plain bitmap searched a word at a
 * time (the kernel uses the xarray's XA_FREE_MARK for the same answer), with a
 * hint of the first word that may have a zero bit, so handing out the lowest free
 * id among 65535 costs a few word reads. The bitmap is the model's own memory,
 * not charged to the kernel-memory model; the xarray nodes are.
 *
 * Locking: idr->lock serialises allocators and removers (the kernel's callers
 * hold their own mutex, shrinker_mutex or memcg_idr_lock); it nests outside the
 * xarray's lock.
 *
 * Simplifications: ids are at most INT_MAX, like the kernel's int ids; the bitmap
 * grows to the highest id ever allocated and never shrinks.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/idr.h>

#define IDR_WORD_BITS 64UL
#define IDR_MAX_ID ((unsigned long)INT_MAX)

void msim_idr_init(struct msim *m, struct msim_idr *idr, const char *owner)
{
	memset(idr, 0, sizeof(*idr));
	msim_xa_init(m, &idr->xa, owner ? owner : "idr");
	msim_lock_init(&idr->lock, "idr_lock");
}

/*
 * kernel: lib/idr.c idr_destroy(): every id freed, the idr stays usable. Like
 * the kernel's, it needs the caller to exclude allocators and removers.
 */
void msim_idr_destroy(struct msim_idr *idr)
{
	msim_xa_destroy(&idr->xa);
	free(idr->free_hint);
	idr->free_hint = NULL;
	idr->bitmap_bits = 0;
	idr->first_free_word = 0;
	__atomic_store_n(&idr->nr_ids, 0, __ATOMIC_RELAXED);
}

/* Model-only: the end of the idr's life (see msim_xa_fini()). */
void msim_idr_fini(struct msim_idr *idr)
{
	msim_idr_destroy(idr);
	msim_xa_fini(&idr->xa);
	msim_lock_destroy(&idr->lock);
}

static bool bit_test(const struct msim_idr *idr, unsigned long id)
{
	return id < idr->bitmap_bits &&
	       ((idr->free_hint[id / IDR_WORD_BITS] >> (id % IDR_WORD_BITS)) & 1);
}

/* Make the bitmap cover id (doubling, so growth is amortised O(1)). */
static int bitmap_cover(struct msim_idr *idr, unsigned long id)
{
	unsigned long bits = idr->bitmap_bits ? idr->bitmap_bits : 1024, *words;

	if (id < idr->bitmap_bits)
		return 0;
	while (bits <= id)
		bits *= 2;
	words = realloc(idr->free_hint, bits / 8);
	if (!words)
		return -ENOMEM;
	memset(words + idr->bitmap_bits / IDR_WORD_BITS, 0, (bits - idr->bitmap_bits) / 8);
	idr->free_hint = words;
	__atomic_store_n(&idr->bitmap_bits, bits, __ATOMIC_RELAXED);
	return 0;
}

/* The lowest clear bit in [start, end], or -ENOSPC; ids past the bitmap are free. */
static long bitmap_find_zero(const struct msim_idr *idr, unsigned long start, unsigned long end)
{
	unsigned long nwords = idr->bitmap_bits / IDR_WORD_BITS;
	unsigned long w = start / IDR_WORD_BITS, id;

	if (w < idr->first_free_word) {
		w = idr->first_free_word;
		start = w * IDR_WORD_BITS;
	}
	for (; w < nwords && w * IDR_WORD_BITS <= end; w++) {
		unsigned long free_bits = ~idr->free_hint[w];

		if (w == start / IDR_WORD_BITS)
			free_bits &= ~0UL << (start % IDR_WORD_BITS);
		if (free_bits) {
			id = w * IDR_WORD_BITS + (unsigned long)__builtin_ctzl(free_bits);
			return id <= end ? (long)id : -ENOSPC;
		}
	}
	id = start > idr->bitmap_bits ? start : idr->bitmap_bits;
	return id <= end ? (long)id : -ENOSPC;
}

static void bit_set(struct msim_idr *idr, unsigned long id)
{
	unsigned long w = id / IDR_WORD_BITS;

	idr->free_hint[w] |= 1UL << (id % IDR_WORD_BITS);
	while (idr->first_free_word < idr->bitmap_bits / IDR_WORD_BITS &&
	       idr->free_hint[idr->first_free_word] == ~0UL)
		idr->first_free_word++;
	__atomic_store_n(&idr->nr_ids, idr->nr_ids + 1, __ATOMIC_RELAXED);
}

static void bit_clear(struct msim_idr *idr, unsigned long id)
{
	unsigned long w = id / IDR_WORD_BITS;

	idr->free_hint[w] &= ~(1UL << (id % IDR_WORD_BITS));
	if (w < idr->first_free_word)
		idr->first_free_word = w;
	__atomic_store_n(&idr->nr_ids, idr->nr_ids - 1, __ATOMIC_RELAXED);
}

/* kernel: lib/idr.c idr_alloc() -> idr_alloc_u32() -> xa_alloc() */
long msim_idr_alloc(struct msim_idr *idr, void *ptr, unsigned long start, unsigned long end)
{
	long id;
	int err = 0;

	if (start > end || start > IDR_MAX_ID || end > LONG_MAX)
		return -EINVAL;
	if (end > IDR_MAX_ID)
		end = IDR_MAX_ID;
	msim_lock(&idr->lock);
	id = bitmap_find_zero(idr, start, end);
	if (id >= 0 && bitmap_cover(idr, (unsigned long)id) < 0)
		id = -ENOMEM;
	if (id >= 0 && ptr)
		msim_xa_store(&idr->xa, (unsigned long)id, ptr, &err);
	if (id >= 0 && err)
		id = err;
	if (id >= 0)
		bit_set(idr, (unsigned long)id);
	msim_unlock(&idr->lock);
	return id;
}

/* kernel: lib/idr.c idr_find(): RCU-safe */
void *msim_idr_find(struct msim_idr *idr, unsigned long id)
{
	return msim_xa_load(&idr->xa, id);
}

/* kernel: lib/idr.c idr_replace() (-ENOENT there; NULL here) */
void *msim_idr_replace(struct msim_idr *idr, void *ptr, unsigned long id)
{
	void *old = NULL;

	msim_lock(&idr->lock);
	if (bit_test(idr, id))
		old = msim_xa_store(&idr->xa, id, ptr, NULL);
	msim_unlock(&idr->lock);
	return old;
}

/* kernel: lib/idr.c idr_remove() */
void *msim_idr_remove(struct msim_idr *idr, unsigned long id)
{
	void *old = NULL;

	msim_lock(&idr->lock);
	if (bit_test(idr, id)) {
		old = msim_xa_erase(&idr->xa, id);
		bit_clear(idr, id);
	}
	msim_unlock(&idr->lock);
	return old;
}

bool msim_idr_allocated(struct msim_idr *idr, unsigned long id)
{
	bool ret;

	msim_lock(&idr->lock);
	ret = bit_test(idr, id);
	msim_unlock(&idr->lock);
	return ret;
}

unsigned long msim_idr_count(const struct msim_idr *idr)
{
	return __atomic_load_n(&idr->nr_ids, __ATOMIC_RELAXED);
}
