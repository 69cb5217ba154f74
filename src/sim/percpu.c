/* SPDX-License-Identifier: MIT */
/*
 * percpu.c - per-CPU memory (percpu.h): one zeroed copy per possible CPU, each on
 * its own cache lines, behind a header that records the stride; the bytes are
 * charged to the kernel-memory model as per-CPU memory of their owner.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/kmem.h>
#include <memcgsim/percpu.h>

struct percpu_hdr {
	size_t stride;
	size_t size;
	unsigned int nr;
	const char *owner;
	uint64_t magic;
};

#define PERCPU_MAGIC 0x7065726370755f31ULL
#define PERCPU_HDR 64

void *msim_alloc_percpu(struct msim *m, size_t size, const char *owner)
{
	size_t stride = (size + 63) & ~(size_t)63;
	unsigned int nr = msim_nr_cpus(m);
	char *raw;

	if (!size)
		return NULL;
	if (posix_memalign((void **)&raw, 64, PERCPU_HDR + stride * nr))
		return NULL;
	memset(raw, 0, PERCPU_HDR + stride * nr);
	struct percpu_hdr *h = (struct percpu_hdr *)raw;
	h->stride = stride;
	h->size = size;
	h->nr = nr;
	h->owner = owner;
	h->magic = PERCPU_MAGIC;
	msim_kmem_percpu_charge(m, size * nr, owner);
	return raw + PERCPU_HDR;
}

static struct percpu_hdr *percpu_hdr(const void *base)
{
	struct percpu_hdr *h = (struct percpu_hdr *)((char *)base - PERCPU_HDR);

	if (h->magic != PERCPU_MAGIC) {
		fprintf(stderr, "memcgsim: %p is not a per-CPU allocation\n", base);
		abort();
	}
	return h;
}

void msim_free_percpu(struct msim *m, void *base)
{
	if (!base)
		return;
	struct percpu_hdr *h = percpu_hdr(base);
	msim_kmem_percpu_uncharge(m, h->size * h->nr, h->owner);
	h->magic = 0;
	free(h);
}

void *msim_per_cpu_ptr(const void *base, unsigned int cpu)
{
#ifndef NDEBUG
	struct percpu_hdr *h = percpu_hdr(base);
	if (cpu >= h->nr) {
		fprintf(stderr, "memcgsim: CPU %u beyond the %u possible CPUs\n", cpu, h->nr);
		abort();
	}
	return (char *)base + (size_t)cpu * h->stride;
#else
	const struct percpu_hdr *h = (const struct percpu_hdr *)((const char *)base - PERCPU_HDR);
	return (char *)base + (size_t)cpu * h->stride;
#endif
}
