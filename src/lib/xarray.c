/* SPDX-License-Identifier: MIT */
/*
 * xarray.c - a model of the kernel's xarray (kernel: lib/xarray.c): the tree.
 * Loads, stores and erases, growing and shrinking the tree, destroy. Searches
 * are in xarray_find.c, conditional stores and allocation in xarray_alloc.c,
 * nodes and marks in xarray_node.c (xarray_internal.h lists the files).
 *
 * Shape: a radix tree of 64-slot nodes. xa->head is NULL, a single entry (index
 * 0 only), or a node pointer tagged with the internal bit pattern 10 in its low
 * bits (kernel: xa_mk_node()). A node at shift s covers 64 << s indices; leaf
 * nodes have shift 0 and hold entries, inner nodes hold child nodes. A reserved
 * slot holds MSIM_XA_ZERO_ENTRY, which every reader turns into NULL.
 *
 * Concurrency: writers hold xa->lock. Readers only need RCU: every pointer a
 * reader follows (xa->head, node slots) is published with a release store after
 * the node it points to is fully initialised, and read with an acquire load, so
 * TSan and the C11 model agree with the kernel's rcu_assign_pointer() /
 * rcu_dereference(). A node's shift is written before publication and never
 * changes. Removed nodes are freed after a grace period (kfree_rcu), so a reader
 * inside one sees its last contents, which were valid when it entered.
 *
 * Yield points: a load or a find is one yield point ("xa_load", "xa_find"), and a
 * write is its lock. Inside, the walk is not interleaved: an RCU walk of the
 * kernel's xarray is linearisable, so splitting it would only grow the explorer's
 * search space without exposing a kernel race.
 *
 * Simplifications (docs/kmem.md): no multi-index entries, no xa_state/xas_*
 * API, no XA_RETRY_ENTRY (a reader in a node removed by a shrink keeps walking
 * it, which still returns a value that was current during its section), no
 * XA_FLAGS_ALLOC1; allocation failure returns -ENOMEM without retrying.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <memcgsim/kmem.h>
#include <memcgsim/xarray.h>

#include <memcgsim/sim.h>
#include "lib/xarray_internal.h"

/* kernel: lib/radix-tree.c radix_tree_init(): a cache with a constructor. */
#define XA_NODE_CACHE "radix_tree_node"

/*
 * The xarray's own stores: writers hold xa_lock (taking it is the yield point),
 * and RCU readers see a slot published with release order. Quiet: the model's
 * xarray windows are the lock and the reader's entry, not each slot word.
 */
static inline void xa_publish(struct msim_xarray *xa, void **p, void *v)
{
	msim__xa_note_write(xa);
	msim_quiet_store(p, v, MSIM_RELEASE);
}

static inline void xa_stat(unsigned long *p, long delta)
{
	msim_quiet_store(p, *p + (unsigned long)delta, MSIM_RELAXED);
}

/* ---- init ---- */

/* kernel: include/linux/xarray.h xa_init_flags() */
void msim_xa_init_flags(struct msim *m, struct msim_xarray *xa, const char *owner,
			unsigned int flags)
{
	memset(xa, 0, sizeof(*xa));
	xa->host = m ? m : msim_current_host();
	msim_spin_lock_init(&xa->lock, "xa_lock");
	xa->owner = owner ? owner : "xarray";
	xa->flags = flags & MSIM__XA_FLAGS_PUBLIC;
	/* kernel: XA_FLAGS_ALLOC includes XA_FLAGS_MARK(XA_FREE_MARK): all free */
	if (flags & MSIM_XA_FLAGS_ALLOC)
		xa->flags |= MSIM__XA_FLAG_MARK(MSIM_XA_FREE_MARK);
	if (xa->host)
		xa->node_cache = msim_kmem_cache_find_or_create(xa->host, XA_NODE_CACHE,
								MSIM_XA_NODE_BYTES,
								MSIM_SLAB_FREEPTR_OUTSIDE);
}

void msim_xa_init(struct msim *m, struct msim_xarray *xa, const char *owner)
{
	msim_xa_init_flags(m, xa, owner, 0);
}

