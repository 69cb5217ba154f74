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
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

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
struct bench_spec {
	const char *name;               /* "rstat-propagate" */
	const char *summary;            /* one line */
	const char *description;        /* paragraphs printed by --help (may be NULL) */
	unsigned int default_reps;
	unsigned int quick_reps;
	const struct bench_arg *options; /* engine options, ended by BENCH_OPT_END, or NULL */
};

struct bench_opts {
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
 * usage error (message and usage line on stderr; exit 2): bench_args_exit_status()
 * maps 1 and 2 to the exit status. An unknown preset, variant or value is a usage
 * error whose message (written by msim_preset_apply / msim_variant_set) lists the
 * valid names.
 */
int bench_parse_args(const struct bench_spec *spec, int argc, char **argv,
		     struct bench_opts *out);

/*
 * A variant an engine sets per design (msim_variant_set_value()); a name or value
 * the table does not have is the engine's bug: it is reported and aborts.
 */
void bench_variant_set(struct msim_variants *v, const char *name, int value);

/* "rstat-propagate=break,..." of a bench's base variants, for its output. */
const char *bench_variants_str(const struct bench_opts *a, char *buf, size_t len);

/*
 * Text output: "base variants (note): rstat-propagate=break,...", then a blank
 * line; note says which variant the engine sets per design.
 */
void bench_print_base_variants(const struct bench_opts *a, const char *note);

/*
 * Destroy host m (NULL: nothing) after making it current: a bench alternates
 * several hosts in one process, and the teardown's hooks act on the current one.
 */
struct msim;
void bench_host_destroy(struct msim *m);

/* ---- time and statistics ---- */

uint64_t bench_now_ns(void);                /* CLOCK_MONOTONIC */
/*
 * CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID): for single-threaded
 * measurements on a shared machine, it leaves out the time other processes run.
 */
uint64_t bench_cpu_ns(void);
double bench_median(const double *v, size_t n);
double bench_min(const double *v, size_t n);
double bench_max(const double *v, size_t n);
/* (value - base) / base * 100; 0 when base is 0. */
double bench_pct(double value, double base);
/* value / base; 0 when base is 0. */
double bench_ratio(double value, double base);
/* Relative spread of samples: median absolute deviation / median, in percent. */
double bench_noise_pct(const double *v, size_t n);
/*
 * The noise of a change between repeated runs: the change of b against a in
 * percent per repetition (a[i], b[i] measured side by side), and the median
 * absolute deviation of those changes, in percentage points.
 */
double bench_paired_noise_pct(const double *a, const double *b, size_t n);

/* ---- designs alternated in one process ---- */

/*
 * One measurement of design d in repetition rep; returns the figure (e.g.
 * operations per second). Called reps x ndesigns times; repetition r runs the
 * designs in rotated order (r, r+1, ... mod ndesigns) so no design always runs
 * first or last. samples[d * reps + rep] receives each figure.
 */
typedef double (*bench_sample_fn)(unsigned int design, unsigned int rep, void *ctx);

struct bench_progress;
void bench_alternate(unsigned int ndesigns, unsigned int reps, bench_sample_fn fn,
		     void *ctx, double *samples, struct bench_progress *progress);

/* ---- progress on stderr ---- */

/*
 * Prints "[name] message (elapsed s)" on stderr, but only once the run has
 * taken more than a second, and at most twice a second, so quick runs stay
 * silent. Disabled entirely when enabled is false.
 */
struct bench_progress {
	const char *name;
	uint64_t start_ns;
	uint64_t last_ns;
	bool enabled;
	bool printed;
};
void bench_progress_init(struct bench_progress *p, const char *name, bool enabled);
void bench_progress(struct bench_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bench_progress_done(struct bench_progress *p);

/* ---- JSON writer ---- */

/*
 * A streaming writer on Jansson (src/race/json_internal.h says why Jansson): the
 * calls build the value, and each top-level value is written to f, compact, when
 * it is complete (its last container closes). Doubles print as "%.10g".
 */
#define BENCH_JSON_MAX_DEPTH 32
struct json_t;
struct bench_json {
	FILE *f;
	int depth;                                 /* containers open */
	int skipped;                               /* containers opened past the maximum depth */
	struct json_t *open[BENCH_JSON_MAX_DEPTH]; /* open[0] is the top-level value */
};

/* Containers: key is NULL inside arrays and for the top-level value. */
void bench_json_init(struct bench_json *j, FILE *f);
void bench_json_obj_begin(struct bench_json *j, const char *key);
void bench_json_obj_end(struct bench_json *j);
void bench_json_arr_begin(struct bench_json *j, const char *key);
void bench_json_arr_end(struct bench_json *j);
void bench_json_kstr(struct bench_json *j, const char *key, const char *v);
void bench_json_kint(struct bench_json *j, const char *key, long long v);
void bench_json_kuint(struct bench_json *j, const char *key, unsigned long long v);
/* Non-finite doubles are written as null. */
void bench_json_kdbl(struct bench_json *j, const char *key, double v);
void bench_json_kbool(struct bench_json *j, const char *key, bool v);
/* Ends the top-level value with a newline. */
void bench_json_finish(struct bench_json *j);

struct bench_opts;
/*
 * Opens a bench's top-level JSON object on f with the keys every engine starts
 * with: bench, thread, measures (what the timings are), quick, reps and
 * base_variants.
 */
void bench_json_begin(struct bench_json *j, FILE *f, const char *bench, const char *thread,
		      const char *measures, const struct bench_opts *a);

#endif /* BENCH_UTIL_H */
