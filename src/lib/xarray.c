/* SPDX-License-Identifier: MIT */
/*
 * xarray.c - a model of the kernel's xarray (kernel: lib/xarray.c), the parts
 * the memcg, shrinker, list_lru and workingset models use.
 *
 * Shape: a radix tree of 64-slot nodes. xa->head is NULL, a single entry (index
 * 0 only), or a node pointer tagged with the internal bit pattern 10 in its low
 * bits (kernel: xa_mk_node()). A node at shift s covers 64 << s indices; leaf
 * nodes have shift 0 and hold entries, inner nodes hold child nodes.
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
 * Simplifications (docs/kmem.md): no marks, no multi-index entries, no
 * xa_state/xas_* API, no XA_RETRY_ENTRY (a reader in a node removed by a shrink
 * keeps walking it, which still returns a value that was current during its
 * section); allocation failure returns -ENOMEM without retrying.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <memcgsim/kmem.h>
#include <memcgsim/xarray.h>

#include "lib/xarray_internal.h"

/* kernel: lib/radix-tree.c radix_tree_init(): a cache with a constructor. */
#define XA_NODE_CACHE "radix_tree_node"

_Static_assert(sizeof(struct msim_xa_node) <= MSIM_XA_NODE_BYTES,
	       "the model's node must fit the kernel's 576 bytes");

