/* SPDX-License-Identifier: MIT */
/*
 * demo.c - `memcgsim demo` (`make run`): every race on each side it shows (the
 * variant with the bug and the one with the fix), scripted and under PCT, then a
 * summary table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_args.h"
#include "cli.h"

struct demo_row {
	const char *race, *side, *strategy;
	bool expected, found, ok;
};

/* One race on one side (NULL: the configuration as given) under one strategy. */
static int demo_one(const struct msim_race *r, const struct msim_race_side *side,
		    enum msim_strategy strat, struct demo_row *row)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	const char *settings = side && side->settings ? side->settings : "";
	struct msim_race_opts o;
	struct msim_config cfg;
	char err[512] = "";

	if (!res)
		return -ENOMEM;
	msim_race_opts_init(&o, strat);
	o.seed = 1;
	o.side = side;
	msim_config_init(&cfg);
	if (msim_race_settings_apply(&cfg, settings, err, sizeof(err))) {
		fprintf(stderr, "memcgsim: %s\n", err);
		free(res);
		return -EINVAL;
	}
	fflush(stdout);
	fprintf(stderr, "memcgsim demo: %s%s%s (%s)...\n", r->name, *settings ? " with " : "",
		settings, msim_strategy_name(strat));
	memset(row, 0, sizeof(*row));
	row->race = r->name;
	row->side = *settings ? settings : "as configured";
	row->strategy = msim_strategy_name(strat);
	if (msim_race_run(r, &cfg, &o, res, err, sizeof(err))) {
		printf("race %s: %s\n\n", r->name, err);
	} else {
		msim_race_print_text(stdout, res);
		putchar('\n');
		row->expected = res->expected_violation;
		row->found = res->ex.violations > 0;
		row->ok = res->behaved_as_expected;
	}
	free(res);
	return 0;
}

static double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The demo's own cost: wall time since t0, this process's CPU time and peak RSS. */
static void demo_cost(double t0)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return;
	printf("demo: %.1f s wall, %.1f s CPU, peak RSS %.1f MiB (the simulator's own cost)\n",
	       monotonic_s() - t0,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
	       (double)ru.ru_maxrss / 1024.0);
}

static void demo_summary(const struct demo_row *rows, size_t n)
{
	size_t bad = 0;

	printf("%-28s %-34s %-7s %-10s %s\n", "race", "variants", "strategy", "violation",
	       "as expected");
	for (size_t i = 0; i < n; i++) {
		printf("%-28s %-34s %-7s %-10s %s\n", rows[i].race, rows[i].side, rows[i].strategy,
		       rows[i].found ? "found" : "none", rows[i].ok ? "yes" : "NO");
		bad += !rows[i].ok;
	}
	printf("\ndemo: %zu runs, %zu not as expected\n", n, bad);
}

/* The race on one side: scripted (if it has a script), then PCT. */
static size_t demo_side(const struct msim_race *r, const struct msim_race_side *side,
			struct demo_row *rows)
{
	size_t n = 0;

	if ((r->script || r->script_hosts) && demo_one(r, side, MSIM_STRAT_SCRIPT, &rows[n]) == 0)
		n++;
	if (demo_one(r, side, MSIM_STRAT_PCT, &rows[n]) == 0)
		n++;
	return n;
}

#define MAX_DEMO_ROWS (64 * 8)

int msim_cli_demo(int argc, char **argv)
{
	const struct msim_race *races[64];
	size_t n = msim_race_list(races, 64), nrows = 0;
	static struct demo_row rows[MAX_DEMO_ROWS];

	const struct bench_arg opts[] = { BENCH_OPT_HELP(), BENCH_OPT_END };
	const struct bench_args spec = {
		.prog = "memcgsim demo",
		.summary = "Runs every race scenario on the sides it shows (the variant with the bug\n"
			   "and the one with the fix), scripted (if it has a script) and under PCT\n"
			   "(seed 1), then prints a summary table and the demo's own wall time, CPU\n"
			   "time and peak RSS; exit 1 if any run did not behave as expected.",
		.tables = { opts },
	};
	int ret = bench_args_parse_main(&spec, argc, argv);
	double t0 = monotonic_s();

	if (ret)
		return bench_args_exit_status(ret);
	for (size_t i = 0; i < n && i < 64; i++) {
		const struct msim_race_side *s = races[i]->sides;
		bool shown = false;

		for (; s && s->name && nrows + 2 <= MAX_DEMO_ROWS; s++) {
			if (s->demo) {
				nrows += demo_side(races[i], s, &rows[nrows]);
				shown = true;
			}
		}
		if (!shown && nrows + 2 <= MAX_DEMO_ROWS)
			nrows += demo_side(races[i], NULL, &rows[nrows]);
	}
	demo_summary(rows, nrows);
	demo_cost(t0);
	for (size_t i = 0; i < nrows; i++)
		if (!rows[i].ok)
			return 1;
	return 0;
}
