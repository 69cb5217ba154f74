/* SPDX-License-Identifier: MIT */
/*
 * sync.h - the kernel's synchronisation vocabulary, each operation a yield point.
 *
 * Shared variables use the GCC __atomic builtins (C11 memory model, seen by TSan).
 * Every operation on shared state yields *before* it acts, so in deterministic mode
 * the scheduler can interleave another CPU between any two operations, and the
 * operation itself is indivisible. A kernel per-CPU read-modify-write that is not
 * atomic against a remote store (this_cpu_add_return racing with a flusher's
 * WRITE_ONCE to that CPU's slot, race R1) is modelled as a load, a yield point and
 * a store: msim_this_cpu_add_return().
 *
 * Locks: in deterministic mode a contended lock blocks the task (the scheduler
 * picks another); a deadlock is reported with every blocked task and its lock. In
 * concurrent mode they are pthread mutexes (TSan sees them).
 *
 * RCU: concurrent mode uses liburcu (urcu-memb); deterministic mode uses the
 * scheduler's own grace-period model, so the explorer decides when grace periods
 * end and callbacks run (the 'R' step of sched.h).
 */
#ifndef MEMCGSIM_SYNC_H
#define MEMCGSIM_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sched.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- plain shared loads and stores (READ_ONCE / WRITE_ONCE) ---- */

