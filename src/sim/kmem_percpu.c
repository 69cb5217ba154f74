/* SPDX-License-Identifier: MIT */
/*
 * kmem_percpu.c - the address space behind per-CPU memory (kmem_percpu.h).
 *
 * A host gets an area of nr_cpus units of 512 MiB, reserved with MAP_NORESERVE
 * (a page and a line apart: kmem_percpu.h's MSIM_PCPU_STRIDE):
 * an allocation is a block at one offset, present in every unit (kernel:
 * mm/percpu.c lays out its chunks the same way, one unit per CPU). Copy c is at
 * base + c strides: no header, nothing to read to find it, and a CPU's copy costs
 * memory only once something writes it. With 1024 CPUs x 20000 cgroups the
 * model's per-CPU statistics would otherwise be ~87 GB written as zeros.
 *
 * Blocks are 64-byte aligned and a multiple of 64 bytes (each copy on its own
 * cache lines). A block never handed out in this area reads as zero; one handed
 * out before (freed, or from an area an earlier host used) is checked and
 * cleared copy by copy, only where something is left. What a block was
 * allocated as (size, owner) is kept beside it in a hash table, never in the
 * units. Small areas (an explorer's hosts) are kept when their host goes, for
 * the next host with as many CPUs: no system call per run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kmem_arena.h"
#include "kmem_internal.h"
#include "kmem_percpu.h"

#define UNIT ((size_t)1 << MSIM_PCPU_UNIT_SHIFT)
#define KEEP_AREAS 8
#define KEEP_AREA_BYTES (64ULL << 20)   /* kept only if this little was handed out */

struct pcpu_block {
	size_t off, size;               /* size: the request; the block is round_up(size, 64) */
	const char *owner;
	struct pcpu_block *next;        /* hash chain, or free list of its rounded size */
};

struct pcpu_area {
	char *base;
	unsigned int nr;
	size_t bump;                    /* offsets from here on never handed out in this area */
	size_t dirty;                   /* offsets below may hold bytes of an earlier host */
	pthread_mutex_t lock;
	struct pcpu_block **hash;       /* live blocks by offset */
	size_t nhash, nlive;
	struct pcpu_block *free;        /* freed blocks (any size): reused by exact size */
	struct pcpu_area *next;         /* the process's list of areas (live or kept) */
};

static struct {
	pthread_mutex_t lock;
	struct pcpu_area *live, *kept;
	unsigned int nkept;
} areas = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t block_bytes(size_t size)
{
	return (size + 63) & ~(size_t)63;
}

static size_t hash_of(size_t off, size_t nhash)
{
	return (size_t)((off >> 6) * 0x9e3779b97f4a7c15ULL >> 20) & (nhash - 1);
}

/* ---- areas ---- */

static void list_remove(struct pcpu_area **list, struct pcpu_area *a)
{
	while (*list && *list != a)
		list = &(*list)->next;
	if (*list)
		*list = a->next;
}

/* A kept area of nr CPUs, or a new one; linked as live. NULL on ENOMEM. */
static struct pcpu_area *area_get(unsigned int nr)
{
	struct pcpu_area *a;

	pthread_mutex_lock(&areas.lock);
	for (a = areas.kept; a && a->nr != nr; a = a->next)
		;
	if (a) {
		list_remove(&areas.kept, a);
		areas.nkept--;
	}
	pthread_mutex_unlock(&areas.lock);
	if (!a) {
		a = calloc(1, sizeof(*a));
		a->base = a ? mmap(NULL, (size_t)nr * MSIM_PCPU_STRIDE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : MAP_FAILED;
		if (!a || a->base == MAP_FAILED) {
			free(a);
			return NULL;
		}
		a->nr = nr;
		pthread_mutex_init(&a->lock, NULL);
	}
	a->nhash = 64;
	a->hash = calloc(a->nhash, sizeof(*a->hash));
	if (!a->hash) {
		munmap(a->base, (size_t)nr * MSIM_PCPU_STRIDE);
		free(a);
		return NULL;
	}
	pthread_mutex_lock(&areas.lock);
	a->next = areas.live;
	areas.live = a;
	pthread_mutex_unlock(&areas.lock);
	return a;
}

static void blocks_free(struct pcpu_area *a)
{
	struct pcpu_block *b, *next;

	for (size_t i = 0; i < a->nhash; i++)
		for (b = a->hash[i]; b; b = next) {
			next = b->next;
			free(b);
		}
	for (b = a->free; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a->hash);
	a->hash = NULL;
	a->free = NULL;
	a->nlive = 0;
}

/* The host is gone: keep a small area for the next host with as many CPUs. */
static void area_put(struct pcpu_area *a)
{
	bool keep;

	blocks_free(a);
	pthread_mutex_lock(&areas.lock);
	list_remove(&areas.live, a);
	keep = areas.nkept < KEEP_AREAS && (uint64_t)a->bump * a->nr <= KEEP_AREA_BYTES;
	if (keep) {
		a->dirty = a->dirty > a->bump ? a->dirty : a->bump;
		a->bump = 0;
		a->next = areas.kept;
		areas.kept = a;
		areas.nkept++;
	}
	pthread_mutex_unlock(&areas.lock);
	if (!keep) {
		munmap(a->base, (size_t)a->nr * MSIM_PCPU_STRIDE);
		pthread_mutex_destroy(&a->lock);
		free(a);
	}
}

/* ---- blocks ---- */

/* Caller holds a->lock. Doubles the hash table when it is full (ENOMEM: it stays). */
static void hash_grow(struct pcpu_area *a)
{
	size_t n = a->nhash * 2;
	struct pcpu_block **h = calloc(n, sizeof(*h)), *b, *next;

	if (!h)
		return;
	for (size_t i = 0; i < a->nhash; i++)
		for (b = a->hash[i]; b; b = next) {
			next = b->next;
			b->next = h[hash_of(b->off, n)];
			h[hash_of(b->off, n)] = b;
		}
	free(a->hash);
	a->hash = h;
	a->nhash = n;
}

/* Caller holds a->lock. A freed block of exactly this rounded size, unlinked. */
static struct pcpu_block *free_take(struct pcpu_area *a, size_t bytes)
{
	for (struct pcpu_block **p = &a->free; *p; p = &(*p)->next)
		if (block_bytes((*p)->size) == bytes) {
			struct pcpu_block *b = *p;

			*p = b->next;
			return b;
		}
	return NULL;
}

/*
 * kzalloc on every CPU. On a small area (an explorer's host) every copy is
 * cleared outright; on a large one only the copies where something is left, so
 * that copies reading as zero are not written.
 */
static void block_clear(struct pcpu_area *a, size_t off, size_t bytes)
{
	bool small = (uint64_t)a->nr * bytes <= (64u << 10);

	for (unsigned int c = 0; c < a->nr; c++) {
		char *p = a->base + (size_t)c * MSIM_PCPU_STRIDE + off;

		if (small || !msim__kmem_reads_zero(p, bytes))
			memset(p, 0, bytes);
	}
}

/* Caller holds a->lock. A block for size bytes; *old: it may hold old bytes. */
static struct pcpu_block *block_get(struct pcpu_area *a, size_t size, bool *old)
{
	size_t bytes = block_bytes(size);
	struct pcpu_block *b = free_take(a, bytes);

