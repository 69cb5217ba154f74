/* SPDX-License-Identifier: MIT */
/*
 * print.c - a race result as text (for a person) or as one JSON object.
 */
#include <stdio.h>
#include <string.h>

#include <memcgsim/race.h>

void msim_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void print_fig_json(FILE *f, const struct msim_race_fig *g)
{
	fputs(", ", f);
	msim_json_str(f, g->key);
	fputs(": ", f);
	switch (g->type) {
	case MSIM_RACE_FIG_INT:
		fprintf(f, "%lld", g->i);
		break;
	case MSIM_RACE_FIG_BOOL:
		fputs(g->i ? "true" : "false", f);
		break;
	case MSIM_RACE_FIG_DOUBLE:
		fprintf(f, "%.6g", g->d);
		break;
	default:
		msim_json_str(f, g->s);
	}
}

static const char *yes_no(bool b)
{
	return b ? "true" : "false";
}

void msim_race_print_json(FILE *f, const struct msim_race_result *r)
{
	fputs("{\"race\": ", f);
	msim_json_str(f, r->race);
	fprintf(f, ", \"strategy\": \"%s\", \"runs\": %u, \"violations\": %u, "
		   "\"first_violation_run\": %d, \"seed\": %llu, \"schedule\": ",
		r->concurrent ? "concurrent" : msim_strategy_name(r->strategy), r->ex.runs,
		r->ex.violations, r->ex.first_violation_run, (unsigned long long)r->seed);
	msim_json_str(f, r->ex.schedule);
	fputs(", \"outcome\": ", f);
	msim_json_str(f, r->outcome);
	fprintf(f, ", \"expected_violation\": %s, \"behaved_as_expected\": %s, "
		   "\"deadlocked\": %s, \"exhausted\": %s, \"diverged\": %s, "
		   "\"schedule_truncated\": %s, \"seconds\": %.3f, \"variants\": ",
		yes_no(r->expected_violation), yes_no(r->behaved_as_expected),
		yes_no(r->ex.deadlocked), yes_no(r->ex.exhausted), yes_no(r->ex.diverged),
		yes_no(r->ex.schedule_truncated), r->ex.seconds);
	msim_json_str(f, r->variants);
	if (!r->concurrent)
		fprintf(f, ", \"preempt\": \"%s\"", msim_preempt_name(r->cfg.preempt));
	if (r->ex.first_violation_run >= 0 && r->strategy != MSIM_STRAT_SCRIPT)
		fprintf(f, ", \"first_violation_seed\": %llu",
			(unsigned long long)r->ex.first_violation_seed);
	if (r->strategy == MSIM_STRAT_DPOR)
		fprintf(f, ", \"explored\": %u, \"pruned\": %u, \"races\": %llu",
			r->ex.runs - r->ex.pruned, r->ex.pruned, (unsigned long long)r->ex.races);
	for (unsigned int i = 0; i < r->rep.nr_figs; i++)
		print_fig_json(f, &r->rep.figs[i]);
	fputs("}\n", f);
}

/* Each line of text, indented by two spaces. */
static void print_indented(FILE *f, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");
		fprintf(f, "  %.*s\n", (int)n, text);
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
	struct msim_config base;
	char err[128];
	size_t n = 0;

	buf[0] = '\0';
	msim_config_init(&base);
	if (r->side && ((r->side->settings && r->side->settings[0]) || r->side->arg)) {
		msim_race_settings_apply(&base, r->side->settings, err, sizeof(err));
		n += (size_t)snprintf(buf + n, len - n, " --side %s", r->side->name);
	}
	if (race && race->configure)
		race->configure(&base, err, sizeof(err));
	for (const struct msim_variant_desc *d = msim_variant_table(); d->name && n < len; d++) {
		const char *want = msim_variant_get(&r->cfg.variants, d->name);

		if (want && strcmp(want, msim_variant_get(&base.variants, d->name)))
			n += (size_t)snprintf(buf + n, len - n, " --variant %s=%s", d->name, want);
	}
	if (n < len && r->cfg.nr_cpus != base.nr_cpus)
		n += (size_t)snprintf(buf + n, len - n, " --cpus %u", r->cfg.nr_cpus);
	if (n < len && r->cfg.preempt != base.preempt)
		snprintf(buf + n, len - n, " --preempt %s", msim_preempt_name(r->cfg.preempt));
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
		fprintf(f, "  replay: memcgsim race %s%s --schedule '%s'\n", r->race, opts,
			r->ex.schedule);
	}
	else
		fprintf(f, "  scripted schedule: %s (the script's own tasks; replay a "
			   "schedule from --strategy pct or dfs instead)\n", r->ex.schedule);
}

void msim_race_print_text(FILE *f, const struct msim_race_result *r)
{
	/* The preemption model decides which windows are reachable (sim.h); the OS
	 * schedules a concurrent run. */
	if (r->concurrent)
		fprintf(f, "race %s, strategy concurrent (real threads, liburcu), variants %s\n",
			r->race, r->variants);
	else
		fprintf(f, "race %s, strategy %s, variants %s, preempt %s\n", r->race,
			msim_strategy_name(r->strategy), r->variants,
			msim_preempt_name(r->cfg.preempt));
	if (r->rep.notes[0])
		fprintf(f, "%s", r->rep.notes);
	print_figs_text(f, &r->rep);
	fprintf(f, "  runs %u, violations %u, %.3f s\n", r->ex.runs, r->ex.violations,
		r->ex.seconds);
	if (r->strategy == MSIM_STRAT_DPOR)
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
	fprintf(f, "  outcome: %s -> %s\n", r->outcome,
		r->behaved_as_expected ? "as expected" : "NOT AS EXPECTED");
}
