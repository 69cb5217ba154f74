/* SPDX-License-Identifier: MIT */
/*
 * bench_shrinker_units_run.c - builds the hosts of one scale of thread 001's
 * tables and measures them (bench_shrinker_units.h; the printing is in
 * bench_shrinker_units.c).
 *
 * Per layout, two deterministic hosts driven from this thread (no tasks, so
 * msim_this_cpu() is 0 and every yield point is a predictable branch):
 *  - the cgroup host: boot_mounts + mounts superblocks, then every empty cgroup,
 *    then one "busy" cgroup with one dentry and one inode on each of 100
 *    superblocks spread over the mounts (node 0);
 *  - the bare host: the same superblocks, no cgroup (the "no cgroups" row).
 * Memory is read from the kernel-memory model by owner, as the difference before
 * and after the empty cgroups were made, divided by their number. The rest of a
 * cgroup's footprint comes from a third, small host with the memcg and rstat
 * layers (what they charge per cgroup). Times are medians over repetitions in
 * which the layouts run in rotated order (bench_alternate()), or, when the
 * scale asks for its layouts in turn (table 2: the three array layouts' headers
 * alone are 1.5 GB), one layout's repetitions after another, each layout's hosts
 * torn down before the next is built.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/kmem.h>
#include <memcgsim/rstat.h>
#include <memcgsim/shrinker.h>

#include "bench_shrinker_units.h"

/* Owners the shrinker layer charges (src/shrinker): headers, units, xa_nodes. */
static const char *const shr_owner[3] = { "shrinker_info", "shrinker_info_unit",
					  "shrinker_info_xa" };

struct shu_host {
	struct msim *m;
	struct msim_super_block **sb;
	size_t nsb, capsb;
	unsigned int next_mount;
	struct msim_memcg *first, *busy;
	unsigned int ncg;
};

struct shu_run {
	const struct bench_shu_config *c;
	struct bench_shu_result *r;
	struct shu_host cg[BENCH_SHU_NLAYOUTS], bare[BENCH_SHU_NLAYOUTS];
	unsigned int order[BENCH_SHU_NLAYOUTS]; /* design index -> layout */
	unsigned int ndesigns;
	struct bench_progress prog;
	/* samples [design][rep] */
	double empty_ns[BENCH_SHU_NLAYOUTS][BENCH_SHU_MAX_REPS];
	double busy_ns[BENCH_SHU_NLAYOUTS][BENCH_SHU_MAX_REPS];
	double walk_s[BENCH_SHU_NLAYOUTS][BENCH_SHU_MAX_REPS];
	double visit_us[BENCH_SHU_NLAYOUTS][BENCH_SHU_MAX_REPS];
	double reg_s[BENCH_SHU_NLAYOUTS][BENCH_SHU_MAX_REPS];
	double reg_none_s[BENCH_SHU_NLAYOUTS][BENCH_SHU_MAX_REPS];
	unsigned long sink;
};

uint64_t bench_shu_peak_rss(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024;
}

uint64_t bench_shu_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

void bench_shu_config_thread(struct bench_shu_config *c, unsigned int which, bool quick)
{
	memset(c, 0, sizeof(*c));
	/*
	 * 64 superblocks of the host's own filesystems and memcg-aware mm shrinkers,
	 * so that shrinker_nr_max is the thread's: 20064 ids -> 20096, 50064 -> 50112.
	 */
	msim_variants_init(&c->base);
	c->boot_mounts = 64;
	c->layout_mask = (1u << BENCH_SHU_NLAYOUTS) - 1;
	c->progress = true;
	/* Table 2 repeats each of its ~12 s rounds 3 times, so the bench stays near a minute. */
	c->reps = quick ? 1 : which == 0 ? 5 : 3;
	c->shrink_calls = quick ? 200 : 5000;
	c->rest_cgroups = quick ? 32 : 256;
	if (which == 0) {
		c->name = "table-1";
		c->mounts = quick ? 1000 : 20000;
		c->cgroups = quick ? 50 : 2000;
		c->nodes = 1;
		c->cpus = 4;
	} else {
		c->name = "table-2";
		c->mounts = quick ? 2000 : 50000;
		c->cgroups = quick ? 100 : 20000;
		c->nodes = 4;
		c->cpus = 48;
		c->in_turn = true;
	}
}

