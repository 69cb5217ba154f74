/* SPDX-License-Identifier: MIT */
/*
 * objcg.c - the object cgroup subsystem: per-host state, the memcg lifecycle
 * hooks that give every memcg one objcg per node, and the lookups (objcg.h).
 *
 * kernel (mm/memcontrol.c, newest): mem_cgroup_css_online allocates the node
 * objcgs (obj_cgroup_alloc, objcg->memcg, is_root for the root,
 * rcu_assign_pointer(pn->objcg), obj_cgroup_get for pn->orig_objcg);
 * mem_cgroup_css_offline step 5 is memcg_reparent_objcgs (objcg_reparent.c);
 * __mem_cgroup_free puts orig_objcg per node.
 *
 * Its steps in the lifecycle table (lifecycle.c): online after
 * alloc_shrinker_info, like the kernel; offline memcg_reparent_objcgs, just
 * before rstat's reparent_state_local, which the kernel does at its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memcg/objcg_internal.h"


static int objcg_host_init(struct msim *m, void *state);
static void objcg_host_fini(struct msim *m, void *state);

/* The configuration has no switch for it yet: attached as a dependency or by hand. */
static bool objcg_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;
}

/* Its host init registers memcg hooks and reads the memcg counts. */
static const char *const objcg_deps[] = { "memcg", NULL };

static unsigned int objcg_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys objcg_subsys = {
	.name = "objcg",
	.depends = objcg_deps,
	.enabled = objcg_enabled,
	.state_size = sizeof(struct msim__objcg_host),
	.host_init = objcg_host_init,
	.host_fini = objcg_host_fini,
	.id = &objcg_subsys_id,
};

__attribute__((constructor)) static void objcg_register(void)
{
	msim_subsys_register(&objcg_subsys);
}

static struct msim__objcg_host *objcg_host(const struct msim *m)
{
	return m ? msim_subsys_state(m, &objcg_subsys) : NULL;
}

static struct msim__objcg_memcg *objcg_memcg(const struct msim__objcg_host *h,
					     struct msim_memcg *memcg)
{
	return h && memcg ? *msim_memcg_slot(memcg, h->slot) : NULL;
}

static struct msim__objcg_pn *objcg_pn(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__objcg_host *h = memcg ? objcg_host(msim_memcg_host(memcg)) : NULL;
	struct msim__objcg_memcg *om = objcg_memcg(h, memcg);

	return om && nid < h->nr_nodes ? &om->pn[nid] : NULL;
}

/* ---- memcg hooks ---- */

/* The per-node part of struct mem_cgroup_per_node; the objcgs come at online. */
static int objcg_css_alloc(struct msim_memcg *memcg, void *priv)
{
	struct msim__objcg_host *h = priv;
	struct msim__objcg_memcg *om;

	/* On a root that exists already the hook runs inside its registration. */
	if (h->slot < 0)
		h->slot = msim_memcg_hooks_slot(h->m, "objcg");
	om = calloc(1, sizeof(*om) + h->nr_nodes * sizeof(om->pn[0]));
	if (!om)
		return -ENOMEM;
	om->memcg = memcg;
	for (unsigned int nid = 0; nid < h->nr_nodes; nid++)
		msim_init_list_head(&om->pn[nid].objcg_list);
	msim__objcg_host_get(h);
	*msim_memcg_slot(memcg, h->slot) = om;
	return 0;
}

static void objcg_release_node(struct msim__objcg_pn *pn)
{
	/* DPOR: orig_objcg's clear (pn->objcg's store is the shim's) */
	msim_access_note(&pn->orig_objcg, sizeof(pn->orig_objcg), MSIM_ACCESS_STORE);
	if (pn->objcg) {          /* never offlined: the root, or a failed mkdir */
		struct msim_obj_cgroup *objcg = pn->objcg;

		msim_rcu_assign_pointer((void **)&pn->objcg, NULL);
		msim__obj_cgroup_kill(objcg);
	}
	if (pn->orig_objcg) {
		msim_obj_cgroup_put(pn->orig_objcg);
		pn->orig_objcg = NULL;
	}
}

/* kernel: mem_cgroup_css_online(): one objcg per node, the root's marked is_root. */
static int objcg_css_online(struct msim_memcg *memcg, void *priv)
{
	struct msim__objcg_host *h = priv;
	struct msim__objcg_memcg *om = *msim_memcg_slot(memcg, h->slot);
	bool root = msim_mem_cgroup_is_root(memcg);

	for (unsigned int nid = 0; nid < h->nr_nodes; nid++) {
		struct msim_obj_cgroup *objcg = msim__obj_cgroup_alloc(h, memcg, nid, root);

		if (!objcg) {
			while (nid--)
				objcg_release_node(&om->pn[nid]);
			return -ENOMEM;
		}
		msim_rcu_assign_pointer((void **)&om->pn[nid].objcg, objcg);
		msim_obj_cgroup_get(objcg);
		om->pn[nid].orig_objcg = objcg;
	}
	return 0;
}

/* kernel: mem_cgroup_css_offline() step 5. */
static void objcg_css_offline(struct msim_memcg *memcg, void *priv)
{
	struct msim__objcg_host *h = priv;
	struct msim_memcg *parent = msim_parent_mem_cgroup(memcg);

	if (!parent)
		return;
	msim__memcg_reparent_objcgs(h, memcg, objcg_memcg(h, memcg), objcg_memcg(h, parent));
}

/*
 * Objcgs inherited by a memcg that is freed without going offline (the root, or
 * any memcg of a host destroyed with charged folios left) are held by memory
 * nobody freed: unlink them so they never point into freed data. An offlined
 * memcg spliced its list to the parent and nothing adds to it afterwards (its
 * children went offline first), so its list is empty and needs no lock.
 */
