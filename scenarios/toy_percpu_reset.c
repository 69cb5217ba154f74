/* SPDX-License-Identifier: MIT */
/*
 * toy-percpu-reset: race R1 in miniature (docs/races.md).
 *
 * CPU 1 bumps its per-CPU counter with this_cpu_add_return, a load and a store
 * that are atomic against CPU 1's interrupts but not against a store from another
 * CPU. CPU 0 "flushes": it reads CPU 1's slot, folds the value into a total and
 * resets the slot with a plain remote store. Conservation: total + slot equals the
 * number of increments. The diagram (below, in the race) is the scripted
 * schedule; the toy has no fix, so every strategy must reach the loss.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "scn.h"

#define TOY_INCREMENTS 5

struct toy_percpu {
	long *slots;        /* per-CPU */
	long total;         /* written by the flusher only */
	long increments;    /* done by the updater */
	struct msim_task *flusher, *updater;
};

static void updater_fn(void *arg)
{
	struct toy_percpu *s = arg;

	for (int i = 0; i < TOY_INCREMENTS; i++) {
		msim_this_cpu_add_return(msim_this_cpu_ptr(s->slots), 1);
		s->increments++;
	}
}

static void flusher_fn(void *arg)
{
	struct toy_percpu *s = arg;
	long *remote = msim_per_cpu_ptr(s->slots, 1);

	long v = msim_read_once(remote);
	s->total += v;
	msim_write_once(remote, 0);
}

static int toy_setup(struct msim *m, void **state, void *arg)
{
	struct toy_percpu *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->slots = msim_alloc_percpu(m, sizeof(long), "toy");
	s->flusher = msim_task_create(m, "flusher", 0, flusher_fn, s);
	s->updater = msim_task_create(m, "updater", 1, updater_fn, s);
	*state = s;
	return s->slots && s->flusher && s->updater ? 0 : -ENOMEM;
}

static long toy_slot(struct toy_percpu *s)
{
	return *(long *)msim_per_cpu_ptr(s->slots, 1);
}

static bool toy_check(struct msim *m, void *state, char *why, size_t len)
{
	struct toy_percpu *s = state;
	long seen = s->total + toy_slot(s);

	if (seen == s->increments)
		return false;
	snprintf(why, len, "%ld increments but total %ld + slot %ld = %ld: %s", s->increments,
		 s->total, toy_slot(s), seen, seen < s->increments ? "update lost" : "double count");
	return true;
}

static void toy_teardown(struct msim *m, void *state)
{
	struct toy_percpu *s = state;

	if (s)
		msim_free_percpu(m, s->slots);
	free(s);
}

static int toy_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct toy_percpu *s = state;
	char why[256];
	int ret = msim_run_until(m, s->updater, "this_cpu_rmw.load", 4);

	if (!ret)
		ret = msim_run_until(m, s->flusher, "write_once", 1);
	if (!ret)
		ret = msim_run_until(m, s->updater, "this_cpu_rmw.load", 1);
	if (!ret)
		ret = msim_run_task(m, s->flusher);
	if (!ret)
		ret = msim_run(m);
	if (!ret) {
		rep->violated = toy_check(m, s, why, sizeof(why));
		msim_race_note(rep, "%s", rep->violated ? why : "no update lost");
		msim_race_fig_int(rep, "increments", s->increments);
		msim_race_fig_int(rep, "total", s->total);
		msim_race_fig_int(rep, "slot", toy_slot(s));
	}
	return ret;
}

static int toy_configure(struct msim_config *cfg, char *err, size_t len)
{
	return scn_need_cpus(cfg, 2, "toy-percpu-reset", err, len);
}

static const struct msim_race toy_percpu_reset = {
	.name = "toy-percpu-reset",
	.summary = "per-CPU counter bumped non-atomically while another CPU resets it (R1)",
	.thread = "toy",
	.windows = "R1",
	.diagram =
		"CPU 0 (flusher)                 CPU 1 (updater)\n"
		"---------------                 ---------------\n"
		"                                3 increments: slot = 3\n"
		"v = READ_ONCE(slot)      (3)\n"
		"total += v               (3)\n"
		"                                n = slot + 1   (4)\n"
		"                                slot = n       (4)\n"
		"WRITE_ONCE(slot, 0)                              <- increment 4 lost\n"
		"                                1 more increment: slot = 1\n",
	.budget = { .runs = 200, .pct_depth = 2, .preemptions = 2, .dfs_runs = 2000 },
	.configure = toy_configure,
	.target = { .name = "toy-percpu-reset", .setup = toy_setup, .check = toy_check,
		    .teardown = toy_teardown },
	.script = toy_script,
	.script_replays = true,
	.serial_orders = 2,  /* flusher first, or updater first */
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "", .violation = true, .demo = true,
		  .summary = "the toy has no fix: 5 increments end as total 3 + slot 1",
		  .why = "increments but total",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("increments", 5), MSIM_RACE_EXPECT("total", 3),
			  MSIM_RACE_EXPECT("slot", 1), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(toy_percpu_reset)
