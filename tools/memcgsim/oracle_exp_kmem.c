/* SPDX-License-Identifier: MIT */
/*
 * oracle_exp_kmem.c - experiment "kmem": the kernel memory of one empty memcg (its
 * cgroup with the memory controller on), per slab cache and per-CPU, with 0 and M
 * tmpfs mounts (each a memcg-aware shrinker; the full run adds a third phase with
 * 20000). Guest: oracle/guest/kmem.c (slabinfo
 * and meminfo deltas over N mkdirs, slub_nomerge); model: oracle_model_kmem.c. The
 * kernel's kmalloc-N and kmalloc-cg-N (accounted) caches are one class here, as the
 * model charges by class. Each cache that holds at least 2% of the kernel's slab
 * per memcg is a row, the rest one row together; every row agrees within 5%.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

#define MAX_ROWS 64

struct kcache {
	char name[48];
	double kernel, model;     /* bytes per memcg */
};

static void class_name(const char *cache, char *out, size_t len)
{
	if (!strncmp(cache, "kmalloc-cg-", 11))
		snprintf(out, len, "kmalloc-%s", cache + 11);
	else
		snprintf(out, len, "%s", cache);
}

static struct kcache *slot(struct kcache *v, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	if (*n == MAX_ROWS)
		return NULL;
	memset(&v[*n], 0, sizeof(v[*n]));
	snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
	return &v[(*n)++];
}

static double num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

/* The kernel's caches of one phase, bytes per memcg (the on side's delta / N). */
static size_t kernel_caches(json_t *lines, long mounts, struct kcache *v)
{
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(lines, i, o) {
		const char *row = json_string_value(json_object_get(o, "row"));
		char name[48];
		struct kcache *c;

		if (!row || strcmp(row, "cache") || (long)num(o, "mounts") != mounts)
			continue;
		class_name(json_string_value(json_object_get(o, "cache")), name, sizeof(name));
		c = slot(v, &n, name);
		if (c && num(o, "per_slab") > 0)
			c->kernel += num(o, "d_on") / num(o, "n") * num(o, "pages_per_slab") * 4096 /
				     num(o, "per_slab");
	}
	return n;
}

static json_t *meminfo_line(json_t *lines, long mounts)
{
	size_t i;
	json_t *o;

	json_array_foreach(lines, i, o) {
		const char *row = json_string_value(json_object_get(o, "row"));

		if (row && !strcmp(row, "meminfo") && (long)num(o, "mounts") == mounts)
			return o;
	}
	return NULL;
}

static const struct oracle_thread_link table1_link = {
	"shrinker-units", "table 1: both on-demand designs drop most",
	"slab per empty memcg with 20000 mounts, base array (6.12's layout)",
};

static void phase_rows(const struct kcache *v, size_t n, double ktotal, double mtotal,
		       double kpcpu, double mpcpu, long mounts, unsigned int cpus,
		       struct oracle_rows *rows)
{
	double small_k = 0, small_m = 0;
	struct oracle_row *total;
	char name[96];

	snprintf(name, sizeof(name), "slab per memcg, total, %ld mounts, %u CPUs", mounts, cpus);
	total = oracle_row_within(rows, "kmem", name, ktotal, mtotal, "bytes", 5,
				  "within 5% (kernel: /proc/meminfo Slab delta / N)");
	/* thread 001's table 1 (20000 mounts): 6.12 keeps the base array of units */
	if (mounts == 20000)
		total->link = &table1_link;
	snprintf(name, sizeof(name), "per-CPU per memcg, %ld mounts, %u CPUs", mounts, cpus);
	oracle_row_within(rows, "kmem", name, kpcpu, mpcpu, "bytes", 5,
			  "within 5% (kernel: /proc/meminfo Percpu delta / N)");
	for (size_t i = 0; i < n; i++) {
		if (v[i].kernel < 0.02 * ktotal && v[i].model < 0.02 * ktotal) {
			small_k += v[i].kernel;
			small_m += v[i].model;
			continue;
		}
		snprintf(name, sizeof(name), "slab per memcg in %.47s, %ld mounts", v[i].name, mounts);
		oracle_row_within(rows, "kmem", name, v[i].kernel, v[i].model, "bytes", 5,
				  "within 5% (kernel: slabinfo active objects x slab bytes per object)");
	}
	snprintf(name, sizeof(name), "slab per memcg in caches under 2%% each, %ld mounts", mounts);
	oracle_row_within(rows, "kmem", name, small_k, small_m, "bytes", 5,
			  "within 5%, the caches that hold under 2% of the total each, together");
}

static int kmem_phase(json_t *lines, long mounts, unsigned int cpus, struct oracle_rows *rows,
		      char *err, size_t errlen)
{
	struct kcache v[MAX_ROWS];
	struct oracle_kmem_model km;
	json_t *mi = meminfo_line(lines, mounts);
	size_t n = kernel_caches(lines, mounts, v);

	if (!mi || !n)
		return snprintf(err, errlen, "the guest's kmem lines for %ld mounts are missing",
				mounts), -1;
	if (oracle_model_kmem(cpus, (unsigned int)mounts, 128, &km, err, errlen))
		return -1;
	for (size_t i = 0; i < km.n; i++) {
		struct kcache *c = slot(v, &n, km.c[i].name);

		if (c)
			c->model += km.c[i].bytes;
	}
	phase_rows(v, n, num(mi, "slab_kb_on") * 1024 / num(mi, "n"), km.slab_bytes,
		   num(mi, "percpu_kb_on") * 1024 / num(mi, "n"), km.percpu_bytes, mounts, cpus,
		   rows);
	return 0;
}

int oracle_exp_kmem(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
		    size_t errlen)
{
	/*
	 * The full run adds 20000 mounts (20000 memcg-aware shrinkers: each memcg's
	 * shrinker_info then holds 313 units); the guest needs 3 GiB for them and the
	 * 2 x N memcgs.
	 */
	const unsigned int cpus = o->cpus ? o->cpus : 2;
	const long mounts = o->small ? 1000 : 2000, mounts3 = o->small ? 0 : 20000;
	char a_n[32], a_m[32], a_m3[32];
	const char *args[] = { a_n, "mounts1=0", a_m, a_m3, NULL };
	json_t *lines;
	int ret;

	snprintf(a_n, sizeof(a_n), "n=%d", o->small ? 1000 : 2000);
	snprintf(a_m, sizeof(a_m), "mounts2=%ld", mounts);
	snprintf(a_m3, sizeof(a_m3), "mounts3=%ld", mounts3);
	ret = oracle_guest_run(o, "kmem", cpus, o->small ? 2048 : 3072, o->small ? 300 : 900,
			       args, &lines, err, errlen);
	if (!ret) {
		fprintf(stderr, "oracle: kmem at %u CPUs: the model's side\n", cpus);
		ret = kmem_phase(lines, 0, cpus, rows, err, errlen);
		ret = ret ? ret : kmem_phase(lines, mounts, cpus, rows, err, errlen);
		if (!ret && mounts3)
			ret = kmem_phase(lines, mounts3, cpus, rows, err, errlen);
	}
	json_decref(lines);
	return ret;
}
