/* SPDX-License-Identifier: MIT */
/*
 * test_shrinker_slab.c - shrink_slab, do_shrink_slab, list_lru and superblocks
 * (src/shrinker), in every layout where the layout matters.
 *
 *   zero_keeps_bit          count 0 keeps the bit; SHRINK_EMPTY clears it
 *   recount_resets_bit      EMPTY then non-empty on the recount: the bit is re-set
 *   deferred_arithmetic     do_shrink_slab's delta, batches, next_deferred, exact
 *   dying_redirect          objects of an offline memcg: reparented, and later adds
 *                           go to the parent, with the parent's bit set
 *   dead_marker             between "mark dead" and the xarray erase: LONG_MIN, and
 *                           an add goes to the parent
 *   misuse                  register twice, double free, ids past the limit, list_lru
 *                           after destroy
 *   superblock_cycle        mount, objects in memcgs on 2 nodes, shrink, drop_caches,
 *                           umount: kernel memory back to its starting bytes
 *   root_walk               shrink_slab on root walks every registered shrinker
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#include "unit_util.h"

/* Misuse warnings are expected (bad arguments are tested): keep them quiet. */
static struct msim *host_new(enum msim_shrinker_info_layout l, unsigned int nodes)
{
	setenv("MSIM_QUIET_MISUSE", "1", 1);
	return unit_shrinker_host(l, nodes);
}

/* ---- a fake shrinker with scripted count results ---- */

struct fake {
	unsigned long count[4];   /* result of the n-th count call (last repeats) */
	int ncount;
	bool scan_stop;
	unsigned long scanned;
};

static unsigned long fake_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct fake *f = s->private_data;
	unsigned long r = f->count[f->ncount < 3 ? f->ncount : 3];

	f->ncount++;
	return r;
}

static unsigned long fake_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct fake *f = s->private_data;

	if (f->scan_stop)
		return MSIM_SHRINK_STOP;
	f->scanned += sc->nr_to_scan;
	return sc->nr_to_scan;
}

static struct msim_shrinker *fake_new(struct msim *m, unsigned int flags, struct fake *f)
{
	struct msim_shrinker *s;

	assert_int_equal(msim_shrinker_alloc(m, flags, "fake", &s), 0);
	s->count_objects = fake_count;
	s->scan_objects = fake_scan;
	s->private_data = f;
	assert_int_equal(msim_shrinker_register(s), 0);
	return s;
}

static void zero_keeps_bit(void **state)
{
	for (int l = 0; l < 4; l++) {
		struct msim *m = host_new((enum msim_shrinker_info_layout)l, 1);
		struct fake f = { .count = { 0, 0, 0, 0 } };
		struct msim_shrinker *s = fake_new(m, MSIM_SHRINKER_MEMCG_AWARE, &f);
		struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
		struct msim_shrinker_stats st;

		assert_int_equal(msim_shrinker_unit_install(c, 0, s->id), 0);
		msim_set_shrinker_bit(c, 0, s->id);
		assert_int_equal(msim_shrink_slab(m, 0, c, MSIM_DEF_PRIORITY), 0);
		assert_true(msim_shrinker_test_bit(c, 0, s->id)); /* 0: kept */
		assert_int_equal(f.ncount, 1);
		for (int i = 0; i < 4; i++)
			f.count[i] = MSIM_SHRINK_EMPTY;
		assert_int_equal(msim_shrink_slab(m, 0, c, MSIM_DEF_PRIORITY), 0);
		assert_false(msim_shrinker_test_bit(c, 0, s->id)); /* EMPTY: cleared */
		assert_int_equal(f.ncount, 3);                     /* count + recount */
		msim_shrinker_stats(m, &st);
		assert_int_equal(st.bits_cleared, 1);
		assert_int_equal(st.bits_reset, 0);
		/* no bit: not called at all */
		assert_int_equal(msim_shrink_slab(m, 0, c, MSIM_DEF_PRIORITY), 0);
		assert_int_equal(f.ncount, 3);
		msim_shrinker_free(s);
		assert_int_equal(msim_memcg_rmdir(c), 0);
		msim_destroy(m);
	}
}

