/* SPDX-License-Identifier: MIT */
/*
 * kmem_pool.c - the kernel-memory model's objects in arena chunks (kmem_pool.h).
 *
 * A pool holds the objects of one kind on one host: same slot size, same kind
 * (kmalloc class or cache), same owner, so the facts the model needs at free time
 * are the pool's and nothing is written next to an object. A slot is the request
 * rounded up to 16 bytes (a cache's slot size for cache objects), not the kernel's
 * class: what is charged is the kernel's, what is resident is what the model
 * wrote. Chunks start at 64 KiB and double up to 2 MiB as a pool grows, so a small
 * host stays small and a pool of millions gets huge chunks.
 *
 * Invariants, under the pools' mutex (taken in concurrent mode only):
 *  - a pool's chunks with a free slot come before its full ones, so the first
 *    chunk is the only one an allocation looks at;
 *  - a slot below its chunk's dirty mark may hold old bytes: it is zeroed (if it
 *    is not zero already) when handed out again, unless its pool's objects are
 *    charge-only (never read or written); above the mark it reads as zero;
 *  - a chunk with no live object goes back to the arena, unless it is the pool's
 *    only one and the smallest size (a pool that empties and refills, as an
 *    explorer's does, keeps one small chunk).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kmem_arena.h"
#include "kmem_pool.h"

struct kmem_pool {
	struct kmem_pools *ps;
	struct msim__kmem_desc d;    /* kind, owner, charged, cache (rcu_pending unused) */
	const char *owner_name;      /* keys the arena's dirty chunks */
	uint32_t slot;
	unsigned int next_shift;
	struct kmem_chunk *chunks;   /* free slots first (see the invariants) */
	struct kmem_chunk *last;
	struct kmem_chunk *newest;   /* the chunk added last, while the pool has it */
};

struct kmem_pools {
	bool shared;                 /* concurrent mode: take the lock */
	pthread_mutex_t lock;
	unsigned int cap, n;         /* open addressing; cap a power of two */
	struct kmem_pool **tab;
	struct kmem_pool *last;      /* the pool of the latest allocation */
};

#define POOLS_INITIAL 64

/* A deterministic host runs on one thread at a time: its pools need no lock. */
static void pools_lock(struct kmem_pools *ps)
{
	if (ps->shared)
		pthread_mutex_lock(&ps->lock);
}

static void pools_unlock(struct kmem_pools *ps)
{
	if (ps->shared)
		pthread_mutex_unlock(&ps->lock);
}

struct kmem_pools *msim__kmem_pools_new(bool shared)
{
	struct kmem_pools *ps;

	if (!msim__kmem_arena_available())
		return NULL;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->cap = POOLS_INITIAL;
	ps->tab = calloc(ps->cap, sizeof(*ps->tab));
	if (!ps->tab) {
		free(ps);
		return NULL;
	}
	ps->shared = shared;
	pthread_mutex_init(&ps->lock, NULL);
	return ps;
}

void msim__kmem_pools_free(struct kmem_pools *ps)
{
	if (!ps)
		return;
	for (unsigned int i = 0; i < ps->cap; i++) {
		struct kmem_pool *pool = ps->tab[i];
		struct kmem_chunk *c, *next;

		if (!pool)
			continue;
		for (c = pool->chunks; c; c = next) {
			next = c->next;
			msim__kmem_chunk_put(c, pool->owner_name);
		}
		free(pool);
	}
	free(ps->tab);
	pthread_mutex_destroy(&ps->lock);
	free(ps);
}

/* ---- the pool of a kind of object ---- */

static bool same_kind(const struct kmem_pool *p, const struct msim__kmem_desc *d, uint32_t slot)
{
	return p->slot == slot && p->d.kind == d->kind && p->d.owner == d->owner &&
	       p->d.charged == d->charged && p->d.cache == d->cache;
}

static size_t kind_hash(const struct msim__kmem_desc *d, uint32_t slot)
{
	uint64_t x = (uint64_t)(uintptr_t)d->cache ^ ((uint64_t)slot << 20) ^
		     ((uint64_t)d->owner << 44) ^ d->charged ^ ((uint64_t)d->kind << 60);

	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(x >> 32);
}

static struct kmem_pool **pool_slot(struct kmem_pools *ps, const struct msim__kmem_desc *d,
				    uint32_t slot)
{
	size_t i = kind_hash(d, slot) & (ps->cap - 1);

	while (ps->tab[i] && !same_kind(ps->tab[i], d, slot))
		i = (i + 1) & (ps->cap - 1);
	return &ps->tab[i];
}

/* Caller holds the lock. Doubles the table; false on ENOMEM (the old one stays). */
static bool pools_grow(struct kmem_pools *ps)
{
	struct kmem_pools bigger = { .cap = ps->cap * 2 };

	bigger.tab = calloc(bigger.cap, sizeof(*bigger.tab));
	if (!bigger.tab)
		return false;
	for (unsigned int i = 0; i < ps->cap; i++)
		if (ps->tab[i])
			*pool_slot(&bigger, &ps->tab[i]->d, ps->tab[i]->slot) = ps->tab[i];
	free(ps->tab);
	ps->tab = bigger.tab;
	ps->cap = bigger.cap;
	return true;
}

