/* SPDX-License-Identifier: MIT */
/*
 * kmem.c - the kernel-memory model: kmalloc classes, dedicated caches with SLUB
 * slab packing, RCU-deferred frees, per-CPU bytes, per-cache and per-owner totals.
 *
 * Every allocation is a real calloc() of the requested size behind a 16-byte
 * hidden header (kmem_internal.h) that records what it was charged as; totals
 * are relaxed atomic counters, so allocation is O(1) and thread-safe (concurrent
 * mode tasks and liburcu's callback thread allocate and free). The model is not
 * simulated shared state: it has no yield points and never changes a schedule.
 *
 * docs/kmem.md states every byte rule and simplification; the short form:
 *  - kmalloc charges its class (kernel: include/linux/slab.h kmalloc_index());
 *  - a dedicated cache charges whole slabs, as if its objects were packed densely
 *    (kernel: mm/slub.c calculate_order(), calculate_sizes());
 *  - kfree_rcu leaves the totals when the grace period ends (kernel:
 *    mm/slab_common.c kvfree_call_rcu()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/host.h"
#include "sim/kmem_internal.h"

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

struct msim_kmem {
	struct msim *host;
	pthread_mutex_t lock;     /* cache list, owner inserts */
	struct msim_kmem_cache *caches;
	uint64_t kmalloc_bytes;   /* atomics, all of them */
	uint64_t cache_bytes;
	uint64_t percpu_bytes;
	uint64_t rcu_pending_bytes;
	uint64_t rcu_pending_frees;
	uint64_t allocations;
	unsigned int nr_owners;   /* published with release */
	struct kmem_owner owners[KMEM_OWNER_RECORDS];
	const char *slot_key[KMEM_OWNER_SLOTS];   /* published with release */
	uint16_t slot_owner[KMEM_OWNER_SLOTS];
};

#define ADD(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define SUB(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_RELAXED)
#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)

static struct msim_kmem *kmem_of(const struct msim *m)
{
	struct msim_kmem **slot;

	if (!m)
		return NULL;
	slot = msim__kmem_slot((struct msim *)m);
	return slot ? *slot : NULL;
}

/* ---- size rules ---- */

/* kernel: include/asm-generic/bitops/fls.h fls() */
static unsigned int kmem_fls(unsigned long x)
{
	return x ? 64 - (unsigned int)__builtin_clzl(x) : 0;
}

/* kernel: include/asm-generic/getorder.h get_order(); size >= 1 */
static unsigned int kmem_get_order(size_t size)
{
	unsigned int order = 0;

	while ((MSIM_PAGE_SIZE << order) < size)
		order++;
	return order;
}

/*
 * kernel: include/linux/slab.h kmalloc_index() / kmalloc_size_roundup().
 * 1-8 -> 8, 9-16 -> 16, 17-32 -> 32, 33-64 -> 64, 65-96 -> 96, 97-128 -> 128,
 * 129-192 -> 192, then powers of two up to 8 KiB; above that the page allocator
 * (2^order pages, kernel: mm/slub.c ___kmalloc_large_node()). Above
 * MAX_PAGE_ORDER the kernel's kmalloc fails and kvmalloc falls back to vmalloc:
 * whole pages. A zero-size request is charged nothing (ZERO_SIZE_PTR).
 */
size_t msim_kmalloc_size(size_t size)
{
	static const unsigned short small[] = { 8, 16, 32, 32, 64, 64, 64, 64,
						96, 96, 96, 96, 128, 128, 128, 128,
						192, 192, 192, 192, 192, 192, 192, 192 };
	size_t c;

	if (size == 0)
		return 0;
	if (size <= 192)
		return small[(size - 1) / 8];
	if (size <= MSIM_KMALLOC_MAX_CACHE_SIZE) {
		for (c = 256; c < size; c <<= 1)
			;
		return c;
	}
	if (size <= (MSIM_PAGE_SIZE << MAX_PAGE_ORDER))
		return MSIM_PAGE_SIZE << kmem_get_order(size);
	if (size > SIZE_MAX - MSIM_PAGE_SIZE)
		return SIZE_MAX;
	return (size + MSIM_PAGE_SIZE - 1) & ~(MSIM_PAGE_SIZE - 1);
}

static unsigned int slub_order_objects(unsigned int order, size_t size)
{
	return (unsigned int)((MSIM_PAGE_SIZE << order) / size);
}

