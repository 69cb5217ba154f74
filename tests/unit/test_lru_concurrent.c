/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * test_lru_concurrent.c - the LRU layer on real threads (concurrent mode):
 * churn, reclaim and offline at once, for TSan to check the locking and
 * publication of lists, sizes, generations and objcgs.
 *
 *   CPU 0 (churn)              | CPU 1 (reclaim)            | CPU 2 (mover)        | CPU 3 (reader)
 *   mkdir c under p            | try_to_free(p's subtree)   | on d (not under p):  | lruvec_lru_size(p)
 *   folios charged to c, added |   isolate, evict, putback  | add, activate,       | max_seq(p)
 *   rmdir c: its lists and     |   (relocks to p after an   | rotate, deactivate,  |
 *   objcgs move to p           |   offline)                 | isolate+putback, put |
 *
 * Invariant: afterwards, reclaiming p's subtree until nothing is left frees
 * every folio, no size underflowed, and no lruvec was freed with folios on it.
 */
#include "test_lru_util.h"

#define ROUNDS 60
#define PER_ROUND 6

struct conc {
	struct msim_memcg *p, *d;
	int busy;                   /* churn still running (atomic) */
	unsigned long reclaimed;    /* by CPU 1, read after msim_run() */
	unsigned int churn_err;
};

static void churn(void *arg)
{
	struct conc *cc = arg;

	for (unsigned int r = 0; r < ROUNDS; r++) {
		struct msim_memcg *c = NULL;

		if (msim_memcg_create(cc->p, NULL, &c)) {
			cc->churn_err++;
			continue;
		}
		for (unsigned int i = 0; i < PER_ROUND; i++) {
			struct msim_folio *f = msim_folio_alloc(msim_memcg_host(c),
				i & 1 ? MSIM_FOLIO_ANON : MSIM_FOLIO_FILE, i == 0 ? 2 : 0, 0,
				MSIM_ZONE_NORMAL);

			msim_mem_cgroup_charge(f, c, MSIM_GFP_KERNEL);
			msim_folio_add_lru(f);          /* the LRU owns it now: reclaim frees it */
		}
		if (msim_memcg_rmdir(c))
			cc->churn_err++;
	}
	msim_quiet_store(&cc->busy, 0, MSIM_RELEASE);
}

static void reclaim(void *arg)
{
	struct conc *cc = arg;

	while (msim_quiet_load(&cc->busy, MSIM_ACQUIRE))
		cc->reclaimed += msim_try_to_free_mem_cgroup_pages(cc->p, 16, NULL);
}

static void mover(void *arg)
{
	struct conc *cc = arg;

	for (unsigned int r = 0; r < ROUNDS; r++) {
		struct msim_folio *f = msim_folio_alloc(msim_memcg_host(cc->d), MSIM_FOLIO_FILE,
							0, 0, MSIM_ZONE_NORMAL);

		msim_mem_cgroup_charge(f, cc->d, MSIM_GFP_KERNEL);
		msim_folio_add_lru(f);
		msim_folio_activate(f);
		msim_folio_rotate_reclaimable(f);
		msim_folio_deactivate(f);
		msim_folio_mark_accessed(f);
		if (msim_folio_isolate_lru(f))
			msim_folio_putback_lru(f);
		msim_folio_put(f);
	}
}

static void reader(void *arg)
{
	struct conc *cc = arg;
	struct msim_lruvec *lv = msim_mem_cgroup_lruvec(msim_memcg_host(cc->p), cc->p, 0);
	unsigned long sink = 0;

	while (msim_quiet_load(&cc->busy, MSIM_ACQUIRE))
		sink += msim_lruvec_lru_size(lv, MSIM_LRU_INACTIVE_FILE, MSIM_ZONE_MOVABLE) +
			msim_lru_gen_max_seq(lv);
	(void)sink;
}

static void churn_reclaim_offline(enum msim_lru_kind kind)
{
	struct msim_config cfg = unit_config(4, 1);
	struct conc cc = { .busy = 1 };
	struct msim_lru_counts n;
	struct msim *m;
	char err[256];

	cfg.mode = MSIM_CONCURRENT;
	cfg.lru = kind;
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_lru_attach(m, err, sizeof(err)), 0);
	cc.p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	cc.d = unit_mkdir(msim_root_mem_cgroup(m), "d");
	assert_non_null(msim_task_create(m, "churn", 0, churn, &cc));
	assert_non_null(msim_task_create(m, "reclaim", 1, reclaim, &cc));
	assert_non_null(msim_task_create(m, "mover", 2, mover, &cc));
	assert_non_null(msim_task_create(m, "reader", 3, reader, &cc));
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(cc.churn_err, 0);
	while (msim_try_to_free_mem_cgroup_pages(cc.p, 1UL << 20, NULL))
		;
	msim_memcg_drain(m);
	msim_lru_counts(m, &n);
	assert_int_equal(n.folios_live, 0);
	assert_int_equal(n.folios_allocated_total, ROUNDS * (PER_ROUND + 1));
	assert_int_equal(n.lru_size_underflows, 0);
	assert_int_equal(n.freed_nonempty, 0);
	if (kind == MSIM_LRU_CLASSIC)
		assert_lists_match_sizes(lru_lruvec(cc.p, 0));
	else
		assert_int_equal(assert_gens_match_nr_pages(lru_lruvec(cc.p, 0)), 0);
	msim_destroy(m);
}

static void classic_churn_reclaim_offline(void **st)
{
	(void)st;
	churn_reclaim_offline(MSIM_LRU_CLASSIC);
}

static void mglru_churn_reclaim_offline(void **st)
{
	(void)st;
	churn_reclaim_offline(MSIM_LRU_MGLRU);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classic_churn_reclaim_offline),
		cmocka_unit_test(mglru_churn_reclaim_offline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
