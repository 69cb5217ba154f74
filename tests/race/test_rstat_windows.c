/* SPDX-License-Identifier: MIT */
/*
 * The remaining rstat race windows (docs/races.md), reached on the model by the
 * scripted scheduler (the five named races have their own scenarios and tests):
 *
 * R1, remote per-CPU reset against this_cpu_add_return (2 CPUs, leaf):
 *
 *   CPU 0 (flush leaf)                 CPU 1 (update leaf, 11th page)
 *   ------------------                 ------------------------------
 *                                      state += 1; n = count + 1 (11)
 *   fold CPU 1: 11 pages
 *   WRITE_ONCE(count on CPU 1, 0)
 *                                      count = n (11)      <- the reset is lost
 *
 *   bad state: CPU 1's count says 11 pending pages, none is unflushed (the
 *   heuristic over-counts; stat values are exact).
 *
 * R6, torn read during a flush (5 pages flushed; then 10 leave on CPU 0 and 10
 * arrive on CPU 1, so the true value stays 5):
 *
 *   CPU 0 (flush leaf)                 CPU 2 (reader)
 *   ------------------                 --------------
 *   fold CPU 0: state 5 - 10 = -5
 *                                      memcg_page_state(leaf) = 0 (raw -5, clamped)
 *   fold CPU 1: state -5 + 10 = 5
 *
 * R5, a skipped enqueue racing with the pop (2 CPUs, leaf queued on CPU 1 by
 * a first update of 3 pages; the second update of 3 pages):
 *
 *   CPU 0 (flush leaf)                 CPU 1 (update leaf)
 *   ------------------                 -------------------
 *                                      state += 3     (in the store buffer)
 *                                      llist_on_list(): on-list, return
 *   pop leaf (off-list again)
 *   fold CPU 1: reads 3 (old)
 *                                      store drains: state 6
 *
 *   bad state (memory model tso or pso, the kernel as it is: no smp_mb pair):
 *   leaf reports 3 of 6, 3 pages unflushed and leaf on no list, so another
 *   forced flush still reports 3; the next update on CPU 1 re-enqueues it.
 *   What holds with the barrier pair (rstat params smp_mb_pair, real drains of
 *   the store buffer; the same schedule), and under sc: the flusher reads 6,
 *   nothing is stranded. r5_dfs_both_sides proves both by exhausting DFS
 *   (preemption bound 1, drains free) under sc, tso, and tso with the pair.
 *   r5_sequentially_consistent also parks the updater right at the on-list test.
 */
#include <errno.h>

#include <memcgsim/introspect.h>

#include "race_util.h"

struct w {
	struct msim *m;
	struct msim_memcg *root, *leaf;
	enum msim_stat_item idx;
	long val;
	int times;
	long read_raw;
	unsigned long read;
};

static void upd_fn(void *arg)
{
	struct w *s = arg;

	for (int i = 0; i < s->times; i++)
		msim_mod_memcg_state(s->leaf, s->idx, s->val);
}

static void flush_leaf_fn(void *arg)
{
	struct w *s = arg;

	msim_mem_cgroup_flush_stats_forced(s->leaf);
}

static void read_fn(void *arg)
{
	struct w *s = arg;

	s->read_raw = msim_memcg_stat_raw(s->leaf, MSIM_STAT_STATE, s->idx);
	s->read = msim_memcg_page_state(s->leaf, s->idx);
}

static struct msim *host(unsigned int cpus, struct w *s)
{
	struct msim_config cfg;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	assert_int_equal(msim_create(&cfg, &s->m, err, sizeof(err)), 0);
	msim_set_current_host(s->m);
	assert_int_equal(msim_rstat_init(s->m, NULL), 0);
	msim_rstat_periodic_flush_enable(s->m, false);
	s->root = msim_root_mem_cgroup(s->m);
	assert_int_equal(msim_memcg_create(s->root, "leaf", &s->leaf), 0);
	return s->m;
}

