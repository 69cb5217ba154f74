/* SPDX-License-Identifier: MIT */
/*
 * lru_internal.h - the LRU layer's structures (lru.h, folio.h).
 *
 * The layer is one concept behind this header; its files:
 *   folio.c       folios, flags, memcg_data, charge and uncharge
 *   lru_size.c    update_lru_size, mem_cgroup_update_lru_size, lruvec_lru_size
 *   mglru.c       generations: add/del, sizes, aging, the reparent recheck
 *   lruvec.c      lruvec_add/del_folio, folio_lruvec(_lock), locks
 *   swap.c        folio operations (mm/folio.c) and folio_put
 *   vmscan.c      reclaim: the batch both kinds share, classic shrink_lruvec,
 *                 try_to_free_mem_cgroup_pages
 *   mglru_evict.c MGLRU's reclaim: lru_gen_shrink_lruvec, evict_folios
 *   reparent.c    the LRU part of memcg_reparent_objcgs (objcg.h ops)
 *   lru.c         the subsystem: attach, memcg hooks; per-host state, per-memcg
 *                 data, lookups from handles
 */
#ifndef MSIM_LRU_INTERNAL_H
#define MSIM_LRU_INTERNAL_H

#include <stdbool.h>

#include <memcgsim/atomic.h>
#include <memcgsim/container_of.h>
#include <memcgsim/lock.h>
#include <memcgsim/lru.h>
#include <memcgsim/introspect/lru.h>
#include <memcgsim/rcu.h>
#include <memcgsim/yield.h>

#include <memcgsim/list.h>

struct msim__lru_host;

/* Page flags (kernel: enum pageflags, the bits this model uses). */
enum msim__pg {
	MSIM__PG_LRU = 0,        /* on an LRU list (or claimed off it); named shims */
	MSIM__PG_ACTIVE,
	MSIM__PG_REFERENCED,
	MSIM__PG_WORKINGSET,
	MSIM__PG_UNEVICTABLE,
	MSIM__PG_MLOCKED,
	/*
	 * Page-table state, which the kernel keeps in the PTEs and the VMA rather
	 * than in folio->flags: mapped (folio_mapped), an accessed bit set in one
	 * of its PTEs since rmap last cleared it (folio_referenced's young), and a
	 * VM_EXEC mapping. Page cache read through a file descriptor is unmapped.
	 */
	MSIM__PG_MAPPED,
	MSIM__PG_YOUNG,
	MSIM__PG_VM_EXEC,
	/* LRU_REFS_WIDTH bits of MGLRU refs (LRU_REFS_MASK) from MSIM__PG_REFS_SHIFT */
	MSIM__PG_REFS_SHIFT = 8,
};

/* kernel: LRU_REFS_WIDTH (MAX_NR_TIERS - 2 spare bits) and LRU_REFS_MASK. */
#define MSIM__LRU_REFS_WIDTH 2U
#define MSIM__LRU_REFS_MASK (((1UL << MSIM__LRU_REFS_WIDTH) - 1) << MSIM__PG_REFS_SHIFT)
#define MSIM__MIN_LRU_BATCH 64UL         /* BITS_PER_LONG */

/* kernel: struct folio, the fields the LRU and memcg code read. */
struct msim_folio {
	struct msim_list_head lru;          /* LRU list or a private list; the lru_lock */
	unsigned long flags;            /* MSIM__PG_* bits, atomic bit operations */
	msim_atomic_long_t refcount;
	void *memcg_data;               /* objcg (lru-reparent=objcg), memcg (off), NULL */
	int gen;                        /* MGLRU generation while listed there, else -1 */
	unsigned int order;
	unsigned int nid;
	enum msim_zone_type zone;
	enum msim_folio_type type;
	struct msim__lru_host *lh;
	void *private_data;
	/*
	 * A release in flight (msim__folio_release, deterministic mode): on
	 * lh->releasing, with the charge reference it has still to drop, so that a
	 * host torn down with the releasing task parked for good frees both.
	 */
	struct msim_list_head releasing;
	void *charge_owed;
};

