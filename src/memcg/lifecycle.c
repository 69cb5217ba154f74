/* SPDX-License-Identifier: MIT */
/*
 * lifecycle.c - the memcg lifecycle: the ordered table of the steps of
 * css_alloc, css_online, css_offline, css_released and css_free, each naming
 * the hook set it runs; mkdir, rmdir, the root, and the release and free that
 * follow the last css reference.
 *
 * kernel: kernel/cgroup/cgroup.c (cgroup_mkdir, css_create, online_css,
 * cgroup_rmdir, kill_css, css_killed_work_fn, offline_css, css_release,
 * css_release_work_fn, css_free_rwork_fn) and mm/memcontrol.c
 * (mem_cgroup_css_alloc/online/offline, mem_cgroup_alloc).
 *
 * This is the top of src/memcg's tree files: it drives the others (host.c for
 * the host, tree.c for the struct and its links, hooks.c for the subsystems'
 * callbacks, id.c for private ids, css.c for references) and none of them calls
 * it: css.c reaches the release through memcg->css_release, set at allocation.
 *
 * Release and free run as RCU callbacks: the kernel queues css_release_work_fn
 * on a workqueue when the last reference goes, and css_free_rwork_fn on an RCU
 * work after it. The model uses call_rcu for both (the release therefore waits
 * a grace period the kernel does not; nothing in the model depends on that gap),
 * so that css_released hooks never run inside the caller of the last css_put
 * (who may hold a lock those hooks take) and the explorer schedules them.
 * docs/memcg.md lists every simplification.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "memcg/memcg_internal.h"

/* ---- the lifecycle table ---- */

/*
 * The memcg lifecycle, one step per row, in the order the memory controller's
 * callbacks do their parts: mem_cgroup_css_alloc() (mem_cgroup_alloc()),
 * mem_cgroup_css_online(), mem_cgroup_css_offline(), mem_cgroup_css_released()
 * and mem_cgroup_css_free() (mm/memcontrol.c). Each step names the hook set
 * whose callback for that phase it runs; the layer that registers the set (its
 * struct msim_subsys' memcg_hooks) owns the callback, and no layer picks a
 * number to find its place. Where the newest kernel differs from Linux 6.12 the
 * model follows the newest (the per-node objcgs are allocated in css_online
 * after alloc_shrinker_info: objcg.c). A failed css_alloc is undone (css_free
 * of a half-made css) by the css_alloc steps' sets, bottom up.
 *
 * A hook set no step names for a phase (an experiment's, a test's) runs after
 * the steps of css_alloc, css_online and css_offline and before those of the
 * teardown phases, ordered among such sets by its .order (equal orders in
 * registration order). On a host with every layer, every layer's callback is
 * named by a step (tests/unit/test_memcg_lifecycle.c).
 */
struct lifecycle_step {
	enum msim__css_phase phase;
	const char *hooks;       /* the hook set's name */
	const char *kernel;      /* what the kernel does at this step */
};

