/* SPDX-License-Identifier: MIT */
/*
 * Sharded exploration: every race's random and PCT exploration, run as shards
 * and merged (msim_race_merge), reports exactly what one process reports: runs,
 * violations, the first violation's run, seed, schedule, trace hash and reason,
 * and the verdict; in any shard order, with more shards than runs, and with
 * --first (the same first violation). And the merge refuses what is not one
 * exploration.
 */
#include "race/race_util.h"

#include <errno.h>
#include <stdio.h>

#define RUNS 120

static struct msim_race_result *run_shard(const struct msim_race *r, const char *side,
					  enum msim_strategy s, unsigned int index,
					  unsigned int count, bool first)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_race_opts o;
	char err[512] = "";

	assert_non_null(res);
	msim_race_opts_init(&o, s);
	o.runs = RUNS;
	o.seed = 7;
	o.shard_index = index;
	o.shard_count = count;
	o.stop_at_first = first;
	if (msim_race_run_side(r, side, &o, res, err, sizeof(err)))
		fail_msg("%s/%s shard %u/%u: %s", r->name, side, index, count, err);
	return res;
}

static void assert_same_exploration(const struct msim_race_result *a,
				    const struct msim_race_result *b, bool same_runs)
{
	if (same_runs)
		assert_int_equal(a->ex.runs, b->ex.runs);
	if (same_runs)
		assert_int_equal(a->ex.violations, b->ex.violations);
	assert_int_equal(a->ex.first_violation_run, b->ex.first_violation_run);
	if (a->ex.first_violation_run < 0)
		return;
	assert_int_equal(a->ex.first_violation_seed, b->ex.first_violation_seed);
	assert_string_equal(a->ex.schedule, b->ex.schedule);
	assert_int_equal(a->ex.trace_hash, b->ex.trace_hash);
	assert_string_equal(a->ex.why, b->ex.why);
	assert_int_equal(a->behaved_as_expected, b->behaved_as_expected);
	assert_string_equal(a->outcome, b->outcome);
}

/* Shards of r's side under s, merged in reverse order, against one process. */
static void check_side(const struct msim_race *r, const char *side, enum msim_strategy s,
		       unsigned int count, bool first)
{
	struct msim_race_result *one = run_shard(r, side, s, 0, 1, first);
	struct msim_race_result *merged = calloc(1, sizeof(*merged));
	const struct msim_race_result **parts = calloc(count, sizeof(*parts));
	char err[512] = "";

	assert_non_null(merged);
	assert_non_null(parts);
	for (unsigned int i = 0; i < count; i++)
		parts[count - 1 - i] = run_shard(r, side, s, i, count, first);
	if (msim_race_merge(parts, count, merged, err, sizeof(err)))
		fail_msg("%s/%s: merge: %s", r->name, side, err);
	assert_same_exploration(one, merged, !first);
	assert_int_equal(merged->shard.count, 0);
	for (unsigned int i = 0; i < count; i++)
		free((void *)parts[i]);
	free(parts);
	free(merged);
	free(one);
}

/* Every race with sides, both explorers: 3 shards, and more shards than runs. */
static void shards_merge_to_the_single_run(void **st)
{
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64);
	unsigned int checked = 0, with_violation = 0;

	for (size_t i = 0; i < n; i++) {
		for (const struct msim_race_side *sd = races[i]->sides; sd && sd->name; sd++) {
			check_side(races[i], sd->name, MSIM_STRAT_PCT, 3, false);
			check_side(races[i], sd->name, MSIM_STRAT_RANDOM, 4, false);
			checked++;
			with_violation += sd->violation;
		}
	}
	assert_true(checked >= 10);
	assert_true(with_violation >= 5);
}

static void first_violation_is_kept_with_stop_at_first(void **st)
{
	check_side(race_get("rstat-early-exit"), "bug", MSIM_STRAT_PCT, 5, true);
}

static void more_shards_than_runs(void **st)
{
	const struct msim_race *r = race_get("rstat-early-exit");
	struct msim_race_result *res = run_shard(r, "bug", MSIM_STRAT_PCT, 0, RUNS * 2, false);

	/* Shard 0 of 240 over 120 runs holds none: it reports zero runs, no verdict. */
	assert_int_equal(res->ex.runs, 0);
	assert_int_equal(res->shard.runs_total, RUNS);
	assert_true(res->behaved_as_expected);
	free(res);
}

/* Runs of the whole split exactly: no run twice, none left out. */
static void ranges_tile_the_runs(void **st)
{
	const unsigned int totals[] = { 0, 1, 7, 1000, 4294967295u };

	for (size_t t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
		for (unsigned int count = 1; count <= 9; count++) {
			unsigned int next = 0, first, len;

			for (unsigned int i = 0; i < count; i++) {
				msim_race_shard_range(totals[t], i, count, &first, &len);
				assert_int_equal(first, next);
				next = first + len;
			}
			assert_int_equal(next, totals[t]);
		}
	}
}

static void parse_accepts_i_of_n_only(void **st)
{
	const char *bad[] = { "", "3", "3/3", "1/0", "a/2", "1/b", "-1/2", "1/2x", "0/70000" };
	unsigned int i, n;
	char err[256];

	assert_int_equal(msim_race_shard_parse("2/5", &i, &n, err, sizeof(err)), 0);
	assert_int_equal(i, 2);
	assert_int_equal(n, 5);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_int_equal(msim_race_shard_parse(bad[k], &i, &n, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "I/N"));
	}
}

/* Missing, duplicated, foreign shards and unshardable strategies are refused. */
static void merge_refuses_what_is_not_one_exploration(void **st)
{
	const struct msim_race *r = race_get("rstat-early-exit");
	struct msim_race_result *a = run_shard(r, "bug", MSIM_STRAT_PCT, 0, 2, false);
	struct msim_race_result *b = run_shard(r, "bug", MSIM_STRAT_PCT, 1, 2, false);
	struct msim_race_result *c = run_shard(r, "fix", MSIM_STRAT_PCT, 1, 2, false);
	struct msim_race_result out, res;
	const struct msim_race_result *missing[] = { a };
	const struct msim_race_result *twice[] = { a, a };
	const struct msim_race_result *foreign[] = { a, c };
	struct msim_race_opts o;
	char err[512];

	assert_int_equal(msim_race_merge(missing, 1, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1 results for 2 shards"));
	assert_int_equal(msim_race_merge(twice, 2, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "given twice"));
	assert_int_equal(msim_race_merge(foreign, 2, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "another configuration"));
	/* a hand-made shard: an index past its count, runs outside its block */
	struct msim_race_result *bad = calloc(1, sizeof(*bad));
	const struct msim_race_result *with_bad[] = { a, bad };

	assert_non_null(bad);
	*bad = *b;
	bad->shard.index = 4000000;
	assert_int_equal(msim_race_merge(with_bad, 2, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "index not below"));
	*bad = *b;
	bad->ex.runs += 1000;
	assert_int_equal(msim_race_merge(with_bad, 2, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not its block"));
	free(bad);
	msim_race_opts_init(&o, MSIM_STRAT_DFS);
	o.shard_count = 2;
	assert_int_equal(msim_race_run_side(r, "bug", &o, &res, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "only random and pct"));
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shards_merge_to_the_single_run),
		cmocka_unit_test(first_violation_is_kept_with_stop_at_first),
		cmocka_unit_test(more_shards_than_runs),
		cmocka_unit_test(ranges_tile_the_runs),
		cmocka_unit_test(parse_accepts_i_of_n_only),
		cmocka_unit_test(merge_refuses_what_is_not_one_exploration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