/* ---- building hosts ---- */

static int host_create(const struct bench_shu_config *c, enum msim_shrinker_info_layout l,
		       struct msim **out)
{
	struct msim_config cfg;
	char err[256];
	int ret;

	msim_config_init(&cfg);
	cfg.nr_cpus = c->cpus;
	cfg.nr_nodes = c->nodes;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.variants = c->base;
	bench_variant_set(&cfg.variants, "shrinker-info", l);
	ret = msim_create(&cfg, out, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "shrinker-units: msim_create: %s\n", err);
		return ret;
	}
	msim_set_current_host(*out);
	return msim_shrinker_init(*out);
}

static int host_mount(struct shu_host *h, const char *prefix, double *elapsed_ns)
{
	char name[32];
	uint64_t t0;
	int ret;

	if (h->nsb == h->capsb) {
		size_t cap = h->capsb ? h->capsb * 2 : 1024;
		void *p = realloc(h->sb, cap * sizeof(*h->sb));

		if (!p)
			return -ENOMEM;
		h->sb = p;
		h->capsb = cap;
	}
	snprintf(name, sizeof(name), "%s-%u", prefix, h->next_mount++);
	t0 = bench_now_ns();
	ret = msim_sb_mount(h->m, name, &h->sb[h->nsb]);
	if (elapsed_ns)
		*elapsed_ns += (double)(bench_now_ns() - t0);
	if (ret) {
		fprintf(stderr, "shrinker-units: mount %s: %d\n", name, ret);
		return ret;
	}
	h->nsb++;
	return 0;
}

static int host_mount_all(struct shu_run *s, struct shu_host *h)
{
	const struct bench_shu_config *c = s->c;
	int ret = 0;

	for (unsigned int i = 0; i < c->boot_mounts && !ret; i++)
		ret = host_mount(h, "host", NULL);
	h->next_mount = 0;
	for (unsigned int i = 0; i < c->mounts && !ret; i++) {
		ret = host_mount(h, "tmpfs", NULL);
		if (!(i & 4095))
			bench_progress(&s->prog, "%s: mounting %u/%u", c->name, i, c->mounts);
	}
	return ret;
}

/* The empty cgroups. */
static int host_cgroups(struct shu_run *s, struct shu_host *h, enum msim_shrinker_info_layout l)
{
	const struct bench_shu_config *c = s->c;
	struct msim_memcg *root = msim_root_mem_cgroup(h->m), *cg;
	unsigned int want = c->cgroups;
	char name[32];
	int ret;

	for (h->ncg = 0; h->ncg < want; h->ncg++) {
		snprintf(name, sizeof(name), "cg%u", h->ncg);
		ret = msim_memcg_create(root, name, &cg);
		if (ret) {
			fprintf(stderr, "shrinker-units: mkdir %s: %d\n", name, ret);
			return ret;
		}
		if (!h->first)
			h->first = cg;
		if (!(h->ncg & 1023))
			bench_progress(&s->prog, "%s %s: cgroup %u/%u", c->name,
				       msim_shrinker_layout_name(l), h->ncg, want);
	}
	msim_rcu_barrier();
	return 0;
}

/* Sorted sample of 100 tmpfs superblocks spread over the mounts. */
static struct msim_super_block *busy_sb(const struct shu_run *s, const struct shu_host *h,
					unsigned int i)
{
	unsigned int n = s->c->mounts, k = (unsigned int)((uint64_t)i * n / BENCH_SHU_BUSY_SBS);

	return h->sb[s->c->boot_mounts + (k < n ? k : n - 1)];
}

