/* SPDX-License-Identifier: MIT */
/*
 * test_explore_dpor_irq.c - source-DPOR over interrupt arrivals
 * (explore_dpor_irq.c): toys whose traces are counted by hand, against DFS with
 * no bound on what the runs see, and the races with interrupt sources.
 *
 * A toy context is a task or an interrupt source (firing at most once) with a
 * list of shim accesses on cells x, y, z, w (each a yield point announcing its
 * access) and of irq save/restore and bottom-half disable/enable (no yield
 * point). Its steps: start (or arrival) to its first yield point, then one step
 * per access. Every step of a CPU's contexts is dependent with every other step
 * of that CPU; steps of different CPUs are dependent when they touch one cell
 * and one stores. A trace is then
 * fixed by where each handler arrived (or that it never did) and the order of
 * the conflicting cross-CPU pairs. Counted by hand:
 *
 *  - hardirq-reads-percpu: T (CPU 0) stores x, stores y; hardirq H (CPU 0) loads
 *    x; U (CPU 1) stores z, which nobody reads. H arrives at a yield point of T:
 *    before its store of x (reads 0), before its store of y (reads 1), or never
 *    (T's start is not a yield point, and after T's end there is nothing to
 *    interrupt). U commutes with everything: 3 traces, 3 outcomes.
 *  - irqs-off: T saves irqs, stores x, restores, stores y; H loads x. T's first
 *    yield point has irqs off: H arrives before the store of y (reads 1) or
 *    never: 2 traces, 2 outcomes (H never reads 0).
 *  - nmi-nests-hardirq: T (CPU 0) stores x; hardirq H loads w, stores y; NMI N
 *    stores w, loads y; all on CPU 0, so every schedule is its own trace. At T's
 *    point: T ends (1); or H arrives and N arrives over H at its first point
 *    (1), at its second (1), after H returns (1), or never (1); or N arrives
 *    first and H after it (1) or never (1): 7 traces, each its own outcome
 *    (what H and N read, and the order the handlers started and returned).
 *  - softirq-bh-off: T (CPU 0) disables bottom halves, stores x, enables them,
 *    stores y; softirq S and hardirq H (CPU 0) each load x. At T's first point
 *    (bh off) only H arrives: then S at T's second point (1) or never (1); or T
 *    goes on to its second point, where nothing arrives (1), H arrives and S
 *    after it (1) or never (1), or S arrives and H after it (1), never (1), or
 *    over S at its load (1): 8 traces, 8 outcomes (what each read: 0 at the
 *    first point, 1 at the second; the order the handlers started, returned).
 *  - handler-vs-remote: T (CPU 0) stores x; hardirq H (CPU 0) stores x; U
 *    (CPU 1) loads x. Without H, U's load is before or after T's store (2);
 *    with H (it arrives at T's only point, so it stores first), before both,
 *    between, after both (3): 5 traces, 5 outcomes.
 *
 * DPOR with no bound must run exactly that many schedules to the end, none
 * pruned, exhaust, and see the same outcomes as DFS with no bound. Then 300
 * toys drawn at random are held to the same outcomes as DFS (with no bound and
 * under bounds 0 to 2; with no bound under preempt=none and full too), and the
 * three races with interrupt sources to their bug and fix sides.
 */
#include <errno.h>

#include "race_util.h"

#define MAX_OPS 4
#define MAX_CTX 3
#define MAX_OUTCOMES 256

enum op { OP_END = 0, LOAD_X, LOAD_Y, LOAD_W, STORE_X, STORE_Y, STORE_W, STORE_Z, IRQ_SAVE,
	  IRQ_RESTORE, BH_OFF, BH_ON };

struct toy_ctx {
	unsigned int cpu;
	enum msim_context_kind kind;   /* TASK, or the kind of an interrupt source */
	enum op ops[MAX_OPS];
};

struct toy {
	const char *name;
	unsigned int nr;
	struct toy_ctx ctx[MAX_CTX];
	unsigned int traces;           /* counted by hand (the comment above) */
	unsigned int outcomes;
};

struct toy_state;

struct toy_arg {
	struct toy_state *s;
	unsigned int idx;
};

