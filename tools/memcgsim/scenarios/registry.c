/* SPDX-License-Identifier: MIT */
/*
 * registry.c - scenario and bench registries, report figures, and running a race
 * (what `memcgsim race` and the race tests share).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "scenario.h"

#define MAX_SCENARIOS 64
#define MAX_BENCHES 32

static const struct msim_scenario *scenarios[MAX_SCENARIOS];
static size_t nr_scenarios;
static const struct msim_bench *benches[MAX_BENCHES];
static size_t nr_benches;

void msim_scenario_register(const struct msim_scenario *s)
{
	if (nr_scenarios < MAX_SCENARIOS)
		scenarios[nr_scenarios++] = s;
}

const struct msim_scenario *msim_scenario_find(const char *name)
{
	for (size_t i = 0; name && i < nr_scenarios; i++)
		if (!strcmp(scenarios[i]->name, name))
			return scenarios[i];
	return NULL;
}

static int cmp_scn(const void *a, const void *b)
{
	return strcmp((*(const struct msim_scenario *const *)a)->name,
		      (*(const struct msim_scenario *const *)b)->name);
}

size_t msim_scenario_list(const struct msim_scenario **out, size_t max)
{
	qsort(scenarios, nr_scenarios, sizeof(scenarios[0]), cmp_scn);
	for (size_t i = 0; i < nr_scenarios && i < max; i++)
		out[i] = scenarios[i];
	return nr_scenarios;
}

void msim_bench_register(const struct msim_bench *b)
{
	if (nr_benches < MAX_BENCHES)
		benches[nr_benches++] = b;
}

const struct msim_bench *msim_bench_find(const char *name)
{
	for (size_t i = 0; name && i < nr_benches; i++)
		if (!strcmp(benches[i]->name, name))
			return benches[i];
	return NULL;
}

static int cmp_bench(const void *a, const void *b)
{
	return strcmp((*(const struct msim_bench *const *)a)->name,
		      (*(const struct msim_bench *const *)b)->name);
}

size_t msim_bench_list(const struct msim_bench **out, size_t max)
{
	qsort(benches, nr_benches, sizeof(benches[0]), cmp_bench);
	for (size_t i = 0; i < nr_benches && i < max; i++)
		out[i] = benches[i];
	return nr_benches;
}

/*
 * Run a bench and report the simulator's own cost beside its findings: wall time
 * and peak RSS, on stderr so that --json output on stdout stays one object.
 */
int msim_bench_run(const struct msim_bench *b, int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	bool help = false;

	for (int i = 1; i < argc; i++)
		help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = b->main(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret == 0 && !help && !getrusage(RUSAGE_SELF, &ru)) {
		fflush(stdout);
		fprintf(stderr, "memcgsim bench %s: simulator cost %.2f s wall, peak RSS %.1f MiB\n",
			b->name, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
			(double)ru.ru_maxrss / 1024.0);
	}
	return ret;
}

int msim_bench_main(const char *name, int argc, char **argv)
{
	const struct msim_bench *b = msim_bench_find(name);

	if (!b) {
		fprintf(stderr, "memcgsim: no bench named %s\n", name);
		return 2;
	}
	return msim_bench_run(b, argc, argv);
}

/* ---- figures ---- */

static struct msim_scn_fig *fig_slot(struct msim_scn_report *r, const char *key)
{
	for (unsigned int i = 0; i < r->nr_figs; i++)
		if (!strcmp(r->figs[i].key, key))
			return &r->figs[i];
	if (r->nr_figs >= MSIM_SCN_MAX_FIGS)
		return NULL;
	struct msim_scn_fig *f = &r->figs[r->nr_figs++];
	memset(f, 0, sizeof(*f));
	f->key = key;
	return f;
}

void msim_scn_fig_int(struct msim_scn_report *r, const char *key, long long v)
{
	struct msim_scn_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_FIG_INT;
		f->i = v;
	}
}

void msim_scn_fig_bool(struct msim_scn_report *r, const char *key, bool v)
{
	struct msim_scn_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_FIG_BOOL;
		f->i = v;
	}
}

