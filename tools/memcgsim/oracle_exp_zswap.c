/* SPDX-License-Identifier: MIT */
/*
 * oracle_exp_zswap.c - experiment "zswap": the root's zswap shrinker count (guest:
 * oracle/guest/zswap.c, zswap and its shrinker on, swap on brd, proactive reclaim of
 * the workload's cgroup; model: the same workload on a zswap host under the
 * linux-6.12 preset). In 6.12 zswap_shrinker_count() takes the root's compression
 * ratio from the root's MEMCG_ZSWAP_B and MEMCG_ZSWAPPED, which never count the
 * root's own entries (obj_cgroup_charge_zswap skips the root's objcg): a workload in
 * the root is never written back by the shrinker; the same workload in a child is.
 * Rule: the kernel's written-back count and the model's are both zero, or both not
 * (the counts themselves are not compared: the kernel's reclaim runs shrink_slab at
 * whatever priorities it reaches, the model's pressure at priority 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "oracle.h"

/* The model: n anon pages of memcg pushed into zswap, then rounds of shrink_slab. */
static int model_written_back(unsigned int cpus, bool child, unsigned int n,
			      unsigned int rounds, double *wb, char *err, size_t errlen)
{
	struct msim_zswap_params p;
	struct msim_config cfg;
	struct msim_zswap_stats st;
	struct msim_swap_pte *pte = calloc(n, sizeof(*pte));
	struct msim_memcg *memcg;
	struct msim *m = NULL;
	int ret = -1;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.mode = MSIM_DETERMINISTIC;
	cfg.lru = MSIM_LRU_MGLRU;
	msim_zswap_params_init(&p);
	if (!pte || msim_preset_apply(&cfg.variants, "linux-6.12", err, errlen) ||
	    msim_create(&cfg, &m, err, errlen))
		goto out;
	if (msim_rstat_init(m, NULL) || msim_zswap_attach(m, &p, err, errlen))
		goto out;
	memcg = msim_root_mem_cgroup(m);
	if (child && msim_memcg_create(memcg, "c", &memcg))
		goto out;
	for (unsigned int i = 0; i < n; i++) {
		msim_swap_pte_init(&pte[i]);
		if (msim_zswap_anon_fault(&pte[i], memcg, 0))
			goto out;
	}
	msim_zswap_reclaim(memcg, n, -1);
	for (unsigned int r = 0; r < rounds; r++)
		msim_shrink_slab(m, 0, memcg, 0);
	msim_zswap_stats(m, &st);
	*wb = (double)st.zswpwb;
	ret = 0;
out:
	for (unsigned int i = 0; m && pte && i < n; i++)
		msim_zswap_pte_free(m, &pte[i]);
	free(pte);
	if (m)
		msim_destroy(m);
	if (ret && !err[0])
		snprintf(err, errlen, "the model's zswap run failed");
	return ret;
}

/* 6.12 is the "before" of the fix: the root's workload is never written back. */
static const struct oracle_thread_link root_link = {
	"zswap-root-count", "before the fix, the shrinker wrote back no pages",
	"zswpwb, workload in the root",
};

int oracle_exp_zswap(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
		     size_t errlen)
{
	/*
	 * Each of the guest's 8 memory.reclaim writes runs shrink_slab many times, at the
	 * priorities its reclaim loop reaches; the model's pressure is 64 rounds at
	 * priority 0, each of which stops at the first batch of 128 that writes nothing
	 * back (the entries' second chance takes the first 16 rounds for 2048 entries).
	 */
	const unsigned int cpus = o->cpus ? o->cpus : 2, rounds = 64;
	const unsigned int pages = o->small ? 2048 : 4096;
	static const char *const workloads[2] = { "root", "child" };
	char a_pages[32], name[96];
	const char *args[] = { a_pages, "rounds=8", NULL };
	json_t *lines, *obj;
	size_t i;
	int ret;

	snprintf(a_pages, sizeof(a_pages), "pages=%u", pages);
	ret = oracle_guest_run(o, "zswap", cpus, 512, 300, args, &lines, err, errlen);
	if (ret) {
		json_decref(lines);
		return ret;
	}
	fprintf(stderr, "oracle: zswap at %u CPUs: the model's side\n", cpus);
	for (int w = 0; w < 2 && !ret; w++) {
		double kwb = -1, mwb = -1;
		struct oracle_row *r;

		json_array_foreach(lines, i, obj) {
			const char *wl = json_string_value(json_object_get(obj, "workload"));

			if (wl && !strcmp(wl, workloads[w]))
				kwb = json_number_value(json_object_get(obj, "zswpwb"));
		}
		if (kwb < 0) {
			snprintf(err, errlen, "the guest's zswap '%s' line is missing", workloads[w]);
			ret = -1;
			break;
		}
		ret = model_written_back(cpus, w == 1, pages, rounds, &mwb, err, errlen);
		if (ret)
			break;
		snprintf(name, sizeof(name), "pages written back, workload in the %s, %u pages",
			 workloads[w], pages);
		r = oracle_row_judged(rows, "zswap", name, kwb, mwb, "pages",
				  "both zero or both not (zswpwb after the workload went into zswap "
				  "and reclaim ran: 8 memory.reclaim writes; the model 64 shrink_slab "
				  "rounds)", (kwb == 0) == (mwb == 0));

		if (w == 0)
			r->link = &root_link;
	}
	json_decref(lines);
	return ret;
}
