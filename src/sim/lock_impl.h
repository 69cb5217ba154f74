/* SPDX-License-Identifier: MIT */
/*
 * lock_impl.h - what a struct msim_lock is in concurrent mode (lock_impl.c).
 */
#ifndef MSIM_SIM_LOCK_IMPL_H
#define MSIM_SIM_LOCK_IMPL_H

#include <stdbool.h>

struct msim__lock_impl;

/* A pthread mutex (struct mutex), or an MCS queued spinlock (spinlock_t). */
struct msim__lock_impl *msim__lock_impl_new(bool queued_spinlock);
void msim__lock_impl_free(struct msim__lock_impl *impl);
void msim__lock_impl_lock(struct msim__lock_impl *impl);
bool msim__lock_impl_trylock(struct msim__lock_impl *impl);
void msim__lock_impl_unlock(struct msim__lock_impl *impl);
/* A spinlock (spinning disables preemption) rather than a mutex (sleeping)? */
bool msim__lock_impl_spins(const struct msim__lock_impl *impl);

#endif /* MSIM_SIM_LOCK_IMPL_H */
