/* SPDX-License-Identifier: MIT */
/*
 * oracle.c - `memcgsim oracle`: run the kernel-rig experiments (oracle/, each one a
 * guest boot of Debian's Linux 6.12 under QEMU and the same experiment in the model
 * under the linux-6.12 preset), print one row per figure with the kernel's value,
 * the model's, the rule and the computed verdict, and keep the JSON in the cache
 * directory for `memcgsim report`.
 *
 * Exit status: 0 when every row holds (or is a known departure of docs/oracle.md),
 * 1 when a row does not hold or a guest failed, 2 on a usage error, 3 when the rig
 * cannot run on this machine (no QEMU or kernel package; the message says why).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "oracle.h"

#ifndef MSIM_SOURCE_DIR
#define MSIM_SOURCE_DIR "."
#endif

struct oracle_experiment {
	const char *name;
	const char *what;
	int (*run)(const struct oracle_opts *o, struct oracle_rows *rows, char *err, size_t errlen);
};

static const struct oracle_experiment experiments[] = {
	{ "threshold", "smallest page count a memory.stat read shows (tmpfs, anon; leaf, "
	  "parent, root; after the periodic flush)", oracle_exp_threshold },
	{ "kmem", "kernel memory per empty memcg: slab per cache and per-CPU bytes, with and "
	  "without tmpfs mounts (memcg-aware shrinkers)", oracle_exp_kmem },
	{ "dying", "a memcg removed while it owns page cache (ext2 on brd): nr_dying_descendants, "
	  "the parent's file and memory.current, before and after the cache is dropped",
	  oracle_exp_dying },
	{ "zswap", "the root's zswap shrinker count: a workload in the root is never written "
	  "back, the same workload in a child is (zswap and its shrinker on, swap on brd)",
	  oracle_exp_zswap },
	{ "workingset", "the protectable thrashing workload (ext2 on brd, memory.high): hot-set "
	  "reads, device reads, refaults, activations, restores, shadow nodes; classic and MGLRU",
	  oracle_exp_workingset },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fputs("usage: memcgsim oracle [--experiment NAME] [--cpus N] [--small] [--json] [--help]\n"
	      "\n"
	      "Boots Debian's Linux 6.12 under QEMU (software emulation) for each experiment,\n"
	      "runs the same experiment in the model under the linux-6.12 preset, and prints\n"
	      "per row the kernel's figure, the model's, the rule and the verdict (counts and\n"
	      "bytes only: under emulation timings mean nothing). Progress goes to stderr.\n"
	      "\n"
	      "  --experiment NAME  one experiment (default: all):\n", f);
	for (const struct oracle_experiment *e = experiments; e->name; e++)
		fprintf(f, "                     %-10s %s\n", e->name, e->what);
	fputs("  --cpus N           guest and model CPUs (default: each experiment's list)\n"
	      "  --small            the test's sizes (ctest label kernel)\n"
	      "  --json             the rows as JSON on stdout\n"
	      "\n"
	      "The rig is oracle/ of the source tree (MSIM_ORACLE_DIR overrides it); the kernel\n"
	      "and the results are cached in $MSIM_CACHE_DIR, else $XDG_CACHE_HOME/memcgsim,\n"
	      "else ~/.cache/memcgsim. Exit status: 0 every row holds or is a known departure\n"
	      "(docs/oracle.md), 1 a row does not hold or a guest failed, 2 usage, 3 the rig\n"
	      "cannot run here.\n", f);
}

const char *oracle_cache_dir(void)
{
	static char dir[1024];
	const char *c = getenv("MSIM_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (c && *c)
		snprintf(dir, sizeof(dir), "%s", c);
	else if (x && *x)
		snprintf(dir, sizeof(dir), "%s/memcgsim", x);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/memcgsim", home ? home : ".");
	return dir;
}

static json_t *rows_json(const struct oracle_rows *rows, const char *version, bool small)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < rows->n; i++) {
		const struct oracle_row *r = &rows->v[i];

		json_t *row = json_pack("{s:s, s:s, s:s, s:f, s:f, s:s, s:s, s:s, s:s?}",
			"experiment", r->experiment, "row", r->name, "size", small ? "small" : "full",
			"kernel", r->kernel, "model", r->model, "unit", r->unit, "rule", r->rule,
			"verdict", oracle_verdict_name(r->verdict), "known_departure",
			r->departure ? r->departure->reason : NULL);

		if (r->link)
			json_object_set_new(row, "thread_claim", json_pack("{s:s, s:s, s:s}",
				"bench", r->link->bench, "claim", r->link->claim_prefix,
				"label", r->link->label));
		json_array_append_new(arr, row);
	}
	return json_pack("{s:s, s:s, s:o}", "kernel_package", version ? version : "unknown",
			 "preset", "linux-6.12", "rows", arr);
}

/* Whole numbers (counts, bytes of one object) without decimals, shares with one. */
static int decimals(double v)
{
	return v == (double)(long long)v ? 0 : 1;
}

