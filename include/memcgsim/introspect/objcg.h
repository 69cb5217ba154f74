/* SPDX-License-Identifier: MIT */
/*
 * introspect/objcg.h - what tests read of the object cgroups' insides (objcg.h):
 * a node's original objcg, raw reference counts, the inherited list, the obj
 * stock's cache and the layer's event counts. Not exported, not installed
 * (introspect.h says why).
 */
#ifndef MEMCGSIM_INTROSPECT_OBJCG_H
#define MEMCGSIM_INTROSPECT_OBJCG_H

#include <stdbool.h>

#include <memcgsim/objcg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pn->orig_objcg: the node's own objcg, kept until the memcg is freed. */
struct msim_obj_cgroup *msim_memcg_orig_objcg(struct msim_memcg *memcg, unsigned int nid);
/* Raw reference count; killed: the initial reference was dropped at offline. */
long msim_obj_cgroup_refcount(const struct msim_obj_cgroup *objcg);
bool msim_obj_cgroup_killed(const struct msim_obj_cgroup *objcg);
/* Objcgs on memcg's pn->objcg_list (inherited from dead descendants). */
unsigned long msim_memcg_objcg_list_count(struct msim_memcg *memcg, unsigned int nid);

struct msim_objcg_counts {
	unsigned long live;              /* allocated and not yet released */
	unsigned long allocated_total;
	unsigned long released_total;    /* reference count reached 0 */
	unsigned long reparented_total;  /* objcgs repointed at an offline (per node) */
	unsigned long reparent_retries;  /* recheck failures (MGLRU) */
	unsigned long deferred_releases; /* releases that found objcg_lock busy */
};
void msim_objcg_counts(struct msim *m, struct msim_objcg_counts *out);

/* ---- the obj stock ("obj_stock", objcg.h) ---- */

/* Bytes cached in cpu's obj stock and its objcg (NULL when empty). */
struct msim_obj_cgroup *msim_obj_stock_cached(struct msim *m, unsigned int cpu,
					      unsigned long *nr_bytes);
/* kernel: objcg->nr_charged_bytes (bytes of a drained stock not yet returned as pages). */
long msim_obj_cgroup_nr_charged_bytes(const struct msim_obj_cgroup *objcg);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_INTROSPECT_OBJCG_H */