static const struct lifecycle_step memcg_lifecycle[] = {
	/* mem_cgroup_css_alloc() -> mem_cgroup_alloc() */
	{ MSIM__CSS_ALLOC, "rstat", "memcg->vmstats, vmstats_percpu, per-node lruvec_stats" },
	{ MSIM__CSS_ALLOC, "zswap", "the memcg's zswap state" },
	{ MSIM__CSS_ALLOC, "workingset", "lruvec_init(): nonresident_age, per node" },
	{ MSIM__CSS_ALLOC, "lru", "lruvec_init(), lru_gen_init_lruvec(), per node" },
	{ MSIM__CSS_ALLOC, "objcg", "the per-node objcg pointers (filled at online)" },
	{ MSIM__CSS_ALLOC, "charge", "page_counter_init(&memcg->memory, &parent->memory)" },
	/* mem_cgroup_css_online() */
	{ MSIM__CSS_ONLINE, "shrinker_info", "alloc_shrinker_info()" },
	{ MSIM__CSS_ONLINE, "objcg", "obj_cgroup_alloc() per node, pn->objcg, pn->orig_objcg" },
	/* mem_cgroup_css_offline() */
	{ MSIM__CSS_OFFLINE, "zswap", "zswap_memcg_offline_cleanup()" },
	{ MSIM__CSS_OFFLINE, "list_lru", "memcg_offline_kmem(): memcg_reparent_list_lrus()" },
	{ MSIM__CSS_OFFLINE, "objcg", "memcg_offline_kmem(): memcg_reparent_objcgs(), the LRUs with it" },
	{ MSIM__CSS_OFFLINE, "rstat-local-reparent", "reparent_state_local()" },
	{ MSIM__CSS_OFFLINE, "shrinker_deferred", "reparent_shrinker_deferred()" },
	{ MSIM__CSS_OFFLINE, "charge", "drain_all_stock()" },
	/* mem_cgroup_css_released() (css_release_work_fn) */
	{ MSIM__CSS_RELEASED, "rstat", "css_release_work_fn(): the release flush" },
	/* mem_cgroup_css_free() -> mem_cgroup_free() */
	{ MSIM__CSS_FREE, "charge", "the memcg's page_counter and memory events" },
	{ MSIM__CSS_FREE, "damon", "the watches DAMON's goal reader put on the memcg" },
	{ MSIM__CSS_FREE, "objcg", "__mem_cgroup_free(): obj_cgroup_put(pn->orig_objcg)" },
	{ MSIM__CSS_FREE, "lru", "__mem_cgroup_free(): the per-node lruvecs" },
	{ MSIM__CSS_FREE, "workingset", "the per-node nonresident clocks" },
	{ MSIM__CSS_FREE, "shrinker_info", "free_shrinker_info()" },
	{ MSIM__CSS_FREE, "zswap", "the memcg's zswap state" },
	{ MSIM__CSS_FREE, "rstat", "css_rstat_exit(), vmstats and vmstats_percpu" },
};
#define NR_LIFECYCLE_STEPS (sizeof(memcg_lifecycle) / sizeof(memcg_lifecycle[0]))

static bool phase_is_teardown(enum msim__css_phase p)
{
	return p == MSIM__CSS_RELEASED || p == MSIM__CSS_FREE || p == MSIM__CSS_ALLOC_UNDO;
}

/*
 * The table's row that phase p's walk visits k-th (the undo walks css_alloc's rows
 * backwards), in *row; the step there, or NULL when that row is another phase's.
 */
static const struct lifecycle_step *walk_row(enum msim__css_phase p, size_t k, size_t *row)
{
	bool undo = p == MSIM__CSS_ALLOC_UNDO;
	const struct lifecycle_step *st;

	*row = undo ? NR_LIFECYCLE_STEPS - 1 - k : k;
	st = &memcg_lifecycle[*row];
	return st->phase == (undo ? MSIM__CSS_ALLOC : p) ? st : NULL;
}

/* The i-th step of phase p, or NULL. */
static const struct lifecycle_step *phase_step(enum msim__css_phase p, size_t i)
{
	const struct lifecycle_step *st;
	size_t seen = 0, row;

	for (size_t k = 0; k < NR_LIFECYCLE_STEPS; k++)
		if ((st = walk_row(p, k, &row)) && seen++ == i)
			return st;
	return NULL;
}

/*
 * Names compared once. Every row's key is the first row of the table with the same
 * hook set's name (built once per process); a registered set's key is the first
 * row naming it, or -1 (msim__memcg_lifecycle_key, at registration). Equal keys are
 * equal names, so the plans of every host's registrations compare small integers.
 */
static signed char row_key[NR_LIFECYCLE_STEPS];
_Static_assert(NR_LIFECYCLE_STEPS <= 127, "a row key (a row index, -1 for none) fits a signed char");
static pthread_once_t row_key_once = PTHREAD_ONCE_INIT;

static void row_keys_build(void)
{
	for (size_t k = 0; k < NR_LIFECYCLE_STEPS; k++) {
		size_t first = 0;

		while (strcmp(memcg_lifecycle[first].hooks, memcg_lifecycle[k].hooks) != 0)
			first++;
		row_key[k] = (signed char)first;
	}
}

signed char msim__memcg_lifecycle_key(const char *name)
{
	pthread_once(&row_key_once, row_keys_build);
	for (size_t k = 0; name && k < NR_LIFECYCLE_STEPS; k++)
		if (memcg_lifecycle[k].hooks[0] == name[0] &&
		    strcmp(memcg_lifecycle[k].hooks, name) == 0)
			return row_key[k];
	return -1;
}