	*old = b != NULL;
	if (!b) {
		if (bytes > UNIT - a->bump || !(b = malloc(sizeof(*b))))
			return NULL;
		b->off = a->bump;
		a->bump += bytes;
		*old = b->off < a->dirty;
	}
	b->size = size;
	if (a->nlive >= a->nhash)
		hash_grow(a);
	b->next = a->hash[hash_of(b->off, a->nhash)];
	a->hash[hash_of(b->off, a->nhash)] = b;
	a->nlive++;
	return b;
}

void *msim__kmem_pcpu_alloc(struct msim *m, size_t size, const char *owner)
{
	struct msim_kmem *k = m ? m->kmem : NULL;
	struct pcpu_block *b;
	struct pcpu_area *a;
	bool old;

	if (!k || !size) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&k->lock);
	if (!k->pcpu)
		k->pcpu = area_get(msim_nr_cpus(m));
	a = k->pcpu;
	pthread_mutex_unlock(&k->lock);
	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&a->lock);
	b = block_get(a, size, &old);
	if (b)
		b->owner = owner;
	pthread_mutex_unlock(&a->lock);
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	if (old)
		block_clear(a, b->off, block_bytes(size));
	return a->base + b->off;
}

bool msim__kmem_pcpu_free(struct msim *m, void *base, size_t *size, const char **owner)
{
	struct msim_kmem *k = m ? m->kmem : NULL;
	struct pcpu_area *a = k ? k->pcpu : NULL;
	struct pcpu_block **p, *b = NULL;
	size_t off;

	if (!a || (char *)base < a->base || (size_t)((char *)base - a->base) >= UNIT)
		return false;
	off = (size_t)((char *)base - a->base);
	pthread_mutex_lock(&a->lock);
	for (p = &a->hash[hash_of(off, a->nhash)]; *p; p = &(*p)->next)
		if ((*p)->off == off) {
			b = *p;
			*p = b->next;
			a->nlive--;
			b->next = a->free;
			a->free = b;
			*size = b->size;
			*owner = b->owner;
			break;
		}
	pthread_mutex_unlock(&a->lock);
	return b != NULL;
}

unsigned int msim__kmem_pcpu_nr(const void *base)
{
	unsigned int nr = 0;

	pthread_mutex_lock(&areas.lock);
	for (struct pcpu_area *a = areas.live; a; a = a->next)
		if ((const char *)base >= a->base && (size_t)((const char *)base - a->base) < UNIT)
			nr = a->nr;
	pthread_mutex_unlock(&areas.lock);
	return nr;
}

void msim__kmem_pcpu_trim(void)
{
	struct pcpu_area *a, *next;

	pthread_mutex_lock(&areas.lock);
	a = areas.kept;
	areas.kept = NULL;
	areas.nkept = 0;
	pthread_mutex_unlock(&areas.lock);
	for (; a; a = next) {
		next = a->next;
		munmap(a->base, (size_t)a->nr * MSIM_PCPU_STRIDE);
		pthread_mutex_destroy(&a->lock);
		free(a);
	}
}

void msim__kmem_pcpu_fini(struct msim *m)
{
	struct msim_kmem *k = m->kmem;

	if (k && k->pcpu) {
		area_put(k->pcpu);
		k->pcpu = NULL;
	}
}
