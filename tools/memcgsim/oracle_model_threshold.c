/* SPDX-License-Identifier: MIT */
/*
 * oracle_model_threshold.c - the model side of the oracle's flush-threshold
 * experiment: the guest's trial (oracle/guest/threshold.c) replayed in the model.
 *
 * A host of the guest's CPU count under the linux-6.12 preset with MGLRU, a fresh
 * p/l, n pages written on CPU 0 with the statistics updates Linux 6.12 makes for
 * each (mm/shmem.c shmem_add_to_page_cache(), mm/memory.c do_anonymous_page()):
 *  - tmpfs: the charge (mem_cgroup_charge); NR_FILE_PAGES and NR_SHMEM
 *    (__lruvec_stat_mod_folio); the mapping's xa_nodes when an index needs one (index
 *    1, 64 (two: a new top level), then every 64th), each charged to the leaf's objcg
 *    (obj_cgroup_charge: whole pages for MEMCG_KMEM, then the obj stock) with its
 *    slab bytes cached per CPU until they pass a page (mod_objcg_state);
 *  - anon: the charge; PGFAULT (count_memcg_event_mm); NR_ANON_MAPPED;
 *  - both: folio_add_lru() through this CPU's folio batch, which adds PAGEVEC_SIZE (31)
 *    folios to the LRU at once when it fills (one LRU-size update per folio).
 * The folio batch and the slab-byte cache are the driver's: the model applies an LRU
 * add at once and its obj stock keeps no slab statistics (docs/oracle.md says so).
 * Then memory.stat of leaf, parent and root are read, each flushing as its own
 * atomic allows (msim_memory_stat_show).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "oracle.h"

#define FOLIO_BATCH 31            /* PAGEVEC_SIZE in 6.12 */
#define XA_CHUNK 64               /* XA_CHUNK_SIZE */

struct tm_host {
	struct msim *m;
	struct msim_memcg *p, *l;
	struct msim_folio *batch[FOLIO_BATCH];
	unsigned int nbatch;
	long slab_bytes;              /* mod_objcg_state's per-CPU cache (CPU 0) */
	size_t node_charge;           /* obj_full_size(radix_tree_node) */
	struct msim_folio **folios;
	long nfolios;
};

static int tm_create(struct tm_host *h, unsigned int cpus, char *err, size_t errlen)
{
	struct msim_config cfg;
	struct msim_kmem_cache_info ci;
	struct msim_kmem_cache *nodes;

	memset(h, 0, sizeof(*h));
	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.lru = MSIM_LRU_MGLRU;
	if (msim_preset_apply(&cfg.variants, "linux-6.12", err, errlen) ||
	    msim_create(&cfg, &h->m, err, errlen))
		return -EINVAL;
	if (msim_rstat_init(h->m, NULL) || msim_lru_attach(h->m, err, errlen) ||
	    msim_subsys_attach(h->m, msim_subsys_find("obj_stock"), err, errlen))
		return -EINVAL;
	/* kernel: obj_full_size(s) = s->size + sizeof(struct obj_cgroup *) */
	nodes = msim_kmem_cache_find_or_create(h->m, "radix_tree_node", MSIM_XA_NODE_BYTES,
					       MSIM_SLAB_FREEPTR_OUTSIDE);
	if (!nodes)
		return snprintf(err, errlen, "no radix_tree_node cache"), -EINVAL;
	msim_kmem_cache_info(nodes, &ci);
	h->node_charge = ci.slot_size + sizeof(void *);
	return 0;
}

static int tm_mkdirs(struct tm_host *h, char *err, size_t errlen)
{
	if (msim_memcg_create(msim_root_mem_cgroup(h->m), "p", &h->p) ||
	    msim_memcg_create(h->p, "l", &h->l))
		return snprintf(err, errlen, "memcg creation failed"), -ENOMEM;
	return 0;
}

static void tm_destroy(struct tm_host *h)
{
	if (!h->m)
		return;
	msim_set_current_host(h->m);
	for (long i = 0; i < h->nfolios; i++)
		msim_folio_put(h->folios[i]);
	free(h->folios);
	msim_destroy(h->m);
	h->m = NULL;
}

/* kernel: folio_batch_add_and_move(folio, lru_add): the batch moves when full. */
static void tm_add_lru(struct tm_host *h, struct msim_folio *f)
{
	h->batch[h->nbatch++] = f;
	if (h->nbatch < FOLIO_BATCH)
		return;
	for (unsigned int i = 0; i < h->nbatch; i++)
		msim_folio_add_lru(h->batch[i]);
	h->nbatch = 0;
}

