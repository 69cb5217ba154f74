/* SPDX-License-Identifier: MIT */
/*
 * test_scale.c - the scale bench at its quick size (CPUs 2, 4, 8 at 32 cgroups;
 * cgroups 16, 32, 64 on 4 CPUs; 2 nodes; 1 and 4 updates per CPU before a root
 * flush). Asserts only deterministic figures:
 *  - every size ran and is charged the same per-CPU bytes per memcg per CPU
 *    (within 1%: the host's own per-CPU bytes are shared among its cgroups);
 *  - a flush with nothing updated visits every CPU and flushes no memcg;
 *  - a flush after updates visits every CPU and flushes more memcgs as the
 *    updates grow;
 *  - across the cgroup series (the same (cgroup, CPU) pairs updated at every
 *    size) the flush does exactly the same work: it follows what was updated,
 *    not how many cgroups exist;
 *  - the scale goal's host (top CPUs x top cgroups) runs with the same checks;
 * and the verdicts follow planted figures. Never a time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_scale.h"
#include "verdict_util.h"

static struct bench_sc_result *res;

static int setup(void **state)
{
	struct bench_sc_config c;

	(void)state;
	bench_sc_config_default(&c, true);
	c.progress = false;
	res = calloc(1, sizeof(*res));
	if (!res || bench_sc_run(&c, res))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(res);
	return 0;
}

static void check_point(const struct bench_sc_point *p, double charged)
{
	assert_true(p->ran);
	/* the same per cgroup; the host's own per-CPU bytes, shared by all, move it < 1% */
	assert_true(fabs(p->charged_pcpu_per_memcg_cpu - charged) < charged / 100);
	assert_int_equal(p->idle_cpu_visits, p->cpus);
	assert_int_equal(p->idle_memcg_flushes, 0);
	for (unsigned int u = 0; u < res->cfg.nloads; u++) {
		const struct bench_sc_load *l = &p->load[u];

		assert_int_equal(l->cpu_visits, p->cpus);
		assert_true(l->updated_pairs > 0);
		assert_true(l->updated_pairs <= (uint64_t)p->cpus * l->per_cpu);
		/* each updated pair flushes its cgroup; parents and root come on top */
		assert_true(l->memcg_flushes > l->updated_pairs);
		if (u)
			assert_true(l->memcg_flushes > p->load[u - 1].memcg_flushes);
	}
}

static void every_size_ran(void **state)
{
	double charged = res->cpu_series[0].charged_pcpu_per_memcg_cpu;

	(void)state;
	assert_true(charged > 0);
	for (unsigned int i = 0; i < BENCH_SC_SERIES; i++) {
		check_point(&res->cpu_series[i], charged);
		check_point(&res->cgroup_series[i], charged);
		assert_int_equal(res->cpu_series[i].cpus, res->cfg.top_cpus >> (2 - i));
		assert_int_equal(res->cgroup_series[i].cgroups, res->cfg.top_cgroups >> (2 - i));
	}
	/* the scale goal's size: the top CPUs and the top cgroups in one host */
	check_point(&res->issue, charged);
	assert_int_equal(res->issue.cpus, res->cfg.top_cpus);
	assert_int_equal(res->issue.cgroups, res->cfg.top_cgroups);
}

/* The same pairs updated on 16, 32 and 64 cgroups: the same flush, exactly. */
static void flush_follows_updates(void **state)
{
	const struct bench_sc_point *g = res->cgroup_series;

	(void)state;
	for (unsigned int i = 1; i < BENCH_SC_SERIES; i++)
		for (unsigned int u = 0; u < res->cfg.nloads; u++) {
			assert_int_equal(g[i].load[u].updated_pairs, g[0].load[u].updated_pairs);
			assert_int_equal(g[i].load[u].memcg_flushes, g[0].load[u].memcg_flushes);
		}
}

static void verdicts_follow_figures(void **state)
{
	struct bench_sc_result *r = calloc(1, sizeof(*r));
	struct bench_sc_verdicts v;

	(void)state;
	assert_non_null(r);
	*r = *res;
	assert_true(r->cfg.nloads > 1);
	{
		/* planted flush times: the same at 4x the cgroups, 3x from the first load
		 * to the top one; then 1.5x (within the rule's 2x) and 2x the cgroups' */
		struct bench_sc_point *g = r->cgroup_series, *t = &g[BENCH_SC_SERIES - 1];
		unsigned int u = r->cfg.nloads - 1;

		g[0].load[u].flush_us = t->load[u].flush_us = 30;
		t->load[0].flush_us = 10;
		bench_sc_verdicts(r, &v);
		assert_string_equal(verdict_of(&v.table, "the root flush grows with what"),
				    "holds");
		assert_string_equal(verdict_of(&v.table, "the root flush grows with the updates"),
				    "holds");
		t->load[0].flush_us = 20;
		t->load[u].flush_us = 60;   /* the top load: 3x, but 2x the smallest series' */
		g[0].load[u].flush_us = 30;
		bench_sc_verdicts(r, &v);
		assert_string_equal(verdict_of(&v.table, "the root flush grows with what"),
				    "does not hold");
		t->load[u].flush_us = 30;   /* 1.5x the first load's */
		bench_sc_verdicts(r, &v);
		assert_string_equal(verdict_of(&v.table, "the root flush grows with the updates"),
				    "does not hold");
		*r = *res;
	}
	r->cgroup_series[2].load[r->cfg.nloads - 1].memcg_flushes++;
	bench_sc_verdicts(r, &v);
	assert_true(v.fig[BENCH_SC_F_FLUSH_SAME] == 0);
	assert_string_equal(verdict_of(&v.table, "the root flush grows with what"),
			    "does not hold");
	r->cpu_series[2].rss_bytes = 2 * r->cpu_series[1].rss_bytes + 1;
	bench_sc_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "an idle (cgroup, CPU) pair"), "does not hold");
	assert_string_equal(verdict_of(&v.table, "the scale goal's size runs whole"), "holds");
	r->issue.ran = false;
	bench_sc_verdicts(r, &v);
	assert_string_equal(verdict_of(&v.table, "the scale goal's size runs whole"), "does not hold");
	verdict_assert_every_row_failed(&v.table);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_size_ran),
		cmocka_unit_test(flush_follows_updates),
		cmocka_unit_test(verdicts_follow_figures),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
