/* SPDX-License-Identifier: MIT */
/*
 * test_bench_verdicts.c - the benches' comparisons with their threads, judged on
 * planted figures: every rule of every bench is forced to each of its outcomes
 * (holds, does not hold, not comparable where it can be; the rule engine itself
 * and the two printers are tested in test_verdict_engine.c). The last test checks that
 * every row of every bench table that can be judged was forced to "does not
 * hold" by one of the tests (rows whose rule is "none" are never comparable,
 * "by construction" ones never judged). scale's rows are forced in
 * test_scale.c, on its own run. No bench is run and nothing is timed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/shrinker.h>

#include "bench_anon_churn.h"
#include "bench_explore_rate.h"
#include "bench_damon_goal_read.h"
#include "bench_node_read_drift.h"
#include "bench_root_flush.h"
#include "bench_rstat_propagate.h"
#include "bench_rstat_staleness.h"
#include "bench_sched_switch.h"
#include "bench_shrinker_units.h"
#include "bench_verdict.h"

#define HOLDS BENCH_VERDICT_HOLDS
#define FAILS BENCH_VERDICT_DOES_NOT_HOLD
#define NC BENCH_VERDICT_NOT_COMPARABLE
#define BC BENCH_VERDICT_BY_CONSTRUCTION

/* The row whose claim starts with prefix (exactly one must). */
static const struct bench_verdict_row *row(const struct bench_verdict_table *t, const char *prefix)
{
	const struct bench_verdict_row *found = NULL;

	for (size_t i = 0; i < t->nrows; i++)
		if (!strncmp(t->rows[i].claim, prefix, strlen(prefix))) {
			assert_null(found);
			found = &t->rows[i];
		}
	assert_non_null(found);
	return found;
}

/*
 * Every outcome judge() has seen, per row: every_row_fails_somewhere (the last
 * test) checks that each judged row of each bench was forced to "does not hold".
 */
#define MAX_SEEN 256
static struct seen {
	const struct bench_verdict_row *row;
	unsigned int outcomes;     /* bit per enum bench_verdict_outcome */
} seen[MAX_SEEN];
static size_t nseen;

static void record(const struct bench_verdict_row *r, enum bench_verdict_outcome o)
{
	size_t i;

	for (i = 0; i < nseen && seen[i].row != r; i++)
		;
	if (i == nseen) {
		assert_true(nseen < MAX_SEEN);
		seen[nseen++].row = r;
	}
	seen[i].outcomes |= 1u << o;
}

static bool seen_fail(const struct bench_verdict_row *r)
{
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].row == r)
			return seen[i].outcomes & (1u << BENCH_VERDICT_DOES_NOT_HOLD);
	return false;
}

static enum bench_verdict_outcome judge(const struct bench_verdict_table *t, const char *prefix)
{
	const struct bench_verdict_row *r = row(t, prefix);
	enum bench_verdict_outcome o = bench_verdict_judge(t, r, NULL);

	record(r, o);
	return o;
}

/* What the text printer writes for t. */
static char *print_text(const struct bench_verdict_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	bench_verdict_print_text(f, t);
	fclose(f);
	return buf;
}

/* ---- root-flush (thread 002) ---- */

static void rf_sites(struct bench_rf_summary *s, double through, double per_call_ns)
{
	for (unsigned int i = 0; i < BENCH_RF_NSITES; i++)
		s->site[i] = (struct bench_rf_site_result){ .calls = 10,
			.through = (unsigned long)(through * 10), .per_call_ns = per_call_ns };
}

