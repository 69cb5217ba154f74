/* SPDX-License-Identifier: MIT */
/*
 * `memcgsim report --quick`: the files it writes and their structure, read back
 * with Jansson. Every thread report.json lists has its section in index.html and
 * report.md; every bench and race file it names parses and has its verdicts or
 * sides; the verdict counts it states are the badges the page shows; every plot
 * is drawn (SVG and PNG) when gnuplot was found, and says why not otherwise; and
 * without gnuplot on PATH the report still comes out and says so.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define MEMCGSIM MSIM_BINARY_DIR "/memcgsim"

static char dir[256];

static char *slurp(const char *name)
{
	char path[512];
	FILE *f;
	long n;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("%s was not written", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static json_t *load(const char *name)
{
	char path[512];
	json_error_t err;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	j = json_load_file(path, 0, &err);
	if (!j)
		fail_msg("%s: %s (line %d)", path, err.text, err.line);
	return j;
}

static size_t occurrences(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A PNG file: its signature, and more than a blank image's bytes. */
static void check_png(const char *name)
{
	char *png = slurp(name);
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(stat(path, &st), 0);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	assert_true(st.st_size > 4000);
	free(png);
}

static int run_report(const char *env, const char *args)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s %s --out %s > %s.out 2> %s.err", env, MEMCGSIM, args,
		 dir, dir, dir);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every id="..." of the page is unique (a link to a bench or race lands on it). */
static void check_ids_unique(const char *html)
{
	size_t n = occurrences(html, " id=\""), k = 0;
	char **ids = calloc(n ? n : 1, sizeof(*ids));
	const char *p = html;

	assert_non_null(ids);
	while ((p = strstr(p, " id=\""))) {
		p += 5;
		ids[k++] = strndup(p, strcspn(p, "\""));
	}
	qsort(ids, k, sizeof(*ids), cmp_str);
	for (size_t i = 0; i + 1 < k; i++)
		if (!strcmp(ids[i], ids[i + 1]))
			fail_msg("id \"%s\" appears twice in index.html", ids[i]);
	for (size_t i = 0; i < k; i++)
		free(ids[i]);
	free(ids);
}

static void check_bench(json_t *b)
{
	json_t *doc = load(json_string_value(json_object_get(b, "json")));

	assert_true(json_is_true(json_object_get(b, "read")));
	assert_int_equal(json_integer_value(json_object_get(b, "status")), 0);
	assert_string_equal(json_string_value(json_object_get(doc, "bench")),
			    json_string_value(json_object_get(b, "name")));
	assert_true(json_array_size(json_object_get(doc, "verdicts")) > 0);
	json_decref(doc);
}

/* Every side ran its explorers; each result is the race printer's object. */
static void check_race(json_t *r, const char *md)
{
	json_t *doc = load(json_string_value(json_object_get(r, "json"))), *side, *e;
	char heading[160];
	size_t i, k;

	assert_string_equal(json_string_value(json_object_get(doc, "race")),
			    json_string_value(json_object_get(r, "name")));
	assert_true(json_array_size(json_object_get(doc, "sides")) > 0);
	json_array_foreach(json_object_get(doc, "sides"), i, side) {
		assert_int_equal(json_array_size(json_object_get(side, "explore")), 3);
		json_array_foreach(json_object_get(side, "explore"), k, e) {
			assert_true(json_is_string(json_object_get(e, "schedule")));
			assert_true(json_is_boolean(json_object_get(e, "behaved_as_expected")));
		}
	}
	snprintf(heading, sizeof(heading), "### race %s", json_string_value(json_object_get(r, "name")));
	assert_non_null(strstr(md, heading));
	json_decref(doc);
}

static void check_plot(json_t *p, bool gnuplot, const char *html)
{
	const char *name = json_string_value(json_object_get(p, "name"));
	char file[160];

	if (gnuplot) {
		if (!json_is_true(json_object_get(p, "drawn")))
			fail_msg("plot %s not drawn: %s", name,
				 json_string_value(json_object_get(p, "why_not")));
		snprintf(file, sizeof(file), "plots/%s.png", name);
		check_png(file);
		snprintf(file, sizeof(file), "<img src=\"plots/%s.svg\"", name);
		assert_non_null(strstr(html, file));
		snprintf(file, sizeof(file), "plots/%s.svg", name);
		free(slurp(file));
	} else {
		assert_false(json_is_true(json_object_get(p, "drawn")));
		assert_non_null(strstr(json_string_value(json_object_get(p, "why_not")), "gnuplot"));
	}
	snprintf(file, sizeof(file), "plots/%s.dat", name);
	free(slurp(file));
}

