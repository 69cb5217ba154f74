/* SPDX-License-Identifier: MIT */
/*
 * bench_thrashing_protection.c - `memcgsim bench thrashing-protection` (thread 000 patch
 * 1): does losing the shadow budget lose thrashing protection, measured in
 * pages read from storage? Two workloads (bench_workingset_run.c): a
 * protectable one, a hot set that fits in the memcg against a cold stream, and
 * the cyclic one no design can help; each under classic LRU and MGLRU, with
 * the shadow budget of mainline (shadow-budget=lru-size: lruvec_lru_size(),
 * i.e. lru_zone_size) and of patch 1 (page-state-local), under MGLRU's rules
 * after and before the 6.14 rework (mglru-protection=6.14|6.12). The thread
 * describes the experiment but tabulates no figures; the verdicts compare our
 * runs with each other.
 *
 * The figures are deterministic counts of the model; the designs are
 * alternated over the repetitions and the counts must agree between
 * repetitions (a determinism check). The time is the model's own: C code on
 * this machine, no I/O; it stands for nothing in the kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_table.h"
#include "bench_util.h"
#include "bench_workingset.h"
#include "bench_registry.h"

/* Samples: the protectable designs first, then the cyclic ones. */
#define TP_NRUNS (2 * BENCH_TP_NDESIGNS)

struct tp_ctx {
	struct bench_tp_opts o[TP_NRUNS];
	struct bench_tp_result first[TP_NRUNS];
	bool ran[TP_NRUNS];
	unsigned long mismatches;
	int err;
	char msg[256];
};

static bool tp_same(const struct bench_tp_result *a, const struct bench_tp_result *b)
{
	return a->storage_reads == b->storage_reads && a->refaults == b->refaults &&
	       a->activations == b->activations && a->shadow_nodes_end == b->shadow_nodes_end &&
	       a->hot_resident_end == b->hot_resident_end;
}

static double tp_sample(unsigned int run, unsigned int rep, void *arg)
{
	struct tp_ctx *c = arg;
	struct bench_tp_result *r = malloc(sizeof(*r));
	double seconds;

	(void)rep;
	if (!r || bench_tp_run(&c->o[run], r, c->msg, sizeof(c->msg))) {
		if (!r)
			snprintf(c->msg, sizeof(c->msg), "out of memory");
		free(r);
		c->err = -1;
		return 0;
	}
	if (!c->ran[run]) {
		c->first[run] = *r;
		c->ran[run] = true;
	} else if (!tp_same(r, &c->first[run])) {
		c->mismatches++;
	}
	seconds = r->seconds;
	free(r);
	return seconds;
}

/*
 * Each design's counts at the end: the text's columns, and the JSON's with the
 * design's settings and its rounds. The text prints hot res before storage, the
 * JSON after last_round_storage_reads: two columns of one cell.
 */
static const struct bench_col tp_design_cols[] = {
	{ .head = { "design" }, .fmt = "%-32s", .key = "design" },
	{ .key = "lru" },
	{ .key = "shadow_budget" },
	{ .key = "mglru_protection" },
	{ .head = { "budget" }, .fmt = " %7llu", .key = "budget_nodes" },
	{ .key = "budget_pages" },
	{ .head = { "shadow" }, .fmt = " %7llu", .key = "shadow_nodes_end" },
	{ .key = "shadow_nodes_max" },
	{ .head = { "refaults" }, .fmt = " %9llu", .key = "refaults" },
	{ .head = { "activat." }, .fmt = " %9llu", .key = "activations" },
	{ .head = { "restores" }, .fmt = " %8llu", .key = "restores" },
	{ .head = { "hot res" }, .fmt = " %8llu" },
	{ .head = { "storage" }, .fmt = " %9llu", .key = "storage_reads" },
	{ .head = { "hot stor" }, .fmt = " %9llu", .key = "hot_storage_reads" },
	{ .key = "last_round_storage_reads" },
	{ .key = "hot_resident_end" },
	{ .key = "tier_idx_end" },
	{ .key = "nodes_reclaimed" },
	{ .key = "shadows_reclaimed" },
	{ .head = { "model s" }, .fmt = " %7.2f", .key = "model_seconds_median" },
};
#define TP_DESIGN_COLS (sizeof(tp_design_cols) / sizeof(tp_design_cols[0]))

