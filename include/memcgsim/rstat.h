/* SPDX-License-Identifier: MIT */
/*
 * rstat.h - memcg statistics: per-CPU counters, the rstat updated tree, flushing,
 * thresholds, readers, node counters and the dying-memcg redirect.
 *
 * Model of mm/memcontrol.c (stat write paths, mem_cgroup_css_rstat_flush, the
 * flush entry points, readers) and kernel/cgroup/rstat.c (the lockless per-CPU
 * enqueue and the per-CPU updated tree), newest mainline (docs/rstat.md).
 *
 * Units. Every item is stored in the kernel's internal unit: bytes for the *_B
 * items, KiB for MSIM_NR_KERNEL_STACK_KB, pages otherwise (events are counts).
 * msim_memcg_page_state_unit() says which. The value converted to pages
 * (msim_memcg_state_val_in_pages()) feeds only the flush heuristic.
 *
 * Order of every write path (kernel: memcg_rstat_updated()), each step a yield
 * point the deterministic scheduler can interleave:
 *   1. per-CPU state write (this_cpu_add; lruvec per-CPU state too; node counter
 *      for mod_lruvec_state)
 *   2. rstat enqueue: lockless claim of this (memcg, CPU)'s llist node
 *   3. the stats_updates walk up to the root with 64-batching and the threshold
 *      test (MSIM_MEMCG_CHARGE_BATCH x online CPUs, strict >); at a flushable
 *      level, variant rstat-propagate: break (mainline) or continue (thread 004).
 *
 * Named yield points (for msim_run_until); a task parked at one has not yet done
 * the operation named:
 *   "rstat.update.after_state"     per-CPU state written; the enqueue's on-list test
 *   "rstat.enqueue.claim"          the cmpxchg that claims the llist node
 *   "rstat.enqueue.head" / ".add"  llist_add: read the head / swing it
 *   "rstat.update.level"           the threshold test of one level of the walk
 *   "this_cpu_rmw.load" / ".store" this_cpu_add_return's load / store (R1 window)
 *   "rstat.update.batch_push"      per-CPU count reached the batch: the xchg's load
 *   "rstat.update.atomic_add"      the batch's atomic_add into the level
 *   "rstat.update.done"            the walk is finished (the update is complete)
 *   "rstat.flush.gate"             __mem_cgroup_flush_stats reads the memcg's atomic
 *   "rstat.flush.last_time"        a root flush writes flush_last_time
 *   "rstat.flush.cpu_start"        about to lock for the next CPU (nth = CPU index + 1)
 *   "rstat.flush.pop" / ".node_init"  draining the CPU's llist
 *   "rstat.flush.memcg"            folding one memcg on one CPU
 *   "rstat.flush.reset_percpu"     the remote per-CPU stats_updates reset
 *   "rstat.flush.atomic_read"      the read of the memcg's atomic
 *   "rstat.flush.atomic_set"       the read found non-zero: the set to 0 (R2 window)
 *   "rstat.flush.cpu_done"         lock released after one CPU
 *   "rstat.flush.done"             the whole flush is done
 *   "rstat.flush.ratelimit"        the ratelimited flush reads flush_last_time
 *   "rstat.node_stat"              a node counter update (node-stat=exact; under
 *                                  node-stat=percpu vmstat's points, vmstat.h)
 *   "rstat.dying.checked"          the dying redirect decided the target memcg
 *   "rstat.reparent.local"         offline: local stats about to be moved
 *
 * Their yield contexts (yield.h; msim_task_where(), msim_run_until_ctx() in
 * script.h), object being a struct msim_memcg *:
 *   flush, "rstat.flush.cpu_start" to ".cpu_done"   cpu: the CPU visited; no object
 *   flush, "rstat.flush.memcg" to ".atomic_set"     the memcg folded and the CPU visited
 *   write, "rstat.update.after_state" to ".done"    the memcg written and the writer's
 *                                                   CPU; during the walk ("rstat.update.level",
 *                                                   "this_cpu_rmw.*", ".batch_push",
 *                                                   ".atomic_add") the level walked
 * Every other point has none (nid is -1 throughout). So "the flush between leaf's
 * fold and mid's on CPU 1" is msim_run_until_ctx(m, t, "rstat.flush.memcg",
 * &(struct msim_yield_ctx){ mid, 1, -1 }, 1).
 *
 * Dying memcgs (docs/rstat.md): variant dying-redirect decides where updates to a
 * rmdir'ed memcg go (v1: legacy hierarchy only; all; all-rcu-on-dying), and the
 * same hierarchies get local-stat reparenting at offline (a css_offline hook
 * right after memcg_reparent_objcgs). The release hook flushes (css_release_work_fn)
 * and the free hook flushes again (css_rstat_exit).
 *
 * Attach. The layer is the subsystem "rstat" (msim_subsys_find("rstat"), subsys.h; it
 * needs "memcg"): msim_create() attaches it when the configuration sets rstat,
 * msim_rstat_init() attaches it by hand. A host without it has no statistics:
 * the write paths return -EINVAL, readers 0, flushes nothing; no entry point
 * attaches it on first use.
 */
