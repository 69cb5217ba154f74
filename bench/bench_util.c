/* SPDX-License-Identifier: MIT */
/*
 * bench_util.c - shared bench helpers (see bench_util.h). Generic: nothing here
 * knows a subsystem.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "bench_util.h"
#include "bench_registry.h"

/* ---- arguments ---- */

#define MAX_VARIANT_ARGS 64

/* Every layer's variant rows and the presets (memcgsim list --variants has meanings). */
static void usage_variants(FILE *f, void *ctx)
{
	const struct msim_variant_desc *rows[MSIM_MAX_VARIANTS];
	unsigned int nrows = msim_variant_list(rows, MSIM_MAX_VARIANTS);

	(void)ctx;
	fprintf(f, "\nvariants (value 0 is mainline; memcgsim list --variants):\n");
	for (unsigned int r = 0; r < nrows; r++) {
		const struct msim_variant_desc *d = rows[r];

		fprintf(f, "  %-22s", d->name);
		for (int i = 0; d->values[i]; i++)
			fprintf(f, "%s%s", i ? " | " : " ", d->values[i]);
		fputc('\n', f);
	}
	fprintf(f, "presets:");
	for (const struct msim_preset_desc *p = msim_preset_table(); p->name; p++)
		fprintf(f, " %s", p->name);
	fputc('\n', f);
}

const char *bench_variants_str(const struct bench_opts *a, char *buf, size_t len)
{
	msim_variants_format(&a->variants, buf, len);
	return buf;
}

/* The common options' destinations, and their help texts that name the bench's defaults. */
struct bench_cli {
	struct bench_opts *out;
	const char *preset;
	const char *variant_items[MAX_VARIANT_ARGS];
	struct bench_arg_list variants;
	char quick_help[80], reps_help[80];
	struct bench_arg table[8];
};

/*
 * --preset first (it resets every variant), then the --variant assignments in
 * order, so "--variant X=Y --preset P" keeps X=Y. The messages listing the valid
 * names come from msim_preset_apply / msim_variant_set.
 */
static int apply_variants(void *ctx, char *err, size_t errlen)
{
	struct bench_cli *c = ctx;
	struct msim_variants *v = &c->out->variants;

	msim_variants_init(v);
	if (c->preset && msim_preset_apply(v, c->preset, err, errlen))
		return -EINVAL;
	for (unsigned int i = 0; i < c->variants.n; i++)
		if (msim_variant_set(v, c->variants.items[i], err, errlen))
			return -EINVAL;
	return 0;
}

static void common_options(struct bench_cli *c, const struct bench_spec *spec)
{
	struct bench_opts *o = c->out;

	snprintf(c->quick_help, sizeof(c->quick_help), "small sizes for smoke tests (%u repetitions)",
		 spec->quick_reps);
	snprintf(c->reps_help, sizeof(c->reps_help), "repetitions per design (default %u)",
		 spec->default_reps);
	c->variants = (struct bench_arg_list){ .items = c->variant_items, .max = MAX_VARIANT_ARGS };
	const struct bench_arg table[] = {
		BENCH_OPT_HELP(),
		BENCH_OPT_FLAG("--json", &o->json, "one JSON object on stdout instead of the table"),
		BENCH_OPT_FLAG("--quick", &o->quick, c->quick_help),
		BENCH_OPT_UINT("--reps", "N", &o->reps, 1, 100000, c->reps_help),
		BENCH_OPT_U64("--seed", "N", &o->seed, 0, UINT64_MAX,
			      "seed of every seeded choice (default 1)"),
		BENCH_OPT_STRING("--preset", "NAME", &c->preset,
				 "start every host from this variant preset (default mainline)"),
		BENCH_OPT_LIST("--variant", "NAME=VALUE", &c->variants,
			       "set one variant of every host (repeatable, applied after --preset);\n"
			      "the variant a bench compares is set per design"),
		BENCH_OPT_END,
	};
	_Static_assert(sizeof(table) == sizeof(c->table), "common option table size");
	memcpy(c->table, table, sizeof(table));
}

static struct bench_args common_args_spec(struct bench_cli *c, const struct bench_spec *spec)
{
	return (struct bench_args){
		.prog = spec->name,
		.summary = spec->summary,
		.description = spec->description,
		.tables = { c->table, spec->options },
		.check = apply_variants,
		.ctx = c,
		.epilog = usage_variants,
	};
}

