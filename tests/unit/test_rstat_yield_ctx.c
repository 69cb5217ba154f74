/* SPDX-License-Identifier: MIT */
/*
 * The yield contexts rstat gives its points (rstat.h "Named yield points"): a
 * flush names the CPU it visits and the memcg it folds, the write path the
 * memcg written and the level it walks. Checked by recording, at every park,
 * what msim_task_where() reports, against the order the kernel's flush and
 * walk take (children before parents; leaf up to the root).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit/unit_util.h"

#define MAX_SEEN 64

struct seen {
	const char *point;     /* record only parks at this name (NULL: every park) */
	unsigned int n;
	const char *names[MAX_SEEN];
	const void *object[MAX_SEEN];
	int cpu[MAX_SEEN];
};

/* A stop rule that never stops: it records where the task parks. */
static bool record(const struct msim_task *t, const struct msim_task_where *w, void *arg)
{
	struct seen *s = arg;

	if ((!s->point || !strcmp(w->point, s->point)) && s->n < MAX_SEEN) {
		s->names[s->n] = w->point;
		s->object[s->n] = w->ctx.object;
		s->cpu[s->n] = w->ctx.cpu;
		s->n++;
	}
	return false;
}

struct tree {
	struct msim *m;
	struct msim_memcg *root, *mid, *leaf;
	struct msim_memcg *target;     /* what the next updater writes to */
};

static void tree_init(struct tree *tr)
{
	tr->m = unit_host(4, 1);
	assert_int_equal(msim_rstat_init(tr->m, NULL), 0);
	tr->root = msim_root_mem_cgroup(tr->m);
	assert_int_equal(msim_memcg_create(tr->root, "mid", &tr->mid), 0);
	assert_int_equal(msim_memcg_create(tr->mid, "leaf", &tr->leaf), 0);
}

static void update_fn(void *arg)
{
	struct msim_memcg *memcg = arg;
	struct msim *m = msim_current_host();

	msim_lruvec_stat_mod_page(m, memcg, 0, MSIM_NR_FILE_PAGES, 1);
}

static void flush_fn(void *arg)
{
	msim_mem_cgroup_flush_stats_forced(arg);
}

/* An update on CPU 1 to leaf, one on CPU 3 to mid, run to completion. */
static void two_updates(struct tree *tr)
{
	struct msim_task *u1 = msim_task_create(tr->m, "u1", 1, update_fn, tr->leaf);
	struct msim_task *u3 = msim_task_create(tr->m, "u3", 3, update_fn, tr->mid);

	assert_int_equal(msim_run_task(tr->m, u1), 0);
	assert_int_equal(msim_run_task(tr->m, u3), 0);
}

static void flush_names_cpu_and_memcg(void **st)
{
	struct tree tr;
	struct seen folds = { .point = "rstat.flush.memcg" };
	struct seen cpus = { .point = "rstat.flush.cpu_start" };
	struct seen reads = { .point = "rstat.flush.atomic_read" };

	tree_init(&tr);
	/* Three rounds of updates and a root flush, each recording other points. */
	struct seen *rounds[] = { &folds, &cpus, &reads };
	for (unsigned int r = 0; r < 3; r++) {
		two_updates(&tr);
		struct msim_task *f = msim_task_create(tr.m, "flusher", 0, flush_fn, tr.root);
		assert_int_equal(msim_run_until_fn(tr.m, f, record, rounds[r]), -ESRCH);
	}

	/* CPU 1 updated leaf (so mid and root), CPU 3 mid (so root): children first. */
	const void *want_obj[] = { tr.leaf, tr.mid, tr.root, tr.mid, tr.root };
	const int want_cpu[] = { 1, 1, 1, 3, 3 };
	assert_int_equal(folds.n, 5);
	for (unsigned int i = 0; i < 5; i++) {
		assert_ptr_equal(folds.object[i], want_obj[i]);
		assert_int_equal(folds.cpu[i], want_cpu[i]);
	}
	/* The atomic's read is for the memcg being folded. */
	assert_int_equal(reads.n, 5);
	for (unsigned int i = 0; i < 5; i++) {
		assert_ptr_equal(reads.object[i], want_obj[i]);
		assert_int_equal(reads.cpu[i], want_cpu[i]);
	}
	/* Every CPU is visited, in order; no memcg yet at the visit's start. */
	assert_int_equal(cpus.n, 4);
	for (unsigned int i = 0; i < 4; i++) {
		assert_null(cpus.object[i]);
		assert_int_equal(cpus.cpu[i], (int)i);
	}
	msim_destroy(tr.m);
}

