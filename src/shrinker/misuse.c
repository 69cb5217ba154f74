/* SPDX-License-Identifier: MIT */
/*
 * misuse.c - the process-wide count of API misuse seen by src/shrinker (a
 * list_lru used after destroy, a shrinker freed twice, a node id out of
 * range, ...), with the first few reported on stderr. Calls nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "shrinker/shrinker_internal.h"

static uint64_t misuse_count;

void msim__shrinker_misuse(const char *what)
{
	uint64_t n = msim_quiet_add_return(&misuse_count, 1, MSIM_RELAXED);

	if (n <= 8 && getenv("MSIM_QUIET_MISUSE") == NULL)
		fprintf(stderr, "memcgsim: shrinker misuse: %s\n", what);
}

uint64_t msim__shrinker_misuse_count(void)
{
	return msim_quiet_load(&misuse_count, MSIM_RELAXED);
}
