/* SPDX-License-Identifier: MIT */
/*
 * explore_min.c - shrink a failing schedule to one with the fewest preemptions
 * (msim_explore_minimize, explore.h): the shortest story of a race.
 *
 * A schedule string is a list of blocks, "task*count", each block boundary a
 * switch. Candidates are replayed (REPLAY strategy; where a candidate's pick is
 * not enabled, or the string ends, the run takes the canonical choice, which
 * continues the task that ran last), and a candidate is kept when its run still
 * violates and is smaller: fewer preemptions, then fewer blocks, then a shorter
 * string. What is kept is the schedule the run actually took, so every result
 * replays exactly. The candidates, in rounds until none is kept (delta debugging
 * over blocks, then over steps):
 *  1. cut the string after block k, shortest first (every later switch dropped);
 *  2. remove a chunk of blocks, halves first, then quarters, down to one block;
 *  3. move a switch by one step, earlier or later;
 *  4. let the task of block i run on: its later blocks join block i (it runs
 *     until it ends or blocks, and the switch away from it is no preemption).
 * Delta debugging stops at a local minimum. Then bounded DFS looks for a failing
 * schedule with fewer preemptions, bound 0 upwards: the first it finds is
 * minimized again; a bound whose space DFS exhausts without a violation proves
 * that no schedule with that few preemptions fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/explore.h>

#include "internal.h"

#define MAX_BLOCKS 1024
#define MAX_REPLAYS 4000

struct block {
	int pick;                 /* task index, -1 for R, IRQ(N) for "!N", DRAIN(cpu, k) for "~cpu+k" */
	unsigned long count;
};

struct sched {
	struct block b[MAX_BLOCKS];
	unsigned int n;
};

struct minimizer {
	const struct msim_explore_target *target;
	const struct msim_config *base;
	struct msim_explore_result *best;   /* the smallest failing run so far */
	struct sched cur;                   /* best's schedule as blocks */
	unsigned int replays;
};

/*
 * Picks below -1 are the scheduler's own encodings (internal.h): the arrival of
 * interrupt source N, "!N" (irq.h), and a store-buffer drain "~cpu" or
 * "~cpu+k" (weak memory models, explore.h).
 */
#define IRQ_MAX (MSIM_PICK_IRQ(0) - MSIM_PICK_DRAIN_BASE)   /* N below this */

/* "~cpu[+k]" at *p into *pick; the end, or NULL when it is none. */
static const char *parse_drain(const char *p, int *pick)
{
	unsigned long cpu, k = 0;
	char *end;

	cpu = strtoul(p + 1, &end, 10);
	if (end == p + 1 || cpu >= MSIM_MAX_CPUS)
		return NULL;
	if (*end == '+') {
		p = end;
		k = strtoul(p + 1, &end, 10);
		if (end == p + 1 || k >= MSIM_PICK_DRAIN_K)
			return NULL;
	}
	*pick = MSIM_PICK_DRAIN(cpu, k);
	return end;
}

/* "0*11.!2.2*37.R.~1" into blocks; -EINVAL when it is no schedule. */
static int parse(const char *str, struct sched *s)
{
	const char *p = str;

	s->n = 0;
	if (!strncmp(p, "s:", 2))
		p += 2;
	while (*p) {
		struct block b = { .count = 1 };
		char *end;

		if (*p == 'R') {
			b.pick = -1;
			p++;
		} else if (*p == '!') {
			/* the arrival of interrupt source N (irq.h) */
			long v = strtol(p + 1, &end, 10);
			if (end == p + 1 || v < 0 || v >= IRQ_MAX)
				return -EINVAL;
			b.pick = MSIM_PICK_IRQ(v);
			p = end;
		} else if (*p == '~') {
			if (!(p = parse_drain(p, &b.pick)))
				return -EINVAL;
		} else {
			b.pick = (int)strtol(p, &end, 10);
			if (end == p || b.pick < 0)
				return -EINVAL;
			p = end;
		}
		if (*p == '*') {
			b.count = strtoul(p + 1, &end, 10);
			if (end == p + 1 || !b.count)
				return -EINVAL;
			p = end;
		}
		if (*p == '.')
			p++;
		else if (*p)
			return -EINVAL;
		if (s->n && s->b[s->n - 1].pick == b.pick)
			s->b[s->n - 1].count += b.count;
		else if (s->n == MAX_BLOCKS)
			return -E2BIG;
		else
			s->b[s->n++] = b;
	}
	return 0;
}

