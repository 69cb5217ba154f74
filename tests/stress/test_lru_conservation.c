/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * test_lru_conservation.c - LRU conservation under mkdir/rmdir churn:
 * folios charged, moved between LRUs, isolated, reclaimed and freed on every CPU
 * while CPU 0 creates and removes memcgs, so folios are charged before an
 * offline and moved, reclaimed or uncharged after it.
 *
 *   CPU 0..3: a seeded mix of operations on folios of their own (charged to a
 *             random memcg on a random node and zone: add, activate, deactivate,
 *             rotate, mark accessed, isolate + putback, free; some mlocked) and
 *             on page cache folios they hand to the LRU (only reclaim frees
 *             those); reclaim of a random memcg's subtree; MGLRU aging.
 *   CPU 0:    also mkdir / rmdir of random memcgs.
 *
 * At quiescence (tasks done, memcgs drained, a forced root flush), for every
 * memcg still present and every node:
 *  - classic: the pages on each evictable list in each zone (walked) equal
 *    lru_zone_size[zone][lru]; MGLRU: the pages on each generation, type and
 *    zone equal lrugen->nr_pages, and lru_zone_size of the evictable lists is 0;
 *    the unevictable size equals the mlocked folios the memcg owns. A memcg
 *    reparented under objcg lists nothing (its sizes are left as the splice
 *    found them, as in the kernel, and not compared).
 *  - its hierarchical lruvec statistics equal the pages listed in its subtree
 *    (classic per list; MGLRU per type, active + inactive, because reparenting
 *    moves no statistics and a generation active in the child may be inactive
 *    in the parent: docs/lru.md, Findings);
 *  - its local statistics equal its own lists where the variant keeps them
 *    (lru-reparent=off, or objcg with dying-redirect=all); on mainline objcg
 *    on cgroup v2 they drift (race uncharge-after-offline): the drift is
 *    printed and must be there;
 *  - per node, rstat's node counters equal the root's hierarchical statistics
 *    (every item) and the pages listed on that node in every memcg. Under
 *    node-stat=percpu (vmstat keeps them, with per-CPU diffs: docs/vmstat.md,
 *    section 6) the node atomic and the normal reader (msim_node_page_state,
 *    clamped at 0 against the truth clamped at 0) may first differ from
 *    the root's statistics by at most the sum of the CPUs' node stat_threshold
 *    (threshold x CPUs) per item; after msim_vmstat_refresh() (the fold, kernel
 *    vmstat_refresh) it equals them, and the lists, exactly.
 * Every live folio is on an LRU (listed or unevictable), no lru_zone_size
 * underflowed, no lruvec was freed with folios on it. Then every folio is freed:
 * nothing live, every node counter at 0, MGLRU's active and inactive items each
 * (reparenting moves a generation's statistics where its activeness differs
 * between child and parent), every removed memcg freed.
 *
 * Deterministic mode runs a seeded random schedule (the seed is printed, and the
 * same seed gives the same trace: det_seed_replays); concurrent mode runs real
 * threads, for TSan (the tsan preset).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#define NCPU 4
#define NNODES 2
#define NSLOT 12
#define NPIN 16                   /* folios a task keeps a reference on */
#define MAXSER 1024
#define NLRU MSIM_NR_LRU_LISTS
#define CACHE ((void *)1)         /* private_data of a page cache folio */

struct world {
	struct msim *m;
	int iters;
	bool mglru, objcg, exact_local;
	bool percpu;                         /* node-stat=percpu: vmstat's node counters */
	long worst_lag;                      /* percpu: largest |node read - truth| before the fold */
	struct msim_memcg *slots[NSLOT];     /* atomics; NULL = empty */
	unsigned long created, removed, charged, freed_after_offline;
};

struct task_arg {
	struct world *w;
	unsigned int cpu;
	uint64_t rng;
	struct msim_folio *pin[NPIN];
	unsigned long ops[8];
};

/* The pages counted per (memcg serial, node, lru) at the end. */
struct tally {
	long own[MAXSER][NNODES][NLRU];      /* listed (unevictable: mlocked) on the memcg */
	long sub[MAXSER][NNODES][NLRU];      /* the same over its subtree */
	long folios;                          /* folios listed or unevictable */
};

static uint64_t rnd(struct task_arg *a)
{
	a->rng ^= a->rng << 13;
	a->rng ^= a->rng >> 7;
	a->rng ^= a->rng << 17;
	return a->rng;
}