#ifndef MEMCGSIM_RSTAT_H
#define MEMCGSIM_RSTAT_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/memcg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variants (rows in the layer's struct msim_subsys; variants.h) ---- */

/* thread 004: memcg_rstat_updated at a flushable level. */
enum msim_rstat_propagate {
	MSIM_RSTAT_PROPAGATE_BREAK = 0,    /* mainline: stop the walk */
	MSIM_RSTAT_PROPAGATE_CONTINUE = 1, /* thread 004: skip the level, keep walking */
	/*
	 * Linux 6.12: every level adds to this CPU's count; at the batch the count
	 * goes into the level's atomic unless the level is flushable, and is reset
	 * either way (the walk never stops early).
	 */
	MSIM_RSTAT_PROPAGATE_SKIP_ATOMIC = 2,
};

/* thread 002 patch 2: where the root memcg's lruvec reads come from. */
enum msim_root_lruvec_read {
	MSIM_ROOT_LRUVEC_READ_RSTAT = 0,   /* mainline: flushed rstat aggregate */
	MSIM_ROOT_LRUVEC_READ_NODE = 1,    /* thread 002: node counters (minus exclusions) */
};

/* thread 000 patches 2, 3: where stat updates to a dying memcg go. */
enum msim_dying_redirect {
	MSIM_DYING_REDIRECT_V1 = 0,        /* mainline: redirect on cgroup v1 only */
	MSIM_DYING_REDIRECT_ALL = 1,       /* patch 2: all hierarchies, RCU always taken */
	MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING = 2, /* patch 3: RCU only on the dying path */
};

/*
 * How rstat keeps the node counters (mod_node_page_state() and node_page_state()).
 * Value 0 is not the kernel: it is the model's old simplification, kept as the
 * default so that every earlier figure, schedule and trace stays comparable.
 */
enum msim_node_stat {
	MSIM_NODE_STAT_EXACT = 0,          /* one exact atomic per (node, item): always up to date */
	MSIM_NODE_STAT_PERCPU = 1,         /* the kernel: vmstat's per-CPU diffs and thresholds */
};

/*
 * Memcg stats updated from NMI (kernel: CONFIG_MEMCG_NMI_SAFETY_REQUIRES_ATOMIC,
 * 2025): where this_cpu ops are NMI-safe (x86, arm64) an NMI updates the per-CPU
 * counters like any context; elsewhere MEMCG_KMEM and slab updates from NMI go to
 * atomics that the flush drains (flush_nmi_stats, race window R10).
 */
enum msim_nmi_stats {
	MSIM_NMI_STATS_PERCPU = 0,         /* NMI-safe this_cpu ops: the ordinary path */
	MSIM_NMI_STATS_ATOMIC = 1,         /* staged in atomics, drained at flush */
};

/* root-lruvec-read, for the layers above that read the root memcg's lruvec too (DAMON). */
MSIM_API enum msim_root_lruvec_read msim_rstat_variant_root_lruvec_read(const struct msim_config *cfg);

/* kernel: MEMCG_CHARGE_BATCH; the threshold is MSIM_MEMCG_CHARGE_BATCH * online CPUs. */
#define MSIM_MEMCG_CHARGE_BATCH 64U
/* kernel: FLUSH_TIME = 2 * HZ (in jiffies of the host's clock). */
#define MSIM_FLUSH_TIME_SECONDS 2

