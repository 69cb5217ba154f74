/* SPDX-License-Identifier: MIT */
/*
 * stats.c - the per-memcg data of the memcg statistics, its lifecycle hooks,
 * and the deferred exits.
 *
 * The bottom of the memcg statistics: it calls only the rstat core (core.c).
 * attach.c registers the hooks with the host's state as their priv, so nothing
 * here looks the state up (the lookups are the entry points', above attach.c).
 *
 * kernel: mm/memcontrol.c mem_cgroup_alloc() (vmstats, vmstats_percpu with
 * parent_pcpu, per-node lruvec stats), init_memcg_stats(), css_rstat_init() /
 * css_rstat_exit() (kernel/cgroup/rstat.c), css_release_work_fn()'s flush
 * (kernel/cgroup/cgroup.c), __mem_cgroup_free().
 *
 * Lifetime: css_alloc allocates (the first step of the lifecycle table); css_released
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

/* ---- per-memcg data ---- */

static void all_list_add(struct msim__memcg_stats *ms)
{
	struct msim__rstat *rs = ms->rs;

	msim_quiet_spin_lock(&rs->list_lock);
	ms->all_prev = NULL;
	ms->all_next = rs->all_list;
	if (rs->all_list)
		rs->all_list->all_prev = ms;
	rs->all_list = ms;
	msim_quiet_spin_unlock(&rs->list_lock);
}

static void all_list_del(struct msim__memcg_stats *ms)
{
	struct msim__rstat *rs = ms->rs;

	msim_quiet_spin_lock(&rs->list_lock);
	/*
	 * DPOR (yield.h): the neighbours' links (ms's own: its free notes it). Read
	 * under the lock: another memcg's free rewrites them (a concurrent-mode data
	 * race TSan reports once nothing else orders two flushers' exits).
	 */
	msim_access_note(ms->all_prev ? &ms->all_prev->all_next : &rs->all_list,
			 sizeof(rs->all_list), MSIM_ACCESS_STORE);
	if (ms->all_next)
		msim_access_note(&ms->all_next->all_prev, sizeof(ms->all_prev), MSIM_ACCESS_STORE);
	if (ms->all_prev)
		ms->all_prev->all_next = ms->all_next;
	else if (rs->all_list == ms)
		rs->all_list = ms->all_next;
	if (ms->all_next)
		ms->all_next->all_prev = ms->all_prev;
	ms->all_next = ms->all_prev = NULL;
	msim_quiet_spin_unlock(&rs->list_lock);
}

void msim__stats_free(struct msim__memcg_stats *ms)
{
	struct msim *m = ms->rs->m;

	if (ms->lruvec) {
		for (unsigned int nid = 0; nid < ms->rs->nr_nodes; nid++) {
			if (ms->lruvec[nid].pcpu)
				msim_free_percpu(m, ms->lruvec[nid].pcpu);
			if (ms->lruvec[nid].kmem_stats)
				msim_kfree(m, ms->lruvec[nid].kmem_stats);
		}
		/* DPOR: the frees store over what they free (percpu, kmem note theirs) */
		msim_access_note(ms->lruvec, ms->rs->nr_nodes * sizeof(*ms->lruvec),
				 MSIM_ACCESS_STORE);
		free(ms->lruvec);
	}
	if (ms->pcpu)
		msim_free_percpu(m, ms->pcpu);
	if (ms->css.rstat_cpu)
		msim_free_percpu(m, ms->css.rstat_cpu);
	if (ms->vmstats)
		msim_kfree(m, ms->vmstats);
	if (ms->parent) {
		msim_access_note(&ms->parent->nr_children, sizeof(ms->parent->nr_children),
				 MSIM_ACCESS_RMW);
		msim_quiet_fetch_sub(&ms->parent->nr_children, 1, MSIM_RELAXED);
	}
	all_list_del(ms);
	msim_access_note(ms, sizeof(*ms), MSIM_ACCESS_STORE);
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
	ms->parent = pmemcg ? msim__stats_of(rs, pmemcg) : NULL;
	ms->vmstats = msim_kmalloc(m, sizeof(*ms->vmstats), "memcg_vmstats");
	ms->pcpu = msim_alloc_percpu(m, sizeof(struct msim__stats_pcpu), "memcg_vmstats_percpu");
	ms->css.rstat_cpu = msim_alloc_percpu(m, sizeof(struct msim__rstat_cpu), "css_rstat_cpu");
	ms->lruvec = calloc(rs->nr_nodes, sizeof(*ms->lruvec));
	if (!ms->vmstats || !ms->pcpu || !ms->css.rstat_cpu || !ms->lruvec || (pmemcg && !ms->parent))
		goto fail;
	for (unsigned int nid = 0; nid < rs->nr_nodes; nid++) {
		msim__lruvec_init(&ms->lruvec[nid], rs, ms, nid);
		ms->lruvec[nid].pcpu = msim_alloc_percpu(m, sizeof(struct msim__lruvec_pcpu),
							 "lruvec_stats_percpu");
		/* kernel: alloc_mem_cgroup_per_node_info(): pn->lruvec_stats. */
		ms->lruvec[nid].kmem_stats = msim_kmalloc(m, rs->v.layout_6_12 ?
								     MSIM__LRUVEC_STATS_612_BYTES :
								     MSIM__LRUVEC_STATS_BYTES,
							  "lruvec_stats");
		if (!ms->lruvec[nid].pcpu || !ms->lruvec[nid].kmem_stats)
			goto fail;
	}
	/*
	 * The kernel writes statc->parent_pcpu and statc->vmstats on every CPU
	 * here; the model walks ms->parent instead (write.c) and leaves every CPU's
	 * copy zeroed until that CPU updates it, so an idle (cgroup, CPU) pair
	 * costs no memory. The fields stay in the struct for the kernel's size.
	 */
	msim__css_rstat_init(&ms->css, &rs->ss, ms->parent ? &ms->parent->css : NULL,
			     ms->css.rstat_cpu);
	if (ms->parent)
		msim_quiet_fetch_add(&ms->parent->nr_children, 1, MSIM_RELAXED);
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
	struct msim__rstat *rs = priv;
	struct msim__memcg_stats *ms;
	int slot;

	if (rs->detached || (slot = slot_of(rs)) < 0)
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
	struct msim__rstat *rs = priv;
	void **slot;

	if (rs->detached)
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
	if (!msim_trylock(&rs->ss.lock))
		return false;
	msim_unlock(&rs->ss.lock);
	return true;
}

