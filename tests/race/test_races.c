/* SPDX-License-Identifier: MIT */
/*
 * test_races.c - the race runner: every row of race_list.h is one test, run
 * against what the race's scenario states (scenarios/, through msim_race_verify),
 * so no test repeats a diagram or a figure. The checks at the top of the list
 * test the list itself (every side listed) and the engine (a wrong side fails,
 * the registry and the settings refuse bad input).
 */
#include <errno.h>
#include <stdio.h>

#include "race_util.h"

enum row_kind { ROW_RUN, ROW_SERIAL, ROW_REFUSED, ROW_CHECK };

struct row {
	const char *name;
	enum row_kind kind;
	const char *race;
	const char *side;              /* ROW_REFUSED: the settings */
	enum msim_strategy strategy;
	unsigned int runs;
	uint64_t seed;
	const char *message;           /* ROW_REFUSED */
	void (*check)(void **state);   /* ROW_CHECK */
};

static void every_side_is_listed(void **state);
static void every_race_has_a_diagram_and_both_sides(void **state);
static void verify_finds_a_wrong_side(void **state);
static void registry_and_settings(void **state);

#define RACE(race, side, strat, runs, seed) \
	{ race " " side " " #strat, ROW_RUN, race, side, MSIM_STRAT_##strat, runs, seed, NULL, NULL },
#define RACE_SERIAL(race) \
	{ race " serial orders", ROW_SERIAL, race, NULL, MSIM_STRAT_DFS, 100, 0, NULL, NULL },
#define RACE_REFUSED(race, settings, msg) \
	{ race " refuses " settings, ROW_REFUSED, race, settings, MSIM_STRAT_SCRIPT, 0, 0, msg, NULL },
#define RACE_CHECK(fn) { #fn, ROW_CHECK, NULL, NULL, MSIM_STRAT_SCRIPT, 0, 0, NULL, fn },

static const struct row rows[] = {
#include "race_list.h"
};

#define NR_ROWS (sizeof(rows) / sizeof(rows[0]))

static struct msim_race_result *new_result(void)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));

	assert_non_null(res);
	return res;
}

