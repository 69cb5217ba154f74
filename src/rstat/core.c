/* SPDX-License-Identifier: MIT */
/*
 * core.c - the cgroup rstat core for the memory controller: the lockless per-CPU
 * llist enqueue, the per-CPU updated tree and the flush that walks CPUs one at a
 * time under the subsystem lock.
 *
 * kernel: kernel/cgroup/rstat.c (6.17+ design: per-subsystem lock and llists).
 *
 * Simplifications (docs/rstat.md):
 *  - only the memory controller uses this core, so "ss" is the host;
 *  - the flush list of one CPU is built level by level like
 *    css_rstat_push_children(): children always before their parent; the order
 *    among siblings may differ from the kernel's;
 *  - the NMI guard and the cgroup base stats (rstat_base_lock) are not modelled.
 */
#include <assert.h>
#include <stdint.h>

#include "rstat_internal.h"

static inline long self_of(struct msim__rstat_cpu *rc)
{
	return (long)(intptr_t)rc;
}

static inline long *lhead_of(struct msim__rstat *rs, unsigned int cpu)
{
	return msim_per_cpu_ptr(rs->lhead, cpu);
}

void msim__rstat_cpu_init(struct msim__memcg_stats *ms)
{
	for (unsigned int cpu = 0; cpu < ms->rs->nr_cpus; cpu++) {
		struct msim__rstat_cpu *rc = msim__rcpu(ms, cpu);

		rc->ms = ms;
		rc->lnode_next = self_of(rc);   /* off-list: points to itself */
		rc->updated_children = rc;      /* no updated children */
		rc->updated_next = NULL;        /* not on the tree */
	}
}

/*
 * kernel: __css_rstat_updated(css, cpu). Lockless: a racy on-list test, a claim
 * (cmpxchg of the node's next from self to NULL) that only one caller wins, then
 * llist_add onto the CPU's list. The tree is not touched here.
 */
void msim__css_rstat_updated(struct msim__memcg_stats *ms, unsigned int cpu,
			     struct msim__pending_store *ps)
{
	struct msim__rstat *rs = ms->rs;
	struct msim__rstat_cpu *rc = msim__rcpu(ms, cpu);
	long *head = lhead_of(rs, cpu);
	long self = self_of(rc), first;

	/*
	 * llist_on_list(): racy, and not ordered after the caller's state store
	 * (no smp_mb: R5). An updater that finds the node on-list returns here;
	 * under params.store_buffer its store may still be buffered (the caller
	 * drains it), otherwise (SC) a flusher that pops the node later sees it.
	 */
	if (msim__ld(&rc->lnode_next, "rstat.update.after_state") != self)
		return;
	/* the claim's cmpxchg is a locked instruction: the store buffer drains */
	msim__store_drain(ps);
	if (!msim__cmpxchg(&rc->lnode_next, &self, 0, "rstat.enqueue.claim"))
		return;
	MSIM__CTR(rs, enqueues);
	/* llist_add(): link to the current first node, then swing the head. */
	first = msim__ld(head, "rstat.enqueue.head");
	do {
		MSIM__ST(&rc->lnode_next, first);
	} while (!msim__cmpxchg(head, &first, self_of(rc), "rstat.enqueue.add"));
}

/*
 * kernel: __css_process_update_tree(): link ms and its ancestors into cpu's
 * updated tree, bottom-up, stopping at the first one already linked. Under lock.
 */
static void process_update_tree_one(struct msim__memcg_stats *ms, unsigned int cpu)
{
	while (ms) {
		struct msim__rstat_cpu *rc = msim__rcpu(ms, cpu);
		struct msim__rstat_cpu *prc;

		if (rc->updated_next)
			break;
		if (!ms->parent) {
			rc->updated_next = rc;   /* the root marks itself linked */
			break;
		}
		prc = msim__rcpu(ms->parent, cpu);
		rc->updated_next = prc->updated_children;
		prc->updated_children = rc;
		ms = ms->parent;
	}
}

/*
 * kernel: css_process_update_tree(): drain the whole per-CPU llist (every memcg,
 * not only the subtree being flushed), re-initialising each node off-list.
 * Only flushers delete, under the lock, so llist_del_first is safe.
 */
static void process_update_tree(struct msim__rstat *rs, unsigned int cpu)
{
	long *head = lhead_of(rs, cpu);

	for (;;) {
		long first = msim__ld_acquire(head, "rstat.flush.pop");
		struct msim__rstat_cpu *rc;

		if (!first)
			break;
		rc = (struct msim__rstat_cpu *)(intptr_t)first;
		if (!msim__cmpxchg(head, &first, MSIM__LD(&rc->lnode_next), "rstat.flush.pop"))
			continue;
		/* init_llist_node(): off-list again; a new update may enqueue it now. */
		msim__st(&rc->lnode_next, self_of(rc), "rstat.flush.node_init");
		process_update_tree_one(rc->ms, cpu);
	}
}

/* Unlink rc from its parent's updated_children list (sibling lists end at the parent). */
static void unlink_from_parent(struct msim__rstat_cpu *rc, unsigned int cpu)
{
	struct msim__rstat_cpu *prc, **pp;

	if (!rc->ms->parent)
		return;
	prc = msim__rcpu(rc->ms->parent, cpu);
	for (pp = &prc->updated_children; *pp != prc; pp = &(*pp)->updated_next) {
		if (*pp == rc) {
			*pp = rc->updated_next;
			return;
		}
	}
	assert(!"rstat: updated node missing from its parent's list");
}

