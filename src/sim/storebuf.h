/* SPDX-License-Identifier: MIT */
/*
 * storebuf.h - per-CPU store buffers of the weak memory models (storebuf.c;
 * the models are described in sim.h enum msim_memory_model and docs/memory-model.md).
 *
 * Under memory model tso or pso every shim store a deterministic task issues
 * (atomic.h msim_store_at and all that builds on it, the percpu.h stores) goes
 * into its CPU's buffer; the contexts stacked on one CPU (task, softirq,
 * hardirq, NMI) share it, as they share the hardware's. A load of that CPU reads
 * its youngest buffered store to the address, other CPUs read memory. An entry
 * reaches memory when the scheduler picks "drain" (an option of every decision
 * while the buffer is not empty: "~C" in schedule strings, "~C+K" for the K-th
 * oldest entry under pso), at a fence, at a read-modify-write that orders (see
 * msim_wmm_rmw_slowpath), and at a lock acquire.
 *
 * Under sc (the default) the host has no buffers (m->wmm is NULL), no option
 * is added and the shims take their old path after one branch.
 */
#ifndef MSIM_SIM_STOREBUF_H
#define MSIM_SIM_STOREBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* Create the buffers of a host whose model is not sc (0 or -ENOMEM); free them. */
int msim__wmm_init(struct msim *m);
void msim__wmm_fini(struct msim *m);

/* Entries buffered on cpu (0 under sc). */
unsigned int msim__wmm_pending(const struct msim *m, unsigned int cpu);
/*
 * The entries of cpu that may reach memory next, as positions from the oldest
 * (0): under tso only 0; under pso every entry with no older entry to the same
 * address, except a release, which waits until it is the oldest. Writes at most
 * max positions into pos; returns how many.
 */
unsigned int msim__wmm_drainable(const struct msim *m, unsigned int cpu, unsigned int *pos,
				 unsigned int max);
/* What draining an entry touches: its bytes, or for a buffered lock release the lock. */
struct msim__wmm_target {
	uintptr_t addr;
	unsigned int size;
	bool unlock;
	/* tso: the CPU's buffer head, which every drain of that CPU stores (a
	 * task's step that drains the oldest entry changes what the CPU's drain
	 * thread drains next, so the two must conflict); NULL under pso */
	const void *head;
};
void msim__wmm_target(const struct msim *m, unsigned int cpu, unsigned int pos,
		      struct msim__wmm_target *tg);
/*
 * Make entry pos of cpu visible (it must be drainable). The store (or the lock
 * release) is noted as the running step's access (access.h): a drain inside a
 * task's fence, RMW or lock acquire is part of that task's step.
 */
void msim__wmm_drain_at(struct msim *m, unsigned int cpu, unsigned int pos);
/* Make every entry of cpu visible, oldest first (a full fence). */
void msim__wmm_drain_all(struct msim *m, unsigned int cpu);

/*
 * spin_unlock()/mutex_unlock() by a deterministic task on cpu: a release. Under
 * tso the buffer drains first (simplification, docs/memory-model.md) and the
 * caller releases now: returns false. Under pso, with older entries buffered,
 * a release entry goes into the buffer and release(arg) runs when it drains,
 * after every older entry: returns true (the caller must not release).
 */
bool msim__wmm_release(struct msim *m, unsigned int cpu, void (*release)(void *arg), void *arg);
/* Whether a release of arg still waits in some CPU's buffer (pso). */
bool msim__wmm_release_pending(const struct msim *m, const void *arg);

#endif /* MSIM_SIM_STOREBUF_H */
