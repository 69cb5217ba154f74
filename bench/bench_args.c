/* SPDX-License-Identifier: MIT */
/*
 * bench_args.c - the table-driven option parser (bench_args.h). Depends on libc
 * only: the benches and the memcgsim command share it.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"

#define HELP_COLUMN 22

/* ---- finding an option ---- */

static const struct bench_arg *find_long(const struct bench_args *a, const char *name, size_t len)
{
	for (unsigned int t = 0; t < BENCH_ARGS_MAX_TABLES && a->tables[t]; t++)
		for (const struct bench_arg *o = a->tables[t]; o->kind != BENCH_ARG_END; o++)
			if (o->name && strlen(o->name) == len && !strncmp(o->name, name, len))
				return o;
	return NULL;
}

static const struct bench_arg *find_short(const struct bench_args *a, char c)
{
	for (unsigned int t = 0; t < BENCH_ARGS_MAX_TABLES && a->tables[t]; t++)
		for (const struct bench_arg *o = a->tables[t]; o->kind != BENCH_ARG_END; o++)
			if (c && o->short_name == c)
				return o;
	return NULL;
}

static bool takes_value(const struct bench_arg *o)
{
	return o->kind != BENCH_ARG_HELP && o->kind != BENCH_ARG_FLAG;
}

/* ---- storing a value ---- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Decimal, or hexadecimal after 0x; no sign, no space, nothing after the digits. */
static int parse_integer(const char *s, unsigned long long *out)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2]))
			return -EINVAL;
	} else if (!isdigit((unsigned char)s[0])) {
		return -EINVAL;
	}
	errno = 0;
	*out = strtoull(s, &end, base);
	return errno || *end ? -EINVAL : 0;
}

static int store_integer(const struct bench_arg *o, const char *v, char *err, size_t errlen)
{
	unsigned long long x;

	if (parse_integer(v, &x) || x < o->min || x > o->max) {
		if (o->max == ULLONG_MAX)
			return fail(err, errlen, "%s: expected an integer of at least %llu, got '%s'",
				    o->name, o->min, v);
		return fail(err, errlen, "%s: expected an integer in [%llu, %llu], got '%s'",
			    o->name, o->min, o->max, v);
	}
	if (o->kind == BENCH_ARG_UINT)
		*(unsigned int *)o->dest = (unsigned int)x;
	else if (o->kind == BENCH_ARG_ULONG)
		*(unsigned long *)o->dest = (unsigned long)x;
	else
		*(uint64_t *)o->dest = (uint64_t)x;
	return 0;
}

static int store_double(const struct bench_arg *o, const char *v, char *err, size_t errlen)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || !(x > o->lo) || x > o->hi)
		return fail(err, errlen, "%s: expected a number in (%g, %g], got '%s'", o->name,
			    o->lo, o->hi, v);
	*(double *)o->dest = x;
	return 0;
}

static int store_list(const struct bench_arg *o, const char *v, char *err, size_t errlen)
{
	struct bench_arg_list *l = o->dest;

	if (l->n >= l->max)
		return fail(err, errlen, "%s: at most %u values", o->name, l->max);
	l->items[l->n++] = v;
	return 0;
}

static int store(const struct bench_arg *o, const char *v, char *err, size_t errlen)
{
	char why[256] = "";

	switch (o->kind) {
	case BENCH_ARG_FLAG:
		*(bool *)o->dest = true;
		return 0;
	case BENCH_ARG_UINT:
	case BENCH_ARG_ULONG:
	case BENCH_ARG_U64:
		return store_integer(o, v, err, errlen);
	case BENCH_ARG_DOUBLE:
		return store_double(o, v, err, errlen);
	case BENCH_ARG_STRING:
		*(const char **)o->dest = v;
		return 0;
	case BENCH_ARG_LIST:
		return store_list(o, v, err, errlen);
	case BENCH_ARG_CALL:
		if (!o->call(v, o->dest, why, sizeof(why)))
			return 0;
		return fail(err, errlen, "%s: %s", o->name, why[0] ? why : "invalid value");
	default:
		return fail(err, errlen, "%s: not an option of this table", o->name);
	}
}

/* ---- the argument loop ---- */

static int operand(const struct bench_args *a, const char *arg, char *err, size_t errlen)
{
	if (!a->max_operands || !a->operands || !a->nr_operands)
		return fail(err, errlen, "unexpected argument '%s'", arg);
	if (*a->nr_operands >= a->max_operands)
		return fail(err, errlen, "unexpected argument '%s' (at most %u)", arg,
			    a->max_operands);
	a->operands[(*a->nr_operands)++] = arg;
	return 0;
}