/* kernel: struct lru_gen_folio (include/linux/mmzone.h). */
struct msim__lru_gen {
	unsigned long max_seq;          /* READ_ONCE outside the lock: "lru_gen.max_seq" */
	unsigned long min_seq[MSIM_ANON_AND_FILE];
	long nr_pages[MSIM_MAX_NR_GENS][MSIM_ANON_AND_FILE][MSIM_MAX_NR_ZONES];
	struct msim_list_head folios[MSIM_MAX_NR_GENS][MSIM_ANON_AND_FILE][MSIM_MAX_NR_ZONES];
	/*
	 * The PID controller's histories, per type and tier (NR_HIST_GENS is 1:
	 * Debian's 6.12 has no CONFIG_LRU_GEN_STATS). evicted and refaulted are
	 * atomic_long_t in the kernel (workingset adds to them without the lock);
	 * the rest is the lock holder's. 6.12 keeps protected[] one tier down.
	 */
	unsigned long avg_refaulted[MSIM_ANON_AND_FILE][MSIM_MAX_NR_TIERS];
	unsigned long avg_total[MSIM_ANON_AND_FILE][MSIM_MAX_NR_TIERS];
	unsigned long protected_pages[MSIM_ANON_AND_FILE][MSIM_MAX_NR_TIERS];
	unsigned long evicted[MSIM_ANON_AND_FILE][MSIM_MAX_NR_TIERS];
	unsigned long refaulted[MSIM_ANON_AND_FILE][MSIM_MAX_NR_TIERS];
	bool enabled;                   /* lru_gen_enabled() when the lruvec was made */
};

/*
 * kernel: struct lruvec (lists, lru_lock, lrugen) together with the
 * lru_zone_size of its mem_cgroup_per_node. The statistics of the same lruvec
 * are rstat's: stats is rstat's handle, which the public API takes.
 */
struct msim__lru_vec {
	struct msim_lock lru_lock;
	struct msim_list_head lists[MSIM_NR_LRU_LISTS];  /* LRU_UNEVICTABLE stays empty */
	long lru_zone_size[MSIM_MAX_NR_ZONES][MSIM_NR_LRU_LISTS];
	struct msim__lru_gen lrugen;
	struct msim_lruvec *stats;
	struct msim_memcg *memcg;
	unsigned int nid;
	struct msim__lru_host *lh;
	/* kernel: lruvec->refaults[]: WORKINGSET_ACTIVATE_{ANON,FILE} at the last reclaim's end */
	unsigned long refaults[2];
};

/* Per-memcg data (the memcg hook slot): one lruvec per node. */
struct msim__lru_memcg {
	struct msim_memcg *memcg;
	struct msim__lru_vec node[];
};

/*
 * Per-host state. sim owns the memory (state_size) and frees it after every
 * layer's teardown, so the memcg layer's css_free of our hook set, which runs
 * after host_fini at msim_destroy(), may still use it (through the hook's priv).
 */
#define MSIM__FOLIO_QUARANTINE 64

struct msim__lru_host {
	struct msim *m;
	int slot;
	unsigned int nr_nodes;
	bool mglru;                     /* cfg.lru == MSIM_LRU_MGLRU */
	bool reparent_objcg;            /* variant lru-reparent=objcg */
	bool lruvec_recheck;            /* variant lruvec-recheck=on (off: a demonstration) */
	bool mglru_6_12;                /* variant mglru-protection=6.12 */
	/*
	 * The last freed folios, kept (refcount 0) until MSIM__FOLIO_QUARANTINE
	 * more are freed (or the host goes): a put or a get on one of them finds
	 * its refcount 0 and stops as a misuse instead of writing freed memory.
	 */
	struct msim_folio *quarantine[MSIM__FOLIO_QUARANTINE];
	unsigned long quarantine_next;
	/* Releases in flight (deterministic mode: one runs at a time, no lock). */
	struct msim_list_head releasing;
	/*
	 * The page cache's __remove_mapping (msim_lru_set_remove_mapping): set by
	 * the layer that owns page cache at its attach, before any task runs.
	 */
	msim_reclaim_evict_fn remove_mapping;
	void *remove_mapping_arg;
	bool remove_mapping_notes;
	/* counters (quiet atomics) */
	unsigned long folios_live, folios_allocated_total, lru_size_underflows;
	unsigned long lruvec_relock_retries, reparented_pages, freed_nonempty;
};

#define MSIM__LRU_COUNT(lh, field, n) msim_quiet_fetch_add(&(lh)->field, (n), MSIM_RELAXED)

/* ---- lru.c: the host's state, or NULL (the subsystem's lookup) ---- */
struct msim__lru_host *msim__lru_host(const struct msim *m);

/* ---- lru.c: per-memcg data, lookups from handles ---- */
/* The lruvec of (memcg, nid); NULL if memcg has no LRU data. memcg NULL: the root's. */
struct msim__lru_vec *msim__lru_vec(struct msim__lru_host *lh, struct msim_memcg *memcg,
				    unsigned int nid);
/* From rstat's handle; NULL for the bare node lruvec or a host without the layer. */
struct msim__lru_vec *msim__lru_vec_of(struct msim_lruvec *lruvec);
struct msim__lru_memcg *msim__lru_memcg_alloc(struct msim__lru_host *lh,
					      struct msim_memcg *memcg);
