/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * test_shrinker_stress.c - concurrent mount/umount, mkdir/rmdir, list_lru add/del
 * and shrinking on every CPU (real threads), in every shrinker_info layout.
 *
 *   stress_<layout>   4 CPUs, 2 nodes; each CPU runs a seeded mix of operations on
 *                     shared superblocks and memcgs and on its own; at quiescence
 *                     every non-empty per-memcg list has its bit set; after tearing
 *                     everything down the kernel-memory model is back to its
 *                     starting bytes (no unit, header, list or object leaked).
 *
 * Size: STRESS_OPS operations per CPU (MSIM_STRESS_OPS overrides). Assertions run
 * on the main thread after msim_run() joined the CPUs (cmocka is not thread-safe).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#define NCPU 4
#define NSHARED_SB 2
#define NSHARED_CG 4
#define NITEMS 32
#define STRESS_OPS 400
#define NPAD 62

struct item {
	struct msim_list_head lru;
	struct msim_memcg *memcg;   /* the memcg it was added with, NULL if not on */
	unsigned int nid;
};

struct world;

struct cpu_ctx {
	struct world *w;
	unsigned int cpu;
	uint64_t rng;
	struct msim_super_block *own_sb;
	struct msim_memcg *own_cg;
	struct item items[NITEMS];
	unsigned long errors;
};

struct world {
	struct msim *m;
	struct msim_super_block *sb[NSHARED_SB];
	struct msim_memcg *cg[NSHARED_CG];
	struct msim_list_lru raw;          /* list_lru add/del by item owners */
	struct msim_shrinker *raw_shrinker;
	struct msim_shrinker *pad[128];
	struct cpu_ctx cpu[NCPU];
	unsigned long ops;
};

static uint64_t rnd(struct cpu_ctx *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

static unsigned long raw_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct world *w = s->private_data;
	unsigned long n = msim_list_lru_shrink_count(&w->raw, sc);

	return n ? n : MSIM_SHRINK_EMPTY;
}

/* Items belong to their CPU: the shrinker only looks (rotates), never frees. */
static enum msim_lru_status raw_rotate(struct msim_list_head *item,
				       struct msim_list_lru_one *list, void *arg)
{
	return MSIM_LRU_ROTATE;
}

static unsigned long raw_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	struct world *w = s->private_data;

	msim_list_lru_shrink_walk(&w->raw, sc, raw_rotate, NULL);
	return 0;
}

static struct msim_memcg *pick_cg(struct cpu_ctx *c)
{
	unsigned int k = (unsigned int)(rnd(c) % (NSHARED_CG + 2));

	if (k < NSHARED_CG)
		return c->w->cg[k];
	return k == NSHARED_CG ? NULL : c->own_cg; /* root, or ours (may be NULL) */
}

static void op_raw(struct cpu_ctx *c)
{
	struct item *it = &c->items[rnd(c) % NITEMS];
	struct msim_memcg *cg;

	if (it->memcg) { /* on the list (a shrinker may rotate it: never peek at it) */
		if (!msim_list_lru_del(&c->w->raw, &it->lru, it->nid, it->memcg))
			c->errors++;
		it->memcg = NULL;
		it->nid = ~0U;
		return;
	}
	cg = c->w->cg[rnd(c) % NSHARED_CG];
	it->nid = (unsigned int)(rnd(c) % 2);
	if (msim_memcg_list_lru_alloc(cg, &c->w->raw))
		c->errors++;
	it->memcg = cg;
	if (!msim_list_lru_add(&c->w->raw, &it->lru, it->nid, cg))
		c->errors++;
}

static void op_mkdir_rmdir(struct cpu_ctx *c)
{
	if (c->own_cg) {
		if (msim_memcg_rmdir(c->own_cg))
			c->errors++;
		c->own_cg = NULL;
	} else if (msim_memcg_create(c->w->cg[c->cpu % NSHARED_CG], "own", &c->own_cg)) {
		c->errors++;
	}
}

static void op_mount(struct cpu_ctx *c)
{
	if (c->own_sb) {
		msim_sb_umount(c->own_sb);
		c->own_sb = NULL;
	} else if (msim_sb_mount(c->w->m, "own", &c->own_sb)) {
		c->errors++;
	}
}

