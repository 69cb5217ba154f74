/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * rstat conservation under concurrency (concurrent mode, real threads; run under
 * TSan by the tsan preset).
 *
 * 4 CPUs, one task each. Every task updates random memcgs of a tree (file pages
 * through the lruvec of node 0, slab bytes at memcg level, pgfault events),
 * flushes now and then (gated, ratelimited, forced root, subtree), and the task on
 * CPU 0 also churns the tree: rmdir of a random memcg without live children and
 * mkdir of a new one under a random live memcg. Each task keeps its own ledger of
 * the deltas it applied, per memcg (by creation serial).
 *
 * After quiescence (every task done, every released memcg freed, a forced root
 * flush): for every live memcg, each hierarchical value equals the sum of the
 * deltas applied anywhere in its subtree (removed descendants included: their
 * release/exit flushes pushed the remainder up), each local value equals the
 * deltas applied to it and none is negative; root's lruvec and the node counter
 * equal the total. Tasks only subtract what they added to the same memcg, so
 * every true local value stays >= 0.
 *
 * The same run under other variants and hierarchies (fewer iterations each):
 *  - rstat-propagate=continue (thread 004): the heuristic changes, values do not;
 *  - cgroup v1, dying-redirect=v1 (mainline) and cgroup v2, dying-redirect=all
 *    (thread 000 patch 2): updates to a removed memcg go to its nearest live
 *    ancestor and its local stats move to the parent at offline. Hierarchical
 *    values are checked exactly as above; a live memcg's local value is then no
 *    longer its own ledger but must stay >= 0, and the live memcgs' local values
 *    add up to everything applied (nothing lost, nothing counted twice).
 * all-rcu-on-dying (patch 3) is left out: its window (race dying-redirect-reparent)
 * legitimately loses local updates.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#define NCPU 4
#define NSLOT 16
#define MAXSER 512
#define ITERS 12000       /* mainline; the other variants run ITERS / 3 */
#define NK 3   /* ledger columns: file pages, slab bytes, pgfault */

struct ledger {
	long v[MAXSER][NK];
};

struct world {
	struct msim *m;
	int iters;
	struct msim_memcg *slots[NSLOT];   /* atomics; NULL = empty */
	long parent_of[MAXSER];            /* serial -> parent serial (-1 root); driver/CPU 0 */
	struct ledger led[NCPU];
	unsigned long created, removed;
	unsigned long dying_updates;       /* updates that found their memcg removed */
};

struct task_arg {
	struct world *w;
	unsigned int cpu;
	uint64_t rng;
};

static uint64_t rnd(struct task_arg *a)
{
	a->rng ^= a->rng << 13;
	a->rng ^= a->rng >> 7;
	a->rng ^= a->rng << 17;
	return a->rng;
}

static struct msim_memcg *grab(struct world *w, unsigned int slot)
{
	struct msim_memcg *memcg;

	msim_rcu_read_lock();
	memcg = __atomic_load_n(&w->slots[slot], __ATOMIC_ACQUIRE);
	if (memcg && !msim_css_tryget(memcg))
		memcg = NULL;
	msim_rcu_read_unlock();
	return memcg;
}

static void update(struct task_arg *a, struct msim_memcg *memcg)
{
	struct ledger *l = &a->w->led[a->cpu];
	uint64_t ser = msim_memcg_serial(memcg);
	int k = (int)(rnd(a) % NK);
	long d = ((long)(rnd(a) % 7) + 1) * (k == 1 ? 700 : 1);   /* slab in bytes */

	if (ser >= MAXSER)
		return;
	if (msim_css_is_dying(memcg))
		__atomic_fetch_add(&a->w->dying_updates, 1, __ATOMIC_RELAXED);
	/* subtract only what this task added to this memcg */
	if ((rnd(a) & 3) == 0 && k != 2 && l->v[ser][k] >= d)
		d = -d;
	switch (k) {
	case 0:
		msim_mod_lruvec_state(msim_mem_cgroup_lruvec(a->w->m, memcg, 0),
				      MSIM_NR_FILE_PAGES, d);
		break;
	case 1:
		msim_mod_memcg_state(memcg, MSIM_NR_SLAB_RECLAIMABLE_B, d);
		break;
	default:
		msim_count_memcg_events(memcg, MSIM_PGFAULT, d);
	}
	l->v[ser][k] += d;
}

static void flush_some(struct task_arg *a, struct msim_memcg *memcg)
{
	switch (rnd(a) % 4) {
	case 0:
		msim_mem_cgroup_flush_stats(memcg);
		break;
	case 1:
		msim_mem_cgroup_flush_stats_ratelimited(memcg);
		break;
	case 2:
		msim_mem_cgroup_flush_stats_forced(NULL);
		break;
	default:
		msim_css_rstat_flush(memcg);
	}
}