/*
 * One option at argv[*i]: finds it, takes its value ("=value" or the next
 * argument) and stores it. Returns 0, BENCH_ARGS_HELP or -EINVAL.
 */
static int one_option(const struct bench_args *a, int argc, char *const argv[], int *i,
		      char *err, size_t errlen)
{
	const char *arg = argv[*i], *eq = NULL, *value = NULL;
	const struct bench_arg *o;

	if (arg[1] == '-') {
		eq = strchr(arg, '=');
		o = find_long(a, arg, eq ? (size_t)(eq - arg) : strlen(arg));
	} else {
		o = arg[2] ? NULL : find_short(a, arg[1]);
	}
	if (!o)
		return fail(err, errlen, "unknown option '%.*s'",
			    (int)(eq ? (size_t)(eq - arg) : strlen(arg)), arg);
	if (!takes_value(o) && eq)
		return fail(err, errlen, "%s takes no value", o->name);
	if (o->kind == BENCH_ARG_HELP)
		return BENCH_ARGS_HELP;
	if (!takes_value(o))
		return store(o, NULL, err, errlen);
	if (eq)
		value = eq + 1;
	else if (*i + 1 < argc)
		value = argv[++*i];
	else
		return fail(err, errlen, "%s needs a value (%s)", o->name, o->meta ? o->meta : "");
	return store(o, value, err, errlen);
}

int bench_args_parse(const struct bench_args *a, int argc, char *const argv[], char *err,
		     size_t errlen)
{
	bool options_done = false;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (a->nr_operands)
		*a->nr_operands = 0;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (options_done || arg[0] != '-' || !arg[1]) {
			ret = operand(a, arg, err, errlen);
		} else if (!strcmp(arg, "--")) {
			options_done = true;
			ret = 0;
		} else {
			ret = one_option(a, argc, argv, &i, err, errlen);
		}
		if (ret)
			return ret;
	}
	return a->check ? a->check(a->ctx, err, errlen) : 0;
}

/* ---- help ---- */

static void usage_option(const struct bench_arg *o, FILE *f)
{
	if (o->kind == BENCH_ARG_HELP)
		return;
	if (takes_value(o))
		fprintf(f, " [%s %s]%s", o->name, o->meta ? o->meta : "VALUE",
			o->kind == BENCH_ARG_LIST ? "..." : "");
	else
		fprintf(f, " [%s]", o->name);
}

void bench_args_usage(const struct bench_args *a, FILE *f)
{
	fprintf(f, "usage: %s", a->prog);
	for (unsigned int t = 0; t < BENCH_ARGS_MAX_TABLES && a->tables[t]; t++)
		for (const struct bench_arg *o = a->tables[t]; o->kind != BENCH_ARG_END; o++)
			usage_option(o, f);
	if (a->operands_meta)
		fprintf(f, " %s", a->operands_meta);
	fputc('\n', f);
}

/* "  --cpus N               help", continuation lines of help under its start. */
static void help_option(const struct bench_arg *o, FILE *f)
{
	char left[64];
	const char *h = o->help ? o->help : "", *nl;

	if (o->short_name)
		snprintf(left, sizeof(left), "%s, -%c", o->name, o->short_name);
	else if (takes_value(o))
		snprintf(left, sizeof(left), "%s %s", o->name, o->meta ? o->meta : "VALUE");
	else
		snprintf(left, sizeof(left), "%s", o->name);
	fprintf(f, "  %-*s", HELP_COLUMN, left);
	while ((nl = strchr(h, '\n'))) {
		fprintf(f, " %.*s\n  %-*s", (int)(nl - h), h, HELP_COLUMN, "");
		h = nl + 1;
	}
	fprintf(f, " %s\n", h);
}

void bench_args_help(const struct bench_args *a, FILE *f)
{
	bench_args_usage(a, f);
	if (a->summary)
		fprintf(f, "\n%s\n", a->summary);
	if (a->description)
		fprintf(f, "\n%s\n", a->description);
	fprintf(f, "\noptions:\n");
	for (unsigned int t = 0; t < BENCH_ARGS_MAX_TABLES && a->tables[t]; t++)
		for (const struct bench_arg *o = a->tables[t]; o->kind != BENCH_ARG_END; o++)
			help_option(o, f);
	if (a->epilog)
		a->epilog(f, a->ctx);
}

int bench_args_parse_main(const struct bench_args *a, int argc, char *const argv[])
{
	char err[512];
	int ret = bench_args_parse(a, argc, argv, err, sizeof(err));

	if (ret == BENCH_ARGS_HELP) {
		bench_args_help(a, stdout);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", a->prog, err);
		bench_args_usage(a, stderr);
		fprintf(stderr, "(%s --help lists every option)\n", a->prog);
		return 2;
	}
	return 0;
}
