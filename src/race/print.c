/* SPDX-License-Identifier: MIT */
/*
 * print.c - a race result as text (for a person) or as one JSON object (Jansson).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/lockdep.h>
#include <memcgsim/race.h>

#include "json_internal.h"

/* The race printer's layout: ", " and ": " separators, doubles as "%.6g". */
#define RACE_JSON_FLAGS (JSON_REAL_PRECISION(6) | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER)

void msim_race_print_escaped(FILE *f, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
		if ((*p >= 0x20 && *p < 0x7f) || *p == '\n' || *p == '\t')
			fputc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
	}
}

/* The first n bytes of text, escaped as msim_race_print_escaped() does. */
static void print_escaped_n(FILE *f, const char *text, size_t n)
{
	char *copy = strndup(text, n);

	msim_race_print_escaped(f, copy ? copy : "?");
	free(copy);
}

/*
 * s as one shell word: in single quotes, each ' as '\'' (a schedule is made of
 * safe characters, but the line is for pasting into a shell, so it is quoted
 * whatever it holds).
 */
static void print_shell_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fputc('?', f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

void msim_json_str(FILE *f, const char *s)
{
	json_t *v = msim__json_string(s ? s : "");

	if (v)
		json_dumpf(v, f, JSON_ENCODE_ANY);
	json_decref(v);
}

static json_t *fig_json(const struct msim_race_fig *g)
{
	switch (g->type) {
	case MSIM_RACE_FIG_INT:
		return json_integer(g->i);
	case MSIM_RACE_FIG_BOOL:
		return json_boolean(g->i);
	case MSIM_RACE_FIG_DOUBLE:
		return msim__json_number(g->d, 6);
	default:
		return msim__json_string(g->s);
	}
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v);
}

/*
 * An unsigned 64-bit value: a JSON integer up to 2^63 - 1 (Jansson's
 * json_int_t), above it a string of its decimal digits (not a negative number).
 */
static json_t *u64_json(uint64_t v)
{
	char digits[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(digits, sizeof(digits), "%" PRIu64, v);
	return json_string(digits);
}

/* Seconds rounded to milliseconds; a value no long long holds (or NaN) unrounded. */
static double ms_rounded(double s)
{
	double ms = s * 1000;

	if (!(ms > -9e18 && ms < 9e18))
		return s;
	return (double)(long long)(ms + (ms < 0 ? -0.5 : 0.5)) / 1000;
}

/* The run's common keys, in the order the printer has always written them. */
static void run_json(json_t *o, const struct msim_race_result *r)
{
	set(o, "race", msim__json_string(r->race));
	set(o, "strategy", json_string(r->concurrent ? "concurrent"
						     : msim_strategy_name(r->strategy)));
	set(o, "runs", json_integer(r->ex.runs));
	set(o, "violations", json_integer(r->ex.violations));
	set(o, "first_violation_run", json_integer(r->ex.first_violation_run));
	set(o, "seed", u64_json(r->seed));
	set(o, "schedule", msim__json_string(r->ex.schedule));
	set(o, "outcome", msim__json_string(r->outcome));
	set(o, "expected_violation", json_boolean(r->expected_violation));
	set(o, "behaved_as_expected", json_boolean(r->behaved_as_expected));
	set(o, "no_verdict", json_boolean(r->no_verdict));
	set(o, "deadlocked", json_boolean(r->ex.deadlocked));
	set(o, "exhausted", json_boolean(r->ex.exhausted));
	set(o, "diverged", json_boolean(r->ex.diverged));
	set(o, "env_replay", json_boolean(r->ex.env_replay));
	set(o, "schedule_truncated", json_boolean(r->ex.schedule_truncated));
	/* Milliseconds are all a run's wall time says. */
	set(o, "seconds", msim__json_number(ms_rounded(r->ex.seconds), 6));
	set(o, "variants", msim__json_string(r->variants));
	if (!r->concurrent)
		set(o, "preempt", json_string(msim_preempt_name(r->cfg.preempt)));
	if (!r->concurrent && r->cfg.memory_model != MSIM_MEMORY_SC)
		set(o, "memory_model", json_string(msim_memory_model_name(r->cfg.memory_model)));
	if (r->ex.first_violation_run >= 0 && r->strategy != MSIM_STRAT_SCRIPT)
		set(o, "first_violation_seed", u64_json(r->ex.first_violation_seed));
	if (r->strategy == MSIM_STRAT_DPOR) {
		set(o, "explored", json_integer(r->ex.runs - r->ex.pruned));
		set(o, "pruned", json_integer(r->ex.pruned));
		set(o, "races", json_integer((json_int_t)r->ex.races));
	}
}

/*
 * What memcgsim merge needs besides the common keys to rebuild a shard's
 * result: its place, its side, CPUs, and the first violation's hash and reason.
 */
static void shard_json(json_t *o, const struct msim_race_result *r)
{
	char hash[17];

	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)r->ex.trace_hash);
	set(o, "shard_index", json_integer(r->shard.index));
	set(o, "shard_count", json_integer(r->shard.count));
	set(o, "first_run", json_integer(r->shard.first_run));
	set(o, "runs_total", json_integer(r->shard.runs_total));
	set(o, "cpus", json_integer(r->cfg.nr_cpus));
	set(o, "trace_hash", json_string(hash));
	set(o, "side", r->side ? msim__json_string(r->side->name) : json_null());
	set(o, "why", msim__json_string(r->ex.why));
}

