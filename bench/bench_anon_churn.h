/* SPDX-License-Identifier: MIT */
/*
 * bench_anon_churn.h - how `memcgsim bench anon-churn` (thread 000, w1-anon-churn)
 * judges its pages/s against the thread's table, so that the bench-smoke tests
 * can plant figures and force each comparison to each of its outcomes.
 */
#ifndef BENCH_ANON_CHURN_H
#define BENCH_ANON_CHURN_H

#include "bench_verdict.h"

#define BENCH_AC_NDESIGNS 3 /* base, patches 1-2, patches 1-3 */
#define BENCH_AC_NLRU 2     /* classic LRU, MGLRU */

/* Medians (pages per second) and the noise of base (MAD, percent) per LRU kind. */
struct bench_ac_summary {
	double median[BENCH_AC_NDESIGNS][BENCH_AC_NLRU];
	double noise[BENCH_AC_NLRU];
};

/*
 * Memcg stat updates per page that patch 2's redirect test and RCU section sit
 * on: NR_ANON_MAPPED and the LRU item at the fault, both again at the zap (the
 * PGFAULT event does not take the redirect).
 */
#define BENCH_AC_UPDATES_PER_PAGE 4

/* Per LRU kind: ours and the thread's figures (index 0 unused). */
enum bench_ac_fig_of_lru {
	BENCH_AC_PCT12, BENCH_AC_PCT13,       /* ours: pages/s of patches 1-2, 1-3 vs base, % */
	BENCH_AC_THREAD12, BENCH_AC_THREAD13, /* the thread's */
	BENCH_AC_NOISE,                       /* MAD of base, % */
	BENCH_AC_NS_PAGE, BENCH_AC_TNS_PAGE,  /* ns per page of base: ours, the thread's */
	BENCH_AC_ADD12, BENCH_AC_ADD13,       /* ours: ns added per stat update vs base */
	BENCH_AC_TADD12, BENCH_AC_TADD13,     /* the thread's */
	BENCH_AC_NOISE_NS,                    /* our noise in ns per stat update */
	BENCH_AC_DIFF12, BENCH_AC_DIFF13,     /* |ours - the thread's| added ns */
	BENCH_AC_TOL12, BENCH_AC_TOL13,       /* max(our noise, |the thread's|) ns */
	BENCH_AC_HALF_ADD12,                  /* half our patches 1-2 added ns */
	BENCH_AC_ABS_ADD13,                   /* |ours patches 1-3| added ns */
	BENCH_AC_PER_LRU,
};
/* Figure index of kind k for LRU kind l (index 0 unused). */
#define BENCH_AC_F(l, k) (1 + (l) * BENCH_AC_PER_LRU + (k))
#define BENCH_AC_NFIGS (1 + BENCH_AC_NLRU * BENCH_AC_PER_LRU)

struct bench_ac_verdicts {
	double fig[BENCH_AC_NFIGS];
	struct bench_verdict_table table;
};

void bench_ac_verdicts(const struct bench_ac_summary *s, struct bench_ac_verdicts *v);

#endif /* BENCH_ANON_CHURN_H */
