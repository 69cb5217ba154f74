/* SPDX-License-Identifier: MIT */
/*
 * explore: how many schedules each strategy needs, per race and side. On a bug
 * side, the schedules up to the first violation (random and PCT: seeded runs;
 * DFS and DPOR: their fixed order); on a fixed side, every schedule of the
 * race's budget, and whether DFS and DPOR exhausted their bounded spaces (the
 * race's preemption bound for both, so the counts compare like with like).
 * Schedule counts are exact and deterministic; the seconds are the model's own
 * time for the exploration (fresh hosts, runs, checks), which stands for
 * nothing in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <memcgsim/race.h>

#include "bench_explore.h"
#include "bench_util.h"
#include "bench_registry.h"

/* The columns: four strategies under the race's budget, then DPOR with no bound. */
static const struct {
	enum msim_strategy s;
	bool unbounded;
	const char *name;
} col[BENCH_EX_NSTRATS] = {
	{ MSIM_STRAT_RANDOM, false, "random" }, { MSIM_STRAT_PCT, false, "pct" },
	{ MSIM_STRAT_DFS, false, "dfs" },       { MSIM_STRAT_DPOR, false, "dpor" },
	{ MSIM_STRAT_DPOR, true, "dpor_unbounded" },
};

/* --quick: one race's two sides. */
static const char *const quick_cases[][2] = {
	{ "rstat-early-exit", "bug" }, { "rstat-early-exit", "fix" },
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One exploration of a side under strategy s (runs 0: the race's budget): its cell. */
static int explore_cell(const struct bench_ex_config *c, const struct msim_race *r,
			const char *side, bool bug, unsigned int s, unsigned int runs,
			struct bench_ex_cell *out, struct msim_race_result *res)
{
	struct msim_race_opts o;
	char err[512] = "";
	int ret;

	if (c->verdicts_only && (col[s].s == MSIM_STRAT_RANDOM || col[s].s == MSIM_STRAT_PCT)) {
		*out = (struct bench_ex_cell){ .skipped = true }; /* no verdict reads it */
		return 0;
	}
	if (c->defer_dfs && c->share && s == 2 && !runs) {
		*out = (struct bench_ex_cell){ .deferred = true }; /* the merge fills it */
		return 0;
	}
	msim_race_opts_init(&o, col[s].s);
	o.seed = c->seed;
	o.runs = runs;
	if (col[s].unbounded)
		o.preemptions = MSIM_EXPLORE_UNBOUNDED;
	o.stop_at_first = bug;
	ret = msim_race_run_side(r, side, &o, res, err, sizeof(err));
	if (ret == -ENOTSUP) {   /* DPOR under a weak memory model: a cell that says so */
		*out = (struct bench_ex_cell){ .refused = true };
		return 0;
	}
	if (ret) {
		fprintf(stderr, "memcgsim bench explore: %s\n", err);
		return -EINVAL;
	}
	*out = (struct bench_ex_cell){
		.runs = res->ex.runs,
		.pruned = res->ex.pruned,
		.found = res->ex.violations > 0,
		.exhausted = res->ex.exhausted,
		.seconds = res->ex.seconds,
	};
	return 0;
}

/* The DFS cell the half rule compares with: the longer run where there are two. */
const struct bench_ex_cell *bench_ex_dfs_measured(const struct bench_ex_case *k)
{
	return k->dfs_checked ? &k->dfs_check : &k->c[2];
}

/* The DFS budget of k's race: what a DFS cell under the race's budget stops at. */
static unsigned int dfs_budget(const struct bench_ex_case *k)
{
	const struct msim_race *r = msim_race_find(k->race);

	return r && r->budget.dfs_runs ? r->budget.dfs_runs : 10000;
}

/*
 * A deferred DFS cell stops at the race's budget at most: the check is needed
 * only if that budget is below twice DPOR's count (the merge drops the check
 * when the cell turns out to have exhausted the space).
 */
bool bench_ex_needs_dfs_check(const struct bench_ex_case *k)
{
	const struct bench_ex_cell *dfs = &k->c[2], *dpor = &k->c[3];
	uint64_t twice = 2 * (uint64_t)dpor->runs;

	if (k->bug || dpor->refused || !dpor->exhausted || dpor->runs > UINT_MAX / 2)
		return false;
	if (dfs->deferred)
		return dfs_budget(k) < twice;
	return !dfs->exhausted && dfs->runs < twice;
}

int bench_ex_dfs_cell(const struct bench_ex_config *c, struct bench_ex_case *k)
{
	const struct msim_race *r = msim_race_find(k->race);
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct bench_ex_config here = *c;
	int ret = -EINVAL;

	here.defer_dfs = false;
	if (res && r)
		ret = explore_cell(&here, r, k->side, k->bug, 2, 0, &k->c[2], res);
	free(res);
	return ret;
}

/*
 * DPOR exhausted a fixed side and DFS stopped at its budget, below twice
 * DPOR's count: whether DFS needs more than twice is not known yet. DFS again
 * with twice DPOR's count answers it (exhausted within it, or not). A DPOR
 * piece leaves it to its DFS piece when that one's budget covers it.
 */
static int check_dfs(const struct bench_ex_config *c, const struct msim_race *r, const char *side,
		     struct bench_ex_case *k, unsigned int covered, struct msim_race_result *res)
{
	unsigned int twice = 2 * k->c[3].runs;

	if (!bench_ex_needs_dfs_check(k) || twice <= covered)
		return 0;
	if (c->progress)
		fprintf(stderr, "[explore] %s/%s: DFS again, up to %u schedules (twice DPOR's)\n",
			r->name, side, twice);
	k->dfs_checked = true;
	return explore_cell(c, r, side, false, 2, twice, &k->dfs_check, res);
}

/* The DFS piece of a split side: DFS with its own budget, for the merge to read. */
static int long_dfs(const struct bench_ex_config *c, const struct msim_race *r, const char *side, unsigned int budget,
		    struct bench_ex_case *k, struct msim_race_result *res)
{
	struct msim_race_opts o;
	char err[512] = "";

	msim_race_opts_init(&o, MSIM_STRAT_DFS);
	o.seed = c->seed;
	o.runs = budget;
	if (msim_race_run_side(r, side, &o, res, err, sizeof(err))) {
		fprintf(stderr, "memcgsim bench explore: %s\n", err);
		return -EINVAL;
	}
	k->long_dfs = (struct bench_ex_long_dfs){
		.budget = budget,
		.runs = res->ex.runs,
		.first_violation = res->ex.first_violation_run,
		.exhausted = res->ex.exhausted,
		.seconds = res->ex.seconds,
	};
	return 0;
}

static int run_case(const struct bench_ex_config *c, const char *race, const char *side,
		    enum bench_ex_piece piece, struct bench_ex_case *k, struct msim_race_result *res)
{
	const struct msim_race *r = msim_race_find(race);
	const struct msim_race_side *sd = r ? msim_race_side_find(r, side) : NULL;

	if (!sd) {
		fprintf(stderr, "memcgsim bench explore: no race %s with a side %s\n", race, side);
		return -EINVAL;
	}
	k->race = r->name;
	k->side = sd->name;
	k->bug = sd->violation;
	k->bound = r->budget.preemptions;
	k->piece = piece;
	if (piece == BENCH_EX_PIECE_DFS)
		return long_dfs(c, r, side, bench_ex_split_budget(c, r, sd), k, res);
	for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++)
		if (explore_cell(c, r, side, k->bug, s, 0, &k->c[s], res))
			return -EINVAL;
	if (check_dfs(c, r, side, k,
		      piece == BENCH_EX_PIECE_DPOR ? bench_ex_split_budget(c, r, sd) : 0, res))
		return -EINVAL;
	return bench_ex_count_fingerprints(c, k);
}

/* Every side of race r (or the one named only), appended to cases[n..max). */
static unsigned int add_sides(const struct msim_race *r, const char *only,
			      const char *(*cases)[2], unsigned int n, unsigned int max)
{
	for (const struct msim_race_side *s = r ? r->sides : NULL; s && s->name && n < max; s++) {
		if (only && strcmp(only, s->name))
			continue;
		cases[n][0] = r->name;
		cases[n][1] = s->name;
		n++;
	}
	return n;
}

/* The cases of config c: one race's sides, the quick pair, or every side of every race. */
static unsigned int cases_of(const struct bench_ex_config *c, const char *(*cases)[2])
{
	const struct msim_race *all[BENCH_EX_MAX_CASES];
	size_t nr;
	unsigned int n = 0;

	if (c->race)
		return add_sides(msim_race_find(c->race), c->side, cases, 0, BENCH_EX_MAX_CASES);
	if (c->quick) {
		memcpy(cases, quick_cases, sizeof(quick_cases));
		return sizeof(quick_cases) / sizeof(quick_cases[0]);
	}
	nr = msim_race_list(all, BENCH_EX_MAX_CASES);
	for (size_t i = 0; i < nr && i < BENCH_EX_MAX_CASES; i++)
		n = add_sides(all[i], NULL, cases, n, BENCH_EX_MAX_CASES);
	return n;
}

/* What a process is handed: a case whole, or one piece of a split one. */
struct ex_job {
	unsigned int index;
	enum bench_ex_piece piece;
	uint64_t cost;
};

/*
 * A job's expected cost, for the order shared jobs are handed out in: a fixed
 * side runs its whole budget, a bug side stops at its first violation; the
 * larger the budget the longer (zswap-shrink-vs-offline's DPOR budget of
 * 540000 is two minutes, most cases a few milliseconds). A DFS schedule
 * costs about half a DPOR one (0.17 against 0.29 ms of CPU on
 * zswap-shrink-vs-offline's fixed side, docs/benches.md).
 */
static uint64_t job_cost(const struct msim_race *r, const struct msim_race_side *sd,
			 enum bench_ex_piece piece, unsigned int split)
{
	uint64_t budget = r->budget.dpor_runs ? r->budget.dpor_runs : r->budget.dfs_runs;

	if (piece == BENCH_EX_PIECE_DFS)
		budget = split / 2;
	return (sd->violation ? 0 : 1ULL << 32) + budget;
}

/*
 * The jobs in the order they are handed out: when shared, dearest first, a
 * split side as its two pieces; else every case whole, in order. Returns how
 * many.
 */
static unsigned int job_order(const struct bench_ex_config *c, const char *(*cases)[2],
			      unsigned int n, bool shared, struct ex_job *jobs)
{
	unsigned int nj = 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct msim_race *r = msim_race_find(cases[i][0]);
		const struct msim_race_side *sd = r ? msim_race_side_find(r, cases[i][1]) : NULL;
		unsigned int split = shared && sd ? bench_ex_split_budget(c, r, sd) : 0;

		if (!split) {
			jobs[nj++] = (struct ex_job){ i, BENCH_EX_WHOLE,
						      shared && sd ? job_cost(r, sd, 0, 0) : 0 };
			continue;
		}
		jobs[nj++] = (struct ex_job){ i, BENCH_EX_PIECE_DPOR,
					      job_cost(r, sd, BENCH_EX_PIECE_DPOR, split) };
		jobs[nj++] = (struct ex_job){ i, BENCH_EX_PIECE_DFS,
					      job_cost(r, sd, BENCH_EX_PIECE_DFS, split) };
	}
	for (unsigned int i = 1; i < nj; i++)   /* insertion sort: stable, n is small */
		for (unsigned int k = i; k > 0 && jobs[k].cost > jobs[k - 1].cost; k--) {
			struct ex_job t = jobs[k];

			jobs[k] = jobs[k - 1];
			jobs[k - 1] = t;
		}
	return nj;
}

