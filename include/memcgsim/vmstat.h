/* SPDX-License-Identifier: MIT */
/*
 * vmstat.h - node and zone counters with per-CPU diffs and stat thresholds.
 *
 * Model of mm/vmstat.c and include/linux/vmstat.h (docs/vmstat.md maps every
 * function). Each node and each populated zone keeps an atomic counter per item,
 * and every CPU a signed byte of not-yet-folded change per item (the kernel's
 * s8 vm_node_stat_diff / vm_stat_diff). An update changes only its CPU's diff
 * until the diff passes the CPU's stat_threshold; then the whole diff goes into
 * the node (or zone) atomic and into the host-wide atomic. Every second a
 * delayed work folds each CPU's diffs (vmstat_update, armed by vmstat_shepherd)
 * on the host's virtual clock (sim.h).
 *
 * Error bound. A read of the atomics (msim_vmstat_node_page_state) misses what
 * the CPUs hold: at most stat_threshold per CPU per item, so
 *     |node_page_state - truth| <= stat_threshold x nr_cpus
 * (125 x 80 = 10000 pages on an 80-CPU host with a zone of 16 GiB or more).
 * msim_vmstat_node_page_state_snapshot() adds every CPU's diff and is exact on a
 * quiescent host. The atomic can be negative while the truth is not (one CPU
 * folded its increments, another still holds the decrements); the plain read
 * clamps it to 0, as the kernel does on SMP.
 *
 * Thresholds (kernel: calculate_normal_threshold()): from the number of online
 * CPUs and the zone's managed pages (struct msim_config.zone_managed_pages),
 * at most 125; a node's per-CPU threshold is the largest of its populated zones'.
 *
 * Items. Node items share the numbering of rstat.h's enum msim_stat_item for the
 * memcg-tracked node items (0 .. MSIM_VMSTAT_NR_MEMCG_NODE_ITEMS - 1, e.g.
 * MSIM_NR_INACTIVE_ANON = 0, MSIM_NR_SLAB_RECLAIMABLE_B = 5): pass those
 * enumerators as they are. The items only node counters keep follow (enum
 * msim_vmstat_node_item). vmstat includes no rstat header: the contract is the
 * number, checked by tests/unit/test_vmstat.c. Byte items (the two NR_SLAB_*_B)
 * take whole pages in bytes and are stored in pages, as in the kernel.
 *
 * Two update forms, as the kernel has them (x86, CONFIG_HAVE_CMPXCHG_LOCAL):
 *  - msim_vmstat_mod_node_page_state() (kernel: mod_node_page_state(),
 *    mod_node_state()): a this_cpu_try_cmpxchg loop on the diff, then the fold
 *    into the atomics. Safe from any context.
 *  - ..._irqoff (kernel: __mod_node_page_state()): the caller has interrupts
 *    off; a plain read-modify-write of the diff, and on overflow the atomics are
 *    added before the diff is reset. The model runs the periodic fold in the
 *    context that advances the clock, not on the diff's CPU, so it keeps out of
 *    an _irqoff section of that CPU: a fold that meets one is handed to the end
 *    of the section, where the kernel's vmstat_update would have run.
 * inc/dec forms overstep: a fold leaves the diff at -threshold/2 (inc) or
 * +threshold/2 (dec), so a steady stream folds every 1.5 x threshold events.
 *
 * Named yield points (msim_run_until); a task parked at one has not yet done the
 * operation named:
 *   "vmstat.update"        an update is about to start
 *   "vmstat.diff.cmpxchg"  mod form: the this_cpu_try_cmpxchg of the diff (the
 *                          window between its read and the cmpxchg)
 *   "vmstat.fold.node"     an overflow or a periodic fold: the add into the node
 *                          (or zone) atomic
 *   "vmstat.fold.global"   the same into the host-wide atomic
 *   "vmstat.diff.reset"    _irqoff form: the diff store after its overflow was
 *                          folded (the atomics already hold it)
 *   "vmstat.fold.xchg"     periodic fold (refresh_cpu_vm_stats): this_cpu_xchg
 *                          of a nonzero diff
 *   "vmstat.read"          a read of a node, zone or host-wide atomic
 *   "vmstat.snapshot.diff" a snapshot reads one CPU's diff
 *
 * Attaching: hosts whose configuration sets .vmstat get it at msim_create();
 * msim_subsys_attach(m, msim_subsys_find("vmstat"), ...) attaches it to another host.
 * Errors: updates return 0, or -EINVAL for a host without vmstat, a bad node,
 * zone or item, an unpopulated zone, a byte delta that is not whole pages, or
 * inc/dec of a byte item. Reads of bad arguments return 0.
 */
