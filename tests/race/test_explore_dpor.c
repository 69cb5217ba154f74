/* SPDX-License-Identifier: MIT */
/*
 * test_explore_dpor.c - source-DPOR (MSIM_STRAT_DPOR) on toys whose Mazurkiewicz
 * traces are counted by hand, and against unbounded DFS on what the runs see.
 *
 * Each toy task is a list of shim accesses on cells x, y (msim_store_at /
 * msim_load_at: each a yield point that announces its access). A task's steps
 * are: start to its first yield point (touches nothing shared), then one step
 * per access. Two steps of different tasks conflict when they touch one cell and
 * one of them stores. The traces of a toy are the ways to order its conflicting
 * pairs consistently with each task's program order:
 *  - writer (store x; store y) | reader (load x; load y): x's pair either way and
 *    y's pair either way, all four combinations consistent: 4 traces, and the
 *    reader sees (x, y) = (0,0), (0,1), (1,0), (1,1), one per trace;
 *  - three tasks storing x once each: 3! = 6 traces;
 *  - store x | store y: nothing conflicts: 1 trace;
 *  - store x; load y | store y; load x (store buffering, sequentially
 *    consistent): 4 orders of the two pairs, one of them cyclic (each load
 *    before the other task's store needs x's load before y's store before...),
 *    so 3 traces, seeing (1,1), (0,1), (1,0) but never (0,0).
 * Outcomes (end state and every load) distinguish the traces, except that the
 * three stores leave only three end states (the last writer).
 * DPOR must run exactly that many schedules to the end (none pruned on these),
 * exhaust, and see the same set of outcomes as DFS with no preemption bound,
 * which runs more schedules.
 */
#include <errno.h>
#include <limits.h>

#include "outcome_util.h"

#define MAX_OPS 4

enum op { OP_END = 0, LOAD_X, LOAD_Y, STORE_X, STORE_Y };

struct toy {
	const char *name;
	unsigned int nr_tasks;
	enum op ops[3][MAX_OPS];
	unsigned int traces;      /* counted by hand (the comment above) */
	unsigned int outcomes;    /* distinct end states and loads among them */
};

struct toy_state {
	const struct toy *toy;
	long x, y;
	long seen[3][MAX_OPS];    /* what each load read */
	struct {
		const struct toy *toy;
		struct toy_state *s;
		unsigned int idx;
	} task[3];
};

/* Outcomes seen in complete runs: a bit per distinct (loads read) vector. */
static uint64_t outcomes;
/* The litmus toys' two loads, as bit (first read nonzero) * 2 + (second read nonzero). */
static unsigned int loads_seen;

static void toy_task(void *arg)
{
	typeof(((struct toy_state *)0)->task[0]) *t = arg;
	struct toy_state *s = t->s;

	for (unsigned int i = 0; i < MAX_OPS && t->toy->ops[t->idx][i]; i++) {
		switch (t->toy->ops[t->idx][i]) {
		case LOAD_X:
			s->seen[t->idx][i] = msim_load_at(&s->x, MSIM_RELAXED, "toy.load_x");
			break;
		case LOAD_Y:
			s->seen[t->idx][i] = msim_load_at(&s->y, MSIM_RELAXED, "toy.load_y");
			break;
		case STORE_X:
			msim_store_at(&s->x, 1 + (long)t->idx, MSIM_RELAXED, "toy.store_x");
			break;
		case STORE_Y:
			msim_store_at(&s->y, 1 + (long)t->idx, MSIM_RELAXED, "toy.store_y");
			break;
		default:
			break;
		}
	}
}

static int toy_setup(struct msim *m, void **state, void *arg)
{
	const struct toy *toy = arg;
	struct toy_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->toy = toy;
	for (unsigned int i = 0; i < toy->nr_tasks; i++) {
		s->task[i].toy = toy;
		s->task[i].s = s;
		s->task[i].idx = i;
		if (!msim_task_create(m, "toy", i, toy_task, &s->task[i]))
			return -ENOMEM;
	}
	*state = s;
	return 0;
}

