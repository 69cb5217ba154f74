/* SPDX-License-Identifier: MIT */
/*
 * bench_explore_limits.c - why a fixed side misses one of explore's two DPOR goals
 * (docs/explore.md, "What limits the reduction"): exhausted within half of a
 * measured DFS, and exhausted with no preemption bound within the race's budget.
 *
 * Half of DFS: two schedules in one Mazurkiewicz trace end with every task
 * having seen the same values at the same points, the same fingerprint
 * (msim_explore_opts.fingerprint), so a reduction that keeps a schedule of every
 * trace keeps at least one per distinct fingerprint an exhaustive DFS shows.
 * Where those are more than half of the DFS's schedules, no such reduction gets
 * within half: the side's steps conflict, and DPOR's bookkeeping is not what
 * costs. (Bounded DPOR's own runs are no such floor: under a bound it keeps
 * only the sleepers the bound allows, docs/explore.md, and may run a trace twice.)
 *
 * Unbounded: DPOR with no bound keeps plain sleep sets, so a run that ends (is
 * not stopped by its sleep set) is a trace no earlier run covered: the runs
 * minus the pruned ones are that many distinct traces. Where the budget ran out
 * with at most 1 run in 20 pruned, an optimal DPOR (one run per trace) would
 * have saved at most the pruned runs of that budget: the budget stops it, not
 * the reduction. Otherwise the pruned runs, DPOR's own redundancy, are a share
 * of the cost worth removing.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/race.h>

#include "bench_explore.h"

static unsigned int ended(const struct bench_ex_cell *x)
{
	return x->runs > x->pruned ? x->runs - x->pruned : 0;
}

/* DPOR exhausted k in more than half of an exhaustive DFS: the sides whose traces are counted. */
static bool half_missed_of_a_space(const struct bench_ex_case *k)
{
	const struct bench_ex_cell *dpor = &k->c[3], *dfs = bench_ex_dfs_measured(k);

	return !k->bug && !dpor->refused && dpor->exhausted && dfs->exhausted &&
	       !dfs->deferred && 2 * (uint64_t)dpor->runs > dfs->runs;
}

enum bench_ex_limit bench_ex_half_limit(const struct bench_ex_case *k)
{
	const struct bench_ex_cell *dpor = &k->c[3], *dfs = bench_ex_dfs_measured(k);

	if (!dpor->exhausted)
		return BENCH_EX_LIMIT_NOT_EXHAUSTED;
	if (dfs->deferred)
		return BENCH_EX_LIMIT_UNCOUNTED; /* DFS not run here yet: the merge decides */
	if (2 * (uint64_t)dpor->runs <= dfs->runs)
		return BENCH_EX_LIMIT_NONE;
	if (!dfs->exhausted)
		return BENCH_EX_LIMIT_DFS_BUDGET;
	if (!k->dfs_fingerprints)
		return BENCH_EX_LIMIT_UNCOUNTED;
	return 2 * (uint64_t)k->dfs_fingerprints > dfs->runs ? BENCH_EX_LIMIT_TRACES
							      : BENCH_EX_LIMIT_REDUNDANT;
}

/* Collects every run's fingerprint (on_run). */
struct fp_set {
	uint64_t *v;
	unsigned int n, cap;
	bool nomem;
};