/* CPU 0 only: remove one memcg (empty slot first), create one in an empty slot. */
static void churn(struct task_arg *a)
{
	struct world *w = a->w;
	unsigned int s = 1 + (unsigned int)(rnd(a) % (NSLOT - 1)), p;
	struct msim_memcg *memcg = __atomic_load_n(&w->slots[s], __ATOMIC_ACQUIRE), *parent, *c;

	if (memcg) {
		__atomic_store_n(&w->slots[s], NULL, __ATOMIC_RELEASE);
		if (msim_memcg_rmdir(memcg) == 0)
			w->removed++;
		else
			__atomic_store_n(&w->slots[s], memcg, __ATOMIC_RELEASE); /* busy */
		return;
	}
	p = (unsigned int)(rnd(a) % NSLOT);
	parent = __atomic_load_n(&w->slots[p], __ATOMIC_ACQUIRE);
	if (!parent || msim_memcg_create(parent, NULL, &c))
		return;
	if (msim_memcg_serial(c) < MAXSER)
		w->parent_of[msim_memcg_serial(c)] = (long)msim_memcg_serial(parent);
	w->created++;
	__atomic_store_n(&w->slots[s], c, __ATOMIC_RELEASE);
}

/*
 * Half the updates go to a memcg grabbed for this one update, half to one the
 * task keeps a reference on for 64 iterations (like a socket's sk_memcg), so
 * updates keep reaching memcgs after their rmdir.
 */
static void task_fn(void *arg)
{
	struct task_arg *a = arg;
	struct msim_memcg *stash = NULL;

	for (int i = 0; i < a->w->iters; i++) {
		unsigned int s = (unsigned int)(rnd(a) % NSLOT);
		struct msim_memcg *memcg;

		if (i % 64 == 0) {
			if (stash)
				msim_css_put(stash);
			stash = grab(a->w, s);
		}
		memcg = (rnd(a) & 1) && stash ? stash : grab(a->w, s);
		if (memcg) {
			update(a, memcg);
			if (i % 97 == 0)
				flush_some(a, memcg);
			if (memcg != stash)
				msim_css_put(memcg);
		}
		if (a->cpu == 0 && i % 25 == 0)
			churn(a);
	}
	if (stash)
		msim_css_put(stash);
}

/* Sum of ledger column k over every serial whose ancestor chain reaches anc. */
static long subtree_truth(struct world *w, long anc, int k, bool local)
{
	long sum = 0;

	for (long s = 0; s < MAXSER; s++) {
		long x = s;
		bool in = local ? s == anc : false;

		while (!local && x >= 0) {
			if (x == anc) {
				in = true;
				break;
			}
			x = w->parent_of[x];
		}
		if (!in)
			continue;
		for (int c = 0; c < NCPU; c++)
			sum += w->led[c].v[s][k];
	}
	return sum;
}

static uint64_t rstat_redirects(struct msim *m)
{
	struct msim_rstat_counters c;

	msim_rstat_counters(m, &c);
	return c.redirects;
}

static const enum msim_stat_item items[2] = { MSIM_NR_FILE_PAGES, MSIM_NR_SLAB_RECLAIMABLE_B };

/*
 * exact_local: no redirect, no local reparenting, so a live memcg's local value
 * is its own ledger; otherwise only >= 0 (the sum is checked by the caller).
 */
static void check_memcg(struct world *w, struct msim_memcg *memcg, bool exact_local,
			long local_sum[2])
{
	long ser = (long)msim_memcg_serial(memcg);

	for (int k = 0; k < 2; k++) {
		long h = msim_memcg_stat_raw(memcg, MSIM_STAT_STATE, items[k]);
		long l = msim_memcg_stat_raw(memcg, MSIM_STAT_LOCAL, items[k]);

		assert_int_equal(h, subtree_truth(w, ser, k, false));
		if (exact_local)
			assert_int_equal(l, subtree_truth(w, ser, k, true));
		assert_true(l >= 0);
		local_sum[k] += l;
	}
	assert_int_equal(msim_memcg_event_raw(memcg, MSIM_STAT_STATE, MSIM_PGFAULT),
			 subtree_truth(w, ser, 2, false));
	if (exact_local)
		assert_int_equal(msim_memcg_event_raw(memcg, MSIM_STAT_LOCAL, MSIM_PGFAULT),
				 subtree_truth(w, ser, 2, true));
	assert_int_equal(msim_lruvec_stat_raw(msim_mem_cgroup_lruvec(w->m, memcg, 0),
					      MSIM_STAT_STATE, MSIM_NR_FILE_PAGES),
			 subtree_truth(w, ser, 0, false));
	if (exact_local)
		assert_int_equal(msim_lruvec_stat_raw(msim_mem_cgroup_lruvec(w->m, memcg, 0),
						      MSIM_STAT_LOCAL, MSIM_NR_FILE_PAGES),
				 subtree_truth(w, ser, 0, true));
}

/*
 * A deterministic tail after the concurrent phase: a fresh leaf that the driver
 * (CPU 0's ledger) updates, removes, and updates again through the handle it
 * kept (like a socket's sk_memcg). Whatever the churn happened to do, every run
 * then has updates to a removed memcg: redirected under the redirect variants,
 * left on the dying memcg on v2 mainline; both must still conserve.
 */
