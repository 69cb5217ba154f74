/* SPDX-License-Identifier: MIT */
/*
 * xarray.h - a model of the kernel's xarray: a radix tree of 64-slot nodes
 * (XA_CHUNK_SHIFT 6) indexed by unsigned long, with RCU-safe loads and ordered
 * iteration, three search marks, reserved slots and id allocation. Writers
 * serialise on the xarray's own lock (xa_lock); readers only need
 * msim_rcu_read_lock(). Nodes are charged to the kernel-memory model as struct
 * xa_node (576 bytes, from the radix_tree_node cache) and freed after a grace
 * period, as the kernel does.
 *
 * Error convention: functions returning int give 0 or a negative errno; those
 * returning the old entry (store, cmpxchg) return NULL on error and put the
 * negative errno in *err (err may be NULL). The kernel returns xa_err() entries
 * there instead; an entry cannot carry an errno here.
 */
#ifndef MEMCGSIM_XARRAY_H
#define MEMCGSIM_XARRAY_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSIM_XA_CHUNK_SHIFT 6
#define MSIM_XA_CHUNK_SIZE (1UL << MSIM_XA_CHUNK_SHIFT)
#define MSIM_XA_NODE_BYTES 576 /* sizeof(struct xa_node) on 64-bit */

/*
 * Marks (kernel: xa_mark_t): three bits per entry, searchable (msim_xa_find()
 * with a mark as filter, msim_xa_for_each_marked()). A node keeps a mark bit per
 * slot, and a parent's bit says "some entry below has it", so a marked search
 * skips unmarked subtrees. In an allocating xarray, mark 0 belongs to the
 * allocator (MSIM_XA_FREE_MARK: the slot is free); leave it to it.
 */
typedef unsigned int msim_xa_mark_t;
#define MSIM_XA_MARK_0 0u
#define MSIM_XA_MARK_1 1u
#define MSIM_XA_MARK_2 2u
#define MSIM_XA_MAX_MARKS 3u
#define MSIM_XA_FREE_MARK MSIM_XA_MARK_0
#define MSIM_XA_PRESENT 8u  /* find filter: every present entry (kernel: XA_PRESENT) */

/*
 * Flags for msim_xa_init_flags() (kernel: xa_init_flags()).
 * MSIM_XA_FLAGS_ALLOC: free slots are tracked (XA_FLAGS_ALLOC), so msim_xa_alloc()
 * finds the lowest free index quickly; storing NULL then reserves the slot
 * instead of erasing it, as the kernel's __xa_store() does (msim_xa_erase() frees).
 * The kernel's XA_FLAGS_ALLOC1 (index 0 busy) is not modelled.
 */
#define MSIM_XA_FLAGS_ALLOC 0x1u

struct msim_xa_node;
struct msim_xarray;

/*
 * The node-update hook (kernel: xas_set_update()), called with the xa lock held
 * whenever a node's count of present slots changes, and also when only its count
 * of value entries changes (an entry replaced by a value entry or the reverse,
 * count unchanged), as the kernel's update_node() does: the workingset's shadow
 * tracker relies on that second case. It also runs with count 0 just before a
 * node is freed. Marks changing do not call it.
 */
typedef void (*msim_xa_update_fn)(struct msim_xarray *xa, struct msim_xa_node *node,
				  unsigned int count, void *arg);

struct msim_kmem_cache;

/*
 * Embed by value and initialise with msim_xa_init(). Every field is private to
 * src/lib: read the state through the accessors below (msim_xa_nr_entries(),
 * msim_xa_node_cache(), msim_xa_lock(), ...); the layout may change.
 */
struct msim_xarray {
	struct msim *host;
	struct msim_kmem_cache *node_cache; /* the host's "radix_tree_node" cache */
	struct msim_lock lock;
	void *head;                 /* entry (index 0 only) or node; RCU-published */
	unsigned long nr_nodes;
	unsigned long nr_entries;   /* slots in use: entries and reserved slots */
	unsigned int flags;         /* MSIM_XA_FLAGS_*, and the head's marks */
	const char *owner;          /* kernel-memory owner of the nodes */
	msim_xa_update_fn update;
	void *update_arg;
};

