/* SPDX-License-Identifier: MIT */
/*
 * memcgsim.h - umbrella header of libmemcgsim, a userspace model of the Linux
 * memory-cgroup statistics (rstat) and shrinker subsystems: every public header,
 * from the simulated machine up.
 */
#ifndef MEMCGSIM_H
#define MEMCGSIM_H

/* The simulated machine (src/sim). */
#include <memcgsim/api.h>
#include <memcgsim/variants.h>
#include <memcgsim/sim.h>
#include <memcgsim/subsys.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/lockdep.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/irq.h>
#include <memcgsim/kmem.h>
/* Compatibility umbrellas of the above. */
/* Kernel-library equivalents (src/lib). */
#include <memcgsim/xarray.h>
#include <memcgsim/idr.h>
#include <memcgsim/list.h>
/* The layers. */
#include <memcgsim/memcg.h>
#include <memcgsim/objcg.h>
#include <memcgsim/charge.h>
#include <memcgsim/rstat.h>
#include <memcgsim/mmzone.h>
#include <memcgsim/folio.h>
#include <memcgsim/lru.h>
#include <memcgsim/list_lru.h>
#include <memcgsim/shrinker.h>
#include <memcgsim/vmstat.h>
#include <memcgsim/workingset.h>
#include <memcgsim/zswap.h>
#include <memcgsim/damon.h>
/* The race engine. */
#include <memcgsim/race.h>

#define MEMCGSIM_VERSION_STRING "0.1.0"

#endif /* MEMCGSIM_H */
