/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * test_kmem_arena.c - the kernel-memory model's lazily committed backing store
 * (src/sim/kmem_arena.c, kmem_pool.c; docs/kmem.md section 2):
 *  - objects the model never writes cost the process no resident memory, even
 *    when they are read, and the charged bytes are the kernel's all the same;
 *  - a reused slot reads as zero (kzalloc), after kfree and after kfree_rcu;
 *  - the arena and the heap charge the same bytes for the same allocations;
 *  - bad frees of arena objects are caught (interior pointer, double free,
 *    another host's object) and leave the totals alone;
 *  - threads allocating and freeing (kfree_rcu through liburcu) leave exact totals;
 *  - per-CPU memory: every CPU's copy distinct and zeroed, zeroed again when a
 *    block is reused, and 1024 CPUs' copies cost nothing until written;
 *  - a reused per-CPU block larger than the clearing's check reads (4 KiB) and on
 *    more CPUs than it clears outright: a byte left anywhere is cleared, whether
 *    the block was freed in the host or the area comes from a host before.
 * Every test asks for the arena with MSIM_KMEM_BACKING=arena (sanitizer builds
 * default to the heap), and skips when the system gave no address space.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/kmem.h>
#include <memcgsim/percpu.h>

static struct msim *host_on(const char *backing, unsigned int cpus, enum msim_run_mode mode)
{
	struct msim_config cfg;
	struct msim *m = NULL;
	char err[256];

	assert_int_equal(setenv("MSIM_KMEM_BACKING", backing, 1), 0);
	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.mode = mode;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	unsetenv("MSIM_KMEM_BACKING");
	return m;
}

/* A deterministic arena host, or NULL after skip() when there is no arena. */
static struct msim *arena_host(void)
{
	struct msim *m = host_on("arena", 4, MSIM_DETERMINISTIC);

	if (!msim_kmem_lazy_backing(m)) {
		msim_destroy(m);
		skip();
	}
	return m;
}

#define UNITS 200000
#define UNIT_BYTES 520

/*
 * 200000 zeroed 520-byte objects are 104 MB of kernel memory (16384 / 31 bytes
 * each from their cache on 4 CPUs); reading the last word of each, as a walk
 * reads a unit's bitmap, must leave the process's resident set about where it
 * was: the pages read are the zero page.
 */
static void unwritten_costs_nothing(void **state)
{
	struct msim *m = arena_host();
	struct msim_kmem_cache *c = msim_kmem_cache_create(m, "unit", UNIT_BYTES);
	void **v = calloc(UNITS, sizeof(*v));
	struct msim_kmem_totals t;
	unsigned long sum = 0;
	uint64_t rss0;

	assert_non_null(v);
	rss0 = msim_kmem_process_rss();
	for (unsigned int i = 0; i < UNITS; i++)
		assert_non_null(v[i] = msim_kmem_cache_alloc(m, c, "unit"));
	for (unsigned int i = 0; i < UNITS; i++)
		sum += ((const unsigned long *)v[i])[UNIT_BYTES / 8 - 1];
	assert_int_equal(sum, 0);
	msim_kmem_totals(m, &t);
	/* 200000 / 31 per order-2 slab, rounded up: 6452 slabs of 16 KiB */
	assert_int_equal(t.cache_bytes, 6452ULL * 16384);
#if !defined(MSIM_ASAN) && !defined(MSIM_TSAN)
	/* (a sanitizer's shadow of the memory read is resident: not checked there) */
	assert_true(msim_kmem_process_rss() < rss0 + (16ULL << 20));
#else
	(void)rss0;
#endif
	for (unsigned int i = 0; i < UNITS; i++)
		msim_kmem_cache_free(m, c, v[i]);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.cache_bytes, 0);
	assert_int_equal(t.allocations, 0);
	free(v);
	msim_destroy(m);
}

static void fill_and_free(struct msim *m, void **v, unsigned int n, size_t size, bool rcu)
{
	for (unsigned int i = 0; i < n; i++) {
		assert_non_null(v[i] = msim_kmalloc(m, size, "reuse"));
		memset(v[i], 0xa5, size);
	}
	for (unsigned int i = 0; i < n; i++) {
		if (rcu)
			msim_kfree_rcu(m, v[i]);
		else
			msim_kfree(m, v[i]);
	}
	msim_rcu_barrier();
}

static void all_zero(void *const *v, unsigned int n, size_t size)
{
	for (unsigned int i = 0; i < n; i++)
		for (size_t b = 0; b < size; b++)
			assert_int_equal(((const unsigned char *)v[i])[b], 0);
}

