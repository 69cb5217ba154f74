/* SPDX-License-Identifier: MIT */
/*
 * race_flush.c - an experiment that defines its own race through
 * <memcgsim/race.h>, written only against the installed libmemcgsim.
 *
 * A per-CPU counter: CPU 1 adds to its pending count, and a flusher on CPU 0 folds
 * that count into a total and resets it. The bug side folds with a read and then
 * a reset (atomic_read, atomic_set: the shape of the kernel's race R2); the fix
 * side swaps the count for 0 in one atomic_xchg. The race states both sides and
 * the exact figures its script reaches on each; the program runs each side
 * scripted and under the random, PCT and DFS explorers, and checks every run
 * against what its side states (msim_race_verify: the verdict, the figures, and
 * for a violation found that its schedule replays to the identical trace).
 *
 * Every line printed is deterministic; the last is "result: PASS" when every run
 * behaved as its side states (exit status 0), else "result: FAIL" (status 1).
 * Build: see CMakeLists.txt (find_package) and Makefile (pkg-config) next to it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/race.h>

#define ADDS 3

/* How the flusher folds the count: the side's target argument. */
struct fold {
	bool swap;              /* atomic_xchg instead of atomic_read + atomic_set */
	const char *window;     /* the yield point the script parks the flusher at */
};
static const struct fold read_then_reset = { false, "atomic_set" };
static const struct fold swap_for_zero = { true, "atomic_xchg" };

struct counter {
	msim_atomic_long_t *pending;      /* per-CPU */
	long total, adds;
	const struct fold *fold;
	struct msim_task *flusher, *adder;
};

static void adder(void *arg)
{
	struct counter *c = arg;

	for (int i = 0; i < ADDS; i++) {
		msim_atomic_long_add(msim_this_cpu_ptr(c->pending), 1);
		c->adds++;
	}
}

static void flusher(void *arg)
{
	struct counter *c = arg;
	msim_atomic_long_t *cpu1 = msim_per_cpu_ptr(c->pending, 1);

	if (c->fold->swap) {
		c->total += msim_atomic_long_xchg(cpu1, 0);
	} else {
		c->total += msim_atomic_long_read(cpu1);
		msim_atomic_long_set(cpu1, 0);
	}
}

static int setup(struct msim *m, void **state, void *arg)
{
	struct counter *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	*state = c;
	c->fold = arg ? arg : &read_then_reset;
	c->pending = msim_alloc_percpu(m, sizeof(*c->pending), "example");
	c->flusher = msim_task_create(m, "flusher", 0, flusher, c);
	c->adder = msim_task_create(m, "adder", 1, adder, c);
	return c->pending && c->flusher && c->adder ? 0 : -ENOMEM;
}

static long pending(const struct counter *c)
{
	return msim_atomic_long_read(msim_per_cpu_ptr(c->pending, 1));
}

/* Every add is in the total or still pending. */
static bool check(struct msim *m, void *state, char *why, size_t len)
{
	struct counter *c = state;
	long lost = c->adds - c->total - pending(c);

	(void)m;
	snprintf(why, len, "%ld adds, total %ld + pending %ld: %ld lost", c->adds, c->total,
		 pending(c), lost);
	return lost != 0;
}

static void teardown(struct msim *m, void *state)
{
	struct counter *c = state;

	if (c)
		msim_free_percpu(m, c->pending);
	free(c);
}

/* The diagram's schedule: two adds, the flusher up to its window, the third add. */
static int script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct counter *c = state;
	char why[128];
	int ret = msim_run_until(m, c->adder, "atomic_add", ADDS);

	if (!ret)
		ret = msim_run_until(m, c->flusher, c->fold->window, 1);
	if (!ret)
		ret = msim_run_task(m, c->adder);
	if (!ret)
		ret = msim_run(m);
	if (ret)
		return ret;
	rep->violated = check(m, c, why, sizeof(why));
	msim_race_note(rep, "%s", why);
	msim_race_fig_int(rep, "adds", c->adds);
	msim_race_fig_int(rep, "total", c->total);
	msim_race_fig_int(rep, "pending", pending(c));
	msim_race_fig_int(rep, "lost", c->adds - c->total - pending(c));
	return 0;
}

static const struct msim_race lost_flush = {
	.name = "example-lost-flush",
	.thread = "example",
	.summary = "a per-CPU count folded by a read and a reset loses the add in between",
	.diagram =
		"CPU 0 (flusher)                    CPU 1 (adder)\n"
		"---------------                    -------------\n"
		"                                   2 adds: pending = 2\n"
		"total += atomic_read(pending) (2)\n"
		"                                   1 add: pending = 3\n"
		"atomic_set(pending, 0)             <- the third add is lost\n",
	.budget = { .runs = 200, .pct_depth = 2, .preemptions = 1, .dfs_runs = 1000 },
	.target = { .setup = setup, .check = check, .teardown = teardown },
	.script = script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .arg = (void *)&read_then_reset, .violation = true,
		  .summary = "atomic_read, then atomic_set", .why = "lost",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("adds", 3), MSIM_RACE_EXPECT("total", 2),
			  MSIM_RACE_EXPECT("pending", 0), MSIM_RACE_EXPECT("lost", 1), { NULL } } },
		{ .name = "fix", .arg = (void *)&swap_for_zero, .dfs_exhausts = true,
		  .summary = "one atomic_xchg",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("adds", 3), MSIM_RACE_EXPECT("total", 3),
			  MSIM_RACE_EXPECT("pending", 0), MSIM_RACE_EXPECT("lost", 0), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(lost_flush)

/* One side under one strategy: run, verify, print one line. 0 when as stated. */
static int run_one(const char *side, enum msim_strategy strategy)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_race_opts o;
	char err[512] = "";
	int ret;

	if (!res)
		return -ENOMEM;
	msim_race_opts_init(&o, strategy);
	o.seed = 1;
	ret = msim_race_run_side(&lost_flush, side, &o, res, err, sizeof(err));
	if (!ret)
		ret = msim_race_verify(&lost_flush, res, err, sizeof(err));
	printf("%-4s %-6s %u runs, %u with a lost add", side, msim_strategy_name(strategy),
	       res->ex.runs, res->ex.violations);
	if (res->ex.violations)
		printf(" (first: run %d, schedule %s: %s)", res->ex.first_violation_run,
		       res->ex.schedule, res->ex.why);
	else if (res->ex.exhausted)
		printf(" (space exhausted)");
	printf(": %s%s\n", ret ? "NOT AS STATED, " : "as stated", ret ? err : "");
	free(res);
	return ret;
}

int main(void)
{
	static const enum msim_strategy strategies[] = {
		MSIM_STRAT_SCRIPT, MSIM_STRAT_RANDOM, MSIM_STRAT_PCT, MSIM_STRAT_DFS,
	};
	static const char *const sides[] = { "bug", "fix" };
	int failures = 0;

	printf("race %s: %s\n%s", lost_flush.name, lost_flush.summary, lost_flush.diagram);
	if (msim_race_find(lost_flush.name) != &lost_flush)
		failures++;
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 4; k++)
			failures += run_one(sides[s], strategies[k]) != 0;
	printf("result: %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
