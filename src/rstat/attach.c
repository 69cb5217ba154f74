/* SPDX-License-Identifier: MIT */
/*
 * attach.c - the memcg statistics as the subsystem "rstat": host_init sets up
 * the host's data (the rstat core's lock, llists and flush callback, the node
 * counters), registers the two memcg hook sets (the per-memcg data, stats.c;
 * the local-stat reparenting at offline, reparent.c), gives memcgs made before
 * it their data and starts the periodic flush (flush.c); host_fini undoes it
 * at msim_destroy(). msim_rstat_init() attaches it by hand, with tunables.
 *
 * kernel: mm/memcontrol.c mem_cgroup_init() and the memory_cgrp_subsys
 * definition (css_rstat_flush = mem_cgroup_css_rstat_flush); kernel/cgroup/rstat.c
 * ss_rstat_init().
 *
 * It calls stats.c, flush.c and reparent.c, which take the host's data as an
 * argument or as their hooks' priv; the entry points that look it up (through
 * rstat_subsys, defined here) sit above this file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/kmem.h>

#include "rstat_internal.h"

void msim_rstat_params_init(struct msim_rstat_params *p)
{
	memset(p, 0, sizeof(*p));
	p->charge_batch = MSIM_MEMCG_CHARGE_BATCH;
	p->threshold_per_cpu = MSIM_MEMCG_CHARGE_BATCH;
	p->flush_time = 0;
	p->periodic_flush = true;
}

/* The tunables m gets from p (NULL: the defaults), or -EINVAL. */
static int params_resolve(struct msim *m, const struct msim_rstat_params *p,
			  struct msim_rstat_params *out)
{
	if (!p) {
		msim_rstat_params_init(out);
		p = out;
	}
	if (p->charge_batch < 1 || p->threshold_per_cpu < 0)
		return -EINVAL;
	/* store_buffer asked for what only a weak memory model gives now (rstat.h) */
	if (p->store_buffer && msim_config(m)->memory_model == MSIM_MEMORY_SC)
		return -EINVAL;
	*out = *p;
	if (!out->flush_time)
		out->flush_time = (uint64_t)MSIM_FLUSH_TIME_SECONDS * msim_config(m)->hz;
	return 0;
}

/*
 * What host_init set up, freed; also on a failed attach. The memcg layer still
 * runs the hook sets at its own teardown (and on a set registered before the
 * failure): detached makes them return at once.
 */
static void rstat_teardown(struct msim__rstat *rs)
{
	struct msim *m = rs->m;

	msim_cancel_delayed_work(m, &rs->dwork);
	rs->detached = true;
	rs->exit_list = NULL;
	while (rs->all_list) {
		struct msim__memcg_stats *ms = rs->all_list;

		ms->parent = NULL;
		msim__stats_free(ms); /* unlinks it from all_list */
	}
	for (unsigned int nid = 0; rs->node_lruvec && nid < rs->nr_nodes; nid++)
		msim_free_percpu(m, rs->node_lruvec[nid].pcpu);
	free(rs->node_lruvec);
	free(rs->node_stat);
	free(rs->upd_ctr);
	msim_free_percpu(m, rs->ss.lhead);
	msim_lock_destroy(&rs->ss.lock);
}

