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
 *                    no memcg; under node-stat=percpu the node read is 160 pages
 *                    short of root's rstat value and of the node snapshot, and
 *                    each of kernel stack, page tables and hugetlb (through the
 *                    kernel's call sites: kernel threads', root's and kernel
 *                    tables' pages charged to no memcg) has a node counter above
 *                    root's charged figure, which patch 2 reads; of 6
 *                    calls per patched site under activity, the ratelimited ones
 *                    (workingset, zswap) flush none, DAMON's gated one all 6
 *   rstat_propagate  100000 updates per host; break never skips, continue never
 *                    breaks; 2-level: 180 batches, 4-level: 360; under seeded
 *                    concurrent schedules continue never ends stuck, break does
 *   rstat_staleness  measured: 2 updaters and a gated reader on 4 CPUs, 1 GiB/s for
 *                    2.2 s, one seeded random schedule per design: the counts of
 *                    reads, skipped and run flushes and reads beyond the bound are
 *                    exact for the seed. The mixed tree (a sibling, root's own
 *                    pages, a leaf reader): break never ends behind its bound. The
 *                    leaf alone read at root: break in 210 of 220 reads, continue
 *                    in none. Scripted: every gated read skips until the periodic
 *                    flush (the by-construction run, counted as such)
 *   node_read_drift  8 CPUs (threshold 88), 3 s in 100 ms steps of 16 updates per
 *                    CPU: the node read is off by up to 582 pages (bound 704), the
 *                    gated-flush rstat read by 144 (9 flushes), the snapshot exact;
 *                    over 2 seeded schedules with mid-step reads, node 582 and
 *                    rstat 180 (bounds + 4 pages in flight per CPU)
 *   usage            --help exits 0 and lists --preset/--variant and the variant
 *                    table; an unknown option or a bad value exits 2 naming it; a
 *                    bad --variant or --preset exits 2 naming the valid variants,
 *                    values or presets
 *   variants         --preset/--variant set every host's base config; the variant
 *                    a bench compares is still set per design
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

#include "bench_registry.h"
#include "bench_rstat_staleness.h"

/* Run a bench engine with argv, output fd (1 or 2) captured into a malloc'ed string. */
static char *run_bench_fd(const char *name, int *rc, int argc, char **argv, int fd)
{
	FILE *tmp = tmpfile();
	FILE *stream = fd == 1 ? stdout : stderr;
	int saved;
	long len;
	char *out;

	assert_non_null(tmp);
	fflush(stream);
	saved = dup(fd);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), fd) >= 0);
	*rc = bench_main(name, argc, argv);
	fflush(stream);
	assert_true(dup2(saved, fd) >= 0);
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

static char *run_bench(const char *name, int *rc, int argc, char **argv)
{
	return run_bench_fd(name, rc, argc, argv, 1);
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
	/* node-stat=percpu: 2 pages of each CPU's +2 -1 per memcg stay in its diff */
	assert_int_equal(value_after(out, "root_active_anon_node"), 128 * 80 - 2 * 80);
	assert_int_equal(count(out, "\"root_lruvec_active_anon\":10240"), 1);
	assert_int_equal(count(out, "\"root_lruvec_active_anon\":10080"), 1);
	/* patch 2's exclusions: the node counts what no memcg is charged for, patch 2
	 * reads root's charged figure (job0's 64 stacks of 16 KiB and 64 page tables;
	 * no hugetlb folio is charged). The node read of page tables misses the 112
	 * pages left in the driver CPU's diff (364 = 2 folds of 126 + 112; threshold 125) */
	assert_non_null(strstr(out, "{\"item\":\"kernel_stack_kb\",\"node\":4224,\"root_rstat\":1024,"
				    "\"root_lruvec_mainline\":1024,\"root_lruvec_patch2\":1024}"));
	assert_non_null(strstr(out, "{\"item\":\"pagetable\",\"node\":252,\"root_rstat\":64,"
				    "\"root_lruvec_mainline\":64,\"root_lruvec_patch2\":64}"));
	assert_non_null(strstr(out, "{\"item\":\"hugetlb\",\"node\":1536,\"root_rstat\":0,"
				    "\"root_lruvec_mainline\":0,\"root_lruvec_patch2\":0}"));
	assert_non_null(strstr(out, "\"active_anon_after_activity\":{\"root_rstat\":10240,"
				    "\"node_page_state\":10080,\"node_snapshot\":10240,"
				    "\"root_lruvec_patch2\":10080}"));
	/* the call sites, 6 activity steps each: the ratelimit never lets a flush through
	 * while the periodic flusher is on time, DAMON's threshold gate at every step */
	assert_int_equal(value_after(strstr(out, "\"site\":\"workingset\""), "through"), 0);
	assert_int_equal(value_after(strstr(out, "\"site\":\"zswap\""), "through"), 0);
	assert_int_equal(value_after(strstr(out, "\"site\":\"damon\""), "calls"), 6);
	assert_int_equal(value_after(strstr(out, "\"site\":\"damon\""), "through"), 6);
	free(out);
}

