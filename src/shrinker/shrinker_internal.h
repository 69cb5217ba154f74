/* SPDX-License-Identifier: MIT */
/*
 * shrinker_internal.h - state shared by the files of src/shrinker, one concept behind
 * this header: misuse.c, unit.c, the layouts (info_array.c,
 * info_array_unit_cache.c, info_array_on_demand.c, info_xarray.c), info.c
 * (shrinker_info: bits, units, deferred counts, and its entry points),
 * attach.c (the subsystem "shrinker", msim_shrinker_init), registry.c, list_lru.c (the subsystem
 * "list_lru"), shrink_slab.c, superblock.c.
 *
 * Per host (the state of shrinker_subsys): the registry (shrinker_mutex,
 * idr, shrinker_list, shrinker_nr_max), the chosen shrinker_info layout and its
 * ops, the unit cache.
 * Per memcg (a memcg hook slot): struct msim__shr_memcg, one struct msim__shr_pn
 * per node standing for mem_cgroup_per_node's shrinker_info pointer (array
 * layouts) or its xarray (xarray layout).
 */
#ifndef MSIM_SHRINKER_INTERNAL_H
#define MSIM_SHRINKER_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/kmem.h>
#include <memcgsim/list_lru.h>
#include <memcgsim/memcg.h>
#include <memcgsim/shrinker.h>
#include <memcgsim/introspect/list_lru.h>
#include <memcgsim/introspect/shrinker.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/xarray.h>
#include <memcgsim/idr.h>

/* struct shrinker_info_unit: 64 deferred counters and one bitmap word, 520 bytes. */
struct msim__unit {
	msim_atomic_long_t nr_deferred[MSIM_SHRINKER_UNIT_BITS];
	unsigned long map[1];
};
_Static_assert(sizeof(struct msim__unit) == MSIM_SHRINKER_UNIT_BYTES, "unit is 520 bytes");

/*
 * struct shrinker_info of the array layouts. The kernel's header is 24 bytes
 * (rcu_head, map_nr_max); ours has no rcu_head (msim_kfree_rcu needs none) but is
 * charged at the kernel's 24 + 8 * units through msim_kmalloc.
 */
struct msim__info_array {
	int map_nr_max;
	int pad;
	struct msim__unit *unit[];
};

/* An install recorded by the demo without the install lock (to find lost ones). */
struct msim__install_rec {
	unsigned long index;
	struct msim__unit *unit;
};

struct msim__shr_pn {
	struct msim__info_array *info;   /* array layouts; RCU-published */
	struct msim_xarray xa;           /* xarray layout */
	int root_nr_max;                 /* xarray layout: root's units cover this */
	unsigned long nr_units;          /* units this node holds (atomic) */
	/* on-demand-lock=off only: every install, checked at free (host track_lock) */
	struct msim__install_rec *track;
	size_t ntrack, captrack;
};

struct msim__shr_memcg {
	struct msim_memcg *memcg;
	bool is_root;
	unsigned int nr_nodes;
	struct msim__shr_pn pn[];
};

struct msim__shr_host;

/*
 * The layout ops. Every function runs with the documented lock; readers (unit,
 * next_unit) run under msim_rcu_read_lock().
 */
struct msim__info_ops {
	const char *name;
	bool on_demand;
	/* Registration visits only root (xarray) instead of every memcg. */
	bool expand_root_only;
	/* Units from the 520-byte cache (thread 001's kernels), else kmalloc-1k. */
	bool unit_cache;
	/* alloc_shrinker_info for one node at nr_max (shrinker_mutex held). */
	int (*alloc_node)(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
			  int nr_max);
	/* free_shrinker_info for one node: units and container, now. */
	void (*free_node)(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid);
	/*
	 * expand_one_shrinker_info for one node (mutex held). Returns 1 if the node
	 * was grown, 0 if nothing to do, -ENOENT if the memcg has no info yet.
	 */
	int (*expand_node)(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
			   int new_nr_max);
	/* The unit at index, or NULL (RCU). */
	struct msim__unit *(*unit)(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				   unsigned int nid, unsigned long index);
	/*
	 * The first present unit at an index >= *index, re-reading the info (RCU),
	 * or NULL at the end. The array layouts look at one index per call, as the
	 * kernel's loop takes and drops RCU per index: an absent unit there is
	 * MSIM__UNIT_HOLE (the caller moves to the next index).
	 */
	struct msim__unit *(*next_unit)(struct msim__shr_host *h, struct msim__shr_memcg *sm,
					unsigned int nid, unsigned long *index);
	/* Install the unit at index (on-demand layouts). 0 or -errno. */
	int (*install)(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
		       unsigned long index);
	/* Container bytes of one node (header class, or xa_nodes). */
	uint64_t (*container_bytes)(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				    unsigned int nid);
};

extern const struct msim__info_ops msim__info_array_ops;
extern const struct msim__info_ops msim__info_array_unit_cache_ops;
extern const struct msim__info_ops msim__info_array_on_demand_ops;
extern const struct msim__info_ops msim__info_xarray_ops;

