/* SPDX-License-Identifier: MIT */
/*
 * bench_rstat_staleness_run.c - the runs of `memcgsim bench rstat-staleness`
 * (bench_rstat_staleness.h): the measured mode and the scripted one.
 *
 * Measured. Each design and seed gets its own deterministic host (N CPUs, HZ
 * 1000, root -> leaf, the periodic forced root flush every 2 s of virtual time).
 * Every --sample-ms the driver creates one step's tasks and runs them under the
 * seeded random scheduler:
 *   - U updaters (CPUs 1..U) charge the step's growth, rate x step, in folios of
 *     --folio-pages (mod_lruvec_state(NR_FILE_PAGES), node 0), each folio
 *     counted as charged just before its update;
 *   - one reader (CPU 0): mem_cgroup_flush_stats(root), then
 *     memcg_page_state(root, NR_FILE_PAGES), a threshold-gated consumer.
 * gap = charged - reported at the read. A read is "beyond its bound" when
 *   gap > threshold + N x 63 (per-CPU counts not yet pushed)
 *         + pages charged while this read's flush ran
 *         + pages charged while the last flush that ran ran (a count it reset
 *           after they were added, under either design),
 * which no read exceeds unless root's count stopped following its subtree: the
 * early exit after a concurrent reset (R3, R4). Nothing is scripted: whether and
 * when that happens is the scheduler's, so the gap is a measurement.
 *
 * Scripted. The race of rstat-early-exit at t = 0, then growth from the driver
 * alone: every gated flush skips until the periodic flush and the gap is rate x
 * the window by construction.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_rstat_staleness.h"
#include "bench_util.h"

#define ST_MAX_UPDATERS 64

struct st_host {
	struct msim *m;
	struct msim_memcg *root, *leaf, *sib;
	long long applied;               /* pages charged so far: the truth */
};

static int st_host_new(const struct bench_st_opts *o, enum msim_rstat_propagate design,
		       struct st_host *h)
{
	struct msim_config cfg;
	char err[256];
	int ret;

	memset(h, 0, sizeof(*h));
	msim_config_init(&cfg);
	cfg.nr_cpus = o->cpus;
	cfg.variants = o->base;
	bench_variant_set(&cfg.variants, "rstat-propagate", design);
	if ((ret = msim_create(&cfg, &h->m, err, sizeof(err)))) {
		fprintf(stderr, "rstat-staleness: %s\n", err);
		return ret;
	}
	msim_set_current_host(h->m);
	if ((ret = msim_rstat_init(h->m, NULL)))
		return ret;
	h->root = msim_root_mem_cgroup(h->m);
	if ((ret = msim_memcg_create(h->root, "leaf", &h->leaf)))
		return ret;
	return o->leaf_only || o->scripted ? 0 : msim_memcg_create(h->root, "sibling", &h->sib);
}

/* Pages rate x t since t = 0, in whole folios. */
static long long st_target(const struct bench_st_opts *o, uint64_t t, unsigned int hz)
{
	long long pages = (long long)(o->rate_gib * (1ULL << 30) / MSIM_PAGE_SIZE * (double)t / hz);

	return pages / o->folio_pages * o->folio_pages;
}

static void st_record(struct bench_st_design *d, unsigned int cap, uint64_t t, unsigned int hz,
		      long long truth, long long rep)
{
	if (!d->t_ms || d->n >= cap)
		return;
	d->t_ms[d->n] = (long)(t * 1000 / hz);
	d->true_b[d->n] = truth * (long long)MSIM_PAGE_SIZE;
	d->reported_b[d->n] = rep * (long long)MSIM_PAGE_SIZE;
	d->n++;
}

/* ---- measured ---- */

struct st_step;

struct st_updater {
	struct st_step *step;
	struct msim_memcg *memcg;      /* whose page cache grows */
	long folios;
};

/* The leaf's updaters, then (mixed) the sibling's and root's own. */
struct st_step {
	struct st_host *h;
	long folio_pages;
	struct st_updater upd[ST_MAX_UPDATERS + 2];
	long long at_flush, at_read, reported;
	bool flushed;
};

static void st_updater_fn(void *arg)
{
	struct st_updater *u = arg;
	struct st_step *s = u->step;
	struct msim_lruvec *lv = msim_mem_cgroup_lruvec(s->h->m, u->memcg, 0);

	for (long i = 0; i < u->folios; i++) {
		s->h->applied += s->folio_pages;
		msim_mod_lruvec_state(lv, MSIM_NR_FILE_PAGES, s->folio_pages);
	}
}

