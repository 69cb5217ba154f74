/* SPDX-License-Identifier: MIT */
/*
 * outcome.c - the one-line outcome of a race's run and whether it behaved as
 * its side expects: for a whole exploration (run.c), a shard of one, or shards
 * merged (shard.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "race_internal.h"

/*
 * A run that was not the one asked for has no verdict: a replay whose string
 * did not describe it (a pick not enabled, the string too short or too long),
 * or MSIM_SCHEDULE turning an exploration into one replay. Whatever such a run
 * found says nothing about the race; *res says what happened instead.
 */
static bool set_no_verdict(const struct msim_race *r, struct msim_race_result *res)
{
	const char *env = getenv("MSIM_SCHEDULE");

	res->no_verdict = res->ex.diverged || res->ex.env_replay;
	if (!res->no_verdict)
		return false;
	res->behaved_as_expected = false;
	if (res->ex.env_replay)
		snprintf(res->outcome, sizeof(res->outcome),
			 "no verdict: MSIM_SCHEDULE%s%.*s%s replaced the %s run with one replay "
			 "of that string%s (unset it, or replay with --schedule)",
			 env ? "='" : "", env ? 40 : 0, env ? env : "",
			 env && strlen(env) > 40 ? "...'" : env ? "'" : "",
			 msim_strategy_name(res->strategy),
			 res->ex.diverged ? ", which diverged" : "");
	else
		snprintf(res->outcome, sizeof(res->outcome),
			 "no verdict: the replay diverged (the schedule does not describe a run "
			 "of %s under these variants and CPUs)", r->name);
	return true;
}

void msim__race_set_outcome(const struct msim_race *r, struct msim_race_result *res)
{
	bool found = res->ex.violations > 0;

	res->behaved_as_expected = found == res->expected_violation;
	if (set_no_verdict(r, res))
		return;
	if (res->shard.count) {
		res->behaved_as_expected = !found || res->expected_violation;
		snprintf(res->outcome, sizeof(res->outcome),
			 "shard %u/%u, runs [%u, %u) of %u: %u violations%s (memcgsim merge gives "
			 "the verdict)", res->shard.index, res->shard.count, res->shard.first_run,
			 res->shard.first_run + res->ex.runs, res->shard.runs_total,
			 res->ex.violations, found && !res->expected_violation ? ", NOT expected" : "");
		return;
	}
	if (found)
		snprintf(res->outcome, sizeof(res->outcome), "violation %s in run %d: %.*s",
			 res->expected_violation ? "found (expected)" : "found (NOT expected)",
			 res->ex.first_violation_run,
			 res->ex.why[0] ? (int)strcspn(res->ex.why, "\n") : 9,
			 res->ex.why[0] ? res->ex.why : "bad state");
	else
		snprintf(res->outcome, sizeof(res->outcome), "no violation in %u runs%s (%s)",
			 res->ex.runs, res->ex.exhausted ? ", space exhausted" : "",
			 res->expected_violation ? "NOT expected" : "expected");
}
