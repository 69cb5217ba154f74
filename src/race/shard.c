/* SPDX-License-Identifier: MIT */
/*
 * shard.c - one exploration spread over processes or machines: which runs a
 * shard makes, and the merge of the shards' results into the result a single
 * process would have printed.
 *
 * Random and PCT run i depends only on seed + i (and on PCT's calibration run,
 * the same in every shard), so contiguous blocks of run numbers can be run
 * anywhere in any order. The merge keeps the lowest-numbered violation: the
 * first one a single process would have met.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race_internal.h"

#define MAX_SHARDS 65536u

int msim_race_shard_parse(const char *s, unsigned int *index, unsigned int *count, char *err,
			  size_t errlen)
{
	char *end;
	unsigned long i, n;

	/* digits only, as the other integer options: strtoul would take " 0", "+1", "-0" */
	if (!s || *s < '0' || *s > '9')
		goto bad;
	i = strtoul(s, &end, 10);
	if (end == s || *end != '/' || end[1] < '0' || end[1] > '9')
		goto bad;
	n = strtoul(end + 1, &end, 10);
	if (*end || n < 1 || n > MAX_SHARDS || i >= n)
		goto bad;
	*index = (unsigned int)i;
	*count = (unsigned int)n;
	return 0;
bad:
	snprintf(err, errlen, "shard '%s': want I/N with 0 <= I < N <= %u (e.g. 0/4)",
		 s ? s : "", MAX_SHARDS);
	return -EINVAL;
}

void msim_race_shard_range(unsigned int runs_total, unsigned int index, unsigned int count,
			   unsigned int *first, unsigned int *n)
{
	unsigned long long lo = (unsigned long long)runs_total * index / count;
	unsigned long long hi = (unsigned long long)runs_total * (index + 1) / count;

	*first = (unsigned int)lo;
	*n = (unsigned int)(hi - lo);
}

/* Whether b is a shard of the same exploration as a; else the difference in err. */
static bool same_exploration(const struct msim_race_result *a, const struct msim_race_result *b,
			     char *err, size_t errlen)
{
	const char *what = NULL;
	unsigned int first, len;

	if (b->shard.count && b->shard.index < b->shard.count)
		msim_race_shard_range(b->shard.runs_total, b->shard.index, b->shard.count, &first,
				      &len);
	if (!b->shard.count)
		what = "a result that is not a shard";
	else if (b->ex.violations > b->ex.runs)
		what = "more violations than runs";
	else if (b->shard.index >= b->shard.count)
		what = "an index not below its count";
	else if (b->shard.first_run != first || b->ex.runs > len ||
		 (b->ex.first_violation_run >= 0 &&
		  ((unsigned int)b->ex.first_violation_run < first ||
		   (unsigned int)b->ex.first_violation_run >= first + len)))
		what = "runs that are not its block of the exploration";
	else if (strcmp(a->race, b->race))
		what = "of another race";
	else if (a->strategy != b->strategy)
		what = "of another strategy";
	else if (a->seed != b->seed)
		what = "of another seed";
	else if (a->shard.count != b->shard.count || a->shard.runs_total != b->shard.runs_total)
		what = "of another shard count or run budget";
	else if (strcmp(a->variants, b->variants) || a->side != b->side ||
		 a->cfg.nr_cpus != b->cfg.nr_cpus || a->cfg.preempt != b->cfg.preempt ||
		 a->cfg.memory_model != b->cfg.memory_model)
		what = "of another configuration (variants, side, CPUs, preemption or memory model)";
	if (what)
		snprintf(err, errlen, "shard %u/%u: %s (compared with shard %u/%u)", b->shard.index,
			 b->shard.count, what, a->shard.index, a->shard.count);
	return !what;
}

/* Every shard of parts[0]'s exploration, each once. */
static int check_parts(const struct msim_race_result *const *parts, size_t n, char *err,
		       size_t errlen)
{
	unsigned char *seen;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		if (!parts || !parts[i] || !parts[i]->race) {
			snprintf(err, errlen, "result %zu of %zu is %s", i, n,
				 parts && parts[i] ? "of no race (race is NULL)" : "NULL");
			return -EINVAL;
		}
	}
	if (!n || !parts[0]->shard.count) {
		snprintf(err, errlen, "nothing to merge: %s", n ? "the first result is not a shard"
							      : "no results");
		return -EINVAL;
	}
	if (n != parts[0]->shard.count) {
		snprintf(err, errlen, "%zu results for %u shards", n, parts[0]->shard.count);
		return -EINVAL;
	}
	seen = calloc(n, 1);
	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++) {
		if (!same_exploration(parts[0], parts[i], err, errlen))
			ret = -EINVAL;
		else if (seen[parts[i]->shard.index]++) {
			snprintf(err, errlen, "shard %u/%u given twice", parts[i]->shard.index,
				 parts[i]->shard.count);
			ret = -EINVAL;
		}
	}
	free(seen);
	return ret;
}

/* The part whose first violation has the lowest run number, else the last shard. */
static const struct msim_race_result *decisive_part(const struct msim_race_result *const *parts,
						    size_t n)
{
	const struct msim_race_result *best = NULL, *last = parts[0];

	for (size_t i = 0; i < n; i++) {
		const struct msim_race_result *p = parts[i];

		if (p->shard.index > last->shard.index)
			last = p;
		if (p->ex.first_violation_run >= 0 &&
		    (!best || p->ex.first_violation_run < best->ex.first_violation_run))
			best = p;
	}
	return best ? best : last;
}

int msim_race_merge(const struct msim_race_result *const *parts, size_t n,
		    struct msim_race_result *out, char *err, size_t errlen)
{
	const struct msim_race *r;
	const struct msim_race_result *d;
	uint64_t runs = 0, violations = 0;   /* a sum of 32-bit counts never wraps */
	double seconds = 0;
	bool fix_side_clean = true, diverged = false, env_replay = false;
	int ret = check_parts(parts, n, err, errlen);

	if (ret)
		return ret;
	if (!(r = msim_race_find(parts[0]->race))) {
		snprintf(err, errlen, "no race named '%s' in this build", parts[0]->race);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		runs += parts[i]->ex.runs;
		violations += parts[i]->ex.violations;
		seconds += parts[i]->ex.seconds;
		fix_side_clean &= parts[i]->behaved_as_expected;
		diverged |= parts[i]->ex.diverged;
		env_replay |= parts[i]->ex.env_replay;
	}
	if (runs > UINT32_MAX) {
		snprintf(err, errlen, "the shards' runs add up to %llu, more than a run count holds",
			 (unsigned long long)runs);
		return -EOVERFLOW;
	}
	d = decisive_part(parts, n);
	*out = *d;                              /* its schedule, hash and reason */
	out->ex.runs = (unsigned int)runs;
	out->ex.violations = (unsigned int)violations;  /* <= runs, each part's checked */
	out->ex.seconds = seconds;
	out->ex.exhausted = false;
	/* One shard that did not run what it was asked to leaves the whole without a verdict. */
	out->ex.diverged = diverged;
	out->ex.env_replay = env_replay;
	out->shard = (struct msim_race_shard){ 0 };
	msim__race_set_outcome(r, out);
	/* A shard that saw a violation it should not have fails the whole. */
	out->behaved_as_expected &= fix_side_clean;
	return 0;
}
