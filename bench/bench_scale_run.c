/* SPDX-License-Identifier: MIT */
/*
 * bench_scale_run.c - the hosts and measurements of `memcgsim bench scale`
 * (bench_scale.h; the printing is in bench_scale.c).
 *
 * Two series of deterministic hosts, built one at a time: CPUs doubling (top/4,
 * top/2, top) at a fixed number of cgroups, and cgroups doubling at a fixed
 * number of CPUs; every host has the memcg and rstat layers, nodes NUMA nodes,
 * and the tree root -> 16 parents -> the leaf cgroups. On each host, for every
 * update load U, every CPU's task makes U one-page updates
 * (mod_memcg_lruvec_state, node (cpu + j) % nodes) to leaves picked by a hash of
 * (CPU, load, j) among the first leaves of the series' smallest host, so every
 * host of a series updates the same (cgroup, CPU) pairs; then one forced root
 * flush, the periodic worker's, is timed with its counters. A flush with nothing
 * updated follows. Times are the driver thread's CPU time, medians over the
 * repetitions; counts come from the first.
 *
 * Then the scale goal's size whole: top_cpus x top_cgroups, the same loads.
 *
 * Before a host is built, its resident memory is estimated from two probe hosts
 * (per memcg, and per (memcg, CPU) pair) and the host is skipped if the estimate
 * exceeds max_rss. The kernel writes every CPU's copy of a cgroup's per-CPU
 * statistics when it makes the cgroup; the model leaves them zeroed (rstat
 * core.h, stats.c) in lazily committed memory (kmem_percpu.c), so a pair costs
 * the process memory only once its CPU updates that cgroup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/kmem.h>
#include <memcgsim/rstat.h>
#include <memcgsim/script.h>

#include "bench_scale.h"
#include "bench_util.h"

struct sc_host;

struct sc_task {
	struct sc_host *h;
	unsigned int cpu;
};

struct sc_host {
	struct msim *m;
	unsigned int cpus, cgroups, nodes, pick_among;
	struct msim_memcg *parent[BENCH_SC_PARENTS];
	struct msim_lruvec **lru;    /* [leaf * nodes + nid] */
	struct sc_task *task;        /* one per CPU */
	uint64_t *queued;            /* bitmap (leaf, cpu) of the current load, leaf < pick_among */
	uint64_t pairs;
	uint64_t update_ns;          /* CPU time inside the tasks' updates */
	unsigned int per_cpu, load;
};

void bench_sc_config_default(struct bench_sc_config *c, bool quick)
{
	static const unsigned int loads[] = { 1, 4, 16, 64 };

	memset(c, 0, sizeof(*c));
	msim_variants_init(&c->base);
	c->top_cpus = quick ? 8 : 1024;
	c->cpu_series_cgroups = quick ? 32 : 256;
	c->top_cgroups = quick ? 64 : 20000;
	c->cgroup_series_cpus = quick ? 4 : 16;
	c->nodes = quick ? 2 : 4;
	c->nloads = quick ? 2 : 4;
	memcpy(c->loads, loads, sizeof(loads));
	c->reps = quick ? 1 : 3;
	c->max_rss = 1536ULL << 20;
	c->progress = true;
}

/* ---- building a host ---- */

