/* SPDX-License-Identifier: MIT */
/*
 * kmem_internal.h - the types of the kernel-memory model, shared by its files:
 * kmem.c (lifetime, allocation and free), kmem_size.c (size classes and slab
 * geometry), kmem_owner.c (the owner table), kmem_report.c (totals) and
 * kmem_pool.c (objects in the arena, kmem_arena.c). Types and constants only,
 * plus the hidden header put before every allocation on the heap.
 */
#ifndef MSIM_SIM_KMEM_INTERNAL_H
#define MSIM_SIM_KMEM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/atomic.h>
#include <memcgsim/kmem.h>

#include "internal.h"

#define KMEM_FP_SHIFT 20          /* fixed point of the per-owner cache share */
#define KMEM_OWNER_RECORDS 256
#define KMEM_OWNER_SLOTS 1024     /* pointer -> record; power of two */
#define KMEM_OWNER_NONE 0         /* owner == NULL */
#define KMEM_OWNER_OTHER 1        /* the record table is full */

#define SLUB_MAX_ORDER 3          /* PAGE_ALLOC_COSTLY_ORDER */
#define SLUB_MAX_OBJS_PER_PAGE 32767
#define MAX_PAGE_ORDER 10
#define ARCH_SLAB_MINALIGN 8
#define CACHE_LINE 64

struct kmem_owner {
	const char *name;
	uint64_t kmalloc_bytes;   /* atomic */
	uint64_t cache_share_fp;  /* atomic, bytes << KMEM_FP_SHIFT */
	uint64_t percpu_bytes;    /* atomic */
};

struct msim_kmem_cache {
	struct msim_kmem *k;
	char *name;
	size_t object_size;
	size_t slot_size;
	size_t slab_bytes;
	unsigned int flags;
	unsigned int order;
	unsigned int objs_per_slab;
	uint64_t share_fp;        /* slab_bytes / objs_per_slab, fixed point */
	uint64_t objects;         /* atomic: live objects (kfree_rcu'd ones until their GP) */
	uint64_t rcu_pending;     /* atomic: objects waiting for a grace period */
	struct msim_kmem_cache *next;
};

struct kmem_pools;            /* kmem_pool.c */

/* The kmalloc classes the per-class counts use: 13 slab classes, then "page allocator". */
#define MSIM__KMEM_NR_CLASSES 14
static inline unsigned int msim__kmem_class_index(size_t charged)
{
	static const unsigned short classes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512,
						  1024, 2048, 4096, 8192 };

	for (unsigned int i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (charged <= classes[i])
			return i;
	return MSIM__KMEM_NR_CLASSES - 1;
}
struct pcpu_area;             /* kmem_percpu.c */

struct msim_kmem {
	struct msim *host;
	bool shared;              /* concurrent mode: counters and pools used by many threads */
	struct kmem_pools *pools; /* the arena's pools; NULL: objects on the heap */
	struct pcpu_area *pcpu;   /* per-CPU memory: made on the first per-CPU allocation */
	pthread_mutex_t lock;     /* cache list, owner inserts */
	struct msim_kmem_cache *caches;
	uint64_t kmalloc_bytes;   /* atomics, all of them */
	uint64_t cache_bytes;
	uint64_t percpu_bytes;
	uint64_t rcu_pending_bytes;
	uint64_t rcu_pending_frees;
	uint64_t allocations;
	/* live kmalloc objects per class (msim__kmem_class_index: 8 .. 8192, then pages) */
	uint64_t class_objects[MSIM__KMEM_NR_CLASSES];
	unsigned int nr_owners;   /* published with release */
	struct kmem_owner owners[KMEM_OWNER_RECORDS];
	const char *slot_key[KMEM_OWNER_SLOTS];   /* published with release */
	uint16_t slot_owner[KMEM_OWNER_SLOTS];
	/* The slots that hold a key, so that a spare state is cleared by them (kmem.c). */
	uint16_t used_slot[KMEM_OWNER_SLOTS];
	unsigned int nr_used_slots;
};

/*
 * The model's counters are bookkeeping, never yield points. A concurrent-mode
 * host's are relaxed atomics: tasks on threads and liburcu's callback thread
 * update them. A deterministic host runs on one thread at a time (its RCU
 * callbacks too), so plain arithmetic does, at a third of the cost. ADD and SUB
 * return the new value.
 */
#define ADD(k, p, v) ((k)->shared ? msim_quiet_fetch_add((p), (v), MSIM_RELAXED) + (v) \
				  : (*(p) += (v)))
#define SUB(k, p, v) ((k)->shared ? msim_quiet_fetch_sub((p), (v), MSIM_RELAXED) - (v) \
				  : (*(p) -= (v)))
#define LOAD(p) msim_quiet_load((p), MSIM_RELAXED)

static inline struct msim_kmem *msim__kmem_of(const struct msim *m)
{
	return m ? m->kmem : NULL;
}

/* 'kmem' in the magic word of a live allocation; anything else is a bug. */
#define MSIM__KMEM_MAGIC 0x6b6d656dU
#define MSIM__KMEM_MAGIC_FREED 0x66726565U /* 'free': written just before free() */

enum msim__kmem_kind {
	MSIM__KMEM_KMALLOC = 1,
	MSIM__KMEM_CACHE = 2,
};

#define MSIM__KMEM_F_RCU_PENDING 0x1u /* kfree_rcu'd, waiting for its grace period */

/*
 * The header of an allocation on the heap (the backing store of sanitizer builds,
 * of MSIM_KMEM_BACKING=heap, and of objects above KMEM_ARENA_MAX_SLOT): 16 bytes,
 * so the object behind it keeps malloc's 16-byte alignment. kmalloc allocations
 * keep their charged class size; cache objects their cache (which knows the slot
 * geometry). Objects in the arena have no header: their pool knows the same.
 */
struct msim__kmem_hdr {
	uint32_t magic;
	uint16_t owner;   /* index in the owner table */
	uint8_t kind;     /* enum msim__kmem_kind */
	uint8_t flags;    /* MSIM__KMEM_F_* (atomic byte) */
	union {
		uint64_t charged;               /* kmalloc: bytes charged */
		struct msim_kmem_cache *cache;  /* cache: the cache */
	};
};

_Static_assert(sizeof(struct msim__kmem_hdr) == 16, "kmem header must keep 16-byte alignment");

static inline struct msim__kmem_hdr *msim__kmem_hdr_of(const void *p)
{
	return (struct msim__kmem_hdr *)((char *)p - sizeof(struct msim__kmem_hdr));
}

#endif /* MSIM_SIM_KMEM_INTERNAL_H */
