/* SPDX-License-Identifier: MIT */
/*
 * explore_dfs.h - bounded depth-first search over schedules (explore_dfs.c), for
 * the explorer (explore.c).
 */
#ifndef MSIM_SIM_EXPLORE_DFS_H
#define MSIM_SIM_EXPLORE_DFS_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* The decisions the next run follows before it takes the canonical choices. */
struct msim__dfs_state {
	struct msim_dfs_point *prefix;
	uint64_t len, cap;
};

/* Make host m follow d's prefix (a DFS run, after msim_sched_set). 0 or -ENOMEM. */
int msim__dfs_install(const struct msim__dfs_state *d, struct msim *m);
/* From the run m just finished, the next prefix within bound; false when exhausted. */
bool msim__dfs_next(struct msim__dfs_state *d, const struct msim *m, unsigned int bound);
void msim__dfs_free(struct msim__dfs_state *d);

#endif /* MSIM_SIM_EXPLORE_DFS_H */
