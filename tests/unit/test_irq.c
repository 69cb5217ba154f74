/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of execution contexts (irq.h): an interrupt source arrives at a
 * yield point of the innermost context of its CPU when the kernel's rules allow
 * it (interrupts on for softirq and hardirq, bottom halves on for softirq, kinds
 * only nest upward, NMIs always), runs to its end before anything below it on
 * the CPU, sees the CPU's per-CPU data, and the explorers choose its arrival,
 * which schedule strings name ("!N") and replay follows.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/memcgsim.h>

static struct msim *host(unsigned int cpus, enum msim_preempt_model p)
{
	struct msim_config cfg;
	struct msim *m;
	char err[256];

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.preempt = p;
	assert_int_equal(msim_create(&cfg, &m, err, sizeof(err)), 0);
	return m;
}

/* ---- bodies: each appends a letter to a log, so the order is visible ---- */

static char log_buf[64];
static unsigned int log_len;
static long *pcpu;          /* a per-CPU long */
static unsigned int seen_cpu;
static enum msim_context_kind seen_kind;

static void note(char c)
{
	if (log_len + 1 < sizeof(log_buf)) {
		log_buf[log_len++] = c;
		log_buf[log_len] = '\0';
	}
}

static void reset_log(void)
{
	log_len = 0;
	log_buf[0] = '\0';
}

static void task_body(void *arg)
{
	msim_yield("task.start");
	note('a');
	msim_yield("task.mid");
	note('b');
}

static void irq_off_task(void *arg)
{
	unsigned long flags = msim_local_irq_save();

	msim_yield("task.irqs_off");
	note('a');
	msim_local_irq_restore(flags);
	msim_yield("task.irqs_on");
	note('b');
}

static void bh_off_task(void *arg)
{
	msim_local_bh_disable();
	msim_yield("task.bh_off");
	msim_local_bh_enable();
	msim_yield("task.bh_on");
}

static void rmw_task(void *arg)
{
	msim_this_cpu_add_return(msim_this_cpu_ptr(pcpu), 1);
}

static void handler_body(void *arg)
{
	note((char)(intptr_t)arg);
	seen_cpu = msim_this_cpu();
	seen_kind = msim_context_kind();
	*(long *)msim_this_cpu_ptr(pcpu) += 100;
	msim_yield("handler.mid");
	note((char)((intptr_t)arg + 1));
}

/* ---- scripted arrivals ---- */

static void test_hardirq_runs_to_completion(void **state)
{
	struct msim *m = host(2, MSIM_PREEMPT_UNMODELLED);
	struct msim_task *t, *h;

	reset_log();
	pcpu = msim_alloc_percpu(m, sizeof(long), "test");
	t = msim_task_create(m, "task", 1, task_body, NULL);
	h = msim_irq_source_create(m, "timer", 1, MSIM_CTX_HARDIRQ, 1, handler_body,
				   (void *)(intptr_t)'H');
	assert_non_null(h);
	/* nothing runs on CPU 1 yet: nothing to interrupt */
	assert_int_equal(msim_irq_raise(m, h), -EBUSY);
	assert_int_equal(msim_run_until(m, t, "task.mid", 1), 0);
	assert_int_equal(msim_irq_raise(m, h), 0);
	assert_int_equal(seen_kind, MSIM_CTX_HARDIRQ);
	assert_int_equal(seen_cpu, 1);
	assert_int_equal(*(long *)msim_per_cpu_ptr(pcpu, 1), 100);
	/* the interrupted task cannot step while the handler is active */
	assert_int_equal(msim_step(m, t, 1), 0);
	assert_int_equal(msim_run_task(m, h), 0);
	assert_int_equal(msim_irq_fires(h), 1);
	/* one firing only */
	assert_int_equal(msim_irq_raise(m, h), -EBUSY);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_string_equal(log_buf, "aHIb");
	assert_string_equal(msim_schedule_string(m), "0*2.!1.1.0");
	assert_int_equal(msim_run(m), 0);
	msim_free_percpu(m, pcpu);
	msim_destroy(m);
}