static void r1_remote_reset_lost(void **st)
{
	struct w s = { .idx = MSIM_NR_FILE_PAGES, .val = 1, .times = 11 };
	struct msim *m = host(2, &s);
	struct msim_task *u = msim_task_create(m, "updater", 1, upd_fn, &s);
	struct msim_task *f = msim_task_create(m, "flusher", 0, flush_leaf_fn, &s);

	/* 10 pages, then the 11th stopped inside this_cpu_add_return at leaf */
	assert_int_equal(msim_run_until(m, u, "rstat.update.done", 10), 0);
	assert_int_equal(msim_run_until(m, u, "this_cpu_rmw.store", 1), 0);
	assert_int_equal(msim_run_task(m, f), 0);
	assert_int_equal(msim_memcg_stats_updates_cpu(s.leaf, 1), 0);     /* reset */
	assert_int_equal(msim_run_task(m, u), 0);
	/* bad state: the reset is lost, 11 counted, nothing unflushed */
	assert_int_equal(msim_memcg_stats_updates_cpu(s.leaf, 1), 11);
	assert_int_equal(msim_memcg_unflushed(s.leaf), 0);
	/* what holds: the stat value */
	assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_FILE_PAGES), 11);
	msim_destroy(m);
}

struct moved {
	struct msim_memcg *leaf;
	long d;
};

static void move_fn(void *arg)
{
	struct moved *mv = arg;

	msim_mod_memcg_state(mv->leaf, MSIM_NR_SHMEM, mv->d);
}

static void r6_torn_read_clamped(void **st)
{
	struct w s = { .idx = MSIM_NR_SHMEM };
	struct msim *m = host(3, &s);
	struct moved charge = { NULL, 5 }, minus = { NULL, -10 }, plus = { NULL, 10 };
	struct msim_task *f, *r;

	charge.leaf = minus.leaf = plus.leaf = s.leaf;
	/* 5 pages charged on CPU 1 and flushed */
	assert_int_equal(msim_run_task(m, msim_task_create(m, "charge", 1, move_fn, &charge)), 0);
	msim_css_rstat_flush(s.root);
	assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_SHMEM), 5);
	/* 10 pages leave on CPU 0 and 10 arrive on CPU 1: the total stays 5 */
	assert_int_equal(msim_run_task(m, msim_task_create(m, "minus", 0, move_fn, &minus)), 0);
	assert_int_equal(msim_run_task(m, msim_task_create(m, "plus", 1, move_fn, &plus)), 0);
	/* a flush of leaf, stopped after its CPU 0 pass; a reader on CPU 2 */
	f = msim_task_create(m, "flusher", 0, flush_leaf_fn, &s);
	r = msim_task_create(m, "reader", 2, read_fn, &s);
	assert_int_equal(msim_run_until(m, f, "rstat.flush.cpu_start", 2), 0);
	assert_int_equal(msim_run_task(m, r), 0);
	/* bad state: CPU 0's -10 folded, CPU 1's +10 not: raw -5, read clamped to 0 */
	assert_int_equal(s.read_raw, -5);
	assert_int_equal(s.read, 0);
	assert_int_equal(msim_run_task(m, f), 0);
	/* what holds: after the whole flush the value is exact */
	assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_SHMEM), 5);
	msim_destroy(m);
}

static void r5_sequentially_consistent(void **st)
{
	struct w s = { .idx = MSIM_NR_FILE_PAGES, .val = 3, .times = 2 };
	struct msim *m = host(2, &s);
	struct msim_task *u = msim_task_create(m, "updater", 1, upd_fn, &s);
	struct msim_task *f = msim_task_create(m, "flusher", 0, flush_leaf_fn, &s);

	/* first update enqueues leaf on CPU 1; the second writes its state and
	 * stops at the on-list test (on-list: it will skip the enqueue) */
	assert_int_equal(msim_run_until(m, u, "rstat.update.done", 1), 0);
	assert_int_equal(msim_run_until(m, u, "rstat.update.after_state", 1), 0);
	assert_true(msim_memcg_rstat_queued(s.leaf, 1));
	assert_int_equal(msim_run_task(m, f), 0);     /* pops and folds both */
	assert_int_equal(msim_run_task(m, u), 0);     /* re-enqueues: node off-list now */
	assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_FILE_PAGES), 6);
	assert_int_equal(msim_memcg_unflushed(s.leaf), 0);
	msim_destroy(m);
}