/* Caller holds the lock. The pool of this kind, made on first use. */
static struct kmem_pool *pool_get(struct msim_kmem *k, const struct msim__kmem_desc *d,
				  uint32_t slot)
{
	struct kmem_pools *ps = k->pools;
	struct kmem_pool **where, *pool;

	/* Allocations come in runs of one kind (a memcg's units, a host's mounts). */
	if (ps->last && same_kind(ps->last, d, slot))
		return ps->last;
	if (2 * (ps->n + 1) > ps->cap && !pools_grow(ps))
		return NULL;
	where = pool_slot(ps, d, slot);
	if (*where)
		return ps->last = *where;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->ps = ps;
	pool->d = *d;
	pool->d.rcu_pending = false;
	pool->owner_name = k->owners[d->owner].name;
	pool->slot = slot;
	pool->next_shift = KMEM_GRAIN_SHIFT;
	*where = pool;
	ps->n++;
	return ps->last = pool;
}

/* ---- chunks of a pool ---- */

static void chunk_unlink(struct kmem_pool *pool, struct kmem_chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		pool->chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		pool->last = c->prev;
	c->next = c->prev = NULL;
}

static void chunk_push_front(struct kmem_pool *pool, struct kmem_chunk *c)
{
	c->prev = NULL;
	c->next = pool->chunks;
	if (pool->chunks)
		pool->chunks->prev = c;
	else
		pool->last = c;
	pool->chunks = c;
}

static void chunk_push_back(struct kmem_pool *pool, struct kmem_chunk *c)
{
	c->next = NULL;
	c->prev = pool->last;
	if (pool->last)
		pool->last->next = c;
	else
		pool->chunks = c;
	pool->last = c;
}

static unsigned int shift_for(uint32_t slot, unsigned int want)
{
	unsigned int shift = want;

	while (((size_t)1 << shift) < slot)
		shift++;
	return shift;
}

/* Caller holds the lock. A new chunk in front of the pool's list, or NULL. */
static struct kmem_chunk *pool_add_chunk(struct kmem_pool *pool)
{
	unsigned int shift = shift_for(pool->slot, pool->next_shift);
	/* A pool whose objects stayed unwritten so far gets the huge zero page. */
	bool huge_zero = shift == KMEM_HUGE_SHIFT && pool->newest &&
			 msim__kmem_chunk_sparse(pool->newest);
	struct kmem_chunk *c = msim__kmem_chunk_get(shift, pool->owner_name, huge_zero);
	size_t words;

	if (!c)
		return NULL;
	c->slot = pool->slot;
	c->slot_inv = (1ULL << 40) / pool->slot + 1;
	c->nslots = (uint32_t)(((size_t)1 << shift) / pool->slot);
	words = (c->nslots + 63) / 64;
	c->used = calloc(words, sizeof(*c->used));
	if (!c->used) {
		msim__kmem_chunk_put(c, pool->owner_name);
		return NULL;
	}
	/* The bits past the last slot read as used, so a search never returns them. */
	if (c->nslots % 64)
		c->used[words - 1] = ~0ULL << (c->nslots % 64);
	c->pool = pool;
	pool->newest = c;
	if (pool->next_shift < KMEM_HUGE_SHIFT)
		pool->next_shift++;
	chunk_push_front(pool, c);
	return c;
}

/* Caller holds the lock; c has a free slot. */
static uint32_t slot_take(struct kmem_chunk *c)
{
	uint32_t words = (c->nslots + 63) / 64;

	for (uint32_t n = 0, w = c->hint; n < words; n++, w = (w + 1 == words ? 0 : w + 1)) {
		if (c->used[w] == ~0ULL)
			continue;
		unsigned int bit = (unsigned int)__builtin_ctzll(~c->used[w]);

		c->used[w] |= 1ULL << bit;
		c->hint = w;
		c->live++;
		return w * 64 + bit;
	}
	abort(); /* the invariant says c has a free slot */
}

static bool charge_only(const struct msim__kmem_desc *d)
{
	return d->kind == MSIM__KMEM_CACHE && (d->cache->flags & MSIM_SLAB_CHARGE_ONLY);
}

