/* SPDX-License-Identifier: MIT */
/*
 * fold.c - folding the per-CPU diffs into the atomics.
 *
 * kernel: mm/vmstat.c refresh_cpu_vm_stats(), fold_diff(), vmstat_update(),
 * need_update(), vmstat_shepherd(), vmstat_refresh().
 *
 * Timing, as in the kernel: the shepherd runs every sysctl_stat_interval (HZ,
 * 1 s) and queues the vmstat_update work of every CPU that holds a nonzero diff
 * and has none queued; a CPU's work folds that CPU's diffs and queues itself
 * again one interval later while it found something to fold. So a diff left by
 * a CPU that then goes quiet is folded at the shepherd's next tick plus one
 * jiffy (a delay of 0 runs at the next tick on the virtual clock, sim.h), at
 * most interval + 1 jiffies later. Both works are deferrable in the kernel (an
 * idle CPU's may slip); the model records the flag and runs them on time.
 *
 * Where a work runs: in the context that advances the clock (sim.h), not on the
 * CPU it folds; section.c keeps such a fold out of that CPU's _irqoff updates.
 * round_jiffies_relative() is left out: works run exactly one interval apart.
 */
#include "vmstat_internal.h"

/*
 * The running step loaded diffs [from, to) quietly (a scan between two points):
 * noted for partial-order reduction (yield.h's contract).
 */
static void note_scanned(const struct msim__vmstat_pcp *pcp, unsigned int from, unsigned int to)
{
	if (to > from)
		msim_access_note(&pcp->diff[from], to - from, MSIM_ACCESS_LOAD);
}

/*
 * Fold CPU cpu's diffs of one node or zone: this_cpu_xchg of each nonzero diff,
 * the value into the node's or zone's atomic, and into global_diff for the host-
 * wide atomics. Returns false when the CPU is inside an _irqoff section: its fold
 * then happens at the section's end (what was exchanged so far is kept).
 */
static bool fold_set(struct msim__vmstat *vs, struct msim__vmstat_set *set, unsigned int cpu,
		     long *global_diff)
{
	struct msim__vmstat_pcp *pcp = msim__vmstat_pcp(set, cpu);
	struct msim__vmstat_cpu *c = &vs->cpus[cpu];
	unsigned int from = 0; /* the first diff the running step loaded */

	for (unsigned int i = 0; i < set->nr_items; i++) {
		int8_t v;

		/* A zero diff needs no exchange: skipping it keeps the schedule short. */
		if (!msim_quiet_load(&pcp->diff[i], MSIM_RELAXED))
			continue;
		note_scanned(pcp, from, i + 1);
		/* The step: the claim and release of the section word, the exchange. */
		msim_yield_access("vmstat.fold.xchg", &c->section, MSIM_ACCESS_RMW);
		from = i + 1;
		if (!msim__vmstat_fold_claim(c))
			return false;
		msim_access_note(&pcp->diff[i], sizeof(pcp->diff[i]), MSIM_ACCESS_RMW);
		v = msim_quiet_xchg(&pcp->diff[i], 0, MSIM_RELAXED);
		msim__vmstat_fold_release(c);
		if (!v)
			continue;
		msim_atomic_long_add_at(&set->vm_stat[i], v, "vmstat.fold.node");
		global_diff[i] += v;
	}
	note_scanned(pcp, from, set->nr_items);
	return true;
}

/* kernel: fold_diff(): the accumulated changes into the host-wide atomics. */
static long fold_diff(struct msim__vmstat *vs, const long *zone_diff, const long *node_diff)
{
	long changes = 0;

	for (unsigned int i = 0; i < MSIM_NR_VM_ZONE_STAT_ITEMS; i++)
		if (zone_diff[i]) {
			msim_atomic_long_add_at(&vs->vm_zone_stat[i], zone_diff[i],
						"vmstat.fold.global");
			changes++;
		}
	for (unsigned int i = 0; i < MSIM_NR_VM_NODE_STAT_ITEMS; i++)
		if (node_diff[i]) {
			msim_atomic_long_add_at(&vs->vm_node_stat[i], node_diff[i],
						"vmstat.fold.global");
			changes++;
		}
	return changes;
}