static void check_thread(json_t *t, bool gnuplot, const char *html, const char *md)
{
	const char *id = json_string_value(json_object_get(t, "id"));
	char want[64];
	json_t *x;
	size_t i;

	snprintf(want, sizeof(want), "<h2 id=\"thread-%s\">", id);
	assert_non_null(strstr(html, want));
	assert_non_null(strstr(md, "\n## "));
	json_array_foreach(json_object_get(t, "benches"), i, x)
		check_bench(x);
	json_array_foreach(json_object_get(t, "races"), i, x)
		check_race(x, md);
	json_array_foreach(json_object_get(t, "plots"), i, x)
		check_plot(x, gnuplot, html);
}

/* Verdict words over every bench file report.json lists: the four outcomes and all. */
struct verdict_words {
	json_int_t holds, fails, nc, bc, all;
};

static void count_bench_verdicts(json_t *idx, struct verdict_words *w)
{
	json_t *t, *b, *v;
	size_t i, j, k;

	memset(w, 0, sizeof(*w));
	json_array_foreach(json_object_get(idx, "threads"), i, t) {
		json_array_foreach(json_object_get(t, "benches"), j, b) {
			json_t *doc = load(json_string_value(json_object_get(b, "json")));

			json_array_foreach(json_object_get(doc, "verdicts"), k, v) {
				const char *s = json_string_value(json_object_get(v, "verdict"));

				assert_non_null(s);
				w->holds += !strcmp(s, "holds");
				w->fails += !strcmp(s, "does not hold");
				w->nc += !strcmp(s, "not comparable");
				w->bc += !strcmp(s, "by construction");
				w->all++;
			}
			json_decref(doc);
		}
	}
}

/*
 * report.json's totals are the bench files' verdict words, all four outcomes,
 * and together every verdict (by construction used to be left out of them);
 * the page shows a badge for each, in the bench tables and the summaries.
 */
static void check_verdict_totals(json_t *idx, const char *html)
{
	json_t *v = json_object_get(idx, "verdicts");
	struct verdict_words w;

	count_bench_verdicts(idx, &w);
	/* the quick report has by-construction verdicts (rstat-propagate, zswap-root-count) */
	assert_true(w.bc > 0);
	assert_int_equal(json_integer_value(json_object_get(v, "holds")), w.holds);
	assert_int_equal(json_integer_value(json_object_get(v, "does_not_hold")), w.fails);
	assert_int_equal(json_integer_value(json_object_get(v, "not_comparable")), w.nc);
	assert_true(json_is_integer(json_object_get(v, "by_construction")));
	assert_int_equal(json_integer_value(json_object_get(v, "by_construction")), w.bc);
	assert_int_equal(w.holds + w.fails + w.nc + w.bc, w.all);
	assert_int_equal(occurrences(html, "<td class=\"bc\">"), w.bc);
	assert_int_equal(occurrences(html, "<td class=\"bc sum\">"), w.bc);
	assert_int_equal(occurrences(html, "<li>by construction (bench "), w.bc);
	assert_int_equal(occurrences(html, " by construction)<br>"),
			 json_array_size(json_object_get(idx, "threads")));
}

/* The whole quick report: every thread's section, file and plot. */
/*
 * The sweeps' points run in the benches' slots: every --quick point wrote its
 * bench JSON under sweeps/, and report.json gives the races' and the sweeps'
 * parts their wall and CPU seconds, within the whole report's wall time.
 */
