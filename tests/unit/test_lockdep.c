/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the lock-order checker (lockdep.h): planted lock-order bugs that
 * no explored run deadlocks on are reported with both acquisition chains; what
 * lockdep treats as safe (a trylock, an annotated nesting, one order everywhere)
 * is not; the irq checks fire under a fake execution-context reader (the
 * simulated CPUs take no interrupts yet); and recording changes no schedule.
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

#include <memcgsim/explore.h>
#include <memcgsim/lock.h>
#include <memcgsim/lockdep.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>

#include "sim/lockdep.h"
#include "sim/lockdep_internal.h"

/* ---- scenarios: each run is a fresh host with two locks and two tasks ---- */

struct two_locks {
	struct msim_lock a, b, c;
	long flag;                /* across-runs scenario: which order task 0 takes */
	const char *mode;         /* the target's arg */
};

static void take(struct msim_lock *first, struct msim_lock *second, const char *point)
{
	msim_yield(point);
	msim_lock(first);
	msim_lock(second);
	msim_unlock(second);
	msim_unlock(first);
}

static void task_ab(void *arg)
{
	struct two_locks *s = arg;

	take(&s->a, &s->b, "test.ab");
}

static void task_ba(void *arg)
{
	struct two_locks *s = arg;

	take(&s->b, &s->a, "test.ba");
}

static void task_bc(void *arg)
{
	struct two_locks *s = arg;

	take(&s->b, &s->c, "test.bc");
}

static void task_ca(void *arg)
{
	struct two_locks *s = arg;

	take(&s->c, &s->a, "test.ca");
}

/* Across runs: the order depends on whether the other task ran first. */
static void task_either(void *arg)
{
	struct two_locks *s = arg;

	if (msim_read_once_at(&s->flag, "test.flag.read"))
		take(&s->b, &s->a, "test.ba");
	else
		take(&s->a, &s->b, "test.ab");
}

static void task_set_flag(void *arg)
{
	struct two_locks *s = arg;

	msim_write_once_at(&s->flag, 1, "test.flag.write");
}

/* A holds, B is only tried: the trylock cannot wait, so B -> A is no cycle. */
static void task_a_try_b(void *arg)
{
	struct two_locks *s = arg;

	msim_lock(&s->a);
	if (msim_trylock(&s->b))
		msim_unlock(&s->b);
	msim_unlock(&s->a);
}

static int setup(struct msim *m, void **state, void *arg)
{
	struct two_locks *s = calloc(1, sizeof(*s));
	const char *mode = arg;
	struct msim_task *t0 = NULL, *t1 = NULL;

	if (!s)
		return -ENOMEM;
	s->mode = mode;
	msim_lock_init(&s->a, "A");
	msim_lock_init(&s->b, "B");
	msim_lock_init(&s->c, "C");
	*state = s;
	if (!strcmp(mode, "same-cpu")) {
		/* One CPU runs its tasks one after the other: the orders never overlap. */
		t0 = msim_task_create(m, "ab", 0, task_ab, s);
		t1 = msim_task_create(m, "ba", 0, task_ba, s);
	} else if (!strcmp(mode, "across-runs")) {
		t0 = msim_task_create(m, "either", 0, task_either, s);
		t1 = msim_task_create(m, "setter", 1, task_set_flag, s);
	} else if (!strcmp(mode, "one-order")) {
		t0 = msim_task_create(m, "ab", 0, task_ab, s);
		t1 = msim_task_create(m, "ab2", 1, task_ab, s);
	} else if (!strcmp(mode, "trylock")) {
		t0 = msim_task_create(m, "a-try-b", 0, task_a_try_b, s);
		t1 = msim_task_create(m, "ba", 1, task_ba, s);
	} else if (!strcmp(mode, "three")) {
		/* A -> B, B -> C, C -> A, one after the other on CPU 0. */
		t0 = msim_task_create(m, "ab", 0, task_ab, s);
		t1 = msim_task_create(m, "bc", 0, task_bc, s);
		if (t1 && !msim_task_create(m, "ca", 0, task_ca, s))
			t1 = NULL;
	} else if (!strcmp(mode, "deadlock")) {
		t0 = msim_task_create(m, "ab", 0, task_ab, s);
		t1 = msim_task_create(m, "ba", 1, task_ba, s);
	}
	return t0 && t1 ? 0 : -ENOMEM;
}