/*
 * kernel: mm/slub.c calculate_order() and calc_slab_order() (6.8+ form).
 * min_objects = 4 * (fls(nr_cpus) + 1), capped by what fits in an order-3 slab;
 * start at the order that holds min_objects; take the lowest order up to 3 whose
 * leftover is at most 1/16 of the slab, else 1/8, else 1/4; if nothing up to
 * order 3 holds one object, get_order(size).
 */
unsigned int msim_slub_calculate_order(size_t size, unsigned int nr_cpus)
{
	unsigned int min_objects, max_objects, min_order, order, fraction;

	if (size == 0)
		size = ARCH_SLAB_MINALIGN;
	min_objects = 4 * (kmem_fls(nr_cpus ? nr_cpus : 1) + 1);
	max_objects = slub_order_objects(SLUB_MAX_ORDER, size);
	if (max_objects < 1)
		max_objects = 1;
	if (min_objects > max_objects)
		min_objects = max_objects;
	min_order = kmem_get_order((size_t)min_objects * size);
	if (slub_order_objects(min_order, size) > SLUB_MAX_OBJS_PER_PAGE)
		return kmem_get_order(size * SLUB_MAX_OBJS_PER_PAGE) - 1;
	for (fraction = 16; fraction > 1; fraction /= 2) {
		for (order = min_order; order <= SLUB_MAX_ORDER; order++) {
			size_t slab = MSIM_PAGE_SIZE << order;

			if (slab % size <= slab / fraction)
				return order;
		}
	}
	return kmem_get_order(size);
}

/* kernel: mm/slub.c calculate_sizes(), the non-debug part. */
static size_t slub_slot_size(size_t object_size, unsigned int flags)
{
	size_t align = (flags & MSIM_SLAB_HWCACHE_ALIGN) ? CACHE_LINE : ARCH_SLAB_MINALIGN;
	size_t size = object_size ? object_size : 1;

	size = (size + ARCH_SLAB_MINALIGN - 1) & ~(size_t)(ARCH_SLAB_MINALIGN - 1);
	if (flags & MSIM_SLAB_FREEPTR_OUTSIDE)
		size += sizeof(void *);
	return (size + align - 1) & ~(align - 1);
}

/* ---- owners ---- */

static size_t owner_hash(const char *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return (size_t)x & (KMEM_OWNER_SLOTS - 1);
}

/* The slot of owner pointer p, or -1; *empty gets the first empty slot seen. */
static int owner_probe(struct msim_kmem *k, const char *p, int *empty)
{
	size_t h = owner_hash(p);

	for (unsigned int i = 0; i < KMEM_OWNER_SLOTS; i++, h = (h + 1) & (KMEM_OWNER_SLOTS - 1)) {
		const char *key = __atomic_load_n(&k->slot_key[h], __ATOMIC_ACQUIRE);

		if (key == p)
			return (int)h;
		if (!key) {
			if (empty)
				*empty = (int)h;
			return -1;
		}
	}
	if (empty)
		*empty = -1;
	return -1;
}

