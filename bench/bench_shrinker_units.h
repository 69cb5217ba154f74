/* SPDX-License-Identifier: MIT */
/*
 * bench_shrinker_units.h - the engine of `memcgsim bench shrinker-units` (thread
 * 001's two tables), split so that the bench-smoke test can run one scale and
 * check its byte figures without parsing the printed output.
 *
 * bench_shrinker_units_run.c builds the simulated hosts and measures;
 * bench_shrinker_units_verdicts.c judges the figures against the thread's;
 * bench_shrinker_units.c parses the options and prints the tables and the JSON.
 * docs/shrinker-bench.md describes what is measured and how.
 */
#ifndef BENCH_SHRINKER_UNITS_H
#define BENCH_SHRINKER_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#include "bench_util.h"
#include "bench_verdict.h"

#define BENCH_SHU_NLAYOUTS 4         /* enum msim_shrinker_info_layout values */
#define BENCH_SHU_REG_MOUNTS 640     /* the thread's "640 mounts crossing 10 unit boundaries" */
#define BENCH_SHU_BUSY_SBS 100       /* "a cgroup with objects on 100 superblocks" */
#define BENCH_SHU_MAX_REPS 64

/* One configuration (one of the thread's scales, or the user's). */
struct bench_shu_config {
	const char *name;            /* "thread-table-1", "custom", ... */
	unsigned int mounts;         /* tmpfs superblocks */
	unsigned int boot_mounts;    /* the host's own filesystems, mounted first */
	unsigned int cgroups;        /* empty cgroups under root */
	unsigned int nodes, cpus;
	unsigned int layout_mask;    /* 1 << layout */
	unsigned int reps;           /* repetitions of every timed row */
	unsigned int shrink_calls;   /* shrink_slab_memcg calls per timing */
	/*
	 * Layouts one after another (build, measure, tear down) instead of all built
	 * and alternated: the thread's table 2, where every layout alive at once
	 * would need ~2.4 GB (three array layouts' headers, 1.5 GB, plus the old ones
	 * an expansion keeps until its grace period).
	 */
	bool in_turn;
	unsigned int rest_cgroups;   /* cgroups of the footprint host (memcg + rstat) */
	bool progress;               /* progress lines on stderr */
	struct msim_variants base;   /* --preset/--variant; shrinker-info set per layout */
};

/* The memcg and rstat layers' per-cgroup charges (the non-shrinker estimate). */
struct bench_shu_rest {
	uint64_t mem_cgroup, mem_cgroup_per_node, memcg_vmstats; /* slab, per cgroup */
	uint64_t other_slab;         /* slab charged to no owner named above, per cgroup */
	uint64_t slab;               /* sum: the estimate used in slab_per_empty_cgroup */
	uint64_t percpu;             /* per-CPU bytes per cgroup (not slab; reported apart) */
	unsigned int cgroups;        /* how many were created to measure it */
};

struct bench_shu_layout_result {
	enum msim_shrinker_info_layout layout;
	bool ran;
	/* ---- memory (exact, read from the kernel-memory model) ---- */
	int nr_max;                  /* shrinker_nr_max when the cgroups were made */
	unsigned int cgroups_used;   /* empty cgroups created (all that were asked) */
	uint64_t shrinker_bytes;     /* per cgroup: container + units */
	uint64_t container_bytes;    /* per cgroup: headers (array) or xa_nodes (xarray) */
	uint64_t unit_bytes;         /* per cgroup */
	uint64_t units;              /* per cgroup, all nodes */
	uint64_t slab_per_cgroup;    /* shrinker_bytes + rest.slab */
	bool info_bytes_agree;       /* msim_shrinker_info_bytes() of one cgroup agrees */
	/* ---- time (medians; the model's work on this machine) ---- */
	double empty_ns;             /* shrink_slab_memcg, empty cgroup, node 0 */
	double busy_ns;              /* same, cgroup with objects on 100 superblocks */
	double walk_s;               /* drop_caches: one drop_slab pass */
	double walk_visit_us;        /* shrink_slab_memcg per online cgroup, node 0 */
	double reg_s;                /* 640 mounts, cgroups alive */
	double reg_none_s;           /* 640 mounts, no cgroups */
	unsigned long walk_visits;   /* shrink_slab calls in one drop_slab pass */
	int nr_max_after;            /* shrinker_nr_max after the registrations */
	uint64_t expand_visits;      /* memcg x node headers reallocated by them */
	/* ---- the simulator's own cost ---- */
	double setup_s;              /* building the host (mounts and cgroups) */
	uint64_t rss_bytes;          /* process RSS the host added */
};

