/* SPDX-License-Identifier: MIT */
/*
 * core.c - the generic cgroup rstat core: the lockless per-CPU llist enqueue,
 * the per-CPU updated tree and the flush that walks CPUs one at a time under
 * the subsystem lock, calling the subsystem's css_rstat_flush for every updated
 * css (core.h says why that callback is the only way up).
 *
 * kernel: kernel/cgroup/rstat.c (6.17+ design: per-subsystem lock and llists).
 *
 * Simplifications (docs/rstat.md):
 *  - only the memory controller uses this core (one ss per host);
 *  - the flush list of one CPU is built level by level like
 *    css_rstat_push_children(): children always before their parent; the order
 *    among siblings may differ from the kernel's;
 *  - the NMI guard (no NMI-safe cmpxchg on the arch) and the cgroup base stats
 *    (rstat_base_lock) are not modelled.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>

#include "rstat/core.h"

#define SS_CTR(ss, field) ((void)msim_quiet_fetch_add(&(ss)->ctr->field, 1, MSIM_RELAXED))

static inline long self_of(struct msim__rstat_cpu *rc)
{
	return (long)(intptr_t)rc;
}

/* lnode_next's encoding (core.h): the stored word is next ^ self, 0 off-list. */
#define LNODE_OFF_LIST 0L

static inline long lnode_enc(struct msim__rstat_cpu *rc, long next)
{
	return next ^ self_of(rc);
}

/*
 * rc's owner. The updater that claims the node and a flusher that links it as an
 * ancestor may both write it (the same value), so it is a relaxed atomic.
 */
static inline void set_owner(struct msim__rstat_cpu *rc, struct msim__rstat_css *css)
{
	msim_quiet_store(&rc->css, css, MSIM_RELAXED);
}

static inline struct msim__rstat_css *owner_of(struct msim__rstat_cpu *rc)
{
	return msim_quiet_load(&rc->css, MSIM_RELAXED);
}

/* The head of rc's updated children (itself when none: NULL is stored for that). */
static inline struct msim__rstat_cpu *children_of(struct msim__rstat_cpu *rc)
{
	return rc->updated_children ? rc->updated_children : rc;
}

static inline long *lhead_of(struct msim__rstat_ss *ss, unsigned int cpu)
{
	return msim_per_cpu_ptr(ss->lhead, cpu);
}

static inline struct msim__rstat_cpu *rcpu_of(const struct msim__rstat_css *css, unsigned int cpu)
{
	return msim_per_cpu_ptr(css->rstat_cpu, cpu);
}

/* kernel: css_rstat_init() (the per-CPU allocation is the caller's, for its accounting). */
void msim__css_rstat_init(struct msim__rstat_css *css, struct msim__rstat_ss *ss,
			  struct msim__rstat_css *parent, struct msim__rstat_cpu *rstat_cpu)
{
	css->ss = ss;
	css->parent = parent;
	css->rstat_cpu = rstat_cpu;
	/*
	 * Every CPU's node starts zeroed, which encodes the kernel's initial state
	 * (core.h): off-list, no updated children, not on the tree.
	 */
}

/*
 * kernel: __css_rstat_updated(css, cpu), past the on-list test (core.h): a
 * claim (cmpxchg of the node's next from self to NULL) that only one caller
 * wins, then llist_add onto the CPU's list. The tree is not touched here.
 */
void msim__css_rstat_enqueue(struct msim__rstat_css *css, unsigned int cpu)
{
	struct msim__rstat_ss *ss = css->ss;
	struct msim__rstat_cpu *rc = rcpu_of(css, cpu);
	long *head = lhead_of(ss, cpu);
	long off = LNODE_OFF_LIST, first;

	/* the claim's cmpxchg is a locked instruction: the store buffer drains (atomic.h) */
	/*
	 * The claim: of the contexts stacked on this CPU (task, softirq, hardirq,
	 * NMI) that all passed the on-list test, only the first cmpxchg wins.
	 * Without it (rstat-enqueue-claim=off) an interrupt between the test and
	 * llist_add inserts the node, and the interrupted add links it to itself.
	 */
	if (!ss->no_claim &&
	    !msim_try_cmpxchg_at(&rc->lnode_next, &off, lnode_enc(rc, 0), MSIM_SEQ_CST,
				 MSIM_RELAXED, "rstat.enqueue.claim"))
		return;
	SS_CTR(ss, enqueues);
	set_owner(rc, css);   /* for the flusher that pops it (core.h) */
	/*
	 * llist_add(): link to the current first node, then swing the head. The
	 * link needs no yield: the claimed node is nobody else's until the head
	 * points to it.
	 */
	first = msim_read_once_at(head, "rstat.enqueue.head");
	do {
		msim_quiet_store(&rc->lnode_next, lnode_enc(rc, first), MSIM_RELAXED);
	} while (!msim_try_cmpxchg_at(head, &first, self_of(rc), MSIM_SEQ_CST, MSIM_RELAXED,
				      "rstat.enqueue.add"));
}

