/* SPDX-License-Identifier: MIT */
/*
 * flush.c - the memcg flush callback (what the rstat core calls for each
 * updated memcg and CPU), the gated flush of one memcg's stats, and the
 * periodic flush work.
 *
 * kernel: mm/memcontrol.c mem_cgroup_css_rstat_flush(), mem_cgroup_stat_aggregate(),
 * __mem_cgroup_flush_stats(), mem_cgroup_flush_stats_ratelimited(),
 * flush_memcg_stats_dwork().
 *
 * attach.c hands the callback and the work their state; the entry points at
 * the end look the stats up from a memcg or a host.
 */
#include <stdint.h>

#include "rstat_internal.h"

struct aggregate {
	long *aggregate;       /* hierarchical state */
	long *local;
	long *pending;
	long *ppending;        /* parent's pending, NULL at the root */
	const long *cstat;     /* this CPU's per-CPU values */
	long *cstat_prev;
	unsigned int size;
};

/*
 * kernel: mem_cgroup_stat_aggregate(). Pending child deltas are collected by the
 * first CPU visit of a flush; this CPU's delta goes to local too; the sum goes
 * to the aggregate and up into the parent's pending. Under rs->lock. No yield
 * per word: the caller's one point, rstat.flush.memcg, stands for the fold.
 */
static void stat_aggregate(const struct aggregate *ac)
{
	for (unsigned int i = 0; i < ac->size; i++) {
		long delta = ac->pending[i], delta_cpu = 0, v;

		if (delta)
			ac->pending[i] = 0;
		v = msim_quiet_load(&ac->cstat[i], MSIM_RELAXED);
		if (v != ac->cstat_prev[i]) {
			delta_cpu = v - ac->cstat_prev[i];
			delta += delta_cpu;
			ac->cstat_prev[i] = v;
		}
		if (delta_cpu)
			msim_quiet_store(&ac->local[i],
					 msim_quiet_load(&ac->local[i], MSIM_RELAXED) + delta_cpu,
					 MSIM_RELAXED);
		if (delta) {
			msim_quiet_store(&ac->aggregate[i],
					 msim_quiet_load(&ac->aggregate[i], MSIM_RELAXED) + delta,
					 MSIM_RELAXED);
			if (ac->ppending)
				ac->ppending[i] += delta;
		}
	}
}

static void aggregate_lruvecs(struct msim__memcg_stats *ms, unsigned int cpu)
{
	for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++) {
		struct msim_lruvec *lv = &ms->lruvec[nid];
		struct msim__lruvec_pcpu *lc = msim_per_cpu_ptr(lv->pcpu, cpu);
		struct aggregate ac = {
			.aggregate = lv->state,
			.local = lv->state_local,
			.pending = lv->state_pending,
			.ppending = ms->parent ? ms->parent->lruvec[nid].state_pending : NULL,
			.cstat = lc->state,
			.cstat_prev = lc->state_prev,
			.size = MSIM__NN,
		};

		stat_aggregate(&ac);
	}
}

/* A range of bytes from field start up to (not including) field end. */
#define NOTE_SPAN(start, end) \
	msim_access_note((start), (unsigned long)((const char *)(end) - (const char *)(start)), \
			 MSIM_ACCESS_RMW)

/*
 * What the fold below touches, for partial-order reduction (yield.h): cpu's
 * per-CPU counters of ms (read; prev written), ms's aggregates, and the
 * parent's pending arrays, per node too. The fold runs under the rstat lock
 * (every flusher's folds are ordered by it); these ranges are what updaters
 * (this_cpu_add into cpu's slots) and readers (READ_ONCE of an aggregate)
 * touch without it, so the fold conflicts only with those of this CPU and
 * memcg. Noted in the step that folds, whichever point began it.
 */