static void teardown(struct msim *m, void *state)
{
	struct two_locks *s = state;

	(void)m;
	msim_lock_destroy(&s->a);
	msim_lock_destroy(&s->b);
	msim_lock_destroy(&s->c);
	free(s);
}

/* DFS (one preemption) over mode's scenario, recording into ld when set. */
static void explore(const char *mode, struct msim_lockdep *ld, struct msim_explore_result *res)
{
	struct msim_explore_target t = { .name = mode, .setup = setup, .teardown = teardown,
					 .arg = (void *)mode };
	struct msim_explore_opts o = { .strategy = MSIM_STRAT_DFS, .runs = 1000,
				       .preemptions = 1 };
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.lockdep = ld;
	assert_int_equal(msim_explore(&t, &cfg, &o, res), 0);
	assert_true(res->exhausted);
}

/* The one report of ld is a cycle of exactly A and B. */
static const struct ld_report *only_cycle_of_a_and_b(const struct msim_lockdep *ld)
{
	const char *cls[4];

	assert_int_equal(msim_lockdep_nr_reports(ld), 1);
	assert_int_equal(msim_lockdep_report_kind(ld, 0), MSIM_LOCKDEP_CIRCULAR);
	assert_int_equal(msim_lockdep_report_classes(ld, 0, cls, 4), 2);
	assert_true((!strcmp(cls[0], "A") && !strcmp(cls[1], "B")) ||
		    (!strcmp(cls[0], "B") && !strcmp(cls[1], "A")));
	assert_int_equal(ld->reports[0].nr_chain, 2);
	return &ld->reports[0];
}

static char *text_of(const struct msim_lockdep *ld, bool json)
{
	static char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	if (json)
		msim_lockdep_print_json(f, ld);
	else
		msim_lockdep_print_text(f, ld);
	fclose(f);
	return buf;
}

/* Two tasks of one CPU take A -> B and B -> A: no run deadlocks, lockdep reports. */
static void test_abba_ordered_on_one_cpu(void **st)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct msim_explore_result res;
	const struct ld_report *r;
	char *text;

	(void)st;
	explore("same-cpu", ld, &res);
	assert_int_equal(res.violations, 0);
	r = only_cycle_of_a_and_b(ld);
	/* Both chains: each dependency with the task and yield point that showed it. */
	assert_string_equal(ld->deps[r->chain[0]].acq.task, "ba");
	assert_string_equal(ld->deps[r->chain[1]].acq.task, "ab");
	assert_string_equal(ld->deps[r->chain[0]].acq.held[0].after, "test.ba");
	assert_string_equal(ld->deps[r->chain[1]].acq.held[0].after, "test.ab");
	text = text_of(ld, false);
	assert_non_null(strstr(text, "WARNING: possible circular locking dependency detected"));
	assert_non_null(strstr(text, "-> #0 B -> A, first recorded by:"));
	assert_non_null(strstr(text, "-> #1 A -> B, first recorded by:"));
	assert_non_null(strstr(text, "taken after test.ab"));
	assert_non_null(strstr(text, "*** DEADLOCK ***"));
	text = text_of(ld, true);
	assert_non_null(strstr(text, "\"kind\": \"circular\""));
	assert_non_null(strstr(text, "\"reports_total\": 1"));
	msim_lockdep_destroy(ld);
}

/*
 * No run holds both orders: task either takes A -> B when it runs before the
 * setter, B -> A after it. Only a graph kept across runs sees the cycle.
 */
static void test_abba_across_runs(void **st)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct msim_explore_result res;
	const struct ld_report *r;

	(void)st;
	explore("across-runs", ld, &res);
	assert_int_equal(res.violations, 0);
	r = only_cycle_of_a_and_b(ld);
	assert_string_equal(ld->deps[r->chain[0]].acq.task, "either");
	assert_int_not_equal(ld->deps[r->chain[0]].acq.run, ld->deps[r->chain[1]].acq.run);
	assert_int_equal(msim_lockdep_nr_hosts(ld), res.runs);
	msim_lockdep_destroy(ld);
}

