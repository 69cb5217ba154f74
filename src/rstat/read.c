/* SPDX-License-Identifier: MIT */
/*
 * read.c - readers (no flush, no lock: a torn read is possible, R6) and the
 * introspection used by tests, scenarios and benches.
 *
 * kernel: mm/memcontrol.c memcg_page_state(), memcg_page_state_local(),
 * memcg_page_state_output(), memcg_events(), memcg_events_local(),
 * lruvec_page_state(), lruvec_page_state_local() (with thread 002 patch 2's
 * lruvec_use_node_stat() under root-lruvec-read=node); mm/vmstat.c
 * node_page_state().
 */
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/kmem.h>
#include <memcgsim/introspect/rstat.h>
#include <memcgsim/introspect/vmstat.h>

#include "rstat_internal.h"

static unsigned long clamp0(long x)
{
	return x < 0 ? 0 : (unsigned long)x;
}

static bool bad_item(enum msim_stat_item idx)
{
	return (unsigned int)idx >= MSIM_MEMCG_NR_STAT;
}

unsigned long msim_memcg_page_state(struct msim_memcg *memcg, enum msim_stat_item idx)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || bad_item(idx))
		return 0;
	return clamp0(msim_read_once(&ms->vmstats->state[idx]));
}

unsigned long msim_memcg_page_state_local(struct msim_memcg *memcg, enum msim_stat_item idx)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || bad_item(idx))
		return 0;
	return clamp0(msim_read_once(&ms->vmstats->state_local[idx]));
}

unsigned long msim_memcg_page_state_output(struct msim_memcg *memcg, enum msim_stat_item idx)
{
	return msim_memcg_page_state(memcg, idx) *
	       (unsigned long)msim_memcg_page_state_output_unit(idx);
}

unsigned long msim_memcg_page_state_local_output(struct msim_memcg *memcg,
						  enum msim_stat_item idx)
{
	return msim_memcg_page_state_local(memcg, idx) *
	       (unsigned long)msim_memcg_page_state_output_unit(idx);
}

unsigned long msim_memcg_events(struct msim_memcg *memcg, enum msim_memcg_event ev)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || (unsigned int)ev >= MSIM_NR_MEMCG_EVENTS)
		return 0;
	return msim_read_once_ul(&ms->vmstats->events[ev]);
}

unsigned long msim_memcg_events_local(struct msim_memcg *memcg, enum msim_memcg_event ev)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || (unsigned int)ev >= MSIM_NR_MEMCG_EVENTS)
		return 0;
	return msim_read_once_ul(&ms->vmstats->events_local[ev]);
}

/* vmstat keeps the slab items in pages; rstat's unit for them is bytes. */
static long node_pages_to_unit(enum msim_stat_item idx, long pages)
{
	return msim_vmstat_item_in_bytes((int)idx) ? pages * (long)MSIM_PAGE_SIZE : pages;
}

/*
 * kernel: node_page_state(). node-stat=percpu: vmstat's node atomic (what the
 * CPUs hold is missed, up to threshold x CPUs), clamped at 0; exact: the atomic
 * that every write reaches at once.
 */
unsigned long msim_node_page_state(struct msim *m, unsigned int nid, enum msim_stat_item idx)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (!rs || nid >= rs->nr_nodes || !msim_stat_item_is_node(idx))
		return 0;
	if (msim__node_stat_percpu(rs))
		return (unsigned long)node_pages_to_unit(
			idx, (long)msim_vmstat_node_page_state(m, nid, (int)idx));
	return clamp0(msim_read_once(&rs->node_stat[(size_t)nid * MSIM__NN + idx]));
}

/* Thread 002 patch 2: lruvec_use_node_stat(). */
static bool use_node_stat(const struct msim_lruvec *lruvec, enum msim_stat_item idx)
{
	return lruvec->ms->is_root &&
	       lruvec->ms->rs->v.root_read_node &&
	       !msim_node_stat_includes_unaccounted(idx);
}

unsigned long msim_lruvec_page_state(struct msim_lruvec *lruvec, enum msim_stat_item idx)
{
	if (!lruvec || !msim_stat_item_is_node(idx))
		return 0;
	if (!lruvec->ms || use_node_stat(lruvec, idx))
		return msim_node_page_state(lruvec->host, lruvec->nid, idx);
	return clamp0(msim_read_once(&lruvec->state[idx]));
}