/* Never a violation: records the outcome (the final cells and every load). */
static bool toy_check(struct msim *m, void *state, char *why, size_t len)
{
	struct toy_state *s = state;
	uint64_t h = (uint64_t)s->x * 7 + (uint64_t)s->y;

	(void)m, (void)why, (void)len;
	for (unsigned int t = 0; t < 3; t++)
		for (unsigned int i = 0; i < MAX_OPS; i++)
			h = h * 5 + (uint64_t)s->seen[t][i];
	outcomes |= 1ULL << (h % 64);
	loads_seen |= 1u << (2 * (s->seen[0][1] != 0 || s->seen[1][0] != 0) +
			     (s->seen[1][1] != 0));
	return false;
}

static void toy_teardown(struct msim *m, void *state)
{
	(void)m;
	free(state);
}

static void explore_toy_model(const struct toy *toy, enum msim_strategy strategy, unsigned int bound,
			      enum msim_memory_model model, struct msim_explore_result *res)
{
	struct msim_explore_target t = {
		.name = toy->name, .setup = toy_setup, .check = toy_check,
		.teardown = toy_teardown, .arg = (void *)toy,
	};
	struct msim_explore_opts o = { .strategy = strategy, .runs = 100000, .preemptions = bound };
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 4;
	cfg.memory_model = model;
	outcomes = 0;
	loads_seen = 0;
	assert_int_equal(msim_explore(&t, &cfg, &o, res), 0);
}

static void explore_toy(const struct toy *toy, enum msim_strategy strategy, unsigned int bound,
			struct msim_explore_result *res)
{
	explore_toy_model(toy, strategy, bound, MSIM_MEMORY_SC, res);
}

static const struct toy toys[] = {
	{ "writer-reader", 2, { { STORE_X, STORE_Y }, { LOAD_X, LOAD_Y } }, 4, 4 },
	{ "three-stores", 3, { { STORE_X }, { STORE_X }, { STORE_X } }, 6, 3 },
	{ "independent", 2, { { STORE_X }, { STORE_Y } }, 1, 1 },
	{ "store-buffering", 2, { { STORE_X, LOAD_Y }, { STORE_Y, LOAD_X } }, 3, 3 },
};

static void dpor_counts_traces(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < sizeof(toys) / sizeof(toys[0]); i++) {
		struct msim_explore_result dpor, dfs;
		uint64_t dpor_outcomes;

		explore_toy(&toys[i], MSIM_STRAT_DPOR, MSIM_EXPLORE_UNBOUNDED, &dpor);
		dpor_outcomes = outcomes;
		explore_toy(&toys[i], MSIM_STRAT_DFS, MSIM_EXPLORE_UNBOUNDED, &dfs);
		print_message("%s: dpor %u schedules (%u pruned), dfs %u\n", toys[i].name,
			      dpor.runs, dpor.pruned, dfs.runs);
		assert_true(dpor.exhausted);
		assert_true(dfs.exhausted);
		assert_int_equal(dpor.runs - dpor.pruned, toys[i].traces);
		assert_int_equal(dpor.pruned, 0);
		assert_int_equal(__builtin_popcountll(dpor_outcomes), toys[i].outcomes);
		assert_true(dpor_outcomes == outcomes);
		if (toys[i].traces > 1)
			assert_true(dfs.runs > dpor.runs);
	}
}

/*
 * Store-buffer drains are threads of DPOR (explore_dpor_wmm.c). Two litmus
 * tests, each load pair as (first, second) read nonzero:
 *  - store buffering, (load y of task 0, load x of task 1): sc never reads
 *    (0,0); tso and pso do, both stores waiting in their buffers;
 *  - message passing, store x; store y | load y; load x, (y, x): y seen set with
 *    x still 0 needs the stores to reach memory out of order: pso only.
 * Unbounded DPOR and unbounded DFS must see exactly those pairs, and DPOR must
 * exhaust in fewer schedules.
 */
