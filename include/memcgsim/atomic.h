/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - shared-memory accesses: READ_ONCE/WRITE_ONCE, atomic_long_t, bit
 * operations, smp_mb(), and the quiet atomics of the simulator's bookkeeping.
 *
 * Every access is a GCC __atomic builtin (the C11 memory model, which TSan sees).
 * There are three families, and the family tells a reader whether a race can
 * turn on the access:
 *
 *  1. Kernel vocabulary, a yield point with a generic name:
 *       msim_read_once(p)  msim_atomic_long_add(a, v)  msim_set_bit(nr, addr) ...
 *     Use them for shared state of the modelled kernel when no scripted race
 *     needs to stop at this very access.
 *
 *  2. The same operations with the race window named, suffix _at(..., point):
 *       msim_atomic_long_add_at(&vs->stats_updates, n, "rstat.update.atomic_add")
 *     and, for any scalar or pointer type with an explicit memory order,
 *       msim_load_at(p, mo, point)       msim_store_at(p, v, mo, point)
 *       msim_xchg_at(p, v, mo, point)    msim_try_cmpxchg_at(p, oldp, new, mo, mo_fail, point)
 *       msim_fetch_add_at / msim_add_return_at / msim_fetch_sub_at /
 *       msim_sub_return_at / msim_fetch_or_at / msim_fetch_and_at (p, v, mo, point)
 *     Use them where a race is described by the window (a scenario, a test that
 *     calls msim_run_until(m, t, point, n), docs/races.md). The generic form
 *     replaces the pair "msim_yield(point); __atomic_op(p, ..., mo);" with the
 *     same point and the same builtin, so converting it changes no schedule.
 *
 *  3. Quiet atomics, NOT a yield point: msim_quiet_load(p, mo), msim_quiet_store,
 *     msim_quiet_xchg, msim_quiet_try_cmpxchg(_weak), msim_quiet_fetch_add, ...
 *     For the simulator's bookkeeping: reference counts of model objects that no
 *     race is about, statistics counters, lazily installed per-host pointers,
 *     flags that only make a report. Each expands to exactly the __atomic builtin
 *     of the same name and order, so replacing a raw builtin with its quiet form
 *     changes neither the generated code nor any schedule. Raw __atomic builtins
 *     belong inside src/sim only.
 *
 * Why the yield comes first: in deterministic mode the scheduler may switch at
 * the yield point, and the access itself is indivisible, so another CPU can run
 * between any two shim operations but never inside one. A kernel operation that
 * is not indivisible against other CPUs (this_cpu_add_return against a remote
 * store, race R1) is modelled as several accesses with a yield between them
 * (percpu.h).
 *
 * Memory orders (MSIM_RELAXED ... MSIM_SEQ_CST) are the C11 ones. The kernel
 * vocabulary uses the kernel's: READ_ONCE, WRITE_ONCE, atomic_long_read/set/add
 * and test_bit are relaxed; value-returning read-modify-writes (add_return, xchg,
 * cmpxchg) are fully ordered; set_bit and clear_bit use a seq_cst builtin too,
 * but order nothing else under memory model pso, as in the kernel (below).
 *
 * Under a weak memory model (sim.h msim_memory_model, docs/memory-model.md) the
 * stores of deterministic tasks wait in per-CPU store buffers: msim_store_at
 * and everything built on it (WRITE_ONCE, atomic_long_set, rcu_assign_pointer,
 * this_cpu stores); loads read their own CPU's buffer first; fences and
 * ordering read-modify-writes drain it. Quiet atomics bypass the buffers.
 */
#ifndef MEMCGSIM_ATOMIC_H
#define MEMCGSIM_ATOMIC_H

#include <stdbool.h>

#include <memcgsim/yield.h>
#include <memcgsim/static/atomic.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSIM_RELAXED __ATOMIC_RELAXED
#define MSIM_ACQUIRE __ATOMIC_ACQUIRE
#define MSIM_RELEASE __ATOMIC_RELEASE
#define MSIM_ACQ_REL __ATOMIC_ACQ_REL
#define MSIM_SEQ_CST __ATOMIC_SEQ_CST

/* ---- 3. quiet atomics: bookkeeping, never a yield point ---- */

#define msim_quiet_load(p, mo) __atomic_load_n((p), (mo))
#define msim_quiet_store(p, v, mo) __atomic_store_n((p), (v), (mo))
#define msim_quiet_xchg(p, v, mo) __atomic_exchange_n((p), (v), (mo))
/* Returns true and stores new_ if *p == *oldp; else loads *p into *oldp. */
#define msim_quiet_try_cmpxchg(p, oldp, new_, mo, mo_fail) \
	__atomic_compare_exchange_n((p), (oldp), (new_), false, (mo), (mo_fail))
/* May fail spuriously: only inside a loop that retries. */
#define msim_quiet_try_cmpxchg_weak(p, oldp, new_, mo, mo_fail) \
	__atomic_compare_exchange_n((p), (oldp), (new_), true, (mo), (mo_fail))
