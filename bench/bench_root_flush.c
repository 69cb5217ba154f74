/* SPDX-License-Identifier: MIT */
/*
 * bench_root_flush.c - thread 002: the cost of a root memcg flush with 0 and with
 * 128 actively updating memcgs on 80 simulated CPUs, against reading the node
 * counters (what patch 2, variant root-lruvec-read=node, reads instead).
 *
 * Thread 002 (80-CPU machine, proactive reclaim on the root cgroup, wall time
 * including waiting for the rstat lock): a root flush took 69 us with little
 * cgroup activity and about 0.9 ms with 128 memcgs repeatedly allocating and
 * freeing; reading a node counter took the same time as reading the rstat counter
 * (about 150 ns, bpftrace overhead included).
 *
 * Per repetition and per host (root-lruvec-read=rstat, then =node; alternated):
 *  - idle flush: a forced root flush (css_rstat_flush of the root: the flush a
 *    reader gets once the threshold lets it through) with no update since the
 *    last one, averaged over 50 flushes (5 with --quick);
 *  - active flush: 80 tasks, one per CPU, each update every one of the 128 memcgs
 *    (anon +2 then -1 on the memcg's lruvec, one PGFAULT event: a small
 *    allocate/free step), run to completion by the deterministic scheduler; then
 *    the driver times one forced root flush. 3 rounds (1 with --quick).
 *  - reads: msim_lruvec_page_state(root lruvec, NR_ACTIVE_ANON) (rstat aggregate
 *    or node counter depending on the host's variant), memcg_page_state(root) and
 *    node_page_state, each averaged over --reads reads.
 * Both hosts run node-stat=percpu (forced): the activity leaves each CPU's node
 * diff below its threshold, so patch 2's root read is not the truth.
 * Patch 2's exclusion list: after the repetitions, on both hosts, kernel-stack,
 * page-table and hugetlb traffic through the kernel's call sites
 * (src/rstat/kernel_pages.c): kernel threads', root tasks' and kernel tables'
 * pages that no memcg is charged for (node counters only) beside a child's
 * charged stacks and page tables (hugetlb is never charged), a forced root flush,
 * then each item read from the node counter, root's rstat value and root's
 * lruvec on each host: reading an excluded item from node counters would give
 * the larger node figure.
 * The flush is the same code on both hosts (patch 2 changes reads only), so only
 * mainline's is judged. Once after the repetitions, on the mainline host with the
 * periodic flusher on (the kernel's default), each patched call site alone: per
 * --site-steps steps, the activity above, the clock advanced by --site-step-ms,
 * then one call of the site's root flush as the kernel gates it (ratelimited for
 * workingset_test_recent and zswap_shrinker_count, the threshold gate for DAMON's
 * goal), timed; then --reads / 10 calls with nothing updated time a call whose
 * gate stays shut. A site's cost per call weighs its flush by how often the gate
 * let it through: what skipping the root flush saves there per call.
 *
 * What the time measures: the model's flush (its per-CPU lock, the llist drain,
 * the updated-tree walk and the per-item aggregation, in C on this machine, one
 * thread, no contention) and the model's reads, as CPU time of the driver
 * thread. There is no lock waiting, no cache-line transfer between real CPUs and
 * no bpftrace: only the shapes of the comparisons carry over, not the
 * microseconds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>

#include "bench_root_flush.h"
#include "bench_root_flush_run.h"
#include "bench_util.h"
#include "bench_registry.h"

static const char *const host_names[NHOSTS] = { "mainline (rstat)", "thread-002 (node)" };

/* Host slot h with root-lruvec-read=node when node, else mainline's rstat. */
int bench_rf_host_setup_as(struct rf *r, unsigned int h, bool node)
{
	struct rf_host *hh = &r->hosts[h];
	struct msim_config cfg;
	char err[256], name[32];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = r->cpus;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.variants = r->base;
	bench_variant_set(&cfg.variants, "root-lruvec-read",
			  node ? MSIM_ROOT_LRUVEC_READ_NODE : MSIM_ROOT_LRUVEC_READ_RSTAT);
	/*
	 * The kernel's node counters: per-CPU diffs folded past stat_threshold (125
	 * on a 64 GiB node), so a node read misses what each CPU holds below it.
	 */
	bench_variant_set(&cfg.variants, "node-stat", MSIM_NODE_STAT_PERCPU);
	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = 64UL << 18;
	ret = msim_create(&cfg, &hh->m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "root-flush: msim_create: %s\n", err);
		return ret;
	}
	msim_set_current_host(hh->m);
	ret = msim_rstat_init(hh->m, NULL);
	if (ret)
		return ret;
	/* No surprise periodic flush inside a timed region. */
	msim_rstat_periodic_flush_enable(hh->m, false);
	hh->memcgs = calloc(r->nmemcgs + 1, sizeof(*hh->memcgs));
	hh->lruvecs = calloc(r->nmemcgs + 1, sizeof(*hh->lruvecs));
	if (!hh->memcgs || !hh->lruvecs)
		return -ENOMEM;
	for (unsigned int i = 0; i < r->nmemcgs; i++) {
		snprintf(name, sizeof(name), "job%u", i);
		ret = msim_memcg_create(msim_root_mem_cgroup(hh->m), name, &hh->memcgs[i]);
		if (ret)
			return ret;
		hh->lruvecs[i] = msim_mem_cgroup_lruvec(hh->m, hh->memcgs[i], 0);
	}
	hh->root_lruvec = msim_mem_cgroup_lruvec(hh->m, msim_root_mem_cgroup(hh->m), 0);
	return 0;
}