static void check_sweeps_and_parts(json_t *idx)
{
	static const char *const points[] = {
		"sweeps/root-flush-8.json", "sweeps/root-flush-32.json",
		"sweeps/shrinker-units-2500.json", "sweeps/shrinker-units-5000.json",
	};
	json_t *parts = json_object_get(idx, "parts");
	double total = json_number_value(json_object_get(idx, "seconds"));

	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		json_t *doc = load(points[i]);

		assert_non_null(json_object_get(doc, "bench"));
		json_decref(doc);
	}
	for (const char *const *part = (const char *const[]){ "races", "sweeps", NULL }; *part;
	     part++) {
		json_t *o = json_object_get(parts, *part);

		assert_true(json_is_number(json_object_get(o, "seconds")));
		assert_true(json_is_number(json_object_get(o, "cpu_seconds")));
		assert_true(json_number_value(json_object_get(o, "seconds")) <= total);
	}
}

static void quick_report(void **state)
{
	json_t *idx, *t, *v;
	char *html, *md;
	size_t i, threads;

	(void)state;
	assert_int_equal(run_report("", "report --quick"), 0);
	idx = load("report.json");
	html = slurp("index.html");
	md = slurp("report.md");
	threads = json_array_size(json_object_get(idx, "threads"));
	assert_true(threads >= 4);   /* 000, 001, 002, 004 (and the model's own) */
	json_array_foreach(json_object_get(idx, "threads"), i, t)
		check_thread(t, json_is_true(json_object_get(idx, "gnuplot")), html, md);
	v = json_object_get(idx, "verdicts");
	assert_int_equal(occurrences(html, "<td class=\"holds\">"),
			 json_integer_value(json_object_get(v, "holds")));
	assert_int_equal(occurrences(html, "<td class=\"fails\">"),
			 json_integer_value(json_object_get(v, "does_not_hold")));
	assert_int_equal(occurrences(html, "<td class=\"nc\">"),
			 json_integer_value(json_object_get(v, "not_comparable")));
	/* each thread's summary repeats every bench verdict of its benches */
	assert_int_equal(occurrences(html, "<td class=\"holds sum\">"),
			 json_integer_value(json_object_get(v, "holds")));
	assert_int_equal(occurrences(html, "<td class=\"fails sum\">"),
			 json_integer_value(json_object_get(v, "does_not_hold")));
	assert_int_equal(occurrences(html, "<td class=\"nc sum\">"),
			 json_integer_value(json_object_get(v, "not_comparable")));
	/* and lists each that does not hold or is not comparable, with its reason */
	assert_int_equal(occurrences(html, "<li>does not hold (bench "),
			 json_integer_value(json_object_get(v, "does_not_hold")));
	assert_int_equal(occurrences(html, "<li>not comparable (bench "),
			 json_integer_value(json_object_get(v, "not_comparable")));
	check_verdict_totals(idx, html);
	/* one summary table per thread, ahead of its first bench or race */
	assert_int_equal(occurrences(html, "<section class=\"thread\">"), threads);
	v = json_object_get(idx, "race_runs");
	assert_int_equal(occurrences(html, "<td class=\"race-ok\">") +
			 occurrences(html, "<td class=\"race-bad\">"),
			 json_integer_value(json_object_get(v, "as_stated")) +
			 json_integer_value(json_object_get(v, "not_as_stated")));
	assert_int_equal(occurrences(html, "<td class=\"race-bad\">"),
			 json_integer_value(json_object_get(v, "not_as_stated")));
	/* race rows never borrow the bench verdict words */
	assert_null(strstr(html, "race-ok\">holds"));
	assert_null(strstr(html, "race-bad\">does not hold"));
	assert_null(strstr(html, "id=\"\""));
	check_ids_unique(html);
	assert_non_null(strstr(html, "</html>"));
	assert_int_equal(occurrences(md, "\n## "), threads);
	check_sweeps_and_parts(idx);
	json_decref(idx);
	free(html);
	free(md);
}

/* No gnuplot on PATH: the report comes out, without pictures, and says so. */
static void without_gnuplot(void **state)
{
	json_t *idx;
	char *html, *md;

	(void)state;
	assert_int_equal(run_report("PATH=/nonexistent", "report --quick --thread 4"), 0);
	idx = load("report.json");
	html = slurp("index.html");
	md = slurp("report.md");
	assert_false(json_is_true(json_object_get(idx, "gnuplot")));
	assert_int_equal(json_array_size(json_object_get(idx, "threads")), 1);
	check_thread(json_array_get(json_object_get(idx, "threads"), 0), false, html, md);
	assert_non_null(strstr(html, "gnuplot was not found"));
	assert_non_null(strstr(md, "gnuplot was not found"));
	json_decref(idx);
	free(html);
	free(md);
}

