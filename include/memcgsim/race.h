/* SPDX-License-Identifier: MIT */
/*
 * race.h - define a race once; run, explore, replay and verify it from any program.
 *
 * A race is one struct msim_race: its name and thread, the interleaving diagram
 * (CPU 0 | CPU 1 columns, as the mm threads draw it), the tasks of one run and the
 * invariant they can break (target: setup, check, teardown), optionally a script
 * (the thread's narrative, stepped with msim_run_until), and its sides: the
 * variant settings with the bug and with the fix, each with the exact figures
 * its script must reach. Everything that shows the race (the memcgsim command,
 * the race tests, docs/races.md) reads that one definition.
 *
 *   static const struct msim_race lost_flush = {
 *           .name = "lost-flush", .summary = "...", .diagram = "CPU 0 ...",
 *           .target = { .setup = setup, .check = check, .teardown = teardown },
 *           .script = script,
 *           .sides = (const struct msim_race_side[]){
 *                   { .name = "bug", .arg = &racy, .violation = true,
 *                     .figures = (const struct msim_race_expect[]){
 *                             MSIM_RACE_EXPECT("lost", 1), { NULL } } },
 *                   { .name = "fix", .arg = &atomic_xchg, ... },
 *                   { NULL } },
 *   };
 *   MSIM_RACE_REGISTER(lost_flush)
 *
 * then msim_race_run_side(&lost_flush, "bug", &opts, res, err, sizeof(err)) with
 * opts.strategy SCRIPT, RANDOM, PCT, DFS or REPLAY, and msim_race_verify() to
 * check a result against what its side states (examples/race_flush.c).
 *
 * Runs are deterministic: a violation found by an explorer comes with its schedule
 * string, and replaying the string gives the identical trace.
 */
#ifndef MEMCGSIM_RACE_H
#define MEMCGSIM_RACE_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what a run reports: named figures and a narrative ---- */

#define MSIM_RACE_MAX_FIGS 32

enum msim_race_fig_type {
	MSIM_RACE_FIG_INT,
	MSIM_RACE_FIG_BOOL,
	MSIM_RACE_FIG_STR,
	MSIM_RACE_FIG_DOUBLE,
};

struct msim_race_fig {
	const char *key;          /* a static string */
	enum msim_race_fig_type type;
	long long i;              /* INT, and BOOL as 0 or 1 */
	double d;
	char s[128];
};

struct msim_race_report {
	unsigned int nr_figs;
	struct msim_race_fig figs[MSIM_RACE_MAX_FIGS];
	char schedule[4096];      /* a script's schedule string */
	char notes[8192];         /* the narrative, one line per note; line 1 is the verdict */
	bool violated;            /* the bad state was reached */
};

/* Set a figure (a second call with the same key overwrites it). */
MSIM_API void msim_race_fig_int(struct msim_race_report *r, const char *key, long long v);
MSIM_API void msim_race_fig_bool(struct msim_race_report *r, const char *key, bool v);
MSIM_API void msim_race_fig_str(struct msim_race_report *r, const char *key, const char *v);
MSIM_API void msim_race_fig_double(struct msim_race_report *r, const char *key, double v);
/* The figure named key, or NULL. */
MSIM_API const struct msim_race_fig *msim_race_fig_find(const struct msim_race_report *r,
							const char *key);