static int host_setup(struct rf *r, unsigned int h)
{
	return bench_rf_host_setup_as(r, h, h == 1);
}

void bench_rf_host_teardown(struct rf_host *hh)
{
	bench_host_destroy(hh->m);
	free(hh->memcgs);
	free(hh->lruvecs);
	memset(hh, 0, sizeof(*hh));
}

/* One CPU's share of the activity: every memcg allocates 2 pages, frees 1, faults once. */
static void dirty_task(void *arg)
{
	struct rf *r = arg;
	struct rf_host *hh = &r->hosts[r->cur];

	for (unsigned int i = 0; i < r->nmemcgs; i++) {
		msim_mod_lruvec_state(hh->lruvecs[i], MSIM_NR_ACTIVE_ANON, 2);
		msim_mod_lruvec_state(hh->lruvecs[i], MSIM_NR_ACTIVE_ANON, -1);
		msim_count_memcg_events(hh->memcgs[i], MSIM_PGFAULT, 1);
	}
}

int bench_rf_dirty_all_cpus(struct rf *r, unsigned int h)
{
	struct rf_host *hh = &r->hosts[h];

	r->cur = h;
	for (unsigned int cpu = 0; cpu < r->cpus; cpu++)
		if (!msim_task_create(hh->m, "dirty", cpu, dirty_task, r))
			return -ENOMEM;
	return msim_run(hh->m);
}

static double time_reads(struct rf *r, unsigned int h, int which)
{
	struct rf_host *hh = &r->hosts[h];
	struct msim_memcg *root = msim_root_mem_cgroup(hh->m);
	unsigned long sum = 0;
	uint64_t t0 = bench_cpu_ns();

	for (unsigned long i = 0; i < r->reads; i++) {
		if (which == 0)
			sum += msim_lruvec_page_state(hh->root_lruvec, MSIM_NR_ACTIVE_ANON);
		else if (which == 1)
			sum += msim_memcg_page_state(root, MSIM_NR_ACTIVE_ANON);
		else
			sum += msim_node_page_state(hh->m, 0, MSIM_NR_ACTIVE_ANON);
	}
	r->sink += sum;
	return (double)(bench_cpu_ns() - t0) / (double)r->reads;
}

static double rf_sample(unsigned int h, unsigned int rep, void *ctx)
{
	struct rf *r = ctx;
	struct rf_host *hh = &r->hosts[h];
	struct msim_memcg *root = msim_root_mem_cgroup(hh->m);
	uint64_t t0, active_ns = 0;

	msim_set_current_host(hh->m);
	/* Active: dirty on every CPU, then one timed forced root flush, per round. */
	for (unsigned int a = 0; a < r->active_rounds; a++) {
		if (bench_rf_dirty_all_cpus(r, h))
			return NAN;
		if (h == 0 && rep == 0 && a == 0)
			msim_rstat_counters_reset(hh->m);
		t0 = bench_cpu_ns();
		msim_mem_cgroup_flush_stats_forced(root);
		active_ns += bench_cpu_ns() - t0;
		if (h == 0 && rep == 0 && a == 0)
			msim_rstat_counters(hh->m, &r->active_counts);
	}
	/* Idle: nothing updated since the flush above. */
	if (h == 0 && rep == 0)
		msim_rstat_counters_reset(hh->m);
	t0 = bench_cpu_ns();
	for (unsigned int i = 0; i < r->idle_flushes; i++)
		msim_mem_cgroup_flush_stats_forced(root);
	r->idle_us[h * 1000 + rep] = (double)(bench_cpu_ns() - t0) / r->idle_flushes / 1e3;
	if (h == 0 && rep == 0)
		msim_rstat_counters(hh->m, &r->idle_counts);
	r->active_us[h * 1000 + rep] = (double)active_ns / r->active_rounds / 1e3;
	r->lruvec_read_ns[h * 1000 + rep] = time_reads(r, h, 0);
	r->memcg_read_ns[h * 1000 + rep] = time_reads(r, h, 1);
	r->node_read_ns[h * 1000 + rep] = time_reads(r, h, 2);
	r->root_anon_lruvec[h] = msim_lruvec_page_state(hh->root_lruvec, MSIM_NR_ACTIVE_ANON);
	if (h == 0) {
		r->root_anon_rstat = msim_memcg_page_state(root, MSIM_NR_ACTIVE_ANON);
		r->root_anon_node = msim_node_page_state(hh->m, 0, MSIM_NR_ACTIVE_ANON);
	}
	return r->active_us[h * 1000 + rep];
}

