/* SPDX-License-Identifier: MIT */
/*
 * test_dpor_index.c - DPOR's step index (src/sim/explore_dpor_index.c) against
 * the walk it replaces.
 *
 * Race detection used to walk back from each step over every earlier one and
 * join the vector clock of each step not yet known to happen before it that is
 * of its thread or dependent with it. The index must hand that walk a superset
 * of the steps it joins, latest first, each once. Here random runs (threads on
 * shared CPUs, an engine thread outside the same-CPU rule, overlapping accesses
 * of every width, wide ranges, "anything" steps) check it step by step against
 * the full walk.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim/explore_dpor_index.h"

#define THREADS 6
#define ENGINE (THREADS - 1)   /* no CPU: the same-CPU rule leaves it out */
#define MAX_STEPS 400

struct run {
	struct msim__step_access acc[MAX_STEPS];
	struct msim__dpor_index_step step[MAX_STEPS];
	uint32_t lidx[MAX_STEPS];
	uint32_t vc[MAX_STEPS][THREADS];
	unsigned int n;
};

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* An arena of 96 bytes so that accesses overlap often; wide ranges cover it. */
static void random_access(uint64_t *rng, struct msim__step_access *acc)
{
	static const uint32_t lens[] = { 1, 2, 4, 8, 8, 8, 12, 16, 24, 600 };
	static const int kinds[] = { MSIM_ACCESS_LOAD, MSIM_ACCESS_STORE, MSIM_ACCESS_RMW };
	unsigned int n = 1 + rng_next(rng) % 3;

	memset(acc, 0, sizeof(*acc));
	if (rng_next(rng) % 40 == 0) {
		acc->any = true;
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		uint32_t len = lens[rng_next(rng) % (sizeof(lens) / sizeof(lens[0]))];
		uintptr_t addr = 0x10000 + (len == 600 ? 0 : rng_next(rng) % 96);

		acc->a[acc->n++] = (struct msim__access){
			.addr = addr, .len = len, .kind = (uint8_t)kinds[rng_next(rng) % 3] };
	}
}

static void random_run(uint64_t seed, struct run *r)
{
	uint64_t rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	uint32_t count[THREADS] = { 0 };

	r->n = 50 + rng_next(&rng) % (MAX_STEPS - 50);
	for (unsigned int k = 0; k < r->n; k++) {
		unsigned int t = rng_next(&rng) % THREADS;

		random_access(&rng, &r->acc[k]);
		r->step[k] = (struct msim__dpor_index_step){
			.tid = t, .cpu = t == ENGINE ? 1000 : t % 3, .cpu_rule = t != ENGINE,
			.acc = &r->acc[k] };
		r->lidx[k] = count[t]++;
	}
}

static bool dependent(const struct run *r, unsigned int i, unsigned int j)
{
	const struct msim__dpor_index_step *a = &r->step[i], *b = &r->step[j];

	if (a->cpu_rule && b->cpu_rule && a->cpu == b->cpu)
		return true;
	return msim__access_conflict(a->acc, b->acc);
}

static bool hb(const uint32_t *vc, const struct run *r, unsigned int i)
{
	return vc[r->step[i].tid] > r->lidx[i];
}

static void join(uint32_t *dst, const uint32_t *src)
{
	for (unsigned int t = 0; t < THREADS; t++)
		if (src[t] > dst[t])
			dst[t] = src[t];
}

static bool in_candidates(const struct msim__dpor_index *x, uint64_t i)
{
	for (uint64_t c = 0; c < x->nr_cand; c++)
		if (x->cand[c] == i)
			return true;
	return false;
}

/* Step j: every step the full walk joins is a candidate; the candidates are
 * earlier steps, latest first, each once. Returns the steps joined. */
static unsigned int check_step(struct run *r, struct msim__dpor_index *x, unsigned int j)
{
	uint32_t *vj = r->vc[j];
	unsigned int joined = 0;

	msim__dpor_index_candidates(x, &r->step[j]);
	for (uint64_t c = 0; c < x->nr_cand; c++) {
		assert_true(x->cand[c] < j);
		if (c)
			assert_true(x->cand[c] < x->cand[c - 1]);
	}
	for (unsigned int i = j; i-- > 0;) {
		if (hb(vj, r, i))
			continue;
		if (r->step[i].tid == r->step[j].tid || dependent(r, i, j)) {
			if (!in_candidates(x, i))
				fail_msg("step %u: the walk joins step %u, not a candidate", j, i);
			join(vj, r->vc[i]);
			joined++;
		}
	}
	vj[r->step[j].tid] = r->lidx[j] + 1;
	msim__dpor_index_add(x, &r->step[j]);
	return joined;
}

