/* SPDX-License-Identifier: MIT */
/*
 * bench_damon_goal_read_loop.c - the second half of `memcgsim bench
 * damon-goal-read`: does DAMON's quota feedback loop reach its goal when the
 * goal's reader reads node counters (thread 002 patch 4) rather than flushing the
 * root, on a host whose memcgs keep allocating?
 *
 * One host per design (damon-root-read=flush or =node), node-stat=percpu (the
 * kernel's per-CPU node counters, so the node read lags as the kernel's does),
 * one node of node_pages pages, the periodic works on (vmstat's 1 s fold, rstat's
 * 2 s flush). root's memcgs start with start_used_bp of the node on their LRUs.
 * Every second of virtual time ALLOC_TASKS tasks, on CPUs taken in turn (every CPU
 * has run one after cpus / ALLOC_TASKS seconds), allocate the second's
 * alloc_per_cpu x cpus pages into the memcgs (round robin); then the clock
 * advances a second and the scheme's work runs ten times. (One task per CPU per
 * step would be closer to the kernel, but the deterministic scheduler keeps
 * every finished task in its pick list: a host that lives for minutes of virtual
 * time has to make few of them.) The scheme is
 * a DAMOS "pageout" whose quota has one goal, node_memcg_free_bp of root on node
 * 0 at target_free_bp, tuned by the consist tuner every 1 s window (the kernel's
 * default reset interval) from the kernel's 1-byte start. The action reclaims up
 * to the window's remaining quota from the memcgs' LRUs, round robin.
 *
 * Truth: the pages written, summed by the bench (one task runs at a time). Per
 * window the bench records the true free bp; at each tuning it compares the
 * goal's read (current_value) with the truth. Converged: from some window on,
 * in at least the last quarter of the run, the true free bp stays within tol_bp
 * of the target. All figures are pages, bp and windows: deterministic.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_damon_goal_read.h"
#include "bench_util.h"

#define STEP_MS 1000       /* one allocation burst per second */
#define APPLY_MS 100       /* the kernel's default aggregation interval */
#define ALLOC_TASKS 8
#define ALLOC_UPDATES 16   /* updates per task per second */

struct dgl {
	const struct bench_dgr_loop_params *p;
	struct msim *m;
	struct msim_lruvec **lv;
	long *pages;                 /* per memcg: the pages the bench put on its LRU */
	long truth;                  /* sum of pages */
	unsigned int step, reclaim_cursor;
	struct msim_damos s;
	unsigned long last_tunings;
	double *free_bp;             /* per window: the true free bp at its tuning */
	unsigned int nwin, maxwin;
	double read_err_max;
};

static double true_free_bp(const struct dgl *l)
{
	return ((double)l->p->node_pages - (double)l->truth) * 10000.0 / (double)l->p->node_pages;
}

/* One task's share of this second's allocations, round robin over the memcgs. */
static void alloc_task(void *arg)
{
	struct dgl *l = arg;
	unsigned long total = (unsigned long)l->p->alloc_per_cpu * l->p->cpus / ALLOC_TASKS;
	unsigned int slot = (msim_this_cpu() + l->p->cpus - (l->step * ALLOC_TASKS) % l->p->cpus) %
			    l->p->cpus, n = l->p->nmemcgs;

	for (unsigned int k = 0; k < ALLOC_UPDATES; k++) {
		unsigned int i = ((l->step * ALLOC_TASKS + slot) * ALLOC_UPDATES + k) % n;
		long delta = (long)(total / ALLOC_UPDATES + (k < total % ALLOC_UPDATES));

		if (!delta)
			continue;
		msim_mod_lruvec_state(l->lv[i], MSIM_NR_INACTIVE_ANON, delta);
		l->pages[i] += delta;
		l->truth += delta;
	}
}

/* The scheme's action: reclaim up to budget bytes, round robin over the memcgs. */
static unsigned long pageout(struct msim_damos *s, unsigned long budget, void *arg)
{
	struct dgl *l = arg;
	long want = (long)(budget / MSIM_PAGE_SIZE), done = 0;
	unsigned int n = l->p->nmemcgs;

	if (s->quota.nr_tunings != l->last_tunings) {     /* the goal was read just now */
		double e = fabs((double)s->quota.goals[0].current_value - true_free_bp(l));

		l->last_tunings = s->quota.nr_tunings;
		l->read_err_max = fmax(l->read_err_max, e);
		if (l->nwin < l->maxwin)
			l->free_bp[l->nwin++] = true_free_bp(l);
	}
	for (unsigned int tries = 0; want > done && tries < n; tries++) {
		unsigned int i = l->reclaim_cursor++ % n;
		long take = l->pages[i] < want - done ? l->pages[i] : want - done;

		if (take <= 0)
			continue;
		msim_mod_lruvec_state(l->lv[i], MSIM_NR_INACTIVE_ANON, -take);
		l->pages[i] -= take;
		l->truth -= take;
		done += take;
		tries = 0;
	}
	return (unsigned long)done * MSIM_PAGE_SIZE;
}

