/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the simulated machine: configuration errors, tasks and CPUs,
 * scripted control, schedule strings, replay, the deterministic RCU model,
 * locks, the virtual clock and the variant table.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

static struct msim *host(unsigned int cpus)
{
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	return m;
}

static void config_errors_name_the_field(void **st)
{
	struct msim_config cfg;
	struct msim *m = (struct msim *)1;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = 0;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), -EINVAL);
	assert_null(m);
	assert_non_null(strstr(err, "nr_cpus 0"));
	cfg.nr_cpus = 1025;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "1..1024"));
	cfg.nr_cpus = 2;
	cfg.nr_nodes = 4;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "nr_nodes"));
	cfg.nr_nodes = 65;
	cfg.nr_cpus = 1024;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	cfg.nr_nodes = 64;
	cfg.hz = 0;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "hz"));
	cfg.hz = 250;
	cfg.cgroup_version = 3;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	cfg.cgroup_version = MSIM_CGROUP_V1;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), 0);
	assert_int_equal(msim_config_validate(NULL, err, sizeof(err)), -EINVAL);
}

static void noop(void *arg) { }

static void task_on_bad_cpu_is_refused(void **st)
{
	struct msim *m = host(2);

	errno = 0;
	assert_null(msim_task_create(m, "x", 2, noop, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(msim_task_create(m, "x", 0, NULL, NULL));
	msim_destroy(m);
}

static int order[8], nr_order;

static void record(void *arg)
{
	msim_yield("a");
	order[nr_order++] = (int)(intptr_t)arg;
	msim_yield("b");
}

/* A CPU runs its tasks one after the other: the second cannot start first. */
static void one_task_per_cpu_at_a_time(void **st)
{
	struct msim *m = host(2);
	struct msim_task *a = msim_task_create(m, "a", 1, record, (void *)1);
	struct msim_task *b = msim_task_create(m, "b", 1, record, (void *)2);

	nr_order = 0;
	assert_int_equal(msim_run_until(m, b, "a", 1), -EDEADLK);
	assert_int_equal(msim_run_until(m, a, "b", 1), 0);
	assert_int_equal(msim_run_until(m, b, "a", 1), -EDEADLK);
	assert_int_equal(msim_run_task(m, a), 0);
	assert_int_equal(msim_run_until(m, b, "b", 1), 0);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(nr_order, 2);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(msim_this_cpu(), 0);
	msim_destroy(m);
}

static unsigned int cpu_seen;
static struct msim_task *task_seen;

static void where(void *arg)
{
	cpu_seen = msim_this_cpu();
	task_seen = msim_current_task();
}

static void this_cpu_is_the_task_cpu(void **st)
{
	struct msim *m = host(8);
	struct msim_task *t = msim_task_create(m, "w", 5, where, NULL);

	assert_int_equal(msim_run(m), 0);
	assert_int_equal(cpu_seen, 5);
	assert_ptr_equal(task_seen, t);
	assert_null(msim_current_task()); /* the driver is no task */
	assert_string_equal(msim_task_name(t), "w");
	assert_int_equal(msim_task_cpu(t), 5);
	assert_true(msim_task_done(t));
	msim_destroy(m);
}

static void three_points(void *arg)
{
	for (int i = 0; i < 3; i++)
		msim_yield("p");
}

static void run_until_counts_from_the_call(void **st)
{
	struct msim *m = host(2);
	struct msim_task *t = msim_task_create(m, "u", 1, three_points, NULL);

	assert_int_equal(msim_run_until(m, t, "p", 2), 0);   /* parked at the 2nd point */
	assert_string_equal(msim_task_parked_at(t), "p");
	assert_int_equal(msim_run_until(m, t, "p", 1), 0);   /* the 3rd */
	assert_int_equal(msim_run_until(m, t, "p", 1), -ESRCH); /* no 4th: it exits */
	assert_true(msim_task_done(t));
	assert_null(msim_task_parked_at(t));
	assert_int_equal(msim_run_until(m, t, "p", 0), -EINVAL);
	assert_int_equal(msim_sched_steps(m), 4);
	msim_destroy(m);
}

/*
 * The step cap (msim_sched_opts.max_steps) is per run: a host that runs many
 * short runs (a bench's loop) is never cut for the steps of the runs before;
 * a run longer than the cap is.
 */
static void step_cap_counts_one_run(void **st)
{
	struct msim *m = host(2);
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_SCRIPT, .max_steps = 6 };

	assert_int_equal(msim_sched_set(m, &o), 0);
	for (int run = 0; run < 4; run++) {
		msim_task_create(m, "short", 1, three_points, NULL);   /* 4 steps */
		assert_int_equal(msim_run(m), 0);
	}
	assert_int_equal(msim_sched_steps(m), 16);
	msim_task_create(m, "long", 1, three_points, NULL);
	msim_task_create(m, "long2", 0, three_points, NULL);    /* 8 steps: past the cap */
	assert_int_equal(msim_run(m), -E2BIG);
	msim_destroy(m);
}

static void bad_schedule_strings_are_refused(void **st)
{
	const char *bad[] = { "x", "0*", "0*0", "1..2", "R*", "-1", "0.1x" };
	struct msim *m = host(2);
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_REPLAY };

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.schedule = bad[i];
		assert_int_equal(msim_sched_set(m, &o), -EINVAL);
	}
	o.schedule = "s:0*3.1.R.0";
	assert_int_equal(msim_sched_set(m, &o), 0);
	o.schedule = NULL;
	assert_int_equal(msim_sched_set(m, &o), -EINVAL);
	msim_destroy(m);
	enum msim_strategy s;
	assert_int_equal(msim_strategy_parse("pct", &s), 0);
	assert_int_equal(s, MSIM_STRAT_PCT);
	assert_int_equal(msim_strategy_parse("bogus", &s), -EINVAL);
}

