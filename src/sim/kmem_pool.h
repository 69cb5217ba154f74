/* SPDX-License-Identifier: MIT */
/*
 * kmem_pool.h - the kernel-memory model's objects in the lazily committed arena
 * (kmem_pool.c): per host, one pool per kind of object (its slot size, what it
 * is charged, its owner), each a list of arena chunks cut into slots. What the
 * model knows about an object is kept beside the memory, never in it, so an
 * object the model never writes stays uncommitted.
 */
#ifndef MSIM_SIM_KMEM_POOL_H
#define MSIM_SIM_KMEM_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "kmem_internal.h"

/* What an allocation was charged as: the same facts the heap header records. */
struct msim__kmem_desc {
	uint8_t kind;                 /* enum msim__kmem_kind */
	uint16_t owner;
	bool rcu_pending;
	uint64_t charged;             /* kmalloc: bytes charged */
	struct msim_kmem_cache *cache;
	uint64_t span;                /* set by a free: the object's own bytes (its arena
					 slot, or its heap block past the header) */
};

/*
 * The host's pools, or NULL (no arena on this system, or ENOMEM). shared: the
 * host runs tasks on threads (concurrent mode), so the pools take a lock.
 */
struct kmem_pools *msim__kmem_pools_new(bool shared);
/* Every chunk goes back to the arena (objects still allocated are dropped). */
void msim__kmem_pools_free(struct kmem_pools *ps);

/*
 * A zeroed object of size bytes described by d, or NULL (errno ENOMEM). size must
 * be at most KMEM_ARENA_MAX_SLOT.
 */
void *msim__kmem_pool_alloc(struct msim_kmem *k, size_t size, const struct msim__kmem_desc *d);

/* True when p is arena memory (then msim__kmem_pool_free applies, else the heap's rules). */
bool msim__kmem_in_arena(const void *p);

enum msim__kmem_op {
	MSIM__KMEM_FREE,      /* kfree, kmem_cache_free: the slot is free now */
	MSIM__KMEM_RCU_MARK,  /* kfree_rcu: the slot waits for a grace period */
	MSIM__KMEM_RCU_DONE,  /* its grace period ended: the slot is free now */
};

/*
 * One step of freeing p, an object of host k in the arena, with from the cache
 * kmem_cache_free names (NULL for kfree): the checks, then the op, under one
 * lock. Fills *d with what p was charged as (for the caller to uncharge).
 * Returns NULL, or why p cannot be freed so: "double free", "not an allocation of
 * the kernel-memory model", "object of another host", "already freed with
 * kfree_rcu", "object is not from this cache".
 */
const char *msim__kmem_pool_free(struct msim_kmem *k, const void *p, enum msim__kmem_op op,
				 const struct msim_kmem_cache *from, struct msim__kmem_desc *d);

#endif /* MSIM_SIM_KMEM_POOL_H */
