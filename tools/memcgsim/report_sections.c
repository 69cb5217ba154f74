/* SPDX-License-Identifier: MIT */
/*
 * report_sections.c - a bench's section of the report (its verdict table with
 * the rule and the reason of each) and a race's (its diagram, and per side a
 * table of the script and the explorers in the race's own words: "bug reached",
 * "fix held", never a bench's "holds").
 */
#include <stdlib.h>
#include <string.h>

#include "report_doc.h"

void doc_figures_text(json_t *list, char *buf, size_t len)
{
	size_t i, n = 0;
	json_t *g;

	buf[0] = '\0';
	json_array_foreach(list, i, g) {
		json_t *v = json_object_get(g, "value");
		const char *label = json_string_value(json_object_get(g, "label"));
		const char *unit = json_string_value(json_object_get(g, "unit"));

		if (n >= len)
			break;
		if (json_is_number(v))
			n += (size_t)snprintf(buf + n, len - n, "%s%s %.6g%s%s", i ? "; " : "",
					      label ? label : "", json_number_value(v),
					      unit && *unit ? " " : "", unit ? unit : "");
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "; " : "",
					      label ? label : "");
	}
}

void doc_bench_command(const struct report *rep, const struct report_bench *rb, char *buf,
		       size_t len)
{
	char extra[128];

	report_bench_size_args(rep, rb->b->name, extra, sizeof(extra));
	snprintf(buf, len, "memcgsim bench %s%s%s%s", rb->b->name, rep->quick ? " --quick" : "",
		 extra[0] ? " " : "", extra);
}

static void count_verdict(struct tally *t, const char *v)
{
	if (!v)
		return;
	t->holds += !strcmp(v, "holds");
	t->fails += !strcmp(v, "does not hold");
	t->nc += !strcmp(v, "not comparable");
	t->bc += !strcmp(v, "by construction");
}

static void bench_verdicts(struct doc *d, const struct report_bench *rb, struct tally *t)
{
	static const char *const head[] = { "claim", "thread", "ours", "verdict", "rule", "why",
					    NULL };
	char th[512], ours[512];
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(rb->doc, "verdicts"), i, v) {
		const char *verdict = json_string_value(json_object_get(v, "verdict"));
		const char *cells[6], *cls[6] = { NULL };

		if (!i)
			doc_table_begin(d, head);
		doc_figures_text(json_object_get(v, "thread"), th, sizeof(th));
		doc_figures_text(json_object_get(v, "ours"), ours, sizeof(ours));
		cells[0] = json_string_value(json_object_get(v, "claim"));
		cells[1] = th;
		cells[2] = ours;
		cells[3] = verdict;
		cells[4] = json_string_value(json_object_get(v, "rule"));
		cells[5] = json_string_value(json_object_get(v, "why"));
		cls[3] = doc_verdict_class(verdict, false);
		cls[4] = "code";
		doc_table_row(d, cells, cls);
		count_verdict(t, verdict);
	}
	if (json_array_size(json_object_get(rb->doc, "verdicts")))
		doc_table_end(d);
}

void doc_bench_section(struct doc *d, const struct report *rep, const struct report_bench *rb,
		       struct tally *t)
{
	char title[160], id[160], cmd[256];
	const char *measures = json_string_value(json_object_get(rb->doc, "measures"));

	snprintf(title, sizeof(title), "bench %s", rb->b->name);
	snprintf(id, sizeof(id), "bench-%s", rb->b->name);
	doc_bench_command(rep, rb, cmd, sizeof(cmd));
	doc_heading(d, 3, id, title);
	doc_para(d, "%s", rb->b->summary);
	if (!rb->doc) {
		doc_para(d, "This bench did not finish (exit status %d after %.1f s); its log is "
			 "logs/bench-%s.log.", rb->status, rb->seconds, rb->b->name);
		return;
	}
	doc_para(d, "Ran as `%s` in %.1f s (%.1f s of CPU)%s; every figure in bench-%s.json.%s%s",
		 cmd, rb->seconds, rb->cpu_seconds,
		 json_is_true(json_object_get(rb->doc, "quick")) ? " (--quick: smoke sizes, not "
								   "the thread's)" : "",
		 rb->b->name, measures ? " Its times measure: " : "", measures ? measures : "");
	bench_verdicts(d, rb, t);
}

/* ---- races ---- */

const char *doc_race_outcome(json_t *run, bool bug, char *buf, size_t len, bool *as_stated)
{
	long long runs = json_integer_value(json_object_get(run, "runs"));
	long long viol = json_integer_value(json_object_get(run, "violations"));
	json_t *fv = json_object_get(run, "schedules_to_first_violation");
	bool all = json_is_true(json_object_get(run, "exhausted"));
	const char *strategy = json_string_value(json_object_get(run, "strategy"));
	bool script = strategy && !strcmp(strategy, "script");

	*as_stated = json_is_true(json_object_get(run, "behaved_as_expected"));
	if (viol && bug && fv)
		snprintf(buf, len, "bug reached (schedule %lld)", json_integer_value(fv));
	else if (viol && bug)
		snprintf(buf, len, "bug reached");
	else if (viol && fv)
		snprintf(buf, len, "fix broken: bad state at schedule %lld", json_integer_value(fv));
	else if (viol)
		snprintf(buf, len, "fix broken: %lld violations", viol);
	else if (bug && script)
		snprintf(buf, len, "not reached by the script");
	else if (bug)
		snprintf(buf, len, "not reached within %lld %s", runs,
			 all ? "schedules (all of them)" : "runs");
	else if (script)
		snprintf(buf, len, "fix held (the script)");
	else
		snprintf(buf, len, "fix held over %lld %s", runs, all ? "schedules (all)" : "runs");
	return buf;
}

