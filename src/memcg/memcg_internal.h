/* SPDX-License-Identifier: MIT */
/*
 * memcg_internal.h - struct msim_memcg and the per-host tree state, shared by
 * the tree files of src/memcg, bottom up: pcpu_ref.c (the percpu_ref behind
 * css and objcg references), tree.c (the struct and its links),
 * hooks.c (running the hook sets), host.c (the subsystem: per-host state, hook
 * registration), css.c (references), id.c (private ids), iter.c
 * (mem_cgroup_iter) and, on top, lifecycle.c (mkdir, rmdir, release, free).
 * They are one concept behind this header (test_layers.c); host.c defines the
 * subsystem and its lookup, msim__memcg_host. Layers above memcg use
 * include/memcgsim/memcg.h only; tests may include this header for the debug
 * checks (msim__memcg_check()).
 *
 * Locking (the model's cgroup_mutex):
 *   The tree lock is a raw spinlock with no yield point inside any of its
 *   critical sections. It protects the children lists (writers), the state
 *   transitions that mkdir/rmdir decide on (ONLINE -> DYING, live-children
 *   counts), the hook table and the host's list of all memcgs. Because no
 *   critical section yields, in deterministic mode nobody can ever find it held
 *   (asserted), and it may be taken from any context: tasks, the driver, and RCU
 *   callbacks (release and free run there). Hooks always run with it dropped.
 *   Simplification (kernel: cgroup_mutex is held across css_alloc/online/offline
 *   /released): subsystems serialise their hooks with their own locks.
 *
 * Readers: the children lists are RCU lists (first_child / next_sibling are
 * published with release stores and read with acquire loads under
 * msim_rcu_read_lock()); a node keeps its next_sibling when unlinked, and the
 * iterator falls back to the serial order for unlinked nodes, as the kernel's
 * css_next_child() does for CSS_RELEASED ones.
 */
#ifndef MSIM_MEMCG_INTERNAL_H
#define MSIM_MEMCG_INTERNAL_H

#include <assert.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/idr.h>
#include <memcgsim/kmem.h>
#include <memcgsim/memcg.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>

#include "memcg/pcpu_ref.h"

/*
 * Debug builds keep freed memcgs poisoned in a quarantine (freed at
 * msim_destroy()) so that a use through a stale handle is caught by the magic
 * check instead of reading reused memory.
 */
#ifndef NDEBUG
#define MSIM__MEMCG_QUARANTINE 1
#else
#define MSIM__MEMCG_QUARANTINE 0
#endif

#define MSIM__MEMCG_MAGIC 0x6d656d6367726f75ULL  /* "memcgrou" */
#define MSIM__MEMCG_POISON 0x6b6b6b6b66726565ULL /* "kkkkfree" */

/*
 * Kernel struct sizes charged to the kernel-memory model (x86_64, SLUB, a
 * distribution config; see docs/memcg.md): the kernel allocates struct mem_cgroup
 * and struct mem_cgroup_per_node from dedicated caches ("mem_cgroup",
 * "mem_cgroup_per_node", SLAB_HWCACHE_ALIGN) since the 2025 series
 * "mm/memcg: use kmem_cache when alloc memcg" (commits 97e4fc4b35dc, 1b6a58e205ed),
 * whose ftrace output gives bytes_req=2312 for struct mem_cgroup with one node
 * (2304 + 8 per nodeinfo[] pointer) and 2896 for struct mem_cgroup_per_node.
 * The caches are SLAB_HWCACHE_ALIGN, so slots are 2368 and 2944 bytes, as traced.
 */
#define MSIM__MEM_CGROUP_BASE_BYTES 2304
#define MSIM__MEM_CGROUP_PER_NODE_PTR 8
#define MSIM__MEM_CGROUP_PER_NODE_BYTES 2896
/*
 * memcg-layout=linux-6.12: 6.12's mem_cgroup_alloc() kzallocs struct mem_cgroup and
 * alloc_mem_cgroup_per_node_info() each mem_cgroup_per_node (GFP_KERNEL, not
 * accounted): the kernel rig counts one kmalloc-2k object of each per memcg, so both
 * are between 1025 and 2048 bytes there; the model charges the class.
 */
