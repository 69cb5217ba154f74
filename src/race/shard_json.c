/* SPDX-License-Identifier: MIT */
/*
 * shard_json.c - one shard's JSON line, as `memcgsim race NAME --shard I/N
 * --json` prints it (print.c), read back into a result for msim_race_merge().
 *
 * A shard file may come from another machine, another build or someone's
 * editor, and the merge turns it into a verdict, so nothing is coerced: every
 * key the printer always writes must be there with its type (an integer is a
 * JSON integer, not "9" nor 9.0), every count must fit its field, the figures
 * must agree with each other (violations <= runs, a first violation exactly
 * when there are violations), text the merge prints again must be what the
 * printer could have written (a schedule has only schedule characters; the
 * variants are re-formatted from the configuration they name), and the shard's
 * expected_violation and behaved_as_expected must follow from its
 * configuration and figures. What the merge recomputes is never trusted.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"
#include "race_internal.h"

/* A shard's wall time above this (about 31 years) is not a measurement. */
#define MAX_SHARD_SECONDS 1e9

struct reader {
	json_t *o;
	char *err;
	size_t errlen;
};

/* The value of key, of type type; else -EINVAL with the reason. */
static int get(struct reader *rd, const char *key, json_type type, const char *what,
	       json_t **v)
{
	*v = json_object_get(rd->o, key);
	if (!*v) {
		snprintf(rd->err, rd->errlen, "no \"%s\" (every shard line has it)", key);
		return -EINVAL;
	}
	if (json_typeof(*v) != type && !(type == JSON_TRUE && json_is_boolean(*v))) {
		snprintf(rd->err, rd->errlen, "\"%s\" is not %s", key, what);
		return -EINVAL;
	}
	return 0;
}

static int get_int(struct reader *rd, const char *key, long long min, long long max,
		   long long *out)
{
	json_t *v;
	int ret = get(rd, key, JSON_INTEGER, "an integer", &v);

	if (ret)
		return ret;
	*out = json_integer_value(v);
	if (*out < min || *out > max) {
		snprintf(rd->err, rd->errlen, "\"%s\" %lld out of range (%lld to %lld)", key, *out,
			 min, max);
		return -EINVAL;
	}
	return 0;
}

static int get_uint(struct reader *rd, const char *key, unsigned int *out)
{
	long long v;
	int ret = get_int(rd, key, 0, UINT_MAX, &v);

	*out = ret ? 0 : (unsigned int)v;
	return ret;
}

static int get_bool(struct reader *rd, const char *key, bool *out)
{
	json_t *v;
	int ret = get(rd, key, JSON_TRUE, "true or false", &v);

	*out = !ret && json_is_true(v);
	return ret;
}

/* A string of key, shorter than max bytes. */
static int get_str(struct reader *rd, const char *key, size_t max, const char **out)
{
	json_t *v;
	int ret = get(rd, key, JSON_STRING, "a string", &v);

	if (ret)
		return ret;
	*out = json_string_value(v);
	if (json_string_length(v) >= max || strlen(*out) != json_string_length(v)) {
		snprintf(rd->err, rd->errlen, "\"%s\" %s", key, strlen(*out) !=
			 json_string_length(v) ? "holds a NUL character" : "is too long");
		return -EINVAL;
	}
	return 0;
}

/*
 * A seed: unsigned 64-bit. JSON integers (Jansson's json_int_t) stop at
 * 2^63 - 1, so the printer writes larger seeds as a string of decimal digits.
 */
static int get_u64(struct reader *rd, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(rd->o, key);
	const char *s = json_string_value(v);
	char *end;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (s && *s >= '0' && *s <= '9' && strlen(s) <= 20) {
		errno = 0;
		*out = strtoull(s, &end, 10);
		if (!*end && !errno)
			return 0;
	}
	snprintf(rd->err, rd->errlen, v ? "\"%s\" is not an unsigned 64-bit integer"
				       : "no \"%s\" (every shard line has it)", key);
	return -EINVAL;
}

/* The characters a schedule string is made of (docs/sim.md, "Schedule strings"). */
static bool schedule_chars_only(const char *s)
{
	return strspn(s, "0123456789R!~+*.") == strlen(s);
}

