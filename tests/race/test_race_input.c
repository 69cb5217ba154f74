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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shard_line_prefixes_refused),
		cmocka_unit_test(seconds_beyond_long_long_print_as_they_are),
		cmocka_unit_test(merge_of_no_race_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