unsigned long msim_lruvec_page_state_local(struct msim_lruvec *lruvec, enum msim_stat_item idx)
{
	if (!lruvec || !msim_stat_item_is_node(idx))
		return 0;
	if (!lruvec->ms)
		return msim_node_page_state(lruvec->host, lruvec->nid, idx);
	return clamp0(msim_read_once(&lruvec->state_local[idx]));
}

/* ---- introspection: raw values, no yield ---- */

long msim_memcg_stats_updates(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	return ms ? msim_quiet_load(&ms->vmstats->stats_updates.counter, MSIM_RELAXED) : 0;
}

long msim_memcg_stats_updates_cpu(struct msim_memcg *memcg, unsigned int cpu)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || cpu >= ms->rs->nr_cpus)
		return 0;
	return msim_quiet_load(&msim__pcpu(ms, cpu)->stats_updates, MSIM_RELAXED);
}

bool msim_memcg_vmstats_needs_flush(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	return ms && msim_quiet_load(&ms->vmstats->stats_updates.counter, MSIM_RELAXED) >
		     msim__threshold(ms->rs);
}

long msim_memcg_stat_raw(struct msim_memcg *memcg, enum msim_stat_array which,
			 enum msim_stat_item idx)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);
	const long *a;

	if (!ms || bad_item(idx))
		return 0;
	a = which == MSIM_STAT_LOCAL ? ms->vmstats->state_local :
	    which == MSIM_STAT_PENDING ? ms->vmstats->state_pending : ms->vmstats->state;
	return msim_quiet_load(&a[idx], MSIM_RELAXED);
}

long msim_memcg_event_raw(struct msim_memcg *memcg, enum msim_stat_array which,
			  enum msim_memcg_event ev)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);
	const unsigned long *a;

	if (!ms || (unsigned int)ev >= MSIM_NR_MEMCG_EVENTS)
		return 0;
	a = which == MSIM_STAT_LOCAL ? ms->vmstats->events_local :
	    which == MSIM_STAT_PENDING ? ms->vmstats->events_pending : ms->vmstats->events;
	return (long)msim_quiet_load(&a[ev], MSIM_RELAXED);
}

long msim_lruvec_stat_raw(struct msim_lruvec *lruvec, enum msim_stat_array which,
			  enum msim_stat_item idx)
{
	const long *a;

	if (!lruvec || !msim_stat_item_is_node(idx))
		return 0;
	if (!lruvec->ms)
		return msim_node_stat_raw(lruvec->host, lruvec->nid, idx);
	a = which == MSIM_STAT_LOCAL ? lruvec->state_local :
	    which == MSIM_STAT_PENDING ? lruvec->state_pending : lruvec->state;
	return msim_quiet_load(&a[idx], MSIM_RELAXED);
}

long msim_memcg_state_cpu(struct msim_memcg *memcg, unsigned int cpu, enum msim_stat_item idx)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || bad_item(idx) || cpu >= ms->rs->nr_cpus)
		return 0;
	return msim_quiet_load(&msim__pcpu(ms, cpu)->state[idx], MSIM_RELAXED);
}

long msim_memcg_state_prev_cpu(struct msim_memcg *memcg, unsigned int cpu,
			       enum msim_stat_item idx)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || bad_item(idx) || cpu >= ms->rs->nr_cpus)
		return 0;
	return msim_quiet_load(&msim__pcpu(ms, cpu)->state_prev[idx], MSIM_RELAXED);
}

long msim_node_stat_raw(struct msim *m, unsigned int nid, enum msim_stat_item idx)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (!rs || nid >= rs->nr_nodes || !msim_stat_item_is_node(idx))
		return 0;
	if (msim__node_stat_percpu(rs)) /* the atomic alone; the exact sum is the snapshot */
		return node_pages_to_unit(idx, msim_vmstat_node_stat_raw(m, nid, (int)idx));
	return msim_quiet_load(&rs->node_stat[(size_t)nid * MSIM__NN + idx], MSIM_RELAXED);
}

