/* SPDX-License-Identifier: MIT */
/*
 * test_kmem.c - the kernel-memory model charges the kernel's bytes.
 *
 *   kmalloc_classes          every class boundary of kmalloc_index(), page allocator above 8 KiB
 *   shrinker_info_table      24 + 8U header classes and U x kmalloc-1k units (docs/kmem.md)
 *   list_lru_memcg_classes   16 + 32 x nodes -> 64, 96, 192, 512
 *   slub_orders              calculate_order() for 520/584/1024-byte slots on 1..96 CPUs
 *   unit_cache_vs_kmalloc    a 520-byte unit from its own cache (packed) vs kmalloc-1k
 *   radix_tree_node_cache    576-byte object, 584-byte slot, 28 per order-2 slab on 4 CPUs
 *   owner_by_text            two pointers with the same text are one owner
 *   report_lists             owners with a charge and every cache, for bench reports
 *   kfree_rcu_pending        the charge stays until the grace period ends, not before
 *   percpu_apart             per-CPU bytes are counted apart from slab
 *   bad_free_caught          double free, foreign pointer, wrong cache: abort in debug builds
 *   concurrent_alloc         4 CPUs allocate and free at once: exact totals afterwards
 *   process_rss              /proc/self/statm gives a plausible figure
 *
 * ctest-labels: concurrent
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memcgsim/kmem.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>

static struct msim *host(unsigned int cpus, enum msim_run_mode mode)
{
	struct msim_config cfg;
	struct msim *m = NULL;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.mode = mode;
	/* The kernel-memory model alone: the memcg layer would add its caches to the lists. */
	cfg.memcg_disabled = true;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	return m;
}

static void assert_empty(struct msim *m)
{
	struct msim_kmem_totals t;

	msim_kmem_totals(m, &t);
	assert_int_equal(t.kmalloc_bytes, 0);
	assert_int_equal(t.cache_bytes, 0);
	assert_int_equal(t.percpu_bytes, 0);
	assert_int_equal(t.rcu_pending_bytes, 0);
	assert_int_equal(t.allocations, 0);
}