static void root_flush(void **state)
{
	struct bench_rf_summary s = { .idle_us = { 1, 1 }, .active_us = { 100, 100 },
				     .lruvec_ns = { 7, 8 }, .memcg_ns = { 7 }, .node_ns = { 5 } };
	struct bench_rf_verdicts v;
	const char *const little = "a root flush with 128 active memcgs costs far more than one",
			  *const read = "a root flush with 128 active memcgs costs orders",
			  *const like = "reading root's lruvec", *const ws = "patch 3:",
			  *const zs = "patch 1:", *const damon = "patch 4:";
	const char *const excl = "patch 2's exclusions matter", *const owned = "for a memcg-owned",
		   *const fresh = "node counters are always up to date";

	(void)state;
	for (unsigned int i = 0; i < BENCH_RF_NEXCL; i++) {
		s.excl.node[i] = 300;
		s.excl.rstat[i] = s.excl.lruvec[0][i] = s.excl.lruvec[1][i] = 100;
	}
	s.excl.anon_rstat = s.excl.anon_snapshot = s.excl.anon_lruvec_node_host = 5000;
	s.excl_measured = true;
	rf_sites(&s, 1, 1000);      /* every call flushes: 1 us, 125 node reads */
	bench_rf_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, little), NC);
	assert_int_equal(judge(&v.table, read), HOLDS);   /* 100 us against 8 ns */
	assert_int_equal(judge(&v.table, like), HOLDS);
	assert_int_equal(judge(&v.table, ws), HOLDS);
	assert_int_equal(judge(&v.table, zs), HOLDS);
	assert_int_equal(judge(&v.table, damon), HOLDS);
	assert_int_equal(judge(&v.table, excl), HOLDS);
	assert_int_equal(judge(&v.table, owned), BC);
	assert_int_equal(judge(&v.table, fresh), HOLDS);
	s.excl.lruvec[1][1] = 300;  /* patch 2 read page tables from the node counter */
	s.excl.anon_snapshot = 5001;   /* rstat and patch 2's read both a page short */
	bench_rf_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, excl), FAILS);
	assert_int_equal(judge(&v.table, owned), BC);   /* every LRU folio is charged: never judged */
	assert_int_equal(judge(&v.table, fresh), FAILS);
	s.excl.lruvec[1][1] = 100;
	s.excl.node[2] = 100;       /* hugetlb all charged: the exclusion not shown to matter */
	bench_rf_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, excl), FAILS);
	s.excl_measured = false;
	bench_rf_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, excl), NC);
	assert_int_equal(judge(&v.table, fresh), NC);
	s.excl_measured = true;
	s.active_us[0] = 0.7;       /* 700 ns: under 100 reads of 8 ns */
	s.lruvec_ns[1] = 14;        /* patch 2's read 2x mainline's */
	rf_sites(&s, 0.9, 100);     /* a gate shut once; 100 ns a call: 7 reads */
	bench_rf_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, read), FAILS);
	assert_int_equal(judge(&v.table, like), FAILS);
	assert_int_equal(judge(&v.table, ws), FAILS);
	assert_int_equal(judge(&v.table, zs), FAILS);
	assert_int_equal(judge(&v.table, damon), FAILS);
	s.lruvec_ns[1] = 3.5;       /* half mainline's: the other side of the band */
	rf_sites(&s, 0.9, 1e6);     /* expensive, but DAMON's gate shut once */
	bench_rf_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, like), FAILS);
	assert_int_equal(judge(&v.table, damon), FAILS);
	assert_int_equal(judge(&v.table, ws), HOLDS);
	memset(s.site, 0, sizeof(s.site));   /* the sites not measured */
	s.active_us[0] = NAN;
	bench_rf_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, read), NC);
	assert_int_equal(judge(&v.table, ws), NC);
	assert_int_equal(judge(&v.table, damon), NC);
}

/* ---- node-read-drift (thread 002) ---- */

static void node_read_drift(void **state)
{
	struct bench_nrd_summary s = { .node_err_max = 0, .node_bound = 100, .rstat_err_max = 5,
				      .rstat_bound = 50, .snapshot_err_max = 0 };
	struct bench_nrd_verdicts v;
	const char *const exact = "node counters are always", *const nb = "a node read stays",
			  *const rb = "a flushed rstat read", *const acc = "reading node counters";

	(void)state;
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, exact), HOLDS);
	assert_int_equal(judge(&v.table, nb), HOLDS);
	assert_int_equal(judge(&v.table, rb), HOLDS);
	assert_int_equal(judge(&v.table, acc), HOLDS);
	s.node_err_max = 101;       /* off, beyond its bound, and worse than rstat */
	s.rstat_err_max = 51;       /* beyond its bound */
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, exact), FAILS);
	assert_int_equal(judge(&v.table, nb), FAILS);
	assert_int_equal(judge(&v.table, rb), FAILS);
	assert_int_equal(judge(&v.table, acc), FAILS);
	s.node_err_max = s.rstat_err_max = 40;   /* a tie is no difference, not more accurate */
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, acc), FAILS);
	s.rstat_err_max = 41;
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, acc), HOLDS);
	s.node_err_max = 101;
	s.rstat_err_max = 51;
	s.snapshot_err_max = 1;     /* the truth itself in doubt */
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, exact), NC);
	assert_int_equal(judge(&v.table, nb), NC);
	assert_int_equal(judge(&v.table, acc), NC);
	assert_int_equal(judge(&v.table, rb), FAILS);
}

