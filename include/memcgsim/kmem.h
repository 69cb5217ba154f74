/* SPDX-License-Identifier: MIT */
/*
 * kmem.h - the kernel-memory model: what the simulated kernel would allocate.
 *
 * Every model allocation that stands for a kernel allocation goes through here and
 * is charged at the kernel's size (64-bit, 4 KiB pages, SLUB, x86_64;
 * docs/kmem.md):
 *  - kmalloc size classes 8, 16, 32, 64, 96, 128, 192, 256, 512, 1k, 2k, 4k, 8k;
 *    above 8 KiB the page allocator, 2^order pages;
 *  - dedicated caches (kmem_cache_create) with SLUB slab packing: a slab of
 *    2^order pages holds floor(slab_bytes / object_size) objects, and the cache is
 *    charged for whole slabs;
 *  - RCU-deferred frees (kfree_rcu / kvfree_rcu) leave the totals only when their
 *    grace period ends;
 *  - per-CPU allocations are counted apart (they are not slab).
 *
 * Totals are kept per cache and per owner (a static string naming what the memory
 * is for, e.g. "shrinker_info"). The simulator's own RSS is a separate figure
 * (msim_kmem_process_rss()).
 */
#ifndef MEMCGSIM_KMEM_H
#define MEMCGSIM_KMEM_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSIM_PAGE_SIZE 4096UL
#define MSIM_KMALLOC_MAX_CACHE_SIZE 8192UL

/* The kmalloc class (bytes charged) of a request of size bytes; page allocator above 8 KiB. */
MSIM_API size_t msim_kmalloc_size(size_t size);

/* kmalloc / kzalloc: returns zeroed memory of at least size bytes, charged to owner. */
MSIM_API void *msim_kmalloc(struct msim *m, size_t size, const char *owner);
MSIM_API void msim_kfree(struct msim *m, const void *p);
/* kvfree_rcu: the charge leaves the totals when a grace period has passed. */
MSIM_API void msim_kfree_rcu(struct msim *m, const void *p);

struct msim_kmem_cache;

/* A dedicated cache of objects of size bytes (slab order chosen like SLUB for nr_cpus). */
MSIM_API struct msim_kmem_cache *msim_kmem_cache_create(struct msim *m, const char *name, size_t size);

/*
 * Cache flags that change the slot size the way SLUB's calculate_sizes() does:
 *  - MSIM_SLAB_HWCACHE_ALIGN: objects aligned to a 64-byte cache line;
 *  - MSIM_SLAB_FREEPTR_OUTSIDE: the cache has a constructor (or is
 *    SLAB_TYPESAFE_BY_RCU), so the free pointer may not overlay the object and
 *    SLUB adds a word after it (radix_tree_node: 576-byte object, 584-byte slot).
 */
#define MSIM_SLAB_HWCACHE_ALIGN 0x1u
#define MSIM_SLAB_FREEPTR_OUTSIDE 0x2u
/*
 * Not SLUB's, and no change to the slot size: the model only charges the
 * cache's objects and never reads or writes them (kernfs nodes, whose readers
 * are not modelled). So a reused slot is not cleared: unlike every other
 * object's, such an object's bytes are undefined. A free of one touches
 * nothing another task loads, so partial-order reduction notes none (every
 * other free is a store over the object: docs/explore.md, "Frees").
 */
#define MSIM_SLAB_CHARGE_ONLY 0x4u
MSIM_API struct msim_kmem_cache *msim_kmem_cache_create_flags(struct msim *m, const char *name,
							      size_t size, unsigned int flags);
/*
 * The host's cache called name, created on first use (with size and flags). Returns
 * NULL (errno EINVAL) if a cache of that name exists with another size or flags.
 * Lets library code (the xarray's "radix_tree_node") share one cache per host.
 */
MSIM_API struct msim_kmem_cache *msim_kmem_cache_find_or_create(struct msim *m, const char *name,
								size_t size, unsigned int flags);

/*
 * SLUB's slab order for objects occupying slot_size bytes on a host with nr_cpus
 * CPUs (kernel: mm/slub.c calculate_order()); docs/kmem.md derives the rule.
 */
MSIM_API unsigned int msim_slub_calculate_order(size_t slot_size, unsigned int nr_cpus);
MSIM_API void msim_kmem_cache_destroy(struct msim *m, struct msim_kmem_cache *c);
MSIM_API void *msim_kmem_cache_alloc(struct msim *m, struct msim_kmem_cache *c, const char *owner);
MSIM_API void msim_kmem_cache_free(struct msim *m, struct msim_kmem_cache *c, const void *p);
/*
 * n objects of a MSIM_SLAB_CHARGE_ONLY cache charged to owner, or n of them
 * uncharged, with no memory behind them: the totals, the cache's objects and
 * slabs and the owner's share move exactly as n allocations or n frees of such
 * objects would move them, and nothing is noted for partial-order reduction
 * (such an object is never loaded). For objects the caller only counts (a
 * cgroup's kernfs nodes). Returns 0, or -EINVAL (no host, c NULL or of another
 * host or not charge-only, or more objects uncharged than c holds: reported on
 * stderr, and nothing changes).
 */
