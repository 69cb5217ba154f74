/* SPDX-License-Identifier: MIT */
/*
 * damon_internal.h - the damon layer's per-host state, shared by its files.
 *
 * Files, one concept behind this header: host.c attaches the layer and owns the memcg
 * hook set; watch.c keeps the watches the tryget=off reader puts on the memcg it
 * uses (host.c's css_free hook marks them); goal.c is the reader; quota.c the
 * score, the feedback loop and the charge window; scheme.c the periodic work.
 */
#ifndef MSIM_DAMON_INTERNAL_H
#define MSIM_DAMON_INTERNAL_H

#include <memcgsim/damon.h>
#include <memcgsim/lock.h>
#include <memcgsim/atomic.h>

/* Readers in flight on the tryget=off path at once (one per CPU is plenty). */
#define MSIM__DAMON_WATCHES 64

struct msim__damon_watch {
	struct msim_memcg *memcg;  /* NULL: the slot is free */
	bool freed;                /* css_free ran on memcg while watched */
};

struct msim__damon {
	struct msim *m;
	bool root_read_node;            /* variant damon-root-read=node (host.c) */
	bool root_lruvec_node;          /* variant root-lruvec-read=node (rstat's row) */
	bool tryget;                    /* variant damon-memcg-tryget=on */
	bool detached;                  /* host_fini ran: frees at teardown mark nothing */
	struct msim_quiet_spinlock lock; /* the watch table (css_free runs in RCU callbacks) */
	struct msim__damon_watch watch[MSIM__DAMON_WATCHES];
	struct msim_damon_counts counts; /* quiet atomics: the model's own bookkeeping */
};

/* host.c: the state of m's damon layer, or NULL when it is not attached. */
struct msim__damon *msim__damon_of(struct msim *m);

/* watch.c */
int msim__damon_watch_add(struct msim__damon *d, struct msim_memcg *memcg);
bool msim__damon_watch_freed(struct msim__damon *d, int slot);
void msim__damon_watch_del(struct msim__damon *d, int slot);
void msim__damon_watch_mark_freed(struct msim__damon *d, struct msim_memcg *memcg);

#define MSIM__DAMON_COUNT(d, field) \
	msim_quiet_fetch_add(&(d)->counts.field, 1UL, MSIM_RELAXED)

/*
 * kernel: mult_frac(x, n, d) = x * n / d without the overflow of x * n: the
 * quotient and the remainder are scaled apart. d must not be 0.
 */
static inline unsigned long msim__damon_mult_frac(unsigned long x, unsigned long n,
						  unsigned long d)
{
	unsigned long q = x / d, r = x % d;

	return q * n + r * n / d;
}

#endif /* MSIM_DAMON_INTERNAL_H */