static int busy_populate(struct shu_run *s, struct shu_host *h)
{
	unsigned int nsb = s->c->mounts < BENCH_SHU_BUSY_SBS ? s->c->mounts : BENCH_SHU_BUSY_SBS;
	int ret = 0;

	for (unsigned int i = 0; i < nsb && !ret; i++) {
		ret = msim_sb_alloc_objects(busy_sb(s, h, i), h->busy, 0, MSIM_SB_DENTRY, 1);
		if (!ret)
			ret = msim_sb_alloc_objects(busy_sb(s, h, i), h->busy, 0, MSIM_SB_INODE, 1);
	}
	return ret;
}

/* Memory of the empty cgroups, per cgroup, from the kernel-memory model. */
static void measure_memory(struct shu_run *s, struct shu_host *h,
			   struct bench_shu_layout_result *lr, const uint64_t before[3])
{
	struct msim_shrinker_info_bytes ib;
	uint64_t d[3];

	for (int i = 0; i < 3; i++)
		d[i] = msim_kmem_owner_bytes(h->m, shr_owner[i]) - before[i];
	lr->cgroups_used = h->ncg;
	if (!h->ncg)
		return;
	lr->container_bytes = (d[0] + d[2]) / h->ncg;
	lr->unit_bytes = d[1] / h->ncg;
	lr->shrinker_bytes = lr->container_bytes + lr->unit_bytes;
	lr->slab_per_cgroup = lr->shrinker_bytes + s->r->rest.slab;
	msim_shrinker_info_bytes(h->first, &ib);
	lr->units = ib.nr_units;
	/* The unit cache's share is rounded per total, so allow one byte per unit. */
	lr->info_bytes_agree = ib.container == lr->container_bytes &&
			       (ib.units > lr->unit_bytes ? ib.units - lr->unit_bytes
							  : lr->unit_bytes - ib.units) <=
				       ib.nr_units;
}

static int build_layout(struct shu_run *s, enum msim_shrinker_info_layout l)
{
	struct bench_shu_layout_result *lr = &s->r->lay[l];
	struct shu_host *h = &s->cg[l], *b = &s->bare[l];
	uint64_t t0 = bench_now_ns(), rss0 = msim_kmem_process_rss(), before[3];
	int ret;

	lr->layout = l;
	lr->ran = true;
	ret = host_create(s->c, l, &b->m);
	if (!ret)
		ret = host_mount_all(s, b);
	if (!ret)
		ret = host_create(s->c, l, &h->m);
	if (!ret)
		ret = host_mount_all(s, h);
	if (ret)
		return ret;
	msim_rcu_barrier();
	lr->nr_max = msim_shrinker_nr_max(h->m);
	for (int i = 0; i < 3; i++)
		before[i] = msim_kmem_owner_bytes(h->m, shr_owner[i]);
	ret = host_cgroups(s, h, l);
	if (ret)
		return ret;
	measure_memory(s, h, lr, before);
	ret = msim_memcg_create(msim_root_mem_cgroup(h->m), "busy", &h->busy);
	if (!ret)
		ret = busy_populate(s, h);
	lr->setup_s = (double)(bench_now_ns() - t0) / 1e9;
	lr->rss_bytes = msim_kmem_process_rss() - rss0;
	if (msim_kmem_process_rss() > s->r->rss_after_build)
		s->r->rss_after_build = msim_kmem_process_rss();
	if (msim_kmem_process_page_tables() > s->r->page_tables_after_build)
		s->r->page_tables_after_build = msim_kmem_process_page_tables();
	return ret;
}

/* The memcg and rstat layers' own charges per cgroup, on a small host. */
static const char *const rest_slab_owner[3] = { "mem_cgroup", "mem_cgroup_per_node",
						"memcg_vmstats" };
static const char *const rest_pcpu_owner[4] = { "memcg_vmstats_percpu", "css_rstat_cpu",
						"lruvec_stats_percpu", "memcg_stock" };

