/* SPDX-License-Identifier: MIT */
/*
 * write_entry.c - the stat write entry points: each finds the stats of its
 * memcg (the dying redirect first, where the variant asks) or its host's node
 * counters, and writes through write.c.
 *
 * kernel: mm/memcontrol.c mod_memcg_state(), mod_memcg_lruvec_state(),
 * mod_lruvec_state(), lruvec_stat_mod_folio(), count_memcg_events(),
 * mem_cgroup_lruvec(), reparent_state_local(); mm/vmstat.c mod_node_page_state().
 *
 * They sit above attach.c: the lookups read the subsystem attach.c defines, and
 * attach.c reaches write.c (through reparent.c), never this file. On a host
 * without rstat every write returns -EINVAL and mem_cgroup_lruvec NULL.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rstat_internal.h"

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
