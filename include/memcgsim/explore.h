/* SPDX-License-Identifier: MIT */
/*
 * explore.h - choosing schedules: strategies, schedule strings, replay, and the
 * explorer that runs a scenario under many schedules looking for a violation.
 *
 * In deterministic mode every yield point (yield.h) returns control to the
 * scheduler, which picks the next step. A step is either a task (it runs until
 * its next yield point, block or exit) or the RCU engine ("R": end the current
 * grace period, or run the callbacks whose grace period has ended). Recording the
 * sequence of picks gives the schedule string; feeding the same string back
 * replays the run exactly, because nothing else in deterministic mode is a source
 * of order.
 *
 * Schedule strings: picks separated by '.', each a task index (creation order
 * on the host, from 0) or 'R', optionally followed by '*count' for repetitions:
 * "0*12.1*3.R.0*5". A leading "s:" names nothing and is accepted for readability.
 * "!N" is the arrival of interrupt source N (irq.h), whose later steps are "N".
 * Under a weak memory model (sim.h msim_memory_model) "~C" makes the oldest
 * entry of CPU C's store buffer visible, "~C+K" its K-th oldest (pso only).
 */
#ifndef MEMCGSIM_EXPLORE_H
#define MEMCGSIM_EXPLORE_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- strategies ---- */

enum msim_strategy {
	MSIM_STRAT_SCRIPT = 0,  /* the driver steps tasks itself; leftovers run in order */
	MSIM_STRAT_RANDOM,      /* uniform pick among enabled steps, seeded */
	MSIM_STRAT_PCT,         /* probabilistic concurrency testing, seeded, depth d */
	MSIM_STRAT_DFS,         /* bounded exhaustive search (driven by msim_explore) */
	MSIM_STRAT_REPLAY,      /* follow a schedule string */
	MSIM_STRAT_DPOR,        /* source-DPOR: every Mazurkiewicz trace once (msim_explore) */
};

MSIM_API const char *msim_strategy_name(enum msim_strategy s);
MSIM_API int msim_strategy_parse(const char *name, enum msim_strategy *out); /* "script", ... */

struct msim_sched_opts {
	enum msim_strategy strategy;
	uint64_t seed;
	unsigned int pct_depth;      /* PCT bug depth d (>= 1) */
	unsigned int pct_steps_hint; /* expected steps per run for PCT change points */
	const char *schedule;        /* REPLAY: the string to follow */
	uint64_t max_steps;          /* a run past this many steps is cut (0: 10M) */
};

/*
 * Set the strategy of a deterministic host before msim_run(), after creating its
 * tasks (PCT gives each task a priority). The environment
 * variable MSIM_SCHEDULE, when set, overrides any strategy with REPLAY of its
 * value (so a failing test can be replayed without editing it).
 */
MSIM_API int msim_sched_set(struct msim *m, const struct msim_sched_opts *opts);

/* ---- what the run did ---- */

/* The schedule of the run so far, as a string owned by the host. */
MSIM_API const char *msim_schedule_string(struct msim *m);

/* Number of steps taken (picks made) so far, and context switches between tasks. */
MSIM_API uint64_t msim_sched_steps(const struct msim *m);
MSIM_API uint64_t msim_sched_switches(const struct msim *m);

/*
 * A hash of the run's trace: every step's pick and the yield point (or exit) at
 * which it stopped. Equal hashes mean the same trace (replay tests compare them).
 */
MSIM_API uint64_t msim_sched_trace_hash(const struct msim *m);

/* True when a REPLAY run diverged from its string (a pick was not enabled). */
MSIM_API bool msim_sched_replay_diverged(const struct msim *m);

/* The report of the last -EDEADLK: one line per blocked task (name, CPU, what). */
MSIM_API const char *msim_deadlock_report(const struct msim *m);

/*
 * Preemptions: a step that switches away from the task that ran last while it
 * could have gone on (the RCU engine's steps are none). msim_explore_result and
 * msim_minimize_result name the first MSIM_PREEMPT_LOG of them.
 */
#define MSIM_PREEMPT_LOG 16

/*
 * Under a weak memory model (sim.h) a store-buffer drain taken while the running
 * task could go on counts too, as bounded DFS counts it: to is then -2 - C for
 * a drain of CPU C's buffer.
 */
struct msim_preemption {
	uint64_t step;               /* the step index (0-based) of the switch */
	int from, to;                /* task indexes (to: -2 - C for a drain of CPU C) */
	const char *at;              /* the yield point where from was parked (static) */
};

/* ---- exploration ---- */

/*
 * A scenario for the explorer: setup() creates the tasks of one run on a fresh
 * host; check() inspects the host after the run and returns true when the
 * invariant was violated (writing a one-line why); teardown() frees what setup
 * made. state is the scenario's per-run data.
 */
struct msim_explore_target {
	const char *name;
	int (*setup)(struct msim *m, void **state, void *arg);
	bool (*check)(struct msim *m, void *state, char *why, size_t len);
	void (*teardown)(struct msim *m, void *state);
	void *arg;
};
/* A run that deadlocks counts as a violation (check() is not called for it). */