static void st_reader_fn(void *arg)
{
	struct st_step *s = arg;

	s->at_flush = s->h->applied;
	s->flushed = msim_mem_cgroup_flush_stats(s->h->root);
	s->reported = (long long)msim_memcg_page_state(s->h->root, MSIM_NR_FILE_PAGES);
	s->at_read = s->h->applied;
}

/* A reader of the leaf, as memory.stat reads it: the gated flush of the leaf. */
static void st_leaf_reader_fn(void *arg)
{
	struct st_step *s = arg;

	msim_mem_cgroup_flush_stats(s->h->leaf);
	(void)msim_memcg_page_state(s->h->leaf, MSIM_NR_FILE_PAGES);
}

/* CPU k past the leaf's updaters, or the last CPU on a small host. */
static unsigned int st_cpu_after(const struct bench_st_opts *o, unsigned int k)
{
	return o->updaters + k < o->cpus ? o->updaters + k : o->cpus - 1;
}

static int st_task(struct st_host *h, const char *name, unsigned int cpu, void (*fn)(void *),
		   void *arg)
{
	return msim_task_create(h->m, name, cpu, fn, arg) ? 0 : -ENOMEM;
}

/*
 * One step's tasks: the growth split among the updaters, and the reader(s).
 * Mixed: of the step's folios, 70 % go to the leaf's updaters, 20 % to the
 * sibling's and 10 % to root's own, on the CPUs after the leaf's.
 */
static int st_step_tasks(const struct bench_st_opts *o, struct st_step *s, long long pages)
{
	long folios = (long)(pages / o->folio_pages), sib = 0, own = 0, leaf;
	int ret = 0;

	if (!o->leaf_only) {
		sib = folios * 2 / 10;
		own = folios / 10;
	}
	leaf = folios - sib - own;
	for (unsigned int i = 0; i < o->updaters && !ret; i++) {
		s->upd[i] = (struct st_updater){ .step = s, .memcg = s->h->leaf,
						 .folios = leaf / o->updaters +
							   (i < leaf % o->updaters) };
		ret = st_task(s->h, "updater", i + 1, st_updater_fn, &s->upd[i]);
	}
	if (!ret && !o->leaf_only) {
		s->upd[o->updaters] = (struct st_updater){ .step = s, .memcg = s->h->sib,
							   .folios = sib };
		s->upd[o->updaters + 1] = (struct st_updater){ .step = s, .memcg = s->h->root,
							       .folios = own };
		ret = st_task(s->h, "sibling", st_cpu_after(o, 1), st_updater_fn,
			      &s->upd[o->updaters]);
		if (!ret)
			ret = st_task(s->h, "root-own", st_cpu_after(o, 2), st_updater_fn,
				      &s->upd[o->updaters + 1]);
		if (!ret)
			ret = st_task(s->h, "leaf-reader", st_cpu_after(o, 3), st_leaf_reader_fn,
				      s);
	}
	return ret ? ret : st_task(s->h, "reader", 0, st_reader_fn, s);
}

struct st_seed_run {
	long long last_ran_inflight;  /* pages charged while the last flush that ran ran */
	bool beyond;
	double gap_sum;
};

/* The read of one step: its gap against its bound. */
static void st_judge_read(const struct bench_st_result *r, const struct st_step *s,
			  struct bench_st_design *d, struct st_seed_run *sr)
{
	long long gap = s->at_read - s->reported, inflight = s->at_read - s->at_flush;
	long long bound = r->threshold + r->pending_slack + inflight + sr->last_ran_inflight;

	d->reads++;
	sr->gap_sum += (double)gap * MSIM_PAGE_SIZE;
	if (gap * (long long)MSIM_PAGE_SIZE > d->max_gap)
		d->max_gap = gap * (long long)MSIM_PAGE_SIZE;
	if (inflight > d->max_inflight)
		d->max_inflight = inflight;
	if (gap > bound) {
		d->beyond++;
		sr->beyond = true;
	}
	if (s->flushed)
		sr->last_ran_inflight = inflight;
}

