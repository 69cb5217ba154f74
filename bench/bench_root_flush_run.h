/* SPDX-License-Identifier: MIT */
/*
 * bench_root_flush_run.h - the hosts of `memcgsim bench root-flush` and its two
 * phases after the repetitions (bench_root_flush_sites.c): patch 2's exclusion
 * list, and the patched call sites each weighted by its gate. Internal to the
 * bench's two files.
 */
#ifndef BENCH_ROOT_FLUSH_RUN_H
#define BENCH_ROOT_FLUSH_RUN_H

#include <stdbool.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>

#include "bench_root_flush.h"

#define NHOSTS BENCH_RF_NHOSTS

struct rf_host {
	struct msim *m;
	struct msim_memcg **memcgs;
	struct msim_lruvec **lruvecs;
	struct msim_lruvec *root_lruvec;
};

struct rf {
	unsigned int cpus, nmemcgs, idle_flushes, active_rounds, site_steps, site_step_ms;
	unsigned long reads;
	struct rf_host hosts[NHOSTS + 1];  /* [NHOSTS]: a call site's fresh mainline host */
	unsigned int cur;                 /* host of the dirtying tasks */
	struct msim_variants base;        /* --preset/--variant; root-lruvec-read per host */
	/* samples [host][rep] */
	double *idle_us, *active_us, *lruvec_read_ns, *memcg_read_ns, *node_read_ns;
	/* Deterministic figures of the last active flush on host 0. */
	struct msim_rstat_counters active_counts, idle_counts;
	unsigned long root_anon_rstat, root_anon_node, root_anon_lruvec[NHOSTS];
	unsigned long sink;
};

/* Host slot h with root-lruvec-read=node when node, else mainline's rstat. */
int bench_rf_host_setup_as(struct rf *r, unsigned int h, bool node);
void bench_rf_host_teardown(struct rf_host *hh);
/* One task per CPU of host h updates every memcg; run to completion. */
int bench_rf_dirty_all_cpus(struct rf *r, unsigned int h);

/* Patch 2's exclusion list on both hosts, into s->excl. */
int bench_rf_measure_exclusions(struct rf *r, struct bench_rf_summary *s);
/* Every patched call site alone on a fresh mainline host, into s->site. */
int bench_rf_measure_sites(struct rf *r, struct bench_rf_summary *s);

extern const char *const bench_rf_excl_names[BENCH_RF_NEXCL];
extern const char *const bench_rf_site_names[BENCH_RF_NSITES];
extern const char *const bench_rf_site_keys[BENCH_RF_NSITES];

#endif /* BENCH_ROOT_FLUSH_RUN_H */
