/* SPDX-License-Identifier: MIT */
/*
 * memcg.h - the memory-cgroup tree and its lifecycle.
 *
 * Lifecycle (kernel: kernel/cgroup/cgroup.c and mm/memcontrol.c):
 *   mkdir   -> css_alloc hooks -> css_online hooks -> private id published (ONLINE)
 *   rmdir   -> -EBUSY with live children; else CSS_DYING set (DYING), one RCU grace
 *              period, css_offline hooks in ascending order (OFFLINE), the online
 *              reference (css and private id) dropped
 *   last css reference dropped -> css_released hooks (RELEASED)
 *   one grace period later     -> css_free hooks, memory freed (FREED)
 *
 * Subsystems (rstat, shrinker, list_lru, ...) attach through msim_memcg_hooks;
 * this layer knows none of them. Each registered hook set gets a private slot
 * per memcg (msim_memcg_slot()) for its per-memcg data.
 *
 * The layer itself is the subsystem "memcg" (msim_subsys_find("memcg"), subsys.h): every
 * host has it from msim_create() unless its configuration sets memcg_disabled.
 * Its host state (the id space, the "mem_cgroup" and "mem_cgroup_per_node"
 * caches, the hook table) exists from then on; the root memcg is created by the
 * first msim_root_mem_cgroup() (or by a layer that attaches, which asks for it),
 * so a host that never makes a memcg holds none in its kernel-memory totals.
 * Without the subsystem every entry point here returns NULL, -EINVAL or zeros.
 *
 * Handles: a struct msim_memcg * stays valid while the caller holds a css
 * reference or an RCU read-side section that began while the memcg was not yet
 * freed. Debug builds poison freed memcgs and catch use through a freed handle.
 */
#ifndef MEMCGSIM_MEMCG_H
#define MEMCGSIM_MEMCG_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/subsys.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/*
 * How the memory controller's own structures are allocated and sized, for the
 * kernel-memory model: newest (struct mem_cgroup and mem_cgroup_per_node from
 * their dedicated caches; 47 per-node statistics items) or Linux 6.12 (both from
 * kzalloc, kmalloc-2k; 31 per-node items, so struct lruvec_stats is 744 bytes,
 * kmalloc-1k): measured by the kernel rig (docs/oracle.md).
 */
enum msim_memcg_layout {
	MSIM_MEMCG_LAYOUT_NEWEST = 0,
	MSIM_MEMCG_LAYOUT_LINUX_6_12 = 1,
};

/* memcg-layout, for the layers that size their per-memcg structures by it (rstat). */
MSIM_API enum msim_memcg_layout msim_memcg_variant_layout(const struct msim_config *cfg);

/*
 * The memcg layer as a subsystem (subsys.h): name "memcg", no dependency:
 * msim_subsys_find("memcg").
 */

#define MSIM_MEM_CGROUP_ID_MAX 65535 /* private ids 1..65535 (MEM_CGROUP_ID_SHIFT 16) */
#define MSIM_MEMCG_MAX_SLOTS 16

struct msim_memcg;

enum msim_memcg_state {
	MSIM_MEMCG_ALLOCATED = 0,
	MSIM_MEMCG_ONLINE,
	MSIM_MEMCG_DYING,     /* rmdir'ed, offline not yet run */
	MSIM_MEMCG_OFFLINE,   /* offline hooks done, references remain */
	MSIM_MEMCG_RELEASED,  /* last reference dropped, free pending a grace period */
	MSIM_MEMCG_FREED,
};

/*
 * Hook order. The memcg layer's lifecycle table (src/memcg/lifecycle.c) orders
 * the layers' hook sets by name, step by step as mem_cgroup_css_alloc(),
 * mem_cgroup_css_online(), mem_cgroup_css_offline(), mem_cgroup_css_released()
 * and mem_cgroup_css_free() do their parts. A set it does not name (an
 * experiment's) runs after the table's steps of css_alloc, css_online and
 * css_offline and before those of the teardown, ordered among such sets by
 * .order (equal orders in registration order).
 */

struct msim_memcg_hooks {
	const char *name;
	int order;            /* only for a set the lifecycle table does not name (above) */
	void *priv;
	/* Each may be NULL. alloc/online may fail with a negative errno: mkdir unwinds. */
	int (*css_alloc)(struct msim_memcg *memcg, void *priv);
	int (*css_online)(struct msim_memcg *memcg, void *priv);
	void (*css_offline)(struct msim_memcg *memcg, void *priv);
	void (*css_released)(struct msim_memcg *memcg, void *priv);
	void (*css_free)(struct msim_memcg *memcg, void *priv);
	/* Undo css_alloc after a failed online (or a failed later alloc hook). */
	void (*css_alloc_undo)(struct msim_memcg *memcg, void *priv);
	/*
	 * css_released and css_free run in RCU callbacks. True: they keep the access
	 * annotation contract (yield.h; a free is a store over the object, noted), so
	 * partial-order reduction trusts what they touch. False (the default): the
	 * engine's step that runs them conflicts with every step.
	 */
	bool teardown_noted;
	/*
	 * Whole pages an objcg charged (+) or uncharged (-) for slab objects (kernel:
	 * mod_memcg_state(memcg, MEMCG_KMEM, nr) in obj_cgroup_charge_pages()): the
	 * statistics layer counts them under kmem-stat=counted (objcg.h).
	 */
	void (*kmem_stat)(struct msim_memcg *memcg, long nr_pages, void *priv);
};