#ifndef MEMCGSIM_VMSTAT_H
#define MEMCGSIM_VMSTAT_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/subsys.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rstat.h's MSIM_NR_NODE_STAT_ITEMS: the memcg-tracked node items come first. */
#define MSIM_VMSTAT_NR_MEMCG_NODE_ITEMS 47

/* Node items that no memcg tracks (kernel: enum node_stat_item). */
enum msim_vmstat_node_item {
	MSIM_NR_ISOLATED_ANON = MSIM_VMSTAT_NR_MEMCG_NODE_ITEMS, /* pages off the LRU for reclaim */
	MSIM_NR_ISOLATED_FILE,
	MSIM_WORKINGSET_NODES,       /* xarray nodes holding only shadow entries */
	MSIM_NR_VM_NODE_STAT_ITEMS
};

/* Zone items (kernel: enum zone_stat_item), pages. */
enum msim_vmstat_zone_item {
	MSIM_NR_ZONE_INACTIVE_ANON = 0, /* LRU pages of the zone (kernel: NR_ZONE_LRU_BASE + lru) */
	MSIM_NR_ZONE_ACTIVE_ANON,
	MSIM_NR_ZONE_INACTIVE_FILE,
	MSIM_NR_ZONE_ACTIVE_FILE,
	MSIM_NR_ZONE_UNEVICTABLE,
	MSIM_NR_ZONE_WRITE_PENDING,  /* dirty, writeback */
	MSIM_NR_MLOCK,
	MSIM_NR_ZSPAGES,             /* zsmalloc pages (the zswap pool) */
	MSIM_NR_VM_ZONE_STAT_ITEMS
};

/* kernel: sysctl_stat_interval = HZ; the period of the fold, in seconds. */
#define MSIM_VMSTAT_INTERVAL_SECONDS 1
/* kernel: the cap of calculate_normal_threshold() (an s8 diff must hold threshold + 1). */
#define MSIM_VMSTAT_MAX_THRESHOLD 125

/* The subsystem "vmstat": msim_subsys_find("vmstat"). */

/* kernel: vmstat_item_in_bytes(): NR_SLAB_RECLAIMABLE_B and NR_SLAB_UNRECLAIMABLE_B. */
MSIM_API bool msim_vmstat_item_in_bytes(int item);

/* ---- thresholds ---- */

/*
 * kernel: calculate_normal_threshold(zone) for a zone of managed_pages pages on
 * a host with nr_online_cpus online CPUs.
 */
MSIM_API int msim_vmstat_calculate_normal_threshold(unsigned int nr_online_cpus,
						    unsigned long managed_pages);
/*
 * kernel: calculate_pressure_threshold(zone), given the zone's low - min
 * watermark distance in pages. The model keeps no watermarks and never installs
 * it (set_pgdat_percpu_threshold is a stub); provided for experiments.
 */
MSIM_API int msim_vmstat_calculate_pressure_threshold(unsigned int nr_online_cpus,
						      unsigned long watermark_distance);
/*
 * kernel: refresh_zone_stat_thresholds(): recompute every zone's and node's
 * per-CPU thresholds. Attaching runs it (the kernel reruns it on hotplug, which
 * the model does not have); call it to undo msim_vmstat_set_node_stat_threshold().
 */
MSIM_API void msim_vmstat_refresh_zone_stat_thresholds(struct msim *m);
/* The stat_threshold of CPU cpu for node nid / for zone (nid, zone); 0 if none. */
MSIM_API int msim_vmstat_node_stat_threshold(struct msim *m, unsigned int nid, unsigned int cpu);
MSIM_API int msim_vmstat_zone_stat_threshold(struct msim *m, unsigned int nid,
					     enum msim_zone_type zone, unsigned int cpu);
/*
 * Override node nid's per-CPU threshold on every CPU (0 .. MSIM_VMSTAT_MAX_THRESHOLD;
 * 0 makes every update fold). Returns 0 or -EINVAL. For experiments on the
 * threshold itself; msim_vmstat_refresh_zone_stat_thresholds() undoes it.
 */
MSIM_API int msim_vmstat_set_node_stat_threshold(struct msim *m, unsigned int nid, int threshold);

