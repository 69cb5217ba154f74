/* SPDX-License-Identifier: MIT */
/*
 * bench_damon_goal_read.c - thread 002 patch 4: DAMON's node_memcg_used_bp /
 * _free_bp goal on the root memcg, read by flushing the root (mainline,
 * damon-root-read=flush) or from the node counters (patch 4, =node). What does
 * each read cost, how far is it from the truth, and does the quota's feedback
 * loop still reach its goal?
 *
 * Thread 002 (80-CPU machine, wall time with the rstat lock wait): a root flush
 * took 69 us with little cgroup activity and about 0.9 ms with 128 memcgs
 * allocating and freeing; a node counter read cost what an rstat read costs
 * (about 150 ns, bpftrace included). Patch 4's goal flush "is not ratelimited":
 * it runs at every evaluation (mem_cgroup_flush_stats, threshold-gated).
 *
 * Part 1, cost and error (per repetition, the two designs alternated, one host
 * each, node-stat=percpu so that node reads lag as the kernel's do): --rounds
 * rounds of activity (one task per CPU updates every memcg: +2 then -1 active
 * anon pages, a small allocate/free step, as root-flush does), each followed by
 * one timed goal read (msim_damos_get_node_memcg_used_bp of root, USED_BP on
 * node 0) compared with the truth; then --idle-reads reads with nothing updated
 * since. Error bound of the node read: stat_threshold x CPUs (vmstat).
 * Part 2, the feedback loop: bench_damon_goal_read_loop.c.
 *
 * What the time measures: the model's reader (lookup, reference, the flush or
 * not, four lruvec reads) in C on this machine, one thread, as CPU time of the
 * driver: no lock waiting, no cross-CPU cache misses, no bpftrace. Only the
 * shape of the comparison carries over, not the microseconds. Errors, flushes,
 * windows and bp are deterministic.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_damon_goal_read.h"
#include "bench_util.h"
#include "bench_registry.h"

#define ND BENCH_DGR_NDESIGNS
#define MAXREPS 1000

static const char *const design_names[ND] = { "mainline (flush)", "patch 4 (node)" };

struct dgr_host {
	struct msim *m;
	struct msim_lruvec **lv;
	struct msim_damos_quota_goal goal;
	long truth;
};

struct dgr {
	unsigned int cpus, nmemcgs, node_gib, rounds, idle_reads;
	struct bench_dgr_loop_params lp;
	struct dgr_host hosts[ND];
	unsigned int cur;
	double *active_us, *idle_us;   /* [design * MAXREPS + rep] */
	struct bench_dgr_summary s;
};

static int host_setup(struct dgr *r, unsigned int h, const struct msim_variants *base)
{
	struct dgr_host *hh = &r->hosts[h];
	struct msim_config cfg;
	char err[256], name[32];
	struct msim_memcg *memcg, *root;
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = r->cpus;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.variants = *base;
	bench_variant_set(&cfg.variants, "node-stat", MSIM_NODE_STAT_PERCPU);
	bench_variant_set(&cfg.variants, "damon-root-read",
			  h ? MSIM_DAMON_ROOT_READ_NODE : MSIM_DAMON_ROOT_READ_FLUSH);
	memset(cfg.zone_managed_pages, 0, sizeof(cfg.zone_managed_pages));
	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = (unsigned long)r->node_gib << 18;
	if ((ret = msim_create(&cfg, &hh->m, err, sizeof(err))) ||
	    (ret = msim_rstat_init(hh->m, NULL)) ||
	    (ret = msim_damon_attach(hh->m, err, sizeof(err)))) {
		fprintf(stderr, "damon-goal-read: host: %s\n", err);
		return ret;
	}
	msim_rstat_periodic_flush_enable(hh->m, false);   /* no surprise flush while timed */
	hh->lv = calloc(r->nmemcgs, sizeof(*hh->lv));
	if (!hh->lv)
		return -ENOMEM;
	root = msim_root_mem_cgroup(hh->m);
	for (unsigned int i = 0; i < r->nmemcgs; i++) {
		snprintf(name, sizeof(name), "job%u", i);
		if ((ret = msim_memcg_create(root, name, &memcg)))
			return ret;
		hh->lv[i] = msim_mem_cgroup_lruvec(hh->m, memcg, 0);
	}
	hh->goal = (struct msim_damos_quota_goal){
		.metric = MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP, .target_value = 1, .nid = 0,
		.memcg_id = msim_mem_cgroup_private_id(root) };
	return 0;
}

