/* SPDX-License-Identifier: MIT */
/*
 * write.c - the stat write paths: memcg_rstat_updated() and the per-CPU writes
 * on a memcg's stats (reparent.c writes through them), then the entry points
 * that find those stats from a memcg, a lruvec or a node.
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
 * The update's shim operations, each in two forms chosen at compile time:
 * plain, for an update that runs outside any deterministic task (concurrent
 * mode, a driver), where every yield point and weak-memory check of the shim
 * is a branch not taken, so the plain form is the shim's own builtin with the
 * same memory order and nothing else; and the shim itself otherwise. The walk
 * below is written once over them (rstat_updated_walk) and compiled twice, so
 * both forms do the same accesses in the same order.
 */
#define UPD_ALWAYS_INLINE static inline __attribute__((always_inline))

UPD_ALWAYS_INLINE long upd_level_read(const msim_atomic_long_t *a, bool plain)
{
	if (plain)
		return msim_quiet_load(&a->counter, MSIM_RELAXED);
	return msim_atomic_long_read_at(a, "rstat.update.level");
}

UPD_ALWAYS_INLINE void upd_level_add(msim_atomic_long_t *a, long n, bool plain)
{
	/* atomic_add(), kept sequentially consistent as the model always had it */
	if (plain)
		msim_quiet_fetch_add(&a->counter, n, MSIM_SEQ_CST);
	else
		msim_fetch_add_at(&a->counter, n, MSIM_SEQ_CST, "rstat.update.atomic_add");
}

/* this_cpu_add_return(statc->stats_updates, v) */
UPD_ALWAYS_INLINE long upd_pcpu_add_return(long *slot, long v, bool plain)
{
	long n;

	if (!plain)
		return msim_this_cpu_add_return(slot, v);
	/* wraps, as the kernel's per-CPU add does (static/percpu.h) */
	n = (long)((unsigned long)msim_quiet_load(slot, MSIM_RELAXED) + (unsigned long)v);
	msim_quiet_store(slot, n, MSIM_RELAXED);
	return n;
}

/* The per-CPU count's reset (a this_cpu store). */
UPD_ALWAYS_INLINE void upd_pcpu_zero(long *slot, bool plain)
{
	if (plain)
		msim_quiet_store(slot, 0, MSIM_RELAXED);
	else
		msim_write_once_at(slot, 0, "this_cpu_rmw.store");
}

/*
 * this_cpu_xchg(statc->stats_updates, 0): a load and a store with a window
 * between them (a remote reset there is lost, R1).
 */
UPD_ALWAYS_INLINE long pcpu_xchg_zero(long *slot, bool plain)
{
	long old = plain ? msim_quiet_load(slot, MSIM_RELAXED)
			 : msim_read_once_at(slot, "rstat.update.batch_push");

	upd_pcpu_zero(slot, plain);
	return old;
}

/*
 * Linux 6.12's level step: this CPU's count grows by |val| at every level; at the
 * batch the level's atomic takes it only if the level is not flushable ("adding
 * to a flushable level is redundant"), and the count is reset either way.
 */
UPD_ALWAYS_INLINE void skip_atomic_level(struct msim__rstat *rs, struct msim__stats_pcpu *statc,
					 struct msim__vmstats *vs, long threshold, long absval,
					 unsigned int cpu, bool plain)
{
	long n = upd_pcpu_add_return(&statc->stats_updates, absval, plain);

	if (n < rs->params.charge_batch)
		return;
	if (upd_level_read(&vs->stats_updates, plain) <= threshold) {
		upd_level_add(&vs->stats_updates, n, plain);
		MSIM__CTR_CPU(rs, cpu, batches);
	} else {
		MSIM__CTR_CPU(rs, cpu, walk_skips);
	}
	upd_pcpu_zero(&statc->stats_updates, plain);
}

/*
 * kernel: memcg_rstat_updated(memcg, val, cpu), from the enqueue on: the walk
 * (msim__memcg_rstat_updated says what it does). yc is the update's yield
 * context, entered by the caller; NULL when plain (no task can be parked in it).
 */