/* Objects written and freed, then allocated again in the same slots: all zero. */
static void reuse_reads_zero(void **state)
{
	struct msim *m = arena_host();
	enum { N = 4096 };
	void **v = calloc(N, sizeof(*v));
	void **w = calloc(N, sizeof(*w));
	struct msim_kmem_totals t;

	assert_non_null(v);
	assert_non_null(w);
	for (int rcu = 0; rcu <= 1; rcu++) {
		fill_and_free(m, v, N, 200, rcu);
		for (unsigned int i = 0; i < N; i++)
			assert_non_null(w[i] = msim_kmalloc(m, 200, "reuse"));
		all_zero(w, N, 200);
		for (unsigned int i = 0; i < N; i++)
			msim_kfree(m, w[i]);
	}
	msim_kmem_totals(m, &t);
	assert_int_equal(t.kmalloc_bytes, 0);
	assert_int_equal(t.allocations, 0);
	free(v);
	free(w);
	msim_destroy(m);
}

/*
 * A charge-only cache's objects take their slot as it is (kmem.h): a host that
 * gets a chunk another host wrote sees the old bytes there, and leaves the
 * chunk's dirty mark, so the next host's ordinary objects in it are zero again.
 */
static void charge_only_keeps_dirty_mark(void **state)
{
	static const char owner[] = "charge-only-reuse";
	enum { N = 64, SIZE = 256 };
	void *v[N];

	(void)state;
	for (int round = 0; round < 3; round++) {
		struct msim *m = arena_host();
		bool charge_only = round == 1;
		struct msim_kmem_cache *c = msim_kmem_cache_create_flags(
			m, "reuse", SIZE, charge_only ? MSIM_SLAB_CHARGE_ONLY : 0);
		bool old_bytes = false;

		for (unsigned int i = 0; i < N; i++)
			assert_non_null(v[i] = msim_kmem_cache_alloc(m, c, owner));
		if (charge_only) {
			for (unsigned int i = 0; i < N; i++)
				old_bytes |= ((const unsigned char *)v[i])[0] == 0xa5;
			assert_true(old_bytes);   /* the chunk of round 0, not cleared */
		} else {
			all_zero(v, N, SIZE);
			for (unsigned int i = 0; i < N; i++)
				memset(v[i], 0xa5, SIZE);
		}
		for (unsigned int i = 0; i < N; i++)
			msim_kmem_cache_free(m, c, v[i]);
		msim_kmem_cache_destroy(m, c);
		msim_destroy(m);
	}
}

/* One pass of kmalloc sizes, cache objects and frees; the totals after each step. */
static void sequence(struct msim *m, struct msim_kmem_totals out[3])
{
	struct msim_kmem_cache *c = msim_kmem_cache_create_flags(m, "seq", 584,
								 MSIM_SLAB_FREEPTR_OUTSIDE);
	void *k[64], *o[100];

	for (unsigned int i = 0; i < 64; i++)
		k[i] = msim_kmalloc(m, (size_t)i * 150, i % 2 ? "seq_a" : "seq_b");
	for (unsigned int i = 0; i < 100; i++)
		o[i] = msim_kmem_cache_alloc(m, c, "seq_c");
	msim_kmem_totals(m, &out[0]);
	for (unsigned int i = 0; i < 64; i += 2)
		msim_kfree_rcu(m, k[i]);
	for (unsigned int i = 0; i < 100; i += 3)
		msim_kmem_cache_free(m, c, o[i]);
	msim_kmem_totals(m, &out[1]);
	msim_rcu_barrier();
	msim_kmem_totals(m, &out[2]);
	for (unsigned int i = 1; i < 64; i += 2)
		msim_kfree(m, k[i]);
	for (unsigned int i = 0; i < 100; i++)
		if (i % 3)
			msim_kmem_cache_free(m, c, o[i]);
}

/* The same allocations charge the same bytes from the heap and from the arena. */
static void backings_agree(void **state)
{
	struct msim *heap = host_on("heap", 4, MSIM_DETERMINISTIC);
	struct msim *arena = arena_host();
	struct msim_kmem_totals th[3], ta[3];

	assert_false(msim_kmem_lazy_backing(heap));
	sequence(heap, th);
	sequence(arena, ta);
	assert_memory_equal(th, ta, sizeof(th));
	assert_true(th[0].kmalloc_bytes > 0 && th[1].rcu_pending_bytes > 0);
	assert_int_equal(msim_kmem_owner_bytes(heap, "seq_a"), msim_kmem_owner_bytes(arena, "seq_a"));
	msim_destroy(heap);
	msim_destroy(arena);
}

