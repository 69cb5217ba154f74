/* SPDX-License-Identifier: MIT */
/*
 * test_list_lru.c - list_lru count and walk with the kernel's isolate results
 * (src/shrinker/list_lru.c, docs/shrinker.md).
 *
 *   walk_results        REMOVED, ROTATE, SKIP, STOP and the RETRY flavours:
 *                       isolated counts, list order, node totals, the budget
 *   walk_node_budget    root's list then every memcg's, within one budget
 *   first_add_sets_bit  only 0 -> 1 sets the bit; del never clears it
 *   lazy_lists          no per-memcg list until memcg_list_lru_alloc; bytes of
 *                       one list_lru_memcg: kmalloc_class(16 + 32 nodes)
 *   not_memcg_aware     every add lands on the node list, no bit
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#include "unit_util.h"

struct obj {
	struct msim_list_head lru;
	int id;
};

static unsigned long noop_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	return MSIM_SHRINK_EMPTY;
}

static unsigned long noop_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	return 0;
}

static struct msim_shrinker *aware_shrinker(struct msim *m)
{
	struct msim_shrinker *s;

	assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "t", &s), 0);
	s->count_objects = noop_count;
	s->scan_objects = noop_scan;
	assert_int_equal(msim_shrinker_register(s), 0);
	return s;
}

/* Scripted results by object id; ids >= 100 record the visit order. */
struct script {
	enum msim_lru_status res[16];
	int order[32];
	int n;
};

static enum msim_lru_status scripted(struct msim_list_head *item, struct msim_list_lru_one *l,
				     void *arg)
{
	struct script *sc = arg;
	struct obj *o = msim_container_of(item, struct obj, lru);
	enum msim_lru_status r = sc->res[o->id];

	sc->order[sc->n++] = o->id;
	switch (r) {
	case MSIM_LRU_REMOVED:
		msim_list_lru_isolate(l, item);
		break;
	case MSIM_LRU_REMOVED_RETRY:
		msim_list_lru_isolate(l, item);
		msim_spin_unlock(&l->lock);
		break;
	case MSIM_LRU_RETRY:
		sc->res[o->id] = MSIM_LRU_SKIP; /* once */
		msim_spin_unlock(&l->lock);
		break;
	case MSIM_LRU_STOP:
		msim_spin_unlock(&l->lock);
		break;
	default:
		break;
	}
	return r;
}

static void walk_results(void **state)
{
	struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct msim_list_lru lru = { 0 };
	struct obj o[6];
	struct script sc = { .res = { MSIM_LRU_SKIP, MSIM_LRU_REMOVED, MSIM_LRU_ROTATE,
				      MSIM_LRU_RETRY, MSIM_LRU_REMOVED_RETRY, MSIM_LRU_SKIP } };
	unsigned long budget = 100;

	assert_int_equal(msim_list_lru_init(m, &lru, false, NULL), 0);
	for (int i = 0; i < 6; i++) {
		o[i].id = i;
		msim_init_list_head(&o[i].lru);
		assert_true(msim_list_lru_add(&lru, &o[i].lru, 0, NULL));
	}
	assert_false(msim_list_lru_add(&lru, &o[0].lru, 0, NULL)); /* already on a list */
	/*
	 * 0 skip, 1 removed, 2 rotated (to the tail), 3 retry (restart; 3 is a skip
	 * now); restart: 0 skip, 3 skip, 4 removed+retry; restart: 0, 3, 5, 2 (rotated,
	 * still last): the end. 11 visits, 2 isolated.
	 */
	assert_int_equal(msim_list_lru_walk_one(&lru, 0, NULL, scripted, &sc, &budget), 2);
	assert_int_equal(budget, 89);
	assert_int_equal(sc.n, 11);
	assert_int_equal(sc.order[10], 2);
	assert_int_equal(sc.order[0], 0);
	assert_int_equal(sc.order[1], 1);
	assert_int_equal(sc.order[2], 2);
	assert_int_equal(sc.order[3], 3);
	assert_int_equal(sc.order[4], 0);  /* restart after RETRY */
	assert_int_equal(sc.order[5], 3);
	assert_int_equal(sc.order[6], 4);
	assert_int_equal(sc.order[7], 0);  /* restart after REMOVED_RETRY */
	assert_int_equal(msim_list_lru_count_one(&lru, 0, NULL), 4);
	assert_int_equal(msim_list_lru_count_node(&lru, 0), 4);

	/* STOP: returns at once, nothing more visited */
	memset(&sc, 0, sizeof(sc));
	for (int i = 0; i < 6; i++)
		sc.res[i] = MSIM_LRU_STOP;
	budget = 10;
	assert_int_equal(msim_list_lru_walk_one(&lru, 0, NULL, scripted, &sc, &budget), 0);
	assert_int_equal(sc.n, 1);
	assert_int_equal(budget, 9);
	/* the rest removed with a budget of 3: exactly 3 isolated */
	memset(&sc, 0, sizeof(sc));
	for (int i = 0; i < 6; i++)
		sc.res[i] = MSIM_LRU_REMOVED;
	budget = 3;
	assert_int_equal(msim_list_lru_walk_one(&lru, 0, NULL, scripted, &sc, &budget), 3);
	assert_int_equal(msim_list_lru_count_node(&lru, 0), 1);
	msim_list_lru_destroy(&lru);
	msim_destroy(m);
}