UPD_ALWAYS_INLINE void rstat_updated_walk(struct msim__memcg_stats *ms, long val,
					  unsigned int cpu, struct msim_yield_ctx *yc,
					  bool plain)
{
	struct msim__rstat *rs = ms->rs;
	const enum msim_rstat_propagate mode = rs->v.propagate;
	const long threshold = msim__threshold(rs);
	struct msim__memcg_stats *level;

	MSIM__CTR_CPU(rs, cpu, updates);
	msim__css_rstat_updated(&ms->css, cpu);

	/* kernel: for (; statc; statc = statc->parent_pcpu), the same levels (stats.c) */
	for (level = ms; level; level = level->parent) {
		struct msim__stats_pcpu *statc = msim__pcpu(level, cpu);
		struct msim__vmstats *vs = level->vmstats;
		long n;

		if (!plain)
			yc->object = level->memcg;  /* the level walked */
		if (mode == MSIM_RSTAT_PROPAGATE_SKIP_ATOMIC) {
			skip_atomic_level(rs, statc, vs, threshold, msim__abs_delta(val), cpu,
					  plain);
			continue;
		}
		/* memcg_vmstats_needs_flush(): "flushable, so its ancestors are too" */
		if (upd_level_read(&vs->stats_updates, plain) > threshold) {
			if (mode == MSIM_RSTAT_PROPAGATE_BREAK) {
				MSIM__CTR_CPU(rs, cpu, walk_breaks);
				break;
			}
			MSIM__CTR_CPU(rs, cpu, walk_skips);
			continue;
		}
		n = upd_pcpu_add_return(&statc->stats_updates, msim__abs_delta(val), plain);
		if (n < rs->params.charge_batch)
			continue;
		n = pcpu_xchg_zero(&statc->stats_updates, plain);
		upd_level_add(&vs->stats_updates, n, plain);
		MSIM__CTR_CPU(rs, cpu, batches);
	}
	if (!plain)
		yc->object = ms->memcg;
}

/*
 * kernel: memcg_rstat_updated(memcg, val, cpu). val is in pages (the heuristic
 * unit). 1: val 0 does nothing. 2: enqueue. 3: for each level from memcg to the
 * root: stop (break) or skip (continue, thread 004) at a level whose atomic is
 * above the threshold; else add |val| to this CPU's count and, once it reaches
 * the batch, move the whole count into the level's atomic. skip-atomic (6.12):
 * skip_atomic_level() at every level.
 *
 * Where neither flag is set (msim_yield_det_active: a deterministic task runs,
 * or a recorded RCU callback of DPOR's, access.c; msim_wmm_active: a store
 * buffer is on) no yield point parks and no store waits, so the walk runs in
 * its plain form, with no yield context published: no one can ask where a task
 * is parked. The test is of the flags, not of a running task: a callback
 * DPOR records runs with no task and must take the shims' form.
 * Inline in the write paths below (one frame for the write and the walk);
 * msim__memcg_rstat_updated is the same for the other callers.
 */
UPD_ALWAYS_INLINE void rstat_updated(struct msim__memcg_stats *ms, long val, unsigned int cpu);

/* The walk in a deterministic task: its yield points park, its context is published. */
static __attribute__((noinline)) void rstat_updated_in_task(struct msim__memcg_stats *ms,
							    long val, unsigned int cpu)
{
	struct msim_yield_ctx yc = { .object = ms->memcg, .cpu = (int)cpu, .nid = -1 };
	const struct msim_yield_ctx *prev = msim_yield_ctx_enter(&yc);

	rstat_updated_walk(ms, val, cpu, &yc, false);
	/* the caller's next shared access is a shim's (yield.h) */
	msim_yield_access("rstat.update.done", NULL, MSIM_ACCESS_NONE);
	msim_yield_ctx_leave(prev);
}

UPD_ALWAYS_INLINE void rstat_updated(struct msim__memcg_stats *ms, long val, unsigned int cpu)
{
	if (!val)
		return;
	if (__builtin_expect(msim_yield_det_active | msim_wmm_active, 0))
		rstat_updated_in_task(ms, val, cpu);
	else
		rstat_updated_walk(ms, val, cpu, NULL, true);
}

