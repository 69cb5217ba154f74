/* SPDX-License-Identifier: MIT */
/*
 * race_internal.h - what the race engine's files share and the public race.h
 * does not say.
 */
#ifndef MSIM_RACE_INTERNAL_H
#define MSIM_RACE_INTERNAL_H

#include <memcgsim/race.h>

/*
 * res->outcome and res->behaved_as_expected from what res found (outcome.c). A
 * shard alone cannot miss an expected violation (another shard may hold it):
 * it fails only on one that is not expected.
 */
void msim__race_set_outcome(const struct msim_race *r, struct msim_race_result *res);

/* Whether r on side under cfg (after the race's configure) expects a violation. */
bool msim__race_expects(const struct msim_race *r, const struct msim_config *cfg,
			const struct msim_race_side *side);

#endif
