/* SPDX-License-Identifier: MIT */
/*
 * update.c - changing node and zone counters from the running task's CPU.
 *
 * kernel: mm/vmstat.c mod_node_state() / mod_zone_state() (x86,
 * CONFIG_HAVE_CMPXCHG_LOCAL) behind mod_node_page_state(), inc_node_state(),
 * dec_node_page_state() and their zone twins; __mod_node_page_state(),
 * __inc_node_state(), __dec_node_state() and their zone twins; the page/folio
 * wrappers are left to their callers (a folio names its node and zone).
 *
 * Order of operations, as the kernel's (a snapshot reader can tell them apart):
 *  - mod form: the diff is swapped first (cmpxchg), the overflow added to the
 *    atomics after, so a reader between the two misses the overflow;
 *  - _irqoff form: the overflow is added to the atomics first, the diff reset
 *    after, so a snapshot reader between the two counts it twice.
 * Either way the overflow goes into the node (or zone) atomic before the host-
 * wide one (node_page_state_add / zone_page_state_add).
 */
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/kmem.h>

#include "vmstat_internal.h"

/* rstat.h's MSIM_NR_SLAB_RECLAIMABLE_B and MSIM_NR_SLAB_UNRECLAIMABLE_B (vmstat.h: "Items"). */
#define ITEM_SLAB_RECLAIMABLE_B 5
#define ITEM_SLAB_UNRECLAIMABLE_B 6

bool msim_vmstat_item_in_bytes(int item)
{
	return item == ITEM_SLAB_RECLAIMABLE_B || item == ITEM_SLAB_UNRECLAIMABLE_B;
}

/* kernel: node_page_state_add() / zone_page_state_add(). */
static void page_state_add(struct msim__vmstat *vs, struct msim__vmstat_set *set, int item,
			   long x)
{
	msim_atomic_long_add_at(&set->vm_stat[item], x, "vmstat.fold.node");
	msim_atomic_long_add_at(&set->global[item], x, "vmstat.fold.global");
	MSIM__VMSTAT_CTR(vs, threshold_folds);
}

/*
 * kernel: mod_node_state(pgdat, item, delta, overstep_mode) / mod_zone_state():
 * this_cpu_try_cmpxchg on the diff until no one changed it in between (here: a
 * fold's exchange), then the overflow into the atomics. overstep_mode 0 for mod,
 * +1 for inc (leave the diff at -threshold/2), -1 for dec.
 */
static void mod_state(struct msim__vmstat *vs, struct msim__vmstat_set *set, int item,
		      long delta, int overstep_mode)
{
	struct msim__vmstat_pcp *pcp = msim__vmstat_pcp(set, msim_this_cpu());
	int8_t o, n;
	long x, t, z;

	/* The step loads the diff and the threshold, up to the cmpxchg's point. */
	msim_yield_access("vmstat.update", &pcp->diff[item],
			  MSIM_ACCESS_LOAD | MSIM_ACCESS_VAL(&pcp->diff[item]));
	o = msim_quiet_load(&pcp->diff[item], MSIM_RELAXED);
	for (;;) {
		z = 0;
		/* Racy against a threshold refresh, as in the kernel: the next update applies
		 * it. A retry loads it in the failed cmpxchg's step. */
		t = msim__vmstat_threshold_load(pcp);
		x = delta + o;
		if (labs(x) > t) {
			long os = overstep_mode * (t >> 1);

			z = x + os;
			x = -os;
		}
		n = (int8_t)x;
		if (msim_try_cmpxchg_at(&pcp->diff[item], &o, n, MSIM_RELAXED, MSIM_RELAXED,
					"vmstat.diff.cmpxchg"))
			break;
		MSIM__VMSTAT_CTR(vs, cmpxchg_retries);
	}
	if (z)
		page_state_add(vs, set, item, z);
}

/*
 * Does the diff x, after this update, pass threshold t? kernel: |x| > t for
 * __mod_*; x > t for __inc_* and x < -t for __dec_* (one side only).
 */
static bool passes(long x, long t, int overstep_mode)
{
	if (overstep_mode > 0)
		return x > t;
	if (overstep_mode < 0)
		return x < -t;
	return labs(x) > t;
}

/*
 * kernel: __mod_node_page_state() / __inc_node_state() / __dec_node_state() and
 * their zone twins: interrupts are off, so the diff's read and write are a plain
 * pair no update of this CPU can split; the section keeps the model's remote
 * fold out of it too (section.c). On overflow the atomics come first.
 */
static void mod_state_irqoff(struct msim__vmstat *vs, struct msim__vmstat_set *set, int item,
			     long delta, int overstep_mode)
{
	unsigned int cpu = msim_this_cpu();
	struct msim__vmstat_cpu *c = &vs->cpus[cpu];
	struct msim__vmstat_pcp *pcp = msim__vmstat_pcp(set, cpu);
	long x, t;

	/*
	 * The step enters the section (an RMW of its word), loads the diff and the
	 * threshold, and then either reaches the atomics' point or stores the diff,
	 * leaves the section and, when a fold was handed over, folds (section.c and
	 * fold.c note what they touch).
	 */
	msim_yield_access("vmstat.update", &c->section, MSIM_ACCESS_RMW);
	msim__vmstat_section_enter(c);
	msim_access_note(&pcp->diff[item], sizeof(pcp->diff[item]), MSIM_ACCESS_LOAD);
	x = delta + msim_quiet_load(&pcp->diff[item], MSIM_RELAXED);
	t = msim__vmstat_threshold_load(pcp);
	if (passes(x, t, overstep_mode)) {
		long os = overstep_mode * (t >> 1);

		page_state_add(vs, set, item, x + os);
		msim_store_at(&pcp->diff[item], (int8_t)-os, MSIM_RELAXED, "vmstat.diff.reset");
	} else {
		msim_access_note(&pcp->diff[item], sizeof(pcp->diff[item]), MSIM_ACCESS_STORE);
		msim_quiet_store(&pcp->diff[item], (int8_t)x, MSIM_RELAXED);
	}
	if (msim__vmstat_section_exit(c)) {
		MSIM__VMSTAT_CTR(vs, deferred_folds);
		msim__vmstat_fold_cpu(vs, cpu);
	}
}