struct msim__shr_host {
	struct msim *m;
	bool detached;                   /* host_fini ran: the hooks find nothing (driver only) */
	enum msim_shrinker_info_layout layout;
	const struct msim__info_ops *ops;
	bool recount;                    /* shrinker-recount=on */
	bool bit_barrier;                /* shrinker-bit-barrier=mb: S1's smp_mb pair */
	bool install_lock;               /* on-demand-lock=on */
	unsigned int nr_nodes;
	int memcg_slot;                  /* hook slot of struct msim__shr_memcg */
	struct msim_lock mutex;          /* shrinker_mutex */
	struct msim_lock info_lock;      /* array-on-demand: install vs expansion copy */
	struct msim_idr idr;             /* shrinker_idr */
	int nr_max;                      /* shrinker_nr_max (atomic loads) */
	int id_limit;                    /* ids < id_limit */
	struct msim_shrinker list;       /* shrinker_list head (sentinel) */
	struct msim_kmem_cache *unit_cache; /* NULL: units from kmalloc-1k */
	struct msim_kmem_cache *obj_cache[2]; /* superblock dentry / inode objects */
	struct msim_memcg *root;
	struct msim__shr_memcg *root_sm; /* root's, until the hook slot is known */
	pthread_mutex_t track_lock;      /* bookkeeping of the lock-off demo, not model */
	/* statistics (atomic adds) */
	uint64_t expansions, expand_memcg_visits, units_installed, units_lost;
	uint64_t bits_cleared, bits_reset, count_calls, scan_calls;
	uint64_t registered, allocated;
};

/* unit.c: units from the 520-byte cache or kmalloc-1k, per the layout. */
struct msim__unit *msim__unit_alloc(struct msim__shr_host *h);
void msim__unit_free(struct msim__shr_host *h, struct msim__unit *u);
uint64_t msim__unit_bytes(struct msim__shr_host *h, unsigned long nr_units);

/* Array-layout header helpers shared by the three array flavours. */
size_t msim__info_array_size(int nr_max);

/* info_array.c: the pointer-array ops the three array layouts share. */
unsigned long msim__info_units(const struct msim__info_array *info);
int msim__array_alloc_node(struct msim__shr_host *h, struct msim__shr_memcg *sm,
			   unsigned int nid, int nr_max);
void msim__array_free_node(struct msim__shr_host *h, struct msim__shr_memcg *sm,
			   unsigned int nid);
int msim__array_expand_node(struct msim__shr_host *h, struct msim__shr_memcg *sm,
			    unsigned int nid, int new_nr_max);
struct msim__unit *msim__array_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				    unsigned int nid, unsigned long index);
struct msim__unit *msim__array_next_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
					 unsigned int nid, unsigned long *index);
uint64_t msim__array_container_bytes(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				     unsigned int nid);
int msim__no_install(struct msim__shr_host *h, struct msim__shr_memcg *sm, unsigned int nid,
		     unsigned long index);

/* misuse.c: process-wide misuse counter (list_lru after destroy, double free, ...). */
void msim__shrinker_misuse(const char *what);
uint64_t msim__shrinker_misuse_count(void);

static inline void msim__stat_inc(uint64_t *c)
{
	msim_quiet_fetch_add(c, 1, MSIM_RELAXED);
}

/*
 * shrinker_nr_max. No yield: it grows under the shrinker mutex before a new id
 * is handed out, so no race of the model turns on when a reader sees it.
 */
static inline int msim__nr_max_read(struct msim__shr_host *h)
{
	return msim_quiet_load(&h->nr_max, MSIM_ACQUIRE);
}

#define MSIM__UNIT_HOLE ((struct msim__unit *)1)

#define MSIM__UNIT_INDEX(id) ((unsigned long)(id) / MSIM_SHRINKER_UNIT_BITS)
#define MSIM__UNIT_OFFSET(id) ((unsigned int)(id) % MSIM_SHRINKER_UNIT_BITS)

/*
 * attach.c: the host's shrinker state, or NULL (no shrinker subsystem): a plain
 * load, never an attach. For the files above attach.c only.
 */
struct msim__shr_host *msim__shr_host(struct msim *m);

/*
 * info.c: shrinker_info on the host state h. msim__shr_memcg() is a memcg's, or
 * NULL (not yet online, freed, or no shrinker state).
 */
const struct msim__info_ops *msim__shr_layout_ops(enum msim_shrinker_info_layout l);
/* attach.c: variant shrinker-info of cfg (hosts without the shrinker read it too). */
enum msim_shrinker_info_layout msim__shr_variant_layout(const struct msim_config *cfg);
struct msim__shr_memcg *msim__shr_memcg(struct msim__shr_host *h, struct msim_memcg *memcg);
bool msim__shr_bad_nid(struct msim__shr_memcg *sm, unsigned int nid);
/* shrinker_mutex held */
void msim__shr_free_info_locked(struct msim__shr_host *h, struct msim_memcg *memcg,
				struct msim__shr_memcg *sm);
int msim__expand_shrinker_info(struct msim__shr_host *h, int new_id);
struct msim__unit *msim__shr_next_unit(struct msim__shr_host *h, struct msim__shr_memcg *sm,
				       unsigned int nid, unsigned long *index);
/* The next present unit at or after *index, skipping holes (RCU held). */
struct msim__unit *msim__shr_next_present(struct msim__shr_host *h, struct msim__shr_memcg *sm,
					  unsigned int nid, unsigned long *index);
void msim__reparent_shrinker_deferred(struct msim__shr_host *h, struct msim_memcg *memcg);
/* The hook sets attach.c registers, with the host state as their priv. */
extern const struct msim_memcg_hooks msim__shr_info_hooks;
extern const struct msim_memcg_hooks msim__shr_deferred_hooks;

/* info.c: the deferred-count slot of a shrink (memcg-aware: the memcg's unit). */
msim_atomic_long_t *msim__shr_deferred_slot(struct msim_shrink_control *sc,
					     struct msim_shrinker *s, struct msim__unit **unit);

#endif /* MSIM_SHRINKER_INTERNAL_H */