/* The lock-order checker's own JSON document, as a value of the run's. */
static json_t *lockdep_json(const struct msim_lockdep *ld)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *v = NULL;

	if (f) {
		msim_lockdep_print_json(f, ld);
		fclose(f);
		v = json_loads(buf, 0, NULL);
	}
	free(buf);
	return v ? v : json_null();
}

json_t *msim__race_result_json(const struct msim_race_result *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	run_json(o, r);
	if (r->shard.count)
		shard_json(o, r);
	for (unsigned int i = 0; i < r->rep.nr_figs; i++)
		set(o, r->rep.figs[i].key, fig_json(&r->rep.figs[i]));
	/* Only when asked for (--lockdep): every other run's JSON stays as it was. */
	if (r->cfg.lockdep)
		set(o, "lockdep", lockdep_json(r->cfg.lockdep));
	return o;
}

void msim_race_print_json(FILE *f, const struct msim_race_result *r)
{
	json_t *o = msim__race_result_json(r);

	if (o)
		json_dumpf(o, f, RACE_JSON_FLAGS);
	json_decref(o);
	fputc('\n', f);
}

/* Each line of text, indented by two spaces. */
static void print_indented(FILE *f, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		fputs("  ", f);
		print_escaped_n(f, text, n);
		fputc('\n', f);
		text += n + (text[n] == '\n');
	}
}

static void print_figs_text(FILE *f, const struct msim_race_report *rep)
{
	for (unsigned int i = 0; i < rep->nr_figs; i++) {
		const struct msim_race_fig *g = &rep->figs[i];
		if (g->type == MSIM_RACE_FIG_INT)
			fprintf(f, "  %-32s %lld\n", g->key, g->i);
		else if (g->type == MSIM_RACE_FIG_BOOL)
			fprintf(f, "  %-32s %s\n", g->key, g->i ? "yes" : "no");
		else if (g->type == MSIM_RACE_FIG_DOUBLE)
			fprintf(f, "  %-32s %.6g\n", g->key, g->d);
		else
			fprintf(f, "  %-32s %s\n", g->key, g->s);
	}
}

/*
 * The options that recreate r's configuration on the command line: its side
 * (when the side changes anything), then every variant, the CPU count and the
 * preemption model where the run differs from what that side (and the race's
 * configure) gives.
 */
static void replay_options(const struct msim_race_result *r, char *buf, size_t len)
{
	const struct msim_race *race = msim_race_find(r->race);
	struct msim_config base, def;
	char err[128];
	size_t n = 0;

	buf[0] = '\0';
	msim_config_init(&base);
	def = base;
	if (r->side && ((r->side->settings && r->side->settings[0]) || r->side->arg)) {
		msim_race_settings_apply(&base, r->side->settings, err, sizeof(err));
		n += (size_t)snprintf(buf + n, len - n, " --side %s", r->side->name);
	}
	if (race && race->default_cpus && base.nr_cpus == def.nr_cpus)
		base.nr_cpus = race->default_cpus;
	if (race && race->configure)
		race->configure(&base, err, sizeof(err));
	const struct msim_variant_desc *rows[MSIM_MAX_VARIANTS];
	unsigned int nrows = msim_variant_list(rows, MSIM_MAX_VARIANTS);

	for (unsigned int i = 0; i < nrows && n < len; i++) {
		const struct msim_variant_desc *d = rows[i];
		const char *want = msim_variant_get(&r->cfg.variants, d->name);

		if (want && strcmp(want, msim_variant_get(&base.variants, d->name)))
			n += (size_t)snprintf(buf + n, len - n, " --variant %s=%s", d->name, want);
	}
	if (n < len && r->cfg.nr_cpus != base.nr_cpus)
		n += (size_t)snprintf(buf + n, len - n, " --cpus %u", r->cfg.nr_cpus);
	if (n < len && r->cfg.preempt != base.preempt)
		n += (size_t)snprintf(buf + n, len - n, " --preempt %s",
				      msim_preempt_name(r->cfg.preempt));
	if (n < len && r->cfg.memory_model != base.memory_model)
		snprintf(buf + n, len - n, " --memory-model %s",
			 msim_memory_model_name(r->cfg.memory_model));
}

