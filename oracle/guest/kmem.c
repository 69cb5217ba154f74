/* SPDX-License-Identifier: MIT */
/*
 * kmem.c - guest side of the oracle's kernel-memory experiment: what one empty memcg
 * costs in slab, per cache, and in per-CPU memory.
 *
 * For each mount count M (tmpfs mounts, each one memcg-aware shrinker, so that
 * shrinker_nr_max grows): N mkdirs below a parent whose subtree has the memory
 * controller off, then N below one where it is on. The memory controller's cost of
 * one memcg is (delta with it on - delta with it off) / N, from /proc/slabinfo (per
 * cache; the kernel boots with slub_nomerge so caches are not merged) and
 * /proc/meminfo (Slab, Percpu). The directories stay (rmdir would make dying memcgs
 * whose memory goes later); each phase has its own parents.
 *
 * Parameters (kernel command line): oracle.n (mkdirs per side, default 2000),
 * oracle.mounts1 / oracle.mounts2 / oracle.mounts3 (the mount counts of the phases,
 * default 0, 2000 and none (0: no third phase); a phase mounts what it lacks on top of
 * the earlier one's).
 */
#include "guest.h"

#define MAX_CACHES 400

struct cache {
	char name[64];
	long active, objsize, per_slab, pages_per_slab;
};

struct snap {
	struct cache c[MAX_CACHES];
	int n;
	long long slab_kb, percpu_kb;
};

static char big[1 << 20];

static void snapshot(struct snap *s)
{
	char *line, *save = NULL;

	g_read("/proc/slabinfo", big, sizeof(big));
	s->n = 0;
	for (line = strtok_r(big, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct cache *c = &s->c[s->n];
		long num;

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8) || s->n == MAX_CACHES)
			continue;
		if (sscanf(line, "%63s %ld %ld %ld %ld %ld", c->name, &c->active, &num, &c->objsize,
			   &c->per_slab, &c->pages_per_slab) == 6)
			s->n++;
	}
	g_read("/proc/meminfo", big, sizeof(big));
	s->slab_kb = g_lookup(big, "Slab");
	s->percpu_kb = g_lookup(big, "Percpu");
}

static const struct cache *find(const struct snap *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].name, name))
			return &s->c[i];
	return NULL;
}

static void mkdirs(const char *parent, long n)
{
	char path[256];

	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/m%ld", parent, i);
		g_mkdir(path);
	}
}

static long mounted;

static void mount_up_to(long m)
{
	char path[64];

	for (; mounted < m; mounted++) {
		snprintf(path, sizeof(path), "/mnt/s%ld", mounted);
		g_mkdir(path);
		if (mount("tmpfs", path, "tmpfs", 0, "size=1m"))
			g_die("mount %s", path);
	}
}

static struct snap s0, s1, s2;

static void phase(long mounts, long n)
{
	char off[64], on[64];

	mount_up_to(mounts);
	/* the old shrinker_info headers that the mounts' expansions freed go by
	 * kvfree_rcu(), whose batches drain after up to KFREE_DRAIN_JIFFIES (5 s) and a
	 * grace period: let them go before the first snapshot (with 3 s, the last
	 * expansions' kmalloc-4k headers of the earlier phases' memcgs were freed during
	 * the 20000-mount phase's measurement: 1.81 headers per memcg instead of 2) */
	sleep(7);
	snprintf(off, sizeof(off), CG "/off%ld", mounts);
	snprintf(on, sizeof(on), CG "/on%ld", mounts);
	g_mkdir(off);
	g_mkdir(on);
	g_write((snprintf(big, 128, "%s/cgroup.subtree_control", on), big), "+memory");
	snapshot(&s0);
	mkdirs(off, n);
	snapshot(&s1);
	mkdirs(on, n);
	snapshot(&s2);
	for (int i = 0; i < s2.n; i++) {
		const struct cache *c = &s2.c[i], *a = find(&s0, c->name), *b = find(&s1, c->name);
		long d_off = b ? b->active - (a ? a->active : 0) : 0;
		long d_on = c->active - (b ? b->active : 0);

		if (d_on == 0 && d_off == 0)
			continue;
		g_emit("\"exp\":\"kmem\",\"row\":\"cache\",\"mounts\":%ld,\"n\":%ld,\"cache\":\"%s\","
		       "\"objsize\":%ld,\"per_slab\":%ld,\"pages_per_slab\":%ld,\"d_off\":%ld,"
		       "\"d_on\":%ld", mounts, n, c->name, c->objsize, c->per_slab,
		       c->pages_per_slab, d_off, d_on);
	}
	g_emit("\"exp\":\"kmem\",\"row\":\"meminfo\",\"mounts\":%ld,\"n\":%ld,\"slab_kb_off\":%lld,"
	       "\"slab_kb_on\":%lld,\"percpu_kb_off\":%lld,\"percpu_kb_on\":%lld,\"cpus\":%ld",
	       mounts, n, s1.slab_kb - s0.slab_kb, s2.slab_kb - s1.slab_kb,
	       s1.percpu_kb - s0.percpu_kb, s2.percpu_kb - s1.percpu_kb,
	       sysconf(_SC_NPROCESSORS_ONLN));
}

int main(void)
{
	long n = g_param("n", 2000);

	phase(g_param("mounts1", 0), n);
	phase(g_param("mounts2", 2000), n);
	if (g_param("mounts3", 0) > 0)
		phase(g_param("mounts3", 0), n);
	return 0;
}