void msim__memcg_rstat_updated(struct msim__memcg_stats *ms, long val, unsigned int cpu)
{
	rstat_updated(ms, val, cpu);
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
	rstat_updated(ms, msim__state_val_in_pages(idx, val), cpu);
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
	rstat_updated(ms, msim__state_val_in_pages(idx, val), cpu);
	return 0;
}

/* kernel: count_memcg_events(): no unit conversion, no dying redirect. */
int msim__count_memcg_events(struct msim__memcg_stats *ms, enum msim_memcg_event ev,
			     long count)
{
	unsigned int cpu = msim_this_cpu();

	state_add((long *)&msim__pcpu(ms, cpu)->events[ev], NULL, count);
	rstat_updated(ms, count, cpu);
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

/*
 * ---- the write entry points ----
 * Each finds the stats of its memcg (the dying redirect first, where the
 * variant asks) or its host's node counters, and writes through the functions
 * above. kernel: mm/memcontrol.c mod_memcg_state(), mod_memcg_lruvec_state(),
 * mod_lruvec_state(), lruvec_stat_mod_folio(), count_memcg_events(),
 * mem_cgroup_lruvec(), reparent_state_local(); mm/vmstat.c mod_node_page_state().
 * On a host without rstat every write returns -EINVAL and mem_cgroup_lruvec NULL.
 */

static bool bad_item(enum msim_stat_item idx)
{
	return (unsigned int)idx >= MSIM_MEMCG_NR_STAT;
}

void msim_memcg_rstat_updated(struct msim_memcg *memcg, long val, unsigned int cpu)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (!ms || cpu >= ms->rs->nr_cpus)
		return;
	msim__memcg_rstat_updated(ms, val, cpu);
}

void msim_css_rstat_updated(struct msim_memcg *memcg, unsigned int cpu)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (ms && cpu < ms->rs->nr_cpus)
		msim__css_rstat_updated(&ms->css, cpu);
}

int msim_mod_memcg_state_no_redirect(struct msim_memcg *memcg, enum msim_stat_item idx, long val)
{
	struct msim__memcg_stats *ms;

	if (bad_item(idx) || !(ms = msim__memcg_stats(memcg)))
		return -EINVAL;
	return msim__mod_memcg_state(ms, idx, val);
}

/* kernel: mod_memcg_state(): the dying redirect, then __mod_memcg_state(). */
int msim_mod_memcg_state(struct msim_memcg *memcg, enum msim_stat_item idx, long val)
{
	struct msim_memcg *target;
	struct msim__memcg_stats *ms;
	bool locked;
	int ret = -EINVAL;

	if (bad_item(idx) || !msim__memcg_stats(memcg))
		return -EINVAL;
	target = msim_get_non_dying_memcg_start(memcg, &locked);
	ms = msim__memcg_stats(target);
	if (ms)
		ret = msim__mod_memcg_state(ms, idx, val);
	msim_get_non_dying_memcg_end(locked);
	return ret;
}

/* kernel: mod_memcg_lruvec_state(): the dying redirect, pn re-derived for the target. */
int msim_mod_memcg_lruvec_state(struct msim_lruvec *lruvec, enum msim_stat_item idx, long val)
{
	struct msim_memcg *target;
	struct msim__memcg_stats *ms;
	bool locked;
	int ret = -EINVAL;

	if (!lruvec || !lruvec->ms || !msim_stat_item_is_node(idx) || !lruvec->ms->memcg)
		return -EINVAL;
	target = msim_get_non_dying_memcg_start(lruvec->ms->memcg, &locked);
	ms = msim__memcg_stats(target);
	if (ms)
		ret = msim__mod_memcg_lruvec_state(ms, lruvec->nid, idx, val);
	msim_get_non_dying_memcg_end(locked);
	return ret;
}

/*
 * The node counter write. node-stat=exact (the default, the model's old
 * simplification): one exact atomic per (node, item), so node reads are exact.
 * node-stat=percpu (the kernel): vmstat, in the form the caller's context has:
 * irqoff for __mod_lruvec_state() -> __mod_node_page_state(), the cmpxchg form
 * for mod_node_page_state(). vmstat keeps the slab items in pages and refuses a
 * byte delta that is not whole pages (-EINVAL): per-object slab bytes belong to
 * msim_mod_memcg_lruvec_state() alone, as in the kernel's mod_objcg_state().
 */
