/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of scripted control (script.h) and yield contexts (yield.h): where
 * a parked task is (name, hits, context), stopping by context or by a rule of
 * the driver's, contexts that change nothing in the schedule, and tasks created
 * after stepping has begun (allowed from the driver, refused from a task).
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

static struct msim *host_mode(unsigned int cpus, enum msim_run_mode mode)
{
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.mode = mode;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	return m;
}

static struct msim *host(unsigned int cpus)
{
	return host_mode(cpus, MSIM_DETERMINISTIC);
}

/* ---- a toy layer: three objects visited per CPU, each in its own context ---- */

static int objects[3];
static long visited;              /* objects folded so far: the rule's state */
static bool with_ctx = true;      /* false: the same code without contexts */

/* For each CPU, a context for the CPU, and inside it one per object (nested). */
static void walker(void *arg)
{
	unsigned int cpus = (unsigned int)(uintptr_t)arg;

	for (unsigned int cpu = 0; cpu < cpus; cpu++) {
		struct msim_yield_ctx cc = { .object = NULL, .cpu = (int)cpu, .nid = -1 };
		const struct msim_yield_ctx *outer = with_ctx ? msim_yield_ctx_enter(&cc) : NULL;

		msim_yield("toy.cpu_start");
		for (int i = 0; i < 3; i++) {
			struct msim_yield_ctx oc = { .object = &objects[i], .cpu = (int)cpu,
						     .nid = i };
			const struct msim_yield_ctx *prev = with_ctx ? msim_yield_ctx_enter(&oc) : NULL;

			msim_yield("toy.fold");
			visited++;
			msim_yield("toy.reset");
			if (with_ctx)
				msim_yield_ctx_leave(prev);
		}
		msim_yield("toy.cpu_done");  /* the CPU's context again */
		if (with_ctx)
			msim_yield_ctx_leave(outer);
	}
	msim_yield("toy.done");              /* no context */
}

static void where_reports_name_hits_and_context(void **st)
{
	struct msim *m = host(2);
	struct msim_task *t = msim_task_create(m, "walker", 1, walker, (void *)(uintptr_t)2);
	struct msim_yield_ctx want = { .object = &objects[1], .cpu = 1, .nid = -1 };
	struct msim_task_where w;

	visited = 0;
	assert_false(msim_task_where(t, &w));           /* not started */
	assert_null(w.point);
	assert_int_equal(w.ctx.cpu, -1);
	assert_int_equal(msim_run_until_ctx(m, t, "toy.fold", &want, 1), 0);
	assert_true(msim_task_where(t, &w));
	assert_string_equal(w.point, "toy.fold");
	assert_int_equal(w.hits, 5);                    /* 3 on CPU 0, objects 0 and 1 on CPU 1 */
	assert_false(w.blocked);
	assert_ptr_equal(w.ctx.object, &objects[1]);
	assert_int_equal(w.ctx.cpu, 1);
	assert_int_equal(w.ctx.nid, 1);
	assert_int_equal(visited, 4);                   /* parked before the fold of the 5th */

	/* The inner context left, the CPU's is back. */
	assert_int_equal(msim_run_until(m, t, "toy.cpu_done", 1), 0);
	assert_true(msim_task_where(t, &w));
	assert_null(w.ctx.object);
	assert_int_equal(w.ctx.cpu, 1);
	assert_int_equal(w.hits, 2);
	assert_int_equal(msim_run_until(m, t, "toy.done", 1), 0);
	assert_true(msim_task_where(t, &w));
	assert_int_equal(w.ctx.cpu, -1);                /* outermost: none */
	assert_int_equal(msim_run_task(m, t), 0);
	assert_false(msim_task_where(t, &w));
	msim_destroy(m);
}

