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
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/explore.h>
#include <memcgsim/race.h>

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
	/*
	 * Leave the DFS cell under the race's budget to whoever merges the parts
	 * (cell .deferred): `memcgsim report` has just run that very exploration
	 * for its races and hands it over (bench_ex_merge_from).
	 */
	bool defer_dfs;
	/* One side of race only (NULL: every side). */
	const char *side;
	/*
	 * Shared runs only: a fixed side whose stated DPOR count
	 * (msim_race_side.dpor_schedules) is at least this is handed out as two
	 * pieces, DPOR and a DFS of twice that count, run side by side
	 * (bench_explore_share.c). 0: none is split.
	 */
	unsigned int split_over;
};

/* One strategy on one side: schedules run, and what they showed. */
struct bench_ex_cell {
	unsigned int runs;           /* to the first violation (bug), or all (fix) */
	unsigned int pruned;         /* DPOR: runs stopped by sleep sets */
	bool found;                  /* a violation */
	bool exhausted;              /* DFS, DPOR: the bounded space */
	bool refused;                /* the strategy refused the side (-ENOTSUP) */
	bool skipped;                /* not run (verdicts_only: random and PCT) */
	bool deferred;               /* not run here (defer_dfs): the merge fills it */
	double seconds;              /* the model's own time for the exploration */
};

/*
 * A shared fixed side in two pieces: DPOR (and the rest of its cells) in one
 * process, DFS in another; the merge puts them back together.
 */
enum bench_ex_piece {
	BENCH_EX_WHOLE,              /* every cell here */
	BENCH_EX_PIECE_DPOR,         /* every cell; the DFS check only if the DFS piece's
					budget was short of twice DPOR's count */
	BENCH_EX_PIECE_DFS,          /* only long_dfs */
};

/*
 * DFS with a budget of its own (twice the side's stated DPOR count), run before
 * DPOR's count C is known. DFS's order is fixed, so its first N schedules are
 * those of any DFS with a budget of at least N: it answers the DFS check for
 * any C with 2C <= budget, or for every C when it exhausted the space.
 */
struct bench_ex_long_dfs {
	unsigned int budget;
	unsigned int runs;
	int first_violation;         /* run index, -1: none */
	bool exhausted;
	double seconds;
};

struct bench_ex_case {
	unsigned int index;          /* in the list of every case (the order printed) */
	enum bench_ex_piece piece;
	struct bench_ex_long_dfs long_dfs;   /* BENCH_EX_PIECE_DFS */
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
	/*
	 * The check was read from a DFS piece that ran this many schedules, more
	 * than the check's (its seconds are that run's); 0: it ran as the check.
	 */
	unsigned int dfs_long_runs;
	/*
	 * A fixed side DPOR exhausted in more than half of an exhaustive DFS's
	 * schedules: how many distinct fingerprints (msim_explore_opts.fingerprint,
	 * what each task saw) that DFS's runs show, a floor for any reduction that
	 * keeps a schedule of every trace (bench_explore_limits.c). 0: not counted.
	 */
	unsigned int dfs_fingerprints;
};

struct bench_ex_result {
	struct bench_ex_config cfg;
	/* both pieces of every split case in one process at most */
	struct bench_ex_case cases[2 * BENCH_EX_MAX_CASES];
	unsigned int ncases;
	double wall_s;
};

/*
 * Whether k needs DFS run again with twice DPOR's count: a fixed side DPOR
 * exhausted where DFS stopped at its budget below twice DPOR's count.
 */
bool bench_ex_needs_dfs_check(const struct bench_ex_case *k);
/*
 * The cell of a DFS with budget n, from a DFS with a larger budget (l): 0, or
 * -ERANGE when l stopped at its budget below n (it cannot say).
 */
int bench_ex_dfs_prefix(const struct bench_ex_long_dfs *l, unsigned int n,
			struct bench_ex_cell *out);

/* Run the bench; 0 or a negative errno (message on stderr). */
int bench_ex_run(const struct bench_ex_config *c, struct bench_ex_result *r);

