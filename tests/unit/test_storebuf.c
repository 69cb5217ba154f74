/* SPDX-License-Identifier: MIT */
/*
 * The weak memory models (sim.h msim_memory_model, src/sim/storebuf.c): store
 * forwarding, FIFO order under tso and its relaxation under pso, the drains of
 * fences, read-modify-writes, lock acquire and release, the schedule spelling of
 * drains ("~C", "~C+K") and their exact replay, and the store-buffering litmus
 * test explored under sc and tso.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit_util.h"

struct lit {
	long x, y, z;
	unsigned long bits;
	void *ptr;
	long r0, r1;
	struct msim_lock lock;
};

static struct msim *wmm_host(enum msim_memory_model mm, unsigned int cpus)
{
	struct msim_config cfg = unit_config(cpus, 1);

	cfg.memory_model = mm;
	return unit_host_cfg(&cfg);
}

static long mem(const long *p)
{
	return msim_quiet_load(p, MSIM_RELAXED);   /* what other CPUs see: memory */
}

/* x = 1, read it back, y = 2, then stop. */
static void store_two_fn(void *arg)
{
	struct lit *l = arg;

	msim_write_once_at(&l->x, 1, "t.store_x");
	l->r0 = msim_read_once_at(&l->x, "t.load_x");
	msim_write_once_at(&l->y, 2, "t.store_y");
	msim_yield("t.stored");
}

static void read_x_fn(void *arg)
{
	struct lit *l = arg;

	l->r1 = msim_read_once(&l->x);
}

static void forwarding_and_fifo(void **st)
{
	struct lit l = { 0 };
	struct msim *m = wmm_host(MSIM_MEMORY_TSO, 2);
	struct msim_task *a = msim_task_create(m, "a", 0, store_two_fn, &l);
	struct msim_task *b = msim_task_create(m, "b", 1, read_x_fn, &l);

	assert_int_equal(msim_run_until(m, a, "t.stored", 1), 0);
	assert_int_equal(l.r0, 1);                      /* its own load forwards */
	assert_int_equal(mem(&l.x), 0);                 /* memory has neither */
	assert_int_equal(mem(&l.y), 0);
	assert_int_equal(msim_store_buffer_len(m, 0), 2);
	assert_int_equal(msim_run_task(m, b), 0);
	assert_int_equal(l.r1, 0);                      /* another CPU reads memory */
	/* FIFO: y may not pass x under tso */
	assert_int_equal(msim_store_buffer_drain(m, 0, 1), -ENOENT);
	assert_int_equal(msim_store_buffer_drain(m, 0, 0), 0);
	assert_int_equal(mem(&l.x), 1);
	assert_int_equal(mem(&l.y), 0);
	assert_int_equal(msim_store_buffer_drain(m, 0, 0), 0);
	assert_int_equal(mem(&l.y), 2);
	assert_int_equal(msim_store_buffer_drain(m, 0, 0), -ENOENT);
	assert_int_equal(msim_run(m), 0);
	/* a's 4 steps, b's 2 (its load, its exit), the two drains, a's exit */
	assert_string_equal(msim_schedule_string(m), "0*4.1*2.~0*2.0");
	msim_destroy(m);
}

static void pso_passes_and_waits_for_release(void **st)
{
	struct lit l = { 0 };
	struct msim *m = wmm_host(MSIM_MEMORY_PSO, 1);
	struct msim_task *a = msim_task_create(m, "a", 0, store_two_fn, &l);

	assert_int_equal(msim_run_until(m, a, "t.stored", 1), 0);
	/* different addresses: y goes first */
	assert_int_equal(msim_store_buffer_drain(m, 0, 1), 0);
	assert_int_equal(mem(&l.y), 2);
	assert_int_equal(mem(&l.x), 0);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(mem(&l.x), 1);                 /* drained before the run ended */
	assert_string_equal(msim_schedule_string(m), "0*4.~0+1.0.~0");
	msim_destroy(m);
}

/* x = 1, rcu_assign_pointer(ptr) (a release), z = 3, then stop. */
static void release_fn(void *arg)
{
	struct lit *l = arg;

	msim_write_once(&l->x, 1);
	msim_rcu_assign_pointer(&l->ptr, &l->z);
	msim_write_once(&l->z, 3);
	msim_yield("t.stored");
}