/* The host's data and the core's view of the memory controller. */
static int rstat_setup(struct msim__rstat *rs, struct msim *m)
{
	rs->m = m;
	rs->slot = -1;
	rs->slot_offline = -1;
	rs->nr_cpus = msim_nr_cpus(m);
	rs->nr_nodes = msim_nr_nodes(m);
	/* memory_cgrp_subsys's rstat part: the core calls back into flush.c */
	rs->ss.nr_cpus = rs->nr_cpus;
	rs->ss.css_rstat_flush = msim__memcg_rstat_flush_cpu;
	rs->ss.ctr = &rs->ctr;
	rs->ss.no_claim = msim__rstat_variant(msim_config(m), MSIM__RSTAT_V_ENQUEUE_CLAIM) ==
			  MSIM_OFF;
	msim_spin_lock_init(&rs->ss.lock, "rstat_ss_lock");
	rs->ss.lhead = msim_alloc_percpu(m, sizeof(long), "rstat_llist_head");
	/* cache-line aligned, as its type says: each CPU counts on its own line */
	rs->upd_ctr = aligned_alloc(64, rs->nr_cpus * sizeof(*rs->upd_ctr));
	if (rs->upd_ctr)
		memset(rs->upd_ctr, 0, rs->nr_cpus * sizeof(*rs->upd_ctr));
	rs->node_stat = calloc((size_t)rs->nr_nodes * MSIM__NN, sizeof(long));
	rs->node_lruvec = calloc(rs->nr_nodes, sizeof(*rs->node_lruvec));
	if (!rs->ss.lhead || !rs->upd_ctr || !rs->node_stat || !rs->node_lruvec)
		return -ENOMEM;
	for (unsigned int nid = 0; nid < rs->nr_nodes; nid++) {
		msim__lruvec_init(&rs->node_lruvec[nid], rs, NULL, nid);
		/* unused by memcg-less lruvecs, allocated so the free path is uniform */
		rs->node_lruvec[nid].pcpu = msim_alloc_percpu(m, sizeof(long), "node_lruvec");
	}
	return 0;
}

/* The hook sets of the subsystem, each registered with the host's data as priv. */
static const struct msim_memcg_hooks *const rstat_hooks[] = {
	&msim__rstat_stats_hooks,      /* slot: rs->slot */
	&msim__rstat_offline_hooks,    /* slot: rs->slot_offline */
	NULL,
};

static int register_hooks(struct msim__rstat *rs)
{
	int *slots[] = { &rs->slot, &rs->slot_offline };

	for (unsigned int i = 0; rstat_hooks[i]; i++) {
		struct msim_memcg_hooks hooks = *rstat_hooks[i];
		int ret;

		hooks.priv = rs;
		ret = msim_memcg_register_hooks(rs->m, &hooks);
		if (ret < 0)
			return ret;
		*slots[i] = ret;
	}
	return 0;
}

/*
 * node-stat=percpu: the node counters are vmstat's, so vmstat attaches first
 * (and detaches after rstat: its destructor is pushed before rstat's). A
 * dependency only this variant has, so it is attached here rather than listed
 * in rstat_deps: hosts with node-stat=exact keep their subsystems, memory and
 * schedules.
 */
static int node_stat_attach(struct msim *m)
{
	char err[160];

	if (msim__rstat_variant(msim_config(m), MSIM__RSTAT_V_NODE_STAT) != MSIM_NODE_STAT_PERCPU ||
	    msim_subsys_attached(m, msim_subsys_find("vmstat")))
		return 0;
	return msim_subsys_attach(m, msim_subsys_find("vmstat"), err, sizeof(err));
}

/* The variants the host runs (rstat's rows, below, and memcg's memcg-layout). */
static void variants_read(struct msim__rstat_variants *v, const struct msim_config *cfg)
{
	v->propagate = msim__rstat_variant(cfg, MSIM__RSTAT_V_PROPAGATE);
	v->root_read_node = msim__rstat_variant(cfg, MSIM__RSTAT_V_ROOT_LRUVEC_READ) ==
			    MSIM_ROOT_LRUVEC_READ_NODE;
	v->node_stat_percpu = msim__rstat_variant(cfg, MSIM__RSTAT_V_NODE_STAT) ==
			      MSIM_NODE_STAT_PERCPU;
	v->nmi_atomic = msim__rstat_variant(cfg, MSIM__RSTAT_V_NMI_STATS) == MSIM_NMI_STATS_ATOMIC;
	v->nmi_drain_local = msim__rstat_variant(cfg, MSIM__RSTAT_V_NMI_DRAIN_LOCAL) == MSIM_ON;
	v->nmi_drain_vmstats = msim__rstat_variant(cfg, MSIM__RSTAT_V_NMI_DRAIN_VMSTATS) == MSIM_ON;
	v->layout_6_12 = msim_memcg_variant_layout(cfg) == MSIM_MEMCG_LAYOUT_LINUX_6_12;
}

