/* SPDX-License-Identifier: MIT */
/*
 * introspect/vmstat.h - what tests read of the node and zone counters' insides
 * (vmstat.h): the signed atomics, every CPU's diffs and what the fold
 * machinery did. Not exported, not installed (introspect.h says why).
 */
#ifndef MEMCGSIM_INTROSPECT_VMSTAT_H
#define MEMCGSIM_INTROSPECT_VMSTAT_H

#include <stdint.h>

#include <memcgsim/vmstat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The node atomic, signed (may be negative). */
long msim_vmstat_node_stat_raw(struct msim *m, unsigned int nid, int item);
/* CPU cpu's diff of node nid / of zone (nid, zone). */
long msim_vmstat_node_diff(struct msim *m, unsigned int nid, unsigned int cpu, int item);
long msim_vmstat_zone_diff(struct msim *m, unsigned int nid, enum msim_zone_type zone,
			   unsigned int cpu, int item);

/* What the fold machinery did on this host (bookkeeping, not kernel state). */
struct msim_vmstat_counters {
	uint64_t threshold_folds;    /* updates whose diff passed the threshold */
	uint64_t cpu_folds;          /* refresh_cpu_vm_stats runs (periodic, refresh, deferred) */
	uint64_t deferred_folds;     /* folds handed to the end of an _irqoff section */
	uint64_t shepherd_runs;
	uint64_t cmpxchg_retries;    /* mod form: a cmpxchg found the diff changed */
};
void msim_vmstat_counters(struct msim *m, struct msim_vmstat_counters *out);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_VMSTAT_H */
