/* SPDX-License-Identifier: MIT */
/*
 * objcg.h - object cgroups: the indirection through which charged memory names
 * its memory cgroup, so that the memory follows the cgroup's death to the parent.
 *
 * Model of mm/memcontrol.c newest mainline (7.1-rc, with the objcg-based LRU
 * reparenting of the "Eliminate Dying Memory Cgroup" series; docs/lru.md):
 * one struct obj_cgroup per memcg per node (mem_cgroup_per_node's objcg,
 * orig_objcg and objcg_list), the root's included (is_root). Charged memory
 * holds a reference on an objcg and reads its memcg through objcg->memcg, which
 * offline rewrites to the parent: an uncharge or a stat update after offline
 * lands on the parent. 7.0 had one objcg per memcg and none for the root; the
 * per-node form is what LRU reparenting needs, because each node's objcgs are
 * repointed in the same lock section as that node's LRU lists (docs/lru.md).
 *
 * Lifetime (kernel: percpu_ref with obj_cgroup_release as the release):
 *   css_online   objcg allocated per node, refcount 1 (the initial reference),
 *                published in pn->objcg, plus a reference for pn->orig_objcg
 *   charge       +1 per charged folio (get_obj_cgroup_from_memcg, kept by the folio)
 *   css_offline  per node: pn->objcg = NULL, the objcg and those inherited from
 *                dead descendants repointed to the parent and moved to its
 *                objcg_list, then the initial reference is killed
 *   css_free     the orig_objcg reference is put
 *   refcount 0   obj_cgroup_release: off its objcg_list (objcg_lock), freed after
 *                an RCU grace period
 *
 * The subsystem "objcg" is attached with the layers that need it (the "lru"
 * subsystem depends on it) or by hand (msim_subsys_attach()), before the first
 * child memcg is created (else the attach fails with -EBUSY). Per-memcg data lives in a memcg hook
 * slot; every call here is a plain lookup.
 *
 * Named yield points (a task parked at one has not yet done the operation):
 *   "objcg.memcg"            READ_ONCE(objcg->memcg) (obj_cgroup_memcg)
 *   "objcg.memcg.write"      offline's WRITE_ONCE(iter->memcg, parent)
 *   "objcg.pn"               rcu_dereference(pn->objcg)
 *   "objcg.ref.get" / ".put" / ".tryget"   the reference count
 *   "objcg.reparent.lock"    offline, one node: prepared, about to take the locks
 *   "objcg.reparent.retry"   MGLRU recheck failed: cond_resched() before retrying
 */
#ifndef MEMCGSIM_OBJCG_H
#define MEMCGSIM_OBJCG_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>

#include <memcgsim/memcg.h>
#include <memcgsim/subsys.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/*
 * MEMCG_KMEM in obj_cgroup_charge_pages() / obj_cgroup_uncharge_pages(): the kernel
 * counts the pages an objcg charges (mod_memcg_state), which is one rstat update
 * per page charged for slab objects. Value 0 is the model's old simplification (not
 * counted), kept as the default so that every race schedule through the obj stock
 * stays as it was; the linux-6.12 preset counts them.
 */
enum msim_kmem_stat {
	MSIM_KMEM_STAT_UNCOUNTED = 0,
	MSIM_KMEM_STAT_COUNTED = 1,
};

/* kmem-stat, for the layers that charge kernel memory through objcgs too (workingset). */
MSIM_API enum msim_kmem_stat msim_obj_stock_variant_kmem_stat(const struct msim_config *cfg);

struct msim_obj_cgroup;

/*
 * The registered subsystem (name "objcg"); attach it with msim_subsys_attach():
 * msim_subsys_find("objcg").
 */

/*
 * kernel: get_obj_cgroup_from_memcg() for node nid: under RCU, the first objcg
 * on the way from memcg to the root whose reference can be taken (a dying memcg
 * has none once offline, so its parent's is used). Returns it with a reference,
 * or NULL (no objcg layer on the host, nid out of range, memcg NULL).
 */
MSIM_API struct msim_obj_cgroup *msim_get_obj_cgroup_from_memcg(struct msim_memcg *memcg,
								 unsigned int nid);

/* kernel: obj_cgroup_get() / obj_cgroup_tryget() / obj_cgroup_put(). */
MSIM_API void msim_obj_cgroup_get(struct msim_obj_cgroup *objcg);
MSIM_API bool msim_obj_cgroup_tryget(struct msim_obj_cgroup *objcg);
MSIM_API void msim_obj_cgroup_put(struct msim_obj_cgroup *objcg);

/*
 * kernel: obj_cgroup_memcg(): READ_ONCE(objcg->memcg). The caller holds an RCU
 * read-side section (or a lock that keeps the memcg from being reparented and
 * freed: the lruvec lock of the memcg, objcg_lock).
 */
