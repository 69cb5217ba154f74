/* SPDX-License-Identifier: MIT */
/*
 * test_damon.c - src/damon: the memcg goal reader (values, the missing node and
 * memcg, the root read under damon-root-read=flush and =node), the feedback loop
 * and its tuners, the charge window and the scheme work on the virtual clock.
 * The use-after-free of damon-memcg-tryget=off is the race damon-memcg-lookup
 * (scenarios/damon_memcg_lookup.c); here only the watch's answer is checked.
 */
#include <errno.h>
#include <limits.h>

#include "unit_util.h"

#define NODE_PAGES 40000UL   /* NORMAL of every node; no DMA zones: node RAM is this */

static struct msim *damon_host(const char *settings)
{
	struct msim_config cfg = unit_config(2, 2);
	char err[256];
	struct msim *m;

	cfg.zone_managed_pages[MSIM_ZONE_DMA] = 0;
	cfg.zone_managed_pages[MSIM_ZONE_DMA32] = 0;
	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = NODE_PAGES;
	assert_int_equal(msim_race_settings_apply(&cfg, settings, err, sizeof(err)), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_damon_attach(m, err, sizeof(err)), 0);
	msim_rstat_periodic_flush_enable(m, false);
	return m;
}

static struct msim_damos_quota_goal goal_of(enum msim_damos_quota_goal_metric metric, int nid,
					    struct msim_memcg *memcg)
{
	return (struct msim_damos_quota_goal){ .metric = metric, .target_value = 1000, .nid = nid,
					       .memcg_id = msim_mem_cgroup_private_id(memcg) };
}

/* 4000 LRU pages of a on node 1 (past the flush threshold, 128): 10 % of 40000. */
static void reader_values(void **st)
{
	struct msim *m = damon_host(NULL);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_lruvec *la = msim_mem_cgroup_lruvec(m, a, 1);
	struct msim_damos_quota_goal used = goal_of(MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP, 1, a);
	struct msim_damos_quota_goal free_ = goal_of(MSIM_DAMOS_QUOTA_NODE_MEMCG_FREE_BP, 1, a);
	struct msim_damos_read_info info;

	assert_int_equal(msim_damon_node_totalram(m, 1), NODE_PAGES);
	assert_int_equal(msim_mod_lruvec_state(la, MSIM_NR_ACTIVE_ANON, 1000), 0);
	assert_int_equal(msim_mod_lruvec_state(la, MSIM_NR_INACTIVE_FILE, 3000), 0);
	assert_int_equal(msim_mod_lruvec_state(la, MSIM_NR_UNEVICTABLE, 500), 0); /* not counted */
	assert_int_equal(msim_damos_get_node_memcg_used_bp_info(m, &used, &info), 1000);
	assert_true(info.found && info.flush_called && info.flushed && !info.root);
	assert_int_equal(info.used_pages, 4000);
	assert_int_equal(info.state_at_use, MSIM_MEMCG_ONLINE);
	assert_int_equal(msim_damos_get_node_memcg_used_bp(m, &free_), 9000);
	/* node 0 holds none of a's pages */
	used.nid = 0;
	assert_int_equal(msim_damos_get_node_memcg_used_bp(m, &used), 0);
	msim_destroy(m);
}

/* A bad node or an id that finds nothing: 0 for USED, 10000 for FREE. */
static void reader_missing(void **st)
{
	struct msim *m = damon_host(NULL);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_damos_quota_goal used = goal_of(MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP, 2, a);
	struct msim_damos_quota_goal free_ = goal_of(MSIM_DAMOS_QUOTA_NODE_MEMCG_FREE_BP, -1, a);
	struct msim_damos_read_info info;
	struct msim_damon_counts c;

	assert_int_equal(msim_damos_get_node_memcg_used_bp_info(m, &used, &info), 0);
	assert_true(info.invalid_node);
	assert_int_equal(msim_damos_get_node_memcg_used_bp(m, &free_), 10000);
	used.nid = free_.nid = 0;
	assert_int_equal(msim_memcg_rmdir(a), 0);   /* offline erases the private id */
	assert_int_equal(msim_damos_get_node_memcg_used_bp_info(m, &used, &info), 0);
	assert_false(info.found);
	assert_int_equal(msim_damos_get_node_memcg_used_bp(m, &free_), 10000);
	msim_damon_counts(m, &c);
	assert_int_equal(c.reads, 4);
	assert_int_equal(c.lookups_failed, 2);
	/* another metric, or a host without the layer, reads 0 */
	used.metric = MSIM_DAMOS_QUOTA_USER_INPUT;
	assert_int_equal(msim_damos_get_node_memcg_used_bp(m, &used), 0);
	msim_destroy(m);
	m = unit_host(2, 1);
	assert_int_equal(msim_damos_get_node_memcg_used_bp(m, &free_), 0);
	assert_int_equal(msim_damon_attach(NULL, NULL, 0), -EINVAL);
	msim_destroy(m);
}

