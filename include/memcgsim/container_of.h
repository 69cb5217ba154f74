/* SPDX-License-Identifier: MIT */
/*
 * container_of.h - from a pointer to a member back to the structure that holds it.
 */
#ifndef MEMCGSIM_CONTAINER_OF_H
#define MEMCGSIM_CONTAINER_OF_H

#include <stddef.h>

#define msim_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif /* MEMCGSIM_CONTAINER_OF_H */