void msim_scn_fig_str(struct msim_scn_report *r, const char *key, const char *v)
{
	struct msim_scn_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_FIG_STR;
		snprintf(f->s, sizeof(f->s), "%s", v);
	}
}

void msim_scn_fig_double(struct msim_scn_report *r, const char *key, double v)
{
	struct msim_scn_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_FIG_DOUBLE;
		f->d = v;
	}
}

void msim_scn_trace(struct msim_scn_report *r, const char *fmt, ...)
{
	size_t len = strlen(r->trace);
	va_list ap;

	if (len + 2 >= sizeof(r->trace))
		return;
	va_start(ap, fmt);
	vsnprintf(r->trace + len, sizeof(r->trace) - len - 1, fmt, ap);
	va_end(ap);
	len = strlen(r->trace);
	r->trace[len] = '\n';
	r->trace[len + 1] = '\0';
}

/* ---- scripts ---- */

int msim_scn_host_new(const struct msim_config *cfg, struct msim **out)
{
	char err[256];
	int ret = msim_create(cfg, out, err, sizeof(err));

	if (!ret)
		msim_set_current_host(*out);
	return ret;
}

int msim_scn_need_cpus(const struct msim_config *cfg, unsigned int n, const char *name,
		       char *err, size_t errlen)
{
	if (cfg->nr_cpus >= n)
		return 0;
	snprintf(err, errlen, "%s needs at least %u CPUs", name, n);
	return -EINVAL;
}

int msim_scn_script_run(const struct msim_scenario *s, const struct msim_config *cfg,
			msim_scn_body_fn body, struct msim_scn_report *rep)
{
	struct msim *m;
	void *state = NULL;
	int ret = msim_scn_host_new(cfg, &m);

	if (ret)
		return ret;
	ret = s->target.setup(m, &state, NULL);
	if (!ret)
		ret = body(m, state, rep);
	if (!ret)
		snprintf(rep->schedule, sizeof(rep->schedule), "%s", msim_schedule_string(m));
	if (s->target.teardown)
		s->target.teardown(m, state);
	msim_destroy(m);
	return ret;
}

/* ---- running a race ---- */

static int run_script(const struct msim_scenario *s, const struct msim_config *cfg,
		      struct msim_race_result *res, char *err, size_t errlen)
{
	if (!s->script) {
		snprintf(err, errlen, "race %s has no scripted schedule; use --strategy random, pct "
			 "or dfs", s->name);
		return -EINVAL;
	}
	int ret = s->script(cfg, &res->rep);
	if (ret) {
		snprintf(err, errlen, "race %s: the script failed (%s)", s->name, strerror(-ret));
		return ret;
	}
	res->ex.runs = 1;
	res->ex.violations = res->rep.violated ? 1 : 0;
	/* The first line of the narrative says what went wrong. */
	snprintf(res->ex.why, sizeof(res->ex.why), "%.*s",
		 (int)strcspn(res->rep.trace, "\n"), res->rep.trace);
	res->ex.first_violation_run = res->rep.violated ? 0 : -1;
	snprintf(res->ex.schedule, sizeof(res->ex.schedule), "%s", res->rep.schedule);
	return 0;
}

/* The scenario's concurrent-mode flavour: real threads, liburcu, no schedule. */
static int run_concurrent(const struct msim_scenario *s, const struct msim_config *cfg,
			  struct msim_race_result *res, char *err, size_t errlen)
{
	if (!s->concurrent) {
		snprintf(err, errlen, "race %s has no concurrent flavour", s->name);
		return -EINVAL;
	}
	struct timespec t0, t1;

	res->concurrent = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int ret = s->concurrent(cfg, &res->rep);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->ex.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (ret) {
		snprintf(err, errlen, "race %s: the concurrent run failed (%s)", s->name,
			 strerror(-ret));
		return ret;
	}
	res->ex.runs = 1;
	res->ex.violations = res->rep.violated ? 1 : 0;
	res->ex.first_violation_run = res->rep.violated ? 0 : -1;
	snprintf(res->ex.why, sizeof(res->ex.why), "%.*s",
		 (int)strcspn(res->rep.trace, "\n"), res->rep.trace);
	return 0;
}