static void kmalloc_classes(void **state)
{
	static const struct { size_t req, cls; } tab[] = {
		{ 0, 0 },       { 1, 8 },       { 8, 8 },       { 9, 16 },      { 16, 16 },
		{ 17, 32 },     { 24, 32 },     { 32, 32 },     { 33, 64 },     { 64, 64 },
		{ 65, 96 },     { 96, 96 },     { 97, 128 },    { 128, 128 },   { 129, 192 },
		{ 192, 192 },   { 193, 256 },   { 256, 256 },   { 257, 512 },   { 520, 1024 },
		{ 1024, 1024 }, { 1025, 2048 }, { 2049, 4096 }, { 4097, 8192 }, { 8192, 8192 },
		{ 8193, 16384 }, { 16384, 16384 }, { 16385, 32768 }, { 6264 + 24, 8192 },
		{ 4UL << 20, 4UL << 20 }, { (4UL << 20) + 1, (4UL << 20) + 4096 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (msim_kmalloc_size(tab[i].req) != tab[i].cls)
			fail_msg("kmalloc(%zu): class %zu, want %zu", tab[i].req,
				 msim_kmalloc_size(tab[i].req), tab[i].cls);
	}
}

/* Reference 2.9: per node, class(24 + 8U) + U x kmalloc-1k. */
static void shrinker_info_table(void **state)
{
	static const uint64_t header_class[] = { 32, 32, 64, 64, 64, 64, 96 };
	static const uint64_t per_node[] = { 32, 1056, 2112, 3136, 4160, 5184, 6240 };
	struct msim *m = host(4, MSIM_DETERMINISTIC);
	struct msim_kmem_totals t;
	void *units[6];

	for (unsigned int u = 0; u <= 6; u++) {
		void *info = msim_kmalloc(m, 24 + 8 * u, "shrinker_info");

		assert_non_null(info);
		assert_int_equal(msim_kmalloc_size(24 + 8 * u), header_class[u]);
		for (unsigned int i = 0; i < u; i++)
			units[i] = msim_kmalloc(m, 520, "shrinker_info_unit");
		assert_int_equal(msim_kmem_owner_bytes(m, "shrinker_info"), header_class[u]);
		assert_int_equal(msim_kmem_owner_bytes(m, "shrinker_info_unit"), 1024 * u);
		msim_kmem_totals(m, &t);
		assert_int_equal(t.kmalloc_bytes, per_node[u]);
		assert_int_equal(t.allocations, 1 + u);
		for (unsigned int i = 0; i < u; i++)
			msim_kfree(m, units[i]);
		msim_kfree(m, info);
		assert_empty(m);
	}
	assert_int_equal(msim_kmem_owner_bytes(m, "shrinker_info"), 0);
	msim_destroy(m);
}

static void list_lru_memcg_classes(void **state)
{
	static const unsigned int nodes[] = { 1, 2, 4, 8 };
	static const uint64_t want[] = { 64, 96, 192, 512 };
	struct msim *m = host(4, MSIM_DETERMINISTIC);
	void *p[4];
	uint64_t sum = 0;

	for (int i = 0; i < 4; i++) {
		p[i] = msim_kmalloc(m, 16 + 32 * nodes[i], "list_lru_memcg");
		sum += want[i];
		assert_int_equal(msim_kmem_owner_bytes(m, "list_lru_memcg"), sum);
	}
	assert_int_equal(sum, 64 + 96 + 192 + 512);
	for (int i = 0; i < 4; i++)
		msim_kfree(m, p[i]);
	assert_empty(m);
	msim_destroy(m);
}

/* docs/kmem.md derives each row by hand. */
static void slub_orders(void **state)
{
	static const struct { size_t slot; unsigned int cpus, order; } tab[] = {
		{ 520, 1, 1 },  { 520, 2, 1 },  { 520, 4, 2 },  { 520, 48, 2 }, { 520, 96, 3 },
		{ 584, 4, 2 },  { 584, 32, 2 }, { 584, 64, 3 },
		{ 1024, 4, 2 }, { 1024, 64, 3 },
		{ 8, 4, 0 },    { 4096, 4, 3 }, { 40000, 4, 4 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		unsigned int o = msim_slub_calculate_order(tab[i].slot, tab[i].cpus);

		if (o != tab[i].order)
			fail_msg("slot %zu on %u CPUs: order %u, want %u", tab[i].slot,
				 tab[i].cpus, o, tab[i].order);
	}
}

/*
 * Thread 001's base: shrinker_info_unit (520 B) from a dedicated cache. On 4 CPUs
 * SLUB picks order 2: 16384 / 520 = 31 units per slab, 264 bytes left over, so
 * each unit costs 16384 / 31 = 528.5 bytes instead of kmalloc-1k's 1024.
 */
static void unit_cache_vs_kmalloc(void **state)
{
	struct msim *m = host(4, MSIM_DETERMINISTIC);
	struct msim_kmem_cache *c = msim_kmem_cache_create(m, "shrinker_info_unit", 520);
	struct msim_kmem_cache_info ci;
	struct msim_kmem_totals t;
	void *obj[32], *k[31];

	assert_non_null(c);
	msim_kmem_cache_info(c, &ci);
	assert_int_equal(ci.slot_size, 520);
	assert_int_equal(ci.order, 2);
	assert_int_equal(ci.objects_per_slab, 31);
	assert_int_equal(ci.slab_bytes, 16384);

	obj[0] = msim_kmem_cache_alloc(m, c, "unit");
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 16384);       /* one whole slab */
	assert_int_equal(msim_kmem_owner_bytes(m, "unit"), 529); /* 528.5, rounded */
	for (int i = 1; i < 31; i++)
		obj[i] = msim_kmem_cache_alloc(m, c, "unit");
	for (int i = 0; i < 31; i++)
		k[i] = msim_kmalloc(m, 520, "unit_kmalloc");
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 16384);       /* 31 units, still one slab */
	assert_int_equal(msim_kmem_owner_bytes(m, "unit"), 16384);
	assert_int_equal(t.kmalloc_bytes, 31 * 1024); /* 31744 */
	obj[31] = msim_kmem_cache_alloc(m, c, "unit");
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 32768);       /* the 32nd opens a slab */
	msim_kmem_cache_info(c, &ci);
	assert_int_equal(ci.objects, 32);
	assert_int_equal(ci.slabs, 2);
	assert_int_equal(ci.bytes, 32768);
	assert_int_equal(t.allocations, 63);

	msim_kmem_cache_free(m, c, obj[31]);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 16384);
	for (int i = 0; i < 31; i++) {
		msim_kmem_cache_free(m, c, obj[i]);
		msim_kfree(m, k[i]);
	}
	assert_empty(m);
	assert_int_equal(msim_kmem_owner_bytes(m, "unit"), 0);
	msim_kmem_cache_destroy(m, c);
	msim_destroy(m);
}