static int st_measured_seed(const struct bench_st_opts *o, struct bench_st_result *r,
			    unsigned int di, uint64_t seed, bool series)
{
	static const enum msim_rstat_propagate designs[2] = { MSIM_RSTAT_PROPAGATE_BREAK,
							      MSIM_RSTAT_PROPAGATE_CONTINUE };
	struct bench_st_design *d = &r->d[di];
	struct msim_sched_opts so = { .strategy = MSIM_STRAT_RANDOM, .seed = seed };
	struct st_seed_run sr = { 0 };
	struct msim_rstat_counters c;
	struct st_host h;
	struct st_step s = { .h = &h, .folio_pages = o->folio_pages };
	unsigned int hz, cap = (unsigned int)(o->seconds * 1000 / o->sample_ms) + 2;
	uint64_t step, ticks;
	int ret;

	if ((ret = st_host_new(o, designs[di], &h)) || (ret = msim_sched_set(h.m, &so)))
		goto out;
	hz = msim_config(h.m)->hz;
	step = (uint64_t)o->sample_ms * hz / 1000 ? (uint64_t)o->sample_ms * hz / 1000 : 1;
	ticks = (uint64_t)(o->seconds * hz);
	msim_rstat_counters_reset(h.m);
	for (uint64_t t = step; t <= ticks; t += step) {
		if ((ret = st_step_tasks(o, &s, st_target(o, t, hz) - h.applied)) ||
		    (ret = msim_run(h.m)))
			goto out;
		st_judge_read(r, &s, d, &sr);
		if (series)
			st_record(d, cap, t, hz, s.at_read, s.reported);
		msim_clock_advance(h.m, step);   /* the periodic flush, on its own */
		if ((t + step) % (2ULL * hz) < step)
			sr.last_ran_inflight = 0;  /* it ran in this advance, nothing in flight */
	}
	msim_rstat_counters(h.m, &c);
	d->skipped += c.flush_skipped;
	d->flushed += c.flushes - c.periodic_flushes;
	d->periodic += c.periodic_flushes;
	d->seeds_beyond += sr.beyond;
	d->mean_gap += sr.gap_sum;
out:
	bench_host_destroy(h.m);
	return ret;
}

static int st_measured(const struct bench_st_opts *o, struct bench_st_result *r)
{
	struct bench_progress prog;
	int ret = 0;

	bench_progress_init(&prog, "rstat-staleness", o->progress);
	for (unsigned int k = 0; k < o->seeds && !ret; k++) {
		/* designs alternated: seed k runs break first when k is even */
		for (unsigned int j = 0; j < 2 && !ret; j++) {
			unsigned int di = (j + k) % 2;

			ret = st_measured_seed(o, r, di, o->seed + k, k == 0);
		}
		bench_progress(&prog, "seed %u/%u", k + 1, o->seeds);
	}
	bench_progress_done(&prog);
	for (unsigned int di = 0; di < 2; di++)
		if (r->d[di].reads)
			r->d[di].mean_gap /= (double)r->d[di].reads;
	return ret;
}

/* ---- scripted (by construction) ---- */

struct st_race {
	struct msim_memcg *root, *leaf;
	long long *applied;
	int calls;
};

static void st_race_updater(void *arg)
{
	struct st_race *r = arg;

	for (int i = 0; i < r->calls; i++) {
		*r->applied += 1;
		msim_mod_memcg_state(r->leaf, MSIM_NR_FILE_PAGES, 1);
	}
}

static void st_race_rootupd(void *arg)
{
	struct st_race *r = arg;

	*r->applied += 1;
	msim_mod_memcg_state(r->root, MSIM_NR_FILE_PAGES, 1);
}

static void st_race_flusher(void *arg)
{
	struct st_race *r = arg;

	msim_mem_cgroup_flush_stats_forced(r->root);
}

/* The early-exit race of rstat-early-exit (see its comment), then N batches. */
static int st_race(struct st_host *h)
{
	const int b = MSIM_MEMCG_CHARGE_BATCH, n = (int)msim_nr_cpus(h->m);
	struct st_race r = { h->root, h->leaf, &h->applied, (2 * n + 1) * b };
	struct msim_task *u, *ru, *f;
	int ret;

	u = msim_task_create(h->m, "updater", 1, st_race_updater, &r);
	ru = msim_task_create(h->m, "rootupd", (unsigned int)n - 1, st_race_rootupd, &r);
	f = msim_task_create(h->m, "flusher", 0, st_race_flusher, &r);
	if (!u || !ru || !f)
		return -ENOMEM;
	if ((ret = msim_run_task(h->m, ru)) ||
	    (ret = msim_run_until(h->m, u, "rstat.update.done", (unsigned int)(n * b))) ||
	    (ret = msim_run_until(h->m, f, "rstat.flush.cpu_start", 3)) ||
	    (ret = msim_run_until(h->m, u, "rstat.update.done", (unsigned int)b)) ||
	    (ret = msim_run_task(h->m, f)))
		return ret;
	return msim_run(h->m);
}