static void format(const struct sched *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < s->n && n < len; i++) {
		const char *dot = i ? "." : "";
		if (s->b[i].pick == -1)
			n += (size_t)snprintf(buf + n, len - n, "%sR", dot);
		else if (MSIM_PICK_IS_IRQ(s->b[i].pick))
			n += (size_t)snprintf(buf + n, len - n, "%s!%d", dot,
					      MSIM_PICK_IRQ_TASK(s->b[i].pick));
		else if (MSIM_PICK_IS_DRAIN(s->b[i].pick) && MSIM_PICK_DRAIN_POS(s->b[i].pick))
			n += (size_t)snprintf(buf + n, len - n, "%s~%d+%d", dot,
					      MSIM_PICK_DRAIN_CPU(s->b[i].pick),
					      MSIM_PICK_DRAIN_POS(s->b[i].pick));
		else if (MSIM_PICK_IS_DRAIN(s->b[i].pick))
			n += (size_t)snprintf(buf + n, len - n, "%s~%d", dot,
					      MSIM_PICK_DRAIN_CPU(s->b[i].pick));
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%d", dot, s->b[i].pick);
		if (n < len && s->b[i].count > 1)
			n += (size_t)snprintf(buf + n, len - n, "*%lu", s->b[i].count);
	}
}

/* Whether the run (its parsed schedule) took every pick of the string input, in order. */
static bool followed(const char *input, const struct sched *run)
{
	struct sched *in = malloc(sizeof(*in));
	bool yes = in && !parse(input, in) && in->n <= run->n;

	for (unsigned int i = 0; yes && i < in->n; i++) {
		const struct block *a = &in->b[i], *b = &run->b[i];

		yes = a->pick == b->pick &&
		      (i + 1 == in->n ? a->count <= b->count : a->count == b->count);
	}
	free(in);
	return yes;
}

/* a is smaller than b: fewer preemptions, then fewer blocks, then a shorter string. */
static bool smaller(const struct msim_explore_result *a, unsigned int a_blocks,
		    const struct msim_explore_result *b, unsigned int b_blocks)
{
	if (a->preemptions != b->preemptions)
		return a->preemptions < b->preemptions;
	if (a_blocks != b_blocks)
		return a_blocks < b_blocks;
	return strlen(a->schedule) < strlen(b->schedule);
}

/* Replay schedule s; keep its run when it violates and is smaller. */
static bool try_candidate(struct minimizer *z, const struct sched *s)
{
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_REPLAY, .runs = 1 };
	struct msim_explore_result *r = malloc(sizeof(*r));
	struct sched *actual = malloc(sizeof(*actual));
	char *str = malloc(sizeof(r->schedule));
	bool kept = false;

	if (!r || !actual || !str)
		abort();
	format(s, str, sizeof(r->schedule));
	o.schedule = str;
	z->replays++;
	if (!msim_explore(z->target, z->base, &o, r) && r->violations && !r->schedule_truncated &&
	    !parse(r->schedule, actual) && smaller(r, actual->n, z->best, z->cur.n)) {
		*z->best = *r;
		z->cur = *actual;
		kept = true;
	}
	free(str);
	free(actual);
	free(r);
	return kept;
}

/* Round 1: the string cut after block k (k blocks kept), shortest first. */
static bool try_cuts(struct minimizer *z)
{
	struct sched *s = malloc(sizeof(*s));
	bool kept = false;

	if (!s)
		abort();
	for (unsigned int k = 1; k < z->cur.n && !kept && z->replays < MAX_REPLAYS; k++) {
		*s = z->cur;
		s->n = k;
		kept = try_candidate(z, s);
	}
	free(s);
	return kept;
}

/* Round 2: remove blocks [start, start + size), chunks halving down to one. */
static bool try_removals(struct minimizer *z)
{
	struct sched *s = malloc(sizeof(*s));
	bool kept = false;

	if (!s)
		abort();
	for (unsigned int size = z->cur.n / 2; size >= 1 && !kept; size /= 2) {
		for (unsigned int start = 0; start + size <= z->cur.n && !kept &&
		     z->replays < MAX_REPLAYS; start += size) {
			unsigned int n = z->cur.n;
			*s = z->cur;
			memmove(&s->b[start], &s->b[start + size],
				(n - start - size) * sizeof(s->b[0]));
			s->n = n - size;
			kept = try_candidate(z, s);
		}
	}
	free(s);
	return kept;
}

