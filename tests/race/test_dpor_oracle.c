/* SPDX-License-Identifier: MIT */
/*
 * test_dpor_oracle.c - DPOR's soundness oracle: on every side of every
 * registered race, under a small preemption bound where DFS exhausts the
 * bounded space, DPOR (same bound) must see every outcome DFS sees.
 *
 * An outcome is a run's fingerprint (msim_explore_opts.fingerprint: each task's
 * sequence of yield points and of the values its shims' loads returned, which
 * two schedules differing only in the order of independent steps share) mixed
 * with the check's reason. A reduction that treats two dependent steps as
 * independent skips one of their orders; when that order changes what some task
 * loads or where it goes, its fingerprint is one DFS saw and DPOR did not.
 *
 * The oracle must be able to fail: a toy whose writer announces "touches
 * nothing" (MSIM_ACCESS_NONE) and then stores a cell plainly, which a reader
 * loads through a shim. DFS sees the reader load 0 and 1; DPOR, misled, runs one
 * schedule and sees one of them; the oracle names the missing outcome.
 *
 * Every figure printed is deterministic; none is asserted but the subset and
 * the toy's counts (the races' schedule counts are docs/explore.md's business).
 */
#include <errno.h>

#include "outcome_util.h"

/* The preemption bound of the comparison: DFS exhausts every race's space under it. */
#define ORACLE_BOUND 1
/*
 * DFS schedules per side and bound; a side DFS does not exhaust within it is not
 * compared. Bound 0 gets a little more: 5000 takes in workingset-reparent-budget's
 * three fixed sides (DFS 4726 and 4102 schedules), whose RCU callbacks DPOR now
 * sees through, for ~3000 more DFS runs in all (the sanitizer build's timeout).
 */
#define ORACLE_DFS_CAP 4000
#define ORACLE_DFS_CAP_BOUND0 5000
#define ORACLE_DPOR_CAP 20000

/* ---- the oracle must be able to fail: a wrong annotation on a toy ---- */

struct toy { long x, seen; };

/* Announces that its next step touches nothing, then stores x behind DPOR's back. */
static void lying_writer(void *arg)
{
	struct toy *s = arg;

	msim_yield_access("toy.lying_writer", NULL, MSIM_ACCESS_NONE);
	s->x = 1;
}

/* The same writer, honest: the store is announced. */
static void honest_writer(void *arg)
{
	struct toy *s = arg;

	msim_yield_access("toy.lying_writer", &s->x, MSIM_ACCESS_STORE);
	s->x = 1;
}

static void reader(void *arg)
{
	struct toy *s = arg;

	s->seen = msim_load_at(&s->x, MSIM_RELAXED, "toy.reader");
}

static int toy_setup(struct msim *m, void **state, void *arg)
{
	struct toy *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*state = s;
	if (!msim_task_create(m, "writer", 0, (msim_task_fn)arg, s) ||
	    !msim_task_create(m, "reader", 1, reader, s))
		return -ENOMEM;
	return 0;
}

static void toy_teardown(struct msim *m, void *state)
{
	(void)m;
	free(state);
}

static void explore_toy(msim_task_fn writer, enum msim_strategy strategy,
			struct outcome_set *out, struct msim_explore_result *res)
{
	struct msim_explore_target t = {
		.name = "lying-writer", .setup = toy_setup, .teardown = toy_teardown,
		.arg = (void *)writer,
	};

	outcome_explore(&t, strategy, out, res);
}

static void oracle_catches_wrong_annotation(void **unused)
{
	struct outcome_set dfs = { 0 }, dpor = { 0 }, honest = { 0 };
	struct msim_explore_result r;

	(void)unused;
	explore_toy(lying_writer, MSIM_STRAT_DFS, &dfs, &r);
	assert_int_equal(dfs.n, 2);           /* the reader loads 0 or 1 */
	explore_toy(lying_writer, MSIM_STRAT_DPOR, &dpor, &r);
	assert_int_equal(r.runs, 1);          /* misled: the steps look independent */
	assert_int_equal(outcomes_missing(&dfs, &dpor), 1);
	explore_toy(honest_writer, MSIM_STRAT_DPOR, &honest, &r);
	assert_int_equal(r.runs, 2);
	assert_int_equal(outcomes_missing(&dfs, &honest), 0);
	free(dfs.v);
	free(dpor.v);
	free(honest.v);
}

