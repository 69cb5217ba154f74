/* SPDX-License-Identifier: MIT */
/*
 * xarray.h - a model of the kernel's xarray: a radix tree of 64-slot nodes
 * (XA_CHUNK_SHIFT 6) indexed by unsigned long, with RCU-safe loads and ordered
 * iteration. Writers serialise on the xarray's own lock (xa_lock); readers only
 * need msim_rcu_read_lock(). Nodes are charged to the kernel-memory model as
 * struct xa_node (576 bytes, from the radix_tree_node cache) and freed after a
 * grace period, as the kernel does.
 */
#ifndef MEMCGSIM_XARRAY_H
#define MEMCGSIM_XARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/sync.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSIM_XA_CHUNK_SHIFT 6
#define MSIM_XA_CHUNK_SIZE (1UL << MSIM_XA_CHUNK_SHIFT)
#define MSIM_XA_NODE_BYTES 576 /* sizeof(struct xa_node) on 64-bit */

struct msim_xa_node;
struct msim_xarray;

/*
 * Called with the xa lock held whenever a node's count of present entries
 * changes (the workingset shadow-node tracker uses it, as xas_set_update()).
 */
typedef void (*msim_xa_update_fn)(struct msim_xarray *xa, struct msim_xa_node *node,
				  unsigned int count, void *arg);

struct msim_kmem_cache;

struct msim_xarray {
	struct msim *host;
	struct msim_kmem_cache *node_cache; /* the host's "radix_tree_node" cache */
	struct msim_lock lock;
	void *head;                 /* entry (index 0 only) or node; RCU-published */
	unsigned long nr_nodes;
	unsigned long nr_entries;
	const char *owner;          /* kernel-memory owner of the nodes */
	msim_xa_update_fn update;
	void *update_arg;
};

void msim_xa_init(struct msim *m, struct msim_xarray *xa, const char *owner);
/*
 * kernel: xa_destroy(). Free every node (entries are the caller's) and leave an
 * empty array that is still usable: stores may follow.
 */
void msim_xa_destroy(struct msim_xarray *xa);
/*
 * Model-only: msim_xa_destroy(), then release what the model's lock holds on
 * the host (a kernel spinlock holds nothing, so the kernel has no such call).
 * Call it once, where the memory holding the xarray goes away; the xarray needs
 * msim_xa_init() before any further use.
 */
void msim_xa_fini(struct msim_xarray *xa);
void msim_xa_set_update(struct msim_xarray *xa, msim_xa_update_fn fn, void *arg);

/* RCU-safe: call under msim_rcu_read_lock() or with the lock held. */
void *msim_xa_load(struct msim_xarray *xa, unsigned long index);

/*
 * Store entry (non-NULL, pointer aligned to 4) at index; returns the old entry.
 * Takes the xa lock. Returns NULL and sets *err = -ENOMEM only if the node
 * allocation fails (never in this model, but the API keeps the kernel's shape).
 */
void *msim_xa_store(struct msim_xarray *xa, unsigned long index, void *entry, int *err);

/* Store only if the slot is empty: returns 0, or -EBUSY if occupied. */
int msim_xa_insert(struct msim_xarray *xa, unsigned long index, void *entry);

/*
 * Entries: any pointer aligned to 4, or a value entry (kernel: xa_mk_value(),
 * an integer shifted left with the low bit set, as shadow entries are). Entries
 * whose low two bits are 10 are the xarray's own (internal) and are refused with
 * -EINVAL. Storing NULL erases.
 */
static inline void *msim_xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1UL);
}

static inline bool msim_xa_is_value(const void *entry)
{
	return ((unsigned long)entry & 1UL) != 0;
}

static inline unsigned long msim_xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

/* __xa_store / __xa_erase / __xa_insert: the caller holds xa->lock. */
void *msim_xa_store_locked(struct msim_xarray *xa, unsigned long index, void *entry, int *err);
void *msim_xa_erase_locked(struct msim_xarray *xa, unsigned long index);
int msim_xa_insert_locked(struct msim_xarray *xa, unsigned long index, void *entry);

/*
 * A node as the update hook sees it (xa lock held): present slots, value
 * entries among them (the workingset's "only shadows" test, count == nr_values),
 * the xarray it belongs to, its level, and the first index it covers.
 */
unsigned int msim_xa_node_count(const struct msim_xa_node *node);
unsigned int msim_xa_node_nr_values(const struct msim_xa_node *node);
struct msim_xarray *msim_xa_node_array(const struct msim_xa_node *node);
unsigned int msim_xa_node_shift(const struct msim_xa_node *node);
unsigned long msim_xa_node_index(const struct msim_xa_node *node);

/* Erase index; returns the old entry. Empty nodes are freed after a grace period. */
void *msim_xa_erase(struct msim_xarray *xa, unsigned long index);

/*
 * Ordered iteration: the first present entry at an index >= *index, or NULL.
 * On success *index is that entry's index. RCU-safe.
 */
void *msim_xa_find(struct msim_xarray *xa, unsigned long *index, unsigned long max);

#define msim_xa_for_each(xa, idx, entry)                                        \
	for ((idx) = 0, (entry) = msim_xa_find((xa), &(idx), ~0UL); (entry);     \
	     (entry) = ((idx) == ~0UL ? NULL : ((idx)++, msim_xa_find((xa), &(idx), ~0UL))))

unsigned long msim_xa_nr_nodes(const struct msim_xarray *xa);
bool msim_xa_empty(const struct msim_xarray *xa);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_XARRAY_H */