void msim_xa_set_update(struct msim_xarray *xa, msim_xa_update_fn fn, void *arg)
{
	msim_lock(&xa->lock);
	xa->update = fn;
	xa->update_arg = arg;
	msim_unlock(&xa->lock);
}

void msim_xa_lock(struct msim_xarray *xa)
{
	msim_lock(&xa->lock);
}

/* kernel: xa_trylock(): the shadow shrinker's, which holds a lock taken after it elsewhere. */
bool msim_xa_trylock(struct msim_xarray *xa)
{
	return msim_trylock(&xa->lock);
}

void msim_xa_unlock(struct msim_xarray *xa)
{
	msim_unlock(&xa->lock);
}

/* kernel: lib/xarray.c xas_update(): the workingset's shadow-node hook. */
static void node_update(struct msim_xarray *xa, struct msim_xa_node *node)
{
	if (xa->update)
		xa->update(xa, node, node->count, xa->update_arg);
}

static void count_slot(struct msim_xa_node *node, const void *entry, int dir)
{
	if (!entry)
		return;
	node->count = (unsigned char)(node->count + dir);
	if (msim_xa_is_value(entry))
		node->nr_values = (unsigned char)(node->nr_values + dir);
}

/* ---- lookups ---- */

/* kernel: lib/xarray.c xa_load(): RCU-safe */
void *msim_xa_load(struct msim_xarray *xa, unsigned long index)
{
	struct msim_xa_node *node;
	void *entry;

	msim_yield_access("xa_load", &xa->head, MSIM_ACCESS_LOAD); /* the tree */
	entry = msim__xa_acquire(&xa->head);
	if (!msim__xa_is_node(entry))
		return index == 0 ? msim__xa_zero_to_null(entry) : NULL;
	node = msim__xa_to_node(entry);
	if (index > msim__xa_node_maxindex(node->shift))
		return NULL;
	for (;;) {
		entry = msim__xa_acquire(&node->slots[msim__xa_offset(node->shift, index)]);
		if (node->shift == 0)
			return msim__xa_zero_to_null(entry);
		if (!msim__xa_is_node(entry))
			return NULL;
		node = msim__xa_to_node(entry);
	}
}

/* The leaf that holds index, or NULL (no allocation). Writers excluded. */
static struct msim_xa_node *xa_find_leaf(struct msim_xarray *xa, unsigned long index)
{
	void *head = xa->head;
	struct msim_xa_node *node;

	if (!msim__xa_is_node(head))
		return NULL;
	node = msim__xa_to_node(head);
	if (index > msim__xa_node_maxindex(node->shift))
		return NULL;
	while (node->shift) {
		void *slot = node->slots[msim__xa_offset(node->shift, index)];

		if (!slot)
			return NULL;
		node = msim__xa_to_node(slot);
	}
	return node;
}

void *msim__xa_peek(struct msim_xarray *xa, unsigned long index, struct msim__xa_pos *pos)
{
	struct msim_xa_node *node;
	struct msim__xa_pos dummy;

	if (!pos)
		pos = &dummy;
	pos->node = NULL;
	pos->offset = 0;
	if (!msim__xa_is_node(xa->head))
		return index == 0 ? xa->head : NULL;
	node = xa_find_leaf(xa, index);
	if (!node)
		return NULL;
	pos->node = node;
	pos->offset = msim__xa_offset(0, index);
	return node->slots[pos->offset];
}

/* ---- growing and shrinking (xa->lock held) ---- */

static unsigned int shift_for(unsigned long index)
{
	unsigned int shift = 0;

	while (shift + MSIM_XA_CHUNK_SHIFT < 64 && (index >> (shift + MSIM_XA_CHUNK_SHIFT)))
		shift += MSIM_XA_CHUNK_SHIFT;
	return shift;
}

/*
 * kernel: lib/xarray.c xas_expand(): add levels on top until index fits. The
 * old head (entry at index 0, or the old top node) becomes slot 0 of the new
 * top, with its marks.
 */
