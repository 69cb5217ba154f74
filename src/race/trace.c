/* SPDX-License-Identifier: MIT */
/*
 * trace.c - a race run as a Chrome trace-event timeline (JSON), which
 * ui.perfetto.dev and chrome://tracing open: one process per host, one track
 * (thread) per CPU with the slices of the tasks that ran there (each names the
 * yield point it started from and the one it stopped at), an "RCU" track with
 * the grace periods as spans, counter tracks for the counters the race declared
 * (msim_race_trace_counter), and one instant event for the finding: the run's
 * outcome (the violation, or that the invariant held) at its last step. With
 * MSIM_RACE_TRACE_POINTS, also an instant at every yield point a task stopped at
 * and at each RCU engine step (thousands in a script's run: they hide the rest).
 *
 * Time: the deterministic scheduler has no durations, only an order, so one
 * scheduler step is one microsecond of the timeline (ts = the step's index).
 * The trace-event format's ts is in microseconds and that is how Perfetto and
 * chrome://tracing read it; the file sets no displayTimeUnit (Perfetto ignores
 * it, and some of its versions read "ns" as the unit of ts).
 * Driver work between two steps (a script's own reads and updates) takes no time
 * there; a counter it moves shows at the end of the next step.
 *
 * The run is taken again rather than recorded on the first pass: runs are
 * deterministic, so the script (or a replay of the result's schedule) gives the
 * same steps, and the trace checks that its schedule is the result's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

#include "json_internal.h"
#include "sim/sched.h"

#define TRACE_MAX_HOSTS 16
#define TRACE_MAX_COUNTERS 64

struct trace_counter {
	const struct msim *m;
	char name[64];
	long (*read)(void *arg);
	void *arg;
	long last;
	bool sampled;
};

/* One host's timeline: the slice being extended and the grace period open. */
struct trace_host {
	const struct msim *m;
	int pid;
	unsigned int nr_cpus;
	uint64_t last_ts;
	/* The open slice: consecutive steps of one task (pick), in one context. */
	int slice_pick;           /* -2: none */
	const char *slice_ctx;
	/* copies: the task (and its name) may be gone when the slice closes */
	char slice_task[32], slice_from[64], slice_to[64];
	unsigned int slice_cpu;
	uint64_t slice_start, slice_steps;
	const char *last_point[1024]; /* by task index (up to 1024): where it last stopped */
	uint64_t gp_seen;         /* grace periods ended that the timeline shows */
	bool gp_open;
	uint64_t gp_start;
};

struct trace {
	json_t *events;
	struct trace_host hosts[TRACE_MAX_HOSTS];
	unsigned int nr_hosts;
	struct trace_counter counters[TRACE_MAX_COUNTERS];
	unsigned int nr_counters;
	const char *race;
	bool points;              /* MSIM_RACE_TRACE_POINTS */
};

/* The trace being taken on this thread (deterministic runs stay on one thread). */
static _Thread_local struct trace *tracing;

static void add(struct trace *t, json_t *ev)
{
	if (ev)
		json_array_append_new(t->events, ev);
}

static json_t *event(const char *ph, const char *name, int pid, unsigned int tid, double ts)
{
	json_t *ev = json_object();

	if (!ev)
		return NULL;
	json_object_set_new(ev, "name", msim__json_string(name));
	json_object_set_new(ev, "ph", json_string(ph));
	json_object_set_new(ev, "ts", msim__json_number(ts, 15));
	json_object_set_new(ev, "pid", json_integer(pid));
	json_object_set_new(ev, "tid", json_integer(tid));
	return ev;
}

static void meta(struct trace *t, const char *what, int pid, unsigned int tid, const char *name,
		 int sort)
{
	json_t *ev = event("M", what, pid, tid, 0);

	if (!ev)
		return;
	json_object_set_new(ev, "args", json_pack("{s:s}", "name", name));
	add(t, ev);
	if (sort < 0)
		return;
	ev = event("M", "thread_sort_index", pid, tid, 0);
	if (ev)
		json_object_set_new(ev, "args", json_pack("{s:i}", "sort_index", sort));
	add(t, ev);
}