enum bad { BAD_INTERIOR, BAD_DOUBLE, BAD_OTHER_HOST, BAD_AFTER_RCU, NBAD };

static void do_bad(struct msim *m, enum bad kind)
{
	char *p = msim_kmalloc(m, 64, "bad");
	struct msim *other;

	switch (kind) {
	case BAD_INTERIOR:
		msim_kfree(m, p + 16);
		msim_kfree(m, p);
		break;
	case BAD_DOUBLE:
		msim_kfree(m, p);
		msim_kfree(m, p);
		break;
	case BAD_OTHER_HOST:
		other = host_on("arena", 2, MSIM_DETERMINISTIC);
		msim_kfree(other, p);
		msim_destroy(other);
		msim_kfree(m, p);
		break;
	default:
		msim_kfree_rcu(m, p);
		msim_kfree(m, p);
		msim_rcu_barrier();
		break;
	}
}

/*
 * Each bad free is caught: debug builds abort (in a child process here), release
 * builds report it, change nothing, and the valid free that follows empties the
 * totals. In the arena even a double free is safe to try: the slot's bit says so.
 */
static void bad_frees_caught(void **state)
{
	for (int kind = 0; kind < NBAD; kind++) {
		struct msim *m = arena_host();
		struct msim_kmem_totals t;
#ifndef NDEBUG
		pid_t pid = fork();
		int status;

		assert_true(pid >= 0);
		if (pid == 0) {
			dup2(open("/dev/null", O_WRONLY), 2);
			do_bad(m, (enum bad)kind);
			_exit(0); /* not caught */
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			fail_msg("bad free %d was not caught", kind);
		(void)t;
#else
		do_bad(m, (enum bad)kind);
		msim_kmem_totals(m, &t);
		assert_int_equal(t.kmalloc_bytes, 0);
		assert_int_equal(t.allocations, 0);
#endif
		msim_destroy(m);
	}
}

#define CHURN 20000

struct churn {
	struct msim *m;
	unsigned int seed;
	unsigned int failed;   /* checked on the main thread: cmocka is not thread-safe */
};

/*
 * Allocate (zeroed: first and last byte checked), write, free: half with
 * kfree_rcu (freed later on liburcu's thread).
 */
static void churn_task(void *arg)
{
	struct churn *ch = arg;

	for (unsigned int i = 0; i < CHURN; i++) {
		size_t size = 64 + (i * 37 + ch->seed) % 900;
		char *p = msim_kmalloc(ch->m, size, "churn");

		if (!p || p[0] || p[size - 1]) {
			ch->failed++;
			continue;
		}
		p[0] = p[size - 1] = 1;
		if ((i + ch->seed) % 2)
			msim_kfree_rcu(ch->m, p);
		else
			msim_kfree(ch->m, p);
	}
}

/* Four CPUs' threads share the host's pools; afterwards the totals are exact. */
static void concurrent_churn(void **state)
{
	struct msim *m = host_on("arena", 4, MSIM_CONCURRENT);
	struct churn ch[4];
	struct msim_kmem_totals t;

	if (!msim_kmem_lazy_backing(m)) {
		msim_destroy(m);
		skip();
	}
	for (unsigned int cpu = 0; cpu < 4; cpu++) {
		ch[cpu] = (struct churn){ m, cpu, 0 };
		assert_non_null(msim_task_create(m, "churn", cpu, churn_task, &ch[cpu]));
	}
	assert_int_equal(msim_run(m), 0);
	msim_rcu_barrier();
	for (unsigned int cpu = 0; cpu < 4; cpu++)
		assert_int_equal(ch[cpu].failed, 0);
	msim_kmem_totals(m, &t);
	assert_int_equal(t.allocations, 0);
	assert_int_equal(t.kmalloc_bytes, 0);
	assert_int_equal(t.rcu_pending_bytes, 0);
	msim_destroy(m);
}

/* Per-CPU blocks on 1024 CPUs: distinct copies, zeroed, cheap until written. */
static void percpu_copies(void **state)
{
	struct msim *m = host_on("arena", 1024, MSIM_DETERMINISTIC);
	enum { N = 256, SIZE = 200 };
	long *v[N];
	uint64_t rss0 = msim_kmem_process_rss();

	for (unsigned int i = 0; i < N; i++)
		assert_non_null(v[i] = msim_alloc_percpu(m, SIZE, "pcpu_test"));
	assert_int_equal(msim_kmem_owner_percpu_bytes(m, "pcpu_test"), (uint64_t)N * SIZE * 1024);
	/* 50 MiB charged; only the copies written below are resident */
	for (unsigned int cpu = 0; cpu < 1024; cpu += 64)
		for (unsigned int i = 0; i < N; i++) {
			long *p = msim_per_cpu_ptr(v[i], cpu);

			assert_int_equal(p[SIZE / sizeof(long) - 1], 0);
			p[0] = (long)(cpu * N + i);
		}
#if !defined(MSIM_ASAN) && !defined(MSIM_TSAN)
	assert_true(msim_kmem_process_rss() < rss0 + (8ULL << 20));
#else
	(void)rss0;
#endif
	for (unsigned int cpu = 0; cpu < 1024; cpu += 64)
		for (unsigned int i = 0; i < N; i++)
			assert_int_equal(*(long *)msim_per_cpu_ptr(v[i], cpu), (long)(cpu * N + i));
	for (unsigned int i = 0; i < N; i++)
		msim_free_percpu(m, v[i]);
	assert_int_equal(msim_kmem_owner_percpu_bytes(m, "pcpu_test"), 0);
	/* the same blocks again: every copy written above reads zero */
	for (unsigned int i = 0; i < N; i++)
		assert_non_null(v[i] = msim_alloc_percpu(m, SIZE, "pcpu_test"));
	for (unsigned int cpu = 0; cpu < 1024; cpu += 64)
		for (unsigned int i = 0; i < N; i++)
			assert_int_equal(*(long *)msim_per_cpu_ptr(v[i], cpu), 0);
	for (unsigned int i = 0; i < N; i++)
		msim_free_percpu(m, v[i]);
	msim_destroy(m);
}

enum { PCPU_CPUS = 96, PCPU_SIZE = 9000 };

/* One nonzero byte in every CPU's copy, each at its own place (past 4 KiB too). */
static void pcpu_scribble(unsigned char *base)
{
	for (unsigned int cpu = 0; cpu < PCPU_CPUS; cpu++) {
		unsigned char *p = msim_per_cpu_ptr(base, cpu);

		p[cpu == PCPU_CPUS - 1 ? PCPU_SIZE - 1 : (cpu * 4099u) % PCPU_SIZE] = 0xa5;
	}
}

/* Bytes of base's copies that are not zero. */
static unsigned long pcpu_nonzero(const unsigned char *base)
{
	unsigned long n = 0;

	for (unsigned int cpu = 0; cpu < PCPU_CPUS; cpu++) {
		const unsigned char *p = msim_per_cpu_ptr(base, cpu);

		for (unsigned int i = 0; i < PCPU_SIZE; i++)
			n += p[i] != 0;
	}
	return n;
}

/*
 * 96 copies of 9000 bytes (about 860 KiB, above what block_clear clears outright):
 * each copy is checked for old bytes before it is cleared. One byte left in any
 * copy, at any offset, must be gone when the block comes back: freed and taken
 * again in one host, and taken by the next host from the area the first one kept.
 */
static void percpu_reuse_clears_every_byte(void **state)
{
	struct msim *m = host_on("arena", PCPU_CPUS, MSIM_DETERMINISTIC);
	unsigned char *v = msim_alloc_percpu(m, PCPU_SIZE, "pcpu_test"), *first = v;

	assert_non_null(v);
	assert_int_equal(pcpu_nonzero(v), 0);
	pcpu_scribble(v);
	assert_int_equal(pcpu_nonzero(v), PCPU_CPUS);
	msim_free_percpu(m, v);
	assert_non_null(v = msim_alloc_percpu(m, PCPU_SIZE, "pcpu_test"));
	assert_int_equal(pcpu_nonzero(v), 0);
	pcpu_scribble(v);
	msim_destroy(m);

	m = host_on("arena", PCPU_CPUS, MSIM_DETERMINISTIC);
	assert_non_null(v = msim_alloc_percpu(m, PCPU_SIZE, "pcpu_test"));
	assert_ptr_equal(v, first); /* the kept area, its first block: the old bytes' memory */
	assert_int_equal(pcpu_nonzero(v), 0);
	msim_free_percpu(m, v);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unwritten_costs_nothing),
		cmocka_unit_test(reuse_reads_zero),
		cmocka_unit_test(charge_only_keeps_dirty_mark),
		cmocka_unit_test(backings_agree),
		cmocka_unit_test(bad_frees_caught),
		cmocka_unit_test(concurrent_churn),
		cmocka_unit_test(percpu_copies),
		cmocka_unit_test(percpu_reuse_clears_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