static void note_fold(struct msim__memcg_stats *ms, unsigned int cpu)
{
	struct msim__stats_pcpu *statc = msim__pcpu(ms, cpu);
	struct msim__vmstats *vs = ms->vmstats, *pvs = ms->parent ? ms->parent->vmstats : NULL;

	NOTE_SPAN(statc->state, statc + 1);
	NOTE_SPAN(vs->state, &vs->stats_updates);
	if (pvs) {
		NOTE_SPAN(pvs->state_pending, pvs->state_pending + MSIM__NS);
		NOTE_SPAN(pvs->events_pending, pvs->events_pending + MSIM__NE);
	}
	for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++) {
		struct msim_lruvec *lv = &ms->lruvec[nid];
		struct msim__lruvec_pcpu *lc = msim_per_cpu_ptr(lv->pcpu, cpu);

		NOTE_SPAN(lv->state, &lv->nmi_slab);
		NOTE_SPAN(lc, lc + 1);
		if (ms->parent)
			NOTE_SPAN(ms->parent->lruvec[nid].state_pending,
				  ms->parent->lruvec[nid].state_pending + MSIM__NN);
	}
}

/*
 * kernel: mem_cgroup_css_rstat_flush(css, cpu), ss->css_rstat_flush of the
 * memory controller, called by the core under rstat_ss_lock: fold, then
 * the remote per-CPU reset (a plain store into cpu's slot: R1), then the
 * read-then-set of the atomic (R2; repeated at every CPU visit that finds it
 * non-zero: R3).
 */
void msim__memcg_rstat_flush_cpu(struct msim__rstat_css *css, unsigned int cpu)
{
	struct msim__memcg_stats *ms = msim__css_stats(css);
	struct msim__rstat *rs = ms->rs;
	struct msim__stats_pcpu *statc = msim__pcpu(ms, cpu);
	struct msim__vmstats *vs = ms->vmstats, *pvs = ms->parent ? ms->parent->vmstats : NULL;
	struct aggregate ac = {
		.aggregate = vs->state,
		.local = vs->state_local,
		.pending = vs->state_pending,
		.ppending = pvs ? pvs->state_pending : NULL,
		.cstat = statc->state,
		.cstat_prev = statc->state_prev,
		.size = MSIM__NS,
	};
	struct aggregate ev = {
		.aggregate = (long *)vs->events,
		.local = (long *)vs->events_local,
		.pending = (long *)vs->events_pending,
		.ppending = pvs ? (long *)pvs->events_pending : NULL,
		.cstat = (const long *)statc->events,
		.cstat_prev = (long *)statc->events_prev,
		.size = MSIM__NE,
	};
	struct msim_yield_ctx yc = { .object = ms->memcg, .cpu = (int)cpu, .nid = -1 };
	const struct msim_yield_ctx *prev = msim_yield_ctx_enter(&yc);

	/* One yield for the whole fold (simplification: the kernel reads each
	 * per-CPU word with READ_ONCE; item-level interleaving adds nothing the
	 * races R1-R10 of docs/races.md need). */
	msim_yield_access("rstat.flush.memcg", NULL, MSIM_ACCESS_NONE); /* note_fold says */
	MSIM__CTR(rs, memcg_flushes);
	msim__flush_nmi_stats(ms);  /* nmi-stats=atomic only: the staged NMI deltas first */
	note_fold(ms, cpu);
	stat_aggregate(&ac);
	stat_aggregate(&ev);
	aggregate_lruvecs(ms, cpu);

	msim_write_once_at(&statc->stats_updates, 0, "rstat.flush.reset_percpu");
	if (msim_atomic_long_read_at(&vs->stats_updates, "rstat.flush.atomic_read")) {
		msim_atomic_long_set_at(&vs->stats_updates, 0, "rstat.flush.atomic_set");
		MSIM__CTR(rs, atomic_resets);
	}
	msim_yield_ctx_leave(prev);
}

/* kernel: memcg_vmstats_needs_flush(): the atomic, strictly above the threshold. */
static bool needs_flush(struct msim__memcg_stats *ms, const char *point)
{
	return msim_atomic_long_read_at(&ms->vmstats->stats_updates, point) >
	       msim__threshold(ms->rs);
}

/*
 * kernel: __mem_cgroup_flush_stats(memcg, force): only this memcg's own atomic
 * gates the flush; a root flush publishes flush_last_time before flushing (R7).
 */
bool msim__flush_stats(struct msim__memcg_stats *ms, bool force)
{
	struct msim__rstat *rs = ms->rs;

	if (!needs_flush(ms, "rstat.flush.gate") && !force) {
		MSIM__CTR(rs, flush_skipped);
		return false;
	}
	if (force)
		MSIM__CTR(rs, forced_flushes);
	if (ms->is_root)
		msim_write_once_at((long *)&rs->flush_last_time, (long)msim_jiffies(rs->m),
				   "rstat.flush.last_time");
	msim__memcg_stats_flush(ms);
	return true;
}

