/* SPDX-License-Identifier: MIT */
/*
 * filemap.c - the page cache: address_spaces whose i_pages hold folios and the
 * shadow entries evicted folios leave (kernel: mm/filemap.c filemap_add_folio,
 * filemap_read/filemap_fault's lookups, __filemap_remove_folio; mm/vmscan.c
 * __remove_mapping; mm/truncate.c).
 *
 * A folio in a page cache holds one reference for the cache (the one
 * msim_folio_alloc() returned) and points back to its (mapping, index) through
 * folio->private. The xa lock (i_pages) serialises stores into a mapping; the
 * shadow tracker (nodes.c) is its update hook, so every store that makes a node
 * shadow-only, or no longer so, puts it on shadow_nodes or takes it off before
 * the lock is dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <memcgsim/rcu.h>

#include "workingset/ws_internal.h"

int msim_address_space_create(struct msim *m, const char *name, struct msim_address_space **out)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	struct msim_address_space *mapping;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!wh)
		return -ENODEV;
	mapping = calloc(1, sizeof(*mapping));
	if (!mapping)
		return -ENOMEM;
	mapping->m = m;
	mapping->wh = wh;
	snprintf(mapping->name, sizeof(mapping->name), "%s", name ? name : "file");
	msim_xa_init(m, &mapping->i_pages, "page cache");
	msim_xa_set_update(&mapping->i_pages, msim__workingset_update_node, mapping);
	msim_spin_lock_init(&mapping->i_lock, "i_lock");
	*out = mapping;
	return 0;
}

struct msim_xarray *msim_mapping_i_pages(struct msim_address_space *mapping)
{
	return mapping ? &mapping->i_pages : NULL;
}

unsigned long msim_mapping_nrpages(struct msim_address_space *mapping)
{
	return mapping ? msim_quiet_load(&mapping->nrpages, MSIM_RELAXED) : 0;
}

unsigned long msim_mapping_nrshadows(struct msim_address_space *mapping)
{
	return mapping ? msim_quiet_load(&mapping->nrshadows, MSIM_RELAXED) : 0;
}

/* The entry at index leaves the cache (xa lock held); a folio loses the cache's reference. */
static struct msim_folio *truncate_entry(struct msim_address_space *mapping, unsigned long index)
{
	void *old = msim_xa_erase_locked(&mapping->i_pages, index);

	if (!old)
		return NULL;
	if (msim_xa_is_value(old)) {
		mapping->nrshadows--;
		return NULL;
	}
	mapping->nrpages--;
	msim_lruvec_stat_mod_folio(old, MSIM_NR_FILE_PAGES, -msim_folio_nr_pages(old));
	return old;
}

void msim_address_space_destroy(struct msim_address_space *mapping)
{
	unsigned long index = 0;
	void *entry;

	if (!mapping)
		return;
	while ((entry = msim_xa_find(&mapping->i_pages, &index, ~0UL, MSIM_XA_PRESENT))) {
		struct msim_folio *folio;

		msim_xa_lock(&mapping->i_pages);
		folio = truncate_entry(mapping, index);
		msim_xa_unlock(&mapping->i_pages);
		if (folio) {
			msim__ws_page_free(folio);
			msim_folio_put(folio);   /* the last: off its LRU, uncharged, freed */
		}
	}
	msim_xa_fini(&mapping->i_pages);
	msim_lock_destroy(&mapping->i_lock);
	free(mapping);
}

/*
 * A resident folio. Through a file descriptor: folio_mark_accessed(), and an
 * activation ages the nonresident clock. In a fault (filemap_map_pages /
 * do_read_fault): the folio is mapped, and the access sets its PTE's accessed
 * bit, which reclaim's rmap walk finds (folio_referenced).
 */
static int filemap_hit(struct msim_folio *folio, bool in_fault)
{
	bool was_active = msim_folio_test_active(folio);

	if (in_fault) {
		if (!msim_folio_mapped(folio))
			msim_folio_map(folio, false);
		else
			msim_folio_mark_young(folio);
		msim_folio_put(folio);
		return MSIM_FILEMAP_HIT;
	}
	msim_folio_mark_accessed(folio);
	if (!was_active && msim_folio_test_active(folio))
		msim_workingset_activation(folio);
	msim_folio_put(folio);
	return MSIM_FILEMAP_HIT;
}

/* filemap_get_folio(): a resident folio with a reference, or NULL. */
static struct msim_folio *filemap_get_folio(struct msim_address_space *mapping, unsigned long index)
{
	struct msim_folio *folio = NULL;
	void *entry;

	msim_rcu_read_lock();
	entry = msim_xa_load(&mapping->i_pages, index);
	if (entry && !msim_xa_is_value(entry) && msim_folio_try_get(entry))
		folio = entry;
	msim_rcu_read_unlock();
	return folio;
}

/*
 * __filemap_add_folio(): store folio at index, as memcg's on nid (the owner of
 * any node the store allocates). Returns the shadow it replaced (NULL: none),
 * or sets *err (-EEXIST: a folio is there, -ENOMEM).
 */
static void *filemap_store(struct msim_address_space *mapping, unsigned long index,
			   struct msim_folio *folio, struct msim_memcg *memcg, unsigned int nid,
			   int *err)
{
	void *old;

	msim_xa_lock(&mapping->i_pages);
	old = msim_xa_load(&mapping->i_pages, index);
	if (old && !msim_xa_is_value(old)) {
		msim_xa_unlock(&mapping->i_pages);
		*err = -EEXIST;
		return NULL;
	}
	mapping->charge_memcg = memcg;
	mapping->charge_nid = nid;
	old = msim_xa_store_locked(&mapping->i_pages, index, folio, err);
	mapping->charge_memcg = NULL;
	if (!*err) {
		mapping->nrpages++;
		msim_lruvec_stat_mod_folio(folio, MSIM_NR_FILE_PAGES, msim_folio_nr_pages(folio));
		if (old)
			mapping->nrshadows--;
	}
	msim_xa_unlock(&mapping->i_pages);
	return *err ? NULL : old;
}