struct toy_state {
	const struct toy *toy;
	long x, y, z, w;
	long seen[MAX_CTX][MAX_OPS];   /* what each load read; -1: not run */
	/* per CPU, its handlers' starts ('A'+i) and returns ('a'+i), in order */
	char order[2][2 * MAX_CTX + 1];
	unsigned int nr_order[2];
	struct toy_arg arg[MAX_CTX];
};

/* The preemption model of the toys' hosts. */
static enum msim_preempt_model toy_preempt = MSIM_PREEMPT_UNMODELLED;

/* The distinct outcomes of the complete runs of one exploration. */
static uint64_t outcome[MAX_OUTCOMES];
static unsigned int nr_outcomes;

static void note_order(struct toy_state *s, unsigned int cpu, char c)
{
	if (s->nr_order[cpu] < sizeof(s->order[cpu]) - 1)
		s->order[cpu][s->nr_order[cpu]++] = c;
}

static long *cell(struct toy_state *s, enum op op)
{
	switch (op) {
	case LOAD_X: case STORE_X: return &s->x;
	case LOAD_Y: case STORE_Y: return &s->y;
	case LOAD_W: case STORE_W: return &s->w;
	default: return &s->z;
	}
}

static void run_op(struct toy_state *s, unsigned int idx, unsigned int i, unsigned long *flags)
{
	enum op op = s->toy->ctx[idx].ops[i];

	switch (op) {
	case LOAD_X: case LOAD_Y: case LOAD_W:
		s->seen[idx][i] = msim_load_at(cell(s, op), MSIM_RELAXED, "toy.load");
		break;
	case STORE_X: case STORE_Y: case STORE_W: case STORE_Z:
		msim_store_at(cell(s, op), 1 + (long)idx, MSIM_RELAXED, "toy.store");
		break;
	case IRQ_SAVE:
		*flags = msim_local_irq_save();
		break;
	case IRQ_RESTORE:
		msim_local_irq_restore(*flags);
		break;
	case BH_OFF:
		msim_local_bh_disable();
		break;
	case BH_ON:
		msim_local_bh_enable();
		break;
	default:
		break;
	}
}

static void toy_body(void *p)
{
	struct toy_arg *a = p;
	struct toy_state *s = a->s;
	bool handler = s->toy->ctx[a->idx].kind != MSIM_CTX_TASK;
	unsigned int cpu = s->toy->ctx[a->idx].cpu;
	unsigned long flags = 0;

	if (handler)
		note_order(s, cpu, (char)('A' + a->idx));
	for (unsigned int i = 0; i < MAX_OPS && s->toy->ctx[a->idx].ops[i]; i++)
		run_op(s, a->idx, i, &flags);
	if (handler)
		note_order(s, cpu, (char)('a' + a->idx));
}

