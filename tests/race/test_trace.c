/* SPDX-License-Identifier: MIT */
/*
 * The trace export (msim_race_trace, `memcgsim race NAME --trace FILE`): the
 * file is Chrome trace-event JSON with one track per CPU, one instant event for
 * the finding (the race's named windows as instant events behind
 * MSIM_RACE_TRACE_POINTS), and counter tracks that show the bad state the
 * run's own figures report. Parsed with Jansson, as a trace viewer would.
 */
#include <errno.h>
#include <math.h>
#include <jansson.h>

#include "race_util.h"

/* The flags trace_of passes (MSIM_RACE_TRACE_POINTS for the tests of the windows). */
static unsigned int trace_flags;

/* The trace of res (a run of race name) parsed back; fails the test on any error. */
static json_t *trace_of(const char *name, const struct msim_race_result *res)
{
	char *text = NULL, err[512] = "";
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_error_t jerr;
	json_t *doc;
	int ret;

	assert_non_null(f);
	ret = msim_race_trace_flags(race_get(name), res, f, trace_flags, err, sizeof(err));
	fclose(f);
	if (ret)
		fail_msg("trace of %s: %s (%d)", name, err, ret);
	doc = json_loads(text, 0, &jerr);
	if (!doc)
		fail_msg("trace of %s is not JSON: %s at line %d", name, jerr.text, jerr.line);
	free(text);
	return doc;
}

static json_t *events_of(json_t *doc)
{
	json_t *ev = json_object_get(doc, "traceEvents");

	assert_true(json_is_array(ev));
	assert_true(json_array_size(ev) > 0);
	return ev;
}

/* Every event has ph (a string), ts (a number), pid and tid (integers). */
static void check_event_fields(json_t *events)
{
	size_t i;
	json_t *e;

	json_array_foreach(events, i, e) {
		assert_true(json_is_string(json_object_get(e, "ph")));
		assert_true(json_is_number(json_object_get(e, "ts")));
		assert_true(json_is_integer(json_object_get(e, "pid")));
		assert_true(json_is_integer(json_object_get(e, "tid")));
		assert_true(json_is_string(json_object_get(e, "name")));
	}
}

static bool is(json_t *e, const char *ph, const char *name)
{
	return !strcmp(json_string_value(json_object_get(e, "ph")), ph) &&
	       (!name || !strcmp(json_string_value(json_object_get(e, "name")), name));
}

static long long int_of(json_t *e, const char *key)
{
	return json_integer_value(json_object_get(e, key));
}

/* How many events of phase ph (and name, unless NULL) the trace has. */
static size_t count(json_t *events, const char *ph, const char *name)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(events, i, e)
		n += is(e, ph, name);
	return n;
}

/* The CPU tracks: thread_name "CPU <tid>" for tids 0..cpus-1, each once. */
static void check_cpu_tracks(json_t *events, unsigned int cpus)
{
	unsigned int seen[64] = { 0 };
	size_t i;
	json_t *e;

	assert_true(cpus <= 64);
	json_array_foreach(events, i, e) {
		const char *name;
		long long tid = int_of(e, "tid");

		if (!is(e, "M", "thread_name"))
			continue;
		name = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
		if (strncmp(name, "CPU ", 4))
			continue;
		assert_int_equal(atoll(name + 4), tid);
		assert_true(tid >= 0 && tid < (long long)cpus);
		seen[tid]++;
	}
	for (unsigned int c = 0; c < cpus; c++)
		assert_int_equal(seen[c], 1);
}

/* Task slices sit on the track of the CPU their task runs on. */
static void check_slices_on(json_t *events, const char *task, long long cpu)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(events, i, e) {
		if (!is(e, "X", task))
			continue;
		assert_int_equal(int_of(e, "tid"), cpu);
		assert_true(int_of(e, "dur") > 0);
		n++;
	}
	assert_true(n > 0);
}

/* The largest value counter name takes while counter other equals other_val. */
static long long counter_max_while(json_t *events, const char *name, const char *other,
				   long long other_val)
{
	long long cur = -1, cur_other = -1, best = -1;
	size_t i;
	json_t *e;

	json_array_foreach(events, i, e) {
		if (!is(e, "C", NULL))
			continue;
		const char *n = json_string_value(json_object_get(e, "name"));
		long long v = int_of(json_object_get(e, "args"), "value");

		if (!strcmp(n, name))
			cur = v;
		else if (!strcmp(n, other))
			cur_other = v;
		if (cur_other == other_val && cur > best)
			best = cur;
	}
	return best;
}

/*
 * rstat-early-exit's script on 4 CPUs: the file's structure, its windows, and
 * the stuck state on the counter tracks: leaf's stats_updates above the threshold
 * while root's stays at its value after the batches (the script's figures).
 */
static void early_exit_script(void **state)
{
	struct msim_race_result *res = race_script_cpus("rstat-early-exit", 0);
	json_t *doc, *ev;

	(void)state;
	trace_flags = MSIM_RACE_TRACE_POINTS;
	doc = trace_of("rstat-early-exit", res);
	trace_flags = 0;
	ev = events_of(doc);
	check_event_fields(ev);
	check_cpu_tracks(ev, res->cfg.nr_cpus);
	assert_int_equal(count(ev, "M", "process_name"), 1);
	/* the tasks of ee_build: flusher on CPU 0, updater on CPU 1, rootupd on N-1 */
	check_slices_on(ev, "flusher", 0);
	check_slices_on(ev, "updater", 1);
	check_slices_on(ev, "rootupd", res->cfg.nr_cpus - 1);
	/* the windows the script stops at */
	assert_true(count(ev, "i", "rstat.flush.cpu_start") >= 3);
	/* every task update stops there once: the updater's 1-page updates, (3N + 3)
	 * batches of 64, and rootupd's one */
	assert_int_equal(count(ev, "i", "rstat.update.done"),
			 (size_t)(3 * res->cfg.nr_cpus + 3) * 64 + 1);
	assert_true(count(ev, "C", "leaf stats_updates") > 0);
	assert_true(count(ev, "C", "root unflushed pages") > 0);
	assert_true(counter_max_while(ev, "leaf stats_updates", "root stats_updates",
				      race_fig(res, "root_atomic_after_batches")) >
		    race_fig(res, "threshold"));
	assert_int_equal(counter_max_while(ev, "root unflushed pages", "root stats_updates",
					   race_fig(res, "root_atomic_later")),
			 race_fig(res, "root_unflushed_later"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "otherData"),
								"schedule")),
			    res->ex.schedule);
	json_decref(doc);
	free(res);
}