/* A cycle of three classes, each dependency from another task: one report, in order. */
static void test_three_lock_cycle(void **st)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct msim_explore_result res;
	const char *cls[4];
	char *text;

	(void)st;
	explore("three", ld, &res);
	assert_int_equal(res.violations, 0);
	assert_int_equal(msim_lockdep_nr_reports(ld), 1);
	assert_int_equal(msim_lockdep_report_kind(ld, 0), MSIM_LOCKDEP_CIRCULAR);
	/* Closed by ca's C -> A: the cycle from C. */
	assert_int_equal(msim_lockdep_report_classes(ld, 0, cls, 4), 3);
	assert_string_equal(cls[0], "C");
	assert_string_equal(cls[1], "A");
	assert_string_equal(cls[2], "B");
	text = text_of(ld, false);
	assert_non_null(strstr(text, "CPU0: lock(C); ... lock(A);  waits for CPU1"));
	assert_non_null(strstr(text, "CPU2: lock(B); ... lock(C);  waits for CPU0"));
	msim_lockdep_destroy(ld);
}

/* One order everywhere, and an order with only a trylock against it: silent. */
static void test_silent_when_safe(void **st)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct msim_explore_result res;

	(void)st;
	explore("one-order", ld, &res);
	assert_int_equal(msim_lockdep_nr_reports(ld), 0);
	assert_int_equal(msim_lockdep_nr_dependencies(ld), 1);
	assert_int_equal(msim_lockdep_nr_classes(ld), 2);
	msim_lockdep_destroy(ld);

	ld = msim_lockdep_create();
	explore("trylock", ld, &res);
	assert_int_equal(msim_lockdep_nr_reports(ld), 0);
	assert_true(msim_lockdep_depends(ld, "B", "A"));
	assert_false(msim_lockdep_depends(ld, "A", "B"));   /* a trylock adds none */
	msim_lockdep_destroy(ld);
}

/* The deadlocking ABBA is reported too, and recording changes no schedule. */
static void test_deadlock_reported_schedules_unchanged(void **st)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct msim_explore_result with, without;

	(void)st;
	explore("deadlock", ld, &with);
	explore("deadlock", NULL, &without);
	assert_true(with.violations > 0);
	assert_int_equal(with.violations, without.violations);
	assert_int_equal(with.runs, without.runs);
	assert_int_equal(with.first_violation_run, without.first_violation_run);
	assert_string_equal(with.schedule, without.schedule);
	assert_true(with.trace_hash == without.trace_hash);
	only_cycle_of_a_and_b(ld);
	msim_lockdep_destroy(ld);
}

/* ---- one host, driven by hand ---- */

struct nest {
	struct msim_lock parent, child;
	bool annotate;
};

static void take_child_then_parent(void *arg)
{
	struct nest *n = arg;

	msim_lock(&n->child);
	if (n->annotate)
		msim_lock_nested(&n->parent, MSIM_SINGLE_DEPTH_NESTING);
	else
		msim_lock(&n->parent);
	msim_unlock(&n->parent);
	msim_unlock(&n->child);
}

static struct msim_lockdep *run_nest(bool annotate)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct nest n = { .annotate = annotate };
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.lockdep = ld;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	msim_spin_lock_init(&n.parent, "lru_lock");
	msim_spin_lock_init(&n.child, "lru_lock");
	assert_non_null(msim_task_create(m, "reparent", 0, take_child_then_parent, &n));
	assert_int_equal(msim_run(m), 0);
	msim_destroy(m);
	msim_lock_destroy(&n.parent);
	msim_lock_destroy(&n.child);
	return ld;
}

/* Two locks of one class nest: reported unless annotated (spin_lock_nested()). */
static void test_recursive_and_nested(void **st)
{
	struct msim_lockdep *ld = run_nest(false);

	(void)st;
	assert_int_equal(msim_lockdep_nr_reports(ld), 1);
	assert_int_equal(msim_lockdep_report_kind(ld, 0), MSIM_LOCKDEP_RECURSIVE);
	assert_non_null(strstr(text_of(ld, false), "possible recursive locking detected"));
	msim_lockdep_destroy(ld);
	ld = run_nest(true);
	assert_int_equal(msim_lockdep_nr_reports(ld), 0);
	assert_int_equal(msim_lockdep_nr_classes(ld), 2);   /* lru_lock and lru_lock/1 */
	assert_true(msim_lockdep_depends(ld, "lru_lock", "lru_lock"));
	msim_lockdep_destroy(ld);
}

/* ---- irq checks under a fake context reader ---- */

