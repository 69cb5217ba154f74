/* SPDX-License-Identifier: MIT */
/*
 * test_explore_share.c - explore's cases shared between processes (bench
 * explore --share, --merge; bench/bench_explore_share.c): two processes that
 * share a counter file run every case of two races once between them, and
 * their JSON merges into what one process finds (the same cases in the same
 * order, every cell's counts equal); --verdicts-only skips random and PCT and
 * leaves the rest as they were; a case missing from the parts or in two of
 * them is refused. Counts only, never a time.
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
#include <sys/wait.h>
#include <unistd.h>

#include "bench_explore.h"

static const char *const races[] = { "rstat-stale-parent", "shrinker-bit-recount" };

/* Every side of the races, in one process (race NULL: one at a time, appended). */
static void run_whole(struct bench_ex_result *all, bool verdicts_only)
{
	struct bench_ex_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	memset(all, 0, sizeof(*all));
	for (unsigned int i = 0; i < 2; i++) {
		struct bench_ex_config c = { .race = races[i], .seed = 1,
					    .verdicts_only = verdicts_only };

		assert_int_equal(bench_ex_run(&c, r), 0);
		for (unsigned int k = 0; k < r->ncases; k++)
			all->cases[all->ncases++] = r->cases[k];
	}
	free(r);
}

/* One race's sides by two processes sharing dir/NAME.cases; their JSON merged into out. */
static void run_shared(const char *dir, const char *race, bool verdicts_only,
		       struct bench_ex_result *out)
{
	char share[512], part[2][512];
	const char *p[2] = { part[0], part[1] };
	char err[512] = "";
	pid_t pid[2];

	snprintf(share, sizeof(share), "%s/%s.cases", dir, race);
	for (int k = 0; k < 2; k++) {
		snprintf(part[k], sizeof(part[k]), "%s/%s.part%d.json", dir, race, k);
		pid[k] = fork();
		assert_true(pid[k] >= 0);
		if (!pid[k]) {
			struct bench_ex_config c = { .race = race, .seed = 1, .share = share,
						    .verdicts_only = verdicts_only };
			struct bench_ex_result *r = calloc(1, sizeof(*r));
			FILE *f = fopen(part[k], "w");

			if (!r || !f || bench_ex_run(&c, r))
				_exit(1);
			bench_ex_print_json(f, r);
			_exit(fclose(f) ? 1 : 0);
		}
	}
	for (int k = 0; k < 2; k++) {
		int st;

		assert_int_equal(waitpid(pid[k], &st, 0), pid[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* the parts twice: every case twice, refused */
	const char *twice[4] = { part[0], part[1], part[0], part[1] };

	assert_int_equal(bench_ex_merge(twice, 4, out, err, sizeof(err)), -EINVAL);
	assert_int_equal(bench_ex_merge(p, 2, out, err, sizeof(err)), 0);
	for (int k = 0; k < 2; k++)
		unlink(part[k]);
	unlink(share);
}

static void cells_equal(const struct bench_ex_cell *a, const struct bench_ex_cell *b)
{
	assert_int_equal(a->runs, b->runs);
	assert_int_equal(a->pruned, b->pruned);
	assert_int_equal(a->found, b->found);
	assert_int_equal(a->exhausted, b->exhausted);
	assert_int_equal(a->refused, b->refused);
	assert_int_equal(a->skipped, b->skipped);
}

static void shared_equals_whole(bool verdicts_only)
{
	struct bench_ex_result *whole = calloc(1, sizeof(*whole)), *m = calloc(1, sizeof(*m));
	char dir[] = "/tmp/msim-explore-share-XXXXXX";
	unsigned int n = 0;

	assert_non_null(whole);
	assert_non_null(m);
	assert_non_null(mkdtemp(dir));
	run_whole(whole, verdicts_only);
	for (unsigned int i = 0; i < 2; i++) {
		run_shared(dir, races[i], verdicts_only, m);
		for (unsigned int k = 0; k < m->ncases; k++, n++) {
			const struct bench_ex_case *a = &whole->cases[n], *b = &m->cases[k];

			assert_string_equal(a->race, b->race);
			assert_string_equal(a->side, b->side);
			assert_int_equal(b->index, k);
			for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++)
				cells_equal(&a->c[s], &b->c[s]);
			assert_int_equal(a->dfs_checked, b->dfs_checked);
			assert_int_equal(a->c[0].skipped, verdicts_only);
			assert_int_equal(a->c[1].skipped, verdicts_only);
			assert_false(a->c[2].skipped);
		}
	}
	assert_int_equal(n, whole->ncases);
	assert_true(n >= 4);
	rmdir(dir);
	free(whole);
	free(m);
}

static void all_strategies(void **st)
{
	(void)st;
	shared_equals_whole(false);
}

static void verdicts_only(void **st)
{
	(void)st;
	shared_equals_whole(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_strategies),
		cmocka_unit_test(verdicts_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
