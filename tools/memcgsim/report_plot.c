/* SPDX-License-Identifier: MIT */
/*
 * report_plot.c - the plots of `memcgsim report`, drawn by gnuplot from the JSON
 * the benches and races wrote (read back with Jansson): for each, DIR/plots/NAME.dat
 * (the data, always), NAME.gp (the script) and, when gnuplot is there, NAME.svg
 * and NAME.png. A plot whose data is missing (a bench that failed, or whose JSON
 * changed shape) is listed with the reason instead.
 */
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_plot.h"

#define MIB (1024.0 * 1024.0)

json_t *plot_bench_doc(const struct report *rep, const char *name)
{
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		if (!strcmp(rep->benches[i].b->name, name))
			return rep->benches[i].doc;
	return NULL;
}

struct report_plot *plot_new(struct report *rep, const char *name, const char *thread,
			     const char *title, const char *caption)
{
	struct report_plot *p;

	if (rep->nr_plots == REPORT_MAX_PLOTS || !report_wants(rep, thread))
		return NULL;
	p = &rep->plots[rep->nr_plots++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->thread, sizeof(p->thread), "%s", thread);
	snprintf(p->title, sizeof(p->title), "%s", title);
	snprintf(p->caption, sizeof(p->caption), "%s", caption);
	return p;
}

void plot_not_drawn(struct report_plot *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why_not, sizeof(p->why_not), fmt, ap);
	va_end(ap);
}

FILE *plot_file(const struct report *rep, struct report_plot *p, const char *ext)
{
	char rel[REPORT_NAME_MAX], path[REPORT_PATH_MAX];

	FILE *f;

	snprintf(rel, sizeof(rel), "plots/%s.%s", p->name, ext);
	f = report_path(rep, rel, path, sizeof(path)) ? fopen(path, "w") : NULL;
	if (!f)
		plot_not_drawn(p, "cannot write plots/%s.%s", p->name, ext);
	return f;
}

/*
 * gnuplot NAME.gp in DIR/plots, its output in DIR/logs/plot-NAME.log; 0 when it
 * exited 0. Run without a shell, so DIR may hold any character.
 */