MSIM_API struct msim_memcg *msim_obj_cgroup_memcg(const struct msim_obj_cgroup *objcg);

/* kernel: get_mem_cgroup_from_objcg(): obj_cgroup_memcg with a css reference (retries). */
MSIM_API struct msim_memcg *msim_get_mem_cgroup_from_objcg(const struct msim_obj_cgroup *objcg);

/* kernel: obj_cgroup_is_root(). */
MSIM_API bool msim_obj_cgroup_is_root(const struct msim_obj_cgroup *objcg);
MSIM_API unsigned int msim_obj_cgroup_nid(const struct msim_obj_cgroup *objcg);

/*
 * kernel: rcu_dereference(pn->objcg), the node's current objcg without a
 * reference: NULL once memcg is offline. Caller under RCU.
 */
MSIM_API struct msim_obj_cgroup *msim_memcg_objcg(struct msim_memcg *memcg, unsigned int nid);

/*
 * (orig_objcg, raw reference counts, the inherited list, the layer's counts and
 * the obj stock's cache, for tests: <memcgsim/introspect/objcg.h>.)
 */

/* ---- the LRU part of memcg_reparent_objcgs ---- */

/*
 * kernel: memcg_reparent_objcgs() moves, per node and in one lock section, the
 * LRU folios and the objcgs of a dying memcg to its parent. objcg owns the
 * sequence; the layer that owns the LRU lists plugs its part in here (the kernel
 * calls lru_reparent_memcg() / lru_gen_reparent_memcg() from memcontrol.c).
 * Per node, with memcg going offline and parent = its parent:
 *   prepare(memcg, parent, nid)        before the locks (max_lru_gen_memcg)
 *   objcg_lock; lock(memcg, parent, nid)   child lruvec lock, then the parent's
 *   recheck(parent, nid) false?        unlock (unlock, objcg_lock), cond_resched, retry
 *   reparent(memcg, parent, nid)       splice the lists, move the sizes
 *   objcgs repointed (__memcg_reparent_objcgs)
 *   unlock(memcg, parent, nid); objcg_unlock; the node's objcg killed
 * Every callback may be NULL. Without ops (lru-reparent=off, or no LRU layer)
 * only the objcgs move: the 7.0 sequence, objcg_lock alone.
 */
struct msim_objcg_reparent_ops {
	void (*prepare)(struct msim_memcg *memcg, struct msim_memcg *parent, unsigned int nid,
			void *arg);
	void (*lock)(struct msim_memcg *memcg, struct msim_memcg *parent, unsigned int nid,
		     void *arg);
	bool (*recheck)(struct msim_memcg *parent, unsigned int nid, void *arg);
	void (*reparent)(struct msim_memcg *memcg, struct msim_memcg *parent, unsigned int nid,
			 void *arg);
	void (*unlock)(struct msim_memcg *memcg, struct msim_memcg *parent, unsigned int nid,
		       void *arg);
};

/*
 * Install (ops non-NULL) or remove the LRU part on m. Returns 0, -ENODEV when the
 * objcg layer is not attached, -EBUSY when other ops are installed.
 */
MSIM_API int msim_objcg_set_reparent_ops(struct msim *m, const struct msim_objcg_reparent_ops *ops,
					 void *arg);

/* ---- byte-granular charges: the per-CPU obj stock (src/memcg/obj_stock.c) ---- */

/*
 * The subsystem "obj_stock" (depends on "objcg" and "charge"): per CPU, the
 * kernel's obj_stock_pcp part of memcg_stock (cached_objcg, nr_bytes). Attach it
 * by hand (msim_subsys_attach()); no configuration enables it.
 * Its description: msim_subsys_find("obj_stock").
 */

/*
 * kernel: obj_cgroup_charge(objcg, gfp, size): consume_obj_stock(), else charge
 * DIV_ROUND_UP(size, PAGE_SIZE) pages to obj_cgroup_memcg(objcg) (try_charge:
 * never the root) and put the unused part of the last page in this CPU's stock
 * (refill_obj_stock). Returns 0, -ENOMEM (limit, gfp allows failure), -EINVAL
 * (size 0, NULL objcg), -ENODEV (no obj_stock on the host).
 */
MSIM_API int msim_obj_cgroup_charge(struct msim_obj_cgroup *objcg, unsigned int gfp, size_t size);
/* kernel: obj_cgroup_uncharge(): refill_obj_stock(objcg, size, allow_uncharge = true). */
MSIM_API void msim_obj_cgroup_uncharge(struct msim_obj_cgroup *objcg, size_t size);
/* Drain every CPU's obj stock (the obj part of drain_all_stock(root)); from the driver. */
MSIM_API void msim_obj_stock_drain_all(struct msim *m);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_OBJCG_H */
