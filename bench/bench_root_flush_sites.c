/* SPDX-License-Identifier: MIT */
/*
 * bench_root_flush_sites.c - the two phases of `memcgsim bench root-flush` after
 * its repetitions (bench_root_flush.c describes the bench): patch 2's exclusion
 * list tested with traffic no memcg is charged for, and thread 002's patched call
 * sites, each root flush weighted by how often its gate or ratelimit lets it
 * through.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>
#include <memcgsim/vmstat.h>

#include "bench_root_flush_run.h"
#include "bench_util.h"

/* ---- patch 2's exclusion list ---- */

static const enum msim_stat_item excl_items[BENCH_RF_NEXCL] = {
	MSIM_NR_KERNEL_STACK_KB, MSIM_NR_PAGETABLE, MSIM_NR_HUGETLB,
};
const char *const bench_rf_excl_names[BENCH_RF_NEXCL] = { "kernel_stack_kb", "pagetable",
							"hugetlb" };
/*
 * The kernel's call sites for each item (src/rstat/kernel_pages.c): job0's tasks
 * and mm (charged to job0), root's tasks and mm and kernel threads (no memcg is
 * charged: the node counter only). Kernel stacks: 64 of job0's, 100 of root's, 100
 * kernel threads' (16 KiB each); page tables: 64 of job0's mm, 150 of a root
 * mm's, 150 kernel tables; hugetlb: 3 folios of 512 pages, one faulted by job0,
 * none charged (no memory_hugetlb_accounting).
 */
static int excl_traffic_calls(struct msim *m, struct msim_memcg *job0)
{
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	int ret = 0;

	for (int i = 0; !ret && i < 64; i++)
		if (!(ret = msim_account_kernel_stack(m, job0, 0, 1)))
			ret = msim_account_pagetable(m, job0, true, 0, 1);
	for (int i = 0; !ret && i < 100; i++)
		if (!(ret = msim_account_kernel_stack(m, root, 0, 1)))
			ret = msim_account_kernel_stack(m, NULL, 0, 1);
	for (int i = 0; !ret && i < 150; i++)
		if (!(ret = msim_account_pagetable(m, root, true, 0, 1)))
			ret = msim_account_pagetable(m, NULL, false, 0, 1);
	for (int i = 0; !ret && i < 3; i++)
		ret = msim_account_hugetlb_folio(m, i ? NULL : job0, 0, 512);
	return ret;
}

static int excl_traffic(struct rf *r, unsigned int h)
{
	struct rf_host *hh = &r->hosts[h];
	int ret;

	msim_set_current_host(hh->m);
	ret = excl_traffic_calls(hh->m, hh->memcgs[0]);
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(hh->m));
	return ret;
}

int bench_rf_measure_exclusions(struct rf *r, struct bench_rf_summary *s)
{
	struct bench_rf_exclusions *x = &s->excl;
	struct rf_host *m0 = &r->hosts[0], *m1 = &r->hosts[1];
	struct msim_memcg *root0 = msim_root_mem_cgroup(m0->m);

	/* NR_ACTIVE_ANON as the activity left it, flushed: no traffic of ours yet */
	msim_set_current_host(m0->m);
	msim_mem_cgroup_flush_stats_forced(root0);
	x->anon_rstat = (double)msim_memcg_page_state(root0, MSIM_NR_ACTIVE_ANON);
	x->anon_node = (double)msim_node_page_state(m0->m, 0, MSIM_NR_ACTIVE_ANON);
	x->anon_snapshot = (double)msim_vmstat_node_page_state_snapshot(m0->m, 0,
									MSIM_NR_ACTIVE_ANON);
	msim_set_current_host(m1->m);
	x->anon_lruvec_node_host = (double)msim_lruvec_page_state(m1->root_lruvec,
								  MSIM_NR_ACTIVE_ANON);
	for (unsigned int h = 0; h < NHOSTS; h++) {
		int ret = excl_traffic(r, h);

		if (ret) {
			fprintf(stderr, "root-flush: exclusion-list traffic failed (%d)\n", ret);
			return ret;
		}
	}
	for (unsigned int i = 0; i < BENCH_RF_NEXCL; i++) {
		msim_set_current_host(m0->m);
		x->node[i] = (double)msim_node_page_state(m0->m, 0, excl_items[i]);
		x->rstat[i] = (double)msim_memcg_page_state(root0, excl_items[i]);
		x->lruvec[0][i] = (double)msim_lruvec_page_state(m0->root_lruvec, excl_items[i]);
		msim_set_current_host(m1->m);
		x->lruvec[1][i] = (double)msim_lruvec_page_state(m1->root_lruvec, excl_items[i]);
	}
	s->excl_measured = true;
	return 0;
}

