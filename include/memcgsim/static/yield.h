/* SPDX-License-Identifier: MIT */
/*
 * static/yield.h - the inline fast paths of msim_yield() and of the yield context
 * (include <memcgsim/yield.h>, which says what they mean).
 *
 * Headers under static/ hold the bodies of inline fast paths, as liburcu's
 * urcu/static/ does: the public header says what an operation means, this one how
 * it is made cheap. The names below with _slowpath or _det_active/_current in
 * them are part of the ABI only because the inline bodies, compiled into the
 * caller, need them: call msim_yield(), msim_cond_resched(), the preempt and the
 * context functions, never them.
 *
 * Why it is cheap: a yield point outside deterministic tasks (concurrent mode, the
 * driver, benches) is one thread-local load and a branch predicted not taken. The
 * context calls cost the same load and branch: outside a deterministic task no
 * one can ask where a task is parked, so the context is not even published.
 */
#ifndef MEMCGSIM_STATIC_YIELD_H
#define MEMCGSIM_STATIC_YIELD_H

#include <memcgsim/api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct msim_yield_ctx;

/*
 * Initial-exec TLS: in libmemcgsim.so the default (global-dynamic) model makes
 * every yield point call __tls_get_addr; initial-exec is one load through the
 * GOT. The price is a slot of static TLS, which glibc reserves for libraries
 * loaded at startup and, for a few bytes like these, for dlopen() too.
 */
#if defined(__GNUC__) && !defined(__APPLE__)
#define MSIM__TLS_IE __attribute__((tls_model("initial-exec")))
#else
#define MSIM__TLS_IE
#endif

/*
 * Nonzero while a deterministic task runs on this thread (set by the scheduler:
 * 2 when its host is in a fast mode, sched.h MSIM__DET_FAST); a shim tests it
 * as a truth value.
 */
MSIM_API extern __thread int msim_yield_det_active MSIM__TLS_IE;
/*
 * The running task's innermost yield context, NULL for none. Only a deterministic
 * task sets it; the scheduler saves it in the task when the task gives control
 * back and puts it back when the task resumes (tasks are coroutines that share
 * the driver's thread).
 */
MSIM_API extern __thread const struct msim_yield_ctx *msim_yield_ctx_current MSIM__TLS_IE;
/* Park the running task at the point called name and let the scheduler pick. */
MSIM_API void msim_yield_slowpath(const char *name);
/* The same, at a voluntary scheduling point (cond_resched). */
MSIM_API void msim_cond_resched_slowpath(const char *name);
/* A voluntary scheduling point that says what the step resumed from it touches first. */
MSIM_API void msim_cond_resched_access_slowpath(const char *name, const volatile void *addr,
						int kind);
/*
 * Park at the point called name, saying what the step that resumes here touches
 * first: addr with kind (MSIM_ACCESS_*, yield.h). Parks exactly as
 * msim_yield_slowpath does; only partial-order reduction reads the access.
 */
MSIM_API void msim_yield_access_slowpath(const char *name, const volatile void *addr, int kind);
/* The running step also touches [addr, addr + len) (partial-order reduction only). */
MSIM_API void msim_access_note_slowpath(const volatile void *addr, unsigned long len, int kind);
/* The running deterministic task's preempt_disable depth, one up or down. */
MSIM_API void msim_preempt_disable_slowpath(void);
MSIM_API void msim_preempt_enable_slowpath(void);
/* The running deterministic task's interrupt and bottom-half state (irq.h). */
MSIM_API unsigned long msim_local_irq_save_slowpath(void);
MSIM_API void msim_local_irq_restore_slowpath(unsigned long flags);
MSIM_API void msim_local_bh_slowpath(int delta);

static inline void msim_yield(const char *name)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_yield_slowpath(name);
}

static inline void msim_yield_access(const char *name, const volatile void *addr, int kind)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_yield_access_slowpath(name, addr, kind);
}

static inline void msim_access_note(const volatile void *addr, unsigned long len, int kind)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_access_note_slowpath(addr, len, kind);
}

static inline void msim_cond_resched(const char *name)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_cond_resched_slowpath(name);
}

static inline void msim_cond_resched_access(const char *name, const volatile void *addr, int kind)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_cond_resched_access_slowpath(name, addr, kind);
}

static inline void msim_preempt_disable(void)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_preempt_disable_slowpath();
}

static inline void msim_preempt_enable(void)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_preempt_enable_slowpath();
}

static inline unsigned long msim_local_irq_save(void)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		return msim_local_irq_save_slowpath();
	return 0;
}

static inline void msim_local_irq_restore(unsigned long flags)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_local_irq_restore_slowpath(flags);
}

static inline void msim_local_bh_disable(void)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_local_bh_slowpath(1);
}

static inline void msim_local_bh_enable(void)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_local_bh_slowpath(-1);
}

static inline const struct msim_yield_ctx *msim_yield_ctx_enter(const struct msim_yield_ctx *ctx)
{
	const struct msim_yield_ctx *prev = 0;

	if (__builtin_expect(msim_yield_det_active, 0)) {
		prev = msim_yield_ctx_current;
		msim_yield_ctx_current = ctx;
	}
	return prev;
}

static inline void msim_yield_ctx_leave(const struct msim_yield_ctx *prev)
{
	if (__builtin_expect(msim_yield_det_active, 0))
		msim_yield_ctx_current = prev;
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_STATIC_YIELD_H */