int bench_parse_args(const struct bench_spec *spec, int argc, char **argv,
		     struct bench_opts *out)
{
	struct bench_cli c = { .out = out };
	struct bench_args a;
	int ret;

	memset(out, 0, sizeof(*out));
	msim_variants_init(&out->variants);
	out->seed = 1;
	common_options(&c, spec);
	a = common_args_spec(&c, spec);
	ret = bench_args_parse_main(&a, argc, argv);
	if (ret)
		return ret;
	/* --reps is at least 1 when given: 0 means "not given". */
	if (!out->reps)
		out->reps = out->quick ? spec->quick_reps : spec->default_reps;
	if (!out->reps)
		out->reps = 1;
	return 0;
}

void bench_variant_set(struct msim_variants *v, const char *name, int value)
{
	if (msim_variant_set_value(v, name, value)) {
		fprintf(stderr, "bench: no variant %s with a value %d\n", name, value);
		abort();
	}
}

void bench_print_base_variants(const struct bench_opts *a, const char *note)
{
	char vbuf[512];

	printf("base variants (%s): %s\n\n", note, bench_variants_str(a, vbuf, sizeof(vbuf)));
}

void bench_host_destroy(struct msim *m)
{
	if (!m)
		return;
	msim_set_current_host(m);
	msim_destroy(m);
}

/* ---- time and statistics ---- */

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(const double *v, size_t n)
{
	double *t, m;

	if (!n)
		return 0;
	t = malloc(n * sizeof(*t));
	if (!t)
		return v[0];
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	free(t);
	return m;
}

