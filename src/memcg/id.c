/* SPDX-License-Identifier: MIT */
/*
 * id.c - memcg private ids (kernel: mm/memcontrol.c mem_cgroup_ids, an xarray
 * allocating from 1 to MEM_CGROUP_ID_MAX = 65535).
 *
 * Lifetime, as in the kernel:
 *  - mem_cgroup_alloc() reserves the lowest free id with a NULL entry (here a
 *    marker, as msim_idr_alloc() wants a non-NULL pointer), so lookups miss it;
 *  - the end of mem_cgroup_css_online() sets id.ref = 1, takes a css reference
 *    for the id and publishes the memcg with xa_store;
 *  - mem_cgroup_private_id_put() dropping id.ref to 0 erases the id (it becomes
 *    reusable at once, lowest first), sets memcg->id.id = 0 and puts the css.
 *    Offline drops the online id reference; swap entries hold their own.
 */
#include <errno.h>

#include "memcg/memcg_internal.h"

long msim__memcg_id_reserved;

/* kernel: mem_cgroup_alloc() -> xa_alloc(&mem_cgroup_ids, &id, NULL, XA_LIMIT(1, MAX)). */
int msim__memcg_id_reserve(struct msim_memcg *memcg)
{
	long id = msim_idr_alloc(&memcg->h->ids, &msim__memcg_id_reserved, 1,
				 MSIM_MEM_CGROUP_ID_MAX);

	if (id < 0)
		return id == -EINVAL ? -EINVAL : -ENOSPC;
	msim_quiet_store(&memcg->id, (unsigned short)id, MSIM_RELAXED);  /* not published yet */
	return 0;
}

/* kernel: mem_cgroup_css_online() ends with xa_store(&mem_cgroup_ids, id, memcg). */
void msim__memcg_id_publish(struct msim_memcg *memcg)
{
	msim_yield_access("memcg.id.publish", NULL, MSIM_ACCESS_NONE); /* the idr lock */
	msim_idr_replace(&memcg->h->ids, memcg, memcg->id);
}

/* kernel: mem_cgroup_id_remove() on a failed mkdir. */
void msim__memcg_id_unreserve(struct msim_memcg *memcg)
{
	/* No yield of its own: it follows memcg.id.put, or a failed mkdir (never published). */
	unsigned short id = msim_quiet_xchg(&memcg->id, 0, MSIM_RELAXED);

	if (id)
		msim_idr_remove(&memcg->h->ids, id);
}

/* kernel: mem_cgroup_private_id() (memcg->id.id). 0 once the id was removed. */
unsigned short msim_mem_cgroup_private_id(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	/* No yield: the id changes only when its last reference goes, at memcg.id.put. */
	return msim_quiet_load(&memcg->id, MSIM_RELAXED);
}

/* kernel: mem_cgroup_private_id_get_many(memcg, 1): the caller holds an id ref. */
void msim_mem_cgroup_private_id_get(struct msim_memcg *memcg)
{
	long old;

	MSIM__MEMCG_ASSERT(memcg);
	old = msim_fetch_add_at(&memcg->id_ref, 1, MSIM_RELAXED, "memcg.id.get");
	assert(old > 0 && "private id get after the id was freed");
	(void)old;
}

/*
 * kernel: mem_cgroup_private_id_put_many(memcg, 1): the last reference erases the
 * id (mem_cgroup_id_remove) and puts the css the id pinned.
 */
void msim_mem_cgroup_private_id_put(struct msim_memcg *memcg)
{
	long n;

	MSIM__MEMCG_ASSERT(memcg);
	n = msim_sub_return_at(&memcg->id_ref, 1, MSIM_ACQ_REL, "memcg.id.put");
	assert(n >= 0 && "private id put underflow");
	if (n != 0)
		return;
	msim__memcg_id_unreserve(memcg);
	msim_css_put(memcg);
}

/* kernel: mem_cgroup_from_private_id(): xa_load under rcu_read_lock(). */
struct msim_memcg *msim_mem_cgroup_from_private_id(struct msim *m, unsigned short id)
{
	struct msim__memcg_host *h = msim__memcg_host(m);
	void *p;

	if (!h || id == 0)
		return NULL;
	p = msim_idr_find(&h->ids, id);
	return p == &msim__memcg_id_reserved ? NULL : p;
}