static int measure_rest(const struct bench_shu_config *c, struct bench_shu_rest *rest)
{
	struct msim *m = NULL;
	struct msim_kmem_totals t0, t1;
	struct msim_memcg *cg;
	uint64_t s0[3], p0 = 0, p1 = 0, named = 0;
	unsigned int n = c->rest_cgroups ? c->rest_cgroups : 1;
	int ret;

	memset(rest, 0, sizeof(*rest));
	ret = host_create(c, MSIM_SHRINKER_INFO_XARRAY, &m);
	if (!ret)
		ret = msim_rstat_init(m, NULL);
	if (ret)
		goto out;
	for (int i = 0; i < 3; i++)
		s0[i] = msim_kmem_owner_bytes(m, rest_slab_owner[i]);
	for (int i = 0; i < 4; i++)
		p0 += msim_kmem_owner_percpu_bytes(m, rest_pcpu_owner[i]);
	msim_kmem_totals(m, &t0);
	for (unsigned int i = 0; i < n && !ret; i++)
		ret = msim_memcg_create(msim_root_mem_cgroup(m), NULL, &cg);
	msim_rcu_barrier();
	msim_kmem_totals(m, &t1);
	for (int i = 0; i < 4; i++)
		p1 += msim_kmem_owner_percpu_bytes(m, rest_pcpu_owner[i]);
	rest->mem_cgroup = (msim_kmem_owner_bytes(m, rest_slab_owner[0]) - s0[0]) / n;
	rest->mem_cgroup_per_node = (msim_kmem_owner_bytes(m, rest_slab_owner[1]) - s0[1]) / n;
	rest->memcg_vmstats = (msim_kmem_owner_bytes(m, rest_slab_owner[2]) - s0[2]) / n;
	named = rest->mem_cgroup + rest->mem_cgroup_per_node + rest->memcg_vmstats;
	/* Whole-slab totals minus the packed shares: what no named owner explains. */
	{
		uint64_t all = (t1.kmalloc_bytes + t1.cache_bytes - t0.kmalloc_bytes -
				t0.cache_bytes) / n;

		rest->other_slab = all > named ? all - named : 0;
	}
	rest->slab = named + rest->other_slab;
	rest->percpu = (p1 - p0) / n;
	rest->cgroups = n;
out:
	if (m)
		msim_destroy(m);
	return ret;
}

/* ---- timing ---- */

static double time_shrink(struct shu_run *s, struct shu_host *h, struct msim_memcg *memcg)
{
	unsigned int n = s->c->shrink_calls ? s->c->shrink_calls : 1;
	uint64_t t0 = bench_now_ns();

	for (unsigned int i = 0; i < n; i++)
		s->sink += msim_shrink_slab_memcg(h->m, 0, memcg, MSIM_DEF_PRIORITY);
	return (double)(bench_now_ns() - t0) / n;
}

/*
 * shrink_slab_memcg over every online non-root cgroup on node 0: the per-visit
 * cost. One node stands for all: a memcg's shrinker_info has the same shape on
 * every node (a header of nr_max / 64 slots, or an empty xarray), and a pass over
 * one node's 20000 headers (6288 B each at table 2) is as far beyond the cache as
 * a pass over four, so the other nodes' passes would time the same visit again
 * (they were three quarters of this row's cost: docs/shrinker-bench.md).
 */
static double time_child_walk(struct shu_run *s, struct shu_host *h, unsigned long *visits)
{
	struct msim_memcg *root = msim_root_mem_cgroup(h->m), *pos = NULL;
	uint64_t t0 = bench_now_ns();

	*visits = 0;
	while ((pos = msim_mem_cgroup_iter(root, pos)) != NULL) {
		if (pos == root || !msim_mem_cgroup_online(pos))
			continue;
		s->sink += msim_shrink_slab_memcg(h->m, 0, pos, 0);
		(*visits)++;
	}
	return (double)(bench_now_ns() - t0) / 1e3;
}