static void index_covers_the_walk_on_random_runs(void **state)
{
	static struct run r;
	struct msim__dpor_index x = { 0 };
	uint64_t joined = 0, candidates = 0, walked = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		random_run(seed, &r);
		memset(r.vc, 0, sizeof(r.vc));
		msim__dpor_index_reset(&x);  /* reused across runs, as DPOR reuses it */
		for (unsigned int j = 0; j < r.n; j++) {
			joined += check_step(&r, &x, j);
			candidates += x.nr_cand;
			walked += j;
		}
	}
	/* the runs are not trivial: steps join others, and the index skips steps */
	assert_true(joined > 1000);
	assert_true(candidates < walked);
	msim__dpor_index_free(&x);
}

/* A store visits the loads since the word's last store and that store; a
 * load visits the last store only (loads do not conflict with loads). */
static void loads_since_the_last_store(void **state)
{
	static struct run r;
	struct msim__dpor_index x = { 0 };
	const int kind[] = { MSIM_ACCESS_STORE, MSIM_ACCESS_LOAD, MSIM_ACCESS_LOAD,
			     MSIM_ACCESS_LOAD, MSIM_ACCESS_STORE, MSIM_ACCESS_LOAD };

	(void)state;
	msim__dpor_index_reset(&x);
	r.n = 6;
	for (unsigned int k = 0; k < r.n; k++) { /* one step per thread, no CPU shared */
		memset(&r.acc[k], 0, sizeof(r.acc[k]));
		r.acc[k].a[0] = (struct msim__access){ .addr = 0x1000, .len = 8, .kind = (uint8_t)kind[k] };
		r.acc[k].n = 1;
		r.step[k] = (struct msim__dpor_index_step){ .tid = k, .cpu = 1000 + k, .acc = &r.acc[k] };
		r.lidx[k] = 0;
	}
	memset(r.vc, 0, sizeof(r.vc));
	for (unsigned int j = 0; j < 4; j++)
		check_step(&r, &x, j);
	/* the second store: the three loads and the first store, which the walk
	 * skips (it happens before the loads) */
	assert_int_equal(check_step(&r, &x, 4), 3);
	assert_int_equal(x.nr_cand, 4);
	assert_int_equal(x.cand[0], 3);
	assert_int_equal(x.cand[3], 0);
	/* the last load: the second store alone */
	assert_int_equal(check_step(&r, &x, 5), 1);
	assert_int_equal(x.nr_cand, 1);
	assert_int_equal(x.cand[0], 4);
	msim__dpor_index_free(&x);
}

/*
 * The address space's last granule ends at 2^64, which wraps to 0: a byte
 * store at its start must not pass for one covering a later load there, or
 * the store before it that the load does overlap goes unvisited.
 */
static void last_granule_of_the_address_space(void **state)
{
	static struct run r;
	struct msim__dpor_index x = { 0 };
	const struct msim__access a[] = {
		{ .addr = UINTPTR_MAX - 10, .len = 8, .kind = MSIM_ACCESS_STORE }, /* ..f5-..fc */
		{ .addr = UINTPTR_MAX - 7, .len = 1, .kind = MSIM_ACCESS_STORE },  /* ..f8 */
		{ .addr = UINTPTR_MAX - 3, .len = 3, .kind = MSIM_ACCESS_LOAD },   /* ..fc-..fe */
	};

	(void)state;
	msim__dpor_index_reset(&x);
	r.n = 3;
	for (unsigned int k = 0; k < r.n; k++) { /* one step per thread, no CPU shared */
		memset(&r.acc[k], 0, sizeof(r.acc[k]));
		r.acc[k].a[0] = a[k];
		r.acc[k].n = 1;
		r.step[k] = (struct msim__dpor_index_step){ .tid = k, .cpu = 1000 + k, .acc = &r.acc[k] };
		r.lidx[k] = 0;
	}
	memset(r.vc, 0, sizeof(r.vc));
	check_step(&r, &x, 0);
	check_step(&r, &x, 1);
	/* the load overlaps the first store only (check_step fails if it is no candidate) */
	assert_int_equal(check_step(&r, &x, 2), 1);
	msim__dpor_index_free(&x);
}

/*
 * The same against explore_dpor.c's own dependence: up to 22 of its 64 ids,
 * tasks and handlers sharing up to 4 CPUs, drain threads (ids under 63, a CPU
 * number of their own no task has) and the engine (63) outside the same-CPU
 * rule; up to 16 accesses a step, often in one granule with different kinds,
 * at unaligned addresses; wide ranges at different offsets; "anything" steps
 * that also list accesses.
 */
#define IDS 64
#define ENGINE_ID 63
#define MANY_STEPS 500

