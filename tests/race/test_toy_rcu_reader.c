/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * toy-rcu-reader: a reader parked inside a read-side section while a writer
 * unpublishes and frees.
 *
 *   CPU 0 (reader)                  CPU 1 (writer)
 *   --------------                  --------------
 *   rcu_read_lock()
 *   p = rcu_dereference(gp)
 *                                   rcu_assign_pointer(gp, new)
 *                                   synchronize_rcu()   ... blocks
 *   read p->value   (live)
 *   rcu_read_unlock()
 *                                   (grace period ends) free(old)
 *
 * Deterministic side: the free waits for the reader in every explored schedule,
 * including those where the grace period ends as early as the rules allow, and
 * nothing deadlocks. The bad side is shown with a writer that skips the grace
 * period: the explorer catches the reader reading freed memory, so the check can
 * fail. Concurrent side: the scenario's own tasks on real threads and liburcu
 * (`memcgsim race toy-rcu-reader --concurrent`), plus a longer reader loop
 * against a freeing writer; both run under TSan and ASan.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "race_util.h"

static void script_free_waits_for_reader(void **st)
{
	struct msim_race_result *r = race_run("toy-rcu-reader", MSIM_STRAT_SCRIPT, 0, 0, NULL, NULL);

	assert_false(r->rep.violated);
	assert_true(race_fig(r, "writer_blocked_while_reader_inside"));
	assert_false(race_fig(r, "grace_period_ended_early"));
	free(r);
}

static void explorers_never_see_freed_memory(void **st)
{
	enum msim_strategy s[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT, MSIM_STRAT_DFS };
	unsigned int budget[] = { 500, 500, 3000 };

	for (int i = 0; i < 3; i++) {
		struct msim_race_result *r = race_run("toy-rcu-reader", s[i], budget[i], 7, NULL, NULL);
		assert_int_equal(r->ex.violations, 0);
		assert_false(r->ex.deadlocked);
		assert_true(r->behaved_as_expected);
		free(r);
	}
}

/* ---- the buggy writer: frees without waiting for a grace period ---- */

struct bad {
	long *gp;
	long seen;
};

static void bad_reader(void *arg)
{
	struct bad *b = arg;

	msim_rcu_read_lock();
	long *p = msim_rcu_dereference((void *const *)&b->gp);
	msim_yield("reader.inside");
	b->seen = *p;
	msim_rcu_read_unlock();
}

static void bad_writer(void *arg)
{
	struct bad *b = arg;
	long *old = msim_rcu_dereference((void *const *)&b->gp);
	static long fresh = 1;

	msim_rcu_assign_pointer((void **)&b->gp, &fresh);
	msim_yield("writer.free");
	*old = 0xdead; /* "free" without synchronize_rcu */
}

static long bad_obj = 1;
static struct bad bad_state;

static int bad_setup(struct msim *m, void **state, void *arg)
{
	bad_obj = 1;
	bad_state.gp = &bad_obj;
	bad_state.seen = 0;
	msim_task_create(m, "reader", 0, bad_reader, &bad_state);
	msim_task_create(m, "writer", 1, bad_writer, &bad_state);
	*state = &bad_state;
	return 0;
}

static bool bad_check(struct msim *m, void *state, char *why, size_t len)
{
	snprintf(why, len, "reader saw %#lx", bad_state.seen);
	return bad_state.seen != 1;
}

static void missing_grace_period_is_caught(void **st)
{
	struct msim_explore_target t = { .name = "bad", .setup = bad_setup, .check = bad_check };
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_DFS, .runs = 100, .preemptions = 1 };
	struct msim_explore_result r;
	struct msim_config cfg;

	msim_config_init(&cfg);
	assert_int_equal(msim_explore(&t, &cfg, &o, &r), 0);
	assert_true(r.violations > 0);
	assert_non_null(strstr(r.why, "0xdead"));
}

/* ---- concurrent mode: liburcu ---- */

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

/* The scenario itself, its four tasks on real threads and liburcu (TSan, ASan). */
static void concurrent_flavour_of_the_scenario(void **st)
{
	struct msim_race_opts o = { .strategy = MSIM_STRAT_SCRIPT, .concurrent = true,
				    .preemptions = (unsigned int)-1 };
	struct msim_config cfg;
	struct msim_race_result *r;

	msim_config_init(&cfg);
	r = race_run_cfg("toy-rcu-reader", &cfg, &o);
	assert_true(r->concurrent);
	assert_int_equal(r->ex.violations, 0);
	assert_true(r->behaved_as_expected);
	assert_int_equal(race_fig(r, "concurrent_runs"), 100);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_free_waits_for_reader),
		cmocka_unit_test(explorers_never_see_freed_memory),
		cmocka_unit_test(missing_grace_period_is_caught),
		cmocka_unit_test(concurrent_liburcu_reader_vs_free),
		cmocka_unit_test(concurrent_flavour_of_the_scenario),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
