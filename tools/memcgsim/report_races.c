/* SPDX-License-Identifier: MIT */
/*
 * report_races.c - the races of `memcgsim report`: every registered race, each
 * side scripted (where the race has a script) and explored (random, PCT and
 * bounded DFS, stopping at the first violation), a trace of the side with the
 * bug, all written to DIR/race-NAME.json and read back.
 *
 * What an explorer finds is reachability under an adversarial scheduler: the
 * report prints "schedules to the first violation", never a frequency.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define QUICK_RUNS 100

static const enum msim_strategy explorers[] = { MSIM_STRAT_RANDOM, MSIM_STRAT_PCT,
						MSIM_STRAT_DFS };

/* A printer's output (text or JSON) as a string; NULL when out of memory. */
static char *printed(void (*print)(FILE *, const struct msim_race_result *),
		     const struct msim_race_result *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	print(f, res);
	fclose(f);
	return buf;
}

/* res as the race printer's JSON read back, with its text (narrative, replay) added. */
static json_t *result_json(const struct msim_race_result *res)
{
	char *json = printed(msim_race_print_json, res), *text = printed(msim_race_print_text, res);
	json_t *o = json ? json_loads(json, 0, NULL) : NULL;

	if (o && text)
		json_object_set_new(o, "text", json_string(text));
	free(json);
	free(text);
	return o;
}

static int run_one(const struct msim_race *r, const struct msim_race_side *side,
		   const struct msim_race_opts *o, struct msim_race_result *res, char *err,
		   size_t errlen)
{
	struct msim_config cfg;

	if (side)
		return msim_race_run_side(r, side->name, o, res, err, errlen);
	msim_config_init(&cfg);
	return msim_race_run(r, &cfg, o, res, err, errlen);
}

/* The trace of res into DIR/traces/NAME.json; the relative path in rr, or "". */
static void write_trace(struct report *rep, struct report_race *rr,
			const struct msim_race_result *res)
{
	char rel[REPORT_NAME_MAX], path[REPORT_PATH_MAX], err[256] = "";
	FILE *f;
	int ret;

	snprintf(rel, sizeof(rel), "traces/%s.json", rr->r->name);
	if (!report_path(rep, rel, path, sizeof(path)) || !(f = fopen(path, "w")))
		return;
	ret = msim_race_trace(rr->r, res, f, err, sizeof(err));
	if (fclose(f) || ret) {
		report_progress(rep, "race %s: no trace (%s)", rr->r->name, err);
		remove(path);
		return;
	}
	snprintf(rr->trace_file, sizeof(rr->trace_file), "%s", rel);
}

/* One explorer on side: its result object, plus schedules to the first violation. */
static json_t *explore_side(struct report *rep, struct report_race *rr,
			    const struct msim_race_side *side, enum msim_strategy s,
			    struct msim_race_result *res, int *failed)
{
	struct msim_race_opts o;
	char err[512] = "";
	json_t *j;

	msim_race_opts_init(&o, s);
	o.stop_at_first = true;
	o.seed = 1;
	if (rep->quick)
		o.runs = QUICK_RUNS;
	if (run_one(rr->r, side, &o, res, err, sizeof(err))) {
		report_progress(rep, "race %s %s %s: %s", rr->r->name, side ? side->name : "",
				msim_strategy_name(s), err);
		(*failed)++;
		return NULL;
	}
	j = result_json(res);
	if (j && res->ex.first_violation_run >= 0)
		json_object_set_new(j, "schedules_to_first_violation",
				    json_integer(res->ex.first_violation_run + 1));
	if (j && res->ex.violations)
		json_object_set_new(j, "label", json_string(
			"reachable under an adversarial scheduler (not a frequency)"));
	return j;
}

/* The side's script (when the race has one) and its explorers, as one object. */
static json_t *run_side(struct report *rep, struct report_race *rr,
			const struct msim_race_side *side, struct msim_race_result *res,
			int *failed)
{
	json_t *o = json_object(), *ex = json_array();
	struct msim_race_opts opts;
	char err[512] = "";
	bool traced = rr->trace_file[0] != '\0';

	json_object_set_new(o, "side", json_string(side ? side->name : "default"));
	json_object_set_new(o, "summary", json_string(side && side->summary ? side->summary : ""));
	json_object_set_new(o, "violation_expected", json_boolean(!side || side->violation));
	if (rr->r->script || rr->r->script_hosts) {
		msim_race_opts_init(&opts, MSIM_STRAT_SCRIPT);
		if (run_one(rr->r, side, &opts, res, err, sizeof(err))) {
			report_progress(rep, "race %s %s script: %s", rr->r->name,
					side ? side->name : "", err);
			(*failed)++;
		} else {
			json_object_set_new(o, "script", result_json(res));
			if (!traced && res->ex.violations)
				write_trace(rep, rr, res);
		}
	}
	for (unsigned int i = 0; i < sizeof(explorers) / sizeof(explorers[0]); i++) {
		json_t *j = explore_side(rep, rr, side, explorers[i], res, failed);

		if (j)
			json_array_append_new(ex, j);
		if (j && !rr->trace_file[0] && res->ex.violations)
			write_trace(rep, rr, res);
		report_benches_poll(rep);
	}
	json_object_set_new(o, "explore", ex);
	return o;
}

static json_t *race_header(const struct report_race *rr)
{
	const struct msim_race *r = rr->r;

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "race", r->name, "thread", rr->thread,
			 "label", r->thread ? r->thread : "", "windows", r->windows ? r->windows : "",
			 "summary", r->summary ? r->summary : "", "diagram",
			 r->diagram ? r->diagram : "");
}

/* Run every side of rr's race; write DIR/race-NAME.json and read it back. */
static int run_race(struct report *rep, struct report_race *rr, struct msim_race_result *res)
{
	json_t *doc = race_header(rr), *sides = json_array();
	char name[REPORT_NAME_MAX], path[REPORT_PATH_MAX];
	int failed = 0;
	double t0 = report_now();

	if (rr->r->sides) {
		for (const struct msim_race_side *s = rr->r->sides; s->name; s++)
			json_array_append_new(sides, run_side(rep, rr, s, res, &failed));
	} else {
		json_array_append_new(sides, run_side(rep, rr, NULL, res, &failed));
	}
	json_object_set_new(doc, "sides", sides);
	json_object_set_new(doc, "trace", json_string(rr->trace_file));
	snprintf(name, sizeof(name), "race-%s.json", rr->r->name);
	if (!report_path(rep, name, path, sizeof(path)) ||
	    json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
		failed++;
	json_decref(doc);
	rr->doc = path[0] ? json_load_file(path, 0, NULL) : NULL;
	failed += !rr->doc;
	report_progress(rep, "race %s done in %.1f s%s", rr->r->name, report_now() - t0,
			failed ? " (with errors)" : "");
	return failed;
}

int report_run_races(struct report *rep)
{
	const struct msim_race *list[REPORT_MAX_RACES];
	size_t n = msim_race_list(list, REPORT_MAX_RACES);
	struct msim_race_result *res = malloc(sizeof(*res));
	int failed = 0;

	if (!res)
		return 1;
	for (size_t i = 0; i < n && i < REPORT_MAX_RACES; i++) {
		struct report_race *rr = &rep->races[rep->nr_races];

		memset(rr, 0, sizeof(*rr));
		rr->r = list[i];
		report_thread_of(list[i]->thread, rr->thread, sizeof(rr->thread));
		if (!report_wants(rep, rr->thread))
			continue;
		rep->nr_races++;
		failed += run_race(rep, rr, res);
		report_benches_poll(rep);
	}
	free(res);
	return failed;
}
