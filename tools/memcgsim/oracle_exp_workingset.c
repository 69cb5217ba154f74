/* SPDX-License-Identifier: MIT */
/*
 * oracle_exp_workingset.c - experiment "workingset": the protectable thrashing
 * workload (bench thrashing-protection's, bench/bench_workingset_run.c) in the guest
 * (oracle/guest/workingset.c: ext2 on brd, memory.high, the classic LRU and MGLRU) and
 * in the model at the same sizes under the linux-6.12 preset (MGLRU's 6.12 protection
 * rule, the page-state-local shadow budget 6.12's count_shadow_nodes() computes).
 *
 * Figures per LRU kind, summed over the rounds: hot pages read from storage, reads
 * that missed the page cache (hot and cold: mincore() before each read), pages
 * read from the device (the guest's cold stream is a hole, so its device reads are
 * the hot set's misses plus the file system's metadata; the model's are its hot
 * misses), workingset_refault_file, _activate_file, _restore_file; at the end: shadow
 * nodes (workingset_nodes) and the hot pages resident.
 *
 * The band, fixed before any figure was seen: a count agrees when it is within a
 * factor of 2 of the kernel's, or within hot/16 pages of it. Why: the kernel's
 * reclaim moves in batches the model's workload does not reproduce page for page
 * (SWAP_CLUSTER_MAX per reclaim call, the per-CPU LRU-add batches of 15 folios, the
 * 64-page charge stock, the file system's metadata pages charged to the same memcg),
 * which moves a count by a fraction of the hot set; protection that works against
 * protection that fails is a difference of the whole hot set in every round, far
 * outside the band. The ordering between the LRU kinds (classic below, equal to or
 * above MGLRU, "equal" meaning within hot/16) must be the kernel's for every count.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

#include "bench_workingset.h"
#include "oracle.h"

enum ws_fig {
	WS_HOT_READS,
	WS_MISSES,
	WS_DEVICE,
	WS_REFAULT,
	WS_ACTIVATE,
	WS_RESTORE,
	WS_NODES,
	WS_RESIDENT,
	WS_NFIGS,
};

static const struct {
	const char *name, *unit, *key;
} ws_figs[WS_NFIGS] = {
	[WS_HOT_READS] = { "hot pages read from storage", "pages", "hot_misses" },
	[WS_MISSES] = { "reads that missed the page cache", "pages", NULL },
	[WS_DEVICE] = { "pages read from the device", "pages", "device_pages" },
	[WS_REFAULT] = { "workingset_refault_file", "", "workingset_refault_file" },
	[WS_ACTIVATE] = { "workingset_activate_file", "", "workingset_activate_file" },
	[WS_RESTORE] = { "workingset_restore_file", "", "workingset_restore_file" },
	[WS_NODES] = { "workingset_nodes at the end", "nodes", "workingset_nodes" },
	[WS_RESIDENT] = { "hot pages resident at the end", "pages", "hot_resident" },
};

/* The figures that are the last round's state, not a sum over rounds. */
static bool ws_fig_is_state(int f)
{
	return f == WS_NODES || f == WS_RESIDENT;
}

static const char *const ws_kinds[2] = { "classic", "mglru" };

static double jnum(json_t *obj, const char *key)
{
	return json_number_value(json_object_get(obj, key));
}

/* Progress: one guest round line, as the model's rounds are printed. */
static void print_kernel_round(int kind, int round, json_t *obj)
{
	fprintf(stderr, "oracle: workingset, %s, kernel round %d: hot misses %.0f, misses %.0f, "
		"hot resident %.0f, refaults %.0f, activations %.0f, restores %.0f, "
		"workingset_nodes %.0f\n", ws_kinds[kind], round, jnum(obj, "hot_misses"),
		jnum(obj, "hot_misses") + jnum(obj, "cold_misses"), jnum(obj, "hot_resident"),
		jnum(obj, "workingset_refault_file"), jnum(obj, "workingset_activate_file"),
		jnum(obj, "workingset_restore_file"), jnum(obj, "workingset_nodes"));
}