static void release_orders_older_only(void **st)
{
	struct lit l = { 0 };
	struct msim *m = wmm_host(MSIM_MEMORY_PSO, 1);
	struct msim_task *a = msim_task_create(m, "a", 0, release_fn, &l);

	assert_int_equal(msim_run_until(m, a, "t.stored", 1), 0);
	assert_int_equal(msim_store_buffer_len(m, 0), 3);
	assert_int_equal(msim_store_buffer_drain(m, 0, 1), -ENOENT);  /* the release waits */
	assert_int_equal(msim_store_buffer_drain(m, 0, 2), 0);        /* z passes it */
	assert_int_equal(mem(&l.z), 3);
	assert_null(msim_quiet_load(&l.ptr, MSIM_RELAXED));
	assert_int_equal(msim_store_buffer_drain(m, 0, 0), 0);        /* x, then the release */
	assert_int_equal(msim_store_buffer_drain(m, 0, 0), 0);
	assert_ptr_equal(msim_quiet_load(&l.ptr, MSIM_RELAXED), &l.z);
	assert_int_equal(msim_run(m), 0);
	msim_destroy(m);
}

/* x = 1, then one ordering operation (arg kind), then stop. */
enum { FENCE, ATOMIC_ADD, SET_BIT, ADD_RETURN };
struct order { struct lit l; int kind; };

static void order_fn(void *arg)
{
	struct order *o = arg;

	msim_write_once(&o->l.x, 1);
	switch (o->kind) {
	case FENCE: msim_smp_mb(); break;
	case ATOMIC_ADD: msim_atomic_long_add((msim_atomic_long_t *)&o->l.z, 1); break;
	case SET_BIT: msim_set_bit(3, &o->l.bits); break;
	default: msim_atomic_long_add_return((msim_atomic_long_t *)&o->l.z, 1); break;
	}
	msim_yield("t.after");
}

/* Is x still buffered after the operation? */
static bool still_buffered(enum msim_memory_model mm, int kind)
{
	struct order o = { .kind = kind };
	struct msim *m = wmm_host(mm, 1);
	struct msim_task *a = msim_task_create(m, "a", 0, order_fn, &o);
	bool buffered;

	assert_int_equal(msim_run_until(m, a, "t.after", 1), 0);
	buffered = mem(&o.l.x) == 0;
	assert_int_equal(msim_store_buffer_len(m, 0), buffered ? 1 : 0);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(mem(&o.l.x), 1);
	msim_destroy(m);
	return buffered;
}

static void what_drains(void **st)
{
	/* tso: every x86 read-modify-write is locked, so all of them drain */
	assert_false(still_buffered(MSIM_MEMORY_TSO, FENCE));
	assert_false(still_buffered(MSIM_MEMORY_TSO, ATOMIC_ADD));
	assert_false(still_buffered(MSIM_MEMORY_TSO, SET_BIT));
	assert_false(still_buffered(MSIM_MEMORY_TSO, ADD_RETURN));
	/* pso: only fences and value-returning read-modify-writes order */
	assert_false(still_buffered(MSIM_MEMORY_PSO, FENCE));
	assert_true(still_buffered(MSIM_MEMORY_PSO, ATOMIC_ADD));
	assert_true(still_buffered(MSIM_MEMORY_PSO, SET_BIT));
	assert_false(still_buffered(MSIM_MEMORY_PSO, ADD_RETURN));
}

/* lock; x = 1; unlock; then stop. */
static void locked_store_fn(void *arg)
{
	struct lit *l = arg;

	msim_lock(&l->lock);
	msim_write_once(&l->x, 1);
	msim_unlock(&l->lock);
	msim_yield("t.unlocked");
}

static void try_fn(void *arg)
{
	struct lit *l = arg;

	l->r1 = msim_trylock(&l->lock);
	if (l->r1) {
		l->r0 = msim_read_once(&l->x);    /* the section's store is visible */
		msim_unlock(&l->lock);
	}
}

