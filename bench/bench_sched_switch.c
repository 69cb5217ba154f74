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
 *    strategy (random, seeded) and resumes the chosen task. One step is two stack
 *    switches plus a decision;
 *  - schedules_per_s: complete runs of toy-percpu-reset per second under the
 *    random explorer (fresh host, setup, run, check, teardown each).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include "bench_util.h"
#include "scenario.h"

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
	uint64_t t0 = msim_bench_now_ns();
	while (bare_left)
		swapcontext(&uc_main, &uc_peer);
	uint64_t dt = msim_bench_now_ns() - t0;
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
				const struct msim_variants *base)
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
	uint64_t t0 = msim_bench_now_ns();
	msim_run(m);
	uint64_t dt = msim_bench_now_ns() - t0;
	double steps = (double)msim_sched_steps(m);
	msim_destroy(m);
	return steps / ((double)dt / 1e9);
}

static double schedules_per_s(unsigned int runs, uint64_t seed, const struct msim_variants *base)
{
	const struct msim_scenario *s = msim_scenario_find("toy-percpu-reset");
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
};

static double sample(unsigned int design, unsigned int rep, void *arg)
{
	struct ctx *c = arg;

	switch (design) {
	case 0:
		return bare_swapcontext_per_s(c->per_task);
	case 1:
		return sched_steps_per_s(c->per_task, c->seed + rep, &c->base);
	default:
		return schedules_per_s(c->runs, c->seed + rep, &c->base);
	}
}

static int sched_switch_main(int argc, char **argv)
{
	static const struct msim_bench_spec spec = {
		.name = "sched-switch",
		.summary = "deterministic scheduler steps/s and schedules/s beside bare swapcontext",
		.description = "Measures, alternated in one process: bare swapcontext calls per second, "
			       "scheduler steps per second (yield, decision, resume) and explored "
			       "schedules of toy-percpu-reset per second. Figures are this machine's.",
		.default_reps = 5,
		.quick_reps = 1,
	};
	struct msim_bench_args a;
	int ret = msim_bench_parse_args(&spec, argc, argv, &a);

	if (ret)
		return ret == 1 ? 0 : 2;
	struct ctx c = { .per_task = a.quick ? 20000 : YIELDS_PER_TASK,
			 .runs = a.quick ? 200 : 5000, .seed = a.seed, .base = a.variants };
	double *samples = calloc(3 * (size_t)a.reps, sizeof(double));
	struct msim_bench_progress pr;
	char vbuf[512];

	if (!samples)
		return 1;
	msim_bench_progress_init(&pr, spec.name, true);
	msim_bench_alternate(3, a.reps, sample, &c, samples, &pr);
	msim_bench_progress_done(&pr);
	double bare = msim_bench_median(samples, a.reps);
	double steps = msim_bench_median(samples + a.reps, a.reps);
	double sched = msim_bench_median(samples + 2 * a.reps, a.reps);
	if (a.json) {
		struct msim_json j;
		msim_json_init(&j, stdout);
		msim_json_obj_begin(&j, NULL);
		msim_json_kstr(&j, "bench", spec.name);
		msim_json_kuint(&j, "reps", a.reps);
		msim_json_kstr(&j, "base_variants", msim_bench_variants_str(&a, vbuf, sizeof(vbuf)));
		msim_json_kdbl(&j, "bare_swapcontext_per_s", bare);
		msim_json_kdbl(&j, "switches_per_s", steps);
		msim_json_kdbl(&j, "context_switches_per_s", 2 * steps);
		msim_json_kdbl(&j, "schedules_per_s", sched);
		msim_json_kdbl(&j, "switches_vs_bare", msim_bench_ratio(steps, bare));
		msim_json_kbool(&j, "goal_1m_switches_met", steps >= 1e6);
		msim_json_obj_end(&j);
		msim_json_finish(&j);
	} else {
		printf("sched-switch (median of %u, this machine; variants %s)\n", a.reps,
		       msim_bench_variants_str(&a, vbuf, sizeof(vbuf)));
		printf("  bare swapcontext calls        %12.0f /s\n", bare);
		printf("  scheduler steps (switches)    %12.0f /s   (%.2fx bare; goal 1,000,000: %s)\n",
		       steps, msim_bench_ratio(steps, bare), steps >= 1e6 ? "met" : "NOT met");
		printf("    of which stack switches     %12.0f /s   (two per step)\n", 2 * steps);
		printf("  toy-percpu-reset schedules    %12.0f /s   (random explorer, fresh host each)\n",
		       sched);
	}
	free(samples);
	return 0;
}

static const struct msim_bench sched_switch_bench = {
	.name = "sched-switch",
	.summary = "deterministic scheduler speed: steps/s and schedules/s vs bare swapcontext",
	.main = sched_switch_main,
};
MSIM_BENCH(sched_switch_bench);
