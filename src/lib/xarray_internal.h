/* SPDX-License-Identifier: MIT */
/*
 * xarray_internal.h - the node layout and entry tagging of src/lib/xarray.c,
 * shared with the id allocator. Layers above lib use include/memcgsim/xarray.h.
 */
#ifndef MSIM_LIB_XARRAY_INTERNAL_H
#define MSIM_LIB_XARRAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/xarray.h>

/*
 * kernel: include/linux/xarray.h struct xa_node, without marks and without the
 * rcu_head (the node is freed through kfree_rcu, whose record lives apart).
 * Charged as the kernel's 576-byte object; this layout is smaller (checked).
 */
struct msim_xa_node {
	unsigned char shift;      /* bits of the index below this node's slots */
	unsigned char offset;     /* slot in the parent */
	unsigned char count;      /* present slots: entries or child nodes */
	unsigned char nr_values;  /* value entries among them */
	struct msim_xa_node *parent;
	struct msim_xarray *array;
	void *slots[MSIM_XA_CHUNK_SIZE];
};

/* kernel: xa_is_internal(), xa_mk_node(), xa_is_node(), xa_to_node() */
static inline bool msim__xa_is_internal(const void *entry)
{
	return ((uintptr_t)entry & 3) == 2;
}

static inline bool msim__xa_is_node(const void *entry)
{
	return msim__xa_is_internal(entry) && (uintptr_t)entry > 4096;
}

static inline void *msim__xa_mk_node(const struct msim_xa_node *node)
{
	return (void *)((uintptr_t)node | 2);
}

static inline struct msim_xa_node *msim__xa_to_node(const void *entry)
{
	return (struct msim_xa_node *)((uintptr_t)entry - 2);
}

#endif /* MSIM_LIB_XARRAY_INTERNAL_H */