/* One CPU's share: every memcg allocates 2 pages and frees 1. */
static void dirty_task(void *arg)
{
	struct dgr *r = arg;
	struct dgr_host *hh = &r->hosts[r->cur];

	for (unsigned int i = 0; i < r->nmemcgs; i++) {
		msim_mod_lruvec_state(hh->lv[i], MSIM_NR_ACTIVE_ANON, 2);
		msim_mod_lruvec_state(hh->lv[i], MSIM_NR_ACTIVE_ANON, -1);
		hh->truth += 1;
	}
}

static int dirty_all_cpus(struct dgr *r, unsigned int h)
{
	r->cur = h;
	for (unsigned int cpu = 0; cpu < r->cpus; cpu++)
		if (!msim_task_create(r->hosts[h].m, "dirty", cpu, dirty_task, r))
			return -ENOMEM;
	return msim_run(r->hosts[h].m);
}

/* One timed goal read; its error against the truth goes into the summary. */
static double timed_read(struct dgr *r, unsigned int h)
{
	struct dgr_host *hh = &r->hosts[h];
	struct msim_damos_read_info info;
	uint64_t t0 = bench_cpu_ns();
	double e;

	msim_damos_get_node_memcg_used_bp_info(hh->m, &hh->goal, &info);
	t0 = bench_cpu_ns() - t0;
	e = fabs((double)info.used_pages - (double)hh->truth);
	r->s.err_max[h] = fmax(r->s.err_max[h], e);
	r->s.err_bp_max[h] = fmax(r->s.err_bp_max[h], e * 10000.0 / (double)info.totalram);
	r->s.flushes[h] += info.flushed;
	return (double)t0;
}

static void check_snapshot(struct dgr *r, unsigned int h)
{
	struct dgr_host *hh = &r->hosts[h];
	double snap = (double)msim_vmstat_node_page_state_snapshot(hh->m, 0, MSIM_NR_ACTIVE_ANON);

	r->s.snapshot_err = fmax(r->s.snapshot_err, fabs(snap - (double)hh->truth));
}

static double dgr_sample(unsigned int h, unsigned int rep, void *ctx)
{
	struct dgr *r = ctx;
	double active_ns = 0, idle_ns = 0;

	msim_set_current_host(r->hosts[h].m);
	for (unsigned int a = 0; a < r->rounds; a++) {
		if (dirty_all_cpus(r, h))
			return NAN;
		active_ns += timed_read(r, h);
		check_snapshot(r, h);
	}
	for (unsigned int i = 0; i < r->idle_reads; i++)
		idle_ns += timed_read(r, h);
	r->active_us[h * MAXREPS + rep] = active_ns / r->rounds / 1e3;
	r->idle_us[h * MAXREPS + rep] = idle_ns / r->idle_reads / 1e3;
	return r->active_us[h * MAXREPS + rep];
}

/* ---- the comparisons ---- */

