/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * test_charge_concurrent.c - the charge path on real threads (concurrent mode,
 * one OS thread per simulated CPU): 4 CPUs charge and uncharge 9 memcgs under a
 * limited parent, more memcgs than stock slots, so stocks evict, the limit is hit,
 * and the failure ladder runs drain_all_stock on other CPUs' stocks while they
 * are in use. TSan-checked under the tsan preset.
 *
 *   conservation   after quiescence and a final drain_all_stock, every counter is
 *                  exactly 0 and nothing underflowed; a charge either succeeded
 *                  and was uncharged, or failed and left nothing behind
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcgsim.h>

#include "unit/unit_util.h"

#define CPUS 4
#define CHILDREN 9
#define ITERS 3000
#define HELD 16

struct worker {
	struct msim_memcg **children;
	unsigned int cpu;
	unsigned long ok, failed, bad;
};

static void worker_fn(void *arg)
{
	struct worker *w = arg;
	struct { struct msim_memcg *memcg; unsigned int nr; } held[HELD] = { { 0 } };
	uint64_t x = 0x9e3779b97f4a7c15ULL * (w->cpu + 1);

	for (unsigned int i = 0; i < ITERS; i++) {
		unsigned int slot = i % HELD, nr;
		struct msim_memcg *memcg;
		int ret;

		if (held[slot].memcg) {
			msim_memcg_uncharge(held[slot].memcg, held[slot].nr);
			held[slot].memcg = NULL;
		}
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcg = w->children[x % CHILDREN];
		nr = 1 + (unsigned int)((x >> 8) % 3);
		ret = msim_try_charge(memcg, MSIM_GFP_NORETRY, nr);
		if (ret == 0) {
			held[slot].memcg = memcg;
			held[slot].nr = nr;
			w->ok++;
		} else if (ret == -ENOMEM) {
			w->failed++;
		} else {
			w->bad++;
		}
	}
	for (unsigned int s = 0; s < HELD; s++)
		if (held[s].memcg)
			msim_memcg_uncharge(held[s].memcg, held[s].nr);
}

static void conservation(void **state)
{
	struct msim_config cfg;
	struct msim *m = NULL;
	struct msim_memcg *root, *p, *children[CHILDREN];
	struct worker w[CPUS];
	struct msim_charge_stats cs;
	unsigned long ok = 0, failed = 0;

	(void)state;
	msim_config_init(&cfg);
	cfg.nr_cpus = CPUS;
	cfg.mode = MSIM_CONCURRENT;
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_charge_init(m), 0);
	root = msim_root_mem_cgroup(m);
	assert_int_equal(msim_memcg_create(root, "p", &p), 0);
	/* 4 stocks x 7 slots x 63 pages would exceed this: the limit gets hit. */
	assert_int_equal(msim_memory_max_write(p, "1M"), 0); /* 256 pages */
	for (int i = 0; i < CHILDREN; i++) {
		char name[8];

		snprintf(name, sizeof(name), "c%d", i);
		assert_int_equal(msim_memcg_create(p, name, &children[i]), 0);
	}
	for (unsigned int cpu = 0; cpu < CPUS; cpu++) {
		w[cpu] = (struct worker){ .children = children, .cpu = cpu };
		assert_non_null(msim_task_create(m, "charger", cpu, worker_fn, &w[cpu]));
	}
	assert_int_equal(msim_run(m), 0);
	for (unsigned int cpu = 0; cpu < CPUS; cpu++) {
		assert_int_equal(w[cpu].bad, 0);
		ok += w[cpu].ok;
		failed += w[cpu].failed;
	}
	assert_int_equal(ok + failed, CPUS * ITERS);
	assert_true(ok > 0);
	/* Only the stocks still hold charges; draining them empties every counter. */
	msim_drain_all_stock(root);
	for (int i = 0; i < CHILDREN; i++) {
		assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(children[i])), 0);
		assert_int_equal(msim_memcg_page_counter(children[i])->underflows, 0);
	}
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(p)), 0);
	assert_int_equal(msim_memcg_page_counter(p)->underflows, 0);
	assert_int_equal(msim_page_counter_read(msim_memcg_page_counter(root)), 0);
	assert_true(msim_memcg_page_counter(p)->watermark <= 256);
	msim_charge_stats(m, &cs);
	assert_int_equal(cs.nomem, failed);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conservation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
