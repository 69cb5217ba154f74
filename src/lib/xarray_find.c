/* SPDX-License-Identifier: MIT */
/*
 * xarray_find.c - ordered searches of the xarray (kernel: lib/xarray.c
 * xa_find(), xa_find_after(), xas_find(), xas_find_marked()) and the marks API
 * (xa_set_mark(), xa_clear_mark(), xa_get_mark()).
 *
 * A search is a series of passes from the head. A pass walks down towards the
 * first candidate at or after idx: present entries are found by scanning slots,
 * marked ones (and free slots) by the node's mark word, which skips 64 slots
 * per word and whole subtrees whose summary bit is clear. When a node has
 * nothing left, the pass ends with the first index past that node, and the next
 * pass starts there; so an RCU reader that meets a node being emptied or freed
 * still ends, with a result that was current during its section.
 */
#include <errno.h>

#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/xarray.h>

#include "lib/xarray_internal.h"

/* The first index past the subtree of the node at shift that holds idx (0: none). */
static unsigned long past_node(unsigned long idx, unsigned int shift)
{
	if (shift + MSIM_XA_CHUNK_SHIFT >= 64)
		return 0;
	return ((idx >> (shift + MSIM_XA_CHUNK_SHIFT)) + 1) << (shift + MSIM_XA_CHUNK_SHIFT);
}

/*
 * One pass from head (a node) for the first present entry at or after *index:
 * the entry with *index set, or NULL with *next where the next pass starts (0:
 * the end of the index space). Inner slots hold nodes or nothing; a reserved
 * leaf slot is skipped, as the kernel's xas_retry() skips XA_ZERO_ENTRY.
 */
static void *present_pass(void *head, unsigned long *index, unsigned long *next)
{
	struct msim_xa_node *node = msim__xa_to_node(head);
	unsigned long idx = *index;

	*next = 0;
	for (;;) {
		unsigned int shift = node->shift, first = msim__xa_offset(shift, idx), off;
		void *entry = NULL;

		for (off = first; off < MSIM_XA_CHUNK_SIZE; off++) {
			entry = msim__xa_acquire(&node->slots[off]);
			if (entry && !msim_xa_is_zero(entry))
				break;
		}
		if (off == MSIM_XA_CHUNK_SIZE) {
			*next = past_node(idx, shift);
			return NULL;
		}
		if (off != first)
			idx = (idx & ~msim__xa_node_maxindex(shift)) | ((unsigned long)off << shift);
		if (shift == 0) {
			*index = idx;
			return entry;
		}
		if (!msim__xa_is_node(entry))
			return NULL;
		node = msim__xa_to_node(entry);
	}
}

/*
 * One pass from head (a node) for the first slot at or after *index whose
 * mark bit is set, following the summary bits down. Returns true with *index
 * set and *entry the slot's contents (for the free mark, NULL when the slot is
 * empty: at an inner level, every index below it is free); false with *next
 * as for present_pass().
 */
static bool mark_pass(void *head, unsigned long *index, unsigned long *next,
		      msim_xa_mark_t mark, void **entry)
{
	struct msim_xa_node *node = msim__xa_to_node(head);
	unsigned long idx = *index;

	*next = 0;
	for (;;) {
		unsigned int shift = node->shift, first = msim__xa_offset(shift, idx), off;
		unsigned long bits = msim__xa_marks(node, mark) & (~0UL << first);

		if (!bits) {
			*next = past_node(idx, shift);
			return false;
		}
		off = (unsigned int)__builtin_ctzl(bits);
		*entry = msim__xa_acquire(&node->slots[off]);
		if (off != first)
			idx = (idx & ~msim__xa_node_maxindex(shift)) | ((unsigned long)off << shift);
		if (shift == 0 || !msim__xa_is_node(*entry)) {
			*index = idx;
			return true;
		}
		node = msim__xa_to_node(*entry);
	}
}

/*
 * The search behind xa_find(): no yield point. Inlined so that the present
 * search (the hot one: shrinker units, list_lru walks) is compiled on its own.
 */
static inline __attribute__((always_inline)) void *
find_from(struct msim_xarray *xa, unsigned long *index, unsigned long max, msim_xa_mark_t filter)
{
	unsigned long idx = *index, next;
	void *head, *entry;

	for (;;) {
		if (idx > max)
			return NULL;
		head = msim__xa_acquire(&xa->head);
		if (!msim__xa_is_node(head)) {
			if (idx == 0 && head && !msim_xa_is_zero(head) &&
			    (filter == MSIM_XA_PRESENT || msim__xa_flag_marked(xa, filter))) {
				*index = 0;
				return head;
			}
			return NULL;
		}
		if (idx > msim__xa_node_maxindex(msim__xa_to_node(head)->shift))
			return NULL;
		if (filter == MSIM_XA_PRESENT) {
			entry = present_pass(head, &idx, &next);
		} else if (mark_pass(head, &idx, &next, filter, &entry)) {
			/* A marked reserved slot (or, racing an erase, an empty one) is
			 * passed over. */
			if (!entry || msim_xa_is_zero(entry)) {
				entry = NULL;
				next = idx + 1;
			}
		} else {
			entry = NULL;
		}
		if (entry) {
			if (idx > max)
				return NULL;
			*index = idx;
			return entry;
		}
		if (next == 0 || next <= idx)
			return NULL;   /* end of the index space, or no progress */
		idx = next;
	}
}

