/* SPDX-License-Identifier: MIT */
/*
 * read.c - reading node and zone counters.
 *
 * kernel: mm/vmstat.c node_page_state_pages(); include/linux/vmstat.h
 * global_node_page_state_pages(), zone_page_state(), zone_page_state_snapshot(),
 * global_zone_page_state(), and node_page_state_snapshot() (the node twin of
 * zone_page_state_snapshot() that kernels since 4.8 had for pgdat reads).
 *
 * A plain read sees the atomic alone: up to stat_threshold x nr_cpus behind the
 * truth, and clamped at 0 because the atomic may be negative while the truth is
 * not (SMP kernels clamp). A snapshot adds the CPUs' diffs with no
 * synchronisation: exact on a quiescent host, and off by an update in flight
 * otherwise (update.c says which way each form errs).
 */

#include "vmstat_internal.h"

static unsigned long clamp0(long x)
{
	return x < 0 ? 0 : (unsigned long)x;
}

static struct msim__vmstat_set *node_set(struct msim *m, unsigned int nid, int item)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs || nid >= vs->nr_nodes || item < 0 || item >= MSIM_NR_VM_NODE_STAT_ITEMS)
		return NULL;
	return &vs->nodes[nid].set;
}

static struct msim__vmstat_set *zone_set(struct msim *m, unsigned int nid,
					 enum msim_zone_type zone, int item)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs || nid >= vs->nr_nodes || (unsigned int)zone >= MSIM_MAX_NR_ZONES ||
	    item < 0 || item >= MSIM_NR_VM_ZONE_STAT_ITEMS || !vs->nodes[nid].zones[zone].set.pcp)
		return NULL;
	return &vs->nodes[nid].zones[zone].set;
}

/* The atomic plus every online CPU's diff, read in the kernel's order. */
static long snapshot(struct msim *m, const struct msim__vmstat_set *set, int item)
{
	long x = msim_atomic_long_read_at(&set->vm_stat[item], "vmstat.read");

	for (unsigned int cpu = 0; cpu < msim_num_online_cpus(m); cpu++)
		x += msim_load_at(&msim__vmstat_pcp(set, cpu)->diff[item], MSIM_RELAXED,
				  "vmstat.snapshot.diff");
	return x;
}

unsigned long msim_vmstat_node_page_state(struct msim *m, unsigned int nid, int item)
{
	struct msim__vmstat_set *set = node_set(m, nid, item);

	return set ? clamp0(msim_atomic_long_read_at(&set->vm_stat[item], "vmstat.read")) : 0;
}

unsigned long msim_vmstat_node_page_state_snapshot(struct msim *m, unsigned int nid, int item)
{
	struct msim__vmstat_set *set = node_set(m, nid, item);

	return set ? clamp0(snapshot(m, set, item)) : 0;
}

unsigned long msim_vmstat_global_node_page_state(struct msim *m, int item)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs || item < 0 || item >= MSIM_NR_VM_NODE_STAT_ITEMS)
		return 0;
	return clamp0(msim_atomic_long_read_at(&vs->vm_node_stat[item], "vmstat.read"));
}

unsigned long msim_vmstat_zone_page_state(struct msim *m, unsigned int nid,
					  enum msim_zone_type zone, int item)
{
	struct msim__vmstat_set *set = zone_set(m, nid, zone, item);

	return set ? clamp0(msim_atomic_long_read_at(&set->vm_stat[item], "vmstat.read")) : 0;
}

unsigned long msim_vmstat_zone_page_state_snapshot(struct msim *m, unsigned int nid,
						   enum msim_zone_type zone, int item)
{
	struct msim__vmstat_set *set = zone_set(m, nid, zone, item);

	return set ? clamp0(snapshot(m, set, item)) : 0;
}

unsigned long msim_vmstat_global_zone_page_state(struct msim *m, int item)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs || item < 0 || item >= MSIM_NR_VM_ZONE_STAT_ITEMS)
		return 0;
	return clamp0(msim_atomic_long_read_at(&vs->vm_zone_stat[item], "vmstat.read"));
}

/* ---- introspection: quiet loads, no yield point ---- */

long msim_vmstat_node_stat_raw(struct msim *m, unsigned int nid, int item)
{
	struct msim__vmstat_set *set = node_set(m, nid, item);

	return set ? msim_quiet_load(&set->vm_stat[item].counter, MSIM_RELAXED) : 0;
}

long msim_vmstat_node_diff(struct msim *m, unsigned int nid, unsigned int cpu, int item)
{
	struct msim__vmstat_set *set = node_set(m, nid, item);

	if (!set || cpu >= msim_nr_cpus(m))
		return 0;
	return msim_quiet_load(&msim__vmstat_pcp(set, cpu)->diff[item], MSIM_RELAXED);
}

long msim_vmstat_zone_diff(struct msim *m, unsigned int nid, enum msim_zone_type zone,
			   unsigned int cpu, int item)
{
	struct msim__vmstat_set *set = zone_set(m, nid, zone, item);

	if (!set || cpu >= msim_nr_cpus(m))
		return 0;
	return msim_quiet_load(&msim__vmstat_pcp(set, cpu)->diff[item], MSIM_RELAXED);
}

void msim_vmstat_counters(struct msim *m, struct msim_vmstat_counters *out)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);
	const struct msim_vmstat_counters *c;

	*out = (struct msim_vmstat_counters){ 0 };
	if (!vs)
		return;
	c = &vs->ctr;
	out->threshold_folds = msim_quiet_load(&c->threshold_folds, MSIM_RELAXED);
	out->cpu_folds = msim_quiet_load(&c->cpu_folds, MSIM_RELAXED);
	out->deferred_folds = msim_quiet_load(&c->deferred_folds, MSIM_RELAXED);
	out->shepherd_runs = msim_quiet_load(&c->shepherd_runs, MSIM_RELAXED);
	out->cmpxchg_retries = msim_quiet_load(&c->cmpxchg_retries, MSIM_RELAXED);
}
