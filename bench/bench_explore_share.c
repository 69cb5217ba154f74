/* SPDX-License-Identifier: MIT */
/*
 * explore's cases spread over processes: a counter in a shared file hands out
 * the next case (`--share FILE`), and the --json documents of the processes
 * that shared it merge into what one process would have printed (`--merge`).
 * Each case is a fixed set of explorations (the race's own budgets and seed),
 * so where it ran changes none of its counts; the cases take from a few
 * milliseconds to a minute, hence one at a time rather than a fixed split.
 *
 * The dearest fixed sides run DPOR, then DFS with twice DPOR's count: one
 * chain longer than the rest of the cases together. Shared, such a side is
 * handed out as two pieces that run side by side: DPOR (with the side's other
 * cells), and DFS with twice the count the side states DPOR exhausts it in
 * (msim_race_side.dpor_schedules). DFS's order is fixed, so that run's first
 * 2C schedules are the DFS check's for DPOR's measured count C whenever 2C is
 * within its budget; when it is not (the stated count is short), the DPOR
 * piece runs the check itself. Either way the counts are those of one
 * process. The DFS piece is a speculation on the stated count: when DPOR does
 * not exhaust the side (a stale count), no check is needed and the piece's
 * schedules were spent for nothing, so it pays only where such a chain is
 * longer than the rest of the work per core (--split-over N; none by default).
 */
#include <errno.h>
#include <limits.h>
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

unsigned int bench_ex_split_budget(const struct bench_ex_config *c, const struct msim_race *r,
				   const struct msim_race_side *side)
{
	unsigned int dfs_budget = r->budget.dfs_runs ? r->budget.dfs_runs : 10000;
	unsigned int stated = side->dpor_schedules;

	if (!c->share || !c->split_over || side->violation || stated < c->split_over ||
	    stated > UINT_MAX / 2 ||
	    2 * stated <= dfs_budget)
		return 0;
	return 2 * stated;
}

int bench_ex_dfs_prefix(const struct bench_ex_long_dfs *l, unsigned int n,
			struct bench_ex_cell *out)
{
	bool all = l->runs <= n;   /* every schedule l ran is one of DFS's first n */

	if (l->runs < n && !l->exhausted)
		return -ERANGE;    /* l stopped at its budget, short of n */
	*out = (struct bench_ex_cell){
		.runs = all ? l->runs : n,
		.found = l->first_violation >= 0 && (unsigned int)l->first_violation < n,
		.exhausted = all && l->exhausted,
		.seconds = l->seconds,   /* of the run that answered: its l->runs schedules */
	};
	return 0;
}

static bool same_name(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int bench_ex_join(struct bench_ex_case *k, const struct bench_ex_case *dfs, char *err,
		  size_t errlen)
{
	/* the pieces meet by index: parts made under other filters or trees must not mix */
	if (!same_name(k->race, dfs->race) || !same_name(k->side, dfs->side) ||
	    k->bound != dfs->bound) {
		snprintf(err, errlen, "case %u: the DPOR piece is %s/%s, the DFS piece %s/%s "
			 "(parts of different runs?)", k->index, k->race ? k->race : "?",
			 k->side ? k->side : "?", dfs->race ? dfs->race : "?",
			 dfs->side ? dfs->side : "?");
		return -EINVAL;
	}
	k->piece = BENCH_EX_WHOLE;
	if (k->dfs_checked || !bench_ex_needs_dfs_check(k))
		return 0;
	if (bench_ex_dfs_prefix(&dfs->long_dfs, 2 * k->c[3].runs, &k->dfs_check)) {
		snprintf(err, errlen, "%s/%s: the DFS piece stopped at %u schedules, short of "
			 "twice DPOR's %u, and the DPOR piece did not run DFS again", k->race,
			 k->side, dfs->long_dfs.runs, k->c[3].runs);
		return -EINVAL;
	}
	k->dfs_checked = true;
	k->dfs_long_runs = dfs->long_dfs.runs;
	return 0;
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
		.deferred = jbool(o, "deferred"),
		.seconds = json_real_value(json_object_get(o, "seconds")),
	};
}

static const char *const cell_keys[BENCH_EX_NSTRATS] = {
	"random", "pct", "dfs", "dpor", "dpor_unbounded",
};

static const char *const piece_keys[] = { "whole", "dpor", "dfs" };

static enum bench_ex_piece read_piece(json_t *o)
{
	const char *name = json_string_value(json_object_get(o, "piece"));

	for (unsigned int p = 1; name && p < sizeof(piece_keys) / sizeof(piece_keys[0]); p++)
		if (!strcmp(name, piece_keys[p]))
			return (enum bench_ex_piece)p;
	return BENCH_EX_WHOLE;
}

static void read_long_dfs(json_t *o, struct bench_ex_long_dfs *l)
{
	json_t *fv = json_object_get(o, "first_violation");

	*l = (struct bench_ex_long_dfs){
		.budget = juint(o, "budget"),
		.runs = juint(o, "schedules"),
		.first_violation = json_is_integer(fv) ? (int)json_integer_value(fv) : -1,
		.exhausted = jbool(o, "exhausted"),
		.seconds = json_real_value(json_object_get(o, "seconds")),
	};
}

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
	k->piece = read_piece(o);
	for (unsigned int s = 0; s < BENCH_EX_NSTRATS; s++)
		read_cell(json_object_get(o, cell_keys[s]), &k->c[s]);
	if (check) {
		k->dfs_checked = true;
		read_cell(check, &k->dfs_check);
		k->dfs_long_runs = juint(check, "schedules_run");
	}
	if (k->piece == BENCH_EX_PIECE_DFS)
		read_long_dfs(json_object_get(o, "long_dfs"), &k->long_dfs);
	k->dfs_fingerprints = juint(o, "dfs_fingerprints");
	return 0;
}