/*
 * lib/radix-tree.c creates radix_tree_node with a constructor, so SLUB keeps the
 * free pointer outside the 576-byte object: 584-byte slots, 28 per 16 KiB slab.
 */
static void radix_tree_node_cache(void **state)
{
	struct msim *m = host(4, MSIM_DETERMINISTIC);
	struct msim_kmem_cache *c, *again;
	struct msim_kmem_cache_info ci;

	c = msim_kmem_cache_find_or_create(m, "radix_tree_node", 576, MSIM_SLAB_FREEPTR_OUTSIDE);
	again = msim_kmem_cache_find_or_create(m, "radix_tree_node", 576, MSIM_SLAB_FREEPTR_OUTSIDE);
	assert_non_null(c);
	assert_ptr_equal(c, again);
	assert_null(msim_kmem_cache_find_or_create(m, "radix_tree_node", 512, 0));
	msim_kmem_cache_info(c, &ci);
	assert_int_equal(ci.object_size, 576);
	assert_int_equal(ci.slot_size, 584);
	assert_int_equal(ci.order, 2);
	assert_int_equal(ci.objects_per_slab, 28);
	void *n = msim_kmem_cache_alloc(m, c, "xa");
	assert_int_equal(msim_kmem_owner_bytes(m, "xa"), 585); /* 16384 / 28 = 585.1 */
	msim_kmem_cache_free(m, c, n);
	assert_empty(m);

	c = msim_kmem_cache_create_flags(m, "aligned", 100, MSIM_SLAB_HWCACHE_ALIGN);
	msim_kmem_cache_info(c, &ci);
	assert_int_equal(ci.slot_size, 128);
	assert_null(msim_kmem_cache_create(m, "zero", 0));
	msim_destroy(m);
}

/* The same cache, owner and geometry as the kernfs nodes of a cgroup (136 bytes, 30 a slab). */
static struct msim_kmem_cache *charge_only_cache(struct msim *m)
{
	return msim_kmem_cache_create_flags(m, "kn", 136, MSIM_SLAB_CHARGE_ONLY);
}

static void assert_same_charges(struct msim *a, struct msim_kmem_cache *ca, struct msim *b,
				struct msim_kmem_cache *cb)
{
	struct msim_kmem_cache_info ia, ib;
	struct msim_kmem_totals ta, tb;

	msim_kmem_cache_info(ca, &ia);
	msim_kmem_cache_info(cb, &ib);
	assert_int_equal(ia.objects, ib.objects);
	assert_int_equal(ia.slabs, ib.slabs);
	msim_kmem_totals(a, &ta);
	msim_kmem_totals(b, &tb);
	assert_int_equal(ta.cache_bytes, tb.cache_bytes);
	assert_int_equal(ta.allocations, tb.allocations);
	assert_int_equal(msim_kmem_owner_bytes(a, "cgroup"), msim_kmem_owner_bytes(b, "cgroup"));
}

/*
 * A bulk charge of n charge-only objects moves every total as n allocations
 * do, and a bulk uncharge as n frees, across slab boundaries: host a allocates
 * and frees object by object, host b charges and uncharges the same counts.
 */
static void bulk_charge_matches_objects(void **state)
{
	static const int steps[] = { 1, 37, 37, -37, 5, -1, -30, 29, -11 };
	struct msim *a = host(4, MSIM_DETERMINISTIC), *b = host(4, MSIM_DETERMINISTIC);
	struct msim_kmem_cache *ca = charge_only_cache(a), *cb = charge_only_cache(b);
	void *objs[128];
	unsigned int live = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int n = steps[i];

		for (int k = 0; k < n; k++)
			objs[live++] = msim_kmem_cache_alloc(a, ca, "cgroup");
		for (int k = 0; k < -n; k++)
			msim_kmem_cache_free(a, ca, objs[--live]);
		if (n > 0)
			assert_int_equal(msim_kmem_cache_charge(b, cb, (unsigned int)n, "cgroup"), 0);
		else
			assert_int_equal(msim_kmem_cache_uncharge(b, cb, (unsigned int)-n, "cgroup"), 0);
		assert_same_charges(a, ca, b, cb);
	}
	assert_int_equal(live, 30);
	assert_int_equal(msim_kmem_cache_uncharge(b, cb, 30, "cgroup"), 0);
	while (live)
		msim_kmem_cache_free(a, ca, objs[--live]);
	assert_empty(a);
	assert_empty(b);
	msim_destroy(a);
	msim_destroy(b);
}