/* fetch_*: the value before; *_return: the value after (the kernel's names). */
#define msim_quiet_fetch_add(p, v, mo) __atomic_fetch_add((p), (v), (mo))
#define msim_quiet_fetch_sub(p, v, mo) __atomic_fetch_sub((p), (v), (mo))
#define msim_quiet_fetch_or(p, v, mo) __atomic_fetch_or((p), (v), (mo))
#define msim_quiet_fetch_and(p, v, mo) __atomic_fetch_and((p), (v), (mo))
#define msim_quiet_add_return(p, v, mo) __atomic_add_fetch((p), (v), (mo))
#define msim_quiet_sub_return(p, v, mo) __atomic_sub_fetch((p), (v), (mo))

/* ---- 2. generic named shims: a yield point called point, then the access ---- */

/*
 * Under a weak memory model (sim.h msim_memory_model) a store goes into the
 * CPU's store buffer, a load reads that buffer's youngest store to the address
 * first, and a read-modify-write first drains what it orders (msim__wmm_rmw: a
 * relaxed one only its own address under pso, a locked instruction everything
 * under tso). Under sc each costs one branch more than the builtin.
 */
#define msim_load_at(p, mo, point) \
	(msim_yield_access(point, p, MSIM_ACCESS_LOAD | MSIM_ACCESS_VAL(p)), \
	 msim_quiet_load(__builtin_expect(msim_wmm_active, 0) \
			 ? (__typeof__(p))msim_wmm_load_slowpath((p), sizeof(*(p))) : (p), mo))
#define msim_store_at(p, v, mo, point) \
	(msim_yield_access(point, p, MSIM_ACCESS_STORE |                   \
			   ((int)sizeof(*(p)) << MSIM__ACCESS_SIZE_SHIFT)), \
	 __builtin_expect(msim_wmm_active, 0) \
		 ? msim_wmm_store_slowpath((p), sizeof(*(p)), \
					   (uint64_t)(uintptr_t)(__typeof__(*(p)))(v), (mo)) \
		 : msim_quiet_store(p, v, mo))
#define msim__rmw_at(p, mo, point) \
	(msim_yield_access(point, p, MSIM_ACCESS_RMW | MSIM_ACCESS_VAL(p)), \
	 msim__wmm_rmw((p), sizeof(*(p)), (mo) == MSIM_RELAXED))
#define msim_xchg_at(p, v, mo, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_xchg(p, v, mo))
#define msim_try_cmpxchg_at(p, oldp, new_, mo, mo_fail, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_try_cmpxchg(p, oldp, new_, mo, mo_fail))
#define msim_fetch_add_at(p, v, mo, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_fetch_add(p, v, mo))
#define msim_fetch_sub_at(p, v, mo, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_fetch_sub(p, v, mo))
#define msim_fetch_or_at(p, v, mo, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_fetch_or(p, v, mo))
#define msim_fetch_and_at(p, v, mo, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_fetch_and(p, v, mo))
#define msim_add_return_at(p, v, mo, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_add_return(p, v, mo))
#define msim_sub_return_at(p, v, mo, point) \
	(msim__rmw_at(p, mo, point), msim_quiet_sub_return(p, v, mo))

/* ---- READ_ONCE / WRITE_ONCE ---- */

static inline long msim_read_once_at(const long *p, const char *point)
{
	return msim_load_at(p, MSIM_RELAXED, point);
}

static inline void msim_write_once_at(long *p, long v, const char *point)
{
	msim_store_at(p, v, MSIM_RELAXED, point);
}

static inline unsigned long msim_read_once_ul_at(const unsigned long *p, const char *point)
{
	return msim_load_at(p, MSIM_RELAXED, point);
}

static inline void msim_write_once_ul_at(unsigned long *p, unsigned long v, const char *point)
{
	msim_store_at(p, v, MSIM_RELAXED, point);
}

static inline long msim_read_once(const long *p)
{
	return msim_read_once_at(p, "read_once");
}

static inline void msim_write_once(long *p, long v)
{
	msim_write_once_at(p, v, "write_once");
}

static inline unsigned long msim_read_once_ul(const unsigned long *p)
{
	return msim_read_once_ul_at(p, "read_once");
}

static inline void msim_write_once_ul(unsigned long *p, unsigned long v)
{
	msim_write_once_ul_at(p, v, "write_once");
}

/* ---- atomic_long_t ---- */

typedef struct { long counter; } msim_atomic_long_t;

static inline long msim_atomic_long_read_at(const msim_atomic_long_t *a, const char *point)
{
	return msim_load_at(&a->counter, MSIM_RELAXED, point);
}

static inline void msim_atomic_long_set_at(msim_atomic_long_t *a, long v, const char *point)
{
	msim_store_at(&a->counter, v, MSIM_RELAXED, point);
}

static inline void msim_atomic_long_add_at(msim_atomic_long_t *a, long v, const char *point)
{
	msim_fetch_add_at(&a->counter, v, MSIM_RELAXED, point);
}