static inline void *xa_acquire(void *const *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void xa_publish(void **p, void *v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void xa_stat(unsigned long *p, long delta)
{
	__atomic_store_n(p, *p + (unsigned long)delta, __ATOMIC_RELAXED);
}

/* Highest index a tree whose top node has this shift can hold. */
static inline unsigned long node_maxindex(unsigned int shift)
{
	return shift + MSIM_XA_CHUNK_SHIFT >= 64 ? ~0UL :
	       (1UL << (shift + MSIM_XA_CHUNK_SHIFT)) - 1;
}

static inline unsigned int node_offset(unsigned int shift, unsigned long index)
{
	return (unsigned int)(index >> shift) & (MSIM_XA_CHUNK_SIZE - 1);
}

/* ---- init / nodes ---- */

/* kernel: include/linux/xarray.h xa_init_flags() */
void msim_xa_init(struct msim *m, struct msim_xarray *xa, const char *owner)
{
	memset(xa, 0, sizeof(*xa));
	xa->host = m ? m : msim_current_host();
	msim_lock_init(&xa->lock, "xa_lock");
	xa->owner = owner ? owner : "xarray";
	if (xa->host)
		xa->node_cache = msim_kmem_cache_find_or_create(xa->host, XA_NODE_CACHE,
								MSIM_XA_NODE_BYTES,
								MSIM_SLAB_FREEPTR_OUTSIDE);
}

void msim_xa_set_update(struct msim_xarray *xa, msim_xa_update_fn fn, void *arg)
{
	msim_lock(&xa->lock);
	xa->update = fn;
	xa->update_arg = arg;
	msim_unlock(&xa->lock);
}

/* kernel: lib/xarray.c xas_update(): the workingset's shadow-node hook. */
static void node_update(struct msim_xarray *xa, struct msim_xa_node *node)
{
	if (xa->update)
		xa->update(xa, node, node->count, xa->update_arg);
}

/* kernel: lib/xarray.c xas_alloc() -> kmem_cache_alloc_lru(radix_tree_node_cachep) */
static struct msim_xa_node *node_alloc(struct msim_xarray *xa, unsigned int shift,
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
	xa_stat(&xa->nr_nodes, 1);
	return node;
}

/* kernel: lib/xarray.c xa_node_free(): call_rcu(radix_tree_node_rcu_free) */
static void node_free_rcu(struct msim_xarray *xa, struct msim_xa_node *node)
{
	xa_stat(&xa->nr_nodes, -1);
	msim_kfree_rcu(xa->host, node);
}

static void count_slot(struct msim_xa_node *node, const void *entry, int dir)
{
	if (!entry)
		return;
	node->count = (unsigned char)(node->count + dir);
	if (msim_xa_is_value(entry))
		node->nr_values = (unsigned char)(node->nr_values + dir);
}

/* ---- lookups (RCU) ---- */

/* kernel: lib/xarray.c xa_load() */
void *msim_xa_load(struct msim_xarray *xa, unsigned long index)
{
	struct msim_xa_node *node;
	void *entry;

	msim_yield("xa_load");
	entry = xa_acquire(&xa->head);
	if (!msim__xa_is_node(entry))
		return index == 0 ? entry : NULL;
	node = msim__xa_to_node(entry);
	if (index > node_maxindex(node->shift))
		return NULL;
	for (;;) {
		entry = xa_acquire(&node->slots[node_offset(node->shift, index)]);
		if (node->shift == 0)
			return entry;
		if (!msim__xa_is_node(entry))
			return NULL;
		node = msim__xa_to_node(entry);
	}
}

/*
 * One pass from the root: the first entry at or after *index inside the subtree
 * walk, or NULL with *next set to where the next pass starts (0 when done).
 */
static void *find_pass(void *head, unsigned long *index, unsigned long *next)
{
	struct msim_xa_node *node = msim__xa_to_node(head);
	unsigned long idx = *index;

	*next = 0;
	if (idx > node_maxindex(node->shift))
		return NULL;
	for (;;) {
		unsigned int shift = node->shift;
		unsigned int first = node_offset(shift, idx), off;
		void *entry = NULL;

		for (off = first; off < MSIM_XA_CHUNK_SIZE; off++) {
			entry = xa_acquire(&node->slots[off]);
			if (entry)
				break;
		}
		if (off == MSIM_XA_CHUNK_SIZE) {
			/* Nothing left under this node: the next pass starts after it. */
			if (shift + MSIM_XA_CHUNK_SHIFT >= 64)
				return NULL;
			*next = ((idx >> (shift + MSIM_XA_CHUNK_SHIFT)) + 1) <<
				(shift + MSIM_XA_CHUNK_SHIFT);
			return NULL;
		}
		if (off != first)
			idx = (idx & ~node_maxindex(shift)) | ((unsigned long)off << shift);
		if (shift == 0) {
			*index = idx;
			return entry;
		}
		if (!msim__xa_is_node(entry))
			return NULL;
		node = msim__xa_to_node(entry);
	}
}

/* kernel: lib/xarray.c xa_find() (no marks) */
void *msim_xa_find(struct msim_xarray *xa, unsigned long *index, unsigned long max)
{
	unsigned long idx = *index, next;
	void *head, *entry;

	msim_yield("xa_find");
	for (;;) {
		if (idx > max)
			return NULL;
		head = xa_acquire(&xa->head);
		if (!msim__xa_is_node(head)) {
			if (head && idx == 0) {
				*index = 0;
				return head;
			}
			return NULL;
		}
		entry = find_pass(head, &idx, &next);
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

/* ---- writers (xa->lock held) ---- */

static unsigned int shift_for(unsigned long index)
{
	unsigned int shift = 0;

	while (shift + MSIM_XA_CHUNK_SHIFT < 64 && (index >> (shift + MSIM_XA_CHUNK_SHIFT)))
		shift += MSIM_XA_CHUNK_SHIFT;
	return shift;
}

/*
 * kernel: lib/xarray.c xas_expand(): add levels on top until index fits. The
 * old head (entry at index 0, or the old top node) becomes slot 0 of the new top.
 */
static int xa_expand(struct msim_xarray *xa, unsigned long index)
{
	void *head = xa->head;
	struct msim_xa_node *top;
	unsigned int shift;

	if (!head) {
		top = node_alloc(xa, shift_for(index), NULL, 0);
		if (!top)
			return -ENOMEM;
		xa_publish(&xa->head, msim__xa_mk_node(top));
		return 0;
	}
	for (;;) {
		head = xa->head;
		if (msim__xa_is_node(head)) {
			shift = msim__xa_to_node(head)->shift;
			if (index <= node_maxindex(shift))
				return 0;
			shift += MSIM_XA_CHUNK_SHIFT;
		} else {
			shift = 0;
		}
		top = node_alloc(xa, shift, NULL, 0);
		if (!top)
			return -ENOMEM;
		top->slots[0] = head;
		count_slot(top, head, 1);
		if (msim__xa_is_node(head))
			msim__xa_to_node(head)->parent = top;
		xa_publish(&xa->head, msim__xa_mk_node(top));
		node_update(xa, top);
	}
}

/*
 * kernel: lib/xarray.c xas_delete_node(): free node and every ancestor it
 * leaves empty, unhooking each from its parent (or the head) first.
 */
static void xa_delete_empty(struct msim_xarray *xa, struct msim_xa_node *node)
{
	while (node && node->count == 0) {
		struct msim_xa_node *parent = node->parent;

		if (parent) {
			xa_publish(&parent->slots[node->offset], NULL);
			parent->count--;
			node_update(xa, parent);
		} else {
			xa_publish(&xa->head, NULL);
		}
		node_free_rcu(xa, node);
		node = parent;
	}
}

/*
 * kernel: lib/xarray.c xas_shrink(): while the top node holds only slot 0,
 * make slot 0 the head.
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
		xa_publish(&xa->head, entry);
		node->count = 0;
		node->nr_values = 0;
		node_update(xa, node);
		node_free_rcu(xa, node);
	}
}

/* Walk down to the leaf for index, creating nodes as needed (kernel: xas_create()). */
static struct msim_xa_node *xa_create_path(struct msim_xarray *xa, unsigned long index)
{
	struct msim_xa_node *node = msim__xa_to_node(xa->head), *child;

	while (node->shift) {
		unsigned int off = node_offset(node->shift, index);
		void *slot = node->slots[off];

		if (!slot) {
			child = node_alloc(xa, node->shift - MSIM_XA_CHUNK_SHIFT, node, off);
			if (!child) {
				xa_delete_empty(xa, node);
				return NULL;
			}
			xa_publish(&node->slots[off], msim__xa_mk_node(child));
			node->count++;
			node_update(xa, node);
			slot = node->slots[off];
		}
		node = msim__xa_to_node(slot);
	}
	return node;
}

/* The leaf that holds index, or NULL (no allocation). */
static struct msim_xa_node *xa_find_leaf(struct msim_xarray *xa, unsigned long index)
{
	void *head = xa->head;
	struct msim_xa_node *node;

	if (!msim__xa_is_node(head))
		return NULL;
	node = msim__xa_to_node(head);
	if (index > node_maxindex(node->shift))
		return NULL;
	while (node->shift) {
		void *slot = node->slots[node_offset(node->shift, index)];

		if (!slot)
			return NULL;
		node = msim__xa_to_node(slot);
	}
	return node;
}

/* kernel: lib/xarray.c __xa_erase() */
void *msim_xa_erase_locked(struct msim_xarray *xa, unsigned long index)
{
	struct msim_xa_node *node;
	unsigned int off;
	void *old;

	assert(msim_lock_held_by_me(&xa->lock));
	if (!msim__xa_is_node(xa->head)) {
		old = xa->head;
		if (index != 0 || !old)
			return NULL;
		xa_publish(&xa->head, NULL);
		xa_stat(&xa->nr_entries, -1);
		return old;
	}
	node = xa_find_leaf(xa, index);
	if (!node)
		return NULL;
	off = node_offset(0, index);
	old = node->slots[off];
	if (!old)
		return NULL;
	xa_publish(&node->slots[off], NULL);
	count_slot(node, old, -1);
	xa_stat(&xa->nr_entries, -1);
	node_update(xa, node);
	xa_delete_empty(xa, node);
	xa_shrink(xa);
	return old;
}

/* kernel: lib/xarray.c __xa_store() */
void *msim_xa_store_locked(struct msim_xarray *xa, unsigned long index, void *entry, int *err)
{
	struct msim_xa_node *node;
	unsigned int off;
	void *old;

	assert(msim_lock_held_by_me(&xa->lock));
	if (err)
		*err = 0;
	if (!entry)
		return msim_xa_erase_locked(xa, index);
	if (msim__xa_is_internal(entry)) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}
	if (index == 0 && !msim__xa_is_node(xa->head)) {
		old = xa->head;
		xa_publish(&xa->head, entry);
		if (!old)
			xa_stat(&xa->nr_entries, 1);
		return old;
	}
	if (xa_expand(xa, index) < 0 || !(node = xa_create_path(xa, index))) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	off = node_offset(0, index);
	old = node->slots[off];
	xa_publish(&node->slots[off], entry);
	count_slot(node, old, -1);
	count_slot(node, entry, 1);
	if (!old)
		xa_stat(&xa->nr_entries, 1);
	if (!old || msim_xa_is_value(old) != msim_xa_is_value(entry))
		node_update(xa, node);
	return old;
}

/* Lookup under the lock: no yield point, no acquire needed. */
static void *xa_load_locked(struct msim_xarray *xa, unsigned long index)
{
	struct msim_xa_node *node;

	if (!msim__xa_is_node(xa->head))
		return index == 0 ? xa->head : NULL;
	node = xa_find_leaf(xa, index);
	return node ? node->slots[node_offset(0, index)] : NULL;
}

/* kernel: lib/xarray.c __xa_insert() */
int msim_xa_insert_locked(struct msim_xarray *xa, unsigned long index, void *entry)
{
	int err;

	if (!entry || msim__xa_is_internal(entry))
		return -EINVAL;
	if (xa_load_locked(xa, index))
		return -EBUSY;
	msim_xa_store_locked(xa, index, entry, &err);
	return err;
}

void *msim_xa_store(struct msim_xarray *xa, unsigned long index, void *entry, int *err)
{
	void *old;

	msim_lock(&xa->lock);
	old = msim_xa_store_locked(xa, index, entry, err);
	msim_unlock(&xa->lock);
	return old;
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

/* kernel: lib/xarray.c xa_erase() */
void *msim_xa_erase(struct msim_xarray *xa, unsigned long index)
{
	void *old;

	msim_lock(&xa->lock);
	old = msim_xa_erase_locked(xa, index);
	msim_unlock(&xa->lock);
	return old;
}

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
	node_free_rcu(xa, node);
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
	xa_publish(&xa->head, NULL);
	if (msim__xa_is_node(head))
		free_subtree(xa, msim__xa_to_node(head));
	__atomic_store_n(&xa->nr_entries, 0, __ATOMIC_RELAXED);
	msim_unlock(&xa->lock);
}

/* Model-only: the end of the xarray's life, where its memory goes away. */
void msim_xa_fini(struct msim_xarray *xa)
{
	msim_xa_destroy(xa);
	msim_lock_destroy(&xa->lock);
}

unsigned long msim_xa_nr_nodes(const struct msim_xarray *xa)
{
	return __atomic_load_n(&xa->nr_nodes, __ATOMIC_RELAXED);
}

bool msim_xa_empty(const struct msim_xarray *xa)
{
	return __atomic_load_n(&xa->head, __ATOMIC_RELAXED) == NULL;
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
