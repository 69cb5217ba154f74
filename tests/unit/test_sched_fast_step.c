/* SPDX-License-Identifier: MIT */
/*
 * test_sched_fast_step: the fast step (src/sim/sched.c fast_step, docs/explore.md
 * "The fast step"). Where the driver's next decision is foretold (msim_run_task's
 * task, the script strategy's running task, replay's next pick or PCT's highest
 * priority when it is the running task), a park records the step in place
 * instead of listing the options. The runs must be exactly those of the decision
 * listed every time (msim__sched_no_fast_step): here three tasks on two CPUs,
 * with locks, blocking, yield contexts and voluntary scheduling points, run under
 * the script strategy, under replay of random and PCT runs' strings, under PCT
 * (depths 1-3), cut at step limits (so that tasks stay parked mid-run) and under
 * msim_run_task, with and without the fast step: the
 * same return, schedule string, trace hash, step and switch counts, end state,
 * and for every task the same msim_task_where() (point, hits, blocked, context).
 * The fast step must also have been taken where the mode allows it (PCT's
 * too when a task above the running one waits), and never under a
 * preemption model.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/script.h>

#include "sim/sched.h"
#include "sim/sched_points.h"

#define NTASKS 3

static long shared;
static struct msim_lock lk;
static const int ctx_tag[NTASKS];

static struct msim_rcu_head heads[NTASKS][8];
static long callbacks;

static void callback(struct msim_rcu_head *h)
{
	(void)h;
	callbacks++;
}

/*
 * Every way a decision can differ from "the running task again": a lock held
 * across yields (a waiter becomes enabled when it is released), RCU callbacks
 * queued (the RCU engine becomes an option), a CPU shared (c runs after a).
 */
static void worker(void *arg)
{
	long add = (long)(intptr_t)arg;
	unsigned int me = (unsigned int)(add == 1 ? 0 : add == 100 ? 1 : 2);
	struct msim_yield_ctx yc = { .object = &ctx_tag[me], .cpu = -1, .nid = -1 };

	for (int i = 0; i < 8; i++) {
		const struct msim_yield_ctx *prev = msim_yield_ctx_enter(&yc);
		long v = msim_read_once(&shared);

		yc.cpu = i;
		msim_yield("fast.between");
		msim_write_once(&shared, v + add);
		msim_yield_ctx_leave(prev);
		if (i % 3 == 1) {
			msim_lock(&lk);
			msim_write_once(&shared, msim_read_once(&shared) + 1);
			msim_yield("fast.locked");
			msim_yield("fast.locked");
			msim_unlock(&lk);
		}
		if (i % 4 == 2)
			msim_call_rcu(&heads[me][i], callback);
		msim_cond_resched("fast.resched");
	}
}

struct where {
	const char *point;
	uint64_t hits;
	bool blocked;
	struct msim_yield_ctx ctx;
};

struct run {
	char *schedule;
	uint64_t hash, steps, switches, fast;
	long shared, callbacks;
	int ret;
	struct where where[NTASKS];
};

struct setup {
	enum msim_strategy strategy;
	uint64_t seed, max_steps;
	unsigned int pct_depth, pct_steps_hint;
	const char *schedule;        /* replay */
	enum msim_preempt_model preempt;
	bool run_task;               /* msim_run_task(task 0) instead of msim_run */
};

static struct msim *host(const struct setup *su, struct msim_task **t)
{
	struct msim_config cfg;
	struct msim *m;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.preempt = su->preempt;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	shared = callbacks = 0;
	msim_lock_init(&lk, "fast.lock");
	t[0] = msim_task_create(m, "a", 0, worker, (void *)1);
	t[1] = msim_task_create(m, "b", 1, worker, (void *)100);
	t[2] = msim_task_create(m, "c", 0, worker, (void *)10000);
	return m;
}

static void run_once(const struct setup *su, bool fast, struct run *r)
{
	struct msim_task *t[NTASKS];
	struct msim *m = host(su, t);
	struct msim_sched_opts o = { .strategy = su->strategy, .seed = su->seed,
				     .max_steps = su->max_steps, .schedule = su->schedule,
				     .pct_depth = su->pct_depth,
				     .pct_steps_hint = su->pct_steps_hint };

	assert_int_equal(msim_sched_set(m, &o), 0);
	msim__sched_no_fast_step = !fast;
	r->ret = su->run_task ? msim_run_task(m, t[0]) : msim_run(m);
	msim__sched_no_fast_step = false;
	r->schedule = strdup(msim_schedule_string(m));
	r->hash = msim_sched_trace_hash(m);
	r->steps = msim_sched_steps(m);
	r->switches = msim_sched_switches(m);
	r->fast = msim__sched_fast_steps(m);
	r->shared = shared;
	r->callbacks = callbacks;
	for (unsigned int i = 0; i < NTASKS; i++) {
		struct msim_task_where w;

		memset(&r->where[i], 0, sizeof(r->where[i]));
		if (msim_task_where(t[i], &w))
			r->where[i] = (struct where){ w.point, w.hits, w.blocked, w.ctx };
	}
	/* a cut run leaves tasks parked, some holding the lock: destroy takes it over */
	msim_destroy(m);
	msim_lock_destroy(&lk);
}