static void unlock_is_a_release(void **st)
{
	for (int mm = MSIM_MEMORY_TSO; mm <= MSIM_MEMORY_PSO; mm++) {
		struct lit l = { 0 };
		struct msim *m = wmm_host((enum msim_memory_model)mm, 2);
		struct msim_task *a = msim_task_create(m, "a", 0, locked_store_fn, &l);
		struct msim_task *b;

		msim_spin_lock_init(&l.lock, "l");
		assert_int_equal(msim_run_until(m, a, "t.unlocked", 1), 0);
		if (mm == MSIM_MEMORY_TSO) {
			/* tso: the unlock drained the section's store first */
			assert_int_equal(msim_store_buffer_len(m, 0), 0);
		} else {
			/* pso: x and the release wait; the lock is still held in memory */
			assert_int_equal(msim_store_buffer_len(m, 0), 2);
			b = msim_task_create(m, "b", 1, try_fn, &l);
			assert_int_equal(msim_run_task(m, b), 0);
			assert_int_equal(l.r1, 0);
			assert_int_equal(msim_store_buffer_drain(m, 0, 1), -ENOENT);
			assert_int_equal(msim_store_buffer_drain(m, 0, 0), 0);
			assert_int_equal(msim_store_buffer_drain(m, 0, 0), 0);
		}
		b = msim_task_create(m, "b2", 1, try_fn, &l);
		assert_int_equal(msim_run_task(m, b), 0);
		assert_int_equal(l.r1, 1);
		assert_int_equal(l.r0, 1);
		assert_int_equal(msim_run(m), 0);
		msim_lock_destroy(&l.lock);
		msim_destroy(m);
	}
}

/* lock; x = 1; unlock; unlock again (a bug in the model under test). */
static void double_unlock_fn(void *arg)
{
	struct lit *l = arg;

	msim_lock(&l->lock);
	msim_write_once(&l->x, 1);
	msim_unlock(&l->lock);
	msim_unlock(&l->lock);
}

/*
 * Under pso the first release waits in the buffer and the lock's owner is still
 * set: the second unlock must still be caught as releasing a lock not held (it
 * passed the owner check before and queued a second release).
 */