/* The next position in the order: the one after k, or the next the shared file hands out. */
static long next_job(int share_fd, long k)
{
	return share_fd >= 0 ? bench_ex_claim(share_fd) : k + 1;
}

static const char *const piece_name[] = { "", " (DPOR piece)", " (DFS piece)" };

int bench_ex_run(const struct bench_ex_config *c, struct bench_ex_result *r)
{
	const char *cases[BENCH_EX_MAX_CASES][2];
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct ex_job jobs[2 * BENCH_EX_MAX_CASES];
	struct bench_progress prog;
	unsigned int n, nj;
	double t0 = now_s();
	int ret = 0, fd = -1;

	memset(r, 0, sizeof(*r));
	r->cfg = *c;
	if (!res)
		return -ENOMEM;
	n = cases_of(c, cases);
	if (!n) {
		fprintf(stderr, "memcgsim bench explore: no race named %s%s%s\n", c->race,
			c->side ? " with a side " : "", c->side ? c->side : "");
		free(res);
		return -EINVAL;
	}
	if (c->share && (fd = open(c->share, O_RDWR | O_CREAT, 0666)) < 0) {
		fprintf(stderr, "memcgsim bench explore: --share %s: %s\n", c->share,
			strerror(errno));
		free(res);
		return -EINVAL;
	}
	nj = job_order(c, cases, n, fd >= 0, jobs);
	bench_progress_init(&prog, "explore", c->progress);
	for (long pos = next_job(fd, -1); pos >= 0 && pos < (long)nj && !ret;
	     pos = next_job(fd, pos)) {
		const struct ex_job *jb = &jobs[pos];
		struct bench_ex_case *k = &r->cases[r->ncases++];

		bench_progress(&prog, "%s/%s%s (%u of %u)", cases[jb->index][0],
			       cases[jb->index][1], piece_name[jb->piece], jb->index + 1, n);
		k->index = jb->index;
		ret = run_case(c, cases[jb->index][0], cases[jb->index][1], jb->piece, k, res);
	}
	if (fd >= 0)
		close(fd);
	bench_progress_done(&prog);
	r->wall_s = now_s() - t0;
	free(res);
	return ret;
}