/* state: zeroed, sizeof(struct msim__rstat); default tunables (msim_rstat_init changes them). */
static int rstat_host_init(struct msim *m, void *state)
{
	struct msim__rstat *rs = state;
	int ret;

	variants_read(&rs->v, msim_config(m));
	ret = node_stat_attach(m);

	if (ret)
		return ret;
	ret = rstat_setup(rs, m);

	if (!ret)
		ret = params_resolve(m, NULL, &rs->params);
	rs->periodic = rs->params.periodic_flush;
	if (!ret)
		ret = register_hooks(rs);
	if (!ret)
		ret = msim__rstat_adopt_existing(rs);
	if (ret) {
		rstat_teardown(rs);
		return ret;
	}
	if (!rs->root_ms)
		rs->root_ms = msim__stats_of(rs, msim_root_mem_cgroup(m));
	msim__rstat_dwork_init(rs);
	return 0;
}

/*
 * Memcgs still allocated are freed by the memcg layer's teardown, after this
 * (memcg attached first); their css_free hooks then find rs detached.
 */
static void rstat_host_fini(struct msim *m, void *state)
{
	(void)m;
	rstat_teardown(state);
}

static bool rstat_enabled(const struct msim_config *cfg)
{
	return cfg->rstat;
}

static const char *const rstat_deps[] = { "memcg", NULL };

/* rstat's rows of the variant table (subsys.h), indexed by enum msim__rstat_variant_row. */
static const char *const propagate_values[] = { "break", "continue", "skip-atomic", NULL };
static const char *const root_read_values[] = { "rstat", "node", NULL };
static const char *const dying_values[] = { "v1", "all", "all-rcu-on-dying", NULL };
static const char *const node_stat_values[] = { "exact", "percpu", NULL };
static const char *const nmi_stats_values[] = { "percpu", "atomic", NULL };

static const struct msim_variant_desc rstat_variants[] = {
	[MSIM__RSTAT_V_PROPAGATE] = { "rstat-propagate", propagate_values,
		"memcg_rstat_updated at a flushable level: stop the walk (break), skip the "
		"level and keep walking to the ancestors (continue), or, as Linux 6.12, add to "
		"every level's per-CPU count and at the batch skip only the atomic add of a "
		"flushable level (skip-atomic)",
		"004" },
	[MSIM__RSTAT_V_ROOT_LRUVEC_READ] = { "root-lruvec-read", root_read_values,
		"root memcg lruvec reads: the flushed rstat aggregate, or the node counters "
		"(minus the stats the thread excludes)",
		"002 patch 2" },
	[MSIM__RSTAT_V_DYING_REDIRECT] = { "dying-redirect", dying_values,
		"stat updates to a dying memcg go to its nearest live ancestor: on cgroup v1 only "
		"(v1), on every hierarchy with RCU always taken (all), or with RCU taken only on "
		"the dying path (all-rcu-on-dying)",
		"000 patches 2, 3" },
	[MSIM__RSTAT_V_NODE_STAT] = { "node-stat", node_stat_values,
		"rstat's node counters (mod_node_page_state, node_page_state): percpu is the "
		"kernel, vmstat's per-CPU diffs folded past a threshold and every second, so a "
		"node read lags by up to threshold x CPUs; exact is the model's old "
		"simplification, one always-up-to-date atomic, the default only so that "
		"figures measured before it stay comparable",
		"002 (node side), model" },
	[MSIM__RSTAT_V_NMI_STATS] = { "nmi-stats", nmi_stats_values,
		"memcg stats updated in NMI: through the per-CPU counters like any context, where "
		"this_cpu ops are NMI-safe (percpu: x86, arm64), or staged in per-memcg and "
		"per-node atomics that the flush drains (atomic: "
		"CONFIG_MEMCG_NMI_SAFETY_REQUIRES_ATOMIC)",
		"R10 (2025)" },
	[MSIM__RSTAT_V_NMI_DRAIN_LOCAL] = { "nmi-drain-local", MSIM_VARIANT_VALUES_ON_OFF,
		"nmi-stats=atomic: the drain adds the NMI deltas to state_local too (on, the 2026 "
		"fix); off is the drain before it, whose local (v1, workingset) reads miss them",
		"R10 (2026 fix)" },
	[MSIM__RSTAT_V_NMI_DRAIN_VMSTATS] = { "nmi-drain-vmstats", MSIM_VARIANT_VALUES_ON_OFF,
		"nmi-stats=atomic: the drain adds the NMI slab deltas to the memcg-level vmstats as "
		"well as the lruvec's (on, the 2026 fix); off is the drain before it, whose "
		"memory.stat slab lines miss them",
		"R10 (2026 fix)" },
	[MSIM__RSTAT_V_ENQUEUE_CLAIM] = { "rstat-enqueue-claim", MSIM_VARIANT_VALUES_ON_OFF,
		"css_rstat_updated claims the css's lnode with a cmpxchg before llist_add, so of "
		"the contexts stacked on a CPU only one inserts it (on); off trusts the racy "
		"on-list test alone and shows the double insert the claim prevents",
		"demo (6.17 rstat)" },
	{ NULL, NULL, NULL, NULL },
};