void *msim__kmem_pool_alloc(struct msim_kmem *k, size_t size, const struct msim__kmem_desc *d)
{
	struct kmem_pools *ps = k->pools;
	uint32_t slot = (uint32_t)((size + 15) & ~(size_t)15);
	struct kmem_pool *pool;
	struct kmem_chunk *c;
	bool old_bytes;
	char *p;

	if (!slot)
		slot = 16;
	pools_lock(ps);
	pool = pool_get(k, d, slot);
	c = pool ? pool->chunks : NULL;
	if (pool && (!c || c->live == c->nslots))
		c = pool_add_chunk(pool);
	if (!c) {
		pools_unlock(ps);
		errno = ENOMEM;
		return NULL;
	}
	p = c->base + (size_t)slot_take(c) * slot;
	if (c->live == c->nslots) {
		chunk_unlink(pool, c);
		chunk_push_back(pool, c);
	}
	old_bytes = (size_t)(p - c->base) < c->dirty;
	if ((size_t)(p - c->base) + slot > c->dirty)
		c->dirty = (size_t)(p - c->base) + slot;
	pools_unlock(ps);
	/*
	 * kzalloc: a reused slot is cleared. In a huge chunk only if something is
	 * left, so pages that read as zero are not written; a small chunk's pages are
	 * resident already, and clearing outright costs less than reading first. A
	 * charge-only cache's objects are never read or written (kmem.h): theirs is
	 * left as it is (a memcg's 38 kernfs nodes, at every mkdir of an explorer's
	 * runs). The dirty mark stays, so a later pool of the chunk still clears.
	 */
	if (old_bytes && !charge_only(d) &&
	    (c->shift < KMEM_HUGE_SHIFT || !msim__kmem_reads_zero(p, slot)))
		memset(p, 0, slot);
	return p;
}

/* ---- free ---- */

bool msim__kmem_in_arena(const void *p)
{
	return msim__kmem_arena_contains(p);
}

/* Caller holds k's lock. The live object's chunk and slot index, or why not. */
static const char *slot_of(struct msim_kmem *k, const void *p, struct kmem_chunk **cp,
			   uint32_t *idx)
{
	struct kmem_chunk *c = msim__kmem_chunk_of(p);
	size_t off;

	if (!c || !c->pool)
		return "not an allocation of the kernel-memory model";
	if (c->pool->ps != k->pools)
		return "object of another host";
	/*
	 * off < 2^21 and slot < 2^19, so off * (2^40 / slot + 1) >> 40 is off / slot
	 * exactly: the error, below off / 2^40 < 2^-19, never reaches the next integer.
	 */
	off = (size_t)((const char *)p - c->base);
	*idx = (uint32_t)((off * c->slot_inv) >> 40);
	if ((size_t)*idx * c->slot != off || *idx >= c->nslots)
		return "not an allocation of the kernel-memory model";
	if (!(c->used[*idx / 64] & (1ULL << (*idx % 64))))
		return "double free";
	*cp = c;
	return NULL;
}

static bool bit_test(const uint64_t *map, uint32_t idx)
{
	return map && (map[idx / 64] & (1ULL << (idx % 64)));
}

/* Caller holds the lock. Checks passed: mark the slot as waiting for its grace period. */
static void rcu_mark(struct kmem_chunk *c, uint32_t idx)
{
	if (!c->rcu)
		c->rcu = calloc((c->nslots + 63) / 64, sizeof(*c->rcu));
	/* Without the bitmap a kfree after kfree_rcu goes unnoticed; the totals stay right. */
	if (c->rcu)
		c->rcu[idx / 64] |= 1ULL << (idx % 64);
}

/* Caller holds the lock. The slot is free again; an emptied chunk may leave the pool. */
static void slot_release(struct kmem_chunk *c, uint32_t idx)
{
	struct kmem_pool *pool = c->pool;

	c->used[idx / 64] &= ~(1ULL << (idx % 64));
	if (c->rcu)
		c->rcu[idx / 64] &= ~(1ULL << (idx % 64));
	c->hint = idx / 64;
	if (c->live-- == c->nslots) {
		chunk_unlink(pool, c);
		chunk_push_front(pool, c);
	}
	if (!c->live && (c->next || c->prev || c->shift > KMEM_GRAIN_SHIFT)) {
		chunk_unlink(pool, c);
		if (pool->newest == c)
			pool->newest = NULL;
		msim__kmem_chunk_put(c, pool->owner_name);
	}
}

/* Caller holds the lock: the checks of kfree, kmem_cache_free and kfree_rcu. */
static const char *free_checks(const struct kmem_chunk *c, uint32_t idx, enum msim__kmem_op op,
			       const struct msim_kmem_cache *from)
{
	bool pending = bit_test(c->rcu, idx);

	if (op == MSIM__KMEM_RCU_DONE)
		return pending ? NULL : "grace period ended for an object not freed with kfree_rcu";
	if (pending)
		return "already freed with kfree_rcu";
	if (from && (c->pool->d.kind != MSIM__KMEM_CACHE || c->pool->d.cache != from))
		return "object is not from this cache";
	return NULL;
}

const char *msim__kmem_pool_free(struct msim_kmem *k, const void *p, enum msim__kmem_op op,
				 const struct msim_kmem_cache *from, struct msim__kmem_desc *d)
{
	struct kmem_chunk *c;
	const char *why;
	uint32_t idx;

	pools_lock(k->pools);
	why = slot_of(k, p, &c, &idx);
	if (!why)
		why = free_checks(c, idx, op, from);
	if (!why) {
		*d = c->pool->d;
		d->span = c->slot;
		if (op == MSIM__KMEM_RCU_MARK)
			rcu_mark(c, idx);
		else
			slot_release(c, idx);
	}
	pools_unlock(k->pools);
	return why;
}
