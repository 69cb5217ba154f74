/* SPDX-License-Identifier: MIT */
/*
 * storebuf.c - per-CPU store buffers of the weak memory models (storebuf.h).
 *
 * Deterministic mode only: one task runs at a time on the driver's thread, so
 * the buffers need no locking, and an entry reaches memory exactly when a step
 * says so; the schedule string records every drain the explorer chose, which
 * keeps replay exact.
 *
 * Invariants (docs/memory-model.md):
 *  - entries to one address reach memory in program order (coherence);
 *  - under tso every entry reaches memory in program order (FIFO);
 *  - under pso a release entry reaches memory only after every older entry;
 *    younger entries may pass it, as a release is one-way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/atomic.h>

#include "access.h"
#include "current.h"
#include "storebuf.h"

/* Entries a CPU buffers before its oldest drains by itself (x86: some 50). */
#define WMM_CAP 32

enum entry_kind {
	ENTRY_STORE,             /* a relaxed store */
	ENTRY_RELEASE,           /* a release store: after every older entry */
	ENTRY_UNLOCK,            /* a lock release: run release(arg), after every older entry */
};

struct entry {
	uintptr_t addr;
	unsigned int size;
	enum entry_kind kind;
	uint64_t val;            /* the value, zero- or sign-extended; write_back narrows it,
				    and a forwarding load of size <= 8 reads its low bytes
				    (little endian, as x86 and arm64) */
	void (*release)(void *arg);
	void *arg;
};

struct cpu_buf {
	struct entry e[WMM_CAP]; /* oldest first */
	unsigned int n;
};

struct msim__storebuf {
	enum msim_memory_model model;
	unsigned int nr_cpus;
	struct cpu_buf cpu[];
};

__thread int msim_wmm_active;

int msim__wmm_init(struct msim *m)
{
	struct msim__storebuf *sb;

	m->wmm = NULL;
	if (m->cfg.memory_model == MSIM_MEMORY_SC || m->cfg.mode != MSIM_DETERMINISTIC)
		return 0;
	sb = calloc(1, sizeof(*sb) + m->cfg.nr_cpus * sizeof(sb->cpu[0]));
	if (!sb)
		return -ENOMEM;
	sb->model = m->cfg.memory_model;
	sb->nr_cpus = m->cfg.nr_cpus;
	m->wmm = sb;
	return 0;
}

void msim__wmm_fini(struct msim *m)
{
	free(m->wmm);
	m->wmm = NULL;
}

unsigned int msim__wmm_pending(const struct msim *m, unsigned int cpu)
{
	return m->wmm && cpu < m->wmm->nr_cpus ? m->wmm->cpu[cpu].n : 0;
}

static bool overlaps(const struct entry *e, uintptr_t addr, unsigned int size)
{
	return e->addr < addr + size && addr < e->addr + e->size;
}

/* May entry i of b reach memory next under model? */
static bool drainable(const struct cpu_buf *b, unsigned int i, enum msim_memory_model model)
{
	if (i == 0)
		return true;
	if (model == MSIM_MEMORY_TSO || b->e[i].kind != ENTRY_STORE)
		return false;
	for (unsigned int j = 0; j < i; j++)
		if (overlaps(&b->e[j], b->e[i].addr, b->e[i].size))
			return false;
	return true;
}

unsigned int msim__wmm_drainable(const struct msim *m, unsigned int cpu, unsigned int *pos,
				 unsigned int max)
{
	const struct cpu_buf *b;
	unsigned int n = 0;

	if (!m->wmm || cpu >= m->wmm->nr_cpus)
		return 0;
	b = &m->wmm->cpu[cpu];
	for (unsigned int i = 0; i < b->n && n < max; i++)
		if (drainable(b, i, m->wmm->model))
			pos[n++] = i;
	return n;
}

/* The entry's bytes reach memory (a store of its size, as the shim would have). */
static void write_back(const struct entry *e)
{
	switch (e->size) {
	case 1: msim_quiet_store((uint8_t *)e->addr, (uint8_t)e->val, MSIM_RELAXED); break;
	case 2: msim_quiet_store((uint16_t *)e->addr, (uint16_t)e->val, MSIM_RELAXED); break;
	case 4: msim_quiet_store((uint32_t *)e->addr, (uint32_t)e->val, MSIM_RELAXED); break;
	default: msim_quiet_store((uint64_t *)e->addr, e->val, MSIM_RELAXED); break;
	}
}

void msim__wmm_target(const struct msim *m, unsigned int cpu, unsigned int pos,
		      struct msim__wmm_target *tg)
{
	const struct entry *e = &m->wmm->cpu[cpu].e[pos];

	tg->unlock = e->kind == ENTRY_UNLOCK;
	tg->addr = tg->unlock ? (uintptr_t)e->arg : e->addr;
	tg->size = tg->unlock ? 1 : e->size;
	tg->head = m->wmm->model == MSIM_MEMORY_TSO ? &m->wmm->cpu[cpu].n : NULL;
}

