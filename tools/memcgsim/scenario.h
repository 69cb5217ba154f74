/* SPDX-License-Identifier: MIT */
/*
 * scenario.h - race scenarios and bench engines, shared by the memcgsim command,
 * the bench programs and the race tests.
 *
 * A scenario file in tools/memcgsim/scenarios/ defines one struct msim_scenario
 * and registers it with MSIM_SCENARIO(var); a bench engine in bench/bench_*.c
 * defines one struct msim_bench and registers it with MSIM_BENCH(var). Nothing
 * else needs editing: the build globs both folders.
 */
#ifndef MSIM_TOOL_SCENARIO_H
#define MSIM_TOOL_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <memcgsim/memcgsim.h>

/* Key figures a scenario reports (printed, and added to --json). */
#define MSIM_SCN_MAX_FIGS 32
struct msim_scn_fig {
	const char *key;
	enum { MSIM_FIG_INT, MSIM_FIG_BOOL, MSIM_FIG_STR, MSIM_FIG_DOUBLE } type;
	long long i;
	double d;
	char s[128];
};

struct msim_scn_report {
	unsigned int nr_figs;
	struct msim_scn_fig figs[MSIM_SCN_MAX_FIGS];
	char schedule[4096];   /* scripted runs: the schedule the script produced */
	char trace[8192];      /* optional human-readable narrative */
	bool violated;         /* the bad state was reached */
};