/* ---- the explorers' claims (docs/explore.md) ---- */

static const char *const ex_fig_names[BENCH_EX_NFIGS] = {
	[BENCH_EX_F_BUG_SIDES] = "bug_sides",
	[BENCH_EX_F_DPOR_FOUND] = "dpor_found",
	[BENCH_EX_F_DFS_FOUND] = "dfs_found",
	[BENCH_EX_F_FIX_SIDES] = "fixed_sides",
	[BENCH_EX_F_DPOR_EXHAUSTED] = "dpor_exhausted",
	[BENCH_EX_F_DPOR_FIX_RUNS] = "dpor_fixed_schedules",
	[BENCH_EX_F_DFS_FIX_RUNS] = "dfs_fixed_schedules",
	[BENCH_EX_F_DPOR_HALF] = "dpor_half_sides",
	[BENCH_EX_F_DPORU_EXHAUSTED] = "dpor_unbounded_exhausted",
	[BENCH_EX_F_DPORU_DISTINCT] = "dpor_unbounded_budget_distinct",
	[BENCH_EX_F_DPOR_REFUSED] = "dpor_refused_sides",
	[BENCH_EX_F_SHORT] = "fixed_sides_short",
	[BENCH_EX_F_SHORT_TRACES] = "fixed_sides_short_by_traces",
};

