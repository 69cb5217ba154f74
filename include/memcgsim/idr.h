/* SPDX-License-Identifier: MIT */
/*
 * idr.h - an id allocator that hands out the lowest free id of a range and maps
 * ids to pointers (the kernel's idr_alloc(..., 0, 0) and xa_alloc behaviour, as
 * used by shrinker ids and memcg private ids). idr_find is RCU-safe.
 */
#ifndef MEMCGSIM_IDR_H
#define MEMCGSIM_IDR_H

#include <stdbool.h>
#include <stddef.h>

#include <memcgsim/xarray.h>

#ifdef __cplusplus
extern "C" {
#endif

struct msim_idr {
	struct msim_xarray xa;
	unsigned long *free_hint;   /* bitmap of used ids, grown on demand */
	unsigned long bitmap_bits;
	unsigned long first_free_word; /* no zero bit in words below this one */
	unsigned long nr_ids;          /* ids allocated */
	struct msim_lock lock;
};

void msim_idr_init(struct msim *m, struct msim_idr *idr, const char *owner);
/* kernel: idr_destroy(). Free every id and the memory behind them; the idr stays usable. */
void msim_idr_destroy(struct msim_idr *idr);
/* Model-only: msim_idr_destroy() and the end of the idr's life (msim_xa_fini()). */
void msim_idr_fini(struct msim_idr *idr);

/*
 * Allocate the lowest free id in [start, end] (inclusive) for ptr. A NULL ptr
 * reserves the id (msim_idr_find returns NULL until msim_idr_replace), as the
 * kernel's idr_alloc(idr, NULL, ...) and xa_alloc(..., NULL, ...) do for memcg ids.
 * Returns the id, or -ENOSPC when the range is full, -EINVAL for a bad range
 * (start > end, or end above LONG_MAX), -ENOMEM.
 */
long msim_idr_alloc(struct msim_idr *idr, void *ptr, unsigned long start, unsigned long end);

/* The pointer at id, or NULL. RCU-safe. */
void *msim_idr_find(struct msim_idr *idr, unsigned long id);

/* Replace the pointer at an allocated id; returns the old one (NULL if not allocated). */
void *msim_idr_replace(struct msim_idr *idr, void *ptr, unsigned long id);

/* Free id; returns the pointer it held, or NULL if it was not allocated. */
void *msim_idr_remove(struct msim_idr *idr, unsigned long id);

/* True if id is allocated (reserved or holding a pointer). */
bool msim_idr_allocated(struct msim_idr *idr, unsigned long id);
/* Number of allocated ids. */
unsigned long msim_idr_count(const struct msim_idr *idr);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_IDR_H */
