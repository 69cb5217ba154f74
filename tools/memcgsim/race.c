/* SPDX-License-Identifier: MIT */
/*
 * race.c - `memcgsim race NAME [OPTIONS]`: one race, on one side or under the
 * variants given, scripted or explored, printed as text or JSON.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "cli.h"

#define MAX_VARIANT_ARGS 32

struct race_cli {
	struct msim_race_opts o;
	struct msim_config cfg;
	bool json, strategy_set, lockdep, unbounded, minimize;
	const char *trace;                       /* --trace FILE: the run as a timeline */
	bool trace_points;                       /* --trace-points: every yield point too */
	const char *preempt;                     /* after the side: the preemption model */
	const char *memory_model;                /* after the side: sc, tso or pso */
	const char *side;                        /* applied first, */
	const char *preset;                      /* then this, */
	const char *variants[MAX_VARIANT_ARGS];  /* then these, in order */
	struct bench_arg_list variant_list;
	unsigned int jobs;                       /* > 1: worker processes over shards */
};

/* --strategy: an explorer the command can start (replay comes from --schedule). */
static int parse_strategy(const char *value, void *dest, char *err, size_t errlen)
{
	struct race_cli *c = dest;

	if (msim_strategy_parse(value, &c->o.strategy) || c->o.strategy == MSIM_STRAT_REPLAY) {
		snprintf(err, errlen, "unknown strategy '%s' (script, random, pct, dfs, dpor)",
			 value);
		return -EINVAL;
	}
	c->strategy_set = true;
	return 0;
}

/* --schedule: replay this schedule, whatever --strategy said. */
static int parse_schedule(const char *value, void *dest, char *err, size_t errlen)
{
	struct race_cli *c = dest;

	c->o.schedule = value;
	c->o.strategy = MSIM_STRAT_REPLAY;
	c->strategy_set = true;
	return 0;
}

/* --shard I/N: run one shard of a random or PCT exploration. */
static int parse_shard(const char *value, void *dest, char *err, size_t errlen)
{
	struct race_cli *c = dest;

	return msim_race_shard_parse(value, &c->o.shard_index, &c->o.shard_count, err, errlen);
}

/* The options of `memcgsim race`, in the order --help lists them. */
static void race_opts_table(struct race_cli *c, struct bench_arg *t)
{
	const struct bench_arg opts[] = {
		BENCH_OPT_HELP(),
		BENCH_OPT_CALL("--strategy", "S", parse_strategy, c,
			       "script | random | pct | dfs | dpor (default: script if the race\n"
			      "has one, else pct)"),
		BENCH_OPT_UINT("--runs", "N", &c->o.runs, 0, 100000000,
			       "runs to explore (random, pct) or schedules at most (dfs, dpor; "
			      "default: the race's budget, DPOR's own where the race gives one and "
			      "--preemptions is not given)"),
		BENCH_OPT_U64("--seed", "S", &c->o.seed, 0, UINT64_MAX, "first seed (run i uses S+i)"),
		BENCH_OPT_UINT("--depth", "D", &c->o.depth, 1, 64, "PCT bug depth"),
		BENCH_OPT_UINT("--preemptions", "P", &c->o.preemptions, 0, 64,
			       "DFS and DPOR preemption bound"),
		BENCH_OPT_FLAG("--unbounded", &c->unbounded,
			       "DFS and DPOR: no preemption bound (DPOR: a proof when exhausted)"),
		BENCH_OPT_CALL("--schedule", "STR", parse_schedule, c,
			       "replay this schedule (implies the replay strategy)"),
		BENCH_OPT_STRING("--side", "NAME", &c->side,
				 "one side of the race: its settings and what it expects\n"
				"(memcgsim list --markdown lists each race's sides)"),
		BENCH_OPT_UINT("--cpus", "N", &c->o.cpus, 1, MSIM_MAX_CPUS, "simulated CPUs"),
		BENCH_OPT_STRING("--preempt", "MODEL",
				 &c->preempt, "preemption model: unmodelled (default), none or full\n"
				"(overrides the side's)"),
		BENCH_OPT_STRING("--memory-model", "MODEL", &c->memory_model,
				 "memory model: sc (default), tso or pso: stores wait in per-CPU\n"
				"store buffers the explorers drain (docs/memory-model.md;\n"
				"overrides the side's)"),
		BENCH_OPT_STRING("--preset", "NAME", &c->preset,
				 "variant preset (memcgsim list --variants)"),
		BENCH_OPT_LIST("--variant", "N=V", &c->variant_list,
			       "set one variant (repeatable, applied after --side and --preset)"),
		BENCH_OPT_FLAG("--first", &c->o.stop_at_first, "stop at the first violation"),
		BENCH_OPT_FLAG("--minimize", &c->minimize,
			       "shrink a failing schedule (--schedule, else the first one the\n"
			      "explorer finds; dfs unless --strategy) to the fewest preemptions"),
		BENCH_OPT_FLAG("--concurrent", &c->o.concurrent,
			       "run the race's concurrent flavour (real threads, liburcu)"),
		BENCH_OPT_UINT("--jobs", "N", &c->jobs, 1, 256,
			       "run a random or pct exploration in N worker processes over\n"
			      "disjoint runs; prints what one process would (with --first,\n"
			      "the same first violation; runs counts every worker's runs)"),
		BENCH_OPT_CALL("--shard", "I/N", parse_shard, c,
			       "run only shard I of N (random, pct) and print it for\n"
			      "'memcgsim merge' (docs/explore-at-scale.md)"),
		BENCH_OPT_FLAG("--lockdep", &c->lockdep,
			       "check lock order across every run and print what it finds\n"
			      "(docs/lockdep.md; the exit status stays the race's)"),
		BENCH_OPT_FLAG("--json", &c->json, "print one JSON object"),
		BENCH_OPT_STRING("--trace", "FILE", &c->trace,
				 "also write the run (an explorer's first violation, else its last\n"
				"run) as Chrome trace JSON for ui.perfetto.dev or chrome://tracing"),
		BENCH_OPT_FLAG("--trace-points", &c->trace_points,
			       "with --trace: an instant event at every yield point and RCU\n"
			      "engine step too (by default only the finding)"),
		BENCH_OPT_END,
	};

	memcpy(t, opts, sizeof(opts));
}

