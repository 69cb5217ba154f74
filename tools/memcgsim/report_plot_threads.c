/* SPDX-License-Identifier: MIT */
/*
 * report_plot_threads.c - the plots of the threads' own questions: thread 000's
 * shadow nodes against the budget and its refaults per design, thread 002's
 * zswap writeback per way of counting the root's pool and its root flush cost
 * against the number of active memcgs, thread 001's slab per empty cgroup
 * against the shrinker count. Each writes its data (NAME.dat) before drawing.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_plot.h"

/* "%g" of v, or "?" (gnuplot's missing marker here) when v is not a number. */
static const char *g(double v, char *buf, size_t len)
{
	if (isnan(v))
		return "?";
	snprintf(buf, len, "%g", v);
	return buf;
}

static void append(char *body, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *body, size_t len, const char *fmt, ...)
{
	size_t n = strlen(body);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body + n, len - n, fmt, ap);
	va_end(ap);
}

/* ---- thread 000: the thrashing bench's designs ---- */

/* Whether every design of the bench carries its rounds (an array of objects). */
static bool has_rounds(json_t *designs)
{
	json_t *d;
	size_t i;

	json_array_foreach(designs, i, d)
		if (!json_is_array(json_object_get(d, "rounds")) ||
		    !json_array_size(json_object_get(d, "rounds")))
			return false;
	return json_array_size(designs) > 0;
}

/* Per design a block "round <col> <col2>" of the rounds; the plot's body, one line each. */
static void rounds_plot(struct report *rep, struct report_plot *p, json_t *designs,
			const char *col, const char *col2, const char *labels)
{
	char body[2400], b[2][32];
	json_t *d, *r;
	size_t i, k;
	FILE *f = plot_file(rep, p, "dat");

	if (!f)
		return;
	snprintf(body, sizeof(body), "set key outside bottom center horizontal\n%s\nplot ", labels);
	json_array_foreach(designs, i, d) {
		const char *name = json_string_value(json_object_get(d, "design"));

		fprintf(f, "# design %s: round %s %s\n", name, col, col2);
		json_array_foreach(json_object_get(d, "rounds"), k, r)
			fprintf(f, "%g %s %s\n", plot_num(r, "round"),
				g(plot_num(r, col), b[0], 32), g(plot_num(r, col2), b[1], 32));
		fprintf(f, "\n\n");
		append(body, sizeof(body), "%s'%s.dat' index %zu using 1:2 with linespoints lw 2 "
		       "lc %zu title '%s: %s', '' index %zu using 1:3 with lines dt 2 lw 1.5 lc %zu "
		       "title '%s: %s'", i ? ", " : "", p->name, i, i + 1, name, col, i, i + 1, name,
		       col2);
	}
	fclose(f);
	plot_draw(rep, p, body);
}

/* Without rounds: one cluster per design of the given end-of-run figures. */
static void design_bars(struct report *rep, struct report_plot *p, json_t *designs,
			const char *const *cols, const char *ylabel)
{
	char body[1600], b[32];
	json_t *d;
	size_t i;
	FILE *f = plot_file(rep, p, "dat");

	if (!f)
		return;
	fprintf(f, "# design");
	for (unsigned int c = 0; cols[c]; c++)
		fprintf(f, " %s", cols[c]);
	fputc('\n', f);
	json_array_foreach(designs, i, d) {
		fprintf(f, "\"%s\"", json_string_value(json_object_get(d, "design")));
		for (unsigned int c = 0; cols[c]; c++)
			fprintf(f, " %s", g(plot_num(d, cols[c]), b, sizeof(b)));
		fputc('\n', f);
	}
	fclose(f);
	snprintf(body, sizeof(body), "set datafile missing '?'\nset style data histograms\n"
		 "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
		 "set ylabel '%s'\nset yrange [0:*]\nset key outside bottom center horizontal\n"
		 "set xtics font ',9'\nplot ",
		 ylabel);
	for (unsigned int c = 0; cols[c]; c++)
		append(body, sizeof(body), "%s'%s.dat' using %u%s title '%s'", c ? ", " : "",
		       p->name, c + 2, c ? "" : ":xtic(1)", cols[c]);
	plot_draw(rep, p, body);
}