static void recount_resets_bit(void **state)
{
	struct msim *m = host_new(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct fake f = { .count = { MSIM_SHRINK_EMPTY, 5, 5, 5 } };
	struct msim_shrinker *s = fake_new(m, MSIM_SHRINKER_MEMCG_AWARE, &f);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_shrinker_stats st;

	assert_int_equal(msim_shrinker_unit_install(c, 0, s->id), 0);
	msim_set_shrinker_bit(c, 0, s->id);
	msim_shrink_slab(m, 0, c, MSIM_DEF_PRIORITY);
	assert_true(msim_shrinker_test_bit(c, 0, s->id));
	msim_shrinker_stats(m, &st);
	assert_int_equal(st.bits_cleared, 1);
	assert_int_equal(st.bits_reset, 1);
	msim_shrinker_free(s);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_destroy(m);
}

static void deferred_arithmetic(void **state)
{
	struct msim *m = host_new(MSIM_SHRINKER_INFO_ARRAY, 1);
	struct fake f = { .count = { 1000, 1000, 1000, 1000 }, .scan_stop = true };
	struct msim_shrinker *s = fake_new(m, MSIM_SHRINKER_MEMCG_AWARE, &f);
	struct fake g = { .count = { 300, 300, 300, 300 } };
	struct msim_shrinker *gs = fake_new(m, 0, &g);
	struct msim_memcg *c = unit_mkdir(msim_root_mem_cgroup(m), "c");
	struct msim_shrink_control sc = { .nid = 0, .memcg = c };

	/* priority 0: delta = 1000 * 4 / 2 = 2000, total_scan 2000, scan stops at once */
	assert_int_equal(msim_do_shrink_slab(&sc, s, 0), 0);
	assert_int_equal(msim_shrinker_memcg_nr_deferred(c, 0, s->id), 2000);
	/* priority 12: delta 0, nr 2000 >> 12 = 0: no scan, 2000 given back */
	assert_int_equal(msim_do_shrink_slab(&sc, s, MSIM_DEF_PRIORITY), 0);
	assert_int_equal(msim_shrinker_memcg_nr_deferred(c, 0, s->id), 2000);

	/* global shrinker: 300 freeable, priority 0: delta 600, batches of 128 */
	sc.memcg = NULL;
	assert_int_equal(msim_do_shrink_slab(&sc, gs, 0), 512);
	assert_int_equal(gs->scan_calls, 4);
	assert_int_equal(msim_shrinker_nr_deferred(gs, 0), 88); /* 600 - 512 */
	/* next: nr 88 + delta 600 = 688 -> clamp 600; 4 batches again, 88 left */
	assert_int_equal(msim_do_shrink_slab(&sc, gs, 0), 512);
	assert_int_equal(msim_shrinker_nr_deferred(gs, 0), 176);
	msim_shrinker_free(s);
	msim_shrinker_free(gs);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_destroy(m);
}

static void dying_redirect(void **state)
{
	for (int l = 0; l < 4; l++) {
		struct msim *m = host_new((enum msim_shrinker_info_layout)l, 2);
		struct msim_super_block *sb;
		struct msim_memcg *p, *c;
		struct msim_list_lru *lru;
		int id;
		bool exists;

		assert_int_equal(msim_sb_mount(m, "t", &sb), 0);
		lru = msim_sb_lru(sb, MSIM_SB_DENTRY);
		id = msim_sb_shrinker(sb)->id;
		p = unit_mkdir(msim_root_mem_cgroup(m), "p");
		c = unit_mkdir(p, "c");
		assert_int_equal(msim_sb_alloc_objects(sb, c, 1, MSIM_SB_DENTRY, 7), 0);
		assert_true(msim_memcg_list_lru_allocated(p, lru)); /* ancestors first */
		assert_true(msim_shrinker_test_bit(c, 1, id));
		assert_false(msim_shrinker_test_bit(p, 1, id));
		assert_int_equal(msim_list_lru_count_one(lru, 1, c), 7);
		msim_css_get(c);
		assert_int_equal(msim_memcg_rmdir(c), 0);
		/* offline: spliced into p, counts added, p's bit set, c's list erased */
		assert_int_equal(msim_list_lru_count_one(lru, 1, p), 7);
		assert_true(msim_shrinker_test_bit(p, 1, id));
		msim_list_lru_nr_items_raw(lru, 1, c, &exists);
		assert_false(exists);
		/* a later add for c goes to p */
		uint64_t mis = ({ struct msim_shrinker_stats st; msim_shrinker_stats(m, &st); st.misuse; });
		assert_int_equal(msim_sb_alloc_objects(sb, c, 0, MSIM_SB_DENTRY, 2), 0);
		assert_int_equal(msim_list_lru_count_one(lru, 0, p), 2);
		assert_true(msim_shrinker_test_bit(p, 0, id));
		assert_int_equal(msim_list_lru_count_node(lru, 0) + msim_list_lru_count_node(lru, 1), 9);
		struct msim_shrinker_stats st2;
		msim_shrinker_stats(m, &st2);
		assert_int_equal(st2.misuse, mis); /* dying: redirect is not misuse */
		/* p's shrink frees them all */
		assert_int_equal(msim_shrink_slab(m, 1, p, 0) + msim_shrink_slab(m, 0, p, 0), 9);
		assert_int_equal(msim_sb_nr_objects(sb), 0);
		msim_css_put(c);
		assert_int_equal(msim_sb_umount(sb), 0);
		assert_int_equal(msim_memcg_rmdir(p), 0);
		msim_destroy(m);
	}
}

struct rmdir_arg {
	struct msim_memcg *memcg;
	int ret;
};

static void rmdir_fn(void *arg)
{
	struct rmdir_arg *a = arg;

	a->ret = msim_memcg_rmdir(a->memcg);
}

static void dead_marker(void **state)
{
	struct msim *m = host_new(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct msim_super_block *sb;
	struct msim_memcg *p, *c;
	struct msim_list_lru *lru;
	struct rmdir_arg a;
	struct msim_task *t;
	bool exists;

	assert_int_equal(msim_sb_mount(m, "t", &sb), 0);
	lru = msim_sb_lru(sb, MSIM_SB_INODE);
	p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	c = unit_mkdir(p, "c");
	assert_int_equal(msim_sb_alloc_objects(sb, c, 0, MSIM_SB_INODE, 3), 0);
	msim_css_get(c);
	a.memcg = c;
	t = msim_task_create(m, "rmdir", 1, rmdir_fn, &a);
	assert_non_null(t);
	/* only the inode lru has lists for c: one erase point */
	/* rmdir waits for a grace period: the driver ends it with the RCU engine */
	int r = msim_run_until(m, t, "list_lru.reparent.before_erase", 1);
	while (r == -EDEADLK && msim_rcu_step(m))
		r = msim_run_until(m, t, "list_lru.reparent.before_erase", 1);
	assert_int_equal(r, 0);
	assert_int_equal(msim_list_lru_nr_items_raw(lru, 0, c, &exists), LONG_MIN);
	assert_true(exists);
	assert_int_equal(msim_list_lru_count_one(lru, 0, c), 0); /* dead reads 0 */
	assert_int_equal(msim_list_lru_count_one(lru, 0, p), 3);
	assert_int_equal(msim_sb_alloc_objects(sb, c, 0, MSIM_SB_INODE, 1), 0);
	assert_int_equal(msim_list_lru_count_one(lru, 0, p), 4);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(a.ret, 0);
	msim_list_lru_nr_items_raw(lru, 0, c, &exists);
	assert_false(exists);
	msim_css_put(c);
	assert_int_equal(msim_sb_umount(sb), 0);
	assert_int_equal(msim_memcg_rmdir(p), 0);
	msim_destroy(m);
}

static void misuse(void **state)
{
	struct msim *m = host_new(MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND, 1);
	struct fake f = { .count = { 0, 0, 0, 0 } };
	struct msim_shrinker *s = fake_new(m, MSIM_SHRINKER_MEMCG_AWARE, &f), *v[64], *x;
	struct msim_shrinker_stats st0, st;
	struct msim_list_lru lru = { 0 };
	struct msim_list_head item;
	struct msim_shrinker fake_s = { 0 };

	msim_shrinker_stats(m, &st0);
	assert_int_equal(msim_shrinker_register(s), -EBUSY);
	assert_int_equal(msim_shrinker_free(s), 0);
	assert_int_equal(msim_shrinker_free(s), -EINVAL);      /* double free */
	assert_int_equal(msim_shrinker_free(&fake_s), -EINVAL); /* never allocated */
	assert_int_equal(msim_shrinker_register(&fake_s), -EINVAL);
	assert_int_equal(msim_shrinker_alloc(m, 1U << 9, "bad", &x), -EINVAL);
	/* ids past the limit */
	assert_int_equal(msim_shrinker_set_id_limit(m, 64), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "v", &v[i]), 0);
	assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "w", &x), -ENOSPC);
	assert_int_equal(msim_shrinker_nr_max(m), 64);
	for (int i = 0; i < 64; i++)
		msim_shrinker_free(v[i]);
	/* list_lru before init and after destroy */
	msim_init_list_head(&item);
	assert_false(msim_list_lru_add(&lru, &item, 0, NULL));
	assert_int_equal(msim_list_lru_init(m, &lru, true, NULL), 0);
	assert_true(msim_list_lru_add(&lru, &item, 0, NULL));
	assert_int_equal(msim_list_lru_count_one(&lru, 0, NULL), 1);
	assert_false(msim_list_lru_add(&lru, &item, 5, NULL)); /* bad node */
	assert_true(msim_list_lru_del(&lru, &item, 0, NULL));
	msim_list_lru_destroy(&lru);
	msim_list_lru_destroy(&lru); /* idempotent */
	assert_false(msim_list_lru_add(&lru, &item, 0, NULL));
	assert_false(msim_list_lru_del(&lru, &item, 0, NULL));
	assert_int_equal(msim_list_lru_count_one(&lru, 0, NULL), 0);
	assert_int_equal(msim_memcg_list_lru_alloc(msim_root_mem_cgroup(m), &lru), -EINVAL);
	msim_shrinker_stats(m, &st);
	/* twice, double free, never allocated x2; list_lru: before init, bad node, after destroy x4 */
	assert_int_equal(st.misuse - st0.misuse, 10);
	msim_destroy(m);
}