unsigned int msim__rstat_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys rstat_subsys = {
	.name = "rstat",
	.depends = rstat_deps,
	.enabled = rstat_enabled,
	.state_size = sizeof(struct msim__rstat),
	.host_init = rstat_host_init,
	.host_fini = rstat_host_fini,
	.memcg_hooks = rstat_hooks,
	.variants = rstat_variants,
	.id = &msim__rstat_subsys_id,
};

enum msim_root_lruvec_read msim_rstat_variant_root_lruvec_read(const struct msim_config *cfg)
{
	return msim__rstat_variant(cfg, MSIM__RSTAT_V_ROOT_LRUVEC_READ);
}

/*
 * Every rstat entry point reaches rstat_subsys (msim__rstat_peek), so a
 * program that calls any of them links this file and this registration with it.
 */
struct msim__rstat *msim__rstat_peek(struct msim *m)
{
	return m ? (struct msim__rstat *)msim_subsys_state(m, &rstat_subsys) : NULL;
}

__attribute__((constructor)) static void rstat_register(void)
{
	msim_subsys_register(&rstat_subsys);
}

int msim_rstat_init(struct msim *m, const struct msim_rstat_params *params)
{
	struct msim_rstat_params p;
	struct msim__rstat *rs;
	char err[160];
	bool fresh;
	int ret;

	if (!m)
		return -EINVAL;
	ret = params_resolve(m, params, &p);
	if (ret)
		return ret;
	fresh = !msim_subsys_attached(m, &rstat_subsys);
	if (fresh && (ret = msim_subsys_attach(m, &rstat_subsys, err, sizeof(err))))
		return ret;
	rs = msim__rstat_peek(m);
	rs->params = p;
	rs->ss.mb_pair = p.smp_mb_pair;
	if (!fresh) {
		/* Attached already: update the tunables, the periodic flush included. */
		msim__rstat_periodic_flush(rs, p.periodic_flush);
		return 0;
	}
	/* As if it had attached with p: the first periodic flush at p's flush_time. */
	msim_cancel_delayed_work(m, &rs->dwork);
	rs->periodic = p.periodic_flush;
	if (rs->periodic)
		msim_queue_delayed_work(m, &rs->dwork, p.flush_time);
	return 0;
}

bool msim_rstat_attached(struct msim *m)
{
	return msim_subsys_attached(m, &rstat_subsys);
}