/* ---- RCU, deterministic ---- */

static int rcu_phase;

static void reader(void *arg)
{
	msim_rcu_read_lock();
	msim_yield("inside");
	rcu_phase = 1;
	msim_rcu_read_unlock();
}

/* Tasks record what they saw; the driver asserts (cmocka must not longjmp off a
 * coroutine stack). */
static int phase_seen_by_syncer;

static void syncer(void *arg)
{
	msim_synchronize_rcu();
	phase_seen_by_syncer = rcu_phase; /* 1: the reader left before the GP ended */
	rcu_phase = 2;
}

static void grace_period_waits_for_parked_reader(void **st)
{
	struct msim *m = host(2);
	struct msim_task *r = msim_task_create(m, "reader", 0, reader, NULL);
	struct msim_task *s = msim_task_create(m, "sync", 1, syncer, NULL);

	rcu_phase = 0;
	assert_int_equal(msim_run_until(m, r, "inside", 1), 0);
	msim_step(m, s, 10);
	assert_false(msim_task_done(s));
	assert_false(msim_rcu_step(m));                 /* the reader is inside */
	assert_int_equal(msim_run_until(m, s, "x", 1), -EDEADLK); /* blocked on the GP */
	assert_int_equal(msim_run_task(m, r), 0);
	assert_true(msim_rcu_step(m));                  /* now it may end */
	assert_int_equal(msim_run_task(m, s), 0);
	assert_int_equal(phase_seen_by_syncer, 1);
	assert_int_equal(rcu_phase, 2);
	assert_int_equal(msim_run(m), 0);
	msim_destroy(m);
}

static int cb_order[4], nr_cb;
static struct msim_rcu_head heads[3];

static void cb(struct msim_rcu_head *h)
{
	cb_order[nr_cb++] = (int)(h - heads);
}

static int cbs_after_barrier;

static void queue_three(void *arg)
{
	for (int i = 0; i < 3; i++)
		msim_call_rcu(&heads[i], cb);
	msim_rcu_barrier();
	cbs_after_barrier = nr_cb;
}

