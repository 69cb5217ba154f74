/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * Concurrent mode of the races (the tsan preset runs this file): the
 * toy-rcu-reader race's own tasks on real threads and liburcu
 * (`memcgsim race toy-rcu-reader --concurrent`), and a longer reader loop against
 * a writer that frees after synchronize_rcu. Both run under TSan and ASan.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "race_util.h"

struct conc {
	long *_Atomic gp;
	_Atomic long bad_reads;
	_Atomic int stop;
};

static void conc_reader(void *arg)
{
	struct conc *c = arg;

	for (int i = 0; i < 20000; i++) {
		msim_rcu_read_lock();
		long *p = __atomic_load_n(&c->gp, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(p, __ATOMIC_RELAXED) != 42)
			atomic_fetch_add(&c->bad_reads, 1);
		msim_rcu_read_unlock();
	}
}

static void conc_writer(void *arg)
{
	struct conc *c = arg;

	for (int i = 0; i < 200; i++) {
		long *n = malloc(sizeof(*n));
		if (!n)
			abort(); /* no cmocka assertion off the main thread */
		__atomic_store_n(n, 42, __ATOMIC_RELAXED);
		long *old = __atomic_exchange_n(&c->gp, n, __ATOMIC_ACQ_REL);
		msim_synchronize_rcu();
		__atomic_store_n(old, 0, __ATOMIC_RELAXED); /* would be seen if the GP were short */
		free(old);
	}
}

static void concurrent_liburcu_reader_vs_free(void **st)
{
	struct msim_config cfg;
	struct msim *m;
	struct conc c = { 0 };
	long *first = malloc(sizeof(*first));

	assert_non_null(first);
	*first = 42;
	c.gp = first;
	msim_config_init(&cfg);
	cfg.mode = MSIM_CONCURRENT;
	cfg.nr_cpus = 3;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	msim_task_create(m, "reader0", 0, conc_reader, &c);
	msim_task_create(m, "reader1", 1, conc_reader, &c);
	msim_task_create(m, "writer", 2, conc_writer, &c);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(atomic_load(&c.bad_reads), 0);
	free(c.gp);
	msim_destroy(m);
}

/* The race itself, its four tasks on real threads and liburcu, 100 times. */
static void concurrent_flavour_of_the_race(void **st)
{
	struct msim_race_opts o;
	struct msim_race_result *r = calloc(1, sizeof(*r));
	char err[256];

	assert_non_null(r);
	msim_race_opts_init(&o, MSIM_STRAT_SCRIPT);
	o.concurrent = true;
	assert_int_equal(msim_race_run_side(race_get("toy-rcu-reader"), "rcu", &o, r, err,
					    sizeof(err)), 0);
	assert_true(r->concurrent);
	assert_int_equal(r->ex.violations, 0);
	assert_true(r->behaved_as_expected);
	assert_int_equal(msim_race_verify(race_get("toy-rcu-reader"), r, err, sizeof(err)), 0);
	assert_int_equal(race_fig(r, "concurrent_runs"), 100);
	assert_int_equal(race_fig(r, "freed_object_reads"), 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_liburcu_reader_vs_free),
		cmocka_unit_test(concurrent_flavour_of_the_race),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