/* The first registered slot named as row k names its set, or -1. */
static int slot_named(const struct msim__memcg_host *h, size_t k)
{
	for (unsigned int s = 0; s < h->nr_hooks; s++)
		if (h->hooks_key[s] == row_key[k])
			return (int)s;
	return -1;
}

/* The sets no step of phase p placed, by .order then slot (a stable insertion). */
static unsigned int unplaced_sets(const struct msim__memcg_host *h, const bool *placed,
				  unsigned char *out)
{
	unsigned int n = 0;

	for (unsigned int s = 0; s < h->nr_hooks; s++) {
		unsigned int i;

		if (placed[s])
			continue;
		for (i = n++; i > 0 && h->hooks[out[i - 1]].order > h->hooks[s].order; i--)
			out[i] = out[i - 1];
		out[i] = (unsigned char)s;
	}
	return n;
}

/* Phase p's order: its steps' sets, with the sets no step names after (before) them. */
static void plan_phase(struct msim__memcg_host *h, enum msim__css_phase p)
{
	unsigned char named[MSIM_MEMCG_MAX_SLOTS], rest[MSIM_MEMCG_MAX_SLOTS];
	bool placed[MSIM_MEMCG_MAX_SLOTS] = { false };
	unsigned int nn = 0, nr;

	/* phase_step's order in one pass: every host's creation plans each registration */
	for (size_t k = 0; k < NR_LIFECYCLE_STEPS; k++) {
		size_t row;
		int s;

		if (!walk_row(p, k, &row) || (s = slot_named(h, row)) < 0 || placed[s])
			continue;
		placed[s] = true;
		named[nn++] = (unsigned char)s;
	}
	nr = unplaced_sets(h, placed, rest);
	if (phase_is_teardown(p)) {
		for (unsigned int i = 0; i < nr; i++)
			h->plan[p][i] = rest[nr - 1 - i];
		memcpy(&h->plan[p][nr], named, nn);
	} else {
		memcpy(h->plan[p], named, nn);
		memcpy(&h->plan[p][nn], rest, nr);
	}
}

/*
 * The plans made so far in this process, by what they depend on: the registered
 * sets' keys and orders. Every host of an explorer registers the same sets in the
 * same order, so each of its registrations finds its plan here instead of making
 * it again. Replaced round robin when full; under a mutex (hosts may be made on
 * several threads).
 */
#define PLAN_MEMO_ENTRIES 64

struct plan_memo {
	unsigned int nr;                 /* 0: an empty entry */
	signed char key[MSIM_MEMCG_MAX_SLOTS];
	int order[MSIM_MEMCG_MAX_SLOTS];
	unsigned char plan[MSIM__NR_CSS_PHASES][MSIM_MEMCG_MAX_SLOTS];
};

static struct {
	pthread_mutex_t lock;
	unsigned int next;
	struct plan_memo entry[PLAN_MEMO_ENTRIES];
} plan_memo = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool memo_matches(const struct plan_memo *e, const struct msim__memcg_host *h)
{
	if (e->nr != h->nr_hooks || memcmp(e->key, h->hooks_key, h->nr_hooks))
		return false;
	for (unsigned int s = 0; s < h->nr_hooks; s++)
		if (e->order[s] != h->hooks[s].order)
			return false;
	return true;
}

static void memo_store(struct plan_memo *e, const struct msim__memcg_host *h)
{
	e->nr = h->nr_hooks;
	memcpy(e->key, h->hooks_key, h->nr_hooks);
	for (unsigned int s = 0; s < h->nr_hooks; s++)
		e->order[s] = h->hooks[s].order;
	memcpy(e->plan, h->plan, sizeof(e->plan));
}