static inline long msim_read_once(const long *p)
{
	msim_yield("read_once");
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void msim_write_once(long *p, long v)
{
	msim_yield("write_once");
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline unsigned long msim_read_once_ul(const unsigned long *p)
{
	msim_yield("read_once");
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void msim_write_once_ul(unsigned long *p, unsigned long v)
{
	msim_yield("write_once");
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* ---- atomic_long_t ---- */

typedef struct { long counter; } msim_atomic_long_t;

static inline long msim_atomic_long_read(const msim_atomic_long_t *a)
{
	msim_yield("atomic_read");
	return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
}

static inline void msim_atomic_long_set(msim_atomic_long_t *a, long v)
{
	msim_yield("atomic_set");
	__atomic_store_n(&a->counter, v, __ATOMIC_RELAXED);
}

static inline void msim_atomic_long_add(msim_atomic_long_t *a, long v)
{
	msim_yield("atomic_add");
	__atomic_fetch_add(&a->counter, v, __ATOMIC_RELAXED);
}

static inline long msim_atomic_long_add_return(msim_atomic_long_t *a, long v)
{
	msim_yield("atomic_add_return");
	return __atomic_add_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}

static inline long msim_atomic_long_xchg(msim_atomic_long_t *a, long v)
{
	msim_yield("atomic_xchg");
	return __atomic_exchange_n(&a->counter, v, __ATOMIC_SEQ_CST);
}

/* Returns true and stores new if *a == *old; else loads *a into *old. */
static inline bool msim_atomic_long_try_cmpxchg(msim_atomic_long_t *a, long *old, long new_)
{
	msim_yield("atomic_cmpxchg");
	return __atomic_compare_exchange_n(&a->counter, old, new_, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_RELAXED);
}

/* ---- bit operations on unsigned long words (set_bit, clear_bit, test_bit) ---- */

static inline void msim_set_bit(unsigned int nr, unsigned long *addr)
{
	msim_yield("set_bit");
	__atomic_fetch_or(&addr[nr / 64], 1UL << (nr % 64), __ATOMIC_SEQ_CST);
}

static inline void msim_clear_bit(unsigned int nr, unsigned long *addr)
{
	msim_yield("clear_bit");
	__atomic_fetch_and(&addr[nr / 64], ~(1UL << (nr % 64)), __ATOMIC_SEQ_CST);
}

static inline bool msim_test_bit(unsigned int nr, const unsigned long *addr)
{
	msim_yield("test_bit");
	return (__atomic_load_n(&addr[nr / 64], __ATOMIC_RELAXED) >> (nr % 64)) & 1;
}

#if defined(__SANITIZE_THREAD__)
#define MSIM__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MSIM__TSAN 1
#endif
#endif

/*
 * smp_mb(): a full fence; a yield point too, as the kernel's barriers are windows.
 * TSan does not model fences (GCC refuses them under -fsanitize=thread): there a
 * seq_cst read-modify-write of a shared word stands in, which orders just as much
 * on x86 and which TSan sees.
 */
static inline void msim_smp_mb(void)
{
	msim_yield("smp_mb");
#ifdef MSIM__TSAN
	static long msim__fence_word;
	__atomic_fetch_add(&msim__fence_word, 0, __ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* ---- per-CPU data ---- */

/*
 * Per-CPU allocation: one copy per possible CPU, each on its own cache lines.
 * Returns the base (CPU 0's copy, zeroed); msim_per_cpu_ptr() finds another CPU's.
 * The bytes are recorded in the kernel-memory model as per-CPU memory of owner.
 */
void *msim_alloc_percpu(struct msim *m, size_t size, const char *owner);
void msim_free_percpu(struct msim *m, void *base);
void *msim_per_cpu_ptr(const void *base, unsigned int cpu);

static inline void *msim_this_cpu_ptr(const void *base)
{
	return msim_per_cpu_ptr(base, msim_this_cpu());
}

/*
 * this_cpu_add_return on a long: a load, a yield point, a store. On x86 it is one
 * unlocked instruction, atomic against this CPU's interrupts but not against a
 * remote store into the same slot; modelling it as load-yield-store gives the
 * scheduler exactly that window (R1).
 */
static inline long msim_this_cpu_add_return(long *slot, long v)
{
	long n;

	msim_yield("this_cpu_rmw.load");
	n = __atomic_load_n(slot, __ATOMIC_RELAXED) + v;
	msim_yield("this_cpu_rmw.store");
	__atomic_store_n(slot, n, __ATOMIC_RELAXED);
	return n;
}

/* this_cpu_xchg: the same window (load, yield, store). */
static inline long msim_this_cpu_xchg(long *slot, long v)
{
	long old;

	msim_yield("this_cpu_rmw.load");
	old = __atomic_load_n(slot, __ATOMIC_RELAXED);
	msim_yield("this_cpu_rmw.store");
	__atomic_store_n(slot, v, __ATOMIC_RELAXED);
	return old;
}

/* this_cpu_add: only its own CPU writes the slot; a flusher only reads it. */
static inline void msim_this_cpu_add(long *slot, long v)
{
	msim_yield("this_cpu_add");
	__atomic_store_n(slot, __atomic_load_n(slot, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

/* ---- locks ---- */

struct msim_lock {
	const char *name;
	struct msim_task *owner;  /* deterministic mode */
	void *impl;               /* concurrent mode: a pthread mutex */
	uint64_t contended;       /* times a taker found it held */
};

/* A static name is enough; a lock needs msim_lock_init before use. */
void msim_lock_init(struct msim_lock *l, const char *name);
void msim_lock_destroy(struct msim_lock *l);
void msim_lock(struct msim_lock *l);
bool msim_trylock(struct msim_lock *l);
void msim_unlock(struct msim_lock *l);
bool msim_lock_held_by_me(const struct msim_lock *l);

/* The kernel's spinlock_t and struct mutex are the same model here. */
#define msim_spin_lock msim_lock
#define msim_spin_unlock msim_unlock
#define msim_mutex_lock msim_lock
#define msim_mutex_unlock msim_unlock

/* ---- RCU ---- */

struct msim_rcu_head {
	struct msim_rcu_head *next;
	void (*func)(struct msim_rcu_head *head);
	uint64_t gp_needed;   /* deterministic mode: grace period sequence to wait for */
	struct msim *host;
	char impl[16];        /* concurrent mode: liburcu's struct rcu_head */
};

void msim_rcu_read_lock(void);
void msim_rcu_read_unlock(void);
bool msim_rcu_read_lock_held(void);
void msim_synchronize_rcu(void);
void msim_call_rcu(struct msim_rcu_head *head, void (*func)(struct msim_rcu_head *head));
void msim_rcu_barrier(void);

/* rcu_dereference / rcu_assign_pointer on a void * slot. */
static inline void *msim_rcu_dereference(void *const *p)
{
	msim_yield("rcu_dereference");
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void msim_rcu_assign_pointer(void **p, void *v)
{
	msim_yield("rcu_assign_pointer");
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

#define msim_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_SYNC_H */