static int owner_record_find(struct msim_kmem *k, const char *name)
{
	unsigned int n = __atomic_load_n(&k->nr_owners, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if (k->owners[i].name && strcmp(k->owners[i].name, name) == 0)
			return (int)i;
	return -1;
}

static uint16_t owner_index_slow(struct msim_kmem *k, const char *p)
{
	int slot, empty = -1, rec;

	pthread_mutex_lock(&k->lock);
	slot = owner_probe(k, p, &empty);
	if (slot >= 0) {
		rec = k->slot_owner[slot];
		goto out;
	}
	rec = owner_record_find(k, p);    /* same text, another pointer */
	if (rec < 0 && k->nr_owners < KMEM_OWNER_RECORDS) {
		rec = (int)k->nr_owners;
		k->owners[rec].name = p;
		__atomic_store_n(&k->nr_owners, k->nr_owners + 1, __ATOMIC_RELEASE);
	} else if (rec < 0) {
		rec = KMEM_OWNER_OTHER;
	}
	if (empty >= 0) {
		k->slot_owner[empty] = (uint16_t)rec;
		__atomic_store_n(&k->slot_key[empty], p, __ATOMIC_RELEASE);
	}
out:
	pthread_mutex_unlock(&k->lock);
	return (uint16_t)rec;
}

/* Owner strings are static: the pointer is the key, the text the fallback. */
static uint16_t owner_index(struct msim_kmem *k, const char *p)
{
	int slot;

	if (!p)
		return KMEM_OWNER_NONE;
	slot = owner_probe(k, p, NULL);
	if (slot >= 0)
		return k->slot_owner[slot];
	return owner_index_slow(k, p);
}

/* ---- lifetime ---- */

int msim__kmem_init(struct msim *m)
{
	struct msim_kmem **slot = msim__kmem_slot(m);
	struct msim_kmem *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->host = m;
	pthread_mutex_init(&k->lock, NULL);
	k->owners[KMEM_OWNER_NONE].name = "(none)";
	k->owners[KMEM_OWNER_OTHER].name = "(other)";
	k->nr_owners = 2;
	*slot = k;
	return 0;
}

void msim__kmem_fini(struct msim *m)
{
	struct msim_kmem **slot = msim__kmem_slot(m);
	struct msim_kmem *k = *slot;
	struct msim_kmem_cache *c, *next;

	if (!k)
		return;
	/* Pending kfree_rcu callbacks point at k: let them run first. */
	if (LOAD(&k->rcu_pending_frees))
		msim_rcu_barrier();
	for (c = k->caches; c; c = next) {
		next = c->next;
		free(c->name);
		free(c);
	}
	pthread_mutex_destroy(&k->lock);
	free(k);
	*slot = NULL;
}

/* ---- validation ---- */

/*
 * A pointer that is not a live allocation of this model (a double free, a foreign
 * pointer, a cache mismatch) aborts in debug builds; in release builds it is
 * reported and left alone: a leak, never a corrupted total.
 */
static bool kmem_bad(const char *what, const void *p, const char *why)
{
	fprintf(stderr, "memcgsim kmem: %s(%p): %s\n", what, p, why);
#ifndef NDEBUG
	abort();
#endif
	return false;
}

static bool hdr_check(const struct msim__kmem_hdr *h, const char *what, const void *p)
{
	if (h->magic == MSIM__KMEM_MAGIC)
		return true;
	return kmem_bad(what, p, h->magic == MSIM__KMEM_MAGIC_FREED ?
			"double free" : "not an allocation of the kernel-memory model");
}

static void *hdr_new(size_t size)
{
	struct msim__kmem_hdr *h;

	if (size > SIZE_MAX - sizeof(*h))
		return NULL;
	h = calloc(1, sizeof(*h) + size);
	if (!h)
		return NULL;
	h->magic = MSIM__KMEM_MAGIC;
	return h;
}

/* ---- kmalloc ---- */

/* kernel: mm/slub.c __kmalloc_noprof() (with __GFP_ZERO: kzalloc) */
void *msim_kmalloc(struct msim *m, size_t size, const char *owner)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim__kmem_hdr *h;
	size_t charged;

	if (!k) {
		errno = EINVAL;
		return NULL;
	}
	charged = msim_kmalloc_size(size);
	h = hdr_new(size);
	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->kind = MSIM__KMEM_KMALLOC;
	h->owner = owner_index(k, owner);
	h->charged = charged;
	ADD(&k->kmalloc_bytes, charged);
	ADD(&k->owners[h->owner].kmalloc_bytes, charged);
	ADD(&k->allocations, 1);
	return h + 1;
}

static void kmalloc_uncharge(struct msim_kmem *k, struct msim__kmem_hdr *h)
{
	SUB(&k->kmalloc_bytes, h->charged);
	SUB(&k->owners[h->owner].kmalloc_bytes, h->charged);
	SUB(&k->allocations, 1);
}

/* ---- dedicated caches ---- */

static void cache_uncharge(struct msim_kmem *k, struct msim_kmem_cache *c, uint16_t owner)
{
	uint64_t left = __atomic_sub_fetch(&c->objects, 1, __ATOMIC_RELAXED);

	/* The object that empties a slab gives the slab back (dense packing). */
	if (left % c->objs_per_slab == 0)
		SUB(&k->cache_bytes, c->slab_bytes);
	SUB(&k->owners[owner].cache_share_fp, c->share_fp);
	SUB(&k->allocations, 1);
}

