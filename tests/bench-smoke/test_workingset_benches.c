/* SPDX-License-Identifier: MIT */
/*
 * test_workingset_benches.c - the workingset benches (thread 000): the
 * thrashing-protection experiment's deterministic counts asserted exactly (the
 * bench's sizes; protectable 3 rounds, cyclic 2), its verdicts computed from
 * them, a planted workload that flips its claim; w2-file-churn's
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

#include "bench_w2_file_churn.h"
#include "bench_w3_reparent.h"
#include "bench_workingset.h"
#include "verdict_util.h"

/* The protectable workload at 3 rounds, the cyclic one at 2: every design. */
static struct bench_tp_result tp[BENCH_TP_NDESIGNS], cy[BENCH_TP_NDESIGNS];

static void run_design(enum bench_tp_workload w, unsigned int design, unsigned long rounds,
		       unsigned long hot_reads, struct bench_tp_result *r)
{
	struct bench_tp_opts o;
	char msg[256] = "";

	bench_tp_design_opts(&o, w, design);
	o.rounds = rounds;
	if (hot_reads)
		o.hot_reads = hot_reads;
	assert_int_equal(bench_tp_run(&o, r, msg, sizeof(msg)), 0);
}

static int run_all(void **state)
{
	(void)state;
	for (unsigned int d = 0; d < BENCH_TP_NDESIGNS; d++) {
		run_design(BENCH_TP_PROTECTABLE, d, 3, 0, &tp[d]);
		run_design(BENCH_TP_CYCLIC, d, 2, 0, &cy[d]);
	}
	return 0;
}

#define ML BENCH_TP_DESIGN(1, 0, 0)
#define MP BENCH_TP_DESIGN(1, 1, 0)

/*
 * MGLRU with the lru-size budget: the budget is the slab of c's xa_nodes (18
 * nodes), the shrinker takes the hot set's shadows before they refault, no
 * refault is detected, the first tier's setpoint protects nothing (tier_idx 3)
 * and the stream evicts a third of the hot set every round: every read of a
 * round is a read from storage (3 x 24576). Patch 1's budget keeps them: 2795
 * hot refaults are detected in round 2, the second tier is protected (tier_idx
 * 0) and from round 2's end the hot set stays resident: 60139 reads.
 */
static void thrashing_mglru(void **state)
{
	const struct bench_tp_result *l = &tp[ML], *p = &tp[MP];
	static const unsigned long l_res[3] = { 5461, 5461, 5461 }, p_res[3] = { 5461, 8192, 8192 };
	static const unsigned long p_reads[3] = { 24576, 19179, 16384 };

	(void)state;
	assert_int_equal(l->budget_nodes, 18);
	assert_int_equal(l->refaults, 0);
	assert_int_equal(l->storage_reads, 3 * 24576);
	assert_int_equal(l->hot_storage_reads, 3 * 8192);
	assert_int_equal(l->tier_idx_end, 3);
	assert_int_equal(p->budget_nodes, 2078);
	assert_int_equal(p->refaults, 2795);
	assert_int_equal(p->activations, 0);   /* 6.14: reads, not faults, and none was in the workingset */
	assert_int_equal(p->restores, 0);
	assert_int_equal(p->storage_reads, 60139);
	assert_int_equal(p->hot_storage_reads, 10987);
	assert_int_equal(p->tier_idx_end, 0);
	assert_int_equal(p->nodes_reclaimed, 0);
	for (unsigned int k = 0; k < 3; k++) {
		assert_int_equal(l->round[k].hot_resident, l_res[k]);
		assert_int_equal(l->round[k].storage_reads, 24576);
		assert_int_equal(p->round[k].hot_resident, p_res[k]);
		assert_int_equal(p->round[k].storage_reads, p_reads[k]);
	}
	assert_int_equal(p->round[1].refaults, 2795);
}

/* 6.12's rules give the same reads here; every recent refault counts as an activation. */
static void thrashing_mglru_6_12(void **state)
{
	const struct bench_tp_result *l = &tp[BENCH_TP_DESIGN(1, 0, 1)], *p = &tp[BENCH_TP_DESIGN(1, 1, 1)];

	(void)state;
	assert_int_equal(l->storage_reads, 3 * 24576);
	assert_int_equal(l->refaults, 0);
	assert_int_equal(p->storage_reads, 60139);
	assert_int_equal(p->refaults, 2795);
	assert_int_equal(p->activations, 2795);
	assert_int_equal(p->restores, 0);      /* not in a fault, refs below 3 */
}