void msim__memcg_lifecycle_plan(struct msim__memcg_host *h)
{
	_Static_assert(sizeof(plan_memo.entry[0].plan) == sizeof(h->plan), "plan shapes");

	pthread_mutex_lock(&plan_memo.lock);
	for (unsigned int i = 0; h->nr_hooks && i < PLAN_MEMO_ENTRIES; i++)
		if (memo_matches(&plan_memo.entry[i], h)) {
			memcpy(h->plan, plan_memo.entry[i].plan, sizeof(h->plan));
			pthread_mutex_unlock(&plan_memo.lock);
			return;
		}
	for (int p = 0; p < MSIM__NR_CSS_PHASES; p++)
		plan_phase(h, (enum msim__css_phase)p);
	memo_store(&plan_memo.entry[plan_memo.next], h);
	plan_memo.next = (plan_memo.next + 1) % PLAN_MEMO_ENTRIES;
	pthread_mutex_unlock(&plan_memo.lock);
}

/* Does a set have a callback for phase p? */
static bool has_callback(const struct msim_memcg_hooks *hk, enum msim__css_phase p)
{
	if (p == MSIM__CSS_ALLOC)
		return hk->css_alloc;
	if (p == MSIM__CSS_ONLINE)
		return hk->css_online;
	return msim__hooks_teardown(hk, p);
}

unsigned int msim__memcg_lifecycle_unnamed(struct msim *m, char *names, size_t len)
{
	struct msim__memcg_host *h = msim__memcg_host(m);
	unsigned int missing = 0;
	size_t used = 0;

	if (names && len)
		names[0] = '\0';
	for (unsigned int s = 0; h && s < h->nr_hooks; s++) {
		for (int p = 0; p < MSIM__NR_CSS_PHASES; p++) {
			const struct lifecycle_step *st;
			bool named = false;

			if (!has_callback(&h->hooks[s], (enum msim__css_phase)p))
				continue;
			for (size_t i = 0; (st = phase_step((enum msim__css_phase)p, i)); i++)
				named |= h->hooks[s].name && strcmp(st->hooks, h->hooks[s].name) == 0;
			if (named)
				continue;
			missing++;
			if (names && used < len)
				used += (size_t)snprintf(names + used, len - used, "%s%s/%d",
							 used ? " " : "", h->hooks[s].name, p);
		}
	}
	return missing;
}

unsigned int msim__memcg_lifecycle_order(struct msim *m, int phase, char *names, size_t len)
{
	struct msim__memcg_host *h = msim__memcg_host(m);
	unsigned int n = 0;
	size_t used = 0;

	if (names && len)
		names[0] = '\0';
	if (!h || phase < 0 || phase >= MSIM__NR_CSS_PHASES)
		return 0;
	msim_quiet_spin_lock(&h->lock);
	for (unsigned int i = 0; i < h->nr_hooks; i++) {
		const struct msim_memcg_hooks *hk = &h->hooks[h->plan[phase][i]];

		if (!has_callback(hk, (enum msim__css_phase)phase))
			continue;
		n++;
		if (names && used < len)
			used += (size_t)snprintf(names + used, len - used, "%s%s", used ? " " : "",
						 hk->name ? hk->name : "?");
	}
	msim_quiet_spin_unlock(&h->lock);
	return n;
}

/* ---- release and free (kernel: css_release and the work behind it) ---- */

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

	/* DPOR (rcu.h): the list, state and free note themselves (tree.c), the hooks
	 * by their sets' teardown_noted, the parent put and h->lock below */
	msim_rcu_callback_noted();
	msim__memcg_run_free(memcg);
	msim_access_note(&h->lock, sizeof(h->lock), MSIM_ACCESS_RMW);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_all_list_del(memcg);
	msim_quiet_spin_unlock(&h->lock);
	msim__memcg_set_state(memcg, MSIM_MEMCG_FREED);
	if (msim_quiet_load(&memcg->counted, MSIM_RELAXED))
		msim_quiet_fetch_add(&h->freed_total, 1, MSIM_RELAXED);
	msim__memcg_free_struct(memcg, true);
	/* The parent put may release it: its callbacks count as pending first. */
	if (parent)
		msim_css_put(parent);
	msim_quiet_fetch_sub(&h->rcu_pending, 1, MSIM_ACQ_REL);
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

	msim_rcu_callback_noted(); /* as memcg_free_work */
	msim_access_note(&h->lock, sizeof(h->lock), MSIM_ACCESS_RMW);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_unlink(memcg);
	msim_quiet_spin_unlock(&h->lock);
	msim__memcg_run_released(memcg);
	msim_call_rcu(&memcg->free_rcu, memcg_free_work);
}

