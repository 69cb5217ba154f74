/* SPDX-License-Identifier: MIT */
/*
 * ws_host.c - the workingset layer's per-host and per-memcg state and lookups.
 *
 * kernel: lruvec->nonresident_age lives in the lruvec (mem_cgroup_per_node),
 * allocated with the memcg and freed with it; here it is this layer's per-memcg
 * data (a memcg hook slot), one clock per node.
 */
#include <stdlib.h>

#include "workingset/ws_internal.h"

static const char *const ws_deps[] = { "lru", "list_lru", NULL };

static bool ws_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;
}

/* Its callbacks are filled in by workingset.c, the top of the layer. */
struct msim_subsys msim_workingset_subsys = {
	.name = "workingset",
	.depends = ws_deps,
	.enabled = ws_enabled,
	.state_size = sizeof(struct msim__ws_host),
};

struct msim__ws_host *msim__ws_host(const struct msim *m)
{
	return m ? msim_subsys_state(m, &msim_workingset_subsys) : NULL;
}

bool msim_workingset_attached(const struct msim *m)
{
	return msim__ws_host(m) != NULL;
}

msim_atomic_long_t *msim__ws_nonresident_age(struct msim__ws_host *wh, struct msim_memcg *memcg,
					     unsigned int nid)
{
	struct msim__ws_memcg *wm;

	if (!wh || nid >= wh->nr_nodes || wh->slot < 0)
		return NULL;
	if (!memcg)
		memcg = msim_root_mem_cgroup(wh->m);
	wm = *msim_memcg_slot(memcg, wh->slot);
	return wm ? &wm->nonresident_age[nid] : NULL;
}

struct msim__ws_memcg *msim__ws_memcg_alloc(struct msim__ws_host *wh, struct msim_memcg *memcg)
{
	struct msim__ws_memcg *wm;

	wm = calloc(1, sizeof(*wm) + wh->nr_nodes * sizeof(wm->nonresident_age[0]));
	if (wm)
		wm->memcg = memcg;
	return wm;
}

struct msim__ws_page *msim__ws_page_of(const struct msim_folio *folio)
{
	struct msim__ws_page *rec = msim_folio_private(folio);

	return rec && rec->magic == MSIM__WS_PAGE_MAGIC ? rec : NULL;
}

void msim__ws_page_free(struct msim_folio *folio)
{
	struct msim__ws_page *rec = msim__ws_page_of(folio);

	msim_folio_set_private(folio, NULL);
	free(rec);
}

void msim__ws_page_forget(struct msim_folio *folio)
{
	msim__ws_page_free(folio);
	msim_folio_put(folio);
}

unsigned long msim_workingset_nonresident_age(struct msim *m, struct msim_memcg *memcg,
					      unsigned int nid)
{
	msim_atomic_long_t *age = msim__ws_nonresident_age(msim__ws_host(m), memcg, nid);

	return age ? (unsigned long)msim_atomic_long_read(age) : 0;
}

struct msim_list_lru *msim_workingset_shadow_nodes(struct msim *m)
{
	struct msim__ws_host *wh = msim__ws_host(m);

	return wh && wh->shadow_nodes_ready ? &wh->shadow_nodes : NULL;
}

struct msim_shrinker *msim_workingset_shrinker(struct msim *m)
{
	struct msim__ws_host *wh = msim__ws_host(m);

	return wh ? wh->shrinker : NULL;
}

unsigned long msim_workingset_nodes(struct msim *m, unsigned int nid)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	long v;

	if (!wh || nid >= wh->nr_nodes)
		return 0;
	v = msim_quiet_load(&wh->workingset_nodes[nid], MSIM_RELAXED);
	return v > 0 ? (unsigned long)v : 0;
}

void msim_workingset_counts(struct msim *m, struct msim_workingset_counts *out)
{
	struct msim__ws_host *wh = msim__ws_host(m);
	const unsigned long *src;
	unsigned long *dst = (unsigned long *)out;
	size_t n = sizeof(*out) / sizeof(unsigned long);

	if (!out)
		return;
	if (!wh) {
		for (size_t i = 0; i < n; i++)
			dst[i] = 0;
		return;
	}
	src = (const unsigned long *)&wh->counts;
	for (size_t i = 0; i < n; i++)
		dst[i] = msim_quiet_load(&src[i], MSIM_RELAXED);
}
