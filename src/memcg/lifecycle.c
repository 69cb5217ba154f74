/* SPDX-License-Identifier: MIT */
/*
 * lifecycle.c - mkdir, rmdir, the root, and the release and free that follow
 * the last css reference.
 *
 * kernel: kernel/cgroup/cgroup.c (cgroup_mkdir, css_create, online_css,
 * cgroup_rmdir, kill_css, css_killed_work_fn, offline_css, css_release,
 * css_release_work_fn, css_free_rwork_fn) and mm/memcontrol.c
 * (mem_cgroup_css_alloc/online/offline, mem_cgroup_alloc).
 *
 * This is the top of src/memcg's tree files: it drives the others (host.c for
 * the host, tree.c for the struct and its links, hooks.c for the subsystems'
 * callbacks, id.c for private ids, css.c for references) and none of them calls
 * it: css.c reaches the release through memcg->css_release, set at allocation.
 *
 * Release and free run as RCU callbacks: the kernel queues css_release_work_fn
 * on a workqueue when the last reference goes, and css_free_rwork_fn on an RCU
 * work after it. The model uses call_rcu for both (the release therefore waits
 * a grace period the kernel does not; nothing in the model depends on that gap),
 * so that css_released hooks never run inside the caller of the last css_put
 * (who may hold a lock those hooks take) and the explorer schedules them.
 * docs/memcg.md lists every simplification.
 */
#include <errno.h>

#include "memcg/memcg_internal.h"

/* ---- release and free (kernel: css_release and the work behind it) ---- */

/*
 * kernel: css_free_rwork_fn(): ss->css_free (mem_cgroup_css_free ->
 * mem_cgroup_free: the per-node info and the memcg go back to their caches),
 * then the reference on the parent is put.
 */
static void memcg_free_work(struct msim_rcu_head *head)
{
	struct msim_memcg *memcg = msim_container_of(head, struct msim_memcg, free_rcu);
	struct msim__memcg_host *h = memcg->h;
	struct msim_memcg *parent = memcg->parent;

	/* DPOR (rcu.h): the list, state and free note themselves (tree.c), the hooks
	 * by their sets' teardown_noted, the parent put and h->lock below */
	msim_rcu_callback_noted();
	msim__memcg_run_free(memcg);
	msim_access_note(&h->lock, sizeof(h->lock), MSIM_ACCESS_RMW);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_all_list_del(memcg);
	msim_quiet_spin_unlock(&h->lock);
	msim__memcg_set_state(memcg, MSIM_MEMCG_FREED);
	if (msim_quiet_load(&memcg->counted, MSIM_RELAXED))
		msim_quiet_fetch_add(&h->freed_total, 1, MSIM_RELAXED);
	msim__memcg_free_struct(memcg, true);
	/* The parent put may release it: its callbacks count as pending first. */
	if (parent)
		msim_css_put(parent);
	msim_quiet_fetch_sub(&h->rcu_pending, 1, MSIM_ACQ_REL);
}

/*
 * kernel: css_release_work_fn(): list_del_rcu(&css->sibling), then
 * ss->css_released (mem_cgroup_css_released), then queue_rcu_work() for the
 * free after a grace period.
 */
static void memcg_release_work(struct msim_rcu_head *head)
{
	struct msim_memcg *memcg = msim_container_of(head, struct msim_memcg, release_rcu);
	struct msim__memcg_host *h = memcg->h;

	msim_rcu_callback_noted(); /* as memcg_free_work */
	msim_access_note(&h->lock, sizeof(h->lock), MSIM_ACCESS_RMW);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_unlink(memcg);
	msim_quiet_spin_unlock(&h->lock);
	msim__memcg_run_released(memcg);
	msim_call_rcu(&memcg->free_rcu, memcg_free_work);
}

/* kernel: css_release(): CSS_RELEASED, then the release work is queued. */
static void css_release(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h = memcg->h;

	msim__memcg_set_state(memcg, MSIM_MEMCG_RELEASED);
	msim_quiet_fetch_add(&h->rcu_pending, 1, MSIM_ACQ_REL);
	msim_call_rcu(&memcg->release_rcu, memcg_release_work);
}

