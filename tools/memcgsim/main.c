/* SPDX-License-Identifier: MIT */
/*
 * memcgsim - run the race scenarios and benches of libmemcgsim.
 *
 * Exit status: 0 when the scenario behaved as expected, 1 when it did not, 2 on
 * a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static void usage(FILE *f)
{
	fputs("usage: memcgsim [--help] [--version] COMMAND [ARGS]\n"
	      "\n"
	      "commands:\n"
	      "  list [--variants] [--json]   the race scenarios and benches (or the variant table)\n"
	      "  race NAME [OPTIONS]          run a race scenario (see 'memcgsim race --help')\n"
	      "  bench NAME [ARGS]            run a bench (see 'memcgsim bench NAME --help')\n"
	      "  demo                         run every race under its default exploration\n"
	      "\n"
	      "Deterministic runs print their schedule; '--schedule STR' (or MSIM_SCHEDULE=STR)\n"
	      "replays it exactly.\n",
	      f);
}

static void race_usage(FILE *f)
{
	fputs("usage: memcgsim race NAME [OPTIONS]\n"
	      "  --strategy S      script | random | pct | dfs (default: script if the race has one,\n"
	      "                    else pct)\n"
	      "  --runs N          runs to explore (random, pct) or schedules at most (dfs)\n"
	      "  --seed S          first seed (run i uses S+i)\n"
	      "  --depth D         PCT bug depth\n"
	      "  --preemptions P   DFS preemption bound\n"
	      "  --schedule STR    replay this schedule (implies the replay strategy)\n"
	      "  --cpus N          simulated CPUs\n"
	      "  --preset NAME     variant preset (memcgsim list --variants)\n"
	      "  --variant N=V     set one variant (repeatable, applied after --preset)\n"
	      "  --first           stop at the first violation\n"
	      "  --concurrent      run the race's concurrent flavour (real threads, liburcu)\n"
	      "  --json            print one JSON object\n"
	      "exit: 0 behaved as expected, 1 did not, 2 usage error\n",
	      f);
}

static int print_list(bool variants, bool json)
{
	if (variants) {
		const struct msim_variant_desc *d = msim_variant_table();
		const struct msim_preset_desc *p = msim_preset_table();
		if (json)
			fputs("{\"variants\": [", stdout);
		for (; d->name; d++) {
			if (json) {
				printf("%s{\"name\": ", d == msim_variant_table() ? "" : ", ");
				msim_json_str(stdout, d->name);
				fputs(", \"values\": [", stdout);
				for (const char *const *v = d->values; *v; v++) {
					printf("%s", v == d->values ? "" : ", ");
					msim_json_str(stdout, *v);
				}
				fputs("], \"meaning\": ", stdout);
				msim_json_str(stdout, d->meaning);
				fputs(", \"thread\": ", stdout);
				msim_json_str(stdout, d->thread);
				fputs("}", stdout);
				continue;
			}
			printf("%-18s ", d->name);
			for (const char *const *v = d->values; *v; v++)
				printf("%s%s", v == d->values ? "" : "|", *v);
			printf("  (thread %s)\n    %s\n", d->thread, d->meaning);
		}
		if (json) {
			fputs("], \"presets\": [", stdout);
			for (; p->name; p++) {
				printf("%s{\"name\": ", p == msim_preset_table() ? "" : ", ");
				msim_json_str(stdout, p->name);
				fputs(", \"settings\": ", stdout);
				msim_json_str(stdout, p->settings);
				fputs("}", stdout);
			}
			fputs("]}\n", stdout);
			return 0;
		}
		puts("\npresets:");
		for (; p->name; p++)
			printf("  %-12s %s%s%s\n", p->name, p->meaning, *p->settings ? ": " : "",
			       p->settings);
		return 0;
	}
	const struct msim_scenario *s[64];
	const struct msim_bench *b[32];
	size_t ns = msim_scenario_list(s, 64), nb = msim_bench_list(b, 32);
	if (json) {
		fputs("{\"races\": [", stdout);
		for (size_t i = 0; i < ns; i++) {
			fputs(i ? ", " : "", stdout);
			msim_json_str(stdout, s[i]->name);
		}
		fputs("], \"benches\": [", stdout);
		for (size_t i = 0; i < nb; i++) {
			fputs(i ? ", " : "", stdout);
			msim_json_str(stdout, b[i]->name);
		}
		fputs("]}\n", stdout);
		return 0;
	}
	puts("races:");
	for (size_t i = 0; i < ns; i++)
		printf("  %-28s [%s] %s\n", s[i]->name, s[i]->thread, s[i]->summary);
	puts("benches:");
	for (size_t i = 0; i < nb; i++)
		printf("  %-28s %s\n", b[i]->name, b[i]->summary);
	return 0;
}

static int parse_uint(const char *opt, const char *arg, unsigned long long max,
		      unsigned long long *out)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || v > max || arg[0] == '-') {
		fprintf(stderr, "memcgsim: %s needs a whole number up to %llu, not '%s'\n", opt, max,
			arg);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

#define MAX_VARIANT_ARGS 32

struct race_cli {
	struct msim_race_opts o;
	struct msim_config cfg;
	bool json, strategy_set;
	const char *preset;                      /* applied first, */
	const char *variants[MAX_VARIANT_ARGS];  /* then these, in order */
	unsigned int nr_variants;
};