static uint64_t kmem_bytes(struct msim *m)
{
	struct msim_kmem_totals t;

	struct msim_memcg_counts cnt;

	for (int i = 0; i < 100; i++) {
		msim_rcu_barrier();
		msim_memcg_counts(m, &cnt);
		if (!cnt.released && !cnt.offline)
			break;
	}
	msim_rcu_barrier();
	msim_kmem_totals(m, &t);
	return t.kmalloc_bytes + t.cache_bytes + t.percpu_bytes + t.rcu_pending_bytes;
}

static void superblock_cycle(void **state)
{
	for (int l = 0; l < 4; l++) {
		struct msim *m = host_new((enum msim_shrinker_info_layout)l, 2);
		struct msim_super_block *sb[3];
		struct msim_memcg *c[4];
		struct msim_shrinker *warm;
		struct msim_drop_slab_stats ds;
		uint64_t base;
		int i;

		/* root's units for ids < 64 exist for good once nr_max is 64 */
		assert_int_equal(msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "w", &warm), 0);
		msim_shrinker_free(warm);
		base = kmem_bytes(m);
		for (i = 0; i < 3; i++)
			assert_int_equal(msim_sb_mount(m, "sb", &sb[i]), 0);
		for (i = 0; i < 4; i++)
			c[i] = unit_mkdir(i ? c[i - 1] : msim_root_mem_cgroup(m), "c");
		for (i = 0; i < 4; i++) {
			assert_int_equal(msim_sb_alloc_objects(sb[i % 3], c[i], i % 2, MSIM_SB_DENTRY,
							       100 + i), 0);
			assert_int_equal(msim_sb_alloc_objects(sb[i % 3], c[i], i % 2, MSIM_SB_INODE,
							       50), 0);
		}
		assert_int_equal(msim_sb_alloc_objects(sb[0], NULL, 0, MSIM_SB_DENTRY, 10), 0);
		assert_int_equal(msim_list_lru_check_bits(m, NULL, 0), 0);
		/* on demand: c[1] holds units of sb[1] only (plus ancestors' lists) */
		if (msim_shrinker_layout_on_demand((enum msim_shrinker_info_layout)l)) {
			assert_int_equal(msim_shrinker_nr_units(c[3], 0), 1);
			assert_int_equal(msim_shrinker_nr_units(c[3], 1), 1);
		}
		assert_int_equal(msim_drop_slab(m, 0, &ds), 100 + 101 + 102 + 103 + 200 + 10);
		for (i = 0; i < 3; i++)
			assert_int_equal(msim_sb_nr_objects(sb[i]), 0);
		assert_false(msim_shrinker_test_bit(c[0], 0, msim_sb_shrinker(sb[0])->id));
		for (i = 0; i < 3; i++)
			assert_int_equal(msim_sb_umount(sb[i]), 0);
		for (i = 3; i >= 0; i--)
			assert_int_equal(msim_memcg_rmdir(c[i]), 0);
		assert_int_equal(kmem_bytes(m), base);
		msim_destroy(m);
	}
}