double bench_min(const double *v, size_t n)
{
	double m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double bench_max(const double *v, size_t n)
{
	double m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

double bench_pct(double value, double base)
{
	return base != 0 ? (value - base) / base * 100.0 : 0;
}

double bench_ratio(double value, double base)
{
	return base != 0 ? value / base : 0;
}

double bench_noise_pct(const double *v, size_t n)
{
	double med = bench_median(v, n), *dev = malloc(n * sizeof(*dev)), mad;

	if (!dev || med == 0) {
		free(dev);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(v[i] - med);
	mad = bench_median(dev, n);
	free(dev);
	return mad / med * 100.0;
}

double bench_paired_noise_pct(const double *a, const double *b, size_t n)
{
	double *pct = malloc(n * sizeof(*pct)), med, mad;

	if (!pct || !n) {
		free(pct);
		return NAN;
	}
	for (size_t i = 0; i < n; i++)
		pct[i] = bench_pct(b[i], a[i]);
	med = bench_median(pct, n);
	for (size_t i = 0; i < n; i++)
		pct[i] = fabs(pct[i] - med);
	mad = bench_median(pct, n);
	free(pct);
	return mad;
}

/* ---- alternation ---- */

void bench_alternate(unsigned int ndesigns, unsigned int reps, bench_sample_fn fn,
		     void *ctx, double *samples, struct bench_progress *progress)
{
	for (unsigned int r = 0; r < reps; r++) {
		for (unsigned int k = 0; k < ndesigns; k++) {
			unsigned int d = (r + k) % ndesigns;

			samples[d * reps + r] = fn(d, r, ctx);
		}
		if (progress)
			bench_progress(progress, "repetition %u/%u done", r + 1, reps);
	}
}

/* ---- progress ---- */

void bench_progress_init(struct bench_progress *p, const char *name, bool enabled)
{
	p->name = name;
	p->start_ns = p->last_ns = bench_now_ns();
	p->enabled = enabled;
	p->printed = false;
}

void bench_progress(struct bench_progress *p, const char *fmt, ...)
{
	uint64_t now = bench_now_ns();
	va_list ap;

	if (!p || !p->enabled || now - p->start_ns < 1000000000ULL ||
	    (p->printed && now - p->last_ns < 500000000ULL))
		return;
	p->last_ns = now;
	p->printed = true;
	fprintf(stderr, "[%s] ", p->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%.1f s)\n", (double)(now - p->start_ns) / 1e9);
}

void bench_progress_done(struct bench_progress *p)
{
	if (p && p->enabled && p->printed)
		fprintf(stderr, "[%s] done in %.1f s\n", p->name,
			(double)(bench_now_ns() - p->start_ns) / 1e9);
}

/* ---- JSON (Jansson) ---- */

#define BENCH_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(10) | JSON_ENCODE_ANY | \
			  JSON_PRESERVE_ORDER)

/*
 * s as a JSON string (NULL: null); bytes that are not valid UTF-8, which Jansson
 * refuses, become '?'. The library's race printer does the same in its own
 * writer: bench/ uses Jansson and the public API only.
 */
static json_t *json_str_or_null(const char *s)
{
	json_t *v = s ? json_string(s) : json_null();
	char *copy;

	if (v || !s || !(copy = strdup(s)))
		return v;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

/*
 * v as "%.10g" prints it: a value that prints as an integer is a JSON integer
 * (Jansson would add ".0" to a real); non-finite values are null.
 */
static json_t *json_num_or_null(double v)
{
	char buf[64], *end;
	long long i;

	if (!isfinite(v))
		return json_null();
	snprintf(buf, sizeof(buf), "%.10g", v);
	if (!strpbrk(buf, ".eE") && strcmp(buf, "-0")) {
		i = strtoll(buf, &end, 10);
		if (!*end)
			return json_integer(i);
	}
	return json_real(v);
}

void bench_json_init(struct bench_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

static void json_write(struct bench_json *j, json_t *v)
{
	if (v)
		json_dumpf(v, j->f, BENCH_JSON_FLAGS);
}

/* Adds v (a new reference) to the open container, or writes it at the top level. */
static void json_add(struct bench_json *j, const char *key, json_t *v)
{
	json_t *parent;

	if (!v)
		return;
	if (!j->depth) {
		json_write(j, v);
		json_decref(v);
		return;
	}
	parent = j->open[j->depth - 1];
	if (json_is_object(parent))
		json_object_set_new(parent, key ? key : "", v);
	else
		json_array_append_new(parent, v);
}

static void json_open(struct bench_json *j, const char *key, json_t *c)
{
	if (!c || j->depth == BENCH_JSON_MAX_DEPTH) {
		json_decref(c);
		j->skipped++;
		return;
	}
	if (j->depth) {
		json_add(j, key, json_incref(c));
		json_decref(c);   /* the parent's reference keeps it alive */
	}
	j->open[j->depth++] = c;
}

static void json_close(struct bench_json *j)
{
	if (j->skipped) {
		j->skipped--;
		return;
	}
	if (!j->depth)
		return;
	if (--j->depth == 0) {
		json_write(j, j->open[0]);
		json_decref(j->open[0]);
	}
	j->open[j->depth] = NULL;
}

void bench_json_obj_begin(struct bench_json *j, const char *key) { json_open(j, key, json_object()); }
void bench_json_obj_end(struct bench_json *j) { json_close(j); }
void bench_json_arr_begin(struct bench_json *j, const char *key) { json_open(j, key, json_array()); }
void bench_json_arr_end(struct bench_json *j) { json_close(j); }

void bench_json_kstr(struct bench_json *j, const char *key, const char *v)
{
	json_add(j, key, json_str_or_null(v));
}

void bench_json_kint(struct bench_json *j, const char *key, long long v)
{
	json_add(j, key, json_integer(v));
}

/* Jansson's integers are signed 64-bit: larger values go out as reals. */
void bench_json_kuint(struct bench_json *j, const char *key, unsigned long long v)
{
	json_add(j, key, v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v));
}

void bench_json_kdbl(struct bench_json *j, const char *key, double v)
{
	json_add(j, key, json_num_or_null(v));
}

void bench_json_kbool(struct bench_json *j, const char *key, bool v)
{
	json_add(j, key, json_boolean(v));
}

/* Closes what is still open (so the value written is whole), then the newline. */
void bench_json_finish(struct bench_json *j)
{
	while (j->skipped || j->depth)
		json_close(j);
	fputc('\n', j->f);
	fflush(j->f);
}

void bench_json_begin(struct bench_json *j, FILE *f, const char *bench, const char *thread,
		      const char *measures, const struct bench_opts *a)
{
	char vbuf[512];

	bench_json_init(j, f);
	bench_json_obj_begin(j, NULL);
	bench_json_kstr(j, "bench", bench);
	bench_json_kstr(j, "thread", thread);
	bench_json_kstr(j, "measures", measures);
	bench_json_kbool(j, "quick", a->quick);
	bench_json_kuint(j, "reps", a->reps);
	bench_json_kstr(j, "base_variants", bench_variants_str(a, vbuf, sizeof(vbuf)));
}
