/* SPDX-License-Identifier: MIT */
/*
 * charge_host.c - the charge layer as the subsystem "charge": the per-host data
 * with its per-CPU stocks, the memcg hooks that create and free each memcg's
 * charge state, the teardown at msim_destroy(), msim_charge_init() (the attach
 * by hand) and the tunables.
 *
 * kernel: mm/memcontrol.c mem_cgroup_css_alloc() (page_counter_init of
 * memcg->memory), mem_cgroup_css_offline() step 9 (drain_all_stock),
 * mem_cgroup_css_free(), memcg_hotplug_cpu_dead() (drain a CPU's stock).
 *
 * It holds the host data and passes it to stock.c and charge_state.c (the
 * charge concept, behind charge_internal.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "charge_internal.h"

/* kernel: mem_cgroup_css_alloc(): page_counter_init(&memcg->memory, &parent->memory). */
static int charge_css_alloc(struct msim_memcg *memcg, void *priv)
{
	struct msim_charge_host *ch = priv;
	struct msim_memcg *parent = msim_parent_mem_cgroup(memcg);
	struct msim_memcg_charge *mc = calloc(1, sizeof(*mc)), *pmc;

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
	pmc = parent ? msim__memcg_charge_of(ch, parent) : NULL;
	msim_page_counter_init(&mc->memory, pmc ? &pmc->memory : NULL);
	*(struct msim_memcg_charge **)msim_memcg_slot(memcg, ch->slot) = mc;
	return 0;
}

/*
 * Also after the host data is detached: the memcg layer frees its memcgs (this
 * hook) at msim_destroy() after charge_host_fini(), and sim frees ch after that.
 */
static void charge_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim_charge_host *ch = priv;
	void **slot;

	if (ch->slot < 0)
		return;
	slot = msim_memcg_slot(memcg, ch->slot);
	/* DPOR (teardown_noted): the slot and the freed data are stored over */
	msim_access_note(slot, sizeof(*slot), MSIM_ACCESS_STORE);
	if (*slot)
		msim_access_note(*slot, sizeof(struct msim_memcg_charge), MSIM_ACCESS_STORE);
	free(*slot);
	*slot = NULL;
}

/* kernel: mem_cgroup_css_offline() step 9, drain_all_stock(memcg). */
static void charge_css_offline(struct msim_memcg *memcg, void *priv)
{
	msim__drain_all_stock(priv, memcg);
}

static const struct msim_memcg_hooks charge_hooks = {
	.name = "charge",
	.css_alloc = charge_css_alloc,
	.css_offline = charge_css_offline,
	.css_free = charge_css_free,
	.css_alloc_undo = charge_css_free,
	.teardown_noted = true,
};

static const struct msim_memcg_hooks *const charge_hook_sets[] = { &charge_hooks, NULL };

static bool charge_enabled(const struct msim_config *cfg)
{
	return cfg->charge;
}

/* The charge layer's rows of the variant table (subsys.h). */
enum { CHARGE_V_STOCK };
static const char *const stock_values[] = { "multi", "single", NULL };

static const struct msim_variant_desc charge_variants[] = {
	[CHARGE_V_STOCK] = { "charge-stock", stock_values,
		"the per-CPU charge stock: up to NR_MEMCG_STOCK (7) memcgs per CPU (multi), or "
		"one, as Linux 6.12 has it, so that a charge for another memcg drains it (single)",
		"kernel rig (6.12)" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int charge_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys charge_subsys;

/* state: zeroed, sizeof(struct msim_charge_host); the hook set gets it as priv. */
static int charge_host_init(struct msim *m, void *state)
{
	struct msim_memcg_hooks hooks = charge_hooks;
	struct msim_charge_host *ch = state;
	int ret;

	ch->m = m;
	ch->single_stock = msim_subsys_variant(&msim_config(m)->variants, &charge_subsys,
					       CHARGE_V_STOCK) == MSIM_CHARGE_STOCK_SINGLE;
	ch->slot = -1;
	ch->seed = 1;
	msim_lock_init(&ch->percpu_charge_mutex, "percpu_charge_mutex");
	ret = msim__stock_init(ch);
	if (ret)
		goto err;
	/* Hooks registered after the root exists are run on it at registration. */
	hooks.priv = ch;
	ret = msim_memcg_register_hooks(m, &hooks);
	if (ret < 0)
		goto err_stock;
	ch->slot = ret;
	return 0;
err_stock:
	msim__stock_fini(ch);
err:
	msim_lock_destroy(&ch->percpu_charge_mutex);
	return ret;
}

static void charge_host_fini(struct msim *m, void *state)
{
	struct msim_charge_host *ch = state;

	(void)m;
	msim__stock_drain_everything(ch);
	msim__stock_fini(ch);
	msim_lock_destroy(&ch->percpu_charge_mutex);
}

static const char *const charge_deps[] = { "memcg", NULL };

static const struct msim_subsys charge_subsys = {
	.name = "charge",
	.depends = charge_deps,
	.enabled = charge_enabled,
	.state_size = sizeof(struct msim_charge_host),
	.host_init = charge_host_init,
	.host_fini = charge_host_fini,
	.memcg_hooks = charge_hook_sets,
	.variants = charge_variants,
	.id = &charge_subsys_id,
};

/*
 * Every charge entry point reaches charge_subsys (msim__charge_host), so a
 * program that calls any of them links this file and this registration with it.
 */
struct msim_charge_host *msim__charge_host(struct msim *m)
{
	return m ? (struct msim_charge_host *)msim_subsys_state(m, &charge_subsys) : NULL;
}

__attribute__((constructor)) static void charge_register(void)
{
	msim_subsys_register(&charge_subsys);
}

int msim_charge_init(struct msim *m)
{
	char err[160];

	if (!m)
		return -EINVAL;
	return msim_subsys_attach(m, &charge_subsys, err, sizeof(err));
}

bool msim_charge_initialized(struct msim *m)
{
	return msim_subsys_attached(m, &charge_subsys);
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