/* The memcg of a random slot (of three tries) with a css reference, or NULL. */
static struct msim_memcg *grab(struct task_arg *a)
{
	struct msim_memcg *memcg = NULL;

	msim_rcu_read_lock();
	for (int try = 0; try < 3 && !memcg; try++) {
		memcg = __atomic_load_n(&a->w->slots[rnd(a) % NSLOT], __ATOMIC_ACQUIRE);
		if (memcg && !msim_css_tryget(memcg))
			memcg = NULL;
	}
	msim_rcu_read_unlock();
	return memcg;
}

/* Reclaim frees page cache folios only: a task's own folios are kept. */
static enum msim_reclaim_verdict evict(struct msim_folio *folio, struct msim_memcg *target,
				       void *arg)
{
	(void)target;
	(void)arg;
	if (msim_folio_private(folio) != CACHE)
		return MSIM_RECLAIM_KEEP;
	msim_folio_put(folio);          /* the page cache's reference */
	return MSIM_RECLAIM_FREE;
}

/* A folio on node 0 (DMA32 or NORMAL) or 1 (NORMAL or MOVABLE); sometimes a THP. */
static struct msim_folio *new_folio(struct task_arg *a, struct msim_memcg *memcg)
{
	unsigned int nid = (unsigned int)(rnd(a) % NNODES), r = (unsigned int)(rnd(a) % 16);
	enum msim_zone_type zone = (nid ? MSIM_ZONE_NORMAL : MSIM_ZONE_DMA32) + (r & 1);
	unsigned int order = r == 15 ? MSIM_HPAGE_PMD_ORDER : r >= 12 ? 2 : 0;
	struct msim_folio *f = msim_folio_alloc(a->w->m, r & 2 ? MSIM_FOLIO_FILE : MSIM_FOLIO_ANON,
						order, nid, zone);

	assert_non_null(f);
	assert_int_equal(msim_mem_cgroup_charge(f, memcg, MSIM_GFP_KERNEL), 0);
	if (r == 4)
		msim_folio_set_active(f);
	return f;
}

/* Charge a folio to a random memcg: kept in a free pin slot, else handed to the cache. */
static void op_add(struct task_arg *a)
{
	struct msim_memcg *memcg = grab(a);
	unsigned int i = (unsigned int)(rnd(a) % NPIN);
	struct msim_folio *f;

	if (!memcg)
		return;
	f = new_folio(a, memcg);
	msim_css_put(memcg);
	__atomic_fetch_add(&a->w->charged, 1, __ATOMIC_RELAXED);
	if (a->pin[i]) {
		msim_folio_set_private(f, CACHE);   /* published by the LRU lock */
		msim_folio_add_lru(f);
		return;
	}
	if (rnd(a) % 8 == 0)
		msim_folio_set_mlocked(f);
	msim_folio_add_lru(f);
	a->pin[i] = f;
}

/* Free one of the task's folios: an uncharge, maybe after its memcg's offline. */
static void op_free(struct task_arg *a, unsigned int i)
{
	struct msim_obj_cgroup *objcg = msim_folio_objcg(a->pin[i]);
	struct msim_memcg *memcg;
	bool dead;

	/* objcg: its memcg went offline (the objcg was killed); off: the memcg is dying */
	msim_rcu_read_lock();
	memcg = msim_folio_memcg(a->pin[i]);
	dead = objcg ? msim_obj_cgroup_killed(objcg) : memcg && msim_css_is_dying(memcg);
	msim_rcu_read_unlock();
	if (dead)
		__atomic_fetch_add(&a->w->freed_after_offline, 1, __ATOMIC_RELAXED);
	msim_folio_put(a->pin[i]);
	a->pin[i] = NULL;
}

/* One LRU move, an isolation round trip or a free on one of the task's folios. */
static void op_folio(struct task_arg *a)
{
	unsigned int i = (unsigned int)(rnd(a) % NPIN);
	struct msim_folio *f = a->pin[i];

	if (!f)
		return;
	switch (rnd(a) % 6) {
	case 0:
		msim_folio_activate(f);
		break;
	case 1:
		msim_folio_deactivate(f);
		break;
	case 2:
		msim_folio_rotate_reclaimable(f);
		break;
	case 3:
		msim_folio_mark_accessed(f);
		break;
	case 4:
		if (msim_folio_isolate_lru(f))
			msim_folio_putback_lru(f);
		break;
	default:
		op_free(a, i);
	}
}