/* Each of two parked tasks reports its own context: the scheduler saves it. */
static void each_task_keeps_its_context(void **st)
{
	struct msim *m = host(2);
	struct msim_task *a = msim_task_create(m, "a", 0, walker, (void *)(uintptr_t)2);
	struct msim_task *b = msim_task_create(m, "b", 1, walker, (void *)(uintptr_t)2);
	struct msim_yield_ctx want_a = { .object = &objects[2], .cpu = 0, .nid = -1 };
	struct msim_yield_ctx want_b = { .object = &objects[0], .cpu = 1, .nid = -1 };
	struct msim_task_where wa, wb;

	assert_int_equal(msim_run_until_ctx(m, a, "toy.reset", &want_a, 1), 0);
	assert_int_equal(msim_run_until_ctx(m, b, "toy.reset", &want_b, 1), 0);
	assert_true(msim_task_where(a, &wa));
	assert_true(msim_task_where(b, &wb));
	assert_ptr_equal(wa.ctx.object, &objects[2]);
	assert_int_equal(wa.ctx.cpu, 0);
	assert_ptr_equal(wb.ctx.object, &objects[0]);
	assert_int_equal(wb.ctx.cpu, 1);
	/* The driver sets no context (enter does nothing outside a task) ... */
	struct msim_yield_ctx stray = { .object = &objects[0], .cpu = 7, .nid = 7 };
	assert_null(msim_yield_ctx_enter(&stray));
	/* ... so the next park of a reports a's own context, not stray. */
	assert_int_equal(msim_step(m, a, 1), 1);
	assert_true(msim_task_where(a, &wa));
	assert_string_equal(wa.point, "toy.cpu_done");
	assert_int_equal(wa.ctx.cpu, 0);
	assert_null(wa.ctx.object);
	assert_int_equal(msim_run(m), 0);
	msim_destroy(m);
}

/* A field of want that is set must match; a point without context never does. */
static void ctx_match_rules(void **st)
{
	struct msim *m = host(2);
	struct msim_task *t = msim_task_create(m, "walker", 0, walker, (void *)(uintptr_t)2);
	struct msim_yield_ctx by_node = { .object = NULL, .cpu = -1, .nid = 2 };
	struct msim_yield_ctx by_cpu = { .object = NULL, .cpu = 1, .nid = -1 };
	struct msim_yield_ctx no_such = { .object = &objects[0], .cpu = 5, .nid = -1 };
	struct msim_task_where w;

	visited = 0;
	assert_int_equal(msim_run_until_ctx(m, t, "toy.fold", &by_node, 2), 0);
	assert_true(msim_task_where(t, &w));
	assert_int_equal(w.ctx.cpu, 1);                 /* the 2nd object 2: on CPU 1 */
	assert_ptr_equal(w.ctx.object, &objects[2]);
	assert_int_equal(visited, 5);
	assert_int_equal(msim_run_until_ctx(m, t, "toy.done", &by_cpu, 1), -ESRCH);
	msim_destroy(m);

	m = host(2);
	t = msim_task_create(m, "walker", 0, walker, (void *)(uintptr_t)2);
	assert_int_equal(msim_run_until_ctx(m, t, "toy.fold", &no_such, 1), -ESRCH);
	assert_int_equal(msim_run_until_ctx(m, t, NULL, &no_such, 1), -EINVAL);
	assert_int_equal(msim_run_until_ctx(m, t, "toy.fold", NULL, 0), -EINVAL);
	msim_destroy(m);
}

/* ---- stopping by a rule ---- */

struct seen {
	int calls;
	int blocked_calls;
};

/* Stop once three objects were folded, at the next reset. */
static bool third_fold_done(const struct msim_task *t, const struct msim_task_where *w,
			    void *arg)
{
	struct seen *s = arg;

	s->calls++;
	s->blocked_calls += w->blocked;
	return visited == 3 && !strcmp(w->point, "toy.reset");
}

static bool never(const struct msim_task *t, const struct msim_task_where *w, void *arg)
{
	(*(int *)arg)++;
	return false;
}

