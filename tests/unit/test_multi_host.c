/* SPDX-License-Identifier: MIT */
/*
 * Several hosts in one process (benches run designs side by side): the driver's
 * current host follows msim_create() and the memcg entry points, so RCU work of
 * one host never runs on another host's engine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/memcgsim.h>

static struct msim *host(void)
{
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	assert_ptr_equal(msim_current_host(), m); /* the newest host is current */
	return m;
}

static void rmdir_on_a_host_that_is_not_the_newest(void **st)
{
	struct msim *a = host();
	struct msim_memcg *ca, *cb;

	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(a), "a", &ca), 0);
	struct msim *b = host();
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(b), "b", &cb), 0);
	assert_ptr_equal(msim_current_host(), b);

	/* Removing a's child makes a current: its grace period ends on a's engine. */
	assert_int_equal(msim_memcg_rmdir(ca), 0);
	assert_ptr_equal(msim_current_host(), a);
	msim_memcg_drain(a);
	struct msim_memcg_counts na, nb;
	msim_memcg_counts(a, &na);
	msim_memcg_counts(b, &nb);
	assert_int_equal(na.online, 1);   /* root only */
	assert_int_equal(na.freed_total, 1);
	assert_int_equal(nb.online, 2);   /* b untouched */
	assert_int_equal(nb.freed_total, 0);

	assert_int_equal(msim_memcg_rmdir(cb), 0);
	assert_ptr_equal(msim_current_host(), b);
	msim_destroy(a);
	msim_destroy(b);
	assert_null(msim_current_host());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rmdir_on_a_host_that_is_not_the_newest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