/* The rows over seeded schedules: not comparable without one, then each outcome. */
static void node_read_drift_schedules(void **state)
{
	struct bench_nrd_summary s = { .node_bound = 100, .rstat_bound = 50,
				      .sched_node_bound = 110, .sched_rstat_bound = 60,
				      .sched_node_err_max = 105, .sched_rstat_err_max = 55 };
	struct bench_nrd_verdicts v;
	const char *const nb = "over every schedule, a node read",
			  *const rb = "over every schedule, a flushed rstat read";

	(void)state;
	bench_nrd_verdicts(&s, &v); /* schedules 0 */
	assert_int_equal(judge(&v.table, nb), NC);
	assert_int_equal(judge(&v.table, rb), NC);
	s.schedules = 2;            /* within the in-flight bounds, past the quiescent ones */
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, nb), HOLDS);
	assert_int_equal(judge(&v.table, rb), HOLDS);
	s.sched_node_err_max = 111;
	s.sched_rstat_err_max = 61;
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, nb), FAILS);
	assert_int_equal(judge(&v.table, rb), FAILS);
	s.sched_snapshot_err_max = 1;
	bench_nrd_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, nb), NC);
	assert_int_equal(judge(&v.table, rb), FAILS);
}

/* ---- rstat-propagate (thread 004) ---- */

static void rstat_propagate(void **state)
{
	struct bench_rp_summary s = { .median = { { 100, 100 }, { 90, 98.1 } }, .noise = { 1, 1 },
				     .runs_stuck = { { 3, 2 }, { 0, 0 } }, .seeds = 3 };
	struct bench_rp_verdicts v;
	char *text;

	(void)state;
	bench_rp_verdicts(&s, &v);
	/* the cost's direction is built into the walk: shown, never judged */
	assert_int_equal(judge(&v.table, "2-level: continue costs"), BENCH_VERDICT_BY_CONSTRUCTION);
	assert_int_equal(judge(&v.table, "4-level: continue costs"), BENCH_VERDICT_BY_CONSTRUCTION);
	assert_int_equal(judge(&v.table, "2-level: break leaves"), HOLDS);
	assert_int_equal(judge(&v.table, "4-level: break leaves"), HOLDS);
	text = print_text(&v.table);
	assert_non_null(strstr(text, "netperf, not judged"));
	assert_non_null(strstr(text, "the thread measured 2 levels only"));
	free(text);
	s.median[1][0] = 110;       /* continue faster: still by construction, not judged */
	s.runs_stuck[0][0] = 0;     /* stuck under neither: not reproduced */
	s.runs_stuck[1][1] = 1;     /* continue stuck too */
	bench_rp_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, "2-level: continue costs"), BENCH_VERDICT_BY_CONSTRUCTION);
	assert_int_equal(judge(&v.table, "2-level: break leaves"), NC);
	assert_int_equal(judge(&v.table, "4-level: break leaves"), FAILS);
	s.runs_stuck[1][0] = 2;     /* only continue stuck */
	bench_rp_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, "2-level: break leaves"), FAILS);
}

/* ---- anon-churn (thread 000) ---- */

/*
 * The thread's ns added per stat update (4 per page): classic 0.091 (1-2) and
 * 0.146 (1-3), MGLRU 0.318 and 0.001. Planted base 1e7 pages/s: 100 ns a page;
 * noise 1 %: 0.25 ns per update.
 */