/*
 * kernel: __css_process_update_tree(): link css and its ancestors into cpu's
 * updated tree, bottom-up, stopping at the first one already linked. Under lock.
 */
static void process_update_tree_one(struct msim__rstat_css *css, unsigned int cpu)
{
	while (css) {
		struct msim__rstat_cpu *rc = rcpu_of(css, cpu);
		struct msim__rstat_cpu *prc;

		if (rc->updated_next)
			break;
		set_owner(rc, css);   /* linked as an ancestor, maybe never enqueued here */
		if (!css->parent) {
			rc->updated_next = rc;   /* the root marks itself linked */
			break;
		}
		prc = rcpu_of(css->parent, cpu);
		rc->updated_next = children_of(prc);
		prc->updated_children = rc;
		css = css->parent;
	}
}

/*
 * kernel: css_process_update_tree(): drain the whole per-CPU llist (every css,
 * not only the subtree being flushed), re-initialising each node off-list.
 * Only flushers delete, under the lock, so llist_del_first is safe.
 */
static void process_update_tree(struct msim__rstat_ss *ss, unsigned int cpu)
{
	long *head = lhead_of(ss, cpu);

	for (;;) {
		/* Acquire: a popped llist node was initialised by the CPU that enqueued it. */
		long first = msim_load_at(head, MSIM_ACQUIRE, "rstat.flush.pop");
		struct msim__rstat_cpu *rc;
		long next;

		if (!first)
			break;
		rc = (struct msim__rstat_cpu *)(intptr_t)first;
		/*
		 * The popped node's link is read before the cmpxchg's yield, as
		 * llist_del_first() does; no yield of its own: only a flusher, under
		 * ss->lock, changes the link of a node that is on the list.
		 */
		next = lnode_enc(rc, msim_quiet_load(&rc->lnode_next, MSIM_RELAXED));
		if (!msim_try_cmpxchg_at(head, &first, next, MSIM_SEQ_CST, MSIM_RELAXED,
					 "rstat.flush.pop"))
			continue;
		/* init_llist_node(): off-list again; a new update may enqueue it now. */
		msim_write_once_at(&rc->lnode_next, LNODE_OFF_LIST, "rstat.flush.node_init");
		/* R5's other half: the unlink is visible before this CPU's state is read */
		if (ss->mb_pair)
			msim_smp_mb_quiet();
		process_update_tree_one(owner_of(rc), cpu);
	}
}

