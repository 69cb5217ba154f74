/* SPDX-License-Identifier: MIT */
/*
 * superblock.c - a mount: one memcg-aware, NUMA-aware shrinker "sb-NAME" with a
 * dentry and an inode list_lru (kernel: fs/super.c alloc_super,
 * super_cache_count, super_cache_scan, deactivate_locked_super; fs/dcache.c
 * prune_dcache_sb; fs/inode.c prune_icache_sb).
 *
 * Simplifications (docs/shrinker.md): every object is unreferenced, so an isolate
 * always removes it; objects are charged to their memcg only in the sense that
 * they sit on its list and hold a css reference until freed (no page_counter
 * charge); dentry objects come from a 192-byte cache, inodes from a 768-byte
 * cache (shmem_inode_cache's order of size); the super_block itself is host
 * memory, not charged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shrinker/shrinker_internal.h"

struct msim__sb_obj {
	struct msim_list_head lru;
	struct msim_memcg *memcg;   /* css reference held while the object lives */
};

struct msim_super_block {
	struct msim *host;
	char name[32];
	struct msim_shrinker *shrinker;
	struct msim_list_lru lru[2];
	bool mounted;
	msim_atomic_long_t nr_objects;
};

static const size_t obj_size[2] = { 192, 768 };
static const char *const obj_cache_name[2] = { "dentry", "shmem_inode_cache" };

/* The object caches of the test superblocks, created once on first use. */
static struct msim_kmem_cache *obj_cache(struct msim__shr_host *h, int kind)
{
	struct msim_kmem_cache *c = msim_quiet_load(&h->obj_cache[kind], MSIM_ACQUIRE);

	if (c)
		return c;
	msim_mutex_lock(&h->mutex);
	if (!h->obj_cache[kind])
		msim_quiet_store(&h->obj_cache[kind],
				 msim_kmem_cache_create(h->m, obj_cache_name[kind], obj_size[kind]),
				 MSIM_RELEASE);
	msim_mutex_unlock(&h->mutex);
	return h->obj_cache[kind];
}

static void obj_free(struct msim_super_block *sb, int kind, struct msim__sb_obj *o)
{
	struct msim__shr_host *h = msim__shr_host(sb->host);

	if (o->memcg)
		msim_css_put(o->memcg);
	msim_kmem_cache_free(sb->host, obj_cache(h, kind), o);
	msim_atomic_long_add(&sb->nr_objects, -1);
}

static enum msim_lru_status isolate_dispose(struct msim_list_head *item,
					    struct msim_list_lru_one *list, void *arg)
{
	msim_list_lru_isolate_move(list, item, arg);
	return MSIM_LRU_REMOVED;
}

static unsigned long dispose(struct msim_super_block *sb, int kind, struct msim_list_head *d)
{
	struct msim_list_head *p, *n;
	unsigned long freed = 0;

	for (p = d->next; p != d; p = n) {
		n = p->next;
		obj_free(sb, kind, msim_container_of(p, struct msim__sb_obj, lru));
		freed++;
	}
	msim_init_list_head(d);
	return freed;
}

/* kernel: fs/dcache.c prune_dcache_sb(), fs/inode.c prune_icache_sb() */
static unsigned long prune_sb(struct msim_super_block *sb, int kind,
			      struct msim_shrink_control *sc)
{
	struct msim_list_head d;

	msim_init_list_head(&d);
	msim_list_lru_shrink_walk(&sb->lru[kind], sc, isolate_dispose, &d);
	return dispose(sb, kind, &d);
}

/* kernel: fs/super.c super_cache_count(): SHRINK_EMPTY when nothing is cached */
static unsigned long super_cache_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct msim_super_block *sb = s->private_data;
	unsigned long total;

	total = msim_list_lru_shrink_count(&sb->lru[MSIM_SB_DENTRY], sc) +
		msim_list_lru_shrink_count(&sb->lru[MSIM_SB_INODE], sc);
	if (!total)
		return MSIM_SHRINK_EMPTY;
	return total; /* vfs_pressure_ratio at vfs_cache_pressure 100 */
}

/* kernel: fs/super.c super_cache_scan(): proportional split, dentries first */
static unsigned long super_cache_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct msim_super_block *sb = s->private_data;
	unsigned long dentries, inodes, total, nr = sc->nr_to_scan, freed;

	dentries = msim_list_lru_shrink_count(&sb->lru[MSIM_SB_DENTRY], sc);
	inodes = msim_list_lru_shrink_count(&sb->lru[MSIM_SB_INODE], sc);
	total = dentries + inodes + 1;
	dentries = nr * dentries / total;
	inodes = nr * inodes / total;
	sc->nr_to_scan = dentries + 1;
	freed = prune_sb(sb, MSIM_SB_DENTRY, sc);
	sc->nr_to_scan = inodes + 1;
	freed += prune_sb(sb, MSIM_SB_INODE, sc);
	return freed;
}