static void dpor_drains_litmus(void **unused)
{
	static const struct toy mp = { "message-passing", 2,
				       { { STORE_X, STORE_Y }, { LOAD_Y, LOAD_X } }, 0, 0 };
	const struct {
		const struct toy *toy;
		enum msim_memory_model model;
		unsigned int pairs;   /* bit 2 * first + second */
	} cases[] = {
		{ &toys[3], MSIM_MEMORY_SC, 0xe }, { &toys[3], MSIM_MEMORY_TSO, 0xf },
		{ &toys[3], MSIM_MEMORY_PSO, 0xf }, { &mp, MSIM_MEMORY_SC, 0xb },
		{ &mp, MSIM_MEMORY_TSO, 0xb }, { &mp, MSIM_MEMORY_PSO, 0xf },
	};

	(void)unused;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct msim_explore_result dpor, dfs;
		unsigned int dpor_pairs;

		explore_toy_model(cases[i].toy, MSIM_STRAT_DPOR, MSIM_EXPLORE_UNBOUNDED,
				  cases[i].model, &dpor);
		dpor_pairs = loads_seen;
		explore_toy_model(cases[i].toy, MSIM_STRAT_DFS, MSIM_EXPLORE_UNBOUNDED,
				  cases[i].model, &dfs);
		print_message("%s %s: dpor %u schedules (%u pruned), dfs %u, pairs %#x / %#x\n",
			      cases[i].toy->name, msim_memory_model_name(cases[i].model), dpor.runs,
			      dpor.pruned, dfs.runs, dpor_pairs, loads_seen);
		assert_true(dpor.exhausted && dfs.exhausted);
		assert_int_equal(loads_seen, cases[i].pairs);
		assert_int_equal(dpor_pairs, cases[i].pairs);
		assert_true(dpor.runs < dfs.runs);
	}
}

/*
 * Under a preemption bound DPOR must see what DFS sees under the same bound (the
 * bounded space's outcomes), in no more complete runs.
 */
static void bounded_dpor_sees_what_dfs_sees(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < sizeof(toys) / sizeof(toys[0]); i++) {
		for (unsigned int bound = 0; bound <= 2; bound++) {
			struct msim_explore_result dpor, dfs;
			uint64_t dpor_outcomes;

			explore_toy(&toys[i], MSIM_STRAT_DPOR, bound, &dpor);
			dpor_outcomes = outcomes;
			explore_toy(&toys[i], MSIM_STRAT_DFS, bound, &dfs);
			print_message("%s bound %u: dpor %u (%u pruned), dfs %u, outcomes %d/%d\n",
				      toys[i].name, bound, dpor.runs, dpor.pruned, dfs.runs,
				      __builtin_popcountll(dpor_outcomes),
				      __builtin_popcountll(outcomes));
			assert_true(dpor.exhausted);
			assert_true(dpor_outcomes == outcomes);
			assert_true(dpor.runs - dpor.pruned <= dfs.runs);
		}
	}
}

/*
 * Bounded sleep sets and enabledness (a review's case): task P holds lock L,
 * appends itself to the lock's log, releases L and ends; X1 and X2 (waiters)
 * take L and append themselves; Q stores q, Z loads it. P's last step (the
 * release) is a sleeper's step; a waiter's step that ends at the acquire's yield
 * point parks on L without touching it, so it neither wakes P nor conflicts with
 * it, yet it changes what the schedule standing for the pruned one pays: with P
 * run first the waiters find L free and each switch away from them is a
 * preemption. The outcome (the log's order and what Z read) depends on the
 * order, so a schedule the bound admits but DPOR loses shows as a missing
 * outcome. Layouts: the waiters on other CPUs than P, or on P's CPU; a third
 * waiter.
 *
 * The outcome also holds the lock's contended count (takers that found L held
 * and blocked): a waiter that blocked while P held L, woke at P's release and
 * found L taken by the other woken waiter first is an order of the RMW steps on
 * L that no log or load tells from the one where it took L first, and DPOR lost
 * it, bounded or not, until a step that disables a woken lock waiter counted as
 * a race with the waiter's pending step (explore_dpor.c, pending_races).
 */
struct park_layout {
	const char *name;
	unsigned int nr_waiters;
	unsigned int cpu_p, cpu_q, cpu_z, cpu_x[3];
	/* waiters that can block on L at once while P holds it (one per CPU other
	 * than P's: the tasks of one CPU run in order) */
	unsigned int blockers;
};