/* kernel: mm/slab_common.c kmem_cache_create() -> mm/slub.c kmem_cache_open() */
static struct msim_kmem_cache *cache_new(struct msim *m, struct msim_kmem *k, const char *name,
					 size_t size, unsigned int flags)
{
	struct msim_kmem_cache *c;

	if (!k || !name || size == 0 || size > (MSIM_PAGE_SIZE << MAX_PAGE_ORDER) ||
	    (flags & ~(MSIM_SLAB_HWCACHE_ALIGN | MSIM_SLAB_FREEPTR_OUTSIDE))) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strdup(name))) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->k = k;
	c->object_size = size;
	c->flags = flags;
	c->slot_size = slub_slot_size(size, flags);
	c->order = msim_slub_calculate_order(c->slot_size, msim_nr_cpus(m));
	c->slab_bytes = MSIM_PAGE_SIZE << c->order;
	c->objs_per_slab = (unsigned int)(c->slab_bytes / c->slot_size);
	c->share_fp = ((uint64_t)c->slab_bytes << KMEM_FP_SHIFT) / c->objs_per_slab;
	return c;
}

/* Caller holds k->lock. */
static void cache_link(struct msim_kmem *k, struct msim_kmem_cache *c)
{
	c->next = k->caches;
	k->caches = c;
}

struct msim_kmem_cache *msim_kmem_cache_create_flags(struct msim *m, const char *name,
						     size_t size, unsigned int flags)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim_kmem_cache *c = cache_new(m, k, name, size, flags);

	if (!c)
		return NULL;
	pthread_mutex_lock(&k->lock);
	cache_link(k, c);
	pthread_mutex_unlock(&k->lock);
	return c;
}

struct msim_kmem_cache *msim_kmem_cache_create(struct msim *m, const char *name, size_t size)
{
	return msim_kmem_cache_create_flags(m, name, size, 0);
}

struct msim_kmem_cache *msim_kmem_cache_find_or_create(struct msim *m, const char *name,
						       size_t size, unsigned int flags)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim_kmem_cache *c;

	if (!k || !name) {
		errno = EINVAL;
		return NULL;
	}
	/* Under the lock, so that two first users make one cache. */
	pthread_mutex_lock(&k->lock);
	for (c = k->caches; c; c = c->next)
		if (strcmp(c->name, name) == 0)
			break;
	if (c && (c->object_size != size || c->flags != flags)) {
		c = NULL;
		errno = EINVAL;
	} else if (!c) {
		c = cache_new(m, k, name, size, flags);
		if (c)
			cache_link(k, c);
	}
	pthread_mutex_unlock(&k->lock);
	return c;
}

/*
 * kernel: mm/slab_common.c kmem_cache_destroy(). It waits for kfree_rcu'd
 * objects first (kvfree_rcu_barrier()); a cache that still has objects is kept
 * and reported, as the kernel keeps it after "Objects remaining". The cache's
 * memory goes away with the host.
 */
void msim_kmem_cache_destroy(struct msim *m, struct msim_kmem_cache *c)
{
	if (!c)
		return;
	if (LOAD(&c->rcu_pending))
		msim_rcu_barrier();
	if (LOAD(&c->objects))
		fprintf(stderr, "memcgsim kmem: cache %s destroyed with %llu objects\n",
			c->name, (unsigned long long)LOAD(&c->objects));
}

/* kernel: mm/slub.c kmem_cache_alloc_noprof() (zeroed, as with __GFP_ZERO) */
void *msim_kmem_cache_alloc(struct msim *m, struct msim_kmem_cache *c, const char *owner)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim__kmem_hdr *h;

	if (!k || !c || c->k != k) {
		errno = EINVAL;
		return NULL;
	}
	h = hdr_new(c->object_size);
	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->kind = MSIM__KMEM_CACHE;
	h->owner = owner_index(k, owner);
	h->cache = c;
	/* The object that opens a slab brings the whole slab in. */
	if (__atomic_fetch_add(&c->objects, 1, __ATOMIC_RELAXED) % c->objs_per_slab == 0)
		ADD(&k->cache_bytes, c->slab_bytes);
	ADD(&k->owners[h->owner].cache_share_fp, c->share_fp);
	ADD(&k->allocations, 1);
	return h + 1;
}

/* ---- free ---- */

/* Uncharge and release a checked header that is no longer reachable. */
static void kmem_release(struct msim_kmem *k, struct msim__kmem_hdr *h)
{
	if (h->kind == MSIM__KMEM_KMALLOC)
		kmalloc_uncharge(k, h);
	else
		cache_uncharge(k, h->cache, h->owner);
	h->magic = MSIM__KMEM_MAGIC_FREED;
	free(h);
}