MSIM_API int msim_kmem_cache_charge(struct msim *m, struct msim_kmem_cache *c, unsigned int n,
				    const char *owner);
MSIM_API int msim_kmem_cache_uncharge(struct msim *m, struct msim_kmem_cache *c, unsigned int n,
				      const char *owner);

/* Slab geometry of a cache: objects per slab, slab bytes, and bytes per object charged. */
struct msim_kmem_cache_info {
	const char *name;
	size_t object_size;
	size_t slot_size;        /* object_size aligned, plus an outside free pointer */
	unsigned int order;
	unsigned int objects_per_slab;
	size_t slab_bytes;
	uint64_t objects;        /* live objects */
	uint64_t slabs;          /* slabs needed for them (packed) */
	uint64_t bytes;          /* slabs * slab_bytes */
};
MSIM_API void msim_kmem_cache_info(const struct msim_kmem_cache *c, struct msim_kmem_cache_info *out);

/* Totals. Bytes are the kernel's charged bytes, not the request sizes. */
struct msim_kmem_totals {
	uint64_t kmalloc_bytes;      /* kmalloc classes and page allocator */
	uint64_t cache_bytes;        /* dedicated caches, whole slabs */
	uint64_t percpu_bytes;
	uint64_t rcu_pending_bytes;  /* freed with kfree_rcu, grace period not yet over */
	uint64_t allocations;        /* live allocations */
};
MSIM_API void msim_kmem_totals(const struct msim *m, struct msim_kmem_totals *out);

/*
 * Bytes currently charged to owner (kmalloc plus cache objects at their packed
 * share, slab_bytes / objects_per_slab each, rounded to the nearest byte).
 */
MSIM_API uint64_t msim_kmem_owner_bytes(const struct msim *m, const char *owner);
/* Per-CPU bytes charged to owner (not part of msim_kmem_owner_bytes). */
MSIM_API uint64_t msim_kmem_owner_percpu_bytes(const struct msim *m, const char *owner);

/* For reports: every owner that holds a charge now, and every cache of the host. */
struct msim_kmem_owner_info {
	const char *owner;
	uint64_t bytes;          /* as msim_kmem_owner_bytes() */
	uint64_t percpu_bytes;
};
/* Fills up to max entries (owners with a nonzero charge); returns how many there are. */
MSIM_API size_t msim_kmem_owners(const struct msim *m, struct msim_kmem_owner_info *out, size_t max);
/* Fills up to max entries, newest cache first; returns how many caches there are. */
MSIM_API size_t msim_kmem_caches(const struct msim *m, struct msim_kmem_cache_info *out, size_t max);

/*
 * Live kmalloc objects per class (kernel: the kmalloc-N caches, accounted or not):
 * size 8 .. 8192, and a last entry of size 0 for allocations the page allocator
 * serves. Fills up to max entries; returns how many classes there are (14).
 */
struct msim_kmem_class_info {
	size_t size;
	uint64_t objects;
};
MSIM_API size_t msim_kmem_kmalloc_classes(const struct msim *m, struct msim_kmem_class_info *out,
					  size_t max);

/* Resident set size of this process, bytes (the simulator's own cost). */
MSIM_API uint64_t msim_kmem_process_rss(void);
/*
 * Bytes of page tables of this process (VmPTE): reading memory nobody wrote costs
 * no resident page but does cost page-table entries, which RSS does not count.
 */
MSIM_API uint64_t msim_kmem_process_page_tables(void);

/*
 * Give back to the system the memory that destroyed hosts left for later ones
 * (freed chunks kept for reuse, per-CPU areas, the C library's free lists), so
 * that RSS measures what live hosts hold. A bench calls it between sizes.
 */
MSIM_API void msim_kmem_trim(void);

/*
 * True when host m keeps its objects in the lazily committed arena (bytes the
 * model never writes cost the process nothing; docs/kmem.md section 2); false
 * when they are heap blocks: in sanitizer builds, with MSIM_KMEM_BACKING=heap in
 * the environment when the host was created, or when the system refused the
 * address space. The bytes charged are the same either way.
 */
MSIM_API bool msim_kmem_lazy_backing(const struct msim *m);

/* per-CPU bytes are recorded by msim_alloc_percpu (percpu.h) through these. */
MSIM_API void msim_kmem_percpu_charge(struct msim *m, size_t bytes, const char *owner);
MSIM_API void msim_kmem_percpu_uncharge(struct msim *m, size_t bytes, const char *owner);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_KMEM_H */
