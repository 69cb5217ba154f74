/* SPDX-License-Identifier: MIT */
/*
 * test_memory_stat.c - memory.stat and memory.numa_stat text
 * (src/rstat/memory_stat.c; kernel: memcg_stat_format, memory_numa_stat_show,
 * memcg1_stat_format, memcg_numa_stat_show).
 *
 *   v2_keys_in_order     every key of newest mainline, in the kernel's order, no
 *                        "hugetlb" (accounting off), no pgpgin/pgpgout
 *   v2_units             bytes for pages/KiB/byte items, counts for workingset,
 *                        pgscan/pgsteal items and events; "slab" is the sum
 *   v2_hierarchical      a parent shows its child's values
 *   v2_gated_staleness   memory.stat flushes only past the threshold (64 x CPUs):
 *                        below it the text is stale, above it fresh
 *   v2_numa_stat         node items only, per node, output units
 *   root_numa_stat_node  root-lruvec-read=node: root's numa_stat counts untracked
 *                        pages (the node counter) except the excluded items
 *   v1_stat              local keys, hierarchical limits, total_* keys
 *   v1_numa_stat         total/file/anon/unevictable, local and hierarchical_
 *   truncation           snprintf semantics; lookup helper
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/charge.h>
#include <memcgsim/memcgsim.h>
#include <memcgsim/rstat.h>

#include "unit_util.h"

static char text[16384];

static struct msim *host_new(unsigned int cpus, unsigned int nodes, enum msim_cgroup_version v,
			     enum msim_root_lruvec_read rl)
{
	struct msim_config cfg = unit_config(cpus, nodes);
	struct msim *m;

	cfg.cgroup_version = v;
	assert_int_equal(msim_variant_set_value(&cfg.variants, "root-lruvec-read", rl), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_rstat_init(m, NULL), 0);
	assert_int_equal(msim_charge_init(m), 0);
	msim_rstat_periodic_flush_enable(m, false);
	return m;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static uint64_t key(const char *k)
{
	uint64_t v = ~0ULL;

	assert_int_equal(msim_memory_stat_lookup(text, k, &v), 0);
	return v;
}

/* A fixed set of updates on memcg (nodes 0 and, if present, 1). */
static void populate(struct msim *m, struct msim_memcg *memcg)
{
	struct msim_lruvec *l0 = msim_mem_cgroup_lruvec(m, memcg, 0);

	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_NR_ANON_MAPPED, 10), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_NR_INACTIVE_ANON, 10), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_NR_FILE_PAGES, 5), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_NR_SLAB_RECLAIMABLE_B, 1000), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_NR_SLAB_UNRECLAIMABLE_B, 3000), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_NR_KERNEL_STACK_KB, 16), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_WORKINGSET_REFAULT_FILE, 5), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_PGSCAN_KSWAPD, 3), 0);
	assert_int_equal(msim_mod_lruvec_state(l0, MSIM_PGSTEAL_DIRECT, 2), 0);
	assert_int_equal(msim_mod_memcg_state(memcg, MSIM_MEMCG_SOCK, 2), 0);
	assert_int_equal(msim_mod_memcg_state(memcg, MSIM_MEMCG_PERCPU_B, 640), 0);
	assert_int_equal(msim_count_memcg_events(memcg, MSIM_PGFAULT, 7), 0);
	if (msim_nr_nodes(m) > 1)
		assert_int_equal(msim_mod_lruvec_state(msim_mem_cgroup_lruvec(m, memcg, 1),
						       MSIM_NR_ANON_MAPPED, 3), 0);
}

static const char *const v2_keys[] = {
	"anon", "file", "kernel", "kernel_stack", "pagetables", "sec_pagetables", "percpu",
	"sock", "vmalloc", "shmem", "zswap", "zswapped", "zswap_incomp", "file_mapped",
	"file_dirty", "file_writeback", "swapcached", "anon_thp", "file_thp", "shmem_thp",
	"inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable",
	"slab_reclaimable", "slab_unreclaimable", "slab", "workingset_refault_anon",
	"workingset_refault_file", "workingset_activate_anon", "workingset_activate_file",
	"workingset_restore_anon", "workingset_restore_file", "workingset_nodereclaim",
	"pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged", "pgdemote_proactive",
	"pgsteal_kswapd", "pgsteal_direct", "pgsteal_khugepaged", "pgsteal_proactive",
	"pgscan_kswapd", "pgscan_direct", "pgscan_khugepaged", "pgscan_proactive", "pgrefill",
	"pgpromote_success", "pgscan", "pgsteal", "pswpin", "pswpout", "pgfault", "pgmajfault",
	"pgactivate", "pgdeactivate", "pglazyfree", "pglazyfreed", "swpin_zero", "swpout_zero",
	"zswpin", "zswpout", "zswpwb", "thp_fault_alloc", "thp_collapse_alloc", "thp_swpout",
	"thp_swpout_fallback", NULL,
};