/*
 * Stat items: the memcg-tracked node items first (kernel: memcg_node_stat_items[],
 * newest order, all options on), then the memcg-only items (enum memcg_stat_item).
 * Node items exist per (memcg, node) as lruvec stats and per node as node
 * counters; memcg-only items exist per memcg only.
 */
enum msim_stat_item {
	MSIM_NR_INACTIVE_ANON = 0,   /* LRU lists, pages */
	MSIM_NR_ACTIVE_ANON,
	MSIM_NR_INACTIVE_FILE,
	MSIM_NR_ACTIVE_FILE,
	MSIM_NR_UNEVICTABLE,
	MSIM_NR_SLAB_RECLAIMABLE_B,  /* bytes */
	MSIM_NR_SLAB_UNRECLAIMABLE_B, /* bytes */
	MSIM_WORKINGSET_REFAULT_ANON, /* counts (output unit 1) */
	MSIM_WORKINGSET_REFAULT_FILE,
	MSIM_WORKINGSET_ACTIVATE_ANON,
	MSIM_WORKINGSET_ACTIVATE_FILE,
	MSIM_WORKINGSET_RESTORE_ANON,
	MSIM_WORKINGSET_RESTORE_FILE,
	MSIM_WORKINGSET_NODERECLAIM,
	MSIM_NR_ANON_MAPPED,         /* pages */
	MSIM_NR_FILE_MAPPED,
	MSIM_NR_FILE_PAGES,
	MSIM_NR_FILE_DIRTY,
	MSIM_NR_WRITEBACK,
	MSIM_NR_SHMEM,
	MSIM_NR_SHMEM_THPS,
	MSIM_NR_FILE_THPS,
	MSIM_NR_ANON_THPS,
	MSIM_NR_VMALLOC,             /* pages (newest: a node item) */
	MSIM_NR_KERNEL_STACK_KB,     /* KiB */
	MSIM_NR_PAGETABLE,           /* pages */
	MSIM_NR_SECONDARY_PAGETABLE,
	MSIM_NR_SWAPCACHE,
	MSIM_PGPROMOTE_SUCCESS,      /* counts */
	MSIM_PGDEMOTE_KSWAPD,        /* counts */
	MSIM_PGDEMOTE_DIRECT,
	MSIM_PGDEMOTE_KHUGEPAGED,
	MSIM_PGDEMOTE_PROACTIVE,
	MSIM_PGSTEAL_KSWAPD,         /* pages (node items in newest) */
	MSIM_PGSTEAL_DIRECT,
	MSIM_PGSTEAL_KHUGEPAGED,
	MSIM_PGSTEAL_PROACTIVE,
	MSIM_PGSTEAL_ANON,
	MSIM_PGSTEAL_FILE,
	MSIM_PGSCAN_KSWAPD,
	MSIM_PGSCAN_DIRECT,
	MSIM_PGSCAN_KHUGEPAGED,
	MSIM_PGSCAN_PROACTIVE,
	MSIM_PGSCAN_ANON,
	MSIM_PGSCAN_FILE,
	MSIM_PGREFILL,
	MSIM_NR_HUGETLB,             /* pages */
	MSIM_NR_NODE_STAT_ITEMS,     /* 47, like the kernel with all options on */

	/* memcg-only items (kernel: enum memcg_stat_item) */
	MSIM_MEMCG_SWAP = MSIM_NR_NODE_STAT_ITEMS, /* pages */
	MSIM_MEMCG_SOCK,             /* pages */
	MSIM_MEMCG_PERCPU_B,         /* bytes */
	MSIM_MEMCG_KMEM,             /* pages */
	MSIM_MEMCG_ZSWAP_B,          /* bytes */
	MSIM_MEMCG_ZSWAPPED,         /* entries (pages) */
	MSIM_MEMCG_ZSWAP_INCOMP,     /* entries */
	MSIM_MEMCG_NR_STAT           /* MEMCG_VMSTAT_SIZE */
};

