/* SPDX-License-Identifier: MIT */
/*
 * kmem_percpu.h - where per-CPU memory lives (kmem_percpu.c), for percpu.c: one
 * unit of address space per CPU, every allocation at the same offset in each
 * unit, as the kernel's percpu allocator lays its chunks out. CPU c's copy of an
 * allocation is its base (CPU 0's copy) plus c strides, so finding it reads
 * nothing, and only the copies a CPU writes cost memory.
 */
#ifndef MSIM_SIM_KMEM_PERCPU_H
#define MSIM_SIM_KMEM_PERCPU_H

#include <stddef.h>

#include "internal.h"

/*
 * 512 MiB of address space per CPU: room for ~120000 cgroups' per-CPU statistics
 * (~4.3 KB per cgroup and CPU), and 512 GiB for a 1024-CPU host, which fits where
 * ThreadSanitizer leaves ~1 TiB for mappings.
 */
#define MSIM_PCPU_UNIT_SHIFT 29
/*
 * CPU c's unit starts c strides from CPU 0's: a unit and one page and one cache
 * line more. With a stride of exactly 512 MiB the copies of one allocation share
 * their cache sets and TLB sets, and a loop over 96 CPUs' copies (a flush, the
 * clearing of a reused block) missed on every one: the clearing alone was a
 * third of a 96-CPU host's DFS run. The kernel's units are its own layout; this
 * offset is only where the model's host keeps its copies.
 */
#define MSIM_PCPU_STRIDE (((size_t)1 << MSIM_PCPU_UNIT_SHIFT) + 4096 + 64)

/* A zeroed allocation of size bytes on every CPU of m; CPU 0's copy, or NULL (errno). */
void *msim__kmem_pcpu_alloc(struct msim *m, size_t size, const char *owner);
/* Free it; *size and *owner get what it was allocated with. False for a bad base. */
bool msim__kmem_pcpu_free(struct msim *m, void *base, size_t *size, const char **owner);
/* The number of CPUs of the area holding base, or 0 (debug checks only: it searches). */
unsigned int msim__kmem_pcpu_nr(const void *base);
/* Unmap the areas kept for later hosts (msim_kmem_trim()). */
void msim__kmem_pcpu_trim(void);
/* Called by msim__kmem_fini(): the host's area goes back (or to the cache of areas). */
void msim__kmem_pcpu_fini(struct msim *m);

#endif /* MSIM_SIM_KMEM_PERCPU_H */
