/* SPDX-License-Identifier: MIT */
/*
 * oracle_model_dying.c - the model side of the oracle's dying-memcg experiment: c
 * reads N pages of a file (msim_filemap_read, charged to c), c is removed, and the
 * page cache is dropped (the mapping truncated), each read after a periodic flush,
 * on a host of the guest's CPU count under the linux-6.12 preset (lru-reparent=off:
 * 6.12's folios name their memcg and pin it, nothing moves to the parent at offline).
 */
#include <stdio.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "oracle.h"

static void dy_state(struct msim *m, struct msim_memcg *p, struct oracle_dying_state *s)
{
	struct msim_memcg_counts n;
	static char buf[16384];
	uint64_t v = 0;

	msim_flush_memcg_stats_dwork(m);         /* the guest reads after 2 x FLUSH_TIME */
	msim_memcg_counts(m, &n);
	/* cgroup.stat nr_dying_descendants: removed, not yet released */
	s->nr_dying = (double)(n.dying + n.offline);
	if (msim_memory_stat_show(p, buf, sizeof(buf)) >= 0)
		msim_memory_stat_lookup(buf, "file", &v);
	s->parent_file = (double)v;
	s->parent_current = (double)msim_memory_current_read(p);
}

int oracle_model_dying(unsigned int cpus, long pages, struct oracle_dying_state out[3],
		       char *err, size_t errlen)
{
	struct msim_config cfg;
	struct msim_address_space *file = NULL;
	struct msim_memcg *p, *c;
	struct msim *m;
	int ret = -1;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.nr_nodes = 1;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.lru = MSIM_LRU_MGLRU;
	if (msim_preset_apply(&cfg.variants, "linux-6.12", err, errlen) ||
	    msim_create(&cfg, &m, err, errlen))
		return -1;
	/* the obj stock: the page cache's xa_nodes are charged through it (nodes.c) */
	if (msim_workingset_attach(m, err, errlen) ||
	    msim_subsys_attach(m, msim_subsys_find("obj_stock"), err, errlen) ||
	    msim_memcg_create(msim_root_mem_cgroup(m), "p", &p) || msim_memcg_create(p, "c", &c) ||
	    msim_address_space_create(m, "f", &file))
		goto out;
	for (long i = 0; i < pages; i++)
		if (msim_filemap_read(file, (unsigned long)i, c, 0, false) < 0)
			goto out;
	dy_state(m, p, &out[0]);
	if (msim_memcg_rmdir(c))
		goto out;
	dy_state(m, p, &out[1]);
	msim_address_space_destroy(file);        /* drop_caches=1: the clean pages go */
	file = NULL;
	msim_memcg_drain(m);                     /* the released memcg's RCU frees */
	dy_state(m, p, &out[2]);
	ret = 0;
out:
	if (ret && !err[0])
		snprintf(err, errlen, "the model's dying-memcg run failed");
	if (file)
		msim_address_space_destroy(file);
	msim_destroy(m);
	return ret;
}