static const struct bench_verdict_row ex_rows[] = {
	{
		.claim = "DPOR finds every bug side",
		.thread = { { "bug sides", BENCH_EX_F_BUG_SIDES, 0, "" } },
		.ours = { { "DPOR found", BENCH_EX_F_DPOR_FOUND, 0, "" },
			  { "DFS found", BENCH_EX_F_DFS_FOUND, 0, "" },
			  { "sides DPOR refused (not counted)", BENCH_EX_F_DPOR_REFUSED,
			    0, "" } },
		.comparable_when = { { BENCH_EX_F_BUG_SIDES, BENCH_VOP_GE, 1 } },
		.holds_when = { { BENCH_EX_F_DPOR_FOUND, BENCH_VOP_EQ, 1, BENCH_EX_F_BUG_SIDES } },
	},
	{
		.claim = "DPOR exhausts every fixed side in far fewer schedules (at most half) "
			 "than the preemption-bounded DFS",
		.thread = { { "fixed sides", BENCH_EX_F_FIX_SIDES, 0, "" } },
		.ours = { { "DPOR exhausted", BENCH_EX_F_DPOR_EXHAUSTED, 0, "" },
			  { "at most half of DFS", BENCH_EX_F_DPOR_HALF, 0, "" },
			  { "DPOR schedules", BENCH_EX_F_DPOR_FIX_RUNS, 0, "" },
			  { "DFS schedules", BENCH_EX_F_DFS_FIX_RUNS, 0, "" } },
		.comparable_when = { { BENCH_EX_F_FIX_SIDES, BENCH_VOP_GE, 1 } },
		.holds_when = { { BENCH_EX_F_DPOR_EXHAUSTED, BENCH_VOP_EQ, 1, BENCH_EX_F_FIX_SIDES },
				{ BENCH_EX_F_DPOR_HALF, BENCH_VOP_EQ, 1, BENCH_EX_F_FIX_SIDES } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] =
				 "the table names the fixed sides DPOR did not exhaust or needed "
				 "more than half DFS's schedules for; docs/explore.md says what "
				 "limits the reduction" },
	},
	{
		.claim = "DPOR with no preemption bound exhausts every fixed side (exhausted, no "
			 "violation: a proof for the scenario's bounded workload)",
		.thread = { { "fixed sides", BENCH_EX_F_FIX_SIDES, 0, "" } },
		.ours = { { "unbounded DPOR exhausted", BENCH_EX_F_DPORU_EXHAUSTED, 0, "" },
			  { "not exhausted, runs distinct traces", BENCH_EX_F_DPORU_DISTINCT, 0,
			    "" } },
		.comparable_when = { { BENCH_EX_F_FIX_SIDES, BENCH_VOP_GE, 1 } },
		.holds_when = { { BENCH_EX_F_DPORU_EXHAUSTED, BENCH_VOP_EQ, 1,
				  BENCH_EX_F_FIX_SIDES } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] =
				 "within the race's schedule budget; the column dpor-u shows "
				 "which sides did not finish, and the list above the verdicts why. "
				 "Where nearly every run ended (at most 1 in 20 pruned), the runs "
				 "are that many distinct traces (source-DPOR with sleep sets "
				 "repeats none among runs that end), so an optimal DPOR would save "
				 "at most the pruned runs of that budget (docs/explore.md)" },
	},
	{
		.claim = "every fixed side short of a DPOR goal is short because of its own "
			 "traces (unbounded: distinct traces to within 1 in 20 of the budget; "
			 "half: more distinct fingerprints than half of DFS's schedules), not "
			 "because of DPOR's redundant runs",
		.thread = { { "fixed sides short of a goal", BENCH_EX_F_SHORT, 0, "" } },
		.ours = { { "short only by their traces", BENCH_EX_F_SHORT_TRACES, 0, "" } },
		.comparable_when = { { BENCH_EX_F_SHORT, BENCH_VOP_GE, 1 } },
		.holds_when = { { BENCH_EX_F_SHORT_TRACES, BENCH_VOP_EQ, 1, BENCH_EX_F_SHORT } },
		.why = { [BENCH_VERDICT_HOLDS] =
				 "the list above the verdicts gives each side's count of distinct "
				 "traces (runs that ended): more than half of DFS's schedules, or "
				 "all but at most 1 in 20 of the budget",
			 [BENCH_VERDICT_DOES_NOT_HOLD] =
				 "the list above the verdicts names the sides where pruned runs "
				 "(DPOR's own redundancy) or a DFS budget, not the side's traces, "
				 "stand between DPOR and the goal" },
	},
};