/* The "replay: ..." line of a printed result, or NULL. */
static const char *replay_line(const char *text, char *buf, size_t len)
{
	const char *p = text ? strstr(text, "replay: ") : NULL;

	if (!p)
		return NULL;
	p += strlen("replay: ");
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

const char *doc_race_replay(json_t *run, const char *race, const char *side, char *buf,
			    size_t len)
{
	const char *strategy = json_string_value(json_object_get(run, "strategy"));

	if (replay_line(json_string_value(json_object_get(run, "text")), buf, len))
		return buf;
	if (strategy && !strcmp(strategy, "script")) {
		snprintf(buf, len, "memcgsim race %s%s%s", race, side ? " --side " : "",
			 side ? side : "");
		return buf;
	}
	return NULL;
}

/* One row of a side's table: a run (the script, or an explorer) and what it came to. */
static void run_row(struct doc *d, json_t *e, const char *what, const char *race,
		    const char *side, bool bug, struct tally *t)
{
	json_t *fv = json_object_get(e, "schedules_to_first_violation");
	char runs[48], viol[24], first[64], rp[1200], outcome[160];
	bool ok;
	const char *cells[6] = { what, runs, viol, first,
				 doc_race_outcome(e, bug, outcome, sizeof(outcome), &ok),
				 doc_race_replay(e, race, side, rp, sizeof(rp)) };
	const char *cls[6] = { NULL, NULL, NULL, NULL, ok ? "race-ok" : "race-bad", "code" };

	if (!ok)
		snprintf(outcome + strlen(outcome), sizeof(outcome) - strlen(outcome),
			 " (not what the side states)");
	snprintf(runs, sizeof(runs), "%lld%s", json_integer_value(json_object_get(e, "runs")),
		 json_is_true(json_object_get(e, "exhausted")) ? " (all)" : "");
	snprintf(viol, sizeof(viol), "%lld", json_integer_value(json_object_get(e, "violations")));
	if (fv)
		snprintf(first, sizeof(first), "%lld", json_integer_value(fv));
	else
		snprintf(first, sizeof(first), "%s",
			 json_integer_value(json_object_get(e, "violations")) ? "1" : "none");
	doc_table_row(d, cells, cls);
	t->race_ok += ok;
	t->race_bad += !ok;
}

static void race_side(struct doc *d, const char *race, json_t *side, struct tally *t)
{
	static const char *const head[] = { "run", "runs", "violations",
					    "schedules to first violation", "what happened",
					    "replay", NULL };
	json_t *script = json_object_get(side, "script"), *e;
	bool bug = json_is_true(json_object_get(side, "violation_expected"));
	const char *name = json_string_value(json_object_get(side, "side"));
	char title[160], id[200];
	size_t i;

	snprintf(title, sizeof(title), "side %s (%s)", name ? name : "?",
		 bug ? "the bug: the bad state must be reachable"
		     : "the fix: the invariant must hold");
	snprintf(id, sizeof(id), "race-%s-side-%s", race, name ? name : "");
	doc_heading(d, 4, id, title);
	doc_para(d, "%s", json_string_value(json_object_get(side, "summary")));
	if (name && !strcmp(name, "default"))
		name = NULL;
	doc_table_begin(d, head);
	if (script)
		run_row(d, script, "script", race, name, bug, t);
	json_array_foreach(json_object_get(side, "explore"), i, e)
		run_row(d, e, json_string_value(json_object_get(e, "strategy")), race, name, bug, t);
	doc_table_end(d);
	if (script)
		doc_pre(d, json_string_value(json_object_get(script, "text")));
}

void doc_race_section(struct doc *d, const struct report_race *rr, struct tally *t)
{
	json_t *side;
	char title[200], id[160];
	size_t i;

	snprintf(title, sizeof(title), "race %s%s%s", rr->r->name,
		 rr->r->windows && *rr->r->windows ? " " : "", rr->r->windows ? rr->r->windows : "");
	snprintf(id, sizeof(id), "race-%s", rr->r->name);
	doc_heading(d, 3, id, title);
	doc_para(d, "%s", rr->r->summary);
	doc_pre(d, rr->r->diagram);
	if (rr->trace_file[0])
		doc_para(d, "Timeline of the side with the bug: %s (Chrome trace JSON: open it in "
			 "ui.perfetto.dev or chrome://tracing).", rr->trace_file);
	if (!rr->doc) {
		doc_para(d, "This race did not run; see the progress log.");
		return;
	}
	json_array_foreach(json_object_get(rr->doc, "sides"), i, side)
		race_side(d, rr->r->name, side, t);
}
