/* SPDX-License-Identifier: MIT */
/*
 * stats.c - per-host and per-memcg stats data, and their lifecycle hooks.
 *
 * kernel: mm/memcontrol.c mem_cgroup_alloc() (vmstats, vmstats_percpu with
 * parent_pcpu, per-node lruvec stats), init_memcg_stats(), css_rstat_init() /
 * css_rstat_exit() (kernel/cgroup/rstat.c), css_release_work_fn()'s flush
 * (kernel/cgroup/cgroup.c), __mem_cgroup_free().
 *
 * Lifetime: css_alloc allocates (order MSIM_HOOK_ORDER_RSTAT); css_released
 * flushes; css_free runs css_rstat_exit (flush, unlink from every CPU's tree)
 * and frees. Release and free run as RCU callbacks: in deterministic mode that
 * is driver context, which cannot wait for the rstat lock while a parked task
 * holds it. Then the release flush is skipped and the exit is deferred to the
 * next flush (simplification, docs/rstat.md); the exit flush still folds every
 * remaining delta into the parent, so nothing is lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/kmem.h>

#include "rstat_internal.h"

#define RSTAT_HOOKS "rstat"
#define RSTAT_OFFLINE_HOOKS "rstat-local-reparent"

struct msim__rstat *msim__rstat_peek(struct msim *m)
{
	return m ? *(struct msim__rstat **)msim_host_slot(m, MSIM_SLOT_RSTAT) : NULL;
}

struct msim__memcg_stats *msim__memcg_stats(struct msim_memcg *memcg)
{
	struct msim__rstat *rs;

	if (!memcg)
		return NULL;
	rs = msim__rstat_get(msim_memcg_host(memcg));
	return rs ? *(struct msim__memcg_stats **)msim_memcg_slot(memcg, rs->slot) : NULL;
}

/* ---- tiny spin lock with no yield inside (exit list) ---- */

