/* SPDX-License-Identifier: MIT */
/*
 * report_doc.c - the documents of `memcgsim report`: one walk over the threads
 * writes index.html and report.md through the same small set of operations
 * (heading, paragraph, preformatted text, table, figure), and report.json
 * indexes every file.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oracle.h"
#include "report_doc.h"

/* ---- two writers, one walk ---- */

void doc_text(FILE *f, const char *s)
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

void doc_heading(struct doc *d, int level, const char *id, const char *text)
{
	if (d->html) {
		if (id && *id) {
			fprintf(d->f, "<h%d id=\"", level);
			doc_text(d->f, id);
			fputs("\">", d->f);
		} else {
			fprintf(d->f, "<h%d>", level);
		}
		doc_text(d->f, text);
		fprintf(d->f, "</h%d>\n", level);
	} else {
		fprintf(d->f, "\n%.*s %s\n\n", level, "######", text);
	}
}

static char *vformat(const char *fmt, va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	return text;
}

void doc_para(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = vformat(fmt, ap);
	va_end(ap);
	if (d->html) {
		fputs("<p>", d->f);
		doc_text(d->f, text);
		fputs("</p>\n", d->f);
	} else {
		fprintf(d->f, "%s\n\n", text ? text : "");
	}
	free(text);
}

void doc_list(struct doc *d, bool begin)
{
	if (d->html)
		fputs(begin ? "<ul>\n" : "</ul>\n", d->f);
	else if (!begin)
		fputc('\n', d->f);
}

void doc_item(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = vformat(fmt, ap);
	va_end(ap);
	if (d->html) {
		fputs("<li>", d->f);
		doc_text(d->f, text);
		fputs("</li>\n", d->f);
	} else {
		fprintf(d->f, "- %s\n", text ? text : "");
	}
	free(text);
}