static struct msim__kmem_hdr *free_check(struct msim_kmem *k, const void *p, const char *what)
{
	struct msim__kmem_hdr *h = msim__kmem_hdr_of(p);

	if (!k) {
		kmem_bad(what, p, "no kernel-memory model on this host");
		return NULL;
	}
	if (!hdr_check(h, what, p))
		return NULL;
	if (__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & MSIM__KMEM_F_RCU_PENDING) {
		kmem_bad(what, p, "already freed with kfree_rcu");
		return NULL;
	}
	if (h->kind == MSIM__KMEM_CACHE && h->cache->k != k) {
		kmem_bad(what, p, "object of another host's cache");
		return NULL;
	}
	if (h->kind != MSIM__KMEM_KMALLOC && h->kind != MSIM__KMEM_CACHE) {
		kmem_bad(what, p, "corrupted header");
		return NULL;
	}
	return h;
}

/* kernel: mm/slub.c kfree(); like the kernel it also frees cache objects. */
void msim_kfree(struct msim *m, const void *p)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim__kmem_hdr *h;

	if (!p)
		return;
	h = free_check(k, p, "kfree");
	if (h)
		kmem_release(k, h);
}

/* kernel: mm/slub.c kmem_cache_free() */
void msim_kmem_cache_free(struct msim *m, struct msim_kmem_cache *c, const void *p)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim__kmem_hdr *h;

	if (!p)
		return;
	h = free_check(k, p, "kmem_cache_free");
	if (!h)
		return;
	if (h->kind != MSIM__KMEM_CACHE || h->cache != c) {
		kmem_bad("kmem_cache_free", p, "object is not from this cache");
		return;
	}
	kmem_release(k, h);
}

/* ---- kfree_rcu ---- */

struct kfree_rcu_work {
	struct msim_rcu_head head;
	struct msim_kmem *k;
	struct msim__kmem_hdr *h;
	uint64_t bytes;
};

static uint64_t hdr_bytes(const struct msim__kmem_hdr *h)
{
	if (h->kind == MSIM__KMEM_KMALLOC)
		return h->charged;
	return (h->cache->share_fp + (1u << (KMEM_FP_SHIFT - 1))) >> KMEM_FP_SHIFT;
}

static void kfree_rcu_finish(struct msim_kmem *k, struct msim__kmem_hdr *h, uint64_t bytes)
{
	SUB(&k->rcu_pending_bytes, bytes);
	if (h->kind == MSIM__KMEM_CACHE)
		SUB(&h->cache->rcu_pending, 1);
	kmem_release(k, h);
	/* Last: fini's rcu_barrier() may free k once this reaches zero. */
	SUB(&k->rcu_pending_frees, 1);
}

static void kfree_rcu_cb(struct msim_rcu_head *head)
{
	struct kfree_rcu_work *w = msim_container_of(head, struct kfree_rcu_work, head);

	kfree_rcu_finish(w->k, w->h, w->bytes);
	free(w);
}

/*
 * kernel: mm/slab_common.c kvfree_call_rcu(). The kernel batches pointers in
 * pages; here each object gets its own callback record (not charged: the
 * kernel's batch pages are not counted either).
 */
void msim_kfree_rcu(struct msim *m, const void *p)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim__kmem_hdr *h;
	struct kfree_rcu_work *w;
	uint64_t bytes;

	if (!p)
		return;
	h = free_check(k, p, "kfree_rcu");
	if (!h)
		return;
	__atomic_fetch_or(&h->flags, MSIM__KMEM_F_RCU_PENDING, __ATOMIC_RELAXED);
	bytes = hdr_bytes(h);
	ADD(&k->rcu_pending_frees, 1);
	ADD(&k->rcu_pending_bytes, bytes);
	if (h->kind == MSIM__KMEM_CACHE)
		ADD(&h->cache->rcu_pending, 1);
	w = malloc(sizeof(*w));
	if (!w) {
		/* kernel: kvfree_rcu_bulk()'s fallback, synchronize_rcu() then free. */
		msim_synchronize_rcu();
		kfree_rcu_finish(k, h, bytes);
		return;
	}
	*w = (struct kfree_rcu_work){ .k = k, .h = h, .bytes = bytes };
	w->head.host = m;
	msim_call_rcu(&w->head, kfree_rcu_cb);
}

/* ---- totals ---- */

