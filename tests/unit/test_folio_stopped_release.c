/* SPDX-License-Identifier: MIT */
/*
 * A folio's last put cut short: a run stopped (an explorer's pruned or cut run)
 * with the releasing task parked inside mem_cgroup_uncharge leaves the folio at
 * count 0, still holding its objcg reference. The host's teardown finishes that
 * release (lru_host_fini: msim__folio_releases_abandon): no folio and no objcg
 * of the run is left when the memcgs go. docs/explore.md, "Sleep sets under a
 * preemption bound", on the pruned runs of uncharge-after-offline that found it.
 */
#include "test_lru_util.h"

#include <errno.h>

#include <memcgsim/kmem.h>

/* What was still live when the root memcg was freed (the last memcg to go). */
struct at_root_free {
	bool seen;
	uint64_t objcg_bytes, objcg_percpu_bytes;
};

static void root_freed(struct msim_memcg *memcg, void *priv)
{
	struct at_root_free *r = priv;
	struct msim *m = msim_memcg_host(memcg);

	if (memcg != msim_root_mem_cgroup(m))
		return;
	r->seen = true;
	r->objcg_bytes = msim_kmem_owner_bytes(m, "obj_cgroup");
	r->objcg_percpu_bytes = msim_kmem_owner_percpu_bytes(m, "obj_cgroup");
}

static void put_folio(void *arg)
{
	msim_folio_put(arg);
}

struct cut {
	int rc;
	bool in_flight;   /* stopped with the count at 0 and the folio not yet freed */
	struct at_root_free at_free;
};

/* c's folio put by a task, the run cut after max_steps steps, then the host destroyed. */
static struct cut cut_run(uint64_t max_steps)
{
	struct msim *m = lru_host(1, MSIM_LRU_CLASSIC, MSIM_LRU_REPARENT_OBJCG);
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_SCRIPT, .max_steps = max_steps };
	struct msim_memcg_hooks hooks = { .name = "test-at-root-free", .css_free = root_freed };
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_folio *f = lru_folio(c, MSIM_FOLIO_FILE, 2, 0);
	struct msim_lru_counts lc;
	struct cut out = { 0 };

	hooks.priv = &out.at_free;
	assert_true(msim_memcg_register_hooks(m, &hooks) >= 0);
	assert_non_null(msim_task_create(m, "put", 1, put_folio, f));
	assert_int_equal(msim_sched_set(m, &o), 0);
	out.rc = msim_run(m);
	msim_lru_counts(m, &lc);
	if (msim_folio_ref_count(f) == 1)
		msim_folio_put(f);   /* cut before the task's put: the reference is ours again */
	else
		out.in_flight = lc.folios_live == 1;
	msim_destroy(m);
	return out;
}

/*
 * Every cut of the put, step by step until the run completes: when the memcgs
 * are freed, the objcgs' kernel memory still charged (the root's, freed by its
 * own css_free hook, which runs after this test's) is exactly what a run that
 * completed leaves. A release left in flight without the teardown keeps c's
 * objcg: its obj_cgroup and percpu_ref_data (64 bytes) and percpu counters.
 */
static void every_cut_of_a_release_is_freed(void **st)
{
	struct cut done = cut_run(0);   /* the default cap: the run completes */
	unsigned int in_flight = 0;
	uint64_t k;

	(void)st;
	assert_int_equal(done.rc, 0);
	assert_true(done.at_free.seen);
	for (k = 1; k < 200; k++) {
		struct cut r = cut_run(k);

		assert_true(r.at_free.seen);
		assert_int_equal(r.at_free.objcg_bytes, done.at_free.objcg_bytes);
		assert_int_equal(r.at_free.objcg_percpu_bytes, done.at_free.objcg_percpu_bytes);
		in_flight += r.in_flight;
		if (!r.rc)
			break;
		assert_int_equal(r.rc, -E2BIG);
	}
	assert_true(k < 200);
	/* Cuts that stopped the task between the last put and the free were made. */
	assert_true(in_flight > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_cut_of_a_release_is_freed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