/* The preset resets every variant, so it goes first whatever the argument order. */
static int apply_variants(struct race_cli *c)
{
	char err[512];

	if (c->preset && msim_preset_apply(&c->cfg.variants, c->preset, err, sizeof(err))) {
		fprintf(stderr, "memcgsim: %s\n", err);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < c->nr_variants; i++) {
		if (msim_variant_set(&c->cfg.variants, c->variants[i], err, sizeof(err))) {
			fprintf(stderr, "memcgsim: %s\n", err);
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_race_opts(int argc, char **argv, struct race_cli *c)
{
	static const struct option longopts[] = {
		{ "strategy", required_argument, NULL, 's' }, { "runs", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },     { "depth", required_argument, NULL, 'd' },
		{ "preemptions", required_argument, NULL, 'p' },
		{ "schedule", required_argument, NULL, 'x' }, { "cpus", required_argument, NULL, 'c' },
		{ "preset", required_argument, NULL, 'P' },   { "variant", required_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },           { "first", no_argument, NULL, 'f' },
		{ "concurrent", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },           { NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (msim_strategy_parse(optarg, &c->o.strategy) ||
			    c->o.strategy == MSIM_STRAT_REPLAY) {
				fprintf(stderr, "memcgsim: unknown strategy '%s' (script, random, pct, dfs)\n",
					optarg);
				return -EINVAL;
			}
			c->strategy_set = true;
			break;
		case 'r':
			if (parse_uint("--runs", optarg, 100000000, &v))
				return -EINVAL;
			c->o.runs = (unsigned int)v;
			break;
		case 'S':
			if (parse_uint("--seed", optarg, ~0ULL, &v))
				return -EINVAL;
			c->o.seed = v;
			break;
		case 'd':
			if (parse_uint("--depth", optarg, 64, &v) || !v)
				return -EINVAL;
			c->o.depth = (unsigned int)v;
			break;
		case 'p':
			if (parse_uint("--preemptions", optarg, 64, &v))
				return -EINVAL;
			c->o.preemptions = (unsigned int)v;
			break;
		case 'x':
			c->o.schedule = optarg;
			c->o.strategy = MSIM_STRAT_REPLAY;
			c->strategy_set = true;
			break;
		case 'c':
			if (parse_uint("--cpus", optarg, MSIM_MAX_CPUS, &v) || !v)
				return -EINVAL;
			c->o.cpus = (unsigned int)v;
			break;
		case 'P':
			c->preset = optarg;
			break;
		case 'V':
			if (c->nr_variants == MAX_VARIANT_ARGS) {
				fprintf(stderr, "memcgsim: at most %d --variant options\n",
					MAX_VARIANT_ARGS);
				return -EINVAL;
			}
			c->variants[c->nr_variants++] = optarg;
			break;
		case 'j':
			c->json = true;
			break;
		case 'f':
			c->o.stop_at_first = true;
			break;
		case 'C':
			c->o.concurrent = true;
			break;
		case 'h':
			race_usage(stdout);
			exit(0);
		default:
			race_usage(stderr);
			return -EINVAL;
		}
	}
	return apply_variants(c);
}

static int cmd_race(int argc, char **argv)
{
	struct race_cli c;
	struct msim_race_result *res;
	const struct msim_scenario *s;
	char err[512] = "";

	memset(&c, 0, sizeof(c));
	c.o.preemptions = (unsigned int)-1;
	msim_config_init(&c.cfg);
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			race_usage(stdout);
			return 0;
		}
		race_usage(stderr);
		return 2;
	}
	s = msim_scenario_find(argv[1]);
	if (!s) {
		fprintf(stderr, "memcgsim: no race named '%s' (memcgsim list)\n", argv[1]);
		return 2;
	}
	if (parse_race_opts(argc - 1, argv + 1, &c))
		return 2;
	if (optind < argc - 1) {
		fprintf(stderr, "memcgsim: unexpected argument '%s'\n", argv[optind + 1]);
		return 2;
	}
	if (!c.strategy_set)
		c.o.strategy = s->script ? MSIM_STRAT_SCRIPT : MSIM_STRAT_PCT;
	res = calloc(1, sizeof(*res));
	if (!res)
		return 1;
	int ret = msim_race_run(s, &c.cfg, &c.o, res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "memcgsim: %s\n", err[0] ? err : strerror(-ret));
		free(res);
		return ret == -EINVAL ? 2 : 1;
	}
	if (c.json)
		msim_race_print_json(stdout, res);
	else
		msim_race_print_text(stdout, res);
	ret = res->behaved_as_expected ? 0 : 1;
	free(res);
	return ret;
}

