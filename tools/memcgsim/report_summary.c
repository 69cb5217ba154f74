/* SPDX-License-Identifier: MIT */
/*
 * report_summary.c - the table a thread's section opens with: every claim of the
 * thread its benches judge (the thread's figure, ours, the kernel's where the
 * verdict carries one or a `memcgsim oracle` row measures the claim, the verdict, the command that reproduces it) and every
 * side of its races (what happened, in the race's words, and the replay), then
 * each verdict that does not hold or is not comparable with its reason.
 */
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "report_doc.h"

/* Whether a verdict of the thread's benches carries the kernel's figures. */
static bool has_kernel(const struct report *rep, const char *thread)
{
	for (unsigned int i = 0; i < rep->nr_benches; i++) {
		json_t *v;
		size_t k;

		if (strcmp(rep->benches[i].thread, thread))
			continue;
		json_array_foreach(json_object_get(rep->benches[i].doc, "verdicts"), k, v) {
			char text[8];

			if (json_array_size(json_object_get(v, "kernel")))
				return true;
			report_oracle_kernel_text(rep->benches[i].b->name,
						  json_string_value(json_object_get(v, "claim")),
						  text, sizeof(text));
			if (text[0])
				return true;
		}
	}
	return false;
}

static void bench_rows(struct doc *d, const struct report *rep, const struct report_bench *rb,
		       bool kernel)
{
	char th[512], ours[512], kern[1024], cmd[256];
	json_t *v;
	size_t i;

	doc_bench_command(rep, rb, cmd, sizeof(cmd));
	if (!rb->doc) {
		const char *cells[6] = { "bench did not finish", "", "", "", "", "" };
		const char *cls[6] = { NULL };
		char what[200];

		snprintf(what, sizeof(what), "bench %s did not finish (exit status %d): no "
			 "verdict; logs/bench-%s.log", rb->b->name, rb->status, rb->b->name);
		cells[0] = what;
		cells[kernel ? 4 : 3] = "did not run";
		cls[kernel ? 4 : 3] = "missing";
		cells[kernel ? 5 : 4] = cmd;
		doc_table_row(d, cells, cls);
		return;
	}
	json_array_foreach(json_object_get(rb->doc, "verdicts"), i, v) {
		const char *verdict = json_string_value(json_object_get(v, "verdict"));
		const char *cells[6], *cls[6] = { NULL };
		unsigned int n = 0;

		doc_figures_text(json_object_get(v, "thread"), th, sizeof(th));
		doc_figures_text(json_object_get(v, "ours"), ours, sizeof(ours));
		doc_figures_text(json_object_get(v, "kernel"), kern, sizeof(kern));
		/* else the kernel rig's figures for this claim (memcgsim oracle's result) */
		if (!kern[0])
			report_oracle_kernel_text(rb->b->name,
						  json_string_value(json_object_get(v, "claim")), kern,
						  sizeof(kern));
		cells[n++] = json_string_value(json_object_get(v, "claim"));
		cells[n++] = th;
		cells[n++] = ours;
		if (kernel)
			cells[n++] = kern[0] ? kern : "no row yet";
		cls[n] = doc_verdict_class(verdict, true);
		cells[n++] = verdict;
		cls[n] = "code";
		cells[n++] = cmd;
		doc_table_row(d, cells, cls);
	}
}

/* A run's outcome in a few characters: "reached", "at 3", "not within 100", "100 clean". */
static void short_outcome(json_t *e, bool bug, char *buf, size_t len)
{
	long long runs = json_integer_value(json_object_get(e, "runs"));
	long long viol = json_integer_value(json_object_get(e, "violations"));
	json_t *fv = json_object_get(e, "schedules_to_first_violation");
	const char *all = json_is_true(json_object_get(e, "exhausted")) ? " (all)" : "";

	if (viol && fv)
		snprintf(buf, len, "%s at %lld", bug ? "reached" : "BROKEN", json_integer_value(fv));
	else if (viol)
		snprintf(buf, len, "%s", bug ? "reached" : "BROKEN");
	else if (bug)
		snprintf(buf, len, "not within %lld%s", runs, all);
	else
		snprintf(buf, len, "%lld clean%s", runs, all);
}