static void json_rounds(struct bench_json *j, size_t row, const void *ctx);

/* The designs of one workload: c->first[base ...], their median model seconds in med. */
static void tp_designs_table(const struct tp_ctx *c, unsigned int base, const double *med,
			     struct bench_cell *cells, struct bench_table *t)
{
	for (unsigned int d = 0; d < BENCH_TP_NDESIGNS; d++) {
		const struct bench_tp_result *r = &c->first[base + d];
		const struct bench_cell row[TP_DESIGN_COLS] = {
			BENCH_STR(bench_tp_design_name(d)),
			BENCH_STR(d & 2 ? "mglru" : "classic"),
			BENCH_STR(d & 1 ? "page-state-local" : "lru-size"),
			BENCH_STR(d & 4 ? "6.12" : "6.14"),
			BENCH_UINT(r->budget_nodes), BENCH_UINT(r->budget_pages),
			BENCH_UINT(r->shadow_nodes_end), BENCH_UINT(r->shadow_nodes_max),
			BENCH_UINT(r->refaults), BENCH_UINT(r->activations), BENCH_UINT(r->restores),
			BENCH_UINT(r->hot_resident_end), BENCH_UINT(r->storage_reads),
			BENCH_UINT(r->hot_storage_reads), BENCH_UINT(r->last_round_storage_reads),
			BENCH_UINT(r->hot_resident_end), BENCH_INT(r->tier_idx_end),
			BENCH_UINT(r->nodes_reclaimed), BENCH_UINT(r->shadows_reclaimed),
			BENCH_DBL(med[base + d]),
		};

		memcpy(&cells[d * TP_DESIGN_COLS], row, sizeof(row));
	}
	*t = (struct bench_table){ .head_rows = 1, .cols = tp_design_cols, .ncols = TP_DESIGN_COLS,
				   .cells = cells, .nrows = BENCH_TP_NDESIGNS,
				   .row_json = json_rounds, .ctx = &c->first[base] };
}

static void print_rows(const struct tp_ctx *c, unsigned int base, const double *med)
{
	struct bench_cell cells[BENCH_TP_NDESIGNS * TP_DESIGN_COLS];
	struct bench_table t;

	tp_designs_table(c, base, med, cells, &t);
	bench_table_print_text(stdout, &t);
}

static void print_residency(const struct tp_ctx *c)
{
	const struct bench_tp_result *r0 = &c->first[0];

	printf("hot-set residency at the end of each round (storage reads of the round):\n");
	for (unsigned int d = 0; d < BENCH_TP_NDESIGNS; d++) {
		const struct bench_tp_result *r = &c->first[d];

		printf("  %-32s", bench_tp_design_name(d));
		for (unsigned long k = 0; k < r->nr_rounds && k < r0->nr_rounds; k++)
			printf(" %5lu (%5lu)", r->round[k].hot_resident, r->round[k].storage_reads);
		printf("\n");
	}
}