/* kernel: css_release(): CSS_RELEASED, then the release work is queued. */
static void css_release(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h = memcg->h;

	msim__memcg_set_state(memcg, MSIM_MEMCG_RELEASED);
	msim_quiet_fetch_add(&h->rcu_pending, 1, MSIM_ACQ_REL);
	msim_call_rcu(&memcg->release_rcu, memcg_release_work);
}

/* ---- mkdir ---- */

/*
 * A failed css_online: undo what ran (offline for the sets that onlined, then
 * css_alloc_undo), unlink, give the id back, and drop the base reference; an
 * iterator may hold the memcg meanwhile, so the struct goes through the normal
 * release/free path (with no hooks left to run) after a grace period.
 */
static void online_failed(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h = memcg->h;

	msim__memcg_run_offline(memcg);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_unlink(memcg);
	if (memcg->parent)
		memcg->parent->nr_live_children--;
	msim_quiet_spin_unlock(&h->lock);
	msim__memcg_run_alloc_undo(memcg);
	msim__memcg_id_unreserve(memcg);
	/* No yield: nothing was charged to a memcg that never went online. */
	msim_quiet_store(&memcg->kmemcg_id, -1, MSIM_RELAXED);
	msim__css_kill(memcg);      /* the base reference's put, which can release */
}

/* Reserve a place under parent: it must be online (tree lock orders it with rmdir). */
static int reserve_under_parent(struct msim__memcg_host *h, struct msim_memcg *parent)
{
	int ret = 0;

	if (!parent)
		return 0;
	msim_quiet_spin_lock(&h->lock);
	if (msim__memcg_state_load(parent) != MSIM_MEMCG_ONLINE)
		ret = -EINVAL;
	else
		parent->nr_live_children++;
	msim_quiet_spin_unlock(&h->lock);
	return ret;
}

static void unreserve_under_parent(struct msim__memcg_host *h, struct msim_memcg *parent)
{
	if (!parent)
		return;
	msim_quiet_spin_lock(&h->lock);
	parent->nr_live_children--;
	msim_quiet_spin_unlock(&h->lock);
}

/*
 * kernel: cgroup_mkdir() -> css_create(): css_alloc (mem_cgroup_css_alloc:
 * mem_cgroup_alloc reserves the private id with a NULL entry), link into the
 * parent's children, online_css (mem_cgroup_css_online: kmemcg_id first, the
 * subsystems' online work, id.ref = 1 plus css_get, xa_store publishing the id
 * last), then CSS_ONLINE.
 */
static int memcg_create(struct msim__memcg_host *h, struct msim_memcg *parent, const char *name,
			struct msim_memcg **out)
{
	struct msim_memcg *memcg;
	int ret;

	memcg = msim__memcg_alloc(h, parent, name, css_release);
	if (!memcg)
		return -ENOMEM;
	ret = reserve_under_parent(h, parent);
	if (ret)
		goto free;
	ret = msim__memcg_id_reserve(memcg);
	if (ret)
		goto unreserve;
	ret = msim__memcg_run_alloc(memcg);
	if (ret)
		goto unreserve_id;
	msim_yield_access("memcg.mkdir.link", NULL, MSIM_ACCESS_NONE); /* css_get */
	if (parent)
		msim_css_get(parent);    /* dropped when memcg is freed */
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_link(h, memcg);
	msim_quiet_spin_unlock(&h->lock);
	/*
	 * kernel: memcg_online_kmem() comes first in mem_cgroup_css_online(). No
	 * yield: nothing is charged to the memcg before it is online, so no
	 * list_lru looks its kmemcg_id up before this store.
	 */
	msim_quiet_store(&memcg->kmemcg_id, parent ? (int)memcg->id : -1, MSIM_RELAXED);
	ret = msim__memcg_run_online(memcg);
	if (ret) {
		online_failed(memcg);
		return ret;
	}
	/* refcount_set(&id.ref, 1): no yield, nobody finds the id before the publish. */
	msim_quiet_store(&memcg->id_ref, 1, MSIM_RELAXED);
	msim_css_get(memcg);         /* the private id pins the css */
	msim__memcg_id_publish(memcg);
	msim_quiet_store(&memcg->counted, true, MSIM_RELAXED);
	msim__memcg_set_state(memcg, MSIM_MEMCG_ONLINE);
	msim_quiet_fetch_add(&h->created_total, 1, MSIM_RELAXED);
	*out = memcg;
	return 0;

unreserve_id:
	msim__memcg_id_unreserve(memcg);
unreserve:
	unreserve_under_parent(h, parent);
free:
	msim__memcg_free_struct(memcg, false);
	return ret;
}

