/* SPDX-License-Identifier: MIT */
/*
 * bench_explore.h - `memcgsim bench explore`: schedules to the first violation
 * (bug sides) and to exhaustion (fixed sides), per strategy (random, PCT, DFS,
 * DPOR) and per race. Exposed so that the smoke test can run it small and plant
 * figures into its verdicts.
 */
#ifndef BENCH_EXPLORE_H
#define BENCH_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/explore.h>

#include "bench_verdict.h"

#define BENCH_EX_NSTRATS 5           /* random, PCT, DFS, DPOR, DPOR unbounded */
#define BENCH_EX_MAX_CASES 128       /* race sides (and races listed) at most */

struct bench_ex_config {
	const char *race;            /* one race (NULL: every side of every race) */
	bool quick;                  /* rstat-early-exit only */
	uint64_t seed;
	bool progress;
	/*
	 * Only the strategies the verdicts read (DFS, DPOR, DPOR with no bound):
	 * the random and PCT cells are skipped (the full report's budget).
	 */
	bool verdicts_only;
	/*
	 * A file shared with other explore processes (--share): each takes the
	 * next case not yet taken from the counter in it and prints only its own,
	 * for bench_ex_merge (bench_explore_share.c). NULL: every case here.
	 */
	const char *share;
};

/* One strategy on one side: schedules run, and what they showed. */
struct bench_ex_cell {
	unsigned int runs;           /* to the first violation (bug), or all (fix) */
	unsigned int pruned;         /* DPOR: runs stopped by sleep sets */
	bool found;                  /* a violation */
	bool exhausted;              /* DFS, DPOR: the bounded space */
	bool refused;                /* the strategy refused the side (-ENOTSUP) */
	bool skipped;                /* not run (verdicts_only: random and PCT) */
	double seconds;              /* the model's own time for the exploration */
};

struct bench_ex_case {
	unsigned int index;          /* in the list of every case (the order printed) */
	const char *race, *side;
	bool bug;                    /* the side's bad state is reachable */
	unsigned int bound;          /* the race's DFS/DPOR preemption bound */
	struct bench_ex_cell c[BENCH_EX_NSTRATS];
	/*
	 * A fixed side DPOR exhausted where DFS stopped at a budget below twice
	 * DPOR's count: DFS again with twice DPOR's count (dfs_checked), so that
	 * the half rule compares with a measured DFS, not with a budget.
	 */
	bool dfs_checked;
	struct bench_ex_cell dfs_check;
};

struct bench_ex_result {
	struct bench_ex_config cfg;
	struct bench_ex_case cases[BENCH_EX_MAX_CASES];
	unsigned int ncases;
	double wall_s;
};

/* Run the bench; 0 or a negative errno (message on stderr). */
int bench_ex_run(const struct bench_ex_config *c, struct bench_ex_result *r);

/* ---- cases shared between processes (bench_explore_share.c) ---- */

/*
 * The next case index from the counter in the shared file fd (locked while it
 * is read and bumped), or -1 when it cannot be read or written.
 */
long bench_ex_claim(int fd);
/*
 * The result one process would have printed, from the --json documents of the
 * processes that shared a file (paths[0..n)): every case in index order.
 * 0, or -EINVAL with the reason in err (a file that does not parse, a case
 * twice or missing, a race or side this build does not have).
 */
int bench_ex_merge(const char *const *paths, unsigned int n, struct bench_ex_result *r, char *err,
		   size_t errlen);
/* The JSON document of r (what --json prints), on f. */
void bench_ex_print_json(FILE *f, const struct bench_ex_result *r);

/* The heading of the measured section at the end of docs/races.md (--markdown). */
#define BENCH_EX_MD_HEADING "## Schedules per explorer (measured)"
/* One row of that section's table, for case k. */
void bench_ex_md_row(const struct bench_ex_case *k, char *buf, size_t len);

enum bench_ex_fig {
	BENCH_EX_F_NONE,
	BENCH_EX_F_BUG_SIDES,        /* bug sides explored */
	BENCH_EX_F_DPOR_FOUND,       /* of them, DPOR found */
	BENCH_EX_F_DFS_FOUND,
	BENCH_EX_F_FIX_SIDES,        /* fixed sides explored */
	BENCH_EX_F_DPOR_EXHAUSTED,   /* of them, DPOR exhausted */
	BENCH_EX_F_DPOR_FIX_RUNS,    /* schedules to exhaust them, summed */
	BENCH_EX_F_DFS_FIX_RUNS,
	BENCH_EX_F_DPOR_HALF,        /* fixed sides DPOR exhausted in at most half DFS's runs */
	BENCH_EX_F_DPORU_EXHAUSTED,  /* fixed sides unbounded DPOR exhausted (a proof) */
	BENCH_EX_F_DPORU_DISTINCT,   /* of the others, those whose runs nearly all ended
					(at most 1 in 20 pruned): more traces than the budget */
	BENCH_EX_F_DPOR_REFUSED,     /* sides DPOR refused (weak memory): in no other figure */
	BENCH_EX_NFIGS,
};

struct bench_ex_verdicts {
	double fig[BENCH_EX_NFIGS];
	struct bench_verdict_table table;
};

void bench_ex_verdicts(const struct bench_ex_result *r, struct bench_ex_verdicts *v);

#endif /* BENCH_EXPLORE_H */
