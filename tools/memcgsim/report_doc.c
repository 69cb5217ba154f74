/* SPDX-License-Identifier: MIT */
/*
 * report_doc.c - the documents of `memcgsim report`: one walk over the threads
 * writes index.html and report.md through the same small set of operations
 * (heading, paragraph, preformatted text, table, figure), and report.json
 * indexes every file.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oracle.h"
#include "report.h"

/* ---- two writers, one walk ---- */

struct doc {
	FILE *f;
	bool html;
	unsigned int cols;        /* of the table being written */
};

static void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* Text in a Markdown table cell: one line, pipes escaped. */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static void heading(struct doc *d, int level, const char *id, const char *text)
{
	if (d->html) {
		fprintf(d->f, "<h%d id=\"%s\">", level, id ? id : "");
		html_text(d->f, text);
		fprintf(d->f, "</h%d>\n", level);
	} else {
		fprintf(d->f, "\n%.*s %s\n\n", level, "######", text);
	}
}

static void para(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void para(struct doc *d, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (d->html) {
		fputs("<p>", d->f);
		html_text(d->f, text);
		fputs("</p>\n", d->f);
	} else {
		fprintf(d->f, "%s\n\n", text ? text : "");
	}
	free(text);
}

static void pre(struct doc *d, const char *text)
{
	if (d->html) {
		fputs("<pre>", d->f);
		html_text(d->f, text);
		fputs("</pre>\n", d->f);
	} else {
		fprintf(d->f, "```\n%s%s```\n\n", text,
			text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
	}
}

/* A table: the header cells, NULL-ended. */
static void table_begin(struct doc *d, const char *const *head)
{
	d->cols = 0;
	fputs(d->html ? "<table>\n<tr>" : "|", d->f);
	for (; *head; head++, d->cols++) {
		if (d->html) {
			fputs("<th>", d->f);
			html_text(d->f, *head);
			fputs("</th>", d->f);
		} else {
			fputc(' ', d->f);
			md_cell(d->f, *head);
			fputs(" |", d->f);
		}
	}
	fputs(d->html ? "</tr>\n" : "\n|", d->f);
	for (unsigned int i = 0; !d->html && i < d->cols; i++)
		fputs("---|", d->f);
	if (!d->html)
		fputc('\n', d->f);
}

/* One row of d->cols cells; a cell "holds", "does not hold" or "not comparable" is a badge. */
static void table_row(struct doc *d, const char *const *cells)
{
	fputs(d->html ? "<tr>" : "|", d->f);
	for (unsigned int i = 0; i < d->cols; i++) {
		const char *c = cells[i] ? cells[i] : "";

		if (d->html) {
			const char *cls = !strcmp(c, "holds") ? "holds"
					: !strcmp(c, "does not hold") ? "fails"
					: !strcmp(c, "not comparable") ? "nc" : NULL;

			fprintf(d->f, cls ? "<td class=\"%s\">" : "<td>", cls);
			html_text(d->f, c);
			fputs("</td>", d->f);
		} else {
			fputc(' ', d->f);
			md_cell(d->f, c);
			fputs(" |", d->f);
		}
	}
	fputs(d->html ? "</tr>\n" : "\n", d->f);
}

static void table_end(struct doc *d)
{
	fputs(d->html ? "</table>\n" : "\n", d->f);
}

static void figure(struct doc *d, const struct report_plot *p)
{
	if (!p->drawn) {
		para(d, "Plot \"%s\" not drawn: %s.", p->title, p->why_not);
		return;
	}
	if (d->html) {
		fprintf(d->f, "<figure><a href=\"plots/%s.svg\"><img src=\"plots/%s.svg\" "
			      "alt=\"", p->name, p->name);
		html_text(d->f, p->title);
		fputs("\" width=\"900\"></a><figcaption>", d->f);
		html_text(d->f, p->caption);
		fprintf(d->f, " <a href=\"plots/%s.png\">PNG</a>, <a href=\"plots/%s.dat\">data</a>"
			      "</figcaption></figure>\n", p->name, p->name);
	} else {
		fprintf(d->f, "![%s](plots/%s.png)\n\n%s ([SVG](plots/%s.svg), [data](plots/%s.dat))\n\n",
			p->title, p->name, p->caption, p->name, p->name);
	}
}

/* ---- what a bench's verdicts say ---- */

/* "label value unit; ..." of a verdict's figure list (a null value: the label alone). */
static void figures_text(json_t *list, char *buf, size_t len)
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

struct tally {
	unsigned int holds, fails, nc;
};

static void count_verdict(struct tally *t, const char *v)
{
	if (!v)
		return;
	t->holds += !strcmp(v, "holds");
	t->fails += !strcmp(v, "does not hold");
	t->nc += !strcmp(v, "not comparable");
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
		const char *cells[6];

		if (!i)
			table_begin(d, head);
		figures_text(json_object_get(v, "thread"), th, sizeof(th));
		figures_text(json_object_get(v, "ours"), ours, sizeof(ours));
		cells[0] = json_string_value(json_object_get(v, "claim"));
		cells[1] = th;
		cells[2] = ours;
		cells[3] = verdict;
		cells[4] = json_string_value(json_object_get(v, "rule"));
		cells[5] = json_string_value(json_object_get(v, "why"));
		table_row(d, cells);
		count_verdict(t, verdict);
	}
	if (json_array_size(json_object_get(rb->doc, "verdicts")))
		table_end(d);
}

static void bench_section(struct doc *d, const struct report *rep,
			  const struct report_bench *rb, struct tally *t)
{
	char title[160], extra[128];
	const char *measures = json_string_value(json_object_get(rb->doc, "measures"));

	snprintf(title, sizeof(title), "bench %s", rb->b->name);
	report_bench_size_args(rep, rb->b->name, extra, sizeof(extra));
	heading(d, 3, rb->b->name, title);
	para(d, "%s", rb->b->summary);
	if (!rb->doc) {
		para(d, "This bench did not finish (exit status %d after %.1f s); its log is "
			"logs/bench-%s.log.", rb->status, rb->seconds, rb->b->name);
		return;
	}
	para(d, "Ran in %.1f s (%.1f s of CPU)%s%s%s; every figure in bench-%s.json.%s%s",
	     rb->seconds, rb->cpu_seconds,
	     json_is_true(json_object_get(rb->doc, "quick")) ? " with --quick (smoke sizes, not "
							       "the thread's)" : "",
	     extra[0] ? ", with the report's size options " : "", extra,
	     rb->b->name, measures ? " Its times measure: " : "", measures ? measures : "");
	bench_verdicts(d, rb, t);
}

/* ---- races ---- */

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

/*
 * One row of a side's table: a run (the script, or an explorer) and its verdict.
 * The last cell replays it: the printed replay line, or for a script whose
 * schedule does not replay on the race's tasks, the command that runs the script.
 */
static void run_row(struct doc *d, json_t *e, const char *what, const char *side,
		    struct tally *t)
{
	json_t *fv = json_object_get(e, "schedules_to_first_violation");
	bool ok = json_is_true(json_object_get(e, "behaved_as_expected"));
	char runs[24], viol[24], first[64], rp[1200];
	const char *cells[6] = { what, runs, viol, first, ok ? "holds" : "does not hold",
				 replay_line(json_string_value(json_object_get(e, "text")), rp,
					     sizeof(rp)) };

	if (!cells[5] && !strcmp(what, "script")) {
		snprintf(rp, sizeof(rp), "memcgsim race %s%s%s", json_string_value(
				 json_object_get(e, "race")), side ? " --side " : "", side ? side : "");
		cells[5] = rp;
	}
	snprintf(runs, sizeof(runs), "%lld%s", json_integer_value(json_object_get(e, "runs")),
		 json_is_true(json_object_get(e, "exhausted")) ? " (all)" : "");
	snprintf(viol, sizeof(viol), "%lld", json_integer_value(json_object_get(e, "violations")));
	if (fv)
		snprintf(first, sizeof(first), "%lld (reachable)", json_integer_value(fv));
	else
		snprintf(first, sizeof(first), "%s",
			 json_integer_value(json_object_get(e, "violations")) ? "1" : "none");
	table_row(d, cells);
	count_verdict(t, cells[4]);
}

static void race_side(struct doc *d, json_t *side, struct tally *t)
{
	static const char *const head[] = { "run", "runs", "violations",
					    "schedules to first violation", "verdict", "replay",
					    NULL };
	json_t *script = json_object_get(side, "script"), *e;
	bool bug = json_is_true(json_object_get(side, "violation_expected"));
	char title[160];
	size_t i;

	snprintf(title, sizeof(title), "side %s (%s)", json_string_value(json_object_get(side, "side")),
		 bug ? "the bug: the bad state must be reachable" : "the fix: the invariant must hold");
	heading(d, 4, NULL, title);
	para(d, "%s", json_string_value(json_object_get(side, "summary")));
	table_begin(d, head);
	const char *name = json_string_value(json_object_get(side, "side"));

	if (name && !strcmp(name, "default"))
		name = NULL;
	if (script)
		run_row(d, script, "script", name, t);
	json_array_foreach(json_object_get(side, "explore"), i, e)
		run_row(d, e, json_string_value(json_object_get(e, "strategy")), name, t);
	table_end(d);
	if (script)
		pre(d, json_string_value(json_object_get(script, "text")));
}

static void race_section(struct doc *d, const struct report_race *rr, struct tally *t)
{
	json_t *side;
	char title[200];
	size_t i;

	snprintf(title, sizeof(title), "race %s%s%s", rr->r->name,
		 rr->r->windows && *rr->r->windows ? " " : "", rr->r->windows ? rr->r->windows : "");
	heading(d, 3, rr->r->name, title);
	para(d, "%s", rr->r->summary);
	pre(d, rr->r->diagram ? rr->r->diagram : "");
	if (rr->trace_file[0])
		para(d, "Timeline of the side with the bug: %s (Chrome trace JSON: open it in "
			"ui.perfetto.dev or chrome://tracing).", rr->trace_file);
	if (!rr->doc) {
		para(d, "This race did not run; see the progress log.");
		return;
	}
	json_array_foreach(json_object_get(rr->doc, "sides"), i, side)
		race_side(d, side, t);
}

/* ---- the whole document ---- */

static bool thread_has(const struct report *rep, const char *id)
{
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		if (!strcmp(rep->benches[i].thread, id))
			return true;
	for (unsigned int i = 0; i < rep->nr_races; i++)
		if (!strcmp(rep->races[i].thread, id))
			return true;
	return false;
}

static void thread_section(struct doc *d, const struct report *rep,
			   const struct report_thread *th, struct tally *t)
{
	char title[200];

	snprintf(title, sizeof(title), "%s%s: %s", strcmp(th->id, REPORT_OTHER) ? "thread " : "",
		 th->id, th->title);
	heading(d, 2, th->id, title);
	para(d, "What it claims: %s%s%s", th->claim, th->source ? " Source: reference/threads/" : "",
	     th->source ? th->source : "");
	for (unsigned int i = 0; i < rep->nr_plots; i++)
		if (!strcmp(rep->plots[i].thread, th->id))
			figure(d, &rep->plots[i]);
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		if (!strcmp(rep->benches[i].thread, th->id))
			bench_section(d, rep, &rep->benches[i], t);
	for (unsigned int i = 0; i < rep->nr_races; i++)
		if (!strcmp(rep->races[i].thread, th->id))
			race_section(d, &rep->races[i], t);
}

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<title>memcgsim report</title>\n<style>\n"
	"body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}\n"
	"table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.9em}\n"
	"td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top;text-align:left}\n"
	"th{background:#eee}\ntd.holds{background:#d4f4d4}\ntd.fails{background:#f8d0d0}\n"
	"td.nc{background:#eee;color:#555}\npre{background:#f6f6f6;padding:6px;overflow-x:auto;"
	"font-size:0.85em}\nfigure{margin:1em 0}\nfigcaption{font-size:0.9em;color:#444}\n"
	"h2{border-bottom:2px solid #888;margin-top:2em}\n</style></head><body>\n";

static void intro(struct doc *d, const struct report *rep, const struct tally *all)
{
	unsigned int failed = 0;

	for (unsigned int i = 0; i < rep->nr_benches; i++)
		failed += !rep->benches[i].doc;
	heading(d, 1, "top", "memcgsim report");
	para(d, "%u benches and %u races in %.1f s (%.1f s of CPU; load average %.1f on %ld CPUs "
		"when it started)%s. Verdicts: %u hold, %u do not hold, %u not comparable.%s",
	     rep->nr_benches, rep->nr_races, rep->seconds, rep->cpu_seconds, rep->load_before,
	     sysconf(_SC_NPROCESSORS_ONLN),
	     rep->quick ? " with --quick (smoke sizes: the figures are not the thread's)" : "",
	     all->holds, all->fails, all->nc,
	     failed ? " Some benches did not finish: see their sections." : "");
	para(d, "%s%s", rep->gnuplot ? "Plots drawn by " : "No plots: gnuplot was not found "
		"(scripts/install-deps.sh installs gnuplot-nox); every plot's data and script are "
		"still in plots/.", rep->gnuplot ? rep->gnuplot_version : "");
	para(d, "A verdict compares the thread's figure with ours by a stated rule and can come "
		"out either way; a race's explorer finds the bad state under an adversarial "
		"scheduler, which says it is reachable, not how often it happens. The model's "
		"times are its own work on this machine, not the kernel's. Every figure is in "
		"the JSON files beside this page (report.json lists them).");
}

/* The sections, linked (HTML) or listed (Markdown). */
static void contents(struct doc *d, const struct report *rep)
{
	fputs(d->html ? "<ul>\n" : "", d->f);
	for (const struct report_thread *th = report_threads; th->id; th++) {
		bool other = !strcmp(th->id, REPORT_OTHER);

		if (!thread_has(rep, th->id))
			continue;
		if (d->html) {
			fprintf(d->f, "<li><a href=\"#%s\">%s%s: ", th->id, other ? "" : "thread ",
				th->id);
			html_text(d->f, th->title);
			fputs("</a></li>\n", d->f);
		} else {
			fprintf(d->f, "- %s%s: %s\n", other ? "" : "thread ", th->id, th->title);
		}
	}
	fputs(d->html ? "</ul>\n" : "\n", d->f);
}

/* One walk of every thread into d; t counts the verdicts it wrote. */
static void walk(struct doc *d, const struct report *rep, const struct tally *all,
		 struct tally *t)
{
	if (d->html)
		fputs(html_head, d->f);
	intro(d, rep, all);
	contents(d, rep);
	for (const struct report_thread *th = report_threads; th->id; th++)
		if (thread_has(rep, th->id))
			thread_section(d, rep, th, t);
	report_oracle_section(d->f, d->html);   /* report_oracle.c */
	if (d->html)
		fputs("</body></html>\n", d->f);
}

static int write_doc(struct report *rep, const char *name, bool html, const struct tally *all)
{
	char path[512];
	struct doc d = { .html = html };
	struct tally t = { 0 };

	d.f = fopen(report_path(rep, name, path, sizeof(path)), "w");
	if (!d.f)
		return -1;
	walk(&d, rep, all, &t);
	return fclose(d.f) ? -1 : 0;
}

/* ---- report.json: every file, per thread ---- */

static json_t *thread_json(const struct report *rep, const struct report_thread *th)
{
	json_t *benches = json_array(), *races = json_array(), *plots = json_array();
	char file[160];

	for (unsigned int i = 0; i < rep->nr_benches; i++) {
		const struct report_bench *rb = &rep->benches[i];

		if (strcmp(rb->thread, th->id))
			continue;
		snprintf(file, sizeof(file), "bench-%s.json", rb->b->name);
		json_array_append_new(benches, json_pack("{s:s, s:s, s:i, s:f, s:f, s:b}", "name",
			rb->b->name, "json", file, "status", rb->status, "seconds", rb->seconds,
			"cpu_seconds", rb->cpu_seconds, "read", rb->doc != NULL));
	}
	for (unsigned int i = 0; i < rep->nr_races; i++) {
		const struct report_race *rr = &rep->races[i];

		if (strcmp(rr->thread, th->id))
			continue;
		snprintf(file, sizeof(file), "race-%s.json", rr->r->name);
		json_array_append_new(races, json_pack("{s:s, s:s, s:s}", "name", rr->r->name,
			"json", file, "trace", rr->trace_file));
	}
	for (unsigned int i = 0; i < rep->nr_plots; i++) {
		const struct report_plot *p = &rep->plots[i];

		if (strcmp(p->thread, th->id))
			continue;
		json_array_append_new(plots, json_pack("{s:s, s:s, s:b, s:s}", "name", p->name,
			"title", p->title, "drawn", p->drawn, "why_not", p->why_not));
	}
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "id", th->id, "title", th->title,
			 "claim", th->claim, "benches", benches, "races", races, "plots", plots);
}

