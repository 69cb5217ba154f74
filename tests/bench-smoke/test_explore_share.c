/* SPDX-License-Identifier: MIT */
/*
 * test_explore_share.c - explore's cases shared between processes (bench
 * explore --share, --merge; bench/bench_explore_share.c): two processes that
 * share a counter file run every case of two races once between them, and
 * their JSON merges into what one process finds (the same cases in the same
 * order, every cell's counts equal); --verdicts-only skips random and PCT and
 * leaves the rest as they were; a case missing from the parts or in two of
 * them is refused; a fixed side split into a DPOR and a DFS piece (and DFS
 * cells deferred to the merge) merges into the same counts, the deferred cells
 * taken from the merge's source when it has them; a DFS piece answers the DFS
 * check only within its budget. Counts only, never a time.
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

/* rstat-thp-trace's bpf-forced-small: DPOR 292 (stated), DFS again with 584. */
#define SPLIT_RACE "rstat-thp-trace"
#define SPLIT_SIDE "bpf-forced-small"

/* Two processes sharing one side, split over 100 stated schedules, DFS cells deferred. */
static void run_split(const char *dir, char part[2][512])
{
	char share[512];
	pid_t pid[2];

	snprintf(share, sizeof(share), "%s/split.cases", dir);
	for (int k = 0; k < 2; k++) {
		snprintf(part[k], 512, "%s/split.part%d.json", dir, k);
		pid[k] = fork();
		assert_true(pid[k] >= 0);
		if (!pid[k]) {
			struct bench_ex_config c = { .race = SPLIT_RACE, .side = SPLIT_SIDE,
						    .seed = 1, .share = share, .split_over = 100,
						    .defer_dfs = true, .verdicts_only = true };
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
	unlink(share);
}

/* Whether file path holds needle. */
static bool file_has(const char *path, const char *needle)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

/* A source that has every DFS cell, planted: the merge must take it as it is. */
static int planted_source(void *arg, const char *race, const char *side, bool bug,
			  struct bench_ex_cell *out)
{
	(void)race;
	(void)side;
	(void)bug;
	*out = *(const struct bench_ex_cell *)arg;
	return 0;
}

static int empty_source(void *arg, const char *race, const char *side, bool bug,
			struct bench_ex_cell *out)
{
	(void)arg, (void)race, (void)side, (void)bug, (void)out;
	return -ENOENT;
}

static void split_equals_whole(void **st)
{
	struct bench_ex_result *whole = calloc(1, sizeof(*whole)), *m = calloc(1, sizeof(*m));
	struct bench_ex_config c = { .race = SPLIT_RACE, .side = SPLIT_SIDE, .seed = 1,
				     .verdicts_only = true };
	struct bench_ex_cell planted = { .runs = 12345, .exhausted = true };
	const struct bench_ex_dfs_source none = { empty_source, NULL },
					 given = { planted_source, &planted };
	char dir[] = "/tmp/msim-explore-split-XXXXXX", part[2][512], err[512] = "";
	const char *p[2] = { part[0], part[1] };

	(void)st;
	assert_non_null(whole);
	assert_non_null(m);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bench_ex_run(&c, whole), 0);
	assert_int_equal(whole->ncases, 1);
	assert_true(whole->cases[0].dfs_checked);   /* the check the DFS piece answers */
	run_split(dir, part);
	/* one part ran the DPOR piece, the other the DFS piece; both deferred DFS */
	assert_true(file_has(part[0], "\"piece\":\"dfs\"") !=
		    file_has(part[1], "\"piece\":\"dfs\""));
	assert_true(file_has(part[0], "\"deferred\":true") ||
		    file_has(part[1], "\"deferred\":true"));
	for (int src = 0; src < 2; src++) {   /* no source, a source without the cell */
		assert_int_equal(bench_ex_merge_from(p, 2, src ? &none : NULL, m, err,
						     sizeof(err)), 0);
		assert_int_equal(m->ncases, 1);
		for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++)
			cells_equal(&whole->cases[0].c[s], &m->cases[0].c[s]);
		assert_true(m->cases[0].dfs_checked);
		cells_equal(&whole->cases[0].dfs_check, &m->cases[0].dfs_check);
		assert_int_equal(m->cases[0].piece, BENCH_EX_WHOLE);
	}
	/* a source that has the cell: taken as it is; exhausted, so no check */
	assert_int_equal(bench_ex_merge_from(p, 2, &given, m, err, sizeof(err)), 0);
	assert_int_equal(m->cases[0].c[2].runs, 12345);
	assert_false(m->cases[0].c[2].deferred);
	assert_false(m->cases[0].dfs_checked);
	/* a DFS piece alone is half a case */
	assert_int_equal(bench_ex_merge(file_has(part[0], "\"piece\":\"dfs\"") ? p : p + 1, 1,
					m, err, sizeof(err)), -EINVAL);
	for (int k = 0; k < 2; k++)
		unlink(part[k]);
	rmdir(dir);
	free(whole);
	free(m);
}

