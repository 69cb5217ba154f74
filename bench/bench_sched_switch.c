/* SPDX-License-Identifier: MIT */
/*
 * sched-switch: how fast the deterministic scheduler runs, beside a bare
 * swapcontext ping-pong measured in the same process.
 *
 *  - bare_swapcontext_per_s: swapcontext() calls per second between two
 *    ucontexts (each call is one switch; it also saves the signal mask with a
 *    system call, which is why it is slow);
 *  - switches_per_s: scheduler steps per second: a task reaches a yield point,
 *    control goes back to the scheduler, which lists the enabled steps, asks the
 *    strategy (random, seeded) and resumes the chosen task; the task takes the
 *    decision itself and, picked again, goes on with no stack switch (counted:
 *    stack_switches_per_step). A step that switches is two stack
 *    switches plus a decision;
 *  - schedules_per_s: complete runs of toy-percpu-reset per second under the
 *    random explorer (fresh host, setup, run, check, teardown each).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include <memcgsim/race.h>

#include "bench_sched_switch.h"
#include "bench_util.h"
#include "bench_registry.h"
#include "sim/sched.h"

#define YIELDS_PER_TASK 200000U

/* ---- bare swapcontext ---- */

static ucontext_t uc_main, uc_peer;
static volatile unsigned long bare_left;

static void peer_fn(void)
{
	for (;;) {
		bare_left--;
		swapcontext(&uc_peer, &uc_main);
	}
}

static double bare_swapcontext_per_s(unsigned long n)
{
	static char stack[64 * 1024];

	getcontext(&uc_peer);
	uc_peer.uc_stack.ss_sp = stack;
	uc_peer.uc_stack.ss_size = sizeof(stack);
	uc_peer.uc_link = &uc_main;
	makecontext(&uc_peer, peer_fn, 0);
	bare_left = n;
	uint64_t t0 = bench_now_ns();
	while (bare_left)
		swapcontext(&uc_main, &uc_peer);
	uint64_t dt = bench_now_ns() - t0;
	return 2.0 * (double)n / ((double)dt / 1e9); /* two swapcontext calls per round */
}

/* ---- scheduler steps ---- */

static void yielder(void *arg)
{
	unsigned int n = *(unsigned int *)arg;

	for (unsigned int i = 0; i < n; i++)
		msim_yield("bench");
}

static double sched_steps_per_s(unsigned int per_task, uint64_t seed,
				const struct msim_variants *base, double *switches_per_step)
{
	struct msim_config cfg;
	struct msim *m;
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_RANDOM, .seed = seed };

	msim_config_init(&cfg);
	cfg.variants = *base;
	cfg.nr_cpus = 2;
	if (msim_create(&cfg, &m, NULL, 0))
		return 0;
	msim_task_create(m, "a", 0, yielder, &per_task);
	msim_task_create(m, "b", 1, yielder, &per_task);
	msim_sched_set(m, &o);
	uint64_t t0 = bench_now_ns();
	msim_run(m);
	uint64_t dt = bench_now_ns() - t0;
	double steps = (double)msim_sched_steps(m);
	/* into a task and back out, each resumption */
	*switches_per_step = steps > 0 ? 2.0 * (double)msim__sched_resumes(m) / steps : 0;
	msim_destroy(m);
	return steps / ((double)dt / 1e9);
}

static double schedules_per_s(unsigned int runs, uint64_t seed, const struct msim_variants *base)
{
	const struct msim_race *s = msim_race_find("toy-percpu-reset");
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_RANDOM, .seed = seed, .runs = runs };
	struct msim_explore_result *r = calloc(1, sizeof(*r));
	struct msim_config cfg;
	double v = 0;

	if (!s || !r) {
		free(r);
		return 0;
	}
	msim_config_init(&cfg);
	cfg.variants = *base;
	if (!msim_explore(&s->target, &cfg, &o, r) && r->seconds > 0)
		v = r->runs / r->seconds;
	free(r);
	return v;
}

struct ctx {
	unsigned int per_task, runs;
	uint64_t seed;
	struct msim_variants base;   /* --preset/--variant (no variant is compared here) */
	double switches_per_step;
};

static double sample(unsigned int design, unsigned int rep, void *arg)
{
	struct ctx *c = arg;

	switch (design) {
	case 0:
		return bare_swapcontext_per_s(c->per_task);
	case 1:
		return sched_steps_per_s(c->per_task, c->seed + rep, &c->base,
					 &c->switches_per_step);
	default:
		return schedules_per_s(c->runs, c->seed + rep, &c->base);
	}
}

/* ---- the goal ---- */

static const char *const ss_fig_names[BENCH_SS_NFIGS] = {
	[BENCH_SS_F_STEPS] = "steps_per_s",
	[BENCH_SS_F_STEPS_PER_BARE] = "steps_per_bare_swapcontext",
};

