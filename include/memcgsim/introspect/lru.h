/* SPDX-License-Identifier: MIT */
/*
 * introspect/lru.h - what tests, scenarios and benches read of the LRU layer's
 * insides (lru.h): list lengths counted under the lock, a walk over a list, the
 * MGLRU PID controller's raw arrays and the layer's event counts. No race
 * window is named here. Not exported, not installed (introspect.h says why).
 */
#ifndef MEMCGSIM_INTROSPECT_LRU_H
#define MEMCGSIM_INTROSPECT_LRU_H

#include <memcgsim/lru.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Folios on a classic list (LRU_UNEVICTABLE: none, as in the kernel); *nr_pages their pages. */
unsigned long msim_lruvec_nr_folios(struct msim_lruvec *lruvec, enum msim_lru_list lru,
				    unsigned long *nr_pages);
/* Folios on lrugen->folios[gen][type][zone]; *nr_pages their pages. */
unsigned long msim_lru_gen_nr_folios(struct msim_lruvec *lruvec, unsigned int gen,
				     unsigned int type, enum msim_zone_type zone,
				     unsigned long *nr_pages);
/*
 * Call fn for each folio of a classic list from head (youngest) to tail (next
 * to be reclaimed), under the lock; fn must not change the lists. Returns the
 * count visited.
 */
unsigned long msim_lruvec_for_each_folio(struct msim_lruvec *lruvec, enum msim_lru_list lru,
					 void (*fn)(struct msim_folio *folio, void *arg),
					 void *arg);

/*
 * The PID controller's view of one type and tier (kernel: lrugen->evicted[],
 * refaulted[], protected[], avg_refaulted[], avg_total[] with NR_HIST_GENS 1).
 * protected is reported at the tier that was protected (6.12 stores it one
 * index down). Returns -EINVAL for a bad lruvec, type or tier.
 */
struct msim_lru_gen_tier {
	unsigned long evicted, refaulted, protected_pages;
	unsigned long avg_refaulted, avg_total;
};
int msim_lru_gen_tier_stats(struct msim_lruvec *lruvec, unsigned int type, unsigned int tier,
			    struct msim_lru_gen_tier *out);

struct msim_lru_counts {
	unsigned long folios_live;          /* allocated and not yet freed */
	unsigned long folios_allocated_total;
	unsigned long lru_size_underflows;  /* mem_cgroup_update_lru_size WARNs (reset to 0) */
	unsigned long lruvec_relock_retries;/* folio_lruvec_lock found the folio moved */
	unsigned long reparented_pages;     /* LRU pages moved to a parent at offline */
	unsigned long freed_nonempty;       /* lruvecs freed with folios still listed (a bug) */
};
void msim_lru_counts(struct msim *m, struct msim_lru_counts *out);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_LRU_H */
