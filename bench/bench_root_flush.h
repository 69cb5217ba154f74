/* SPDX-License-Identifier: MIT */
/*
 * bench_root_flush.h - what `memcgsim bench root-flush` (thread 002) measures and
 * how its figures are judged against the thread's, so that the bench-smoke tests
 * can plant figures and force each comparison to each of its outcomes.
 */
#ifndef BENCH_ROOT_FLUSH_H
#define BENCH_ROOT_FLUSH_H

#include "bench_verdict.h"

#define BENCH_RF_NHOSTS 2 /* [0] root-lruvec-read=rstat (mainline), [1] =node */

/*
 * The call sites thread 002 patches, each with the gate the kernel gives its root
 * flush: workingset_test_recent() (patch 3) and zswap_shrinker_count() (patch 1)
 * call mem_cgroup_flush_stats_ratelimited(), damos_get_node_memcg_used_bp()
 * (patch 4) the threshold-gated mem_cgroup_flush_stats().
 */
enum bench_rf_site { BENCH_RF_SITE_WORKINGSET, BENCH_RF_SITE_ZSWAP, BENCH_RF_SITE_DAMON,
		    BENCH_RF_NSITES };

/* One call site under activity, alone, the periodic flusher on time (mainline host). */
struct bench_rf_site_result {
	unsigned long calls;       /* one per activity step */
	unsigned long through;     /* calls whose gate or ratelimit let the flush through */
	double through_us;         /* mean time of a call that flushed */
	double closed_ns;          /* mean time of a call whose gate stayed shut */
	double per_call_ns;        /* weighted: (through x through_us + the rest x closed) / calls */
};

/*
 * Patch 2's exclusion list, tested: node traffic no memcg is charged for (kernel
 * threads' stacks, kernel page tables, hugetlb without accounting) beside a
 * child's charged traffic of the same items, then a forced root flush. Per item:
 * the node counter, root's rstat value, and root's lruvec read on each host.
 */
#define BENCH_RF_NEXCL 3   /* NR_KERNEL_STACK_KB, NR_PAGETABLE, NR_HUGETLB */
struct bench_rf_exclusions {
	double node[BENCH_RF_NEXCL];         /* node_page_state (mainline host) */
	double rstat[BENCH_RF_NEXCL];        /* memcg_page_state(root), flushed */
	double lruvec[BENCH_RF_NHOSTS][BENCH_RF_NEXCL]; /* lruvec_page_state(root lruvec) */
	/* NR_ACTIVE_ANON after the activity and a forced root flush (node-stat=percpu) */
	double anon_rstat, anon_node, anon_snapshot, anon_lruvec_node_host;
};

/* Medians over the repetitions, per host; the call sites and exclusions measured once. */
struct bench_rf_summary {
	double idle_us[BENCH_RF_NHOSTS];   /* forced root flush, nothing to fold */
	double active_us[BENCH_RF_NHOSTS]; /* forced root flush after 128 memcgs x CPUs updated */
	double lruvec_ns[BENCH_RF_NHOSTS]; /* read of root's lruvec NR_ACTIVE_ANON */
	double memcg_ns[BENCH_RF_NHOSTS];  /* memcg_page_state(root) */
	double node_ns[BENCH_RF_NHOSTS];   /* node_page_state */
	struct bench_rf_site_result site[BENCH_RF_NSITES];
	struct bench_rf_exclusions excl;
	bool excl_measured;
};

/* The figures the comparisons read (index 0 unused). */
enum bench_rf_fig {
	BENCH_RF_F_NONE,
	BENCH_RF_F_IDLE_US,
	BENCH_RF_F_ACTIVE_US,
	BENCH_RF_F_ACTIVE_NS,
	BENCH_RF_F_ACTIVE_PER_READ,         /* active flush / root lruvec read (node) */
	BENCH_RF_F_LRUVEC_RSTAT_NS,         /* root lruvec_page_state, mainline */
	BENCH_RF_F_LRUVEC_NODE_NS,          /* root lruvec_page_state, patch 2 */
	BENCH_RF_F_LRUVEC_NODE_PER_RSTAT,
	BENCH_RF_F_EXCL_KEPT,               /* excluded items patch 2 reads as mainline does */
	BENCH_RF_F_EXCL_DIFFER,             /* excluded items whose node counter differs */
	BENCH_RF_F_ANON_RSTAT,
	BENCH_RF_F_ANON_SNAPSHOT,
	BENCH_RF_F_ANON_LRUVEC_NODE,
	BENCH_RF_F_ANON_NODE_OFF,           /* |patch 2's root read - the snapshot| */
	/* per call site s: BENCH_RF_F_SITE(s, k) */
	BENCH_RF_F_SITES,
	BENCH_RF_NFIGS = BENCH_RF_F_SITES + 4 * BENCH_RF_NSITES,
};

/* Figure k of call site s: 0 calls, 1 fraction through, 2 ns per call, 3 per call / read. */
#define BENCH_RF_F_SITE(s, k) (BENCH_RF_F_SITES + 4 * (s) + (k))

struct bench_rf_verdicts {
	double fig[BENCH_RF_NFIGS];
	struct bench_verdict_table table;
};

/* The thread's comparisons: the reads of both hosts, the flushes and sites of mainline's. */
void bench_rf_verdicts(const struct bench_rf_summary *s, struct bench_rf_verdicts *v);

#endif /* BENCH_ROOT_FLUSH_H */
