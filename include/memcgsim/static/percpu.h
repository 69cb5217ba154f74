/* SPDX-License-Identifier: MIT */
/*
 * static/percpu.h - inline this_cpu operations (include <memcgsim/percpu.h>).
 *
 * Only the running task's CPU writes its own slot with these; a flusher on
 * another CPU reads the slot and may reset it (WRITE_ONCE). The yield points
 * between load and store are that race's windows (R1). Between them the task
 * cannot be preempted (yield.h: msim_preempt_disable) and takes no interrupt
 * (irq.h: msim_local_irq_save, as the generic this_cpu_* do): the kernel's
 * operation is one instruction on its CPU, so under a preemption model no other
 * task of that CPU may run in the window, and no interrupt handler of that CPU
 * arrives in it; remote CPUs still may run.
 */
#ifndef MEMCGSIM_STATIC_PERCPU_H
#define MEMCGSIM_STATIC_PERCPU_H

#include <memcgsim/atomic.h>
#include <memcgsim/yield.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline long msim_this_cpu_add_return(long *slot, long v)
{
	unsigned long flags;
	long n;

	/* wraps, as the kernel's per-CPU add does (it builds with -fno-strict-overflow) */
	n = (long)((unsigned long)msim_load_at(slot, MSIM_RELAXED, "this_cpu_rmw.load") +
		   (unsigned long)v);
	msim_preempt_disable();
	flags = msim_local_irq_save();
	msim_store_at(slot, n, MSIM_RELAXED, "this_cpu_rmw.store");
	msim_local_irq_restore(flags);
	msim_preempt_enable();
	return n;
}

static inline long msim_this_cpu_xchg(long *slot, long v)
{
	unsigned long flags;
	long old;

	old = msim_load_at(slot, MSIM_RELAXED, "this_cpu_rmw.load");
	msim_preempt_disable();
	flags = msim_local_irq_save();
	msim_store_at(slot, v, MSIM_RELAXED, "this_cpu_rmw.store");
	msim_local_irq_restore(flags);
	msim_preempt_enable();
	return old;
}

/*
 * One yield point, then a load and a store with nothing between them. Under a
 * weak memory model (sim.h) the store goes into the CPU's store buffer, as x86's
 * unlocked add to %gs-relative memory does, and the load reads that buffer first.
 */
static inline void msim_this_cpu_add(long *slot, long v)
{
	msim_yield_access("this_cpu_add", slot, MSIM_ACCESS_RMW);
	if (__builtin_expect(msim_wmm_active, 0)) {
		long n = (long)((unsigned long)msim_quiet_load((long *)msim_wmm_load_slowpath(
					slot, sizeof(*slot)), MSIM_RELAXED) + (unsigned long)v);

		msim_wmm_store_slowpath(slot, sizeof(*slot), (uint64_t)n, MSIM_RELAXED);
		return;
	}
	/* wraps, as the kernel's per-CPU add does (it builds with -fno-strict-overflow) */
	msim_quiet_store(slot, (long)((unsigned long)msim_quiet_load(slot, MSIM_RELAXED) +
				      (unsigned long)v), MSIM_RELAXED);
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_STATIC_PERCPU_H */
