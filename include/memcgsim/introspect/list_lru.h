/* SPDX-License-Identifier: MIT */
/*
 * introspect/list_lru.h - what tests and scenarios read of the list_lru's
 * insides (list_lru.h): whether a memcg has its lists, a list's raw count, the
 * size of a list_lru_memcg, and the bits invariant. Not exported, not installed
 * (introspect.h says why).
 */
#ifndef MEMCGSIM_INTROSPECT_LIST_LRU_H
#define MEMCGSIM_INTROSPECT_LIST_LRU_H

#include <stdbool.h>
#include <stddef.h>

#include <memcgsim/list_lru.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether memcg has its lists on lru (memcg_list_lru_alloc ran for it). */
bool msim_memcg_list_lru_allocated(struct msim_memcg *memcg, struct msim_list_lru *lru);

/*
 * Raw per-memcg list count (no clamp: LONG_MIN for a dead list), and whether a
 * list exists. Returns 0 / false when no list.
 */
long msim_list_lru_nr_items_raw(struct msim_list_lru *lru, unsigned int nid,
				struct msim_memcg *memcg, bool *exists);

/* Bytes per list_lru_memcg: kmalloc_class(16 + 32 * nr_nodes). */
size_t msim_list_lru_memcg_bytes(unsigned int nr_nodes);

/*
 * Invariant check for tests and stress (call at quiescence): every per-memcg list
 * with items, on any memcg-aware list_lru of the host with a shrinker, belongs to
 * an online memcg whose bit is set. Returns the number of violations, and writes
 * the first as a one-line reason.
 */
unsigned long msim_list_lru_check_bits(struct msim *m, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_LIST_LRU_H */
