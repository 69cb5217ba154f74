/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the preemption model (sim.h: enum msim_preempt_model, yield.h):
 * under preempt=none a task parked between two scheduling points holds off a
 * grace period exactly as an RCU reader does and keeps its CPU; voluntary points
 * (cond_resched, a sleeping wait, the end) release both; under preempt=full only
 * spinlocks and preempt_disable regions do; under unmodelled (the default)
 * nothing does, and a CPU runs its tasks one after the other as before.
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

static struct msim *host(enum msim_preempt_model p, unsigned int cpus)
{
	struct msim_config cfg;
	struct msim *m;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.preempt = p;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	return m;
}

/* ---- task bodies ---- */

static long applied;     /* what the updater has done */
static long waited;      /* grace periods the waiter saw end */

/* Checks, then updates: the stretch between is where it may be parked. */
static void updater(void *arg)
{
	msim_yield("upd.checked");
	applied++;
	msim_yield("upd.applied");
}

/* The same with a cond_resched() between the check and the update. */
static void resched_updater(void *arg)
{
	msim_yield("upd.checked");
	msim_cond_resched("upd.resched");
	applied++;
}

/* The update inside preempt_disable() (get_cpu() ... put_cpu()). */
static void pinned_updater(void *arg)
{
	msim_preempt_disable();
	msim_yield("upd.pinned");
	applied++;
	msim_preempt_enable();
	msim_yield("upd.released");
}

static void waiter(void *arg)
{
	msim_synchronize_rcu();
	waited++;
}

/*
 * Park u at point, let the waiter ask for a grace period, and say whether the
 * grace period could end with u still parked there.
 */
static bool gp_ends_while_parked(enum msim_preempt_model p, msim_task_fn fn, const char *point)
{
	struct msim *m = host(p, 2);
	struct msim_task *u = msim_task_create(m, "updater", 1, fn, NULL);
	struct msim_task *w = msim_task_create(m, "waiter", 0, waiter, NULL);
	bool ended;

	applied = waited = 0;
	assert_int_equal(msim_run_until(m, u, point, 1), 0);
	assert_int_equal(msim_run_task(m, w), -EDEADLK);    /* blocked in synchronize_rcu */
	ended = msim_rcu_step(m);
	if (!ended) {
		/* it waits for u: once u has finished, the grace period ends */
		assert_int_equal(waited, 0);
		assert_int_equal(msim_run_task(m, u), 0);
		assert_true(msim_rcu_step(m));
	}
	assert_int_equal(msim_run_task(m, w), 0);
	assert_int_equal(waited, 1);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(applied, 1);
	msim_destroy(m);
	return ended;
}

/* The rule itself: a task parked mid-update holds a grace period under none only. */
static void gp_waits_for_a_task_parked_mid_update_under_none_only(void **st)
{
	assert_false(gp_ends_while_parked(MSIM_PREEMPT_NONE, updater, "upd.checked"));
	assert_false(gp_ends_while_parked(MSIM_PREEMPT_NONE, updater, "upd.applied"));
	assert_true(gp_ends_while_parked(MSIM_PREEMPT_FULL, updater, "upd.checked"));
	assert_true(gp_ends_while_parked(MSIM_PREEMPT_UNMODELLED, updater, "upd.checked"));
}

/* cond_resched is a quiescent state under none: the grace period may end there. */
static void voluntary_point_releases_the_grace_period(void **st)
{
	assert_false(gp_ends_while_parked(MSIM_PREEMPT_NONE, resched_updater, "upd.checked"));
	assert_true(gp_ends_while_parked(MSIM_PREEMPT_NONE, resched_updater, "upd.resched"));
}

/* preempt_disable holds a grace period off under full too, and only inside. */
static void preempt_disable_holds_the_grace_period_under_full(void **st)
{
	assert_false(gp_ends_while_parked(MSIM_PREEMPT_FULL, pinned_updater, "upd.pinned"));
	assert_true(gp_ends_while_parked(MSIM_PREEMPT_FULL, pinned_updater, "upd.released"));
	assert_false(gp_ends_while_parked(MSIM_PREEMPT_NONE, pinned_updater, "upd.released"));
	assert_true(gp_ends_while_parked(MSIM_PREEMPT_UNMODELLED, pinned_updater, "upd.pinned"));
}