/* Append one line to the narrative. */
MSIM_API void msim_race_note(struct msim_race_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- a race and its sides ---- */

/*
 * One figure a side's script must reach: key equal to value (ints; bools as 0 or
 * 1), or equal to the string str, or equal to the figure same_as of the same run.
 */
struct msim_race_expect {
	const char *key;
	long long value;
	const char *str;
	const char *same_as;
};
#define MSIM_RACE_EXPECT(k, v) { .key = (k), .value = (v) }
#define MSIM_RACE_EXPECT_STR(k, s) { .key = (k), .str = (s) }
#define MSIM_RACE_EXPECT_SAME(k, other) { .key = (k), .same_as = (other) }

/*
 * One side of a race: a configuration and what it must show. The bug side reaches
 * the bad state (violation); the fix side never does. A race may have more sides
 * (one per layout, a larger host, the other patch of a series).
 */
struct msim_race_side {
	const char *name;         /* "bug", "fix", "xarray": unique within the race */
	/* msim_race_settings_apply() form: "NAME=VALUE,...", "cpus=N", "cgroup=v1|v2",
	 * "lru=classic|mglru", "preempt=unmodelled|none|full" (sim.h: the preemption model) */
	const char *settings;
	const char *summary;      /* one line: what this side is */
	void *arg;                /* target.arg on this side (NULL: the target's own) */
	bool violation;           /* the bad state is reachable on this side */
	bool demo;                /* `memcgsim demo` shows this side (in array order) */
	bool deadlock;            /* the bad state is a deadlock */
	bool clean_orders;        /* some schedules avoid the bad state: explorers see both */
	/* What the script reaches: exact figures ({ NULL }-ended) and note substrings. */
	const struct msim_race_expect *figures;
	const char *const *notes;
	const char *why;          /* an explorer's violation reason contains this */
	/* Bounded DFS under the race's own budget (runs and preemptions left default): */
	bool dfs_exhausts;        /* it explores the whole bounded space */
	unsigned int dfs_schedules;    /* exactly this many schedules (0: not stated) */
	const char *dfs_schedule;      /* the first violation's schedule (NULL: not stated) */
	int dfs_first_violation;       /* and its run index (stated with dfs_schedule) */
	/* DPOR under the race's own budget (and preemption bound) exhausts the bounded
	 * space in exactly this many schedules (0: not stated; docs/explore.md). */
	unsigned int dpor_schedules;
};

/* The explorers' default budget; a run's options may override each. */
struct msim_race_budget {
	unsigned int runs;        /* random and PCT runs (0: 1000) */
	unsigned int pct_depth;   /* PCT bug depth (0: 2) */
	unsigned int preemptions; /* DFS preemption bound */
	unsigned int dfs_runs;    /* DFS schedule cap (0: 10000) */
	/* DPOR schedule cap under the race's own bound (0: dfs_runs): for a space
	 * DPOR exhausts and DFS cannot in any budget the race can afford */
	unsigned int dpor_runs;
};

struct msim_race {
	const char *name;         /* "rstat-early-exit" */
	const char *thread;       /* the thread or label it comes from: "004", "toy" */
	const char *windows;      /* the kernel windows it shows: "R3 R4" (docs/races.md) */
	const char *summary;      /* one line */
	const char *diagram;      /* the interleaving, CPU 0 | CPU 1 columns */
	struct msim_race_budget budget;
	/*
	 * Adjust the configuration (CPUs, layout) before any run; may be NULL.
	 * -EINVAL and a message in err for a configuration the race cannot run.
	 */
	int (*configure)(struct msim_config *cfg, char *err, size_t errlen);
	/* CPUs the race's tasks run on: fewer is refused ("NAME needs at least N CPUs"). */
	unsigned int min_cpus;
	/*
	 * Whether the bad state is reachable under cfg's variants and the target arg
	 * of the run (any configuration, not only the sides'); NULL: the run's side
	 * says, or true without a side.
	 */
	bool (*expect)(const struct msim_config *cfg, const void *arg);
	/* One run: setup creates the tasks, check judges the end state. */
	struct msim_explore_target target;
	/*
	 * The scripted narrative on the tasks target.setup made (the engine creates
	 * the host, sets it up, records the schedule and tears it down). Fills rep's
	 * figures, notes and violated; returns 0 or a negative errno.
	 */
	int (*script)(struct msim *m, void *state, struct msim_race_report *rep);
	/* Instead of script: a narrative that builds hosts of its own. */
	int (*script_hosts)(const struct msim_config *cfg, void *arg, struct msim_race_report *rep);
	/* The script's schedule replays on target (its tasks are exactly setup's). */
	bool script_replays;
	/* Optional concurrent flavour (real threads, liburcu): fills rep. */
	int (*concurrent)(const struct msim_config *cfg, struct msim_race_report *rep);
	/* The sides, ended by { NULL }; NULL: one side, the configuration as given. */
	const struct msim_race_side *sides;
	/*
	 * Runs with no preemption (DFS, bound 0) run each task to its end; when
	 * non-zero, there are exactly this many such serial orders and none of them
	 * reaches the bad state.
	 */
	unsigned int serial_orders;
	/*
	 * CPUs the race runs on when the caller names none: msim_race_opts.cpus 0
	 * and the base configuration's count msim_config_init()'s default; 0: the
	 * configuration's. A count in opts, even the default one, is taken as
	 * given (then min_cpus and configure judge it): `race NAME --cpus 4`.
	 */
	unsigned int default_cpus;
};

/*
 * Register a race by name. Returns 0; -EINVAL (no name, or no target.setup),
 * -EEXIST (the name is taken), or -ENOSPC (the registry holds 64 races).
 */
MSIM_API int msim_race_register(const struct msim_race *r);
/* Register from a constructor: MSIM_RACE_REGISTER(var) after the definition. */
#define MSIM_RACE_REGISTER(var)                                              \
	__attribute__((constructor)) static void msim_race_register_##var(void) \
	{                                                                    \
		(void)msim_race_register(&(var));                            \
	}
MSIM_API const struct msim_race *msim_race_find(const char *name);
/* The registered races in name order, at most max of them; returns how many exist. */
MSIM_API size_t msim_race_list(const struct msim_race **out, size_t max);
/* The side named name, or NULL. */
MSIM_API const struct msim_race_side *msim_race_side_find(const struct msim_race *r, const char *name);

/*
 * Apply settings "NAME=VALUE,..." to cfg: variant assignments (msim_variant_set),
 * "cpus=N", "cgroup=v1" or "cgroup=v2", "lru=classic" or "lru=mglru" (the host's
 * LRU kind), and "preempt=" a preemption model (msim_preempt_parse(), sim.h).
 * NULL or "" changes nothing.
 * Returns 0, or -EINVAL with the reason in err.
 */
MSIM_API int msim_race_settings_apply(struct msim_config *cfg, const char *settings, char *err,
				      size_t errlen);

/* ---- running a race ---- */

#define MSIM_RACE_OWN_BUDGET ((unsigned int)-1)

struct msim_race_opts {
	enum msim_strategy strategy;   /* SCRIPT, RANDOM, PCT, DFS or REPLAY */
	unsigned int runs;             /* 0: the race's budget */
	uint64_t seed;                 /* run i of random/PCT uses seed + i */
	unsigned int depth;            /* PCT depth; 0: the race's */
	unsigned int preemptions;      /* DFS bound; MSIM_RACE_OWN_BUDGET: the race's */
	const char *schedule;          /* REPLAY */
	unsigned int cpus;             /* 0: the configuration's */
	bool stop_at_first;
	bool concurrent;               /* run the race's concurrent flavour instead */
	const struct msim_race_side *side;  /* the side run (its arg and verdict); NULL: none */
	/* Explorers: msim_explore_opts' fresh_stacks, on_run and on_run_arg. */
	bool fresh_stacks;
	void (*on_run)(const struct msim_explore_run *run, void *arg);
	void *on_run_arg;
	bool fingerprint;              /* msim_explore_opts.fingerprint */
	/*
	 * Sharding (random and PCT only): shard_count > 1 runs only shard
	 * shard_index of the runs, a contiguous block of them (see
	 * msim_race_shard_range). Run i uses seed + i whichever shard runs it, so
	 * msim_race_merge() of all shards equals the single-process run.
	 */
	unsigned int shard_index, shard_count;
};

/* Defaults: strategy s, seed 0, the race's budget, no side. */
MSIM_API void msim_race_opts_init(struct msim_race_opts *o, enum msim_strategy s);

struct msim_race_result {
	const char *race;
	const struct msim_race_side *side;
	enum msim_strategy strategy;
	struct msim_config cfg;            /* the configuration the run used */
	struct msim_explore_result ex;     /* explorers (a script counts as one run) */
	struct msim_race_report rep;       /* a script's figures and notes */
	bool expected_violation;
	bool behaved_as_expected;
	/*
	 * The run was not the one asked for (a replay that diverged from its
	 * string, MSIM_SCHEDULE in place of the strategy): outcome says what
	 * happened, and there is no verdict (behaved_as_expected is false).
	 */
	bool no_verdict;
	bool script_replays;               /* the race's flag of the same name */
	bool concurrent;                   /* ran the concurrent flavour */
	bool own_budget;                   /* runs and preemptions were the race's */
	char outcome[256];                 /* one line */
	uint64_t seed;
	char variants[MSIM_VARIANTS_STRLEN];
	/* A shard's place: runs [first_run, first_run + ex.runs) of runs_total. count 0: not a shard. */
	struct msim_race_shard {
		unsigned int index, count, first_run, runs_total;
	} shard;
};

/*
 * Run r under base (deterministic mode is forced) with o. Returns 0 and fills
 * res (see behaved_as_expected), or a negative errno with the reason in err: a
 * configuration the race refuses, a schedule that is not one of this race, no
 * script to run. res is large: allocate it.
 */
MSIM_API int msim_race_run(const struct msim_race *r, const struct msim_config *base,
			   const struct msim_race_opts *o, struct msim_race_result *res,
			   char *err, size_t errlen);

/* Run side (by name) of r: the default configuration plus the side's settings. */
MSIM_API int msim_race_run_side(const struct msim_race *r, const char *side,
				const struct msim_race_opts *o, struct msim_race_result *res,
				char *err, size_t errlen);

/* Replay schedule on r under cfg (a result's cfg replays its run): one run. */
MSIM_API int msim_race_replay(const struct msim_race *r, const struct msim_config *cfg,
			      const struct msim_race_side *side, const char *schedule,
			      struct msim_race_result *res, char *err, size_t errlen);

/*
 * Minimize schedule, a failing schedule of r on side under base (the race's
 * configuration is applied as msim_race_run does): msim_explore_minimize()
 * (explore.h) on the race's target. Returns 0 and fills res; -ESRCH with the
 * reason in err when the schedule does not fail; -EPROTO when its replay
 * diverged; -EINVAL for a bad schedule or configuration.
 */
MSIM_API int msim_race_minimize(const struct msim_race *r, const struct msim_config *base,
				const struct msim_race_side *side, const char *schedule,
				struct msim_minimize_result *res, char *err, size_t errlen);

/*
 * Check res (a run of r on res->side) against what the side states: the verdict
 * and the race's expect() agree with it; a script reaches its exact figures and
 * notes; an explorer on the bug side finds the violation, with the side's reason,
 * and its schedule replays to the identical trace hash, schedule and reason; on
 * the fix side it finds none (and with the race's own DFS budget, the side's DFS
 * figures). Returns 0, -EINVAL for a result without a side, or -EDOM with the
 * first difference in err.
 */
MSIM_API int msim_race_verify(const struct msim_race *r, const struct msim_race_result *res,
			      char *err, size_t errlen);

/* ---- sharding: one exploration over several processes or machines ---- */

/*
 * Parse "I/N" (0 <= I < N <= 65536) into index and count. Returns 0, or -EINVAL
 * with the reason in err.
 */
MSIM_API int msim_race_shard_parse(const char *s, unsigned int *index, unsigned int *count,
				   char *err, size_t errlen);

/* The runs of shard index of count over runs_total: [*first, *first + *n). */
MSIM_API void msim_race_shard_range(unsigned int runs_total, unsigned int index,
				    unsigned int count, unsigned int *first, unsigned int *n);

/*
 * Combine the results of every shard of one exploration (any order) into out,
 * as one process running all the runs would have reported it: runs and
 * violations summed, the first violation the one with the lowest run number
 * (its seed, schedule, trace hash and reason), seconds summed (CPU time). With
 * stop_at_first each shard stopped at its own first violation, so only the runs
 * count differs from a single process. Returns 0, or -EINVAL with the reason in
 * err: shards of different explorations, a shard missing or given twice.
 */
MSIM_API int msim_race_merge(const struct msim_race_result *const *parts, size_t n,
			     struct msim_race_result *out, char *err, size_t errlen);

/*
 * One shard's result read back from the JSON object (len bytes of text) that
 * msim_race_print_json() printed for it. Strict: every key the printer always
 * writes must be present with its type and in its range, the figures must agree
 * (violations <= runs, a first violation exactly when there are violations, in
 * the shard's block), a schedule has only schedule characters (one too long to
 * keep is marked schedule_truncated), and expected_violation and
 * behaved_as_expected must follow from the configuration and figures. Seeds
 * above 2^63 - 1 are strings of decimal digits. Returns 0, or -EINVAL with the
 * reason in err (which may quote the file: print it escaped).
 */
MSIM_API int msim_race_shard_from_json(const char *text, size_t len,
				       struct msim_race_result *res, char *err, size_t errlen);

/* ---- printing ---- */

/* One JSON object: race, strategy, runs, violations, schedule, outcome, figures. */
MSIM_API void msim_race_print_json(FILE *f, const struct msim_race_result *res);
/* The narrative, figures, verdict and how to replay it, for a person. */
MSIM_API void msim_race_print_text(FILE *f, const struct msim_race_result *res);
/*
 * text for a terminal: every byte outside printable ASCII but newline and tab
 * (escape sequences, other control characters, bytes of other encodings) as
 * \xNN, so text read from a file cannot drive the terminal.
 */
MSIM_API void msim_race_print_escaped(FILE *f, const char *text);
/* s as a JSON string, quoted and escaped. */
MSIM_API void msim_json_str(FILE *f, const char *s);

/* ---- the run as a timeline (Chrome / Perfetto trace-event JSON) ---- */

/*
 * Take res's run of r again (its script, or a replay of its schedule: runs are
 * deterministic) and write it to f as Chrome trace-event JSON, which
 * ui.perfetto.dev and chrome://tracing open: per host one process, per CPU one
 * track with the slices of the tasks that ran there (interrupt contexts, when the
 * scheduler runs them, as slices of category "irq"; each slice names the yield
 * points it started from and stopped at), an RCU track with each grace period as
 * a span, a counter track per counter the race declared with
 * msim_race_trace_counter, and one instant event (category "finding") with the
 * run's outcome at its last step. One scheduler step is one microsecond of the
 * timeline (ts is in microseconds, as the trace-event format and Perfetto read
 * it): the model has an order, not durations. Returns 0, -EINVAL (a concurrent
 * run, or a schedule too long to keep), -EDOM (the run taken again did not follow
 * res's schedule), -ENOMEM or -EIO, with the reason in err.
 */
MSIM_API int msim_race_trace(const struct msim_race *r, const struct msim_race_result *res,
			     FILE *f, char *err, size_t errlen);

/* msim_race_trace_flags: also an instant at every yield point and RCU engine step. */
#define MSIM_RACE_TRACE_POINTS 0x1u

/* msim_race_trace with flags (MSIM_RACE_TRACE_POINTS); -EINVAL on an unknown flag. */
MSIM_API int msim_race_trace_flags(const struct msim_race *r,
				   const struct msim_race_result *res, FILE *f,
				   unsigned int flags, char *err, size_t errlen);

/*
 * Declare a counter of host m the trace shows as a track: read(arg) is sampled
 * after every step (in the driver: it must not yield or change the model). A race
 * declares what its check reads, from its setup or script; outside
 * msim_race_trace this does nothing.
 */
MSIM_API void msim_race_trace_counter(struct msim *m, const char *name,
				      long (*read)(void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_RACE_H */