/* Misuse changes nothing: a cache that is not charge-only, another host's, none, too many. */
static void bulk_charge_refused(void **state)
{
	struct msim *a = host(2, MSIM_DETERMINISTIC), *b = host(2, MSIM_DETERMINISTIC);
	struct msim_kmem_cache *plain = msim_kmem_cache_create(a, "plain", 64);
	struct msim_kmem_cache *ca = charge_only_cache(a), *cb = charge_only_cache(b);

	(void)state;
	assert_int_equal(msim_kmem_cache_charge(a, plain, 3, "x"), -EINVAL);
	assert_int_equal(msim_kmem_cache_charge(a, cb, 3, "x"), -EINVAL);
	assert_int_equal(msim_kmem_cache_charge(a, NULL, 3, "x"), -EINVAL);
	assert_int_equal(msim_kmem_cache_charge(NULL, ca, 3, "x"), -EINVAL);
	assert_empty(a);
	assert_int_equal(msim_kmem_cache_charge(a, ca, 3, "x"), 0);
	assert_int_equal(msim_kmem_cache_uncharge(a, ca, 4, "x"), -EINVAL);
	assert_int_equal(msim_kmem_cache_uncharge(a, plain, 1, "x"), -EINVAL);
	assert_int_equal(msim_kmem_cache_uncharge(a, ca, 3, "x"), 0);
	assert_empty(a);
	msim_destroy(a);
	msim_destroy(b);
}

static void owner_by_text(void **state)
{
	static const char a[] = "same_text", b[] = "same_text";
	struct msim *m = host(2, MSIM_DETERMINISTIC);
	void *p = msim_kmalloc(m, 100, a), *q = msim_kmalloc(m, 100, b);
	void *r = msim_kmalloc(m, 8, NULL);

	assert_ptr_not_equal(a, b);
	assert_int_equal(msim_kmem_owner_bytes(m, a), 256);
	assert_int_equal(msim_kmem_owner_bytes(m, "same_text"), 256);
	assert_int_equal(msim_kmem_owner_bytes(m, "nobody"), 0);
	msim_kfree(m, p);
	msim_kfree(m, q);
	msim_kfree(m, r);
	msim_kfree(m, NULL);
	assert_empty(m);
	msim_destroy(m);
}

static void report_lists(void **state)
{
	struct msim *m = host(4, MSIM_DETERMINISTIC);
	struct msim_kmem_cache *c = msim_kmem_cache_create(m, "unit", 520);
	struct msim_kmem_owner_info oi[8];
	struct msim_kmem_cache_info ci[4];
	void *a = msim_kmalloc(m, 24, "info"), *u = msim_kmem_cache_alloc(m, c, "units");
	void *z = msim_kmalloc(m, 8, "gone");

	msim_kfree(m, z);
	assert_int_equal(msim_kmem_owners(m, oi, 8), 2);    /* "gone" holds nothing */
	assert_string_equal(oi[0].owner, "info");
	assert_int_equal(oi[0].bytes, 32);
	assert_string_equal(oi[1].owner, "units");
	assert_int_equal(oi[1].bytes, 529);
	assert_int_equal(msim_kmem_owners(m, oi, 1), 2);    /* count beyond max */
	msim_kmem_cache_find_or_create(m, "radix_tree_node", 576, MSIM_SLAB_FREEPTR_OUTSIDE);
	assert_int_equal(msim_kmem_caches(m, ci, 4), 2);
	assert_string_equal(ci[0].name, "radix_tree_node"); /* newest first */
	assert_string_equal(ci[1].name, "unit");
	assert_int_equal(ci[1].objects, 1);
	assert_int_equal(ci[1].bytes, 16384);
	msim_kfree(m, a);
	msim_kmem_cache_free(m, c, u);
	assert_int_equal(msim_kmem_owners(m, oi, 8), 0);
	assert_empty(m);
	msim_destroy(m);
}

/*
 * A host made after another is torn down starts with nothing charged and no
 * owner, whatever the first left behind (kmem.c keeps the torn-down state as a
 * spare and clears what a host wrote of it): here 100 owners and a charge left behind.
 */
