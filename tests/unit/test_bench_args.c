/* SPDX-License-Identifier: MIT */
/*
 * test_bench_args.c - the table-driven option parser of the benches and the
 * memcgsim command (bench/bench_args.h): every kind of option, both value forms,
 * every usage error and its message, operands, the check hook, --help (returned,
 * generated from the table, printed on stdout by bench_args_parse_main) and a
 * table shaped like the command's race options.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"

/* The destinations of the test table. */
struct dest {
	bool json;
	unsigned int cpus;
	unsigned long reads;
	uint64_t seed;
	double seconds;
	const char *preset;
	const char *items[3];
	struct bench_arg_list variants;
	int layout;
	int checked;
};

static int layout_call(const char *value, void *dest, char *err, size_t errlen)
{
	static const char *const names[] = { "array", "xarray" };

	for (int i = 0; i < 2; i++)
		if (!strcmp(value, names[i])) {
			*(int *)dest = i;
			return 0;
		}
	snprintf(err, errlen, "one of array, xarray (got '%s')", value);
	return -EINVAL;
}

static int check_hook(void *ctx, char *err, size_t errlen)
{
	struct dest *d = ctx;

	d->checked++;
	if (d->preset && !strcmp(d->preset, "bad")) {
		snprintf(err, errlen, "unknown preset 'bad'");
		return -EINVAL;
	}
	return 0;
}

static void epilog(FILE *f, void *ctx)
{
	(void)ctx;
	fputs("\nepilog line\n", f);
}

static struct dest d;
static const char *operands[2];
static unsigned int nr_operands;

static const struct bench_arg opts[] = {
	BENCH_OPT_HELP(),
	BENCH_OPT_FLAG("--json", &d.json, "one JSON object"),
	BENCH_OPT_UINT("--cpus", "N", &d.cpus, 1, 1024, "simulated CPUs"),
	BENCH_OPT_ULONG("--reads", "N", &d.reads, 1, 1UL << 30, "reads per timing"),
	BENCH_OPT_U64("--seed", "S", &d.seed, 0, UINT64_MAX, "seed"),
	BENCH_OPT_DOUBLE("--seconds", "S", &d.seconds, 0, 60, "virtual seconds"),
	BENCH_OPT_STRING("--preset", "NAME", &d.preset, "a preset"),
	BENCH_OPT_LIST("--variant", "NAME=VALUE", &d.variants, "a variant\nsecond help line"),
	BENCH_OPT_CALL("--layout", "L", layout_call, &d.layout, "array or xarray"),
	BENCH_OPT_END,
};

static const struct bench_args spec = {
	.prog = "demo",
	.operands_meta = "[NAME]",
	.summary = "a demonstration",
	.description = "More words.",
	.tables = { opts },
	.operands = operands,
	.max_operands = 1,
	.nr_operands = &nr_operands,
	.check = check_hook,
	.ctx = &d,
	.epilog = epilog,
};

static char err[512];

