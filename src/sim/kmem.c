/* SPDX-License-Identifier: MIT */
/*
 * kmem.c - the kernel-memory model: kmalloc classes, dedicated caches with SLUB
 * slab packing, RCU-deferred frees, per-CPU bytes, per-cache and per-owner totals.
 *
 * Objects live in a lazily committed arena (kmem_pool.c, kmem_arena.c: what the
 * model never writes costs the process nothing), or, in sanitizer builds and for
 * very large objects, in calloc() blocks behind a 16-byte header
 * (kmem_internal.h); either way the model records what each was charged as.
 * Totals are relaxed atomic counters, so accounting is O(1) and thread-safe
 * (concurrent mode tasks and liburcu's callback thread allocate and free). The
 * model is not simulated shared state: it has no yield points and never changes a
 * schedule.
 *
 * docs/kmem.md states every byte rule and simplification; the short form:
 *  - kmalloc charges its class (kernel: include/linux/slab.h kmalloc_index());
 *  - a dedicated cache charges whole slabs, as if its objects were packed densely
 *    (kernel: mm/slub.c calculate_order(), calculate_sizes());
 *  - kfree_rcu leaves the totals when the grace period ends (kernel:
 *    mm/slab_common.c kvfree_call_rcu()).
 */
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "current.h"
#include "kmem.h"
#include "kmem_arena.h"
#include "kmem_owner.h"
#include "kmem_percpu.h"
#include "kmem_pool.h"
#include "kmem_size.h"

/* ---- lifetime ---- */

/*
 * Where objects live: MSIM_KMEM_BACKING=heap or =arena when set; otherwise the
 * lazily committed arena (kmem_arena.c), unless the build is sanitized (ASan must
 * see every object as a heap block to check its bounds; TSan is kept to the
 * heap as well, and runs the arena only when asked, to check the arena itself).
 * The heap also serves when the system refuses the address space. The bytes
 * charged are the same either way.
 */
static bool want_arena(void)
{
	const char *env = getenv("MSIM_KMEM_BACKING");

	if (env && *env)
		return strcmp(env, "heap") != 0;
#if defined(MSIM_ASAN) || defined(MSIM_TSAN)
	return false;
#else
	return true;
#endif
}

/*
 * The state of the last host torn down, cleared, for the next host: 18 KiB
 * whose owner tables a host uses a few entries of, so clearing those entries
 * costs less than clearing (and allocating) the whole (an explorer builds a host
 * a run). One spare for the process, taken and given by exchange.
 */
static struct msim_kmem *spare;

static struct msim_kmem *kmem_state_new(void)
{
	struct msim_kmem *k = __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL);

	return k ? k : calloc(1, sizeof(*k));
}

/* k zeroed again by the entries a host writes: the header, its owners, its slots. */
static void kmem_state_put(struct msim_kmem *k)
{
	unsigned int owners = k->nr_owners;

	memset(k->owners, 0, owners * sizeof(k->owners[0]));
	for (unsigned int i = 0; i < k->nr_used_slots; i++) {
		k->slot_key[k->used_slot[i]] = NULL;
		k->slot_owner[k->used_slot[i]] = 0;
	}
	k->nr_used_slots = 0;
	memset(k, 0, offsetof(struct msim_kmem, owners));
	free(__atomic_exchange_n(&spare, k, __ATOMIC_ACQ_REL));
}

int msim__kmem_init(struct msim *m)
{
	struct msim_kmem *k = kmem_state_new();

	if (!k)
		return -ENOMEM;
	k->host = m;
	k->shared = !msim__det(m);
	if (want_arena())
		k->pools = msim__kmem_pools_new(k->shared); /* NULL: the heap after all */
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
	msim__kmem_pools_free(k->pools);
	msim__kmem_pcpu_fini(m);
	for (c = k->caches; c; c = next) {
		next = c->next;
		free(c->name);
		free(c);
	}
	pthread_mutex_destroy(&k->lock);
	kmem_state_put(k);
	m->kmem = NULL;
}