static int xa_expand(struct msim_xarray *xa, unsigned long index)
{
	void *head = xa->head;
	struct msim_xa_node *top;
	unsigned int shift;

	if (!head) {
		top = msim__xa_node_alloc(xa, shift_for(index), NULL, 0);
		if (!top)
			return -ENOMEM;
		xa_publish(xa, &xa->head, msim__xa_mk_node(top));
		return 0;
	}
	for (;;) {
		head = xa->head;
		if (msim__xa_is_node(head)) {
			shift = msim__xa_to_node(head)->shift;
			if (index <= msim__xa_node_maxindex(shift))
				return 0;
			shift += MSIM_XA_CHUNK_SHIFT;
		} else {
			shift = 0;
		}
		top = msim__xa_node_alloc(xa, shift, NULL, 0);
		if (!top)
			return -ENOMEM;
		top->slots[0] = head;
		count_slot(top, head, 1);
		msim__xa_marks_expand(xa, top);
		if (msim__xa_is_node(head))
			msim__xa_to_node(head)->parent = top;
		xa_publish(xa, &xa->head, msim__xa_mk_node(top));
		node_update(xa, top);
	}
}

/*
 * kernel: lib/xarray.c xas_delete_node(): free node and every ancestor it
 * leaves empty, unhooking each from its parent (or the head) first. An empty
 * node has no marks but the free mark, which its parent's slot already carries.
 */
static void xa_delete_empty(struct msim_xarray *xa, struct msim_xa_node *node)
{
	while (node && node->count == 0) {
		struct msim_xa_node *parent = node->parent;

		if (parent) {
			xa_publish(xa, &parent->slots[node->offset], NULL);
			parent->count--;
			node_update(xa, parent);
		} else {
			xa_publish(xa, &xa->head, NULL);
		}
		msim__xa_node_free_rcu(xa, node);
		node = parent;
	}
}

/*
 * kernel: lib/xarray.c xas_shrink(): while the top node holds only slot 0,
 * make slot 0 the head (a reserved entry included, as in the kernel).
 */
static void xa_shrink(struct msim_xarray *xa)
{
	for (;;) {
		void *head = xa->head, *entry;
		struct msim_xa_node *node;

		if (!msim__xa_is_node(head))
			return;
		node = msim__xa_to_node(head);
		entry = node->slots[0];
		if (node->count != 1 || !entry)
			return;
		if (!msim__xa_is_node(entry) && node->shift)
			return;
		if (msim__xa_is_node(entry))
			msim__xa_to_node(entry)->parent = NULL;
		xa_publish(xa, &xa->head, entry);
		msim__xa_marks_shrink(xa, node);
		node->count = 0;
		node->nr_values = 0;
		node_update(xa, node);
		msim__xa_node_free_rcu(xa, node);
	}
}

/* Walk down to the leaf for index, creating nodes as needed (kernel: xas_create()). */
static struct msim_xa_node *xa_create_path(struct msim_xarray *xa, unsigned long index)
{
	struct msim_xa_node *node = msim__xa_to_node(xa->head), *child;

	while (node->shift) {
		unsigned int off = msim__xa_offset(node->shift, index);
		void *slot = node->slots[off];

		if (!slot) {
			child = msim__xa_node_alloc(xa, node->shift - MSIM_XA_CHUNK_SHIFT, node, off);
			if (!child) {
				xa_delete_empty(xa, node);
				return NULL;
			}
			xa_publish(xa, &node->slots[off], msim__xa_mk_node(child));
			node->count++;
			node_update(xa, node);
			slot = node->slots[off];
		}
		node = msim__xa_to_node(slot);
	}
	return node;
}

/* ---- raw writers (xa->lock held) ---- */

/* kernel: lib/xarray.c xas_store(xas, NULL) */
void *msim__xa_erase_raw(struct msim_xarray *xa, unsigned long index)
{
	struct msim_xa_node *node;
	unsigned int off;
	void *old;

	if (!msim__xa_is_node(xa->head)) {
		old = xa->head;
		if (index != 0 || !old)
			return NULL;
		msim__xa_marks_init_slot(xa, NULL, 0);
		xa_publish(xa, &xa->head, NULL);
		xa_stat(&xa->nr_entries, -1);
		return old;
	}
	node = xa_find_leaf(xa, index);
	if (!node)
		return NULL;
	off = msim__xa_offset(0, index);
	old = node->slots[off];
	if (!old)
		return NULL;
	msim__xa_marks_init_slot(xa, node, off);
	xa_publish(xa, &node->slots[off], NULL);
	count_slot(node, old, -1);
	xa_stat(&xa->nr_entries, -1);
	node_update(xa, node);
	xa_delete_empty(xa, node);
	xa_shrink(xa);
	return old;
}