/* Every figure the side states is in the run's --json object, as printed. */
static void check_json(const struct msim_race_result *res)
{
	char *buf = NULL, want[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	msim_race_print_json(f, res);
	fclose(f);
	snprintf(want, sizeof(want), "{\"race\": \"%s\", \"strategy\": \"script\"", res->race);
	if (strncmp(buf, want, strlen(want)))
		fail_msg("'%s' does not start %s", buf, want);
	for (const struct msim_race_expect *e = res->side->figures; e && e->key; e++) {
		const struct msim_race_fig *g = msim_race_fig_find(&res->rep, e->key);

		if (e->same_as || !g)
			continue;
		if (g->type == MSIM_RACE_FIG_BOOL)
			snprintf(want, sizeof(want), "\"%s\": %s", e->key, g->i ? "true" : "false");
		else if (g->type == MSIM_RACE_FIG_STR)
			snprintf(want, sizeof(want), "\"%s\": \"%s\"", e->key, e->str);
		else
			snprintf(want, sizeof(want), "\"%s\": %lld", e->key, e->value);
		if (!strstr(buf, want))
			fail_msg("'%s' missing from %s", want, buf);
	}
	free(buf);
}

static void run_row(const struct row *w)
{
	const struct msim_race *r = race_get(w->race);
	struct msim_race_result *res = new_result();
	struct msim_race_opts o;
	char err[1024] = "";
	int ret;

	msim_race_opts_init(&o, w->strategy);
	o.runs = w->runs;
	o.seed = w->seed;
	ret = msim_race_run_side(r, w->side, &o, res, err, sizeof(err));
	if (ret)
		fail_msg("%s: %s (%d)", w->name, err, ret);
	if (msim_race_verify(r, res, err, sizeof(err)))
		fail_msg("%s: %s", w->name, err);
	if (w->strategy == MSIM_STRAT_SCRIPT)
		check_json(res);
	free(res);
}

/* No preemption: each serial order runs, none reaches the bad state. */
static void serial_row(const struct row *w)
{
	const struct msim_race *r = race_get(w->race);
	struct msim_race_result *res = new_result();
	struct msim_race_opts o;
	char err[512] = "";

	assert_true(r->serial_orders > 0);
	msim_race_opts_init(&o, MSIM_STRAT_DFS);
	o.runs = w->runs;
	o.preemptions = 0;
	if (msim_race_run_side(r, r->sides[0].name, &o, res, err, sizeof(err)))
		fail_msg("%s: %s", w->name, err);
	assert_int_equal(res->ex.violations, 0);
	assert_true(res->ex.exhausted);
	assert_int_equal(res->ex.runs, r->serial_orders);
	free(res);
}

static void refused_row(const struct row *w)
{
	const struct msim_race *r = race_get(w->race);
	struct msim_race_result *res = new_result();
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[512] = "";

	msim_config_init(&cfg);
	assert_int_equal(msim_race_settings_apply(&cfg, w->side, err, sizeof(err)), 0);
	msim_race_opts_init(&o, w->strategy);
	assert_int_equal(msim_race_run(r, &cfg, &o, res, err, sizeof(err)), -EINVAL);
	if (!strstr(err, w->message))
		fail_msg("%s: the reason '%s' does not say '%s'", w->name, err, w->message);
	free(res);
}

static void row_test(void **state)
{
	const struct row *w = *state;

	switch (w->kind) {
	case ROW_RUN:
		run_row(w);
		break;
	case ROW_SERIAL:
		serial_row(w);
		break;
	case ROW_REFUSED:
		refused_row(w);
		break;
	default:
		w->check(state);
	}
}

static bool listed(enum row_kind kind, const char *race, const char *side,
		   enum msim_strategy strategy)
{
	for (size_t i = 0; i < NR_ROWS; i++)
		if (rows[i].kind == kind && !strcmp(rows[i].race, race) &&
		    (!side || !strcmp(rows[i].side, side)) && rows[i].strategy == strategy)
			return true;
	return false;
}

/* The list covers the registry: a new side or race cannot go untested. */
/*
 * Races with one side only, and why: no side can hold the invariant. An entry
 * that gains a fixed side fails the test, so the list cannot go stale.
 */
static const struct {
	const char *race, *why;
} one_sided[] = {
	{ "shrinker-id-reuse", "S3: shrinker_free() leaves a freed id's bits and "
	  "nr_deferred for the next shrinker that gets the id; no fix upstream" },
	{ "shrinker-offline-deferred", "S4: a shrink in flight at offline adds deferred "
	  "work the reparenting already read; no fix upstream" },
	{ "toy-abba-deadlock", "a toy of the deadlock report, not a kernel race" },
	{ "toy-percpu-reset", "a toy of the explorers (R1 in miniature), not a kernel race" },
	{ NULL, NULL },
};

static bool is_one_sided(const char *race)
{
	for (unsigned int i = 0; one_sided[i].race; i++)
		if (!strcmp(one_sided[i].race, race))
			return true;
	return false;
}

/*
 * Every race shows both sides, as the threads argue them: a diagram of its
 * interleaving in CPU columns, a side where the bad state is reachable and one
 * where the invariant holds (one_sided[] names the exceptions and why).
 */
static void every_race_has_a_diagram_and_both_sides(void **state)
{
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const struct msim_race *r = races[i];
		bool bad = false, good = false;

		if (!r->diagram || !strstr(r->diagram, "CPU"))
			fail_msg("race %s draws no CPU | CPU diagram", r->name);
		for (const struct msim_race_side *s = r->sides; s && s->name; s++) {
			bad |= s->violation;
			good |= !s->violation;
		}
		if (!bad)
			fail_msg("race %s lacks its buggy side", r->name);
		if (good == is_one_sided(r->name))
			fail_msg("race %s: %s", r->name, good ? "has a fixed side: drop it from "
				 "one_sided[]" : "lacks its fixed side");
	}
}