/*
 * ---- the same for RCU callbacks: what they note is what DPOR trusts ----
 *
 * A task queues a callback that stores cell a; a reader stores cell b on its
 * own steps, then loads a: it sees 0 or 1, depending on whether the engine's
 * step ran first. A callback that says nothing (no msim_rcu_callback_noted())
 * touches anything: its step races with each of the reader's steps, and DPOR
 * tries it before every one. A callback that notes its store races only with
 * the load of a: fewer schedules, the same two outcomes. One that says it is
 * noted and stores a plainly misleads DPOR, and the oracle names the outcome it
 * missed.
 */

#define CB_READER_STEPS 4

struct cb_toy {
	struct msim_rcu_head head;
	void (*cb)(struct msim_rcu_head *head);
	long a, b, seen;
};

static void cb_unannotated(struct msim_rcu_head *head)
{
	msim_container_of(head, struct cb_toy, head)->a = 1;
}

static void cb_noted(struct msim_rcu_head *head)
{
	struct cb_toy *s = msim_container_of(head, struct cb_toy, head);

	msim_rcu_callback_noted();
	msim_access_note(&s->a, sizeof(s->a), MSIM_ACCESS_STORE);
	s->a = 1;
}

/* Says it keeps the contract, then stores a behind DPOR's back. */
static void cb_lying(struct msim_rcu_head *head)
{
	msim_rcu_callback_noted();
	msim_container_of(head, struct cb_toy, head)->a = 1;
}

/* The callback's store through a shim: noted by its yield point, no note needed. */
static void cb_shim(struct msim_rcu_head *head)
{
	struct cb_toy *s = msim_container_of(head, struct cb_toy, head);

	msim_rcu_callback_noted();
	msim_store_at(&s->a, 1L, MSIM_RELAXED, "toy.cb.store");
}

static void cb_queuer(void *arg)
{
	struct cb_toy *s = arg;

	msim_call_rcu(&s->head, s->cb);
}

static void cb_reader(void *arg)
{
	struct cb_toy *s = arg;

	for (long i = 1; i <= CB_READER_STEPS; i++)
		msim_store_at(&s->b, i, MSIM_RELAXED, "toy.reader.b");
	s->seen = msim_load_at(&s->a, MSIM_RELAXED, "toy.reader.a");
}

static int cb_toy_setup(struct msim *m, void **state, void *arg)
{
	struct cb_toy *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*state = s;
	s->cb = (void (*)(struct msim_rcu_head *))arg;
	if (!msim_task_create(m, "queuer", 0, cb_queuer, s) ||
	    !msim_task_create(m, "reader", 1, cb_reader, s))
		return -ENOMEM;
	return 0;
}

/* Run the toy with callback cb under strategy (unbounded, to exhaustion). */
static void explore_cb_toy(void (*cb)(struct msim_rcu_head *), enum msim_strategy strategy,
			   struct outcome_set *out, struct msim_explore_result *res)
{
	struct msim_explore_target t = {
		.name = "rcu-callback", .setup = cb_toy_setup, .teardown = toy_teardown,
		.arg = (void *)cb,
	};

	outcome_explore(&t, strategy, out, res);
}

static void noted_callbacks_reduce_soundly(void **unused)
{
	void (*const cbs[])(struct msim_rcu_head *) = { cb_unannotated, cb_noted, cb_shim };
	struct outcome_set dfs = { 0 };
	struct msim_explore_result r;
	unsigned int runs[3];

	(void)unused;
	explore_cb_toy(cb_unannotated, MSIM_STRAT_DFS, &dfs, &r);
	assert_int_equal(dfs.n, 2);           /* the reader loads 0 or 1 */
	for (unsigned int i = 0; i < 3; i++) {
		struct outcome_set dpor = { 0 };

		explore_cb_toy(cbs[i], MSIM_STRAT_DPOR, &dpor, &r);
		print_message("callback %u: dpor %u schedules, %zu outcomes\n", i,
			      r.runs, dpor.n);
		assert_int_equal(outcomes_missing(&dfs, &dpor), 0);
		runs[i] = r.runs;
		free(dpor.v);
	}
	/* anything: the engine's step is tried before each reader step, and after */
	assert_int_equal(runs[0], CB_READER_STEPS + 3);
	/* noted (plainly or by a shim): before or after the load of a */
	assert_int_equal(runs[1], 2);
	assert_int_equal(runs[2], 2);
	free(dfs.v);
}

