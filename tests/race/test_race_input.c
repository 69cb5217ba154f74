/* SPDX-License-Identifier: MIT */
/*
 * The race engine's readers and printers under hostile values (docs/reliability.md):
 * msim_race_shard_from_json() on every prefix of a good shard line, the JSON
 * printer on seconds no long long holds, msim_race_merge() on results of no race.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/lru.h>
#include <memcgsim/introspect.h>
#include <memcgsim/race.h>

static char line[8192];

static void read_good_line(void)
{
	FILE *f = fopen(MSIM_SOURCE_DIR "/tests/unit/data/merge/good.jsonl", "r");

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
}

/* The whole line reads; every shorter prefix is refused with a reason. */
static void shard_line_prefixes_refused(void **st)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	char err[512];
	size_t n;

	assert_non_null(res);
	read_good_line();
	n = strlen(line);
	assert_int_equal(msim_race_shard_from_json(line, n, res, err, sizeof(err)), 0);
	assert_int_equal(res->ex.runs, 100);
	assert_int_equal(res->ex.violations, 8);
	assert_int_equal(res->ex.first_violation_run, 10);
	assert_int_equal(res->shard.count, 2);
	for (size_t len = 0; len + 2 < n; len++) {
		err[0] = '\0';
		assert_int_equal(msim_race_shard_from_json(line, len, res, err, sizeof(err)),
				 -EINVAL);
		assert_true(err[0] != '\0');
	}
	free(res);
}

/* Printed from a string in memory. */
static char *json_of(const struct msim_race_result *r)
{
	static char out[16384];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	msim_race_print_json(f, r);
	fclose(f);
	return out;
}

/*
 * Seconds far outside what a long long holds in milliseconds print as they
 * are: the rounding converts only values it can (1e300 once printed as
 * -9.22337e+15, and -1e308 was undefined behaviour).
 */
static void seconds_beyond_long_long_print_as_they_are(void **st)
{
	struct msim_race_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->race = "toy-percpu-reset";
	r->ex.first_violation_run = -1;
	r->ex.seconds = 1e300;
	assert_non_null(strstr(json_of(r), "\"seconds\": 1e300,"));
	r->ex.seconds = -1e308;
	assert_non_null(strstr(json_of(r), "\"seconds\": -1e308,"));
	r->ex.seconds = 0.0126;
	assert_non_null(strstr(json_of(r), "\"seconds\": 0.013,"));
	free(r);
}

/* A result of no race is refused, not dereferenced. */
static void merge_of_no_race_refused(void **st)
{
	struct msim_race_result *a = calloc(1, sizeof(*a)), *out = calloc(1, sizeof(*out));
	const struct msim_race_result *parts[2] = { a, NULL };
	char err[256] = "";

	assert_non_null(a);
	assert_non_null(out);
	a->shard.count = 1;
	assert_int_equal(msim_race_merge(parts, 1, out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "race is NULL"));
	assert_int_equal(msim_race_merge(parts, 2, out, err, sizeof(err)), -EINVAL);
	assert_int_equal(msim_race_merge(NULL, 1, out, err, sizeof(err)), -EINVAL);
	free(a);
	free(out);
}

/* ---- every race's teardown after a schedule that is refused or diverges ---- */

struct wrapped {
	const struct msim_explore_target *inner;
	unsigned long folios_left;   /* folios live after the race's own teardown */
};

static struct wrapped wrap;

static int wrapped_setup(struct msim *m, void **state, void *arg)
{
	return wrap.inner->setup(m, state, arg);
}

static bool wrapped_check(struct msim *m, void *state, char *why, size_t len)
{
	return wrap.inner->check && wrap.inner->check(m, state, why, len);
}

/* The race's teardown, then what it left: every folio it made must be freed. */
static void wrapped_teardown(struct msim *m, void *state)
{
	struct msim_lru_counts c;

	if (wrap.inner->teardown)
		wrap.inner->teardown(m, state);
	msim_lru_counts(m, &c);
	wrap.folios_left += c.folios_live;
}

/* The configuration msim_race_run gives r on side (run.c's run_config); false if none. */
static bool race_config(const struct msim_race *r, const struct msim_race_side *side,
			struct msim_config *cfg)
{
	char err[256];

	msim_config_init(cfg);
	if (side && msim_race_settings_apply(cfg, side->settings, err, sizeof(err)))
		return false;
	cfg->mode = MSIM_DETERMINISTIC;
	if (r->default_cpus)
		cfg->nr_cpus = r->default_cpus;
	if (r->configure && r->configure(cfg, err, sizeof(err)))
		return false;
	return cfg->nr_cpus >= r->min_cpus && !msim_config_validate(cfg, err, sizeof(err));
}

/*
 * A replay that is refused before any task runs (a task or interrupt source the
 * race does not have) or that diverges at once still tears down what setup
 * made: uncharge-after-offline once left c's folio, which only its free task
 * puts, and asan saw the leak.
 */
static void refused_schedules_free_everything(void **st)
{
	static const char *const schedules[] = { "9", "!3.0.1.!2", "0", "1", "R", "~0", "0.",
						 "!0", "1*3.0*2" };
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64);

	assert_true(n > 10);
	for (size_t i = 0; i < n; i++) {
		const struct msim_race *r = races[i];
		const struct msim_race_side *side = r->sides && r->sides[0].name ? r->sides : NULL;

		do {
			struct msim_explore_target t = r->target;
			struct msim_explore_result *res = calloc(1, sizeof(*res));
			struct msim_config cfg;

			assert_non_null(res);
			if (!race_config(r, side, &cfg)) {
				free(res);
				continue;
			}
			wrap.inner = &r->target;
			t.setup = wrapped_setup;
			t.check = wrapped_check;
			t.teardown = wrapped_teardown;
			if (side && side->arg)
				t.arg = side->arg;
			for (size_t k = 0; k < sizeof(schedules) / sizeof(schedules[0]); k++) {
				struct msim_explore_opts o = { .strategy = MSIM_STRAT_REPLAY,
							       .runs = 1, .schedule = schedules[k] };

				wrap.folios_left = 0;
				(void)msim_explore(&t, &cfg, &o, res);
				if (wrap.folios_left)
					fail_msg("race %s side %s, schedule '%s': %lu folios left "
						 "after teardown", r->name, side ? side->name : "-",
						 schedules[k], wrap.folios_left);
			}
			free(res);
		} while (side && (++side)->name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shard_line_prefixes_refused),
		cmocka_unit_test(seconds_beyond_long_long_print_as_they_are),
		cmocka_unit_test(merge_of_no_race_refused),
		cmocka_unit_test(refused_schedules_free_everything),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
