/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * vmstat in concurrent mode (real threads; the tsan preset runs it under TSan).
 *
 * 5 CPUs. The tasks on CPUs 0-3 update two node items and one zone item with
 * every update form, keeping a ledger of what they applied; the task on CPU 0
 * also advances the virtual clock (the shepherd and the per-CPU works then fold
 * the other CPUs' diffs from CPU 0's thread, while those CPUs update) and calls
 * stat_refresh now and then. The task on CPU 4 only reads: plain reads and
 * snapshots, racing with everything.
 *
 * After the run: each snapshot equals the ledgers' sum, no diff is beyond its
 * threshold, and after a refresh the plain reads equal it too with every diff 0.
 * Nothing here depends on timing: a fold handed to the end of an irq-off update
 * or a cmpxchg retry may or may not happen; the totals hold either way.
 */
#include <stdlib.h>

#include <memcgsim/introspect.h>

#include "test_vmstat_util.h"

#define NCPU 5
#define NUPD 4          /* CPUs 0..3 update, CPU 4 reads */
#define ITERS 200000
#define READS 20000

#define A MSIM_NR_ANON_MAPPED
#define B MSIM_NR_ISOLATED_FILE
#define Z MSIM_NR_ZONE_ACTIVE_ANON

struct worker {
	struct msim *m;
	unsigned int cpu;
	uint64_t rng;
	long truth[3];      /* A, B, Z */
	int ret;
	unsigned long reads_nonzero;
};

static uint64_t rnd(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static int zone_update(struct msim *m, enum vm_op_kind kind, long delta)
{
	switch (kind) {
	case VM_MOD: return msim_vmstat_mod_zone_page_state(m, 0, MSIM_ZONE_NORMAL, Z, delta);
	case VM_INC: return msim_vmstat_inc_zone_state(m, 0, MSIM_ZONE_NORMAL, Z);
	case VM_DEC: return msim_vmstat_dec_zone_state(m, 0, MSIM_ZONE_NORMAL, Z);
	case VM_MOD_IRQOFF:
		return msim_vmstat_mod_zone_page_state_irqoff(m, 0, MSIM_ZONE_NORMAL, Z, delta);
	case VM_INC_IRQOFF: return msim_vmstat_inc_zone_state_irqoff(m, 0, MSIM_ZONE_NORMAL, Z);
	case VM_DEC_IRQOFF: return msim_vmstat_dec_zone_state_irqoff(m, 0, MSIM_ZONE_NORMAL, Z);
	}
	return -1;
}

static void updater_fn(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < ITERS && !w->ret; i++) {
		unsigned int which = rnd(w) % 3;
		enum vm_op_kind kind = (enum vm_op_kind)(rnd(w) % 6);
		long delta = (long)(rnd(w) % 41) - 10;
		long applied = kind == VM_INC || kind == VM_INC_IRQOFF ? 1 :
			       kind == VM_DEC || kind == VM_DEC_IRQOFF ? -1 : delta;

		if (which == 2)
			w->ret = zone_update(w->m, kind, delta);
		else
			w->ret = vm_apply(w->m, 0, which ? B : A, kind, delta);
		w->truth[which] += applied;
		if (w->cpu == 0 && i % 64 == 63)
			msim_clock_advance(w->m, 100);
		if (w->cpu == 0 && i % 1000 == 999)
			msim_vmstat_refresh(w->m);
	}
}

static void reader_fn(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < READS; i++) {
		unsigned long v = msim_vmstat_node_page_state(w->m, 0, A) +
				  msim_vmstat_node_page_state_snapshot(w->m, 0, B) +
				  msim_vmstat_zone_page_state_snapshot(w->m, 0, MSIM_ZONE_NORMAL, Z) +
				  msim_vmstat_global_zone_page_state(w->m, Z);

		w->reads_nonzero += v != 0;
	}
}

static long ledger(const struct worker *w, unsigned int which)
{
	long sum = 0;

	for (unsigned int cpu = 0; cpu < NUPD; cpu++)
		sum += w[cpu].truth[which];
	return sum;
}

static void check_totals(struct msim *m, const struct worker *w)
{
	long a = ledger(w, 0), b = ledger(w, 1), z = ledger(w, 2);

	assert_true(a > 0 && b > 0 && z > 0);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, A), a);
	assert_int_equal(msim_vmstat_node_page_state_snapshot(m, 0, B), b);
	assert_int_equal(msim_vmstat_zone_page_state_snapshot(m, 0, MSIM_ZONE_NORMAL, Z), z);
	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		long tn = msim_vmstat_node_stat_threshold(m, 0, cpu);
		long tz = msim_vmstat_zone_stat_threshold(m, 0, MSIM_ZONE_NORMAL, cpu);

		assert_true(labs(msim_vmstat_node_diff(m, 0, cpu, A)) <= tn);
		assert_true(labs(msim_vmstat_node_diff(m, 0, cpu, B)) <= tn);
		assert_true(labs(msim_vmstat_zone_diff(m, 0, MSIM_ZONE_NORMAL, cpu, Z)) <= tz);
	}
	msim_vmstat_refresh(m);
	assert_int_equal(msim_vmstat_node_page_state(m, 0, A), a);
	assert_int_equal(msim_vmstat_global_node_page_state(m, B), b);
	assert_int_equal(msim_vmstat_global_zone_page_state(m, Z), z);
	for (unsigned int cpu = 0; cpu < NCPU; cpu++)
		assert_int_equal(msim_vmstat_node_diff(m, 0, cpu, A), 0);
}

static void concurrent_conservation(void **unused)
{
	struct msim_config cfg = unit_config(NCPU, 1);
	struct worker w[NCPU] = { 0 };
	struct msim_vmstat_counters c;
	struct msim *m;

	cfg.mode = MSIM_CONCURRENT;
	m = vm_host_cfg(&cfg);
	/* 5 CPUs, NORMAL 13 GiB: fls(5) = 3, 2 x 3 x 8 = 48 for node and NORMAL alike. */
	assert_int_equal(msim_vmstat_node_stat_threshold(m, 0, 0), 48);
	for (unsigned int cpu = 0; cpu < NCPU; cpu++) {
		w[cpu] = (struct worker){ .m = m, .cpu = cpu, .rng = 0x2545f4914f6cdd1dULL + cpu };
		assert_non_null(msim_task_create(m, "w", cpu, cpu < NUPD ? updater_fn : reader_fn,
						 &w[cpu]));
	}
	assert_int_equal(msim_run(m), 0);
	for (unsigned int cpu = 0; cpu < NUPD; cpu++)
		assert_int_equal(w[cpu].ret, 0);
	check_totals(m, w);
	msim_vmstat_counters(m, &c);
	assert_true(c.cpu_folds > 0 && c.threshold_folds > 0 && c.shepherd_runs > 0);
	print_message("folds: %llu threshold, %llu per-CPU (%llu handed to an irq-off update's "
		      "end), %llu cmpxchg retries\n", (unsigned long long)c.threshold_folds,
		      (unsigned long long)c.cpu_folds, (unsigned long long)c.deferred_folds,
		      (unsigned long long)c.cmpxchg_retries);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_conservation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
