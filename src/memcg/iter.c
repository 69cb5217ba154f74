/* SPDX-License-Identifier: MIT */
/*
 * iter.c - pre-order iteration of a memcg subtree (kernel: mm/memcontrol.c
 * mem_cgroup_iter() over kernel/cgroup/cgroup.c css_next_descendant_pre() and
 * css_next_child()).
 *
 * Why it is safe against a concurrent rmdir (and the release and free behind it):
 *  - the walk runs inside one RCU read-side section, and a memcg is freed only a
 *    grace period after it left its parent's list, so every node reached in the
 *    section stays allocated until the section ends;
 *  - the memcg handed back is pinned with css_tryget, and prev stays pinned until
 *    the walk from it is done, so the next call starts from allocated memory;
 *    a pinned memcg's ancestors are pinned by their children (each child holds a
 *    reference on its parent until it is freed);
 *  - nodes whose tryget fails (their last reference is gone) are skipped;
 *  - a node that was unlinked (released, or a failed mkdir) may point to stale
 *    siblings: the next sibling is then the first child of its parent with a
 *    higher serial, the kernel's CSS_RELEASED rule; children are appended in
 *    serial order, so this loses no sibling that is still linked.
 * An rmdir'ed memcg stays on its parent's list until released, so it is still
 * returned (the kernel's iterator returns offline memcgs likewise).
 *
 * Simplifications: no per-node reclaim cookie (shared iterator position), and
 * the root of the walk is returned with a reference like every other memcg (the
 * kernel returns it without one); msim_mem_cgroup_iter_break() always puts prev.
 */
#include "memcg/memcg_internal.h"

static struct msim_memcg *load_ptr(struct msim_memcg *const *p)
{
	return msim_rcu_dereference((void *const *)p);
}

/* kernel: css_next_child(pos, parent), under RCU. */
static struct msim_memcg *next_child(struct msim_memcg *pos, struct msim_memcg *parent)
{
	struct msim_memcg *next;

	if (!pos)
		return load_ptr(&parent->first_child);
	/* kernel: !(pos->flags & CSS_RELEASED); no yield, the rcu_dereference is the window */
	if (msim_quiet_load(&pos->linked, MSIM_ACQUIRE))
		return load_ptr(&pos->next_sibling);
	for (next = load_ptr(&parent->first_child); next; next = load_ptr(&next->next_sibling))
		if (next->serial > pos->serial)
			break;
	return next;
}

/* kernel: css_next_descendant_pre(pos, root), under RCU. */
static struct msim_memcg *next_descendant_pre(struct msim_memcg *pos, struct msim_memcg *root)
{
	struct msim_memcg *next;

	if (!pos)
		return root;
	next = next_child(NULL, pos);
	if (next)
		return next;
	while (pos != root) {
		next = next_child(pos, pos->parent);
		if (next)
			return next;
		pos = pos->parent;
	}
	return NULL;
}

/* kernel: mem_cgroup_iter(root, prev, NULL). */
struct msim_memcg *msim_mem_cgroup_iter(struct msim_memcg *root, struct msim_memcg *prev)
{
	struct msim_memcg *pos = prev;

	MSIM__MEMCG_ASSERT(root);
	if (prev)
		MSIM__MEMCG_ASSERT(prev);
	msim_rcu_read_lock();
	do {
		pos = next_descendant_pre(pos, root);
	} while (pos && !msim_css_tryget(pos));
	msim_rcu_read_unlock();
	if (prev)
		msim_css_put(prev);
	return pos;
}

/* kernel: mem_cgroup_iter_break(). */
void msim_mem_cgroup_iter_break(struct msim_memcg *root, struct msim_memcg *prev)
{
	MSIM__MEMCG_ASSERT(root);
	if (prev)
		msim_css_put(prev);
}