/* ---- locks ---- */

static struct msim_lock lk;

static void taker_fn(void *arg)
{
	msim_lock(&lk);
	applied++;
	msim_unlock(&lk);
}

/*
 * The driver holds lk, a taker on CPU 1 waits for it: may a grace period end
 * while the taker waits?
 */
static bool gp_ends_while_waiting_for(enum msim_preempt_model p, bool spinlock)
{
	struct msim *m = host(p, 2);
	struct msim_task *t = msim_task_create(m, "taker", 1, taker_fn, NULL);
	struct msim_task *w = msim_task_create(m, "waiter", 0, waiter, NULL);
	struct msim_task_where where;
	bool ended;

	if (spinlock)
		msim_spin_lock_init(&lk, "lk");
	else
		msim_mutex_init(&lk, "lk");
	applied = waited = 0;
	msim_lock(&lk);
	assert_int_equal(msim_run_task(m, t), -EDEADLK);    /* waits for lk */
	assert_true(msim_task_where(t, &where) && where.blocked);
	assert_int_equal(msim_run_task(m, w), -EDEADLK);
	ended = msim_rcu_step(m);
	msim_unlock(&lk);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(waited, 1);
	assert_int_equal(applied, 1);
	msim_destroy(m);
	msim_lock_destroy(&lk);
	return ended;
}

/* A sleeping wait (mutex) is a voluntary point; spinning on a spinlock is not. */
static void mutex_wait_sleeps_spinlock_wait_spins(void **st)
{
	assert_true(gp_ends_while_waiting_for(MSIM_PREEMPT_NONE, false));
	assert_false(gp_ends_while_waiting_for(MSIM_PREEMPT_NONE, true));
	assert_false(gp_ends_while_waiting_for(MSIM_PREEMPT_FULL, true));
	assert_true(gp_ends_while_waiting_for(MSIM_PREEMPT_FULL, false));
	assert_true(gp_ends_while_waiting_for(MSIM_PREEMPT_UNMODELLED, true));
}

/* ---- several tasks on one CPU ---- */

/*
 * Two tasks on CPU 0: a parked at point, then b asked to run. Returns 0 when b
 * could run to completion meanwhile, -EDEADLK when a kept the CPU.
 */
static int second_task_runs_while_first_parked(enum msim_preempt_model p, msim_task_fn fn,
					       const char *point)
{
	struct msim *m = host(p, 1);
	struct msim_task *a = msim_task_create(m, "a", 0, fn, NULL);
	struct msim_task *b = msim_task_create(m, "b", 0, updater, NULL);
	long before;
	int ret;

	applied = 0;
	assert_int_equal(msim_run_until(m, a, point, 1), 0);
	before = applied;
	ret = msim_run_task(m, b);
	assert_int_equal(applied, before + (ret ? 0 : 1));
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(applied, 2);
	msim_destroy(m);
	return ret;
}

static void same_cpu_preemption_follows_the_model(void **st)
{
	/* none: only at a voluntary point */
	assert_int_equal(second_task_runs_while_first_parked(MSIM_PREEMPT_NONE, updater,
							     "upd.checked"), -EDEADLK);
	assert_int_equal(second_task_runs_while_first_parked(MSIM_PREEMPT_NONE, resched_updater,
							     "upd.resched"), 0);
	/* full: anywhere but inside preempt_disable */
	assert_int_equal(second_task_runs_while_first_parked(MSIM_PREEMPT_FULL, updater,
							     "upd.checked"), 0);
	assert_int_equal(second_task_runs_while_first_parked(MSIM_PREEMPT_FULL, pinned_updater,
							     "upd.pinned"), -EDEADLK);
	assert_int_equal(second_task_runs_while_first_parked(MSIM_PREEMPT_FULL, pinned_updater,
							     "upd.released"), 0);
	/* unmodelled: never before the first task has finished */
	assert_int_equal(second_task_runs_while_first_parked(MSIM_PREEMPT_UNMODELLED,
							     resched_updater, "upd.resched"),
			 -EDEADLK);
}