static int toy_setup(struct msim *m, void **state, void *arg)
{
	const struct toy *toy = arg;
	struct toy_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*state = s;
	s->toy = toy;
	memset(s->seen, 0xff, sizeof(s->seen));
	for (unsigned int i = 0; i < toy->nr; i++) {
		const struct toy_ctx *c = &toy->ctx[i];
		struct msim_task *t;

		s->arg[i] = (struct toy_arg){ .s = s, .idx = i };
		if (c->kind == MSIM_CTX_TASK)
			t = msim_task_create(m, "toy", c->cpu, toy_body, &s->arg[i]);
		else
			t = msim_irq_source_create(m, "toy-irq", c->cpu, c->kind, 1, toy_body,
						   &s->arg[i]);
		if (!t)
			return -ENOMEM;
	}
	return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

/* Never a violation: records the outcome (cells, loads, the handlers' order). */
static bool toy_check(struct msim *m, void *state, char *why, size_t len)
{
	struct toy_state *s = state;
	uint64_t h = 0xcbf29ce484222325ULL;

	(void)m, (void)why, (void)len;
	h = mix(mix(mix(mix(h, (uint64_t)s->x), (uint64_t)s->y), (uint64_t)s->z), (uint64_t)s->w);
	for (unsigned int t = 0; t < MAX_CTX; t++)
		for (unsigned int i = 0; i < MAX_OPS; i++)
			h = mix(h, (uint64_t)s->seen[t][i]);
	for (unsigned int c = 0; c < 2; c++)
		for (unsigned int i = 0; i <= s->nr_order[c]; i++)
			h = mix(h, (uint64_t)s->order[c][i]);
	for (unsigned int i = 0; i < nr_outcomes; i++)
		if (outcome[i] == h)
			return false;
	assert_true(nr_outcomes < MAX_OUTCOMES);
	outcome[nr_outcomes++] = h;
	return false;
}

static void toy_teardown(struct msim *m, void *state)
{
	(void)m;
	free(state);
}

static void explore_toy(const struct toy *toy, enum msim_strategy strategy, unsigned int bound,
			struct msim_explore_result *res)
{
	struct msim_explore_target t = {
		.name = toy->name, .setup = toy_setup, .check = toy_check,
		.teardown = toy_teardown, .arg = (void *)toy,
	};
	struct msim_explore_opts o = { .strategy = strategy, .runs = 100000, .preemptions = bound };
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 2;
	cfg.preempt = toy_preempt;
	nr_outcomes = 0;
	assert_int_equal(msim_explore(&t, &cfg, &o, res), 0);
	assert_int_equal(res->violations, 0);
}

/* The same set of outcomes (each list holds distinct values). */
static bool same_outcomes(const uint64_t *a, unsigned int na, const uint64_t *b, unsigned int nb)
{
	if (na != nb)
		return false;
	for (unsigned int i = 0; i < na; i++) {
		bool found = false;

		for (unsigned int j = 0; j < nb && !found; j++)
			found = a[i] == b[j];
		if (!found)
			return false;
	}
	return true;
}

#define TASK(c, ...) { .cpu = c, .kind = MSIM_CTX_TASK, .ops = { __VA_ARGS__ } }
#define SRC(c, k, ...) { .cpu = c, .kind = k, .ops = { __VA_ARGS__ } }

static const struct toy toys[] = {
	{ "hardirq-reads-percpu", 3,
	  { TASK(0, STORE_X, STORE_Y), SRC(0, MSIM_CTX_HARDIRQ, LOAD_X), TASK(1, STORE_Z) },
	  3, 3 },
	{ "irqs-off", 2,
	  { TASK(0, IRQ_SAVE, STORE_X, IRQ_RESTORE, STORE_Y), SRC(0, MSIM_CTX_HARDIRQ, LOAD_X) },
	  2, 2 },
	{ "nmi-nests-hardirq", 3,
	  { TASK(0, STORE_X), SRC(0, MSIM_CTX_HARDIRQ, LOAD_W, STORE_Y),
	    SRC(0, MSIM_CTX_NMI, STORE_W, LOAD_Y) },
	  7, 7 },
	{ "softirq-bh-off", 3,
	  { TASK(0, BH_OFF, STORE_X, BH_ON, STORE_Y), SRC(0, MSIM_CTX_SOFTIRQ, LOAD_X),
	    SRC(0, MSIM_CTX_HARDIRQ, LOAD_X) },
	  8, 8 },
	{ "handler-vs-remote", 3,
	  { TASK(0, STORE_X), SRC(0, MSIM_CTX_HARDIRQ, STORE_X), TASK(1, LOAD_X) },
	  5, 5 },
};

#define NR_TOYS (sizeof(toys) / sizeof(toys[0]))

static void dpor_counts_irq_traces(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < NR_TOYS; i++) {
		struct msim_explore_result dpor, dfs;
		uint64_t seen[MAX_OUTCOMES];
		unsigned int nr_seen;

		explore_toy(&toys[i], MSIM_STRAT_DPOR, MSIM_EXPLORE_UNBOUNDED, &dpor);
		memcpy(seen, outcome, sizeof(seen));
		nr_seen = nr_outcomes;
		explore_toy(&toys[i], MSIM_STRAT_DFS, MSIM_EXPLORE_UNBOUNDED, &dfs);
		print_message("%s: dpor %u schedules (%u pruned, %llu races), dfs %u; "
			      "outcomes %u/%u\n", toys[i].name, dpor.runs, dpor.pruned,
			      (unsigned long long)dpor.races, dfs.runs, nr_seen, nr_outcomes);
		assert_true(dpor.exhausted);
		assert_true(dfs.exhausted);
		assert_int_equal(dpor.runs - dpor.pruned, toys[i].traces);
		assert_int_equal(dpor.pruned, 0);
		assert_int_equal(nr_seen, toys[i].outcomes);
		assert_true(same_outcomes(seen, nr_seen, outcome, nr_outcomes));
		assert_true(dfs.runs >= dpor.runs);
	}
}