static void test_irqs_off_blocks_all_but_nmi(void **state)
{
	struct msim *m = host(1, MSIM_PREEMPT_UNMODELLED);
	struct msim_task *t = msim_task_create(m, "task", 0, irq_off_task, NULL);
	struct msim_task *h = msim_irq_source_create(m, "hard", 0, MSIM_CTX_HARDIRQ, 1,
						     handler_body, (void *)(intptr_t)'H');
	struct msim_task *s = msim_irq_source_create(m, "soft", 0, MSIM_CTX_SOFTIRQ, 1,
						     handler_body, (void *)(intptr_t)'S');
	struct msim_task *n = msim_irq_source_create(m, "nmi", 0, MSIM_CTX_NMI, 1, handler_body,
						     (void *)(intptr_t)'N');

	reset_log();
	pcpu = msim_alloc_percpu(m, sizeof(long), "test");
	assert_int_equal(msim_run_until(m, t, "task.irqs_off", 1), 0);
	assert_int_equal(msim_irq_raise(m, h), -EBUSY);
	assert_int_equal(msim_irq_raise(m, s), -EBUSY);
	assert_int_equal(msim_irq_raise(m, n), 0);
	assert_int_equal(seen_kind, MSIM_CTX_NMI);
	assert_int_equal(msim_run_task(m, n), 0);
	assert_int_equal(msim_run_until(m, t, "task.irqs_on", 1), 0);
	/* interrupts on again: a softirq arrives, a hardirq nests on it, an NMI on that */
	assert_int_equal(msim_irq_raise(m, s), 0);
	assert_int_equal(msim_irq_raise(m, s), -EBUSY);     /* fired its one time */
	assert_int_equal(msim_irq_raise(m, h), 0);
	assert_true(msim_step(m, s, 1) == 0);                /* the hardirq is on top */
	assert_string_equal(log_buf, "NOaSH");
	assert_int_equal(msim_run_task(m, h), 0);
	assert_int_equal(msim_run_task(m, s), 0);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_string_equal(log_buf, "NOaSHITb");
	msim_free_percpu(m, pcpu);
	msim_destroy(m);
}

static void test_bh_off_blocks_softirq_only(void **state)
{
	struct msim *m = host(1, MSIM_PREEMPT_FULL);
	struct msim_task *t = msim_task_create(m, "task", 0, bh_off_task, NULL);
	struct msim_task *s = msim_irq_source_create(m, "soft", 0, MSIM_CTX_SOFTIRQ, 2,
						     handler_body, (void *)(intptr_t)'S');
	struct msim_task *h = msim_irq_source_create(m, "hard", 0, MSIM_CTX_HARDIRQ, 1,
						     handler_body, (void *)(intptr_t)'H');

	reset_log();
	pcpu = msim_alloc_percpu(m, sizeof(long), "test");
	assert_int_equal(msim_run_until(m, t, "task.bh_off", 1), 0);
	assert_int_equal(msim_irq_raise(m, s), -EBUSY);
	assert_int_equal(msim_irq_raise(m, h), 0);
	assert_int_equal(msim_run_task(m, h), 0);
	assert_int_equal(msim_run_until(m, t, "task.bh_on", 1), 0);
	assert_int_equal(msim_irq_raise(m, s), 0);
	assert_int_equal(msim_run_task(m, s), 0);
	assert_int_equal(msim_irq_raise(m, s), 0);          /* a second firing */
	assert_int_equal(msim_run_task(m, s), 0);
	assert_int_equal(msim_irq_fires(s), 2);
	assert_int_equal(msim_run(m), 0);
	assert_string_equal(log_buf, "HISTST");
	msim_free_percpu(m, pcpu);
	msim_destroy(m);
}

/* this_cpu_add_return holds interrupts off between its load and its store */
static void test_this_cpu_rmw_is_irq_atomic(void **state)
{
	struct msim *m = host(1, MSIM_PREEMPT_UNMODELLED);
	struct msim_task *t = msim_task_create(m, "task", 0, rmw_task, NULL);
	struct msim_task *h = msim_irq_source_create(m, "hard", 0, MSIM_CTX_HARDIRQ, 1,
						     handler_body, (void *)(intptr_t)'H');

	reset_log();
	pcpu = msim_alloc_percpu(m, sizeof(long), "test");
	assert_int_equal(msim_run_until(m, t, "this_cpu_rmw.load", 1), 0);
	assert_int_equal(msim_step(m, t, 1), 1);             /* loaded, parked at the store */
	assert_string_equal(msim_task_parked_at(t), "this_cpu_rmw.store");
	assert_int_equal(msim_irq_raise(m, h), -EBUSY);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(*(long *)msim_per_cpu_ptr(pcpu, 0), 1);
	msim_free_percpu(m, pcpu);
	msim_destroy(m);
}