static void double_unlock_caught_under_pso(void **st)
{
	char path[] = "/tmp/msim-double-unlock.XXXXXX", msg[256] = "";
	int fd = mkstemp(path), status;
	pid_t pid;
	ssize_t n;

	assert_true(fd >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct lit l = { 0 };
		struct msim *m = wmm_host(MSIM_MEMORY_PSO, 2);

		dup2(fd, 2);
		msim_spin_lock_init(&l.lock, "l");
		msim_task_create(m, "a", 0, double_unlock_fn, &l);
		msim_run(m);
		_exit(0); /* not caught */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	n = pread(fd, msg, sizeof(msg) - 1, 0);
	close(fd);
	unlink(path);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	assert_true(n > 0);
	/* caught at the second unlock, not later as a lock count gone wrong at exit */
	assert_non_null(strstr(msg, "a releases lock l it does not hold"));
}

/* A hardirq on the storing CPU reads x: it shares the CPU's buffer, so it forwards. */
static struct lit *irq_lit;

static void irq_read_x_fn(void *arg)
{
	irq_lit->r1 = msim_read_once(&irq_lit->x);
	msim_yield("irq.read");
}

static void interrupts_share_the_buffer(void **st)
{
	struct lit l = { .r1 = -1 };
	struct msim *m = wmm_host(MSIM_MEMORY_TSO, 2);
	struct msim_task *a = msim_task_create(m, "a", 1, store_two_fn, &l);
	struct msim_task *h = msim_irq_source_create(m, "hard", 1, MSIM_CTX_HARDIRQ, 1,
						     irq_read_x_fn, NULL);
	struct msim_task *b = msim_task_create(m, "b", 0, read_x_fn, &l);

	irq_lit = &l;
	assert_non_null(h);
	assert_int_equal(msim_run_until(m, a, "t.stored", 1), 0);
	assert_int_equal(msim_irq_raise(m, h), 0);
	assert_int_equal(msim_run_task(m, h), 0);
	assert_int_equal(l.r1, 1);                       /* the handler reads CPU 1's buffer */
	assert_int_equal(msim_run_task(m, b), 0);
	assert_int_equal(l.r1, 0);                       /* CPU 0 reads memory */
	assert_int_equal(msim_store_buffer_len(m, 1), 2);
	assert_int_equal(msim_run(m), 0);
	assert_int_equal(mem(&l.x), 1);
	msim_destroy(m);
}

/* pso: the driver takes a lock whose release still waits: the buffers drain first. */
static void driver_lock_settles_pending_release(void **st)
{
	struct lit l = { 0 };
	struct msim *m = wmm_host(MSIM_MEMORY_PSO, 2);
	struct msim_task *a = msim_task_create(m, "a", 0, locked_store_fn, &l);

	msim_spin_lock_init(&l.lock, "l");
	assert_int_equal(msim_run_until(m, a, "t.unlocked", 1), 0);
	assert_int_equal(msim_store_buffer_len(m, 0), 2);
	msim_lock(&l.lock);
	assert_int_equal(msim_store_buffer_len(m, 0), 0);
	assert_int_equal(mem(&l.x), 1);
	msim_unlock(&l.lock);
	assert_string_equal(msim_schedule_string(m), "0*4.~0*2");
	assert_int_equal(msim_run(m), 0);
	msim_lock_destroy(&l.lock);
	msim_destroy(m);
}

/* ---- the store-buffering litmus test: x = 1; r0 = y  ||  y = 1; r1 = x ---- */

static void sb0_fn(void *arg)
{
	struct lit *l = arg;

	msim_write_once(&l->x, 1);
	l->r0 = msim_read_once(&l->y);
}

static void sb1_fn(void *arg)
{
	struct lit *l = arg;

	msim_write_once(&l->y, 1);
	l->r1 = msim_read_once(&l->x);
}

static int sb_setup(struct msim *m, void **state, void *arg)
{
	struct lit *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	*state = l;
	return msim_task_create(m, "t0", 0, sb0_fn, l) && msim_task_create(m, "t1", 1, sb1_fn, l)
		? 0 : -ENOMEM;
}

static bool sb_check(struct msim *m, void *state, char *why, size_t len)
{
	struct lit *l = state;

	snprintf(why, len, "r0 = %ld, r1 = %ld", l->r0, l->r1);
	return l->r0 == 0 && l->r1 == 0;
}

static void sb_teardown(struct msim *m, void *state)
{
	free(state);
}

static const struct msim_explore_target sb_target = {
	.name = "sb", .setup = sb_setup, .check = sb_check, .teardown = sb_teardown,
};

static struct msim_explore_result sb_explore(enum msim_memory_model mm, enum msim_strategy s,
					     const char *schedule)
{
	struct msim_config cfg = unit_config(2, 1);
	struct msim_explore_opts o = { .strategy = s, .runs = s == MSIM_STRAT_DFS ? 10000 : 200,
				       .preemptions = 2, .schedule = schedule };
	struct msim_explore_result res;

	cfg.memory_model = mm;
	assert_int_equal(msim_explore(&sb_target, &cfg, &o, &res), 0);
	return res;
}

static void litmus_sb(void **st)
{
	struct msim_explore_result sc = sb_explore(MSIM_MEMORY_SC, MSIM_STRAT_DFS, NULL);
	struct msim_explore_result tso = sb_explore(MSIM_MEMORY_TSO, MSIM_STRAT_DFS, NULL);
	struct msim_explore_result rnd = sb_explore(MSIM_MEMORY_TSO, MSIM_STRAT_RANDOM, NULL);
	struct msim_explore_result pct = sb_explore(MSIM_MEMORY_TSO, MSIM_STRAT_PCT, NULL);
	struct msim_explore_result again;

	print_message("sb: sc dfs %u schedules %u violations; tso dfs %u/%u; random %u/%u; "
		      "pct %u/%u; first: %s\n", sc.runs, sc.violations, tso.runs, tso.violations,
		      rnd.runs, rnd.violations, pct.runs, pct.violations, tso.schedule);
	assert_true(sc.exhausted);
	assert_int_equal(sc.runs, 14);
	assert_int_equal(sc.violations, 0);              /* sc forbids r0 = r1 = 0 */
	assert_true(tso.exhausted);
	assert_int_equal(tso.runs, 102);                 /* preemption bound 2, drains pay */
	assert_int_equal(tso.violations, 38);            /* tso allows it */
	assert_true(rnd.violations > 0);
	assert_true(pct.violations > 0);
	/* the violating schedule replays exactly, drains included */
	assert_non_null(strchr(tso.schedule, '~'));
	again = sb_explore(MSIM_MEMORY_TSO, MSIM_STRAT_REPLAY, tso.schedule);
	assert_false(again.diverged);
	assert_int_equal(again.violations, 1);
	assert_true(again.trace_hash == tso.trace_hash);
	/* the same schedule under sc names drains that do not exist */
	again = sb_explore(MSIM_MEMORY_SC, MSIM_STRAT_REPLAY, tso.schedule);
	assert_true(again.diverged);
}

/* A drain taken while the running task could go on counts as a preemption (explore.h). */
static void early_drain_is_a_preemption(void **st)
{
	struct msim_explore_result r = sb_explore(MSIM_MEMORY_TSO, MSIM_STRAT_REPLAY,
						  "0*2.~0.0.1*3.~1");

	assert_false(r.diverged);
	assert_int_equal(r.violations, 0);               /* t1 read x = 1: drained early */
	assert_int_equal(r.preemptions, 1);              /* ~0 while t0 could go on; ~1 at the end is free */
	assert_int_equal(r.preempt_log[0].from, 0);
	assert_int_equal(r.preempt_log[0].to, -2 - 0);   /* CPU 0's buffer */
	assert_int_equal(r.preempt_log[0].step, 2);
}

static void spelling_and_refusals(void **st)
{
	struct msim *m = wmm_host(MSIM_MEMORY_TSO, 2);
	struct lit l = { 0 };
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_REPLAY };
	const char *bad[] = { "~", "~x", "~1+", "~1+64", "~1024", "~-1", "0.~1*", NULL };
	enum msim_memory_model mm;
	struct msim_config cfg = unit_config(2, 1);
	struct msim_explore_opts eo = { .strategy = MSIM_STRAT_DPOR, .runs = 10 };
	struct msim_explore_result res;
	char err[128];

	assert_non_null(msim_task_create(m, "t0", 0, sb0_fn, &l));
	for (int i = 0; bad[i]; i++) {
		o.schedule = bad[i];
		assert_int_equal(msim_sched_set(m, &o), -EINVAL);
	}
	o.schedule = "0.~1+63.~0*3";
	assert_int_equal(msim_sched_set(m, &o), 0);
	msim_destroy(m);
	/* names, and the configuration check */
	assert_int_equal(msim_memory_model_parse("pso", &mm), 0);
	assert_int_equal(mm, MSIM_MEMORY_PSO);
	assert_int_equal(msim_memory_model_parse("arm", &mm), -EINVAL);
	assert_string_equal(msim_memory_model_name(MSIM_MEMORY_TSO), "tso");
	assert_null(msim_memory_model_name((enum msim_memory_model)3));
	cfg.memory_model = (enum msim_memory_model)3;
	assert_int_equal(msim_config_validate(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "memory_model"));
	/* DPOR explores drains as threads (explore_dpor_wmm.c): under the bound DFS
	 * needs 102 schedules for (litmus_sb), it finds r0 = r1 = 0 in fewer */
	cfg.memory_model = MSIM_MEMORY_TSO;
	eo.runs = 10000;
	eo.preemptions = 2;
	assert_int_equal(msim_explore(&sb_target, &cfg, &eo, &res), 0);
	print_message("sb: tso dpor %u schedules %u violations\n", res.runs, res.violations);
	assert_true(res.exhausted);
	assert_true(res.violations > 0);
	assert_true(res.runs < 102);
	/* under sc nothing is ever buffered */
	m = wmm_host(MSIM_MEMORY_SC, 2);
	struct msim_task *a = msim_task_create(m, "a", 0, store_two_fn, &l);
	assert_int_equal(msim_run_until(m, a, "t.stored", 1), 0);
	assert_int_equal(msim_store_buffer_len(m, 0), 0);
	assert_int_equal(mem(&l.x), 1);
	assert_int_equal(mem(&l.y), 2);
	assert_int_equal(msim_store_buffer_drain(m, 0, 0), -ENOENT);
	assert_int_equal(msim_run(m), 0);
	msim_destroy(m);
}

