/* SPDX-License-Identifier: MIT */
/*
 * static/atomic.h - the full fence behind msim_smp_mb(), and the fast paths of the
 * weak memory models (include <memcgsim/atomic.h>, which says what they mean).
 */
#ifndef MEMCGSIM_STATIC_ATOMIC_H
#define MEMCGSIM_STATIC_ATOMIC_H

#include <stdint.h>

#include <memcgsim/api.h>
#include <memcgsim/static/yield.h>

#if defined(__SANITIZE_THREAD__)
#define MSIM__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MSIM__TSAN 1
#endif
#endif

/*
 * A sequentially consistent fence. TSan does not model fences (GCC refuses them
 * under -fsanitize=thread): there a seq_cst read-modify-write of a shared word
 * stands in, which orders just as much on x86 and which TSan sees.
 */
static inline void msim__full_fence(void)
{
#ifdef MSIM__TSAN
	static long msim__fence_word;
	__atomic_fetch_add(&msim__fence_word, 0, __ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/*
 * Store buffers (sim.h enum msim_memory_model; docs/memory-model.md). 1 while a
 * deterministic task of a host whose memory model is not sc runs on this thread
 * (set by the scheduler, as msim_yield_det_active): under sc, and outside tasks,
 * every shim access pays this one load and a branch predicted not taken. The
 * _slowpath functions are ABI only because the inline shims need them.
 */
#ifdef __cplusplus
extern "C" {
#endif
MSIM_API extern __thread int msim_wmm_active MSIM__TLS_IE;
/* Buffer a store of size bytes at p: the value converted to *p's type, as bits
 * (mo: its C11 order; release and stronger drain after every older entry,
 * seq_cst is a full fence after it). */
MSIM_API void msim_wmm_store_slowpath(volatile void *p, unsigned int size, uint64_t bits, int mo);
/* Where a load of size bytes at p reads: this CPU's youngest buffered store to p, or p. */
MSIM_API void *msim_wmm_load_slowpath(const volatile void *p, unsigned int size);
/* Before a read-modify-write of p: drain what it orders (relaxed: it orders nothing
 * but its own address under pso; a locked instruction drains everything under tso). */
MSIM_API void msim_wmm_rmw_slowpath(const volatile void *p, unsigned int size, int relaxed);
/* A full fence: this CPU's buffer drains. */
MSIM_API void msim_wmm_fence_slowpath(void);
#ifdef __cplusplus
}
#endif

static inline void msim__wmm_rmw(const volatile void *p, unsigned int size, int relaxed)
{
	if (__builtin_expect(msim_wmm_active, 0))
		msim_wmm_rmw_slowpath(p, size, relaxed);
}

static inline void msim__wmm_fence(void)
{
	if (__builtin_expect(msim_wmm_active, 0))
		msim_wmm_fence_slowpath();
}

#endif /* MEMCGSIM_STATIC_ATOMIC_H */
