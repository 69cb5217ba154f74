/* SPDX-License-Identifier: MIT */
/*
 * shrinker.h - the shrinker registry, the per-memcg shrinker_info in four layouts,
 * set_shrinker_bit, shrink_slab / shrink_slab_memcg / do_shrink_slab, the
 * drop_caches walk, and superblocks ("mounts") that own one memcg-aware shrinker
 * each (kernel: mm/shrinker.c, include/linux/shrinker.h, mm/vmscan.c, fs/super.c;
 * docs/shrinker.md).
 *
 * Per host, the layout is chosen by the variant shrinker-info
 * (enum msim_shrinker_info_layout below; msim_shrinker_layout(m) on a host):
 *   array              every memcg gets every unit up front, units from kmalloc-1k,
 *                      a pointer array sized for shrinker_nr_max (mainline);
 *   array-unit-cache   the same, units from a dedicated 520-byte cache;
 *   array-on-demand    pointer array, units installed when the memcg first gets a
 *                      list on that shrinker's list_lru (install lock: on-demand-lock);
 *   xarray             units on demand in one xarray per memcg and node, no container.
 * The root memcg always has every unit (it holds the deferred counts of global
 * reclaim); in the xarray layout it is the only memcg a registration visits.
 *
 * Setup: the layer is two subsystems (subsys.h), "shrinker" (msim_subsys_find("shrinker"):
 * the registry, the layout and the memcg hooks that allocate and free the
 * per-memcg info) and "list_lru" (msim_subsys_find("list_lru"), list_lru.h), which needs
 * it. msim_create() attaches both when the configuration sets shrinker;
 * msim_shrinker_init(m) attaches both by hand, before creating child memcgs:
 * memcgs created before have no shrinker_info (they are never shrunk per memcg;
 * set_shrinker_bit is a no-op on them). On a host without them the entry points
 * fail (-EINVAL, NULL) or do nothing; none of them attaches anything.
 *
 * Errors: bad input or misuse returns a negative errno (or NULL with errno set);
 * nothing aborts in release builds.
 *
 * Named yield points (race windows S1-S6, docs/races.md), for scripted schedules:
 *   S1 "shrink_slab_memcg.clear_bit"      counted SHRINK_EMPTY, bit not yet cleared
 *      "list_lru_add.before_set_bit"      list went 0 -> 1, bit not yet set
 *   S2 "shrinker.expand.copied"           expansion copied a header, not published
 *      "shrinker.install.loaded_info"     on-demand install read the header
 *      "shrinker.install.store"           ... about to store the unit pointer
 *   S3 "shrinker_free.idr_remove"         free about to release the id
 *      "shrinker_free.wait_done"          free waits for in-flight users
 *   S4 "do_shrink_slab.add_deferred"      about to add the remainder back
 *   S5 "list_lru.reparent.before_erase"   lists marked dead, not yet erased
 *   S6 "list_lru.alloc.before_store"      memcg_list_lru_alloc before its dying check
 */
#ifndef MEMCGSIM_SHRINKER_H
#define MEMCGSIM_SHRINKER_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/memcg.h>
#include <memcgsim/variants.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/* thread 001: the per-memcg shrinker_info layout. */
enum msim_shrinker_info_layout {
	MSIM_SHRINKER_INFO_ARRAY = 0,            /* mainline: all units upfront, kmalloc-1k */
	MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE = 1, /* thread's base: upfront, 520-byte cache */
	MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND = 2,  /* v2 patch 2/2: on demand, pointer array */
	MSIM_SHRINKER_INFO_XARRAY = 3,           /* thread's series: on demand, xarray */
};

/*
 * S1's barrier pair (docs/races.md): smp_mb__before_atomic() before
 * set_shrinker_bit's set_bit and smp_mb__after_atomic() after shrink_slab_memcg's
 * clear_bit. none removes both, to ask under a memory model (sim.h) whether they
 * are needed: not under tso (x86's locked bit operations order by themselves),
 * yes under pso (race shrinker-bit-barrier).
 */