static enum msim_lru_status remove_all(struct msim_list_head *item, struct msim_list_lru_one *l,
				       void *arg)
{
	msim_list_lru_isolate(l, item);
	return MSIM_LRU_REMOVED;
}

static void walk_node_budget(void **state)
{
	struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, 2);
	struct msim_shrinker *s = aware_shrinker(m);
	struct msim_list_lru lru = { 0 };
	struct msim_memcg *a, *b;
	struct obj o[30];
	unsigned long budget;

	assert_int_equal(msim_list_lru_init(m, &lru, true, s), 0);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "a", &a), 0);
	assert_int_equal(msim_memcg_create(a, "b", &b), 0);
	assert_int_equal(msim_memcg_list_lru_alloc(b, &lru), 0);
	for (int i = 0; i < 30; i++) {
		struct msim_memcg *cg = i < 10 ? NULL : i < 20 ? a : b;

		msim_init_list_head(&o[i].lru);
		assert_true(msim_list_lru_add(&lru, &o[i].lru, 1, cg));
	}
	assert_int_equal(msim_list_lru_count_one(&lru, 1, a), 10);
	assert_int_equal(msim_list_lru_count_one(&lru, 0, a), 0);
	assert_int_equal(msim_list_lru_count_node(&lru, 1), 30);
	budget = 25;
	assert_int_equal(msim_list_lru_walk_node(&lru, 1, remove_all, NULL, &budget), 25);
	assert_int_equal(budget, 0);
	assert_int_equal(msim_list_lru_count_node(&lru, 1), 5);
	assert_int_equal(msim_list_lru_count_one(&lru, 1, NULL), 0);
	budget = 100;
	assert_int_equal(msim_list_lru_walk_node(&lru, 1, remove_all, NULL, &budget), 5);
	msim_list_lru_destroy(&lru);
	msim_shrinker_free(s);
	assert_int_equal(msim_memcg_rmdir(b), 0);
	assert_int_equal(msim_memcg_rmdir(a), 0);
	msim_destroy(m);
}

static void first_add_sets_bit(void **state)
{
	struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct msim_shrinker *s = aware_shrinker(m);
	struct msim_list_lru lru = { 0 };
	struct msim_memcg *c;
	struct obj o[2];
	int ids[4];

	assert_int_equal(msim_list_lru_init(m, &lru, true, s), 0);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "c", &c), 0);
	assert_int_equal(msim_memcg_list_lru_alloc(c, &lru), 0);
	msim_init_list_head(&o[0].lru);
	msim_init_list_head(&o[1].lru);
	assert_true(msim_list_lru_add(&lru, &o[0].lru, 0, c));
	assert_true(msim_shrinker_test_bit(c, 0, s->id));
	assert_int_equal(msim_shrinker_set_bits(c, 0, ids, 4), 1);
	assert_int_equal(ids[0], s->id);
	assert_true(msim_list_lru_add(&lru, &o[1].lru, 0, c));
	assert_true(msim_list_lru_del(&lru, &o[0].lru, 0, c));
	assert_true(msim_list_lru_del(&lru, &o[1].lru, 0, c));
	assert_false(msim_list_lru_del(&lru, &o[1].lru, 0, c)); /* not on a list */
	assert_true(msim_shrinker_test_bit(c, 0, s->id));        /* del never clears */
	assert_int_equal(msim_list_lru_count_one(&lru, 0, c), 0);
	/* the shrinker's SHRINK_EMPTY does: shrink_slab_memcg clears it */
	msim_shrink_slab(m, 0, c, MSIM_DEF_PRIORITY);
	assert_false(msim_shrinker_test_bit(c, 0, s->id));
	msim_list_lru_destroy(&lru);
	msim_shrinker_free(s);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_destroy(m);
}

