/* SPDX-License-Identifier: MIT */
/*
 * kmem_size.c - what the kernel charges for a request: kmalloc size classes, the
 * page allocator above them, and SLUB's slab order and slot size for a dedicated
 * cache. Pure functions of their arguments (docs/kmem.md derives each rule).
 */
#include <stdint.h>

#include "kmem_size.h"

/* kernel: include/asm-generic/bitops/fls.h fls() */
static unsigned int kmem_fls(unsigned long x)
{
	return x ? 64 - (unsigned int)__builtin_clzl(x) : 0;
}

/* kernel: include/asm-generic/getorder.h get_order(); size >= 1 */
static unsigned int kmem_get_order(size_t size)
{
	unsigned int order = 0;

	while ((MSIM_PAGE_SIZE << order) < size)
		order++;
	return order;
}

/*
 * kernel: include/linux/slab.h kmalloc_index() / kmalloc_size_roundup().
 * 1-8 -> 8, 9-16 -> 16, 17-32 -> 32, 33-64 -> 64, 65-96 -> 96, 97-128 -> 128,
 * 129-192 -> 192, then powers of two up to 8 KiB; above that the page allocator
 * (2^order pages, kernel: mm/slub.c ___kmalloc_large_node()). Above
 * MAX_PAGE_ORDER the kernel's kmalloc fails and kvmalloc falls back to vmalloc:
 * whole pages. A zero-size request is charged nothing (ZERO_SIZE_PTR).
 */
size_t msim_kmalloc_size(size_t size)
{
	static const unsigned short small[] = { 8, 16, 32, 32, 64, 64, 64, 64,
						96, 96, 96, 96, 128, 128, 128, 128,
						192, 192, 192, 192, 192, 192, 192, 192 };
	size_t c;

	if (size == 0)
		return 0;
	if (size <= 192)
		return small[(size - 1) / 8];
	if (size <= MSIM_KMALLOC_MAX_CACHE_SIZE) {
		for (c = 256; c < size; c <<= 1)
			;
		return c;
	}
	if (size <= (MSIM_PAGE_SIZE << MAX_PAGE_ORDER))
		return MSIM_PAGE_SIZE << kmem_get_order(size);
	if (size > SIZE_MAX - MSIM_PAGE_SIZE)
		return SIZE_MAX;
	return (size + MSIM_PAGE_SIZE - 1) & ~(MSIM_PAGE_SIZE - 1);
}

static unsigned int slub_order_objects(unsigned int order, size_t size)
{
	return (unsigned int)((MSIM_PAGE_SIZE << order) / size);
}

/*
 * kernel: mm/slub.c calculate_order() and calc_slab_order() (6.8+ form).
 * min_objects = 4 * (fls(nr_cpus) + 1), capped by what fits in an order-3 slab;
 * start at the order that holds min_objects; take the lowest order up to 3 whose
 * leftover is at most 1/16 of the slab, else 1/8, else 1/4; if nothing up to
 * order 3 holds one object, get_order(size).
 */
unsigned int msim_slub_calculate_order(size_t size, unsigned int nr_cpus)
{
	unsigned int min_objects, max_objects, min_order, order, fraction;

	if (size == 0)
		size = ARCH_SLAB_MINALIGN;
	min_objects = 4 * (kmem_fls(nr_cpus ? nr_cpus : 1) + 1);
	max_objects = slub_order_objects(SLUB_MAX_ORDER, size);
	if (max_objects < 1)
		max_objects = 1;
	if (min_objects > max_objects)
		min_objects = max_objects;
	min_order = kmem_get_order((size_t)min_objects * size);
	if (slub_order_objects(min_order, size) > SLUB_MAX_OBJS_PER_PAGE)
		return kmem_get_order(size * SLUB_MAX_OBJS_PER_PAGE) - 1;
	for (fraction = 16; fraction > 1; fraction /= 2) {
		for (order = min_order; order <= SLUB_MAX_ORDER; order++) {
			size_t slab = MSIM_PAGE_SIZE << order;

			if (slab % size <= slab / fraction)
				return order;
		}
	}
	return kmem_get_order(size);
}

/* kernel: mm/slub.c calculate_sizes(), the non-debug part. */
size_t msim__slub_slot_size(size_t object_size, unsigned int flags)
{
	size_t align = (flags & MSIM_SLAB_HWCACHE_ALIGN) ? CACHE_LINE : ARCH_SLAB_MINALIGN;
	size_t size = object_size ? object_size : 1;

	size = (size + ARCH_SLAB_MINALIGN - 1) & ~(size_t)(ARCH_SLAB_MINALIGN - 1);
	if (flags & MSIM_SLAB_FREEPTR_OUTSIDE)
		size += sizeof(void *);
	return (size + align - 1) & ~(align - 1);
}
