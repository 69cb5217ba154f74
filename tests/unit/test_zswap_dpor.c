/* SPDX-License-Identifier: MIT */
/*
 * test_zswap_dpor.c - the zswap layer's access annotations against DFS.
 *
 * The zswap races are too long for the soundness oracle
 * (tests/race/test_dpor_oracle.c: DFS does not exhaust them even at bound 0),
 * so these two small stages check the annotations of src/zswap the same way:
 * under a preemption bound where DFS exhausts, DPOR must exhaust too and see
 * every outcome DFS sees (an outcome: the run's fingerprint, which folds each
 * task's yield points and the values its shim loads returned, and the end
 * state the check writes into its reason). A point that claims to touch nothing
 * while its step reads or writes what another task sees (or a quiet field left
 * unnoted) lets DPOR skip an order DFS runs; the missing outcome fails the test.
 *
 *   cursor: shrink_worker (CPU 0: zswap.shrink.cursor, zswap.shrink.memcg,
 *           zswap.wb.claim, written_back) against zswap_memcg_offline_cleanup(a)
 *           (CPU 1: zswap.offline.cursor) on the cursor's memcg.
 *   stores: two stores into a pool with room for one (CPU 0 and CPU 1:
 *           zswap.store.charge, zswap.store.lru_add, the length draws,
 *           pool_reached_full, work_queued).
 *   evict:  reclaim swapping a's pages out through msim_zswap_evict, which
 *           claims scan_control.evict_notes (CPU 0), against a swap-in of the
 *           first page (CPU 1; mapped: -EINVAL, swapped out: a swap-in from
 *           zswap). The swap device's lock orders those two by itself, so a
 *           third task reads the pte as a page-table walker would (CPU 1: one
 *           announced load, nothing else): only the evict's pte note keeps the
 *           orders "walker saw it mapped" and "swapped" apart.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include <memcgsim/memcgsim.h>

#include "race/outcome_util.h"   /* the outcome sets the DPOR oracle compares */

#define CAP 20000

/* Explore target under strategy and bound; the run must exhaust its space. */
static unsigned int explore(const struct msim_explore_target *t, enum msim_strategy strategy,
			    unsigned int bound, struct outcome_set *out)
{
	struct msim_explore_opts o = {
		.strategy = strategy, .runs = CAP, .preemptions = bound,
		.fingerprint = true, .on_run = outcome_collect, .on_run_arg = out,
	};
	struct msim_explore_result r;
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 2;
	assert_int_equal(msim_explore(t, &cfg, &o, &r), 0);
	if (!r.exhausted)
		fail_msg("%s: %s did not exhaust bound %u in %u schedules", t->name,
			 msim_strategy_name(strategy), bound, CAP);
	return r.runs;
}

/* DPOR sees every outcome DFS sees, and DFS sees more than one (the stage races). */
static void compare(const struct msim_explore_target *t, unsigned int bound)
{
	struct outcome_set dfs = { 0 }, dpor = { 0 };
	unsigned int n_dfs = explore(t, MSIM_STRAT_DFS, bound, &dfs);
	unsigned int n_dpor = explore(t, MSIM_STRAT_DPOR, bound, &dpor);
	size_t miss = outcomes_missing(&dfs, &dpor);

	print_message("%s bound %u: dfs %u schedules %zu outcomes, dpor %u schedules %zu "
		      "outcomes, %zu missing\n", t->name, bound, n_dfs, dfs.n, n_dpor, dpor.n, miss);
	assert_true(dfs.n > 1);
	assert_int_equal(miss, 0);
	free(dfs.v);
	free(dpor.v);
}

/* ---- common stage ---- */

struct stage {
	struct msim *m;
	struct msim_memcg *a, *b;
	struct msim_swap_pte pte[2];
	unsigned long written_back;
	bool stored[2];
};

