/* SPDX-License-Identifier: MIT */
/*
 * access.h - what one scheduler step touches (access.c), for partial-order
 * reduction (explore_dpor.c).
 *
 * A step resumes a task at the yield point where it parked and runs it to its
 * next one. The point said what the step touches first (msim_yield_access,
 * yield.h); a shim whose shared access comes after its own yield point (a lock's
 * release, an RCU read-side exit, a grace-period request) notes it while the step
 * runs. Both end up in the step's access set. The recording is on only while a
 * DPOR run steps a task, so other strategies pay one branch per yield point.
 */
#ifndef MSIM_SIM_ACCESS_H
#define MSIM_SIM_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/yield.h>

/* A flush step folds one CPU's counters of a memcg into it and its parent: a
 * dozen ranges on a two-node host. More than this is "touches anything". */
#define MSIM__STEP_MAX_ACCESSES 16

/* Bytes [addr, addr + len) are touched; len is the shim's operand size, 1 when
 * the point did not say, or a range's length (msim_access_note, yield.h). */
struct msim__access {
	uintptr_t addr;
	uint32_t len;
	uint8_t kind;             /* MSIM_ACCESS_LOAD, _STORE or _RMW */
};

/* An access longer than a word: a range (ids compare ranges conservatively). */
#define MSIM__ACCESS_WORD 8

/* What one step touches. any: unknown, so it conflicts with every step. */
struct msim__step_access {
	struct msim__access a[MSIM__STEP_MAX_ACCESSES];
	uint8_t n;
	bool any;
};

/* 1 while a DPOR run steps a task on this thread. */
extern __thread int msim__access_on;

/* The set one step starts with: what the point it resumes from announced. */
void msim__access_step_begin(const struct msim__step_access *announced);
/* Note an access the running step makes (a no-op unless recording). */
void msim__access_note(const volatile void *addr, int kind);
/* Note that the running step touches [addr, addr + len) (a no-op unless recording). */
void msim__access_note_range(const volatile void *addr, size_t len, int kind);
/* The running task parks at a point announcing (addr, kind) for its next step. */
void msim__access_announce(const volatile void *addr, int kind);
/*
 * End of the step: its access set, and what the task's next step will touch (the
 * point it parked at announced it; a task that blocked without announcing keeps
 * the step's own set: it retries the same access). Recording stops.
 */
void msim__access_step_end(struct msim__step_access *step, struct msim__step_access *next);

/*
 * RCU callbacks (rcu_det.c) run inside the engine's step, outside any task. While
 * a DPOR run records that step, each callback runs between these two: its shims'
 * yield points note their access into the step (instead of announcing the next
 * step's: the callback goes on in the same step), a plain yield point notes
 * "anything", and a callback that did not say msim_rcu_callback_noted() (rcu.h)
 * makes the step touch anything when it returns. Both are no-ops unless recording.
 */
void msim__access_callback_begin(void);
void msim__access_callback_end(void);
/* The running callback keeps the annotation contract (yield.h). */
void msim__access_callback_noted(void);
/* True while a recorded engine step runs a callback. */
bool msim__access_in_callback(void);

/* One access of kind at addr, alone in a set (kind ANY: the set touches everything). */
void msim__access_set_one(struct msim__step_access *s, const volatile void *addr, int kind);
/* Add [addr, addr + len) touched with kind to s. */
void msim__access_add(struct msim__step_access *s, const volatile void *addr, size_t len, int kind);
/* [addr, addr + len) touched with kind, alone in a set. */
void msim__access_set_range(struct msim__step_access *s, const volatile void *addr, size_t len,
			    int kind);
/* True when two steps' sets conflict: either is unknown, or both touch one byte
 * and at least one of them writes it. */
bool msim__access_conflict(const struct msim__step_access *x, const struct msim__step_access *y);
/* dst = src, copying only the accesses src holds (a set is 264 bytes, most of
 * it unused; DPOR copies several per step). */
static inline void msim__access_copy(struct msim__step_access *dst,
				     const struct msim__step_access *src)
{
	dst->n = src->n;
	dst->any = src->any;
	for (unsigned int i = 0; i < src->n; i++)
		dst->a[i] = src->a[i];
}
/* True when accesses a and b overlap. */
static inline bool msim__access_overlap(const struct msim__access *a, const struct msim__access *b)
{
	return a->addr < b->addr + b->len && b->addr < a->addr + a->len;
}

#endif /* MSIM_SIM_ACCESS_H */
