/* SPDX-License-Identifier: MIT */
/*
 * rstat model, one behaviour per test, exact figures:
 *
 *   units                 kernel units and the page conversion of the heuristic
 *   batching              per-CPU counts move to the atomic in chunks of >= 64
 *   threshold             64 x online CPUs, strict >; gated flush skips at == 256
 *   conservation          3-level tree, 4 CPUs: after a root flush every
 *                         hierarchical value is its subtree's sum, locals exact
 *   subtree_flush         a leaf flush leaves its parent stale, delta in pending (R8)
 *   lruvec_and_node       lruvec per node, node counters, untracked pages
 *   root_lruvec_node      root-lruvec-read=node: fresh without flush, except slab
 *   clamp                 negative aggregates read as 0
 *   events                count_memcg_events
 *   ratelimited           flushes only when now > last + 4 s; periodic flush at 2 s
 *   rmdir_release         a removed memcg's deltas reach its parent on release
 *   dying_redirect_v1     cgroup v1: updates after rmdir go to the parent
 *   deferred_exit         a memcg freed (driver-context RCU callback) while a parked
 *                         task holds the rstat lock: exit deferred, then done by
 *                         the next flush, nothing lost
 *   late_attach           without rstat a write fails and attaches nothing; attached
 *                         by hand later, memcgs made before are adopted
 *   params                tunable batch and threshold; bad params rejected
 *   bad_input             -EINVAL, no change
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/introspect.h>

#include "unit_util.h"

static struct msim *host(unsigned int cpus, unsigned int nodes, const char *variant,
			 enum msim_cgroup_version v)
{
	struct msim_config cfg = unit_config(cpus, nodes);
	struct msim *m;
	char err[256];

	cfg.cgroup_version = v;
	if (variant)
		assert_int_equal(msim_variant_set(&cfg.variants, variant, err, sizeof(err)), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_rstat_init(m, NULL), 0);
	return m;
}

/* Run fn on CPU cpu in a task (deterministic, alone). */
struct on_cpu {
	void (*fn)(void *);
	void *arg;
};

static void on_cpu(struct msim *m, unsigned int cpu, void (*fn)(void *), void *arg)
{
	struct msim_task *t = msim_task_create(m, "w", cpu, fn, arg);

	assert_non_null(t);
	assert_int_equal(msim_run_task(m, t), 0);
}

struct upd {
	struct msim_memcg *memcg;
	enum msim_stat_item idx;
	long val;
	int times;
};

static void upd_fn(void *arg)
{
	struct upd *u = arg;

	for (int i = 0; i < u->times; i++)
		assert_int_equal(msim_mod_memcg_state(u->memcg, u->idx, u->val), 0);
}

static void units(void **st)
{
	assert_int_equal(msim_memcg_page_state_unit(MSIM_NR_SLAB_RECLAIMABLE_B), 1);
	assert_int_equal(msim_memcg_page_state_unit(MSIM_MEMCG_ZSWAP_B), 1);
	assert_int_equal(msim_memcg_page_state_unit(MSIM_NR_KERNEL_STACK_KB), 1024);
	assert_int_equal(msim_memcg_page_state_unit(MSIM_NR_FILE_PAGES), 4096);
	assert_int_equal(msim_memcg_page_state_output_unit(MSIM_WORKINGSET_REFAULT_FILE), 1);
	assert_int_equal(msim_memcg_state_val_in_pages(MSIM_NR_SLAB_RECLAIMABLE_B, 100), 1);
	assert_int_equal(msim_memcg_state_val_in_pages(MSIM_NR_SLAB_RECLAIMABLE_B, -8192), -2);
	assert_int_equal(msim_memcg_state_val_in_pages(MSIM_NR_KERNEL_STACK_KB, 16), 4);
	assert_int_equal(msim_memcg_state_val_in_pages(MSIM_NR_FILE_PAGES, -3), -3);
	assert_int_equal(msim_memcg_state_val_in_pages(MSIM_NR_FILE_PAGES, 0), 0);
	assert_int_equal(MSIM_NR_NODE_STAT_ITEMS, 47);
	assert_string_equal(msim_stat_item_name(MSIM_NR_FILE_PAGES), "nr_file_pages");
	assert_string_equal(msim_memcg_event_name(MSIM_PGFAULT), "pgfault");
	assert_true(msim_node_stat_includes_unaccounted(MSIM_NR_KERNEL_STACK_KB));
	assert_false(msim_node_stat_includes_unaccounted(MSIM_NR_FILE_PAGES));
}