static void exit_lock(struct msim__rstat *rs)
{
	while (__atomic_exchange_n(&rs->exit_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void exit_unlock(struct msim__rstat *rs)
{
	__atomic_store_n(&rs->exit_lock, 0, __ATOMIC_RELEASE);
}

/* ---- per-memcg data ---- */

static void all_list_add(struct msim__memcg_stats *ms)
{
	struct msim__rstat *rs = ms->rs;

	exit_lock(rs);
	ms->all_prev = NULL;
	ms->all_next = rs->all_list;
	if (rs->all_list)
		rs->all_list->all_prev = ms;
	rs->all_list = ms;
	exit_unlock(rs);
}

static void all_list_del(struct msim__memcg_stats *ms)
{
	struct msim__rstat *rs = ms->rs;

	exit_lock(rs);
	if (ms->all_prev)
		ms->all_prev->all_next = ms->all_next;
	else if (rs->all_list == ms)
		rs->all_list = ms->all_next;
	if (ms->all_next)
		ms->all_next->all_prev = ms->all_prev;
	ms->all_next = ms->all_prev = NULL;
	exit_unlock(rs);
}

static void lruvec_init(struct msim_lruvec *lv, struct msim__rstat *rs,
			struct msim__memcg_stats *ms, unsigned int nid)
{
	lv->host = rs->m;
	lv->ms = ms;
	lv->nid = nid;
}

void msim__stats_free(struct msim__memcg_stats *ms)
{
	struct msim *m = ms->rs->m;

	if (ms->lruvec) {
		for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++)
			if (ms->lruvec[nid].pcpu)
				msim_free_percpu(m, ms->lruvec[nid].pcpu);
		free(ms->lruvec);
	}
	if (ms->pcpu)
		msim_free_percpu(m, ms->pcpu);
	if (ms->rcpu)
		msim_free_percpu(m, ms->rcpu);
	if (ms->vmstats)
		msim_kfree(m, ms->vmstats);
	if (ms->parent)
		__atomic_fetch_sub(&ms->parent->nr_children, 1, __ATOMIC_RELAXED);
	all_list_del(ms);
	free(ms);
}

/* kernel: mem_cgroup_alloc()'s stats part: vmstats, per-CPU stats with parent_pcpu. */
static struct msim__memcg_stats *stats_alloc(struct msim__rstat *rs, struct msim_memcg *memcg)
{
	struct msim *m = rs->m;
	struct msim_memcg *pmemcg = msim_parent_mem_cgroup(memcg);
	struct msim__memcg_stats *ms = calloc(1, sizeof(*ms));

	if (!ms)
		return NULL;
	ms->rs = rs;
	ms->memcg = memcg;
	ms->is_root = !pmemcg;
	ms->parent = pmemcg ? msim__memcg_stats(pmemcg) : NULL;
	ms->vmstats = msim_kmalloc(m, sizeof(*ms->vmstats), "memcg_vmstats");
	ms->pcpu = msim_alloc_percpu(m, sizeof(struct msim__stats_pcpu), "memcg_vmstats_percpu");
	ms->rcpu = msim_alloc_percpu(m, sizeof(struct msim__rstat_cpu), "css_rstat_cpu");
	ms->lruvec = calloc(rs->nr_nodes, sizeof(*ms->lruvec));
	if (!ms->vmstats || !ms->pcpu || !ms->rcpu || !ms->lruvec || (pmemcg && !ms->parent))
		goto fail;
	for (unsigned int nid = 0; nid < rs->nr_nodes; nid++) {
		lruvec_init(&ms->lruvec[nid], rs, ms, nid);
		ms->lruvec[nid].pcpu = msim_alloc_percpu(m, sizeof(struct msim__lruvec_pcpu),
							 "lruvec_stats_percpu");
		if (!ms->lruvec[nid].pcpu)
			goto fail;
	}
	for (unsigned int cpu = 0; cpu < rs->nr_cpus; cpu++) {
		struct msim__stats_pcpu *pc = msim__pcpu(ms, cpu);

		pc->ms = ms;
		pc->parent_pcpu = ms->parent ? ms->parent->pcpu : NULL;
	}
	msim__rstat_cpu_init(ms);
	if (ms->parent)
		__atomic_fetch_add(&ms->parent->nr_children, 1, __ATOMIC_RELAXED);
	all_list_add(ms);
	return ms;
fail:
	ms->parent = NULL; /* no child count taken yet */
	msim__stats_free(ms);
	return NULL;
}

static int slot_of(struct msim__rstat *rs)
{
	return rs->slot >= 0 ? rs->slot : msim_memcg_hooks_slot(rs->m, RSTAT_HOOKS);
}

static int rstat_css_alloc(struct msim_memcg *memcg, void *priv)
{
	struct msim__rstat *rs = msim__rstat_peek(msim_memcg_host(memcg));
	struct msim__memcg_stats *ms;
	int slot;

	if (!rs || (slot = slot_of(rs)) < 0)
		return -EINVAL;
	ms = stats_alloc(rs, memcg);
	if (!ms)
		return -ENOMEM;
	*(struct msim__memcg_stats **)msim_memcg_slot(memcg, slot) = ms;
	if (ms->is_root)
		rs->root_ms = ms;
	return 0;
}

static void rstat_css_alloc_undo(struct msim_memcg *memcg, void *priv)
{
	struct msim__rstat *rs = msim__rstat_peek(msim_memcg_host(memcg));
	void **slot;

	if (!rs)
		return;
	slot = msim_memcg_slot(memcg, rs->slot);
	if (*slot)
		msim__stats_free(*slot);
	*slot = NULL;
}

/* Driver context in deterministic mode cannot wait for the lock: test it. */
static bool lock_available(struct msim__rstat *rs)
{
	if (msim_current_task() || msim_config(rs->m)->mode == MSIM_CONCURRENT)
		return true;
	if (!msim_trylock(&rs->lock))
		return false;
	msim_unlock(&rs->lock);
	return true;
}

/* kernel: css_release_work_fn(): css_rstat_flush(css) before ss->css_released. */
static void rstat_css_released(struct msim_memcg *memcg, void *priv)
{
	struct msim__rstat *rs = msim__rstat_peek(msim_memcg_host(memcg));
	struct msim__memcg_stats *ms = rs ? *(void **)msim_memcg_slot(memcg, rs->slot) : NULL;

	if (ms && lock_available(rs))
		msim__css_rstat_flush(ms);
}

/* Exit and free ms if nothing blocks it; false if it must wait. */
static bool try_exit(struct msim__memcg_stats *ms)
{
	if (__atomic_load_n(&ms->nr_children, __ATOMIC_RELAXED) > 0)
		return false;
	if (!lock_available(ms->rs))
		return false;
	if (!msim__css_rstat_exit(ms, true))
		return false;
	msim__stats_free(ms);
	return true;
}

/* Retry deferred exits, oldest first (children were deferred before parents). */
void msim__exit_list_process(struct msim__rstat *rs)
{
	struct msim__memcg_stats *list, **pp, *ms;

	if (!__atomic_load_n(&rs->exit_list, __ATOMIC_RELAXED))
		return;
	exit_lock(rs);
	list = __atomic_load_n(&rs->exit_list, __ATOMIC_RELAXED);
	__atomic_store_n(&rs->exit_list, NULL, __ATOMIC_RELAXED);
	exit_unlock(rs);
	/* list is newest first: reverse to try children before parents */
	struct msim__memcg_stats *rev = NULL;
	while (list) {
		ms = list;
		list = ms->exit_next;
		ms->exit_next = rev;
		rev = ms;
	}
	for (pp = &rev; (ms = *pp);) {
		struct msim__memcg_stats *next = ms->exit_next;

		if (try_exit(ms))   /* frees ms */
			*pp = next;
		else
			pp = &ms->exit_next;
	}
	/* put the survivors back, keeping newest-first order */
	while (rev) {
		ms = rev;
		rev = ms->exit_next;
		exit_lock(rs);
		ms->exit_next = rs->exit_list;
		__atomic_store_n(&rs->exit_list, ms, __ATOMIC_RELAXED);
		exit_unlock(rs);
	}
}

/* kernel: css_free_rwork_fn() -> css_rstat_exit(), then __mem_cgroup_free(). */
static void rstat_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim__rstat *rs = msim__rstat_peek(msim_memcg_host(memcg));
	void **slot;
	struct msim__memcg_stats *ms;

	if (!rs)
		return;
	slot = msim_memcg_slot(memcg, rs->slot);
	ms = *slot;
	*slot = NULL;
	if (!ms)
		return;
	ms->memcg = NULL; /* the memcg goes away now; ms may outlive it */
	ms->exiting = true;
	if (ms == rs->root_ms)
		rs->root_ms = NULL;
	if (try_exit(ms))
		return;
	exit_lock(rs);
	ms->exit_next = rs->exit_list;
	__atomic_store_n(&rs->exit_list, ms, __ATOMIC_RELAXED);
	exit_unlock(rs);
}

/* ---- per-host ---- */

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
	msim_free_percpu(m, rs->lhead);
	msim_lock_destroy(&rs->lock);
	free(rs);
}

