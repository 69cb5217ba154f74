/* SPDX-License-Identifier: MIT */
/*
 * test_obj_stock.c - byte-granular charges through the per-CPU obj stock
 * (objcg.h, src/memcg/obj_stock.c): a charge takes whole pages and leaves the
 * rest of the last one in the stock; later charges of the same objcg consume
 * it; an uncharge refills it and whole pages go back once it holds more than
 * one; another objcg taking the stock parks the sub-page rest in
 * nr_charged_bytes, which the next stock of that objcg picks up (a charge that
 * misses the stock takes a new page all the same, as the kernel's); the root objcg
 * charges no page counter; and the accounting identity
 *   pages charged x PAGE_SIZE = bytes of live objects + stock + parked
 * holds after every step.
 */
#include "test_zswap_util.h"
#include <memcgsim/introspect.h>

static unsigned long pages_of(struct msim_memcg *memcg)
{
	/* page stocks drained (not the obj stock): what the page counter holds */
	msim_drain_all_stock(msim_root_mem_cgroup(msim_memcg_host(memcg)));
	return msim_page_counter_read(msim_memcg_page_counter(memcg));
}

static unsigned long stock_bytes(struct msim *m, struct msim_obj_cgroup *objcg)
{
	unsigned long bytes;

	return msim_obj_stock_cached(m, 0, &bytes) == objcg ? bytes : 0;
}

static void assert_identity(struct msim *m, struct msim_memcg *memcg,
			    struct msim_obj_cgroup *objcg, unsigned long live_bytes)
{
	assert_int_equal(pages_of(memcg) * ZT_PAGE,
			 live_bytes + stock_bytes(m, objcg) +
				 (unsigned long)msim_obj_cgroup_nr_charged_bytes(objcg));
}

static void charge_consume_refill(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_obj_cgroup *objcg = msim_get_obj_cgroup_from_memcg(c, 0);
	unsigned long bytes;

	(void)st;
	assert_int_equal(msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL, 100), 0);
	assert_int_equal(pages_of(c), 1);
	assert_ptr_equal(msim_obj_stock_cached(m, 0, &bytes), objcg);
	assert_int_equal(bytes, ZT_PAGE - 100);
	assert_identity(m, c, objcg, 100);
	/* the rest of the page is taken from the stock: no new page */
	assert_int_equal(msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL, ZT_PAGE - 100), 0);
	assert_int_equal(pages_of(c), 1);
	assert_identity(m, c, objcg, ZT_PAGE);
	/* 5000 bytes: two pages, 3192 left in the stock */
	assert_int_equal(msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL, 5000), 0);
	assert_int_equal(pages_of(c), 3);
	assert_identity(m, c, objcg, ZT_PAGE + 5000);
	/* uncharges refill; past a page the whole pages go back */
	msim_obj_cgroup_uncharge(objcg, 5000);
	assert_identity(m, c, objcg, ZT_PAGE);
	assert_true(stock_bytes(m, objcg) <= ZT_PAGE);
	msim_obj_cgroup_uncharge(objcg, ZT_PAGE);
	assert_identity(m, c, objcg, 0);
	msim_obj_stock_drain_all(m);
	assert_int_equal(pages_of(c), 0);
	assert_int_equal(msim_obj_cgroup_nr_charged_bytes(objcg), 0);
	msim_obj_cgroup_put(objcg);
	msim_destroy(m);
}

/* Two objcgs on one CPU: each switch parks the other's rest, which comes back. */
static void switching_objcgs_parks_the_rest(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_memcg *b = unit_mkdir(msim_root_mem_cgroup(m), "b");
	struct msim_obj_cgroup *oa = msim_get_obj_cgroup_from_memcg(a, 0);
	struct msim_obj_cgroup *ob = msim_get_obj_cgroup_from_memcg(b, 0);

	(void)st;
	assert_int_equal(msim_obj_cgroup_charge(oa, MSIM_GFP_KERNEL, 1000), 0);
	assert_int_equal(msim_obj_cgroup_charge(ob, MSIM_GFP_KERNEL, 1000), 0);
	/* b took the stock: a's 3096 bytes are parked */
	assert_int_equal(msim_obj_cgroup_nr_charged_bytes(oa), ZT_PAGE - 1000);
	assert_identity(m, a, oa, 1000);
	assert_identity(m, b, ob, 1000);
	/*
	 * a's next charge misses the stock (b's) and takes a new page, as the
	 * kernel does (it ignores nr_charged_bytes there); the refill then drains b
	 * and picks a's parked bytes up: the stock holds 3096 + 2096.
	 */
	assert_int_equal(msim_obj_cgroup_charge(oa, MSIM_GFP_KERNEL, 2000), 0);
	assert_int_equal(msim_obj_cgroup_nr_charged_bytes(oa), 0);
	assert_int_equal(pages_of(a), 2);
	assert_int_equal(stock_bytes(m, oa), 2 * ZT_PAGE - 3000);
	assert_identity(m, a, oa, 3000);
	assert_identity(m, b, ob, 1000);
	msim_obj_cgroup_uncharge(oa, 3000);
	msim_obj_cgroup_uncharge(ob, 1000);
	msim_obj_stock_drain_all(m);
	assert_int_equal(pages_of(a), 0);
	assert_int_equal(pages_of(b), 0);
	msim_obj_cgroup_put(oa);
	msim_obj_cgroup_put(ob);
	msim_destroy(m);
}

/* The root's objcg: try_charge never charges the root. */
static void root_objcg_charges_no_page(void **st)
{
	struct msim *m = zt_host(NULL, MSIM_ZSWAP_ROOT_COUNT_MEMCG_STATS, 1);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_obj_cgroup *objcg = msim_get_obj_cgroup_from_memcg(root, 0);

	(void)st;
	assert_true(msim_obj_cgroup_is_root(objcg));
	assert_int_equal(msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL, 9000), 0);
	assert_int_equal(pages_of(root), 0);
	msim_obj_cgroup_uncharge(objcg, 9000);
	msim_obj_cgroup_put(objcg);
	msim_destroy(m);
}

static void bad_input(void **st)
{
	struct msim *m = unit_host(2, 1);
	struct msim_memcg *root;
	struct msim_obj_cgroup *objcg;
	char err[128];

	(void)st;
	assert_int_equal(msim_lru_attach(m, err, sizeof(err)), 0);
	root = msim_root_mem_cgroup(m);
	objcg = msim_get_obj_cgroup_from_memcg(root, 0);
	assert_int_equal(msim_obj_cgroup_charge(NULL, MSIM_GFP_KERNEL, 1), -EINVAL);
	assert_int_equal(msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL, 0), -EINVAL);
	/* the lru layer alone has no obj stock */
	assert_int_equal(msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL, 1), -ENODEV);
	msim_obj_cgroup_uncharge(objcg, 1);        /* no stock: nothing happens */
	assert_null(msim_obj_stock_cached(m, 0, NULL));
	msim_obj_cgroup_put(objcg);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(charge_consume_refill),
		cmocka_unit_test(switching_objcgs_parks_the_rest),
		cmocka_unit_test(root_objcg_charges_no_page),
		cmocka_unit_test(bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
