/* SPDX-License-Identifier: MIT */
/*
 * test_rstat_node_stat.c - variant node-stat: rstat's node counters as one exact
 * atomic (exact, the model's old default) or as vmstat's per-CPU diffs (percpu,
 * the kernel), and the subsystem attach that percpu brings.
 */
#include <errno.h>

#include <memcgsim/introspect.h>

#include "unit_util.h"

/* A 2-CPU, 1-node host (node threshold 32) with rstat; vmstat as cfg_vmstat says. */
static struct msim *node_host(const char *variant, bool cfg_vmstat, bool by_hand)
{
	struct msim_config cfg = unit_config(2, 1);
	char err[256];
	struct msim *m;

	cfg.vmstat = cfg_vmstat;
	cfg.rstat = !by_hand;
	assert_int_equal(msim_variant_set(&cfg.variants, variant, err, sizeof(err)), 0);
	m = unit_host_cfg(&cfg);
	if (by_hand)
		assert_int_equal(msim_rstat_init(m, NULL), 0);
	return m;
}

static void exact_is_immediate(void **st)
{
	struct msim *m = node_host("node-stat=exact", false, false);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");

	assert_false(msim_subsys_attached(m, msim_subsys_find("vmstat")));
	assert_int_equal(msim_mod_lruvec_state(msim_mem_cgroup_lruvec(m, a, 0),
					       MSIM_NR_FILE_PAGES, 10), 0);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_FILE_PAGES), 10);
	assert_int_equal(msim_node_stat_raw(m, 0, MSIM_NR_FILE_PAGES), 10);
	msim_destroy(m);
}

/* Below the threshold the write stays in CPU 0's diff: the node read misses it. */
static void percpu_lags_until_fold(void **st)
{
	struct msim *m = node_host("node-stat=percpu", false, false);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_lruvec *la = msim_mem_cgroup_lruvec(m, a, 0);

	assert_true(msim_subsys_attached(m, msim_subsys_find("vmstat")));
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 0), 32);
	assert_int_equal(msim_mod_lruvec_state(la, MSIM_NR_FILE_PAGES, 10), 0);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_FILE_PAGES), 0);
	assert_int_equal(msim_node_stat_raw(m, 0, MSIM_NR_FILE_PAGES), 0);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 0, MSIM_NR_FILE_PAGES), 10);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, MSIM_NR_FILE_PAGES), 10);
	/* the memcg side is rstat's as before */
	msim_css_rstat_flush(msim_root_mem_cgroup(m));
	assert_int_equal(msim_lruvec_page_state(la, MSIM_NR_FILE_PAGES), 10);
	/* past the threshold the whole diff folds (mod form: |x| > 32) */
	assert_int_equal(msim_mod_node_page_state(m, 0, MSIM_NR_FILE_PAGES, 23), 0);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_FILE_PAGES), 33);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 0, MSIM_NR_FILE_PAGES), 0);
	msim_destroy(m);
}

/* Slab items: whole pages reach the node counter in pages and read back in bytes. */
static void percpu_slab_bytes(void **st)
{
	struct msim *m = node_host("node-stat=percpu", false, false);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_lruvec *la = msim_mem_cgroup_lruvec(m, a, 0);

	assert_int_equal(msim_mod_lruvec_state(la, MSIM_NR_SLAB_RECLAIMABLE_B, 1000), -EINVAL);
	assert_int_equal(msim_mod_lruvec_state(la, MSIM_NR_SLAB_RECLAIMABLE_B, 8192), 0);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 0, MSIM_NR_SLAB_RECLAIMABLE_B), 2);
	msim_vmstat_refresh(m);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_SLAB_RECLAIMABLE_B), 8192);
	assert_int_equal(msim_node_stat_raw(m, 0, MSIM_NR_SLAB_RECLAIMABLE_B), 8192);
	/* the refused write left the memcg untouched too */
	msim_css_rstat_flush(msim_root_mem_cgroup(m));
	assert_int_equal(msim_lruvec_page_state(la, MSIM_NR_SLAB_RECLAIMABLE_B), 8192);
	msim_destroy(m);
}

/* cfg.vmstat and percpu together attach vmstat once; by hand attaches it too. */
static void percpu_attach_paths(void **st)
{
	struct msim *m = node_host("node-stat=percpu", true, false);

	assert_true(msim_subsys_attached(m, msim_subsys_find("vmstat")));
	assert_int_equal(msim_mod_node_page_state(m, 0, MSIM_NR_FILE_PAGES, 40), 0);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_FILE_PAGES), 40);
	msim_destroy(m);
	m = node_host("node-stat=percpu", false, true);
	assert_true(msim_subsys_attached(m, msim_subsys_find("vmstat")));
	assert_int_equal(msim_mod_node_page_state(m, 0, MSIM_NR_FILE_PAGES, 5), 0);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, MSIM_NR_FILE_PAGES), 5);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_is_immediate),
		cmocka_unit_test(percpu_lags_until_fold),
		cmocka_unit_test(percpu_slab_bytes),
		cmocka_unit_test(percpu_attach_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
