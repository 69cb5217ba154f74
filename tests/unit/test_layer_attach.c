/* SPDX-License-Identifier: MIT */
/*
 * The layers as subsystems (subsys.h): memcg, rstat, charge, shrinker, list_lru.
 *
 *   enabled_layers_attach_at_create  the configuration's layers are attached when
 *                                    msim_create() returns, before any stat write,
 *                                    each after the ones it needs
 *   default_host_has_memcg_only      a default host has memcg and nothing above it;
 *                                    writes, charges and list_lru inits fail and
 *                                    attach nothing
 *   disabled_dependency_is_refused   rstat, charge or shrinker on a host whose
 *                                    memcg is disabled: msim_create() fails, saying so
 *   rstat_init_by_hand               msim_rstat_init() attaches with its tunables
 *                                    (threshold, first periodic flush) or re-tunes;
 *                                    bad tunables attach nothing
 *   charge_and_shrinker_init_by_hand msim_charge_init() / msim_shrinker_init()
 *                                    attach (shrinker: list_lru too, -EBUSY with
 *                                    children), are no-ops when attached, and refuse
 *                                    a call from a task
 *   destroy_detaches_in_reverse      a probe that needs every layer detaches first
 *                                    and finds them all; a probe attached before
 *                                    them detaches last and finds none, and no
 *                                    kernel memory left
 */
#include <errno.h>
#include <string.h>

#include "unit_util.h"

#include <memcgsim/introspect.h>

static const char *const layer_names[] = { "memcg", "rstat", "charge", "shrinker", "list_lru" };
#define NR_LAYERS (sizeof(layer_names) / sizeof(layer_names[0]))
/* The descriptions are the library's (static const): found by name. */
#define layers(i) msim_subsys_find(layer_names[i])

static struct msim_config layers_config(bool rstat, bool charge, bool shrinker)
{
	struct msim_config cfg = unit_config(4, 2);

	cfg.rstat = rstat;
	cfg.charge = charge;
	cfg.shrinker = shrinker;
	return cfg;
}

static void enabled_layers_attach_at_create(void **st)
{
	struct msim_config cfg = layers_config(true, true, true);
	struct msim *m = unit_host_cfg(&cfg);
	struct msim_memcg_counts cnt;
	struct msim_memcg *a;

	(void)st;
	for (size_t i = 0; i < NR_LAYERS; i++)
		assert_true(msim_subsys_attached(m, layers(i)));
	assert_true(msim_rstat_attached(m) && msim_charge_initialized(m));
	/* Attaching made the root and gave it stats, per-CPU rstat memory, a stock. */
	msim_memcg_counts(m, &cnt);
	assert_int_equal(cnt.online, 1);
	assert_int_equal(msim_memcg_flush_threshold(m), 64 * 4);
	assert_true(msim_kmem_owner_percpu_bytes(m, "rstat_llist_head") > 0);
	assert_true(msim_kmem_owner_percpu_bytes(m, "memcg_stock") > 0);
	/* Each hook set registered after what it needs: shrinker_info before list_lru. */
	assert_true(msim_memcg_hooks_slot(m, "shrinker_info") >= 0);
	assert_true(msim_memcg_hooks_slot(m, "shrinker_info") <
		    msim_memcg_hooks_slot(m, "list_lru"));
	assert_true(msim_memcg_hooks_slot(m, "rstat") >= 0);
	assert_true(msim_memcg_hooks_slot(m, "charge") >= 0);
	/* The layers work from the first call, and the calls attach nothing new. */
	a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	assert_int_equal(msim_mod_memcg_state(a, MSIM_NR_SHMEM, 3), 0);
	assert_true(msim_mem_cgroup_flush_stats_forced(NULL));
	assert_int_equal(msim_memcg_page_state(msim_root_mem_cgroup(m), MSIM_NR_SHMEM), 3);
	assert_int_equal(msim_try_charge(a, 0, 1), 0);
	assert_int_equal(msim_shrinker_layout(m),
			 msim_variant_value(&cfg.variants, "shrinker-info"));
	msim_destroy(m);
}

