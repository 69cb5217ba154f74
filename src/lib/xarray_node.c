/* SPDX-License-Identifier: MIT */
/*
 * xarray_node.c - xarray nodes and their marks (kernel: lib/xarray.c xas_alloc(),
 * xa_node_free(), node_set_mark() and friends, xas_set_mark(), xas_clear_mark(),
 * xas_init_marks()).
 *
 * The mark invariant, kept by every writer with the lock held: a slot of an inner
 * node carries mark m exactly when its child node has some slot with m, and the
 * head flag MSIM__XA_FLAG_MARK(m) says the same of the top node (or, with an
 * entry at the head, of index 0). A marked search can then skip any subtree whose
 * bit is clear. Setting walks up until a parent already had the bit; clearing
 * walks up while a node is left with no bit of that mark.
 *
 * Allocating arrays keep the free mark the other way round (set = free), so a
 * node is born with every free bit set, and an empty slot carries it.
 *
 * Mark words and flags are written with relaxed atomics: RCU walkers read them
 * while the lock holder writes, as the kernel's test_bit() readers do.
 */
#include <string.h>

#include <memcgsim/kmem.h>

#include "lib/xarray_internal.h"

_Static_assert(sizeof(struct msim_xa_node) <= MSIM_XA_NODE_BYTES,
	       "the model's node must fit the kernel's 576 bytes");

/* Counters, flags and marks change under xa_lock: quiet stores, no yield point. */
static inline void xa_stat(unsigned long *p, long delta)
{
	msim_quiet_store(p, *p + (unsigned long)delta, MSIM_RELAXED);
}

void msim__xa_flag_set(struct msim_xarray *xa, unsigned int bits)
{
	msim__xa_note_write(xa);
	msim_quiet_store(&xa->flags, xa->flags | bits, MSIM_RELAXED);
}

void msim__xa_flag_clear(struct msim_xarray *xa, unsigned int bits)
{
	msim__xa_note_write(xa);
	msim_quiet_store(&xa->flags, xa->flags & ~bits, MSIM_RELAXED);
}

static inline void marks_store(struct msim_xa_node *node, msim_xa_mark_t mark, unsigned long v)
{
	msim__xa_note_write(node->array);
	msim_quiet_store(&node->marks[mark], v, MSIM_RELAXED);
}

/* kernel: lib/xarray.c xas_alloc() -> kmem_cache_alloc_lru(radix_tree_node_cachep) */
struct msim_xa_node *msim__xa_node_alloc(struct msim_xarray *xa, unsigned int shift,
					 struct msim_xa_node *parent, unsigned int offset)
{
	struct msim_xa_node *node;

	if (!xa->node_cache)
		return NULL;
	node = msim_kmem_cache_alloc(xa->host, xa->node_cache, xa->owner);
	if (!node)
		return NULL;
	node->shift = (unsigned char)shift;
	node->offset = (unsigned char)offset;
	node->parent = parent;
	node->array = xa;
	/* kernel: xas_create(): node_mark_all(node, XA_FREE_MARK) when tracking free */
	if (msim__xa_track_free(xa))
		node->marks[MSIM_XA_FREE_MARK] = ~0UL;
	xa_stat(&xa->nr_nodes, 1);
	return node;
}

void msim__xa_node_free_rcu(struct msim_xarray *xa, struct msim_xa_node *node)
{
	xa_stat(&xa->nr_nodes, -1);
	msim_kfree_rcu(xa->host, node);
}

bool msim__xa_mark_get(const struct msim_xarray *xa, const struct msim_xa_node *node,
		       unsigned int offset, msim_xa_mark_t mark)
{
	if (!node)
		return msim__xa_flag_marked(xa, mark);
	return (msim__xa_marks(node, mark) >> offset) & 1;
}

/* kernel: xas_set_mark() */
void msim__xa_mark_set(struct msim_xarray *xa, struct msim_xa_node *node, unsigned int offset,
		       msim_xa_mark_t mark)
{
	while (node) {
		unsigned long bits = node->marks[mark];

		if (bits & (1UL << offset))
			return;         /* set here already, so on every ancestor too */
		marks_store(node, mark, bits | (1UL << offset));
		offset = node->offset;
		node = node->parent;
	}
	if (!msim__xa_flag_marked(xa, mark))
		msim__xa_flag_set(xa, MSIM__XA_FLAG_MARK(mark));
}

/* kernel: xas_clear_mark() */
void msim__xa_mark_clear(struct msim_xarray *xa, struct msim_xa_node *node,
			 unsigned int offset, msim_xa_mark_t mark)
{
	while (node) {
		unsigned long bits = node->marks[mark];

		if (!(bits & (1UL << offset)))
			return;
		bits &= ~(1UL << offset);
		marks_store(node, mark, bits);
		if (bits)
			return;         /* the node still has the mark: ancestors keep it */
		offset = node->offset;
		node = node->parent;
	}
	if (msim__xa_flag_marked(xa, mark))
		msim__xa_flag_clear(xa, MSIM__XA_FLAG_MARK(mark));
}

/*
 * kernel: xas_init_marks(). Called before the slot is emptied, so a marked
 * search never meets a marked empty slot (the kernel's ordering, for the same
 * reason).
 */
void msim__xa_marks_init_slot(struct msim_xarray *xa, struct msim_xa_node *node,
			      unsigned int offset)
{
	bool track_free = msim__xa_track_free(xa);

	for (msim_xa_mark_t mark = 0; mark < MSIM_XA_MAX_MARKS; mark++) {
		if (track_free && mark == MSIM_XA_FREE_MARK)
			msim__xa_mark_set(xa, node, offset, mark);
		else if (msim__xa_flag_marked(xa, mark))
			msim__xa_mark_clear(xa, node, offset, mark);
	}
}

/* kernel: the mark loop of xas_expand() */
void msim__xa_marks_expand(struct msim_xarray *xa, struct msim_xa_node *top)
{
	for (msim_xa_mark_t mark = 0; mark < MSIM_XA_MAX_MARKS; mark++) {
		if (msim__xa_track_free(xa) && mark == MSIM_XA_FREE_MARK) {
			/* Born all free; slot 0 (the old head) is free only if it was. */
			if (!msim__xa_flag_marked(xa, mark)) {
				marks_store(top, mark, ~1UL);
				msim__xa_flag_set(xa, MSIM__XA_FLAG_MARK(mark));
			}
		} else if (msim__xa_flag_marked(xa, mark)) {
			marks_store(top, mark, 1UL);
		}
	}
}

/* kernel: xas_shrink(): the head flag becomes slot 0's bit (other slots are empty). */
void msim__xa_marks_shrink(struct msim_xarray *xa, struct msim_xa_node *top)
{
	if (msim__xa_track_free(xa) && !(msim__xa_marks(top, MSIM_XA_FREE_MARK) & 1UL))
		msim__xa_flag_clear(xa, MSIM__XA_FLAG_MARK(MSIM_XA_FREE_MARK));
}

/* kernel: xa_destroy() -> xas_init_marks() at the head */
void msim__xa_marks_reset(struct msim_xarray *xa)
{
	for (msim_xa_mark_t mark = 0; mark < MSIM_XA_MAX_MARKS; mark++)
		msim__xa_flag_clear(xa, MSIM__XA_FLAG_MARK(mark));
	if (msim__xa_track_free(xa))
		msim__xa_flag_set(xa, MSIM__XA_FLAG_MARK(MSIM_XA_FREE_MARK));
}