/*
 * kernel: refresh_cpu_vm_stats(false) on CPU cpu: every populated zone, then
 * every node. Returns the number of host-wide counters changed.
 */
long msim__vmstat_fold_cpu(struct msim__vmstat *vs, unsigned int cpu)
{
	long zone_diff[MSIM_NR_VM_ZONE_STAT_ITEMS] = { 0 };
	long node_diff[MSIM_NR_VM_NODE_STAT_ITEMS] = { 0 };
	bool whole = true;

	for (unsigned int nid = 0; nid < vs->nr_nodes && whole; nid++)
		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES && whole; z++)
			if (vs->nodes[nid].zones[z].set.pcp)
				whole = fold_set(vs, &vs->nodes[nid].zones[z].set, cpu, zone_diff);
	for (unsigned int nid = 0; nid < vs->nr_nodes && whole; nid++)
		whole = fold_set(vs, &vs->nodes[nid].set, cpu, node_diff);
	MSIM__VMSTAT_CTR(vs, cpu_folds);
	return fold_diff(vs, zone_diff, node_diff);
}

/* kernel: need_update(cpu): does the CPU hold any nonzero diff? */
static bool set_needs_update(const struct msim__vmstat_set *set, unsigned int cpu)
{
	const struct msim__vmstat_pcp *pcp = msim__vmstat_pcp(set, cpu);

	for (unsigned int i = 0; i < set->nr_items; i++) {
		if (msim_quiet_load(&pcp->diff[i], MSIM_RELAXED)) {
			note_scanned(pcp, 0, i + 1);
			return true;
		}
	}
	note_scanned(pcp, 0, set->nr_items);
	return false;
}

static bool need_update(struct msim__vmstat *vs, unsigned int cpu)
{
	for (unsigned int nid = 0; nid < vs->nr_nodes; nid++) {
		struct msim__vmstat_node *node = &vs->nodes[nid];

		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
			if (node->zones[z].set.pcp && set_needs_update(&node->zones[z].set, cpu))
				return true;
		if (set_needs_update(&node->set, cpu))
			return true;
	}
	return false;
}

/* kernel: vmstat_update(): fold this CPU; keep running while there was work. */
static void vmstat_update(struct msim_delayed_work *dw)
{
	struct msim__vmstat_cpu *c = dw->data;
	struct msim__vmstat *vs = c->vs;

	if (msim__vmstat_fold_cpu(vs, c->cpu))
		msim_queue_delayed_work(vs->m, &c->work, vs->interval);
}

/* kernel: vmstat_shepherd(): wake the work of every CPU with diffs, every interval. */
static void vmstat_shepherd(struct msim_delayed_work *dw)
{
	struct msim__vmstat *vs = dw->data;

	MSIM__VMSTAT_CTR(vs, shepherd_runs);
	for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++)
		if (need_update(vs, cpu)) /* a queued work stays queued (returns false) */
			msim_queue_delayed_work(vs->m, &vs->cpus[cpu].work, 0);
	msim_queue_delayed_work(vs->m, &vs->shepherd, vs->interval);
}

/* kernel: start_shepherd_timer(). */
void msim__vmstat_works_init(struct msim__vmstat *vs)
{
	for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++) {
		struct msim__vmstat_cpu *c = &vs->cpus[cpu];

		msim_init_delayed_work(&c->work, vmstat_update, c);
		c->work.deferrable = true;
	}
	msim_init_delayed_work(&vs->shepherd, vmstat_shepherd, vs);
	vs->shepherd.deferrable = true;
	if (vs->periodic)
		msim_queue_delayed_work(vs->m, &vs->shepherd, vs->interval);
}

void msim__vmstat_works_cancel(struct msim__vmstat *vs)
{
	msim_cancel_delayed_work(vs->m, &vs->shepherd);
	for (unsigned int cpu = 0; cpu < vs->nr_cpus; cpu++)
		msim_cancel_delayed_work(vs->m, &vs->cpus[cpu].work);
}