static const char *const fig_names[BENCH_DGR_NFIGS] = {
	[BENCH_DGR_F_FLUSH_ACTIVE_US] = "flush_active_us",
	[BENCH_DGR_F_FLUSH_IDLE_US] = "flush_idle_us",
	[BENCH_DGR_F_NODE_ACTIVE_US] = "node_active_us",
	[BENCH_DGR_F_FLUSH_PER_NODE] = "flush_per_node",
	[BENCH_DGR_F_NODE_ACTIVE_NS] = "node_active_ns",
	[BENCH_DGR_F_FLUSH_ERR] = "flush_err_max",
	[BENCH_DGR_F_NODE_ERR] = "node_err_max",
	[BENCH_DGR_F_NODE_ERR_BP] = "node_err_bp_max",
	[BENCH_DGR_F_DRIFT_BOUND] = "drift_bound",
	[BENCH_DGR_F_SNAPSHOT_ERR] = "snapshot_err",
	[BENCH_DGR_F_FLUSH_CONVERGED] = "flush_converged",
	[BENCH_DGR_F_NODE_CONVERGED] = "node_converged",
	[BENCH_DGR_F_FLUSH_WINDOW] = "flush_converged_window",
	[BENCH_DGR_F_NODE_WINDOW] = "node_converged_window",
	[BENCH_DGR_F_FLUSH_DEV] = "flush_steady_dev_bp",
	[BENCH_DGR_F_NODE_DEV] = "node_steady_dev_bp",
	[BENCH_DGR_F_TOL] = "tol_bp",
	[BENCH_DGR_F_COURSE_DIV] = "course_div_bp",
	[BENCH_DGR_F_FLUSH_LOOP_ERR] = "flush_loop_read_err_bp",
	[BENCH_DGR_F_NODE_LOOP_ERR] = "node_loop_read_err_bp",
	[BENCH_DGR_F_FLUSHES] = "flush_reads_flushed",
};

