/* SPDX-License-Identifier: MIT */
/*
 * memory_stat.c - memory.stat and memory.numa_stat text (kernel: mm/memcontrol.c
 * memory_stat_format(), memcg_stat_format(), memory_numa_stat_show(); and
 * mm/memcontrol-v1.c memcg1_stat_format(), memcg_numa_stat_show()).
 *
 * Built only on the readers of rstat.h (memcg_page_state*, memcg_events*,
 * lruvec_page_state*) and the page_counter limits of charge.h; it adds no state.
 *
 * Configuration the text corresponds to (docs/charge.md): newest mainline with
 * CONFIG_ZSWAP, CONFIG_SWAP, CONFIG_TRANSPARENT_HUGEPAGE, CONFIG_NUMA_BALANCING,
 * CONFIG_HUGETLB_PAGE and CONFIG_MEMCG_V1 on; hugetlb accounting off (so v2
 * memory.stat has no "hugetlb" line); v1 memsw accounting on (do_memsw_account()),
 * but the model has no memsw counter, so hierarchical_memsw_limit is always "no
 * limit".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/charge.h>
#include <memcgsim/rstat.h>

/* A seq_buf: writes what fits, counts everything (snprintf semantics). */
struct sbuf {
	char *buf;
	size_t len;
	size_t used;
};

static void __attribute__((format(printf, 2, 3))) sbuf_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	size_t room = s->used < s->len ? s->len - s->used : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? s->buf + s->used : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->used += (size_t)n;
}

/* kernel: memory_stats[] (newest order). */
struct memory_stat {
	const char *name;
	enum msim_stat_item idx;
};