static int cmd_bench(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		const struct msim_bench *b[32];
		size_t n = msim_bench_list(b, 32);
		fputs("usage: memcgsim bench NAME [ARGS]   (memcgsim bench NAME --help)\nbenches:\n",
		      argc < 2 ? stderr : stdout);
		for (size_t i = 0; i < n; i++)
			fprintf(argc < 2 ? stderr : stdout, "  %-24s %s\n", b[i]->name, b[i]->summary);
		return argc < 2 ? 2 : 0;
	}
	const struct msim_bench *b = msim_bench_find(argv[1]);
	if (!b) {
		fprintf(stderr, "memcgsim: no bench named '%s' (memcgsim bench --help)\n", argv[1]);
		return 2;
	}
	return msim_bench_run(b, argc - 1, argv + 1);
}

/* Apply "NAME=VALUE,NAME=VALUE" to v; 0 or -EINVAL (message printed). */
static int apply_side(struct msim_variants *v, const char *side)
{
	char buf[256], err[512], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", side);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (msim_variant_set(v, tok, err, sizeof(err))) {
			fprintf(stderr, "memcgsim: %s\n", err);
			return -EINVAL;
		}
	}
	return 0;
}

struct demo_row {
	const char *race, *side, *strategy;
	bool expected, found, ok;
};

/* One race on one side under one strategy; prints the block, fills the row. */
static int demo_one(const struct msim_scenario *s, const char *side, enum msim_strategy strat,
		    struct demo_row *row)
{
	struct msim_race_opts o = { .strategy = strat, .seed = 1, .preemptions = (unsigned int)-1 };
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_config cfg;
	char err[512] = "";

	if (!res)
		return -ENOMEM;
	msim_config_init(&cfg);
	if (apply_side(&cfg.variants, side)) {
		free(res);
		return -EINVAL;
	}
	fflush(stdout);
	fprintf(stderr, "memcgsim demo: %s%s%s (%s)...\n", s->name, *side ? " with " : "", side,
		msim_strategy_name(strat));
	memset(row, 0, sizeof(*row));
	row->race = s->name;
	row->side = *side ? side : "as configured";
	row->strategy = msim_strategy_name(strat);
	if (msim_race_run(s, &cfg, &o, res, err, sizeof(err))) {
		printf("race %s: %s\n\n", s->name, err);
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

/* `make run`: every race, on each of its demo sides, scripted (if it has a script) and under PCT. */
static int cmd_demo(int argc, char **argv)
{
	static const char *const as_given[] = { "", NULL };
	const struct msim_scenario *s[64];
	size_t n = msim_scenario_list(s, 64), nrows = 0;
	struct demo_row rows[64 * 8];

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: memcgsim demo\nRuns every race scenario on the sides it shows (the "
		     "variant with the bug and the one with the fix), scripted (if it has a script) "
		     "and under PCT (seed 1), then prints a summary table; exit 1 if any run did not "
		     "behave as expected.");
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *const *sides = s[i]->demo_sides[0] ? s[i]->demo_sides : as_given;
		for (size_t k = 0; sides[k] && nrows + 2 <= sizeof(rows) / sizeof(rows[0]); k++) {
			if (s[i]->script && demo_one(s[i], sides[k], MSIM_STRAT_SCRIPT, &rows[nrows]) == 0)
				nrows++;
			if (demo_one(s[i], sides[k], MSIM_STRAT_PCT, &rows[nrows]) == 0)
				nrows++;
		}
	}
	demo_summary(rows, nrows);
	for (size_t i = 0; i < nrows; i++)
		if (!rows[i].ok)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		puts("memcgsim " MEMCGSIM_VERSION_STRING);
		return 0;
	}
	if (!strcmp(cmd, "list")) {
		bool variants = false, json = false;
		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "--variants"))
				variants = true;
			else if (!strcmp(argv[i], "--json"))
				json = true;
			else if (!strcmp(argv[i], "--help")) {
				puts("usage: memcgsim list [--variants] [--json]");
				return 0;
			} else {
				fprintf(stderr, "memcgsim: list: unknown option '%s'\n", argv[i]);
				return 2;
			}
		}
		return print_list(variants, json);
	}
	if (!strcmp(cmd, "race"))
		return cmd_race(argc - 1, argv + 1);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(cmd, "demo"))
		return cmd_demo(argc - 1, argv + 1);
	fprintf(stderr, "memcgsim: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