/* The numbers of a shard: its place, its runs and its first violation. */
static int read_figures(struct reader *rd, struct msim_race_result *res)
{
	long long fvr;
	int ret;

	if ((ret = get_uint(rd, "shard_index", &res->shard.index)) ||
	    (ret = get_uint(rd, "shard_count", &res->shard.count)) ||
	    (ret = get_uint(rd, "first_run", &res->shard.first_run)) ||
	    (ret = get_uint(rd, "runs_total", &res->shard.runs_total)) ||
	    (ret = get_uint(rd, "runs", &res->ex.runs)) ||
	    (ret = get_uint(rd, "violations", &res->ex.violations)) ||
	    (ret = get_int(rd, "first_violation_run", -1, INT_MAX, &fvr)) ||
	    (ret = get_u64(rd, "seed", &res->seed)))
		return ret;
	res->ex.first_violation_run = (int)fvr;
	if (res->ex.violations > res->ex.runs) {
		snprintf(rd->err, rd->errlen, "%u violations in %u runs", res->ex.violations,
			 res->ex.runs);
		return -EINVAL;
	}
	if ((fvr >= 0) != (res->ex.violations > 0)) {
		snprintf(rd->err, rd->errlen, "first_violation_run %lld with %u violations", fvr,
			 res->ex.violations);
		return -EINVAL;
	}
	if (fvr >= 0 && (ret = get_u64(rd, "first_violation_seed", &res->ex.first_violation_seed)))
		return ret;
	return 0;
}

/* The run's flags, time and trace hash. */
static int read_run(struct reader *rd, struct msim_race_result *res)
{
	const char *hash;
	json_t *secs;
	bool ignored;
	int ret;

	if ((ret = get_bool(rd, "deadlocked", &res->ex.deadlocked)) ||
	    (ret = get_bool(rd, "diverged", &res->ex.diverged)) ||
	    (ret = get_bool(rd, "env_replay", &res->ex.env_replay)) ||
	    (ret = get_bool(rd, "schedule_truncated", &res->ex.schedule_truncated)) ||
	    (ret = get_bool(rd, "exhausted", &ignored)) ||
	    (ret = get_str(rd, "trace_hash", 17, &hash)))
		return ret;
	if (!*hash || strspn(hash, "0123456789abcdef") != strlen(hash)) {
		snprintf(rd->err, rd->errlen, "trace_hash is not up to 16 hex digits");
		return -EINVAL;
	}
	res->ex.trace_hash = strtoull(hash, NULL, 16);
	secs = json_object_get(rd->o, "seconds");
	if (!json_is_number(secs) || !(json_number_value(secs) >= 0) ||
	    json_number_value(secs) > MAX_SHARD_SECONDS) {
		snprintf(rd->err, rd->errlen, "seconds %s", secs ? "is not a number from 0 to 1e9"
							      : "missing");
		return -EINVAL;
	}
	res->ex.seconds = json_number_value(secs);
	return 0;
}

/* The schedule and reason of the run the shard describes. */
static int read_text(struct reader *rd, struct msim_race_result *res)
{
	const char *schedule, *why;
	json_t *v;
	int ret;

	/* A schedule that does not fit cannot be replayed from here: say so. */
	if ((ret = get(rd, "schedule", JSON_STRING, "a string", &v)))
		return ret;
	schedule = json_string_value(v);
	if (strlen(schedule) != json_string_length(v) || !schedule_chars_only(schedule)) {
		snprintf(rd->err, rd->errlen, "schedule has characters no schedule has (digits, "
			 "R, !, ~, +, * and dots)");
		return -EINVAL;
	}
	if (strlen(schedule) >= sizeof(res->ex.schedule))
		res->ex.schedule_truncated = true;
	snprintf(res->ex.schedule, sizeof(res->ex.schedule), "%s", schedule);
	if ((ret = get(rd, "why", JSON_STRING, "a string", &v)))
		return ret;
	why = json_string_value(v);
	snprintf(res->ex.why, sizeof(res->ex.why), "%s", why);
	return 0;
}