static void callbacks_run_in_order_after_barrier(void **st)
{
	struct msim *m = host(2);

	nr_cb = 0;
	msim_task_create(m, "q", 0, queue_three, NULL);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(cbs_after_barrier, 3);
	assert_int_equal(nr_cb, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(cb_order[i], i);
	/* From the driver too. */
	nr_cb = 0;
	msim_call_rcu(&heads[0], cb);
	assert_int_equal(nr_cb, 0);
	msim_rcu_barrier();
	assert_int_equal(nr_cb, 1);
	msim_destroy(m);
}

/* ---- locks ---- */

static struct msim_lock L;
static int in_cs, max_in_cs, not_held;

static void locker(void *arg)
{
	for (int i = 0; i < 3; i++) {
		msim_lock(&L);
		not_held += !msim_lock_held_by_me(&L);
		in_cs++;
		if (in_cs > max_in_cs)
			max_in_cs = in_cs;
		msim_yield("cs");
		in_cs--;
		msim_unlock(&L);
	}
}

static void lock_excludes_under_every_strategy(void **st)
{
	enum msim_strategy strat[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT };

	for (int s = 0; s < 2; s++) {
		for (uint64_t seed = 0; seed < 50; seed++) {
			struct msim *m = host(3);
			struct msim_sched_opts o = { .strategy = strat[s], .seed = seed, .pct_depth = 3 };
			msim_lock_init(&L, "L");
			in_cs = max_in_cs = not_held = 0;
			for (unsigned int c = 0; c < 3; c++)
				msim_task_create(m, "locker", c, locker, NULL);
			assert_int_equal(msim_sched_set(m, &o), 0);
			assert_int_equal(msim_run(m), 0);
			assert_int_equal(max_in_cs, 1);
			assert_int_equal(not_held, 0);
			msim_lock_destroy(&L);
			msim_destroy(m);
		}
	}
}

/* ---- replay ---- */

static long shared;

static void bumper(void *arg)
{
	for (int i = 0; i < 4; i++) {
		long v = msim_read_once(&shared);
		msim_write_once(&shared, v + (long)(intptr_t)arg);
	}
}

static void replay_reproduces_trace(void **st)
{
	for (uint64_t seed = 1; seed < 20; seed++) {
		struct msim *m = host(2);
		struct msim_sched_opts o = { .strategy = MSIM_STRAT_RANDOM, .seed = seed };
		shared = 0;
		msim_task_create(m, "a", 0, bumper, (void *)1);
		msim_task_create(m, "b", 1, bumper, (void *)100);
		assert_int_equal(msim_sched_set(m, &o), 0);
		assert_int_equal(msim_run(m), 0);
		long result = shared;
		uint64_t hash = msim_sched_trace_hash(m);
		char *str = strdup(msim_schedule_string(m));
		msim_destroy(m);

		m = host(2);
		shared = 0;
		msim_task_create(m, "a", 0, bumper, (void *)1);
		msim_task_create(m, "b", 1, bumper, (void *)100);
		o.strategy = MSIM_STRAT_REPLAY;
		o.schedule = str;
		assert_int_equal(msim_sched_set(m, &o), 0);
		assert_int_equal(msim_run(m), 0);
		assert_int_equal(shared, result);
		assert_true(msim_sched_trace_hash(m) == hash);
		assert_string_equal(msim_schedule_string(m), str);
		assert_false(msim_sched_replay_diverged(m));
		msim_destroy(m);
		free(str);
	}
}

static void env_schedule_overrides_strategy(void **st)
{
	struct msim *m = host(2);
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_RANDOM, .seed = 3 };

	shared = 0;
	msim_task_create(m, "a", 0, bumper, (void *)1);
	msim_task_create(m, "b", 1, bumper, (void *)100);
	setenv("MSIM_SCHEDULE", "1*9.0*9", 1);
	assert_int_equal(msim_sched_set(m, &o), 0);
	unsetenv("MSIM_SCHEDULE");
	assert_int_equal(msim_run(m), 0);
	assert_string_equal(msim_schedule_string(m), "1*9.0*9");
	assert_int_equal(shared, 404);
	msim_destroy(m);
}

/* ---- clock ---- */

static uint64_t fired_at[8];
static int nr_fired;

static void periodic(struct msim_delayed_work *dw)
{
	struct msim *m = dw->data;

	fired_at[nr_fired++] = msim_jiffies(m);
	if (nr_fired < 3)
		msim_queue_delayed_work(m, dw, 2000);
}

static void delayed_work_fires_on_the_virtual_clock(void **st)
{
	struct msim *m = host(1);
	struct msim_delayed_work dw, other;

	nr_fired = 0;
	msim_init_delayed_work(&dw, periodic, m);
	msim_init_delayed_work(&other, periodic, m);
	assert_true(msim_queue_delayed_work(m, &dw, 2000));
	assert_false(msim_queue_delayed_work(m, &dw, 10));
	msim_clock_advance(m, 1999);
	assert_int_equal(nr_fired, 0);
	msim_clock_advance(m, 3000);            /* to 4999: fires at 2000 and 4000 */
	assert_int_equal(nr_fired, 2);
	assert_int_equal(fired_at[0], 2000);
	assert_int_equal(fired_at[1], 4000);
	assert_int_equal(msim_jiffies(m), 4999);
	assert_true(msim_cancel_delayed_work(m, &dw));
	assert_false(msim_cancel_delayed_work(m, &other));
	msim_clock_advance(m, 10000);
	assert_int_equal(nr_fired, 2);
	msim_destroy(m);
}

