/* SPDX-License-Identifier: MIT */
/*
 * init.c - msim_shrinker_init(): the hand attach of the two subsystems of this
 * folder, "shrinker" (attach.c) and "list_lru" (list_lru.c), for hosts whose
 * configuration does not set shrinker.
 *
 * It is the top of src/shrinker: it names both subsystems, and list_lru.c
 * already looks the shrinker's state up, so attach.c could not name list_lru's
 * without a circle of files.
 */
#include <errno.h>

#include "shrinker/internal.h"

int msim_shrinker_init(struct msim *m)
{
	struct msim_memcg_counts cnt;
	char err[160];
	bool fresh;
	int r;

	if (!m)
		return -EINVAL;
	fresh = !msim_subsys_attached(m, &msim_shrinker_subsys);
	msim_memcg_counts(m, &cnt);
	/* list_lru needs the shrinker: one attach brings both, shrinker first. */
	r = msim_subsys_attach(m, &msim_list_lru_subsys, err, sizeof(err));
	if (r)
		return r;
	/* Child memcgs made before the shrinker attached have no shrinker_info: say so. */
	return fresh && cnt.online > 1 ? -EBUSY : 0;
}
