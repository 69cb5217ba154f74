/* SPDX-License-Identifier: MIT */
/*
 * outcome_util.h - what DFS and DPOR see on a toy, for the tests that hold DPOR
 * to DFS (test_dpor_oracle.c, test_dpor_limits.c, test_pcpu_ref_dpor.c,
 * unit/test_zswap_dpor.c): a set of run outcomes (a
 * run's fingerprint mixed with its check's reason), filled by an explorer's
 * on_run callback, and how many of one set the other lacks.
 */
#ifndef MSIM_TESTS_OUTCOME_UTIL_H
#define MSIM_TESTS_OUTCOME_UTIL_H

#include "race_util.h"

struct outcome_set {
	uint64_t *v;
	size_t n, cap;
};

static inline uint64_t outcome_mix_why(uint64_t fp, const char *why)
{
	uint64_t h = fp ^ 0xcbf29ce484222325ULL;

	for (; why && *why; why++)
		h = (h ^ (unsigned char)*why) * 0x100000001b3ULL;
	return h;
}

static inline bool outcome_has(const struct outcome_set *s, uint64_t v)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return true;
	return false;
}

static inline void outcome_add(struct outcome_set *s, uint64_t v)
{
	if (outcome_has(s, v))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		assert_non_null(s->v);
	}
	s->v[s->n++] = v;
}

/* How many outcomes of want are missing from got. */
static inline size_t outcomes_missing(const struct outcome_set *want, const struct outcome_set *got)
{
	size_t n = 0;

	for (size_t i = 0; i < want->n; i++)
		n += !outcome_has(got, want->v[i]);
	return n;
}

/* msim_explore_opts.on_run: a run that ran to its end adds its outcome to arg. */
static inline void outcome_collect(const struct msim_explore_run *run, void *arg)
{
	if (!run->pruned)
		outcome_add(arg, outcome_mix_why(run->fingerprint, run->why));
}

/* Explore a two-CPU toy to exhaustion within runs schedules under strategy (no
 * bound), its outcomes into out (emptied first; the caller frees out->v). */
static inline void outcome_explore_within(const struct msim_explore_target *t,
					  enum msim_strategy strategy, unsigned int runs,
					  struct outcome_set *out, struct msim_explore_result *res)
{
	struct msim_explore_opts o = {
		.strategy = strategy, .runs = runs, .preemptions = MSIM_EXPLORE_UNBOUNDED,
		.fingerprint = true, .on_run = outcome_collect, .on_run_arg = out,
	};
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.nr_cpus = 2;
	out->n = 0;
	assert_int_equal(msim_explore(t, &cfg, &o, res), 0);
	assert_true(res->exhausted);
}

/* outcome_explore_within() 1000 schedules: the toys' size. */
static inline void outcome_explore(const struct msim_explore_target *t, enum msim_strategy strategy,
				   struct outcome_set *out, struct msim_explore_result *res)
{
	outcome_explore_within(t, strategy, 1000, out, res);
}

#endif /* MSIM_TESTS_OUTCOME_UTIL_H */