static void summarise(const struct rf *r, unsigned int reps, struct bench_rf_summary *s)
{
	for (unsigned int h = 0; h < NHOSTS; h++) {
		s->idle_us[h] = bench_median(r->idle_us + h * 1000, reps);
		s->active_us[h] = bench_median(r->active_us + h * 1000, reps);
		s->lruvec_ns[h] = bench_median(r->lruvec_read_ns + h * 1000, reps);
		s->memcg_ns[h] = bench_median(r->memcg_read_ns + h * 1000, reps);
		s->node_ns[h] = bench_median(r->node_read_ns + h * 1000, reps);
	}
}

/* ---- the thread's comparisons ---- */

static const char *const rf_fig_names[BENCH_RF_NFIGS] = {
	[BENCH_RF_F_IDLE_US] = "idle_flush_us",
	[BENCH_RF_F_ACTIVE_US] = "active_flush_us",
	[BENCH_RF_F_ACTIVE_NS] = "active_flush_ns",
	[BENCH_RF_F_ACTIVE_PER_READ] = "active_flush_per_node_lruvec_read",
	[BENCH_RF_F_LRUVEC_RSTAT_NS] = "root_lruvec_read_rstat_ns",
	[BENCH_RF_F_LRUVEC_NODE_NS] = "root_lruvec_read_node_ns",
	[BENCH_RF_F_LRUVEC_NODE_PER_RSTAT] = "root_lruvec_node_per_rstat",
	[BENCH_RF_F_EXCL_KEPT] = "excluded_items_read_from_rstat_by_patch2",
	[BENCH_RF_F_EXCL_DIFFER] = "excluded_items_whose_node_counter_differs",
	[BENCH_RF_F_ANON_RSTAT] = "root_active_anon_rstat",
	[BENCH_RF_F_ANON_SNAPSHOT] = "node_active_anon_snapshot",
	[BENCH_RF_F_ANON_LRUVEC_NODE] = "root_lruvec_active_anon_patch2",
	[BENCH_RF_F_ANON_NODE_OFF] = "|patch2_root_read - snapshot|",
#define SITE_NAMES(s, key)                                                                   \
	[BENCH_RF_F_SITE(s, 0)] = key "_calls", [BENCH_RF_F_SITE(s, 1)] = key "_through_fraction", \
	[BENCH_RF_F_SITE(s, 2)] = key "_ns_per_call", [BENCH_RF_F_SITE(s, 3)] = key "_per_call_per_read"
	SITE_NAMES(BENCH_RF_SITE_WORKINGSET, "workingset"),
	SITE_NAMES(BENCH_RF_SITE_ZSWAP, "zswap"),
	SITE_NAMES(BENCH_RF_SITE_DAMON, "damon"),
#undef SITE_NAMES
};

#define SITE_OURS(s)                                                                         \
	{ "flushes let through per call", BENCH_RF_F_SITE(s, 1), 0, "" },                    \
	{ "cost per call, weighted", BENCH_RF_F_SITE(s, 2), 0, "ns" },                       \
	{ "per node read", BENCH_RF_F_SITE(s, 3), 0, "x" },                                  \
	{ "node read", BENCH_RF_F_LRUVEC_NODE_NS, 0, "ns" }

/* "Expensive": the weighted flush of a call costs more than 10 node reads. */
#define SITE_EXPENSIVE(s) { BENCH_RF_F_SITE(s, 3), BENCH_VOP_GT, 10 }

#define RATELIMIT_WHY "mem_cgroup_flush_stats_ratelimited flushes only when the periodic " \
		      "flusher is a full cycle late (jiffies past flush_last_time + 4 s); with " \
		      "it on time, as here, the call is a time test"