struct bench_shu_result {
	struct bench_shu_config cfg;
	struct bench_shu_rest rest;
	uint64_t unit_slot_share;    /* 520-byte cache: bytes per unit (slab share) */
	struct bench_shu_layout_result lay[BENCH_SHU_NLAYOUTS];
	/* ---- the simulator's own cost for the scale ---- */
	double wall_s, cpu_s;        /* elapsed; CPU time of the process (user + system) */
	uint64_t rss_after_build;    /* process RSS with the hosts built (largest, in turn) */
	uint64_t page_tables_after_build; /* page tables then: what reading unwritten memory costs */
	uint64_t peak_rss;           /* the process's peak RSS when the scale ended */
};

/* The thread's two scales (which = 0, 1), at full size or quick. */
void bench_shu_config_thread(struct bench_shu_config *c, unsigned int which, bool quick);

/* Build, measure and tear down one scale. 0 or a negative errno (message on stderr). */
int bench_shu_run(const struct bench_shu_config *c, struct bench_shu_result *r);

/* Peak RSS of the process so far, bytes (getrusage). */
uint64_t bench_shu_peak_rss(void);
/* CPU time of the process so far (user + system), ns (getrusage). */
uint64_t bench_shu_cpu_ns(void);

/* ---- the thread's comparisons (bench_shrinker_units_verdicts.c) ---- */

/* Figures per table and layout; layouts 0 base (array-unit-cache), 1 on demand, 2 xarray. */
enum bench_shu_layout_fig {
	BENCH_SHU_SLAB_KIB,         /* slab per empty cgroup */
	BENCH_SHU_CONT_KIB,         /* the per-cgroup container */
	BENCH_SHU_EMPTY_NS,         /* shrink_slab_memcg, empty cgroup */
	BENCH_SHU_BUSY_NS,          /* same, cgroup with objects on 100 superblocks */
	BENCH_SHU_VISIT_US,         /* shrink_slab_memcg per cgroup and node */
	BENCH_SHU_WALK_S,           /* drop_caches walk, one pass */
	BENCH_SHU_EXCESS_S,         /* 640 mounts, cgroups alive - no cgroups */
	BENCH_SHU_NONE_S,           /* 640 mounts, no cgroups */
	BENCH_SHU_BOUNDARY_MS,      /* excess per unit boundary (10 of them) */
	BENCH_SHU_USED,             /* cgroups created */
	BENCH_SHU_NR_MAX,           /* shrinker_nr_max */
	BENCH_SHU_PER_LAYOUT,
};
/* Figures per table. */
enum bench_shu_table_fig {
	BENCH_SHU_SLAB_O_PER_A,
	BENCH_SHU_SLAB_X_PER_A,
	BENCH_SHU_EMPTY_A_PER_X,
	BENCH_SHU_EMPTY_O_PER_A,
	BENCH_SHU_WANT_KIB,         /* nodes x kmalloc(24 + 8 x nr_max / 64) */
	BENCH_SHU_NONE_MAX,
	BENCH_SHU_NONE_MIN,
	BENCH_SHU_WALK_A_PER_X,
	BENCH_SHU_NS_PER_INDEX_A,   /* (empty base - empty xarray) / (nr_max / 64) */
	BENCH_SHU_NS_PER_INDEX_O,   /* (empty on demand - empty xarray) / (nr_max / 64) */
	BENCH_SHU_PER_TABLE,
};
#define BENCH_SHU_JUDGED_LAYOUTS 3
#define BENCH_SHU_FL(t, l, k) (1 + ((t) * BENCH_SHU_JUDGED_LAYOUTS + (l)) * BENCH_SHU_PER_LAYOUT + (k))
#define BENCH_SHU_FT(t, k) (BENCH_SHU_FL(2, 0, 0) + (t) * BENCH_SHU_PER_TABLE + (k))
#define BENCH_SHU_NFIGS BENCH_SHU_FT(2, 0)
/* Row groups: the comparisons of table 1, of table 2, of both. */
#define BENCH_SHU_T1 1u
#define BENCH_SHU_T2 2u

struct bench_shu_verdicts {
	double fig[BENCH_SHU_NFIGS];
	char name_buf[BENCH_SHU_NFIGS][40];
	const char *names[BENCH_SHU_NFIGS];
	struct bench_verdict_table table;
};

/*
 * The thread's comparisons over the results of its table 1 and table 2 (either
 * may be NULL: its rows are left out, as are those of a table where one of the
 * three compared layouts did not run).
 */
void bench_shu_verdicts(const struct bench_shu_result *t1, const struct bench_shu_result *t2,
			struct bench_shu_verdicts *v);

#endif /* BENCH_SHRINKER_UNITS_H */