static int node_stat_mod(struct msim__rstat *rs, unsigned int nid, enum msim_stat_item idx,
			 long val, bool irqoff)
{
	if (msim__node_stat_percpu(rs))
		return irqoff ? msim_vmstat_mod_node_page_state_irqoff(rs->m, nid, (int)idx, val) :
				msim_vmstat_mod_node_page_state(rs->m, nid, (int)idx, val);
	msim_fetch_add_at(&rs->node_stat[(size_t)nid * MSIM__NN + idx], val, MSIM_RELAXED,
			  "rstat.node_stat");
	return 0;
}

static struct msim__rstat *node_stat_host(struct msim *m, unsigned int nid,
					  enum msim_stat_item idx)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	return rs && nid < rs->nr_nodes && msim_stat_item_is_node(idx) ? rs : NULL;
}

/* kernel: mod_node_page_state(). */
int msim_mod_node_page_state(struct msim *m, unsigned int nid, enum msim_stat_item idx, long val)
{
	struct msim__rstat *rs = node_stat_host(m, nid, idx);

	return rs ? node_stat_mod(rs, nid, idx, val, false) : -EINVAL;
}

/* kernel: mod_lruvec_state(): irqs off; the node counter always, the memcg part if any. */
int msim_mod_lruvec_state(struct msim_lruvec *lruvec, enum msim_stat_item idx, long val)
{
	struct msim__rstat *rs;
	int ret;

	if (!lruvec || !(rs = node_stat_host(lruvec->host, lruvec->nid, idx)))
		return -EINVAL;
	ret = node_stat_mod(rs, lruvec->nid, idx, val, true);
	if (ret || !lruvec->ms)
		return ret;
	return msim_mod_memcg_lruvec_state(lruvec, idx, val);
}

/* kernel: lruvec_stat_mod_folio(): under RCU; no memcg means the node only. */
int msim_lruvec_stat_mod_page(struct msim *m, struct msim_memcg *memcg, unsigned int nid,
			      enum msim_stat_item idx, long val)
{
	struct msim_lruvec *lruvec;
	int ret;

	if (!m || nid >= msim_nr_nodes(m) || !msim_stat_item_is_node(idx))
		return -EINVAL;
	msim_rcu_read_lock();
	lruvec = memcg ? msim_mem_cgroup_lruvec(m, memcg, nid) : msim_node_lruvec(m, nid);
	ret = lruvec ? msim_mod_lruvec_state(lruvec, idx, val) : -EINVAL;
	msim_rcu_read_unlock();
	return ret;
}

/* kernel: count_memcg_events(): no unit conversion, no dying redirect. */
int msim_count_memcg_events(struct msim_memcg *memcg, enum msim_memcg_event ev, long count)
{
	struct msim__memcg_stats *ms;

	if ((unsigned int)ev >= MSIM_NR_MEMCG_EVENTS || !(ms = msim__memcg_stats(memcg)))
		return -EINVAL;
	return msim__count_memcg_events(ms, ev, count);
}

/* kernel: mem_cgroup_lruvec(memcg, pgdat): a NULL memcg means the root memcg's. */
struct msim_lruvec *msim_mem_cgroup_lruvec(struct msim *m, struct msim_memcg *memcg,
					   unsigned int nid)
{
	struct msim__rstat *rs = msim__rstat_peek(m);
	struct msim__memcg_stats *ms;

	if (!rs || nid >= rs->nr_nodes)
		return NULL;
	if (!memcg)
		memcg = msim_root_mem_cgroup(m);
	ms = msim__memcg_stats(memcg);
	return ms ? &ms->lruvec[nid] : NULL;
}

/* kernel: &pgdat->__lruvec, the memcg-less lruvec of a node: updates reach the node only. */
struct msim_lruvec *msim_node_lruvec(struct msim *m, unsigned int nid)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	return rs && nid < rs->nr_nodes ? &rs->node_lruvec[nid] : NULL;
}

void msim_memcg_reparent_state_local(struct msim_memcg *memcg)
{
	struct msim__memcg_stats *ms = msim__memcg_stats(memcg);

	if (ms)
		msim__reparent_state_local(ms);
}