/*
 * Where a task of another CPU commutes with everything (hardirq-reads-percpu),
 * DFS runs its every interleaving and DPOR one: the reduction is real.
 */
static void dpor_reduces_remote_interleavings(void **unused)
{
	struct msim_explore_result dpor, dfs;

	(void)unused;
	explore_toy(&toys[0], MSIM_STRAT_DPOR, MSIM_EXPLORE_UNBOUNDED, &dpor);
	explore_toy(&toys[0], MSIM_STRAT_DFS, MSIM_EXPLORE_UNBOUNDED, &dfs);
	assert_true(dfs.runs > dpor.runs);
}

/* Under a preemption bound DPOR sees what DFS sees under the same bound. */
static void bounded_dpor_sees_what_dfs_sees(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < NR_TOYS; i++) {
		for (unsigned int bound = 0; bound <= 2; bound++) {
			struct msim_explore_result dpor, dfs;
			uint64_t seen[MAX_OUTCOMES];
			unsigned int nr_seen;

			explore_toy(&toys[i], MSIM_STRAT_DPOR, bound, &dpor);
			memcpy(seen, outcome, sizeof(seen));
			nr_seen = nr_outcomes;
			explore_toy(&toys[i], MSIM_STRAT_DFS, bound, &dfs);
			print_message("%s bound %u: dpor %u (%u pruned), dfs %u, outcomes %u/%u\n",
				      toys[i].name, bound, dpor.runs, dpor.pruned, dfs.runs,
				      nr_seen, nr_outcomes);
			assert_true(dpor.exhausted);
			assert_true(same_outcomes(seen, nr_seen, outcome, nr_outcomes));
			assert_true(dpor.runs - dpor.pruned <= dfs.runs);
		}
	}
}

/* ---- random toys ---- */

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * A toy drawn from seed: two or three contexts on two CPUs (the first a task,
 * the others tasks or sources of any kind), each one to three loads or stores
 * of x and y; a task may hold interrupts or bottom halves off over its first.
 */
static void random_toy(struct toy *t, uint64_t seed)
{
	static const enum op mem[] = { LOAD_X, LOAD_Y, STORE_X, STORE_Y };
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;

	memset(t, 0, sizeof(*t));
	t->name = "random";
	t->nr = 2 + (unsigned int)(rng_next(&x) % 2);
	for (unsigned int i = 0; i < t->nr; i++) {
		struct toy_ctx *c = &t->ctx[i];
		unsigned int n = 1 + (unsigned int)(rng_next(&x) % 3), k = 0, wrap;

		c->cpu = (unsigned int)(rng_next(&x) % 2);
		c->kind = i ? (enum msim_context_kind)(rng_next(&x) % 4) : MSIM_CTX_TASK;
		wrap = c->kind == MSIM_CTX_TASK ? (unsigned int)(rng_next(&x) % 4) : 0;
		if (wrap == 1 || wrap == 2) {
			c->ops[k++] = wrap == 1 ? IRQ_SAVE : BH_OFF;
			c->ops[k++] = mem[rng_next(&x) % 4];
			c->ops[k++] = wrap == 1 ? IRQ_RESTORE : BH_ON;
			n = 1;
		}
		while (n-- && k < MAX_OPS)
			c->ops[k++] = mem[rng_next(&x) % 4];
	}
}