void msim__lru_memcg_free(struct msim__lru_host *lh, struct msim__lru_memcg *lm);
/* lru_lock of an lruvec known to the caller: RCU read lock + lock / unlock + RCU unlock. */
void msim__lru_vec_lock(struct msim__lru_vec *lv);
void msim__lru_vec_unlock(struct msim__lru_vec *lv);

/* ---- folio.c ---- */
/*
 * The flags word is not ordered by the lru_lock: PG_lru's claim and set are shims
 * outside it (folio_isolate_lru) and reclaim tests and clears PG_referenced on
 * its isolated batch unlocked. So each quiet access notes itself (yield.h's
 * contract), whichever point the step running it resumed from: reclaim's loop
 * over its batch runs on past shim points (folio.ref.freeze) that announce only
 * their own access. Outside a DPOR run a note is one branch.
 */
static inline bool msim__folio_test(const struct msim_folio *f, enum msim__pg bit)
{
	msim_access_note(&f->flags, sizeof(f->flags), MSIM_ACCESS_LOAD);
	return (msim_quiet_load(&f->flags, MSIM_RELAXED) >> bit) & 1;
}
static inline void msim__folio_set(struct msim_folio *f, enum msim__pg bit)
{
	msim_access_note(&f->flags, sizeof(f->flags), MSIM_ACCESS_RMW);
	msim_quiet_fetch_or(&f->flags, 1UL << bit, MSIM_SEQ_CST);
}
static inline void msim__folio_clear(struct msim_folio *f, enum msim__pg bit)
{
	msim_access_note(&f->flags, sizeof(f->flags), MSIM_ACCESS_RMW);
	msim_quiet_fetch_and(&f->flags, ~(1UL << bit), MSIM_SEQ_CST);
}
/* kernel: folio_test_clear_lru(): the claim on a folio that isolation and moves race for. */
bool msim__folio_test_clear_lru(struct msim_folio *folio);
void msim__folio_set_lru(struct msim_folio *folio);
/* kernel: folio_is_file_lru() as the MGLRU type index: 0 anon, 1 file. */
static inline unsigned int msim__folio_type(const struct msim_folio *f)
{
	return f->type == MSIM_FOLIO_FILE;
}
/* kernel: folio_ref_freeze(): count expected -> 0, or false if another holder is there. */
bool msim__folio_ref_freeze(struct msim_folio *folio, long expected);
/* kernel: folio_put_testzero(): drop a reference; true when it was the last. */
bool msim__folio_put_testzero(struct msim_folio *folio);
/* Uncharge and free a folio whose last reference is gone and that is off every list. */
void msim__folio_release(struct msim_folio *folio);
/* Free the quarantined folios (host teardown). */
void msim__folio_quarantine_free(struct msim__lru_host *lh);
void msim__folio_releases_abandon(struct msim__lru_host *lh);

/* ---- lru_size.c ---- */
/* kernel: __update_lru_size(): the lruvec statistic only (MGLRU uses this one). */
void msim__update_lru_size_stats(struct msim__lru_vec *lv, enum msim_lru_list lru,
				 enum msim_zone_type zid, long nr_pages);
/* kernel: mem_cgroup_update_lru_size(). */
void msim__mem_cgroup_update_lru_size(struct msim__lru_vec *lv, enum msim_lru_list lru,
				      enum msim_zone_type zid, long nr_pages);
/* kernel: update_lru_size(): both of the above. */
void msim__update_lru_size(struct msim__lru_vec *lv, enum msim_lru_list lru,
			   enum msim_zone_type zid, long nr_pages);
long msim__lru_zone_size_read(const struct msim__lru_vec *lv, enum msim_lru_list lru,
			      enum msim_zone_type zid);

/* ---- mglru.c ---- */
unsigned long msim__lru_gen_max_seq(const struct msim__lru_vec *lv);
/* The lock holder's min_seq[type] (DEFINE_MIN_SEQ). */
unsigned long msim__lru_gen_min_seq(const struct msim__lru_vec *lv, unsigned int type);
/* kernel (6.14 and newer): lru_gen_folio_seq(), the sequence a folio is added at, never below min_seq. */
unsigned long msim__lru_gen_folio_seq(const struct msim__lru_vec *lv,
				      const struct msim_folio *folio, bool reclaiming);
unsigned int msim__get_nr_gens(const struct msim__lru_vec *lv, unsigned int type);
/* kernel: lru_gen_is_active(): gen is one of the two youngest. */
bool msim__lru_gen_is_active(const struct msim__lru_vec *lv, unsigned int gen);
/* kernel: lru_gen_add_folio() / lru_gen_del_folio(): false when the classic path applies. */
bool msim__lru_gen_add_folio(struct msim__lru_vec *lv, struct msim_folio *folio,
			     bool reclaiming);
bool msim__lru_gen_del_folio(struct msim__lru_vec *lv, struct msim_folio *folio,
			     bool reclaiming);