/* Thread 002: 69 us idle, ~900 us with 128 active memcgs, ~150 ns per read. */
static const struct bench_verdict_row rf_rows[] = {
	{
		.claim = "a root flush with 128 active memcgs costs far more than one with little "
			 "activity (69 us)",
		.thread = { { "active / little activity", 0, 900.0 / 69, "x" },
			    { "little activity", 0, 69, "us" }, { "active", 0, 900, "us" } },
		.ours = { { "idle (nothing to fold)", BENCH_RF_F_IDLE_US, 0, "us" },
			  { "active", BENCH_RF_F_ACTIVE_US, 0, "us" } },
		.rule = BENCH_RULE_NONE,
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] =
				 "the model's idle flush has nothing at all to fold (it visits every "
				 "CPU and flushes no memcg); the thread's 69 us flush had \"little "
				 "activity\", which the bench does not make" },
	},
	{
		.claim = "a root flush with 128 active memcgs costs orders of magnitude more than "
			 "a root read from node counters",
		.thread = { { "flush / read", 0, 900e3 / 150, "x" } },
		.ours = { { "flush / read", BENCH_RF_F_ACTIVE_PER_READ, 0, "x" },
			  { "flush", BENCH_RF_F_ACTIVE_US, 0, "us" },
			  { "read", BENCH_RF_F_LRUVEC_NODE_NS, 0, "ns" } },
		.holds_when = { { BENCH_RF_F_ACTIVE_NS, BENCH_VOP_GT, 100, BENCH_RF_F_LRUVEC_NODE_NS } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "the flush is within 100 reads" },
	},
	{
		.claim = "reading root's lruvec from the node counters (patch 2) costs what "
			 "reading its rstat value costs",
		.thread = { { "node / rstat read", 0, 1, "x" }, { "each", 0, 150, "ns" } },
		.ours = { { "node / rstat read", BENCH_RF_F_LRUVEC_NODE_PER_RSTAT, 0, "x" },
			  { "patch 2", BENCH_RF_F_LRUVEC_NODE_NS, 0, "ns" },
			  { "mainline", BENCH_RF_F_LRUVEC_RSTAT_NS, 0, "ns" } },
		.holds_when = { { BENCH_RF_F_LRUVEC_NODE_PER_RSTAT, BENCH_VOP_GT, 0.5 },
				{ BENCH_RF_F_LRUVEC_NODE_PER_RSTAT, BENCH_VOP_LT, 2 } },
		.why = { [BENCH_VERDICT_HOLDS] = "within a factor of 2",
			 [BENCH_VERDICT_DOES_NOT_HOLD] =
				 "the two reads differ by 2x or more: patch 2's read tests the "
				 "exclusion list, then reads the node counter; mainline's reads "
				 "the lruvec's rstat aggregate" },
		.note = "like with like: the same lruvec_page_state(root lruvec) call before and "
			"after patch 2, on hosts alternated in one process",
	},
	{
		.claim = "patch 3: the root flush workingset_test_recent skips is expensive per "
			 "refault",
		.thread = { { "a root flush", 0, 69, "us" }, { "to", 0, 900, "us" } },
		.ours = { SITE_OURS(BENCH_RF_SITE_WORKINGSET) },
		.holds_when = { SITE_EXPENSIVE(BENCH_RF_SITE_WORKINGSET) },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = RATELIMIT_WHY },
		.note = "a call per activity step, the site alone; the model's periodic flusher "
			"is never late (a busy system_unbound_wq would let one call per 4 s "
			"through): the thread's flush times stand for a call only then",
	},
	{
		.claim = "patch 1: the root flush zswap_shrinker_count no longer needs is "
			 "expensive per count",
		.thread = { { "a root flush", 0, 69, "us" }, { "to", 0, 900, "us" } },
		.ours = { SITE_OURS(BENCH_RF_SITE_ZSWAP) },
		.holds_when = { SITE_EXPENSIVE(BENCH_RF_SITE_ZSWAP) },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = RATELIMIT_WHY },
	},
	{
		.claim = "patch 4: DAMON's goal flush is not ratelimited: it flushes root every "
			 "time the goal is evaluated",
		.thread = { { "\"happens every time\"", 0, NAN, "" } },
		.ours = { SITE_OURS(BENCH_RF_SITE_DAMON) },
		.holds_when = { { BENCH_RF_F_SITE(BENCH_RF_SITE_DAMON, 1), BENCH_VOP_EQ, 1 },
				SITE_EXPENSIVE(BENCH_RF_SITE_DAMON) },
		.why = { [BENCH_VERDICT_HOLDS] = "its threshold gate opens at every evaluation under "
						"this activity (128 memcgs on every CPU per step)",
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "the threshold gate stayed shut at some "
							"evaluations, or the weighted flush is "
							"within 10 node reads" },
	},
	{
		.claim = "patch 2's exclusions matter: kernel stack, page tables and hugetlb have "
			 "node counters larger than root's charged figure, and patch 2 reads root's",
		.thread = { { "\"the node counter value can be higher than the rstat value\"", 0,
			      NAN, "" } },
		.ours = { { "items (of 3) patch 2 reads from rstat", BENCH_RF_F_EXCL_KEPT, 0, "" },
			  { "items whose node counter differs", BENCH_RF_F_EXCL_DIFFER, 0, "" } },
		.holds_when = { { BENCH_RF_F_EXCL_KEPT, BENCH_VOP_EQ, BENCH_RF_NEXCL },
				{ BENCH_RF_F_EXCL_DIFFER, BENCH_VOP_EQ, BENCH_RF_NEXCL } },
		.why = { [BENCH_VERDICT_HOLDS] = "the node counters also count what no memcg is "
						"charged for (kernel threads' stacks, kernel page "
						"tables, unaccounted hugetlb); reading them for "
						"root would report that memory as root's",
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "an excluded item read the node counter "
							"under patch 2, or its node counter "
							"equals root's figure" },
		.note = "each item's node, rstat and lruvec figures are printed below the table",
	},
	{
		.claim = "for a memcg-owned item, root's flushed rstat value is the node's truth",
		.thread = { { "\"the root memcg's hierarchical value equals the node counter\"", 0,
			      NAN, "" } },
		.ours = { { "root rstat NR_ACTIVE_ANON", BENCH_RF_F_ANON_RSTAT, 0, "pages" },
			  { "node snapshot", BENCH_RF_F_ANON_SNAPSHOT, 0, "pages" } },
		.rule = BENCH_RULE_BY_CONSTRUCTION,
		.why = { [BENCH_VERDICT_BY_CONSTRUCTION] =
				 "every LRU folio is charged (root's too: commit_charge sets "
				 "root's memcg), so every NR_ACTIVE_ANON update of the bench goes "
				 "through a memcg, and a forced flush at a quiescent point folds "
				 "them all: equal by the setup; the exclusion row above is where "
				 "node-only traffic makes the two differ" },
	},
	{
		.claim = "node counters are always up to date: patch 2's root read is the truth",
		.thread = { { "\"always up to date and don't need flushing\"", 0, NAN, "" } },
		.ours = { { "patch 2's root read", BENCH_RF_F_ANON_LRUVEC_NODE, 0, "pages" },
			  { "node snapshot", BENCH_RF_F_ANON_SNAPSHOT, 0, "pages" },
			  { "off by", BENCH_RF_F_ANON_NODE_OFF, 0, "pages" } },
		.holds_when = { { BENCH_RF_F_ANON_NODE_OFF, BENCH_VOP_EQ, 0 } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "node-stat=percpu: each CPU keeps up to "
							"stat_threshold pages in its diff until a "
							"fold, and node_page_state does not add "
							"them" },
	},
};