/* Growth from the driver every jiffy; a gated read every sample. */
static void st_grow(const struct bench_st_opts *o, struct st_host *h, struct bench_st_design *d)
{
	unsigned int hz = msim_config(h->m)->hz, cap = (unsigned int)(o->seconds * 1000 / o->sample_ms) + 2;
	uint64_t ticks = (uint64_t)(o->seconds * hz);
	long per_sample = (long)o->sample_ms * (long)hz / 1000;
	long long base = h->applied;
	struct msim_lruvec *lv = msim_mem_cgroup_lruvec(h->m, h->leaf, 0);

	if (per_sample < 1)
		per_sample = 1;
	for (uint64_t t = 1; t <= ticks; t++) {
		long long target = base + st_target(o, t, hz), rep, gap;

		msim_clock_advance(h->m, 1);
		while (h->applied + o->folio_pages <= target) {
			msim_mod_lruvec_state(lv, MSIM_NR_FILE_PAGES, o->folio_pages);
			h->applied += o->folio_pages;
		}
		if (t % (uint64_t)per_sample)
			continue;
		msim_mem_cgroup_flush_stats(h->root);
		rep = (long long)msim_memcg_page_state(h->root, MSIM_NR_FILE_PAGES);
		gap = (h->applied - rep) * (long long)MSIM_PAGE_SIZE;
		st_record(d, cap, t, hz, h->applied, rep);
		d->reads++;
		d->mean_gap += (double)gap;
		if (gap > d->max_gap)
			d->max_gap = gap;
	}
}

static int st_scripted(const struct bench_st_opts *o, struct bench_st_result *r)
{
	static const enum msim_rstat_propagate designs[2] = { MSIM_RSTAT_PROPAGATE_BREAK,
							      MSIM_RSTAT_PROPAGATE_CONTINUE };
	int ret = 0;

	for (unsigned int di = 0; di < 2 && !ret; di++) {
		struct bench_st_design *d = &r->d[di];
		struct msim_rstat_counters c;
		struct st_host h;

		if (!(ret = st_host_new(o, designs[di], &h)) && !(ret = st_race(&h))) {
			msim_rstat_counters_reset(h.m);
			st_grow(o, &h, d);
			msim_rstat_counters(h.m, &c);
			d->skipped = c.flush_skipped;
			d->flushed = c.flushes - c.periodic_flushes;
			d->periodic = c.periodic_flushes;
			d->mean_gap = d->reads ? d->mean_gap / (double)d->reads : 0;
		}
		bench_host_destroy(h.m);
	}
	return ret;
}

/* ---- entry ---- */

void bench_st_opts_init(struct bench_st_opts *o, bool quick)
{
	*o = (struct bench_st_opts){ .cpus = 8, .updaters = 4, .seconds = quick ? 2.2 : 4.0,
				    .rate_gib = 1.0, .folio_pages = 16, .sample_ms = 10,
				    .seeds = quick ? 1 : 3, .seed = 1 };
	msim_variants_init(&o->base);
}

void bench_st_result_free(struct bench_st_result *r)
{
	for (int d = 0; d < 2; d++) {
		free(r->d[d].t_ms);
		free(r->d[d].true_b);
		free(r->d[d].reported_b);
		r->d[d].t_ms = NULL;
		r->d[d].true_b = r->d[d].reported_b = NULL;
	}
}

int bench_st_run(const struct bench_st_opts *o, struct bench_st_result *r)
{
	unsigned int cap = (unsigned int)(o->seconds * 1000 / o->sample_ms) + 2;
	int ret;

	memset(r, 0, sizeof(*r));
	r->opts = *o;
	r->threshold = (long)o->cpus * MSIM_MEMCG_CHARGE_BATCH;
	r->pending_slack = (long)o->cpus * (MSIM_MEMCG_CHARGE_BATCH - 1);
	if (!o->scripted && (o->updaters < 1 || o->updaters >= o->cpus ||
			     o->updaters > ST_MAX_UPDATERS))
		return -EINVAL;
	for (int d = 0; d < 2; d++) {
		r->d[d].design = d ? "continue" : "break";
		r->d[d].t_ms = calloc(cap, sizeof(long));
		r->d[d].true_b = calloc(cap, sizeof(long long));
		r->d[d].reported_b = calloc(cap, sizeof(long long));
		if (!r->d[d].t_ms || !r->d[d].true_b || !r->d[d].reported_b) {
			bench_st_result_free(r);
			return -ENOMEM;
		}
	}
	ret = o->scripted ? st_scripted(o, r) : st_measured(o, r);
	if (ret)
		bench_st_result_free(r);
	return ret;
}