#define RACE_NR_OPTS 28

static void race_epilog(FILE *f, void *ctx)
{
	fputs("exit: 0 behaved as expected, 1 did not, 2 usage error\n", f);
}

/* argv[0] is the race's name; 0 to run, 1 after --help, 2 after a usage error. */
static int parse_race_opts(int argc, char **argv, struct race_cli *c)
{
	struct bench_arg table[RACE_NR_OPTS];
	const struct bench_args spec = {
		.prog = "memcgsim race",
		.operands_meta = "NAME",
		.tables = { table },
		.epilog = race_epilog,
	};

	race_opts_table(c, table);
	c->variant_list = (struct bench_arg_list){ .items = c->variants, .max = MAX_VARIANT_ARGS };
	return bench_args_parse_main(&spec, argc, argv);
}

/* `memcgsim race --help` (and a missing NAME): the generated help, no race needed. */
static int race_usage(bool help)
{
	struct race_cli c;
	char *argv[] = { "race", "--help", NULL };

	memset(&c, 0, sizeof(c));
	if (help)
		return bench_args_exit_status(parse_race_opts(2, argv, &c));
	fputs("memcgsim race: which race? (memcgsim list names them; memcgsim race --help)\n",
	      stderr);
	return 2;
}

/*
 * The configuration: the side's settings, then the preset (which resets every
 * variant, so it goes before any --variant whatever the argument order), then
 * --preempt, then each --variant in order.
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
	if (c->preempt && msim_preempt_parse(c->preempt, &c->cfg.preempt)) {
		fprintf(stderr, "memcgsim: unknown preemption model '%s' (unmodelled, none, "
				"full)\n", c->preempt);
		return -EINVAL;
	}
	if (c->memory_model && msim_memory_model_parse(c->memory_model, &c->cfg.memory_model)) {
		fprintf(stderr, "memcgsim: unknown memory model '%s' (sc, tso, pso)\n",
			c->memory_model);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < c->variant_list.n; i++) {
		if (msim_variant_set(&c->cfg.variants, c->variants[i], err, sizeof(err))) {
			fprintf(stderr, "memcgsim: %s\n", err);
			return -EINVAL;
		}
	}
	return 0;
}

/* --trace FILE: the run of res taken again as a timeline; 0 or 1. */
static int write_trace(const struct msim_race *r, const struct msim_race_result *res,
		       const char *path, bool points)
{
	char err[512] = "";
	FILE *f = fopen(path, "w");
	int ret;

	if (!f) {
		fprintf(stderr, "memcgsim: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	ret = msim_race_trace_flags(r, res, f, points ? MSIM_RACE_TRACE_POINTS : 0, err,
				    sizeof(err));
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "memcgsim: %s\n", err[0] ? err : strerror(-ret));
		return 1;
	}
	fprintf(stderr, "trace written to %s (open it in ui.perfetto.dev or chrome://tracing)\n",
		path);
	return 0;
}