static void objcg_unlink_inherited(struct msim__objcg_host *h, struct msim__objcg_memcg *om)
{
	msim__objcg_lock(h);
	for (unsigned int nid = 0; nid < h->nr_nodes; nid++)
		while (!msim_list_empty(&om->pn[nid].objcg_list))
			msim_list_del_init(om->pn[nid].objcg_list.next);
	msim__objcg_unlock(h);
}

/* kernel: __mem_cgroup_free(): obj_cgroup_put(orig_objcg) per node. */
static void objcg_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim__objcg_host *h = priv;
	struct msim__objcg_memcg *om = objcg_memcg(h, memcg);
	bool offlined = true;

	if (!om)
		return;
	for (unsigned int nid = 0; nid < h->nr_nodes; nid++) {
		offlined &= !om->pn[nid].objcg;
		objcg_release_node(&om->pn[nid]);
	}
	if (!offlined)
		objcg_unlink_inherited(h, om);
	/* DPOR (teardown_noted): the slot and om are stored over (freed) */
	msim_access_note(msim_memcg_slot(memcg, h->slot), sizeof(void *), MSIM_ACCESS_STORE);
	msim_access_note(om, sizeof(*om) + h->nr_nodes * sizeof(om->pn[0]), MSIM_ACCESS_STORE);
	*msim_memcg_slot(memcg, h->slot) = NULL;
	free(om);
	msim__objcg_host_put(h);
}

/* ---- the subsystem ---- */

static int objcg_host_init(struct msim *m, void *state)
{
	static const struct msim_memcg_hooks tmpl = {
		.name = "objcg",
		.css_alloc = objcg_css_alloc,
		.css_online = objcg_css_online,
		.css_offline = objcg_css_offline,
		.css_free = objcg_css_free,
		.css_alloc_undo = objcg_css_free,
		.teardown_noted = true,
	};
	struct msim_memcg_hooks hooks = tmpl;
	struct msim__objcg_host *h = state;
	struct msim_memcg_counts counts;
	int ret;

	/* Children made before would have no objcgs: their offline could not move. */
	msim_memcg_counts(m, &counts);
	if (counts.created_total > 1)
		return -EBUSY;
	h->m = m;
	h->nr_nodes = msim_nr_nodes(m);
	h->refs = 1;
	h->slot = -1;
	msim_spin_lock_init(&h->objcg_lock, "objcg_lock");
	hooks.priv = h;
	ret = msim_memcg_register_hooks(m, &hooks);
	if (ret < 0) {
		msim_lock_destroy(&h->objcg_lock);
		return ret;
	}
	h->slot = ret;
	return 0;
}

/* The memcg layer frees its memcgs (our css_free) after this: see host refs. */
static void objcg_host_fini(struct msim *m, void *state)
{
	(void)m;
	msim__objcg_host_put(state);
}

int msim_objcg_set_reparent_ops(struct msim *m, const struct msim_objcg_reparent_ops *ops,
				void *arg)
{
	struct msim__objcg_host *h = objcg_host(m);

	if (!h)
		return -ENODEV;
	if (ops && h->ops && h->ops != ops)
		return -EBUSY;
	h->ops = ops;
	h->ops_arg = ops ? arg : NULL;
	return 0;
}

/* ---- lookups ---- */

struct msim_obj_cgroup *msim_memcg_objcg(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__objcg_pn *pn = objcg_pn(memcg, nid);

	if (!pn)
		return NULL;
	msim_yield_access("objcg.pn", NULL, MSIM_ACCESS_NONE); /* rcu_dereference */
	return msim_rcu_dereference((void *const *)&pn->objcg);
}

struct msim_obj_cgroup *msim_memcg_orig_objcg(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__objcg_pn *pn = objcg_pn(memcg, nid);

	return pn ? pn->orig_objcg : NULL;
}

struct msim_obj_cgroup *msim_get_obj_cgroup_from_memcg(struct msim_memcg *memcg,
							unsigned int nid)
{
	struct msim_obj_cgroup *objcg = NULL;

	if (!memcg || !objcg_pn(memcg, nid))
		return NULL;
	msim_rcu_read_lock();
	for (; memcg; memcg = msim_parent_mem_cgroup(memcg)) {
		objcg = msim_memcg_objcg(memcg, nid);
		if (objcg && msim_obj_cgroup_tryget(objcg))
			break;
		objcg = NULL;
	}
	msim_rcu_read_unlock();
	return objcg;
}

unsigned long msim_memcg_objcg_list_count(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__objcg_pn *pn = objcg_pn(memcg, nid);
	struct msim__objcg_host *h;
	unsigned long n;

	if (!pn)
		return 0;
	h = objcg_host(msim_memcg_host(memcg));
	msim__objcg_lock(h);
	n = msim_list_count(&pn->objcg_list);
	msim__objcg_unlock(h);
	return n;
}

void msim_objcg_counts(struct msim *m, struct msim_objcg_counts *out)
{
	struct msim__objcg_host *h = objcg_host(m);

	memset(out, 0, sizeof(*out));
	if (!h)
		return;
	out->live = msim_quiet_load(&h->live, MSIM_RELAXED);
	out->allocated_total = msim_quiet_load(&h->allocated_total, MSIM_RELAXED);
	out->released_total = msim_quiet_load(&h->released_total, MSIM_RELAXED);
	out->reparented_total = msim_quiet_load(&h->reparented_total, MSIM_RELAXED);
	out->reparent_retries = msim_quiet_load(&h->reparent_retries, MSIM_RELAXED);
	out->deferred_releases = msim_quiet_load(&h->deferred_releases, MSIM_RELAXED);
}