static int host_build(const struct bench_sc_config *c, struct sc_host *h)
{
	struct msim_config cfg;
	char err[256], name[32];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = h->cpus;
	cfg.nr_nodes = h->nodes;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.variants = c->base;
	ret = msim_create(&cfg, &h->m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "scale: msim_create: %s\n", err);
		return ret;
	}
	msim_set_current_host(h->m);
	if ((ret = msim_rstat_init(h->m, NULL)))
		return ret;
	msim_rstat_periodic_flush_enable(h->m, false); /* the bench flushes, when it times */
	h->lru = calloc((size_t)h->cgroups * h->nodes, sizeof(*h->lru));
	h->task = calloc(h->cpus, sizeof(*h->task));
	h->queued = calloc(((size_t)h->pick_among * h->cpus + 63) / 64, sizeof(*h->queued));
	if (!h->lru || !h->task || !h->queued)
		return -ENOMEM;
	for (unsigned int p = 0; p < BENCH_SC_PARENTS && !ret; p++) {
		snprintf(name, sizeof(name), "parent%u", p);
		ret = msim_memcg_create(msim_root_mem_cgroup(h->m), name, &h->parent[p]);
	}
	for (unsigned int i = 0; i < h->cgroups && !ret; i++) {
		struct msim_memcg *cg;

		ret = msim_memcg_create(h->parent[i % BENCH_SC_PARENTS], NULL, &cg);
		for (unsigned int nid = 0; !ret && nid < h->nodes; nid++)
			h->lru[(size_t)i * h->nodes + nid] = msim_mem_cgroup_lruvec(h->m, cg, nid);
	}
	return ret;
}

static void host_destroy(struct sc_host *h)
{
	if (h->m)
		bench_host_destroy(h->m);
	free(h->lru);
	free(h->task);
	free(h->queued);
	memset(h, 0, sizeof(*h));
}

/* ---- one load: every CPU updates, then the root flush ---- */

/* The leaf of update j of cpu in load number load: among the first pick_among. */
static unsigned int pick(const struct sc_host *h, unsigned int cpu, unsigned int load,
			 unsigned int j)
{
	uint64_t x = ((uint64_t)cpu << 40) ^ ((uint64_t)load << 32) ^ j;

	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return (unsigned int)(x % h->pick_among);
}

/* Runs on the driver's thread (deterministic mode): its CPU time is the updates'. */
static void update_task(void *arg)
{
	struct sc_task *t = arg;
	struct sc_host *h = t->h;
	uint64_t t0 = bench_cpu_ns();

	for (unsigned int j = 0; j < h->per_cpu; j++) {
		unsigned int leaf = pick(h, t->cpu, h->load, j), nid = (t->cpu + j) % h->nodes;
		size_t bit = (size_t)leaf * h->cpus + t->cpu;

		msim_mod_memcg_lruvec_state(h->lru[(size_t)leaf * h->nodes + nid],
					    MSIM_NR_ACTIVE_ANON, 1);
		if (!(h->queued[bit / 64] & (1ULL << (bit % 64)))) {
			h->queued[bit / 64] |= 1ULL << (bit % 64);
			h->pairs++;
		}
	}
	h->update_ns += bench_cpu_ns() - t0;
}

/*
 * Every CPU's updates of one load: each CPU's task is created and run to its end
 * (msim_run_task), one after another, as msim_run would order them. Stepping a
 * named task keeps the scheduler from scanning every task ever created at each
 * step (thousands here). Returns the CPU time per update spent inside the
 * updates, or -1.
 */
static double run_updates(struct sc_host *h, unsigned int load, unsigned int per_cpu)
{
	h->load = load;
	h->per_cpu = per_cpu;
	h->pairs = h->update_ns = 0;
	memset(h->queued, 0, ((size_t)h->pick_among * h->cpus + 63) / 64 * sizeof(*h->queued));
	for (unsigned int cpu = 0; cpu < h->cpus; cpu++) {
		struct msim_task *t;

		h->task[cpu] = (struct sc_task){ h, cpu };
		t = msim_task_create(h->m, "update", cpu, update_task, &h->task[cpu]);
		if (!t || msim_run_task(h->m, t))
			return -1;
	}
	return (double)h->update_ns / ((double)h->cpus * per_cpu);
}

/* One forced root flush: its CPU time (us) and counters. */
static double timed_flush(struct sc_host *h, struct msim_rstat_counters *out)
{
	uint64_t t0;

	msim_rstat_counters_reset(h->m);
	t0 = bench_cpu_ns();
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(h->m));
	t0 = bench_cpu_ns() - t0;
	msim_rstat_counters(h->m, out);
	return (double)t0 / 1e3;
}

