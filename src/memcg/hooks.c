/* SPDX-License-Identifier: MIT */
/*
 * hooks.c - running the registered msim_memcg_hooks of one phase, in the order
 * lifecycle.c's table gives (registration itself, which fills the host's table,
 * is in host.c).
 *
 * kernel: the cgroup core calls each subsystem's css_alloc / css_online /
 * css_offline / css_released / css_free (kernel/cgroup/cgroup.c css_create,
 * online_css, offline_css, css_release_work_fn, css_free_rwork_fn); here the
 * memory controller's own callbacks are split over the model's layers above
 * memcg (rstat, shrinker, list_lru, ...), each one hook set. Per memcg, a mask
 * records which sets ran css_alloc / css_online, and only those are torn down.
 */
#include <errno.h>
#include <string.h>

#include "memcg/memcg_internal.h"

/* Snapshot of phase p's plan: every slot, in the order it runs (registration may append). */
static unsigned int hooks_plan(struct msim__memcg_host *h, enum msim__css_phase p,
			       unsigned char *out)
{
	unsigned int n;

	msim_quiet_spin_lock(&h->lock);
	n = h->nr_hooks;
	memcpy(out, h->plan[p], n);
	msim_quiet_spin_unlock(&h->lock);
	return n;
}

/*
 * Run teardown phase k for the sets whose online (offline) or css_alloc (the
 * others) ran, in the phase's order. Every kind but css_released, which the
 * css_free that follows it still needs, unmarks the set before its callback.
 */
static void hooks_teardown(struct msim_memcg *memcg, enum msim__css_phase k)
{
	struct msim__memcg_host *h = memcg->h;
	unsigned char order[MSIM_MEMCG_MAX_SLOTS];
	unsigned int i, n = hooks_plan(h, k, order);
	uint32_t *mask = k == MSIM__CSS_OFFLINE ? &memcg->online_mask : &memcg->alloc_mask;

	for (i = 0; i < n; i++) {
		unsigned int s = order[i];
		msim__hooks_teardown_fn fn;

		if (!(*mask & (1u << s)))
			continue;
		if (k != MSIM__CSS_RELEASED)
			*mask &= ~(1u << s);
		fn = msim__hooks_teardown(&h->hooks[s], k);
		if (fn && (k == MSIM__CSS_RELEASED || k == MSIM__CSS_FREE) &&
		    !h->hooks[s].teardown_noted)
			msim_access_note(NULL, 1, MSIM_ACCESS_ANY); /* DPOR: unannotated */
		if (fn)
			fn(memcg, h->hooks[s].priv);
	}
}

/*
 * Undo css_alloc for the sets that allocated (kernel: css_create()'s error path
 * calls ss->css_free on the half-made css).
 */
void msim__memcg_run_alloc_undo(struct msim_memcg *memcg)
{
	hooks_teardown(memcg, MSIM__CSS_ALLOC_UNDO);
}

/* Offline hooks, for the sets whose online ran (offline_css). */
void msim__memcg_run_offline(struct msim_memcg *memcg)
{
	hooks_teardown(memcg, MSIM__CSS_OFFLINE);
}

/* kernel: css_release_work_fn() -> ss->css_released(). */
void msim__memcg_run_released(struct msim_memcg *memcg)
{
	hooks_teardown(memcg, MSIM__CSS_RELEASED);
}

/* kernel: css_free_rwork_fn() -> ss->css_free(). */
void msim__memcg_run_free(struct msim_memcg *memcg)
{
	hooks_teardown(memcg, MSIM__CSS_FREE);
}

/* css_alloc (online: css_online) of one set; on success marks it in alloc_mask (online_mask). */
static int run_one_setup(struct msim_memcg *memcg, unsigned int s, bool online)
{
	const struct msim_memcg_hooks *hk = &memcg->h->hooks[s];
	int (*fn)(struct msim_memcg *memcg, void *priv) = online ? hk->css_online : hk->css_alloc;
	int ret = fn ? fn(memcg, hk->priv) : 0;

	if (ret == 0)
		*(online ? &memcg->online_mask : &memcg->alloc_mask) |= 1u << s;
	return ret;
}

/* css_alloc (or css_online) of every set in the phase's order, up to the first failure. */
static int hooks_setup(struct msim_memcg *memcg, bool online)
{
	unsigned char order[MSIM_MEMCG_MAX_SLOTS];
	unsigned int i, n = hooks_plan(memcg->h, online ? MSIM__CSS_ONLINE : MSIM__CSS_ALLOC, order);
	int ret;

	for (i = 0; i < n; i++) {
		ret = run_one_setup(memcg, order[i], online);
		if (ret)
			return ret;
	}
	return 0;
}

/* kernel: css_create() -> ss->css_alloc(). Undoes itself on failure. */
int msim__memcg_run_alloc(struct msim_memcg *memcg)
{
	int ret = hooks_setup(memcg, false);

	if (ret)
		msim__memcg_run_alloc_undo(memcg);
	return ret;
}

/* kernel: online_css() -> ss->css_online(). The caller undoes on failure. */
int msim__memcg_run_online(struct msim_memcg *memcg)
{
	return hooks_setup(memcg, true);
}

/*
 * Hooks registered after the root exists run css_alloc and css_online on the
 * root now (memcgs created before registration never see this hook set). A
 * failure undoes the css_alloc and returns the error (the registration then
 * disables the set).
 */
int msim__memcg_run_setup_on_root(struct msim_memcg *root, unsigned int s)
{
	struct msim__memcg_host *h = root->h;
	int ret = run_one_setup(root, s, false);

	if (ret == 0) {
		ret = run_one_setup(root, s, true);
		if (ret) {
			root->alloc_mask &= ~(1u << s);
			if (h->hooks[s].css_alloc_undo)
				h->hooks[s].css_alloc_undo(root, h->hooks[s].priv);
		}
	}
	return ret;
}

void **msim_memcg_slot(struct msim_memcg *memcg, int slot)
{
	MSIM__MEMCG_ASSERT(memcg);
	assert(slot >= 0 && slot < MSIM_MEMCG_MAX_SLOTS);
	return &memcg->slots[slot];
}