static void op_reclaim(struct task_arg *a)
{
	struct msim_memcg *memcg = grab(a);
	struct msim_scan_control sc;

	if (!memcg)
		return;
	msim_scan_control_init(&sc);
	sc.evict = evict;
	msim_try_to_free_mem_cgroup_pages(memcg, 8, &sc);
	msim_css_put(memcg);
}

static void op_age(struct task_arg *a)
{
	struct msim_memcg *memcg = grab(a);

	if (!memcg)
		return;
	msim_lru_gen_inc_max_seq(msim_mem_cgroup_lruvec(a->w->m, memcg,
							(unsigned int)(rnd(a) % NNODES)));
	msim_css_put(memcg);
}

/*
 * CPU 0: in a random slot, remove its memcg (one time in two) or create one under
 * the memcg of another random slot.
 */
static void op_churn(struct task_arg *a)
{
	struct world *w = a->w;
	unsigned int s = 1 + (unsigned int)(rnd(a) % (NSLOT - 1));
	struct msim_memcg *memcg = __atomic_load_n(&w->slots[s], __ATOMIC_ACQUIRE), *parent, *c;

	if (memcg && rnd(a) % 2)
		return;
	if (memcg) {
		__atomic_store_n(&w->slots[s], NULL, __ATOMIC_RELEASE);
		if (msim_memcg_rmdir(memcg) == 0)
			w->removed++;
		else
			__atomic_store_n(&w->slots[s], memcg, __ATOMIC_RELEASE); /* has children */
		return;
	}
	parent = __atomic_load_n(&w->slots[rnd(a) % NSLOT], __ATOMIC_ACQUIRE);
	if (!parent || msim_memcg_create(parent, NULL, &c))
		return;
	w->created++;
	__atomic_store_n(&w->slots[s], c, __ATOMIC_RELEASE);
}

static void task_fn(void *arg)
{
	struct task_arg *a = arg;

	for (int i = 0; i < a->w->iters; i++) {
		unsigned int op = (unsigned int)(rnd(a) % 16);

		a->ops[op < 5 ? 0 : op < 13 ? 1 : op < 15 ? 2 : 3]++;
		if (op < 5)
			op_add(a);
		else if (op < 13)
			op_folio(a);
		else if (op < 15)
			op_reclaim(a);
		else
			op_age(a);
		if (a->cpu == 0 && i % 16 == 0)
			op_churn(a);
	}
}

/* ---- the end state ---- */

static bool memcg_reparented(struct world *w, struct msim_memcg *memcg)
{
	return w->objcg && msim_memcg_state(memcg) >= MSIM_MEMCG_OFFLINE;
}

static void add_zone_pages(struct msim_folio *folio, void *arg)
{
	((long *)arg)[msim_folio_zonenum(folio)] += msim_folio_nr_pages(folio);
}

/*
 * Classic: each evictable list of (memcg, nid) walked per zone against
 * lru_zone_size (a memcg reparented under objcg: nothing listed). Adds the
 * pages to own[lru] and the folios to t->folios.
 */
static void walk_classic(struct msim_lruvec *lv, bool reparented, long own[NLRU],
			 struct tally *t)
{
	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++) {
		long pages[MSIM_MAX_NR_ZONES] = { 0 };

		t->folios += (long)msim_lruvec_for_each_folio(lv, lru, add_zone_pages, pages);
		for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
			long size = msim_mem_cgroup_get_zone_lru_size(lv, lru, z);

			assert_int_equal(pages[z], reparented ? 0 : size);
			own[lru] += pages[z];
		}
	}
}

/*
 * MGLRU: each generation, type and zone walked against lrugen->nr_pages, and
 * lru_zone_size of the evictable lists 0 (never maintained). A type's pages go
 * to own[inactive of the type]: the split between active and inactive is not
 * compared (reparenting moves no statistics).
 */
