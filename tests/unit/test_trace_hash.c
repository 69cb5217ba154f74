/* SPDX-License-Identifier: MIT */
/*
 * test_trace_hash: the trace hash's fold of a point name (src/sim/trace_hash.c,
 * a multiply, an add and a table per name) gives what the FNV-1a byte loop
 * gives, for every low byte of the running hash, names of 0 to 300 bytes, many
 * names at once (the cache grows), the same name met again, and on a second
 * thread (the same cache, filled further); and a whole step's fold (a pick value,
 * then the name) what the pick's mix followed by the byte loop gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace_hash.h"

#define NAMES 1500

static char names[NAMES][301];

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void make_names(void)
{
	uint64_t x = 88172645463325252ULL;

	for (unsigned int i = 0; i < NAMES; i++) {
		unsigned int len = i < 301 ? i : (unsigned int)(next(&x) % 40);

		for (unsigned int k = 0; k < len; k++)
			names[i][k] = (char)(1 + next(&x) % 255); /* any non-zero byte */
		names[i][len] = '\0';
	}
}

/* Every name against the byte loop, from hashes of every low byte and random high bits. */
static void check_all(uint64_t seed)
{
	uint64_t x = seed;

	for (unsigned int round = 0; round < 3; round++)
		for (unsigned int i = 0; i < NAMES; i++)
			for (unsigned int b = 0; b < 256; b += round ? 37 : 1) {
				uint64_t h = (next(&x) & ~255ULL) | b;

				assert_true(msim__fnv_point(h, names[i]) ==
					    msim__fnv_bytes(h, names[i]));
			}
}

/* A fold kept beside its name (as a task's point table keeps it) gives the same. */
static void kept_fold_equals_byte_loop(void **st)
{
	uint64_t x = 99;

	(void)st;
	make_names();
	for (unsigned int i = 0; i < NAMES; i += 7) {
		const struct msim__name_fold *f = msim__fnv_fold_of(names[i]);

		assert_true((f == NULL) == (names[i][0] == '\0'));
		for (unsigned int k = 0; k < 300; k++) {
			uint64_t h = next(&x);

			assert_true(msim__fnv_fold(h, f, names[i]) == msim__fnv_bytes(h, names[i]));
		}
	}
}

static void fold_equals_byte_loop(void **st)
{
	(void)st;
	make_names();
	check_all(0x1234567);
	assert_true(msim__fnv_point(42, NULL) == 42);
	assert_true(msim__fnv_point(42, "") == 42);
	/* a name known from the byte loop: FNV-1a of "a" from the offset basis */
	assert_true(msim__fnv_point(0xcbf29ce484222325ULL, "a") == 0xaf63dc4c8601ec8cULL);
}

/*
 * A whole step's fold (a pick value c below 256, then the name) gives what the
 * scheduler's two-part mix gives: (h ^ c) * P, then the name's bytes; from every
 * low byte, for every pick value, and none for a pick value of 256 or more.
 */
static void step_fold_equals_byte_loop(void **st)
{
	uint64_t x = 5;

	(void)st;
	make_names();
	for (unsigned int i = 1; i < NAMES; i += 97) {
		const struct msim__name_fold *f = msim__fnv_fold_of(names[i]);

		if (!names[i][0]) {
			assert_null(msim__fnv_step_of(f, 1)); /* no fold, no step fold */
			continue;
		}
		for (uint64_t c = 0; c < 256; c += i % 5 + 1) {
			const struct msim__step_fold *sf = msim__fnv_step_of(f, c);

			assert_non_null(sf);
			assert_ptr_equal(msim__fnv_step_of(f, c), sf); /* made once */
			for (unsigned int b = 0; b < 256; b++) {
				uint64_t h = (next(&x) & ~255ULL) | b;

				assert_true(msim__fnv_step(h, sf) ==
					    msim__fnv_bytes((h ^ c) * MSIM__FNV_PRIME, names[i]));
			}
		}
		assert_null(msim__fnv_step_of(f, 256));
	}
	assert_null(msim__fnv_step_of(NULL, 3));
}

static void *other_thread(void *arg)
{
	(void)arg;
	check_all(0x7654321);
	return NULL;
}

static void a_second_thread_agrees(void **st)
{
	pthread_t th;

	(void)st;
	make_names();
	assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fold_equals_byte_loop),
		cmocka_unit_test(kept_fold_equals_byte_loop),
		cmocka_unit_test(step_fold_equals_byte_loop),
		cmocka_unit_test(a_second_thread_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