/* Parse a NULL-terminated argument list (after argv[0] = "demo") into fresh destinations. */
static int parse_with(const struct bench_args *a, const char *arg0, ...)
{
	char *argv[32] = { "demo" };
	int argc = 1;
	va_list ap;

	memset(&d, 0, sizeof(d));
	d.cpus = 8;
	d.variants = (struct bench_arg_list){ .items = d.items, .max = 3 };
	d.layout = -1;
	va_start(ap, arg0);
	for (const char *s = arg0; s; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	return bench_args_parse(a, argc, argv, err, sizeof(err));
}

#define parse(...) parse_with(&spec, __VA_ARGS__, NULL)

static void kinds(void **state)
{
	(void)state;
	assert_int_equal(parse("--json", "--cpus", "4", "--reads=1000", "--seed", "0x10",
			       "--seconds", "0.5", "--preset=p", "--variant", "a=1",
			       "--variant=b=2", "--layout", "xarray", "name"), 0);
	assert_true(d.json);
	assert_int_equal(d.cpus, 4);
	assert_int_equal(d.reads, 1000);
	assert_int_equal(d.seed, 16);
	assert_true(d.seconds == 0.5);
	assert_string_equal(d.preset, "p");
	assert_int_equal(d.variants.n, 2);
	assert_string_equal(d.variants.items[0], "a=1");
	assert_string_equal(d.variants.items[1], "b=2");   /* split at the first '=' */
	assert_int_equal(d.layout, 1);
	assert_int_equal(nr_operands, 1);
	assert_string_equal(operands[0], "name");
	assert_int_equal(d.checked, 1);
	/* Defaults stay when an option is absent; the last of a repeated option wins. */
	assert_int_equal(parse("--cpus", "2", "--cpus", "3"), 0);
	assert_int_equal(d.cpus, 3);
	assert_false(d.json);
	assert_int_equal(d.layout, -1);
	assert_int_equal(nr_operands, 0);
	/* Bounds are inclusive for integers; a double's lower bound is excluded. */
	assert_int_equal(parse("--cpus", "1", "--seed", "18446744073709551615", "--seconds", "60"), 0);
	assert_int_equal(d.seed, UINT64_MAX);
	assert_int_equal(parse("--cpus", "1024"), 0);
	/* "--" ends the options; "-" is an operand. */
	assert_int_equal(parse("--", "--json"), 0);
	assert_false(d.json);
	assert_string_equal(operands[0], "--json");
	assert_int_equal(parse("-"), 0);
	assert_string_equal(operands[0], "-");
}

static void expect_error(int ret, const char *msg)
{
	assert_int_equal(ret, -EINVAL);
	assert_string_equal(err, msg);
}

static void errors(void **state)
{
	(void)state;
	expect_error(parse("--no-such"), "unknown option '--no-such'");
	expect_error(parse("--no-such=1"), "unknown option '--no-such'");
	expect_error(parse("--cpu", "4"), "unknown option '--cpu'");      /* no abbreviations */
	expect_error(parse("-x"), "unknown option '-x'");
	expect_error(parse("-hh"), "unknown option '-hh'");
	expect_error(parse("--cpus"), "--cpus needs a value (N)");
	expect_error(parse("--json=yes"), "--json takes no value");
	expect_error(parse("--cpus", "0"), "--cpus: expected an integer in [1, 1024], got '0'");
	expect_error(parse("--cpus", "1025"), "--cpus: expected an integer in [1, 1024], got '1025'");
	expect_error(parse("--cpus", "zero"), "--cpus: expected an integer in [1, 1024], got 'zero'");
	expect_error(parse("--cpus", "-1"), "--cpus: expected an integer in [1, 1024], got '-1'");
	expect_error(parse("--cpus", "+4"), "--cpus: expected an integer in [1, 1024], got '+4'");
	expect_error(parse("--cpus", " 4"), "--cpus: expected an integer in [1, 1024], got ' 4'");
	expect_error(parse("--cpus", "4x"), "--cpus: expected an integer in [1, 1024], got '4x'");
	expect_error(parse("--cpus="), "--cpus: expected an integer in [1, 1024], got ''");
	expect_error(parse("--cpus", "0x"), "--cpus: expected an integer in [1, 1024], got '0x'");
	expect_error(parse("--seed", "18446744073709551616"),
		     "--seed: expected an integer of at least 0, got '18446744073709551616'");
	expect_error(parse("--seconds", "0"), "--seconds: expected a number in (0, 60], got '0'");
	expect_error(parse("--seconds", "60.5"),
		     "--seconds: expected a number in (0, 60], got '60.5'");
	expect_error(parse("--seconds", "nan"), "--seconds: expected a number in (0, 60], got 'nan'");
	expect_error(parse("--layout", "tree"), "--layout: one of array, xarray (got 'tree')");
	expect_error(parse("--variant", "a", "--variant", "b", "--variant", "c", "--variant", "d"),
		     "--variant: at most 3 values");
	expect_error(parse("one", "two"), "unexpected argument 'two' (at most 1)");
	/* The check hook runs last, and only when every option was stored. */
	expect_error(parse("--preset", "bad"), "unknown preset 'bad'");
	assert_int_equal(d.checked, 1);
	expect_error(parse("--preset", "bad", "--cpus", "0"),
		     "--cpus: expected an integer in [1, 1024], got '0'");
	assert_int_equal(d.checked, 0);
}

static void no_operands(void **state)
{
	const struct bench_args bare = { .prog = "bare", .tables = { opts } };

	(void)state;
	memset(err, 0, sizeof(err));
	expect_error(parse_with(&bare, "--json", "extra", NULL), "unexpected argument 'extra'");
	assert_int_equal(parse_with(&bare, "--json", NULL), 0);
	assert_int_equal(d.checked, 0);   /* no hook in this spec */
}

static void help_requests(void **state)
{
	(void)state;
	assert_int_equal(parse("--help"), BENCH_ARGS_HELP);
	assert_int_equal(parse("-h"), BENCH_ARGS_HELP);
	/* Arguments are taken in order: what comes after --help is not looked at... */
	assert_int_equal(parse("--json", "--help", "--no-such"), BENCH_ARGS_HELP);
	assert_true(d.json);
	assert_int_equal(d.checked, 0);
	/* ...and an error before it wins. */
	expect_error(parse("--no-such", "--help"), "unknown option '--no-such'");
	/* "--help=x" is not a help request. */
	expect_error(parse("--help=x"), "--help takes no value");
}

/* What fn prints on stream fd (1 or 2) while running; its return in *ret. */
static char *capture(int fd, int (*fn)(void *), void *arg, int *ret)
{
	FILE *tmp = tmpfile(), *stream = fd == 1 ? stdout : stderr;
	int saved;
	long len;
	char *out;

	assert_non_null(tmp);
	fflush(stream);
	saved = dup(fd);
	assert_true(dup2(fileno(tmp), fd) >= 0);
	*ret = fn(arg);
	fflush(stream);
	assert_true(dup2(saved, fd) >= 0);
	close(saved);
	len = ftell(tmp);
	out = calloc(1, (size_t)len + 1);
	assert_non_null(out);
	rewind(tmp);
	assert_int_equal(fread(out, 1, (size_t)len, tmp), (size_t)len);
	fclose(tmp);
	return out;
}

static int main_parse(void *arg)
{
	char **argv = arg;
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(&d, 0, sizeof(d));
	d.variants = (struct bench_arg_list){ .items = d.items, .max = 3 };
	return bench_args_parse_main(&spec, argc, argv);
}

static void generated_help(void **state)
{
	char *help_argv[] = { "demo", "--json", "-h", NULL };
	char *bad_argv[] = { "demo", "--cpus", "many", NULL };
	char *ok_argv[] = { "demo", "--cpus", "2", NULL };
	char *out;
	int ret;

	(void)state;
	out = capture(1, main_parse, help_argv, &ret);
	assert_int_equal(ret, 1);
	assert_int_equal(bench_args_exit_status(ret), 0);
	assert_string_equal(out,
		"usage: demo [--json] [--cpus N] [--reads N] [--seed S] [--seconds S] "
		"[--preset NAME] [--variant NAME=VALUE]... [--layout L] [NAME]\n"
		"\na demonstration\n"
		"\nMore words.\n"
		"\noptions:\n"
		"  --help, -h             this text\n"
		"  --json                 one JSON object\n"
		"  --cpus N               simulated CPUs\n"
		"  --reads N              reads per timing\n"
		"  --seed S               seed\n"
		"  --seconds S            virtual seconds\n"
		"  --preset NAME          a preset\n"
		"  --variant NAME=VALUE   a variant\n"
		"                         second help line\n"
		"  --layout L             array or xarray\n"
		"\nepilog line\n");
	free(out);
	out = capture(2, main_parse, bad_argv, &ret);
	assert_int_equal(ret, 2);
	assert_int_equal(bench_args_exit_status(ret), 2);
	assert_non_null(strstr(out, "demo: --cpus: expected an integer in [1, 1024], got 'many'\n"
				    "usage: demo [--json] [--cpus N]"));
	assert_non_null(strstr(out, "\n(demo --help lists every option)\n"));
	assert_null(strstr(out, "options:"));    /* the line, not the whole help */
	free(out);
	out = capture(1, main_parse, ok_argv, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(out, "");
	assert_int_equal(d.cpus, 2);
	free(out);
}

/*
 * The memcgsim command's race options (tools/memcgsim/main.c parse_race_opts) as
 * a table: custom values through calls, a value that sets two fields, a bounded
 * list, and the scenario's name as the one operand.
 */
struct race_cli {
	int strategy;                 /* index below; -1: the race's default */
	bool strategy_set;
	unsigned int runs, depth, preemptions, cpus;
	uint64_t seed;
	const char *schedule;
	const char *preset;
	const char *variant_items[32];
	struct bench_arg_list variants;
	bool json, first, concurrent;
};

static int strategy_call(const char *value, void *dest, char *e, size_t elen)
{
	static const char *const names[] = { "script", "random", "pct", "dfs" };
	struct race_cli *c = dest;

	for (int i = 0; i < 4; i++)
		if (!strcmp(value, names[i])) {
			c->strategy = i;
			c->strategy_set = true;
			return 0;
		}
	snprintf(e, elen, "unknown strategy '%s' (script, random, pct, dfs)", value);
	return -EINVAL;
}

static int schedule_call(const char *value, void *dest, char *e, size_t elen)
{
	struct race_cli *c = dest;

	(void)e;
	(void)elen;
	c->schedule = value;
	c->strategy = 4;          /* replay */
	c->strategy_set = true;
	return 0;
}

static void race_table(void **state)
{
	struct race_cli c = { .strategy = -1, .preemptions = ~0u };
	const char *name[1];
	unsigned int nname;
	const struct bench_arg race_opts[] = {
		BENCH_OPT_HELP(),
		BENCH_OPT_CALL("--strategy", "S", strategy_call, &c, "script | random | pct | dfs"),
		BENCH_OPT_UINT("--runs", "N", &c.runs, 0, 100000000, "runs to explore"),
		BENCH_OPT_U64("--seed", "S", &c.seed, 0, UINT64_MAX, "first seed"),
		BENCH_OPT_UINT("--depth", "D", &c.depth, 1, 64, "PCT bug depth"),
		BENCH_OPT_UINT("--preemptions", "P", &c.preemptions, 0, 64, "DFS bound"),
		BENCH_OPT_CALL("--schedule", "STR", schedule_call, &c, "replay this schedule"),
		BENCH_OPT_UINT("--cpus", "N", &c.cpus, 1, 1024, "simulated CPUs"),
		BENCH_OPT_STRING("--preset", "NAME", &c.preset, "variant preset"),
		BENCH_OPT_LIST("--variant", "N=V", &c.variants, "one variant"),
		BENCH_OPT_FLAG("--first", &c.first, "stop at the first violation"),
		BENCH_OPT_FLAG("--concurrent", &c.concurrent, "the concurrent flavour"),
		BENCH_OPT_FLAG("--json", &c.json, "one JSON object"),
		BENCH_OPT_END,
	};
	const struct bench_args race = { .prog = "memcgsim race", .operands_meta = "NAME",
					.tables = { race_opts }, .operands = name,
					.max_operands = 1, .nr_operands = &nname };
	char *argv[] = { "race", "rstat-early-exit", "--strategy=pct", "--runs", "300",
			 "--depth", "3", "--schedule", "0.1.1", "--variant", "rstat-propagate=continue",
			 "--first", "--json", NULL };

	(void)state;
	c.variants = (struct bench_arg_list){ .items = c.variant_items, .max = 32 };
	assert_int_equal(bench_args_parse(&race, 13, argv, err, sizeof(err)), 0);
	assert_int_equal(nname, 1);
	assert_string_equal(name[0], "rstat-early-exit");
	assert_int_equal(c.strategy, 4);       /* --schedule came last: replay */
	assert_true(c.strategy_set);
	assert_string_equal(c.schedule, "0.1.1");
	assert_int_equal(c.runs, 300);
	assert_int_equal(c.depth, 3);
	assert_int_equal(c.preemptions, ~0u);  /* not given: the race's default */
	assert_int_equal(c.variants.n, 1);
	assert_true(c.first && c.json && !c.concurrent);
	argv[3] = "--strategy";
	argv[4] = "replay";
	assert_int_equal(bench_args_parse(&race, 5, argv, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--strategy: unknown strategy 'replay' (script, random, pct, dfs)");
	argv[3] = "--depth";
	argv[4] = "0";
	assert_int_equal(bench_args_parse(&race, 5, argv, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--depth: expected an integer in [1, 64], got '0'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kinds),
		cmocka_unit_test(errors),
		cmocka_unit_test(no_operands),
		cmocka_unit_test(help_requests),
		cmocka_unit_test(generated_help),
		cmocka_unit_test(race_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