static void walk_mglru(struct msim_lruvec *lv, long own[NLRU], struct tally *t)
{
	for (unsigned int gen = 0; gen < MSIM_MAX_NR_GENS; gen++)
		for (unsigned int type = 0; type < MSIM_ANON_AND_FILE; type++)
			for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
				unsigned long pages;

				t->folios += (long)msim_lru_gen_nr_folios(lv, gen, type, z,
									  &pages);
				assert_int_equal((long)pages,
						 msim_lru_gen_nr_pages(lv, gen, type, z));
				own[type * MSIM_LRU_INACTIVE_FILE] += (long)pages;
			}
	for (unsigned int lru = 0; lru < MSIM_LRU_UNEVICTABLE; lru++)
		assert_int_equal(msim_lruvec_lru_size(lv, lru, MSIM_MAX_NR_ZONES - 1), 0);
}

/* The unevictable pages per (memcg serial, node, zone) the tasks' mlocked folios make. */
static void tally_unevictable(struct task_arg *args, long (*unev)[NNODES][MSIM_MAX_NR_ZONES],
			      struct tally *t)
{
	for (unsigned int c = 0; c < NCPU; c++)
		for (unsigned int i = 0; i < NPIN; i++) {
			struct msim_folio *f = args[c].pin[i];
			struct msim_memcg *memcg;

			if (!f || !msim_folio_test_mlocked(f))
				continue;
			msim_rcu_read_lock();
			memcg = msim_folio_memcg(f);
			msim_rcu_read_unlock();
			assert_true(msim_folio_test_unevictable(f));
			assert_true(msim_memcg_serial(memcg) < MAXSER);
			unev[msim_memcg_serial(memcg)][msim_folio_nid(f)][msim_folio_zonenum(f)] +=
				msim_folio_nr_pages(f);
			t->folios++;
		}
}

/* The unevictable size of (memcg, nid) per zone against the mlocked folios it owns. */
static void check_unevictable(struct msim_lruvec *lv, bool reparented,
			      const long unev[MSIM_MAX_NR_ZONES], long own[NLRU])
{
	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++) {
		long size = msim_mem_cgroup_get_zone_lru_size(lv, MSIM_LRU_UNEVICTABLE, z);

		assert_int_equal(reparented ? 0 : size, unev[z]);
		own[MSIM_LRU_UNEVICTABLE] += unev[z];
	}
}

/* Walk every memcg present: lists against sizes, own pages into the tally. */
static void tally_lists(struct world *w, struct task_arg *args, struct tally *t)
{
	static long unev[MAXSER][NNODES][MSIM_MAX_NR_ZONES];
	struct msim_memcg *root = msim_root_mem_cgroup(w->m), *pos = NULL;

	memset(unev, 0, sizeof(unev));
	tally_unevictable(args, unev, t);
	while ((pos = msim_mem_cgroup_iter(root, pos))) {
		uint64_t ser = msim_memcg_serial(pos);
		bool reparented = memcg_reparented(w, pos);

		assert_true(ser < MAXSER);
		for (unsigned int nid = 0; nid < NNODES; nid++) {
			struct msim_lruvec *lv = msim_mem_cgroup_lruvec(w->m, pos, nid);

			if (w->mglru)
				walk_mglru(lv, t->own[ser][nid], t);
			else
				walk_classic(lv, reparented, t->own[ser][nid], t);
			check_unevictable(lv, reparented, unev[ser][nid], t->own[ser][nid]);
		}
	}
}

/* sub[] of every memcg: its own pages added to itself and each ancestor. */
static void tally_subtrees(struct world *w, struct tally *t)
{
	struct msim_memcg *root = msim_root_mem_cgroup(w->m), *pos = NULL;

	while ((pos = msim_mem_cgroup_iter(root, pos))) {
		uint64_t ser = msim_memcg_serial(pos);

		for (struct msim_memcg *anc = pos; anc; anc = msim_parent_mem_cgroup(anc))
			for (unsigned int nid = 0; nid < NNODES; nid++)
				for (unsigned int lru = 0; lru < NLRU; lru++)
					t->sub[msim_memcg_serial(anc)][nid][lru] +=
						t->own[ser][nid][lru];
	}
}

/* The statistic of LRU list lru (NR_INACTIVE_ANON + lru). */
static enum msim_stat_item lru_item(unsigned int lru)
{
	return (enum msim_stat_item)(MSIM_NR_INACTIVE_ANON + lru);
}