/*
 * Patch 4 on root: 100 pages written under a child stay below root's flush gate
 * (128), so mainline's gated flush does nothing and reads the stale rstat 0; the
 * node read (alone or through patch 2's lruvec_page_state) sees 100 (25 bp).
 */
static unsigned long root_read(const char *settings, long pages, struct msim_damos_read_info *info)
{
	struct msim *m = damon_host(settings);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *a = unit_mkdir(root, "a");
	struct msim_damos_quota_goal g = goal_of(MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP, 0, root);
	unsigned long bp;

	assert_int_equal(msim_mod_lruvec_state(msim_mem_cgroup_lruvec(m, a, 0),
					       MSIM_NR_INACTIVE_ANON, pages), 0);
	bp = msim_damos_get_node_memcg_used_bp_info(m, &g, info);
	assert_true(info->root);
	msim_destroy(m);
	return bp;
}

static void root_flush_vs_node(void **st)
{
	struct msim_damos_read_info info;

	assert_int_equal(root_read("damon-root-read=flush", 100, &info), 0);
	assert_true(info.flush_called);
	assert_false(info.flushed);
	assert_int_equal(root_read("damon-root-read=node", 100, &info), 25);
	assert_false(info.flush_called);
	assert_int_equal(info.used_pages, 100);
	assert_int_equal(root_read("damon-root-read=node,root-lruvec-read=node", 100, &info), 25);
	/* patch 2 alone: the flush runs (gated shut) and root's lruvec reads the node */
	assert_int_equal(root_read("root-lruvec-read=node", 100, &info), 25);
	assert_true(info.flush_called);
	/*
	 * node-stat=percpu (2 CPUs, a 40000-page zone: node threshold 8): 100 pages
	 * fold at once, 5 stay in CPU 0's diff and the node read misses them.
	 */
	assert_int_equal(root_read("damon-root-read=node,node-stat=percpu", 100, &info), 25);
	assert_int_equal(root_read("damon-root-read=node,node-stat=percpu", 5, &info), 0);
	assert_int_equal(info.used_pages, 0);
}

/* The loop moves the input by the score's relative distance; floors and caps. */
static void feed_loop(void **st)
{
	assert_int_equal(msim_damon_feed_loop_next_input(1000000, 5000), 1500000);
	assert_int_equal(msim_damon_feed_loop_next_input(1000000, 15000), 500000);
	assert_int_equal(msim_damon_feed_loop_next_input(1000000, 10000), 1000000);
	assert_int_equal(msim_damon_feed_loop_next_input(1000000, 20000), 10000);
	assert_int_equal(msim_damon_feed_loop_next_input(20000, 19999), 10000);
	assert_int_equal(msim_damon_feed_loop_next_input(10000, 0), 20000);
	assert_true(msim_damon_feed_loop_next_input(ULONG_MAX - 1, 0) == ULONG_MAX);
}

/*
 * A USER_INPUT goal whose metric grows with the quota (current = esz / 100,
 * target 5000): consist settles at esz 500000 from the 1-byte start; temporal
 * flips between sz and 0 around it.
 */
static void run_windows(struct msim *m, struct msim_damos_quota *q, unsigned int n,
			unsigned long *min_esz, unsigned long *max_esz)
{
	*min_esz = ULONG_MAX;
	*max_esz = 0;
	for (unsigned int i = 0; i < n; i++) {
		q->goals[0].current_value = q->esz / 100;
		assert_true(msim_damos_adjust_quota(m, q));
		assert_false(msim_damos_adjust_quota(m, q));   /* same window */
		if (i >= n - 5) {
			*min_esz = q->esz < *min_esz ? q->esz : *min_esz;
			*max_esz = q->esz > *max_esz ? q->esz : *max_esz;
		}
		msim_clock_advance(m, msim_config(m)->hz);
	}
}

