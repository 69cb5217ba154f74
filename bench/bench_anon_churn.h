/* SPDX-License-Identifier: MIT */
/*
 * bench_anon_churn.h - how `memcgsim bench anon-churn` (thread 000, w1-anon-churn)
 * judges its pages/s against the thread's table, so that the bench-smoke tests
 * can plant figures and force each comparison to each of its outcomes.
 */
#ifndef BENCH_ANON_CHURN_H
#define BENCH_ANON_CHURN_H

#include "bench_verdict.h"

#define MSIM_AC_NDESIGNS 3  /* base, patches 1-2, patches 1-3 */
#define MSIM_AC_NLRU 2      /* classic LRU, MGLRU */

/* Medians (pages per second) and the noise of base (MAD, percent) per LRU kind. */
struct msim_ac_summary {
	double median[MSIM_AC_NDESIGNS][MSIM_AC_NLRU];
	double noise[MSIM_AC_NLRU];
};

/*
 * Memcg stat updates per page that patch 2's redirect test and RCU section sit
 * on: NR_ANON_MAPPED and the LRU item at the fault, both again at the zap (the
 * PGFAULT event does not take the redirect).
 */
#define MSIM_AC_UPDATES_PER_PAGE 4

/* Per LRU kind: ours and the thread's figures (index 0 unused). */
enum msim_ac_fig_of_lru {
	MSIM_AC_PCT12, MSIM_AC_PCT13,         /* ours: pages/s of patches 1-2, 1-3 vs base, % */
	MSIM_AC_THREAD12, MSIM_AC_THREAD13,   /* the thread's */
	MSIM_AC_NOISE,                        /* MAD of base, % */
	MSIM_AC_NS_PAGE, MSIM_AC_TNS_PAGE,    /* ns per page of base: ours, the thread's */
	MSIM_AC_ADD12, MSIM_AC_ADD13,         /* ours: ns added per stat update vs base */
	MSIM_AC_TADD12, MSIM_AC_TADD13,       /* the thread's */
	MSIM_AC_NOISE_NS,                     /* our noise in ns per stat update */
	MSIM_AC_DIFF12, MSIM_AC_DIFF13,       /* |ours - the thread's| added ns */
	MSIM_AC_TOL12, MSIM_AC_TOL13,         /* max(our noise, |the thread's|) ns */
	MSIM_AC_HALF_ADD12,                   /* half our patches 1-2 added ns */
	MSIM_AC_ABS_ADD13,                    /* |ours patches 1-3| added ns */
	MSIM_AC_PER_LRU,
};
/* Figure index of kind k for LRU kind l (index 0 unused). */
#define MSIM_AC_F(l, k) (1 + (l) * MSIM_AC_PER_LRU + (k))
#define MSIM_AC_NFIGS (1 + MSIM_AC_NLRU * MSIM_AC_PER_LRU)

struct msim_ac_verdicts {
	double fig[MSIM_AC_NFIGS];
	struct msim_verdict_table table;
};

void msim_ac_verdicts(const struct msim_ac_summary *s, struct msim_ac_verdicts *v);

#endif /* BENCH_ANON_CHURN_H */