MSIM_API void msim_xa_init(struct msim *m, struct msim_xarray *xa, const char *owner);
MSIM_API void msim_xa_init_flags(struct msim *m, struct msim_xarray *xa, const char *owner,
				 unsigned int flags);
/*
 * kernel: xa_destroy(). Free every node (entries are the caller's) and leave an
 * empty array that is still usable, with its flags: stores may follow.
 */
MSIM_API void msim_xa_destroy(struct msim_xarray *xa);
/*
 * Model-only: msim_xa_destroy(), then release what the model's lock holds on
 * the host (a kernel spinlock holds nothing, so the kernel has no such call).
 * Call it once, where the memory holding the xarray goes away, and before its
 * host's msim_destroy(); the xarray needs msim_xa_init() before any further use.
 * A second call, a zeroed xarray or a destroyed host is a misuse: a message,
 * then abort().
 */
MSIM_API void msim_xa_fini(struct msim_xarray *xa);
MSIM_API void msim_xa_set_update(struct msim_xarray *xa, msim_xa_update_fn fn, void *arg);

/* kernel: xa_lock() / xa_unlock(), for the _locked forms below. */
MSIM_API void msim_xa_lock(struct msim_xarray *xa);
MSIM_API void msim_xa_unlock(struct msim_xarray *xa);
/* kernel: xa_trylock(): true if taken. */
MSIM_API bool msim_xa_trylock(struct msim_xarray *xa);

/*
 * RCU-safe: call under msim_rcu_read_lock() or with the lock held. A reserved
 * slot reads as NULL.
 */
MSIM_API void *msim_xa_load(struct msim_xarray *xa, unsigned long index);

/*
 * Store entry at index; returns the old entry (NULL for an empty or reserved
 * slot). Takes the xa lock. Marks of index are kept, unless entry is NULL: that
 * erases (in an MSIM_XA_FLAGS_ALLOC array it reserves, as in the kernel).
 * *err: -EINVAL for an internal entry, -ENOMEM if a node allocation fails.
 */
MSIM_API void *msim_xa_store(struct msim_xarray *xa, unsigned long index, void *entry, int *err);

/*
 * Store only if the slot is empty: 0, -EBUSY if occupied (a reserved slot is
 * occupied), -EINVAL for an internal entry, -ENOMEM. A NULL entry reserves the
 * slot, as msim_xa_reserve() does.
 */
MSIM_API int msim_xa_insert(struct msim_xarray *xa, unsigned long index, void *entry);

/*
 * Entries: any pointer aligned to 4, or a value entry (kernel: xa_mk_value(),
 * an integer shifted left with the low bit set, as shadow entries are). Entries
 * whose low two bits are 10 are the xarray's own (internal) and are refused with
 * -EINVAL, except MSIM_XA_ZERO_ENTRY.
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

/*
 * kernel: XA_ZERO_ENTRY, what a reserved slot holds. Loads, finds and
 * iterations see NULL there, but the slot is in use: msim_xa_insert() gets
 * -EBUSY and msim_xa_empty() is false. Pass it as the old entry of
 * msim_xa_cmpxchg() to match a reserved slot, or store it to reserve one.
 */
#define MSIM_XA_ZERO_ENTRY ((void *)((257UL << 2) | 2UL))

static inline bool msim_xa_is_zero(const void *entry)
{
	return entry == MSIM_XA_ZERO_ENTRY;
}

/*
 * kernel: xa_reserve() / xa_release(). Reserve makes an empty slot in use (0;
 * -ENOMEM); an occupied slot stays as it is. Release frees index only if it is
 * still reserved: a slot stored into since then is left alone.
 */
MSIM_API int msim_xa_reserve(struct msim_xarray *xa, unsigned long index);
MSIM_API void msim_xa_release(struct msim_xarray *xa, unsigned long index);

