/* SPDX-License-Identifier: MIT */
/*
 * pcpu_ref.c - percpu_ref: per-CPU counting until the kill, one shared count
 * after it (pcpu_ref.h says what each mode does and what DPOR sees of it).
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/atomic.h>
#include <memcgsim/yield.h>

#include "memcg/pcpu_ref.h"

int msim__pcpu_ref_init(struct msim__pcpu_ref *ref, struct msim *m, bool no_ref)
{
	ref->pcpu = NULL;
	ref->nr_cpus = 0;
	ref->dead = false;
	ref->count = 1;
	if (no_ref) {
		ref->count |= MSIM__PCPU_REF_NOREF;
		return 0;
	}
	if (msim_config(m)->mode != MSIM_DETERMINISTIC)
		return 0;                      /* atomic from the start (pcpu_ref.h) */
	ref->nr_cpus = msim_nr_cpus(m);
	ref->pcpu = calloc(ref->nr_cpus, sizeof(*ref->pcpu));
	if (!ref->pcpu)
		return -ENOMEM;
	ref->count |= MSIM__PCPU_REF_PERCPU;
	return 0;
}

void msim__pcpu_ref_exit(struct msim__pcpu_ref *ref)
{
	free(ref->pcpu);
	ref->pcpu = NULL;
}

/*
 * The mode flags of a count word. A negative count (an atomic-mode put past 0,
 * misuse that only debug builds assert) has every high bit set: it is atomic,
 * not flagged, so that later operations keep counting and reporting.
 */
static long ref_flags(long c)
{
	return c < 0 ? 0 : c & MSIM__PCPU_REF_FLAGS;
}

static bool ref_no_ref(const struct msim__pcpu_ref *ref)
{
	/*
	 * Read before the yield point, unnoted: the flag is set at init and cleared
	 * only by a switch of a ref nobody else can reach yet (lifecycle.c: a root
	 * whose mkdir failed), so no other step writes it meanwhile.
	 */
	return ref_flags(msim_quiet_load(&ref->count, MSIM_RELAXED)) & MSIM__PCPU_REF_NOREF;
}

/* The yield point, then the mode: the load every operation's step starts with. */
static long ref_mode_load(struct msim__pcpu_ref *ref, const char *point)
{
	msim_yield_access(point, &ref->count, MSIM_ACCESS_LOAD | MSIM_ACCESS_VAL(&ref->count));
	/* quiet: the word is written by read-modify-writes only, never buffered */
	return msim_quiet_load(&ref->count, MSIM_ACQUIRE);
}

/*
 * this_cpu_add(*ref->percpu_count_ptr, v). This CPU's tasks write it, and so do
 * RCU callbacks and the driver, which count on CPU 0 (msim_this_cpu() outside a
 * task): the RMW note orders them against CPU 0's tasks.
 */
static void this_cpu_count(struct msim__pcpu_ref *ref, long v)
{
	unsigned int cpu = msim_this_cpu();

	assert(cpu < ref->nr_cpus);
	msim_access_note(&ref->pcpu[cpu], sizeof(ref->pcpu[cpu]), MSIM_ACCESS_RMW);
	msim_quiet_fetch_add(&ref->pcpu[cpu], v, MSIM_RELAXED);
}

/* The atomic-mode step writes the shared word (its announced load becomes an RMW). */
static void atomic_rmw_note(struct msim__pcpu_ref *ref, int mo)
{
	msim_access_note(&ref->count, sizeof(ref->count), MSIM_ACCESS_RMW);
	msim__wmm_rmw(&ref->count, sizeof(ref->count), mo == MSIM_RELAXED);
}

/*
 * What every operation starts with: its yield point, then, in percpu mode, the
 * running CPU's counter moved by delta, or nothing at all on a no-ref css. True
 * when that was the whole operation; false in atomic mode, with *c the count
 * word the step read.
 */
static bool ref_local_op(struct msim__pcpu_ref *ref, const char *point, long delta, long *c)
{
	if (ref_no_ref(ref)) {
		msim_yield_access(point, NULL, MSIM_ACCESS_NONE);
		return true;
	}
	*c = ref_mode_load(ref, point);
	if (!(ref_flags(*c) & MSIM__PCPU_REF_PERCPU))
		return false;
	this_cpu_count(ref, delta);
	return true;
}