/* A task's context is its name's prefix: "hardirq-", "softirq-", "nmi-", "irqoff-". */
static void fake_reader(const struct msim_task *t, struct msim__lockdep_irq *out)
{
	const char *n = t ? msim_task_name(t) : "driver";

	memset(out, 0, sizeof(*out));
	out->in_hardirq = !strncmp(n, "hardirq-", 8);
	out->in_softirq = !strncmp(n, "softirq-", 8);
	out->in_nmi = !strncmp(n, "nmi-", 4);
	out->hardirqs_off = out->in_hardirq || out->in_nmi || !strncmp(n, "irqoff-", 7);
	out->softirqs_off = out->hardirqs_off || out->in_softirq;
}

struct irq_case {
	struct msim_lock s, u;
	const char *names[3];     /* tasks, each takes what its name's suffix says */
};

/* "...-s": s; "...-u": u; "...-su": s then u. */
static void take_by_name(void *arg)
{
	struct irq_case *c = arg;
	const char *n = msim_task_name(msim_current_task());
	size_t len = strlen(n);

	if (len > 3 && !strcmp(n + len - 3, "-su")) {
		msim_lock(&c->s);
		msim_lock(&c->u);
		msim_unlock(&c->u);
		msim_unlock(&c->s);
	} else {
		struct msim_lock *l = n[len - 1] == 's' ? &c->s : &c->u;
		msim_lock(l);
		msim_unlock(l);
	}
}

static struct msim_lockdep *run_irq_case(const char *a, const char *b, const char *c)
{
	struct msim_lockdep *ld = msim_lockdep_create();
	struct irq_case ic = { .names = { a, b, c } };
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.lockdep = ld;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	msim_spin_lock_init(&ic.s, "S");
	msim_spin_lock_init(&ic.u, "U");
	for (unsigned int i = 0; i < 3 && ic.names[i]; i++)
		assert_non_null(msim_task_create(m, ic.names[i], i, take_by_name, &ic));
	assert_null(msim__lockdep_set_irq_reader(fake_reader));
	assert_int_equal(msim_run(m), 0);
	msim__lockdep_set_irq_reader(NULL);
	msim_destroy(m);
	msim_lock_destroy(&ic.s);
	msim_lock_destroy(&ic.u);
	return ld;
}

static void expect_one(struct msim_lockdep *ld, enum msim_lockdep_kind kind, const char *title)
{
	assert_int_equal(msim_lockdep_nr_reports(ld), 1);
	assert_int_equal(msim_lockdep_report_kind(ld, 0), kind);
	assert_string_equal(msim_lockdep_report_title(ld, 0), title);
	assert_non_null(strstr(text_of(ld, false), title));
	msim_lockdep_destroy(ld);
}

static void test_irq_checks_with_fake_contexts(void **st)
{
	struct msim_lockdep *ld;

	(void)st;
	/* S in a hardirq and in process context with irqs on: the irq can hit the holder. */
	expect_one(run_irq_case("hardirq-s", "task-s", NULL), MSIM_LOCKDEP_IRQ_INCONSISTENT,
		   "inconsistent lock state");
	/* Only with irqs off outside the irq: consistent. */
	ld = run_irq_case("hardirq-s", "irqoff-s", NULL);
	assert_int_equal(msim_lockdep_nr_reports(ld), 0);
	msim_lockdep_destroy(ld);
	/* S irq-safe, S -> U under irqs off, U taken with irqs on elsewhere. */
	expect_one(run_irq_case("hardirq-s", "irqoff-su", "task-u"), MSIM_LOCKDEP_IRQ_INVERSION,
		   "HARDIRQ-safe -> HARDIRQ-unsafe lock order detected");
	expect_one(run_irq_case("softirq-s", "task-s", NULL), MSIM_LOCKDEP_IRQ_INCONSISTENT,
		   "inconsistent lock state");
	expect_one(run_irq_case("nmi-s", "irqoff-s", NULL), MSIM_LOCKDEP_NMI_UNSAFE,
		   "lock taken in NMI context and outside it");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abba_ordered_on_one_cpu),
		cmocka_unit_test(test_abba_across_runs),
		cmocka_unit_test(test_three_lock_cycle),
		cmocka_unit_test(test_silent_when_safe),
		cmocka_unit_test(test_deadlock_reported_schedules_unchanged),
		cmocka_unit_test(test_recursive_and_nested),
		cmocka_unit_test(test_irq_checks_with_fake_contexts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