/* The instant events of category cat in events. */
static size_t instants_of(json_t *events, const char *cat)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(events, i, e) {
		const char *c = json_string_value(json_object_get(e, "cat"));

		n += is(e, "i", NULL) && c && !strcmp(c, cat);
	}
	return n;
}

/*
 * By default the timeline carries one instant, the finding (the run's outcome,
 * over the whole timeline at its last step), not one per yield point; ts is in
 * microseconds with no displayTimeUnit (Perfetto ignores it; some versions read
 * "ns" as the unit of ts, which would make a step a nanosecond).
 */
static void default_trace_finding(void **state)
{
	struct msim_race_result *res = race_script_cpus("rstat-early-exit", 0);
	json_t *doc = trace_of("rstat-early-exit", res), *ev = events_of(doc), *e, *found = NULL;
	double last = 0;
	size_t i;

	(void)state;
	check_event_fields(ev);
	assert_null(json_object_get(doc, "displayTimeUnit"));
	assert_non_null(strstr(json_string_value(json_object_get(json_object_get(doc, "otherData"),
								   "time_unit")), "microseconds"));
	assert_int_equal(instants_of(ev, "point"), 0);
	assert_int_equal(instants_of(ev, "rcu"), 0);
	assert_int_equal(instants_of(ev, "finding"), 1);
	json_array_foreach(ev, i, e) {
		const char *cat = json_string_value(json_object_get(e, "cat"));

		if (is(e, "X", NULL))
			last = fmax(last, json_number_value(json_object_get(e, "ts")) +
					  json_number_value(json_object_get(e, "dur")));
		if (cat && !strcmp(cat, "finding"))
			found = e;
	}
	assert_string_equal(json_string_value(json_object_get(found, "s")), "g");
	assert_true(json_number_value(json_object_get(found, "ts")) == last);
	assert_int_equal(json_is_true(json_object_get(json_object_get(found, "args"), "violation")),
			 res->ex.violations > 0);
	assert_non_null(strstr(json_string_value(json_object_get(found, "name")),
			       res->ex.violations ? "violation: " : "held: "));
	json_decref(doc);
	free(res);
}

/* An explorer's violation: the trace replays its schedule (one run). */
static void early_exit_pct(void **state)
{
	struct msim_race_opts o;
	struct msim_config cfg;
	struct msim_race_result *res;
	json_t *doc, *ev;

	(void)state;
	msim_race_opts_init(&o, MSIM_STRAT_PCT);
	o.stop_at_first = true;
	msim_config_init(&cfg);
	res = race_run_cfg("rstat-early-exit", &cfg, &o);
	assert_true(res->ex.violations > 0);
	doc = trace_of("rstat-early-exit", res);
	ev = events_of(doc);
	check_event_fields(ev);
	check_cpu_tracks(ev, res->cfg.nr_cpus);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "otherData"),
								"strategy")), "replay");
	json_decref(doc);
	free(res);
}

/* A grace period shows as a span on the RCU track (tid = CPUs). */
static void rcu_grace_period_span(void **state)
{
	struct msim_race_result *res = race_script_cpus("toy-rcu-reader", 0);
	json_t *doc, *ev, *e;
	size_t i, spans = 0;

	(void)state;
	doc = trace_of("toy-rcu-reader", res);
	ev = events_of(doc);
	json_array_foreach(ev, i, e) {
		const char *cat = json_string_value(json_object_get(e, "cat"));

		if (!is(e, "X", NULL) || !cat || strcmp(cat, "rcu"))
			continue;
		assert_int_equal(int_of(e, "tid"), res->cfg.nr_cpus);
		assert_true(int_of(e, "dur") > 0);
		spans++;
	}
	assert_true(spans > 0);
	json_decref(doc);
	free(res);
}

/* What cannot be traced says why. */
static void refusals(void **state)
{
	struct msim_race_result *res = race_script_cpus("rstat-early-exit", 0);
	char err[256] = "";
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	res->concurrent = true;
	assert_int_equal(msim_race_trace(race_get("rstat-early-exit"), res, f, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "concurrent"));
	res->concurrent = false;
	res->strategy = MSIM_STRAT_PCT;       /* a schedule of no PCT run: the replay differs */
	snprintf(res->ex.schedule, sizeof(res->ex.schedule), "2.1.0");
	assert_true(msim_race_trace(race_get("rstat-early-exit"), res, f, err, sizeof(err)) < 0);
	assert_int_equal(msim_race_trace(NULL, res, f, err, sizeof(err)), -EINVAL);
	assert_int_equal(msim_race_trace_flags(race_get("rstat-early-exit"), res, f, 0x80, err,
					       sizeof(err)), -EINVAL);
	fclose(f);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(early_exit_script),
		cmocka_unit_test(default_trace_finding),
		cmocka_unit_test(early_exit_pct),
		cmocka_unit_test(rcu_grace_period_span),
		cmocka_unit_test(refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
