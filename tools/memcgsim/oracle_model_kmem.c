/* SPDX-License-Identifier: MIT */
/*
 * oracle_model_kmem.c - the model side of the oracle's kernel-memory experiment:
 * what the kernel-memory model charges for one empty memcg (cgroup core and memory
 * controller together, as the guest's "on" side measures), per kmalloc class and
 * dedicated cache, and per-CPU, on a host of the guest's CPU count with M mounts
 * (each a memcg-aware shrinker: msim_sb_mount) under the linux-6.12 preset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "oracle.h"

#define MAX_MODEL_CACHES 64
#define ORACLE_BOOT_SHRINKERS 32

struct km_snap {
	struct msim_kmem_class_info cls[16];
	size_t ncls;
	struct msim_kmem_cache_info caches[MAX_MODEL_CACHES];
	size_t ncaches;
	struct msim_kmem_totals t;
};

static void km_snapshot(struct msim *m, struct km_snap *s)
{
	s->ncls = msim_kmem_kmalloc_classes(m, s->cls, 16);
	s->ncaches = msim_kmem_caches(m, s->caches, MAX_MODEL_CACHES);
	if (s->ncaches > MAX_MODEL_CACHES)
		s->ncaches = MAX_MODEL_CACHES;
	msim_kmem_totals(m, &s->t);
}

static uint64_t cache_objects(const struct km_snap *s, const char *name,
			      const struct msim_kmem_cache_info **info)
{
	for (size_t i = 0; i < s->ncaches; i++)
		if (!strcmp(s->caches[i].name, name)) {
			if (info)
				*info = &s->caches[i];
			return s->caches[i].objects;
		}
	return 0;
}

static void km_delta(const struct km_snap *a, const struct km_snap *b, unsigned int n,
		     struct oracle_kmem_model *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < b->ncls && out->n < ORACLE_KMEM_MAX; i++) {
		double d = ((double)b->cls[i].objects - (double)a->cls[i].objects) / n;
		struct oracle_kmem_cache *c;

		if (!d || !b->cls[i].size)
			continue;
		c = &out->c[out->n++];
		snprintf(c->name, sizeof(c->name), "kmalloc-%zu%s",
			 b->cls[i].size >= 1024 ? b->cls[i].size / 1024 : b->cls[i].size,
			 b->cls[i].size >= 1024 ? "k" : "");
		c->objects = d;
		c->bytes = d * (double)b->cls[i].size;
	}
	for (size_t i = 0; i < b->ncaches && out->n < ORACLE_KMEM_MAX; i++) {
		const struct msim_kmem_cache_info *ci = &b->caches[i];
		double d = ((double)ci->objects - (double)cache_objects(a, ci->name, NULL)) / n;
		struct oracle_kmem_cache *c;

		if (!d)
			continue;
		c = &out->c[out->n++];
		snprintf(c->name, sizeof(c->name), "%s", ci->name);
		c->objects = d;
		c->bytes = d * (double)ci->slab_bytes / ci->objects_per_slab;
	}
	out->slab_bytes = ((double)(b->t.kmalloc_bytes + b->t.cache_bytes) -
			   (double)(a->t.kmalloc_bytes + a->t.cache_bytes)) / n;
	out->percpu_bytes = ((double)b->t.percpu_bytes - (double)a->t.percpu_bytes) / n;
}

int oracle_model_kmem(unsigned int cpus, unsigned int mounts, unsigned int n,
		      struct oracle_kmem_model *out, char *err, size_t errlen)
{
	struct msim_config cfg;
	struct msim *m = NULL;
	struct km_snap *a = calloc(2, sizeof(*a));
	int ret = -EINVAL;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.lru = MSIM_LRU_MGLRU;
	if (!a || msim_preset_apply(&cfg.variants, "linux-6.12", err, errlen) ||
	    msim_create(&cfg, &m, err, errlen))
		goto out;
	/* the shadow-node shrinker: the kernel's boot has memcg-aware shrinkers too */
	if (msim_rstat_init(m, NULL) || msim_lru_attach(m, err, errlen) || msim_shrinker_init(m) ||
	    msim_workingset_attach(m, err, errlen))
		goto out;
	/*
	 * The guest boots with 25 to 48 memcg-aware shrinkers (its superblocks, internal
	 * ones included, the shadow-node, deferred-split and zswap shrinkers): the rig
	 * counts one shrinker_info unit per memcg with no mounts added, 17 with 1000 and
	 * 32 with 2000, and every count in that range gives those. The model has the
	 * shadow-node shrinker and mounts the rest; 32 in all.
	 */
	for (unsigned int i = 0; i < ORACLE_BOOT_SHRINKERS - 1 + mounts; i++) {
		char name[32];
		struct msim_super_block *sb;

		snprintf(name, sizeof(name), "tmpfs%u", i);
		if (msim_sb_mount(m, name, &sb))
			goto out;
	}
	km_snapshot(m, &a[0]);
	for (unsigned int i = 0; i < n; i++) {
		struct msim_memcg *memcg;

		if (msim_memcg_create(msim_root_mem_cgroup(m), NULL, &memcg))
			goto out;
	}
	km_snapshot(m, &a[1]);
	km_delta(&a[0], &a[1], n, out);
	ret = 0;
out:
	if (ret && err && !err[0])
		snprintf(err, errlen, "the model's kernel-memory run failed");
	if (m)
		msim_destroy(m);
	free(a);
	return ret;
}