static void default_host_has_memcg_only(void **st)
{
	struct msim_config cfg = unit_config(2, 1);
	struct msim *m = unit_host_cfg(&cfg);
	struct msim_list_lru lru;
	struct msim_memcg *a;

	(void)st;
	memset(&lru, 0, sizeof(lru));
	assert_true(msim_subsys_attached(m, msim_subsys_find("memcg")));
	for (size_t i = 1; i < NR_LAYERS; i++)
		assert_false(msim_subsys_attached(m, layers(i)));
	a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	assert_int_equal(msim_mod_memcg_state(a, MSIM_NR_SHMEM, 1), -EINVAL);
	assert_int_equal(msim_count_memcg_events(a, MSIM_PGFAULT, 1), -EINVAL);
	assert_null(msim_mem_cgroup_lruvec(m, a, 0));
	assert_false(msim_mem_cgroup_flush_stats(a));
	assert_int_equal(msim_memcg_flush_threshold(m), -ENODEV);
	assert_int_equal(msim_try_charge(a, 0, 1), -EINVAL);
	assert_null(msim_memcg_page_counter(a));
	assert_int_equal(msim_list_lru_init(m, &lru, true, NULL), -EINVAL);
	/* None of those calls attached anything. */
	for (size_t i = 1; i < NR_LAYERS; i++)
		assert_false(msim_subsys_attached(m, layers(i)));
	msim_destroy(m);
}

static void disabled_dependency_is_refused(void **st)
{
	struct msim_config cfg;
	struct msim *m = NULL;
	char err[256];

	(void)st;
	for (int layer = 0; layer < 3; layer++) {
		cfg = layers_config(layer == 0, layer == 1, layer == 2);
		cfg.memcg_disabled = true;
		err[0] = '\0';
		assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), -EINVAL);
		assert_null(m);
		assert_non_null(strstr(err, "depends on memcg, which this configuration does not "
					    "enable"));
	}
	/* Without a layer that needs it, a memcg-less host is fine: no root, no memcg. */
	cfg = layers_config(false, false, false);
	cfg.memcg_disabled = true;
	m = unit_host_cfg(&cfg);
	assert_false(msim_subsys_attached(m, msim_subsys_find("memcg")));
	assert_null(msim_root_mem_cgroup(m));
	msim_destroy(m);
}

static void rstat_init_by_hand(void **st)
{
	struct msim_config cfg = unit_config(4, 1);
	struct msim *m = unit_host_cfg(&cfg);
	struct msim_rstat_params p;
	struct msim_rstat_counters c;

	(void)st;
	msim_rstat_params_init(&p);
	p.charge_batch = 0;
	assert_int_equal(msim_rstat_init(m, &p), -EINVAL);  /* refused before attaching */
	assert_false(msim_rstat_attached(m));
	msim_rstat_params_init(&p);
	p.threshold_per_cpu = 16;
	p.flush_time = 500;
	assert_int_equal(msim_rstat_init(m, &p), 0);
	assert_true(msim_rstat_attached(m));
	assert_int_equal(msim_memcg_flush_threshold(m), 16 * 4);
	/* The first periodic flush comes at p's flush_time, not at the default 2 s. */
	msim_clock_advance(m, 499);
	msim_rstat_counters(m, &c);
	assert_int_equal(c.periodic_flushes, 0);
	msim_clock_advance(m, 1);
	msim_rstat_counters(m, &c);
	assert_int_equal(c.periodic_flushes, 1);
	/* Attached: a second call re-tunes (the defaults again) and stops the flush. */
	msim_rstat_params_init(&p);
	p.periodic_flush = false;
	assert_int_equal(msim_rstat_init(m, &p), 0);
	assert_int_equal(msim_memcg_flush_threshold(m), 64 * 4);
	msim_clock_advance(m, 10000);
	msim_rstat_counters(m, &c);
	assert_int_equal(c.periodic_flushes, 1);
	msim_destroy(m);
}

struct task_init {
	struct msim *m;
	int ret;
};

static void charge_init_task(void *arg)
{
	struct task_init *ti = arg;

	ti->ret = msim_charge_init(ti->m);
}