/*
 * The R5 schedule above under memory model mm, with or without the smp_mb pair
 * (rstat params smp_mb_pair). The second update is stopped right after its
 * on-list test returned (at the walk's first level), the flusher runs whole,
 * then the updater; leftover store-buffer entries drain at the end (msim_run).
 */
static void r5_schedule(enum msim_memory_model mm, bool mb_pair)
{
	struct w s = { .idx = MSIM_NR_FILE_PAGES, .val = 3, .times = 2 };
	const bool strands = mm != MSIM_MEMORY_SC && !mb_pair;
	struct msim_rstat_params p;
	struct msim_config cfg;
	struct msim_task *u, *f;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.memory_model = mm;
	assert_int_equal(msim_create(&cfg, &s.m, err, sizeof(err)), 0);
	msim_set_current_host(s.m);
	msim_rstat_params_init(&p);
	p.periodic_flush = false;
	p.smp_mb_pair = mb_pair;
	assert_int_equal(msim_rstat_init(s.m, &p), 0);
	s.root = msim_root_mem_cgroup(s.m);
	assert_int_equal(msim_memcg_create(s.root, "leaf", &s.leaf), 0);
	u = msim_task_create(s.m, "updater", 1, upd_fn, &s);
	f = msim_task_create(s.m, "flusher", 0, flush_leaf_fn, &s);
	assert_int_equal(msim_run_until(s.m, u, "rstat.update.done", 1), 0);
	assert_true(msim_memcg_rstat_queued(s.leaf, 1));
	/* second update: past the on-list test (on-list: no claim, so no drain) */
	assert_int_equal(msim_run_until(s.m, u, "rstat.update.level", 1), 0);
	/*
	 * CPU 1's buffer: the first update's two stats_updates stores (leaf and
	 * root levels of the walk: this_cpu_add_return is no locked instruction)
	 * and the second's state store; the barrier drained them all.
	 */
	assert_int_equal(msim_store_buffer_len(s.m, 1), strands ? 3 : 0);
	assert_int_equal(msim_run_task(s.m, f), 0);     /* pops, folds CPU 1 */
	assert_int_equal(msim_run_task(s.m, u), 0);
	assert_int_equal(msim_run(s.m), 0);
	assert_int_equal(msim_store_buffer_len(s.m, 1), 0);
	if (strands) {
		assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_FILE_PAGES), 3);
		assert_int_equal(msim_memcg_unflushed(s.leaf), 3);
		assert_false(msim_memcg_rstat_queued(s.leaf, 1));
		/* stranded: a forced flush does not see it */
		msim_mem_cgroup_flush_stats_forced(s.leaf);
		assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_FILE_PAGES), 3);
		/* the next update on CPU 1 enqueues leaf again */
		s.times = 1;
		s.val = 1;
		assert_non_null(msim_task_create(s.m, "updater2", 1, upd_fn, &s));
		assert_int_equal(msim_run(s.m), 0);
		msim_mem_cgroup_flush_stats_forced(s.leaf);
		assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_FILE_PAGES), 7);
	} else {
		assert_int_equal(msim_memcg_page_state(s.leaf, MSIM_NR_FILE_PAGES), 6);
		assert_int_equal(msim_memcg_unflushed(s.leaf), 0);
	}
	msim_destroy(s.m);
}

static void r5_tso_no_barrier_strands(void **st) { r5_schedule(MSIM_MEMORY_TSO, false); }
static void r5_pso_no_barrier_strands(void **st) { r5_schedule(MSIM_MEMORY_PSO, false); }
static void r5_tso_barrier_pair_holds(void **st) { r5_schedule(MSIM_MEMORY_TSO, true); }
static void r5_sc_nothing_stranded(void **st) { r5_schedule(MSIM_MEMORY_SC, false); }

/*
 * ---- R5 by exhaustive exploration: leaf already queued on CPU 1 (the driver
 * enqueued it), one update on CPU 1, a forced flush of leaf on CPU 0 ----
 */

struct r5x {
	struct w w;
	bool mb_pair;
};

