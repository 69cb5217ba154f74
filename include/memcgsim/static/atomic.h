/* SPDX-License-Identifier: MIT */
/*
 * static/atomic.h - the full fence behind msim_smp_mb() (include <memcgsim/atomic.h>).
 */
#ifndef MEMCGSIM_STATIC_ATOMIC_H
#define MEMCGSIM_STATIC_ATOMIC_H

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

#endif /* MEMCGSIM_STATIC_ATOMIC_H */
