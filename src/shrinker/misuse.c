/* SPDX-License-Identifier: MIT */
/*
 * misuse.c - the process-wide count of API misuse seen by src/shrinker (a
 * list_lru used after destroy, a shrinker freed twice, a node id out of
 * range, ...), with the first few reported on stderr. Calls nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "shrinker/internal.h"

static uint64_t misuse_count;

void msim__shrinker_misuse(const char *what)
{
	uint64_t n = __atomic_add_fetch(&misuse_count, 1, __ATOMIC_RELAXED);

	if (n <= 8 && getenv("MSIM_QUIET_MISUSE") == NULL)
		fprintf(stderr, "memcgsim: shrinker misuse: %s\n", what);
}

uint64_t msim__shrinker_misuse_count(void)
{
	return __atomic_load_n(&misuse_count, __ATOMIC_RELAXED);
}
