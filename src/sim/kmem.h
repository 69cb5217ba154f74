/* SPDX-License-Identifier: MIT */
/*
 * kmem.h - the kernel-memory model's lifetime (kmem.c), for host.c (the API is
 * <memcgsim/kmem.h>).
 */
#ifndef MSIM_SIM_KMEM_H
#define MSIM_SIM_KMEM_H

#include "internal.h"

/* Called by msim_create() and msim_destroy(). */
int msim__kmem_init(struct msim *m);
void msim__kmem_fini(struct msim *m);

#endif /* MSIM_SIM_KMEM_H */
