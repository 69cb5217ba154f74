/* SPDX-License-Identifier: MIT */
/*
 * test_explore_paths.c - the explorer's fast path explores the same schedules as
 * its old one. Since finished tasks' stacks are pooled (src/sim/ctx.c), a run's
 * tasks start on reused stacks instead of freshly mapped ones; the option
 * fresh_stacks keeps the old path. Both explore the first 1000 runs of a seed
 * here, in one process, and every run's trace hash, step count and verdict must
 * be the same, in order:
 *  - rstat-early-exit (the race the explorer's speed is measured on) under
 *    random, PCT and DFS, 1000 runs each;
 *  - every other registered race (its first side) under random, 200 runs.
 * The hashes are also checked for variety (a run that never stepped would hash
 * the same either way and prove nothing).
 */
#include "race_util.h"

#define RUNS 1000
#define OTHER_RUNS 200

struct trace {
	unsigned int n;
	uint64_t hash[RUNS];
	uint64_t steps[RUNS];
	bool violated[RUNS];
};

static void record(const struct msim_explore_run *run, void *arg)
{
	struct trace *t = arg;

	if (t->n < RUNS && run->run == t->n) {
		t->hash[t->n] = run->trace_hash;
		t->steps[t->n] = run->steps;
		t->violated[t->n] = run->violated;
	}
	t->n++;
}

/* The runs of race r (side s) under strategy with fresh or pooled stacks. */
static void explore(const struct msim_race *r, const struct msim_race_side *s,
		    enum msim_strategy strategy, unsigned int runs, bool fresh, struct trace *t)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[512] = "";

	assert_non_null(res);
	memset(t, 0, sizeof(*t));
	msim_config_init(&cfg);
	if (s)
		assert_int_equal(msim_race_settings_apply(&cfg, s->settings, err, sizeof(err)), 0);
	msim_race_opts_init(&o, strategy);
	o.runs = runs;
	o.seed = 1;
	o.side = s;
	o.fresh_stacks = fresh;
	o.on_run = record;
	o.on_run_arg = t;
	if (msim_race_run(r, &cfg, &o, res, err, sizeof(err)))
		fail_msg("race %s: %s", r->name, err);
	assert_int_equal(t->n, res->ex.runs);
	free(res);
}

static void same_runs(const struct msim_race *r, const struct msim_race_side *s,
		      enum msim_strategy strategy, unsigned int runs)
{
	struct trace *old = calloc(1, sizeof(*old)), *pooled = calloc(1, sizeof(*pooled));
	unsigned int distinct = 0;

	assert_non_null(old);
	assert_non_null(pooled);
	explore(r, s, strategy, runs, true, old);
	explore(r, s, strategy, runs, false, pooled);
	assert_int_equal(old->n, pooled->n);
	assert_true(old->n > 0);
	for (unsigned int i = 0; i < old->n && i < RUNS; i++) {
		if (old->hash[i] != pooled->hash[i] || old->steps[i] != pooled->steps[i] ||
		    old->violated[i] != pooled->violated[i])
			fail_msg("%s %s run %u: hash %llx/%llx steps %llu/%llu", r->name,
				 msim_strategy_name(strategy), i, (unsigned long long)old->hash[i],
				 (unsigned long long)pooled->hash[i],
				 (unsigned long long)old->steps[i],
				 (unsigned long long)pooled->steps[i]);
		distinct += i && old->hash[i] != old->hash[i - 1];
	}
	/* Random and PCT vary the schedule from run to run (DFS may exhaust early). */
	if (strategy != MSIM_STRAT_DFS && old->n > 10)
		assert_true(distinct > old->n / 10);
	free(old);
	free(pooled);
}

static void early_exit_random(void **state)
{
	same_runs(race_get("rstat-early-exit"), NULL, MSIM_STRAT_RANDOM, RUNS);
}

static void early_exit_pct(void **state)
{
	same_runs(race_get("rstat-early-exit"), NULL, MSIM_STRAT_PCT, RUNS);
}

static void early_exit_dfs(void **state)
{
	same_runs(race_get("rstat-early-exit"), NULL, MSIM_STRAT_DFS, RUNS);
}

/* Every race, on its first side, with tasks whose stacks come both ways. */
static void every_race_random(void **state)
{
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64);

	assert_true(n > 1);
	for (size_t i = 0; i < n && i < 64; i++) {
		const struct msim_race_side *s = races[i]->sides && races[i]->sides[0].name ?
						 &races[i]->sides[0] : NULL;

		same_runs(races[i], s, MSIM_STRAT_RANDOM, OTHER_RUNS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(early_exit_random),
		cmocka_unit_test(early_exit_pct),
		cmocka_unit_test(early_exit_dfs),
		cmocka_unit_test(every_race_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