static void print_text(const struct bench_opts *a, const struct tp_ctx *c, const double *med)
{
	const struct bench_tp_opts *p = &c->o[0], *y = &c->o[BENCH_TP_NDESIGNS];
	struct bench_tp_verdicts v;

	printf("thrashing-protection (thread 000 patch 1): memcg %lu pages\n", p->memcg_pages);
	bench_print_base_variants(a, "shadow-budget, mglru-protection and the LRU kind set per "
				  "design");
	printf("\nprotectable: hot set %lu pages (stride %lu) read %lu times per round through the "
	       "file, %lu cold pages read once after each hot one, %lu rounds\n",
	       p->hot_pages, p->hot_stride, p->hot_reads, p->cold_per_hot, p->rounds);
	print_rows(c, 0, med);
	print_residency(c);
	printf("\ncyclic (no design can help): hot set %lu pages (stride %lu) read twice per visit "
	       "in a fault, %lu rounds\n", y->hot_pages, y->hot_stride, y->rounds);
	print_rows(c, BENCH_TP_NDESIGNS, med);
	printf("  budget: count_shadow_nodes' max_nodes for c at the end; shadow: c's shadow nodes;\n"
	       "  hot res: hot pages resident at the end; storage: pages read from backing storage;\n"
	       "  classic rows with (6.12) run the same classic code: equal by construction;\n"
	       "  determinism: %lu mismatches between repetitions\n\n", c->mismatches);
	bench_tp_verdicts(c->first, c->first + BENCH_TP_NDESIGNS, &v);
	bench_verdict_print_text(stdout, &v.table);
}

/* The rounds of design row of a table (its ctx: the workload's first result). */
static void json_rounds(struct bench_json *j, size_t row, const void *ctx)
{
	const struct bench_tp_result *r = (const struct bench_tp_result *)ctx + row;

	bench_json_arr_begin(j, "rounds");
	for (unsigned long k = 0; k < r->nr_rounds; k++) {
		const struct bench_tp_round *rr = &r->round[k];

		bench_json_obj_begin(j, NULL);
		bench_json_kuint(j, "round", k + 1);
		bench_json_kuint(j, "storage_reads", rr->storage_reads);
		bench_json_kuint(j, "hot_storage_reads", rr->hot_storage_reads);
		bench_json_kuint(j, "hot_resident", rr->hot_resident);
		bench_json_kuint(j, "shadow_nodes", rr->shadow_nodes);
		bench_json_kuint(j, "budget", rr->budget_nodes);
		bench_json_kuint(j, "refaults", rr->refaults);
		bench_json_kuint(j, "activations", rr->activations);
		bench_json_kuint(j, "restores", rr->restores);
		bench_json_obj_end(j);
	}
	bench_json_arr_end(j);
}

static void json_designs(struct bench_json *j, const char *key, const struct tp_ctx *c,
			 unsigned int base, const double *med)
{
	struct bench_cell cells[BENCH_TP_NDESIGNS * TP_DESIGN_COLS];
	struct bench_table t;

	tp_designs_table(c, base, med, cells, &t);
	bench_table_print_json(j, key, &t);
}