static void test_bad_arguments(void **state)
{
	struct msim *m = host(2, MSIM_PREEMPT_UNMODELLED);
	struct msim_config cfg;
	struct msim *c;
	char err[256];

	errno = 0;
	assert_null(msim_irq_source_create(m, "x", 0, MSIM_CTX_TASK, 1, handler_body, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(msim_irq_source_create(m, "x", 0, MSIM_CTX_NMI, 0, handler_body, NULL));
	assert_null(msim_irq_source_create(m, "x", 2, MSIM_CTX_NMI, 1, handler_body, NULL));
	assert_int_equal(msim_irq_raise(m, NULL), -EINVAL);
	msim_config_init(&cfg);
	cfg.mode = MSIM_CONCURRENT;
	assert_int_equal(msim_create(&cfg, &c, err, sizeof(err)), 0);
	errno = 0;
	assert_null(msim_irq_source_create(c, "x", 0, MSIM_CTX_NMI, 1, handler_body, NULL));
	assert_int_equal(errno, EOPNOTSUPP);
	msim_destroy(c);
	msim_destroy(m);
	assert_string_equal(msim_context_kind_name(MSIM_CTX_SOFTIRQ), "softirq");
}

/* ---- explorers choose arrivals ---- */

struct scn_state {
	struct msim_task *t, *h;
};

static int scn_setup(struct msim *m, void **state, void *arg)
{
	static struct scn_state st;

	reset_log();
	pcpu = msim_alloc_percpu(m, sizeof(long), "test");
	st.t = msim_task_create(m, "task", 0, task_body, NULL);
	st.h = msim_irq_source_create(m, "nmi", 0, MSIM_CTX_NMI, 1, handler_body,
				      (void *)(intptr_t)'N');
	*state = &st;
	return st.t && st.h ? 0 : -ENOMEM;
}

/* "violated" when the NMI landed between the task's two halves */
static bool scn_check(struct msim *m, void *state, char *why, size_t len)
{
	snprintf(why, len, "log %s", log_buf);
	return strcmp(log_buf, "aNOb") == 0;
}

static void scn_teardown(struct msim *m, void *state)
{
	msim_free_percpu(m, pcpu);
}

static unsigned int distinct_logs;
static char logs_seen[8][sizeof(log_buf)];

static void collect(const struct msim_explore_run *run, void *arg)
{
	for (unsigned int i = 0; i < distinct_logs; i++)
		if (!strcmp(logs_seen[i], log_buf))
			return;
	if (distinct_logs < 8)
		snprintf(logs_seen[distinct_logs++], sizeof(logs_seen[0]), "%s", log_buf);
}

static void test_dfs_enumerates_arrivals(void **state)
{
	struct msim_explore_target tg = { "irq", scn_setup, scn_check, scn_teardown, NULL };
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_DFS, .runs = 100, .preemptions = 2,
				       .on_run = collect };
	struct msim_explore_result res, rep;
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 1;
	distinct_logs = 0;
	assert_int_equal(msim_explore(&tg, &cfg, &o, &res), 0);
	assert_true(res.exhausted);
	/* no arrival, an arrival at "task.start" (before 'a'), one at "task.mid"
	 * (not before the task first ran: nothing to interrupt; not inside the
	 * handler: NMIs do not nest) */
	assert_int_equal(distinct_logs, 3);
	assert_int_equal(res.runs, 3);
	assert_int_equal(res.violations, 1);
	assert_string_equal(res.schedule, "0*2.!1.1.0");
	/* the string replays the arrival */
	o.strategy = MSIM_STRAT_REPLAY;
	o.schedule = res.schedule;
	o.on_run = NULL;
	assert_int_equal(msim_explore(&tg, &cfg, &o, &rep), 0);
	assert_int_equal(rep.violations, 1);
	assert_false(rep.diverged);
	assert_int_equal(rep.trace_hash, res.trace_hash);
}

static void test_random_and_pct_find_the_arrival(void **state)
{
	struct msim_explore_target tg = { "irq", scn_setup, scn_check, scn_teardown, NULL };
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_RANDOM, .runs = 50, .seed = 1 };
	struct msim_explore_result res;
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 1;
	assert_int_equal(msim_explore(&tg, &cfg, &o, &res), 0);
	assert_true(res.violations > 0 && res.violations < 50);
	o.strategy = MSIM_STRAT_PCT;
	o.pct_depth = 2;
	assert_int_equal(msim_explore(&tg, &cfg, &o, &res), 0);
	assert_true(res.violations > 0);
}