/* Events (kernel: memcg_vm_event_stat[]); counts, no unit conversion. */
enum msim_memcg_event {
	MSIM_PGPGIN = 0,
	MSIM_PGPGOUT,
	MSIM_PSWPIN,
	MSIM_PSWPOUT,
	MSIM_PGFAULT,
	MSIM_PGMAJFAULT,
	MSIM_PGACTIVATE,
	MSIM_PGDEACTIVATE,
	MSIM_PGLAZYFREE,
	MSIM_PGLAZYFREED,
	MSIM_SWPIN_ZERO,
	MSIM_SWPOUT_ZERO,
	MSIM_ZSWPIN,
	MSIM_ZSWPOUT,
	MSIM_ZSWPWB,
	MSIM_THP_FAULT_ALLOC,
	MSIM_THP_COLLAPSE_ALLOC,
	MSIM_THP_SWPOUT,
	MSIM_THP_SWPOUT_FALLBACK,
	MSIM_NR_MEMCG_EVENTS
};

/* kernel: memcg_page_state_unit(): 1 (bytes), 1024 (KiB) or MSIM_PAGE_SIZE. */
MSIM_API long msim_memcg_page_state_unit(enum msim_stat_item idx);
/* kernel: memcg_page_state_output_unit(): 1 for WORKINGSET_*, PGDEMOTE_*, PGPROMOTE_SUCCESS. */
MSIM_API long msim_memcg_page_state_output_unit(enum msim_stat_item idx);
/* kernel: memcg_state_val_in_pages() (newest): |val|*unit/PAGE_SIZE, at least 1, signed. */
MSIM_API long msim_memcg_state_val_in_pages(enum msim_stat_item idx, long val);
/* The kernel's vmstat name ("nr_inactive_anon", "memcg_swap" ...) / event name ("pgfault"). */
MSIM_API const char *msim_stat_item_name(enum msim_stat_item idx);
MSIM_API const char *msim_memcg_event_name(enum msim_memcg_event ev);
/* True for the node items (MSIM_NR_INACTIVE_ANON .. MSIM_NR_HUGETLB). */
MSIM_API bool msim_stat_item_is_node(enum msim_stat_item idx);
/* Thread 002 patch 2 node_stat_includes_unaccounted(): node counter may exceed root's value. */
MSIM_API bool msim_node_stat_includes_unaccounted(enum msim_stat_item idx);

/* ---- per-host setup ---- */

/*
 * Tunables (configurable where a proposal changes them: a proposed series makes
 * the batch depend on the page size and the threshold sublinear in CPUs).
 * Defaults: batch 64, threshold_per_cpu 64, flush_time 2*HZ, periodic on.
 */
struct msim_rstat_params {
	long charge_batch;          /* MEMCG_CHARGE_BATCH for the stats_updates walk */
	long threshold_per_cpu;     /* threshold = threshold_per_cpu * online CPUs */
	uint64_t flush_time;        /* jiffies; 0 = 2 * hz */
	bool periodic_flush;        /* queue the 2 s root flush (flush_memcg_stats_dwork) */
	/*
	 * R5 (docs/races.md): the kernel has no smp_mb() between a write
	 * path's per-CPU state store and the enqueue's llist_on_list() test, nor
	 * between the flusher's unlink of the popped node and its read of the
	 * CPU's state, so under a weak memory model (sim.h msim_memory_model: tso
	 * or pso) the store can still sit in the CPU's store buffer when the test
	 * reads "on-list" while the flusher reads the old value. false (default):
	 * the kernel as it is. true: the barrier pair the source describes, each a
	 * real drain of the store buffer (msim_smp_mb_quiet(): no yield point, so
	 * it changes no schedule, and under sc nothing at all).
	 */
	bool smp_mb_pair;
	/*
	 * Kept so that code which set it compiles: it buffered the state store ad
	 * hoc before store buffers became the host's memory model
	 * (msim_config.memory_model = MSIM_MEMORY_TSO, which covers it). true on a
	 * host under sc is refused (-EINVAL) rather than silently ignored; under a
	 * weak model it changes nothing.
	 */
	bool store_buffer;
};
MSIM_API void msim_rstat_params_init(struct msim_rstat_params *p);

/*
 * The rstat layer as a subsystem (subsys.h): name "rstat", depends on "memcg":
 * msim_subsys_find("rstat").
 */