static void fp_add(const struct msim_explore_run *run, void *arg)
{
	struct fp_set *f = arg;

	if (f->n == f->cap) {
		unsigned int cap = f->cap ? 2 * f->cap : 1024;
		uint64_t *v = realloc(f->v, cap * sizeof(*v));

		if (!v) {
			f->nomem = true;
			return;
		}
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = run->fingerprint;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static unsigned int distinct(uint64_t *v, unsigned int n)
{
	unsigned int d = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (unsigned int i = 0; i < n; i++)
		d += !i || v[i] != v[i - 1];
	return d;
}

/*
 * The largest DFS run again for its fingerprints: a side that misses half needs
 * DFS under twice DPOR's count, which explore's budgets keep far below this (the
 * three such sides today: 14 and 111 schedules); a bigger one stays "uncounted"
 * rather than cost the report minutes.
 */
#define FINGERPRINT_DFS_MAX 50000u

int bench_ex_count_fingerprints(const struct bench_ex_config *c, struct bench_ex_case *k)
{
	const struct msim_race *r = msim_race_find(k->race);
	struct msim_race_result *res;
	struct fp_set f = { 0 };
	struct msim_race_opts o;
	char err[512] = "";
	int ret;

	if (k->dfs_fingerprints || k->piece == BENCH_EX_PIECE_DFS || !half_missed_of_a_space(k))
		return 0;
	if (bench_ex_dfs_measured(k)->runs > FINGERPRINT_DFS_MAX) {
		fprintf(stderr, "memcgsim bench explore: %s/%s: DFS of %u schedules, above %u: "
			"its fingerprints not counted\n", k->race, k->side,
			bench_ex_dfs_measured(k)->runs, FINGERPRINT_DFS_MAX);
		return 0;   /* the side stays "uncounted" */
	}
	if (c->progress)
		fprintf(stderr, "[explore] %s/%s: DFS again with fingerprints, %u schedules\n",
			k->race, k->side, bench_ex_dfs_measured(k)->runs);
	res = calloc(1, sizeof(*res));
	if (!r || !res) {
		free(res);
		fprintf(stderr, "memcgsim bench explore: %s/%s: no memory to count fingerprints\n",
			k->race, k->side);
		return 0;
	}
	msim_race_opts_init(&o, MSIM_STRAT_DFS);
	o.seed = c->seed;
	o.runs = bench_ex_dfs_measured(k)->runs; /* the exhaustive DFS's size: all of it */
	o.fingerprint = true;
	o.on_run = fp_add;
	o.on_run_arg = &f;
	ret = msim_race_run_side(r, k->side, &o, res, err, sizeof(err));
	if (!ret && (f.nomem || !res->ex.exhausted || res->ex.runs != o.runs)) {
		snprintf(err, sizeof(err), "%s/%s: DFS with fingerprints ran %u schedules of %u%s",
			 k->race, k->side, res->ex.runs, o.runs, f.nomem ? " (out of memory)" : "");
		ret = -EINVAL;
	}
	/* a figure that explains a verdict, not one a verdict reads: a failure leaves it
	 * "uncounted" and the bench goes on */
	if (ret)
		fprintf(stderr, "memcgsim bench explore: %s (its fingerprints not counted)\n", err);
	else
		k->dfs_fingerprints = distinct(f.v, f.n);
	free(f.v);
	free(res);
	return 0;
}

enum bench_ex_limit bench_ex_unbounded_limit(const struct bench_ex_case *k)
{
	const struct bench_ex_cell *u = &k->c[4];

	if (u->exhausted)
		return BENCH_EX_LIMIT_NONE;
	return 20 * (uint64_t)u->pruned <= u->runs ? BENCH_EX_LIMIT_TRACES
						   : BENCH_EX_LIMIT_REDUNDANT;
}

const char *bench_ex_limit_name(enum bench_ex_limit l)
{
	switch (l) {
	case BENCH_EX_LIMIT_NONE: return "none";
	case BENCH_EX_LIMIT_NOT_EXHAUSTED: return "not-exhausted";
	case BENCH_EX_LIMIT_DFS_BUDGET: return "dfs-budget";
	case BENCH_EX_LIMIT_TRACES: return "traces";
	case BENCH_EX_LIMIT_REDUNDANT: return "redundant";
	case BENCH_EX_LIMIT_UNCOUNTED: return "uncounted";
	}
	return "?";
}

/* The half goal's reason for k, which misses it (bench_ex_half_limit != NONE). */
static void half_why(const struct bench_ex_case *k, char *buf, size_t len)
{
	const struct bench_ex_cell *dpor = &k->c[3], *dfs = bench_ex_dfs_measured(k);

	switch (bench_ex_half_limit(k)) {
	case BENCH_EX_LIMIT_NOT_EXHAUSTED:
		snprintf(buf, len, "bounded DPOR did not exhaust in %u schedules", dpor->runs);
		return;
	case BENCH_EX_LIMIT_DFS_BUDGET:
		snprintf(buf, len, "DPOR %u, DFS stopped at %u, not exhausted: half of a budget, "
			 "not of the space", dpor->runs, dfs->runs);
		return;
	case BENCH_EX_LIMIT_TRACES:
		snprintf(buf, len, "DPOR %u of DFS's %u (exhausted): DFS's runs show %u distinct "
			 "fingerprints, more than half of its count, so no reduction that keeps a "
			 "schedule of every trace gets within half (the steps conflict)",
			 dpor->runs, dfs->runs, k->dfs_fingerprints);
		return;
	case BENCH_EX_LIMIT_UNCOUNTED:
		snprintf(buf, len, "DPOR %u of DFS's %u (exhausted): DFS's fingerprints not counted",
			 dpor->runs, dfs->runs);
		return;
	default:
		snprintf(buf, len, "DPOR %u of DFS's %u (exhausted), whose runs show only %u "
			 "distinct fingerprints: not the side's traces as far as the tasks see; "
			 "DPOR's extra runs are traces the fingerprint does not tell apart or "
			 "orders bounded DPOR runs twice (its sleep sets under the bound)",
			 dpor->runs, dfs->runs, k->dfs_fingerprints);
		return;
	}
}

/* The unbounded goal's reason for k, which misses it. */
static void unbounded_why(const struct bench_ex_case *k, char *buf, size_t len)
{
	const struct bench_ex_cell *u = &k->c[4];

	if (bench_ex_unbounded_limit(k) == BENCH_EX_LIMIT_TRACES)
		snprintf(buf, len, "not exhausted in %u schedules: %u distinct traces, %u pruned: "
			 "an optimal DPOR would save at most the %u pruned runs (the budget stops "
			 "it, not the reduction)", u->runs, ended(u), u->pruned, u->pruned);
	else
		snprintf(buf, len, "not exhausted in %u schedules, %u of them pruned (more than 1 "
			 "in 20): DPOR's own redundancy", u->runs, u->pruned);
}

void bench_ex_print_limits(FILE *f, const struct bench_ex_result *r)
{
	char why[320];
	bool any = false;

	for (unsigned int i = 0; i < r->ncases; i++) {
		const struct bench_ex_case *k = &r->cases[i];

		enum bench_ex_limit half, unbounded;

		if (k->bug || k->piece == BENCH_EX_PIECE_DFS || k->c[3].refused)
			continue;
		half = bench_ex_half_limit(k);
		unbounded = bench_ex_unbounded_limit(k);
		if (half == BENCH_EX_LIMIT_NONE && unbounded == BENCH_EX_LIMIT_NONE)
			continue;
		if (!any)
			fprintf(f, "fixed sides short of a DPOR goal, and why (docs/explore.md):\n");
		any = true;
		if (half != BENCH_EX_LIMIT_NONE) {
			half_why(k, why, sizeof(why));
			fprintf(f, "  %s/%s, within half of DFS: %s\n", k->race, k->side, why);
		}
		if (unbounded != BENCH_EX_LIMIT_NONE) {
			unbounded_why(k, why, sizeof(why));
			fprintf(f, "  %s/%s, unbounded: %s\n", k->race, k->side, why);
		}
	}
	if (any)
		fputc('\n', f);
}