/* ---- cases shared between processes (bench_explore_share.c) ---- */

/*
 * The next case index from the counter in the shared file fd (locked while it
 * is read and bumped), or -1 when it cannot be read or written.
 */
long bench_ex_claim(int fd);
/*
 * Where a merge finds a deferred DFS cell: fill out with the DFS run under the
 * race's budget on race/side and return 0, or return -ENOENT when it has none
 * (the merge then runs it itself).
 */
struct bench_ex_dfs_source {
	int (*find)(void *arg, const char *race, const char *side, bool bug,
		    struct bench_ex_cell *out);
	void *arg;
};
/* bench_ex_merge, with the deferred DFS cells from src (NULL: every one run here). */
int bench_ex_merge_from(const char *const *paths, unsigned int n,
			const struct bench_ex_dfs_source *src, struct bench_ex_result *r, char *err,
			size_t errlen);
/* DFS under the race's budget on case k (what a deferred cell stands for): 0 or -EINVAL. */
int bench_ex_dfs_cell(const struct bench_ex_config *c, struct bench_ex_case *k);
/* The DFS piece's budget for side (twice its stated DPOR count), 0: not split. */
unsigned int bench_ex_split_budget(const struct bench_ex_config *c, const struct msim_race *r,
				   const struct msim_race_side *side);
/*
 * Put a DPOR piece (k, in place) and its DFS piece (dfs) back together: the
 * DFS check taken from the DFS piece where the DPOR piece did not run it.
 * 0, or -EINVAL with the reason in err.
 */
int bench_ex_join(struct bench_ex_case *k, const struct bench_ex_case *dfs, char *err,
		  size_t errlen);
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

/* The DFS cell the half rule reads: DFS again with twice DPOR's count where it ran. */
const struct bench_ex_cell *bench_ex_dfs_measured(const struct bench_ex_case *k);

/* Why a fixed side misses a DPOR goal (bench_explore_limits.c). */
enum bench_ex_limit {
	BENCH_EX_LIMIT_NONE,          /* it meets the goal */
	BENCH_EX_LIMIT_NOT_EXHAUSTED, /* half: bounded DPOR did not exhaust */
	BENCH_EX_LIMIT_DFS_BUDGET,    /* half: DFS stopped at its budget, not exhausted */
	BENCH_EX_LIMIT_TRACES,        /* the side's distinct traces: no reduction does better */
	BENCH_EX_LIMIT_REDUNDANT,     /* not explained by the side's traces (pruned runs; half:
					 fingerprints at most half of DFS's count) */
	BENCH_EX_LIMIT_UNCOUNTED,     /* half: the DFS's fingerprints were not counted */
};
enum bench_ex_limit bench_ex_half_limit(const struct bench_ex_case *k);
enum bench_ex_limit bench_ex_unbounded_limit(const struct bench_ex_case *k);
const char *bench_ex_limit_name(enum bench_ex_limit l);
/*
 * For a side the half goal's reason is asked of (DPOR exhausted, an exhaustive
 * DFS of less than twice its count), count the DFS's distinct fingerprints into
 * k->dfs_fingerprints: one more DFS with fingerprints, of that DFS's size (at
 * most 50000 schedules). Returns 0: a DFS that cannot run leaves the side
 * uncounted, with a line on stderr.
 */
int bench_ex_count_fingerprints(const struct bench_ex_config *c, struct bench_ex_case *k);
/* Each fixed side short of a goal, with the measured reason; nothing when none is. */
void bench_ex_print_limits(FILE *f, const struct bench_ex_result *r);

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
	BENCH_EX_F_SHORT,            /* fixed sides short of either DPOR goal */
	BENCH_EX_F_SHORT_TRACES,     /* of them, short only where their traces limit them */
	BENCH_EX_NFIGS,
};

struct bench_ex_verdicts {
	double fig[BENCH_EX_NFIGS];
	struct bench_verdict_table table;
};

void bench_ex_verdicts(const struct bench_ex_result *r, struct bench_ex_verdicts *v);

#endif /* BENCH_EXPLORE_H */
