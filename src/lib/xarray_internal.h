/* SPDX-License-Identifier: MIT */
/*
 * xarray_internal.h - the node layout, entry tagging and mark bookkeeping of the
 * xarray, shared by the files of src/lib. Layers above lib use
 * include/memcgsim/xarray.h.
 *
 * Files, each calling only those above it in this list:
 *   xarray_node.c   node allocation and free, mark bits and their propagation
 *   xarray.c        the tree: load, store, erase, grow and shrink, destroy
 *   xarray_find.c   ordered search (present or marked), free-slot search, marks API
 *   xarray_alloc.c  cmpxchg, insert, reserve and release, xa_alloc
 *   idr.c           the id allocator on an allocating xarray
 */
#ifndef MSIM_LIB_XARRAY_INTERNAL_H
#define MSIM_LIB_XARRAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/xarray.h>

/*
 * kernel: include/linux/xarray.h struct xa_node, without the rcu_head (the node
 * is freed through kfree_rcu, whose record lives apart). Charged as the
 * kernel's 576-byte object; this layout is smaller (checked).
 *
 * marks[m] has bit i set when slot i carries mark m: for a leaf, the entry has
 * it; for an inner node, some entry below slot i has it. In an allocating array
 * the free mark is set on every free slot (an inner slot: free space below it),
 * so an empty slot always carries it there.
 */
struct msim_xa_node {
	unsigned char shift;      /* bits of the index below this node's slots */
	unsigned char offset;     /* slot in the parent */
	unsigned char count;      /* present slots: entries, reserved slots, child nodes */
	unsigned char nr_values;  /* value entries among them */
	struct msim_xa_node *parent;
	struct msim_xarray *array;
	void *slots[MSIM_XA_CHUNK_SIZE];
	unsigned long marks[MSIM_XA_MAX_MARKS];
	void *private_data;       /* the user's (kernel: private_list, the workingset's) */
};

/*
 * xa->flags: the public MSIM_XA_FLAGS_* in the low bits; above them the head's
 * marks (kernel: XA_FLAGS_MARK()): with a node at the head, "the top node has a
 * slot with this mark"; with an entry at the head, "index 0 has this mark".
 */
#define MSIM__XA_FLAGS_PUBLIC 0xffu
#define MSIM__XA_FLAG_MARK(mark) (1u << (8 + (mark)))
#define MSIM__XA_FLAG_WRAPPED (1u << 16) /* kernel: XA_FLAGS_ALLOC_WRAPPED */

/* kernel: xa_is_internal(), xa_mk_node(), xa_is_node(), xa_to_node() */
static inline bool msim__xa_is_internal(const void *entry)
{
	return ((uintptr_t)entry & 3) == 2;
}

static inline bool msim__xa_is_node(const void *entry)
{
	return msim__xa_is_internal(entry) && (uintptr_t)entry > 4096;
}

static inline void *msim__xa_mk_node(const struct msim_xa_node *node)
{
	return (void *)((uintptr_t)node | 2);
}

static inline struct msim_xa_node *msim__xa_to_node(const void *entry)
{
	return (struct msim_xa_node *)((uintptr_t)entry - 2);
}

/* kernel: xa_zero_to_null() */
static inline void *msim__xa_zero_to_null(void *entry)
{
	return msim_xa_is_zero(entry) ? NULL : entry;
}

/*
 * Partial-order reduction (yield.h): the lock-free readers (xa_load, xa_find,
 * xa_get_mark) announce a load of &xa->head, standing for the whole tree; every
 * store a lock-free reader can see (head, slots, marks, flags) notes a store
 * of it in the step that makes it. Writers hold xa->lock, whose steps order
 * them against each other.
 */
static inline void msim__xa_note_write(const struct msim_xarray *xa)
{
	msim_access_note(&xa->head, 1, MSIM_ACCESS_STORE);
}

/* An entry a caller may store: a pointer, a value, or the reserved marker. */
static inline bool msim__xa_storable(const void *entry)
{
	return !msim__xa_is_internal(entry) || msim_xa_is_zero(entry);
}

static inline unsigned int msim__xa_flags(const struct msim_xarray *xa)
{
	return msim_quiet_load(&xa->flags, MSIM_RELAXED);
}

static inline bool msim__xa_track_free(const struct msim_xarray *xa)
{
	return (msim__xa_flags(xa) & MSIM_XA_FLAGS_ALLOC) != 0;
}

static inline bool msim__xa_flag_marked(const struct msim_xarray *xa, msim_xa_mark_t mark)
{
	return (msim__xa_flags(xa) & MSIM__XA_FLAG_MARK(mark)) != 0;
}

