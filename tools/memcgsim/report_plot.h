/* SPDX-License-Identifier: MIT */
/*
 * report_plot.h - what the plot files of `memcgsim report` share: a plot's
 * entry, its files under DIR/plots and the gnuplot run (report_plot.c), and
 * the plots of each thread's question (report_plot_threads.c).
 */
#ifndef MSIM_TOOL_REPORT_PLOT_H
#define MSIM_TOOL_REPORT_PLOT_H

#include "report.h"

/* The JSON of bench name as the report read it back; NULL when it failed. */
json_t *plot_bench_doc(const struct report *rep, const char *name);
/* A new plot of thread; NULL when the report has no room or skips the thread. */
struct report_plot *plot_new(struct report *rep, const char *name, const char *thread,
			     const char *title, const char *caption);
void plot_not_drawn(struct report_plot *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* DIR/plots/NAME.ext opened for writing; NULL (and the plot says why) on failure. */
FILE *plot_file(const struct report *rep, struct report_plot *p, const char *ext);
/* The script around body (plot commands reading NAME.dat), then gnuplot on it. */
void plot_draw(struct report *rep, struct report_plot *p, const char *body);
/* o's number at key, NAN when missing. */
double plot_num(json_t *o, const char *key);

/* Thread 000: shadow nodes against the budget, refaults (report_plot_threads.c). */
void plot_thrashing(struct report *rep);
/* Thread 002 patch 1: pages written back per design of the root's zswap count. */
void plot_zswap_writeback(struct report *rep);
/* Thread 002: root flush cost against active memcgs (with report_sweep.c's points). */
void plot_flush_cost(struct report *rep);
/* Thread 001: slab per empty cgroup against shrinker_nr_max, per layout. */
void plot_slab(struct report *rep);

#endif /* MSIM_TOOL_REPORT_PLOT_H */