/* A statistic as the tally counts it: MGLRU folds active into inactive. */
static long stat_of(struct world *w, struct msim_lruvec *lv, enum msim_stat_array which,
		    unsigned int lru)
{
	long v = msim_lruvec_stat_raw(lv, which, lru_item(lru));

	if (w->mglru && (lru == MSIM_LRU_INACTIVE_ANON || lru == MSIM_LRU_INACTIVE_FILE))
		v += msim_lruvec_stat_raw(lv, which, lru_item(lru + 1));
	return v;
}

static bool lru_compared(struct world *w, unsigned int lru)
{
	return !w->mglru || (lru != MSIM_LRU_ACTIVE_ANON && lru != MSIM_LRU_ACTIVE_FILE);
}

/* Hierarchical statistics against the subtree; local against own (or the drift counted). */
static long check_stats(struct world *w, struct tally *t)
{
	struct msim_memcg *root = msim_root_mem_cgroup(w->m), *pos = NULL;
	long drift = 0;

	while ((pos = msim_mem_cgroup_iter(root, pos))) {
		uint64_t ser = msim_memcg_serial(pos);

		for (unsigned int nid = 0; nid < NNODES; nid++) {
			struct msim_lruvec *lv = msim_mem_cgroup_lruvec(w->m, pos, nid);

			for (unsigned int lru = 0; lru < NLRU; lru++) {
				long local = stat_of(w, lv, MSIM_STAT_LOCAL, lru);

				if (!lru_compared(w, lru))
					continue;
				assert_int_equal(stat_of(w, lv, MSIM_STAT_STATE, lru),
						 t->sub[ser][nid][lru]);
				if (w->exact_local)
					assert_int_equal(local, t->own[ser][nid][lru]);
				drift += labs(local - t->own[ser][nid][lru]);
			}
		}
	}
	return drift;
}

/*
 * percpu: the normal reader (msim_node_page_state, vmstat's node atomic clamped
 * at 0, as the kernel's node_page_state) against the truth as that reader shows
 * it: the root's hierarchical statistic clamped at 0. The clamp matters on MGLRU,
 * where reparenting moves no statistics and an active item's truth can be
 * negative (docs/lru.md, Findings). Returns |read - truth|.
 */
static long node_read_error(struct world *w, unsigned int nid, enum msim_stat_item idx,
			    long truth)
{
	return labs((long)msim_node_page_state(w->m, nid, idx) - (truth > 0 ? truth : 0));
}

/* percpu: the most node nid's counters may lag, the CPUs' thresholds summed (vmstat.h). */
static long node_lag_bound(struct world *w, unsigned int nid)
{
	long bound = 0;

	for (unsigned int cpu = 0; cpu < NCPU; cpu++)
		bound += msim_vmstat_node_stat_threshold(w->m, nid, cpu);
	return bound;
}

/*
 * percpu: each LRU item of each node against the root's hierarchical statistic
 * (exact after the forced flush, and checked against the lists by check_stats).
 * Before the fold (folded false) the node atomic and the normal reader may lag
 * it by threshold x CPUs; after it (folded true) both equal it exactly.
 */
static void check_node_reads(struct world *w, bool folded)
{
	struct msim_memcg *root = msim_root_mem_cgroup(w->m);

	for (unsigned int nid = 0; nid < NNODES; nid++) {
		struct msim_lruvec *lv = msim_mem_cgroup_lruvec(w->m, root, nid);
		long bound = folded ? 0 : node_lag_bound(w, nid);

		assert_true(folded || bound > 0);
		for (unsigned int lru = 0; lru < NLRU; lru++) {
			enum msim_stat_item idx = lru_item(lru);
			long truth = msim_lruvec_stat_raw(lv, MSIM_STAT_STATE, idx);
			long lag = labs(msim_node_stat_raw(w->m, nid, idx) - truth);

			assert_true(lag <= bound);
			assert_true(node_read_error(w, nid, idx, truth) <= bound);
			if (lag > w->worst_lag)
				w->worst_lag = lag;
		}
	}
}