static void excl_figures(const struct bench_rf_summary *s, double *f)
{
	const struct bench_rf_exclusions *x = &s->excl;
	unsigned int kept = 0, differ = 0;

	for (unsigned int i = 0; i < BENCH_RF_NEXCL; i++) {
		kept += x->lruvec[1][i] == x->rstat[i] && x->lruvec[0][i] == x->rstat[i];
		differ += x->node[i] != x->rstat[i];
	}
	f[BENCH_RF_F_EXCL_KEPT] = s->excl_measured ? kept : NAN;
	f[BENCH_RF_F_EXCL_DIFFER] = s->excl_measured ? differ : NAN;
	f[BENCH_RF_F_ANON_RSTAT] = s->excl_measured ? x->anon_rstat : NAN;
	f[BENCH_RF_F_ANON_SNAPSHOT] = s->excl_measured ? x->anon_snapshot : NAN;
	f[BENCH_RF_F_ANON_LRUVEC_NODE] = s->excl_measured ? x->anon_lruvec_node_host : NAN;
	f[BENCH_RF_F_ANON_NODE_OFF] = fabs(f[BENCH_RF_F_ANON_LRUVEC_NODE] - f[BENCH_RF_F_ANON_SNAPSHOT]);
}

void bench_rf_verdicts(const struct bench_rf_summary *s, struct bench_rf_verdicts *v)
{
	double *f = v->fig;

	f[BENCH_RF_F_NONE] = 0;
	f[BENCH_RF_F_IDLE_US] = s->idle_us[0];
	f[BENCH_RF_F_ACTIVE_US] = s->active_us[0];
	f[BENCH_RF_F_ACTIVE_NS] = s->active_us[0] * 1e3;
	f[BENCH_RF_F_LRUVEC_RSTAT_NS] = s->lruvec_ns[0];
	f[BENCH_RF_F_LRUVEC_NODE_NS] = s->lruvec_ns[1];
	f[BENCH_RF_F_ACTIVE_PER_READ] = bench_ratio(s->active_us[0] * 1e3, s->lruvec_ns[1]);
	f[BENCH_RF_F_LRUVEC_NODE_PER_RSTAT] = bench_ratio(s->lruvec_ns[1], s->lruvec_ns[0]);
	excl_figures(s, f);
	for (unsigned int i = 0; i < BENCH_RF_NSITES; i++) {
		const struct bench_rf_site_result *sr = &s->site[i];

		f[BENCH_RF_F_SITE(i, 0)] = sr->calls ? (double)sr->calls : NAN;
		f[BENCH_RF_F_SITE(i, 1)] = sr->calls ? (double)sr->through / sr->calls : NAN;
		f[BENCH_RF_F_SITE(i, 2)] = sr->calls ? sr->per_call_ns : NAN;
		f[BENCH_RF_F_SITE(i, 3)] = sr->calls ? bench_ratio(sr->per_call_ns,
								   s->lruvec_ns[1]) : NAN;
	}
	v->table = (struct bench_verdict_table){
		.reference = "thread 002",
		.rows = rf_rows,
		.nrows = sizeof(rf_rows) / sizeof(rf_rows[0]),
		.fig_names = rf_fig_names,
		.fig = v->fig,
		.nfig = BENCH_RF_NFIGS,
	};
}

