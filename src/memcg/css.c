/* SPDX-License-Identifier: MIT */
/*
 * css.c - css reference counting, release and free, and the read-only accessors.
 *
 * kernel: include/linux/cgroup.h (css_get, css_tryget, css_tryget_online,
 * css_put, css_is_dying) and kernel/cgroup/cgroup.c (css_release,
 * css_release_work_fn, css_free_rwork_fn).
 *
 * Simplification: the kernel's css refcount is a percpu_ref, killed at rmdir; here
 * it is one atomic counter, and "killed" is the DYING state. css_tryget succeeds
 * while the count is above zero (an offline memcg can still be pinned, as with
 * a killed percpu_ref), css_tryget_online only while the memcg is ONLINE.
 *
 * Release and free run as RCU callbacks: the kernel queues css_release_work_fn
 * on a workqueue when the last reference goes, and css_free_rwork_fn on an RCU
 * work after it. The model uses call_rcu for both (the release therefore waits
 * a grace period the kernel does not; nothing in the model depends on that gap),
 * so that css_released hooks never run inside the caller of the last css_put
 * (who may hold a lock those hooks take) and the explorer schedules them.
 */
#include <errno.h>

#include "memcg/memcg_internal.h"

/* kernel: css_get() -> percpu_ref_get(). The caller must hold a reference already. */
void msim_css_get(struct msim_memcg *memcg)
{
	long old;

	MSIM__MEMCG_ASSERT(memcg);
	msim_yield("css_get");
	old = __atomic_fetch_add(&memcg->css_refcnt, 1, __ATOMIC_RELAXED);
	assert(old > 0 && "css_get on a released memcg");
	(void)old;
}

/* kernel: css_tryget() -> percpu_ref_tryget(): fails only once released. */
bool msim_css_tryget(struct msim_memcg *memcg)
{
	long c;

	MSIM__MEMCG_ASSERT(memcg);
	msim_yield("css_tryget");
	c = __atomic_load_n(&memcg->css_refcnt, __ATOMIC_RELAXED);
	do {
		if (c <= 0)
			return false;
	} while (!__atomic_compare_exchange_n(&memcg->css_refcnt, &c, c + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

/* kernel: css_tryget_online() -> percpu_ref_tryget_live(): fails once dying. */
bool msim_css_tryget_online(struct msim_memcg *memcg)
{
	if (!msim_css_tryget(memcg))
		return false;
	if (msim__memcg_state_load(memcg) == MSIM_MEMCG_ONLINE)
		return true;
	msim_css_put(memcg);
	return false;
}

/* kernel: css_put() -> percpu_ref_put(); the last one calls css_release(). */
void msim_css_put(struct msim_memcg *memcg)
{
	long n;

	MSIM__MEMCG_ASSERT(memcg);
	msim_yield("css_put");
	n = __atomic_sub_fetch(&memcg->css_refcnt, 1, __ATOMIC_ACQ_REL);
	assert(n >= 0 && "css_put underflow");
	if (n == 0)
		msim__memcg_release(memcg);
}

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

	msim__memcg_run_free(memcg);
	msim__raw_lock(&h->lock);
	msim__memcg_all_list_del(memcg);
	msim__raw_unlock(&h->lock);
	msim__memcg_set_state(memcg, MSIM_MEMCG_FREED);
	if (__atomic_load_n(&memcg->counted, __ATOMIC_RELAXED))
		__atomic_fetch_add(&h->freed_total, 1, __ATOMIC_RELAXED);
	msim__memcg_free_struct(memcg, true);
	/* The parent put may release it: its callbacks count as pending first. */
	if (parent)
		msim_css_put(parent);
	__atomic_fetch_sub(&h->rcu_pending, 1, __ATOMIC_ACQ_REL);
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

	msim__raw_lock(&h->lock);
	msim__memcg_unlink(memcg);
	msim__raw_unlock(&h->lock);
	msim__memcg_run_released(memcg);
	msim_call_rcu(&memcg->free_rcu, memcg_free_work);
}

/* kernel: css_release(): CSS_RELEASED, then the release work is queued. */
void msim__memcg_release(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h = memcg->h;

	msim__memcg_set_state(memcg, MSIM_MEMCG_RELEASED);
	__atomic_fetch_add(&h->rcu_pending, 1, __ATOMIC_ACQ_REL);
	msim_call_rcu(&memcg->release_rcu, memcg_release_work);
}

void msim_memcg_drain(struct msim *m)
{
	void **slot = m ? msim_host_slot(m, MSIM_SLOT_MEMCG) : NULL;
	struct msim__memcg_host *h = slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;

	/* A free may put its parent, queueing one more release: loop until quiet. */
	while (h && __atomic_load_n(&h->rcu_pending, __ATOMIC_ACQUIRE) > 0)
		msim_rcu_barrier();
}

/* ---- accessors ---- */

struct msim *msim_memcg_host(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->h->m;
}

struct msim_memcg *msim_parent_mem_cgroup(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->parent;
}

bool msim_mem_cgroup_is_root(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->parent == NULL;
}

/* Also answers for a quarantined (freed) handle in debug builds: FREED. */
enum msim_memcg_state msim_memcg_state(const struct msim_memcg *memcg)
{
	assert(memcg);
	if (__atomic_load_n(&memcg->magic, __ATOMIC_ACQUIRE) == MSIM__MEMCG_POISON)
		return MSIM_MEMCG_FREED;
	MSIM__MEMCG_ASSERT(memcg);
	return (enum msim_memcg_state)msim__memcg_state_load(memcg);
}

/* kernel: css_is_dying(): CSS_DYING is set at rmdir and never cleared. */
bool msim_css_is_dying(const struct msim_memcg *memcg)
{
	bool created;
	int s;

	MSIM__MEMCG_ASSERT(memcg);
	s = msim__memcg_state_load(memcg);
	created = __atomic_load_n(&memcg->counted, __ATOMIC_RELAXED);
	/* A memcg whose mkdir failed is released without ever dying. */
	return s >= MSIM_MEMCG_DYING && (created || s < MSIM_MEMCG_RELEASED);
}

/*
 * kernel: mem_cgroup_online() -> CSS_ONLINE. rmdir sets CSS_DYING only;
 * offline_css() clears CSS_ONLINE after the subsystems' css_offline returned, so
 * a dying memcg is still online through its grace period and its offline hooks
 * (shrink_slab_memcg still shrinks it then: the S4 window).
 */
bool msim_mem_cgroup_online(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	enum msim_memcg_state s = msim__memcg_state_load(memcg);

	return s == MSIM_MEMCG_ONLINE || s == MSIM_MEMCG_DYING;
}

const char *msim_memcg_name(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->name;
}

unsigned int msim_memcg_level(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->level;
}

uint64_t msim_memcg_serial(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->serial;
}

int msim_memcg_kmemcg_id(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return __atomic_load_n(&memcg->kmemcg_id, __ATOMIC_RELAXED);
}