/* kernel: lib/xarray.c xa_find() */
void *msim_xa_find(struct msim_xarray *xa, unsigned long *index, unsigned long max,
		   msim_xa_mark_t filter)
{
	msim_yield_access("xa_find", &xa->head, MSIM_ACCESS_LOAD); /* the tree */
	if (filter == MSIM_XA_PRESENT)
		return find_from(xa, index, max, MSIM_XA_PRESENT);
	if (filter >= MSIM_XA_MAX_MARKS)
		return NULL;
	return find_from(xa, index, max, filter);
}

/*
 * kernel: lib/xarray.c xa_find_after(). The same yield point as a find: the
 * loops of msim_xa_for_each() keep one yield point per step.
 */
void *msim_xa_find_after(struct msim_xarray *xa, unsigned long *index, unsigned long max,
			 msim_xa_mark_t filter)
{
	unsigned long idx;
	void *entry;

	if (*index == ~0UL)
		return NULL;
	idx = *index + 1;
	entry = msim_xa_find(xa, &idx, max, filter);
	if (entry)
		*index = idx;
	return entry;
}

/*
 * The lowest free index in [min, max] (kernel: __xa_alloc() -> xas_find_marked(
 * XA_FREE_MARK)); past the tree's reach every index is free.
 */
int msim__xa_find_free(struct msim_xarray *xa, unsigned long min, unsigned long max,
		       unsigned long *id)
{
	unsigned long idx = min, next;
	void *entry;

	for (;;) {
		void *head = xa->head;

		if (idx > max)
			return -EBUSY;
		if (!msim__xa_is_node(head)) {
			if (idx == 0 && head)
				idx = 1;        /* index 0 holds the head entry */
			if (idx > max)
				return -EBUSY;
			*id = idx;
			return 0;
		}
		if (idx > msim__xa_node_maxindex(msim__xa_to_node(head)->shift)) {
			*id = idx;
			return 0;
		}
		if (mark_pass(head, &idx, &next, MSIM_XA_FREE_MARK, &entry)) {
			if (idx > max)
				return -EBUSY;
			*id = idx;
			return 0;
		}
		if (next == 0 || next <= idx)
			return -EBUSY;
		idx = next;
	}
}

/* ---- marks API ---- */

static bool mark_ok(msim_xa_mark_t mark)
{
	return mark < MSIM_XA_MAX_MARKS;
}

/* kernel: lib/xarray.c __xa_set_mark(): nothing at an empty index. */
void msim_xa_set_mark_locked(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark)
{
	struct msim__xa_pos pos;

	if (mark_ok(mark) && msim__xa_peek(xa, index, &pos))
		msim__xa_mark_set(xa, pos.node, pos.offset, mark);
}

/* kernel: lib/xarray.c __xa_clear_mark() */
void msim_xa_clear_mark_locked(struct msim_xarray *xa, unsigned long index,
			       msim_xa_mark_t mark)
{
	struct msim__xa_pos pos;

	if (mark_ok(mark) && msim__xa_peek(xa, index, &pos))
		msim__xa_mark_clear(xa, pos.node, pos.offset, mark);
}

void msim_xa_set_mark(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark)
{
	msim_lock(&xa->lock);
	msim_xa_set_mark_locked(xa, index, mark);
	msim_unlock(&xa->lock);
}

void msim_xa_clear_mark(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark)
{
	msim_lock(&xa->lock);
	msim_xa_clear_mark_locked(xa, index, mark);
	msim_unlock(&xa->lock);
}

/*
 * kernel: lib/xarray.c xa_get_mark(): the bits along the path to index, so a
 * reserved slot answers for its own marks. RCU-safe.
 */
bool msim_xa_get_mark(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark)
{
	struct msim_xa_node *node;
	void *entry;

	if (!mark_ok(mark))
		return false;
	msim_yield_access("xa_get_mark", &xa->head, MSIM_ACCESS_LOAD); /* the tree */
	entry = msim__xa_acquire(&xa->head);
	if (!msim__xa_flag_marked(xa, mark))
		return false;
	if (!msim__xa_is_node(entry))
		return index == 0;
	node = msim__xa_to_node(entry);
	if (index > msim__xa_node_maxindex(node->shift))
		return false;
	for (;;) {
		unsigned int off = msim__xa_offset(node->shift, index);

		if (!((msim__xa_marks(node, mark) >> off) & 1))
			return false;
		if (node->shift == 0)
			return true;
		entry = msim__xa_acquire(&node->slots[off]);
		if (!msim__xa_is_node(entry))
			return true;    /* an empty inner slot: free below it */
		node = msim__xa_to_node(entry);
	}
}

/* kernel: include/linux/xarray.h xa_marked() */
bool msim_xa_marked(const struct msim_xarray *xa, msim_xa_mark_t mark)
{
	return mark_ok(mark) && msim__xa_flag_marked(xa, mark);
}