/* zswap on a host whose pool holds max_pages; rstat without the periodic flush. */
static int stage_init(struct msim *m, struct stage *s, unsigned long max_pages)
{
	struct msim_zswap_params p;
	char err[256];
	int ret;

	s->m = m;
	msim_zswap_params_init(&p);
	p.total_ram_pages = max_pages * 5;       /* max_pool_percent 20 */
	p.min_bytes = p.max_bytes = 4096;        /* one page per entry */
	if ((ret = msim_rstat_init(m, NULL)))
		return ret;
	msim_rstat_periodic_flush_enable(m, false);
	if ((ret = msim_zswap_attach(m, &p, err, sizeof(err))) ||
	    (ret = msim_memcg_create(msim_root_mem_cgroup(m), "a", &s->a)) ||
	    (ret = msim_memcg_create(msim_root_mem_cgroup(m), "b", &s->b)))
		return ret;
	for (unsigned int i = 0; i < 2; i++) {
		msim_swap_pte_init(&s->pte[i]);
		if ((ret = msim_zswap_anon_fault(&s->pte[i], s->a, 0)))
			return ret;
	}
	return 0;
}

static void stage_teardown(struct msim *m, void *state)
{
	struct stage *s = state;

	if (!s)
		return;
	for (unsigned int i = 0; i < 2; i++) {
		msim_zswap_invalidate(m, i);
		msim_zswap_pte_free(m, &s->pte[i]);
	}
	free(s);
}

static const char *name_of(struct stage *s, struct msim_memcg *memcg)
{
	return !memcg ? "none" : memcg == s->a ? "a" : memcg == s->b ? "b" : "root";
}

/* ---- cursor: shrink_worker against the cleanup of the cursor's memcg ---- */

static void worker_fn(void *arg)
{
	struct stage *s = arg;

	s->written_back = msim_zswap_shrink_worker(s->m);
}

static void cleanup_fn(void *arg)
{
	struct stage *s = arg;

	msim_zswap_memcg_offline_cleanup(s->a);
}

static int cursor_setup(struct msim *m, void **state, void *arg)
{
	struct stage *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	/* a's two entries fill the pool (max 2, accept threshold 1): one is written back */
	if ((ret = stage_init(m, s, 2)))
		return ret;
	msim_zswap_reclaim(s->a, 2, -1);
	for (unsigned int i = 0; i < 2; i++)      /* the second chance, used up */
		msim_zswap_shrink_memcg(m, s->a);
	msim_rcu_barrier();
	msim_synchronize_rcu();
	if (!msim_task_create(m, "shrink_worker", 0, worker_fn, s) ||
	    !msim_task_create(m, "cleanup(a)", 1, cleanup_fn, s))
		return -ENOMEM;
	return 0;
}

/* Every run "violates": its reason is the end state, so the outcomes include it. */
static bool cursor_check(struct msim *m, void *state, char *why, size_t len)
{
	struct stage *s = state;
	struct msim_zswap_stats st;

	msim_zswap_stats(m, &st);
	snprintf(why, len, "cursor %s, worker wrote %lu, pool %lu, zswpwb %lu",
		 name_of(s, msim_zswap_shrink_cursor(m)), s->written_back, st.stored_pages,
		 st.zswpwb);
	return true;
}

static void cursor_matches_dfs(void **unused)
{
	const struct msim_explore_target t = {
		.name = "zswap-cursor", .setup = cursor_setup, .check = cursor_check,
		.teardown = stage_teardown,
	};

	(void)unused;
	compare(&t, 1);
}

/* ---- stores: two stores into a pool with room for one ---- */

static void store_fn(struct stage *s, unsigned int i)
{
	s->stored[i] = msim_zswap_store(s->pte[i].folio, i);
}

static void store0_fn(void *arg)
{
	store_fn(arg, 0);
}

static void store1_fn(void *arg)
{
	store_fn(arg, 1);
}

