/* SPDX-License-Identifier: MIT */
/*
 * folio.h - folios: the pages the LRU lists hold, and their memcg charge.
 *
 * A folio is anonymous or file-backed, of order 0 (one page) or more (a THP is
 * order 9, 512 pages), on one node and zone. Its memcg_data names its owner
 * (kernel: folio->memcg_data), per variant lru-reparent (lru.h):
 *  - objcg (mainline): a per-node object cgroup (objcg.h); folio_memcg() is
 *    objcg->memcg, so after the owner's offline it reads the parent, and an
 *    uncharge or a stat update lands there;
 *  - off (7.0): the memcg itself, pinned by a css reference; it stays the owner
 *    after offline, and the dead memcg cannot be freed while the folio lives.
 *
 * References (kernel: folio refcount): msim_folio_alloc() returns one for the
 * caller; being on an LRU list holds none; isolation holds one. The last
 * msim_folio_put() takes the folio off its LRU, uncharges it and frees it.
 *
 * The layer is the "lru" subsystem (lru.h): it must be attached to the host.
 */
#ifndef MEMCGSIM_FOLIO_H
#define MEMCGSIM_FOLIO_H

#include <memcgsim/api.h>

#include <stdbool.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcg.h>
#include <memcgsim/mmzone.h>
#include <memcgsim/objcg.h>
#include <memcgsim/rstat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSIM_HPAGE_PMD_ORDER 9    /* a PMD-sized THP: 512 pages */
#define MSIM_MAX_FOLIO_ORDER 10

enum msim_folio_type {
	MSIM_FOLIO_ANON = 0,      /* on the anon LRU lists */
	MSIM_FOLIO_FILE = 1,      /* page cache: on the file LRU lists */
};

struct msim_folio;

/*
 * Allocate a folio (not charged, not on an LRU) holding one reference for the
 * caller. Returns NULL with errno ENODEV (no lru subsystem on m), EINVAL (bad
 * order, node or zone, or a zone the node does not populate: no managed pages
 * configured, or DMA and DMA32 off node 0) or ENOMEM.
 */
MSIM_API struct msim_folio *msim_folio_alloc(struct msim *m, enum msim_folio_type type,
					     unsigned int order, unsigned int nid,
					     enum msim_zone_type zone);

/* kernel: folio_get() / folio_try_get() (fails once the count reached 0). */
MSIM_API void msim_folio_get(struct msim_folio *folio);
MSIM_API bool msim_folio_try_get(struct msim_folio *folio);
/* kernel: folio_put(): the last reference frees (defined with the LRU operations). */
MSIM_API void msim_folio_put(struct msim_folio *folio);
MSIM_API long msim_folio_ref_count(const struct msim_folio *folio);

MSIM_API struct msim *msim_folio_host(const struct msim_folio *folio);
MSIM_API unsigned int msim_folio_order(const struct msim_folio *folio);
MSIM_API long msim_folio_nr_pages(const struct msim_folio *folio);
MSIM_API unsigned int msim_folio_nid(const struct msim_folio *folio);
MSIM_API enum msim_zone_type msim_folio_zonenum(const struct msim_folio *folio);
MSIM_API bool msim_folio_is_file_lru(const struct msim_folio *folio);

/* Page flags (kernel: PG_lru, PG_active, PG_referenced, PG_workingset, ...). */
MSIM_API bool msim_folio_test_lru(const struct msim_folio *folio);
MSIM_API bool msim_folio_test_active(const struct msim_folio *folio);
MSIM_API bool msim_folio_test_referenced(const struct msim_folio *folio);
MSIM_API bool msim_folio_test_workingset(const struct msim_folio *folio);
MSIM_API bool msim_folio_test_unevictable(const struct msim_folio *folio);
MSIM_API bool msim_folio_test_mlocked(const struct msim_folio *folio);
/* kernel: folio_set_referenced(): an access the next reclaim pass sees. */
MSIM_API void msim_folio_set_referenced(struct msim_folio *folio);
/* Before msim_folio_add_lru() only (a refault sets them, workingset_refault). */
MSIM_API void msim_folio_set_active(struct msim_folio *folio);
MSIM_API void msim_folio_set_workingset(struct msim_folio *folio);
/*
 * Before msim_folio_add_lru() only: an mlocked folio is not evictable, so adding
 * it puts it on LRU_UNEVICTABLE (kernel: lru_add() and folio_evictable()).
 */