static const struct bench_verdict_row rows[] = {
	{
		.claim = "with 128 active memcgs the goal's root flush costs far more than with none",
		.thread = { { "idle", 0, 69, "us" }, { "active", 0, 900, "us" } },
		.ours = { { "idle", BENCH_DGR_F_FLUSH_IDLE_US, 0, "us" },
			  { "active", BENCH_DGR_F_FLUSH_ACTIVE_US, 0, "us" } },
		.holds_when = { { BENCH_DGR_F_FLUSH_ACTIVE_US, BENCH_VOP_GT, 2,
				  BENCH_DGR_F_FLUSH_IDLE_US } },
		.why = { [BENCH_VERDICT_HOLDS] = "in direction; the model's idle read meets a shut "
						"threshold gate and flushes nothing, the thread's "
						"idle flush ran" },
	},
	{
		.claim = "reading node counters instead makes the goal read far cheaper than the flush",
		.thread = { { "flush / node read", 0, 900e3 / 150, "x" }, { "node read", 0, 150, "ns" } },
		.ours = { { "flush / node read", BENCH_DGR_F_FLUSH_PER_NODE, 0, "x" },
			  { "node read", BENCH_DGR_F_NODE_ACTIVE_NS, 0, "ns" } },
		.holds_when = { { BENCH_DGR_F_FLUSH_ACTIVE_US, BENCH_VOP_GT, 10,
				  BENCH_DGR_F_NODE_ACTIVE_US } },
		.why = { [BENCH_VERDICT_HOLDS] = "the model's node read is the whole reader (lookup, "
						"reference, four reads), the thread's one counter" },
	},
	{
		.claim = "node counters are always up to date (the goal's node read is exact)",
		.thread = { { "\"always up to date\"", 0, NAN, "" } },
		.ours = { { "worst node read error", BENCH_DGR_F_NODE_ERR, 0, "pages" } },
		.comparable_when = { { BENCH_DGR_F_SNAPSHOT_ERR, BENCH_VOP_EQ, 0 } },
		.holds_when = { { BENCH_DGR_F_NODE_ERR, BENCH_VOP_EQ, 0 } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "up to stat_threshold pages per CPU wait in "
							"per-CPU diffs until a fold",
			 [BENCH_VERDICT_NOT_COMPARABLE] = "the snapshot is not exact: the truth is "
							 "in doubt" },
	},
	{
		.claim = "the goal's node read stays within stat_threshold x CPUs of the truth",
		.thread = { { "(vmstat's bound, not the thread's)", 0, NAN, "" } },
		.ours = { { "worst", BENCH_DGR_F_NODE_ERR, 0, "pages" },
			  { "bound", BENCH_DGR_F_DRIFT_BOUND, 0, "pages" } },
		.comparable_when = { { BENCH_DGR_F_SNAPSHOT_ERR, BENCH_VOP_EQ, 0 } },
		.holds_when = { { BENCH_DGR_F_NODE_ERR, BENCH_VOP_LE, 1, BENCH_DGR_F_DRIFT_BOUND } },
	},
	{
		.claim = "the node read's drift is small against the goal (under 1 % of node RAM)",
		.thread = { { "(ours, not the thread's)", 0, NAN, "" } },
		.ours = { { "worst", BENCH_DGR_F_NODE_ERR_BP, 0, "bp" } },
		.holds_when = { { BENCH_DGR_F_NODE_ERR_BP, BENCH_VOP_LE, 100 } },
	},
	{
		.claim = "the flushed read is exact when its flush got through",
		.thread = { { "(mainline's premise)", 0, NAN, "" } },
		.ours = { { "worst flush read error", BENCH_DGR_F_FLUSH_ERR, 0, "pages" },
			  { "reads whose flush got through", BENCH_DGR_F_FLUSHES, 0, "" } },
		.rule = BENCH_RULE_BY_CONSTRUCTION,
		.why = { [BENCH_VERDICT_BY_CONSTRUCTION] =
				 "the bench reads on the driver at a quiescent point (no update in "
				 "flight), so a flush that gets through its gate folds every CPU's "
				 "counts before the read: the error is 0 by the setup, not by "
				 "measurement (the figures show how many reads flushed)" },
	},
	{
		.claim = "the quota's feedback loop reaches its goal under both designs",
		.thread = { { "(the series changes no tuning)", 0, NAN, "" } },
		.ours = { { "flush from window", BENCH_DGR_F_FLUSH_WINDOW, 0, "" },
			  { "node from window", BENCH_DGR_F_NODE_WINDOW, 0, "" },
			  { "tolerance", BENCH_DGR_F_TOL, 0, "bp" } },
		.holds_when = { { BENCH_DGR_F_FLUSH_CONVERGED, BENCH_VOP_EQ, 1 },
				{ BENCH_DGR_F_NODE_CONVERGED, BENCH_VOP_EQ, 1 } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "a design's true free bp did not stay within "
							"the tolerance over the last quarter" },
	},
	{
		.claim = "skipping the root flush does not change the loop's course",
		.thread = { { "\"doesn't add any cost\"", 0, NAN, "" } },
		.ours = { { "largest gap between the designs' free bp", BENCH_DGR_F_COURSE_DIV, 0, "bp" },
			  { "tolerance", BENCH_DGR_F_TOL, 0, "bp" } },
		.holds_when = { { BENCH_DGR_F_COURSE_DIV, BENCH_VOP_LE, 1, BENCH_DGR_F_TOL } },
		.why = { [BENCH_VERDICT_HOLDS] = "window by window, whether or not the loop settles",
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "the designs read different values (the gated "
							"flush's staleness, the node read's drift) "
							"and the loop followed them" },
	},
	{
		.claim = "reading node counters makes the root goal's reads more accurate",
		.thread = { { "\"more accurate\" (patch 2)", 0, NAN, "" } },
		.ours = { { "worst loop read, flush", BENCH_DGR_F_FLUSH_LOOP_ERR, 0, "bp" },
			  { "worst loop read, node", BENCH_DGR_F_NODE_LOOP_ERR, 0, "bp" } },
		.holds_when = { { BENCH_DGR_F_NODE_LOOP_ERR, BENCH_VOP_LT, 1,
				  BENCH_DGR_F_FLUSH_LOOP_ERR } },
		.why = { [BENCH_VERDICT_HOLDS] = "at the loop's reads, one per second, after vmstat's "
						"1 s fold; the gated flush lets root go stale by up "
						"to its threshold",
			 [BENCH_VERDICT_DOES_NOT_HOLD] = "strictly more accurate or not at all: equal "
							"worst errors are no difference, a larger "
							"one is less accurate" },
	},
	{
		.claim = "under both designs the loop reaches its goal in the same window",
		.thread = { { "(the series changes no tuning)", 0, NAN, "" } },
		.ours = { { "flush from window", BENCH_DGR_F_FLUSH_WINDOW, 0, "" },
			  { "node from window", BENCH_DGR_F_NODE_WINDOW, 0, "" } },
		.comparable_when = { { BENCH_DGR_F_FLUSH_CONVERGED, BENCH_VOP_EQ, 1 },
				     { BENCH_DGR_F_NODE_CONVERGED, BENCH_VOP_EQ, 1 } },
		.holds_when = { { BENCH_DGR_F_NODE_WINDOW, BENCH_VOP_EQ, 1, BENCH_DGR_F_FLUSH_WINDOW } },
		.why = { [BENCH_VERDICT_NOT_COMPARABLE] = "a design did not converge" },
	},
};

