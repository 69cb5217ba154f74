/* SPDX-License-Identifier: MIT */
/*
 * core.h - the generic cgroup rstat core (kernel: kernel/cgroup/rstat.c, the
 * 6.17+ design with a lock and per-CPU llists per subsystem).
 *
 * The core knows a subsystem only as struct msim__rstat_ss (its lock, its
 * per-CPU llist heads and its css_rstat_flush callback) and a css only as
 * struct msim__rstat_css (parent and per-CPU nodes). It keeps the updated tree
 * and walks it for a flush, calling ss->css_rstat_flush(css, cpu) for every
 * updated css, children before parents, exactly as the kernel reaches the
 * memory controller only through memory_cgrp_subsys.css_rstat_flush. It calls
 * no other file of src/rstat; the memcg statistics (rstat_internal.h) embed a
 * struct msim__rstat_css in each memcg's data and a struct msim__rstat_ss in
 * the host's, and sit above it.
 */
#ifndef MSIM_RSTAT_CORE_H
#define MSIM_RSTAT_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/rstat.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>

/*
 * Shared memory goes through <memcgsim/atomic.h>: the race windows (R1-R7,
 * docs/races.md) are _at forms named after the step (rstat.enqueue.claim,
 * rstat.flush.atomic_set, ...); accesses under ss->lock, driver-only ones and
 * introspection are quiet atomics, each saying why no race needs a yield there.
 */

/* ---- the core's structures ---- */

struct msim__rstat_css;

/*
 * kernel: struct css_rstat_cpu. lnode is an llist node: it points to itself
 * when off-list, NULL or the next node when on a per-CPU llist (claimed by a
 * cmpxchg from self to NULL first). updated_children / updated_next form the
 * per-CPU updated tree, under ss->lock only: a css with no updated children
 * points updated_children at itself; a sibling list ends at the parent; the root
 * marks itself as linked by pointing updated_next at itself.
 *
 * Zero is the initial state, so css_rstat_init() writes nothing per CPU and a
 * (css, CPU) pair that is never updated costs the process no memory (the scale
 * target: 1024 CPUs x 20000 cgroups): lnode_next holds next XOR self (0: off-list), an
 * updated_children of NULL means "itself", and css (the kernel's owner, written
 * at init there) is written when the node is first claimed or linked, before
 * anyone else can reach it. The same values the kernel has, stored differently.
 */
struct msim__rstat_cpu {
	long lnode_next;                          /* next ^ self, as a long; atomics only */
	struct msim__rstat_css *css;              /* set on first claim or link */
	struct msim__rstat_cpu *updated_children;
	struct msim__rstat_cpu *updated_next;
	struct msim__rstat_cpu *flush_next;       /* the flush list being built */
	struct msim__rstat_cpu *ghead_next;       /* next sibling list of a level */
};

/* kernel: the rstat part of struct cgroup_subsys_state. */
struct msim__rstat_css {
	struct msim__rstat_ss *ss;
	struct msim__rstat_css *parent;           /* NULL at the root */
	struct msim__rstat_cpu *rstat_cpu;        /* per-CPU base, the owner's allocation */
};

/* kernel: the rstat part of struct cgroup_subsys. */
struct msim__rstat_ss {
	unsigned int nr_cpus;
	struct msim_lock lock;                    /* kernel: ss->rstat_ss_lock */
	long *lhead;                              /* per-CPU llist heads (ss->lhead) */
	/* kernel: ss->css_rstat_flush(css, cpu): fold cpu's deltas, under lock. */
	void (*css_rstat_flush)(struct msim__rstat_css *css, unsigned int cpu);
	struct msim_rstat_counters *ctr;          /* enqueues, flushes, cpu_visits */
	bool no_claim;                            /* variant rstat-enqueue-claim=off */
	/* The smp_mb() pair R5 lacks (rstat.h params.smp_mb_pair): updater and flusher. */
	bool mb_pair;
};

/* ---- the core's entry points (core.c) ---- */

/* css's per-CPU nodes off every list; rstat_cpu is allocated by the caller. */
void msim__css_rstat_init(struct msim__rstat_css *css, struct msim__rstat_ss *ss,
			  struct msim__rstat_css *parent, struct msim__rstat_cpu *rstat_cpu);
/* The claim and llist_add of css's node on cpu, found off-list (core.c). */
void msim__css_rstat_enqueue(struct msim__rstat_css *css, unsigned int cpu);

/*
 * kernel: __css_rstat_updated(css, cpu). Lockless: a racy on-list test, then
 * the claim and the add (msim__css_rstat_enqueue). Inline: every stat update
 * takes the test, and between flushes finds the node on-list.
 *
 * llist_on_list(): racy, and not ordered after the caller's state store (no
 * smp_mb: R5). An updater that finds the node on-list returns here; under a
 * weak memory model (sim.h) its store may still sit in the CPU's store buffer,
 * so a flusher that pops the node now folds the old value; under sc a flusher
 * that pops it later sees the store. ss->mb_pair is the barrier the kernel
 * does not have (it drains the buffer; no yield point).
 */
static inline void msim__css_rstat_updated(struct msim__rstat_css *css, unsigned int cpu)
{
	struct msim__rstat_cpu *rc = msim_per_cpu_ptr(css->rstat_cpu, cpu);

	if (css->ss->mb_pair)
		msim_smp_mb_quiet();
	if (msim_read_once_at(&rc->lnode_next, "rstat.update.after_state") != 0)
		return; /* on-list: lnode_next 0 is off-list (above) */
	msim__css_rstat_enqueue(css, cpu);
}
void msim__css_rstat_flush(struct msim__rstat_css *css);
/* Exit: flush css on every CPU and unlink it; false if the lock was unavailable. */
bool msim__css_rstat_exit(struct msim__rstat_css *css, bool may_defer);
bool msim__css_rstat_queued(struct msim__rstat_css *css, unsigned int cpu);
/* Nodes on cpu's llist, or -ELOOP once a walk of max + 1 nodes has not ended. */
int msim__rstat_llist_len(struct msim__rstat_ss *ss, unsigned int cpu, int max);

#endif /* MSIM_RSTAT_CORE_H */