enum msim_shrinker_bit_barrier {
	MSIM_SHRINKER_BIT_BARRIER_MB = 0,   /* mainline: both barriers */
	MSIM_SHRINKER_BIT_BARRIER_NONE = 1, /* neither */
};

/* ---- constants (include/linux/shrinker.h, mm/shrinker.c) ---- */

#define MSIM_SHRINKER_UNIT_BITS 64             /* ids per shrinker_info_unit */
#define MSIM_SHRINKER_UNIT_BYTES 520           /* 64 x atomic_long_t + 1 bitmap word */
#define MSIM_SHRINKER_INFO_HEADER_BYTES 24     /* rcu_head + map_nr_max (+ pad) */
#define MSIM_SHRINK_STOP (~0UL)
#define MSIM_SHRINK_EMPTY (~0UL - 1)
#define MSIM_SHRINK_BATCH 128
#define MSIM_DEFAULT_SEEKS 2
#define MSIM_DEF_PRIORITY 12
/*
 * Model limit on memcg-aware shrinker ids (the kernel's idr allows INT_MAX; the
 * threads need 50112). An allocation past it fails with -ENOSPC.
 */
#define MSIM_SHRINKER_ID_LIMIT (1 << 20)

/* shrinker flags (SHRINKER_*) */
#define MSIM_SHRINKER_REGISTERED (1U << 0)
#define MSIM_SHRINKER_ALLOCATED (1U << 1)
#define MSIM_SHRINKER_NUMA_AWARE (1U << 2)
#define MSIM_SHRINKER_MEMCG_AWARE (1U << 3)
#define MSIM_SHRINKER_NONSLAB (1U << 4)

/* struct shrink_control */
struct msim_shrink_control {
	unsigned int nid;             /* node being shrunk (0 if not NUMA-aware) */
	struct msim_memcg *memcg;     /* memcg being shrunk; root or NULL: global */
	unsigned long nr_to_scan;     /* scan_objects: how many to scan */
	unsigned long nr_scanned;     /* scan_objects may lower it to what it scanned */
	/*
	 * The reclaim's gfp (kernel: sc->gfp_mask): MSIM_GFP_* flags of charge.h,
	 * which name what a context may not do; 0 is GFP_KERNEL (may do I/O and
	 * enter the fs), what shrink_slab passes for the model's reclaim.
	 */
	unsigned int gfp_mask;
};

/* The gfp of sc (NULL: GFP_KERNEL). */
static inline unsigned int msim_shrink_control_gfp(const struct msim_shrink_control *sc)
{
	return sc ? sc->gfp_mask : 0;
}

struct msim_shrinker;
typedef unsigned long (*msim_shrinker_count_fn)(struct msim_shrinker *s,
						struct msim_shrink_control *sc);
typedef unsigned long (*msim_shrinker_scan_fn)(struct msim_shrinker *s,
					       struct msim_shrink_control *sc);

/*
 * struct shrinker. The caller sets count_objects, scan_objects and (optionally)
 * seeks, batch and private_data between msim_shrinker_alloc() and
 * msim_shrinker_register(); the rest is the model's.
 */
struct msim_shrinker {
	msim_shrinker_count_fn count_objects; /* SHRINK_EMPTY when it holds nothing */
	msim_shrinker_scan_fn scan_objects;   /* freed count, or SHRINK_STOP */
	long batch;                           /* 0: SHRINK_BATCH */
	int seeks;                            /* DEFAULT_SEEKS */
	void *private_data;

	/* ---- model state: read-only for users ---- */
	unsigned int flags;                   /* MSIM_SHRINKER_* */
	int id;                               /* memcg-aware: idr id; else -1 */
	char name[32];
	struct msim *host;
	msim_atomic_long_t *nr_deferred;      /* not memcg-aware: per node (or one slot) */
	msim_atomic_long_t refcount;          /* 0: not registered, or being freed */
	struct msim_shrinker *next, *prev;    /* shrinker_list (RCU; next is published) */
	struct msim_rcu_head rcu;
	uint64_t count_calls, scan_calls;     /* for tests and benches */
};