/*
 * Classic: the second read activates a hot page, the stream stays inactive.
 * inactive_is_low() reads the lruvec's statistics, flushed every 2000 storage
 * reads (2 s of the clock), so reclaim keeps aging the active list past the
 * balance: round 2 ends with 6632 hot pages resident and round 3 reads back
 * 1560, none of them recent by its refault distance. Both budgets read the
 * same pages; the runs are identical, and the classic rows of the 6.12 rule
 * equal them (the same code: by construction).
 */
static void thrashing_classic(void **state)
{
	const struct bench_tp_result *l = &tp[BENCH_TP_DESIGN(0, 0, 0)], *p = &tp[BENCH_TP_DESIGN(0, 1, 0)];

	(void)state;
	assert_int_equal(l->budget_nodes, 2061);
	assert_int_equal(p->budget_nodes, 2061);
	assert_int_equal(l->storage_reads, 58904);
	assert_int_equal(p->storage_reads, 58904);
	assert_int_equal(l->refaults, 1560);
	assert_int_equal(p->refaults, 1560);
	assert_int_equal(l->round[1].hot_resident, 6632);
	assert_int_equal(l->round[2].hot_storage_reads, 1560);
	assert_int_equal(l->activations, 0);
	assert_int_equal(p->restores, 0);
	assert_int_equal(l->hot_resident_end, 7783);
	assert_int_equal(p->hot_resident_end, 7783);
	assert_int_equal(tp[BENCH_TP_DESIGN(0, 0, 1)].storage_reads, l->storage_reads);
	assert_int_equal(tp[BENCH_TP_DESIGN(0, 1, 1)].refaults, p->refaults);
}

/*
 * Cyclic: every MGLRU design reads 2 x 20480 pages from storage, classic all
 * but one (memory.high overshoots by a charge batch until the return to user
 * space, and one page of round 1 survives its second chance). With the
 * lru-size budget MGLRU detects no refault; patch 1's detects all 20480 of
 * round 2; the reads are faults, so each recent refault is an activation: 6.12
 * counts 16384 (a token is recent while min_seq has not moved) and restores as
 * many, 6.14 counts 16385 (recent within MAX_NR_GENS of max_seq) and restores
 * none (no folio was in the workingset).
 */
static void thrashing_cyclic(void **state)
{
	(void)state;
	for (unsigned int d = 0; d < BENCH_TP_NDESIGNS; d++)
		assert_int_equal(cy[d].storage_reads, d & 2 ? 2 * 20480 : 2 * 20480 - 1);
	assert_int_equal(cy[ML].budget_nodes, 42);
	assert_int_equal(cy[ML].shadow_nodes_end, 289);
	assert_int_equal(cy[ML].refaults, 0);
	assert_int_equal(cy[MP].budget_nodes, 2094);
	assert_int_equal(cy[MP].shadow_nodes_end, 512);
	assert_int_equal(cy[MP].refaults, 20480);
	assert_int_equal(cy[MP].activations, 16385);
	assert_int_equal(cy[MP].restores, 0);
	assert_int_equal(cy[BENCH_TP_DESIGN(1, 1, 1)].activations, 16384);
	assert_int_equal(cy[BENCH_TP_DESIGN(1, 1, 1)].restores, 16384);
	assert_int_equal(cy[BENCH_TP_DESIGN(0, 0, 0)].refaults, 20479);
	assert_int_equal(cy[BENCH_TP_DESIGN(0, 0, 0)].activations, 0);
}

static void thrashing_verdicts_measured(void **state)
{
	struct bench_tp_verdicts v;

	(void)state;
	bench_tp_verdicts(tp, cy, &v);
	assert_string_equal(verdict_of(&v.table, "under MGLRU, lruvec_lru_size()"), "holds");
	assert_string_equal(verdict_of(&v.table, "losing the budget loses"), "holds");
	assert_string_equal(verdict_of(&v.table, "the same under the 6.12"), "holds");
	assert_string_equal(verdict_of(&v.table, "classic LRU maintains"), "holds");
	assert_string_equal(verdict_of(&v.table, "cyclic set 25% larger"), "by construction");
	assert_string_equal(verdict_of(&v.table, "cyclic: with the collapsed"), "holds");
}