/*
 * kernel: mem_cgroup_flush_stats_ratelimited(): flush (still threshold-gated)
 * only if the periodic flusher is a whole cycle late: now > last + 2*FLUSH_TIME.
 */
bool msim__flush_stats_ratelimited(struct msim__memcg_stats *ms)
{
	struct msim__rstat *rs = ms->rs;
	uint64_t last;

	last = (uint64_t)msim_read_once_at((long *)&rs->flush_last_time, "rstat.flush.ratelimit");
	if (msim_jiffies(rs->m) > last + 2 * rs->params.flush_time)
		return msim__flush_stats(ms, false);
	MSIM__CTR(rs, ratelimit_skipped);
	return false;
}

/* kernel: flush_memcg_stats_dwork(): a forced root flush. */
void msim__rstat_dwork_run(struct msim__rstat *rs)
{
	MSIM__CTR(rs, periodic_flushes);
	msim_set_current_host(rs->m);
	msim__flush_stats(rs->root_ms, true);
}

/* ... re-queued every FLUSH_TIME while the periodic flush is on. */
static void dwork_fn(struct msim_delayed_work *dw)
{
	struct msim__rstat *rs = dw->data;

	msim__rstat_dwork_run(rs);
	if (rs->periodic)
		msim_queue_delayed_work(rs->m, &rs->dwork, rs->params.flush_time);
}

void msim__rstat_dwork_init(struct msim__rstat *rs)
{
	msim_init_delayed_work(&rs->dwork, dwork_fn, rs);
	rs->dwork.deferrable = true; /* R9: recorded only */
	if (rs->periodic)
		msim_queue_delayed_work(rs->m, &rs->dwork, rs->params.flush_time);
}

void msim__rstat_periodic_flush(struct msim__rstat *rs, bool on)
{
	rs->periodic = on;
	if (on)
		msim_queue_delayed_work(rs->m, &rs->dwork, rs->params.flush_time);
	else
		msim_cancel_delayed_work(rs->m, &rs->dwork);
}

/*
 * ---- the flush entry points ----
 * Each finds the stats of its memcg (or of its host's root, for a NULL memcg)
 * and flushes through the functions above. kernel: mm/memcontrol.c
 * mem_cgroup_flush_stats(), mem_cgroup_flush_stats_ratelimited(),
 * css_rstat_flush() (kernel/cgroup/rstat.c), the periodic flush switch and
 * flush_last_time. On a host without rstat every flush does nothing and
 * returns false.
 */

static struct msim__memcg_stats *target_of(struct msim_memcg *memcg)
{
	if (!memcg) {
		struct msim__rstat *rs = msim__rstat_peek(msim_current_host());

		return rs ? rs->root_ms : NULL;
	}
	return msim__memcg_stats(memcg);
}

bool msim_do_mem_cgroup_flush_stats(struct msim_memcg *memcg, bool force)
{
	struct msim__memcg_stats *ms = target_of(memcg);

	return ms ? msim__flush_stats(ms, force) : false;
}

bool msim_mem_cgroup_flush_stats(struct msim_memcg *memcg)
{
	return msim_do_mem_cgroup_flush_stats(memcg, false);
}

bool msim_mem_cgroup_flush_stats_forced(struct msim_memcg *memcg)
{
	return msim_do_mem_cgroup_flush_stats(memcg, true);
}

bool msim_mem_cgroup_flush_stats_ratelimited(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = target_of(memcg);

	return ms ? msim__flush_stats_ratelimited(ms) : false;
}

/* kernel: css_rstat_flush(): unconditional, no flush_last_time update. */
void msim_css_rstat_flush(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = target_of(memcg);

	if (ms)
		msim__memcg_stats_flush(ms);
}

void msim_flush_memcg_stats_dwork(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (rs)
		msim__rstat_dwork_run(rs);
}

void msim_rstat_periodic_flush_enable(struct msim *m, bool on)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (rs)
		msim__rstat_periodic_flush(rs, on);
}

uint64_t msim_rstat_flush_last_time(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	return rs ? (uint64_t)msim_quiet_load(&rs->flush_last_time, MSIM_RELAXED) : 0;
}