/* ---- mkdir ---- */

/*
 * A failed css_online: undo what ran (offline for the sets that onlined, then
 * css_alloc_undo), unlink, give the id back, and drop the base reference; an
 * iterator may hold the memcg meanwhile, so the struct goes through the normal
 * release/free path (with no hooks left to run) after a grace period.
 */
static void online_failed(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h = memcg->h;

	msim__memcg_run_offline(memcg);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_unlink(memcg);
	if (memcg->parent)
		memcg->parent->nr_live_children--;
	msim_quiet_spin_unlock(&h->lock);
	msim__memcg_run_alloc_undo(memcg);
	msim__memcg_id_unreserve(memcg);
	/* No yield: nothing was charged to a memcg that never went online. */
	msim_quiet_store(&memcg->kmemcg_id, -1, MSIM_RELAXED);
	msim__css_kill(memcg);      /* the base reference's put, which can release */
}

/* Reserve a place under parent: it must be online (tree lock orders it with rmdir). */
static int reserve_under_parent(struct msim__memcg_host *h, struct msim_memcg *parent)
{
	int ret = 0;

	if (!parent)
		return 0;
	msim_quiet_spin_lock(&h->lock);
	if (msim__memcg_state_load(parent) != MSIM_MEMCG_ONLINE)
		ret = -EINVAL;
	else
		parent->nr_live_children++;
	msim_quiet_spin_unlock(&h->lock);
	return ret;
}

static void unreserve_under_parent(struct msim__memcg_host *h, struct msim_memcg *parent)
{
	if (!parent)
		return;
	msim_quiet_spin_lock(&h->lock);
	parent->nr_live_children--;
	msim_quiet_spin_unlock(&h->lock);
}

/*
 * kernel: cgroup_mkdir() -> css_create(): css_alloc (mem_cgroup_css_alloc:
 * mem_cgroup_alloc reserves the private id with a NULL entry), link into the
 * parent's children, online_css (mem_cgroup_css_online: kmemcg_id first, the
 * subsystems' online work, id.ref = 1 plus css_get, xa_store publishing the id
 * last), then CSS_ONLINE.
 */
static int memcg_create(struct msim__memcg_host *h, struct msim_memcg *parent, const char *name,
			struct msim_memcg **out)
{
	struct msim_memcg *memcg;
	int ret;

	memcg = msim__memcg_alloc(h, parent, name, css_release);
	if (!memcg)
		return -ENOMEM;
	ret = reserve_under_parent(h, parent);
	if (ret)
		goto free;
	ret = msim__memcg_id_reserve(memcg);
	if (ret)
		goto unreserve;
	ret = msim__memcg_run_alloc(memcg);
	if (ret)
		goto unreserve_id;
	msim_yield_access("memcg.mkdir.link", NULL, MSIM_ACCESS_NONE); /* css_get */
	if (parent)
		msim_css_get(parent);    /* dropped when memcg is freed */
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_link(h, memcg);
	msim_quiet_spin_unlock(&h->lock);
	/*
	 * kernel: memcg_online_kmem() comes first in mem_cgroup_css_online(). No
	 * yield: nothing is charged to the memcg before it is online, so no
	 * list_lru looks its kmemcg_id up before this store.
	 */
	msim_quiet_store(&memcg->kmemcg_id, parent ? (int)memcg->id : -1, MSIM_RELAXED);
	ret = msim__memcg_run_online(memcg);
	if (ret) {
		online_failed(memcg);
		return ret;
	}
	/* refcount_set(&id.ref, 1): no yield, nobody finds the id before the publish. */
	msim_quiet_store(&memcg->id_ref, 1, MSIM_RELAXED);
	msim_css_get(memcg);         /* the private id pins the css */
	msim__memcg_id_publish(memcg);
	msim_quiet_store(&memcg->counted, true, MSIM_RELAXED);
	msim__memcg_set_state(memcg, MSIM_MEMCG_ONLINE);
	msim_quiet_fetch_add(&h->created_total, 1, MSIM_RELAXED);
	*out = memcg;
	return 0;

unreserve_id:
	msim__memcg_id_unreserve(memcg);
unreserve:
	unreserve_under_parent(h, parent);
free:
	msim__memcg_free_struct(memcg, false);
	return ret;
}

