/* SPDX-License-Identifier: MIT */
/*
 * bench_explore.h - `memcgsim bench explore`: schedules to the first violation
 * (bug sides) and to exhaustion (fixed sides), per strategy (random, PCT, DFS,
 * DPOR) and per race. Exposed so that the smoke test can run it small and plant
 * figures into its verdicts.
 */
#ifndef MSIM_BENCH_EXPLORE_H
#define MSIM_BENCH_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/explore.h>

#include "bench_verdict.h"

#define MSIM_EX_NSTRATS 5            /* random, PCT, DFS, DPOR, DPOR unbounded */
#define MSIM_EX_MAX_CASES 128        /* race sides (and races listed) at most */

struct msim_ex_config {
	const char *race;            /* one race (NULL: every side of every race) */
	bool quick;                  /* rstat-early-exit only */
	uint64_t seed;
	bool progress;
};

/* One strategy on one side: schedules run, and what they showed. */
struct msim_ex_cell {
	unsigned int runs;           /* to the first violation (bug), or all (fix) */
	unsigned int pruned;         /* DPOR: runs stopped by sleep sets */
	bool found;                  /* a violation */
	bool exhausted;              /* DFS, DPOR: the bounded space */
	bool refused;                /* the strategy refused the side (-ENOTSUP) */
	double seconds;              /* the model's own time for the exploration */
};

struct msim_ex_case {
	const char *race, *side;
	bool bug;                    /* the side's bad state is reachable */
	unsigned int bound;          /* the race's DFS/DPOR preemption bound */
	struct msim_ex_cell c[MSIM_EX_NSTRATS];
	/*
	 * A fixed side DPOR exhausted where DFS stopped at a budget below twice
	 * DPOR's count: DFS again with twice DPOR's count (dfs_checked), so that
	 * the half rule compares with a measured DFS, not with a budget.
	 */
	bool dfs_checked;
	struct msim_ex_cell dfs_check;
};

struct msim_ex_result {
	struct msim_ex_config cfg;
	struct msim_ex_case cases[MSIM_EX_MAX_CASES];
	unsigned int ncases;
	double wall_s;
};

/* Run the bench; 0 or a negative errno (message on stderr). */
int msim_ex_run(const struct msim_ex_config *c, struct msim_ex_result *r);

/* The heading of the measured section at the end of docs/races.md (--markdown). */
#define MSIM_EX_MD_HEADING "## Schedules per explorer (measured)"
/* One row of that section's table, for case k. */
void msim_ex_md_row(const struct msim_ex_case *k, char *buf, size_t len);

enum msim_ex_fig {
	MSIM_EX_F_NONE,
	MSIM_EX_F_BUG_SIDES,         /* bug sides explored */
	MSIM_EX_F_DPOR_FOUND,        /* of them, DPOR found */
	MSIM_EX_F_DFS_FOUND,
	MSIM_EX_F_FIX_SIDES,         /* fixed sides explored */
	MSIM_EX_F_DPOR_EXHAUSTED,    /* of them, DPOR exhausted */
	MSIM_EX_F_DPOR_FIX_RUNS,     /* schedules to exhaust them, summed */
	MSIM_EX_F_DFS_FIX_RUNS,
	MSIM_EX_F_DPOR_HALF,         /* fixed sides DPOR exhausted in at most half DFS's runs */
	MSIM_EX_F_DPORU_EXHAUSTED,   /* fixed sides unbounded DPOR exhausted (a proof) */
	MSIM_EX_F_DPOR_REFUSED,      /* sides DPOR refused (weak memory): in no other figure */
	MSIM_EX_NFIGS,
};

struct msim_ex_verdicts {
	double fig[MSIM_EX_NFIGS];
	struct msim_verdict_table table;
};

void msim_ex_verdicts(const struct msim_ex_result *r, struct msim_ex_verdicts *v);

#endif /* MSIM_BENCH_EXPLORE_H */