static int write_index_json(struct report *rep, const struct tally *all)
{
	json_t *threads = json_array(), *doc;
	char path[512];
	int ret;

	for (const struct report_thread *th = report_threads; th->id; th++)
		if (thread_has(rep, th->id))
			json_array_append_new(threads, thread_json(rep, th));
	doc = json_pack("{s:s, s:b, s:f, s:f, s:f, s:b, s:s, s:{s:i, s:i, s:i}, s:o}",
			"generated_by", "memcgsim report", "quick", rep->quick,
			"seconds", rep->seconds, "cpu_seconds", rep->cpu_seconds,
			"load_average_before", rep->load_before, "gnuplot", rep->gnuplot,
			"gnuplot_version", rep->gnuplot_version, "verdicts",
			"holds", all->holds, "does_not_hold", all->fails,
			"not_comparable", all->nc, "threads", threads);
	ret = doc ? json_dump_file(doc, report_path(rep, "report.json", path, sizeof(path)),
				   JSON_INDENT(1) | JSON_PRESERVE_ORDER) : -1;
	json_decref(doc);
	return ret;
}

int report_write_docs(struct report *rep)
{
	struct doc d = { .html = false };
	struct tally all = { 0 }, none = { 0 };
	int ret = 0;

	/* a first walk counts the verdicts the introduction states */
	d.f = fopen("/dev/null", "w");
	if (d.f) {
		walk(&d, rep, &none, &all);
		fclose(d.f);
	}
	ret |= write_doc(rep, "report.md", false, &all);
	ret |= write_doc(rep, "index.html", true, &all);
	ret |= write_index_json(rep, &all);
	if (ret)
		report_progress(rep, "writing the documents failed");
	return ret ? 1 : 0;
}
