/* SPDX-License-Identifier: MIT */
/*
 * bench_scale.h - `memcgsim bench scale`: the memcg statistics at many CPUs and
 * many cgroups (1024 CPUs x 20000 cgroups x 4 nodes): bytes per memcg per CPU (charged, and what the
 * simulator holds), the periodic root flush against how much was updated, and
 * how the simulator's own time and memory grow as CPUs and cgroups double.
 * Split from the printer so that the smoke test can run it small.
 */
#ifndef BENCH_SCALE_H
#define BENCH_SCALE_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/variants.h>

#include "bench_verdict.h"

#define BENCH_SC_SERIES 3            /* sizes per series: top / 4, top / 2, top */
#define BENCH_SC_MAX_U 8             /* update loads: updates per CPU before a flush */
#define BENCH_SC_MAX_REPS 32
#define BENCH_SC_PARENTS 16          /* the tree: root -> 16 parents -> the leaves */

struct bench_sc_config {
	unsigned int top_cpus;       /* the CPU series: top / 4, / 2, top CPUs ... */
	unsigned int cpu_series_cgroups;  /* ... with this many cgroups */
	unsigned int top_cgroups;    /* the cgroup series: top / 4, / 2, top cgroups ... */
	unsigned int cgroup_series_cpus;  /* ... on this many CPUs */
	unsigned int nodes;
	unsigned int loads[BENCH_SC_MAX_U]; /* updates per CPU before one flush */
	unsigned int nloads;
	unsigned int reps;
	uint64_t max_rss;            /* a size whose estimated memory exceeds this is skipped */
	bool progress;
	struct msim_variants base;
};

/* One update load on one host: updates per CPU, then one forced root flush. */
struct bench_sc_load {
	unsigned int per_cpu;
	double update_ns;            /* per update (median, driver CPU time) */
	double flush_us;             /* the root flush after them (median) */
	uint64_t updated_pairs;      /* distinct (cgroup, CPU) pairs the updates queued */
	uint64_t memcg_flushes;      /* the flush's mem_cgroup_css_rstat_flush calls */
	uint64_t cpu_visits;
};

/* One host size. */
struct bench_sc_point {
	unsigned int cpus, cgroups;
	bool ran;                    /* false: skipped (its estimate exceeds max_rss) */
	uint64_t estimate_bytes;     /* resident memory its build was expected to need */
	double build_s;              /* the simulator's own time to build it (CPU) */
	uint64_t rss_bytes;          /* resident memory the build added */
	uint64_t page_tables;        /* page tables then */
	double charged_pcpu_per_memcg_cpu;  /* kernel-memory model: per-CPU bytes / (G x C) */
	double charged_slab_per_memcg;      /* kernel-memory model: slab bytes / G */
	double resident_per_memcg_cpu;      /* rss_bytes / (G x C) */
	double idle_flush_us;        /* a root flush with nothing updated */
	uint64_t idle_cpu_visits, idle_memcg_flushes;
	struct bench_sc_load load[BENCH_SC_MAX_U];
};

struct bench_sc_result {
	struct bench_sc_config cfg;
	struct bench_sc_point cpu_series[BENCH_SC_SERIES];
	struct bench_sc_point cgroup_series[BENCH_SC_SERIES];
	struct bench_sc_point issue; /* top_cpus x top_cgroups: the scale goal's size, whole */
	/* From two probe hosts (64 and 512 CPUs, 512 cgroups): resident bytes per memcg,
	 * and per (memcg, CPU) pair besides, before any update. */
	double probe_per_memcg, probe_per_pair;
	double wall_s, cpu_s;
	uint64_t peak_rss;
};

void bench_sc_config_default(struct bench_sc_config *c, bool quick);
/* 0 or a negative errno (message on stderr). */
int bench_sc_run(const struct bench_sc_config *c, struct bench_sc_result *r);

enum bench_sc_fig {
	BENCH_SC_F_NONE,
	BENCH_SC_F_FLUSH_SAME,       /* cgroup series: memcg flushes equal across sizes (1/0) */
	BENCH_SC_F_FLUSH_GROWTH_G,   /* cgroup series: flush time, top / top/4, top load */
	BENCH_SC_F_FLUSH_GROWTH_U,   /* top cgroups: flush time, top load / first load */
	BENCH_SC_F_LOAD_RATIO,       /* top load / first load (updates per CPU) */
	BENCH_SC_F_RSS_GROWTH_C,     /* CPU series: rss top / top/2 */
	BENCH_SC_F_RSS_GROWTH_G,     /* cgroup series: rss top / top/2 */
	BENCH_SC_F_ISSUE_RAN,        /* the scale goal's size ran (1/0) */
	BENCH_SC_F_ISSUE_RSS_GIB,    /* the process's peak RSS over the whole bench, GiB */
	BENCH_SC_NFIGS,
};

struct bench_sc_verdicts {
	double fig[BENCH_SC_NFIGS];
	struct bench_verdict_table table;
};

void bench_sc_verdicts(const struct bench_sc_result *r, struct bench_sc_verdicts *v);

#endif /* BENCH_SCALE_H */
