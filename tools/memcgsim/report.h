/* SPDX-License-Identifier: MIT */
/*
 * report.h - `memcgsim report`: every bench and race of the threads in one
 * command, written as DIR/index.html, DIR/report.md, the JSON of every figure and
 * gnuplot plots (report.c runs, report_doc.c writes the documents, report_plot.c
 * draws, report_threads.c says what each thread claims).
 *
 * Benches run as child processes of this same program (`memcgsim bench NAME
 * --json`), so a bench added to the registry appears without an edit here, and
 * one that fails or crashes is reported, not fatal. Races run in process through
 * the race registry. Everything the documents show is read back from the JSON
 * files with Jansson, the same files a person gets in DIR.
 */
#ifndef MSIM_TOOL_REPORT_H
#define MSIM_TOOL_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include <memcgsim/race.h>

#include "bench_registry.h"

#define REPORT_MAX_BENCHES 32
#define REPORT_MAX_RACES 64
#define REPORT_MAX_PLOTS 16
#define REPORT_MAX_SWEEPS 16
#define REPORT_OTHER "other"   /* benches and races of no thread: the model's own */
/*
 * Every file the report writes is DIR/NAME with NAME at most REPORT_NAME_MAX
 * characters ("logs/bench-NAME.log", "traces/NAME.json", ...); --out refuses a
 * DIR for which DIR/NAME would not fit in REPORT_PATH_MAX, so no name is ever cut.
 */
#define REPORT_PATH_MAX 4096
#define REPORT_NAME_MAX 160

/* A thread the report has a section for (report_threads.c). */
struct report_thread {
	const char *id;           /* "004", or REPORT_OTHER */
	const char *title;
	const char *claim;        /* what the thread claims, in a few sentences */
	const char *source;       /* its file under reference/threads, or NULL */
};
/* The known threads, ended by { NULL }; the last real one is REPORT_OTHER. */
extern const struct report_thread report_threads[];
/* The thread id a "thread" label names: the first 3-digit number in it, else REPORT_OTHER. */
void report_thread_of(const char *label, char *id, size_t len);

struct report_bench {
	const struct bench_engine *b;
	char thread[8];
	char json_path[REPORT_PATH_MAX], log_path[REPORT_PATH_MAX];
	json_t *doc;              /* the bench's --json, read back; NULL when it failed */
	int status;               /* exit status (or -1: did not start) */
	double started, seconds, cpu_seconds;
};

struct report_race {
	const struct msim_race *r;
	char thread[8];
	json_t *doc;              /* what DIR/race-NAME.json holds, read back */
	char trace_file[REPORT_NAME_MAX]; /* relative to DIR; "" when none was written */
};

/* One extra run of a bench at one x-point (report_sweep.c). */
struct report_sweep {
	const char *bench;
	unsigned int x;           /* the value of the sweep's option */
	json_t *doc;
};

struct report_plot {
	char name[64];            /* file stem under DIR/plots */
	char title[160];
	char thread[8];
	char caption[512];
	bool drawn;               /* gnuplot made its SVG and PNG */
	bool of_races;            /* about the explorers: shown with the races, not the answers */
	char why_not[256];        /* when not drawn */
};

struct report {
	const char *out;          /* DIR */
	bool quick;
	const char *only_thread;  /* --thread: normalised id, or NULL */
	bool gnuplot;             /* gnuplot was found */
	char gnuplot_version[64];
	struct report_bench benches[REPORT_MAX_BENCHES];
	unsigned int nr_benches;
	unsigned int next_bench;  /* the next to spawn */
	int running[2];           /* bench index of each slot, -1 free */
	int pids[2];
	struct report_race races[REPORT_MAX_RACES];
	unsigned int nr_races;
	struct report_sweep sweeps[REPORT_MAX_SWEEPS];
	unsigned int nr_sweeps;
	struct report_plot plots[REPORT_MAX_PLOTS];
	unsigned int nr_plots;
	/* Per part (progress lines, report.json "parts"): wall and CPU seconds. */
	double races_seconds, races_cpu_seconds;   /* in this process */
	double sweeps_seconds, sweeps_cpu_seconds; /* first start to last end; children */
	double seconds;           /* the whole report, wall */
	double cpu_seconds;       /* its CPU time and its benches' */
	double load_before;       /* the 1-minute load average when it started */
	double started;
};

/* Progress line on stderr: "[report 12.3 s] ...". */
void report_progress(const struct report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double report_now(void);
/*
 * DIR/name in buf; NULL (and a progress line naming the file) when it does not
 * fit in len, so a caller never opens a truncated name.
 */
const char *report_path(const struct report *rep, const char *name, char *buf, size_t len);
/* Whether the report covers thread id (--thread). */
bool report_wants(const struct report *rep, const char *thread);

/*
 * Benches (report_run.c): each as `memcgsim bench NAME --json [--quick]`, two at
 * a time. start spawns the first two; poll reaps what ended and spawns the next
 * (the races call it between runs); finish waits for the rest and reads every
 * bench's JSON back. finish returns how many benches failed.
 */
void report_benches_start(struct report *rep);
/* The options the report adds to bench's own (space-separated; "" for none). */
const char *report_bench_size_args(const struct report *rep, const char *bench, char *buf,
				   size_t len);
void report_benches_poll(struct report *rep);
int report_benches_finish(struct report *rep);
/* Races (report_races.c): every side scripted, the explorers on every side, traces. */
int report_run_races(struct report *rep);
/*
 * Sweeps (report_sweep.c): the extra x-points of the plots, one bench run per
 * point, queued with the benches (report_run.c runs them in its slots). plan
 * lists the points and returns how many; cost is a point's expected CPU seconds
 * (only the order depends on it); spawn starts point i (0, or the error of
 * posix_spawn); reaped records how it ended; collect reads every point's JSON
 * back, in the points' order, and returns how many failed. report_sweep_args
 * says what a sweep's runs add to the bench's options ("--reps 1 ... --memcgs N").
 */
unsigned int report_sweep_plan(struct report *rep);
double report_sweep_cost(unsigned int i);
int report_sweep_spawn(struct report *rep, unsigned int i, int *pid);
void report_sweep_reaped(struct report *rep, unsigned int i, int wstatus, double cpu);
int report_sweeps_collect(struct report *rep);
const char *report_sweep_args(const char *bench, char *buf, size_t len);
/* Plots (report_plot.c): data files always, SVG and PNG when gnuplot is there. */
void report_plots(struct report *rep);
/* Documents (report_doc.c): index.html, report.md and report.json. */
int report_write_docs(struct report *rep);

/* `memcgsim report` (report.c). */
int msim_cli_report(int argc, char **argv);

#endif /* MSIM_TOOL_REPORT_H */