int msim_memcg_create(struct msim_memcg *parent, const char *name, struct msim_memcg **out)
{
	if (!parent || !out)
		return -EINVAL;
	MSIM__MEMCG_ASSERT(parent);
	msim_drive_host(parent->h->m);
	return memcg_create(parent->h, parent, name, out);
}

struct msim_memcg *msim_root_mem_cgroup(struct msim *m)
{
	struct msim__memcg_host *h = msim__memcg_host(m);
	struct msim_memcg *root;

	if (!h)
		return NULL;
	msim_drive_host(m);
	root = msim_quiet_load(&h->root, MSIM_ACQUIRE);  /* installed once, lazily */
	if (root)
		return root;
	msim_lock(&h->root_lock);
	root = h->root;
	if (!root && memcg_create(h, NULL, "/", &root) == 0) {
		msim_quiet_spin_lock(&h->lock);
		msim_quiet_store(&h->root, root, MSIM_RELEASE);
		msim_quiet_spin_unlock(&h->lock);
	}
	msim_unlock(&h->root_lock);
	return root;
}

/* ---- rmdir ---- */

/*
 * kernel: cgroup_rmdir() -> cgroup_destroy_locked(): -EBUSY with online children,
 * kill_css() sets CSS_DYING and kills the reference; the confirmation comes after
 * an RCU grace period, then css_killed_work_fn() -> offline_css() ->
 * mem_cgroup_css_offline() (subsystems in ascending order, then
 * mem_cgroup_private_id_put(memcg, 1)), CSS_ONLINE cleared, and the online
 * reference put. Simplification: the kernel finishes offline asynchronously on a
 * workqueue; here the rmdir caller waits for the grace period and runs it.
 */
int msim_memcg_rmdir(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h;
	int ret = 0;

	if (!memcg)
		return -EINVAL;
	MSIM__MEMCG_ASSERT(memcg);
	h = memcg->h;
	msim_drive_host(h->m);
	if (!memcg->parent)
		return -EINVAL;
	msim_quiet_spin_lock(&h->lock);
	if (msim__memcg_state_load(memcg) != MSIM_MEMCG_ONLINE)
		ret = -EINVAL;
	else if (memcg->nr_live_children)
		ret = -EBUSY;
	else
		msim__memcg_set_state(memcg, MSIM_MEMCG_DYING);
	msim_quiet_spin_unlock(&h->lock);
	if (ret)
		return ret;
	/* kernel: cgroup_destroy_locked()'s kernfs_remove(): the file nodes go now. */
	msim__cgroup_kmem_remove_files(h, &memcg->cgroup_kmem);
	msim_yield_access("memcg.rmdir.dying", NULL, MSIM_ACCESS_NONE); /* then synchronize_rcu */
	msim_synchronize_rcu();
	msim__memcg_run_offline(memcg);
	msim_mem_cgroup_private_id_put(memcg);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_set_state(memcg, MSIM_MEMCG_OFFLINE);
	memcg->parent->nr_live_children--;
	msim_quiet_spin_unlock(&h->lock);
	msim_yield_access("memcg.rmdir.put_online_ref", NULL, MSIM_ACCESS_NONE); /* css_put */
	msim__css_kill(memcg);      /* the percpu_ref's kill with the put (css.c) */
	return 0;
}

/* Wait until every release and free in flight has run. */
void msim_memcg_drain(struct msim *m)
{
	struct msim__memcg_host *h = msim__memcg_host(m);

	/* A free may put its parent, queueing one more release: loop until quiet. */
	while (h && msim_quiet_load(&h->rcu_pending, MSIM_ACQUIRE) > 0)
		msim_rcu_barrier();
}
