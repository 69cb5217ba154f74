/* SPDX-License-Identifier: MIT */
/*
 * tunables.c - the vmstat entry points that find a host's state: periodic folding
 * on or off, stat_refresh, and the per-CPU thresholds.
 *
 * They look the state up through the subsystem (msim__vmstat_of), so they sit
 * above everything host.c calls when it attaches: fold.c and threshold.c take the
 * state as an argument and never reference the subsystem, which keeps the files
 * of src/vmstat free of circles.
 */
#include <errno.h>

#include "vmstat_internal.h"

void msim_vmstat_periodic_enable(struct msim *m, bool on)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs)
		return;
	vs->periodic = on;
	if (on)
		msim_queue_delayed_work(m, &vs->shepherd, vs->interval);
	else
		msim__vmstat_works_cancel(vs);
}

/* kernel: vmstat_refresh(): schedule_on_each_cpu(refresh_vm_stats). */
long msim_vmstat_refresh(struct msim *m)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);
	long changes = 0;

	if (!vs)
		return 0;
	for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++)
		changes += msim__vmstat_fold_cpu(vs, cpu);
	return changes;
}

void msim_vmstat_refresh_zone_stat_thresholds(struct msim *m)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (vs)
		msim__vmstat_refresh_thresholds(vs);
}

static struct msim__vmstat_zone *zone_of(struct msim *m, unsigned int nid, unsigned int zone)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs || nid >= vs->nr_nodes || zone >= MSIM_MAX_NR_ZONES)
		return NULL;
	return &vs->nodes[nid].zones[zone];
}

int msim_vmstat_node_stat_threshold(struct msim *m, unsigned int nid, unsigned int cpu)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs || nid >= vs->nr_nodes || cpu >= vs->nr_cpus)
		return 0;
	return msim__vmstat_get_threshold(&vs->nodes[nid].set, cpu);
}

int msim_vmstat_zone_stat_threshold(struct msim *m, unsigned int nid,
				    enum msim_zone_type zone, unsigned int cpu)
{
	struct msim__vmstat_zone *z = zone_of(m, nid, zone);

	if (!z || !z->set.pcp || cpu >= msim_nr_cpus(m))
		return 0;
	return msim__vmstat_get_threshold(&z->set, cpu);
}

int msim_vmstat_set_node_stat_threshold(struct msim *m, unsigned int nid, int threshold)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);

	if (!vs || nid >= vs->nr_nodes || threshold < 0 || threshold > MSIM_VMSTAT_MAX_THRESHOLD)
		return -EINVAL;
	for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++)
		msim__vmstat_set_threshold(&vs->nodes[nid].set, cpu, threshold);
	return 0;
}

unsigned long msim_vmstat_zone_managed_pages(struct msim *m, unsigned int nid,
					     enum msim_zone_type zone)
{
	struct msim__vmstat_zone *z = zone_of(m, nid, zone);

	return z ? z->managed_pages : 0;
}