static void anon_churn(void **state)
{
	struct bench_ac_summary s = { .noise = { 1, 1 } };
	struct bench_ac_verdicts v;
	const char *const p2 = "\"patch 2 alone", *const p3 = "\"patch 3 brings";
	const char *const c12 = "classic LRU, patches 1-2", *const c13 = "classic LRU, patches 1-3",
			  *const m12 = "MGLRU, patches 1-2", *const m13 = "MGLRU, patches 1-3";

	(void)state;
	/* +1.2 ns per page (0.3 per update) for patches 1-2, +0.4 (0.1) for 1-3 */
	for (unsigned int l = 0; l < 2; l++) {
		s.median[0][l] = 1e7;
		s.median[1][l] = 1e9 / 101.2;
		s.median[2][l] = 1e9 / 100.4;
	}
	bench_ac_verdicts(&s, &v);
	assert_float_equal(v.fig[BENCH_AC_F(0, BENCH_AC_ADD12)], 0.3, 1e-9);
	assert_float_equal(v.fig[BENCH_AC_F(0, BENCH_AC_NOISE_NS)], 0.25, 1e-9);
	assert_float_equal(v.fig[BENCH_AC_F(1, BENCH_AC_TADD12)], 0.318, 1e-3);
	assert_int_equal(judge(&v.table, c12), HOLDS);   /* 0.3 vs 0.091: within the noise */
	assert_int_equal(judge(&v.table, c13), HOLDS);
	assert_int_equal(judge(&v.table, m12), HOLDS);   /* 0.3 vs 0.318 */
	assert_int_equal(judge(&v.table, m13), HOLDS);
	assert_int_equal(judge(&v.table, p2), HOLDS);    /* 0.3 > 0.25 in both */
	assert_int_equal(judge(&v.table, p3), HOLDS);    /* 0.1: within noise */
	assert_int_equal(judge(&v.table, "\"most visible under MGLRU"), NC);
	/* the model's like figures: +20 ns a page (5 per update) for 1-2, +16 for 1-3 */
	for (unsigned int l = 0; l < 2; l++) {
		s.median[1][l] = 1e9 / 120;
		s.median[2][l] = 1e9 / 116;
	}
	bench_ac_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, c12), FAILS);
	assert_int_equal(judge(&v.table, c13), FAILS);
	assert_int_equal(judge(&v.table, m12), FAILS);
	assert_int_equal(judge(&v.table, m13), FAILS);
	assert_int_equal(judge(&v.table, p2), HOLDS);
	assert_int_equal(judge(&v.table, p3), FAILS);    /* 4 ns: neither in noise nor under 2.5 */
	s.median[1][0] = 1e9 / 100.8;                    /* classic 1-2: 0.2 ns, within noise */
	bench_ac_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, p2), FAILS);
	s.median[1][0] = 1e9 / 140;                      /* 10 ns per update for 1-2 */
	s.median[1][1] = 1e9 / 140;
	bench_ac_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, p3), HOLDS);    /* 4 < half of 10 */
	s.median[1][0] = NAN;
	bench_ac_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, c12), NC);
}

/* ---- rstat-staleness (thread 004) ---- */

/* A measured result, planted: 8 CPUs, threshold 512, 1 GiB/s for 4 s, 5 seeds. */
static void st_plant(struct bench_st_result *r)
{
	memset(r, 0, sizeof(*r));
	bench_st_opts_init(&r->opts, false);
	r->threshold = 512;
	r->pending_slack = 8 * 63;
	r->d[0] = (struct bench_st_design){ .design = "break", .max_gap = 2LL << 30, .reads = 2000,
					   .beyond = 150, .seeds_beyond = 5, .max_inflight = 900 };
	r->d[1] = (struct bench_st_design){ .design = "continue", .max_gap = 6LL << 20,
					   .reads = 2000, .max_inflight = 800 };
}

static void rstat_staleness(void **state)
{
	struct bench_st_result r;
	struct bench_st_verdicts v;
	const char *gap = "break: \"a two-second", *behind = "break: concurrent flushes",
		   *cont = "continue keeps", *scripted = "scripted:";
	char *text;

	(void)state;
	st_plant(&r);
	bench_st_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, gap), HOLDS);
	assert_int_equal(judge(&v.table, behind), HOLDS);
	assert_int_equal(judge(&v.table, cont), HOLDS);
	/* the scripted row is not printed for a measured run */
	text = print_text(&v.table);
	assert_null(strstr(text, "scripted:"));
	free(text);
	r.d[0].max_gap = (2LL << 30) / 2;           /* stuck late in the window: half */
	r.d[0].beyond = 0;                           /* never behind its bound */
	r.d[1].beyond = 1;                           /* continue behind once */
	bench_st_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, gap), FAILS);
	assert_int_equal(judge(&v.table, behind), FAILS);
	assert_int_equal(judge(&v.table, cont), FAILS);
	r.d[0].max_gap = (long long)(2.3 * (1LL << 30));   /* 15 % over */
	bench_st_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, gap), FAILS);
	r.opts.seconds = 1;                          /* a shorter run expects rate x 1 s */
	r.d[0].max_gap = 1LL << 30;
	bench_st_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, gap), HOLDS);
	/* scripted: printed, labelled by construction, never judged */
	r.opts.scripted = true;
	bench_st_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, scripted), NC);
	text = print_text(&v.table);
	assert_non_null(strstr(text, "by construction"));
	assert_null(strstr(text, "[holds]"));
	free(text);
}

