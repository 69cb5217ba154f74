/* SPDX-License-Identifier: MIT */
/*
 * oracle.h - `memcgsim oracle`: the model against Debian's Linux 6.12 booted under
 * QEMU (oracle/, docs/oracle.md). Each experiment runs in the guest (oracle/guest/ programs,
 * results as JSON lines) and in the model under the linux-6.12 preset, at the same
 * sizes and CPU count, and yields rows: the kernel's figure, the model's, the rule
 * that compares them and the verdict the rule computes.
 */
#ifndef MSIM_TOOL_ORACLE_H
#define MSIM_TOOL_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

enum oracle_verdict {
	ORACLE_HOLDS,
	ORACLE_DOES_NOT_HOLD,
	ORACLE_NOT_COMPARABLE,
};

/* The known departures (docs/oracle.md): the row's name pattern and the reason. */
struct oracle_departure {
	const char *experiment;
	const char *row_prefix;   /* rows whose name starts with it */
	const char *reason;
	/* and, where not NULL, whose rule holds this (the row of one figure among several) */
	const char *rule_part;
};

struct oracle_row {
	char experiment[24];
	char name[96];            /* unique within the run: "tmpfs leaf, 2 CPUs" */
	double kernel, model;
	char unit[16];
	char rule[160];
	enum oracle_verdict verdict;
	const struct oracle_departure *departure; /* known (docs/oracle.md) or NULL */
	/*
	 * The thread claim this row measures in the kernel, or NULL: a bench's
	 * verdict row (the bench's name and its claim's first words) and the label
	 * of the "ours" figure it stands beside. The report's thread tables show the
	 * kernel's figure there (report_oracle.c).
	 */
	const struct oracle_thread_link *link;
};

struct oracle_thread_link {
	const char *bench, *claim_prefix, *label;
};

struct oracle_rows {
	struct oracle_row *v;
	size_t n, cap;
};

/* Appends a row judged by "equal" (exact figures); returns it for the caller's note. */
struct oracle_row *oracle_row_equal(struct oracle_rows *rows, const char *exp, const char *name,
				    double kernel, double model, const char *unit,
				    const char *rule);
/* Judged by |model - kernel| <= pct % of kernel. */
struct oracle_row *oracle_row_within(struct oracle_rows *rows, const char *exp,
				     const char *name, double kernel, double model,
				     const char *unit, double pct, const char *rule);
/* A row whose verdict the caller computed. */
struct oracle_row *oracle_row_judged(struct oracle_rows *rows, const char *exp,
				     const char *name, double kernel, double model,
				     const char *unit, const char *rule, bool holds);
void oracle_rows_free(struct oracle_rows *rows);
const char *oracle_verdict_name(enum oracle_verdict v);

extern const struct oracle_departure oracle_departures[];
/* Marks every row a known departure names (rows that hold stay "holds"). */
void oracle_mark_departures(struct oracle_rows *rows);

/* Options shared by the experiments. */
struct oracle_opts {
	unsigned int cpus;        /* 0: each experiment's own list */
	bool small;               /* the test's sizes */
	const char *rig_dir;      /* oracle/ of the source tree */
};

/*
 * Boots the guest for one experiment (oracle/run-guest.sh) and parses its JSON lines
 * into *lines (an array of objects). Returns 0, or -1 with the reason in err (a hung
 * or crashed guest: the runner's console tail is on stderr already); 1 when the rig
 * cannot run here at all (no QEMU, no kernel package): err says why.
 */
int oracle_guest_run(const struct oracle_opts *o, const char *exp, unsigned int cpus,
		     unsigned int mem_mib, unsigned int limit_s, const char *const *args,
		     json_t **lines, char *err, size_t errlen);
/* $MSIM_CACHE_DIR, else $XDG_CACHE_HOME/memcgsim, else ~/.cache/memcgsim. */
const char *oracle_cache_dir(void);
/* The report's section "the model against Linux 6.12" (report_oracle.c). */
#include <stdio.h>
void report_oracle_section(FILE *f, bool html);
/*
 * The kernel's figures for a bench's verdict row (the oracle rows linked to
 * bench and claim) as text in buf, or "" when no oracle row measures it.
 */
void report_oracle_kernel_text(const char *bench, const char *claim, char *buf, size_t len);
/* The kernel package the rig boots ("linux-image-... VERSION"), or NULL. */
const char *oracle_kernel_version(const struct oracle_opts *o);

/* The experiments: guest side, model side, rows. 0, 1 (rig unavailable) or -1. */
int oracle_exp_threshold(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
			 size_t errlen);
int oracle_exp_kmem(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
		    size_t errlen);
int oracle_exp_dying(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
		     size_t errlen);
int oracle_exp_zswap(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
		     size_t errlen);
int oracle_exp_workingset(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
			  size_t errlen);

/* ---- model sides (oracle_model_*.c) ---- */

enum oracle_page_kind { ORACLE_TMPFS = 0, ORACLE_ANON = 1 };

/* One trial of the threshold experiment in the model: which reads show all n pages. */
struct oracle_model_reading {
	bool leaf, parent, root;
};
/*
 * n pages written on CPU 0 into a fresh leaf p/l of a cpus-CPU host under the
 * linux-6.12 preset, as the guest writes them; quiet: the periodic flush runs
 * between the mkdirs and the writes; periodic: it runs between the writes and the
 * reads. Returns 0 or a negative errno (err says why).
 */
int oracle_model_threshold_trial(enum oracle_page_kind kind, unsigned int cpus, long n,
				 bool quiet, bool periodic, struct oracle_model_reading *out,
				 char *err, size_t errlen);
/* Smallest n in [1, max] whose leaf (or parent) read shows all n pages; -1: none. */
long oracle_model_threshold_min(enum oracle_page_kind kind, unsigned int cpus, long max,
				bool parent, char *err, size_t errlen);

/* Kernel memory of one empty memcg in the model, per kmalloc class and cache. */
#define ORACLE_KMEM_MAX 48
struct oracle_kmem_cache {
	char name[48];            /* "kmalloc-1k" (a class) or a dedicated cache's name */
	double objects, bytes;    /* per memcg; bytes at the per-object share of a slab */
};
struct oracle_kmem_model {
	struct oracle_kmem_cache c[ORACLE_KMEM_MAX];
	size_t n;
	double slab_bytes, percpu_bytes;
};
int oracle_model_kmem(unsigned int cpus, unsigned int mounts, unsigned int n,
		      struct oracle_kmem_model *out, char *err, size_t errlen);

/* The dying-memcg experiment's readings: before rmdir, after it, after drop_caches. */
struct oracle_dying_state {
	double nr_dying, parent_file, parent_current;
};
int oracle_model_dying(unsigned int cpus, long pages, struct oracle_dying_state out[3],
		       char *err, size_t errlen);

#endif