static void op_objects(struct cpu_ctx *c)
{
	struct msim_super_block *sb = (rnd(c) % 3 == 0 && c->own_sb) ? c->own_sb :
				      c->w->sb[rnd(c) % NSHARED_SB];
	unsigned int nid = (unsigned int)(rnd(c) % 2);
	enum msim_sb_object_kind kind = (enum msim_sb_object_kind)(rnd(c) % 2);
	struct msim_memcg *cg = pick_cg(c);

	if (rnd(c) % 3)
		msim_sb_alloc_objects(sb, cg, nid, kind, 1 + rnd(c) % 8);
	else
		msim_sb_free_objects(sb, cg, nid, kind, 1 + rnd(c) % 8);
}

static void op_shrink(struct cpu_ctx *c)
{
	struct msim_memcg *cg = pick_cg(c);

	msim_shrink_slab(c->w->m, (unsigned int)(rnd(c) % 2), cg, (int)(rnd(c) % 13));
}

static void cpu_fn(void *arg)
{
	struct cpu_ctx *c = arg;

	for (unsigned long i = 0; i < c->w->ops; i++) {
		switch (rnd(c) % 16) {
		case 0:
			op_mount(c);
			break;
		case 1:
			op_mkdir_rmdir(c);
			break;
		case 2: case 3: case 4: case 5:
			op_raw(c);
			break;
		case 6: case 7: case 8: case 9: case 10: case 11:
			op_objects(c);
			break;
		default:
			op_shrink(c);
			break;
		}
	}
}

static uint64_t kmem_bytes(struct msim *m)
{
	struct msim_kmem_totals t;
	struct msim_memcg_counts cnt;

	for (int i = 0; i < 200; i++) {
		msim_rcu_barrier();
		msim_memcg_counts(m, &cnt);
		if (!cnt.released && !cnt.offline && !cnt.dying)
			break;
	}
	msim_rcu_barrier();
	msim_kmem_totals(m, &t);
	return t.kmalloc_bytes + t.cache_bytes + t.percpu_bytes + t.rcu_pending_bytes;
}

/*
 * The world's host: NCPU CPUs on 2 nodes, concurrent mode, shrinker units in
 * layout, made current; w->ops from MSIM_STRESS_OPS or STRESS_OPS.
 */
static void world_host(struct world *w, enum msim_shrinker_info_layout layout)
{
	struct msim_config cfg;
	const char *env = getenv("MSIM_STRESS_OPS");
	char err[256];

	w->ops = env ? strtoul(env, NULL, 10) : STRESS_OPS;
	msim_config_init(&cfg);
	cfg.nr_cpus = NCPU;
	cfg.nr_nodes = 2;
	cfg.mode = MSIM_CONCURRENT;
	assert_int_equal(msim_variant_set_value(&cfg.variants, "shrinker-info", layout), 0);
	assert_int_equal(msim_create(&cfg, &w->m, err, sizeof(err)), 0);
	msim_set_current_host(w->m);
	assert_int_equal(msim_shrinker_init(w->m), 0);
}

