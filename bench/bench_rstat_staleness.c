/* SPDX-License-Identifier: MIT */
/*
 * bench_rstat_staleness.c - "page cache grows at 1 GiB/s" (thread 004): root's
 * reported NR_FILE_PAGES against the true sum over virtual time, under
 * rstat-propagate=break and =continue, after the early-exit race of
 * rstat-early-exit has left root at the threshold.
 *
 * Each design gets its own host (N CPUs, HZ 1000, root -> leaf):
 *  1. the race, scripted as in scenario rstat-early-exit at t = 0: a forced root
 *     flush resets leaf, a batch lands, the flush resets root at a later CPU;
 *     then N batches leave leaf = 64(N+1), root = 64N;
 *  2. growth: every jiffy, leaf's page cache grows by rate/HZ bytes in folios of
 *     --folio-pages pages (mod_lruvec_state(NR_FILE_PAGES) on node 0, from the
 *     driver, CPU 0); the periodic forced root flush runs every 2 s of virtual
 *     time (first at t = 2 s);
 *  3. every --sample-ms a reader does what a threshold-gated consumer does:
 *     mem_cgroup_flush_stats(root), then memcg_page_state(root, NR_FILE_PAGES).
 *     gap = true - reported.
 *
 * Deterministic: no wall time is measured; every figure is exact and repeatable.
 * Output: a table (max and mean gap per design), --csv (time series), --json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_util.h"
#include "scenario.h"

struct st_opts {
	unsigned int cpus;
	double seconds;
	double rate_gib;
	long folio_pages;
	unsigned int sample_ms;
	bool csv, json;
	struct msim_variants base;   /* --preset/--variant; rstat-propagate per design */
};

struct st_series {
	const char *design;
	unsigned int n;
	long *t_ms;
	long long *true_b, *reported_b;
	long long max_gap, sum_gap;
	unsigned long long skipped, flushed, periodic;
};

struct st_race {
	struct msim_memcg *root, *leaf;
	long applied;
	int calls;
};

static void st_updater(void *arg)
{
	struct st_race *r = arg;

	for (int i = 0; i < r->calls; i++) {
		r->applied += 1;
		msim_mod_memcg_state(r->leaf, MSIM_NR_FILE_PAGES, 1);
	}
}

static void st_rootupd(void *arg)
{
	struct st_race *r = arg;

	r->applied += 1;
	msim_mod_memcg_state(r->root, MSIM_NR_FILE_PAGES, 1);
}

static void st_flusher(void *arg)
{
	struct st_race *r = arg;

	msim_mem_cgroup_flush_stats_forced(r->root);
}

/* Phase 1: the early-exit race of rstat-early-exit (see its comment). */
static int st_race(struct msim *m, struct st_race *r)
{
	const int b = MSIM_MEMCG_CHARGE_BATCH, n = (int)msim_nr_cpus(m);
	struct msim_task *u, *ru, *f;
	int ret;

	r->calls = (2 * n + 1) * b;
	u = msim_task_create(m, "updater", 1, st_updater, r);
	ru = msim_task_create(m, "rootupd", (unsigned int)n - 1, st_rootupd, r);
	f = msim_task_create(m, "flusher", 0, st_flusher, r);
	if (!u || !ru || !f)
		return -ENOMEM;
	if ((ret = msim_run_task(m, ru)) ||
	    (ret = msim_run_until(m, u, "rstat.update.done", (unsigned int)(n * b))) ||
	    (ret = msim_run_until(m, f, "rstat.flush.cpu_start", 3)) ||
	    (ret = msim_run_until(m, u, "rstat.update.done", (unsigned int)b)) ||
	    (ret = msim_run_task(m, f)))
		return ret;
	return msim_run(m);
}