/*
 * Attach rstat to a host by hand, with tunables (params NULL: the defaults):
 * msim_subsys_attach() (memcg first if the host lacks it), which registers the
 * memcg hooks (per-memcg data, offline reparenting, release/free flushes), sets
 * up the node counters and queues the periodic flush, then params apply as if
 * the host had attached with them. On a host that has rstat already (from its
 * configuration or an earlier call) it only updates the tunables, the periodic
 * flush included. Call it from the driver (not a task), before creating child
 * memcgs: memcgs made before are adopted (they get stats, but the memcg layer
 * never runs this hook set's offline/release/free on them, so their data and the
 * dying-memcg reparenting stay until msim_destroy()). Returns 0; -EINVAL for a
 * NULL host, bad params (nothing changes) or a call from a task; -ENOMEM.
 */
MSIM_API int msim_rstat_init(struct msim *m, const struct msim_rstat_params *params);
/* Whether m has rstat (msim_subsys_attached(m, msim_subsys_find("rstat"))). */
MSIM_API bool msim_rstat_attached(struct msim *m);

/* kernel: MEMCG_CHARGE_BATCH * num_online_cpus(), read at call time. */
MSIM_API long msim_memcg_flush_threshold(struct msim *m);

/* ---- lruvecs (per memcg per node) ---- */

struct msim_lruvec;

/*
 * kernel: mem_cgroup_lruvec(memcg, pgdat). memcg == NULL means the root memcg's
 * lruvec, as in the kernel. nid must be < msim_nr_nodes(). The pointer stays
 * valid while memcg is not freed.
 */
MSIM_API struct msim_lruvec *msim_mem_cgroup_lruvec(struct msim *m, struct msim_memcg *memcg,
						    unsigned int nid);
/*
 * kernel: &pgdat->__lruvec, the node's own lruvec (memcg disabled, or pages no
 * memcg owns): updates through it reach only the node counters. NULL without
 * rstat or for a bad nid.
 */
MSIM_API struct msim_lruvec *msim_node_lruvec(struct msim *m, unsigned int nid);
MSIM_API struct msim_memcg *msim_lruvec_memcg(const struct msim_lruvec *lruvec);
MSIM_API unsigned int msim_lruvec_nid(const struct msim_lruvec *lruvec);

/* ---- write paths (call from a task, or from setup code as CPU 0) ---- */

/*
 * Which write to call: the kernel function you model decides. What each one
 * changes ("node": the node counter, msim_node_page_state(); "memcg" and
 * "lruvec": the per-CPU state that flushes fold into msim_memcg_page_state() and
 * msim_lruvec_page_state()); "redirect": the dying-memcg redirect runs first.
 *
 *   model                          kernel                       node memcg lruvec redirect
 *   msim_lruvec_stat_mod_page()    lruvec_stat_mod_folio(),     yes  yes*  yes*   yes
 *                                  mod_lruvec_kmem_state()
 *   msim_mod_lruvec_state()        mod_lruvec_state()           yes  yes*  yes*   yes
 *   msim_mod_memcg_lruvec_state()  mod_memcg_lruvec_state()     no   yes   yes    yes
 *   msim_mod_memcg_state()         mod_memcg_state()            no   yes   no     yes
 *   msim_mod_memcg_state_no_redirect()  __mod_memcg_state()     no   yes   no     no
 *   msim_mod_node_page_state()     mod_node_page_state()        yes  no    no     -
 *   msim_count_memcg_events()      count_memcg_events()         events of the memcg, no redirect
 *   (* only when there is a memcg: a NULL memcg, or the node's own lruvec, is the node alone)
 *
 * When to call which:
 *   - a page or folio of a memcg on a node (page cache, anon, shmem, THP counts,
 *     kernel stacks, page tables: node items): msim_lruvec_stat_mod_page(), as the
 *     kernel's callers of lruvec_stat_mod_folio() do;
 *   - code that holds the lruvec already (LRU list sizes, workingset):
 *     msim_mod_lruvec_state();
 *   - the memcg half of a node item whose node counter the caller updates on its own:
 *     msim_mod_memcg_lruvec_state();
 *   - a memcg-only item (MSIM_MEMCG_SWAP, _KMEM, _SOCK, _PERCPU_B, _ZSWAP_*):
 *     msim_mod_memcg_state();
 *   - memory no memcg owns: msim_mod_node_page_state(); an event:
 *     msim_count_memcg_events().
 * Every one that reaches a memcg calls memcg_rstat_updated() once, with val in
 * pages, so the flush heuristic sees the same amount whichever path carries it;
 * the paths differ in which readers see the change. Node items need nid <
 * msim_nr_nodes(); a memcg-only item passed to a node path is -EINVAL.
 */

