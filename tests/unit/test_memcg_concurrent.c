/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * test_memcg_concurrent.c - the memcg tree on real threads (concurrent mode,
 * liburcu): mkdir/rmdir on two CPUs while a third walks the tree with
 * msim_mem_cgroup_iter and a fourth looks memcgs up by private id.
 *
 *   CPU 0, CPU 1 (churn)            | CPU 2 (iterator)            | CPU 3 (id lookup)
 *   mkdir x under p (and x/y)       | rcu_read_lock               | rcu_read_lock
 *   rmdir: CSS_DYING                |   pos = next(pos)           |   memcg = from_id(i)
 *          synchronize_rcu          |   css_tryget(pos)           |   css_tryget(memcg)
 *          offline, put refs        | rcu_read_unlock             | rcu_read_unlock
 *   last put: release (call_rcu),   | check pos, put prev         | check memcg, put
 *   free after a grace period       |                             |
 *
 * Invariant: nothing returned by the iterator or by an id lookup that tryget
 * pinned is ever freed or released while pinned (the debug magic check and
 * the state), the stable memcgs s1 and s3 are seen on every pass, and once
 * everything is drained the counts are exact. Run it under TSan
 * (build with -DMSIM_TSAN=ON) to check the tree's publication and locking; the
 * deterministic explorations of the same race are in test_memcg_iter.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "memcg/memcg_internal.h"

#define CHURN_ROUNDS 150

struct conc {
	struct msim *m;
	struct msim_memcg *p, *s1, *s3;
	int churners_left;          /* atomic */
	/* Written by one task each, read by the driver after msim_run(). */
	unsigned int churn_ok[2], churn_nested[2], churn_err[2];
	unsigned int iter_passes, iter_bad, iter_missed, iter_seen;
	unsigned int look_hits, look_bad;
};

static void churn(void *arg)
{
	struct conc *c = arg;
	unsigned int me = msim_this_cpu();
	int i;

	for (i = 0; i < CHURN_ROUNDS; i++) {
		struct msim_memcg *x = NULL, *y = NULL;

		if (msim_memcg_create(c->p, NULL, &x)) {
			c->churn_err[me]++;
			continue;
		}
		if (i % 3 == 0 && msim_memcg_create(x, NULL, &y) == 0) {
			/* x is busy while y lives. */
			if (msim_memcg_rmdir(x) != -EBUSY)
				c->churn_err[me]++;
			msim_memcg_rmdir(y);
			c->churn_nested[me]++;
		}
		if (msim_memcg_rmdir(x) == 0)
			c->churn_ok[me]++;
		else
			c->churn_err[me]++;
	}
	__atomic_fetch_sub(&c->churners_left, 1, __ATOMIC_RELEASE);
}

static bool pinned_ok(struct msim_memcg *memcg)
{
	return msim__memcg_check(memcg) && msim_memcg_state(memcg) < MSIM_MEMCG_RELEASED;
}

static void iterate(void *arg)
{
	struct conc *c = arg;

	do {
		struct msim_memcg *pos = NULL;
		bool s1 = false, s3 = false;

		while ((pos = msim_mem_cgroup_iter(c->p, pos))) {
			int kid = msim_memcg_kmemcg_id(pos);

			/* Racy readers too: kmemcg_id is set between link and online. */
			/* Online ends when offline is done (CSS_ONLINE), not at rmdir. */
			if (msim_memcg_state(pos) >= MSIM_MEMCG_OFFLINE &&
			    msim_mem_cgroup_online(pos))
				c->iter_bad++;
			if (kid != -1 && kid != msim_mem_cgroup_private_id(pos) &&
			    msim_mem_cgroup_private_id(pos) != 0)
				c->iter_bad++;
			if (!pinned_ok(pos) || msim_memcg_level(pos) < 1) {
				c->iter_bad++;
				continue;
			}
			s1 |= pos == c->s1;
			s3 |= pos == c->s3;
			c->iter_seen++;
		}
		c->iter_missed += !(s1 && s3);
		c->iter_passes++;
	} while (__atomic_load_n(&c->churners_left, __ATOMIC_ACQUIRE) > 0 || c->iter_passes < 3);
}

static void lookup(void *arg)
{
	struct conc *c = arg;

	do {
		for (unsigned short id = 1; id < 16; id++) {
			struct msim_memcg *memcg;

			msim_rcu_read_lock();
			memcg = msim_mem_cgroup_from_private_id(c->m, id);
			if (memcg && !msim_css_tryget(memcg))
				memcg = NULL;
			msim_rcu_read_unlock();
			if (!memcg)
				continue;
			c->look_hits++;
			if (!pinned_ok(memcg))
				c->look_bad++;
			msim_css_put(memcg);
		}
	} while (__atomic_load_n(&c->churners_left, __ATOMIC_ACQUIRE) > 0);
}

static void mkdir_rmdir_vs_iter(void **state)
{
	struct msim_config cfg;
	struct msim_memcg_counts cnt;
	struct msim_memcg *root, *s2 = NULL;
	struct conc c;
	char err[256];
	unsigned int churned;

	memset(&c, 0, sizeof(c));
	msim_config_init(&cfg);
	cfg.nr_cpus = 4;
	cfg.mode = MSIM_CONCURRENT;
	assert_int_equal(msim_create(&cfg, &c.m, err, sizeof(err)), 0);
	msim_set_current_host(c.m);
	root = msim_root_mem_cgroup(c.m);
	assert_int_equal(msim_memcg_create(root, "p", &c.p), 0);
	assert_int_equal(msim_memcg_create(c.p, "s1", &c.s1), 0);
	assert_int_equal(msim_memcg_create(c.p, "s2", &s2), 0);
	assert_int_equal(msim_memcg_create(c.p, "s3", &c.s3), 0);
	assert_int_equal(msim_memcg_rmdir(s2), 0);
	c.churners_left = 2;
	assert_non_null(msim_task_create(c.m, "churn0", 0, churn, &c));
	assert_non_null(msim_task_create(c.m, "churn1", 1, churn, &c));
	assert_non_null(msim_task_create(c.m, "iter", 2, iterate, &c));
	assert_non_null(msim_task_create(c.m, "lookup", 3, lookup, &c));
	assert_int_equal(msim_run(c.m), 0);

	assert_int_equal(c.churn_err[0] + c.churn_err[1], 0);
	assert_int_equal(c.churn_ok[0], CHURN_ROUNDS);
	assert_int_equal(c.churn_ok[1], CHURN_ROUNDS);
	assert_int_equal(c.iter_bad, 0);
	assert_int_equal(c.iter_missed, 0);
	assert_true(c.iter_passes >= 3);
	assert_int_equal(c.look_bad, 0);
	churned = 2 * CHURN_ROUNDS + c.churn_nested[0] + c.churn_nested[1];
	assert_int_equal(c.churn_nested[0], (CHURN_ROUNDS + 2) / 3);
	msim_memcg_drain(c.m);
	msim_memcg_counts(c.m, &cnt);
	assert_int_equal(cnt.online, 4);             /* root, p, s1, s3 */
	assert_int_equal(cnt.dying + cnt.offline + cnt.released, 0);
	assert_int_equal(cnt.created_total, 5 + churned);
	assert_int_equal(cnt.freed_total, 1 + churned);
	fprintf(stderr, "# iter passes %u, memcgs seen %u; id lookups pinned %u; churned %u\n",
		c.iter_passes, c.iter_seen, c.look_hits, churned);
	msim_destroy(c.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mkdir_rmdir_vs_iter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
