/* SPDX-License-Identifier: MIT */
/*
 * objcg_ref.c - object cgroup references and release (mm/memcontrol.c
 * obj_cgroup_alloc, obj_cgroup_release; include/linux/memcontrol.h
 * obj_cgroup_get/tryget/put), and objcg_lock.
 *
 * The reference is the kernel's percpu_ref (pcpu_ref.c): per-CPU counting,
 * where no put releases, until percpu_ref_kill() at offline (objcg_reparent.c)
 * switches it to one atomic count and drops the initial reference; "killed and
 * 0" is the only way to release, exactly as with the real ref. An objcg never
 * offlined (the root's, a failed mkdir's) is killed only when its memcg is
 * freed (objcg.c, objcg_release_node: host teardown for the root).
 *
 * Release and objcg_lock. obj_cgroup_release() takes objcg_lock to unlink the
 * objcg from the objcg_list it was reparented to. The last put can run where the
 * model cannot block: in the driver or an RCU callback (css_free puts
 * orig_objcg) while a parked deterministic task holds objcg_lock. There the
 * release is queued on h->deferred instead and whoever holds the lock finishes it
 * at unlock. Invariant: an objcg on h->deferred is unlinked by the next
 * msim__objcg_unlock(), and every push is followed by a trylock, so a push that
 * races with an unlock is either seen by that unlock's drain or drained by the
 * pusher itself (sequentially consistent pushes and lock operations).
 */
#include <stdlib.h>

#include <memcgsim/kmem.h>

#include "memcg/objcg_internal.h"

#define OBJCG_COUNT(h, field) msim_quiet_fetch_add(&(h)->field, 1, MSIM_RELAXED)

void msim__objcg_host_get(struct msim__objcg_host *h)
{
	msim_quiet_fetch_add(&h->refs, 1, MSIM_RELAXED);
}

/* The last reference (host_fini, the last objcg or memcg data) destroys the lock. */
void msim__objcg_host_put(struct msim__objcg_host *h)
{
	if (msim_quiet_sub_return(&h->refs, 1, MSIM_ACQ_REL) == 0)
		msim_lock_destroy(&h->objcg_lock);
}

/* kernel: obj_cgroup_alloc() + the online setup of objcg->memcg and is_root. */
struct msim_obj_cgroup *msim__obj_cgroup_alloc(struct msim__objcg_host *h,
					       struct msim_memcg *memcg, unsigned int nid,
					       bool is_root)
{
	struct msim_obj_cgroup *objcg = calloc(1, sizeof(*objcg));

	if (!objcg)
		return NULL;
	if (msim__pcpu_ref_init(&objcg->refcnt, h->m, false)) { /* the initial reference */
		free(objcg);
		return NULL;
	}
	objcg->memcg = memcg;
	objcg->nid = nid;
	objcg->is_root = is_root;
	objcg->h = h;
	msim_init_list_head(&objcg->list);
	objcg->kmem_objcg = msim_kmalloc(h->m, MSIM__OBJ_CGROUP_BYTES, "obj_cgroup");
	objcg->kmem_ref = msim_kmalloc(h->m, MSIM__OBJCG_REF_DATA_BYTES, "obj_cgroup");
	msim_kmem_percpu_charge(h->m, sizeof(long) * msim_nr_cpus(h->m), "obj_cgroup");
	msim__objcg_host_get(h);
	OBJCG_COUNT(h, live);
	OBJCG_COUNT(h, allocated_total);
	return objcg;
}

static void objcg_free_rcu(struct msim_rcu_head *head)
{
	struct msim_obj_cgroup *objcg = msim_container_of(head, struct msim_obj_cgroup, rcu);

	msim_rcu_callback_noted(); /* DPOR (rcu.h): the free, a store over it */
	msim_access_note(objcg, sizeof(*objcg), MSIM_ACCESS_STORE);
	free(objcg);
}

/* Unlinked already: free after a grace period (kfree_rcu), drop the host reference. */
static void objcg_finish(struct msim_obj_cgroup *objcg)
{
	struct msim__objcg_host *h = objcg->h;

	/* kernel: percpu_ref_exit() in obj_cgroup_release(), then kfree_rcu(objcg). */
	msim__pcpu_ref_exit(&objcg->refcnt);
	msim_kmem_percpu_uncharge(h->m, sizeof(long) * msim_nr_cpus(h->m), "obj_cgroup");
	msim_kfree(h->m, objcg->kmem_ref);
	msim_kfree_rcu(h->m, objcg->kmem_objcg);
	msim_call_rcu(&objcg->rcu, objcg_free_rcu);
	msim__objcg_host_put(h);
}

void msim__objcg_lock(struct msim__objcg_host *h)
{
	msim_spin_lock(&h->objcg_lock);
}

/* Take every deferred release; the caller holds objcg_lock. */
static struct msim_obj_cgroup *deferred_take_locked(struct msim__objcg_host *h)
{
	struct msim_obj_cgroup *list = msim_quiet_xchg(&h->deferred, NULL, MSIM_SEQ_CST);

	for (struct msim_obj_cgroup *o = list; o; o = o->deferred_next)
		msim_list_del_init(&o->list);
	return list;
}

