/* SPDX-License-Identifier: MIT */
/*
 * msim_rstat_init() on a host already attached (explicitly or lazily) updates
 * the tunables, the periodic 2 s root flush included.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/memcgsim.h>

static uint64_t periodic_after(struct msim *m, uint64_t ticks)
{
	struct msim_rstat_counters c;

	msim_rstat_counters_reset(m);
	msim_clock_advance(m, ticks);
	msim_rstat_counters(m, &c);
	return c.periodic_flushes;
}

static void reinit_switches_the_periodic_flush(void **st)
{
	struct msim_config cfg;
	struct msim *m;
	struct msim_rstat_params p;

	msim_config_init(&cfg);
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	assert_int_equal(msim_rstat_init(m, NULL), 0);
	assert_int_equal(periodic_after(m, 4 * cfg.hz), 2);   /* at 2 s and 4 s */
	msim_rstat_params_init(&p);
	p.periodic_flush = false;
	assert_int_equal(msim_rstat_init(m, &p), 0);
	assert_int_equal(periodic_after(m, 6 * cfg.hz), 0);
	p.periodic_flush = true;
	assert_int_equal(msim_rstat_init(m, &p), 0);
	assert_true(periodic_after(m, 6 * cfg.hz) >= 2);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reinit_switches_the_periodic_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
