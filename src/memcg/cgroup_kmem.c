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
 * The memory is bookkeeping only: the model keeps no cgroup fields in it, and
 * the kernel-memory model has no yield point, so no schedule changes. This file
 * calls nothing else in src/memcg (tree.c and lifecycle.c call it).
 */
#include <string.h>

#include "memcg/memcg_internal.h"

static const char *const cgroup_owner = "cgroup";

/* The directory and every file a non-root memcg cgroup shows (rmdir frees the files). */
static void *kernfs_new_node(struct msim__memcg_host *h)
{
	return msim_kmem_cache_alloc(h->m, h->kernfs_cache, cgroup_owner);
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
	ck->kn_dir = kernfs_new_node(h);
	for (unsigned int i = 0; i < MSIM__CGROUP_NR_FILES; i++)
		ck->kn_files[i] = kernfs_new_node(h);
}

/* rmdir: kernfs_remove() of the directory drops the file nodes. */
void msim__cgroup_kmem_remove_files(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck)
{
	for (unsigned int i = 0; i < MSIM__CGROUP_NR_FILES; i++) {
		if (ck->kn_files[i])
			msim_kmem_cache_free(h->m, h->kernfs_cache, ck->kn_files[i]);
		ck->kn_files[i] = NULL;
	}
}

/* css_free_rwork_fn() of the self css: everything else. */
void msim__cgroup_kmem_free(struct msim__memcg_host *h, struct msim__cgroup_kmem *ck)
{
	void **objs[] = { &ck->cgroup, &ck->self_ref, &ck->bpf_ref, &ck->psi, &ck->name };

	msim__cgroup_kmem_remove_files(h, ck);
	if (ck->kn_dir)
		msim_kmem_cache_free(h->m, h->kernfs_cache, ck->kn_dir);
	ck->kn_dir = NULL;
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		if (*objs[i])
			msim_kfree(h->m, *objs[i]);
		*objs[i] = NULL;
	}
}
