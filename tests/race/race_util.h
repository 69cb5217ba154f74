/* SPDX-License-Identifier: MIT */
/*
 * race_util.h - shared by the race tests (and the fidelity tests that run a
 * registered scenario): run a scenario, read its figures, replay, DFS checks.
 */
#ifndef MSIM_TESTS_RACE_UTIL_H
#define MSIM_TESTS_RACE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

/* Run race name under cfg and o (asserting it ran); the caller frees the result. */
static inline struct msim_race_result *race_run_cfg(const char *name,
						    const struct msim_config *cfg,
						    const struct msim_race_opts *o)
{
	const struct msim_scenario *s = msim_scenario_find(name);
	struct msim_race_result *res = calloc(1, sizeof(*res));
	char err[512] = "";

	assert_non_null(s);
	assert_non_null(res);
	int ret = msim_race_run(s, cfg, o, res, err, sizeof(err));
	if (ret)
		print_error("race_run(%s): %s\n", name, err);
	assert_int_equal(ret, 0);
	return res;
}

/* Run race name under strategy with budget runs (0: scenario default). */
static inline struct msim_race_result *race_run(const char *name, enum msim_strategy strategy,
						unsigned int runs, uint64_t seed,
						const char *variant, const char *schedule)
{
	struct msim_race_opts o = { .strategy = strategy, .runs = runs, .seed = seed,
				    .preemptions = (unsigned int)-1, .schedule = schedule };
	struct msim_config cfg;
	char err[512] = "";

	msim_config_init(&cfg);
	if (variant)
		assert_int_equal(msim_variant_set(&cfg.variants, variant, err, sizeof(err)), 0);
	return race_run_cfg(name, &cfg, &o);
}

/* The scripted run of race name on cpus simulated CPUs (0: the default). */
static inline struct msim_race_result *race_script_cpus(const char *name, unsigned int cpus)
{
	struct msim_race_opts o = { .strategy = MSIM_STRAT_SCRIPT, .cpus = cpus,
				    .preemptions = (unsigned int)-1 };
	struct msim_config cfg;

	msim_config_init(&cfg);
	return race_run_cfg(name, &cfg, &o);
}

/* The integer (or bool) figure key of a run's report; fails the test if missing. */
static inline long long race_fig(const struct msim_race_result *r, const char *key)
{
	for (unsigned int i = 0; i < r->rep.nr_figs; i++)
		if (!strcmp(r->rep.figs[i].key, key))
			return r->rep.figs[i].i;
	fail_msg("figure %s missing", key);
	return -1;
}

/*
 * DFS with no preemption runs each task to its end: race name explores its
 * serial orders (at most 100) without a violation. Returns how many there were.
 */
static inline unsigned int race_dfs_serial_clean(const char *name)
{
	struct msim_race_opts o = { .strategy = MSIM_STRAT_DFS, .runs = 100, .preemptions = 0 };
	struct msim_config cfg;
	struct msim_race_result *r;
	unsigned int runs;

	msim_config_init(&cfg);
	r = race_run_cfg(name, &cfg, &o);
	assert_int_equal(r->ex.violations, 0);
	assert_true(r->ex.exhausted);
	runs = r->ex.runs;
	free(r);
	return runs;
}

/* The explorer's printed schedule replays to the identical trace and verdict. */
static inline void assert_replays(const char *name, const struct msim_race_result *found,
				  const char *variant)
{
	struct msim_race_result *again =
		race_run(name, MSIM_STRAT_REPLAY, 1, 0, variant, found->ex.schedule);

	assert_int_equal(again->ex.violations, 1);
	assert_string_equal(again->ex.schedule, found->ex.schedule);
	assert_true(again->ex.trace_hash == found->ex.trace_hash);
	assert_string_equal(again->ex.why, found->ex.why);
	free(again);
}

/*
 * Explore race name under variant (seed 1) with budget runs (0: the scenario's
 * budget): it behaves as the scenario expects; bad, a violation found within the
 * budget whose schedule replays; otherwise none. The caller frees the result.
 */
static inline struct msim_race_result *race_explore(const char *name, enum msim_strategy s,
						    unsigned int budget, const char *variant,
						    bool bad)
{
	struct msim_race_result *r = race_run(name, s, budget, 1, variant, NULL);

	assert_true(r->behaved_as_expected);
	if (bad) {
		assert_true(r->ex.violations > 0);
		assert_true(r->ex.first_violation_run >= 0);
		if (budget)
			assert_true((unsigned int)r->ex.first_violation_run < budget);
		assert_replays(name, r, variant);
	} else {
		assert_int_equal(r->ex.violations, 0);
		assert_int_equal(r->ex.first_violation_run, -1);
	}
	return r;
}

#endif