/* rstat's node counters: the root's hierarchical statistics, and every page listed. */
static void check_node_counters(struct world *w, struct tally *t)
{
	struct msim_memcg *root = msim_root_mem_cgroup(w->m);
	uint64_t rs = msim_memcg_serial(root);

	if (w->percpu) {
		check_node_reads(w, false);
		(void)msim_vmstat_refresh(w->m);
		check_node_reads(w, true);
	}
	for (unsigned int nid = 0; nid < NNODES; nid++) {
		struct msim_lruvec *lv = msim_mem_cgroup_lruvec(w->m, root, nid);

		for (unsigned int lru = 0; lru < NLRU; lru++) {
			enum msim_stat_item idx = lru_item(lru);
			long node = msim_node_stat_raw(w->m, nid, idx);

			assert_int_equal(node, msim_lruvec_stat_raw(lv, MSIM_STAT_STATE, idx));
			if (!lru_compared(w, lru))
				continue;
			if (w->mglru && lru != MSIM_LRU_UNEVICTABLE)
				node += msim_node_stat_raw(w->m, nid, idx + 1);
			assert_int_equal(node, t->sub[rs][nid][lru]);
		}
	}
}

/* The end state (docs at the top); returns the local drift. */
static long check_quiescent(struct world *w, struct task_arg *args)
{
	struct tally *t = calloc(1, sizeof(*t));
	struct msim_lru_counts n;
	long drift;

	assert_non_null(t);
	msim_memcg_drain(w->m);
	msim_mem_cgroup_flush_stats_forced(NULL);
	tally_lists(w, args, t);
	tally_subtrees(w, t);
	drift = check_stats(w, t);
	check_node_counters(w, t);
	msim_lru_counts(w->m, &n);
	assert_int_equal(n.folios_live, t->folios);
	assert_int_equal(n.lru_size_underflows, 0);
	assert_int_equal(n.freed_nonempty, 0);
	free(t);
	return drift;
}

/* Free everything: the tasks' folios, then reclaim the page cache to nothing. */
static void check_empty(struct world *w, struct task_arg *args)
{
	struct msim_memcg *root = msim_root_mem_cgroup(w->m);
	struct msim_memcg_counts mc;
	struct msim_lru_counts n;

	for (unsigned int c = 0; c < NCPU; c++)
		for (unsigned int i = 0; i < NPIN; i++)
			if (args[c].pin[i])
				msim_folio_put(args[c].pin[i]);
	/*
	 * A call can free nothing yet age the active lists for the next one (the
	 * force_deactivate retry deactivates after the scan counts were taken),
	 * and inactive_is_low() reads flushed statistics: with nothing but active
	 * anon left, shrink_lruvec() ages it only once a flush shows the balance
	 * (the periodic flusher's work over real time). So an idle call is
	 * followed by a flush, and reclaim gives up after MAX_RECLAIM_RETRIES
	 * idle calls in a row, as try_charge_memcg() does.
	 */
	for (unsigned int idle = 0; idle < 16;) {
		if (msim_try_to_free_mem_cgroup_pages(root, 1UL << 20, NULL)) {
			idle = 0;
			continue;
		}
		msim_mem_cgroup_flush_stats_forced(NULL);
		idle++;
	}
	msim_memcg_drain(w->m);
	msim_mem_cgroup_flush_stats_forced(NULL);
	if (w->percpu)
		(void)msim_vmstat_refresh(w->m);
	msim_lru_counts(w->m, &n);
	msim_memcg_counts(w->m, &mc);
	assert_int_equal(n.folios_live, 0);
	assert_int_equal(n.lru_size_underflows, 0);
	assert_int_equal(n.freed_nonempty, 0);
	/* nothing pins a removed memcg any more (7.0: its folios did) */
	assert_int_equal(mc.dying + mc.offline + mc.released, 0);
	for (unsigned int nid = 0; nid < NNODES; nid++)
		for (unsigned int lru = 0; lru < NLRU; lru++) {
			long v = msim_node_stat_raw(w->m, nid, lru_item(lru));

			if (v)
				print_message("node %u %s: %ld with nothing listed\n", nid,
					      msim_stat_item_name(lru_item(lru)), v);
			/*
			 * every item, MGLRU's active and inactive apart too: reparenting
			 * moves the statistics of a generation whose activeness differs
			 * between child and parent (lru_gen_reparent_one)
			 */
			assert_int_equal(v, 0);
		}
}

/* ---- runs ---- */

struct run_cfg {
	enum msim_run_mode mode;
	enum msim_lru_kind lru;
	const char *variant;      /* NULL: mainline */
	int iters;
	uint64_t seed;            /* deterministic: the schedule's */
	bool percpu;              /* also node-stat=percpu */
};

static struct world *world_new(const struct run_cfg *rc)
{
	struct world *w = calloc(1, sizeof(*w));
	struct msim_config cfg;
	char err[256];

