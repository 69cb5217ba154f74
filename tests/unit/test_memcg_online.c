/* SPDX-License-Identifier: MIT */
/*
 * mem_cgroup_online() follows CSS_ONLINE, which offline_css() clears only after
 * the css_offline hooks: a memcg that rmdir has marked dying is still online for
 * its whole grace period (shrink_slab_memcg still shrinks it then, race S4),
 * while css_tryget_online() already fails.
 *
 *   CPU 0 (rmdir c)                 CPU 1 (reader)
 *   ---------------                 --------------
 *                                   rcu_read_lock()
 *   CSS_DYING set
 *   synchronize_rcu() ... waits     (c: dying, online, tryget_online fails)
 *                                   rcu_read_unlock()
 *   css_offline hooks, CSS_ONLINE cleared (c: offline)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/memcgsim.h>

static struct msim_memcg *victim;
static int rmdir_ret = 1;

static void do_rmdir(void *arg)
{
	rmdir_ret = msim_memcg_rmdir(victim);
}

static void reader(void *arg)
{
	msim_rcu_read_lock();
	msim_yield("reader.inside");
	msim_rcu_read_unlock();
}

static void dying_memcg_is_online_until_offline(void **st)
{
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "c", &victim), 0);
	msim_css_get(victim);
	struct msim_task *r = msim_task_create(m, "reader", 1, reader, NULL);
	struct msim_task *t = msim_task_create(m, "rmdir", 0, do_rmdir, NULL);

	assert_int_equal(msim_run_until(m, r, "reader.inside", 1), 0);
	msim_step(m, t, 1000);                 /* until it blocks in synchronize_rcu */
	assert_false(msim_task_done(t));
	assert_true(msim_css_is_dying(victim));
	assert_int_equal(msim_memcg_state(victim), MSIM_MEMCG_DYING);
	assert_true(msim_mem_cgroup_online(victim));
	assert_false(msim_css_tryget_online(victim));

	assert_int_equal(msim_run_task(m, r), 0);
	assert_true(msim_rcu_step(m));
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(rmdir_ret, 0);
	assert_int_equal(msim_memcg_state(victim), MSIM_MEMCG_OFFLINE);
	assert_false(msim_mem_cgroup_online(victim));
	msim_css_put(victim);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dying_memcg_is_online_until_offline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