static void print_text(const struct rf *r, const struct bench_rf_summary *s,
		       const struct bench_opts *a)
{
	struct bench_rf_verdicts v;

	printf("root flush vs node counters (thread 002): %u simulated CPUs, %u memcgs under root,\n"
	       "median of %u repetitions, hosts alternated\n", r->cpus, r->nmemcgs, a->reps);
	bench_print_base_variants(a, "root-lruvec-read set per host");
	printf("%-38s %-18s %-18s %-12s\n", "", host_names[0], host_names[1], "thread 002");
	/* the flush is the same code on both hosts: patch 2 changes reads only */
	printf("%-38s %-18.1f %-18s %-12s\n", "root flush, idle (us)", s->idle_us[0],
	       "(same code)", "69 (little activity)");
	printf("%-38s %-18.1f %-18s %-12s\n", "root flush, 128 active memcgs (us)",
	       s->active_us[0], "(same code)", "~900");
	printf("%-38s %-18.2f %-18.2f %-12s\n", "read root lruvec NR_ACTIVE_ANON (ns)",
	       s->lruvec_ns[0], s->lruvec_ns[1], "~150");
	printf("%-38s %-18.2f %-18.2f %-12s\n", "read memcg_page_state(root) (ns)",
	       s->memcg_ns[0], s->memcg_ns[1], "~150");
	printf("%-38s %-18.2f %-18.2f %-12s\n", "read node_page_state (ns)", s->node_ns[0],
	       s->node_ns[1], "~150");
	printf("\nThe patched call sites on mainline, each alone, %u steps of activity %u ms apart,\n"
	       "a fresh host per site, the periodic flusher on: flushes let through, mean time of a call that flushed\n"
	       "and of one whose gate stayed shut, and the cost per call weighted by the two:\n",
	       r->site_steps, r->site_step_ms);
	for (unsigned int i = 0; i < BENCH_RF_NSITES; i++) {
		const struct bench_rf_site_result *sr = &s->site[i];

		char flush[32] = "-";

		if (sr->through)
			snprintf(flush, sizeof(flush), "%.1f us", sr->through_us);
		printf("  %-40s %lu of %lu, flush %s, shut %.1f ns, per call %.1f ns\n",
		       bench_rf_site_names[i], sr->through, sr->calls, flush, sr->closed_ns,
		       sr->per_call_ns);
	}
	printf("\nPatch 2's exclusion list (a child's charged traffic beside node-only traffic, then a\n"
	       "forced root flush): node counter / root rstat / root lruvec read, mainline and patch 2\n");
	for (unsigned int i = 0; i < BENCH_RF_NEXCL; i++)
		printf("  %-16s %.0f / %.0f / %.0f and %.0f\n", bench_rf_excl_names[i], s->excl.node[i],
		       s->excl.rstat[i], s->excl.lruvec[0][i], s->excl.lruvec[1][i]);
	printf("  NR_ACTIVE_ANON after the activity: root rstat %.0f, node_page_state %.0f, node "
	       "snapshot %.0f, patch 2's root read %.0f\n", s->excl.anon_rstat, s->excl.anon_node,
	       s->excl.anon_snapshot, s->excl.anon_lruvec_node_host);
	printf("\nWhat the time measures: the model's own flush and reads in C on this machine,\n"
	       "single-threaded, as CPU time of the driver thread (no rstat lock waiting, no\n"
	       "cross-CPU cache misses, no bpftrace).\n"
	       "The thread's microseconds are kernel wall time on 80 real CPUs.\n\n");
	bench_rf_verdicts(s, &v);
	bench_verdict_print_text(stdout, &v.table);
	printf("\nDeterministic figures (mainline host, first repetition):\n");
	printf("  active flush: cpu visits %llu, memcg flushes %llu, atomic resets %llu\n",
	       (unsigned long long)r->active_counts.cpu_visits,
	       (unsigned long long)r->active_counts.memcg_flushes,
	       (unsigned long long)r->active_counts.atomic_resets);
	printf("  idle flushes (%u): cpu visits %llu, memcg flushes %llu\n", r->idle_flushes,
	       (unsigned long long)r->idle_counts.cpu_visits,
	       (unsigned long long)r->idle_counts.memcg_flushes);
	printf("  root NR_ACTIVE_ANON after the runs: rstat %lu, node %lu; root lruvec read: "
	       "mainline %lu, thread-002 %lu (pages)\n", r->root_anon_rstat, r->root_anon_node,
	       r->root_anon_lruvec[0], r->root_anon_lruvec[1]);
}