static void root_walk(void **state)
{
	struct msim *m = host_new(MSIM_SHRINKER_INFO_XARRAY, 1);
	struct fake f[3] = { { .count = { 0 } }, { .count = { 0 } }, { .count = { 0 } } };
	struct msim_shrinker *s[3];

	s[0] = fake_new(m, MSIM_SHRINKER_MEMCG_AWARE, &f[0]);
	s[1] = fake_new(m, 0, &f[1]);
	s[2] = fake_new(m, MSIM_SHRINKER_NUMA_AWARE, &f[2]);
	msim_shrink_slab(m, 0, NULL, MSIM_DEF_PRIORITY);
	msim_shrink_slab(m, 0, msim_root_mem_cgroup(m), MSIM_DEF_PRIORITY);
	for (int i = 0; i < 3; i++)
		assert_int_equal(f[i].ncount, 2);
	msim_shrinker_free(s[1]);
	msim_shrink_slab(m, 0, NULL, MSIM_DEF_PRIORITY);
	assert_int_equal(f[0].ncount, 3);
	assert_int_equal(f[1].ncount, 2);
	assert_int_equal(f[2].ncount, 3);
	msim_shrinker_free(s[0]);
	msim_shrinker_free(s[2]);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zero_keeps_bit),
		cmocka_unit_test(recount_resets_bit),
		cmocka_unit_test(deferred_arithmetic),
		cmocka_unit_test(dying_redirect),
		cmocka_unit_test(dead_marker),
		cmocka_unit_test(misuse),
		cmocka_unit_test(superblock_cycle),
		cmocka_unit_test(root_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