/*
 * kernel: mod_memcg_state(). Memcg-level item (node items are accepted too: they
 * update only the memcg-level arrays, as the kernel's index map allows).
 * Applies the dying redirect of variant dying-redirect first. Returns 0, or
 * -EINVAL for a bad item / NULL memcg (nothing is changed).
 */
MSIM_API int msim_mod_memcg_state(struct msim_memcg *memcg, enum msim_stat_item idx, long val);
/* kernel: __mod_memcg_state(): the same without the dying redirect. */
MSIM_API int msim_mod_memcg_state_no_redirect(struct msim_memcg *memcg, enum msim_stat_item idx, long val);

/*
 * kernel: mod_memcg_lruvec_state(): node item; updates the memcg's and the
 * lruvec's per-CPU state, then one memcg_rstat_updated. Dying redirect first.
 * Not the node counter (see msim_mod_lruvec_state). -EINVAL for a memcg-only item.
 */
MSIM_API int msim_mod_memcg_lruvec_state(struct msim_lruvec *lruvec, enum msim_stat_item idx, long val);

/*
 * kernel: mod_lruvec_state(): the node counter always, then the memcg lruvec
 * state when the lruvec has a memcg. -EINVAL for a memcg-only item.
 */
MSIM_API int msim_mod_lruvec_state(struct msim_lruvec *lruvec, enum msim_stat_item idx, long val);

/*
 * kernel: lruvec_stat_mod_folio() / mod_lruvec_kmem_state(): a page owned by memcg
 * (NULL: untracked, node counter only) on node nid.
 */
MSIM_API int msim_lruvec_stat_mod_page(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
				       enum msim_stat_item idx, long val);

/*
 * kernel: mod_node_page_state(): the node counter only. Variant node-stat=exact
 * (default): one exact atomic; percpu: vmstat's per-CPU diff (the cmpxchg form;
 * msim_mod_lruvec_state uses the irqoff form, as __mod_lruvec_state does), where
 * a slab byte delta that is not whole pages is -EINVAL.
 */
MSIM_API int msim_mod_node_page_state(struct msim *m, unsigned int nid, enum msim_stat_item idx, long val);

/*
 * Pages the kernel allocates for itself (src/rstat/kernel_pages.c): the stat side
 * of their accounting, as the kernel's call sites do it. memcg is the task's
 * (or the mm's) memcg, NULL for a kernel thread (or init_mm); a page no memcg is
 * charged for (a kernel thread's, a task's in the root memcg, a kernel page
 * table, every hugetlb folio without memory_hugetlb_accounting) updates the
 * node counter only. account is +1 (allocate) or -1 (free); -EINVAL otherwise.
 */
#define MSIM_THREAD_SIZE 16384UL /* x86-64 THREAD_SIZE: 4 pages, 16 KiB */
/* kernel: account_kernel_stack() (CONFIG_VMAP_STACK): NR_KERNEL_STACK_KB per page */
MSIM_API int msim_account_kernel_stack(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
				       int account);
/* kernel: pagetable_pte_ctor() / pagetable_pte_dtor(): NR_PAGETABLE; user: GFP_PGTABLE_USER */
MSIM_API int msim_account_pagetable(struct msim *m, struct msim_memcg *mm_memcg, bool user,
				    unsigned int nid, int account);
/* kernel: NR_HUGETLB at alloc_hugetlb_folio() (+nr_pages) / free_huge_folio() (-nr_pages) */
MSIM_API int msim_account_hugetlb_folio(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
					long nr_pages);

/* kernel: count_memcg_events(): per-CPU event add, then memcg_rstat_updated(count). */
MSIM_API int msim_count_memcg_events(struct msim_memcg *memcg, enum msim_memcg_event ev, long count);

/*
 * kernel: memcg_rstat_updated(memcg, val, cpu): enqueue, then the stats_updates
 * walk (val in pages; 0 does nothing). Exposed for tests that drive the heuristic
 * without a stat write. cpu must be the caller's CPU (msim_this_cpu()).
 */
