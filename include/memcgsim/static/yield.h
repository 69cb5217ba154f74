/* SPDX-License-Identifier: MIT */
/*
 * static/yield.h - the inline fast path of msim_yield() (include <memcgsim/yield.h>).
 *
 * Headers under static/ hold the bodies of inline fast paths, as liburcu's
 * urcu/static/ does: the public header says what an operation means, this one how
 * it is made cheap. The two msim__ names below are internal, exported only because
 * the inline body needs them; nothing outside this header may use them.
 *
 * Why it is cheap: a yield point outside deterministic tasks (concurrent mode, the
 * driver, benches) is one thread-local load and a branch predicted not taken.
 */
#ifndef MEMCGSIM_STATIC_YIELD_H
#define MEMCGSIM_STATIC_YIELD_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 while a deterministic task runs on this thread (set by the scheduler). */
extern __thread int msim__det_active;
/* Park the running task at the point called name and let the scheduler pick. */
void msim__yield_slow(const char *name);

static inline void msim_yield(const char *name)
{
	if (__builtin_expect(msim__det_active, 0))
		msim__yield_slow(name);
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_STATIC_YIELD_H */
