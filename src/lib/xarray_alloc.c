/* SPDX-License-Identifier: MIT */
/*
 * xarray_alloc.c - conditional stores and id allocation in the xarray (kernel:
 * lib/xarray.c __xa_cmpxchg(), __xa_insert(), xa_reserve(), xa_release(),
 * __xa_alloc(), __xa_alloc_cyclic()).
 *
 * Everything here is a compare-and-exchange on the raw slot, so a reserved slot
 * (MSIM_XA_ZERO_ENTRY) is busy for an insert and matches only a reserved old
 * entry; the caller sees NULL for it, as every reader does. Each call is one
 * lock section: a lock and an unlock yield point.
 */
#include <assert.h>
#include <errno.h>

#include <memcgsim/xarray.h>

#include "lib/xarray_internal.h"

/*
 * kernel: __xa_cmpxchg_raw(): the raw previous contents. An empty slot that is
 * filled loses its free mark; a NULL entry erases (it does not reserve).
 */
static void *cmpxchg_raw(struct msim_xarray *xa, unsigned long index, void *old, void *entry,
			 int *err)
{
	struct msim__xa_pos pos;
	void *curr;

	assert(msim_lock_held_by_me(&xa->lock));
	*err = 0;
	if (!msim__xa_storable(entry)) {
		*err = -EINVAL;
		return NULL;
	}
	curr = msim__xa_peek(xa, index, NULL);
	if (curr != old)
		return curr;
	if (!entry) {
		if (curr)
			msim__xa_erase_raw(xa, index);
		return curr;
	}
	msim__xa_store_raw(xa, index, entry, &pos, err);
	if (*err)
		return NULL;
	if (msim__xa_track_free(xa) && !curr)
		msim__xa_mark_clear(xa, pos.node, pos.offset, MSIM_XA_FREE_MARK);
	return curr;
}

/* kernel: lib/xarray.c __xa_cmpxchg() */
void *msim_xa_cmpxchg_locked(struct msim_xarray *xa, unsigned long index, void *old,
			     void *entry, int *err)
{
	int e;
	void *curr = cmpxchg_raw(xa, index, old, entry, &e);

	if (err)
		*err = e;
	return msim__xa_zero_to_null(curr);
}

/* kernel: include/linux/xarray.h xa_cmpxchg() */
void *msim_xa_cmpxchg(struct msim_xarray *xa, unsigned long index, void *old, void *entry,
		      int *err)
{
	void *curr;

	msim_lock(&xa->lock);
	curr = msim_xa_cmpxchg_locked(xa, index, old, entry, err);
	msim_unlock(&xa->lock);
	return curr;
}

/* kernel: lib/xarray.c __xa_insert(): a NULL entry reserves. */
int msim_xa_insert_locked(struct msim_xarray *xa, unsigned long index, void *entry)
{
	int err;
	void *curr;

	curr = cmpxchg_raw(xa, index, NULL, entry ? entry : MSIM_XA_ZERO_ENTRY, &err);
	if (err)
		return err;
	return curr ? -EBUSY : 0;
}

/* kernel: include/linux/xarray.h xa_insert() */
int msim_xa_insert(struct msim_xarray *xa, unsigned long index, void *entry)
{
	int ret;

	msim_lock(&xa->lock);
	ret = msim_xa_insert_locked(xa, index, entry);
	msim_unlock(&xa->lock);
	return ret;
}

/* kernel: include/linux/xarray.h xa_reserve(): an occupied slot is left as it is. */
int msim_xa_reserve(struct msim_xarray *xa, unsigned long index)
{
	int err;

	msim_lock(&xa->lock);
	cmpxchg_raw(xa, index, NULL, MSIM_XA_ZERO_ENTRY, &err);
	msim_unlock(&xa->lock);
	return err;
}

/* kernel: include/linux/xarray.h xa_release(): only a slot still reserved. */
void msim_xa_release(struct msim_xarray *xa, unsigned long index)
{
	int err;

	msim_lock(&xa->lock);
	cmpxchg_raw(xa, index, MSIM_XA_ZERO_ENTRY, NULL, &err);
	msim_unlock(&xa->lock);
}

/* kernel: lib/xarray.c __xa_alloc(): *id is set before the entry is visible. */
int msim_xa_alloc_locked(struct msim_xarray *xa, uint32_t *id, void *entry,
			 struct msim_xa_limit limit)
{
	struct msim__xa_pos pos;
	unsigned long index;
	int err = 0;

	assert(msim_lock_held_by_me(&xa->lock));
	if (!msim__xa_storable(entry) || !msim__xa_track_free(xa))
		return -EINVAL;
	if (msim__xa_find_free(xa, limit.min, limit.max, &index) < 0)
		return -EBUSY;
	*id = (uint32_t)index;
	msim__xa_store_raw(xa, index, entry ? entry : MSIM_XA_ZERO_ENTRY, &pos, &err);
	if (err)
		return err;
	msim__xa_mark_clear(xa, pos.node, pos.offset, MSIM_XA_FREE_MARK);
	return 0;
}

int msim_xa_alloc(struct msim_xarray *xa, uint32_t *id, void *entry, struct msim_xa_limit limit)
{
	int ret;

	msim_lock(&xa->lock);
	ret = msim_xa_alloc_locked(xa, id, entry, limit);
	msim_unlock(&xa->lock);
	return ret;
}

/* kernel: lib/xarray.c __xa_alloc_cyclic() */
int msim_xa_alloc_cyclic_locked(struct msim_xarray *xa, uint32_t *id, void *entry,
				struct msim_xa_limit limit, uint32_t *next)
{
	uint32_t min = limit.min;
	int ret;

	limit.min = *next > min ? *next : min;
	ret = msim_xa_alloc_locked(xa, id, entry, limit);
	if (ret == 0 && (msim__xa_flags(xa) & MSIM__XA_FLAG_WRAPPED)) {
		msim__xa_flag_clear(xa, MSIM__XA_FLAG_WRAPPED);
		ret = 1;
	}
	if (ret < 0 && limit.min > min) {
		limit.min = min;
		ret = msim_xa_alloc_locked(xa, id, entry, limit);
		if (ret == 0)
			ret = 1;
	}
	if (ret >= 0) {
		*next = *id + 1;
		if (*next == 0)
			msim__xa_flag_set(xa, MSIM__XA_FLAG_WRAPPED);
	}
	return ret;
}

/* kernel: include/linux/xarray.h xa_alloc_cyclic(): a wrap is not reported. */
int msim_xa_alloc_cyclic(struct msim_xarray *xa, uint32_t *id, void *entry,
			 struct msim_xa_limit limit, uint32_t *next)
{
	int ret;

	msim_lock(&xa->lock);
	ret = msim_xa_alloc_cyclic_locked(xa, id, entry, limit, next);
	msim_unlock(&xa->lock);
	return ret < 0 ? ret : 0;
}
