/* SPDX-License-Identifier: MIT */
/*
 * charge_host.c - the charge layer on a host: msim_charge_init() (the per-host
 * data with its per-CPU stocks, and the memcg hooks that create and free each
 * memcg's charge state), its teardown at msim_destroy(), and the tunables.
 *
 * kernel: mm/memcontrol.c mem_cgroup_css_alloc() (page_counter_init of
 * memcg->memory), mem_cgroup_css_offline() step 9 (drain_all_stock),
 * mem_cgroup_css_free(), memcg_hotplug_cpu_dead() (drain a CPU's stock).
 * The top of the charge files: it calls stock.c and charge_state.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "charge_internal.h"

/* kernel: mem_cgroup_css_alloc(): page_counter_init(&memcg->memory, &parent->memory). */
static int charge_css_alloc(struct msim_memcg *memcg, void *priv)
{
	struct msim_charge_host *ch = priv;
	struct msim_memcg *parent = msim_parent_mem_cgroup(memcg);
	struct msim_memcg_charge *mc = calloc(1, sizeof(*mc));

	if (!mc)
		return -ENOMEM;
	/* Registered after the root existed: the root runs this before the slot is returned. */
	if (ch->slot < 0)
		ch->slot = msim_memcg_hooks_slot(ch->m, "charge");
	if (ch->slot < 0) {
		free(mc);
		return -ENOENT;
	}
	/*
	 * Not a kernel allocation of its own: these fields live inside struct
	 * mem_cgroup, whose size the memcg layer accounts.
	 */
	mc->memcg = memcg;
	__atomic_add_fetch(&ch->refs, 1, __ATOMIC_RELAXED);
	msim_page_counter_init(&mc->memory, parent ? msim_memcg_page_counter(parent) : NULL);
	*(struct msim_memcg_charge **)msim_memcg_slot(memcg, ch->slot) = mc;
	return 0;
}

/*
 * The host state outlives msim_destroy()'s call of charge_host_destroy(): the
 * memcg layer frees its memcgs (running css_free) after that, so the last of
 * charge_host_destroy() and the last css_free frees it.
 */
static void charge_host_put(struct msim_charge_host *ch)
{
	if (__atomic_sub_fetch(&ch->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		msim_lock_destroy(&ch->percpu_charge_mutex);
		free(ch);
	}
}

static void charge_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim_charge_host *ch = priv;
	void **slot;

	if (ch->slot < 0)
		return;
	slot = msim_memcg_slot(memcg, ch->slot);
	if (!*slot)
		return;
	free(*slot);
	*slot = NULL;
	charge_host_put(ch);
}

/* kernel: mem_cgroup_css_offline() step 9, drain_all_stock(memcg). */
static void charge_css_offline(struct msim_memcg *memcg, void *priv)
{
	(void)priv;
	msim_drain_all_stock(memcg);
}

static void charge_host_destroy(struct msim *m, void *arg)
{
	struct msim_charge_host *ch = arg;

	msim__stock_drain_everything(ch);
	msim__stock_fini(ch);
	*(struct msim_charge_host **)msim_host_slot(m, MSIM_SLOT_CHARGE) = NULL;
	charge_host_put(ch);
}

int msim_charge_init(struct msim *m)
{
	static const struct msim_memcg_hooks tmpl = {
		.name = "charge",
		.order = MSIM_HOOK_ORDER_STOCK,
		.css_alloc = charge_css_alloc,
		.css_offline = charge_css_offline,
		.css_free = charge_css_free,
		.css_alloc_undo = charge_css_free,
	};
	struct msim_memcg_hooks hooks = tmpl;
	struct msim_charge_host *ch;
	int ret;

	if (!m)
		return -EINVAL;
	if (msim__charge_host(m))
		return 0;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->m = m;
	ch->refs = 1; /* dropped by charge_host_destroy() */
	ch->slot = -1;
	ch->seed = 1;
	msim_lock_init(&ch->percpu_charge_mutex, "percpu_charge_mutex");
	ret = msim__stock_init(ch);
	if (ret)
		goto err;
	/* Publish before registering: the root's alloc hook may run right away. */
	*(struct msim_charge_host **)msim_host_slot(m, MSIM_SLOT_CHARGE) = ch;
	hooks.priv = ch;
	ret = msim_memcg_register_hooks(m, &hooks);
	if (ret < 0)
		goto err_slot;
	ch->slot = ret;
	/* Hooks registered after the root exists are run on it at registration. */
	ret = msim_host_on_destroy(m, charge_host_destroy, ch);
	if (ret)
		return ret; /* hooks stay registered; the host owns ch from here */
	return 0;
err_slot:
	*(struct msim_charge_host **)msim_host_slot(m, MSIM_SLOT_CHARGE) = NULL;
	msim__stock_fini(ch);
err:
	msim_lock_destroy(&ch->percpu_charge_mutex);
	free(ch);
	return ret;
}

bool msim_charge_initialized(struct msim *m)
{
	return msim__charge_host(m) != NULL;
}

void msim_charge_set_seed(struct msim *m, uint64_t seed)
{
	struct msim_charge_host *ch = msim__charge_host(m);

	if (!ch)
		return;
	ch->seed = seed;
	msim__stock_seed(ch);
}

void msim_charge_set_reclaim(struct msim *m, msim_reclaim_fn fn, void *arg)
{
	struct msim_charge_host *ch = msim__charge_host(m);

	if (ch) {
		ch->reclaim = fn;
		ch->reclaim_arg = arg;
	}
}
