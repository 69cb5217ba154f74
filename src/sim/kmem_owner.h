/* SPDX-License-Identifier: MIT */
/*
 * kmem_owner.h - the owner table (kmem_owner.c).
 */
#ifndef MSIM_SIM_KMEM_OWNER_H
#define MSIM_SIM_KMEM_OWNER_H

#include <stdint.h>

#include "kmem_internal.h"

/* The record index of owner string p (KMEM_OWNER_NONE for NULL); adds it if new. */
uint16_t msim__kmem_owner_index(struct msim_kmem *k, const char *p);
/* The record whose text is name, or -1. */
int msim__kmem_owner_record_find(struct msim_kmem *k, const char *name);

#endif /* MSIM_SIM_KMEM_OWNER_H */
