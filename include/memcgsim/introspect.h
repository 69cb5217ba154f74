/* SPDX-License-Identifier: MIT */
/*
 * introspect.h - what tests and scenarios read of the model's insides: raw
 * per-CPU and per-array statistics, the rstat updated lists, what NMIs staged,
 * vmstat's per-CPU diffs. No yield point, no clamping, no kernel counterpart.
 *
 * The third part of the API (docs/design.md, Public API): the model is what an
 * experiment calls, the driver (sim.h, explore.h, race.h) runs it, and this is
 * introspection. It is not part of the ABI: nothing here carries MSIM_API, so
 * libmemcgsim.so does not export it (unit/test_exports checks), memcgsim.h does
 * not include it and it is not installed. The tests, the races (scenarios/),
 * the benches and the command link the static library, where it is defined.
 */
#ifndef MEMCGSIM_INTROSPECT_H
#define MEMCGSIM_INTROSPECT_H

#include <stdbool.h>

#include <memcgsim/rstat.h>
#include <memcgsim/vmstat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rstat ---- */

/* What NMIs staged and no flush has drained yet (MEMCG_KMEM, or a slab item of nid). */
long msim_memcg_nmi_staged(struct msim_memcg *memcg, unsigned int nid,
			   enum msim_stat_item idx);

/*
 * Nodes on CPU cpu's rstat updated list (the lockless llist css_rstat_updated
 * pushes onto), or -ELOOP when the list loops (a node inserted twice), -EINVAL.
 */
int msim_rstat_updated_list_len(struct msim *m, unsigned int cpu);

enum msim_stat_array {
	MSIM_STAT_STATE = 0,  /* hierarchical */
	MSIM_STAT_LOCAL,
	MSIM_STAT_PENDING,
};
/* Raw memcg-level value of one array (native unit, may be negative). */
long msim_memcg_stat_raw(struct msim_memcg *memcg, enum msim_stat_array which,
			 enum msim_stat_item idx);
long msim_memcg_event_raw(struct msim_memcg *memcg, enum msim_stat_array which,
			  enum msim_memcg_event ev);
long msim_lruvec_stat_raw(struct msim_lruvec *lruvec, enum msim_stat_array which,
			  enum msim_stat_item idx);
/* Per-CPU state of (memcg, cpu) and its state_prev. */
long msim_memcg_state_cpu(struct msim_memcg *memcg, unsigned int cpu, enum msim_stat_item idx);
long msim_memcg_state_prev_cpu(struct msim_memcg *memcg, unsigned int cpu,
			       enum msim_stat_item idx);
/* Raw node counter (may be negative transiently). */
long msim_node_stat_raw(struct msim *m, unsigned int nid, enum msim_stat_item idx);

/*
 * Unflushed update volume of memcg's subtree as seen from memcg: for every memcg
 * of the subtree and every CPU, |state - state_prev| and |events - events_prev|
 * converted to pages, plus what sits in memcg's subtree's pending arrays, summed.
 * This is the true amount a flush of memcg would fold; compare it with
 * msim_memcg_stats_updates() (the heuristic's view). Driver context only.
 */
long msim_memcg_unflushed(struct msim_memcg *memcg);
/* True when (memcg, cpu) is on that CPU's llist or updated tree. */
bool msim_memcg_rstat_queued(struct msim_memcg *memcg, unsigned int cpu);

/* ---- vmstat ---- */

/* The node atomic, signed (may be negative). */
long msim_vmstat_node_stat_raw(struct msim *m, unsigned int nid, int item);
/* CPU cpu's diff of node nid / of zone (nid, zone). */
long msim_vmstat_node_diff(struct msim *m, unsigned int nid, unsigned int cpu, int item);
long msim_vmstat_zone_diff(struct msim *m, unsigned int nid, enum msim_zone_type zone,
			   unsigned int cpu, int item);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_H */