static const struct msim_memcg_hooks stats_hooks = {
	.name = RSTAT_HOOKS,
	.order = MSIM_HOOK_ORDER_RSTAT,
	.css_alloc = rstat_css_alloc,
	.css_released = rstat_css_released,
	.css_free = rstat_css_free,
	.css_alloc_undo = rstat_css_alloc_undo,
};

static const struct msim_memcg_hooks offline_hooks = {
	.name = RSTAT_OFFLINE_HOOKS,
	.order = MSIM_HOOK_ORDER_OBJCG_LRU,
	.css_offline = msim__rstat_offline,
};

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
	msim_lock_init(&rs->lock, "rstat_ss_lock");
	rs->lhead = msim_alloc_percpu(m, sizeof(long), "rstat_llist_head");
	rs->node_stat = calloc((size_t)rs->nr_nodes * MSIM__NN, sizeof(long));
	rs->node_lruvec = calloc(rs->nr_nodes, sizeof(*rs->node_lruvec));
	if (!rs->lhead || !rs->node_stat || !rs->node_lruvec) {
		free(rs->node_stat);
		free(rs->node_lruvec);
		if (rs->lhead)
			msim_free_percpu(m, rs->lhead);
		free(rs);
		return NULL;
	}
	for (unsigned int nid = 0; nid < rs->nr_nodes; nid++) {
		lruvec_init(&rs->node_lruvec[nid], rs, NULL, nid);
		/* unused by memcg-less lruvecs, allocated so the free path is uniform */
		rs->node_lruvec[nid].pcpu = msim_alloc_percpu(m, sizeof(long), "node_lruvec");
	}
	return rs;
}

/* Memcgs created before rstat was attached get their data now, parents first. */
static int adopt_existing(struct msim__rstat *rs)
{
	struct msim_memcg *root = msim_root_mem_cgroup(rs->m), *pos = NULL;

	while ((pos = msim_mem_cgroup_iter(root, pos))) {
		void **slot = msim_memcg_slot(pos, rs->slot);

		if (*slot)
			continue;
		if (rstat_css_alloc(pos, rs)) {
			msim_mem_cgroup_iter_break(root, pos);
			return -ENOMEM;
		}
	}
	return 0;
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
	ret = msim_memcg_register_hooks(m, &stats_hooks);
	if (ret < 0)
		goto err;
	rs->slot = ret;
	ret = msim_memcg_register_hooks(m, &offline_hooks);
	if (ret < 0)
		return ret; /* the stats hooks stay registered: keep rs */
	rs->slot_offline = ret;
	ret = adopt_existing(rs);
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

struct msim__rstat *msim__rstat_get(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_peek(m);

	if (rs || !m)
		return rs;
	if (msim_rstat_init(m, NULL))
		return NULL;
	return msim__rstat_peek(m);
}

bool msim_rstat_attached(struct msim *m)
{
	return msim__rstat_peek(m) != NULL;
}

long msim_memcg_flush_threshold(struct msim *m)
{
	struct msim__rstat *rs = msim__rstat_get(m);

	return rs ? msim__threshold(rs) : -ENODEV;
}