static void host_start(struct trace *t, const struct msim *m, unsigned int nr_cpus)
{
	struct trace_host *h;
	char name[160];

	/* A new host at the address of a destroyed one: the old one's counters read
	 * freed memory now. */
	for (unsigned int i = 0; i < t->nr_counters; i++)
		if (t->counters[i].m == m)
			t->counters[i].m = NULL;
	if (t->nr_hosts == TRACE_MAX_HOSTS)
		return;
	h = &t->hosts[t->nr_hosts++];
	memset(h, 0, sizeof(*h));
	h->m = m;
	h->pid = (int)t->nr_hosts;
	h->nr_cpus = nr_cpus;
	h->slice_pick = -2;
	snprintf(name, sizeof(name), "%s: host %d (%u CPUs)", t->race, h->pid, nr_cpus);
	meta(t, "process_name", h->pid, 0, name, -1);
	for (unsigned int c = 0; c < nr_cpus && c < 1024; c++) {
		snprintf(name, sizeof(name), "CPU %u", c);
		meta(t, "thread_name", h->pid, c, name, (int)c);
	}
	meta(t, "thread_name", h->pid, nr_cpus, "RCU (grace periods, engine steps)", (int)nr_cpus);
}

/* The newest host at m (an address can be reused by a later host). */
static struct trace_host *host_of(struct trace *t, const struct msim *m)
{
	for (unsigned int i = t->nr_hosts; i-- > 0;)
		if (t->hosts[i].m == m)
			return &t->hosts[i];
	return NULL;
}

static void slice_close(struct trace *t, struct trace_host *h)
{
	json_t *ev;

	if (h->slice_pick == -2)
		return;
	ev = event("X", h->slice_ctx ? h->slice_ctx : h->slice_task, h->pid, h->slice_cpu,
		   (double)h->slice_start);
	if (ev) {
		json_object_set_new(ev, "cat", json_string(h->slice_ctx ? "irq" : "task"));
		json_object_set_new(ev, "dur", json_integer((json_int_t)h->slice_steps));
		json_object_set_new(ev, "args", json_pack("{s:o, s:I, s:I, s:o, s:o}",
			"task", msim__json_string(h->slice_task),
			"index", (json_int_t)h->slice_pick, "steps", (json_int_t)h->slice_steps,
			"from", msim__json_string(h->slice_from),
			"to", msim__json_string(h->slice_to)));
	}
	add(t, ev);
	h->slice_pick = -2;
}

/* Extend the open slice with step e, or close it and open one for e. */
static void slice_step(struct trace *t, struct trace_host *h, const struct msim__sched_event *e)
{
	const char *from = e->pick >= 0 && e->pick < 1024 ? h->last_point[e->pick] : NULL;

	if (h->slice_pick != e->pick || h->slice_ctx != e->ctx ||
	    h->slice_start + h->slice_steps != e->step) {
		slice_close(t, h);
		h->slice_pick = e->pick;
		snprintf(h->slice_task, sizeof(h->slice_task), "%s", e->task ? e->task : "?");
		h->slice_ctx = e->ctx;
		h->slice_cpu = e->cpu;
		h->slice_start = e->step;
		h->slice_steps = 0;
		snprintf(h->slice_from, sizeof(h->slice_from), "%s", from ? from : "start");
	}
	h->slice_steps++;
	snprintf(h->slice_to, sizeof(h->slice_to), "%s", e->point ? e->point : "exit");
	if (e->pick >= 0 && e->pick < 1024)
		h->last_point[e->pick] = e->point;
}

/* The yield point the task stopped at, as an instant event on its CPU's track. */
static void point_instant(struct trace *t, struct trace_host *h, const struct msim__sched_event *e)
{
	json_t *ev = event("i", e->point ? e->point : "exit", h->pid, e->cpu,
			   (double)(e->step + 1));

	if (!ev)
		return;
	json_object_set_new(ev, "cat", json_string("point"));
	json_object_set_new(ev, "s", json_string("t"));
	json_object_set_new(ev, "args", json_pack("{s:o, s:I, s:I}", "task",
		msim__json_string(e->task), "step", (json_int_t)e->step,
		"jiffies", (json_int_t)e->jiffies));
	add(t, ev);
}

