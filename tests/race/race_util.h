/* SPDX-License-Identifier: MIT */
/*
 * race_util.h - running a registered race from a cmocka test: the race runner
 * (test_races.c) and the fidelity tests that read a race's figures.
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

#include <memcgsim/memcgsim.h>
#include <memcgsim/race.h>

/* The race named name; fails the test when it is not registered. */
static inline const struct msim_race *race_get(const char *name)
{
	const struct msim_race *r = msim_race_find(name);

	if (!r)
		fail_msg("no race named %s", name);
	return r;
}

/* Run race name under cfg and o (asserting it ran); the caller frees the result. */
static inline struct msim_race_result *race_run_cfg(const char *name,
						    const struct msim_config *cfg,
						    const struct msim_race_opts *o)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	char err[512] = "";
	int ret;

	assert_non_null(res);
	ret = msim_race_run(race_get(name), cfg, o, res, err, sizeof(err));
	if (ret)
		fail_msg("race %s: %s (%d)", name, err, ret);
	return res;
}

/* The scripted run of race name on cpus simulated CPUs (0: the default). */
static inline struct msim_race_result *race_script_cpus(const char *name, unsigned int cpus)
{
	struct msim_race_opts o;
	struct msim_config cfg;

	msim_race_opts_init(&o, MSIM_STRAT_SCRIPT);
	o.cpus = cpus;
	msim_config_init(&cfg);
	return race_run_cfg(name, &cfg, &o);
}

/* The integer (or bool) figure key of a run's report; fails the test if missing. */
static inline long long race_fig(const struct msim_race_result *r, const char *key)
{
	const struct msim_race_fig *f = msim_race_fig_find(&r->rep, key);

	if (!f)
		fail_msg("figure %s missing", key);
	return f ? f->i : -1;
}

#endif