static void print_json(const struct bench_opts *a, const struct tp_ctx *c, const double *med)
{
	const struct bench_tp_opts *p = &c->o[0];
	struct bench_tp_verdicts v;
	struct bench_json j;

	bench_json_begin(&j, stdout, "thrashing-protection", "000",
			 "deterministic counts; model seconds are this machine's C code", a);
	bench_json_kuint(&j, "determinism_mismatches", c->mismatches);
	bench_json_kuint(&j, "memcg_pages", p->memcg_pages);
	bench_json_kuint(&j, "hot_pages", p->hot_pages);
	bench_json_kuint(&j, "hot_reads", p->hot_reads);
	bench_json_kuint(&j, "cold_per_hot", p->cold_per_hot);
	json_designs(&j, "designs", c, 0, med);
	json_designs(&j, "cyclic_designs", c, BENCH_TP_NDESIGNS, med);
	bench_tp_verdicts(c->first, c->first + BENCH_TP_NDESIGNS, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static unsigned long opt_rounds, opt_cyclic_rounds, opt_hot_reads, opt_cold_per_hot;

static void tp_setup(struct tp_ctx *c, const struct bench_opts *a)
{
	for (unsigned int d = 0; d < BENCH_TP_NDESIGNS; d++) {
		struct bench_tp_opts *p = &c->o[d], *y = &c->o[BENCH_TP_NDESIGNS + d];

		bench_tp_design_opts(p, BENCH_TP_PROTECTABLE, d);
		bench_tp_design_opts(y, BENCH_TP_CYCLIC, d);
		p->base = y->base = a->variants;
		p->rounds = opt_rounds ? opt_rounds : a->quick ? 4 : p->rounds;
		y->rounds = opt_cyclic_rounds ? opt_cyclic_rounds : a->quick ? 2 : y->rounds;
		if (opt_hot_reads)
			p->hot_reads = opt_hot_reads;
		if (opt_cold_per_hot)
			p->cold_per_hot = opt_cold_per_hot;
	}
}

static int thrashing_main(int argc, char **argv)
{
	static const struct bench_arg opts[] = {
		BENCH_OPT_ULONG("--rounds", "N", &opt_rounds, 1, BENCH_TP_MAX_ROUNDS,
				"protectable workload's rounds (default 8, 4 with --quick)"),
		BENCH_OPT_ULONG("--cyclic-rounds", "N", &opt_cyclic_rounds, 1, BENCH_TP_MAX_ROUNDS,
				"cyclic workload's rounds (default 4, 2 with --quick)"),
		BENCH_OPT_ULONG("--hot-reads", "N", &opt_hot_reads, 1, 64,
				"reads of each hot page per round (default 3)"),
		BENCH_OPT_ULONG("--cold-per-hot", "N", &opt_cold_per_hot, 0, 64,
				"cold pages streamed after each hot page (default 2)"),
		BENCH_OPT_END,
	};
	static const struct bench_spec spec = {
		.name = "thrashing-protection",
		.summary = "thread 000 patch 1: shadow budget lru-size vs page-state-local",
		.description = "Does losing the shadow budget lose thrashing protection? A memcg of "
			       "16384 pages reads a hot set of 8192 pages three times per round "
			       "through the file, each hot page followed by two pages of a cold "
			       "stream read once (protectable), and, as the case no design can "
			       "help, a 20480-page set cyclically in a fault (cyclic); under "
			       "classic LRU and MGLRU (6.14 and 6.12 rules), with each shadow "
			       "budget. Prints pages read from storage, refaults, activations, "
			       "restores, hot-set residency per round and shadow nodes against "
			       "the budget: deterministic counts. The model's time is C code on "
			       "this machine and stands for nothing in the kernel.",
		.default_reps = 2,
		.quick_reps = 1,
		.options = opts,
	};
	struct bench_opts a;
	struct bench_progress pr;
	double samples[TP_NRUNS * 8], med[TP_NRUNS];
	struct tp_ctx *c;
	int ret;

	opt_rounds = opt_cyclic_rounds = opt_hot_reads = opt_cold_per_hot = 0;
	if ((ret = bench_parse_args(&spec, argc, argv, &a)))
		return bench_args_exit_status(ret);
	if (a.reps > 8)
		a.reps = 8;
	if (!(c = calloc(1, sizeof(*c))))
		return 1;
	tp_setup(c, &a);
	bench_progress_init(&pr, spec.name, true);
	bench_alternate(TP_NRUNS, a.reps, tp_sample, c, samples, &pr);
	bench_progress_done(&pr);
	if (c->err) {
		fprintf(stderr, "thrashing-protection: %s\n", c->msg);
		free(c);
		return 1;
	}
	for (unsigned int d = 0; d < TP_NRUNS; d++)
		med[d] = bench_median(samples + d * a.reps, a.reps);
	if (a.json)
		print_json(&a, c, med);
	else
		print_text(&a, c, med);
	free(c);
	return 0;
}

static const struct bench_engine thrashing_protection_bench = {
	.name = "thrashing-protection",
	.summary = "thread 000 patch 1: storage reads, refaults, shadow nodes per budget and rule",
	.main = thrashing_main,
};
BENCH_REGISTER(thrashing_protection_bench);
