/* SPDX-License-Identifier: MIT */
/*
 * irq.h - execution contexts on a simulated CPU: task, softirq, hardirq, NMI.
 *
 * A scenario declares interrupt sources: a handler bound to one CPU and one
 * context kind, allowed to fire up to max_fires times. In deterministic mode the
 * explorers (random, PCT, DFS, replay) choose when each fires; a script fires one
 * itself (msim_irq_raise()). The kernel's rules, as the scheduler applies them:
 *
 *  - an interrupt arrives at a yield point of the context it interrupts, the
 *    innermost one running on its CPU, which must be parked there (a blocked
 *    task, sleeping or spinning, is not interrupted: a simplification);
 *  - softirq < hardirq < NMI: a context is interrupted only by a higher kind
 *    (softirqs do not nest, a hardirq handler runs with interrupts off, NMIs do
 *    not nest); a softirq only interrupts a task outside local_bh_disable();
 *  - softirqs and hardirqs need interrupts enabled in the interrupted context
 *    (msim_local_irq_save()); NMIs arrive regardless;
 *  - the handler runs to completion before anything below it on its CPU runs
 *    again (no other task of that CPU runs either); remote CPUs go on, so the
 *    handler's own yield points interleave with them;
 *  - it sees the same per-CPU data: msim_this_cpu() is the CPU it interrupted.
 *
 * The this_cpu operations of percpu.h hold interrupts off between their load and
 * their store, so they are atomic against this CPU's interrupts and not against
 * a remote CPU's store (R1), as the kernel's this_cpu_* are.
 *
 * Schedule strings (explore.h) name an arrival "!N", N being the handler's task
 * index; the handler's later steps are plain "N". With no source declared the
 * option lists, schedule strings and trace hashes are exactly those of a host
 * without this header.
 *
 * Interrupt sources exist only on deterministic hosts. In concurrent mode and
 * outside a task every call below that changes state does nothing.
 */
#ifndef MEMCGSIM_IRQ_H
#define MEMCGSIM_IRQ_H

#include <memcgsim/api.h>

#include <stdbool.h>

#include <memcgsim/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* In the order in which one may interrupt another (a higher kind interrupts a lower). */
enum msim_context_kind {
	MSIM_CTX_TASK = 0,
	MSIM_CTX_SOFTIRQ,
	MSIM_CTX_HARDIRQ,
	MSIM_CTX_NMI,
};

MSIM_API const char *msim_context_kind_name(enum msim_context_kind k);

/*
 * Declare an interrupt source: handler fn(arg) in context kind (not TASK) on CPU
 * cpu, firing at most max_fires (>= 1) times. It is a task of the host (its index
 * names it in schedule strings, msim_task_name() its name), created by the
 * driver like any task. Returns NULL with errno EINVAL on bad arguments or from
 * inside a task, EOPNOTSUPP on a concurrent host, ENOMEM.
 */
MSIM_API struct msim_task *msim_irq_source_create(struct msim *m, const char *name,
						  unsigned int cpu, enum msim_context_kind kind,
						  unsigned int max_fires, msim_task_fn fn, void *arg);

/* How often source src has fired (arrived) so far. */
MSIM_API unsigned int msim_irq_fires(const struct msim_task *src);

/*
 * Scripted arrival: fire src now, on the interrupted context's current yield
 * point, and run the handler to its first yield point (or its end). Returns 0;
 * -EINVAL for bad arguments (or from inside a task); -EBUSY when the rules above
 * forbid it now (interrupts off there, a context of the same or a higher kind
 * running, nothing parked to interrupt, or no firing left). Step the handler on
 * with msim_run_task()/msim_run_until() (script.h).
 */
MSIM_API int msim_irq_raise(struct msim *m, struct msim_task *src);

/* The running context's kind (TASK outside a deterministic task). */
MSIM_API enum msim_context_kind msim_context_kind(void);
/* kernel: in_nmi(), in_hardirq(), in_serving_softirq(), in_task(). */
MSIM_API bool msim_in_nmi(void);
MSIM_API bool msim_in_hardirq(void);
MSIM_API bool msim_in_serving_softirq(void);
MSIM_API bool msim_in_task(void);
/* kernel: irqs_disabled(): local_irq_save() in effect, or hardirq/NMI context. */
MSIM_API bool msim_irqs_disabled(void);

/*
 * kernel: local_irq_save(flags) / local_irq_restore(flags), local_bh_disable() /
 * local_bh_enable(). No yield points. Interrupts off also keep the task on its
 * CPU (as preempt_disable, yield.h). Bodies inline in static/yield.h:
 *
 * unsigned long msim_local_irq_save(void);        returns the flags to restore
 * void msim_local_irq_restore(unsigned long flags);
 * void msim_local_bh_disable(void);
 * void msim_local_bh_enable(void);
 */

#ifdef __cplusplus
}
#endif

#include <memcgsim/static/yield.h>

#endif /* MEMCGSIM_IRQ_H */