/*
 * kernel: xa_cmpxchg(). If the slot holds old (MSIM_XA_ZERO_ENTRY matches a
 * reserved slot, NULL an empty one), store entry there (NULL erases). Returns
 * the slot's previous contents, NULL for an empty or reserved slot: the exchange
 * happened if that equals old. *err as for msim_xa_store().
 */
MSIM_API void *msim_xa_cmpxchg(struct msim_xarray *xa, unsigned long index, void *old, void *entry,
			       int *err);

/*
 * kernel: xa_alloc() in an MSIM_XA_FLAGS_ALLOC array. Store entry (NULL
 * reserves) at the lowest free index in [limit.min, limit.max] and put it in
 * *id. Returns 0; -EBUSY when no index of the limit is free; -EINVAL for an
 * array without MSIM_XA_FLAGS_ALLOC or an internal entry; -ENOMEM.
 */
struct msim_xa_limit {
	uint32_t min, max;
};
#define MSIM_XA_LIMIT(lo, hi) ((struct msim_xa_limit){ .min = (lo), .max = (hi) })
#define MSIM_XA_LIMIT_32B MSIM_XA_LIMIT(0, 0xffffffffu) /* kernel: xa_limit_32b */
#define MSIM_XA_LIMIT_31B MSIM_XA_LIMIT(0, 0x7fffffffu) /* kernel: xa_limit_31b */
#define MSIM_XA_LIMIT_16B MSIM_XA_LIMIT(0, 0xffffu)     /* kernel: xa_limit_16b */

MSIM_API int msim_xa_alloc(struct msim_xarray *xa, uint32_t *id, void *entry, struct msim_xa_limit limit);

/*
 * kernel: xa_alloc_cyclic(). Like msim_xa_alloc(), searching from *next and
 * wrapping to limit.min; *next becomes *id + 1. Returns 0; -EBUSY, -EINVAL,
 * -ENOMEM as above. The _locked form (kernel: __xa_alloc_cyclic()) returns 1
 * instead of 0 when the allocation wrapped: the search went back to limit.min,
 * or *next itself wrapped past the 32-bit ids at the previous allocation.
 */
MSIM_API int msim_xa_alloc_cyclic(struct msim_xarray *xa, uint32_t *id, void *entry,
				  struct msim_xa_limit limit, uint32_t *next);
MSIM_API int msim_xa_alloc_cyclic_locked(struct msim_xarray *xa, uint32_t *id, void *entry,
					 struct msim_xa_limit limit, uint32_t *next);

/* kernel: __xa_store / __xa_erase / __xa_insert / __xa_cmpxchg / __xa_alloc: lock held. */
MSIM_API void *msim_xa_store_locked(struct msim_xarray *xa, unsigned long index, void *entry, int *err);
MSIM_API void *msim_xa_erase_locked(struct msim_xarray *xa, unsigned long index);
MSIM_API int msim_xa_insert_locked(struct msim_xarray *xa, unsigned long index, void *entry);
MSIM_API void *msim_xa_cmpxchg_locked(struct msim_xarray *xa, unsigned long index, void *old,
				      void *entry, int *err);
MSIM_API int msim_xa_alloc_locked(struct msim_xarray *xa, uint32_t *id, void *entry,
				  struct msim_xa_limit limit);

/*
 * A node as the update hook sees it (xa lock held): present slots, value
 * entries among them (the workingset's "only shadows" test, count == nr_values),
 * the xarray it belongs to, its level, and the first index it covers.
 */
MSIM_API unsigned int msim_xa_node_count(const struct msim_xa_node *node);
MSIM_API unsigned int msim_xa_node_nr_values(const struct msim_xa_node *node);
MSIM_API struct msim_xarray *msim_xa_node_array(const struct msim_xa_node *node);
MSIM_API unsigned int msim_xa_node_shift(const struct msim_xa_node *node);
MSIM_API unsigned long msim_xa_node_index(const struct msim_xa_node *node);
/*
 * A pointer the user of the update hook keeps per node (kernel: the
 * workingset's node->private_list); NULL in a new node. Lock held.
 */
