/* SPDX-License-Identifier: MIT */
/*
 * race_counter.c - a small experiment written only against the installed
 * libmemcgsim (the foundation API: sim.h, yield.h, atomic.h, lock.h, rcu.h, memcg.h, kmem.h).
 *
 * It builds a 4-CPU simulated host with a few cgroups and shows the two things an
 * experiment usually wants from the simulator:
 *
 *  1. Work on many CPUs: 8 tasks (2 per CPU) each add 1 to an atomic counter 500
 *     times, under the PCT scheduler; the counter must end at exactly 4000.
 *
 *  2. A race found and replayed: two CPUs increment a plain shared counter with a
 *     load and a store (READ_ONCE / WRITE_ONCE, no atomic RMW):
 *
 *        CPU 0                         | CPU 1
 *        v = READ_ONCE(counter)  (0)   |
 *                                      | v = READ_ONCE(counter)  (0)
 *        WRITE_ONCE(counter, v + 1)    |
 *                                      | WRITE_ONCE(counter, v + 1)
 *        counter == 1, not 2: one update lost
 *
 *     The random explorer finds an interleaving that loses an update, prints its
 *     schedule string, and replaying that string reproduces the loss exactly.
 *
 * Every line printed is deterministic (seeded schedules, virtual time), so two
 * builds of this program print the same thing; the last line is "result: PASS"
 * when every expectation held (exit status 0), else "result: FAIL" (status 1).
 *
 * Build: see CMakeLists.txt (find_package) and Makefile (pkg-config) next to it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/memcg.h>
#include <memcgsim/kmem.h>

#define NR_CPUS 4
#define TASKS_PER_CPU 2
#define ADDS_PER_TASK 500
#define EXPLORE_RUNS 200
#define EXPLORE_SEED 1

static int failures;

static void expect(bool ok, const char *what)
{
	if (!ok) {
		printf("  FAILED: %s\n", what);
		failures++;
	}
}

/* ---- part 1: cgroups and an atomic counter on 4 CPUs ---- */

static msim_atomic_long_t hits;

static void add_hits(void *arg)
{
	(void)arg;
	for (int i = 0; i < ADDS_PER_TASK; i++)
		msim_atomic_long_add(&hits, 1);
}

static unsigned long online_cgroups(struct msim *m)
{
	struct msim_memcg_counts c;

	msim_memcg_counts(m, &c);
	return c.online;
}

/* mkdir /a, /b, /a/c on m; an rmdir of /a with a child is refused, as in the kernel. */
static int make_cgroups(struct msim *m, struct msim_memcg **a, struct msim_memcg **b,
			struct msim_memcg **c)
{
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	int ret = msim_memcg_create(root, "a", a);

	if (!ret)
		ret = msim_memcg_create(root, "b", b);
	if (!ret)
		ret = msim_memcg_create(*a, "c", c);
	if (ret) {
		printf("msim_memcg_create: %d\n", ret);
		return ret;
	}
	printf("cgroups: online=%lu after mkdir /a /b /a/c (level of /a/c: %u)\n",
	       online_cgroups(m), msim_memcg_level(*c));
	expect(online_cgroups(m) == 4, "root + 3 cgroups online");
	expect(msim_memcg_level(*c) == 2, "/a/c is at level 2");
	ret = msim_memcg_rmdir(*a);
	printf("cgroups: rmdir /a with a child: %s\n", ret == -EBUSY ? "-EBUSY" : "unexpected");
	expect(ret == -EBUSY, "rmdir /a with a live child returns -EBUSY");
	return 0;
}

/*
 * 8 tasks on 4 CPUs bump the counter under the PCT scheduler. The strategy is
 * set after the tasks exist: PCT gives every task its priority then.
 */
static void count_on_every_cpu(struct msim *m)
{
	struct msim_sched_opts so = {
		.strategy = MSIM_STRAT_PCT, .seed = EXPLORE_SEED, .pct_depth = 3,
	};
	int ret;

	msim_atomic_long_set(&hits, 0);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int t = 0; t < TASKS_PER_CPU; t++)
			if (!msim_task_create(m, "adder", cpu, add_hits, NULL))
				expect(false, "msim_task_create");
	ret = msim_sched_set(m, &so);
	expect(ret == 0, "msim_sched_set(PCT)");
	ret = msim_run(m);
	long total = msim_atomic_long_read(&hits);
	printf("tasks: %d on %d CPUs, atomic counter=%ld (expected %d)\n",
	       NR_CPUS * TASKS_PER_CPU, NR_CPUS, total, NR_CPUS * TASKS_PER_CPU * ADDS_PER_TASK);
	expect(ret == 0, "msim_run returns 0");
	expect(total == NR_CPUS * TASKS_PER_CPU * ADDS_PER_TASK, "no atomic add lost");
}