#define MSIM__MEM_CGROUP_612_BYTES 2048
#define MSIM__MEM_CGROUP_PER_NODE_612_BYTES 2048

/*
 * The rest of a cgroup's slab (cgroup_kmem.c, owner "cgroup"; docs/kmem.md section 7).
 * x86_64, a distribution config with CONFIG_PSI, CONFIG_CGROUP_BPF, CONFIG_NUMA,
 * CONFIG_SWAP, CONFIG_ZSWAP and CONFIG_IRQ_TIME_ACCOUNTING:
 *  - struct cgroup: ESTIMATE 2200 bytes from its fields in include/linux/cgroup-defs.h
 *    (the self css, six struct cgroup_file with their timers, subsys[] and e_csets[]
 *    per subsystem, the base stats, struct cgroup_bpf with two arrays per attach type),
 *    plus ancestors[level + 1]: kzalloc, kmalloc-4k.
 *  - struct percpu_ref_data: 56 bytes (count, release, confirm_switch, flag bits,
 *    rcu_head, ref), kmalloc-64, one for the self css and one for cgroup_bpf.
 *  - struct psi_group: ESTIMATE 700 bytes (averaging work and timers, per-state
 *    totals and averages, the rtpoll state), kzalloc, kmalloc-1k.
 *  - struct kernfs_node: 136 bytes (6.x field list with its rcu_head), in
 *    kernfs_node_cache, no constructor or alignment flag: slot 136.
 *  - Files a non-root v2 cgroup with the memory controller shows: cgroup_base_files
 *    13 (cgroup.type, .procs, .threads, .controllers, .subtree_control, .events,
 *    .max.descendants, .max.depth, .stat, .freeze, .kill, cpu.stat, cpu.stat.local),
 *    cgroup_psi_files 5 (io, memory, cpu, irq pressure, cgroup.pressure),
 *    mm/memcontrol.c memory_files 12 (current, peak, min, low, high, max, events,
 *    events.local, stat, numa_stat, oom.group, reclaim), swap_files 4 and
 *    zswap_files 3: 37 file nodes plus the directory's.
 */
#define MSIM__CGROUP_BYTES 2200
#define MSIM__PERCPU_REF_DATA_BYTES 56
#define MSIM__PSI_GROUP_BYTES 700
#define MSIM__KERNFS_NODE_BYTES 136
#define MSIM__CGROUP_NR_FILES (13 + 5 + 12 + 4 + 3)

/*
 * The cgroup-core objects of one cgroup (bookkeeping only, nothing is kept in
 * them). Its kernfs nodes are only counted: the cache is charge-only, so they
 * are charged and uncharged with no memory behind them.
 */
struct msim__cgroup_kmem {
	void *cgroup, *self_ref, *bpf_ref, *psi, *name;
	bool kn_dir;                             /* the directory's node is charged */
	bool kn_files;                           /* and the files' (until rmdir) */
	void *kn_names[MSIM__CGROUP_NR_FILES];   /* memcg-layout=linux-6.12 only */
};

/*
 * ---- the tree lock ----
 * lock.h's quiet spinlock around bookkeeping (the tree links, the all-memcg list,
 * the state counts): never a yield point, so it takes no part in schedules, and
 * finding it held in deterministic mode is a bug it reports.
 */

/* ---- one memcg ---- */

struct msim__memcg_host;

struct msim_memcg {
	uint64_t magic;                  /* MSIM__MEMCG_MAGIC while not freed */
	struct msim__memcg_host *h;
	struct msim_memcg *parent;       /* immutable; NULL for root */
	/* RCU list of children (writers under the tree lock). */
	struct msim_memcg *first_child;  /* acquire/release */
	struct msim_memcg *next_sibling; /* acquire/release; kept when unlinked */
	struct msim_memcg *prev_sibling; /* tree lock */
	struct msim_memcg *last_child;   /* tree lock */
	bool linked;                     /* on parent's list (tree lock; read atomically) */
	/* Host list of every memcg not yet freed, in link order (tree lock). */
	struct msim_memcg *all_next, *all_prev;
	bool on_all;
	bool counted;                    /* mkdir completed: in the state totals */