static int st_run(const struct st_opts *o, enum msim_rstat_propagate design,
		  struct st_series *s)
{
	struct msim_config cfg;
	struct msim *m;
	struct st_race r = { 0 };
	struct msim_rstat_counters c;
	char err[256];
	long long total_pages, target;
	uint64_t ticks, t;
	long per_sample;
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = o->cpus;
	cfg.variants = o->base;
	cfg.variants.rstat_propagate = design;
	if ((ret = msim_create(&cfg, &m, err, sizeof(err)))) {
		fprintf(stderr, "rstat-staleness: %s\n", err);
		return ret;
	}
	msim_set_current_host(m);
	if ((ret = msim_rstat_init(m, NULL)))
		goto out;
	r.root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(r.root, "leaf", &r.leaf)) || (ret = st_race(m, &r)))
		goto out;
	msim_rstat_counters_reset(m);
	ticks = (uint64_t)(o->seconds * cfg.hz);
	per_sample = (long)o->sample_ms * (long)cfg.hz / 1000;
	if (per_sample < 1)
		per_sample = 1;
	s->n = 0;
	total_pages = r.applied;
	for (t = 1; t <= ticks; t++) {
		struct msim_lruvec *lv = msim_mem_cgroup_lruvec(m, r.leaf, 0);

		msim_clock_advance(m, 1);
		/* growth since t = 0: rate * t, in folios */
		target = r.applied + (long long)(o->rate_gib * (1ULL << 30) / MSIM_PAGE_SIZE *
						 (double)t / cfg.hz);
		while (total_pages + o->folio_pages <= target) {
			msim_mod_lruvec_state(lv, MSIM_NR_FILE_PAGES, o->folio_pages);
			total_pages += o->folio_pages;
		}
		if (t % (uint64_t)per_sample)
			continue;
		msim_mem_cgroup_flush_stats(r.root);
		long long rep = (long long)msim_memcg_page_state(r.root, MSIM_NR_FILE_PAGES);
		long long gap = (total_pages - rep) * (long long)MSIM_PAGE_SIZE;

		s->t_ms[s->n] = (long)(t * 1000 / cfg.hz);
		s->true_b[s->n] = total_pages * (long long)MSIM_PAGE_SIZE;
		s->reported_b[s->n] = rep * (long long)MSIM_PAGE_SIZE;
		s->n++;
		s->sum_gap += gap;
		if (gap > s->max_gap)
			s->max_gap = gap;
	}
	msim_rstat_counters(m, &c);
	s->skipped = c.flush_skipped;
	s->flushed = c.flushes - c.periodic_flushes;
	s->periodic = c.periodic_flushes;
out:
	msim_destroy(m);
	return ret;
}