static void gp_span(struct trace *t, struct trace_host *h, uint64_t end)
{
	char name[48];
	json_t *ev;

	snprintf(name, sizeof(name), "grace period %llu", (unsigned long long)h->gp_seen + 1);
	ev = event("X", name, h->pid, h->nr_cpus, (double)h->gp_start);
	if (ev) {
		json_object_set_new(ev, "cat", json_string("rcu"));
		json_object_set_new(ev, "dur", json_integer((json_int_t)(end - h->gp_start)));
	}
	add(t, ev);
}

/*
 * Grace periods: one ended during step e (it ends at the step's end), one began
 * during it (it begins at the step's start: synchronize_rcu or call_rcu asked).
 */
static void gp_step(struct trace *t, struct trace_host *h, const struct msim__sched_event *e)
{
	if (e->gp_completed > h->gp_seen) {
		if (h->gp_open)
			gp_span(t, h, e->step + 1);
		h->gp_seen = e->gp_completed;
		h->gp_open = false;
	}
	if (e->gp_in_progress && !h->gp_open) {
		h->gp_open = true;
		h->gp_start = e->pick == MSIM_PICK_R ? e->step + 1 : e->step;
	}
	if (e->pick == MSIM_PICK_R && t->points) {
		json_t *ev = event("i", "RCU engine step", h->pid, h->nr_cpus,
				   (double)(e->step + 1));

		if (ev) {
			json_object_set_new(ev, "cat", json_string("rcu"));
			json_object_set_new(ev, "s", json_string("t"));
		}
		add(t, ev);
	}
}

/* Every declared counter of host h whose value changed, as a counter event at ts. */
static void counters_sample(struct trace *t, struct trace_host *h, uint64_t ts)
{
	for (unsigned int i = 0; i < t->nr_counters; i++) {
		struct trace_counter *c = &t->counters[i];
		long v;
		json_t *ev;

		if (c->m != h->m)
			continue;
		v = c->read(c->arg);
		if (c->sampled && v == c->last)
			continue;
		c->sampled = true;
		c->last = v;
		ev = event("C", c->name, h->pid, 0, (double)ts);
		if (ev)
			json_object_set_new(ev, "args", json_pack("{s:I}", "value", (json_int_t)v));
		add(t, ev);
	}
}

static void observe(struct msim *m, const struct msim__sched_event *e, void *arg)
{
	struct trace *t = arg;
	struct trace_host *h;

	if (e->kind == MSIM__SCHED_HOST_START) {
		host_start(t, m, e->nr_cpus);
		return;
	}
	if (!(h = host_of(t, m)))
		return;
	if (e->pick != MSIM_PICK_R) {
		slice_step(t, h, e);
		if (t->points)
			point_instant(t, h, e);
	}
	gp_step(t, h, e);
	counters_sample(t, h, e->step + 1);
	h->last_ts = e->step + 1;
}

void msim_race_trace_counter(struct msim *m, const char *name, long (*read)(void *arg),
			     void *arg)
{
	struct trace *t = tracing;
	struct trace_counter *c;

	if (!t || !m || !name || !read || t->nr_counters == TRACE_MAX_COUNTERS)
		return;
	c = &t->counters[t->nr_counters++];
	memset(c, 0, sizeof(*c));
	c->m = m;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->read = read;
	c->arg = arg;
}

/*
 * The finding: the run's outcome as one instant over the whole last host's
 * timeline (scope "g"), at its last step: what the check found.
 */
static void finding(struct trace *t, const struct msim_race_result *again)
{
	const struct trace_host *h = t->nr_hosts ? &t->hosts[t->nr_hosts - 1] : NULL;
	char name[320];
	json_t *ev;

	if (!h)
		return;
	snprintf(name, sizeof(name), "%s: %s", again->ex.violations ? "violation" : "held",
		 again->outcome);
	ev = event("i", name, h->pid, 0, (double)h->last_ts);
	if (!ev)
		return;
	json_object_set_new(ev, "cat", json_string("finding"));
	json_object_set_new(ev, "s", json_string("g"));
	json_object_set_new(ev, "args", json_pack("{s:o, s:b, s:o}", "outcome",
		msim__json_string(again->outcome), "violation", again->ex.violations > 0,
		"schedule", msim__json_string(again->ex.schedule)));
	add(t, ev);
}

/* Close what is open at each host's last step, then mark the finding. */
static void trace_finish(struct trace *t, const struct msim_race_result *again)
{
	for (unsigned int i = 0; i < t->nr_hosts; i++) {
		struct trace_host *h = &t->hosts[i];

		slice_close(t, h);
		if (h->gp_open)
			gp_span(t, h, h->last_ts > h->gp_start ? h->last_ts : h->gp_start + 1);
		h->gp_open = false;
	}
	finding(t, again);
}

