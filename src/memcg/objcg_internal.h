/* SPDX-License-Identifier: MIT */
/*
 * objcg_internal.h - the object cgroup layer's structures (objcg.h).
 *
 * Files, bottom up (no file calls one above it):
 *   objcg_ref.c       allocation, references, release (off its list under
 *                     objcg_lock, freed after a grace period), objcg_lock itself
 *   objcg_reparent.c  memcg_reparent_objcgs: the per-node offline sequence
 *   objcg.c           the subsystem: host state, memcg hooks, lookups
 */
#ifndef MSIM_MEMCG_OBJCG_INTERNAL_H
#define MSIM_MEMCG_OBJCG_INTERNAL_H

#include <stdbool.h>

#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/objcg.h>
#include <memcgsim/introspect/objcg.h>  /* objcg.c, objcg_ref.c, obj_stock.c define it */
#include <memcgsim/rcu.h>

#include <memcgsim/list.h>

#include "memcg/pcpu_ref.h"

struct msim__objcg_host;

/* kernel: struct obj_cgroup (include/linux/memcontrol.h). */
struct msim_obj_cgroup {
	/*
	 * kernel: percpu_ref refcnt (pcpu_ref.c): per-CPU counting until the kill
	 * at offline switches it to atomic mode and drops the initial reference;
	 * +1 per holder.
	 */
	struct msim__pcpu_ref refcnt;
	bool killed;                    /* percpu_ref_kill done (quiet: reports only) */
	bool is_root;
	unsigned int nid;
	struct msim_memcg *memcg;       /* READ_ONCE/WRITE_ONCE: "objcg.memcg" */
	struct msim_list_head list;         /* on a pn->objcg_list once reparented; objcg_lock */
	struct msim__objcg_host *h;
	struct msim_obj_cgroup *deferred_next; /* release deferred while objcg_lock was busy */
	struct msim_rcu_head rcu;
	void *kmem_objcg, *kmem_ref;    /* the kernel's objects ("obj_cgroup"): charge only */
	/* kernel: nr_charged_bytes: bytes of pages charged but not handed out (obj_stock.c) */
	msim_atomic_long_t nr_charged_bytes;
};

/*
 * x86_64: struct obj_cgroup (newest: percpu_ref 16, memcg 8, nr_charged_bytes 4 + 4,
 * list/rcu union 16, is_root 8 with padding) is 56 bytes, kzalloc, kmalloc-64; its
 * percpu_ref_init() adds a 56-byte percpu_ref_data (kmalloc-64) and an unsigned long
 * per CPU.
 */
#define MSIM__OBJ_CGROUP_BYTES 56
#define MSIM__OBJCG_REF_DATA_BYTES 56

/* kernel: the objcg fields of struct mem_cgroup_per_node (newest). */
struct msim__objcg_pn {
	struct msim_obj_cgroup *objcg;       /* RCU: NULL once offline */
	struct msim_obj_cgroup *orig_objcg;  /* reference kept until css_free */
	struct msim_list_head objcg_list;        /* reparented objcgs of dead descendants */
};

struct msim__objcg_memcg {
	struct msim_memcg *memcg;
	struct msim__objcg_pn pn[];          /* one per node */
};

/* Per-host state: sim owns the memory (state_size), objcg_ref.c the lock's life. */
struct msim__objcg_host {
	struct msim *m;
	int slot;                            /* memcg hook slot of the per-memcg data */
	unsigned int nr_nodes;
	/* kernel: the global objcg_lock (a spinlock taken with irqs off). */
	struct msim_lock objcg_lock;
	const struct msim_objcg_reparent_ops *ops;
	void *ops_arg;
	/*
	 * Releases that found objcg_lock busy (the driver or an RCU callback while a
	 * parked task holds it): the next holder finishes them when it unlocks.
	 */
	struct msim_obj_cgroup *deferred;
	/*
	 * 1 while attached, +1 per live objcg and per memcg's data: the last put
	 * destroys objcg_lock (memcgs and objcgs may outlive host_fini).
	 */
	long refs;
	/* counters (quiet atomics) */
	unsigned long live, allocated_total, released_total, reparented_total;
	unsigned long reparent_retries, deferred_releases;
};

/* ---- objcg_ref.c ---- */
struct msim_obj_cgroup *msim__obj_cgroup_alloc(struct msim__objcg_host *h,
					       struct msim_memcg *memcg, unsigned int nid,
					       bool is_root);
/* kernel: percpu_ref_kill(): switch to atomic mode, drop the initial reference. */
void msim__obj_cgroup_kill(struct msim_obj_cgroup *objcg);
void msim__objcg_lock(struct msim__objcg_host *h);
/* Unlock, then finish the releases deferred meanwhile. */
void msim__objcg_unlock(struct msim__objcg_host *h);
void msim__objcg_host_get(struct msim__objcg_host *h);
void msim__objcg_host_put(struct msim__objcg_host *h);

/* ---- objcg_reparent.c ---- */
/* kernel: memcg_reparent_objcgs(memcg) with the installed LRU ops. */
void msim__memcg_reparent_objcgs(struct msim__objcg_host *h, struct msim_memcg *memcg,
				 struct msim__objcg_memcg *child, struct msim__objcg_memcg *parent);

#endif /* MSIM_MEMCG_OBJCG_INTERNAL_H */