static void node_read_drift(void **state)
{
	char *argv[] = { "node-read-drift", "--cpus", "8", "--seconds", "3", "--ops", "16",
			 "--schedules", "2", "--json", NULL };
	int rc;
	char *out = run_bench("node-read-drift", &rc, 10, argv);

	(void)state;
	assert_int_equal(rc, 0);
	assert_int_equal(value_after(out, "steps"), 30);
	assert_int_equal(value_after(out, "threshold"), 88);
	assert_int_equal(value_after(out, "truth"), 1908);
	assert_int_equal(value_after(out, "rstat_flushes"), 9);
	assert_int_equal(value_after(out, "node_err_max"), 582);
	assert_int_equal(value_after(out, "node_bound"), 704);
	assert_int_equal(value_after(out, "rstat_err_max"), 144);
	assert_int_equal(value_after(out, "rstat_bound"), 6382);
	assert_int_equal(value_after(out, "snapshot_err_max"), 0);
	/* schedule 1 (random) and 2 (PCT) with mid-step reads: rstat's worst grows */
	assert_int_equal(value_after(out, "schedules"), 2);
	assert_int_equal(value_after(out, "sched_node_err_max"), 582);
	assert_int_equal(value_after(out, "sched_rstat_err_max"), 180);
	assert_int_equal(value_after(out, "sched_snapshot_err_max"), 0);
	assert_int_equal(value_after(out, "sched_node_bound"), 704 + 4 * 8);
	assert_int_equal(value_after(out, "sched_rstat_bound"), 6382 + 4 * 8);
	assert_non_null(strstr(out, "\"verdict\":\"does not hold\""));
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
	assert_non_null(strstr(out, "[--preset NAME] [--variant NAME=VALUE]..."));
	assert_non_null(strstr(out, "dying-redirect         v1 | all | all-rcu-on-dying"));
	assert_non_null(strstr(out, "presets: mainline thread-000"));
	free(out);
	out = run_bench_fd("root-flush", &rc, 2, bad, 2);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "root-flush: unknown option '--no-such-option'\n"
				    "usage: root-flush [--json]"));
	free(out);
	out = run_bench_fd("rstat-propagate", &rc, 3, badval, 2);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "rstat-propagate: --cpus: expected an integer in [1, 1024], "
				    "got 'zero'\n"));
	free(out);
}

/* Every bench engine: a bad --variant or --preset is a usage error naming the valid ones. */
static void bad_variant(void **state)
{
	static const char *const benches[] = { "anon-churn", "root-flush", "rstat-propagate",
					       "rstat-staleness", "sched-switch", "shrinker-units" };
	int rc;
	char *err;

	(void)state;
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
		char *name_bad[] = { (char *)benches[i], "--variant", "no-such=1", NULL };
		char *value_bad[] = { (char *)benches[i], "--variant", "rstat-propagate=maybe", NULL };
		char *form_bad[] = { (char *)benches[i], "--variant", "rstat-propagate", NULL };
		char *preset_bad[] = { (char *)benches[i], "--preset", "thread-999", NULL };
		char *missing[] = { (char *)benches[i], "--variant", NULL };

		err = run_bench_fd(benches[i], &rc, 3, name_bad, 2);
		assert_int_equal(rc, 2);
		/* every layer's rows, a layer's together in its order */
		assert_non_null(strstr(err, "unknown variant 'no-such'; valid variants: "
					    "charge-stock damon-root-read"));
		assert_non_null(strstr(err, " rstat-propagate root-lruvec-read dying-redirect "));
		assert_non_null(strstr(err, " shrinker-info shrinker-recount on-demand-lock "));
		free(err);
		err = run_bench_fd(benches[i], &rc, 3, value_bad, 2);
		assert_int_equal(rc, 2);
		assert_non_null(strstr(err, "unknown value 'maybe' for rstat-propagate; "
					    "valid values: break continue"));
		free(err);
		err = run_bench_fd(benches[i], &rc, 3, form_bad, 2);
		assert_int_equal(rc, 2);
		assert_non_null(strstr(err, "not of the form NAME=VALUE"));
		free(err);
		err = run_bench_fd(benches[i], &rc, 3, preset_bad, 2);
		assert_int_equal(rc, 2);
		assert_non_null(strstr(err, "unknown preset 'thread-999'; valid presets: mainline "
					    "thread-000 thread-001 thread-002 thread-004"));
		free(err);
		free(run_bench_fd(benches[i], &rc, 2, missing, 2));
		assert_int_equal(rc, 2);
	}
}