static int r5x_setup(struct msim *m, void **state, void *arg)
{
	struct r5x *x = calloc(1, sizeof(*x));
	struct msim_rstat_params p;
	int r;

	if (!x)
		return -ENOMEM;
	*state = x;
	x->w = (struct w){ .m = m, .idx = MSIM_NR_FILE_PAGES, .val = 3, .times = 1 };
	msim_rstat_params_init(&p);
	p.periodic_flush = false;
	p.smp_mb_pair = arg != NULL;
	if ((r = msim_rstat_init(m, &p)))
		return r;
	x->w.root = msim_root_mem_cgroup(m);
	if ((r = msim_memcg_create(x->w.root, "leaf", &x->w.leaf)))
		return r;
	msim_css_rstat_updated(x->w.leaf, 1);    /* on-list: the update will skip the enqueue */
	if (!msim_task_create(m, "updater", 1, upd_fn, &x->w) ||
	    !msim_task_create(m, "flusher", 0, flush_leaf_fn, &x->w))
		return -ENOMEM;
	return 0;
}

/* Stranded: pages not flushed while leaf is queued on no CPU (no flush will see them). */
static bool r5x_check(struct msim *m, void *state, char *why, size_t len)
{
	struct r5x *x = state;
	long left = msim_memcg_unflushed(x->w.leaf);

	if (!left || msim_memcg_rstat_queued(x->w.leaf, 0) || msim_memcg_rstat_queued(x->w.leaf, 1))
		return false;
	snprintf(why, len, "%ld pages stranded on CPU 1, leaf on no updated list", left);
	return true;
}

static void r5x_teardown(struct msim *m, void *state)
{
	free(state);
}

static struct msim_explore_result r5_dfs(enum msim_memory_model mm, bool mb_pair)
{
	struct msim_explore_target t = { .name = "r5", .setup = r5x_setup, .check = r5x_check,
					 .teardown = r5x_teardown,
					 .arg = mb_pair ? (void *)1 : NULL };
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_DFS, .runs = 200000,
				       .preemptions = 1 };
	struct msim_explore_result res;
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.memory_model = mm;
	assert_int_equal(msim_explore(&t, &cfg, &o, &res), 0);
	print_message("R5 dfs, memory model %s, smp_mb pair %s: %u schedules, %u violations, %s\n",
		      msim_memory_model_name(mm), mb_pair ? "on" : "off", res.runs,
		      res.violations, res.exhausted ? "exhausted" : "NOT exhausted");
	assert_true(res.exhausted);
	return res;
}

/* Under sc the window needs no barrier; under tso only the barrier pair closes it. */
static void r5_dfs_both_sides(void **st)
{
	struct msim_explore_result sc = r5_dfs(MSIM_MEMORY_SC, false);
	struct msim_explore_result tso = r5_dfs(MSIM_MEMORY_TSO, false);
	struct msim_explore_result mb = r5_dfs(MSIM_MEMORY_TSO, true);
	struct msim_explore_result again;

	/* exact, deterministic counts (a change of the model or the explorer shows here) */
	assert_int_equal(sc.runs, 30);
	assert_int_equal(sc.violations, 0);
	assert_int_equal(tso.runs, 261);
	assert_int_equal(tso.violations, 92);
	assert_int_equal(mb.runs, 131);
	assert_int_equal(mb.violations, 0);
	/* the first stranding schedule replays exactly, drains included */
	struct msim_explore_target t = { .name = "r5", .setup = r5x_setup, .check = r5x_check,
					 .teardown = r5x_teardown };
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_REPLAY, .runs = 1,
				       .schedule = tso.schedule };
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.memory_model = MSIM_MEMORY_TSO;
	assert_non_null(strchr(tso.schedule, '~'));
	assert_int_equal(msim_explore(&t, &cfg, &o, &again), 0);
	assert_false(again.diverged);
	assert_int_equal(again.violations, 1);
	assert_true(again.trace_hash == tso.trace_hash);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(r1_remote_reset_lost),
		cmocka_unit_test(r6_torn_read_clamped),
		cmocka_unit_test(r5_sequentially_consistent),
		cmocka_unit_test(r5_tso_no_barrier_strands),
		cmocka_unit_test(r5_pso_no_barrier_strands),
		cmocka_unit_test(r5_tso_barrier_pair_holds),
		cmocka_unit_test(r5_sc_nothing_stranded),
		cmocka_unit_test(r5_dfs_both_sides),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
