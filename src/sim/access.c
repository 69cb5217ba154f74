/* SPDX-License-Identifier: MIT */
/*
 * access.c - recording what a scheduler step touches (access.h).
 *
 * Thread-local, because tasks are coroutines on the driver's thread: the driver
 * begins a step, the task runs and notes, the driver ends the step.
 */
#include <string.h>

#include <memcgsim/static/yield.h>

#include "access.h"

__thread int msim__access_on;
static __thread struct msim__step_access cur_step;
static __thread struct msim__step_access cur_next;
static __thread bool cur_announced;
/* Inside an RCU callback the engine's step runs (access.h): how deep, and whether
 * the outermost one said it keeps the annotation contract. */
static __thread unsigned int cb_depth;
static __thread bool cb_noted;
static __thread int cb_saved_det;
static __thread const struct msim_yield_ctx *cb_saved_ctx;

static void set_add(struct msim__step_access *s, uintptr_t addr, size_t len, int kind)
{
	kind &= MSIM__ACCESS_KIND_MASK; /* the value bits are for fingerprints only */
	if (kind == MSIM_ACCESS_NONE || kind == MSIM_ACCESS_FENCE)
		return; /* nothing shared: the step may commute with anything */
	if (kind == MSIM_ACCESS_ANY || s->n == MSIM__STEP_MAX_ACCESSES || len > UINT32_MAX) {
		s->any = true;
		return;
	}
	if (!len)
		len = 1;
	for (unsigned int i = 0; i < s->n; i++) {
		if (s->a[i].addr == addr && s->a[i].len == len) {
			s->a[i].kind |= (uint8_t)kind; /* LOAD | STORE is RMW */
			return;
		}
	}
	s->a[s->n].addr = addr;
	s->a[s->n].len = (uint32_t)len;
	s->a[s->n].kind = (uint8_t)kind;
	s->n++;
}

/* The operand size a shim's kind carries (MSIM_ACCESS_VAL), 1 when none. */
static size_t kind_len(int kind)
{
	size_t size = (size_t)(kind >> MSIM__ACCESS_SIZE_SHIFT) & 0xff;

	return size ? size : 1;
}

/*
 * An empty set. Only a[0..n) is ever read (msim__access_copy() copies only
 * those), so the rest stays as it was: clearing all 264 bytes at every yield
 * point a DPOR run announces was a few per cent of its time (docs/explore.md).
 */
static void set_clear(struct msim__step_access *s)
{
	s->n = 0;
	s->any = false;
}

void msim__access_set_one(struct msim__step_access *s, const volatile void *addr, int kind)
{
	set_clear(s);
	set_add(s, (uintptr_t)addr, kind_len(kind), kind);
}

void msim__access_add(struct msim__step_access *s, const volatile void *addr, size_t len, int kind)
{
	set_add(s, (uintptr_t)addr, len, kind);
}

void msim__access_set_range(struct msim__step_access *s, const volatile void *addr, size_t len,
			    int kind)
{
	set_clear(s);
	set_add(s, (uintptr_t)addr, len, kind);
}

void msim__access_step_begin(const struct msim__step_access *announced)
{
	msim__access_copy(&cur_step, announced);
	cur_announced = false;
	msim__access_on = 1;
}

void msim__access_note(const volatile void *addr, int kind)
{
	if (msim__access_on)
		set_add(&cur_step, (uintptr_t)addr, kind_len(kind), kind);
}

void msim__access_note_range(const volatile void *addr, size_t len, int kind)
{
	if (msim__access_on && len)
		set_add(&cur_step, (uintptr_t)addr, len, kind);
}

/* The public form (yield.h): only deterministic tasks get here. */
void msim_access_note_slowpath(const volatile void *addr, unsigned long len, int kind)
{
	msim__access_note_range(addr, len, kind);
}

/*
 * Yield points are live only while msim_yield_det_active is set: inside a
 * recorded callback it is, with no task running, so the points note (sched.c)
 * and msim_access_note() reaches the step. Every slow path the flag opens checks
 * for a task before it touches one, so the callback behaves as it does unrecorded.
 */
void msim__access_callback_begin(void)
{
	if (!msim__access_on)
		return;
	if (cb_depth++) {
		/* a callback that drives the engine itself (kfree_rcu's fallback
		 * synchronize_rcu): callbacks inside callbacks, anything */
		set_add(&cur_step, 0, 1, MSIM_ACCESS_ANY);
		return;
	}
	cb_noted = false;
	cb_saved_det = msim_yield_det_active;
	cb_saved_ctx = msim_yield_ctx_current;
	msim_yield_det_active = 1;
}

void msim__access_callback_end(void)
{
	if (!cb_depth || --cb_depth)
		return;
	if (!cb_noted)
		set_add(&cur_step, 0, 1, MSIM_ACCESS_ANY); /* not annotated: anything */
	msim_yield_det_active = cb_saved_det;
	msim_yield_ctx_current = cb_saved_ctx;
}

bool msim__access_in_callback(void)
{
	return cb_depth > 0;
}

void msim__access_callback_noted(void)
{
	if (cb_depth == 1)
		cb_noted = true;
}

void msim__access_announce(const volatile void *addr, int kind)
{
	if (!msim__access_on)
		return;
	msim__access_set_one(&cur_next, addr, kind);
	cur_announced = true;
}

void msim__access_step_end(struct msim__step_access *step, struct msim__step_access *next)
{
	msim__access_copy(step, &cur_step);
	msim__access_copy(next, cur_announced ? &cur_next : &cur_step);
	msim__access_on = 0;
}

bool msim__access_conflict(const struct msim__step_access *x, const struct msim__step_access *y)
{
	if (x->any || y->any)
		return true;
	for (unsigned int i = 0; i < x->n; i++)
		for (unsigned int j = 0; j < y->n; j++)
			if (msim__access_overlap(&x->a[i], &y->a[j]) &&
			    ((x->a[i].kind | y->a[j].kind) & MSIM_ACCESS_STORE))
				return true;
	return false;
}