static void run_until_fn_stops_where_the_rule_says(void **st)
{
	struct msim *m = host(2);
	struct msim_task *t = msim_task_create(m, "walker", 0, walker, (void *)(uintptr_t)2);
	struct seen s = { 0 };
	struct msim_task_where w;
	int calls = 0;

	visited = 0;
	assert_int_equal(msim_run_until_fn(m, t, third_fold_done, &s), 0);
	assert_true(msim_task_where(t, &w));
	assert_string_equal(w.point, "toy.reset");
	assert_ptr_equal(w.ctx.object, &objects[2]);
	assert_int_equal(w.ctx.cpu, 0);
	/* cpu_start, then fold and reset per object: the rule saw every park. */
	assert_int_equal(s.calls, 7);
	assert_int_equal(s.blocked_calls, 0);
	assert_int_equal(msim_run_until_fn(m, t, never, &calls), -ESRCH);
	assert_true(msim_task_done(t));
	assert_int_equal(calls, 1 + 1 + 6 + 1 + 1);     /* cpu_done, CPU 1's 8 points, done */
	assert_int_equal(msim_run_until_fn(m, t, NULL, NULL), -EINVAL);
	msim_destroy(m);
}

static struct msim_lock L;

static void hold_lock(void *arg)
{
	msim_lock(&L);
	msim_yield("held");
	msim_unlock(&L);
}

/* A blocked task is not offered to the rule; it returns -EDEADLK. */
static void run_until_fn_on_a_blocked_task(void **st)
{
	struct msim *m = host(2);
	struct msim_task *a = msim_task_create(m, "a", 0, hold_lock, NULL);
	struct msim_task *b = msim_task_create(m, "b", 1, hold_lock, NULL);
	struct msim_task_where w;
	int calls = 0;

	msim_lock_init(&L, "L");
	assert_int_equal(msim_run_until(m, a, "held", 1), 0);
	assert_int_equal(msim_run_until_fn(m, b, never, &calls), -EDEADLK);
	assert_int_equal(calls, 1);                     /* at "lock", before the block */
	assert_true(msim_task_where(b, &w));
	assert_true(w.blocked);
	assert_string_equal(w.point, "lock");
	assert_int_equal(msim_run(m), 0);
	msim_lock_destroy(&L);
	msim_destroy(m);
}

/* ---- hits count by name ---- */

static char p_copy[] = "p";       /* the same name at another address */

static void two_copies_of_a_name(void *arg)
{
	msim_yield("p");
	msim_yield(p_copy);
	msim_yield("p");
	msim_yield("q");
}

static void hits_count_by_content(void **st)
{
	struct msim *m = host(1);
	struct msim_task *t = msim_task_create(m, "t", 0, two_copies_of_a_name, NULL);
	struct msim_task_where w;

	assert_int_equal(msim_run_until(m, t, "p", 3), 0);
	assert_true(msim_task_where(t, &w));
	assert_int_equal(w.hits, 3);
	assert_int_equal(msim_run_until(m, t, "q", 1), 0);
	assert_true(msim_task_where(t, &w));
	assert_int_equal(w.hits, 1);
	assert_int_equal(msim_run(m), 0);
	msim_destroy(m);
}

/* Many distinct names: the count table grows and keeps every count. */
static const char *const many[] = {
	"n00", "n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09", "n10", "n11",
	"n12", "n13", "n14", "n15", "n16", "n17", "n18", "n19", "n20", "n21", "n22", "n23",
	"n24", "n25", "n26", "n27", "n28", "n29", "n30", "n31", "n32", "n33", "n34", "n35",
	"n36", "n37", "n38", "n39", "n40", "n41", "n42", "n43", "n44", "n45", "n46", "n47",
};
#define NR_MANY (sizeof(many) / sizeof(many[0]))

static void many_names(void *arg)
{
	for (unsigned int round = 0; round < 3; round++)
		for (unsigned int i = 0; i < NR_MANY; i++)
			if (i % 3 >= round)
				msim_yield(many[i]);
}

struct shadow {
	uint64_t seen[NR_MANY];   /* parks at each name, counted by the rule */
	unsigned int parks, wrong;
};

/* At every park, the reported hits must equal the rule's own count. */
static bool check_hits(const struct msim_task *t, const struct msim_task_where *w, void *arg)
{
	struct shadow *sh = arg;

	for (unsigned int i = 0; i < NR_MANY; i++) {
		if (!strcmp(w->point, many[i])) {
			sh->wrong += w->hits != ++sh->seen[i];
			break;
		}
	}
	sh->parks++;
	return false;
}