int msim_memcg_create(struct msim_memcg *parent, const char *name, struct msim_memcg **out)
{
	if (!parent || !out)
		return -EINVAL;
	MSIM__MEMCG_ASSERT(parent);
	msim_drive_host(parent->h->m);
	return memcg_create(parent->h, parent, name, out);
}

struct msim_memcg *msim_root_mem_cgroup(struct msim *m)
{
	struct msim__memcg_host *h = msim__memcg_host(m);
	struct msim_memcg *root;

	if (!h)
		return NULL;
	msim_drive_host(m);
	root = msim_quiet_load(&h->root, MSIM_ACQUIRE);  /* installed once, lazily */
	if (root)
		return root;
	msim_lock(&h->root_lock);
	root = h->root;
	if (!root && memcg_create(h, NULL, "/", &root) == 0) {
		msim_quiet_spin_lock(&h->lock);
		msim_quiet_store(&h->root, root, MSIM_RELEASE);
		msim_quiet_spin_unlock(&h->lock);
	}
	msim_unlock(&h->root_lock);
	return root;
}

/* ---- rmdir ---- */

/*
 * kernel: cgroup_rmdir() -> cgroup_destroy_locked(): -EBUSY with online children,
 * kill_css() sets CSS_DYING and kills the reference; the confirmation comes after
 * an RCU grace period, then css_killed_work_fn() -> offline_css() ->
 * mem_cgroup_css_offline() (subsystems in ascending order, then
 * mem_cgroup_private_id_put(memcg, 1)), CSS_ONLINE cleared, and the online
 * reference put. Simplification: the kernel finishes offline asynchronously on a
 * workqueue; here the rmdir caller waits for the grace period and runs it.
 */
int msim_memcg_rmdir(struct msim_memcg *memcg)
{
	struct msim__memcg_host *h;
	int ret = 0;

	if (!memcg)
		return -EINVAL;
	MSIM__MEMCG_ASSERT(memcg);
	h = memcg->h;
	msim_drive_host(h->m);
	if (!memcg->parent)
		return -EINVAL;
	msim_quiet_spin_lock(&h->lock);
	if (msim__memcg_state_load(memcg) != MSIM_MEMCG_ONLINE)
		ret = -EINVAL;
	else if (memcg->nr_live_children)
		ret = -EBUSY;
	else
		msim__memcg_set_state(memcg, MSIM_MEMCG_DYING);
	msim_quiet_spin_unlock(&h->lock);
	if (ret)
		return ret;
	/* kernel: cgroup_destroy_locked()'s kernfs_remove(): the file nodes go now. */
	msim__cgroup_kmem_remove_files(h, &memcg->cgroup_kmem);
	msim_yield_access("memcg.rmdir.dying", NULL, MSIM_ACCESS_NONE); /* then synchronize_rcu */
	msim_synchronize_rcu();
	msim__memcg_run_offline(memcg);
	msim_mem_cgroup_private_id_put(memcg);
	msim_quiet_spin_lock(&h->lock);
	msim__memcg_set_state(memcg, MSIM_MEMCG_OFFLINE);
	memcg->parent->nr_live_children--;
	msim_quiet_spin_unlock(&h->lock);
	msim_yield_access("memcg.rmdir.put_online_ref", NULL, MSIM_ACCESS_NONE); /* css_put */
	msim__css_kill(memcg);      /* the percpu_ref's kill with the put (css.c) */
	return 0;
}

/* Wait until every release and free in flight has run. */
void msim_memcg_drain(struct msim *m)
{
	struct msim__memcg_host *h = msim__memcg_host(m);

	/* A free may put its parent, queueing one more release: loop until quiet. */
	while (h && msim_quiet_load(&h->rcu_pending, MSIM_ACQUIRE) > 0)
		msim_rcu_barrier();
}