static void batching(void **st)
{
	struct msim *m = host(4, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a = unit_mkdir(root, "a");
	struct upd u = { a, MSIM_NR_FILE_PAGES, 1, 63 };

	on_cpu(m, 1, upd_fn, &u);
	assert_int_equal(msim_memcg_stats_updates_cpu(a, 1), 63);
	assert_int_equal(msim_memcg_stats_updates(a), 0);
	u.times = 1;
	on_cpu(m, 1, upd_fn, &u);
	assert_int_equal(msim_memcg_stats_updates_cpu(a, 1), 0);
	assert_int_equal(msim_memcg_stats_updates(a), 64);
	assert_int_equal(msim_memcg_stats_updates(root), 64);
	/* a 100-page update pushes its whole count at once, at every level */
	u.val = 100;
	on_cpu(m, 2, upd_fn, &u);
	assert_int_equal(msim_memcg_stats_updates(a), 164);
	assert_int_equal(msim_memcg_stats_updates(root), 164);
	assert_true(msim_memcg_rstat_queued(a, 1));
	assert_true(msim_memcg_rstat_queued(a, 2));
	assert_false(msim_memcg_rstat_queued(a, 3));
	msim_destroy(m);
}

static void threshold(void **st)
{
	struct msim *m = host(4, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a = unit_mkdir(root, "a");
	struct upd u = { a, MSIM_NR_FILE_PAGES, 64, 4 };

	assert_int_equal(msim_memcg_flush_threshold(m), 256);
	on_cpu(m, 1, upd_fn, &u);
	assert_int_equal(msim_memcg_stats_updates(root), 256);
	assert_false(msim_memcg_vmstats_needs_flush(root));
	assert_false(msim_mem_cgroup_flush_stats(root));            /* 256 is not > 256 */
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 0);
	u.val = 1;
	u.times = 64;
	on_cpu(m, 1, upd_fn, &u);
	assert_int_equal(msim_memcg_stats_updates(root), 320);
	assert_true(msim_mem_cgroup_flush_stats(NULL));
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 320);
	assert_int_equal(msim_memcg_stats_updates(root), 0);
	assert_int_equal(msim_memcg_stats_updates(a), 0);
	assert_int_equal(msim_memcg_unflushed(root), 0);
	msim_destroy(m);
}

struct mix {
	struct msim_memcg *g[6];
	unsigned int cpu;
};

static void mix_fn(void *arg)
{
	struct mix *x = arg;

	for (int i = 0; i < 6; i++) {
		long v = (long)(i + 1) * (x->cpu + 1);

		msim_mod_memcg_state(x->g[i], MSIM_NR_FILE_PAGES, v);
		msim_mod_memcg_state(x->g[i], MSIM_NR_SLAB_RECLAIMABLE_B, v * 1000);
		msim_count_memcg_events(x->g[i], MSIM_PGFAULT, v);
	}
}

static void conservation(void **st)
{
	struct msim *m = host(4, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *a = unit_mkdir(root, "a"), *b = unit_mkdir(root, "b");
	struct msim_memcg *a1 = unit_mkdir(a, "a1"), *a2 = unit_mkdir(a, "a2");
	struct msim_memcg *a11 = unit_mkdir(a1, "a11");
	struct mix x[4];
	/* sum over CPUs of (cpu+1) is 10 */
	long self[6];

	for (unsigned int c = 0; c < 4; c++) {
		struct msim_memcg *g[6] = { root, a, b, a1, a2, a11 };

		for (int i = 0; i < 6; i++)
			x[c].g[i] = g[i];
		x[c].cpu = c;
		on_cpu(m, c, mix_fn, &x[c]);
	}
	for (int i = 0; i < 6; i++)
		self[i] = (i + 1) * 10;
	msim_css_rstat_flush(root);
	/* locals */
	assert_int_equal(msim_memcg_page_state_local(root, MSIM_NR_FILE_PAGES), self[0]);
	assert_int_equal(msim_memcg_page_state_local(a11, MSIM_NR_FILE_PAGES), self[5]);
	/* hierarchical: a11 = 60, a1 = 40 + 60, a = 20 + 100 + 50, root = all */
	assert_int_equal(msim_memcg_page_state(a11, MSIM_NR_FILE_PAGES), 60);
	assert_int_equal(msim_memcg_page_state(a1, MSIM_NR_FILE_PAGES), 100);
	assert_int_equal(msim_memcg_page_state(a, MSIM_NR_FILE_PAGES), 170);
	assert_int_equal(msim_memcg_page_state(b, MSIM_NR_FILE_PAGES), 30);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 210);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_SLAB_RECLAIMABLE_B), 210000);
	assert_int_equal(msim_memcg_page_state_output(a, MSIM_NR_FILE_PAGES), 170 * 4096);
	assert_int_equal(msim_memcg_events(root, MSIM_PGFAULT), 210);
	assert_int_equal(msim_memcg_events_local(a2, MSIM_PGFAULT), 50);
	assert_int_equal(msim_memcg_stat_raw(root, MSIM_STAT_PENDING, MSIM_NR_FILE_PAGES), 0);
	assert_int_equal(msim_memcg_unflushed(root), 0);
	for (unsigned int c = 0; c < 4; c++)
		assert_false(msim_memcg_rstat_queued(a11, c));
	msim_destroy(m);
}