static void hits_survive_table_growth(void **st)
{
	struct msim *m = host(1);
	struct msim_task *t = msim_task_create(m, "t", 0, many_names, NULL);
	struct shadow sh = { { 0 }, 0, 0 };

	assert_int_equal(msim_run_until_fn(m, t, check_hits, &sh), -ESRCH);
	assert_int_equal(sh.parks, NR_MANY * 2);        /* 48 + 32 + 16 */
	assert_int_equal(sh.wrong, 0);
	for (unsigned int i = 0; i < NR_MANY; i++)
		assert_int_equal(sh.seen[i], i % 3 + 1);
	msim_destroy(m);
}

/* ---- contexts change nothing in the schedule ---- */

static void run_walker(bool ctx, int how, char *sched, size_t len, uint64_t *hash)
{
	struct msim *m = host(3);
	struct msim_task *a = msim_task_create(m, "a", 0, walker, (void *)(uintptr_t)3);
	struct msim_task *b = msim_task_create(m, "b", 1, walker, (void *)(uintptr_t)3);
	struct msim_yield_ctx want = { .object = &objects[1], .cpu = 2, .nid = -1 };
	struct seen s = { 0 };

	with_ctx = ctx;
	visited = 0;
	if (how == 0)           /* by name: the 8th fold is object 1 of CPU 2 */
		assert_int_equal(msim_run_until(m, a, "toy.fold", 8), 0);
	else if (how == 1)      /* by context */
		assert_int_equal(msim_run_until_ctx(m, a, "toy.fold", &want, 1), 0);
	else                    /* by a rule: 7 folds done, at the next fold */
		assert_int_equal(msim_run_until_fn(m, a, third_fold_done, &s), 0);
	assert_int_equal(msim_run_until(m, b, "toy.reset", 4), 0);
	assert_int_equal(msim_run(m), 0);
	snprintf(sched, len, "%s", msim_schedule_string(m));
	*hash = msim_sched_trace_hash(m);
	with_ctx = true;
	msim_destroy(m);
}

static void contexts_leave_schedule_and_trace_alone(void **st)
{
	char with[256], without[256], other[256];
	uint64_t h_with, h_without, h_other;

	run_walker(true, 0, with, sizeof(with), &h_with);
	run_walker(false, 0, without, sizeof(without), &h_without);
	assert_string_equal(with, without);
	assert_true(h_with == h_without);
	run_walker(true, 1, other, sizeof(other), &h_other);   /* same stop, by context */
	assert_string_equal(with, other);
	assert_true(h_with == h_other);
	/* A different stop is a different schedule: the comparison can fail. */
	run_walker(true, 2, other, sizeof(other), &h_other);
	assert_string_not_equal(with, other);
	assert_false(h_with == h_other);
}

/* ---- tasks created after stepping has begun ---- */

static int order[8], nr_order;

static void mark(void *arg)
{
	msim_yield("m.a");
	order[nr_order++] = (int)(intptr_t)arg;
	msim_yield("m.b");
}

/*
 * One script: a (CPU 0) steps; then the driver creates b on CPU 0 and c on
 * CPU 1. b waits for a (creation order on its CPU), c may run at once. With
 * late false every task is created up front, with the same numbers.
 */
