/* SPDX-License-Identifier: MIT */
/*
 * bench_rstat_staleness.h - `memcgsim bench rstat-staleness` (thread 004, "page
 * cache grows at 1 GiB/s, a two-second wait can leave the reported usage about
 * 2 GiB below the actual usage"): its runs, its figures and how it judges them,
 * so that the bench-smoke tests can run it without parsing output and plant
 * figures to force each comparison to each of its outcomes.
 *
 * Two modes:
 *  - measured (default): concurrent updaters on CPUs 1..U grow leaf's page cache
 *    while a reader on CPU 0 does what a threshold-gated consumer does, every
 *    --sample-ms, under a seeded random scheduler; the periodic forced flush runs
 *    every 2 s. By default the tree is mixed: a sibling of the leaf and root's own
 *    pages grow too, and a second reader flushes the leaf (memory.stat). With
 *    --leaf-only, the leaf alone, read at root only. Whether root gets stuck, when,
 *    and for how long is up to the race: the gap is measured and the verdicts can
 *    fail.
 *  - scripted (--scripted): the rstat-early-exit race scripted at t = 0, then only
 *    the driver updates. Every gated flush skips and the gap is rate x the
 *    window by construction: printed, never judged.
 */
#ifndef BENCH_RSTAT_STALENESS_H
#define BENCH_RSTAT_STALENESS_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/variants.h>

#include "bench_verdict.h"

struct bench_st_opts {
	unsigned int cpus;
	unsigned int updaters;         /* measured: updater tasks on CPUs 1..updaters */
	double seconds, rate_gib;
	long folio_pages;
	unsigned int sample_ms;        /* the reader's period, virtual ms */
	unsigned int seeds;            /* measured: seeded schedules per design */
	uint64_t seed;
	bool scripted;
	/*
	 * Measured: the leaf's updaters and a root reader alone (true), or the
	 * mixed tree (false, the default): of --rate-gib, 70 % to the leaf, 20 % to
	 * a sibling, 10 % to root's own pages, and a gated leaf reader beside the
	 * root's.
	 */
	bool leaf_only;
	bool progress;
	struct msim_variants base;     /* --preset/--variant; rstat-propagate per design */
};

/* bench_st_opts with the bench's defaults (quick: fewer seeds, shorter run). */
void bench_st_opts_init(struct bench_st_opts *o, bool quick);

/* One design's figures over all its seeds (series: the first seed's). */
struct bench_st_design {
	const char *design;            /* "break", "continue" */
	unsigned int n;                /* samples of the series */
	long *t_ms;
	long long *true_b, *reported_b;
	long long max_gap;             /* bytes, true - reported at a read */
	double mean_gap;               /* bytes, over every read of every seed */
	unsigned long long reads;      /* reads, all seeds */
	unsigned long long beyond;     /* reads whose gap is above their bound */
	unsigned int seeds_beyond;     /* seeds with at least one such read */
	long long max_inflight;        /* pages charged while one read's flush ran */
	unsigned long long skipped, flushed, periodic;
};

struct bench_st_result {
	struct bench_st_opts opts;
	struct bench_st_design d[2];   /* [0] break, [1] continue */
	long threshold;                /* pages: 64 x cpus */
	long pending_slack;            /* pages: cpus x (batch - 1), per-CPU counts not pushed */
};

/* Run both designs (alternated per seed). Returns 0 or a negative errno. */
int bench_st_run(const struct bench_st_opts *o, struct bench_st_result *r);
void bench_st_result_free(struct bench_st_result *r);

/* ---- verdicts ---- */

enum bench_st_fig {
	BENCH_ST_F_NONE,
	BENCH_ST_F_GAP_BREAK,      /* bytes */
	BENCH_ST_F_WANT,           /* rate x min(run, flush period), bytes */
	BENCH_ST_F_GAP_BREAK_MIB,
	BENCH_ST_F_WANT_MIB,
	BENCH_ST_F_WINDOW_S,       /* min(run, flush period) */
	BENCH_ST_F_GAP_CONT_MIB,
	BENCH_ST_F_BEYOND_BREAK,   /* reads above their bound */
	BENCH_ST_F_BEYOND_CONT,
	BENCH_ST_F_READS,          /* reads per design */
	BENCH_ST_F_SEEDS,
	BENCH_ST_F_SEEDS_BEYOND_BREAK,
	BENCH_ST_F_THRESHOLD_PAGES,
	BENCH_ST_F_SLACK_PAGES,    /* per-CPU counts not yet pushed: cpus x 63 */
	BENCH_ST_F_INFLIGHT_PAGES, /* largest in-flight charge during one read */
	BENCH_ST_F_SCRIPTED_GAP_MIB,
	BENCH_ST_NFIGS,
};

#define BENCH_ST_G_MEASURED 1u
#define BENCH_ST_G_SCRIPTED 2u

struct bench_st_verdicts {
	double fig[BENCH_ST_NFIGS];
	struct bench_verdict_table table;
};

void bench_st_verdicts(const struct bench_st_result *r, struct bench_st_verdicts *v);

#endif /* BENCH_RSTAT_STALENESS_H */
