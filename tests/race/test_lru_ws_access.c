/* SPDX-License-Identifier: MIT */
/*
 * test_lru_ws_access.c - what the LRU layer's steps say they touch, checked on
 * toys where DPOR's count or outcomes depend on it (yield.h's contract):
 *  - msim_cond_resched_access() parks as msim_cond_resched() does (DFS runs the
 *    same schedules) and lets DPOR see that two tasks touching different cells
 *    commute: one schedule where the plain form, touching anything, takes more;
 *  - the folio flag helpers note their quiet accesses: a PG_referenced set and a
 *    test of it behind points that announce nothing are still two orders;
 *  - reclaim's evict callback runs inside reclaim's step: one that does not say
 *    it notes its accesses (scan_control.evict_notes) makes the step touch
 *    anything, so its plain store keeps both orders with a reader; a callback
 *    that claims to note and does not loses one (what the default guards).
 */
#include <errno.h>

#include "race_util.h"

#include <memcgsim/lru.h>

/* ---- msim_cond_resched_access ---- */

struct resched_toy {
	long cell[2];
	bool annotated;
};

struct resched_task {
	struct resched_toy *s;
	unsigned int idx;
};

static struct resched_task resched_tasks[2];

static void resched_task_fn(void *arg)
{
	struct resched_task *t = arg;

	if (t->s->annotated)
		msim_cond_resched_access("toy.resched", NULL, MSIM_ACCESS_NONE);
	else
		msim_cond_resched("toy.resched");
	msim_store_at(&t->s->cell[t->idx], 1, MSIM_RELAXED, "toy.store");
}

static int resched_setup(struct msim *m, void **state, void *arg)
{
	struct resched_toy *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	*state = s;
	s->annotated = arg != NULL;
	for (unsigned int i = 0; i < 2; i++) {
		resched_tasks[i] = (struct resched_task){ .s = s, .idx = i };
		if (!msim_task_create(m, "toy", i, resched_task_fn, &resched_tasks[i]))
			return -ENOMEM;
	}
	return 0;
}

static void free_state(struct msim *m, void *state)
{
	(void)m;
	free(state);
}

static unsigned int explore_resched(bool annotated, enum msim_strategy strategy)
{
	struct msim_explore_target t = {
		.name = "resched", .setup = resched_setup, .teardown = free_state,
		.arg = annotated ? (void *)1 : NULL,
	};
	struct msim_explore_opts o = {
		.strategy = strategy, .runs = 1000, .preemptions = MSIM_EXPLORE_UNBOUNDED,
	};
	struct msim_explore_result res;
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 2;
	assert_int_equal(msim_explore(&t, &cfg, &o, &res), 0);
	assert_true(res.exhausted);
	return res.runs;
}

static void cond_resched_access_form(void **unused)
{
	unsigned int dfs_plain = explore_resched(false, MSIM_STRAT_DFS);

	(void)unused;
	/* the same yield points: DFS, which reads no access, runs the same schedules */
	assert_int_equal(explore_resched(true, MSIM_STRAT_DFS), dfs_plain);
	/* the stores are to different cells: one trace once the point says NONE */
	assert_int_equal(explore_resched(true, MSIM_STRAT_DPOR), 1);
	assert_true(explore_resched(false, MSIM_STRAT_DPOR) > 1);
}

/* ---- toys on an LRU host: outcomes of a reader ---- */

struct lru_toy {
	struct msim *m;
	struct msim_folio *f;
	long x, seen;
	bool evict_notes;
};

/* Bit per value the reader saw, over an exploration. */
static unsigned int seen_values;

static bool record_seen(struct msim *m, void *state, char *why, size_t len)
{
	struct lru_toy *s = state;

	(void)m, (void)why, (void)len;
	seen_values |= 1u << (s->seen & 7);
	return false;
}

static void lru_toy_teardown(struct msim *m, void *state)
{
	struct lru_toy *s = state;

	(void)m;
	if (s && s->f)
		msim_folio_put(s->f);
	free(s);
}

/* A host with the lru layer and one uncharged file folio on the root's LRU. */
static int lru_toy_setup(struct msim *m, struct lru_toy **out)
{
	struct lru_toy *s = calloc(1, sizeof(*s));
	char err[256];
	int ret;

	if (!s)
		return -ENOMEM;
	*out = s;
	s->m = m;
	if ((ret = msim_lru_attach(m, err, sizeof(err))))
		return ret;
	s->f = msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 0, MSIM_ZONE_NORMAL);
	if (!s->f)
		return -ENOMEM;
	msim_folio_add_lru(s->f);
	return 0;
}

