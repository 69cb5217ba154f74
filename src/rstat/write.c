/* SPDX-License-Identifier: MIT */
/*
 * write.c - memcg_rstat_updated() and the per-CPU writes of the stat write
 * paths, on a memcg's stats (the entry points that find them, with the dying
 * redirect, are write_entry.c's: reparent.c, which attach.c calls, writes
 * through this file, so it never looks anything up).
 *
 * kernel: mm/memcontrol.c __mod_memcg_state(), __mod_memcg_lruvec_state(),
 * count_memcg_events()'s write, memcg_rstat_updated().
 *
 * Order (the kernel's; docs/rstat.md), each step its own yield point: the
 * per-CPU write; the rstat enqueue; the walk up with 64-batching and the
 * threshold test.
 * Under a weak memory model (sim.h) the per-CPU state write waits in the CPU's
 * store buffer like every shim store (static/percpu.h), until the enqueue's
 * claim (a locked cmpxchg) or an explorer's drain: R5.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rstat_internal.h"

/*
 * this_cpu_xchg(statc->stats_updates, 0): a load and a store with a window
 * between them (a remote reset there is lost, R1).
 */
static long pcpu_xchg_zero(long *slot)
{
	long old = msim_read_once_at(slot, "rstat.update.batch_push");

	msim_write_once_at(slot, 0, "this_cpu_rmw.store");
	return old;
}

/*
 * Linux 6.12's level step: this CPU's count grows by |val| at every level; at the
 * batch the level's atomic takes it only if the level is not flushable ("adding
 * to a flushable level is redundant"), and the count is reset either way.
 */
static void skip_atomic_level(struct msim__rstat *rs, struct msim__stats_pcpu *statc,
			      struct msim__vmstats *vs, long threshold, long absval,
			      unsigned int cpu)
{
	long n = msim_this_cpu_add_return(&statc->stats_updates, absval);

	if (n < rs->params.charge_batch)
		return;
	if (msim_atomic_long_read_at(&vs->stats_updates, "rstat.update.level") <= threshold) {
		msim_fetch_add_at(&vs->stats_updates.counter, n, MSIM_SEQ_CST,
				  "rstat.update.atomic_add");
		MSIM__CTR_CPU(rs, cpu, batches);
	} else {
		MSIM__CTR_CPU(rs, cpu, walk_skips);
	}
	msim_write_once_at(&statc->stats_updates, 0, "this_cpu_rmw.store");
}

/*
 * kernel: memcg_rstat_updated(memcg, val, cpu). val is in pages (the heuristic
 * unit). 1: val 0 does nothing. 2: enqueue. 3: for each level from memcg to the
 * root: stop (break) or skip (continue, thread 004) at a level whose atomic is
 * above the threshold; else add |val| to this CPU's count and, once it reaches
 * the batch, move the whole count into the level's atomic. skip-atomic (6.12):
 * skip_atomic_level() at every level.
 */
