/* SPDX-License-Identifier: MIT */
/*
 * report_oracle.c - the report's section "the model against Linux 6.12": the rows of
 * the newest `memcgsim oracle` result in the cache directory (oracle-*.json), as a
 * table in index.html and report.md. The report does not boot the kernel itself (a
 * run takes minutes under emulation); without a result the section says how to make
 * one.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "oracle.h"

static void text(FILE *f, bool html, const char *s)
{
	for (; s && *s; s++) {
		if (html && *s == '<')
			fputs("&lt;", f);
		else if (html && *s == '>')
			fputs("&gt;", f);
		else if (html && *s == '&')
			fputs("&amp;", f);
		else if (!html && *s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

/* The newest oracle-*.json of the cache directory, or "" */
static void newest_result(char *path, size_t len)
{
	const char *dir = oracle_cache_dir();
	DIR *d = opendir(dir);
	struct dirent *e;
	time_t best = 0;

	path[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[1400];
		struct stat st;

		if (strncmp(e->d_name, "oracle-", 7) || !strstr(e->d_name, ".json"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (!stat(p, &st) && st.st_mtime >= best) {
			best = st.st_mtime;
			snprintf(path, len, "%s", p);
		}
	}
	closedir(d);
}

static void cell(FILE *f, bool html, const char *s, const char *cls)
{
	if (html) {
		/* inline colours: the page's verdict classes count the benches' verdicts */
		fprintf(f, cls ? "<td style=\"background:%s\">" : "<td>", cls);
		text(f, true, s);
		fputs("</td>", f);
	} else {
		fputc(' ', f);
		text(f, false, s);
		fputs(" |", f);
	}
}

static void row(FILE *f, bool html, json_t *r)
{
	const char *verdict = json_string_value(json_object_get(r, "verdict"));
	const char *dep = json_string_value(json_object_get(r, "known_departure"));
	bool holds = verdict && !strcmp(verdict, "holds");
	char k[32], m[32], v[64];

	snprintf(k, sizeof(k), "%g", json_number_value(json_object_get(r, "kernel")));
	snprintf(m, sizeof(m), "%g", json_number_value(json_object_get(r, "model")));
	snprintf(v, sizeof(v), "%s%s", verdict ? verdict : "?", dep && !holds ? " (known departure)" : "");
	fputs(html ? "<tr>" : "|", f);
	cell(f, html, json_string_value(json_object_get(r, "experiment")), NULL);
	cell(f, html, json_string_value(json_object_get(r, "row")), NULL);
	cell(f, html, k, NULL);
	cell(f, html, m, NULL);
	cell(f, html, json_string_value(json_object_get(r, "unit")), NULL);
	cell(f, html, json_string_value(json_object_get(r, "rule")), NULL);
	cell(f, html, v, holds ? "#d4f4d4" : dep ? "#eee" : "#f8d0d0");
	fputs(html ? "</tr>\n" : "\n", f);
}

/* The newest result's rows, loaded once (the report is one process). */
static json_t *cached_rows(void)
{
	static json_t *doc;
	static bool loaded;
	char path[1400];

	if (!loaded) {
		loaded = true;
		newest_result(path, sizeof(path));
		doc = path[0] ? json_load_file(path, 0, NULL) : NULL;
	}
	return json_object_get(doc, "rows");
}

void report_oracle_kernel_text(const char *bench, const char *claim, char *buf, size_t len)
{
	json_t *r;
	size_t i, n = 0;

	buf[0] = '\0';
	json_array_foreach(cached_rows(), i, r) {
		json_t *l = json_object_get(r, "thread_claim");
		const char *lb = json_string_value(json_object_get(l, "bench"));
		const char *lc = json_string_value(json_object_get(l, "claim"));
		const char *dep = json_string_value(json_object_get(r, "known_departure"));
		const char *verdict = json_string_value(json_object_get(r, "verdict"));
		const char *unit = json_string_value(json_object_get(r, "unit"));
		int w;

		if (!lb || !lc || !bench || !claim || strcmp(lb, bench) ||
		    strncmp(claim, lc, strlen(lc)) || n >= len)
			continue;
		w = snprintf(buf + n, len - n, "%s%s: Linux 6.12 %g%s%s, model %g (%s sizes, "
			     "preset linux-6.12; oracle row \"%s\": %s%s)", n ? "; " : "",
			     json_string_value(json_object_get(l, "label")),
			     json_number_value(json_object_get(r, "kernel")), unit && *unit ? " " : "",
			     unit ? unit : "", json_number_value(json_object_get(r, "model")),
			     json_string_value(json_object_get(r, "size")),
			     json_string_value(json_object_get(r, "row")), verdict ? verdict : "?",
			     dep && verdict && strcmp(verdict, "holds") ? ", known departure" : "");
		n += w > 0 ? (size_t)w : 0;
	}
}

void report_oracle_section(FILE *f, bool html)
{
	static const char *const head[] = { "experiment", "row", "kernel", "model", "unit",
					    "rule", "verdict" };
	char path[1400];
	json_t *doc = NULL, *rows;
	size_t i;

	newest_result(path, sizeof(path));
	if (path[0])
		doc = json_load_file(path, 0, NULL);
	/* Markdown: a setext heading, level 2 like the threads' (which use "## ") */
	fputs(html ? "<h2 id=\"oracle\">the model against Linux 6.12</h2>\n" :
		     "the model against Linux 6.12\n----------------------------\n\n", f);
	fputs(html ? "<p>" : "", f);
	if (!doc) {
		text(f, html, "No kernel-rig result in the cache: `memcgsim oracle` boots Debian's "
			      "Linux 6.12 under QEMU and writes one (docs/oracle.md).");
		fputs(html ? "</p>\n" : "\n\n", f);
		return;
	}
	text(f, html, "Debian's ");
	text(f, html, json_string_value(json_object_get(doc, "kernel_package")));
	text(f, html, " under QEMU (software emulation: counts and bytes only), against the model "
		      "under the preset linux-6.12; from ");
	text(f, html, path);
	text(f, html, ". Known departures are explained in docs/oracle.md.");
	fputs(html ? "</p>\n<table>\n<tr>" : "\n\n|", f);
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(f, html ? "<th>%s</th>" : " %s |", head[i]);
	fputs(html ? "</tr>\n" : "\n|---|---|---|---|---|---|---|\n", f);
	rows = json_object_get(doc, "rows");
	for (i = 0; i < json_array_size(rows); i++)
		row(f, html, json_array_get(rows, i));
	fputs(html ? "</table>\n" : "\n", f);
	json_decref(doc);
}
