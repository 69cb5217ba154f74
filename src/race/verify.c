/* SPDX-License-Identifier: MIT */
/*
 * verify.c - a run against what its side of the race states: the verdict, the
 * script's exact figures and notes, an explorer's reason and DFS figures, and
 * that a found violation replays to the identical trace.
 *
 * Each check writes the first difference it finds, in words a person can act on,
 * and returns -EDOM; 0 when everything the side states holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

__attribute__((format(printf, 3, 4)))
static int differs(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EDOM;
}

static int check_figure(const struct msim_race_report *rep, const struct msim_race_expect *e,
			char *err, size_t errlen)
{
	const struct msim_race_fig *f = msim_race_fig_find(rep, e->key);
	const struct msim_race_fig *other;

	if (!f)
		return differs(err, errlen, "figure %s missing from the script's report", e->key);
	if (e->str)
		return f->type == MSIM_RACE_FIG_STR && !strcmp(f->s, e->str) ? 0 :
			differs(err, errlen, "figure %s is '%s', the side states '%s'", e->key,
				f->s, e->str);
	if (e->same_as) {
		other = msim_race_fig_find(rep, e->same_as);
		if (!other || other->i != f->i)
			return differs(err, errlen, "figure %s is %lld, the side states it equals "
				       "%s (%lld)", e->key, f->i, e->same_as, other ? other->i : 0);
		return 0;
	}
	if (f->i != e->value)
		return differs(err, errlen, "figure %s is %lld, the side states %lld", e->key,
			       f->i, e->value);
	return 0;
}

/* A replay of res's schedule: its result (the caller frees it), or NULL and err. */
static struct msim_race_result *replay_of(const struct msim_race *r,
					  const struct msim_race_result *res, char *err,
					  size_t errlen)
{
	struct msim_race_result *again = calloc(1, sizeof(*again));
	char why[256] = "";

	if (!again) {
		snprintf(err, errlen, "out of memory for a replay");
		return NULL;
	}
	if (msim_race_replay(r, &res->cfg, res->side, res->ex.schedule, again, why,
			     sizeof(why))) {
		snprintf(err, errlen, "the schedule '%s' does not replay: %s", res->ex.schedule, why);
		free(again);
		return NULL;
	}
	return again;
}

/*
 * The run's schedule replayed gives the same verdict and schedule, and for a
 * violation the same reason and, where the run recorded one, the same trace hash.
 */
static int check_replay(const struct msim_race *r, const struct msim_race_result *res,
			char *err, size_t errlen)
{
	struct msim_race_result *again = replay_of(r, res, err, errlen);
	bool found = res->ex.violations > 0;
	int ret = -EDOM;

	if (!again)
		return -EDOM;
	if (again->ex.violations != (found ? 1u : 0u) || again->ex.diverged)
		differs(err, errlen, "the replay of '%s' %s", res->ex.schedule, again->ex.diverged ?
			"diverged" : "reached another verdict");
	else if (strcmp(again->ex.schedule, res->ex.schedule))
		differs(err, errlen, "the replay ran '%s', not '%s'", again->ex.schedule,
			res->ex.schedule);
	else if (res->ex.trace_hash && again->ex.trace_hash != res->ex.trace_hash)
		differs(err, errlen, "the replay's trace hash %#" PRIx64 " is not the run's %#"
			PRIx64, again->ex.trace_hash, res->ex.trace_hash);
	else if (found && res->strategy != MSIM_STRAT_SCRIPT && strcmp(again->ex.why, res->ex.why))
		differs(err, errlen, "the replay ends with '%s', the run with '%s'", again->ex.why,
			res->ex.why);
	else
		ret = 0;
	free(again);
	return ret;
}

static int check_script(const struct msim_race *r, const struct msim_race_side *side,
			const struct msim_race_result *res, char *err, size_t errlen)
{
	int ret;

	if (res->rep.violated != side->violation)
		return differs(err, errlen, "the script %s the bad state; side %s states it %s",
			       res->rep.violated ? "reached" : "did not reach", side->name,
			       side->violation ? "does" : "does not");
	for (const struct msim_race_expect *e = side->figures; e && e->key; e++)
		if ((ret = check_figure(&res->rep, e, err, errlen)))
			return ret;
	for (const char *const *n = side->notes; n && *n; n++)
		if (!strstr(res->rep.notes, *n))
			return differs(err, errlen, "the script's notes lack '%s'", *n);
	return r->script_replays ? check_replay(r, res, err, errlen) : 0;
}