MSIM_API void msim_memcg_rstat_updated(struct msim_memcg *memcg, long val, unsigned int cpu);

/* kernel: __css_rstat_updated(css, cpu): the lockless per-CPU llist enqueue. */
MSIM_API void msim_css_rstat_updated(struct msim_memcg *memcg, unsigned int cpu);

/* ---- flushing ---- */

/*
 * kernel: __mem_cgroup_flush_stats(memcg, force): gated on this memcg's own
 * atomic unless force; a root flush writes flush_last_time before flushing.
 * NULL means root. Returns true if it flushed, false if it skipped.
 */
MSIM_API bool msim_do_mem_cgroup_flush_stats(struct msim_memcg *memcg, bool force);
/* kernel: mem_cgroup_flush_stats(): threshold-gated. NULL means root. */
MSIM_API bool msim_mem_cgroup_flush_stats(struct msim_memcg *memcg);
/* Forced (obj_cgroup_may_zswap, reparent_state_local, bpf_mem_cgroup_flush_stats proposal). */
MSIM_API bool msim_mem_cgroup_flush_stats_forced(struct msim_memcg *memcg);
/*
 * kernel: mem_cgroup_flush_stats_ratelimited(): the threshold-gated flush only when
 * jiffies > flush_last_time + 2 * FLUSH_TIME. Returns true if it flushed.
 */
MSIM_API bool msim_mem_cgroup_flush_stats_ratelimited(struct msim_memcg *memcg);
/* kernel: css_rstat_flush(css): unconditional flush of memcg's subtree (BPF kfunc). */
MSIM_API void msim_css_rstat_flush(struct msim_memcg *memcg);
/*
 * kernel: flush_memcg_stats_dwork(): forced root flush, then re-queue after
 * FLUSH_TIME. Runs by itself on msim_clock_advance(); callable directly too.
 */
MSIM_API void msim_flush_memcg_stats_dwork(struct msim *m);
/* Stop / restart the periodic work (a driver that wants no surprise flushes). */
MSIM_API void msim_rstat_periodic_flush_enable(struct msim *m, bool on);
/* kernel: flush_last_time (jiffies). */
MSIM_API uint64_t msim_rstat_flush_last_time(struct msim *m);

/* ---- readers (no flush, no lock; a torn read is possible, R6) ---- */

/* kernel: memcg_page_state(): hierarchical, native unit, clamped at 0. */
MSIM_API unsigned long msim_memcg_page_state(struct msim_memcg *memcg, enum msim_stat_item idx);
/* kernel: memcg_page_state_local(): this memcg only, clamped at 0. */
MSIM_API unsigned long msim_memcg_page_state_local(struct msim_memcg *memcg, enum msim_stat_item idx);
/* kernel: memcg_page_state_output(): value times the output unit (bytes or counts). */
MSIM_API unsigned long msim_memcg_page_state_output(struct msim_memcg *memcg, enum msim_stat_item idx);
MSIM_API unsigned long msim_memcg_page_state_local_output(struct msim_memcg *memcg,
							   enum msim_stat_item idx);
/* kernel: memcg_events() / memcg_events_local(). */
MSIM_API unsigned long msim_memcg_events(struct msim_memcg *memcg, enum msim_memcg_event ev);
MSIM_API unsigned long msim_memcg_events_local(struct msim_memcg *memcg, enum msim_memcg_event ev);
/*
 * kernel: lruvec_page_state(): hierarchical per-node value, clamped at 0. For the
 * node lruvec (memcg NULL) the node counter. Variant root-lruvec-read=node: for
 * the root memcg, the node counter unless msim_node_stat_includes_unaccounted().
 */
MSIM_API unsigned long msim_lruvec_page_state(struct msim_lruvec *lruvec, enum msim_stat_item idx);
/* kernel: lruvec_page_state_local(): this memcg on this node, clamped at 0. */
MSIM_API unsigned long msim_lruvec_page_state_local(struct msim_lruvec *lruvec, enum msim_stat_item idx);
/*
 * kernel: node_page_state(): the node counter (clamped at 0). node-stat=percpu:
 * vmstat's node atomic, which lags the truth by up to threshold x CPUs
 * (msim_vmstat_node_page_state_snapshot() is exact); slab items in bytes.
 */
