/* SPDX-License-Identifier: MIT */
/*
 * bench_w3_reparent.h - `memcgsim bench w3-reparent` (thread 000, w3): the
 * reparent accounting sanity check as pass/fail per design, and how it is
 * judged against "w3-reparent passed on all kernels", so that the bench-smoke
 * tests can assert a run's counts and plant figures for every verdict.
 */
#ifndef BENCH_W3_REPARENT_H
#define BENCH_W3_REPARENT_H

#include <memcgsim/memcgsim.h>

#include "bench_verdict.h"

#define BENCH_W3_NDESIGNS 3 /* base, patches 1-2, patches 1-3 (bench_w2_file_churn.h's) */
#define BENCH_W3_NLRU 2

/* What adds up after the churn and the removals (each a count of the model's). */
struct bench_w3_result {
	long listed;                 /* pages on p's LRU lists (walked) */
	long dead_listed;            /* pages left on the dead children's lists */
	long file_pages;             /* pages resident in every file */
	long hier_lru, hier_file;    /* p's hierarchical NR_*_FILE and NR_FILE_PAGES */
	long local_lru, local_file;  /* p's local ones */
	long dead_local_lru;         /* the dead children's local LRU statistics, summed */
	long lru_size;               /* classic: lru_zone_size sum; MGLRU: nr_pages sum */
	long shadow_nodes_p, shadow_nodes_all; /* p's list_lru count; WORKINGSET_NODES */
	bool hier_ok, local_ok, sizes_ok, shadows_ok;
	double seconds;
};

int bench_w3_run(enum msim_lru_kind lru, const struct msim_variants *v, struct bench_w3_result *r);

enum bench_w3_fig {
	BENCH_W3_F_NONE,
	BENCH_W3_F_HIER_FAILS,       /* designs whose hierarchical counters do not add up */
	BENCH_W3_F_SIZES_FAILS,      /* ... LRU sizes */
	BENCH_W3_F_SHADOWS_FAILS,    /* ... shadow nodes */
	BENCH_W3_F_LOCAL_FAILS,      /* ... local counters */
	BENCH_W3_F_LOCAL_FAILS_PATCHED, /* ... of them with patch 2 */
	BENCH_W3_NFIGS,
};

struct bench_w3_verdicts {
	double fig[BENCH_W3_NFIGS];
	struct bench_verdict_table table;
};

/* r[design][lru] */
void bench_w3_verdicts(const struct bench_w3_result r[BENCH_W3_NDESIGNS][BENCH_W3_NLRU],
		       struct bench_w3_verdicts *v);

#endif /* BENCH_W3_REPARENT_H */