static void print_json(const struct rf *r, const struct bench_rf_summary *s,
		       const struct bench_opts *a)
{
	struct bench_rf_verdicts v;
	struct bench_json j;

	bench_json_begin(&j, stdout, "root-flush", "002",
			 "model flush and read work, single thread, not kernel wall time", a);
	bench_json_kuint(&j, "cpus", r->cpus);
	bench_json_kuint(&j, "memcgs", r->nmemcgs);
	bench_json_arr_begin(&j, "hosts");
	for (unsigned int h = 0; h < NHOSTS; h++) {
		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "root_lruvec_read", h ? "node" : "rstat");
		bench_json_kdbl(&j, "idle_flush_us", s->idle_us[h]);
		bench_json_kdbl(&j, "active_flush_us", s->active_us[h]);
		bench_json_kdbl(&j, "root_lruvec_read_ns", s->lruvec_ns[h]);
		bench_json_kdbl(&j, "memcg_page_state_read_ns", s->memcg_ns[h]);
		bench_json_kdbl(&j, "node_page_state_read_ns", s->node_ns[h]);
		bench_json_kuint(&j, "root_lruvec_active_anon", r->root_anon_lruvec[h]);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_json_kuint(&j, "site_steps", r->site_steps);
	bench_json_kuint(&j, "site_step_ms", r->site_step_ms);
	bench_json_arr_begin(&j, "sites");
	for (unsigned int i = 0; i < BENCH_RF_NSITES; i++) {
		const struct bench_rf_site_result *sr = &s->site[i];

		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "site", bench_rf_site_keys[i]);
		bench_json_kstr(&j, "function", bench_rf_site_names[i]);
		bench_json_kstr(&j, "gate", i == BENCH_RF_SITE_DAMON ? "threshold" : "ratelimited");
		bench_json_kuint(&j, "calls", sr->calls);
		bench_json_kuint(&j, "through", sr->through);
		bench_json_kdbl(&j, "through_us", sr->through_us);
		bench_json_kdbl(&j, "closed_ns", sr->closed_ns);
		bench_json_kdbl(&j, "per_call_ns", sr->per_call_ns);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_json_arr_begin(&j, "exclusions");
	for (unsigned int i = 0; i < BENCH_RF_NEXCL; i++) {
		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "item", bench_rf_excl_names[i]);
		bench_json_kdbl(&j, "node", s->excl.node[i]);
		bench_json_kdbl(&j, "root_rstat", s->excl.rstat[i]);
		bench_json_kdbl(&j, "root_lruvec_mainline", s->excl.lruvec[0][i]);
		bench_json_kdbl(&j, "root_lruvec_patch2", s->excl.lruvec[1][i]);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_json_obj_begin(&j, "active_anon_after_activity");
	bench_json_kdbl(&j, "root_rstat", s->excl.anon_rstat);
	bench_json_kdbl(&j, "node_page_state", s->excl.anon_node);
	bench_json_kdbl(&j, "node_snapshot", s->excl.anon_snapshot);
	bench_json_kdbl(&j, "root_lruvec_patch2", s->excl.anon_lruvec_node_host);
	bench_json_obj_end(&j);
	bench_json_obj_begin(&j, "thread_figures");
	bench_json_kdbl(&j, "idle_flush_us", 69);
	bench_json_kdbl(&j, "active_flush_us", 900);
	bench_json_kdbl(&j, "read_ns", 150);
	bench_json_obj_end(&j);
	bench_json_obj_begin(&j, "counts");
	bench_json_kuint(&j, "active_cpu_visits", r->active_counts.cpu_visits);
	bench_json_kuint(&j, "active_memcg_flushes", r->active_counts.memcg_flushes);
	bench_json_kuint(&j, "active_atomic_resets", r->active_counts.atomic_resets);
	bench_json_kuint(&j, "idle_flushes", r->idle_flushes);
	bench_json_kuint(&j, "idle_cpu_visits", r->idle_counts.cpu_visits);
	bench_json_kuint(&j, "idle_memcg_flushes", r->idle_counts.memcg_flushes);
	bench_json_kuint(&j, "root_active_anon_rstat", r->root_anon_rstat);
	bench_json_kuint(&j, "root_active_anon_node", r->root_anon_node);
	bench_json_obj_end(&j);
	bench_rf_verdicts(s, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

/* Options into r and a: 0 to run, 1 after --help, 2 on a usage error. */
static int rf_parse(struct rf *r, int argc, char **argv, struct bench_opts *a)
{
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--cpus", "N", &r->cpus, 1, MSIM_MAX_CPUS,
			       "simulated CPUs (default 80, the thread's machine)"),
		BENCH_OPT_UINT("--memcgs", "N", &r->nmemcgs, 0, 60000,
			       "memcgs under root, all active in the active case (default 128)"),
		BENCH_OPT_ULONG("--reads", "N", &r->reads, 1, 1UL << 30,
				"reads per read timing (default 1000000; quick 20000)"),
		BENCH_OPT_UINT("--site-steps", "N", &r->site_steps, 1, 100000,
			       "activity steps per call site (default 30; quick 6)"),
		BENCH_OPT_UINT("--site-step-ms", "MS", &r->site_step_ms, 1, 100000,
			       "virtual time between a site's calls (default 200)"),
		BENCH_OPT_END,
	};
	const struct bench_spec spec = {
		.name = "root-flush",
		.summary = "thread 002: root flush with 0 and 128 active memcgs on 80 CPUs, against\n"
			   "reading node counters (variant root-lruvec-read).",
		.description = "Two hosts (root-lruvec-read=rstat and =node), alternated in each\n"
			       "repetition. Activity comes from one deterministic task per CPU; only\n"
			       "the flush itself is timed, on the driver.",
		.default_reps = 5,
		.quick_reps = 1,
		.options = opts,
	};
	int ret;

	r->cpus = 80;
	r->nmemcgs = 128;
	ret = bench_parse_args(&spec, argc, argv, a);
	if (ret)
		return ret;
	r->base = a->variants;
	if (a->reps > 1000)   /* the sample arrays hold 1000 repetitions per host */
		a->reps = 1000;
	if (!r->reads)
		r->reads = a->quick ? 20000 : 1000000;
	if (!r->site_steps)
		r->site_steps = a->quick ? 6 : 30;
	if (!r->site_step_ms)
		r->site_step_ms = 200;
	r->idle_flushes = a->quick ? 5 : 50;
	r->active_rounds = a->quick ? 1 : 3;
	return 0;
}

