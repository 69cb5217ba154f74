/* SPDX-License-Identifier: MIT */
/*
 * host.h - internals of struct msim shared by the files of src/sim.
 * Layers above sim use only the public headers.
 */
#ifndef MSIM_SIM_HOST_H
#define MSIM_SIM_HOST_H

#include <memcgsim/sim.h>
#include <memcgsim/subsys.h>
#include <memcgsim/sched.h>
#include <memcgsim/sync.h>
#include <memcgsim/kmem.h>


struct msim_kmem;              /* src/sim/kmem.c */
struct msim_sched;             /* src/sim/sched.c */

/* Kernel-memory model lifetime, called by msim_create()/msim_destroy(). */
int msim__kmem_init(struct msim *m);
void msim__kmem_fini(struct msim *m);
/* Where the kernel-memory model keeps its per-host state (implemented in host.c). */
struct msim_kmem **msim__kmem_slot(struct msim *m);

#endif /* MSIM_SIM_HOST_H */