static void charge_and_shrinker_init_by_hand(void **st)
{
	struct msim_config cfg = unit_config(2, 1);
	struct msim *m = unit_host_cfg(&cfg);
	struct task_init ti = { .m = m, .ret = 1 };

	(void)st;
	/* From a task: refused (attaching belongs to the driver), nothing attached. */
	assert_non_null(msim_task_create(m, "init", 0, charge_init_task, &ti));
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(ti.ret, -EINVAL);
	assert_false(msim_charge_initialized(m));
	assert_int_equal(msim_charge_init(m), 0);
	assert_int_equal(msim_charge_init(m), 0);             /* attached: no-op */
	assert_true(msim_charge_initialized(m));
	/* The shrinker by hand brings list_lru; children made before: -EBUSY, attached. */
	unit_mkdir(msim_root_mem_cgroup(m), "early");
	assert_int_equal(msim_shrinker_init(m), -EBUSY);
	assert_true(msim_subsys_attached(m, msim_subsys_find("shrinker")));
	assert_true(msim_subsys_attached(m, msim_subsys_find("list_lru")));
	assert_int_equal(msim_shrinker_init(m), 0);           /* attached: no-op */
	assert_false(msim_rstat_attached(m));
	msim_destroy(m);
}

/* ---- detach order, seen by two probes ---- */

struct probe_seen {
	int layers_attached;      /* layers still attached when the probe detached */
	int fini_calls;
	struct msim_kmem_totals kmem;
};

static struct probe_seen first_seen, last_seen;

static void probe_look(struct msim *m, struct probe_seen *seen)
{
	seen->fini_calls++;
	seen->layers_attached = 0;
	for (size_t i = 0; i < NR_LAYERS; i++)
		seen->layers_attached += msim_subsys_attached(m, layers(i));
	msim_rcu_barrier(); /* kfree_rcu'd memory leaves the totals */
	msim_kmem_totals(m, &seen->kmem);
}

static void probe_top_fini(struct msim *m, void *state)
{
	(void)state;
	probe_look(m, &first_seen);
}

static void probe_bottom_fini(struct msim *m, void *state)
{
	(void)state;
	probe_look(m, &last_seen);
}

static const char *const every_layer[] = { "memcg", "rstat", "charge", "shrinker",
					   "list_lru", NULL };

/* Needs every layer: attaches after them all, detaches before them all. */
static const struct msim_subsys probe_top = {
	.name = "t.probe-top", .depends = every_layer, .host_fini = probe_top_fini,
	.id = &(unsigned int){ 0 },
};
/* Needs nothing and sorts first by name: attaches before every layer. */
static const struct msim_subsys probe_bottom = {
	.name = "a.probe-bottom", .host_fini = probe_bottom_fini, .id = &(unsigned int){ 0 },
};

static int probes_register(void **st)
{
	(void)st;
	memset(&first_seen, 0, sizeof(first_seen));
	memset(&last_seen, 0, sizeof(last_seen));
	if (msim_subsys_register(&probe_top) || msim_subsys_register(&probe_bottom))
		return -1;
	return 0;
}

static int probes_unregister(void **st)
{
	(void)st;
	msim_subsys_unregister(&probe_top);
	msim_subsys_unregister(&probe_bottom);
	return 0;
}

static void destroy_detaches_in_reverse(void **st)
{
	struct msim_config cfg = layers_config(true, true, true);
	struct msim *m = unit_host_cfg(&cfg);
	struct msim_memcg *a;

	(void)st;
	assert_true(msim_subsys_attached(m, &probe_top));
	assert_true(msim_subsys_attached(m, &probe_bottom));
	a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	unit_mkdir(a, "b");
	assert_int_equal(msim_mod_memcg_state(a, MSIM_NR_FILE_PAGES, 5), 0);
	msim_destroy(m);
	assert_int_equal(first_seen.fini_calls, 1);
	assert_int_equal(first_seen.layers_attached, (int)NR_LAYERS);
	assert_true(first_seen.kmem.percpu_bytes > 0 && first_seen.kmem.cache_bytes > 0);
	assert_int_equal(last_seen.fini_calls, 1);
	assert_int_equal(last_seen.layers_attached, 0);
	assert_int_equal(last_seen.kmem.kmalloc_bytes, 0);
	assert_int_equal(last_seen.kmem.cache_bytes, 0);
	assert_int_equal(last_seen.kmem.percpu_bytes, 0);
	assert_int_equal(last_seen.kmem.rcu_pending_bytes, 0);
	assert_int_equal(last_seen.kmem.allocations, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(enabled_layers_attach_at_create),
		cmocka_unit_test(default_host_has_memcg_only),
		cmocka_unit_test(disabled_dependency_is_refused),
		cmocka_unit_test(rstat_init_by_hand),
		cmocka_unit_test(charge_and_shrinker_init_by_hand),
		cmocka_unit_test_setup_teardown(destroy_detaches_in_reverse, probes_register,
						probes_unregister),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