static void lazy_lists(void **state)
{
	for (unsigned int nodes = 1; nodes <= 4; nodes *= 2) {
		struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, nodes);
		struct msim_shrinker *s = aware_shrinker(m);
		struct msim_list_lru lru = { 0 };
		struct msim_memcg *p, *c;
		bool exists;
		uint64_t b0;

		assert_int_equal(msim_list_lru_init(m, &lru, true, s), 0);
		assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "p", &p), 0);
		assert_int_equal(msim_memcg_create(p, "c", &c), 0);
		assert_false(msim_memcg_list_lru_allocated(c, &lru));
		assert_true(msim_memcg_list_lru_allocated(msim_root_mem_cgroup(m), &lru));
		msim_list_lru_nr_items_raw(&lru, 0, c, &exists);
		assert_false(exists);
		assert_false(msim_shrinker_has_unit(c, 0, s->id)); /* xarray: on demand */
		b0 = msim_kmem_owner_bytes(m, "list_lru_memcg");
		assert_int_equal(msim_memcg_list_lru_alloc(c, &lru), 0);
		/* c and its parent p: two list_lru_memcg, 48/80/144 -> 64/96/192 bytes */
		assert_int_equal(msim_kmem_owner_bytes(m, "list_lru_memcg") - b0,
				 2 * msim_list_lru_memcg_bytes(nodes));
		assert_int_equal(msim_list_lru_memcg_bytes(nodes),
				 nodes == 1 ? 64 : nodes == 2 ? 96 : 192);
		assert_true(msim_memcg_list_lru_allocated(p, &lru));
		assert_true(msim_shrinker_has_unit(c, nodes - 1, s->id));
		assert_true(msim_shrinker_has_unit(p, 0, s->id));
		msim_list_lru_destroy(&lru);
		assert_int_equal(msim_kmem_owner_bytes(m, "list_lru_memcg"), b0);
		msim_shrinker_free(s);
		assert_int_equal(msim_memcg_rmdir(c), 0);
		assert_int_equal(msim_memcg_rmdir(p), 0);
		msim_destroy(m);
	}
}

static void not_memcg_aware(void **state)
{
	struct msim *m = unit_shrinker_host(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct msim_shrinker *s = aware_shrinker(m);
	struct msim_list_lru lru = { 0 };
	struct msim_memcg *c;
	struct obj o;

	assert_int_equal(msim_list_lru_init(m, &lru, false, s), 0);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "c", &c), 0);
	assert_int_equal(msim_memcg_list_lru_alloc(c, &lru), 0); /* no-op */
	msim_init_list_head(&o.lru);
	assert_true(msim_list_lru_add(&lru, &o.lru, 0, c));
	assert_int_equal(msim_list_lru_count_one(&lru, 0, NULL), 1);
	assert_int_equal(msim_list_lru_count_one(&lru, 0, c), 1); /* same node list */
	assert_false(msim_shrinker_test_bit(c, 0, s->id));         /* no unit on demand */
	assert_true(msim_list_lru_del(&lru, &o.lru, 0, c));
	msim_list_lru_destroy(&lru);
	msim_shrinker_free(s);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_results),
		cmocka_unit_test(walk_node_budget),
		cmocka_unit_test(first_add_sets_bit),
		cmocka_unit_test(lazy_lists),
		cmocka_unit_test(not_memcg_aware),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