MSIM_API void *msim_xa_node_private(const struct msim_xa_node *node);
MSIM_API void msim_xa_node_set_private(struct msim_xa_node *node, void *private_data);
/*
 * kernel: xa_delete_node() (the shadow shrinker's): erase every entry of a leaf
 * that holds only value entries, call the update hook with count 0, free the
 * node and every ancestor it leaves empty. Lock held. 0, or -EINVAL for a node
 * of another array, an inner node, or a leaf that holds a non-value entry.
 */
MSIM_API int msim_xa_delete_node_locked(struct msim_xarray *xa, struct msim_xa_node *node);

/*
 * Erase index; returns the old entry (NULL if it was empty or reserved). Its
 * marks go; in an MSIM_XA_FLAGS_ALLOC array the index is free again. Empty nodes
 * are freed after a grace period.
 */
MSIM_API void *msim_xa_erase(struct msim_xarray *xa, unsigned long index);

/*
 * kernel: xa_set_mark() / xa_clear_mark() (take the lock; nothing happens at an
 * empty index) and xa_get_mark() (RCU-safe). msim_xa_marked(): does any entry
 * carry mark (kernel: xa_marked())?
 */
MSIM_API void msim_xa_set_mark(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark);
MSIM_API void msim_xa_clear_mark(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark);
MSIM_API bool msim_xa_get_mark(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark);
MSIM_API bool msim_xa_marked(const struct msim_xarray *xa, msim_xa_mark_t mark);
MSIM_API void msim_xa_set_mark_locked(struct msim_xarray *xa, unsigned long index, msim_xa_mark_t mark);
MSIM_API void msim_xa_clear_mark_locked(struct msim_xarray *xa, unsigned long index,
					msim_xa_mark_t mark);

/*
 * kernel: xa_find(). The first entry at an index in [*index, max] that matches
 * filter (MSIM_XA_PRESENT, or a mark), or NULL. On success *index is that
 * entry's index; on failure *index is unchanged. Reserved slots are skipped.
 * RCU-safe; one yield point ("xa_find").
 */
MSIM_API void *msim_xa_find(struct msim_xarray *xa, unsigned long *index, unsigned long max,
			    msim_xa_mark_t filter);

/*
 * kernel: xa_find_after(). The same, from *index + 1: the next entry after the
 * one at *index. NULL at once (no yield point) when *index is ULONG_MAX.
 */
MSIM_API void *msim_xa_find_after(struct msim_xarray *xa, unsigned long *index, unsigned long max,
				  msim_xa_mark_t filter);

/* kernel: xa_for_each_range(), xa_for_each_start(), xa_for_each(), xa_for_each_marked(). */
#define msim_xa_for_each_range(xa, idx, entry, start, last)                                 \
	for ((idx) = (start),                                                               \
	    (entry) = msim_xa_find((xa), &(idx), (last), MSIM_XA_PRESENT);                  \
	     (entry); (entry) = msim_xa_find_after((xa), &(idx), (last), MSIM_XA_PRESENT))

#define msim_xa_for_each_start(xa, idx, entry, start)                                       \
	msim_xa_for_each_range((xa), (idx), (entry), (start), ~0UL)

#define msim_xa_for_each(xa, idx, entry) msim_xa_for_each_start((xa), (idx), (entry), 0)

#define msim_xa_for_each_marked(xa, idx, entry, mark)                                       \
	for ((idx) = 0, (entry) = msim_xa_find((xa), &(idx), ~0UL, (mark)); (entry);         \
	     (entry) = msim_xa_find_after((xa), &(idx), ~0UL, (mark)))

MSIM_API unsigned long msim_xa_nr_nodes(const struct msim_xarray *xa);
/* Slots in use: entries plus reserved slots (model-only; the kernel keeps no count). */
MSIM_API unsigned long msim_xa_nr_entries(const struct msim_xarray *xa);
/* kernel: xa_empty(). False while a slot is reserved. */
MSIM_API bool msim_xa_empty(const struct msim_xarray *xa);
/* The host's "radix_tree_node" cache the nodes come from (msim_kmem_cache_info()). */
MSIM_API struct msim_kmem_cache *msim_xa_node_cache(const struct msim_xarray *xa);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_XARRAY_H */
