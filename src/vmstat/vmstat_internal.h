/* SPDX-License-Identifier: MIT */
/*
 * vmstat_internal.h - the vmstat layer's per-host state (vmstat.h is the API).
 *
 * The files of the layer, one concept behind this header:
 *   host.c       the subsystem: host init and fini; the tunables (periodic
 *                on/off, refresh, thresholds)
 *   update.c     mod/inc/dec of node and zone counters (both forms)
 *   fold.c       refresh_cpu_vm_stats, vmstat_update, vmstat_shepherd
 *   section.c    the _irqoff section word that keeps a fold out of an update
 *   threshold.c  calculate_*_threshold, refresh_zone_stat_thresholds
 *   read.c       node_page_state and friends, introspection
 *
 * Memory model. The per-CPU diffs are int8_t, as the kernel's s8, read and
 * written with the atomic shims (relaxed): the owning CPU read-modify-writes
 * them, a fold exchanges them with 0, snapshot readers load them. The node,
 * zone and host-wide counters are msim_atomic_long_t. Per-CPU thresholds are
 * relaxed atomics written by refresh_zone_stat_thresholds() and read by updates
 * (the kernel reads stat_threshold racily too: "the next update applies it").
 */
#ifndef MSIM_VMSTAT_INTERNAL_H
#define MSIM_VMSTAT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/atomic.h>
#include <memcgsim/percpu.h>
#include <memcgsim/vmstat.h>
#include <memcgsim/introspect/vmstat.h>   /* read.c defines it */

/* kernel: struct per_cpu_nodestat, and struct per_cpu_zonestat without NUMA events. */
struct msim__vmstat_pcp {
	int8_t stat_threshold;
	int8_t diff[];                 /* vm_node_stat_diff[] / vm_stat_diff[] */
};

/* One node's or one zone's counters: the shape every update and fold works on. */
struct msim__vmstat_set {
	msim_atomic_long_t *vm_stat;   /* pgdat->vm_stat[] or zone->vm_stat[] */
	msim_atomic_long_t *global;    /* vm_node_stat[] or vm_zone_stat[] */
	void *pcp;                     /* per-CPU struct msim__vmstat_pcp; NULL: unpopulated zone */
	unsigned int nr_items;
};

struct msim__vmstat_zone {
	struct msim__vmstat_set set;
	msim_atomic_long_t vm_stat[MSIM_NR_VM_ZONE_STAT_ITEMS];
	unsigned long managed_pages;   /* zone_managed_pages(); 0: not populated */
};

struct msim__vmstat_node {
	struct msim__vmstat_set set;
	msim_atomic_long_t vm_stat[MSIM_NR_VM_NODE_STAT_ITEMS];
	struct msim__vmstat_zone zones[MSIM_MAX_NR_ZONES];
};

struct msim__vmstat;

/*
 * Per CPU, the simulator's bookkeeping (not kernel state): the section word
 * (section.c) and the CPU's vmstat_update work. One cache line each, so that
 * CPUs of a concurrent host do not share the word they all write.
 */
struct msim__vmstat_cpu {
	unsigned int section;          /* quiet atomics; see section.c */
	unsigned int cpu;
	struct msim__vmstat *vs;
	struct msim_delayed_work work; /* vmstat_work of this CPU */
} __attribute__((aligned(64)));

struct msim__vmstat {
	struct msim *m;
	unsigned int nr_nodes;
	unsigned int nr_cpus;
	msim_atomic_long_t vm_node_stat[MSIM_NR_VM_NODE_STAT_ITEMS];
	msim_atomic_long_t vm_zone_stat[MSIM_NR_VM_ZONE_STAT_ITEMS];
	struct msim__vmstat_node *nodes;
	struct msim__vmstat_cpu *cpus;
	struct msim_delayed_work shepherd;
	uint64_t interval;             /* sysctl_stat_interval, jiffies */
	bool periodic;                 /* driver-only */
	struct msim_vmstat_counters ctr; /* quiet relaxed increments */
};

/* The host's vmstat state, or NULL: a plain load, never an attach. */
struct msim__vmstat *msim__vmstat_of(struct msim *m);

static inline struct msim__vmstat_pcp *msim__vmstat_pcp(const struct msim__vmstat_set *set,
							unsigned int cpu)
{
	return msim_per_cpu_ptr(set->pcp, cpu);
}

/*
 * A CPU's threshold, which updates read quietly and refresh_zone_stat_thresholds()
 * rewrites: the quiet load is noted for partial-order reduction (yield.h's contract).
 */
static inline int8_t msim__vmstat_threshold_load(const struct msim__vmstat_pcp *pcp)
{
	msim_access_note(&pcp->stat_threshold, sizeof(pcp->stat_threshold), MSIM_ACCESS_LOAD);
	return msim_quiet_load(&pcp->stat_threshold, MSIM_RELAXED);
}

#define MSIM__VMSTAT_CTR(vs, field) \
	((void)msim_quiet_fetch_add(&(vs)->ctr.field, 1, MSIM_RELAXED))

/* ---- section.c ---- */
void msim__vmstat_section_enter(struct msim__vmstat_cpu *c);
bool msim__vmstat_section_exit(struct msim__vmstat_cpu *c);
bool msim__vmstat_fold_claim(struct msim__vmstat_cpu *c);
void msim__vmstat_fold_release(struct msim__vmstat_cpu *c);

/* ---- threshold.c ---- */
void msim__vmstat_refresh_thresholds(struct msim__vmstat *vs);
void msim__vmstat_set_threshold(struct msim__vmstat_set *set, unsigned int cpu, int threshold);
int msim__vmstat_get_threshold(const struct msim__vmstat_set *set, unsigned int cpu);

/* ---- fold.c ---- */
long msim__vmstat_fold_cpu(struct msim__vmstat *vs, unsigned int cpu);
void msim__vmstat_works_init(struct msim__vmstat *vs);
void msim__vmstat_works_cancel(struct msim__vmstat *vs);

#endif /* MSIM_VMSTAT_INTERNAL_H */
