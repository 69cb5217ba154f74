/* SPDX-License-Identifier: MIT */
/*
 * pcpu_ref.h - the kernel's percpu_ref (include/linux/percpu-refcount.h,
 * lib/percpu-refcount.c), as the css (css.c) and obj_cgroup (objcg_ref.c)
 * references use it. pcpu_ref.c calls no other file of src/memcg.
 *
 * Three modes, kept in flag bits of the shared count word:
 *  - percpu (a new ref, until the kill): a get, tryget or put reads the mode and
 *    adds to the running CPU's own counter (this_cpu_inc/dec under
 *    rcu_read_lock_sched in the kernel). Nothing shared is written, a put never
 *    tests for zero, and a tryget always succeeds. Under a weak memory model it
 *    drains nothing (x86's this_cpu add is no locked instruction); an atomic
 *    mode operation drains as the atomic it is (mo).
 *  - atomic (after percpu_ref_kill: the switch and the put of the initial
 *    reference): one shared count; the put that brings it to 0 tells the
 *    caller to release.
 *  - no-ref (CSS_NO_REF, the root css): get, tryget and put touch nothing.
 *
 * For partial-order reduction (yield.h's contract) every operation's yield
 * point announces a load of the count word (the mode), and the step then notes
 * what it writes: the CPU's own counter (percpu) or the count word (atomic). Two
 * CPUs' percpu operations therefore commute; two tasks of one CPU are ordered
 * anyway (explore_dpor.c's same-CPU rule), and so is an operation against the
 * kill, which writes the word every operation loads. The word's value is
 * what a fingerprint folds in: constant in percpu mode, the count in atomic mode.
 *
 * Weak memory: the kernel folds only after an RCU grace period, which orders
 * every CPU's earlier stores before the fold. The model folds in the kill's own
 * step and drains no other CPU's store buffer, so under tso or pso the kill
 * may count a put whose CPU still buffers earlier stores. Nothing reads such
 * data today (the css's release goes through call_rcu, whose grace period
 * drains every CPU), but an inline release (obj_cgroup_release) could: a
 * limit, not a property of the kernel.
 *
 * Concurrent mode (one OS thread per CPU) starts a ref in atomic mode: the
 * model has no rcu_read_lock_sched around a this_cpu operation, which is what
 * lets the kernel fold the per-CPU counters safely after a grace period. Only
 * deterministic runs, where a step is atomic, use percpu mode.
 */
#ifndef MSIM_MEMCG_PCPU_REF_H
#define MSIM_MEMCG_PCPU_REF_H

#include <stdbool.h>

#include <memcgsim/sim.h>

#define MSIM__PCPU_REF_PERCPU (1L << 62) /* counting per CPU (pcpu holds the deltas) */
#define MSIM__PCPU_REF_NOREF (1L << 61)  /* CSS_NO_REF: nothing is counted */
#define MSIM__PCPU_REF_FLAGS (MSIM__PCPU_REF_PERCPU | MSIM__PCPU_REF_NOREF)

struct msim__pcpu_ref {
	long count;             /* atomic: the shared count plus the mode flags */
	long *pcpu;             /* percpu mode's counters, one per CPU; NULL if never */
	unsigned int nr_cpus;
	bool dead;              /* killed (__PERCPU_REF_DEAD): a second kill is misuse */
};

/*
 * kernel: percpu_ref_init(ref, release, 0): one (initial) reference, percpu
 * mode (atomic in concurrent mode); no_ref: the root css's CSS_NO_REF instead.
 * -ENOMEM when the per-CPU counters cannot be allocated.
 */
int msim__pcpu_ref_init(struct msim__pcpu_ref *ref, struct msim *m, bool no_ref);
/* kernel: percpu_ref_exit(): frees the per-CPU counters. */
void msim__pcpu_ref_exit(struct msim__pcpu_ref *ref);

/*
 * kernel: percpu_ref_get(). A yield point called point, then the get. Returns
 * the count before the get in atomic mode, for the caller's misuse check; in
 * percpu and no-ref mode there is no total to test: 1. mo: the atomic-mode
 * add's order (a relaxed one drains only its own word under a weak memory model).
 */
long msim__pcpu_ref_get(struct msim__pcpu_ref *ref, const char *point, int mo);
/* kernel: percpu_ref_tryget(): fails only in atomic mode at count 0. */
bool msim__pcpu_ref_tryget(struct msim__pcpu_ref *ref, const char *point);
/*
 * kernel: percpu_ref_put(). Returns the count after the put in atomic mode (0:
 * the caller releases), 1 in percpu and no-ref mode (no put releases there).
 */
long msim__pcpu_ref_put(struct msim__pcpu_ref *ref, const char *point, int mo);
/*
 * kernel: percpu_ref_kill(): switch to atomic mode (fold the CPUs' counters into
 * the count), then put the initial reference; returns the count after the put
 * (0: the caller releases). One yield point called point, then both in one step:
 * another CPU's operation between the two would find the count held above 0 by
 * the initial reference, the same outcome as before the switch, so the model
 * leaves DPOR no such order to tell apart. mo: the put's order (as put's).
 */
long msim__pcpu_ref_kill(struct msim__pcpu_ref *ref, const char *point, int mo);

/* The total (shared count plus per-CPU counters), for reports; no access noted. */
long msim__pcpu_ref_total(const struct msim__pcpu_ref *ref);
/* True in atomic mode (killed, or concurrent mode). */
bool msim__pcpu_ref_is_atomic(const struct msim__pcpu_ref *ref);

#endif /* MSIM_MEMCG_PCPU_REF_H */
