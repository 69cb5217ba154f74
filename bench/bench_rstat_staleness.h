/* SPDX-License-Identifier: MIT */
/*
 * bench_rstat_staleness.h - how `memcgsim bench rstat-staleness` (thread 004,
 * "page cache grows at 1 GiB/s") judges its gaps against the thread's claims, so
 * that the bench-smoke tests can plant figures and force each comparison to each
 * of its outcomes.
 */
#ifndef MSIM_BENCH_RSTAT_STALENESS_H
#define MSIM_BENCH_RSTAT_STALENESS_H

#include "bench_verdict.h"

/* The run's parameters and its worst gaps (true - reported, bytes). */
struct msim_st_summary {
	unsigned int cpus;
	double seconds, rate_gib;
	long folio_pages;
	long long max_gap_break, max_gap_continue;
};

enum msim_st_fig {
	MSIM_ST_F_NONE,
	MSIM_ST_F_GAP_BREAK,       /* bytes */
	MSIM_ST_F_WANT,            /* rate x min(run, flush period), bytes */
	MSIM_ST_F_GAP_BREAK_MIB,
	MSIM_ST_F_WANT_MIB,
	MSIM_ST_F_GAP_CONT,        /* bytes */
	MSIM_ST_F_BOUND,           /* threshold + one update, bytes */
	MSIM_ST_F_GAP_CONT_PAGES,
	MSIM_ST_F_THRESHOLD_PAGES,
	MSIM_ST_F_FOLIO_PAGES,
	MSIM_ST_F_WINDOW_S,        /* min(run, flush period) */
	MSIM_ST_NFIGS,
};

struct msim_st_verdicts {
	double fig[MSIM_ST_NFIGS];
	struct msim_verdict_table table;
};

void msim_st_verdicts(const struct msim_st_summary *s, struct msim_st_verdicts *v);

#endif /* MSIM_BENCH_RSTAT_STALENESS_H */
