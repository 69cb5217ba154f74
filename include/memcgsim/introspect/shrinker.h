/* SPDX-License-Identifier: MIT */
/*
 * introspect/shrinker.h - what tests, scenarios and benches read of the
 * shrinker layer's insides (shrinker.h): the host's shrinker_info layout, a
 * memcg's bits, deferred counts and units, the bytes its info holds, the host's
 * counters; and the test knob of the id limit. Not exported, not installed
 * (introspect.h says why).
 */
#ifndef MEMCGSIM_INTROSPECT_SHRINKER_H
#define MEMCGSIM_INTROSPECT_SHRINKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/shrinker.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The host's layout (variant shrinker-info), its name, whether it installs units on demand. */
enum msim_shrinker_info_layout msim_shrinker_layout(struct msim *m);
const char *msim_shrinker_layout_name(enum msim_shrinker_info_layout l);
bool msim_shrinker_layout_on_demand(enum msim_shrinker_info_layout l);

/*
 * Lower the id limit of this host (tests of the -ENOSPC path). limit in
 * 1..MSIM_SHRINKER_ID_LIMIT; returns 0 or -EINVAL.
 */
int msim_shrinker_set_id_limit(struct msim *m, int limit);

/* A memcg's bit, deferred count and units. */
bool msim_shrinker_test_bit(struct msim_memcg *memcg, unsigned int nid, int id);
long msim_shrinker_memcg_nr_deferred(struct msim_memcg *memcg, unsigned int nid, int id);
/* A non-memcg-aware shrinker's own deferred count on nid. */
long msim_shrinker_nr_deferred(struct msim_shrinker *s, unsigned int nid);
bool msim_shrinker_has_unit(struct msim_memcg *memcg, unsigned int nid, int id);
unsigned long msim_shrinker_nr_units(struct msim_memcg *memcg, unsigned int nid);
/* Ids whose bit is set in memcg on nid, ascending, up to max; returns how many. */
size_t msim_shrinker_set_bits(struct msim_memcg *memcg, unsigned int nid, int *ids, size_t max);

/*
 * Bytes the kernel would hold for memcg's shrinker_info on all nodes: the
 * container (header class, 0 in the xarray layout but its xa_nodes) and the units
 * (class 1k, or the packed share of the unit cache).
 */
struct msim_shrinker_info_bytes {
	uint64_t container;   /* headers (array) or xa_nodes (xarray) */
	uint64_t units;
	unsigned long nr_units;
};
void msim_shrinker_info_bytes(struct msim_memcg *memcg, struct msim_shrinker_info_bytes *out);

/* Host-wide counters. */
struct msim_shrinker_stats {
	uint64_t registered;          /* live registered shrinkers */
	uint64_t allocated;           /* live allocated shrinkers */
	uint64_t expansions;          /* expand_shrinker_info runs that grew nr_max */
	uint64_t expand_memcg_visits; /* memcg x node headers reallocated by expansions */
	uint64_t units_installed;     /* on-demand installs */
	uint64_t units_lost;          /* installs found lost (freed by the model at teardown) */
	uint64_t bits_cleared;        /* clear_bit in shrink_slab_memcg */
	uint64_t bits_reset;          /* re-set after the recount */
	uint64_t count_calls, scan_calls;
	uint64_t misuse;              /* API misuse reports */
};
void msim_shrinker_stats(struct msim *m, struct msim_shrinker_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_SHRINKER_H */