/*
 * A reader's store inside its read-side section against an updater that
 * unpublishes the object, waits for a grace period and reuses it: the store must
 * not land after the grace period (the kernel's quiescent states are full
 * barriers; rcu_det.c drains every CPU at a grace period's end).
 */
struct gp_obj {
	long x;
};

struct gp_lit {
	struct gp_obj *gp, *obj;
};

static void gp_reader_fn(void *arg)
{
	struct gp_lit *l = arg;
	struct gp_obj *p;

	msim_rcu_read_lock();
	p = msim_load_at(&l->gp, MSIM_ACQUIRE, "test.gp.deref");
	if (p)
		msim_store_at(&p->x, 1L, MSIM_RELAXED, "test.gp.reader_store");
	msim_rcu_read_unlock();
}

static void gp_updater_fn(void *arg)
{
	struct gp_lit *l = arg;

	msim_store_at(&l->gp, (struct gp_obj *)NULL, MSIM_RELEASE, "test.gp.unpublish");
	msim_synchronize_rcu();
	msim_store_at(&l->obj->x, 42L, MSIM_SEQ_CST, "test.gp.reuse"); /* to memory now */
}

static int gp_setup(struct msim *m, void **state, void *arg)
{
	struct gp_lit *l = calloc(1, sizeof(*l));

	if (!l || !(l->obj = calloc(1, sizeof(*l->obj)))) {
		free(l);
		return -ENOMEM;
	}
	l->gp = l->obj;
	*state = l;
	if (!msim_task_create(m, "reader", 1, gp_reader_fn, l) ||
	    !msim_task_create(m, "updater", 0, gp_updater_fn, l))
		return -ENOMEM;
	return 0;
}