/* ---- argument checks: the set an update works on, or NULL ---- */

static struct msim__vmstat_set *node_set(struct msim__vmstat *vs, unsigned int nid, int item)
{
	if (!vs || nid >= vs->nr_nodes || item < 0 || item >= MSIM_NR_VM_NODE_STAT_ITEMS)
		return NULL;
	return &vs->nodes[nid].set;
}

static struct msim__vmstat_set *zone_set(struct msim__vmstat *vs, unsigned int nid,
					 enum msim_zone_type zone, int item)
{
	struct msim__vmstat_set *set;

	if (!vs || nid >= vs->nr_nodes || (unsigned int)zone >= MSIM_MAX_NR_ZONES ||
	    item < 0 || item >= MSIM_NR_VM_ZONE_STAT_ITEMS)
		return NULL;
	set = &vs->nodes[nid].zones[zone].set;
	return set->pcp ? set : NULL; /* no pages can live in an unpopulated zone */
}

/*
 * Byte items change by whole pages at node level (slab pages): kernel
 * VM_WARN_ON_ONCE(delta & (PAGE_SIZE - 1)), then delta >>= PAGE_SHIFT. The
 * model refuses what the kernel warns about. Returns false for a bad delta.
 */
static bool node_delta_in_pages(int item, long *delta)
{
	if (!msim_vmstat_item_in_bytes(item))
		return true;
	if (*delta % (long)MSIM_PAGE_SIZE)
		return false;
	*delta /= (long)MSIM_PAGE_SIZE;
	return true;
}

/* ---- node counters ---- */

static int node_update(struct msim *m, unsigned int nid, int item, long delta, int overstep,
		       bool irqoff)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);
	struct msim__vmstat_set *set = node_set(vs, nid, item);

	if (!set)
		return -EINVAL;
	if (overstep ? msim_vmstat_item_in_bytes(item) : !node_delta_in_pages(item, &delta))
		return -EINVAL; /* kernel: VM_WARN_ON_ONCE */
	if (irqoff)
		mod_state_irqoff(vs, set, item, delta, overstep);
	else
		mod_state(vs, set, item, delta, overstep);
	return 0;
}

int msim_vmstat_mod_node_page_state(struct msim *m, unsigned int nid, int item, long delta)
{
	return node_update(m, nid, item, delta, 0, false);
}

int msim_vmstat_inc_node_state(struct msim *m, unsigned int nid, int item)
{
	return node_update(m, nid, item, 1, 1, false);
}

int msim_vmstat_dec_node_state(struct msim *m, unsigned int nid, int item)
{
	return node_update(m, nid, item, -1, -1, false);
}

int msim_vmstat_mod_node_page_state_irqoff(struct msim *m, unsigned int nid, int item,
					   long delta)
{
	return node_update(m, nid, item, delta, 0, true);
}

int msim_vmstat_inc_node_state_irqoff(struct msim *m, unsigned int nid, int item)
{
	return node_update(m, nid, item, 1, 1, true);
}

int msim_vmstat_dec_node_state_irqoff(struct msim *m, unsigned int nid, int item)
{
	return node_update(m, nid, item, -1, -1, true);
}

/* ---- zone counters (all in pages) ---- */

static int zone_update(struct msim *m, unsigned int nid, enum msim_zone_type zone, int item,
		       long delta, int overstep, bool irqoff)
{
	struct msim__vmstat *vs = msim__vmstat_of(m);
	struct msim__vmstat_set *set = zone_set(vs, nid, zone, item);

	if (!set)
		return -EINVAL;
	if (irqoff)
		mod_state_irqoff(vs, set, item, delta, overstep);
	else
		mod_state(vs, set, item, delta, overstep);
	return 0;
}

int msim_vmstat_mod_zone_page_state(struct msim *m, unsigned int nid, enum msim_zone_type zone,
				    int item, long delta)
{
	return zone_update(m, nid, zone, item, delta, 0, false);
}

int msim_vmstat_inc_zone_state(struct msim *m, unsigned int nid, enum msim_zone_type zone,
			       int item)
{
	return zone_update(m, nid, zone, item, 1, 1, false);
}

int msim_vmstat_dec_zone_state(struct msim *m, unsigned int nid, enum msim_zone_type zone,
			       int item)
{
	return zone_update(m, nid, zone, item, -1, -1, false);
}

int msim_vmstat_mod_zone_page_state_irqoff(struct msim *m, unsigned int nid,
					   enum msim_zone_type zone, int item, long delta)
{
	return zone_update(m, nid, zone, item, delta, 0, true);
}

int msim_vmstat_inc_zone_state_irqoff(struct msim *m, unsigned int nid,
				      enum msim_zone_type zone, int item)
{
	return zone_update(m, nid, zone, item, 1, 1, true);
}

int msim_vmstat_dec_zone_state_irqoff(struct msim *m, unsigned int nid,
				      enum msim_zone_type zone, int item)
{
	return zone_update(m, nid, zone, item, -1, -1, true);
}