/* ---- setup ---- */

/*
 * The shrinker layer as a subsystem (subsys.h): name "shrinker", depends on "memcg":
 * msim_subsys_find("shrinker").
 */

/*
 * Attach the shrinker and list_lru subsystems to m by hand (msim_subsys_attach()
 * of list_lru, which brings the shrinker first, and memcg if m lacks it): the
 * layout from the config's variants, the idr, shrinker_nr_max 0, the memcg hooks
 * (alloc_shrinker_info at online, reparent_shrinker_deferred at offline,
 * free_shrinker_info at css_free) and list_lru's offline reparenting. Call it
 * from the driver (not a task). Returns 0, also when attached already (from the
 * configuration or an earlier call); -EBUSY when it attached while child memcgs
 * existed (they have no shrinker_info; the layer is attached all the same);
 * -EINVAL for a NULL host or a call from a task; -ENOMEM.
 */
MSIM_API int msim_shrinker_init(struct msim *m);

/* shrinker_nr_max: multiple of 64, never shrinks. */
MSIM_API int msim_shrinker_nr_max(struct msim *m);

/* ---- lifetime (kernel: mm/shrinker.c shrinker_alloc/register/free) ---- */

/*
 * shrinker_alloc(): flags among NUMA_AWARE, MEMCG_AWARE, NONSLAB. A memcg-aware
 * shrinker takes the lowest free id, expanding every memcg's shrinker_info if it
 * crosses shrinker_nr_max. Returns 0 and *out, -ENOSPC for ids past
 * MSIM_SHRINKER_ID_LIMIT, -EINVAL for unknown flags, -ENOMEM.
 */
MSIM_API int msim_shrinker_alloc(struct msim *m, unsigned int flags, const char *name,
				 struct msim_shrinker **out);

/*
 * shrinker_register(): add to shrinker_list and allow try_get. Returns 0, -EBUSY
 * if already registered, -EINVAL if count/scan are missing or s is not a live
 * allocated shrinker.
 */
MSIM_API int msim_shrinker_register(struct msim_shrinker *s);

/*
 * shrinker_free(): drop the initial reference, wait for in-flight users, unlink,
 * release the id, free after a grace period. Bits and deferred counts of the id
 * stay in memcg units (S3). May be called on an allocated, unregistered shrinker
 * (error path). Returns 0, or -EINVAL for a pointer that is not a live shrinker
 * of any host (double free, never allocated), or -EDEADLK, changing nothing,
 * when called outside a task of a deterministic host while a reference is held
 * (a parked task's shrinker_try_get): the wait could never end. Both count as
 * misuse (msim_shrinker_stats, introspect/shrinker.h). A stopped run's abandoned tasks are not waited for.
 */
MSIM_API int msim_shrinker_free(struct msim_shrinker *s);

/* shrinker_try_get / shrinker_put. */
MSIM_API bool msim_shrinker_try_get(struct msim_shrinker *s);
MSIM_API void msim_shrinker_put(struct msim_shrinker *s);

/* ---- per-memcg shrinker_info (the layout ops) ---- */

/*
 * set_shrinker_bit(): no-op for id < 0, a NULL or root memcg, or a memcg without
 * the unit (on-demand layouts: the install was never done or was lost).
 */
MSIM_API void msim_set_shrinker_bit(struct msim_memcg *memcg, unsigned int nid, int id);

/*
 * Install the unit that covers id in memcg's info on node nid (on-demand layouts;
 * a no-op returning 0 in the upfront ones and for root). Called by
 * msim_memcg_list_lru_alloc() when the memcg gets its first list on a list_lru
 * whose shrinker is id. Returns 0 or -ENOMEM / -EINVAL.
 */
MSIM_API int msim_shrinker_unit_install(struct msim_memcg *memcg, unsigned int nid, int id);