/*
 * kernel: lib/xarray.c xas_store() with a non-NULL entry. Like the kernel's
 * xas_create(), a reserved entry at index 0 goes into a node when the head is
 * empty, and a plain entry at index 0 goes into the head.
 */
void *msim__xa_store_raw(struct msim_xarray *xa, unsigned long index, void *entry,
			 struct msim__xa_pos *pos, int *err)
{
	struct msim_xa_node *node;
	void *old, *head = xa->head;
	unsigned int off;

	if (index == 0 && !msim__xa_is_node(head) && (head || !msim_xa_is_zero(entry))) {
		xa_publish(xa, &xa->head, entry);
		if (!head)
			xa_stat(&xa->nr_entries, 1);
		pos->node = NULL;
		pos->offset = 0;
		return head;
	}
	if (xa_expand(xa, index) < 0 || !(node = xa_create_path(xa, index))) {
		*err = -ENOMEM;
		return NULL;
	}
	off = msim__xa_offset(0, index);
	old = node->slots[off];
	xa_publish(xa, &node->slots[off], entry);
	count_slot(node, old, -1);
	count_slot(node, entry, 1);
	if (!old)
		xa_stat(&xa->nr_entries, 1);
	/* kernel: update_node() runs when count or nr_values changed */
	if (!old || msim_xa_is_value(old) != msim_xa_is_value(entry))
		node_update(xa, node);
	pos->node = node;
	pos->offset = off;
	return old;
}

/* ---- the API writers ---- */

/* kernel: lib/xarray.c __xa_erase() */
void *msim_xa_erase_locked(struct msim_xarray *xa, unsigned long index)
{
	assert(msim_lock_held_by_me(&xa->lock));
	return msim__xa_zero_to_null(msim__xa_erase_raw(xa, index));
}

/* kernel: lib/xarray.c __xa_store(): NULL reserves in an allocating array. */
void *msim_xa_store_locked(struct msim_xarray *xa, unsigned long index, void *entry, int *err)
{
	struct msim__xa_pos pos;
	bool track_free = msim__xa_track_free(xa);
	int e = 0;
	void *old;

	assert(msim_lock_held_by_me(&xa->lock));
	if (err)
		*err = 0;
	if (!msim__xa_storable(entry)) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}
	if (!entry) {
		if (!track_free)
			return msim__xa_zero_to_null(msim__xa_erase_raw(xa, index));
		entry = MSIM_XA_ZERO_ENTRY;
	}
	old = msim__xa_store_raw(xa, index, entry, &pos, &e);
	if (e) {
		if (err)
			*err = e;
		return NULL;
	}
	if (track_free)
		msim__xa_mark_clear(xa, pos.node, pos.offset, MSIM_XA_FREE_MARK);
	return msim__xa_zero_to_null(old);
}

void *msim_xa_store(struct msim_xarray *xa, unsigned long index, void *entry, int *err)
{
	void *old;

	msim_lock(&xa->lock);
	old = msim_xa_store_locked(xa, index, entry, err);
	msim_unlock(&xa->lock);
	return old;
}

/* kernel: lib/xarray.c xa_erase() */
void *msim_xa_erase(struct msim_xarray *xa, unsigned long index)
{
	void *old;

	msim_lock(&xa->lock);
	old = msim_xa_erase_locked(xa, index);
	msim_unlock(&xa->lock);
	return old;
}

/* ---- destroy ---- */

/* Free node's subtree (kernel: lib/xarray.c xas_free_nodes()). */
static void free_subtree(struct msim_xarray *xa, struct msim_xa_node *node)
{
	if (node->shift) {
		for (unsigned int i = 0; i < MSIM_XA_CHUNK_SIZE; i++)
			if (node->slots[i])
				free_subtree(xa, msim__xa_to_node(node->slots[i]));
	}
	node->count = 0;
	node->nr_values = 0;
	node_update(xa, node);
	msim__xa_node_free_rcu(xa, node);
}