long msim__pcpu_ref_get(struct msim__pcpu_ref *ref, const char *point, int mo)
{
	long c;

	if (ref_local_op(ref, point, 1, &c))
		return 1;
	atomic_rmw_note(ref, mo);
	return msim_quiet_fetch_add(&ref->count, 1, mo);
}

bool msim__pcpu_ref_tryget(struct msim__pcpu_ref *ref, const char *point)
{
	long c;

	if (ref_local_op(ref, point, 1, &c))
		return true;
	/*
	 * atomic_long_inc_not_zero(). Noted as a read-modify-write even when it
	 * fails (count 0: released, final, it writes nothing): two trygets commute
	 * in what they return but not in the count each read, which the
	 * fingerprint folds in (tests/race/test_dpor_limits.c).
	 */
	msim_access_note(&ref->count, sizeof(ref->count), MSIM_ACCESS_RMW);
	/* The retry is the same tryget (one percpu_ref operation): no second yield. */
	do {
		if (c <= 0)
			return false;
	} while (!msim_quiet_try_cmpxchg_weak(&ref->count, &c, c + 1, MSIM_SEQ_CST,
					      MSIM_RELAXED));
	return true;
}

/*
 * Neither the kernel nor the model can catch an unbalanced put in percpu mode:
 * a CPU's counter goes negative whenever a reference taken on one CPU is put on
 * another, and the total is known only at the kill, which asserts it
 * (percpu_ref's warning when the folded count is not above 0). A sum at the put
 * would read every CPU's counter unnoted: whether it fired would hang on an
 * order DPOR takes for independent.
 */
long msim__pcpu_ref_put(struct msim__pcpu_ref *ref, const char *point, int mo)
{
	long c;

	if (ref_local_op(ref, point, -1, &c))
		return 1;
	atomic_rmw_note(ref, mo);
	return msim_quiet_sub_return(&ref->count, 1, mo);
}

/*
 * The switch. No note of the per-CPU counters the fold reads: every step that
 * touches one also loads the count word (ref_mode_load), which this step
 * writes, so DPOR orders each of them against the kill already.
 */
static void switch_to_atomic(struct msim__pcpu_ref *ref)
{
	long c, sum = 0;

	msim_access_note(&ref->count, sizeof(ref->count), MSIM_ACCESS_LOAD);
	c = msim_quiet_load(&ref->count, MSIM_ACQUIRE);
	if (!ref_flags(c))
		return;                        /* atomic already */
	msim_access_note(&ref->count, sizeof(ref->count), MSIM_ACCESS_RMW);
	if (c & MSIM__PCPU_REF_PERCPU)
		for (unsigned int cpu = 0; cpu < ref->nr_cpus; cpu++)
			sum += msim_quiet_load(&ref->pcpu[cpu], MSIM_RELAXED);
	c = msim_quiet_add_return(&ref->count, sum - ref_flags(c), MSIM_SEQ_CST);
	/* kernel: percpu_ref_switch_to_atomic_rcu()'s "percpu ref <= 0 after switching" */
	assert(c > 0 && "percpu_ref count not above 0 after switching to atomic");
	(void)c;
}

long msim__pcpu_ref_kill(struct msim__pcpu_ref *ref, const char *point, int mo)
{
	ref_mode_load(ref, point);
	/* kernel: "percpu_ref_kill() called more than once" (only the killer writes it) */
	assert(!ref->dead && "percpu_ref killed more than once");
	ref->dead = true;
	switch_to_atomic(ref);
	atomic_rmw_note(ref, mo);
	return msim_quiet_sub_return(&ref->count, 1, mo);
}

long msim__pcpu_ref_total(const struct msim__pcpu_ref *ref)
{
	long c = msim_quiet_load(&ref->count, MSIM_ACQUIRE), sum = c - ref_flags(c);

	if (ref_flags(c) & MSIM__PCPU_REF_PERCPU)
		for (unsigned int cpu = 0; cpu < ref->nr_cpus; cpu++)
			sum += msim_quiet_load(&ref->pcpu[cpu], MSIM_RELAXED);
	return sum;
}

bool msim__pcpu_ref_is_atomic(const struct msim__pcpu_ref *ref)
{
	return !ref_flags(msim_quiet_load(&ref->count, MSIM_RELAXED));
}
