/* SPDX-License-Identifier: MIT */
/*
 * vmstat under interleaving (deterministic hosts): the kernel's order of
 * operations as a reader sees it, the model's fold kept out of an irq-off update,
 * and the error bound of a node read on an 80-CPU host.
 *
 *   irqoff_overflow_counts_twice  __mod_node_page_state adds the overflow to the
 *                                 atomics before it resets the diff: a snapshot
 *                                 in between counts the diff twice
 *   mod_overflow_missed           mod_node_state swaps the diff first: a snapshot
 *                                 in between misses the overflow
 *   fold_in_cmpxchg_window        a fold between the mod form's read and its
 *                                 cmpxchg makes it retry; nothing is lost
 *   fold_deferred_by_section      a fold that meets an irq-off update of its CPU
 *                                 is done at the update's end; without that the
 *                                 update would count the folded diff twice
 *   error_bound_80_cpus           random updates on 80 CPUs under random
 *                                 schedules, with folds of every CPU running inside
 *                                 a task: at every checkpoint the snapshot is exact
 *                                 and |node_page_state - truth| <= 125 x 80
 */
#include <stdlib.h>

#include <memcgsim/introspect.h>

#include "test_vmstat_util.h"

#define A MSIM_NR_FILE_PAGES
#define B MSIM_WORKINGSET_NODES

/* A task that runs up to four updates in order. */
struct steps {
	struct msim *m;
	int ret;                /* first error (asserted by the driver, not in the task) */
	unsigned int n;
	struct { int item; enum vm_op_kind kind; long delta; } s[4];
};

static void steps_fn(void *arg)
{
	struct steps *st = arg;

	for (unsigned int i = 0; i < st->n && !st->ret; i++)
		st->ret = vm_apply(st->m, 0, st->s[i].item, st->s[i].kind, st->s[i].delta);
}

static struct msim_task *steps_task(struct msim *m, unsigned int cpu, struct steps *st)
{
	struct msim_task *t;

	st->m = m;
	t = msim_task_create(m, "steps", cpu, steps_fn, st);
	assert_non_null(t);
	return t;
}

static void irqoff_overflow_counts_twice(void **unused)
{
	struct msim *m = vm_host(4, 1);   /* threshold 48 */
	struct steps st = { .n = 2, .s = { { A, VM_MOD_IRQOFF, 40 }, { A, VM_MOD_IRQOFF, 20 } } };
	struct msim_task *t = steps_task(m, 1, &st);

	/* 40 + 20 passes 48: the atomics get 60 while the diff still reads 40. */
	assert_int_equal(msim_run_until(m, t, "vmstat.diff.reset", 1), 0);
	assert_int_equal(msim_vmstat_node_stat_raw(m, 0, A), 60);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, A), 100);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(st.ret, 0);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, A), 60);
	msim_destroy(m);
}

static void mod_overflow_missed(void **unused)
{
	struct msim *m = vm_host(4, 1);
	struct steps st = { .n = 2, .s = { { A, VM_MOD, 40 }, { A, VM_MOD, 20 } } };
	struct msim_task *t = steps_task(m, 1, &st);

	/* The cmpxchg emptied the diff; the 60 is in neither place yet. */
	assert_int_equal(msim_run_until(m, t, "vmstat.fold.node", 1), 0);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 1, A), 0);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, A), 0);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(st.ret, 0);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, A), 60);
	msim_destroy(m);
}

static void fold_in_cmpxchg_window(void **unused)
{
	struct msim *m = vm_host(4, 1);
	struct steps st = { .n = 2, .s = { { A, VM_MOD, 10 }, { A, VM_MOD, 5 } } };
	struct msim_task *t = steps_task(m, 1, &st);
	struct msim_vmstat_counters c;

	/* The second update has read 10 and is about to cmpxchg 10 -> 15. */
	assert_int_equal(msim_run_until(m, t, "vmstat.diff.cmpxchg", 2), 0);
	assert_int_equal(msim_vmstat_refresh(m), 1);
	assert_int_equal(msim_vmstat_node_stat_raw(m, 0, A), 10);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(st.ret, 0);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 1, A), 5);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, A), 15);
	msim_vmstat_counters(m, &c);
	assert_int_equal(c.cmpxchg_retries, 1);
	msim_destroy(m);
}

static void fold_deferred_by_section(void **unused)
{
	struct msim *m = vm_host(4, 1);
	struct steps st = { .n = 3, .s = { { B, VM_INC_IRQOFF, 0 }, { A, VM_MOD_IRQOFF, 10 },
					   { A, VM_MOD_IRQOFF, 100 } } };
	struct msim_task *t = steps_task(m, 1, &st);
	struct msim_vmstat_counters c;

	/* CPU 1 is inside the third update: it has read A's 10 and will fold 110. */
	assert_int_equal(msim_run_until(m, t, "vmstat.fold.node", 1), 0);
	assert_int_equal(msim_vmstat_refresh(m), 0);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 1, A), 10);   /* left alone */
	assert_int_equal(msim_vmstat_node_diff(m, 0, 1, B), 1);
	assert_int_equal(msim_run_task(m, t), 0);
	assert_int_equal(st.ret, 0);
	/* The update folded 110 (not 120), and its end folded the rest of CPU 1. */
	assert_int_equal(msim_vmstat_node_stat_raw(m, 0, A), 110);
	assert_int_equal(msim_vmstat_node_stat_raw(m, 0, B), 1);
	assert_int_equal(msim_vmstat_node_diff(m, 0, 1, B), 0);
	msim_vmstat_counters(m, &c);
	assert_int_equal(c.deferred_folds, 1);
	msim_destroy(m);
}