static void subtree_flush(void **st)
{
	struct msim *m = host(2, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m);
	struct msim_memcg *p = unit_mkdir(root, "p"), *c = unit_mkdir(p, "c");
	struct upd u = { c, MSIM_NR_ANON_MAPPED, 5, 3 };

	on_cpu(m, 1, upd_fn, &u);
	msim_css_rstat_flush(c);
	assert_int_equal(msim_memcg_page_state(c, MSIM_NR_ANON_MAPPED), 15);
	assert_int_equal(msim_memcg_page_state(p, MSIM_NR_ANON_MAPPED), 0);   /* stale (R8) */
	assert_int_equal(msim_memcg_stat_raw(p, MSIM_STAT_PENDING, MSIM_NR_ANON_MAPPED), 15);
	assert_true(msim_memcg_rstat_queued(p, 1));                     /* still linked */
	assert_int_equal(msim_memcg_unflushed(p), 15);
	assert_int_equal(msim_memcg_unflushed(c), 0);
	msim_css_rstat_flush(root);
	assert_int_equal(msim_memcg_page_state(p, MSIM_NR_ANON_MAPPED), 15);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_ANON_MAPPED), 15);
	assert_int_equal(msim_memcg_page_state_local(p, MSIM_NR_ANON_MAPPED), 0);
	msim_destroy(m);
}

static void lruvec_and_node(void **st)
{
	struct msim *m = host(2, 2, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a = unit_mkdir(root, "a");
	struct msim_lruvec *l0 = msim_mem_cgroup_lruvec(m, a, 0);
	struct msim_lruvec *l1 = msim_mem_cgroup_lruvec(m, a, 1);

	assert_ptr_equal(msim_lruvec_memcg(l1), a);
	assert_int_equal(msim_lruvec_nid(l1), 1);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_NR_INACTIVE_FILE, 10), 0);
	assert_int_equal(msim_mod_lruvec_state(l1, MSIM_NR_INACTIVE_FILE, 7), 0);
	/* untracked page: node only */
	assert_int_equal(msim_lruvec_stat_mod_page(m, NULL, 1, MSIM_NR_INACTIVE_FILE, 100), 0);
	/* memcg-level only: no node counter, no lruvec */
	assert_int_equal(msim_mod_memcg_lruvec_state(l0, MSIM_NR_ACTIVE_FILE, 3), 0);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_INACTIVE_FILE), 10);
	assert_int_equal(msim_node_page_state(m, 1, MSIM_NR_INACTIVE_FILE), 107);
	assert_int_equal(msim_node_page_state(m, 0, MSIM_NR_ACTIVE_FILE), 0);
	assert_int_equal(msim_lruvec_page_state(l0, MSIM_NR_INACTIVE_FILE), 0); /* unflushed */
	msim_css_rstat_flush(root);
	assert_int_equal(msim_lruvec_page_state(l0, MSIM_NR_INACTIVE_FILE), 10);
	assert_int_equal(msim_lruvec_page_state_local(l1, MSIM_NR_INACTIVE_FILE), 7);
	assert_int_equal(msim_lruvec_page_state(l0, MSIM_NR_ACTIVE_FILE), 3);
	assert_int_equal(msim_memcg_page_state(a, MSIM_NR_INACTIVE_FILE), 17);
	assert_int_equal(msim_lruvec_page_state(msim_mem_cgroup_lruvec(m, root, 1),
						MSIM_NR_INACTIVE_FILE), 7);
	assert_int_equal(msim_lruvec_page_state(msim_node_lruvec(m, 1),
						MSIM_NR_INACTIVE_FILE), 107);
	/* The kernel's mem_cgroup_lruvec(NULL, pgdat) is the root's lruvec. */
	assert_ptr_equal(msim_mem_cgroup_lruvec(m, NULL, 1), msim_mem_cgroup_lruvec(m, root, 1));
	assert_ptr_not_equal(msim_mem_cgroup_lruvec(m, NULL, 1), msim_node_lruvec(m, 1));
	msim_destroy(m);
}

