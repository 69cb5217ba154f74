/* SPDX-License-Identifier: MIT */
/*
 * merge.c - `memcgsim merge [--json] [FILE...]`: the JSON lines that
 * `memcgsim race NAME --shard I/N --json` printed, one per shard, from any
 * machines, combined into the result one process would have printed
 * (msim_race_merge): the same runs, violations, first violation and replay
 * string. Read with jansson.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench_args.h"
#include "cli.h"

#define MAX_PARTS 65536u

struct merge_cli {
	bool json;
	const char *files[256];
	unsigned int nfiles;
};

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static long long jint(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static bool jbool(json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

/* The configuration a shard ran: its side's settings, its variants, CPUs, preemption. */
static int shard_config(const struct msim_race *r, json_t *o, struct msim_race_result *res,
			char *err, size_t errlen)
{
	const char *side = json_string_value(json_object_get(o, "side"));
	int ret;

	msim_config_init(&res->cfg);
	if (side && !(res->side = msim_race_side_find(r, side))) {
		snprintf(err, errlen, "race %s has no side '%s'", r->name, side);
		return -EINVAL;
	}
	if (res->side && (ret = msim_race_settings_apply(&res->cfg, res->side->settings, err,
							 errlen)))
		return ret;
	if ((ret = msim_race_settings_apply(&res->cfg, jstr(o, "variants"), err, errlen)))
		return ret;
	if (msim_preempt_parse(jstr(o, "preempt"), &res->cfg.preempt)) {
		snprintf(err, errlen, "unknown preemption model '%s'", jstr(o, "preempt"));
		return -EINVAL;
	}
	/* absent under sc, the default (print.c names only the others) */
	res->cfg.memory_model = MSIM_MEMORY_SC;
	if (json_object_get(o, "memory_model") &&
	    msim_memory_model_parse(jstr(o, "memory_model"), &res->cfg.memory_model)) {
		snprintf(err, errlen, "unknown memory model '%s'", jstr(o, "memory_model"));
		return -EINVAL;
	}
	if (jint(o, "cpus") < 1 || jint(o, "cpus") > MSIM_MAX_CPUS) {
		snprintf(err, errlen, "cpus %lld out of range (1 to %u)", jint(o, "cpus"),
			 MSIM_MAX_CPUS);
		return -EINVAL;
	}
	res->cfg.nr_cpus = (unsigned int)jint(o, "cpus");
	return 0;
}

/* One shard's JSON object back into a result. */
static int shard_from_json(json_t *o, struct msim_race_result *res, char *err, size_t errlen)
{
	const struct msim_race *r = msim_race_find(jstr(o, "race"));

	memset(res, 0, sizeof(*res));
	if (!json_is_object(o) || !json_object_get(o, "shard_count")) {
		snprintf(err, errlen, "not a shard's result (no shard_count: run memcgsim race "
			 "with --shard I/N --json)");
		return -EINVAL;
	}
	if (!r) {
		snprintf(err, errlen, "no race named '%s' in this build", jstr(o, "race"));
		return -EINVAL;
	}
	if (msim_strategy_parse(jstr(o, "strategy"), &res->strategy)) {
		snprintf(err, errlen, "unknown strategy '%s'", jstr(o, "strategy"));
		return -EINVAL;
	}
	for (const char *const *k = (const char *const[]){ "runs", "violations", "shard_index",
							  "shard_count", "first_run", "runs_total",
							  NULL }; *k; k++) {
		if (jint(o, *k) < 0 || jint(o, *k) > UINT32_MAX) {
			snprintf(err, errlen, "%s %lld out of range", *k, jint(o, *k));
			return -EINVAL;
		}
	}
	res->race = r->name;
	res->script_replays = r->script_replays;
	res->seed = (uint64_t)jint(o, "seed");
	res->ex.runs = (unsigned int)jint(o, "runs");
	res->ex.violations = (unsigned int)jint(o, "violations");
	res->ex.first_violation_run = (int)jint(o, "first_violation_run");
	res->ex.first_violation_seed = (uint64_t)jint(o, "first_violation_seed");
	res->ex.trace_hash = strtoull(jstr(o, "trace_hash"), NULL, 16);
	res->ex.deadlocked = jbool(o, "deadlocked");
	res->ex.diverged = jbool(o, "diverged");
	res->ex.env_replay = jbool(o, "env_replay");
	res->ex.schedule_truncated = jbool(o, "schedule_truncated");
	res->ex.seconds = json_number_value(json_object_get(o, "seconds"));
	snprintf(res->ex.schedule, sizeof(res->ex.schedule), "%s", jstr(o, "schedule"));
	snprintf(res->ex.why, sizeof(res->ex.why), "%s", jstr(o, "why"));
	snprintf(res->variants, sizeof(res->variants), "%s", jstr(o, "variants"));
	res->expected_violation = jbool(o, "expected_violation");
	res->behaved_as_expected = jbool(o, "behaved_as_expected");
	res->shard = (struct msim_race_shard){
		.index = (unsigned int)jint(o, "shard_index"),
		.count = (unsigned int)jint(o, "shard_count"),
		.first_run = (unsigned int)jint(o, "first_run"),
		.runs_total = (unsigned int)jint(o, "runs_total"),
	};
	return shard_config(r, o, res, err, errlen);
}