static int stores_setup(struct msim *m, void **state, void *arg)
{
	struct stage *s = calloc(1, sizeof(*s));
	int ret;

	(void)arg;
	if (!s)
		return -ENOMEM;
	*state = s;
	if ((ret = stage_init(m, s, 1)))
		return ret;
	msim_rcu_barrier();
	msim_synchronize_rcu();
	if (!msim_task_create(m, "store(0)", 0, store0_fn, s) ||
	    !msim_task_create(m, "store(1)", 1, store1_fn, s))
		return -ENOMEM;
	return 0;
}

static bool stores_check(struct msim *m, void *state, char *why, size_t len)
{
	struct stage *s = state;
	struct msim_zswap_stats st;

	msim_zswap_stats(m, &st);
	snprintf(why, len, "stored %d%d, pool %lu, reject_limit %lu, queued %lu", s->stored[0],
		 s->stored[1], st.stored_pages, st.reject_limit, msim_zswap_run_queued_work(m));
	return true;
}

static void stores_match_dfs(void **unused)
{
	const struct msim_explore_target t = {
		.name = "zswap-stores", .setup = stores_setup, .check = stores_check,
		.teardown = stage_teardown,
	};

	(void)unused;
	compare(&t, 1);
}

/* ---- evict: reclaim's evict callback against a swap-in of the same pte ---- */

struct evict_stage {
	struct stage s;
	unsigned long reclaimed;
	int swapin;
	bool walker_saw_mapped;
};

/* A page-table walker: one plain load of the second pte, announced as such. */
static void walker_fn(void *arg)
{
	struct evict_stage *e = arg;

	msim_yield_access("test.walk.pte", &e->s.pte[1].folio, MSIM_ACCESS_LOAD);
	e->walker_saw_mapped = e->s.pte[1].folio != NULL;
}

static void reclaim_fn(void *arg)
{
	struct evict_stage *e = arg;

	e->reclaimed = msim_zswap_reclaim(e->s.a, 2, -1);
}

static void swapin_fn(void *arg)
{
	struct evict_stage *e = arg;

	e->swapin = msim_zswap_swapin(&e->s.pte[0], e->s.a);
}

static int evict_setup(struct msim *m, void **state, void *arg)
{
	struct evict_stage *e = calloc(1, sizeof(*e));
	int ret;

	(void)arg;
	if (!e)
		return -ENOMEM;
	*state = &e->s;   /* first member: stage_teardown frees it */
	if ((ret = stage_init(m, &e->s, 4)))
		return ret;
	msim_rcu_barrier();
	msim_synchronize_rcu();
	if (!msim_task_create(m, "reclaim(a)", 0, reclaim_fn, e) ||
	    !msim_task_create(m, "swapin(pte 0)", 1, swapin_fn, e) ||
	    !msim_task_create(m, "walk(pte 1)", 1, walker_fn, e))
		return -ENOMEM;
	return 0;
}

static bool evict_check(struct msim *m, void *state, char *why, size_t len)
{
	struct evict_stage *e = (struct evict_stage *)state;
	struct msim_zswap_stats st;

	msim_zswap_stats(m, &st);
	snprintf(why, len, "reclaimed %lu, swapin %d, pte 0 %s, walker saw pte 1 %s, zswpout "
		 "%lu, zswpin %lu", e->reclaimed, e->swapin, e->s.pte[0].folio ? "mapped" : "swapped",
		 e->walker_saw_mapped ? "mapped" : "swapped", st.zswpout, st.zswpin);
	return true;
}

static void evict_matches_dfs(void **unused)
{
	const struct msim_explore_target t = {
		.name = "zswap-evict", .setup = evict_setup, .check = evict_check,
		.teardown = stage_teardown,
	};

	(void)unused;
	compare(&t, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cursor_matches_dfs),
		cmocka_unit_test(stores_match_dfs),
		cmocka_unit_test(evict_matches_dfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