struct park_state {
	struct msim_lock l;
	long log, q, z_seen;
	struct { struct park_state *s; long id; } who[5];
};

/* The run's outcome: the log (base 4, the order L was taken in), what Z read and
 * L's contended count (at most one block per taker: a woken waiter runs only
 * once L is free, sched_options.c wait_satisfied, so it is under 8). */
static uint64_t park_last;

static void park_append(struct park_state *s, long id)
{
	long v = msim_load_at(&s->log, MSIM_RELAXED, "park.log_load");

	msim_store_at(&s->log, v * 4 + id, MSIM_RELAXED, "park.log_store");
}

static void park_p(void *arg)
{
	struct park_state *s = arg;

	msim_lock(&s->l);
	park_append(s, 1);
	msim_unlock(&s->l);
}

static void park_waiter(void *arg)
{
	typeof(((struct park_state *)0)->who[0]) *w = arg;

	msim_lock(&w->s->l);
	park_append(w->s, w->id);
	msim_unlock(&w->s->l);
}

static void park_q(void *arg)
{
	struct park_state *s = arg;

	msim_store_at(&s->q, 1, MSIM_RELAXED, "park.q_store");
}

static void park_z(void *arg)
{
	struct park_state *s = arg;

	s->z_seen = msim_load_at(&s->q, MSIM_RELAXED, "park.q_load");
}

static int park_setup(struct msim *m, void **state, void *arg)
{
	const struct park_layout *lay = arg;
	struct park_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*state = s;
	msim_lock_init(&s->l, "park.L");
	if (!msim_task_create(m, "park.p", lay->cpu_p, park_p, s))
		return -ENOMEM;
	for (unsigned int i = 0; i < lay->nr_waiters; i++) {
		s->who[i].s = s;
		s->who[i].id = 2 + (long)i;
		if (!msim_task_create(m, "park.x", lay->cpu_x[i], park_waiter, &s->who[i]))
			return -ENOMEM;
	}
	if (!msim_task_create(m, "park.q", lay->cpu_q, park_q, s) ||
	    !msim_task_create(m, "park.z", lay->cpu_z, park_z, s))
		return -ENOMEM;
	return 0;
}

static bool park_check(struct msim *m, void *state, char *why, size_t len)
{
	struct park_state *s = state;

	(void)m, (void)why, (void)len;
	park_last = ((uint64_t)s->log * 2 + (uint64_t)s->z_seen) * 8 + s->l.contended;
	return false;
}

static void park_teardown(struct msim *m, void *state)
{
	struct park_state *s = state;

	(void)m;
	msim_lock_destroy(&s->l);
	free(s);
}

static void park_collect(const struct msim_explore_run *run, void *arg)
{
	if (!run->pruned && !run->violated)
		outcome_add(arg, park_last);
}

static void park_explore(const struct park_layout *lay, enum msim_strategy strategy,
			 unsigned int bound, struct outcome_set *out, struct msim_explore_result *res)
{
	struct msim_explore_target t = {
		.name = lay->name, .setup = park_setup, .check = park_check,
		.teardown = park_teardown, .arg = (void *)lay,
	};
	struct msim_explore_opts o = {
		.strategy = strategy, .runs = 200000, .preemptions = bound,
		.on_run = park_collect, .on_run_arg = out,
	};
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 4;
	out->n = 0;
	assert_int_equal(msim_explore(&t, &cfg, &o, res), 0);
	assert_true(res->exhausted);
}

static const struct park_layout park_layouts[] = {
	{ "park-other-cpus", 2, 0, 1, 1, { 2, 3 }, 2 },
	{ "park-p-cpu", 2, 0, 1, 3, { 0, 2 }, 1 },
	{ "park-three", 3, 0, 1, 1, { 2, 3, 2 }, 2 },
};

/* Outcomes of want that got lacks, printed; how many. */
static size_t park_missing(const struct outcome_set *want, const struct outcome_set *got)
{
	for (size_t k = 0; k < want->n; k++)
		if (!outcome_has(got, want->v[k]))
			print_message("  missing: log %llu z %llu contended %llu\n",
				      (unsigned long long)(want->v[k] / 16),
				      (unsigned long long)(want->v[k] / 8 % 2),
				      (unsigned long long)(want->v[k] % 8));
	return outcomes_missing(want, got);
}