void bench_dgr_verdicts(const struct bench_dgr_summary *s, struct bench_dgr_verdicts *v)
{
	double *f = v->fig;

	memset(f, 0, sizeof(v->fig));
	f[BENCH_DGR_F_FLUSH_ACTIVE_US] = s->active_read_us[0];
	f[BENCH_DGR_F_FLUSH_IDLE_US] = s->idle_read_us[0];
	f[BENCH_DGR_F_NODE_ACTIVE_US] = s->active_read_us[1];
	f[BENCH_DGR_F_FLUSH_PER_NODE] = bench_ratio(s->active_read_us[0], s->active_read_us[1]);
	f[BENCH_DGR_F_NODE_ACTIVE_NS] = s->active_read_us[1] * 1e3;
	f[BENCH_DGR_F_FLUSH_ERR] = s->err_max[0];
	f[BENCH_DGR_F_NODE_ERR] = s->err_max[1];
	f[BENCH_DGR_F_NODE_ERR_BP] = s->err_bp_max[1];
	f[BENCH_DGR_F_DRIFT_BOUND] = s->drift_bound;
	f[BENCH_DGR_F_SNAPSHOT_ERR] = s->snapshot_err;
	f[BENCH_DGR_F_FLUSH_CONVERGED] = s->loop[0].converged;
	f[BENCH_DGR_F_NODE_CONVERGED] = s->loop[1].converged;
	f[BENCH_DGR_F_FLUSH_WINDOW] = s->loop[0].converged_window;
	f[BENCH_DGR_F_NODE_WINDOW] = s->loop[1].converged_window;
	f[BENCH_DGR_F_FLUSH_DEV] = s->loop[0].steady_dev_bp;
	f[BENCH_DGR_F_NODE_DEV] = s->loop[1].steady_dev_bp;
	f[BENCH_DGR_F_TOL] = s->tol_bp;
	f[BENCH_DGR_F_COURSE_DIV] = s->course_div_bp;
	f[BENCH_DGR_F_FLUSH_LOOP_ERR] = s->loop[0].read_err_max;
	f[BENCH_DGR_F_NODE_LOOP_ERR] = s->loop[1].read_err_max;
	f[BENCH_DGR_F_FLUSHES] = s->flushes[0];
	v->table = (struct bench_verdict_table){
		.reference = "thread 002",
		.rows = rows,
		.nrows = sizeof(rows) / sizeof(rows[0]),
		.fig_names = fig_names,
		.fig = v->fig,
		.nfig = BENCH_DGR_NFIGS,
	};
}

/* ---- output ---- */

/* The window a loop converged from, or "-" when it never did (the figure is NaN). */
static const char *window_text(const struct bench_dgr_loop_result *l, char *buf, size_t len)
{
	if (!l->converged || l->converged_window != l->converged_window)
		return "-";
	snprintf(buf, len, "%.0f", l->converged_window);
	return buf;
}