void msim_kmem_cache_info(const struct msim_kmem_cache *c, struct msim_kmem_cache_info *out)
{
	uint64_t objs;

	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	objs = LOAD(&c->objects);
	out->name = c->name;
	out->object_size = c->object_size;
	out->slot_size = c->slot_size;
	out->order = c->order;
	out->objects_per_slab = c->objs_per_slab;
	out->slab_bytes = c->slab_bytes;
	out->objects = objs;
	out->slabs = (objs + c->objs_per_slab - 1) / c->objs_per_slab;
	out->bytes = out->slabs * c->slab_bytes;
}

void msim_kmem_totals(const struct msim *m, struct msim_kmem_totals *out)
{
	struct msim_kmem *k = kmem_of(m);

	memset(out, 0, sizeof(*out));
	if (!k)
		return;
	out->kmalloc_bytes = LOAD(&k->kmalloc_bytes);
	out->cache_bytes = LOAD(&k->cache_bytes);
	out->percpu_bytes = LOAD(&k->percpu_bytes);
	out->rcu_pending_bytes = LOAD(&k->rcu_pending_bytes);
	out->allocations = LOAD(&k->allocations);
}

static uint64_t owner_bytes(const struct kmem_owner *o)
{
	return LOAD(&o->kmalloc_bytes) +
	       ((LOAD(&o->cache_share_fp) + (1u << (KMEM_FP_SHIFT - 1))) >> KMEM_FP_SHIFT);
}

/* The record of owner's text, or NULL. */
static const struct kmem_owner *owner_find(const struct msim *m, const char *owner)
{
	struct msim_kmem *k = kmem_of(m);
	int rec = k && owner ? owner_record_find(k, owner) : -1;

	return rec < 0 ? NULL : &k->owners[rec];
}

uint64_t msim_kmem_owner_bytes(const struct msim *m, const char *owner)
{
	const struct kmem_owner *o = owner_find(m, owner);

	return o ? owner_bytes(o) : 0;
}

uint64_t msim_kmem_owner_percpu_bytes(const struct msim *m, const char *owner)
{
	const struct kmem_owner *o = owner_find(m, owner);

	return o ? LOAD(&o->percpu_bytes) : 0;
}

size_t msim_kmem_owners(const struct msim *m, struct msim_kmem_owner_info *out, size_t max)
{
	struct msim_kmem *k = kmem_of(m);
	unsigned int n;
	size_t found = 0;

	if (!k)
		return 0;
	n = __atomic_load_n(&k->nr_owners, __ATOMIC_ACQUIRE);
	for (unsigned int i = 0; i < n; i++) {
		const struct kmem_owner *o = &k->owners[i];
		uint64_t bytes = owner_bytes(o), pc = LOAD(&o->percpu_bytes);

		if (!bytes && !pc)
			continue;
		if (found < max)
			out[found] = (struct msim_kmem_owner_info){ o->name, bytes, pc };
		found++;
	}
	return found;
}

size_t msim_kmem_caches(const struct msim *m, struct msim_kmem_cache_info *out, size_t max)
{
	struct msim_kmem *k = kmem_of(m);
	struct msim_kmem_cache *c;
	size_t n = 0;

	if (!k)
		return 0;
	pthread_mutex_lock(&k->lock);
	for (c = k->caches; c; c = c->next, n++)
		if (n < max)
			msim_kmem_cache_info(c, &out[n]);
	pthread_mutex_unlock(&k->lock);
	return n;
}

/* kernel: mm/percpu.c pcpu_alloc_noprof() accounting, as the caller sizes it. */
void msim_kmem_percpu_charge(struct msim *m, size_t bytes, const char *owner)
{
	struct msim_kmem *k = kmem_of(m);

	if (!k)
		return;
	ADD(&k->percpu_bytes, bytes);
	ADD(&k->owners[owner_index(k, owner)].percpu_bytes, bytes);
}

void msim_kmem_percpu_uncharge(struct msim *m, size_t bytes, const char *owner)
{
	struct msim_kmem *k = kmem_of(m);

	if (!k)
		return;
	SUB(&k->percpu_bytes, bytes);
	SUB(&k->owners[owner_index(k, owner)].percpu_bytes, bytes);
}

/* The simulator's own resident set, from /proc/self/statm (pages). */
uint64_t msim_kmem_process_rss(void)
{
	unsigned long long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	long page = sysconf(_SC_PAGESIZE);

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (uint64_t)resident * (uint64_t)(page > 0 ? page : 4096);
}