/* Whether the JSON's "base_variants" string (the first one) contains what. */
static bool base_variants_has(const char *out, const char *what)
{
	const char *key = "\"base_variants\":\"", *start = strstr(out, key), *end;
	char value[4096];

	if (!start)
		return false;
	start += strlen(key);
	end = strchr(start, '"');
	if (!end || (size_t)(end - start) >= sizeof(value))
		return false;
	memcpy(value, start, (size_t)(end - start));
	value[end - start] = '\0';
	return strstr(value, what) != NULL;
}

/*
 * The base variants reach every host: thread-002's preset (root-lruvec-read=node)
 * plus a --variant; anon-churn still sets dying-redirect per design, so its rows
 * keep their three values. Later --variant wins over the preset, wherever the
 * --preset stands.
 */
static void variants_base(void **state)
{
	char *argv[] = { "anon-churn", "--quick", "--json", "--reps", "1", "--rounds", "2",
			 "--variant", "rstat-propagate=continue", "--preset", "thread-002",
			 "--variant", "dying-redirect=all", NULL };
	char *st[] = { "rstat-staleness", "--json", "--seconds", "0.1", "--seeds", "1",
		       "--preset", "thread-004", NULL };
	int rc;
	char *out = run_bench("anon-churn", &rc, 13, argv);

	(void)state;
	assert_int_equal(rc, 0);
	assert_true(base_variants_has(out, "rstat-propagate=continue,root-lruvec-read=node,"
					   "dying-redirect=all,"));
	assert_true(base_variants_has(out, "damon-root-read=node,"));
	assert_int_equal(count(out, "\"dying_redirect\":\"v1\""), 2);
	assert_int_equal(count(out, "\"dying_redirect\":\"all\""), 2);
	assert_int_equal(count(out, "\"dying_redirect\":\"all-rcu-on-dying\""), 2);
	free(out);
	/* thread-004 sets rstat-propagate=continue, which the staleness designs override */
	out = run_bench("rstat-staleness", &rc, 8, st);
	assert_int_equal(rc, 0);
	assert_true(base_variants_has(out, "rstat-propagate=continue,"));
	assert_non_null(strstr(out, "\"design\":\"break\","));
	assert_non_null(strstr(out, "\"design\":\"continue\","));
	free(out);
}

/* The measured mode at a small size, run directly: counts, not the thread's figure. */
static void rstat_staleness(void **state)
{
	struct bench_st_opts o;
	struct bench_st_result r;

	(void)state;
	bench_st_opts_init(&o, true);
	o.cpus = 4;
	o.updaters = 2;
	o.seeds = 1;
	/* the mixed tree (the default): a sibling, root's own pages and a leaf reader */
	assert_int_equal(bench_st_run(&o, &r), 0);
	for (int d = 0; d < 2; d++) {
		assert_int_equal(r.d[d].reads, 220);
		/* every gated flush of both readers either ran or skipped */
		assert_int_equal(r.d[d].skipped + r.d[d].flushed, 440);
	}
	assert_int_equal(r.d[0].beyond, 0);        /* root never stuck behind its bound */
	assert_int_equal(r.d[0].skipped, 2);        /* 2 of its 440 gated flushes skipped */
	assert_int_equal(r.d[1].beyond, 0);
	bench_st_result_free(&r);
	/* the leaf alone, read at root only */
	o.leaf_only = true;
	assert_int_equal(bench_st_run(&o, &r), 0);
	assert_int_equal(r.threshold, 256);
	for (int d = 0; d < 2; d++) {
		assert_int_equal(r.d[d].reads, 220);          /* every 10 ms for 2.2 s */
		assert_int_equal(r.d[d].periodic, 1);         /* at 2 s */
		/* every read's gated flush either ran or skipped */
		assert_int_equal(r.d[d].skipped + r.d[d].flushed, 220);
	}
	/* break: stuck in 210 of 220 reads (reachability under this seed's random schedule) */
	assert_int_equal(r.d[0].beyond, 210);
	assert_int_equal(r.d[0].skipped, 212);
	assert_int_equal(r.d[1].beyond, 0);
	assert_int_equal(r.d[1].skipped, 2);
	assert_true(r.d[0].max_gap > r.d[1].max_gap);
	bench_st_result_free(&r);
	/* scripted: after the race only the driver updates; every gated read skips until
	 * the periodic flush at 2 s, every one after it runs */
	o.scripted = true;
	assert_int_equal(bench_st_run(&o, &r), 0);
	assert_int_equal(r.d[0].reads, 220);
	assert_int_equal(r.d[0].skipped, 200);
	assert_int_equal(r.d[0].flushed, 20);
	assert_int_equal(r.d[1].beyond, 0);
	bench_st_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(anon_churn),
		cmocka_unit_test(root_flush),
		cmocka_unit_test(node_read_drift),
		cmocka_unit_test(rstat_propagate),
		cmocka_unit_test(rstat_staleness),
		cmocka_unit_test(usage),
		cmocka_unit_test(bad_variant),
		cmocka_unit_test(variants_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
