/* SPDX-License-Identifier: MIT */
/*
 * kmem_report.c - reading the kernel-memory model: totals, a cache's geometry,
 * the bytes of one owner, the list of owners and caches, and the simulator's own
 * resident set size.
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmem_arena.h"
#include "kmem_owner.h"
#include "kmem_percpu.h"

void msim_kmem_cache_info(const struct msim_kmem_cache *c, struct msim_kmem_cache_info *out)
{
	uint64_t objs;

	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	objs = LOAD(&c->objects);
	out->name = c->name;
	out->object_size = c->object_size;
	out->slot_size = c->slot_size;
	out->order = c->order;
	out->objects_per_slab = c->objs_per_slab;
	out->slab_bytes = c->slab_bytes;
	out->objects = objs;
	out->slabs = (objs + c->objs_per_slab - 1) / c->objs_per_slab;
	out->bytes = out->slabs * c->slab_bytes;
}

void msim_kmem_totals(const struct msim *m, struct msim_kmem_totals *out)
{
	struct msim_kmem *k = msim__kmem_of(m);

	memset(out, 0, sizeof(*out));
	if (!k)
		return;
	out->kmalloc_bytes = LOAD(&k->kmalloc_bytes);
	out->cache_bytes = LOAD(&k->cache_bytes);
	out->percpu_bytes = LOAD(&k->percpu_bytes);
	out->rcu_pending_bytes = LOAD(&k->rcu_pending_bytes);
	out->allocations = LOAD(&k->allocations);
}

static uint64_t owner_bytes(const struct kmem_owner *o)
{
	return LOAD(&o->kmalloc_bytes) +
	       ((LOAD(&o->cache_share_fp) + (1u << (KMEM_FP_SHIFT - 1))) >> KMEM_FP_SHIFT);
}

/* The record of owner's text, or NULL. */
static const struct kmem_owner *owner_find(const struct msim *m, const char *owner)
{
	struct msim_kmem *k = msim__kmem_of(m);
	int rec = k && owner ? msim__kmem_owner_record_find(k, owner) : -1;

	return rec < 0 ? NULL : &k->owners[rec];
}

uint64_t msim_kmem_owner_bytes(const struct msim *m, const char *owner)
{
	const struct kmem_owner *o = owner_find(m, owner);

	return o ? owner_bytes(o) : 0;
}

uint64_t msim_kmem_owner_percpu_bytes(const struct msim *m, const char *owner)
{
	const struct kmem_owner *o = owner_find(m, owner);

	return o ? LOAD(&o->percpu_bytes) : 0;
}

size_t msim_kmem_owners(const struct msim *m, struct msim_kmem_owner_info *out, size_t max)
{
	struct msim_kmem *k = msim__kmem_of(m);
	unsigned int n;
	size_t found = 0;

	if (!k)
		return 0;
	n = __atomic_load_n(&k->nr_owners, __ATOMIC_ACQUIRE);
	for (unsigned int i = 0; i < n; i++) {
		const struct kmem_owner *o = &k->owners[i];
		uint64_t bytes = owner_bytes(o), pc = LOAD(&o->percpu_bytes);

		if (!bytes && !pc)
			continue;
		if (found < max)
			out[found] = (struct msim_kmem_owner_info){ o->name, bytes, pc };
		found++;
	}
	return found;
}

size_t msim_kmem_caches(const struct msim *m, struct msim_kmem_cache_info *out, size_t max)
{
	struct msim_kmem *k = msim__kmem_of(m);
	struct msim_kmem_cache *c;
	size_t n = 0;

	if (!k)
		return 0;
	pthread_mutex_lock(&k->lock);
	for (c = k->caches; c; c = c->next, n++)
		if (n < max)
			msim_kmem_cache_info(c, &out[n]);
	pthread_mutex_unlock(&k->lock);
	return n;
}

/* The simulator's own resident set, from /proc/self/statm (pages). */
uint64_t msim_kmem_process_rss(void)
{
	unsigned long long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	long page = sysconf(_SC_PAGESIZE);

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (uint64_t)resident * (uint64_t)(page > 0 ? page : 4096);
}

/* The page tables of this process, from VmPTE in /proc/self/status (kB). */
uint64_t msim_kmem_process_page_tables(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPTE: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/*
 * Memory freed by hosts that is kept for the next ones (the arena's dirty chunks,
 * small per-CPU areas, the C library's free lists) goes back to the system, so
 * that the process's RSS is again what live hosts hold.
 */
void msim_kmem_trim(void)
{
	msim__kmem_arena_trim();
	msim__kmem_pcpu_trim();
	malloc_trim(0);
}

size_t msim_kmem_kmalloc_classes(const struct msim *m, struct msim_kmem_class_info *out, size_t max)
{
	static const size_t sizes[MSIM__KMEM_NR_CLASSES] = { 8, 16, 32, 64, 96, 128, 192, 256,
							      512, 1024, 2048, 4096, 8192, 0 };
	const struct msim_kmem *k = msim__kmem_of(m);

	if (!k)
		return 0;
	for (size_t i = 0; i < MSIM__KMEM_NR_CLASSES && i < max; i++) {
		out[i].size = sizes[i];
		out[i].objects = LOAD(&k->class_objects[i]);
	}
	return MSIM__KMEM_NR_CLASSES;
}