/* Unflushed volume of one memcg (its per-CPU deltas and its pending), in pages. */
static long memcg_unflushed_one(struct msim__memcg_stats *ms)
{
	long sum = 0;

	for (unsigned int cpu = 0; cpu < ms->rs->nr_cpus; cpu++) {
		struct msim__stats_pcpu *pc = msim__pcpu(ms, cpu);

		for (unsigned int i = 0; i < MSIM__NS; i++) {
			long d = msim_quiet_load(&pc->state[i], MSIM_RELAXED) - pc->state_prev[i];

			if (d) /* most per-CPU deltas are zero: no unit to look up */
				sum += labs(msim_memcg_state_val_in_pages(i, d));
		}
		for (unsigned int e = 0; e < MSIM__NE; e++) {
			unsigned long d = msim_quiet_load(&pc->events[e], MSIM_RELAXED) -
					  pc->events_prev[e];

			sum += labs((long)d);
		}
	}
	return sum;
}

static long pending_volume(struct msim__memcg_stats *ms)
{
	long sum = 0;

	for (unsigned int i = 0; i < MSIM__NS; i++)
		sum += labs(msim_memcg_state_val_in_pages(i, ms->vmstats->state_pending[i]));
	for (unsigned int e = 0; e < MSIM__NE; e++)
		sum += labs((long)ms->vmstats->events_pending[e]);
	return sum;
}

long msim_memcg_unflushed(struct msim_memcg *memcg)
{
	struct msim_memcg *pos = NULL;
	long sum = 0;

	if (!msim__memcg_stats(memcg))
		return 0;
	while ((pos = msim_mem_cgroup_iter(memcg, pos))) {
		struct msim__memcg_stats *ms = msim__memcg_stats(pos);

		if (!ms)
			continue;
		sum += memcg_unflushed_one(ms);
		/* a delta flushed below memcg waits in exactly one pending array of
		 * the subtree (memcg's own included) until it reaches memcg.state */
		sum += pending_volume(ms);
	}
	return sum;
}

long msim_memcg_flush_threshold(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	return rs ? msim__threshold(rs) : -ENODEV;
}

bool msim_memcg_rstat_queued(struct msim_memcg *memcg, unsigned int cpu)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	return ms && cpu < ms->rs->nr_cpus && msim__css_rstat_queued(&ms->css, cpu);
}

void msim_rstat_counters(struct msim *m, struct msim_rstat_counters *out)
{
	struct msim__rstat *rs = msim__rstat_peek(m);
	const uint64_t *src = rs ? (const uint64_t *)&rs->ctr : NULL;
	uint64_t *dst = (uint64_t *)out;

	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = src ? msim_quiet_load(&src[i], MSIM_RELAXED) : 0;
	for (unsigned int cpu = 0; rs && cpu < rs->nr_cpus; cpu++) {
		const struct msim__update_ctr *c = &rs->upd_ctr[cpu];

		out->updates += msim_quiet_load(&c->updates, MSIM_RELAXED);
		out->walk_breaks += msim_quiet_load(&c->walk_breaks, MSIM_RELAXED);
		out->walk_skips += msim_quiet_load(&c->walk_skips, MSIM_RELAXED);
		out->batches += msim_quiet_load(&c->batches, MSIM_RELAXED);
	}
}

void msim_rstat_counters_reset(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_peek(m);
	uint64_t *dst = rs ? (uint64_t *)&rs->ctr : NULL;

	for (size_t i = 0; dst && i < sizeof(rs->ctr) / sizeof(uint64_t); i++)
		msim_quiet_store(&dst[i], 0, MSIM_RELAXED);
	for (unsigned int cpu = 0; rs && cpu < rs->nr_cpus; cpu++) {
		struct msim__update_ctr *c = &rs->upd_ctr[cpu];

		msim_quiet_store(&c->updates, 0, MSIM_RELAXED);
		msim_quiet_store(&c->walk_breaks, 0, MSIM_RELAXED);
		msim_quiet_store(&c->walk_skips, 0, MSIM_RELAXED);
		msim_quiet_store(&c->batches, 0, MSIM_RELAXED);
	}
}
