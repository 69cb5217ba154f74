/* SPDX-License-Identifier: MIT */
/*
 * test_page_counter.c - the hierarchical page_counter (src/memcg/page_counter.c,
 * kernel: mm/page_counter.c).
 *
 *   init_defaults          usage 0, max/high PAGE_COUNTER_MAX, no watermark
 *   charge_hierarchy       charge reaches every ancestor, uncharge undoes it
 *   try_charge_success     every level charged, watermarks follow usage
 *   try_charge_fail_middle a level over max fails: it and every level below are
 *                          rolled back, failcnt only there, *fail names it
 *   try_charge_exact_fit   usage == max fits (strict greater-than test)
 *   uncharge_underflow     more uncharged than charged: clamped to 0, counted
 *   set_max                -EBUSY below usage; a limit at or above usage is set
 *   set_high               plain store, no effect on charging
 *   local_watermark        watermark and local_watermark track the peak
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include <memcgsim/charge.h>

/* A three-level chain: root <- mid <- leaf. */
struct chain {
	struct msim_page_counter root, mid, leaf;
};

static void chain_init(struct chain *c)
{
	msim_page_counter_init(&c->root, NULL);
	msim_page_counter_init(&c->mid, &c->root);
	msim_page_counter_init(&c->leaf, &c->mid);
}

static void init_defaults(void **state)
{
	struct chain c;

	(void)state;
	chain_init(&c);
	assert_int_equal(msim_page_counter_read(&c.leaf), 0);
	assert_int_equal(c.leaf.max, (unsigned long)MSIM_PAGE_COUNTER_MAX);
	assert_int_equal(c.leaf.high, (unsigned long)MSIM_PAGE_COUNTER_MAX);
	assert_int_equal(c.leaf.watermark, 0);
	assert_int_equal(c.leaf.failcnt, 0);
	assert_ptr_equal(c.leaf.parent, &c.mid);
	assert_null(c.root.parent);
}

static void charge_hierarchy(void **state)
{
	struct chain c;

	(void)state;
	chain_init(&c);
	msim_page_counter_charge(&c.leaf, 5);
	msim_page_counter_charge(&c.mid, 2);
	assert_int_equal(msim_page_counter_read(&c.leaf), 5);
	assert_int_equal(msim_page_counter_read(&c.mid), 7);
	assert_int_equal(msim_page_counter_read(&c.root), 7);
	msim_page_counter_uncharge(&c.leaf, 5);
	assert_int_equal(msim_page_counter_read(&c.leaf), 0);
	assert_int_equal(msim_page_counter_read(&c.mid), 2);
	assert_int_equal(msim_page_counter_read(&c.root), 2);
	/* page_counter_charge never fails, even far past a limit. */
	c.mid.max = 3;
	msim_page_counter_charge(&c.leaf, 10);
	assert_int_equal(msim_page_counter_read(&c.mid), 12);
	assert_int_equal(c.mid.failcnt, 0);
}

static void try_charge_success(void **state)
{
	struct msim_page_counter *fail = NULL;
	struct chain c;

	(void)state;
	chain_init(&c);
	c.mid.max = 100;
	assert_true(msim_page_counter_try_charge(&c.leaf, 64, &fail));
	assert_null(fail);
	assert_int_equal(msim_page_counter_read(&c.leaf), 64);
	assert_int_equal(msim_page_counter_read(&c.mid), 64);
	assert_int_equal(msim_page_counter_read(&c.root), 64);
	assert_int_equal(c.leaf.watermark, 64);
	assert_int_equal(c.mid.watermark, 64);
	assert_int_equal(c.root.watermark, 64);
}