/* The configuration the shard ran: its side's settings, its variants, CPUs, models. */
static int read_config(struct reader *rd, const struct msim_race *r, struct msim_race_result *res)
{
	const char *variants, *preempt, *mm = NULL;
	json_t *side = json_object_get(rd->o, "side");
	long long cpus;
	int ret;

	msim_config_init(&res->cfg);
	if (!side || (!json_is_null(side) && !json_is_string(side))) {
		snprintf(rd->err, rd->errlen, "\"side\" is %s", side ? "not a string or null"
								  : "missing");
		return -EINVAL;
	}
	if (json_is_string(side) && !(res->side = msim_race_side_find(r, json_string_value(side)))) {
		snprintf(rd->err, rd->errlen, "race %s has no side '%.64s'", r->name,
			 json_string_value(side));
		return -EINVAL;
	}
	if (res->side && (ret = msim_race_settings_apply(&res->cfg, res->side->settings, rd->err,
							 rd->errlen)))
		return ret;
	if ((ret = get_str(rd, "variants", sizeof(res->variants), &variants)) ||
	    (ret = msim_race_settings_apply(&res->cfg, variants, rd->err, rd->errlen)) ||
	    (ret = get_str(rd, "preempt", 64, &preempt)) ||
	    (ret = get_int(rd, "cpus", 1, MSIM_MAX_CPUS, &cpus)))
		return ret;
	if (msim_preempt_parse(preempt, &res->cfg.preempt)) {
		snprintf(rd->err, rd->errlen, "unknown preemption model '%.64s'", preempt);
		return -EINVAL;
	}
	/* absent under sc, the default (print.c names only the others) */
	res->cfg.memory_model = MSIM_MEMORY_SC;
	if (json_object_get(rd->o, "memory_model") &&
	    ((ret = get_str(rd, "memory_model", 64, &mm)) ||
	     msim_memory_model_parse(mm, &res->cfg.memory_model))) {
		snprintf(rd->err, rd->errlen, "unknown memory model '%.64s'", mm ? mm : "");
		return -EINVAL;
	}
	res->cfg.nr_cpus = (unsigned int)cpus;
	/* What the printer writes for this configuration, not what the file says. */
	msim_variants_format(&res->cfg.variants, res->variants, sizeof(res->variants));
	return 0;
}

/* The shard's verdict must be the one its configuration and figures give. */
static int check_verdict(struct reader *rd, const struct msim_race *r,
			 struct msim_race_result *res)
{
	bool expected, behaved;
	int ret;

	if ((ret = get_bool(rd, "expected_violation", &expected)) ||
	    (ret = get_bool(rd, "behaved_as_expected", &behaved)))
		return ret;
	res->expected_violation = msim__race_expects(r, &res->cfg, res->side);
	msim__race_set_outcome(r, res);
	if (expected != res->expected_violation || behaved != res->behaved_as_expected) {
		snprintf(rd->err, rd->errlen, "%s does not follow from the shard's %s",
			 expected != res->expected_violation ? "expected_violation"
							     : "behaved_as_expected",
			 expected != res->expected_violation ? "configuration" : "figures");
		return -EINVAL;
	}
	return 0;
}

static int from_object(json_t *o, struct msim_race_result *res, char *err, size_t errlen)
{
	struct reader rd = { .o = o, .err = err, .errlen = errlen };
	const struct msim_race *r;
	const char *race, *strategy;
	int ret;

	if (!json_is_object(o) || !json_object_get(o, "shard_count")) {
		snprintf(err, errlen, "not a shard's result (no shard_count: run memcgsim race "
			 "with --shard I/N --json)");
		return -EINVAL;
	}
	if ((ret = get_str(&rd, "race", 128, &race)) ||
	    (ret = get_str(&rd, "strategy", 32, &strategy)))
		return ret;
	if (!(r = msim_race_find(race))) {
		snprintf(err, errlen, "no race named '%.64s' in this build", race);
		return -EINVAL;
	}
	if (msim_strategy_parse(strategy, &res->strategy) ||
	    (res->strategy != MSIM_STRAT_RANDOM && res->strategy != MSIM_STRAT_PCT)) {
		snprintf(err, errlen, "strategy '%.32s' is not one a shard runs (random, pct)",
			 strategy);
		return -EINVAL;
	}
	res->race = r->name;
	res->script_replays = r->script_replays;
	if ((ret = read_figures(&rd, res)) || (ret = read_run(&rd, res)) ||
	    (ret = read_text(&rd, res)) || (ret = read_config(&rd, r, res)))
		return ret;
	return check_verdict(&rd, r, res);
}

int msim_race_shard_from_json(const char *text, size_t len, struct msim_race_result *res,
			      char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *o;
	int ret;

	memset(res, 0, sizeof(*res));
	o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		snprintf(err, errlen, "%s", jerr.text);
		return -EINVAL;
	}
	ret = from_object(o, res, err, errlen);
	json_decref(o);
	return ret;
}