/* The most takers that blocked on L in one run of set s. */
static uint64_t park_most_contended(const struct outcome_set *s)
{
	uint64_t most = 0;

	for (size_t k = 0; k < s->n; k++)
		if (s->v[k] % 8 > most)
			most = s->v[k] % 8;
	return most;
}

/*
 * Bounded DPOR sees what DFS sees under the same bound; unbounded DPOR sees all
 * of that too (every bounded schedule is a schedule). At bound 1 and above DFS
 * reaches runs in which every waiter that can block at once did (P preempted
 * inside its section), the case the contended count is in the outcome for.
 */
static void bounded_sleep_waiters_park(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < sizeof(park_layouts) / sizeof(park_layouts[0]); i++) {
		struct outcome_set unb = { 0 };
		struct msim_explore_result ru;

		park_explore(&park_layouts[i], MSIM_STRAT_DPOR, MSIM_EXPLORE_UNBOUNDED, &unb, &ru);
		for (unsigned int bound = 0; bound <= 2; bound++) {
			struct outcome_set dfs = { 0 }, dpor = { 0 };
			struct msim_explore_result rd, rp;
			size_t missing, unb_missing;

			park_explore(&park_layouts[i], MSIM_STRAT_DFS, bound, &dfs, &rd);
			park_explore(&park_layouts[i], MSIM_STRAT_DPOR, bound, &dpor, &rp);
			missing = park_missing(&dfs, &dpor);
			unb_missing = park_missing(&dfs, &unb);
			print_message("%s bound %u: dfs %u runs %zu outcomes, dpor %u (%u pruned) "
				      "%zu outcomes, %zu missing; unbounded dpor %u (%u pruned) %zu "
				      "outcomes, %zu missing\n", park_layouts[i].name, bound, rd.runs,
				      dfs.n, rp.runs, rp.pruned, dpor.n, missing, ru.runs, ru.pruned,
				      unb.n, unb_missing);
			if (bound >= 1)
				assert_true(park_most_contended(&dfs) >= park_layouts[i].blockers);
			assert_int_equal(missing, 0);
			assert_int_equal(outcomes_missing(&dpor, &dfs), 0);
			assert_int_equal(unb_missing, 0);
			free(dfs.v);
			free(dpor.v);
		}
		free(unb.v);
	}
}

/* Race r on side (name) under o; the caller frees. */
static struct msim_race_result *race_side_opts(const struct msim_race *r, const char *side,
					       const struct msim_race_opts *o)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	char err[512] = "";

	assert_non_null(res);
	if (msim_race_run_side(r, side, o, res, err, sizeof(err)))
		fail_msg("race %s side %s: %s", r->name, side, err);
	return res;
}

/* Race r on side s under strategy and the race's own budget; the caller frees. */
static struct msim_race_result *race_side(const struct msim_race *r, const struct msim_race_side *s,
					  enum msim_strategy strategy, bool first)
{
	struct msim_race_opts o;

	msim_race_opts_init(&o, strategy);
	o.stop_at_first = first;
	return race_side_opts(r, s->name, &o);
}

/*
 * A run DPOR stops early (every enabled step asleep) can leave a call_rcu
 * callback queued: the host runs it when it is destroyed, after the scenario's
 * teardown. toy-rcu-reader's callback used the freed state there (a crash in
 * run 4104 of unbounded DPOR); the space is exhausted only past 100000 runs.
 */
static void pruned_run_with_callback_queued_tears_down(void **unused)
{
	struct msim_race_opts o;
	struct msim_race_result *res;

	msim_race_opts_init(&o, MSIM_STRAT_DPOR);
	o.preemptions = MSIM_EXPLORE_UNBOUNDED;
	o.runs = 6000;
	res = race_side_opts(race_get("toy-rcu-reader"), "rcu", &o);
	assert_int_equal(res->ex.runs, 6000);
	assert_true(res->ex.pruned > 0);
	assert_int_equal(res->ex.violations, 0);
	free(res);
}

