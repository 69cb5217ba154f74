/* SPDX-License-Identifier: MIT */
/*
 * sched_opts.c - choosing a strategy: names, schedule-string parsing, PCT setup.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "current.h"
#include "rand.h"

static const char *const strategy_names[] = {
	[MSIM_STRAT_SCRIPT] = "script",
	[MSIM_STRAT_RANDOM] = "random",
	[MSIM_STRAT_PCT] = "pct",
	[MSIM_STRAT_DFS] = "dfs",
	[MSIM_STRAT_REPLAY] = "replay",
	[MSIM_STRAT_DPOR] = "dpor",
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
 * Parse "0*12.1*3.R.!2.2*4.~1.~0+2.0*5" into (pick, count) runs; with runs == NULL only count
 * and validate. Task indexes must be below nr_tasks (0: no check). Returns the
 * number of runs, or -EINVAL.
 */
static long parse_schedule(const char *str, struct msim_replay_run *runs, unsigned int nr_tasks)
{
	const char *p = str;
	long n = 0;

	if (!strncmp(p, "s:", 2))
		p += 2;
	while (*p) {
		struct msim_replay_run r = { .count = 1 };
		char *end;

		if (*p == 'R') {
			r.pick = MSIM_PICK_R;
			p++;
		} else if (*p == '!' && isdigit((unsigned char)p[1])) {
			/* the arrival of interrupt source N (irq.h) */
			unsigned long v = strtoul(p + 1, &end, 10);
			if (v >= (1UL << 29) || (nr_tasks && v >= nr_tasks))
				return -EINVAL;
			r.pick = MSIM_PICK_IRQ(v);
			p = end;
		} else if (*p == '~' && isdigit((unsigned char)p[1])) {
			/* a store-buffer drain: CPU C's oldest entry, or its K-th (storebuf.h) */
			unsigned long cpu = strtoul(p + 1, &end, 10), k = 0;
			if (cpu >= MSIM_MAX_CPUS)
				return -EINVAL;
			p = end;
			if (*p == '+') {
				if (!isdigit((unsigned char)p[1]))
					return -EINVAL;
				k = strtoul(p + 1, &end, 10);
				if (k >= MSIM_PICK_DRAIN_K)
					return -EINVAL;
				p = end;
			}
			r.pick = MSIM_PICK_DRAIN(cpu, k);
		} else if (isdigit((unsigned char)*p)) {
			unsigned long v = strtoul(p, &end, 10);
			if (v > INT32_MAX || (nr_tasks && v >= nr_tasks))
				return -EINVAL;
			r.pick = (int)v;
			p = end;
		} else {
			return -EINVAL;
		}
		if (*p == '*') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			r.count = strtoull(p + 1, &end, 10);
			if (!r.count || r.count > 1000000000ULL)
				return -EINVAL;
			p = end;
		}
		if (*p == '.' && p[1])
			p++;
		else if (*p)
			return -EINVAL;
		if (runs)
			runs[n] = r;
		n++;
	}
	return n;
}

static int setup_replay(struct msim_sched *s, const char *str, unsigned int nr_tasks)
{
	long n = parse_schedule(str, NULL, nr_tasks);

	if (n < 0)
		return -EINVAL;
	struct msim_replay_run *runs = malloc((size_t)(n ? n : 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	parse_schedule(str, runs, nr_tasks);
	free(s->replay);
	s->replay = runs;
	s->replay_len = (uint64_t)n;
	s->replay_pos = 0;
	s->replay_used = 0;
	return 0;
}

#define PCT_MAX_DEPTH 64

/*
 * PCT (Burckhardt et al.): random distinct initial priorities above d, and d-1
 * change points at random steps in [1, k]; at change point i the running task's
 * priority drops to i. The RCU engine gets a priority like a task, so grace
 * periods end early in some runs and late in others. Tasks created after this
 * get their priorities when they first appear (pct_prio in sched.c).
 */
static int setup_pct(struct msim *m, struct msim_sched *s)
{
	unsigned int n = m->nr_tasks, i;
	unsigned int d = s->opts.pct_depth ? s->opts.pct_depth : 2;
	uint64_t k = s->opts.pct_steps_hint ? s->opts.pct_steps_hint : 1000;

	if (d > PCT_MAX_DEPTH)
		return -EINVAL;
	free(s->prio);
	free(s->change_points);
	s->prio = malloc((n + 1) * sizeof(int));
	s->change_points = malloc(d * sizeof(uint64_t));
	if (!s->prio || !s->change_points)
		return -ENOMEM;
	s->nr_prio = n + 1;
	for (i = 0; i < n + 1; i++)
		s->prio[i] = (int)(d + i);
	for (i = n + 1; i > 1; i--) { /* Fisher-Yates */
		unsigned int j = (unsigned int)(msim__rand(&s->rng) % i);
		int tmp = s->prio[i - 1];
		s->prio[i - 1] = s->prio[j];
		s->prio[j] = tmp;
	}
	s->prio_r = s->prio[n];
	s->nr_prio = n;
	s->nr_change_points = d - 1;
	for (i = 0; i < s->nr_change_points; i++)
		s->change_points[i] = 1 + msim__rand(&s->rng) % k;
	return 0;
}

int msim_sched_set(struct msim *m, const struct msim_sched_opts *opts)
{
	struct msim_sched *s;
	struct msim_sched_opts saved;
	const char *env = getenv("MSIM_SCHEDULE");
	int ret;

	if (!m || !msim__det(m) || !opts)
		return -EINVAL;
	s = &m->sched;
	saved = s->opts;
	s->opts = *opts;
	if (env && *env) {
		s->opts.strategy = MSIM_STRAT_REPLAY;
		s->opts.schedule = env;
	}
	s->rng = s->opts.seed ^ 0x6d656d636773696dULL; /* "memcgsim" */
	switch (s->opts.strategy) {
	case MSIM_STRAT_REPLAY:
		ret = s->opts.schedule ? setup_replay(s, s->opts.schedule, m->nr_tasks) : -EINVAL;
		break;
	case MSIM_STRAT_PCT:
		ret = setup_pct(m, s);
		break;
	case MSIM_STRAT_SCRIPT:
	case MSIM_STRAT_RANDOM:
	case MSIM_STRAT_DFS:
	case MSIM_STRAT_DPOR:
		ret = 0;
		break;
	default:
		ret = -EINVAL;
	}
	if (ret)
		s->opts = saved; /* a refused setting leaves the host as it was */
	return ret;
}