static void oracle_catches_wrong_callback_annotation(void **unused)
{
	struct outcome_set dfs = { 0 }, dpor = { 0 };
	struct msim_explore_result r;

	(void)unused;
	explore_cb_toy(cb_lying, MSIM_STRAT_DFS, &dfs, &r);
	assert_int_equal(dfs.n, 2);
	explore_cb_toy(cb_lying, MSIM_STRAT_DPOR, &dpor, &r);
	assert_int_equal(r.runs, 1);          /* misled: the engine's step looks independent */
	assert_int_equal(outcomes_missing(&dfs, &dpor), 1);
	free(dfs.v);
	free(dpor.v);
}

/* ---- every race side ---- */

/* Explore side s of r under strategy and bound; -ENOTSUP passes through. */
static int explore_side(const struct msim_race *r, const struct msim_race_side *s,
			enum msim_strategy strategy, unsigned int bound, unsigned int cap,
			struct outcome_set *out, struct msim_race_result *res)
{
	struct msim_race_opts o;
	char err[512] = "";
	int ret;

	msim_race_opts_init(&o, strategy);
	o.preemptions = bound;
	o.runs = cap;
	o.fingerprint = true;
	o.on_run = outcome_collect;
	o.on_run_arg = out;
	ret = msim_race_run_side(r, s->name, &o, res, err, sizeof(err));
	if (ret && ret != -ENOTSUP)
		fail_msg("race %s side %s: %s (%d)", r->name, s->name, err, ret);
	return ret;
}

/*
 * Side s under bound: DFS to exhaustion, then DPOR, which must exhaust and miss
 * none of DFS's outcomes. False when DFS does not exhaust within its cap or DPOR
 * refuses the side.
 */
static bool compare_side(const struct msim_race *r, const struct msim_race_side *s,
			 unsigned int bound, struct msim_race_result *res, unsigned int *unsound)
{
	struct outcome_set dfs = { 0 }, dpor = { 0 };
	unsigned int dfs_runs;
	bool compared = false;

	explore_side(r, s, MSIM_STRAT_DFS, bound, bound ? ORACLE_DFS_CAP : ORACLE_DFS_CAP_BOUND0,
		     &dfs, res);
	dfs_runs = res->ex.runs;
	if (res->ex.exhausted &&
	    explore_side(r, s, MSIM_STRAT_DPOR, bound, ORACLE_DPOR_CAP, &dpor, res) != -ENOTSUP) {
		print_message("%s/%s bound %u: dfs %u schedules %zu outcomes, dpor %u (%u pruned)"
			      "%s %zu outcomes, %zu missing\n", r->name, s->name, bound, dfs_runs,
			      dfs.n, res->ex.runs, res->ex.pruned,
			      res->ex.exhausted ? "" : " not exhausted", dpor.n,
			      outcomes_missing(&dfs, &dpor));
		/* every side is reported before the test fails */
		*unsound += !res->ex.exhausted || outcomes_missing(&dfs, &dpor);
		compared = true;
	}
	free(dfs.v);
	free(dpor.v);
	return compared;
}

static void dpor_sees_what_dfs_sees(void **unused)
{
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64), compared = 0;
	struct msim_race_result *res = calloc(1, sizeof(*res));
	unsigned int unsound = 0;

	(void)unused;
	assert_non_null(res);
	for (size_t i = 0; i < n && i < 64; i++) {
		for (const struct msim_race_side *s = races[i]->sides; s && s->name; s++) {
			bool done = false;

			for (int bound = ORACLE_BOUND; bound >= 0 && !done; bound--)
				done = compare_side(races[i], s, (unsigned int)bound, res, &unsound);
			if (!done)
				print_message("%s/%s: not compared (DFS did not exhaust bound 0 in "
					      "%u schedules, or DPOR refused the side)\n",
					      races[i]->name, s->name, ORACLE_DFS_CAP_BOUND0);
			compared += done;
		}
	}
	assert_true(compared > 0);
	assert_int_equal(unsound, 0);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oracle_catches_wrong_annotation),
		cmocka_unit_test(noted_callbacks_reduce_soundly),
		cmocka_unit_test(oracle_catches_wrong_callback_annotation),
		cmocka_unit_test(dpor_sees_what_dfs_sees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
