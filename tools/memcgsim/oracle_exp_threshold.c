/* SPDX-License-Identifier: MIT */
/*
 * oracle_exp_threshold.c - experiment "threshold": the smallest number of pages
 * written in a fresh leaf memcg that a memory.stat read shows (guest:
 * oracle/guest/threshold.c; model: oracle_model_threshold.c). The figure checks
 * which statistics one page write updates and by how much, the per-CPU batch (64)
 * and the threshold (64 x online CPUs, strict), together: the kernel's and the
 * model's smallest count must be equal, to the page.
 */
#include <stdio.h>
#include <string.h>

#include "oracle.h"

static const char *const kind_names[] = { "tmpfs", "anon" };

/* The guest line with exp, row and kind (and pages >= 0 if given), or NULL. */
static json_t *find_line(json_t *lines, const char *row, const char *kind, long pages)
{
	size_t i;
	json_t *obj;

	json_array_foreach(lines, i, obj) {
		const char *r = json_string_value(json_object_get(obj, "row"));
		const char *k = json_string_value(json_object_get(obj, "kind"));

		if (!r || !k || strcmp(r, row) || strcmp(k, kind))
			continue;
		if (pages >= 0 && json_integer_value(json_object_get(obj, "pages")) != pages)
			continue;
		return obj;
	}
	return NULL;
}

static long get_int(json_t *obj, const char *key)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;

	return json_is_integer(v) ? (long)json_integer_value(v) : -3;
}

static int model_edge(enum oracle_page_kind k, unsigned int cpus, long n, bool quiet,
		      bool periodic, struct oracle_model_reading *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (n < 1)
		return 0;
	return oracle_model_threshold_trial(k, cpus, n, quiet, periodic, r, err, errlen);
}

static int kind_rows(json_t *lines, enum oracle_page_kind k, unsigned int cpus, long max,
		     struct oracle_rows *rows, char *err, size_t errlen)
{
	const char *kn = kind_names[k];
	json_t *res = find_line(lines, "result", kn, -1);
	long leaf_min = get_int(res, "leaf_min"), parent_min = get_int(res, "parent_min");
	json_t *below = find_line(lines, "edge", kn, leaf_min - 1);
	json_t *at = find_line(lines, "edge", kn, leaf_min);
	json_t *per = find_line(lines, "periodic", kn, -1);
	struct oracle_model_reading mb, ma, mp;
	char name[96];
	long m_leaf, m_parent;

	if (!res || leaf_min < 2 || !below || !at || !per)
		return snprintf(err, errlen, "the guest's %s threshold lines are missing or out of "
				"range (leaf_min %ld; raise oracle.max?)", kn, leaf_min), -1;
	m_leaf = oracle_model_threshold_min(k, cpus, max, false, err, errlen);
	m_parent = oracle_model_threshold_min(k, cpus, max, true, err, errlen);
	if (m_leaf < -1 || m_parent < -1 ||
	    model_edge(k, cpus, leaf_min - 1, true, false, &mb, err, errlen) ||
	    model_edge(k, cpus, leaf_min, true, false, &ma, err, errlen) ||
	    model_edge(k, cpus, 1, false, true, &mp, err, errlen))
		return -1;
	snprintf(name, sizeof(name), "%s leaf, %u CPUs: smallest count shown", kn, cpus);
	oracle_row_equal(rows, "threshold", name, leaf_min, m_leaf, "pages",
			 "equal, to the page (fresh leaf, writer on CPU 0, reader outside)");
	snprintf(name, sizeof(name), "%s parent, fresh, %u CPUs: smallest count shown", kn, cpus);
	oracle_row_equal(rows, "threshold", name, parent_min, m_parent, "pages",
			 "equal, to the page (the parent read right after the leaf's)");
	snprintf(name, sizeof(name), "%s parent after a periodic flush, %u CPUs: shows %ld pages",
		 kn, cpus, leaf_min - 1);
	oracle_row_equal(rows, "threshold", name, get_int(below, "parent"), mb.parent, "0/1",
			 "equal: 0 (stale) one page below the leaf's count");
	snprintf(name, sizeof(name), "%s parent after a periodic flush, %u CPUs: shows %ld pages",
		 kn, cpus, leaf_min);
	oracle_row_equal(rows, "threshold", name, get_int(at, "parent"), ma.parent, "0/1",
			 "equal: 1 (exact) at the leaf's count, like the leaf");
	snprintf(name, sizeof(name), "%s root after a periodic flush, %u CPUs: shows %ld pages",
		 kn, cpus, leaf_min);
	oracle_row_equal(rows, "threshold", name, get_int(at, "root"), ma.root, "0/1",
			 "equal: 1, the root counts every update of its descendants (the kernel's "
			 "root also counts the guest's own, so below the count it is not compared)");
	snprintf(name, sizeof(name), "%s leaf, one page, %u CPUs: shown after 2 x FLUSH_TIME",
		 kn, cpus);
	oracle_row_equal(rows, "threshold", name, get_int(per, "leaf"), mp.leaf, "0/1",
			 "equal: 1 (the kernel's periodic flush every 2 s; the model runs "
			 "flush_memcg_stats_dwork, so its 1 is by construction)");
	return 0;
}

int oracle_exp_threshold(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
			 size_t errlen)
{
	/* the test's run (--small) leaves out 8 CPUs: one more boot of about a minute */
	static const unsigned int default_cpus[] = { 2, 4, 8 };
	const unsigned int *cpus = o->cpus ? &o->cpus : default_cpus;
	size_t ncpus = o->cpus ? 1 : o->small ? 2 : sizeof(default_cpus) / sizeof(default_cpus[0]);
	const long max = o->small ? 200 : 480;
	const char *args_small[] = { "trials=1", "max=200", NULL };
	const char *args_full[] = { "trials=3", "max=480", NULL };

	for (size_t c = 0; c < ncpus; c++) {
		json_t *lines;
		int ret = oracle_guest_run(o, "threshold", cpus[c], 512, o->small ? 300 : 600,
					   o->small ? args_small : args_full, &lines, err, errlen);

		if (ret) {
			json_decref(lines);
			return ret;
		}
		fprintf(stderr, "oracle: threshold at %u CPUs: the model's side\n", cpus[c]);
		for (int k = ORACLE_TMPFS; k <= ORACLE_ANON && !ret; k++)
			ret = kind_rows(lines, (enum oracle_page_kind)k, cpus[c], max, rows, err,
					errlen);
		json_decref(lines);
		if (ret)
			return ret;
	}
	return 0;
}