/* kernel: css_release_work_fn(): css_rstat_flush(css) before ss->css_released. */
static void rstat_css_released(struct msim_memcg *memcg, void *priv)
{
	struct msim__rstat *rs = priv;
	struct msim__memcg_stats *ms = rs->detached ? NULL : msim__stats_of(rs, memcg);

	if (ms && lock_available(rs))
		msim__memcg_stats_flush(ms);
}

/* Exit and free ms if nothing blocks it; false if it must wait. */
static bool try_exit(struct msim__memcg_stats *ms)
{
	msim_access_note(&ms->nr_children, sizeof(ms->nr_children), MSIM_ACCESS_LOAD); /* DPOR */
	if (msim_quiet_load(&ms->nr_children, MSIM_RELAXED) > 0)
		return false;
	if (!lock_available(ms->rs))
		return false;
	if (!msim__css_rstat_exit(&ms->css, true))
		return false;
	msim__stats_free(ms);
	return true;
}

/* Retry deferred exits, oldest first (children were deferred before parents). */
static void exit_list_process(struct msim__rstat *rs)
{
	struct msim__memcg_stats *list, **pp, *ms;

	msim_access_note(&rs->exit_list, sizeof(rs->exit_list), MSIM_ACCESS_LOAD);
	if (!msim_quiet_load(&rs->exit_list, MSIM_RELAXED))
		return;
	/* final flushes and frees of other memcgs: anything, for DPOR (yield.h) */
	msim_access_note(NULL, 1, MSIM_ACCESS_ANY);
	msim_quiet_spin_lock(&rs->list_lock);
	list = msim_quiet_load(&rs->exit_list, MSIM_RELAXED);
	msim_quiet_store(&rs->exit_list, NULL, MSIM_RELAXED);
	msim_quiet_spin_unlock(&rs->list_lock);
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
		msim_quiet_spin_lock(&rs->list_lock);
		ms->exit_next = rs->exit_list;
		msim_quiet_store(&rs->exit_list, ms, MSIM_RELAXED);
		msim_quiet_spin_unlock(&rs->list_lock);
	}
}

/* kernel: css_free_rwork_fn() -> css_rstat_exit(), then __mem_cgroup_free(). */
static void rstat_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim__rstat *rs = priv;
	void **slot;
	struct msim__memcg_stats *ms;

	if (rs->detached)
		return;
	slot = msim_memcg_slot(memcg, rs->slot);
	ms = *slot;
	/* DPOR (teardown_noted): the slot, and ms's fields stored below */
	msim_access_note(slot, sizeof(*slot), MSIM_ACCESS_STORE);
	*slot = NULL;
	if (!ms)
		return;
	msim_access_note(&ms->memcg, sizeof(ms->memcg), MSIM_ACCESS_STORE);
	msim_access_note(&ms->exiting, sizeof(ms->exiting), MSIM_ACCESS_STORE);
	ms->memcg = NULL; /* the memcg goes away now; ms may outlive it */
	ms->exiting = true;
	if (ms == rs->root_ms) {
		msim_access_note(&rs->root_ms, sizeof(rs->root_ms), MSIM_ACCESS_STORE);
		rs->root_ms = NULL;
	}
	if (try_exit(ms))
		return;
	msim_access_note(&rs->exit_list, sizeof(rs->exit_list), MSIM_ACCESS_RMW);
	msim_quiet_spin_lock(&rs->list_lock);
	ms->exit_next = rs->exit_list;
	msim_quiet_store(&rs->exit_list, ms, MSIM_RELAXED);
	msim_quiet_spin_unlock(&rs->list_lock);
}

/*
 * kernel: css_rstat_flush(&memcg->css). The deferred exits are retried first:
 * their final flush folds into the parents this flush then reads.
 */
void msim__memcg_stats_flush(struct msim__memcg_stats *ms)
{
	exit_list_process(ms->rs);
	msim__css_rstat_flush(&ms->css);
}

const struct msim_memcg_hooks msim__rstat_stats_hooks = {
	.name = RSTAT_HOOKS,
	.css_alloc = rstat_css_alloc,
	.css_released = rstat_css_released,
	.css_free = rstat_css_free,
	.css_alloc_undo = rstat_css_alloc_undo,
	/* released: a flush (shims); free: noted above and in msim__stats_free */
	.teardown_noted = true,
};

/* Memcgs created before rstat was attached get their data now, parents first. */
int msim__rstat_adopt_existing(struct msim__rstat *rs)
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