static void deferred_finish(struct msim_obj_cgroup *list)
{
	while (list) {
		struct msim_obj_cgroup *next = list->deferred_next;

		objcg_finish(list);
		list = next;
	}
}

void msim__objcg_unlock(struct msim__objcg_host *h)
{
	for (;;) {
		struct msim_obj_cgroup *done = deferred_take_locked(h);

		msim_spin_unlock(&h->objcg_lock);
		deferred_finish(done);
		/* A release deferred after the take: finish it if the lock is free. */
		msim_access_note(&h->deferred, sizeof(h->deferred), MSIM_ACCESS_LOAD); /* DPOR */
		if (!msim_quiet_load(&h->deferred, MSIM_SEQ_CST) || !msim_trylock(&h->objcg_lock))
			return;
	}
}

static void deferred_push(struct msim__objcg_host *h, struct msim_obj_cgroup *objcg)
{
	struct msim_obj_cgroup *old = msim_quiet_load(&h->deferred, MSIM_SEQ_CST);

	msim_access_note(&h->deferred, sizeof(h->deferred), MSIM_ACCESS_RMW); /* DPOR */
	do {
		objcg->deferred_next = old;
	} while (!msim_quiet_try_cmpxchg_weak(&h->deferred, &old, objcg, MSIM_SEQ_CST,
					      MSIM_SEQ_CST));
}

/* A task (or a thread in concurrent mode) may wait; the deterministic driver may not. */
static bool objcg_lock_for_release(struct msim__objcg_host *h)
{
	if (msim_current_task() || msim_config(h->m)->mode == MSIM_CONCURRENT) {
		msim__objcg_lock(h);
		return true;
	}
	return msim_trylock(&h->objcg_lock);
}

/*
 * kernel: obj_cgroup_release() (the percpu_ref release). No byte remainder to
 * uncharge: the model charges whole folios only (nr_charged_bytes is 0).
 */
static void obj_cgroup_release(struct msim_obj_cgroup *objcg)
{
	struct msim__objcg_host *h = objcg->h;

	OBJCG_COUNT(h, released_total);
	msim_quiet_fetch_sub(&h->live, 1, MSIM_RELAXED);
	if (objcg_lock_for_release(h)) {
		msim_list_del_init(&objcg->list);
		msim__objcg_unlock(h);
		objcg_finish(objcg);
		return;
	}
	OBJCG_COUNT(h, deferred_releases);
	deferred_push(h, objcg);
	if (msim_trylock(&h->objcg_lock))
		msim__objcg_unlock(h);
}

void msim_obj_cgroup_get(struct msim_obj_cgroup *objcg)
{
	(void)msim__pcpu_ref_get(&objcg->refcnt, "objcg.ref.get", MSIM_RELAXED);
}

/* kernel: percpu_ref_tryget(): fails only once the count reached 0. */
bool msim_obj_cgroup_tryget(struct msim_obj_cgroup *objcg)
{
	return msim__pcpu_ref_tryget(&objcg->refcnt, "objcg.ref.tryget");
}

void msim_obj_cgroup_put(struct msim_obj_cgroup *objcg)
{
	if (msim__pcpu_ref_put(&objcg->refcnt, "objcg.ref.put", MSIM_SEQ_CST) == 0)
		obj_cgroup_release(objcg);
}

/* The switch and the put of the initial reference in one step (pcpu_ref.h). */
void msim__obj_cgroup_kill(struct msim_obj_cgroup *objcg)
{
	msim_access_note(&objcg->killed, sizeof(objcg->killed), MSIM_ACCESS_STORE); /* DPOR */
	msim_quiet_store(&objcg->killed, true, MSIM_RELAXED);
	if (msim__pcpu_ref_kill(&objcg->refcnt, "objcg.ref.put", MSIM_SEQ_CST) == 0)
		obj_cgroup_release(objcg);
}

struct msim_memcg *msim_obj_cgroup_memcg(const struct msim_obj_cgroup *objcg)
{
	return msim_load_at(&objcg->memcg, MSIM_RELAXED, "objcg.memcg");
}

bool msim_obj_cgroup_is_root(const struct msim_obj_cgroup *objcg)
{
	return objcg->is_root;
}

unsigned int msim_obj_cgroup_nid(const struct msim_obj_cgroup *objcg)
{
	return objcg->nid;
}

long msim_obj_cgroup_refcount(const struct msim_obj_cgroup *objcg)
{
	return msim__pcpu_ref_total(&objcg->refcnt);
}

bool msim_obj_cgroup_killed(const struct msim_obj_cgroup *objcg)
{
	return msim_quiet_load(&objcg->killed, MSIM_RELAXED);
}

/*
 * kernel: get_mem_cgroup_from_objcg(): css_tryget can fail only for a memcg that
 * is being released, whose objcgs offline has already repointed: re-read.
 */
struct msim_memcg *msim_get_mem_cgroup_from_objcg(const struct msim_obj_cgroup *objcg)
{
	struct msim_memcg *memcg;

	msim_rcu_read_lock();
	do {
		memcg = msim_obj_cgroup_memcg(objcg);
	} while (!msim_css_tryget(memcg));
	msim_rcu_read_unlock();
	return memcg;
}