/* ---- the patched call sites, each weighted by its gate ---- */

const char *const bench_rf_site_names[BENCH_RF_NSITES] = {
	[BENCH_RF_SITE_WORKINGSET] = "workingset_test_recent (patch 3)",
	[BENCH_RF_SITE_ZSWAP] = "zswap_shrinker_count (patch 1)",
	[BENCH_RF_SITE_DAMON] = "damos_get_node_memcg_used_bp (patch 4)",
};
const char *const bench_rf_site_keys[BENCH_RF_NSITES] = { "workingset", "zswap", "damon" };

/* The root flush of site s as mainline gates it; true if it flushed. */
static bool site_flush(struct msim_memcg *root, unsigned int s)
{
	if (s == BENCH_RF_SITE_DAMON)
		return msim_mem_cgroup_flush_stats(root);
	return msim_mem_cgroup_flush_stats_ratelimited(root);
}

/* Mean ns of a call of site s whose gate stays shut (nothing updated since). */
static double site_closed_ns(struct rf *r, struct msim_memcg *root, unsigned int s)
{
	unsigned long n = r->reads / 10 ? r->reads / 10 : 1, flushed = 0;
	uint64_t t0 = bench_cpu_ns();

	for (unsigned long i = 0; i < n; i++)
		flushed += site_flush(root, s);
	/* a call that flushed here would time a flush, not a shut gate */
	return flushed ? NAN : (double)(bench_cpu_ns() - t0) / (double)n;
}

/* Site s alone on a fresh mainline host (a host runs a bounded number of tasks). */
static int measure_site(struct rf *r, unsigned int s, struct bench_rf_site_result *out)
{
	struct rf_host *hh = &r->hosts[NHOSTS];
	struct msim_memcg *root;
	uint64_t ticks, through_ns = 0;
	int setup = bench_rf_host_setup_as(r, NHOSTS, false);

	memset(out, 0, sizeof(*out));
	if (setup)
		return setup;
	root = msim_root_mem_cgroup(hh->m);
	ticks = (uint64_t)msim_config(hh->m)->hz * r->site_step_ms / 1000;
	msim_set_current_host(hh->m);
	msim_mem_cgroup_flush_stats_forced(root);     /* every site starts from a fresh flush */
	msim_rstat_periodic_flush_enable(hh->m, true);
	for (unsigned int step = 0; step < r->site_steps; step++) {
		uint64_t t0;
		bool flushed;

		int ret = bench_rf_dirty_all_cpus(r, NHOSTS);

		if (ret)
			return ret;
		msim_clock_advance(hh->m, ticks ? ticks : 1);
		t0 = bench_cpu_ns();
		flushed = site_flush(root, s);
		if (flushed)
			through_ns += bench_cpu_ns() - t0;
		out->calls++;
		out->through += flushed;
	}
	out->closed_ns = site_closed_ns(r, root, s);
	bench_rf_host_teardown(hh);
	out->through_us = out->through ? (double)through_ns / out->through / 1e3 : NAN;
	out->per_call_ns = ((double)through_ns + (double)(out->calls - out->through) *
			    out->closed_ns) / (double)out->calls;
	return 0;
}

int bench_rf_measure_sites(struct rf *r, struct bench_rf_summary *s)
{
	for (unsigned int i = 0; i < BENCH_RF_NSITES; i++) {
		int ret = measure_site(r, i, &s->site[i]);

		if (ret) {
			fprintf(stderr, "root-flush: call site %s failed (%d)\n", bench_rf_site_names[i], ret);
			return ret;
		}
	}
	return 0;
}