/* A mutex holder that sleeps and its waiter on the same CPU: the waiter runs. */
static void resched_holder(void *arg)
{
	msim_lock(&lk);
	msim_cond_resched("holder.resched");
	applied++;
	msim_unlock(&lk);
}

static void mutex_holder_and_waiter_share_a_cpu_under_none(void **st)
{
	struct msim *m = host(MSIM_PREEMPT_NONE, 1);
	struct msim_task *h = msim_task_create(m, "holder", 0, resched_holder, NULL);
	struct msim_task *t = msim_task_create(m, "taker", 0, taker_fn, NULL);

	msim_mutex_init(&lk, "lk");
	applied = 0;
	assert_int_equal(msim_run_until(m, h, "holder.resched", 1), 0);
	/* the taker runs on the CPU the holder gave up, and sleeps on the mutex */
	assert_int_equal(msim_run_task(m, t), -EDEADLK);
	assert_true(msim_task_parked_at(t) != NULL);
	/* which gives the CPU back to the holder */
	assert_int_equal(msim_run_task(m, h), 0);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(applied, 2);
	msim_destroy(m);
	msim_lock_destroy(&lk);
}

/* ---- deadlocks and the report ---- */

/* synchronize_rcu with preemption disabled waits for itself. */
static void sync_with_preemption_off(void *arg)
{
	msim_preempt_disable();
	msim_synchronize_rcu();
	msim_preempt_enable();
}

static void deadlock_report_names_the_task_that_cannot_be_preempted(void **st)
{
	static const enum msim_preempt_model models[] = { MSIM_PREEMPT_NONE, MSIM_PREEMPT_FULL };

	for (unsigned int i = 0; i < 2; i++) {
		struct msim *m = host(models[i], 1);

		msim_task_create(m, "self-wait", 0, sync_with_preemption_off, NULL);
		msim_task_create(m, "next", 0, updater, NULL);
		assert_int_equal(msim_run(m), -EDEADLK);
		const char *r = msim_deadlock_report(m);
		assert_non_null(strstr(r, "task self-wait (cpu 0) waits for an RCU grace period"));
		assert_non_null(strstr(r, "cannot be preempted never passes a quiescent state"));
		assert_non_null(strstr(r, "task next (cpu 0) waits for CPU 0 (task self-wait "
					  "holds it"));
		msim_destroy(m);    /* releases the parked task: no abort */
	}
	/* unmodelled: preempt_disable holds nothing, the grace period ends */
	struct msim *m = host(MSIM_PREEMPT_UNMODELLED, 1);
	msim_task_create(m, "self-wait", 0, sync_with_preemption_off, NULL);
	assert_int_equal(msim_run(m), 0);
	msim_destroy(m);
}

/* ---- explorers ---- */

/*
 * The shape of thread 000 patch 3's window: the updater checks a flag outside
 * any read-side section, then writes; the remover sets the flag, waits for a
 * grace period and then reads. Bad: the write lands after the read.
 */
struct window {
	long dying, moved;
	int late;
};

static void win_updater(void *arg)
{
	struct window *w = arg;

	if (msim_read_once_at(&w->dying, "win.check"))
		return;
	if (msim_read_once_at(&w->moved, "win.update"))
		w->late = 1;
}

static void win_remover(void *arg)
{
	struct window *w = arg;

	msim_write_once_at(&w->dying, 1, "win.set_dying");
	msim_synchronize_rcu();
	msim_write_once_at(&w->moved, 1, "win.move");
}

static int win_setup(struct msim *m, void **state, void *arg)
{
	struct window *w = calloc(1, sizeof(*w));

	*state = w;
	if (!w || !msim_task_create(m, "updater", 1, win_updater, w) ||
	    !msim_task_create(m, "remover", 0, win_remover, w))
		return -ENOMEM;
	return 0;
}

static bool win_check(struct msim *m, void *state, char *why, size_t len)
{
	struct window *w = state;

	if (w->late)
		snprintf(why, len, "update after the move");
	return w->late;
}

static void win_teardown(struct msim *m, void *state)
{
	free(state);
}