/* Both ways, compared; returns the fast run's fast steps. */
static uint64_t same_run(const struct setup *su)
{
	struct run a, b;

	run_once(su, false, &a);
	run_once(su, true, &b);
	assert_int_equal(a.ret, b.ret);
	assert_string_equal(a.schedule, b.schedule);
	assert_true(a.hash == b.hash);
	assert_true(a.steps == b.steps);
	assert_true(a.switches == b.switches);
	assert_int_equal(a.shared, b.shared);
	assert_int_equal(a.callbacks, b.callbacks);
	assert_true(a.fast == 0);
	for (unsigned int i = 0; i < NTASKS; i++) {
		const struct where *x = &a.where[i], *y = &b.where[i];

		if (!x->point || !y->point)
			assert_ptr_equal(x->point, y->point);
		else
			assert_string_equal(x->point, y->point);
		assert_true(x->hits == y->hits);
		assert_int_equal(x->blocked, y->blocked);
		assert_ptr_equal(x->ctx.object, y->ctx.object);
		assert_int_equal(x->ctx.cpu, y->ctx.cpu);
	}
	free(a.schedule);
	free(b.schedule);
	return b.fast;
}

static void script_and_cut_runs(void **st)
{
	static const uint64_t cuts[] = { 0, 5, 9, 17, 30, 44 };

	for (unsigned int c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		struct setup su = { .strategy = MSIM_STRAT_SCRIPT, .max_steps = cuts[c] };

		/* the first step of a run and each step after a switch are listed */
		assert_true(same_run(&su) > (cuts[c] ? cuts[c] / 3 : 10));
		su.preempt = MSIM_PREEMPT_FULL;
		assert_true(same_run(&su) == 0); /* the preemption model: never foretold */
	}
}

static void replayed_runs(void **st)
{
	uint64_t fast = 0;

	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct setup gen = { .strategy = seed % 2 ? MSIM_STRAT_RANDOM : MSIM_STRAT_PCT,
				     .seed = seed };
		struct run r;

		run_once(&gen, true, &r);
		if (gen.strategy == MSIM_STRAT_RANDOM)
			assert_true(r.fast == 0); /* random lists every decision */
		struct setup su = { .strategy = MSIM_STRAT_REPLAY, .schedule = r.schedule };

		fast += same_run(&su);
		/* the same string cut short: the replay's position stays exact */
		su.max_steps = r.steps / 2;
		same_run(&su);
		free(r.schedule);
	}
	assert_true(fast > 0);
}

static void pct_runs(void **st)
{
	uint64_t fast = 0;

	for (uint64_t seed = 1; seed <= 150; seed++) {
		for (unsigned int depth = 1; depth <= 4; depth++) {
			/* change points within the run's ~100 steps */
			struct setup su = { .strategy = MSIM_STRAT_PCT, .seed = seed,
					    .pct_depth = depth,
					    .pct_steps_hint = 10 + seed % 90 };

			fast += same_run(&su);
			su.max_steps = 11 + seed % 41;
			same_run(&su);
			su.max_steps = 0;
			su.preempt = MSIM_PREEMPT_FULL;
			assert_true(same_run(&su) == 0);
		}
	}
	assert_true(fast > 0);
}

/*
 * A waiter of higher priority woken by the running task (PCT, no change
 * point): O waits for a grace period, T takes the lock and waits for one too,
 * the RCU engine ends it, O (above T) runs and blocks on T's lock, T runs and
 * releases it. At T's next park PCT must switch to O: the fast step must not
 * foretell T, although T ranks above the RCU engine and was picked last.
 */
static void gp_then_lock(void *arg)
{
	(void)arg;
	msim_synchronize_rcu();
	msim_lock(&lk);
	shared++;
	msim_unlock(&lk);
}

static void lock_across_gp(void *arg)
{
	(void)arg;
	msim_yield("fast.before");
	msim_lock(&lk);
	msim_synchronize_rcu();
	msim_unlock(&lk);
	for (int i = 0; i < 10; i++)
		msim_yield("fast.after");
}

