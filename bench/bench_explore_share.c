/* SPDX-License-Identifier: MIT */
/*
 * explore's cases spread over processes: a counter in a shared file hands out
 * the next case (`--share FILE`), and the --json documents of the processes
 * that shared it merge into what one process would have printed (`--merge`).
 * Each case is a fixed set of explorations (the race's own budgets and seed),
 * so where it ran changes none of its counts; the cases take from a few
 * milliseconds to a minute, hence one at a time rather than a fixed split.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <jansson.h>

#include <memcgsim/race.h>

#include "bench_explore.h"

long bench_ex_claim(int fd)
{
	unsigned char buf[16] = { 0 };
	long next = -1;
	ssize_t n;

	if (flock(fd, LOCK_EX))
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n >= 0) {
		next = n ? strtol((const char *)buf, NULL, 10) : 0;
		n = (ssize_t)snprintf((char *)buf, sizeof(buf), "%015ld", next + 1);
		if (pwrite(fd, buf, (size_t)n, 0) != n)
			next = -1;
	}
	flock(fd, LOCK_UN);
	return next;
}

static bool jbool(json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

static unsigned int juint(json_t *o, const char *key)
{
	return (unsigned int)json_integer_value(json_object_get(o, key));
}

static void read_cell(json_t *o, struct bench_ex_cell *x)
{
	*x = (struct bench_ex_cell){
		.runs = juint(o, "schedules"),
		.pruned = juint(o, "pruned"),
		.found = jbool(o, "violation"),
		.exhausted = jbool(o, "exhausted"),
		.refused = jbool(o, "refused"),
		.skipped = jbool(o, "skipped"),
		.seconds = json_real_value(json_object_get(o, "seconds")),
	};
}

static const char *const cell_keys[BENCH_EX_NSTRATS] = {
	"random", "pct", "dfs", "dpor", "dpor_unbounded",
};

/* Case o of a part into k; the race and side by the registry's own names. */
static int read_case(json_t *o, struct bench_ex_case *k, char *err, size_t errlen)
{
	const char *race = json_string_value(json_object_get(o, "race"));
	const char *side = json_string_value(json_object_get(o, "side"));
	const struct msim_race *r = race ? msim_race_find(race) : NULL;
	const struct msim_race_side *sd = r && side ? msim_race_side_find(r, side) : NULL;
	json_t *check = json_object_get(o, "dfs_twice_dpor");

	if (!sd) {
		snprintf(err, errlen, "no race %s with a side %s in this build", race ? race : "?",
			 side ? side : "?");
		return -EINVAL;
	}
	memset(k, 0, sizeof(*k));
	k->index = juint(o, "index");
	k->race = r->name;
	k->side = sd->name;
	k->bug = jbool(o, "bug");
	k->bound = juint(o, "bound");
	for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++)
		read_cell(json_object_get(o, cell_keys[s]), &k->c[s]);
	if (check) {
		k->dfs_checked = true;
		read_cell(check, &k->dfs_check);
	}
	return 0;
}

/* Every case of part doc into r->cases by index; seen[] marks those taken. */
static int read_part(json_t *doc, const char *path, struct bench_ex_result *r, bool *seen,
		     char *err, size_t errlen)
{
	json_t *cases = json_object_get(doc, "cases"), *o;
	size_t i;

	if (!json_is_array(cases)) {
		snprintf(err, errlen, "%s: no cases (not the --json of bench explore)", path);
		return -EINVAL;
	}
	json_array_foreach(cases, i, o) {
		struct bench_ex_case k;
		int ret = read_case(o, &k, err, errlen);

		if (ret)
			return ret;
		if (k.index >= BENCH_EX_MAX_CASES || seen[k.index]) {
			snprintf(err, errlen, "%s: case %u (%s/%s) out of range or twice", path,
				 k.index, k.race, k.side);
			return -EINVAL;
		}
		seen[k.index] = true;
		r->cases[k.index] = k;
		if (k.index + 1 > r->ncases)
			r->ncases = k.index + 1;
	}
	return 0;
}

int bench_ex_merge(const char *const *paths, unsigned int n, struct bench_ex_result *r, char *err,
		   size_t errlen)
{
	bool seen[BENCH_EX_MAX_CASES] = { false };
	int ret = 0;

	memset(r, 0, sizeof(*r));
	for (unsigned int p = 0; p < n && !ret; p++) {
		json_error_t jerr;
		json_t *doc = json_load_file(paths[p], 0, &jerr);
		double wall;

		if (!doc) {
			snprintf(err, errlen, "%s: %s (line %d)", paths[p], jerr.text, jerr.line);
			return -EINVAL;
		}
		r->cfg.seed = (uint64_t)json_integer_value(json_object_get(doc, "seed"));
		r->cfg.verdicts_only |= jbool(doc, "verdicts_only");
		wall = json_real_value(json_object_get(doc, "sim_wall_s"));
		if (wall > r->wall_s)
			r->wall_s = wall;   /* the parts ran side by side */
		ret = read_part(doc, paths[p], r, seen, err, errlen);
		json_decref(doc);
	}
	for (unsigned int i = 0; !ret && i < r->ncases; i++) {
		if (!seen[i]) {
			snprintf(err, errlen, "case %u is in none of the %u files", i, n);
			ret = -EINVAL;
		}
	}
	return ret;
}