static void print_rows(const struct oracle_rows *rows, const char *version)
{
	printf("The model (preset linux-6.12) against %s, under QEMU TCG\n\n",
	       version ? version : "Linux 6.12");
	printf("%-10s %-62s %10s %10s %-6s %s\n", "experiment", "row", "kernel", "model", "unit",
	       "verdict");
	for (size_t i = 0; i < rows->n; i++) {
		const struct oracle_row *r = &rows->v[i];

		printf("%-10s %-62s %10.*f %10.*f %-6s %s%s\n", r->experiment, r->name,
		       decimals(r->kernel), r->kernel, decimals(r->model), r->model, r->unit,
		       oracle_verdict_name(r->verdict),
		       r->departure && r->verdict != ORACLE_HOLDS ? " (known departure)" : "");
		printf("%-10s   rule: %s\n", "", r->rule);
		if (r->departure && r->verdict != ORACLE_HOLDS)
			printf("%-10s   known departure [%s]: %s\n", "", r->departure->row_prefix,
			       r->departure->reason);
	}
}

/* Whether doc's rows hold a row of experiment exp. */
static bool doc_has_experiment(json_t *doc, const char *exp)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(doc, "rows"), i, r) {
		const char *e = json_string_value(json_object_get(r, "experiment"));

		if (e && !strcmp(e, exp))
			return true;
	}
	return false;
}

/*
 * The rows of an earlier run (the file at path) of every experiment this run did
 * not run go after this run's own, so that one experiment run alone keeps the
 * others' results for the report.
 */
static json_t *merged_with_earlier(json_t *doc, const char *path)
{
	json_t *old = json_load_file(path, 0, NULL), *merged = json_deep_copy(doc), *r;
	json_t *rows = json_object_get(merged, "rows");
	size_t i;

	json_array_foreach(json_object_get(old, "rows"), i, r) {
		const char *e = json_string_value(json_object_get(r, "experiment"));

		if (e && !doc_has_experiment(doc, e))
			json_array_append(rows, r);
	}
	json_decref(old);
	return merged;
}

/* The cache's copy, for `memcgsim report` (oracle-PACKAGE_VERSION.json). */
static void save_json(json_t *doc, const char *version)
{
	char path[1400], name[300];
	size_t n = 0;
	json_t *merged;

	for (const char *p = version ? version : "unknown"; *p && n + 1 < sizeof(name); p++)
		name[n++] = (*p == ' ' || *p == '/') ? '_' : *p;
	name[n] = '\0';
	mkdir(oracle_cache_dir(), 0755);
	snprintf(path, sizeof(path), "%s/oracle-%s.json", oracle_cache_dir(), name);
	merged = merged_with_earlier(doc, path);
	if (json_dump_file(merged, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER))
		fprintf(stderr, "oracle: could not write %s\n", path);
	else
		fprintf(stderr, "oracle: results kept in %s (with the other experiments' "
			"earlier rows)\n", path);
	json_decref(merged);
}

static int parse_args(int argc, char **argv, struct oracle_opts *o, const char **only,
		      bool *json)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else if (!strcmp(argv[i], "--small")) {
			o->small = true;
		} else if (!strcmp(argv[i], "--experiment") && i + 1 < argc) {
			*only = argv[++i];
		} else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);

			if (*end || v < 1 || v > 64) {
				fprintf(stderr, "memcgsim oracle: --cpus takes 1..64, not '%s'\n", argv[i]);
				return 2;
			}
			o->cpus = (unsigned int)v;
		} else {
			fprintf(stderr, "memcgsim oracle: unknown or incomplete argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (*only) {
		for (const struct oracle_experiment *e = experiments; e->name; e++)
			if (!strcmp(e->name, *only))
				return -1;
		fprintf(stderr, "memcgsim oracle: unknown experiment '%s'\n", *only);
		usage(stderr);
		return 2;
	}
	return -1;
}

static int verdict_status(const struct oracle_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		if (rows->v[i].verdict == ORACLE_DOES_NOT_HOLD && !rows->v[i].departure)
			return 1;
	return 0;
}

int msim_cli_oracle(int argc, char **argv)
{
	struct oracle_opts o = { 0 };
	struct oracle_rows rows = { 0 };
	const char *only = NULL, *version;
	bool json = false;
	char err[512] = "";
	int ret = parse_args(argc, argv, &o, &only, &json);
	json_t *doc;

	if (ret >= 0)
		return ret;
	o.rig_dir = getenv("MSIM_ORACLE_DIR") ? getenv("MSIM_ORACLE_DIR") : MSIM_SOURCE_DIR "/oracle";
	ret = 0;
	for (const struct oracle_experiment *e = experiments; e->name && !ret; e++) {
		if (only && strcmp(only, e->name))
			continue;
		fprintf(stderr, "oracle: experiment %s (%s)\n", e->name, o.small ? "small" : "full");
		err[0] = '\0';
		ret = e->run(&o, &rows, err, sizeof(err));
	}
	if (ret) {
		fprintf(stderr, "memcgsim oracle: %s\n", err);
		oracle_rows_free(&rows);
		return ret == 1 ? 3 : 1;
	}
	oracle_mark_departures(&rows);
	version = oracle_kernel_version(&o);
	doc = rows_json(&rows, version, o.small);
	if (json) {
		json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else {
		print_rows(&rows, version);
	}
	save_json(doc, version);
	json_decref(doc);
	ret = verdict_status(&rows);
	oracle_rows_free(&rows);
	return ret;
}