/* ---- updates (the running task's CPU; the driver is CPU 0) ---- */

/* kernel: mod_node_page_state(pgdat, item, delta) (x86: mod_node_state(.., 0)). */
MSIM_API int msim_vmstat_mod_node_page_state(struct msim *m, unsigned int nid, int item, long delta);
/* kernel: inc_node_state() / dec_node_page_state() (x86: overstep +1 / -1). */
MSIM_API int msim_vmstat_inc_node_state(struct msim *m, unsigned int nid, int item);
MSIM_API int msim_vmstat_dec_node_state(struct msim *m, unsigned int nid, int item);
/* kernel: __mod_node_page_state(), __inc_node_state(), __dec_node_state(). */
MSIM_API int msim_vmstat_mod_node_page_state_irqoff(struct msim *m, unsigned int nid, int item,
						    long delta);
MSIM_API int msim_vmstat_inc_node_state_irqoff(struct msim *m, unsigned int nid, int item);
MSIM_API int msim_vmstat_dec_node_state_irqoff(struct msim *m, unsigned int nid, int item);

/* kernel: mod_zone_page_state(), inc/dec_zone_page_state() (x86: mod_zone_state()). */
MSIM_API int msim_vmstat_mod_zone_page_state(struct msim *m, unsigned int nid, enum msim_zone_type zone,
					     int item, long delta);
MSIM_API int msim_vmstat_inc_zone_state(struct msim *m, unsigned int nid, enum msim_zone_type zone,
					int item);
MSIM_API int msim_vmstat_dec_zone_state(struct msim *m, unsigned int nid, enum msim_zone_type zone,
					int item);
/* kernel: __mod_zone_page_state(), __inc_zone_state(), __dec_zone_state(). */
MSIM_API int msim_vmstat_mod_zone_page_state_irqoff(struct msim *m, unsigned int nid,
						    enum msim_zone_type zone, int item, long delta);
MSIM_API int msim_vmstat_inc_zone_state_irqoff(struct msim *m, unsigned int nid,
					       enum msim_zone_type zone, int item);
MSIM_API int msim_vmstat_dec_zone_state_irqoff(struct msim *m, unsigned int nid,
					       enum msim_zone_type zone, int item);

/* ---- folding ---- */

/*
 * kernel: vmstat_refresh() (/proc/sys/vm/stat_refresh): fold every CPU's diffs
 * now (refresh_cpu_vm_stats on each CPU). A CPU inside an _irqoff section gets
 * its fold at the section's end instead. Returns the number of counters changed.
 */
MSIM_API long msim_vmstat_refresh(struct msim *m);
/* Whether the periodic fold (vmstat_shepherd and the per-CPU vmstat_update) runs (default on). */
MSIM_API void msim_vmstat_periodic_enable(struct msim *m, bool on);

/* ---- reads, in pages (KiB for NR_KERNEL_STACK_KB) ---- */

/* kernel: node_page_state_pages(): the node atomic only, clamped at 0. */
MSIM_API unsigned long msim_vmstat_node_page_state(struct msim *m, unsigned int nid, int item);
/*
 * kernel: node_page_state_snapshot() (the node twin of zone_page_state_snapshot):
 * the atomic plus every CPU's diff, clamped at 0 only if that sum is negative.
 */
MSIM_API unsigned long msim_vmstat_node_page_state_snapshot(struct msim *m, unsigned int nid, int item);
/* kernel: global_node_page_state_pages(): the host-wide atomic, clamped at 0. */
MSIM_API unsigned long msim_vmstat_global_node_page_state(struct msim *m, int item);
/* kernel: zone_page_state(), zone_page_state_snapshot(), global_zone_page_state(). */
MSIM_API unsigned long msim_vmstat_zone_page_state(struct msim *m, unsigned int nid,
						   enum msim_zone_type zone, int item);
MSIM_API unsigned long msim_vmstat_zone_page_state_snapshot(struct msim *m, unsigned int nid,
							    enum msim_zone_type zone, int item);
MSIM_API unsigned long msim_vmstat_global_zone_page_state(struct msim *m, int item);

/* ---- for tests and reports (raw diffs, atomics and the fold counts: <memcgsim/introspect/vmstat.h>) ---- */

/* The zone's managed pages on this host (0: not populated). */
MSIM_API unsigned long msim_vmstat_zone_managed_pages(struct msim *m, unsigned int nid,
						      enum msim_zone_type zone);


#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_VMSTAT_H */
