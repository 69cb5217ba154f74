/* SPDX-License-Identifier: MIT */
/*
 * explore_dfs.c - DFS over schedules: stateless model checking with a preemption
 * bound (CHESS-style). A run follows a prefix of recorded choices and then the
 * canonical "no preemption" choice (sched.c records every decision: how many
 * options there were, which was taken, how many preemptions came before it);
 * afterwards the deepest decision with an untried alternative within the bound
 * becomes the next prefix. The bounded space is exhausted when no decision has an
 * alternative left. Choosing the RCU engine ('R') is never a preemption. A
 * store-buffer drain ('~C', weak memory models) taken while the running task
 * could go on counts as one: the canonical run drains as late as it can (at
 * fences, locked instructions, the end), and each earlier drain is a deviation
 * the bound pays for, or the drains of a long run would multiply its schedules
 * without bound.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explore_dfs.h"

static bool alt_allowed(const struct msim_dfs_point *p, unsigned int alt, unsigned int bound)
{
	bool is_r = p->has_r && alt == (unsigned int)p->nr_options - 1;
	unsigned int pre = p->preemptions + (p->current_enabled && alt != 0 && !is_r ? 1 : 0);

	return pre <= bound;
}

/* The prefix: decisions 0..i of the run just finished, with decision i's choice alt. */
static void set_prefix(struct msim__dfs_state *d, const struct msim_sched *s, uint64_t i,
		       unsigned int alt)
{
	if (i + 1 > d->cap) {
		uint64_t cap = (i + 1) * 2;
		struct msim_dfs_point *np = realloc(d->prefix, cap * sizeof(*np));
		if (!np)
			abort();
		d->prefix = np;
		d->cap = cap;
	}
	memcpy(d->prefix, s->dfs, (i + 1) * sizeof(*d->prefix));
	d->prefix[i].chosen = (uint16_t)alt;
	d->len = i + 1;
}

bool msim__dfs_next(struct msim__dfs_state *d, const struct msim *m, unsigned int bound)
{
	const struct msim_sched *s = &m->sched;
	uint64_t i = s->dfs_len;

	while (i-- > 0) {
		const struct msim_dfs_point *p = &s->dfs[i];
		for (unsigned int alt = p->chosen + 1u; alt < p->nr_options; alt++) {
			if (alt_allowed(p, alt, bound)) {
				set_prefix(d, s, i, alt);
				return true;
			}
		}
	}
	return false;
}

int msim__dfs_install(const struct msim__dfs_state *d, struct msim *m)
{
	struct msim_sched *s = &m->sched;

	if (!d->len)
		return 0;
	s->dfs = malloc(d->len * sizeof(*s->dfs));
	if (!s->dfs)
		return -ENOMEM;
	memcpy(s->dfs, d->prefix, d->len * sizeof(*s->dfs));
	s->dfs_cap = d->len;
	s->dfs_prefix_len = d->len;
	/* The scheduler's choose_dfs re-records each decision as it is replayed. */
	s->dfs_len = 0;
	return 0;
}

void msim__dfs_free(struct msim__dfs_state *d)
{
	free(d->prefix);
	d->prefix = NULL;
	d->len = d->cap = 0;
}