MSIM_API unsigned long msim_node_page_state(struct msim *m, unsigned int nid, enum msim_stat_item idx);

/* ---- the flush heuristic's counters and what the flushes did ---- */

/* (Raw per-CPU and per-array values for tests and scenarios: <memcgsim/introspect/rstat.h>.) */

/* The memcg's atomic stats_updates and its per-CPU stats_updates on cpu. */
MSIM_API long msim_memcg_stats_updates(struct msim_memcg *memcg);
MSIM_API long msim_memcg_stats_updates_cpu(struct msim_memcg *memcg, unsigned int cpu);
/*
 * NMI-safe write paths (variant nmi-stats, irq.h for NMI contexts). kernel:
 * account_kmem_nmi_safe() (MEMCG_KMEM, pages) and account_slab_nmi_safe() (idx
 * MSIM_NR_SLAB_RECLAIMABLE_B or _UNRECLAIMABLE_B, bytes, at the memcg and lruvec
 * level of node nid). Outside NMI, or under nmi-stats=percpu, the ordinary
 * mod_memcg_state / mod_memcg_lruvec_state; in NMI under nmi-stats=atomic the
 * memcg is enqueued on this CPU's rstat list and the value added to an atomic
 * that the next flush of the memcg drains (flush_nmi_stats; R10). 0 or -EINVAL.
 */
MSIM_API int msim_account_kmem_nmi_safe(struct msim_memcg *memcg, long val);
MSIM_API int msim_account_slab_nmi_safe(struct msim_memcg *memcg, unsigned int nid,
					enum msim_stat_item idx, long val);

/* kernel: memcg_vmstats_needs_flush(): atomic > threshold. */
MSIM_API bool msim_memcg_vmstats_needs_flush(struct msim_memcg *memcg);



struct msim_rstat_counters {
	uint64_t updates;            /* memcg_rstat_updated calls with val != 0 */
	uint64_t enqueues;           /* llist claims won */
	uint64_t walk_breaks;        /* early exits (rstat-propagate=break) */
	uint64_t walk_skips;         /* levels skipped (rstat-propagate=continue) */
	uint64_t batches;            /* per-CPU batches pushed into an atomic */
	uint64_t flushes;            /* css_rstat_flush runs */
	uint64_t flush_skipped;      /* gated flushes skipped below the threshold */
	uint64_t ratelimit_skipped;  /* ratelimited flushes skipped by the time test */
	uint64_t forced_flushes;
	uint64_t periodic_flushes;
	uint64_t cpu_visits;         /* per-CPU passes of a flush */
	uint64_t memcg_flushes;      /* mem_cgroup_css_rstat_flush(memcg, cpu) calls */
	uint64_t atomic_resets;      /* atomic_set(stats_updates, 0) done by flushes */
	uint64_t redirects;          /* updates moved off a dying memcg */
	uint64_t reparents;          /* local-stat reparentings at offline */
};
MSIM_API void msim_rstat_counters(struct msim *m, struct msim_rstat_counters *out);
MSIM_API void msim_rstat_counters_reset(struct msim *m);

/* ---- dying memcgs ---- */

/*
 * kernel: get_non_dying_memcg_start() / _end() (newest, and thread 000 patches 2,
 * 3 per variant dying-redirect): the memcg to which a stat update of memcg goes.
 * *rcu_locked says whether an RCU read-side section was entered and must be left
 * by _end(rcu_locked).
 */
MSIM_API struct msim_memcg *msim_get_non_dying_memcg_start(struct msim_memcg *memcg, bool *rcu_locked);
MSIM_API void msim_get_non_dying_memcg_end(bool rcu_locked);
/* True when, under the host's variants, dying memcgs get redirect + local reparenting. */
MSIM_API bool msim_rstat_dying_redirect_active(struct msim *m);

/*
 * kernel: reparent_state_local(): forced flush of memcg, move its local memcg and
 * lruvec stats to the parent with paired __mod_* updates, forced flush of the
 * parent. Called by the offline hook when the variant covers this hierarchy;
 * exposed for tests.
 */
MSIM_API void msim_memcg_reparent_state_local(struct msim_memcg *memcg);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_RSTAT_H */