static void explore_opts(const struct msim_scenario *s, const struct msim_race_opts *o,
			 struct msim_explore_opts *eo)
{
	memset(eo, 0, sizeof(*eo));
	eo->strategy = o->strategy;
	eo->seed = o->seed;
	eo->pct_depth = o->depth ? o->depth : (s->default_depth ? s->default_depth : 2);
	eo->preemptions = o->preemptions != (unsigned int)-1 ? o->preemptions
							      : s->default_preemptions;
	eo->schedule = o->schedule;
	eo->stop_at_first = o->stop_at_first;
	if (o->runs)
		eo->runs = o->runs;
	else if (o->strategy == MSIM_STRAT_DFS)
		eo->runs = s->default_dfs_runs ? s->default_dfs_runs : 10000;
	else
		eo->runs = s->default_runs ? s->default_runs : 1000;
}

static void set_outcome(const struct msim_scenario *s, struct msim_race_result *res)
{
	bool found = res->ex.violations > 0;

	res->behaved_as_expected = found == res->expected_violation;
	if (res->strategy == MSIM_STRAT_REPLAY && res->ex.diverged) {
		/* Whatever it found, this was not the run the string described. */
		res->behaved_as_expected = false;
		snprintf(res->outcome, sizeof(res->outcome),
			 "replay diverged: the schedule does not describe a run of %s under these "
			 "variants and CPUs", s->name);
	} else if (found)
		snprintf(res->outcome, sizeof(res->outcome), "violation %s in run %d: %.*s",
			 res->expected_violation ? "found (expected)" : "found (NOT expected)",
			 res->ex.first_violation_run,
			 res->ex.why[0] ? (int)strcspn(res->ex.why, "\n") : 9,
			 res->ex.why[0] ? res->ex.why : "bad state");
	else
		snprintf(res->outcome, sizeof(res->outcome), "no violation in %u runs%s (%s)",
			 res->ex.runs, res->ex.exhausted ? ", space exhausted" : "",
			 res->expected_violation ? "NOT expected" : "expected");
}

int msim_race_run(const struct msim_scenario *s, const struct msim_config *base,
		  const struct msim_race_opts *o, struct msim_race_result *res, char *err,
		  size_t errlen)
{
	struct msim_config cfg = *base;
	struct msim_explore_opts eo;
	int ret;

	memset(res, 0, sizeof(*res));
	res->race = s->name;
	res->strategy = o->strategy;
	res->seed = o->seed;
	res->ex.first_violation_run = -1;
	cfg.mode = MSIM_DETERMINISTIC;
	if (o->cpus)
		cfg.nr_cpus = o->cpus;
	if (s->configure && (ret = s->configure(&cfg, err, errlen)))
		return ret;
	if ((ret = msim_config_validate(&cfg, err, errlen)))
		return ret;
	msim_variants_format(&cfg.variants, res->variants, sizeof(res->variants));
	res->expected_violation = s->expect_violation ? s->expect_violation(&cfg) : true;
	res->script_replays = s->script_replays;
	if (o->concurrent) {
		ret = run_concurrent(s, &cfg, res, err, errlen);
	} else if (o->strategy == MSIM_STRAT_SCRIPT) {
		ret = run_script(s, &cfg, res, err, errlen);
	} else {
		struct msim_explore_target t = s->target;
		explore_opts(s, o, &eo);
		ret = msim_explore(&t, &cfg, &eo, &res->ex);
		if (ret == -EINVAL && o->strategy == MSIM_STRAT_REPLAY)
			snprintf(err, errlen, "race %s: '%s' is not a schedule of this race (picks "
				 "separated by dots: a task index below the race's task count, or R, "
				 "each optionally *count)", s->name, o->schedule ? o->schedule : "");
		else if (ret)
			snprintf(err, errlen, "race %s: exploration failed (%s)", s->name,
				 strerror(-ret));
	}
	if (!ret)
		set_outcome(s, res);
	return ret;
}

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

static void print_fig_json(FILE *f, const struct msim_scn_fig *g)
{
	fputs(", ", f);
	msim_json_str(f, g->key);
	fputs(": ", f);
	switch (g->type) {
	case MSIM_FIG_INT:
		fprintf(f, "%lld", g->i);
		break;
	case MSIM_FIG_BOOL:
		fputs(g->i ? "true" : "false", f);
		break;
	case MSIM_FIG_DOUBLE:
		fprintf(f, "%.6g", g->d);
		break;
	default:
		msim_json_str(f, g->s);
	}
}