/* The kernel's figures of one LRU kind from the guest's round lines; -1: no round. */
static int kernel_figs(json_t *lines, int kind, double fig[WS_NFIGS])
{
	json_t *obj;
	size_t i;
	int rounds = 0;

	for (int f = 0; f < WS_NFIGS; f++)
		fig[f] = 0;
	json_array_foreach(lines, i, obj) {
		const char *lru = json_string_value(json_object_get(obj, "lru"));

		if (!lru || strcmp(lru, ws_kinds[kind]))
			continue;
		print_kernel_round(kind, rounds++, obj);
		for (int f = 0; f < WS_NFIGS; f++) {
			double v = f == WS_MISSES ? jnum(obj, "hot_misses") + jnum(obj, "cold_misses")
						  : jnum(obj, ws_figs[f].key);

			fig[f] = ws_fig_is_state(f) ? v : fig[f] + v;
		}
	}
	return rounds ? 0 : -1;
}

static void ws_model_opts(struct bench_tp_opts *t, int kind, const unsigned long size[6])
{
	bench_tp_opts_init(t, BENCH_TP_PROTECTABLE, kind ? MSIM_LRU_MGLRU : MSIM_LRU_CLASSIC,
			  MSIM_SHADOW_BUDGET_PAGE_STATE_LOCAL, MSIM_MGLRU_PROTECTION_6_12);
	t->memcg_pages = size[0];
	t->hot_pages = size[1];
	t->hot_stride = size[2];
	t->hot_reads = size[3];
	t->cold_per_hot = size[4];
	t->rounds = size[5];
}

static int model_figs(int kind, const unsigned long size[6], double fig[WS_NFIGS], char *err,
		      size_t errlen)
{
	struct bench_tp_opts t;
	struct bench_tp_result r;

	ws_model_opts(&t, kind, size);
	if (msim_preset_apply(&t.base, "linux-6.12", err, errlen))
		return -1;
	if (msim_variant_set_value(&t.base, "shadow-budget", t.budget) ||
	    msim_variant_set_value(&t.base, "mglru-protection", t.protection))
		return -1;
	if (bench_tp_run(&t, &r, err, errlen))
		return -1;
	for (unsigned long i = 0; i < r.nr_rounds; i++) {
		const struct bench_tp_round *rr = &r.round[i];

		fprintf(stderr, "oracle: workingset, %s, model round %lu: hot misses %lu, misses "
			"%lu, hot resident %lu, refaults %lu, activations %lu, restores %lu, "
			"shadow nodes %lu\n", ws_kinds[kind], i, rr->hot_storage_reads,
			rr->storage_reads, rr->hot_resident, rr->refaults, rr->activations,
			rr->restores, rr->shadow_nodes);
	}
	fig[WS_HOT_READS] = (double)r.hot_storage_reads;
	fig[WS_MISSES] = (double)r.storage_reads;
	fig[WS_DEVICE] = (double)r.hot_storage_reads;
	fig[WS_REFAULT] = (double)r.refaults;
	fig[WS_ACTIVATE] = (double)r.activations;
	fig[WS_RESTORE] = (double)r.restores;
	fig[WS_NODES] = (double)r.shadow_nodes_end;
	fig[WS_RESIDENT] = (double)r.hot_resident_end;
	return 0;
}

static bool within_band(double k, double m, double floor)
{
	return fabs(k - m) <= floor || (k > 0 && m > 0 && fmax(k, m) <= 2 * fmin(k, m));
}

/* '<', '=' or '>' of classic against MGLRU, '=' within the floor. */
static char ordering(double classic, double mglru, double floor)
{
	if (fabs(classic - mglru) <= floor)
		return '=';
	return classic < mglru ? '<' : '>';
}