void msim__memcg_rstat_updated(struct msim__memcg_stats *ms, long val, unsigned int cpu)
{
	struct msim__rstat *rs = ms->rs;
	const enum msim_rstat_propagate mode = msim_config(rs->m)->variants.rstat_propagate;
	const long threshold = msim__threshold(rs);
	struct msim__memcg_stats *level;

	if (!val)
		return;
	struct msim_yield_ctx yc = { .object = ms->memcg, .cpu = (int)cpu, .nid = -1 };
	const struct msim_yield_ctx *prev = msim_yield_ctx_enter(&yc);

	MSIM__CTR_CPU(rs, cpu, updates);
	msim__css_rstat_updated(&ms->css, cpu);

	/* kernel: for (; statc; statc = statc->parent_pcpu), the same levels (stats.c) */
	for (level = ms; level; level = level->parent) {
		struct msim__stats_pcpu *statc = msim__pcpu(level, cpu);
		struct msim__vmstats *vs = level->vmstats;
		long n;

		yc.object = level->memcg;          /* the level walked */
		if (mode == MSIM_RSTAT_PROPAGATE_SKIP_ATOMIC) {
			skip_atomic_level(rs, statc, vs, threshold, msim__abs_delta(val), cpu);
			continue;
		}
		/* memcg_vmstats_needs_flush(): "flushable, so its ancestors are too" */
		if (msim_atomic_long_read_at(&vs->stats_updates, "rstat.update.level") >
		    threshold) {
			if (mode == MSIM_RSTAT_PROPAGATE_BREAK) {
				MSIM__CTR_CPU(rs, cpu, walk_breaks);
				break;
			}
			MSIM__CTR_CPU(rs, cpu, walk_skips);
			continue;
		}
		n = msim_this_cpu_add_return(&statc->stats_updates, msim__abs_delta(val));
		if (n < rs->params.charge_batch)
			continue;
		n = pcpu_xchg_zero(&statc->stats_updates);
		/* atomic_add(), kept sequentially consistent as the model always had it */
		msim_fetch_add_at(&vs->stats_updates.counter, n, MSIM_SEQ_CST,
				  "rstat.update.atomic_add");
		MSIM__CTR_CPU(rs, cpu, batches);
	}
	yc.object = ms->memcg;
	/* the caller's next shared access is a shim's (yield.h) */
	msim_yield_access("rstat.update.done", NULL, MSIM_ACCESS_NONE);
	msim_yield_ctx_leave(prev);
}

/* this_cpu_add of a write path: under a weak memory model it is buffered (R5). */
static void state_add(long *slot, long *slot2, long val)
{
	msim_this_cpu_add(slot, val);
	if (slot2)
		msim_this_cpu_add(slot2, val);
}

/* kernel: __mod_memcg_state(): this_cpu_add, then memcg_rstat_updated in pages. */
int msim__mod_memcg_state(struct msim__memcg_stats *ms, enum msim_stat_item idx, long val)
{
	unsigned int cpu = msim_this_cpu();
	struct msim__stats_pcpu *pc = msim__pcpu(ms, cpu);

	state_add(&pc->state[idx], NULL, val);
	msim__memcg_rstat_updated(ms, msim_memcg_state_val_in_pages(idx, val), cpu);
	return 0;
}

/*
 * kernel: __mod_memcg_lruvec_state(pn, idx, val): the same index into the memcg
 * and the lruvec per-CPU arrays (node items come first), one rstat update.
 */
int msim__mod_memcg_lruvec_state(struct msim__memcg_stats *ms, unsigned int nid,
				 enum msim_stat_item idx, long val)
{
	unsigned int cpu = msim_this_cpu();
	struct msim__stats_pcpu *pc = msim__pcpu(ms, cpu);
	struct msim__lruvec_pcpu *lc = msim_per_cpu_ptr(ms->lruvec[nid].pcpu, cpu);

	state_add(&pc->state[idx], &lc->state[idx], val);
	msim__memcg_rstat_updated(ms, msim_memcg_state_val_in_pages(idx, val), cpu);
	return 0;
}

/* kernel: count_memcg_events(): no unit conversion, no dying redirect. */
int msim__count_memcg_events(struct msim__memcg_stats *ms, enum msim_memcg_event ev,
			     long count)
{
	unsigned int cpu = msim_this_cpu();

	state_add((long *)&msim__pcpu(ms, cpu)->events[ev], NULL, count);
	msim__memcg_rstat_updated(ms, count, cpu);
	return 0;
}

struct msim_memcg *msim_lruvec_memcg(const struct msim_lruvec *lruvec)
{
	return lruvec && lruvec->ms ? lruvec->ms->memcg : NULL;
}

unsigned int msim_lruvec_nid(const struct msim_lruvec *lruvec)
{
	return lruvec ? lruvec->nid : 0;
}
