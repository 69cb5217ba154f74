/* SPDX-License-Identifier: MIT */
/*
 * host.c - the vmstat subsystem: what a host gets when it attaches.
 *
 * kernel: the per-CPU parts of setup_per_cpu_pageset() (per_cpu_nodestats for
 * every node, per_cpu_zonestats for every populated zone), vmstat_late_init()
 * (refresh_zone_stat_thresholds) and start_shepherd_timer().
 *
 * Enabled by struct msim_config.vmstat, not for every host: its per-CPU memory
 * shows in the host's kernel-memory totals and its works run at every second of
 * virtual time, inside the schedules of any task that advances the clock, and the
 * hosts that existed before vmstat must keep their figures and schedules. Memory:
 * the per-CPU structs are charged to the kernel-memory model under the kernel's
 * names ("per_cpu_nodestats", "per_cpu_zonestats"); pgdat and zone themselves are
 * boot memory in the kernel (not slab) and are not charged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmstat_internal.h"

static bool vmstat_enabled(const struct msim_config *cfg)
{
	return cfg->vmstat;
}

static void set_init(struct msim__vmstat_set *set, msim_atomic_long_t *vm_stat,
		     msim_atomic_long_t *global, unsigned int nr_items)
{
	set->vm_stat = vm_stat;
	set->global = global;
	set->nr_items = nr_items;
}

/* DMA and DMA32 are the low 4 GiB of physical memory: node 0 has them. */
static unsigned long configured_pages(const struct msim_config *cfg, unsigned int nid,
				      unsigned int zone)
{
	if (nid && (zone == MSIM_ZONE_DMA || zone == MSIM_ZONE_DMA32))
		return 0;
	return cfg->zone_managed_pages[zone];
}

static int node_init(struct msim__vmstat *vs, struct msim__vmstat_node *node, unsigned int nid)
{
	const struct msim_config *cfg = msim_config(vs->m);
	size_t node_pcp = sizeof(struct msim__vmstat_pcp) + MSIM_NR_VM_NODE_STAT_ITEMS;
	size_t zone_pcp = sizeof(struct msim__vmstat_pcp) + MSIM_NR_VM_ZONE_STAT_ITEMS;

	set_init(&node->set, node->vm_stat, vs->vm_node_stat, MSIM_NR_VM_NODE_STAT_ITEMS);
	node->set.pcp = msim_alloc_percpu(vs->m, node_pcp, "per_cpu_nodestats");
	if (!node->set.pcp)
		return -ENOMEM;
	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
		struct msim__vmstat_zone *zone = &node->zones[z];

		set_init(&zone->set, zone->vm_stat, vs->vm_zone_stat, MSIM_NR_VM_ZONE_STAT_ITEMS);
		zone->managed_pages = configured_pages(cfg, nid, z);
		if (!zone->managed_pages)
			continue;
		zone->set.pcp = msim_alloc_percpu(vs->m, zone_pcp, "per_cpu_zonestats");
		if (!zone->set.pcp)
			return -ENOMEM;
	}
	return 0;
}

static void nodes_free(struct msim__vmstat *vs)
{
	for (unsigned int nid = 0; vs->nodes && nid < vs->nr_nodes; nid++) {
		msim_free_percpu(vs->m, vs->nodes[nid].set.pcp);
		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
			msim_free_percpu(vs->m, vs->nodes[nid].zones[z].set.pcp);
	}
	free(vs->nodes);
	free(vs->cpus);
	vs->nodes = NULL;
	vs->cpus = NULL;
}

static int vmstat_host_init(struct msim *m, void *state)
{
	struct msim__vmstat *vs = state;
	size_t cpus_bytes;
	int ret = -ENOMEM;

	vs->m = m;
	vs->nr_nodes = msim_nr_nodes(m);
	vs->nr_cpus = msim_nr_cpus(m);
	vs->interval = (uint64_t)MSIM_VMSTAT_INTERVAL_SECONDS * msim_config(m)->hz;
	vs->periodic = true;
	vs->nodes = calloc(vs->nr_nodes, sizeof(*vs->nodes));
	cpus_bytes = vs->nr_cpus * sizeof(*vs->cpus);
	vs->cpus = aligned_alloc(_Alignof(struct msim__vmstat_cpu), cpus_bytes);
	if (!vs->nodes || !vs->cpus)
		goto fail;
	memset(vs->cpus, 0, cpus_bytes);
	for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++) {
		vs->cpus[cpu].cpu = cpu;
		vs->cpus[cpu].vs = vs;
	}
	for (unsigned int nid = 0; nid < vs->nr_nodes; nid++) {
		ret = node_init(vs, &vs->nodes[nid], nid);
		if (ret)
			goto fail;
	}
	msim__vmstat_refresh_thresholds(vs);
	msim__vmstat_works_init(vs);
	return 0;
fail:
	nodes_free(vs);
	return ret;
}

static void vmstat_host_fini(struct msim *m, void *state)
{
	struct msim__vmstat *vs = state;

	msim__vmstat_works_cancel(vs);
	nodes_free(vs);
}

static unsigned int vmstat_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys vmstat_subsys = {
	.name = "vmstat",
	.depends = NULL,               /* mm/vmstat.c stands below memcg */
	.enabled = vmstat_enabled,
	.state_size = sizeof(struct msim__vmstat),
	.host_init = vmstat_host_init,
	.host_fini = vmstat_host_fini,
	.id = &vmstat_subsys_id,
};

/*
 * Every vmstat entry point reaches vmstat_subsys (msim__vmstat_of), so a
 * program that calls any of them links this file and this registration with it.
 */
struct msim__vmstat *msim__vmstat_of(struct msim *m)
{
	return m ? (struct msim__vmstat *)msim_subsys_state(m, &vmstat_subsys) : NULL;
}

__attribute__((constructor)) static void vmstat_register(void)
{
	msim_subsys_register(&vmstat_subsys);
}

/* ---- tunables: periodic folding on or off, stat_refresh, the per-CPU thresholds ---- */

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