static void every_side_is_listed(void **state)
{
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64);

	assert_true(n > 0 && n <= 64);
	for (size_t i = 0; i < n; i++) {
		const struct msim_race *r = races[i];
		bool scripted = r->script || r->script_hosts;

		if (!r->sides || !r->sides[0].name)
			fail_msg("race %s states no side", r->name);
		for (const struct msim_race_side *s = r->sides; s->name; s++) {
			if (scripted && !listed(ROW_RUN, r->name, s->name, MSIM_STRAT_SCRIPT))
				fail_msg("%s side %s has no SCRIPT row", r->name, s->name);
			if (s->demo && (!listed(ROW_RUN, r->name, s->name, MSIM_STRAT_PCT) ||
					!listed(ROW_RUN, r->name, s->name, MSIM_STRAT_DFS)))
				fail_msg("%s side %s lacks a PCT or DFS row", r->name, s->name);
		}
		if (r->serial_orders && !listed(ROW_SERIAL, r->name, NULL, MSIM_STRAT_DFS))
			fail_msg("%s has serial orders and no RACE_SERIAL row", r->name);
	}
	for (size_t i = 0; i < NR_ROWS; i++)
		if (rows[i].kind == ROW_RUN && !msim_race_side_find(race_get(rows[i].race),
								    rows[i].side))
			fail_msg("row %s names no side of %s", rows[i].name, rows[i].race);
}

/* verify on r's side name, with that side replaced by wrong: -EDOM and why. */
static void assert_wrong(const char *race, const char *side, enum msim_strategy strategy,
			 void (*spoil)(struct msim_race_result *res, struct msim_race_side *wrong),
			 const char *why)
{
	const struct msim_race *r = race_get(race);
	struct msim_race_result *res = new_result();
	struct msim_race_side wrong;
	struct msim_race_opts o;
	char err[512] = "";

	msim_race_opts_init(&o, strategy);
	o.seed = 1;
	assert_int_equal(msim_race_run_side(r, side, &o, res, err, sizeof(err)), 0);
	assert_int_equal(msim_race_verify(r, res, err, sizeof(err)), 0);
	wrong = *res->side;
	res->side = &wrong;
	spoil(res, &wrong);
	assert_int_equal(msim_race_verify(r, res, err, sizeof(err)), -EDOM);
	if (!strstr(err, why))
		fail_msg("verify said '%s', not '%s'", err, why);
	free(res);
}

static const struct msim_race_expect total_4[] = { MSIM_RACE_EXPECT("total", 4), { NULL } };

static void no_violation(struct msim_race_result *res, struct msim_race_side *w)
{
	w->violation = false;
}

static void total_is_4(struct msim_race_result *res, struct msim_race_side *w)
{
	w->figures = total_4;
}

static void other_trace(struct msim_race_result *res, struct msim_race_side *w)
{
	res->ex.trace_hash ^= 1;
}

static void clean_schedule(struct msim_race_result *res, struct msim_race_side *w)
{
	snprintf(res->ex.schedule, sizeof(res->ex.schedule), "1*30.0*10");
}

static void other_reason(struct msim_race_result *res, struct msim_race_side *w)
{
	w->why = "a reason no run gives";
}

static void claims_violation(struct msim_race_result *res, struct msim_race_side *w)
{
	w->violation = true;
}