MSIM_API void msim_folio_set_mlocked(struct msim_folio *folio);
/*
 * Page tables (the kernel keeps this in PTEs and VMAs, not in folio->flags): the
 * folio is mapped (a fault mapped it; exec: into a VM_EXEC vma) with its PTE's
 * accessed bit set; mark_young is a later access through that PTE. rmap's
 * folio_referenced() tests and clears the accessed bit in reclaim. A folio read
 * through a file descriptor is never mapped and is marked with
 * msim_folio_mark_accessed() (lru.h) instead.
 */
MSIM_API void msim_folio_map(struct msim_folio *folio, bool exec);
MSIM_API void msim_folio_mark_young(struct msim_folio *folio);
MSIM_API bool msim_folio_mapped(const struct msim_folio *folio);
MSIM_API bool msim_folio_test_young(const struct msim_folio *folio);
/* MGLRU: the generation index the folio is on, or -1 (kernel: folio_lru_gen()). */
MSIM_API int msim_folio_lru_gen(const struct msim_folio *folio);

/* A pointer for the folio's owner (page cache, swap cache) to find its data. */
MSIM_API void *msim_folio_private(const struct msim_folio *folio);
MSIM_API void msim_folio_set_private(struct msim_folio *folio, void *private_data);

/* ---- the memcg charge ---- */

/*
 * kernel: charge_memcg() (from mem_cgroup_charge()): objcg: the reference of
 * get_obj_cgroup_from_memcg() for the folio's node, try_charge() unless that
 * objcg is the root's, commit_charge(folio, objcg); off: try_charge(), css_get,
 * commit_charge(folio, memcg). Returns 0, -ENOMEM (limit; gfp allows failure),
 * -EBUSY for a folio already charged, -EINVAL.
 */
MSIM_API int msim_mem_cgroup_charge(struct msim_folio *folio, struct msim_memcg *memcg, unsigned int gfp);

/*
 * kernel: mem_cgroup_uncharge() -> uncharge_folio() + uncharge_batch(): the
 * memcg its memcg_data names now (objcg: after offline, the parent) is
 * uncharged unless the objcg is the root's; the reference is dropped. The folio
 * must be off the LRU. Nothing happens for an uncharged folio.
 */
MSIM_API void msim_mem_cgroup_uncharge(struct msim_folio *folio);

/*
 * kernel: folio_memcg(): the owner memcg, or NULL (uncharged). objcg: the caller
 * holds an RCU read-side section or the folio's lruvec lock, which keep the
 * answer from being freed (the lock also keeps it from changing).
 */
MSIM_API struct msim_memcg *msim_folio_memcg(const struct msim_folio *folio);
/* kernel: folio_objcg(): the objcg, or NULL (uncharged, or lru-reparent=off). */
MSIM_API struct msim_obj_cgroup *msim_folio_objcg(const struct msim_folio *folio);
/* kernel: get_mem_cgroup_from_folio(): the owner with a css reference (root if uncharged). */
MSIM_API struct msim_memcg *msim_get_mem_cgroup_from_folio(const struct msim_folio *folio);

/*
 * kernel: lruvec_stat_mod_folio(): under RCU, the lruvec of folio_memcg() on the
 * folio's node (node counter only for an uncharged folio). -EINVAL for a
 * memcg-only item.
 */
MSIM_API int msim_lruvec_stat_mod_folio(struct msim_folio *folio, enum msim_stat_item idx, long val);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_FOLIO_H */
