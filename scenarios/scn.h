/* SPDX-License-Identifier: MIT */
/*
 * scn.h - helpers every race scenario in scenarios/ may use. A scenario is
 * written against the public headers only, as an experiment outside the tree
 * would be (<memcgsim/race.h> defines what a race is).
 */
#ifndef MSIM_SCN_H
#define MSIM_SCN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/race.h>

/* A host for a script that builds its own: created from cfg and made current. */
static inline int scn_host_new(const struct msim_config *cfg, struct msim **out)
{
	char err[256];
	int ret = msim_create(cfg, out, err, sizeof(err));

	if (!ret)
		msim_set_current_host(*out);
	return ret;
}

/*
 * For a configure hook: 0 when cfg has at least n CPUs, else -EINVAL and
 * "NAME needs at least n CPUs" in err.
 */
static inline int scn_need_cpus(const struct msim_config *cfg, unsigned int n,
				const char *name, char *err, size_t errlen)
{
	if (cfg->nr_cpus >= n)
		return 0;
	snprintf(err, errlen, "%s needs at least %u CPUs", name, n);
	return -EINVAL;
}

#endif
