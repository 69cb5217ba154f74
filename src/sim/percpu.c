/* SPDX-License-Identifier: MIT */
/*
 * percpu.c - per-CPU memory (percpu.h): one zeroed copy per possible CPU, each on
 * its own cache lines, at the same offset of every CPU's unit of the host's
 * per-CPU area (kmem_percpu.c: only the copies written cost memory); the bytes
 * are charged to the kernel-memory model as per-CPU memory of their owner.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/kmem.h>
#include <memcgsim/percpu.h>

#include "access.h"
#include "kmem_percpu.h"

/*
 * kernel: mm/percpu.c pcpu_alloc_noprof(). The block is at one offset in every
 * CPU's unit of the host's per-CPU area (kmem_percpu.c), zeroed; the bytes are
 * charged as the caller sizes them, size x nr_cpus.
 */
void *msim_alloc_percpu(struct msim *m, size_t size, const char *owner)
{
	void *base;

	if (!size)
		return NULL;
	base = msim__kmem_pcpu_alloc(m, size, owner);
	if (base)
		msim_kmem_percpu_charge(m, size * msim_nr_cpus(m), owner);
	return base;
}

/*
 * For DPOR (access.h): a free stores over every CPU's copy, so it conflicts with
 * every access to one. The copies sit a stride apart: one range from the first to
 * the last covers them (and, conservatively, what lies between).
 */
static void note_free(const void *base, unsigned int nr_cpus, size_t size)
{
	msim__access_note_range(base, (size_t)(nr_cpus - 1) * MSIM_PCPU_STRIDE + size,
				MSIM_ACCESS_STORE);
}

void msim_free_percpu(struct msim *m, void *base)
{
	const char *owner;
	size_t size;

	if (!base)
		return;
	if (!msim__kmem_pcpu_free(m, base, &size, &owner)) {
		fprintf(stderr, "memcgsim: %p is not a per-CPU allocation of this host\n", base);
		abort();
	}
	note_free(base, msim_nr_cpus(m), size);
	msim_kmem_percpu_uncharge(m, size * msim_nr_cpus(m), owner);
}

/* CPU cpu's copy: one stride of address space further per CPU, nothing to read. */
void *msim_per_cpu_ptr(const void *base, unsigned int cpu)
{
#ifndef NDEBUG
	unsigned int nr = msim__kmem_pcpu_nr(base);

	if (!nr) {
		fprintf(stderr, "memcgsim: %p is not a per-CPU allocation\n", base);
		abort();
	}
	if (cpu >= nr) {
		fprintf(stderr, "memcgsim: CPU %u beyond the %u possible CPUs\n", cpu, nr);
		abort();
	}
#endif
	return (char *)base + (size_t)cpu * MSIM_PCPU_STRIDE;
}