/* Mark words are read by RCU walkers while the lock holder changes them. */
static inline unsigned long msim__xa_marks(const struct msim_xa_node *node, msim_xa_mark_t mark)
{
	return msim_quiet_load(&node->marks[mark], MSIM_RELAXED);
}

/* Highest index a tree whose top node has this shift can hold. */
static inline unsigned long msim__xa_node_maxindex(unsigned int shift)
{
	return shift + MSIM_XA_CHUNK_SHIFT >= 64 ? ~0UL :
	       (1UL << (shift + MSIM_XA_CHUNK_SHIFT)) - 1;
}

static inline unsigned int msim__xa_offset(unsigned int shift, unsigned long index)
{
	return (unsigned int)(index >> shift) & (MSIM_XA_CHUNK_SIZE - 1);
}

static inline void *msim__xa_acquire(void *const *p)
{
	return msim_quiet_load(p, MSIM_ACQUIRE);
}

/* ---- xarray_node.c ---- */

void msim__xa_flag_set(struct msim_xarray *xa, unsigned int bits);
void msim__xa_flag_clear(struct msim_xarray *xa, unsigned int bits);
/* kernel: xas_alloc(): a zeroed node, all free in an allocating array. */
struct msim_xa_node *msim__xa_node_alloc(struct msim_xarray *xa, unsigned int shift,
					 struct msim_xa_node *parent, unsigned int offset);
/* kernel: xa_node_free(): call_rcu(radix_tree_node_rcu_free) */
void msim__xa_node_free_rcu(struct msim_xarray *xa, struct msim_xa_node *node);
/*
 * kernel: xas_set_mark() / xas_clear_mark() on the slot (node, offset), node NULL
 * for the head, walking up while the parent's summary bit changes.
 */
void msim__xa_mark_set(struct msim_xarray *xa, struct msim_xa_node *node, unsigned int offset,
		       msim_xa_mark_t mark);
void msim__xa_mark_clear(struct msim_xarray *xa, struct msim_xa_node *node,
			 unsigned int offset, msim_xa_mark_t mark);
bool msim__xa_mark_get(const struct msim_xarray *xa, const struct msim_xa_node *node,
		       unsigned int offset, msim_xa_mark_t mark);
/* kernel: xas_init_marks(): the slot is being emptied. */
void msim__xa_marks_init_slot(struct msim_xarray *xa, struct msim_xa_node *node,
			      unsigned int offset);
/* kernel: the mark loop of xas_expand(): top takes the old head into slot 0. */
void msim__xa_marks_expand(struct msim_xarray *xa, struct msim_xa_node *top);
/* kernel: the free-mark step of xas_shrink(): slot 0 of top becomes the head. */
void msim__xa_marks_shrink(struct msim_xarray *xa, struct msim_xa_node *top);
/* kernel: the mark reset of xa_destroy(). */
void msim__xa_marks_reset(struct msim_xarray *xa);

/* ---- xarray.c ---- */

/* Where index lives: its leaf and slot, or node NULL for the head (index 0 only). */
struct msim__xa_pos {
	struct msim_xa_node *node;
	unsigned int offset;
};

/*
 * The raw slot contents at index (MSIM_XA_ZERO_ENTRY for a reserved slot), with
 * no yield point: the caller holds the lock or otherwise excludes every writer.
 * pos (may be NULL) receives where the slot is; pos->node is NULL and the
 * result NULL when no node covers index.
 */
void *msim__xa_peek(struct msim_xarray *xa, unsigned long index, struct msim__xa_pos *pos);
/*
 * Store a non-NULL storable entry (the reserved marker included), creating the
 * path; returns the raw old entry and where the slot is. Lock held; marks kept.
 */
void *msim__xa_store_raw(struct msim_xarray *xa, unsigned long index, void *entry,
			 struct msim__xa_pos *pos, int *err);
/* Empty the slot at index (marks cleared, free again); returns the raw old entry. */
void *msim__xa_erase_raw(struct msim_xarray *xa, unsigned long index);

/* ---- xarray_find.c ---- */

/*
 * The lowest free index in [min, max] of an allocating array (indices the tree
 * does not reach are free): 0 and *id, or -EBUSY. No yield point; the caller
 * holds the lock or otherwise excludes every writer.
 */
int msim__xa_find_free(struct msim_xarray *xa, unsigned long min, unsigned long max,
		       unsigned long *id);

#endif /* MSIM_LIB_XARRAY_INTERNAL_H */
