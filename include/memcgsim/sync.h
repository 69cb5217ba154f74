/* SPDX-License-Identifier: MIT */
/*
 * sync.h - compatibility umbrella for the kernel's synchronisation vocabulary,
 * which now lives in one header per concept:
 *   atomic.h   READ_ONCE/WRITE_ONCE, atomic_long_t, bit operations, smp_mb(),
 *              named race windows (_at forms) and quiet bookkeeping atomics
 *   lock.h     spinlock_t / struct mutex
 *   rcu.h      read-side sections, grace periods, call_rcu, rcu_dereference
 *   percpu.h   per-CPU memory and this_cpu operations
 * It also includes sched.h, as it always did. New code includes the header it needs.
 */
#ifndef MEMCGSIM_SYNC_H
#define MEMCGSIM_SYNC_H

#include <memcgsim/sched.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>

#endif /* MEMCGSIM_SYNC_H */
