/* SPDX-License-Identifier: MIT */
/*
 * cgroup_kmem.c - the slab a cgroup costs outside the memory controller: the
 * cgroup core's struct cgroup and its parts, and the kernfs nodes of its
 * directory and control files, charged to the kernel-memory model under the
 * owner "cgroup" at mkdir and freed when the kernel frees them.
 *
 * kernel: kernel/cgroup/cgroup.c cgroup_create() (struct cgroup, the self css's
 * percpu_ref, cgroup_bpf_inherit()'s percpu_ref, psi_cgroup_alloc()),
 * kernfs_create_dir() and css_populate_dir() (one kernfs_node per file), rmdir's
 * kernfs_remove() (the file nodes go), css_free_rwork_fn() (the cgroup and its
 * directory node go). No css_set link: cgroup_create() links none; a
 * cgrp_cset_link comes only with a css_set a task brings in, and the cgroups
 * here are empty. Sizes and their sources are in memcg_internal.h.
 *
 * The memory is bookkeeping only: the model keeps no cgroup fields in it (the
 * kernfs nodes have none at all: they are charged as a count), and the
 * kernel-memory model has no yield point, so no schedule changes. This file
 * calls nothing else in src/memcg (tree.c and lifecycle.c call it).
 */
#include <string.h>

#include "memcg/memcg_internal.h"

static const char *const cgroup_owner = "cgroup";

/*
 * The names of those files as Linux 6.12 creates them (kernel/cgroup/cgroup.c
 * cgroup_base_files and cgroup_psi_files without irq.pressure, which needs
 * CONFIG_IRQ_TIME_ACCOUNTING; mm/memcontrol.c memory_files, swap_files, zswap_files
 * with the "memory." prefix). cgroup_add_file() builds each name in a stack buffer
 * and kernfs_new_node() kstrdup_const()s it, so each is a kmalloc of strlen + 1:
 * the kernel rig counts 23 kmalloc-16 and 15 kmalloc-32 objects per memcg on 6.12.
 * Charged under memcg-layout=linux-6.12 (the newest kernel does the same; the
 * default layout keeps the figures measured before).
 */
static const char *const file_names_612[MSIM__CGROUP_NR_FILES] = {
	"cgroup.type", "cgroup.procs", "cgroup.threads", "cgroup.controllers",
	"cgroup.subtree_control", "cgroup.events", "cgroup.max.descendants",
	"cgroup.max.depth", "cgroup.stat", "cgroup.freeze", "cgroup.kill", "cpu.stat",
	"cpu.stat.local", "io.pressure", "memory.pressure", "cpu.pressure",
	"cgroup.pressure", "memory.current", "memory.peak", "memory.min", "memory.low",
	"memory.high", "memory.max", "memory.events", "memory.events.local", "memory.stat",
	"memory.numa_stat", "memory.oom.group", "memory.reclaim", "memory.swap.current",
	"memory.swap.high", "memory.swap.max", "memory.swap.peak", "memory.swap.events",
	"memory.zswap.current", "memory.zswap.max", "memory.zswap.writeback",
};

/*
 * kernfs_new_node() for n nodes: the directory, or every file a non-root memcg
 * cgroup shows (rmdir frees the files). Only charged (kmem.h,
 * msim_kmem_cache_charge): no reader of a node is modelled.
 */
static bool kernfs_new_nodes(struct msim__memcg_host *h, unsigned int n)
{
	return msim_kmem_cache_charge(h->m, h->kernfs_cache, n, cgroup_owner) == 0;
}

static void kernfs_free_nodes(struct msim__memcg_host *h, unsigned int n)
{
	msim_kmem_cache_uncharge(h->m, h->kernfs_cache, n, cgroup_owner);
}

void msim__cgroup_kmem_alloc(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck,
			     const char *name)
{
	struct msim *m = h->m;
	/* kstrdup() of the directory name; the model's anonymous cgroups count as "cgNNNNN". */
	size_t name_bytes = name ? strlen(name) + 1 : 8;

	ck->cgroup = msim_kmalloc(m, MSIM__CGROUP_BYTES, cgroup_owner);
	ck->self_ref = msim_kmalloc(m, MSIM__PERCPU_REF_DATA_BYTES, cgroup_owner);
	ck->bpf_ref = msim_kmalloc(m, MSIM__PERCPU_REF_DATA_BYTES, cgroup_owner);
	ck->psi = msim_kmalloc(m, MSIM__PSI_GROUP_BYTES, cgroup_owner);
	ck->name = msim_kmalloc(m, name_bytes, cgroup_owner);
	ck->kn_dir = kernfs_new_nodes(h, 1);
	ck->kn_files = kernfs_new_nodes(h, MSIM__CGROUP_NR_FILES);
	if (h->layout_6_12)
		for (unsigned int i = 0; i < MSIM__CGROUP_NR_FILES; i++)
			ck->kn_names[i] = msim_kmalloc(m, strlen(file_names_612[i]) + 1,
						       cgroup_owner);
}

/* rmdir: kernfs_remove() of the directory drops the file nodes. */
void msim__cgroup_kmem_remove_files(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck)
{
	if (ck->kn_files)
		kernfs_free_nodes(h, MSIM__CGROUP_NR_FILES);
	ck->kn_files = false;
	for (unsigned int i = 0; i < MSIM__CGROUP_NR_FILES; i++) {
		if (ck->kn_names[i])
			msim_kfree(h->m, ck->kn_names[i]);
		ck->kn_names[i] = NULL;
	}
}

/* css_free_rwork_fn() of the self css: everything else. */
void msim__cgroup_kmem_free(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck)
{
	void **objs[] = { &ck->cgroup, &ck->self_ref, &ck->bpf_ref, &ck->psi, &ck->name };

	msim__cgroup_kmem_remove_files(h, ck);
	if (ck->kn_dir)
		kernfs_free_nodes(h, 1);
	ck->kn_dir = false;
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		if (*objs[i])
			msim_kfree(h->m, *objs[i]);
		*objs[i] = NULL;
	}
}