/* kernel: fs/super.c alloc_super() + the shrinker registration of sget_fc() */
int msim_sb_mount(struct msim *m, const char *name, struct msim_super_block **out)
{
	struct msim_super_block *sb;
	char sname[40];
	int r, k;

	if (!m || !out)
		return -EINVAL;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	sb->host = m;
	snprintf(sb->name, sizeof(sb->name), "%s", name ? name : "tmpfs");
	snprintf(sname, sizeof(sname), "sb-%s", sb->name);
	r = msim_shrinker_alloc(m, MSIM_SHRINKER_NUMA_AWARE | MSIM_SHRINKER_MEMCG_AWARE, sname,
				&sb->shrinker);
	if (r) {
		free(sb);
		return r;
	}
	sb->shrinker->count_objects = super_cache_count;
	sb->shrinker->scan_objects = super_cache_scan;
	sb->shrinker->private_data = sb;
	for (k = 0; k < 2 && !r; k++)
		r = msim_list_lru_init(m, &sb->lru[k], true, sb->shrinker);
	if (!r)
		r = msim_shrinker_register(sb->shrinker);
	if (r) {
		msim_shrinker_free(sb->shrinker);
		for (k = 0; k < 2; k++)
			msim_list_lru_destroy(&sb->lru[k]);
		free(sb);
		return r;
	}
	sb->mounted = true;
	*out = sb;
	return 0;
}

static void evict_all(struct msim_super_block *sb, int kind)
{
	struct msim_list_head d;
	unsigned long budget;
	unsigned int nid;

	msim_init_list_head(&d);
	for (nid = 0; nid < sb->lru[kind].nr_nodes; nid++) {
		budget = ~0UL;
		msim_list_lru_walk_node(&sb->lru[kind], nid, isolate_dispose, &d, &budget);
		dispose(sb, kind, &d);
	}
}

/*
 * kernel: fs/super.c deactivate_locked_super(): shrinker_free first (waits for
 * in-flight shrinks), then kill_sb evicts everything, then list_lru_destroy.
 * The super_block is freed: sb must not be used afterwards.
 */
int msim_sb_umount(struct msim_super_block *sb)
{
	int k, tries;

	if (!sb || !sb->mounted)
		return -EINVAL;
	sb->mounted = false;
	msim_shrinker_free(sb->shrinker);
	sb->shrinker = NULL;
	/* A concurrent offline may move objects while we walk: repeat until empty. */
	for (tries = 0; tries < 16 && msim_atomic_long_read(&sb->nr_objects) > 0; tries++)
		for (k = 0; k < 2; k++)
			evict_all(sb, k);
	for (k = 0; k < 2; k++)
		msim_list_lru_destroy(&sb->lru[k]);
	free(sb);
	return 0;
}

/* The slab post-alloc hook's memcg_list_lru_alloc, then list_lru_add per object. */
int msim_sb_alloc_objects(struct msim_super_block *sb, struct msim_memcg *memcg,
			  unsigned int nid, enum msim_sb_object_kind kind, unsigned long n)
{
	struct msim__shr_host *h;
	struct msim_kmem_cache *c;
	struct msim__sb_obj *o;
	unsigned long i;
	int r;

	if (!sb || !sb->mounted || (kind != MSIM_SB_DENTRY && kind != MSIM_SB_INODE) ||
	    nid >= sb->lru[kind].nr_nodes)
		return -EINVAL;
	if (memcg && msim_mem_cgroup_is_root(memcg))
		memcg = NULL;
	h = msim__shr_host(sb->host);
	c = obj_cache(h, kind);
	r = memcg ? msim_memcg_list_lru_alloc(memcg, &sb->lru[kind]) : 0;
	if (r)
		return r;
	for (i = 0; i < n; i++) {
		o = msim_kmem_cache_alloc(sb->host, c, obj_cache_name[kind]);
		if (!o)
			return -ENOMEM;
		msim_init_list_head(&o->lru);
		o->memcg = memcg;
		if (memcg)
			msim_css_get(memcg);
		msim_atomic_long_add(&sb->nr_objects, 1);
		msim_list_lru_add(&sb->lru[kind], &o->lru, nid, memcg);
	}
	return 0;
}

unsigned long msim_sb_free_objects(struct msim_super_block *sb, struct msim_memcg *memcg,
				   unsigned int nid, enum msim_sb_object_kind kind,
				   unsigned long n)
{
	struct msim_list_head d;
	unsigned long budget = n;

	if (!sb || !sb->mounted || (kind != MSIM_SB_DENTRY && kind != MSIM_SB_INODE) ||
	    nid >= sb->lru[kind].nr_nodes)
		return 0;
	if (memcg && msim_mem_cgroup_is_root(memcg))
		memcg = NULL;
	msim_init_list_head(&d);
	msim_list_lru_walk_one(&sb->lru[kind], nid, memcg, isolate_dispose, &d, &budget);
	return dispose(sb, kind, &d);
}

unsigned long msim_sb_nr_objects(const struct msim_super_block *sb)
{
	long n = sb ? msim_quiet_load(&sb->nr_objects.counter, MSIM_RELAXED) : 0;  /* a report */

	return n > 0 ? (unsigned long)n : 0;
}

struct msim_shrinker *msim_sb_shrinker(struct msim_super_block *sb)
{
	return sb ? sb->shrinker : NULL;
}

struct msim_list_lru *msim_sb_lru(struct msim_super_block *sb, enum msim_sb_object_kind kind)
{
	if (!sb || (kind != MSIM_SB_DENTRY && kind != MSIM_SB_INODE))
		return NULL;
	return &sb->lru[kind];
}