/* A positive decimal within (0, max]; 0 or -EINVAL (message printed). */
static int st_parse_double(const char *name, const char *arg, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = arg ? strtod(arg, &end) : 0;
	if (!arg || errno || end == arg || *end || !(v > 0) || v > max) {
		fprintf(stderr, "%s: expected a number in (0, %g], got '%s'\n", name, max,
			arg ? arg : "");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int st_opt(const char *name, const char *arg, void *ctx)
{
	struct st_opts *o = ctx;
	unsigned long v;

	if (!strcmp(name, "--csv")) {
		o->csv = true;
	} else if (!strcmp(name, "--cpus")) {
		if (msim_bench_parse_uint(name, arg, 3, MSIM_MAX_CPUS, &v))
			return -EINVAL;
		o->cpus = (unsigned int)v;
	} else if (!strcmp(name, "--seconds")) {
		return st_parse_double(name, arg, 60, &o->seconds);
	} else if (!strcmp(name, "--rate-gib")) {
		return st_parse_double(name, arg, 1024, &o->rate_gib);
	} else if (!strcmp(name, "--folio-pages")) {
		if (msim_bench_parse_uint(name, arg, 1, 1UL << 18, &v))
			return -EINVAL;
		o->folio_pages = (long)v;
	} else if (!strcmp(name, "--sample-ms")) {
		if (msim_bench_parse_uint(name, arg, 1, 60000, &v))
			return -EINVAL;
		o->sample_ms = (unsigned int)v;
	}
	return 0;
}

/* Returns 0 to run, 1 after --help, 2 on a usage error (bench_util's convention). */
static int st_parse(int argc, char **argv, struct st_opts *o, struct msim_bench_args *a)
{
	static const struct msim_bench_option opts[] = {
		{ "--cpus", "N", "simulated CPUs, at least 3 (default 4; threshold 64 x N)" },
		{ "--seconds", "S", "virtual seconds of growth (default 4, at most 60)" },
		{ "--rate-gib", "R", "page cache growth in GiB/s (default 1)" },
		{ "--folio-pages", "P", "pages per NR_FILE_PAGES update (default 16)" },
		{ "--sample-ms", "MS", "reader period in virtual ms (default 10)" },
		{ "--csv", NULL, "the time series as CSV instead of the table" },
		{ NULL, NULL, NULL },
	};
	const struct msim_bench_spec spec = {
		.name = "rstat-staleness",
		.summary = "thread 004: root's reported NR_FILE_PAGES vs the truth while page cache "
			   "grows, rstat-propagate break vs continue (virtual time, exact)",
		.description = "Deterministic: no wall time is measured, --reps and --seed have no\n"
			       "effect. The designs set rstat-propagate; every other variant comes\n"
			       "from --preset/--variant.",
		.default_reps = 1,
		.quick_reps = 1,
		.options = opts,
		.on_option = st_opt,
		.ctx = o,
	};

	*o = (struct st_opts){ .cpus = 4, .seconds = 4.0, .rate_gib = 1.0, .folio_pages = 16,
			       .sample_ms = 10 };
	return msim_bench_parse_args(&spec, argc, argv, a);
}

/*
 * The thread's two claims against our series. break: "a two-second wait can
 * leave the reported usage about 2 GiB below the actual usage" at 1 GiB/s, i.e.
 * a gap of rate x FLUSH_TIME (or x the run, if shorter), within 10 %. continue:
 * root stays within the threshold, give or take the one update (folio) that
 * crosses it.
 */
static void st_verdicts(const struct st_opts *o, const struct st_series *s, char v[2][192])
{
	double secs = o->seconds < MSIM_FLUSH_TIME_SECONDS ? o->seconds : MSIM_FLUSH_TIME_SECONDS;
	double want = o->rate_gib * secs * (double)(1ULL << 30);
	long long bound = ((long long)o->cpus * MSIM_MEMCG_CHARGE_BATCH + o->folio_pages) *
			  (long long)MSIM_PAGE_SIZE;
	bool near = s[0].max_gap >= 0.9 * want && s[0].max_gap <= 1.1 * want;

	snprintf(v[0], sizeof(v[0]), "break: max gap %.0f MiB against the thread's ~%.0f MiB "
		 "(rate x %g s): %s", s[0].max_gap / 1048576.0, want / 1048576.0, secs,
		 near ? "holds" : "does not hold");
	snprintf(v[1], sizeof(v[1]), "continue: max gap %lld pages, threshold %u + one update of "
		 "%ld: %s", s[1].max_gap / MSIM_PAGE_SIZE, o->cpus * MSIM_MEMCG_CHARGE_BATCH,
		 o->folio_pages, s[1].max_gap <= bound ? "holds" : "does not hold");
}

static void st_print_json(const struct st_opts *o, const char *variants, struct st_series *s,
			  int n)
{
	printf("{\"bench\": \"rstat-staleness\", \"base_variants\": \"%s\", \"cpus\": %u, "
	       "\"seconds\": %g, \"rate_gib_s\": %g, \"folio_pages\": %ld, \"sample_ms\": %u, "
	       "\"designs\": [", variants, o->cpus, o->seconds, o->rate_gib, o->folio_pages,
	       o->sample_ms);
	for (int d = 0; d < n; d++) {
		printf("%s{\"design\": \"%s\", \"max_gap_bytes\": %lld, \"mean_gap_bytes\": %lld, "
		       "\"gated_flushes_skipped\": %llu, \"flushes\": %llu, \"periodic_flushes\": %llu, "
		       "\"series\": [", d ? ", " : "", s[d].design, s[d].max_gap,
		       s[d].n ? s[d].sum_gap / s[d].n : 0, s[d].skipped, s[d].flushed, s[d].periodic);
		for (unsigned int i = 0; i < s[d].n; i++)
			printf("%s[%ld, %lld, %lld]", i ? ", " : "", s[d].t_ms[i], s[d].true_b[i],
			       s[d].reported_b[i]);
		printf("]}");
	}
	{
		char v[2][192];

		st_verdicts(o, s, v);
		printf("], \"verdicts\": [\"%s\", \"%s\"]", v[0], v[1]);
	}
	printf(", \"series_columns\": [\"t_ms\", \"true_bytes\", \"reported_bytes\"]}\n");
}

static int st_main(int argc, char **argv)
{
	static const enum msim_rstat_propagate designs[2] = { MSIM_RSTAT_PROPAGATE_BREAK,
							      MSIM_RSTAT_PROPAGATE_CONTINUE };
	struct st_series s[2];
	struct st_opts o;
	struct msim_bench_args a;
	unsigned int cap;
	char vbuf[512];
	int ret;

	ret = st_parse(argc, argv, &o, &a);
	if (ret)
		return ret == 1 ? 0 : 2;
	o.json = a.json;
	o.base = a.variants;
	msim_variants_format(&o.base, vbuf, sizeof(vbuf));
	cap = (unsigned int)(o.seconds * 1000 / o.sample_ms) + 2;
	memset(s, 0, sizeof(s));
	for (int d = 0; d < 2 && !ret; d++) {
		s[d].design = d ? "continue" : "break";
		s[d].t_ms = calloc(cap, sizeof(long));
		s[d].true_b = calloc(cap, sizeof(long long));
		s[d].reported_b = calloc(cap, sizeof(long long));
		ret = s[d].t_ms && s[d].true_b && s[d].reported_b ? st_run(&o, designs[d], &s[d])
								  : -ENOMEM;
	}
	if (!ret && o.json) {
		st_print_json(&o, vbuf, s, 2);
	} else if (!ret && o.csv) {
		printf("design,t_ms,true_bytes,reported_bytes,gap_bytes\n");
		for (int d = 0; d < 2; d++)
			for (unsigned int i = 0; i < s[d].n; i++)
				printf("%s,%ld,%lld,%lld,%lld\n", s[d].design, s[d].t_ms[i],
				       s[d].true_b[i], s[d].reported_b[i],
				       s[d].true_b[i] - s[d].reported_b[i]);
	} else if (!ret) {
		printf("rstat-staleness: page cache of leaf grows %.2f GiB/s for %.1f s of virtual "
		       "time, %u CPUs (threshold %u), after the early-exit race\n", o.rate_gib,
		       o.seconds, o.cpus, o.cpus * MSIM_MEMCG_CHARGE_BATCH);
		printf("base variants (rstat-propagate set per design): %s\n", vbuf);
		printf("%-10s %14s %14s %10s %8s %9s\n", "design", "max gap MiB", "mean gap MiB",
		       "skipped", "flushes", "periodic");
		for (int d = 0; d < 2; d++)
			printf("%-10s %14.1f %14.1f %10llu %8llu %9llu\n", s[d].design,
			       s[d].max_gap / 1048576.0,
			       s[d].n ? (double)s[d].sum_gap / s[d].n / 1048576.0 : 0.0,
			       s[d].skipped, s[d].flushed, s[d].periodic);
		char v[2][192];

		st_verdicts(&o, s, v);
		printf("thread 004: \"a two-second wait can leave the reported usage about 2 GiB "
		       "below the actual usage\" (break); continue keeps root within the threshold\n");
		printf("  %s\n  %s\n", v[0], v[1]);
	}
	for (int d = 0; d < 2; d++) {
		free(s[d].t_ms);
		free(s[d].true_b);
		free(s[d].reported_b);
	}
	return ret ? 1 : 0;
}

static const struct msim_bench rstat_staleness = {
	.name = "rstat-staleness",
	.summary = "thread 004: root's reported NR_FILE_PAGES vs the truth while page cache "
		   "grows at 1 GiB/s, break vs continue (virtual time, exact)",
	.main = st_main,
};
MSIM_BENCH(rstat_staleness)
