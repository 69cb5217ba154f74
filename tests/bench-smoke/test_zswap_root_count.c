/* SPDX-License-Identifier: MIT */
/*
 * test_zswap_root_count.c - the zswap-root-count bench (thread 002 patch 1):
 *
 *   verdicts   planted figures force each row to each of its outcomes (holds,
 *              does not hold, not comparable; the drain row is by construction);
 *   quick run  --quick --json: 256 root pages, 2 designs; memcg-stats writes back
 *              0 with the root's count 0, pool writes back all 256 and leaves 0.
 *              Mixed (a child's 256 pages beside root's): mainline's root count
 *              is 256 x 126 / 256 = 126 (the child's ratio) and leaves 2 of root's
 *              entries once 2 x 126 / 256 rounds to 0; patch 1's is 256 x the
 *              pool's ratio (zsmalloc's 421 pages for 512 entries: 210). Every
 *              judged verdict holds; the figures are the same
 *              in every repetition (deterministic: true);
 *   usage      --pages 0 is a usage error (exit 2).
 * No time is asserted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_zswap_root_count.h"
#include "bench_registry.h"
#include "verdict_util.h"

static const char *const before = "before the fix", *const wb = "with the fix, the shrinker writes",
		  *const drain = "with the fix, the shrinker drains";

static const char *const mix_stats = "with descendants' entries beside root's",
		  *const mix_pool = "with the fix, root's count scales",
		  *const mix_wb = "with descendants' entries, mainline's shrinker";

static struct bench_zrc_summary good(void)
{
	struct bench_zrc_summary s = { 0 };

	for (int d = 0; d < BENCH_ZRC_NDESIGNS; d++)
		s.d[d].pool_entries = 1024;
	s.d[0].written_back = 0;
	s.d[0].left_in_pool = 1024;
	s.d[1].written_back = 1024;
	s.d[1].first_count = 500;
	for (int d = 0; d < 2; d++)
		s.mixed[d] = (struct bench_zrc_mixed){ .root_entries = 512, .child_backing = 200,
						      .child_stored = 512, .pool_backing = 450,
						      .pool_stored = 1024 };
	s.d[BENCH_ZRC_MIXED].first_count = 200;       /* 512 x 200 / 512 */
	s.d[BENCH_ZRC_MIXED].written_back = 510;
	s.d[BENCH_ZRC_MIXED + 1].first_count = 225;   /* 512 x 450 / 1024 */
	return s;
}

static void verdicts_each_outcome(void **state)
{
	struct bench_zrc_summary s = good();
	struct bench_zrc_verdicts v;

	(void)state;
	bench_zrc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, before), "holds");
	assert_string_equal(verdict_of(&v.table, wb), "holds");
	assert_string_equal(verdict_of(&v.table, drain), "by construction");
	assert_string_equal(verdict_of(&v.table, mix_stats), "holds");
	assert_string_equal(verdict_of(&v.table, mix_pool), "holds");
	assert_string_equal(verdict_of(&v.table, mix_wb), "holds");
	/* mainline writes back; patch 1 writes back nothing */
	s.d[0].written_back = 3;
	s.d[1].written_back = 0;
	s.d[1].left_in_pool = 1024;
	/* mixed: mainline's count from the pool's ratio, patch 1's from the child's */
	s.d[BENCH_ZRC_MIXED].first_count = 225;
	s.d[BENCH_ZRC_MIXED + 1].first_count = 200;
	s.d[BENCH_ZRC_MIXED].written_back = 0;
	bench_zrc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, before), "does not hold");
	assert_string_equal(verdict_of(&v.table, wb), "does not hold");
	assert_string_equal(verdict_of(&v.table, drain), "by construction");
	assert_string_equal(verdict_of(&v.table, mix_stats), "does not hold");
	assert_string_equal(verdict_of(&v.table, mix_pool), "does not hold");
	assert_string_equal(verdict_of(&v.table, mix_wb), "does not hold");
	/* off by one: the count is exact or it is not */
	s = good();
	s.d[BENCH_ZRC_MIXED].first_count = 201;
	bench_zrc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, mix_stats), "does not hold");
	/* an empty pool, a child with nothing stored: nothing to compare */
	s = good();
	s.d[0].pool_entries = s.d[1].pool_entries = 0;
	s.mixed[0].child_stored = 0;
	bench_zrc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, before), "not comparable");
	assert_string_equal(verdict_of(&v.table, wb), "not comparable");
	assert_string_equal(verdict_of(&v.table, mix_stats), "not comparable");
	assert_string_equal(verdict_of(&v.table, mix_wb), "not comparable");
	assert_string_equal(verdict_of(&v.table, mix_pool), "holds");
	s.mixed[1].root_entries = 0;
	bench_zrc_verdicts(&s, &v);
	assert_string_equal(verdict_of(&v.table, mix_pool), "not comparable");
	verdict_assert_every_row_failed(&v.table);
}

/* Run the engine with stdout captured into a malloc'ed string. */
static char *run(int *rc, int argc, char **argv)
{
	FILE *tmp = tmpfile();
	int saved;
	long len;
	char *out;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(1);
	assert_true(saved >= 0 && dup2(fileno(tmp), 1) >= 0);
	*rc = bench_main("zswap-root-count", argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, 1) >= 0);
	close(saved);
	len = ftell(tmp);
	out = calloc(1, (size_t)len + 1);
	assert_non_null(out);
	rewind(tmp);
	assert_int_equal(fread(out, 1, (size_t)len, tmp), (size_t)len);
	fclose(tmp);
	return out;
}

static void quick_run(void **state)
{
	char *argv[] = { "zswap-root-count", "--quick", "--json", NULL };
	int rc;
	char *out = run(&rc, 3, argv);

	(void)state;
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"deterministic\":true"));
	assert_non_null(strstr(out, "\"design\":\"memcg-stats\",\"pool_entries\":256,"));
	assert_non_null(strstr(out, "\"first_count\":0,\"written_back\":0,\"left_in_pool\":256,"));
	assert_non_null(strstr(out, "\"design\":\"pool\",\"pool_entries\":256,"));
	assert_non_null(strstr(out, "\"written_back\":256,\"left_in_pool\":0,"));
	/* mixed: the same row shape, root's count scaled by the child's ratio */
	assert_non_null(strstr(out, "\"design\":\"memcg-stats+children\",\"pool_entries\":512,"));
	assert_non_null(strstr(out, "\"first_count\":126,\"written_back\":254,\"left_in_pool\":258,"));
	/* zsmalloc's pages: 421 for the 512 entries; patch 1 scales root's 256 by them */
	assert_non_null(strstr(out, "\"design\":\"pool+children\",\"pool_entries\":512,"
				    "\"pool_pages\":421,\"first_count\":210,"));
	assert_non_null(strstr(out, "\"root_entries\":256,\"child_backing_pages\":126,"
				    "\"child_stored\":256,"));
	assert_null(strstr(out, "\"verdict\":\"does not hold\""));
	assert_null(strstr(out, "\"verdict\":\"not comparable\""));
	assert_non_null(strstr(out, "\"verdict\":\"holds\""));
	free(out);
}

static void usage_error(void **state)
{
	char *argv[] = { "zswap-root-count", "--pages", "0", NULL };
	int rc;
	char *out = run(&rc, 3, argv);

	(void)state;
	assert_int_equal(rc, 2);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts_each_outcome),
		cmocka_unit_test(quick_run),
		cmocka_unit_test(usage_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