	assert_non_null(w);
	msim_config_init(&cfg);
	cfg.nr_cpus = NCPU;
	cfg.nr_nodes = NNODES;
	/* movablecore=1G: node 1's folios alternate NORMAL and MOVABLE (alloc_folio) */
	cfg.zone_managed_pages[MSIM_ZONE_MOVABLE] = 262144;
	cfg.mode = rc->mode;
	cfg.lru = rc->lru;
	if (rc->variant)
		assert_int_equal(msim_variant_set(&cfg.variants, rc->variant, err, sizeof(err)), 0);
	if (rc->percpu)
		assert_int_equal(msim_variant_set(&cfg.variants, "node-stat=percpu", err,
						  sizeof(err)), 0);
	assert_int_equal(msim_create(&cfg, &w->m, err, sizeof(err)), 0);
	msim_set_current_host(w->m);
	assert_int_equal(msim_lru_attach(w->m, err, sizeof(err)), 0);
	w->iters = rc->iters;
	w->percpu = rc->percpu;
	w->mglru = rc->lru == MSIM_LRU_MGLRU;
	w->objcg = msim_variant_value(&cfg.variants, "lru-reparent") == MSIM_LRU_REPARENT_OBJCG;
	w->exact_local = !w->objcg || msim_variant_value(&cfg.variants, "dying-redirect") ==
					      MSIM_DYING_REDIRECT_ALL;
	w->slots[0] = msim_root_mem_cgroup(w->m);
	for (unsigned int s = 1; s < 7; s++) {    /* three under root, one under each */
		struct msim_memcg *parent = w->slots[s <= 3 ? 0 : s - 3];

		assert_int_equal(msim_memcg_create(parent, NULL, &w->slots[s]), 0);
	}
	return w;
}

/* One run and its checks; returns the trace hash (deterministic mode). */
static uint64_t conservation_run(const struct run_cfg *rc)
{
	struct world *w = world_new(rc);
	struct task_arg *args = calloc(NCPU, sizeof(*args));
	unsigned long ops[4] = { 0 };
	uint64_t hash;
	long drift;

	assert_non_null(args);
	for (unsigned int c = 0; c < NCPU; c++) {
		args[c] = (struct task_arg){ .w = w, .cpu = c,
					     .rng = 0x9e3779b97f4a7c15ULL * (c + 1) ^ rc->seed };
		assert_non_null(msim_task_create(w->m, "lru-stress", c, task_fn, &args[c]));
	}
	if (rc->mode == MSIM_DETERMINISTIC) {
		struct msim_sched_opts so = { .strategy = MSIM_STRAT_RANDOM, .seed = rc->seed };

		assert_int_equal(msim_sched_set(w->m, &so), 0);
	}
	assert_int_equal(msim_run(w->m), 0);
	hash = msim_sched_trace_hash(w->m);
	drift = check_quiescent(w, args);
	for (unsigned int c = 0; c < NCPU; c++)
		for (unsigned int k = 0; k < 4; k++)
			ops[k] += args[c].ops[k];
	/* the run did what it is for: churn, and uncharges after an offline */
	assert_true(w->created > 0 && w->removed > 0);
	assert_true(w->freed_after_offline > 0);
	/* mainline objcg on v2: the frees after an offline leave the parents' locals off */
	assert_true(w->exact_local ? drift == 0 : drift > 0);
	print_message("%s %s %s seed %llu: %lu charged, %lu ops (add %lu, folio %lu, reclaim %lu, "
		      "age %lu); %lu memcgs created, %lu removed; %lu frees after an offline; "
		      "local drift %ld pages%s%s\n",
		      rc->mode == MSIM_DETERMINISTIC ? "deterministic" : "concurrent",
		      w->mglru ? "mglru" : "classic", rc->variant ? rc->variant : "mainline",
		      (unsigned long long)rc->seed, w->charged, ops[0] + ops[1] + ops[2] + ops[3],
		      ops[0], ops[1], ops[2], ops[3], w->created, w->removed,
		      w->freed_after_offline, drift, w->exact_local ? " (checked: 0)" : "",
		      w->percpu ? "; node-stat=percpu" : "");
	if (w->percpu)
		print_message("  node counters before the fold: worst lag %ld pages, bound %ld "
			      "(threshold x %d CPUs); exact after msim_vmstat_refresh\n",
			      w->worst_lag, node_lag_bound(w, 0), NCPU);
	check_empty(w, args);
	msim_destroy(w->m);
	free(args);
	free(w);
	return hash;
}