static inline long msim_atomic_long_add_return_at(msim_atomic_long_t *a, long v,
						  const char *point)
{
	return msim_add_return_at(&a->counter, v, MSIM_SEQ_CST, point);
}

static inline long msim_atomic_long_xchg_at(msim_atomic_long_t *a, long v, const char *point)
{
	return msim_xchg_at(&a->counter, v, MSIM_SEQ_CST, point);
}

/* Returns true and stores new_ if *a == *old; else loads *a into *old. */
static inline bool msim_atomic_long_try_cmpxchg_at(msim_atomic_long_t *a, long *old, long new_,
						   const char *point)
{
	return msim_try_cmpxchg_at(&a->counter, old, new_, MSIM_SEQ_CST, MSIM_RELAXED, point);
}

static inline long msim_atomic_long_read(const msim_atomic_long_t *a)
{
	return msim_atomic_long_read_at(a, "atomic_read");
}

static inline void msim_atomic_long_set(msim_atomic_long_t *a, long v)
{
	msim_atomic_long_set_at(a, v, "atomic_set");
}

static inline void msim_atomic_long_add(msim_atomic_long_t *a, long v)
{
	msim_atomic_long_add_at(a, v, "atomic_add");
}

static inline long msim_atomic_long_add_return(msim_atomic_long_t *a, long v)
{
	return msim_atomic_long_add_return_at(a, v, "atomic_add_return");
}

static inline long msim_atomic_long_xchg(msim_atomic_long_t *a, long v)
{
	return msim_atomic_long_xchg_at(a, v, "atomic_xchg");
}

static inline bool msim_atomic_long_try_cmpxchg(msim_atomic_long_t *a, long *old, long new_)
{
	return msim_atomic_long_try_cmpxchg_at(a, old, new_, "atomic_cmpxchg");
}

/* ---- bit operations on unsigned long words (set_bit, clear_bit, test_bit) ---- */

#define MSIM_BITS_PER_LONG 64

/*
 * set_bit/clear_bit return nothing, so the kernel memory model orders nothing
 * around them (smp_mb__before_atomic/after_atomic do): under pso they drain only
 * their own word (msim__wmm_rmw relaxed); x86's are locked, so under tso they
 * drain the whole buffer. The builtin stays seq_cst (the code TSan sees).
 */
static inline void msim_set_bit_at(unsigned int nr, unsigned long *addr, const char *point)
{
	unsigned long *w = &addr[nr / MSIM_BITS_PER_LONG];

	msim_yield_access(point, w, MSIM_ACCESS_RMW);
	msim__wmm_rmw(w, sizeof(*w), 1);
	msim_quiet_fetch_or(w, 1UL << (nr % MSIM_BITS_PER_LONG), MSIM_SEQ_CST);
}

static inline void msim_clear_bit_at(unsigned int nr, unsigned long *addr, const char *point)
{
	unsigned long *w = &addr[nr / MSIM_BITS_PER_LONG];

	msim_yield_access(point, w, MSIM_ACCESS_RMW);
	msim__wmm_rmw(w, sizeof(*w), 1);
	msim_quiet_fetch_and(w, ~(1UL << (nr % MSIM_BITS_PER_LONG)), MSIM_SEQ_CST);
}

static inline bool msim_test_bit_at(unsigned int nr, const unsigned long *addr,
				    const char *point)
{
	return (msim_load_at(&addr[nr / MSIM_BITS_PER_LONG], MSIM_RELAXED, point) >>
		(nr % MSIM_BITS_PER_LONG)) & 1;
}

static inline void msim_set_bit(unsigned int nr, unsigned long *addr)
{
	msim_set_bit_at(nr, addr, "set_bit");
}

static inline void msim_clear_bit(unsigned int nr, unsigned long *addr)
{
	msim_clear_bit_at(nr, addr, "clear_bit");
}

static inline bool msim_test_bit(unsigned int nr, const unsigned long *addr)
{
	return msim_test_bit_at(nr, addr, "test_bit");
}

/* ---- smp_mb(): a full fence, and a yield point, as the kernel's barriers are windows ---- */

static inline void msim_smp_mb_at(const char *point)
{
	msim_yield_access(point, 0, MSIM_ACCESS_FENCE);
	msim__wmm_fence();   /* this CPU's store buffer drains (weak models) */
	msim__full_fence();
}

static inline void msim_smp_mb(void)
{
	msim_smp_mb_at("smp_mb");
}

/*
 * smp_mb() with no yield point of its own: for a barrier a model adds where the
 * kernel has none (a fix under study, rstat.h params.smp_mb_pair), so that
 * switching it on changes no schedule. It drains this CPU's store buffer under
 * a weak memory model; under sc it is only the fence.
 */
static inline void msim_smp_mb_quiet(void)
{
	msim__wmm_fence();
	msim__full_fence();
}

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_ATOMIC_H */