static void next_host_starts_clear(void **state)
{
	static char names[100][8];
	struct msim *a = host(2, MSIM_DETERMINISTIC), *b;
	struct msim_kmem_owner_info oi[4];
	void *p;

	(void)state;
	msim_kmem_percpu_charge(a, 100, "x"); /* the first record, left charged when a goes */
	for (int i = 0; i < 100; i++) {
		snprintf(names[i], sizeof(names[i]), "o%d", i);
		msim_kfree(a, msim_kmalloc(a, 8, names[i]));
	}
	msim_destroy(a);
	b = host(2, MSIM_DETERMINISTIC);
	assert_empty(b);
	assert_int_equal(msim_kmem_owners(b, oi, 4), 0);
	assert_int_equal(msim_kmem_owner_bytes(b, "x"), 0);
	p = msim_kmalloc(b, 8, names[7]);
	assert_int_equal(msim_kmem_owners(b, oi, 4), 1);
	assert_string_equal(oi[0].owner, "o7");
	assert_int_equal(oi[0].bytes, 8);
	msim_kfree(b, p);
	assert_empty(b);
	msim_destroy(b);
}

/*
 * kvfree_rcu: the memory (and its charge) stays until a grace period has passed.
 *
 *   driver (reader)          | updater
 *   rcu_read_lock()          |
 *                            | kfree_rcu(info)   charge stays, pending 128
 *   (grace period can't end) | rcu step: nothing to do
 *   rcu_read_unlock()        |
 *                            | rcu step: GP ends, callback frees: charge 0
 */
static void kfree_rcu_pending(void **state)
{
	struct msim *m = host(4, MSIM_DETERMINISTIC);
	struct msim_kmem_cache *c = msim_kmem_cache_create(m, "unit", 520);
	struct msim_kmem_totals t;
	void *p = msim_kmalloc(m, 100, "info");
	void *u = msim_kmem_cache_alloc(m, c, "unit");

	msim_rcu_read_lock();
	msim_kfree_rcu(m, p);
	msim_kfree_rcu(m, u);
	while (msim_rcu_step(m))
		;
	msim_kmem_totals(m, &t);
	assert_int_equal(t.kmalloc_bytes, 128);
	assert_int_equal(t.cache_bytes, 16384);
	assert_int_equal(t.rcu_pending_bytes, 128 + 529);
	assert_int_equal(t.allocations, 2);
	assert_int_equal(msim_kmem_owner_bytes(m, "info"), 128);
	msim_rcu_read_unlock();
	msim_rcu_barrier();
	assert_empty(m);
	assert_int_equal(msim_kmem_owner_bytes(m, "info"), 0);
	assert_int_equal(msim_kmem_owner_bytes(m, "unit"), 0);
	msim_destroy(m);
}

static void percpu_apart(void **state)
{
	struct msim *m = host(4, MSIM_DETERMINISTIC);
	struct msim_kmem_totals t;
	void *pc = msim_alloc_percpu(m, 40, "stock");

	assert_non_null(pc);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.percpu_bytes, 4 * 40);
	assert_int_equal(t.kmalloc_bytes + t.cache_bytes, 0);
	assert_int_equal(msim_kmem_owner_percpu_bytes(m, "stock"), 160);
	assert_int_equal(msim_kmem_owner_bytes(m, "stock"), 0);
	msim_free_percpu(m, pc);
	assert_empty(m);
	msim_destroy(m);
}

enum bad_kind { BAD_DOUBLE_FREE, BAD_FOREIGN, BAD_WRONG_CACHE, BAD_FREE_AFTER_RCU };

static void do_bad(struct msim *m, struct msim_kmem_cache *c, enum bad_kind kind)
{
	static char foreign[64] __attribute__((aligned(16)));
	void *p;

	switch (kind) {
	case BAD_DOUBLE_FREE:
		p = msim_kmalloc(m, 32, "bad");
		msim_kfree(m, p);
		msim_kfree(m, p);
		break;
	case BAD_FOREIGN:
		msim_kfree(m, foreign + 32);
		break;
	case BAD_WRONG_CACHE:
		p = msim_kmalloc(m, 32, "bad");
		msim_kmem_cache_free(m, c, p);
		msim_kfree(m, p);
		break;
	case BAD_FREE_AFTER_RCU:
		p = msim_kmalloc(m, 32, "bad");
		msim_rcu_read_lock();
		msim_kfree_rcu(m, p);
		msim_kfree(m, p);
		msim_rcu_read_unlock();
		msim_rcu_barrier();
		break;
	}
}

/*
 * Misuse never corrupts the totals. Debug builds abort at the bad free (checked in
 * a child process); release builds report it and leave the pointer alone.
 */