/*
 * kernel: lib/xarray.c xa_destroy(). Nodes leave the totals after a grace
 * period, like every other node free, so a late reader stays safe. The array
 * stays usable (kernel code stores into a destroyed xarray), so the lock lives on.
 */
void msim_xa_destroy(struct msim_xarray *xa)
{
	void *head;

	msim_lock(&xa->lock);
	head = xa->head;
	xa_publish(xa, &xa->head, NULL);
	msim__xa_marks_reset(xa);
	if (msim__xa_is_node(head))
		free_subtree(xa, msim__xa_to_node(head));
	msim_quiet_store(&xa->nr_entries, 0, MSIM_RELAXED);
	msim_unlock(&xa->lock);
}

/* Model-only: the end of the xarray's life, where its memory goes away. */
void msim_xa_fini(struct msim_xarray *xa)
{
	/* Nodes go back to the host's cache, which a destroyed host no longer has. */
	if (!xa || !xa->lock.impl)
		msim_misuse("msim_xa_fini", "the xarray is %s", xa ? "not initialised (zeroed, or "
			     "finalised already)" : "NULL");
	if (xa->host && !msim_host_live(xa->host))
		msim_misuse("msim_xa_fini", "the xarray's host was destroyed first (fini every "
			     "xarray before msim_destroy)");
	msim_xa_destroy(xa);
	msim_lock_destroy(&xa->lock);
}

/* ---- accessors ---- */

unsigned long msim_xa_nr_nodes(const struct msim_xarray *xa)
{
	return msim_quiet_load(&xa->nr_nodes, MSIM_RELAXED);
}

unsigned long msim_xa_nr_entries(const struct msim_xarray *xa)
{
	return msim_quiet_load(&xa->nr_entries, MSIM_RELAXED);
}

bool msim_xa_empty(const struct msim_xarray *xa)
{
	return msim_quiet_load(&xa->head, MSIM_RELAXED) == NULL;
}

struct msim_kmem_cache *msim_xa_node_cache(const struct msim_xarray *xa)
{
	return xa->node_cache;
}

/* ---- node accessors for update hooks ---- */

unsigned int msim_xa_node_count(const struct msim_xa_node *node)
{
	return node->count;
}

unsigned int msim_xa_node_nr_values(const struct msim_xa_node *node)
{
	return node->nr_values;
}

struct msim_xarray *msim_xa_node_array(const struct msim_xa_node *node)
{
	return node->array;
}

unsigned int msim_xa_node_shift(const struct msim_xa_node *node)
{
	return node->shift;
}

/* First index node covers: its offsets up the tree (kernel: xas_pause() arithmetic). */
unsigned long msim_xa_node_index(const struct msim_xa_node *node)
{
	unsigned long index = 0;

	for (; node->parent; node = node->parent)
		index |= (unsigned long)node->offset << node->parent->shift;
	return index;
}

void *msim_xa_node_private(const struct msim_xa_node *node)
{
	return node->private_data;
}

void msim_xa_node_set_private(struct msim_xa_node *node, void *private_data)
{
	node->private_data = private_data;
}

/*
 * kernel: lib/xarray.c xa_delete_node() as the workingset's shadow shrinker
 * calls it: empty a leaf that holds only value entries (node->count = 0,
 * nr_values = 0), tell the update hook (count 0), then unhook and free it and
 * every ancestor it leaves empty, and shrink the tree. Lock held.
 */
int msim_xa_delete_node_locked(struct msim_xarray *xa, struct msim_xa_node *node)
{
	assert(msim_lock_held_by_me(&xa->lock));
	if (!node || node->array != xa || node->shift || node->count != node->nr_values)
		return -EINVAL;
	for (unsigned int off = 0; off < MSIM_XA_CHUNK_SIZE; off++) {
		void *old = node->slots[off];

		if (!old)
			continue;
		msim__xa_marks_init_slot(xa, node, off);
		xa_publish(xa, &node->slots[off], NULL);
		count_slot(node, old, -1);
		xa_stat(&xa->nr_entries, -1);
	}
	node_update(xa, node);
	xa_delete_empty(xa, node);
	xa_shrink(xa);
	return 0;
}
