/* SPDX-License-Identifier: MIT */
/*
 * idr.c - the id allocator (kernel: lib/idr.c idr_alloc(), idr_alloc_cyclic(),
 * idr_find(), idr_replace(), idr_remove(), idr_get_next_ul(), idr_for_each();
 * the xa_alloc() behaviour of memcg private ids).
 *
 * Ids are the indices of an allocating xarray (MSIM_XA_FLAGS_ALLOC), as the
 * kernel's idr is a radix tree with an IDR_FREE tag: a pointer is the entry, an
 * id reserved with NULL holds the reserved entry, and the xarray's free mark
 * finds the lowest free id in a few mark words per level. Memory is the nodes
 * that hold ids in use, charged to the kernel-memory model; nothing grows with
 * the highest id ever handed out.
 *
 * Locking: idr->lock serialises every writer, so under it the xarray can be
 * read without its own lock (msim__xa_peek(), msim__xa_find_free()). Its lock is
 * taken only around a change, which keeps the yield points of the bitmap
 * version this replaced: alloc, replace and remove of an allocated id are
 * "lock, lock, unlock, unlock", a failed one "lock, unlock". Race traces depend
 * on that sequence.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <memcgsim/idr.h>

#include "lib/xarray_internal.h"

void msim_idr_init(struct msim *m, struct msim_idr *idr, const char *owner)
{
	memset(idr, 0, sizeof(*idr));
	msim_xa_init_flags(m, &idr->xa, owner ? owner : "idr", MSIM_XA_FLAGS_ALLOC);
	msim_spin_lock_init(&idr->lock, "idr_lock");
}

/* kernel: lib/idr.c idr_destroy(): every id freed, the idr stays usable. */
void msim_idr_destroy(struct msim_idr *idr)
{
	msim_xa_destroy(&idr->xa);
}

/* Model-only: the end of the idr's life (see msim_xa_fini()). */
void msim_idr_fini(struct msim_idr *idr)
{
	msim_xa_fini(&idr->xa);
	msim_lock_destroy(&idr->lock);
}

/* Store ptr (NULL reserves) at a free id found under idr->lock. */
static long idr_take(struct msim_idr *idr, void *ptr, unsigned long id)
{
	int err = 0;

	msim_xa_lock(&idr->xa);
	msim_xa_store_locked(&idr->xa, id, ptr, &err);
	msim_xa_unlock(&idr->xa);
	return err ? err : (long)id;
}

static bool bad_range(unsigned long start, unsigned long end)
{
	return start > end || end > (unsigned long)LONG_MAX;
}

/* kernel: lib/idr.c idr_alloc() -> idr_alloc_u32(), lowest free id first */
long msim_idr_alloc(struct msim_idr *idr, void *ptr, unsigned long start, unsigned long end)
{
	unsigned long id;
	long ret = -ENOSPC;

	if (bad_range(start, end))
		return -EINVAL;
	msim_lock(&idr->lock);
	if (msim__xa_find_free(&idr->xa, start, end, &id) == 0)
		ret = idr_take(idr, ptr, id);
	msim_unlock(&idr->lock);
	return ret;
}

/* kernel: lib/idr.c idr_alloc_cyclic(): from the cursor, then from start. */
long msim_idr_alloc_cyclic(struct msim_idr *idr, void *ptr, unsigned long start,
			   unsigned long end)
{
	unsigned long from, id;
	int found;
	long ret = -ENOSPC;

	if (bad_range(start, end))
		return -EINVAL;
	msim_lock(&idr->lock);
	from = idr->next > start ? idr->next : start;
	found = msim__xa_find_free(&idr->xa, from, end, &id);
	if (found < 0 && from > start)
		found = msim__xa_find_free(&idr->xa, start, end, &id);
	if (found == 0)
		ret = idr_take(idr, ptr, id);
	if (ret >= 0)
		msim_quiet_store(&idr->next, id + 1, MSIM_RELAXED); /* under idr->lock */
	msim_unlock(&idr->lock);
	return ret;
}

unsigned long msim_idr_get_cursor(const struct msim_idr *idr)
{
	return msim_quiet_load(&idr->next, MSIM_RELAXED);
}

void msim_idr_set_cursor(struct msim_idr *idr, unsigned long next)
{
	msim_quiet_store(&idr->next, next, MSIM_RELAXED);
}

/* kernel: lib/idr.c idr_find(): RCU-safe */
void *msim_idr_find(struct msim_idr *idr, unsigned long id)
{
	return msim_xa_load(&idr->xa, id);
}

/* kernel: lib/idr.c idr_replace(): ERR_PTR(-ENOENT) for an id not allocated */
void *msim_idr_replace(struct msim_idr *idr, void *ptr, unsigned long id)
{
	void *old;
	int err = 0;

	msim_lock(&idr->lock);
	if (!msim__xa_peek(&idr->xa, id, NULL)) {
		old = msim_err_ptr(-ENOENT);
	} else {
		msim_xa_lock(&idr->xa);
		old = msim_xa_store_locked(&idr->xa, id, ptr, &err);
		msim_xa_unlock(&idr->xa);
		if (err)
			old = msim_err_ptr(err);
	}
	msim_unlock(&idr->lock);
	return old;
}

/* kernel: lib/idr.c idr_remove() */
void *msim_idr_remove(struct msim_idr *idr, unsigned long id)
{
	void *old = NULL;

	msim_lock(&idr->lock);
	if (msim__xa_peek(&idr->xa, id, NULL)) {
		msim_xa_lock(&idr->xa);
		old = msim_xa_erase_locked(&idr->xa, id);
		msim_xa_unlock(&idr->xa);
	}
	msim_unlock(&idr->lock);
	return old;
}

bool msim_idr_allocated(struct msim_idr *idr, unsigned long id)
{
	bool ret;

	msim_lock(&idr->lock);
	ret = msim__xa_peek(&idr->xa, id, NULL) != NULL;
	msim_unlock(&idr->lock);
	return ret;
}

unsigned long msim_idr_count(const struct msim_idr *idr)
{
	return msim_xa_nr_entries(&idr->xa);
}

bool msim_idr_is_empty(const struct msim_idr *idr)
{
	return msim_xa_empty(&idr->xa);
}

/* kernel: lib/idr.c idr_get_next_ul(): reserved ids are skipped. */
void *msim_idr_get_next(struct msim_idr *idr, unsigned long *nextid)
{
	return msim_xa_find(&idr->xa, nextid, ~0UL, MSIM_XA_PRESENT);
}

/* kernel: lib/idr.c idr_for_each() */
int msim_idr_for_each(struct msim_idr *idr, int (*fn)(unsigned long id, void *p, void *data),
		      void *data)
{
	unsigned long id;
	void *p;

	msim_xa_for_each(&idr->xa, id, p) {
		int ret = fn(id, p, data);

		if (ret)
			return ret;
	}
	return 0;
}