/* DFS under the race's own budget: what the side states about the bounded space. */
static int check_dfs(const struct msim_race_side *side, const struct msim_race_result *res,
		     char *err, size_t errlen)
{
	const struct msim_explore_result *ex = &res->ex;

	if (res->strategy != MSIM_STRAT_DFS || !res->own_budget)
		return 0;
	if (side->dfs_exhausts && !ex->exhausted)
		return differs(err, errlen, "DFS stopped after %u schedules without exhausting "
			       "the bounded space", ex->runs);
	if (side->dfs_schedules && ex->runs != side->dfs_schedules)
		return differs(err, errlen, "DFS ran %u schedules, the side states %u", ex->runs,
			       side->dfs_schedules);
	if (side->dfs_schedule && (ex->first_violation_run != side->dfs_first_violation ||
				   strcmp(ex->schedule, side->dfs_schedule)))
		return differs(err, errlen, "DFS found the violation in run %d ('%s'), the side "
			       "states run %d ('%s')", ex->first_violation_run, ex->schedule,
			       side->dfs_first_violation, side->dfs_schedule);
	return 0;
}

/* DPOR under the race's own budget: the schedules the side states, space exhausted. */
static int check_dpor(const struct msim_race_side *side, const struct msim_race_result *res,
		      char *err, size_t errlen)
{
	const struct msim_explore_result *ex = &res->ex;

	if (res->strategy != MSIM_STRAT_DPOR || !res->own_budget || !side->dpor_schedules)
		return 0;
	if (!ex->exhausted)
		return differs(err, errlen, "DPOR stopped after %u schedules without exhausting "
			       "the bounded space", ex->runs);
	if (ex->runs != side->dpor_schedules)
		return differs(err, errlen, "DPOR ran %u schedules, the side states %u", ex->runs,
			       side->dpor_schedules);
	return 0;
}

static int check_explore(const struct msim_race *r, const struct msim_race_side *side,
			 const struct msim_race_result *res, char *err, size_t errlen)
{
	const struct msim_explore_result *ex = &res->ex;

	if (ex->deadlocked != side->deadlock)
		return differs(err, errlen, "the run %s, side %s states it %s",
			       ex->deadlocked ? "deadlocked" : "did not deadlock", side->name,
			       side->deadlock ? "does" : "does not");
	if (!side->violation)
		return ex->violations || ex->first_violation_run != -1 ?
			differs(err, errlen, "%u of %u runs reached the bad state on side %s "
				"(first: %s)", ex->violations, ex->runs, side->name, ex->why) :
			check_dfs(side, res, err, errlen) ?: check_dpor(side, res, err, errlen);
	if (!ex->violations || ex->first_violation_run < 0 ||
	    (unsigned int)ex->first_violation_run >= ex->runs)
		return differs(err, errlen, "no violation in %u runs on side %s", ex->runs,
			       side->name);
	if (side->why && !strstr(ex->why, side->why))
		return differs(err, errlen, "the violation says '%s', not '%s'", ex->why, side->why);
	if (side->clean_orders && res->strategy != MSIM_STRAT_REPLAY && ex->violations >= ex->runs)
		return differs(err, errlen, "all %u runs reached the bad state; the side states "
			       "some orders avoid it", ex->runs);
	int ret = check_dfs(side, res, err, errlen);
	return ret ? ret : check_replay(r, res, err, errlen);
}

int msim_race_verify(const struct msim_race *r, const struct msim_race_result *res,
		     char *err, size_t errlen)
{
	const struct msim_race_side *side = res->side;

	if (!side) {
		snprintf(err, errlen, "a run of %s without a side states nothing to verify", r->name);
		return -EINVAL;
	}
	bool expected = r->expect ? r->expect(&res->cfg, side->arg ? side->arg : r->target.arg)
				  : side->violation;

	if (expected != side->violation)
		return differs(err, errlen, "race %s expects %s under side %s's settings, the side "
			       "states %s", r->name, expected ? "a violation" : "none", side->name,
			       side->violation ? "one" : "none");
	if (!res->behaved_as_expected)
		return differs(err, errlen, "%s", res->outcome);
	if (res->concurrent)
		return 0;
	if (res->strategy == MSIM_STRAT_SCRIPT)
		return check_script(r, side, res, err, errlen);
	return check_explore(r, side, res, err, errlen);
}