/*
 * Register hooks on a host before the first msim_memcg_create() of a child (the
 * root is created at first use and runs hooks registered before that use; hooks
 * registered later are run on the root at registration). Returns the slot index
 * (>= 0) for msim_memcg_slot(), or -ENOSPC / -EINVAL.
 */
MSIM_API int msim_memcg_register_hooks(struct msim *m, const struct msim_memcg_hooks *hooks);

/*
 * The slot of the hook set registered under name, or -ENOENT. Lets a hook set that
 * is registered after the root exists find its slot while its hooks run on the
 * root during msim_memcg_register_hooks() (the slot is not returned yet then).
 */
MSIM_API int msim_memcg_hooks_slot(struct msim *m, const char *name);

/* Per-memcg private data of the hook set that owns slot. */
MSIM_API void **msim_memcg_slot(struct msim_memcg *memcg, int slot);

/* The root memcg of the host (created on first call, online, id 1); NULL without memcg. */
MSIM_API struct msim_memcg *msim_root_mem_cgroup(struct msim *m);

/*
 * mkdir: create and online a child of parent (which must be online). Returns 0 and
 * *out (holding the online reference, not a caller reference), or -ENOSPC when
 * private ids are exhausted, -EINVAL for a parent that is not online, or a hook's
 * error. name may be NULL.
 */
MSIM_API int msim_memcg_create(struct msim_memcg *parent, const char *name, struct msim_memcg **out);

/*
 * rmdir: -EBUSY if memcg has live (not yet offline) children, -EINVAL for root or
 * a memcg already removed. Otherwise mark it dying, wait one grace period
 * (msim_synchronize_rcu(): from a task this blocks it; from the driver in
 * deterministic mode the scheduler's RCU engine completes it), run the offline
 * hooks, and drop the online reference.
 */
MSIM_API int msim_memcg_rmdir(struct msim_memcg *memcg);

/* css references. tryget fails once the memcg is released. */
MSIM_API void msim_css_get(struct msim_memcg *memcg);
MSIM_API bool msim_css_tryget(struct msim_memcg *memcg);
MSIM_API bool msim_css_tryget_online(struct msim_memcg *memcg);
MSIM_API void msim_css_put(struct msim_memcg *memcg);

MSIM_API struct msim *msim_memcg_host(const struct msim_memcg *memcg);
MSIM_API struct msim_memcg *msim_parent_mem_cgroup(const struct msim_memcg *memcg);
MSIM_API bool msim_mem_cgroup_is_root(const struct msim_memcg *memcg);
MSIM_API enum msim_memcg_state msim_memcg_state(const struct msim_memcg *memcg);
MSIM_API bool msim_css_is_dying(const struct msim_memcg *memcg);   /* rmdir'ed (dying or later) */
MSIM_API bool msim_mem_cgroup_online(const struct msim_memcg *memcg);
MSIM_API const char *msim_memcg_name(const struct msim_memcg *memcg);
MSIM_API unsigned int msim_memcg_level(const struct msim_memcg *memcg); /* root 0 */
/* Creation serial, unique per host, never reused (for array indexing in tests). */
MSIM_API uint64_t msim_memcg_serial(const struct msim_memcg *memcg);

/* Private id (1..65535) and its reference count (mem_cgroup_private_id_get/put). */
MSIM_API unsigned short msim_mem_cgroup_private_id(const struct msim_memcg *memcg);
MSIM_API void msim_mem_cgroup_private_id_get(struct msim_memcg *memcg);
MSIM_API void msim_mem_cgroup_private_id_put(struct msim_memcg *memcg);
/* Under RCU: the memcg whose published private id is id, or NULL. */
MSIM_API struct msim_memcg *msim_mem_cgroup_from_private_id(struct msim *m, unsigned short id);
/* kmemcg_id: -1 for root, else the private id (set at online). */
MSIM_API int msim_memcg_kmemcg_id(const struct msim_memcg *memcg);

/*
 * Pre-order iteration over root's subtree, root included (mem_cgroup_iter): pass
 * prev = NULL to start. Returns the next memcg with a css reference held and
 * drops prev's; NULL at the end. Safe against concurrent rmdir: it skips memcgs
 * that are released, and an rmdir'ed memcg still in the tree is returned (as the
 * kernel's iterator returns offline memcgs not yet freed). Call
 * msim_mem_cgroup_iter_break() to stop early.
 */
MSIM_API struct msim_memcg *msim_mem_cgroup_iter(struct msim_memcg *root, struct msim_memcg *prev);
MSIM_API void msim_mem_cgroup_iter_break(struct msim_memcg *root, struct msim_memcg *prev);

/*
 * Wait until every memcg whose last reference is gone has been released and freed
 * (css_released and css_free hooks run, FREED): msim_rcu_barrier() until no release
 * or free callback is in flight. Deterministic mode: from the driver, or a task.
 */
MSIM_API void msim_memcg_drain(struct msim *m);

/* Counts over the host (for tests and reports). */
struct msim_memcg_counts {
	unsigned long online, dying, offline, released, freed_total, created_total;
};
MSIM_API void msim_memcg_counts(struct msim *m, struct msim_memcg_counts *out);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_MEMCG_H */
