/* SPDX-License-Identifier: MIT */
/* race_util.h - shared by the race tests: run a registered scenario. */
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

/* Run race name under strategy with budget runs (0: scenario default). */
static inline struct msim_race_result *race_run(const char *name, enum msim_strategy strategy,
						unsigned int runs, uint64_t seed,
						const char *variant, const char *schedule)
{
	const struct msim_scenario *s = msim_scenario_find(name);
	struct msim_race_opts o = { .strategy = strategy, .runs = runs, .seed = seed,
				    .preemptions = (unsigned int)-1, .schedule = schedule };
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_config cfg;
	char err[512] = "";

	assert_non_null(s);
	assert_non_null(res);
	msim_config_init(&cfg);
	if (variant)
		assert_int_equal(msim_variant_set(&cfg.variants, variant, err, sizeof(err)), 0);
	int ret = msim_race_run(s, &cfg, &o, res, err, sizeof(err));
	if (ret)
		print_error("race_run(%s): %s\n", name, err);
	assert_int_equal(ret, 0);
	return res;
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

#endif