/* Where the first violation came from and the command line that replays it. */
static void print_violation_text(FILE *f, const struct msim_race_result *r)
{
	if (r->strategy == MSIM_STRAT_RANDOM || r->strategy == MSIM_STRAT_PCT)
		fprintf(f, "  first violation: run %d, seed %llu\n", r->ex.first_violation_run,
			(unsigned long long)r->ex.first_violation_seed);
	if (r->ex.why[0] && r->strategy != MSIM_STRAT_SCRIPT)
		print_indented(f, r->ex.why);
	if (r->ex.schedule_truncated)
		fprintf(f, "  schedule too long to print in full (not replayable from here)\n");
	else if (r->strategy != MSIM_STRAT_SCRIPT || r->script_replays) {
		char opts[512];

		replay_options(r, opts, sizeof(opts));
		fprintf(f, "  replay: memcgsim race %s%s --schedule ", r->race, opts);
		print_shell_word(f, r->ex.schedule);
		fputc('\n', f);
	}
	else
		fprintf(f, "  scripted schedule: %s (the script's own tasks; replay a "
			   "schedule from --strategy pct or dfs instead)\n", r->ex.schedule);
}

/* The lock-order checker's verdict over every run (lockdep.h), and its reports. */
static void print_lockdep_text(FILE *f, const struct msim_lockdep *ld)
{
	unsigned int n = msim_lockdep_nr_reports(ld), c = msim_lockdep_nr_classes(ld);
	unsigned int d = msim_lockdep_nr_dependencies(ld), h = msim_lockdep_nr_hosts(ld);

	fprintf(f, "  lockdep: %u lock class%s, %u dependenc%s over %u run%s: ", c,
		c == 1 ? "" : "es", d, d == 1 ? "y" : "ies", h, h == 1 ? "" : "s");
	if (!n) {
		fputs("no report\n", f);
		return;
	}
	fprintf(f, "%u report%s\n", n, n == 1 ? "" : "s");
	msim_lockdep_print_text(f, ld);
}

void msim_race_print_text(FILE *f, const struct msim_race_result *r)
{
	/* The preemption model decides which windows are reachable (sim.h); the OS
	 * schedules a concurrent run. */
	if (r->concurrent)
		fprintf(f, "race %s, strategy concurrent (real threads, liburcu), variants %s\n",
			r->race, r->variants);
	else
		fprintf(f, "race %s, strategy %s, variants %s, preempt %s%s%s\n", r->race,
			msim_strategy_name(r->strategy), r->variants,
			msim_preempt_name(r->cfg.preempt),
			/* sc, the default, is not named: outputs stay as they were */
			r->cfg.memory_model != MSIM_MEMORY_SC ? ", memory model " : "",
			r->cfg.memory_model != MSIM_MEMORY_SC
				? msim_memory_model_name(r->cfg.memory_model) : "");
	if (r->rep.notes[0])
		fprintf(f, "%s", r->rep.notes);
	print_figs_text(f, &r->rep);
	fprintf(f, "  runs %u, violations %u, %.3f s\n", r->ex.runs, r->ex.violations,
		r->ex.seconds);
	if (r->strategy == MSIM_STRAT_DPOR && !r->ex.env_replay)
		fprintf(f, "  dpor: explored %u, pruned %u (sleep sets), races %llu, backtracks %llu, "
			"%s\n", r->ex.runs - r->ex.pruned, r->ex.pruned,
			(unsigned long long)r->ex.races, (unsigned long long)r->ex.backtracks,
			r->ex.exhausted ? "exhausted" : "NOT exhausted (budget reached)");
	/* An explorer is built to find the window: its hit count says "reachable", not "how often". */
	if (r->ex.violations && r->ex.runs > 1)
		fputs("  (reachability under an adversarial scheduler, not a frequency in production)\n",
		      f);
	if (r->ex.first_violation_run >= 0 && !r->concurrent)
		print_violation_text(f, r);
	fputs("  outcome: ", f);
	msim_race_print_escaped(f, r->outcome);
	if (!r->no_verdict)
		fprintf(f, " -> %s", r->behaved_as_expected ? "as expected" : "NOT AS EXPECTED");
	fputc('\n', f);
	if (r->cfg.lockdep)
		print_lockdep_text(f, r->cfg.lockdep);
}