void msim__wmm_drain_at(struct msim *m, unsigned int cpu, unsigned int pos)
{
	struct cpu_buf *b = &m->wmm->cpu[cpu];
	struct entry e = b->e[pos];

	memmove(&b->e[pos], &b->e[pos + 1], (b->n - pos - 1) * sizeof(b->e[0]));
	b->n--;
	if (m->wmm->model == MSIM_MEMORY_TSO) /* the head moved (msim__wmm_target) */
		msim__access_note(&b->n, MSIM_ACCESS_STORE);
	if (e.kind == ENTRY_UNLOCK) {
		msim__access_note(e.arg, MSIM_ACCESS_RMW); /* as lock.c's unlock notes it */
		e.release(e.arg);
	} else {
		msim__access_note_range((const void *)e.addr, e.size, MSIM_ACCESS_STORE);
		write_back(&e);
	}
}

void msim__wmm_drain_all(struct msim *m, unsigned int cpu)
{
	while (msim__wmm_pending(m, cpu))
		msim__wmm_drain_at(m, cpu, 0);
}

/* Drain cpu's entries that overlap [addr, addr + size), oldest first. */
static void drain_overlapping(struct msim *m, unsigned int cpu, uintptr_t addr, unsigned int size)
{
	struct cpu_buf *b = &m->wmm->cpu[cpu];

	for (unsigned int i = 0; i < b->n;) {
		if (overlaps(&b->e[i], addr, size)) {
			/* older entries to these bytes are gone, so under pso a plain
			 * store may go; under tso, and for a release, everything older
			 * goes first */
			if (m->wmm->model == MSIM_MEMORY_TSO || b->e[i].kind != ENTRY_STORE) {
				while (i-- > 0)
					msim__wmm_drain_at(m, cpu, 0);
				i = 0;
			}
			msim__wmm_drain_at(m, cpu, i);
		} else {
			i++;
		}
	}
}

static struct msim_task *wmm_task(void)
{
	struct msim_task *t = msim__tls_task;

	if (!t || !t->host->wmm) {
		fprintf(stderr, "memcgsim: a store-buffer path ran outside a weak-model task\n");
		abort();
	}
	return t;
}

/* Room for one more entry: at the cap the oldest drainable entry goes by itself. */
static void make_room(struct msim *m, unsigned int cpu)
{
	unsigned int pos;

	if (m->wmm->cpu[cpu].n < WMM_CAP)
		return;
	msim__wmm_drainable(m, cpu, &pos, 1);
	msim__wmm_drain_at(m, cpu, pos);
}

static void push(struct msim *m, unsigned int cpu, const struct entry *e)
{
	struct cpu_buf *b = &m->wmm->cpu[cpu];

	make_room(m, cpu);
	b->e[b->n++] = *e;
}

void msim_wmm_store_slowpath(volatile void *p, unsigned int size, uint64_t bits, int mo)
{
	struct msim_task *t = wmm_task();
	struct entry e = { .addr = (uintptr_t)p, .size = size,
			   .kind = mo == MSIM_RELAXED ? ENTRY_STORE : ENTRY_RELEASE, .val = bits };

	if (size > sizeof(e.val) || (size & (size - 1))) {
		fprintf(stderr, "memcgsim: a shim store of %u bytes (1, 2, 4 or 8 only)\n", size);
		abort();
	}
	push(t->host, t->cpu, &e);
	if (mo == MSIM_SEQ_CST)
		msim__wmm_drain_all(t->host, t->cpu); /* x86: xchg; arm64: stlr + dmb */
}

void *msim_wmm_load_slowpath(const volatile void *p, unsigned int size)
{
	struct msim_task *t = wmm_task();
	struct cpu_buf *b = &t->host->wmm->cpu[t->cpu];
	uintptr_t addr = (uintptr_t)p;

	for (unsigned int i = b->n; i-- > 0;) {
		struct entry *e = &b->e[i];

		if (e->kind == ENTRY_UNLOCK || !overlaps(e, addr, size))
			continue;
		if (e->addr == addr && e->size == size)
			return &e->val;          /* store forwarding */
		/* a partial overlap: forward nothing, let the bytes reach memory */
		drain_overlapping(t->host, t->cpu, addr, size);
		break;
	}
	return (void *)p;
}

void msim_wmm_rmw_slowpath(const volatile void *p, unsigned int size, int relaxed)
{
	struct msim_task *t = wmm_task();

	if (relaxed && t->host->wmm->model == MSIM_MEMORY_PSO)
		drain_overlapping(t->host, t->cpu, (uintptr_t)p, size);
	else
		msim__wmm_drain_all(t->host, t->cpu);
}

void msim_wmm_fence_slowpath(void)
{
	struct msim_task *t = wmm_task();

	msim__wmm_drain_all(t->host, t->cpu);
}

bool msim__wmm_release(struct msim *m, unsigned int cpu, void (*release)(void *arg), void *arg)
{
	struct entry e = { .kind = ENTRY_UNLOCK, .release = release, .arg = arg };

	if (!m->wmm)
		return false;
	if (m->wmm->model == MSIM_MEMORY_TSO || !m->wmm->cpu[cpu].n) {
		msim__wmm_drain_all(m, cpu);
		return false;
	}
	push(m, cpu, &e);
	return true;
}

bool msim__wmm_release_pending(const struct msim *m, const void *arg)
{
	if (!m->wmm)
		return false;
	for (unsigned int cpu = 0; cpu < m->wmm->nr_cpus; cpu++) {
		const struct cpu_buf *b = &m->wmm->cpu[cpu];

		for (unsigned int i = 0; i < b->n; i++)
			if (b->e[i].kind == ENTRY_UNLOCK && b->e[i].arg == arg)
				return true;
	}
	return false;
}
