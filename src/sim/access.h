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
#include <stdint.h>

#include <memcgsim/yield.h>

#define MSIM__STEP_MAX_ACCESSES 6

struct msim__access {
	uintptr_t addr;
	uint8_t kind;             /* MSIM_ACCESS_LOAD, _STORE or _RMW */
};

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
/* The running task parks at a point announcing (addr, kind) for its next step. */
void msim__access_announce(const volatile void *addr, int kind);
/*
 * End of the step: its access set, and what the task's next step will touch (the
 * point it parked at announced it; a task that blocked without announcing keeps
 * the step's own set: it retries the same access). Recording stops.
 */
void msim__access_step_end(struct msim__step_access *step, struct msim__step_access *next);

/* One access of kind at addr, alone in a set (kind ANY: the set touches everything). */
void msim__access_set_one(struct msim__step_access *s, const volatile void *addr, int kind);
/* True when two steps' sets conflict: either is unknown, or both touch one address
 * and at least one of them writes it. */
bool msim__access_conflict(const struct msim__step_access *x, const struct msim__step_access *y);

#endif /* MSIM_SIM_ACCESS_H */