/* Whether k misses either goal, and whether its own traces are each miss's reason. */
static void count_short(const struct bench_ex_case *k, double *fig)
{
	enum bench_ex_limit h = bench_ex_half_limit(k), u = bench_ex_unbounded_limit(k);

	if ((h == BENCH_EX_LIMIT_NONE && u == BENCH_EX_LIMIT_NONE) || h == BENCH_EX_LIMIT_UNCOUNTED)
		return;   /* a side not measured for it is in neither count */
	fig[BENCH_EX_F_SHORT]++;
	fig[BENCH_EX_F_SHORT_TRACES] += (h == BENCH_EX_LIMIT_NONE || h == BENCH_EX_LIMIT_TRACES) &&
				       (u == BENCH_EX_LIMIT_NONE || u == BENCH_EX_LIMIT_TRACES);
}

void bench_ex_verdicts(const struct bench_ex_result *r, struct bench_ex_verdicts *v)
{
	memset(v->fig, 0, sizeof(v->fig));
	for (unsigned int i = 0; i < r->ncases; i++) {
		const struct bench_ex_case *k = &r->cases[i];

		if (k->piece == BENCH_EX_PIECE_DFS)   /* its cells are in its DPOR piece */
			continue;
		if (k->c[3].refused) {   /* nothing DPOR could be judged on */
			v->fig[BENCH_EX_F_DPOR_REFUSED]++;
			continue;
		}
		if (k->bug) {
			v->fig[BENCH_EX_F_BUG_SIDES]++;
			v->fig[BENCH_EX_F_DPOR_FOUND] += k->c[3].found;
			v->fig[BENCH_EX_F_DFS_FOUND] += k->c[2].found;
		} else {
			v->fig[BENCH_EX_F_FIX_SIDES]++;
			v->fig[BENCH_EX_F_DPOR_EXHAUSTED] += k->c[3].exhausted;
			v->fig[BENCH_EX_F_DPOR_FIX_RUNS] += k->c[3].runs;
			v->fig[BENCH_EX_F_DFS_FIX_RUNS] += bench_ex_dfs_measured(k)->runs;
			v->fig[BENCH_EX_F_DPOR_HALF] +=
				k->c[3].exhausted &&
				2 * (uint64_t)k->c[3].runs <= bench_ex_dfs_measured(k)->runs;
			v->fig[BENCH_EX_F_DPORU_EXHAUSTED] += k->c[4].exhausted;
			v->fig[BENCH_EX_F_DPORU_DISTINCT] +=
				bench_ex_unbounded_limit(k) == BENCH_EX_LIMIT_TRACES;
			count_short(k, v->fig);
		}
	}
	v->table = (struct bench_verdict_table){
		.reference = "the explorer's goals (docs/explore.md)",
		.rows = ex_rows,
		.nrows = sizeof(ex_rows) / sizeof(ex_rows[0]),
		.fig_names = ex_fig_names,
		.fig = v->fig,
		.nfig = BENCH_EX_NFIGS,
	};
}

/* ---- output ---- */

static void print_cell(const struct bench_ex_cell *x, bool bug)
{
	char buf[32];

	if (x->refused)
		snprintf(buf, sizeof(buf), "refused");
	else if (x->skipped)
		snprintf(buf, sizeof(buf), "-");
	else if (x->deferred)
		snprintf(buf, sizeof(buf), "deferred");
	else if (bug)
		snprintf(buf, sizeof(buf), "%u%s", x->runs, x->found ? "" : " none");
	else
		snprintf(buf, sizeof(buf), "%u%s%s", x->runs, x->exhausted ? " ex" : "",
			 x->found ? " VIOL" : "");
	printf(" %12s", buf);
}

