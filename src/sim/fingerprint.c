/* SPDX-License-Identifier: MIT */
/*
 * fingerprint.c - what each thread of a run saw (fingerprint.h).
 *
 * Costs nothing unless an exploration asks for it (msim_explore_opts.fingerprint):
 * the yield points then store what they announce in the task, and every step
 * folds the point it resumes from and the value its load is about to read into
 * the task's own hash. The value is read just before the task resumes: the
 * shim's load is the first thing the step does, so no other step comes between.
 */
#include <string.h>

#include "fingerprint.h"

__thread int msim__fp_on;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The task's hash before its first step: its name and CPU, not its index
 * (tasks created by tasks may be numbered in either order of two equivalent
 * schedules). */
static uint64_t task_seed(const struct msim_task *t)
{
	return mix(str_hash(t->name), t->cpu) | 1;
}

/* The value the load announced at addr is about to read: its bits, or for a
 * pointer whether it is NULL; 0 when the point gave no size (not a load). */
static uint64_t announced_value(const volatile void *addr, int kind)
{
	unsigned int size = (unsigned int)(kind >> MSIM__ACCESS_SIZE_SHIFT) & 0xff;
	int base = kind & MSIM__ACCESS_KIND_MASK;
	uint64_t v;

	if (!addr || (base != MSIM_ACCESS_LOAD && base != MSIM_ACCESS_RMW))
		return 0;
	switch (size) {
	case 1: v = __atomic_load_n((const volatile uint8_t *)addr, __ATOMIC_RELAXED); break;
	case 2: v = __atomic_load_n((const volatile uint16_t *)addr, __ATOMIC_RELAXED); break;
	case 4: v = __atomic_load_n((const volatile uint32_t *)addr, __ATOMIC_RELAXED); break;
	case 8: v = __atomic_load_n((const volatile uint64_t *)addr, __ATOMIC_RELAXED); break;
	default: return 0;
	}
	if (kind & MSIM__ACCESS_PTR)
		v = v != 0;
	return mix(v, size);
}

void msim__fp_step(struct msim *m, int pick, struct msim_task *t)
{
	(void)m, (void)pick;
	if (!t)
		return; /* the RCU engine reads nothing a task wrote that its steps do not */
	if (!t->fp_hash)
		t->fp_hash = task_seed(t);
	t->fp_hash = mix(t->fp_hash, (uint64_t)(uintptr_t)t->parked_at);
	t->fp_hash = mix(t->fp_hash, announced_value(t->fp_addr, t->fp_kind));
}

uint64_t msim__fp_run(const struct msim *m)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < m->nr_tasks; i++) {
		const struct msim_task *t = m->task_vec[i];
		sum += mix(t->fp_hash ? t->fp_hash : task_seed(t), 0x5bd1e995);
	}
	return sum;
}
