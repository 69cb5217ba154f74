/* SPDX-License-Identifier: MIT */
/*
 * bench_util.h - helpers shared by the bench engines (bench/bench_*.c): the
 * common options (--help, --json, --quick, --reps, --seed, --preset, --variant,
 * parsed with bench_args.h beside each engine's own table), timing, medians and
 * ratios, designs alternated in one process, progress lines on stderr, and a
 * streaming JSON writer on Jansson. Verdicts are in bench_verdict.h.
 *
 * Benches are programs, not tests (docs/design.md): timings are printed,
 * never asserted. What the timings measure is the model's own work on this
 * machine, not the kernel's: every engine says so in its output.
 */
#ifndef MSIM_BENCH_UTIL_H
#define MSIM_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <memcgsim/variants.h>

#include "bench_args.h"

/* ---- arguments ---- */

/*
 * Every bench takes the common options (--help, --json, --quick, --reps, --seed,
 * --preset, --variant) and its own, given as a bench_args.h table.
 */
struct msim_bench_spec {
	const char *name;               /* "rstat-propagate" */
	const char *summary;            /* one line */
	const char *description;        /* paragraphs printed by --help (may be NULL) */
	unsigned int default_reps;
	unsigned int quick_reps;
	const struct msim_arg *options; /* engine options, ended by MSIM_OPT_END, or NULL */
};

struct msim_bench_args {
	bool json;
	bool quick;
	unsigned int reps;
	uint64_t seed;
	/*
	 * The base every host config of the bench starts from (cfg.variants =
	 * variants): mainline, then --preset NAME, then each --variant NAME=VALUE in
	 * command-line order, wherever the --preset stands. An engine overrides only
	 * the variant its designs compare.
	 */
	struct msim_variants variants;
};

/*
 * Parse argv (argv[0] is the bench name) into out and the engine table's
 * destinations. Returns 0 to run, 1 when --help was printed (exit 0), 2 on a
 * usage error (message and usage line on stderr; exit 2): msim_args_exit_status()
 * maps 1 and 2 to the exit status. An unknown preset, variant or value is a usage
 * error whose message (written by msim_preset_apply / msim_variant_set) lists the
 * valid names.
 */
int msim_bench_parse_args(const struct msim_bench_spec *spec, int argc, char **argv,
			  struct msim_bench_args *out);

/* "rstat-propagate=break,..." of a bench's base variants, for its output. */
const char *msim_bench_variants_str(const struct msim_bench_args *a, char *buf, size_t len);

/*
 * Text output: "base variants (note): rstat-propagate=break,...", then a blank
 * line; note says which variant the engine sets per design.
 */
void msim_bench_print_base_variants(const struct msim_bench_args *a, const char *note);

/*
 * Destroy host m (NULL: nothing) after making it current: a bench alternates
 * several hosts in one process, and the teardown's hooks act on the current one.
 */
struct msim;
void msim_bench_host_destroy(struct msim *m);

/* ---- time and statistics ---- */

uint64_t msim_bench_now_ns(void);           /* CLOCK_MONOTONIC */
/*
 * CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID): for single-threaded
 * measurements on a shared machine, it leaves out the time other processes run.
 */
uint64_t msim_bench_cpu_ns(void);
double msim_bench_median(const double *v, size_t n);
double msim_bench_min(const double *v, size_t n);
double msim_bench_max(const double *v, size_t n);
/* (value - base) / base * 100; 0 when base is 0. */
double msim_bench_pct(double value, double base);
/* value / base; 0 when base is 0. */
double msim_bench_ratio(double value, double base);
/* Relative spread of samples: median absolute deviation / median, in percent. */
double msim_bench_noise_pct(const double *v, size_t n);
/*
 * The noise of a change between repeated runs: the change of b against a in
 * percent per repetition (a[i], b[i] measured side by side), and the median
 * absolute deviation of those changes, in percentage points.
 */
double msim_bench_paired_noise_pct(const double *a, const double *b, size_t n);

/* ---- designs alternated in one process ---- */

/*
 * One measurement of design d in repetition rep; returns the figure (e.g.
 * operations per second). Called reps x ndesigns times; repetition r runs the
 * designs in rotated order (r, r+1, ... mod ndesigns) so no design always runs
 * first or last. samples[d * reps + rep] receives each figure.
 */
typedef double (*msim_bench_sample_fn)(unsigned int design, unsigned int rep, void *ctx);

struct msim_bench_progress;
void msim_bench_alternate(unsigned int ndesigns, unsigned int reps, msim_bench_sample_fn fn,
			  void *ctx, double *samples, struct msim_bench_progress *progress);

/* ---- progress on stderr ---- */

/*
 * Prints "[name] message (elapsed s)" on stderr, but only once the run has
 * taken more than a second, and at most twice a second, so quick runs stay
 * silent. Disabled entirely when enabled is false.
 */
struct msim_bench_progress {
	const char *name;
	uint64_t start_ns;
	uint64_t last_ns;
	bool enabled;
	bool printed;
};
void msim_bench_progress_init(struct msim_bench_progress *p, const char *name, bool enabled);
void msim_bench_progress(struct msim_bench_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void msim_bench_progress_done(struct msim_bench_progress *p);

/* ---- JSON writer ---- */

/*
 * A streaming writer on Jansson (src/race/json_internal.h says why Jansson): the
 * calls build the value, and each top-level value is written to f, compact, when
 * it is complete (its last container closes). Doubles print as "%.10g".
 */
#define MSIM_JSON_MAX_DEPTH 32
struct json_t;
struct msim_json {
	FILE *f;
	int depth;                                 /* containers open */
	int skipped;                               /* containers opened past the maximum depth */
	struct json_t *open[MSIM_JSON_MAX_DEPTH];  /* open[0] is the top-level value */
};

/* Containers: key is NULL inside arrays and for the top-level value. */
void msim_json_init(struct msim_json *j, FILE *f);
void msim_json_obj_begin(struct msim_json *j, const char *key);
void msim_json_obj_end(struct msim_json *j);
void msim_json_arr_begin(struct msim_json *j, const char *key);
void msim_json_arr_end(struct msim_json *j);
void msim_json_kstr(struct msim_json *j, const char *key, const char *v);
void msim_json_kint(struct msim_json *j, const char *key, long long v);
void msim_json_kuint(struct msim_json *j, const char *key, unsigned long long v);
/* Non-finite doubles are written as null. */
void msim_json_kdbl(struct msim_json *j, const char *key, double v);
void msim_json_kbool(struct msim_json *j, const char *key, bool v);
/* Ends the top-level value with a newline. */
void msim_json_finish(struct msim_json *j);

struct msim_bench_args;
/*
 * Opens a bench's top-level JSON object on f with the keys every engine starts
 * with: bench, thread, measures (what the timings are), quick, reps and
 * base_variants.
 */
void msim_bench_json_begin(struct msim_json *j, FILE *f, const char *bench, const char *thread,
			   const char *measures, const struct msim_bench_args *a);

#endif /* MSIM_BENCH_UTIL_H */