/* ---- variants ---- */

static void variant_table_and_presets(void **st)
{
	struct msim_variants v;
	char err[512];

	msim_variants_init(&v);
	assert_string_equal(msim_variant_get(&v, "rstat-propagate"), "break");
	assert_int_equal(msim_variant_set(&v, "rstat-propagate=continue", err, sizeof(err)), 0);
	assert_int_equal(msim_variant_value(&v, "rstat-propagate"), MSIM_RSTAT_PROPAGATE_CONTINUE);
	assert_int_equal(msim_variant_set(&v, "shrinker-info=xarray", err, sizeof(err)), 0);
	assert_int_equal(msim_variant_value(&v, "shrinker-info"), MSIM_SHRINKER_INFO_XARRAY);
	assert_int_equal(msim_variant_set(&v, "nope=1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rstat-propagate"));
	assert_int_equal(msim_variant_set(&v, "shrinker-info=list", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "array-on-demand"));
	assert_int_equal(msim_variant_set(&v, "noequals", err, sizeof(err)), -EINVAL);
	assert_int_equal(msim_preset_apply(&v, "mainline", err, sizeof(err)), 0);
	assert_int_equal(msim_variant_value(&v, "rstat-propagate"), MSIM_RSTAT_PROPAGATE_BREAK);
	assert_int_equal(msim_preset_apply(&v, "thread-004", err, sizeof(err)), 0);
	assert_int_equal(msim_variant_value(&v, "rstat-propagate"), MSIM_RSTAT_PROPAGATE_CONTINUE);
	assert_int_equal(msim_preset_apply(&v, "thread-999", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "thread-004"));
	char buf[512];
	msim_variants_format(&v, buf, sizeof(buf));
	assert_non_null(strstr(buf, "rstat-propagate=continue"));
	const struct msim_variant_desc *rows[MSIM_MAX_VARIANTS];
	unsigned int nrows = msim_variant_list(rows, MSIM_MAX_VARIANTS);

	assert_true(nrows > 0 && nrows <= MSIM_MAX_VARIANTS);
	for (unsigned int i = 0; i < nrows; i++) {
		assert_non_null(rows[i]->values[0]);
		assert_non_null(rows[i]->meaning);
		assert_non_null(rows[i]->thread);
	}
}

/* The typed setter takes the layer's enum, and refuses what the row does not have. */
static void variant_set_value_checks(void **st)
{
	struct msim_variants v;

	(void)st;
	msim_variants_init(&v);
	assert_int_equal(
		msim_variant_set_value(&v, "dying-redirect", MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING),
		0);
	assert_string_equal(msim_variant_get(&v, "dying-redirect"), "all-rcu-on-dying");
	assert_int_equal(msim_variant_value(&v, "dying-redirect"),
			 MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING);
	/* three values: 3 is past them, and the value is left as it was */
	assert_int_equal(msim_variant_set_value(&v, "dying-redirect", 3), -EINVAL);
	assert_int_equal(msim_variant_set_value(&v, "dying-redirect", -1), -EINVAL);
	assert_int_equal(msim_variant_value(&v, "dying-redirect"),
			 MSIM_DYING_REDIRECT_ALL_RCU_ON_DYING);
	assert_int_equal(msim_variant_set_value(&v, "no-such", 0), -EINVAL);
	assert_int_equal(msim_variant_value(&v, "no-such"), -EINVAL);
	assert_null(msim_variant_get(&v, "no-such"));
	/* another layer's row keeps its own slot */
	assert_string_equal(msim_variant_get(&v, "shrinker-info"), "array");
}

/* Every preset names only registered rows and values: each applies whole. */
static void every_preset_applies(void **st)
{
	struct msim_variants v;
	char err[512];

	(void)st;
	for (const struct msim_preset_desc *p = msim_preset_table(); p->name; p++) {
		err[0] = '\0';
		assert_int_equal(msim_preset_apply(&v, p->name, err, sizeof(err)), 0);
		assert_string_equal(err, "");
	}
	assert_int_equal(msim_preset_apply(&v, "linux-6.12", err, sizeof(err)), 0);
	assert_int_equal(msim_variant_value(&v, "memcg-layout"), MSIM_MEMCG_LAYOUT_LINUX_6_12);
	assert_int_equal(msim_variant_value(&v, "mglru-protection"), MSIM_MGLRU_PROTECTION_6_12);
	assert_int_equal(msim_variant_value(&v, "rstat-propagate"),
			 MSIM_RSTAT_PROPAGATE_SKIP_ATOMIC);
}