static void print_text(const struct bench_ex_result *r)
{
	struct bench_ex_verdicts v;

	printf("explore: schedules to the first violation (bug sides) and in all (fixed sides; "
	       "\"ex\": DFS/DPOR exhausted the bounded space), seed %llu\n",
	       (unsigned long long)r->cfg.seed);
	printf("(DFS and DPOR under the race's preemption bound, dpor-u: DPOR with no bound, each "
	       "within the race's schedule budget, bounded DPOR within the race's DPOR budget where "
	       "it gives one; exact counts; the seconds are the model's own)\n\n");
	printf("%-29s %-14s %5s %12s %12s %12s %12s %12s %9s\n", "race", "side", "bound",
	       "random", "pct", "dfs", "dpor", "dpor-u", "dpor s");
	for (unsigned int i = 0; i < r->ncases; i++) {
		const struct bench_ex_case *k = &r->cases[i];

		printf("%-29s %-14s %5u", k->race, k->side, k->bound);
		if (k->piece == BENCH_EX_PIECE_DFS) {
			printf(" DFS piece: %u schedules of a budget of %u%s\n", k->long_dfs.runs,
			       k->long_dfs.budget, k->long_dfs.exhausted ? " ex" : "");
			continue;
		}
		for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++)
			print_cell(&k->c[s], k->bug);
		printf(" %9.3f\n", k->c[3].seconds);
		if (k->dfs_checked)
			printf("%-29s %-14s DFS again with twice DPOR's count: %u%s\n", "", "",
			       k->dfs_check.runs, k->dfs_check.exhausted ? " ex" : ", not exhausted");
	}
	if (r->cfg.verdicts_only)
		printf("\n(--verdicts-only: random and PCT not run, \"-\")\n");
	printf("\nsimulator: %.1f s wall\n\n", r->wall_s);
	bench_ex_print_limits(stdout, r);
	bench_ex_verdicts(r, &v);
	bench_verdict_print_text(stdout, &v.table);
}

/* A cell for docs/races.md: the count, and whether the space was exhausted. */
static size_t md_cell(char *buf, size_t len, const struct bench_ex_cell *x, bool bug)
{
	if (x->refused)
		return (size_t)snprintf(buf, len, " refused |");
	if (x->skipped)
		return (size_t)snprintf(buf, len, " skipped |");
	if (bug)
		return (size_t)snprintf(buf, len, " %u%s |", x->runs,
					x->found ? "" : " (not found)");
	return (size_t)snprintf(buf, len, " %u%s%s |", x->runs,
				x->exhausted ? " (exhausted)" : "", x->found ? " VIOLATION" : "");
}

/* DFS's cell where it ran again: "3000; 1074348 (exhausted)" after the budget's count. */
static size_t md_dfs_cell(char *buf, size_t len, const struct bench_ex_case *k)
{
	if (!k->dfs_checked)
		return md_cell(buf, len, &k->c[2], k->bug);
	return (size_t)snprintf(buf, len, " %u; %u%s%s |", k->c[2].runs, k->dfs_check.runs,
				k->dfs_check.exhausted ? " (exhausted)" : " (not exhausted)",
				k->dfs_check.found ? " VIOLATION" : "");
}

void bench_ex_md_row(const struct bench_ex_case *k, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "| %s | %s%s | %u |", k->race, k->side,
				    k->bug ? " (bug)" : "", k->bound);

	for (unsigned int s = 0; s < BENCH_EX_NSTRATS && n < len; s++)
		n += s == 2 ? md_dfs_cell(buf + n, len - n, k)
			    : md_cell(buf + n, len - n, &k->c[s], k->bug);
}

/* --markdown: the table docs/races.md carries, measured, not typed. */
static void print_markdown(const struct bench_ex_result *r)
{
	char row[512];

	printf("%s\n\n", BENCH_EX_MD_HEADING);
	printf("Written by `memcgsim bench explore --markdown` (seed %llu). Bug sides: schedules\n"
	       "up to the first violation; fixed sides: schedules in all, \"exhausted\" when\n"
	       "DFS or DPOR covered the bounded space. DFS and DPOR run under the race's\n"
	       "preemption bound, DPOR unbounded under none (exhausted with no violation is a\n"
	       "proof for the scenario's workload); all within the race's schedule budget\n"
	       "(bounded DPOR: the race's DPOR budget where it gives one, as the race's\n"
	       "Explorers line above says). Where DPOR exhausted a fixed side and DFS stopped\n"
	       "at a budget below twice DPOR's count, DFS ran again with twice DPOR's count:\n"
	       "its cell gives both counts (\"3000; 1074348 (not exhausted)\").\n"
	       "Weak-memory sides (tso, pso) count store-buffer drains as steps; \"refused\"\n"
	       "would mark a side a strategy cannot explore.\n\n",
	       (unsigned long long)r->cfg.seed);
	printf("| race | side | bound | random | PCT | DFS | DPOR | DPOR unbounded |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (unsigned int i = 0; i < r->ncases; i++) {
		bench_ex_md_row(&r->cases[i], row, sizeof(row));
		printf("%s\n", row);
	}
}