/* What a case index was seen as, so far: a bit per piece. */
#define SEEN(piece) (1u << (piece))

/*
 * Every case of part doc into r->cases by index (a DFS piece into dfs[]);
 * seen[] marks what was taken.
 */
static int read_part(json_t *doc, const char *path, struct bench_ex_result *r,
		     struct bench_ex_case *dfs, unsigned int *seen, char *err, size_t errlen)
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
		if (k.index >= BENCH_EX_MAX_CASES || (seen[k.index] & SEEN(BENCH_EX_WHOLE)) ||
		    (seen[k.index] & SEEN(k.piece)) ||
		    (k.piece == BENCH_EX_WHOLE && seen[k.index])) {
			snprintf(err, errlen, "%s: case %u (%s/%s) out of range or twice", path,
				 k.index, k.race, k.side);
			return -EINVAL;
		}
		seen[k.index] |= SEEN(k.piece);
		if (k.piece == BENCH_EX_PIECE_DFS)
			dfs[k.index] = k;
		else
			r->cases[k.index] = k;
		if (k.index + 1 > r->ncases)
			r->ncases = k.index + 1;
	}
	return 0;
}

/*
 * A deferred DFS cell of k, from src or run here. A part that deferred it ran
 * the DFS check whenever the race's budget was below twice DPOR's count; the
 * check goes when the cell shows it was not needed (DFS exhausted the space
 * within the budget), as one process would not have run it.
 */
static int fill_dfs(struct bench_ex_result *r, struct bench_ex_case *k,
		    const struct bench_ex_dfs_source *src, char *err, size_t errlen)
{
	if (!k->c[2].deferred)
		return 0;
	if ((!src || src->find(src->arg, k->race, k->side, k->bug, &k->c[2])) &&
	    bench_ex_dfs_cell(&r->cfg, k)) {
		snprintf(err, errlen, "%s/%s: DFS under the race's budget did not run", k->race,
			 k->side);
		return -EINVAL;
	}
	k->c[2].deferred = false;
	if (k->dfs_checked && !bench_ex_needs_dfs_check(k)) {
		k->dfs_checked = false;
		k->dfs_check = (struct bench_ex_cell){ 0 };
		k->dfs_long_runs = 0;
	}
	return 0;
}

/* Every case whole, or both of its pieces, joined; deferred DFS cells filled. */
static int join_all(struct bench_ex_result *r, const struct bench_ex_case *dfs,
		    const unsigned int *seen, unsigned int n, const struct bench_ex_dfs_source *src,
		    char *err, size_t errlen)
{
	const unsigned int both = SEEN(BENCH_EX_PIECE_DPOR) | SEEN(BENCH_EX_PIECE_DFS);

	for (unsigned int i = 0; i < r->ncases; i++) {
		if (seen[i] != SEEN(BENCH_EX_WHOLE) && seen[i] != both) {
			snprintf(err, errlen, "case %u is in none of the %u files%s", i, n,
				 seen[i] ? " (one of its two pieces is missing)" : "");
			return -EINVAL;
		}
		if (fill_dfs(r, &r->cases[i], src, err, errlen))
			return -EINVAL;
		if (seen[i] == both && bench_ex_join(&r->cases[i], &dfs[i], err, errlen))
			return -EINVAL;
		/* the DFS cell may be known only now (deferred, or a piece's) */
		if (bench_ex_count_fingerprints(&r->cfg, &r->cases[i])) {
			snprintf(err, errlen, "%s/%s: DFS with fingerprints did not run",
				 r->cases[i].race, r->cases[i].side);
			return -EINVAL;
		}
	}
	return 0;
}

int bench_ex_merge(const char *const *paths, unsigned int n, struct bench_ex_result *r, char *err,
		   size_t errlen)
{
	return bench_ex_merge_from(paths, n, NULL, r, err, errlen);
}

int bench_ex_merge_from(const char *const *paths, unsigned int n,
			const struct bench_ex_dfs_source *src, struct bench_ex_result *r, char *err,
			size_t errlen)
{
	unsigned int seen[BENCH_EX_MAX_CASES] = { 0 };
	struct bench_ex_case *dfs = calloc(BENCH_EX_MAX_CASES, sizeof(*dfs));
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (!dfs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int p = 0; p < n && !ret; p++) {
		json_error_t jerr;
		json_t *doc = json_load_file(paths[p], 0, &jerr);
		double wall;

		if (!doc) {
			snprintf(err, errlen, "%s: %s (line %d)", paths[p], jerr.text, jerr.line);
			free(dfs);
			return -EINVAL;
		}
		r->cfg.seed = (uint64_t)json_integer_value(json_object_get(doc, "seed"));
		r->cfg.verdicts_only |= jbool(doc, "verdicts_only");
		wall = json_real_value(json_object_get(doc, "sim_wall_s"));
		if (wall > r->wall_s)
			r->wall_s = wall;   /* the parts ran side by side */
		ret = read_part(doc, paths[p], r, dfs, seen, err, errlen);
		json_decref(doc);
	}
	if (!ret)
		ret = join_all(r, dfs, seen, n, src, err, errlen);
	free(dfs);
	return ret;
}
