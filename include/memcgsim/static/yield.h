/* SPDX-License-Identifier: MIT */
/*
 * static/yield.h - the inline fast path of msim_yield() (include <memcgsim/yield.h>).
 *
 * Headers under static/ hold the bodies of inline fast paths, as liburcu's
 * urcu/static/ does: the public header says what an operation means, this one how
 * it is made cheap. The two names below are part of the ABI only because the
 * inline body, compiled into the caller, needs them: call msim_yield(), never
 * them.
 *
 * Why it is cheap: a yield point outside deterministic tasks (concurrent mode, the
 * driver, benches) is one thread-local load and a branch predicted not taken.
 */
#ifndef MEMCGSIM_STATIC_YIELD_H
#define MEMCGSIM_STATIC_YIELD_H

#include <memcgsim/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 while a deterministic task runs on this thread (set by the scheduler). */
MSIM_API extern __thread int msim_yield_det_active;
/* Park the running task at the point called name and let the scheduler pick. */
MSIM_API void msim_yield_slowpath(const char *name);

static inline void msim_yield(const char *name)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_yield_slowpath(name);
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_STATIC_YIELD_H */