/*
 * Every bug side of every registered race: DPOR under the race's budget finds
 * the violation, and its schedule replays to the same trace and reason (races
 * with interrupt sources included: explore_dpor_irq.c).
 */
static void dpor_finds_every_bug(void **unused)
{
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64);

	(void)unused;
	for (size_t i = 0; i < n && i < 64; i++) {
		for (const struct msim_race_side *s = races[i]->sides; s && s->name; s++) {
			struct msim_race_result *res, *rep;
			char err[512] = "";

			if (!s->violation)
				continue;
			res = race_side(races[i], s, MSIM_STRAT_DPOR, true);
			print_message("%s/%s: violation in run %d\n", races[i]->name, s->name,
				      res->ex.first_violation_run);
			/* every bug side, rstat-thp-trace's 96-CPU ones too (bounded DFS
			 * finds those in no budget it can afford: its race gives DPOR
			 * its own, budget.dpor_runs) */
			assert_true(res->ex.violations > 0);
			rep = calloc(1, sizeof(*rep));
			assert_non_null(rep);
			assert_int_equal(msim_race_replay(races[i], &res->cfg, s, res->ex.schedule, rep,
							  err, sizeof(err)), 0);
			assert_true(rep->ex.violations == 1);
			assert_true(rep->ex.trace_hash == res->ex.trace_hash);
			free(rep);
			free(res);
		}
	}
}

/*
 * budget.dpor_runs is DPOR's cap under the race's own bound only:
 * rstat-thp-trace's 96-CPU bug side is found past its DFS budget (300) there,
 * while DFS, and DPOR with no bound, stop at 300.
 */
static void dpor_budget_is_the_own_bounds(void **unused)
{
	const struct msim_race *r = race_get("rstat-thp-trace");
	const struct msim_race_side *s = msim_race_side_find(r, "bug");
	struct msim_race_opts o;
	struct msim_race_result *dpor, *dfs, *unbounded;

	(void)unused;
	assert_true(r->budget.dpor_runs > r->budget.dfs_runs);
	dpor = race_side(r, s, MSIM_STRAT_DPOR, true);
	dfs = race_side(r, s, MSIM_STRAT_DFS, true);
	msim_race_opts_init(&o, MSIM_STRAT_DPOR);
	o.preemptions = MSIM_EXPLORE_UNBOUNDED;
	o.stop_at_first = true;
	unbounded = race_side_opts(r, "bug", &o);
	assert_true(dpor->ex.violations > 0);
	assert_true(dpor->ex.runs > r->budget.dfs_runs);
	assert_int_equal(dfs->ex.runs, r->budget.dfs_runs);
	assert_int_equal(unbounded->ex.runs, r->budget.dfs_runs);
	free(dpor);
	free(dfs);
	free(unbounded);
}

/*
 * Fixed sides that DFS exhausts under the race's budget: DPOR exhausts them too,
 * without a violation, in no more schedules.
 */
static void dpor_exhausts_fixed_sides(void **unused)
{
	static const char *const fixed[][2] = {
		{ "rstat-early-exit", "fix" }, { "rstat-lost-batch", "values" },
		{ "shrinker-bit-recount", "fix" }, { "rstat-stale-parent", "fix" },
	};

	(void)unused;
	for (unsigned int i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		const struct msim_race *r = race_get(fixed[i][0]);
		const struct msim_race_side *s = msim_race_side_find(r, fixed[i][1]);
		struct msim_race_result *dpor, *dfs;

		assert_non_null(s);
		dpor = race_side(r, s, MSIM_STRAT_DPOR, false);
		dfs = race_side(r, s, MSIM_STRAT_DFS, false);
		print_message("%s/%s: dpor %u schedules, dfs %u\n", r->name, s->name, dpor->ex.runs,
			      dfs->ex.runs);
		assert_true(dfs->ex.exhausted);
		assert_true(dpor->ex.exhausted);
		assert_int_equal(dpor->ex.violations, 0);
		assert_true(dpor->ex.runs <= dfs->ex.runs);
		free(dpor);
		free(dfs);
	}
}