static int part_counter(void)
{
	struct msim_config cfg;
	struct msim *m;
	struct msim_memcg *a, *b, *c;
	struct msim_kmem_totals kt;
	char err[256];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = NR_CPUS;
	ret = msim_create(&cfg, &m, err, sizeof(err));
	if (ret) {
		printf("msim_create: %s (%d)\n", err, ret);
		return ret;
	}
	if ((ret = make_cgroups(m, &a, &b, &c))) {
		msim_destroy(m);
		return ret;
	}
	count_on_every_cpu(m);

	/* rmdir /a/c then /b: both go offline; root and /a stay online. */
	ret = msim_memcg_rmdir(c);
	if (!ret)
		ret = msim_memcg_rmdir(b);
	expect(ret == 0, "rmdir /a/c and /b");
	printf("cgroups: online=%lu after rmdir /a/c /b\n", online_cgroups(m));
	expect(online_cgroups(m) == 2, "root and /a still online");

	/* What the simulated kernel allocated (model bytes; not checked here). */
	msim_kmem_totals(m, &kt);
	fprintf(stderr, "kmem: kmalloc %llu B, caches %llu B, percpu %llu B\n",
		(unsigned long long)kt.kmalloc_bytes, (unsigned long long)kt.cache_bytes,
		(unsigned long long)kt.percpu_bytes);

	msim_destroy(m);
	return 0;
}

/* ---- part 2: a lost update, found by the explorer and replayed ---- */

struct racy {
	long counter;
};

static void racy_inc(void *arg)
{
	struct racy *r = arg;
	long v = msim_read_once(&r->counter);

	msim_write_once(&r->counter, v + 1);
}

static int racy_setup(struct msim *m, void **state, void *arg)
{
	struct racy *r = calloc(1, sizeof(*r));

	(void)arg;
	if (!r)
		return -ENOMEM;
	if (!msim_task_create(m, "inc0", 0, racy_inc, r) ||
	    !msim_task_create(m, "inc1", 1, racy_inc, r)) {
		free(r);
		return -ENOMEM;
	}
	*state = r;
	return 0;
}

static bool racy_check(struct msim *m, void *state, char *why, size_t len)
{
	struct racy *r = state;

	(void)m;
	if (r->counter == 2)
		return false;
	snprintf(why, len, "counter=%ld after two increments", r->counter);
	return true;
}

static void racy_teardown(struct msim *m, void *state)
{
	(void)m;
	free(state);
}

static int part_race(void)
{
	static const struct msim_explore_target target = {
		.name = "lost-update",
		.setup = racy_setup,
		.check = racy_check,
		.teardown = racy_teardown,
	};
	struct msim_config cfg;
	struct msim_explore_result *res = calloc(2, sizeof(*res));
	int ret;

	if (!res)
		return -ENOMEM;
	msim_config_init(&cfg);
	cfg.nr_cpus = 2;

	struct msim_explore_opts eo = {
		.strategy = MSIM_STRAT_RANDOM, .seed = EXPLORE_SEED, .runs = EXPLORE_RUNS,
		.stop_at_first = true,
	};
	ret = msim_explore(&target, &cfg, &eo, &res[0]);
	expect(ret == 0, "msim_explore(RANDOM)");
	expect(res[0].violations > 0, "the explorer finds a lost update");
	if (res[0].violations)
		printf("race: lost update found in run %d of at most %d (random, seed %d)\n",
		       res[0].first_violation_run + 1, EXPLORE_RUNS, EXPLORE_SEED);
	else
		printf("race: lost update NOT found in %u runs (random, seed %d)\n",
		       res[0].runs, EXPLORE_SEED);
	if (res[0].violations)
		printf("race: %s; schedule %s\n", res[0].why, res[0].schedule);

	/* Replay the failing schedule: the same string gives the same run. */
	struct msim_explore_opts ro = {
		.strategy = MSIM_STRAT_REPLAY, .schedule = res[0].schedule, .runs = 1,
	};
	ret = msim_explore(&target, &cfg, &ro, &res[1]);
	expect(ret == 0, "msim_explore(REPLAY)");
	printf("race: replay %s\n", res[1].violations == 1 ? "reproduced it" : "did NOT reproduce it");
	expect(res[1].violations == 1, "the replay reproduces the lost update");
	expect(strcmp(res[0].why, res[1].why) == 0, "the replay ends in the same state");
	free(res);
	return 0;
}

int main(void)
{
	printf("memcgsim example: %d CPUs, deterministic scheduler\n", NR_CPUS);
	if (part_counter() || part_race())
		failures++;
	printf("result: %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