/* Each thing verify checks can fail it: the verdict, a figure, the replay, the reason. */
static void verify_finds_a_wrong_side(void **state)
{
	struct msim_race_result res = { 0 };
	char err[256];

	assert_wrong("toy-percpu-reset", "bug", MSIM_STRAT_SCRIPT, no_violation,
		     "the script reached the bad state");
	assert_wrong("toy-percpu-reset", "bug", MSIM_STRAT_SCRIPT, total_is_4,
		     "figure total is 3, the side states 4");
	assert_wrong("toy-percpu-reset", "bug", MSIM_STRAT_PCT, other_trace, "trace hash");
	assert_wrong("toy-percpu-reset", "bug", MSIM_STRAT_PCT, clean_schedule, "the replay of");
	assert_wrong("toy-percpu-reset", "bug", MSIM_STRAT_PCT, other_reason, "not 'a reason no run gives'");
	/* a fix side's run, held against a claim of the bug: expect() and the run disagree */
	assert_wrong("rstat-early-exit", "fix", MSIM_STRAT_PCT, claims_violation,
		     "expects none under side fix's settings");
	assert_int_equal(msim_race_verify(race_get("toy-percpu-reset"), &res, err, sizeof(err)),
			 -EINVAL);
}

static void registry_and_settings(void **state)
{
	const struct msim_race *r = race_get("toy-percpu-reset"), *list[64];
	struct msim_race copy = *r, unnamed = { .target = r->target }, no_setup = { .name = "x" };
	struct msim_race_result *res = new_result();
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[256];
	size_t n = msim_race_list(list, 64);

	assert_int_equal(msim_race_register(NULL), -EINVAL);
	assert_int_equal(msim_race_register(&unnamed), -EINVAL);
	assert_int_equal(msim_race_register(&no_setup), -EINVAL);
	assert_int_equal(msim_race_register(&copy), -EEXIST);
	for (size_t i = 1; i < n; i++)
		assert_true(strcmp(list[i - 1]->name, list[i]->name) < 0);
	assert_null(msim_race_find("no-such-race"));
	assert_null(msim_race_side_find(r, "no-such-side"));
	msim_race_opts_init(&o, MSIM_STRAT_SCRIPT);
	assert_int_equal(msim_race_run_side(r, "no-such-side", &o, res, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no side named"));
	msim_config_init(&cfg);
	assert_int_equal(msim_race_settings_apply(&cfg, "cpus=8,cgroup=v1,rstat-propagate=continue",
						  err, sizeof(err)), 0);
	assert_int_equal(cfg.nr_cpus, 8);
	assert_int_equal(cfg.cgroup_version, MSIM_CGROUP_V1);
	assert_int_equal(msim_variant_value(&cfg.variants, "rstat-propagate"),
			 MSIM_RSTAT_PROPAGATE_CONTINUE);
	assert_int_equal(msim_race_settings_apply(&cfg, "cpus=0", err, sizeof(err)), -EINVAL);
	assert_int_equal(msim_race_settings_apply(&cfg, "cpus=8x", err, sizeof(err)), -EINVAL);
	assert_int_equal(msim_race_settings_apply(&cfg, "cgroup=v3", err, sizeof(err)), -EINVAL);
	assert_int_equal(msim_race_settings_apply(&cfg, "lru=mglru", err, sizeof(err)), 0);
	assert_int_equal(cfg.lru, MSIM_LRU_MGLRU);
	assert_int_equal(msim_race_settings_apply(&cfg, "lru=classic", err, sizeof(err)), 0);
	assert_int_equal(cfg.lru, MSIM_LRU_CLASSIC);
	assert_int_equal(msim_race_settings_apply(&cfg, "lru=clock", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "lru is classic or mglru"));
	assert_int_equal(msim_race_settings_apply(&cfg, "no-such-variant=1", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(msim_race_settings_apply(&cfg, NULL, err, sizeof(err)), 0);
	free(res);
}

int main(void)
{
	struct CMUnitTest tests[NR_ROWS];

	for (size_t i = 0; i < NR_ROWS; i++)
		tests[i] = (struct CMUnitTest){ .name = rows[i].name, .test_func = row_test,
						.initial_state = (void *)&rows[i] };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