/*
 * S1's barrier pair under weak memory (shrinker-bit-barrier): unbounded DPOR
 * exhausts every fixed side, and finds pso-none's violation, with runs pruned.
 * A pruned run stops with tasks parked anywhere, a reader in its section or a
 * shrink holding the shrinker's reference: its teardown (rmdir, umount) aborted
 * in synchronize_rcu and then waited forever in shrinker_free before
 * msim_tasks_abandoned.
 */
static void dpor_unbounded_weak_memory_sides(void **unused)
{
	const struct msim_race *r = race_get("shrinker-bit-barrier");
	unsigned int pruned = 0;

	(void)unused;
	for (const struct msim_race_side *s = r->sides; s && s->name; s++) {
		struct msim_race_opts o;
		struct msim_race_result *res;

		msim_race_opts_init(&o, MSIM_STRAT_DPOR);
		o.preemptions = MSIM_EXPLORE_UNBOUNDED;
		res = race_side_opts(r, s->name, &o);
		print_message("%s: %u schedules, %u pruned, %u violations\n", s->name, res->ex.runs,
			      res->ex.pruned, res->ex.violations);
		assert_true(res->ex.exhausted);
		assert_true(res->behaved_as_expected);
		pruned += res->ex.pruned;
		free(res);
	}
	assert_true(pruned > 0); /* the teardown of a stopped run was exercised */
}

/*
 * --minimize on rstat-early-exit: a random explorer's first failing schedule
 * (dozens of preemptions) shrinks to one that still fails on replay, has no
 * more preemptions than the input, and no more than the thread's diagram has
 * (two: the flush is preempted by the updater's batch, and the updater by the
 * flush going on); every preemption names its yield point.
 */
static void minimize_rstat_early_exit(void **unused)
{
	const struct msim_race *r = race_get("rstat-early-exit");
	const struct msim_race_side *s = msim_race_side_find(r, "bug");
	struct msim_race_result *found, *rep;
	struct msim_minimize_result *mr = calloc(1, sizeof(*mr));
	char err[512] = "";

	(void)unused;
	assert_non_null(mr);
	found = race_side(r, s, MSIM_STRAT_RANDOM, true);
	assert_true(found->ex.violations > 0);
	assert_int_equal(msim_race_minimize(r, &found->cfg, s, found->ex.schedule, mr, err,
					    sizeof(err)), 0);
	print_message("input %u preemptions, minimal %u: %s\n", mr->input_preemptions,
		      mr->ex.preemptions, mr->ex.schedule);
	assert_int_equal(mr->input_preemptions, found->ex.preemptions);
	assert_true(mr->ex.preemptions <= mr->input_preemptions);
	assert_true(mr->ex.preemptions <= 2);
	assert_true(mr->ex.preemptions < mr->input_preemptions); /* random takes many */
	for (unsigned int i = 0; i < mr->ex.preemptions; i++)
		assert_non_null(mr->ex.preempt_log[i].at);
	rep = calloc(1, sizeof(*rep));
	assert_non_null(rep);
	assert_int_equal(msim_race_replay(r, &found->cfg, s, mr->ex.schedule, rep, err,
					  sizeof(err)), 0);
	assert_int_equal(rep->ex.violations, 1);
	assert_false(rep->ex.diverged);
	assert_true(rep->ex.trace_hash == mr->ex.trace_hash);
	assert_int_equal(rep->ex.preemptions, mr->ex.preemptions);
	/* a schedule that does not fail is refused */
	assert_int_equal(msim_race_minimize(r, &found->cfg, s, "0", mr, err, sizeof(err)),
			 -ESRCH);
	free(rep);
	free(found);
	free(mr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dpor_counts_traces),
		cmocka_unit_test(dpor_drains_litmus),
		cmocka_unit_test(bounded_dpor_sees_what_dfs_sees),
		cmocka_unit_test(bounded_sleep_waiters_park),
		cmocka_unit_test(dpor_finds_every_bug),
		cmocka_unit_test(dpor_budget_is_the_own_bounds),
		cmocka_unit_test(pruned_run_with_callback_queued_tears_down),
		cmocka_unit_test(dpor_exhausts_fixed_sides),
		cmocka_unit_test(dpor_unbounded_weak_memory_sides),
		cmocka_unit_test(minimize_rstat_early_exit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
