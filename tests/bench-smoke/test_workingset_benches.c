/* SPDX-License-Identifier: MIT */
/*
 * test_workingset_benches.c - the workingset benches (thread 000): the
 * thrashing-protection experiment's deterministic counts asserted exactly (two
 * rounds, the bench's sizes), its verdicts computed from them; w2-file-churn's
 * counts (its MB/s are timings: never asserted); w3-reparent's pass/fail per
 * design and the counts behind it; and every verdict row forced to each
 * outcome on planted figures. (The rows live here
 * rather than in test_bench_verdicts.c so that the table of each bench stays
 * with the bench's own tests.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_file_churn.h"
#include "bench_reparent_check.h"
#include "bench_workingset.h"
#include "verdict_util.h"

static struct msim_tp_result tp[MSIM_TP_NDESIGNS];

static void run_design(unsigned int mglru, unsigned int psl)
{
	struct msim_tp_opts o;
	char msg[256] = "";

	msim_tp_opts_init(&o, mglru ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC,
			  psl ? MSIM_SHADOW_BUDGET_PAGE_STATE_LOCAL : MSIM_SHADOW_BUDGET_LRU_SIZE);
	o.rounds = 2;
	assert_int_equal(msim_tp_run(&o, &tp[MSIM_TP_DESIGN(mglru, psl)], msg, sizeof(msg)), 0);
}

static int run_all(void **state)
{
	(void)state;
	for (unsigned int d = 0; d < MSIM_TP_NDESIGNS; d++)
		run_design(d >= 2, d & 1);
	return 0;
}

/* Every design reads 2 x 20480 pages from storage: a cyclic loop 25% over memory misses always. */
static void thrashing_common(void **state)
{
	(void)state;
	for (unsigned int d = 0; d < MSIM_TP_NDESIGNS; d++) {
		assert_int_equal(tp[d].reads, 2 * 2 * 20480);
		assert_int_equal(tp[d].storage_reads, 2 * 20480);
		assert_int_equal(tp[d].last_round_storage_reads, 20480);
	}
}

/*
 * MGLRU: the lru-size budget is the slab of c's xa_nodes alone (42 nodes, at
 * 592 bytes of slab each); the shrinker keeps c at 256 shadow nodes and every token of the hot set is gone
 * before its refault: no refault is detected. Patch 1's budget (2094 nodes)
 * keeps the 512 shadow nodes of the 4096 pages that do not fit: every page of
 * the second round refaults (20480), and the recent ones activate.
 */
static void thrashing_mglru(void **state)
{
	const struct msim_tp_result *l = &tp[MSIM_TP_DESIGN(1, 0)], *p = &tp[MSIM_TP_DESIGN(1, 1)];

	(void)state;
	assert_int_equal(l->budget_nodes, 42);
	assert_int_equal(l->shadow_nodes_end, 256);
	assert_int_equal(l->refaults, 0);
	assert_int_equal(l->activations, 0);
	assert_true(l->nodes_reclaimed > 0);
	assert_int_equal(p->budget_nodes, 2094);
	assert_int_equal(p->shadow_nodes_end, 512);
	assert_int_equal(p->refaults, 20480);
	assert_int_equal(p->activations, 16385);
	assert_int_equal(p->nodes_reclaimed, 0);
}

/* Classic: both budgets read the same pages; the runs are identical. */
static void thrashing_classic(void **state)
{
	const struct msim_tp_result *l = &tp[MSIM_TP_DESIGN(0, 0)], *p = &tp[MSIM_TP_DESIGN(0, 1)];

	(void)state;
	assert_int_equal(l->budget_nodes, 2091);
	assert_int_equal(p->budget_nodes, 2091);
	assert_int_equal(l->shadow_nodes_end, 513);
	assert_int_equal(p->shadow_nodes_end, 513);
	assert_int_equal(l->refaults, 20480);
	assert_int_equal(p->refaults, 20480);
	assert_int_equal(l->activations, 17440);
	assert_int_equal(p->activations, 17440);
	assert_int_equal(l->nodes_reclaimed, 0);
}

static void thrashing_verdicts_measured(void **state)
{
	struct msim_tp_verdicts v;

	(void)state;
	msim_tp_verdicts(tp, &v);
	assert_string_equal(verdict_of(&v.table, "under MGLRU, lruvec_lru_size()"), "holds");
	assert_string_equal(verdict_of(&v.table, "with the collapsed budget"), "holds");
	assert_string_equal(verdict_of(&v.table, "classic LRU maintains"), "holds");
}

/* Planted figures: each row does not hold when its measured figure goes the other way. */
static void thrashing_verdicts_planted(void **state)
{
	struct msim_tp_result r[MSIM_TP_NDESIGNS];
	struct msim_tp_verdicts v;

	(void)state;
	memcpy(r, tp, sizeof(r));
	r[MSIM_TP_DESIGN(1, 0)].budget_nodes = 500;      /* no collapse */
	msim_tp_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "under MGLRU, lruvec_lru_size()"), "does not hold");
	memcpy(r, tp, sizeof(r));
	r[MSIM_TP_DESIGN(1, 0)].activations = r[MSIM_TP_DESIGN(1, 1)].activations; /* none lost */
	msim_tp_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "with the collapsed budget"), "does not hold");
	memcpy(r, tp, sizeof(r));
	r[MSIM_TP_DESIGN(1, 0)].shadow_nodes_end = r[MSIM_TP_DESIGN(1, 1)].shadow_nodes_end;
	msim_tp_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "with the collapsed budget"), "does not hold");
	memcpy(r, tp, sizeof(r));
	r[MSIM_TP_DESIGN(0, 1)].storage_reads++;          /* patch 1 changed classic */
	msim_tp_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "classic LRU maintains"), "does not hold");
	memcpy(r, tp, sizeof(r));
	r[MSIM_TP_DESIGN(0, 0)].activations = 0;
	msim_tp_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "classic LRU maintains"), "does not hold");
}