/* The walk names each level it tests; the rest of the update names the memcg written. */
static void write_path_names_memcg_and_level(void **st)
{
	struct tree tr;
	struct seen all = { .point = NULL };
	unsigned int levels = 0;

	tree_init(&tr);
	struct msim_task *u = msim_task_create(tr.m, "u", 2, update_fn, tr.leaf);
	assert_int_equal(msim_run_until_fn(tr.m, u, record, &all), -ESRCH);
	const void *want_level[] = { tr.leaf, tr.mid, tr.root };
	bool done_seen = false, claim_seen = false;
	for (unsigned int i = 0; i < all.n; i++) {
		if (!strcmp(all.names[i], "rstat.update.level")) {
			assert_true(levels < 3);
			assert_ptr_equal(all.object[i], want_level[levels]);
			assert_int_equal(all.cpu[i], 2);
			levels++;
		} else if (!strcmp(all.names[i], "rstat.update.done")) {
			assert_ptr_equal(all.object[i], tr.leaf);
			assert_int_equal(all.cpu[i], 2);
			done_seen = true;
		} else if (!strcmp(all.names[i], "rstat.enqueue.claim")) {
			assert_ptr_equal(all.object[i], tr.leaf);
			claim_seen = true;
		}
	}
	assert_int_equal(levels, 3);
	assert_true(done_seen);
	assert_true(claim_seen);
	msim_destroy(tr.m);
}

/*
 * The window of thread 004 (a flush between leaf's fold and mid's): by context
 * and by count it is the same stop, with the same schedule and trace.
 */
static void stop_by_memcg_equals_stop_by_count(void **st)
{
	char by_count[256];
	uint64_t hash = 0;

	for (int by_ctx = 0; by_ctx < 2; by_ctx++) {
		struct tree tr;

		tree_init(&tr);
		two_updates(&tr);
		struct msim_task *f = msim_task_create(tr.m, "flusher", 0, flush_fn, tr.root);
		struct msim_yield_ctx at_mid = { .object = tr.mid, .cpu = 1, .nid = -1 };
		struct msim_task_where w;

		if (by_ctx)
			assert_int_equal(msim_run_until_ctx(tr.m, f, "rstat.flush.memcg", &at_mid, 1), 0);
		else
			assert_int_equal(msim_run_until(tr.m, f, "rstat.flush.memcg", 2), 0);
		assert_true(msim_task_where(f, &w));
		assert_ptr_equal(w.ctx.object, tr.mid);
		assert_int_equal(w.hits, 2);
		assert_int_equal(msim_memcg_stats_updates_cpu(tr.leaf, 1), 0);  /* leaf folded */
		assert_int_not_equal(msim_memcg_stats_updates_cpu(tr.mid, 1), 0); /* mid not yet */
		assert_int_equal(msim_run_task(tr.m, f), 0);
		if (!by_ctx) {
			snprintf(by_count, sizeof(by_count), "%s", msim_schedule_string(tr.m));
			hash = msim_sched_trace_hash(tr.m);
		} else {
			assert_string_equal(msim_schedule_string(tr.m), by_count);
			assert_true(msim_sched_trace_hash(tr.m) == hash);
		}
		msim_destroy(tr.m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flush_names_cpu_and_memcg),
		cmocka_unit_test(write_path_names_memcg_and_level),
		cmocka_unit_test(stop_by_memcg_equals_stop_by_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
