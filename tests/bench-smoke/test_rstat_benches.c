/* SPDX-License-Identifier: MIT */
/*
 * test_rstat_benches.c - the rstat benches run end to end in --quick --json mode
 * (a few seconds in all). Only deterministic figures are asserted (counts and
 * byte values), never a time.
 *
 *   anon_churn       6 hosts (3 designs x 2 LRU kinds): 25600 faults each, every
 *                    page uncharged (memory.current 0), 1 counter charge per 64
 *                    faults, 63 stock hits per 64, 11 batches per level before the
 *                    leaf's early break (threshold 640 on 10 CPUs)
 *   root_flush       one forced root flush after activity on all 80 CPUs visits
 *                    80 CPUs and flushes 129 memcgs on each; idle flushes flush
 *                    no memcg; root's rstat value equals the node counter
 *   rstat_propagate  100000 updates per host; break never skips, continue never
 *                    breaks; 2-level: 180 batches, 4-level: 360; under seeded
 *                    concurrent schedules continue never ends stuck, break does
 *   usage            --help exits 0, an unknown option exits 2
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

#include "scenario.h"

/* Run a bench engine with argv, its stdout captured into a malloc'ed string. */
static char *run_bench(const char *name, int *rc, int argc, char **argv)
{
	FILE *tmp = tmpfile();
	int saved;
	long len;
	char *out;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(1);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), 1) >= 0);
	*rc = msim_bench_main(name, argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, 1) >= 0);
	close(saved);
	len = ftell(tmp);
	assert_true(len >= 0);
	out = calloc(1, (size_t)len + 1);
	assert_non_null(out);
	rewind(tmp);
	assert_int_equal(fread(out, 1, (size_t)len, tmp), (size_t)len);
	fclose(tmp);
	return out;
}

static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The integer after "key": at the first occurrence at or after from. */
static long long value_after(const char *from, const char *key)
{
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(from, pat);
	assert_non_null(p);
	return strtoll(p + strlen(pat), NULL, 10);
}

static void anon_churn(void **state)
{
	char *argv[] = { "anon-churn", "--quick", "--json", NULL };
	int rc;
	char *out = run_bench("anon-churn", &rc, 3, argv);

	(void)state;
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"bench\":\"anon-churn\""));
	assert_int_equal(count(out, "\"pages_per_sample\":12800"), 1);
	assert_int_equal(count(out, "\"pgfault\":25600,"), 6);
	assert_int_equal(count(out, "\"memory_current_bytes\":0,"), 6);
	assert_int_equal(count(out, "\"counter_charges\":400,"), 6);
	assert_int_equal(count(out, "\"stock_hits\":25200,"), 6);
	assert_int_equal(count(out, "\"stock_misses\":400,"), 6);
	assert_int_equal(count(out, "\"rstat_batches\":22,"), 6);
	assert_int_equal(count(out, "\"dying_redirect\":\"all-rcu-on-dying\""), 2);
	assert_int_equal(count(out, "\"thread_pages_per_s\":4393028"), 1);
	free(out);
}

static void root_flush(void **state)
{
	char *argv[] = { "root-flush", "--quick", "--json", NULL };
	int rc;
	char *out = run_bench("root-flush", &rc, 3, argv);

	(void)state;
	assert_int_equal(rc, 0);
	assert_int_equal(value_after(out, "cpus"), 80);
	assert_int_equal(value_after(out, "memcgs"), 128);
	assert_int_equal(value_after(out, "active_cpu_visits"), 80);
	assert_int_equal(value_after(out, "active_memcg_flushes"), 129 * 80);
	assert_int_equal(value_after(out, "idle_cpu_visits"), 5 * 80);
	assert_int_equal(value_after(out, "idle_memcg_flushes"), 0);
	assert_int_equal(value_after(out, "root_active_anon_rstat"), 128 * 80);
	assert_int_equal(value_after(out, "root_active_anon_node"), 128 * 80);
	assert_int_equal(count(out, "\"root_lruvec_active_anon\":10240"), 2);
	free(out);
}

static void rstat_propagate(void **state)
{
	char *argv[] = { "rstat-propagate", "--quick", "--json", NULL };
	int rc;
	char *out = run_bench("rstat-propagate", &rc, 3, argv);
	const char *p;

	(void)state;
	assert_int_equal(rc, 0);
	assert_int_equal(count(out, "\"updates\":100000,"), 4);
	/* Throughput rows: 2-level break, continue; 4-level break, continue. */
	p = strstr(out, "\"throughput\"");
	assert_non_null(p);
	p = strstr(p, "\"rstat_propagate\":\"break\",\"depth\":2");
	assert_non_null(p);
	assert_int_equal(value_after(p, "batches"), 180);
	assert_int_equal(value_after(p, "walk_skips"), 0);
	assert_true(value_after(p, "walk_breaks") > 0);
	p = strstr(p, "\"rstat_propagate\":\"continue\",\"depth\":2");
	assert_non_null(p);
	assert_int_equal(value_after(p, "batches"), 180);
	assert_int_equal(value_after(p, "walk_breaks"), 0);
	assert_true(value_after(p, "walk_skips") > 0);
	p = strstr(p, "\"rstat_propagate\":\"break\",\"depth\":4");
	assert_non_null(p);
	assert_int_equal(value_after(p, "batches"), 360);
	p = strstr(p, "\"rstat_propagate\":\"continue\",\"depth\":4");
	assert_non_null(p);
	assert_int_equal(value_after(p, "walk_breaks"), 0);
	/* Concurrent flushing: continue never ends stuck; break does at this size. */
	p = strstr(out, "\"concurrent_flushes\"");
	assert_non_null(p);
	for (int d = 0; d < 2; d++) {
		p = strstr(p, "\"rstat_propagate\":\"break\"");
		assert_non_null(p);
		assert_true(value_after(p, "runs_stuck") >= 1);
		p = strstr(p, "\"rstat_propagate\":\"continue\"");
		assert_non_null(p);
		assert_int_equal(value_after(p, "runs_stuck"), 0);
	}
	free(out);
}

static void usage(void **state)
{
	char *help[] = { "anon-churn", "--help", NULL };
	char *bad[] = { "root-flush", "--no-such-option", NULL };
	char *badval[] = { "rstat-propagate", "--cpus", "zero", NULL };
	int rc;
	char *out;

	(void)state;
	out = run_bench("anon-churn", &rc, 2, help);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "usage: anon-churn"));
	free(out);
	free(run_bench("root-flush", &rc, 2, bad));
	assert_int_equal(rc, 2);
	free(run_bench("rstat-propagate", &rc, 3, badval));
	assert_int_equal(rc, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(anon_churn),
		cmocka_unit_test(root_flush),
		cmocka_unit_test(rstat_propagate),
		cmocka_unit_test(usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