/* ---- a source that never arrives changes nothing ---- */

static void two_step(void *arg)
{
	msim_yield("two.a");
	msim_yield("two.b");
}

static void run_random(bool with_source, uint64_t seed, char *sched, size_t len, uint64_t *hash)
{
	struct msim *m = host(3, MSIM_PREEMPT_UNMODELLED);
	struct msim_sched_opts so = { .strategy = MSIM_STRAT_RANDOM, .seed = seed };

	assert_non_null(msim_task_create(m, "a", 0, two_step, NULL));
	assert_non_null(msim_task_create(m, "b", 1, two_step, NULL));
	/* CPU 2 runs no task: nothing there to interrupt */
	if (with_source)
		assert_non_null(msim_irq_source_create(m, "nmi", 2, MSIM_CTX_NMI, 1, two_step,
						       NULL));
	assert_int_equal(msim_sched_set(m, &so), 0);
	assert_int_equal(msim_run(m), 0);
	snprintf(sched, len, "%s", msim_schedule_string(m));
	*hash = msim_sched_trace_hash(m);
	msim_destroy(m);
}

static void test_idle_source_changes_nothing(void **state)
{
	for (uint64_t seed = 0; seed < 20; seed++) {
		char a[128], b[128];
		uint64_t ha, hb;

		run_random(false, seed, a, sizeof(a), &ha);
		run_random(true, seed, b, sizeof(b), &hb);
		assert_string_equal(a, b);
		assert_int_equal(ha, hb);
	}
}

/* ---- spin_lock without irqsave, taken again by a handler: the AA deadlock ---- */

static struct msim_lock aa_lock;

static void lock_holder(void *arg)
{
	msim_spin_lock(&aa_lock);
	msim_yield("holder.locked");
	msim_spin_unlock(&aa_lock);
}

static void lock_handler(void *arg)
{
	msim_spin_lock(&aa_lock);
	msim_spin_unlock(&aa_lock);
}

static void test_handler_on_held_lock_deadlocks(void **state)
{
	struct msim *m = host(1, MSIM_PREEMPT_UNMODELLED);
	struct msim_task *t = msim_task_create(m, "holder", 0, lock_holder, NULL);
	struct msim_task *h = msim_irq_source_create(m, "hardirq", 0, MSIM_CTX_HARDIRQ, 1,
						     lock_handler, NULL);

	msim_spin_lock_init(&aa_lock, "aa_lock");
	assert_int_equal(msim_run_until(m, t, "holder.locked", 1), 0);
	assert_int_equal(msim_irq_raise(m, h), 0);
	assert_int_equal(msim_run_task(m, h), -EDEADLK);
	assert_int_equal(msim_run(m), -EDEADLK);
	assert_non_null(strstr(msim_deadlock_report(m), "hardirq"));
	assert_non_null(strstr(msim_deadlock_report(m), "held by holder"));
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hardirq_runs_to_completion),
		cmocka_unit_test(test_irqs_off_blocks_all_but_nmi),
		cmocka_unit_test(test_bh_off_blocks_softirq_only),
		cmocka_unit_test(test_this_cpu_rmw_is_irq_atomic),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_dfs_enumerates_arrivals),
		cmocka_unit_test(test_random_and_pct_find_the_arrival),
		cmocka_unit_test(test_idle_source_changes_nothing),
		cmocka_unit_test(test_handler_on_held_lock_deadlocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
