/* SPDX-License-Identifier: MIT */
/*
 * list_lru.h - the memcg-aware list_lru (kernel: mm/list_lru.c,
 * include/linux/list_lru.h; docs/shrinker.md).
 *
 * Per node, one global list (root's, kmemcg_id -1) and a node total. Per memcg,
 * a struct list_lru_memcg with one list per node, allocated lazily by
 * msim_memcg_list_lru_alloc() (for the memcg and every ancestor missing one) and
 * kept in an xarray indexed by kmemcg_id. The first item on a list (0 -> 1) sets
 * the shrinker bit of the memcg that owns the list. Adds and deletes on a dying
 * memcg whose list is gone (or marked dead with LONG_MIN) are redirected to the
 * nearest ancestor with a live list. At offline, every list_lru's lists of the
 * memcg are spliced into the parent's (counts added, the parent's bit set), marked
 * dead, then erased from the xarray and freed after a grace period.
 *
 * Misuse (a list_lru used before init or after destroy, a bad node) returns
 * false / 0 / -EINVAL and is counted in msim_shrinker_stats().misuse
 * (<memcgsim/introspect/shrinker.h>, with the tests' readers of the lists).
 *
 * The host's list of memcg-aware lrus and the offline reparenting are the
 * subsystem "list_lru" (msim_subsys_find("list_lru"), subsys.h), which depends on
 * "shrinker": msim_create() attaches both when the configuration sets shrinker,
 * msim_shrinker_init() attaches both by hand.
 */
#ifndef MEMCGSIM_LIST_LRU_H
#define MEMCGSIM_LIST_LRU_H

#include <memcgsim/api.h>

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/list.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/memcg.h>
#include <memcgsim/xarray.h>
#include <memcgsim/shrinker.h>

#ifdef __cplusplus
extern "C" {
#endif

/* LONG_MIN in nr_items marks a list that was reparented (dead). */
#define MSIM_LIST_LRU_DEAD LONG_MIN

/* struct list_lru_one (32 bytes in the kernel). */
struct msim_list_lru_one {
	struct msim_list_head list;
	long nr_items;            /* may go negative in races; LONG_MIN: dead */
	struct msim_lock lock;
};

/* struct list_lru_node: root's (global) list and the node total over all memcgs. */
struct msim_list_lru_node {
	struct msim_list_lru_one lru;
	msim_atomic_long_t nr_items;
};

/* struct list_lru. Fields are the model's; use the functions below. */
struct msim_list_lru {
	struct msim *host;
	struct msim_list_lru_node *node;   /* nr_nodes entries */
	unsigned int nr_nodes;
	int shrinker_id;                    /* -1: none */
	bool memcg_aware;
	unsigned int magic;                 /* live / destroyed (misuse detection) */
	struct msim_xarray xa;              /* kmemcg_id -> list_lru_memcg */
	void *node_charge;                  /* kernel-memory charge of node[] */
	struct msim_list_lru *lnext, *lprev; /* memcg_list_lrus (list_lrus_mutex) */
};

/* enum lru_status: what an isolate callback did. */
enum msim_lru_status {
	MSIM_LRU_REMOVED,        /* item removed from the list */
	MSIM_LRU_REMOVED_RETRY,  /* removed, lock dropped: restart the walk */
	MSIM_LRU_ROTATE,         /* item referenced: move to the tail */
	MSIM_LRU_SKIP,           /* leave it */
	MSIM_LRU_RETRY,          /* lock dropped, item not removed: restart */
	MSIM_LRU_STOP,           /* stop; the callback dropped the lock */
};

/*
 * Isolate callback, called with list->lock held. A callback that drops the lock
 * (REMOVED_RETRY, RETRY, STOP) must unlock list->lock itself.
 */
typedef enum msim_lru_status (*msim_list_lru_walk_cb)(struct msim_list_head *item,
						      struct msim_list_lru_one *list,
						      void *cb_arg);

/*
 * The list_lru host state as a subsystem: name "list_lru", depends on "memcg" and "shrinker":
 * msim_subsys_find("list_lru").
 */

/*
 * __list_lru_init(): memcg_aware lrus register on the host's list (for
 * reparenting); shrinker (may be NULL) gives the id whose bit the first item of a
 * memcg's list sets. Returns 0, -EINVAL (also on a host without the list_lru
 * subsystem), -EBUSY (initialised twice), -ENOMEM.
 */
MSIM_API int msim_list_lru_init(struct msim *m, struct msim_list_lru *lru, bool memcg_aware,
				struct msim_shrinker *shrinker);

/* list_lru_destroy(): free every per-memcg list (items are the caller's). Idempotent. */
MSIM_API void msim_list_lru_destroy(struct msim_list_lru *lru);

/*
 * memcg_list_lru_alloc(): give memcg (and every ancestor missing one) its lists on
 * lru; installs the shrinker unit in on-demand layouts. A no-op for root, NULL,
 * an lru that is not memcg-aware, or lists that exist. Returns 0, -EINVAL.
 */
MSIM_API int msim_memcg_list_lru_alloc(struct msim_memcg *memcg, struct msim_list_lru *lru);

/*
 * list_lru_add(): add item (not on any list) to memcg's list on nid, redirected to
 * the nearest live ancestor when memcg is dying. Returns true if added.
 */
MSIM_API bool msim_list_lru_add(struct msim_list_lru *lru, struct msim_list_head *item,
				unsigned int nid, struct msim_memcg *memcg);
/* list_lru_del(): remove item (on memcg's list, or its redirect). True if removed. */
MSIM_API bool msim_list_lru_del(struct msim_list_lru *lru, struct msim_list_head *item,
				unsigned int nid, struct msim_memcg *memcg);

/* list_lru_isolate / list_lru_isolate_move, for callbacks (lock held). */
MSIM_API void msim_list_lru_isolate(struct msim_list_lru_one *list, struct msim_list_head *item);
MSIM_API void msim_list_lru_isolate_move(struct msim_list_lru_one *list, struct msim_list_head *item,
					 struct msim_list_head *head);

/* list_lru_count_one(): lockless, clamped at 0 (the dead marker reads 0). */
MSIM_API unsigned long msim_list_lru_count_one(struct msim_list_lru *lru, unsigned int nid,
					       struct msim_memcg *memcg);
/* list_lru_count_node(): the node total. */
MSIM_API unsigned long msim_list_lru_count_node(struct msim_list_lru *lru, unsigned int nid);
MSIM_API unsigned long msim_list_lru_shrink_count(struct msim_list_lru *lru,
						  struct msim_shrink_control *sc);

/* list_lru_walk_one(): walk memcg's list on nid; returns isolated items. */
MSIM_API unsigned long msim_list_lru_walk_one(struct msim_list_lru *lru, unsigned int nid,
					      struct msim_memcg *memcg, msim_list_lru_walk_cb isolate,
					      void *cb_arg, unsigned long *nr_to_walk);
/* list_lru_shrink_walk(): walk sc's list with sc->nr_to_scan as the budget. */
MSIM_API unsigned long msim_list_lru_shrink_walk(struct msim_list_lru *lru,
						 struct msim_shrink_control *sc,
						 msim_list_lru_walk_cb isolate, void *cb_arg);
/* list_lru_walk_node(): root's list, then every memcg's list, within the budget. */
MSIM_API unsigned long msim_list_lru_walk_node(struct msim_list_lru *lru, unsigned int nid,
					       msim_list_lru_walk_cb isolate, void *cb_arg,
					       unsigned long *nr_to_walk);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_LIST_LRU_H */