/* Toy seeds 1..300 under bound: DPOR matches DFS, or the test fails. */
static void random_toys_under(unsigned int bound)
{
	unsigned int dpor_total = 0, dfs_total = 0;

	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct msim_explore_result dpor, dfs;
		uint64_t seen[MAX_OUTCOMES];
		unsigned int nr_seen;
		struct toy toy;

		random_toy(&toy, seed);
		explore_toy(&toy, MSIM_STRAT_DPOR, bound, &dpor);
		memcpy(seen, outcome, sizeof(seen));
		nr_seen = nr_outcomes;
		explore_toy(&toy, MSIM_STRAT_DFS, bound, &dfs);
		if (!same_outcomes(seen, nr_seen, outcome, nr_outcomes))
			fail_msg("random toy %llu, bound %u, preempt=%s: dpor saw %u outcomes, "
				 "dfs %u", (unsigned long long)seed, bound,
				 msim_preempt_name(toy_preempt), nr_seen, nr_outcomes);
		assert_true(dpor.exhausted && dfs.exhausted);
		assert_true(dpor.runs - dpor.pruned <= dfs.runs);
		dpor_total += dpor.runs;
		dfs_total += dfs.runs;
	}
	print_message("300 random toys, preempt=%s, bound %d: dpor %u schedules, dfs %u\n",
		      msim_preempt_name(toy_preempt),
		      bound == MSIM_EXPLORE_UNBOUNDED ? -1 : (int)bound, dpor_total, dfs_total);
}

/*
 * On 300 random toys, with no bound and under bounds 0 to 2, DPOR exhausts and
 * sees every outcome DFS under the same bound sees (cells, loads, each CPU's
 * handler order) and no other, in no more complete runs.
 */
static void dpor_matches_dfs_on_random_toys(void **unused)
{
	(void)unused;
	random_toys_under(MSIM_EXPLORE_UNBOUNDED);
	for (unsigned int bound = 0; bound <= 2; bound++)
		random_toys_under(bound);
}

/*
 * The same under preempt=none and full, with no bound: a task that holds its
 * CPU disables the others there, as an arrival disables what it interrupts
 * (explore_dpor.c's pending races; without them toys 15 and 26 lose outcomes).
 */
static void dpor_matches_dfs_under_preemption_models(void **unused)
{
	static const enum msim_preempt_model models[] = { MSIM_PREEMPT_NONE, MSIM_PREEMPT_FULL };

	(void)unused;
	for (unsigned int i = 0; i < 2; i++) {
		toy_preempt = models[i];
		random_toys_under(MSIM_EXPLORE_UNBOUNDED);
	}
	toy_preempt = MSIM_PREEMPT_UNMODELLED;
}

/* ---- the races with interrupt sources ---- */

static struct msim_race_result *race_side(const char *race, const char *side,
					  enum msim_strategy strategy, bool unbounded, bool first)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_race_opts o;
	char err[512] = "";

	assert_non_null(res);
	msim_race_opts_init(&o, strategy);
	o.stop_at_first = first;
	if (unbounded)
		o.preemptions = MSIM_EXPLORE_UNBOUNDED;
	if (msim_race_run_side(race_get(race), side, &o, res, err, sizeof(err)))
		fail_msg("race %s side %s: %s", race, side, err);
	return res;
}

static const char *const irq_races[] = { "rstat-enqueue-claim", "nmi-drain-local",
					 "nmi-drain-vmstats" };

/*
 * Each bug side: DPOR (under the race's bound) finds the violation, and its
 * schedule, which names the arrival, replays to the same trace.
 */
static void dpor_finds_irq_bugs(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < 3; i++) {
		const struct msim_race *r = race_get(irq_races[i]);
		struct msim_race_result *res = race_side(irq_races[i], "bug", MSIM_STRAT_DPOR,
							 false, true);
		struct msim_race_result *rep = calloc(1, sizeof(*rep));
		char err[512] = "";

		assert_non_null(rep);
		print_message("%s/bug: dpor violation in run %d: %s\n", irq_races[i],
			      res->ex.first_violation_run, res->ex.schedule);
		assert_true(res->ex.violations > 0);
		assert_non_null(strchr(res->ex.schedule, '!'));
		assert_int_equal(msim_race_replay(r, &res->cfg, msim_race_side_find(r, "bug"),
						  res->ex.schedule, rep, err, sizeof(err)), 0);
		assert_int_equal(rep->ex.violations, 1);
		assert_true(rep->ex.trace_hash == res->ex.trace_hash);
		free(rep);
		free(res);
	}
}