static const struct memory_stat memory_stats[] = {
	{ "anon", MSIM_NR_ANON_MAPPED },
	{ "file", MSIM_NR_FILE_PAGES },
	{ "kernel", MSIM_MEMCG_KMEM },
	{ "kernel_stack", MSIM_NR_KERNEL_STACK_KB },
	{ "pagetables", MSIM_NR_PAGETABLE },
	{ "sec_pagetables", MSIM_NR_SECONDARY_PAGETABLE },
	{ "percpu", MSIM_MEMCG_PERCPU_B },
	{ "sock", MSIM_MEMCG_SOCK },
	{ "vmalloc", MSIM_NR_VMALLOC },
	{ "shmem", MSIM_NR_SHMEM },
	{ "zswap", MSIM_MEMCG_ZSWAP_B },
	{ "zswapped", MSIM_MEMCG_ZSWAPPED },
	{ "zswap_incomp", MSIM_MEMCG_ZSWAP_INCOMP },
	{ "file_mapped", MSIM_NR_FILE_MAPPED },
	{ "file_dirty", MSIM_NR_FILE_DIRTY },
	{ "file_writeback", MSIM_NR_WRITEBACK },
	{ "swapcached", MSIM_NR_SWAPCACHE },
	{ "anon_thp", MSIM_NR_ANON_THPS },
	{ "file_thp", MSIM_NR_FILE_THPS },
	{ "shmem_thp", MSIM_NR_SHMEM_THPS },
	{ "inactive_anon", MSIM_NR_INACTIVE_ANON },
	{ "active_anon", MSIM_NR_ACTIVE_ANON },
	{ "inactive_file", MSIM_NR_INACTIVE_FILE },
	{ "active_file", MSIM_NR_ACTIVE_FILE },
	{ "unevictable", MSIM_NR_UNEVICTABLE },
	{ "slab_reclaimable", MSIM_NR_SLAB_RECLAIMABLE_B },
	{ "slab_unreclaimable", MSIM_NR_SLAB_UNRECLAIMABLE_B },
	{ "hugetlb", MSIM_NR_HUGETLB },
	{ "workingset_refault_anon", MSIM_WORKINGSET_REFAULT_ANON },
	{ "workingset_refault_file", MSIM_WORKINGSET_REFAULT_FILE },
	{ "workingset_activate_anon", MSIM_WORKINGSET_ACTIVATE_ANON },
	{ "workingset_activate_file", MSIM_WORKINGSET_ACTIVATE_FILE },
	{ "workingset_restore_anon", MSIM_WORKINGSET_RESTORE_ANON },
	{ "workingset_restore_file", MSIM_WORKINGSET_RESTORE_FILE },
	{ "workingset_nodereclaim", MSIM_WORKINGSET_NODERECLAIM },
	{ "pgdemote_kswapd", MSIM_PGDEMOTE_KSWAPD },
	{ "pgdemote_direct", MSIM_PGDEMOTE_DIRECT },
	{ "pgdemote_khugepaged", MSIM_PGDEMOTE_KHUGEPAGED },
	{ "pgdemote_proactive", MSIM_PGDEMOTE_PROACTIVE },
	{ "pgsteal_kswapd", MSIM_PGSTEAL_KSWAPD },
	{ "pgsteal_direct", MSIM_PGSTEAL_DIRECT },
	{ "pgsteal_khugepaged", MSIM_PGSTEAL_KHUGEPAGED },
	{ "pgsteal_proactive", MSIM_PGSTEAL_PROACTIVE },
	{ "pgscan_kswapd", MSIM_PGSCAN_KSWAPD },
	{ "pgscan_direct", MSIM_PGSCAN_DIRECT },
	{ "pgscan_khugepaged", MSIM_PGSCAN_KHUGEPAGED },
	{ "pgscan_proactive", MSIM_PGSCAN_PROACTIVE },
	{ "pgrefill", MSIM_PGREFILL },
	{ "pgpromote_success", MSIM_PGPROMOTE_SUCCESS },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * kernel: memcg_page_state_output_unit() (newest): besides WORKINGSET_*, PGDEMOTE_*
 * and PGPROMOTE_SUCCESS, the reclaim items that became node stats (PGSTEAL_*,
 * PGSCAN_* except _ANON/_FILE, PGREFILL) are printed as raw counts too.
 * rstat.h's msim_memcg_page_state_output_unit() predates that move, so the
 * rendering uses its own table for them.
 */
static uint64_t output_unit(enum msim_stat_item idx)
{
	switch (idx) {
	case MSIM_PGSTEAL_KSWAPD:
	case MSIM_PGSTEAL_DIRECT:
	case MSIM_PGSTEAL_KHUGEPAGED:
	case MSIM_PGSTEAL_PROACTIVE:
	case MSIM_PGSCAN_KSWAPD:
	case MSIM_PGSCAN_DIRECT:
	case MSIM_PGSCAN_KHUGEPAGED:
	case MSIM_PGSCAN_PROACTIVE:
	case MSIM_PGREFILL:
		return 1;
	default:
		return (uint64_t)msim_memcg_page_state_output_unit(idx);
	}
}

/* kernel: memcg_page_state_output() */
static uint64_t state_output(struct msim_memcg *memcg, enum msim_stat_item idx)
{
	return (uint64_t)msim_memcg_page_state(memcg, idx) * output_unit(idx);
}

/* kernel: memcg_page_state_local_output() */
static uint64_t state_local_output(struct msim_memcg *memcg, enum msim_stat_item idx)
{
	return (uint64_t)msim_memcg_page_state_local(memcg, idx) * output_unit(idx);
}

/* kernel: memcg_accounts_hugetlb(): the memory_hugetlb_accounting mount option, off. */
static bool memcg_accounts_hugetlb(void)
{
	return false;
}

/* kernel: mm/memcontrol.c memcg_stat_format() (cgroup v2). */
static void memcg_stat_format(struct msim_memcg *memcg, struct sbuf *s)
{
	msim_mem_cgroup_flush_stats(memcg);

	for (size_t i = 0; i < ARRAY_SIZE(memory_stats); i++) {
		uint64_t size;

		if (memory_stats[i].idx == MSIM_NR_HUGETLB && !memcg_accounts_hugetlb())
			continue;
		size = state_output(memcg, memory_stats[i].idx);
		sbuf_printf(s, "%s %" PRIu64 "\n", memory_stats[i].name, size);
		if (memory_stats[i].idx == MSIM_NR_SLAB_UNRECLAIMABLE_B) {
			size += state_output(memcg, MSIM_NR_SLAB_RECLAIMABLE_B);
			sbuf_printf(s, "slab %" PRIu64 "\n", size);
		}
	}

	/* Accumulated memory events (node items in newest, read unconverted). */
	sbuf_printf(s, "pgscan %lu\n",
		    msim_memcg_page_state(memcg, MSIM_PGSCAN_KSWAPD) +
		    msim_memcg_page_state(memcg, MSIM_PGSCAN_DIRECT) +
		    msim_memcg_page_state(memcg, MSIM_PGSCAN_PROACTIVE) +
		    msim_memcg_page_state(memcg, MSIM_PGSCAN_KHUGEPAGED));
	sbuf_printf(s, "pgsteal %lu\n",
		    msim_memcg_page_state(memcg, MSIM_PGSTEAL_KSWAPD) +
		    msim_memcg_page_state(memcg, MSIM_PGSTEAL_DIRECT) +
		    msim_memcg_page_state(memcg, MSIM_PGSTEAL_PROACTIVE) +
		    msim_memcg_page_state(memcg, MSIM_PGSTEAL_KHUGEPAGED));

	/* memcg_vm_event_stat[] minus PGPGIN/PGPGOUT (v1-only events). */
	for (int e = 0; e < MSIM_NR_MEMCG_EVENTS; e++) {
		if (e == MSIM_PGPGIN || e == MSIM_PGPGOUT)
			continue;
		sbuf_printf(s, "%s %lu\n", msim_memcg_event_name((enum msim_memcg_event)e),
			    msim_memcg_events(memcg, (enum msim_memcg_event)e));
	}
}

/* kernel: mm/memcontrol-v1.c memcg1_stats[] / memcg1_stat_names[]. */
static const struct memory_stat memcg1_stats[] = {
	{ "cache", MSIM_NR_FILE_PAGES },
	{ "rss", MSIM_NR_ANON_MAPPED },
	{ "rss_huge", MSIM_NR_ANON_THPS },
	{ "shmem", MSIM_NR_SHMEM },
	{ "mapped_file", MSIM_NR_FILE_MAPPED },
	{ "dirty", MSIM_NR_FILE_DIRTY },
	{ "writeback", MSIM_NR_WRITEBACK },
	{ "workingset_refault_anon", MSIM_WORKINGSET_REFAULT_ANON },
	{ "workingset_refault_file", MSIM_WORKINGSET_REFAULT_FILE },
	{ "swap", MSIM_MEMCG_SWAP },
	{ "swapcached", MSIM_NR_SWAPCACHE },
};

static const enum msim_memcg_event memcg1_events[] = {
	MSIM_PGPGIN, MSIM_PGPGOUT, MSIM_PGFAULT, MSIM_PGMAJFAULT,
};

/* kernel: lru_list_name() order: NR_LRU_BASE + lru. */
static const struct memory_stat lru_lists[] = {
	{ "inactive_anon", MSIM_NR_INACTIVE_ANON },
	{ "active_anon", MSIM_NR_ACTIVE_ANON },
	{ "inactive_file", MSIM_NR_INACTIVE_FILE },
	{ "active_file", MSIM_NR_ACTIVE_FILE },
	{ "unevictable", MSIM_NR_UNEVICTABLE },
};

/* min(memory.max) over memcg and its ancestors (hierarchical_memory_limit). */
static uint64_t hierarchical_limit(struct msim_memcg *memcg)
{
	unsigned long memory = (unsigned long)MSIM_PAGE_COUNTER_MAX;

	for (struct msim_memcg *mi = memcg; mi; mi = msim_parent_mem_cgroup(mi)) {
		struct msim_page_counter *c = msim_memcg_page_counter(mi);

		if (c && c->max < memory)    /* a report: no race turns on memory.max here */
			memory = msim_quiet_load(&c->max, MSIM_RELAXED);
	}
	return (uint64_t)memory * MSIM_PAGE_SIZE;
}

/*
 * One block of memcg1_stat_format(): the memcg's own values, or (total) the
 * hierarchical ones under "total_" names; the kernel writes the two blocks as
 * two copies of the same three loops.
 */
static void memcg1_stat_block(struct msim_memcg *memcg, struct sbuf *s, bool total)
{
	const char *pre = total ? "total_" : "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(memcg1_stats); i++)
		sbuf_printf(s, "%s%s %" PRIu64 "\n", pre, memcg1_stats[i].name,
			    total ? state_output(memcg, memcg1_stats[i].idx)
				  : state_local_output(memcg, memcg1_stats[i].idx));
	for (i = 0; i < ARRAY_SIZE(memcg1_events); i++)
		sbuf_printf(s, "%s%s %lu\n", pre, msim_memcg_event_name(memcg1_events[i]),
			    total ? msim_memcg_events(memcg, memcg1_events[i])
				  : msim_memcg_events_local(memcg, memcg1_events[i]));
	for (i = 0; i < ARRAY_SIZE(lru_lists); i++)
		sbuf_printf(s, "%s%s %" PRIu64 "\n", pre, lru_lists[i].name,
			    (uint64_t)(total ? msim_memcg_page_state(memcg, lru_lists[i].idx)
					     : msim_memcg_page_state_local(memcg, lru_lists[i].idx)) *
				    MSIM_PAGE_SIZE);
}

/* kernel: mm/memcontrol-v1.c memcg1_stat_format(). */
static void memcg1_stat_format(struct msim_memcg *memcg, struct sbuf *s)
{
	msim_mem_cgroup_flush_stats(memcg);

	memcg1_stat_block(memcg, s, false);
	sbuf_printf(s, "hierarchical_memory_limit %" PRIu64 "\n", hierarchical_limit(memcg));
	sbuf_printf(s, "hierarchical_memsw_limit %" PRIu64 "\n",
		    (uint64_t)MSIM_PAGE_COUNTER_MAX * MSIM_PAGE_SIZE);
	memcg1_stat_block(memcg, s, true);
}

/* kernel: mm/memcontrol.c memory_stat_show() -> memory_stat_format(). */
int msim_memory_stat_show(struct msim_memcg *memcg, char *buf, size_t len)
{
	struct sbuf s = { buf, len, 0 };
	struct msim *m;

	if (!memcg || (!buf && len))
		return -EINVAL;
	m = msim_memcg_host(memcg);
	if (buf && len)
		buf[0] = '\0';
	if (msim_config(m)->cgroup_version == MSIM_CGROUP_V1)
		memcg1_stat_format(memcg, &s);
	else
		memcg_stat_format(memcg, &s);
	return (int)s.used;
}

/* kernel: mm/memcontrol.c memory_numa_stat_show() (cgroup v2). */
static void memory_numa_stat(struct msim_memcg *memcg, struct sbuf *s)
{
	struct msim *m = msim_memcg_host(memcg);

	msim_mem_cgroup_flush_stats(memcg);
	for (size_t i = 0; i < ARRAY_SIZE(memory_stats); i++) {
		enum msim_stat_item idx = memory_stats[i].idx;

		if (!msim_stat_item_is_node(idx))
			continue;
		sbuf_printf(s, "%s", memory_stats[i].name);
		for (unsigned int nid = 0; nid < msim_nr_nodes(m); nid++) {
			struct msim_lruvec *lruvec = msim_mem_cgroup_lruvec(m, memcg, nid);
			uint64_t size = (uint64_t)msim_lruvec_page_state(lruvec, idx) *
					output_unit(idx);

			sbuf_printf(s, " N%u=%" PRIu64, nid, size);
		}
		sbuf_printf(s, "\n");
	}
}

/* kernel: mm/memcontrol-v1.c memcg_numa_stat_show(): LRU page counts per node. */
struct numa_stat {
	const char *name;
	unsigned int lru_mask; /* bits of lru_lists[] */
};

static const struct numa_stat numa1_stats[] = {
	{ "total", 0x1f },
	{ "file", (1u << 2) | (1u << 3) },
	{ "anon", (1u << 0) | (1u << 1) },
	{ "unevictable", 1u << 4 },
};

static unsigned long node_nr_lru_pages(struct msim_memcg *memcg, unsigned int nid,
				       unsigned int mask, bool tree)
{
	struct msim_lruvec *lruvec = msim_mem_cgroup_lruvec(msim_memcg_host(memcg), memcg, nid);
	unsigned long nr = 0;

	for (unsigned int lru = 0; lru < ARRAY_SIZE(lru_lists); lru++) {
		if (!(mask & (1u << lru)))
			continue;
		nr += tree ? msim_lruvec_page_state(lruvec, lru_lists[lru].idx)
			   : msim_lruvec_page_state_local(lruvec, lru_lists[lru].idx);
	}
	return nr;
}

static void memcg1_numa_stat(struct msim_memcg *memcg, struct sbuf *s)
{
	unsigned int nr_nodes = msim_nr_nodes(msim_memcg_host(memcg));

	msim_mem_cgroup_flush_stats(memcg);
	for (int tree = 0; tree < 2; tree++) {
		for (size_t i = 0; i < ARRAY_SIZE(numa1_stats); i++) {
			unsigned long total = 0;

			for (unsigned int nid = 0; nid < nr_nodes; nid++)
				total += node_nr_lru_pages(memcg, nid, numa1_stats[i].lru_mask, tree);
			sbuf_printf(s, "%s%s=%lu", tree ? "hierarchical_" : "", numa1_stats[i].name,
				    total);
			for (unsigned int nid = 0; nid < nr_nodes; nid++)
				sbuf_printf(s, " N%u=%lu", nid,
					    node_nr_lru_pages(memcg, nid, numa1_stats[i].lru_mask, tree));
			sbuf_printf(s, "\n");
		}
	}
}

int msim_memory_numa_stat_show(struct msim_memcg *memcg, char *buf, size_t len)
{
	struct sbuf s = { buf, len, 0 };

	if (!memcg || (!buf && len))
		return -EINVAL;
	if (buf && len)
		buf[0] = '\0';
	if (msim_config(msim_memcg_host(memcg))->cgroup_version == MSIM_CGROUP_V1)
		memcg1_numa_stat(memcg, &s);
	else
		memory_numa_stat(memcg, &s);
	return (int)s.used;
}

int msim_memory_stat_lookup(const char *text, const char *key, uint64_t *value)
{
	size_t klen;
	const char *p;

	if (!text || !key || !value)
		return -EINVAL;
	klen = strlen(key);
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			*value = strtoull(p + klen + 1, NULL, 10);
			return 0;
		}
	}
	return -ENOENT;
}