static void try_charge_fail_middle(void **state)
{
	struct msim_page_counter *fail = NULL;
	struct chain c;

	(void)state;
	chain_init(&c);
	c.mid.max = 100;
	msim_page_counter_charge(&c.leaf, 40);
	assert_false(msim_page_counter_try_charge(&c.leaf, 64, &fail));
	assert_ptr_equal(fail, &c.mid);
	/* mid rolled back itself, leaf was cancelled, root never touched. */
	assert_int_equal(msim_page_counter_read(&c.leaf), 40);
	assert_int_equal(msim_page_counter_read(&c.mid), 40);
	assert_int_equal(msim_page_counter_read(&c.root), 40);
	assert_int_equal(c.mid.failcnt, 1);
	assert_int_equal(c.leaf.failcnt, 0);
	assert_int_equal(c.root.failcnt, 0);
	/* The speculative add at leaf raised its watermark before mid failed. */
	assert_int_equal(c.leaf.watermark, 104);
	assert_int_equal(c.mid.watermark, 40);
	assert_int_equal(c.leaf.underflows + c.mid.underflows + c.root.underflows, 0);
}

static void try_charge_exact_fit(void **state)
{
	struct msim_page_counter *fail = NULL;
	struct chain c;

	(void)state;
	chain_init(&c);
	c.leaf.max = 64;
	assert_true(msim_page_counter_try_charge(&c.leaf, 64, &fail));
	assert_false(msim_page_counter_try_charge(&c.leaf, 1, &fail));
	assert_ptr_equal(fail, &c.leaf);
	assert_int_equal(msim_page_counter_read(&c.leaf), 64);
	assert_int_equal(msim_page_counter_read(&c.root), 64);
}

static void uncharge_underflow(void **state)
{
	struct chain c;

	(void)state;
	chain_init(&c);
	msim_page_counter_charge(&c.leaf, 3);
	msim_page_counter_uncharge(&c.leaf, 5);
	assert_int_equal(msim_page_counter_read(&c.leaf), 0);
	assert_int_equal(msim_page_counter_read(&c.mid), 0);
	assert_int_equal(msim_page_counter_read(&c.root), 0);
	assert_int_equal(c.leaf.underflows, 1);
	assert_int_equal(c.mid.underflows, 1);
	assert_int_equal(c.root.underflows, 1);
	/* The counter keeps working after the clamp. */
	msim_page_counter_charge(&c.leaf, 2);
	assert_int_equal(msim_page_counter_read(&c.root), 2);
}

static void set_max(void **state)
{
	struct msim_page_counter *fail = NULL;
	struct chain c;

	(void)state;
	chain_init(&c);
	msim_page_counter_charge(&c.leaf, 10);
	assert_int_equal(msim_page_counter_set_max(&c.leaf, 9), -EBUSY);
	assert_int_equal(c.leaf.max, (unsigned long)MSIM_PAGE_COUNTER_MAX);
	assert_int_equal(msim_page_counter_set_max(&c.leaf, 10), 0);
	assert_int_equal(c.leaf.max, 10);
	assert_false(msim_page_counter_try_charge(&c.leaf, 1, &fail));
	assert_int_equal(msim_page_counter_set_max(&c.leaf, 20), 0);
	assert_true(msim_page_counter_try_charge(&c.leaf, 10, &fail));
	assert_int_equal(msim_page_counter_read(&c.leaf), 20);
}

static void set_high(void **state)
{
	struct msim_page_counter *fail = NULL;
	struct chain c;

	(void)state;
	chain_init(&c);
	msim_page_counter_set_high(&c.leaf, 5);
	assert_int_equal(c.leaf.high, 5);
	/* high never makes a charge fail: it only throttles (charge.c). */
	assert_true(msim_page_counter_try_charge(&c.leaf, 50, &fail));
	assert_int_equal(c.leaf.failcnt, 0);
}

static void local_watermark(void **state)
{
	struct chain c;

	(void)state;
	chain_init(&c);
	msim_page_counter_charge(&c.leaf, 30);
	msim_page_counter_uncharge(&c.leaf, 20);
	msim_page_counter_charge(&c.leaf, 5);
	assert_int_equal(c.leaf.watermark, 30);
	assert_int_equal(c.leaf.local_watermark, 30);
	assert_int_equal(msim_page_counter_read(&c.leaf), 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_defaults),
		cmocka_unit_test(charge_hierarchy),
		cmocka_unit_test(try_charge_success),
		cmocka_unit_test(try_charge_fail_middle),
		cmocka_unit_test(try_charge_exact_fit),
		cmocka_unit_test(uncharge_underflow),
		cmocka_unit_test(set_max),
		cmocka_unit_test(set_high),
		cmocka_unit_test(local_watermark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