/* A DFS piece's run: what the merge reads the DFS check from. */
static void print_long_dfs(struct bench_json *j, const struct bench_ex_long_dfs *l)
{
	bench_json_obj_begin(j, "long_dfs");
	bench_json_kuint(j, "budget", l->budget);
	bench_json_kuint(j, "schedules", l->runs);
	if (l->first_violation >= 0)
		bench_json_kuint(j, "first_violation", (unsigned int)l->first_violation);
	bench_json_kbool(j, "exhausted", l->exhausted);
	bench_json_kdbl(j, "seconds", l->seconds);
	bench_json_obj_end(j);
}

void bench_ex_print_json(FILE *f, const struct bench_ex_result *r)
{
	struct bench_ex_verdicts v;
	struct bench_json j;

	bench_json_init(&j, f);
	bench_json_obj_begin(&j, NULL);
	bench_json_kstr(&j, "bench", "explore");
	bench_json_kuint(&j, "seed", r->cfg.seed);
	bench_json_kdbl(&j, "sim_wall_s", r->wall_s);
	bench_json_kbool(&j, "verdicts_only", r->cfg.verdicts_only);
	bench_json_kbool(&j, "shared", r->cfg.share != NULL);
	bench_json_arr_begin(&j, "cases");
	for (unsigned int i = 0; i < r->ncases; i++) {
		const struct bench_ex_case *k = &r->cases[i];

		bench_json_obj_begin(&j, NULL);
		bench_json_kuint(&j, "index", k->index);
		bench_json_kstr(&j, "race", k->race);
		bench_json_kstr(&j, "side", k->side);
		bench_json_kbool(&j, "bug", k->bug);
		bench_json_kuint(&j, "bound", k->bound);
		if (k->piece != BENCH_EX_WHOLE)
			bench_json_kstr(&j, "piece", k->piece == BENCH_EX_PIECE_DFS ? "dfs" : "dpor");
		if (k->piece == BENCH_EX_PIECE_DFS) {
			print_long_dfs(&j, &k->long_dfs);
			bench_json_obj_end(&j);
			continue;
		}
		for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++) {
			const struct bench_ex_cell *x = &k->c[s];

			bench_json_obj_begin(&j, col[s].name);
			bench_json_kuint(&j, "schedules", x->runs);
			bench_json_kuint(&j, "pruned", x->pruned);
			bench_json_kbool(&j, "violation", x->found);
			bench_json_kbool(&j, "exhausted", x->exhausted);
			bench_json_kbool(&j, "refused", x->refused);
			bench_json_kbool(&j, "skipped", x->skipped);
			if (x->deferred)
				bench_json_kbool(&j, "deferred", true);
			bench_json_kdbl(&j, "seconds", x->seconds);
			bench_json_obj_end(&j);
		}
		if (!k->bug && !k->c[3].refused) {
			bench_json_kstr(&j, "half_limit", bench_ex_limit_name(bench_ex_half_limit(k)));
			bench_json_kstr(&j, "unbounded_limit",
					bench_ex_limit_name(bench_ex_unbounded_limit(k)));
		}
		if (k->dfs_fingerprints)
			bench_json_kuint(&j, "dfs_fingerprints", k->dfs_fingerprints);
		if (k->dfs_checked) {
			bench_json_obj_begin(&j, "dfs_twice_dpor");
			bench_json_kuint(&j, "schedules", k->dfs_check.runs);
			bench_json_kbool(&j, "violation", k->dfs_check.found);
			bench_json_kbool(&j, "exhausted", k->dfs_check.exhausted);
			bench_json_kdbl(&j, "seconds", k->dfs_check.seconds);
			if (k->dfs_long_runs && k->dfs_long_runs != k->dfs_check.runs)
				bench_json_kuint(&j, "schedules_run", k->dfs_long_runs);
			bench_json_obj_end(&j);
		}
		bench_json_obj_end(&j);
	}
	bench_json_arr_end(&j);
	bench_ex_verdicts(r, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

/* What explore's command line asks for, once parsed and checked. */
struct explore_args {
	struct bench_ex_config c;
	const char *merge_items[16];
	struct bench_arg_list merge;
	bool json, markdown;
};

/*
 * Parse and check explore's options into a: true to run, false to exit with
 * *status (0 after --help, 2 after a usage error).
 */
static bool explore_parse(int argc, char **argv, struct explore_args *a, int *status)
{
	const char *race = NULL, *side = NULL, *share = NULL;
	bool verdicts_only = false, defer_dfs = false;
	unsigned int split_over = 0;
	const struct bench_arg opts[] = {
		BENCH_OPT_STRING("--race", "NAME", &race, "every side of this race only"),
		BENCH_OPT_STRING("--side", "NAME", &side, "only this side of --race"),
		BENCH_OPT_FLAG("--markdown", &a->markdown, "the table of docs/races.md instead"),
		BENCH_OPT_FLAG("--verdicts-only", &verdicts_only,
			       "only DFS, DPOR and unbounded DPOR (what the verdicts read)"),
		BENCH_OPT_STRING("--share", "FILE", &share,
				 "take cases one at a time from a counter in FILE shared with "
				"other explore processes; print only those (for --merge)"),
		BENCH_OPT_FLAG("--defer-dfs", &defer_dfs,
			       "with --share: leave DFS under the race's budget to the merge "
			      "(memcgsim report takes its races' own run)"),
		BENCH_OPT_UINT("--split-over", "N", &split_over, 1, UINT_MAX / 2,
			       "with --share: run a fixed side whose stated DPOR count is at least "
			      "N as two pieces, DPOR and DFS, side by side (default: none)"),
		BENCH_OPT_LIST("--merge", "FILE", &a->merge,
			       "print the whole result from the --json output of processes "
			      "that shared a file (repeat per file; runs nothing)"),
		BENCH_OPT_END,
	};
	static const struct bench_spec spec_base = {
		.name = "explore",
		.summary = "schedules to first violation and to exhaustion per strategy and race",
		.description = "Explores every side of every race (--race: one race; --quick: "
			       "rstat-early-exit)\nunder random, PCT, DFS, DPOR and DPOR with no "
			       "preemption bound (the race's\nown budgets) and counts schedules: to "
			       "the first violation on a bug side, in\nall on a fixed side, with "
			       "whether DFS and DPOR exhausted their spaces. Where\nDPOR "
			       "exhausted a fixed side and DFS stopped at a budget below twice "
			       "DPOR's\ncount, DFS runs again with twice DPOR's count.",
		.default_reps = 1,
		.quick_reps = 1,
	};
	struct bench_spec spec = spec_base;
	struct bench_opts o;
	int ret;

	a->merge = (struct bench_arg_list){ .items = a->merge_items, .max = 16 };
	spec.options = opts;
	*status = 2;
	ret = bench_parse_args(&spec, argc, argv, &o);
	if (ret) {
		*status = bench_args_exit_status(ret);
		return false;
	}
	if (side && !race) {
		fprintf(stderr, "memcgsim bench explore: --side %s: name the race too (--race "
			"NAME)\n", side);
		return false;
	}
	if ((defer_dfs || split_over) && !share) {
		fprintf(stderr, "memcgsim bench explore: %s works with --share FILE only\n",
			defer_dfs ? "--defer-dfs" : "--split-over");
		return false;
	}
	a->c = (struct bench_ex_config){
		.progress = true, .race = race, .side = side, .split_over = split_over,
		.defer_dfs = defer_dfs, .quick = o.quick, .seed = o.seed,
		.verdicts_only = verdicts_only, .share = share,
	};
	a->json = o.json;
	return true;
}

static int explore_main(int argc, char **argv)
{
	struct explore_args a = { 0 };
	struct bench_ex_result *r;
	int ret;

	if (!explore_parse(argc, argv, &a, &ret))
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	if (a.merge.n) {
		char err[512] = "";

		ret = bench_ex_merge(a.merge.items, a.merge.n, r, err, sizeof(err));
		if (ret)
			fprintf(stderr, "memcgsim bench explore: %s\n", err);
	} else {
		ret = bench_ex_run(&a.c, r);
	}
	ret = ret == -EINVAL ? 2 : ret ? 1 : 0;   /* an unknown --race is bad input */
	if (!ret && a.json)
		bench_ex_print_json(stdout, r);
	else if (!ret && a.markdown)
		print_markdown(r);
	else if (!ret)
		print_text(r);
	free(r);
	return ret;
}

static const struct bench_engine explore_bench = {
	.name = "explore",
	.summary = "schedules to first violation and to exhaustion: random, pct, dfs, dpor per race",
	.main = explore_main,
};
BENCH_REGISTER(explore_bench);