/* `sh -c CMD` (printf-formatted), its exit status; CMD may be long. */
__attribute__((format(printf, 1, 2)))
static int run_sh(const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	int st, n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	assert_true(n > 0);
	st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool file_has(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	static char buf[1 << 16];
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strstr(buf, needle) != NULL;
}

/* --out '' is refused (it used to write the report into "/"). */
static void out_empty(void **state)
{
	char err[400];

	(void)state;
	snprintf(err, sizeof(err), "%s.err", dir);
	assert_int_equal(run_sh("%s report --quick --thread 4 --out '' 2> %s", MEMCGSIM, err), 2);
	assert_true(file_has(err, "--out: the directory name is empty"));
}

/*
 * A deep --out (over 600 bytes, past the old 512-byte buffers, which cut every
 * name so report.md and report.json overwrote each other): every file keeps its
 * name. One too long for DIR/NAME is refused before anything is written.
 */
static void out_long(void **state)
{
	char deep[1024], huge[4200], err[400], path[1200];
	json_t *idx;

	(void)state;
	snprintf(deep, sizeof(deep), "%s", dir);
	for (int i = 0; i < 6; i++)
		snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep), "/%0100d", i);
	assert_true(strlen(deep) > 600);
	assert_int_equal(run_sh("mkdir -p '%s'", deep), 0);
	assert_int_equal(run_sh("%s report --quick --thread 4 --out '%s' > /dev/null 2>&1",
				MEMCGSIM, deep), 0);
	snprintf(path, sizeof(path), "%s/report.json", deep);
	idx = json_load_file(path, 0, NULL);
	assert_non_null(idx);
	assert_int_equal(json_array_size(json_object_get(idx, "threads")), 1);
	json_decref(idx);
	snprintf(path, sizeof(path), "%s/report.md", deep);
	assert_true(file_has(path, "# memcgsim report"));
	snprintf(path, sizeof(path), "%s/index.html", deep);
	assert_true(file_has(path, "<!DOCTYPE html>"));
	snprintf(path, sizeof(path), "%s/bench-rstat-staleness.json", deep);
	assert_true(file_has(path, "\"bench\""));

	memset(huge, 'x', 4000);
	huge[0] = '/';
	huge[4000] = '\0';
	snprintf(err, sizeof(err), "%s.err", dir);
	assert_int_equal(run_sh("%s report --quick --out '%s/%s' 2> %s", MEMCGSIM, dir, huge, err),
			 2);
	assert_true(file_has(err, "--out: the directory name is"));
}

/* A document that cannot be written: exit 1, and the last line does not claim it was. */
static void docs_unwritable(void **state)
{
	char err[400];
	int st;

	(void)state;
	snprintf(err, sizeof(err), "%s.err", dir);
	assert_int_equal(run_sh("mkdir -p '%s/index.html'", dir), 0);
	st = run_sh("%s report --quick --thread 4 --out '%s' 2> %s", MEMCGSIM, dir, err);
	assert_int_equal(run_sh("rmdir '%s/index.html'", dir), 0);
	assert_int_equal(st, 1);
	assert_false(file_has(err, "done:"));
	assert_true(file_has(err, "FAILED: the documents"));
}

static void usage(void **state)
{
	(void)state;
	assert_int_equal(run_report("", "report --help"), 0);
	assert_int_equal(run_report("", "report --thread 3"), 2);
	assert_int_equal(run_report("", "report --bogus"), 2);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/test-report-XXXXXX", MSIM_BINARY_DIR);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[1024];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.out' '%s.err'", dir, dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(usage),
		cmocka_unit_test(out_empty),
		cmocka_unit_test(out_long),
		cmocka_unit_test(docs_unwritable),
		cmocka_unit_test(quick_report),
		cmocka_unit_test(without_gnuplot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