/* Explore target under strategy with no bound; returns the schedules run. */
static unsigned int explore_lru_toy(int (*setup)(struct msim *, void **, void *), void *arg,
				    enum msim_strategy strategy)
{
	struct msim_explore_target t = {
		.name = "lru-toy", .setup = setup, .check = record_seen,
		.teardown = lru_toy_teardown, .arg = arg,
	};
	struct msim_explore_opts o = {
		.strategy = strategy, .runs = 100000, .preemptions = MSIM_EXPLORE_UNBOUNDED,
	};
	struct msim_explore_result res;
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 2;
	seen_values = 0;
	assert_int_equal(msim_explore(&t, &cfg, &o, &res), 0);
	assert_true(res.exhausted);
	return res.runs;
}

/* ---- folio flags ---- */

static void flag_setter(void *arg)
{
	struct lru_toy *s = arg;

	msim_yield_access("toy.set", NULL, MSIM_ACCESS_NONE);
	msim_folio_set_referenced(s->f);
}

static void flag_tester(void *arg)
{
	struct lru_toy *s = arg;

	msim_yield_access("toy.test", NULL, MSIM_ACCESS_NONE);
	s->seen = msim_folio_test_referenced(s->f);
}

static int flags_setup(struct msim *m, void **state, void *arg)
{
	struct lru_toy *s;
	int ret = lru_toy_setup(m, &s);

	(void)arg;
	*state = s;
	if (ret)
		return ret;
	if (!msim_task_create(m, "set", 0, flag_setter, s) ||
	    !msim_task_create(m, "test", 1, flag_tester, s))
		return -ENOMEM;
	return 0;
}

static void folio_flags_note_themselves(void **unused)
{
	(void)unused;
	explore_lru_toy(flags_setup, NULL, MSIM_STRAT_DFS);
	assert_int_equal(seen_values, 3);     /* PG_referenced seen clear and set */
	assert_int_equal(explore_lru_toy(flags_setup, NULL, MSIM_STRAT_DPOR), 2);
	assert_int_equal(seen_values, 3);
}

/* ---- reclaim's evict callback ---- */

/* Stores x plainly, saying nothing of it; the folio stays. */
static enum msim_reclaim_verdict silent_evict(struct msim_folio *folio,
					      struct msim_memcg *target, void *arg)
{
	struct lru_toy *s = arg;

	(void)folio, (void)target;
	s->x = 1;
	return MSIM_RECLAIM_KEEP;
}

static void reclaimer(void *arg)
{
	struct lru_toy *s = arg;
	struct msim_scan_control sc;

	msim_scan_control_init(&sc);
	sc.priority = 0;
	sc.may_swap = false;
	sc.nr_to_reclaim = 1;
	sc.evict = silent_evict;
	sc.evict_arg = s;
	sc.evict_notes = s->evict_notes;
	msim_shrink_lruvec(msim_mem_cgroup_lruvec(s->m, msim_root_mem_cgroup(s->m), 0), &sc);
}

static void x_reader(void *arg)
{
	struct lru_toy *s = arg;

	s->seen = msim_load_at(&s->x, MSIM_RELAXED, "toy.load_x");
}

static int evict_setup(struct msim *m, void **state, void *arg)
{
	struct lru_toy *s;
	int ret = lru_toy_setup(m, &s);

	*state = s;
	if (ret)
		return ret;
	s->evict_notes = arg != NULL;
	if (!msim_task_create(m, "reclaim", 0, reclaimer, s) ||
	    !msim_task_create(m, "reader", 1, x_reader, s))
		return -ENOMEM;
	return 0;
}

static void evict_callback_touches_anything(void **unused)
{
	(void)unused;
	explore_lru_toy(evict_setup, NULL, MSIM_STRAT_DFS);
	assert_int_equal(seen_values, 3);     /* the reader loads x before and after */
	explore_lru_toy(evict_setup, NULL, MSIM_STRAT_DPOR);
	assert_int_equal(seen_values, 3);
	/* a callback that claims to note and does not: DPOR misses an order */
	explore_lru_toy(evict_setup, (void *)1, MSIM_STRAT_DPOR);
	assert_int_not_equal(seen_values, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cond_resched_access_form),
		cmocka_unit_test(folio_flags_note_themselves),
		cmocka_unit_test(evict_callback_touches_anything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
