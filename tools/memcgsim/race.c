/* SPDX-License-Identifier: MIT */
/*
 * race.c - `memcgsim race NAME [OPTIONS]`: one race, on one side or under the
 * variants given, scripted or explored, printed as text or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
	      "  --side NAME       one side of the race: its settings and what it expects\n"
	      "                    (memcgsim list --markdown lists each race's sides)\n"
	      "  --cpus N          simulated CPUs\n"
	      "  --preset NAME     variant preset (memcgsim list --variants)\n"
	      "  --variant N=V     set one variant (repeatable, applied after --side and --preset)\n"
	      "  --first           stop at the first violation\n"
	      "  --concurrent      run the race's concurrent flavour (real threads, liburcu)\n"
	      "  --json            print one JSON object\n"
	      "exit: 0 behaved as expected, 1 did not, 2 usage error\n",
	      f);
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
	const char *side;                        /* applied first, */
	const char *preset;                      /* then this, */
	const char *variants[MAX_VARIANT_ARGS];  /* then these, in order */
	unsigned int nr_variants;
};

/* The numeric options: --runs, --seed, --depth, --preemptions, --cpus. */
static int parse_number_opt(struct race_cli *c, int opt, const char *arg)
{
	unsigned long long v;

	switch (opt) {
	case 'r':
		if (parse_uint("--runs", arg, 100000000, &v))
			return -EINVAL;
		c->o.runs = (unsigned int)v;
		return 0;
	case 'S':
		if (parse_uint("--seed", arg, ~0ULL, &v))
			return -EINVAL;
		c->o.seed = v;
		return 0;
	case 'd':
		if (parse_uint("--depth", arg, 64, &v) || !v)
			return -EINVAL;
		c->o.depth = (unsigned int)v;
		return 0;
	case 'p':
		if (parse_uint("--preemptions", arg, 64, &v))
			return -EINVAL;
		c->o.preemptions = (unsigned int)v;
		return 0;
	default: /* 'c' */
		if (parse_uint("--cpus", arg, MSIM_MAX_CPUS, &v) || !v)
			return -EINVAL;
		c->o.cpus = (unsigned int)v;
		return 0;
	}
}

/* One option other than a number; -EINVAL after printing why. */
static int parse_opt(struct race_cli *c, int opt, const char *arg)
{
	switch (opt) {
	case 's':
		if (msim_strategy_parse(arg, &c->o.strategy) || c->o.strategy == MSIM_STRAT_REPLAY) {
			fprintf(stderr, "memcgsim: unknown strategy '%s' (script, random, pct, dfs)\n",
				arg);
			return -EINVAL;
		}
		c->strategy_set = true;
		return 0;
	case 'x':
		c->o.schedule = arg;
		c->o.strategy = MSIM_STRAT_REPLAY;
		c->strategy_set = true;
		return 0;
	case 'e':
		c->side = arg;
		return 0;
	case 'P':
		c->preset = arg;
		return 0;
	case 'V':
		if (c->nr_variants == MAX_VARIANT_ARGS) {
			fprintf(stderr, "memcgsim: at most %d --variant options\n", MAX_VARIANT_ARGS);
			return -EINVAL;
		}
		c->variants[c->nr_variants++] = arg;
		return 0;
	case 'j':
		c->json = true;
		return 0;
	case 'f':
		c->o.stop_at_first = true;
		return 0;
	case 'C':
		c->o.concurrent = true;
		return 0;
	default:
		return parse_number_opt(c, opt, arg);
	}
}

static int parse_race_opts(int argc, char **argv, struct race_cli *c)
{
	static const struct option longopts[] = {
		{ "strategy", required_argument, NULL, 's' }, { "runs", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },     { "depth", required_argument, NULL, 'd' },
		{ "preemptions", required_argument, NULL, 'p' },
		{ "schedule", required_argument, NULL, 'x' }, { "cpus", required_argument, NULL, 'c' },
		{ "side", required_argument, NULL, 'e' },
		{ "preset", required_argument, NULL, 'P' },   { "variant", required_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },           { "first", no_argument, NULL, 'f' },
		{ "concurrent", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },           { NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			race_usage(stdout);
			exit(0);
		}
		if (opt == '?') {
			race_usage(stderr);
			return -EINVAL;
		}
		if (parse_opt(c, opt, optarg))
			return -EINVAL;
	}
	return 0;
}

/*
 * The configuration: the side's settings, then the preset (which resets every
 * variant, so it goes before any --variant whatever the argument order), then
 * each --variant in order.
 */
static int apply_settings(const struct msim_race *r, struct race_cli *c)
{
	char err[512];

	if (c->side && !(c->o.side = msim_race_side_find(r, c->side))) {
		fprintf(stderr, "memcgsim: race %s has no side '%s'; its sides:", r->name, c->side);
		for (const struct msim_race_side *s = r->sides; s && s->name; s++)
			fprintf(stderr, " %s", s->name);
		fputc('\n', stderr);
		return -EINVAL;
	}
	if ((c->o.side && msim_race_settings_apply(&c->cfg, c->o.side->settings, err,
						   sizeof(err))) ||
	    (c->preset && msim_preset_apply(&c->cfg.variants, c->preset, err, sizeof(err)))) {
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

/* Run and print; the exit status. */
static int run_and_print(const struct msim_race *r, struct race_cli *c)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	char err[512] = "";
	int ret;

	if (!res)
		return 1;
	ret = msim_race_run(r, &c->cfg, &c->o, res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "memcgsim: %s\n", err[0] ? err : strerror(-ret));
		free(res);
		return ret == -EINVAL ? 2 : 1;
	}
	if (c->json)
		msim_race_print_json(stdout, res);
	else
		msim_race_print_text(stdout, res);
	ret = res->behaved_as_expected ? 0 : 1;
	free(res);
	return ret;
}

int msim_cli_race(int argc, char **argv)
{
	const struct msim_race *r;
	struct race_cli c;

	memset(&c, 0, sizeof(c));
	msim_race_opts_init(&c.o, MSIM_STRAT_SCRIPT);
	msim_config_init(&c.cfg);
	if (argc < 2 || argv[1][0] == '-') {
		bool help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
		race_usage(help ? stdout : stderr);
		return help ? 0 : 2;
	}
	r = msim_race_find(argv[1]);
	if (!r) {
		fprintf(stderr, "memcgsim: no race named '%s' (memcgsim list)\n", argv[1]);
		return 2;
	}
	if (parse_race_opts(argc - 1, argv + 1, &c))
		return 2;
	if (optind < argc - 1) {
		fprintf(stderr, "memcgsim: unexpected argument '%s'\n", argv[optind + 1]);
		return 2;
	}
	if (apply_settings(r, &c))
		return 2;
	if (!c.strategy_set)
		c.o.strategy = r->script || r->script_hosts ? MSIM_STRAT_SCRIPT : MSIM_STRAT_PCT;
	return run_and_print(r, &c);
}
