/* SPDX-License-Identifier: MIT */
/*
 * bench_args.h - a small table-driven command-line parser for the benches and the
 * memcgsim command.
 *
 * A program describes its options as a table (name, kind, destination, help); the
 * parser fills the destinations, generates --help from the same table, and turns
 * every mistake into one clear message and exit status 2. It knows nothing of
 * benches, hosts or variants: it depends on libc only, so any program of the
 * project can use it.
 *
 *	unsigned int cpus = 8;
 *	bool json = false;
 *	const struct bench_arg opts[] = {
 *		BENCH_OPT_HELP(),
 *		BENCH_OPT_FLAG("--json", &json, "one JSON object on stdout"),
 *		BENCH_OPT_UINT("--cpus", "N", &cpus, 1, 1024, "simulated CPUs (default 8)"),
 *		BENCH_OPT_END,
 *	};
 *	const struct bench_args spec = { .prog = "demo", .tables = { opts } };
 *	int ret = bench_args_parse_main(&spec, argc, argv);
 *	if (ret)
 *		return bench_args_exit_status(ret);
 *
 * Accepted forms: "--name value", "--name=value", the short form of an option
 * that has one ("-h"), and "--" to end the options. Options are matched by their
 * whole name (no abbreviations); they are applied left to right, so the last of a
 * repeated option wins (except lists, which keep every value in order). Integer
 * values are decimal, or hexadecimal with 0x.
 */
#ifndef BENCH_ARGS_H
#define BENCH_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bench_arg_kind {
	BENCH_ARG_END = 0, /* ends a table */
	BENCH_ARG_HELP,    /* asks for the generated help: parsing stops there */
	BENCH_ARG_FLAG,    /* bool: set to true; takes no value */
	BENCH_ARG_UINT,    /* unsigned int within [min, max] */
	BENCH_ARG_ULONG,   /* unsigned long within [min, max] */
	BENCH_ARG_U64,     /* uint64_t within [min, max] */
	BENCH_ARG_DOUBLE,  /* double within (lo, hi]: lo excluded, hi included */
	BENCH_ARG_STRING,  /* const char *: the value itself (argv's storage) */
	BENCH_ARG_LIST,    /* struct bench_arg_list: every value, in command-line order */
	BENCH_ARG_CALL,    /* call(value, dest, err, errlen) decides and stores */
};

/* Destination of a BENCH_ARG_LIST option: items[] has room for max values. */
struct bench_arg_list {
	const char **items;
	unsigned int n, max;
};

/*
 * The decision of a BENCH_ARG_CALL option: 0, or -EINVAL with the reason in err
 * (without the option's name: the parser prefixes it).
 */
typedef int (*bench_arg_call_fn)(const char *value, void *dest, char *err, size_t errlen);

struct bench_arg {
	const char *name;            /* "--cpus" */
	char short_name;             /* 'h' for "-h", or 0 */
	enum bench_arg_kind kind;
	const char *meta;            /* the value's name in the help ("N"); NULL: no value */
	void *dest;
	const char *help;            /* may hold '\n': continuation lines are indented */
	unsigned long long min, max; /* integer kinds */
	double lo, hi;               /* BENCH_ARG_DOUBLE */
	bench_arg_call_fn call;      /* BENCH_ARG_CALL */
};

#define BENCH_OPT_END { .name = NULL, .kind = BENCH_ARG_END }
#define BENCH_OPT_HELP() \
	{ .name = "--help", .short_name = 'h', .kind = BENCH_ARG_HELP, .help = "this text" }
#define BENCH_OPT_FLAG(n, d, h) { .name = (n), .kind = BENCH_ARG_FLAG, .dest = (d), .help = (h) }
#define BENCH_OPT_UINT(n, m, d, mn, mx, h)                                           \
	{ .name = (n), .kind = BENCH_ARG_UINT, .meta = (m), .dest = (d), .help = (h), \
	  .min = (mn), .max = (mx) }
#define BENCH_OPT_ULONG(n, m, d, mn, mx, h)                                           \
	{ .name = (n), .kind = BENCH_ARG_ULONG, .meta = (m), .dest = (d), .help = (h), \
	  .min = (mn), .max = (mx) }
#define BENCH_OPT_U64(n, m, d, mn, mx, h)                                           \
	{ .name = (n), .kind = BENCH_ARG_U64, .meta = (m), .dest = (d), .help = (h), \
	  .min = (mn), .max = (mx) }
#define BENCH_OPT_DOUBLE(n, m, d, l, u, h)                                             \
	{ .name = (n), .kind = BENCH_ARG_DOUBLE, .meta = (m), .dest = (d), .help = (h), \
	  .lo = (l), .hi = (u) }
#define BENCH_OPT_STRING(n, m, d, h) \
	{ .name = (n), .kind = BENCH_ARG_STRING, .meta = (m), .dest = (d), .help = (h) }
#define BENCH_OPT_LIST(n, m, d, h) \
	{ .name = (n), .kind = BENCH_ARG_LIST, .meta = (m), .dest = (d), .help = (h) }
#define BENCH_OPT_CALL(n, m, fn, d, h)                                               \
	{ .name = (n), .kind = BENCH_ARG_CALL, .meta = (m), .dest = (d), .help = (h), \
	  .call = (fn) }

#define BENCH_ARGS_MAX_TABLES 4

struct bench_args {
	const char *prog;            /* names the program in the usage line and messages */
	const char *operands_meta;   /* usage line after the options ("NAME"); NULL: none */
	const char *summary;         /* --help: after the usage line (may be NULL) */
	const char *description;     /* --help: after the summary (may be NULL) */
	/* Option tables, each ended by BENCH_OPT_END; the first NULL ends the list. */
	const struct bench_arg *tables[BENCH_ARGS_MAX_TABLES];
	/*
	 * Non-option arguments go to operands[] (at most max_operands; their count
	 * in *nr_operands). With max_operands 0, a non-option argument is an error.
	 */
	const char **operands;
	unsigned int max_operands;
	unsigned int *nr_operands;
	/* Called once every option is stored: checks across options (may be NULL). */
	int (*check)(void *ctx, char *err, size_t errlen);
	void *ctx;
	/* --help: printed after the options (may be NULL). */
	void (*epilog)(FILE *f, void *ctx);
};

/* bench_args_parse's return when a help option was given. */
#define BENCH_ARGS_HELP 1

/*
 * Parse argv[1..argc-1] (argv[0] is the program's name and skipped). Returns 0
 * when every argument was stored, BENCH_ARGS_HELP when a help option came first
 * (nothing is printed), or -EINVAL on a usage error, with the reason in err
 * ("--cpus: expected an integer in [1, 1024], got 'zero'").
 */
int bench_args_parse(const struct bench_args *a, int argc, char *const argv[], char *err,
		     size_t errlen);

/* "usage: prog [--json] [--cpus N] ... NAME" and a newline. */
void bench_args_usage(const struct bench_args *a, FILE *f);
/* The whole help: usage line, summary, description, one line per option, epilog. */
void bench_args_help(const struct bench_args *a, FILE *f);

/*
 * bench_args_parse for a main(): returns 0 to run; 1 after printing the help on
 * stdout; 2 after printing "prog: reason", the usage line and a pointer to
 * --help on stderr.
 */
int bench_args_parse_main(const struct bench_args *a, int argc, char *const argv[]);
/* The exit status for a non-zero bench_args_parse_main() return: 0 (help) or 2. */
static inline int bench_args_exit_status(int parse_ret)
{
	return parse_ret == 1 ? 0 : 2;
}

#endif /* BENCH_ARGS_H */