/*
 * Each fix side: DPOR exhausts the race's bounded space without a violation, in
 * no more schedules than DFS, which exhausts it too.
 */
static void dpor_exhausts_irq_fixes(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < 3; i++) {
		struct msim_race_result *dpor = race_side(irq_races[i], "fix", MSIM_STRAT_DPOR,
							  false, false);
		struct msim_race_result *dfs = race_side(irq_races[i], "fix", MSIM_STRAT_DFS,
							 false, false);

		print_message("%s/fix: dpor %u schedules, dfs %u\n", irq_races[i], dpor->ex.runs,
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
 * rstat-enqueue-claim with no bound: both CPU 0 contexts, so DPOR exhausts its
 * fix side as DFS does, and finds its bug side.
 */
static void dpor_unbounded_enqueue_claim(void **unused)
{
	struct msim_race_result *fix = race_side("rstat-enqueue-claim", "fix", MSIM_STRAT_DPOR,
						 true, false);
	struct msim_race_result *dfs = race_side("rstat-enqueue-claim", "fix", MSIM_STRAT_DFS,
						 true, false);
	struct msim_race_result *bug = race_side("rstat-enqueue-claim", "bug", MSIM_STRAT_DPOR,
						 true, true);

	(void)unused;
	print_message("rstat-enqueue-claim unbounded: fix dpor %u, dfs %u; bug in run %d\n",
		      fix->ex.runs, dfs->ex.runs, bug->ex.first_violation_run);
	assert_true(fix->ex.exhausted);
	assert_true(dfs->ex.exhausted);
	assert_int_equal(fix->ex.violations, 0);
	assert_true(fix->ex.runs <= dfs->ex.runs);
	assert_true(bug->ex.violations > 0);
	free(fix);
	free(dfs);
	free(bug);
}

/*
 * --minimize on an arrival: DPOR's failing schedule of rstat-enqueue-claim names
 * the softirq's arrival ("!1"); the minimizer reads and writes it, proves one
 * preemption the fewest (the arrival inside the task's window), and its log
 * names the source's task index as the one that ran.
 */
static void minimize_keeps_arrivals(void **unused)
{
	const struct msim_race *r = race_get("rstat-enqueue-claim");
	const struct msim_race_side *s = msim_race_side_find(r, "bug");
	struct msim_race_result *found = race_side(r->name, "bug", MSIM_STRAT_DPOR, false, true);
	struct msim_minimize_result *mr = calloc(1, sizeof(*mr));
	struct msim_race_result *rep = calloc(1, sizeof(*rep));
	char err[512] = "";

	(void)unused;
	assert_non_null(mr);
	assert_non_null(rep);
	assert_int_equal(msim_race_minimize(r, &found->cfg, s, found->ex.schedule, mr, err,
					    sizeof(err)), 0);
	print_message("minimal: %s (%u preemptions)\n", mr->ex.schedule, mr->ex.preemptions);
	assert_non_null(strstr(mr->ex.schedule, "!1"));
	assert_int_equal(mr->ex.preemptions, 1);
	assert_true(mr->proven);
	assert_int_equal(mr->ex.preempt_log[0].to, 1);
	assert_int_equal(msim_race_replay(r, &found->cfg, s, mr->ex.schedule, rep, err,
					  sizeof(err)), 0);
	assert_int_equal(rep->ex.violations, 1);
	free(rep);
	free(mr);
	free(found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dpor_counts_irq_traces),
		cmocka_unit_test(dpor_reduces_remote_interleavings),
		cmocka_unit_test(bounded_dpor_sees_what_dfs_sees),
		cmocka_unit_test(dpor_matches_dfs_on_random_toys),
		cmocka_unit_test(dpor_matches_dfs_under_preemption_models),
		cmocka_unit_test(dpor_finds_irq_bugs),
		cmocka_unit_test(dpor_exhausts_irq_fixes),
		cmocka_unit_test(dpor_unbounded_enqueue_claim),
		cmocka_unit_test(minimize_keeps_arrivals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