struct many_run {
	struct msim__step_access acc[MANY_STEPS];
	struct msim__dpor_index_step step[MANY_STEPS];
	uint32_t lidx[MANY_STEPS];
	uint32_t vc[MANY_STEPS][IDS];
	unsigned int n;
};

static void many_accesses(uint64_t *rng, struct msim__step_access *acc)
{
	static const uint32_t lens[] = { 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 24, 511, 513, 600 };
	unsigned int n = 1 + rng_next(rng) % (rng_next(rng) % 8 ? 4 : 16);

	memset(acc, 0, sizeof(*acc));
	acc->any = rng_next(rng) % 50 == 0;
	for (unsigned int i = 0; i < n; i++) {
		uint32_t len = lens[rng_next(rng) % (sizeof(lens) / sizeof(lens[0]))];
		uintptr_t addr = 0x10003 + rng_next(rng) % 200;

		if (acc->n && rng_next(rng) % 4 == 0) { /* next to the previous one */
			addr = acc->a[acc->n - 1].addr + rng_next(rng) % 8 - 4;
			len = 1 + rng_next(rng) % 8;
		}
		acc->a[acc->n++] = (struct msim__access){ .addr = addr, .len = len,
			.kind = (uint8_t)(1 + rng_next(rng) % 3) }; /* load, store, RMW */
	}
}

/* explore_dpor.c's dependent(): one thread, one CPU outside the engine, or a conflict */
static bool many_dependent(const struct many_run *r, unsigned int i, unsigned int j)
{
	const struct msim__dpor_index_step *a = &r->step[i], *b = &r->step[j];

	if (a->tid == b->tid)
		return true;
	if (a->tid != ENGINE_ID && b->tid != ENGINE_ID && a->cpu == b->cpu)
		return true;
	return msim__access_conflict(a->acc, b->acc);
}

static void many_run_make(uint64_t seed, struct many_run *r)
{
	uint64_t rng = seed * 0x9e3779b97f4a7c15ULL + 7;
	uint32_t count[IDS] = { 0 };
	unsigned int nr_threads = 2 + rng_next(&rng) % 20, nr_cpus = 1 + rng_next(&rng) % 4;
	unsigned int tid[22], cpu[22];

	for (unsigned int k = 0; k < nr_threads; k++) {
		unsigned int kind = rng_next(&rng) % 10;

		tid[k] = kind == 0 ? ENGINE_ID : kind <= 2 ? 62 - rng_next(&rng) % 6
							   : rng_next(&rng) % 40;
		cpu[k] = kind <= 2 ? UINT32_MAX - tid[k] : rng_next(&rng) % nr_cpus;
	}
	r->n = 20 + rng_next(&rng) % (MANY_STEPS - 20);
	for (unsigned int j = 0; j < r->n; j++) {
		unsigned int k = rng_next(&rng) % nr_threads;

		many_accesses(&rng, &r->acc[j]);
		r->step[j] = (struct msim__dpor_index_step){
			.tid = tid[k], .cpu = cpu[k], .acc = &r->acc[j],
			.cpu_rule = tid[k] != ENGINE_ID && cpu[k] < 1024 };
		r->lidx[j] = count[tid[k]]++;
	}
}

static void many_check_step(struct many_run *r, struct msim__dpor_index *x, unsigned int j)
{
	uint32_t *vj = r->vc[j];

	msim__dpor_index_candidates(x, &r->step[j]);
	for (unsigned int i = j; i-- > 0;) {
		bool in = false;

		if (vj[r->step[i].tid] > r->lidx[i] || !many_dependent(r, i, j))
			continue;
		for (uint64_t c = 0; c < x->nr_cand && !in; c++)
			in = x->cand[c] == i;
		if (!in)
			fail_msg("step %u: the walk joins step %u, not a candidate", j, i);
		for (unsigned int t = 0; t < IDS; t++)
			if (r->vc[i][t] > vj[t])
				vj[t] = r->vc[i][t];
	}
	vj[r->step[j].tid] = r->lidx[j] + 1;
	msim__dpor_index_add(x, &r->step[j]);
}

static void index_covers_the_walk_with_engine_drains_and_handlers(void **state)
{
	static struct many_run r;
	struct msim__dpor_index x = { 0 };

	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		many_run_make(seed, &r);
		memset(r.vc, 0, sizeof(r.vc));
		msim__dpor_index_reset(&x);
		for (unsigned int j = 0; j < r.n; j++)
			many_check_step(&r, &x, j);
	}
	msim__dpor_index_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(index_covers_the_walk_on_random_runs),
		cmocka_unit_test(loads_since_the_last_store),
		cmocka_unit_test(last_granule_of_the_address_space),
		cmocka_unit_test(index_covers_the_walk_with_engine_drains_and_handlers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