static int run_gnuplot(const struct report *rep, const char *name)
{
	char dir[REPORT_PATH_MAX], log[REPORT_PATH_MAX], rel[REPORT_NAME_MAX], gp[REPORT_NAME_MAX];
	int status, fd;
	pid_t pid;

	snprintf(rel, sizeof(rel), "logs/plot-%s.log", name);
	snprintf(gp, sizeof(gp), "%s.gp", name);
	if (!report_path(rep, "plots", dir, sizeof(dir)) || !report_path(rep, rel, log, sizeof(log)))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0 || chdir(dir) || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * The script: the terminal lines for SVG then PNG around body (plot commands that
 * read NAME.dat); gnuplot runs in DIR/plots.
 */
void plot_draw(struct report *rep, struct report_plot *p, const char *body)
{
	FILE *f = plot_file(rep, p, "gp");

	if (!f) {
		plot_not_drawn(p, "cannot write plots/%s.gp", p->name);
		return;
	}
	fprintf(f, "# %s (memcgsim report); data: %s.dat\n"
		   "set terminal svg size 900,520 dynamic noenhanced font 'sans,11' background rgb 'white'\n"
		   "set output '%s.svg'\nset title \"%s\" noenhanced\nset key noenhanced\n"
		   "set grid\n%s\n"
		   "set terminal pngcairo size 900,520 noenhanced font 'sans,10' background rgb 'white'\n"
		   "set output '%s.png'\nreplot\n",
		p->title, p->name, p->name, p->title, body, p->name);
	fclose(f);
	if (!rep->gnuplot) {
		plot_not_drawn(p, "gnuplot not found (scripts/install-deps.sh installs gnuplot-nox); "
			     "the data is in plots/%s.dat and the script in plots/%s.gp",
			  p->name, p->name);
		return;
	}
	if (run_gnuplot(rep, p->name)) {
		plot_not_drawn(p, "gnuplot failed (logs/plot-%s.log)", p->name);
		return;
	}
	p->drawn = true;
}

double plot_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Column index of name in a series_columns array, or -1. */
static int column(json_t *cols, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(cols, i, c)
		if (json_is_string(c) && !strcmp(json_string_value(c), name))
			return (int)i;
	return -1;
}

/* Thread 004: root's reported NR_FILE_PAGES below the truth over time, per design. */
static void plot_staleness(struct report *rep)
{
	struct report_plot *p = plot_new(rep, "staleness", "004",
		"rstat-staleness: root reported below the truth (MiB) over time",
		"How far root's reported page cache is below the truth while it grows, under "
		"break (mainline) and continue (the fix); from bench-rstat-staleness.json.");
	json_t *doc = plot_bench_doc(rep, "rstat-staleness"), *designs, *d, *cols;
	int ct, ctrue, crep;
	size_t i, k;
	FILE *f;
	char body[1024] = "set xlabel 'virtual time (s)'\nset ylabel 'true - reported (MiB)'\nplot ";

	if (!p)
		return;
	designs = json_object_get(doc, "designs");
	cols = json_object_get(doc, "series_columns");
	ct = column(cols, "t_ms"), ctrue = column(cols, "true_bytes"), crep = column(cols, "reported_bytes");
	if (!json_array_size(designs) || ct < 0 || ctrue < 0 || crep < 0) {
		plot_not_drawn(p, "bench-rstat-staleness.json has no designs[].series with t_ms, "
			     "true_bytes and reported_bytes");
		return;
	}
	if (!(f = plot_file(rep, p, "dat")))
		return;
	json_array_foreach(designs, i, d) {
		json_t *row;

		fprintf(f, "# design %s: t_s gap_mib\n", json_string_value(json_object_get(d, "design")));
		json_array_foreach(json_object_get(d, "series"), k, row)
			fprintf(f, "%g %g\n", json_number_value(json_array_get(row, ct)) / 1000,
				(json_number_value(json_array_get(row, ctrue)) -
				 json_number_value(json_array_get(row, crep))) / MIB);
		fprintf(f, "\n\n");
		snprintf(body + strlen(body), sizeof(body) - strlen(body),
			 "%s'%s.dat' index %zu with lines lw 2 title '%s'", i ? ", " : "",
			 p->name, i, json_string_value(json_object_get(d, "design")));
	}
	fclose(f);
	plot_draw(rep, p, body);
}

/* "%g" of v, or "?" (gnuplot's missing marker here) when v is not a number. */
static const char *fmt_num(double v, char *buf, size_t len)
{
	if (isnan(v))
		return "?";
	snprintf(buf, len, "%g", v);
	return buf;
}

/* Thread 002: node-counter and flushed-rstat read error over virtual time. */
static void plot_read_error(struct report *rep)
{
	struct report_plot *p = plot_new(rep, "read-error", "002",
		"node-read-drift: root read error (pages) over time",
		"Distance from the truth of a root read by node counters (per-CPU vmstat diffs "
		"not yet folded) and by flushed rstat, at each step of the default schedule; "
		"from bench-node-read-drift.json.");
	json_t *doc = plot_bench_doc(rep, "node-read-drift"), *cols = json_object_get(doc, "series_columns");
	json_t *series = json_object_get(doc, "series"), *row;
	int ct = column(cols, "t_ms"), cn = column(cols, "node_err_pages"),
	    cr = column(cols, "rstat_err_pages");
	size_t i;
	FILE *f;

	if (!p)
		return;
	if (!json_array_size(series) || ct < 0 || cn < 0 || cr < 0) {
		plot_not_drawn(p, "bench-node-read-drift.json has no series with t_ms, node_err_pages "
			     "and rstat_err_pages");
		return;
	}
	if (!(f = plot_file(rep, p, "dat")))
		return;
	fprintf(f, "# t_s node_err_pages rstat_err_pages\n");
	json_array_foreach(series, i, row)
		fprintf(f, "%g %g %g\n", json_number_value(json_array_get(row, ct)) / 1000,
			json_number_value(json_array_get(row, cn)),
			json_number_value(json_array_get(row, cr)));
	fclose(f);
	plot_draw(rep, p, "set xlabel 'virtual time (s)'\nset ylabel '|read - truth| (pages)'\n"
		     "plot 'read-error.dat' using 1:2 with lines lw 2 title 'node counters', "
		     "'' using 1:3 with lines lw 2 title 'flushed rstat'");
}

/* The explorers' schedules to the first violation on race's side (NAN: not found). */
static void first_violations(json_t *side, double out[3])
{
	static const char *const strat[3] = { "random", "pct", "dfs" };
	size_t i;
	json_t *e;

	out[0] = out[1] = out[2] = NAN;
	json_array_foreach(json_object_get(side, "explore"), i, e) {
		const char *s = json_string_value(json_object_get(e, "strategy"));

		for (unsigned int k = 0; k < 3; k++)
			if (s && !strcmp(s, strat[k]))
				out[k] = plot_num(e, "schedules_to_first_violation");
	}
}

/* Per thread: schedules to the first violation per strategy, for each bug side. */
static void plot_first_violation(struct report *rep, const char *thread)
{
	char name[64], title[160], b[3][32];
	struct report_plot *p;
	unsigned int rows = 0;
	FILE *f;

	snprintf(name, sizeof(name), "first-violation-%s", thread);
	snprintf(title, sizeof(title), "schedules to the first violation per strategy (%s%s)",
		 strcmp(thread, REPORT_OTHER) ? "thread " : "", thread);
	p = plot_new(rep, name, thread, title,
		     "How many schedules each explorer ran before the first one that reaches "
		     "the bad state, on each side with the bug (log scale; a missing bar: none "
		     "in the budget). Reachability under an adversarial scheduler, not a "
		     "frequency in production.");
	if (!p || !(f = plot_file(rep, p, "dat")))
		return;
	p->of_races = true;
	fprintf(f, "# race:side random pct dfs\n");
	for (unsigned int i = 0; i < rep->nr_races; i++) {
		size_t k;
		json_t *side;

		if (strcmp(rep->races[i].thread, thread) || !rep->races[i].doc)
			continue;
		json_array_foreach(json_object_get(rep->races[i].doc, "sides"), k, side) {
			double v[3];

			if (!json_is_true(json_object_get(side, "violation_expected")))
				continue;
			first_violations(side, v);
			fprintf(f, "\"%s:%s\" %s %s %s\n", rep->races[i].r->name,
				json_string_value(json_object_get(side, "side")),
				fmt_num(v[0], b[0], 32), fmt_num(v[1], b[1], 32), fmt_num(v[2], b[2], 32));
			rows++;
		}
	}
	fclose(f);
	if (!rows) {
		plot_not_drawn(p, "no race of this thread has a side with the bug");
		rep->nr_plots--;
		return;
	}
	snprintf(title, sizeof(title), "%s.dat", name);
	char body[1024];
	snprintf(body, sizeof(body),
		 "set datafile missing '?'\nset style data histograms\nset style histogram "
		 "clustered gap 1\nset style fill solid 0.8 border -1\nset logscale y\n"
		 "set yrange [0.8:*]\nset ylabel 'schedules until the first violation'\n"
		 "set xtics rotate by 30 right font ',9'\nset bmargin 11\nset key top left\n"
		 "plot '%s' using 2:xtic(1) title 'random', '' using 3 title 'pct', '' using 4 "
		 "title 'dfs'", title);
	plot_draw(rep, p, body);
}

void report_plots(struct report *rep)
{
	plot_thrashing(rep);
	plot_slab(rep);
	plot_zswap_writeback(rep);
	plot_flush_cost(rep);
	plot_read_error(rep);
	plot_staleness(rep);
	for (const struct report_thread *t = report_threads; t->id; t++)
		plot_first_violation(rep, t->id);
	for (unsigned int i = 0; i < rep->nr_plots; i++)
		report_progress(rep, "plot %s: %s", rep->plots[i].name,
				rep->plots[i].drawn ? "svg and png" : rep->plots[i].why_not);
}