/* Rows 1-3: empty and busy shrink_slab_memcg, the drop_caches walk. */
static double sample_shrink(unsigned int d, unsigned int rep, void *ctx)
{
	struct shu_run *s = ctx;
	unsigned int l = s->order[d];
	struct shu_host *h = &s->cg[l];
	struct msim_drop_slab_stats st;
	unsigned long visits;
	uint64_t t0;
	double us;

	msim_set_current_host(h->m);
	s->empty_ns[d][rep] = time_shrink(s, h, h->first);
	s->busy_ns[d][rep] = time_shrink(s, h, h->busy);
	t0 = bench_now_ns();
	s->sink += msim_drop_slab(h->m, 1, &st);
	s->walk_s[d][rep] = (double)(bench_now_ns() - t0) / 1e9;
	s->r->lay[l].walk_visits = st.memcg_node_visits;
	us = time_child_walk(s, h, &visits);
	s->visit_us[d][rep] = visits ? us / (double)visits : 0;
	msim_rcu_barrier();
	if (busy_populate(s, h))
		fprintf(stderr, "shrinker-units: repopulating the busy cgroup failed\n");
	bench_progress(&s->prog, "%s: shrink rows, %s, repetition %u", s->c->name,
		       msim_shrinker_layout_name(l), rep + 1);
	return s->empty_ns[d][rep];
}

/* 640 more mounts, each timed alone; old headers freed (untimed) after each. */
static double time_mounts(struct shu_run *s, struct shu_host *h)
{
	double ns = 0;

	msim_set_current_host(h->m);
	for (unsigned int i = 0; i < BENCH_SHU_REG_MOUNTS; i++) {
		if (host_mount(h, "tmpfs", &ns))
			return NAN;
		msim_rcu_barrier(); /* kvfree_rcu of the replaced headers: deferred work */
	}
	return ns / 1e9;
}

/* Row 4: 640 mounts with the cgroups alive. */
static double sample_register_cg(unsigned int d, unsigned int rep, void *ctx)
{
	struct shu_run *s = ctx;
	unsigned int l = s->order[d];

	s->reg_s[d][rep] = time_mounts(s, &s->cg[l]);
	bench_progress(&s->prog, "%s: 640 mounts, %s, repetition %u", s->c->name,
		       msim_shrinker_layout_name(l), rep + 1);
	return s->reg_s[d][rep];
}

/* Row 5: the same 640 mounts on the bare host. */
static double sample_register_bare(unsigned int d, unsigned int rep, void *ctx)
{
	struct shu_run *s = ctx;

	s->reg_none_s[d][rep] = time_mounts(s, &s->bare[s->order[d]]);
	return s->reg_none_s[d][rep];
}

/* Rows 4 and 5 in one repetition of the alternated layouts. */
static double sample_register(unsigned int d, unsigned int rep, void *ctx)
{
	sample_register_cg(d, rep, ctx);
	return sample_register_bare(d, rep, ctx);
}

/* The medians of design d and its host's counts. */
static void summarise(struct shu_run *s, unsigned int d)
{
	unsigned int reps = s->c->reps, l = s->order[d];
	struct bench_shu_layout_result *lr = &s->r->lay[l];
	struct msim_shrinker_stats st;

	lr->empty_ns = bench_median(s->empty_ns[d], reps);
	lr->busy_ns = bench_median(s->busy_ns[d], reps);
	lr->walk_s = bench_median(s->walk_s[d], reps);
	lr->walk_visit_us = bench_median(s->visit_us[d], reps);
	lr->reg_s = bench_median(s->reg_s[d], reps);
	lr->reg_none_s = bench_median(s->reg_none_s[d], reps);
	lr->nr_max_after = msim_shrinker_nr_max(s->cg[l].m);
	msim_shrinker_stats(s->cg[l].m, &st);
	lr->expand_visits = st.expand_memcg_visits;
}

/* ---- teardown ---- */

static void host_destroy(struct shu_host *h)
{
	if (!h->m)
		return;
	msim_set_current_host(h->m);
	for (size_t i = h->nsb; i-- > 0;)
		msim_sb_umount(h->sb[i]);
	msim_rcu_barrier();
	msim_destroy(h->m);
	free(h->sb);
	memset(h, 0, sizeof(*h));
}

static void unit_share(struct bench_shu_result *r)
{
	unsigned int order = msim_slub_calculate_order(MSIM_SHRINKER_UNIT_BYTES, r->cfg.cpus);
	uint64_t slab = MSIM_PAGE_SIZE << order;

	r->unit_slot_share = slab / (slab / MSIM_SHRINKER_UNIT_BYTES);
}