static int rf_alloc(struct rf *r)
{
	r->idle_us = calloc(NHOSTS * 1000, sizeof(double));
	r->active_us = calloc(NHOSTS * 1000, sizeof(double));
	r->lruvec_read_ns = calloc(NHOSTS * 1000, sizeof(double));
	r->memcg_read_ns = calloc(NHOSTS * 1000, sizeof(double));
	r->node_read_ns = calloc(NHOSTS * 1000, sizeof(double));
	return r->idle_us && r->active_us && r->lruvec_read_ns && r->memcg_read_ns &&
	       r->node_read_ns ? 0 : -ENOMEM;
}

static void rf_free(struct rf *r)
{
	for (unsigned int h = 0; h <= NHOSTS; h++)
		bench_rf_host_teardown(&r->hosts[h]);
	free(r->idle_us);
	free(r->active_us);
	free(r->lruvec_read_ns);
	free(r->memcg_read_ns);
	free(r->node_read_ns);
	free(r);
}

/* Both hosts built, then the repetitions, hosts alternated; medians into s. */
static int rf_measure(struct rf *r, unsigned int reps, struct bench_rf_summary *s)
{
	double *dummy = calloc((size_t)NHOSTS * reps, sizeof(double));
	struct bench_progress prog;

	if (!dummy)
		return -ENOMEM;
	for (unsigned int h = 0; h < NHOSTS; h++)
		if (host_setup(r, h)) {
			fprintf(stderr, "root-flush: host setup failed\n");
			free(dummy);
			return -EINVAL;
		}
	bench_progress_init(&prog, "root-flush", true);
	bench_alternate(NHOSTS, reps, rf_sample, r, dummy, &prog);
	bench_progress_done(&prog);
	summarise(r, reps, s);
	free(dummy);
	return bench_rf_measure_exclusions(r, s) || bench_rf_measure_sites(r, s) ? -EINVAL : 0;
}

static int root_flush_main(int argc, char **argv)
{
	struct rf *r = calloc(1, sizeof(*r));
	struct bench_opts a;
	struct bench_rf_summary s = { 0 };
	int ret;

	if (!r)
		return 1;
	ret = rf_parse(r, argc, argv, &a);
	if (ret) {
		free(r);
		return bench_args_exit_status(ret);
	}
	ret = rf_alloc(r) || rf_measure(r, a.reps, &s) ? 1 : 0;
	if (!ret && a.json)
		print_json(r, &s, &a);
	else if (!ret)
		print_text(r, &s, &a);
	rf_free(r);
	return ret;
}

static const struct bench_engine root_flush_bench = {
	.name = "root-flush",
	.summary = "thread 002: root flush (0 / 128 active memcgs, 80 CPUs) vs node counter reads",
	.main = root_flush_main,
};
BENCH_REGISTER(root_flush_bench);