static void bad_free_caught(void **state)
{
	for (int kind = BAD_DOUBLE_FREE; kind <= BAD_FREE_AFTER_RCU; kind++) {
#ifndef NDEBUG
		pid_t pid = fork();
		int status;

		assert_true(pid >= 0);
		if (pid == 0) {
			int devnull = open("/dev/null", O_WRONLY);
			struct msim *m;

			dup2(devnull, 2);
			m = host(2, MSIM_DETERMINISTIC);
			do_bad(m, msim_kmem_cache_create(m, "c", 64), (enum bad_kind)kind);
			_exit(0); /* not caught */
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			fail_msg("bad free %d was not caught", kind);
#else
		struct msim *m = host(2, MSIM_DETERMINISTIC);
		struct msim_kmem_cache *c = msim_kmem_cache_create(m, "c", 64);
		struct msim_kmem_totals t;

		if (kind == BAD_DOUBLE_FREE) { /* the second free reads freed memory */
			msim_destroy(m);
			continue;
		}
		do_bad(m, c, (enum bad_kind)kind);
		msim_kmem_totals(m, &t);
		/* Each refused free left the totals alone; the valid frees emptied them. */
		assert_int_equal(t.kmalloc_bytes, 0);
		assert_int_equal(t.allocations, 0);
		msim_destroy(m);
#endif
	}
}

struct churn {
	struct msim *m;
	struct msim_kmem_cache *c;
	unsigned int keep;
};

#define CHURN_ROUNDS 20000

/* Allocate and free in a loop, leaving keep objects of each kind allocated. */
static void churn_task(void *arg)
{
	struct churn *ch = arg;
	void *kept[64];

	for (unsigned int i = 0; i < CHURN_ROUNDS; i++) {
		void *a = msim_kmem_cache_alloc(ch->m, ch->c, "churn");
		void *b = msim_kmalloc(ch->m, 200, "churn_kmalloc");

		if (i < ch->keep) {
			kept[i] = a;
			msim_kfree(ch->m, b);
			continue;
		}
		msim_kmem_cache_free(ch->m, ch->c, a);
		if (i % 2)
			msim_kfree(ch->m, b);
		else
			msim_kfree_rcu(ch->m, b);
	}
	for (unsigned int i = 0; i < ch->keep; i++)
		msim_kfree_rcu(ch->m, kept[i]);
}

/* Four CPUs allocate from one cache at once; afterwards the totals are exact. */
static void concurrent_alloc(void **state)
{
	struct msim *m = host(4, MSIM_CONCURRENT);
	struct msim_kmem_cache *c = msim_kmem_cache_create(m, "churn", 520);
	struct churn ch[4];
	struct msim_kmem_totals t;

	for (unsigned int cpu = 0; cpu < 4; cpu++) {
		ch[cpu] = (struct churn){ m, c, 10 + cpu };
		assert_non_null(msim_task_create(m, "churn", cpu, churn_task, &ch[cpu]));
	}
	assert_int_equal(msim_run(m), 0);
	msim_rcu_barrier();
	msim_kmem_totals(m, &t);
	assert_int_equal(t.allocations, 0);
	assert_int_equal(t.cache_bytes, 0);
	assert_int_equal(t.kmalloc_bytes, 0);
	assert_int_equal(t.rcu_pending_bytes, 0);
	assert_int_equal(msim_kmem_owner_bytes(m, "churn"), 0);
	msim_destroy(m);
}

static void process_rss(void **state)
{
	uint64_t rss = msim_kmem_process_rss();

	assert_true(rss > 100 * 1024);
	assert_true(rss < (64ULL << 30));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kmalloc_classes),
		cmocka_unit_test(shrinker_info_table),
		cmocka_unit_test(list_lru_memcg_classes),
		cmocka_unit_test(slub_orders),
		cmocka_unit_test(unit_cache_vs_kmalloc),
		cmocka_unit_test(radix_tree_node_cache),
		cmocka_unit_test(bulk_charge_matches_objects),
		cmocka_unit_test(bulk_charge_refused),
		cmocka_unit_test(owner_by_text),
		cmocka_unit_test(report_lists),
		cmocka_unit_test(next_host_starts_clear),
		cmocka_unit_test(kfree_rcu_pending),
		cmocka_unit_test(percpu_apart),
		cmocka_unit_test(bad_free_caught),
		cmocka_unit_test(concurrent_alloc),
		cmocka_unit_test(process_rss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