/*
 * The planted workload that flips the claim: seven reads per visit fill a hot
 * page's refs (6.14: PG_referenced, the counter, PG_workingset: the lazy
 * promotion; 6.12: refs == BIT(LRU_REFS_WIDTH)), which sort_folio protects
 * without any refault feedback, so the budget no longer matters: "does not
 * hold", measured.
 */
static void thrashing_planted_workload(void **state)
{
	struct bench_tp_result r[BENCH_TP_NDESIGNS];
	struct bench_tp_verdicts v;

	(void)state;
	memcpy(r, tp, sizeof(r));
	run_design(BENCH_TP_PROTECTABLE, ML, 3, 7, &r[ML]);
	run_design(BENCH_TP_PROTECTABLE, MP, 3, 7, &r[MP]);
	assert_int_equal(r[ML].storage_reads, r[MP].storage_reads);
	assert_int_equal(r[ML].hot_storage_reads, 8192);   /* the first round's only */
	bench_tp_verdicts(r, cy, &v);
	assert_string_equal(verdict_of(&v.table, "losing the budget loses"), "does not hold");
}

/* Planted figures: each row does not hold when its measured figure goes the other way. */
static void thrashing_verdicts_planted(void **state)
{
	struct bench_tp_result r[BENCH_TP_NDESIGNS], c[BENCH_TP_NDESIGNS];
	struct bench_tp_verdicts v;

	(void)state;
	memcpy(r, tp, sizeof(r));
	memcpy(c, cy, sizeof(c));
	r[ML].budget_nodes = 500;      /* no collapse */
	bench_tp_verdicts(r, c, &v);
	assert_string_equal(verdict_of(&v.table, "under MGLRU, lruvec_lru_size()"), "does not hold");
	memcpy(r, tp, sizeof(r));
	r[ML].storage_reads = r[MP].storage_reads * 105 / 100;   /* within 5% */
	bench_tp_verdicts(r, c, &v);
	assert_string_equal(verdict_of(&v.table, "losing the budget loses"), "does not hold");
	memcpy(r, tp, sizeof(r));
	r[BENCH_TP_DESIGN(1, 0, 1)].storage_reads = r[BENCH_TP_DESIGN(1, 1, 1)].storage_reads;
	bench_tp_verdicts(r, c, &v);
	assert_string_equal(verdict_of(&v.table, "the same under the 6.12"), "does not hold");
	memcpy(r, tp, sizeof(r));
	r[BENCH_TP_DESIGN(0, 1, 0)].storage_reads++;         /* patch 1 changed classic */
	bench_tp_verdicts(r, c, &v);
	assert_string_equal(verdict_of(&v.table, "classic LRU maintains"), "does not hold");
	memcpy(r, tp, sizeof(r));
	c[MP].storage_reads = c[MP].storage_reads * 98 / 100; /* a design kept 2% */
	bench_tp_verdicts(r, c, &v);
	/* the workload decides it: shown, never judged, whatever the figures */
	assert_string_equal(verdict_of(&v.table, "cyclic set 25% larger"), "by construction");
	memcpy(c, cy, sizeof(c));
	c[ML].refaults = c[MP].refaults;
	bench_tp_verdicts(r, c, &v);
	assert_string_equal(verdict_of(&v.table, "cyclic: with the collapsed"), "does not hold");
	c[MP].refaults = 0;
	bench_tp_verdicts(r, c, &v);
	assert_string_equal(verdict_of(&v.table, "cyclic: with the collapsed"), "not comparable");
	verdict_assert_every_row_failed(&v.table);
}

/*
 * w2: memory.high 4096 pages, an 8192-page file read twice: every read goes to
 * storage (a sequential loop twice the memcg), the second pass refaults all;
 * distance 4096 > no active page: no activation. 64 shadow nodes stay: 64 over
 * the MGLRU lru-size budget is below do_shrink_slab's first batch.
 */