bool msim_kmem_lazy_backing(const struct msim *m)
{
	const struct msim_kmem *k = msim__kmem_of(m);

	return k && k->pools;
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

/*
 * A zeroed object of size bytes charged as d: in the arena when the host has one
 * and the object fits a chunk, else on the heap behind a header.
 */
static void *obj_new(struct msim_kmem *k, size_t size, const struct msim__kmem_desc *d)
{
	struct msim__kmem_hdr *h;

	if (k->pools && size <= KMEM_ARENA_MAX_SLOT)
		return msim__kmem_pool_alloc(k, size, d);
	h = hdr_new(size);
	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->kind = d->kind;
	h->owner = d->owner;
	if (d->kind == MSIM__KMEM_KMALLOC)
		h->charged = d->charged;
	else
		h->cache = d->cache;
	return h + 1;
}

/* ---- kmalloc ---- */

/* kernel: mm/slub.c __kmalloc_noprof() (with __GFP_ZERO: kzalloc) */
void *msim_kmalloc(struct msim *m, size_t size, const char *owner)
{
	struct msim_kmem *k = msim__kmem_of(m);
	struct msim__kmem_desc d = { .kind = MSIM__KMEM_KMALLOC };
	void *p;

	if (!k) {
		errno = EINVAL;
		return NULL;
	}
	d.charged = msim_kmalloc_size(size);
	d.owner = msim__kmem_owner_index(k, owner);
	p = obj_new(k, size, &d);
	if (!p)
		return NULL;
	ADD(k, &k->kmalloc_bytes, d.charged);
	ADD(k, &k->owners[d.owner].kmalloc_bytes, d.charged);
	ADD(k, &k->allocations, 1);
	if (d.charged)
		ADD(k, &k->class_objects[msim__kmem_class_index(d.charged)], 1);
	return p;
}

static void kmalloc_uncharge(struct msim_kmem *k, const struct msim__kmem_desc *d)
{
	SUB(k, &k->kmalloc_bytes, d->charged);
	SUB(k, &k->owners[d->owner].kmalloc_bytes, d->charged);
	SUB(k, &k->allocations, 1);
	if (d->charged)
		SUB(k, &k->class_objects[msim__kmem_class_index(d->charged)], 1);
}

/* ---- dedicated caches ---- */

static void cache_uncharge(struct msim_kmem *k, struct msim_kmem_cache *c, uint16_t owner)
{
	uint64_t left = SUB(k, &c->objects, 1);

	/* The object that empties a slab gives the slab back (dense packing). */
	if (left % c->objs_per_slab == 0)
		SUB(k, &k->cache_bytes, c->slab_bytes);
	SUB(k, &k->owners[owner].cache_share_fp, c->share_fp);
	SUB(k, &k->allocations, 1);
}

/* kernel: mm/slab_common.c kmem_cache_create() -> mm/slub.c kmem_cache_open() */
static struct msim_kmem_cache *cache_new(struct msim *m, struct msim_kmem *k, const char *name,
					 size_t size, unsigned int flags)
{
	struct msim_kmem_cache *c;

	if (!k || !name || size == 0 || size > (MSIM_PAGE_SIZE << MAX_PAGE_ORDER) ||
	    (flags & ~(MSIM_SLAB_HWCACHE_ALIGN | MSIM_SLAB_FREEPTR_OUTSIDE |
		       MSIM_SLAB_CHARGE_ONLY))) {
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
 * A host torn down after a run an explorer stopped (pruned, cut, deadlocked)
 * has tasks that never finished: objects they allocated and would have freed or
 * handed on (an expansion's new unit, parked before it installs it) stay
 * allocated, and that says nothing about the model.
 */
static bool tasks_left_unfinished(const struct msim *m)
{
	for (const struct msim_task *t = m ? m->tasks : NULL; t; t = t->next)
		if (t->state != MSIM_TASK_DONE)
			return true;
	return false;
}

/*
 * kernel: mm/slab_common.c kmem_cache_destroy(). It waits for kfree_rcu'd
 * objects first (kvfree_rcu_barrier()); a cache that still has objects is kept
 * and reported, as the kernel keeps it after "Objects remaining" (unless
 * unfinished tasks of a stopped run may hold them). The cache's memory goes
 * away with the host.
 */
void msim_kmem_cache_destroy(struct msim *m, struct msim_kmem_cache *c)
{
	if (!c)
		return;
	if (LOAD(&c->rcu_pending))
		msim_rcu_barrier();
	if (LOAD(&c->objects) && !(m && m->destroying && tasks_left_unfinished(m)))
		fprintf(stderr, "memcgsim kmem: cache %s destroyed with %llu objects\n",
			c->name, (unsigned long long)LOAD(&c->objects));
}

/* kernel: mm/slub.c kmem_cache_alloc_noprof() (zeroed, as with __GFP_ZERO) */
void *msim_kmem_cache_alloc(struct msim *m, struct msim_kmem_cache *c, const char *owner)
{
	struct msim_kmem *k = msim__kmem_of(m);
	struct msim__kmem_desc d = { .kind = MSIM__KMEM_CACHE, .cache = c };
	void *p;

	if (!k || !c || c->k != k) {
		errno = EINVAL;
		return NULL;
	}
	d.owner = msim__kmem_owner_index(k, owner);
	/* In the arena the slot is the cache's (its alignment); on the heap the object. */
	p = obj_new(k, k->pools ? c->slot_size : c->object_size, &d);
	if (!p)
		return NULL;
	/* The object that opens a slab brings the whole slab in. */
	if ((ADD(k, &c->objects, 1) - 1) % c->objs_per_slab == 0)
		ADD(k, &k->cache_bytes, c->slab_bytes);
	ADD(k, &k->owners[d.owner].cache_share_fp, c->share_fp);
	ADD(k, &k->allocations, 1);
	return p;
}

/* The slabs that objs objects of c fill, packed (as msim_kmem_cache_info counts them). */
static uint64_t slabs_for(const struct msim_kmem_cache *c, uint64_t objs)
{
	return (objs + c->objs_per_slab - 1) / c->objs_per_slab;
}

/* Whether a bulk charge of c on k is allowed; why not on stderr. */
static bool charge_only_cache(struct msim_kmem *k, struct msim_kmem_cache *c, const char *what)
{
	if (k && c && c->k == k && (c->flags & MSIM_SLAB_CHARGE_ONLY))
		return true;
	fprintf(stderr, "memcgsim kmem: %s: %s\n", what,
		!k ? "no kernel-memory model on this host" :
		!c || c->k != k ? "no cache of this host" : "the cache is not charge-only");
	return false;
}

/*
 * n allocations' charges (charge) or n frees' uncharges at once. The objects
 * go from old to new; one slab for each object that opens one, or gives one
 * back, so the slabs go from slabs_for(old) to slabs_for(new); the owner's
 * share and the count move by n.
 */
static int cache_bulk(struct msim *m, struct msim_kmem_cache *c, unsigned int n,
		      const char *owner, bool charge)
{
	const char *what = charge ? "kmem_cache_charge" : "kmem_cache_uncharge";
	struct msim_kmem *k = msim__kmem_of(m);
	uint64_t old, now, slabs;
	uint16_t o;

	if (!charge_only_cache(k, c, what))
		return -EINVAL;
	if (!charge && LOAD(&c->objects) < n) {
		fprintf(stderr, "memcgsim kmem: %s(%s, %u): the cache holds %llu\n", what, c->name,
			n, (unsigned long long)LOAD(&c->objects));
		return -EINVAL;
	}
	o = msim__kmem_owner_index(k, owner);
	now = charge ? ADD(k, &c->objects, n) : SUB(k, &c->objects, n);
	old = charge ? now - n : now + n;
	if (charge) {
		slabs = slabs_for(c, now) - slabs_for(c, old);
		ADD(k, &k->cache_bytes, slabs * c->slab_bytes);
		ADD(k, &k->owners[o].cache_share_fp, n * c->share_fp);
		ADD(k, &k->allocations, n);
	} else {
		slabs = slabs_for(c, old) - slabs_for(c, now);
		SUB(k, &k->cache_bytes, slabs * c->slab_bytes);
		SUB(k, &k->owners[o].cache_share_fp, n * c->share_fp);
		SUB(k, &k->allocations, n);
	}
	return 0;
}

int msim_kmem_cache_charge(struct msim *m, struct msim_kmem_cache *c, unsigned int n,
			   const char *owner)
{
	return cache_bulk(m, c, n, owner, true);
}

int msim_kmem_cache_uncharge(struct msim *m, struct msim_kmem_cache *c, unsigned int n,
			     const char *owner)
{
	return cache_bulk(m, c, n, owner, false);
}

/* ---- free ---- */

static void uncharge(struct msim_kmem *k, const struct msim__kmem_desc *d)
{
	if (d->kind == MSIM__KMEM_KMALLOC)
		kmalloc_uncharge(k, d);
	else
		cache_uncharge(k, d->cache, d->owner);
}

/* ---- objects on the heap: a header before each ---- */

/* What the heap object p was charged as, or why p is not one. */
static const char *hdr_desc(const void *p, struct msim__kmem_desc *d)
{
	const struct msim__kmem_hdr *h = msim__kmem_hdr_of(p);

	if (h->magic != MSIM__KMEM_MAGIC)
		return h->magic == MSIM__KMEM_MAGIC_FREED ?
			"double free" : "not an allocation of the kernel-memory model";
	if (h->kind != MSIM__KMEM_KMALLOC && h->kind != MSIM__KMEM_CACHE)
		return "corrupted header";
	*d = (struct msim__kmem_desc){ .kind = h->kind, .owner = h->owner };
	d->rcu_pending = __atomic_load_n(&h->flags, __ATOMIC_RELAXED) & MSIM__KMEM_F_RCU_PENDING;
	if (h->kind == MSIM__KMEM_KMALLOC)
		d->charged = h->charged;
	else
		d->cache = h->cache;
	return NULL;
}

/* The heap's checks of kfree, kmem_cache_free (from) and kfree_rcu, then the op. */
static const char *hdr_free(struct msim_kmem *k, const void *p, enum msim__kmem_op op,
			    const struct msim_kmem_cache *from, struct msim__kmem_desc *d)
{
	struct msim__kmem_hdr *h = msim__kmem_hdr_of(p);
	const char *why = hdr_desc(p, d);

	if (why)
		return why;
	if (op != MSIM__KMEM_RCU_DONE && d->rcu_pending)
		return "already freed with kfree_rcu";
	if (d->kind == MSIM__KMEM_CACHE && d->cache->k != k)
		return "object of another host's cache";
	if (from && (d->kind != MSIM__KMEM_CACHE || d->cache != from))
		return "object is not from this cache";
	if (op == MSIM__KMEM_RCU_MARK) {
		__atomic_fetch_or(&h->flags, MSIM__KMEM_F_RCU_PENDING, __ATOMIC_RELAXED);
		return NULL;
	}
	d->span = malloc_usable_size(h) - sizeof(*h);
	h->magic = MSIM__KMEM_MAGIC_FREED;
	free(h);
	return NULL;
}

/*
 * The checks, then op, for p from the arena or the heap; *d tells what it was
 * charged as. False (after the report) for a bad free, which changes nothing.
 */
static bool kmem_free_op(struct msim_kmem *k, const void *p, enum msim__kmem_op op,
			 const struct msim_kmem_cache *from, struct msim__kmem_desc *d,
			 const char *what)
{
	const char *why;

	if (!k)
		return kmem_bad(what, p, "no kernel-memory model on this host");
	if (msim__kmem_in_arena(p))
		why = k->pools ? msim__kmem_pool_free(k, p, op, from, d) : "object of another host";
	else
		why = hdr_free(k, p, op, from, d);
	return why ? kmem_bad(what, p, why) : true;
}

/*
 * For DPOR (access.h): a free stores over the whole object, so it conflicts
 * with every access to it, before or after (an access after it is a
 * use-after-free the explorer must be able to order first). The span stays
 * inside the object's own slot or heap block: no false conflict with a
 * neighbour, so DPOR's choices are the same whichever backing the build uses
 * (arena, or the heap under the sanitizers). In a task's step as in an RCU
 * callback (which opted in, rcu.h): unnoted, a task's free looked independent
 * of a reader's load of the object, and DPOR ran only one of their orders
 * (tests/race/test_dpor_limits.c). Objects of a MSIM_SLAB_CHARGE_ONLY cache
 * are never loaded: their frees are not noted (rmdir's first step frees 37
 * kernfs nodes on uncharge-after-offline, more than a set holds: noted, the
 * step touched anything and DPOR ran 312 schedules instead of 114). A step
 * that frees more objects than a set holds touches anything. A no-op unless a
 * DPOR run records the step.
 */
static void note_free(const void *p, const struct msim__kmem_desc *d)
{
	if (d->kind == MSIM__KMEM_CACHE && (d->cache->flags & MSIM_SLAB_CHARGE_ONLY))
		return;
	msim__access_note_range(p, d->span, MSIM_ACCESS_STORE);
}

/* kernel: mm/slub.c kfree(); like the kernel it also frees cache objects. */
void msim_kfree(struct msim *m, const void *p)
{
	struct msim_kmem *k = msim__kmem_of(m);
	struct msim__kmem_desc d;

	if (p && kmem_free_op(k, p, MSIM__KMEM_FREE, NULL, &d, "kfree")) {
		note_free(p, &d);
		uncharge(k, &d);
	}
}

/* kernel: mm/slub.c kmem_cache_free() */
void msim_kmem_cache_free(struct msim *m, struct msim_kmem_cache *c, const void *p)
{
	struct msim_kmem *k = msim__kmem_of(m);
	struct msim__kmem_desc d;

	if (p && c && kmem_free_op(k, p, MSIM__KMEM_FREE, c, &d, "kmem_cache_free")) {
		note_free(p, &d);
		uncharge(k, &d);
	}
	else if (p && !c)
		kmem_bad("kmem_cache_free", p, "object is not from this cache");
}

/* ---- kfree_rcu ---- */

struct kfree_rcu_work {
	struct msim_rcu_head head;
	struct msim_kmem *k;
	const void *p;
	uint64_t bytes;
};

static uint64_t desc_bytes(const struct msim__kmem_desc *d)
{
	if (d->kind == MSIM__KMEM_KMALLOC)
		return d->charged;
	return (d->cache->share_fp + (1u << (KMEM_FP_SHIFT - 1))) >> KMEM_FP_SHIFT;
}

/* The grace period of p has ended: free it and leave the pending totals. */
static void kfree_rcu_finish(struct msim_kmem *k, const void *p, uint64_t bytes)
{
	struct msim__kmem_desc d;

	SUB(k, &k->rcu_pending_bytes, bytes);
	if (kmem_free_op(k, p, MSIM__KMEM_RCU_DONE, NULL, &d, "kfree_rcu callback")) {
		note_free(p, &d);
		if (d.kind == MSIM__KMEM_CACHE)
			SUB(k, &d.cache->rcu_pending, 1);
		uncharge(k, &d);
	}
	/* Last: fini's rcu_barrier() may free k once this reaches zero. */
	SUB(k, &k->rcu_pending_frees, 1);
}

static void kfree_rcu_cb(struct msim_rcu_head *head)
{
	struct kfree_rcu_work *w = msim_container_of(head, struct kfree_rcu_work, head);

	/* DPOR (rcu.h): the free notes itself; the totals are end-of-run figures */
	msim_rcu_callback_noted();
	kfree_rcu_finish(w->k, w->p, w->bytes);
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
	struct msim__kmem_desc d;
	struct kfree_rcu_work *w;
	uint64_t bytes;

	if (!p || !kmem_free_op(k, p, MSIM__KMEM_RCU_MARK, NULL, &d, "kfree_rcu"))
		return;
	bytes = desc_bytes(&d);
	ADD(k, &k->rcu_pending_frees, 1);
	ADD(k, &k->rcu_pending_bytes, bytes);
	if (d.kind == MSIM__KMEM_CACHE)
		ADD(k, &d.cache->rcu_pending, 1);
	w = malloc(sizeof(*w));
	if (!w) {
		/* kernel: kvfree_rcu_bulk()'s fallback, synchronize_rcu() then free. */
		msim_synchronize_rcu();
		kfree_rcu_finish(k, p, bytes);
		return;
	}
	*w = (struct kfree_rcu_work){ .k = k, .p = p, .bytes = bytes };
	w->head.host = m;
	msim_call_rcu(&w->head, kfree_rcu_cb);
}

/* kernel: mm/percpu.c pcpu_alloc_noprof() accounting, as the caller sizes it. */
void msim_kmem_percpu_charge(struct msim *m, size_t bytes, const char *owner)
{
	struct msim_kmem *k = msim__kmem_of(m);

	if (!k)
		return;
	ADD(k, &k->percpu_bytes, bytes);
	ADD(k, &k->owners[msim__kmem_owner_index(k, owner)].percpu_bytes, bytes);
}

void msim_kmem_percpu_uncharge(struct msim *m, size_t bytes, const char *owner)
{
	struct msim_kmem *k = msim__kmem_of(m);

	if (!k)
		return;
	SUB(k, &k->percpu_bytes, bytes);
	SUB(k, &k->owners[msim__kmem_owner_index(k, owner)].percpu_bytes, bytes);
}