/* ---- error bound on 80 CPUs ---- */

#define NCPU 80
#define PHASES 8
#define OPS 40
#define THRESHOLD 125    /* 80 CPUs, 16 GiB NORMAL (test_vmstat.c thresholds_by_hand) */

struct worker {
	struct msim *m;
	uint64_t rng;
	long truth[2];          /* what this CPU added to A and to B */
	int ret;                /* first error of an update */
	bool folds;             /* CPU 0: also runs folds of every CPU inside its task */
};

static uint64_t rnd(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static void worker_fn(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < OPS; i++) {
		unsigned int which = rnd(w) % 2;
		enum vm_op_kind kind = (enum vm_op_kind)(rnd(w) % 6);
		long delta = (long)(rnd(w) % 51) - 10;  /* -10 .. 40: an overflow every few updates */
		long applied = kind == VM_INC || kind == VM_INC_IRQOFF ? 1 :
			       kind == VM_DEC || kind == VM_DEC_IRQOFF ? -1 : delta;
		int r = vm_apply(w->m, 0, which ? B : A, kind, delta);

		if (r) {
			w->ret = r;
			return;
		}
		w->truth[which] += applied;
		if (w->folds && i % 10 == 9)
			msim_clock_advance(w->m, 250);  /* the periodic works, inside this task */
		else if (w->folds && i % 5 == 4)
			msim_vmstat_refresh(w->m);      /* stat_refresh: every CPU now */
	}
}

/* One phase: a task per CPU, under a random schedule seeded by the phase. */
static void run_phase(struct msim *m, struct worker *w, unsigned int phase)
{
	struct msim_sched_opts so = { .strategy = MSIM_STRAT_RANDOM, .seed = 1000 + phase };

	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		w[cpu].m = m;
		w[cpu].folds = cpu == 0 && phase % 2 == 0; /* odd phases: lag only */
		assert_non_null(msim_task_create(m, "w", cpu, worker_fn, &w[cpu]));
	}
	assert_int_equal(msim_sched_set(m, &so), 0);
	assert_int_equal(msim_run(m), 0);
	for (unsigned int cpu = 0; cpu < NCPU; cpu++)
		assert_int_equal(w[cpu].ret, 0);
}

/* The checkpoint: exact snapshot, bounded plain read. Returns the read's error. */
static long checkpoint(struct msim *m, const struct worker *w, int item, unsigned int which)
{
	long truth = 0, held = 0, err;

	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		long d = msim_vmstat_node_diff(m, 0, cpu, item);

		truth += w[cpu].truth[which];
		assert_true(labs(d) <= THRESHOLD);
		held += d;
	}
	assert_true(truth >= 0);
	assert_int_equal(msim_vmstat_node_stat_raw(m, 0, item) + held, truth);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, item), truth);
	err = labs((long)msim_vmstat_node_page_state(m, 0, item) - truth);
	assert_true(err <= (long)THRESHOLD * NCPU);
	return err;
}

static void error_bound_80_cpus(void **unused)
{
	struct msim_config cfg = unit_config(NCPU, 1);
	struct worker *w = calloc(NCPU, sizeof(*w));
	struct msim_vmstat_counters c;
	long worst = 0;
	struct msim *m;

	cfg.zone_managed_pages[MSIM_ZONE_NORMAL] = GIB_PAGES(16);
	m = vm_host_cfg(&cfg);
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 79), THRESHOLD);
	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		w[cpu].rng = 0x9e3779b97f4a7c15ULL * (cpu + 1);
		/* A start that keeps the truth positive whatever the random deltas do. */
		assert_int_equal(vm_on_cpu(m, cpu, (struct vm_op){ .item = A, .delta = 600,
								   .kind = VM_MOD }), 0);
		assert_int_equal(vm_on_cpu(m, cpu, (struct vm_op){ .item = B, .delta = 600,
								   .kind = VM_MOD }), 0);
		w[cpu].truth[0] = w[cpu].truth[1] = 600;
	}
	for (unsigned int phase = 0; phase < PHASES; phase++) {
		run_phase(m, w, phase);
		for (unsigned int which = 0; which < 2; which++) {
			long err = checkpoint(m, w, which ? B : A, which);

			worst = err > worst ? err : worst;
		}
		if (phase % 2) {   /* a quiet second: every CPU's work has folded */
			msim_clock_advance(m, 2 * msim_config(m)->hz);
			for (unsigned int which = 0; which < 2; which++)
				assert_int_equal(checkpoint(m, w, which ? B : A, which), 0);
		}
	}
	/* The plain read lagged by more than one CPU's worth: the diffs are real. */
	assert_true(worst > THRESHOLD);
	msim_vmstat_counters(m, &c);
	assert_true(c.deferred_folds > 0);   /* folds inside CPU 0's task met sections */
	assert_true(c.cmpxchg_retries > 0);  /* and mod-form windows */
	print_message("worst node_page_state error %ld pages (bound %d); deferred folds %llu, "
		      "cmpxchg retries %llu\n", worst, THRESHOLD * NCPU,
		      (unsigned long long)c.deferred_folds, (unsigned long long)c.cmpxchg_retries);
	msim_destroy(m);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(irqoff_overflow_counts_twice),
		cmocka_unit_test(mod_overflow_missed),
		cmocka_unit_test(fold_in_cmpxchg_window),
		cmocka_unit_test(fold_deferred_by_section),
		cmocka_unit_test(error_bound_80_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