void plot_thrashing(struct report *rep)
{
	static const char *const nodes[] = { "budget_nodes", "shadow_nodes_max",
					     "shadow_nodes_end", NULL };
	static const char *const faults[] = { "refaults", "activations", "storage_reads",
					      "last_round_storage_reads", NULL };
	json_t *designs = json_object_get(plot_bench_doc(rep, "thrashing-protection"), "designs");
	bool rounds = has_rounds(designs);
	struct report_plot *p;

	p = plot_new(rep, "shadow-budget", "000",
		     rounds ? "thrashing-protection: shadow nodes and the budget per round"
			    : "thrashing-protection: shadow-node budget and shadow nodes kept",
		     rounds ? "Per design (LRU kind and the budget's source), the shadow nodes "
			      "the memcg holds after each round (solid) and the budget "
			      "count_shadow_nodes() gives the shrinker (dashed): under MGLRU with "
			      "lru-size the budget collapses and the nodes are reclaimed. From "
			      "bench-thrashing-protection.json designs[].rounds."
			    : "Per design (LRU kind and the budget's source): the budget "
			      "count_shadow_nodes() gives the shadow shrinker, and the shadow nodes "
			      "kept (most, and at the end). Under MGLRU with lru-size the budget "
			      "collapses and the shrinker takes the nodes. The bench writes no "
			      "per-round series yet, so these are end-of-run figures; from "
			      "bench-thrashing-protection.json designs[].");
	if (p && !json_array_size(designs))
		plot_not_drawn(p, "bench-thrashing-protection.json has no designs[]");
	else if (p && rounds)
		rounds_plot(rep, p, designs, "shadow_nodes", "budget",
			    "set xlabel 'round'\nset ylabel 'xa_nodes'\nset logscale y");
	else if (p)
		design_bars(rep, p, designs, nodes, "xa_nodes");
	p = plot_new(rep, "refaults", "000",
		     rounds ? "thrashing-protection: refaults and storage reads per round"
			    : "thrashing-protection: refaults, activations and storage reads",
		     rounds ? "Per design, the refaults detected in each round (solid) and the "
			      "pages read from storage (dashed): a design that loses its shadow "
			      "entries reads the hot set again without seeing a refault. From "
			      "bench-thrashing-protection.json designs[].rounds."
			    : "Per design, over the whole run: refaults detected from shadow entries, "
			      "refault activations, pages read from storage, and storage reads in "
			      "the last round (the hot set read again when its shadows are lost). "
			      "From bench-thrashing-protection.json designs[].");
	if (p && !json_array_size(designs))
		plot_not_drawn(p, "bench-thrashing-protection.json has no designs[]");
	else if (p && rounds)
		rounds_plot(rep, p, designs, "refaults", "storage_reads",
			    "set xlabel 'round'\nset ylabel 'pages'");
	else if (p)
		design_bars(rep, p, designs, faults, "pages");
	if (!rounds)
		return;
	p = plot_new(rep, "hot-resident", "000",
		     "thrashing-protection: hot set resident per round",
		     "Per design, the pages of the hot set resident after each round (solid) and "
		     "the refaults (dashed). From bench-thrashing-protection.json designs[].rounds.");
	if (p)
		rounds_plot(rep, p, designs, "hot_resident", "refaults",
			    "set xlabel 'round'\nset ylabel 'pages'");
}

/* ---- thread 002 patch 1: zswap writeback per way of counting the root's pool ---- */

void plot_zswap_writeback(struct report *rep)
{
	static const char *const cols[] = { "written_back", "thread_written_back", "left_in_pool",
					    "first_count", NULL };
	json_t *designs = json_object_get(plot_bench_doc(rep, "zswap-root-count"), "designs");
	struct report_plot *p = plot_new(rep, "zswap-writeback", "002",
		"zswap-root-count: pages written back per design (patch 1)",
		"Per way the root's zswap pool is counted for the shrinker (designs[].design): "
		"the pages written back (ours), the thread's figure for the same design "
		"(thread_written_back), what is left in the pool, and the first count the "
		"shrinker saw. Counting from the root memcg's own stats sees nothing the "
		"descendants stored, so nothing is written back. From bench-zswap-root-count.json.");

	if (!p)
		return;
	if (!json_array_size(designs)) {
		plot_not_drawn(p, "bench-zswap-root-count.json has no designs[]");
		return;
	}
	design_bars(rep, p, designs, cols, "pages");
}