/* The designs in build order: the on-demand layouts first, the upfront ones last. */
static void design_order(struct shu_run *s)
{
	static const unsigned int pref[BENCH_SHU_NLAYOUTS] = {
		MSIM_SHRINKER_INFO_XARRAY, MSIM_SHRINKER_INFO_ARRAY_ON_DEMAND,
		MSIM_SHRINKER_INFO_ARRAY_UNIT_CACHE, MSIM_SHRINKER_INFO_ARRAY,
	};

	for (unsigned int i = 0; i < BENCH_SHU_NLAYOUTS; i++)
		if (s->c->layout_mask & (1u << pref[i]))
			s->order[s->ndesigns++] = pref[i];
}

/*
 * Every layout's hosts at once, its repetitions alternated with the others': all
 * shrink and walk rows, then the registration rows (which grow nr_max).
 */
static int run_alternated(struct shu_run *s, double *dummy)
{
	int ret = 0;

	for (unsigned int d = 0; d < s->ndesigns && !ret; d++)
		ret = build_layout(s, s->order[d]);
	if (ret)
		return ret;
	bench_alternate(s->ndesigns, s->c->reps, sample_shrink, s, dummy, &s->prog);
	bench_alternate(s->ndesigns, s->c->reps, sample_register, s, dummy, &s->prog);
	for (unsigned int d = 0; d < s->ndesigns; d++)
		summarise(s, d);
	return 0;
}

/*
 * One layout at a time: build, every repetition of its rows, tear down. The bare
 * host's mounts go before the cgroup host's: after 20000 cgroups' headers were
 * copied ten times, a few milliseconds of mounts would be timed on cold caches.
 */
static int run_in_turn(struct shu_run *s)
{
	for (unsigned int d = 0; d < s->ndesigns; d++) {
		unsigned int l = s->order[d];
		int ret = build_layout(s, l);

		for (unsigned int rep = 0; rep < s->c->reps && !ret; rep++)
			sample_shrink(d, rep, s);
		for (unsigned int rep = 0; rep < s->c->reps && !ret; rep++)
			sample_register_bare(d, rep, s);
		for (unsigned int rep = 0; rep < s->c->reps && !ret; rep++)
			sample_register_cg(d, rep, s);
		if (!ret)
			summarise(s, d);
		bench_progress(&s->prog, "%s: tearing down %s", s->c->name,
			       msim_shrinker_layout_name(l));
		host_destroy(&s->cg[l]);
		host_destroy(&s->bare[l]);
		if (ret)
			return ret;
	}
	return 0;
}

int bench_shu_run(const struct bench_shu_config *c, struct bench_shu_result *r)
{
	struct shu_run *s = calloc(1, sizeof(*s));
	uint64_t t0 = bench_now_ns(), cpu0 = bench_shu_cpu_ns();
	double *dummy = NULL;
	int ret;

	if (!s)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->cfg = *c;
	if (r->cfg.reps > BENCH_SHU_MAX_REPS)
		r->cfg.reps = BENCH_SHU_MAX_REPS;
	if (!r->cfg.reps)
		r->cfg.reps = 1;
	s->c = &r->cfg;
	s->r = r;
	unit_share(r);
	design_order(s);
	bench_progress_init(&s->prog, "shrinker-units", c->progress);
	dummy = calloc((size_t)BENCH_SHU_NLAYOUTS * s->c->reps, sizeof(double));
	ret = dummy ? measure_rest(s->c, &r->rest) : -ENOMEM;
	if (!ret)
		ret = s->c->in_turn ? run_in_turn(s) : run_alternated(s, dummy);
	bench_progress(&s->prog, "%s: tearing down", c->name);
	for (unsigned int l = 0; l < BENCH_SHU_NLAYOUTS; l++) {
		host_destroy(&s->cg[l]);
		host_destroy(&s->bare[l]);
	}
	bench_progress_done(&s->prog);
	r->wall_s = (double)(bench_now_ns() - t0) / 1e9;
	r->cpu_s = (double)(bench_shu_cpu_ns() - cpu0) / 1e9;
	r->peak_rss = bench_shu_peak_rss();
	free(dummy);
	free(s);
	return ret;
}
