/* SPDX-License-Identifier: MIT */
/*
 * The preemption model on thread 000 patch 3's window (race dying-redirect-
 * reparent): the exhaustive explorer finds the window under preempt=full (and
 * under the default, which over-reports it) and exhausts its bounded space clean
 * under preempt=none; races take preempt= in their settings and print the model
 * they ran under.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/race.h>

#define RACE "dying-redirect-reparent"

static struct msim_race_result *res;

static int setup(void **st)
{
	res = calloc(1, sizeof(*res));
	return res ? 0 : -1;
}

static int teardown(void **st)
{
	free(res);
	return 0;
}

/* DFS of patch 3 (dying-redirect=all-rcu-on-dying) under settings, bound p. */
static void dfs(const char *settings, unsigned int runs, unsigned int p)
{
	const struct msim_race *r = msim_race_find(RACE);
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[512] = "";

	assert_non_null(r);
	msim_config_init(&cfg);
	assert_int_equal(msim_race_settings_apply(&cfg, settings, err, sizeof(err)), 0);
	msim_race_opts_init(&o, MSIM_STRAT_DFS);
	o.runs = runs;
	o.preemptions = p;
	assert_int_equal(msim_race_run(r, &cfg, &o, res, err, sizeof(err)), 0);
	assert_false(res->ex.deadlocked);
}

/* Preemption bound 1: a few hundred schedules, the whole space either way. */
static void window_needs_full_preemption(void **st)
{
	dfs("dying-redirect=all-rcu-on-dying,preempt=full", 100000, 1);
	assert_true(res->ex.exhausted);
	assert_true(res->ex.violations > 0);
	assert_non_null(strstr(res->ex.why, "local stats lost at offline"));
	assert_true(res->behaved_as_expected);

	dfs("dying-redirect=all-rcu-on-dying", 100000, 1);     /* unmodelled: as full */
	assert_true(res->ex.violations > 0);

	dfs("dying-redirect=all-rcu-on-dying,preempt=none", 100000, 1);
	assert_true(res->ex.exhausted);
	assert_int_equal(res->ex.violations, 0);
	assert_true(res->ex.runs > 100);
	assert_true(res->behaved_as_expected);    /* the race expects none under none */
}

/* The race's own preemption bound (2): about 21 000 schedules, none bad. */
static void none_exhausts_clean_under_the_race_bound(void **st)
{
	dfs("dying-redirect=all-rcu-on-dying,preempt=none", 100000, MSIM_RACE_OWN_BUDGET);
	assert_true(res->ex.exhausted);
	assert_int_equal(res->ex.violations, 0);
	assert_true(res->ex.runs > 5000);
}

/* The sides say which preemption they need. */
static void sides_name_their_preemption(void **st)
{
	const struct msim_race *r = msim_race_find(RACE);
	const struct msim_race_side *full = msim_race_side_find(r, "all-rcu-on-dying");
	const struct msim_race_side *none = msim_race_side_find(r, "all-rcu-on-dying-none");
	struct msim_config cfg;
	char err[256] = "";

	assert_non_null(full);
	assert_non_null(none);
	msim_config_init(&cfg);
	assert_int_equal(msim_race_settings_apply(&cfg, full->settings, err, sizeof(err)), 0);
	assert_int_equal(cfg.preempt, MSIM_PREEMPT_FULL);
	assert_true(full->violation);
	assert_true(r->expect(&cfg, NULL));
	msim_config_init(&cfg);
	assert_int_equal(msim_race_settings_apply(&cfg, none->settings, err, sizeof(err)), 0);
	assert_int_equal(cfg.preempt, MSIM_PREEMPT_NONE);
	assert_false(none->violation);
	assert_false(r->expect(&cfg, NULL));
	assert_int_equal(msim_race_settings_apply(&cfg, "preempt=voluntary", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "preempt is unmodelled, none or full"));
}

static char *print(bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (json)
		msim_race_print_json(f, res);
	else
		msim_race_print_text(f, res);
	fclose(f);
	return buf;
}

/* Text and JSON name the model; a replay line repeats one the side does not set. */
static void results_print_the_model(void **st)
{
	const struct msim_race *r = msim_race_find(RACE);
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[256] = "";
	char *text;

	msim_race_opts_init(&o, MSIM_STRAT_SCRIPT);
	assert_int_equal(msim_race_run_side(r, "all-rcu-on-dying-none", &o, res, err,
					    sizeof(err)), 0);
	text = print(false);
	assert_non_null(strstr(text, "dying-redirect=all-rcu-on-dying,"));
	assert_non_null(strstr(text, ", preempt none\n"));
	free(text);
	text = print(true);
	assert_non_null(strstr(text, "\"preempt\": \"none\""));
	free(text);

	/* side v1-on-v2 (no preempt setting) explored under full: the replay says so */
	msim_race_opts_init(&o, MSIM_STRAT_PCT);
	o.side = msim_race_side_find(r, "v1-on-v2");
	o.runs = 5;
	msim_config_init(&cfg);
	cfg.preempt = MSIM_PREEMPT_FULL;
	assert_int_equal(msim_race_run(r, &cfg, &o, res, err, sizeof(err)), 0);
	text = print(false);
	assert_non_null(strstr(text, ", preempt full\n"));
	assert_non_null(strstr(text, " --preempt full --schedule "));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_needs_full_preemption),
		cmocka_unit_test(none_exhausts_clean_under_the_race_bound),
		cmocka_unit_test(sides_name_their_preemption),
		cmocka_unit_test(results_print_the_model),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