static void v2_keys_in_order(void **state)
{
	struct msim *m = host_new(4, 1, MSIM_CGROUP_V2, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	char *line, *save = NULL;
	size_t i = 0;
	int len;

	(void)state;
	len = msim_memory_stat_show(a, text, sizeof(text));
	assert_true(len > 0 && (size_t)len < sizeof(text));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char *sp = strchr(line, ' ');

		assert_non_null(sp);
		*sp = '\0';
		assert_non_null(v2_keys[i]);
		assert_string_equal(line, v2_keys[i]);
		assert_string_equal(sp + 1, "0");
	}
	assert_null(v2_keys[i]);
	msim_destroy(m);
}

static void check_populated_v2(void)
{
	assert_int_equal(key("anon"), 10 * 4096);
	assert_int_equal(key("file"), 5 * 4096);
	assert_int_equal(key("inactive_anon"), 10 * 4096);
	assert_int_equal(key("slab_reclaimable"), 1000);
	assert_int_equal(key("slab_unreclaimable"), 3000);
	assert_int_equal(key("slab"), 4000);
	assert_int_equal(key("kernel_stack"), 16384);
	assert_int_equal(key("workingset_refault_file"), 5);
	assert_int_equal(key("pgscan_kswapd"), 3);
	assert_int_equal(key("pgsteal_direct"), 2);
	assert_int_equal(key("pgscan"), 3);
	assert_int_equal(key("pgsteal"), 2);
	assert_int_equal(key("sock"), 2 * 4096);
	assert_int_equal(key("percpu"), 640);
	assert_int_equal(key("pgfault"), 7);
	assert_int_equal(key("active_anon"), 0);
}