void msim_scn_fig_int(struct msim_scn_report *r, const char *key, long long v);
void msim_scn_fig_bool(struct msim_scn_report *r, const char *key, bool v);
void msim_scn_fig_str(struct msim_scn_report *r, const char *key, const char *v);
void msim_scn_fig_double(struct msim_scn_report *r, const char *key, double v);
/* Append a formatted line to r->trace. */
void msim_scn_trace(struct msim_scn_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct msim_scenario {
	const char *name;
	const char *summary;     /* one line */
	const char *thread;      /* "toy", "004", "001", ... */
	/* Budget the explorers get by default (also the budget the tests state). */
	unsigned int default_runs;        /* random and PCT */
	unsigned int default_depth;       /* PCT */
	unsigned int default_preemptions; /* DFS */
	unsigned int default_dfs_runs;    /* DFS schedule cap */
	/*
	 * Adjust the configuration (CPUs, variants) for this scenario; called once
	 * before exploring or scripting. May be NULL. Return -EINVAL (and a message
	 * in err) for a configuration the scenario cannot run.
	 */
	int (*configure)(struct msim_config *cfg, char *err, size_t errlen);
	/* True when, under cfg's variants, the bad state is expected to be reachable. */
	bool (*expect_violation)(const struct msim_config *cfg);
	/* The explorer's view: setup/check/teardown of one run. */
	struct msim_explore_target target;
	/*
	 * The thread's narrative under the scripted schedule. Fills rep (figures,
	 * schedule, violated). Returns 0, or a negative errno if it could not run.
	 */
	int (*script)(const struct msim_config *cfg, struct msim_scn_report *rep);
	/*
	 * True when the script's tasks are exactly those target.setup() creates, so
	 * the script's schedule string replays on the explorer target. Scenarios
	 * whose narrative needs a longer workload than the explorer's leave it false,
	 * and the command then prints the scripted schedule without a replay hint.
	 */
	bool script_replays;
	/*
	 * What `memcgsim demo` shows: variant settings ("NAME=VALUE,...", "" for the
	 * configuration as given), typically the side with the bug and the side with
	 * the fix. NULL-terminated; none means one run as given.
	 */
	const char *demo_sides[5];
	/* Optional: scenario's own concurrent-mode run (stress flavour). */
	int (*concurrent)(const struct msim_config *cfg, struct msim_scn_report *rep);
};

/* ---- helpers for a scenario's script ---- */

/* A host for a scripted run: created from cfg and made the current host. */
int msim_scn_host_new(const struct msim_config *cfg, struct msim **out);

/*
 * For a configure hook: 0 when cfg has at least n CPUs, else -EINVAL and
 * "NAME needs at least n CPUs" in err.
 */
int msim_scn_need_cpus(const struct msim_config *cfg, unsigned int n, const char *name,
		       char *err, size_t errlen);

/* A script's narrative on the host and state s->target.setup() made. */
typedef int (*msim_scn_body_fn)(struct msim *m, void *state, struct msim_scn_report *rep);

/*
 * The usual script: a host (msim_scn_host_new), s->target.setup(m, &state,
 * NULL), body, the host's schedule string into rep->schedule (when body returned
 * 0), s->target.teardown, msim_destroy. Returns 0, or the first negative errno of
 * the host, setup or body.
 */
int msim_scn_script_run(const struct msim_scenario *s, const struct msim_config *cfg,
			msim_scn_body_fn body, struct msim_scn_report *rep);

void msim_scenario_register(const struct msim_scenario *s);
const struct msim_scenario *msim_scenario_find(const char *name);
/* Registered scenarios in name order; returns the count. */
size_t msim_scenario_list(const struct msim_scenario **out, size_t max);

#define MSIM_SCENARIO(var)                                                   \
	__attribute__((constructor)) static void msim_register_##var(void)   \
	{                                                                    \
		msim_scenario_register(&(var));                              \
	}

/*
 * A bench engine: main() takes the arguments after "memcgsim bench NAME" (argv[0]
 * is the bench name) and returns an exit code (0, 1 on failure, 2 on usage).
 */
struct msim_bench {
	const char *name;      /* "shrinker-units" */
	const char *summary;
	int (*main)(int argc, char **argv);
};

void msim_bench_register(const struct msim_bench *b);
const struct msim_bench *msim_bench_find(const char *name);
size_t msim_bench_list(const struct msim_bench **out, size_t max);
/* For bench/<name>.c programs: run the engine registered as name. */
int msim_bench_main(const char *name, int argc, char **argv);
/* Run b, then print the simulator's wall time and peak RSS on stderr. */
int msim_bench_run(const struct msim_bench *b, int argc, char **argv);

#define MSIM_BENCH(var)                                                      \
	__attribute__((constructor)) static void msim_register_bench_##var(void) \
	{                                                                    \
		msim_bench_register(&(var));                                 \
	}

/* ---- running a scenario (what `memcgsim race` does) ---- */

struct msim_race_opts {
	enum msim_strategy strategy;   /* SCRIPT, RANDOM, PCT, DFS, REPLAY */
	unsigned int runs;             /* 0: scenario default */
	uint64_t seed;
	unsigned int depth;            /* 0: scenario default */
	unsigned int preemptions;      /* (unsigned)-1: scenario default */
	const char *schedule;          /* REPLAY */
	unsigned int cpus;             /* 0: scenario/config default */
	bool stop_at_first;
	bool concurrent;               /* run the scenario's concurrent flavour instead */
};

struct msim_race_result {
	const char *race;
	enum msim_strategy strategy;
	struct msim_explore_result ex;     /* explorers (and script: runs 1) */
	struct msim_scn_report rep;        /* script figures */
	bool expected_violation;
	bool behaved_as_expected;
	bool script_replays;               /* the scenario's flag of the same name */
	bool concurrent;                   /* ran the concurrent flavour */
	char outcome[256];                 /* one line */
	uint64_t seed;
	char variants[512];
};

/* Run; returns 0 (see result), or a negative errno for bad options (message in err). */
int msim_race_run(const struct msim_scenario *s, const struct msim_config *cfg,
		  const struct msim_race_opts *o, struct msim_race_result *res,
		  char *err, size_t errlen);

/* Print the result as one JSON object (race, strategy, runs, violations, ...). */
void msim_race_print_json(FILE *f, const struct msim_race_result *res);
void msim_race_print_text(FILE *f, const struct msim_race_result *res);

/* JSON string escaping helper for engines that print JSON. */
void msim_json_str(FILE *f, const char *s);

#endif /* MSIM_TOOL_SCENARIO_H */
