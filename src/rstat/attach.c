/* SPDX-License-Identifier: MIT */
/*
 * attach.c - rstat on a host: msim_rstat_init() allocates the host's data (the
 * rstat core's lock, llists and flush callback among it), registers the two
 * memcg hook sets (the per-memcg data, stats.c; the local-stat reparenting at
 * offline, reparent.c), gives memcgs made before it their data, starts the
 * periodic flush (flush.c), and arranges the teardown at msim_destroy().
 *
 * kernel: mm/memcontrol.c mem_cgroup_init() and the memory_cgrp_subsys
 * definition (css_rstat_flush = mem_cgroup_css_rstat_flush); kernel/cgroup/rstat.c
 * ss_rstat_init().
 *
 * The top of src/rstat's memcg statistics: it calls stats.c, flush.c and
 * reparent.c; of them, only stats.c's msim__rstat_get() calls back (attach on
 * first use, until the subsystem registry does it at msim_create()).
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

static int params_apply(struct msim__rstat *rs, const struct msim_rstat_params *p)
{
	struct msim_rstat_params d;

	if (!p) {
		msim_rstat_params_init(&d);
		p = &d;
	}
	if (p->charge_batch < 1 || p->threshold_per_cpu < 0)
		return -EINVAL;
	rs->params = *p;
	if (!rs->params.flush_time)
		rs->params.flush_time = (uint64_t)MSIM_FLUSH_TIME_SECONDS * msim_config(rs->m)->hz;
	return 0;
}

static void rstat_host_destroy(struct msim *m, void *arg)
{
	struct msim__rstat *rs = arg;

	msim_cancel_delayed_work(m, &rs->dwork);
	/* Memcgs still allocated are freed by the memcg layer's teardown, which runs
	 * our css_free hook only while the slot is set; from here on it is not. */
	*(struct msim__rstat **)msim_host_slot(m, MSIM_SLOT_RSTAT) = NULL;
	rs->exit_list = NULL;
	while (rs->all_list) {
		struct msim__memcg_stats *ms = rs->all_list;

		ms->parent = NULL;
		msim__stats_free(ms); /* unlinks it from all_list */
	}
	for (unsigned int nid = 0; nid < rs->nr_nodes; nid++)
		msim_free_percpu(m, rs->node_lruvec[nid].pcpu);
	free(rs->node_lruvec);
	free(rs->node_stat);
	msim_free_percpu(m, rs->ss.lhead);
	msim_lock_destroy(&rs->ss.lock);
	free(rs);
}

static struct msim__rstat *rstat_alloc(struct msim *m)
{
	struct msim__rstat *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->m = m;
	rs->slot = -1;
	rs->slot_offline = -1;
	rs->nr_cpus = msim_nr_cpus(m);
	rs->nr_nodes = msim_nr_nodes(m);
	/* memory_cgrp_subsys's rstat part: the core calls back into flush.c */
	rs->ss.nr_cpus = rs->nr_cpus;
	rs->ss.css_rstat_flush = msim__memcg_rstat_flush_cpu;
	rs->ss.ctr = &rs->ctr;
	msim_lock_init(&rs->ss.lock, "rstat_ss_lock");
	rs->ss.lhead = msim_alloc_percpu(m, sizeof(long), "rstat_llist_head");
	rs->node_stat = calloc((size_t)rs->nr_nodes * MSIM__NN, sizeof(long));
	rs->node_lruvec = calloc(rs->nr_nodes, sizeof(*rs->node_lruvec));
	if (!rs->ss.lhead || !rs->node_stat || !rs->node_lruvec) {
		free(rs->node_stat);
		free(rs->node_lruvec);
		if (rs->ss.lhead)
			msim_free_percpu(m, rs->ss.lhead);
		free(rs);
		return NULL;
	}
	for (unsigned int nid = 0; nid < rs->nr_nodes; nid++) {
		msim__lruvec_init(&rs->node_lruvec[nid], rs, NULL, nid);
		/* unused by memcg-less lruvecs, allocated so the free path is uniform */
		rs->node_lruvec[nid].pcpu = msim_alloc_percpu(m, sizeof(long), "node_lruvec");
	}
	return rs;
}

int msim_rstat_init(struct msim *m, const struct msim_rstat_params *params)
{
	struct msim__rstat *rs;
	int ret;

	if (!m)
		return -EINVAL;
	rs = msim__rstat_peek(m);
	if (rs) {
		/* Already attached (perhaps lazily): update the tunables, the periodic
		 * flush included. */
		ret = params_apply(rs, params);
		if (!ret)
			msim_rstat_periodic_flush_enable(m, rs->params.periodic_flush);
		return ret;
	}
	rs = rstat_alloc(m);
	if (!rs)
		return -ENOMEM;
	ret = params_apply(rs, params);
	if (ret) {
		rstat_host_destroy(m, rs);
		return ret;
	}
	rs->periodic = rs->params.periodic_flush;
	/* Publish before registering: the root's alloc hook runs right away. */
	*(struct msim__rstat **)msim_host_slot(m, MSIM_SLOT_RSTAT) = rs;
	ret = msim_memcg_register_hooks(m, &msim__rstat_stats_hooks);
	if (ret < 0)
		goto err;
	rs->slot = ret;
	ret = msim_memcg_register_hooks(m, &msim__rstat_offline_hooks);
	if (ret < 0)
		return ret; /* the stats hooks stay registered: keep rs */
	rs->slot_offline = ret;
	ret = msim__rstat_adopt_existing(rs);
	if (!rs->root_ms)
		rs->root_ms = msim__memcg_stats(msim_root_mem_cgroup(m));
	msim__rstat_dwork_init(rs);
	msim_host_on_destroy(m, rstat_host_destroy, rs);
	return ret;
err:
	*(struct msim__rstat **)msim_host_slot(m, MSIM_SLOT_RSTAT) = NULL;
	rstat_host_destroy(m, rs);
	return ret;
}

bool msim_rstat_attached(struct msim *m)
{
	return msim__rstat_peek(m) != NULL;
}
