/* SPDX-License-Identifier: MIT */
/*
 * idr.h - an id allocator that maps ids to pointers (kernel: lib/idr.c), on an
 * allocating xarray as the kernel's is: the memory follows the ids in use (one
 * 576-byte node per 64 neighbouring ids, plus the path above them), however
 * high they are. msim_idr_alloc() hands out the lowest free id of a range, as
 * idr_alloc() does for shrinker ids and xa_alloc() for memcg private ids.
 * msim_idr_find() and iteration are RCU-safe.
 *
 * Ids are unsigned long up to LONG_MAX (the kernel's idr_alloc_u32() and
 * idr_get_next_ul() range; its int idr_alloc() stops at INT_MAX).
 *
 * Locking: the idr's own lock serialises allocators, removers and replacers
 * (the kernel's callers bring theirs: shrinker_mutex, the memcg id lock). It
 * nests outside the xarray's lock.
 */
#ifndef MEMCGSIM_IDR_H
#define MEMCGSIM_IDR_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>

#include <memcgsim/xarray.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Error pointers (kernel: ERR_PTR(), IS_ERR(), PTR_ERR()), for the calls that
 * return a pointer or an errno in one value: msim_idr_replace(). The top 4095
 * addresses stand for -1 .. -4095; no object lives there.
 */
#define MSIM_MAX_ERRNO 4095

static inline void *msim_err_ptr(long err)
{
	return (void *)err;
}

static inline bool msim_is_err(const void *p)
{
	return (unsigned long)p >= (unsigned long)-MSIM_MAX_ERRNO;
}

static inline long msim_ptr_err(const void *p)
{
	return (long)p;
}

/* Embed by value; fields are private to src/lib (use the calls below). */
struct msim_idr {
	struct msim_xarray xa;   /* MSIM_XA_FLAGS_ALLOC: ids are its indices */
	unsigned long next;      /* the cyclic allocator's cursor (kernel: idr_next) */
	struct msim_lock lock;
};

MSIM_API void msim_idr_init(struct msim *m, struct msim_idr *idr, const char *owner);
/*
 * kernel: idr_destroy(). Free every id and the memory behind them; the idr stays
 * usable. Like the kernel's, the caller excludes allocators and removers.
 */
MSIM_API void msim_idr_destroy(struct msim_idr *idr);
/* Model-only: msim_idr_destroy() and the end of the idr's life (msim_xa_fini()). */
MSIM_API void msim_idr_fini(struct msim_idr *idr);

/*
 * Allocate the lowest free id in [start, end] (inclusive) for ptr. A NULL ptr
 * reserves the id (msim_idr_find returns NULL until msim_idr_replace), as the
 * kernel's idr_alloc(idr, NULL, ...) and xa_alloc(..., NULL, ...) do for memcg ids.
 * Returns the id, or -ENOSPC when the range is full, -EINVAL for a bad range
 * (start > end, or end above LONG_MAX), -ENOMEM.
 */
MSIM_API long msim_idr_alloc(struct msim_idr *idr, void *ptr, unsigned long start, unsigned long end);

/*
 * kernel: idr_alloc_cyclic(). The lowest free id in [max(cursor, start), end],
 * else in [start, end]; the cursor then moves past the id handed out. Returns
 * as msim_idr_alloc().
 */
MSIM_API long msim_idr_alloc_cyclic(struct msim_idr *idr, void *ptr, unsigned long start,
				    unsigned long end);
/* kernel: idr_get_cursor() / idr_set_cursor(): where the next cyclic search starts. */
MSIM_API unsigned long msim_idr_get_cursor(const struct msim_idr *idr);
MSIM_API void msim_idr_set_cursor(struct msim_idr *idr, unsigned long next);

/* The pointer at id, or NULL (free, or reserved with NULL). RCU-safe. */
MSIM_API void *msim_idr_find(struct msim_idr *idr, unsigned long id);

/*
 * kernel: idr_replace(). Put ptr (NULL keeps the id reserved) at an allocated
 * id; returns the old pointer (NULL for an id reserved with NULL), or
 * msim_err_ptr(-ENOENT) when id is not allocated: test with msim_is_err().
 */
MSIM_API void *msim_idr_replace(struct msim_idr *idr, void *ptr, unsigned long id);

/* Free id; returns the pointer it held, or NULL if it was not allocated. */
MSIM_API void *msim_idr_remove(struct msim_idr *idr, unsigned long id);

/* True if id is allocated (reserved or holding a pointer). */
MSIM_API bool msim_idr_allocated(struct msim_idr *idr, unsigned long id);
/* Number of allocated ids. */
MSIM_API unsigned long msim_idr_count(const struct msim_idr *idr);
/* kernel: idr_is_empty() */
MSIM_API bool msim_idr_is_empty(const struct msim_idr *idr);

/*
 * kernel: idr_get_next_ul(). The first pointer at an id >= *nextid (ids
 * reserved with NULL are skipped); *nextid becomes its id. NULL at the end.
 * RCU-safe: ids allocated or removed meanwhile may or may not be seen, and no
 * other id is skipped or made up.
 */
MSIM_API void *msim_idr_get_next(struct msim_idr *idr, unsigned long *nextid);

/*
 * kernel: idr_for_each(). fn(id, ptr, data) for each pointer in id order; a
 * nonzero return stops the walk and is returned. RCU-safe as above.
 */
MSIM_API int msim_idr_for_each(struct msim_idr *idr, int (*fn)(unsigned long id, void *p, void *data),
			       void *data);

/* kernel: idr_for_each_entry() */
#define msim_idr_for_each_entry(idr, entry, id)                                             \
	for ((id) = 0; ((entry) = msim_idr_get_next((idr), &(id))) != NULL; (id) += 1U)

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_IDR_H */