/*
 * (The host's layout, a memcg's bits, deferred counts, units and info bytes, the
 * host's counters, for tests and benches: <memcgsim/introspect/shrinker.h>.)
 */

/* ---- reclaim (kernel: mm/shrinker.c, mm/vmscan.c) ---- */

/* do_shrink_slab(): one shrinker, the kernel's nr_deferred arithmetic included. */
MSIM_API unsigned long msim_do_shrink_slab(struct msim_shrink_control *sc, struct msim_shrinker *s,
					   int priority);

/*
 * shrink_slab(): memcg non-root → shrink_slab_memcg only; root or NULL → every
 * registered shrinker on shrinker_list under RCU.
 */
MSIM_API unsigned long msim_shrink_slab(struct msim *m, unsigned int nid, struct msim_memcg *memcg,
					int priority);

/* shrink_slab_memcg(): over present units and set bits; clear, barrier, recount. */
MSIM_API unsigned long msim_shrink_slab_memcg(struct msim *m, unsigned int nid,
					      struct msim_memcg *memcg, int priority);

/* reparent_shrinker_deferred(): run by the offline hook; public for scenarios. */
MSIM_API void msim_reparent_shrinker_deferred(struct msim_memcg *memcg);

/*
 * drop_caches (echo 2): drop_slab() → for every node, shrink_slab(nid, memcg, 0)
 * for every memcg (mem_cgroup_iter from root, online ones are shrunk per memcg),
 * repeated while a pass frees more than 10 objects, at most max_passes passes
 * (0: the kernel's loop). Returns objects freed.
 */
struct msim_drop_slab_stats {
	unsigned long passes;
	unsigned long memcg_node_visits;   /* shrink_slab calls */
	unsigned long freed;
};
MSIM_API unsigned long msim_drop_slab(struct msim *m, unsigned int max_passes,
				      struct msim_drop_slab_stats *st);

/* ---- superblocks (kernel: fs/super.c alloc_super / deactivate_locked_super) ---- */

struct msim_super_block;
struct msim_list_lru;

enum msim_sb_object_kind {
	MSIM_SB_DENTRY = 0,
	MSIM_SB_INODE = 1,
};

/*
 * Mount: allocate and register one memcg-aware, NUMA-aware shrinker "sb-NAME"
 * (super_cache_count / super_cache_scan) with its dentry and inode list_lrus.
 * Returns 0 and *out, or the shrinker's error.
 */
MSIM_API int msim_sb_mount(struct msim *m, const char *name, struct msim_super_block **out);

/*
 * Unmount: free the shrinker (waiting for in-flight shrinks), evict every object,
 * destroy the list_lrus, free sb. Returns 0, or -EINVAL for NULL. sb must not be
 * used afterwards.
 */
MSIM_API int msim_sb_umount(struct msim_super_block *sb);

/*
 * Create n unreferenced objects on node nid, charged to memcg (NULL: root): the
 * memcg's list on the lru is allocated first (memcg_list_lru_alloc, which installs
 * the shrinker unit in on-demand layouts), then each object is added to it.
 * Returns 0 or a negative errno.
 */
MSIM_API int msim_sb_alloc_objects(struct msim_super_block *sb, struct msim_memcg *memcg,
				   unsigned int nid, enum msim_sb_object_kind kind, unsigned long n);

/* Free up to n of memcg's objects on nid (list_lru_del). Returns how many. */
MSIM_API unsigned long msim_sb_free_objects(struct msim_super_block *sb, struct msim_memcg *memcg,
					    unsigned int nid, enum msim_sb_object_kind kind,
					    unsigned long n);

MSIM_API unsigned long msim_sb_nr_objects(const struct msim_super_block *sb);
MSIM_API struct msim_shrinker *msim_sb_shrinker(struct msim_super_block *sb);
MSIM_API struct msim_list_lru *msim_sb_lru(struct msim_super_block *sb, enum msim_sb_object_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_SHRINKER_H */