static void run_layout(enum msim_shrinker_info_layout layout)
{
	struct world *w = calloc(1, sizeof(*w));
	struct msim_shrinker_stats st;
	char why[256];
	uint64_t base;
	int i;

	assert_non_null(w);
	world_host(w, layout);
	/*
	 * root's units stay once shrinker_nr_max grew: warm it to 128 first, so that
	 * the ids of this phase (pads 0..61, then 62..~70) need no expansion and the
	 * bytes can return exactly. Expansions under load: stress_expand_*.
	 */
	for (i = 0; i < 128; i++)
		assert_int_equal(msim_shrinker_alloc(w->m, MSIM_SHRINKER_MEMCG_AWARE, "warm",
						     &w->pad[i]), 0);
	for (i = 0; i < 128; i++)
		msim_shrinker_free(w->pad[i]);
	base = kmem_bytes(w->m);
	for (i = 0; i < NPAD; i++)
		assert_int_equal(msim_shrinker_alloc(w->m, MSIM_SHRINKER_MEMCG_AWARE, "pad",
						     &w->pad[i]), 0);

	for (i = 0; i < NSHARED_SB; i++)
		assert_int_equal(msim_sb_mount(w->m, "shared", &w->sb[i]), 0);
	assert_int_equal(msim_shrinker_alloc(w->m, MSIM_SHRINKER_MEMCG_AWARE |
					     MSIM_SHRINKER_NUMA_AWARE, "raw", &w->raw_shrinker), 0);
	w->raw_shrinker->count_objects = raw_count;
	w->raw_shrinker->scan_objects = raw_scan;
	w->raw_shrinker->private_data = w;
	assert_int_equal(msim_list_lru_init(w->m, &w->raw, true, w->raw_shrinker), 0);
	assert_int_equal(msim_shrinker_register(w->raw_shrinker), 0);
	for (i = 0; i < NSHARED_CG; i++)
		assert_int_equal(msim_memcg_create(i < 2 ? msim_root_mem_cgroup(w->m) : w->cg[i - 2],
						   "shared", &w->cg[i]), 0);
	for (i = 0; i < NCPU; i++) {
		struct cpu_ctx *c = &w->cpu[i];

		c->w = w;
		c->cpu = (unsigned int)i;
		c->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1) + (uint64_t)layout;
		for (int k = 0; k < NITEMS; k++) {
			msim_init_list_head(&c->items[k].lru);
			c->items[k].nid = ~0U;
		}
		assert_non_null(msim_task_create(w->m, "stress", (unsigned int)i, cpu_fn, c));
	}
	assert_int_equal(msim_run(w->m), 0);
	msim_shrinker_stats(w->m, &st);
	if (getenv("MSIM_STRESS_VERBOSE"))
		printf("%s: count %llu scan %llu cleared %llu reset %llu installed %llu "
		       "expansions %llu\n", msim_shrinker_layout_name(layout),
		       (unsigned long long)st.count_calls, (unsigned long long)st.scan_calls,
		       (unsigned long long)st.bits_cleared, (unsigned long long)st.bits_reset,
		       (unsigned long long)st.units_installed, (unsigned long long)st.expansions);
	assert_true(st.count_calls > 0);
	assert_true(st.scan_calls > 0);
	assert_true(st.bits_cleared > 0);
	if (msim_shrinker_layout_on_demand(layout))
		assert_true(st.units_installed > 0);

	/* quiescence: every non-empty list has its bit */
	assert_int_equal(msim_list_lru_check_bits(w->m, why, sizeof(why)), 0);
	for (i = 0; i < NCPU; i++)
		assert_int_equal(w->cpu[i].errors, 0);

	/* teardown */
	for (i = 0; i < NCPU; i++) {
		struct cpu_ctx *c = &w->cpu[i];

		for (int k = 0; k < NITEMS; k++)
			if (c->items[k].memcg)
				assert_true(msim_list_lru_del(&w->raw, &c->items[k].lru,
							      c->items[k].nid, c->items[k].memcg));
		if (c->own_sb)
			assert_int_equal(msim_sb_umount(c->own_sb), 0);
		if (c->own_cg)
			assert_int_equal(msim_memcg_rmdir(c->own_cg), 0);
	}
	for (i = 0; i < NSHARED_SB; i++)
		assert_int_equal(msim_sb_umount(w->sb[i]), 0);
	msim_shrinker_free(w->raw_shrinker);
	msim_list_lru_destroy(&w->raw);
	for (i = 0; i < NPAD; i++)
		msim_shrinker_free(w->pad[i]);
	for (i = NSHARED_CG - 1; i >= 0; i--)
		assert_int_equal(msim_memcg_rmdir(w->cg[i]), 0);
	assert_int_equal(kmem_bytes(w->m), base);
	msim_destroy(w->m);
	free(w);
}

/* ---- expansions under load ---- */

#define EXPAND_PER_CPU 100

struct exp_ctx {
	struct cpu_ctx c;
	struct msim_shrinker *mine[EXPAND_PER_CPU];
	unsigned int n;
};

static void expand_fn(void *arg)
{
	struct exp_ctx *e = arg;
	struct cpu_ctx *c = &e->c;

	for (unsigned long i = 0; i < c->w->ops; i++) {
		unsigned int k = (unsigned int)(rnd(c) % 8);

		if (k < 2 && e->n < EXPAND_PER_CPU) {
			if (msim_shrinker_alloc(c->w->m, MSIM_SHRINKER_MEMCG_AWARE, "grow",
						&e->mine[e->n]))
				c->errors++;
			else
				e->n++;
		} else if (k == 2) {
			op_mkdir_rmdir(c);
		} else if (k < 6) {
			op_objects(c);
		} else {
			op_shrink(c);
		}
	}
}

struct root_fig {
	unsigned long units, xa_nodes;
};