/* ---- sched-switch (the goal) ---- */

static void sched_switch(void **state)
{
	struct bench_ss_summary s = { .bare = 4e6, .steps = 1e6, .sched = 5e4 };
	struct bench_ss_verdicts v;
	const char *const goal = "the deterministic scheduler";

	(void)state;
	bench_ss_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, goal), HOLDS);
	s.steps = 999999;
	bench_ss_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, goal), FAILS);
	s.steps = NAN;
	bench_ss_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, goal), NC);
}

/* ---- shrinker-units (thread 001) ---- */

#define LA MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE
#define LO MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND
#define LX MSIM_SHRINKER_INFO_XARRAY

/* Figures shaped like the thread's tables, so that every comparison holds. */
static void shu_plant(struct bench_shu_result *t1, struct bench_shu_result *t2)
{
	static const unsigned int ls[3] = { LA, LO, LX };
	static const double slab1[3] = { 100000, 10000, 9000 }, empty1[3] = { 1000, 900, 100 },
			    busy1[3] = { 2000, 1900, 1000 }, slab2[3] = { 1.6e6, 65e3, 34e3 },
			    cont2[3] = { 32768, 32768, 0 }, reg2[3] = { 1.41, 1.31, 0.10 },
			    none2[3] = { 0.08, 0.08, 0.07 }, visit2[3] = { 22.8, 10.7, 0.5 },
			    walk2[3] = { 23, 11.3, 1.3 };

	memset(t1, 0, sizeof(*t1));
	memset(t2, 0, sizeof(*t2));
	t1->cfg.nodes = 1;
	t2->cfg.nodes = 4;
	for (int i = 0; i < 3; i++) {
		struct bench_shu_layout_result *a = &t1->lay[ls[i]], *b = &t2->lay[ls[i]];

		a->ran = b->ran = true;
		a->nr_max = 20096;
		a->slab_per_cgroup = (uint64_t)slab1[i];
		a->empty_ns = empty1[i];
		a->busy_ns = busy1[i];
		a->walk_visit_us = 0.4;
		b->nr_max = 50112;
		b->slab_per_cgroup = (uint64_t)slab2[i];
		b->container_bytes = (uint64_t)cont2[i];
		b->reg_s = reg2[i];
		b->reg_none_s = none2[i];
		b->walk_visit_us = visit2[i];
		b->walk_s = walk2[i];
		b->empty_ns = 150;
	}
}

static const char *const shu_claim[] = {
	"table 1: both on-demand", "table 1: an empty cgroup's shrink_slab_memcg costs",
	"table 1: the old array on demand walks", "table 1: empty-cgroup shrink_slab_memcg, old",
	"table 1: 100 busy", "table 1: mkdir/rmdir", "table 2: the on-demand array keeps",
	"table 2: base needs", "table 2: 640 mounts", "table 2: without cgroups",
	"table 2: shrink_slab_memcg per", "table 2: the drop_caches", "table 2: base costs about",
	"the xarray pays nothing",
};
/* Rows whose rule is none: what the bench measures cannot stand for the thread's figure. */
#define SHU_NC(i) ((i) == 4 || (i) == 5 || (i) == 12)

/* Flip one figure and check that exactly the row it feeds stops holding. */
static void shu_flip(unsigned int which, void (*flip)(struct bench_shu_result *t1,
						      struct bench_shu_result *t2))
{
	struct bench_shu_result *t = calloc(2, sizeof(*t));
	struct bench_shu_verdicts *v = calloc(1, sizeof(*v));