/* kernel: folio_inc_gen(): to the generation after the oldest (lock held); true: at the head. */
void msim__lru_gen_inc_gen(struct msim__lru_vec *lv, struct msim_folio *folio, bool head);
/* ---- refs and tiers (mglru.c) ---- */
unsigned int msim__folio_refs_counter(const struct msim_folio *folio);
void msim__folio_set_refs_counter(struct msim_folio *folio, unsigned int refs);
/* kernel: folio_lru_refs() and lru_tier_from_refs(), per variant mglru-protection. */
int msim__folio_lru_refs(const struct msim_folio *folio);
unsigned int msim__lru_tier_from_refs(const struct msim__lru_host *lh, int refs, bool workingset);
/* kernel: lru_gen_inc_refs() (6.14) / folio_inc_refs() (6.12), from folio_mark_accessed(). */
void msim__lru_gen_inc_refs(struct msim_folio *folio);
/* kernel: get_tier_idx(): the tiers above the returned one are protected (lock held). */
int msim__lru_gen_tier_idx(const struct msim__lru_vec *lv, unsigned int type);
/* protected[] of the folio's tier, at the index the version keeps it (lock held). */
void msim__lru_gen_count_protected(struct msim__lru_vec *lv, unsigned int type,
				   unsigned int tier, long delta);
/* kernel: inc_max_seq() (lock held). */
void msim__lru_gen_inc_max_seq_locked(struct msim__lru_vec *lv);
/* kernel: try_to_inc_min_seq() for one type (lock held): drop empty oldest generations. */
void msim__lru_gen_try_inc_min_seq_locked(struct msim__lru_vec *lv, unsigned int type);
/* kernel: the per-node max_lru_gen_memcg / recheck_lru_gen_max_memcg. */
void msim__max_lru_gen_memcg(struct msim__lru_vec *lv);
bool msim__recheck_lru_gen_max_memcg(const struct msim__lru_vec *lv);

/* ---- lruvec.c ---- */
/* folio_lruvec() as internal data; caller under RCU or the lock. */
struct msim__lru_vec *msim__folio_lru_vec(const struct msim_folio *folio);
/* folio_lruvec_lock(); returns locked (RCU held). */
struct msim__lru_vec *msim__folio_lru_vec_lock(struct msim_folio *folio);
/* folio_lruvec_relock(): keep *locked if it is the folio's, else switch. */
struct msim__lru_vec *msim__folio_lru_vec_relock(struct msim_folio *folio,
						 struct msim__lru_vec *locked);
void msim__lruvec_add_folio(struct msim__lru_vec *lv, struct msim_folio *folio);
void msim__lruvec_add_folio_tail(struct msim__lru_vec *lv, struct msim_folio *folio);
void msim__lruvec_del_folio(struct msim__lru_vec *lv, struct msim_folio *folio);
/* kernel: folio_lru_list(). */
enum msim_lru_list msim__folio_lru_list(const struct msim_folio *folio);

/* ---- swap.c ---- */
/* kernel: lru_add() with the caller holding the folio's lruvec lock. */
void msim__lru_add(struct msim__lru_vec *lv, struct msim_folio *folio);

/* ---- vmscan.c: the reclaim both LRU kinds share ---- */
/* kernel: lru_to_folio(): the tail folio of a list (the next to reclaim). */
static inline struct msim_folio *msim__lru_to_folio(struct msim_list_head *head)
{
	return msim_container_of(head->prev, struct msim_folio, lru);
}
/* Claim one folio for isolation (kernel: folio_try_get + folio_test_clear_lru). */
bool msim__isolate_claim(struct msim_folio *folio);
/*
 * A batch isolated with the lock dropped: decide and evict each folio, put the
 * survivors back, count the scan. Returns the pages freed.
 */
unsigned long msim__reclaim_isolated(struct msim__lru_vec *lv, struct msim_list_head *list,
				     struct msim_list_head *free, struct msim_scan_control *sc,
				     bool file, unsigned long scanned);

/* ---- mglru_evict.c ---- */
/* kernel (6.14): lru_gen_set_refs(), a mapped folio found young in eviction. */
enum msim_reclaim_verdict msim__lru_gen_set_refs(struct msim_folio *folio);
/* kernel: evict_folios()'s rejected folios, not put back into the oldest generation. */
void msim__lru_gen_reject_survivors(struct msim__lru_vec *lv, struct msim_list_head *list);
/* kernel: lru_gen_shrink_lruvec(). Returns the pages freed. */
unsigned long msim__lru_gen_shrink_lruvec(struct msim__lru_vec *lv, struct msim_scan_control *sc);

/* ---- reparent.c ---- */
extern const struct msim_objcg_reparent_ops msim__lru_reparent_ops;

#endif /* MSIM_LRU_INTERNAL_H */