#define DET_ITERS 1000
#define CONC_ITERS 3000

#define RUN_NODE_STAT(fn, mode, lru, variant, iters, seed, percpu)                 \
	static void fn(void **st)                                                   \
	{                                                                           \
		const struct run_cfg rc = { mode, lru, variant, iters, seed, percpu }; \
		(void)st;                                                           \
		(void)conservation_run(&rc);                                        \
	}
#define RUN(fn, mode, lru, variant, iters, seed)                                    \
	RUN_NODE_STAT(fn, mode, lru, variant, iters, seed, false)

RUN(det_classic, MSIM_DETERMINISTIC, MSIM_LRU_CLASSIC, NULL, DET_ITERS, 1)
RUN(det_mglru, MSIM_DETERMINISTIC, MSIM_LRU_MGLRU, NULL, DET_ITERS, 2)
RUN(det_classic_all, MSIM_DETERMINISTIC, MSIM_LRU_CLASSIC, "dying-redirect=all", DET_ITERS, 3)
RUN(det_mglru_all, MSIM_DETERMINISTIC, MSIM_LRU_MGLRU, "dying-redirect=all", DET_ITERS, 4)
RUN(det_classic_off, MSIM_DETERMINISTIC, MSIM_LRU_CLASSIC, "lru-reparent=off", DET_ITERS, 5)
RUN(det_mglru_off, MSIM_DETERMINISTIC, MSIM_LRU_MGLRU, "lru-reparent=off", DET_ITERS, 6)
RUN(conc_classic, MSIM_CONCURRENT, MSIM_LRU_CLASSIC, NULL, CONC_ITERS, 0)
RUN(conc_mglru, MSIM_CONCURRENT, MSIM_LRU_MGLRU, NULL, CONC_ITERS, 0)
RUN(conc_classic_all, MSIM_CONCURRENT, MSIM_LRU_CLASSIC, "dying-redirect=all", CONC_ITERS, 0)
RUN(conc_mglru_off, MSIM_CONCURRENT, MSIM_LRU_MGLRU, "lru-reparent=off", CONC_ITERS, 0)
/* node-stat=percpu: node counters from vmstat, exact only after the fold */
RUN_NODE_STAT(det_classic_percpu, MSIM_DETERMINISTIC, MSIM_LRU_CLASSIC, NULL, DET_ITERS, 9, true)
RUN_NODE_STAT(det_mglru_percpu, MSIM_DETERMINISTIC, MSIM_LRU_MGLRU, NULL, DET_ITERS, 10, true)
RUN_NODE_STAT(det_classic_off_percpu, MSIM_DETERMINISTIC, MSIM_LRU_CLASSIC, "lru-reparent=off",
	      DET_ITERS, 11, true)
RUN_NODE_STAT(conc_classic_percpu, MSIM_CONCURRENT, MSIM_LRU_CLASSIC, NULL, CONC_ITERS, 0, true)

/* The seeded schedule is the whole run: the same seed gives the same trace. */
static void det_seed_replays(void **st)
{
	const struct run_cfg a = { MSIM_DETERMINISTIC, MSIM_LRU_MGLRU, NULL, DET_ITERS, 7, false };
	const struct run_cfg b = { MSIM_DETERMINISTIC, MSIM_LRU_MGLRU, NULL, DET_ITERS, 8, false };
	uint64_t h = conservation_run(&a);

	(void)st;
	assert_int_equal(conservation_run(&a), h);
	assert_int_not_equal(conservation_run(&b), h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(det_classic),      cmocka_unit_test(det_mglru),
		cmocka_unit_test(det_classic_all),  cmocka_unit_test(det_mglru_all),
		cmocka_unit_test(det_classic_off),  cmocka_unit_test(det_mglru_off),
		cmocka_unit_test(det_seed_replays),
		cmocka_unit_test(conc_classic),     cmocka_unit_test(conc_mglru),
		cmocka_unit_test(conc_classic_all), cmocka_unit_test(conc_mglru_off),
		cmocka_unit_test(det_classic_percpu), cmocka_unit_test(det_mglru_percpu),
		cmocka_unit_test(det_classic_off_percpu), cmocka_unit_test(conc_classic_percpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