static const struct bench_verdict_row ss_rows[] = {
	{
		.claim = "the deterministic scheduler runs at least 1,000,000 steps per second",
		.thread = { { "steps", 0, 1e6, "/s" } },
		.ours = { { "steps", BENCH_SS_F_STEPS, 0, "/s" },
			  { "steps / bare swapcontext", BENCH_SS_F_STEPS_PER_BARE, 0, "x" } },
		.holds_when = { { BENCH_SS_F_STEPS, BENCH_VOP_GE, 1e6 } },
		.why = { [BENCH_VERDICT_DOES_NOT_HOLD] = "this machine's figure: a shared or "
							"sanitized build can fall short" },
	},
};

void bench_ss_verdicts(const struct bench_ss_summary *s, struct bench_ss_verdicts *v)
{
	v->fig[BENCH_SS_F_NONE] = 0;
	v->fig[BENCH_SS_F_STEPS] = s->steps;
	v->fig[BENCH_SS_F_STEPS_PER_BARE] = bench_ratio(s->steps, s->bare);
	v->table = (struct bench_verdict_table){
		.reference = "the goal",
		.rows = ss_rows,
		.nrows = sizeof(ss_rows) / sizeof(ss_rows[0]),
		.fig_names = ss_fig_names,
		.fig = v->fig,
		.nfig = BENCH_SS_NFIGS,
	};
}

static void print_json(const struct bench_opts *a, const char *name,
		       const struct bench_ss_summary *s)
{
	struct bench_ss_verdicts v;
	struct bench_json j;
	char vbuf[512];

	bench_json_init(&j, stdout);
	bench_json_obj_begin(&j, NULL);
	bench_json_kstr(&j, "bench", name);
	bench_json_kuint(&j, "reps", a->reps);
	bench_json_kstr(&j, "base_variants", bench_variants_str(a, vbuf, sizeof(vbuf)));
	bench_json_kdbl(&j, "bare_swapcontext_per_s", s->bare);
	bench_json_kdbl(&j, "switches_per_s", s->steps);
	bench_json_kdbl(&j, "context_switches_per_s", s->stack_switches_per_step * s->steps);
	bench_json_kdbl(&j, "stack_switches_per_step", s->stack_switches_per_step);
	bench_json_kdbl(&j, "schedules_per_s", s->sched);
	bench_json_kdbl(&j, "switches_vs_bare", bench_ratio(s->steps, s->bare));
	bench_ss_verdicts(s, &v);
	bench_verdict_print_json(&j, "verdicts", &v.table);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
}

static void print_text(const struct bench_opts *a, const struct bench_ss_summary *s)
{
	struct bench_ss_verdicts v;
	char vbuf[512];

	printf("sched-switch (median of %u, this machine; variants %s)\n", a->reps,
	       bench_variants_str(a, vbuf, sizeof(vbuf)));
	printf("  bare swapcontext calls        %12.0f /s\n", s->bare);
	printf("  scheduler steps (switches)    %12.0f /s   (%.2fx bare)\n", s->steps,
	       bench_ratio(s->steps, s->bare));
	printf("    of which stack switches     %12.0f /s   (%.2f per step; none where the pick "
	       "is the running task)\n", s->stack_switches_per_step * s->steps,
	       s->stack_switches_per_step);
	printf("  toy-percpu-reset schedules    %12.0f /s   (random explorer, fresh host each)\n",
	       s->sched);
	printf("\n");
	bench_ss_verdicts(s, &v);
	bench_verdict_print_text(stdout, &v.table);
}

static int sched_switch_main(int argc, char **argv)
{
	static const struct bench_spec spec = {
		.name = "sched-switch",
		.summary = "deterministic scheduler steps/s and schedules/s beside bare swapcontext",
		.description = "Measures, alternated in one process: bare swapcontext calls per second, "
			       "scheduler steps per second (yield, decision, resume) and explored "
			       "schedules of toy-percpu-reset per second. Figures are this machine's.",
		.default_reps = 5,
		.quick_reps = 1,
	};
	struct bench_opts a;
	int ret = bench_parse_args(&spec, argc, argv, &a);

	if (ret)
		return bench_args_exit_status(ret);
	struct ctx c = { .per_task = a.quick ? 20000 : YIELDS_PER_TASK,
			 .runs = a.quick ? 200 : 5000, .seed = a.seed, .base = a.variants };
	double *samples = calloc(3 * (size_t)a.reps, sizeof(double));
	struct bench_progress pr;

	if (!samples)
		return 1;
	bench_progress_init(&pr, spec.name, true);
	bench_alternate(3, a.reps, sample, &c, samples, &pr);
	bench_progress_done(&pr);
	struct bench_ss_summary sum = {
		.bare = bench_median(samples, a.reps),
		.steps = bench_median(samples + a.reps, a.reps),
		.sched = bench_median(samples + 2 * a.reps, a.reps),
		.stack_switches_per_step = c.switches_per_step,
	};

	if (a.json)
		print_json(&a, spec.name, &sum);
	else
		print_text(&a, &sum);
	free(samples);
	return 0;
}

static const struct bench_engine sched_switch_bench = {
	.name = "sched-switch",
	.summary = "deterministic scheduler speed: steps/s and schedules/s vs bare swapcontext",
	.main = sched_switch_main,
};
BENCH_REGISTER(sched_switch_bench);
