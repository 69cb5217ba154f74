/* SPDX-License-Identifier: MIT */
/*
 * introspect/rstat.h - what tests and scenarios read of the memcg statistics'
 * insides (rstat.h): raw per-CPU and per-array values, the rstat updated lists,
 * what NMIs staged. No yield point, no clamping, no kernel counterpart.
 * Not exported, not installed (introspect.h says why).
 */
#ifndef MEMCGSIM_INTROSPECT_RSTAT_H
#define MEMCGSIM_INTROSPECT_RSTAT_H

#include <stdbool.h>

#include <memcgsim/rstat.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_RSTAT_H */
