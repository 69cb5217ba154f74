/* SPDX-License-Identifier: MIT */
/*
 * The model's own lock nesting under the lock-order checker (lockdep.h), where
 * no registered race reaches it: reparenting a memcg's list_lru at offline takes
 * the child's list_lru_one and then the parent's, two locks of one class, which
 * the kernel annotates with spin_lock_nested() (memcg_reparent_list_lru_one()).
 * Recorded as list_lru_one -> list_lru_one/1, no report. (LRU reparenting's
 * objcg_lock -> lru_lock/1 -> lru_lock/2 is in the races: test_lockdep_races.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/memcgsim.h>

#include "unit_util.h"

struct obj {
	struct msim_list_head lru;
};

static unsigned long empty_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	return MSIM_SHRINK_EMPTY;
}

static unsigned long no_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	return 0;
}

static void list_lru_reparent_nests(void **state)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct msim_config cfg = unit_config(2, 1);
	struct msim_list_lru lru = { 0 };
	struct msim_shrinker *s;
	struct msim_memcg *c;
	struct obj o;
	struct msim *m;

	(void)state;
	cfg.lockdep = ld;
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_shrinker_init(m), 0);
	assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "t", &s), 0);
	s->count_objects = empty_count;
	s->scan_objects = no_scan;
	assert_int_equal(msim_shrinker_register(s), 0);
	assert_int_equal(msim_list_lru_init(m, &lru, true, s), 0);
	c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	assert_int_equal(msim_memcg_list_lru_alloc(c, &lru), 0);
	msim_init_list_head(&o.lru);
	assert_true(msim_list_lru_add(&lru, &o.lru, 0, c));
	assert_int_equal(msim_memcg_rmdir(c), 0);      /* offline: the lists move to root */
	assert_int_equal(msim_list_lru_count_one(&lru, 0, msim_root_mem_cgroup(m)), 1);
	assert_true(msim_lockdep_depends(ld, "list_lru_one", "list_lru_one"));
	assert_int_equal(msim_lockdep_nr_reports(ld), 0);
	assert_true(msim_list_lru_del(&lru, &o.lru, 0, msim_root_mem_cgroup(m)));
	msim_list_lru_destroy(&lru);
	msim_shrinker_free(s);
	msim_destroy(m);
	msim_lockdep_destroy(ld);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(list_lru_reparent_nests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