static void pct_wakes_a_higher_waiter(void **st)
{
	unsigned int woken = 0;

	for (uint64_t seed = 1; seed <= 60; seed++) {
		char *sched[2];
		uint64_t hash[2], fast[2];

		for (int f = 0; f < 2; f++) {
			struct msim_config cfg;
			struct msim *m;
			struct msim_sched_opts o = { .strategy = MSIM_STRAT_PCT, .seed = seed,
						     .pct_depth = 1 };

			msim_config_init(&cfg);
			cfg.nr_cpus = 2;
			cfg.mode = MSIM_DETERMINISTIC;
			assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
			shared = 0;
			msim_lock_init(&lk, "fast.lock");
			msim_task_create(m, "O", 0, gp_then_lock, NULL);
			msim_task_create(m, "T", 1, lock_across_gp, NULL);
			assert_int_equal(msim_sched_set(m, &o), 0);
			msim__sched_no_fast_step = !f;
			assert_int_equal(msim_run(m), 0);
			msim__sched_no_fast_step = false;
			sched[f] = strdup(msim_schedule_string(m));
			hash[f] = msim_sched_trace_hash(m);
			fast[f] = msim__sched_fast_steps(m);
			msim_lock_destroy(&lk);
			msim_destroy(m);
		}
		assert_string_equal(sched[0], sched[1]);
		assert_true(hash[0] == hash[1]);
		assert_true(fast[0] == 0);
		/* O ran, T ran, O ran again and T after it: "0.1*3.R.0*2.1*2.0*2.1*10" */
		unsigned int o_runs = sched[1][0] == '0';

		for (const char *p = sched[1]; (p = strstr(p, ".0")); p += 2)
			o_runs++;
		woken += o_runs >= 3 && fast[1] > 0;
		free(sched[0]);
		free(sched[1]);
	}
	assert_true(woken > 0);
}

/*
 * A task of higher priority that is no option does not stop the fast step:
 * W waits its CPU's turn behind R (unmodelled preemption: the first unfinished
 * task of a CPU runs), so whatever PCT drew for the two, every park of R is
 * foretold (and W's, once R is gone), and the run is the one listed every time.
 */
static void turn_runner(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++)
		msim_yield("fast.turn");
}

static void turn_waiter(void *arg)
{
	(void)arg;
	msim_yield("fast.waited");
}

static void pct_passes_a_waiting_higher_task(void **st)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		char *sched[2];
		uint64_t hash[2], fast[2];

		for (int f = 0; f < 2; f++) {
			struct msim_config cfg;
			struct msim *m;
			struct msim_sched_opts o = { .strategy = MSIM_STRAT_PCT, .seed = seed,
						     .pct_depth = 1 };

			msim_config_init(&cfg);
			cfg.nr_cpus = 1;
			cfg.mode = MSIM_DETERMINISTIC;
			assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
			msim_task_create(m, "R", 0, turn_runner, NULL);
			msim_task_create(m, "W", 0, turn_waiter, NULL);
			assert_int_equal(msim_sched_set(m, &o), 0);
			msim__sched_no_fast_step = !f;
			assert_int_equal(msim_run(m), 0);
			msim__sched_no_fast_step = false;
			sched[f] = strdup(msim_schedule_string(m));
			hash[f] = msim_sched_trace_hash(m);
			fast[f] = msim__sched_fast_steps(m);
			msim_destroy(m);
		}
		assert_string_equal(sched[0], sched[1]);
		assert_string_equal(sched[1], "0*21.1*2");
		assert_true(hash[0] == hash[1]);
		assert_true(fast[0] == 0);
		/* each of R's 20 parks, then W's one: only the first step of each is listed */
		assert_true(fast[1] == 21);
		free(sched[0]);
		free(sched[1]);
	}
}

static void run_task_runs(void **st)
{
	struct setup su = { .strategy = MSIM_STRAT_SCRIPT, .run_task = true };

	/* task 0 alone on its CPU's turn: every park but its blocks is foretold */
	assert_true(same_run(&su) > 20);
}

/*
 * msim_run_task's fast step (sched.c park_at) and the point table's guess of the
 * next slot (sched_points.h): a task parks at 40 names in a cycle, three times
 * round, so that its table grows twice while the cycle is being learnt and the
 * guess then holds; then at every third name backwards, where each guess misses
 * (a guess taken without its name's check would count the first 14 slots).
 * It ends blocked in a grace period no one drives: every name's count must be
 * exact (msim__points_hits), as must where it is parked, with and without the
 * fast step, and every park must take it.
 */