/* A new folio for index, charged to memcg, with its page record; NULL and *err. */
static struct msim_folio *filemap_alloc_folio(struct msim_address_space *mapping,
					      unsigned long index, struct msim_memcg *memcg,
					      unsigned int nid, int *err)
{
	struct msim_folio *folio = msim_folio_alloc(mapping->m, MSIM_FOLIO_FILE, 0, nid,
						    MSIM_ZONE_NORMAL);
	struct msim__ws_page *rec = calloc(1, sizeof(*rec));

	if (!folio || !rec) {
		free(rec);
		if (folio)
			msim_folio_put(folio);
		*err = -ENOMEM;
		return NULL;
	}
	rec->mapping = mapping;
	rec->index = index;
	rec->magic = MSIM__WS_PAGE_MAGIC;
	msim_folio_set_private(folio, rec);
	*err = msim_mem_cgroup_charge(folio, memcg, MSIM_GFP_KERNEL);
	if (!*err)
		*err = msim_memcg_list_lru_alloc(memcg, &mapping->wh->shadow_nodes);
	if (*err) {
		msim__ws_page_free(folio);
		msim_folio_put(folio);
		return NULL;
	}
	return folio;
}

/* The miss path: filemap_add_folio() (store, workingset_refault, folio_add_lru). */
static int filemap_miss(struct msim_address_space *mapping, unsigned long index,
			struct msim_memcg *memcg, unsigned int nid, bool in_fault)
{
	struct msim__ws_host *wh = mapping->wh;
	bool activated = false;
	struct msim_folio *folio;
	void *shadow;
	int err = 0;

	folio = filemap_alloc_folio(mapping, index, memcg, nid, &err);
	if (!folio)
		return err;
	/* the reader's own reference; the allocation's becomes the cache's */
	msim_folio_get(folio);
	shadow = filemap_store(mapping, index, folio, memcg, nid, &err);
	if (err) {
		msim__ws_page_free(folio);
		msim_folio_put(folio);
		msim_folio_put(folio);
		return err;
	}
	if (shadow)
		activated = msim__ws_refault(wh, folio, shadow, in_fault);
	/* folio_add_lru(): under MGLRU a folio added in a fault starts active */
	if (wh->mglru && in_fault)
		msim_folio_set_active(folio);
	msim_folio_add_lru(folio);
	/* the fault maps it (a young PTE) */
	if (in_fault)
		msim_folio_map(folio, false);
	msim_folio_put(folio);            /* the read is done */
	MSIM__WS_COUNT(wh, misses, 1);
	if (!shadow)
		return MSIM_FILEMAP_MISS;
	return activated ? MSIM_FILEMAP_REFAULT_ACTIVATED : MSIM_FILEMAP_REFAULT;
}

int msim_filemap_read(struct msim_address_space *mapping, unsigned long index,
		      struct msim_memcg *memcg, unsigned int nid, bool in_fault)
{
	struct msim_folio *folio;
	int ret;

	if (!mapping || !memcg || nid >= mapping->wh->nr_nodes)
		return -EINVAL;
	MSIM__WS_COUNT(mapping->wh, reads, 1);
	for (unsigned int tries = 0; tries < 2; tries++) {
		folio = filemap_get_folio(mapping, index);
		if (folio) {
			MSIM__WS_COUNT(mapping->wh, hits, 1);
			return filemap_hit(folio, in_fault);
		}
		ret = filemap_miss(mapping, index, memcg, nid, in_fault);
		if (ret != -EEXIST)
			return ret;
	}
	return -EEXIST;
}

/*
 * kernel: __remove_mapping() for a page cache folio: under the xa lock, the
 * refcount freeze (only reclaim's isolation reference and the cache's), then
 * workingset_eviction and __filemap_remove_folio(folio, shadow).
 */
enum msim_reclaim_verdict msim_filemap_evict(struct msim_folio *folio,
					     struct msim_memcg *target_memcg, void *arg)
{
	struct msim__ws_page *rec = msim__ws_page_of(folio);
	struct msim_address_space *mapping;
	void *shadow;
	int err = 0;

	(void)arg;
	if (!rec) {
		msim_folio_put(folio);
		return MSIM_RECLAIM_FREE;
	}
	mapping = rec->mapping;
	msim_xa_lock(&mapping->i_pages);
	if (msim_folio_ref_count(folio) != 2) {
		msim_xa_unlock(&mapping->i_pages);
		MSIM__WS_COUNT(mapping->wh, evict_busy, 1);
		return MSIM_RECLAIM_KEEP;
	}
	shadow = msim_workingset_eviction(folio, target_memcg);
	msim_xa_store_locked(&mapping->i_pages, rec->index, shadow, &err);
	mapping->nrpages--;
	/* filemap_unaccount_folio() */
	msim_lruvec_stat_mod_folio(folio, MSIM_NR_FILE_PAGES, -msim_folio_nr_pages(folio));
	mapping->nrshadows++;
	msim_xa_unlock(&mapping->i_pages);
	MSIM__WS_COUNT(mapping->wh, shadows_stored, 1);
	msim__ws_page_free(folio);
	msim_folio_put(folio);            /* the cache's reference */
	return MSIM_RECLAIM_FREE;
}