/* One explored run, as msim_explore_opts.on_run sees it. */
struct msim_explore_run {
	unsigned int run;            /* 0, 1, ... */
	uint64_t seed;               /* RANDOM/PCT: opts.seed + run */
	uint64_t trace_hash;         /* msim_sched_trace_hash() of the run */
	uint64_t steps;
	bool violated;               /* a violation (check, deadlock or step cap) */
	/* Set with msim_explore_opts.fingerprint (else 0 and ""). */
	uint64_t fingerprint;        /* what each task saw: equal for equivalent schedules */
	const char *why;             /* the violation's reason; "" when none */
	bool pruned;                 /* DPOR stopped it early: no end state, no verdict */
};

/* msim_explore_opts.preemptions: no bound (DPOR then uses sleep sets). */
#define MSIM_EXPLORE_UNBOUNDED 0xfffffffeu

struct msim_explore_opts {
	enum msim_strategy strategy; /* RANDOM, PCT, DFS or REPLAY */
	uint64_t seed;
	unsigned int runs;           /* RANDOM/PCT: runs; DFS: maximum schedules */
	unsigned int pct_depth;
	unsigned int preemptions;    /* DFS and DPOR preemption bound (or UNBOUNDED) */
	const char *schedule;        /* REPLAY */
	bool stop_at_first;          /* stop at the first violation */
	/*
	 * Map a new stack for every task, as the explorer did before it reused
	 * finished tasks' stacks: the same schedules, a third slower (the kernel's
	 * mmap, munmap and page faults). For tests and benches comparing the paths.
	 */
	bool fresh_stacks;
	/* Called after every run when set: what the run was and whether it violated. */
	void (*on_run)(const struct msim_explore_run *run, void *arg);
	void *on_run_arg;
	/*
	 * Fingerprint every run for on_run: each task's sequence of yield points
	 * and the values its shims' loads returned (pointers as NULL or not),
	 * combined with no regard to task numbering. Two schedules that differ
	 * only in the order of independent steps have equal fingerprints, so a
	 * sound reduction (DPOR) sees every fingerprint an exhaustive search (DFS,
	 * same bound) sees. Costs a store per yield point and a hash per step.
	 */
	bool fingerprint;
};

struct msim_explore_result {
	unsigned int runs;                /* runs executed */
	unsigned int violations;
	int first_violation_run;          /* -1 if none */
	uint64_t first_violation_seed;
	char schedule[4096];              /* schedule of the first violation, else of the last run */
	uint64_t trace_hash;              /* msim_sched_trace_hash() of that same run */
	char why[512];                    /* check()'s reason, or the deadlock report head */
	bool deadlocked;                  /* the first violation (or last run) deadlocked */
	bool diverged;                    /* that run did not follow its replay string */
	/*
	 * MSIM_SCHEDULE was set and made the exploration one replay of its string
	 * in place of the strategy (or the schedule) the options asked for.
	 */
	bool env_replay;
	bool schedule_truncated;          /* its schedule did not fit: not replayable */
	bool exhausted;                   /* DFS: the bounded space was fully explored;
					     DPOR: every trace of the scenario was */
	double seconds;
	/*
	 * DPOR: runs stopped early because every enabled step was asleep (each
	 * continuation equals one explored); runs - pruned ran to the end. races:
	 * reversible races found; backtracks: decisions they added.
	 */
	unsigned int pruned;
	uint64_t races, backtracks;
	/* The preemptions of the run the schedule describes. */
	unsigned int preemptions;
	struct msim_preemption preempt_log[MSIM_PREEMPT_LOG];
};

/*
 * Explore target under base (its mode must be deterministic). Returns 0, or a
 * negative errno for bad options or a setup failure.
 */
MSIM_API int msim_explore(const struct msim_explore_target *target, const struct msim_config *base,
			  const struct msim_explore_opts *opts, struct msim_explore_result *res);

/* ---- minimization ---- */

struct msim_minimize_result {
	/*
	 * The smallest failing run found: its schedule (which replays it exactly),
	 * why it fails, its preemptions and where each was (ex.preempt_log).
	 */
	struct msim_explore_result ex;
	unsigned int blocks;             /* its runs of one task ("0*11" is one) */
	unsigned int input_preemptions;  /* the input schedule's, as replayed */
	unsigned int input_blocks;
	unsigned int replays;            /* runs tried, the input's included */
	/* Bounded DFS exhausted every bound below ex.preemptions without a
	 * violation: no schedule with fewer preemptions fails. */
	bool proven;
};

/*
 * Shrink schedule, which must fail (a violation) when replayed on target, to a
 * failing schedule with the fewest preemptions the search finds (delta
 * debugging over its blocks and steps, then bounded DFS below its count;
 * explore_min.c says how). The result never has more preemptions than the input. Returns 0; -EINVAL for a
 * string that is no schedule; -EPROTO when its replay diverged (a pick not
 * enabled, the string too short or with picks left over: not the run it
 * describes) or MSIM_SCHEDULE replaced it; -ESRCH when the input does not fail;
 * or the error of a run.
 */
MSIM_API int msim_explore_minimize(const struct msim_explore_target *target,
				   const struct msim_config *base, const char *schedule,
				   struct msim_minimize_result *res);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_EXPLORE_H */