#define CYCLE 40
#define P(n) "cycle." #n
static const char *const cycle_names[CYCLE] = {
	P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9),
	P(10), P(11), P(12), P(13), P(14), P(15), P(16), P(17), P(18), P(19),
	P(20), P(21), P(22), P(23), P(24), P(25), P(26), P(27), P(28), P(29),
	P(30), P(31), P(32), P(33), P(34), P(35), P(36), P(37), P(38), P(39),
};
#undef P

static void cycler(void *arg)
{
	(void)arg;
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < CYCLE; k++)
			msim_yield(cycle_names[k]);
	for (int k = CYCLE - 1; k >= 0; k--)
		if (k % 3 == 0)
			msim_yield(cycle_names[k]);
	msim_synchronize_rcu();
}

static void cycle_run(bool fast, uint64_t hits[CYCLE], struct run *r)
{
	struct msim_config cfg;
	struct msim *m;
	struct msim_task *t;
	struct msim_task_where w;

	msim_config_init(&cfg);
	cfg.nr_cpus = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	t = msim_task_create(m, "cycler", 0, cycler, NULL);
	msim__sched_no_fast_step = !fast;
	r->ret = msim_run_task(m, t);
	msim__sched_no_fast_step = false;
	r->schedule = strdup(msim_schedule_string(m));
	r->hash = msim_sched_trace_hash(m);
	r->steps = msim_sched_steps(m);
	r->fast = msim__sched_fast_steps(m);
	assert_true(msim_task_where(t, &w));
	r->where[0] = (struct where){ w.point, w.hits, w.blocked, w.ctx };
	for (int k = 0; k < CYCLE; k++)
		hits[k] = msim__points_hits(t, cycle_names[k]);
	msim_destroy(m);
}

static void run_task_learns_a_cycle(void **st)
{
	uint64_t hits[2][CYCLE];
	struct run r[2];

	(void)st;
	for (int f = 0; f < 2; f++)
		cycle_run(f, hits[f], &r[f]);
	for (int f = 0; f < 2; f++) {
		assert_int_equal(r[f].ret, -EDEADLK);   /* blocked in the grace period */
		assert_true(r[f].where[0].blocked);
		for (int k = 0; k < CYCLE; k++)
			assert_true(hits[f][k] == (k % 3 == 0 ? 4 : 3));
	}
	assert_string_equal(r[0].schedule, r[1].schedule);
	assert_true(r[0].hash == r[1].hash);
	assert_true(r[0].steps == r[1].steps);
	assert_string_equal(r[0].where[0].point, r[1].where[0].point);
	assert_true(r[0].where[0].hits == r[1].where[0].hits);
	assert_true(r[0].fast == 0);
	/* every one of the 134 parks, a name's first too (its count starts, then the step) */
	assert_int_equal(r[1].fast, 3 * CYCLE + (CYCLE + 2) / 3);
	free(r[0].schedule);
	free(r[1].schedule);
}

static void irq_handler(void *arg)
{
	(void)arg;
	msim_yield("fast.irq");
}

/* An interrupt source's arrivals are options of every decision: no park is foretold. */
static void run_task_with_an_interrupt_source(void **st)
{
	struct run r[2];

	(void)st;
	for (int f = 0; f < 2; f++) {
		struct msim_config cfg;
		struct msim *m;
		struct msim_task *t;

		msim_config_init(&cfg);
		cfg.nr_cpus = 1;
		cfg.mode = MSIM_DETERMINISTIC;
		assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
		t = msim_task_create(m, "runner", 0, turn_runner, NULL);
		assert_non_null(msim_irq_source_create(m, "irq", 0, MSIM_CTX_HARDIRQ, 1,
						       irq_handler, NULL));
		msim__sched_no_fast_step = !f;
		r[f].ret = msim_run_task(m, t);
		msim__sched_no_fast_step = false;
		r[f].schedule = strdup(msim_schedule_string(m));
		r[f].hash = msim_sched_trace_hash(m);
		r[f].fast = msim__sched_fast_steps(m);
		msim_destroy(m);
	}
	assert_int_equal(r[0].ret, r[1].ret);
	assert_string_equal(r[0].schedule, r[1].schedule);
	assert_true(r[0].hash == r[1].hash);
	assert_true(r[0].fast == 0 && r[1].fast == 0);
	free(r[0].schedule);
	free(r[1].schedule);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_and_cut_runs),
		cmocka_unit_test(replayed_runs),
		cmocka_unit_test(pct_runs),
		cmocka_unit_test(pct_wakes_a_higher_waiter),
		cmocka_unit_test(pct_passes_a_waiting_higher_task),
		cmocka_unit_test(run_task_runs),
		cmocka_unit_test(run_task_learns_a_cycle),
		cmocka_unit_test(run_task_with_an_interrupt_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