/* The options that give the run the same configuration, for a replay line. */
static void replay_args(const struct race_cli *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (c->side)
		n += (size_t)snprintf(buf + n, len - n, " --side %s", c->side);
	if (c->preset && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --preset %s", c->preset);
	for (unsigned int i = 0; i < c->variant_list.n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " --variant %s", c->variants[i]);
	if (c->o.cpus && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --cpus %u", c->o.cpus);
	if (c->preempt && n < len)
		n += (size_t)snprintf(buf + n, len - n, " --preempt %s", c->preempt);
	if (c->memory_model && n < len)
		snprintf(buf + n, len - n, " --memory-model %s", c->memory_model);
}

static void print_minimized(const struct msim_race *r, const struct race_cli *c,
			    const char *input, const struct msim_minimize_result *mr)
{
	const struct msim_explore_result *ex = &mr->ex;
	char args[512];

	replay_args(c, args, sizeof(args));
	if (c->json) {
		printf("{\"race\": \"%s\", \"input\": \"%s\", \"input_preemptions\": %u, "
		       "\"schedule\": \"%s\", \"preemptions\": %u, \"blocks\": %u, "
		       "\"replays\": %u, \"proven\": %s, \"preemption_points\": [", r->name,
		       input, mr->input_preemptions, ex->schedule, ex->preemptions, mr->blocks,
		       mr->replays, mr->proven ? "true" : "false");
		for (unsigned int i = 0; i < ex->preemptions && i < MSIM_PREEMPT_LOG; i++)
			printf("%s{\"step\": %llu, \"from\": %d, \"to\": %d, \"at\": \"%s\"}",
			       i ? ", " : "", (unsigned long long)ex->preempt_log[i].step,
			       ex->preempt_log[i].from, ex->preempt_log[i].to,
			       ex->preempt_log[i].at ? ex->preempt_log[i].at : "?");
		printf("]}\n");
		return;
	}
	printf("race %s: minimized a failing schedule (%u replays)\n", r->name, mr->replays);
	printf("  input:   %u preemptions, %u blocks: %s\n", mr->input_preemptions,
	       mr->input_blocks, input);
	printf("  minimal: %u preemptions, %u blocks: %s\n", ex->preemptions, mr->blocks,
	       ex->schedule);
	printf("  %s\n", mr->proven ? "fewest possible: DFS exhausted every smaller preemption "
				       "bound without a violation"
				     : "fewest found (a smaller bound was not exhausted)");
	printf("  why: %.*s\n", (int)strcspn(ex->why, "\n"), ex->why);
	for (unsigned int i = 0; i < ex->preemptions && i < MSIM_PREEMPT_LOG; i++) {
		const struct msim_preemption *p = &ex->preempt_log[i];

		if (p->to <= -2)   /* an early store-buffer drain (explore.h) */
			printf("  preemption %u at step %llu: task %d parked at %s, a store of "
			       "CPU %d's buffer reaches memory\n", i + 1,
			       (unsigned long long)p->step, p->from, p->at ? p->at : "?",
			       -2 - p->to);
		else
			printf("  preemption %u at step %llu: task %d preempted at %s, task %d "
			       "runs\n", i + 1, (unsigned long long)p->step, p->from,
			       p->at ? p->at : "?", p->to);
	}
	printf("  replay: memcgsim race %s%s --schedule '%s'\n", r->name, args, ex->schedule);
}

/* --minimize: a failing schedule (given, or the explorer's first), then its minimum. */
static int run_minimize(const struct msim_race *r, struct race_cli *c)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	struct msim_minimize_result *mr = calloc(1, sizeof(*mr));
	char err[512] = "", *input = NULL;
	int ret = 1;

	if (!res || !mr)
		goto out;
	if (c->o.strategy != MSIM_STRAT_REPLAY) {
		if (!c->strategy_set || c->o.strategy == MSIM_STRAT_SCRIPT)
			c->o.strategy = MSIM_STRAT_DFS;
		c->o.stop_at_first = true;
		if (msim_race_run(r, &c->cfg, &c->o, res, err, sizeof(err))) {
			fprintf(stderr, "memcgsim: %s\n", err);
			goto out;
		}
		if (!res->ex.violations) {
			fprintf(stderr, "memcgsim: race %s: no failing schedule in %u runs of %s: "
					"nothing to minimize\n", r->name, res->ex.runs,
				msim_strategy_name(c->o.strategy));
			goto out;
		}
		input = strdup(res->ex.schedule);
	} else {
		input = strdup(c->o.schedule);
	}
	if (!input)
		goto out;
	ret = msim_race_minimize(r, &c->cfg, c->o.side, input, mr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "memcgsim: %s\n", err);
		ret = ret == -EINVAL || ret == -EPROTO ? 2 : 1;
		goto out;
	}
	print_minimized(r, c, input, mr);
out:
	free(input);
	free(mr);
	free(res);
	return ret;
}