/* ---- regressions from the review of the scheduler ---- */

static long shared2;

static void bumper_task(void *arg)
{
	for (int i = 0; i < 3; i++) {
		long v = msim_read_once(&shared2);
		msim_write_once(&shared2, v + 1);
	}
}

static int two_bumpers(struct msim *m, void **state, void *arg)
{
	shared2 = 0;
	msim_task_create(m, "a", 0, bumper_task, NULL);
	msim_task_create(m, "b", 1, bumper_task, NULL);
	return 0;
}

static bool lost(struct msim *m, void *state, char *why, size_t len)
{
	snprintf(why, len, "%ld", shared2);
	return shared2 != 6;
}

/* PCT run i depends on seed + i only: exploring one run with that seed repeats it. */
static void pct_run_reproduced_by_its_seed(void **st)
{
	struct msim_explore_target t = { .name = "bumpers", .setup = two_bumpers, .check = lost };
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_PCT, .seed = 1, .runs = 50,
				       .pct_depth = 2 };
	struct msim_explore_result r, one;
	struct msim_config cfg;

	msim_config_init(&cfg);
	assert_int_equal(msim_explore(&t, &cfg, &o, &r), 0);
	assert_true(r.first_violation_run >= 1); /* run 0 is the un-preempted order */
	o.seed = r.first_violation_seed;
	o.runs = 1;
	assert_int_equal(msim_explore(&t, &cfg, &o, &one), 0);
	assert_int_equal(one.violations, 1);
	assert_string_equal(one.schedule, r.schedule);
	assert_true(one.trace_hash == r.trace_hash);
}

static struct msim_delayed_work spin;
static int spins;

static void requeue_now(struct msim_delayed_work *dw)
{
	if (++spins < 1000)
		msim_queue_delayed_work(dw->data, dw, 0);
}

static void delay_zero_means_next_tick(void **st)
{
	struct msim *m = host(1);

	spins = 0;
	msim_init_delayed_work(&spin, requeue_now, m);
	msim_queue_delayed_work(m, &spin, 0);
	msim_clock_advance(m, 5);           /* ticks 1..5: once per tick, no spinning */
	assert_int_equal(spins, 5);
	assert_int_equal(msim_jiffies(m), 5);
	msim_cancel_delayed_work(m, &spin);
	msim_destroy(m);
}

static void advance_by(void *arg)
{
	msim_clock_advance(msim_current_host(), (uint64_t)(intptr_t)arg);
}

static struct msim_delayed_work slow;
static void yielding_work(struct msim_delayed_work *dw)
{
	msim_yield("work.inside");
}

static void clock_never_goes_back(void **st)
{
	struct msim *m = host(2);
	struct msim_task *a = msim_task_create(m, "a", 0, advance_by, (void *)10);
	struct msim_task *b = msim_task_create(m, "b", 1, advance_by, (void *)100);

	msim_init_delayed_work(&slow, yielding_work, m);
	msim_queue_delayed_work(m, &slow, 5);
	assert_int_equal(msim_run_until(m, a, "work.inside", 1), 0); /* a is inside the work at 5 */
	assert_int_equal(msim_run_task(m, b), 0);                    /* b takes the clock to 105 */
	assert_int_equal(msim_run_task(m, a), 0);                    /* a's target was 10 */
	assert_int_equal(msim_jiffies(m), 105);
	msim_destroy(m);
}

static void late_task_under_pct(void **st)
{
	struct msim *m = host(2);
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_PCT, .seed = 3, .pct_depth = 3 };

	shared2 = 0;
	msim_task_create(m, "a", 0, bumper_task, NULL);
	assert_int_equal(msim_sched_set(m, &o), 0);
	msim_task_create(m, "late", 1, bumper_task, NULL); /* after the priorities were drawn */
	assert_int_equal(msim_run(m), 0);
	assert_true(shared2 >= 3 && shared2 <= 6);
	msim_destroy(m);
}