static void root_fig(struct msim *m, struct root_fig *f)
{
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_shrinker_info_bytes b;

	f->units = msim_shrinker_nr_units(root, 0) + msim_shrinker_nr_units(root, 1);
	msim_shrinker_info_bytes(root, &b);
	f->xa_nodes = msim_shrinker_layout(m) == MSIM_SHRINKER_INFO_XARRAY ?
			      (unsigned long)(b.container / MSIM_XA_NODE_BYTES) : 0;
}

static uint64_t live_allocations(struct msim *m)
{
	struct msim_kmem_totals t;

	kmem_bytes(m); /* drains grace periods and memcg frees */
	msim_kmem_totals(m, &t);
	return t.allocations;
}

/*
 * Every CPU allocates memcg-aware shrinkers (ids cross several unit boundaries,
 * each an expansion over every memcg and node) while the others add objects,
 * shrink and mkdir/rmdir. At quiescence every non-empty list has its bit; after
 * teardown the live allocations are the starting ones plus exactly root's new
 * units (and, in the xarray layout, root's new xa_nodes): nothing else leaked.
 */
static void run_expand(enum msim_shrinker_info_layout layout)
{
	struct world *w = calloc(1, sizeof(*w));
	struct exp_ctx *e = calloc(NCPU, sizeof(*e));
	struct root_fig r0, r1;
	char why[256];
	uint64_t a0, a1;
	int i;

	assert_non_null(w);
	assert_non_null(e);
	world_host(w, layout);
	a0 = live_allocations(w->m);
	root_fig(w->m, &r0);
	for (i = 0; i < NSHARED_SB; i++)
		assert_int_equal(msim_sb_mount(w->m, "shared", &w->sb[i]), 0);
	for (i = 0; i < NSHARED_CG; i++)
		assert_int_equal(msim_memcg_create(i < 2 ? msim_root_mem_cgroup(w->m) : w->cg[i - 2],
						   "shared", &w->cg[i]), 0);
	for (i = 0; i < NCPU; i++) {
		e[i].c.w = w;
		e[i].c.cpu = (unsigned int)i;
		e[i].c.rng = 0x2545f4914f6cdd1dULL * (uint64_t)(i + 1) + (uint64_t)layout;
		assert_non_null(msim_task_create(w->m, "expand", (unsigned int)i, expand_fn, &e[i]));
	}
	assert_int_equal(msim_run(w->m), 0);
	assert_int_equal(msim_list_lru_check_bits(w->m, why, sizeof(why)), 0);
	assert_true(msim_shrinker_nr_max(w->m) >= 128);
	for (i = 0; i < NCPU; i++) {
		assert_int_equal(e[i].c.errors, 0);
		for (unsigned int k = 0; k < e[i].n; k++)
			msim_shrinker_free(e[i].mine[k]);
		if (e[i].c.own_cg)
			assert_int_equal(msim_memcg_rmdir(e[i].c.own_cg), 0);
	}
	for (i = 0; i < NSHARED_SB; i++)
		assert_int_equal(msim_sb_umount(w->sb[i]), 0);
	for (i = NSHARED_CG - 1; i >= 0; i--)
		assert_int_equal(msim_memcg_rmdir(w->cg[i]), 0);
	a1 = live_allocations(w->m);
	root_fig(w->m, &r1);
	assert_int_equal(a1 - a0, (r1.units - r0.units) + (r1.xa_nodes - r0.xa_nodes));
	msim_destroy(w->m);
	free(e);
	free(w);
}

static void stress_expand_array(void **st) { run_expand(MSIM_SHRINKER_INFO_ARRAY); }
static void stress_expand_array_unit_cache(void **st) { run_expand(MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE); }
static void stress_expand_array_on_demand(void **st) { run_expand(MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND); }
static void stress_expand_xarray(void **st) { run_expand(MSIM_SHRINKER_INFO_XARRAY); }

static void stress_array(void **st) { run_layout(MSIM_SHRINKER_INFO_ARRAY); }
static void stress_array_unit_cache(void **st) { run_layout(MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE); }
static void stress_array_on_demand(void **st) { run_layout(MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND); }
static void stress_xarray(void **st) { run_layout(MSIM_SHRINKER_INFO_XARRAY); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stress_array),
		cmocka_unit_test(stress_array_unit_cache),
		cmocka_unit_test(stress_array_on_demand),
		cmocka_unit_test(stress_xarray),
		cmocka_unit_test(stress_expand_array),
		cmocka_unit_test(stress_expand_array_unit_cache),
		cmocka_unit_test(stress_expand_array_on_demand),
		cmocka_unit_test(stress_expand_xarray),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