/* Every load and the idle flush, reps times: medians and the first repetition's counts. */
static int measure_host(const struct bench_sc_config *c, struct sc_host *h,
			struct bench_sc_point *pt)
{
	static double upd[BENCH_SC_MAX_U][BENCH_SC_MAX_REPS], fl[BENCH_SC_MAX_U][BENCH_SC_MAX_REPS];
	double idle[BENCH_SC_MAX_REPS];
	struct msim_rstat_counters rc;

	for (unsigned int rep = 0; rep < c->reps; rep++) {
		for (unsigned int u = 0; u < c->nloads; u++) {
			if ((upd[u][rep] = run_updates(h, u, c->loads[u])) < 0)
				return -ENOMEM;
			fl[u][rep] = timed_flush(h, &rc);
			if (rep == 0) {
				pt->load[u].per_cpu = c->loads[u];
				pt->load[u].updated_pairs = h->pairs;
				pt->load[u].memcg_flushes = rc.memcg_flushes;
				pt->load[u].cpu_visits = rc.cpu_visits;
			}
		}
		idle[rep] = timed_flush(h, &rc);
		if (rep == 0) {
			pt->idle_cpu_visits = rc.cpu_visits;
			pt->idle_memcg_flushes = rc.memcg_flushes;
		}
	}
	for (unsigned int u = 0; u < c->nloads; u++) {
		pt->load[u].update_ns = bench_median(upd[u], c->reps);
		pt->load[u].flush_us = bench_median(fl[u], c->reps);
	}
	pt->idle_flush_us = bench_median(idle, c->reps);
	return 0;
}

/* ---- one size ---- */

static int run_point(const struct bench_sc_config *c, struct bench_sc_point *pt,
		     unsigned int pick_among)
{
	struct sc_host h = { .cpus = pt->cpus, .cgroups = pt->cgroups, .nodes = c->nodes,
			     .pick_among = pick_among };
	struct msim_kmem_totals t0, t1;
	uint64_t rss0, cpu0;
	double memcgs = (double)pt->cgroups + BENCH_SC_PARENTS + 1; /* and root */
	int ret;

	/* The kernel-memory model's figures are read on the host itself: zero before. */
	memset(&t0, 0, sizeof(t0));
	/* What earlier hosts left for reuse would make this one look smaller. */
	msim_kmem_trim();
	rss0 = msim_kmem_process_rss();
	cpu0 = bench_cpu_ns();
	ret = host_build(c, &h);
	if (!ret) {
		pt->build_s = (double)(bench_cpu_ns() - cpu0) / 1e9;
		pt->rss_bytes = msim_kmem_process_rss() - rss0;
		pt->page_tables = msim_kmem_process_page_tables();
		msim_kmem_totals(h.m, &t1);
		pt->charged_pcpu_per_memcg_cpu = (double)(t1.percpu_bytes - t0.percpu_bytes) /
						 (memcgs * pt->cpus);
		pt->charged_slab_per_memcg = (double)(t1.kmalloc_bytes + t1.cache_bytes) / memcgs;
		pt->resident_per_memcg_cpu = (double)pt->rss_bytes / (memcgs * pt->cpus);
		ret = measure_host(c, &h, pt);
	}
	pt->ran = !ret;
	host_destroy(&h);
	return ret;
}

/*
 * Resident bytes per memcg and per (memcg, CPU) pair: two hosts of 512 cgroups,
 * on 64 and on 512 CPUs, built and measured like the others (no updates). The
 * pair term is what 448 more CPUs added; the rest is per memcg.
 */
