/* SPDX-License-Identifier: MIT */
/*
 * outcome.c - the one-line outcome of a race's run and whether it behaved as
 * its side expects: for a whole exploration (run.c), a shard of one, or shards
 * merged (shard.c).
 */
#include <stdio.h>
#include <string.h>

#include "race_internal.h"

void msim__race_set_outcome(const struct msim_race *r, struct msim_race_result *res)
{
	bool found = res->ex.violations > 0;

	res->behaved_as_expected = found == res->expected_violation;
	if (res->shard.count) {
		res->behaved_as_expected = !found || res->expected_violation;
		snprintf(res->outcome, sizeof(res->outcome),
			 "shard %u/%u, runs [%u, %u) of %u: %u violations%s (memcgsim merge gives "
			 "the verdict)", res->shard.index, res->shard.count, res->shard.first_run,
			 res->shard.first_run + res->ex.runs, res->shard.runs_total,
			 res->ex.violations, found && !res->expected_violation ? ", NOT expected" : "");
		return;
	}
	if (res->strategy == MSIM_STRAT_REPLAY && res->ex.diverged) {
		/* Whatever it found, this was not the run the string described. */
		res->behaved_as_expected = false;
		snprintf(res->outcome, sizeof(res->outcome),
			 "replay diverged: the schedule does not describe a run of %s under these "
			 "variants and CPUs", r->name);
	} else if (found)
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
