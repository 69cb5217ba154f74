/* SPDX-License-Identifier: MIT */
/*
 * objcg_reparent.c - memcg_reparent_objcgs(): at offline, per node, the dying
 * memcg's LRU folios and objcgs move to its parent (mm/memcontrol.c newest,
 * mem_cgroup_css_offline() step 5; docs/lru.md).
 *
 * Per node, in one lock section:
 *
 *   retry:
 *     prepare             MGLRU: max_lru_gen_memcg(parent, nid), no lock held
 *     objcg_lock
 *     lock                child lruvec lru_lock, then the parent's (nested)
 *     recheck             MGLRU: the parent still has MAX_NR_GENS generations?
 *                         no: unlock both, cond_resched(), goto retry
 *     reparent            lru_reparent_memcg / lru_gen_reparent_memcg
 *     __memcg_reparent_objcgs
 *     unlock; objcg_unlock
 *     percpu_ref_kill(the node's objcg)
 *
 * Why one section: a reader that locks a folio's lruvec (folio_lruvec_lock) and
 * then finds folio_memcg() unchanged holds the lock the move needs, so a folio's
 * memcg and its list change together. Nodes are handled one at a time with the
 * locks dropped in between, so mid-offline a folio on a node already done reads
 * the parent and one on a node not yet reached reads the child.
 */
#include "memcg/objcg_internal.h"

/*
 * kernel: __memcg_reparent_objcgs(): the node's active objcg joins the objcgs
 * the memcg inherited from its dead descendants; all of them are repointed to
 * the parent and moved to the parent's list. Returns the active objcg.
 */
static struct msim_obj_cgroup *reparent_objcgs_locked(struct msim__objcg_host *h,
						      struct msim__objcg_pn *pn,
						      struct msim__objcg_pn *ppn,
						      struct msim_memcg *parent)
{
	struct msim_obj_cgroup *objcg = pn->objcg;
	struct msim_list_head *p;

	/* rcu_replace_pointer(pn->objcg, NULL): readers now walk to the parent's. */
	msim_rcu_assign_pointer((void **)&pn->objcg, NULL);
	msim_list_add(&objcg->list, &pn->objcg_list);
	for (p = pn->objcg_list.next; p != &pn->objcg_list; p = p->next) {
		struct msim_obj_cgroup *iter = msim_container_of(p, struct msim_obj_cgroup, list);

		msim_store_at(&iter->memcg, parent, MSIM_RELAXED, "objcg.memcg.write");
		msim_quiet_fetch_add(&h->reparented_total, 1, MSIM_RELAXED);
	}
	msim_list_splice_init(&pn->objcg_list, &ppn->objcg_list);
	return objcg;
}

/* One node: the sequence in the header comment. */
static void reparent_node(struct msim__objcg_host *h, struct msim_memcg *memcg,
			  struct msim_memcg *parent, struct msim__objcg_pn *pn,
			  struct msim__objcg_pn *ppn, unsigned int nid)
{
	const struct msim_objcg_reparent_ops *ops = h->ops;
	void *arg = h->ops_arg;
	struct msim_obj_cgroup *objcg;

	for (;;) {
		if (ops && ops->prepare)
			ops->prepare(memcg, parent, nid, arg);
		/* what prepare did can be undone here; the step takes objcg_lock first */
		msim_yield_access("objcg.reparent.lock", NULL, MSIM_ACCESS_NONE);
		msim__objcg_lock(h);
		if (ops && ops->lock)
			ops->lock(memcg, parent, nid, arg);
		if (!ops || !ops->recheck || ops->recheck(parent, nid, arg))
			break;
		if (ops->unlock)
			ops->unlock(memcg, parent, nid, arg);
		msim__objcg_unlock(h);
		msim_quiet_fetch_add(&h->reparent_retries, 1, MSIM_RELAXED);
		/*
		 * cond_resched(). The step runs prepare up to its first shim (the lru
		 * layer's: the lruvec lock), or reaches objcg.reparent.lock: nothing
		 * shared before a point that announces its own access.
		 */
		msim_yield_access("objcg.reparent.retry", NULL, MSIM_ACCESS_NONE);
	}
	if (ops && ops->reparent)
		ops->reparent(memcg, parent, nid, arg);
	objcg = reparent_objcgs_locked(h, pn, ppn, parent);
	if (ops && ops->unlock)
		ops->unlock(memcg, parent, nid, arg);
	msim__objcg_unlock(h);
	msim__obj_cgroup_kill(objcg);
}

void msim__memcg_reparent_objcgs(struct msim__objcg_host *h, struct msim_memcg *memcg,
				 struct msim__objcg_memcg *child, struct msim__objcg_memcg *parent)
{
	struct msim_memcg *pmemcg = msim_parent_mem_cgroup(memcg);

	for (unsigned int nid = 0; nid < h->nr_nodes; nid++) {
		if (!child->pn[nid].objcg)
			continue;     /* online never published one (a failed mkdir) */
		reparent_node(h, memcg, pmemcg, &child->pn[nid], &parent->pn[nid], nid);
	}
}