/* How many xa_nodes storing index i into a file's mapping allocates (indices < 4096). */
static unsigned int xa_nodes_for(long i)
{
	if (i == 1)
		return 1;                 /* index 0 lives in xa_head; index 1 needs a node */
	if (i >= XA_CHUNK && i % XA_CHUNK == 0 && i < XA_CHUNK * XA_CHUNK)
		return i == XA_CHUNK ? 2 : 1; /* 64: a new top node and the leaf node */
	return 0;
}

/* kernel: __memcg_slab_post_alloc_hook(): obj_cgroup_charge, then mod_objcg_state. */
static int tm_charge_node(struct tm_host *h)
{
	struct msim_obj_cgroup *objcg = msim_memcg_objcg(h->l, 0);
	int ret = msim_obj_cgroup_charge(objcg, MSIM_GFP_KERNEL, h->node_charge);

	if (ret)
		return ret;
	h->slab_bytes += (long)h->node_charge;
	if (h->slab_bytes > 4096) {   /* mod_objcg_state: past PAGE_SIZE, flush */
		ret = msim_mod_memcg_lruvec_state(msim_mem_cgroup_lruvec(h->m, h->l, 0),
						  MSIM_NR_SLAB_RECLAIMABLE_B, h->slab_bytes);
		h->slab_bytes = 0;
	}
	return ret;
}

static int tm_write_page(struct tm_host *h, enum oracle_page_kind kind, long i)
{
	enum msim_folio_type t = MSIM_FOLIO_ANON;   /* shmem folios are swap-backed */
	struct msim_folio *f = msim_folio_alloc(h->m, t, 0, 0, MSIM_ZONE_NORMAL);
	int ret;

	if (!f)
		return -ENOMEM;
	h->folios[h->nfolios++] = f;
	ret = msim_mem_cgroup_charge(f, h->l, MSIM_GFP_KERNEL);
	if (kind == ORACLE_TMPFS) {
		for (unsigned int k = xa_nodes_for(i); k && !ret; k--)
			ret = tm_charge_node(h);
		ret = ret ? ret : msim_lruvec_stat_mod_folio(f, MSIM_NR_FILE_PAGES, 1);
		ret = ret ? ret : msim_lruvec_stat_mod_folio(f, MSIM_NR_SHMEM, 1);
	} else {
		ret = ret ? ret : msim_count_memcg_events(h->l, MSIM_PGFAULT, 1);
		ret = ret ? ret : msim_lruvec_stat_mod_folio(f, MSIM_NR_ANON_MAPPED, 1);
	}
	if (!ret)
		tm_add_lru(h, f);
	return ret;
}

static bool tm_shows(struct msim_memcg *memcg, enum oracle_page_kind kind, long n)
{
	static char buf[16384];
	uint64_t v = 0;

	if (msim_memory_stat_show(memcg, buf, sizeof(buf)) < 0 ||
	    msim_memory_stat_lookup(buf, kind == ORACLE_TMPFS ? "shmem" : "anon", &v))
		return false;
	return v == (uint64_t)n * 4096;
}

int oracle_model_threshold_trial(enum oracle_page_kind kind, unsigned int cpus, long n,
				 bool quiet, bool periodic, struct oracle_model_reading *out,
				 char *err, size_t errlen)
{
	struct tm_host h;
	int ret = tm_create(&h, cpus, err, errlen);

	if (!ret)
		ret = tm_mkdirs(&h, err, errlen);
	if (!ret && quiet)
		msim_flush_memcg_stats_dwork(h.m);
	if (!ret && !(h.folios = calloc((size_t)n + 1, sizeof(*h.folios))))
		ret = -ENOMEM;
	for (long i = 0; i < n && !ret; i++)
		ret = tm_write_page(&h, kind, i);
	if (!ret && periodic)
		msim_flush_memcg_stats_dwork(h.m);
	if (!ret) {
		out->leaf = tm_shows(h.l, kind, n);
		out->parent = tm_shows(h.p, kind, n);
		out->root = tm_shows(msim_root_mem_cgroup(h.m), kind, n);
	} else if (!err[0]) {
		snprintf(err, errlen, "model trial of %ld pages failed (%d)", n, ret);
	}
	tm_destroy(&h);
	return ret;
}

long oracle_model_threshold_min(enum oracle_page_kind kind, unsigned int cpus, long max,
				bool parent, char *err, size_t errlen)
{
	for (long n = 1; n <= max; n++) {
		struct oracle_model_reading r;

		if (oracle_model_threshold_trial(kind, cpus, n, false, false, &r, err, errlen))
			return -2;
		if (parent ? r.parent : r.leaf)
			return n;
	}
	return -1;
}