/* The bench claims whose storage reads the rows "reads that missed the page cache" measure. */
static const struct oracle_thread_link ws_links[2] = {
	{ "thrashing-protection", "classic LRU maintains lru_zone_size",
	  "storage reads (patch 1), classic" },
	{ "thrashing-protection", "the same under the 6.12 rules",
	  "storage reads (patch 1), MGLRU 6.12" },
};

static void ws_rows(struct oracle_rows *rows, double k[2][WS_NFIGS], double m[2][WS_NFIGS],
		    double floor, const char *sizes)
{
	char name[96], rule[160];

	snprintf(rule, sizeof(rule), "within a factor of 2 of the kernel's or within %lu "
		 "(hot/16) of it; %.60s", (unsigned long)floor, sizes);
	for (int f = 0; f < WS_NFIGS; f++)
		for (int kind = 0; kind < 2; kind++) {
			snprintf(name, sizeof(name), "%s: %s", kind ? "MGLRU" : "classic",
				 ws_figs[f].name);
			struct oracle_row *r = oracle_row_judged(rows, "workingset", name,
				k[kind][f], m[kind][f], ws_figs[f].unit, rule,
				within_band(k[kind][f], m[kind][f], floor));

			if (f == WS_MISSES)
				r->link = &ws_links[kind];
		}
	for (int f = 0; f < WS_NFIGS; f++) {
		char ko = ordering(k[0][f], k[1][f], floor), mo = ordering(m[0][f], m[1][f], floor);

		snprintf(name, sizeof(name), "ordering classic %c MGLRU: %s", ko, ws_figs[f].name);
		snprintf(rule, sizeof(rule), "the model's ordering of classic against MGLRU is "
			 "the kernel's (columns: classic minus MGLRU; '=' within %lu); model: "
			 "classic %c MGLRU", (unsigned long)floor, mo);
		oracle_row_judged(rows, "workingset", name, k[0][f] - k[1][f], m[0][f] - m[1][f],
				  ws_figs[f].unit, rule, ko == mo);
	}
}

int oracle_exp_workingset(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
			  size_t errlen)
{
	/* memcg pages, hot pages, stride, reads per visit, cold pages per hot page, rounds */
	const unsigned long size[6] = { o->small ? 4096 : 16384, o->small ? 2048 : 8192, 8, 3, 2,
					o->small ? 4 : 8 };
	const unsigned int cpus = 2;   /* the model's thrashing host has 2 CPUs */
	char a[6][32], sizes[96];
	const char *args[7];
	static const char *const keys[6] = { "memcg_pages", "hot", "stride", "reads", "cold",
					     "rounds" };
	double k[2][WS_NFIGS], m[2][WS_NFIGS];
	json_t *lines;
	int ret;

	if (o->cpus && o->cpus != cpus) {
		fprintf(stderr, "oracle: workingset runs at %u CPUs only (the model's thrashing "
			"host), not %u\n", cpus, o->cpus);
		return 0;
	}
	for (int i = 0; i < 6; i++) {
		snprintf(a[i], sizeof(a[i]), "%s=%lu", keys[i], size[i]);
		args[i] = a[i];
	}
	args[6] = NULL;
	ret = oracle_guest_run(o, "workingset", cpus, 512, 600, args, &lines, err, errlen);
	if (ret) {
		json_decref(lines);
		return ret;
	}
	for (int kind = 0; kind < 2 && !ret; kind++) {
		if (kernel_figs(lines, kind, k[kind])) {
			snprintf(err, errlen, "the guest printed no %s round", ws_kinds[kind]);
			ret = -1;
			break;
		}
		fprintf(stderr, "oracle: workingset, %s: the model's side\n", ws_kinds[kind]);
		ret = model_figs(kind, size, m[kind], err, errlen);
	}
	json_decref(lines);
	if (ret)
		return ret;
	snprintf(sizes, sizeof(sizes), "memcg %lu, hot %lu x%lu, %lu rounds", size[0], size[1],
		 size[3], size[5]);
	ws_rows(rows, k, m, (double)size[1] / 16, sizes);
	return 0;
}
