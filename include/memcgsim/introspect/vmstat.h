/* SPDX-License-Identifier: MIT */
/*
 * introspect/vmstat.h - what tests read of the node and zone counters' insides
 * (vmstat.h): the signed atomics and every CPU's diffs. Not exported, not
 * installed (introspect.h says why).
 */
#ifndef MEMCGSIM_INTROSPECT_VMSTAT_H
#define MEMCGSIM_INTROSPECT_VMSTAT_H

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

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_VMSTAT_H */
