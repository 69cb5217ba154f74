/* SPDX-License-Identifier: MIT */
/*
 * kmem_size.h - slab geometry for kmem.c (kmem_size.c); msim_kmalloc_size() and
 * msim_slub_calculate_order() are public (<memcgsim/kmem.h>).
 */
#ifndef MSIM_SIM_KMEM_SIZE_H
#define MSIM_SIM_KMEM_SIZE_H

#include <stddef.h>

#include "kmem_internal.h"

/* kernel: mm/slub.c calculate_sizes(): the bytes one object occupies in its slab. */
size_t msim__slub_slot_size(size_t object_size, unsigned int flags);

#endif /* MSIM_SIM_KMEM_SIZE_H */