static bool gp_check(struct msim *m, void *state, char *why, size_t len)
{
	struct gp_lit *l = state;

	snprintf(why, len, "the reused object holds %ld: the reader's store landed after the "
		 "grace period", mem(&l->obj->x));
	return mem(&l->obj->x) == 1;
}

static void gp_teardown(struct msim *m, void *state)
{
	struct gp_lit *l = state;

	free(l->obj);
	free(l);
}

static void grace_period_drains_every_cpu(void **st)
{
	static const struct msim_explore_target t = {
		.name = "gp-reuse", .setup = gp_setup, .check = gp_check,
		.teardown = gp_teardown,
	};
	const enum msim_memory_model models[] = { MSIM_MEMORY_SC, MSIM_MEMORY_TSO,
						  MSIM_MEMORY_PSO };

	for (unsigned int i = 0; i < 3; i++) {
		struct msim_config cfg = unit_config(2, 1);
		struct msim_explore_opts o = { .strategy = MSIM_STRAT_DFS, .runs = 100000,
					       .preemptions = MSIM_EXPLORE_UNBOUNDED };
		struct msim_explore_result r;

		cfg.mode = MSIM_DETERMINISTIC;
		cfg.memory_model = models[i];
		assert_int_equal(msim_explore(&t, &cfg, &o, &r), 0);
		assert_true(r.exhausted);
		assert_true(r.runs > 1);
		assert_int_equal(r.violations, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(forwarding_and_fifo),
		cmocka_unit_test(pso_passes_and_waits_for_release),
		cmocka_unit_test(release_orders_older_only),
		cmocka_unit_test(what_drains),
		cmocka_unit_test(unlock_is_a_release),
		cmocka_unit_test(double_unlock_caught_under_pso),
		cmocka_unit_test(driver_lock_settles_pending_release),
		cmocka_unit_test(interrupts_share_the_buffer),
		cmocka_unit_test(litmus_sb),
		cmocka_unit_test(early_drain_is_a_preemption),
		cmocka_unit_test(spelling_and_refusals),
		cmocka_unit_test(grace_period_drains_every_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