static void tuners(void **st)
{
	struct msim *m = damon_host(NULL);
	struct msim_damos_quota q;
	unsigned long lo, hi;

	msim_damos_quota_init(&q);
	assert_false(msim_damos_adjust_quota(m, &q));      /* no goal, no sz: nothing */
	assert_int_equal(msim_damos_add_quota_goal(&q, MSIM_DAMOS_QUOTA_USER_INPUT, 5000, 0, 0), 0);
	assert_int_equal(msim_damos_add_quota_goal(&q, MSIM_NR_DAMOS_QUOTA_GOAL_METRICS, 1, 0, 0),
			 -EINVAL);
	assert_int_equal(msim_damos_add_quota_goal(&q, MSIM_DAMOS_QUOTA_USER_INPUT, 0, 0, 0),
			 -EINVAL);
	run_windows(m, &q, 60, &lo, &hi);
	assert_true(lo >= 495000 && hi <= 505000);
	assert_int_equal(q.nr_tunings, 60);
	msim_damos_quota_init(&q);
	q.goal_tuner = MSIM_DAMOS_QUOTA_GOAL_TUNER_TEMPORAL;
	q.sz = 800000;
	assert_int_equal(msim_damos_add_quota_goal(&q, MSIM_DAMOS_QUOTA_USER_INPUT, 5000, 0, 0), 0);
	run_windows(m, &q, 10, &lo, &hi);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 800000);
	msim_destroy(m);
}

/* sz alone: esz = sz per window; a full window counts in qt_exceeds. */
static void charge_window(void **st)
{
	struct msim *m = damon_host(NULL);
	struct msim_damos_quota q;

	msim_damos_quota_init(&q);
	q.sz = 1000;
	assert_true(msim_damos_adjust_quota(m, &q));
	assert_int_equal(q.esz, 1000);
	assert_int_equal(msim_damos_quota_charge(&q, 600), 600);
	assert_int_equal(msim_damos_quota_charge(&q, 600), 400);
	assert_int_equal(msim_damos_quota_charge(&q, 1), 0);
	msim_clock_advance(m, 999);
	assert_false(msim_damos_adjust_quota(m, &q));
	msim_clock_advance(m, 1);
	assert_true(msim_damos_adjust_quota(m, &q));
	assert_int_equal(q.qt_exceeds, 1);
	assert_int_equal(q.total_charged_sz, 1000);
	assert_int_equal(q.charged_sz, 0);
	/* no quota at all: nothing limits */
	msim_damos_quota_init(&q);
	assert_int_equal(msim_damos_quota_charge(&q, 12345), 12345);
	msim_destroy(m);
}

static unsigned long half_of_budget(struct msim_damos *s, unsigned long budget, void *arg)
{
	(*(unsigned long *)arg)++;
	return budget / 2;
}

/* The scheme's work: every 100 ms of virtual time, half the window's room. */
static void scheme_on_clock(void **st)
{
	struct msim *m = damon_host(NULL);
	struct msim_damos s = { .action = half_of_budget };
	unsigned long calls = 0;

	s.action_arg = &calls;
	msim_damos_quota_init(&s.quota);
	s.quota.sz = 1 << 20;
	assert_int_equal(msim_damos_start(m, &s), 0);
	assert_int_equal(msim_damos_start(m, &s), -EINVAL);
	msim_clock_advance(m, 1000);
	assert_int_equal(s.nr_applies, 10);
	assert_int_equal(calls, 10);
	/* one window of 1 MiB: each apply takes half of what is left */
	assert_int_equal(s.sz_applied, (1 << 20) - (1 << 10));
	msim_damos_stop(&s);
	msim_clock_advance(m, 1000);
	assert_int_equal(s.nr_applies, 10);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_values),
		cmocka_unit_test(reader_missing),
		cmocka_unit_test(root_flush_vs_node),
		cmocka_unit_test(feed_loop),
		cmocka_unit_test(tuners),
		cmocka_unit_test(charge_window),
		cmocka_unit_test(scheme_on_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