	assert_non_null(t);
	assert_non_null(v);
	shu_plant(&t[0], &t[1]);
	flip(&t[0], &t[1]);
	bench_shu_verdicts(&t[0], &t[1], v);
	assert_int_equal(judge(&v->table, shu_claim[which]), FAILS);
	free(v);
	free(t);
}

static void f0(struct bench_shu_result *a, struct bench_shu_result *b) { a->lay[LO].slab_per_cgroup = 50000; }
/* (1000 - 600) / 314 = 1.3 ns per index: under half the thread's 4.5 */
static void f1(struct bench_shu_result *a, struct bench_shu_result *b) { a->lay[LX].empty_ns = 600; }
/* (4000 - 100) / 314 = 12.4 ns: over twice */
static void f1b(struct bench_shu_result *a, struct bench_shu_result *b) { a->lay[LA].empty_ns = 4000; }
/* (200 - 100) / 314 = 0.3 ns */
static void f2b(struct bench_shu_result *a, struct bench_shu_result *b) { a->lay[LO].empty_ns = 200; }
static void f2(struct bench_shu_result *a, struct bench_shu_result *b) { a->lay[LO].empty_ns = 400; }
static void f5(struct bench_shu_result *a, struct bench_shu_result *b) { b->lay[LX].container_bytes = 8; }
static void f6(struct bench_shu_result *a, struct bench_shu_result *b) { b->lay[LA].slab_per_cgroup = 500000; }
static void f7(struct bench_shu_result *a, struct bench_shu_result *b) { b->lay[LX].reg_s = 0.30; }
static void f8(struct bench_shu_result *a, struct bench_shu_result *b) { b->lay[LO].reg_none_s = 0.2; }
static void f9(struct bench_shu_result *a, struct bench_shu_result *b) { b->lay[LO].walk_visit_us = 2; }
static void f10(struct bench_shu_result *a, struct bench_shu_result *b) { b->lay[LX].walk_s = 10; }
static void f11(struct bench_shu_result *a, struct bench_shu_result *b) { b->lay[LX].walk_visit_us = 0.9; }

static void shrinker_units(void **state)
{
	struct bench_shu_result *t = calloc(2, sizeof(*t));
	struct bench_shu_verdicts *v = calloc(1, sizeof(*v));
	char *text;

	(void)state;
	assert_non_null(t);
	assert_non_null(v);
	shu_plant(&t[0], &t[1]);
	bench_shu_verdicts(&t[0], &t[1], v);
	assert_int_equal(v->table.groups, BENCH_SHU_T1 | BENCH_SHU_T2);
	for (unsigned int i = 0; i < sizeof(shu_claim) / sizeof(shu_claim[0]); i++)
		assert_int_equal(judge(&v->table, shu_claim[i]), SHU_NC(i) ? NC : HOLDS);
	/* Only table 1 measured: table 2's rows and the cross-table row are left out. */
	bench_shu_verdicts(&t[0], NULL, v);
	assert_int_equal(v->table.groups, BENCH_SHU_T1);
	text = print_text(&v->table);
	assert_non_null(strstr(text, "table 1: 100 busy"));
	assert_null(strstr(text, "table 2:"));
	assert_null(strstr(text, "the xarray pays nothing"));
	free(text);
	/* A layout that did not run leaves its table out too. */
	t[1].lay[LO].ran = false;
	bench_shu_verdicts(&t[0], &t[1], v);
	assert_int_equal(v->table.groups, BENCH_SHU_T1);
	free(v);
	free(t);
	shu_flip(0, f0);
	shu_flip(1, f1);
	shu_flip(1, f1b);
	shu_flip(2, f2b);
	shu_flip(3, f2);
	shu_flip(6, f5);
	shu_flip(7, f6);
	shu_flip(8, f7);
	shu_flip(9, f8);
	shu_flip(10, f9);
	shu_flip(11, f10);
	shu_flip(13, f11);
}

/* ---- explore-rate (the goal; its run is tested in test_explore_rate.c) ---- */

