/* SPDX-License-Identifier: MIT */
/*
 * kmem_internal.h - the hidden header the kernel-memory model puts before every
 * allocation it hands out, and the owner table. Private to src/sim/kmem*.c.
 */
#ifndef MSIM_SIM_KMEM_INTERNAL_H
#define MSIM_SIM_KMEM_INTERNAL_H

#include <stdint.h>

#include <memcgsim/kmem.h>

/* 'kmem' in the magic word of a live allocation; anything else is a bug. */
#define MSIM__KMEM_MAGIC 0x6b6d656dU
#define MSIM__KMEM_MAGIC_FREED 0x66726565U /* 'free': written just before free() */

enum msim__kmem_kind {
	MSIM__KMEM_KMALLOC = 1,
	MSIM__KMEM_CACHE = 2,
};

#define MSIM__KMEM_F_RCU_PENDING 0x1u /* kfree_rcu'd, waiting for its grace period */

/*
 * 16 bytes, so the object behind it keeps malloc's 16-byte alignment. kmalloc
 * allocations keep their charged class size; cache objects their cache (which
 * knows the slot geometry).
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