static void explore_window(enum msim_preempt_model p, enum msim_strategy s,
			   struct msim_explore_result *r)
{
	struct msim_explore_target t = { .name = "window", .setup = win_setup,
					 .check = win_check, .teardown = win_teardown };
	struct msim_explore_opts o = { .strategy = s, .seed = 1, .runs = 2000, .pct_depth = 3,
				       .preemptions = 3 };
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.preempt = p;
	assert_int_equal(msim_explore(&t, &cfg, &o, r), 0);
}

static void explorers_find_the_window_under_full_only(void **st)
{
	struct msim_explore_result r;

	explore_window(MSIM_PREEMPT_FULL, MSIM_STRAT_DFS, &r);
	assert_true(r.violations > 0);
	assert_string_equal(r.why, "update after the move");
	explore_window(MSIM_PREEMPT_UNMODELLED, MSIM_STRAT_DFS, &r);
	assert_true(r.violations > 0);
	explore_window(MSIM_PREEMPT_NONE, MSIM_STRAT_DFS, &r);
	assert_int_equal(r.violations, 0);
	assert_true(r.exhausted);
	assert_true(r.runs > 1);
	explore_window(MSIM_PREEMPT_NONE, MSIM_STRAT_RANDOM, &r);
	assert_int_equal(r.violations, 0);
	assert_int_equal(r.runs, 2000);
}

/* ---- names, validation, and nothing changed by default ---- */

static void names_parse_and_validate(void **st)
{
	struct msim_config cfg;
	enum msim_preempt_model p = MSIM_PREEMPT_UNMODELLED;
	char err[256] = "";

	msim_config_init(&cfg);
	assert_int_equal(cfg.preempt, MSIM_PREEMPT_UNMODELLED);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(msim_preempt_parse(msim_preempt_name((enum msim_preempt_model)i),
						    &p), 0);
		assert_int_equal(p, i);
	}
	assert_string_equal(msim_preempt_name(MSIM_PREEMPT_NONE), "none");
	assert_int_equal(msim_preempt_parse("voluntary", &p), -EINVAL);
	assert_null(msim_preempt_name((enum msim_preempt_model)3));
	cfg.preempt = (enum msim_preempt_model)3;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "preempt 3"));
}

/* Run two resched updaters; return the trace hash and schedule. */
static uint64_t trace_of(enum msim_preempt_model p, msim_task_fn fn, char *sched, size_t len)
{
	struct msim *m = host(p, 2);
	uint64_t h;

	msim_task_create(m, "a", 0, fn, NULL);
	msim_task_create(m, "b", 1, fn, NULL);
	msim_sched_set(m, &(struct msim_sched_opts){ .strategy = MSIM_STRAT_RANDOM, .seed = 3 });
	assert_int_equal(msim_run(m), 0);
	h = msim_sched_trace_hash(m);
	snprintf(sched, len, "%s", msim_schedule_string(m));
	msim_destroy(m);
	return h;
}

/* cond_resched where msim_yield was: the same point, schedule and trace hash. */
static void plain_yield(void *arg)
{
	msim_yield("upd.checked");
	msim_yield("upd.resched");
	applied++;
}

static void cond_resched_is_a_yield_point_of_the_same_name(void **st)
{
	char s1[256], s2[256];

	for (int p = 0; p < 3; p++) {
		uint64_t h1 = trace_of((enum msim_preempt_model)p, plain_yield, s1, sizeof(s1));
		uint64_t h2 = trace_of((enum msim_preempt_model)p, resched_updater, s2, sizeof(s2));

		assert_true(h1 == h2);
		assert_string_equal(s1, s2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gp_waits_for_a_task_parked_mid_update_under_none_only),
		cmocka_unit_test(voluntary_point_releases_the_grace_period),
		cmocka_unit_test(preempt_disable_holds_the_grace_period_under_full),
		cmocka_unit_test(mutex_wait_sleeps_spinlock_wait_spins),
		cmocka_unit_test(same_cpu_preemption_follows_the_model),
		cmocka_unit_test(mutex_holder_and_waiter_share_a_cpu_under_none),
		cmocka_unit_test(deadlock_report_names_the_task_that_cannot_be_preempted),
		cmocka_unit_test(explorers_find_the_window_under_full_only),
		cmocka_unit_test(names_parse_and_validate),
		cmocka_unit_test(cond_resched_is_a_yield_point_of_the_same_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
