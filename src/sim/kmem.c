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

#include "kmem.h"
#include "kmem_owner.h"
#include "kmem_size.h"

/* ---- lifetime ---- */

int msim__kmem_init(struct msim *m)
{
	struct msim_kmem *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->host = m;
	pthread_mutex_init(&k->lock, NULL);
	k->owners[KMEM_OWNER_NONE].name = "(none)";
	k->owners[KMEM_OWNER_OTHER].name = "(other)";
	k->nr_owners = 2;
	m->kmem = k;
	return 0;
}

void msim__kmem_fini(struct msim *m)
{
	struct msim_kmem *k = m->kmem;
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
	m->kmem = NULL;
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
	struct msim_kmem *k = msim__kmem_of(m);
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
	h->owner = msim__kmem_owner_index(k, owner);
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
	c->slot_size = msim__slub_slot_size(size, flags);
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
	struct msim_kmem *k = msim__kmem_of(m);
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
	struct msim_kmem *k = msim__kmem_of(m);
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
	struct msim_kmem *k = msim__kmem_of(m);
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
	h->owner = msim__kmem_owner_index(k, owner);
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
	struct msim_kmem *k = msim__kmem_of(m);
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
	struct msim_kmem *k = msim__kmem_of(m);
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
	struct msim_kmem *k = msim__kmem_of(m);
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

/* kernel: mm/percpu.c pcpu_alloc_noprof() accounting, as the caller sizes it. */
void msim_kmem_percpu_charge(struct msim *m, size_t bytes, const char *owner)
{
	struct msim_kmem *k = msim__kmem_of(m);

	if (!k)
		return;
	ADD(&k->percpu_bytes, bytes);
	ADD(&k->owners[msim__kmem_owner_index(k, owner)].percpu_bytes, bytes);
}

void msim_kmem_percpu_uncharge(struct msim *m, size_t bytes, const char *owner)
{
	struct msim_kmem *k = msim__kmem_of(m);

	if (!k)
		return;
	SUB(&k->percpu_bytes, bytes);
	SUB(&k->owners[msim__kmem_owner_index(k, owner)].percpu_bytes, bytes);
}
