/* SPDX-License-Identifier: MIT */
/*
 * fuzz_schedule: schedule replay. The first byte picks a race and one of its
 * sides, the rest is the schedule string: msim_race_replay() must answer every
 * string with a result or an error, never a crash, a leak or undefined
 * behaviour, and a result must be a verdict or say it has none.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct msim_race *races[64];
static size_t nr_races;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct msim_race_result res;
	const struct msim_race_side *side;
	const struct msim_race *r;
	struct msim_config cfg;
	char schedule[512], err[512];
	size_t nsides = 0;

	if (!nr_races)
		nr_races = msim_race_list(races, 64);
	if (!size || !nr_races || size - 1 >= sizeof(schedule))
		return 0;
	r = races[data[0] % nr_races];
	while (r->sides && r->sides[nsides].name)
		nsides++;
	side = nsides ? &r->sides[(data[0] / nr_races) % nsides] : NULL;
	memcpy(schedule, data + 1, size - 1);
	schedule[size - 1] = '\0';
	msim_config_init(&cfg);
	if (side && msim_race_settings_apply(&cfg, side->settings, err, sizeof(err)))
		abort();   /* a side's own settings always apply */
	if (!msim_race_replay(r, &cfg, side, schedule, &res, err, sizeof(err)) &&
	    res.ex.diverged && !res.no_verdict)
		abort();   /* a diverged replay gave a verdict */
	return 0;
}