/* Round 3: the switch after block i one step earlier or later. */
static bool try_moves(struct minimizer *z)
{
	struct sched *s = malloc(sizeof(*s));
	bool kept = false;

	if (!s)
		abort();
	for (unsigned int i = 0; i + 1 < z->cur.n && !kept && z->replays < MAX_REPLAYS; i++) {
		for (int dir = -1; dir <= 1 && !kept; dir += 2) {
			*s = z->cur;
			if (dir < 0 && s->b[i].count > 1) {
				s->b[i].count--;
				s->b[i + 1].count++;
			} else if (dir > 0 && s->b[i + 1].count > 1) {
				s->b[i].count++;
				s->b[i + 1].count--;
			} else {
				continue;
			}
			kept = try_candidate(z, s);
		}
	}
	free(s);
	return kept;
}

/* Round 4: block i's task takes all its later steps at once. */
static bool try_run_on(struct minimizer *z)
{
	struct sched *s = malloc(sizeof(*s));
	bool kept = false;

	if (!s)
		abort();
	for (unsigned int i = 0; i + 1 < z->cur.n && !kept && z->replays < MAX_REPLAYS; i++) {
		unsigned int n = 0;

		*s = z->cur;
		for (unsigned int k = 0; k < z->cur.n; k++) {
			if (k > i && z->cur.b[k].pick == z->cur.b[i].pick)
				s->b[i].count += z->cur.b[k].count;
			else
				s->b[n++] = k == i ? s->b[i] : z->cur.b[k];
		}
		if (n == z->cur.n)
			continue;
		s->n = n;
		kept = try_candidate(z, s);
	}
	free(s);
	return kept;
}

#define DFS_RUNS 20000

/*
 * Bounded DFS, bound 0 up to one below the best's preemptions: a failing
 * schedule with fewer preemptions, minimized in turn. *proven: every bound below
 * the result was exhausted without a violation.
 */
static void search_fewer(struct minimizer *z, bool *proven)
{
	struct msim_explore_result *r = malloc(sizeof(*r));

	if (!r)
		abort();
	*proven = true;
	for (unsigned int b = 0; b < z->best->preemptions; b++) {
		struct msim_explore_opts o = { .strategy = MSIM_STRAT_DFS, .runs = DFS_RUNS,
					       .preemptions = b, .stop_at_first = true };
		struct sched *s = malloc(sizeof(*s));

		if (!s)
			abort();
		if (msim_explore(z->target, z->base, &o, r)) {
			*proven = false;
			free(s);
			break;
		}
		z->replays += r->runs;
		if (r->violations && !r->schedule_truncated && !parse(r->schedule, s) &&
		    try_candidate(z, s)) {
			while (try_cuts(z) || try_removals(z) || try_run_on(z) || try_moves(z))
				;
			free(s);
			break;
		}
		free(s);
		if (!r->exhausted)
			*proven = false;
	}
	free(r);
}

int msim_explore_minimize(const struct msim_explore_target *target, const struct msim_config *base,
			  const char *schedule, struct msim_minimize_result *res)
{
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_REPLAY, .runs = 1,
				       .schedule = schedule };
	struct minimizer *z = calloc(1, sizeof(*z));
	struct msim_explore_result *best = malloc(sizeof(*best));
	int ret;

	memset(res, 0, sizeof(*res));
	if (!z || !best) {
		free(z);
		free(best);
		return -ENOMEM;
	}
	z->target = target;
	z->base = base;
	z->best = best;
	ret = schedule ? msim_explore(target, base, &o, best) : -EINVAL;
	z->replays = 1;
	if (!ret && (!best->violations || best->schedule_truncated))
		ret = -ESRCH; /* the input does not fail: nothing to minimize */
	if (!ret)
		ret = parse(best->schedule, &z->cur);
	/*
	 * An input the replay did not follow (a pick not enabled, picks left over)
	 * is not the failing run it claims to be: minimizing what ran instead would
	 * answer another question. A shorter one is a prefix, as the candidates
	 * are: the run goes on with option 0.
	 */
	if (!ret && (best->env_replay || !followed(schedule, &z->cur)))
		ret = -EPROTO;
	if (!ret) {
		res->input_preemptions = best->preemptions;
		res->input_blocks = z->cur.n;
		while (z->replays < MAX_REPLAYS &&
		       (try_cuts(z) || try_removals(z) || try_run_on(z) || try_moves(z)))
			;
		search_fewer(z, &res->proven);
		res->ex = *best;
		res->blocks = z->cur.n;
		res->replays = z->replays;
	}
	free(best);
	free(z);
	return ret;
}