	int state;                       /* enum msim_memcg_state, atomic */
	struct msim__pcpu_ref css_ref;   /* css.c; atomic mode at 0 = released */
	/* What the last css_put calls (lifecycle.c; kernel: the percpu_ref's release). */
	void (*css_release)(struct msim_memcg *memcg);
	unsigned int nr_live_children;   /* children ONLINE or DYING (tree lock) */
	unsigned short id;               /* private id, atomic; 0 once removed */
	long id_ref;                     /* atomic */
	int kmemcg_id;                   /* -1 root / before online */
	unsigned int level;
	uint64_t serial;
	char *name;

	/* Which hook sets ran css_alloc / css_online on this memcg (bit = slot). */
	uint32_t alloc_mask, online_mask;
	void *slots[MSIM_MEMCG_MAX_SLOTS];

	/* Kernel memory this memcg stands for. */
	void *kmem_memcg;                /* "mem_cgroup" cache object */
	void **kmem_pn;                  /* per node, "mem_cgroup_per_node" objects */
	void *kmem_css_ref;              /* the css's percpu_ref_data ("mem_cgroup") */
	struct msim__cgroup_kmem cgroup_kmem; /* non-root only ("cgroup") */

	struct msim_rcu_head release_rcu; /* css_release_work stand-in */
	struct msim_rcu_head free_rcu;    /* css_free_rwork */
	struct msim_memcg *quarantine_next;
};

/* ---- per host ---- */

/* The phases of a memcg's life whose hooks run in an order (lifecycle.c's table). */
enum msim__css_phase {
	MSIM__CSS_ALLOC,        /* mem_cgroup_css_alloc() */
	MSIM__CSS_ONLINE,       /* mem_cgroup_css_online() */
	MSIM__CSS_OFFLINE,      /* mem_cgroup_css_offline() */
	MSIM__CSS_RELEASED,     /* mem_cgroup_css_released() */
	MSIM__CSS_FREE,         /* mem_cgroup_css_free() */
	MSIM__CSS_ALLOC_UNDO,   /* css_create()'s error path: css_free of a half-made css */
	MSIM__NR_CSS_PHASES,
};

typedef void (*msim__hooks_teardown_fn)(struct msim_memcg *memcg, void *priv);

/* A hook set's callback for a teardown phase (offline, released, free, alloc undo). */
static inline msim__hooks_teardown_fn msim__hooks_teardown(const struct msim_memcg_hooks *hk,
							   enum msim__css_phase k)
{
	switch (k) {
	case MSIM__CSS_OFFLINE:
		return hk->css_offline;
	case MSIM__CSS_RELEASED:
		return hk->css_released;
	case MSIM__CSS_FREE:
		return hk->css_free;
	default:
		return hk->css_alloc_undo;
	}
}

struct msim__memcg_host {
	struct msim *m;
	bool layout_6_12;                /* variant memcg-layout=linux-6.12 (host.c) */
	struct msim_quiet_spinlock lock; /* the tree lock (see top) */
	struct msim_lock root_lock;      /* first msim_root_mem_cgroup() only */
	struct msim_memcg *root;         /* atomic */
	struct msim_idr ids;             /* kernel: mem_cgroup_ids (xarray) */
	struct msim_kmem_cache *memcg_cache, *pn_cache;
	struct msim_kmem_cache *kernfs_cache;    /* "kernfs_node_cache" */

	unsigned int nr_hooks;
	struct msim_memcg_hooks hooks[MSIM_MEMCG_MAX_SLOTS];
	signed char hooks_key[MSIM_MEMCG_MAX_SLOTS]; /* msim__memcg_lifecycle_key of the name */
	/* Per phase, the slots in the order they run (lifecycle.c's table; tree lock). */
	unsigned char plan[MSIM__NR_CSS_PHASES][MSIM_MEMCG_MAX_SLOTS];

	uint64_t next_serial;            /* tree lock */
	struct msim_memcg *all_head, *all_tail;