/*
 * w2: memory.high 4096 pages, an 8192-page file read twice: every read goes to
 * storage (a sequential loop twice the memcg), the second pass refaults all;
 * distance 4096 > no active page: no activation. 64 shadow nodes stay: 64 over
 * the MGLRU lru-size budget is below do_shrink_slab's first batch.
 */
static void w2_counts(void **state)
{
	struct msim_fc_counts n;
	struct msim_variants v;

	(void)state;
	for (unsigned int d = 0; d < MSIM_FC_NDESIGNS; d += 2)
		for (unsigned int l = 0; l < MSIM_FC_NLRU; l++) {
			msim_variants_init(&v);
			msim_fc_design_variants(d, &v);
			assert_false(isnan(msim_fc_run(l ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC, &v,
						       4096, 2, &n)));
			assert_int_equal(n.reads, 16384);
			assert_int_equal(n.storage_reads, 16384);
			assert_int_equal(n.refaults, 8192);
			assert_int_equal(n.activations, 0);
			assert_int_equal(n.shadow_nodes, 64);
			assert_int_equal(n.nodes_reclaimed, 0);
		}
}

static void w2_verdicts_planted(void **state)
{
	struct msim_fc_summary s;
	struct msim_fc_verdicts v;

	(void)state;
	for (unsigned int l = 0; l < MSIM_FC_NLRU; l++) {
		s.median[0][l] = 1000;
		s.median[1][l] = 990;    /* -1%: within 2% */
		s.median[2][l] = 1010;
		s.noise[l] = 0.5;
	}
	msim_fc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "classic LRU: \"the remaining"), "holds");
	assert_string_equal(verdict_of(&v.table, "MGLRU: \"the remaining"), "holds");
	s.median[1][0] = 900;            /* -10% with 0.5% noise */
	msim_fc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "classic LRU: \"the remaining"), "does not hold");
	s.noise[0] = 4;                  /* -10% <= 3 x 4% */
	msim_fc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "classic LRU: \"the remaining"), "holds");
	s.median[2][1] = 1100;           /* +10% */
	msim_fc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "MGLRU: \"the remaining"), "does not hold");
}

static struct msim_w3_result w3[MSIM_W3_NDESIGNS][MSIM_W3_NLRU];

/*
 * w3: hierarchical statistics, LRU sizes and shadow nodes add up on every
 * design; local statistics only with patch 2: on base (cgroup v2) the dead
 * children keep theirs and p's local goes negative as their reparented folios
 * are uncharged from it.
 */
static void w3_counts(void **state)
{
	struct msim_variants v;

	(void)state;
	for (unsigned int d = 0; d < MSIM_W3_NDESIGNS; d++)
		for (unsigned int l = 0; l < MSIM_W3_NLRU; l++) {
			msim_variants_init(&v);
			msim_fc_design_variants(d, &v);
			assert_int_equal(msim_w3_run(l ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC, &v,
						     &w3[d][l]), 0);
			assert_true(w3[d][l].hier_ok);
			assert_true(w3[d][l].sizes_ok);
			assert_true(w3[d][l].shadows_ok);
			assert_int_equal(w3[d][l].local_ok, d > 0);
			assert_int_equal(w3[d][l].shadow_nodes_p, 10);
		}
	assert_int_equal(w3[0][0].listed, 499);
	assert_int_equal(w3[0][0].local_lru, -30);
	assert_int_equal(w3[0][0].dead_local_lru, 529);
	assert_int_equal(w3[1][0].listed, 502);
	assert_int_equal(w3[0][1].listed, 512);
	assert_int_equal(w3[0][1].local_lru, -96);
	assert_int_equal(w3[0][1].dead_local_lru, 608);
	assert_int_equal(w3[2][1].dead_local_lru, 0);
}

static void w3_verdicts(void **state)
{
	struct msim_w3_result r[MSIM_W3_NDESIGNS][MSIM_W3_NLRU];
	struct msim_w3_verdicts v;

	(void)state;
	msim_w3_verdicts(w3, &v);
	assert_string_equal(verdict_of(&v.table, "\"w3-reparent passed"), "holds");
	assert_string_equal(verdict_of(&v.table, "local statistics add up"), "holds");
	memcpy(r, w3, sizeof(r));
	r[2][1].shadows_ok = false;
	msim_w3_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "\"w3-reparent passed"), "does not hold");
	memcpy(r, w3, sizeof(r));
	r[1][0].local_ok = false;
	msim_w3_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "local statistics add up"), "does not hold");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(w2_counts),
		cmocka_unit_test(w2_verdicts_planted),
		cmocka_unit_test(w3_counts),
		cmocka_unit_test(w3_verdicts),
		cmocka_unit_test(thrashing_common),
		cmocka_unit_test(thrashing_mglru),
		cmocka_unit_test(thrashing_classic),
		cmocka_unit_test(thrashing_verdicts_measured),
		cmocka_unit_test(thrashing_verdicts_planted),
	};

	return cmocka_run_group_tests(tests, run_all, NULL);
}