/* The options that take res's run again: its script, or a replay of its schedule. */
static void rerun_opts(const struct msim_race_result *res, struct msim_race_opts *o)
{
	if (res->strategy == MSIM_STRAT_SCRIPT) {
		msim_race_opts_init(o, MSIM_STRAT_SCRIPT);
	} else {
		msim_race_opts_init(o, MSIM_STRAT_REPLAY);
		o->schedule = res->ex.schedule;
		o->runs = 1;
	}
	o->side = res->side;
}

static json_t *trace_document(struct trace *t, const struct msim_race_result *res,
			      const struct msim_race_result *again)
{
	json_t *doc = json_object(), *about = msim__race_result_json(again);

	if (!doc || !about) {
		json_decref(doc);
		json_decref(about);
		return NULL;
	}
	json_object_set_new(about, "traced_strategy",
			    json_string(msim_strategy_name(res->strategy)));
	json_object_set_new(about, "time_unit", json_string("ts is in microseconds (the trace "
							    "event format's unit): 1 us = 1 "
							    "scheduler step (the model has order, "
							    "not durations)"));
	json_object_set_new(about, "point_instants", json_boolean(t->points));
	json_object_set_new(doc, "traceEvents", json_incref(t->events));
	json_object_set_new(doc, "otherData", about);
	return doc;
}

static int trace_run(const struct msim_race *r, const struct msim_race_result *res,
		     struct trace *t, struct msim_race_result *again, char *err, size_t errlen)
{
	struct msim_race_opts o;
	int ret;

	rerun_opts(res, &o);
	tracing = t;
	msim__sched_observe_hosts(observe, t);
	ret = msim_race_run(r, &res->cfg, &o, again, err, errlen);
	msim__sched_observe_hosts(NULL, NULL);
	tracing = NULL;
	if (!ret && strcmp(again->ex.schedule, res->ex.schedule)) {
		snprintf(err, errlen, "race %s: the traced run took schedule '%.100s', not the "
			 "result's '%.100s'", r->name, again->ex.schedule, res->ex.schedule);
		ret = -EDOM;
	}
	return ret;
}

int msim_race_trace(const struct msim_race *r, const struct msim_race_result *res, FILE *f,
		    char *err, size_t errlen)
{
	return msim_race_trace_flags(r, res, f, 0, err, errlen);
}

int msim_race_trace_flags(const struct msim_race *r, const struct msim_race_result *res, FILE *f,
			  unsigned int flags, char *err, size_t errlen)
{
	struct trace *t;
	struct msim_race_result *again;
	json_t *doc = NULL;
	int ret;

	if (!r || !res || !f) {
		snprintf(err, errlen, "msim_race_trace: race, result and file are required");
		return -EINVAL;
	}
	if (flags & ~MSIM_RACE_TRACE_POINTS) {
		snprintf(err, errlen, "msim_race_trace: unknown flags 0x%x", flags);
		return -EINVAL;
	}
	if (res->concurrent || res->ex.schedule_truncated) {
		snprintf(err, errlen, "race %s: %s", r->name, res->concurrent
			 ? "a concurrent run has no schedule to trace"
			 : "the run's schedule was too long to keep, so it cannot be traced");
		return -EINVAL;
	}
	t = calloc(1, sizeof(*t));
	again = malloc(sizeof(*again));
	if (!t || !again || !(t->events = json_array())) {
		ret = -ENOMEM;
		goto out;
	}
	t->race = r->name;
	t->points = flags & MSIM_RACE_TRACE_POINTS;
	ret = trace_run(r, res, t, again, err, errlen);
	if (ret)
		goto out;
	trace_finish(t, again);
	doc = trace_document(t, res, again);
	if (!doc || json_dumpf(doc, f, JSON_COMPACT | JSON_REAL_PRECISION(15)) ||
	    fputc('\n', f) == EOF) {
		snprintf(err, errlen, "race %s: writing the trace failed", r->name);
		ret = -EIO;
	}
out:
	json_decref(doc);
	if (t)
		json_decref(t->events);
	free(t);
	free(again);
	return ret;
}