	/* Statistics (atomic). */
	unsigned long nr_state[MSIM_MEMCG_FREED + 1];
	unsigned long freed_total, created_total;
	long rcu_pending;                /* release/free callbacks in flight */
	struct msim_memcg *quarantine;   /* atomic push */
	bool destroying;
};

/* A marker stored at a reserved private id until online publishes the memcg. */
extern long msim__memcg_id_reserved;

/* Debug check: memcg is a live (not freed) memcg handle. */
bool msim__memcg_check(const struct msim_memcg *memcg);
/* True when freed memcgs are quarantined (debug builds): stale handles are checkable. */
bool msim__memcg_quarantine_enabled(void);

#define MSIM__MEMCG_ASSERT(memcg) assert(msim__memcg_check(memcg) && "bad or freed memcg handle")

/* tree.c: the struct, its state and its links (the links under the tree lock) */
struct msim_memcg *msim__memcg_alloc(struct msim__memcg_host *h, struct msim_memcg *parent,
				     const char *name, void (*release)(struct msim_memcg *memcg));
void msim__memcg_free_struct(struct msim_memcg *memcg, bool quarantine);

/* cgroup_kmem.c: the cgroup core's slab for one non-root cgroup. */
void msim__cgroup_kmem_alloc(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck,
			     const char *name);
void msim__cgroup_kmem_remove_files(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck);
void msim__cgroup_kmem_free(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck);
void msim__memcg_set_state(struct msim_memcg *memcg, enum msim_memcg_state s);
void msim__memcg_link(struct msim__memcg_host *h, struct msim_memcg *memcg);
void msim__memcg_all_list_del(struct msim_memcg *memcg);
void msim__memcg_unlink(struct msim_memcg *memcg);
/* hooks.c: run the hook sets (see there for the order). */
int msim__memcg_run_alloc(struct msim_memcg *memcg);      /* undoes itself on failure */
int msim__memcg_run_online(struct msim_memcg *memcg);     /* the caller undoes */
void msim__memcg_run_offline(struct msim_memcg *memcg);
void msim__memcg_run_alloc_undo(struct msim_memcg *memcg);
void msim__memcg_run_released(struct msim_memcg *memcg);
void msim__memcg_run_free(struct msim_memcg *memcg);
/* css_alloc and css_online of set s on the root (a set registered after it). */
int msim__memcg_run_setup_on_root(struct msim_memcg *root, unsigned int s);
/* lifecycle.c: the order of every phase's hooks, from its table (under the tree lock). */
void msim__memcg_lifecycle_plan(struct msim__memcg_host *h);
/* The key plans compare for a hook set's name (lifecycle.c); -1: no step names it. */
signed char msim__memcg_lifecycle_key(const char *name);
/*
 * Introspection for tests: the sets with a callback for a phase that no step
 * of the table names ("name/phase" in names), and phase's order of the sets
 * with a callback for it (names, space-separated); each returns how many.
 */
unsigned int msim__memcg_lifecycle_unnamed(struct msim *m, char *names, size_t len);
unsigned int msim__memcg_lifecycle_order(struct msim *m, int phase, char *names, size_t len);
/* host.c: the subsystem. The host's tree state, or NULL: a plain load, never an attach. */
struct msim__memcg_host *msim__memcg_host(struct msim *m);
/* css.c: the percpu_ref's kill, putting the base reference (see there for when). */
void msim__css_kill(struct msim_memcg *memcg);
/* id.c */
int msim__memcg_id_reserve(struct msim_memcg *memcg);
void msim__memcg_id_publish(struct msim_memcg *memcg);
void msim__memcg_id_unreserve(struct msim_memcg *memcg);

/*
 * The css flags test (CSS_ONLINE, CSS_DYING). No yield: a race on the state
 * turns at rmdir's named points (msim__memcg_set_state()) and at its readers'.
 */
static inline int msim__memcg_state_load(const struct msim_memcg *memcg)
{
	/* a quiet load races turn on (S4, S6, the dying redirect): DPOR must see it */
	msim_access_note(&memcg->state, sizeof(memcg->state), MSIM_ACCESS_LOAD);
	return msim_quiet_load(&memcg->state, MSIM_ACQUIRE);
}

#endif /* MSIM_MEMCG_INTERNAL_H */