void msim_race_print_json(FILE *f, const struct msim_race_result *r)
{
	fputs("{\"race\": ", f);
	msim_json_str(f, r->race);
	fprintf(f, ", \"strategy\": \"%s\", \"runs\": %u, \"violations\": %u, "
		   "\"first_violation_run\": %d, \"seed\": %llu, \"schedule\": ",
		r->concurrent ? "concurrent" : msim_strategy_name(r->strategy), r->ex.runs,
		r->ex.violations,
		r->ex.first_violation_run, (unsigned long long)r->seed);
	msim_json_str(f, r->ex.schedule);
	fputs(", \"outcome\": ", f);
	msim_json_str(f, r->outcome);
	fprintf(f, ", \"expected_violation\": %s, \"behaved_as_expected\": %s, "
		   "\"deadlocked\": %s, \"exhausted\": %s, \"diverged\": %s, "
		   "\"schedule_truncated\": %s, \"seconds\": %.3f, \"variants\": ",
		r->expected_violation ? "true" : "false", r->behaved_as_expected ? "true" : "false",
		r->ex.deadlocked ? "true" : "false", r->ex.exhausted ? "true" : "false",
		r->ex.diverged ? "true" : "false", r->ex.schedule_truncated ? "true" : "false",
		r->ex.seconds);
	msim_json_str(f, r->variants);
	if (r->ex.first_violation_run >= 0 && r->strategy != MSIM_STRAT_SCRIPT)
		fprintf(f, ", \"first_violation_seed\": %llu",
			(unsigned long long)r->ex.first_violation_seed);
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

void msim_race_print_text(FILE *f, const struct msim_race_result *r)
{
	fprintf(f, "race %s, strategy %s, variants %s\n", r->race,
		r->concurrent ? "concurrent (real threads, liburcu)" : msim_strategy_name(r->strategy),
		r->variants);
	if (r->rep.trace[0])
		fprintf(f, "%s", r->rep.trace);
	for (unsigned int i = 0; i < r->rep.nr_figs; i++) {
		const struct msim_scn_fig *g = &r->rep.figs[i];
		if (g->type == MSIM_FIG_INT)
			fprintf(f, "  %-32s %lld\n", g->key, g->i);
		else if (g->type == MSIM_FIG_BOOL)
			fprintf(f, "  %-32s %s\n", g->key, g->i ? "yes" : "no");
		else if (g->type == MSIM_FIG_DOUBLE)
			fprintf(f, "  %-32s %.6g\n", g->key, g->d);
		else
			fprintf(f, "  %-32s %s\n", g->key, g->s);
	}
	fprintf(f, "  runs %u, violations %u, %.3f s\n", r->ex.runs, r->ex.violations,
		r->ex.seconds);
	if (r->ex.first_violation_run >= 0 && !r->concurrent) {
		if (r->strategy == MSIM_STRAT_RANDOM || r->strategy == MSIM_STRAT_PCT)
			fprintf(f, "  first violation: run %d, seed %llu\n",
				r->ex.first_violation_run,
				(unsigned long long)r->ex.first_violation_seed);
		if (r->ex.why[0] && r->strategy != MSIM_STRAT_SCRIPT)
			print_indented(f, r->ex.why);
		if (r->ex.schedule_truncated)
			fprintf(f, "  schedule too long to print in full (not replayable from here)\n");
		else if (r->strategy != MSIM_STRAT_SCRIPT || r->script_replays)
			fprintf(f, "  replay: memcgsim race %s --schedule '%s'\n", r->race,
				r->ex.schedule);
		else
			fprintf(f, "  scripted schedule: %s (the script's own tasks; replay a "
				   "schedule from --strategy pct or dfs instead)\n", r->ex.schedule);
	}
	fprintf(f, "  outcome: %s -> %s\n", r->outcome,
		r->behaved_as_expected ? "as expected" : "NOT AS EXPECTED");
}