static void explore_rate(void **state)
{
	struct bench_er_result r;
	struct bench_er_verdicts v;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (unsigned int i = 0; i < BENCH_ER_NSTRATS; i++)
		r.s[i] = (struct bench_er_strategy){ .fresh_per_s = 10000, .paths_agree = true };
	r.s[0].pooled_per_s = 30000;
	r.s[1].pooled_per_s = 40000;       /* 25 us a run */
	r.host_us = 20;                    /* host free: 1e6 / 5 us */
	bench_er_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, "the explorer runs"), HOLDS);
	assert_int_equal(judge(&v.table, "both paths"), HOLDS);
	assert_int_equal(judge(&v.table, "PCT explores at least 200000"), FAILS);
	assert_int_equal(judge(&v.table, "with its host's build"), HOLDS);
	r.host_us = 20.5;                  /* 4.5 us left: 222222/s */
	bench_er_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, "with its host's build"), HOLDS);
	r.host_us = 19;                    /* 6 us left: 166667/s */
	bench_er_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, "with its host's build"), FAILS);
	r.host_us = 25;                    /* the host alone no cheaper than a run */
	bench_er_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, "with its host's build"), NC);
	r.host_us = 0;                     /* not measured */
	bench_er_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, "with its host's build"), NC);
	r.s[1].pooled_per_s = 200000;
	bench_er_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, "PCT explores at least 200000"), HOLDS);
	r.s[1].pooled_per_s = 19999;       /* PCT under the goal */
	r.s[2].paths_agree = false;        /* the pooled and fresh paths disagree */
	bench_er_verdicts(&r, &v);
	assert_int_equal(judge(&v.table, "the explorer runs"), FAILS);
	assert_int_equal(judge(&v.table, "both paths"), FAILS);
}

/* Every row that can be judged was forced to "does not hold" by a test above. */
static void check_table_fails(const struct bench_verdict_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		if (t->rows[i].rule == BENCH_RULE_NONE ||
		    t->rows[i].rule == BENCH_RULE_BY_CONSTRUCTION)
			continue;
		if (!seen_fail(&t->rows[i]))
			fail_msg("no failing-side test for \"%s\"", t->rows[i].claim);
	}
}

static void every_row_fails_somewhere(void **state)
{
	struct bench_rf_summary *rf = calloc(1, sizeof(*rf));
	struct bench_nrd_summary *nrd = calloc(1, sizeof(*nrd));
	struct bench_rp_summary *rp = calloc(1, sizeof(*rp));
	struct bench_ac_summary *ac = calloc(1, sizeof(*ac));
	struct bench_ss_summary *ss = calloc(1, sizeof(*ss));
	struct bench_st_result *st = calloc(1, sizeof(*st));
	struct bench_er_result *er = calloc(1, sizeof(*er));
	struct bench_shu_result *shu = calloc(2, sizeof(*shu));
	struct bench_rf_verdicts rfv;
	struct bench_nrd_verdicts nrdv;
	struct bench_rp_verdicts rpv;
	struct bench_ac_verdicts acv;
	struct bench_ss_verdicts ssv;
	struct bench_st_verdicts stv;
	struct bench_er_verdicts erv;
	struct bench_shu_verdicts *shuv = calloc(1, sizeof(*shuv));

	(void)state;
	assert_true(rf && nrd && rp && ac && ss && st && er && shu && shuv);
	bench_rf_verdicts(rf, &rfv);
	check_table_fails(&rfv.table);
	bench_nrd_verdicts(nrd, &nrdv);
	check_table_fails(&nrdv.table);
	bench_rp_verdicts(rp, &rpv);
	check_table_fails(&rpv.table);
	bench_ac_verdicts(ac, &acv);
	check_table_fails(&acv.table);
	bench_ss_verdicts(ss, &ssv);
	check_table_fails(&ssv.table);
	bench_st_verdicts(st, &stv);
	check_table_fails(&stv.table);
	bench_er_verdicts(er, &erv);
	check_table_fails(&erv.table);
	shu_plant(&shu[0], &shu[1]);
	bench_shu_verdicts(&shu[0], &shu[1], shuv);
	check_table_fails(&shuv->table);
	{
		struct bench_dgr_summary *dgr = calloc(1, sizeof(*dgr));
		struct bench_dgr_verdicts dgrv;

		assert_non_null(dgr);
		bench_dgr_verdicts(dgr, &dgrv);
		check_table_fails(&dgrv.table);
		free(dgr);
	}
	free(rf);
	free(nrd);
	free(rp);
	free(ac);
	free(ss);
	free(st);
	free(er);
	free(shu);
	free(shuv);
}

