/* SPDX-License-Identifier: MIT */
/*
 * kmem_arena.h - the lazily committed backing store of the kernel-memory model
 * (kmem_arena.c): address space reserved once per process and handed out in
 * chunks of 64 KiB to 2 MiB, which kmem_pool.c cuts into slots. docs/kmem.md
 * section 2 says why and what it costs.
 */
#ifndef MSIM_SIM_KMEM_ARENA_H
#define MSIM_SIM_KMEM_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KMEM_GRAIN_SHIFT 16         /* 64 KiB: the smallest chunk, the chunk table's step */
#define KMEM_HUGE_SHIFT 21          /* 2 MiB: the largest chunk, one huge zero page */
#define KMEM_ARENA_MAX_SLOT (256u << 10) /* larger objects stay on the heap */

struct kmem_pool;

/*
 * Whether n bytes at p are all zero: a reused slot or per-CPU copy is cleared
 * only where something is left, so that pages reading as zero stay unwritten.
 */
bool msim__kmem_reads_zero(const void *p, size_t n);

/*
 * A chunk: 1 << shift bytes at base, aligned to its size. While a pool holds it,
 * it is cut into nslots slots of slot bytes; used has a bit per slot in use, rcu
 * a bit per slot freed with kfree_rcu and waiting for its grace period (allocated
 * on the first such free). Bytes from base + dirty on have not been handed out
 * since the pages were last released, so they are known to read as zero.
 */
struct kmem_chunk {
	char *base;
	unsigned int shift;
	bool huge_zero;              /* mapped to the huge zero page, not yet released */
	size_t dirty;
	size_t resident;             /* while free and dirty: its written bytes */
	/* the pool's (kmem_pool.c), while pool != NULL */
	struct kmem_pool *pool;
	uint32_t slot, nslots, live, hint;
	uint64_t slot_inv;           /* 2^40 / slot + 1: offset / slot by a multiply */
	uint64_t *used, *rcu;
	struct kmem_chunk *next, *prev;
};

/* False when no address space could be reserved (the model then uses the heap). */
bool msim__kmem_arena_available(void);

/*
 * A chunk of 1 << shift bytes (KMEM_GRAIN_SHIFT..KMEM_HUGE_SHIFT) for objects of
 * owner (any stable pointer naming what they are), or NULL. huge_zero: a fresh
 * 2 MiB chunk is mapped to the huge zero page, for objects mostly read, not
 * written.
 */
struct kmem_chunk *msim__kmem_chunk_get(unsigned int shift, const void *owner, bool huge_zero);
/*
 * True when under a quarter of what c handed out was written (or the pages cannot
 * be read): its pool's next huge chunk should be the huge zero page.
 */
bool msim__kmem_chunk_sparse(const struct kmem_chunk *c);
/* Give a chunk of owner's back (its pool fields are reset); its pages may be released. */
void msim__kmem_chunk_put(struct kmem_chunk *c, const void *owner);
/* True when p lies in the arena's address space. */
bool msim__kmem_arena_contains(const void *p);
/* The chunk holding p, or NULL (p is not in the arena, or in no chunk yet). */
struct kmem_chunk *msim__kmem_chunk_of(const void *p);

/* Give back the pages of every free dirty chunk (msim_kmem_trim()). */
void msim__kmem_arena_trim(void);

/* Process-wide figures, for reports and tests. */
struct msim__kmem_arena_stats {
	uint64_t reserved_bytes;     /* address space reserved */
	uint64_t chunk_bytes;        /* handed to pools now */
	uint64_t free_dirty_bytes;   /* written bytes of free chunks whose pages are kept */
	uint64_t huge_zero_maps;     /* chunks mapped to the huge zero page */
	uint64_t releases;           /* chunks whose pages were given back */
};
void msim__kmem_arena_stats(struct msim__kmem_arena_stats *out);

#endif /* MSIM_SIM_KMEM_ARENA_H */