static void print_loop_text(const struct dgr *r)
{
	const struct bench_dgr_loop_result *l = r->s.loop;
	char w[2][32];

	printf("\nfeedback loop: goal node_memcg_free_bp of root = %u bp, start %u bp used, "
	       "%u pages per CPU per second,\n%u virtual seconds, 1 s windows, consist tuner, "
	       "pageout action; converged = within %u bp from some window on\n",
	       r->lp.target_free_bp, r->lp.start_used_bp, r->lp.alloc_per_cpu, r->lp.seconds,
	       r->lp.tol_bp);
	printf("  %-34s %-18s %-18s\n", "", design_names[0], design_names[1]);
	printf("  %-34s %-18.0f %-18.0f\n", "windows", l[0].windows, l[1].windows);
	printf("  %-34s %-18s %-18s\n", "converged", l[0].converged ? "yes" : "no",
	       l[1].converged ? "yes" : "no");
	printf("  %-34s %-18s %-18s\n", "  from window", window_text(&l[0], w[0], sizeof(w[0])),
	       window_text(&l[1], w[1], sizeof(w[1])));
	printf("  %-34s %-18.1f %-18.1f\n", "steady deviation, 2nd half (bp)", l[0].steady_dev_bp,
	       l[1].steady_dev_bp);
	printf("  %-34s %-18.1f %-18.1f\n", "worst goal read error (bp)", l[0].read_err_max,
	       l[1].read_err_max);
	printf("  %-34s %-18.0f %-18.0f\n", "goal flushes that got through", l[0].flushes,
	       l[1].flushes);
	printf("  %-34s %-18.1f %-18.1f\n", "effective quota at the end (MiB)", l[0].final_esz_mib,
	       l[1].final_esz_mib);
	printf("  %-34s %-18.1f %-18.1f\n", "reclaimed by the scheme (MiB)", l[0].sz_applied_mib,
	       l[1].sz_applied_mib);
	printf("  largest gap between the two designs' true free bp, window by window: %.1f bp\n",
	       r->s.course_div_bp);
}