void doc_pre(struct doc *d, const char *text)
{
	if (!text)
		text = "";
	if (d->html) {
		fputs("<pre>", d->f);
		doc_text(d->f, text);
		fputs("</pre>\n", d->f);
	} else {
		fprintf(d->f, "```\n%s%s```\n\n", text,
			text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
	}
}

void doc_table_begin(struct doc *d, const char *const *head)
{
	d->cols = 0;
	fputs(d->html ? "<table>\n<tr>" : "|", d->f);
	for (; *head; head++, d->cols++) {
		if (d->html) {
			fputs("<th>", d->f);
			doc_text(d->f, *head);
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

void doc_table_row(struct doc *d, const char *const *cells, const char *const *classes)
{
	fputs(d->html ? "<tr>" : "|", d->f);
	for (unsigned int i = 0; i < d->cols; i++) {
		const char *c = cells[i] ? cells[i] : "";
		const char *cls = classes ? classes[i] : NULL;

		if (d->html) {
			fprintf(d->f, cls ? "<td class=\"%s\">" : "<td>", cls);
			doc_text(d->f, c);
			fputs("</td>", d->f);
		} else if (cls && !strcmp(cls, "code") && *c) {
			fputs(" `", d->f);
			md_cell(d->f, c);
			fputs("` |", d->f);
		} else {
			fputc(' ', d->f);
			md_cell(d->f, c);
			fputs(" |", d->f);
		}
	}
	fputs(d->html ? "</tr>\n" : "\n", d->f);
}

void doc_table_end(struct doc *d)
{
	fputs(d->html ? "</table>\n" : "\n", d->f);
}

const char *doc_verdict_class(const char *v, bool summary)
{
	if (!v)
		return NULL;
	if (!strcmp(v, "holds"))
		return summary ? "holds sum" : "holds";
	if (!strcmp(v, "does not hold"))
		return summary ? "fails sum" : "fails";
	if (!strcmp(v, "not comparable"))
		return summary ? "nc sum" : "nc";
	if (!strcmp(v, "by construction"))
		return summary ? "bc sum" : "bc";
	return NULL;
}

static void figure(struct doc *d, const struct report_plot *p)
{
	if (!p->drawn) {
		doc_para(d, "Plot \"%s\" not drawn: %s.", p->title, p->why_not);
		return;
	}
	if (d->html) {
		fprintf(d->f, "<figure><a href=\"plots/%s.svg\"><img src=\"plots/%s.svg\" "
			      "alt=\"", p->name, p->name);
		doc_text(d->f, p->title);
		fputs("\" width=\"900\"></a><figcaption>", d->f);
		doc_text(d->f, p->caption);
		fprintf(d->f, " <a href=\"plots/%s.png\">PNG</a>, <a href=\"plots/%s.dat\">data</a>"
			      "</figcaption></figure>\n", p->name, p->name);
	} else {
		fprintf(d->f, "![%s](plots/%s.png)\n\n%s ([SVG](plots/%s.svg), [data](plots/%s.dat))\n\n",
			p->title, p->name, p->caption, p->name, p->name);
	}
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

/* The HTML id of a thread's section: "thread-004", "thread-other". */
static const char *thread_anchor(const char *id, char *buf, size_t len)
{
	snprintf(buf, len, "thread-%s", id);
	return buf;
}

/* A thread: its claim, its answers (the summary), its plots, then every bench and race. */
static void thread_section(struct doc *d, const struct report *rep,
			   const struct report_thread *th, struct tally *t)
{
	char title[200], anchor[32];

	snprintf(title, sizeof(title), "%s%s: %s", strcmp(th->id, REPORT_OTHER) ? "thread " : "",
		 th->id, th->title);
	if (d->html)
		fputs("<section class=\"thread\">\n", d->f);
	doc_heading(d, 2, thread_anchor(th->id, anchor, sizeof(anchor)), title);
	doc_para(d, "What it claims: %s%s%s", th->claim,
		 th->source ? " Source: reference/threads/" : "", th->source ? th->source : "");
	doc_thread_summary(d, rep, th);
	for (unsigned int i = 0; i < rep->nr_plots; i++)
		if (!strcmp(rep->plots[i].thread, th->id) && !rep->plots[i].of_races)
			figure(d, &rep->plots[i]);
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		if (!strcmp(rep->benches[i].thread, th->id))
			doc_bench_section(d, rep, &rep->benches[i], t);
	for (unsigned int i = 0; i < rep->nr_plots; i++)
		if (!strcmp(rep->plots[i].thread, th->id) && rep->plots[i].of_races)
			figure(d, &rep->plots[i]);
	for (unsigned int i = 0; i < rep->nr_races; i++)
		if (!strcmp(rep->races[i].thread, th->id))
			doc_race_section(d, &rep->races[i], t);
	if (d->html)
		fputs("</section>\n", d->f);
}

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<title>memcgsim report</title>\n<style>\n"
	"body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}\n"
	"table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.9em;max-width:100%}\n"
	"td,th{border:1px solid #bbb;padding:3px 6px;vertical-align:top;text-align:left;"
	"overflow-wrap:anywhere}\n"
	"th{background:#eee}\ntd.holds{background:#d4f4d4}\ntd.fails{background:#f8d0d0}\n"
	"td.nc{background:#eee;color:#555}\ntd.bc{background:#e8e4f4;color:#444}\n"
	"td.missing{background:#f8d0d0}\n"
	"td.race-ok{background:#dde8f8}\ntd.race-bad{background:#f8d0d0;font-weight:bold}\n"
	"td.code{font-family:monospace;font-size:0.85em;word-break:break-all;min-width:12em}\n"
	"td.holds,td.fails,td.nc,td.bc,td.missing,td.race-ok,td.race-bad,th{overflow-wrap:normal;"
	"min-width:6em}\n"
	"pre{background:#f6f6f6;padding:6px;white-space:pre-wrap;overflow-wrap:anywhere;"
	"font-size:0.85em}\nfigure{margin:1em 0}\nfigcaption{font-size:0.9em;color:#444}\n"
	"figure img{max-width:100%;height:auto}\n"
	"h2{border-bottom:2px solid #888;margin-top:2em}\n"
	"ul.contents li{margin:0.2em 0}\nul.contents span{font-size:0.85em}\n"
	"</style></head><body>\n";

/* The bench verdicts of thread id that do not hold / are not comparable / by construction. */
static void thread_misses(const struct report *rep, const char *id, unsigned int *fails,
			  unsigned int *nc, unsigned int *bc)
{
	*fails = *nc = *bc = 0;
	for (unsigned int i = 0; i < rep->nr_benches; i++) {
		json_t *v;
		size_t k;

		if (strcmp(rep->benches[i].thread, id))
			continue;
		json_array_foreach(json_object_get(rep->benches[i].doc, "verdicts"), k, v) {
			const char *w = json_string_value(json_object_get(v, "verdict"));

			*fails += w && !strcmp(w, "does not hold");
			*nc += w && !strcmp(w, "not comparable");
			*bc += w && !strcmp(w, "by construction");
		}
	}
}

static void intro(struct doc *d, const struct report *rep, const struct tally *all)
{
	unsigned int failed = 0;

	for (unsigned int i = 0; i < rep->nr_benches; i++)
		failed += !rep->benches[i].doc;
	doc_heading(d, 1, "top", "memcgsim report");
	doc_para(d, "%u benches and %u races in %.1f s (%.1f s of CPU; load average %.1f on %ld "
		 "CPUs when it started)%s. Bench verdicts: %u hold, %u do not hold, %u not "
		 "comparable, %u by construction (the setup decides them: shown, never judged; "
		 "each thread's section opens with its table and lists the ones that do not "
		 "hold, are not comparable or are by construction, with the reason). Race runs: "
		 "%u came out as their side states (the bug reached, the fix held), %u did not.%s",
		 rep->nr_benches, rep->nr_races, rep->seconds, rep->cpu_seconds, rep->load_before,
		 sysconf(_SC_NPROCESSORS_ONLN),
		 rep->quick ? " with --quick (smoke sizes: the figures are not the thread's)" : "",
		 all->holds, all->fails, all->nc, all->bc, all->race_ok, all->race_bad,
		 failed ? " Some benches did not finish: see their sections." : "");
	doc_para(d, "%s%s", rep->gnuplot ? "Plots drawn by " : "No plots: gnuplot was not found "
		 "(scripts/install-deps.sh installs gnuplot-nox); every plot's data and script "
		 "are still in plots/.", rep->gnuplot ? rep->gnuplot_version : "");
	doc_para(d, "A verdict compares the thread's figure with ours by a stated rule and can "
		 "come out either way; a race's explorer finds the bad state under an adversarial "
		 "scheduler, which says it is reachable, not how often it happens. The model's "
		 "times are its own work on this machine, not the kernel's. Every figure is in "
		 "the JSON files beside this page (report.json lists them).");
}

/* A link (HTML) or a name (Markdown) in the contents. */
static void contents_link(struct doc *d, const char *anchor, const char *text, bool first)
{
	if (d->html) {
		fprintf(d->f, "%s<a href=\"#", first ? "" : ", ");
		doc_text(d->f, anchor);
		fputs("\">", d->f);
		doc_text(d->f, text);
		fputs("</a>", d->f);
	} else {
		fprintf(d->f, "%s%s", first ? "" : ", ", text);
	}
}

/* One thread's line: its section, then each of its benches and races. */
static void contents_thread(struct doc *d, const struct report *rep,
			    const struct report_thread *th)
{
	bool other = !strcmp(th->id, REPORT_OTHER);
	unsigned int fails, nc, bc;
	char anchor[200], text[300];
	bool first = true;

	thread_misses(rep, th->id, &fails, &nc, &bc);
	snprintf(anchor, sizeof(anchor), "thread-%s", th->id);
	snprintf(text, sizeof(text), "%s%s: %s", other ? "" : "thread ", th->id, th->title);
	fputs(d->html ? "<li>" : "- ", d->f);
	contents_link(d, anchor, text, true);
	fprintf(d->f, " (%u do not hold, %u not comparable, %u by construction)%s", fails, nc, bc,
		d->html ? "<br><span>" : ": ");
	for (unsigned int i = 0; i < rep->nr_benches; i++) {
		if (strcmp(rep->benches[i].thread, th->id))
			continue;
		snprintf(anchor, sizeof(anchor), "bench-%s", rep->benches[i].b->name);
		snprintf(text, sizeof(text), "bench %s", rep->benches[i].b->name);
		contents_link(d, anchor, text, first);
		first = false;
	}
	for (unsigned int i = 0; i < rep->nr_races; i++) {
		if (strcmp(rep->races[i].thread, th->id))
			continue;
		snprintf(anchor, sizeof(anchor), "race-%s", rep->races[i].r->name);
		snprintf(text, sizeof(text), "race %s", rep->races[i].r->name);
		contents_link(d, anchor, text, first);
		first = false;
	}
	fputs(d->html ? "</span></li>\n" : "\n", d->f);
}

/* The sections, linked (HTML) or listed (Markdown): every thread, bench and race. */
static void contents(struct doc *d, const struct report *rep)
{
	fputs(d->html ? "<ul class=\"contents\">\n" : "", d->f);
	for (const struct report_thread *th = report_threads; th->id; th++)
		if (thread_has(rep, th->id))
			contents_thread(d, rep, th);
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
	char path[REPORT_PATH_MAX];
	struct doc d = { .html = html };
	struct tally t = { 0 };

	if (!report_path(rep, name, path, sizeof(path)))
		return -1;
	d.f = fopen(path, "w");
	if (!d.f) {
		report_progress(rep, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
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
	char path[REPORT_PATH_MAX];
	int ret;

	for (const struct report_thread *th = report_threads; th->id; th++)
		if (thread_has(rep, th->id))
			json_array_append_new(threads, thread_json(rep, th));
	doc = json_pack("{s:s, s:b, s:f, s:f, s:f, s:b, s:s, s:{s:i, s:i, s:i, s:i}, "
			"s:{s:i, s:i}, s:o}",
			"generated_by", "memcgsim report", "quick", rep->quick,
			"seconds", rep->seconds, "cpu_seconds", rep->cpu_seconds,
			"load_average_before", rep->load_before, "gnuplot", rep->gnuplot,
			"gnuplot_version", rep->gnuplot_version, "verdicts",
			"holds", all->holds, "does_not_hold", all->fails,
			"not_comparable", all->nc, "by_construction", all->bc,
			"race_runs", "as_stated", all->race_ok,
			"not_as_stated", all->race_bad, "threads", threads);
	if (doc)   /* the parts that are not benches (each bench has its own seconds) */
		json_object_set_new(doc, "parts", json_pack(
			"{s:{s:f, s:f}, s:{s:f, s:f}}", "races", "seconds", rep->races_seconds,
			"cpu_seconds", rep->races_cpu_seconds, "sweeps", "seconds",
			rep->sweeps_seconds, "cpu_seconds", rep->sweeps_cpu_seconds));
	ret = doc && report_path(rep, "report.json", path, sizeof(path))
		      ? json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : -1;
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