/*
 * Options that do not go together, refused before anything runs (or forks): a
 * message on stderr and true.
 */
static bool bad_combination(const struct race_cli *c)
{
	bool spread = c->jobs > 1 || c->o.shard_count > 1;
	const char *why = NULL;

	if (c->jobs > 1 && c->o.shard_count > 1)
		why = "--jobs and --shard do not go together (run the shard's jobs as shards of "
		      "their own)";
	else if (c->jobs > 1 && c->lockdep)
		why = "--lockdep checks the runs of one process; leave out --jobs";
	else if (spread && c->o.concurrent)
		why = "--jobs and --shard spread explorations, not the concurrent flavour";
	else if (spread && c->o.strategy != MSIM_STRAT_RANDOM && c->o.strategy != MSIM_STRAT_PCT)
		why = "--jobs and --shard split random and pct explorations only (a script runs "
		      "once, and a dfs or dpor schedule depends on the ones before it): add "
		      "--strategy pct";
	if (why)
		fprintf(stderr, "memcgsim: %s\n", why);
	return why != NULL;
}

/* Run and print; the exit status. */
static int run_and_print(const struct msim_race *r, struct race_cli *c)
{
	struct msim_race_result *res = calloc(1, sizeof(*res));
	char err[512] = "";
	int ret;

	if (!res)
		return 1;
	if (bad_combination(c)) {
		free(res);
		return 2;
	}
	if (c->lockdep && !(c->cfg.lockdep = msim_lockdep_create())) {
		free(res);
		return 1;
	}
	if (c->jobs > 1)
		ret = msim_cli_race_jobs(r, &c->cfg, &c->o, c->jobs, res, err, sizeof(err));
	else
		ret = msim_race_run(r, &c->cfg, &c->o, res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "memcgsim: %s\n", err[0] ? err : strerror(-ret));
		msim_lockdep_destroy(c->cfg.lockdep);
		free(res);
		return ret == -EINVAL ? 2 : 1;
	}
	if (c->json)
		msim_race_print_json(stdout, res);
	else
		msim_race_print_text(stdout, res);
	ret = res->behaved_as_expected ? 0 : 1;
	if (c->trace && write_trace(r, res, c->trace, c->trace_points))
		ret = 1;
	msim_lockdep_destroy(c->cfg.lockdep);
	free(res);
	return ret;
}

int msim_cli_race(int argc, char **argv)
{
	const struct msim_race *r;
	struct race_cli c;
	int ret;

	memset(&c, 0, sizeof(c));
	msim_race_opts_init(&c.o, MSIM_STRAT_SCRIPT);
	msim_config_init(&c.cfg);
	if (argc < 2 || argv[1][0] == '-')
		return race_usage(argc >= 2 && (!strcmp(argv[1], "--help") ||
						!strcmp(argv[1], "-h")));
	r = msim_race_find(argv[1]);
	if (!r) {
		fprintf(stderr, "memcgsim: no race named '%s' (memcgsim list)\n", argv[1]);
		return 2;
	}
	ret = parse_race_opts(argc - 1, argv + 1, &c);
	if (ret)
		return bench_args_exit_status(ret);
	if (apply_settings(r, &c))
		return 2;
	if (c.unbounded)
		c.o.preemptions = MSIM_EXPLORE_UNBOUNDED;
	if (c.minimize && (c.jobs > 1 || c.o.shard_count > 1 || c.trace || c.lockdep ||
			   c.o.concurrent)) {
		fputs("memcgsim: --minimize takes one failing schedule in one process: leave out "
		      "--jobs, --shard, --trace, --lockdep and --concurrent (replay its result "
		      "with --trace)\n", stderr);
		return 2;
	}
	if (c.minimize)
		return run_minimize(r, &c);
	if (!c.strategy_set)
		c.o.strategy = r->script || r->script_hosts ? MSIM_STRAT_SCRIPT : MSIM_STRAT_PCT;
	return run_and_print(r, &c);
}
