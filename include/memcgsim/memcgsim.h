/* SPDX-License-Identifier: MIT */
/*
 * memcgsim.h - umbrella header of libmemcgsim, a userspace model of the Linux
 * memory-cgroup statistics (rstat) and shrinker subsystems.
 */
#ifndef MEMCGSIM_H
#define MEMCGSIM_H

#include <memcgsim/variants.h>
#include <memcgsim/sim.h>
#include <memcgsim/sched.h>
#include <memcgsim/sync.h>
#include <memcgsim/kmem.h>
#include <memcgsim/xarray.h>
#include <memcgsim/idr.h>
#include <memcgsim/memcg.h>
#if __has_include(<memcgsim/rstat.h>)
#include <memcgsim/rstat.h>
#endif
#if __has_include(<memcgsim/list_lru.h>)
#include <memcgsim/list_lru.h>
#endif
#if __has_include(<memcgsim/shrinker.h>)
#include <memcgsim/shrinker.h>
#endif

#define MEMCGSIM_VERSION_STRING "0.1.0"

#endif /* MEMCGSIM_H */