/* Append every JSON line of f (name for messages) to *parts. */
static int read_parts(FILE *f, const char *name, struct msim_race_result **parts, size_t *n,
		      char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned int lineno = 0;
	int ret = 0;

	while (!ret && getline(&line, &cap, f) >= 0) {
		json_error_t jerr;
		json_t *o;

		lineno++;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (*n >= MAX_PARTS || !(o = json_loads(line, 0, &jerr))) {
			snprintf(err, errlen, "%s:%u: %s", name, lineno,
				 *n >= MAX_PARTS ? "too many shards" : jerr.text);
			ret = -EINVAL;
			break;
		}
		parts[*n] = malloc(sizeof(**parts));
		if (!parts[*n])
			ret = -ENOMEM;
		else if ((ret = shard_from_json(o, parts[*n], err, errlen)))
			free(parts[*n]);
		else
			(*n)++;
		json_decref(o);
	}
	free(line);
	return ret;
}

static int read_files(const struct merge_cli *c, struct msim_race_result **parts, size_t *n,
		      char *err, size_t errlen)
{
	if (!c->nfiles)
		return read_parts(stdin, "<stdin>", parts, n, err, errlen);
	for (unsigned int i = 0; i < c->nfiles; i++) {
		FILE *f = strcmp(c->files[i], "-") ? fopen(c->files[i], "r") : stdin;
		int ret;

		if (!f) {
			snprintf(err, errlen, "%s: %s", c->files[i], strerror(errno));
			return -errno;
		}
		ret = read_parts(f, c->files[i], parts, n, err, errlen);
		if (f != stdin)
			fclose(f);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_merge_opts(int argc, char **argv, struct merge_cli *c)
{
	const struct msim_arg table[] = {
		MSIM_OPT_HELP(),
		MSIM_OPT_FLAG("--json", &c->json, "print one JSON object"),
		MSIM_OPT_END,
	};
	const struct msim_args spec = {
		.prog = "memcgsim merge",
		.operands_meta = "[FILE...]",
		.summary = "Merge the JSON results of every shard of one exploration\n"
			   "('memcgsim race NAME --shard I/N --json', one line each, from files\n"
			   "or standard input) into the result one process would have printed.\n"
			   "Exit: 0 as expected, 1 not, 2 bad input.",
		.tables = { table },
		.operands = c->files,
		.max_operands = 256,
		.nr_operands = &c->nfiles,
	};

	return msim_args_parse_main(&spec, argc, argv);
}

int msim_cli_merge(int argc, char **argv)
{
	struct merge_cli c = { 0 };
	struct msim_race_result **parts = calloc(MAX_PARTS, sizeof(*parts));
	struct msim_race_result *out = calloc(1, sizeof(*out));
	char err[512] = "";
	size_t n = 0;
	int ret = parse_merge_opts(argc, argv, &c);

	if (ret || !parts || !out) {
		free(parts);
		free(out);
		return ret ? msim_args_exit_status(ret) : 1;
	}
	ret = read_files(&c, parts, &n, err, sizeof(err));
	if (!ret)
		ret = msim_race_merge((const struct msim_race_result *const *)parts, n, out, err,
				      sizeof(err));
	if (ret)
		fprintf(stderr, "memcgsim merge: %s\n", err);
	else if (c.json)
		msim_race_print_json(stdout, out);
	else
		msim_race_print_text(stdout, out);
	for (size_t i = 0; i < n; i++)
		free(parts[i]);
	ret = ret ? 2 : (out->behaved_as_expected ? 0 : 1);
	free(parts);
	free(out);
	return ret;
}