static void print_text(const struct dgr *r, const struct bench_opts *a)
{
	const struct bench_dgr_summary *s = &r->s;
	struct bench_dgr_verdicts v;

	printf("DAMON root memcg goal read (thread 002 patch 4): %u simulated CPUs, %u memcgs, "
	       "a %u GiB node,\nnode-stat=percpu, median of %u repetitions, designs alternated\n",
	       r->cpus, r->nmemcgs, r->node_gib, a->reps);
	bench_print_base_variants(a, "damon-root-read set per design, node-stat=percpu");
	printf("%-38s %-18s %-18s %-12s\n", "", design_names[0], design_names[1], "thread 002");
	printf("%-38s %-18.2f %-18.2f %-12s\n", "goal read after activity (us)",
	       s->active_read_us[0], s->active_read_us[1], "900 / 0.15");
	printf("%-38s %-18.2f %-18.2f %-12s\n", "goal read, nothing updated (us)",
	       s->idle_read_us[0], s->idle_read_us[1], "69 / 0.15");
	printf("%-38s %-18.0f %-18.0f %-12s\n", "worst read error (pages)", s->err_max[0],
	       s->err_max[1], "-");
	printf("%-38s %-18.2f %-18.2f %-12s\n", "worst read error (bp of node RAM)",
	       s->err_bp_max[0], s->err_bp_max[1], "-");
	printf("%-38s %-18.0f %-18.0f %-12s\n", "gated flushes that got through", s->flushes[0],
	       s->flushes[1], "-");
	printf("node read bound (stat_threshold x CPUs): %.0f pages; node snapshot error: %.0f\n",
	       s->drift_bound, s->snapshot_err);
	print_loop_text(r);
	printf("\nWhat the time measures: the model's reader in C on this machine, single-threaded,\n"
	       "as CPU time of the driver (no rstat lock waiting, no cross-CPU cache misses, no\n"
	       "bpftrace). The thread's figures are kernel wall time on 80 real CPUs.\n\n");
	bench_dgr_verdicts(s, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static void print_loop_json(struct bench_json *j, const struct bench_dgr_loop_result *l)
{
	bench_json_obj_begin(j, "loop");
	bench_json_kuint(j, "windows", (unsigned long long)l->windows);
	bench_json_kbool(j, "converged", l->converged != 0);
	bench_json_kdbl(j, "converged_window", l->converged_window);
	bench_json_kdbl(j, "steady_dev_bp", l->steady_dev_bp);
	bench_json_kdbl(j, "read_err_max_bp", l->read_err_max);
	bench_json_kuint(j, "flushes", (unsigned long long)l->flushes);
	bench_json_kdbl(j, "final_esz_mib", l->final_esz_mib);
	bench_json_kdbl(j, "sz_applied_mib", l->sz_applied_mib);
	bench_json_obj_end(j);
}

static void print_json(const struct dgr *r, const struct bench_opts *a)
{
	const struct bench_dgr_summary *s = &r->s;
	struct bench_dgr_verdicts v;
	struct bench_json j;

	bench_json_begin(&j, stdout, "damon-goal-read", "002",
			 "model reader work, single thread, not kernel wall time; errors, bp "
			      "and windows deterministic", a);
	bench_json_kuint(&j, "cpus", r->cpus);
	bench_json_kuint(&j, "memcgs", r->nmemcgs);
	bench_json_kuint(&j, "node_gib", r->node_gib);
	bench_json_kuint(&j, "drift_bound", (unsigned long long)s->drift_bound);
	bench_json_kuint(&j, "snapshot_err", (unsigned long long)s->snapshot_err);
	bench_json_kdbl(&j, "course_div_bp", s->course_div_bp);
	bench_json_arr_begin(&j, "designs");
	for (unsigned int h = 0; h < ND; h++) {
		bench_json_obj_begin(&j, NULL);
		bench_json_kstr(&j, "damon_root_read", h ? "node" : "flush");
		bench_json_kdbl(&j, "active_read_us", s->active_read_us[h]);
		bench_json_kdbl(&j, "idle_read_us", s->idle_read_us[h]);
		bench_json_kuint(&j, "err_max", (unsigned long long)s->err_max[h]);
		bench_json_kdbl(&j, "err_bp_max", s->err_bp_max[h]);
		bench_json_kuint(&j, "flushes", (unsigned long long)s->flushes[h]);
		print_loop_json(&j, &s->loop[h]);
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_json_obj_begin(&j, "thread_figures");
	bench_json_kdbl(&j, "idle_flush_us", 69);
	bench_json_kdbl(&j, "active_flush_us", 900);
	bench_json_kdbl(&j, "read_ns", 150);
	bench_json_obj_end(&j);
	bench_dgr_verdicts(s, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

/* Options into r and a: 0 to run, 1 after --help, 2 on a usage error. */
static int dgr_parse(struct dgr *r, int argc, char **argv, struct bench_opts *a)
{
	struct bench_dgr_loop_params *lp = &r->lp;
	const struct bench_arg opts[] = {
		BENCH_OPT_UINT("--cpus", "N", &r->cpus, 2, MSIM_MAX_CPUS,
			       "simulated CPUs (default 80, the thread's machine)"),
		BENCH_OPT_UINT("--memcgs", "N", &r->nmemcgs, 1, 4096,
			       "memcgs under root, all active (default 128)"),
		BENCH_OPT_UINT("--node-gib", "G", &r->node_gib, 1, 4096,
			       "node 0's RAM in GiB (default 64: vmstat's threshold at its cap)"),
		BENCH_OPT_UINT("--rounds", "N", &r->rounds, 1, 1000,
			       "activity rounds, each then one timed read (default 2; quick 1)"),
		BENCH_OPT_UINT("--seconds", "S", &lp->seconds, 1, 3600,
			       "virtual seconds of the feedback loop (default 120; quick 60)"),
		BENCH_OPT_UINT("--alloc", "PAGES", &lp->alloc_per_cpu, 0, 1000000,
			       "pages allocated per CPU per virtual second in the loop (default 1000)"),
		BENCH_OPT_UINT("--target-free-bp", "BP", &lp->target_free_bp, 1, 9999,
			       "the goal: node_memcg_free_bp of root (default 4000)"),
		BENCH_OPT_UINT("--start-used-bp", "BP", &lp->start_used_bp, 0, 9999,
			       "root's LRU pages at the loop's start (default 7000)"),
		BENCH_OPT_UINT("--tol-bp", "BP", &lp->tol_bp, 0, 10000,
			       "converged: within this of the target (default 100: 1 %)"),
		BENCH_OPT_END,
	};
	const struct bench_spec spec = {
		.name = "damon-goal-read",
		.summary = "thread 002 patch 4: DAMON's root memcg goal read by flushing root or from\n"
			   "node counters: cost, error, and the quota feedback loop.",
		.description = "Two designs (damon-root-read=flush and =node), one host each,\n"
			       "node-stat=percpu, alternated per repetition; then the feedback loop\n"
			       "of each design on a fresh host. Errors, bp and windows are\n"
			       "deterministic; the times are the model's own work.",
		.default_reps = 3,
		.quick_reps = 1,
		.options = opts,
	};
	int ret;

	r->cpus = 80;
	r->nmemcgs = 128;
	r->node_gib = 64;
	lp->alloc_per_cpu = 1000;
	lp->target_free_bp = 4000;
	lp->start_used_bp = 7000;
	lp->tol_bp = 100;
	ret = bench_parse_args(&spec, argc, argv, a);
	if (ret)
		return ret;
	if (a->reps > MAXREPS)
		a->reps = MAXREPS;
	if (!r->rounds)
		r->rounds = a->quick ? 1 : 2;
	if (!lp->seconds)
		lp->seconds = a->quick ? 60 : 120;
	r->idle_reads = a->quick ? 10 : 50;
	lp->cpus = r->cpus;
	lp->nmemcgs = r->nmemcgs;
	lp->node_pages = (unsigned long)r->node_gib << 18;
	lp->base = a->variants;
	r->s.tol_bp = lp->tol_bp;
	return 0;
}

static int dgr_measure(struct dgr *r, const struct bench_opts *a)
{
	double *dummy = calloc((size_t)ND * a->reps, sizeof(double));
	struct bench_progress prog;
	int ret = dummy ? 0 : -ENOMEM;

	for (unsigned int h = 0; !ret && h < ND; h++)
		ret = host_setup(r, h, &a->variants);
	if (ret) {
		free(dummy);
		return ret;
	}
	r->s.drift_bound = (double)msim_vmstat_node_stat_threshold(r->hosts[1].m, 0, 0) * r->cpus;
	bench_progress_init(&prog, "damon-goal-read", true);
	bench_alternate(ND, a->reps, dgr_sample, r, dummy, &prog);
	for (unsigned int h = 0; h < ND; h++) {
		r->s.active_read_us[h] = bench_median(r->active_us + h * MAXREPS, a->reps);
		r->s.idle_read_us[h] = bench_median(r->idle_us + h * MAXREPS, a->reps);
	}
	for (unsigned int h = 0; !ret && h < ND; h++) {
		bench_progress(&prog, "feedback loop, %s", design_names[h]);
		ret = bench_dgr_loop(&r->lp, h, &r->s.loop[h]);
	}
	bench_progress_done(&prog);
	for (unsigned int w = 0; !ret && w < r->s.loop[0].windows && w < r->s.loop[1].windows; w++)
		r->s.course_div_bp = fmax(r->s.course_div_bp,
					  fabs(r->s.loop[0].free_bp[w] - r->s.loop[1].free_bp[w]));
	free(dummy);
	return ret;
}

static void dgr_free(struct dgr *r)
{
	for (unsigned int h = 0; h < ND; h++) {
		bench_host_destroy(r->hosts[h].m);
		free(r->hosts[h].lv);
		free(r->s.loop[h].free_bp);
	}
	free(r->active_us);
	free(r->idle_us);
	free(r);
}

static int damon_goal_read_main(int argc, char **argv)
{
	struct dgr *r = calloc(1, sizeof(*r));
	struct bench_opts a;
	int ret;

	if (!r)
		return 1;
	ret = dgr_parse(r, argc, argv, &a);
	if (ret) {
		free(r);
		return bench_args_exit_status(ret);
	}
	r->active_us = calloc(ND * MAXREPS, sizeof(double));
	r->idle_us = calloc(ND * MAXREPS, sizeof(double));
	ret = !r->active_us || !r->idle_us || dgr_measure(r, &a) ? 1 : 0;
	if (!ret && a.json)
		print_json(r, &a);
	else if (!ret)
		print_text(r, &a);
	dgr_free(r);
	return ret;
}

static const struct bench_engine damon_goal_read_bench = {
	.name = "damon-goal-read",
	.summary = "thread 002 patch 4: DAMON root goal read by flush vs node counters, 80 CPUs, "
		   "128 memcgs; cost, error, feedback loop",
	.main = damon_goal_read_main,
};
BENCH_REGISTER(damon_goal_read_bench);