/* Unlink rc from its parent's updated_children list (sibling lists end at the parent). */
static void unlink_from_parent(struct msim__rstat_cpu *rc, unsigned int cpu)
{
	struct msim__rstat_cpu *prc, **pp;

	if (!owner_of(rc)->parent)
		return;
	prc = rcpu_of(owner_of(rc)->parent, cpu);
	for (pp = &prc->updated_children; *pp && *pp != prc; pp = &(*pp)->updated_next) {
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
	if (children_of(root) != root) {
		lists = root->updated_children;
		lists->ghead_next = NULL;
		root->updated_children = NULL;
	}
	while (lists) {
		struct msim__rstat_cpu *next_lists = NULL, *g, *gnext;

		for (g = lists; g; g = gnext) {
			/* g heads one sibling list, which ends at the siblings' parent */
			struct msim__rstat_cpu *parent = rcpu_of(owner_of(g)->parent, cpu);
			struct msim__rstat_cpu *c, *cn;

			gnext = g->ghead_next;
			for (c = g; c != parent; c = cn) {
				struct msim__rstat_cpu *gc = children_of(c);

				cn = c->updated_next;
				c->updated_next = NULL;
				c->flush_next = head;
				head = c;
				if (gc != c) {
					c->updated_children = NULL;
					gc->ghead_next = next_lists;
					next_lists = gc;
				}
			}
		}
		lists = next_lists;
	}
	return head;
}

/* kernel: css_rstat_updated_list(): the flush list of css's subtree on cpu. */
static struct msim__rstat_cpu *updated_list(struct msim__rstat_css *css, unsigned int cpu)
{
	struct msim__rstat_cpu *rc = rcpu_of(css, cpu);

	process_update_tree(css->ss, cpu);
	if (!rc->updated_next)
		return NULL;
	unlink_from_parent(rc, cpu);
	rc->updated_next = NULL;
	return push_children(rc, cpu);
}

/* One CPU of a flush: lock, build the list, fold each css (ss->css_rstat_flush), unlock. */
static void flush_one_cpu(struct msim__rstat_css *css, unsigned int cpu)
{
	struct msim__rstat_ss *ss = css->ss;
	struct msim__rstat_cpu *pos;
	struct msim_yield_ctx yc = { .object = NULL, .cpu = (int)cpu, .nid = -1 };
	const struct msim_yield_ctx *prev = msim_yield_ctx_enter(&yc);

	msim_yield_access("rstat.flush.cpu_start", NULL, MSIM_ACCESS_NONE); /* then the lock */
	msim_lock(&ss->lock);
	SS_CTR(ss, cpu_visits);
	for (pos = updated_list(css, cpu); pos; pos = pos->flush_next)
		ss->css_rstat_flush(owner_of(pos), cpu);
	msim_unlock(&ss->lock);
	/* cond_resched(): other updates and flushes interleave between CPUs. */
	msim_yield_access("rstat.flush.cpu_done", NULL, MSIM_ACCESS_NONE); /* next CPU's start */
	msim_yield_ctx_leave(prev);
}

/*
 * kernel: css_rstat_flush(css): every possible CPU, the lock taken and released
 * per CPU, so flushes of overlapping subtrees interleave CPU by CPU.
 */
void msim__css_rstat_flush(struct msim__rstat_css *css)
{
	struct msim__rstat_ss *ss = css->ss;

	SS_CTR(ss, flushes);
	for (unsigned int cpu = 0; cpu < ss->nr_cpus; cpu++)
		flush_one_cpu(css, cpu);
	/* the caller's next shared access is a shim's (yield.h) */
	msim_yield_access("rstat.flush.done", NULL, MSIM_ACCESS_NONE);
}

/* True if a driver-context caller could not take the lock (a parked task holds it). */
static bool lock_for_exit(struct msim__rstat_ss *ss, bool may_defer)
{
	if (!may_defer || msim_current_task())
		msim_lock(&ss->lock);
	else if (!msim_trylock(&ss->lock))
		return false;
	return true;
}

/*
 * kernel: css_rstat_exit(): flush css on every CPU and take it off the trees, so
 * its per-CPU data can be freed. Its children are gone already (a child holds a
 * reference on its parent), so its subtree is itself. When called from driver
 * context (an RCU callback) while a parked task holds the lock, nothing is done
 * and false is returned: the caller defers the exit to the next flush.
 */
bool msim__css_rstat_exit(struct msim__rstat_css *css, bool may_defer)
{
	struct msim__rstat_ss *ss = css->ss;

	for (unsigned int cpu = 0; cpu < ss->nr_cpus; cpu++) {
		struct msim__rstat_cpu *rc = rcpu_of(css, cpu), *pos;

		if (!lock_for_exit(ss, may_defer && cpu == 0))
			return false;
		for (pos = updated_list(css, cpu); pos; pos = pos->flush_next)
			ss->css_rstat_flush(owner_of(pos), cpu);
		/* Off every list: nobody updates a freed css, so it stays off. */
		assert(msim_quiet_load(&rc->lnode_next, MSIM_RELAXED) == LNODE_OFF_LIST);
		assert(!rc->updated_next && children_of(rc) == rc);
		(void)rc; /* only the asserts read it: release builds define NDEBUG */
		msim_unlock(&ss->lock);
	}
	return true;
}

bool msim__css_rstat_queued(struct msim__rstat_css *css, unsigned int cpu)
{
	struct msim__rstat_cpu *rc = rcpu_of(css, cpu);

	/* introspection (tests, reports): no yield */
	return msim_quiet_load(&rc->lnode_next, MSIM_RELAXED) != LNODE_OFF_LIST || rc->updated_next;
}

int msim__rstat_llist_len(struct msim__rstat_ss *ss, unsigned int cpu, int max)
{
	long node = msim_quiet_load(lhead_of(ss, cpu), MSIM_RELAXED);
	int n = 0;

	/* introspection (race checks): no yield; a node linked to itself loops */
	for (; node; n++) {
		struct msim__rstat_cpu *rc = (struct msim__rstat_cpu *)(intptr_t)node;

		if (n > max)
			return -ELOOP;
		node = msim_quiet_load(&rc->lnode_next, MSIM_RELAXED) ^ self_of(rc);
	}
	return n;
}