static void v2_units(void **state)
{
	struct msim *m = host_new(4, 1, MSIM_CGROUP_V2, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	uint64_t v;

	(void)state;
	populate(m, a);
	msim_mem_cgroup_flush_stats_forced(a);
	msim_memory_stat_show(a, text, sizeof(text));
	check_populated_v2();
	assert_int_equal(msim_memory_stat_lookup(text, "hugetlb", &v), -ENOENT);
	assert_int_equal(msim_memory_stat_lookup(text, "pgpgin", &v), -ENOENT);
	msim_destroy(m);
}

static void v2_hierarchical(void **state)
{
	struct msim *m = host_new(4, 1, MSIM_CGROUP_V2, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");

	(void)state;
	populate(m, c);
	/* A flush of p's subtree folds c into p (c's own flush alone would not: R8). */
	msim_mem_cgroup_flush_stats_forced(p);
	msim_memory_stat_show(p, text, sizeof(text));
	check_populated_v2();
	msim_destroy(m);
}

static void v2_gated_staleness(void **state)
{
	struct msim *m = host_new(4, 1, MSIM_CGROUP_V2, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	struct msim_lruvec *l = msim_mem_cgroup_lruvec(m, a, 0);

	(void)state;
	assert_int_equal(msim_memcg_flush_threshold(m), 256);
	/* 310 one-page updates push 4 batches: atomic 256, not > 256: no flush. */
	for (int i = 0; i < 310; i++)
		msim_mod_lruvec_state(l, MSIM_NR_ANON_MAPPED, 1);
	assert_int_equal(msim_memcg_stats_updates(a), 256);
	msim_memory_stat_show(a, text, sizeof(text));
	assert_int_equal(key("anon"), 0);
	/* 20 more: a 5th batch, atomic 320 > 256: memory.stat's own flush runs. */
	for (int i = 0; i < 20; i++)
		msim_mod_lruvec_state(l, MSIM_NR_ANON_MAPPED, 1);
	msim_memory_stat_show(a, text, sizeof(text));
	assert_int_equal(key("anon"), 330 * 4096);
	msim_destroy(m);
}

static void v2_numa_stat(void **state)
{
	struct msim *m = host_new(4, 2, MSIM_CGROUP_V2, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	int len;

	(void)state;
	populate(m, a);
	msim_mem_cgroup_flush_stats_forced(a);
	len = msim_memory_numa_stat_show(a, text, sizeof(text));
	assert_true(len > 0);
	assert_true(starts_with(text, "anon N0=40960 N1=12288\nfile N0=20480 N1=0\n"));
	assert_non_null(strstr(text, "\nkernel_stack N0=16384 N1=0\n"));
	assert_non_null(strstr(text, "\nslab_unreclaimable N0=3000 N1=0\n"));
	assert_non_null(strstr(text, "\nworkingset_refault_file N0=5 N1=0\n"));
	assert_non_null(strstr(text, "\ninactive_anon N0=40960 N1=0\n"));
	/* memcg-only items have no per-node line. */
	assert_null(strstr(text, "\nsock "));
	assert_null(strstr(text, "\npercpu "));
	assert_null(strstr(text, "\nkernel "));
	assert_null(strstr(text, "\nslab "));
	msim_destroy(m);
}

/* Root's numa_stat N0 for anon and slab_unreclaimable under one variant. */
static void root_numa(enum msim_root_lruvec_read rl, const char *anon_line, const char *slab_line)
{
	struct msim *m = host_new(4, 1, MSIM_CGROUP_V2, rl);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");

	populate(m, a);
	/* Untracked memory: the node counters only (no memcg owns it). */
	assert_int_equal(msim_lruvec_stat_mod_page(m, NULL, 0, MSIM_NR_ANON_MAPPED, 7), 0);
	assert_int_equal(msim_lruvec_stat_mod_page(m, NULL, 0, MSIM_NR_SLAB_UNRECLAIMABLE_B, 500), 0);
	msim_mem_cgroup_flush_stats_forced(NULL);
	msim_memory_numa_stat_show(msim_root_mem_cgroup(m), text, sizeof(text));
	assert_non_null(strstr(text, anon_line));
	assert_non_null(strstr(text, slab_line));
	msim_destroy(m);
}

static void root_numa_stat_node(void **state)
{
	(void)state;
	/* mainline: root reads its rstat aggregate (memcg-owned pages only). */
	root_numa(MSIM_ROOT_LRUVEC_READ_RSTAT, "anon N0=40960\n", "slab_unreclaimable N0=3000\n");
	/* thread 002 patch 2: node counter for anon, rstat for the excluded slab. */
	root_numa(MSIM_ROOT_LRUVEC_READ_NODE, "anon N0=69632\n", "slab_unreclaimable N0=3000\n");
}

static void v1_stat(void **state)
{
	struct msim *m = host_new(4, 1, MSIM_CGROUP_V1, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");

	(void)state;
	assert_int_equal(msim_memory_max_write(p, "1G"), 0);
	populate(m, c);
	msim_mem_cgroup_flush_stats_forced(p);
	msim_memory_stat_show(c, text, sizeof(text));
	assert_true(starts_with(text, "cache 20480\nrss 40960\nrss_huge 0\nshmem 0\n"));
	assert_int_equal(key("pgfault"), 7);
	assert_int_equal(key("inactive_anon"), 40960);
	assert_int_equal(key("hierarchical_memory_limit"), 1073741824ULL);
	assert_int_equal(key("hierarchical_memsw_limit"), 9223372036854771712ULL);
	assert_int_equal(key("total_cache"), 20480);
	assert_int_equal(key("total_pgfault"), 7);
	/* p: nothing local, everything in total_*. */
	msim_memory_stat_show(p, text, sizeof(text));
	assert_int_equal(key("rss"), 0);
	assert_int_equal(key("pgfault"), 0);
	assert_int_equal(key("total_rss"), 40960);
	assert_int_equal(key("total_inactive_anon"), 40960);
	assert_int_equal(key("total_pgfault"), 7);
	msim_destroy(m);
}

static void v1_numa_stat(void **state)
{
	struct msim *m = host_new(4, 2, MSIM_CGROUP_V1, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *p = unit_mkdir(msim_root_mem_cgroup(m), "p");
	struct msim_memcg *c = unit_mkdir(p, "c");

	(void)state;
	populate(m, c);
	msim_mem_cgroup_flush_stats_forced(p);
	msim_memory_numa_stat_show(p, text, sizeof(text));
	assert_string_equal(text,
			    "total=0 N0=0 N1=0\nfile=0 N0=0 N1=0\nanon=0 N0=0 N1=0\n"
			    "unevictable=0 N0=0 N1=0\n"
			    "hierarchical_total=10 N0=10 N1=0\nhierarchical_file=0 N0=0 N1=0\n"
			    "hierarchical_anon=10 N0=10 N1=0\nhierarchical_unevictable=0 N0=0 N1=0\n");
	msim_destroy(m);
}

static void truncation(void **state)
{
	struct msim *m = host_new(4, 1, MSIM_CGROUP_V2, MSIM_ROOT_LRUVEC_READ_RSTAT);
	struct msim_memcg *a = unit_mkdir(msim_root_mem_cgroup(m), "a");
	char small[16];
	int full, len;
	uint64_t v;

	(void)state;
	populate(m, a);
	msim_mem_cgroup_flush_stats_forced(a);
	full = msim_memory_stat_show(a, text, sizeof(text));
	len = msim_memory_stat_show(a, small, sizeof(small));
	assert_int_equal(len, full);
	assert_string_equal(small, "anon 40960\nfile");
	assert_int_equal(msim_memory_stat_show(a, NULL, 0), full);
	assert_int_equal(msim_memory_stat_show(NULL, text, sizeof(text)), -EINVAL);
	assert_int_equal(msim_memory_stat_lookup("a 1\nab 2\n", "ab", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(msim_memory_stat_lookup("a 1\n", "b", &v), -ENOENT);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v2_keys_in_order),
		cmocka_unit_test(v2_units),
		cmocka_unit_test(v2_hierarchical),
		cmocka_unit_test(v2_gated_staleness),
		cmocka_unit_test(v2_numa_stat),
		cmocka_unit_test(root_numa_stat_node),
		cmocka_unit_test(v1_stat),
		cmocka_unit_test(v1_numa_stat),
		cmocka_unit_test(truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
