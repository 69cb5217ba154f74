/* SPDX-License-Identifier: MIT */
/*
 * lockdep.h - what the lock shims (lock.c) and the host (host.c) tell the
 * lock-order checker (lockdep.c; the public side is <memcgsim/lockdep.h>).
 */
#ifndef MSIM_SIM_LOCKDEP_H
#define MSIM_SIM_LOCKDEP_H

#include <stdbool.h>

#include "internal.h"

/*
 * The execution context a lock is taken in, as lockdep reads it: which interrupt
 * context runs (none: process context) and whether hardirqs and softirqs are
 * disabled there. The simulated CPUs take no interrupts yet, so the default
 * reader says "process context, both enabled" for every task and the driver; the
 * execution contexts, when they come, install the reader that tells the truth
 * (and a unit test installs a fake one to drive the irq checks).
 */
struct msim__lockdep_irq {
	bool in_hardirq, in_softirq, in_nmi;
	bool hardirqs_off, softirqs_off;
};
typedef void (*msim__lockdep_irq_fn)(const struct msim_task *t, struct msim__lockdep_irq *out);

/* Install fn as the context reader (NULL: the default); returns the previous one. */
msim__lockdep_irq_fn msim__lockdep_set_irq_reader(msim__lockdep_irq_fn fn);

/* A deterministic host made from a configuration with a graph starts recording. */
int msim__lockdep_host_attach(struct msim *m);
/* msim_destroy(): the host stops recording and frees its held-lock stacks. */
void msim__lockdep_host_detach(struct msim *m);

/*
 * Task t (NULL: the driver) of host m is about to take l (subclass of its class,
 * msim_lock_nested()): record the dependencies on every lock it holds, check
 * them, and push l on its held-lock stack. A trylock calls this after it
 * succeeded: it adds no dependency and no recursion check, as the kernel's.
 */
void msim__lockdep_acquire(struct msim *m, struct msim_task *t, const struct msim_lock *l,
			   unsigned int subclass, bool trylock);
/* t (NULL: the driver) releases l: pop it from its held-lock stack. */
void msim__lockdep_release(struct msim *m, struct msim_task *t, const struct msim_lock *l);

#endif /* MSIM_SIM_LOCKDEP_H */
