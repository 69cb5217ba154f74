/* SPDX-License-Identifier: MIT */
/*
 * percpu.h - per-CPU memory and this_cpu operations.
 *
 * msim_alloc_percpu() gives one zeroed copy per possible CPU, each on its own
 * cache lines, and records the bytes in the kernel-memory model (kmem.h) as
 * per-CPU memory of its owner. The base it returns is CPU 0's copy;
 * msim_per_cpu_ptr() finds another CPU's, msim_this_cpu_ptr() the running
 * task's (msim_this_cpu(), sim.h).
 *
 * this_cpu operations on a long slot (bodies in static/percpu.h):
 *  - msim_this_cpu_add_return(slot, v), msim_this_cpu_xchg(slot, v): a load, a
 *    yield point, a store. On x86 each is one unlocked instruction, atomic against
 *    this CPU's interrupts but not against a remote store into the same slot;
 *    load-yield-store gives the scheduler exactly that window (race R1, with the
 *    points "this_cpu_rmw.load" and "this_cpu_rmw.store").
 *  - msim_this_cpu_add(slot, v): one yield point ("this_cpu_add"), then the add:
 *    for slots that only their own CPU writes and a flusher only reads.
 */
#ifndef MEMCGSIM_PERCPU_H
#define MEMCGSIM_PERCPU_H

#include <memcgsim/api.h>

#include <stddef.h>

#include <memcgsim/sim.h>
#include <memcgsim/static/percpu.h>

#ifdef __cplusplus
extern "C" {
#endif

MSIM_API void *msim_alloc_percpu(struct msim *m, size_t size, const char *owner);
MSIM_API void msim_free_percpu(struct msim *m, void *base);
MSIM_API void *msim_per_cpu_ptr(const void *base, unsigned int cpu);

static inline void *msim_this_cpu_ptr(const void *base)
{
	return msim_per_cpu_ptr(base, msim_this_cpu());
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_PERCPU_H */