static void late_script(bool late, const char *replay, char *sched, size_t len,
			uint64_t *hash)
{
	struct msim *m = host(2);
	struct msim_task *a, *b = NULL, *c = NULL;

	nr_order = 0;
	a = msim_task_create(m, "a", 0, mark, (void *)1);
	if (!late) {
		b = msim_task_create(m, "b", 0, mark, (void *)2);
		c = msim_task_create(m, "c", 1, mark, (void *)3);
	}
	if (replay) {
		struct msim_sched_opts o = { .strategy = MSIM_STRAT_REPLAY, .schedule = replay };

		assert_int_equal(msim_sched_set(m, &o), 0);
		assert_int_equal(msim_run(m), 0);
		assert_false(msim_sched_replay_diverged(m));
	} else {
		assert_int_equal(msim_run_until(m, a, "m.b", 1), 0);
		if (late) {
			b = msim_task_create(m, "b", 0, mark, (void *)2);
			c = msim_task_create(m, "c", 1, mark, (void *)3);
		}
		assert_non_null(b);
		assert_non_null(c);
		assert_int_equal(msim_run_until(m, b, "m.a", 1), -EDEADLK); /* a first */
		assert_int_equal(msim_run_until(m, c, "m.b", 1), 0);
		assert_int_equal(msim_run_task(m, a), 0);
		assert_int_equal(msim_run(m), 0);       /* b, then c's end */
	}
	assert_int_equal(nr_order, 3);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 3);
	assert_int_equal(order[2], 2);
	snprintf(sched, len, "%s", msim_schedule_string(m));
	*hash = msim_sched_trace_hash(m);
	msim_destroy(m);
}

static void driver_creates_tasks_between_steps(void **st)
{
	char late[128], early[128], replayed[128];
	uint64_t h_late, h_early, h_replayed;

	late_script(true, NULL, late, sizeof(late), &h_late);
	/* a: 2 steps; c (task 2): 2; a: 1 (exit); then b (task 1) 3, c 1. */
	assert_string_equal(late, "0*2.2*2.0.1*3.2");
	late_script(false, NULL, early, sizeof(early), &h_early);
	assert_string_equal(late, early);
	assert_true(h_late == h_early);
	/* The string replays on a host that creates every task up front. */
	late_script(false, late, replayed, sizeof(replayed), &h_replayed);
	assert_string_equal(late, replayed);
	assert_true(h_late == h_replayed);
}

/* A task created after msim_run() finished runs at the next msim_run(). */
static void task_created_after_a_run(void **st)
{
	struct msim *m = host(2);

	nr_order = 0;
	msim_task_create(m, "a", 0, mark, (void *)1);
	assert_int_equal(msim_run(m), 0);
	struct msim_task *b = msim_task_create(m, "b", 0, mark, (void *)2);
	assert_non_null(b);
	assert_false(msim_task_done(b));
	assert_int_equal(msim_run(m), 0);
	assert_true(msim_task_done(b));
	assert_int_equal(nr_order, 2);
	assert_int_equal(order[1], 2);
	assert_string_equal(msim_schedule_string(m), "0*3.1*3");
	msim_destroy(m);
}

static struct msim_task *made_by_task;
static int errno_in_task;

static void spawner(void *arg)
{
	errno = 0;
	made_by_task = msim_task_create(msim_current_host(), "child", 0, mark, NULL);
	errno_in_task = errno;
}

/* A task cannot create a task, in either mode (script.h). */
static void task_cannot_create_a_task(void **st)
{
	for (int mode = 0; mode < 2; mode++) {
		struct msim *m = host_mode(2, mode ? MSIM_CONCURRENT : MSIM_DETERMINISTIC);

		made_by_task = (struct msim_task *)1;
		errno_in_task = 0;
		assert_non_null(msim_task_create(m, "spawner", 1, spawner, NULL));
		assert_int_equal(msim_run(m), 0);
		assert_null(made_by_task);
		assert_int_equal(errno_in_task, EINVAL);
		msim_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(where_reports_name_hits_and_context),
		cmocka_unit_test(each_task_keeps_its_context),
		cmocka_unit_test(ctx_match_rules),
		cmocka_unit_test(run_until_fn_stops_where_the_rule_says),
		cmocka_unit_test(run_until_fn_on_a_blocked_task),
		cmocka_unit_test(hits_count_by_content),
		cmocka_unit_test(hits_survive_table_growth),
		cmocka_unit_test(contexts_leave_schedule_and_trace_alone),
		cmocka_unit_test(driver_creates_tasks_between_steps),
		cmocka_unit_test(task_created_after_a_run),
		cmocka_unit_test(task_cannot_create_a_task),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