static void w2_counts(void **state)
{
	struct bench_fc_counts n;
	struct msim_variants v;

	(void)state;
	for (unsigned int d = 0; d < BENCH_FC_NDESIGNS; d += 2)
		for (unsigned int l = 0; l < BENCH_FC_NLRU; l++) {
			msim_variants_init(&v);
			bench_fc_design_variants(d, &v);
			assert_false(isnan(bench_fc_run(l ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC, &v,
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
	struct bench_fc_summary s;
	struct bench_fc_verdicts v;
	const char *const cio = "classic LRU: the patches leave", *const mio = "MGLRU: the patches leave";

	(void)state;
	memset(&s, 0, sizeof(s));
	for (unsigned int l = 0; l < BENCH_FC_NLRU; l++) {
		s.median[0][l] = 1000;
		s.median[1][l] = 900;    /* -10 %: the model's bookkeeping, not judged */
		s.median[2][l] = 1010;
		s.noise[l] = 0.5;
		for (unsigned int d = 0; d < BENCH_FC_NDESIGNS; d++) {
			s.storage_reads[d][l] = 10000;
			s.refaults[d][l] = 5000;
		}
	}
	s.storage_reads[1][0] = 10100;   /* +1 %: at the band's edge */
	bench_fc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, "classic LRU: \"the remaining"), "not comparable");
	assert_string_equal(verdict_of(&v.table, "MGLRU: \"the remaining"), "not comparable");
	assert_string_equal(verdict_of(&v.table, cio), "by construction");
	assert_string_equal(verdict_of(&v.table, mio), "by construction");
	/* the workload's sizes decide the counts (w2_counts checks them exactly): a
	 * planted difference is shown, never judged */
	s.storage_reads[1][0] = 10101;
	s.refaults[2][1] = 4940;
	bench_fc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, cio), "by construction");
	assert_string_equal(verdict_of(&v.table, mio), "by construction");
	verdict_assert_every_row_failed(&v.table);
}

static struct bench_w3_result w3[BENCH_W3_NDESIGNS][BENCH_W3_NLRU];

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
	for (unsigned int d = 0; d < BENCH_W3_NDESIGNS; d++)
		for (unsigned int l = 0; l < BENCH_W3_NLRU; l++) {
			msim_variants_init(&v);
			bench_fc_design_variants(d, &v);
			assert_int_equal(bench_w3_run(l ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC, &v,
						      &w3[d][l]), 0);
			assert_true(w3[d][l].hier_ok);
			assert_true(w3[d][l].sizes_ok);
			assert_true(w3[d][l].shadows_ok);
			assert_int_equal(w3[d][l].local_ok, d > 0);
			assert_int_equal(w3[d][l].shadow_nodes_p, l ? 10 : 9);
		}
	assert_int_equal(w3[0][0].listed, 505);
	assert_int_equal(w3[0][0].local_lru, -38);
	assert_int_equal(w3[0][0].dead_local_lru, 543);
	assert_int_equal(w3[1][0].listed, 505);
	assert_int_equal(w3[0][1].listed, 512);
	assert_int_equal(w3[0][1].local_lru, -64);
	assert_int_equal(w3[0][1].dead_local_lru, 576);
	assert_int_equal(w3[2][1].dead_local_lru, 0);
}

static void w3_verdicts(void **state)
{
	struct bench_w3_result r[BENCH_W3_NDESIGNS][BENCH_W3_NLRU];
	struct bench_w3_verdicts v;

	(void)state;
	bench_w3_verdicts(w3, &v);
	assert_string_equal(verdict_of(&v.table, "\"w3-reparent passed"), "holds");
	assert_string_equal(verdict_of(&v.table, "local statistics add up"), "holds");
	memcpy(r, w3, sizeof(r));
	r[2][1].shadows_ok = false;
	bench_w3_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "\"w3-reparent passed"), "does not hold");
	memcpy(r, w3, sizeof(r));
	r[1][0].local_ok = false;
	bench_w3_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "local statistics add up"), "does not hold");
	verdict_assert_every_row_failed(&v.table);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(w2_counts),
		cmocka_unit_test(w2_verdicts_planted),
		cmocka_unit_test(w3_counts),
		cmocka_unit_test(w3_verdicts),
		cmocka_unit_test(thrashing_mglru),
		cmocka_unit_test(thrashing_mglru_6_12),
		cmocka_unit_test(thrashing_classic),
		cmocka_unit_test(thrashing_cyclic),
		cmocka_unit_test(thrashing_verdicts_measured),
		cmocka_unit_test(thrashing_planted_workload),
		cmocka_unit_test(thrashing_verdicts_planted),
	};

	return cmocka_run_group_tests(tests, run_all, NULL);
}