/* ---- damon-goal-read (thread 002 patch 4) ---- */

static void damon_goal_read(void **state)
{
	struct bench_dgr_summary s = {
		.active_read_us = { 900, 1 }, .idle_read_us = { 10, 1 }, .err_max = { 0, 50 },
		.err_bp_max = { 0, 5 }, .flushes = { 3, 0 }, .snapshot_err = 0, .drift_bound = 100,
		.loop = { { .converged = 1, .converged_window = 7, .read_err_max = 9 },
			  { .converged = 1, .converged_window = 7, .read_err_max = 2 } },
		.tol_bp = 100, .course_div_bp = 10 };
	struct bench_dgr_verdicts v;
	const char *const cost = "with 128 active memcgs";
	const char *const cheap = "reading node counters instead";
	const char *const exact = "node counters are always";
	const char *const bound = "the goal's node read stays";
	const char *const small = "the node read's drift is small";
	const char *const flushed = "the flushed read";
	const char *const loop = "the quota's feedback loop";
	const char *const course = "skipping the root flush";
	const char *const acc = "reading node counters makes";
	const char *const same = "under both designs";

	(void)state;
	bench_dgr_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, cost), HOLDS);
	assert_int_equal(judge(&v.table, cheap), HOLDS);
	assert_int_equal(judge(&v.table, exact), FAILS);
	assert_int_equal(judge(&v.table, bound), HOLDS);
	assert_int_equal(judge(&v.table, small), HOLDS);
	assert_int_equal(judge(&v.table, flushed), BC);
	assert_int_equal(judge(&v.table, loop), HOLDS);
	assert_int_equal(judge(&v.table, course), HOLDS);
	assert_int_equal(judge(&v.table, acc), HOLDS);
	assert_int_equal(judge(&v.table, same), HOLDS);
	/* planted failures: every rule to its other side */
	s.active_read_us[0] = 15;          /* flush barely above idle, within 10x of node */
	s.active_read_us[1] = 2;
	s.err_max[0] = 1;
	s.err_max[1] = 101;                /* past the bound */
	s.err_bp_max[1] = 101;
	s.loop[1].converged = 0;
	s.loop[1].converged_window = NAN;
	s.course_div_bp = 101;
	s.loop[1].read_err_max = 10;       /* node read worse than flush read */
	bench_dgr_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, cost), FAILS);
	assert_int_equal(judge(&v.table, cheap), FAILS);
	assert_int_equal(judge(&v.table, bound), FAILS);
	assert_int_equal(judge(&v.table, small), FAILS);
	assert_int_equal(judge(&v.table, flushed), BC);   /* never judged: the setup decides it */
	assert_int_equal(judge(&v.table, loop), FAILS);
	assert_int_equal(judge(&v.table, course), FAILS);
	assert_int_equal(judge(&v.table, acc), FAILS);
	assert_int_equal(judge(&v.table, same), NC);
	s.err_max[1] = 0;                  /* exact, but the truth in doubt; no flush got through */
	s.snapshot_err = 1;
	s.flushes[0] = 0;
	s.loop[1] = s.loop[0];
	s.loop[1].converged_window = 8;    /* both converge, node later */
	bench_dgr_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, exact), NC);
	assert_int_equal(judge(&v.table, bound), NC);
	assert_int_equal(judge(&v.table, same), FAILS);
	s.snapshot_err = 0;
	bench_dgr_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, exact), HOLDS);
	/* a tie is no difference, not "more accurate" */
	s.loop[0].read_err_max = 4;
	s.loop[1].read_err_max = 4;
	bench_dgr_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, acc), FAILS);
	s.loop[1].read_err_max = 3.9;
	bench_dgr_verdicts(&s, &v);
	assert_int_equal(judge(&v.table, acc), HOLDS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(root_flush),
		cmocka_unit_test(node_read_drift),
		cmocka_unit_test(node_read_drift_schedules),
		cmocka_unit_test(rstat_propagate),
		cmocka_unit_test(anon_churn),
		cmocka_unit_test(rstat_staleness),
		cmocka_unit_test(sched_switch),
		cmocka_unit_test(shrinker_units),
		cmocka_unit_test(explore_rate),
		cmocka_unit_test(damon_goal_read),
		/* last: it reads what every test above judged */
		cmocka_unit_test(every_row_fails_somewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