static int dgl_host(struct dgl *l, unsigned int design)
{
	const struct bench_dgr_loop_params *p = l->p;
	struct msim_config cfg;
	char err[256], name[32];
	struct msim_memcg *memcg;
	long start;
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = p->cpus;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.variants = p->base;
	bench_variant_set(&cfg.variants, "node-stat", MSIM_NODE_STAT_PERCPU);
	bench_variant_set(&cfg.variants, "damon-root-read",
			  design ? MSIM_DAMON_ROOT_READ_NODE : MSIM_DAMON_ROOT_READ_FLUSH);
	memset(cfg.zone_managed_pages, 0, sizeof(cfg.zone_managed_pages));
	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = p->node_pages;
	if ((ret = msim_create(&cfg, &l->m, err, sizeof(err))) ||
	    (ret = msim_rstat_init(l->m, NULL)) ||
	    (ret = msim_damon_attach(l->m, err, sizeof(err)))) {
		fprintf(stderr, "damon-goal-read: host: %s\n", err);
		return ret;
	}
	start = (long)(p->node_pages / 10000 * p->start_used_bp / p->nmemcgs);
	for (unsigned int i = 0; i < p->nmemcgs; i++) {
		snprintf(name, sizeof(name), "job%u", i);
		if ((ret = msim_memcg_create(msim_root_mem_cgroup(l->m), name, &memcg)))
			return ret;
		l->lv[i] = msim_mem_cgroup_lruvec(l->m, memcg, 0);
		msim_mod_lruvec_state(l->lv[i], MSIM_NR_INACTIVE_ANON, start);
		l->pages[i] = start;
		l->truth += start;
	}
	return 0;
}

static int dgl_scheme(struct dgl *l)
{
	struct msim_damos *s = &l->s;

	msim_damos_quota_init(&s->quota);
	s->apply_interval_ms = APPLY_MS;
	s->action = pageout;
	s->action_arg = l;
	if (msim_damos_add_quota_goal(&s->quota, MSIM_DAMOS_QUOTA_NODE_MEMCG_FREE_BP,
				      l->p->target_free_bp, 0,
				      msim_mem_cgroup_private_id(msim_root_mem_cgroup(l->m))))
		return -EINVAL;
	return msim_damos_start(l->m, s);
}

static int dgl_run(struct dgl *l)
{
	unsigned int steps = l->p->seconds * 1000 / STEP_MS, ntasks;
	uint64_t step_jiffies = (uint64_t)STEP_MS * msim_config(l->m)->hz / 1000;

	ntasks = l->p->cpus < ALLOC_TASKS ? l->p->cpus : ALLOC_TASKS;
	for (l->step = 0; l->step < steps; l->step++) {
		for (unsigned int t = 0; t < ntasks; t++) {
			unsigned int cpu = (l->step * ALLOC_TASKS + t) % l->p->cpus;

			if (!msim_task_create(l->m, "alloc", cpu, alloc_task, l))
				return -ENOMEM;
		}
		if (msim_run(l->m))
			return -EINVAL;
		msim_clock_advance(l->m, step_jiffies ? step_jiffies : 1);
	}
	msim_damos_stop(&l->s);
	return 0;
}

/* The first window from which every window stays within tol (or nwin). */
static unsigned int settled_from(const struct dgl *l)
{
	unsigned int w = l->nwin;

	while (w > 0 && fabs(l->free_bp[w - 1] - l->p->target_free_bp) <= l->p->tol_bp)
		w--;
	return w;
}

static void dgl_result(struct dgl *l, struct bench_dgr_loop_result *out)
{
	struct msim_damon_counts c;
	unsigned int from = settled_from(l);
	double dev = 0;

	for (unsigned int w = l->nwin / 2; w < l->nwin; w++)
		dev = fmax(dev, fabs(l->free_bp[w] - l->p->target_free_bp));
	msim_damon_counts(l->m, &c);
	out->windows = l->nwin;
	out->converged = l->nwin && from <= l->nwin * 3 / 4;
	out->converged_window = out->converged ? from : NAN;
	out->steady_dev_bp = dev;
	out->read_err_max = l->read_err_max;
	out->final_esz_mib = (double)l->s.quota.esz / (1 << 20);
	out->flushes = (double)c.flushes_done;
	out->sz_applied_mib = (double)l->s.sz_applied / (1 << 20);
	out->free_bp = l->free_bp;
	l->free_bp = NULL;
}

int bench_dgr_loop(const struct bench_dgr_loop_params *p, unsigned int design,
		   struct bench_dgr_loop_result *out)
{
	struct dgl l = { .p = p };
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	l.maxwin = p->seconds + 2;      /* 1 s windows */
	l.lv = calloc(p->nmemcgs, sizeof(*l.lv));
	l.pages = calloc(p->nmemcgs, sizeof(*l.pages));
	l.free_bp = calloc(l.maxwin, sizeof(*l.free_bp));
	if (l.lv && l.pages && l.free_bp && !(ret = dgl_host(&l, design)) &&
	    !(ret = dgl_scheme(&l)) && !(ret = dgl_run(&l)))
		dgl_result(&l, out);
	bench_host_destroy(l.m);
	free(l.lv);
	free(l.pages);
	free(l.free_bp);
	return ret;
}