/*
 * kernel: css_rstat_push_children(): the flush list, level by level, each node
 * unlinked as it goes; children come before their parent, the subtree root last.
 */
static struct msim__rstat_cpu *push_children(struct msim__rstat_cpu *root, unsigned int cpu)
{
	struct msim__rstat_cpu *head = root, *lists = NULL;

	root->flush_next = NULL;
	if (root->updated_children != root) {
		lists = root->updated_children;
		lists->ghead_next = NULL;
		root->updated_children = root;
	}
	while (lists) {
		struct msim__rstat_cpu *next_lists = NULL, *g, *gnext;

		for (g = lists; g; g = gnext) {
			/* g heads one sibling list, which ends at the siblings' parent */
			struct msim__rstat_cpu *parent = msim__rcpu(g->ms->parent, cpu);
			struct msim__rstat_cpu *c, *cn;

			gnext = g->ghead_next;
			for (c = g; c != parent; c = cn) {
				struct msim__rstat_cpu *gc = c->updated_children;

				cn = c->updated_next;
				c->updated_next = NULL;
				c->flush_next = head;
				head = c;
				if (gc != c) {
					c->updated_children = c;
					gc->ghead_next = next_lists;
					next_lists = gc;
				}
			}
		}
		lists = next_lists;
	}
	return head;
}

/* kernel: css_rstat_updated_list(): the flush list of ms's subtree on cpu. */
static struct msim__rstat_cpu *updated_list(struct msim__memcg_stats *ms, unsigned int cpu)
{
	struct msim__rstat_cpu *rc = msim__rcpu(ms, cpu);

	process_update_tree(ms->rs, cpu);
	if (!rc->updated_next)
		return NULL;
	unlink_from_parent(rc, cpu);
	rc->updated_next = NULL;
	return push_children(rc, cpu);
}

/* One CPU of a flush: lock, build the list, fold each memcg, unlock. */
static void flush_one_cpu(struct msim__memcg_stats *ms, unsigned int cpu)
{
	struct msim__rstat *rs = ms->rs;
	struct msim__rstat_cpu *pos;

	msim_yield("rstat.flush.cpu_start");
	msim_lock(&rs->lock);
	MSIM__CTR(rs, cpu_visits);
	for (pos = updated_list(ms, cpu); pos; pos = pos->flush_next)
		msim__memcg_rstat_flush_cpu(pos->ms, cpu);
	msim_unlock(&rs->lock);
	/* cond_resched(): other updates and flushes interleave between CPUs. */
	msim_yield("rstat.flush.cpu_done");
}

/*
 * kernel: css_rstat_flush(css): every possible CPU, the lock taken and released
 * per CPU, so flushes of overlapping subtrees interleave CPU by CPU.
 */
void msim__css_rstat_flush(struct msim__memcg_stats *ms)
{
	struct msim__rstat *rs = ms->rs;

	msim__exit_list_process(rs);
	MSIM__CTR(rs, flushes);
	for (unsigned int cpu = 0; cpu < rs->nr_cpus; cpu++)
		flush_one_cpu(ms, cpu);
	msim_yield("rstat.flush.done");
}

/* True if a driver-context caller could not take the lock (a parked task holds it). */
static bool lock_for_exit(struct msim__rstat *rs, bool may_defer)
{
	if (!may_defer || msim_current_task())
		msim_lock(&rs->lock);
	else if (!msim_trylock(&rs->lock))
		return false;
	return true;
}

/*
 * kernel: css_rstat_exit(): flush ms on every CPU and take it off the trees, so
 * its per-CPU data can be freed. Its children are gone already (a child holds a
 * reference on its parent), so its subtree is itself. When called from driver
 * context (an RCU callback) while a parked task holds the lock, nothing is done
 * and false is returned: the caller defers the exit to the next flush.
 */
bool msim__css_rstat_exit(struct msim__memcg_stats *ms, bool may_defer)
{
	struct msim__rstat *rs = ms->rs;

	for (unsigned int cpu = 0; cpu < rs->nr_cpus; cpu++) {
		struct msim__rstat_cpu *rc = msim__rcpu(ms, cpu), *pos;

		if (!lock_for_exit(rs, may_defer && cpu == 0))
			return false;
		for (pos = updated_list(ms, cpu); pos; pos = pos->flush_next)
			msim__memcg_rstat_flush_cpu(pos->ms, cpu);
		/* Off every list: nobody updates a freed memcg, so it stays off. */
		assert(MSIM__LD(&rc->lnode_next) == self_of(rc));
		assert(!rc->updated_next && rc->updated_children == rc);
		(void)rc; /* only the asserts read it: release builds define NDEBUG */
		msim_unlock(&rs->lock);
	}
	return true;
}

bool msim__rstat_queued(struct msim__memcg_stats *ms, unsigned int cpu)
{
	struct msim__rstat_cpu *rc = msim__rcpu(ms, cpu);

	return MSIM__LD(&rc->lnode_next) != self_of(rc) || rc->updated_next;
}