/* ---- thread 002: root flush cost against active memcgs ---- */

struct flush_point {
	double x, mean, lo, hi, flushes;
};

static int by_x(const void *a, const void *b)
{
	const struct flush_point *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

/* A root-flush JSON's active flush at x memcgs, over its hosts (designs). */
static bool flush_point(json_t *doc, double x, struct flush_point *pt)
{
	json_t *h;
	size_t i, n = 0;

	pt->x = x;
	pt->mean = 0;
	pt->lo = INFINITY;
	pt->hi = -INFINITY;
	pt->flushes = plot_num(json_object_get(doc, "counts"), "active_memcg_flushes");
	json_array_foreach(json_object_get(doc, "hosts"), i, h) {
		double us = plot_num(h, "active_flush_us");

		if (isnan(us))
			continue;
		pt->mean += us;
		pt->lo = fmin(pt->lo, us);
		pt->hi = fmax(pt->hi, us);
		n++;
	}
	pt->mean /= (double)(n ? n : 1);
	return n > 0;
}

/* The points: idle (x = 0), the bench's own run and every sweep run, by x. */
static size_t flush_points(const struct report *rep, json_t *doc, struct flush_point *pts,
			   size_t max)
{
	json_t *h;
	size_t n = 0, i;
	double idle = 0, lo = INFINITY, hi = -INFINITY;

	json_array_foreach(json_object_get(doc, "hosts"), i, h) {
		double us = plot_num(h, "idle_flush_us");

		idle += us;
		lo = fmin(lo, us);
		hi = fmax(hi, us);
	}
	pts[n++] = (struct flush_point){ 0, idle / (double)(i ? i : 1), lo, hi,
		plot_num(json_object_get(doc, "counts"), "idle_memcg_flushes") };
	if (flush_point(doc, plot_num(doc, "memcgs"), &pts[n]))
		n++;
	for (unsigned int s = 0; s < rep->nr_sweeps && n < max; s++)
		if (!strcmp(rep->sweeps[s].bench, "root-flush") &&
		    flush_point(rep->sweeps[s].doc, rep->sweeps[s].x, &pts[n]))
			n++;
	qsort(pts, n, sizeof(*pts), by_x);
	return n;
}

void plot_flush_cost(struct report *rep)
{
	char args[160], caption[640], b[32];
	struct report_plot *p;
	json_t *doc = plot_bench_doc(rep, "root-flush");
	json_t *th = json_object_get(doc, "thread_figures");
	struct flush_point pts[REPORT_MAX_SWEEPS + 2];
	size_t n;
	FILE *f;

	snprintf(caption, sizeof(caption),
		 "One root flush with N memcgs each updating on every CPU, on the thread's 80 CPUs "
		 "(x = 0: no activity): ours, the model's time on this machine (one series: the "
		 "root-lruvec-read designs run the same flush, which never reads the root lruvec; "
		 "bars from the lower to the higher of the two), the memcgs the flush visits (a "
		 "count, right axis), and the thread's kernel figures (69 us idle, ~0.9 ms with "
		 "128). Compare shapes, not microseconds. The points besides the bench's own run "
		 "are `memcgsim bench root-flush --json %s` (sweeps/).",
		 report_sweep_args("root-flush", args, sizeof(args)));
	p = plot_new(rep, "flush-cost", "002", "root-flush: root flush cost against active memcgs",
		     caption);
	if (!p)
		return;
	if (!json_array_size(json_object_get(doc, "hosts")) || isnan(plot_num(doc, "memcgs"))) {
		plot_not_drawn(p, "bench-root-flush.json has no hosts[] with idle_flush_us and "
			     "active_flush_us");
		return;
	}
	n = flush_points(rep, doc, pts, sizeof(pts) / sizeof(pts[0]));
	if (!(f = plot_file(rep, p, "dat")))
		return;
	fprintf(f, "# ours: active_memcgs mean_us min_us max_us memcgs_flushed\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%g %g %g %g %s\n", pts[i].x, pts[i].mean, pts[i].lo, pts[i].hi,
			g(pts[i].flushes, b, sizeof(b)));
	fprintf(f, "\n\n# thread 002 (kernel, 80 CPUs): active_memcgs us label\n"
		   "0 %g \"%g us idle\"\n128 %g \"~%g ms\"\n", plot_num(th, "idle_flush_us"),
		plot_num(th, "idle_flush_us"), plot_num(th, "active_flush_us"),
		plot_num(th, "active_flush_us") / 1000);
	fclose(f);
	plot_draw(rep, p,
		  "set datafile missing '?'\nset xlabel 'active memcgs'\n"
		  "set ylabel 'us per root flush'\nset logscale y\nset y2label 'memcgs flushed'\n"
		  "set y2tics\nset y2range [0:*]\nset xrange [-8:*]\nset key top left\n"
		  "plot 'flush-cost.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 "
		  "title 'ours (model, this machine)', '' index 0 using 1:5 axes x1y2 with "
		  "linespoints dt 3 lc rgb '#777777' title 'memcgs flushed (count, right axis)', "
		  "'' index 1 using 1:2 with points pt 9 ps 2.2 lc rgb '#c00000' title "
		  "'thread 002 (kernel, 80 CPUs)', '' index 1 using 1:2:3 with labels offset "
		  "char 0,1.4 tc rgb '#c00000' notitle");
}

/* ---- thread 001: slab per empty cgroup against the shrinker count ---- */

/*
 * The thread's tables give their figures at these shrinker_nr_max (bench
 * shrinker-units --help: 64 boot mounts, then 20000 or 50000 tmpfs mounts).
 */
static const struct {
	const char *scale, *label;
	double nr_max;
} thread_tables[] = {
	{ "table-1", "t1", 20096 },
	{ "table-2", "t2", 50112 },
	{ NULL },
};

struct slab_point {
	double x, kib;
};

static int slab_by_x(const void *a, const void *b)
{
	const struct slab_point *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

/* Layout name's one-node points, from the bench's scales and the sweeps, by x. */
static size_t slab_points(const struct report *rep, json_t *scales, const char *name,
			  bool one_node, struct slab_point *pts, size_t max)
{
	size_t n = 0, i, k;
	json_t *s, *l;

	for (unsigned int w = 0; w <= rep->nr_sweeps; w++) {
		json_t *list = w < rep->nr_sweeps ? json_object_get(rep->sweeps[w].doc, "scales")
						  : scales;

		if (w < rep->nr_sweeps && strcmp(rep->sweeps[w].bench, "shrinker-units"))
			continue;
		json_array_foreach(list, i, s)
			json_array_foreach(json_object_get(s, "layouts"), k, l) {
				const char *ln = json_string_value(json_object_get(l, "layout"));

				if (!ln || strcmp(ln, name) || n == max ||
				    (plot_num(l, "nodes") == 1) != one_node)
					continue;
				pts[n++] = (struct slab_point){ plot_num(l, "shrinker_nr_max"),
					plot_num(l, "slab_bytes_per_empty_cgroup") / 1024 };
			}
	}
	qsort(pts, n, sizeof(*pts), slab_by_x);
	return n;
}

/* The thread's figure for layout name in each of its tables: "x kib label" lines. */
static void slab_thread_points(FILE *f, json_t *scales, const char *name)
{
	size_t i, k;
	json_t *s, *l;

	json_array_foreach(scales, i, s)
		json_array_foreach(json_object_get(s, "layouts"), k, l) {
			const char *ln = json_string_value(json_object_get(l, "layout"));
			const char *sn = json_string_value(json_object_get(s, "name"));
			double kb = plot_num(json_object_get(l, "thread"), "slab_kb_per_empty_cgroup");

			if (!ln || strcmp(ln, name) || isnan(kb) || !sn)
				continue;
			for (unsigned int t = 0; thread_tables[t].scale; t++)
				if (!strcmp(sn, thread_tables[t].scale))
					fprintf(f, "%g %g \"%s %g KB\"\n", thread_tables[t].nr_max, kb,
						thread_tables[t].label, kb);
		}
}

/* Per layout three blocks: ours on one node (a line), ours on more nodes, the thread's. */
static unsigned int slab_data(const struct report *rep, FILE *f, json_t *scales, char *body,
			      size_t len, const char *stem)
{
	struct slab_point pts[REPORT_MAX_SWEEPS + 4];
	unsigned int n = 0;
	json_t *l;
	size_t k;

	json_array_foreach(json_object_get(json_array_get(scales, 0), "layouts"), k, l) {
		const char *name = json_string_value(json_object_get(l, "layout"));

		if (!name)
			continue;
		for (int one = 1; one >= 0; one--) {
			size_t m = slab_points(rep, scales, name, one, pts, sizeof(pts) / sizeof(pts[0]));

			fprintf(f, "# layout %s, ours, %s: shrinker_nr_max kib\n", name,
				one ? "1 node" : "more nodes (table 2's 4)");
			for (size_t i = 0; i < m; i++)
				fprintf(f, "%g %g\n", pts[i].x, pts[i].kib);
			fprintf(f, m ? "\n\n" : "? ?\n\n\n");
		}
		fprintf(f, "# layout %s, the thread's tables: shrinker_nr_max kb label\n", name);
		slab_thread_points(f, scales, name);
		fprintf(f, "? ? \"\"\n\n\n");
		append(body, len, "%s'%s.dat' index %u with linespoints lw 2 pt 7 lc %u title '%s "
		       "(ours, 1 node)', '' index %u with points pt 5 ps 1.3 lc %u title '%s (ours, "
		       "4 nodes)', '' index %u using 1:2 with points pt 9 ps 2.2 lc %u title '%s "
		       "(thread)', '' index %u using 1:2:3 with labels left offset char 1,0 font "
		       "',8' tc lt %u notitle",
		       n ? ", " : "", stem, 3 * n, n + 1, name, 3 * n + 1, n + 1, name, 3 * n + 2,
		       n + 1, name, 3 * n + 2, n + 1);
		n++;
	}
	return n;
}

void plot_slab(struct report *rep)
{
	char args[200], caption[720];
	struct report_plot *p;
	json_t *scales = json_object_get(plot_bench_doc(rep, "shrinker-units"), "scales");
	char body[4000] = "set datafile missing '?'\nset xlabel 'shrinker_nr_max'\n"
			  "set ylabel 'KiB per empty cgroup'\nset logscale xy\n"
			  "set key below font ',9' maxrows 4\nset xrange [700:80000]\nplot ";
	FILE *f;

	snprintf(caption, sizeof(caption),
		 "Kernel memory an empty cgroup costs against the shrinker count, per "
		 "shrinker_info layout: lines are ours on table 1's machine (1 node), squares "
		 "ours on table 2's (4 nodes), triangles labelled t1/t2 the thread's tables at "
		 "their shrinker_nr_max (20096 and 50112). Points besides the bench's own scales "
		 "are `memcgsim bench shrinker-units --json %s` (sweeps/). From "
		 "bench-shrinker-units.json scales[].layouts[].",
		 report_sweep_args("shrinker-units", args, sizeof(args)));
	p = plot_new(rep, "slab-per-empty-cgroup", "001",
		     "shrinker-units: slab per empty cgroup (KiB) against shrinker_nr_max", caption);
	if (!p)
		return;
	if (!json_array_size(scales)) {
		plot_not_drawn(p, "bench-shrinker-units.json has no scales[].layouts[]");
		return;
	}
	if (!(f = plot_file(rep, p, "dat")))
		return;
	slab_data(rep, f, scales, body, sizeof(body), p->name);
	fclose(f);
	plot_draw(rep, p, body);
}