/* DFS's first n schedules from a longer DFS: exact within its budget, refused past it. */
static void dfs_prefix_within_budget(void **st)
{
	struct bench_ex_long_dfs l = { .budget = 584, .runs = 584, .first_violation = -1 };
	struct bench_ex_cell x;
	struct bench_ex_case k = { .race = SPLIT_RACE, .side = SPLIT_SIDE };
	struct bench_ex_case piece = { .race = SPLIT_RACE, .side = SPLIT_SIDE };
	char err[256];

	(void)st;
	assert_int_equal(bench_ex_dfs_prefix(&l, 584, &x), 0);
	assert_int_equal(x.runs, 584);
	assert_false(x.exhausted);
	assert_int_equal(bench_ex_dfs_prefix(&l, 400, &x), 0);
	assert_int_equal(x.runs, 400);
	assert_int_equal(bench_ex_dfs_prefix(&l, 585, &x), -ERANGE);   /* past its budget */
	l = (struct bench_ex_long_dfs){ .budget = 584, .runs = 500, .exhausted = true,
					.first_violation = 450 };
	assert_int_equal(bench_ex_dfs_prefix(&l, 10000, &x), 0);   /* exhausted: any n */
	assert_int_equal(x.runs, 500);
	assert_true(x.exhausted);
	assert_true(x.found);
	assert_int_equal(bench_ex_dfs_prefix(&l, 500, &x), 0);
	assert_true(x.exhausted);
	assert_int_equal(bench_ex_dfs_prefix(&l, 499, &x), 0);   /* one short of the end */
	assert_int_equal(x.runs, 499);
	assert_false(x.exhausted);
	assert_int_equal(bench_ex_dfs_prefix(&l, 450, &x), 0);   /* the violation is run 450 */
	assert_false(x.found);
	/* the join: DPOR exhausted in 300, DFS stopped at its budget of 300 */
	k.c[2] = (struct bench_ex_cell){ .runs = 300 };
	k.c[3] = (struct bench_ex_cell){ .runs = 300, .exhausted = true };
	piece.long_dfs = (struct bench_ex_long_dfs){ .budget = 584, .runs = 584,
						     .first_violation = -1 };
	assert_int_equal(bench_ex_join(&k, &piece, err, sizeof(err)), -EINVAL);  /* 600 > 584 */
	piece.long_dfs.budget = piece.long_dfs.runs = 700;
	piece.side = "another-side";   /* a DFS piece of another side at this index */
	assert_int_equal(bench_ex_join(&k, &piece, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "another-side"));
	assert_false(k.dfs_checked);
	piece.side = SPLIT_SIDE;
	assert_int_equal(bench_ex_join(&k, &piece, err, sizeof(err)), 0);
	assert_true(k.dfs_checked);
	assert_int_equal(k.dfs_check.runs, 600);
	assert_false(k.dfs_check.exhausted);
	assert_int_equal(k.dfs_long_runs, 700);
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
		cmocka_unit_test(split_equals_whole),
		cmocka_unit_test(dfs_prefix_within_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