static void root_lruvec_node(void **st)
{
	struct msim *m = host(2, 1, "root-lruvec-read=node", MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a = unit_mkdir(root, "a");
	struct msim_lruvec *la = msim_mem_cgroup_lruvec(m, a, 0);
	struct msim_lruvec *lr = msim_mem_cgroup_lruvec(m, root, 0);

	msim_mod_lruvec_state(la, MSIM_NR_FILE_PAGES, 9);
	msim_mod_lruvec_state(la, MSIM_NR_SLAB_RECLAIMABLE_B, 4096);
	/* not flushed: the node counter answers for root, except excluded slab */
	assert_int_equal(msim_lruvec_page_state(lr, MSIM_NR_FILE_PAGES), 9);
	assert_int_equal(msim_lruvec_page_state(lr, MSIM_NR_SLAB_RECLAIMABLE_B), 0);
	assert_int_equal(msim_lruvec_page_state(la, MSIM_NR_FILE_PAGES), 0);
	msim_css_rstat_flush(root);
	assert_int_equal(msim_lruvec_page_state(lr, MSIM_NR_SLAB_RECLAIMABLE_B), 4096);
	msim_destroy(m);
}

static void clamp(void **st)
{
	struct msim *m = host(2, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a = unit_mkdir(root, "a");

	msim_mod_memcg_state(a, MSIM_NR_SHMEM, -5);
	msim_css_rstat_flush(root);
	assert_int_equal(msim_memcg_stat_raw(a, MSIM_STAT_STATE, MSIM_NR_SHMEM), -5);
	assert_int_equal(msim_memcg_page_state(a, MSIM_NR_SHMEM), 0);
	assert_int_equal(msim_memcg_page_state_local(a, MSIM_NR_SHMEM), 0);
	msim_destroy(m);
}

static void events(void **st)
{
	struct msim *m = host(2, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a = unit_mkdir(root, "a");

	assert_int_equal(msim_count_memcg_events(a, MSIM_ZSWPOUT, 70), 0);
	assert_int_equal(msim_memcg_stats_updates(a), 70);
	assert_true(msim_mem_cgroup_flush_stats_forced(a));
	assert_int_equal(msim_memcg_events(a, MSIM_ZSWPOUT), 70);
	assert_int_equal(msim_memcg_events(root, MSIM_ZSWPOUT), 0); /* subtree flush */
	assert_int_equal(msim_memcg_event_raw(root, MSIM_STAT_PENDING, MSIM_ZSWPOUT), 70);
	msim_destroy(m);
}

static void ratelimited(void **st)
{
	struct msim *m = host(1, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *a = unit_mkdir(root, "a");
	struct msim_rstat_counters c;

	msim_rstat_periodic_flush_enable(m, false);
	msim_mod_memcg_state(a, MSIM_NR_FILE_PAGES, 100);  /* 100 > 64: flushable */
	msim_clock_advance(m, 4000);                         /* now == last + 4 s */
	assert_false(msim_mem_cgroup_flush_stats_ratelimited(a));
	msim_clock_advance(m, 1);                            /* now > last + 4 s */
	assert_true(msim_mem_cgroup_flush_stats_ratelimited(NULL));
	assert_int_equal(msim_rstat_flush_last_time(m), 4001);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 100);
	/* the periodic flush: forced, every 2 s, publishes flush_last_time */
	msim_rstat_periodic_flush_enable(m, true);
	msim_mod_memcg_state(a, MSIM_NR_FILE_PAGES, 1);
	msim_clock_advance(m, 2000);
	assert_int_equal(msim_rstat_flush_last_time(m), 6001);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 101);
	msim_rstat_counters(m, &c);
	assert_int_equal(c.periodic_flushes, 1);
	assert_int_equal(c.ratelimit_skipped, 1);
	msim_destroy(m);
}

static void rmdir_release(void **st)
{
	struct msim *m = host(2, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *p = unit_mkdir(root, "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct upd u = { c, MSIM_NR_FILE_PAGES, 11, 2 };
	struct msim_memcg_counts n;

	on_cpu(m, 1, upd_fn, &u);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_memcg_drain(m);
	msim_memcg_counts(m, &n);
	assert_int_equal(n.freed_total, 1);
	/* v2, mainline: no local reparenting; the release/exit flush pushed the
	 * deltas into p's pending, a flush of p folds them */
	msim_css_rstat_flush(root);
	assert_int_equal(msim_memcg_page_state(p, MSIM_NR_FILE_PAGES), 22);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 22);
	assert_int_equal(msim_memcg_page_state_local(p, MSIM_NR_FILE_PAGES), 0);
	msim_destroy(m);
}

static void dying_redirect_v1(void **st)
{
	struct msim *m = host(2, 1, NULL, MSIM_CGROUP_V1);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *p = unit_mkdir(root, "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct msim_rstat_counters k;

	assert_true(msim_rstat_dying_redirect_active(m));
	msim_mod_memcg_state(c, MSIM_NR_FILE_PAGES, 30);
	msim_css_get(c);                        /* a stashed pointer keeps it alive */
	assert_int_equal(msim_memcg_rmdir(c), 0);
	/* offline moved c's local 30 to p */
	assert_int_equal(msim_memcg_page_state_local(p, MSIM_NR_FILE_PAGES), 30);
	assert_int_equal(msim_memcg_page_state_local(c, MSIM_NR_FILE_PAGES), 0);
	msim_mod_memcg_state(c, MSIM_NR_FILE_PAGES, 5);   /* redirected to p */
	msim_css_rstat_flush(root);
	assert_int_equal(msim_memcg_page_state_local(p, MSIM_NR_FILE_PAGES), 35);
	assert_int_equal(msim_memcg_page_state_local(c, MSIM_NR_FILE_PAGES), 0);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 35);
	msim_rstat_counters(m, &k);
	assert_int_equal(k.redirects, 1);
	assert_int_equal(k.reparents, 1);
	msim_css_put(c);
	msim_memcg_drain(m);
	msim_css_rstat_flush(root);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 35);
	msim_destroy(m);
}

static void flush_root_fn(void *arg)
{
	msim_css_rstat_flush(arg);
}

static void deferred_exit(void **st)
{
	struct msim *m = host(2, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m), *p = unit_mkdir(root, "p");
	struct msim_memcg *c = unit_mkdir(p, "c");
	struct upd u = { c, MSIM_NR_FILE_PAGES, 7, 3 };
	struct msim_memcg_counts n;
	struct msim_task *f;

	on_cpu(m, 1, upd_fn, &u);
	msim_mod_memcg_state(p, MSIM_NR_FILE_PAGES, 2);
	/* a flusher parked inside its CPU 0 pass, holding the rstat lock */
	f = msim_task_create(m, "flusher", 0, flush_root_fn, root);
	assert_non_null(f);
	assert_int_equal(msim_run_until(m, f, "rstat.flush.memcg", 1), 0);
	assert_int_equal(msim_memcg_rmdir(c), 0);
	msim_memcg_drain(m);
	msim_memcg_counts(m, &n);
	assert_int_equal(n.freed_total, 1);     /* the memcg is gone, its stats wait */
	uint64_t vmstats3 = msim_kmem_owner_bytes(m, "memcg_vmstats");
	assert_int_equal(msim_run_task(m, f), 0);
	msim_css_rstat_flush(root);             /* runs the deferred exit first */
	assert_int_equal(msim_kmem_owner_bytes(m, "memcg_vmstats") * 3, vmstats3 * 2);
	msim_css_rstat_flush(root);
	assert_int_equal(msim_memcg_page_state(p, MSIM_NR_FILE_PAGES), 23);
	assert_int_equal(msim_memcg_page_state(root, MSIM_NR_FILE_PAGES), 23);
	assert_int_equal(msim_memcg_page_state_local(p, MSIM_NR_FILE_PAGES), 2);
	msim_destroy(m);
}

static void late_attach(void **st)
{
	struct msim_config cfg;
	struct msim *m;
	struct msim_memcg *a, *b;

	msim_config_init(&cfg);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_memcg_create(msim_root_mem_cgroup(m), "a", &a), 0);
	assert_int_equal(msim_memcg_create(a, "b", &b), 0);
	assert_false(msim_rstat_attached(m));
	/* a write is no attach: without rstat it fails and the host stays without */
	assert_int_equal(msim_mod_memcg_state(b, MSIM_NR_SHMEM, 4), -EINVAL);
	assert_false(msim_rstat_attached(m));
	assert_int_equal(msim_memcg_page_state(b, MSIM_NR_SHMEM), 0);
	assert_false(msim_mem_cgroup_flush_stats(NULL));
	assert_int_equal(msim_rstat_init(m, NULL), 0);    /* by hand: a and b adopted */
	assert_true(msim_rstat_attached(m));
	assert_int_equal(msim_mod_memcg_state(b, MSIM_NR_SHMEM, 4), 0);
	msim_css_rstat_flush(NULL);
	assert_int_equal(msim_memcg_page_state(a, MSIM_NR_SHMEM), 4);
	assert_int_equal(msim_memcg_page_state(msim_root_mem_cgroup(m), MSIM_NR_SHMEM), 4);
	/* adopted memcgs never saw the hook set: rmdir and free leave their data
	 * (and what it folded) in place until the host goes */
	assert_int_equal(msim_memcg_rmdir(b), 0);
	msim_memcg_drain(m);
	msim_css_rstat_flush(NULL);
	assert_int_equal(msim_memcg_page_state(a, MSIM_NR_SHMEM), 4);
	msim_destroy(m);
}

static void params(void **st)
{
	struct msim *m = host(4, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_rstat_params p;

	msim_rstat_params_init(&p);
	p.charge_batch = 8;
	p.threshold_per_cpu = 16;
	assert_int_equal(msim_rstat_init(m, &p), 0);        /* re-tune an attached host */
	assert_int_equal(msim_memcg_flush_threshold(m), 64);
	for (int i = 0; i < 7; i++)
		msim_mod_memcg_state(a, MSIM_NR_FILE_PAGES, 1);
	assert_int_equal(msim_memcg_stats_updates(a), 0);
	msim_mod_memcg_state(a, MSIM_NR_FILE_PAGES, 1);
	assert_int_equal(msim_memcg_stats_updates(a), 8);
	p.charge_batch = 0;
	assert_int_equal(msim_rstat_init(m, &p), -EINVAL);
	assert_int_equal(msim_memcg_flush_threshold(m), 64);  /* unchanged */
	/* the old ad hoc store buffer on an sc host: refused, not silently ignored */
	p.charge_batch = 64;
	p.store_buffer = true;
	assert_int_equal(msim_rstat_init(m, &p), -EINVAL);
	msim_destroy(m);
}

static void bad_input(void **st)
{
	struct msim *m = host(2, 1, NULL, MSIM_CGROUP_V2);
	struct msim_memcg *root = msim_root_mem_cgroup(m);

	assert_int_equal(msim_mod_memcg_state(root, MSIM_MEMCG_NR_STAT, 1), -EINVAL);
	assert_int_equal(msim_mod_memcg_state(NULL, MSIM_NR_FILE_PAGES, 1), -EINVAL);
	assert_int_equal(msim_mod_lruvec_state(msim_mem_cgroup_lruvec(m, root, 0),
					       MSIM_MEMCG_SOCK, 1), -EINVAL);
	assert_null(msim_mem_cgroup_lruvec(m, root, 1));
	assert_int_equal(msim_mod_node_page_state(m, 3, MSIM_NR_FILE_PAGES, 1), -EINVAL);
	assert_int_equal(msim_count_memcg_events(root, MSIM_NR_MEMCG_EVENTS, 1), -EINVAL);
	assert_int_equal(msim_memcg_stats_updates(root), 0);
	assert_int_equal(msim_memcg_unflushed(root), 0);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units),
		cmocka_unit_test(batching),
		cmocka_unit_test(threshold),
		cmocka_unit_test(conservation),
		cmocka_unit_test(subtree_flush),
		cmocka_unit_test(lruvec_and_node),
		cmocka_unit_test(root_lruvec_node),
		cmocka_unit_test(clamp),
		cmocka_unit_test(events),
		cmocka_unit_test(ratelimited),
		cmocka_unit_test(rmdir_release),
		cmocka_unit_test(dying_redirect_v1),
		cmocka_unit_test(deferred_exit),
		cmocka_unit_test(late_attach),
		cmocka_unit_test(params),
		cmocka_unit_test(bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