static int probe(const struct bench_sc_config *c, struct bench_sc_result *r)
{
	struct bench_sc_config pc = *c;
	struct bench_sc_point small = { .cpus = 64, .cgroups = 512 };
	struct bench_sc_point big = { .cpus = 512, .cgroups = 512 };
	double memcgs = 512 + BENCH_SC_PARENTS + 1;
	int ret;

	pc.nloads = 0;
	pc.reps = 1;
	ret = run_point(&pc, &small, 1);
	if (!ret)
		ret = run_point(&pc, &big, 1);
	r->probe_per_pair = ((double)big.rss_bytes - (double)small.rss_bytes) / (memcgs * 448);
	if (r->probe_per_pair < 0)
		r->probe_per_pair = 0;
	r->probe_per_memcg = (double)small.rss_bytes / memcgs - 64 * r->probe_per_pair;
	return ret;
}

/* The resident memory a host of pt's size is expected to need. */
static uint64_t estimate(const struct bench_sc_result *r, const struct bench_sc_point *pt)
{
	double memcgs = (double)pt->cgroups + BENCH_SC_PARENTS + 1;

	return (uint64_t)(memcgs * (r->probe_per_memcg + r->probe_per_pair * pt->cpus));
}

/* One size, unless its estimate exceeds max_rss. */
static int run_sized(const struct bench_sc_config *c, struct bench_sc_result *r,
		     struct bench_sc_point *pt, unsigned int pick_among,
		     struct bench_progress *pr)
{
	pt->estimate_bytes = estimate(r, pt);
	if (pt->estimate_bytes > c->max_rss)
		return 0;
	bench_progress(pr, "%u CPUs x %u cgroups", pt->cpus, pt->cgroups);
	return run_point(c, pt, pick_among);
}

static int run_series(const struct bench_sc_config *c, struct bench_sc_result *r,
		      struct bench_sc_point *series, bool cpus_double, struct bench_progress *pr)
{
	unsigned int pick_among = cpus_double ? c->cpu_series_cgroups : c->top_cgroups / 4;

	for (unsigned int i = 0; i < BENCH_SC_SERIES; i++) {
		struct bench_sc_point *pt = &series[i];
		unsigned int shift = BENCH_SC_SERIES - 1 - i;
		int ret;

		pt->cpus = cpus_double ? c->top_cpus >> shift : c->cgroup_series_cpus;
		pt->cgroups = cpus_double ? c->cpu_series_cgroups : c->top_cgroups >> shift;
		if (!pt->cpus || !pt->cgroups || pick_among > pt->cgroups)
			return -EINVAL;
		if ((ret = run_sized(c, r, pt, pick_among, pr)))
			return ret;
	}
	return 0;
}

int bench_sc_run(const struct bench_sc_config *c, struct bench_sc_result *r)
{
	struct bench_progress pr;
	uint64_t t0 = bench_now_ns(), cpu0 = bench_cpu_ns();
	struct rusage ru;
	int ret;

	memset(r, 0, sizeof(*r));
	r->cfg = *c;
	if (!c->reps || c->reps > BENCH_SC_MAX_REPS || c->nloads > BENCH_SC_MAX_U || !c->nodes)
		return -EINVAL;
	bench_progress_init(&pr, "scale", c->progress);
	ret = probe(c, r);
	if (!ret)
		ret = run_series(c, r, r->cpu_series, true, &pr);
	if (!ret)
		ret = run_series(c, r, r->cgroup_series, false, &pr);
	r->issue = (struct bench_sc_point){ .cpus = c->top_cpus, .cgroups = c->top_cgroups };
	if (!ret)
		ret = run_sized(c, r, &r->issue, c->top_cgroups / 4, &pr);
	bench_progress_done(&pr);
	r->wall_s = (double)(bench_now_ns() - t0) / 1e9;
	r->cpu_s = (double)(bench_cpu_ns() - cpu0) / 1e9;
	if (!getrusage(RUSAGE_SELF, &ru))
		r->peak_rss = (uint64_t)ru.ru_maxrss * 1024;
	return ret;
}