static void refused_setting_keeps_the_old_one(void **st)
{
	struct msim *m = host(2);
	struct msim_sched_opts bad = { .strategy = MSIM_STRAT_PCT, .pct_depth = 100000 };
	struct msim_sched_opts huge = { .strategy = MSIM_STRAT_REPLAY,
					.schedule = "0*1000000000.1*1000000000" };

	msim_task_create(m, "a", 0, bumper_task, NULL);
	msim_task_create(m, "b", 1, bumper_task, NULL);
	assert_int_equal(msim_sched_set(m, &bad), -EINVAL);
	/* Long runs are kept as (pick, count) pairs, not expanded. */
	assert_int_equal(msim_sched_set(m, &huge), 0);
	huge.schedule = "2";                       /* names a task the host does not have */
	assert_int_equal(msim_sched_set(m, &huge), -EINVAL);
	huge.schedule = "0* 5";
	assert_int_equal(msim_sched_set(m, &huge), -EINVAL);
	huge.schedule = "4294967295";
	assert_int_equal(msim_sched_set(m, &huge), -EINVAL);
	msim_destroy(m);
}

static void divergence_is_reported(void **st)
{
	const char *strings[] = { "0*3", "0*7.1*7.0*5" };

	for (int i = 0; i < 2; i++) {
		struct msim *m = host(2);
		struct msim_sched_opts o = { .strategy = MSIM_STRAT_REPLAY, .schedule = strings[i] };
		msim_task_create(m, "a", 0, bumper_task, NULL);
		msim_task_create(m, "b", 1, bumper_task, NULL);
		assert_int_equal(msim_sched_set(m, &o), 0);
		assert_int_equal(msim_run(m), 0);
		assert_true(msim_sched_replay_diverged(m)); /* too short; picks left over */
		msim_destroy(m);
	}
}

static void scripted_control_refuses_misuse(void **st)
{
	struct msim *a = host(2), *b = host(2);
	struct msim_task *tb = msim_task_create(b, "tb", 0, bumper_task, NULL);

	assert_int_equal(msim_run_task(a, tb), -EINVAL);
	assert_int_equal(msim_run_until(a, tb, "x", 1), -EINVAL);
	assert_int_equal(msim_step(a, tb, 3), 0);
	assert_int_equal(msim_run_task(b, tb), 0);
	msim_destroy(a);
	msim_destroy(b);
}

static void parked_reader(void *arg)
{
	msim_rcu_read_lock();
	msim_yield("parked");
	msim_rcu_read_unlock();
}

static void barrier_dtor(struct msim *m, void *arg)
{
	msim_rcu_barrier();  /* must not abort on a reader that will never run again */
	msim_synchronize_rcu();
	*(int *)arg = 1;
}

static void destroy_releases_parked_readers(void **st)
{
	struct msim *m = host(2);
	struct msim_task *t = msim_task_create(m, "r", 0, parked_reader, NULL);
	int ran = 0;

	assert_int_equal(msim_host_on_destroy(m, barrier_dtor, &ran), 0);
	assert_int_equal(msim_run_until(m, t, "parked", 1), 0);
	msim_destroy(m);
	assert_int_equal(ran, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(config_errors_name_the_field),
		cmocka_unit_test(task_on_bad_cpu_is_refused),
		cmocka_unit_test(one_task_per_cpu_at_a_time),
		cmocka_unit_test(this_cpu_is_the_task_cpu),
		cmocka_unit_test(run_until_counts_from_the_call),
		cmocka_unit_test(step_cap_counts_one_run),
		cmocka_unit_test(bad_schedule_strings_are_refused),
		cmocka_unit_test(grace_period_waits_for_parked_reader),
		cmocka_unit_test(callbacks_run_in_order_after_barrier),
		cmocka_unit_test(lock_excludes_under_every_strategy),
		cmocka_unit_test(replay_reproduces_trace),
		cmocka_unit_test(env_schedule_overrides_strategy),
		cmocka_unit_test(delayed_work_fires_on_the_virtual_clock),
		cmocka_unit_test(variant_table_and_presets),
		cmocka_unit_test(variant_set_value_checks),
		cmocka_unit_test(every_preset_applies),
		cmocka_unit_test(pct_run_reproduced_by_its_seed),
		cmocka_unit_test(delay_zero_means_next_tick),
		cmocka_unit_test(clock_never_goes_back),
		cmocka_unit_test(late_task_under_pct),
		cmocka_unit_test(refused_setting_keeps_the_old_one),
		cmocka_unit_test(divergence_is_reported),
		cmocka_unit_test(scripted_control_refuses_misuse),
		cmocka_unit_test(destroy_releases_parked_readers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
