/* SPDX-License-Identifier: MIT */
/*
 * bench_thrashing.c - `memcgsim bench thrashing-protection` (thread 000 patch
 * 1): a workload whose hot set is 25% larger than its memcg, under classic LRU
 * and MGLRU, with the shadow budget of mainline (shadow-budget=lru-size:
 * lruvec_lru_size(), i.e. lru_zone_size) and of patch 1 (page-state-local).
 * The thread describes the experiment ("the shadow shrinker reclaims eviction
 * tokens almost as fast as they are created, losing thrashing protection") but
 * tabulates no figures; the verdicts compare our four runs with each other.
 *
 * The figures are deterministic counts of the model (bench_workingset_run.c
 * says why the sizes are what they are); the designs are alternated over the
 * repetitions and the counts must agree between repetitions (a determinism
 * check). The time is the model's own: C code on this machine, no I/O; it
 * stands for nothing in the kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "bench_workingset.h"
#include "scenario.h"

static const char *const design_names[MSIM_TP_NDESIGNS] = {
	"classic, lru-size", "classic, page-state-local", "MGLRU, lru-size",
	"MGLRU, page-state-local",
};

struct tp_ctx {
	struct msim_tp_opts o[MSIM_TP_NDESIGNS];
	struct msim_tp_result first[MSIM_TP_NDESIGNS];
	bool ran[MSIM_TP_NDESIGNS];
	unsigned long mismatches;
	int err;
	char msg[256];
};

static double tp_sample(unsigned int design, unsigned int rep, void *arg)
{
	struct tp_ctx *c = arg;
	struct msim_tp_result r;

	(void)rep;
	if (msim_tp_run(&c->o[design], &r, c->msg, sizeof(c->msg))) {
		c->err = -1;
		return 0;
	}
	if (!c->ran[design]) {
		c->first[design] = r;
		c->ran[design] = true;
	} else if (r.storage_reads != c->first[design].storage_reads ||
		   r.activations != c->first[design].activations ||
		   r.shadow_nodes_end != c->first[design].shadow_nodes_end) {
		c->mismatches++;
	}
	return r.seconds;
}

static void print_text(const struct msim_bench_args *a, const struct tp_ctx *c, const double *med)
{
	struct msim_tp_verdicts v;

	printf("thrashing-protection (thread 000 patch 1): memcg %lu pages, hot set %lu pages "
	       "(stride %lu), %lu rounds\n", c->o[0].memcg_pages, c->o[0].hot_pages,
	       c->o[0].stride, c->o[0].rounds);
	msim_bench_print_base_variants(a, "shadow-budget and the LRU kind set per design");
	printf("%-26s %8s %8s %8s %9s %9s %9s %9s %8s\n", "design", "budget", "shadow", "max",
	       "refaults", "activat.", "storage", "last rnd", "model s");
	for (unsigned int d = 0; d < MSIM_TP_NDESIGNS; d++) {
		const struct msim_tp_result *r = &c->first[d];

		printf("%-26s %8lu %8lu %8lu %9lu %9lu %9lu %9lu %8.2f\n", design_names[d],
		       r->budget_nodes, r->shadow_nodes_end, r->shadow_nodes_max, r->refaults,
		       r->activations, r->storage_reads, r->last_round_storage_reads, med[d]);
	}
	printf("  budget: count_shadow_nodes' max_nodes for c; shadow: c's shadow nodes at the "
	       "end (max: after any reclaim);\n  storage: pages read from backing storage; "
	       "determinism: %lu mismatches between repetitions\n\n", c->mismatches);
	msim_tp_verdicts(c->first, &v);
	msim_verdict_print_text(stdout, &v.table);
}

static void print_json(const struct msim_bench_args *a, const struct tp_ctx *c, const double *med)
{
	struct msim_tp_verdicts v;
	struct msim_json j;

	msim_bench_json_begin(&j, stdout, "thrashing-protection", "000",
			      "deterministic counts; model seconds are this machine's C code", a);
	msim_json_kuint(&j, "determinism_mismatches", c->mismatches);
	msim_json_arr_begin(&j, "designs");
	for (unsigned int d = 0; d < MSIM_TP_NDESIGNS; d++) {
		const struct msim_tp_result *r = &c->first[d];

		msim_json_obj_begin(&j, NULL);
		msim_json_kstr(&j, "design", design_names[d]);
		msim_json_kuint(&j, "budget_nodes", r->budget_nodes);
		msim_json_kuint(&j, "budget_pages", r->budget_pages);
		msim_json_kuint(&j, "shadow_nodes_end", r->shadow_nodes_end);
		msim_json_kuint(&j, "shadow_nodes_max", r->shadow_nodes_max);
		msim_json_kuint(&j, "refaults", r->refaults);
		msim_json_kuint(&j, "activations", r->activations);
		msim_json_kuint(&j, "storage_reads", r->storage_reads);
		msim_json_kuint(&j, "last_round_storage_reads", r->last_round_storage_reads);
		msim_json_kuint(&j, "nodes_reclaimed", r->nodes_reclaimed);
		msim_json_kuint(&j, "shadows_reclaimed", r->shadows_reclaimed);
		msim_json_kdbl(&j, "model_seconds_median", med[d]);
		msim_json_obj_end(&j);
	}
	msim_json_arr_end(&j);
	msim_tp_verdicts(c->first, &v);
	msim_verdict_print_json(&j, "verdicts", &v.table);
	msim_json_obj_end(&j);
	msim_json_finish(&j);
}

static int thrashing_main(int argc, char **argv)
{
	static unsigned long rounds;
	static const struct msim_arg opts[] = {
		MSIM_OPT_ULONG("--rounds", "N", &rounds, 1, 1000,
			       "passes over the hot set (default 4, 2 with --quick)"),
		MSIM_OPT_END,
	};
	static const struct msim_bench_spec spec = {
		.name = "thrashing-protection",
		.summary = "thread 000 patch 1: shadow budget lru-size vs page-state-local",
		.description = "A memcg of 16384 pages reads a sparse hot set of 20480 pages "
			       "cyclically (twice per visit, in a fault) under classic LRU and "
			       "MGLRU, with each shadow budget. Prints the budget, the shadow "
			       "nodes kept, refaults detected and activated, and the pages read "
			       "from backing storage: deterministic counts. The model's time is "
			       "C code on this machine and stands for nothing in the kernel.",
		.default_reps = 2,
		.quick_reps = 1,
		.options = opts,
	};
	struct msim_bench_args a;
	struct msim_bench_progress pr;
	double samples[MSIM_TP_NDESIGNS * 8], med[MSIM_TP_NDESIGNS];
	struct tp_ctx *c;
	int ret;

	rounds = 0;
	if ((ret = msim_bench_parse_args(&spec, argc, argv, &a)))
		return msim_args_exit_status(ret);
	if (a.reps > 8)
		a.reps = 8;
	if (!(c = calloc(1, sizeof(*c))))
		return 1;
	for (unsigned int d = 0; d < MSIM_TP_NDESIGNS; d++) {
		msim_tp_opts_init(&c->o[d], d >= 2 ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC,
				  (enum msim_shadow_budget)(d & 1));
		c->o[d].base = a.variants;
		c->o[d].rounds = rounds ? rounds : a.quick ? 2 : 4;
	}
	msim_bench_progress_init(&pr, spec.name, true);
	msim_bench_alternate(MSIM_TP_NDESIGNS, a.reps, tp_sample, c, samples, &pr);
	msim_bench_progress_done(&pr);
	if (c->err) {
		fprintf(stderr, "thrashing-protection: %s\n", c->msg);
		free(c);
		return 1;
	}
	for (unsigned int d = 0; d < MSIM_TP_NDESIGNS; d++)
		med[d] = msim_bench_median(samples + d * a.reps, a.reps);
	if (a.json)
		print_json(&a, c, med);
	else
		print_text(&a, c, med);
	free(c);
	return 0;
}

static const struct msim_bench thrashing_bench = {
	.name = "thrashing-protection",
	.summary = "thread 000 patch 1: shadow nodes, refault activations, storage reads per budget",
	.main = thrashing_main,
};
MSIM_BENCH(thrashing_bench);