/* One side of a race: every run's outcome, and what the side came to as a whole. */
static void side_row(struct doc *d, const struct report_race *rr, json_t *side, bool kernel)
{
	const char *name = json_string_value(json_object_get(side, "side"));
	const char *summary = json_string_value(json_object_get(side, "summary"));
	bool bug = json_is_true(json_object_get(side, "violation_expected")), all_ok = true;
	char claim[600], ours[1024] = "", whole[200], rp[1200] = "", one[160], scmd[256];
	const char *cells[6], *cls[6] = { NULL }, *replay = NULL, *side_arg;
	json_t *runs = json_array(), *e;
	long long total = 0, most = 0, viol = 0;
	unsigned int n = 0;
	size_t i;

	side_arg = name && strcmp(name, "default") ? name : NULL;
	if (json_object_get(side, "script"))
		json_array_append(runs, json_object_get(side, "script"));
	json_array_extend(runs, json_object_get(side, "explore"));
	json_array_foreach(runs, i, e) {
		const char *s = json_string_value(json_object_get(e, "strategy"));
		long long r = json_integer_value(json_object_get(e, "runs"));
		bool ok;

		doc_race_outcome(e, bug, one, sizeof(one), &ok);
		all_ok &= ok;
		short_outcome(e, bug, one, sizeof(one));
		snprintf(ours + strlen(ours), sizeof(ours) - strlen(ours), "%s%s: %s", i ? "; " : "",
			 s ? s : "?", one);
		total += r;
		most = r > most ? r : most;
		viol += json_integer_value(json_object_get(e, "violations"));
		if (!replay && json_integer_value(json_object_get(e, "violations")))
			replay = doc_race_replay(e, rr->r->name, side_arg, rp, sizeof(rp));
	}
	json_decref(runs);
	/*
	 * A bug side states the bad state is reachable: one run reaching it is the
	 * answer (a run that did not within its budget shows as such in "ours"). A
	 * fix side states it is not: every run must hold.
	 */
	if (bug)
		snprintf(whole, sizeof(whole), viol ? "bug reached" : "not reached within %lld runs",
			 most);
	else
		snprintf(whole, sizeof(whole), viol ? "fix broken: %lld violations"
					       : "fix held over %lld runs", viol ? viol : total);
	if (bug)
		all_ok = viol > 0;
	if (!replay) {
		snprintf(scmd, sizeof(scmd), "memcgsim race %s%s%s", rr->r->name,
			 side_arg ? " --side " : "", side_arg ? side_arg : "");
		replay = scmd;
	}
	snprintf(claim, sizeof(claim), "race %s, side %s (%s)%s%s", rr->r->name, name ? name : "?",
		 bug ? "the bug" : "the fix", summary && *summary ? ": " : "",
		 summary ? summary : "");
	cells[n++] = claim;
	cells[n++] = rr->r->thread;
	cells[n++] = ours;
	if (kernel)
		cells[n++] = "";
	cls[n] = all_ok ? "race-ok sum" : "race-bad sum";
	cells[n++] = whole;
	cls[n] = "code";
	cells[n++] = replay;
	doc_table_row(d, cells, cls);
}

/*
 * "Why not": each verdict that does not hold, is not comparable or is by
 * construction (anything but "holds"), with its reason.
 */
static void why_not(struct doc *d, const struct report *rep, const char *thread)
{
	bool any = false;

	for (unsigned int i = 0; i < rep->nr_benches; i++) {
		const struct report_bench *rb = &rep->benches[i];
		json_t *v;
		size_t k;

		if (strcmp(rb->thread, thread))
			continue;
		json_array_foreach(json_object_get(rb->doc, "verdicts"), k, v) {
			const char *verdict = json_string_value(json_object_get(v, "verdict"));
			const char *why = json_string_value(json_object_get(v, "why"));
			const char *rule = json_string_value(json_object_get(v, "rule"));

			if (!verdict || !strcmp(verdict, "holds"))
				continue;
			if (!any)
				doc_list(d, true);
			any = true;
			doc_item(d, "%s (bench %s): %s. Why: %s%s%s.", verdict, rb->b->name,
				 json_string_value(json_object_get(v, "claim")),
				 why && *why ? why : "no reason given", rule && *rule ? "; rule: " : "",
				 rule && *rule ? rule : "");
		}
	}
	if (any)
		doc_list(d, false);
	else
		doc_para(d, "Every verdict of this thread's benches holds.");
}

void doc_thread_summary(struct doc *d, const struct report *rep, const struct report_thread *th)
{
	static const char *const head[] = { "claim", "thread", "ours", "verdict", "reproduce",
					    NULL };
	static const char *const head_k[] = { "claim", "thread", "ours", "kernel", "verdict",
					      "reproduce", NULL };
	bool kernel = has_kernel(rep, th->id);
	json_t *side;
	size_t k;

	doc_table_begin(d, kernel ? head_k : head);
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		if (!strcmp(rep->benches[i].thread, th->id))
			bench_rows(d, rep, &rep->benches[i], kernel);
	for (unsigned int i = 0; i < rep->nr_races; i++) {
		if (strcmp(rep->races[i].thread, th->id))
			continue;
		json_array_foreach(json_object_get(rep->races[i].doc, "sides"), k, side)
			side_row(d, &rep->races[i], side, kernel);
	}
	doc_table_end(d);
	why_not(d, rep, th->id);
}