static void dying_tail(struct world *w, struct msim_memcg *root)
{
	struct task_arg drv = { .w = w, .cpu = 0, .rng = 0x2545f4914f6cdd1dULL };
	struct msim_memcg *leaf;

	assert_int_equal(msim_memcg_create(root, "tail", &leaf), 0);
	assert_true(msim_memcg_serial(leaf) < MAXSER);
	w->parent_of[msim_memcg_serial(leaf)] = (long)msim_memcg_serial(root);
	msim_css_get(leaf);
	for (int i = 0; i < 8; i++)
		update(&drv, leaf);
	assert_int_equal(msim_memcg_rmdir(leaf), 0);
	for (int i = 0; i < 8; i++)
		update(&drv, leaf);
	msim_css_put(leaf);
}

static void conservation_run(enum msim_cgroup_version version, const char *variant, int iters,
			     bool exact_local)
{
	struct world *w = calloc(1, sizeof(*w));
	struct task_arg args[NCPU];
	struct msim_config cfg;
	struct msim_memcg *root, *pos = NULL;
	char err[256];
	unsigned int checked = 0;
	long local_sum[2] = { 0, 0 };

	assert_non_null(w);
	w->iters = iters;
	msim_config_init(&cfg);
	cfg.nr_cpus = NCPU;
	cfg.mode = MSIM_CONCURRENT;
	cfg.cgroup_version = version;
	if (variant)
		assert_int_equal(msim_variant_set(&cfg.variants, variant, err, sizeof(err)), 0);
	assert_int_equal(msim_create(&cfg, &w->m, err, sizeof(err)), 0);
	msim_set_current_host(w->m);
	assert_int_equal(msim_rstat_init(w->m, NULL), 0);
	for (long s = 0; s < MAXSER; s++)
		w->parent_of[s] = -1;
	root = msim_root_mem_cgroup(w->m);
	w->slots[0] = root;
	for (unsigned int s = 1; s < 9; s++) {
		struct msim_memcg *parent = w->slots[s <= 4 ? 0 : s - 4], *c;

		assert_int_equal(msim_memcg_create(parent, NULL, &c), 0);
		w->parent_of[msim_memcg_serial(c)] = (long)msim_memcg_serial(parent);
		w->slots[s] = c;
	}
	for (unsigned int c = 0; c < NCPU; c++) {
		args[c] = (struct task_arg){ .w = w, .cpu = c, .rng = 0x9e3779b97f4a7c15ULL * (c + 1) };
		assert_non_null(msim_task_create(w->m, "stress", c, task_fn, &args[c]));
	}
	assert_int_equal(msim_run(w->m), 0);
	dying_tail(w, root);
	/* quiescence */
	msim_memcg_drain(w->m);
	msim_mem_cgroup_flush_stats_forced(root);
	while ((pos = msim_mem_cgroup_iter(root, pos))) {
		if (msim_css_is_dying(pos))
			continue;
		check_memcg(w, pos, exact_local, local_sum);
		checked++;
	}
	assert_int_equal(msim_node_stat_raw(w->m, 0, MSIM_NR_FILE_PAGES),
			 subtree_truth(w, (long)msim_memcg_serial(root), 0, false));
	/*
	 * With local reparenting, every memcg left is live and the locals account
	 * for everything once (without it, a removed memcg's local view is gone).
	 */
	for (int k = 0; k < 2 && !exact_local; k++)
		assert_int_equal(local_sum[k],
				 subtree_truth(w, (long)msim_memcg_serial(root), k, false));
	assert_true(checked >= 2);
	assert_true(w->created > 0 && w->removed > 0);
	assert_true(w->dying_updates >= 8);          /* the tail's, at least */
	if (!exact_local)
		assert_true(rstat_redirects(w->m) > 0); /* the redirect really ran */
	print_message("%s v%d: checked %u live memcgs; %lu created, %lu removed by churn; "
		      "%lu updates to removed memcgs, %llu redirected\n",
		      variant ? variant : "mainline", (int)version, checked, w->created,
		      w->removed, w->dying_updates,
		      (unsigned long long)rstat_redirects(w->m));
	msim_destroy(w->m);
	free(w);
}

static void conservation(void **st)
{
	conservation_run(MSIM_CGROUP_V2, NULL, ITERS, true);
}

static void conservation_continue(void **st)
{
	conservation_run(MSIM_CGROUP_V2, "rstat-propagate=continue", ITERS / 3, true);
}

static void conservation_v1_redirect(void **st)
{
	conservation_run(MSIM_CGROUP_V1, "dying-redirect=v1", ITERS / 3, false);
}

static void conservation_all_redirect(void **st)
{
	conservation_run(MSIM_CGROUP_V2, "dying-redirect=all", ITERS / 3, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conservation),
		cmocka_unit_test(conservation_continue),
		cmocka_unit_test(conservation_v1_redirect),
		cmocka_unit_test(conservation_all_redirect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
