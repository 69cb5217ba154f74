/* SPDX-License-Identifier: MIT */
/*
 * threshold.c - per-CPU stat thresholds.
 *
 * kernel: mm/vmstat.c calculate_normal_threshold(), calculate_pressure_threshold(),
 * refresh_zone_stat_thresholds(). The threshold grows with the logarithm of the
 * CPU count (more CPUs contend more on the shared atomics) and of the zone's
 * memory in 128 MiB units (a bigger zone tolerates more drift), capped at 125 so
 * that threshold + 1 fits the s8 diff. A node has no memory of its own: its
 * per-CPU threshold is the largest of its populated zones'.
 *
 * The kernel reruns refresh_zone_stat_thresholds() on CPU and memory hotplug; the
 * model has neither, so it runs once at host init (and when an experiment asks).
 */
#include <errno.h>

#include <memcgsim/kmem.h>

#include "vmstat_internal.h"

/* kernel: fls(): the 1-based index of the most significant set bit, 0 for 0. */
static int fls_ul(unsigned long x)
{
	return x ? (int)(sizeof(x) * 8) - __builtin_clzl(x) : 0;
}

/* kernel: zone_managed_pages(zone) >> (27 - PAGE_SHIFT): memory in 128 MiB units */
#define MEM_UNIT_SHIFT (27 - __builtin_ctzl(MSIM_PAGE_SIZE))

int msim_vmstat_calculate_normal_threshold(unsigned int nr_online_cpus,
					   unsigned long managed_pages)
{
	unsigned long mem = managed_pages >> MEM_UNIT_SHIFT;
	int threshold = 2 * fls_ul(nr_online_cpus) * (1 + fls_ul(mem));

	return threshold < MSIM_VMSTAT_MAX_THRESHOLD ? threshold : MSIM_VMSTAT_MAX_THRESHOLD;
}

/*
 * kernel: calculate_pressure_threshold(): the drift of every CPU together must
 * stay inside the low - min watermark distance; at least 1, at most 125.
 */
int msim_vmstat_calculate_pressure_threshold(unsigned int nr_online_cpus,
					     unsigned long watermark_distance)
{
	unsigned long threshold = nr_online_cpus ? watermark_distance / nr_online_cpus : 0;

	if (threshold < 1)
		threshold = 1;
	if (threshold > MSIM_VMSTAT_MAX_THRESHOLD)
		threshold = MSIM_VMSTAT_MAX_THRESHOLD;
	return (int)threshold;
}

/* A quiet store the updates' quiet loads race with: noted for DPOR (yield.h). */
void msim__vmstat_set_threshold(struct msim__vmstat_set *set, unsigned int cpu, int threshold)
{
	struct msim__vmstat_pcp *pcp = msim__vmstat_pcp(set, cpu);

	msim_access_note(&pcp->stat_threshold, sizeof(pcp->stat_threshold), MSIM_ACCESS_STORE);
	msim_quiet_store(&pcp->stat_threshold, (int8_t)threshold, MSIM_RELAXED);
}

int msim__vmstat_get_threshold(const struct msim__vmstat_set *set, unsigned int cpu)
{
	return msim__vmstat_threshold_load(msim__vmstat_pcp(set, cpu));
}

/* kernel: refresh_zone_stat_thresholds(), without percpu_drift_mark (no watermarks). */
void msim__vmstat_refresh_thresholds(struct msim__vmstat *vs)
{
	unsigned int online = msim_num_online_cpus(vs->m);

	for (unsigned int nid = 0; nid < vs->nr_nodes; nid++)
		for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++)
			msim__vmstat_set_threshold(&vs->nodes[nid].set, cpu, 0);
	for (unsigned int nid = 0; nid < vs->nr_nodes; nid++) {
		struct msim__vmstat_node *node = &vs->nodes[nid];

		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
			struct msim__vmstat_zone *zone = &node->zones[z];
			int t;

			if (!zone->managed_pages)
				continue;
			t = msim_vmstat_calculate_normal_threshold(online, zone->managed_pages);
			for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++) {
				msim__vmstat_set_threshold(&zone->set, cpu, t);
				if (t > msim__vmstat_get_threshold(&node->set, cpu))
					msim__vmstat_set_threshold(&node->set, cpu, t);
			}
		}
	}
}
