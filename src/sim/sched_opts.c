/* SPDX-License-Identifier: MIT */
/*
 * sched_opts.c - choosing a strategy: names, schedule-string parsing, PCT setup.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const strategy_names[] = {
	[MSIM_STRAT_SCRIPT] = "script",
	[MSIM_STRAT_RANDOM] = "random",
	[MSIM_STRAT_PCT] = "pct",
	[MSIM_STRAT_DFS] = "dfs",
	[MSIM_STRAT_REPLAY] = "replay",
};

const char *msim_strategy_name(enum msim_strategy s)
{
	if ((unsigned int)s >= sizeof(strategy_names) / sizeof(strategy_names[0]))
		return "?";
	return strategy_names[s];
}

int msim_strategy_parse(const char *name, enum msim_strategy *out)
{
	unsigned int i;

	for (i = 0; name && i < sizeof(strategy_names) / sizeof(strategy_names[0]); i++) {
		if (!strcmp(name, strategy_names[i])) {
			*out = (enum msim_strategy)i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Expand "0*12.1*3.R.0*5" into picks. Returns the number of picks, or -EINVAL.
 * With picks == NULL it only counts (and validates).
 */
static long parse_schedule(const char *str, int *picks, unsigned int nr_tasks)
{
	const char *p = str;
	long n = 0;

	if (!strncmp(p, "s:", 2))
		p += 2;
	while (*p) {
		int pick;
		unsigned long long count = 1;
		char *end;

		if (*p == 'R') {
			pick = MSIM_PICK_R;
			p++;
		} else if (isdigit((unsigned char)*p)) {
			unsigned long v = strtoul(p, &end, 10);
			if (nr_tasks && v >= nr_tasks)
				return -EINVAL;
			pick = (int)v;
			p = end;
		} else {
			return -EINVAL;
		}
		if (*p == '*') {
			count = strtoull(p + 1, &end, 10);
			if (end == p + 1 || !count || count > 100000000ULL)
				return -EINVAL;
			p = end;
		}
		if (*p == '.')
			p++;
		else if (*p)
			return -EINVAL;
		for (unsigned long long i = 0; i < count; i++) {
			if (picks)
				picks[n] = pick;
			n++;
		}
	}
	return n;
}

static int setup_replay(struct msim *m, const char *str)
{
	struct msim_sched *s = &m->sched;
	long n = parse_schedule(str, NULL, 0);

	if (n < 0)
		return -EINVAL;
	free(s->replay);
	s->replay = malloc((size_t)(n ? n : 1) * sizeof(int));
	if (!s->replay)
		return -ENOMEM;
	parse_schedule(str, s->replay, 0);
	s->replay_len = (uint64_t)n;
	s->replay_pos = 0;
	return 0;
}

/* Validate a schedule string against a number of tasks (0: any). */
int msim__schedule_validate(const char *str, unsigned int nr_tasks);
int msim__schedule_validate(const char *str, unsigned int nr_tasks)
{
	return parse_schedule(str, NULL, nr_tasks) < 0 ? -EINVAL : 0;
}

/*
 * PCT (Burckhardt et al.): random distinct initial priorities d..d+n, and d-1
 * change points at random steps in [1, k]; at change point i the running task's
 * priority drops to i. The RCU engine gets a priority like a task, so grace
 * periods end early in some runs and late in others.
 */
static int setup_pct(struct msim *m)
{
	struct msim_sched *s = &m->sched;
	unsigned int n = m->nr_tasks + 1, i;
	unsigned int d = s->opts.pct_depth ? s->opts.pct_depth : 2;
	uint64_t k = s->opts.pct_steps_hint ? s->opts.pct_steps_hint : 1000;

	free(s->prio);
	free(s->change_points);
	s->prio = malloc(n * sizeof(int));
	s->change_points = malloc(d * sizeof(uint64_t));
	if (!s->prio || !s->change_points)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s->prio[i] = (int)(d + i);
	for (i = n; i > 1; i--) { /* Fisher-Yates */
		unsigned int j = (unsigned int)(msim__rand(&s->rng) % i);
		int tmp = s->prio[i - 1];
		s->prio[i - 1] = s->prio[j];
		s->prio[j] = tmp;
	}
	s->nr_change_points = d - 1;
	for (i = 0; i < s->nr_change_points; i++)
		s->change_points[i] = 1 + msim__rand(&s->rng) % k;
	return 0;
}

int msim_sched_set(struct msim *m, const struct msim_sched_opts *opts)
{
	struct msim_sched *s = &m->sched;
	const char *env = getenv("MSIM_SCHEDULE");

	if (!msim__det(m) || !opts)
		return -EINVAL;
	s->opts = *opts;
	if (env && *env) {
		s->opts.strategy = MSIM_STRAT_REPLAY;
		s->opts.schedule = env;
	}
	s->rng = s->opts.seed ^ 0x6d656d636773696dULL; /* "memcgsim" */
	switch (s->opts.strategy) {
	case MSIM_STRAT_REPLAY:
		if (!s->opts.schedule)
			return -EINVAL;
		return setup_replay(m, s->opts.schedule);
	case MSIM_STRAT_PCT:
		/* Tasks must exist before PCT assigns them priorities. */
		return setup_pct(m);
	case MSIM_STRAT_SCRIPT:
	case MSIM_STRAT_RANDOM:
	case MSIM_STRAT_DFS:
		return 0;
	default:
		return -EINVAL;
	}
}
